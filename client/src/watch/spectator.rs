//! The spectator's side, sans-IO: the watch channel's guest end (the watch code's words its password, the watch
//! nameplate its identity), the feed read from it, and the observer every envelope goes to. What happens comes
//! out as [`News`], for the spectator's front end; the table is the observer's, seen from the inviting player's
//! seat ([`TableSource`]). The observer is of the game's suite, which the feed's start names: either suite fairdeck
//! plays, behind one trait ([`Follow`]), so that the spectator's front ends need not know it.

use std::collections::VecDeque;

use fairdeck_shared::Seat;
use fairdeck_shared::crypto::{CardInstance, Group, Modp2048, Ristretto255, Suite};
use fairdeck_shared::engine::Event;
use fairdeck_shared::observer::Observer;
use fairdeck_shared::table::{CardId, Table};
use fairdeck_shared::wire::{MessageKind, decode_envelope, peek_kind};

use super::error::WatchError;
use crate::channel::{Channel, Side};
use crate::code::Code;
use crate::session::spectators::Feed;
use crate::ui::table_view::TableSource;

/// What the spectator is told.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum News {
    /// The player's feed began: its seat (at the bottom of the table) and the delay in turns.
    Started { seat: Seat, delay: u8 },
    /// The players changed the delay.
    Delay(u8),
    /// One envelope went to the observer: its number in its sender's stream, its sender, its message's kind
    /// (none for bytes that are not an envelope: the observer's alert says so).
    Step { seq: Option<u64>, from: Seat, kind: Option<MessageKind> },
    /// An event of the observer, after the step it came of.
    Event(Event),
    /// The step and its events are told: the table as it stands after them.
    Table,
}

/// An observer of either suite, as the spectator uses it: [`Observer`]'s own methods.
trait Follow {
    fn observe(&mut self, from: Seat, bytes: &[u8]);
    fn poll_event(&mut self) -> Option<Event>;
    fn table(&self) -> &Table;
    fn identity(&self, card: CardId) -> Option<&CardInstance>;
    fn chooser(&self) -> Option<Seat>;
    fn loser(&self) -> Option<Seat>;
    fn is_ended(&self) -> bool;
    fn actions_applied(&self) -> u64;
    fn halted(&self) -> Option<&str>;
    fn unsupported(&self) -> Option<&str>;
}

impl<G: Group> Follow for Observer<G> {
    fn observe(&mut self, from: Seat, bytes: &[u8]) {
        Observer::observe(self, from, bytes);
    }

    fn poll_event(&mut self) -> Option<Event> {
        Observer::poll_event(self)
    }

    fn table(&self) -> &Table {
        Observer::table(self)
    }

    fn identity(&self, card: CardId) -> Option<&CardInstance> {
        Observer::identity(self, card)
    }

    fn chooser(&self) -> Option<Seat> {
        Observer::chooser(self)
    }

    fn loser(&self) -> Option<Seat> {
        Observer::loser(self)
    }

    fn is_ended(&self) -> bool {
        Observer::is_ended(self)
    }

    fn actions_applied(&self) -> u64 {
        Observer::actions_applied(self)
    }

    fn halted(&self) -> Option<&str> {
        Observer::halted(self)
    }

    fn unsupported(&self) -> Option<&str> {
        Observer::unsupported(self)
    }
}

/// A fresh observer of `suite`, its randomness from `seed`.
fn observer_of(suite: Suite, seed: [u8; 32]) -> Box<dyn Follow> {
    match suite {
        Suite::Ristretto255 => Box::new(Observer::<Ristretto255>::new(seed)),
        Suite::Modp2048 => Box::new(Observer::<Modp2048>::new(seed)),
    }
}

/// How often a spectator sends its HELLO again while the player's has not come ([`Spectator::resend_hello`]).
pub const HELLO_AGAIN: std::time::Duration = std::time::Duration::from_secs(1);

/// The spectator's channel, feed and observer.
pub struct Spectator {
    channel: Channel,
    /// The observer of the game's suite, made when the feed starts (until then, an empty table's).
    observer: Box<dyn Follow>,
    observer_seed: [u8; 32],
    /// The inviting player's seat, once its feed began.
    seat: Option<Seat>,
    news: VecDeque<News>,
}

impl Spectator {
    /// A spectator with the watch `code`; `channel_seed` and `observer_seed` are fresh secret randomness.
    pub fn new(code: &Code, channel_seed: [u8; 32], observer_seed: [u8; 32]) -> Spectator {
        Spectator {
            channel: Channel::new(Side::Guest, &code.password(), code.nameplate(), channel_seed),
            observer: observer_of(Suite::Ristretto255, observer_seed),
            observer_seed,
            seat: None,
            news: VecDeque::new(),
        }
    }

    /// Takes in a frame of the watch channel, from the player: every feed message it completes is read.
    pub fn handle_frame(&mut self, bytes: &[u8]) -> Result<(), WatchError> {
        let first_hello = !self.channel.has_peer_hello();
        self.channel.handle_frame(bytes).map_err(WatchError::from)?;
        if first_hello && self.channel.has_peer_hello() {
            // This side's HELLO went out when the spectator was seated, perhaps before the player's program was at
            // the relay to take it (a frame for nobody is dropped): the player's HELLO says it is there now.
            self.channel.resend_unacked();
        }
        while let Some(message) = self.channel.poll_message() {
            self.take(Feed::decode(&message)?)?;
        }
        Ok(())
    }

