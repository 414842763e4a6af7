//! Deck files: reading the lists players already keep, in the formats of the programs they already use.
//!
//! Line formats (plain text, MTG Arena, `.dec`, Magic Workstation `.mwDeck`, XMage and Forge `.dck`) share one
//! tolerant line reader, as the programs themselves largely do; Cockatrice `.cod` and MTGO `.dek` are XML.
//! Syntax follows `shared/research/table-anchors.md` §9. Every error names the line (and column where it helps)
//! and what was expected, because a player fixing a deck file needs to know where to look.

use std::fmt;
use std::path::Path;

use fairdeck_shared::engine::{DeckCard, DeckList};
use quick_xml::events::{BytesStart, Event};
use quick_xml::{Reader, XmlVersion};
use sha1::{Digest, Sha1};

/// Longest card name accepted, in bytes: the engine's catalogue limit.
pub const MAX_NAME_BYTES: usize = fairdeck_shared::crypto::MAX_NAME_LEN;
/// Largest count on one line.
pub const MAX_COUNT: u32 = 1000;
/// Largest deck, main deck and sideboard together (Cockatrice's limit too).
pub const MAX_DECK_CARDS: u32 = 1000;

/// One line of a deck list: `count` copies of the card `name`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeckEntry {
    pub count: u32,
    pub name: String,
}

/// A parsed deck. Entries keep the file's order; repeated names within a zone are merged.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Deck {
    pub main: Vec<DeckEntry>,
    pub sideboard: Vec<DeckEntry>,
}

impl Deck {
    /// The engine's deck: one `DeckCard` per copy, all with the default card back.
    pub fn to_deck_list(&self) -> DeckList {
        let expand = |entries: &[DeckEntry]| {
            entries
                .iter()
                .flat_map(|e| (0..e.count).map(move |_| DeckCard { name: e.name.clone(), back: 0 }))
                .collect::<Vec<_>>()
        };
        DeckList { library: expand(&self.main), sideboard: expand(&self.sideboard), ..DeckList::default() }
    }

    /// Number of cards in the main deck.
    pub fn main_count(&self) -> u32 {
        self.main.iter().map(|e| e.count).sum()
    }

    /// Number of cards in the sideboard.
    pub fn sideboard_count(&self) -> u32 {
        self.sideboard.iter().map(|e| e.count).sum()
    }
}

/// The file formats `parse_deck` reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeckFormat {
    /// `4 Lightning Bolt`, `4x Lightning Bolt`, with a `Sideboard` header, blank line or `SB:` prefix.
    PlainText,
    /// MTG Arena export: `Deck`/`Sideboard` headers, `4 Lightning Bolt (M10) 146`.
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

/// Reads a deck file. The format comes from the extension (`.cod`, `.dek`, `.dec`, `.mwDeck`, `.dck`); for
/// `.txt` and anything else it is sniffed from the content.
pub fn parse_deck(file_name: &str, text: &str) -> Result<Deck, DeckParseError> {
    parse_deck_as(detect_format(file_name, text), text)
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
    if body.lines().any(|l| l.trim().eq_ignore_ascii_case("deck")) { DeckFormat::Arena } else { DeckFormat::PlainText }
}

/// Reads `text` as the given format, whatever its file name.
pub fn parse_deck_as(format: DeckFormat, text: &str) -> Result<Deck, DeckParseError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    match format {
        DeckFormat::Cockatrice | DeckFormat::MtgoDek => parse_xml(format, text),
        _ => parse_lines(format, text),
    }
}

