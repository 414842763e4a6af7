//! Building a limited deck from the pool at the table (`add`, `remove`, `basics`, `pool`, `done`): the pool as
//! the engine dealt it, the cards of it the player put in its deck and its basic lands, counted by name. No I/O:
//! the session shows what it answers, writes the deck file and hands the deck to the engine. And the pack a booster
//! draft shows, which `pick N` and `pick NAME` read.

use std::collections::BTreeMap;

use fairdeck_shared::engine::{DeckList, Event};
use fairdeck_shared::wire::{BasicLand, PoolHash};
use serde::Serialize;

use crate::command::{ErrorKind, PackCard};
use crate::deck::{Deck, DeckEntry};

/// What the session knows of its limited match for building: the pool file's hash (for the deck file's name) and,
/// once dealt, the build; in a booster draft, the pack shown to pick from (`pick` reads it). All come from the
/// engine's events.
#[derive(Debug, Default)]
pub struct Limited {
    pool_hash: Option<PoolHash>,
    build: Option<Build>,
    pack: Option<Vec<String>>,
}

impl Limited {
    /// Takes in an engine event: the limited match agreed (the pool file's hash), the pool dealt (a new build), a
    /// pack shown, or taken from by this player (its card named to it alone).
    pub fn see(&mut self, event: &Event) {
        match event {
            Event::LimitedAgreed { pool, .. } => self.pool_hash = Some(*pool),
            Event::Pool { cards } => {
                self.build = Some(Build::new(cards));
                self.pack = None;
            }
            Event::Pack { cards, .. } => self.pack = Some(cards.clone()),
            Event::CardTaken { card: Some(_), .. } => self.pack = None,
            _ => {}
        }
    }

    /// The card `pick` means in the pack shown, from 0 as the engine counts: by its number, else its name (any
    /// case; the first of copies).
    pub fn pack_card(&self, card: &PackCard) -> Result<u32, Refusal> {
        let Some(pack) = &self.pack else {
            return Err((ErrorKind::Refused, "no pack is shown to pick from: the next comes when it is passed".into()));
        };
        let listing = || pack.iter().enumerate().map(|(n, card)| format!("{} {card}", n + 1)).collect::<Vec<_>>();
        let found = match card {
            PackCard::Number(n) => n.checked_sub(1).filter(|&n| (n as usize) < pack.len()),
            PackCard::Name(name) => {
                let wanted = name.trim().to_lowercase();
                pack.iter().position(|card| card.to_lowercase() == wanted).map(|n| n as u32)
            }
        };
        found.ok_or_else(|| {
            let wanted = match card {
                PackCard::Number(n) => format!("no card {n}"),
                PackCard::Name(name) => format!("no card named {name:?}"),
            };
            (ErrorKind::UnknownCard, format!("the pack holds {wanted}: {}", listing().join(", ")))
        })
    }

    /// The pool file's hash, once the match is agreed.
    pub fn pool_hash(&self) -> Option<PoolHash> {
        self.pool_hash
    }

    /// The build, once the pool is dealt.
    pub fn build(&self) -> Option<&Build> {
        self.build.as_ref()
    }

    pub fn build_mut(&mut self) -> Result<&mut Build, String> {
        self.build.as_mut().ok_or_else(|| "no pool is dealt: deck building is for limited play".to_string())
    }
}

/// One player's deck taking shape from its pool: pool cards by name (the spelling of the pool), and basic lands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Build {
    /// Copies of each card in the pool.
    pool: BTreeMap<String, u32>,
    /// Copies of each pool card in the deck: never more than the pool's.
    deck: BTreeMap<String, u32>,
    basics: BTreeMap<BasicLand, u32>,
}

/// How the deck stands: pool cards in it, basic lands, pool cards left for the sideboard.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Tally {
    pub cards: u32,
    pub lands: u32,
    pub left: u32,
}

/// One name of the pool, as `pool` lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PoolLine {
    pub name: String,
    /// Copies in the pool.
    pub copies: u32,
    /// Of which in the deck.
    pub in_deck: u32,
}

