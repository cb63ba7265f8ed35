//! The documentation holds: every relative link and `#anchor` of the Markdown pages
//! resolves, every page of the book is in its `SUMMARY.md`, and the examples marked
//! as runnable run with the tether just built and say what the page shows.
//!
//! `cargo xtask docs` builds the book with mdBook, then runs these tests; `cargo test`
//! runs them without mdBook. CONTRIBUTING.md ("Documentation") states the rules.
//!
//! - **Links.** In README.md, CONTRIBUTING.md, BENCHMARKS.md, CHANGELOG.md,
//!   ARCHITECTURE.md and `docs/src/**/*.md`, a link that is not `http(s):` or
//!   `mailto:` names a file or folder that exists, relative to the page; a `#anchor`
//!   names a heading of the target (or an `id`/`name` of an HTML tag there). A page of
//!   the book links only inside `docs/src/`: mdBook publishes nothing else. A
//!   `{{#include FILE}}` of a page is read into it, so the included text's links
//!   resolve from the page too.
//! - **Examples.** A fenced block preceded by `<!-- runs -->` (or
//!   `<!-- runs: exit N -->`) is run in a fresh copy of the repository's `examples/`
//!   and `tests/fixtures/` (paths as from the repository's root), with the binary's
//!   folder first on `PATH`: each line of an `sh` block is a command; in a `console`
//!   block each `$ ` line is one, and the lines below it, when there are any, are its
//!   output (stdout and stderr together), compared exactly.

#![allow(clippy::print_stderr)]

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};
use std::process::Command;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The book's sources: mdBook builds what `SUMMARY.md` lists from here.
const BOOK: &str = "docs/src";

/// The Markdown pages whose links are checked, relative to the repository.
fn pages() -> Vec<PathBuf> {
    let mut pages: Vec<PathBuf> = [
        "README.md",
        "CONTRIBUTING.md",
        "BENCHMARKS.md",
        "CHANGELOG.md",
        "ARCHITECTURE.md",
    ]
    .iter()
    .map(PathBuf::from)
    .collect();
    pages.extend(book_pages());
    pages
}

/// Every `.md` file under `docs/src`, relative to the repository, sorted.
fn book_pages() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "md") {
                out.push(path.strip_prefix(repo()).unwrap().to_path_buf());
            }
        }
    }
    let mut out = Vec::new();
    walk(&repo().join(BOOK), &mut out);
    out.sort();
    out
}

fn read(relative: &Path) -> String {
    std::fs::read_to_string(repo().join(relative))
        .unwrap_or_else(|error| panic!("{}: {error}", relative.display()))
        .replace("\r\n", "\n")
}

#[test]
fn links_and_anchors_resolve() {
    let mut broken = Vec::new();
    for page in pages() {
        broken.extend(broken_links(&page));
    }
    assert!(
        broken.is_empty(),
        "{} broken links:\n{}",
        broken.len(),
        broken.join("\n")
    );
}

#[test]
fn every_page_of_the_book_is_in_its_summary() {
    let summary = Path::new(BOOK).join("SUMMARY.md");
    let listed: BTreeSet<PathBuf> = links(&read(&summary))
        .into_iter()
        .map(|(_, target)| Path::new(BOOK).join(target))
        .collect();
    let missing: Vec<String> = book_pages()
        .into_iter()
        .filter(|page| *page != summary && !listed.contains(page))
        .map(|page| page.display().to_string())
        .collect();
    assert!(
        missing.is_empty(),
        "pages mdBook would not build, missing from {}: {missing:?}",
        summary.display()
    );
}

