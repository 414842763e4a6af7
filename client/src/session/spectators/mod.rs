//! The player's side of watching: the feed the player's program sends each spectator inside an end-to-end
//! channel, and the hub that keeps one channel per spectator (the delay too). The session core serves its
//! spectators through these; `fairdeck watch`, the spectator's program, is [`crate::watch`].
//!
//! | file | job |
//! |---|---|
//! | `feed.rs` | the feed's messages ([`Feed`]): the game's start, the delay, each envelope; their encoding |
//! | `hub.rs` | the player's side, sans-IO ([`WatchHub`]): one channel per spectator, the envelopes after the delay |

mod feed;
mod hub;

pub(crate) use feed::{Feed, FeedError};
pub use hub::WatchHub;
pub(crate) use hub::{FailedOpening, OpeningFailure, WRONG_WATCH_CODES_PER_CODE};

/// Both players' hellos of a game of one-card decks in suite `G`, host first, as a record holds them.
#[cfg(test)]
pub(crate) fn hellos<G: fairdeck_shared::crypto::Group>()
-> Vec<(fairdeck_shared::Seat, fairdeck_shared::wire::Envelope)> {
    use fairdeck_shared::Seat;
    use fairdeck_shared::engine::{DeckCard, DeckList, Engine, EngineConfig};
    let hello = |seat: Seat| {
        let config = EngineConfig { name: format!("{seat:?}"), software: "test".into() };
        let deck = DeckList { library: vec![DeckCard { name: "Card 0".into(), back: 0 }], ..DeckList::default() };
        let mut engine = Engine::<G>::new(seat, config, deck, [seat.id_byte(); 32]).unwrap();
        let bytes = engine.poll_transmit().unwrap();
        (seat, fairdeck_shared::wire::decode_envelope(&bytes).unwrap())
    };
    vec![hello(Seat::HOST), hello(Seat::GUEST)]
}
