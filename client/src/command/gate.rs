//! When each kind of command may run: the gate a queued command waits at ([`Gate`], [`Command::gate`]). An entry
//! of the table chooses its kind by what its parser returns, so an entry whose parser returns an existing kind
//! needs nothing here.

use super::spec::{Command, UndoStep};

/// When a queued command may run; until then it waits, and the commands behind it too.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gate {
    /// At once, even before the opponent joined: the engine or the session says if it cannot.
    Always,
    /// Once the set-up is done (both libraries shuffled), or the game stopped, so that the engine says why not.
    SetUp,
    /// Once the set-up is done and no exchange is under way: cards are named as this player knows them once
    /// its peeks are answered. (`done` with no search, scry or surveil open, in a limited match, sends the deck
    /// built from the pool: the session opens its gate at once.)
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
            | Command::Undo(UndoStep::Accept | UndoStep::Refuse)
            | Command::Forfeit
            | Command::NewGame(_)
            | Command::Sideboard(_)
            | Command::Build(_)
            | Command::Pick(_)
            | Command::Pile(_)
            | Command::TakeCard(_)
            | Command::Building(_)
            | Command::NewCode
            | Command::Watch(_)
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
            // Once this player's own actions are in the game's order (a guest's proposals answered): else the
            // request would name an older action.
            Command::Wait | Command::Undo(UndoStep::Ask) => Gate::Idle,
            Command::Quit => Gate::Acknowledged,
        }
    }
}

#[cfg(test)]
mod tests {
    use fairdeck_shared::Seat;

    use super::*;
    use crate::command::parse;

    fn gate(line: &str) -> Gate {
        parse(line, Seat::HOST).unwrap_or_else(|e| panic!("{line}: {e}")).gate()
    }

    #[test]
    fn each_kind_of_command_waits_for_what_it_needs() {
        // Talking and asking need no table; table actions wait for the set-up.
        for line in [
            "say hi",
            "ask hand",
            "refuse hand",
            "table",
            "forfeit",
            "new-game",
            "new-code",
            "add 2 bolt",
            "pool",
            "watch-code",
            "new-watch-code",
            "watch-off",
            "watch-delay 2",
        ] {
            assert_eq!(gate(line), Gate::Always, "{line}");
        }
        for line in ["draw 1", "tap 3", "life 20", "token Goblin", "always-look", "end"] {
            assert_eq!(gate(line), Gate::SetUp, "{line}");
        }
        // Cards named in the library, or taken from its top, once the peeks under way are answered.
        for line in ["search", "scry 2", "take 3", "top 3", "done", "reveal hand", "reveal top", "mill 2"] {
            assert_eq!(gate(line), Gate::Settled, "{line}");
        }
        // One entry, two kinds: a card revealed by id waits for the set-up only.
        assert_eq!(gate("reveal 3"), Gate::SetUp);
        assert_eq!(gate("wait"), Gate::Idle);
        assert_eq!(gate("quit"), Gate::Acknowledged);
    }
}
