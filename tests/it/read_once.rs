//! A check reads each file once: the chart graph reads a chart's `Chart.yaml`,
//! `values.yaml`, templates and the files its templates render through `.Files`,
//! the repository's listing reads every `Chart.yaml` for pins and names, and the
//! check of each of those files takes the text already read (a vendored chart's
//! `Chart.yaml`, which its parent reads for its name, too; a chart another tree
//! depends on, checked after it; a vendored library every chart reads); a chart's
//! `.helmignore`, which says of each file the chart may embed whether it is
//! packaged, is read once for all of them. Opens are counted under the test's own
//! folder, so the tests running beside it do not count.

use std::collections::BTreeMap;

#[test]
fn a_check_opens_each_file_once() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let write = |path: &str, text: &str| {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        "charts/lib/Chart.yaml",
        "apiVersion: v2\nname: lib\nversion: 1.0.0\ntype: library\n",
    );
    write(
        "charts/lib/templates/_helpers.tpl",
        "{{- define \"lib.name\" -}}\n{{ .Values.name }}\n{{- end -}}\n",
    );
    write(
        "charts/app/Chart.yaml",
        "apiVersion: v2\nname: app\nversion: 1.0.0\ndependencies:\n  - name: lib\n    version: 1.0.0\n    repository: file://../lib\n",
    );
    write(
        "charts/app/values.yaml",
        "# The name.\nname: app\n# The port.\nport: 80\n",
    );
    write(
        "charts/app/templates/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\ndata:\n  name: {{ include \"lib.name\" . }}\n  conf: {{ .Files.Get \"files/conf.yaml\" | quote }}\n",
    );
    write("charts/app/files/conf.yaml", "port: {{ .Values.port }}\n");
    // Two files the chart may embed: its `.helmignore` says whether it does, read
    // once for both.
    write("charts/app/files/extra.yaml", "extra: true\n");
    write("charts/app/.helmignore", "*.md\n");
    // A vendored subchart: its folder's name is read from its `Chart.yaml`.
    write(
        "charts/app/charts/sub/Chart.yaml",
        "apiVersion: v2\nname: sub\nversion: 0.1.0\n",
    );
    write(
        "charts/app/charts/sub/values.yaml",
        "# Sub's size.\nsize: 1\n",
    );
    write("ci/lint.yaml", "# Not a chart's.\nenabled: true\n");
    // A chart of a `Chart.yaml` alone, which no chart of the run reads for its
    // values: the check takes the text the repository's listing read.
    write(
        "charts/bare/Chart.yaml",
        "apiVersion: v2\nname: bare\nversion: 0.0.0\n",
    );
    // A chart another chart of the repository depends on by name, in a tree of
    // its own checked first in path order: it is checked after `web`, which reads
    // it as a dependency, not let go and read again for it.
    write(
        "charts/base/Chart.yaml",
        "apiVersion: v2\nname: base\nversion: 1.0.0\n",
    );
    write("charts/base/values.yaml", "# The size.\nsize: 1\n");
    write(
        "charts/base/templates/cm.yaml",
        "data:\n  size: {{ .Values.size }}\n",
    );
    write(
        "charts/web/Chart.yaml",
        "apiVersion: v2\nname: web\nversion: 1.0.0\ndependencies:\n  - name: base\n    version: 1.0.0\n    repository: https://charts.example.com\n",
    );
    write("charts/web/templates/cm.yaml", "data: {}\n");
    // A library vendored under a chart checked last: every chart before it reads
    // it as one of the repository's libraries, and its parent then knows its
    // name from that read, not from its `Chart.yaml` read again.
    write(
        "charts/zed/Chart.yaml",
        "apiVersion: v2\nname: zed\nversion: 1.0.0\ndependencies:\n  - name: zlib\n    version: 1.0.0\n",
    );
    write(
        "charts/zed/charts/zlib/Chart.yaml",
        "apiVersion: v2\nname: zlib\nversion: 1.0.0\ntype: library\n",
    );
    write(
        "charts/zed/charts/zlib/templates/_helpers.tpl",
        "{{- define \"zlib.name\" -}}\nzed\n{{- end -}}\n",
    );
    write(
        "charts/zed/templates/cm.yaml",
        "metadata:\n  name: {{ include \"zlib.name\" . }}\n",
    );
    let config = helm_tether::Config::default_for(root.clone());
    let watch = helm_tether::internals::opens::watch(&root);
    let report = helm_tether::check_paths(
        config,
        &[&root],
        &helm_tether::CheckOptions::default().cache(false),
    )
    .unwrap();
    let mut opened: BTreeMap<String, usize> = BTreeMap::new();
    for path in watch.opened() {
        let shown = path.strip_prefix(&root).unwrap().display().to_string();
        *opened.entry(shown.replace('\\', "/")).or_default() += 1;
    }
    drop(watch);
    let shown: String = opened
        .iter()
        .map(|(path, times)| format!("{times} {path}\n"))
        .collect();
    let checked = format!(
        "{} files checked; opens under the folder:\n{shown}",
        report.files
    );
    crate::common::assert_snapshot("read_once__a_check_opens_each_file_once", &checked);
}

/// A check lexes each template once: the chart's scan lexes it where it waits for
/// its check, which masks it from that lexing; so too a library's template, scanned
/// for the chart that includes it, and a file a template renders with `tpl`
/// through `.Files`. Each text here is unique to this test, and only the texts a
/// test watches are counted, so the tests running beside it do not count.
/// Checks the folder at `root` as `check --no-cache` does.
fn check_uncached(root: &std::path::Path) -> helm_tether::CheckReport {
    let config = helm_tether::Config::default_for(root.to_path_buf());
    helm_tether::check_paths(
        config,
        &[root],
        &helm_tether::CheckOptions::default().cache(false),
    )
    .unwrap()
}

