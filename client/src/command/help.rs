//! The commands in plain text, for `fairdeck --help`, `host --help` and `join --help`: scripted mode's list,
//! written from the table.

use super::table::COMMANDS;
use crate::text::wrap;

/// The width of the usage column.
const USAGE_WIDTH: usize = 32;
/// The width of a description's rows.
const ABOUT_WIDTH: usize = 70;

/// Scripted mode: how it reads and writes, every command, what saving and the exit codes are.
pub fn script_help() -> String {
    let mut text = String::from(
        "Scripted mode (--script): one command per line on standard input, one JSON event per line on standard output.\n\
         Table commands wait until both libraries are shuffled; a bad command prints an error event and is skipped.\n",
    );
    for spec in COMMANDS {
        text.push_str(&entry(&spec.usage(), spec.about));
    }
    text.push_str(
        "CARD is a card's id as events print it (#12 or 12), or its name or the start of its name or of a word in it, any\n\
         case (bolt, \"Lightning Bolt\"; quotes for a name the line's other words could cut); only cards you know are\n\
         found, copies in one zone are one choice (the first: the top of a pile), and a name meaning several cards\n\
         is refused with their ids. ZONE is library, hand, graveyard, exile, play or sideboard.\n\
         Games are saved as they go: `fairdeck resume` goes on after a crash, `fairdeck games` lists them.\n\
         Exit codes: 0 after quit, 2 for a wrong, mistyped or expired code, 1 for other fatal errors.",
    );
    text
}

/// One command: its usage, then its description beside it (under it when the usage is too long), wrapped.
fn entry(usage: &str, about: &str) -> String {
    let indent = " ".repeat(USAGE_WIDTH + 2);
    let mut rows = wrap(about, ABOUT_WIDTH).into_iter();
    let first = rows.next().unwrap_or_default();
    let mut text = if usage.chars().count() < USAGE_WIDTH {
        format!("  {usage:<USAGE_WIDTH$}{first}\n")
    } else {
        format!("  {usage}\n{indent}{first}\n")
    };
    for row in rows {
        text.push_str(&format!("{indent}{row}\n"));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_help_lists_every_command_with_its_description() {
        let help = script_help();
        let flat = help.split_whitespace().collect::<Vec<_>>().join(" ");
        for spec in COMMANDS {
            assert!(help.contains(&format!("\n  {}", spec.usage())), "{}:\n{help}", spec.name);
            assert!(flat.contains(spec.about), "{}:\n{help}", spec.about);
        }
        assert!(help.lines().all(|line| line.chars().count() <= 2 + USAGE_WIDTH + ABOUT_WIDTH + 12), "{help}");
    }
}
