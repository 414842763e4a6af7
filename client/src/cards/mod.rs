//! The card database: oracle text from MTGJSON's AtomicCards file, kept on disk so a player can read a card
//! without a browser.
//!
//! `input.rs` opens the file a player gives (plain JSON, or gzip, bzip2 or xz, as MTGJSON publishes it) within
//! size limits; `atomic.rs` reads MTGJSON's shape into [`Card`]s, refusing a bad file with its JSON path;
//! `store.rs` writes the compact database atomically and reads one card back without decoding the rest, its
//! names found in place through `index.rs`;
//! `suggest.rs` finds the nearest real names for a typo; `show.rs` prints a card as text or JSON; `update.rs`
//! downloads MTGJSON's file over HTTPS, checks its published SHA-256 and imports it.
//! Nothing else in fairdeck needs the database: without one, every other command works as before.

mod atomic;
mod index;
mod input;
mod show;
mod store;
mod suggest;
mod update;

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub(crate) use atomic::{MAX_CARDS, MAX_FACES};
pub(crate) use input::MAX_INPUT_BYTES;
pub use show::{imported_text, updated_text};
pub(crate) use show::{to_json, to_text};
pub use store::Database;
pub(crate) use store::{Header, Imported};
pub(crate) use suggest::nearest;
pub(crate) use update::Updated;
pub use update::{MTGJSON_URL, update};

/// The database's file name inside the cards folder.
pub(crate) const DATABASE_FILE: &str = "cards.db";

/// One card: its full name (`Front // Back` for a card of several faces) and its faces, front first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Card {
    name: String,
    /// Never empty: a card with no face is refused on import.
    faces: Vec<Face>,
}

impl Card {
    /// The full name, as a deck file names the card.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The faces, front first: one for most cards, two or more for double-faced, split and adventure cards.
    pub fn faces(&self) -> &[Face] {
        &self.faces
    }
}

/// One face of a card, as its oracle text gives it. Absent fields are `None` (a land has no mana cost; a
/// back face usually has none either).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Face {
    pub name: String,
    pub mana_cost: Option<String>,
    pub type_line: String,
    pub text: Option<String>,
    pub power: Option<String>,
    pub toughness: Option<String>,
    pub loyalty: Option<String>,
}

/// Why the card database could not be imported or read. Each names its file.
#[derive(Debug, thiserror::Error)]
pub enum CardsError {
    #[error("cannot tell where the card database goes: neither XDG_DATA_HOME nor HOME is set")]
    NoDataDir,
    #[error(
        "no card database in {0}: download MTGJSON's AtomicCards with `fairdeck cards update`, or import the file \
         with `fairdeck cards import FILE`"
    )]
    NoDatabase(String),
    #[error("cannot read {path}: {reason}")]
    Read { path: String, reason: String },
    #[error("{path} is not an AtomicCards file: {reason}")]
    Malformed { path: String, reason: String },
    #[error("cannot write the card database {path}: {reason} (the previous database, if any, is kept)")]
    Write { path: String, reason: String },
    #[error("the card database {path} is damaged: {reason}; import the AtomicCards file again")]
    Damaged { path: String, reason: String },
    #[error("no card named {name:?} in the card database{}", did_you_mean(.suggestions))]
    Unknown { name: String, suggestions: Vec<String> },
    #[error(
        "refusing {0}: the card database is downloaded over https:// only, since its checksum would come over the \
         same unauthenticated connection and vouch for nothing"
    )]
    NotHttps(String),
    #[error("cannot download {url}: {reason} (the previous database, if any, is kept)")]
    Download { url: String, reason: String },
    #[error(
        "{url} does not match the SHA-256 published beside it (published {published}, downloaded {actual}): \
         refused, and the previous database, if any, is kept"
    )]
    Checksum { url: String, published: String, actual: String },
    #[error(transparent)]
    Ca(#[from] crate::tls::CaError),
}

