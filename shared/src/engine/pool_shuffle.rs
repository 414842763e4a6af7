//! A drafted pool shuffled by its owner before any deck is built from it (docs/PROTOCOL.md, "pool-shuffle").
//!
//! In a draft the other player saw many of a player's cards taken, so the pool positions a deck names (library or
//! sideboard) would tell it which of those cards were kept in the library. So once the draft is over each player
//! locks its drafted forms with a new pool key and shuffles them, with the libraries' shuffle proof, then strips its
//! stack layer off the outputs with proof: its pool is those forms, under the pool key alone, in an order only it
//! knows. Decks are relocked from the pool key as a sealed deck is from the stack key, so every card stays bound to
//! the pool from the draft on.

use super::Engine;
use super::api::AlertKind;
use super::fault::Fault;
use crate::crypto::{DleqProof, Group, KeyCommitment, LockKey, ProvenShuffle};
use crate::ids::Seat;
use crate::wire::Message;

fn purpose(seat: Seat, what: &str) -> String {
    format!("pool-shuffle/{}/{what}", seat.id_byte())
}

impl<G: Group> Engine<G> {
    /// The draft is over: this player's pool (`mine`, under its stack layer alone) goes out shuffled and becomes
    /// its pool; the opponent's (`theirs`) waits for the opponent's own shuffle.
    pub(super) fn shuffle_drafted_pools(&mut self, mine: Vec<G::Element>, theirs: Vec<G::Element>) {
        let me = self.seat;
        let seq = self.out.next_seq();
        let (shuffling, stripping) =
            (self.game.context(seq, purpose(me, "shuffle")), self.game.context(seq, purpose(me, "strip")));
        let Some(stack) = self.limited.as_mut().and_then(|limited| limited.stack.as_mut()) else { return };
        stack.peer_drafted = Some(theirs);
        let key = LockKey::<G>::generate(&mut self.rng);
        let (shuffle, outputs) = key.lock_and_shuffle(&mine, &shuffling, &mut self.rng);
        let (stripped, proof) = stack.key.strip_with_proof(&outputs.into_inner().cards, &stripping, &mut self.rng);
        let forms = stripped.into_inner().cards;
        let message = Message::PoolShuffle { key: key.commitment().clone(), shuffle, forms: forms.clone(), proof };
        stack.pool_key = Some(key);
        self.out.send::<G>(&message);
        self.take_own_pool(forms);
    }

    /// The opponent's shuffle of its drafted pool: checked against the forms it drafted and its stack key.
    pub(super) fn receive_pool_shuffle(
        &mut self,
        seq: u64,
        key: KeyCommitment<G>,
        shuffle: ProvenShuffle<G>,
        forms: Vec<G::Element>,
        proof: DleqProof<G>,
    ) -> Result<(), Fault> {
        let peer = self.seat.opponent();
        let (shuffling, stripping) =
            (self.game.context(seq, purpose(peer, "shuffle")), self.game.context(seq, purpose(peer, "strip")));
        let Some(stack) = self.limited.as_mut().and_then(|limited| limited.stack.as_mut()) else {
            return Err(Fault::new(AlertKind::Unexpected, "a pool-shuffle outside a draft"));
        };
        let Some(drafted) = stack.peer_drafted.as_ref() else {
            return Err(Fault::new(AlertKind::Unexpected, "a pool-shuffle before the draft's end, or a second"));
        };
        if shuffle.cards.len() != drafted.len() || forms.len() != drafted.len() {
            return Err(Fault::new(AlertKind::Malformed, "a pool-shuffle of another size than the pool drafted"));
        }
        let outputs = key
            .verify_shuffle(drafted, shuffle, &shuffling, &mut self.rng)
            .map_err(|e| Fault::new(AlertKind::BadProof, format!("the shuffle of the drafted pool: {e}")))?;
        let stack_key = stack
            .peer_key
            .as_ref()
            .ok_or_else(|| Fault::new(AlertKind::Unexpected, "a pool-shuffle before the shuffles"))?;
        let stripped = stack_key
            .verify_strip(&outputs.into_inner().cards, forms, &proof, &stripping)
            .map_err(|e| Fault::new(AlertKind::BadProof, format!("the drafted pool's stack layer: {e}")))?;
        stack.peer_drafted = None;
        stack.peer_pool_key = Some(key);
        stack.dealt[peer] = Some(stripped.into_inner().cards);
        Ok(())
    }
}
