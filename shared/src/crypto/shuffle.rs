//! Verifiable lock-and-shuffle: the output list is a permutation of the input list, every
//! card locked with the committed key, and nothing else — no card dropped, duplicated or
//! substituted.
//!
//! Cut-and-choose with shadow shuffles. For each round the shuffler also publishes a shadow:
//! the input locked with a fresh key `y` (committed as `Y = y·G`) and permuted by a fresh
//! `σ`. For each round a challenge bit asks it either to open the shadow (`y`, `σ`: the
//! shadow is a locked permutation of the input) or to link the shadow to the output
//! (`z = x·y⁻¹`, `τ = σ⁻¹∘π`: the output is the shadow locked with `z`, and `X = z·Y`).
//! A cheater can prepare any one round to pass one of the two checks, not both, so it
//! survives each round with probability 1/2. Each opening reveals nothing about `π` or `x`.
//!
//! Interactive (40 rounds, 2⁻⁴⁰): the challenge bits hash the commitment together with a
//! nonce the verifier sends after seeing it, so the shuffler gets one try. Non-interactive
//! (80 rounds, 2⁻⁸⁰): the bits hash the commitment alone (Fiat–Shamir), so a cheater may
//! grind offline, and twice the rounds keep that out of reach.

use rand_core::CryptoRng;
use serde::{Deserialize, Serialize};

use super::ProofError;
use super::group::{Group, random_permutation};
use super::lock::{KeyCommitment, LockKey};
use super::transcript::{ProofContext, Transcript};
use super::verified::Verified;

/// How the challenge of a shuffle proof is chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Soundness {
    /// The verifier sends a fresh nonce after the commitment: 40 rounds, 2⁻⁴⁰.
    Interactive,
    /// Fiat–Shamir only: 80 rounds, 2⁻⁸⁰ against offline grinding.
    NonInteractive,
}

impl Soundness {
    /// The number of challenge rounds: how many shadows a proof of this soundness carries.
    pub fn rounds(self) -> usize {
        // Fuzzing builds prove with a few rounds, so one input costs microseconds rather than
        // milliseconds; every code path is the same, only the soundness is lower.
        match (self, cfg!(fuzzing)) {
            (Soundness::Interactive, false) => 40,
            (Soundness::NonInteractive, false) => 80,
            (Soundness::Interactive, true) => 2,
            (Soundness::NonInteractive, true) => 4,
        }
    }

    fn kind(self) -> &'static str {
        match self {
            Soundness::Interactive => "shuffle/interactive",
            Soundness::NonInteractive => "shuffle/non-interactive",
        }
    }
}

/// One shadow shuffle: the input locked with a fresh key and permuted.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct Shadow<G: Group> {
    /// The commitment to the shadow's fresh key `y`.
    pub key: KeyCommitment<G>,
    /// The input, locked with `y` and permuted by `σ`.
    pub cards: Vec<G::Element>,
}

/// The shuffler's first message: the shuffled, locked list and the shadows.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct ShuffleCommit<G: Group> {
    /// How the challenge is drawn, which fixes the number of rounds.
    pub soundness: Soundness,
    /// The output: the input locked with the shuffler's key and permuted.
    pub cards: Vec<G::Element>,
    /// One shadow per round.
    pub shadows: Vec<Shadow<G>>,
}

/// The verifier's fresh randomness for an interactive proof.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShuffleChallenge {
    /// 32 random bytes the challenge bits hash with the commitment.
    #[serde(with = "crate::serde_hex::array")]
    pub nonce: [u8; 32],
}

/// How one shadow is opened.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(bound = "", rename_all = "kebab-case")]
pub enum ShadowOpening<G: Group> {
    /// Challenge bit 0: `shadow[i] = y·input[σ[i]]` and `Y = y·G`.
    Shadow {
        /// The shadow's key `y`.
        key: G::Scalar,
        /// The shadow's permutation `σ`.
        permutation: Vec<u16>,
    },
    /// Challenge bit 1: `output[i] = z·shadow[τ[i]]` and `X = z·Y`.
    Output {
        /// The key `z = x·y⁻¹` from the shadow to the output.
        key: G::Scalar,
        /// The permutation `τ = σ⁻¹∘π` from the shadow to the output.
        permutation: Vec<u16>,
    },
}

