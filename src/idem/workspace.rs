//! Where a worker's checks run: a [`Workspace`], a view of the user's tree that a
//! command may change and that goes back to the committed files, behind five
//! operations. Two kinds: a copy of the tree ([`Copied`], any Unix) and an overlay
//! over it (Linux); [`Layout::choose`] picks one per repository, once.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::command::{self, RunOutcome};
use super::options::SandboxKind;
use super::report::Sandboxing;
use super::sandbox::{self, Entry, Sandbox, TreeManifest};
use crate::settings::config::IdemTarget;

/// A view of the user's tree for commands to run in, owned by one worker.
pub trait Workspace: Send {
    /// Back to the manifest: only the paths changed since it last was.
    fn pristine(&mut self, manifest: &TreeManifest) -> std::io::Result<()>;

    /// Writes a mutant's files.
    fn write(&mut self, files: &BTreeMap<PathBuf, Entry>) -> std::io::Result<()>;

    /// Runs the command in `relative_dir`; returns what it did and the paths that
    /// may differ from the manifest since the last [`Workspace::pristine`] (a copy:
    /// those the command changed; an overlay: all of them).
    fn run(
        &mut self,
        manifest: &TreeManifest,
        relative_dir: &Path,
        target: &IdemTarget,
        confine: bool,
    ) -> std::io::Result<(RunOutcome, BTreeSet<PathBuf>)>;

    /// The current entry of each path (absent ones left out).
    fn entries(
        &self,
        manifest: &TreeManifest,
        paths: &BTreeSet<PathBuf>,
    ) -> BTreeMap<PathBuf, Entry>;

    /// Of `paths` (new, not empty), those git's ignore rules do not exclude
    /// (`repository`: the user's tree, whose `.git/info/exclude` counts).
    fn not_ignored(&self, paths: &BTreeSet<PathBuf>, repository: &Path) -> BTreeSet<PathBuf>;
}

/// What a repository's workspaces are: how a worker makes one.
#[derive(Clone, Copy)]
pub struct Layout {
    make: fn(&TreeManifest) -> std::io::Result<Box<dyn Workspace>>,
}

impl Layout {
    /// Overlays where asked for or, with `auto`, where they work; else copies. Fails
    /// only when `--sandbox overlay` cannot be had.
    pub fn choose(
        manifest: &TreeManifest,
        kind: SandboxKind,
    ) -> Result<(Layout, Sandboxing), String> {
        let copies = Layout {
            make: Copied::boxed,
        };
        if kind == SandboxKind::Copy {
            return Ok((copies, Sandboxing::Copies(None)));
        }
        match (overlays(manifest), kind) {
            (Ok(layout), _) => Ok((layout, Sandboxing::Overlay)),
            (Err(reason), SandboxKind::Overlay) => Err(format!("--sandbox overlay: {reason}")),
            (Err(reason), _) => Ok((copies, Sandboxing::Copies(Some(reason)))),
        }
    }

    /// A new workspace over the manifest's tree.
    pub fn workspace(&self, manifest: &TreeManifest) -> std::io::Result<Box<dyn Workspace>> {
        (self.make)(manifest)
    }
}

/// Overlays, when this machine and repository allow them, and why not.
#[cfg(target_os = "linux")]
fn overlays(manifest: &TreeManifest) -> Result<Layout, String> {
    super::overlay::usable(manifest)?;
    Ok(Layout {
        make: |manifest| Ok(Box::new(super::overlay::Overlay::new(manifest)?)),
    })
}

/// Overlays, when this machine and repository allow them, and why not.
#[cfg(not(target_os = "linux"))]
fn overlays(_manifest: &TreeManifest) -> Result<Layout, String> {
    Err("overlays are a Linux feature".to_string())
}

/// A copy of the tree, with the paths that differ from the manifest and the stamps
/// of its files as tether last left them.
pub struct Copied {
    sandbox: Sandbox,
    dirty: BTreeSet<PathBuf>,
    stamps: sandbox::Fingerprint,
}

