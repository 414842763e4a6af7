//! The table for real games: commanders in the command zone, concession, attachments and arrows, untap all,
//! tokens with power and toughness, searches and scries, who chooses to play or draw, deck labels, and undo by
//! consent. Honest play keeps both tables equal with no alert; what the rules forbid is refused or alerted, never a
//! panic.

mod engine_support {
    include!("support/consistency.rs");
}

use engine_support::{assert_consistent, misbehaviour};
use fairdeck_shared::Seat;
use fairdeck_shared::crypto::{CardInstance, Dice, Ristretto255};
use fairdeck_shared::engine::{
    AlertKind, ChosenBy, DeckCard, DeckError, DeckList, DifferenceCheck, Engine, EngineConfig, Event, GameEnd, Input,
    Intent, Moved, NotUndoable, Place,
};
use fairdeck_shared::journal::{self, Verdict};
use fairdeck_shared::pair::{Pair, numbered_deck};
use fairdeck_shared::table::{CardId, LIFE, Placement, Position, PowerToughness, Table, ZoneId, ZoneKind};
use fairdeck_shared::wire::{self, Action, ArrowTarget, DeckDifference, Message, PeekPurpose};

type R = Ristretto255;

fn commander_deck(prefix: &str, commanders: &[&str], label: &str) -> DeckList {
    DeckList {
        commander: commanders.iter().map(|name| DeckCard { name: (*name).into(), back: 0 }).collect(),
        label: label.into(),
        ..numbered_deck(prefix, 12, 2)
    }
}

fn ready_with(host: DeckList, guest: DeckList, seed: u8) -> Pair<R> {
    let mut pair = Pair::<R>::new(host, guest, seed);
    pair.drive();
    for seat in Seat::BOTH {
        assert!(pair.engine(seat).is_ready(), "{seat:?} not ready: {:?}", misbehaviour(&pair, seat));
    }
    assert_honest(&pair);
    pair
}

