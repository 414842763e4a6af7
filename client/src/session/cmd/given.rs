//! Commands that are an intent for the engine as typed: an action (`draw 1`, …), `end`, talking and asking
//! (`say`, `ask`, `refuse`), undo by consent, and a draft's picks (`pick`, `pile`).

use fairdeck_shared::crypto::Group;
use fairdeck_shared::engine::Intent;

use crate::command::{Gate, UndoStep};
use crate::session::state::SessionCore;

/// An action on the table, or the game's end: once the set-up is done.
pub(super) const ON_TABLE: Gate = Gate::SetUp;
/// Talking, asking, and a draft's picks need no table.
pub(super) const ANY_TIME: Gate = Gate::Always;

/// Asking to undo waits until this player's own actions are in the game's order (a guest's proposals answered):
/// else the request would name an older action. An answer goes at once.
pub(super) fn undo_gate(step: UndoStep) -> Gate {
    match step {
        UndoStep::Ask => Gate::Idle,
        UndoStep::Accept | UndoStep::Refuse => Gate::Always,
    }
}

pub(super) fn undo_intent(step: UndoStep) -> Intent {
    match step {
        UndoStep::Ask => Intent::AskUndo,
        UndoStep::Accept | UndoStep::Refuse => Intent::AnswerUndo(step == UndoStep::Accept),
    }
}

/// Hands `intent` to the engine; a refusal is shown.
pub(super) fn run<G: Group>(core: &mut SessionCore<G>, intent: Intent, line: &str) {
    core.intent(intent, line);
}
