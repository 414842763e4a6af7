//! Commit–reveal, and the shared randomness built on it: coins, dice, shared seeds.
//!
//! A commitment is SHA-256 over a domain tag, the purpose, the game id, the committing seat,
//! a 32-byte nonce and the value. The seat is what stops a player from echoing the other's
//! commitment (and later its opening) to cancel it out; the nonce stops anyone from trying
//! the few possible values of a die against the hash.

use std::fmt;
use std::num::NonZeroU64;
use std::str::FromStr;

use rand_core::CryptoRng;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::ProofError;
use super::verified::Verified;
use crate::hash_rng::HashRng;
use crate::ids::{GameId, Seat};

/// A hash that binds a player to a value it reveals later (`commit`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Commitment(#[serde(with = "crate::serde_hex::array")] pub [u8; 32]);

impl fmt::Debug for Commitment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Commitment({})", hex::encode(&self.0[..8]))
    }
}

/// What opens a commitment: the nonce and the value.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Opening {
    /// 32 random bytes, so nobody can try the few possible values against the hash.
    #[serde(with = "crate::serde_hex::array")]
    pub nonce: [u8; 32],
    /// The committed value.
    #[serde(with = "crate::serde_hex::vec")]
    pub value: Vec<u8>,
}

impl fmt::Debug for Opening {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Opening({} value bytes)", self.value.len())
    }
}

fn commitment_hash(purpose: &str, game_id: &GameId, seat: Seat, nonce: &[u8; 32], value: &[u8]) -> Commitment {
    let mut hasher = Sha256::new();
    for field in [b"fairdeck/v1/commit".as_slice(), purpose.as_bytes(), &game_id.0, &[seat.id_byte()], nonce, value] {
        hasher.update((field.len() as u64).to_be_bytes());
        hasher.update(field);
    }
    Commitment(hasher.finalize().into())
}

/// Commits `seat` to `value` for `purpose` in this game.
pub fn commit<R: CryptoRng + ?Sized>(
    purpose: &str,
    game_id: &GameId,
    seat: Seat,
    value: &[u8],
    rng: &mut R,
) -> (Commitment, Opening) {
    let mut nonce = [0u8; 32];
    rng.fill_bytes(&mut nonce);
    let commitment = commitment_hash(purpose, game_id, seat, &nonce, value);
    (commitment, Opening { nonce, value: value.to_vec() })
}

impl Commitment {
    /// Checks that `opening` opens this commitment made by `seat`; gives the value.
    pub fn verify(
        &self,
        purpose: &str,
        game_id: &GameId,
        seat: Seat,
        opening: &Opening,
    ) -> Result<Verified<Vec<u8>>, ProofError> {
        if commitment_hash(purpose, game_id, seat, &opening.nonce, &opening.value) != *self {
            return Err(ProofError::Opening);
        }
        Ok(Verified::assert_checked(opening.value.clone()))
    }
}

/// Each player's contribution to a shared random value: 32 bytes.
const CONTRIBUTION_LEN: usize = 32;

/// Two-party shared randomness, first step: this player has committed and waits for the
/// other's commitment. Revealing is only possible after that, so nobody opens first.
#[cfg_attr(fuzzing, derive(Clone))]
pub struct SharedRandom {
    purpose: String,
    game_id: GameId,
    seat: Seat,
    commitment: Commitment,
    opening: Opening,
    /// The contribution the opening holds, at its fixed length.
    mine: [u8; CONTRIBUTION_LEN],
}

/// Second step: both commitments are known, this player has revealed and waits for the
/// other's opening.
#[cfg_attr(fuzzing, derive(Clone))]
pub struct AwaitingOpening {
    purpose: String,
    game_id: GameId,
    seat: Seat,
    mine: [u8; 32],
    theirs: Commitment,
}

impl SharedRandom {
    /// Draws this player's contribution and commits to it. Send the commitment.
    pub fn start<R: CryptoRng + ?Sized>(purpose: &str, game_id: GameId, seat: Seat, rng: &mut R) -> (Self, Commitment) {
        let mut value = [0u8; CONTRIBUTION_LEN];
        rng.fill_bytes(&mut value);
        let (commitment, opening) = commit(purpose, &game_id, seat, &value, rng);
        let state = SharedRandom { purpose: purpose.to_owned(), game_id, seat, commitment, opening, mine: value };
        (state, commitment)
    }

    /// Takes the other player's commitment; gives this player's opening to send.
    pub fn reveal(self, theirs: Commitment) -> Result<(AwaitingOpening, Opening), ProofError> {
        if theirs == self.commitment {
            return Err(ProofError::EchoedCommitment);
        }
        let next =
            AwaitingOpening { purpose: self.purpose, game_id: self.game_id, seat: self.seat, mine: self.mine, theirs };
        Ok((next, self.opening))
    }
}

impl AwaitingOpening {
    /// Checks the other player's opening and combines both contributions.
    pub fn finish(self, opening: &Opening) -> Result<Verified<SharedSeed>, ProofError> {
        let theirs = contribution(&self.theirs, &self.purpose, &self.game_id, self.seat.opponent(), opening)?;
        let (host, guest) = match self.seat {
            Seat::HOST => (self.mine, theirs),
            Seat::GUEST => (theirs, self.mine),
        };
        Ok(Verified::assert_checked(SharedSeed { purpose: self.purpose, game_id: self.game_id, host, guest }))
    }
}

