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

/// A repository with `toml` as its `tether.toml` and a chart `app` of no
/// dependency, its `values.yaml` being `values`.
fn app_repository(toml: &str, values: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    write(&root, "tether.toml", toml);
    write(
        &root,
        "app/Chart.yaml",
        "apiVersion: v2\nname: app\nversion: 1.0.0\n",
    );
    write(&root, "app/values.yaml", values);
    (dir, root)
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

/// One run of `check` over `paths`: its findings and what it says of the charts,
/// and, with the cache, the files it opened more than once.
fn outcome(root: &Path, paths: &[&Path], cache: bool) -> (String, String) {
    let watch = helm_tether::internals::opens::watch(root);
    let config = helm_tether::Config::load(&root.join("tether.toml")).unwrap();
    let options = helm_tether::CheckOptions::default().cache(cache);
    let report = helm_tether::check_paths(config, paths, &options).unwrap();
    let mut opened: std::collections::BTreeMap<String, usize> = Default::default();
    for path in watch.opened() {
        let shown = path.strip_prefix(root).unwrap().display().to_string();
        *opened.entry(shown.replace('\\', "/")).or_default() += 1;
    }
    drop(watch);
    let mut out = String::new();
    for diagnostic in &report.diagnostics {
        let path = diagnostic
            .path
            .strip_prefix(root)
            .unwrap_or(&diagnostic.path);
        let path = path.display().to_string().replace('\\', "/");
        out.push_str(&format!(
            "{path} {}: {}\n",
            diagnostic.rule, diagnostic.message
        ));
    }
    for (kind, charts) in [
        ("partial", &report.partial_charts),
        ("whole", &report.read_whole),
    ] {
        for chart in charts {
            let reasons = chart.reasons.join("; ");
            out.push_str(&format!("{kind} {}: {reasons}\n", chart.chart.display()));
        }
    }
    let twice: Vec<String> = opened
        .into_iter()
        .filter(|(_, times)| *times > 1)
        .map(|(path, times)| format!("{times} {path}"))
        .collect();
    (out, twice.join(", "))
}

/// After each change, a cached run says what a run without the cache says, and
/// opens no file twice (but a template that is not UTF-8: the chart does not keep
/// bytes it cannot read as text, and the check reads them as they are): a
/// template tether cannot read goes, a link under `charts/` comes, a library
/// nearer a vendored subchart than its top chart changes, and a run over part of
/// a chart comes before one over all of it.
#[test]
fn a_cached_run_says_what_a_fresh_run_says() {
    // Vendored charts checked too: the subchart's own library is nearer it.
    let (_dir, root) = app_repository(
        "default-exclude = false\n",
        "# The name.\nname: app\n# Unread.\nport: 80\n",
    );
    write(
        &root,
        "app/templates/a.yaml",
        "data:\n  size: {{ .Values.size }}\n  n: {{ include \"sib.name\" . }}\n",
    );
    write(
        &root,
        "app/templates/b.yaml",
        "data:\n  name: {{ .Values.name }}\n",
    );
    std::fs::write(
        root.join("app/templates/bin.yaml"),
        b"data: \xff\xfe {{ .Values.port }}\n",
    )
    .unwrap();
    write(
        &root,
        "sib/Chart.yaml",
        "apiVersion: v2\nname: sib\nversion: 1.0.0\n",
    );
    write(
        &root,
        "sib/templates/_h.tpl",
        "{{- define \"sib.name\" -}}x{{- end -}}\n",
    );
    let library = |folder: &str, body: &str| {
        write(
            &root,
            &format!("{folder}/Chart.yaml"),
            "apiVersion: v2\nname: common\nversion: 1.0.0\ntype: library\n",
        );
        write(
            &root,
            &format!("{folder}/templates/_h.tpl"),
            &format!("{{{{- define \"common.x\" -}}}}{body}{{{{- end -}}}}\n"),
        );
    };
    write(
        &root,
        "top/Chart.yaml",
        "apiVersion: v2\nname: top\nversion: 1.0.0\n",
    );
    write(&root, "top/templates/cm.yaml", "data: {}\n");
    library("top/a/common", "a");
    write(
        &root,
        "top/charts/sub/Chart.yaml",
        "apiVersion: v2\nname: sub\nversion: 1.0.0\n",
    );
    write(
        &root,
        "top/charts/sub/values.yaml",
        "# The name.\nname: x\n# Port.\nport: 1\n",
    );
    write(
        &root,
        "top/charts/sub/templates/cm.yaml",
        "data:\n  x: {{ include \"common.x\" . }}\n  n: {{ .Values.name }}\n",
    );
    library("top/charts/sub/x/common", "b");
    let mut out = String::new();
    let mut step = |label: &str, paths: &[&Path]| {
        let (cached, twice) = outcome(&root, paths, true);
        let (fresh, _) = outcome(&root, paths, false);
        assert_eq!(cached, fresh, "{label}: the cached run says otherwise");
        out.push_str(&format!("### {label}\n{cached}opened twice: [{twice}]\n"));
    };
    step("first run", &[&root]);
    step("unchanged", &[&root]);
    std::fs::remove_file(root.join("app/templates/bin.yaml")).unwrap();
    step("the template tether cannot read is gone", &[&root]);
    #[cfg(unix)]
    {
        std::fs::create_dir_all(root.join("app/charts")).unwrap();
        std::os::unix::fs::symlink(root.join("sib"), root.join("app/charts/sib")).unwrap();
        step("a link under app/charts/", &[&root]);
    }
    library("top/charts/sub/x/common", "{{ .Values.port }}");
    step("the subchart's own library reads `port`", &[&root]);
    write(
        &root,
        "app/templates/b.yaml",
        "data:\n  name: {{ .Values.name }}\n\n",
    );
    step(
        "a template alone, changed",
        &[&root.join("app/templates/b.yaml")],
    );
    step("then its whole chart", &[&root.join("app")]);
    crate::common::assert_snapshot("cache__a_cached_run_says_what_a_fresh_run_says", &out);
}

/// The cache may come from a stranger: a chart note edited in it (to say every
/// value is read, which silences `unused-value`) fails its checksum, and the run
/// says what a run without the cache says.
#[test]
fn an_edited_chart_note_is_not_trusted() {
    let (_dir, root) = app_repository("", "# Unread.\nport: 80\n");
    write(&root, "app/templates/cm.yaml", "data: {}\n");
    let (first, _) = outcome(&root, &[&root], true);
    let cache = root.join(".tether_cache/check.json");
    let stored = std::fs::read_to_string(&cache).unwrap();
    assert!(stored.contains("\"charts\""), "{stored}");
    // The stored note for `app` (none) replaced by one that says every value is
    // read; the file entries left as they were.
    let forged = stored.replace(
        "\"whole\":[]",
        "\"whole\":[\"every value counts as read, so unused-value has nothing to report: forged\"]",
    );
    assert_ne!(forged, stored);
    std::fs::write(&cache, forged).unwrap();
    let (after, _) = outcome(&root, &[&root], true);
    let (fresh, _) = outcome(&root, &[&root], false);
    assert_eq!(after, fresh);
    crate::common::assert_snapshot(
        "cache__an_edited_chart_note_is_not_trusted",
        &format!("### first run\n{first}### after the edit\n{after}"),
    );
}
