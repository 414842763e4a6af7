//! Limited play: the pool file both players hold, the format the host offers, and what is awaited of the opponent
//! until the pools are dealt (docs/PROTOCOL.md, "Limited play"). The stack itself is `stack.rs`; a set's boosters,
//! planned from a shared random round, `boosters.rs`; decks built from a pool, `pool_deck.rs`.

use std::ops::Range;

use super::Engine;
use super::api::{AlertKind, Event, Intent, IntentError, LimitedConfig, PoolError, PoolList, PoolSource};
use super::fault::Fault;
use super::grid::GridDraft;
use super::packs::PackDraft;
use super::reveals::Reveals;
use super::round::RandomKind;
use super::stack::Stack;
use super::winston::WinstonDraft;
use crate::crypto::Group;
use crate::ids::Seat;
use crate::pool::{BoosterKind, MAX_PLAN_BOOSTERS, SetFile};
use crate::wire::{
    self, BOOSTER_ROUND, DeckSource, LimitedFormat, MAX_DEAL, MAX_GRIDS, MAX_PACKS, MAX_POOL_LEN, Message, PoolHash,
};

/// A limited match's side of the engine: kept for the whole match, since every game's deck comes from the pool.
#[cfg_attr(fuzzing, derive(Clone))]
pub(super) struct Limited<G: Group> {
    pub(super) pool: PoolList,
    /// The set file of `pool`, read, when it is one.
    pub(super) set: Option<SetFile>,
    /// The host's format: its own from the start, the guest's once the offer came.
    format: Option<LimitedFormat>,
    /// Whether the opponent's `limited-pool` came and matched.
    agreed: bool,
    /// The shared stack, once laid out: at once for a cube, after the layouts' round for a set's boosters.
    pub(super) stack: Option<Stack<G>>,
    /// Where each card of this player's current deck comes from (library, sideboard), once it built one.
    pub(super) sources: Option<(Vec<DeckSource>, Vec<DeckSource>)>,
    /// A grid draft under way.
    pub(super) grid: Option<GridDraft<G>>,
    /// A Winston draft under way.
    pub(super) winston: Option<WinstonDraft<G>>,
    /// A booster draft under way.
    pub(super) packs: Option<PackDraft<G>>,
}

impl<G: Group> Limited<G> {
    /// The format both agreed on, once the opponent's pool hash matched.
    pub(super) fn agreed_format(&self) -> Option<LimitedFormat> {
        self.format.filter(|_| self.agreed)
    }
}

impl<G: Group> Limited<G> {
    /// The shuffled stack and the reveals of the draft under way, if it deals by reveals.
    pub(super) fn stack_and_reveals(&mut self) -> Option<(&Stack<G>, &mut Reveals<G>)> {
        let reveals = match (self.winston.as_mut(), self.packs.as_mut()) {
            (Some(winston), _) => &mut winston.reveals,
            (None, Some(packs)) => &mut packs.reveals,
            (None, None) => return None,
        };
        Some((self.stack.as_ref().filter(|stack| stack.is_shuffled())?, reveals))
    }
}

/// The most cards one stack may hold in suite `G`: a stack is shuffled with the libraries' proof.
pub(super) fn max_stack<G: Group>() -> usize {
    MAX_POOL_LEN.min(wire::max_deck_len::<G>())
}

/// The booster kind a set's boosters are opened from: "play" boosters where the set has them, else "draft", else
/// the first kind the file names.
pub(super) fn booster_kind(set: &SetFile) -> Option<&BoosterKind> {
    let kinds = set.boosters();
    kinds.get("play").or_else(|| kinds.get("draft")).or_else(|| kinds.values().next())
}

