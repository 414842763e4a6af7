//! The line formats: plain text, MTG Arena, `.dec`, `.mwDeck`, XMage and Forge `.dck`.
//!
//! Which lines are cards and where the sideboard starts follow Cockatrice's plain-text import
//! (`DeckList::loadFromStream_Plain`), which reads every one of these files; `name.rs` reads each card line.
//! Beyond Cockatrice, whole-line section headers (`Commander`, `Companion`, `Deck`, `About`, `Maybeboard`,
//! Forge's `[main]`…) are read as sections wherever they stand, where Cockatrice would take them for cards named
//! "Commander" or "About" (see docs/CLIENT.md, "Deck files").

use super::name::{CardLine, read_card_line};
use super::{Builder, DeckFormat, DeckParseError, MAX_LINE_BYTES, ReadDeck, WarningKind, Zone};

/// The most cards a sideboard holds in constructed play: a longer one after a lone blank line may be main deck.
pub(super) const MAX_SIDEBOARD: u32 = 15;

/// Counts written in words, which no deck program reads as counts: a line starting with one is refused.
pub(super) const COUNT_WORDS: [&str; 12] =
    ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"];

pub(super) fn parse_lines(format: DeckFormat, text: &str) -> Result<ReadDeck, DeckParseError> {
    let mut builder = Builder::new(format);
    // Cockatrice trims the whole text first: leading blank lines do not count, but still number the lines.
    let body = text.trim();
    let skipped = &text[..(body.as_ptr() as usize).saturating_sub(text.as_ptr() as usize).min(text.len())];
    let first_line_no = 1 + skipped.matches('\n').count();
    let first_indent = skipped.rsplit('\n').next().map_or(0, |indent| indent.chars().count());
    let lines: Vec<&str> = body.split('\n').collect();

    let Some(first_card) = lines.iter().position(|l| is_card_line(l)) else { return builder.finish() };
    // The list proper starts at the last blank line before the first card line; its first line may be a
    // `Deck`/`Mainboard` title, skipped, and what comes before is the deck's name and comments.
    let start = lines[..first_card].iter().rposition(|l| is_blank(l)).unwrap_or(0);
    let title = (start..lines.len()).find(|&i| !is_blank(lines[i])).filter(|&i| is_deck_title(lines[i]));
    let marks = lines[start..].iter().any(|l| has_sideboard_mark(l));
    let sections = lines.iter().enumerate().any(|(i, l)| Some(i) != title && is_card_line(l) && header(l).is_some());
    // The sideboard is marked by `SB:` on its lines, else it follows a header, else a lone blank line.
    let blank_split = if marks || sections { None } else { blank_split(&lines, start) };
    if let Some(BlankSplit::Several { first, last }) = blank_split {
        let (first, last) = (first_line_no + first, first_line_no + last);
        let message = format!(
            "lines {first}–{last} are blank: the cards after them are read as main deck (a sideboard starts at a \
             `Sideboard` line, or after one blank line)"
        );
        builder.warn(WarningKind::BlankLines, first, message);
    }
    let blank_split = match blank_split {
        Some(BlankSplit::One(at)) => Some(at),
        _ => None,
    };

    let mut zone = Zone::Main;
    for (i, line) in lines.iter().enumerate() {
        let line_no = first_line_no + i;
        if Some(i) == blank_split {
            zone = Zone::Side;
        }
        if !is_card_line(line) || Some(i) == title {
            continue;
        }
        if let Some(next) = header(line) {
            zone = next;
            continue;
        }
        if zone == Zone::Skip || (format == DeckFormat::XmageDck && is_xmage_metadata(line)) {
            continue;
        }
        // Forge's `4 Lightning Bolt|M10|2`: the printing after the bar.
        let line = match format {
            DeckFormat::XmageDck => line.split('|').next().unwrap_or(line),
            _ => line,
        };
        let shift = if i == 0 { first_indent } else { 0 };
        if line.len() > MAX_LINE_BYTES {
            let message = format!("the line is {} bytes long: at most {MAX_LINE_BYTES}", line.len());
            return Err(builder.error(Some(line_no), None, message));
        }
        let card = read_card_line(line, marks);
        let example = format.example();
        if let Some(count) = &card.count {
            builder.check_count(count.value, line_no, Some(count.column + shift))?;
        }
        if let Some((column, message)) = count_mistake(&card) {
            return Err(builder.error(Some(line_no), Some(column + shift), message));
        }
        let name_column = Some(card.name_column + shift);
        if card.name.is_empty() {
            let message = match card.count {
                Some(_) => format!("expected a card name after the count, e.g. `{example}`"),
                None => format!("expected a card name, e.g. `{example}`"),
            };
            return Err(builder.error(Some(line_no), name_column, message));
        }
        if card.name.contains(['[', '{']) {
            let message = format!("expected `]` closing the set code, e.g. `{example}`");
            return Err(builder.error(Some(line_no), name_column, message));
        }
        let card_zone = if card.sideboard { Zone::Side } else { zone };
        builder.add(card_zone, card.count.map_or(1, |c| c.value), card.name, line_no, name_column)?;
    }
    if let Some(at) = blank_split {
        let cards = builder.read.deck.sideboard_count();
        if cards > MAX_SIDEBOARD {
            let message = format!(
                "the blank line starts a sideboard of {cards} cards, more than {MAX_SIDEBOARD}: if they are main deck, \
                 remove the blank line; else write `Sideboard` above them"
            );
            builder.warn(WarningKind::BlankLines, first_line_no + at, message);
        }
    }
    builder.finish()
}

