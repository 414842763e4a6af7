//! Costs of the cryptographic core, for both suites: one lock, strips with their proofs,
//! and a 60-card lock-and-shuffle with its proof and its verification; with ristretto255, also
//! the proof of the largest library (`wire::MAX_DECK_LEN`, 1000 cards), where the prover's
//! O(n²) constant-time handling of the permutation shows most.
//!
//! `cargo bench -p fairdeck-shared --bench crypto`; figures go in docs/PERFORMANCE.md.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use fairdeck_shared::crypto::{CardInstance, Group, LockKey, Modp2048, ProofContext, Ristretto255};
use fairdeck_shared::{GameId, Seat};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

const LIBRARY: usize = 60;
const LARGEST_LIBRARY: usize = fairdeck_shared::wire::MAX_DECK_LEN;
const GAME: GameId = GameId([1; 32]);

fn library<G: Group>(key: &LockKey<G>, len: usize) -> Vec<G::Element> {
    let cards: Vec<G::Element> = (0..len)
        .map(|i| {
            CardInstance { owner: Seat::HOST, nonce: [i as u8; 16], name: format!("Card {i}"), back: 0 }
                .point::<G>(&GAME)
        })
        .collect();
    key.lock(&cards)
}

fn bench_suite<G: Group>(c: &mut Criterion, slow: bool) {
    let mut rng = ChaCha20Rng::from_seed([7; 32]);
    let owner = LockKey::<G>::generate(&mut rng);
    let opponent = LockKey::<G>::generate(&mut rng);
    let locked = library(&owner, LIBRARY);
    let context = ProofContext::new(GAME, 1, "bench");
    let name = G::SUITE.name();

    let mut group = c.benchmark_group(name);
    if slow {
        group.sample_size(10).warm_up_time(Duration::from_millis(100)).measurement_time(Duration::from_secs(5));
    }
    group.bench_function("lock/1", |b| b.iter(|| opponent.lock(black_box(&locked[..1]))));
    group.bench_function("strip_with_proof/1", |b| {
        b.iter(|| opponent.strip_with_proof(black_box(&locked[..1]), &context, &mut rng))
    });
    group.throughput(Throughput::Elements(LIBRARY as u64));
    group.bench_function("strip_with_proof/60", |b| {
        b.iter(|| opponent.strip_with_proof(black_box(&locked), &context, &mut rng))
    });
    let (stripped, strip_proof) = opponent.strip_with_proof(&locked, &context, &mut rng);
    let stripped = stripped.into_inner().cards;
    group.bench_function("verify_strip/60", |b| {
        b.iter_batched(
            || stripped.clone(),
            |stripped| opponent.commitment().verify_strip(&locked, stripped, &strip_proof, &context).unwrap(),
            BatchSize::SmallInput,
        )
    });
    group.bench_function("lock_and_shuffle_prove/60", |b| {
        b.iter(|| opponent.lock_and_shuffle(black_box(&locked), &context, &mut rng))
    });
    let (shuffle, _) = opponent.lock_and_shuffle(&locked, &context, &mut rng);
    group.bench_function("shuffle_verify/60", |b| {
        b.iter_batched(
            || shuffle.clone(),
            |shuffle| opponent.commitment().verify_shuffle(&locked, shuffle, &context, &mut rng).unwrap(),
            BatchSize::SmallInput,
        )
    });
    // modp2048 decks are capped far below (`wire::MAX_DECK_LEN_MODP2048`), and take seconds a proof.
    if !slow {
        let largest = library(&owner, LARGEST_LIBRARY);
        group.throughput(Throughput::Elements(LARGEST_LIBRARY as u64));
        group.sample_size(10);
        group.bench_function(format!("lock_and_shuffle_prove/{LARGEST_LIBRARY}"), |b| {
            b.iter(|| opponent.lock_and_shuffle(black_box(&largest), &context, &mut rng))
        });
    }
    group.finish();
}

fn ristretto255(c: &mut Criterion) {
    bench_suite::<Ristretto255>(c, false);
}

fn modp2048(c: &mut Criterion) {
    bench_suite::<Modp2048>(c, true);
}

criterion_group!(benches, ristretto255, modp2048);
criterion_main!(benches);