    /// Sends this side's HELLO again while the player's has not come: the relay drops a spectator's frames while the
    /// player's watch link is away, and a player's program that comes back takes the spectator at this seat for the
    /// one it knew (whose channel it keeps), so only a new HELLO tells it that a new channel starts. The driver
    /// calls it every [`HELLO_AGAIN`].
    pub fn resend_hello(&mut self) {
        if !self.channel.has_peer_hello() {
            self.channel.resend_unacked();
        }
    }

    /// The next frame for the player (the handshake, acknowledgements).
    pub fn poll_frame(&mut self) -> Option<Vec<u8>> {
        self.channel.poll_frame()
    }

    /// The next thing to tell the spectator.
    pub fn poll_news(&mut self) -> Option<News> {
        self.news.pop_front()
    }

    /// Whether the player proved it knows the watch code.
    pub fn is_established(&self) -> bool {
        self.channel.is_established()
    }

    /// Why the observer stopped on a breach, if it did.
    pub fn halted(&self) -> Option<&str> {
        self.observer.halted()
    }

    /// Why the observer cannot follow this game, if it cannot (limited play).
    pub fn unsupported(&self) -> Option<&str> {
        self.observer.unsupported()
    }

    pub(super) fn take(&mut self, feed: Feed) -> Result<(), WatchError> {
        match (feed, self.seat) {
            (Feed::Start { suite, seat, delay }, None) => {
                self.observer = observer_of(suite, self.observer_seed);
                self.seat = Some(seat);
                self.news.push_back(News::Started { seat, delay });
            }
            (Feed::Start { .. }, Some(_)) => return Err(WatchError::Feed("a second start".into())),
            (_, None) => return Err(WatchError::Feed("a message before the start".into())),
            (Feed::Delay { turns }, Some(_)) => self.news.push_back(News::Delay(turns)),
            (Feed::Envelope { from, bytes }, Some(_)) => {
                let envelope = decode_envelope(&bytes).ok();
                let kind = envelope.as_ref().and_then(|envelope| peek_kind(&envelope.body).ok());
                self.news.push_back(News::Step { seq: envelope.map(|envelope| envelope.seq), from, kind });
                self.observer.observe(from, &bytes);
                while let Some(event) = self.observer.poll_event() {
                    self.news.push_back(News::Event(event));
                }
                self.news.push_back(News::Table);
            }
        }
        Ok(())
    }

    /// Whether the player's feed began (the table has a bottom seat).
    pub fn started(&self) -> bool {
        self.seat.is_some()
    }
}

/// The observer's table, from the inviting player's seat; a spectator names both players.
impl TableSource for Spectator {
    fn seat(&self) -> Seat {
        self.seat.unwrap_or(Seat::HOST)
    }

    fn plays(&self) -> bool {
        false
    }

    fn table(&self) -> &Table {
        self.observer.table()
    }

    fn identity(&self, card: CardId) -> Option<&CardInstance> {
        self.observer.identity(card)
    }

    fn chooser(&self) -> Option<Seat> {
        self.observer.chooser()
    }

    fn loser(&self) -> Option<Seat> {
        self.observer.loser()
    }

    fn is_ended(&self) -> bool {
        self.observer.is_ended()
    }

