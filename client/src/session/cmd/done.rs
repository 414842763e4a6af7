//! `done`: closes the search, scry or surveil open; in limited play with none open, sends the deck built from the
//! pool, written first to a deck file of its own, as the first game's deck or, once a game is over, the next
//! one's (sideboarding).

use std::fmt;

use fairdeck_shared::crypto::Group;
use fairdeck_shared::engine::Intent;

use crate::command::{ErrorKind, Gate};
use crate::deck::Deck;
use crate::session::building::{Refusal, deck_text};
use crate::session::files::{FileAnswer, FileRequest};
use crate::session::frontend::Output;
use crate::session::state::SessionCore;

/// Why `done` does not send the deck built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum DoneRefused {
    /// The game under way has its deck; the next one's waits for its end.
    DeckIsIn,
}

impl fmt::Display for DoneRefused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DoneRefused::DeckIsIn => {
                f.write_str("your deck for this game is in: sideboard once the game is over (`end`)")
            }
        }
    }
}

/// Sending the deck built goes at once; closing what is browsed waits for the peeks under way.
pub(super) fn gate<G: Group>(core: &SessionCore<G>) -> Gate {
    if builds(core) { Gate::Always } else { Gate::Settled }
}

/// The deck file to write first, when `done` sends the deck built (and is not refused before).
pub(super) fn file<G: Group>(core: &SessionCore<G>) -> Option<FileRequest> {
    let deck = deck_to_send(core)?.ok()?;
    Some(FileRequest::WriteDeck { text: deck_text(&deck), pool: core.limited.pool_hash() })
}

/// Sends the deck built, written to the file of `answer` (a deck the engine refuses leaves no file), or closes
/// what is browsed.
pub(super) fn run<G: Group>(core: &mut SessionCore<G>, answer: Option<FileAnswer>, line: &str) {
    let deck = match deck_to_send(core) {
        Some(Ok(deck)) => deck,
        Some(Err((kind, message))) => return core.refuse(kind, line, message),
        None => return core.close_browsing(line),
    };
    let path = match FileAnswer::into_path(answer) {
        Ok(path) => path,
        Err(message) => return core.refuse(ErrorKind::Refused, line, message),
    };
    let list = deck.to_deck_list();
    let intent = if core.engine.is_building() { Intent::Build(list) } else { Intent::NewGame(Some(list)) };
    if core.intent(intent, line) {
        core.show(Output::DeckWritten(path));
    } else {
        core.outbox.file(FileRequest::Remove(path));
    }
}

/// Whether `done` sends the deck built from the pool: in limited play, with no search, scry or surveil open.
fn builds<G: Group>(core: &SessionCore<G>) -> bool {
    core.browsing.is_none() && core.limited.build().is_some()
}

/// The deck `done` sends, or why it is refused: the first game's deck while building, else the next one's once a
/// game is over. `None` when it closes what is browsed instead.
fn deck_to_send<G: Group>(core: &SessionCore<G>) -> Option<Result<Deck, Refusal>> {
    if !builds(core) {
        return None;
    }
    let build = core.limited.build()?;
    if !core.engine.is_building() && !core.engine.is_ended() {
        return Some(Err((ErrorKind::Refused, DoneRefused::DeckIsIn.to_string())));
    }
    Some(build.deck())
}
