//! Deck files in every supported format: the same Modern Burn list read from each, bad lines refused with their
//! line number, and no input that makes the reader panic.
//!
//! The deck hash against Cockatrice: a second implementation of Cockatrice's hash, written here from its
//! description and sharing nothing with `fairdeck::deck`, is first checked against the vectors of Cockatrice's own
//! tests, then must agree with fairdeck on every deck in `examples/` and `client/tests/decks/`. Cockatrice's
//! plain-text import tests are replayed against fairdeck's reader too.

use fairdeck::deck::{
    Deck, DeckEntry, DeckFormat, DeckParseError, MAX_NAME_BYTES, WarningKind, cockatrice_hash, detect_format,
    parse_deck, read_deck,
};
use proptest::prelude::*;
use sha1::{Digest, Sha1};
use std::path::Path;

fn entries(list: &[(u32, &str)]) -> Vec<DeckEntry> {
    list.iter().map(|&(count, name)| DeckEntry { count, name: name.to_string() }).collect()
}

/// The 60-card main deck and 15-card sideboard every sample file holds.
fn burn() -> Deck {
    Deck {
        main: entries(&[
            (4, "Goblin Guide"),
            (4, "Monastery Swiftspear"),
            (4, "Eidolon of the Great Revel"),
            (4, "Lightning Bolt"),
            (4, "Lava Spike"),
            (4, "Rift Bolt"),
            (4, "Skewer the Critics"),
            (4, "Boros Charm"),
            (4, "Lightning Helix"),
            (4, "Skullcrack"),
            (4, "Inspiring Vantage"),
            (4, "Sacred Foundry"),
            (4, "Arid Mesa"),
            (2, "Bloodstained Mire"),
            (6, "Mountain"),
        ]),
        sideboard: entries(&[
            (2, "Path to Exile"),
            (2, "Deflecting Palm"),
            (3, "Roiling Vortex"),
            (2, "Smash to Smithereens"),
            (2, "Kor Firewalker"),
            (2, "Wear // Tear"),
            (2, "Relic of Progenitus"),
        ]),
        commander: Vec::new(),
    }
}

const SAMPLES: &[(&str, &str, DeckFormat)] = &[
    ("burn.txt", include_str!("decks/burn.txt"), DeckFormat::PlainText),
    ("burn-arena.txt", include_str!("decks/burn-arena.txt"), DeckFormat::Arena),
    ("burn.cod", include_str!("decks/burn.cod"), DeckFormat::Cockatrice),
    ("burn.dek", include_str!("decks/burn.dek"), DeckFormat::MtgoDek),
    ("burn.dec", include_str!("decks/burn.dec"), DeckFormat::Dec),
    ("burn.mwDeck", include_str!("decks/burn.mwDeck"), DeckFormat::MwDeck),
    ("burn.dck", include_str!("decks/burn.dck"), DeckFormat::XmageDck),
];

#[test]
fn every_format_reads_the_same_deck() {
    let expected = burn();
    assert_eq!((expected.main_count(), expected.sideboard_count()), (60, 15));
    for &(file, text, format) in SAMPLES {
        assert_eq!(detect_format(file, text), format, "{file}");
        let deck = parse_deck(file, text).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(deck, expected, "{file}");
    }
}

#[test]
fn content_sniffing_without_a_known_extension() {
    for &(file, text, format) in SAMPLES {
        let sniffed = detect_format("deck", text);
        match format {
            DeckFormat::Cockatrice | DeckFormat::MtgoDek | DeckFormat::Arena | DeckFormat::XmageDck => {
                assert_eq!(sniffed, format, "{file}")
            }
            _ => assert_eq!(sniffed, DeckFormat::PlainText, "{file}"),
        }
        assert_eq!(parse_deck("downloaded-deck", text).unwrap(), burn(), "{file}");
    }
}

#[test]
fn deck_list_expands_counts() {
    let list = burn().to_deck_list();
    assert_eq!((list.library.len(), list.sideboard.len()), (60, 15));
    assert!(list.library[..4].iter().all(|c| c.name == "Goblin Guide" && c.back == 0));
    assert_eq!(list.library[59].name, "Mountain");
    assert_eq!(list.sideboard.iter().filter(|c| c.name == "Wear // Tear").count(), 2);
}

