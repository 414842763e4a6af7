//! The cryptographic core against its promises: locks commute, honest proofs verify, every
//! tampered proof fails, every bad element is refused, and shuffles are uniform.

use fairdeck_shared::crypto::{
    CardInstance, DecodeError, DleqProof, Group, KeyCommitment, LockKey, Modp2048, ProofContext, ProofError,
    Ristretto255, deck_base,
};
use fairdeck_shared::{GameId, Seat};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

fn rng(seed: u8) -> ChaCha20Rng {
    ChaCha20Rng::from_seed([seed; 32])
}

const GAME: GameId = GameId([7; 32]);

fn context(purpose: &str) -> ProofContext {
    ProofContext::new(GAME, 12, purpose)
}

fn cards<G: Group>(n: usize, owner: Seat) -> Vec<G::Element> {
    (0..n)
        .map(|i| {
            let card = CardInstance { owner, nonce: [i as u8; 16], name: format!("Card {i}"), back: 0 };
            card.point::<G>(&GAME)
        })
        .collect()
}

/// Replaces a hex field of a serialized proof with the encoding of `value`.
fn with_field<T: serde::Serialize + serde::de::DeserializeOwned, V: serde::Serialize>(
    proof: &T,
    field: &str,
    value: V,
) -> T {
    let mut json = serde_json::to_value(proof).unwrap();
    json[field] = serde_json::to_value(value).unwrap();
    serde_json::from_value(json).unwrap()
}

fn lock_and_strip_commute<G: Group>() {
    let mut rng = rng(1);
    let (a, b) = (LockKey::<G>::generate(&mut rng), LockKey::<G>::generate(&mut rng));
    let plain = cards::<G>(4, Seat::HOST);
    assert_eq!(b.lock(&a.lock(&plain)), a.lock(&b.lock(&plain)));
    // Either player may strip first.
    let both = b.lock(&a.lock(&plain));
    assert_eq!(b.strip(&a.strip(&both)), plain);
    assert_eq!(a.strip(&b.strip(&both)), plain);
    assert_ne!(a.lock(&plain), plain);
    // Locked and stripped at once: the same cards as a lock with its proof, then a strip.
    let ctx = context("deck/host");
    let (locked, proof, stripped) = a.lock_with_proof_and_strip(&plain, &b, &ctx, &mut rng);
    assert_eq!(locked.cards, a.lock(&plain));
    assert_eq!(stripped, b.strip(&locked.cards));
    assert!(a.commitment().verify_lock(&plain, locked.cards.clone(), &proof, &ctx).is_ok());
}

