-- Neovim 0.7 (Debian 12) against `tether server`: open $TETHER_FILE, start the
-- server with vim.lsp.start_client, attach it to the buffer, wait for a
-- diagnostic, write every diagnostic's code and message to $TETHER_OUT, quit.
local file = os.getenv("TETHER_FILE")
local out = os.getenv("TETHER_OUT")
vim.cmd("edit " .. vim.fn.fnameescape(file))
local buffer = vim.api.nvim_get_current_buf()
local client = vim.lsp.start_client({
  name = "tether",
  cmd = { os.getenv("TETHER"), "server" },
  root_dir = os.getenv("TETHER_ROOT"),
})
vim.lsp.buf_attach_client(buffer, client)

local function code_of(diagnostic)
  if diagnostic.code then
    return diagnostic.code
  end
  local lsp = diagnostic.user_data and diagnostic.user_data.lsp or {}
  return lsp.code or ""
end

vim.wait(20000, function()
  return #vim.diagnostic.get(buffer) > 0
end, 50)
local lines = {}
for _, diagnostic in ipairs(vim.diagnostic.get(buffer)) do
  table.insert(lines, code_of(diagnostic) .. "\t" .. (diagnostic.lnum + 1) .. "\t" .. diagnostic.message)
end
local handle = io.open(out, "w")
handle:write(table.concat(lines, "\n") .. "\n")
handle:close()
vim.lsp.stop_client(client)
vim.cmd("qall!")
