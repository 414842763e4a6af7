//! Two engines play through the table's actions in memory; both tables agree after every
//! step, identities go only to those they were given to, and honest play raises no alert.

use fairdeck_shared::Seat;
mod engine_support {
    include!("support/consistency.rs");
}

use engine_support::{assert_consistent, misbehaviour};
use fairdeck_shared::crypto::{CardInstance, Group, Modp2048, Ristretto255};
use fairdeck_shared::engine::{Event, Intent};
use fairdeck_shared::pair::{Pair, numbered_deck};
use fairdeck_shared::table::{Placement, Position, ZoneId, ZoneKind};
use fairdeck_shared::wire::{Action, Awaited};

pub fn alerts<G: Group>(pair: &Pair<G>, seat: Seat) -> Vec<String> {
    pair.events(seat)
        .iter()
        .filter_map(|e| match e {
            Event::Alert(alert) => Some(format!("{}: {}", alert.kind, alert.detail)),
            _ => None,
        })
        .collect()
}

fn act<G: Group>(pair: &mut Pair<G>, seat: Seat, action: Action) {
    pair.intent(seat, Intent::Act(action)).unwrap();
    pair.drive();
    assert_consistent(pair);
}

fn set_up<G: Group>(library: usize) -> Pair<G> {
    let mut pair = Pair::<G>::new(numbered_deck("Host", library, 2), numbered_deck("Guest", library, 2), 1);
    pair.drive();
    for seat in Seat::BOTH {
        assert!(pair.engine(seat).is_ready(), "{seat:?} not ready: {:?}", alerts(&pair, seat));
    }
    assert_consistent(&pair);
    pair
}