/// Checks a limited match's pool and format before anything is sent: the set file read, if the pool is one.
pub(super) fn check_config<G: Group>(seat: Seat, config: &LimitedConfig) -> Result<Option<SetFile>, PoolError> {
    let (names, set): (Vec<String>, Option<SetFile>) = match &config.pool.source {
        PoolSource::Cube(cards) => (cards.clone(), None),
        PoolSource::Set(bytes) => {
            let set = SetFile::parse(bytes).map_err(|e| PoolError::Set(e.to_string()))?;
            booster_kind(&set).ok_or(PoolError::NoBoosters)?;
            (set.cards().iter().map(|card| card.name.clone()).collect(), Some(set))
        }
    };
    if set.is_none() && names.len() > max_stack::<G>() {
        return Err(PoolError::TooLarge(max_stack::<G>()));
    }
    if let Some(name) = names.iter().find(|name| !crate::crypto::name_fits(name)) {
        return Err(PoolError::BadName(name.clone()));
    }
    match (seat == Seat::HOST, config.format) {
        (false, Some(_)) => Err(PoolError::GuestFormat),
        (true, None) => Err(PoolError::NoFormat),
        (true, Some(format)) => {
            let needs = match (format, &set) {
                (LimitedFormat::SealedBoosters { .. } | LimitedFormat::BoosterDraft { .. }, None) => {
                    Some("an MTGJSON set file")
                }
                (
                    LimitedFormat::Sealed { .. }
                    | LimitedFormat::Uniform
                    | LimitedFormat::Grid { .. }
                    | LimitedFormat::Winston { .. }
                    | LimitedFormat::Draft { .. },
                    Some(_),
                ) => Some("a cube list"),
                _ => None,
            };
            if let Some(needs) = needs {
                return Err(PoolError::WrongFile { format, needs });
            }
            let cards = names.len();
            fits(format, cards).map_err(|needed| PoolError::TooSmall { cards, format, needed })?;
            Ok(set)
        }
        (false, None) => Ok(set),
    }
}

/// Whether `format` can deal from a pool file of `cards` cards: the cards (or boosters) it deals in all, if not.
fn fits(format: LimitedFormat, cards: usize) -> Result<(), usize> {
    match format {
        LimitedFormat::Sealed { cards: dealt } => {
            let needed = 2 * dealt as usize;
            if dealt == 0 || dealt > MAX_DEAL || needed > cards { Err(needed) } else { Ok(()) }
        }
        LimitedFormat::Uniform if cards == 0 => Err(1),
        LimitedFormat::Uniform => Ok(()),
        LimitedFormat::SealedBoosters { boosters: packs } | LimitedFormat::BoosterDraft { packs } => {
            let needed = 2 * packs as usize;
            if packs == 0 || needed > MAX_PLAN_BOOSTERS { Err(needed) } else { Ok(()) }
        }
        LimitedFormat::Draft { packs, cards: size } => {
            let needed = 2 * packs as usize * size as usize;
            if packs == 0 || packs > MAX_PACKS || size == 0 || needed > cards { Err(needed) } else { Ok(()) }
        }
        LimitedFormat::Grid { grids } => {
            let needed = 9 * grids as usize;
            if grids == 0 || grids > MAX_GRIDS || needed > cards { Err(needed) } else { Ok(()) }
        }
        // Three piles to start, and no more than the cube.
        LimitedFormat::Winston { cards: drafted } => {
            if drafted < 3 || drafted as usize > cards {
                Err(drafted.max(3) as usize)
            } else {
                Ok(())
            }
        }
    }
}

impl<G: Group> Engine<G> {
    /// Starts a limited match: the pool's hash (and the host's format) goes out right after the hello.
    pub(super) fn offer_pool(&mut self, config: LimitedConfig, set: Option<SetFile>) {
        let message = Message::LimitedPool { pool: config.pool.hash, format: config.format };
        self.limited = Some(Limited {
            pool: config.pool,
            set,
            format: config.format,
            agreed: false,
            stack: None,
            sources: None,
            grid: None,
            winston: None,
            packs: None,
        });
        self.out.send::<G>(&message);
    }