/// The shuffler's answer to the challenge: one opening per shadow.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct ShuffleResponse<G: Group> {
    /// One opening per shadow, as the challenge bits ask.
    pub openings: Vec<ShadowOpening<G>>,
}

/// A whole non-interactive proof, sent with the shuffled list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct ShuffleProof<G: Group> {
    /// The shuffler's commitment.
    pub commit: ShuffleCommit<G>,
    /// Its response to the challenge derived from the commitment.
    pub response: ShuffleResponse<G>,
}

/// A shuffle whose proof was checked: `cards` is a permutation of the input, every card
/// locked with the committed key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shuffled<G: Group> {
    /// The shuffled, locked cards.
    pub cards: Vec<G::Element>,
}

/// The shuffler's secrets between its commitment and its response. Consumed by `respond`,
/// so one commitment is never opened twice.
#[cfg_attr(fuzzing, derive(Clone))]
pub struct PendingShuffle<G: Group> {
    /// Both possible openings of every shadow; the challenge picks one of each pair.
    openings: Vec<(ShadowOpening<G>, ShadowOpening<G>)>,
    statement: Transcript,
    soundness: Soundness,
}

impl<G: Group> Drop for PendingShuffle<G> {
    fn drop(&mut self) {
        for (shadow, output) in &mut self.openings {
            for opening in [shadow, output] {
                let (ShadowOpening::Shadow { key, .. } | ShadowOpening::Output { key, .. }) = opening;
                G::wipe_scalar(key);
            }
        }
    }
}

impl<G: Group> LockKey<G> {
    /// Locks `cards` with this key and permutes them at random, committing to the
    /// shadows of a shuffle proof. Answer the challenge with [`PendingShuffle::respond`].
    pub fn lock_and_shuffle<R: CryptoRng + ?Sized>(
        &self,
        cards: &[G::Element],
        soundness: Soundness,
        context: &ProofContext,
        rng: &mut R,
    ) -> (ShuffleCommit<G>, PendingShuffle<G>) {
        let n = cards.len();
        let permutation = random_permutation(rng, n);
        let output = permutation.iter().map(|&k| G::mul(&cards[usize::from(k)], self.lock_scalar())).collect();
        let mut shadows = Vec::with_capacity(soundness.rounds());
        let mut openings = Vec::with_capacity(soundness.rounds());
        for _ in 0..soundness.rounds() {
            let shadow_key = LockKey::<G>::generate(rng);
            let sigma = random_permutation(rng, n);
            let shadow_cards =
                sigma.iter().map(|&k| G::mul(&cards[usize::from(k)], shadow_key.lock_scalar())).collect();
            // τ = σ⁻¹∘π: output[i] = x·input[π[i]] = z·shadow[σ⁻¹[π[i]]].
            let mut sigma_inverse = vec![0u16; n];
            for (i, &k) in (0..=u16::MAX).zip(&sigma) {
                sigma_inverse[usize::from(k)] = i;
            }
            let tau = permutation.iter().map(|&k| sigma_inverse[usize::from(k)]).collect();
            let z = G::scalar_mul(self.lock_scalar(), shadow_key.strip_scalar());
            shadows.push(Shadow { key: shadow_key.commitment().clone(), cards: shadow_cards });
            openings.push((
                ShadowOpening::Shadow { key: shadow_key.lock_scalar().clone(), permutation: sigma },
                ShadowOpening::Output { key: z, permutation: tau },
            ));
        }
        let commit = ShuffleCommit { soundness, cards: output, shadows };
        let statement = shuffle_statement(self.commitment(), cards, &commit, context);
        (commit, PendingShuffle { openings, statement, soundness })
    }

