//! The driver's file work for the core's commands ([`FileRequest`]): deck files read, and the decks built from a
//! pool written to files of their own in the player's data folder, named by the day.

use std::fs::OpenOptions;
use std::io::{ErrorKind as IoErrorKind, Write as _};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use fairdeck_shared::wire::PoolHash;

use super::building::deck_file_name;
use super::error::SessionError;
use super::files::{DeckRead, FileAnswer, FileRequest};
use super::frontend::Output;
use crate::deck::{self, DeckFormatRule, ReadDeck};
use crate::save::games_dir;

/// Deck files built from one pool in one day, at most: each gets a name of its own.
const DECK_FILES_PER_DAY: u32 = 1000;

/// Does what the core asked; the answer to hand it, if the request has one.
pub(super) fn perform(request: FileRequest) -> Option<FileAnswer> {
    match request {
        FileRequest::ReadDeck { path, checked } => Some(FileAnswer::Deck(read_checked_deck(&path).map(|read| {
            // A limited deck is checked by its pool, not by a constructed deck's rules: the core says which.
            let warnings = if checked { deck_warnings(&path, &read) } else { Vec::new() };
            DeckRead { deck: read.deck, warnings }
        }))),
        FileRequest::WriteDeck { text, pool } => Some(FileAnswer::Written(write_deck_file(&text, pool))),
        FileRequest::Remove(path) => {
            let _already_refused = std::fs::remove_file(&path);
            None
        }
    }
}

/// Reads and parses a deck file, keeping what its checks need.
pub(super) fn read_checked_deck(path: &Path) -> Result<ReadDeck, SessionError> {
    let deck_error = |reason: String| SessionError::Deck { path: path.display().to_string(), reason };
    let text = crate::file::read_text_at_most(path, crate::file::DECK_BYTES).map_err(|e| deck_error(e.to_string()))?;
    let file_name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    deck::read_deck(&file_name, &text).map_err(|e| deck_error(e.to_string()))
}

/// The checks' warnings about a constructed deck read from `path`, as outputs.
pub(super) fn deck_warnings(path: &Path, read: &ReadDeck) -> Vec<Output> {
    let file = path.display().to_string();
    let warnings = deck::check_deck_here(read, DeckFormatRule::of(&read.deck, false));
    warnings.into_iter().map(|warning| Output::DeckWarning { file: file.clone(), warning }).collect()
}

/// Writes `text` as a new plain-text deck file in `$XDG_DATA_HOME/fairdeck/decks` (else
/// `$HOME/.local/share/fairdeck/decks`), named by the day and the pool file's hash; returns its path.
fn write_deck_file(text: &str, pool: Option<PoolHash>) -> Result<PathBuf, String> {
    let games = games_dir(|name| std::env::var_os(name))
        .ok_or("cannot tell where to write the deck file: neither XDG_DATA_HOME nor HOME is set")?;
    let dir = games.parent().unwrap_or(&games).join("decks");
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot make the folder {}: {e}", dir.display()))?;
    let now = humantime::format_rfc3339_seconds(SystemTime::now()).to_string();
    let day = now.get(..10).unwrap_or(&now);
    for number in 1..=DECK_FILES_PER_DAY {
        let path = dir.join(deck_file_name(day, pool, number));
        // A new file each time: the decks built earlier stay as they were.
        match OpenOptions::new().write(true).create_new(true).open(&path) {
            Ok(mut file) => {
                file.write_all(text.as_bytes()).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
                return Ok(path);
            }
            Err(error) if error.kind() == IoErrorKind::AlreadyExists => continue,
            Err(error) => return Err(format!("cannot write {}: {error}", path.display())),
        }
    }
    Err(format!("{} holds {DECK_FILES_PER_DAY} deck files of this pool from today already", dir.display()))
}