/// Why a build command was refused: the error event's kind and the words.
pub type Refusal = (ErrorKind, String);

impl Build {
    /// An empty deck from the pool `cards`, one entry per copy.
    pub fn new(cards: &[String]) -> Build {
        let mut pool = BTreeMap::new();
        for card in cards {
            *pool.entry(card.clone()).or_default() += 1;
        }
        Build { pool, deck: BTreeMap::new(), basics: BTreeMap::new() }
    }

    /// `add N NAME`: N more copies of a pool card, or of a basic land the pool does not hold.
    pub fn add(&mut self, count: u32, name: &str) -> Result<Tally, Refusal> {
        let card = match self.find(name) {
            Ok(card) => card,
            Err(refusal) => return self.change_basics(name, count as i64).ok_or(refusal),
        };
        let copies = self.pool[&card];
        let in_deck = self.deck.get(&card).copied().unwrap_or(0);
        if in_deck.saturating_add(count) > copies {
            let holds = if copies == 1 { "1 copy".to_string() } else { format!("{copies} copies") };
            return Err((ErrorKind::NotInPool, format!("your pool holds {holds} of {card}, {in_deck} in the deck")));
        }
        self.deck.insert(card, in_deck + count);
        Ok(self.tally())
    }

    /// `remove N NAME`: N copies out of the deck, back to the sideboard (a basic land just goes).
    pub fn remove(&mut self, count: u32, name: &str) -> Result<Tally, Refusal> {
        let card = match self.find(name) {
            Ok(card) => card,
            Err(refusal) => return self.change_basics(name, -(count as i64)).ok_or(refusal),
        };
        let in_deck = self.deck.get(&card).copied().unwrap_or(0);
        if count > in_deck {
            return Err((ErrorKind::Refused, format!("your deck holds {in_deck} of {card}")));
        }
        match in_deck - count {
            0 => self.deck.remove(&card),
            left => self.deck.insert(card, left),
        };
        Ok(self.tally())
    }

    /// `add all`: every card of the pool in the deck (its basic lands as they were).
    pub fn add_pool(&mut self) -> Tally {
        self.deck = self.pool.clone();
        self.tally()
    }

    /// `remove all`: no card in the deck, pool card or basic land.
    pub fn remove_all(&mut self) -> Tally {
        self.deck.clear();
        self.basics.clear();
        self.tally()
    }

    /// `basics N LAND...`: the deck's basic lands are these, no others.
    pub fn set_basics(&mut self, lands: &[(u32, BasicLand)]) -> Tally {
        self.basics.clear();
        for &(count, land) in lands {
            if count > 0 {
                self.basics.insert(land, count);
            }
        }
        self.tally()
    }

    /// Changes a basic land's count by `change` if `name` is one (refused, `None`, for a count below zero).
    fn change_basics(&mut self, name: &str, change: i64) -> Option<Tally> {
        let land = BasicLand::named(name)?;
        let count = i64::from(self.basics.get(&land).copied().unwrap_or(0)) + change;
        match u32::try_from(count).ok()? {
            0 => self.basics.remove(&land),
            count => self.basics.insert(land, count),
        };
        Some(self.tally())
    }

    pub fn tally(&self) -> Tally {
        let cards = self.deck.values().sum();
        Tally { cards, lands: self.basics.values().sum(), left: self.pool.values().sum::<u32>() - cards }
    }

    /// The pool by name, with how many of each are in the deck.
    pub fn listing(&self) -> Vec<PoolLine> {
        let line = |(name, &copies): (&String, &u32)| PoolLine {
            name: name.clone(),
            copies,
            in_deck: self.deck.get(name).copied().unwrap_or(0),
        };
        self.pool.iter().map(line).collect()
    }

