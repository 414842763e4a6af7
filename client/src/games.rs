//! `fairdeck games`: the saved games as a table, one line each.

use std::path::Path;

use crate::save::{InUse, Listed, format_time};
use crate::text::clean;

/// The lines `fairdeck games` prints for the saves `listed` of the folder `dir`, the most recently played first.
/// The opponent's name is the opponent's own choice: its control characters are replaced, as at the table.
pub fn table(dir: &Path, listed: &[Listed]) -> String {
    if listed.is_empty() {
        return format!("No saved games in {}", dir.display());
    }
    let mut text =
        format!("{:<10} {:<16} {:<20} {:<20} {:>5}  FILE", "STATE", "OPPONENT", "STARTED", "LAST MOVE", "MOVES");
    for entry in listed {
        let file = entry.path.display();
        let line = match &entry.summary {
            Ok(game) => {
                let opponent: String = clean(game.opponent.as_deref().unwrap_or("—")).chars().take(16).collect();
                let open = match entry.in_use {
                    Some(InUse { pid: Some(pid) }) => format!("  (open in fairdeck, pid {pid})"),
                    Some(InUse { pid: None }) => "  (open in fairdeck)".to_string(),
                    None => String::new(),
                };
                format!(
                    "\n{:<10} {opponent:<16} {:<20} {:<20} {:>5}  {file}{open}",
                    game.status.as_str(),
                    format_time(game.started),
                    format_time(game.last),
                    game.moves,
                )
            }
            Err(error) => format!("\n{:<10} {error}", "unreadable"),
        };
        text.push_str(&line);
    }
    text
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use fairdeck_shared::Seat;

    use super::*;
    use crate::save::{Status, Summary};

    fn listed(opponent: &str, in_use: Option<InUse>) -> Listed {
        let summary = Summary {
            seat: Seat::HOST,
            opponent: Some(opponent.into()),
            started: 0,
            last: 60,
            moves: 7,
            status: Status::Playing,
        };
        Listed { path: PathBuf::from("/games/a.fairdeck"), summary: Ok(summary), in_use }
    }

    #[test]
    fn an_opponent_name_cannot_write_escape_sequences_to_the_terminal() {
        // A window title, then 16 bytes for the clipboard (OSC 52), as a hostile opponent could name itself.
        let text = table(Path::new("/games"), &[listed("E\u{1b}[31mVIL\u{1b}]0;pwn\u{7}", None)]);
        assert!(text.chars().all(|c| c == '\n' || !c.is_control()), "{text:?}");
        assert!(text.contains("E\u{fffd}[31mVIL\u{fffd}]0;"), "{text}");
    }

    #[test]
    fn each_game_has_its_line_under_the_header() {
        let text = table(Path::new("/games"), &[listed("Bea", Some(InUse { pid: Some(42) }))]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2, "{text}");
        assert!(lines[0].starts_with("STATE      OPPONENT"), "{text}");
        assert!(lines[1].starts_with("playing    Bea              1970-01-01 00:00"), "{text}");
        assert!(lines[1].ends_with("    7  /games/a.fairdeck  (open in fairdeck, pid 42)"), "{text}");
        assert_eq!(table(Path::new("/games"), &[]), "No saved games in /games");
    }
}
