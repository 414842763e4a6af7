//! Why a save could not be written or read.

use super::SAVE_FORMAT;

/// Why a save could not be written or read. Each names the file.
#[derive(Debug, thiserror::Error)]
pub enum SaveError {
    #[error("cannot tell where to save games: neither XDG_DATA_HOME nor HOME is set")]
    NoDataDir,
    #[error("cannot write the saved game {path}: {reason}")]
    Write { path: String, reason: String },
    #[error("cannot read the saved game {path}: {reason}")]
    Read { path: String, reason: String },
    #[error("the saved game {path} is format {found}; this fairdeck reads format {SAVE_FORMAT}")]
    Format { path: String, found: u32 },
    #[error("the saved game {path} is damaged at line {line}: {reason} (it was left as it is)")]
    Damaged { path: String, line: usize, reason: String },
    #[error("no unfinished game is saved in {0}")]
    NoneToResume(String),
    #[error("this game is open in another fairdeck{}; close it first ({path})", pid_words(.pid))]
    InUse { path: String, pid: Option<u32> },
}

/// " (pid 1234)", or nothing when the holder did not say.
fn pid_words(pid: &Option<u32>) -> String {
    pid.map(|pid| format!(" (pid {pid})")).unwrap_or_default()
}
