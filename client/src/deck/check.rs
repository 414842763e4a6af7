//! Deck checks: what a player would want to hear about a deck before a game, said as warnings and never as
//! refusals, because the table enforces no format (a cube, a house rule or a playtest card are the players' call).
//!
//! Without a card database, a deck's size is checked against its format; with one (`fairdeck cards import`), every
//! name is looked up, with the nearest real names for one not found, and copies are counted against the format's
//! limit, which basic lands and cards whose oracle text allows more are exempt from.

use std::fmt;

use serde::Serialize;

use super::lines::{COUNT_WORDS, MAX_SIDEBOARD};
use super::{Deck, ReadDeck};
use crate::cards::{Card, CardsError, Database};

/// Something about a deck worth a second look, which does not stop it being played.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DeckWarning {
    pub kind: WarningKind,
    /// The file's line (from 1), when one line is at fault.
    pub line: Option<usize>,
    pub message: String,
}

impl fmt::Display for DeckWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "line {line}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

/// What a [`DeckWarning`] is about, for scripts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WarningKind {
    /// Blank lines that Cockatrice would read as the start of a sideboard, and fairdeck reads otherwise or doubts.
    BlankLines,
    /// A name the card database does not know.
    UnknownCard,
    /// A main deck (or a Commander deck) of another size than its format's.
    DeckSize,
    /// A sideboard longer than its format allows.
    SideboardSize,
    /// More copies of a card than its format allows.
    Copies,
    /// The card database could not be read: names and copies went unchecked.
    Database,
}

/// The format a deck is checked against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeckFormatRule {
    /// At least 60 cards, a sideboard of at most 15, at most 4 copies of a card.
    Constructed,
    /// At least 40 cards, any number of copies (the pool decides).
    Limited,
    /// Exactly 100 cards with the commanders, one copy of each card.
    Commander,
}

impl DeckFormatRule {
    /// A deck with a commander is a Commander deck; others are constructed unless `limited` says so.
    pub fn of(deck: &Deck, limited: bool) -> Self {
        if !deck.commander.is_empty() {
            DeckFormatRule::Commander
        } else if limited {
            DeckFormatRule::Limited
        } else {
            DeckFormatRule::Constructed
        }
    }

    /// The most copies of one card, basic lands and cards that say otherwise aside.
    fn copies(self) -> Option<u32> {
        match self {
            DeckFormatRule::Constructed => Some(4),
            DeckFormatRule::Limited => None,
            DeckFormatRule::Commander => Some(1),
        }
    }
}

/// The deck's warnings: its file's own (`read.warnings`), its size against `rule`, and with a `database`, its names
/// and copies.
pub fn check_deck(read: &ReadDeck, rule: DeckFormatRule, database: Option<&mut Database>) -> Vec<DeckWarning> {
    let mut warnings = read.warnings.clone();
    warnings.extend(size_warnings(&read.deck, rule));
    if let Some(database) = database {
        warnings.extend(card_warnings(read, rule, database));
    }
    warnings
}

/// [`check_deck`] with the card database of this process's environment, if one was imported: a database that is
/// there but unreadable is a warning of its own, and the checks that need none are made.
pub fn check_deck_here(read: &ReadDeck, rule: DeckFormatRule) -> Vec<DeckWarning> {
    match crate::cards::database_path_from_env().and_then(|path| Database::open(&path)) {
        Ok(mut database) => check_deck(read, rule, Some(&mut database)),
        Err(CardsError::NoDatabase(_) | CardsError::NoDataDir) => check_deck(read, rule, None),
        Err(error) => {
            let mut warnings = check_deck(read, rule, None);
            warnings.push(unchecked(&error));
            warnings
        }
    }
}

/// The database failed: what goes unchecked.
fn unchecked(error: &CardsError) -> DeckWarning {
    let message = format!("{error}: card names and copies are not checked");
    DeckWarning { kind: WarningKind::Database, line: None, message }
}

