//! Memory grows linearly with hostile input, by a small constant per byte: a file
//! checked is held with its masked copy, per-line facts and at most 100 findings, so
//! a 16 MiB template cannot take gigabytes (files are checked in parallel): at most 48
//! bytes per input byte, reached by files of comments or of empty lines. A message
//! to `tether server` takes a few times its size, however many values it holds.
//! Memory is counted by this binary's allocator, not read from the system, so the
//! tests are steady on a busy machine; each takes one lock while it measures, so no
//! other test of this file allocates meanwhile.

#![allow(clippy::print_stderr)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
/// Every byte ever allocated: the work a run does in copies.
static ALLOCATED: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is passed to the system allocator unchanged; only sizes are
// counted.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let now = CURRENT.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(now, Ordering::Relaxed);
        ALLOCATED.fetch_add(layout.size(), Ordering::Relaxed);
        // SAFETY: the caller's layout, as the trait requires.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        CURRENT.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: `ptr` was allocated by `alloc` above with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() {
            let now = CURRENT.fetch_add(new_size - layout.size(), Ordering::Relaxed) + new_size
                - layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
            ALLOCATED.fetch_add(new_size - layout.size(), Ordering::Relaxed);
        } else {
            CURRENT.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
        }
        // SAFETY: as for `dealloc` and `alloc`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Taken by each test while it measures.
static MEASURING: Mutex<()> = Mutex::new(());

/// [`MEASURING`], taken for the rest of the calling test (a test that failed while
/// holding it does not stop the others).
fn measuring() -> std::sync::MutexGuard<'static, ()> {
    MEASURING
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The most memory `check` held at once for `text` as a template, beyond what was
/// held before.
fn peak_of(config: &helm_tether::Config, text: &str) -> usize {
    let bytes = text.as_bytes().to_vec();
    let before = CURRENT.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let (_, diagnostics) = helm_tether::internals::check_bytes(
        config,
        std::path::Path::new("templates/hostile.yaml"),
        bytes,
        helm_tether::internals::Mode::Lazy,
    );
    let peak = PEAK.load(Ordering::Relaxed) - before;
    drop(diagnostics);
    peak
}

/// Hostile units: every line a finding, every line empty, every line an action.
const HOSTILE: &[(&str, &str)] = &[
    ("comments without a space", "#c\n"),
    ("comments indented wrong", "a: 1\n  #c\n"),
    ("empty lines", "\n"),
    ("an action a line", "{{a}}\n"),
    ("an action and a comment a line", "k: {{ a }} #c\n"),
    ("unclosed quotes", "\"a\n"),
    ("sequence items", "- a\n"),
];

#[test]
fn memory_is_linear_in_the_input_with_a_small_constant() {
    let _measuring = measuring();
    let folder = tempfile::tempdir().unwrap();
    let config = helm_tether::Config::default_for(folder.path().to_path_buf());
    let failures = beyond_linear(HOSTILE, 48, |text| peak_of(&config, text));
    assert!(failures.is_empty(), "{failures:#?}");
}

/// The units whose input, repeated to 64 KiB, 256 KiB and 1 MiB, makes `peak` grow
/// more than linearly or past `limit` bytes of memory per input byte.
fn beyond_linear(
    units: &[(&str, &str)],
    limit: usize,
    peak: impl Fn(&str) -> usize,
) -> Vec<String> {
    let mut failures = Vec::new();
    for (name, unit) in units {
        let sizes = [64 * 1024, 256 * 1024, 1024 * 1024];
        let peaks: Vec<usize> = sizes
            .iter()
            .map(|&size| peak(&unit.repeat(size / unit.len())))
            .collect();
        let per_byte: Vec<usize> = peaks
            .iter()
            .zip(sizes)
            .map(|(peak, size)| peak / size)
            .collect();
        eprintln!("{name}: {per_byte:?} bytes of memory per input byte at 1×, 4×, 16×");
        if peaks[2] > peaks[0] * 20 || per_byte.iter().any(|&n| n > limit) {
            failures.push(format!("{name}: {per_byte:?} bytes per byte"));
        }
    }
    failures
}

