//! Undo by consent: a player asks to undo its last action, the other accepts (the table is as it was before it, on
//! both sides) or refuses (nothing changes). Hidden-information actions and chance are not undoable, and say so.
//! Whatever order the messages cross in, both tables stay equal and nobody is accused.

mod engine_support {
    include!("support/consistency.rs");
}

use engine_support::{assert_consistent, misbehaviour};
use fairdeck_shared::Seat;
use fairdeck_shared::crypto::{Dice, Ristretto255};
use fairdeck_shared::engine::{Event, Intent, NotUndoable};
use fairdeck_shared::journal::{self, Verdict};
use fairdeck_shared::pair::{Pair, numbered_deck};
use fairdeck_shared::table::{CardId, LIFE, Placement, Position, Table, ZoneId, ZoneKind};
use fairdeck_shared::wire::Action;

type R = Ristretto255;

fn ready(seed: u8) -> Pair<R> {
    let mut pair = Pair::<R>::new(numbered_deck("Host", 12, 2), numbered_deck("Guest", 12, 2), seed);
    pair.drive();
    assert_honest(&pair);
    pair
}

fn assert_honest(pair: &Pair<R>) {
    for seat in Seat::BOTH {
        assert!(misbehaviour(pair, seat).is_empty(), "{seat:?}: {:?}", misbehaviour(pair, seat));
        assert!(!pair.engine(seat).is_busy(), "{seat:?} is busy");
    }
    assert_consistent(pair);
}

fn act(pair: &mut Pair<R>, seat: Seat, action: Action) {
    pair.intent(seat, Intent::Act(action.clone())).unwrap_or_else(|e| panic!("{action:?}: {e}"));
    pair.drive();
    assert_honest(pair);
}

fn play_area(seat: Seat) -> ZoneId {
    ZoneId::new(seat, ZoneKind::Play)
}

/// A card of `seat`'s hand played face up at (x, 0).
fn play_one(pair: &mut Pair<R>, seat: Seat, x: i32) -> CardId {
    act(pair, seat, Action::Draw { count: 1 });
    let card = *pair.host.table().zone(ZoneId::hand(seat)).last().unwrap();
    let placement = Placement { x, y: 0, face_down: false };
    act(pair, seat, Action::Move { card, to: play_area(seat), position: Position::Top, placement });
    card
}

/// `seat` takes `action`, asks to undo it, and the opponent accepts: the table is the one before it.
fn undone(pair: &mut Pair<R>, seat: Seat, action: Action) {
    let before: Table = pair.host.table().clone();
    act(pair, seat, action.clone());
    assert_ne!(pair.host.table(), &before, "{action:?} changed nothing");
    let number = pair.engine(seat).undoable().unwrap_or_else(|e| panic!("{action:?}: {e}"));
    pair.intent(seat, Intent::AskUndo).unwrap();
    pair.drive();
    assert_eq!(pair.engine(seat.opponent()).undo_asked(), Some((seat, number)));
    pair.intent(seat.opponent(), Intent::AnswerUndo(true)).unwrap();
    pair.drive();
    assert_honest(pair);
    assert_as_before(pair.host.table(), &before, &action);
    for side in Seat::BOTH {
        let told = pair.events(side).iter().any(|e| {
            matches!(e, Event::Undone { actor, action: n, undone } if *actor == seat && *n == number && *undone == action)
        });
        assert!(told, "{side:?} was not told of the undo of {action:?}");
    }
}

/// The table is as it was, but for who knows which card: what was seen stays seen.
fn assert_as_before(now: &Table, before: &Table, action: &Action) {
    for card in before.cards() {
        let mut card = card.clone();
        card.known_to = now.card(card.id).unwrap().known_to;
        assert_eq!(now.card(card.id), Some(&card), "undoing {action:?}");
    }
    assert_eq!(now.cards().count(), before.cards().count());
    for seat in Seat::BOTH {
        for kind in [ZoneKind::Hand, ZoneKind::Play, ZoneKind::Graveyard, ZoneKind::Exile, ZoneKind::Library] {
            let zone = ZoneId::new(seat, kind);
            assert_eq!(now.zone(zone), before.zone(zone), "undoing {action:?}: {zone}");
        }
        assert_eq!(now.player(seat), before.player(seat), "undoing {action:?}");
    }
    assert_eq!((&now.phase, now.turn, now.active), (&before.phase, before.turn, before.active));
}

