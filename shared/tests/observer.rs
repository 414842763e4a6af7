//! A spectator's engine (`observer`) fed what one player's engine handled: it learns a card's name exactly when both
//! players know it, and catches a forwarded envelope that was tampered with, or a player showing it a message other
//! than the one its opponent took in. (The random games and the tamper suite run spectators too.)

use fairdeck_shared::Seat;
use fairdeck_shared::crypto::Ristretto255;
use fairdeck_shared::engine::{AlertKind, Event, Intent};
use fairdeck_shared::observer::Observer;
use fairdeck_shared::pair::{Pair, numbered_deck};
use fairdeck_shared::table::{Placement, Position, ZoneId, ZoneKind};
use fairdeck_shared::wire::{self, Action};

type G = Ristretto255;

fn ready() -> Pair<G> {
    let mut pair = Pair::<G>::new(numbered_deck("Host", 10, 1), numbered_deck("Guest", 10, 1), 21);
    pair.drive();
    assert!(pair.host.is_ready() && pair.guest.is_ready());
    pair
}

/// Feeds `observer` what `seat`'s engine handled from `from` on; gives the alerts it raised.
fn feed(observer: &mut Observer<G>, pair: &Pair<G>, seat: Seat, from: usize) -> Vec<(AlertKind, bool)> {
    for (sender, envelope) in &pair.engine(seat).record()[from..] {
        observer.observe(*sender, &wire::encode_envelope(envelope));
    }
    alerts(observer)
}

fn alerts(observer: &mut Observer<G>) -> Vec<(AlertKind, bool)> {
    let mut alerts = Vec::new();
    while let Some(event) = observer.poll_event() {
        if let Event::Alert(alert) = event {
            alerts.push((alert.kind, alert.evidence.is_some()));
        }
    }
    alerts
}

#[test]
fn a_card_is_named_to_the_spectator_when_both_players_know_it() {
    let mut pair = ready();
    pair.intent(Seat::GUEST, Intent::Act(Action::Draw { count: 2 })).unwrap();
    pair.drive();
    let mut spectator = Observer::<G>::new([1; 32]);
    assert!(feed(&mut spectator, &pair, Seat::HOST, 0).is_empty());
    let hand = pair.guest.table().zone(ZoneId::hand(Seat::GUEST)).to_vec();
    assert_eq!(hand.len(), 2);
    assert!(hand.iter().all(|id| spectator.identity(*id).is_none()), "the guest's hand is the guest's alone");
    assert_eq!(spectator.table(), pair.host.table());

    let played = hand[0];
    let to = ZoneId::new(Seat::GUEST, ZoneKind::Play);
    let action = Action::Move { card: played, to, position: Position::Top, placement: Placement::default() };
    pair.intent(Seat::GUEST, Intent::Act(action)).unwrap();
    pair.drive();
    let taken = spectator.seen(Seat::HOST) + spectator.seen(Seat::GUEST);
    assert!(feed(&mut spectator, &pair, Seat::HOST, taken as usize).is_empty());
    assert_eq!(spectator.identity(played), pair.guest.identity(played), "played face up: public");
    assert!(spectator.identity(played).is_some());
    assert_eq!(spectator.identity(hand[1]), None, "still in hand");
    assert_eq!(spectator.table(), pair.guest.table());
}

#[test]
fn a_forwarded_envelope_changed_on_its_way_is_caught_and_blames_nobody() {
    let mut pair = ready();
    pair.intent(Seat::HOST, Intent::Act(Action::Draw { count: 1 })).unwrap();
    pair.drive();
    let mut spectator = Observer::<G>::new([2; 32]);
    let record = pair.host.record();
    let (last, rest) = record.split_last().unwrap();
    for (from, envelope) in rest {
        spectator.observe(*from, &wire::encode_envelope(envelope));
    }
    assert!(alerts(&mut spectator).is_empty());
    let mut bytes = wire::encode_envelope(&last.1);
    let at = bytes.len() - 70;
    bytes[at] ^= 1;
    spectator.observe(last.0, &bytes);
    let raised = alerts(&mut spectator);
    assert_eq!(raised.len(), 1, "{raised:?}");
    assert!(matches!(raised[0], (AlertKind::Sequence | AlertKind::Malformed, false)), "{raised:?}");
    assert!(spectator.halted().is_some());
}

