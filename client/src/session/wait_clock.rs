//! The wait clock: how long the engine has waited on the opponent for one exchange, and when that is worth
//! telling the player (a running count on the status line, then once that `forfeit` may end the game). And the
//! absence clock: how long the opponent has been away from the relay, and when `forfeit` may claim the game
//! against its absence.

use std::time::{Duration, Instant};

use fairdeck_shared::wire::Awaited;

/// A wait on the opponent shorter than this is the ordinary pace of an exchange, not worth showing.
pub const WAIT_SHOWN_AFTER: Duration = Duration::from_secs(5);
/// After this long waiting on the opponent for one exchange, the player is told that `forfeit` ends the game
/// (scripts get one `waiting` event): an honest client answers within a second or two, even on a slow link.
pub const FORFEIT_HINT_AFTER: Duration = Duration::from_secs(60);
/// After this long waiting on the opponent to build its limited deck, the player is told that `forfeit` ends the
/// game: building is a person's work, which sealed events give half an hour and more.
pub const BUILD_HINT_AFTER: Duration = Duration::from_secs(45 * 60);

/// After this long waiting on the opponent's pick of a grid draft, the player is told that `forfeit` ends the game.
pub const PICK_HINT_AFTER: Duration = Duration::from_secs(5 * 60);

/// How long a wait for `awaited` runs before the player is told that `forfeit` ends the game: a person's build or
/// pick is given its time, an exchange of the programs a minute.
pub fn forfeit_hint_after(awaited: &Awaited) -> Duration {
    match awaited {
        Awaited::Build => BUILD_HINT_AFTER,
        Awaited::Pick => PICK_HINT_AFTER,
        _ => FORFEIT_HINT_AFTER,
    }
}

/// How long the opponent must have been away from the relay before `forfeit` may claim the game against its
/// absence: time to come back after a crash (`fairdeck resume`) or a network that dropped for a moment. Only
/// this client counts it: the opponent's engine, which receives the claim, has no clock it could trust.
pub const FORFEIT_GRACE: Duration = Duration::from_secs(60);
/// The environment variable that sets another grace, in seconds, instead of [`FORFEIT_GRACE`]: for tests, which
/// cannot wait a minute.
pub const FORFEIT_GRACE_VARIABLE: &str = "FAIRDECK_FORFEIT_GRACE_SECS";

/// The grace of this process: [`FORFEIT_GRACE`], unless [`FORFEIT_GRACE_VARIABLE`] holds a number of seconds.
pub fn forfeit_grace() -> Duration {
    std::env::var(FORFEIT_GRACE_VARIABLE)
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .map_or(FORFEIT_GRACE, Duration::from_secs)
}

/// What the engine waits on the opponent for, and for how long so far.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Waiting {
    /// What is awaited (shown in the engine's words, such as "its strip of #12").
    pub awaited: Awaited,
    pub seconds: u64,
}

/// What the clock says to tell the player; the session shows each as an [`Output`](super::Output).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WaitNews {
    /// The running count, once past [`WAIT_SHOWN_AFTER`], each second; `None` once that wait is over.
    Count(Option<Waiting>),
    /// The wait passed [`FORFEIT_HINT_AFTER`]: once per exchange.
    Overdue(Waiting),
}

/// Times the engine's waits on the opponent and says what to tell the player. Time is a parameter, so
/// tests run it without a clock.
#[derive(Debug, Default)]
pub struct WaitClock {
    current: Option<WaitStart>,
}

#[derive(Debug)]
struct WaitStart {
    awaited: Awaited,
    since: Instant,
    /// The seconds last told in [`WaitNews::Count`], if any were.
    shown: Option<u64>,
    overdue_told: bool,
}

impl WaitClock {
    /// Takes in what the engine waits on the opponent for at `now` (`None`: nothing that counts) and
    /// returns what to show. Another `awaited` is another exchange: its wait starts from zero.
    pub fn observe(&mut self, awaited: Option<Awaited>, now: Instant) -> Vec<WaitNews> {
        let mut news = Vec::new();
        if self.current.as_ref().map(|c| &c.awaited) != awaited.as_ref() {
            if self.current.take().is_some_and(|c| c.shown.is_some()) {
                news.push(WaitNews::Count(None));
            }
            self.current = awaited.map(|awaited| WaitStart { awaited, since: now, shown: None, overdue_told: false });
        }
        let Some(current) = self.current.as_mut() else { return news };
        let waited = now.saturating_duration_since(current.since);
        if waited < WAIT_SHOWN_AFTER {
            return news;
        }
        let waiting = Waiting { awaited: current.awaited.clone(), seconds: waited.as_secs() };
        if current.shown != Some(waiting.seconds) {
            current.shown = Some(waiting.seconds);
            news.push(WaitNews::Count(Some(waiting.clone())));
        }
        if !current.overdue_told && forfeit_hint_after(&current.awaited) <= waited {
            current.overdue_told = true;
            news.push(WaitNews::Overdue(waiting));
        }
        news
    }

