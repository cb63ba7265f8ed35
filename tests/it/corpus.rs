//! Sweeps the real-chart corpus in `../shared/corpus`: no panics, and templates parse.
//!
//! Outside CI the sweep is skipped with a printed reason when the corpus is absent;
//! in CI (`CI=true`) the corpus is always laid out beside the checkout, so its
//! absence is a failure.

#![allow(clippy::print_stderr)]

use crate::common;

use std::path::{Path, PathBuf};

use rayon::prelude::*;

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files(&path, out);
        } else if path
            .extension()
            .is_some_and(|e| e == "yaml" || e == "yml" || e == "tpl")
        {
            out.push(path);
        }
    }
}

#[test]
fn corpus_models_without_panics_and_templates_parse() {
    let Some(dir) = common::corpus_dir("the corpus sweep") else {
        return;
    };
    let mut paths = Vec::new();
    files(&dir, &mut paths);
    paths.sort();
    assert!(
        paths.len() > 2000,
        "only {} files in the corpus",
        paths.len()
    );
    let results: Vec<(PathBuf, Result<bool, String>)> = paths
        .par_iter()
        .map(|path| {
            let bytes = std::fs::read(path).expect("corpus files are readable");
            let relative = path.strip_prefix(&dir).unwrap_or(path).to_path_buf();
            let outcome = std::panic::catch_unwind(|| {
                let model = helm_tether::FileModel::from_bytes(relative.clone(), bytes);
                model.documents.iter().any(|document| document.recovered)
            })
            .map_err(|_| "panicked".to_string());
            (relative, outcome)
        })
        .collect();
    let panicked: Vec<_> = results
        .iter()
        .filter(|(_, outcome)| outcome.is_err())
        .map(|(path, _)| path.display().to_string())
        .collect();
    assert!(panicked.is_empty(), "modelling panicked on {panicked:#?}");

    let templates: Vec<_> = results
        .iter()
        .filter(|(path, _)| {
            helm_tether::internals::is_template_path(path)
                && path.extension().is_some_and(|e| e == "yaml")
        })
        .collect();
    let recovered: Vec<String> = templates
        .iter()
        .filter(|(_, outcome)| outcome == &Ok(true))
        .map(|(path, _)| path.display().to_string())
        .collect();
    let parsed_share = 1.0 - recovered.len() as f64 / templates.len() as f64;
    eprintln!(
        "{} of {} templates parse with no ERROR node after masking ({:.2}%); recovered: {recovered:#?}",
        templates.len() - recovered.len(),
        templates.len(),
        parsed_share * 100.0
    );
    assert!(
        parsed_share >= 0.99,
        "{} of {} templates needed recovery: {recovered:#?}",
        recovered.len(),
        templates.len()
    );
}

/// `tether check` with the default rules over the whole corpus: no panic, no
/// error-level finding (exit ≤ 1), and the lazy mode (trees only where a rule needs
/// one) finds exactly what the full mode (every tree) finds.
#[test]
fn corpus_check_lazy_equals_full() {
    let Some(dir) = common::corpus_dir("the corpus sweep") else {
        return;
    };
    let config = helm_tether::Config::default_for(dir.clone());
    let run = |full| {
        helm_tether::check_paths(
            helm_tether::ConfigSource::One(config.clone()),
            std::slice::from_ref(&dir),
            &helm_tether::CheckOptions::default().full(full),
        )
        .expect("the check starts")
    };
    let lazy = run(false);
    let full = run(true);
    assert!(lazy.files > 2000, "only {} files checked", lazy.files);
    assert!(lazy.failures.is_empty(), "{:?}", lazy.failures);
    assert_eq!(
        lazy.count(helm_tether::Severity::Error),
        0,
        "error-level findings with the default rules: exit would be 1+"
    );
    let render = |report: &helm_tether::CheckReport| report.render(&helm_tether::Format::Json);
    let (lazy_json, full_json) = (render(&lazy), render(&full));
    if lazy_json != full_json {
        let only = |a: &helm_tether::CheckReport, b: &helm_tether::CheckReport| {
            a.diagnostics
                .iter()
                .filter(|d| !b.diagnostics.contains(d))
                .take(10)
                .map(|d| {
                    format!(
                        "{}:{:?} {} {}",
                        d.path.display(),
                        d.range,
                        d.rule,
                        d.message
                    )
                })
                .collect::<Vec<_>>()
        };
        panic!(
            "lazy and full modes differ:\nonly lazy: {:#?}\nonly full: {:#?}",
            only(&lazy, &full),
            only(&full, &lazy)
        );
    }
    eprintln!(
        "corpus check: {} files, {} warnings",
        lazy.files,
        lazy.count(helm_tether::Severity::Warning)
    );
}