fn dleq_proofs<G: Group>() {
    let mut rng = rng(2);
    let key = LockKey::<G>::generate(&mut rng);
    let other = LockKey::<G>::generate(&mut rng);
    let plain = cards::<G>(3, Seat::HOST);
    let ctx = context("library/host/lock");
    let (locked, proof) = key.lock_with_proof(&plain, &ctx, &mut rng);
    let locked = locked.into_inner().cards;
    let verified = key.commitment().verify_lock(&plain, locked.clone(), &proof, &ctx).unwrap();
    assert_eq!(verified.cards, locked);

    let refuse = |cards: &[G::Element],
                  locked: Vec<G::Element>,
                  proof: &DleqProof<G>,
                  ctx: &ProofContext,
                  key: &KeyCommitment<G>| {
        assert_eq!(key.verify_lock(cards, locked, proof, ctx).unwrap_err(), ProofError::Dleq);
    };
    let commitment = key.commitment();
    // A changed element.
    let mut changed = locked.clone();
    changed[1] = G::mul(&changed[1], &G::scalar_from_u128(2));
    refuse(&plain, changed, &proof, &ctx, commitment);
    // A changed context: each field on its own.
    for other_ctx in [
        ProofContext::new(GameId([8; 32]), ctx.sequence, ctx.purpose.clone()),
        ProofContext::new(GAME, ctx.sequence + 1, ctx.purpose.clone()),
        ProofContext::new(GAME, ctx.sequence, "library/guest/lock"),
    ] {
        refuse(&plain, locked.clone(), &proof, &other_ctx, commitment);
    }
    // Swapped cards.
    let mut swapped = locked.clone();
    swapped.swap(0, 2);
    refuse(&plain, swapped, &proof, &ctx, commitment);
    // A duplicated card.
    let mut duplicated = locked.clone();
    duplicated[2] = duplicated[0].clone();
    refuse(&plain, duplicated, &proof, &ctx, commitment);
    // The wrong key.
    refuse(&plain, locked.clone(), &proof, &ctx, other.commitment());
    // A lock made with another key, proven against this one.
    let (foreign, _) = other.lock_with_proof(&plain, &ctx, &mut rng);
    let foreign = foreign.into_inner().cards;
    refuse(&plain, foreign, &proof, &ctx, commitment);
    // Each proof field changed.
    for field in ["challenge", "response"] {
        let tampered = with_field(&proof, field, G::scalar_from_u128(12345));
        refuse(&plain, locked.clone(), &tampered, &ctx, commitment);
    }
    // A strip proof is not a lock proof, even over the same pairs.
    let (stripped, strip_proof) = key.strip_with_proof(&locked, &ctx, &mut rng);
    let stripped = stripped.into_inner().cards;
    assert_eq!(stripped, plain);
    refuse(&plain, locked.clone(), &strip_proof, &ctx, commitment);
    // A wrong length is an error, never a panic.
    assert_eq!(
        commitment.verify_lock(&plain, locked[..2].to_vec(), &proof, &ctx).unwrap_err(),
        ProofError::LengthMismatch { expected: 3, actual: 2 }
    );
}

fn strip_proofs<G: Group>() {
    let mut rng = rng(3);
    let (owner, opponent) = (LockKey::<G>::generate(&mut rng), LockKey::<G>::generate(&mut rng));
    let plain = cards::<G>(2, Seat::GUEST);
    let both = opponent.lock(&owner.lock(&plain));
    let ctx = context("draw");
    let (stripped, proof) = opponent.strip_with_proof(&both, &ctx, &mut rng);
    let stripped = stripped.into_inner().cards;
    let verified = opponent.commitment().verify_strip(&both, stripped.clone(), &proof, &ctx).unwrap();
    assert_eq!(owner.strip(&verified.cards), plain);
    // A strip with the wrong key, with a proof made for it, does not pass as this key's.
    let (wrong, wrong_proof) = owner.strip_with_proof(&both, &ctx, &mut rng);
    let wrong = wrong.into_inner().cards;
    assert_eq!(opponent.commitment().verify_strip(&both, wrong, &wrong_proof, &ctx).unwrap_err(), ProofError::Dleq);
    // Garbage in place of a stripped card.
    let mut garbage = stripped.clone();
    garbage[0] = G::generator();
    assert_eq!(opponent.commitment().verify_strip(&both, garbage, &proof, &ctx).unwrap_err(), ProofError::Dleq);
    // A replay into another message.
    let replay = context("draw").clone();
    let replay = ProofContext::new(replay.game_id, replay.sequence + 2, replay.purpose);
    assert_eq!(opponent.commitment().verify_strip(&both, stripped, &proof, &replay).unwrap_err(), ProofError::Dleq);
}

