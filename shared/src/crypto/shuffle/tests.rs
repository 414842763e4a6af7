//! The shuffle argument against its promises: honest proofs verify for every size, and a
//! change to any field, any part of the statement, or a false witness makes it fail.

use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

use super::*;
use crate::crypto::{Modp2048, Ristretto255};
use crate::ids::GameId;

fn rng(seed: u8) -> ChaCha20Rng {
    ChaCha20Rng::from_seed([seed; 32])
}

fn context() -> ProofContext {
    ProofContext::new(GameId([7; 32]), 12, "shuffle/0/0")
}

fn cards<G: Group>(n: usize) -> Vec<G::Element> {
    (0..n).map(|i| G::hash_to_element(format!("card {i}").as_bytes())).collect()
}

/// Everything a test needs to prove and verify one shuffle of `n` cards.
struct Setup<G: Group> {
    key: LockKey<G>,
    inputs: Vec<G::Element>,
    context: ProofContext,
    rng: ChaCha20Rng,
}

impl<G: Group> Setup<G> {
    fn new(n: usize) -> Self {
        let mut rng = rng(n as u8);
        Setup { key: LockKey::generate(&mut rng), inputs: cards::<G>(n), context: context(), rng }
    }

    /// `outputs[i] = k·inputs[permutation[i]]`, whether or not `permutation` is one.
    fn outputs(&self, permutation: &[u16], k: &G::Scalar) -> Vec<G::Element> {
        permutation.iter().map(|&j| G::mul(&self.inputs[usize::from(j)], k)).collect()
    }

    /// A proof with a witness of the test's choosing, for a statement of its choosing.
    fn prove_claim(&mut self, outputs: &[G::Element], k: &G::Scalar, permutation: &[u16]) -> ShuffleProof<G> {
        let statement = Statement::new(&self.context, self.key.commitment(), &self.inputs, outputs);
        prove(&statement, k, permutation, &mut self.rng)
    }

    fn verify(&mut self, outputs: &[G::Element], proof: &ShuffleProof<G>) -> Result<(), ProofError> {
        let statement = Statement::new(&self.context, self.key.commitment(), &self.inputs, outputs);
        verify(&statement, proof, &mut self.rng)
    }
}

fn reversed(n: usize) -> Vec<u16> {
    (0..n as u16).rev().collect()
}

fn completeness<G: Group>(n: usize) {
    let mut setup = Setup::<G>::new(n);
    let (shuffle, made) = setup.key.lock_and_shuffle(&setup.inputs, &setup.context, &mut setup.rng);
    assert_eq!(shuffle.cards.len(), n);
    let verified =
        setup.key.commitment().verify_shuffle(&setup.inputs, shuffle.clone(), &setup.context, &mut rng(99)).unwrap();
    assert_eq!(verified.cards, shuffle.cards);
    assert_eq!(made.cards, verified.cards, "the shuffler applies what it sends");
    // The outputs are the inputs, locked, in another order.
    let mut stripped = setup.key.strip(&verified.cards);
    let mut inputs = setup.inputs.clone();
    let by_bytes = |a: &G::Element, b: &G::Element| G::encode_element(a).cmp(&G::encode_element(b));
    stripped.sort_by(by_bytes);
    inputs.sort_by(by_bytes);
    assert_eq!(stripped, inputs);
}