fn ready(seed: u8) -> Pair<R> {
    ready_with(numbered_deck("Host", 12, 2), numbered_deck("Guest", 12, 2), seed)
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

fn refused(pair: &mut Pair<R>, seat: Seat, action: Action) -> String {
    match pair.intent(seat, Intent::Act(action.clone())) {
        Err(error) => error.to_string(),
        Ok(()) => panic!("{action:?} was taken"),
    }
}

fn zone(pair: &Pair<R>, owner: Seat, kind: ZoneKind) -> Vec<CardId> {
    pair.host.table().zone(ZoneId::new(owner, kind)).to_vec()
}

fn name(pair: &Pair<R>, seat: Seat, card: CardId) -> Option<String> {
    pair.engine(seat).identity(card).map(|instance| instance.name.clone())
}

/// The top card of `seat`'s hand onto its play area, face up.
fn play_one(pair: &mut Pair<R>, seat: Seat, x: i32) -> CardId {
    act(pair, seat, Action::Draw { count: 1 });
    let card = *zone(pair, seat, ZoneKind::Hand).last().unwrap();
    let to = ZoneId::new(seat, ZoneKind::Play);
    let placement = Placement { x, y: 0, face_down: false };
    act(pair, seat, Action::Move { card, to, position: Position::Top, placement });
    card
}

/// The cheater signs and sends `message` as its next one, and everything is delivered.
fn send_forged(pair: &mut Pair<R>, cheater: Seat, message: &Message<R>) {
    let seq = pair.engine(cheater).record().iter().filter(|(from, _)| *from == cheater).count() as u64;
    let ack = pair.ack_of(cheater, seq);
    pair.engine_mut(cheater).send_unchecked(wire::encode_body(message), ack);
    pair.collect();
    pair.drive();
}

/// The cheater sends `action` as an act on the table as it is now; the victim raises `kind`.
fn forged_act_is_caught(pair: &mut Pair<R>, cheater: Seat, action: Action, kind: AlertKind) {
    let seen = pair.engine(cheater).actions_applied();
    send_forged(pair, cheater, &Message::Act { action, seen, digest: None });
    let victim = cheater.opponent();
    let alerts = misbehaviour(pair, victim);
    assert_eq!(alerts.len(), 1, "{alerts:?}");
    assert!(alerts[0].starts_with(kind.name()), "{alerts:?}");
    assert!(pair.engine(victim).halted().is_some());
}

fn chooser_events(pair: &Pair<R>, seat: Seat) -> Vec<(Seat, ChosenBy)> {
    pair.events(seat)
        .iter()
        .filter_map(|e| match e {
            Event::Chooser { seat, by } => Some((*seat, *by)),
            _ => None,
        })
        .collect()
}

fn label_events(pair: &Pair<R>, seat: Seat) -> Vec<(Seat, String, bool)> {
    pair.events(seat)
        .iter()
        .filter_map(|e| match e {
            Event::DeckLabel { seat, label, changed } => Some((*seat, label.clone(), *changed)),
            _ => None,
        })
        .collect()
}

#[test]
fn commanders_are_face_up_in_their_owners_command_zone_and_in_the_audited_deck() {
    let host = commander_deck("Host", &["Tymna the Weaver", "Thrasios, Triton Hero"], "ABCDEFGH");
    let guest = commander_deck("Guest", &["Atraxa, Praetors' Voice"], "23456789");
    let mut pair = ready_with(host, guest, 4);
    let host_commanders = zone(&pair, Seat::HOST, ZoneKind::Command);
    let guest_commanders = zone(&pair, Seat::GUEST, ZoneKind::Command);
    assert_eq!((host_commanders.len(), guest_commanders.len()), (2, 1));
    for seat in Seat::BOTH {
        assert_eq!(name(&pair, seat, guest_commanders[0]).as_deref(), Some("Atraxa, Praetors' Voice"));
        let mut names: Vec<String> = host_commanders.iter().map(|c| name(&pair, seat, *c).unwrap()).collect();
        names.sort();
        assert_eq!(names, ["Thrasios, Triton Hero", "Tymna the Weaver"]);
    }
    // Not in the library: no draw of 12 finds it.
    assert_eq!(zone(&pair, Seat::GUEST, ZoneKind::Library).len(), 12);

    // The commander is cast, dies, and returns to the command zone; the opponent may not put it in its own.
    let atraxa = guest_commanders[0];
    let guest_play = ZoneId::new(Seat::GUEST, ZoneKind::Play);
    act(
        &mut pair,
        Seat::GUEST,
        Action::Move { card: atraxa, to: guest_play, position: Position::Top, placement: Placement::default() },
    );
    let graveyard = ZoneId::new(Seat::GUEST, ZoneKind::Graveyard);
    act(
        &mut pair,
        Seat::HOST,
        Action::Move { card: atraxa, to: graveyard, position: Position::Top, placement: Placement::default() },
    );
    let host_command = ZoneId::new(Seat::HOST, ZoneKind::Command);
    let why = refused(
        &mut pair,
        Seat::HOST,
        Action::Move { card: atraxa, to: host_command, position: Position::Top, placement: Placement::default() },
    );
    assert!(why.contains("command zone"), "{why}");
    let guest_command = ZoneId::new(Seat::GUEST, ZoneKind::Command);
    let why = refused(
        &mut pair,
        Seat::HOST,
        Action::Move { card: atraxa, to: guest_command, position: Position::Top, placement: Placement::default() },
    );
    assert!(why.contains("opponent's command zone"), "{why}");
    act(
        &mut pair,
        Seat::GUEST,
        Action::Move { card: atraxa, to: guest_command, position: Position::Top, placement: Placement::default() },
    );
    assert_eq!(zone(&pair, Seat::GUEST, ZoneKind::Command), [atraxa]);

    // Any card of one's own goes to the command zone face up: the opponent learns it.
    act(&mut pair, Seat::GUEST, Action::Draw { count: 1 });
    let drawn = zone(&pair, Seat::GUEST, ZoneKind::Hand)[0];
    assert!(name(&pair, Seat::HOST, drawn).is_none());
    act(
        &mut pair,
        Seat::GUEST,
        Action::Move { card: drawn, to: guest_command, position: Position::Bottom, placement: Placement::default() },
    );
    assert!(name(&pair, Seat::HOST, drawn).is_some());

    // The audit at the end names the commanders with the rest of the deck, and each journal checks out clean.
    for seat in Seat::BOTH {
        pair.intent(seat, Intent::EndGame).unwrap();
    }
    pair.drive();
    assert_honest(&pair);
    let audited = pair
        .host_events
        .iter()
        .find_map(|e| match e {
            Event::Audited { seat: Seat::GUEST, deck } => Some(deck.clone()),
            _ => None,
        })
        .expect("the guest's deck audited");
    assert_eq!(audited.len(), 12 + 2 + 1);
    assert!(audited.iter().any(|card| card.name == "Atraxa, Praetors' Voice"));
    for seat in Seat::BOTH {
        let verdict = journal::check::<R>(pair.engine(seat).journal()).unwrap();
        match verdict {
            Verdict::Clean(summary) => assert!(summary.opponent_audited),
            other => panic!("{seat:?}: {other:?}"),
        }
    }
    // A journal whose commander was swapped afterwards no longer holds together: its deck message differs from the
    // one the opponent acknowledged.
    let mut swapped = pair.guest.journal().clone();
    swapped.deck.commander[0].name = "Kenrith, the Returned King".into();
    let verdict = journal::check::<R>(&swapped).unwrap();
    assert!(matches!(verdict, Verdict::Inconsistent { .. }), "{verdict:?}");
}

#[test]
fn a_deck_takes_at_most_two_commanders_and_a_short_printable_label() {
    let config = || EngineConfig { name: "Host".into(), software: "test".into() };
    let new = |deck: DeckList| Engine::<R>::new(Seat::HOST, config(), deck, [1; 32]).err();
    assert_eq!(new(commander_deck("Host", &["A", "B", "C"], "")), Some(DeckError::TooManyCommanders(2)));
    assert_eq!(new(commander_deck("Host", &["A"], &"X".repeat(33))), Some(DeckError::BadLabel(32)));
    assert_eq!(new(commander_deck("Host", &["A"], "ESC\u{1b}[2J")), Some(DeckError::BadLabel(32)));
    assert_eq!(new(commander_deck("Host", &["A"], "with space")), Some(DeckError::BadLabel(32)));
    assert!(matches!(new(commander_deck("Host", &[""], "")), Some(DeckError::BadName(_))));
    assert_eq!(new(commander_deck("Host", &["A", "B"], &"X".repeat(32))), None);
}

/// The guest's deck message, its commanders and label rewritten by `change` and signed by the guest: the host
/// refuses it as malformed.
fn forged_deck_is_malformed(change: impl FnOnce(&mut Vec<CardInstance>, &mut String)) {
    forged_deck_message_is_malformed(|message| {
        let Message::Deck { commander, label, .. } = message else { panic!("not a deck") };
        change(commander, label);
    });
}

/// The guest's deck message, rewritten by `change` and signed by the guest: the host refuses it as malformed.
fn forged_deck_message_is_malformed(change: impl FnOnce(&mut Message<R>)) {
    let guest_deck = commander_deck("Guest", &["Kenrith"], "AAAA");
    let mut pair = Pair::<R>::new(numbered_deck("Host", 6, 1), guest_deck.clone(), 5);
    let host_hello = pair.queue.iter().find(|m| m.from == Seat::HOST).unwrap().bytes.clone();
    // The guest's twin (the same seed) makes the deck message the guest would make on the host's hello.
    let config = EngineConfig { name: "Guest".into(), software: "fairdeck-test".into() };
    let mut twin = Engine::<R>::new(Seat::GUEST, config, guest_deck, [6; 32]).unwrap();
    twin.handle(Input::Message { bytes: host_hello.clone() }).unwrap();
    let _hello = twin.poll_transmit().unwrap();
    let deck = wire::decode_envelope(&twin.poll_transmit().unwrap()).unwrap();
    let mut message: Message<R> = wire::decode_body(&deck.body).unwrap();
    change(&mut message);
    // Only the guest's hello reaches the host; then the guest's forged deck, signed and chained.
    pair.queue.retain(|m| m.from == Seat::GUEST);
    pair.drive();
    let ack = wire::Ack { count: deck.ack, head: wire::decode_envelope(&host_hello).unwrap().chain };
    pair.guest.send_unchecked(wire::encode_body(&message), ack);
    pair.collect();
    pair.queue.retain(|m| m.from == Seat::GUEST);
    pair.drive();
    let alerts = misbehaviour(&pair, Seat::HOST);
    assert_eq!(alerts.len(), 1, "{alerts:?}");
    assert!(alerts[0].starts_with("malformed"), "{alerts:?}");
    assert!(pair.host.halted().is_some());
}

#[test]
fn a_deck_message_with_too_many_or_foreign_commanders_or_a_bad_label_is_refused() {
    let card = |owner, name: &str| CardInstance { owner, nonce: [7; 16], name: name.into(), back: 0 };
    forged_deck_is_malformed(|commander, _| {
        commander.extend([card(Seat::GUEST, "B"), card(Seat::GUEST, "C")]);
    });
    forged_deck_is_malformed(|commander, _| commander[0].owner = Seat::HOST);
    forged_deck_is_malformed(|commander, _| commander.push(commander[0].clone()));
    forged_deck_is_malformed(|commander, _| commander[0].name = "x".repeat(300));
    forged_deck_is_malformed(|_, label| *label = "\u{7}bell".into());
    forged_deck_is_malformed(|_, label| *label = "Y".repeat(33));
}

fn game_overs(pair: &Pair<R>, seat: Seat) -> Vec<(Seat, GameEnd)> {
    pair.events(seat)
        .iter()
        .filter_map(|e| match e {
            Event::GameOver { loser, how } => Some((*loser, *how)),
            _ => None,
        })
        .collect()
}

fn new_game(pair: &mut Pair<R>, decks: [Option<DeckList>; 2]) {
    for (seat, deck) in Seat::BOTH.into_iter().zip(decks) {
        pair.intent(seat, Intent::NewGame(deck)).unwrap();
    }
    pair.drive();
    assert_honest(pair);
}

/// `seat` asks for a new game after its opponent did: it starts.
fn ask_too(pair: &mut Pair<R>, seat: Seat) {
    pair.intent(seat, Intent::NewGame(None)).unwrap();
    pair.drive();
    assert_honest(pair);
    assert!(Seat::BOTH.iter().all(|seat| pair.engine(*seat).is_ready()));
}

#[test]
fn a_fair_coin_decides_who_chooses_in_the_first_game_and_the_loser_in_later_ones() {
    let mut coin = std::collections::BTreeSet::new();
    for seed in 0..8 {
        let pair = ready(seed);
        let events = chooser_events(&pair, Seat::HOST);
        assert_eq!(events.len(), 1, "{events:?}");
        assert_eq!(events, chooser_events(&pair, Seat::GUEST), "both see the same coin");
        assert_eq!(events[0].1, ChosenBy::Coin);
        coin.insert(events[0].0);
    }
    assert_eq!(coin.len(), 2, "the coin falls both ways");

    let mut pair = ready(1);
    let (chooser, _) = chooser_events(&pair, Seat::HOST)[0];
    assert!(Seat::BOTH.iter().all(|seat| pair.engine(*seat).chooser() == Some(chooser)));
    let other = chooser.opponent();
    // Only the chooser chooses, once, before any turn.
    let why = refused(&mut pair, other, Action::PlayOrDraw { play: true });
    assert!(why.contains("other player chooses"), "{why}");
    act(&mut pair, chooser, Action::PlayOrDraw { play: false });
    assert_eq!((pair.host.table().turn, pair.host.table().active), (1, Some(other)));
    refused(&mut pair, chooser, Action::PlayOrDraw { play: true });

    // The guest concedes: the game is over for both, only its end and a new game follow.
    act(&mut pair, Seat::GUEST, Action::Concede);
    for seat in Seat::BOTH {
        assert_eq!(game_overs(&pair, seat), [(Seat::GUEST, GameEnd::Conceded)]);
        assert_eq!(pair.engine(seat).loser(), Some(Seat::GUEST));
        let why = refused(&mut pair, seat, Action::Draw { count: 1 });
        assert!(why.contains("game is over"), "{why}");
    }
    pair.intent(Seat::HOST, Intent::EndGame).unwrap();
    pair.drive();
    new_game(&mut pair, [None, None]);
    // In game 2 the guest, who lost game 1, chooses: no coin.
    for seat in Seat::BOTH {
        assert_eq!(chooser_events(&pair, seat), [(chooser, ChosenBy::Coin), (Seat::GUEST, ChosenBy::Loser)]);
        assert_eq!(pair.engine(seat).chooser(), Some(Seat::GUEST));
    }
    let why = refused(&mut pair, Seat::HOST, Action::PlayOrDraw { play: true });
    assert!(why.contains("other player chooses"), "{why}");
    act(&mut pair, Seat::GUEST, Action::PlayOrDraw { play: true });
    assert_eq!(pair.host.table().active, Some(Seat::GUEST));

    // The host stops answering and the guest claims its forfeit: the host, having lost game 2, chooses in game 3.
    pair.intent(Seat::GUEST, Intent::Act(Action::Draw { count: 1 })).unwrap();
    pair.step();
    let held: Vec<_> = pair.queue.drain(..).collect();
    pair.intent(Seat::GUEST, Intent::ClaimForfeit).unwrap();
    // The host's late answer arrives after the claim, and changes nothing.
    pair.queue.extend(held);
    pair.drive();
    for seat in Seat::BOTH {
        assert_eq!(game_overs(&pair, seat).last(), Some(&(Seat::HOST, GameEnd::Forfeited)));
    }
    new_game(&mut pair, [None, None]);
    for seat in Seat::BOTH {
        assert_eq!(chooser_events(&pair, seat).last(), Some(&(Seat::HOST, ChosenBy::Loser)));
    }
    assert!(pair.host_events.contains(&Event::NewGame { number: 3 }));
}

#[test]
fn a_game_ended_without_a_loser_leaves_the_next_choice_to_the_coin() {
    let mut pair = ready(5);
    for seat in Seat::BOTH {
        pair.intent(seat, Intent::EndGame).unwrap();
    }
    pair.drive();
    new_game(&mut pair, [None, None]);
    let second = *chooser_events(&pair, Seat::HOST).last().unwrap();
    assert_eq!(second.1, ChosenBy::Coin);
    assert_eq!(chooser_events(&pair, Seat::HOST).len(), 2);
    assert_eq!(chooser_events(&pair, Seat::GUEST).last(), Some(&second));
}

#[test]
fn a_guest_that_concedes_and_asks_for_a_new_game_at_once_chooses() {
    // The guest's concession is a proposal until the host accepts it; its request, sent before the answer, names
    // the guest all the same.
    let mut pair = ready(6);
    pair.intent(Seat::GUEST, Intent::Act(Action::Concede)).unwrap();
    pair.intent(Seat::GUEST, Intent::NewGame(None)).unwrap();
    pair.drive();
    assert_eq!(pair.host.loser(), Some(Seat::GUEST));
    ask_too(&mut pair, Seat::HOST);
    for seat in Seat::BOTH {
        assert_eq!(chooser_events(&pair, seat).last(), Some(&(Seat::GUEST, ChosenBy::Loser)));
    }
}

/// `conceder` concedes while its opponent asks for a new game, neither having seen the other's message; `first`'s
/// messages are delivered first. The two requests name different losers, so both engines fall back on the coin,
/// alike and without an alert.
fn concession_crossing_a_request(conceder: Seat, first: Seat) {
    let mut pair = ready(7);
    let asker = conceder.opponent();
    pair.intent(conceder, Intent::Act(Action::Concede)).unwrap();
    pair.intent(asker, Intent::NewGame(None)).unwrap();
    while pair.step_from(first) {}
    pair.drive();
    assert_honest(&pair);
    for seat in Seat::BOTH {
        assert_eq!(pair.engine(seat).loser(), Some(conceder), "{seat:?}");
    }
    ask_too(&mut pair, conceder);
    let second = *chooser_events(&pair, Seat::HOST).last().unwrap();
    assert_eq!(second.1, ChosenBy::Coin, "{conceder:?} conceding, {first:?}'s messages first");
    assert_eq!(chooser_events(&pair, Seat::GUEST).last(), Some(&second));
    assert!(Seat::BOTH.iter().all(|seat| pair.engine(*seat).chooser() == Some(second.0)));
}

#[test]
fn a_concession_crossing_a_new_game_request_leaves_the_choice_to_the_coin_on_both_sides() {
    for conceder in Seat::BOTH {
        for first in Seat::BOTH {
            concession_crossing_a_request(conceder, first);
        }
    }
}

#[test]
fn the_host_conceding_ends_the_game_and_hostile_acts_after_it_are_caught() {
    let mut pair = ready(2);
    act(&mut pair, Seat::HOST, Action::Concede);
    for seat in Seat::BOTH {
        assert_eq!(game_overs(&pair, seat), [(Seat::HOST, GameEnd::Conceded)]);
    }
    // A guest proposal after the end is refused; a host act after it is a breach.
    forged_act_is_caught(&mut pair, Seat::HOST, Action::Draw { count: 1 }, AlertKind::Unexpected);
}

#[test]
fn the_player_who_does_not_choose_cannot_force_the_choice() {
    let mut pair = ready(3);
    let (chooser, _) = chooser_events(&pair, Seat::HOST)[0];
    forged_act_is_caught(&mut pair, chooser.opponent(), Action::PlayOrDraw { play: true }, AlertKind::Forbidden);
}

#[test]
fn attachments_live_in_play_and_arrows_leave_nothing_behind() {
    let mut pair = ready(4);
    let aura = play_one(&mut pair, Seat::HOST, 0);
    let creature = play_one(&mut pair, Seat::GUEST, 1);
    let equipment = play_one(&mut pair, Seat::HOST, 2);
    act(&mut pair, Seat::HOST, Action::Attach { card: aura, to: Some(creature) });
    for seat in Seat::BOTH {
        assert_eq!(pair.engine(seat).table().card(aura).unwrap().attached_to, Some(creature));
    }
    // No chains, nothing to itself, nothing outside play.
    assert!(refused(&mut pair, Seat::HOST, Action::Attach { card: equipment, to: Some(aura) }).contains("attached to"));
    assert!(
        refused(&mut pair, Seat::GUEST, Action::Attach { card: creature, to: Some(equipment) }).contains("attached to")
    );
    assert!(refused(&mut pair, Seat::HOST, Action::Attach { card: equipment, to: Some(equipment) }).contains("itself"));
    let library_card = zone(&pair, Seat::HOST, ZoneKind::Library)[0];
    assert!(
        refused(&mut pair, Seat::HOST, Action::Attach { card: equipment, to: Some(library_card) })
            .contains("not in play")
    );

    // An arrow is an event on both sides, and the table does not change.
    let before = pair.host.table().digest();
    act(&mut pair, Seat::GUEST, Action::Arrow { from: creature, to: ArrowTarget::Card(aura) });
    act(&mut pair, Seat::HOST, Action::Arrow { from: aura, to: ArrowTarget::Player(Seat::GUEST) });
    assert_eq!(pair.host.table().digest(), before);
    for seat in Seat::BOTH {
        let arrows =
            pair.events(seat).iter().filter(|e| matches!(e, Event::Applied { action: Action::Arrow { .. }, .. }));
        assert_eq!(arrows.count(), 2);
    }
    assert!(
        refused(&mut pair, Seat::HOST, Action::Arrow { from: library_card, to: ArrowTarget::Player(Seat::GUEST) })
            .contains("not in play")
    );

    // Detach, attach again; then the host leaves play and the attachment goes with it.
    act(&mut pair, Seat::HOST, Action::Attach { card: aura, to: None });
    assert_eq!(pair.guest.table().card(aura).unwrap().attached_to, None);
    act(&mut pair, Seat::HOST, Action::Attach { card: equipment, to: Some(creature) });
    act(&mut pair, Seat::HOST, Action::Attach { card: aura, to: Some(creature) });
    let graveyard = ZoneId::new(Seat::GUEST, ZoneKind::Graveyard);
    act(
        &mut pair,
        Seat::GUEST,
        Action::Move { card: creature, to: graveyard, position: Position::Top, placement: Placement::default() },
    );
    for seat in Seat::BOTH {
        let table = pair.engine(seat).table();
        assert!(table.cards().all(|c| c.attached_to.is_none()), "{seat:?}");
    }
    // Moving the attached card away clears it too.
    act(&mut pair, Seat::HOST, Action::Attach { card: aura, to: Some(equipment) });
    let hand = ZoneId::hand(Seat::HOST);
    act(
        &mut pair,
        Seat::HOST,
        Action::Move { card: aura, to: hand, position: Position::Top, placement: Placement::default() },
    );
    assert!(pair.guest.table().cards().all(|c| c.attached_to.is_none()));
}

#[test]
fn a_move_into_the_opponents_command_zone_is_caught() {
    let mut pair = ready_with(commander_deck("Host", &["Edgar Markov"], ""), numbered_deck("Guest", 12, 2), 11);
    let edgar = zone(&pair, Seat::HOST, ZoneKind::Command)[0];
    let graveyard = ZoneId::new(Seat::HOST, ZoneKind::Graveyard);
    act(
        &mut pair,
        Seat::HOST,
        Action::Move { card: edgar, to: graveyard, position: Position::Top, placement: Placement::default() },
    );
    let to = ZoneId::new(Seat::HOST, ZoneKind::Command);
    let placement = Placement::default();
    let action = Action::Move { card: edgar, to, position: Position::Top, placement };
    forged_act_is_caught(&mut pair, Seat::GUEST, action, AlertKind::Forbidden);
}

#[test]
fn an_attachment_to_itself_is_caught() {
    let mut pair = ready(5);
    let card = play_one(&mut pair, Seat::GUEST, 0);
    forged_act_is_caught(&mut pair, Seat::GUEST, Action::Attach { card, to: Some(card) }, AlertKind::Forbidden);
}

#[test]
fn untap_all_untaps_the_actors_play_area_only() {
    let mut pair = ready(6);
    let mine = [play_one(&mut pair, Seat::HOST, 0), play_one(&mut pair, Seat::HOST, 1)];
    let theirs = play_one(&mut pair, Seat::GUEST, 0);
    for card in mine.into_iter().chain([theirs]) {
        let seat = pair.host.table().card(card).unwrap().owner;
        act(&mut pair, seat, Action::Tap { card, tapped: true });
    }
    act(&mut pair, Seat::HOST, Action::UntapAll);
    let table = pair.guest.table();
    assert!(mine.iter().all(|c| !table.card(*c).unwrap().tapped));
    assert!(table.card(theirs).unwrap().tapped);
}

#[test]
fn a_token_carries_its_power_and_toughness() {
    let mut pair = ready(7);
    let goblin = CardInstance { owner: Seat::GUEST, nonce: [1; 16], name: "Goblin".into(), back: 0 };
    let play = ZoneId::new(Seat::GUEST, ZoneKind::Play);
    let one_one = PowerToughness { power: 1, toughness: 1 };
    let power_toughness = Some(one_one);
    act(
        &mut pair,
        Seat::GUEST,
        Action::AddCard { card: goblin.clone(), to: play, placement: Placement::default(), power_toughness },
    );
    let token = zone(&pair, Seat::GUEST, ZoneKind::Play)[0];
    for seat in Seat::BOTH {
        let card = pair.engine(seat).table().card(token).unwrap();
        assert_eq!(card.power_toughness, power_toughness);
        assert_eq!(pair.engine(seat).identity(token), Some(&goblin));
    }
    assert_eq!(one_one.to_string(), "1/1");
}

#[test]
fn a_search_shows_the_whole_library_to_its_owner_and_only_a_shuffle_with_fresh_locks_closes_it() {
    let mut pair = ready(8);
    let library = zone(&pair, Seat::GUEST, ZoneKind::Library);
    let short = Action::Peek { count: 3, purpose: PeekPurpose::Search };
    assert!(refused(&mut pair, Seat::GUEST, short).contains("whole library"));
    act(&mut pair, Seat::GUEST, Action::Peek { count: library.len() as u32, purpose: PeekPurpose::Search });
    assert!(library.iter().all(|c| name(&pair, Seat::GUEST, *c).is_some() && name(&pair, Seat::HOST, *c).is_none()));
    // The opponent is told it was a search.
    assert!(pair.host_events.iter().any(|e| matches!(
        e,
        Event::Applied { by: Seat::GUEST, action: Action::Peek { purpose: PeekPurpose::Search, .. }, .. }
    )));
    // The owner takes a card; its library is dirty, so a reorder alone is stacking.
    let hand = ZoneId::hand(Seat::GUEST);
    act(
        &mut pair,
        Seat::GUEST,
        Action::Move { card: library[5], to: hand, position: Position::Top, placement: Placement::default() },
    );
    assert!(pair.host.table().is_dirty(Seat::GUEST));
    let permutation = Some((0..library.len() as u32 - 1).rev().collect());
    assert!(refused(&mut pair, Seat::GUEST, Action::Shuffle { permutation }).contains("stacking"));
    act(&mut pair, Seat::GUEST, Action::Shuffle { permutation: None });
    assert!(!pair.host.table().is_dirty(Seat::GUEST));
    assert!(zone(&pair, Seat::GUEST, ZoneKind::Library).iter().all(|c| name(&pair, Seat::GUEST, *c).is_none()));
}

#[test]
fn scry_and_surveil_reorder_with_rearrange_and_move() {
    let mut pair = ready(9);
    act(&mut pair, Seat::HOST, Action::Peek { count: 3, purpose: PeekPurpose::Scry });
    let top = zone(&pair, Seat::HOST, ZoneKind::Library)[..3].to_vec();
    assert!(top.iter().all(|c| name(&pair, Seat::HOST, *c).is_some()));
    let library = ZoneId::library(Seat::HOST);
    act(
        &mut pair,
        Seat::HOST,
        Action::Move { card: top[0], to: library, position: Position::Bottom, placement: Placement::default() },
    );
    act(&mut pair, Seat::HOST, Action::Rearrange { card: top[2], index: 0 });
    assert_eq!(zone(&pair, Seat::HOST, ZoneKind::Library)[..2], [top[2], top[1]]);
    act(&mut pair, Seat::HOST, Action::Peek { count: 2, purpose: PeekPurpose::Surveil });
    let graveyard = ZoneId::new(Seat::HOST, ZoneKind::Graveyard);
    act(
        &mut pair,
        Seat::HOST,
        Action::Move { card: top[2], to: graveyard, position: Position::Top, placement: Placement::default() },
    );
    assert_eq!(name(&pair, Seat::GUEST, top[2]), name(&pair, Seat::HOST, top[2]));
    assert!(
        pair.guest_events.iter().any(|e| matches!(
            e,
            Event::Applied { action: Action::Peek { purpose: PeekPurpose::Surveil, count: 2 }, .. }
        ))
    );
}

#[test]
fn both_deck_labels_are_shown_each_game_and_only_a_deck_off_the_75_is_changed() {
    let host = commander_deck("Host", &[], "HOSTDECK");
    let guest = commander_deck("Guest", &[], "GUEST001");
    let mut pair = ready_with(host.clone(), guest.clone(), 10);
    for seat in Seat::BOTH {
        let mut labels = label_events(&pair, seat);
        labels.sort();
        assert_eq!(labels, [(Seat::HOST, "HOSTDECK".into(), false), (Seat::GUEST, "GUEST001".into(), false)]);
    }
    // Game 2: the guest sideboards (a card of its library and one of its sideboard change places), so its label,
    // the deck hash, changes: its cards do not, and the deck is not changed. The host plays a Shock instead of a card.
    let mut sideboarded = DeckList { label: "GUEST002".into(), ..guest };
    std::mem::swap(&mut sideboarded.library[0], &mut sideboarded.sideboard[0]);
    let mut shock = DeckList { label: "HOSTDEC2".into(), ..host };
    shock.library[0].name = "Shock".into();
    new_game(&mut pair, [Some(shock), Some(sideboarded)]);
    for seat in Seat::BOTH {
        let mut labels = label_events(&pair, seat)[2..].to_vec();
        labels.sort();
        assert_eq!(labels, [(Seat::HOST, "HOSTDEC2".into(), true), (Seat::GUEST, "GUEST002".into(), false)]);
    }
}

fn differences(pair: &Pair<R>, seat: Seat) -> Vec<(Seat, u32, DeckDifference)> {
    pair.events(seat)
        .iter()
        .filter_map(|e| match e {
            Event::DeckDiffers { seat, game, difference, .. } => Some((*seat, *game, difference.clone())),
            _ => None,
        })
        .collect()
}

fn end_both(pair: &mut Pair<R>) {
    for seat in Seat::BOTH {
        pair.intent(seat, Intent::EndGame).unwrap();
    }
    pair.drive();
    assert_honest(pair);
}

#[test]
fn a_deck_off_the_matchs_cards_is_announced_to_both_and_sideboarding_is_not() {
    let host = commander_deck("Host", &["Host Commander"], "");
    let guest = numbered_deck("Guest", 12, 2);
    let mut pair = ready_with(host.clone(), guest.clone(), 12);
    // Both end game 1, so each has audited the other's first deck.
    end_both(&mut pair);

    // Game 2: the guest sideboards (a library card and a sideboard card change places); the host does too, and
    // also plays a Shock in place of one of its cards.
    let mut sideboarded = guest.clone();
    std::mem::swap(&mut sideboarded.library[0], &mut sideboarded.sideboard[0]);
    let mut changed = host.clone();
    std::mem::swap(&mut changed.library[1], &mut changed.sideboard[1]);
    changed.library[0].name = "Shock".into();
    new_game(&mut pair, [Some(changed), Some(sideboarded)]);
    let expected = DeckDifference { added: vec![(1, "Shock".into())], removed: vec![(1, "Host 0".into())] };
    for seat in Seat::BOTH {
        assert_eq!(differences(&pair, seat), [(Seat::HOST, 2, expected.clone())], "{seat:?}");
    }
    // The end of game 2 audits both decks: each account checks out against them, with no alert.
    end_both(&mut pair);
    for seat in Seat::BOTH {
        let audited = pair.events(seat).iter().filter(|e| matches!(e, Event::Audited { .. })).count();
        assert_eq!(audited, 2, "{seat:?}");
    }

    // Game 3: the host is back to its first deck, the guest keeps its sideboarded one: nothing differs.
    new_game(&mut pair, [Some(host), None]);
    for seat in Seat::BOTH {
        assert_eq!(differences(&pair, seat).len(), 1, "{seat:?}");
    }
}

fn missing_audits(pair: &Pair<R>, seat: Seat) -> Vec<(Seat, u32)> {
    pair.events(seat)
        .iter()
        .filter_map(|e| match e {
            Event::AuditMissing { seat, game } => Some((*seat, *game)),
            _ => None,
        })
        .collect()
}

fn difference_checks(pair: &Pair<R>, seat: Seat) -> Vec<(Seat, DifferenceCheck)> {
    pair.events(seat)
        .iter()
        .filter_map(|e| match e {
            Event::DeckDiffers { seat, check, .. } => Some((*seat, *check)),
            _ => None,
        })
        .collect()
}

/// Each player plays a Shock in game 2 in place of its first library card.
fn with_shock(deck: &DeckList) -> DeckList {
    let mut changed = deck.clone();
    changed.library[0].name = "Shock".into();
    changed
}

#[test]
fn a_first_game_left_without_audits_is_told_to_both_and_its_75_is_unverifiable() {
    let (host, guest) = (numbered_deck("Host", 12, 2), numbered_deck("Guest", 12, 2));
    let mut pair = ready_with(host.clone(), guest.clone(), 14);
    // Only the host ends game 1 with its audit; the guest never does.
    pair.intent(Seat::HOST, Intent::EndGame).unwrap();
    pair.drive();
    new_game(&mut pair, [Some(with_shock(&host)), Some(with_shock(&guest))]);
    for seat in Seat::BOTH {
        assert_eq!(missing_audits(&pair, seat), [(Seat::GUEST, 1)], "{seat:?}");
        let mut checks = difference_checks(&pair, seat);
        checks.sort_by_key(|(seat, _)| *seat);
        assert_eq!(
            checks,
            [(Seat::HOST, DifferenceCheck::AtAudit), (Seat::GUEST, DifferenceCheck::Unverifiable)],
            "{seat:?}"
        );
    }
    // The guest's game-2 audit cannot make its account checked: it stays unverifiable in game 3, and game 2's
    // missing audit of the host is told too.
    pair.intent(Seat::GUEST, Intent::EndGame).unwrap();
    pair.drive();
    new_game(&mut pair, [None, None]);
    for seat in Seat::BOTH {
        assert_eq!(missing_audits(&pair, seat), [(Seat::GUEST, 1), (Seat::HOST, 2)], "{seat:?}");
        let checks = difference_checks(&pair, seat);
        assert_eq!(checks[2..].len(), 2, "{seat:?}: {checks:?}");
        assert!(checks[2..].contains(&(Seat::GUEST, DifferenceCheck::Unverifiable)), "{seat:?}: {checks:?}");
        assert!(checks[2..].contains(&(Seat::HOST, DifferenceCheck::AtAudit)), "{seat:?}: {checks:?}");
    }
}

#[test]
fn audited_games_tell_no_missing_audit() {
    let mut pair = ready(15);
    end_both(&mut pair);
    new_game(&mut pair, [None, None]);
    for seat in Seat::BOTH {
        assert_eq!(missing_audits(&pair, seat), [], "{seat:?}");
    }
}

/// The host asks for game 2, then ends game 1 with its audit; the guest asks after taking in `before_guest_asks` of
/// the host's messages. Whether the guest audits the host's deck depends on whether the audit reached it before its
/// own game 2 began, and both engines must say the same.
fn audit_after_request(before_guest_asks: usize) -> Pair<R> {
    let mut pair = ready(16);
    pair.intent(Seat::HOST, Intent::NewGame(None)).unwrap();
    pair.intent(Seat::HOST, Intent::EndGame).unwrap();
    for _ in 0..before_guest_asks {
        pair.step_from(Seat::HOST);
    }
    pair.intent(Seat::GUEST, Intent::NewGame(None)).unwrap();
    pair.drive();
    assert_honest(&pair);
    pair
}

#[test]
fn an_audit_crossing_the_new_game_is_told_missing_on_both_sides_exactly_when_it_was_dropped() {
    // Taken in before the guest asked: audited.
    let pair = audit_after_request(2);
    assert!(pair.guest_events.iter().any(|e| matches!(e, Event::Audited { seat: Seat::HOST, .. })));
    for seat in Seat::BOTH {
        assert_eq!(missing_audits(&pair, seat), [(Seat::GUEST, 1)], "{seat:?}");
    }
    // The guest asked before any of it came: the host's request starts game 2 there, and the audit behind it is
    // dropped with game 1.
    let pair = audit_after_request(0);
    assert!(!pair.guest_events.iter().any(|e| matches!(e, Event::Audited { .. })));
    for seat in Seat::BOTH {
        let mut missing = missing_audits(&pair, seat);
        missing.sort();
        assert_eq!(missing, [(Seat::HOST, 1), (Seat::GUEST, 1)], "{seat:?}");
    }
}

#[test]
fn a_deck_difference_out_of_form_or_in_the_first_game_is_malformed() {
    let entry = |count: u32, name: &str| (count, name.to_owned());
    let cases = [
        // Game 1 has nothing to differ from.
        DeckDifference { added: vec![entry(1, "Shock")], removed: vec![] },
        DeckDifference { added: vec![entry(1, "B"), entry(1, "A")], removed: vec![] },
        DeckDifference { added: vec![], removed: vec![entry(0, "A")] },
    ];
    for forged in cases {
        forged_deck_message_is_malformed(|message| {
            let Message::Deck { difference, .. } = message else { panic!("not a deck") };
            *difference = forged;
        });
    }
}

/// The cards of the last `Applied` event `seat` was told, with where each came from.
fn last_moved(pair: &Pair<R>, seat: Seat) -> Vec<Moved> {
    pair.events(seat)
        .iter()
        .rev()
        .find_map(|event| match event {
            Event::Applied { moved, .. } => Some(moved.clone()),
            _ => None,
        })
        .expect("an action was applied")
}

#[test]
fn each_applied_action_says_where_the_cards_it_moved_came_from_on_both_tables() {
    let mut pair = ready(9);
    let place = |owner, kind, face_down| Place { zone: ZoneId::new(owner, kind), face_down };
    let from_library = |pair: &Pair<R>, owner: Seat, count: usize| -> Vec<CardId> {
        zone(pair, owner, ZoneKind::Library)[..count].to_vec()
    };
    let expect = |pair: &Pair<R>, cards: &[CardId], from: Option<Place>, to: Place| {
        let want: Vec<Moved> = cards.iter().map(|&card| Moved { card, from, to }).collect();
        for seat in Seat::BOTH {
            assert_eq!(last_moved(pair, seat), want, "{seat:?}");
        }
    };

    let drawn = from_library(&pair, Seat::HOST, 2);
    act(&mut pair, Seat::HOST, Action::Draw { count: 2 });
    let (library, hand) = (place(Seat::HOST, ZoneKind::Library, false), place(Seat::HOST, ZoneKind::Hand, false));
    expect(&pair, &drawn, Some(library), hand);

    let taken = from_library(&pair, Seat::GUEST, 1);
    act(&mut pair, Seat::HOST, Action::TakeFromLibrary { count: 1 });
    expect(&pair, &taken, Some(place(Seat::GUEST, ZoneKind::Library, false)), hand);

    let card = drawn[0];
    let to = ZoneId::new(Seat::HOST, ZoneKind::Play);
    let placement = Placement { x: 1, y: 0, face_down: true };
    act(&mut pair, Seat::HOST, Action::Move { card, to, position: Position::Top, placement });
    let face_down = place(Seat::HOST, ZoneKind::Play, true);
    expect(&pair, &[card], Some(hand), face_down);
    let graveyard = ZoneId::new(Seat::HOST, ZoneKind::Graveyard);
    let placement = Placement { x: 0, y: 0, face_down: true };
    act(&mut pair, Seat::HOST, Action::Move { card, to: graveyard, position: Position::Top, placement });
    expect(&pair, &[card], Some(face_down), place(Seat::HOST, ZoneKind::Graveyard, false));

    // A mulligan puts back the owner's cards of the hand only, not the card taken from the opponent.
    act(&mut pair, Seat::HOST, Action::Mulligan { draw: 0 });
    expect(&pair, &drawn[1..], Some(hand), library);

    let goblin = CardInstance { owner: Seat::GUEST, nonce: [2; 16], name: "Goblin".into(), back: 0 };
    let play = ZoneId::new(Seat::GUEST, ZoneKind::Play);
    let power_toughness = None;
    act(&mut pair, Seat::GUEST, Action::AddCard { card: goblin, to: play, placement, power_toughness });
    let token = zone(&pair, Seat::GUEST, ZoneKind::Play)[0];
    expect(&pair, &[token], None, place(Seat::GUEST, ZoneKind::Play, true));

    act(&mut pair, Seat::GUEST, Action::NextTurn);
    expect(&pair, &[], None, hand);
}

fn lives(pair: &Pair<R>, seat: Seat) -> [Option<i64>; 2] {
    Seat::BOTH.map(|player| pair.engine(seat).table().player(player).values.get(LIFE).copied())
}

#[test]
fn play_begins_at_40_life_with_a_commander_and_20_without_on_both_tables() {
    let host = commander_deck("Host", &["Tymna the Weaver"], "ABCDEFGH");
    let mut pair = ready_with(host, numbered_deck("Guest", 12, 2), 5);
    for seat in Seat::BOTH {
        assert_eq!(lives(&pair, seat), [Some(40), Some(20)], "{seat:?}");
    }
    // No message and no action of the game's order sets it.
    assert_eq!(pair.host.actions_applied(), 0);
    act(&mut pair, Seat::HOST, Action::SetPlayerValue { key: LIFE.into(), value: 33 });
    end_both(&mut pair);
    new_game(&mut pair, [Some(numbered_deck("Host", 12, 2)), None]);
    for seat in Seat::BOTH {
        assert_eq!(lives(&pair, seat), [Some(20), Some(20)], "{seat:?}: a new game starts afresh");
    }
}

#[test]
fn a_game_whose_players_still_set_their_starting_life_by_an_action_verifies() {
    // Older clients sent the starting life as an action at `Ready`: it changes nothing, and the turn's table
    // digest still agrees.
    let mut pair = ready(6);
    for seat in Seat::BOTH {
        act(&mut pair, seat, Action::SetPlayerValue { key: LIFE.into(), value: 20 });
    }
    act(&mut pair, Seat::HOST, Action::NextTurn);
    act(&mut pair, Seat::GUEST, Action::NextTurn);
    for seat in Seat::BOTH {
        assert_eq!(lives(&pair, seat), [Some(20), Some(20)]);
        let verdict = journal::check::<R>(pair.engine(seat).journal()).unwrap();
        assert!(matches!(verdict, Verdict::Clean(_)), "{seat:?}: {verdict:?}");
    }
}

// Undo by consent: a player asks to undo its last action, the other accepts (the table is as it was before it, on
// both sides) or refuses (nothing changes). Hidden-information actions and chance are not undoable, and say so.
// Whatever order the messages cross in, both tables stay equal and nobody is accused.

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
            Action::Move { card: hand[0], to: ZoneId::new(seat, ZoneKind::Play), position: Position::Top, placement },
        );
    }
}

