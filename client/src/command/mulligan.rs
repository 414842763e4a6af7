//! The London mulligan's last step: after `mulligan` (the hand shuffled away, seven drawn), `bottom` with no scry
//! open puts the cards of the hand it names at the bottom of the library, in the order named.

use fairdeck_shared::crypto::Group;
use fairdeck_shared::engine::Engine;
use fairdeck_shared::table::{CardId, Placement, Position, ZoneId};
use fairdeck_shared::wire::Action;

use super::error::ErrorKind;
use super::resolve::{CardRef, Reach, resolve_in};

/// The actions that put `cards`, of the hand of `engine`'s player, at the bottom of its library one by one: the
/// last named ends bottommost. Copies of one name named twice are two copies.
pub fn hand_to_bottom<G: Group>(engine: &Engine<G>, cards: &[CardRef]) -> Result<Vec<Action>, (ErrorKind, String)> {
    let seat = engine.seat();
    let hand = ZoneId::hand(seat);
    let mut chosen: Vec<CardId> = Vec::with_capacity(cards.len());
    for card in cards {
        let id = resolve_in(engine, card, Reach::Hand, |copy| !chosen.contains(&copy.id))
            .map_err(|error| (error.kind(), error.to_string()))?;
        // An id is taken as it is: it must be one of the hand's, once.
        if engine.table().card(id).is_none_or(|card| card.zone != hand) {
            return Err((ErrorKind::Refused, format!("{id} is not in your hand")));
        }
        if chosen.contains(&id) {
            return Err((ErrorKind::Refused, format!("{id} is named twice")));
        }
        chosen.push(id);
    }
    let to = ZoneId::library(seat);
    let action = |card| Action::Move { card, to, position: Position::Bottom, placement: Placement::default() };
    Ok(chosen.into_iter().map(action).collect())
}

#[cfg(test)]
mod tests {
    use fairdeck_shared::Seat;
    use fairdeck_shared::crypto::Ristretto255;
    use fairdeck_shared::engine::{DeckCard, DeckList, Intent};
    use fairdeck_shared::pair::{Pair, numbered_deck};

    use super::*;
    use crate::command::{Command, Placing, parse};

    /// The host mulliganed a deck of seven: its hand is the whole deck, its library empty.
    fn mulliganed() -> Pair<Ristretto255> {
        let names = ["Mountain", "Mountain", "Mountain", "Lava Spike", "Lava Spike", "Goblin Guide", "Lightning Bolt"];
        let library = names.iter().map(|name| DeckCard { name: name.to_string(), back: 0 }).collect();
        let mut pair = Pair::new(DeckList { library, ..DeckList::default() }, numbered_deck("Guest", 5, 0), 5);
        pair.drive();
        pair.intent(Seat::HOST, Intent::Act(Action::Mulligan { draw: 7 })).unwrap();
        pair.drive();
        assert_eq!(pair.host.table().zone(ZoneId::hand(Seat::HOST)).len(), 7);
        pair
    }

    fn bottom(pair: &Pair<Ristretto255>, line: &str) -> Result<Vec<Action>, (ErrorKind, String)> {
        let Ok(Command::Place(Placing::Bottom, cards)) = parse(line, Seat::HOST) else { panic!("{line}") };
        hand_to_bottom(&pair.host, &cards)
    }

    fn names(pair: &Pair<Ristretto255>, zone: ZoneId) -> Vec<String> {
        let name = |id: &CardId| pair.host.identity(*id).map_or_else(|| "?".into(), |card| card.name.clone());
        pair.host.table().zone(zone).iter().map(name).collect()
    }

    #[test]
    fn bottom_puts_the_named_cards_of_the_hand_under_the_library_in_order() {
        let mut pair = mulliganed();
        let actions = bottom(&pair, "bottom Mountain, lava spike, mountain").unwrap();
        for action in actions {
            pair.intent(Seat::HOST, Intent::Act(action)).unwrap();
        }
        pair.drive();
        assert_eq!(names(&pair, ZoneId::library(Seat::HOST)), ["Mountain", "Lava Spike", "Mountain"]);
        let mut hand = names(&pair, ZoneId::hand(Seat::HOST));
        hand.sort();
        assert_eq!(hand, ["Goblin Guide", "Lava Spike", "Lightning Bolt", "Mountain"]);
        // The opponent saw cards go, not which.
        let library = pair.guest.table().zone(ZoneId::library(Seat::HOST)).to_vec();
        assert!(library.iter().all(|card| pair.guest.identity(*card).is_none()));
    }

    #[test]
    fn bottom_refuses_a_card_not_in_the_hand_or_named_too_often() {
        let pair = mulliganed();
        let error = bottom(&pair, "bottom Mountain, Mountain, Mountain, Mountain").unwrap_err();
        assert_eq!(error.0, ErrorKind::Refused);
        assert!(error.1.ends_with("is named twice"), "{error:?}");
        let error = bottom(&pair, "bottom Shock").unwrap_err();
        assert_eq!(error, (ErrorKind::UnknownCard, "no card you know matches \"Shock\" in your hand".to_string()));
        let guest_card = pair.guest.table().zone(ZoneId::library(Seat::GUEST))[0];
        assert_eq!(
            bottom(&pair, &format!("bottom {guest_card}")).unwrap_err().1,
            format!("{guest_card} is not in your hand")
        );
    }
}
