//! Reveals to one player, as Winston and booster drafts deal their cards (docs/PROTOCOL.md, "stack-reveal").
//!
//! Both engines run the same draft, so both know when a player comes to stack positions it has not seen: those
//! are owed to it, and the other player's engine strips its layer off them at once, with proof, for it alone. What
//! each seat was revealed is kept as the form under its layer alone, which both engines hold (the sender made it):
//! a card drafted joins its taker's pool in that form, and decks are built and checked as in sealed.

use std::collections::{BTreeMap, VecDeque};

use super::Engine;
use super::api::AlertKind;
use super::fault::Fault;
use crate::crypto::{DleqProof, Group};
use crate::ids::Seat;
use crate::seats::SeatMap;
use crate::wire::Message;

/// What each seat was revealed, and is owed.
#[cfg_attr(fuzzing, derive(Clone))]
pub(super) struct Reveals<G: Group> {
    /// Each seat's positions revealed to it so far (host, guest): the form under its layer alone.
    revealed: SeatMap<BTreeMap<u32, G::Element>>,
    /// Positions each seat is owed a reveal of, in the order owed (host, guest).
    owed: SeatMap<VecDeque<Vec<u32>>>,
}

impl<G: Group> Reveals<G> {
    pub(super) fn new() -> Self {
        Reveals { revealed: SeatMap::default(), owed: SeatMap::default() }
    }

    /// `seat` comes to `positions`: those it was neither revealed nor owed are owed to it.
    pub(super) fn owe(&mut self, seat: Seat, positions: &[u32]) {
        let unseen: Vec<u32> = positions.iter().copied().filter(|p| !self.is_seen(seat, *p)).collect();
        if !unseen.is_empty() {
            self.owed[seat].push_back(unseen);
        }
    }

    /// Whether `seat` was revealed `position`, or is owed it.
    pub(super) fn is_seen(&self, seat: Seat, position: u32) -> bool {
        self.revealed[seat].contains_key(&position) || self.owed[seat].iter().flatten().any(|p| *p == position)
    }

    /// Whether `seat` can read every one of `positions`.
    pub(super) fn reads(&self, seat: Seat, positions: &[u32]) -> bool {
        positions.iter().all(|p| self.revealed[seat].contains_key(p))
    }

    /// The forms of `positions` under `seat`'s layer alone, each revealed to it.
    pub(super) fn forms(&self, seat: Seat, positions: &[u32]) -> Vec<G::Element> {
        positions.iter().map(|p| self.revealed[seat][p].clone()).collect()
    }

    /// Whether `seat` is owed a reveal.
    pub(super) fn is_owed(&self, seat: Seat) -> bool {
        !self.owed[seat].is_empty()
    }

    /// Whether nothing is owed to either seat.
    pub(super) fn is_quiet(&self) -> bool {
        self.owed.values().all(VecDeque::is_empty)
    }

    /// How many positions `seat` is owed first.
    pub(super) fn first_owed(&self, seat: Seat) -> Option<usize> {
        self.owed[seat].front().map(Vec::len)
    }
}

fn reveal_purpose(seat: Seat, positions: &[u32]) -> String {
    format!("stack/{}/reveal/{}", seat.id_byte(), positions.first().copied().unwrap_or_default())
}

impl<G: Group> Engine<G> {
    fn reveals(&self) -> Option<&Reveals<G>> {
        let limited = self.limited.as_ref()?;
        let reveals = limited.winston.as_ref().map(|w| &w.reveals).or(limited.packs.as_ref().map(|p| &p.reveals));
        reveals.filter(|_| limited.stack.as_ref().is_some_and(|stack| stack.is_shuffled()))
    }

    /// Sends the opponent every reveal it is owed, in order: its layer stripped off with proof.
    pub(super) fn send_owed_reveals(&mut self) {
        let (me, peer) = (self.seat, self.seat.opponent());
        loop {
            let seq = self.out.next_seq();
            let Some(limited) = self.limited.as_mut() else { return };
            let Some((stack, reveals)) = limited.stack_and_reveals() else { return };
            let Some(positions) = reveals.owed[peer].front().cloned() else { return };
            let context = self.game.context(seq, reveal_purpose(me, &positions));
            let (stripped, proof) = stack.key.strip_with_proof(&stack.forms_at(&positions), &context, &mut self.rng);
            let forms = stripped.into_inner().cards;
            reveals.owed[peer].pop_front();
            reveals.revealed[peer].extend(positions.iter().copied().zip(forms.iter().cloned()));
            self.out.send::<G>(&Message::StackReveal { positions, forms, proof });
        }
    }

    /// The opponent's reveal of what this player is owed first: checked against the stack and its stack key.
    pub(super) fn receive_stack_reveal(
        &mut self,
        seq: u64,
        positions: Vec<u32>,
        forms: Vec<G::Element>,
        proof: DleqProof<G>,
    ) -> Result<(), Fault> {
        let me = self.seat;
        let context = self.game.context(seq, reveal_purpose(me.opponent(), &positions));
        let Some((stack, reveals)) = self.limited.as_mut().and_then(|limited| limited.stack_and_reveals()) else {
            return Err(Fault::new(AlertKind::Unexpected, "a stack-reveal outside a draft that deals by reveals"));
        };
        if reveals.owed[me].front() != Some(&positions) || forms.len() != positions.len() {
            return Err(Fault::new(AlertKind::Unexpected, "a stack-reveal of other cards than owed"));
        }
        let key = stack
            .peer_key
            .as_ref()
            .ok_or_else(|| Fault::new(AlertKind::Unexpected, "a stack-reveal before the shuffles"))?;
        let stripped = key
            .verify_strip(&stack.forms_at(&positions), forms, &proof, &context)
            .map_err(|e| Fault::new(AlertKind::BadProof, format!("a reveal of stack positions: {e}")))?;
        reveals.owed[me].pop_front();
        reveals.revealed[me].extend(positions.into_iter().zip(stripped.into_inner().cards));
        self.advance_draft();
        Ok(())
    }

    /// After any change to a Winston or booster draft: what it sends, tells and shows.
    pub(super) fn advance_draft(&mut self) {
        match self.limited.as_ref() {
            Some(limited) if limited.winston.is_some() => self.advance_winston(),
            Some(limited) if limited.packs.is_some() => self.advance_packs(),
            _ => {}
        }
    }

    /// The names of `positions`, each revealed to this player.
    pub(super) fn revealed_names(&self, positions: &[u32]) -> Vec<String> {
        let (Some(stack), Some(reveals)) = (self.stack(), self.reveals()) else { return Vec::new() };
        let points = stack.read(&reveals.forms(self.seat, positions));
        points.into_iter().map(|point| stack.names[point as usize].clone()).collect()
    }

    /// The draft is over: each seat's pool is its picks, in the forms revealed to it, each shuffled by its owner
    /// (`pool_shuffle.rs`).
    pub(super) fn take_drafted_pools(&mut self, reveals: &Reveals<G>, picked: &SeatMap<Vec<u32>>) {
        let mine = reveals.forms(self.seat, &picked[self.seat]);
        self.shuffle_drafted_pools(mine, reveals.forms(self.seat.opponent(), &picked[self.seat.opponent()]));
    }

    /// The most positions the opponent may reveal now, if it owes any.
    pub(super) fn stack_reveal_awaited(&self) -> Option<usize> {
        self.reveals()?.first_owed(self.seat)
    }
}
