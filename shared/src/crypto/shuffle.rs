//! Verifiable lock-and-shuffle: the output list is a permutation of the input list, every
//! card locked with the committed key, and nothing else — no card dropped, duplicated or
//! substituted.
//!
//! The statement: public inputs `a`, outputs `b`, key commitment `K = k·G`; the shuffler knows
//! `k` and `π` with `b_i = k·a_π(i)`. The proof is Terelius–Wikström's proof of a shuffle with
//! its re-encryption relation replaced by the lock relation `Σ u'_i·b_i = k·Σ u_j·a_j`
//! (the design note `shuffle-argument.md`; docs/CRYPTO.md has the soundness argument):
//!
//! 1. `c_j = r_j·G + H_i` for the `i` with `π(i) = j`: a Pedersen commitment to the
//!    permutation matrix, one column per input, over generators `h_0, H_0 … H_{n−1}` hashed to
//!    the group (nobody knows a relation between them, or with `G`).
//! 2. Challenges `u_j` hash everything so far; `u'_i = u_π(i)`.
//! 3. A chain `ĉ_i = r̂_i·G + u'_i·ĉ_{i−1}` from `ĉ_{−1} = h_0` commits to the `u'`, so that
//!    `ĉ_{n−1} = r̂·G + (Π u_j)·h_0`.
//! 4. One Sigma protocol with one challenge `e` proves, with the same responses `s'_i` in
//!    every equation that has the `u'`:
//!    (1) `Σ c_j − Σ H_i = r̄·G`, (2) `ĉ_{n−1} − (Π u_j)·h_0 = r̂·G`,
//!    (3) `Σ u_j·c_j = r̃·G + Σ u'_i·H_i`, (4) `Σ u'_i·b_i = k·Σ u_j·a_j`, (5) `K = k·G`,
//!    (6) `ĉ_i = r̂_i·G + u'_i·ĉ_{i−1}` for every `i`.
//!
//! Transcript (SHA-256, `Transcript`: every field labelled and length-prefixed): protocol
//! tag, kind `shuffle/lock`, suite, context (game, sequence, purpose), `n`, the generator
//! `G`, `K`, the inputs, the outputs (each list with its length, every element in its
//! fixed-length encoding); then the `c`, from which `u_j` is hashed with label `u` and index
//! `j`; then the chain `ĉ`, `t_1 … t_5` and the `t̂`, from which `e` is hashed with label `e`.
//!
//! The verifier folds the 5 + n equations into one variable-time multiscalar multiplication
//! of 6n + 8 terms with random weights of its own; it handles nothing secret.
//!
//! The prover's secrets go through the group's constant-time operations only (ristretto255;
//! modp2048 has none, see docs/CRYPTO.md): `k`, the blinding scalars and `u'` through its scalar
//! arithmetic and multiplications, and `π` never as an address or a branch: the permutation is
//! built by conditional swaps (`random_permutation`), and every read at `π(i)` or `π⁻¹(j)` (an
//! input card, a column's base, a challenge) is a scan of the whole list (`Group::select_element`,
//! `Group::select_scalar`), O(n²) selections a proof.

use std::any::Any;
use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex, PoisonError};

use rand_core::CryptoRng;
use serde::{Deserialize, Serialize};
use zeroize::Zeroize;

use super::ProofError;
use super::group::{Group, Suite, random_permutation};
use super::lock::{KeyCommitment, LockKey};
use super::oblivious;
use super::parallel;
use super::transcript::{ProofContext, Transcript};
use super::verified::Verified;

const KIND: &str = "shuffle/lock";
const GENERATORS_KIND: &str = "shuffle/generators";

/// The fewest scans of `select_each` worth a core of their own: 16 scans of 60 cards take about 30 µs here, handing
/// them to the pool a few.
const SELECTS_PER_SHARE: usize = 16;

