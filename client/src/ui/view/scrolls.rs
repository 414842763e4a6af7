//! What scrolls on the table, and how far.

use std::cell::Cell;

use fairdeck_shared::table::CardId;

/// What scrolls on the table: the hands, the play areas, and the pile on view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Panel {
    MyHand,
    MyPlay,
    TheirPlay,
    TheirHand,
    Pile,
}

impl Panel {
    /// The panels Tab goes round, from the bottom of the screen up.
    pub const CYCLE: [Panel; 4] = [Panel::MyHand, Panel::MyPlay, Panel::TheirPlay, Panel::TheirHand];
}

/// Which panel the scroll keys move, and how far each is scrolled (in rows of cards: a hand's row, a card
/// in play, a card in a pile).
#[derive(Clone, Debug, Default)]
pub struct Scrolls {
    /// The panel the scroll keys move, as an index in [`Panel::CYCLE`].
    focus: usize,
    offsets: [usize; 5],
    /// How far each panel could scroll at the size last drawn: the drawing finds out, and the keys stop
    /// there.
    limits: Cell<[usize; 5]>,
    /// Each panel's selected card, as last drawn: the first card it shows.
    selected: Cell<[Option<CardId>; 5]>,
}

impl Scrolls {
    pub fn focus(&self) -> Panel {
        Panel::CYCLE[self.focus]
    }

    /// Moves the focus to the next panel (or the one before).
    pub fn cycle(&mut self, forward: bool) {
        let len = Panel::CYCLE.len();
        self.focus = if forward { (self.focus + 1) % len } else { (self.focus + len - 1) % len };
    }

    pub fn offset(&self, panel: Panel) -> usize {
        self.offsets[panel as usize]
    }

    /// Scrolls `panel` `by` rows down (negative: up), as far as it last could.
    pub fn scroll(&mut self, panel: Panel, by: isize) {
        let limit = self.limits.get()[panel as usize];
        let offset = &mut self.offsets[panel as usize];
        // From where the panel shows now: the size may have shrunk since it scrolled.
        *offset = (*offset).min(limit).saturating_add_signed(by).min(limit);
    }

    /// Records how far `panel` can scroll at the size being drawn.
    pub fn set_limit(&self, panel: Panel, limit: usize) {
        let mut limits = self.limits.get();
        limits[panel as usize] = limit;
        self.limits.set(limits);
    }

    /// The card `panel` showed first when last drawn: the one a key on the selected card acts on.
    pub fn selected(&self, panel: Panel) -> Option<CardId> {
        self.selected.get()[panel as usize]
    }

    /// Records the card `panel` shows first at the size being drawn.
    pub fn set_selected(&self, panel: Panel, card: Option<CardId>) {
        let mut selected = self.selected.get();
        selected[panel as usize] = card;
        self.selected.set(selected);
    }

    pub(super) fn reset(&mut self, panel: Panel) {
        self.offsets[panel as usize] = 0;
    }
}
