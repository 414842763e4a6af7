//! The session's own commands: `table` (the table shown), `wait` (until nothing is in flight) and `quit` (once
//! the opponent acknowledged what was sent, or after a grace).

use fairdeck_shared::crypto::Group;

use crate::command::Gate;
use crate::session::claim::LinkAction;
use crate::session::frontend::Output;
use crate::session::state::{Flow, SessionCore};

pub(super) const TABLE_GATE: Gate = Gate::Always;
/// Once this player's own actions are in the game's order, and nothing is unsent or unacknowledged.
pub(super) const WAIT_GATE: Gate = Gate::Idle;
pub(super) const QUIT_GATE: Gate = Gate::Acknowledged;

/// `table`: the table shown.
pub(super) fn table<G: Group>(core: &mut SessionCore<G>) {
    core.show(Output::Table);
}

/// `wait`: nothing is in flight any more.
pub(super) fn wait<G: Group>(core: &mut SessionCore<G>) {
    core.show(Output::Idle);
}

/// `quit`: the table shown a last time, and the room left.
pub(super) fn quit<G: Group>(core: &mut SessionCore<G>) -> Flow {
    core.show(Output::Table);
    core.outbox.link(LinkAction::Leave(None));
    Flow::Quit
}
