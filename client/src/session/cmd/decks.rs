//! The match's decks: `new-game [DECKFILE]`, `sideboard in … out …`, and limited play's `build DECKFILE`. They
//! run at any time (the engine says if it is not the moment); a deck file is read by the driver first.

use std::fmt;
use std::path::Path;

use fairdeck_shared::crypto::Group;
use fairdeck_shared::engine::Intent;

use crate::command::{ErrorKind, Gate};
use crate::deck::{Swap, Swapped};
use crate::session::files::{FileAnswer, FileRequest};
use crate::session::frontend::Output;
use crate::session::state::SessionCore;

pub(super) const GATE: Gate = Gate::Always;

/// Why `sideboard` is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum SideboardRefused {
    /// Limited play sideboards with `add`, `remove` and `done`.
    Limited,
}

impl fmt::Display for SideboardRefused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SideboardRefused::Limited => {
                f.write_str("in limited play, change your deck with add and remove, then done")
            }
        }
    }
}

/// The deck file `new-game` reads, if it names one: checked as a constructed deck unless the match is limited
/// (a limited deck is checked by its pool).
pub(super) fn new_game_file<G: Group>(file: Option<&Path>, core: &SessionCore<G>) -> Option<FileRequest> {
    let checked = core.limited.pool_hash().is_none();
    file.map(|path| FileRequest::ReadDeck { path: path.to_path_buf(), checked })
}

/// The deck file `build` reads.
pub(super) fn build_file(file: &Path) -> FileRequest {
    FileRequest::ReadDeck { path: file.to_path_buf(), checked: false }
}

/// `new-game [DECKFILE]`: asks for the next game, with the deck of that file (read as `answer` says), or the one
/// `sideboard` left, or the same one.
pub(super) fn new_game<G: Group>(
    core: &mut SessionCore<G>,
    file: Option<&Path>,
    answer: Option<FileAnswer>,
    line: &str,
) {
    match file.map(|file| FileAnswer::into_deck(answer, file)).transpose() {
        Ok(read) => {
            let deck = read.map(|read| {
                read.warnings.into_iter().for_each(|warning| core.show(warning));
                read.deck.to_deck_list()
            });
            let deck = deck.or_else(|| core.sideboarded.clone());
            if core.intent(Intent::NewGame(deck), line) {
                core.sideboarded = None;
            }
        }
        Err(error) => core.refuse(ErrorKind::BadDeck, line, error.to_string()),
    }
}

/// `sideboard in … out …`: the next game's deck, cards traded between main deck and sideboard, from the deck
/// last sideboarded or else this game's.
pub(super) fn sideboard<G: Group>(core: &mut SessionCore<G>, swap: &Swap, line: &str) {
    if core.limited.pool_hash().is_some() {
        return core.refuse(ErrorKind::Refused, line, SideboardRefused::Limited.to_string());
    }
    let deck = core.sideboarded.as_ref().unwrap_or(core.engine.deck());
    match crate::deck::sideboard(deck, swap) {
        Ok(Swapped { deck, cards_in, cards_out }) => {
            let output = Output::Sideboarded {
                cards_in,
                cards_out,
                main: deck.library.len() as u32,
                sideboard: deck.sideboard.len() as u32,
                hash: deck.label.clone(),
            };
            core.sideboarded = Some(deck);
            core.show(output);
        }
        Err(message) => core.refuse(ErrorKind::Refused, line, message),
    }
}

/// `build DECKFILE`: this player's deck from its pool, read as `answer` says.
pub(super) fn build<G: Group>(core: &mut SessionCore<G>, file: &Path, answer: Option<FileAnswer>, line: &str) {
    match FileAnswer::into_deck(answer, file) {
        Ok(read) => {
            core.intent(Intent::Build(read.deck.to_deck_list()), line);
        }
        Err(error) => core.refuse(ErrorKind::BadDeck, line, error.to_string()),
    }
}