/// The 8-character deck hash Cockatrice shows (`DecklistNodeTree::computeDeckHash`): every copy's lower-case
/// name, sideboard copies prefixed `SB:`, sorted, joined with `;`, SHA-1, first 40 bits in base 32.
///
/// Qt's `toLower` and Rust's `to_lowercase` agree except for a handful of special-cased letters (such as `İ`),
/// which no printed card name contains.
pub fn cockatrice_hash(deck: &Deck) -> String {
    let copies = |entries: &[DeckEntry], prefix: &'static str| {
        entries
            .iter()
            .flat_map(move |e| {
                let name = format!("{prefix}{}", e.name.to_lowercase());
                (0..e.count).map(move |_| name.clone())
            })
            .collect::<Vec<_>>()
    };
    let mut cards = copies(&deck.main, "");
    cards.extend(copies(&deck.sideboard, "SB:"));
    // QStringList::sort compares UTF-16 code units, which differs from UTF-8 byte order above U+FFFF.
    cards.sort_by(|a, b| a.encode_utf16().cmp(b.encode_utf16()));
    let digest = Sha1::digest(cards.join(";").as_bytes());
    let number = digest[..5].iter().fold(0u64, |acc, &b| (acc << 8) | u64::from(b));
    let mut digits = Vec::with_capacity(8);
    let mut n = number;
    while n > 0 || digits.is_empty() {
        digits.push(b"0123456789abcdefghijklmnopqrstuv"[(n % 32) as usize]);
        n /= 32;
    }
    while digits.len() < 8 {
        digits.push(b'0');
    }
    digits.reverse();
    String::from_utf8(digits).expect("base-32 digits are ASCII")
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Zone {
    Main,
    Side,
    /// Sections that are not part of the deck (Arena's `About`, Forge's `[metadata]`, Cockatrice's tokens).
    Skip,
}

/// Accumulates entries, enforcing the limits every format shares.
struct Builder {
    format: DeckFormat,
    deck: Deck,
    total: u32,
}

impl Builder {
    fn new(format: DeckFormat) -> Self {
        Builder { format, deck: Deck::default(), total: 0 }
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
        let entries = match zone {
            Zone::Main => &mut self.deck.main,
            Zone::Side => &mut self.deck.sideboard,
            Zone::Skip => return Ok(()),
        };
        match entries.iter_mut().find(|e| e.name == name) {
            Some(entry) => entry.count += count,
            None => entries.push(DeckEntry { count, name }),
        }
        Ok(())
    }

    fn finish(self) -> Result<Deck, DeckParseError> {
        if self.deck.main.is_empty() {
            let example = self.format.example();
            return Err(self.error(None, None, format!("the main deck is empty: no card lines such as `{example}`")));
        }
        Ok(self.deck)
    }
}

/// Column (from 1, in characters) at which `part`, a sub-slice of `line`, starts.
fn column_of(line: &str, part: &str) -> usize {
    let offset = (part.as_ptr() as usize).saturating_sub(line.as_ptr() as usize).min(line.len());
    line.get(..offset).map_or(offset, |s| s.chars().count()) + 1
}

/// A section header line, if `line` (already trimmed) is one.
fn header(line: &str) -> Option<Zone> {
    let (body, comment) = match line.strip_prefix("//").or_else(|| line.strip_prefix('#')) {
        Some(rest) => (rest.trim(), true),
        None => (line, false),
    };
    let lower = body.to_lowercase();
    if !comment && let Some(inner) = lower.strip_prefix('[').and_then(|s| s.strip_suffix(']')) {
        // Forge's INI-style sections.
        return match inner.trim() {
            "main" | "commander" => Some(Zone::Main),
            "sideboard" => Some(Zone::Side),
            "metadata" | "avatar" | "planes" | "schemes" | "conspiracy" | "dungeon" => Some(Zone::Skip),
            _ => None,
        };
    }
    // `Sideboard`, `SIDEBOARD:`, `Sideboard (15)`, `// Sideboard`: Cockatrice's `^sideboard\b`.
    if let Some(rest) = lower.strip_prefix("sideboard")
        && !rest.starts_with(|c: char| c.is_alphanumeric() || c == '_')
    {
        return Some(Zone::Side);
    }
    if comment {
        return None;
    }
    let mut word = lower.trim_end_matches(':').trim_end();
    // Drop a trailing card count such as `Deck (60)`.
    if let Some(open) = word.rfind('(')
        && word.ends_with(')')
        && word[open + 1..word.len() - 1].chars().all(|c| c.is_ascii_digit())
    {
        word = word[..open].trim_end().trim_end_matches(':').trim_end();
    }
    match word {
        "deck" | "main" | "main deck" | "maindeck" | "mainboard" | "decklist" | "commander" => Some(Zone::Main),
        // A companion starts the game outside the deck, as a sideboard card.
        "companion" => Some(Zone::Side),
        "about" | "maybeboard" | "tokens" | "considering" => Some(Zone::Skip),
        _ => None,
    }
}

fn strip_sb(line: &str) -> Option<&str> {
    line.get(..3).filter(|p| p.eq_ignore_ascii_case("sb:")).map(|_| line[3..].trim_start())
}