/// Plain YAML a stranger may write, which the walk of yaml-rust2's events models
/// (`src/yaml/plain.rs`): many keys, items, flow collections on one line of text
/// that is not ASCII, block scalars.
const HOSTILE_PLAIN: &[(&str, &str)] = &[
    ("keys", "k: v\n"),
    ("sequence items", "- a\n"),
    ("flow items, not ASCII", "ü: [ß, é, ñ] # ö\n"),
    ("mappings in a sequence", "- a: 1\n  b: 2\n"),
    ("block scalars", "k: |\n  x\n"),
];

#[test]
fn the_model_of_plain_yaml_is_linear_in_the_input() {
    let _measuring = measuring();
    let failures = beyond_linear(HOSTILE_PLAIN, 64, |text| {
        let before = CURRENT.load(Ordering::Relaxed);
        PEAK.store(before, Ordering::Relaxed);
        let model = helm_tether::FileModel::from_bytes("values.yaml", text.as_bytes().to_vec());
        let peak = PEAK.load(Ordering::Relaxed) - before;
        drop(model);
        peak
    });
    assert!(failures.is_empty(), "{failures:#?}");
}

/// The most memory `tether server` held at once for the byte stream `input`,
/// beyond what was held before (`input` itself).
fn server_peak_of(input: Vec<u8>) -> usize {
    let before = CURRENT.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    helm_tether::internals::serve_bytes(input).unwrap();
    PEAK.load(Ordering::Relaxed) - before
}