    /// The opponent's pool hash and format: the same file, a format from the host alone. Then a cube's stack is
    /// laid out at once; a set's waits for the round that draws its boosters' layouts.
    pub(super) fn receive_limited_pool(&mut self, pool: PoolHash, format: Option<LimitedFormat>) -> Result<(), Fault> {
        let peer = self.seat.opponent();
        let Some(limited) = &mut self.limited else {
            let offer = format.map_or_else(|| "limited play".to_string(), |format| format.to_string());
            return Err(Fault::new(
                AlertKind::Incompatible,
                format!("the opponent plays {offer} from pool file {pool}, this player brought a deck"),
            ));
        };
        if limited.agreed {
            return Err(Fault::new(AlertKind::Unexpected, "a second limited-pool"));
        }
        if pool != limited.pool.hash {
            return Err(Fault::new(
                AlertKind::Incompatible,
                format!(
                    "the opponent's pool file has hash {pool}, this player's {}: both need the same file",
                    limited.pool.hash
                ),
            ));
        }
        let format = match (peer == Seat::HOST, format) {
            (true, Some(format)) => format,
            (false, None) => limited.format.expect("a host's engine starts with its format (check_config)"),
            (true, None) => return Err(Fault::new(AlertKind::Malformed, "a host's limited-pool with no format")),
            (false, Some(_)) => return Err(Fault::new(AlertKind::Unexpected, "a format from the guest")),
        };
        // The same file on both sides: what the host's engine checked of it holds here, but the format it offers
        // is checked again, as any peer's word.
        let cube = match &limited.pool.source {
            PoolSource::Cube(cards) => Some(cards.clone()),
            PoolSource::Set(_) => None,
        };
        // A cube's stack: its cards, and the positions dealt to each seat; none for a set's boosters, whose stack
        // waits for the layouts.
        let laid = match (format, cube) {
            (LimitedFormat::SealedBoosters { .. } | LimitedFormat::BoosterDraft { .. }, None)
                if fits(format, 0).is_ok() =>
            {
                None
            }
            (LimitedFormat::Sealed { cards: dealt }, Some(cards)) if fits(format, cards.len()).is_ok() => {
                Some((cards, [0..dealt, dealt..2 * dealt].map(Range::collect)))
            }
            (
                LimitedFormat::Uniform
                | LimitedFormat::Grid { .. }
                | LimitedFormat::Winston { .. }
                | LimitedFormat::Draft { .. },
                Some(cards),
            ) if fits(format, cards.len()).is_ok() => Some((cards, [vec![], vec![]])),
            _ => return Err(Fault::new(AlertKind::Malformed, format!("{format} cannot be dealt from this pool file"))),
        };
        limited.format = Some(format);
        limited.agreed = true;
        match format {
            LimitedFormat::Grid { grids } => limited.grid = Some(GridDraft::new(grids)),
            LimitedFormat::Winston { cards } => limited.winston = Some(WinstonDraft::new(cards)),
            LimitedFormat::Draft { packs, cards } => {
                let pack = |p: u32| (p * cards..(p + 1) * cards).collect();
                limited.packs = Some(PackDraft::new((0..2 * packs).map(pack).collect()));
            }
            _ => {}
        }
        self.out.emit(Event::LimitedAgreed { format, pool });
        match laid {
            None => self.start_random(BOOSTER_ROUND, Seat::HOST, RandomKind::Boosters),
            Some((cards, positions)) => {
                let whole = 0..cards.len();
                self.lay_stack(format, cards, vec![whole], positions.into());
            }
        }
        Ok(())
    }

    /// A limited match's own intents: the first deck's build, a grid draft's pick, a Winston draft's choice, a booster
    /// draft's pick.
    pub(super) fn take_limited_intent(&mut self, intent: Intent) -> Result<(), IntentError> {
        if self.limited.is_none() {
            return Err(IntentError::Invalid("this is not a limited match".into()));
        }
        match intent {
            Intent::Build(deck) => self.build(deck),
            Intent::Pick(line) => self.pick(line),
            Intent::Pile(choice) => self.choose_pile(choice),
            Intent::TakeCard(n) => self.take_card(n),
            _ => Err(IntentError::Invalid("not an intent of limited play".into())),
        }
    }

    /// The draft under way, if any: its format, which says what a player picks with.
    pub fn drafting(&self) -> Option<LimitedFormat> {
        let limited = self.limited.as_ref()?;
        limited.format.filter(|_| self.is_drafting())
    }

    /// Whether a draft is under way: the table waits on the players' picks.
    pub fn is_drafting(&self) -> bool {
        let Some(limited) = &self.limited else { return false };
        limited.winston.is_some() || limited.packs.is_some() || limited.grid.as_ref().is_some_and(|g| !g.is_done())
    }

    /// Whether the opponent owes a step of dealing the pools: its pool hash, its side of the layouts' round (which
    /// `awaiting_opponent` finds among the random rounds), its shuffle or its deal.
    pub(super) fn awaiting_stack(&self) -> bool {
        let Some(limited) = &self.limited else { return false };
        match &limited.stack {
            None => !limited.agreed,
            Some(stack) => stack.owed_by_peer(self.seat),
        }
    }
}