/// `page`'s links that do not resolve, each as `page:line: target: why`.
fn broken_links(page: &Path) -> Vec<String> {
    let folder = page.parent().unwrap_or(Path::new(""));
    let in_book = page.starts_with(BOOK);
    let text = match with_includes(page) {
        Ok(text) => text,
        Err(error) => return vec![format!("{}: {error}", page.display())],
    };
    let mut broken = Vec::new();
    for (line, target) in links(&text) {
        let at = format!("{}:{line}: {target}", page.display());
        if is_external(&target) {
            continue;
        }
        let (path, anchor) = match target.split_once('#') {
            Some((path, anchor)) => (path, Some(anchor)),
            None => (target.as_str(), None),
        };
        let resolved = if path.is_empty() {
            page.to_path_buf()
        } else if path.starts_with('/') {
            broken.push(format!(
                "{at}: an absolute path; write it relative to the page"
            ));
            continue;
        } else {
            match normalize(&folder.join(percent_decoded(path))) {
                Some(resolved) => resolved,
                None => {
                    broken.push(format!("{at}: leaves the repository"));
                    continue;
                }
            }
        };
        if in_book && !resolved.starts_with(BOOK) {
            broken.push(format!(
                "{at}: a page of the book links only inside {BOOK}/ (mdBook publishes nothing else); \
                 link https://github.com/cozystack/tether/blob/main/{} instead",
                resolved.display()
            ));
            continue;
        }
        if !repo().join(&resolved).exists() {
            broken.push(format!("{at}: {} does not exist", resolved.display()));
            continue;
        }
        let Some(anchor) = anchor else { continue };
        if resolved.extension().is_none_or(|e| e != "md") {
            continue;
        }
        let anchors = match with_includes(&resolved) {
            Ok(text) => anchors(&text),
            Err(error) => {
                broken.push(format!("{at}: {error}"));
                continue;
            }
        };
        if !anchors.contains(anchor) {
            broken.push(format!(
                "{at}: {} has no heading with the anchor #{anchor}",
                resolved.display()
            ));
        }
    }
    broken
}

fn is_external(target: &str) -> bool {
    ["http://", "https://", "mailto:"]
        .iter()
        .any(|scheme| target.starts_with(scheme))
}

/// `path` with `.` and `..` resolved, or `None` when it climbs out of the repository.
fn normalize(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            other => out.push(other),
        }
    }
    Some(out)
}

