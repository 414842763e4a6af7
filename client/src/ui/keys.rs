//! Keys: single-key shortcuts (Cockatrice's vocabulary, on plain letters) while the command line is
//! closed, line editing while it is open. Every shortcut stands for a scripted-mode command and is given in
//! that command's entry of the table ([`crate::command::COMMANDS`]), so what a key does can also be typed,
//! and scripted.

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use fairdeck_shared::wire::LimitedFormat;

use super::library_view;
use super::log::LogKind;
use super::view::{Overlay, Panel, Stage, View};
use crate::command::table::{self, QUIT, UNTAP_ALL, VIEW};
use crate::command::{Local, Spec, shortcuts};

/// The terminal table's own command: a card's text from the card database, over the table.
pub(crate) static CARD: Local = Local { name: "card", about: "card text by name or #ID; o: the selected" };

/// The key that shows the text of the focused panel's selected card (its first shown, its id reversed).
pub(crate) const CARD_KEY: char = 'o';

/// Single keys that run at once: public actions the engine can undo. Every other key that would run a command
/// asks first (a stray key must not draw, shuffle or pass the turn).
const AT_ONCE: [&Spec; 1] = [&UNTAP_ALL];

/// Keys that are not commands, for the help; `view` is the terminal's own command ([`VIEW`]).
pub const OTHER_KEYS: &[(&str, &str)] = &[
    (": or Enter", "open the command line"),
    ("Esc", "close the command line, help or a pile; ends a search, scry or surveil"),
    ("Up / Down", "recall earlier commands"),
    ("PgUp / PgDn", "scroll the log (End: newest)"),
    ("Tab  [ ]", "pick a panel; scroll it"),
    (VIEW_USAGE, VIEW.about),
    (CARD_USAGE, CARD.about),
    ("?", "this help (Space: its next page)"),
    ("q", "leave (asks first); Ctrl-C: at once"),
];

/// `view`'s usage as the help shows it (a test checks it names [`VIEW`]).
const VIEW_USAGE: &str = "view [opponent] PILE";
/// `card`'s usage as the help shows it (a test checks it names [`CARD`]).
const CARD_USAGE: &str = "card NAME";

/// The commands whose first key the hint line names, in its order.
const HINTED: [&Spec; 4] = [&table::DRAW, &table::SHUFFLE, &table::PLAY, &table::TAP];
/// While building a limited deck: the commands whose first key the hint line names, then those it names to type.
const HINTED_BUILDING: [&Spec; 2] = [&table::ADD, &table::REMOVE];
const TYPED_BUILDING: [&Spec; 3] = [&table::BASICS, &table::POOL, &table::DONE];

/// The hint line under the table while the command line is closed: a few keys of the table, then the others;
/// while building a limited deck, the building commands; while drafting, the draft's.
pub(crate) fn hint_line(stage: Stage) -> String {
    if let Stage::Drafting(format) = stage {
        // The draft's own command, with the arguments its format takes.
        let (spec, args) = match format {
            LimitedFormat::Grid { .. } => (&table::PICK, "row N | column N"),
            LimitedFormat::Winston { .. } => (&table::PILE, table::PILE.args),
            _ => (&table::PICK, "N | NAME"),
        };
        return format!("Keys: : {} {args} · ? help · q {}", spec.name, QUIT.name);
    }
    let building = stage == Stage::Building;
    let hinted: &[&Spec] = if building { &HINTED_BUILDING } else { &HINTED };
    let mut hints: Vec<String> = hinted
        .iter()
        .filter_map(|spec| shortcuts().find(|s| s.spec.name == spec.name).map(|s| format!("{} {}", s.key, spec.name)))
        .collect();
    let command = if building {
        format!(": {}", TYPED_BUILDING.map(|spec| spec.name).join(", "))
    } else {
        ": command".to_string()
    };
    hints.extend([command, "? help".to_string(), format!("q {}", QUIT.name)]);
    format!("Keys: {}", hints.join(" · "))
}

