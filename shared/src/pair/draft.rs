//! Limited matches played to their end by choices from a stream of numbers: every format, the players' picks and
//! passes chosen at random (honest ones, and out of turn, which the engine refuses), each direction delivering its
//! messages at random moments, and, when the stream says so, one player's program sending a draft message of its own
//! making (a pile, a line, a pick it was not offered). Driven alike by a property test (random numbers) and a fuzz
//! target (the fuzzer's bytes), so that a panic, a false alert or a draft that cannot end shows up in either.
//!
//! What a run checks, beyond no panic (a panic the engine holds becomes an `Internal` alert, which fails too):
//! - no alert of the kind `Internal` on either side, ever;
//! - with no message of a player's own making, no misbehaviour alert; the draft ends, both players build a deck
//!   from their pools, draw, end the game and audit each other, and both tables and journals agree and check clean.
//!   A made-up message may still be one the player was offered, so of those runs only the first promise is asked.

use crate::crypto::Group;
use crate::engine::{DeckCard, DeckList, Event, Intent, LimitedConfig, PoolList, PoolSource};
use crate::ids::Seat;
use crate::journal::{Verdict, check};
use crate::pair::Pair;
use crate::table::{ZoneId, ZoneKind};
use crate::wire::{self, Action, GridLine, LimitedFormat, Message, PileChoice, PoolHash};

/// Steps one run may take before it finishes honestly (each may set off a shuffle's proofs).
const MAX_STEPS: usize = 400;
/// Rounds of honest play that must finish any draft (a round takes every pick offered).
const MAX_FINISHING_ROUNDS: usize = 200;

/// The numbers a run is played from.
pub trait Chooser {
    /// A number below `bound`, which is never 0.
    fn below(&mut self, bound: usize) -> usize;
    /// Whether the stream is spent: the run then finishes honestly.
    fn is_spent(&self) -> bool;
}

/// Every limited format on small pools: a twelve-card cube, a thirty-card cube and the set file given (an MTGJSON
/// set with boosters). The host's configuration of each, then the guest's.
pub fn formats(set: &[u8]) -> Vec<(LimitedConfig, LimitedConfig)> {
    let cube = |cards: usize| PoolList {
        hash: PoolHash([cards as u8; 32]),
        source: PoolSource::Cube((0..cards).map(|i| format!("Cube card {i}")).collect()),
    };
    let set = PoolList { hash: PoolHash([0x5e; 32]), source: PoolSource::Set(set.to_vec()) };
    let offered = [
        (cube(30), LimitedFormat::Sealed { cards: 12 }),
        (cube(12), LimitedFormat::Uniform),
        (set.clone(), LimitedFormat::SealedBoosters { boosters: 1 }),
        (cube(30), LimitedFormat::Grid { grids: 2 }),
        (cube(30), LimitedFormat::Winston { cards: 6 }),
        (cube(30), LimitedFormat::Winston { cards: 11 }),
        (cube(12), LimitedFormat::Draft { packs: 1, cards: 4 }),
        (set, LimitedFormat::BoosterDraft { packs: 1 }),
    ];
    offered
        .into_iter()
        .map(|(pool, format)| {
            (LimitedConfig { pool: pool.clone(), format: Some(format) }, LimitedConfig { pool, format: None })
        })
        .collect()
}

/// How a run ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Ending {
    /// Both pools drafted, both decks built and played, both audited, both journals clean.
    Played,
    /// A player's program sent a message of its own making: the run stopped there, with no program failing.
    MadeUp,
}

/// Match `config` between two engines seeded from `seed`, their hellos on their way.
pub fn start<G: Group>(config: (LimitedConfig, LimitedConfig), seed: u8) -> Pair<G> {
    Pair::limited(config.0, config.1, seed)
}

/// Plays the match `pair` holds on, from `chooser`'s numbers, to its end; a broken promise panics with what broke.
pub fn play<G: Group>(pair: Pair<G>, chooser: &mut dyn Chooser) -> Ending {
    let mut run = Run { pair, forged_by: None };
    let mut steps = 0;
    while !chooser.is_spent() && steps < MAX_STEPS && run.forged_by.is_none() {
        run.step(chooser);
        run.check_no_internal_fault();
        steps += 1;
    }
    run.pair.drive();
    run.check_no_internal_fault();
    match run.forged_by {
        Some(_) => Ending::MadeUp,
        None => {
            run.check_no_misbehaviour();
            run.finish();
            Ending::Played
        }
    }
}

struct Run<G: Group> {
    pair: Pair<G>,
    /// The player whose program sent a message of its own making, if one did.
    forged_by: Option<Seat>,
}

impl<G: Group> Run<G> {
    fn step(&mut self, chooser: &mut dyn Chooser) {
        let seat = if chooser.below(2) == 0 { Seat::HOST } else { Seat::GUEST };
        match chooser.below(10) {
            0..=3 => {
                self.pair.step_from(seat);
            }
            4..=7 => {
                let pick = chooser.below(64);
                let _refused_changes_nothing = self.pair.intent(seat, pick_intent(pick));
            }
            8 => {
                if let Some(intent) = self.build(seat, chooser.below(8)) {
                    let _refused_changes_nothing = self.pair.intent(seat, intent);
                }
            }
            _ if chooser.below(4) == 0 => self.forge(seat, chooser),
            _ => {
                self.pair.drive();
            }
        }
    }

