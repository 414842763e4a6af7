//! Library shuffles: relocks, shuffle steps with their proofs, and the arrangement of several backs.

use super::Engine;
use super::api::{AlertKind, Event};
use super::fault::Fault;
use super::round::RandomKind;
use super::setup::SETUP_SHUFFLES;
use super::shuffle_run::{Arrangement, OutOfTurn, ShuffleEffect, ShufflePart, ShuffleRun};
use super::state::{BackGroup, UnseenReorder};
use crate::crypto::{Group, LockKey, Locked, ProofContext, Shuffled, Verified};
use crate::ids::Seat;
use crate::table::{CardId, Knowledge, ZoneId};
use crate::wire::{ARRANGEMENT_ROUNDS, Action, KeyRef, Message, RelockGroup, ShuffleStep};

impl<G: Group> Engine<G> {
    /// A full shuffle with fresh locks: whoever might know cards is hidden from by the
    /// other player's step.
    pub(super) fn start_shuffle(&mut self, library: Seat, number: u64) {
        let arrangement = self.start_arrangement(library, number + 1);
        let cards = self.game.table.zone(ZoneId::library(library));
        let known = cards
            .iter()
            .filter_map(|id| self.game.table.card(*id))
            .fold(Knowledge::NOBODY, |known, card| known.union(card.known_to));
        let stale = |holder| {
            let current = self.game.current_key(holder, library);
            cards.iter().any(|id| self.game.planned[id][holder] != current)
        };
        let run = ShuffleRun::plan(library, known, stale, arrangement);
        self.game.shuffles.insert(library, run);
    }

    /// Relocks this player's stale cards of a library and tells the other player.
    pub(super) fn send_relock(&mut self, library: Seat) {
        let seq = self.out.next_seq();
        let context = self.game.context(seq, format!("relock/{}", library.id_byte()));
        let relock = self.relock_stale(library, &context);
        self.out.send::<G>(&Message::Relock { library, relock });
    }

    /// Brings every card of `library` to this player's current key, with proofs.
    pub(super) fn relock_stale(&mut self, library: Seat, context: &ProofContext) -> Vec<RelockGroup<G>> {
        let seat = self.seat;
        let mut relock = Vec::new();
        // Without a current key on this library, no layer of it is stale.
        let Some(current) = self.game.current_key(seat, library) else { return relock };
        for (from, cards) in self.game.stale_layers(seat, library) {
            let forms: Vec<G::Element> = cards.iter().map(|id| self.game.forms[id].element.clone()).collect();
            let key = &self.game.keys[&current];
            let (relocked, proof) =
                key.relock_with_proof(from.map(|k| &self.game.keys[&k]), &forms, context, &mut self.rng);
            let forms = relocked.cards.clone();
            self.apply_relock(seat, Some(current), &cards, relocked);
            relock.push(RelockGroup { from, cards, forms, proof });
        }
        relock
    }

    /// Checks and applies the other player's relock of its stale cards of `library`.
    pub(super) fn accept_relock(
        &mut self,
        library: Seat,
        groups: &[RelockGroup<G>],
        context: &ProofContext,
    ) -> Result<(), Fault> {
        let peer = self.seat.opponent();
        let current = self.game.current_key(peer, library);
        let mut stale = self.game.stale_layers(peer, library);
        let mut relocked = Vec::with_capacity(groups.len());
        for group in groups {
            // Each group must be exactly one set of stale cards: nothing else is accepted, so
            // the keys it names are keys this engine knows.
            let expected = stale.remove(&group.from).unwrap_or_default();
            if expected.is_empty() || expected != group.cards || group.forms.len() != group.cards.len() {
                return Err(Fault::new(AlertKind::Unexpected, "relock groups do not match the library"));
            }
            // Stale cards exist only under a current key, so a group that matched some has one.
            let Some(to) = current.and_then(|k| self.game.commitments.get(&k)) else {
                return Err(Fault::new(AlertKind::Unexpected, "relock groups do not match the library"));
            };
            let from = group.from.map(|k| self.game.commitments[&k].clone());
            let forms: Vec<G::Element> = group.cards.iter().map(|id| self.game.forms[id].element.clone()).collect();
            let verified = to
                .verify_relock(from.as_ref(), &forms, group.forms.clone(), &group.proof, context)
                .map_err(|e| Fault::new(AlertKind::BadProof, format!("relock before shuffle: {e}")))?;
            relocked.push((&group.cards, verified));
        }
        if !stale.is_empty() {
            return Err(Fault::new(AlertKind::Unexpected, "relock groups leave cards under old keys"));
        }
        for (cards, verified) in relocked {
            self.apply_relock(peer, current, cards, verified);
        }
        Ok(())
    }

