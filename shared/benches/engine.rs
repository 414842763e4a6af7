//! The engine's costs, both players together on one thread: the full set-up of two 60-card
//! decks with 15-card sideboards (decks locked, catalogues sealed, both libraries shuffled
//! with their proofs, every proof verified), and one draw (request, the opponent's
//! strip with its proof, its verification, the drawer's own strip and catalogue lookup). Limited play: the deal
//! of two sealed pools from a 90-card cube (both shuffles of the stack with their proofs, both deals), and one
//! build (both decks relocked from the pools with their proofs, checked, and both libraries shuffled).
//!
//! `cargo bench -p fairdeck-shared --bench engine`; figures go in docs/PERFORMANCE.md.

use std::time::{Duration, Instant};

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use fairdeck_shared::Seat;
use fairdeck_shared::crypto::{Group, Modp2048, Ristretto255};
use fairdeck_shared::engine::{DeckCard, DeckList, Event, Intent, LimitedConfig, PoolList, PoolSource};
use fairdeck_shared::pair::{Pair, numbered_deck};
use fairdeck_shared::wire::{Action, GridLine, LimitedFormat, PoolHash};

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
    // Draws need a fresh library now and then; only the draws are timed. A guest's draw is a proposal the host
    // accepts (one more signed message) before the strips.
    let library = if slow { 40 } else { 400 };
    group.bench_function("draw/1", |b| b.iter_custom(|iters| time_draws::<G>(Seat::HOST, library, iters)));
    group.bench_function("guest_draw/1", |b| b.iter_custom(|iters| time_draws::<G>(Seat::GUEST, library, iters)));
    group.finish();
}

/// The time of `iters` single draws by `drawer`, both engines' share, from `library`-card libraries.
fn time_draws<G: Group>(drawer: Seat, library: usize, iters: u64) -> Duration {
    let mut elapsed = Duration::ZERO;
    let mut pair = ready_pair::<G>(library, 0);
    let mut left = library;
    for _ in 0..iters {
        if left == 0 {
            pair = ready_pair::<G>(library, 0);
            left = library;
        }
        let start = Instant::now();
        pair.intent(drawer, Intent::Act(Action::Draw { count: 1 })).unwrap();
        pair.drive();
        elapsed += start.elapsed();
        left -= 1;
    }
    elapsed
}

fn ristretto255(c: &mut Criterion) {
    bench_suite::<Ristretto255>(c, false);
}

fn modp2048(c: &mut Criterion) {
    bench_suite::<Modp2048>(c, true);
}

/// Two engines of a sealed match from a singleton cube of `cube` cards, each dealt `dealt`, both pools dealt.
fn dealt_pair(cube: usize, dealt: u32) -> Pair<Ristretto255> {
    let pool = PoolList {
        hash: PoolHash([7; 32]),
        source: PoolSource::Cube((0..cube).map(|i| format!("Cube card {i}")).collect()),
    };
    let host = LimitedConfig { pool: pool.clone(), format: Some(LimitedFormat::Sealed { cards: dealt }) };
    let mut pair = Pair::limited(host, LimitedConfig { pool, format: None }, 5);
    pair.drive();
    assert!(Seat::BOTH.into_iter().all(|seat| pair.engine(seat).is_building()));
    pair
}

/// Two engines of a sealed match from the boosters of the shipped small set, each opening `boosters`, both pools
/// dealt.
fn boosters_pair(boosters: u32) -> Pair<Ristretto255> {
    let set = include_bytes!("../../examples/pools/small-set.json").to_vec();
    let pool = PoolList { hash: PoolHash([9; 32]), source: PoolSource::Set(set) };
    let host = LimitedConfig { pool: pool.clone(), format: Some(LimitedFormat::SealedBoosters { boosters }) };
    let mut pair = Pair::limited(host, LimitedConfig { pool, format: None }, 5);
    pair.drive();
    assert!(Seat::BOTH.into_iter().all(|seat| pair.engine(seat).is_building()));
    pair
}

