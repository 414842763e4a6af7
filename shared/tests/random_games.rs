//! Random games: both players act at random, sometimes at the same time, and after every
//! step both tables agree, the invariants hold, nobody holds an identity they were not
//! given, and honest play raises no misbehaviour alert.

mod engine_support {
    include!("support/consistency.rs");
}

use engine_support::{assert_consistent, misbehaviour};
use fairdeck_shared::Seat;
use fairdeck_shared::crypto::{CardInstance, Group, Modp2048, Ristretto255};
use fairdeck_shared::engine::Intent;
use fairdeck_shared::pair::{Pair, numbered_deck};
use fairdeck_shared::table::{Placement, Position, ZoneId, ZoneKind};
use fairdeck_shared::wire::Action;
use proptest::prelude::*;

/// One random move of a player, chosen from numbers: what it means depends on the table.
#[derive(Clone, Debug)]
struct Choice {
    seat: bool,
    kind: u8,
    a: u16,
    b: u16,
    /// Deliver everything before the next choice, or let the other player act first.
    settle: bool,
}

fn choice() -> impl Strategy<Value = Choice> {
    (any::<bool>(), 0u8..20, any::<u16>(), any::<u16>(), prop::bool::weighted(0.7))
        .prop_map(|(seat, kind, a, b, settle)| Choice { seat, kind, a, b, settle })
}

fn action_for<G: Group>(pair: &Pair<G>, choice: &Choice) -> (Seat, Intent) {
    let seat = if choice.seat { Seat::Host } else { Seat::Guest };
    let table = pair.engine(seat).table();
    let cards: Vec<_> = table.cards().map(|c| c.id).collect();
    let card = cards[choice.a as usize % cards.len()];
    let owner = table.card(card).map_or(seat, |c| c.owner);
    let small = u32::from(choice.b % 3) + 1;
    let action = match choice.kind {
        0 | 1 => Action::Draw { count: small },
        2 => {
            let kinds = [
                ZoneKind::Hand,
                ZoneKind::Graveyard,
                ZoneKind::Exile,
                ZoneKind::Play,
                ZoneKind::Library,
                ZoneKind::Sideboard,
            ];
            let kind = kinds[choice.b as usize % kinds.len()];
            let zone_owner = if matches!(kind, ZoneKind::Library | ZoneKind::Sideboard) || choice.b.is_multiple_of(5) {
                owner
            } else {
                seat
            };
            let position = [Position::Top, Position::Bottom, Position::Index(1)][choice.a as usize % 3];
            let placement = Placement {
                x: i32::from(choice.a % 10),
                y: i32::from(choice.b % 5),
                face_down: choice.b.is_multiple_of(4),
            };
            Action::Move { card, to: ZoneId::new(zone_owner, kind), position, placement }
        }
        3 => Action::Shuffle { permutation: None },
        4 => Action::Peek { count: small },
        5 => Action::Reveal {
            cards: vec![card],
            to: if choice.b.is_multiple_of(2) { None } else { Some(seat.opponent()) },
        },
        6 => Action::TakeFromLibrary { count: 1 },
        7 => Action::ShowRandom,
        8 => Action::Roll { dice: "2d6".parse().unwrap() },
        9 => Action::Flip,
        10 => Action::Tap { card, tapped: choice.b.is_multiple_of(2) },
        11 => Action::SetCardValue { card, key: "counter".into(), value: Some(i64::from(choice.b)) },
        12 => Action::SetPlayerValue { key: "life".into(), value: 20 - i64::from(choice.b % 20) },
        13 => Action::NextTurn,
        14 => Action::Rearrange { card, index: u32::from(choice.b % 4) },
        15 => Action::Mulligan { draw: u32::from(choice.b % 3) },
        16 => Action::AddCard {
            card: CardInstance {
                owner: seat,
                nonce: [choice.a as u8; 16],
                name: format!("Token {}", choice.b),
                back: 1,
            },
            to: ZoneId::new(seat, [ZoneKind::Play, ZoneKind::Graveyard, ZoneKind::Hand][choice.b as usize % 3]),
            placement: Placement::default(),
        },
        17 => return (seat, Intent::Chat(format!("message {}", choice.a))),
        // The next game starts once the other player asks too (a later choice, or never).
        18 => return (seat, Intent::NewGame(None)),
        // Refused unless something waits on the opponent; else the game is over until a new one.
        _ => return (seat, Intent::ClaimForfeit),
    };
    (seat, Intent::Act(action))
}

/// A deck whose first library cards have another back than the rest.
fn two_backs(prefix: &str, library: usize) -> fairdeck_shared::engine::DeckList {
    let mut deck = numbered_deck(prefix, library, 2);
    for card in deck.library.iter_mut().take(library / 4) {
        card.back = 5;
    }
    deck
}

fn play<G: Group>(library: usize, choices: &[Choice]) -> Result<(), TestCaseError> {
    let mut pair = Pair::<G>::new(two_backs("Host", library), numbered_deck("Guest", library, 2), 3);
    pair.drive();
    prop_assert!(pair.host.is_ready() && pair.guest.is_ready());
    for choice in choices {
        let (seat, intent) = action_for(&pair, choice);
        // A refused intent (it does not fit this player's view of the table) sends nothing.
        let _ = pair.intent(seat, intent);
        if choice.settle {
            pair.drive();
            assert_consistent(&pair);
        }
        for seat in Seat::BOTH {
            prop_assert!(misbehaviour(&pair, seat).is_empty(), "{:?}: {:?}", seat, misbehaviour(&pair, seat));
        }
    }
    pair.drive();
    for seat in Seat::BOTH {
        prop_assert!(misbehaviour(&pair, seat).is_empty(), "{:?}: {:?}", seat, misbehaviour(&pair, seat));
        prop_assert!(!pair.engine(seat).is_busy(), "{seat:?} is still busy at the end");
    }
    assert_consistent(&pair);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_games_ristretto255(choices in prop::collection::vec(choice(), 1..40)) {
        play::<Ristretto255>(12, &choices)?;
    }
}

proptest! {
    // modp2048 is ~200 times slower: a couple of short games.
    #![proptest_config(ProptestConfig { cases: 2, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_games_modp2048(choices in prop::collection::vec(choice(), 1..8)) {
        play::<Modp2048>(4, &choices)?;
    }
}
