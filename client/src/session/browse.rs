//! Searching, scrying and surveilling: the peek that opens the view ([`Browsing`]), the cards placed from it
//! (`take`, `top`, `bottom`, `grave`), and `done`, which closes it (a search with a full shuffle, the only
//! thing that cleans a library someone has seen). `reveal hand` and `reveal top` live here too: they look at
//! and show cards of the player's own zones.

use fairdeck_shared::Seat;
use fairdeck_shared::engine::Intent;
use fairdeck_shared::table::{CardId, Placement, Position, ZoneId, ZoneKind};
use fairdeck_shared::wire::{Action, PeekPurpose};

use super::frontend::Output;
use super::state::SessionCore;
use crate::command::resolve::{Reach, resolve_in};
use crate::command::{CardRef, Command, Placing};

/// An open search, scry or surveil.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Browsing {
    pub purpose: PeekPurpose,
    /// The peeked cards still in the library, top first.
    pub cards: Vec<CardId>,
    /// Whether the player was shown the cards, once its peek was answered.
    pub(super) shown: bool,
    /// How many cards `top` has put back so far: the next go under them, so the order named across several
    /// `top` commands is the order from the top.
    kept_on_top: u32,
}

impl Browsing {
    pub fn new(purpose: PeekPurpose, cards: Vec<CardId>) -> Browsing {
        Browsing { purpose, cards, shown: false, kept_on_top: 0 }
    }

    /// The action that takes `card`, a searched one, into `zone` of `seat`'s; it leaves the view.
    pub fn take(&mut self, card: CardId, zone: ZoneKind, seat: Seat) -> Result<Action, String> {
        if self.purpose != PeekPurpose::Search {
            return Err("`take` is for a search: place scried or surveilled cards with `top`, `bottom`, `grave`".into());
        }
        self.remove(&[card])?;
        let to = ZoneId::new(seat, zone);
        Ok(Action::Move { card, to, position: Position::Top, placement: Placement::default() })
    }

    /// The actions that put `cards`, peeked ones, where `placing` says in `seat`'s library of `len` cards, in
    /// the order given; they leave the view.
    pub fn place(&mut self, placing: Placing, cards: &[CardId], seat: Seat, len: usize) -> Result<Vec<Action>, String> {
        match (self.purpose, placing) {
            (PeekPurpose::Scry, Placing::Top | Placing::Bottom)
            | (PeekPurpose::Surveil, Placing::Top | Placing::Graveyard) => {}
            (PeekPurpose::Scry, Placing::Graveyard) => return Err("a scry puts cards on top or at the bottom".into()),
            (PeekPurpose::Surveil, Placing::Bottom) => {
                return Err("a surveil puts cards on top or into the graveyard".into());
            }
            _ => {
                return Err("`top`, `bottom` and `grave` place scried or surveilled cards: `take` from a search".into());
            }
        }
        self.remove(cards)?;
        let bottom = u32::try_from(len.saturating_sub(1)).unwrap_or(u32::MAX);
        let first_on_top = self.kept_on_top;
        if placing == Placing::Top {
            self.kept_on_top += u32::try_from(cards.len()).unwrap_or(u32::MAX);
        }
        let actions = cards.iter().zip(first_on_top..).map(|(&card, index)| match placing {
            // Each after the one before: the first ends topmost, the last bottommost.
            Placing::Top => Action::Rearrange { card, index },
            Placing::Bottom => Action::Rearrange { card, index: bottom },
            Placing::Graveyard => Action::Move {
                card,
                to: ZoneId::new(seat, ZoneKind::Graveyard),
                position: Position::Top,
                placement: Placement::default(),
            },
        });
        Ok(actions.collect())
    }

    /// Takes `cards` out of the view, if every one is in it, once.
    fn remove(&mut self, cards: &[CardId]) -> Result<(), String> {
        for (i, card) in cards.iter().enumerate() {
            if !self.cards.contains(card) {
                return Err(format!("{card} is not among the cards you are looking at"));
            }
            if cards[..i].contains(card) {
                return Err(format!("{card} is named twice"));
            }
        }
        self.cards.retain(|card| !cards.contains(card));
        Ok(())
    }
}

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

/// The purpose in the table's words.
pub fn purpose_name(purpose: PeekPurpose) -> &'static str {
    match purpose {
        PeekPurpose::Look => "look",
        PeekPurpose::Scry => "scry",
        PeekPurpose::Surveil => "surveil",
        PeekPurpose::Search => "search",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scry_places_its_cards_and_only_those() {
        let mut scry = Browsing::new(PeekPurpose::Scry, vec![CardId(1), CardId(2), CardId(3)]);
        let top = scry.place(Placing::Top, &[CardId(3), CardId(1)], Seat::Host, 10).unwrap();
        assert_eq!(
            top,
            vec![Action::Rearrange { card: CardId(3), index: 0 }, Action::Rearrange { card: CardId(1), index: 1 }]
        );
        assert_eq!(scry.cards, vec![CardId(2)]);
        let mut later = scry.clone();
        let under = later.place(Placing::Top, &[CardId(2)], Seat::Host, 10).unwrap();
        assert_eq!(under, vec![Action::Rearrange { card: CardId(2), index: 2 }], "under the two kept before");
        assert!(scry.place(Placing::Graveyard, &[CardId(2)], Seat::Host, 10).is_err());
        assert!(scry.place(Placing::Bottom, &[CardId(1)], Seat::Host, 10).is_err(), "already placed");
        let bottom = scry.place(Placing::Bottom, &[CardId(2)], Seat::Host, 10).unwrap();
        assert_eq!(bottom, vec![Action::Rearrange { card: CardId(2), index: 9 }]);
        assert!(scry.take(CardId(2), ZoneKind::Hand, Seat::Host).is_err());
    }

    #[test]
    fn a_search_takes_searched_cards_once() {
        let mut search = Browsing::new(PeekPurpose::Search, vec![CardId(1), CardId(2)]);
        let taken = search.take(CardId(2), ZoneKind::Hand, Seat::Guest).unwrap();
        let to = ZoneId::hand(Seat::Guest);
        assert_eq!(
            taken,
            Action::Move { card: CardId(2), to, position: Position::Top, placement: Placement::default() }
        );
        assert!(search.take(CardId(2), ZoneKind::Hand, Seat::Guest).is_err());
        assert!(search.place(Placing::Top, &[CardId(1)], Seat::Guest, 1).is_err());
    }
}