/// A count mistyped or written in words, which Cockatrice would read as part of the name: the column (in the
/// simplified line's terms, as the card's own columns) and what is wrong. A name that really starts with such a word
/// takes a count in digits (`1 Seven Dwarves`), which this leaves alone.
fn count_mistake(card: &CardLine) -> Option<(usize, String)> {
    let (first, rest) = card.name.split_once(' ')?;
    let column = card.name_column;
    match &card.count {
        None => {
            let number = COUNT_WORDS.iter().position(|word| first.eq_ignore_ascii_case(word))? + 1;
            let name = &card.name;
            let message = format!(
                "`{first}` is a count in words: write `{number} {rest}` (for a card named \"{name}\", `1 {name}`)"
            );
            Some((column, message))
        }
        // `4O Goblin Guide`: a letter typed for a digit or stuck to the count.
        Some(count) if card.glued && first.chars().count() == 1 => Some((
            column,
            format!(
                "`{}{first}` is not a count: write `{} {rest}`, with the count in digits",
                count.value, count.value
            ),
        )),
        // `4 x Goblin Guide`: the `x` of `4x` parted from the count.
        Some(count) if first.eq_ignore_ascii_case("x") => {
            Some((column, format!("a lone `{first}` after the count: write `{}x {rest}`", count.value)))
        }
        _ => None,
    }
}

/// Whitespace as Cockatrice's (ASCII) `\s` has it.
fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\u{b}' | '\u{c}' | '\r')
}

/// Cockatrice's blank line: nothing but `is_space`.
fn is_blank(line: &str) -> bool {
    line.chars().all(is_space)
}

/// Cockatrice's card line: its first non-blank character is a letter, digit, `_`, `[`, `(` or `{`. Others
/// (`// comment`, `# comment`, `- note`) are skipped.
fn is_card_line(line: &str) -> bool {
    line.trim_start().starts_with(|c: char| c.is_alphanumeric() || matches!(c, '_' | '[' | '(' | '{'))
}