#[test]
fn a_check_lexes_each_template_once() {
    let files = [
        (
            "lib/Chart.yaml",
            "apiVersion: v2\nname: lexlib\nversion: 1.0.0\ntype: library\n",
        ),
        (
            "lib/templates/_helpers.tpl",
            "{{/* lexed once: lib */}}\n{{- define \"lexlib.name\" -}}\n{{ .Values.name }}\n{{- end -}}\n",
        ),
        (
            "app/Chart.yaml",
            "apiVersion: v2\nname: lexapp\nversion: 1.0.0\ndependencies:\n  - name: lexlib\n    version: 1.0.0\n    repository: file://../lib\n",
        ),
        (
            "app/values.yaml",
            "# The name.\nname: app\n# The port.\nport: 80\n",
        ),
        (
            "app/templates/cm.yaml",
            "# lexed once: cm\napiVersion: v1\nkind: ConfigMap\ndata:\n  name: {{ include \"lexlib.name\" . }}\n  conf: {{ tpl (.Files.Get \"files/conf.yaml\") . | quote }}\n",
        ),
        (
            "app/templates/_names.tpl",
            "{{/* lexed once: names */}}\n{{- define \"lexapp.port\" -}}\n{{ .Values.port }}\n{{- end -}}\n",
        ),
        (
            "app/files/conf.yaml",
            "# lexed once: conf\n{{- if .Values.port }}\nport: {{ .Values.port }}\n{{- end }}\n",
        ),
    ];
    let dir = crate::common::tree(&files);
    let root = dir.path().canonicalize().unwrap();
    let templates: Vec<(&str, &str)> = files
        .iter()
        .copied()
        .filter(|(_, text)| text.contains("{{"))
        .collect();
    let watch = helm_tether::internals::lexes::watch(templates.iter().map(|(_, text)| *text));
    let report = check_uncached(&root);
    let lexed: String = templates
        .iter()
        .map(|(path, text)| format!("{path}: lexed {}×\n", watch.of(text)))
        .collect();
    drop(watch);
    let shown = format!("{} files checked\n{lexed}", report.files);
    crate::common::assert_snapshot("read_once__a_check_lexes_each_template_once", &shown);
}

/// A template whose bytes reading changes (a lone carriage return, read as a line
/// break) is lexed again from the text the check reads, not masked from the scan's
/// lexing of the bytes: inside a chart it gets the findings it gets outside one.
/// Here the return ends a character constant early, so the action is not closed.
#[test]
fn a_template_read_as_other_text_is_lexed_again() {
    let template = "x: {{ printf \"%c\" '\r' }}\ny: 1\n";
    let dir = crate::common::tree(&[
        (
            "app/Chart.yaml",
            "apiVersion: v2\nname: app\nversion: 1.0.0\n",
        ),
        ("app/templates/a.yaml", template),
        ("loose/templates/a.yaml", template),
    ]);
    let root = dir.path().canonicalize().unwrap();
    let report = check_uncached(&root);
    let findings = |folder: &str| -> Vec<String> {
        report
            .diagnostics
            .iter()
            .filter(|diagnostic| diagnostic.path.starts_with(folder))
            .map(|diagnostic| format!("{}: {}", diagnostic.rule, diagnostic.message))
            .collect()
    };
    assert_eq!(findings("app"), findings("loose"));
    crate::common::assert_snapshot(
        "read_once__a_template_read_as_other_text_is_lexed_again",
        &findings("app").join("\n"),
    );
}

/// The chart graph takes a `Chart.yaml`'s manifest from the repository's listing,
/// which parsed it for the pins: a Helm 2 chart's dependencies still come from its
/// `requirements.yaml` when its `Chart.yaml` lists none, so the `condition:` there
/// reads `sub.enabled`: only `unread` is unused.
#[test]
fn a_listed_chart_yaml_keeps_its_requirements() {
    let dir = crate::common::tree(&[
        (
            "app/Chart.yaml",
            "apiVersion: v1\nname: app\nversion: 1.0.0\n",
        ),
        (
            "app/requirements.yaml",
            "dependencies:\n  - name: sub\n    version: 1.0.0\n    condition: sub.enabled\n",
        ),
        (
            "app/values.yaml",
            "# The sub chart.\nsub:\n  # Whether it renders.\n  enabled: true\n# Read by nothing.\nunread: 1\n",
        ),
        ("app/templates/cm.yaml", "data: {}\n"),
        (
            "app/charts/sub/Chart.yaml",
            "apiVersion: v1\nname: sub\nversion: 1.0.0\n",
        ),
        ("app/charts/sub/values.yaml", "# Its port.\nport: 1\n"),
        (
            "app/charts/sub/templates/cm.yaml",
            "port: {{ .Values.port }}\n",
        ),
    ]);
    let root = dir.path().canonicalize().unwrap();
    let report = check_uncached(&root);
    let unused: Vec<String> = report
        .diagnostics
        .iter()
        .filter(|diagnostic| diagnostic.rule == "unused-value")
        .map(|diagnostic| format!("{}: {}", diagnostic.path.display(), diagnostic.message))
        .collect();
    crate::common::assert_snapshot(
        "read_once__a_listed_chart_yaml_keeps_its_requirements",
        &unused.join("\n"),
    );
}
