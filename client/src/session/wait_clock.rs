//! The wait clock: how long the engine has waited on the opponent for one exchange, and when that is worth
//! telling the player (a running count on the status line, then once that `forfeit` may end the game).

use std::time::Duration;

use fairdeck_shared::wire::Awaited;
use tokio::time::Instant;

/// A wait on the opponent shorter than this is the ordinary pace of an exchange, not worth showing.
pub const WAIT_SHOWN_AFTER: Duration = Duration::from_secs(5);
/// After this long waiting on the opponent for one exchange, the player is told that `forfeit` ends the game
/// (scripts get one `waiting` event): an honest client answers within a second or two, even on a slow link.
pub const FORFEIT_HINT_AFTER: Duration = Duration::from_secs(60);

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
        if !current.overdue_told && FORFEIT_HINT_AFTER <= waited {
            current.overdue_told = true;
            news.push(WaitNews::Overdue(waiting));
        }
        news
    }

    /// Forgets the wait under way: this player's own connection dropped, so the opponent may not have had
    /// what it should answer, and owes nothing until it had the time to. Returns what clears the line.
    pub fn restart(&mut self) -> Option<WaitNews> {
        let shown = self.current.take()?.shown;
        shown.map(|_| WaitNews::Count(None))
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
        assert_eq!(clock.observe(strip(), at(0)), []);
        assert_eq!(clock.observe(strip(), at(4)), [], "an exchange takes a moment");
        assert_eq!(clock.observe(strip(), at(5)), [count(5)]);
        assert_eq!(clock.observe(strip(), at(5)), [], "the same second is not sent twice");
        assert_eq!(clock.observe(strip(), at(61)), [count(61), WaitNews::Overdue(waiting(61))]);
        assert_eq!(clock.observe(strip(), at(62)), [count(62)]);
        // The strip came: the status line clears, and nothing more is said while nothing is awaited.
        assert_eq!(clock.observe(None, at(63)), [WaitNews::Count(None)]);
        assert_eq!(clock.observe(None, at(200)), []);
        // The next exchange is timed from its own start, and is overdue in its turn.
        let shuffle = || Some(Awaited::Shuffle { library: Seat::Host });
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
}
