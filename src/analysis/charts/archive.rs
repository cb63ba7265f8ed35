//! A chart archive (`charts/common-2.1.0.tgz`, left by `helm dependency build`) read
//! in memory: never unpacked to disk, bounded in compressed and unpacked size, in
//! entries and in nesting, like every other input.

use std::io::Read;
use std::path::Path;

/// An archive larger than this on disk is not read (Bitnami's largest charts pack to
/// under 200 KiB).
const MAX_COMPRESSED: usize = 16 * 1024 * 1024;
/// What one archive may unpack to, all entries together; a gzip bomb stops here.
const MAX_UNPACKED: u64 = 64 * 1024 * 1024;
/// And at most this many times its compressed size (plus [`UNPACKED_SLACK`]):
/// chart archives are text and unpack to a few times their size, a bomb to a
/// thousand.
const MAX_RATIO: u64 = 100;
const UNPACKED_SLACK: u64 = 1024 * 1024;
/// One entry larger than this is skipped (a template, a values file or a nested
/// archive is far smaller).
const MAX_ENTRY: u64 = 4 * 1024 * 1024;
/// Entries read from one archive.
const MAX_ENTRIES: usize = 20_000;

/// The files of an archive, by their path inside it (`common/templates/_names.tpl`),
/// sorted: regular files only, nothing with `..` or an absolute path.
#[derive(Debug, Default)]
pub struct Archive {
    pub files: Vec<(String, Vec<u8>)>,
    /// Why reading stopped early, when it did (a bound hit, a corrupt stream): the
    /// files read so far are kept, and the analysis says the chart is partial.
    pub incomplete: Option<String>,
}

impl Archive {
    /// Reads the `.tgz` at `path` (a regular file, never through a link).
    pub fn read(path: &Path) -> Result<Archive, String> {
        let bytes =
            crate::source::read_regular(path, MAX_COMPRESSED).map_err(|error| error.to_string())?;
        if bytes.len() > MAX_COMPRESSED {
            return Err(format!(
                "it is larger than {} MiB, more than a chart archive needs",
                MAX_COMPRESSED >> 20
            ));
        }
        Ok(Archive::from_bytes(&bytes))
    }

    /// Unpacks gzip-compressed tar bytes in memory.
    pub fn from_bytes(bytes: &[u8]) -> Archive {
        if !bytes.starts_with(&[0x1f, 0x8b]) {
            return Archive {
                files: Vec::new(),
                incomplete: Some("it is not a gzip-compressed tar archive (no gzip header)".into()),
            };
        }
        let decoder = flate2::read::GzDecoder::new(bytes);
        let limit = MAX_UNPACKED.min(bytes.len() as u64 * MAX_RATIO + UNPACKED_SLACK);
        // The bound applies to what the decoder yields, whatever the headers claim.
        let mut tar = tar::Archive::new(decoder.take(limit + 1));
        let mut archive = Archive::default();
        let entries = match tar.entries() {
            Ok(entries) => entries,
            Err(error) => {
                archive.incomplete = Some(format!("not a gzip-compressed tar archive: {error}"));
                return archive;
            }
        };
        let mut total = 0u64;
        for entry in entries {
            let mut entry = match entry {
                Ok(entry) => entry,
                Err(error) => {
                    archive.incomplete = Some(format!("a corrupt entry: {error}"));
                    break;
                }
            };
            if archive.files.len() >= MAX_ENTRIES {
                archive.incomplete = Some(format!("more than {MAX_ENTRIES} entries"));
                break;
            }
            if !entry.header().entry_type().is_file() {
                continue;
            }
            let Ok(name) = entry.path().map(|path| path.to_string_lossy().into_owned()) else {
                continue;
            };
            let inside = Path::new(&name)
                .components()
                .all(|component| matches!(component, std::path::Component::Normal(_)));
            let size = entry.header().size().unwrap_or(u64::MAX);
            if !inside {
                continue;
            }
            if size > MAX_ENTRY {
                archive.incomplete = Some(format!("{name} is larger than {} MiB", MAX_ENTRY >> 20));
                continue;
            }
            total += size;
            if total > limit {
                archive.incomplete = Some(format!(
                    "unpacks to more than {} KiB, {MAX_RATIO} times its size",
                    limit >> 10
                ));
                break;
            }
            let mut content = Vec::with_capacity(size as usize);
            if let Err(error) = entry.by_ref().take(MAX_ENTRY).read_to_end(&mut content) {
                archive.incomplete = Some(format!("{name}: {error}"));
                break;
            }
            archive.files.push((name, content));
        }
        archive.files.sort_by(|a, b| a.0.cmp(&b.0));
        archive
            .files
            .dedup_by(|later, earlier| later.0 == earlier.0);
        archive
    }