/// The shuffle proof through the public API: the output is the input permuted and locked, and
/// it verifies for the key, the inputs and the context it was made for only.
/// (`crypto::shuffle`'s own tests change every field and try false witnesses.)
fn shuffle_proofs<G: Group>(n: usize) {
    let mut rng = rng(5);
    let key = LockKey::<G>::generate(&mut rng);
    let plain = cards::<G>(n, Seat::HOST);
    let ctx = context("library/host/shuffle");
    let (shuffle, made) = key.lock_and_shuffle(&plain, &ctx, &mut rng);
    let shuffled = key.commitment().verify_shuffle(&plain, shuffle.clone(), &ctx, &mut rng).unwrap();
    assert_eq!(made.cards, shuffled.cards, "the shuffler applies what it sends");
    let unlocked = key.strip(&shuffled.cards);
    assert!(plain.iter().all(|card| unlocked.contains(card)));
    assert_eq!(unlocked.len(), n);
    let refused = |result: Result<_, ProofError>| assert_eq!(result.map(drop).unwrap_err(), ProofError::Shuffle);
    let other_ctx = ProofContext::new(GAME, 13, ctx.purpose.clone());
    refused(key.commitment().verify_shuffle(&plain, shuffle.clone(), &other_ctx, &mut rng));
    let other = LockKey::<G>::generate(&mut rng);
    refused(other.commitment().verify_shuffle(&plain, shuffle.clone(), &ctx, &mut rng));
    let mut swapped = shuffle.clone();
    swapped.cards.swap(0, 1);
    refused(key.commitment().verify_shuffle(&plain, swapped, &ctx, &mut rng));
    let mut duplicated = shuffle.clone();
    duplicated.cards[1] = duplicated.cards[0].clone();
    refused(key.commitment().verify_shuffle(&plain, duplicated, &ctx, &mut rng));
    let mut changed_inputs = plain.clone();
    changed_inputs[0] = G::generator();
    refused(key.commitment().verify_shuffle(&changed_inputs, shuffle.clone(), &ctx, &mut rng));
    let mut short = shuffle;
    short.cards.pop();
    assert_eq!(
        key.commitment().verify_shuffle(&plain, short, &ctx, &mut rng).map(drop).unwrap_err(),
        ProofError::LengthMismatch { expected: n, actual: n - 1 }
    );
}

fn relock_and_combine<G: Group>() {
    let mut rng = rng(10);
    let (old, new, extra) =
        (LockKey::<G>::generate(&mut rng), LockKey::<G>::generate(&mut rng), LockKey::<G>::generate(&mut rng));
    let plain = cards::<G>(3, Seat::HOST);
    let ctx = context("relock");
    // From no layer: a lock, checked against the generator.
    let (locked, proof) = new.relock_with_proof(None, &plain, &ctx, &mut rng);
    let locked = locked.into_inner().cards;
    assert_eq!(locked, new.lock(&plain));
    let verified = new.commitment().verify_relock(None, &plain, locked.clone(), &proof, &ctx).unwrap();
    assert_eq!(verified.into_inner().cards, locked);
    // From an old layer to a new one, never stripped in between.
    let old_forms = old.lock(&plain);
    let (relocked, proof) = new.relock_with_proof(Some(&old), &old_forms, &ctx, &mut rng);
    let relocked = relocked.into_inner().cards;
    assert_eq!(new.strip(&relocked), plain);
    let verified =
        new.commitment().verify_relock(Some(old.commitment()), &old_forms, relocked.clone(), &proof, &ctx).unwrap();
    assert_eq!(verified.into_inner().cards, relocked);
    assert_eq!(
        new.commitment()
            .verify_relock(Some(extra.commitment()), &old_forms, relocked.clone(), &proof, &ctx)
            .unwrap_err(),
        ProofError::Dleq
    );
    assert_eq!(new.commitment().verify_relock(None, &old_forms, relocked, &proof, &ctx).unwrap_err(), ProofError::Dleq);
    // A combined key strips both layers at once, and its commitment is proven.
    let (combined, proof) = old.combine_with_proof(&extra, &ctx, &mut rng);
    assert_eq!(combined.strip(&extra.lock(&old.lock(&plain))), plain);
    let verified =
        old.commitment().verify_combined(extra.commitment(), combined.commitment().clone(), &proof, &ctx).unwrap();
    assert_eq!(verified.into_inner().element(), combined.commitment().element());
    assert!(old.commitment().verify_combined(extra.commitment(), new.commitment().clone(), &proof, &ctx).is_err());
}