impl Copied {
    fn boxed(manifest: &TreeManifest) -> std::io::Result<Box<dyn Workspace>> {
        let sandbox = Sandbox::from_manifest(manifest)?;
        let stamps = sandbox.stamps();
        Ok(Box::new(Copied {
            sandbox,
            dirty: BTreeSet::new(),
            stamps,
        }))
    }
}

impl Workspace for Copied {
    fn pristine(&mut self, manifest: &TreeManifest) -> std::io::Result<()> {
        if !self.dirty.is_empty() {
            self.sandbox.restore_paths(manifest, &self.dirty)?;
            sandbox::restamp(&mut self.stamps, &self.sandbox.root, &self.dirty);
            self.dirty.clear();
        }
        Ok(())
    }

    fn write(&mut self, files: &BTreeMap<PathBuf, Entry>) -> std::io::Result<()> {
        self.dirty.extend(files.keys().cloned());
        self.sandbox.write(files)?;
        let paths: BTreeSet<PathBuf> = files.keys().cloned().collect();
        sandbox::restamp(&mut self.stamps, &self.sandbox.root, &paths);
        Ok(())
    }

    fn run(
        &mut self,
        _manifest: &TreeManifest,
        relative_dir: &Path,
        target: &IdemTarget,
        confine: bool,
    ) -> std::io::Result<(RunOutcome, BTreeSet<PathBuf>)> {
        // A previous run may have deleted its own folder.
        let dir = self.sandbox.root.join(relative_dir);
        std::fs::create_dir_all(&dir)?;
        let outcome = command::run(command::Spec {
            run: &target.run,
            dir: &dir,
            env: &target.env,
            timeout: target.timeout,
            sandbox: self.sandbox.folder(),
            confine,
            enter: None,
        })?;
        let after = self.sandbox.stamps();
        let changed = sandbox::changed_paths(&self.stamps, &after);
        self.stamps = after;
        self.dirty.extend(changed.iter().cloned());
        Ok((outcome, changed))
    }

    fn entries(
        &self,
        _manifest: &TreeManifest,
        paths: &BTreeSet<PathBuf>,
    ) -> BTreeMap<PathBuf, Entry> {
        self.sandbox.entries(paths)
    }

    fn not_ignored(&self, paths: &BTreeSet<PathBuf>, repository: &Path) -> BTreeSet<PathBuf> {
        self.sandbox.not_ignored(paths, repository)
    }
}

/// An overlay over the tree: what a command changed is its upper layer.
#[cfg(target_os = "linux")]
impl Workspace for super::overlay::Overlay {
    fn pristine(&mut self, _manifest: &TreeManifest) -> std::io::Result<()> {
        self.reset()
    }

    fn write(&mut self, files: &BTreeMap<PathBuf, Entry>) -> std::io::Result<()> {
        super::overlay::Overlay::write(self, files)
    }

    fn run(
        &mut self,
        manifest: &TreeManifest,
        relative_dir: &Path,
        target: &IdemTarget,
        confine: bool,
    ) -> std::io::Result<(RunOutcome, BTreeSet<PathBuf>)> {
        let mount = self.mount(relative_dir)?;
        let outcome = command::run(command::Spec {
            run: &target.run,
            dir: &self.dir(relative_dir),
            env: &target.env,
            timeout: target.timeout,
            sandbox: self.writable(),
            confine,
            enter: Some(mount),
        })?;
        Ok((outcome, self.changed(manifest)))
    }

    fn entries(
        &self,
        manifest: &TreeManifest,
        paths: &BTreeSet<PathBuf>,
    ) -> BTreeMap<PathBuf, Entry> {
        super::overlay::Overlay::entries(self, manifest, paths)
    }

    fn not_ignored(&self, paths: &BTreeSet<PathBuf>, _repository: &Path) -> BTreeSet<PathBuf> {
        super::overlay::Overlay::not_ignored(self, paths)
    }
}
