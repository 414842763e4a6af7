//! The shared stack of a limited match and the deal of each player's pool from it.
//!
//! The stack is the pool's cards as public points (`crypto::pool_point`, one per stack position, so two copies of a
//! card are two unrelated points), in segments: a cube's stack is one, a set's one per player and booster sheet. The host
//! locks and shuffles every segment within itself, then the guest, each with the shuffle proof libraries use: after
//! that nobody knows which card lies where. Each seat is dealt fixed positions (a cube's first `cards` to the host,
//! the next to the guest; a set's by the boosters' plan). Each player strips its layer off the other's positions,
//! with proof, and the other strips the last layer alone: it learns its cards, the opponent learns nothing and keeps
//! every dealt card's form under the owner's layer, which binds the owner's decks to the pool (`pool_deck.rs`).
//!
//! Uniform play deals nothing: each player locks and shuffles the whole list under its own key alone, which is its
//! pool, so the positions its decks name say nothing of the cards.

use std::collections::HashMap;
use std::ops::Range;

use rand_chacha::ChaCha20Rng;

use super::Engine;
use super::api::{AlertKind, Event};
use super::fault::Fault;
use crate::crypto::{DleqProof, Group, KeyCommitment, LockKey, ProofContext, ProvenShuffle, pool_point};
use crate::ids::{GameId, Seat};
use crate::seats::SeatMap;
use crate::wire::{self, LimitedFormat, Message};

/// The shared stack and the deal.
#[cfg_attr(fuzzing, derive(Clone))]
pub(super) struct Stack<G: Group> {
    /// The id of the match's first game, which every pool card's point is bound to.
    pub(super) match_id: GameId,
    /// Each stack position's public point.
    pub(super) points: Vec<G::Element>,
    /// The card at each stack position before the shuffles: public, as the pool file and the plan are.
    pub(super) names: Vec<String>,
    /// The segments each shuffle permutes within.
    segments: Vec<Range<usize>>,
    /// The positions dealt to each seat (host, guest), in the order of the deal.
    positions: SeatMap<Vec<u32>>,
    /// This player's stack key.
    pub(super) key: LockKey<G>,
    /// The opponent's stack key, once its shuffle came.
    pub(super) peer_key: Option<KeyCommitment<G>>,
    /// The stack's forms as they stand.
    cards: Vec<G::Element>,
    /// Shuffle steps done: the host's, then the guest's.
    steps: u8,
    /// Each seat's pool under its own layer only (host, guest): what that player's decks are relocked from.
    pub(super) dealt: SeatMap<Option<Vec<G::Element>>>,
    /// The stack position each card of this player's pool started at, in the order of its pool.
    pub(super) own: Option<Vec<u32>>,
    /// After a draft: this player's pool key, and the opponent's (`pool_shuffle.rs`); decks are relocked from these.
    pub(super) pool_key: Option<LockKey<G>>,
    pub(super) peer_pool_key: Option<KeyCommitment<G>>,
    /// After a draft: the opponent's drafted forms, until its pool shuffle of them comes.
    pub(super) peer_drafted: Option<Vec<G::Element>>,
    /// The format, which says how the pools come out of the stack.
    pub(super) format: LimitedFormat,
}

impl<G: Group> Stack<G> {
    /// How many cards `seat`'s pool holds.
    pub(super) fn pool_len(&self, seat: Seat) -> usize {
        if self.format.is_draft() {
            self.dealt[seat].as_ref().map_or(0, Vec::len)
        } else if self.format.deals_from_one_stack() {
            self.positions[seat].len()
        } else {
            self.points.len()
        }
    }

    /// Whether the opponent of `seat` owes its shuffle or its deal.
    pub(super) fn owed_by_peer(&self, seat: Seat) -> bool {
        if !self.format.deals_from_one_stack() {
            return self.dealt[seat.opponent()].is_none();
        }
        let their_shuffle = if seat == Seat::HOST { 1 } else { 0 };
        // A draft's reveals and picks after the shuffles are the draft's to tell (`grid.rs`); then its pool shuffle.
        self.steps == their_shuffle
            || (self.steps == 2 && self.own.is_none() && !self.format.is_draft())
            || self.peer_drafted.is_some()
    }