/// Changing any one value of an honest proof makes it fail.
fn every_field_is_checked<G: Group>() {
    let n = 4;
    let mut setup = Setup::<G>::new(n);
    let k = setup.key.lock_scalar().clone();
    let outputs = setup.outputs(&reversed(n), &k);
    let honest = setup.prove_claim(&outputs, &k, &reversed(n));
    assert_eq!(setup.verify(&outputs, &honest), Ok(()));

    let other = G::hash_to_element(b"another element");
    let bump = |s: &mut G::Scalar| *s = G::scalar_add(s, &G::scalar_from_u128(1));
    type Tamper<G> = Box<dyn Fn(&mut ShuffleProof<G>)>;
    let element_fields: Vec<(&str, Tamper<G>)> = vec![
        ("c", Box::new(|p| p.permutation[1] = G::hash_to_element(b"another element"))),
        ("ĉ", Box::new(|p| p.chain[2] = G::hash_to_element(b"another element"))),
        ("t̂", Box::new(|p| p.chain_commitments[0] = G::hash_to_element(b"another element"))),
        ("ŝ", Box::new(move |p| bump(&mut p.chain_responses[3]))),
        ("s'", Box::new(move |p| bump(&mut p.permuted_responses[1]))),
        ("c swapped", Box::new(|p| p.permutation.swap(0, 1))),
        ("ĉ swapped", Box::new(|p| p.chain.swap(0, 3))),
        ("s' swapped", Box::new(|p| p.permuted_responses.swap(1, 2))),
    ];
    for (field, tamper) in element_fields {
        let mut proof = honest.clone();
        tamper(&mut proof);
        assert_eq!(setup.verify(&outputs, &proof), Err(ProofError::Shuffle), "changed {field}");
    }
    for t in 0..5 {
        let mut proof = honest.clone();
        proof.commitments[t] = other.clone();
        assert_eq!(setup.verify(&outputs, &proof), Err(ProofError::Shuffle), "changed t_{}", t + 1);
    }
    for s in 0..4 {
        let mut proof = honest.clone();
        bump(&mut proof.responses[s]);
        assert_eq!(setup.verify(&outputs, &proof), Err(ProofError::Shuffle), "changed s_{}", s + 1);
    }
    // A list one short is refused before any arithmetic.
    let shortened: [Tamper<G>; 5] = [
        Box::new(|p| drop(p.permutation.pop())),
        Box::new(|p| drop(p.chain.pop())),
        Box::new(|p| drop(p.chain_commitments.pop())),
        Box::new(|p| drop(p.chain_responses.pop())),
        Box::new(|p| drop(p.permuted_responses.pop())),
    ];
    for tamper in shortened {
        let mut proof = honest.clone();
        tamper(&mut proof);
        assert_eq!(setup.verify(&outputs, &proof), Err(ProofError::LengthMismatch { expected: n, actual: n - 1 }));
    }

    // The statement: inputs, outputs, key, context and suite.
    let mut changed_outputs = outputs.clone();
    changed_outputs[0] = other.clone();
    assert_eq!(setup.verify(&changed_outputs, &honest), Err(ProofError::Shuffle), "changed b");
    let mut swapped_outputs = outputs.clone();
    swapped_outputs.swap(0, 1);
    assert_eq!(setup.verify(&swapped_outputs, &honest), Err(ProofError::Shuffle), "reordered b");
    let inputs = std::mem::replace(&mut setup.inputs[2], other.clone());
    assert_eq!(setup.verify(&outputs, &honest), Err(ProofError::Shuffle), "changed a");
    setup.inputs[2] = inputs;
    let key = std::mem::replace(&mut setup.key, LockKey::generate(&mut rng(50)));
    assert_eq!(setup.verify(&outputs, &honest), Err(ProofError::Shuffle), "changed K");
    setup.key = key;
    for context in [
        ProofContext::new(GameId([8; 32]), 12, "shuffle/0/0"),
        ProofContext::new(GameId([7; 32]), 13, "shuffle/0/0"),
        ProofContext::new(GameId([7; 32]), 12, "shuffle/0/1"),
    ] {
        let statement = Statement::new(&context, setup.key.commitment(), &setup.inputs, &outputs);
        assert_eq!(verify(&statement, &honest, &mut rng(3)), Err(ProofError::Shuffle), "changed {context:?}");
    }
    let other_suite = Suite::ALL.into_iter().find(|suite| *suite != G::SUITE).unwrap();
    let mut statement = Statement::new(&setup.context, setup.key.commitment(), &setup.inputs, &outputs);
    statement.suite = other_suite;
    let foreign = prove(&statement, &k, &reversed(n), &mut rng(4));
    assert_eq!(verify(&statement, &foreign, &mut rng(5)), Ok(()), "a proof for the other suite's transcript");
    assert_eq!(setup.verify(&outputs, &foreign), Err(ProofError::Shuffle), "changed suite");
    assert_eq!(setup.verify(&outputs, &honest), Ok(()), "the setup is back to the honest statement");
}

/// Outputs that are not a permutation of the inputs, locked with the committed key, fail
/// however the prover goes about it.
fn false_shuffles_fail<G: Group>(n: usize) {
    let mut setup = Setup::<G>::new(n);
    let k = setup.key.lock_scalar().clone();
    let permutation = reversed(n);

    // A duplicated card: one output repeats another (the prover's witness is the permutation).
    let mut duplicated = setup.outputs(&permutation, &k);
    duplicated[1] = duplicated[0].clone();
    let proof = setup.prove_claim(&duplicated, &k, &permutation);
    assert_eq!(setup.verify(&duplicated, &proof), Err(ProofError::Shuffle), "duplicated card");

    // One card locked with another exponent.
    let other_k = G::random_scalar(&mut rng(250));
    assert_ne!(other_k, k);
    let mut other_exponent = setup.outputs(&permutation, &k);
    other_exponent[n - 1] = G::mul(&setup.inputs[usize::from(permutation[n - 1])], &other_k);
    let proof = setup.prove_claim(&other_exponent, &k, &permutation);
    assert_eq!(setup.verify(&other_exponent, &proof), Err(ProofError::Shuffle), "another exponent");

    // Every card with another exponent, proven with that exponent: the key commitment is wrong.
    let wrong_key = setup.outputs(&permutation, &other_k);
    let proof = setup.prove_claim(&wrong_key, &other_k, &permutation);
    assert_eq!(setup.verify(&wrong_key, &proof), Err(ProofError::Shuffle), "wrong key commitment");

    // A map that is not a permutation, with the outputs it gives and its matrix committed.
    let mut not_a_permutation = permutation.clone();
    not_a_permutation[1] = not_a_permutation[0];
    let outputs = setup.outputs(&not_a_permutation, &k);
    let proof = setup.prove_claim(&outputs, &k, &not_a_permutation);
    assert_eq!(setup.verify(&outputs, &proof), Err(ProofError::Shuffle), "not a permutation");

    // A substituted card that was never in the deck.
    let mut substituted = setup.outputs(&permutation, &k);
    substituted[0] = G::mul(&G::hash_to_element(b"a card that was never in the deck"), &k);
    let proof = setup.prove_claim(&substituted, &k, &permutation);
    assert_eq!(setup.verify(&substituted, &proof), Err(ProofError::Shuffle), "substituted card");
}

