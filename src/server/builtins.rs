//! Hover on Helm's built-in objects in a template (`.Chart.Name`, `.Release.Namespace`,
//! `$.Capabilities.KubeVersion`, …): what each holds, as Helm's documentation says,
//! and for `.Chart` the value the chart's `Chart.yaml` gives it.

/// The built-in objects and fields Helm gives a template, with what they hold
/// (Helm's "Built-in Objects" page).
const FIELDS: &[(&str, &str)] = &[
    (
        "Release",
        "the release: its name, namespace, revision and how it is being installed",
    ),
    ("Release.Name", "the release name"),
    (
        "Release.Namespace",
        "the namespace the release is installed into",
    ),
    (
        "Release.IsUpgrade",
        "true when the current operation is an upgrade or rollback",
    ),
    (
        "Release.IsInstall",
        "true when the current operation is an install",
    ),
    (
        "Release.Revision",
        "the revision number of this release: 1 on install, one more on each upgrade and rollback",
    ),
    (
        "Release.Service",
        "the service rendering the template: always `Helm`",
    ),
    (
        "Chart",
        "the contents of `Chart.yaml`, its fields capitalised (`.Chart.Name`, `.Chart.Version`)",
    ),
    ("Capabilities", "what the Kubernetes cluster supports"),
    (
        "Capabilities.APIVersions",
        "the API versions the cluster serves (`.Capabilities.APIVersions.Has \"batch/v1\"`)",
    ),
    (
        "Capabilities.KubeVersion",
        "the Kubernetes version (`.Capabilities.KubeVersion.Version`, `.Major`, `.Minor`)",
    ),
    (
        "Capabilities.HelmVersion",
        "the Helm version (`.Capabilities.HelmVersion.Version`, `.GitCommit`, `.GoVersion`)",
    ),
    (
        "Files",
        "the chart's files that are not templates (`.Files.Get`, `.Files.Glob`, `.Files.Lines`, `.Files.AsConfig`, `.Files.AsSecrets`)",
    ),
    ("Template", "the template being rendered"),
    (
        "Template.Name",
        "the path of the template being rendered (`mychart/templates/mytemplate.yaml`)",
    ),
    (
        "Template.BasePath",
        "the path of the chart's templates folder (`mychart/templates`)",
    ),
    (
        "Subcharts",
        "the scope (`.Values`, `.Chart`, …) of each subchart, by name",
    ),
];

/// The fields of `.Chart`: `Chart.yaml`'s fields, capitalised as Helm's chart
/// metadata spells them.
const CHART_FIELDS: &[&str] = &[
    "Name",
    "Version",
    "AppVersion",
    "Description",
    "Type",
    "KubeVersion",
    "APIVersion",
    "Home",
    "Icon",
    "Sources",
    "Keywords",
    "Maintainers",
    "Dependencies",
    "Annotations",
    "Condition",
    "Tags",
    "Deprecated",
];

/// The fields of the built-in objects' fields, which completion offers.
const SUBFIELDS: &[(&str, &[&str])] = &[
    (
        "Capabilities.KubeVersion",
        &["Version", "Major", "Minor", "GitVersion"],
    ),
    (
        "Capabilities.HelmVersion",
        &["Version", "GitCommit", "GitTreeState", "GoVersion"],
    ),
    ("Capabilities.APIVersions", &["Has"]),
    (
        "Files",
        &["Get", "GetBytes", "Glob", "Lines", "AsConfig", "AsSecrets"],
    ),
];