/// `%20` and the like decoded, as a browser does before asking for the file.
fn percent_decoded(path: &str) -> String {
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let escaped = (bytes[i] == b'%')
            .then(|| bytes.get(i + 1..i + 3))
            .flatten()
            .and_then(|hex| std::str::from_utf8(hex).ok())
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match escaped {
            Some(byte) => {
                out.push(byte);
                i += 3;
            }
            None => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The text of `page` with each `{{#include FILE}}` line replaced by FILE's text, as
/// mdBook reads it (line ranges and anchors of the directive are not used here).
fn with_includes(page: &Path) -> Result<String, String> {
    let folder = page.parent().unwrap_or(Path::new(""));
    let mut out = String::new();
    for line in read(page).lines() {
        let directive = line
            .trim()
            .strip_prefix("{{#include ")
            .and_then(|rest| rest.strip_suffix("}}"));
        match directive {
            Some(file) => {
                let file = file.trim().split(':').next().unwrap_or_default();
                let included = normalize(&folder.join(file))
                    .filter(|path| repo().join(path).is_file())
                    .ok_or_else(|| format!("{{{{#include {file}}}}}: no such file"))?;
                out.push_str(&read(&included));
            }
            None => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    Ok(out)
}

/// The lines of `text` outside fenced code blocks, with their 1-based numbers; HTML
/// comments are blanked (their line breaks kept).
fn prose_lines(text: &str) -> Vec<(usize, String)> {
    let text = without_comments(text);
    let mut fence: Option<String> = None;
    let mut out = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        match &fence {
            Some(open) => {
                if trimmed.starts_with(open.as_str())
                    && trimmed
                        .trim_start_matches(open.chars().next().unwrap_or('`'))
                        .trim()
                        .is_empty()
                {
                    fence = None;
                }
            }
            None => {
                if let Some(open) = fence_opening(trimmed) {
                    fence = Some(open);
                } else {
                    out.push((index + 1, line.to_string()));
                }
            }
        }
    }
    out
}

/// The run of backticks or tildes (three or more) that opens a fenced block.
fn fence_opening(trimmed: &str) -> Option<String> {
    let marker = trimmed.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let run: String = trimmed.chars().take_while(|c| *c == marker).collect();
    (run.chars().count() >= 3).then_some(run)
}

/// `text` with every `<!-- … -->` replaced by spaces, line breaks kept.
fn without_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("<!--") {
        out.push_str(&rest[..start]);
        let end = rest[start..]
            .find("-->")
            .map_or(rest.len(), |end| start + end + 3);
        out.extend(
            rest[start..end]
                .chars()
                .map(|c| if c == '\n' { '\n' } else { ' ' }),
        );
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// The targets of the inline links (`[text](target "title")`, images too) and
/// reference definitions (`[label]: target`) of `text`, outside code, with their
/// line numbers.
fn links(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    // Code spans may wrap, so they are removed a paragraph at a time.
    for paragraph in paragraphs(&prose_lines(text)) {
        let (first_line, joined) = paragraph;
        let plain = without_code_spans(&joined);
        for (offset, line) in plain.lines().enumerate() {
            let number = first_line + offset;
            if let Some(target) = reference_definition(line) {
                found.push((number, target));
            }
            let mut rest = line;
            while let Some(at) = rest.find("](") {
                let after = &rest[at + 2..];
                let Some(end) = closing_paren(after) else {
                    break;
                };
                let inside = after[..end].trim();
                let target = match inside.strip_prefix('<') {
                    Some(angled) => angled.split('>').next().unwrap_or_default(),
                    None => inside.split_whitespace().next().unwrap_or_default(),
                };
                if !target.is_empty() {
                    found.push((number, target.to_string()));
                }
                rest = &after[end..];
            }
        }
    }
    found
}

/// Runs of consecutive non-blank lines (numbered lines in, `(first number, text)`
/// out); a gap in the numbering (a fenced block) ends a paragraph too.
fn paragraphs(lines: &[(usize, String)]) -> Vec<(usize, String)> {
    let mut out: Vec<(usize, String)> = Vec::new();
    let mut last = 0;
    for (number, line) in lines {
        let continues = *number == last + 1 && !line.trim().is_empty();
        match out.last_mut() {
            Some((_, text)) if continues && !text.is_empty() => {
                text.push('\n');
                text.push_str(line);
            }
            _ if line.trim().is_empty() => out.push((*number, String::new())),
            _ => out.push((*number, line.clone())),
        }
        last = *number;
    }
    out
}

/// `text` with each code span (a run of backticks to the next run of the same
/// length) blanked; a run with no partner stays as it is.
fn without_code_spans(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '`' {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        let run = chars[i..].iter().take_while(|c| **c == '`').count();
        let mut j = i + run;
        let mut close = None;
        while j < chars.len() {
            if chars[j] == '`' {
                let other = chars[j..].iter().take_while(|c| **c == '`').count();
                if other == run {
                    close = Some(j);
                    break;
                }
                j += other;
            } else {
                j += 1;
            }
        }
        match close {
            Some(close) => {
                for c in &chars[i..close + run] {
                    out.push(if *c == '\n' { '\n' } else { ' ' });
                }
                i = close + run;
            }
            None => {
                out.extend(&chars[i..i + run]);
                i += run;
            }
        }
    }
    out
}

/// The end of a link's `(…)`: the `)` that balances the parentheses opened inside.
fn closing_paren(after: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (index, c) in after.char_indices() {
        match c {
            '(' => depth += 1,
            ')' if depth == 0 => return Some(index),
            ')' => depth -= 1,
            '\n' => return None,
            _ => {}
        }
    }
    None
}

/// The target of `[label]: target` at the start of a line.
fn reference_definition(line: &str) -> Option<String> {
    let rest = line.trim_start().strip_prefix('[')?;
    let (label, rest) = rest.split_once("]:")?;
    if label.is_empty() || label.starts_with('^') {
        return None;
    }
    let target = rest.split_whitespace().next()?;
    Some(
        target
            .trim_start_matches('<')
            .trim_end_matches('>')
            .to_string(),
    )
}

/// The anchors a page offers: a slug per ATX heading (`-1`, `-2`, … on repeats, as
/// GitHub and mdBook number them) and every `id="…"`/`name="…"` of its HTML.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (_, line) in prose_lines(text) {
        let trimmed = line.trim_start();
        let hashes = trimmed.chars().take_while(|c| *c == '#').count();
        if (1..=6).contains(&hashes) && trimmed[hashes..].starts_with(' ') {
            let base = slug(trimmed[hashes..].trim().trim_end_matches('#').trim());
            let mut candidate = base.clone();
            let mut counter = 0;
            while out.contains(&candidate) {
                counter += 1;
                candidate = format!("{base}-{counter}");
            }
            out.insert(candidate);
        }
        for attribute in ["id=\"", "name=\""] {
            for (at, _) in line.match_indices(attribute) {
                let value = &line[at + attribute.len()..];
                if let Some(end) = value.find('"') {
                    out.insert(value[..end].to_string());
                }
            }
        }
    }
    out
}

/// A heading's anchor, as GitHub and mdBook derive it: the text as rendered (code
/// spans' text, a link's text, no emphasis markers), lowercased, whitespace turned
/// into `-`, every character but letters, digits, `-` and `_` dropped.
fn slug(heading: &str) -> String {
    let mut rendered = String::new();
    let mut rest = heading;
    // A link renders as its text.
    while let Some(open) = rest.find('[') {
        rendered.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match after
            .find("](")
            .and_then(|mid| closing_paren(&after[mid + 2..]).map(|end| (mid, mid + 2 + end + 1)))
        {
            Some((mid, end)) => {
                rendered.push_str(&after[..mid]);
                rest = &after[end..];
            }
            None => {
                rendered.push('[');
                rest = after;
            }
        }
    }
    rendered.push_str(rest);
    rendered
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                Some(c)
            } else if c.is_whitespace() {
                Some('-')
            } else {
                None
            }
        })
        .collect()
}