#[test]
fn a_game_with_undos_verifies_clean_from_either_journal() {
    let mut pair = ready(6);
    let card = play_one(&mut pair, Seat::GUEST, 0);
    undone(&mut pair, Seat::GUEST, Action::Tap { card, tapped: true });
    let card = play_one(&mut pair, Seat::HOST, 0);
    undone(&mut pair, Seat::HOST, Action::SetCardValue { card, key: "+1/+1".into(), value: Some(1) });
    for seat in Seat::BOTH {
        let verdict = journal::check::<R>(pair.engine(seat).journal()).unwrap();
        assert!(matches!(verdict, Verdict::Clean(_)), "{seat:?}: {verdict:?}");
    }
}

#[test]
fn a_refused_undo_changes_nothing_and_the_asker_is_told() {
    let mut pair = ready(2);
    let card = play_one(&mut pair, Seat::GUEST, 0);
    act(&mut pair, Seat::GUEST, Action::Tap { card, tapped: true });
    let tapped = pair.host.table().clone();
    pair.intent(Seat::GUEST, Intent::AskUndo).unwrap();
    pair.drive();
    pair.intent(Seat::HOST, Intent::AnswerUndo(false)).unwrap();
    pair.drive();
    assert_honest(&pair);
    assert_eq!(pair.host.table(), &tapped);
    let told = |e: &Event| matches!(e, Event::UndoRefused { by: Seat::HOST, .. });
    assert!(pair.events(Seat::GUEST).iter().any(told));
    assert_eq!(pair.engine(Seat::HOST).undo_asked(), None);
    assert!(pair.intent(Seat::HOST, Intent::AnswerUndo(true)).is_err(), "a refused request was answered again");
}