    /// The most bytes the opponent's stack message of `kind` could take now, or `None` if none is awaited.
    pub(super) fn bound(&self, seat: Seat, kind: wire::MessageKind, element: usize, scalar: usize) -> Option<usize> {
        let shuffle = (self.points.len().max(1) + self.segments.len()) * (10 * (element + 64) + 6 * scalar);
        let their_shuffle = if seat == Seat::HOST { 1 } else { 0 };
        let owed_list = !self.format.deals_from_one_stack() && self.dealt[seat.opponent()].is_none();
        match kind {
            wire::MessageKind::StackShuffle if owed_list || self.steps == their_shuffle => Some(shuffle),
            wire::MessageKind::StackDeal if self.steps == 2 && self.own.is_none() && !self.format.is_draft() => {
                Some(self.positions[seat].len() * (element + 8) + 4 * element)
            }
            wire::MessageKind::PoolShuffle => self.peer_drafted.as_ref().map(|drafted| {
                (drafted.len().max(1) + 1) * (10 * (element + 64) + 6 * scalar) + drafted.len() * (element + 8)
            }),
            _ => None,
        }
    }

    /// Whether both players' shuffles are in.
    pub(super) fn is_shuffled(&self) -> bool {
        self.steps == 2
    }

    /// The forms at the stack positions `range`.
    pub(super) fn cards_at(&self, range: Range<usize>) -> &[G::Element] {
        &self.cards[range]
    }

    /// The forms at `seat`'s positions.
    fn at_positions(&self, seat: Seat) -> Vec<G::Element> {
        self.forms_at(&self.positions[seat])
    }

    /// The forms at the stack positions `positions`, in their order.
    pub(super) fn forms_at(&self, positions: &[u32]) -> Vec<G::Element> {
        positions.iter().map(|&p| self.cards[p as usize].clone()).collect()
    }

    /// The point index (place in the pool file) of each of `forms`, which are under this player's layer alone: it
    /// strips its layer and finds each point. Every other layer came off under proof, from forms the shuffles proved,
    /// so each is a stack point.
    pub(super) fn read(&self, forms: &[G::Element]) -> Vec<u32> {
        self.read_under(&self.key, forms)
    }

    /// As `read`, for forms under `key` alone.
    pub(super) fn read_under(&self, key: &LockKey<G>, forms: &[G::Element]) -> Vec<u32> {
        let by_point: HashMap<&G::Element, u32> = self.points.iter().zip(0..).collect();
        let points = key.strip(forms);
        points.iter().map(|point| *by_point.get(point).expect("a proven form of the stack is a stack point")).collect()
    }
}

fn stack_purpose(seat: Seat, what: &str) -> String {
    format!("stack/{}/{what}", seat.id_byte())
}

/// Locks `cards` with `key` and shuffles each segment within itself: one proof per segment, each for the segment's
/// own purpose.
fn shuffle_segments<G: Group>(
    key: &LockKey<G>,
    cards: &[G::Element],
    segments: &[Range<usize>],
    context: impl Fn(usize) -> ProofContext,
    rng: &mut ChaCha20Rng,
) -> (Vec<ProvenShuffle<G>>, Vec<G::Element>) {
    let mut proofs = Vec::with_capacity(segments.len());
    let mut shuffled = Vec::with_capacity(cards.len());
    for (i, segment) in segments.iter().enumerate() {
        let (proof, outputs) = key.lock_and_shuffle(&cards[segment.clone()], &context(i), rng);
        shuffled.extend(outputs.into_inner().cards);
        proofs.push(proof);
    }
    (proofs, shuffled)
}

/// Checks the opponent's shuffle of every segment of `cards` against its key.
fn verify_segments<G: Group>(
    key: &KeyCommitment<G>,
    cards: &[G::Element],
    segments: &[Range<usize>],
    shuffles: Vec<ProvenShuffle<G>>,
    context: impl Fn(usize) -> ProofContext,
    rng: &mut ChaCha20Rng,
) -> Result<Vec<G::Element>, Fault> {
    if shuffles.len() != segments.len()
        || shuffles.iter().zip(segments).any(|(shuffle, segment)| shuffle.cards.len() != segment.len())
    {
        return Err(Fault::new(AlertKind::Malformed, "a stack shuffle of other segments than the stack's"));
    }
    let mut shuffled = Vec::with_capacity(cards.len());
    for (i, (shuffle, segment)) in shuffles.into_iter().zip(segments).enumerate() {
        let outputs = key
            .verify_shuffle(&cards[segment.clone()], shuffle, &context(i), rng)
            .map_err(|e| Fault::new(AlertKind::BadProof, format!("the stack's shuffle, segment {i}: {e}")))?;
        shuffled.extend(outputs.into_inner().cards);
    }
    Ok(shuffled)
}