#[test]
fn slugs_are_githubs_and_mdbooks() {
    assert_eq!(slug("`tether check`"), "tether-check");
    assert_eq!(
        slug("Versions in comments: `stale-version-reference`"),
        "versions-in-comments-stale-version-reference"
    );
    assert_eq!(slug("Hello, world! (a_b) 2.0"), "hello-world-a_b-20");
    assert_eq!(slug("See [the rules](rules.md) here"), "see-the-rules-here");
    assert_eq!(slug("**Bold** words"), "bold-words");
    let page = "# A\n\n## A\n\n```sh\n# not a heading\n```\n\n<a id=\"x\"></a>\n";
    let found = anchors(page);
    assert!(found.contains("a") && found.contains("a-1") && found.contains("x"));
    assert!(!found.contains("not-a-heading"));
}

#[test]
fn links_are_found_outside_code_only() {
    let text = "A [link](a.md#b) and `[code](no.md)`, ``x `[y](no.md)` z``\n\
                <!-- [hidden](no.md) -->\n\
                ```md\n[fenced](no.md)\n```\n\
                [ref]: <c.md>\n![image](d.png \"title\")\n\
                `wrapped\n[code](no.md)`\n";
    let targets: Vec<String> = links(text).into_iter().map(|(_, t)| t).collect();
    assert_eq!(targets, ["a.md#b", "c.md", "d.png"]);
}

/// One runnable block: where it is, what the marker expects, its commands.
struct Example {
    at: String,
    exit: i32,
    commands: Vec<(String, Option<String>)>,
}

/// The blocks of `page` marked `<!-- runs -->` or `<!-- runs: exit N -->`.
fn examples(page: &Path) -> Vec<Example> {
    let text = read(page);
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut index = 0;
    while index < lines.len() {
        let line = lines[index].trim();
        let Some(marker) = line
            .strip_prefix("<!-- runs")
            .and_then(|rest| rest.strip_suffix("-->"))
        else {
            index += 1;
            continue;
        };
        let at = format!("{}:{}", page.display(), index + 1);
        let exit = match marker.trim() {
            "" => 0,
            other => other
                .strip_prefix(": exit ")
                .and_then(|code| code.trim().parse().ok())
                .unwrap_or_else(|| {
                    panic!("{at}: write `<!-- runs -->` or `<!-- runs: exit N -->`")
                }),
        };
        let opening = lines
            .get(index + 1)
            .map(|line| line.trim())
            .unwrap_or_default();
        let fence = fence_opening(opening).unwrap_or_else(|| {
            panic!("{at}: a `<!-- runs -->` marker must stand right above a fenced block")
        });
        let language = opening[fence.len()..].trim();
        let mut body = Vec::new();
        index += 2;
        while index < lines.len() && lines[index].trim() != fence {
            body.push(lines[index]);
            index += 1;
        }
        let commands = match language {
            "sh" => shell_commands(&body),
            "console" => console_commands(&body),
            other => panic!("{at}: a runnable block is `sh` or `console`, not {other:?}"),
        };
        assert!(
            !commands.is_empty(),
            "{at}: the runnable block has no command"
        );
        out.push(Example { at, exit, commands });
    }
    out
}

