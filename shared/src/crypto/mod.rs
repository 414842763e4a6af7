//! The cryptographic core: groups, card points, locks and their proofs, verifiable
//! shuffles, commit–reveal. See docs/CRYPTO.md for the constructions and their reasons.

mod card;
mod catalogue;
mod commit;
pub(crate) mod encoding;
mod group;
mod lock;
mod modp;
mod oblivious;
mod parallel;
mod ristretto;
mod shuffle;
mod transcript;
mod verified;

pub use card::{BackId, CardInstance, basic_point, deck_base, pool_point};
pub use catalogue::{Catalogue, CatalogueEntry, CatalogueError, MAX_NAME_LEN, name_fits};
pub use commit::{
    AwaitingOpening, Coin, Commitment, Dice, DiceError, Opening, SharedRandom, SharedSeed, commit, observe_round,
};
pub use group::{DecodeError, Group, MAX_PERMUTATION_LEN, Suite, UnknownSuite, random_permutation};
pub use lock::{DleqProof, KeyCommitment, KeyId, LockKey, Locked, Stripped};
pub use modp::{Modp2048, ModpElement, ModpScalar};
pub use ristretto::{Ristretto255, RistrettoElement, RistrettoScalar};
pub use shuffle::{ProvenShuffle, ShuffleProof, Shuffled};
pub use transcript::ProofContext;
pub use verified::Verified;

/// Why a proof, an opening or a claimed list was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ProofError {
    /// A list of another length than the one it must match.
    #[error("expected {expected} items, got {actual}")]
    LengthMismatch {
        /// The length expected.
        expected: usize,
        /// The length received.
        actual: usize,
    },
    /// A lock, strip or relock proof that does not verify.
    #[error("the Chaum–Pedersen proof does not verify")]
    Dleq,
    /// A shuffle proof's equations do not hold: the output is not the input permuted and
    /// locked with the committed key (or the proof was made for another statement).
    #[error("the shuffle proof does not verify")]
    Shuffle,
    /// An opening that does not match its commitment.
    #[error("the opening does not match the commitment")]
    Opening,
    /// The opponent's commitment is this player's own, sent back to cancel it out.
    #[error("the commitment echoes this player's own")]
    EchoedCommitment,
}
