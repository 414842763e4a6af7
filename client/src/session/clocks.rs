//! The opponent as the core times it ([`Clocks`]): the wait on it ([`WaitClock`]), its absence from the relay
//! ([`AbsenceClock`]), and whether the relay says it holds its seat.

use std::time::{Duration, Instant};

use fairdeck_shared::wire::Awaited;

use super::frontend::Output;
use super::wait_clock::{AbsenceClock, WaitClock, WaitNews};

/// The wait and absence clocks, and the relay's word on the opponent.
pub(super) struct Clocks {
    wait: WaitClock,
    absence: AbsenceClock,
    /// Whether the relay says the opponent holds its seat: a game whose opponent left can be claimed, once
    /// `absence` says the grace passed.
    peer_here: bool,
}

impl Clocks {
    /// `forfeit` may claim the game against an absence of `forfeit_grace`.
    pub fn new(forfeit_grace: Duration) -> Clocks {
        Clocks { wait: WaitClock::default(), absence: AbsenceClock::new(forfeit_grace), peer_here: false }
    }

    pub fn peer_here(&self) -> bool {
        self.peer_here
    }

    /// Takes in the relay's word, at `now`, on whether the opponent holds its seat.
    pub fn peer(&mut self, here: bool, now: Instant) {
        self.peer_here = here;
        self.absence.peer(here, now);
    }

    /// What both clocks tell at `now`: the wait on `awaited`, and the absence while the clocks `count`.
    pub fn observe(&mut self, awaited: Option<Awaited>, counts: bool, now: Instant) -> Vec<Output> {
        let waits = self.wait.observe(awaited, now).into_iter().map(Output::from);
        waits.chain(self.absence.observe(counts, now).into_iter().map(Output::from)).collect()
    }

    /// The link is back: the wait counts from now.
    pub fn restart_wait(&mut self) -> Option<WaitNews> {
        self.wait.restart()
    }

    /// How long until `forfeit` may claim the game against the opponent's absence, if the relay said it left.
    pub fn forfeit_in(&self, now: Instant) -> Option<Duration> {
        self.absence.forfeit_in(now)
    }

    /// How long the opponent has been away, if it is.
    pub fn away_for(&self, now: Instant) -> Option<Duration> {
        self.absence.away_for(now)
    }

    /// When the wait clock has news next.
    pub fn next_wait_news(&self) -> Option<Instant> {
        self.wait.next_news()
    }

    /// When the absence clock has news next.
    pub fn next_absence_news(&self) -> Option<Instant> {
        self.absence.next_news()
    }
}
