//! Deck files: reading the lists players already keep, in the formats of the programs they already use.
//!
//! Line formats (plain text, MTG Arena, `.dec`, Magic Workstation `.mwDeck`, XMage and Forge `.dck`) share one
//! reader that follows Cockatrice's plain-text import (`lines.rs`, names in `name.rs`), so a list shows the
//! same deck hash (`hash.rs`) here as in Cockatrice; Cockatrice `.cod` and MTGO `.dek` are XML (`xml.rs`).
//! Every error names the line (and column where it helps) and what was expected, because a player fixing a
//! deck file needs to know where to look. `show.rs` prints a deck as read, for `fairdeck deck`.

mod check;
mod hash;
mod lines;
mod name;
mod show;
mod sideboard;
mod xml;

use std::fmt;
use std::path::Path;

use fairdeck_shared::engine::{DeckCard, DeckList};

pub use check::WarningKind;
pub(crate) use check::{DeckFormatRule, DeckWarning, check_deck_here};
pub use hash::cockatrice_hash;
pub use show::show_file;
pub(crate) use sideboard::{Swap, Swapped, parse_swap, sideboard, sideboarded_text};

/// Longest card name accepted, in bytes: the engine's catalogue limit.
pub const MAX_NAME_BYTES: usize = fairdeck_shared::crypto::MAX_NAME_LEN;
/// Longest card line (or `.dek` name) read, in bytes: far above any real one, and a bound on the work of
/// reading a line.
pub(crate) const MAX_LINE_BYTES: usize = 1000;
/// Largest count on one line.
pub(crate) const MAX_COUNT: u32 = 1000;
/// Largest deck, every section together (Cockatrice's limit too).
pub(crate) const MAX_DECK_CARDS: u32 = 1000;

/// One line of a deck list: `count` copies of the card `name`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeckEntry {
    pub count: u32,
    pub name: String,
}

/// A parsed deck. Entries keep the file's order; repeated names within a section are merged.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Deck {
    pub main: Vec<DeckEntry>,
    pub sideboard: Vec<DeckEntry>,
    /// A Commander deck's commander(s), kept apart from the main deck: they start the game in the command zone,
    /// never in the library.
    pub commander: Vec<DeckEntry>,
}

impl Deck {
    /// The engine's deck: one `DeckCard` per copy of the main deck (the library), of the sideboard and of the
    /// commanders (face up in the command zone, never shuffled into the library), all with the default card back;
    /// labelled with the deck's Cockatrice hash, which both players see at the start of each game.
    pub fn to_deck_list(&self) -> DeckList {
        let expand = |entries: &[DeckEntry]| {
            entries
                .iter()
                .flat_map(|e| (0..e.count).map(move |_| DeckCard { name: e.name.clone(), back: 0 }))
                .collect::<Vec<_>>()
        };
        DeckList {
            library: expand(&self.main),
            sideboard: expand(&self.sideboard),
            commander: expand(&self.commander),
            label: cockatrice_hash(self),
        }
    }

    /// Number of cards in the main deck.
    pub fn main_count(&self) -> u32 {
        count(&self.main)
    }

    /// Number of cards in the sideboard.
    pub fn sideboard_count(&self) -> u32 {
        count(&self.sideboard)
    }

    /// Number of commanders.
    pub fn commander_count(&self) -> u32 {
        count(&self.commander)
    }
}

fn count(entries: &[DeckEntry]) -> u32 {
    entries.iter().map(|e| e.count).sum()
}

/// The file formats `parse_deck` reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeckFormat {
    /// `4 Lightning Bolt`, `4x Lightning Bolt`, with a `Sideboard` line, blank line or `SB:` prefix.
    PlainText,
    /// MTG Arena export: `Commander`/`Companion`/`Deck`/`Sideboard` sections, `4 Lightning Bolt (M10) 146`.
    Arena,
    /// Apprentice / Decked Builder `.dec`: `SB: 2 Naturalize`.
    Dec,
    /// Magic Workstation `.mwDeck`: `4 [M10] Lightning Bolt`.
    MwDeck,
    /// XMage `.dck` (`4 [M10:146] Lightning Bolt`); Forge's INI-style `.dck` is read too.
    XmageDck,
    /// Cockatrice `.cod` XML.
    Cockatrice,
    /// MTGO `.dek` XML.
    MtgoDek,
}

