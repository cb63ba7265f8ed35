-- Neovim 0.7 (Debian 12) against `tether server`: open $TETHER_FILE, start the
-- server with vim.lsp.start_client, attach it to the buffer, wait for a
-- diagnostic, write every diagnostic's code and message to $TETHER_OUT, then the
-- completion after the file's first `.Values.` and the hover on the key it reads,
-- and quit.
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
-- Completion after the first `.Values.` read, and hover on the key it reads.
local row, column
for index, text in ipairs(vim.api.nvim_buf_get_lines(buffer, 0, -1, false)) do
  local found = text:find(".Values.", 1, true)
  if found then
    row, column = index - 1, found - 1 + #".Values."
    break
  end
end
if row then
  local document = { uri = vim.uri_from_bufnr(buffer) }
  local completed = vim.lsp.buf_request_sync(buffer, "textDocument/completion", {
    textDocument = document,
    position = { line = row, character = column },
  }, 20000) or {}
  for _, response in pairs(completed) do
    local result = response.result or {}
    for _, item in ipairs(result.items or result) do
      table.insert(lines, "completion\t" .. item.label)
    end
  end
  local hovered = vim.lsp.buf_request_sync(buffer, "textDocument/hover", {
    textDocument = document,
    position = { line = row, character = column + 1 },
  }, 20000) or {}
  for _, response in pairs(hovered) do
    local contents = response.result and response.result.contents or {}
    local value = contents.value or ""
    for text in value:gmatch("[^\n]+") do
      table.insert(lines, "hover\t" .. text)
    end
  end
end
local handle = io.open(out, "w")
handle:write(table.concat(lines, "\n") .. "\n")
handle:close()
vim.lsp.stop_client(client)
vim.cmd("qall!")
