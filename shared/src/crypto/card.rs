//! Card instances and the points that stand for them.

use serde::{Deserialize, Serialize};

use super::group::Group;
use super::transcript::Transcript;
use crate::ids::{GameId, Seat};

/// A card's back design; cards with different backs can be told apart face down (seed 000).
pub type BackId = u32;

/// One physical card of one game. A deck card's instance is sealed in its owner's catalogue
/// under the card's identity point; a token's instance is public and its point is
/// [`CardInstance::point`].
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CardInstance {
    /// The player whose deck (or token) it is.
    pub owner: Seat,
    /// Makes two copies of the same card distinct and unrelated.
    #[serde(with = "crate::serde_hex::array")]
    pub nonce: [u8; 16],
    /// The card's name, as its deck list gives it.
    pub name: String,
    /// Its back, which both players see face down.
    pub back: BackId,
}

impl CardInstance {
    /// A token's point: a domain-separated hash to the group of every field and the game id,
    /// so nobody knows its discrete log to any other card's point.
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

/// The public base of the `index`-th card of `owner`'s deck (library first, then sideboard,
/// in the order of its `deck` message): a hash to the group, so nobody knows the discrete log
/// between two bases. A deck's elements are proven to be one secret multiple of their bases
/// (`Message::Deck`), which keeps the owner from planting related elements: a card that is
/// a known multiple of another would be recognisable through every shuffle.
pub fn deck_base<G: Group>(game_id: &GameId, owner: Seat, index: u32) -> G::Element {
    let mut transcript = Transcript::new::<G>("deck-base");
    transcript.append("game", &game_id.0);
    transcript.append("owner", &[owner.id_byte()]);
    transcript.append_u64("index", u64::from(index));
    G::hash_to_element(&transcript.challenge_bytes("base"))
}

/// The public point of card `index` of a limited match's pool file, `match_id` the id of the match's first game:
/// a hash to the group, so no pool card is a known multiple of another and a point names one card of the list.
pub fn pool_point<G: Group>(match_id: &GameId, index: u32) -> G::Element {
    let mut transcript = Transcript::new::<G>("pool-point");
    transcript.append("match", &match_id.0);
    transcript.append_u64("index", u64::from(index));
    G::hash_to_element(&transcript.challenge_bytes("point"))
}

/// The public point of `owner`'s `copy`-th basic land `name` in a deck built from a pool: a hash, as public as the
/// card, each copy its own so no two cards of a deck share a point.
pub fn basic_point<G: Group>(match_id: &GameId, owner: Seat, name: &str, copy: u32) -> G::Element {
    let mut transcript = Transcript::new::<G>("basic-point");
    transcript.append("match", &match_id.0);
    transcript.append("owner", &[owner.id_byte()]);
    transcript.append("name", name.as_bytes());
    transcript.append_u64("copy", u64::from(copy));
    G::hash_to_element(&transcript.challenge_bytes("point"))
}
