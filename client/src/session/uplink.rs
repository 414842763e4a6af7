//! The link to the relay as the core knows it ([`Uplink`]): up, an attempt at the seat waiting or under way, or
//! closed; whether both seats are taken; the relay and the seat's token. The driver holds the WebSocket
//! (`link.rs`); taking the seat back is `reconnect.rs`'s.

use std::time::{Duration, Instant};

use super::claim::Claim;
use crate::save::RelayPlace;

/// The core's side of the link to the relay.
#[derive(Debug)]
pub(super) struct Uplink {
    state: LinkState,
    /// Binary frames may go to the relay only once both seats are taken.
    paired: bool,
    /// From the relay's `closing`: when to reconnect, and for how long to keep trying.
    restart_hint: Option<(Duration, Duration)>,
    /// The relay, its CA, and the seat's token there while the relay knows it.
    place: RelayPlace,
}

/// The link as the core knows it.
#[derive(Debug)]
pub(super) enum LinkState {
    /// A WebSocket is up, the seat on it.
    Up,
    /// The seat is to be taken back at `retry.at`: the core's timer.
    Waiting(Retry),
    /// The driver is connecting and claiming the seat.
    Attempting(Retry),
    /// No connection and none tried: the room is over and the game does not go on there (or the session is
    /// leaving).
    Closed,
}

/// One attempt to take the seat back, and what to do if it fails.
#[derive(Clone, Debug)]
pub(super) struct Retry {
    pub claim: Claim,
    /// When the attempt is to start.
    pub at: Instant,
    /// After this, a failed attempt ends the session (the game is saved: `fairdeck resume` goes on).
    pub deadline: Instant,
    /// The wait before the next attempt if this one fails.
    pub delay: Duration,
}

impl Uplink {
    /// The link in `state` to the relay at `place`, not paired.
    pub fn new(state: LinkState, place: RelayPlace) -> Uplink {
        Uplink { state, paired: false, restart_hint: None, place }
    }

    pub fn is_up(&self) -> bool {
        matches!(self.state, LinkState::Up)
    }

    /// Whether both seats are taken, as the relay last said.
    pub fn paired(&self) -> bool {
        self.paired
    }

    /// Whether frames can go to the opponent: both seats taken and the link up.
    pub fn can_transmit(&self) -> bool {
        self.paired && self.is_up()
    }

    /// The relay's word on whether both seats are taken.
    pub fn pair(&mut self, paired: bool) {
        self.paired = paired;
    }

    /// The connection dropped or is dropped: nothing is tried until told.
    pub fn close(&mut self) {
        self.state = LinkState::Closed;
        self.paired = false;
    }

    /// A new connection holds the seat.
    pub fn up(&mut self) {
        self.state = LinkState::Up;
    }

    /// The seat is to be taken back as `retry` says.
    pub fn wait(&mut self, retry: Retry) {
        self.state = LinkState::Waiting(retry);
    }

    /// The attempt waited for, once its moment came by `now`: under way, its claim for the driver to make.
    pub fn attempt_due(&mut self, now: Instant) -> Option<Claim> {
        match &self.state {
            LinkState::Waiting(retry) if retry.at <= now => {
                let claim = retry.claim.clone();
                self.state = LinkState::Attempting(retry.clone());
                Some(claim)
            }
            _ => None,
        }
    }

    /// An attempt ended: the link is closed until told otherwise; the attempt, if one was under way.
    pub fn end_attempt(&mut self) -> Option<Retry> {
        match std::mem::replace(&mut self.state, LinkState::Closed) {
            LinkState::Attempting(retry) => Some(retry),
            _ => None,
        }
    }

    /// When the attempt waited for is to start.
    pub fn retry_at(&self) -> Option<Instant> {
        match &self.state {
            LinkState::Waiting(retry) => Some(retry.at),
            _ => None,
        }
    }

    /// A restarting relay's word on when to come back, and for how long to try.
    pub fn hint_restart(&mut self, hint: (Duration, Duration)) {
        self.restart_hint = Some(hint);
    }

    /// The restarting relay's word, taken once.
    pub fn take_restart_hint(&mut self) -> Option<(Duration, Duration)> {
        self.restart_hint.take()
    }

    pub fn place(&self) -> &RelayPlace {
        &self.place
    }

    /// The seat's token, while the relay knows it.
    pub fn token(&self) -> Option<&str> {
        self.place.token.as_deref()
    }

    /// The relay gave the seat `token`.
    pub fn keep_token(&mut self, token: String) {
        self.place.token = Some(token);
    }

    /// The relay no longer knows the seat's token.
    pub fn forget_token(&mut self) {
        self.place.token = None;
    }
}
