//! SARIF 2.1.0 output of `tether check`, for GitHub code scanning
//! (`github/codeql-action/upload-sarif`) and other SARIF viewers.
//!
//! Built from typed structs (the subset of the SARIF object model tether fills), so a
//! misspelt property is a compile error, not a file code scanning rejects. A test
//! validates real output with Microsoft's SARIF validator, which carries the schema.

use serde::Serialize;

use crate::diagnostic::{Diagnostic, Severity};
use crate::linter::check::CheckReport;
use crate::report::json::region;
use crate::rules::{Level, RULES};

/// Where tether's documentation lives, for `tool.driver.informationUri`: the
/// `repository` of `Cargo.toml`.
pub const INFORMATION_URI: &str = env!("CARGO_PKG_REPOSITORY");

/// The page of the published book that documents every rule, one heading each
/// (mdBook's anchor of `## rule-name` is `#rule-name`): each rule's `helpUri`.
pub(crate) const RULES_PAGE: &str = "https://cozystack.github.io/tether/rules.html";

#[derive(Serialize)]
struct Log<'a> {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: Vec<Run<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Run<'a> {
    tool: Tool,
    /// Whether tether checked what it was asked to, and what kept it from it.
    invocations: Vec<Invocation>,
    column_kind: &'static str,
    original_uri_base_ids: OriginalUriBaseIds,
    results: Vec<SarifResult<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Invocation {
    execution_successful: bool,
    tool_execution_notifications: Vec<Notification>,
}

/// A failure of the run (a broken `tether.toml`, an unreadable folder): SARIF's
/// `toolExecutionNotification`, located where the message names a file and line.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Notification {
    level: &'static str,
    message: Text,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    locations: Vec<NotificationLocation>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct NotificationLocation {
    physical_location: NotificationPlace,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct NotificationPlace {
    artifact_location: ArtifactLocation,
    region: StartRegion,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct StartRegion {
    start_line: usize,
    start_column: usize,
}

#[derive(Serialize)]
struct Tool {
    driver: Driver,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Driver {
    name: &'static str,
    version: &'static str,
    semantic_version: &'static str,
    information_uri: &'static str,
    rules: Vec<ReportingDescriptor>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ReportingDescriptor {
    id: &'static str,
    /// The friendly name SARIF viewers show (`DetachedComment`), distinct from
    /// the id as SARIF2012 asks.
    name: String,
    help_uri: String,
    short_description: Text,
    full_description: Text,
    help: MarkdownText,
    default_configuration: Configuration,
}

#[derive(Serialize)]
struct Configuration {
    level: &'static str,
}

#[derive(Serialize)]
struct Text {
    text: String,
}

#[derive(Serialize)]
struct MarkdownText {
    text: String,
    markdown: String,
}

#[derive(Serialize)]
struct OriginalUriBaseIds {
    #[serde(rename = "%SRCROOT%")]
    source_root: ArtifactLocation,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifResult<'a> {
    rule_id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    rule_index: Option<usize>,
    level: &'static str,
    message: Text,
    locations: Vec<Location>,
    partial_fingerprints: Fingerprints,
}

#[derive(Serialize)]
struct Fingerprints {
    /// Stays the same when unrelated lines move: the rule, the path and the text of
    /// the finding's line, not its number.
    #[serde(rename = "tether/v1")]
    tether: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Location {
    physical_location: PhysicalLocation,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PhysicalLocation {
    artifact_location: ArtifactLocation,
    region: Region,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ArtifactLocation {
    uri: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    uri_base_id: Option<&'static str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Region {
    start_line: usize,
    start_column: usize,
    end_line: usize,
    end_column: usize,
}

/// One run with every rule described and every finding located, paths relative to
/// `base` (the repository's top level).
pub fn render(report: &CheckReport, base: &std::path::Path) -> String {
    let results = report
        .diagnostics
        .iter()
        .map(|diagnostic| result_of(report, diagnostic, base))
        .collect();
    let root_uri = format!(
        "file://{}/",
        percent_encoded(base.to_string_lossy().trim_end_matches('/'))
    );
    let notifications = report
        .failures_beyond_findings()
        .into_iter()
        .map(|failure| notification_of(failure, base))
        .collect();
    let log = Log {
        schema: "https://json.schemastore.org/sarif-2.1.0.json",
        version: "2.1.0",
        runs: vec![Run {
            tool: Tool {
                driver: Driver {
                    name: "tether",
                    version: env!("CARGO_PKG_VERSION"),
                    semantic_version: env!("CARGO_PKG_VERSION"),
                    information_uri: INFORMATION_URI,
                    rules: rule_descriptors(),
                },
            },
            invocations: vec![Invocation {
                execution_successful: report.failures.is_empty(),
                tool_execution_notifications: notifications,
            }],
            column_kind: "unicodeCodePoints",
            original_uri_base_ids: OriginalUriBaseIds {
                source_root: ArtifactLocation {
                    uri: root_uri,
                    uri_base_id: None,
                },
            },
            results,
        }],
    };
    serde_json::to_string_pretty(&log).unwrap_or_default() + "\n"
}

/// Every registered rule, described with its documentation and default level.
fn rule_descriptors() -> Vec<ReportingDescriptor> {
    RULES
        .iter()
        .map(|registered| ReportingDescriptor {
            id: registered.rule.name(),
            name: pascal_case(registered.rule.name()),
            help_uri: format!("{RULES_PAGE}#{}", registered.rule.name()),
            short_description: Text {
                text: registered.summary(),
            },
            full_description: Text {
                text: registered.documentation(),
            },
            help: MarkdownText {
                text: registered.documentation(),
                markdown: registered.documentation(),
            },
            default_configuration: Configuration {
                level: match registered.rule.default_level() {
                    Level::Error => "error",
                    Level::Warn => "warning",
                    Level::Off => "none",
                },
            },
        })
        .collect()
}

/// One finding, located relative to `base`, with a fingerprint that survives
/// unrelated lines moving.
fn result_of<'a>(
    report: &CheckReport,
    diagnostic: &'a Diagnostic,
    base: &std::path::Path,
) -> SarifResult<'a> {
    let (line, column, end_line, end_column) = region(report, diagnostic);
    let path = report.path_from(diagnostic, base);
    let artifact_location = artifact_location(&report.root.join(&diagnostic.path), base);
    let line_text = report
        .sources
        .get(&diagnostic.path)
        .filter(|source| line <= source.line_count() && line > 0)
        .map_or("", |source| source.line_text(line - 1).trim());
    let fingerprint =
        xxhash_rust::xxh3::xxh3_64(format!("{}\0{path}\0{line_text}", diagnostic.rule).as_bytes());
    SarifResult {
        rule_id: diagnostic.rule.name(),
        rule_index: RULES
            .iter()
            .position(|registered| registered.id == diagnostic.rule),
        level: match diagnostic.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        },
        message: Text {
            text: diagnostic.message_with_help(),
        },
        locations: vec![Location {
            physical_location: PhysicalLocation {
                artifact_location,
                region: Region {
                    start_line: line,
                    start_column: column,
                    end_line,
                    end_column,
                },
            },
        }],
        partial_fingerprints: Fingerprints {
            tether: format!("{fingerprint:016x}"),
        },
    }
}

/// A failure of the run as a tool execution notification, located where it names a
/// file and line.
fn notification_of(failure: &str, base: &std::path::Path) -> Notification {
    match crate::report::failure::failure_location(failure, base) {
        Some((path, line, column, message)) => Notification {
            level: "error",
            message: Text { text: message },
            locations: vec![NotificationLocation {
                physical_location: NotificationPlace {
                    artifact_location: artifact_location(&base.join(path), base),
                    region: StartRegion {
                        start_line: line,
                        start_column: column,
                    },
                },
            }],
        },
        None => Notification {
            level: "error",
            message: Text {
                text: failure.to_string(),
            },
            locations: Vec::new(),
        },
    }
}

/// Where a file is, for SARIF: relative to `%SRCROOT%` (the repository, or
/// `GITHUB_WORKSPACE`) when it is below it, else an absolute `file://` URI with no
/// base: a relative reference that climbs out of its base, or an absolute path
/// given a base, is what SARIF1004 rejects and code scanning cannot place.
fn artifact_location(absolute: &std::path::Path, base: &std::path::Path) -> ArtifactLocation {
    match absolute.strip_prefix(base) {
        Ok(relative) => ArtifactLocation {
            uri: percent_encoded(&crate::paths::slashed(relative)),
            uri_base_id: Some("%SRCROOT%"),
        },
        Err(_) => {
            let slashed = crate::paths::slashed(absolute);
            let rooted = if slashed.starts_with('/') { "" } else { "/" };
            ArtifactLocation {
                uri: format!("file://{rooted}{}", percent_encoded(&slashed)),
                uri_base_id: None,
            }
        }
    }
}

/// `detached-comment` as `DetachedComment`.
fn pascal_case(name: &str) -> String {
    name.split('-')
        .map(|word| {
            let mut chars = word.chars();
            chars.next().map_or(String::new(), |first| {
                first.to_ascii_uppercase().to_string() + chars.as_str()
            })
        })
        .collect()
}

/// A path as a URI path (RFC 3986): every byte but unreserved characters and `/`
/// percent-encoded, so a file named `a b#1%.yaml` or holding `?` stays one path.
fn percent_encoded(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for byte in path.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn rule_names_are_pascal_case() {
        assert_eq!(super::pascal_case("detached-comment"), "DetachedComment");
        assert_eq!(super::pascal_case("unused-value"), "UnusedValue");
    }

    #[test]
    fn a_file_outside_the_base_is_an_absolute_uri_without_a_base() {
        use std::path::Path;
        let inside = super::artifact_location(Path::new("/w/repo/a b.yaml"), Path::new("/w/repo"));
        assert_eq!(
            (inside.uri.as_str(), inside.uri_base_id),
            ("a%20b.yaml", Some("%SRCROOT%"))
        );
        let outside = super::artifact_location(Path::new("/tmp/x/a.yaml"), Path::new("/w/repo"));
        assert_eq!(
            (outside.uri.as_str(), outside.uri_base_id),
            ("file:///tmp/x/a.yaml", None)
        );
    }

    #[test]
    fn paths_are_percent_encoded() {
        assert_eq!(
            super::percent_encoded("charts/a b#1%?é.yaml"),
            "charts/a%20b%231%25%3F%C3%A9.yaml"
        );
    }
}