#[test]
fn public_actions_of_either_player_are_undone_by_consent_and_both_tables_are_as_before() {
    let mut pair = ready(1);
    for seat in Seat::BOTH {
        let card = play_one(&mut pair, seat, 0);
        let aura = play_one(&mut pair, seat, 1);
        undone(&mut pair, seat, Action::Tap { card, tapped: true });
        undone(&mut pair, seat, Action::SetCardValue { card, key: "+1/+1".into(), value: Some(2) });
        undone(&mut pair, seat, Action::Attach { card: aura, to: Some(card) });
        undone(&mut pair, seat, Action::SetPlayerValue { key: LIFE.into(), value: 17 });
        undone(&mut pair, seat, Action::SetPlayerValue { key: "poison".into(), value: 1 });
        undone(&mut pair, seat, Action::SetPhase { phase: "combat".into() });
        // A tapped creature with a counter and an aura, dying: undoing puts all of it back.
        act(&mut pair, seat, Action::Tap { card, tapped: true });
        act(&mut pair, seat, Action::SetCardValue { card, key: "+1/+1".into(), value: Some(1) });
        act(&mut pair, seat, Action::Attach { card: aura, to: Some(card) });
        let graveyard = ZoneId::new(seat, ZoneKind::Graveyard);
        undone(
            &mut pair,
            seat,
            Action::Move { card, to: graveyard, position: Position::Top, placement: Placement::default() },
        );
        undone(&mut pair, seat, Action::UntapAll);
        // A card played from the hand goes back to its place in the hand.
        act(&mut pair, seat, Action::Draw { count: 2 });
        let hand = pair.host.table().zone(ZoneId::hand(seat)).to_vec();
        let placement = Placement { x: 3, y: 0, face_down: false };
        undone(
            &mut pair,
            seat,
            Action::Move { card: hand[0], to: play_area(seat), position: Position::Top, placement },
        );
    }
}

#[test]
fn a_game_with_undos_verifies_clean_from_either_journal() {
    let mut pair = ready(6);
    let card = play_one(&mut pair, Seat::Guest, 0);
    undone(&mut pair, Seat::Guest, Action::Tap { card, tapped: true });
    let card = play_one(&mut pair, Seat::Host, 0);
    undone(&mut pair, Seat::Host, Action::SetCardValue { card, key: "+1/+1".into(), value: Some(1) });
    for seat in Seat::BOTH {
        let verdict = journal::check::<R>(pair.engine(seat).journal()).unwrap();
        assert!(matches!(verdict, Verdict::Clean(_)), "{seat:?}: {verdict:?}");
    }
}

#[test]
fn a_refused_undo_changes_nothing_and_the_asker_is_told() {
    let mut pair = ready(2);
    let card = play_one(&mut pair, Seat::Guest, 0);
    act(&mut pair, Seat::Guest, Action::Tap { card, tapped: true });
    let tapped = pair.host.table().clone();
    pair.intent(Seat::Guest, Intent::AskUndo).unwrap();
    pair.drive();
    pair.intent(Seat::Host, Intent::AnswerUndo(false)).unwrap();
    pair.drive();
    assert_honest(&pair);
    assert_eq!(pair.host.table(), &tapped);
    let told = |e: &Event| matches!(e, Event::UndoRefused { by: Seat::Host, .. });
    assert!(pair.events(Seat::Guest).iter().any(told));
    assert_eq!(pair.engine(Seat::Host).undo_asked(), None);
    assert!(pair.intent(Seat::Host, Intent::AnswerUndo(true)).is_err(), "a refused request was answered again");
}