/// A proof that a list is another one permuted and locked with a committed key (the module
/// documentation gives each field's equation). About `5n` elements and scalars: 9.8 KB for
/// 60 ristretto255 cards.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct ShuffleProof<G: Group> {
    /// `c_j`, one per input: the commitment to the permutation.
    #[serde(deserialize_with = "super::encoding::elements::<G, _>")]
    permutation: Vec<G::Element>,
    /// `ĉ_i`, one per output: the chain that commits to the permuted challenges.
    #[serde(deserialize_with = "super::encoding::elements::<G, _>")]
    chain: Vec<G::Element>,
    /// `t_1 … t_5`: the Sigma protocol's commitments for equations (1)–(5).
    commitments: [G::Element; 5],
    /// `t̂_i`: its commitments for equation (6), one per link of the chain.
    #[serde(deserialize_with = "super::encoding::elements::<G, _>")]
    chain_commitments: Vec<G::Element>,
    /// `s_1 … s_4`: its responses for `r̄`, `r̂`, `r̃` and `k`.
    responses: [G::Scalar; 4],
    /// `ŝ_i`: its responses for the chain's blinding scalars.
    chain_responses: Vec<G::Scalar>,
    /// `s'_i`: its responses for the permuted challenges, shared by (3), (4) and (6).
    permuted_responses: Vec<G::Scalar>,
}

/// A locked and shuffled list with the proof that it is one: what a shuffle step sends for
/// each back of a library.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct ProvenShuffle<G: Group> {
    /// The outputs `b`: the inputs permuted, each locked with the key.
    #[serde(deserialize_with = "super::encoding::elements::<G, _>")]
    pub cards: Vec<G::Element>,
    /// The proof of it.
    pub proof: ShuffleProof<G>,
}

/// A shuffle whose proof was checked: `cards` is a permutation of the input, every card
/// locked with the committed key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shuffled<G: Group> {
    /// The outputs, in their shuffled order.
    pub cards: Vec<G::Element>,
}

impl<G: Group> LockKey<G> {
    /// Locks `cards` with this key, permutes them at random and proves it, for `context`: what to send, and
    /// the outputs to apply.
    pub fn lock_and_shuffle<R: CryptoRng + ?Sized>(
        &self,
        cards: &[G::Element],
        context: &ProofContext,
        rng: &mut R,
    ) -> (ProvenShuffle<G>, Verified<Shuffled<G>>) {
        let mut permutation = random_permutation(rng, cards.len());
        // Every index is below `cards.len()`, so every card is found; each by a scan of them all.
        let chosen = select_each::<G>(cards, &permutation);
        let outputs = G::mul_each(&chosen, self.lock_scalar());
        let statement = Statement::new(context, self.commitment(), cards, &outputs);
        let proof = prove(&statement, self.lock_scalar(), &permutation, rng);
        permutation.zeroize();
        // Checking costs as much again as proving: debug builds and tests only. A fixed seed
        // for the weights is enough to catch a prover bug.
        debug_assert_eq!(
            verify(&statement, &proof, &mut <rand_chacha::ChaCha20Rng as rand_core::SeedableRng>::from_seed([7; 32])),
            Ok(()),
            "an honest shuffle proof verifies"
        );
        let shuffled = Verified::made_here(Shuffled { cards: outputs.clone() });
        (ProvenShuffle { cards: outputs, proof }, shuffled)
    }
}

impl<G: Group> KeyCommitment<G> {
    /// Checks that `shuffle.cards` is `inputs` permuted and locked with this key; `rng` draws
    /// the verifier's own weights.
    pub fn verify_shuffle<R: CryptoRng + ?Sized>(
        &self,
        inputs: &[G::Element],
        shuffle: ProvenShuffle<G>,
        context: &ProofContext,
        rng: &mut R,
    ) -> Result<Verified<Shuffled<G>>, ProofError> {
        verify(&Statement::new(context, self, inputs, &shuffle.cards), &shuffle.proof, rng)?;
        Ok(Verified::assert_checked(Shuffled { cards: shuffle.cards }))
    }
}

/// What a shuffle proof claims: `outputs[i] = k·inputs[π(i)]` for the `k` of `key`.
struct Statement<'a, G: Group> {
    suite: Suite,
    context: &'a ProofContext,
    key: &'a KeyCommitment<G>,
    inputs: &'a [G::Element],
    outputs: &'a [G::Element],
}

impl<'a, G: Group> Statement<'a, G> {
    fn new(
        context: &'a ProofContext,
        key: &'a KeyCommitment<G>,
        inputs: &'a [G::Element],
        outputs: &'a [G::Element],
    ) -> Self {
        Statement { suite: G::SUITE, context, key, inputs, outputs }
    }

    fn transcript(&self) -> Transcript {
        let mut transcript = Transcript::for_suite(KIND, self.suite);
        transcript.append_context(self.context);
        transcript.append_u64("n", self.inputs.len() as u64);
        transcript.append_element::<G>("generator", &G::generator());
        transcript.append_element::<G>("key", self.key.element());
        transcript.append_elements::<G>("inputs", self.inputs);
        transcript.append_elements::<G>("outputs", self.outputs);
        transcript
    }
}

