//! When a command may run: the gate a queued command waits at ([`Gate`]). Each kind of command names its gate in
//! its module of the session (`session/cmd/`), which judges it; an entry of the table chooses its kind by what
//! its parser returns, so an entry whose parser returns an existing kind has its gate already.

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
