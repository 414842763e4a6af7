//! Deck files in every supported format: the same Modern Burn list read from each, bad lines refused with their
//! line number, and no input that makes the reader panic.

use fairdeck::deck::{
    Deck, DeckEntry, DeckFormat, DeckParseError, MAX_NAME_BYTES, cockatrice_hash, detect_format, parse_deck,
};
use proptest::prelude::*;

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
            DeckFormat::Cockatrice | DeckFormat::MtgoDek | DeckFormat::Arena => assert_eq!(sniffed, format, "{file}"),
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

/// Known answers computed outside this crate with Python's `hashlib`, following Cockatrice's
/// `DecklistNodeTree::computeDeckHash` as documented in table-anchors.md §2.6 (no example hash is given there):
/// `sorted(lowercased copies, sideboard ones prefixed "SB:")`, joined with ";", SHA-1, first 5 bytes as a
/// big-endian integer, base 32 with digits 0-9a-v, left-padded to 8.
#[test]
fn cockatrice_hash_known_answers() {
    assert_eq!(cockatrice_hash(&burn()), "isr8i2a5");
    // SHA-1 of the empty string starts da39a3ee5e = 937,242,652,254 = r8sq7riu in base 32.
    assert_eq!(cockatrice_hash(&Deck::default()), "r8sq7riu");
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
        "4 Lightning Bolt\n4 Lava Spike\nGoblin Guide\n",
        Some(3),
        Some(1),
        "line 3, column 1: expected a count before the card name, e.g. `4 Lightning Bolt`",
    );
    assert_error(
        "deck.txt",
        "Deck\n4 Lightning Bolt (M10) 146\nx Goblin Guide (ZEN) 126\n",
        Some(3),
        Some(1),
        "e.g. `4 Lightning Bolt (M10) 146`",
    );
    assert_error("deck.dec", "4 Lightning Bolt\nSB: Naturalize\n", Some(2), Some(5), "expected a count");
    assert_error(
        "deck.mwDeck",
        "// comment\n4 [M10] Lightning Bolt\nSB: 2 [M10 Naturalize\n",
        Some(3),
        Some(7),
        "expected `]` closing the set code, e.g. `4 [M10] Lightning Bolt`",
    );
    assert_error("deck.dck", "NAME:x\n4 [M10:146] Lightning Bolt\n4 [M10:146]\n", Some(3), Some(12), "card name");
    assert_error("deck.txt", "4Lightning Bolt\n", Some(1), Some(2), "expected a space");
    assert_error("deck.txt", "(4 Lightning Bolt\n", Some(1), Some(3), "expected `)`");
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
    assert_eq!(deck.main, entries(&[(1, "Thalia, Guardian of Thraben"), (4, "Lightning Bolt")]));
    assert_eq!(deck.sideboard, entries(&[(1, "Yorion, Sky Nomad"), (1, "Duress")]));

    let forge =
        "[metadata]\nName=Mono Red\n[main]\n20 Mountain|M10\n4 Lightning Bolt|M10|2\n[sideboard]\n2 Naturalize|M10\n";
    let deck = parse_deck("forge.dck", forge).unwrap();
    assert_eq!((deck.main_count(), deck.sideboard_count()), (24, 2));

    let deckstats = "4 Lightning Bolt\n\n4 Mountain\n//Sideboard\n2 Naturalize\n";
    let deck = parse_deck("deckstats.txt", deckstats).unwrap();
    assert_eq!((deck.main_count(), deck.sideboard_count()), (8, 2));

    let repeated = "2 Lightning Bolt\n2 lightning bolt\n2 Lightning Bolt\n";
    assert_eq!(parse_deck("r.txt", repeated).unwrap().main, entries(&[(4, "Lightning Bolt"), (2, "lightning bolt")]));
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