    /// The deck as a deck file holds it: the pool cards and basic lands, then the rest of the pool as the sideboard.
    /// Refused while the deck holds no card.
    pub fn deck(&self) -> Result<Deck, Refusal> {
        if self.deck.is_empty() && self.basics.is_empty() {
            return Err((ErrorKind::Refused, "the deck is empty: `add` cards of your pool first".into()));
        }
        let entry = |(name, count): (&String, u32)| DeckEntry { count, name: name.clone() };
        let mut main: Vec<DeckEntry> = self.deck.iter().map(|(name, &count)| entry((name, count))).collect();
        for (land, &count) in &self.basics {
            // A pool that holds this land already lists it: the engine takes pool copies first, then basics.
            match main.iter_mut().find(|e| e.name == land.name()) {
                Some(listed) => listed.count += count,
                None => main.push(DeckEntry { count, name: land.name().to_string() }),
            }
        }
        let left = |(name, &copies): (&String, &u32)| {
            let count = copies - self.deck.get(name).copied().unwrap_or(0);
            (count > 0).then(|| entry((name, count)))
        };
        Ok(Deck { main, sideboard: self.pool.iter().filter_map(left).collect(), commander: vec![] })
    }

    /// Takes the deck the engine took (from a deck file, `build FILE` or `new-game FILE`): its library's pool
    /// cards, up to the pool's copies, and its basic lands; what else it names the engine refused.
    pub fn follow(&mut self, deck: &DeckList) {
        self.deck.clear();
        self.basics.clear();
        for card in &deck.library {
            let in_deck = self.deck.get(&card.name).copied().unwrap_or(0);
            if self.pool.get(&card.name).is_some_and(|&copies| in_deck < copies) {
                self.deck.insert(card.name.clone(), in_deck + 1);
            } else if let Some(land) = BasicLand::named(&card.name) {
                *self.basics.entry(land).or_default() += 1;
            }
        }
    }

    /// The pool card `name` means: the name itself, any case, else the one name it begins; refused with the
    /// candidates when it is no card's, or several's.
    fn find(&self, name: &str) -> Result<String, Refusal> {
        let wanted = name.trim().to_lowercase();
        if let Some(exact) = self.pool.keys().find(|card| card.to_lowercase() == wanted) {
            return Ok(exact.clone());
        }
        let starting: Vec<&String> = self.pool.keys().filter(|card| card.to_lowercase().starts_with(&wanted)).collect();
        match starting[..] {
            [card] => Ok(card.clone()),
            [] => {
                let within: Vec<&String> =
                    self.pool.keys().filter(|card| card.to_lowercase().contains(&wanted)).collect();
                let hint = if within.is_empty() { String::new() } else { format!(": perhaps {}", names(&within)) };
                Err((ErrorKind::UnknownCard, format!("your pool holds no card named {name:?}{hint}")))
            }
            _ => Err((ErrorKind::AmbiguousCard, format!("{name:?} may be {}", names(&starting)))),
        }
    }
}

/// Up to eight names, quoted, and how many more.
fn names(cards: &[&String]) -> String {
    const SHOWN: usize = 8;
    let mut text = cards.iter().take(SHOWN).map(|card| format!("{card:?}")).collect::<Vec<_>>().join(", ");
    if cards.len() > SHOWN {
        text.push_str(&format!(" and {} more", cards.len() - SHOWN));
    }
    text
}

/// The deck file as plain text, which fairdeck (and Cockatrice) reads back: `N NAME` lines, then a `Sideboard`
/// section.
pub fn deck_text(deck: &Deck) -> String {
    let lines = |entries: &[DeckEntry]| entries.iter().map(|e| format!("{} {}\n", e.count, e.name)).collect::<String>();
    let mut text = lines(&deck.main);
    if !deck.sideboard.is_empty() {
        text.push_str("\nSideboard\n");
        text.push_str(&lines(&deck.sideboard));
    }
    text
}

/// The deck file's name: the day it was built (`YYYY-MM-DD`), the pool file's hash, and `number` past the first
/// of that day and pool, so that each deck built is kept.
pub fn deck_file_name(day: &str, pool: Option<PoolHash>, number: u32) -> String {
    let pool = pool.map_or_else(|| "pool".to_string(), |hash| format!("pool-{hash}"));
    match number {
        0 | 1 => format!("{day}-{pool}.txt"),
        n => format!("{day}-{pool}-{n}.txt"),
    }
}