/// The proof's commitments, absorbed once `u` is known; `e` hashes them.
fn sigma_challenge<G: Group>(
    mut transcript: Transcript,
    chain: &[G::Element],
    commitments: &[G::Element],
    chain_commitments: &[G::Element],
) -> G::Scalar {
    transcript.append_elements::<G>("chain", chain);
    transcript.append_elements::<G>("commitments", commitments);
    transcript.append_elements::<G>("chain-commitments", chain_commitments);
    transcript.challenge_scalar::<G>("e")
}

/// The shuffle's generators `h_0, H_0 … H_{count−2}`, hashed to the group from the index under their own domain,
/// the table of `h_0`, with which the prover's chain is a product of fixed bases, and the `Group::addends` of the
/// `H_i`, which the permutation's columns add to products of `G`.
struct Generators<G: Group> {
    elements: Vec<G::Element>,
    h0: G::FixedBase,
    addends: Vec<G::Element>,
}

/// The generators of shuffles of up to `count − 1` cards, kept, since hashing costs as much as a lock and the table
/// a few, and every proof uses the same ones.
fn generators<G: Group>(count: usize) -> Arc<Generators<G>> {
    type Cache = Mutex<HashMap<Suite, Arc<dyn Any + Send + Sync>>>;
    static CACHE: LazyLock<Cache> = LazyLock::new(Cache::default);
    let mut cache = CACHE.lock().unwrap_or_else(PoisonError::into_inner);
    let cached = cache.get(&G::SUITE).cloned().and_then(|any| any.downcast::<Generators<G>>().ok());
    if let Some(cached) = cached.as_ref().filter(|cached| cached.elements.len() >= count.max(1)) {
        return cached.clone();
    }
    let (known, mut addends) =
        cached.map(|cached| (cached.elements.clone(), cached.addends.clone())).unwrap_or_default();
    // At least h_0, which the chain starts from even with no card.
    let more = (known.len() as u64..count.max(1) as u64).map(|index| {
        let mut transcript = Transcript::new::<G>(GENERATORS_KIND);
        transcript.append_u64("index", index);
        G::hash_to_element(&transcript.challenge_bytes("generator"))
    });
    let elements: Vec<G::Element> = known.into_iter().chain(more).collect();
    addends.extend(G::addends(&elements[1 + addends.len()..]));
    let generators = Arc::new(Generators { h0: G::fixed_base(&elements[0]), elements, addends });
    cache.insert(G::SUITE, generators.clone());
    generators
}

/// `table[i]` for every secret index `i` of `indices` that is in the table, each by a scan of the whole table
/// (`Group::select_element`), the scans shared among the cores: O(n²) work, the most of a proof's that is not a
/// product.
fn select_each<G: Group>(table: &[G::Element], indices: &[u16]) -> Vec<G::Element> {
    parallel::map_ranges(indices.len(), SELECTS_PER_SHARE, |range| {
        indices[range].iter().filter_map(|&i| G::select_element(table, i)).collect()
    })
}

fn random_scalars<G: Group, R: CryptoRng + ?Sized>(rng: &mut R, count: usize) -> Vec<G::Scalar> {
    (0..count).map(|_| G::random_scalar(rng)).collect()
}

fn wipe<G: Group>(scalars: &mut [G::Scalar]) {
    scalars.iter_mut().for_each(G::wipe_scalar);
}

/// The chain `ĉ_i = r̂_i·G + u'_i·ĉ_{i−1}` from `ĉ_{−1} = h_0`, unrolled: `ĉ_i = R_i·G + P_i·h_0` with
/// `R_i = u'_i·R_{i−1} + r̂_i` and `P_i = u'_i·P_{i−1}` (`R_{−1} = 0`, `P_{−1} = 1`), so that every link is a product
/// of the two fixed bases, whose tables make it several times cheaper than one of the previous link. The same
/// elements as the recursion. Returns the `R_i` and `P_i`, secret, for the caller to wipe.
fn chain_scalars<G: Group>(r_chain: &[G::Scalar], u_permuted: &[G::Scalar]) -> (Vec<G::Scalar>, Vec<G::Scalar>) {
    let (mut on_generator, mut on_h0): (Vec<G::Scalar>, Vec<G::Scalar>) = (Vec::new(), Vec::new());
    let (zero, one) = (G::scalar_from_u128(0), G::scalar_from_u128(1));
    for (r_i, u_i) in r_chain.iter().zip(u_permuted) {
        let next = G::scalar_add(&G::scalar_mul(on_generator.last().unwrap_or(&zero), u_i), r_i);
        on_generator.push(next);
        let next = G::scalar_mul(on_h0.last().unwrap_or(&one), u_i);
        on_h0.push(next);
    }
    (on_generator, on_h0)
}