fn catalogue_opens_only_with_the_point<G: Group>() {
    use fairdeck_shared::crypto::{Catalogue, CatalogueEntry, CatalogueError};
    let instances: Vec<CardInstance> = (0..4u8)
        .map(|i| CardInstance {
            owner: Seat::GUEST,
            nonce: [i; 16],
            name: "x".repeat(1 + 40 * usize::from(i)),
            back: 0,
        })
        .collect();
    // Identity points as a deck makes them: one secret multiple of the public bases.
    let key = LockKey::<G>::generate(&mut rng(4));
    let points = key.lock(&(0..4).map(|i| deck_base::<G>(&GAME, Seat::GUEST, i)).collect::<Vec<_>>());
    let cards: Vec<(G::Element, CardInstance)> = points.iter().cloned().zip(instances.iter().cloned()).collect();
    let catalogue = Catalogue::seal::<G>(&cards).unwrap();
    let entries = catalogue.entries();
    // Same size whatever the name's length.
    assert!(entries.windows(2).all(|pair| pair[0].sealed.len() == pair[1].sealed.len()));
    let received = Catalogue::from_entries(
        serde_json::from_str::<Vec<CatalogueEntry>>(&serde_json::to_string(&entries).unwrap()).unwrap(),
    )
    .unwrap();
    for (point, instance) in &cards {
        assert_eq!(received.open::<G>(point).unwrap(), *instance);
    }
    // The public base itself (what a player who strips every lock but the owner's secret
    // multiple would hold) opens nothing.
    let base = deck_base::<G>(&GAME, Seat::GUEST, 0);
    assert_eq!(received.open::<G>(&base).unwrap_err(), CatalogueError::Missing);
    // Two cards under one point cannot both be sealed.
    let twice = [cards[0].clone(), (cards[0].0.clone(), instances[1].clone())];
    assert_eq!(Catalogue::seal::<G>(&twice).unwrap_err(), CatalogueError::DuplicateTag);
    // An entry moved under another card's tag does not open.
    let mut swapped = entries.clone();
    let sealed0 = swapped[0].sealed.clone();
    swapped[0].sealed = swapped[1].sealed.clone();
    swapped[1].sealed = sealed0;
    let swapped = Catalogue::from_entries(swapped).unwrap();
    let failures: Vec<CatalogueError> = points.iter().filter_map(|point| swapped.open::<G>(point).err()).collect();
    assert_eq!(failures, [CatalogueError::Sealed, CatalogueError::Sealed]);
    let mut duplicated = entries.clone();
    duplicated[1].tag = duplicated[0].tag;
    assert_eq!(Catalogue::from_entries(duplicated).unwrap_err(), CatalogueError::DuplicateTag);
    let mut short = entries;
    short[0].sealed.pop();
    assert_eq!(Catalogue::from_entries(short).unwrap_err(), CatalogueError::EntrySize);
}

