//! Scanning a chart's own files into its [`Scan`]: what each template, and each
//! file a template renders through `.Files`, reads, calls and defines.

use crate::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, PoisonError};

use std::path::PathBuf;

use super::{Call, Chart, Define, FileScan, Location, Read, ReadsMemo, Scan, TemplateRead, Texts};
use crate::cache_key::CacheKey;
use crate::template::lex::Lexed;
use crate::template::reads::{Opacity, Reads, Use};

/// What this process made of the chart in each folder, for the tests that hold a
/// cached run to lexing and parsing nothing of an unchanged chart.
#[cfg(feature = "internals")]
static WORK: std::sync::Mutex<Option<HashMap<PathBuf, ChartWork>>> = std::sync::Mutex::new(None);

/// How many times a chart's templates were lexed ([`Chart::scan`]) and its
/// `values.yaml` parsed.
#[cfg(feature = "internals")]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct ChartWork {
    pub scans: usize,
    pub values_parsed: usize,
}

/// Counts work done on the chart in the folder `root`.
#[cfg(feature = "internals")]
pub(super) fn count_work(root: &Path, count: impl FnOnce(&mut ChartWork)) {
    let mut work = WORK.lock().unwrap_or_else(PoisonError::into_inner);
    count(
        work.get_or_insert_default()
            .entry(root.to_path_buf())
            .or_default(),
    );
}

/// What this process made so far of the chart in the folder `root`.
#[cfg(feature = "internals")]
pub fn chart_work(root: &Path) -> ChartWork {
    let work = WORK.lock().unwrap_or_else(PoisonError::into_inner);
    work.as_ref()
        .and_then(|work| work.get(root).copied())
        .unwrap_or_default()
}

/// Why a file the scan lexes is not read: its bytes changed, or it went, between
/// the chart's read and its scan.
const CHANGED: &str = "changed while tether read it";

impl Chart {
    /// What the chart's own files read and define, read on first use.
    pub fn scan(&self) -> &Scan {
        self.scan.get_or_init(|| self.read_files())
    }

    /// The chart's own files as read, not lexed: read on first use.
    pub(super) fn texts(&self) -> &Texts {
        self.texts.get_or_init(|| self.read_texts())
    }

    /// Over the names and bytes of the chart's own files tether reads (its
    /// templates, and the files a template may render through `.Files`): whether
    /// they changed, without lexing any.
    pub(super) fn files_content(&self) -> u64 {
        self.texts().content
    }

