//! Random games: both players act at random while each direction of the connection delivers
//! its messages in random chunks at random moments, independently of the other (as a real
//! network may). After every settling both tables agree, the invariants hold, nobody holds an
//! identity they were not given, and honest play raises no misbehaviour alert. A spectator of each player, fed
//! every envelope that player's engine handled, holds that player's table after every step, knows exactly the
//! cards both players know once nothing is under way, and raises no alert.
//!
//! `FAIRDECK_RANDOM_GAMES=N` plays N Ristretto255 games instead of the 200 of a test run (the
//! long run in docs/PERFORMANCE.md).

mod engine_support {
    include!("support/consistency.rs");
}

use engine_support::{assert_consistent, misbehaviour};
use fairdeck_shared::Seat;
use fairdeck_shared::crypto::{CardInstance, Group, Modp2048, Ristretto255};
use fairdeck_shared::engine::{DeckCard, Event, Intent};
use fairdeck_shared::observer::Observer;
use fairdeck_shared::pair::{Pair, numbered_deck};
use fairdeck_shared::table::{Knowledge, Placement, Position, PowerToughness, ZoneId, ZoneKind};
use fairdeck_shared::wire::{self, Action, ArrowTarget, PeekPurpose};
use proptest::prelude::*;

/// One random step of a game: a player acts, or one direction delivers some of its messages.
#[derive(Clone, Debug)]
enum Step {
    Act(Choice),
    /// `count` of the oldest messages `from` sent, delivered now.
    Deliver {
        from: Seat,
        count: u8,
    },
    /// Everything on its way is delivered, and the tables are compared.
    Settle,
}

/// A player's move, chosen from numbers: what it means depends on the table.
#[derive(Clone, Debug)]
struct Choice {
    seat: Seat,
    kind: u8,
    a: u16,
    b: u16,
}

fn seat() -> impl Strategy<Value = Seat> {
    prop_oneof![Just(Seat::HOST), Just(Seat::GUEST)]
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        5 => (seat(), 0u8..30, any::<u16>(), any::<u16>()).prop_map(|(seat, kind, a, b)| Step::Act(Choice { seat, kind, a, b })),
        5 => (seat(), 1u8..6).prop_map(|(from, count)| Step::Deliver { from, count }),
        1 => Just(Step::Settle),
    ]
}

fn intent_for<G: Group>(pair: &Pair<G>, choice: &Choice) -> Intent {
    let seat = choice.seat;
    let table = pair.engine(seat).table();
    let cards: Vec<_> = table.cards().map(|c| c.id).collect();
    if cards.is_empty() {
        return Intent::Ping;
    }
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
                ZoneKind::Command,
            ];
            let kind = kinds[choice.b as usize % kinds.len()];
            let zone_owner = if kind.owners_only() || choice.b.is_multiple_of(5) { owner } else { seat };
            let position = [Position::Top, Position::Bottom, Position::Index(1)][choice.a as usize % 3];
            let placement = Placement {
                x: i32::from(choice.a % 10),
                y: i32::from(choice.b % 5),
                face_down: choice.b.is_multiple_of(4),
            };
            Action::Move { card, to: ZoneId::new(zone_owner, kind), position, placement }
        }
        3 => Action::Shuffle { permutation: None },
        4 => {
            let purpose = [PeekPurpose::Look, PeekPurpose::Scry, PeekPurpose::Surveil][choice.a as usize % 3];
            Action::Peek { count: small, purpose }
        }
        5 => Action::Reveal {
            cards: vec![card],
            to: if choice.b.is_multiple_of(2) { None } else { Some(seat.opponent()) },
        },
        6 => Action::TakeFromLibrary { count: 1 },
        7 | 8 => Action::ShowRandom,
        9 => Action::Roll { dice: "2d6".parse().unwrap() },
        10 => Action::Flip,
        11 => Action::Tap { card, tapped: choice.b.is_multiple_of(2) },
        12 => Action::SetCardValue { card, key: "counter".into(), value: Some(i64::from(choice.b)) },
        13 => Action::SetPlayerValue { key: "life".into(), value: 20 - i64::from(choice.b % 20) },
        14 | 15 => Action::NextTurn,
        16 => Action::Rearrange { card, index: u32::from(choice.b % 4) },
        17 => Action::Mulligan { draw: u32::from(choice.b % 3) },
        18 => Action::AddCard {
            card: CardInstance {
                owner: seat,
                nonce: [choice.a as u8; 16],
                name: format!("Token {}", choice.b),
                back: 1,
            },
            to: ZoneId::new(seat, [ZoneKind::Play, ZoneKind::Graveyard, ZoneKind::Hand][choice.b as usize % 3]),
            placement: Placement::default(),
            power_toughness: choice
                .a
                .is_multiple_of(2)
                .then_some(PowerToughness { power: 1, toughness: i32::from(choice.b % 4) }),
        },
        19 => return Intent::Chat(format!("message {}", choice.a)),
        22 | 23 => {
            let to = (!choice.b.is_multiple_of(4)).then(|| cards[choice.b as usize % cards.len()]);
            Action::Attach { card, to }
        }
        24 => Action::UntapAll,
        25 => {
            let to = match choice.b % 3 {
                0 => ArrowTarget::Player(seat.opponent()),
                _ => ArrowTarget::Card(cards[choice.b as usize % cards.len()]),
            };
            Action::Arrow { from: card, to }
        }
        26 => Action::PlayOrDraw { play: choice.b.is_multiple_of(2) },
        27 => {
            let len = table.zone(ZoneId::library(seat)).len() as u32;
            Action::Peek { count: len, purpose: PeekPurpose::Search }
        }
        // Rare: a concession ends the game until both ask for a new one.
        28 if choice.b.is_multiple_of(8) => Action::Concede,
        28 => Action::UntapAll,
        // The next game starts once the other player asks too (a later choice, or never).
        20 => return Intent::NewGame(None),
        // Refused unless something waits on the opponent; else the game is over until a new one.
        21 => return Intent::ClaimForfeit,
        // Rare: the end of the game with the deck's audit, which may cross a concession or a new game.
        29 if choice.b.is_multiple_of(8) => return Intent::EndGame,
        // Undo by consent, asked and answered at random: the request may cross any action.
        29 if choice.b.is_multiple_of(3) => return Intent::AskUndo,
        29 => return Intent::AnswerUndo(choice.b.is_multiple_of(2)),
        _ => Action::Draw { count: small },
    };
    Intent::Act(action)
}