/// Whether `line` begins with `word` (ignoring case) and a word ends there (Cockatrice's ASCII `\b`).
fn starts_with_word(line: &str, word: &str) -> bool {
    line.get(..word.len()).is_some_and(|p| p.eq_ignore_ascii_case(word))
        && !line[word.len()..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
}

/// The title line Cockatrice skips at the top of the list: `Deck`, `Maindeck`, `Decklist`, `Mainboard: 60`…
fn is_deck_title(line: &str) -> bool {
    ["deck", "maindeck", "decklist", "maindecklist", "mainboard"].iter().any(|w| starts_with_word(line, w))
}

/// `SB: 2 Naturalize`: when any line has it, it alone marks the sideboard.
fn has_sideboard_mark(line: &str) -> bool {
    let line = line.trim_start_matches(is_space);
    line.get(..3).is_some_and(|p| p.eq_ignore_ascii_case("sb:")) && line.len() > 3
}

/// A section header, if `line` is one. A line starting with the word `Sideboard` is one, as in Cockatrice
/// (`Sideboard`, `SIDEBOARD:`, `Sideboard (15)`, `SideBoard: 2 cards`); the others stand alone on their line,
/// with at most a count in parentheses and a colon.
fn header(line: &str) -> Option<Zone> {
    let line = line.trim();
    if starts_with_word(line, "sideboard") {
        return Some(Zone::Side);
    }
    let lower = line.to_lowercase();
    if let Some(inner) = lower.strip_prefix('[').and_then(|s| s.strip_suffix(']')) {
        // Forge's INI-style sections.
        return match inner.trim() {
            "main" => Some(Zone::Main),
            "commander" => Some(Zone::Commander),
            "sideboard" => Some(Zone::Side),
            "metadata" | "avatar" | "planes" | "schemes" | "conspiracy" | "dungeon" => Some(Zone::Skip),
            _ => None,
        };
    }
    let mut word = lower.trim_end_matches(':').trim_end();
    // A card count such as `Deck (60)`.
    if let Some(open) = word.rfind('(')
        && word.ends_with(')')
        && word[open + 1..word.len() - 1].chars().all(|c| c.is_ascii_digit())
    {
        word = word[..open].trim_end().trim_end_matches(':').trim_end();
    }
    match word {
        "deck" | "main" | "main deck" | "maindeck" | "mainboard" | "decklist" => Some(Zone::Main),
        "commander" | "commanders" => Some(Zone::Commander),
        // A companion starts the game outside the deck, as a sideboard card.
        "companion" => Some(Zone::Side),
        "about" | "maybeboard" | "tokens" | "considering" => Some(Zone::Skip),
        _ => None,
    }
}

/// Where Cockatrice would start the sideboard of a list marked no other way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BlankSplit {
    /// At this lone blank line, the convention of MTGO's and Arena's exports (or at a gap with a comment naming the
    /// sideboard): the sideboard starts there.
    One(usize),
    /// At this run of blank lines (first and last), with no comment naming the sideboard: Cockatrice starts a
    /// sideboard there, but no program writes one so, and players leave such gaps by accident; fairdeck reads on as
    /// main deck, and warns.
    Several { first: usize, last: usize },
}

/// Cockatrice's split of a list marked no other way: the first blank line of the list starts the sideboard,
/// unless another blank line follows the first card after it (then the blanks only group the main deck).
fn blank_split(lines: &[&str], start: usize) -> Option<BlankSplit> {
    let blank = (start + 1..lines.len()).find(|&i| is_blank(lines[i]))?;
    let next_card = (blank + 1..lines.len()).find(|&i| is_card_line(lines[i]))?;
    if (next_card + 1..lines.len()).any(|i| is_blank(lines[i])) {
        return None;
    }
    let last = (blank..next_card).take_while(|&i| is_blank(lines[i])).last().unwrap_or(blank);
    // A comment naming the sideboard in the gap (`// Sideboard (15 cards)`) says what the blanks mean.
    let named = lines[blank..next_card].iter().any(|l| l.to_lowercase().contains("sideboard"));
    Some(if last == blank || named { BlankSplit::One(blank) } else { BlankSplit::Several { first: blank, last } })
}

/// XMage's `NAME:`/`AUTHOR:`/`LAYOUT …` lines, which carry no cards.
fn is_xmage_metadata(line: &str) -> bool {
    let line = line.trim_start();
    let lower = line.get(..7).unwrap_or(line).to_ascii_lowercase();
    lower.starts_with("name:") || lower.starts_with("author:") || lower.starts_with("layout ")
}
