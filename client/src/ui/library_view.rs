//! The open search, scry or surveil on the terminal: the peeked cards of the player's library, top first with
//! ids, over the table until `done`, and the commands that place them. The command line stays usable under it.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style, Stylize};
use ratatui::text::Line;
use ratatui::widgets::{Block, Clear, Paragraph};

use super::panels::centered;
use super::view::{LibraryView, View};
use crate::command::table;
use crate::session::purpose_name;

/// The widest the overlay is.
const WIDTH: u16 = 60;
/// How far PageUp and PageDown scroll.
const PAGE: usize = 10;

/// A key while the view is open and the command line closed: `:` or Enter opens the command line, the
/// arrows scroll, Esc runs `done`.
pub fn key(view: &mut View, key: KeyEvent) -> Option<String> {
    let open = view.library.as_mut()?;
    match key.code {
        KeyCode::Esc => return Some(table::DONE.name.to_string()),
        KeyCode::Char(':') | KeyCode::Enter => view.prompt.focused = true,
        KeyCode::Up | KeyCode::Char('[') => open.scroll = open.scroll.saturating_sub(1),
        KeyCode::Down | KeyCode::Char(']') => open.scroll = (open.scroll + 1).min(open.cards.len().saturating_sub(1)),
        KeyCode::PageUp => open.scroll = open.scroll.saturating_sub(PAGE),
        KeyCode::PageDown => open.scroll = (open.scroll + PAGE).min(open.cards.len().saturating_sub(1)),
        _ => {}
    }
    None
}

/// Draws the view over the table.
pub fn render(frame: &mut Frame, area: Rect, open: &LibraryView) {
    let lines: Vec<Line> = if open.cards.is_empty() {
        vec![Line::from("no card left").italic()]
    } else {
        open.lines().into_iter().skip(open.scroll).map(Line::from).collect()
    };
    let height = u16::try_from(lines.len()).unwrap_or(u16::MAX).saturating_add(2);
    let popup = centered(area, WIDTH.min(area.width), height.min(area.height.saturating_sub(2)));
    frame.render_widget(Clear, popup);
    let rows = usize::from(popup.height.saturating_sub(2));
    let (first, total) = (open.scroll + 1, open.cards.len());
    let last = (open.scroll + rows).min(total);
    // Which cards are shown when not all fit, and how to see the others.
    let shown = if first > 1 || last < total { format!(" {first}–{last}, ↑↓ PgUp PgDn") } else { String::new() };
    let cards = if total == 1 { "card" } else { "cards" };
    let title = format!(" {} · {total} {cards}{shown} ", purpose_name(open.purpose));
    let block = Block::bordered()
        .title(title)
        .title_bottom(Line::from(format!(" {} ", open.hint())).right_aligned())
        .border_style(Style::new().fg(Color::Yellow));
    frame.render_widget(Paragraph::new(lines).block(block), popup);
}

#[cfg(test)]
mod tests {
    use crossterm::event::KeyModifiers;
    use fairdeck_shared::table::CardId;
    use fairdeck_shared::wire::PeekPurpose;
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    use super::*;

    fn searched(count: u32) -> View {
        let mut view = View::new("ws://127.0.0.1:7171/v1");
        let cards = (1..=count).map(|id| (CardId(id), Some(format!("Goblin {id}")))).collect();
        view.library = Some(LibraryView { purpose: PeekPurpose::Search, cards, scroll: 0 });
        view
    }

    fn screen(view: &View) -> String {
        let mut terminal = Terminal::new(TestBackend::new(80, 24)).unwrap();
        terminal.draw(|frame| crate::ui::render::render(frame, view)).unwrap();
        let buffer = terminal.backend().buffer();
        (0..24).map(|y| (0..80).map(|x| buffer[(x, y)].symbol()).collect::<String>() + "\n").collect()
    }

    fn press(view: &mut View, code: KeyCode) -> Option<String> {
        key(view, KeyEvent::new(code, KeyModifiers::NONE))
    }

    #[test]
    fn a_long_search_says_which_cards_it_shows_and_scrolls_by_page() {
        let mut view = searched(92);
        let first = screen(&view);
        assert!(first.contains("search · 92 cards 1–20, ↑↓ PgUp PgDn"), "{first}");
        assert!(first.contains("#1 Goblin 1 (top)") && first.contains("#20 Goblin 20"), "{first}");
        assert!(!first.contains("#21 Goblin"), "{first}");
        assert!(first.contains(": take CARD [ZONE] · Esc: done (shuffles)"), "the whole hint: {first}");
        assert_eq!(press(&mut view, KeyCode::PageDown), None);
        let second = screen(&view);
        assert!(second.contains("11–30") && second.contains("#11 Goblin 11") && !second.contains("#10 Goblin"));
        press(&mut view, KeyCode::Up);
        assert!(screen(&view).contains("#10 Goblin 10"));
        assert_eq!(press(&mut view, KeyCode::Esc).as_deref(), Some("done"), "Esc closes the search");
    }

    #[test]
    fn a_short_scry_shows_every_card_without_a_range() {
        let mut view = searched(2);
        if let Some(open) = view.library.as_mut() {
            open.purpose = PeekPurpose::Scry;
        }
        let text = screen(&view);
        assert!(text.contains("scry · 2 cards ") && !text.contains("1–2"), "{text}");
        assert!(text.contains(": top CARD… · : bottom CARD… · Esc: done"), "{text}");
    }
}