/// A known answer computed outside this crate with Python's `hashlib` (the other samples and Cockatrice's own
/// vectors are checked in `deck_hash.rs`).
#[test]
fn cockatrice_hash_known_answers() {
    assert_eq!(cockatrice_hash(&burn()), "isr8i2a5");
    for &(file, text, _) in SAMPLES {
        assert_eq!(cockatrice_hash(&parse_deck(file, text).unwrap()), "isr8i2a5", "{file}");
    }
}

fn error(file: &str, text: &str) -> DeckParseError {
    match parse_deck(file, text) {
        Ok(deck) => panic!("{file} should be refused, read {deck:?}"),
        Err(e) => e,
    }
}

#[track_caller]
fn assert_error(file: &str, text: &str, line: Option<usize>, column: Option<usize>, needle: &str) {
    let e = error(file, text);
    assert_eq!((e.line, e.column), (line, column), "{file}: {e}");
    assert!(e.to_string().contains(needle), "{file}: `{e}` should mention `{needle}`");
}

#[test]
fn bad_lines_in_each_line_format() {
    assert_error(
        "deck.txt",
        "4 Lightning Bolt\n4 Lava Spike\n4\n",
        Some(3),
        Some(2),
        "line 3, column 2: expected a card name after the count, e.g. `4 Lightning Bolt`",
    );
    assert_error(
        "deck.txt",
        "Deck\n4 Lightning Bolt (M10) 146\n4x (ZEN) 126\n",
        Some(3),
        Some(3),
        "e.g. `4 Lightning Bolt (M10) 146`",
    );
    assert_error(
        "deck.mwDeck",
        "// comment\n4 [M10] Lightning Bolt\nSB: 2 [M10 Naturalize\n",
        Some(3),
        Some(7),
        "expected `]` closing the set code, e.g. `4 [M10] Lightning Bolt`",
    );
    assert_error("deck.dck", "NAME:x\n4 [M10:146] Lightning Bolt\n4 [M10:146]\n", Some(3), Some(3), "card name");
    assert_error("deck.txt", "\n\n   4 Bolt\n0 Mountain\n", Some(4), Some(1), "count of 0");
    assert_error("deck.txt", "\n\n   0 Bolt\n", Some(3), Some(4), "count of 0");
}

/// Lines Cockatrice reads as cards, read alike: no count is one copy, no space after the count is fine.
#[test]
fn lenient_lines_as_cockatrice_reads_them() {
    let deck = parse_deck("deck.txt", "4 Lightning Bolt\nGoblin Guide\n4Lava Spike\n(4 Rift Bolt\n").unwrap();
    assert_eq!(deck.main, entries(&[(4, "Lightning Bolt"), (1, "Goblin Guide"), (4, "Lava Spike"), (4, "Rift Bolt")]));
    let deck = parse_deck("deck.dec", "4 Lightning Bolt\nSB: Naturalize\n- a note\n# a comment\n").unwrap();
    assert_eq!((deck.main_count(), deck.sideboard, deck.commander), (4, entries(&[(1, "Naturalize")]), vec![]));
}

/// Counts in words and mistyped counts, which Cockatrice would take for part of the name, are refused with their
/// line and column; a name that really starts with a number word takes a count in digits.
#[test]
fn counts_in_words_and_mistyped_counts_are_refused() {
    let text = "4 Goblin Guide\n  four Lava Spike\n";
    assert_error("deck.txt", text, Some(2), Some(3), "`four` is a count in words: write `4 Lava Spike`");
    assert_error("deck.txt", "Two Lightning Bolt\n", Some(1), Some(1), "(for a card named \"Two Lightning Bolt\"");
    assert_error(
        "deck.txt",
        "4 Bolt\n4O Goblin Guide\n",
        Some(2),
        Some(2),
        "`4O` is not a count: write `4 Goblin Guide`",
    );
    assert_error("deck.dec", "SB: 2l Naturalize\n4 Bolt\n", Some(1), Some(6), "`2l` is not a count");
    assert_error(
        "deck.txt",
        "4 x Goblin Guide\n",
        Some(1),
        Some(3),
        "a lone `x` after the count: write `4x Goblin Guide`",
    );
    // The real count forms, and names that begin with a number word behind a count, read as before.
    let text = "4x Goblin Guide\nx4 Lava Spike\n4X Rift Bolt\n(4) Skullcrack\n4* Boros Charm\n4Lightning Bolt\n\
                1 Seven Dwarves\n1 One with Nothing\nTwo-Headed Giant\n";
    let deck = parse_deck("deck.txt", text).unwrap();
    let names: Vec<(u32, &str)> = deck.main.iter().map(|e| (e.count, e.name.as_str())).collect();
    assert_eq!(
        names,
        [
            (4, "Goblin Guide"),
            (4, "Lava Spike"),
            (4, "Rift Bolt"),
            (4, "Skullcrack"),
            (4, "Boros Charm"),
            (4, "Lightning Bolt"),
            (1, "Seven Dwarves"),
            (1, "One with Nothing"),
            (1, "Two-Headed Giant")
        ]
    );
}

