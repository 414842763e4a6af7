//! The open search, scry or surveil on the terminal: the peeked cards of the player's library, top first with
//! ids, over the table until `done`, and the commands that place them. The command line stays usable under it.

use crossterm::event::{KeyCode, KeyEvent};
use fairdeck_shared::crypto::Group;
use fairdeck_shared::engine::Engine;
use fairdeck_shared::table::CardId;
use fairdeck_shared::wire::PeekPurpose;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style, Stylize};
use ratatui::text::Line;
use ratatui::widgets::{Block, Clear, Paragraph};

use super::panels::centered;
use super::view::View;
use crate::session::{Browsing, purpose_name};

/// The widest the overlay is.
const WIDTH: u16 = 60;

/// What the overlay lists: the cards with the names this player knows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LibraryView {
    pub purpose: PeekPurpose,
    pub cards: Vec<(CardId, Option<String>)>,
    /// The first card listed, when they do not all fit.
    pub scroll: usize,
}

impl LibraryView {
    pub fn new<G: Group>(open: &Browsing, engine: &Engine<G>) -> LibraryView {
        let name = |card: CardId| engine.identity(card).map(|identity| identity.name.clone());
        LibraryView {
            purpose: open.purpose,
            cards: open.cards.iter().map(|&card| (card, name(card))).collect(),
            scroll: 0,
        }
    }

    /// The commands that place the cards, for the overlay's foot.
    pub fn hint(&self) -> &'static str {
        match self.purpose {
            PeekPurpose::Search => ": take CARD [hand|graveyard|exile|play] · Esc: done (shuffles)",
            PeekPurpose::Scry => ": top CARD… · : bottom CARD… · Esc: done",
            PeekPurpose::Surveil => ": top CARD… · : grave CARD… · Esc: done",
            PeekPurpose::Look => "Esc: done",
        }
    }

    /// The lines listed: `#12 Lightning Bolt`, the first marked as the top.
    pub fn lines(&self) -> Vec<String> {
        self.cards
            .iter()
            .enumerate()
            .map(|(i, (card, name))| {
                let name = name.as_deref().unwrap_or("unknown card");
                if i == 0 { format!("{card} {name} (top)") } else { format!("{card} {name}") }
            })
            .collect()
    }
}

/// A key while the view is open and the command line closed: `:` or Enter opens the command line, the
/// arrows scroll, Esc runs `done`.
pub fn key(view: &mut View, key: KeyEvent) -> Option<String> {
    let open = view.library.as_mut()?;
    match key.code {
        KeyCode::Esc => return Some("done".to_string()),
        KeyCode::Char(':') | KeyCode::Enter => view.prompt.focused = true,
        KeyCode::Up | KeyCode::Char('[') => open.scroll = open.scroll.saturating_sub(1),
        KeyCode::Down | KeyCode::Char(']') => open.scroll = (open.scroll + 1).min(open.cards.len().saturating_sub(1)),
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
    let title = format!(" {} · {} cards ", purpose_name(open.purpose), open.cards.len());
    let block = Block::bordered()
        .title(title)
        .title_bottom(Line::from(format!(" {} ", open.hint())).right_aligned())
        .border_style(Style::new().fg(Color::Yellow));
    frame.render_widget(Paragraph::new(lines).block(block), popup);
}