    /// Puts `holder`'s layer on `cards` under its current key: the forms a relock proof vouches for.
    fn apply_relock(&mut self, holder: Seat, current: Option<KeyRef>, cards: &[CardId], relocked: Verified<Locked<G>>) {
        for (id, element) in cards.iter().zip(relocked.into_inner().cards) {
            let form = self.game.form_mut(*id);
            form.element = element;
            form.layers[holder] = current;
            let layers = form.layers.clone();
            self.game.planned.insert(*id, layers);
        }
    }

    pub(super) fn receive_relock(&mut self, seq: u64, library: Seat, groups: Vec<RelockGroup<G>>) -> Result<(), Fault> {
        let peer = self.seat.opponent();
        let out_of_turn = |OutOfTurn| Fault::new(AlertKind::Unexpected, "a relock out of turn");
        if self.game.shuffles.due_from(library, peer) != Some(ShufflePart::Relock)
            || self.game.library_unlocking(library)
        {
            return Err(out_of_turn(OutOfTurn));
        }
        let context = self.game.context(seq, format!("relock/{}", library.id_byte()));
        self.accept_relock(library, &groups, &context)?;
        self.game.shuffles.take(library, peer, ShufflePart::Relock).map_err(out_of_turn)
    }

    /// This player's step of a library's shuffle run: relock, lock with a fresh key, permute each
    /// back's cards and prove it. The step needs no answer, so it is done here as it is sent.
    pub(super) fn send_shuffle_step(&mut self, library: Seat) {
        let seat = self.seat;
        let seq = self.out.next_seq();
        let context = self.game.context(seq, format!("shuffle/{}", library.id_byte()));
        let current = self.game.current_key(seat, library);
        let relock = self.relock_stale(library, &context);
        let groups = self.back_groups_to_shuffle(library, seq);
        let fresh = LockKey::<G>::generate(&mut self.rng);
        let fresh_commitment = fresh.commitment().clone();
        let mut shuffles = Vec::with_capacity(groups.len());
        let mut outputs = Vec::new();
        for group in groups {
            let (shuffle, shuffled) = fresh.lock_and_shuffle(&group.inputs, &group.context, &mut self.rng);
            outputs.push((group.cards, shuffled));
            shuffles.push(shuffle);
        }
        // The holder's key on this library becomes current × fresh (or fresh, the first time).
        let (new_key, combined) = match current {
            Some(current) => {
                let (combined, proof) = self.game.keys[&current].combine_with_proof(&fresh, &context, &mut self.rng);
                let commitment = combined.commitment().clone();
                (combined, Some((commitment, proof)))
            }
            None => (fresh, None),
        };
        let new_ref = KeyRef { holder: seat, library, epoch: current.map_or(0, |k| k.epoch + 1) };
        let step = ShuffleStep { library, relock, fresh: fresh_commitment, shuffles, combined };
        self.out.send::<G>(&Message::ShuffleStep { step });
        self.game.shuffles.own_step_sent(library, seq);
        self.game.commitments.insert(new_ref, new_key.commitment().clone());
        self.game.keys.insert(new_ref, new_key);
        self.place_shuffled(library, new_ref, outputs);
        self.finish_run_if_done(library);
    }