/// `t̂_i = ŵ_i·G + w'_i·ĉ_{i−1}` for every link, as `(ŵ_i + w'_i·R_{i−1})·G + (w'_i·P_{i−1})·h_0` (`chain_scalars`).
fn chain_commitments<G: Group>(
    w_chain: &[G::Scalar],
    w_permuted: &[G::Scalar],
    (on_generator, on_h0): (&[G::Scalar], &[G::Scalar]),
    h0: &G::FixedBase,
) -> Vec<G::Element> {
    let (zero, one) = (G::scalar_from_u128(0), G::scalar_from_u128(1));
    let previous = || std::iter::once((&zero, &one)).chain(on_generator.iter().zip(on_h0));
    let mut xs: Vec<G::Scalar> = w_chain
        .iter()
        .zip(w_permuted)
        .zip(previous())
        .map(|((w_i, w_permuted_i), (r_previous, _))| G::scalar_add(w_i, &G::scalar_mul(w_permuted_i, r_previous)))
        .collect();
    let mut ys: Vec<G::Scalar> = w_permuted
        .iter()
        .zip(previous())
        .map(|(w_permuted_i, (_, p_previous))| G::scalar_mul(w_permuted_i, p_previous))
        .collect();
    let elements = G::mul_generator_and_fixed(&xs, &ys, h0);
    wipe::<G>(&mut xs);
    wipe::<G>(&mut ys);
    elements
}

/// `w + e·x`: a Sigma protocol's response.
fn respond<G: Group>(w: &G::Scalar, e: &G::Scalar, x: &G::Scalar) -> G::Scalar {
    G::scalar_add(w, &G::scalar_mul(e, x))
}