/// A zero key makes every output the identity; its commitment is the identity and refused.
fn identity_key_fails<G: Group>() {
    let mut setup = Setup::<G>::new(3);
    let zero = G::scalar_from_u128(0);
    let identity_key = KeyCommitment::<G>::from_element(G::mul_generator(&zero));
    let outputs = setup.outputs(&reversed(3), &zero);
    let statement = Statement::new(&setup.context, &identity_key, &setup.inputs, &outputs);
    let proof = prove(&statement, &zero, &reversed(3), &mut setup.rng);
    assert_eq!(verify(&statement, &proof, &mut rng(8)), Err(ProofError::Shuffle));
}

/// A received proof holding the identity, or a non-canonical element, does not decode.
fn identity_in_a_received_proof_fails<G: Group>() {
    let mut setup = Setup::<G>::new(2);
    let (shuffle, _) = setup.key.lock_and_shuffle(&setup.inputs, &setup.context, &mut setup.rng);
    let json = serde_json::to_string(&shuffle).unwrap();
    let decoded = serde_json::from_str::<ProvenShuffle<G>>(&json).unwrap();
    assert_eq!(serde_json::to_string(&decoded).unwrap(), json);
    let mut identity = vec![0u8; G::ELEMENT_LEN];
    if G::SUITE == Suite::Modp2048 {
        identity[G::ELEMENT_LEN - 1] = 1;
    }
    let elements =
        [&shuffle.cards[0], &shuffle.proof.permutation[1], &shuffle.proof.chain[0], &shuffle.proof.commitments[3]]
            .into_iter()
            .chain(&shuffle.proof.chain_commitments);
    for element in elements {
        let bad = json.replacen(&hex::encode(G::encode_element(element)), &hex::encode(&identity), 1);
        assert_ne!(bad, json);
        assert!(serde_json::from_str::<ProvenShuffle<G>>(&bad).is_err());
    }
}

macro_rules! suite_tests {
    ($suite:ident, $group:ty, [$($n:literal),*]) => {
        mod $suite {
            use super::*;

            #[test]
            fn honest_proofs_verify() {
                for n in [$($n),*] {
                    completeness::<$group>(n);
                }
            }

            #[test]
            fn every_field_is_checked() {
                super::every_field_is_checked::<$group>();
            }

            #[test]
            fn false_shuffles_fail() {
                super::false_shuffles_fail::<$group>(3);
            }

            #[test]
            fn identity_key_fails() {
                super::identity_key_fails::<$group>();
            }

            #[test]
            fn identity_in_a_received_proof_fails() {
                super::identity_in_a_received_proof_fails::<$group>();
            }
        }
    };
}

// modp2048 arithmetic is slow in a debug build: its large sizes are measured by the benches.
suite_tests!(ristretto255, Ristretto255, [1, 2, 3, 60, 1000]);
suite_tests!(modp2048, Modp2048, [1, 2, 3]);

#[test]
fn false_shuffles_of_sixty_cards_fail() {
    false_shuffles_fail::<Ristretto255>(60);
}

#[test]
fn an_empty_shuffle_is_a_proof_about_nothing() {
    completeness::<Ristretto255>(0);
}

#[test]
fn generators_are_distinct_and_stable() {
    let first = &generators::<Ristretto255>(5).elements;
    let more = &generators::<Ristretto255>(70).elements;
    assert!(first.len() >= 5 && more.len() >= 70);
    assert_eq!(first[..5], more[..5]);
    let distinct: std::collections::HashSet<_> = more[..70].iter().collect();
    assert_eq!(distinct.len(), 70);
    assert!(!more.contains(&Ristretto255::generator()));
    assert_ne!(generators::<Modp2048>(2).elements[0], Modp2048::generator());
}

/// A proof is a function of the key, the inputs and the draws: its bytes are pinned, so that a
/// change to how the prover handles its secrets (the scans of `oblivious`) cannot change them
/// unnoticed. The digest is of the proof the plain-indexing prover made from these draws.
#[test]
fn the_same_draws_give_the_same_proof_bytes() {
    use sha2::Digest;
    let mut setup = Setup::<Ristretto255>::new(9);
    let (shuffle, _) = setup.key.lock_and_shuffle(&setup.inputs, &setup.context, &mut setup.rng);
    let digest = sha2::Sha256::digest(postcard::to_stdvec(&shuffle).unwrap());
    assert_eq!(hex::encode(digest), "47a2ee49489bd541c9f67fe28434b1b54c9dc780749d04e09eb9bd5bad184e45");
}