macro_rules! suite_tests {
    ($suite:ident, $group:ty, $shuffle_cards:expr) => {
        mod $suite {
            use super::*;

            #[test]
            fn lock_and_strip_commute() {
                super::lock_and_strip_commute::<$group>();
            }

            #[test]
            fn dleq_proofs_verify_and_tampering_fails() {
                super::dleq_proofs::<$group>();
            }

            #[test]
            fn strip_proofs_verify_and_tampering_fails() {
                super::strip_proofs::<$group>();
            }

            #[test]
            fn shuffle_proofs_verify_and_tampering_fails() {
                super::shuffle_proofs::<$group>($shuffle_cards);
            }

            #[test]
            fn relock_and_combine() {
                super::relock_and_combine::<$group>();
            }

            #[test]
            fn catalogue_opens_only_with_the_point() {
                super::catalogue_opens_only_with_the_point::<$group>();
            }

            #[test]
            fn deck_bases_differ_by_game_owner_and_index() {
                let base = deck_base::<$group>(&GAME, Seat::HOST, 3);
                assert_eq!(base, deck_base::<$group>(&GAME, Seat::HOST, 3));
                for other in [
                    deck_base::<$group>(&GameId([9; 32]), Seat::HOST, 3),
                    deck_base::<$group>(&GAME, Seat::GUEST, 3),
                    deck_base::<$group>(&GAME, Seat::HOST, 4),
                ] {
                    assert_ne!(base, other);
                }
                assert_eq!(<$group>::decode_element(&<$group>::encode_element(&base)).unwrap(), base);
            }

            #[test]
            fn token_points_are_distinct_and_valid() {
                let base = CardInstance { owner: Seat::HOST, nonce: [1; 16], name: "Island".into(), back: 0 };
                let variants = [
                    CardInstance { owner: Seat::GUEST, ..base.clone() },
                    CardInstance { nonce: [2; 16], ..base.clone() },
                    CardInstance { name: "Islan".into(), ..base.clone() },
                    CardInstance { back: 1, ..base.clone() },
                ];
                let point = base.point::<$group>(&GAME);
                assert_eq!(point, base.point::<$group>(&GAME));
                assert_ne!(point, base.point::<$group>(&GameId([9; 32])));
                for variant in &variants {
                    assert_ne!(point, variant.point::<$group>(&GAME), "{variant:?}");
                }
                let encoded = <$group>::encode_element(&point);
                assert_eq!(encoded.len(), <$group>::ELEMENT_LEN);
                assert_eq!(<$group>::decode_element(&encoded).unwrap(), point);
            }

            #[test]
            fn proofs_round_trip_through_json() {
                let mut rng = rng(9);
                let key = LockKey::<$group>::generate(&mut rng);
                let plain = cards::<$group>(2, Seat::HOST);
                let ctx = context("json");
                let (locked, proof) = key.lock_with_proof(&plain, &ctx, &mut rng);
                let locked = locked.into_inner().cards;
                let json = serde_json::to_string(&(key.commitment(), &locked, &proof)).unwrap();
                let (commitment, locked_back, proof_back): (KeyCommitment<$group>, Vec<_>, DleqProof<$group>) =
                    serde_json::from_str(&json).unwrap();
                let verified = commitment.verify_lock(&plain, locked_back, &proof_back, &ctx).unwrap();
                assert_eq!(verified.into_inner().cards, locked);
                // A bad element inside a message fails to decode, with a reason.
                let zeros = hex::encode(vec![0u8; <$group>::ELEMENT_LEN]);
                let bad = json.replacen(&hex::encode(<$group>::encode_element(&locked[0])), &zeros, 1);
                let err = serde_json::from_str::<(
                    KeyCommitment<$group>,
                    Vec<<$group as Group>::Element>,
                    DleqProof<$group>,
                )>(&bad)
                .unwrap_err();
                assert!(!err.to_string().is_empty());
            }
        }
    };
}

suite_tests!(ristretto255, Ristretto255, 6);
suite_tests!(modp2048, Modp2048, 3);

mod validation {
    use super::*;
    use num_bigint::BigUint;

    fn ristretto(hex_str: &str) -> Result<<Ristretto255 as Group>::Element, DecodeError> {
        Ristretto255::decode_element(&hex::decode(hex_str).unwrap())
    }

    #[test]
    fn ristretto_matches_rfc9496_multiples_of_the_generator() {
        // RFC 9496 Appendix A.1 (1·B to 5·B; 0·B, the identity, is refused below).
        let multiples = [
            "e2f2ae0a6abc4e71a884a961c500515f58e30b6aa582dd8db6a65945e08d2d76",
            "6a493210f7499cd17fecb510ae0cea23a110e8d5b901f8acadd3095c73a3b919",
            "94741f5d5d52755ece4f23f044ee27d5d1ea1e2bd196b462166b16152a9d0259",
            "da80862773358b466ffadfe0b3293ab3d9fd53c5ea6c955358f568322daf6a57",
            "e882b131016b52c1d3337080187cf768423efccbb517bb495ab812c4160ff44e",
        ];
        for (i, expected) in multiples.iter().enumerate() {
            let multiple = Ristretto255::mul_generator(&Ristretto255::scalar_from_u128(i as u128 + 1));
            assert_eq!(hex::encode(Ristretto255::encode_element(&multiple)), *expected);
            assert_eq!(ristretto(expected).unwrap(), multiple);
        }
    }

