//! The prime-order groups fairdeck locks cards in.
//!
//! A lock is a scalar multiplication (exponentiation in `modp2048`); locks by both players
//! commute, which is what lets either one strip their own layer first. The trait is written
//! additively: `mul` is "element times scalar", `add` is the group operation.

use std::fmt::Debug;
use std::hash::Hash;
use std::str::FromStr;

use rand_core::CryptoRng;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::oblivious;

/// The group a game is played in; both players agree on it in `hello`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Suite {
    /// ristretto255 over Curve25519 (the default): 32-byte elements, ~23 µs a lock.
    Ristretto255,
    /// The RFC 3526 2048-bit MODP group, subgroup of quadratic residues: the seed's
    /// "RSA modulo a prime" at a safe size. 256-byte elements, ~5 ms a strip.
    Modp2048,
}

impl Suite {
    /// Every suite, in the order the command line lists them.
    pub const ALL: [Suite; 2] = [Suite::Ristretto255, Suite::Modp2048];

    /// The suite's name, as the hello and the command line spell it.
    pub fn name(self) -> &'static str {
        match self {
            Suite::Ristretto255 => "ristretto255",
            Suite::Modp2048 => "modp2048",
        }
    }
}

impl std::fmt::Display for Suite {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Suite {
    type Err = UnknownSuite;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Suite::ALL.into_iter().find(|suite| suite.name() == s).ok_or_else(|| UnknownSuite(s.to_owned()))
    }
}

/// A suite name no one knows, given on the command line or in a file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown suite {0:?} (known: ristretto255, modp2048)")]
pub struct UnknownSuite(pub String);

/// Why received bytes are not a valid group element or scalar.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DecodeError {
    /// A byte string of the wrong length.
    #[error("expected {expected} bytes, got {actual}")]
    Length {
        /// The length the encoding has.
        expected: usize,
        /// The length received.
        actual: usize,
    },
    /// Not the canonical encoding of any element.
    #[error("not a canonical encoding")]
    NonCanonical,
    /// The identity, which would lock or strip nothing.
    #[error("the identity element is never a valid card or key")]
    Identity,
    /// An integer outside the range of group elements.
    #[error("value outside 1 < x < p-1")]
    OutOfRange,
    /// An element of the wrong subgroup, whose order would leak bits of a key.
    #[error("value outside the prime-order subgroup")]
    NotInSubgroup,
    /// A scalar not reduced below the group order.
    #[error("scalar is not reduced modulo the group order")]
    ScalarOutOfRange,
    /// Not hexadecimal, in a JSON view.
    #[error("not valid hexadecimal")]
    Hex,
}

