//! The VS Code extension's manifest and script (`editors/vscode`): it starts for
//! charts only, runs in Restricted Mode without letting a workspace name the
//! binary, and has a restart command. VS Code itself does not run here; `cargo
//! xtask ci` packages the extension and checks the package.

use std::path::Path;
use std::process::Command;

use crate::common;

fn read(name: &str) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("editors/vscode")
            .join(name),
    )
    .unwrap()
}

#[test]
fn the_extension_serves_charts_only_and_restarts() {
    let manifest: serde_json::Value = serde_json::from_str(&read("package.json")).unwrap();
    let script = read("extension.js");
    // Started by a workspace holding a chart or a configuration, never by any YAML
    // file, and serving only the files under those folders.
    let events: Vec<&str> = manifest["activationEvents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|event| event.as_str().unwrap())
        .collect();
    assert_eq!(
        events,
        [
            "workspaceContains:**/Chart.yaml",
            "workspaceContains:**/tether.toml"
        ]
    );
    assert!(!script.contains("language: \"yaml\""), "{script}");
    assert!(
        script.contains("new vscode.RelativePattern(folder"),
        "{script}"
    );
    // Restricted Mode: supported, with the binary's path from the user's settings
    // only.
    let untrusted = &manifest["capabilities"]["untrustedWorkspaces"];
    assert_eq!(untrusted["supported"], "limited");
    assert_eq!(
        untrusted["restrictedConfigurations"],
        serde_json::json!(["tether.path"])
    );
    assert_eq!(
        manifest["contributes"]["configuration"]["properties"]["tether.path"]["scope"],
        "machine"
    );
    // The values files the user names reach the server, at start and on change,
    // with the server's own default.
    assert_eq!(
        manifest["contributes"]["configuration"]["properties"]["tether.valuesFiles"]["default"],
        serde_json::json!(["values*.yaml", "values*.yml"])
    );
    assert!(
        script.contains("initializationOptions: { valuesFiles: settings.get(\"valuesFiles\") }")
    );
    assert!(script.contains("synchronize: { configurationSection: \"tether\" }"));
    // The restart command, contributed and registered.
    assert_eq!(
        manifest["contributes"]["commands"][0]["command"],
        "tether.restart"
    );
    assert!(script.contains("registerCommand(\"tether.restart\""));
    if common::tools_present(&["node"]) {
        let checked = Command::new("node")
            .arg("--check")
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("editors/vscode/extension.js"))
            .output()
            .unwrap();
        assert!(checked.status.success(), "{checked:?}");
    }
}
