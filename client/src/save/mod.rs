//! A game saved as it goes, so that no crash ends it: `fairdeck resume` reads it back.
//!
//! The engine is deterministic (see [`fairdeck_shared::journal`]): its journal (seed, deck, the player's intents
//! and the messages received, in order) rebuilds it exactly. With the journal, a save holds what the channel needs
//! to go on: its keys, its counters, the data frames it sealed and the peer has not acknowledged, and the part of a
//! message it has received; and the relay the game uses, with the seat's token.
//!
//! # Format
//!
//! Lines of JSON, each preceded by a chain value and a space: `<64 hex> <json>\n`, where the chain value of line
//! *i* is `SHA-256(chain value of line i−1 ‖ json of line i)` (32 zero bytes before the first line). The first
//! line is the [`Header`](format::Header); each later line a [`Record`](format::Record) of what changed since the line before it. A record is
//! appended and synced to disk before any frame it describes leaves, so a save is never behind what the opponent
//! has seen. A file that is cut short or altered fails its chain (or its counters) and is refused, naming the
//! file and the line; nothing is overwritten. Files and their folder are readable by their owner only: they hold
//! every secret of the game.
//!
//! While a game is open, its file may go on past the last line in zero bytes, which the reader ignores: room
//! made ahead ([`SaveFile::make_room`]), so that a record is written over bytes the file already has. Syncing
//! such a write leaves the file's size, so the inode, as it was: on ext4 it takes about two thirds of the time
//! of an append's (docs/PERFORMANCE.md). The room goes when the save is closed.
//!
//! # One process at a time
//!
//! The process that writes a save holds an exclusive advisory lock on it ([`std::fs::File::try_lock`]) for as long as it
//! runs, and writes its process id beside it (`<save>.pid`). Another process that opens the save is refused at
//! once ([`SaveError::InUse`], naming that pid), before it reads or writes anything: two processes playing one
//! seat would send two different futures of the same game. The system drops the lock with the process however
//! it ends, so a `kill -9` leaves a stale pid file, never a game that cannot be resumed.
//!
//! # Files
//!
//! | file | job |
//! |---|---|
//! | `mod.rs` | where saves go, and what a game's standing is ([`Standing`], [`Status`], [`RelayPlace`]) |
//! | `format.rs` | the lines: the header and the records, each chained to the one before; the format checked first |
//! | `file.rs` | a save being written ([`SaveFile`]): created or opened, one synced line per change, room made ahead |
//! | `load.rs` | a save read back ([`Saved`], [`load`]), the channel rebuilt record by record |
//! | `lock.rs` | one process at a time: the lock, the pid file, the owner-only folder |
//! | `list.rs` | `fairdeck games` and the game `fairdeck resume` takes |
//! | `error.rs` | [`SaveError`] |

mod error;
mod file;
mod format;
mod list;
mod load;
mod lock;

use std::ffi::OsString;
use std::fmt;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

pub use error::SaveError;
pub use file::SaveFile;
/// `fairdeck games`' tests make a list of saves by hand.
#[cfg(test)]
pub(crate) use list::Summary;
pub(crate) use list::{Listed, format_time};
pub use list::{latest_unfinished, list};
pub(crate) use load::Saved;
pub use load::load;
pub use lock::{InUse, in_use};

/// The version of the save layout. Another version is refused with its number.
/// 3: protocol 5's messages (a shuffle step carries its proof). 2: envelopes in their binary encoding, inputs
/// externally tagged (protocol 4).
pub const SAVE_FORMAT: u32 = 4;
/// The extension of save files.
pub(crate) const EXTENSION: &str = "fairdeck";

/// Where saved games go: `$XDG_DATA_HOME/fairdeck/games`, else `$HOME/.local/share/fairdeck/games`; `None` when
/// neither is set. Empty or relative values are ignored, as the XDG base directory specification asks.
pub(crate) fn games_dir(get: impl Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    data_dir(get).map(|dir| dir.join("games"))
}

/// fairdeck's data folder: `$XDG_DATA_HOME/fairdeck`, else `$HOME/.local/share/fairdeck`; `None` when neither is
/// set (empty or relative values ignored).
pub(crate) fn data_dir(get: impl Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    let absolute = |name: &str| get(name).map(PathBuf::from).filter(|path| path.is_absolute());
    let base = absolute("XDG_DATA_HOME").or_else(|| absolute("HOME").map(|home| home.join(".local").join("share")))?;
    Some(base.join("fairdeck"))
}

/// The games folder of this process's environment.
pub fn games_dir_from_env() -> Result<PathBuf, SaveError> {
    games_dir(|name| std::env::var_os(name)).ok_or(SaveError::NoDataDir)
}

/// Where a game stands, as `fairdeck games` lists it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// The game goes on: `fairdeck resume` continues it.
    Playing,
    /// It ended (both decks audited, or a forfeit).
    Ended,
    /// The engine stopped on a breach of the protocol.
    Halted,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Playing => "playing",
            Status::Ended => "ended",
            Status::Halted => "halted",
        }
    }
}

/// The relay a game uses, and the seat's token there.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RelayPlace {
    pub url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ca: Option<PathBuf>,
    /// The seat's token at this relay, while the relay may still know it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
    /// Where this program served the relay (`host --serve`, its port bound): a resumed game serves there again,
    /// so that the guest comes back to the URL it joined with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub serve: Option<std::net::SocketAddr>,
}

impl fmt::Debug for RelayPlace {
    // The token takes the seat: never printed.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RelayPlace")
            .field("url", &self.url)
            .field("ca", &self.ca)
            .field("serve", &self.serve)
            .finish_non_exhaustive()
    }
}

/// Where a game stands, for the records and for `fairdeck games`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Standing {
    pub relay: RelayPlace,
    pub status: Status,
    pub opponent: Option<String>,
    pub moves: u64,
    /// Where the game's journal goes when a session of it ends (`--record`), kept for `fairdeck resume`.
    pub record: Option<PathBuf>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn games_go_to_the_data_directory() {
        let at = |vars: &[(&str, &str)]| {
            let vars: Vec<(String, OsString)> = vars.iter().map(|(k, v)| (k.to_string(), OsString::from(v))).collect();
            games_dir(|name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()))
        };
        assert_eq!(at(&[("HOME", "/home/ada")]), Some(PathBuf::from("/home/ada/.local/share/fairdeck/games")));
        assert_eq!(at(&[("HOME", "/home/ada"), ("XDG_DATA_HOME", "/xdg")]), Some(PathBuf::from("/xdg/fairdeck/games")));
        assert_eq!(
            at(&[("HOME", "/home/ada"), ("XDG_DATA_HOME", "relative")]),
            Some(PathBuf::from("/home/ada/.local/share/fairdeck/games"))
        );
        assert_eq!(at(&[]), None);
    }
}
