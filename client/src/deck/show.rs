//! `fairdeck deck FILE`: a deck as fairdeck reads it and its checks' warnings, so a player can check a file before a
//! game.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::Context as _;

use super::{Deck, DeckEntry, DeckFormat, DeckFormatRule, DeckWarning, check_deck_here, cockatrice_hash};
use super::{detect_format, read_deck_as};

/// Reads the deck file at `path`, checks it (as a limited deck if `limited`, with the card database if there is
/// one) and prints it as text (`to_text`) or JSON (`to_json`). A file that cannot be read or is not a deck is an
/// error naming the file, its line and column.
pub fn show_file(path: &Path, json: bool, limited: bool) -> anyhow::Result<String> {
    let bytes = crate::file::read_at_most(path, crate::file::DECK_BYTES)
        .with_context(|| format!("cannot read the deck file {}", path.display()))?;
    let text = String::from_utf8(bytes)
        .map_err(|_| anyhow::anyhow!("{}: not a deck list: the file is not UTF-8 text", path.display()))?;
    let file_name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let format = detect_format(&file_name, &text);
    let read = read_deck_as(format, &text).with_context(|| format!("{}: not a valid {format}", path.display()))?;
    let warnings = check_deck_here(&read, DeckFormatRule::of(&read.deck, limited));
    if json {
        Ok(to_json(&read.deck, &warnings)?)
    } else {
        let mut text = to_text(&read.deck, format);
        for warning in &warnings {
            let _ = write!(text, "\nwarning: {}: {warning}", path.display());
        }
        Ok(text)
    }
}

/// `{"main": [[count, name], ...], "side": [...], "commander": [...], "hash": "…", "warnings": [...]}`, the hash
/// Cockatrice's, each warning `{"kind", "line", "message"}`.
pub fn to_json(deck: &Deck, warnings: &[DeckWarning]) -> serde_json::Result<String> {
    #[derive(serde::Serialize)]
    struct Json<'a> {
        main: Vec<(u32, &'a str)>,
        side: Vec<(u32, &'a str)>,
        commander: Vec<(u32, &'a str)>,
        hash: String,
        warnings: &'a [DeckWarning],
    }
    fn rows(entries: &[DeckEntry]) -> Vec<(u32, &str)> {
        entries.iter().map(|e| (e.count, e.name.as_str())).collect()
    }
    serde_json::to_string(&Json {
        main: rows(&deck.main),
        side: rows(&deck.sideboard),
        commander: rows(&deck.commander),
        hash: cockatrice_hash(deck),
        warnings,
    })
}

/// The deck's sections with their counts and names, then its hash.
pub fn to_text(deck: &Deck, format: DeckFormat) -> String {
    let mut out = String::new();
    let mut summary = format!("{format}: {} cards in the main deck", deck.main_count());
    if !deck.commander.is_empty() {
        let _ = write!(summary, " and {} commander", deck.commander_count());
    }
    let _ = writeln!(out, "{summary}, {} in the sideboard", deck.sideboard_count());
    for (title, entries) in [("Commander", &deck.commander), ("Main deck", &deck.main), ("Sideboard", &deck.sideboard)]
    {
        if entries.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\n{title} ({})", super::count(entries));
        for entry in entries {
            let _ = writeln!(out, "{:>4} {}", entry.count, entry.name);
        }
    }
    let _ = write!(out, "\nDeck hash (as Cockatrice shows it): {}", cockatrice_hash(deck));
    out
}
