//! Limited play: the pool file both players hold, the shared stack they lock and shuffle, and the deal of each
//! player's pool from it (docs/PROTOCOL.md, "Limited play").
//!
//! The stack is the pool file's cards as public points (`crypto::pool_point`), locked and shuffled by the host, then
//! by the guest, each with the shuffle proof libraries use: after that nobody knows which card lies where. The first
//! `dealt` positions are the host's pool, the next `dealt` the guest's. Each player strips its layer off the other's
//! positions, with proof, and the other strips the last layer alone: it learns its cards, the opponent learns
//! nothing, and keeps every dealt card's form under the owner's layer, which binds the owner's decks to the pool.

use std::collections::HashMap;
use std::ops::Range;

use super::Engine;
use super::api::{AlertKind, Event, LimitedConfig, PoolError, PoolList};
use super::fault::Fault;
use crate::crypto::{DleqProof, Group, KeyCommitment, LockKey, ProvenShuffle, pool_point};
use crate::ids::{GameId, Seat};
use crate::wire::{self, DeckSource, LimitedFormat, MAX_DEAL, MAX_POOL_LEN, Message, PoolHash};

/// A limited match's side of the engine: kept for the whole match, since every game's deck comes from the pool.
pub(super) struct Limited<G: Group> {
    pub(super) pool: PoolList,
    /// The host's format: its own from the start, the guest's once the offer came.
    format: Option<LimitedFormat>,
    /// The shared stack, from the moment both pool files are known to match.
    pub(super) stack: Option<Stack<G>>,
    /// Where each card of this player's current deck comes from (library, sideboard), once it built one.
    pub(super) sources: Option<(Vec<DeckSource>, Vec<DeckSource>)>,
}

/// The shared stack and the deal.
pub(super) struct Stack<G: Group> {
    /// The id of the match's first game, which every pool card's point is bound to.
    pub(super) match_id: GameId,
    /// Each pool card's public point, by its place in the pool file.
    pub(super) points: Vec<G::Element>,
    /// This player's stack key.
    pub(super) key: LockKey<G>,
    /// The opponent's stack key, once its shuffle came.
    pub(super) peer_key: Option<KeyCommitment<G>>,
    /// The stack's forms as they stand.
    cards: Vec<G::Element>,
    /// Shuffle steps done: the host's, then the guest's.
    steps: u8,
    /// Each seat's dealt cards under its own layer only (host, guest): what that player's decks are relocked from.
    pub(super) dealt: [Option<Vec<G::Element>>; 2],
    /// The place in the pool file of each card dealt to this player, in the order of the deal.
    pub(super) own: Option<Vec<u32>>,
    /// How many cards each player's pool holds.
    pub(super) deal: u32,
    /// The format, which says how the pools come out of the stack.
    pub(super) format: LimitedFormat,
}

/// Checks a limited match's pool and format before anything is sent.
pub(super) fn check_config<G: Group>(seat: Seat, config: &LimitedConfig) -> Result<(), PoolError> {
    let cards = config.pool.cards.len();
    let max = MAX_POOL_LEN.min(wire::max_deck_len::<G>());
    if cards > max {
        return Err(PoolError::TooLarge(max));
    }
    if let Some(name) = config.pool.cards.iter().find(|name| !crate::crypto::name_fits(name)) {
        return Err(PoolError::BadName(name.clone()));
    }
    match (seat, config.format) {
        (Seat::Guest, Some(_)) => Err(PoolError::GuestFormat),
        (Seat::Host, None) => Err(PoolError::NoFormat),
        (Seat::Host, Some(format)) => {
            fits(format, cards).map_err(|needed| PoolError::TooSmall { cards, format, needed })
        }
        (Seat::Guest, None) => Ok(()),
    }
}

/// Whether `format` can deal from a pool of `cards` cards: the cards it deals in all, if not.
fn fits(format: LimitedFormat, cards: usize) -> Result<(), usize> {
    match format {
        LimitedFormat::Sealed { cards: dealt } => {
            let needed = 2 * dealt as usize;
            if dealt == 0 || dealt > MAX_DEAL || needed > cards { Err(needed) } else { Ok(()) }
        }
        LimitedFormat::Uniform if cards == 0 => Err(1),
        LimitedFormat::Uniform => Ok(()),
    }
}

