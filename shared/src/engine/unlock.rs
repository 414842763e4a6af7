//! Unlocking cards: each holder strips its layers in turn, then the learners read them.

use std::collections::{BTreeMap, VecDeque};

use super::Engine;
use super::api::{AlertKind, Event};
use super::fault::Fault;
use super::state::{Unlock, index};
use crate::crypto::{Group, Stripped, Verified};
use crate::ids::Seat;
use crate::table::{CardId, Knowledge};
use crate::wire::{KeyRef, Message, StripGroup};

impl<G: Group> Engine<G> {
    /// Unlocks `cards` for `audience`: the holders of their layers strip in turn. Who
    /// will know each card is settled here, at once, in the game's order.
    pub(super) fn start_unlock(&mut self, number: u64, cards: Vec<CardId>, audience: Knowledge) {
        let cards: Vec<CardId> = cards
            .into_iter()
            .filter(|id| {
                let known = self.game.known_card(*id).known_to;
                known.union(audience) != known
            })
            .collect();
        if cards.is_empty() {
            return;
        }
        let both = audience == Knowledge::BOTH;
        let mut steps = VecDeque::new();
        for holder in Seat::BOTH {
            let due: Vec<CardId> = cards
                .iter()
                .copied()
                .filter(|id| (both || !audience.knows(holder)) && self.game.planned[id][index(holder)].is_some())
                .collect();
            for id in &due {
                self.game.planned.entry(*id).or_insert([None, None])[index(holder)] = None;
            }
            if !due.is_empty() {
                steps.push_back((holder, due));
            }
        }
        let learners: Vec<Knowledge> = cards
            .iter()
            .map(|id| match self.game.planned[id] {
                [None, None] => Knowledge::BOTH,
                [Some(_), None] => Knowledge::only(Seat::Host),
                [None, Some(_)] => Knowledge::only(Seat::Guest),
                [Some(_), Some(_)] => Knowledge::NOBODY,
            })
            .collect();
        for (id, learners) in cards.iter().zip(&learners) {
            let card = self.game.known_card_mut(*id);
            card.known_to = card.known_to.union(*learners);
        }
        self.game.unlocks.insert(number, Unlock { cards, steps, learners });
        self.advance_unlocks();
    }

    /// Whether an earlier unlock of one of the same cards is still under way.
    pub(super) fn unlock_blocked(&self, number: u64) -> bool {
        let cards = &self.game.unlocks[&number].cards;
        self.game.unlocks.range(..number).any(|(_, earlier)| earlier.cards.iter().any(|c| cards.contains(c)))
    }

    /// Runs every unlock that can run: sends this engine's strips when it is its turn, and
    /// finishes unlocks whose strips are all in.
    pub(super) fn advance_unlocks(&mut self) {
        loop {
            let runnable = self.game.unlocks.keys().copied().find(|&number| {
                !self.unlock_blocked(number)
                    && self.game.unlocks[&number].steps.front().is_none_or(|(holder, _)| *holder == self.seat)
            });
            let Some(number) = runnable else { return };
            let unlock = &self.game.unlocks[&number];
            match unlock.steps.front() {
                None => self.finish_unlock(number),
                Some((_, cards)) => {
                    let cards = cards.clone();
                    self.send_strips(number, &cards);
                }
            }
        }
    }

    pub(super) fn send_strips(&mut self, number: u64, cards: &[CardId]) {
        let seq = self.out.next_seq();
        let context = self.game.context(seq, format!("unlock/{number}"));
        let mut groups: BTreeMap<KeyRef, Vec<CardId>> = BTreeMap::new();
        for id in cards {
            // This player's step names only cards its planned layer is on, and no earlier unlock of them is
            // under way (`unlock_blocked`), so the layer is on each one now.
            let key = self.game.forms[id].layers[index(self.seat)].expect("planned strips are of present layers");
            groups.entry(key).or_default().push(*id);
        }
        let mut strip_groups = Vec::new();
        let mut stripped = Vec::new();
        for (key, cards) in groups {
            let locked: Vec<G::Element> = cards.iter().map(|id| self.game.forms[id].element.clone()).collect();
            // Every key this player locked with stays in `keys` for the whole game.
            let lock_key = self.game.keys.get(&key).expect("a holder keeps every key it locked with");
            let (forms, proof) = lock_key.strip_with_proof(&locked, &context, &mut self.rng);
            strip_groups.push(StripGroup { key, cards: cards.clone(), forms: forms.cards.clone(), proof });
            stripped.push((key, cards, forms));
        }
        self.out.send::<G>(&Message::Strip { unlock: number, groups: strip_groups });
        self.apply_strips(number, stripped);
    }