impl<G: Group> Engine<G> {
    /// Lays out the stack of `names` (each position its own public point) in `segments`, `positions` dealt to each
    /// seat; then the host shuffles first, or, in uniform play, each player its own copy of the list.
    pub(super) fn lay_stack(
        &mut self,
        format: LimitedFormat,
        names: Vec<String>,
        segments: Vec<Range<usize>>,
        positions: SeatMap<Vec<u32>>,
    ) {
        // The hello came first (`authenticate`), so the game has its id.
        let match_id = self.game.game_id();
        let points: Vec<G::Element> = (0..names.len() as u32).map(|i| pool_point::<G>(&match_id, i)).collect();
        let stack = Stack {
            match_id,
            cards: points.clone(),
            points,
            names,
            segments,
            positions,
            key: LockKey::generate(&mut self.rng),
            peer_key: None,
            steps: 0,
            dealt: SeatMap::default(),
            own: None,
            pool_key: None,
            peer_pool_key: None,
            peer_drafted: None,
            format,
        };
        let Some(limited) = self.limited.as_mut() else { return };
        limited.stack = Some(stack);
        if !format.deals_from_one_stack() {
            self.send_own_list();
        } else if self.seat == Seat::HOST {
            self.send_stack_shuffle();
        }
    }

    pub(super) fn stack(&self) -> Option<&Stack<G>> {
        self.limited.as_ref()?.stack.as_ref()
    }

    /// Uniform play: this player's own lock and shuffle of the whole list, which is its pool.
    fn send_own_list(&mut self) {
        let me = self.seat;
        let seq = self.out.next_seq();
        let context = |i: usize| self.game.context(seq, stack_purpose(me, &format!("list/{i}")));
        let Some(stack) = self.limited.as_mut().and_then(|limited| limited.stack.as_mut()) else { return };
        let (shuffles, forms) = shuffle_segments(&stack.key, &stack.points, &stack.segments, context, &mut self.rng);
        let key = stack.key.commitment().clone();
        self.out.send::<G>(&Message::StackShuffle { key, shuffles });
        self.take_own_pool(forms);
    }

    /// This player's pool, as forms under its own layer alone (dealt, or a drafted pool under its pool key): it
    /// reads each card, and is told.
    pub(super) fn take_own_pool(&mut self, forms: Vec<G::Element>) {
        let Some(stack) = self.limited.as_mut().and_then(|limited| limited.stack.as_mut()) else { return };
        let own = stack.read_under(stack.pool_key.as_ref().unwrap_or(&stack.key), &forms);
        stack.dealt[self.seat] = Some(forms);
        let cards = own.iter().map(|&position| stack.names[position as usize].clone()).collect();
        stack.own = Some(own);
        self.out.emit(Event::Pool { cards });
    }

    /// This player's lock and shuffle of the stack; the guest's is the last, after which the deal goes out.
    fn send_stack_shuffle(&mut self) {
        let me = self.seat;
        let seq = self.out.next_seq();
        let context = |i: usize| self.game.context(seq, stack_purpose(me, &format!("shuffle/{i}")));
        let Some(stack) = self.limited.as_mut().and_then(|limited| limited.stack.as_mut()) else { return };
        let (shuffles, forms) = shuffle_segments(&stack.key, &stack.cards, &stack.segments, context, &mut self.rng);
        stack.cards = forms;
        stack.steps += 1;
        let key = stack.key.commitment().clone();
        let last = stack.steps == 2;
        let draft = stack.format.is_draft();
        self.out.send::<G>(&Message::StackShuffle { key, shuffles });
        if last {
            self.after_shuffles(draft);
        }
    }

