//! Seed 000's hash-driven random numbers (Appendix A) and shuffles (Appendix B), with
//! HASH_FUNC = SHA-256, and its three errata fixed (docs/CRYPTO.md):
//!
//! 1. A draw is accepted when it is *below* the largest multiple of n (the text says "≤",
//!    which gives 0 one extra chance).
//! 2. After the state is rehashed, byte 0 is returned and the index becomes 1 (the text
//!    leaves it at 0, so byte 0 of every new block came out twice).
//! 3. The basic shuffle draws j in [0, i] (the text's [0, i) is Sattolo's algorithm, which
//!    only makes cyclic permutations). The loop still runs i from 1 to n−1, as written.
//!
//! Both players can run this over the same states and get the same numbers: it drives
//! public randomness (dice, coins, the card-back order), never a hidden library order.

use std::collections::BTreeMap;
use std::num::NonZeroU64;

use sha2::{Digest, Sha256};

/// A random number generator over a hash chain: `state ← SHA-256(shared_seed ‖ state)`.
#[derive(Clone)]
pub struct HashRng {
    shared_seed: Vec<u8>,
    state: Vec<u8>,
    index: usize,
}

impl HashRng {
    /// Seed 000's `shared_seed` (64 bytes: Player 1's seed, then Player 2's) and a
    /// `*_rand_state` (32 bytes); other lengths work the same way.
    pub fn new(shared_seed: &[u8], state: &[u8]) -> Self {
        HashRng { shared_seed: shared_seed.to_vec(), state: state.to_vec(), index: 0 }
    }

    /// `advanceRNG`, with erratum 2 fixed.
    fn next_byte(&mut self) -> u8 {
        if let Some(&byte) = self.state.get(self.index) {
            self.index += 1;
            return byte;
        }
        self.state = Sha256::new().chain_update(&self.shared_seed).chain_update(&self.state).finalize().to_vec();
        self.index = 1;
        self.state[0]
    }

    /// `advanceRNGMulti(b)`: b bytes, the first drawn being the least significant.
    fn next_bytes_le(&mut self, count: u32) -> u128 {
        (0..count).fold(0u128, |value, position| value | u128::from(self.next_byte()) << (8 * position))
    }

    /// A uniform number in `[0, n)` (Appendix A, with erratum 1 fixed).
    pub fn below(&mut self, n: NonZeroU64) -> u64 {
        let n = u128::from(n.get());
        let mut count = 0u32;
        while 256u128.pow(count) < n {
            count += 1;
        }
        let span = 256u128.pow(count);
        let limit = span - span % n;
        loop {
            let value = self.next_bytes_le(count);
            if value < limit {
                return (value % n) as u64;
            }
        }
    }

    /// One item of `items`, each as likely (`below` their number); `None` for no items.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        let n = NonZeroU64::new(items.len() as u64)?;
        items.get(self.below(n) as usize)
    }
}

/// Appendix B's basic shuffle (erratum 3 fixed: Fisher–Yates, not Sattolo).
pub fn basic_shuffle<T>(items: &mut [T], rng: &mut HashRng) {
    for i in 1..items.len() {
        let bound = NonZeroU64::MIN.saturating_add(i as u64);
        let j = rng.below(bound) as usize;
        items.swap(i, j);
    }
}

/// The basic shuffle of the numbers `0..count`.
pub fn shuffled_indices(count: usize, rng: &mut HashRng) -> Vec<usize> {
    let mut indices: Vec<usize> = (0..count).collect();
    basic_shuffle(&mut indices, rng);
    indices
}

/// Appendix B's deck shuffle with card backs: the order of the backs comes from the shared
/// state (so both players know which back lies where), the order of the cards within each
/// back from the owner's local state. Returns the card indices in their new order.
pub fn deck_shuffle<Back: Ord + Copy>(backs: &[Back], shared: &mut HashRng, local: &mut HashRng) -> Vec<usize> {
    let mut groups: BTreeMap<Back, Vec<usize>> = BTreeMap::new();
    for (card, &back) in backs.iter().enumerate() {
        groups.entry(back).or_default().push(card);
    }
    let mut back_sequence = backs.to_vec();
    basic_shuffle(&mut back_sequence, shared);
    // The places of each back in the new order, first to last.
    let mut slots: BTreeMap<Back, Vec<usize>> = BTreeMap::new();
    for (place, &back) in back_sequence.iter().enumerate() {
        slots.entry(back).or_default().push(place);
    }
    // Ascending back id is the deterministic order both sides use. Each back's cards, shuffled, fill its places
    // in order: as many places as cards, since the sequence is a permutation of `backs`.
    let mut placed: Vec<(usize, usize)> = Vec::with_capacity(backs.len());
    for (back, mut group) in groups {
        basic_shuffle(&mut group, local);
        placed.extend(slots.remove(&back).unwrap_or_default().into_iter().zip(group));
    }
    placed.sort_unstable();
    placed.into_iter().map(|(_, card)| card).collect()
}
