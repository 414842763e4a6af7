//! The spectator's side, sans-IO: the watch channel's guest end (the watch code's words its password, the watch
//! nameplate its identity), the feed read from it, and the observer every envelope goes to. What happens comes
//! out as [`News`], for the spectator's front end; the table is the observer's, seen from the inviting player's
//! seat ([`TableSource`]).

use std::collections::VecDeque;

use fairdeck_shared::Seat;
use fairdeck_shared::crypto::{CardInstance, Group, Ristretto255};
use fairdeck_shared::engine::Event;
use fairdeck_shared::observer::Observer;
use fairdeck_shared::table::{CardId, Table};
use fairdeck_shared::wire::{MessageKind, decode_envelope, peek_kind};

use super::error::WatchError;
use super::feed::Feed;
use crate::channel::{Channel, Side};
use crate::code::Code;
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

/// The spectator's channel, feed and observer.
pub struct Spectator {
    channel: Channel,
    observer: Observer<Ristretto255>,
    /// The inviting player's seat, once its feed began.
    seat: Option<Seat>,
    news: VecDeque<News>,
}

impl Spectator {
    /// A spectator with the watch `code`; `channel_seed` and `observer_seed` are fresh secret randomness.
    pub fn new(code: &Code, channel_seed: [u8; 32], observer_seed: [u8; 32]) -> Spectator {
        Spectator {
            channel: Channel::new(Side::Guest, &code.password(), code.nameplate(), channel_seed),
            observer: Observer::new(observer_seed),
            seat: None,
            news: VecDeque::new(),
        }
    }

    /// Takes in a frame of the watch channel, from the player: every feed message it completes is read.
    pub fn handle_frame(&mut self, bytes: &[u8]) -> Result<(), WatchError> {
        self.channel.handle_frame(bytes).map_err(WatchError::from)?;
        while let Some(message) = self.channel.poll_message() {
            self.take(Feed::decode(&message)?)?;
        }
        Ok(())
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

    pub fn observer(&self) -> &Observer<Ristretto255> {
        &self.observer
    }

    pub(super) fn take(&mut self, feed: Feed) -> Result<(), WatchError> {
        match (feed, self.seat) {
            (Feed::Start { suite, seat, delay }, None) => {
                if suite != Ristretto255::SUITE {
                    return Err(WatchError::Suite(suite));
                }
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
        self.seat.unwrap_or(Seat::Host)
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
