//! Commands worked out from the table as it stands when they run (`mill 3`, …; a [`TableAct`]): once the set-up
//! is done and no exchange is under way, so that the cards are named as this player knows them.

use fairdeck_shared::crypto::Group;

use crate::command::{Command, Entered, ErrorKind, Gate, Parsed, Spec, TableAct};
use crate::session::state::SessionCore;

pub(super) const GATE: Gate = Gate::Settled;

/// Hands the engine the actions `act` works out; what it does next, if anything, waits at the head of the queue.
pub(super) fn run<G: Group>(core: &mut SessionCore<G>, spec: &'static Spec, act: TableAct, line: &str) {
    match act.actions(&core.engine) {
        Ok(actions) => {
            let then = act.then(&actions);
            if core.intents(actions, line)
                && let Some(then) = then
            {
                // First in the queue: it runs once what was just handed in is answered (its gate).
                let parsed = Ok(Parsed { spec, command: Command::OnTable(then) });
                core.commands.push_front(Entered { line: line.to_string(), parsed });
            }
        }
        Err(message) => core.refuse(ErrorKind::Refused, line, message),
    }
}