    /// The library's back groups with their current forms, each with the proof context of
    /// its shuffle in the step that is message `seq`.
    pub(super) fn back_groups_to_shuffle(&self, library: Seat, seq: u64) -> Vec<BackGroup<G>> {
        self.game
            .back_groups(library)
            .into_iter()
            .enumerate()
            .map(|(group, cards)| BackGroup {
                inputs: cards.iter().map(|id| self.game.forms[id].element.clone()).collect(),
                cards,
                context: self.game.context(seq, format!("shuffle/{}/{group}", library.id_byte())),
            })
            .collect()
    }

    /// Checks the other player's step of a library's shuffle run (relock, combined key and one
    /// shuffle proof per back) and puts its output in place.
    pub(super) fn receive_shuffle_step(&mut self, seq: u64, step: ShuffleStep<G>) -> Result<(), Fault> {
        let peer = self.seat.opponent();
        let library = step.library;
        if !self.game.shuffles.contains(library) {
            return Err(Fault::new(AlertKind::Unexpected, "a shuffle step for a library nobody is shuffling"));
        }
        let out_of_turn = |OutOfTurn| Fault::new(AlertKind::Unexpected, "a shuffle step out of turn");
        if self.game.shuffles.due_from(library, peer) != Some(ShufflePart::Step) {
            return Err(out_of_turn(OutOfTurn));
        }
        if self.game.library_unlocking(library) {
            return Err(Fault::new(AlertKind::Unexpected, "a shuffle step before the library's reveals were done"));
        }
        if *step.fresh.element() == G::generator() {
            return Err(Fault::new(
                AlertKind::Stacking,
                "a shuffle step locked with the unit key: no fresh lock at all",
            ));
        }
        let context = self.game.context(seq, format!("shuffle/{}", library.id_byte()));
        let current = self.game.current_key(peer, library);
        self.accept_relock(library, &step.relock, &context)?;
        let combined = match (&current, &step.combined) {
            (Some(current), Some((combined, proof))) => Some(
                self.game.commitments[current]
                    .verify_combined(&step.fresh, combined.clone(), proof, &context)
                    .map_err(|e| Fault::new(AlertKind::BadProof, format!("combined shuffle key: {e}")))?,
            ),
            (None, None) => None,
            _ => {
                return Err(Fault::new(
                    AlertKind::Unexpected,
                    "combined key present without a current key, or missing",
                ));
            }
        };
        let groups = self.back_groups_to_shuffle(library, seq);
        if step.shuffles.len() != groups.len() {
            return Err(Fault::new(
                AlertKind::BadProof,
                format!("a shuffle step of {} groups for a library of {} backs", step.shuffles.len(), groups.len()),
            ));
        }
        let mut outputs = Vec::new();
        for (group, shuffle) in groups.into_iter().zip(step.shuffles) {
            let shuffled = step
                .fresh
                .verify_shuffle(&group.inputs, shuffle, &group.context, &mut self.rng)
                .map_err(|e| Fault::new(AlertKind::BadProof, format!("shuffle of the {library:?} library: {e}")))?;
            outputs.push((group.cards, shuffled));
        }
        let new_ref = KeyRef { holder: peer, library, epoch: current.map_or(0, |k| k.epoch + 1) };
        // The stepper's key on the library is now current × fresh (proven), or fresh the first time.
        let new_commitment = combined.map_or(step.fresh, Verified::into_inner);
        self.game.shuffles.take(library, peer, ShufflePart::Step).map_err(out_of_turn)?;
        if self.observing && peer == Seat::GUEST {
            // A spectator follows the host's table: the guest's step may end a run the host has not seen yet.
            self.game.shuffles.own_step_sent(library, seq);
        }
        self.game.commitments.insert(new_ref, new_commitment);
        self.place_shuffled(library, new_ref, outputs);
        self.finish_run_if_done(library);
        Ok(())
    }

