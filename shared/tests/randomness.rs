//! Seed 000's generator against the published vectors and its errata, commit–reveal, and
//! the uniformity of shuffles.

use std::collections::HashMap;
use std::num::NonZeroU64;

use fairdeck_shared::crypto::{Coin, Dice, DiceError, ProofError, SharedRandom, commit, random_permutation};
use fairdeck_shared::hash_rng::{HashRng, basic_shuffle, deck_shuffle, shuffled_indices};
use fairdeck_shared::{GameId, Seat};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use serde::Deserialize;

const GAME: GameId = GameId([3; 32]);

#[derive(Deserialize)]
struct Vectors {
    below: Vec<BelowCase>,
    basic_shuffle: Vec<ShuffleCase>,
    deck_shuffle: Vec<DeckCase>,
}

#[derive(Deserialize)]
struct BelowCase {
    shared_seed: String,
    state: String,
    n: u64,
    draws: Vec<u64>,
}

#[derive(Deserialize)]
struct ShuffleCase {
    shared_seed: String,
    state: String,
    count: usize,
    shuffled: Vec<usize>,
}

#[derive(Deserialize)]
struct DeckCase {
    shared_seed: String,
    shared_state: String,
    local_state: String,
    backs: Vec<u32>,
    order: Vec<usize>,
}

fn vectors() -> Vectors {
    serde_json::from_str(include_str!("vectors/hash_rng.json")).unwrap()
}

/// A state as seed 000 makes them: a hash output.
fn state(index: u64) -> [u8; 32] {
    use sha2::Digest;
    sha2::Sha256::digest(index.to_be_bytes()).into()
}

fn unhex(s: &str) -> Vec<u8> {
    hex::decode(s).unwrap()
}

#[test]
fn hash_rng_matches_the_published_vectors() {
    let vectors = vectors();
    assert!(!vectors.below.is_empty() && !vectors.basic_shuffle.is_empty() && !vectors.deck_shuffle.is_empty());
    for case in &vectors.below {
        let mut rng = HashRng::new(&unhex(&case.shared_seed), &unhex(&case.state));
        let n = NonZeroU64::new(case.n).unwrap();
        let draws: Vec<u64> = (0..case.draws.len()).map(|_| rng.below(n)).collect();
        assert_eq!(draws, case.draws, "below({})", case.n);
    }
    for case in &vectors.basic_shuffle {
        let mut rng = HashRng::new(&unhex(&case.shared_seed), &unhex(&case.state));
        assert_eq!(shuffled_indices(case.count, &mut rng), case.shuffled, "count {}", case.count);
    }
    for case in &vectors.deck_shuffle {
        let shared = unhex(&case.shared_seed);
        let mut shared_rng = HashRng::new(&shared, &unhex(&case.shared_state));
        let mut local_rng = HashRng::new(&shared, &unhex(&case.local_state));
        assert_eq!(deck_shuffle(&case.backs, &mut shared_rng, &mut local_rng), case.order);
    }
}

#[test]
fn deck_shuffle_keeps_backs_where_the_shared_state_put_them() {
    let backs = [0, 0, 1, 1, 1, 2];
    let shared = [5u8; 64];
    let order_a = deck_shuffle(&backs, &mut HashRng::new(&shared, &[1; 32]), &mut HashRng::new(&shared, &[2; 32]));
    let order_b = deck_shuffle(&backs, &mut HashRng::new(&shared, &[1; 32]), &mut HashRng::new(&shared, &[9; 32]));
    // Same shared state: the same back at every position, whatever each player's local state.
    let backs_of = |order: &[usize]| order.iter().map(|&card| backs[card]).collect::<Vec<_>>();
    assert_eq!(backs_of(&order_a), backs_of(&order_b));
    let mut sorted = order_a.clone();
    sorted.sort();
    assert_eq!(sorted, (0..backs.len()).collect::<Vec<_>>());
}

#[test]
fn erratum_1_a_draw_equal_to_the_limit_is_rejected() {
    // n = 255 takes one byte, and the largest multiple of 255 that is ≤ 256 is 255. The seed's
    // text accepts 255 (and returns 0); the fix rejects it and draws again.
    let mut rng = HashRng::new(b"seed", &[255, 7]);
    assert_eq!(rng.below(NonZeroU64::new(255).unwrap()), 7);
}

#[test]
fn erratum_2_byte_0_of_a_new_block_is_returned_once() {
    let shared = b"shared seed";
    let mut rng = HashRng::new(shared, &[]);
    use sha2::Digest;
    let block = sha2::Sha256::new().chain_update(shared).finalize();
    let n = NonZeroU64::new(256).unwrap();
    let first: Vec<u64> = (0..3).map(|_| rng.below(n)).collect();
    assert_eq!(first, vec![u64::from(block[0]), u64::from(block[1]), u64::from(block[2])]);
}