/// Two engines of a grid draft of `grids` grids from a 90-card cube, the first grid shown to both.
fn grid_pair(grids: u32) -> Pair<Ristretto255> {
    let pool = PoolList {
        hash: PoolHash([7; 32]),
        source: PoolSource::Cube((0..90).map(|i| format!("Cube card {i}")).collect()),
    };
    let host = LimitedConfig { pool: pool.clone(), format: Some(LimitedFormat::Grid { grids }) };
    let mut pair = Pair::limited(host, LimitedConfig { pool, format: None }, 5);
    pair.drive();
    pair
}

/// Two engines of a booster draft of three packs of fifteen from a 90-card cube, both first packs shown.
fn booster_draft_pair() -> Pair<Ristretto255> {
    let pool = PoolList {
        hash: PoolHash([7; 32]),
        source: PoolSource::Cube((0..90).map(|i| format!("Cube card {i}")).collect()),
    };
    let host = LimitedConfig { pool: pool.clone(), format: Some(LimitedFormat::Draft { packs: 3, cards: 15 }) };
    let mut pair = Pair::limited(host, LimitedConfig { pool, format: None }, 5);
    pair.drive();
    pair
}

/// `seat`'s deck: the first `spells` cards of its pool and `lands` Mountains (the rest of the pool its sideboard).
fn pool_deck(pair: &Pair<Ristretto255>, seat: Seat, spells: usize, lands: usize) -> DeckList {
    let pool = pair
        .events(seat)
        .iter()
        .find_map(|event| match event {
            Event::Pool { cards } => Some(cards),
            _ => None,
        })
        .expect("a dealt pair's pools are dealt");
    let names = pool[..spells].iter().map(String::as_str).chain(std::iter::repeat_n("Mountain", lands));
    let library = names.map(|name| DeckCard { name: name.into(), back: 0 }).collect();
    DeckList { library, sideboard: vec![], commander: vec![], label: "sealed".into() }
}

fn limited(c: &mut Criterion) {
    let mut group = c.benchmark_group("limited");
    group.sample_size(10).warm_up_time(Duration::from_millis(1)).measurement_time(Duration::from_secs(2));
    group.bench_function("sealed_deal/45+45_of_90", |b| b.iter(|| dealt_pair(90, 45)));
    group.bench_function("sealed_boosters/6+6_of_small_set", |b| b.iter(|| boosters_pair(6)));
    // A grid's second pick: both engines take it in, then both reveal the next grid, check each other's reveal and
    // read it — the most a pick costs.
    group.bench_function("grid_pick/second", |b| {
        b.iter_batched(
            || {
                let mut pair = grid_pair(2);
                pair.intent(Seat::HOST, Intent::Pick(GridLine::Row(0))).unwrap();
                pair.drive();
                pair
            },
            |mut pair| {
                pair.intent(Seat::GUEST, Intent::Pick(GridLine::Row(1))).unwrap();
                pair.drive();
                pair
            },
            BatchSize::PerIteration,
        )
    });
    // A pack's first pick, the costliest: the pick, and the reveal of the fourteen cards left to the other player,
    // who checks it and reads them.
    group.bench_function("booster_draft_pick/first_of_15", |b| {
        b.iter_batched(
            booster_draft_pair,
            |mut pair| {
                pair.intent(Seat::HOST, Intent::TakeCard(0)).unwrap();
                pair.drive();
                pair
            },
            BatchSize::PerIteration,
        )
    });
    group.bench_function("pool_deck/23+17_of_45", |b| {
        b.iter_batched(
            || {
                let pair = dealt_pair(90, 45);
                let decks = Seat::BOTH.map(|seat| pool_deck(&pair, seat, 23, 17));
                (pair, decks)
            },
            |(mut pair, decks)| {
                for (seat, deck) in Seat::BOTH.into_iter().zip(decks) {
                    pair.intent(seat, Intent::Build(deck)).unwrap();
                }
                pair.drive();
                assert!(pair.host.is_ready() && pair.guest.is_ready());
                pair
            },
            BatchSize::PerIteration,
        )
    });
    group.finish();
}

criterion_group!(benches, ristretto255, modp2048, limited);
criterion_main!(benches);
