// The VS Code client of `tether server`: starts it over stdio for YAML and Helm
// files and hands it the workspace's configuration files to watch.
const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const command = vscode.workspace.getConfiguration("tether").get("path", "tether");
  const server = { command, args: ["server"], transport: TransportKind.stdio };
  client = new LanguageClient(
    "tether",
    "tether",
    { run: server, debug: server },
    {
      documentSelector: [
        { scheme: "file", language: "yaml" },
        { scheme: "file", language: "helm" },
        { scheme: "file", pattern: "**/*.tpl" },
      ],
    }
  );
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
