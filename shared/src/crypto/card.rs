//! Card instances and the points that stand for them.

use serde::{Deserialize, Serialize};

use super::group::Group;
use super::transcript::Transcript;
use crate::ids::{GameId, Seat};

/// A card's back design; cards with different backs can be told apart face down (seed 000).
pub type BackId = u32;

/// One physical card of one game: revealing it means giving these fields, from which anyone
/// recomputes its point.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CardInstance {
    pub owner: Seat,
    /// Makes two copies of the same card distinct and unrelated.
    #[serde(with = "crate::ids::hex_array")]
    pub nonce: [u8; 16],
    pub name: String,
    pub back: BackId,
}

impl CardInstance {
    /// The card's point: a domain-separated hash to the group of every field and the game
    /// id. Nobody knows the discrete log between two card points, which is what keeps a
    /// locked card unreadable (a card encoded as a small number would leak through its
    /// algebraic relations to others).
    pub fn point<G: Group>(&self, game_id: &GameId) -> G::Element {
        let mut transcript = Transcript::new::<G>("card-point");
        transcript.append("game", &game_id.0);
        transcript.append("owner", &[self.owner.id_byte()]);
        transcript.append("nonce", &self.nonce);
        transcript.append("name", self.name.as_bytes());
        transcript.append_u64("back", u64::from(self.back));
        G::hash_to_element(&transcript.challenge_bytes("point"))
    }
}