    /// Puts a verified shuffle step's output in place (each back's cards, in the library's order, and what its
    /// shuffle made of them): the stepper's layer is the new key, and only the stepper can still tell which card
    /// went where.
    fn place_shuffled(&mut self, library: Seat, new_ref: KeyRef, outputs: Vec<(Vec<CardId>, Verified<Shuffled<G>>)>) {
        let stepper = new_ref.holder;
        let outputs =
            outputs.into_iter().flat_map(|(cards, shuffled)| cards.into_iter().zip(shuffled.into_inner().cards));
        for (id, element) in outputs {
            let form = self.game.form_mut(id);
            form.element = element;
            form.layers[stepper] = Some(new_ref);
            let layers = form.layers.clone();
            self.game.planned.insert(id, layers);
            let card = self.game.known_card_mut(id);
            // Only the stepper could follow a card it knew through its own permutation, and
            // runs are planned so that the other player's step comes after any such card
            // (see `ShuffleRun::plan`): once the run ends, nobody knows any card of it.
            card.known_to = Knowledge::NOBODY;
            self.game.identities.remove(&id);
        }
        self.game.current_keys.insert((stepper, library), new_ref.epoch);
    }

    /// A run is done when its last step is in and its backs' arrangement is drawn: the
    /// library takes the arrangement, and play (or set-up) goes on. The arrangement is an order
    /// of the library as it was when drawn, and no card enters or leaves a library while its run
    /// lasts (the rules refuse such actions as stale), so the library takes it.
    fn finish_run_if_done(&mut self, library: Seat) {
        let Some(end) = self.game.shuffles.end_if_done(library) else { return };
        if let Some(order) = end.order {
            let before = self.game.table.zone(ZoneId::library(library)).to_vec();
            self.game.table.permute(ZoneId::library(library), &order).expect("an order of this library");
            // The host completes the run only once the guest's last step reaches it: until
            // then its table, and the turn digest it sends, have the library's old order.
            if (self.seat == Seat::GUEST || self.observing)
                && let Some(seq) = end.own_step
                && seq >= self.out.peer_ack
            {
                self.game.unseen_reorders.push(UnseenReorder { seq, library, before });
            }
        }
        if self.game.phase.is_ready() {
            self.out.emit(Event::Shuffled { library });
            if library == self.seat
                && let Some(draw) = self.game.mulligan_draw.take()
                && draw > 0
            {
                self.follow_up(Action::Draw { count: draw });
            }
        } else {
            self.game.setup_done.insert(library);
            self.out.emit(Event::SetupProgress { done: self.game.setup_done.len() as u32, total: SETUP_SHUFFLES });
            // Not ready, so still setting up: the transition is allowed.
            if self.game.setup_done.len() as u32 == SETUP_SHUFFLES && self.game.phase.set_up_done().is_ok() {
                self.set_starting_life();
                self.out.emit(Event::Ready);
            }
        }
    }

    /// Starts drawing where a library's backs will lie after the run that starts now (with
    /// `serial` 0 at set-up, the action's number + 1 later): in common, since the backs show.
    pub(super) fn start_arrangement(&mut self, library: Seat, serial: u64) -> Arrangement {
        if self.game.back_groups(library).len() < 2 {
            return Arrangement::Single;
        }
        let round = ARRANGEMENT_ROUNDS | serial << 1 | u64::from(library == Seat::GUEST);
        self.start_random(round, library, RandomKind::Arrangement(library));
        Arrangement::Drawing
    }

    /// The random round drew where `library`'s backs lie (`order`, the library's new order): the run may be done.
    pub(super) fn arrangement_drawn(&mut self, library: Seat, order: Vec<u32>) {
        self.game.shuffles.arrangement_drawn(library, order);
        self.finish_run_if_done(library);
    }

    /// The first library whose shuffle run waits on this player, and whether for a relock
    /// (else for a step): the run counts it as made, so the caller makes it now.
    pub(super) fn next_own_shuffle_part(&mut self) -> Option<(Seat, bool)> {
        // A run waits for its library's reveals.
        let unlocking: Vec<Seat> = Seat::BOTH.into_iter().filter(|l| self.game.library_unlocking(*l)).collect();
        match self.game.shuffles.next(self.seat, |library| unlocking.contains(&library))? {
            ShuffleEffect::Relock { library } => Some((library, true)),
            ShuffleEffect::Step { library } => Some((library, false)),
        }
    }
}