    /// Reads the chart's templates, and the other files when a template names
    /// `.Files`, without lexing them. With an editor's `memo`, a template on disk
    /// whose stamp did not change since it was read is taken from the memo unread.
    fn read_texts(&self) -> Texts {
        let mut texts = Texts::default();
        let mut kept = HashMap::default();
        let super::ChartFiles {
            templates,
            others,
            unreadable,
        } = self.files();
        // Over the names and bytes of the files read, in listing order; what could
        // not be read or listed, and the links under `charts/`, by name and why
        // (they make the chart partial, or its define index incomplete).
        let mut content = CacheKey::new("chart-files");
        for (path, why) in unreadable {
            content.add_bytes("unlisted", path.as_os_str().as_encoded_bytes());
            content.add_bytes("why", why.as_bytes());
        }
        texts.links = self.add_links(&mut content);
        let memo = self.charts.upgrade().and_then(|charts| charts.memo.clone());
        for file in templates {
            let Some(read) = self.read_template(file, memo.as_deref(), &mut kept) else {
                continue;
            };
            content.add_bytes("template", file.as_os_str().as_encoded_bytes());
            match &read {
                TemplateRead::Text(hash) | TemplateRead::Memo(hash, _) => {
                    content.add("bytes", *hash);
                }
                TemplateRead::Unreadable(why) => content.add_bytes("why", why.as_bytes()),
            }
            texts.uses_files |= match &read {
                TemplateRead::Text(_) => kept
                    .get(file)
                    .is_some_and(|(text, _): &(String, u64)| uses_files(text)),
                TemplateRead::Memo(_, found) => found.uses_files,
                TemplateRead::Unreadable(_) => false,
            };
            texts.templates.push((file.clone(), read));
        }
        // Files outside `templates/` are rendered only through `.Files`: read them
        // only when a template uses it.
        if texts.uses_files {
            for file in others {
                if let Some((text, hash)) = self.text_of(file) {
                    content.add_bytes("file", file.as_os_str().as_encoded_bytes());
                    content.add("bytes", hash);
                    texts.others.push((file.clone(), hash));
                    kept.insert(file.clone(), (text, hash));
                }
            }
        }
        texts.content = content.finish();
        *texts
            .texts
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner) = kept;
        texts
    }

    /// The names of the links under the chart folder's `charts/`, which the define
    /// index says it does not follow and no dependency records, added to
    /// `content` with why the folder could not be listed.
    fn add_links(&self, content: &mut CacheKey) -> Vec<String> {
        let Location::Folder(root) = &self.location else {
            return Vec::new();
        };
        let entries = match super::charts_folder(root) {
            Ok(entries) => entries,
            Err(why) => {
                content.add_bytes("charts", why.as_bytes());
                return Vec::new();
            }
        };
        let mut links = Vec::new();
        for entry in entries {
            if entry.file_type().is_ok_and(|kind| kind.is_symlink()) {
                content.add_bytes("link", entry.file_name().as_encoded_bytes());
                links.push(entry.file_name().to_string_lossy().into_owned());
            }
        }
        links
    }

    /// The names of the links under the chart folder's `charts/`.
    pub(super) fn links(&self) -> &[String] {
        &self.texts().links
    }

    /// Reads one template of the chart, its text into `kept`. `None` when it is
    /// not there.
    fn read_template(
        &self,
        file: &Path,
        memo: Option<&ReadsMemo>,
        kept: &mut HashMap<PathBuf, (String, u64)>,
    ) -> Option<TemplateRead> {
        let on_disk = matches!(self.location, Location::Folder(_))
            && self
                .overlay
                .as_ref()
                .is_none_or(|overlay| !overlay.contains_key(file));
        let unchanged = memo.filter(|_| on_disk).and_then(|memo| {
            let hash = memo.stamps.hash_of(file)?;
            Some((hash, memo.files.get(file, hash)?))
        });
        if let Some((hash, found)) = unchanged {
            return Some(TemplateRead::Memo(hash, found));
        }
        let read = match memo.filter(|_| on_disk) {
            Some(memo) => {
                let limit = super::MAX_FILE_BYTES as usize;
                let (read, metadata) = Read::in_folder_with_metadata(file, &self.boundary, limit);
                if let (Read::Text(_, hash), Some(metadata)) = (&read, metadata) {
                    memo.stamps.keep(file, &metadata, *hash);
                }
                read
            }
            None => self.read_file(file),
        };
        match read {
            Read::Text(text, hash) => {
                kept.insert(file.to_path_buf(), (text, hash));
                Some(TemplateRead::Text(hash))
            }
            Read::Absent => None,
            // A template tether cannot read may read any value: the limit is
            // said, never taken for "reads nothing".
            Read::Unreadable(why) => Some(TemplateRead::Unreadable(why)),
        }
    }

    /// What the chart's files read and define: the conditions and tags of its
    /// dependencies, the `tpl` strings of `values.yaml`, every template, and the
    /// other files when a template uses `.Files`. Each file's text is lexed here,
    /// and left for its check to take.
    fn read_files(&self) -> Scan {
        #[cfg(feature = "internals")]
        count_work(&self.root, |work| work.scans += 1);
        let mut scan = Scan::default();
        for dependency in &self.manifest.dependencies {
            scan.conditions.extend(
                dependency
                    .conditions
                    .iter()
                    .map(|path| (path.clone(), Use::Touch)),
            );
            scan.conditions.extend(
                dependency
                    .tags
                    .iter()
                    .map(|tag| (vec!["tags".to_string(), tag.clone()], Use::Touch)),
            );
        }
        // `tpl` strings of values.yaml read values too.
        let values = self.root.join("values.yaml");
        let values_scan = FileScan::of(&values, "", self.values_read().reads.clone());
        self.add_file(&values, Arc::new(values_scan), &mut scan);
        let texts = self.texts();
        scan.has_templates = !self.files().templates.is_empty();
        let memo = self.charts.upgrade().and_then(|charts| charts.memo.clone());
        for (file, read) in &texts.templates {
            match read {
                TemplateRead::Text(hash) => {
                    self.scan_template(file, *hash, memo.as_deref(), &mut scan);
                }
                TemplateRead::Memo(hash, found) => {
                    self.add_template(file, (*hash, found.clone()), &mut scan);
                }
                TemplateRead::Unreadable(why) => self.unreadable_template(file, why, &mut scan),
            }
        }
        // A folder tether cannot list may hold files that read any value (a
        // template, or outside `templates/` one a template renders through
        // `.Files`): the limit is said, never taken for "reads nothing".
        let templates = self.root.join("templates");
        for (folder, why) in &self.files().unreadable {
            if texts.uses_files || folder.starts_with(&templates) {
                self.unreadable_template(folder, why, &mut scan);
            }
        }
        for (file, hash) in &texts.others {
            match self.scan_text(file, *hash, memo.as_deref()) {
                Some(found) => self.add_file(file, found, &mut scan),
                None => self.unreadable_template(file, CHANGED, &mut scan),
            }
        }
        // Only a chart folder's files are checked: an archive's texts go now (no
        // lexing of them was kept, `scan_text`).
        if !matches!(self.location, Location::Folder(_)) {
            texts
                .texts
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .clear();
        }
        scan
    }

    /// What the file at `path`, read into [`Texts`] with bytes hashing to `hash`,
    /// reads, calls and defines. Its text is lexed where it waits for its check,
    /// and in a chart folder the lexing waits with it (no file of an archive is
    /// checked); one taken already is read again, and `None` when that finds
    /// other bytes.
    fn scan_text(&self, path: &Path, hash: u64, memo: Option<&ReadsMemo>) -> Option<Arc<FileScan>> {
        {
            let texts = self.texts().texts.lock();
            let texts = texts.unwrap_or_else(PoisonError::into_inner);
            if let Some((text, _)) = texts.get(path) {
                let (scan, lexed) = file_scan_lexing(memo, path, text, hash);
                let checked = matches!(self.location, Location::Folder(_));
                if let Some(lexed) = lexed.filter(|_| checked) {
                    self.texts()
                        .lexed
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .insert(path.to_path_buf(), lexed);
                }
                return Some(scan);
            }
        }
        let (text, read_hash) = self.text_of(path)?;
        (read_hash == hash).then(|| file_scan(memo, path, &text, hash))
    }

    /// [`Chart::scan_text`] of a template, added to `scan`; one that changed or
    /// went while the run read it is said, and reads any value.
    fn scan_template(&self, file: &Path, hash: u64, memo: Option<&ReadsMemo>, scan: &mut Scan) {
        match self.scan_text(file, hash, memo) {
            Some(found) => self.add_template(file, (hash, found), scan),
            None => self.unreadable_template(file, CHANGED, scan),
        }
    }

    /// Adds the template `file`, whose bytes hash to `hash`, to `scan` with what it
    /// reads, calls and defines (`found`).
    fn add_template(&self, file: &Path, (hash, found): (u64, Arc<FileScan>), scan: &mut Scan) {
        scan.template_reads
            .insert(file.to_path_buf(), (hash, found.found.clone()));
        self.add_file(file, found, scan);
    }

    /// Notes in `scan` that the template (or folder of templates) `path` could not
    /// be read, and `why`: the chart is read in part, and any value may be read.
    fn unreadable_template(&self, path: &Path, why: &str, scan: &mut Scan) {
        if scan.unread_template.is_none() {
            scan.unread_template = Some(format!("{} {why}", self.shown(path)));
        }
        if scan.opaque.is_none() {
            scan.opaque = Some((
                path.to_path_buf(),
                format!("{why}, which tether does not read"),
            ));
        }
    }

    /// Adds what one file of the chart reads, calls and defines (`found`) to
    /// `scan`.
    fn add_file(&self, path: &Path, found: Arc<FileScan>, scan: &mut Scan) {
        self.note_opaque(path, &found, scan);
        for (name, define) in &found.defines {
            define_once(Arc::make_mut(&mut scan.defines), name, define);
        }
        scan.files.push(found);
    }

    /// Notes in `scan`, unless it holds one already, what the file at `path` makes
    /// of the chart's reads: unknown ([`Scan::opaque`]) for a template that reads
    /// `.Values` by a computed key or a file rendered with `tpl` that tether did not
    /// find; everything ([`Scan::everything`]) for a template that uses `.Values`
    /// whole.
    fn note_opaque(&self, path: &Path, found: &FileScan, scan: &mut Scan) {
        let in_templates = path.starts_with(self.root.join("templates"));
        // Outside `templates/`, a file is rendered only if a template hands it to
        // `tpl`: its reads count, its whole uses of `.Values` do not.
        if let (true, None, Some(line)) = (in_templates, &scan.opaque, found.computed) {
            scan.opaque = Some((
                path.to_path_buf(),
                format!("reads `.Values` by a key computed at render time at line {line}"),
            ));
        }
        if let (true, None, Some(line)) = (in_templates, &scan.everything, found.whole) {
            scan.everything = Some((
                path.to_path_buf(),
                format!("uses `.Values` whole at line {line}"),
            ));
        }
        // A file a template renders with `tpl` that is not there: what it reads
        // is unknown. Read as data, it reads nothing.
        for name in &found.rendered {
            let inside = Path::new(name)
                .components()
                .all(|component| matches!(component, std::path::Component::Normal(_)));
            if inside && scan.opaque.is_none() && !self.has_file(&self.root.join(name)) {
                scan.opaque = Some((
                    path.to_path_buf(),
                    format!("renders `{name}` with `tpl`, and tether did not find that file"),
                ));
            }
        }
    }

    /// The text of the file at `path` as the chart was read from it (its
    /// `Chart.yaml`, its `values.yaml`, a template its scan read), with the hash of
    /// its bytes, handed over once (the check takes it instead of reading and
    /// hashing the file again); `None` when the chart did not read it, or it was
    /// taken. With it, its lexing when the chart's scan lexed it where it waited:
    /// the check masks it from that, not lexing it again.
    pub fn take_text(&self, path: &Path) -> Option<(String, u64, Option<Lexed>)> {
        // The text first: a scan lexes a text only while it waits, and keeps its
        // lexing before it lets the texts go, so the lexing is there once the text
        // is taken, and none comes after.
        let (text, hash) = self.with_texts(self.texts.get(), |texts| texts.remove(path))?;
        let lexed = self.texts.get().and_then(|texts| {
            let mut waiting = texts.lexed.lock().unwrap_or_else(PoisonError::into_inner);
            waiting.remove(path)
        });
        Some((text, hash, lexed))
    }

    /// `find` in the texts the chart holds: those read with it (`Chart.yaml`,
    /// `values.yaml`), then those of its files (`texts`, once read). Each lock is
    /// let go before the next is taken.
    fn with_texts<R>(
        &self,
        texts: Option<&Texts>,
        find: impl Fn(&mut HashMap<PathBuf, (String, u64)>) -> Option<R>,
    ) -> Option<R> {
        let found = find(&mut self.handed.lock().unwrap_or_else(PoisonError::into_inner));
        if found.is_some() {
            return found;
        }
        find(&mut texts?.texts.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// [`Chart::take_text`] of a file to be checked, once the chart has made what
    /// it needs of its files (its scan lexes the templates where they wait, its
    /// values are parsed): an analysis the check asks for must not read them again.
    pub fn take_checked_text(&self, path: &Path) -> Option<(String, u64, Option<Lexed>)> {
        self.scan();
        let _ = self.values_read();
        self.take_text(path)
    }

    /// A copy of the text [`Chart::take_text`] would hand over, left with the
    /// chart (a cached result's excerpt needs the text; a later analysis may too).
    pub fn copy_text(&self, path: &Path) -> Option<(String, u64)> {
        self.with_texts(self.texts.get(), |texts| texts.get(path).cloned())
    }

    /// The hash of the bytes of the file at `path` as the chart read them (its
    /// `Chart.yaml`, its `values.yaml`, one of its templates or the files they
    /// render), its text left for [`Chart::take_text`]; `None` when the chart did
    /// not read it, or it was taken. A template's chart reads its templates first,
    /// without lexing them.
    pub fn text_hash(&self, path: &Path, template: bool) -> Option<u64> {
        let texts = match template {
            true => Some(self.texts()),
            false => self.texts.get(),
        };
        self.with_texts(texts, |texts| texts.get(path).map(|(_, hash)| *hash))
    }

    /// What the template at `path` reads, in `text`, whose bytes hash to `hash`:
    /// from an editor's memo when the chart is not scanned yet (a keystroke's
    /// check of its template needs no scan of the chart's other templates for
    /// it), else as the scan found it; `None` when the scan read other bytes (or
    /// none).
    pub fn template_reads(&self, path: &Path, text: &str, hash: u64) -> Option<Arc<Reads>> {
        if self.scan.get().is_none() {
            if let Some(memo) = self.charts.upgrade().and_then(|charts| charts.memo.clone()) {
                return Some(file_scan(Some(&memo), path, text, hash).found.clone());
            }
        }
        let (found_in, found) = self.scan().template_reads.get(path)?;
        (*found_in == hash).then(|| found.clone())
    }
}

/// What the file at `path` with `text` (whose bytes hash to `hash`) adds to its
/// chart's scan: from the editor's `memo` when it made it for these bytes.
fn file_scan(memo: Option<&ReadsMemo>, path: &Path, text: &str, hash: u64) -> Arc<FileScan> {
    file_scan_lexing(memo, path, text, hash).0
}

/// [`file_scan`], with the text's lexing when it lexed the text here (not from the
/// memo, and the text has an action): the file's check masks the text from it.
fn file_scan_lexing(
    memo: Option<&ReadsMemo>,
    path: &Path,
    text: &str,
    hash: u64,
) -> (Arc<FileScan>, Option<Lexed>) {
    match memo {
        Some(memo) => {
            let scan = || FileScan::of(path, text, Arc::new(lex_reads(text)));
            (memo.file(path, hash, scan), None)
        }
        None => {
            let (reads, lexed) = reads_lexing(text);
            (Arc::new(FileScan::of(path, text, Arc::new(reads))), lexed)
        }
    }
}

impl FileScan {
    /// What the file at `path` with `text` adds to its chart's scan, from what the
    /// lexer `found` it read: each read and call also in the define it is in.
    fn of(path: &Path, text: &str, found: Arc<Reads>) -> FileScan {
        let mut defines: Vec<Define> = found.defines.iter().map(|_| Define::default()).collect();
        let mut reads = Vec::with_capacity(found.reads.len());
        for read in &found.reads {
            let entry = (read.path.clone(), read.use_);
            if let Some(define) = define_at(&mut defines, read.define) {
                define.reads.push(entry.clone());
            }
            reads.push(entry);
        }
        for read in &found.handed {
            if let Some(define) = define_at(&mut defines, read.define) {
                define.handed.push((read.path.clone(), read.use_));
            }
        }
        let mut calls = Vec::with_capacity(found.includes.len());
        for include in &found.includes {
            let call = Call {
                name: include.name.clone(),
                root: include.root,
                literals: include.literals.clone(),
                argument: include.argument.clone(),
            };
            if let Some(define) = define_at(&mut defines, include.define) {
                define.calls.push(call.clone());
            }
            calls.push(call);
        }
        for used in &found.opaque_uses {
            if used.kind == Opacity::Whole {
                if let Some(define) = define_at(&mut defines, used.define) {
                    let line = line_of(text, used.offset);
                    define.whole.get_or_insert((path.to_path_buf(), line));
                }
            }
        }
        for &at in &found.sets_values {
            if let Some(define) = define_at(&mut defines, at) {
                define.sets_values = true;
            }
        }
        // Templates read the same values in many places: keep each once.
        reads.sort_unstable();
        reads.dedup();
        let first = |kind: Opacity| {
            found
                .opaque_uses
                .iter()
                .filter(|used| used.kind == kind)
                .map(|used| used.offset)
                .min()
                .map(|offset| line_of(text, offset))
        };
        FileScan {
            reads,
            calls,
            defines: found
                .defines
                .iter()
                .cloned()
                .zip(defines.into_iter().map(Arc::new))
                .collect(),
            computed: first(Opacity::Computed),
            whole: first(Opacity::Whole),
            rendered: found.rendered.clone(),
            uses_files: uses_files(text),
            found,
        }
    }
}

impl Scan {
    /// Every read of every file of the chart (templates and their defines, the
    /// files a template renders through `.Files`, the `tpl` strings of
    /// `values.yaml`), with the conditions of `Chart.yaml`; the same read may come
    /// more than once.
    pub fn reads(&self) -> impl Iterator<Item = &(Vec<String>, Use)> {
        self.conditions
            .iter()
            .chain(self.files.iter().flat_map(|file| file.reads.iter()))
    }

    /// Every call of a named template in the chart's files.
    pub(super) fn calls(&self) -> impl Iterator<Item = &Call> {
        self.files.iter().flat_map(|file| file.calls.iter())
    }
}

/// The define a read or call is in, by its index in the file.
fn define_at(defines: &mut [Define], at: Option<u32>) -> Option<&mut Define> {
    defines.get_mut(at? as usize)
}

/// The 1-based line of `offset` in `text`.
fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

/// Keeps the first define of a name, as Helm keeps one template per name (the
/// later file wins there; which one is rarely meant, both are read here).
fn define_once(defines: &mut HashMap<String, Arc<Define>>, name: &str, define: &Arc<Define>) {
    match defines.get_mut(name) {
        Some(existing) => {
            let existing = Arc::make_mut(existing);
            existing.reads.extend(define.reads.iter().cloned());
            existing.calls.extend(define.calls.iter().cloned());
            existing.whole = existing.whole.take().or_else(|| define.whole.clone());
            existing.sets_values |= define.sets_values;
        }
        None => {
            defines.insert(name.to_string(), define.clone());
        }
    }
}

/// Whether a template's `text` may render other files of its chart: it names
/// `.Files`.
fn uses_files(text: &str) -> bool {
    crate::template::lex::contains(text, ".Files")
}

/// The reads of a file's text.
pub(super) fn lex_reads(text: &str) -> Reads {
    reads_lexing(text).0
}

/// The reads of a file's text, and its lexing when it has an action.
fn reads_lexing(text: &str) -> (Reads, Option<Lexed>) {
    if !crate::template::lex::contains(text, "{{") {
        return (Reads::default(), None);
    }
    let lexed = crate::template::lex::lex(text);
    (crate::template::reads::reads(text, &lexed.0), Some(lexed))
}
