// The VS Code client of `tether server`: starts it over stdio for the YAML and
// template files of the workspace's charts (the folders holding a Chart.yaml or a
// tether.toml), never for a YAML file outside them, such as a docker-compose.yml.
const path = require("path");
const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

let client;

// The documents the server is for: every YAML and template file under a folder of
// the workspace that holds a Chart.yaml or a tether.toml.
async function documentSelector() {
  const exclude = "**/node_modules/**";
  const found = [
    ...(await vscode.workspace.findFiles("**/Chart.yaml", exclude)),
    ...(await vscode.workspace.findFiles("**/tether.toml", exclude)),
  ];
  const folders = [...new Set(found.map((uri) => path.dirname(uri.fsPath)))];
  return folders.map((folder) => ({
    scheme: "file",
    pattern: new vscode.RelativePattern(folder, "**/*.{yaml,yml,tpl}"),
  }));
}

async function start() {
  const settings = vscode.workspace.getConfiguration("tether");
  const command = settings.get("path", "tether");
  const server = { command, args: ["server"], transport: TransportKind.stdio };
  client = new LanguageClient(
    "tether",
    "tether",
    { run: server, debug: server },
    {
      documentSelector: await documentSelector(),
      // The values files the server reads, and their changes without a restart.
      initializationOptions: { valuesFiles: settings.get("valuesFiles") },
      synchronize: { configurationSection: "tether" },
    }
  );
  await client.start();
}

async function activate(context) {
  context.subscriptions.push(
    vscode.commands.registerCommand("tether.restart", async () => {
      if (client) {
        await client.stop();
      }
      await start();
    }),
    { dispose: () => (client ? client.stop() : undefined) }
  );
  await start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
