//! Lock keys, locking and stripping, and the batched Chaum–Pedersen proofs that every lock
//! and strip was done with the committed key.

use rand_core::CryptoRng;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::ProofError;
use super::group::Group;
use super::transcript::{ProofContext, Transcript};
use super::verified::Verified;

/// A player's secret lock: the scalar `x` and its inverse. Locking multiplies by `x`,
/// stripping by `x⁻¹`. Wiped on drop, never printed.
#[cfg_attr(fuzzing, derive(Clone))]
pub struct LockKey<G: Group> {
    lock: G::Scalar,
    strip: G::Scalar,
    commitment: KeyCommitment<G>,
}

/// The public commitment `X = x·G` to a lock key, against which every proof is checked.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(bound = "", transparent)]
pub struct KeyCommitment<G: Group> {
    element: G::Element,
}

/// A short, printable name for a key commitment.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct KeyId(pub [u8; 8]);

impl std::fmt::Display for KeyId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&hex::encode(self.0))
    }
}

impl std::fmt::Debug for KeyId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "KeyId({self})")
    }
}

/// A batched Chaum–Pedersen (DLEQ) proof: one secret `x` with `X = x·G` maps every base to
/// its result. Two scalars, whatever the number of cards.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct DleqProof<G: Group> {
    challenge: G::Scalar,
    response: G::Scalar,
}

/// Cards locked under a committed key: `cards[i] = x·inputs[i]`, checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Locked<G: Group> {
    /// The locked cards.
    pub cards: Vec<G::Element>,
}

impl<G: Group> Verified<Locked<G>> {
    /// Two checked lists of cards under one key as one list: a deck whose cards came by two proofs.
    pub fn chain(self, other: Self) -> Self {
        let mut cards = self.into_inner().cards;
        cards.extend(other.into_inner().cards);
        Verified::assert_checked(Locked { cards })
    }

    /// The first `at` cards and the rest, each still checked.
    pub fn split(self, at: usize) -> (Self, Self) {
        let mut cards = self.into_inner().cards;
        let rest = cards.split_off(at.min(cards.len()));
        (Verified::assert_checked(Locked { cards }), Verified::assert_checked(Locked { cards: rest }))
    }
}

/// Cards with one layer stripped: `locked[i] = x·cards[i]`, checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stripped<G: Group> {
    /// The stripped cards.
    pub cards: Vec<G::Element>,
}

const LOCK_KIND: &str = "dleq/lock";
const STRIP_KIND: &str = "dleq/strip";
const RELOCK_KIND: &str = "dleq/relock";

impl<G: Group> LockKey<G> {
    /// A fresh random key, with its inverse for stripping and its commitment.
    pub fn generate<R: CryptoRng + ?Sized>(rng: &mut R) -> Self {
        // A key is a scalar with an inverse; `random_scalar` never returns zero, so the first one drawn has one.
        loop {
            let mut lock = G::random_scalar(rng);
            if let Some(strip) = G::scalar_invert(&lock) {
                let commitment = KeyCommitment { element: G::mul_generator(&lock) };
                return LockKey { lock, strip, commitment };
            }
            G::wipe_scalar(&mut lock);
        }
    }

    /// The public commitment `X = x·G` that proofs about this key check against.
    pub fn commitment(&self) -> &KeyCommitment<G> {
        &self.commitment
    }

    pub(crate) fn lock_scalar(&self) -> &G::Scalar {
        &self.lock
    }

    pub(crate) fn strip_scalar(&self) -> &G::Scalar {
        &self.strip
    }

    /// Adds this key's layer to each card.
    pub fn lock(&self, cards: &[G::Element]) -> Vec<G::Element> {
        G::mul_each(cards, &self.lock)
    }

    /// Removes this key's layer from each card.
    pub fn strip(&self, locked: &[G::Element]) -> Vec<G::Element> {
        G::mul_each(locked, &self.strip)
    }

    /// Locks cards with this key, with a proof against its commitment that the same key locked them all.
    pub fn lock_with_proof<R: CryptoRng + ?Sized>(
        &self,
        cards: &[G::Element],
        context: &ProofContext,
        rng: &mut R,
    ) -> (Verified<Locked<G>>, DleqProof<G>) {
        let locked = self.lock(cards);
        let proof = self.prove_lock(cards, &locked, context, rng);
        (Verified::made_here(Locked { cards: locked }), proof)
    }