fn size_warnings(deck: &Deck, rule: DeckFormatRule) -> Vec<DeckWarning> {
    let warning = |kind, message| DeckWarning { kind, line: None, message };
    let (main, side) = (deck.main_count(), deck.sideboard_count());
    let mut warnings = Vec::new();
    match rule {
        DeckFormatRule::Commander => {
            let total = main + deck.commander_count();
            if total != 100 {
                let message = format!("the deck has {total} cards with its commander: a Commander deck has 100");
                warnings.push(warning(WarningKind::DeckSize, message));
            }
        }
        DeckFormatRule::Constructed | DeckFormatRule::Limited => {
            let least = if rule == DeckFormatRule::Limited { 40 } else { 60 };
            if main < least {
                let format = if rule == DeckFormatRule::Limited { "a limited" } else { "a constructed" };
                let message = format!("the main deck has {main} cards: {format} deck has at least {least}");
                warnings.push(warning(WarningKind::DeckSize, message));
            }
            if rule == DeckFormatRule::Constructed && side > MAX_SIDEBOARD {
                let message = format!("the sideboard has {side} cards: at most {MAX_SIDEBOARD}");
                warnings.push(warning(WarningKind::SideboardSize, message));
            }
        }
    }
    warnings
}

/// Each name looked up, in the file's order; copies counted over the main deck and sideboard together.
fn card_warnings(read: &ReadDeck, rule: DeckFormatRule, database: &mut Database) -> Vec<DeckWarning> {
    let deck = &read.deck;
    let mut warnings = Vec::new();
    let mut names: Vec<&str> = Vec::new();
    for entry in deck.commander.iter().chain(&deck.main).chain(&deck.sideboard) {
        if !names.contains(&entry.name.as_str()) {
            names.push(&entry.name);
        }
    }
    for name in names {
        let line = read.line_of(name);
        let card = match database.find(name) {
            Ok(card) => card,
            Err(error @ CardsError::Unknown { .. }) => {
                warnings.push(DeckWarning { kind: WarningKind::UnknownCard, line, message: error.to_string() });
                continue;
            }
            Err(error) => {
                warnings.push(unchecked(&error));
                break;
            }
        };
        let copies: u32 = deck
            .main
            .iter()
            .chain(&deck.sideboard)
            .chain(&deck.commander)
            .filter(|e| e.name == name)
            .map(|e| e.count)
            .sum();
        if let Some(most) = rule.copies().and_then(|most| copy_limit(&card, most))
            && copies > most
        {
            let message = format!("{copies} copies of {}: at most {most} in this format", card.name());
            warnings.push(DeckWarning { kind: WarningKind::Copies, line, message });
        }
    }
    warnings
}