/// XMage's `NAME:`/`AUTHOR:`/`LAYOUT …` lines, which carry no cards.
fn is_metadata(line: &str) -> bool {
    let lower = line.get(..7).unwrap_or(line).to_ascii_lowercase();
    lower.starts_with("name:") || lower.starts_with("author:") || lower.starts_with("layout ")
}

fn parse_lines(format: DeckFormat, text: &str) -> Result<Deck, DeckParseError> {
    let mut builder = Builder::new(format);
    // A blank line splits off the sideboard only when the list marks it no other way (§9.8).
    let explicit = text.lines().map(str::trim).any(|l| header(l).is_some() || strip_sb(l).is_some());
    let mut zone = Zone::Main;
    let mut split_done = false;
    for (index, raw) in text.lines().enumerate() {
        let line_no = index + 1;
        let line = raw.trim();
        if line.is_empty() {
            if !explicit && !split_done && !builder.deck.main.is_empty() {
                zone = Zone::Side;
                split_done = true;
            }
            continue;
        }
        if let Some(next) = header(line) {
            zone = next;
            continue;
        }
        if line.starts_with("//") || line.starts_with('#') || zone == Zone::Skip || is_metadata(line) {
            continue;
        }
        let (line_zone, card) = match strip_sb(line) {
            Some(rest) => (Zone::Side, rest),
            None => (zone, line),
        };
        let (count, count_col, name, name_col) = parse_card(&builder, raw, card, line_no)?;
        builder.check_count(count, line_no, Some(count_col))?;
        builder.add(line_zone, count, name, line_no, Some(name_col))?;
    }
    builder.finish()
}

/// Splits a card line into its count and its cleaned name, with the columns where each starts.
fn parse_card(
    builder: &Builder,
    raw: &str,
    card: &str,
    line_no: usize,
) -> Result<(u32, usize, String, usize), DeckParseError> {
    let err = |part: &str, message: String| builder.error(Some(line_no), Some(column_of(raw, part)), message);
    let example = builder.format.example();
    let starts_digit = |s: &str| s.starts_with(|c: char| c.is_ascii_digit());

    // Cockatrice's quantity forms: `4`, `4x`, `x4`, `(4)`, `[4]`, `4*`.
    let mut s = card;
    let mut closing = None;
    if let Some(rest) = s.strip_prefix(['x', 'X']).filter(|r| starts_digit(r)) {
        s = rest;
    } else if let Some(rest) = s.strip_prefix('(').filter(|r| starts_digit(r)) {
        s = rest;
        closing = Some(')');
    } else if let Some(rest) = s.strip_prefix('[').filter(|r| {
        // `[4] Name` is a count, `[10E] Name` a set code: only all-digit brackets are counts.
        starts_digit(r) && r.split(']').next().is_some_and(|d| d.chars().all(|c| c.is_ascii_digit()))
    }) {
        s = rest;
        closing = Some(']');
    }
    let digits_len = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    if digits_len == 0 {
        return Err(err(s, format!("expected a count before the card name, e.g. `{example}`")));
    }
    let digits = &s[..digits_len];
    let count_col = column_of(raw, digits);
    let count = digits.parse::<u32>().unwrap_or(u32::MAX);
    s = &s[digits_len..];
    match closing {
        Some(close) => match s.strip_prefix(close) {
            Some(rest) => s = rest,
            None => return Err(err(s, format!("expected `{close}` after the count"))),
        },
        None => {
            if let Some(rest) =
                s.strip_prefix(['x', 'X', '*']).filter(|r| r.is_empty() || r.starts_with(char::is_whitespace))
            {
                s = rest;
            }
        }
    }
    if !s.is_empty() && !s.starts_with(char::is_whitespace) {
        return Err(err(s, format!("expected a space between the count and the card name, e.g. `{example}`")));
    }
    builder.check_count(count, line_no, Some(count_col))?;
    s = s.trim_start();
    if s.is_empty() {
        return Err(err(s, format!("expected a card name after the count, e.g. `{example}`")));
    }
    // A set code before the name: `[M10]` (Magic Workstation) or `[M10:146]` (XMage).
    if let Some(rest) = s.strip_prefix('[') {
        match rest.find(']') {
            Some(end) => s = rest[end + 1..].trim_start(),
            None => return Err(err(s, format!("expected `]` closing the set code, e.g. `{example}`"))),
        }
        if s.is_empty() {
            return Err(err(s, format!("expected a card name after the set code, e.g. `{example}`")));
        }
    }
    let name_col = column_of(raw, s);
    Ok((count, count_col, clean_name(s), name_col))
}

