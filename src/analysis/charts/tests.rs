//! Tests of the chart graph: dependency cycles, hostile dependencies, the
//! limits on templates and values, `chart-paths`.

use super::*;

fn write(root: &Path, relative: &str, text: &str) {
    let path = root.join(relative);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn scope(top: &Path) -> Scope {
    Scope {
        top: Some(top.to_path_buf()),
        chart_paths: Vec::new(),
    }
}

/// Two charts that depend on each other and call each other's defines: the
/// analysis of either ends (no chart waits on itself), and follows both ways.
#[test]
fn a_dependency_cycle_ends() {
    let folder = tempfile::tempdir().unwrap();
    let top = folder.path().canonicalize().unwrap();
    write(
        &top,
        "a/Chart.yaml",
        "apiVersion: v2\nname: a\nversion: 1.0.0\ndependencies:\n  - name: b\n    repository: file://../b\n",
    );
    write(&top, "a/values.yaml", "fromB: 1\nunread: 2\n");
    write(
        &top,
        "a/templates/x.yaml",
        "{{ include \"b.x\" . }}\n{{ define \"a.y\" }}{{ .Values.nothing }}{{ end }}\n",
    );
    write(
        &top,
        "b/Chart.yaml",
        "apiVersion: v2\nname: b\nversion: 1.0.0\ndependencies:\n  - name: a\n    repository: file://../a\n",
    );
    write(&top, "b/values.yaml", "fromA: 1\n");
    write(
        &top,
        "b/templates/x.yaml",
        "{{ define \"b.x\" }}{{ .Values.fromB }}{{ include \"a.y\" . }}{{ end }}\n",
    );
    let (sender, receiver) = std::sync::mpsc::channel();
    let roots = [top.join("a"), top.join("b")];
    let scope = scope(&top);
    std::thread::spawn(move || {
        let charts = Arc::new(Charts::default());
        let unused: Vec<Vec<String>> = roots
            .iter()
            .map(|root| {
                let chart = charts.chart(root, &scope).unwrap();
                chart
                    .unused()
                    .into_iter()
                    .map(|(path, _)| path.join("."))
                    .collect()
            })
            .collect();
        sender.send(unused).unwrap();
    });
    let unused = receiver
        .recv_timeout(std::time::Duration::from_secs(20))
        .expect("the analysis of a dependency cycle ends");
    assert_eq!(unused[0], ["unread"]);
}

/// A stranger's chart names folders outside the repository (`file://`), links
/// and a FIFO under `charts/`: none is read, the dependency is missing, and the
/// chart says so instead of reporting what it cannot know.
#[cfg(unix)]
#[test]
fn hostile_dependencies_are_not_read() {
    let folder = tempfile::tempdir().unwrap();
    let base = folder.path().canonicalize().unwrap();
    let top = base.join("repo");
    std::fs::create_dir_all(top.join(".git")).unwrap();
    write(
        &base,
        "outside/Chart.yaml",
        "apiVersion: v2\nname: lib\nversion: 1.0.0\ntype: library\n",
    );
    write(
        &base,
        "outside/templates/_l.tpl",
        "{{ define \"lib.all\" }}{{ .Values.a }}{{ end }}",
    );
    let chart_yaml = "apiVersion: v2\nname: app\nversion: 1.0.0\ndependencies:\n  - name: lib\n    version: 1.0.0\n    repository: file://../../outside\n  - name: linked\n  - name: piped\n";
    write(&top, "app/Chart.yaml", chart_yaml);
    write(&top, "app/values.yaml", "a: 1\nb: 2\n");
    write(
        &top,
        "app/templates/x.yaml",
        "{{ include \"lib.all\" . }}\n",
    );
    std::fs::create_dir_all(top.join("app/charts")).unwrap();
    std::os::unix::fs::symlink(base.join("outside"), top.join("app/charts/linked")).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(top.join("app/charts/piped-1.0.0.tgz"))
        .status()
        .unwrap();
    assert!(made.success());
    let charts = Arc::new(Charts::default());
    let chart = charts.chart(&top.join("app"), &scope(&top)).unwrap();
    let sources: Vec<&DependencySource> = chart.dependencies.iter().map(|r| &r.source).collect();
    assert!(
        matches!(sources[0], DependencySource::Missing(why) if why.contains("outside the repository")),
        "{sources:?}"
    );
    assert!(
        matches!(sources[1], DependencySource::Missing(_)),
        "{sources:?}"
    );
    // The FIFO is named from the folder's listing, never opened.
    assert!(
        matches!(sources[2], DependencySource::Unread(why) if why.contains("piped-1.0.0.tgz is not read: it is a FIFO")),
        "{sources:?}"
    );
    assert!(chart.unused().is_empty());
    let reasons = chart.partial().join("\n");
    assert!(
        reasons.contains("`lib.all`") && reasons.contains("outside the repository"),
        "{reasons}"
    );
}

/// A CRD template of a megabyte and more is read for its values like any
/// other (`{{- if .Values.crds.create }}` on its first line is a read); one past
/// the limit makes the chart's reads unknown, and the chart says why.
#[test]
fn large_templates_are_read_and_too_large_ones_said() {
    let folder = tempfile::tempdir().unwrap();
    let top = folder.path().canonicalize().unwrap();
    let body = "# a line of a CRD\n".repeat(70_000);
    for (name, size) in [("large", body.len()), ("huge", MAX_FILE_BYTES as usize + 1)] {
        write(
            &top,
            &format!("{name}/Chart.yaml"),
            &format!("apiVersion: v2\nname: {name}\nversion: 1.0.0\n"),
        );
        write(
            &top,
            &format!("{name}/values.yaml"),
            "crds:\n  create: true\nunread: 1\n",
        );
        let mut text = String::from("{{- if .Values.crds.create }}\n");
        while text.len() < size {
            text.push_str(&body);
        }
        text.push_str("{{- end }}\n");
        write(&top, &format!("{name}/templates/crds.yaml"), &text);
    }
    assert!(body.len() > 1024 * 1024);
    let charts = Arc::new(Charts::default());
    let large = charts.chart(&top.join("large"), &scope(&top)).unwrap();
    let unused: Vec<String> = large
        .unused()
        .into_iter()
        .map(|(path, _)| path.join("."))
        .collect();
    assert_eq!(unused, ["unread"]);
    let huge = charts.chart(&top.join("huge"), &scope(&top)).unwrap();
    assert!(huge.unused().is_empty());
    let reasons = huge.partial().join("\n");
    assert!(
        reasons
            .contains("templates/crds.yaml is larger than 16384 KiB, which tether does not read"),
        "{reasons}"
    );
}

/// A library in a folder the search of the repository leaves out (git ignores
/// it: CI checks it out there) is found through `chart-paths`, and only there:
/// without it the chart is partial.
#[test]
fn chart_paths_make_a_library_visible() {
    let folder = tempfile::tempdir().unwrap();
    let base = folder.path().canonicalize().unwrap().join("repo");
    write(&base, ".gitignore", "vendor/\n");
    write(
        &base,
        "vendor/common/Chart.yaml",
        "apiVersion: v2\nname: common\nversion: 4.5.2\ntype: library\n",
    );
    write(
        &base,
        "vendor/common/templates/_all.tpl",
        "{{ define \"common.all\" }}{{ .Values.image }}{{ end }}",
    );
    write(
        &base,
        "app/Chart.yaml",
        "apiVersion: v2\nname: app\nversion: 1.0.0\ndependencies:\n  - name: common\n    version: 4.5.2\n    repository: https://charts.example.invalid\n",
    );
    write(&base, "app/values.yaml", "image: x\nstray: 1\n");
    write(
        &base,
        "app/templates/all.yaml",
        "{{ include \"common.all\" . }}",
    );
    let unused = |scope: Scope| {
        let charts = Arc::new(Charts::default());
        let chart = charts.chart(&base.join("app"), &scope).unwrap();
        let unused: Vec<String> = chart
            .unused()
            .into_iter()
            .map(|(path, _)| path.join("."))
            .collect();
        (unused, chart.partial().is_empty())
    };
    let alone = scope(&base);
    assert_eq!(unused(alone.clone()), (Vec::new(), false));
    let with_paths = Scope {
        chart_paths: vec![base.join("vendor")],
        ..alone
    };
    assert_eq!(unused(with_paths), (vec!["stray".to_string()], true));
}

/// A values file tether cannot read is said, never taken as "nothing set".
#[test]
fn unreadable_values_are_reported() {
    let folder = tempfile::tempdir().unwrap();
    let top = folder.path().canonicalize().unwrap();
    write(
        &top,
        "c/Chart.yaml",
        "apiVersion: v2\nname: c\nversion: 1.0.0\n",
    );
    write(&top, "c/values.yaml", "a: [1,\n");
    write(&top, "c/templates/x.yaml", "{{ .Values.b }}\n");
    let charts = Arc::new(Charts::default());
    let chart = charts.chart(&top.join("c"), &scope(&top)).unwrap();
    assert!(chart.unused().is_empty());
    assert_eq!(chart.undefined(&["b".to_string()], &[]), None);
    let reasons = chart.partial().join("\n");
    assert!(
        reasons.contains("values.yaml is not read past line"),
        "{reasons}"
    );
}

/// A folder with the chart `app`: values `a`, `b` and `c`, each read by a template
/// of its name. The folder goes when the first value is dropped.
fn three_reads_chart() -> (tempfile::TempDir, PathBuf) {
    let folder = tempfile::tempdir().unwrap();
    let top = folder.path().canonicalize().unwrap();
    write(
        &top,
        "app/Chart.yaml",
        "apiVersion: v2\nname: app\nversion: 1.0.0\n",
    );
    write(&top, "app/values.yaml", "a: 1\nb: 2\nc: 3\n");
    for name in ["a", "b", "c"] {
        write(
            &top,
            &format!("app/templates/{name}.yaml"),
            &format!("{name}: {{{{ .Values.{name} }}}}\n"),
        );
    }
    (folder, top)
}

/// The unused values of `app` under `top` as a new generation of an editor's charts
/// (with `overlay`, sharing `memo`) finds them.
fn unused_in_a_new_generation(
    top: &Path,
    overlay: UnsavedTexts,
    memo: &Arc<ReadsMemo>,
) -> Vec<String> {
    let charts = Arc::new(Charts::with_overlay(Arc::new(overlay), memo.clone()));
    let chart = charts.chart(&top.join("app"), &scope(top)).unwrap();
    chart
        .unused()
        .into_iter()
        .map(|(path, _)| path.join("."))
        .collect()
}

/// The charts of an editor's successive changes share a memo: a template or a
/// values file whose bytes did not change is taken from it, not read again; a
/// changed one is read.
#[test]
fn unchanged_templates_are_not_read_again_across_changes() {
    let (_folder, top) = three_reads_chart();
    let memo = Arc::new(ReadsMemo::default());
    let unused = |overlay: UnsavedTexts| unused_in_a_new_generation(&top, overlay, &memo);
    let taken = || {
        (
            memo.files.taken.load(std::sync::atomic::Ordering::Relaxed),
            memo.values.taken.load(std::sync::atomic::Ordering::Relaxed),
        )
    };
    assert!(unused(UnsavedTexts::default()).is_empty());
    assert_eq!(taken(), (0, 0));
    // A change of one template: the two others and the values are taken, the
    // changed one read.
    let mut overlay = UnsavedTexts::default();
    overlay.insert(top.join("app/templates/c.yaml"), Arc::from("c: 1\n"));
    assert_eq!(unused(overlay.clone()), ["c"]);
    assert_eq!(taken(), (2, 1));
    assert_eq!(unused(overlay.clone()), ["c"]);
    assert_eq!(taken(), (5, 2));
    // A change of the values: they are parsed again.
    overlay.insert(top.join("app/values.yaml"), Arc::from("a: 1\nb: 2\n"));
    assert!(unused(overlay).is_empty());
    assert_eq!(taken(), (8, 2));
}

/// An editor's next change reads no template on disk whose stamp (inode, size and
/// times) stayed the same; one written since is read again, whatever the memo
/// holds for it. (Stamps are kept where metadata tells: Unix.)
#[cfg(unix)]
#[test]
fn templates_on_disk_with_the_same_stamp_are_not_read_again() {
    let (_folder, top) = three_reads_chart();
    let memo = Arc::new(ReadsMemo::trusting_new_files());
    let unused = || unused_in_a_new_generation(&top, UnsavedTexts::default(), &memo);
    let unread = || memo.stamps.taken.load(std::sync::atomic::Ordering::Relaxed);
    assert!(unused().is_empty());
    assert_eq!(unread(), 0);
    assert!(unused().is_empty());
    assert_eq!(unread(), 3, "no template is read again");
    // Written since: read again, and what it reads now counts.
    write(&top, "app/templates/b.yaml", "b: {{ .Values.a }}\n");
    assert_eq!(unused(), ["b"]);
    assert_eq!(unread(), 5, "the two others are not read");
    // Rewritten in place with as many bytes: its times tell.
    write(&top, "app/templates/c.yaml", "c: {{ .Values.a }}\n");
    assert_eq!(unused(), ["b", "c"]);
    assert_eq!(unread(), 7, "the two others are not read");
    // `a.yaml` replaced by a link to a file outside the repository that reads `b`:
    // the file it replaced is gone, and a chart's listing follows no link, so
    // nothing outside is read and `b` stays unused. The two others are taken by
    // their stamps.
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("a.yaml"), "x: {{ .Values.b }}\n").unwrap();
    std::fs::remove_file(top.join("app/templates/a.yaml")).unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("a.yaml"),
        top.join("app/templates/a.yaml"),
    )
    .unwrap();
    assert_eq!(unused(), ["b", "c"]);
    assert_eq!(unread(), 9);
}