#[test]
fn a_player_showing_the_spectator_another_message_is_caught_by_the_opponents_next_one() {
    // Two games from the same seeds are the same game until the host acts otherwise: the host's signature is the
    // same key's, so what it shows the spectator is a message it really signed, only not the one the guest took in.
    let mut shown = ready();
    let mut played = ready();
    let before = shown.host.record().len();
    shown.intent(Seat::HOST, Intent::Act(Action::Flip)).unwrap();
    played.intent(Seat::HOST, Intent::Act(Action::Roll { dice: "1d6".parse().unwrap() })).unwrap();
    played.drive();
    let mut spectator = Observer::<G>::new([3; 32]);
    for (from, envelope) in &played.host.record()[..before] {
        spectator.observe(*from, &wire::encode_envelope(envelope));
    }
    // The host's own messages of another game: signed and in sequence, so they pass on their own.
    for (from, forged) in &shown.host.record()[before..] {
        spectator.observe(*from, &wire::encode_envelope(forged));
    }
    assert!(alerts(&mut spectator).is_empty());
    // The guest's next message acknowledges the message it really took in: the chains differ.
    let (guest, answer) = played.host.record()[before..].iter().find(|(from, _)| *from == Seat::GUEST).unwrap();
    spectator.observe(*guest, &wire::encode_envelope(answer));
    let raised = alerts(&mut spectator);
    assert_eq!(raised, vec![(AlertKind::Sequence, false)]);
}

#[test]
fn an_envelope_acknowledging_messages_not_shown_is_caught() {
    let mut pair = ready();
    pair.intent(Seat::HOST, Intent::Act(Action::Draw { count: 1 })).unwrap();
    pair.drive();
    let record = pair.host.record();
    // Everything but the host's last message before the guest's last: the guest's acknowledges a message the
    // spectator was not shown.
    let guest_last = record.iter().rposition(|(from, _)| *from == Seat::GUEST).unwrap();
    let host_before = record[..guest_last].iter().rposition(|(from, _)| *from == Seat::HOST).unwrap();
    let mut spectator = Observer::<G>::new([4; 32]);
    for (from, envelope) in record[..guest_last].iter().take(host_before) {
        spectator.observe(*from, &wire::encode_envelope(envelope));
    }
    for (from, envelope) in &record[host_before + 1..=guest_last] {
        if *from == Seat::GUEST {
            spectator.observe(*from, &wire::encode_envelope(envelope));
        }
    }
    let raised = alerts(&mut spectator);
    assert!(raised.contains(&(AlertKind::Sequence, false)), "{raised:?}");
}

#[test]
fn what_a_spectator_is_forwarded_holds_no_hidden_card_name() {
    // Every envelope of the game, as forwarded, searched for the name of every card both players do not know.
    let mut pair = ready();
    for seat in Seat::BOTH {
        pair.intent(seat, Intent::Act(Action::Draw { count: 3 })).unwrap();
    }
    pair.drive();
    let shown = pair.host.table().zone(ZoneId::hand(Seat::HOST))[0];
    pair.intent(Seat::HOST, Intent::Act(Action::Reveal { cards: vec![shown], to: None })).unwrap();
    pair.drive();
    let forwarded: Vec<u8> =
        pair.guest.record().iter().flat_map(|(_, envelope)| wire::encode_envelope(envelope)).collect();
    let public: Vec<&str> = pair
        .host
        .table()
        .cards()
        .filter_map(|card| {
            Some(pair.host.identity(card.id)?.name.as_str()).filter(|_| pair.guest.identity(card.id).is_some())
        })
        .collect();
    let decks = [numbered_deck("Host", 10, 1), numbered_deck("Guest", 10, 1)];
    let names = decks.iter().flat_map(|deck| deck.library.iter().chain(&deck.sideboard)).map(|card| &card.name);
    let mut hidden = 0;
    for name in names.filter(|name| !public.contains(&name.as_str())) {
        hidden += 1;
        assert!(!forwarded.windows(name.len()).any(|w| w == name.as_bytes()), "{name} is in the traffic");
    }
    assert!(hidden >= 20, "most cards are hidden: {hidden}");
    let mut spectator = Observer::<G>::new([6; 32]);
    assert!(feed(&mut spectator, &pair, Seat::GUEST, 0).is_empty());
    assert_eq!(spectator.identity(shown), pair.host.identity(shown), "the revealed card is named");
}