#[test]
fn hidden_information_chance_and_the_other_players_actions_are_not_undoable_and_say_so() {
    let mut pair = ready(3);
    assert_eq!(pair.engine(Seat::Host).undoable(), Err(NotUndoable::NoAction));
    act(&mut pair, Seat::Host, Action::Draw { count: 1 });
    assert_eq!(pair.engine(Seat::Host).undoable(), Err(NotUndoable::HiddenCards));
    assert_eq!(pair.engine(Seat::Guest).undoable(), Err(NotUndoable::NotYours));
    let error = pair.intent(Seat::Host, Intent::AskUndo).unwrap_err().to_string();
    assert!(error.contains("cannot be unseen"), "{error}");
    act(&mut pair, Seat::Host, Action::Roll { dice: Dice::new(1, 6).unwrap() });
    assert_eq!(pair.engine(Seat::Host).undoable(), Err(NotUndoable::Chance));
    act(&mut pair, Seat::Host, Action::Shuffle { permutation: None });
    assert_eq!(pair.engine(Seat::Host).undoable(), Err(NotUndoable::HiddenCards));
    act(&mut pair, Seat::Host, Action::NextTurn);
    assert_eq!(pair.engine(Seat::Host).undoable(), Err(NotUndoable::Turn));
    let hand = pair.host.table().zone(ZoneId::hand(Seat::Host)).to_vec();
    let library = ZoneId::library(Seat::Host);
    act(
        &mut pair,
        Seat::Host,
        Action::Move { card: hand[0], to: library, position: Position::Top, placement: Placement::default() },
    );
    assert_eq!(pair.engine(Seat::Host).undoable(), Err(NotUndoable::HiddenCards));
    // An undo is not undone either.
    let card = play_one(&mut pair, Seat::Host, 0);
    undone(&mut pair, Seat::Host, Action::Tap { card, tapped: true });
    assert_eq!(pair.engine(Seat::Guest).undoable(), Err(NotUndoable::Undo));
}

#[test]
fn an_undo_asked_while_the_other_acts_lapses_and_nobody_is_accused() {
    for asker in Seat::BOTH {
        let mut pair = ready(4);
        let card = play_one(&mut pair, asker, 0);
        let other_card = play_one(&mut pair, asker.opponent(), 0);
        act(&mut pair, asker, Action::Tap { card, tapped: true });
        // The request and the other's action cross on the wire.
        pair.intent(asker, Intent::AskUndo).unwrap();
        pair.intent(asker.opponent(), Intent::Act(Action::Tap { card: other_card, tapped: true })).unwrap();
        pair.drive();
        assert_honest(&pair);
        assert!(pair.engine(asker).table().card(card).unwrap().tapped, "the overtaken action was undone");
        assert_eq!(pair.engine(asker.opponent()).undo_asked(), None);
        assert!(pair.intent(asker.opponent(), Intent::AnswerUndo(true)).is_err());
        // The other's action overtook the request: its asker is told it lapsed.
        let lapsed = |e: &Event| matches!(e, Event::UndoLapsed { asker: a, .. } if *a == asker);
        assert!(pair.events(asker).iter().any(lapsed), "asked by {asker:?}");
    }
}

#[test]
fn an_acceptance_overtaken_by_the_askers_next_action_is_rejected_and_nobody_is_accused() {
    for asker in Seat::BOTH {
        let mut pair = ready(5);
        let card = play_one(&mut pair, asker, 0);
        act(&mut pair, asker, Action::Tap { card, tapped: true });
        pair.intent(asker, Intent::AskUndo).unwrap();
        // The request arrives; the acceptance and the asker's next action cross.
        while pair.step_from(asker) {}
        pair.intent(asker.opponent(), Intent::AnswerUndo(true)).unwrap();
        pair.intent(asker, Intent::Act(Action::SetCardValue { card, key: "charge".into(), value: Some(1) })).unwrap();
        pair.drive();
        assert_honest(&pair);
        // The host's order decides: its own action first (the guest's acceptance comes too late), or its acceptance
        // first (the guest's action then finds the card untapped).
        let now = pair.host.table().card(card).unwrap();
        assert_eq!(now.tapped, asker == Seat::Host, "asked by {asker:?}");
        assert_eq!(now.counters.get("charge"), Some(&1));
    }
}
