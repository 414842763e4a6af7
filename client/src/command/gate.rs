//! When each kind of command may run: the gate a queued command waits at ([`Gate`], [`Command::gate`]). An entry
//! of the table chooses its kind by what its parser returns, so an entry whose parser returns an existing kind
//! needs nothing here.

use super::spec::Command;

/// When a queued command may run; until then it waits, and the commands behind it too.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gate {
    /// At once, even before the opponent joined: the engine or the session says if it cannot.
    Always,
    /// Once the set-up is done (both libraries shuffled), or the game stopped, so that the engine says why not.
    SetUp,
    /// Once the set-up is done and no exchange is under way: cards are named as this player knows them once
    /// its peeks are answered.
    Settled,
    /// Once nothing is in flight: no exchange, nothing unsent or unacknowledged (`wait`).
    Idle,
    /// Once the opponent acknowledged what was sent, or after a grace (`quit`).
    Acknowledged,
}

impl Command {
    /// When the command may run.
    pub fn gate(&self) -> Gate {
        match self {
            Command::Chat(_)
            | Command::Ask(..)
            | Command::Refuse(_)
            | Command::Forfeit
            | Command::NewGame(_)
            | Command::NewCode
            | Command::Table => Gate::Always,
            Command::Act(_)
            | Command::OnCard(..)
            | Command::PlayerValue { .. }
            | Command::Token { .. }
            | Command::WatchTop(_)
            | Command::End => Gate::SetUp,
            Command::OnTable(_)
            | Command::Browse(..)
            | Command::Take(..)
            | Command::Place(..)
            | Command::Done
            | Command::RevealHand
            | Command::RevealTop => Gate::Settled,
            Command::Wait => Gate::Idle,
            Command::Quit => Gate::Acknowledged,
        }
    }
}