/// Each line of an `sh` block (`\` continuations joined, blank lines and comments
/// left out) is a command whose output is not shown.
fn shell_commands(body: &[&str]) -> Vec<(String, Option<String>)> {
    let mut commands = Vec::new();
    let mut pending = String::new();
    for line in body {
        if let Some(start) = line.strip_suffix('\\') {
            pending.push_str(start);
            continue;
        }
        pending.push_str(line);
        let command = std::mem::take(&mut pending);
        if !command.trim().is_empty() && !command.trim_start().starts_with('#') {
            commands.push((command, None));
        }
    }
    commands
}

/// In a `console` block each `$ ` line is a command, and the lines up to the next one
/// its output, when there are any.
fn console_commands(body: &[&str]) -> Vec<(String, Option<String>)> {
    let mut commands: Vec<(String, Vec<&str>)> = Vec::new();
    for line in body {
        match line.strip_prefix("$ ") {
            Some(command) => commands.push((command.to_string(), Vec::new())),
            None => match commands.last_mut() {
                Some((_, output)) => output.push(line),
                None => panic!("a console block starts with a `$ ` line, not {line:?}"),
            },
        }
    }
    commands
        .into_iter()
        .map(|(command, output)| {
            let shown = output.join("\n");
            let shown = shown.trim_end();
            (command, (!shown.is_empty()).then(|| shown.to_string()))
        })
        .collect()
}

/// The folders the examples name, copied into a fresh folder (as from the
/// repository's root), so that an example neither writes into the checkout nor reads
/// what another test is writing there. Caches are left out, and a file that vanishes
/// while it is copied (another test's cache being replaced) is skipped.
fn copy_of_the_checkout() -> tempfile::TempDir {
    fn copy(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap().flatten() {
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let target = to.join(entry.file_name());
            if kind.is_dir() && entry.file_name() != ".tether_cache" {
                copy(&entry.path(), &target);
            } else if kind.is_file() {
                match std::fs::copy(entry.path(), &target) {
                    Ok(_) => {}
                    Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
                    Err(error) => panic!("{}: {error}", entry.path().display()),
                }
            }
        }
    }
    let dir = tempfile::tempdir().unwrap();
    for folder in EXAMPLE_FOLDERS {
        copy(&repo().join(folder), &dir.path().join(folder));
    }
    dir
}

/// What the runnable examples may name, relative to the repository's root.
const EXAMPLE_FOLDERS: [&str; 2] = ["examples", "tests/fixtures"];

#[test]
fn the_examples_marked_runnable_run() {
    let tether = Path::new(env!("CARGO_BIN_EXE_tether"));
    let bin = tether.parent().unwrap();
    let path = std::env::join_paths(std::iter::once(bin.to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    let mut pages = vec![PathBuf::from("README.md")];
    pages.extend(book_pages());
    let mut failures = Vec::new();
    let mut ran = 0;
    for page in &pages {
        for example in examples(page) {
            let checkout = copy_of_the_checkout();
            for (command, shown) in &example.commands {
                ran += 1;
                let output = Command::new("sh")
                    .arg("-c")
                    .arg(format!("exec 2>&1\n{command}"))
                    .current_dir(checkout.path())
                    .env("PATH", &path)
                    .env("NO_COLOR", "1")
                    .env_remove("FORCE_COLOR")
                    .env_remove("CLICOLOR_FORCE")
                    .env_remove("GITHUB_WORKSPACE")
                    .output()
                    .unwrap();
                let said = String::from_utf8_lossy(&output.stdout);
                let code = output.status.code().unwrap_or(-1);
                if code != example.exit {
                    failures.push(format!(
                        "{}: `{command}` exited {code}, the page expects {}:\n{said}",
                        example.at, example.exit
                    ));
                } else if let Some(shown) = shown {
                    if said.trim_end() != shown {
                        failures.push(format!(
                            "{}: `{command}` printed\n{said}\nwhere the page shows\n{shown}",
                            example.at
                        ));
                    }
                }
            }
        }
    }
    assert!(
        !examples(Path::new("README.md")).is_empty(),
        "README.md has no example marked `<!-- runs -->`"
    );
    eprintln!("ran {ran} commands of the docs' examples");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