/// Two blank lines no longer send the rest of a list to the sideboard: it stays main deck, with a warning naming
/// the lines. One blank line (MTGO's and Arena's exports), a `Sideboard` line, or a gap with a comment naming the
/// sideboard still start one; a lone blank line before more than 15 cards is read so, with a warning.
#[test]
fn blank_lines_start_a_sideboard_only_as_real_exports_write_one() {
    let read = read_deck("deck.txt", "4 Goblin Guide\n4 Lava Spike\n\n\n4 Rift Bolt\n").unwrap();
    assert_eq!(read.deck.main_count(), 12);
    assert!(read.deck.sideboard.is_empty());
    assert_eq!(read.warnings.len(), 1);
    assert_eq!((read.warnings[0].kind, read.warnings[0].line), (WarningKind::BlankLines, Some(3)));
    assert!(read.warnings[0].message.starts_with("lines 3–4 are blank: the cards after them are read as main deck"));

    for text in [
        "4 Goblin Guide\n4 Lava Spike\n\n2 Rift Bolt\n",
        "4 Goblin Guide\n4 Lava Spike\n\n\nSideboard\n2 Rift Bolt\n",
        "4 Goblin Guide\n4 Lava Spike\n\n\n// Sideboard\n2 Rift Bolt\n",
    ] {
        let read = read_deck("deck.txt", text).unwrap();
        assert_eq!((read.deck.main_count(), read.deck.sideboard_count()), (8, 2), "{text:?}");
        assert_eq!(read.warnings, [], "{text:?}");
    }
    let read = read_deck("deck.txt", "4 Goblin Guide\n4 Lava Spike\n\n16 Rift Bolt\n").unwrap();
    assert_eq!(read.deck.sideboard_count(), 16);
    assert_eq!((read.warnings[0].kind, read.warnings[0].line), (WarningKind::BlankLines, Some(3)));
    assert!(read.warnings[0].message.contains("a sideboard of 16 cards, more than 15"));
}

#[test]
fn limits() {
    assert_error("deck.txt", "0 Lightning Bolt\n", Some(1), Some(1), "count of 0");
    assert_error("deck.txt", "4 Bolt\n  1001 Mountain\n", Some(2), Some(3), "at most 1000");
    assert_error("deck.txt", "99999999999999999999 Mountain\n", Some(1), Some(1), "at most 1000");
    assert!(parse_deck("deck.txt", "1000 Mountain\n").is_ok());
    assert_error("deck.txt", "600 Mountain\nSideboard\n401 Island\n", Some(3), None, "more than 1000 cards");
    let long = "a".repeat(MAX_NAME_BYTES + 1);
    assert_error("deck.txt", &format!("4 {long}\n"), Some(1), Some(3), "at most 200");
    assert!(parse_deck("deck.txt", &format!("4 {}\n", &long[1..])).is_ok());
    // Long lines are refused before they are read: a line of unclosed brackets costs no more than its length.
    let brackets = format!("4 {}\n", "[".repeat(2000));
    assert_error(
        "deck.txt",
        &format!("1 Bolt\n{brackets}"),
        Some(2),
        None,
        "the line is 2002 bytes long: at most 1000",
    );
    assert_error(
        "deck.mwDeck",
        &format!("1 [M10] Bolt\n4 [M10] {}\n", "b".repeat(990)),
        Some(2),
        Some(3),
        "at most 200",
    );
    assert_error("deck.txt", "4 Bolt\u{7}\n", Some(1), Some(3), "control character");
    assert_error("deck.txt", "// just a comment\n\n", None, None, "main deck is empty");
    assert_error("deck.txt", "Sideboard\n2 Naturalize\n", None, None, "main deck is empty");
    assert_error("deck.dec", "SB: 2 Naturalize\n", None, None, "main deck is empty");
}

