//! Searching, scrying and surveilling on the session: the peek that opens the view ([`Browsing`]), the cards placed
//! from it (`take`, `top`, `bottom`, `grave`), and `done`, which closes it (a search with a full shuffle, the only
//! thing that cleans a library someone has seen). `reveal hand` and `reveal top` live here too: they look at
//! and show cards of the player's own zones. What each command means is `command/`'s.

use fairdeck_shared::engine::Intent;
use fairdeck_shared::table::{CardId, ZoneId, ZoneKind};
use fairdeck_shared::wire::{Action, PeekPurpose};

use super::error::SessionError;
use super::frontend::{Frontend, Output};
use super::state::Session;
use crate::command::resolve::{Reach, resolve_in};
use crate::command::{Browsing, CardRef, ErrorKind, Placing, purpose_name, table};

impl Session {
    /// `search`, `scry N`, `surveil N`: peeks at the top `count` cards (all for `None`) and opens the view on them.
    pub(super) fn open_browsing<F: Frontend>(
        &mut self,
        purpose: PeekPurpose,
        count: Option<u32>,
        line: &str,
        front: &mut F,
    ) -> Result<(), SessionError> {
        if let Some(open) = &self.browsing {
            let message = format!("a {} is open: `{}` closes it", purpose_name(open.purpose), table::DONE.name);
            return self.refuse(ErrorKind::Refused, line, message, front);
        }
        let library = self.library();
        let len = u32::try_from(library.len()).unwrap_or(u32::MAX);
        if len == 0 {
            return self.refuse(ErrorKind::Refused, line, "your library is empty".into(), front);
        }
        // A scry of more cards than the library holds looks at them all, as at a real table.
        let count = count.map_or(len, |count| count.min(len));
        if self.intent(Intent::Act(Action::Peek { count, purpose }), line, front)? {
            let cards = library.iter().take(count as usize).copied().collect();
            self.browsing = Some(Browsing::new(purpose, cards));
        }
        Ok(())
    }

    /// `take CARD [ZONE]`: a searched card into a zone of the player's.
    pub(super) fn take_browsed<F: Frontend>(
        &mut self,
        card: CardRef,
        zone: ZoneKind,
        line: &str,
        front: &mut F,
    ) -> Result<(), SessionError> {
        let seat = self.engine.seat();
        let taken = self.placed(&[card], |open, cards| open.take(cards[0], zone, seat).map(|a| vec![a]));
        self.run_placed(taken, line, front)
    }

    /// `top`, `bottom`, `grave`: scried or surveilled cards placed, in the order named.
    pub(super) fn place_browsed<F: Frontend>(
        &mut self,
        placing: Placing,
        cards: &[CardRef],
        line: &str,
        front: &mut F,
    ) -> Result<(), SessionError> {
        let seat = self.engine.seat();
        let len = self.library().len();
        let placed = self.placed(cards, |open, cards| open.place(placing, cards, seat, len));
        self.run_placed(placed, line, front)
    }

    /// `done`: closes the view; a search shuffles the library.
    pub(super) fn close_browsing<F: Frontend>(&mut self, line: &str, front: &mut F) -> Result<(), SessionError> {
        let Some(open) = self.browsing.take() else {
            return self.refuse(ErrorKind::Refused, line, "no search, scry or surveil is open".into(), front);
        };
        front.show(Output::BrowsingClosed(open.purpose), &self.engine)?;
        // Someone saw the whole library: only a shuffle with fresh locks makes it secret again.
        if open.purpose == PeekPurpose::Search {
            self.intent(Intent::Act(Action::Shuffle { permutation: None }), line, front)?;
        }
        Ok(())
    }

    /// `reveal hand`: every card of the player's hand to the opponent.
    pub(super) fn reveal_hand<F: Frontend>(&mut self, line: &str, front: &mut F) -> Result<(), SessionError> {
        let seat = self.engine.seat();
        let cards = self.engine.table().zone(ZoneId::hand(seat)).to_vec();
        if cards.is_empty() {
            return self.refuse(ErrorKind::Refused, line, "your hand is empty".into(), front);
        }
        self.intent(Intent::Act(Action::Reveal { cards, to: Some(seat.opponent()) }), line, front)?;
        Ok(())
    }

    /// `reveal top`: the library's top card, looked at, then shown to both.
    pub(super) fn reveal_top<F: Frontend>(&mut self, line: &str, front: &mut F) -> Result<(), SessionError> {
        let Some(&top) = self.library().first() else {
            return self.refuse(ErrorKind::Refused, line, "your library is empty".into(), front);
        };
        // Known to its owner first: nobody shows a card it has not seen.
        if self.intent(Intent::Act(Action::Peek { count: 1, purpose: PeekPurpose::Look }), line, front)? {
            self.intent(Intent::Act(Action::Reveal { cards: vec![top], to: None }), line, front)?;
        }
        Ok(())
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

    fn run_placed<F: Frontend>(
        &mut self,
        actions: Result<Vec<Action>, (ErrorKind, String)>,
        line: &str,
        front: &mut F,
    ) -> Result<(), SessionError> {
        match actions {
            Ok(actions) => {
                for action in actions {
                    if !self.intent(Intent::Act(action), line, front)? {
                        break;
                    }
                }
                if let Some(open) = &self.browsing {
                    front.show(Output::Browsing(open.clone()), &self.engine)?;
                }
                Ok(())
            }
            Err((kind, message)) => self.refuse(kind, line, message, front),
        }
    }

    /// Shows the open view once its peek is answered: the player then knows every card in it.
    pub(super) fn show_browsing<F: Frontend>(&mut self, front: &mut F) -> Result<(), SessionError> {
        if self.engine.is_busy() {
            return Ok(());
        }
        if let Some(open) = self.browsing.as_mut().filter(|open| !open.shown) {
            open.shown = true;
            let open = open.clone();
            front.show(Output::Browsing(open), &self.engine)?;
        }
        Ok(())
    }
}