#[test]
fn hidden_information_chance_and_the_other_players_actions_are_not_undoable_and_say_so() {
    let mut pair = ready(3);
    assert_eq!(pair.engine(Seat::HOST).undoable(), Err(NotUndoable::NoAction));
    act(&mut pair, Seat::HOST, Action::Draw { count: 1 });
    assert_eq!(pair.engine(Seat::HOST).undoable(), Err(NotUndoable::HiddenCards));
    assert_eq!(pair.engine(Seat::GUEST).undoable(), Err(NotUndoable::NotYours));
    let error = pair.intent(Seat::HOST, Intent::AskUndo).unwrap_err().to_string();
    assert!(error.contains("cannot be unseen"), "{error}");
    act(&mut pair, Seat::HOST, Action::Roll { dice: Dice::new(1, 6).unwrap() });
    assert_eq!(pair.engine(Seat::HOST).undoable(), Err(NotUndoable::Chance));
    act(&mut pair, Seat::HOST, Action::Shuffle { permutation: None });
    assert_eq!(pair.engine(Seat::HOST).undoable(), Err(NotUndoable::HiddenCards));
    act(&mut pair, Seat::HOST, Action::NextTurn);
    assert_eq!(pair.engine(Seat::HOST).undoable(), Err(NotUndoable::Turn));
    let hand = pair.host.table().zone(ZoneId::hand(Seat::HOST)).to_vec();
    let library = ZoneId::library(Seat::HOST);
    act(
        &mut pair,
        Seat::HOST,
        Action::Move { card: hand[0], to: library, position: Position::Top, placement: Placement::default() },
    );
    assert_eq!(pair.engine(Seat::HOST).undoable(), Err(NotUndoable::HiddenCards));
    // An undo is not undone either.
    let card = play_one(&mut pair, Seat::HOST, 0);
    undone(&mut pair, Seat::HOST, Action::Tap { card, tapped: true });
    assert_eq!(pair.engine(Seat::GUEST).undoable(), Err(NotUndoable::Undo));
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
        assert_eq!(now.tapped, asker == Seat::HOST, "asked by {asker:?}");
        assert_eq!(now.counters.get("charge"), Some(&1));
    }
}