#[test]
fn bad_xml_decks() {
    let cod =
        |body: &str| format!("<?xml version=\"1.0\"?>\n<cockatrice_deck version=\"1\">\n{body}\n</cockatrice_deck>\n");
    assert_error(
        "deck.cod",
        &cod("<zone name=\"main\">\n<card number=\"four\" name=\"Lightning Bolt\"/>\n</zone>"),
        Some(4),
        None,
        "expected `number` to be a count",
    );
    assert_error(
        "deck.cod",
        &cod("<zone name=\"main\">\n<card number=\"4\"/>\n</zone>"),
        Some(4),
        None,
        "expected a `name` attribute",
    );
    assert_error("deck.cod", &cod("<zone name=\"library\">\n</zone>"), Some(3), None, "unknown zone `library`");
    assert_error(
        "deck.cod",
        &cod("<zone name=\"side\">\n<card number=\"4\" name=\"Bolt\"/>\n</zone>"),
        None,
        None,
        "empty",
    );
    assert_error("deck.cod", "<cockatrice_deck>\n<zone name=\"main\">\n</oops>\n", Some(3), None, "malformed XML");
    assert_error("deck.cod", "<cockatrice_deck>\n<zone name=\"main\">\n", Some(3), None, "ends inside `<zone>`");
    assert_error("deck.cod", "<deck>\n</deck>\n", Some(1), None, "expected the root element `<cockatrice_deck>`");
    assert_error("deck.cod", "4 Lightning Bolt\n", None, None, "starting with `<cockatrice_deck>`");

    let dek = |body: &str| format!("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<Deck>\n{body}\n</Deck>\n");
    assert_error(
        "deck.dek",
        &dek(
            "<Cards CatID=\"1\" Quantity=\"4\" Sideboard=\"false\" Name=\"Bolt\" />\n<Cards Quantity=\"2\" Sideboard=\"maybe\" Name=\"Naturalize\" />",
        ),
        Some(4),
        None,
        "expected `Sideboard=\"true\"` or `Sideboard=\"false\"`",
    );
    assert_error("deck.dek", &dek("<Cards Quantity=\"0\" Name=\"Bolt\" />"), Some(3), None, "count of 0");
    assert_error("deck.dek", &dek("<Cards Name=\"Bolt\" />"), Some(3), None, "expected a `Quantity` attribute");
    let long = format!("<Cards Quantity=\"1\" Name=\"{}\" />", "[".repeat(5000));
    assert_error("deck.dek", &dek(&long), Some(3), None, "5000 bytes long: at most 200");
    assert_error(
        "deck.dek",
        &dek("<Cards Quantity=\"4\" Name=\"Bolt &bogus;\" />"),
        Some(3),
        None,
        "malformed attribute",
    );
}

#[test]
fn sections_and_markers() {
    let text = "About\nName Jund\n\nCommander\n1 Thalia, Guardian of Thraben (DMR) 20\n\nCompanion\n1 Yorion, Sky Nomad\n\nDeck\n4 Lightning Bolt\n\nSideboard (1)\n1 Duress\n";
    let deck = parse_deck("arena.txt", text).unwrap();
    assert_eq!(deck.commander, entries(&[(1, "Thalia, Guardian of Thraben")]));
    assert_eq!(deck.main, entries(&[(4, "Lightning Bolt")]));
    assert_eq!(deck.sideboard, entries(&[(1, "Yorion, Sky Nomad"), (1, "Duress")]));

    let forge = "[metadata]\nName=Mono Red\n[commander]\n1 Krenko, Mob Boss|M13\n[main]\n20 Mountain|M10\n4 Lightning Bolt|M10|2\n[sideboard]\n2 Naturalize|M10\n";
    let deck = parse_deck("forge.dck", forge).unwrap();
    assert_eq!((deck.commander_count(), deck.main_count(), deck.sideboard_count()), (1, 24, 2));
    assert_eq!(deck.commander, entries(&[(1, "Krenko, Mob Boss")]));

    // Cockatrice reads `//Sideboard` as a comment: the lone blank line splits off the sideboard.
    let deckstats = "4 Lightning Bolt\n\n4 Mountain\n//Sideboard\n2 Naturalize\n";
    let deck = parse_deck("deckstats.txt", deckstats).unwrap();
    assert_eq!((deck.main_count(), deck.sideboard_count()), (4, 6));

    let repeated = "2 Lightning Bolt\n2 lightning bolt\n2 Lightning Bolt\n";
    assert_eq!(parse_deck("r.txt", repeated).unwrap().main, entries(&[(4, "Lightning Bolt"), (2, "lightning bolt")]));
}