    /// `lock_with_proof`, and the locked cards as they are once `other`'s layer is stripped from them too (the
    /// points a deck's catalogue seals its cards under): both made from the cards at once, at less than the cost
    /// of a lock then a strip where the group has a way (`Group::mul_each_twice`).
    pub fn lock_with_proof_and_strip<R: CryptoRng + ?Sized>(
        &self,
        cards: &[G::Element],
        other: &LockKey<G>,
        context: &ProofContext,
        rng: &mut R,
    ) -> (Verified<Locked<G>>, DleqProof<G>, Vec<G::Element>) {
        let mut factor = G::scalar_mul(&self.lock, &other.strip);
        let (locked, stripped) = G::mul_each_twice(cards, &self.lock, &factor);
        G::wipe_scalar(&mut factor);
        let proof = self.prove_lock(cards, &locked, context, rng);
        (Verified::made_here(Locked { cards: locked }), proof, stripped)
    }

    fn prove_lock<R: CryptoRng + ?Sized>(
        &self,
        cards: &[G::Element],
        locked: &[G::Element],
        context: &ProofContext,
        rng: &mut R,
    ) -> DleqProof<G> {
        prove_dleq(&self.lock, ProofBase::Generator, &self.commitment.element, cards, locked, LOCK_KIND, context, rng)
    }

    /// Strips this key's layer off cards, with a proof that the layer removed was this key's.
    pub fn strip_with_proof<R: CryptoRng + ?Sized>(
        &self,
        locked: &[G::Element],
        context: &ProofContext,
        rng: &mut R,
    ) -> (Verified<Stripped<G>>, DleqProof<G>) {
        let stripped = self.strip(locked);
        // Stripping is proven as the lock it undoes: locked = x·stripped.
        let proof = prove_dleq(
            &self.lock,
            ProofBase::Generator,
            &self.commitment.element,
            &stripped,
            locked,
            STRIP_KIND,
            context,
            rng,
        );
        (Verified::made_here(Stripped { cards: stripped }), proof)
    }
}

impl<G: Group> LockKey<G> {
    /// Moves cards from the layer of `from` (or from no layer of this player's) to this key's
    /// layer, without ever stripping them: each card is multiplied by `x·x_from⁻¹`. The proof
    /// shows that the same factor maps `from`'s commitment (or the generator) to this key's.
    pub fn relock_with_proof<R: CryptoRng + ?Sized>(
        &self,
        from: Option<&LockKey<G>>,
        forms: &[G::Element],
        context: &ProofContext,
        rng: &mut R,
    ) -> (Verified<Locked<G>>, DleqProof<G>) {
        let (factor, base) = match from {
            Some(old) => (G::scalar_mul(&self.lock, &old.strip), ProofBase::Commitment(&old.commitment.element)),
            None => (self.lock.clone(), ProofBase::Generator),
        };
        let relocked = G::mul_each(forms, &factor);
        let mut factor = factor;
        let proof = prove_dleq(&factor, base, &self.commitment.element, forms, &relocked, RELOCK_KIND, context, rng);
        G::wipe_scalar(&mut factor);
        (Verified::made_here(Locked { cards: relocked }), proof)
    }

    /// The key `x·y` of this key `x` followed by `extra` (`y`), and a proof, checkable with
    /// `extra`'s commitment, that its commitment is `y·X`.
    pub fn combine_with_proof<R: CryptoRng + ?Sized>(
        &self,
        extra: &LockKey<G>,
        context: &ProofContext,
        rng: &mut R,
    ) -> (LockKey<G>, DleqProof<G>) {
        let lock = G::scalar_mul(&self.lock, &extra.lock);
        let strip = G::scalar_mul(&self.strip, &extra.strip);
        // `extra` locks this key's commitment, the one element of a lock proof: `y·X`.
        let element = G::mul(&self.commitment.element, &extra.lock);
        let proof = prove_dleq(
            &extra.lock,
            ProofBase::Generator,
            &extra.commitment.element,
            std::slice::from_ref(&self.commitment.element),
            std::slice::from_ref(&element),
            LOCK_KIND,
            context,
            rng,
        );
        (LockKey { lock, strip, commitment: KeyCommitment { element } }, proof)
    }
}