#[cfg(test)]
mod tests {
    use fairdeck_shared::Seat;
    use fairdeck_shared::engine::DeckCard;

    use super::*;
    use crate::deck::parse_deck;

    fn pool() -> Build {
        let cards = ["Lightning Bolt", "Lightning Bolt", "Lightning Helix", "Goblin Guide", "Counterspell", "Mountain"];
        Build::new(&cards.map(String::from))
    }

    #[test]
    fn add_and_remove_count_the_deck_and_what_is_left() {
        let mut build = pool();
        assert_eq!(build.tally(), Tally { cards: 0, lands: 0, left: 6 });
        assert_eq!(build.add(2, "lightning bolt"), Ok(Tally { cards: 2, lands: 0, left: 4 }));
        assert_eq!(build.add(1, "GOB"), Ok(Tally { cards: 3, lands: 0, left: 3 }), "a unique prefix");
        assert_eq!(build.remove(1, "Lightning Bolt"), Ok(Tally { cards: 2, lands: 0, left: 4 }));
        let listing = build.listing();
        let bolt = listing.iter().find(|line| line.name == "Lightning Bolt").unwrap();
        assert_eq!((bolt.copies, bolt.in_deck), (2, 1));
        assert_eq!(listing.len(), 5, "one line per name");
    }

    #[test]
    fn the_whole_pool_goes_in_and_everything_comes_out() {
        let mut build = pool();
        build.add(1, "Lightning Bolt").unwrap();
        build.set_basics(&[(8, BasicLand::Mountain)]);
        assert_eq!(build.add_pool(), Tally { cards: 6, lands: 8, left: 0 }, "no copy twice; the lands stay");
        assert_eq!(build.add(1, "Goblin Guide").unwrap_err().0, ErrorKind::NotInPool);
        assert_eq!(build.remove_all(), Tally { cards: 0, lands: 0, left: 6 });
        assert_eq!(build.deck().unwrap_err().0, ErrorKind::Refused, "the deck is empty");
    }

    #[test]
    fn more_copies_than_the_pool_holds_are_refused_saying_how_many() {
        let mut build = pool();
        build.add(1, "Lightning Bolt").unwrap();
        let (kind, message) = build.add(2, "Lightning Bolt").unwrap_err();
        assert_eq!(kind, ErrorKind::NotInPool);
        assert!(message.contains("2 copies of Lightning Bolt, 1 in the deck"), "{message}");
        assert_eq!(build.tally().cards, 1, "nothing changed");
        assert_eq!(build.remove(2, "Lightning Bolt").unwrap_err().0, ErrorKind::Refused);
    }

    #[test]
    fn an_ambiguous_or_unknown_name_is_refused_with_the_candidates() {
        let mut build = pool();
        let (kind, message) = build.add(1, "lightning").unwrap_err();
        assert_eq!(kind, ErrorKind::AmbiguousCard);
        assert!(message.contains("\"Lightning Bolt\", \"Lightning Helix\""), "{message}");
        let (kind, message) = build.add(1, "Bolt").unwrap_err();
        assert_eq!(kind, ErrorKind::UnknownCard);
        assert!(message.contains("perhaps \"Lightning Bolt\""), "{message}");
        assert_eq!(build.add(1, "Black Lotus").unwrap_err().0, ErrorKind::UnknownCard);
    }

    #[test]
    fn basics_set_the_lands_and_add_takes_a_basic_the_pool_lacks() {
        let mut build = pool();
        build.set_basics(&[(8, BasicLand::Mountain), (9, BasicLand::Island)]);
        assert_eq!(build.tally().lands, 17);
        // The lands not named go: the command says all of them.
        assert_eq!(build.set_basics(&[(3, BasicLand::Swamp)]).lands, 3);
        assert_eq!(build.add(2, "island"), Ok(Tally { cards: 0, lands: 5, left: 6 }));
        assert_eq!(build.remove(2, "Island"), Ok(Tally { cards: 0, lands: 3, left: 6 }));
        assert_eq!(build.remove(1, "Island").unwrap_err().0, ErrorKind::UnknownCard);
        // The pool's own Mountain is a pool card.
        assert_eq!(build.add(1, "Mountain"), Ok(Tally { cards: 1, lands: 3, left: 5 }));
    }