/// The most copies of `card` a deck may hold where the format allows `most`: no limit for a basic land or a card
/// that says "any number", its own number for one that says "up to seven".
fn copy_limit(card: &Card, most: u32) -> Option<u32> {
    let face = card.faces().first()?;
    if face.type_line.starts_with("Basic ") {
        return None;
    }
    let text = face.text.as_deref().unwrap_or_default();
    if text.contains("A deck can have any number of cards named") {
        return None;
    }
    let Some(rest) = text.split("A deck can have up to ").nth(1) else { return Some(most) };
    let word = rest.split(' ').next().unwrap_or_default();
    Some(COUNT_WORDS.iter().position(|n| *n == word).map_or(most, |at| at as u32 + 1).max(most))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::deck::read_deck;

    const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/AtomicCards.json");

    /// The fixture's database, imported into a scratch folder that lives as long as it is used.
    fn database() -> (tempfile::TempDir, Database) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cards.db");
        crate::cards::import_file(FIXTURE.as_ref(), &path).unwrap();
        let database = Database::open(&path).unwrap();
        (dir, database)
    }

    fn kinds(warnings: &[DeckWarning]) -> Vec<(WarningKind, Option<usize>)> {
        warnings.iter().map(|w| (w.kind, w.line)).collect()
    }

    fn check(text: &str, database: Option<&mut Database>) -> Vec<DeckWarning> {
        let read = read_deck("deck.txt", text).unwrap();
        check_deck(&read, DeckFormatRule::of(&read.deck, false), database)
    }

    const BURN: &str = "4 Goblin Guide\n4 Lightning Bolt\n4 Lava Spike\n4 Rift Bolt\n4 Monastery Swiftspear\n\
        4 Eidolon of the Great Revel\n4 Skewer the Critics\n4 Boros Charm\n4 Lightning Helix\n4 Skullcrack\n\
        4 Inspiring Vantage\n4 Sacred Foundry\n12 Mountain\n\nSideboard\n3 Kor Firewalker\n";

    #[test]
    fn a_good_deck_has_no_warning_with_or_without_a_database() {
        let (_dir, mut database) = database();
        assert_eq!(check(BURN, Some(&mut database)), []);
        assert_eq!(check(BURN, None), []);
    }

    #[test]
    fn unknown_names_are_told_with_their_line_and_the_nearest_real_names() {
        let (_dir, mut database) = database();
        let text = BURN.replace("4 Lava Spike", "4 Lava Spyke").replace("4 Goblin Guide", "4 Goblin Gide");
        let warnings = check(&text, Some(&mut database));
        assert_eq!(kinds(&warnings), [(WarningKind::UnknownCard, Some(1)), (WarningKind::UnknownCard, Some(3))]);
        assert!(warnings[0].to_string().starts_with("line 1: no card named \"Goblin Gide\""), "{}", warnings[0]);
        assert!(warnings[0].message.ends_with("did you mean Goblin Guide?"), "{}", warnings[0]);
        assert!(warnings[1].message.ends_with("did you mean Lava Spike?"), "{}", warnings[1]);
        // Without a database, a name is a name.
        assert_eq!(check(&text, None), []);
    }

    #[test]
    fn copies_beyond_four_are_told_but_basic_lands_are_exempt() {
        let (_dir, mut database) = database();
        // Four in the main deck and one in the sideboard: five of the 75.
        let text = format!("{BURN}1 Lightning Bolt\n");
        let warnings = check(&text, Some(&mut database));
        assert_eq!(kinds(&warnings), [(WarningKind::Copies, Some(2))]);
        assert_eq!(warnings[0].message, "5 copies of Lightning Bolt: at most 4 in this format");
        // Copies are counted only with the card database, which knows what is basic.
        assert_eq!(check(&text, None), []);
    }

    #[test]
    fn sizes_are_checked_against_the_format_without_a_database() {
        let eight = check("4 Goblin Guide\n4 Lightning Bolt\n", None);
        assert_eq!(kinds(&eight), [(WarningKind::DeckSize, None)]);
        assert_eq!(eight[0].message, "the main deck has 8 cards: a constructed deck has at least 60");
        let long_sideboard = format!("{BURN}13 Path to Exile\n");
        assert_eq!(kinds(&check(&long_sideboard, None)), [(WarningKind::SideboardSize, None)]);
        let read = read_deck("deck.txt", "16 Mountain\n24 Goblin Guide\n").unwrap();
        assert_eq!(check_deck(&read, DeckFormatRule::Limited, None), [], "40 cards, any copies, in limited play");
    }

    #[test]
    fn a_commander_deck_has_100_cards_and_one_copy_of_each() {
        let (_dir, mut database) = database();
        let text = "Commander\n1 Krenko, Mob Boss\n\nDeck\n2 Sol Ring\n97 Mountain\n";
        let warnings = check(text, Some(&mut database));
        assert_eq!(kinds(&warnings), [(WarningKind::Copies, Some(5))]);
        assert_eq!(warnings[0].message, "2 copies of Sol Ring: at most 1 in this format");
        let short = check("Commander\n1 Krenko, Mob Boss\n\nDeck\n1 Sol Ring\n90 Mountain\n", None);
        assert_eq!(short[0].message, "the deck has 92 cards with its commander: a Commander deck has 100");
    }

    #[test]
    fn a_card_that_says_so_may_have_more_copies() {
        let card = |text: &str, type_line: &str| -> Card {
            serde_json::from_value(serde_json::json!({"name": "Card", "faces": [{
                "name": "Card", "mana_cost": null, "type_line": type_line, "text": text,
                "power": null, "toughness": null, "loyalty": null,
            }]}))
            .unwrap()
        };
        let rats =
            card("Other Rats get +1/+0.\nA deck can have any number of cards named Relentless Rats.", "Creature");
        assert_eq!(copy_limit(&rats, 4), None);
        let dwarves = card("A deck can have up to seven cards named Seven Dwarves.", "Creature — Dwarf");
        assert_eq!((copy_limit(&dwarves, 4), copy_limit(&dwarves, 1)), (Some(7), Some(7)));
        assert_eq!(copy_limit(&card("", "Basic Snow Land — Mountain"), 4), None);
        assert_eq!(copy_limit(&card("Flying", "Creature"), 4), Some(4));
    }

    #[test]
    fn a_damaged_database_is_said_and_the_other_checks_are_made() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cards.db");
        std::fs::write(&path, b"not a database").unwrap();
        let error = Database::open(&path).err().unwrap();
        assert_eq!(unchecked(&error).kind, WarningKind::Database);
        assert!(unchecked(&error).message.ends_with("card names and copies are not checked"));
    }
}