#[test]
fn commander_sections() {
    // Plain-text exports: a `Commander` line (or `Commanders:`, `Commander (2)`), partners both read.
    for header in ["Commander", "COMMANDER:", "Commanders", "Commander (2)"] {
        let text = format!("{header}\n1 Tymna the Weaver\n1 Thrasios, Triton Hero\n\nDeck\n1 Sol Ring\n98 Island\n");
        let deck = parse_deck("edh.txt", &text).unwrap_or_else(|e| panic!("{header}: {e}"));
        assert_eq!(deck.commander, entries(&[(1, "Tymna the Weaver"), (1, "Thrasios, Triton Hero")]), "{header}");
        assert_eq!((deck.main_count(), deck.sideboard_count()), (99, 0), "{header}");
    }
    // The commander never reaches the engine's library: the engine has no command zone yet.
    let deck = parse_deck("edh.txt", "Deck\n1 Sol Ring\n99 Mountain\n\nCommander\n1 Krenko, Mob Boss\n").unwrap();
    assert_eq!(deck.commander, entries(&[(1, "Krenko, Mob Boss")]));
    let list = deck.to_deck_list();
    assert_eq!((list.library.len(), list.sideboard.len()), (100, 0));
    assert!(list.library.iter().chain(&list.sideboard).all(|c| c.name != "Krenko, Mob Boss"));
    // Cockatrice keeps a commander in the main deck: the hash counts it there.
    let in_main = parse_deck("edh.txt", "1 Krenko, Mob Boss\n1 Sol Ring\n99 Mountain\n").unwrap();
    assert_eq!(cockatrice_hash(&deck), cockatrice_hash(&in_main));
    // A blank line before the commander (MTGO's habit), with no header, makes it a sideboard card, as in Cockatrice.
    let mtgo = parse_deck("edh.txt", "1 Sol Ring\n98 Mountain\n\n1 Krenko, Mob Boss\n").unwrap();
    assert_eq!(
        (mtgo.commander_count(), &mtgo.sideboard, mtgo.main_count()),
        (0, &entries(&[(1, "Krenko, Mob Boss")]), 99)
    );
}

