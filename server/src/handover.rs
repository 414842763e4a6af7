//! Rooms survive a relay restart: on a graceful shutdown the open rooms (internal ids, token hashes, counters, the
//! nameplates of rooms still waiting; no frames, no tokens) are written to the data directory, and the next process
//! takes them back with every seat held, so clients told `closing` can resume as if their connection had dropped.
//! The statistics records not yet written (the database was down) go along, and the next process writes them.

use std::path::Path;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::stats::RoomRecord;

/// Name of the hand-over file in the data directory.
pub(crate) const FILE_NAME: &str = "handover.json";

/// Name of the file whose lock marks a data directory in use.
const LOCK_NAME: &str = "relay.lock";

/// A data directory taken by this process: two relays sharing one would overwrite each other's hand-over file,
/// and the next to start would take the other's rooms. An advisory lock (`flock`), released when the process ends,
/// however it ends.
#[derive(Debug)]
pub(crate) struct DirLock {
    _file: std::fs::File,
}

impl DirLock {
    pub(crate) fn take(dir: &Path) -> Result<DirLock, HandoverError> {
        let path = dir.join(LOCK_NAME);
        let io = |source| HandoverError::Io { path: path.display().to_string(), source };
        let file = std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(&path).map_err(io)?;
        use std::os::fd::AsRawFd;
        // SAFETY: `flock` on a descriptor this function owns; no memory is passed.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
            return Err(HandoverError::InUse(dir.display().to_string()));
        }
        Ok(DirLock { _file: file })
    }
}

/// Version 2: rooms by internal id, a nameplate only for waiting rooms.
const FORMAT_VERSION: u32 = 2;

/// Errors reading or writing the hand-over file.
#[derive(Debug, Error)]
pub enum HandoverError {
    #[error("cannot read or write {path}")]
    Io { path: String, source: std::io::Error },
    #[error("the hand-over file is not valid")]
    Format(#[from] serde_json::Error),
    #[error("the hand-over file has version {0}, this relay reads version {FORMAT_VERSION}")]
    Version(u32),
    #[error("another relay uses the data directory {0}: give each instance its own")]
    InUse(String),
}

#[derive(Debug, Serialize, Deserialize)]
struct HandoverFile {
    version: u32,
    #[serde(flatten)]
    handover: Handover,
}

/// What a process hands the next one.
#[derive(Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Handover {
    /// When it was saved, unix milliseconds.
    pub(crate) saved_ms: i64,
    pub(crate) rooms: Vec<RoomSnapshot>,
    /// Statistics records still to be written (absent from files of earlier relays, and when there are none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) records: Vec<RoomRecord>,
}

/// One room as handed over.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct RoomSnapshot {
    pub(crate) id: u64,
    /// The nameplate of a room still waiting for its guest.
    pub(crate) nameplate: Option<u32>,
    /// The id of a rendezvous room, hex: the hash of its seats' public keys, nothing secret (absent from the
    /// files of earlier versions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) rendezvous: Option<String>,
    pub(crate) created_ms: i64,
    pub(crate) paired_ms: Option<i64>,
    /// What was left of the waiting lifetime when saved (unpaired rooms).
    pub(crate) waiting_left_ms: u64,
    /// Every seat, in join order (as many as the room has; files of earlier versions have two).
    pub(crate) seats: Vec<Option<SeatSnapshot>>,
    /// Frames and bytes sent by each seat.
    pub(crate) traffic: Vec<(u64, u64)>,
    pub(crate) resumes: u32,
    pub(crate) crowded: bool,
    pub(crate) scary: bool,
    pub(crate) errored: bool,
    /// The room's watch seats (absent from the files of earlier versions).
    #[serde(default)]
    pub(crate) watch: WatchSnapshot,
}

/// What a room keeps of its watch seats across a restart: no connection, only what lets spectators come back.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct WatchSnapshot {
    /// A player turned watching off.
    pub(crate) off: bool,
    /// Each player seat's watch nameplate.
    pub(crate) nameplates: [Option<u32>; 2],
    /// Each player seat's delay choice, in turns.
    pub(crate) delays: [u32; 2],
    /// The most spectators present at once so far.
    pub(crate) most: u32,
}

/// One occupied seat as handed over.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct SeatSnapshot {
    /// SHA-256 of the seat token, hex. The token itself never touches the disk.
    pub(crate) token_sha256: String,
    pub(crate) client: Option<String>,
}

/// Writes the hand-over to `path` (or removes a stale file when there is nothing to hand over).
pub(crate) fn save(path: &Path, handover: Handover) -> Result<(), HandoverError> {
    let io = |source| HandoverError::Io { path: path.display().to_string(), source };
    if handover.rooms.is_empty() && handover.records.is_empty() {
        return match std::fs::remove_file(path) {
            Err(error) if error.kind() != std::io::ErrorKind::NotFound => Err(io(error)),
            _ => Ok(()),
        };
    }
    let file = HandoverFile { version: FORMAT_VERSION, handover };
    let temporary = path.with_extension("json.tmp");
    std::fs::write(&temporary, serde_json::to_vec(&file)?).map_err(io)?;
    std::fs::rename(&temporary, path).map_err(io)
}

/// What was saved in `path`; the file is removed. Nothing when there is no file.
pub(crate) fn take(path: &Path) -> Result<Option<Handover>, HandoverError> {
    let io = |source| HandoverError::Io { path: path.display().to_string(), source };
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(io(error)),
    };
    // Remove it first: a file that cannot be read now would not be readable on the next start either.
    std::fs::remove_file(path).map_err(io)?;
    let file: HandoverFile = serde_json::from_slice(&bytes)?;
    if file.version != FORMAT_VERSION {
        return Err(HandoverError::Version(file.version));
    }
    Ok(Some(file.handover))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tally::RoomResult;

    fn record() -> RoomRecord {
        RoomRecord {
            created_ms: 1_795_000_000_000,
            waiting_ms: Some(1200),
            total_ms: 60_000,
            result: RoomResult::Happy,
            frames_a_to_b: 3,
            bytes_a_to_b: 300,
            frames_b_to_a: 2,
            bytes_b_to_a: 200,
            resumes: 1,
            client_a: Some("fairdeck 0.1".into()),
            client_b: None,
            watchers: 2,
        }
    }

    #[test]
    fn records_alone_are_handed_over_and_taken_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        let handover = Handover { saved_ms: 5, rooms: Vec::new(), records: vec![record(), record()] };
        save(&path, handover).unwrap();
        let taken = take(&path).unwrap().expect("a hand-over");
        assert_eq!((taken.saved_ms, taken.rooms.len()), (5, 0));
        assert_eq!(taken.records, vec![record(), record()]);
        assert!(take(&path).unwrap().is_none(), "the file is removed once taken");
    }

    #[test]
    fn a_file_of_an_earlier_relay_has_no_records() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        std::fs::write(&path, r#"{"version":2,"saved_ms":7,"rooms":[]}"#).unwrap();
        assert_eq!(take(&path).unwrap(), Some(Handover { saved_ms: 7, ..Handover::default() }));
    }
}
