//! One process at a time: the save's lock, the pid file beside it, the owner-only folder.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::Write;
use std::path::{Path, PathBuf};

use super::SaveError;

/// Takes the exclusive lock on the save `file` at `path` for this process, and says so in its pid file; if
/// another process holds it, [`SaveError::InUse`] with that process's pid, and nothing written.
pub(super) fn lock(path: &Path, file: &File) -> Result<(), SaveError> {
    let failed = |e: std::io::Error| SaveError::Write { path: path.display().to_string(), reason: e.to_string() };
    match file.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => {
            return Err(SaveError::InUse { path: path.display().to_string(), pid: holder(path) });
        }
        Err(TryLockError::Error(e)) => return Err(failed(e)),
    }
    let mut options = OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut pid = options.open(pid_file(path)).map_err(failed)?;
    pid.write_all(format!("{}\n", std::process::id()).as_bytes()).map_err(failed)
}

/// The file beside a save that names the process holding it.
pub(super) fn pid_file(save: &Path) -> PathBuf {
    let mut name = save.as_os_str().to_owned();
    name.push(".pid");
    PathBuf::from(name)
}

/// The process the pid file of a save names, if it can be read: only a hint for the message, since the lock,
/// not this file, says whether a process holds the save.
fn holder(save: &Path) -> Option<u32> {
    crate::file::read_text_at_most(&pid_file(save), 64).ok()?.trim().parse().ok()
}

/// Whether another process holds the save at `path`, as `fairdeck games` shows it: `Some` with its pid (if it
/// said), else `None`. Only a save with a pid file is tried, so a free save is not locked even for a moment.
pub fn in_use(path: &Path) -> Option<InUse> {
    if !pid_file(path).exists() {
        return None;
    }
    let file = File::open(path).ok()?;
    match file.try_lock_shared() {
        Err(TryLockError::WouldBlock) => Some(InUse { pid: holder(path) }),
        // Free (the lock goes with `file`), or not lockable here: nothing to show.
        _ => None,
    }
}

/// Another process holds a save.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InUse {
    /// Its process id, as its pid file says.
    pub pid: Option<u32>,
}

pub(super) fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)?;
    // A folder that existed before keeps no wider access than its files.
    #[cfg(unix)]
    std::fs::set_permissions(dir, std::os::unix::fs::PermissionsExt::from_mode(0o700))?;
    Ok(())
}
