//! The save's lines: the header and the records they hold, each line chained to the one before, the format
//! checked first.

use std::path::PathBuf;

use fairdeck_shared::journal::{Input, Journal};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{RelayPlace, SAVE_FORMAT, SaveError, Standing, Status};
use crate::channel::{Progress, RunStart, SavedKeys};

/// The first line of a save: what never changes.
#[derive(Serialize, Deserialize)]
pub(super) struct Header {
    pub(super) fairdeck_save: u32,
    /// Unix seconds.
    pub(super) started: u64,
    /// The engine's journal, without inputs (they come in the records).
    pub(super) journal: Journal,
    pub(super) keys: SavedKeys,
}

/// What changed since the line before.
#[derive(Serialize, Deserialize)]
pub(super) struct Record {
    /// Unix seconds.
    pub(super) at: u64,
    /// The engine's new inputs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(super) inputs: Vec<Input>,
    /// Data frames sealed since, numbered on from the previous record's `next_seq`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(super) frames: Vec<HexBytes>,
    /// The message being received: the first `keep` bytes of the previous one, then `add`.
    pub(super) partial_keep: u64,
    #[serde(default, skip_serializing_if = "HexBytes::is_empty")]
    pub(super) partial_add: HexBytes,
    /// Where the peer's runs began, from the previous record's `recv_next` on.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(super) peer_runs: Vec<RunStart>,
    pub(super) progress: Progress,
    pub(super) relay: RelayPlace,
    pub(super) status: Status,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) opponent: Option<String>,
    /// Actions applied to the table so far.
    pub(super) moves: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) record: Option<PathBuf>,
}

#[derive(Clone, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub(super) struct HexBytes(#[serde(with = "fairdeck_shared::serde_hex::vec")] pub(super) Vec<u8>);

impl HexBytes {
    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

pub(super) fn line(chain: &[u8; 32], json: &[u8]) -> ([u8; 32], Vec<u8>) {
    let next: [u8; 32] = Sha256::new().chain_update(chain).chain_update(json).finalize().into();
    let mut line = Vec::with_capacity(65 + json.len() + 1);
    line.extend_from_slice(hex::encode(next).as_bytes());
    line.push(b' ');
    line.extend_from_slice(json);
    line.push(b'\n');
    (next, line)
}

/// Refuses a save of another format by its number, read from the first line before anything else, so that another
/// version is named rather than misread.
pub(super) fn check_format(first: &[u8], name: &str) -> Result<(), SaveError> {
    #[derive(Deserialize)]
    struct Version {
        fairdeck_save: u32,
    }
    let json_start = first.iter().position(|&b| b == b' ').map_or(0, |i| i + 1);
    match serde_json::from_slice::<Version>(first[json_start..].trim_ascii_end()) {
        Ok(Version { fairdeck_save }) if fairdeck_save != SAVE_FORMAT => {
            Err(SaveError::Format { path: name.to_string(), found: fairdeck_save })
        }
        _ => Ok(()),
    }
}

/// The JSON of one save line, whose chain value must follow from `chain`, which moves on to it; else why the line
/// is damaged.
pub(super) fn next_line<'a>(chain: &mut [u8; 32], raw: &'a [u8]) -> Result<&'a [u8], &'static str> {
    let raw = raw.strip_suffix(b"\n").ok_or("the line is cut short (the file was truncated)")?;
    if raw.len() < 65 || raw[64] != b' ' {
        return Err("not a save line");
    }
    let (given, json) = (&raw[..64], &raw[65..]);
    let (expected, _) = line(chain, json);
    if !given.eq_ignore_ascii_case(hex::encode(expected).as_bytes()) {
        return Err("its checksum does not match (the file was altered or cut)");
    }
    *chain = expected;
    Ok(json)
}

/// What the last line written says, to write only what changed, and where it ends.
#[derive(Clone)]
pub(super) struct Cursor {
    pub(super) chain: [u8; 32],
    /// The length of the lines: where the next one goes.
    pub(super) end: u64,
    pub(super) inputs: usize,
    pub(super) progress: Progress,
    pub(super) partial_len: usize,
    pub(super) standing: Standing,
}
