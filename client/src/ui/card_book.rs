//! What the table knows of cards from the card database (`fairdeck cards import`): each name's kind, for
//! ordering the board, and a card's text for `card NAME`. Without a database only basic lands are known, by
//! name; the table works as before.

use std::collections::HashMap;
use std::path::PathBuf;

use fairdeck_shared::wire::BasicLand;

use crate::cards::{CardsError, Database, to_text};

/// What kind of card a name is, as far as the table knows: the board shows creatures first and lands in a
/// compact row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Creature,
    /// Known, and neither a creature nor a land.
    Other,
    /// Not in the database, or no database.
    Unknown,
    Land,
}

/// The card database as the table reads it, and what it said of each name so far.
#[derive(Clone, Debug, Default)]
pub struct CardBook {
    /// The database file; `None` where no data folder is known.
    path: Option<PathBuf>,
    kinds: HashMap<String, Kind>,
}

impl CardBook {
    pub fn new(path: Option<PathBuf>) -> Self {
        CardBook { path, kinds: HashMap::new() }
    }

    /// The kind of the card named `name`, as learnt; a name not learnt is known only if it is a basic land's.
    pub fn kind(&self, name: &str) -> Kind {
        self.kinds.get(name).copied().unwrap_or_else(|| if is_basic_land(name) { Kind::Land } else { Kind::Unknown })
    }

    /// Looks up the names not seen before, opening the database once for all of them.
    pub fn learn<'a>(&mut self, names: impl Iterator<Item = &'a str>) {
        let new: Vec<&str> = names.filter(|name| !self.kinds.contains_key(*name)).collect();
        if new.is_empty() {
            return;
        }
        let mut database = self.path.as_deref().and_then(|path| Database::open(path).ok());
        for name in new {
            let kind = match database.as_mut().map(|db| db.find(name)) {
                Some(Ok(card)) => kind_of(&card.faces()[0].type_line),
                _ => self.kind(name),
            };
            self.kinds.insert(name.to_string(), kind);
        }
    }

    /// `card NAME`: the card's text, both faces of a double-faced card; or why there is none (no database, an
    /// unknown name with the nearest real ones).
    pub fn text(&self, name: &str) -> Result<String, String> {
        let path = self.path.as_deref().ok_or_else(|| CardsError::NoDataDir.to_string())?;
        let mut database = Database::open(path).map_err(|error| error.to_string())?;
        database.find(name).map(|card| to_text(&card)).map_err(|error| error.to_string())
    }
}

/// A kind from a type line: a land creature is a creature (it attacks).
fn kind_of(type_line: &str) -> Kind {
    let words: Vec<&str> = type_line.split_whitespace().collect();
    if words.contains(&"Creature") {
        Kind::Creature
    } else if words.contains(&"Land") {
        Kind::Land
    } else {
        Kind::Other
    }
}

/// A basic land's name, snow-covered or not: the one kind the table tells without a database.
fn is_basic_land(name: &str) -> bool {
    let name = name.strip_prefix("Snow-Covered ").unwrap_or(name);
    BasicLand::named(name).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_a_database_only_basic_lands_are_known() {
        let mut book = CardBook::new(None);
        book.learn(["Mountain", "Snow-Covered Island", "Goblin Guide", "Sacred Foundry"].into_iter());
        assert_eq!(book.kind("Mountain"), Kind::Land);
        assert_eq!(book.kind("Snow-Covered Island"), Kind::Land);
        assert_eq!(book.kind("Goblin Guide"), Kind::Unknown);
        assert_eq!(book.kind("Sacred Foundry"), Kind::Unknown);
        assert!(book.text("Mountain").unwrap_err().contains("neither XDG_DATA_HOME nor HOME"));
    }

    #[test]
    fn kinds_come_from_the_type_line() {
        assert_eq!(kind_of("Enchantment Creature — Spirit"), Kind::Creature);
        assert_eq!(kind_of("Land Creature — Forest Dryad"), Kind::Creature);
        assert_eq!(kind_of("Land — Mountain Plains"), Kind::Land);
        assert_eq!(kind_of("Legendary Planeswalker — Chandra"), Kind::Other);
    }
}