#[test]
fn erratum_3_the_basic_shuffle_can_leave_cards_in_place() {
    // Sattolo's algorithm (the text's [0, i)) never yields a fixed point; Fisher–Yates does.
    let identity_seen = (0..200u32).any(|seed| {
        let mut rng = HashRng::new(&[0; 64], &state(u64::from(seed)));
        shuffled_indices(3, &mut rng) == vec![0, 1, 2]
    });
    assert!(identity_seen);
}

/// Upper critical value of chi-square with `df` degrees of freedom at p = 0.001
/// (Wilson–Hilferty approximation).
fn chi_square_critical(df: usize) -> f64 {
    let k = df as f64;
    let z = 3.090;
    k * (1.0 - 2.0 / (9.0 * k) + z * (2.0 / (9.0 * k)).sqrt()).powi(3)
}

/// Draws `per_permutation · n!` shuffles of n items and checks that every permutation
/// appears, with frequencies that pass a chi-square test.
fn assert_uniform(n: usize, per_permutation: usize, mut shuffle: impl FnMut(usize) -> Vec<usize>) {
    let permutations: usize = (1..=n).product();
    let draws = per_permutation * permutations;
    let mut counts: HashMap<Vec<usize>, usize> = HashMap::new();
    for draw in 0..draws {
        *counts.entry(shuffle(draw)).or_default() += 1;
    }
    assert_eq!(counts.len(), permutations, "n = {n}: not every permutation appeared");
    let expected = per_permutation as f64;
    let statistic: f64 = counts.values().map(|&c| (c as f64 - expected).powi(2) / expected).sum();
    if permutations > 1 {
        let critical = chi_square_critical(permutations - 1);
        assert!(statistic < critical, "n = {n}: chi-square {statistic:.1} ≥ {critical:.1}");
    }
}

#[test]
fn seed_000_shuffle_is_uniform_for_small_decks() {
    for n in 1..=5 {
        assert_uniform(n, 300, |draw| {
            let mut rng = HashRng::new(&[n as u8; 64], &state(draw as u64));
            shuffled_indices(n, &mut rng)
        });
    }
}

#[test]
fn engine_permutations_are_uniform_for_small_decks() {
    // The permutations behind every lock-and-shuffle come from this sampler.
    let mut rng = ChaCha20Rng::from_seed([12; 32]);
    for n in 1..=5 {
        assert_uniform(n, 300, |_| random_permutation(&mut rng, n).into_iter().map(usize::from).collect());
    }
}

#[test]
fn seed_000_shuffle_is_a_bijection_of_the_draws() {
    // Every sequence of draws j₁ ∈ [0,1], …, j₄ ∈ [0,4] gives a different permutation of 5
    // items: 5! sequences, 5! permutations. The draws are fed as single bytes of a state.
    let mut seen = std::collections::HashSet::new();
    for code in 0..120u32 {
        let (mut rest, mut state) = (code, Vec::new());
        for i in 1..5u32 {
            state.push((rest % (i + 1)) as u8);
            rest /= i + 1;
        }
        let mut items: Vec<usize> = (0..5).collect();
        basic_shuffle(&mut items, &mut HashRng::new(b"", &state));
        assert!(seen.insert(items));
    }
    assert_eq!(seen.len(), 120);
}

#[test]
fn commitments_bind_the_seat_the_nonce_and_the_value() {
    let mut rng = ChaCha20Rng::from_seed([1; 32]);
    let (commitment, opening) = commit("dice/1", &GAME, Seat::HOST, b"value", &mut rng);
    assert_eq!(commitment.verify("dice/1", &GAME, Seat::HOST, &opening).unwrap().into_inner(), b"value");
    assert_eq!(commitment.verify("dice/1", &GAME, Seat::GUEST, &opening).unwrap_err(), ProofError::Opening);
    assert_eq!(commitment.verify("dice/2", &GAME, Seat::HOST, &opening).unwrap_err(), ProofError::Opening);
    assert_eq!(commitment.verify("dice/1", &GameId([4; 32]), Seat::HOST, &opening).unwrap_err(), ProofError::Opening);
    let mut other_value = opening.clone();
    other_value.value = b"valuf".to_vec();
    assert_eq!(commitment.verify("dice/1", &GAME, Seat::HOST, &other_value).unwrap_err(), ProofError::Opening);
    let mut other_nonce = opening.clone();
    other_nonce.nonce[31] ^= 1;
    assert_eq!(commitment.verify("dice/1", &GAME, Seat::HOST, &other_nonce).unwrap_err(), ProofError::Opening);
    // Two commitments to the same value differ (the nonce), so a die is not guessed from its hash.
    let (again, _) = commit("dice/1", &GAME, Seat::HOST, b"value", &mut rng);
    assert_ne!(again, commitment);
}