/// Cockatrice's deck hash as `DecklistNodeTree::computeDeckHash` describes it: one line per copy, the card's
/// name in lower case, `SB:` before it for a sideboard copy; the lines sorted (UTF-16 order, as `QStringList`)
/// and joined with `;`; SHA-1 of the UTF-8; the first five bytes as a big-endian number, written in base 32
/// (`0-9a-v`) and padded with zeros to eight digits.
fn reference_hash<'a>(
    main: impl IntoIterator<Item = (u32, &'a str)>,
    side: impl IntoIterator<Item = (u32, &'a str)>,
) -> String {
    let mut lines = Vec::new();
    for (count, name) in main {
        lines.extend(std::iter::repeat_n(name.to_lowercase(), count as usize));
    }
    for (count, name) in side {
        lines.extend(std::iter::repeat_n(format!("SB:{}", name.to_lowercase()), count as usize));
    }
    lines.sort_by_cached_key(|line| line.encode_utf16().collect::<Vec<u16>>());
    let digest = Sha1::digest(lines.join(";"));
    let mut bytes = [0u8; 8];
    bytes[3..].copy_from_slice(&digest[..5]);
    let mut value = u64::from_be_bytes(bytes);
    let mut digits = String::new();
    loop {
        digits.insert(0, char::from_digit((value % 32) as u32, 32).expect("a base-32 digit"));
        value /= 32;
        if value == 0 {
            break;
        }
    }
    format!("{digits:0>8}")
}

/// The vectors of Cockatrice's tests, quoted from the Cockatrice repository (github.com/Cockatrice/Cockatrice):
/// `tests/loading_from_clipboard/loading_from_clipboard_test.cpp` (`emptyHash`, `deckHash`) and
/// `tests/deck_hash_performance_test.cpp` (`amount` = 1e5 in `NumberTest`, `UniquesTest`, `UniquesTestXor`,
/// `DuplicatesTest`, all in the main deck).
#[test]
fn reference_hash_matches_cockatrices_vectors() {
    let none: [(u32, &str); 0] = [];
    // emptyHash: testHash("", "r8sq7riu")
    assert_eq!(reference_hash(none, none), "r8sq7riu");
    // deckHash: testHash("1 Mountain\n2 Island\nSB: 3 Forest\n", "5cac19qm"), and RepeatTest's deck
    assert_eq!(reference_hash([(1, "Mountain"), (2, "Island")], [(3, "Forest")]), "5cac19qm");
    // NumberTest: <card number="100000" name="Island"/> -> "e0m38p19"
    assert_eq!(reference_hash([(100_000, "Island")], none), "e0m38p19");
    // UniquesTest: "card " + i right-justified to 6 digits with '0', i in 0..100000 -> "88prk025"
    let uniques: Vec<String> = (0..100_000).map(|i| format!("card {i:06}")).collect();
    assert_eq!(reference_hash(uniques.iter().map(|n| (1, n.as_str())), none), "88prk025");
    // UniquesTestXor: "card " + (i ^ 100000), i in 0..100000 -> "hkn6q4pf"
    let xored: Vec<String> = (0..100_000).map(|i| format!("card {}", i ^ 100_000)).collect();
    assert_eq!(reference_hash(xored.iter().map(|n| (1, n.as_str())), none), "hkn6q4pf");
    // DuplicatesTest: 100000 times <card number="1" name="card"/> -> "ekt6tg1h"
    assert_eq!(reference_hash(std::iter::repeat_n((1, "card"), 100_000), none), "ekt6tg1h");
}

/// A section as `(count, name)` rows.
type Rows = Vec<(u32, String)>;

fn rows(list: &[(u32, &str)]) -> Rows {
    list.iter().map(|&(n, name)| (n, name.to_string())).collect()
}

fn rows_of(entries: &[DeckEntry]) -> Rows {
    entries.iter().map(|e| (e.count, e.name.clone())).collect()
}

fn reference_hash_of(deck: &Deck) -> String {
    // Cockatrice has no command zone: a commander is one of the main deck's cards.
    let main = deck.main.iter().chain(&deck.commander).map(|e| (e.count, e.name.as_str()));
    reference_hash(main, deck.sideboard.iter().map(|e| (e.count, e.name.as_str())))
}

/// What each sample holds, read without fairdeck's reader: the `burn` samples hold the same 75 cards, and the
/// Commander sample is `Commander`/`Deck` sections of `N Name` lines.
fn expected_deck(file: &str, text: &str) -> (Rows, Rows, Rows) {
    if file.starts_with("burn") {
        let burn = burn();
        return (rows_of(&burn.main), rows_of(&burn.sideboard), Vec::new());
    }
    assert!(file.contains("commander"), "{file}: no expected deck for this sample; add one here");
    let (mut main, mut commander) = (Vec::new(), Vec::new());
    let mut in_commander = false;
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        match line {
            "Commander" => in_commander = true,
            "Deck" => in_commander = false,
            _ => {
                let (count, name) = line.split_once(' ').expect("`N Name`");
                let row = (count.parse().expect("a count"), name.to_string());
                if in_commander { commander.push(row) } else { main.push(row) }
            }
        }
    }
    (main, Vec::new(), commander)
}

fn samples() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = Vec::new();
    for dir in [root.join("../examples"), root.join("tests/decks")] {
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.unwrap().path();
            // The read-me, and folders such as `examples/pools` (pool files, not decks).
            if path.extension().is_some_and(|e| e == "md") || path.is_dir() {
                continue;
            }
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            found.push((name, std::fs::read_to_string(&path).unwrap()));
        }
    }
    found
}