/// A spectator's check of a round it took no part in: each seat's opening (host's first) opens that seat's
/// commitment, the commitments differ (an echo would cancel the other's contribution), and the seed is the one both
/// players computed.
pub fn observe_round(
    purpose: &str,
    game_id: &GameId,
    host: (&Commitment, &Opening),
    guest: (&Commitment, &Opening),
) -> Result<Verified<SharedSeed>, ProofError> {
    if host.0 == guest.0 {
        return Err(ProofError::EchoedCommitment);
    }
    let host_value = contribution(host.0, purpose, game_id, Seat::HOST, host.1)?;
    let guest_value = contribution(guest.0, purpose, game_id, Seat::GUEST, guest.1)?;
    let seed = SharedSeed { purpose: purpose.to_owned(), game_id: *game_id, host: host_value, guest: guest_value };
    Ok(Verified::assert_checked(seed))
}

/// `seat`'s contribution: its opening checked against its commitment, of the fixed length.
fn contribution(
    commitment: &Commitment,
    purpose: &str,
    game_id: &GameId,
    seat: Seat,
    opening: &Opening,
) -> Result<[u8; CONTRIBUTION_LEN], ProofError> {
    let value = commitment.verify(purpose, game_id, seat, opening)?.into_inner();
    value
        .as_slice()
        .try_into()
        .map_err(|_| ProofError::LengthMismatch { expected: CONTRIBUTION_LEN, actual: value.len() })
}

/// A random value neither player could choose: both contributions, host's first (seed 000's
/// `shared_seed` layout). Public to both players.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedSeed {
    purpose: String,
    game_id: GameId,
    host: [u8; 32],
    guest: [u8; 32],
}

/// The two faces of a coin.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Coin {
    /// The coin came up heads.
    Heads,
    /// The coin came up tails.
    Tails,
}

impl Coin {
    /// The face's name, as the wire and scripts spell it: never renamed with the variant.
    pub fn name(self) -> &'static str {
        match self {
            Coin::Heads => "heads",
            Coin::Tails => "tails",
        }
    }
}

impl fmt::Display for Coin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// `count` dice of `sides` sides each, as in `2d6`. Received dice go through the same
/// bounds as typed ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "RawDice")]
pub struct Dice {
    count: u32,
    sides: u32,
}

#[derive(Deserialize)]
struct RawDice {
    count: u32,
    sides: u32,
}

impl TryFrom<RawDice> for Dice {
    type Error = DiceError;
    fn try_from(raw: RawDice) -> Result<Self, DiceError> {
        Dice::new(raw.count, raw.sides)
    }
}

impl Dice {
    /// Most dice in one roll.
    pub const MAX_COUNT: u32 = 100;
    /// Most sides on one die.
    pub const MAX_SIDES: u32 = 1_000_000;

    /// `count` dice of `sides` sides, within `MAX_COUNT` and 2 to `MAX_SIDES` sides.
    pub fn new(count: u32, sides: u32) -> Result<Self, DiceError> {
        if !(1..=Self::MAX_COUNT).contains(&count) {
            return Err(DiceError::Count(count));
        }
        if !(2..=Self::MAX_SIDES).contains(&sides) {
            return Err(DiceError::Sides(sides));
        }
        Ok(Dice { count, sides })
    }

    /// How many dice.
    pub fn count(self) -> u32 {
        self.count
    }

    /// How many sides each die has.
    pub fn sides(self) -> u32 {
        self.sides
    }
}

/// Why dice were refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DiceError {
    /// Not written `NdM`.
    #[error("write dice as NdM, e.g. 2d6")]
    Syntax,
    /// A number of dice outside 1 to `MAX_COUNT`.
    #[error("between 1 and {max} dice, not {0}", max = Dice::MAX_COUNT)]
    Count(u32),
    /// A number of sides outside 2 to `MAX_SIDES`.
    #[error("dice have between 2 and {max} sides, not {0}", max = Dice::MAX_SIDES)]
    Sides(u32),
}

impl FromStr for Dice {
    type Err = DiceError;
    fn from_str(s: &str) -> Result<Self, DiceError> {
        let (count, sides) = s.trim().split_once(['d', 'D']).ok_or(DiceError::Syntax)?;
        let count = if count.is_empty() { 1 } else { count.parse().map_err(|_| DiceError::Syntax)? };
        let sides = sides.parse().map_err(|_| DiceError::Syntax)?;
        Dice::new(count, sides)
    }
}

impl fmt::Display for Dice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}d{}", self.count, self.sides)
    }
}

impl SharedSeed {
    /// Seed 000's `shared_seed`: the host's contribution, then the guest's.
    pub fn bytes(&self) -> [u8; 64] {
        let mut bytes = [0u8; 64];
        bytes[..32].copy_from_slice(&self.host);
        bytes[32..].copy_from_slice(&self.guest);
        bytes
    }

    /// The seed 000 generator over this value, its state bound to the game and purpose.
    pub fn rng(&self) -> HashRng {
        let shared = self.bytes();
        let state = Sha256::new()
            .chain_update(b"fairdeck/v1/shared-random")
            .chain_update(self.game_id.0)
            .chain_update((self.purpose.len() as u64).to_be_bytes())
            .chain_update(self.purpose.as_bytes())
            .chain_update(shared)
            .finalize();
        HashRng::new(&shared, &state)
    }

    /// The coin this value flips: neither player could choose it alone.
    pub fn flip_coin(&self) -> Coin {
        match self.rng().below(NonZeroU64::MIN.saturating_add(1)) {
            0 => Coin::Heads,
            _ => Coin::Tails,
        }
    }

    /// Each die's face, from 1 to `sides`.
    pub fn roll(&self, dice: Dice) -> Vec<u32> {
        let mut rng = self.rng();
        // Dice have at least 2 sides (checked as they are made or decoded); the floor of 1 keeps this total.
        let sides = NonZeroU64::MIN.saturating_add(u64::from(dice.sides).saturating_sub(1));
        (0..dice.count).map(|_| rng.below(sides) as u32 + 1).collect()
    }
}
