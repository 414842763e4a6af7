//! What the session core keeps of its player's spectators ([`Watching`]), the watch link's state, and what the
//! driver's watch link brings ([`WatchInput`]); the core's work on them is in `watching.rs`.

use std::time::Instant;

use super::error::SessionError;
use super::spectators::WatchHub;

/// What the core keeps of watching.
pub(super) struct Watching {
    pub hub: WatchHub,
    pub link: WatchLinkState,
    /// The player asked for watching (`watch-code`): the watch link is kept open.
    pub wanted: bool,
    /// Watching is off in this game (`watch-off`, or the relay said so): for good.
    pub off: bool,
    /// This seat's choice of delay, and the larger of both seats' choices as the relay last told it.
    pub own_delay: u8,
    pub both_delay: u8,
}

impl Watching {
    pub fn new(hub: WatchHub) -> Watching {
        Watching { hub, link: WatchLinkState::Closed, wanted: false, off: false, own_delay: 0, both_delay: 0 }
    }
}

/// The watch link as the core knows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum WatchLinkState {
    Closed,
    /// The driver is opening it.
    Opening,
    Up,
    /// To be opened again at this time.
    Waiting(Instant),
}

/// What the driver's watch link brings the core.
pub(super) enum WatchInput {
    /// The relay opened this seat's watch seats under `nameplate`; frames up to `max_frame` bytes.
    Opened { nameplate: String, max_frame: usize },
    /// Opening failed.
    Refused(SessionError),
    /// `[K] ++ payload`, from spectator K.
    Frame(Vec<u8>),
    /// A control message of the relay on the watch link.
    Control(String),
    /// The watch link dropped.
    Lost,
}