/// Handles one key. Returns the command line to run, if the key produced one.
pub fn handle_key(view: &mut View, key: KeyEvent) -> Option<String> {
    // Terminals that report releases (and repeats) would otherwise act twice.
    if key.kind == KeyEventKind::Release {
        return None;
    }
    if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c') {
        return Some(leave(view));
    }
    match view.overlay {
        Overlay::Help => {
            match key.code {
                // The help may have more pages than the terminal shows at once.
                KeyCode::Char(' ') | KeyCode::PageDown | KeyCode::Right => view.help_page += 1,
                KeyCode::PageUp | KeyCode::Left => view.help_page = view.help_page.saturating_sub(1),
                _ => view.overlay = Overlay::None,
            }
            None
        }
        Overlay::ConfirmQuit => confirm_quit(view, key),
        Overlay::Confirm => confirm(view, key),
        Overlay::Card => {
            view.overlay = Overlay::None;
            None
        }
        Overlay::Pile(_) => pile(view, key),
        Overlay::None if view.prompt.focused => edit(view, key),
        Overlay::None if view.library.is_some() => library_view::key(view, key),
        Overlay::None => shortcut(view, key),
    }
}

fn leave(view: &mut View) -> String {
    view.overlay = Overlay::None;
    view.leaving = true;
    QUIT.name.to_string()
}

fn confirm_quit(view: &mut View, key: KeyEvent) -> Option<String> {
    match key.code {
        KeyCode::Char('y' | 'Y' | 'q') | KeyCode::Enter => Some(leave(view)),
        _ => {
            view.overlay = Overlay::None;
            None
        }
    }
}

/// The answer to "run this key's command?": y (or Enter) runs it; any other key cancels, and does nothing else.
fn confirm(view: &mut View, key: KeyEvent) -> Option<String> {
    view.overlay = Overlay::None;
    let line = view.asked.take()?;
    match key.code {
        KeyCode::Char('y' | 'Y') | KeyCode::Enter => Some(submit(view, line)),
        _ => None,
    }
}

/// A key while the command line is closed.
fn shortcut(view: &mut View, key: KeyEvent) -> Option<String> {
    // Ctrl and Alt combinations are the terminal's or the user's, not table actions.
    if !(key.modifiers - KeyModifiers::SHIFT).is_empty() {
        return None;
    }
    match key.code {
        KeyCode::Char(':') | KeyCode::Enter => view.prompt.focused = true,
        KeyCode::Char('?') => {
            view.overlay = Overlay::Help;
            view.help_page = 0;
        }
        KeyCode::Char('q') => view.overlay = Overlay::ConfirmQuit,
        KeyCode::PageUp => view.log.scroll_by(5),
        KeyCode::PageDown => view.log.scroll_by(-5),
        KeyCode::End => view.log.scroll_to_newest(),
        KeyCode::Up => recall(view, Recall::Older),
        KeyCode::Tab => view.scrolls.cycle(true),
        KeyCode::BackTab => view.scrolls.cycle(false),
        KeyCode::Char('[') => view.scrolls.scroll(view.scrolls.focus(), -1),
        KeyCode::Char(']') => view.scrolls.scroll(view.scrolls.focus(), 1),
        KeyCode::Char(CARD_KEY) => match view.scrolls.selected(view.scrolls.focus()) {
            Some(card) => view.show_card(&card.to_string()),
            None => view.log.push(LogKind::Error, "no card selected: Tab picks a panel, [ ] scroll it"),
        },
        KeyCode::Char(c) => {
            let found = shortcuts().find(|s| s.key == c)?;
            if HINTED_BUILDING.contains(&found.spec) && view.stage != Stage::Building {
                let message = format!("{c}: `{}` is for building a limited deck", found.spec.name);
                view.log.push(LogKind::Error, message);
            } else if found.prefill {
                view.prompt.text = found.line;
                view.prompt.focused = true;
            } else if AT_ONCE.contains(&found.spec) {
                return Some(submit(view, found.line));
            } else {
                view.asked = Some(found.line);
                view.overlay = Overlay::Confirm;
            }
        }
        _ => {}
    }
    None
}

/// A key while the command line is open.
fn edit(view: &mut View, key: KeyEvent) -> Option<String> {
    let prompt = &mut view.prompt;
    match key.code {
        KeyCode::Enter => {
            let line = std::mem::take(&mut prompt.text).trim().to_string();
            prompt.focused = false;
            prompt.recalled = None;
            // Looking through a pile is the screen's business: the session never sees it.
            if let Some(words) = VIEW.arguments(&line) {
                let words = words.to_string();
                record(view, &line);
                if let Err(message) = view.open_pile(&words) {
                    view.log.push(LogKind::Error, format!("{line}: {message}"));
                }
            } else if let Some(name) = CARD.arguments(&line) {
                let name = name.to_string();
                record(view, &line);
                view.show_card(&name);
            } else if !line.is_empty() {
                return Some(submit(view, line));
            }
        }
        KeyCode::Esc => {
            prompt.text.clear();
            prompt.focused = false;
            prompt.recalled = None;
        }
        KeyCode::Backspace => {
            prompt.text.pop();
        }
        KeyCode::Char('u') if key.modifiers.contains(KeyModifiers::CONTROL) => prompt.text.clear(),
        KeyCode::Char(c) => prompt.text.push(c),
        KeyCode::Up => recall(view, Recall::Older),
        KeyCode::Down => recall(view, Recall::Newer),
        KeyCode::PageUp => view.log.scroll_by(5),
        KeyCode::PageDown => view.log.scroll_by(-5),
        _ => {}
    }
    None
}

