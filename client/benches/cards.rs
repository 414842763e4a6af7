//! The card database at MTGJSON's size. No full AtomicCards file ships with the repository, so the test
//! fixture's 37 cards are copied under new names (`Goblin Guide 863`, faces too) to 32,000 cards, about
//! MTGJSON's count. Measured: the import as `fairdeck cards import` does it (read, parse, check, write and rename
//! the database), and a lookup as `fairdeck card` does it (open the database, find the name, decode the card;
//! the process's start and the printing left out) by a full name, by a back face's name in lower case, and for
//! an unknown name, whose error computes suggestions over every name. The JSON's size and the database's size
//! on disk are printed first.
//!
//! `cargo bench -p fairdeck --bench cards`; figures go in docs/PERFORMANCE.md.

use std::path::Path;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/AtomicCards.json");
/// About as many cards as MTGJSON's AtomicCards holds.
const CARDS: usize = 32_000;

/// The fixture's cards copied under the names `NAME N` (each face's too) until there are `count`.
fn scaled(count: usize) -> Vec<u8> {
    let mut file: serde_json::Value =
        serde_json::from_slice(&std::fs::read(FIXTURE).expect("the fixture")).expect("the fixture is JSON");
    let originals = file["data"].as_object().cloned().unwrap_or_default();
    let mut data = serde_json::Map::new();
    'copies: for copy in 0.. {
        for (name, faces) in &originals {
            if data.len() == count {
                break 'copies;
            }
            let renamed =
                |text: &str| text.split(" // ").map(|part| format!("{part} {copy}")).collect::<Vec<_>>().join(" // ");
            let mut faces = faces.clone();
            for face in faces.as_array_mut().into_iter().flatten() {
                face["name"] = renamed(name).into();
                if let Some(face_name) = face.get("faceName").and_then(|n| n.as_str()).map(renamed) {
                    face["faceName"] = face_name.into();
                }
            }
            data.insert(renamed(name), faces);
        }
    }
    file["data"] = data.into();
    serde_json::to_vec(&file).expect("JSON")
}

/// What `fairdeck card NAME` does, less the printing: whether the name was found.
fn lookup(database: &Path, name: &str) -> bool {
    fairdeck::cards::Database::open(database).and_then(|mut db| db.find(name)).is_ok()
}

fn cards(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let json = scaled(CARDS);
    let input = dir.path().join("AtomicCards.json");
    std::fs::write(&input, &json).expect("write the JSON");
    let database = dir.path().join("cards.db");
    let imported = fairdeck::cards::import_file(&input, &database).expect("the scaled fixture imports");
    println!(
        "{} cards: JSON {:.1} MB, database on disk {:.1} MB",
        imported.header.cards,
        json.len() as f64 / 1e6,
        imported.file_bytes as f64 / 1e6
    );
    let last = CARDS / 37 - 1;
    let (full, back, typo) =
        (format!("Goblin Guide {last}"), format!("insectile aberration {last}"), format!("Goblin Gide {last}"));
    assert!(lookup(&database, &full) && lookup(&database, &back) && !lookup(&database, &typo));

    let mut group = c.benchmark_group("cards");
    group.sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(5));
    group.bench_function(format!("import/{CARDS}"), |b| {
        b.iter(|| fairdeck::cards::import_file(&input, &database).expect("import"))
    });
    group.bench_function("unknown_name_with_suggestions", |b| b.iter(|| lookup(&database, &typo)));
    group.sample_size(100).measurement_time(Duration::from_secs(3));
    group.bench_function("lookup/full_name", |b| b.iter(|| lookup(&database, &full)));
    group.bench_function("lookup/back_face_lower_case", |b| b.iter(|| lookup(&database, &back)));
    group.finish();
}

criterion_group!(benches, cards);
criterion_main!(benches);