impl DeckFormat {
    /// A valid card line in this format, quoted in error messages.
    fn example(self) -> &'static str {
        match self {
            DeckFormat::PlainText | DeckFormat::Dec => "4 Lightning Bolt",
            DeckFormat::Arena => "4 Lightning Bolt (M10) 146",
            DeckFormat::MwDeck => "4 [M10] Lightning Bolt",
            DeckFormat::XmageDck => "4 [M10:146] Lightning Bolt",
            DeckFormat::Cockatrice => r#"<card number="4" name="Lightning Bolt"/>"#,
            DeckFormat::MtgoDek => r#"<Cards Quantity="4" Sideboard="false" Name="Lightning Bolt"/>"#,
        }
    }
}

impl fmt::Display for DeckFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DeckFormat::PlainText => "plain-text deck list",
            DeckFormat::Arena => "MTG Arena deck list",
            DeckFormat::Dec => ".dec deck list",
            DeckFormat::MwDeck => "Magic Workstation deck",
            DeckFormat::XmageDck => ".dck deck",
            DeckFormat::Cockatrice => "Cockatrice deck",
            DeckFormat::MtgoDek => "MTGO deck",
        })
    }
}

/// Why a deck file was refused. `line` and `column` count from 1.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct DeckParseError {
    pub format: DeckFormat,
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub message: String,
}

impl fmt::Display for DeckParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.column) {
            (Some(line), Some(column)) => write!(f, "line {line}, column {column}: {}", self.message),
            (Some(line), None) => write!(f, "line {line}: {}", self.message),
            _ => f.write_str(&self.message),
        }
    }
}

/// A deck as read from its file, with what the reading found worth a second look and the line of each name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadDeck {
    pub deck: Deck,
    /// The file's layout questions (blank lines read as a sideboard or not), in line order.
    pub warnings: Vec<DeckWarning>,
    /// Each card name and the line it first stands on, in the file's order.
    pub lines: Vec<(String, usize)>,
}

impl ReadDeck {
    /// The line where `name` first stands, if the file has lines for it.
    pub fn line_of(&self, name: &str) -> Option<usize> {
        self.lines.iter().find(|(n, _)| n == name).map(|&(_, line)| line)
    }
}

/// Reads a deck file. The format comes from the extension (`.cod`, `.dek`, `.dec`, `.mwDeck`, `.dck`); for
/// `.txt` and anything else it is sniffed from the content (XML, `.dck` metadata, an Arena `Deck` line).
pub fn parse_deck(file_name: &str, text: &str) -> Result<Deck, DeckParseError> {
    read_deck(file_name, text).map(|read| read.deck)
}

/// Reads a deck file as [`parse_deck`] does, keeping its warnings and lines for [`check_deck`](check::check_deck).
pub fn read_deck(file_name: &str, text: &str) -> Result<ReadDeck, DeckParseError> {
    read_deck_as(detect_format(file_name, text), text)
}

/// The format `parse_deck` would use for this file.
pub fn detect_format(file_name: &str, text: &str) -> DeckFormat {
    let ext = Path::new(file_name).extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some("cod") => DeckFormat::Cockatrice,
        Some("dek") => DeckFormat::MtgoDek,
        Some("dec") => DeckFormat::Dec,
        Some("mwdeck") => DeckFormat::MwDeck,
        Some("dck") => DeckFormat::XmageDck,
        _ => sniff(text),
    }
}

fn sniff(text: &str) -> DeckFormat {
    let body = text.trim_start_matches('\u{feff}').trim_start();
    if body.starts_with('<') {
        // Only these two XML roots are read; anything else gets the MTGO reader's "expected <Deck>" error.
        return if body.contains("<cockatrice_deck") { DeckFormat::Cockatrice } else { DeckFormat::MtgoDek };
    }
    // XMage's metadata lines and Forge's sections would otherwise be read as cards, as Cockatrice reads them.
    let dck_line = |l: &str| {
        let upper = l.trim().to_ascii_uppercase();
        ["NAME:", "LAYOUT MAIN:", "LAYOUT SIDEBOARD:", "[METADATA]", "[MAIN]"].iter().any(|p| upper.starts_with(p))
    };
    if body.lines().any(dck_line) {
        DeckFormat::XmageDck
    } else if body.lines().any(|l| l.trim().eq_ignore_ascii_case("deck")) {
        DeckFormat::Arena
    } else {
        DeckFormat::PlainText
    }
}

