//! Watching a game: the feed a player's program sends each spectator inside an end-to-end channel, the
//! player's side that keeps it (the delay too), and `fairdeck watch`, the spectator's side.
//!
//! | file | job |
//! |---|---|
//! | `feed.rs` | the feed's messages ([`Feed`]): the game's start, the delay, each envelope; their encoding |
//! | `hub.rs` | the player's side, sans-IO ([`WatchHub`]): one channel per spectator, the envelopes after the delay |
//! | `spectator.rs` | the spectator's side, sans-IO ([`Spectator`]): the channel, the feed, the observer |
//! | `run.rs` | `fairdeck watch`: the watch seat at the relay, the spectator driven, a [`WatchFront`] shown |
//! | `script.rs` | `fairdeck watch --script`: JSON lines |
//! | `screen.rs` | `fairdeck watch`'s terminal: the read-only table, drawn as the game draws its own |
//! | `command.rs` | the command as the program runs it: configuration, terminal, exit code |
//! | `error.rs` | [`WatchError`] |

mod command;
mod error;
mod feed;
mod hub;
mod run;
mod screen;
mod script;
mod spectator;

pub use command::command;
pub use error::WatchError;
pub use feed::{Feed, FeedError, MAX_DELAY};
pub use hub::{FailedOpening, OpeningFailure, WRONG_WATCH_CODES_PER_CODE, WatchHub};
pub use run::{Ended, WatchFront, WatchOptions, watch};
pub use script::watch_script;
pub use spectator::{News, Spectator};

/// Both players' hellos of a game of one-card decks in suite `G`, host first, as a record holds them.
#[cfg(test)]
fn hellos<G: fairdeck_shared::crypto::Group>() -> Vec<(fairdeck_shared::Seat, fairdeck_shared::wire::Envelope)> {
    use fairdeck_shared::Seat;
    use fairdeck_shared::engine::{DeckCard, DeckList, Engine, EngineConfig};
    let hello = |seat: Seat| {
        let config = EngineConfig { name: format!("{seat:?}"), software: "test".into() };
        let deck = DeckList { library: vec![DeckCard { name: "Card 0".into(), back: 0 }], ..DeckList::default() };
        let mut engine = Engine::<G>::new(seat, config, deck, [seat as u8 + 1; 32]).unwrap();
        let bytes = engine.poll_transmit().unwrap();
        (seat, fairdeck_shared::wire::decode_envelope(&bytes).unwrap())
    };
    vec![hello(Seat::HOST), hello(Seat::GUEST)]
}