/// Records a command in the history and the log, and hands it on.
fn submit(view: &mut View, line: String) -> String {
    record(view, &line);
    if line == QUIT.name {
        view.leaving = true;
    }
    line
}

fn record(view: &mut View, line: &str) {
    if view.prompt.history.last().map(String::as_str) != Some(line) {
        view.prompt.history.push(line.to_string());
    }
    view.log.push(LogKind::Command, format!("> {line}"));
    view.log.scroll_to_newest();
}

/// A key while a pile is on view: it scrolls, and Esc (or Enter, or q) closes it.
fn pile(view: &mut View, key: KeyEvent) -> Option<String> {
    let by = match key.code {
        KeyCode::Esc | KeyCode::Enter | KeyCode::Char('q') => {
            view.overlay = Overlay::None;
            return None;
        }
        KeyCode::Up | KeyCode::Char('[') => -1,
        KeyCode::Down | KeyCode::Char(']') => 1,
        KeyCode::PageUp => -PAGE,
        KeyCode::PageDown => PAGE,
        _ => return None,
    };
    view.scrolls.scroll(Panel::Pile, by);
    None
}

/// Cards a pile view scrolls by on PgUp and PgDn.
const PAGE: isize = 10;

enum Recall {
    Older,
    Newer,
}

/// Puts an earlier command on the command line (Up), or a later one (Down).
fn recall(view: &mut View, direction: Recall) {
    let prompt = &mut view.prompt;
    let len = prompt.history.len();
    if len == 0 {
        return;
    }
    let index = match (direction, prompt.recalled) {
        (Recall::Older, None) => Some(len - 1),
        (Recall::Older, Some(i)) => Some(i.saturating_sub(1)),
        (Recall::Newer, Some(i)) if i + 1 < len => Some(i + 1),
        (Recall::Newer, _) => None,
    };
    prompt.recalled = index;
    prompt.text = index.map(|i| prompt.history[i].clone()).unwrap_or_default();
    prompt.focused = true;
}

/// The keys in plain text, for `fairdeck host --help`: the same table the `?` overlay shows.
pub fn help_text() -> String {
    let mut text = String::from(
        "The terminal table (without --script): your zones and the opponent's, your hand, both play areas, a log\n\
         and a status line. Keys while the command line is closed:\n",
    );
    for s in shortcuts() {
        let command = if s.prefill { format!("{}…", s.line) } else { s.line };
        text.push_str(&format!("  {}  {command:<12} {}\n", s.key, s.about));
    }
    for (keys, what) in OTHER_KEYS {
        text.push_str(&format!("  {keys:<15} {what}\n"));
    }
    text.push_str(
        "A key that runs a command at once asks first (y runs it, any other key cancels), but for U.\n\
         The command line takes every scripted-mode command below, and on the screen only `view [opponent] graveyard`,\n\
         `view [opponent] exile` and `view sideboard` (a pile with card ids; Esc closes), and `card NAME` (a card's\n\
         text from the card database; `card #ID` for a card on the table); errors show in the log.",
    );
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hint_line_names_keys_of_the_table() {
        assert_eq!(
            hint_line(Stage::Playing),
            "Keys: d draw · s shuffle · p play · t tap · : command · ? help · q quit"
        );
        assert_eq!(hint_line(Stage::Building), "Keys: a add · x remove · : basics, pool, done · ? help · q quit");
        let drafting = |format| hint_line(Stage::Drafting(format));
        assert_eq!(drafting(LimitedFormat::Grid { grids: 2 }), "Keys: : pick row N | column N · ? help · q quit");
        assert_eq!(drafting(LimitedFormat::Winston { cards: 45 }), "Keys: : pile take | pass · ? help · q quit");
        assert_eq!(drafting(LimitedFormat::Draft { packs: 3, cards: 15 }), "Keys: : pick N | NAME · ? help · q quit");
        assert!(VIEW_USAGE.starts_with(&format!("{} ", VIEW.name)));
        assert!(CARD_USAGE.starts_with(&format!("{} ", CARD.name)));
    }
}