#[test]
fn shared_randomness_agrees_and_refuses_echoes_and_bad_openings() {
    let mut host_rng = ChaCha20Rng::from_seed([1; 32]);
    let mut guest_rng = ChaCha20Rng::from_seed([2; 32]);
    let (host, host_commitment) = SharedRandom::start("roll/3", GAME, Seat::HOST, &mut host_rng);
    let (guest, guest_commitment) = SharedRandom::start("roll/3", GAME, Seat::GUEST, &mut guest_rng);
    let (host_waiting, host_opening) = host.reveal(guest_commitment).unwrap();
    let (guest_waiting, guest_opening) = guest.reveal(host_commitment).unwrap();
    let host_seed = host_waiting.finish(&guest_opening).unwrap();
    let guest_seed = guest_waiting.finish(&host_opening).unwrap();
    assert_eq!(host_seed.bytes(), guest_seed.bytes());
    let dice: Dice = "3d6".parse().unwrap();
    let rolls = host_seed.roll(dice);
    assert_eq!(rolls, guest_seed.roll(dice));
    assert_eq!(rolls.len(), 3);
    assert!(rolls.iter().all(|face| (1..=6).contains(face)));
    assert_eq!(host_seed.flip_coin(), guest_seed.flip_coin());

    // The mirror attack: the guest echoes the host's commitment (to open it with the host's
    // own opening later, cancelling it out). Refused at once; and the seat inside the hash
    // would refuse the echoed opening anyway (see the commitment test).
    let (host, host_commitment) = SharedRandom::start("coin/4", GAME, Seat::HOST, &mut host_rng);
    assert_eq!(host.reveal(host_commitment).err().unwrap(), ProofError::EchoedCommitment);

    // An opening from another round does not open this one.
    let (host, host_commitment) = SharedRandom::start("coin/5", GAME, Seat::HOST, &mut host_rng);
    let (guest, guest_commitment) = SharedRandom::start("coin/5", GAME, Seat::GUEST, &mut guest_rng);
    let (host_waiting, _) = host.reveal(guest_commitment).unwrap();
    let (_, _) = guest.reveal(host_commitment).unwrap();
    let (old_guest, _) = SharedRandom::start("coin/4", GAME, Seat::GUEST, &mut guest_rng);
    let (_, old_opening) = old_guest.reveal(host_commitment).unwrap();
    assert_eq!(host_waiting.finish(&old_opening).unwrap_err(), ProofError::Opening);
}

#[test]
fn shared_coins_and_dice_are_fair() {
    // Over many independent shared values, each face comes up about equally often.
    let mut faces = [0usize; 6];
    let mut heads = 0;
    let rounds = 6000;
    for round in 0..rounds {
        let mut host_rng = ChaCha20Rng::seed_from_u64(round);
        let mut guest_rng = ChaCha20Rng::seed_from_u64(round + 1_000_000);
        let purpose = format!("roll/{round}");
        let (host, host_commitment) = SharedRandom::start(&purpose, GAME, Seat::HOST, &mut host_rng);
        let (guest, guest_commitment) = SharedRandom::start(&purpose, GAME, Seat::GUEST, &mut guest_rng);
        let (host_waiting, _) = host.reveal(guest_commitment).unwrap();
        let (_, guest_opening) = guest.reveal(host_commitment).unwrap();
        let seed = host_waiting.finish(&guest_opening).unwrap();
        faces[seed.roll(Dice::new(1, 6).unwrap())[0] as usize - 1] += 1;
        heads += usize::from(seed.flip_coin() == Coin::Heads);
    }
    let expected = rounds as f64 / 6.0;
    let statistic: f64 = faces.iter().map(|&c| (c as f64 - expected).powi(2) / expected).sum();
    assert!(statistic < chi_square_critical(5), "{faces:?}");
    let half = rounds as f64 / 2.0;
    assert!(((heads as f64 - half).powi(2) / half * 2.0) < chi_square_critical(1), "{heads} heads");
}

#[test]
fn dice_notation_is_checked() {
    assert_eq!("2d6".parse::<Dice>().unwrap(), Dice::new(2, 6).unwrap());
    assert_eq!("d20".parse::<Dice>().unwrap(), Dice::new(1, 20).unwrap());
    assert_eq!("2x6".parse::<Dice>().unwrap_err(), DiceError::Syntax);
    assert_eq!("0d6".parse::<Dice>().unwrap_err(), DiceError::Count(0));
    assert_eq!("1d1".parse::<Dice>().unwrap_err(), DiceError::Sides(1));
    assert_eq!("-1d6".parse::<Dice>().unwrap_err(), DiceError::Syntax);
}
