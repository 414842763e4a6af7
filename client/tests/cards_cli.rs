//! `fairdeck cards`, `fairdeck cards import FILE` and `fairdeck card NAME [--json]`, run as a player would,
//! each test with a data folder of its own.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Output;

mod support;

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/AtomicCards.json");

/// A scratch data folder, and fairdeck run with it.
struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn new() -> Self {
        Self { dir: tempfile::tempdir().unwrap() }
    }

    fn run(&self, args: &[&str]) -> Output {
        support::fairdeck_in(&self.dir.path().join("data"), args)
    }

    /// The standard output of a run that must succeed.
    fn ok(&self, args: &[&str]) -> String {
        let output = self.run(args);
        assert!(output.status.success(), "{args:?}: {}", String::from_utf8_lossy(&output.stderr));
        String::from_utf8(output.stdout).unwrap()
    }

    /// The standard error of a run that must fail.
    fn fails(&self, args: &[&str]) -> String {
        let output = self.run(args);
        assert_eq!(output.status.code(), Some(1), "{args:?}: {}", String::from_utf8_lossy(&output.stdout));
        String::from_utf8(output.stderr).unwrap()
    }

    fn file(&self, name: &str, bytes: &[u8]) -> String {
        let path = self.dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        path.display().to_string()
    }

    fn database(&self) -> PathBuf {
        self.dir.path().join("data/fairdeck/cards/cards.db")
    }
}

fn fixture() -> Vec<u8> {
    std::fs::read(FIXTURE).unwrap()
}

#[test]
fn without_a_database_the_commands_say_how_to_get_one() {
    let home = Home::new();
    let status = home.ok(&["cards"]);
    assert!(status.starts_with("No card database in "), "{status}");
    assert!(status.contains("`fairdeck cards import FILE`"), "{status}");
    let error = home.fails(&["card", "Lightning", "Bolt"]);
    assert!(error.contains("no card database in ") && error.contains("`fairdeck cards import FILE`"), "{error}");
    assert!(!home.database().exists());
}

#[test]
fn an_imported_file_is_told_and_its_cards_are_found_by_any_face() {
    let home = Home::new();
    let imported = home.ok(&["cards", "import", FIXTURE]);
    assert!(imported.starts_with("Imported 37 cards (MTGJSON 5.2.2+20261120 of 2026-11-20) from "), "{imported}");
    let status = home.ok(&["cards"]);
    assert!(status.starts_with("Card database: 37 cards, MTGJSON 5.2.2+20261120 of 2026-11-20\n"), "{status}");
    assert!(status.contains(&format!("from {FIXTURE}\n")), "{status}");
    assert!(status.contains(&home.database().display().to_string()), "{status}");

    let guide = home.ok(&["card", "goblin", "GUIDE"]);
    assert!(guide.starts_with("Goblin Guide  {R}\nCreature — Goblin Scout\nHaste\n"), "{guide}");
    assert!(guide.ends_with("\n2/2\n"), "{guide}");
    let delver = home.ok(&["card", "Insectile Aberration"]);
    assert!(delver.starts_with("Delver of Secrets // Insectile Aberration\n\nDelver of Secrets  {U}\n"), "{delver}");
    assert!(delver.ends_with("\n\nInsectile Aberration\nCreature — Human Insect\nFlying\n3/2\n"), "{delver}");
    let jace = home.ok(&["card", "Jace, the Mind Sculptor"]);
    assert!(jace.ends_with("\nLoyalty: 3\n"), "{jace}");
}

