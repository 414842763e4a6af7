//! Fiat–Shamir transcripts over SHA-256: every field length-prefixed and labelled, every
//! proof bound to its suite, its kind and its context (game, message number, purpose).

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::group::{Group, Suite};
use crate::ids::GameId;

/// Where a proof belongs. A proof made for one message of one game verifies nowhere else.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ProofContext {
    /// The game the proof is made in.
    pub game_id: GameId,
    /// The number of the message that carries the proof.
    pub sequence: u64,
    /// What the proof is for, e.g. `"library/host/lock"`.
    pub purpose: String,
}

impl ProofContext {
    /// The context of a proof in message `sequence` of this game, for `purpose`.
    pub fn new(game_id: GameId, sequence: u64, purpose: impl Into<String>) -> Self {
        ProofContext { game_id, sequence, purpose: purpose.into() }
    }
}

#[derive(Clone)]
pub(crate) struct Transcript {
    hasher: Sha256,
}

impl Transcript {
    /// Starts a transcript for one kind of proof in one suite.
    pub(crate) fn new<G: Group>(kind: &'static str) -> Self {
        Self::for_suite(kind, G::SUITE)
    }

    /// Starts a transcript for one kind of proof in `suite`, named apart from the group that
    /// computes it (a test proves that a proof bound to one suite fails in another).
    pub(crate) fn for_suite(kind: &'static str, suite: Suite) -> Self {
        let mut transcript = Transcript { hasher: Sha256::new() };
        transcript.append("protocol", b"fairdeck/v1");
        transcript.append("kind", kind.as_bytes());
        transcript.append("suite", suite.name().as_bytes());
        transcript
    }

    pub(crate) fn append(&mut self, label: &'static str, bytes: &[u8]) {
        self.hasher.update((label.len() as u32).to_be_bytes());
        self.hasher.update(label.as_bytes());
        self.hasher.update((bytes.len() as u64).to_be_bytes());
        self.hasher.update(bytes);
    }

    pub(crate) fn append_u64(&mut self, label: &'static str, value: u64) {
        self.append(label, &value.to_be_bytes());
    }

    pub(crate) fn append_context(&mut self, context: &ProofContext) {
        self.append("game", &context.game_id.0);
        self.append_u64("sequence", context.sequence);
        self.append("purpose", context.purpose.as_bytes());
    }

    pub(crate) fn append_element<G: Group>(&mut self, label: &'static str, element: &G::Element) {
        self.append(label, &G::encode_element(element));
    }

    pub(crate) fn append_elements<G: Group>(&mut self, label: &'static str, elements: &[G::Element]) {
        self.append_u64(label, elements.len() as u64);
        for element in elements {
            self.append_element::<G>(label, element);
        }
    }

    /// 32 bytes that depend on everything appended so far and on `label`.
    pub(crate) fn challenge_bytes(&self, label: &'static str) -> [u8; 32] {
        let mut fork = self.clone();
        fork.append("challenge", label.as_bytes());
        fork.hasher.finalize().into()
    }

    pub(crate) fn challenge_scalar<G: Group>(&self, label: &'static str) -> G::Scalar {
        let mut wide = [0u8; 64];
        let mut fork = self.clone();
        fork.append("challenge", label.as_bytes());
        for (half, chunk) in wide.chunks_mut(32).enumerate() {
            let mut block = fork.clone();
            block.append_u64("half", half as u64);
            chunk.copy_from_slice(&block.hasher.finalize());
        }
        G::scalar_from_wide(&wide)
    }

    /// `count` challenge scalars, the `i`-th hashed with `label` and `i`.
    pub(crate) fn challenge_scalars<G: Group>(&self, label: &'static str, count: usize) -> Vec<G::Scalar> {
        (0..count as u64)
            .map(|index| {
                let mut fork = self.clone();
                fork.append_u64("index", index);
                fork.challenge_scalar::<G>(label)
            })
            .collect()
    }

    /// `count` 128-bit weights for batch verification, derived from everything so far;
    /// `index` tells apart the batches of one proof.
    pub(crate) fn weights<G: Group>(&self, label: &'static str, index: u64, count: usize) -> Vec<G::Scalar> {
        let mut fork = self.clone();
        fork.append_u64("batch-index", index);
        let seed = fork.challenge_bytes(label);
        let mut weights = Vec::with_capacity(count);
        for block_index in 0..count.div_ceil(2) as u64 {
            let block: [u8; 32] =
                Sha256::new().chain_update(seed).chain_update(block_index.to_be_bytes()).finalize().into();
            for half in block.chunks_exact(16) {
                if weights.len() < count {
                    let mut bytes = [0; 16];
                    bytes.copy_from_slice(half);
                    weights.push(G::scalar_from_u128(u128::from_be_bytes(bytes)));
                }
            }
        }
        weights
    }
}