/// A prime-order group used as a commutative cipher.
///
/// Every `Element` value that exists has passed validation: the only ways to make one are
/// the group's own operations and `decode_element`, which rejects anything outside the
/// prime-order group (and the identity).
pub trait Group: Copy + Debug + Send + Sync + 'static {
    /// A group element: a locked card, a card point or a key commitment.
    type Element: Clone + PartialEq + Eq + Hash + Debug + Send + Sync + Serialize + DeserializeOwned + 'static;
    /// A scalar: a lock key, or a proof's challenge or response.
    type Scalar: Clone + PartialEq + Eq + Debug + Send + Sync + Serialize + DeserializeOwned;

    /// Which suite this group is.
    const SUITE: Suite;
    /// The length of an encoded element, in bytes.
    const ELEMENT_LEN: usize;
    /// The length of an encoded scalar, in bytes.
    const SCALAR_LEN: usize;

    /// The fixed generator every key commitment is a multiple of.
    fn generator() -> Self::Element;
    /// Hashes arbitrary bytes to an element whose discrete log nobody knows.
    fn hash_to_element(input: &[u8]) -> Self::Element;
    /// A uniformly random non-zero scalar.
    fn random_scalar<R: CryptoRng + ?Sized>(rng: &mut R) -> Self::Scalar;
    /// Reduces 64 uniform bytes to a scalar (Fiat–Shamir challenges).
    fn scalar_from_wide(bytes: &[u8; 64]) -> Self::Scalar;
    /// A small scalar, for batch-verification weights.
    fn scalar_from_u128(value: u128) -> Self::Scalar;
    /// The sum of two scalars.
    fn scalar_add(a: &Self::Scalar, b: &Self::Scalar) -> Self::Scalar;
    /// The product of two scalars.
    fn scalar_mul(a: &Self::Scalar, b: &Self::Scalar) -> Self::Scalar;
    /// The negation of a scalar.
    fn scalar_neg(a: &Self::Scalar) -> Self::Scalar;
    /// The inverse of a non-zero scalar; `None` for zero.
    fn scalar_invert(a: &Self::Scalar) -> Option<Self::Scalar>;
    /// Overwrites a secret scalar before it is dropped (best effort where the backing
    /// big-integer type cannot be wiped in place).
    fn wipe_scalar(a: &mut Self::Scalar);

    /// `scalar·element`: a lock, a strip or a commitment.
    fn mul(element: &Self::Element, scalar: &Self::Scalar) -> Self::Element;
    /// `scalar·G`, for the generator `G`.
    fn mul_generator(scalar: &Self::Scalar) -> Self::Element;
    /// What `mul_generator_plus_each` adds to the products of the generator, made from the elements to add: the
    /// elements themselves, or a form the group adds more cheaply in a batch (ristretto255: their halves, so that
    /// the sums are made at half their scalars and encoded in one batch). About a multiplication an element where
    /// it is not the elements: made once for elements added again and again (the shuffle's generators).
    fn addends(elements: &[Self::Element]) -> Vec<Self::Element> {
        elements.to_vec()
    }
    /// `scalarᵢ·G + elementᵢ` for each pair, for secret scalars, given the elements' `addends`: the same elements
    /// as `add(&mul_generator(scalarᵢ), elementᵢ)`, on the group's constant-time path. Pairs beyond the shorter
    /// list are ignored.
    fn mul_generator_plus_each(scalars: &[Self::Scalar], addends: &[Self::Element]) -> Vec<Self::Element> {
        scalars.iter().zip(addends).map(|(scalar, addend)| Self::add(&Self::mul_generator(scalar), addend)).collect()
    }
    /// `scalar·G` and `scalar·element` for a secret scalar, the two nonce products of a proof of equal logarithms
    /// over `G`: the same elements as `mul_generator` and `mul`, made together where the group has a cheaper way.
    fn mul_generator_and(scalar: &Self::Scalar, element: &Self::Element) -> [Self::Element; 2] {
        [Self::mul_generator(scalar), Self::mul(element, scalar)]
    }
    /// `a·G + b·element` over public data, as `vartime_multi_mul(&[a, b], &[G, element])`; may take variable time.
    fn vartime_mul_generator_plus(a: &Self::Scalar, b: &Self::Scalar, element: &Self::Element) -> Self::Element {
        Self::vartime_multi_mul(&[a.clone(), b.clone()], &[&Self::generator(), element])
    }
    /// The group operation on two elements.
    fn add(a: &Self::Element, b: &Self::Element) -> Self::Element;
    /// Σ scalarᵢ·elementᵢ over public data; may take variable time.
    fn vartime_multi_mul(scalars: &[Self::Scalar], elements: &[&Self::Element]) -> Self::Element;
    /// Σ scalarᵢ·elementᵢ where the scalars are secret: on the group's constant-time path
    /// (where it has one; see docs/CRYPTO.md for modp2048).
    fn multi_mul(scalars: &[Self::Scalar], elements: &[&Self::Element]) -> Self::Element;
    /// `table[index]` for a secret `index` (a place of a secret permutation), read by a scan of
    /// the whole table so that neither timing nor memory access shows it, where the group has a
    /// constant-time path (see docs/CRYPTO.md for modp2048). `None` if `index` is beyond the table.
    fn select_element(table: &[Self::Element], index: u16) -> Option<Self::Element>;
    /// `table[index]` for a secret `index`, as `select_element` reads it.
    fn select_scalar(table: &[Self::Scalar], index: u16) -> Option<Self::Scalar>;
    /// Whether Σ scalarᵢ·elementᵢ is the identity, over public data; may take variable time.
    /// This is how a verifier checks many equations folded into one.
    fn vartime_multi_mul_is_identity(scalars: &[Self::Scalar], elements: &[&Self::Element]) -> bool;

    /// `scalar·elementᵢ` for each element, for a secret `scalar`, on the group's constant-time path: the same
    /// elements as `mul` one by one, made together where the group has a cheaper way (both suites share a long
    /// batch among the machine's cores, ristretto255 encodes them in one batch).
    fn mul_each(elements: &[Self::Element], scalar: &Self::Scalar) -> Vec<Self::Element> {
        elements.iter().map(|element| Self::mul(element, scalar)).collect()
    }

    /// `first·elementᵢ` and `second·elementᵢ` for each element, for secret scalars: the same elements as two
    /// `mul_each`, made together where the group has a cheaper way (modp2048 shares each element's squarings).
    fn mul_each_twice(
        elements: &[Self::Element],
        first: &Self::Scalar,
        second: &Self::Scalar,
    ) -> (Vec<Self::Element>, Vec<Self::Element>) {
        (Self::mul_each(elements, first), Self::mul_each(elements, second))
    }

    /// Precomputed multiples of one fixed base, for `mul_generator_and_fixed`: built once for a base that many
    /// products use (it costs about a scalar multiplication) and kept.
    type FixedBase: Send + Sync + 'static;
    /// The table of `base`.
    fn fixed_base(base: &Self::Element) -> Self::FixedBase;
    /// `xᵢ·G + yᵢ·B` for each pair, for the generator `G` and the base `B` of `table`, where the `x` and `y` are
    /// secret: on the group's constant-time path, as `multi_mul`, and the same elements as
    /// `multi_mul(&[xᵢ, yᵢ], &[G, B])`. Pairs beyond the shorter list are ignored.
    fn mul_generator_and_fixed(xs: &[Self::Scalar], ys: &[Self::Scalar], table: &Self::FixedBase)
    -> Vec<Self::Element>;

    /// The canonical encoding of an element, of `ELEMENT_LEN` bytes.
    fn encode_element(element: &Self::Element) -> Vec<u8>;
    /// Decodes and validates a received element.
    fn decode_element(bytes: &[u8]) -> Result<Self::Element, DecodeError>;
    /// Decodes and validates a received list of elements: `decode_element` on each, the first error in the list's
    /// order the one returned. A group whose check is costly shares a long list among the cores (modp2048).
    fn decode_elements(encodings: &[Vec<u8>]) -> Result<Vec<Self::Element>, DecodeError> {
        encodings.iter().map(|bytes| Self::decode_element(bytes)).collect()
    }
    /// The canonical encoding of a scalar, of `SCALAR_LEN` bytes.
    fn encode_scalar(scalar: &Self::Scalar) -> Vec<u8>;
    /// Decodes a received scalar; only canonical (fully reduced) encodings are accepted.
    fn decode_scalar(bytes: &[u8]) -> Result<Self::Scalar, DecodeError>;
}

