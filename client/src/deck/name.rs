//! One card line of a deck list, read the way Cockatrice reads it (`DeckList::loadFromStream_Plain`, then
//! `CardNameNormalizer`), so that the same file gives the same card names, and with them the same deck hash.
//!
//! Regular expressions there are ASCII-only (`\w` is `[A-Za-z0-9_]`, `\d` is `[0-9]`); the scans below match
//! the same text. Cockatrice's last step, a look-up of the name in its card database, has no counterpart: a name
//! is kept as written (the hash lower-cases it, so case does not matter).

/// A card line's count and name, with the columns (from 1, in characters of the line) where each starts.
pub(super) struct CardLine {
    /// `None` when the line has no count, which Cockatrice reads as one copy.
    pub count: Option<Count>,
    pub name: String,
    pub name_column: usize,
    /// The line began with `SB:`.
    pub sideboard: bool,
    /// The name follows the count with no space between (`4Lightning Bolt`, or the typo `4O Goblin Guide`).
    pub glued: bool,
}

pub(super) struct Count {
    /// `u32::MAX` when the digits do not fit.
    pub value: u32,
    pub column: usize,
}

/// Reads a card line; `marks` says whether the list marks its sideboard lines with `SB:`. Lines whose name
/// comes out empty are the caller's to refuse.
pub(super) fn read_card_line(line: &str, marks: bool) -> CardLine {
    let simple = Simplified::new(line);
    let text = simple.text.as_str();
    let mut s = text;
    let mut sideboard = false;
    if marks && let Some(rest) = s.get(..3).filter(|p| p.eq_ignore_ascii_case("sb:")).map(|_| s[3..].trim_start()) {
        s = rest;
        sideboard = true;
    }
    // A foil mark, then an Arena or Scryfall printing: `(M10) 146`, `(PLST) MH2-244`.
    let foil = s.len().checked_sub(3).filter(|&end| s.get(end..).is_some_and(|t| t.eq_ignore_ascii_case("*f*")));
    if let Some(end) = foil {
        s = &s[..end];
    }
    if let Some(cut) = printing_start(s) {
        s = s[..cut].trim();
    }
    let (count, rest) = split_count(s);
    let glued = count.is_some() && offset(text, rest) > 0 && !text[..offset(text, rest)].ends_with(' ');
    let count = count
        .map(|digits| Count { value: digits.parse().unwrap_or(u32::MAX), column: simple.column(offset(text, digits)) });
    // Cockatrice leaves the space before a foil mark in the name; no card name ends (or starts) with one.
    CardLine {
        count,
        name: normalise(rest).trim().to_string(),
        name_column: simple.column(offset(text, rest)),
        sideboard,
        glued,
    }
}

/// Cockatrice's `CardNameNormalizer` (without the card database): split cards spelled `A // B`, a double-faced
/// card's `(Transform)` marker and what follows dropped, set codes in brackets (`[M10]`, `{M10}`), a leading
/// `(…)`, counts in parentheses (`(3)`) and a trailing `(SET) 123` removed, `’` `Æ` `æ` spelled `'` `Ae` `ae`,
/// and any run of `/` or `|` between faces spelled ` // `.
pub(super) fn normalise(name: &str) -> String {
    let name = replace_spaced(name, |s| if s.starts_with("//") { 2 } else { 0 }, " // ");
    let name = match name.find("(Transform)") {
        Some(marker) => name[..marker].trim().to_string(),
        None => name,
    };
    let name = replace_spaced(&name, bracketed_len, "");
    let name = match name.strip_prefix('(').and_then(|s| s.find(')').map(|close| &s[close + 1..])) {
        Some(rest) => rest.strip_prefix(' ').unwrap_or(rest).to_string(),
        None => name,
    };
    let name = replace_spaced(&name, parenthesised_digits_len, "");
    let name = match trailing_printing_start(&name) {
        Some(cut) => name[..cut].to_string(),
        None => name,
    };
    let name = name.replace('’', "'").replace('Æ', "Ae").replace('æ', "ae");
    replace_spaced(&name, |s| s.bytes().take_while(|&b| b == b'/' || b == b'|').count(), " // ")
}

/// A line as Qt's `simplified` makes it (each run of whitespace one space, none at either end), with the column
/// in the line of each of its characters, so errors point into the line as written.
struct Simplified {
    text: String,
    /// (byte offset in `text`, column in the line), one per character of `text`.
    columns: Vec<(usize, usize)>,
}