fn whole_game<G: Group>(library: usize) {
    let mut pair = set_up::<G>(library);
    // After set-up nobody knows any library card, and each owner knows their sideboard.
    for seat in Seat::BOTH {
        assert!(!pair.host.table().is_dirty(seat));
        assert_eq!(pair.engine(seat).identities().len(), 2);
    }

    act(&mut pair, Seat::HOST, Action::Draw { count: 3 });
    act(&mut pair, Seat::GUEST, Action::Draw { count: 3 });
    let host_hand = pair.host.table().zone(ZoneId::hand(Seat::HOST)).to_vec();
    assert_eq!(host_hand.len(), 3);
    assert!(host_hand.iter().all(|id| pair.host.identity(*id).is_some() && pair.guest.identity(*id).is_none()));

    // Play a card face up: both learn it. Face down: nobody new does.
    let played = host_hand[0];
    let to_play = ZoneId::new(Seat::HOST, ZoneKind::Play);
    act(
        &mut pair,
        Seat::HOST,
        Action::Move {
            card: played,
            to: to_play,
            position: Position::Top,
            placement: Placement { x: 3, y: 1, face_down: false },
        },
    );
    assert!(pair.guest.identity(played).is_some());
    let hidden = host_hand[1];
    act(
        &mut pair,
        Seat::HOST,
        Action::Move {
            card: hidden,
            to: to_play,
            position: Position::Top,
            placement: Placement { x: 4, y: 1, face_down: true },
        },
    );
    assert!(pair.guest.identity(hidden).is_none());
    act(&mut pair, Seat::HOST, Action::Tap { card: played, tapped: true });
    act(&mut pair, Seat::HOST, Action::SetCardValue { card: played, key: "+1/+1".into(), value: Some(2) });
    // The opponent changing a card of this player's: allowed, and the player is told.
    act(&mut pair, Seat::GUEST, Action::Tap { card: played, tapped: false });
    assert!(
        alerts(&pair, Seat::HOST).iter().any(|a| a.starts_with("moved_your_cards") && a.contains(&played.to_string()))
    );

    // The guest discards: public. Then reveals a card to the host only.
    let guest_hand = pair.guest.table().zone(ZoneId::hand(Seat::GUEST)).to_vec();
    act(
        &mut pair,
        Seat::GUEST,
        Action::Move {
            card: guest_hand[0],
            to: ZoneId::new(Seat::GUEST, ZoneKind::Graveyard),
            position: Position::Top,
            placement: Placement::default(),
        },
    );
    assert!(pair.host.identity(guest_hand[0]).is_some());
    act(&mut pair, Seat::GUEST, Action::Reveal { cards: vec![guest_hand[1]], to: Some(Seat::HOST) });
    assert!(pair.host.identity(guest_hand[1]).is_some());

    // Peek makes the library dirty; the next shuffle relocks and reshuffles with proofs.
    act(&mut pair, Seat::GUEST, Action::Peek { count: 2, purpose: Default::default() });
    assert!(pair.host.table().is_dirty(Seat::GUEST));
    act(&mut pair, Seat::GUEST, Action::Shuffle { permutation: None });
    assert!(!pair.host.table().is_dirty(Seat::GUEST));
    assert!(pair.guest_events.iter().any(|e| matches!(e, Event::Shuffled { library: Seat::GUEST })));

    // A card back into the library from the hand, then a shuffle: relocked first.
    let back = pair.host.table().zone(ZoneId::hand(Seat::HOST))[0];
    act(
        &mut pair,
        Seat::HOST,
        Action::Move {
            card: back,
            to: ZoneId::library(Seat::HOST),
            position: Position::Top,
            placement: Placement::default(),
        },
    );
    assert!(pair.host.table().is_dirty(Seat::HOST));
    act(&mut pair, Seat::HOST, Action::Shuffle { permutation: None });
    assert!(!pair.host.table().is_dirty(Seat::HOST));
    act(&mut pair, Seat::HOST, Action::Draw { count: 2 });

    // A clean library shuffles by reordering alone.
    act(&mut pair, Seat::GUEST, Action::Shuffle { permutation: None });

    // Taking from the opponent's library: only the taker learns the card.
    act(&mut pair, Seat::HOST, Action::TakeFromLibrary { count: 1 });
    let taken = *pair.host.table().zone(ZoneId::hand(Seat::HOST)).last().unwrap();
    assert_eq!(pair.host.table().card(taken).unwrap().owner, Seat::GUEST);
    assert!(pair.host.identity(taken).is_some() && pair.guest.identity(taken).is_none());
    assert!(alerts(&pair, Seat::GUEST).iter().any(|a| a.starts_with("looked_at_your_cards")));

    // Shared randomness.
    act(&mut pair, Seat::GUEST, Action::Roll { dice: "2d6".parse().unwrap() });
    let rolls = |events: &[Event]| {
        events
            .iter()
            .filter_map(|e| match e {
                Event::Rolled { faces, .. } => Some(faces.clone()),
                _ => None,
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(rolls(&pair.host_events), rolls(&pair.guest_events));
    assert_eq!(rolls(&pair.host_events).len(), 1);
    act(&mut pair, Seat::HOST, Action::Flip);
    act(&mut pair, Seat::HOST, Action::ShowRandom);
    let shown = pair
        .host_events
        .iter()
        .find_map(|e| match e {
            Event::ShownAtRandom { card, .. } => Some(*card),
            _ => None,
        })
        .unwrap();
    assert!(pair.guest.identity(shown).is_some());

    // A mulligan: hand into the library, a full shuffle, then a fresh draw.
    let hand_before = pair.guest.table().zone(ZoneId::hand(Seat::GUEST)).len();
    act(&mut pair, Seat::GUEST, Action::Mulligan { draw: 2 });
    let hand_after = pair.guest.table().zone(ZoneId::hand(Seat::GUEST)).to_vec();
    assert_eq!(hand_after.len(), 2, "had {hand_before}");
    assert!(hand_after.iter().all(|id| pair.guest.identity(*id).is_some() && pair.host.identity(*id).is_none()));
    assert!(!pair.host.table().is_dirty(Seat::GUEST));

    // A token: public from the start.
    let token = CardInstance { owner: Seat::HOST, nonce: [9; 16], name: "Goblin token".into(), back: 7 };
    let play = ZoneId::new(Seat::HOST, ZoneKind::Play);
    act(
        &mut pair,
        Seat::HOST,
        Action::AddCard {
            card: token.clone(),
            to: play,
            placement: Placement { x: 1, y: 1, face_down: false },
            power_toughness: None,
        },
    );
    let token_id = pair.host.table().zone(play)[0];
    assert_eq!(pair.guest.identity(token_id), Some(&token));

    act(&mut pair, Seat::GUEST, Action::SetPlayerValue { key: "life".into(), value: 17 });
    act(&mut pair, Seat::HOST, Action::SetPhase { phase: "combat".into() });
    act(&mut pair, Seat::HOST, Action::NextTurn);
    pair.intent(Seat::GUEST, Intent::Chat("good game".into())).unwrap();
    pair.drive();
    assert!(pair.host_events.iter().any(|e| matches!(e, Event::Chat { text, .. } if text == "good game")));

    // The end: each reveals its deck key, and each whole deck checks out against its catalogue.
    for seat in Seat::BOTH {
        pair.intent(seat, Intent::EndGame).unwrap();
    }
    pair.drive();
    for seat in Seat::BOTH {
        let deck = pair
            .events(seat.opponent())
            .iter()
            .find_map(|e| match e {
                Event::Audited { seat: audited, deck } if *audited == seat => Some(deck.clone()),
                _ => None,
            })
            .expect("the opponent audited the deck");
        let mut names: Vec<String> = deck.iter().map(|card| card.name.clone()).collect();
        names.sort();
        let prefix = if seat == Seat::HOST { "Host" } else { "Guest" };
        let mut expected: Vec<String> = numbered_deck(prefix, library, 2)
            .library
            .iter()
            .chain(&numbered_deck(prefix, library, 2).sideboard)
            .map(|card| card.name.clone())
            .collect();
        expected.sort();
        assert_eq!(names, expected);
        assert!(pair.intent(seat, Intent::Act(Action::Draw { count: 1 })).is_err(), "no action after the end");
    }

    // Honest play: no misbehaviour alert on either side.
    for seat in Seat::BOTH {
        assert!(misbehaviour(&pair, seat).is_empty(), "{seat:?}: {:?}", misbehaviour(&pair, seat));
        assert!(pair.engine(seat).halted().is_none());
        assert!(!pair.engine(seat).is_busy());
    }
}

#[test]
fn whole_game_ristretto255() {
    whole_game::<Ristretto255>(20);
}

#[test]
fn whole_game_modp2048() {
    whole_game::<Modp2048>(5);
}

#[test]
fn deck_sizes_are_bounded_per_suite() {
    use fairdeck_shared::engine::{DeckError, Engine, EngineConfig};
    let config = || EngineConfig { name: "Host".into(), software: "test".into() };
    let deck = |n| numbered_deck("Host", n, 0);
    // modp2048's 256-byte elements would make a bigger library's shuffle step overflow a message.
    assert_eq!(Engine::<Modp2048>::new(Seat::HOST, config(), deck(301), [1; 32]).err(), Some(DeckError::TooLarge(300)));
    assert!(Engine::<Modp2048>::new(Seat::HOST, config(), deck(300), [1; 32]).is_ok());
    assert_eq!(
        Engine::<Ristretto255>::new(Seat::HOST, config(), deck(1001), [1; 32]).err(),
        Some(DeckError::TooLarge(1000))
    );
}

/// Game 1 is played a little, then both ask for a new game; the guest swaps one card with its
/// sideboard. `concurrent`: both ask at once while actions and strips of game 1 are still in
/// flight, which the engines must drop without an alert.
fn new_game_with_sideboarding(concurrent: bool) {
    let mut pair = set_up::<Ristretto255>(10);
    act(&mut pair, Seat::HOST, Action::Draw { count: 2 });
    let first_id = pair.host.game_id().unwrap();
    let mut sideboarded = numbered_deck("Guest", 10, 2);
    let swapped = std::mem::replace(&mut sideboarded.library[0], sideboarded.sideboard[0].clone());
    sideboarded.sideboard[0] = swapped;

    if concurrent {
        pair.intent(Seat::HOST, Intent::Act(Action::Draw { count: 1 })).unwrap();
        pair.intent(Seat::GUEST, Intent::Act(Action::Draw { count: 1 })).unwrap();
        pair.intent(Seat::HOST, Intent::NewGame(None)).unwrap();
        pair.intent(Seat::GUEST, Intent::NewGame(Some(sideboarded.clone()))).unwrap();
    } else {
        pair.intent(Seat::HOST, Intent::NewGame(None)).unwrap();
        pair.drive();
        assert!(pair.guest_events.contains(&Event::NewGameRequested));
        assert!(!pair.host_events.iter().any(|e| matches!(e, Event::NewGame { .. })), "one ask starts nothing");
        // The game goes on until both ask.
        act(&mut pair, Seat::GUEST, Action::Draw { count: 1 });
        assert_eq!(pair.guest.table().zone(ZoneId::hand(Seat::GUEST)).len(), 1);
        assert!(pair.intent(Seat::HOST, Intent::NewGame(None)).is_err(), "asked once already");
        pair.intent(Seat::GUEST, Intent::NewGame(Some(sideboarded.clone()))).unwrap();
    }
    pair.drive();

    for seat in Seat::BOTH {
        assert!(pair.events(seat).contains(&Event::NewGame { number: 2 }), "{seat:?}");
        assert!(pair.engine(seat).is_ready(), "{seat:?} not ready: {:?}", alerts(&pair, seat));
        assert!(misbehaviour(&pair, seat).is_empty(), "{seat:?}: {:?}", misbehaviour(&pair, seat));
        assert_ne!(pair.engine(seat).game_id(), Some(first_id));
        // A fresh table: full libraries, empty hands, names kept.
        assert_eq!(pair.host.table().zone(ZoneId::library(seat)).len(), 10);
        assert!(pair.host.table().zone(ZoneId::hand(seat)).is_empty());
    }
    assert_eq!(pair.host.game_id(), pair.guest.game_id());
    assert_eq!(pair.host.table().player(Seat::GUEST).name, "Guest");
    assert_consistent(&pair);
    // The guest's new sideboard holds the card it took out.
    let sideboard = pair.guest.table().zone(ZoneId::new(Seat::GUEST, ZoneKind::Sideboard)).to_vec();
    let names: Vec<&str> = sideboard.iter().map(|id| pair.guest.identity(*id).unwrap().name.as_str()).collect();
    assert!(names.contains(&"Guest 0"), "{names:?}");

    // Game 2 plays, and its end-of-game audit shows the sideboarded deck.
    act(&mut pair, Seat::GUEST, Action::Draw { count: 3 });
    pair.intent(Seat::GUEST, Intent::EndGame).unwrap();
    pair.drive();
    let deck = pair
        .host_events
        .iter()
        .find_map(|e| match e {
            Event::Audited { seat: Seat::GUEST, deck } => Some(deck.clone()),
            _ => None,
        })
        .expect("the host audited the guest's new deck");
    assert_eq!(deck.len(), 12);
    for seat in Seat::BOTH {
        assert!(misbehaviour(&pair, seat).is_empty(), "{seat:?}: {:?}", misbehaviour(&pair, seat));
        assert!(!pair.engine(seat).is_busy());
    }
}

#[test]
fn a_new_game_with_sideboarding_one_after_the_other() {
    new_game_with_sideboarding(false);
}

#[test]
fn a_new_game_asked_by_both_at_once_mid_exchange() {
    new_game_with_sideboarding(true);
}

/// A library of 9 cards of back 0 and 3 of back 7.
fn two_backs(prefix: &str) -> fairdeck_shared::engine::DeckList {
    let mut deck = numbered_deck(prefix, 12, 1);
    for card in &mut deck.library[9..] {
        card.back = 7;
    }
    deck
}

fn library_backs<G: Group>(pair: &Pair<G>, seat: Seat) -> Vec<u32> {
    let table = pair.host.table();
    table.zone(ZoneId::library(seat)).iter().map(|id| table.card(*id).unwrap().back).collect()
}

#[test]
fn libraries_of_mixed_backs_are_shuffled_with_their_backs_drawn_in_common() {
    let mut arrangements = std::collections::BTreeSet::new();
    for seed in 0..6 {
        let mut pair = Pair::<Ristretto255>::new(two_backs("Host"), two_backs("Guest"), seed);
        pair.drive();
        for seat in Seat::BOTH {
            assert!(pair.engine(seat).is_ready(), "{seat:?} not ready: {:?}", alerts(&pair, seat));
            let mut backs = library_backs(&pair, seat);
            arrangements.insert(backs.clone());
            backs.sort();
            assert_eq!(backs, [[0; 9].as_slice(), &[7; 3]].concat(), "a library keeps its backs");
        }
        assert_consistent(&pair);

        // Every card drawn is what its back says, and a reorder could place the backs.
        act(&mut pair, Seat::HOST, Action::Draw { count: 12 });
        for id in pair.host.table().zone(ZoneId::hand(Seat::HOST)) {
            let card = pair.host.table().card(*id).unwrap();
            assert_eq!(pair.host.identity(*id).unwrap().back, card.back);
        }
        for id in pair.host.table().zone(ZoneId::hand(Seat::HOST)).to_vec() {
            let to = ZoneId::library(Seat::HOST);
            act(
                &mut pair,
                Seat::HOST,
                Action::Move { card: id, to, position: Position::Top, placement: Placement::default() },
            );
        }
        let permutation = Some((0..12).rev().collect());
        assert!(pair.intent(Seat::HOST, Intent::Act(Action::Shuffle { permutation })).is_err(), "stacking the backs");
        act(&mut pair, Seat::HOST, Action::Shuffle { permutation: None });
        assert_eq!(library_backs(&pair, Seat::HOST).iter().filter(|&&b| b == 7).count(), 3);
        assert!(pair.host.table().zone(ZoneId::library(Seat::HOST)).iter().all(|id| pair.host.identity(*id).is_none()));
        // The guest's mulligan takes every back back into its library.
        act(&mut pair, Seat::GUEST, Action::Draw { count: 5 });
        act(&mut pair, Seat::GUEST, Action::Mulligan { draw: 4 });
        assert_eq!(pair.host.table().zone(ZoneId::hand(Seat::GUEST)).len(), 4);
        for seat in Seat::BOTH {
            assert!(misbehaviour(&pair, seat).is_empty(), "{seat:?}: {:?}", misbehaviour(&pair, seat));
            assert!(!pair.engine(seat).is_busy(), "{seat:?} busy");
        }
    }
    // Where the backs lie is drawn anew each game: 12 arrangements, 220 possible each.
    assert!(arrangements.len() > 3, "{arrangements:?}");
}

#[test]
fn a_player_who_stops_answering_can_be_claimed_to_forfeit() {
    let mut pair = set_up::<Ristretto255>(10);
    assert_eq!(pair.host.awaiting_opponent(), None);
    assert!(pair.intent(Seat::HOST, Intent::ClaimForfeit).is_err(), "nothing waits on the guest");

    // The host draws; the guest receives the draw and strips, but its strip never arrives.
    pair.intent(Seat::HOST, Intent::Act(Action::Draw { count: 1 })).unwrap();
    pair.step();
    let held = pair.queue.pop_front().expect("the guest's strip");
    let awaited = pair.host.awaiting_opponent().expect("the host waits on the guest's strip");
    assert!(matches!(awaited, Awaited::Strip { .. }), "{awaited}");

    pair.intent(Seat::HOST, Intent::ClaimForfeit).unwrap();
    pair.drive();
    for seat in Seat::BOTH {
        let claimed = Event::ForfeitClaimed { by: Seat::HOST, awaited: awaited.clone() };
        assert!(pair.events(seat).contains(&claimed), "{seat:?}");
        assert!(misbehaviour(&pair, seat).is_empty(), "{seat:?}: {:?}", misbehaviour(&pair, seat));
        assert!(pair.intent(seat, Intent::Act(Action::Draw { count: 1 })).is_err(), "the game is over");
        assert!(pair.engine(seat).is_ended());
        assert_eq!(pair.engine(seat).awaiting_opponent(), None, "nothing is owed after the game");
    }
    // The late strip changes nothing and accuses nobody; the match goes on.
    pair.deliver(held);
    for seat in Seat::BOTH {
        pair.intent(seat, Intent::NewGame(None)).unwrap();
    }
    pair.drive();
    for seat in Seat::BOTH {
        assert!(pair.engine(seat).is_ready());
        assert!(misbehaviour(&pair, seat).is_empty(), "{seat:?}: {:?}", misbehaviour(&pair, seat));
    }
}

/// A replayed engine has sent everything its journal made it send, its hello too: a saved game resumed before
/// anything came in must not send its hello again (the opponent would see message 0 twice).
#[test]
fn a_replayed_journal_sends_nothing_again_even_with_no_input() {
    let engine = fairdeck_shared::engine::Engine::<Ristretto255>::new(
        Seat::GUEST,
        fairdeck_shared::engine::EngineConfig { name: "guest".into(), software: "test".into() },
        numbered_deck("Guest", 10, 2),
        [3; 32],
    )
    .unwrap();
    let journal = engine.journal().clone();
    assert!(journal.inputs.is_empty());
    let mut replayed = fairdeck_shared::journal::replay::<Ristretto255>(&journal, |_| {}).unwrap();
    assert!(replayed.poll_transmit().is_none(), "the hello went out in the game already");

    let mut pair = Pair::<Ristretto255>::new(numbered_deck("Host", 10, 2), numbered_deck("Guest", 10, 2), 1);
    pair.drive();
    let journal = pair.engine(Seat::GUEST).journal().clone();
    let mut replayed = fairdeck_shared::journal::replay::<Ristretto255>(&journal, |_| {}).unwrap();
    assert!(replayed.poll_transmit().is_none());
    assert!(replayed.is_ready());
    assert_eq!(
        replayed.table().zone(ZoneId::library(Seat::GUEST)),
        pair.engine(Seat::GUEST).table().zone(ZoneId::library(Seat::GUEST))
    );
}

/// A library of two backs is reordered when its shuffle run completes, which the guest does on
/// the host's random settlement while the host still waits for the guest's step. (The host drew
/// a card first, so its mulligan's run begins with its relock, and the guest steps only after
/// opening its side of the arrangement.) A next-turn the host sends in that gap (and which
/// reaches the guest after the settlement) carries the table digest with the old order: the
/// guest compares it with its table as the host saw it, and raises nothing.
#[test]
fn a_next_turn_sent_while_the_guest_is_ahead_of_a_shuffle_raises_nothing() {
    let two_backs = |prefix: &str| {
        let mut deck = numbered_deck(prefix, 12, 2);
        for card in deck.library.iter_mut().take(3) {
            card.back = 5;
        }
        deck
    };
    let mut pair = Pair::<Ristretto255>::new(two_backs("Host"), two_backs("Guest"), 3);
    pair.drive();
    pair.intent(Seat::HOST, Intent::Act(Action::Draw { count: 1 })).unwrap();
    pair.drive();
    pair.intent(Seat::HOST, Intent::Act(Action::Mulligan { draw: 0 })).unwrap();
    // The host's act, random commitment and relock; the guest's commitment and opening.
    for (from, count) in [(Seat::HOST, 3), (Seat::GUEST, 2)] {
        for _ in 0..count {
            pair.step_from(from);
        }
    }
    assert!(pair.host.is_busy(), "the host still waits for the guest's step");
    pair.intent(Seat::HOST, Intent::Act(Action::NextTurn)).unwrap();
    pair.drive();
    for seat in Seat::BOTH {
        assert!(misbehaviour(&pair, seat).is_empty(), "{seat:?}: {:?}", misbehaviour(&pair, seat));
    }
    assert_consistent(&pair);
    assert_eq!(pair.guest.table().turn, 1);
}