/// Proves `statement` for the key `k` and the permutation with `outputs[i] = k·inputs[π[i]]`.
/// Whatever the witness, it makes a proof; only a true one verifies (the tests feed it false
/// ones).
fn prove<G: Group, R: CryptoRng + ?Sized>(
    statement: &Statement<'_, G>,
    k: &G::Scalar,
    permutation: &[u16],
    rng: &mut R,
) -> ShuffleProof<G> {
    let n = permutation.len();
    let generators = generators::<G>(n + 1);
    let bases = &generators.elements[1..=n];
    let zero = G::scalar_from_u128(0);

    // 1. Column j of the permutation matrix holds H_i for the i with π(i) = j: H_{π⁻¹(j)}, with
    //    π⁻¹ and each column's base (as its addend) found by scans of whole lists (`Group::select_element`).
    //    Every index of π⁻¹ is below n, so every column's base is found.
    let mut r = random_scalars::<G, R>(rng, n);
    let mut inverse = oblivious::invert(permutation);
    let columns = select_each::<G>(&generators.addends[..n], &inverse);
    let permutation_commitments = G::mul_generator_plus_each(&r, &columns);
    inverse.zeroize();

    // 2. The challenges, and the prover's secret copy of them in the permuted order.
    let mut transcript = statement.transcript();
    transcript.append_elements::<G>("permutation", &permutation_commitments);
    let u = transcript.challenge_scalars::<G>("u", n);
    let mut u_permuted: Vec<G::Scalar> =
        permutation.iter().map(|&j| G::select_scalar(&u, j).unwrap_or_else(|| zero.clone())).collect();

    // 3. The chain, and r̂ = R_{n−1} = Σ r̂_i·Π_{l>i} u'_l.
    let mut r_chain = random_scalars::<G, R>(rng, n);
    let (mut on_generator, mut on_h0) = chain_scalars::<G>(&r_chain, &u_permuted);
    let chain = G::mul_generator_and_fixed(&on_generator, &on_h0, &generators.h0);
    let mut r_chain_total = on_generator.last().cloned().unwrap_or_else(|| zero.clone());

    // 4. The aggregates r̄ = Σ r_j, r̃ = Σ u_j·r_j (the public A = Σ u_j·a_j comes with t_4, below).
    let mut r_total = r.iter().fold(zero.clone(), |sum, r_j| G::scalar_add(&sum, r_j));
    let mut r_weighted = r.iter().zip(&u).fold(zero, |sum, (r_j, u_j)| G::scalar_add(&sum, &G::scalar_mul(r_j, u_j)));

    // 5. The Sigma protocol.
    let mut w = random_scalars::<G, R>(rng, 4);
    let mut w_chain = random_scalars::<G, R>(rng, n);
    let mut w_permuted = random_scalars::<G, R>(rng, n);
    let generator = G::generator();
    let mut t3_scalars: Vec<G::Scalar> = std::iter::once(w[2].clone()).chain(w_permuted.iter().cloned()).collect();
    let t3_elements: Vec<&G::Element> = std::iter::once(&generator).chain(bases).collect();
    let mut t4_scalars: Vec<G::Scalar> =
        w_permuted.iter().cloned().chain(std::iter::once(G::scalar_neg(&w[3]))).collect();
    // The proof's three long products, none long enough at 60 cards to be shared out alone: t_1, t_2, t_5 and
    // t_3 on this core; on the other, A then t_4 = Σ w'_i·b_i − w_4·A.
    let ([t1, t2, t5, t3], t4) = parallel::join(
        || {
            [
                G::mul_generator(&w[0]),
                G::mul_generator(&w[1]),
                G::mul_generator(&w[3]),
                G::multi_mul(&t3_scalars, &t3_elements),
            ]
        },
        || {
            let aggregate = G::vartime_multi_mul(&u, &statement.inputs.iter().collect::<Vec<_>>());
            let t4_elements: Vec<&G::Element> = statement.outputs.iter().chain(std::iter::once(&aggregate)).collect();
            G::multi_mul(&t4_scalars, &t4_elements)
        },
    );
    let commitments = [t1, t2, t3, t4, t5];
    let chain_commitments = chain_commitments::<G>(&w_chain, &w_permuted, (&on_generator, &on_h0), &generators.h0);
    let e = sigma_challenge::<G>(transcript, &chain, &commitments, &chain_commitments);
    let responses = [
        respond::<G>(&w[0], &e, &r_total),
        respond::<G>(&w[1], &e, &r_chain_total),
        respond::<G>(&w[2], &e, &r_weighted),
        respond::<G>(&w[3], &e, k),
    ];
    let chain_responses = w_chain.iter().zip(&r_chain).map(|(w_i, r_i)| respond::<G>(w_i, &e, r_i)).collect();
    let permuted_responses = w_permuted.iter().zip(&u_permuted).map(|(w_i, u_i)| respond::<G>(w_i, &e, u_i)).collect();

    for secrets in [&mut r, &mut u_permuted, &mut r_chain, &mut w, &mut w_chain, &mut w_permuted] {
        wipe::<G>(secrets);
    }
    for secrets in [&mut t3_scalars, &mut t4_scalars, &mut on_generator, &mut on_h0] {
        wipe::<G>(secrets);
    }
    for secret in [&mut r_total, &mut r_weighted, &mut r_chain_total] {
        G::wipe_scalar(secret);
    }
    ShuffleProof {
        permutation: permutation_commitments,
        chain,
        commitments,
        chain_commitments,
        responses,
        chain_responses,
        permuted_responses,
    }
}