impl Simplified {
    fn new(line: &str) -> Self {
        let mut text = String::with_capacity(line.len());
        let mut columns = Vec::with_capacity(line.len());
        let mut space_at = None;
        for (index, c) in line.chars().enumerate() {
            if c.is_whitespace() {
                if !text.is_empty() {
                    space_at = space_at.or(Some(index + 1));
                }
                continue;
            }
            if let Some(column) = space_at.take() {
                columns.push((text.len(), column));
                text.push(' ');
            }
            columns.push((text.len(), index + 1));
            text.push(c);
        }
        Simplified { text, columns }
    }

    /// The column of the character at byte `offset` of `text` (just past the last one at the end).
    fn column(&self, offset: usize) -> usize {
        match self.columns.binary_search_by_key(&offset, |&(at, _)| at) {
            Ok(index) => self.columns[index].1,
            Err(_) => self.columns.last().map_or(1, |&(_, column)| column + 1),
        }
    }
}

/// Byte offset of `part`, a sub-slice of `text`.
fn offset(text: &str, part: &str) -> usize {
    (part.as_ptr() as usize).saturating_sub(text.as_ptr() as usize).min(text.len())
}

/// Cockatrice's count forms: `4`, `4x`, `x4`, `(4)`, `[4]`, `4*`, then at most one space. Without leading
/// digits (after any of `x ( [`) there is no count and the whole text is the name.
fn split_count(s: &str) -> (Option<&str>, &str) {
    let after = s.trim_start_matches(['x', 'X', '(', '[']);
    let digits = after.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return (None, s);
    }
    let rest = after[digits..].trim_start_matches(['x', 'X', '*', ')', ']']);
    (Some(&after[..digits]), rest.strip_prefix(' ').unwrap_or(rest))
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

fn word_len(s: &str) -> usize {
    s.bytes().take_while(|&b| is_word(b)).count()
}

/// Where the first printing starts, `(SET) SET-123` preferred to `(SET) 123` as Cockatrice tries them: three or
/// more word characters in parentheses, whitespace, then a collector number. Everything from there is dropped.
fn printing_start(s: &str) -> Option<usize> {
    let after_set = |at: usize| {
        let inner = s[at..].strip_prefix('(')?;
        let set = word_len(inner);
        let rest = inner[set..].strip_prefix(')').filter(|_| set >= 3)?;
        let space = rest.bytes().take_while(|b| b.is_ascii_whitespace() || *b == 0x0b).count();
        (space > 0).then(|| &rest[space..])
    };
    let hyphenated = |rest: &str| {
        let set = word_len(rest);
        set >= 3 && rest[set..].strip_prefix('-').is_some_and(|n| n.starts_with(|c: char| c.is_ascii_digit()))
    };
    let opens = || s.match_indices('(').map(|(at, _)| at);
    opens().find(|&at| after_set(at).is_some_and(hyphenated)).or_else(|| {
        opens().find(|&at| after_set(at).is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit())))
    })
}

/// Where a trailing ` (SET) 123` starts: capitals or digits in parentheses, spaces, digits to the end.
fn trailing_printing_start(s: &str) -> Option<usize> {
    let matches_at = |at: usize| {
        let t = &s[at..];
        let t = t.strip_prefix(' ').unwrap_or(t).strip_prefix('(')?;
        let set = t.bytes().take_while(|b| b.is_ascii_digit() || b.is_ascii_uppercase()).count();
        let t = t[set..].strip_prefix(')').filter(|_| set > 0)?.trim_start_matches(' ');
        (!t.is_empty() && t.bytes().all(|b| b.is_ascii_digit())).then_some(())
    };
    s.char_indices().map(|(at, _)| at).find(|&at| matches_at(at).is_some())
}

/// `[…]` or `{…}` (closed by either bracket), not nested.
fn bracketed_len(s: &str) -> usize {
    if !s.starts_with(['[', '{']) {
        return 0;
    }
    s[1..].find([']', '}']).map_or(0, |close| close + 2)
}

/// `(` digits `)`, the digits optional.
fn parenthesised_digits_len(s: &str) -> usize {
    let Some(inner) = s.strip_prefix('(') else { return 0 };
    let digits = inner.bytes().take_while(u8::is_ascii_digit).count();
    if inner[digits..].starts_with(')') { digits + 2 } else { 0 }
}

