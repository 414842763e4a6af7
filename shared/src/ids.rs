//! Who is who, and which game: the identifiers every hash and proof is bound to.

use serde::{Deserialize, Serialize};

/// A player's seat. The host (who created the room) is seat 1, the guest seat 2, as seed 000
/// names Player 1 and Player 2.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Seat {
    /// The player who created the room; seat 1, who acts first.
    Host,
    /// The player who joined it; seat 2.
    Guest,
}

impl Seat {
    /// Both seats, host first: the order every seat-by-seat loop follows.
    pub const BOTH: [Seat; 2] = [Seat::HOST, Seat::GUEST];

    /// 0 for the host, 1 for the guest: where a seat's entry is in an array of both.
    pub fn slot(self) -> usize {
        match self {
            Seat::HOST => 0,
            Seat::GUEST => 1,
        }
    }

    /// The byte that stands for this seat inside hashes.
    pub fn id_byte(self) -> u8 {
        match self {
            Seat::HOST => 1,
            Seat::GUEST => 2,
        }
    }

    /// The other player.
    pub fn opponent(self) -> Seat {
        match self {
            Seat::HOST => Seat::GUEST,
            Seat::GUEST => Seat::HOST,
        }
    }

    /// The seat's name, as the wire and scripts spell it: never renamed with the variant.
    pub fn name(self) -> &'static str {
        match self {
            Seat::HOST => "host",
            Seat::GUEST => "guest",
        }
    }
}

impl std::fmt::Display for Seat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A game's identity: 32 bytes both players contribute to, bound into every card point,
/// proof and commitment so nothing can be replayed from another game.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct GameId(#[serde(with = "crate::serde_hex::array")] pub [u8; 32]);

impl std::fmt::Debug for GameId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "GameId({})", hex::encode(&self.0[..8]))
    }
}