    #[test]
    fn ristretto_refuses_bad_encodings() {
        // The identity: the one small-order element ristretto255 can encode.
        assert_eq!(ristretto(&"00".repeat(32)).unwrap_err(), DecodeError::Identity);
        // RFC 9496 Appendix A.2: non-canonical field encodings, negative field elements,
        // and s = −1 (an Edwards point of order 2, y = 0).
        for bad in [
            "00ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
            "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
            "f3ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
            "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
            "0100000000000000000000000000000000000000000000000000000000000000",
            "01ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
            "ed57ffd8c914fb201471d1c3d245ce3c746fcbe63a3679d51b6a516c77d7f060",
            "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
        ] {
            assert_eq!(ristretto(bad).unwrap_err(), DecodeError::NonCanonical, "{bad}");
        }
        assert_eq!(
            Ristretto255::decode_element(&[1u8; 31]).unwrap_err(),
            DecodeError::Length { expected: 32, actual: 31 }
        );
        // Scalars must be reduced: the group order ℓ itself and 2²⁵⁶ − 1 are refused.
        let order = hex::decode("edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010").unwrap();
        assert_eq!(Ristretto255::decode_scalar(&order).unwrap_err(), DecodeError::ScalarOutOfRange);
        assert_eq!(Ristretto255::decode_scalar(&[0xff; 32]).unwrap_err(), DecodeError::ScalarOutOfRange);
    }

    fn p() -> BigUint {
        BigUint::parse_bytes(
            concat!(
                "FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E3404DD",
                "EF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED",
                "EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE45B3DC2007CB8A163BF0598DA48361C55D39A69163FA8FD24CF5F",
                "83655D23DCA3AD961C62F356208552BB9ED529077096966D670C354E4ABC9804F1746C08CA18217C32905E462E36CE3B",
                "E39E772C180E86039B2783A2EC07A28FB5C55DF06F4C52C9DE2BCBF6955817183995497CEA956AE515D2261898FA0510",
                "15728E5A8AACAA68FFFFFFFFFFFFFFFF"
            )
            .as_bytes(),
            16,
        )
        .unwrap()
    }

    fn fixed(value: &BigUint) -> Vec<u8> {
        let digits = value.to_bytes_be();
        let mut out = vec![0u8; 256usize.saturating_sub(digits.len())];
        out.extend_from_slice(&digits);
        out
    }

    /// Miller–Rabin with fixed bases: a typo in the prime would make it composite.
    fn probably_prime(n: &BigUint) -> bool {
        let one = BigUint::from(1u32);
        let n_minus_one = n - &one;
        let twos = n_minus_one.trailing_zeros().unwrap();
        let d = &n_minus_one >> twos;
        [2u32, 3, 5, 7, 11, 13, 17, 19, 23, 29].iter().all(|&base| {
            let mut x = BigUint::from(base).modpow(&d, n);
            if x == one || x == n_minus_one {
                return true;
            }
            (1..twos).any(|_| {
                x = x.modpow(&BigUint::from(2u32), n);
                x == n_minus_one
            })
        })
    }

    #[test]
    fn modp_group_is_a_safe_prime_with_a_generator_of_order_q() {
        let p = p();
        let q = (&p - 1u32) >> 1;
        assert!(probably_prime(&p));
        assert!(probably_prime(&q));
        let g = BigUint::from_bytes_be(&Modp2048::encode_element(&Modp2048::generator()));
        assert_eq!(g.modpow(&q, &p), BigUint::from(1u32));
    }

    #[test]
    fn modp_refuses_bad_values() {
        let p = p();
        let decode = |value: &BigUint| Modp2048::decode_element(&fixed(value));
        assert_eq!(decode(&BigUint::from(0u32)).unwrap_err(), DecodeError::OutOfRange);
        assert_eq!(decode(&BigUint::from(1u32)).unwrap_err(), DecodeError::OutOfRange);
        assert_eq!(decode(&(&p - 1u32)).unwrap_err(), DecodeError::OutOfRange);
        assert_eq!(decode(&p).unwrap_err(), DecodeError::OutOfRange);
        assert_eq!(decode(&(&p + 1u32)).unwrap_err(), DecodeError::OutOfRange);
        assert_eq!(Modp2048::decode_element(&[0xff; 256]).unwrap_err(), DecodeError::OutOfRange);
        // p − 2 ≡ −2 is a non-residue: (−1|p) = −1 as p ≡ 3 (mod 4), (2|p) = 1 as p ≡ 7 (mod 8).
        assert_eq!(decode(&(&p - 2u32)).unwrap_err(), DecodeError::NotInSubgroup);
        // A residue times a non-residue is a non-residue.
        let residue = BigUint::from_bytes_be(&Modp2048::encode_element(&Modp2048::hash_to_element(b"x")));
        assert_eq!(decode(&((&residue * (&p - 2u32)) % &p)).unwrap_err(), DecodeError::NotInSubgroup);
        assert!(decode(&residue).is_ok());
        assert_eq!(
            Modp2048::decode_element(&[2; 255]).unwrap_err(),
            DecodeError::Length { expected: 256, actual: 255 }
        );
        let q = (&p - 1u32) >> 1;
        assert_eq!(Modp2048::decode_scalar(&fixed(&q)).unwrap_err(), DecodeError::ScalarOutOfRange);
        assert!(Modp2048::decode_scalar(&fixed(&(&q - 1u32))).is_ok());
    }
}

