//! Searching, scrying and surveilling: the peek that opens the view ([`Browsing`]), the cards placed from it
//! (`take`, `top`, `bottom`, `grave`), and `done`, which closes it (a search with a full shuffle, the only
//! thing that cleans a library someone has seen). `reveal hand` and `reveal top` live here too: they look at
//! and show cards of the player's own zones.

use fairdeck_shared::engine::Intent;
use fairdeck_shared::table::{CardId, ZoneId};
use fairdeck_shared::wire::{Action, PeekPurpose};

use super::browsing::{Browsing, purpose_name};
use super::frontend::Output;
use super::state::SessionCore;
use crate::command::resolve::{Reach, resolve_in};
use crate::command::{CardRef, Command};

impl SessionCore {
    /// Runs a command of searching, scrying, surveilling or revealing from the player's own zones.
    pub(super) fn browse(&mut self, command: Command, line: &str) {
        let seat = self.engine.seat();
        let library = self.engine.table().zone(ZoneId::library(seat)).to_vec();
        match command {
            Command::Browse(purpose, count) => {
                if let Some(open) = &self.browsing {
                    let message = format!("a {} is open: `done` closes it", purpose_name(open.purpose));
                    return refuse(line, message, self);
                }
                let len = u32::try_from(library.len()).unwrap_or(u32::MAX);
                if len == 0 {
                    return refuse(line, "your library is empty".into(), self);
                }
                // A scry of more cards than the library holds looks at them all, as at a real table.
                let count = count.map_or(len, |count| count.min(len));
                if self.intent(Intent::Act(Action::Peek { count, purpose }), line) {
                    let cards = library.iter().take(count as usize).copied().collect();
                    self.browsing = Some(Browsing::new(purpose, cards));
                }
            }
            Command::Take(card, zone) => {
                let taken = self.placed(&[card], |open, cards| open.take(cards[0], zone, seat).map(|a| vec![a]));
                self.run_placed(taken, line);
            }
            Command::Place(placing, cards) => {
                let placed = self.placed(&cards, |open, cards| open.place(placing, cards, seat, library.len()));
                self.run_placed(placed, line);
            }
            Command::Done => {
                let Some(open) = self.browsing.take() else {
                    return refuse(line, "no search, scry or surveil is open".into(), self);
                };
                self.show(Output::BrowsingClosed(open.purpose));
                // Someone saw the whole library: only a shuffle with fresh locks makes it secret again.
                if open.purpose == PeekPurpose::Search {
                    self.intent(Intent::Act(Action::Shuffle { permutation: None }), line);
                }
            }
            Command::RevealHand => {
                let cards = self.engine.table().zone(ZoneId::hand(seat)).to_vec();
                if cards.is_empty() {
                    return refuse(line, "your hand is empty".into(), self);
                }
                self.intent(Intent::Act(Action::Reveal { cards, to: Some(seat.opponent()) }), line);
            }
            Command::RevealTop => {
                let Some(&top) = library.first() else {
                    return refuse(line, "your library is empty".into(), self);
                };
                // Known to its owner first: nobody shows a card it has not seen.
                if self.intent(Intent::Act(Action::Peek { count: 1, purpose: PeekPurpose::Look }), line) {
                    self.intent(Intent::Act(Action::Reveal { cards: vec![top], to: None }), line);
                }
            }
            _ => unreachable!("only browsing commands come here"),
        }
    }

    /// The actions `plan` makes of `cards`, named in this player's library, on the open view.
    fn placed(
        &mut self,
        cards: &[CardRef],
        plan: impl FnOnce(&mut Browsing, &[CardId]) -> Result<Vec<Action>, String>,
    ) -> Result<Vec<Action>, (&'static str, String)> {
        let ids = cards
            .iter()
            .map(|card| resolve_in(&self.engine, card, Reach::Library, |_| true))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|error| (error.kind(), error.to_string()))?;
        let open = self.browsing.as_mut().ok_or(("refused", "no search, scry or surveil is open".to_string()))?;
        plan(open, &ids).map_err(|message| ("refused", message))
    }

    fn run_placed(&mut self, actions: Result<Vec<Action>, (&'static str, String)>, line: &str) {
        match actions {
            Ok(actions) => {
                for action in actions {
                    if !self.intent(Intent::Act(action), line) {
                        break;
                    }
                }
                if let Some(open) = self.browsing.clone() {
                    self.show(Output::Browsing(open));
                }
            }
            Err((kind, message)) => {
                self.show(Output::CommandError { kind, command: line.to_string(), message });
            }
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

fn refuse(line: &str, message: String, session: &mut SessionCore) {
    let error = Output::CommandError { kind: "refused", command: line.to_string(), message };
    session.show(error);
}
