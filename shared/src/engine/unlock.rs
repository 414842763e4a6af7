//! Unlocking cards: each holder strips its layers in turn, then the learners read them.

use std::collections::BTreeMap;

use super::Engine;
use super::api::{AlertKind, Event};
use super::fault::Fault;
use super::unlock_run::{StripRefusal, UnlockEffect, UnlockRun};
use crate::crypto::{Group, Stripped, Verified};
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
        let run = UnlockRun::plan(cards, audience, |id, holder| self.game.planned[&id][holder].is_some());
        for (holder, due) in run.steps() {
            for id in due {
                self.game.planned.entry(*id).or_default()[holder] = None;
            }
        }
        for (id, learners) in run.learners() {
            let card = self.game.known_card_mut(id);
            card.known_to = card.known_to.union(learners);
        }
        self.game.unlocks.start(number, run);
        self.advance_unlocks();
    }

    /// Runs every unlock that can run: sends this engine's strips when it is its turn, and
    /// reads the cards of unlocks whose strips are all in.
    fn advance_unlocks(&mut self) {
        if self.observing {
            // A spectator strips nothing: it reads the unlocks whose strips are all in.
            while let Some(cards) = self.game.unlocks.next_read() {
                self.read_unlocked(cards);
            }
            return;
        }
        while let Some(effect) = self.game.unlocks.next(self.seat) {
            match effect {
                UnlockEffect::Strip { unlock, cards } => self.send_strips(unlock, &cards),
                UnlockEffect::Read { cards } => self.read_unlocked(cards),
            }
        }
    }

    /// This player's strip of `cards` for unlock `number`, with its proofs.
    fn send_strips(&mut self, number: u64, cards: &[CardId]) {
        let seq = self.out.next_seq();
        let context = self.game.context(seq, format!("unlock/{number}"));
        let mut groups: BTreeMap<KeyRef, Vec<CardId>> = BTreeMap::new();
        for id in cards {
            // This player's step names only cards its planned layer is on, and no earlier unlock of them is
            // under way (the machine holds a blocked unlock back), so the layer is on each one now.
            let key = self.game.forms[id].layers[self.seat].expect("planned strips are of present layers");
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
        self.apply_strips(stripped);
    }

    pub(super) fn receive_strip(&mut self, seq: u64, number: u64, groups: Vec<StripGroup<G>>) -> Result<(), Fault> {
        let peer = self.seat.opponent();
        let due = self.game.unlocks.due(number, peer).map_err(|refusal| strip_fault(number, refusal))?;
        // Each due card with the opponent's layer on it, which a strip must name (planned strips are of present
        // layers, so every one has it).
        let mut due: BTreeMap<CardId, Option<KeyRef>> =
            due.iter().map(|id| (*id, self.game.forms[id].layers[peer])).collect();
        let context = self.game.context(seq, format!("unlock/{number}"));
        let mut stripped = Vec::with_capacity(groups.len());
        for group in groups {
            if group.cards.len() != group.forms.len() {
                return Err(Fault::new(AlertKind::Malformed, "strip group lengths differ"));
            }
            for id in &group.cards {
                if due.remove(id) != Some(Some(group.key)) {
                    return Err(strip_fault(number, StripRefusal::NotDue(*id)));
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
        let cards: Vec<CardId> = stripped.iter().flat_map(|(_, cards, _)| cards.iter().copied()).collect();
        self.game.unlocks.take_strip(number, peer, &cards).map_err(|refusal| strip_fault(number, refusal))?;
        self.apply_strips(stripped);
        self.advance_unlocks();
        Ok(())
    }

    /// Takes one layer off each group's cards: the forms a strip proof vouches for.
    fn apply_strips(&mut self, stripped: Vec<(KeyRef, Vec<CardId>, Verified<Stripped<G>>)>) {
        for (key, cards, forms) in stripped {
            for (id, element) in cards.into_iter().zip(forms.into_inner().cards) {
                let form = self.game.form_mut(id);
                form.element = element;
                form.layers[key.holder] = None;
            }
        }
    }

    /// Card `card`'s identity point (the point its owner's catalogue seals it under), when
    /// only this player's locks are left on it: what this player would strip it to.
    pub(super) fn stripped_point(&self, card: CardId) -> Option<G::Element> {
        let form = self.game.forms.get(&card)?;
        if form.layers[self.seat.opponent()].is_some() {
            return None;
        }
        Some(match form.layers[self.seat] {
            Some(key) => G::mul(&form.element, self.game.keys.get(&key)?.strip_scalar()),
            None => form.element.clone(),
        })
    }

    /// All strips of an unlock are in: the learners read each card's point from its owner's catalogue.
    fn read_unlocked(&mut self, cards: Vec<(CardId, Knowledge)>) {
        for (id, learners) in cards {
            let reads = if self.observing { learners == Knowledge::BOTH } else { learners.knows(self.seat) };
            if !reads || self.game.identities.contains_key(&id) {
                continue;
            }
            // A learner's unlock finishes once every step is done: the opponent's layer is off the card (its
            // strips are in), and this player keeps the key of its own layer, so the point is there. A card both
            // learn has no layer left at all, which is what a spectator reads.
            let Some(point) = self.stripped_point(id) else { continue };
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
                Err(error) if owner == self.seat && !self.observing => {
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

/// The alert for a strip that does not fit the unlocks under way.
fn strip_fault(number: u64, refusal: StripRefusal) -> Fault {
    let detail = match refusal {
        StripRefusal::Unknown => format!("strip for unknown unlock {number}"),
        StripRefusal::OutOfTurn => format!("strip out of turn for unlock {number}"),
        StripRefusal::NotDue(id) => format!("strip of card {id} that is not due, or with the wrong key"),
        StripRefusal::Missing(id) => format!("strip of unlock {number} misses card {id}"),
    };
    Fault::new(AlertKind::Unexpected, detail)
}