/// A file's chart is the folder above it with a `Chart.yaml` that is a regular
/// file, whatever the run read before: a vendored chart whose `Chart.yaml` is a
/// link inside the repository is read as its parent's dependency, and its files
/// still belong to no chart, before and after that read.
#[cfg(unix)]
#[test]
fn a_files_chart_does_not_depend_on_what_was_read_before() {
    let folder = tempfile::tempdir().unwrap();
    let top = folder.path().canonicalize().unwrap();
    write(
        &top,
        "app/Chart.yaml",
        "apiVersion: v2\nname: app\nversion: 1.0.0\n",
    );
    write(
        &top,
        "shared/Chart.yaml",
        "apiVersion: v2\nname: sub\nversion: 1.0.0\n",
    );
    write(&top, "app/charts/sub/values.yaml", "size: 1\n");
    write(
        &top,
        "app/charts/sub/templates/x.yaml",
        "{{ .Values.size }}\n",
    );
    std::os::unix::fs::symlink(
        "../../../shared/Chart.yaml",
        top.join("app/charts/sub/Chart.yaml"),
    )
    .unwrap();
    let charts = Arc::new(Charts::default());
    let scope = scope(&top);
    let files = [
        "app/charts/sub/values.yaml",
        "app/charts/sub/templates/x.yaml",
    ];
    let of = |charts: &Arc<Charts>| -> Vec<Option<PathBuf>> {
        files
            .iter()
            .map(|file| {
                charts
                    .of(&top.join(file), &scope)
                    .map(|(chart, _)| chart.root.clone())
            })
            .collect()
    };
    assert_eq!(of(&charts), [None, None]);
    let app = charts.chart(&top.join("app"), &scope).unwrap();
    let _ = app.content_fingerprint();
    assert!(charts.read_already(&top.join("app/charts/sub")).is_some());
    assert_eq!(of(&charts), [None, None]);
}

