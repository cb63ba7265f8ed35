//! SARIF 2.1.0 output of `tether check`, for GitHub code scanning
//! (`github/codeql-action/upload-sarif`) and other SARIF viewers.

use serde_json::{json, Value};

use crate::check::CheckReport;
use crate::diagnostic::Severity;
use crate::report::json::region;
use crate::rules::{Level, RULES};

/// One run with every rule described and every finding located.
pub fn render(report: &CheckReport, base: &std::path::Path) -> String {
    let rules: Vec<Value> = RULES
        .iter()
        .map(|registered| {
            let level = match registered.rule.default_level() {
                Level::Error => "error",
                Level::Warn => "warning",
                Level::Off => "none",
            };
            json!({
                "id": registered.rule.name(),
                "shortDescription": { "text": registered.summary() },
                "fullDescription": { "text": registered.documentation() },
                "help": { "text": registered.documentation(), "markdown": registered.documentation() },
                "defaultConfiguration": { "level": level },
            })
        })
        .collect();
    let results: Vec<Value> = report
        .diagnostics
        .iter()
        .map(|diagnostic| {
            let (line, column, end_line, end_column) = region(report, diagnostic);
            let message = diagnostic.message_with_help();
            let mut result = json!({
                "ruleId": diagnostic.rule,
                "level": match diagnostic.severity {
                    Severity::Error => "error",
                    Severity::Warning => "warning",
                },
                "message": { "text": message },
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": {
                            "uri": report.path_from(diagnostic, base),
                            "uriBaseId": "%SRCROOT%",
                        },
                        "region": {
                            "startLine": line,
                            "startColumn": column,
                            "endLine": end_line,
                            "endColumn": end_column,
                        },
                    },
                }],
            });
            if let Some(index) = RULES.iter().position(|r| r.rule.name() == diagnostic.rule) {
                result["ruleIndex"] = json!(index);
            }
            result
        })
        .collect();
    let sarif = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "tether",
                    "version": env!("CARGO_PKG_VERSION"),
                    "rules": rules,
                },
            },
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    });
    serde_json::to_string_pretty(&sarif).unwrap_or_default() + "\n"
}
