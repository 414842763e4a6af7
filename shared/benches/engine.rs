//! The engine's costs, both players together on one thread: the full set-up of two 60-card
//! decks with 15-card sideboards (decks locked, catalogues sealed, both libraries shuffled
//! with their proofs, every proof verified), and one draw (request, the opponent's
//! strip with its proof, its verification, the drawer's own strip and catalogue lookup).
//!
//! `cargo bench -p fairdeck-shared --bench engine`; figures go in docs/PERFORMANCE.md.

use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use fairdeck_shared::Seat;
use fairdeck_shared::crypto::{Group, Modp2048, Ristretto255};
use fairdeck_shared::engine::Intent;
use fairdeck_shared::pair::{Pair, numbered_deck};
use fairdeck_shared::wire::Action;

fn ready_pair<G: Group>(library: usize, sideboard: usize) -> Pair<G> {
    let mut pair =
        Pair::<G>::new(numbered_deck("Host", library, sideboard), numbered_deck("Guest", library, sideboard), 5);
    pair.drive();
    assert!(pair.host.is_ready() && pair.guest.is_ready());
    pair
}

fn bench_suite<G: Group>(c: &mut Criterion, slow: bool) {
    let mut group = c.benchmark_group(format!("engine/{}", G::SUITE.name()));
    if slow {
        group.sample_size(10).warm_up_time(Duration::from_millis(1)).measurement_time(Duration::from_secs(1));
    }
    group.bench_function("setup/60+15", |b| b.iter(|| ready_pair::<G>(60, 15)));
    // Draws need a fresh library now and then; only the draws are timed.
    let library = if slow { 40 } else { 400 };
    group.bench_function("draw/1", |b| {
        b.iter_custom(|iters| {
            let mut elapsed = Duration::ZERO;
            let mut pair = ready_pair::<G>(library, 0);
            let mut left = library;
            for _ in 0..iters {
                if left == 0 {
                    pair = ready_pair::<G>(library, 0);
                    left = library;
                }
                let start = Instant::now();
                pair.intent(Seat::Host, Intent::Act(Action::Draw { count: 1 })).unwrap();
                pair.drive();
                elapsed += start.elapsed();
                left -= 1;
            }
            elapsed
        })
    });
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