    /// When [`observe`](Self::observe) next has something to say about the wait under way: when it is worth
    /// showing, then each next second (the overdue hint falls on one).
    pub fn next_news(&self) -> Option<Instant> {
        let current = self.current.as_ref()?;
        let seconds = match current.shown {
            Some(shown) => shown + 1,
            None => WAIT_SHOWN_AFTER.as_secs(),
        };
        Some(current.since + Duration::from_secs(seconds))
    }

    /// Forgets the wait under way: this player's own connection dropped, so the opponent may not have had
    /// what it should answer, and owes nothing until it had the time to. Returns what clears the line.
    pub fn restart(&mut self) -> Option<WaitNews> {
        let shown = self.current.take()?.shown;
        shown.map(|_| WaitNews::Count(None))
    }
}

/// What the absence clock says to tell the player; the session shows each as an [`Output`](super::Output).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AbsenceNews {
    /// The seconds left before `forfeit` may claim the game against the absent opponent, each second while the
    /// grace runs; `None` once it no longer runs (the opponent is back, the grace passed, the game is over).
    Count(Option<u64>),
    /// The grace passed, the opponent away for `away` seconds: `forfeit` ends the game. Once per absence.
    ForfeitOpen { away: u64 },
}

/// Times the opponent's absence from the relay, from the first word of it until the opponent is back, and says
/// what to tell the player. Time is a parameter, so tests run it without a clock.
#[derive(Debug)]
pub struct AbsenceClock {
    grace: Duration,
    current: Option<AwayStart>,
    /// The seconds left last told in [`AbsenceNews::Count`], while the status line shows them.
    shown: Option<u64>,
}

#[derive(Debug)]
struct AwayStart {
    since: Instant,
    open_told: bool,
}

impl AbsenceClock {
    pub fn new(grace: Duration) -> AbsenceClock {
        AbsenceClock { grace, current: None, shown: None }
    }

    /// Takes in the relay's word, at `now`, that the opponent is here or away. An absence runs from the first
    /// word of it: a seat held, then given up, then waited for at the rendezvous is one absence.
    pub fn peer(&mut self, here: bool, now: Instant) {
        if here {
            self.current = None;
        } else if self.current.is_none() {
            self.current = Some(AwayStart { since: now, open_told: false });
        }
    }

    /// How long before `forfeit` may claim the game against the opponent's absence (zero once it may), or `None`
    /// while the relay has not said the opponent is away.
    pub fn forfeit_in(&self, now: Instant) -> Option<Duration> {
        self.current.as_ref().map(|away| (away.since + self.grace).saturating_duration_since(now))
    }

    /// How long the opponent has been away, if it is.
    pub fn away_for(&self, now: Instant) -> Option<Duration> {
        self.current.as_ref().map(|away| now.saturating_duration_since(away.since))
    }

    /// When [`observe`](Self::observe) next has something to say about the absence under way: the next whole
    /// second of the count, then the end of the grace; `None` once `forfeit` is open.
    pub fn next_news(&self) -> Option<Instant> {
        let away = self.current.as_ref().filter(|away| !away.open_told)?;
        // The count shows the seconds left rounded up: it changes as the time left reaches one second fewer.
        let left = match self.shown {
            Some(seconds) => Duration::from_secs(seconds.saturating_sub(1)),
            None => Duration::ZERO,
        };
        Some(away.since + self.grace.saturating_sub(left))
    }

    /// What to show at `now`: the count while the grace runs, then once that `forfeit` is open. Nothing is
    /// told while the absence does not matter (`counts` false: the game is over or stopped), and a count shown
    /// is cleared; the count is also cleared once the opponent is back.
    pub fn observe(&mut self, counts: bool, now: Instant) -> Vec<AbsenceNews> {
        let grace = self.grace;
        let cleared = |shown: &mut Option<u64>| shown.take().map(|_| AbsenceNews::Count(None));
        let Some(away) = self.current.as_mut().filter(|_| counts) else {
            // Back, or no longer worth counting: a count on the status line goes.
            return cleared(&mut self.shown).into_iter().collect();
        };
        let left = (away.since + grace).saturating_duration_since(now);
        let mut news = Vec::new();
        if !left.is_zero() {
            let seconds = u64::try_from(left.as_millis().div_ceil(1000)).unwrap_or(u64::MAX);
            if self.shown != Some(seconds) {
                self.shown = Some(seconds);
                news.push(AbsenceNews::Count(Some(seconds)));
            }
        } else if !away.open_told {
            away.open_told = true;
            news.extend(cleared(&mut self.shown));
            news.push(AbsenceNews::ForfeitOpen { away: now.saturating_duration_since(away.since).as_secs() });
        }
        news
    }
}

#[cfg(test)]
mod tests {
    use fairdeck_shared::Seat;
    use fairdeck_shared::table::CardId;

    use super::*;

    fn waiting(seconds: u64) -> Waiting {
        Waiting { awaited: Awaited::Strip { cards: vec![CardId(12)] }, seconds }
    }