/// "; did you mean Goblin Guide?", or nothing without a suggestion.
fn did_you_mean(suggestions: &[String]) -> String {
    match suggestions {
        [] => String::new(),
        [one] => format!("; did you mean {one}?"),
        [rest @ .., last] => format!("; did you mean {} or {last}?", rest.join(", ")),
    }
}

/// Where the card database goes: `$XDG_DATA_HOME/fairdeck/cards`, else `$HOME/.local/share/fairdeck/cards`,
/// found as saved games are.
pub(crate) fn cards_dir(get: impl Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    crate::save::data_dir(get).map(|dir| dir.join("cards"))
}

/// The database file of this process's environment.
pub fn database_path_from_env() -> Result<PathBuf, CardsError> {
    cards_dir(|name| std::env::var_os(name)).map(|dir| dir.join(DATABASE_FILE)).ok_or(CardsError::NoDataDir)
}

/// `fairdeck cards import FILE`: reads the AtomicCards file and replaces the database at `database` with it,
/// atomically; a bad file leaves the previous database as it was.
pub fn import_file(file: &Path, database: &Path) -> Result<Imported, CardsError> {
    let source = std::path::absolute(file).unwrap_or_else(|_| file.to_path_buf());
    import(file, source.display().to_string(), database)
}

/// Reads the AtomicCards file `file` and replaces the database with it, recording `source` (the file's path or
/// the URL it was downloaded from) as where it came from, and naming it in a refusal.
fn import(file: &Path, source: String, database: &Path) -> Result<Imported, CardsError> {
    let json = input::read(file)?;
    let (meta, cards) =
        atomic::parse(&json).map_err(|reason| CardsError::Malformed { path: source.clone(), reason })?;
    drop(json);
    store::write(database, meta, source, &cards)
}

/// `fairdeck cards`: what the database holds, or that there is none.
pub fn status_text(database: &Path) -> Result<String, CardsError> {
    match Database::open(database) {
        Ok(db) => Ok(show::status(db.header(), database, db.file_bytes())),
        Err(CardsError::NoDatabase(_)) => Ok(format!(
            "No card database in {}.\nDownload MTGJSON's AtomicCards with `fairdeck cards update`, or import the \
             file (plain, .gz, .bz2 or .xz) with `fairdeck cards import FILE`.",
            database.display()
        )),
        Err(error) => Err(error),
    }
}

/// `fairdeck card NAME [--json]`: the card named `name` (its full name or a face's, in any case), printed.
pub fn show_card(database: &Path, name: &str, json: bool) -> anyhow::Result<String> {
    let card = Database::open(database)?.find(name)?;
    if json { Ok(to_json(&card)?) } else { Ok(to_text(&card)) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_database_lives_in_the_data_folder() {
        let at = |vars: &[(&str, &str)]| {
            let vars: Vec<(String, OsString)> = vars.iter().map(|(k, v)| (k.to_string(), OsString::from(v))).collect();
            cards_dir(|name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()))
        };
        assert_eq!(at(&[("HOME", "/home/ada"), ("XDG_DATA_HOME", "/xdg")]), Some(PathBuf::from("/xdg/fairdeck/cards")));
        assert_eq!(at(&[("HOME", "/home/ada")]), Some(PathBuf::from("/home/ada/.local/share/fairdeck/cards")));
        assert_eq!(at(&[("XDG_DATA_HOME", "relative")]), None);
    }

    #[test]
    fn suggestions_are_said_as_a_question() {
        let names = |names: &[&str]| names.iter().map(|name| name.to_string()).collect::<Vec<_>>();
        assert_eq!(did_you_mean(&[]), "");
        assert_eq!(did_you_mean(&names(&["Goblin Guide"])), "; did you mean Goblin Guide?");
        assert_eq!(did_you_mean(&names(&["A", "B", "C"])), "; did you mean A, B or C?");
    }
}