/// Rejection sampling of a uniform index in `0..n`, for permutations drawn from the
/// engine's own RNG. Its timing does not show the index: whether a draw is rejected is
/// independent of the index a later one gives, and the remainder is taken in constant time.
pub(crate) fn uniform_below<R: CryptoRng + ?Sized>(rng: &mut R, n: usize) -> usize {
    debug_assert!(n > 0);
    let n = n as u64;
    // Largest multiple of n that fits in u64 space: accept r < zone, so every residue is equally likely.
    let zone = u64::MAX - (u64::MAX % n + 1) % n;
    loop {
        let r = rng.next_u64();
        if r <= zone {
            return oblivious::remainder(r, n) as usize;
        }
    }
}

/// The most items `random_permutation` orders: its indices are `u16`, as in a shuffle proof.
/// Libraries are bounded far below it where decks and tokens enter (`wire::max_library_len`).
pub const MAX_PERMUTATION_LEN: usize = 1 << 16;

/// A uniformly random permutation of `0..n` (Fisher–Yates), as `output[i] = input[perm[i]]`,
/// for `n` up to `MAX_PERMUTATION_LEN`; of more, only the first `MAX_PERMUTATION_LEN` (a proof
/// over it then fails its length checks rather than panics).
///
/// Each swap at the secret place touches every place below it (`oblivious::swap_with_last`):
/// n²/2 conditional swaps of `u16`, so that no memory access or branch shows the permutation.
pub fn random_permutation<R: CryptoRng + ?Sized>(rng: &mut R, n: usize) -> Vec<u16> {
    let mut perm: Vec<u16> = (0..=u16::MAX).take(n).collect();
    for i in (1..perm.len()).rev() {
        // i < MAX_PERMUTATION_LEN, so the place fits in a u16.
        let j = uniform_below(rng, i + 1) as u16;
        oblivious::swap_with_last(&mut perm, i, j);
    }
    perm
}