/// Checks every equation of the proof at once: Σ over the equations of a random weight times
/// (left − right) must vanish, one multiscalar multiplication of 6n + 8 terms.
fn verify<G: Group, R: CryptoRng + ?Sized>(
    statement: &Statement<'_, G>,
    proof: &ShuffleProof<G>,
    rng: &mut R,
) -> Result<(), ProofError> {
    let n = statement.inputs.len();
    let lengths = [
        statement.outputs.len(),
        proof.permutation.len(),
        proof.chain.len(),
        proof.chain_commitments.len(),
        proof.chain_responses.len(),
        proof.permuted_responses.len(),
    ];
    if let Some(&actual) = lengths.iter().find(|&&len| len != n) {
        return Err(ProofError::LengthMismatch { expected: n, actual });
    }
    let one = G::scalar_from_u128(1);
    // Decoding refuses the identity; a key made here by arithmetic is checked all the same,
    // since with K = 0 every output could be the identity.
    if G::vartime_multi_mul_is_identity(std::slice::from_ref(&one), &[statement.key.element()]) {
        return Err(ProofError::Shuffle);
    }
    let generators = generators::<G>(n + 1);
    let (h0, bases) = (&generators.elements[0], &generators.elements[1..=n]);
    let mut transcript = statement.transcript();
    transcript.append_elements::<G>("permutation", &proof.permutation);
    let u = transcript.challenge_scalars::<G>("u", n);
    let e = sigma_challenge::<G>(transcript, &proof.chain, &proof.commitments, &proof.chain_commitments);

    let weights = random_scalars::<G, R>(rng, 5);
    let chain_weights = random_scalars::<G, R>(rng, n);
    let (mul, add, neg) = (G::scalar_mul, G::scalar_add, G::scalar_neg);
    let [s1, s2, s3, s4] = &proof.responses;
    let (s_chain, s_permuted) = (&proof.chain_responses, &proof.permuted_responses);
    let u_product = u.iter().fold(one, |product, u_j| mul(&product, u_j));
    let weight_e: Vec<G::Scalar> = weights.iter().map(|rho| mul(rho, &e)).collect();

    let mut scalars: Vec<G::Scalar> = Vec::with_capacity(6 * n + 8);
    let mut elements: Vec<&G::Element> = Vec::with_capacity(6 * n + 8);
    let generator = G::generator();
    // G: −(ρ1·s1 + ρ2·s2 + ρ3·s3 + ρ5·s4 + Σ ρ̂_i·ŝ_i).
    let g_sum = [(&weights[0], s1), (&weights[1], s2), (&weights[2], s3), (&weights[4], s4)]
        .into_iter()
        .chain(chain_weights.iter().zip(s_chain))
        .fold(G::scalar_from_u128(0), |sum, (rho, s)| add(&sum, &mul(rho, s)));
    scalars.push(neg(&g_sum));
    elements.push(&generator);
    // h_0: −ρ2·e·Π u, and −ρ̂_0·s'_0 as the chain's start (with no chain, h_0 is its end too).
    let mut h0_scalar = neg(&mul(&weight_e[1], &u_product));
    h0_scalar = match (chain_weights.first(), s_permuted.first()) {
        (Some(rho), Some(s)) => add(&h0_scalar, &neg(&mul(rho, s))),
        _ => add(&h0_scalar, &weight_e[1]),
    };
    scalars.push(h0_scalar);
    elements.push(h0);
    // H_i: −ρ1·e − ρ3·s'_i.
    for (base, s) in bases.iter().zip(s_permuted) {
        scalars.push(neg(&add(&weight_e[0], &mul(&weights[2], s))));
        elements.push(base);
    }
    // c_j: ρ1·e + ρ3·e·u_j.
    for (c, u_j) in proof.permutation.iter().zip(&u) {
        scalars.push(add(&weight_e[0], &mul(&weight_e[2], u_j)));
        elements.push(c);
    }
    // a_j: ρ4·s4·u_j.
    let weight_s4 = mul(&weights[3], s4);
    for (a, u_j) in statement.inputs.iter().zip(&u) {
        scalars.push(mul(&weight_s4, u_j));
        elements.push(a);
    }
    // b_i: −ρ4·s'_i.
    for (b, s) in statement.outputs.iter().zip(s_permuted) {
        scalars.push(neg(&mul(&weights[3], s)));
        elements.push(b);
    }
    // ĉ_i: ρ̂_i·e − ρ̂_{i+1}·s'_{i+1}; the last one ρ̂_{n−1}·e + ρ2·e.
    for (i, link) in proof.chain.iter().enumerate() {
        let own = mul(&chain_weights[i], &e);
        let scalar = match (chain_weights.get(i + 1), s_permuted.get(i + 1)) {
            (Some(rho), Some(s)) => add(&own, &neg(&mul(rho, s))),
            _ => add(&own, &weight_e[1]),
        };
        scalars.push(scalar);
        elements.push(link);
    }
    // t_1 … t_5: ρ_k; t̂_i: ρ̂_i; K: ρ5·e.
    scalars.extend(weights.iter().cloned().chain(chain_weights.iter().cloned()));
    elements.extend(proof.commitments.iter().chain(&proof.chain_commitments));
    scalars.push(weight_e[4].clone());
    elements.push(statement.key.element());

    if G::vartime_multi_mul_is_identity(&scalars, &elements) { Ok(()) } else { Err(ProofError::Shuffle) }
}

#[cfg(test)]
mod tests;
