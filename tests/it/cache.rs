//! A cached re-run asks no more of an unchanged chart than the hash of its files:
//! its templates are read, not lexed, its values not parsed, and what the run
//! says of the chart (read in part, every value read) comes from the cache with
//! the findings. A change to
//! the chart, or to a library it may call, makes it analysed again.

use std::path::Path;

fn write(root: &Path, relative: &str, text: &str) {
    let path = root.join(relative);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// One run of `check` with the cache: how many times this run lexed the templates
/// of each chart and parsed its values, its findings and what it says of the
/// charts.
fn run(root: &Path, label: &str) -> String {
    let charts = ["app", "web", "lib"];
    let work = || charts.map(|chart| helm_tether::internals::chart_work(&root.join(chart)));
    let before = work();
    let config = helm_tether::Config::load(&root.join("tether.toml")).unwrap();
    let options = helm_tether::CheckOptions::default().cache(true);
    let report = helm_tether::check_paths(config, &[root], &options).unwrap();
    let after = work();
    let mut out = format!(
        "### {label}\nfrom the cache: {} of {} files\n",
        report.cached, report.files
    );
    for ((chart, before), after) in charts.iter().zip(before).zip(after) {
        out.push_str(&format!(
            "{chart}: templates lexed {}×, values parsed {}×\n",
            after.scans - before.scans,
            after.values_parsed - before.values_parsed
        ));
    }
    for diagnostic in &report.diagnostics {
        let path = diagnostic
            .path
            .strip_prefix(root)
            .unwrap_or(&diagnostic.path);
        out.push_str(&format!(
            "{} {}: {}\n",
            path.display(),
            diagnostic.rule,
            diagnostic.message
        ));
    }
    for chart in report.partial_charts.iter().chain(&report.read_whole) {
        out.push_str(&format!(
            "note {}: {}\n",
            chart.chart.display(),
            chart.reasons.join("; ")
        ));
    }
    out
}

#[test]
fn a_cached_run_does_not_lex_an_unchanged_chart() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    write(&root, "tether.toml", "");
    write(
        &root,
        "lib/Chart.yaml",
        "apiVersion: v2\nname: lib\nversion: 1.0.0\ntype: library\n",
    );
    write(
        &root,
        "lib/templates/_helpers.tpl",
        "{{- define \"lib.name\" -}}\n{{ .Values.name }}\n{{- end -}}\n",
    );
    // `app` calls the library's define, reads a value it lacks, and leaves one
    // unread; `web` uses `.Values` whole (every value counts as read).
    write(
        &root,
        "app/Chart.yaml",
        "apiVersion: v2\nname: app\nversion: 1.0.0\ndependencies:\n  - name: lib\n    version: 1.0.0\n    repository: file://../lib\n",
    );
    write(
        &root,
        "app/values.yaml",
        "# The name.\nname: app\n# Unread.\nport: 80\n",
    );
    write(
        &root,
        "app/templates/cm.yaml",
        "data:\n  name: {{ include \"lib.name\" . }}\n  size: {{ .Values.size }}\n",
    );
    write(
        &root,
        "web/Chart.yaml",
        "apiVersion: v2\nname: web\nversion: 1.0.0\n",
    );
    write(&root, "web/values.yaml", "# The size.\nsize: 1\n");
    write(
        &root,
        "web/templates/cm.yaml",
        "data: {{ toYaml .Values | nindent 2 }}\n",
    );
    let mut out = run(&root, "first run");
    out.push_str(&run(&root, "unchanged"));
    // A define of the library changes: every chart that may call it is analysed
    // again (each searches the repository's libraries for a define it lacks),
    // and `app`'s value `port` is read now.
    write(
        &root,
        "lib/templates/_helpers.tpl",
        "{{- define \"lib.name\" -}}\n{{ .Values.name }}-{{ .Values.port }}\n{{- end -}}\n",
    );
    out.push_str(&run(&root, "the library changed"));
    out.push_str(&run(&root, "unchanged again"));
    crate::common::assert_snapshot("cache__a_cached_run_does_not_lex_an_unchanged_chart", &out);
}