#[test]
fn every_sample_deck_hashes_as_cockatrice_does() {
    let samples = samples();
    assert!(samples.len() >= 15, "the samples of examples/ and client/tests/decks/");
    assert!(samples.iter().any(|(name, _)| name.contains("commander")), "a Commander sample");
    for (file, text) in samples {
        let deck = parse_deck(&file, &text).unwrap_or_else(|e| panic!("{file}: {e}"));
        let (main, side, commander) = expected_deck(&file, &text);
        let read = (rows_of(&deck.main), rows_of(&deck.sideboard), rows_of(&deck.commander));
        assert_eq!(read, (main, side, commander), "{file}");
        assert_eq!(cockatrice_hash(&deck), reference_hash_of(&deck), "{file}");
    }
}

/// Cockatrice's plain-text import tests (`tests/loading_from_clipboard/loading_from_clipboard_test.cpp`), each
/// input with the main deck and sideboard Cockatrice reads from it.
#[test]
fn cockatrices_clipboard_tests() {
    type Listed = &'static [(u32, &'static str)];
    let cases: &[(&str, &str, Listed, Listed)] = &[
        (
            "QuantityPrefixed",
            "1 Mountain\n2x Island\n3x Forest\n",
            &[(1, "Mountain"), (2, "Island"), (3, "Forest")],
            &[],
        ),
        (
            "SideboardPrefix",
            "1 Mountain\nSB: 1 Mountain\nsb: 2x Island\n2 Swamp\n\n3 Plains\n",
            &[(1, "Mountain"), (2, "Swamp"), (3, "Plains")],
            &[(1, "Mountain"), (2, "Island")],
        ),
        (
            "SideboardLine",
            "1 Mountain\n2 Swamp\n\n3 Plains\nsideboard\n1 Mountain\n2x Island\n",
            &[(1, "Mountain"), (2, "Swamp"), (3, "Plains")],
            &[(1, "Mountain"), (2, "Island")],
        ),
        (
            "UnknownCardsAreNotDiscarded",
            "1 CardThatDoesNotExistInCardsXml\n",
            &[(1, "CardThatDoesNotExistInCardsXml")],
            &[],
        ),
        (
            "RemoveBlankEntriesFromBeginningAndEnd",
            "\n\n\n1x Algae Gharial\n3x CardThatDoesNotExistInCardsXml\n2x Phelddagrif\n\n\n",
            &[(1, "Algae Gharial"), (3, "CardThatDoesNotExistInCardsXml"), (2, "Phelddagrif")],
            &[],
        ),
        (
            "UseFirstBlankIfOnlyOneBlankToSplitSideboard",
            "1x Algae Gharial\n3x CardThatDoesNotExistInCardsXml\n\n2x Phelddagrif\n",
            &[(1, "Algae Gharial"), (3, "CardThatDoesNotExistInCardsXml")],
            &[(2, "Phelddagrif")],
        ),
        (
            "IfMultipleScatteredBlanksAllMainBoard",
            "1x Algae Gharial\n3x CardThatDoesNotExistInCardsXml\n\n2x Phelddagrif\n\n3 Giant Growth\n",
            &[(1, "Algae Gharial"), (3, "CardThatDoesNotExistInCardsXml"), (2, "Phelddagrif"), (3, "Giant Growth")],
            &[],
        ),
        (
            "EdgeCaseTesting",
            "\n// DeckName\n\n   // Comment 1\n\n//\n//Comment [two]\n//(test) Æ ’ | / (3)\n\n\n// Mainboard (11 cards)\nÆther Adept\n2x Fire // Ice\n1 Minsc & Boo, Timeless Heroes\n3 Pain/Suffering\n4X [B] Forest (3)\n\n\n// Sideboard (11 cards)\n\n5x [WTH] Nature’s Resurgence\n6X Gaea's Skyfolk\n7  B.F.M. (Big Furry Monster)\n\n\n\n",
            &[
                (1, "Aether Adept"),
                (2, "Fire // Ice"),
                (1, "Minsc & Boo, Timeless Heroes"),
                (3, "Pain // Suffering"),
                (4, "Forest"),
            ],
            &[(5, "Nature's Resurgence"), (6, "Gaea's Skyfolk"), (7, "B.F.M. (Big Furry Monster)")],
        ),
        (
            "CommentsBeforeCardsTesting",
            "// Title from website.com\n// A nice deck\n// With nice cards\n\n// Mainboard\n1 test1\nSideboard\n2 test2\n",
            &[(1, "test1")],
            &[(2, "test2")],
        ),
        (
            "mainboardAsLine",
            "// Deck Name\n\nMainBoard: 3 cards\n3 card\n\nSideBoard: 2 cards\n2 sidecard\n",
            &[(3, "card")],
            &[(2, "sidecard")],
        ),
        (
            "deckAsCard",
            "6 Deck of Cards But Animated\n\n7 Sideboard Card\n",
            &[(6, "Deck of Cards But Animated")],
            &[(7, "Sideboard Card")],
        ),
    ];
    for &(test, text, main, side) in cases {
        let deck = parse_deck("clipboard.txt", text).unwrap_or_else(|e| panic!("{test}: {e}"));
        assert_eq!((rows_of(&deck.main), rows_of(&deck.sideboard)), (rows(main), rows(side)), "{test}");
        assert_eq!(cockatrice_hash(&deck), reference_hash(main.iter().copied(), side.iter().copied()), "{test}");
    }
    // deckHash, through the reader.
    assert_eq!(cockatrice_hash(&parse_deck("c.txt", "1 Mountain\n2 Island\nSB: 3 Forest\n").unwrap()), "5cac19qm");
    // Inputs Cockatrice reads as an empty main deck, which fairdeck refuses: EmptyDeck, EmptySideboard,
    // CommentsAreIgnored, emptyMainBoard, and WeirdWhitespaceIsIgnored (a sideboard card only).
    for text in [
        "",
        "Sideboard",
        "//1 Mountain\n//2x Island\n//SB:2x Island\n",
        "deck\n\nsideboard\n",
        "\t\tSb:\t1\tElemental\t\n\t",
    ] {
        let error = parse_deck("clipboard.txt", text).expect_err(text);
        assert!(error.to_string().contains("main deck is empty"), "{text:?}: {error}");
    }
}