    fn actions_applied(&self) -> u64 {
        self.observer.actions_applied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::spectators::WatchHub;

    /// Frames both ways between a player's hub and spectator 0 until nothing moves; the first error.
    fn exchange(hub: &mut WatchHub, spectator: &mut Spectator) -> Result<(), WatchError> {
        loop {
            let mut moved = false;
            while let Some(frame) = hub.poll_frame() {
                spectator.handle_frame(&frame[1..])?;
                moved = true;
            }
            while let Some(payload) = spectator.poll_frame() {
                hub.handle_frame(&[&[0][..], &payload].concat());
                moved = true;
            }
            if !moved {
                return Ok(());
            }
        }
    }

    fn hub(code: &Code, seed: u8) -> WatchHub {
        let mut hub = WatchHub::new(Seat::GUEST, Ristretto255::SUITE, [seed; 32]);
        hub.opened(code.clone(), 64 * 1024);
        hub.joined(0);
        hub
    }

    #[test]
    fn a_spectator_seated_before_its_player_was_at_the_relay_is_fed_once_the_player_comes() {
        let code = Code::from_secret("9", &[5; 32]);
        let mut spectator = Spectator::new(&code, [1; 32], [2; 32]);
        // Its HELLO reaches nobody: the player's program was not at the relay yet.
        while spectator.poll_frame().is_some() {}
        exchange(&mut hub(&code, 3), &mut spectator).expect("an honest player");
        assert!(spectator.is_established() && spectator.started());
    }

    #[test]
    fn a_spectator_back_at_a_seat_its_player_knew_is_fed_afresh_once_it_sends_its_hello_again() {
        let code = Code::from_secret("9", &[5; 32]);
        let mut hub = hub(&code, 3);
        let mut first = Spectator::new(&code, [1; 32], [2; 32]);
        exchange(&mut hub, &mut first).expect("an honest player");
        assert!(first.started());
        // The spectator's connection dropped and it takes the same seat afresh; its HELLO reaches nobody, the
        // player's watch link being away too. The link comes back and the relay names spectator 0, which the
        // player's hub takes for the one it knew: it resends what that one lacked.
        let mut again = Spectator::new(&code, [7; 32], [8; 32]);
        while again.poll_frame().is_some() {}
        hub.opened(code.clone(), 64 * 1024);
        hub.joined(0);
        exchange(&mut hub, &mut again).expect("frames of the old channel are dropped");
        assert!(!again.is_established(), "the player lacks the new HELLO");
        again.resend_hello();
        exchange(&mut hub, &mut again).expect("an honest player");
        assert!(again.is_established() && again.started());
        // Once the player's HELLO came, nothing is sent again.
        again.resend_hello();
        assert_eq!(again.poll_frame(), None);
    }

    #[test]
    fn a_modp2048_game_is_followed_by_an_observer_of_the_suite_its_feed_names() {
        let code = Code::from_secret("9", &[5; 32]);
        let mut spectator = Spectator::new(&code, [1; 32], [2; 32]);
        spectator.take(Feed::Start { suite: Suite::Modp2048, seat: Seat::HOST, delay: 0 }).unwrap();
        for (from, envelope) in crate::session::spectators::hellos::<Modp2048>() {
            let bytes = fairdeck_shared::wire::encode_envelope(&envelope);
            spectator.take(Feed::Envelope { from, bytes }).unwrap();
        }
        let news: Vec<News> = std::iter::from_fn(|| spectator.poll_news()).collect();
        let connected = |n: &&News| matches!(n, News::Event(Event::Connected { suite: Suite::Modp2048, .. }));
        assert_eq!(news.iter().filter(connected).count(), 2, "{news:?}");
        assert!(!news.iter().any(|n| matches!(n, News::Event(Event::Alert(_)))), "{news:?}");
        assert_eq!(spectator.halted(), None);
    }

    #[test]
    fn a_limited_match_is_told_as_one_spectators_cannot_follow_without_an_alert() {
        use fairdeck_shared::engine::{LimitedConfig, PoolList, PoolSource};
        use fairdeck_shared::pair::Pair;
        use fairdeck_shared::wire::{LimitedFormat, PoolHash};
        let pool = || PoolList {
            hash: PoolHash([7; 32]),
            source: PoolSource::Cube((0..40).map(|i| format!("Cube card {i}")).collect()),
        };
        let host = LimitedConfig { pool: pool(), format: Some(LimitedFormat::Sealed { cards: 15 }) };
        let mut pair = Pair::<Ristretto255>::limited(host, LimitedConfig { pool: pool(), format: None }, 4);
        pair.drive();
        let code = Code::from_secret("9", &[5; 32]);
        let mut spectator = Spectator::new(&code, [1; 32], [2; 32]);
        spectator.take(Feed::Start { suite: Suite::Ristretto255, seat: Seat::HOST, delay: 0 }).unwrap();
        assert_eq!(spectator.unsupported(), None);
        for (from, envelope) in pair.engine(Seat::HOST).record() {
            let bytes = fairdeck_shared::wire::encode_envelope(envelope);
            spectator.take(Feed::Envelope { from: *from, bytes }).unwrap();
        }
        assert!(
            spectator.unsupported().is_some_and(|why| why.contains("limited play")),
            "{:?}",
            spectator.unsupported()
        );
        let news: Vec<News> = std::iter::from_fn(|| spectator.poll_news()).collect();
        assert!(!news.iter().any(|n| matches!(n, News::Event(Event::Alert(_)))), "{news:?}");
        assert_eq!(spectator.halted(), None);
    }

    #[test]
    fn the_feed_starts_with_the_players_seat_and_a_restarted_player_is_told_apart() {
        let code = Code::from_secret("9", &[5; 32]);
        let mut spectator = Spectator::new(&code, [1; 32], [2; 32]);
        exchange(&mut hub(&code, 3), &mut spectator).expect("an honest player");
        assert!(spectator.is_established() && spectator.started());
        assert_eq!(spectator.poll_news(), Some(News::Started { seat: Seat::GUEST, delay: 0 }));
        assert_eq!(TableSource::seat(&spectator), Seat::GUEST, "the inviting player at the bottom");
        // The player's program starts again (its game resumed): a new channel, which the spectator's refuses.
        let restarted = exchange(&mut hub(&code, 4), &mut spectator);
        assert!(matches!(restarted, Err(WatchError::Restarted)), "{restarted:?}");
        // With other words the key exchange fails.
        let mut guesser = Spectator::new(&Code::from_secret("9", &[6; 32]), [1; 32], [2; 32]);
        assert!(matches!(exchange(&mut hub(&code, 3), &mut guesser), Err(WatchError::WrongCode)));
    }
}