/// `--fix` over a copy of the whole corpus, every rule on, in one pass:
/// - every file keeps its data: a plain YAML file loads (yaml-rust2, every document)
///   to the same values before and after, a template's masked documents parse to the
///   same events;
/// - only whitespace changes, only on lines with a comment, no line is added or
///   removed, and every comment map is the same apart from that whitespace;
/// - a second run finds nothing to fix (a fixpoint).
///
/// The tally says how many fixes were applied and how many were held because they
/// would change data.
#[test]
fn corpus_fix_keeps_data_and_is_a_whitespace_only_fixpoint() {
    let Some(corpus) = common::corpus_dir("the corpus --fix sweep") else {
        return;
    };
    let copy = tempfile::tempdir().expect("a temp folder");
    common::copy_tree(&corpus, copy.path());
    // The corpus is read-only, and so are the copies of its files; `--fix` rightly
    // refuses read-only files, so the copy is made writable.
    make_writable(copy.path());
    let every_rule: String = helm_tether::RuleInfo::all()
        .iter()
        .filter(|rule| rule.name != "required-comment")
        .map(|rule| format!("{} = \"warn\"\n", rule.name))
        .collect();
    let configs = || {
        helm_tether::ConfigSource::One(
            helm_tether::Config::from_toml_in(&format!("[rules]\n{every_rule}"), copy.path())
                .expect("every rule as a warning is a valid configuration"),
        )
    };
    let report = helm_tether::fix_paths(
        configs(),
        &[copy.path()],
        helm_tether::FixOptions::default().write(true),
    )
    .expect("the fix starts");
    assert!(report.checked > 2000, "only {} files", report.checked);
    assert!(report.failures.is_empty(), "{:#?}", report.failures);
    assert!(
        report.count() > 100,
        "the sweep fixed too little to mean anything"
    );
    let load = |text: &str| yaml_rust2::YamlLoader::load_from_str(text).map_err(|e| e.to_string());
    let squeeze =
        |text: &str| -> String { text.chars().filter(|c| *c != ' ' && *c != '\t').collect() };
    let mut changed_data = Vec::new();
    let (mut plain, mut templates) = (0, 0);
    for file in &report.files {
        if helm_tether::internals::is_template_path(&file.path) {
            templates += 1;
            let data = |text: &str| helm_tether::internals::data_of(&file.path, text);
            if data(&file.before) != data(&file.after) {
                changed_data.push(file.path.display().to_string());
            }
        } else {
            plain += 1;
            if load(&file.before) != load(&file.after) {
                changed_data.push(file.path.display().to_string());
            }
        }
        let before: Vec<&str> = file.before.split('\n').collect();
        let after: Vec<&str> = file.after.split('\n').collect();
        assert_eq!(
            before.len(),
            after.len(),
            "{}: lines added or removed",
            file.path.display()
        );
        for (old, new) in before.iter().zip(&after) {
            if old != new {
                assert!(
                    squeeze(old) == squeeze(new) && old.contains('#'),
                    "{}: a change beyond a comment's whitespace:\n-{old}\n+{new}",
                    file.path.display()
                );
            }
        }
        let map = |text: &str| {
            squeeze(
                &helm_tether::FileModel::from_bytes(&file.path, text.as_bytes().to_vec())
                    .to_string(),
            )
            .lines()
            .map(|line| {
                // `LINE:COLUMN key …`: columns move with the whitespace;
                // everything else stays.
                let rest = line.trim_start_matches(|c: char| c.is_ascii_digit());
                match rest.strip_prefix(':') {
                    Some(column) => column
                        .trim_start_matches(|c: char| c.is_ascii_digit())
                        .to_string(),
                    None => line.to_string(),
                }
            })
            .collect::<Vec<_>>()
        };
        assert_eq!(
            map(&file.before),
            map(&file.after),
            "{}: comment map changed",
            file.path.display()
        );
    }
    eprintln!(
        "--fix over the corpus: {} fixes in {} files ({plain} plain YAML, {templates} templates), \
         {} held because they would change data: {:#?}",
        report.count(),
        report.files.len(),
        report.held.len(),
        report
            .held
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
    );
    assert!(
        changed_data.is_empty(),
        "--fix changed data in {changed_data:#?}"
    );
    // A second run over the files the first one fixed finds nothing left to fix (a
    // fixpoint); every other file is as the first run found it, with no fix to make,
    // and a fix changes only its own file.
    let fixed: Vec<std::path::PathBuf> = report
        .files
        .iter()
        .map(|file| copy.path().join(&file.path))
        .collect();
    assert!(fixed.iter().all(|path| path.is_file()), "{fixed:#?}");
    let again = helm_tether::fix_paths(configs(), &fixed, helm_tether::FixOptions::default())
        .expect("it runs");
    assert_eq!(again.checked, fixed.len());
    assert!(again.files.is_empty(), "not a fixpoint:\n{}", again.diff());
}