    /// Lock, shuffle and prove in one go, with a Fiat–Shamir challenge.
    pub fn lock_and_shuffle_non_interactive<R: CryptoRng + ?Sized>(
        &self,
        cards: &[G::Element],
        context: &ProofContext,
        rng: &mut R,
    ) -> ShuffleProof<G> {
        let (commit, pending) = self.lock_and_shuffle(cards, Soundness::NonInteractive, context, rng);
        let response = pending.respond(None);
        ShuffleProof { commit, response }
    }
}

impl<G: Group> PendingShuffle<G> {
    /// Opens each shadow as the challenge asks. `challenge` is the verifier's nonce for an
    /// interactive proof, `None` for a non-interactive one.
    pub fn respond(mut self, challenge: Option<&ShuffleChallenge>) -> ShuffleResponse<G> {
        let bits = challenge_bits(&self.statement, self.soundness, challenge);
        let openings = std::mem::take(&mut self.openings)
            .into_iter()
            .zip(bits)
            .map(|((mut shadow, mut output), bit)| {
                let (chosen, dropped) = if bit { (output, &mut shadow) } else { (shadow, &mut output) };
                let (ShadowOpening::Shadow { key, .. } | ShadowOpening::Output { key, .. }) = dropped;
                G::wipe_scalar(key);
                chosen
            })
            .collect();
        ShuffleResponse { openings }
    }
}

impl ShuffleChallenge {
    /// A fresh challenge, drawn by the verifier after it saw the commitment.
    pub fn random<R: CryptoRng + ?Sized>(rng: &mut R) -> Self {
        let mut nonce = [0u8; 32];
        rng.fill_bytes(&mut nonce);
        ShuffleChallenge { nonce }
    }
}

impl<G: Group> KeyCommitment<G> {
    /// Checks an interactive shuffle proof: `commit` came first, then this verifier sent
    /// `challenge`, then the shuffler sent `response`.
    pub fn verify_shuffle(
        &self,
        inputs: &[G::Element],
        commit: ShuffleCommit<G>,
        challenge: &ShuffleChallenge,
        response: &ShuffleResponse<G>,
        context: &ProofContext,
    ) -> Result<Verified<Shuffled<G>>, ProofError> {
        if commit.soundness != Soundness::Interactive {
            return Err(ProofError::WrongSoundness);
        }
        verify(self, inputs, commit, Some(challenge), response, context)
    }

    /// Checks a non-interactive shuffle proof.
    pub fn verify_shuffle_proof(
        &self,
        inputs: &[G::Element],
        proof: ShuffleProof<G>,
        context: &ProofContext,
    ) -> Result<Verified<Shuffled<G>>, ProofError> {
        if proof.commit.soundness != Soundness::NonInteractive {
            return Err(ProofError::WrongSoundness);
        }
        verify(self, inputs, proof.commit, None, &proof.response, context)
    }
}

fn shuffle_statement<G: Group>(
    key: &KeyCommitment<G>,
    inputs: &[G::Element],
    commit: &ShuffleCommit<G>,
    context: &ProofContext,
) -> Transcript {
    let mut transcript = Transcript::new::<G>(commit.soundness.kind());
    transcript.append_context(context);
    transcript.append_element::<G>("generator", &G::generator());
    transcript.append_element::<G>("commitment", key.element());
    transcript.append_elements::<G>("inputs", inputs);
    transcript.append_elements::<G>("outputs", &commit.cards);
    transcript.append_u64("rounds", commit.shadows.len() as u64);
    for shadow in &commit.shadows {
        transcript.append_element::<G>("shadow-key", shadow.key.element());
        transcript.append_elements::<G>("shadow", &shadow.cards);
    }
    transcript
}

fn challenge_bits(statement: &Transcript, soundness: Soundness, challenge: Option<&ShuffleChallenge>) -> Vec<bool> {
    let mut transcript = statement.clone();
    if let Some(challenge) = challenge {
        transcript.append("verifier-nonce", &challenge.nonce);
    }
    let bytes = transcript.challenge_bytes("rounds");
    (0..soundness.rounds()).map(|round| bytes[round / 8] >> (round % 8) & 1 == 1).collect()
}

