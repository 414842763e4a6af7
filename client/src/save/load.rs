//! A save read back, every line checked, the channel rebuilt record by record.

use std::collections::VecDeque;
use std::fmt;
use std::path::{Path, PathBuf};

use fairdeck_shared::journal::Journal;

use super::format::{Cursor, Header, HexBytes, Record, check_format, next_line};
use super::{SaveError, Standing};
use crate::channel::{Channel, MAX_MESSAGE_BYTES, MAX_PEER_RUNS, Progress, RunStart, SavedKeys, SavedState};

/// A save read back: everything to rebuild the engine and the channel.
pub struct Saved {
    pub path: PathBuf,
    pub started: u64,
    /// When the last record was written (unix seconds).
    pub last: u64,
    /// The full journal: the engine replays it.
    pub journal: Journal,
    pub keys: SavedKeys,
    /// The channel's counters, frames and runs.
    pub channel: SavedState,
    pub standing: Standing,
    /// Where the writer goes on from.
    pub(super) cursor: Cursor,
}

impl fmt::Debug for Saved {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Saved")
            .field("path", &self.path)
            .field("inputs", &self.journal.inputs.len())
            .field("progress", &self.channel.progress)
            .field("standing", &self.standing)
            .finish_non_exhaustive()
    }
}

impl Saved {
    /// The channel as it stood, going on in a new run drawn from `rng_seed` (fresh secret randomness).
    pub fn restore_channel(&self, rng_seed: [u8; 32]) -> Channel {
        Channel::restore(&self.keys, self.channel.clone(), rng_seed)
    }
}

/// Reads a save back, checking every line.
pub fn load(path: &Path) -> Result<Saved, SaveError> {
    let name = path.display().to_string();
    let bytes = crate::file::read_at_most(path, crate::file::GAME_BYTES)
        .map_err(|e| SaveError::Read { path: name.clone(), reason: e.to_string() })?;
    let damaged = |line: usize, reason: &str| SaveError::Damaged { path: name.clone(), line, reason: reason.into() };
    // The room made ahead is not the save's (no line holds a zero byte).
    let end = bytes.iter().rposition(|&b| b != 0).map_or(0, |last| last + 1);
    let mut lines = bytes[..end].split_inclusive(|&b| b == b'\n').enumerate().map(|(i, l)| (i + 1, l));
    let mut chain = [0u8; 32];

    let Some((number, first)) = lines.next() else { return Err(damaged(1, "the file is empty")) };
    check_format(first, &name)?;
    let json = next_line(&mut chain, first).map_err(|reason| damaged(number, reason))?;
    let header: Header =
        serde_json::from_slice(json).map_err(|e| damaged(number, &format!("unreadable header: {e}")))?;
    if (header.keys.side() == crate::channel::Side::Host) != (header.journal.seat == fairdeck_shared::Seat::HOST) {
        return Err(damaged(number, "its channel and its journal are of different seats"));
    }

    let mut journal = header.journal;
    let mut channel = ChannelSoFar::default();
    let mut last = None;
    for (number, raw) in lines {
        let json = next_line(&mut chain, raw).map_err(|reason| damaged(number, reason))?;
        let record: Record =
            serde_json::from_slice(json).map_err(|e| damaged(number, &format!("unreadable record: {e}")))?;
        let Record {
            at,
            inputs,
            frames,
            partial_keep,
            partial_add,
            peer_runs,
            progress,
            relay,
            status,
            opponent,
            moves,
            record,
        } = record;
        channel
            .follow(progress, frames, (partial_keep, partial_add), peer_runs)
            .map_err(|reason| damaged(number, reason))?;
        journal.inputs.extend(inputs);
        last = Some((at, Standing { relay, status, opponent, moves, record }));
    }
    let Some((at, standing)) = last else {
        return Err(damaged(2, "the file ends after its header (the game never got going)"));
    };
    let ChannelSoFar { progress, unacked, partial, peer_runs } = channel;
    let cursor = Cursor {
        chain,
        end: end as u64,
        inputs: journal.inputs.len(),
        progress,
        partial_len: partial.len(),
        standing: standing.clone(),
    };
    Ok(Saved {
        path: path.to_path_buf(),
        started: header.started,
        last: at,
        journal,
        keys: header.keys,
        channel: SavedState { progress, unacked: unacked.into(), partial, peer_runs },
        standing,
        cursor,
    })
}

/// The channel's state as the records read so far rebuild it.
#[derive(Default)]
struct ChannelSoFar {
    progress: Progress,
    /// Sealed frames from `progress.acked` on.
    unacked: VecDeque<Vec<u8>>,
    partial: Vec<u8>,
    peer_runs: Vec<RunStart>,
}

impl ChannelSoFar {
    /// Takes in one record's part of the channel: its counters, the frames sealed since, the message being received
    /// (`keep` bytes of the one before, then `add`) and where the peer's runs began; else why the record does not
    /// follow from the one before.
    fn follow(
        &mut self,
        progress: Progress,
        frames: Vec<HexBytes>,
        (keep, add): (u64, HexBytes),
        peer_runs: Vec<RunStart>,
    ) -> Result<(), &'static str> {
        let (before, p) = (self.progress, progress);
        let sealed = before.next_seq + frames.len() as u64;
        if p.next_seq != sealed || p.acked < before.acked || p.acked > p.next_seq || p.delivered < before.delivered {
            return Err("its counters do not follow from the line before");
        }
        self.unacked.extend(frames.into_iter().map(|f| f.0));
        for _ in before.acked..p.acked {
            self.unacked.pop_front();
        }
        let keep = usize::try_from(keep).unwrap_or(usize::MAX);
        if keep > self.partial.len() || keep + add.0.len() > MAX_MESSAGE_BYTES {
            return Err("its part of a message does not follow from the line before");
        }
        self.partial.truncate(keep);
        self.partial.extend_from_slice(&add.0);
        // Each run began at a frame taken since the line before, in order.
        let mut from = before.recv_next;
        for start in peer_runs {
            if start.seq < from || start.seq >= p.recv_next || self.peer_runs.len() >= MAX_PEER_RUNS {
                return Err("its record of the opponent's runs does not follow");
            }
            from = start.seq + 1;
            self.peer_runs.push(start);
        }
        self.progress = progress;
        Ok(())
    }
}