impl<G: Group> Drop for LockKey<G> {
    fn drop(&mut self) {
        G::wipe_scalar(&mut self.lock);
        G::wipe_scalar(&mut self.strip);
    }
}

impl<G: Group> std::fmt::Debug for LockKey<G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "LockKey({})", self.commitment.id())
    }
}

impl<G: Group> KeyCommitment<G> {
    /// A commitment received from the other player (elements are validated when decoded).
    pub fn from_element(element: G::Element) -> Self {
        KeyCommitment { element }
    }

    /// The element `X = x·G`.
    pub fn element(&self) -> &G::Element {
        &self.element
    }

    /// A short id of the key, for logs and alerts.
    pub fn id(&self) -> KeyId {
        let digest = Sha256::new()
            .chain_update(b"fairdeck/v1/key-id/")
            .chain_update(G::SUITE.name())
            .chain_update(G::encode_element(&self.element))
            .finalize();
        let mut id = [0; 8];
        id.copy_from_slice(&digest[..8]);
        KeyId(id)
    }

    /// Checks that `locked[i] = x·cards[i]` for this key's `x`.
    pub fn verify_lock(
        &self,
        cards: &[G::Element],
        locked: Vec<G::Element>,
        proof: &DleqProof<G>,
        context: &ProofContext,
    ) -> Result<Verified<Locked<G>>, ProofError> {
        verify_dleq(ProofBase::Generator, &self.element, cards, &locked, proof, LOCK_KIND, context)?;
        Ok(Verified::assert_checked(Locked { cards: locked }))
    }

    /// Checks that `locked[i] = x·stripped[i]` for this key's `x`.
    pub fn verify_strip(
        &self,
        locked: &[G::Element],
        stripped: Vec<G::Element>,
        proof: &DleqProof<G>,
        context: &ProofContext,
    ) -> Result<Verified<Stripped<G>>, ProofError> {
        verify_dleq(ProofBase::Generator, &self.element, &stripped, locked, proof, STRIP_KIND, context)?;
        Ok(Verified::assert_checked(Stripped { cards: stripped }))
    }
}

impl<G: Group> KeyCommitment<G> {
    /// Checks that `relocked[i] = f·forms[i]` where `f` maps `from` (or the generator) to
    /// this commitment.
    pub fn verify_relock(
        &self,
        from: Option<&KeyCommitment<G>>,
        forms: &[G::Element],
        relocked: Vec<G::Element>,
        proof: &DleqProof<G>,
        context: &ProofContext,
    ) -> Result<Verified<Locked<G>>, ProofError> {
        let base = from.map_or(ProofBase::Generator, |old| ProofBase::Commitment(&old.element));
        verify_dleq(base, &self.element, forms, &relocked, proof, RELOCK_KIND, context)?;
        Ok(Verified::assert_checked(Locked { cards: relocked }))
    }

    /// Checks that `combined` commits to the product of this key and the key behind
    /// `extra` (the proof made by [`LockKey::combine_with_proof`]).
    pub fn verify_combined(
        &self,
        extra: &KeyCommitment<G>,
        combined: KeyCommitment<G>,
        proof: &DleqProof<G>,
        context: &ProofContext,
    ) -> Result<Verified<KeyCommitment<G>>, ProofError> {
        extra
            .verify_lock(std::slice::from_ref(&self.element), vec![combined.element.clone()], proof, context)
            .map(|_| Verified::assert_checked(combined))
    }
}

/// What a key's commitment is a multiple of in a proof of equal logarithms: the group's generator (a lock, a strip,
/// a first relock), whose multiples the group takes from a table, or a relock's old commitment.
enum ProofBase<'a, G: Group> {
    Generator,
    Commitment(&'a G::Element),
}

// By hand: a derive would ask `G` itself to be `Copy`.
impl<G: Group> Clone for ProofBase<'_, G> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<G: Group> Copy for ProofBase<'_, G> {}

impl<G: Group> ProofBase<'_, G> {
    fn element(self) -> G::Element {
        match self {
            ProofBase::Generator => G::generator(),
            ProofBase::Commitment(element) => element.clone(),
        }
    }
}

