//! The vocabulary between the session core and its driver about the link: how a seat is claimed ([`Claim`]),
//! what the relay answered ([`Seated`]), and what the core asks of the link ([`LinkAction`]).

use fairdeck_relay_protocol::{PeerState, ReportedResult};

use crate::channel::Rendezvous;

/// How a seat is claimed on a new connection.
#[derive(Clone, Debug)]
pub(super) enum Claim {
    /// Taken back with its token.
    Token(String),
    /// This side's seat in the game's rendezvous room (see [`crate::channel::Channel::rendezvous`]).
    Rendezvous(Rendezvous),
    /// Hosting, before any guest proved the code: a new room for the game.
    NewRoom,
}

/// What the relay answered a [`Claim`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Seated {
    /// The seat was taken back with its token; the nameplate while the room waits for its guest.
    Resumed { peer: PeerState, waiting_as: Option<String> },
    /// At the game's rendezvous, with the token of the seat there.
    Met { token: String, peer: PeerState },
    /// A new room, under this nameplate.
    Created { nameplate: String, token: String },
}

/// What the core asks of the watch link, the player's second connection, for its spectators.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum WatchAction {
    /// Connect and open this seat's watch seats with the seat's token (`host_watch`); the driver answers with
    /// `WatchInput::Opened` or `WatchInput::Refused`.
    Open(String),
    /// Drop the watch link.
    Close,
}

/// What the core asks of the link, in order, after the frames and control messages queued before it.
#[derive(Clone, Debug)]
pub(super) enum LinkAction {
    /// Connect to the relay and claim a seat; the driver answers with `Input::Seated` or `Input::Unseated`.
    Claim(Claim),
    /// Leave the room for good, after this report (best effort: the session is ending).
    Leave(Option<ReportedResult>),
    /// Guest with a wrong code: report it and drop the connection without `leave`, so that the host's room
    /// stays open for the right code.
    Abandon(ReportedResult),
    /// Drop the connection without a word: it is gone, or the room is over.
    Close,
}