    #[test]
    fn a_wait_shows_after_a_few_seconds_and_is_overdue_once_per_exchange() {
        let start = Instant::now();
        let at = |seconds: u64| start + Duration::from_secs(seconds);
        let strip = || Some(Awaited::Strip { cards: vec![CardId(12)] });
        let count = |seconds| WaitNews::Count(Some(waiting(seconds)));
        let mut clock = WaitClock::default();
        assert_eq!(clock.next_news(), None, "nothing awaited, nothing to wake for");
        assert_eq!(clock.observe(strip(), at(0)), []);
        assert_eq!(clock.next_news(), Some(at(5)), "woken when the wait is worth showing");
        assert_eq!(clock.observe(strip(), at(4)), [], "an exchange takes a moment");
        assert_eq!(clock.observe(strip(), at(5)), [count(5)]);
        assert_eq!(clock.next_news(), Some(at(6)), "then each second");
        assert_eq!(clock.observe(strip(), at(5)), [], "the same second is not sent twice");
        assert_eq!(clock.observe(strip(), at(61)), [count(61), WaitNews::Overdue(waiting(61))]);
        assert_eq!(clock.observe(strip(), at(62)), [count(62)]);
        // The strip came: the status line clears, and nothing more is said while nothing is awaited.
        assert_eq!(clock.observe(None, at(63)), [WaitNews::Count(None)]);
        assert_eq!(clock.observe(None, at(200)), []);
        // The next exchange is timed from its own start, and is overdue in its turn.
        let shuffle = || Some(Awaited::Shuffle { library: Seat::HOST });
        assert_eq!(clock.observe(shuffle(), at(300)), []);
        let news = clock.observe(shuffle(), at(400));
        assert_eq!(news.iter().filter(|n| matches!(n, WaitNews::Overdue(_))).count(), 1, "{news:?}");
        // Another thing awaited straight after a shown one clears the line until it is worth showing.
        assert_eq!(clock.observe(strip(), at(401)), [WaitNews::Count(None)]);
        assert_eq!(clock.observe(strip(), at(402)), []);
        // After a reconnection the same strip is timed afresh: the opponent may never have had the request.
        assert_eq!(clock.observe(strip(), at(407)), [count(6)]);
        assert_eq!(clock.restart(), Some(WaitNews::Count(None)));
        assert_eq!(clock.observe(strip(), at(408)), []);
        assert_eq!(clock.observe(strip(), at(413)), [count(5)]);
    }

    #[test]
    fn an_absence_counts_down_its_grace_then_opens_forfeit_once() {
        let start = Instant::now();
        let at = |millis: u64| start + Duration::from_millis(millis);
        let mut clock = AbsenceClock::new(Duration::from_secs(60));
        assert_eq!(clock.forfeit_in(at(0)), None, "nobody said the opponent is away");
        assert_eq!(clock.observe(true, at(0)), []);
        clock.peer(false, at(0));
        assert_eq!(clock.observe(true, at(0)), [AbsenceNews::Count(Some(60))]);
        assert_eq!(clock.next_news(), Some(at(1_000)), "woken as the count shows 59");
        assert_eq!(clock.observe(true, at(500)), [], "the same second is not sent twice");
        assert_eq!(clock.observe(true, at(18_000)), [AbsenceNews::Count(Some(42))]);
        assert_eq!(clock.next_news(), Some(at(19_000)));
        assert_eq!(clock.forfeit_in(at(18_000)), Some(Duration::from_secs(42)));
        // The seat given up, then waited for at the rendezvous: the same absence, not a new grace.
        clock.peer(false, at(30_000));
        assert_eq!(clock.forfeit_in(at(30_000)), Some(Duration::from_secs(30)));
        assert_eq!(clock.observe(true, at(59_500)), [AbsenceNews::Count(Some(1))]);
        assert_eq!(clock.next_news(), Some(at(60_000)), "woken when the grace ends");
        assert_eq!(clock.observe(true, at(60_000)), [AbsenceNews::Count(None), AbsenceNews::ForfeitOpen { away: 60 }]);
        assert_eq!(clock.next_news(), None, "forfeit is open: nothing more to wake for");
        assert_eq!(clock.forfeit_in(at(60_000)), Some(Duration::ZERO));
        assert_eq!(clock.observe(true, at(90_000)), [], "told once");
        // Back: the next absence has a grace of its own.
        clock.peer(true, at(91_000));
        assert_eq!(clock.forfeit_in(at(91_000)), None);
        clock.peer(false, at(100_000));
        assert_eq!(clock.observe(true, at(100_000)), [AbsenceNews::Count(Some(60))]);
        // Back during the count, or the game over: the status line clears.
        clock.peer(true, at(101_000));
        assert_eq!(clock.observe(true, at(101_000)), [AbsenceNews::Count(None)]);
        clock.peer(false, at(102_000));
        assert_eq!(clock.observe(true, at(102_000)), [AbsenceNews::Count(Some(60))]);
        assert_eq!(clock.observe(false, at(103_000)), [AbsenceNews::Count(None)]);
        assert_eq!(clock.observe(false, at(200_000)), []);
    }
}