    /// The opponent's shuffle of the stack, in its turn (or, in uniform play, of its own list): checked against the
    /// stack as it stood.
    pub(super) fn receive_stack_shuffle(
        &mut self,
        seq: u64,
        key: KeyCommitment<G>,
        shuffles: Vec<ProvenShuffle<G>>,
    ) -> Result<(), Fault> {
        let (me, peer) = (self.seat, self.seat.opponent());
        let Some(stack) = self.limited.as_mut().and_then(|limited| limited.stack.as_mut()) else {
            return Err(Fault::new(AlertKind::Unexpected, "a stack-shuffle before the stack"));
        };
        let list = !stack.format.deals_from_one_stack();
        let turn = if peer == Seat::HOST { 0 } else { 1 };
        if (list && stack.dealt[peer].is_some()) || (!list && stack.steps != turn) {
            return Err(Fault::new(AlertKind::Unexpected, "a stack-shuffle out of turn"));
        }
        let what = if list { "list" } else { "shuffle" };
        let context = |i: usize| self.game.context(seq, stack_purpose(peer, &format!("{what}/{i}")));
        let inputs = if list { &stack.points } else { &stack.cards };
        let forms = verify_segments(&key, inputs, &stack.segments, shuffles, context, &mut self.rng)?;
        stack.peer_key = Some(key);
        if list {
            stack.dealt[peer] = Some(forms);
            return Ok(());
        }
        stack.cards = forms;
        stack.steps += 1;
        let draft = stack.format.is_draft();
        if me == Seat::HOST {
            self.after_shuffles(draft);
        } else {
            self.send_stack_shuffle();
        }
        Ok(())
    }

    /// Both shuffles are in: the deal of the other's positions, or a draft's first grid or first reveals.
    fn after_shuffles(&mut self, draft: bool) {
        match self.limited.as_ref() {
            Some(limited) if draft && limited.grid.is_some() => self.reveal_grid(),
            Some(_) if draft => self.advance_draft(),
            _ => self.send_stack_deal(),
        }
    }

    /// Strips this player's layer off the positions dealt to the opponent, with proof.
    fn send_stack_deal(&mut self) {
        let peer = self.seat.opponent();
        let context = self.game.context(self.out.next_seq(), stack_purpose(self.seat, "deal"));
        let Some(stack) = self.limited.as_mut().and_then(|limited| limited.stack.as_mut()) else { return };
        let (stripped, proof) = stack.key.strip_with_proof(&stack.at_positions(peer), &context, &mut self.rng);
        let forms = stripped.into_inner().cards;
        stack.dealt[peer] = Some(forms.clone());
        let positions = stack.positions[peer].clone();
        self.out.send::<G>(&Message::StackDeal { positions, forms, proof });
    }

    /// The opponent's strips of this player's positions: checked, then this player strips its own layer and
    /// reads its cards by their points.
    pub(super) fn receive_stack_deal(
        &mut self,
        seq: u64,
        positions: Vec<u32>,
        forms: Vec<G::Element>,
        proof: DleqProof<G>,
    ) -> Result<(), Fault> {
        let me = self.seat;
        let context = self.game.context(seq, stack_purpose(me.opponent(), "deal"));
        let Some(stack) = self.stack().filter(|stack| stack.steps == 2 && stack.own.is_none()) else {
            return Err(Fault::new(AlertKind::Unexpected, "a stack-deal out of turn"));
        };
        if positions != stack.positions[me] || forms.len() != positions.len() {
            return Err(Fault::new(AlertKind::Unexpected, "a stack-deal of other positions than this player's"));
        }
        let peer_key = stack
            .peer_key
            .as_ref()
            .ok_or_else(|| Fault::new(AlertKind::Unexpected, "a stack-deal before the shuffles"))?;
        let stripped = peer_key
            .verify_strip(&stack.at_positions(me), forms, &proof, &context)
            .map_err(|e| Fault::new(AlertKind::BadProof, format!("the deal of this player's pool: {e}")))?;
        self.take_own_pool(stripped.into_inner().cards);
        Ok(())
    }

    /// The most bytes a stack message of the opponent could take now, or `None` if none is awaited.
    pub(super) fn stack_bound(&self, kind: wire::MessageKind, element: usize, scalar: usize) -> Option<usize> {
        self.stack()?.bound(self.seat, kind, element, scalar)
    }
}