    #[test]
    fn the_deck_file_reads_back_with_the_rest_of_the_pool_as_sideboard() {
        let mut build = pool();
        assert!(build.deck().is_err(), "an empty deck is not written");
        build.add(2, "Lightning Bolt").unwrap();
        build.add(1, "Mountain").unwrap();
        build.set_basics(&[(16, BasicLand::Mountain)]);
        let deck = build.deck().unwrap();
        let read = parse_deck("sealed.txt", &deck_text(&deck)).unwrap();
        assert_eq!(read, deck);
        assert_eq!(read.main_count(), 19);
        assert_eq!(read.main.iter().find(|e| e.name == "Mountain").map(|e| e.count), Some(17));
        assert_eq!(read.sideboard_count(), 3);
    }

    #[test]
    fn a_deck_taken_from_a_file_is_followed() {
        let mut build = pool();
        let card = |name: &str| DeckCard { name: name.into(), back: 0 };
        let library = vec![card("Goblin Guide"), card("Mountain"), card("Mountain"), card("Island")];
        build.follow(&DeckList { library, sideboard: vec![], commander: vec![], label: String::new() });
        assert_eq!(build.tally(), Tally { cards: 2, lands: 2, left: 4 });
    }

    #[test]
    fn pick_finds_a_card_of_the_pack_shown_until_this_player_takes_from_it() {
        let mut limited = Limited::default();
        let none = limited.pack_card(&PackCard::Number(1)).unwrap_err();
        assert_eq!(none.0, ErrorKind::Refused, "{none:?}");
        let cards = vec!["Lightning Bolt".to_string(), "Counterspell".into(), "Lightning Bolt".into()];
        limited.see(&Event::Pack { pack: 3, cards });
        assert_eq!(limited.pack_card(&PackCard::Number(2)), Ok(1));
        assert_eq!(limited.pack_card(&PackCard::Name(" lightning BOLT".into())), Ok(0));
        let (kind, message) = limited.pack_card(&PackCard::Number(4)).unwrap_err();
        assert_eq!(kind, ErrorKind::UnknownCard);
        assert!(message.contains("no card 4") && message.contains("2 Counterspell"), "{message}");
        let (_, message) = limited.pack_card(&PackCard::Name("Bolt".into())).unwrap_err();
        assert!(message.contains("no card named \"Bolt\""), "{message}");
        // The other player's pick leaves the pack shown; this player's takes it away.
        limited.see(&Event::CardTaken { by: Seat::HOST, pack: 2, card: None });
        assert_eq!(limited.pack_card(&PackCard::Number(3)), Ok(2));
        limited.see(&Event::CardTaken { by: Seat::GUEST, pack: 3, card: Some("Counterspell".into()) });
        assert_eq!(limited.pack_card(&PackCard::Number(1)).unwrap_err().0, ErrorKind::Refused);
    }

    #[test]
    fn the_events_start_the_build() {
        let mut limited = Limited::default();
        assert!(limited.build_mut().is_err());
        let hash = PoolHash([7; 32]);
        limited.see(&Event::LimitedAgreed {
            format: fairdeck_shared::wire::LimitedFormat::Sealed { cards: 5 },
            pool: hash,
        });
        limited.see(&Event::Pool { cards: vec!["Counterspell".into()] });
        assert_eq!(limited.pool_hash(), Some(hash));
        assert_eq!(limited.build().map(Build::tally), Some(Tally { cards: 0, lands: 0, left: 1 }));
        assert_eq!(deck_file_name("2026-11-26", Some(hash), 1), "2026-11-26-pool-0707070707070707.txt");
        assert_eq!(deck_file_name("2026-11-26", Some(hash), 2), "2026-11-26-pool-0707070707070707-2.txt");
    }
}
