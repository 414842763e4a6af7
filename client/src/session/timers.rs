//! The core's timers, as quinn-proto's `TimerTable`: one deadline per kind of timer, the core's next timeout the
//! earliest of them. Each is set by the part that owns what it times (`SessionCore::arm_timers`).

use std::time::Instant;

/// A kind of timer of the core.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Timer {
    /// The next attempt at the seat (its backoff).
    Retry,
    /// The end of `quit`'s grace, waiting for the acknowledgements.
    Quit,
    /// The next news of the wait on the opponent.
    Wait,
    /// The next news of the opponent's absence.
    Absence,
    /// The watch link opened again.
    Watch,
    /// An ack held back leaves with no message of ours to carry it.
    Ack,
}

impl Timer {
    const COUNT: usize = 6;

    fn index(self) -> usize {
        self as usize
    }
}

/// A deadline for each kind of [`Timer`], or none.
#[derive(Clone, Debug, Default)]
pub(super) struct TimerTable {
    deadlines: [Option<Instant>; Timer::COUNT],
}

impl TimerTable {
    /// Sets `timer` to `at`; `None` stops it.
    pub fn set(&mut self, timer: Timer, at: Option<Instant>) {
        self.deadlines[timer.index()] = at;
    }

    pub fn get(&self, timer: Timer) -> Option<Instant> {
        self.deadlines[timer.index()]
    }

    /// Whether `timer` is set and its deadline came by `now`.
    pub fn is_expired(&self, timer: Timer, now: Instant) -> bool {
        self.get(timer).is_some_and(|at| at <= now)
    }

    /// The earliest deadline of all.
    pub fn next_timeout(&self) -> Option<Instant> {
        self.deadlines.iter().flatten().min().copied()
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn the_next_timeout_is_the_earliest_timer_set_and_a_stopped_one_counts_no_more() {
        let now = Instant::now();
        let mut timers = TimerTable::default();
        assert_eq!(timers.next_timeout(), None);
        timers.set(Timer::Wait, Some(now + Duration::from_secs(5)));
        timers.set(Timer::Ack, Some(now + Duration::from_millis(10)));
        assert_eq!(timers.next_timeout(), Some(now + Duration::from_millis(10)));
        assert!(timers.is_expired(Timer::Ack, now + Duration::from_millis(10)));
        assert!(!timers.is_expired(Timer::Wait, now + Duration::from_millis(10)));
        timers.set(Timer::Ack, None);
        assert_eq!(timers.next_timeout(), Some(now + Duration::from_secs(5)));
    }
}
