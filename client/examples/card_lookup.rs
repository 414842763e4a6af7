//! Figures of the card database at MTGJSON's size: the test fixture's 37 cards copied under new names to
//! COUNT cards (default 32,000, about AtomicCards today), imported as `fairdeck cards import` does, then looked
//! up as `fairdeck card` does (open the database, find one name), by full name, by a back face's name, and a
//! miss that computes suggestions. Prints the import time, the sizes, and the lookup times.
//!
//! `cargo run -p fairdeck --example card_lookup [COUNT]` (add `--release` for the figures of a release build).

use std::time::{Duration, Instant};

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/AtomicCards.json");
/// Lookups timed per name.
const RUNS: usize = 200;

fn main() -> anyhow::Result<()> {
    let count: usize = std::env::args().nth(1).map_or(Ok(32_000), |n| n.parse())?;
    let dir = tempfile::tempdir()?;
    let json = scaled(count)?;
    let input = dir.path().join("AtomicCards.json");
    std::fs::write(&input, &json)?;
    let database = dir.path().join("cards.db");
    let start = Instant::now();
    let imported = fairdeck::cards::import_file(&input, &database)?;
    let import_time = start.elapsed();
    println!(
        "{} cards: JSON {:.1} MB, imported in {import_time:.2?}, database {:.1} MB",
        imported.header.cards,
        json.len() as f64 / 1e6,
        imported.file_bytes as f64 / 1e6
    );
    let last = (count / 37).saturating_sub(1);
    let names = [
        format!("Goblin Guide {last}"),
        format!("insectile aberration {last}"),
        "Lightning Bolt 0".to_string(),
        format!("Goblin Gide {last}"),
    ];
    for name in names {
        let lookup = || fairdeck::cards::Database::open(&database).and_then(|mut db| db.find(&name));
        let outcome = match lookup() {
            Ok(card) => format!("found {}", card.name()),
            Err(error) => error.to_string(),
        };
        let mut times: Vec<Duration> = (0..RUNS)
            .map(|_| {
                let start = Instant::now();
                std::hint::black_box(lookup().is_ok());
                start.elapsed()
            })
            .collect();
        times.sort();
        println!(
            "{name:?}: median {:.2?}, 95th percentile {:.2?} ({outcome})",
            times[RUNS / 2],
            times[RUNS * 95 / 100]
        );
    }
    Ok(())
}

/// The fixture's cards copied under the names `NAME N` (faces too) until there are `count`.
fn scaled(count: usize) -> anyhow::Result<Vec<u8>> {
    let mut file: serde_json::Value = serde_json::from_slice(&std::fs::read(FIXTURE)?)?;
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
    Ok(serde_json::to_vec(&file)?)
}
