//! Fingerprints of trees: a stamp of every entry, taken without opening any, and
//! which paths differ between two fingerprints.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::manifest::{Listed, TreeManifest};

/// What the fingerprint keeps of one entry: enough to see any write, without opening
/// it (a FIFO or a device is never read).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    /// The file type bits and permissions (`st_mode`).
    mode: u32,
    size: u64,
    /// Modification time in nanoseconds; not kept for folders, whose times change
    /// when an entry inside does (and that entry is seen itself).
    modified: i128,
    /// Change time: any write or mode change moves it, and no command can set it.
    changed: i128,
    inode: u64,
    /// Owner and group, as `chown` sets them.
    owner: (u32, u32),
    /// Names of the entry: a file that became a hard link to one outside has two.
    links: u64,
    /// A hash of the extended attributes' names and values (0: none, or unreadable).
    xattrs: u64,
    /// A folder that could not be listed, or an entry whose metadata could not be
    /// read: what is inside it is not in the fingerprint.
    unread: bool,
}

impl Stamp {
    fn of(path: &Path, metadata: &std::fs::Metadata) -> Stamp {
        use std::os::unix::fs::MetadataExt;
        let is_dir = metadata.file_type().is_dir();
        Stamp {
            owner: (metadata.uid(), metadata.gid()),
            links: if is_dir { 0 } else { metadata.nlink() },
            xattrs: xattrs_hash(path),
            mode: metadata.mode(),
            size: if is_dir { 0 } else { metadata.size() },
            modified: if is_dir {
                0
            } else {
                i128::from(metadata.mtime()) * 1_000_000_000 + i128::from(metadata.mtime_nsec())
            },
            changed: if is_dir {
                0
            } else {
                i128::from(metadata.ctime()) * 1_000_000_000 + i128::from(metadata.ctime_nsec())
            },
            inode: metadata.ino(),
            unread: false,
        }
    }

    /// The stamp of an entry that could not be read: equal only to another such.
    fn unread() -> Stamp {
        Stamp {
            mode: 0,
            size: 0,
            modified: 0,
            changed: 0,
            inode: 0,
            owner: (0, 0),
            links: 0,
            xattrs: 0,
            unread: true,
        }
    }
}

/// A fingerprint of a tree: relative path → stamp, for every entry under the root,
/// `.git` and ignored files included.
pub type Fingerprint = std::collections::HashMap<PathBuf, Stamp>;

/// Fingerprints everything under `root`, never following a symlink and never
/// opening a file: a command that writes anywhere in the repository, `.git` and
/// ignored files included, changes a stamp. A folder that cannot be listed is
/// stamped as unread ([`unread`] lists them): a change inside it is unseen, which
/// the caller says or counts as a change.
pub fn fingerprint(root: &Path) -> Fingerprint {
    let mut stamps = Fingerprint::new();
    let walked = crate::folders::walk_unsorted(root, |entry| {
        let path = entry.path();
        let Ok(relative) = path.strip_prefix(root) else {
            return crate::folders::Step::Over;
        };
        // `fstatat` on the folder's handle, never following a link: no walk of the
        // whole path per entry.
        let stamp = match entry.metadata() {
            Ok(metadata) => Stamp::of(&path, &metadata),
            Err(_) => Stamp::unread(),
        };
        stamps.insert(relative.to_path_buf(), stamp);
        crate::folders::Step::Into
    });
    for unread in walked.unread {
        if let Ok(relative) = unread.path.strip_prefix(root) {
            let stamp = stamps
                .entry(relative.to_path_buf())
                .or_insert_with(Stamp::unread);
            stamp.unread = true;
        }
    }
    stamps
}

/// The folders of a fingerprint that could not be listed (or entries not read),
/// sorted.
pub fn unread(stamps: &Fingerprint) -> Vec<PathBuf> {
    let mut unread: Vec<PathBuf> = stamps
        .iter()
        .filter(|(_, stamp)| stamp.unread)
        .map(|(path, _)| path.clone())
        .collect();
    unread.sort();
    unread
}

/// A hash of the extended attributes of the entry at `path` (never following a link):
/// their names and values; 0 when it has none or they cannot be read. One
/// `llistxattr` call for an entry without attributes.
fn xattrs_hash(path: &Path) -> u64 {
    use std::os::unix::ffi::OsStrExt;
    let Ok(name) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
        return 0;
    };
    // Buffers sized by asking first (Linux bounds a list and a value at 64 KiB), so a
    // long list or value is never cut: a change past a fixed buffer would go unseen.
    let size = match rustix::fs::llistxattr_query(&name) {
        Ok(size) if size > 0 => size,
        _ => return 0,
    };
    let mut names = vec![0u8; size.min(1 << 16)];
    // Grown since it was asked, or unreadable: which differs from none.
    let Ok(length) = rustix::fs::llistxattr(&name, &mut names[..]) else {
        return u64::MAX;
    };
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    for attribute in names[..length].split(|&byte| byte == 0) {
        if attribute.is_empty() {
            continue;
        }
        hasher.update(attribute);
        hasher.update(&[0]);
        let Ok(attribute) = std::ffi::CString::new(attribute) else {
            continue;
        };
        let wanted = rustix::fs::lgetxattr_query(&name, &attribute).unwrap_or(0);
        // Never an empty buffer: rustix then reports 0 bytes read where the value
        // grew since it was asked, which must be said (as the error below is).
        let mut value = vec![0u8; wanted.clamp(1, 1 << 16)];
        match rustix::fs::lgetxattr(&name, &attribute, &mut value[..]) {
            Ok(read) => hasher.update(&value[..read]),
            // Unreadable, or grown since asked: said in the hash (as the -1 that
            // lgetxattr returns).
            Err(_) => hasher.update(&(-1isize).to_le_bytes()),
        }
        hasher.update(&[0xff]);
    }
    hasher.digest().max(1)
}

