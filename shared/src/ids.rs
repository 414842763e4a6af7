//! Who is who, and which game: the identifiers every hash and proof is bound to.

use serde::{Deserialize, Serialize};

/// Who sits where is the seats' business; the seat is named here too, beside the game it is bound into.
pub use crate::seats::Seat;

/// A game's identity: 32 bytes both players contribute to, bound into every card point,
/// proof and commitment so nothing can be replayed from another game.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct GameId(#[serde(with = "crate::serde_hex::array")] pub [u8; 32]);

impl std::fmt::Debug for GameId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "GameId({})", hex::encode(&self.0[..8]))
    }
}