/// Drops what follows a card's name (foil mark, Forge `|SET|art`, Arena `(SET) 123`) and spells split cards
/// `A // B`, the way Cockatrice and the engine's catalogue name them.
fn clean_name(name: &str) -> String {
    let mut name = name.trim();
    if let Some(rest) = name.strip_suffix("*F*").or_else(|| name.strip_suffix("*f*")) {
        name = rest.trim_end();
    }
    if let Some(bar) = name.find('|') {
        name = name[..bar].trim_end();
    }
    if let Some(open) = name.rfind(" (") {
        let after = &name[open + 2..];
        if let Some(close) = after.find(')') {
            let set = &after[..close];
            let tail = after[close + 1..].trim();
            if (2..=6).contains(&set.len())
                && set.chars().all(|c| c.is_ascii_alphanumeric())
                && !tail.contains(char::is_whitespace)
            {
                name = name[..open].trim_end();
            }
        }
    }
    if name.contains('/') {
        return name.split('/').map(str::trim).filter(|p| !p.is_empty()).collect::<Vec<_>>().join(" // ");
    }
    name.to_string()
}

fn parse_xml(format: DeckFormat, text: &str) -> Result<Deck, DeckParseError> {
    let mut builder = Builder::new(format);
    let line_at = |pos: u64| {
        let end = usize::try_from(pos).unwrap_or(usize::MAX).min(text.len());
        text.as_bytes()[..end].iter().filter(|&&b| b == b'\n').count() + 1
    };
    let (root, card_tag) = match format {
        DeckFormat::Cockatrice => ("cockatrice_deck", "card"),
        _ => ("Deck", "Cards"),
    };
    let mut reader = Reader::from_str(text);
    let mut open: Vec<String> = Vec::new();
    let mut zone = Zone::Skip;
    let mut seen_root = false;
    loop {
        let line = line_at(reader.buffer_position());
        let event = match reader.read_event() {
            Ok(event) => event,
            Err(e) => {
                let line = line_at(reader.error_position());
                return Err(builder.error(Some(line), None, format!("malformed XML: {e}")));
            }
        };
        let (element, is_start) = match event {
            Event::Start(element) => (element, true),
            Event::Empty(element) => (element, false),
            Event::End(_) => {
                if open.pop().as_deref() == Some("zone") {
                    zone = Zone::Skip;
                }
                continue;
            }
            Event::Eof => break,
            _ => continue,
        };
        let tag = element.name().as_ref().to_string();
        if open.is_empty() {
            if seen_root || tag != root {
                return Err(builder.error(
                    Some(line),
                    None,
                    format!("expected the root element `<{root}>` of a {format}, found `<{tag}>`"),
                ));
            }
            seen_root = true;
        } else if format == DeckFormat::Cockatrice && tag == "zone" && open.len() == 1 {
            let name = attribute(&builder, &element, "name", line)?.unwrap_or_default();
            zone = match name.as_str() {
                "main" => Zone::Main,
                "side" => Zone::Side,
                "tokens" => Zone::Skip,
                other => {
                    return Err(builder.error(
                        Some(line),
                        None,
                        format!("unknown zone `{other}`: expected `main`, `side` or `tokens`"),
                    ));
                }
            };
        } else if tag == card_tag && (format == DeckFormat::MtgoDek || open.last().map(String::as_str) == Some("zone"))
        {
            let (count_attr, name_attr) =
                if format == DeckFormat::Cockatrice { ("number", "name") } else { ("Quantity", "Name") };
            let card_zone = if format == DeckFormat::MtgoDek {
                let side = attribute(&builder, &element, "Sideboard", line)?;
                match side.as_deref().map(str::trim) {
                    None => Zone::Main,
                    Some(v) if v.eq_ignore_ascii_case("false") => Zone::Main,
                    Some(v) if v.eq_ignore_ascii_case("true") => Zone::Side,
                    Some(v) => {
                        return Err(builder.error(
                            Some(line),
                            None,
                            format!("expected `Sideboard=\"true\"` or `Sideboard=\"false\"`, found `{v}`"),
                        ));
                    }
                }
            } else {
                zone
            };
            let example = format.example();
            let count = attribute(&builder, &element, count_attr, line)?.ok_or_else(|| {
                builder.error(Some(line), None, format!("expected a `{count_attr}` attribute, e.g. `{example}`"))
            })?;
            let count = count.trim();
            if count.is_empty() || !count.chars().all(|c| c.is_ascii_digit()) {
                return Err(builder.error(
                    Some(line),
                    None,
                    format!("expected `{count_attr}` to be a count such as \"4\", found \"{count}\""),
                ));
            }
            let count = count.parse::<u32>().unwrap_or(u32::MAX);
            builder.check_count(count, line, None)?;
            let name = attribute(&builder, &element, name_attr, line)?.ok_or_else(|| {
                builder.error(Some(line), None, format!("expected a `{name_attr}` attribute, e.g. `{example}`"))
            })?;
            builder.add(card_zone, count, clean_name(&name), line, None)?;
        }
        if is_start {
            open.push(tag);
        }
    }
    if let Some(unclosed) = open.last() {
        let line = line_at(text.len() as u64);
        return Err(builder.error(Some(line), None, format!("the file ends inside `<{unclosed}>`")));
    }
    if !seen_root {
        return Err(builder.error(None, None, format!("expected a {format} starting with `<{root}>`")));
    }
    builder.finish()
}

