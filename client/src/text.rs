//! Plain text for narrow places: the terminal table's panes and help, and `--help`; and text from the opponent
//! made safe to write to a terminal.

/// Text from the opponent (names, chat, card names) with control characters replaced: written raw to
/// the terminal, an escape sequence could rewrite the screen or worse.
pub fn clean(text: &str) -> String {
    text.chars().map(|c| if c.is_control() { '\u{fffd}' } else { c }).collect()
}

/// Splits text into rows of at most `width` characters, at spaces where it can.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut rows = Vec::new();
    let mut row = String::new();
    for word in text.split(' ') {
        let mut word: Vec<char> = word.chars().collect();
        let row_len = row.chars().count();
        if row_len > 0 && row_len + 1 + word.len() > width {
            rows.push(std::mem::take(&mut row));
        }
        if !row.is_empty() {
            row.push(' ');
        }
        // A word longer than the pane is cut into pieces.
        while row.chars().count() + word.len() > width {
            let room = width - row.chars().count();
            row.extend(word.drain(..room));
            rows.push(std::mem::take(&mut row));
        }
        row.extend(word);
    }
    rows.push(row);
    rows
}

/// "1 card", "2 cards": a count and its noun, which takes an `s` in the plural.
pub fn counted(n: usize, noun: &str) -> String {
    if n == 1 { format!("1 {noun}") } else { format!("{n} {noun}s") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_keeps_every_character_within_the_width() {
        let text = "a few words then averyveryverylongwordthatmustbecut end";
        for width in 1..20 {
            let rows = wrap(text, width);
            assert!(rows.iter().all(|r| r.chars().count() <= width), "{width}: {rows:?}");
            let joined: String = rows.concat().chars().filter(|c| *c != ' ').collect();
            assert_eq!(joined, text.replace(' ', ""));
        }
    }

    #[test]
    fn a_count_of_one_takes_the_singular() {
        assert_eq!(super::counted(1, "card"), "1 card");
        assert_eq!(super::counted(0, "pack"), "0 packs");
        assert_eq!(super::counted(14, "card"), "14 cards");
    }
}