/// Replaces, left to right, each match of `found` (its length in bytes at the start of a string, 0 for none)
/// together with one space on either side, as Qt's `replace` does with a pattern ` ?X ?`.
fn replace_spaced(s: &str, found: impl Fn(&str) -> usize, with: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut at = 0;
    while let Some(c) = s[at..].chars().next() {
        let rest = &s[at..];
        let spaced = rest.strip_prefix(' ').map_or(0, &found);
        let (lead, len) = if spaced > 0 { (1, spaced) } else { (0, found(rest)) };
        if len == 0 {
            out.push(c);
            at += c.len_utf8();
            continue;
        }
        at += lead + len;
        if s[at..].starts_with(' ') {
            at += 1;
        }
        out.push_str(with);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(line: &str) -> (Option<u32>, String) {
        let card = read_card_line(line, true);
        (card.count.map(|c| c.value), card.name)
    }

    /// The lines of Cockatrice's `LoadingFromClipboardTest.EdgeCaseTesting`, and how it reads them.
    #[test]
    fn cockatrice_edge_cases() {
        assert_eq!(read("Æther Adept"), (None, "Aether Adept".into()));
        assert_eq!(read("2x Fire // Ice"), (Some(2), "Fire // Ice".into()));
        assert_eq!(read("1 Minsc & Boo, Timeless Heroes"), (Some(1), "Minsc & Boo, Timeless Heroes".into()));
        assert_eq!(read("3 Pain/Suffering"), (Some(3), "Pain // Suffering".into()));
        assert_eq!(read("4X [B] Forest (3)"), (Some(4), "Forest".into()));
        assert_eq!(read("5x [WTH] Nature’s Resurgence"), (Some(5), "Nature's Resurgence".into()));
        assert_eq!(read("6X Gaea's Skyfolk"), (Some(6), "Gaea's Skyfolk".into()));
        assert_eq!(read("7  B.F.M. (Big Furry Monster)"), (Some(7), "B.F.M. (Big Furry Monster)".into()));
        let weird = read("\t\tSb:\t1\tOur Market   Research Shows\tEver Elemental\t");
        assert_eq!(weird, (Some(1), "Our Market Research Shows Ever Elemental".into()));
    }

    #[test]
    fn counts_printings_and_marks() {
        assert_eq!(read("4 Lightning Bolt (M10) 146"), (Some(4), "Lightning Bolt".into()));
        assert_eq!(read("1 Arid Mesa (PLST) MH2-244"), (Some(1), "Arid Mesa".into()));
        assert_eq!(read("1 Arid Mesa (MH2) 244 *F*"), (Some(1), "Arid Mesa".into()));
        assert_eq!(read("4 Lightning Bolt *F*"), (Some(4), "Lightning Bolt".into()));
        assert_eq!(read("4Lightning Bolt"), (Some(4), "Lightning Bolt".into()));
        assert_eq!(read("(4) Lightning Bolt"), (Some(4), "Lightning Bolt".into()));
        assert_eq!(read("x4 Lightning Bolt"), (Some(4), "Lightning Bolt".into()));
        assert_eq!(read("4 [M10:146] Lightning Bolt"), (Some(4), "Lightning Bolt".into()));
        assert_eq!(read("SB: 2 Naturalize"), (Some(2), "Naturalize".into()));
        assert!(read_card_line("SB: 2 Naturalize", true).sideboard);
        assert!(!read_card_line("4 Lightning Bolt", true).sideboard);
        // Without SB: marks in the list, the prefix is part of the name, as in Cockatrice.
        assert_eq!(read_card_line("SB: 2 Naturalize", false).name, "SB: 2 Naturalize");
        assert_eq!(read("4"), (Some(4), String::new()));
    }

    #[test]
    fn names() {
        assert_eq!(normalise("Fire//Ice"), "Fire // Ice");
        assert_eq!(normalise("Wear / Tear"), "Wear // Tear");
        assert_eq!(normalise("Balance|LEB"), "Balance // LEB");
        assert_eq!(normalise("Delver of Secrets (Transform) Insectile Aberration"), "Delver of Secrets");
        assert_eq!(normalise("{WTH} Nature's Resurgence"), "Nature's Resurgence");
        assert_eq!(normalise("(test) Card"), "Card");
        assert_eq!(normalise("Lightning Bolt (M10) 146"), "Lightning Bolt");
        assert_eq!(normalise("Lightning Bolt (m10) 146"), "Lightning Bolt (m10) 146");
        assert_eq!(normalise("Jötun Grunt"), "Jötun Grunt");
        assert_eq!(normalise("[M10 Naturalize"), "[M10 Naturalize");
    }

    #[test]
    fn columns_point_into_the_line() {
        let card = read_card_line("SB:     2 [M10 Naturalize", true);
        assert_eq!((card.count.map(|c| c.column), card.name_column), (Some(9), 11));
        let card = read_card_line("  1001 Mountain", false);
        assert_eq!((card.count.map(|c| c.column), card.name_column), (Some(3), 8));
    }
}
