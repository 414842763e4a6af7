//! `fairdeck games`: the saves in a folder, the one `fairdeck resume` takes.

use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use super::{EXTENSION, InUse, SaveError, Status, in_use, load};

/// One line of `fairdeck games`: a save, or why it cannot be read.
pub struct Listed {
    pub path: PathBuf,
    pub summary: Result<Summary, SaveError>,
    /// Whether a `fairdeck` process has it open now.
    pub in_use: Option<InUse>,
}

/// What `fairdeck games` shows of a save.
#[derive(Clone, Debug)]
pub struct Summary {
    pub seat: fairdeck_shared::Seat,
    pub opponent: Option<String>,
    pub started: u64,
    pub last: u64,
    pub moves: u64,
    pub status: Status,
}

/// Every save in `dir`, the most recently played first. A missing folder has none.
pub fn list(dir: &Path) -> Result<Vec<Listed>, SaveError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(SaveError::Read { path: dir.display().to_string(), reason: e.to_string() }),
    };
    let mut listed: Vec<Listed> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == EXTENSION))
        .map(|path| {
            let summary = load(&path).map(|saved| Summary {
                seat: saved.journal.seat,
                opponent: saved.standing.opponent.clone(),
                started: saved.started,
                last: saved.last,
                moves: saved.standing.moves,
                status: saved.standing.status,
            });
            let in_use = in_use(&path);
            Listed { path, summary, in_use }
        })
        .collect();
    listed.sort_by_key(|l| std::cmp::Reverse(l.summary.as_ref().map_or(0, |s| s.last)));
    Ok(listed)
}

/// The most recently played unfinished game in `dir` that no other fairdeck has open (the player's own, where both
/// players of a game share the folder); else the most recent one, which opening then refuses naming its process.
pub fn latest_unfinished(dir: &Path) -> Result<PathBuf, SaveError> {
    let playing: Vec<Listed> =
        list(dir)?.into_iter().filter(|l| l.summary.as_ref().is_ok_and(|s| s.status == Status::Playing)).collect();
    let chosen = playing.iter().find(|l| l.in_use.is_none()).or(playing.first());
    chosen.map(|l| l.path.clone()).ok_or_else(|| SaveError::NoneToResume(dir.display().to_string()))
}

/// A unix time as `2026-11-23 10:15` (UTC).
pub fn format_time(unix: u64) -> String {
    let text = humantime::format_rfc3339_seconds(UNIX_EPOCH + std::time::Duration::from_secs(unix)).to_string();
    // 2026-11-23T10:15:03Z
    format!("{} {} UTC", &text[..10], &text[11..16])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_read_as_utc() {
        assert_eq!(format_time(0), "1970-01-01 00:00 UTC");
        assert_eq!(format_time(1_795_000_000), "2026-11-18 11:06 UTC");
    }
}
