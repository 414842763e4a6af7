//! The files the player's commands need, which the core neither reads nor writes: a command with a file asks the
//! driver ([`FileRequest`]) and waits at the head of the queue; the driver does it and answers ([`FileAnswer`]),
//! and the command runs on with the answer.

use std::path::PathBuf;

use fairdeck_shared::wire::PoolHash;

use super::error::SessionError;
use super::frontend::Output;
use crate::deck::Deck;

/// What the core asks the driver to do with a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum FileRequest {
    /// The deck of the deck file at `path` (`new-game FILE`, `build FILE`), with its checks' warnings if `checked`;
    /// answered with [`FileAnswer::Deck`].
    ReadDeck { path: PathBuf, checked: bool },
    /// A new deck file holding `text`, the deck built from the pool `pool` (`done`), named by the day and the pool;
    /// answered with [`FileAnswer::Written`].
    WriteDeck { text: String, pool: Option<PoolHash> },
    /// The deck file `done` wrote removed, its deck refused by the engine; not answered.
    Remove(PathBuf),
}

/// The driver's answer to a [`FileRequest`].
#[derive(Debug)]
pub(super) enum FileAnswer {
    /// The deck read, or why it could not be.
    Deck(Result<DeckRead, SessionError>),
    /// The path of the new file, or why it could not be written.
    Written(Result<PathBuf, String>),
}

/// A deck file read, and what its checks warn of (each a [`Output::DeckWarning`]).
#[derive(Debug)]
pub(super) struct DeckRead {
    pub deck: Deck,
    pub warnings: Vec<Output>,
}

impl FileAnswer {
    /// The deck, from the answer to a [`FileRequest::ReadDeck`] of `path`.
    pub fn into_deck(answer: Option<FileAnswer>, path: &std::path::Path) -> Result<DeckRead, SessionError> {
        match answer {
            Some(FileAnswer::Deck(read)) => read,
            _ => Err(SessionError::Deck { path: path.display().to_string(), reason: "the file was not read".into() }),
        }
    }

    /// The path written, from the answer to a [`FileRequest::WriteDeck`].
    pub fn into_path(answer: Option<FileAnswer>) -> Result<PathBuf, String> {
        match answer {
            Some(FileAnswer::Written(path)) => path,
            _ => Err("the deck file was not written".into()),
        }
    }
}