/// Checks that `permutation` is a permutation of `0..n`.
fn check_permutation(permutation: &[u16], n: usize, round: usize) -> Result<(), ProofError> {
    if permutation.len() != n {
        return Err(ProofError::ShuffleRound { round, reason: "permutation has the wrong length" });
    }
    let mut seen = vec![false; n];
    for &k in permutation {
        let slot = seen
            .get_mut(usize::from(k))
            .ok_or(ProofError::ShuffleRound { round, reason: "permutation index out of range" })?;
        if std::mem::replace(slot, true) {
            return Err(ProofError::ShuffleRound { round, reason: "permutation repeats an index" });
        }
    }
    Ok(())
}

fn verify<G: Group>(
    key: &KeyCommitment<G>,
    inputs: &[G::Element],
    commit: ShuffleCommit<G>,
    challenge: Option<&ShuffleChallenge>,
    response: &ShuffleResponse<G>,
    context: &ProofContext,
) -> Result<Verified<Shuffled<G>>, ProofError> {
    let n = inputs.len();
    let rounds = commit.soundness.rounds();
    if commit.cards.len() != n {
        return Err(ProofError::LengthMismatch { expected: n, actual: commit.cards.len() });
    }
    if commit.shadows.len() != rounds || response.openings.len() != rounds {
        return Err(ProofError::Rounds { expected: rounds, actual: commit.shadows.len().min(response.openings.len()) });
    }
    if let Some(round) = commit.shadows.iter().position(|shadow| shadow.cards.len() != n) {
        return Err(ProofError::ShuffleRound { round, reason: "shadow has the wrong length" });
    }
    let statement = shuffle_statement(key, inputs, &commit, context);
    let bits = challenge_bits(&statement, commit.soundness, challenge);

    // Batch weights come from everything the shuffler sent, answers included.
    let mut weighing = statement;
    for opening in &response.openings {
        let (ShadowOpening::Shadow { key, permutation } | ShadowOpening::Output { key, permutation }) = opening;
        weighing.append_scalar::<G>("opening-key", key);
        weighing.append("opening-permutation", &permutation.iter().flat_map(|k| k.to_be_bytes()).collect::<Vec<u8>>());
    }
    let output_refs: Vec<&G::Element> = commit.cards.iter().collect();
    for (round, ((shadow, opening), bit)) in commit.shadows.iter().zip(&response.openings).zip(bits).enumerate() {
        let weights = weighing.weights::<G>("round", round as u64, n);
        match (opening, bit) {
            (ShadowOpening::Shadow { key: y, permutation: sigma }, false) => {
                check_permutation(sigma, n, round)?;
                if G::mul_generator(y) != *shadow.key.element() {
                    return Err(ProofError::ShuffleRound { round, reason: "shadow key does not match its commitment" });
                }
                let shadow_refs: Vec<&G::Element> = shadow.cards.iter().collect();
                let input_refs: Vec<&G::Element> = sigma.iter().map(|&k| &inputs[usize::from(k)]).collect();
                if !G::equal_weighted_sums(&weights, &shadow_refs, &input_refs, y) {
                    return Err(ProofError::ShuffleRound {
                        round,
                        reason: "shadow is not the input locked and permuted",
                    });
                }
            }
            (ShadowOpening::Output { key: z, permutation: tau }, true) => {
                check_permutation(tau, n, round)?;
                if G::mul(shadow.key.element(), z) != *key.element() {
                    return Err(ProofError::ShuffleRound {
                        round,
                        reason: "link key does not map the shadow key to the lock key",
                    });
                }
                let shadow_refs: Vec<&G::Element> = tau.iter().map(|&k| &shadow.cards[usize::from(k)]).collect();
                if !G::equal_weighted_sums(&weights, &output_refs, &shadow_refs, z) {
                    return Err(ProofError::ShuffleRound {
                        round,
                        reason: "output is not the shadow locked and permuted",
                    });
                }
            }
            _ => return Err(ProofError::ShuffleRound { round, reason: "opening does not answer the challenge" }),
        }
    }
    Ok(Verified::assert_checked(Shuffled { cards: commit.cards }))
}