/// Names with quotes, backslashes and control characters: every name a deck may hold seals and opens as it is,
/// and one too long once escaped is refused where the deck enters (an entry used to be cut at 320 bytes of JSON:
/// it sealed, never opened, and the honest opponent then raised `NotInDeck` against its honest owner).
#[test]
fn every_name_a_deck_accepts_seals_and_opens_whole() {
    use fairdeck_shared::crypto::{Catalogue, name_fits};
    use fairdeck_shared::engine::{DeckCard, DeckError, DeckList, Engine, EngineConfig};
    let names = [
        "Ach! Hans, Run!".to_string(),
        "\"Ach! Hans, Run!\"".to_string(),
        "back\\slash \u{1} \u{7f} tab\t".to_string(),
        "é".repeat(100),
        "\"".repeat(90),
        "\u{1}".repeat(30),
    ];
    let key = LockKey::<Ristretto255>::generate(&mut rng(5));
    let points =
        key.lock(&(0..names.len() as u32).map(|i| deck_base::<Ristretto255>(&GAME, Seat::HOST, i)).collect::<Vec<_>>());
    let cards: Vec<_> = points
        .iter()
        .zip(&names)
        .map(|(point, name)| {
            assert!(name_fits(name), "{name:?} fits");
            let instance = CardInstance { owner: Seat::GUEST, nonce: [0xff; 16], name: name.clone(), back: u32::MAX };
            (*point, instance)
        })
        .collect();
    let catalogue = Catalogue::seal::<Ristretto255>(&cards).unwrap();
    for (point, instance) in &cards {
        assert_eq!(catalogue.open::<Ristretto255>(point).unwrap(), *instance);
    }
    // Too long once escaped, though short in bytes: refused with the name, never sealed half.
    for name in ["\"".repeat(200), "\u{1}".repeat(60), "\\".repeat(150)] {
        assert!(!name_fits(&name));
        let deck = DeckList { library: vec![DeckCard { name: name.clone(), back: 0 }], ..DeckList::default() };
        let config = EngineConfig { name: "host".into(), software: "test".into() };
        match Engine::<Ristretto255>::new(Seat::HOST, config, deck, [1; 32]) {
            Err(DeckError::BadName(refused)) => assert_eq!(refused, name),
            other => panic!("expected BadName, got {:?}", other.map(|_| "an engine")),
        }
        let instance = CardInstance { owner: Seat::HOST, nonce: [0; 16], name, back: 0 };
        assert!(Catalogue::seal::<Ristretto255>(&[(points[0], instance)]).is_err());
    }
}

/// Past the `u16` indices of a shuffle proof, a permutation is cut short instead of
/// panicking (libraries are bounded far below, where decks and tokens enter).
#[test]
fn a_permutation_of_more_items_than_its_indices_count_does_not_panic() {
    let mut rng = ChaCha20Rng::from_seed([4; 32]);
    let permutation = fairdeck_shared::crypto::random_permutation(&mut rng, 70_000);
    assert_eq!(permutation.len(), fairdeck_shared::crypto::MAX_PERMUTATION_LEN);
    let mut sorted = permutation.clone();
    sorted.sort_unstable();
    assert!(sorted.iter().copied().eq(0..=u16::MAX));
}