/// Reads `text` as the given format, keeping its warnings and lines.
pub(crate) fn read_deck_as(format: DeckFormat, text: &str) -> Result<ReadDeck, DeckParseError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    match format {
        DeckFormat::Cockatrice | DeckFormat::MtgoDek => xml::parse_xml(format, text),
        _ => lines::parse_lines(format, text),
    }
}

/// A section of a deck file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Zone {
    Main,
    Side,
    Commander,
    /// Sections that are not part of the deck (Arena's `About`, Forge's `[metadata]`, Cockatrice's tokens).
    Skip,
}

/// Accumulates entries, enforcing the limits every format shares.
struct Builder {
    format: DeckFormat,
    read: ReadDeck,
    total: u32,
}

impl Builder {
    fn new(format: DeckFormat) -> Self {
        Builder { format, read: ReadDeck::default(), total: 0 }
    }

    fn warn(&mut self, kind: WarningKind, line: usize, message: String) {
        self.read.warnings.push(DeckWarning { kind, line: Some(line), message });
    }

    fn error(&self, line: Option<usize>, column: Option<usize>, message: impl Into<String>) -> DeckParseError {
        DeckParseError { format: self.format, line, column, message: message.into() }
    }

    fn check_count(&self, count: u32, line: usize, column: Option<usize>) -> Result<(), DeckParseError> {
        if count == 0 {
            return Err(self.error(Some(line), column, "a count of 0: leave the line out instead"));
        }
        if count > MAX_COUNT {
            return Err(self.error(Some(line), column, format!("a count of {count}: at most {MAX_COUNT} per line")));
        }
        Ok(())
    }

    fn add(
        &mut self,
        zone: Zone,
        count: u32,
        name: String,
        line: usize,
        column: Option<usize>,
    ) -> Result<(), DeckParseError> {
        if name.is_empty() {
            return Err(self.error(Some(line), column, "expected a card name"));
        }
        if name.len() > MAX_NAME_BYTES {
            return Err(self.error(
                Some(line),
                column,
                format!("card name is {} bytes long: at most {MAX_NAME_BYTES}", name.len()),
            ));
        }
        if name.chars().any(char::is_control) {
            return Err(self.error(Some(line), column, "card name contains a control character"));
        }
        self.check_count(count, line, None)?;
        self.total += count;
        if self.total > MAX_DECK_CARDS {
            return Err(self.error(Some(line), None, format!("the deck has more than {MAX_DECK_CARDS} cards")));
        }
        let deck = &mut self.read.deck;
        let entries = match zone {
            Zone::Main => &mut deck.main,
            Zone::Side => &mut deck.sideboard,
            Zone::Commander => &mut deck.commander,
            Zone::Skip => return Ok(()),
        };
        if !self.read.lines.iter().any(|(n, _)| *n == name) {
            self.read.lines.push((name.clone(), line));
        }
        match entries.iter_mut().find(|e| e.name == name) {
            Some(entry) => entry.count += count,
            None => entries.push(DeckEntry { count, name }),
        }
        Ok(())
    }

    fn finish(self) -> Result<ReadDeck, DeckParseError> {
        if self.read.deck.main.is_empty() {
            let example = self.format.example();
            return Err(self.error(None, None, format!("the main deck is empty: no card lines such as `{example}`")));
        }
        Ok(self.read)
    }
}

/// Cards counted by name, in name order, as `[count, name]` pairs: a limited pool as the player reads it.
pub(crate) fn counted(cards: &[String]) -> Vec<(u32, String)> {
    fairdeck_shared::wire::card_counts(cards.iter().map(String::as_str))
        .into_iter()
        .map(|(name, n)| (n, name))
        .collect()
}