    pub(super) fn receive_strip(&mut self, seq: u64, number: u64, groups: Vec<StripGroup<G>>) -> Result<(), Fault> {
        let peer = self.seat.opponent();
        let unlock = self
            .game
            .unlocks
            .get(&number)
            .ok_or_else(|| Fault::new(AlertKind::Unexpected, format!("strip for unknown unlock {number}")))?;
        let due = match unlock.steps.front() {
            Some((holder, due)) if *holder == peer && !self.unlock_blocked(number) => due,
            _ => return Err(Fault::new(AlertKind::Unexpected, format!("strip out of turn for unlock {number}"))),
        };
        // Each due card with the opponent's layer on it, which a strip must name (planned strips are of present
        // layers, so every one has it).
        let mut due: BTreeMap<CardId, Option<KeyRef>> =
            due.iter().map(|id| (*id, self.game.forms[id].layers[index(peer)])).collect();
        let context = self.game.context(seq, format!("unlock/{number}"));
        let mut stripped = Vec::with_capacity(groups.len());
        for group in groups {
            if group.cards.len() != group.forms.len() {
                return Err(Fault::new(AlertKind::Malformed, "strip group lengths differ"));
            }
            for id in &group.cards {
                if due.remove(id) != Some(Some(group.key)) {
                    return Err(Fault::new(
                        AlertKind::Unexpected,
                        format!("strip of card {id} that is not due, or with the wrong key"),
                    ));
                }
            }
            if group.cards.is_empty() {
                return Err(Fault::new(AlertKind::Unexpected, "an empty strip group"));
            }
            // Every card of the group was due with this key, so its commitment is known.
            let commitment = self.game.commitments.get(&group.key).expect("due keys have commitments");
            let locked: Vec<G::Element> = group.cards.iter().map(|id| self.game.forms[id].element.clone()).collect();
            let verified = commitment
                .verify_strip(&locked, group.forms, &group.proof, &context)
                .map_err(|e| Fault::new(AlertKind::BadProof, format!("strip for unlock {number}: {e}")))?;
            stripped.push((group.key, group.cards, verified));
        }
        if let Some(id) = due.keys().next() {
            return Err(Fault::new(AlertKind::Unexpected, format!("strip of unlock {number} misses card {id}")));
        }
        self.apply_strips(number, stripped);
        self.advance_unlocks();
        Ok(())
    }

    /// Takes one layer off each group's cards: the forms a strip proof vouches for.
    pub(super) fn apply_strips(&mut self, number: u64, stripped: Vec<(KeyRef, Vec<CardId>, Verified<Stripped<G>>)>) {
        for (key, cards, forms) in stripped {
            for (id, element) in cards.into_iter().zip(forms.into_inner().cards) {
                let form = self.game.form_mut(id);
                form.element = element;
                form.layers[index(key.holder)] = None;
            }
        }
        if let Some(unlock) = self.game.unlocks.get_mut(&number) {
            unlock.steps.pop_front();
        }
    }

    /// Card `card`'s identity point (the point its owner's catalogue seals it under), when
    /// only this player's locks are left on it: what this player would strip it to.
    pub(super) fn stripped_point(&self, card: CardId) -> Option<G::Element> {
        let form = self.game.forms.get(&card)?;
        if form.layers[index(self.seat.opponent())].is_some() {
            return None;
        }
        Some(match form.layers[index(self.seat)] {
            Some(key) => G::mul(&form.element, self.game.keys.get(&key)?.strip_scalar()),
            None => form.element.clone(),
        })
    }

    /// All strips are in: the learners read each card's point from its owner's catalogue.
    pub(super) fn finish_unlock(&mut self, number: u64) {
        let Some(unlock) = self.game.unlocks.remove(&number) else { return };
        for (id, learners) in unlock.cards.into_iter().zip(unlock.learners) {
            if !learners.knows(self.seat) || self.game.identities.contains_key(&id) {
                continue;
            }
            // A learner's unlock finishes once every step is done: the opponent's layer is off the card (its
            // strips are in), and this player keeps the key of its own layer, so the point is there.
            let point = self.stripped_point(id).expect("the opponent's strips are in");
            let owner = self.game.known_card(id).owner;
            let back = self.game.known_card(id).back;
            let opened = match self.game.tokens.get(&point) {
                Some(token) => Ok(token.clone()),
                None => self.game.catalogues[&owner].open::<G>(&point),
            }
            .and_then(|instance| {
                if instance.owner == owner && instance.back == back {
                    Ok(instance)
                } else {
                    Err(crate::crypto::CatalogueError::WrongCard)
                }
            });
            match opened {
                Ok(instance) => {
                    self.game.identities.insert(id, instance.clone());
                    self.out.emit(Event::Learned { card: id, instance });
                }
                // The opponent's strips were proven, so a card of this player's own that does not
                // open means this engine's own state does not hold together: nobody is to blame.
                Err(error) if owner == self.seat => {
                    let detail = format!("this player's own card {id} does not open in its own catalogue: {error}");
                    self.raise(Fault::new(AlertKind::NotInDeck, detail), None);
                }
                Err(error) => {
                    let evidence = self.game.deck_envelopes.get(&owner).cloned();
                    let fault = Fault::new(
                        AlertKind::NotInDeck,
                        format!("card {id} does not open in its owner's catalogue: {error}"),
                    );
                    self.raise(fault, evidence);
                }
            }
        }
    }
}