fn attribute(
    builder: &Builder,
    element: &BytesStart<'_>,
    name: &str,
    line: usize,
) -> Result<Option<String>, DeckParseError> {
    let malformed =
        |e: &dyn fmt::Display| builder.error(Some(line), None, format!("malformed attribute `{name}`: {e}"));
    match element.try_get_attribute(name).map_err(|e| malformed(&e))? {
        Some(attr) => Ok(Some(attr.normalized_value(XmlVersion::Implicit1_0).map_err(|e| malformed(&e))?.into_owned())),
        None => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantity_forms() {
        for line in
            ["4 Lightning Bolt", "4x Lightning Bolt", "x4 Lightning Bolt", "(4) Lightning Bolt", "[4] Lightning Bolt"]
        {
            let deck = parse_deck("d.txt", line).unwrap_or_else(|e| panic!("{line}: {e}"));
            assert_eq!(deck.main, vec![DeckEntry { count: 4, name: "Lightning Bolt".into() }], "{line}");
        }
    }

    #[test]
    fn name_suffixes_and_split_cards() {
        assert_eq!(clean_name("Lightning Bolt (M10) 146"), "Lightning Bolt");
        assert_eq!(clean_name("Arid Mesa (PLST) MH2-244"), "Arid Mesa");
        assert_eq!(clean_name("B.F.M. (Big Furry Monster)"), "B.F.M. (Big Furry Monster)");
        assert_eq!(clean_name("Lightning Bolt *F*"), "Lightning Bolt");
        assert_eq!(clean_name("Balance|LEB"), "Balance");
        assert_eq!(clean_name("Refuse/Cooperate"), "Refuse // Cooperate");
        assert_eq!(clean_name("Fire // Ice"), "Fire // Ice");
    }

    #[test]
    fn blank_line_splits_only_without_headers() {
        let deck = parse_deck("d.txt", "4 Bolt\n\n2 Naturalize\n").unwrap();
        assert_eq!(deck.sideboard_count(), 2);
        let deck = parse_deck("d.dec", "4 Bolt\n\n2 Naturalize\nSB: 1 Duress\n").unwrap();
        assert_eq!((deck.main_count(), deck.sideboard_count()), (6, 1));
    }

    #[test]
    fn hash_is_order_independent_and_base32() {
        let a = parse_deck("a.txt", "4 Bolt\n2 Shock\nSideboard\n1 Duress").unwrap();
        let b = parse_deck("b.txt", "2 shock\n4 BOLT\n\nSB: 1 duress").unwrap();
        let h = cockatrice_hash(&a);
        assert_eq!(h, cockatrice_hash(&b));
        assert_eq!(h.len(), 8);
        assert!(h.bytes().all(|c| c.is_ascii_digit() || (b'a'..=b'v').contains(&c)));
        let c = parse_deck("c.txt", "4 Bolt\n2 Shock\n1 Duress").unwrap();
        assert_ne!(h, cockatrice_hash(&c), "a sideboard card hashes differently from a main-deck one");
    }
}
