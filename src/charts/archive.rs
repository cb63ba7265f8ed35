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
                "larger than {} MiB, more than a chart archive needs",
                MAX_COMPRESSED >> 20
            ));
        }
        Ok(Archive::from_bytes(&bytes))
    }

    /// Unpacks gzip-compressed tar bytes in memory.
    pub fn from_bytes(bytes: &[u8]) -> Archive {
        let decoder = flate2::read::GzDecoder::new(bytes);
        // The bound applies to what the decoder yields, whatever the headers claim.
        let mut tar = tar::Archive::new(decoder.take(MAX_UNPACKED + 1));
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
            if !inside || size > MAX_ENTRY {
                continue;
            }
            total += size;
            if total > MAX_UNPACKED {
                archive.incomplete =
                    Some(format!("unpacks to more than {} MiB", MAX_UNPACKED >> 20));
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

    /// The chart folders of the archive: each folder holding a `Chart.yaml` at the
    /// top (`common/`), as `helm package` lays them out.
    pub fn top_charts(&self) -> Vec<String> {
        self.files
            .iter()
            .filter_map(|(name, _)| {
                let (folder, file) = name.split_once('/')?;
                (file == "Chart.yaml").then(|| format!("{folder}/"))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tgz(files: &[(&str, &[u8])]) -> Vec<u8> {
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

    #[test]
    fn reads_files_in_memory() {
        let bytes = tgz(&[
            ("common/Chart.yaml", b"name: common\n"),
            ("common/templates/_n.tpl", b"{{ define \"n\" }}{{ end }}"),
        ]);
        let archive = Archive::from_bytes(&bytes);
        assert_eq!(archive.top_charts(), ["common/"]);
        assert_eq!(
            archive.get("common/Chart.yaml"),
            Some(&b"name: common\n"[..])
        );
        assert!(archive.incomplete.is_none());
    }

    /// A gzip bomb stops at the bound, and says so.
    #[test]
    fn a_bomb_is_bounded() {
        let big = vec![0u8; (MAX_ENTRY - 1) as usize];
        let files: Vec<(String, &[u8])> = (0..20)
            .map(|index| (format!("c/files/{index}"), big.as_slice()))
            .collect();
        let named: Vec<(&str, &[u8])> = files.iter().map(|(n, c)| (n.as_str(), *c)).collect();
        let archive = Archive::from_bytes(&tgz(&named));
        assert!(archive.incomplete.is_some());
        let kept: usize = archive.files.iter().map(|(_, content)| content.len()).sum();
        assert!(kept as u64 <= MAX_UNPACKED);
    }

    #[test]
    fn garbage_is_no_archive() {
        let archive = Archive::from_bytes(b"not gzip at all");
        assert!(archive.files.is_empty());
    }
}