/// What completion offers after `.` and the built-in object path `object`
/// (`[]` for the top, `["Chart"]`, `["Capabilities", "KubeVersion"]`): each name and
/// the object path it completes to (`Chart.Name`).
pub(super) fn fields_of(object: &[String]) -> Vec<(String, String)> {
    let joined = object.join(".");
    let mut out: Vec<(String, String)> = Vec::new();
    let mut push = |name: &str| {
        let path = if joined.is_empty() {
            name.to_string()
        } else {
            format!("{joined}.{name}")
        };
        if !out.iter().any(|(seen, _)| seen == name) {
            out.push((name.to_string(), path));
        }
    };
    if joined.is_empty() {
        push("Values");
    }
    if joined == "Chart" {
        CHART_FIELDS.iter().for_each(|field| push(field));
    }
    for (name, _) in FIELDS {
        let parent = name.rsplit_once('.').map_or("", |(parent, _)| parent);
        if parent == joined {
            push(name.rsplit('.').next().unwrap_or(name));
        }
    }
    for (parent, fields) in SUBFIELDS {
        if *parent == joined {
            fields.iter().for_each(|field| push(field));
        }
    }
    out
}

/// The `Chart.yaml` field a `.Chart` field stands for: its first letter in lower case
/// (`AppVersion` is `appVersion`).
pub(super) fn chart_key(field: &str) -> String {
    let mut chars = field.chars();
    chars
        .next()
        .map(|first| first.to_ascii_lowercase().to_string() + chars.as_str())
        .unwrap_or_default()
}

/// The built-in object path (`Release.Namespace`, `Chart.AppVersion`) whose spelling
/// holds byte `at` of a template action's `body`: `.Release.Namespace`,
/// `$.Release.Namespace`.
pub(super) fn builtin_in(body: &str, at: usize) -> Option<String> {
    let at = at.min(body.len());
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '$';
    let start = body
        .get(..at)?
        .rfind(|c: char| !word(c))
        .map_or(0, |found| found + 1);
    let end = body
        .get(at..)?
        .find(|c: char| !word(c))
        .map_or(body.len(), |found| at + found);
    let spelled = body.get(start..end)?;
    let path = spelled
        .strip_prefix("$.")
        .or_else(|| spelled.strip_prefix('.'))?;
    let mut parts = path.split('.');
    let object = parts.next()?;
    let field = parts.next();
    let known = match field {
        Some(field) => format!("{object}.{field}"),
        None => object.to_string(),
    };
    (object == "Chart" || FIELDS.iter().any(|(name, _)| *name == known)).then_some(known)
}

/// The hover of the built-in `path` in a template of the chart whose `Chart.yaml`
/// text is `chart_yaml` (when known).
pub(super) fn hover(path: &str, chart_yaml: Option<&str>) -> String {
    if path == "Values" {
        return "`.Values`: the chart's values: its `values.yaml`, under what its parent charts and the user set".into();
    }
    let described = FIELDS
        .iter()
        .find(|(name, _)| *name == path)
        .map(|(_, what)| *what);
    if let Some(field) = path.strip_prefix("Chart.") {
        let key = chart_key(field);
        let line = chart_yaml.and_then(|text| {
            text.lines().find(|line| {
                line.strip_prefix(key.as_str())
                    .is_some_and(|rest| rest.trim_start().starts_with(':'))
            })
        });
        return match line {
            Some(line) => format!(
                "`.{path}`: `{key}` in the chart's Chart.yaml\n\n```yaml\n{}\n```",
                line.trim_end()
            ),
            None => format!("`.{path}`: `{key}` in the chart's Chart.yaml, which does not set it"),
        };
    }
    format!("`.{path}`: {}", described.unwrap_or("a built-in object"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtins_are_found_under_the_cursor_and_described() {
        let body = " $.Chart.AppVersion | quote ";
        assert_eq!(builtin_in(body, 5).as_deref(), Some("Chart.AppVersion"));
        assert_eq!(
            builtin_in(" .Release.Namespace ", 3).as_deref(),
            Some("Release.Namespace")
        );
        assert_eq!(builtin_in(" .Values.a ", 3), None);
        assert_eq!(builtin_in(" Release.Name ", 3), None);
        assert_eq!(
            hover("Chart.AppVersion", Some("name: app\nappVersion: \"1.2\"\n")),
            "`.Chart.AppVersion`: `appVersion` in the chart's Chart.yaml\n\n```yaml\nappVersion: \"1.2\"\n```"
        );
        assert_eq!(
            hover("Release.Namespace", None),
            "`.Release.Namespace`: the namespace the release is installed into"
        );
    }
}