/// The stack positions dealt to `seat`: the host's first.
fn positions(seat: Seat, deal: u32) -> Range<u32> {
    match seat {
        Seat::Host => 0..deal,
        Seat::Guest => deal..2 * deal,
    }
}

fn stack_purpose(seat: Seat, what: &str) -> String {
    format!("stack/{}/{what}", seat.id_byte())
}

impl<G: Group> Engine<G> {
    /// Starts a limited match: the pool's hash (and the host's format) goes out right after the hello.
    pub(super) fn offer_pool(&mut self, config: LimitedConfig) {
        let message = Message::LimitedPool { pool: config.pool.hash, format: config.format };
        self.limited = Some(Limited { pool: config.pool, format: config.format, stack: None, sources: None });
        self.out.send::<G>(&message);
    }

    /// The opponent's pool hash and format: the same file, a format from the host alone; then the stack is
    /// laid out and the host shuffles it first.
    pub(super) fn receive_limited_pool(&mut self, pool: PoolHash, format: Option<LimitedFormat>) -> Result<(), Fault> {
        let peer = self.seat.opponent();
        let Some(limited) = &mut self.limited else {
            let offer = format.map_or_else(|| "limited play".to_string(), |format| format.to_string());
            return Err(Fault::new(
                AlertKind::Incompatible,
                format!("the opponent plays {offer} from pool file {pool}, this player brought a deck"),
            ));
        };
        if limited.stack.is_some() {
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
        let format = match (peer, format) {
            (Seat::Host, Some(format)) => format,
            (Seat::Guest, None) => limited.format.expect("a host's engine starts with its format (check_config)"),
            (Seat::Host, None) => return Err(Fault::new(AlertKind::Malformed, "a host's limited-pool with no format")),
            (Seat::Guest, Some(_)) => return Err(Fault::new(AlertKind::Unexpected, "a format from the guest")),
        };
        if let Err(needed) = fits(format, limited.pool.cards.len()) {
            return Err(Fault::new(
                AlertKind::Malformed,
                format!("{format} deals {needed} cards from a pool of {}", limited.pool.cards.len()),
            ));
        }
        limited.format = Some(format);
        // The hello came first (`authenticate`), so the game has its id.
        let match_id = self.game.game_id();
        let points: Vec<G::Element> =
            (0..limited.pool.cards.len() as u32).map(|index| pool_point::<G>(&match_id, index)).collect();
        limited.stack = Some(Stack {
            match_id,
            cards: points.clone(),
            points,
            key: LockKey::generate(&mut self.rng),
            peer_key: None,
            steps: 0,
            dealt: [None, None],
            own: None,
            deal: format.dealt(limited.pool.cards.len()),
            format,
        });
        self.out.emit(Event::LimitedAgreed { format, pool });
        if !format.deals_from_one_stack() {
            self.send_own_list();
        } else if self.seat == Seat::Host {
            self.send_stack_shuffle();
        }
        Ok(())
    }

    /// Uniform play: this player's own lock and shuffle of the whole list, which is its pool: the opponent holds an
    /// unlinkable permutation of the list, so the positions a deck names say nothing of its cards.
    fn send_own_list(&mut self) {
        let me = self.seat;
        let context = self.game.context(self.out.next_seq(), stack_purpose(me, "list"));
        let Some(stack) = self.limited.as_mut().and_then(|limited| limited.stack.as_mut()) else { return };
        let (shuffle, shuffled) = stack.key.lock_and_shuffle(&stack.points, &context, &mut self.rng);
        let key = stack.key.commitment().clone();
        self.out.send::<G>(&Message::StackShuffle { key, shuffle });
        self.take_own_pool(shuffled.into_inner().cards);
    }

    /// This player's pool, as forms under its own layer alone: it strips its layer and reads each card by its point.
    fn take_own_pool(&mut self, forms: Vec<G::Element>) {
        let me = self.seat;
        let limited = self.limited.as_mut().expect("a pool is a limited match's");
        let stack = limited.stack.as_mut().expect("a pool is dealt from the stack");
        let by_point: HashMap<&G::Element, u32> = stack.points.iter().zip(0..).collect();
        // Every layer but this player's was proven, and its own it made: each form is one pool point under its key.
        let own: Vec<u32> = stack
            .key
            .strip(&forms)
            .iter()
            .map(|point| *by_point.get(point).expect("a proven form of the stack is a pool card"))
            .collect();
        stack.dealt[super::state::index(me)] = Some(forms);
        let cards = own.iter().map(|&index| limited.pool.cards[index as usize].clone()).collect();
        stack.own = Some(own);
        self.out.emit(Event::Pool { cards });
    }

    /// This player's lock and shuffle of the stack; the guest's is the last, after which the deal goes out.
    fn send_stack_shuffle(&mut self) {
        let context = self.game.context(self.out.next_seq(), stack_purpose(self.seat, "shuffle"));
        let Some(stack) = self.limited.as_mut().and_then(|limited| limited.stack.as_mut()) else { return };
        let (shuffle, shuffled) = stack.key.lock_and_shuffle(&stack.cards, &context, &mut self.rng);
        stack.cards = shuffled.into_inner().cards;
        stack.steps += 1;
        let key = stack.key.commitment().clone();
        let last = stack.steps == 2;
        self.out.send::<G>(&Message::StackShuffle { key, shuffle });
        if last {
            self.send_stack_deal();
        }
    }

    /// The opponent's shuffle of the stack, in its turn: checked against the stack as it stood.
    pub(super) fn receive_stack_shuffle(
        &mut self,
        seq: u64,
        key: KeyCommitment<G>,
        shuffle: ProvenShuffle<G>,
    ) -> Result<(), Fault> {
        let peer = self.seat.opponent();
        if self.stack().is_some_and(|stack| !stack.format.deals_from_one_stack()) {
            return self.receive_peer_list(seq, key, shuffle);
        }
        let context = self.game.context(seq, stack_purpose(peer, "shuffle"));
        let turn = if peer == Seat::Host { 0 } else { 1 };
        let Some(stack) = self.limited.as_mut().and_then(|l| l.stack.as_mut()).filter(|stack| stack.steps == turn)
        else {
            return Err(Fault::new(AlertKind::Unexpected, "a stack-shuffle out of turn"));
        };
        if shuffle.cards.len() != stack.cards.len() {
            return Err(Fault::new(AlertKind::Malformed, "a stack-shuffle of another number of cards"));
        }
        let shuffled = key
            .verify_shuffle(&stack.cards, shuffle, &context, &mut self.rng)
            .map_err(|e| Fault::new(AlertKind::BadProof, format!("the stack's shuffle: {e}")))?;
        stack.cards = shuffled.into_inner().cards;
        stack.peer_key = Some(key);
        stack.steps += 1;
        match self.seat {
            Seat::Guest => self.send_stack_shuffle(),
            Seat::Host => self.send_stack_deal(),
        }
        Ok(())
    }

    /// Uniform play: the opponent's lock and shuffle of the whole list, its pool, checked against the list's points.
    fn receive_peer_list(&mut self, seq: u64, key: KeyCommitment<G>, shuffle: ProvenShuffle<G>) -> Result<(), Fault> {
        let peer = self.seat.opponent();
        let context = self.game.context(seq, stack_purpose(peer, "list"));
        let Some(stack) = self
            .limited
            .as_mut()
            .and_then(|limited| limited.stack.as_mut())
            .filter(|stack| stack.dealt[super::state::index(peer)].is_none())
        else {
            return Err(Fault::new(AlertKind::Unexpected, "a second list shuffle"));
        };
        if shuffle.cards.len() != stack.points.len() {
            return Err(Fault::new(AlertKind::Malformed, "a list shuffle of another number of cards"));
        }
        let shuffled = key
            .verify_shuffle(&stack.points, shuffle, &context, &mut self.rng)
            .map_err(|e| Fault::new(AlertKind::BadProof, format!("the opponent's shuffle of the list: {e}")))?;
        stack.dealt[super::state::index(peer)] = Some(shuffled.into_inner().cards);
        stack.peer_key = Some(key);
        Ok(())
    }

    pub(super) fn stack(&self) -> Option<&Stack<G>> {
        self.limited.as_ref()?.stack.as_ref()
    }

    /// Strips this player's layer off the positions dealt to the opponent, with proof.
    fn send_stack_deal(&mut self) {
        let peer = self.seat.opponent();
        let context = self.game.context(self.out.next_seq(), stack_purpose(self.seat, "deal"));
        let Some(stack) = self.limited.as_mut().and_then(|limited| limited.stack.as_mut()) else { return };
        let range = positions(peer, stack.deal);
        let locked = &stack.cards[range.start as usize..range.end as usize];
        let (stripped, proof) = stack.key.strip_with_proof(locked, &context, &mut self.rng);
        let forms = stripped.into_inner().cards;
        stack.dealt[super::state::index(peer)] = Some(forms.clone());
        self.out.send::<G>(&Message::StackDeal { positions: range.collect(), forms, proof });
    }

    /// The opponent's strips of this player's positions: checked, then this player strips its own layer and
    /// reads its cards by their points.
    pub(super) fn receive_stack_deal(
        &mut self,
        seq: u64,
        positions_sent: Vec<u32>,
        forms: Vec<G::Element>,
        proof: DleqProof<G>,
    ) -> Result<(), Fault> {
        let me = self.seat;
        let context = self.game.context(seq, stack_purpose(me.opponent(), "deal"));
        let Some(stack) = self
            .limited
            .as_mut()
            .and_then(|limited| limited.stack.as_mut())
            .filter(|stack| stack.steps == 2 && stack.own.is_none())
        else {
            return Err(Fault::new(AlertKind::Unexpected, "a stack-deal out of turn"));
        };
        let range = positions(me, stack.deal);
        if positions_sent.iter().copied().ne(range.clone()) || forms.len() != positions_sent.len() {
            return Err(Fault::new(AlertKind::Unexpected, "a stack-deal of other positions than this player's"));
        }
        let peer_key = stack.peer_key.as_ref().expect("the opponent's key came with its shuffle, before the deal");
        let locked = &stack.cards[range.start as usize..range.end as usize];
        let stripped = peer_key
            .verify_strip(locked, forms, &proof, &context)
            .map_err(|e| Fault::new(AlertKind::BadProof, format!("the deal of this player's pool: {e}")))?;
        self.take_own_pool(stripped.into_inner().cards);
        Ok(())
    }

    /// Whether the opponent owes a step of the stack: its shuffle or its deal.
    pub(super) fn awaiting_stack(&self) -> bool {
        let Some(limited) = &self.limited else { return false };
        match &limited.stack {
            None => true,
            Some(stack) if !stack.format.deals_from_one_stack() => {
                stack.dealt[super::state::index(self.seat.opponent())].is_none()
            }
            Some(stack) => {
                let their_shuffle = if self.seat == Seat::Host { 1 } else { 0 };
                stack.steps == their_shuffle || (stack.steps == 2 && stack.own.is_none())
            }
        }
    }

    /// The most bytes a stack message of the opponent could take now, or `None` if none is awaited.
    pub(super) fn stack_bound(&self, kind: wire::MessageKind, element: usize, scalar: usize) -> Option<usize> {
        let stack = self.limited.as_ref()?.stack.as_ref()?;
        let their_shuffle = if self.seat == Seat::Host { 1 } else { 0 };
        let shuffle_bound = |cards: usize| cards.max(1) * (10 * (element + 64) + 6 * scalar);
        if !stack.format.deals_from_one_stack() {
            let owed = stack.dealt[super::state::index(self.seat.opponent())].is_none();
            return (kind == wire::MessageKind::StackShuffle && owed).then(|| shuffle_bound(stack.points.len()));
        }
        match kind {
            wire::MessageKind::StackShuffle if stack.steps == their_shuffle => Some(shuffle_bound(stack.cards.len())),
            wire::MessageKind::StackDeal if stack.steps == 2 && stack.own.is_none() => {
                Some(stack.deal as usize * (element + 8) + 4 * element)
            }
            _ => None,
        }
    }
}