/// Messages of `size` bytes: made of the smallest values JSON has, whose tree
/// would take some 35 times the message, and the messages of the largest trees the
/// server builds (a message may hold four times its size of tree, at 64 bytes a
/// value and 64 more an object's member), filled up with a string.
fn hostile_messages(size: usize) -> Vec<(&'static str, String)> {
    let repeated = |open: &str, unit: &str, close: &str| {
        let mut body = String::with_capacity(size);
        body.push_str(open);
        while body.len() + unit.len() + close.len() <= size {
            body.push_str(unit);
        }
        body.push_str(close);
        body
    };
    let filled = |open: &str, values: String| {
        let start = format!(r#"{open}{values}}},"fill":""#);
        let fill = "x".repeat(size.saturating_sub(start.len() + 2));
        format!(r#"{start}{fill}"}}"#)
    };
    let zeros = vec!["0"; 4 * size / 64 / 100 * 95].join(",");
    let keys: Vec<String> = (0..4 * size / 128 / 100 * 95)
        .map(|n| format!(r#""k{n}":0"#))
        .collect();
    vec![
        ("an array of zeros", repeated("[", "0,", "0]")),
        (
            "a notification whose parameters are zeros",
            repeated(
                r#"{"jsonrpc":"2.0","method":"made/up","params":["#,
                "0,",
                "0]}",
            ),
        ),
        (
            "a request whose parameters are empty arrays",
            repeated(
                r#"{"jsonrpc":"2.0","id":1,"method":"textDocument/hover","params":{"a":["#,
                "[],",
                "[]]}}",
            ),
        ),
        (
            "a request whose id is an object of zeros",
            repeated(
                r#"{"jsonrpc":"2.0","method":"shutdown","id":{"a":["#,
                "0,",
                "0]}}",
            ),
        ),
        (
            "the most zeros built",
            filled(
                r#"{"jsonrpc":"2.0","method":"made/up","params":{"a":["#,
                format!("{zeros}]"),
            ),
        ),
        (
            "the most members built",
            filled(
                r#"{"jsonrpc":"2.0","method":"made/up","params":{"a":{"#,
                format!("{}}}", keys.join(",")),
            ),
        ),
    ]
}

#[test]
fn a_server_message_takes_a_few_times_its_size() {
    let _measuring = measuring();
    let size = 30 * 1024 * 1024;
    let mut failures = Vec::new();
    for (name, body) in hostile_messages(size) {
        let mut input = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
        input.extend_from_slice(body.as_bytes());
        drop(body);
        let peak = server_peak_of(input);
        let times = peak as f64 / size as f64;
        eprintln!("{name}: {times:.1} times the message");
        if peak > 8 * size {
            failures.push(format!("{name}: {times:.1} times the message"));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// A generated monorepo of `charts` charts, each with a 60 kB `values.yaml` of
/// documented keys and a template that reads them all. Each `values.yaml` has one
/// finding on its first line: the report holds that line, not the file, so it
/// grows with the findings, not with the text of the files they are in.
fn monorepo(root: &std::path::Path, charts: usize) {
    for chart in 0..charts {
        let folder = root.join(format!("charts/app{chart}"));
        write_chart(
            &folder,
            &format!("apiVersion: v2\nname: app{chart}\nversion: 1.0.0\n"),
            "# The first key.\nfirst: 1 # one space before\n",
            "  first: {{ .Values.first }}\n",
        );
    }
}

/// A chart in `folder`: its `Chart.yaml`, and a `values.yaml` of `first` and 1,000
/// documented keys, which `templates/cm.yaml` reads after `first_read`.
fn write_chart(folder: &std::path::Path, manifest: &str, first: &str, first_read: &str) {
    std::fs::create_dir_all(folder.join("templates")).unwrap();
    std::fs::write(folder.join("Chart.yaml"), manifest).unwrap();
    let mut values = String::from(first);
    let mut template = format!("apiVersion: v1\nkind: ConfigMap\ndata:\n{first_read}");
    for key in 0..1000 {
        values.push_str(&format!(
            "# How key {key} is used.\nkey{key}:\n  on: true\n"
        ));
        template.push_str(&format!("  k{key}: {{{{ .Values.key{key}.on }}}}\n"));
    }
    std::fs::write(folder.join("values.yaml"), values).unwrap();
    std::fs::write(folder.join("templates/cm.yaml"), template).unwrap();
}

/// [`monorepo`], each chart `app<N>` with a `base<N>` it depends on (by name, or
/// every other one by `file://` path), a chart of its own in `bases/` (after every
/// `app` in path order), as large.
fn monorepo_with_bases(root: &std::path::Path, charts: usize) {
    monorepo(root, charts);
    for chart in 0..charts {
        let app = root.join(format!("charts/app{chart}/Chart.yaml"));
        // Half by name, half by `file://` path.
        let repository = match chart % 2 {
            0 => String::new(),
            _ => format!("    repository: file://../../bases/base{chart}\n"),
        };
        let manifest = format!(
            "apiVersion: v2\nname: app{chart}\nversion: 1.0.0\ndependencies:\n  - name: base{chart}\n    version: 1.0.0\n{repository}"
        );
        std::fs::write(app, manifest).unwrap();
        write_chart(
            &root.join(format!("bases/base{chart}")),
            &format!("apiVersion: v2\nname: base{chart}\nversion: 1.0.0\n"),
            "",
            "",
        );
    }
}

/// [`monorepo`] in `team<N>/` folders of one chart each, every team with a library
/// chart of its own beside it (`team<N>/lib`, 1,000 defines that read values) whose
/// defines the chart calls without naming it as a dependency: each chart searches
/// the library nearest it.
fn monorepo_with_libraries(root: &std::path::Path, charts: usize) {
    for team in 0..charts {
        let folder = root.join(format!("team{team}"));
        monorepo(&folder, 1);
        let template = folder.join("charts/app0/templates/cm.yaml");
        let mut text = std::fs::read_to_string(&template).unwrap();
        text.push_str("  helper: {{ include \"lib.key0\" . }}\n");
        std::fs::write(template, text).unwrap();
        let library = folder.join("lib");
        std::fs::create_dir_all(library.join("templates")).unwrap();
        let manifest = "apiVersion: v2\nname: lib\ntype: library\nversion: 1.0.0\n";
        std::fs::write(library.join("Chart.yaml"), manifest).unwrap();
        let mut defines = String::new();
        for key in 0..1000 {
            defines.push_str(&format!(
                "{{{{- define \"lib.key{key}\" -}}}}\n{{{{ .Values.key{key}.on | quote }}}}\n{{{{- end }}}}\n"
            ));
        }
        std::fs::write(library.join("templates/_helpers.tpl"), defines).unwrap();
    }
}

/// The most memory a check of a generated monorepo of `charts` charts held at once,
/// on one thread (on more, as many chart trees as threads are checked at once, so
/// a peak holds one tree or two as the threads happen to meet), and the files it
/// checked.
fn monorepo_peak(charts: usize, write: fn(&std::path::Path, usize)) -> (usize, usize) {
    let folder = tempfile::tempdir().unwrap();
    let root = folder.path().canonicalize().unwrap();
    write(&root, charts);
    let config = helm_tether::Config::default_for(root.clone());
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let before = CURRENT.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let report = pool.install(|| {
        helm_tether::check_paths(
            config,
            &[&root],
            &helm_tether::CheckOptions::default().cache(false),
        )
        .unwrap()
    });
    let peak = PEAK.load(Ordering::Relaxed) - before;
    let rules: Vec<&str> = report.diagnostics.iter().map(|d| d.rule.name()).collect();
    assert_eq!(rules, vec!["inline-comment-spacing"; charts]);
    (peak, report.files)
}

/// The peaks of [`monorepo_peak`] at 1×, 4× and 16× (2, 8 and 32 charts), each
/// run checking `files` files a chart.
fn peaks_of(write: fn(&std::path::Path, usize), files: usize) -> [usize; 3] {
    let peaks = [2, 8, 32].map(|charts| {
        let (peak, checked) = monorepo_peak(charts, write);
        assert_eq!(checked, files * charts);
        peak
    });
    eprintln!("peak memory of a check at 1×, 4×, 16× the charts: {peaks:?} bytes");
    peaks
}

/// Asserts the 16× peak is at most 1.5 times the 1× peak.
fn holds_at_most_half_again(peaks: &[usize; 3]) {
    assert!(
        peaks[2] * 2 <= peaks[0] * 3,
        "at 16× the charts the check held {:.2}× the memory of 1×: {peaks:?}",
        peaks[2] as f64 / peaks[0] as f64
    );
}

/// A check holds the charts of the chart trees it is checking, not of the whole
/// repository: at 16 times the charts it takes at most 1.5 times the memory.
#[test]
fn memory_follows_the_largest_chart_not_the_repository() {
    let _measuring = measuring();
    holds_at_most_half_again(&peaks_of(monorepo, 3));
}

/// A chart another tree reads as a dependency is held from that tree until its
/// own tree is checked, right after: at 16 times the charts, at most 1.5 times the
/// memory, though every such tree comes after all the trees that read them in
/// path order.
#[test]
fn a_chart_read_by_another_tree_is_let_go_soon_after() {
    let _measuring = measuring();
    holds_at_most_half_again(&peaks_of(monorepo_with_bases, 6));
}

/// Counts the bytes written to it and keeps none.
struct CountingSink(usize);

impl std::io::Write for CountingSink {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0 += bytes.len();
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// `check --format json` writes its findings as it makes them: writing a report
/// of 6,000 findings (about 3 MB of JSON) holds a small fraction of the text at
/// once. It held the whole text, and a copy of every finding, before a byte was
/// written.
#[test]
fn the_json_report_is_written_as_it_is_made() {
    let _measuring = measuring();
    let dir = tempfile::tempdir().unwrap();
    for file in 0..60 {
        std::fs::write(
            dir.path().join(format!("values-{file}.yaml")),
            "#c\n".repeat(100),
        )
        .unwrap();
    }
    let config = helm_tether::Config::from_toml("").unwrap();
    let report = helm_tether::check_paths(&config, &[dir.path()], &Default::default()).unwrap();
    assert!(
        report.diagnostics.len() >= 6_000,
        "{}",
        report.diagnostics.len()
    );
    let before = CURRENT.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let mut sink = CountingSink(0);
    report.write(&helm_tether::Format::Json, &mut sink).unwrap();
    let peak = PEAK.load(Ordering::Relaxed) - before;
    eprintln!(
        "{} bytes of JSON written holding at most {peak} bytes",
        sink.0
    );
    assert!(sink.0 > 2_000_000, "{}", sink.0);
    assert!(peak * 20 < sink.0, "{peak} bytes held to write {}", sink.0);
}

/// A repository of `charts` charts and one library whose `charts` defines include
/// each other in a ring (`lib.d0` includes `lib.d1`, …, the last `lib.d0`), each
/// chart including one of them: every chart reaches every define, and each has
/// one value (`extra`) that nothing reads.
fn define_ring(root: &std::path::Path, charts: usize) {
    let library = root.join("lib");
    std::fs::create_dir_all(library.join("templates")).unwrap();
    std::fs::write(
        library.join("Chart.yaml"),
        "apiVersion: v2\nname: lib\ntype: library\nversion: 1.0.0\n",
    )
    .unwrap();
    let ring: String = (0..charts)
        .map(|at| {
            format!(
                "{{{{- define \"lib.d{at}\" -}}}}\nk{at}: {{{{ .Values.k{at} }}}}\n{{{{ include \"lib.d{}\" . }}}}\n{{{{- end -}}}}\n",
                (at + 1) % charts
            )
        })
        .collect();
    std::fs::write(library.join("templates/_ring.tpl"), ring).unwrap();
    for at in 0..charts {
        let folder = root.join(format!("app{at}"));
        std::fs::create_dir_all(folder.join("templates")).unwrap();
        std::fs::write(
            folder.join("Chart.yaml"),
            format!("apiVersion: v2\nname: app{at}\nversion: 1.0.0\ndependencies:\n  - name: lib\n    version: 1.0.0\n    repository: file://../lib\n"),
        )
        .unwrap();
        std::fs::write(
            folder.join("values.yaml"),
            format!("# Read by lib.d{at}.\nk{at}: 1\n# Read by no template.\nextra: 1\n"),
        )
        .unwrap();
        std::fs::write(
            folder.join("templates/cm.yaml"),
            format!("data:\n{{{{ include \"lib.d{at}\" . }}}}\n"),
        )
        .unwrap();
    }
}

/// The bytes a check of a define ring of `charts` charts allocated in all.
fn define_ring_work(charts: usize) -> usize {
    let folder = tempfile::tempdir().unwrap();
    let root = folder.path().canonicalize().unwrap();
    define_ring(&root, charts);
    let config = helm_tether::Config::default_for(root.clone());
    let before = ALLOCATED.load(Ordering::Relaxed);
    let report = helm_tether::check_paths(
        config,
        &[&root],
        &helm_tether::CheckOptions::default().cache(false),
    )
    .unwrap();
    let work = ALLOCATED.load(Ordering::Relaxed) - before;
    assert_eq!(report.files, 3 * charts + 2);
    // Every `k` is read through the ring; no `extra` is.
    let unused: Vec<&str> = report
        .diagnostics
        .iter()
        .filter(|diagnostic| diagnostic.rule.name() == "unused-value")
        .map(|diagnostic| diagnostic.message.as_str())
        .collect();
    assert_eq!(unused.len(), charts, "{unused:#?}");
    assert!(
        unused.iter().all(|message| message.contains("`extra`")),
        "{unused:#?}"
    );
    drop(report);
    work
}

/// A library whose defines include each other is followed once, not once per
/// chart that includes it: 16 times the charts (and defines) cost at most 20
/// times the bytes allocated. Each chart copied every define's reads and names
/// before (the 16-times ring allocated 52 times as much).
#[test]
fn a_ring_of_defines_costs_linear_work() {
    let _measuring = measuring();
    let one = define_ring_work(25);
    let sixteen = define_ring_work(400);
    eprintln!("define ring: 25 charts {one} bytes allocated, 400 charts {sixteen}");
    assert!(sixteen < 20 * one, "{sixteen} bytes against {one}");
}

/// A library chart is held while the trees near it that search it are checked,
/// then let go: with a library beside each chart, at 16 times the charts at most
/// 1.5 times the memory.
#[test]
fn a_library_is_let_go_once_the_trees_that_search_it_are_checked() {
    let _measuring = measuring();
    holds_at_most_half_again(&peaks_of(monorepo_with_libraries, 5));
}
