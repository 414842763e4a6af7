//! The feed: what a player's program sends a spectator inside the watch channel, one [`Feed`] per channel
//! message, postcard-encoded as the rest of the client's binary data. The envelopes are the wire's own bytes,
//! as the player's engine signed or took them: the spectator checks them, it never trusts the player.

use fairdeck_relay_protocol::MAX_WATCH_DELAY_TURNS;
use fairdeck_shared::Seat;
use fairdeck_shared::crypto::Suite;
use fairdeck_shared::wire::MAX_MESSAGE_LEN;
use serde::{Deserialize, Serialize};

/// The longest delay the players may choose, in turns: the relay's own limit on `watch_delay`.
pub const MAX_DELAY: u8 = MAX_WATCH_DELAY_TURNS as u8;
const _: () = assert!(MAX_WATCH_DELAY_TURNS <= u8::MAX as u32);
/// The largest envelope a feed carries: the wire's largest body and room for its envelope
/// (`wire::decode_envelope` refuses more).
pub const MAX_ENVELOPE_BYTES: usize = MAX_MESSAGE_LEN + 1024;

/// One message of the feed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Feed {
    /// The first message: the game's suite, the seat of the player whose feed this is (the spectator's table
    /// shows it at the bottom) and the delay in turns the envelopes come after.
    Start { suite: Suite, seat: Seat, delay: u8 },
    /// The players changed the delay.
    Delay { turns: u8 },
    /// One envelope as the player's engine handled it, in that engine's order: `from` signed it.
    Envelope { from: Seat, bytes: Vec<u8> },
}

/// Why bytes from a watch channel are not a feed message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FeedError {
    #[error("the player's program sent an unreadable watch message: {0}")]
    Unreadable(String),
    #[error("the player's program sent a watch message with {0} bytes left over")]
    LeftOver(usize),
    #[error("the player's program sent an envelope of {0} bytes, beyond the protocol's limit")]
    TooLarge(usize),
    #[error("the player's program sent a delay of {0} turns, beyond the limit of {MAX_DELAY}")]
    DelayTooLong(u8),
}

impl Feed {
    pub fn encode(&self) -> Vec<u8> {
        // Cannot fail: the feed holds plain data, byte strings and fieldless enums.
        postcard::to_stdvec(self).expect("plain data serializes")
    }

    /// Reads one feed message, all of its bytes, within the limits. A hostile player's bytes give an error.
    pub fn decode(bytes: &[u8]) -> Result<Feed, FeedError> {
        // The channel already bounds a message; this keeps postcard from reading a longer byte string.
        if bytes.len() > MAX_ENVELOPE_BYTES + 16 {
            return Err(FeedError::TooLarge(bytes.len()));
        }
        let (feed, rest) =
            postcard::take_from_bytes::<Feed>(bytes).map_err(|e| FeedError::Unreadable(e.to_string()))?;
        if !rest.is_empty() {
            return Err(FeedError::LeftOver(rest.len()));
        }
        match &feed {
            Feed::Start { delay, .. } | Feed::Delay { turns: delay } if *delay > MAX_DELAY => {
                Err(FeedError::DelayTooLong(*delay))
            }
            Feed::Envelope { bytes, .. } if bytes.len() > MAX_ENVELOPE_BYTES => Err(FeedError::TooLarge(bytes.len())),
            _ => Ok(feed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_feed_message_reads_back_as_it_was() {
        let messages = [
            Feed::Start { suite: Suite::Ristretto255, seat: Seat::GUEST, delay: 3 },
            Feed::Delay { turns: MAX_DELAY },
            Feed::Envelope { from: Seat::HOST, bytes: vec![0, 1, 2, 255] },
            Feed::Envelope { from: Seat::GUEST, bytes: Vec::new() },
        ];
        for message in messages {
            assert_eq!(Feed::decode(&message.encode()), Ok(message));
        }
    }

    #[test]
    fn hostile_bytes_are_refused_with_an_error() {
        assert!(matches!(Feed::decode(&[]), Err(FeedError::Unreadable(_))));
        // An unknown kind.
        assert!(matches!(Feed::decode(&[9]), Err(FeedError::Unreadable(_))));
        // A seat that is neither.
        assert!(matches!(Feed::decode(&[2, 7, 0]), Err(FeedError::Unreadable(_))));
        // A byte string longer than what follows.
        assert!(matches!(Feed::decode(&[2, 0, 200, 1, 1]), Err(FeedError::Unreadable(_))));
        let mut extra = Feed::Delay { turns: 1 }.encode();
        extra.push(0);
        assert_eq!(Feed::decode(&extra), Err(FeedError::LeftOver(1)));
        let long = Feed::Start { suite: Suite::Modp2048, seat: Seat::HOST, delay: MAX_DELAY + 1 };
        assert_eq!(Feed::decode(&long.encode()), Err(FeedError::DelayTooLong(MAX_DELAY + 1)));
        let huge = Feed::Envelope { from: Seat::HOST, bytes: vec![0; MAX_ENVELOPE_BYTES + 1] };
        assert_eq!(Feed::decode(&huge.encode()), Err(FeedError::TooLarge(MAX_ENVELOPE_BYTES + 1)));
    }
}