    /// The file at `path` inside the archive.
    pub fn get(&self, path: &str) -> Option<&[u8]> {
        self.files
            .binary_search_by(|(name, _)| name.as_str().cmp(path))
            .ok()
            .map(|at| self.files[at].1.as_slice())
    }
}

/// A `.tgz` of `files`, as `helm package` writes a chart: for the tests.
#[cfg(test)]
pub(super) fn tgz(files: &[(&str, &[u8])]) -> Vec<u8> {
    let mut builder = tar::Builder::new(Vec::new());
    for (name, content) in files {
        let mut header = tar::Header::new_gnu();
        header.set_size(content.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        builder.append_data(&mut header, name, *content).unwrap();
    }
    let tar = builder.into_inner().unwrap();
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut encoder, &tar).unwrap();
    encoder.finish().unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_files_in_memory() {
        let bytes = tgz(&[
            ("common/Chart.yaml", b"name: common\n"),
            ("common/templates/_n.tpl", b"{{ define \"n\" }}{{ end }}"),
        ]);
        let archive = Archive::from_bytes(&bytes);
        assert_eq!(
            archive.get("common/Chart.yaml"),
            Some(&b"name: common\n"[..])
        );
        assert!(archive.get("common/templates/_n.tpl").is_some());
        assert!(archive.incomplete.is_none());
    }

    /// Entries that climb out (`../x`) or are absolute are never kept: the archive
    /// is never unpacked, and its names never reach a path on disk.
    #[test]
    fn entries_outside_the_archive_are_dropped() {
        let mut builder = tar::Builder::new(Vec::new());
        for name in ["c/Chart.yaml", "c/../../etc/passwd", "/etc/shadow"] {
            let mut header = tar::Header::new_gnu();
            header.set_size(1);
            header.set_mode(0o644);
            // Written raw: the builder refuses such names itself.
            header.as_old_mut().name[..name.len()].copy_from_slice(name.as_bytes());
            header.set_cksum();
            builder.append(&header, &b"x"[..]).unwrap();
        }
        let tar = builder.into_inner().unwrap();
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut encoder, &tar).unwrap();
        let archive = Archive::from_bytes(&encoder.finish().unwrap());
        let names: Vec<&str> = archive
            .files
            .iter()
            .map(|(name, _)| name.as_str())
            .collect();
        assert_eq!(names, ["c/Chart.yaml"]);
    }

    /// A gzip bomb stops at the bound, relative to its compressed size, and says
    /// so: memory stays within a constant times the input's bytes.
    #[test]
    fn a_bomb_is_bounded() {
        let big = vec![0u8; (MAX_ENTRY - 1) as usize];
        let files: Vec<(String, &[u8])> = (0..20)
            .map(|index| (format!("c/files/{index}"), big.as_slice()))
            .collect();
        let named: Vec<(&str, &[u8])> = files.iter().map(|(n, c)| (n.as_str(), *c)).collect();
        let bytes = tgz(&named);
        let archive = Archive::from_bytes(&bytes);
        assert!(archive.incomplete.is_some());
        let kept: u64 = archive
            .files
            .iter()
            .map(|(_, content)| content.len() as u64)
            .sum();
        assert!(
            kept <= bytes.len() as u64 * MAX_RATIO + UNPACKED_SLACK,
            "{kept} from {}",
            bytes.len()
        );
    }

    #[test]
    fn garbage_is_no_archive() {
        let archive = Archive::from_bytes(b"not gzip at all");
        assert!(archive.files.is_empty());
        assert!(
            archive
                .incomplete
                .is_some_and(|why| why.starts_with("it is not a gzip-compressed tar archive")),
        );
    }
}
