//! Searching, scrying and surveilling on the session: the peek that opens the view ([`Browsing`]), the cards placed
//! from it (`take`, `top`, `bottom`, `grave`), and `done`, which closes it (a search with a full shuffle, the only
//! thing that cleans a library someone has seen). `reveal hand` and `reveal top` live here too: they look at
//! and show cards of the player's own zones. What each command means is `command/`'s.

use fairdeck_shared::crypto::Group;
use fairdeck_shared::engine::Intent;
use fairdeck_shared::table::{CardId, ZoneId, ZoneKind};
use fairdeck_shared::wire::{Action, PeekPurpose};

use super::frontend::Output;
use super::state::SessionCore;
use crate::command::resolve::{Reach, resolve_in};
use crate::command::{Browsing, CardRef, ErrorKind, Placing, purpose_name, table};

impl<G: Group> SessionCore<G> {
    /// `search`, `scry N`, `surveil N`: peeks at the top `count` cards (all for `None`) and opens the view on them.
    pub(super) fn open_browsing(&mut self, purpose: PeekPurpose, count: Option<u32>, line: &str) {
        if let Some(open) = &self.browsing {
            let message = format!("a {} is open: `{}` closes it", purpose_name(open.purpose), table::DONE.name);
            return self.refuse(ErrorKind::Refused, line, message);
        }
        let library = self.library();
        let len = u32::try_from(library.len()).unwrap_or(u32::MAX);
        if len == 0 {
            return self.refuse(ErrorKind::Refused, line, "your library is empty".into());
        }
        // A scry of more cards than the library holds looks at them all, as at a real table.
        let count = count.map_or(len, |count| count.min(len));
        if self.intent(Intent::Act(Action::Peek { count, purpose }), line) {
            let cards = library.iter().take(count as usize).copied().collect();
            self.browsing = Some(Browsing::new(purpose, cards));
        }
    }

    /// `take CARD [ZONE]`: a searched card into a zone of the player's.
    pub(super) fn take_browsed(&mut self, card: CardRef, zone: ZoneKind, line: &str) {
        let seat = self.engine.seat();
        let taken = self.placed(&[card], |open, cards| open.take(cards[0], zone, seat).map(|a| vec![a]));
        self.run_placed(taken, line)
    }

    /// `top`, `bottom`, `grave`: scried or surveilled cards placed, in the order named.
    pub(super) fn place_browsed(&mut self, placing: Placing, cards: &[CardRef], line: &str) {
        let seat = self.engine.seat();
        let len = self.library().len();
        let placed = self.placed(cards, |open, cards| open.place(placing, cards, seat, len));
        self.run_placed(placed, line)
    }

    /// `done`: closes the view; a search shuffles the library.
    pub(super) fn close_browsing(&mut self, line: &str) {
        let Some(open) = self.browsing.take() else {
            return self.refuse(ErrorKind::Refused, line, "no search, scry or surveil is open".into());
        };
        self.show(Output::BrowsingClosed(open.purpose));
        // Someone saw the whole library: only a shuffle with fresh locks makes it secret again.
        if open.purpose == PeekPurpose::Search {
            self.intent(Intent::Act(Action::Shuffle { permutation: None }), line);
        }
    }

    /// `reveal hand`: every card of the player's hand to the opponent.
    pub(super) fn reveal_hand(&mut self, line: &str) {
        let seat = self.engine.seat();
        let cards = self.engine.table().zone(ZoneId::hand(seat)).to_vec();
        if cards.is_empty() {
            return self.refuse(ErrorKind::Refused, line, "your hand is empty".into());
        }
        self.intent(Intent::Act(Action::Reveal { cards, to: Some(seat.opponent()) }), line);
    }

    /// `reveal top`: the library's top card, looked at, then shown to both.
    pub(super) fn reveal_top(&mut self, line: &str) {
        let Some(&top) = self.library().first() else {
            return self.refuse(ErrorKind::Refused, line, "your library is empty".into());
        };
        // Known to its owner first: nobody shows a card it has not seen.
        if self.intent(Intent::Act(Action::Peek { count: 1, purpose: PeekPurpose::Look }), line) {
            self.intent(Intent::Act(Action::Reveal { cards: vec![top], to: None }), line);
        }
    }

    /// The player's library, top first.
    fn library(&self) -> Vec<CardId> {
        self.engine.table().zone(ZoneId::library(self.engine.seat())).to_vec()
    }

    /// The actions `plan` makes of `cards`, named in this player's library, on the open view.
    fn placed(
        &mut self,
        cards: &[CardRef],
        plan: impl FnOnce(&mut Browsing, &[CardId]) -> Result<Vec<Action>, String>,
    ) -> Result<Vec<Action>, (ErrorKind, String)> {
        let ids = cards
            .iter()
            .map(|card| resolve_in(&self.engine, card, Reach::Library, |_| true))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|error| (error.kind(), error.to_string()))?;
        let not_open = (ErrorKind::Refused, "no search, scry or surveil is open".to_string());
        let open = self.browsing.as_mut().ok_or(not_open)?;
        plan(open, &ids).map_err(|message| (ErrorKind::Refused, message))
    }

    fn run_placed(&mut self, actions: Result<Vec<Action>, (ErrorKind, String)>, line: &str) {
        match actions {
            Ok(actions) => {
                self.intents(actions, line);
                if let Some(open) = &self.browsing {
                    self.show(Output::Browsing(open.clone()));
                }
            }
            Err((kind, message)) => self.refuse(kind, line, message),
        }
    }

    /// Shows the open view once its peek is answered: the player then knows every card in it.
    pub(super) fn show_browsing(&mut self) {
        if self.engine.is_busy() {
            return;
        }
        if let Some(open) = self.browsing.as_mut().filter(|open| !open.shown) {
            open.shown = true;
            let open = open.clone();
            self.show(Output::Browsing(open));
        }
    }
}
