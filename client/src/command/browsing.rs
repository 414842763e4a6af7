//! An open search, scry or surveil ([`Browsing`]): the peeked cards still in the library, and the rules of placing
//! them (`take` from a search; `top`, `bottom`, `grave` from a scry or surveil), as actions.

use fairdeck_shared::Seat;
use fairdeck_shared::table::{CardId, Placement, Position, ZoneId, ZoneKind};
use fairdeck_shared::wire::{Action, PeekPurpose};

use super::spec::Placing;

/// An open search, scry or surveil.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Browsing {
    pub purpose: PeekPurpose,
    /// The peeked cards still in the library, top first.
    pub cards: Vec<CardId>,
    /// Whether the player was shown the cards, once its peek was answered.
    pub(crate) shown: bool,
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
        let top = scry.place(Placing::Top, &[CardId(3), CardId(1)], Seat::HOST, 10).unwrap();
        assert_eq!(
            top,
            vec![Action::Rearrange { card: CardId(3), index: 0 }, Action::Rearrange { card: CardId(1), index: 1 }]
        );
        assert_eq!(scry.cards, vec![CardId(2)]);
        let mut later = scry.clone();
        let under = later.place(Placing::Top, &[CardId(2)], Seat::HOST, 10).unwrap();
        assert_eq!(under, vec![Action::Rearrange { card: CardId(2), index: 2 }], "under the two kept before");
        assert!(scry.place(Placing::Graveyard, &[CardId(2)], Seat::HOST, 10).is_err());
        assert!(scry.place(Placing::Bottom, &[CardId(1)], Seat::HOST, 10).is_err(), "already placed");
        let bottom = scry.place(Placing::Bottom, &[CardId(2)], Seat::HOST, 10).unwrap();
        assert_eq!(bottom, vec![Action::Rearrange { card: CardId(2), index: 9 }]);
        assert!(scry.take(CardId(2), ZoneKind::Hand, Seat::HOST).is_err());
    }

    #[test]
    fn a_search_takes_searched_cards_once() {
        let mut search = Browsing::new(PeekPurpose::Search, vec![CardId(1), CardId(2)]);
        let taken = search.take(CardId(2), ZoneKind::Hand, Seat::GUEST).unwrap();
        let to = ZoneId::hand(Seat::GUEST);
        assert_eq!(
            taken,
            Action::Move { card: CardId(2), to, position: Position::Top, placement: Placement::default() }
        );
        assert!(search.take(CardId(2), ZoneKind::Hand, Seat::GUEST).is_err());
        assert!(search.place(Placing::Top, &[CardId(1)], Seat::GUEST, 1).is_err());
    }
}