/// A chart read from an archive under `charts/` is scanned for what its templates
/// read and define, and no file of it is checked: once scanned it keeps neither
/// their texts nor their lexings.
#[test]
fn an_archived_chart_keeps_no_text_once_scanned() {
    let folder = tempfile::tempdir().unwrap();
    let top = folder.path().canonicalize().unwrap();
    write(
        &top,
        "app/Chart.yaml",
        "apiVersion: v2\nname: app\nversion: 1.0.0\ndependencies:\n  - name: dep\n    version: 1.0.0\n",
    );
    write(&top, "app/values.yaml", "dep:\n  port: 80\n");
    write(
        &top,
        "app/templates/x.yaml",
        "x: {{ include \"dep.x\" . }}\n",
    );
    let archive = archive::tgz(&[
        (
            "dep/Chart.yaml",
            b"apiVersion: v2\nname: dep\nversion: 1.0.0\n",
        ),
        ("dep/values.yaml", b"port: 80\n"),
        (
            "dep/templates/_x.tpl",
            b"{{- define \"dep.x\" -}}\n{{ .Values.port }}\n{{- end -}}\n",
        ),
        ("dep/templates/svc.yaml", b"port: {{ .Values.port }}\n"),
    ]);
    std::fs::create_dir_all(top.join("app/charts")).unwrap();
    std::fs::write(top.join("app/charts/dep-1.0.0.tgz"), archive).unwrap();
    let charts = Arc::new(Charts::default());
    let app = charts.chart(&top.join("app"), &scope(&top)).unwrap();
    let reached = app.reached_charts();
    let dep = reached
        .iter()
        .find(|chart| !matches!(chart.location, Location::Folder(_)))
        .expect("the archived chart is reached");
    assert_eq!(dep.scan().template_reads.len(), 2, "both templates scanned");
    let texts = dep.texts();
    assert!(texts.texts.lock().unwrap().is_empty(), "texts left");
    assert!(texts.lexed.lock().unwrap().is_empty(), "lexings left");
}