    /// `seat`'s program sends a draft message of its own making, signed and in sequence.
    fn forge(&mut self, seat: Seat, chooser: &mut dyn Chooser) {
        let number = chooser.below(256) as u32;
        let message: Message<G> = match chooser.below(3) {
            0 => Message::WinstonChoice {
                pile: (number % 5) as u8,
                choice: if number & 8 == 0 { PileChoice::Take } else { PileChoice::Pass },
            },
            1 => Message::GridPick { grid: number % 4, line: grid_line(number / 4) },
            _ => Message::PackPick { pack: number % 4, position: number / 4 },
        };
        let engine = self.pair.engine(seat);
        let seq = engine.record().iter().filter(|(from, _)| *from == seat).count() as u64;
        let ack = self.pair.ack_of(seat, seq);
        self.pair.engine_mut(seat).send_unchecked(wire::encode_body(&message), ack);
        self.pair.collect();
        self.forged_by = Some(seat);
    }

    /// A deck of `seat`'s pool: its first cards, as many as `spells` says, and basic lands.
    fn build(&self, seat: Seat, spells: usize) -> Option<Intent> {
        let pool = pool(self.pair.events(seat))?;
        let names = pool.iter().take(1 + spells).map(String::as_str).chain(std::iter::repeat_n("Mountain", 6));
        let library = names.map(|name| DeckCard { name: name.into(), back: 0 }).collect();
        Some(Intent::Build(DeckList { library, sideboard: vec![], commander: vec![], label: "draft".into() }))
    }

    /// Every pick offered taken, honestly, until both players built a deck; then a draw each, the game ended and
    /// audited, and both journals checked.
    fn finish(&mut self) {
        for _ in 0..MAX_FINISHING_ROUNDS {
            if Seat::BOTH.into_iter().all(|seat| self.pair.engine(seat).is_ready()) {
                break;
            }
            for seat in Seat::BOTH {
                self.take_what_is_offered(seat);
                if let Some(intent) = self.build(seat, 3) {
                    let _built_once = self.pair.intent(seat, intent);
                }
            }
            self.pair.drive();
            self.check_no_internal_fault();
        }
        for seat in Seat::BOTH {
            assert!(self.pair.engine(seat).is_ready(), "the {seat:?}'s match never got to its game");
        }
        for seat in Seat::BOTH {
            let drawn = self.pair.intent(seat, Intent::Act(Action::Draw { count: 2 }));
            assert!(drawn.is_ok(), "{seat:?} could not draw: {drawn:?}");
            self.pair.drive();
            let hand = self.pair.engine(seat).table().zone(ZoneId::new(seat, ZoneKind::Hand)).len();
            assert_eq!(hand, 2, "{seat:?} drew two cards");
        }
        for seat in Seat::BOTH {
            self.pair.intent(seat, Intent::EndGame).expect("the game ends");
        }
        self.pair.drive();
        self.check_no_misbehaviour();
        assert_eq!(self.pair.host.table(), self.pair.guest.table(), "both tables agree");
        for seat in Seat::BOTH {
            let verdict = check::<G>(self.pair.engine(seat).journal());
            assert!(matches!(verdict, Ok(Verdict::Clean(_))), "{seat:?}'s journal: {verdict:?}");
        }
    }

    /// Whatever `seat` may pick now, picked: a pile taken, the first line of a grid with a card left, a pack's
    /// first card.
    fn take_what_is_offered(&mut self, seat: Seat) {
        let lines = (0..3).map(GridLine::Row).chain((0..3).map(GridLine::Column)).map(Intent::Pick);
        let picks = std::iter::once(Intent::Pile(PileChoice::Take)).chain(lines).chain([Intent::TakeCard(0)]);
        for pick in picks {
            if self.pair.intent(seat, pick).is_ok() {
                return;
            }
        }
    }

    fn check_no_internal_fault(&self) {
        for seat in Seat::BOTH {
            let internal =
                self.pair.events(seat).iter().find(
                    |event| matches!(event, Event::Alert(alert) if alert.kind == crate::engine::AlertKind::Internal),
                );
            assert!(internal.is_none(), "{seat:?}'s program failed: {internal:?}");
        }
    }

    fn check_no_misbehaviour(&self) {
        for seat in Seat::BOTH {
            let alerts: Vec<&Event> = self
                .pair
                .events(seat)
                .iter()
                .filter(|event| matches!(event, Event::Alert(alert) if alert.kind.is_misbehaviour()))
                .collect();
            assert!(alerts.is_empty(), "honest play, yet {seat:?} raised {alerts:?}");
        }
    }
}

/// A draft intent from a number: a pile taken or passed, a line of a grid, a card of a pack.
fn pick_intent(pick: usize) -> Intent {
    match pick % 4 {
        0 => Intent::Pile(PileChoice::Take),
        1 => Intent::Pile(PileChoice::Pass),
        2 => Intent::Pick(grid_line((pick / 4) as u32)),
        _ => Intent::TakeCard((pick / 4) as u32),
    }
}

/// One of the grid's six lines from a number, or a line beyond it.
fn grid_line(number: u32) -> GridLine {
    let index = ((number / 2) % 4) as u8;
    if number.is_multiple_of(2) { GridLine::Row(index) } else { GridLine::Column(index) }
}

/// `seat`'s pool, once it was told it.
fn pool(events: &[Event]) -> Option<&Vec<String>> {
    events.iter().find_map(|event| match event {
        Event::Pool { cards } => Some(cards),
        _ => None,
    })
}