const EXTENSIONS: &[&str] = &["deck.txt", "deck.cod", "deck.dek", "deck.dec", "deck.mwDeck", "deck.dck", "deck"];

/// Lines built from the pieces the readers look for, so random input reaches deep into them.
fn deckish_line() -> impl Strategy<Value = String> {
    prop_oneof![
        "[0-9]{0,12}[xX*]? ?\\[?[A-Za-z0-9:]{0,6}\\]? ?[A-Za-z /(),'*|]{0,30}",
        Just("Sideboard".to_string()),
        Just(String::new()),
        "(SB:|//|#|NAME:|LAYOUT |Deck|About|\\[main\\]|\\[sideboard\\])[ -~]{0,20}",
        "<(cockatrice_deck|zone|card|Deck|Cards)( [A-Za-z]{1,10}=\"[ -~]{0,10}\")*/?>",
        "</?(cockatrice_deck|zone|card|Deck|Cards)>",
        any::<String>(),
    ]
}

proptest! {
    #[test]
    fn random_text_never_panics(text in any::<String>()) {
        for file in EXTENSIONS {
            if let Ok(deck) = parse_deck(file, &text) {
                prop_assert!(!deck.main.is_empty());
            }
        }
    }

    #[test]
    fn random_deckish_text_never_panics(lines in prop::collection::vec(deckish_line(), 0..40)) {
        let text = lines.join("\n");
        for file in EXTENSIONS {
            if let Ok(deck) = parse_deck(file, &text) {
                prop_assert!(!deck.main.is_empty());
                prop_assert!(deck.main_count() + deck.sideboard_count() <= 1000);
                for entry in deck.main.iter().chain(&deck.sideboard) {
                    prop_assert!((1..=1000).contains(&entry.count));
                    prop_assert!(!entry.name.is_empty() && entry.name.len() <= MAX_NAME_BYTES);
                }
                prop_assert_eq!(cockatrice_hash(&deck).len(), 8);
            }
        }
    }
}