/// The statement of a batched DLEQ proof, hashed whole (Fiat–Shamir must see everything),
/// and the weights that fold all pairs into one.
fn dleq_statement<G: Group>(
    generator: &G::Element,
    commitment: &G::Element,
    bases: &[G::Element],
    results: &[G::Element],
    kind: &'static str,
    context: &ProofContext,
) -> (Transcript, Vec<G::Scalar>) {
    let mut transcript = Transcript::new::<G>(kind);
    transcript.append_context(context);
    transcript.append_element::<G>("generator", generator);
    transcript.append_element::<G>("commitment", commitment);
    transcript.append_elements::<G>("bases", bases);
    transcript.append_elements::<G>("results", results);
    let mut weights = transcript.weights::<G>("batch", 0, bases.len());
    // One weight may be fixed to 1 without weakening the batch, and a single card then
    // needs no folding at all.
    if let Some(first) = weights.first_mut() {
        *first = G::scalar_from_u128(1);
    }
    (transcript, weights)
}

/// Σ wᵢ·elementᵢ.
fn fold<G: Group>(weights: &[G::Scalar], elements: &[G::Element]) -> G::Element {
    match elements {
        [single] => single.clone(),
        _ => G::vartime_multi_mul(weights, &elements.iter().collect::<Vec<_>>()),
    }
}

#[allow(clippy::too_many_arguments)] // one statement, spelled out
fn prove_dleq<G: Group, R: CryptoRng + ?Sized>(
    secret: &G::Scalar,
    base: ProofBase<G>,
    commitment: &G::Element,
    bases: &[G::Element],
    results: &[G::Element],
    kind: &'static str,
    context: &ProofContext,
    rng: &mut R,
) -> DleqProof<G> {
    let (mut transcript, weights) = dleq_statement::<G>(&base.element(), commitment, bases, results, kind, context);
    let folded_base = fold::<G>(&weights, bases);
    let mut nonce = G::random_scalar(rng);
    // One batch: modp2048 makes the two powers on two cores; over `G`, its multiples come from a table.
    let [on_generator, on_base]: [G::Element; 2] = match base {
        ProofBase::Generator => G::mul_generator_and(&nonce, &folded_base),
        ProofBase::Commitment(generator) => {
            G::mul_each(&[generator.clone(), folded_base], &nonce).try_into().expect("one product per element")
        }
    };
    transcript.append_element::<G>("nonce-generator", &on_generator);
    transcript.append_element::<G>("nonce-base", &on_base);
    let challenge = transcript.challenge_scalar::<G>("dleq");
    let response = G::scalar_add(&nonce, &G::scalar_mul(&challenge, secret));
    G::wipe_scalar(&mut nonce);
    DleqProof { challenge, response }
}

fn verify_dleq<G: Group>(
    base: ProofBase<G>,
    commitment: &G::Element,
    bases: &[G::Element],
    results: &[G::Element],
    proof: &DleqProof<G>,
    kind: &'static str,
    context: &ProofContext,
) -> Result<(), ProofError> {
    if bases.len() != results.len() {
        return Err(ProofError::LengthMismatch { expected: bases.len(), actual: results.len() });
    }
    let (mut transcript, weights) = dleq_statement::<G>(&base.element(), commitment, bases, results, kind, context);
    let (folded_base, folded_result) = (fold::<G>(&weights, bases), fold::<G>(&weights, results));
    let scalars = [proof.response.clone(), G::scalar_neg(&proof.challenge)];
    let nonce_generator = match base {
        ProofBase::Generator => G::vartime_mul_generator_plus(&scalars[0], &scalars[1], commitment),
        ProofBase::Commitment(generator) => G::vartime_multi_mul(&scalars, &[generator, commitment]),
    };
    let nonce_base = G::vartime_multi_mul(&scalars, &[&folded_base, &folded_result]);
    transcript.append_element::<G>("nonce-generator", &nonce_generator);
    transcript.append_element::<G>("nonce-base", &nonce_base);
    if transcript.challenge_scalar::<G>("dleq") != proof.challenge {
        return Err(ProofError::Dleq);
    }
    Ok(())
}