/// A deck whose first library cards have another back than the rest, with a commander.
fn two_backs(prefix: &str, library: usize) -> fairdeck_shared::engine::DeckList {
    let mut deck = numbered_deck(prefix, library, 2);
    deck.commander = vec![DeckCard { name: format!("{prefix} commander"), back: 0 }];
    deck.label = format!("{prefix}DECK");
    for card in deck.library.iter_mut().take(library / 4) {
        card.back = 5;
    }
    deck
}

fn assert_no_misbehaviour<G: Group>(pair: &Pair<G>) -> Result<(), TestCaseError> {
    for seat in Seat::BOTH {
        prop_assert!(misbehaviour(pair, seat).is_empty(), "{:?}: {:?}", seat, misbehaviour(pair, seat));
    }
    Ok(())
}

/// A spectator of one player's: it takes every envelope that player's engine handled, in its order.
struct Spectator<G: Group> {
    of: Seat,
    observer: Observer<G>,
    taken: usize,
    alerts: Vec<String>,
}

impl<G: Group> Spectator<G> {
    fn new(of: Seat) -> Self {
        Spectator { of, observer: Observer::new([9; 32]), taken: 0, alerts: Vec::new() }
    }

    /// Takes what the player's engine handled since, and checks the spectator's table is that player's.
    fn follow(&mut self, pair: &Pair<G>) -> Result<(), TestCaseError> {
        let record = pair.engine(self.of).record();
        for (from, envelope) in &record[self.taken..] {
            self.observer.observe(*from, &wire::encode_envelope(envelope));
        }
        self.taken = record.len();
        while let Some(event) = self.observer.poll_event() {
            if let Event::Alert(alert) = event {
                self.alerts.push(format!("{}: {}", alert.kind, alert.detail));
            }
        }
        prop_assert!(self.alerts.is_empty(), "the spectator of the {:?} alerted: {:?}", self.of, self.alerts);
        prop_assert_eq!(self.observer.table(), pair.engine(self.of).table(), "the spectator of the {:?}", self.of);
        Ok(())
    }

    /// With nothing under way, the spectator knows exactly the cards both players know, as they are.
    fn knows_the_public_cards(&self, pair: &Pair<G>) -> Result<(), TestCaseError> {
        for card in self.observer.table().cards() {
            let known = self.observer.identity(card.id);
            prop_assert_eq!(known.is_some(), card.known_to == Knowledge::BOTH, "card {}", card.id);
            if let Some(instance) = known {
                prop_assert_eq!(Some(instance), pair.engine(card.owner).identity(card.id));
            }
        }
        Ok(())
    }
}

fn play<G: Group>(library: usize, steps: &[Step]) -> Result<(), TestCaseError> {
    let mut pair = Pair::<G>::new(two_backs("Host", library), two_backs("Guest", library), 3);
    let mut spectators = Seat::BOTH.map(Spectator::<G>::new);
    for step in steps {
        match step {
            // A refused intent (it does not fit this player's view of the table) sends nothing.
            Step::Act(choice) => {
                let intent = intent_for(&pair, choice);
                let _ = pair.intent(choice.seat, intent);
            }
            Step::Deliver { from, count } => {
                for _ in 0..*count {
                    pair.step_from(*from);
                }
            }
            Step::Settle => {
                pair.drive();
                assert_consistent(&pair);
            }
        }
        assert_no_misbehaviour(&pair)?;
        for spectator in &mut spectators {
            spectator.follow(&pair)?;
        }
    }
    pair.drive();
    assert_no_misbehaviour(&pair)?;
    for seat in Seat::BOTH {
        prop_assert!(!pair.engine(seat).is_busy(), "{seat:?} is still busy at the end");
    }
    assert_consistent(&pair);
    for spectator in &mut spectators {
        spectator.follow(&pair)?;
        spectator.knows_the_public_cards(&pair)?;
    }
    Ok(())
}

/// Games per run: 200, or `FAIRDECK_RANDOM_GAMES`.
fn games() -> u32 {
    std::env::var("FAIRDECK_RANDOM_GAMES").ok().and_then(|n| n.parse().ok()).unwrap_or(200)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: games(), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_games_ristretto255(steps in prop::collection::vec(step(), 1..80)) {
        play::<Ristretto255>(12, &steps)?;
    }
}

proptest! {
    // modp2048 is ~200 times slower: a few short games.
    #![proptest_config(ProptestConfig { cases: 3, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_games_modp2048(steps in prop::collection::vec(step(), 1..16)) {
        play::<Modp2048>(4, &steps)?;
    }
}