#[test]
fn json_gives_every_field_and_every_face() {
    let home = Home::new();
    home.ok(&["cards", "import", FIXTURE]);
    let json: serde_json::Value =
        serde_json::from_str(&home.ok(&["card", "Tibalt, Cosmic Impostor", "--json"])).unwrap();
    assert_eq!(json["name"], "Valki, God of Lies // Tibalt, Cosmic Impostor");
    assert_eq!(json["mana_cost"], serde_json::Value::Null);
    let faces = json["faces"].as_array().unwrap();
    assert_eq!(faces.len(), 2);
    assert_eq!(faces[0]["name"], "Valki, God of Lies");
    assert_eq!((&faces[0]["power"], &faces[0]["toughness"]), (&"2".into(), &"1".into()));
    assert_eq!(faces[1]["type"], "Legendary Planeswalker — Tibalt");
    assert_eq!((&faces[1]["loyalty"], &faces[1]["power"]), (&"5".into(), &serde_json::Value::Null));
    let bolt: serde_json::Value = serde_json::from_str(&home.ok(&["card", "lightning bolt", "--json"])).unwrap();
    assert_eq!(
        bolt,
        serde_json::json!({"name": "Lightning Bolt", "mana_cost": "{R}", "type": "Instant",
            "text": "Lightning Bolt deals 3 damage to any target.", "power": null, "toughness": null, "loyalty": null,
            "faces": [{"name": "Lightning Bolt", "mana_cost": "{R}", "type": "Instant",
                "text": "Lightning Bolt deals 3 damage to any target.", "power": null, "toughness": null,
                "loyalty": null}]})
    );
}

#[test]
fn an_unknown_name_suggests_the_nearest_real_ones() {
    let home = Home::new();
    home.ok(&["cards", "import", FIXTURE]);
    let error = home.fails(&["card", "Goblin", "Gide"]);
    assert_eq!(error, "fairdeck: no card named \"Goblin Gide\" in the card database; did you mean Goblin Guide?\n");
    let error = home.fails(&["card", "Black Lotus", "--json"]);
    assert_eq!(error, "fairdeck: no card named \"Black Lotus\" in the card database\n");
}

#[test]
fn compressed_files_import_as_mtgjson_publishes_them() {
    let home = Home::new();
    let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    gzip.write_all(&fixture()).unwrap();
    let gz = home.file("AtomicCards.json.gz", &gzip.finish().unwrap());
    assert!(home.ok(&["cards", "import", &gz]).starts_with("Imported 37 cards"));
    assert!(home.ok(&["card", "Sol Ring"]).starts_with("Sol Ring  {1}\nArtifact\n"));
    let mut xz = lzma_rust2::XzWriter::new(Vec::new(), lzma_rust2::XzOptions::with_preset(6)).unwrap();
    xz.write_all(&fixture()).unwrap();
    // Named .json: the content, not the name, says how a file is compressed.
    let xz = home.file("AtomicCards.json", &xz.finish().unwrap());
    assert!(home.ok(&["cards", "import", &xz]).starts_with("Imported 37 cards"));
    assert!(home.ok(&["cards"]).contains(&format!("from {xz}\n")));
}

#[test]
fn a_bad_file_is_refused_with_its_place_and_the_old_database_is_kept() {
    let home = Home::new();
    home.ok(&["cards", "import", FIXTURE]);
    let before = std::fs::read(home.database()).unwrap();
    let text = String::from_utf8(fixture()).unwrap();
    let broken = text.replacen("\"type\": \"Instant\"", "\"type\": 7", 1);
    assert_ne!(broken, text);
    let cases = [
        (home.file("broken.json", broken.as_bytes()), "[0].type: invalid type: integer `7`, expected a string"),
        (home.file("cut.json", &fixture()[..5000]), "EOF while parsing"),
        (home.file("deck.txt", b"4 Lightning Bolt\n"), "expected an object of \"meta\" and \"data\" at line 1"),
        (
            home.file("faces.json", br#"{"meta":{"date":"d","version":"v"},"data":{"Bolt":[1]}}"#),
            "at data.Bolt[0]: invalid type: integer `1`, expected a card face object",
        ),
        (home.file("empty.json", b""), "EOF while parsing"),
    ];
    for (file, needle) in cases {
        let error = home.fails(&["cards", "import", &file]);
        assert!(error.starts_with(&format!("fairdeck: {file} is not an AtomicCards file: ")), "{error}");
        assert!(error.contains(needle), "{error}");
    }
    let error = home.fails(&["cards", "import", &home.dir.path().join("missing.json").display().to_string()]);
    assert!(error.contains("cannot read ") && error.contains("missing.json"), "{error}");
    assert_eq!(std::fs::read(home.database()).unwrap(), before);
    assert!(home.ok(&["card", "Lightning Bolt"]).starts_with("Lightning Bolt  {R}\nInstant\n"));
    let leftovers: Vec<_> = std::fs::read_dir(home.database().parent().unwrap()).unwrap().collect();
    assert_eq!(leftovers.len(), 1, "only cards.db in {}", Path::new(&home.database()).display());
}