/// Gives every file under `dir` its owner's write permission.
fn make_writable(dir: &Path) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        let kind = entry.file_type().unwrap();
        if kind.is_dir() {
            make_writable(&path);
        } else if kind.is_file() {
            let mut permissions = std::fs::metadata(&path).unwrap().permissions();
            #[allow(clippy::permissions_set_readonly_false)]
            permissions.set_readonly(false);
            std::fs::set_permissions(&path, permissions).unwrap();
        }
    }
}

/// On every file of plain YAML in the corpus (not a template), the walk of
/// yaml-rust2's events finds exactly the keys, comments and `kind` the tree walk
/// finds, wherever it does not decline; and it declines few of the values files.
#[test]
fn corpus_event_walk_equals_tree_walk() {
    let Some(dir) = common::corpus_dir("the corpus sweep") else {
        return;
    };
    let mut paths = Vec::new();
    files(&dir, &mut paths);
    paths.retain(|path| !helm_tether::internals::is_template_path(path));
    paths.sort();
    let outcomes: Vec<(PathBuf, usize, usize, Vec<String>)> = paths
        .par_iter()
        .map(|path| {
            let bytes = std::fs::read(path).expect("corpus files are readable");
            let relative = path.strip_prefix(&dir).unwrap_or(path).to_path_buf();
            let (source, _) =
                helm_tether::internals::SourceFile::from_bytes(relative.clone(), bytes);
            let documents = helm_tether::internals::both_walks(&source);
            let mut differences = Vec::new();
            let mut walked = 0;
            for (tree, events) in &documents {
                let Some(events) = events else { continue };
                walked += 1;
                if tree != events {
                    differences.push(first_difference(tree, events));
                }
            }
            (relative, documents.len(), walked, differences)
        })
        .collect();
    let differing: Vec<String> = outcomes
        .iter()
        .flat_map(|(path, _, _, differences)| {
            differences
                .iter()
                .map(move |d| format!("{}: {d}", path.display()))
        })
        .collect();
    let (documents, walked) = outcomes
        .iter()
        .fold((0, 0), |(d, w), (_, documents, walked, _)| {
            (d + documents, w + walked)
        });
    let is_values = |path: &PathBuf| {
        path.file_name()
            .is_some_and(|name| name.to_string_lossy().starts_with("values"))
    };
    let (values_documents, values_walked) = outcomes
        .iter()
        .filter(|(path, ..)| is_values(path))
        .fold((0, 0), |(d, w), (_, documents, walked, _)| {
            (d + documents, w + walked)
        });
    eprintln!(
        "the event walk read {walked} of {documents} documents of plain YAML, \
         {values_walked} of {values_documents} in values files"
    );
    assert!(
        differing.is_empty(),
        "{} differences: {:#?}",
        differing.len(),
        &differing[..differing.len().min(40)]
    );
    // It takes nearly every values file, the files `check` models most.
    assert!(
        values_walked * 100 >= values_documents * 95,
        "the event walk read only {values_walked} of {values_documents} documents of values files"
    );
}

fn first_difference(
    tree: &helm_tether::internals::ParsedDocument,
    events: &helm_tether::internals::ParsedDocument,
) -> String {
    for (a, b) in tree.keys.iter().zip(&events.keys) {
        if a != b {
            return format!("key {a:?} / {b:?}");
        }
    }
    if tree.keys.len() != events.keys.len() {
        return format!("{} keys / {}", tree.keys.len(), events.keys.len());
    }
    for (a, b) in tree.comments.iter().zip(&events.comments) {
        if a != b {
            return format!("comment {a:?} / {b:?}");
        }
    }
    if tree.comments.len() != events.comments.len() {
        return format!(
            "{} comments / {}",
            tree.comments.len(),
            events.comments.len()
        );
    }
    format!("kind {:?} / {:?}", tree.kind, events.kind)
}