/// The paths whose fingerprints differ: changed, created or deleted.
pub fn fingerprint_changes(before: &Fingerprint, after: &Fingerprint) -> Vec<PathBuf> {
    let mut changed: Vec<PathBuf> = before
        .iter()
        .filter(|(path, stamp)| after.get(*path) != Some(stamp))
        .map(|(path, _)| path.clone())
        .chain(
            after
                .keys()
                .filter(|path| !before.contains_key(*path))
                .cloned(),
        )
        .collect();
    changed.sort();
    changed
}

/// [`fingerprint_changes`], without the listed files whose stamp changed but whose
/// bytes still hash as the manifest says and whose modification time is the same (a
/// rewrite with the same bytes that kept its time).
pub fn tree_changes(
    manifest: &TreeManifest,
    before: &Fingerprint,
    after: &Fingerprint,
) -> Vec<PathBuf> {
    fingerprint_changes(before, after)
        .into_iter()
        .filter(|path| {
            let Some(Listed::File { hash, .. }) = manifest.entries.get(path) else {
                return true;
            };
            // Same bytes count as unchanged only if nothing git, make or a later
            // write would see changed too: type and mode, modification time, owner,
            // attributes, and no second name (a hard link to a file outside).
            let same_kind = match (before.get(path), after.get(path)) {
                (Some(before), Some(after)) => {
                    before.mode == after.mode
                        && before.modified == after.modified
                        && before.owner == after.owner
                        && before.xattrs == after.xattrs
                        && after.links <= before.links.max(1)
                }
                _ => false,
            };
            let still = same_kind
                && after.get(path).is_some_and(|stamp| !stamp.is_dir())
                && crate::source::read_regular(&manifest.root.join(path), usize::MAX - 1)
                    .is_ok_and(|bytes| xxhash_rust::xxh3::xxh3_64(&bytes) == *hash);
            !still
        })
        .collect()
}

/// The paths whose stamps differ between two fingerprints, files only (a folder's
/// own stamp is its mode).
pub fn changed_paths(before: &Fingerprint, after: &Fingerprint) -> BTreeSet<PathBuf> {
    fingerprint_changes(before, after)
        .into_iter()
        // A folder appearing or going is seen through its files; a file that became
        // a folder, or the reverse, is a change of the path.
        // A folder that could no longer be listed may hide any change.
        .filter(|path| {
            let folder_or_none = |stamp: Option<&Stamp>| stamp.is_none_or(Stamp::is_dir);
            after.get(path).is_some_and(|stamp| stamp.unread)
                || !(folder_or_none(before.get(path)) && folder_or_none(after.get(path)))
        })
        .collect()
}

/// Updates `stamps` for `paths` of the tree at `root` (after tether itself wrote
/// them), so the next comparison sees only what a command changes.
pub fn restamp(stamps: &mut Fingerprint, root: &Path, paths: &BTreeSet<PathBuf>) {
    for path in paths {
        let full = root.join(path);
        match full.symlink_metadata() {
            Ok(metadata) => {
                stamps.insert(path.clone(), Stamp::of(&full, &metadata));
            }
            Err(_) => {
                stamps.remove(path);
            }
        }
    }
}

impl Stamp {
    fn is_dir(&self) -> bool {
        // S_IFMT and S_IFDIR, the same on every Unix.
        self.mode & 0o170000 == 0o040000
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A change in an extended attribute's value past its first 4 KiB is seen: the
    /// buffers are sized by asking, not fixed.
    #[test]
    fn a_long_attribute_value_is_hashed_whole() {
        let folder = tempfile::tempdir().unwrap();
        let file = folder.path().join("a.yaml");
        std::fs::write(&file, "a: 1\n").unwrap();
        let set = |value: &[u8]| {
            rustix::fs::lsetxattr(
                &file,
                c"user.tether",
                value,
                rustix::fs::XattrFlags::empty(),
            )
        };
        let mut value = vec![b'a'; 6000];
        if set(&value).is_err() {
            // The filesystem has no user attributes of this size: nothing to see.
            return;
        }
        let before = xattrs_hash(&file);
        value[5000] = b'b';
        assert!(set(&value).is_ok());
        assert_ne!(xattrs_hash(&file), before);
        assert_ne!(before, 0);
    }
}
