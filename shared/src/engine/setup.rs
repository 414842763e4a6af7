//! Set-up of a game: the sealed decks, their proofs, and the first shuffles; a new game of the match.

use std::collections::{BTreeMap, VecDeque};

use rand_core::Rng;
use sha2::{Digest, Sha256};

use super::Engine;
use super::api::{AlertKind, DeckError, DeckList, Event};
use super::fault::Fault;
use super::state::{Form, GameState, ShuffleRun, index};
use crate::crypto::{
    BackId, CardInstance, Catalogue, DleqProof, Group, KeyCommitment, LockKey, Locked, Verified, random_permutation,
};
use crate::ids::{GameId, Seat};
use crate::table::{Card, CardId, Knowledge, Placement, Position, ZoneId, ZoneKind};
use crate::wire::{self, Envelope, KeyRef, Message};

/// Set-up is done when both libraries are shuffled.
pub(super) const SETUP_SHUFFLES: u32 = 2;

/// The public bases of a deck of `len` cards of `owner` (`crypto::deck_base`).
pub(super) fn deck_bases<G: Group>(game_id: &GameId, owner: Seat, len: usize) -> Vec<G::Element> {
    (0..len).map(|i| crate::crypto::deck_base::<G>(game_id, owner, i as u32)).collect()
}

pub(super) fn check_deck<G: Group>(deck: &DeckList) -> Result<(), DeckError> {
    if deck.library.is_empty() {
        return Err(DeckError::Empty);
    }
    let max = wire::max_deck_len::<G>();
    if deck.library.len() + deck.sideboard.len() > max {
        return Err(DeckError::TooLarge(max));
    }
    if let Some(card) = deck.library.iter().chain(&deck.sideboard).find(|c| !crate::crypto::name_fits(&c.name)) {
        return Err(DeckError::BadName(card.name.clone()));
    }
    Ok(())
}

impl<G: Group> Engine<G> {
    /// Both players asked for a new game: this one is dropped and the next one's set-up
    /// starts with this player's deck. Both engines derive the new game id alike.
    pub(super) fn start_new_game_if_agreed(&mut self) {
        if !(self.new_game_asked && self.new_game_offered) {
            return;
        }
        self.new_game_asked = false;
        self.new_game_offered = false;
        let previous = self.game.game_id();
        let number = self.game.number + 1;
        let id = Sha256::new()
            .chain_update(b"fairdeck/v1/next-game")
            .chain_update(previous.0)
            .chain_update(number.to_be_bytes())
            .finalize();
        let names = Seat::BOTH.map(|seat| self.game.table.player(seat).name.clone());
        self.game = GameState::new(number, Some(GameId(id.into())));
        for (seat, name) in Seat::BOTH.into_iter().zip(names) {
            self.game.table.player_mut(seat).name = name;
        }
        self.awaiting_new_deck = true;
        self.out.emit(Event::NewGame { number });
        self.send_deck();
    }

    pub(super) fn send_deck(&mut self) {
        let game_id = self.game.game_id();
        let seat = self.seat;
        let instances: Vec<CardInstance> = self
            .deck
            .library
            .iter()
            .chain(&self.deck.sideboard)
            .map(|card| {
                let mut nonce = [0u8; 16];
                self.rng.fill_bytes(&mut nonce);
                CardInstance { owner: seat, nonce, name: card.name.clone(), back: card.back }
            })
            .collect();
        let library_len = self.deck.library.len();
        // Lay the library out in a random order of this player's own: nothing rests on it
        // (the opponent's shuffle is what hides the order), but it costs nothing.
        let order = random_permutation(&mut self.rng, library_len);
        let library_instances: Vec<&CardInstance> = order.iter().map(|&i| &instances[usize::from(i)]).collect();
        // The sideboard too, or its ids would follow the deck list (three Negates in a row) and
        // one revealed sideboard card would hint at its neighbours.
        let sideboard_order = random_permutation(&mut self.rng, instances.len() - library_len);
        let sideboard_instances: Vec<&CardInstance> =
            sideboard_order.iter().map(|&i| &instances[library_len + usize::from(i)]).collect();
        let key = LockKey::<G>::generate(&mut self.rng);
        let base_key = LockKey::<G>::generate(&mut self.rng);
        let bases = deck_bases::<G>(&game_id, seat, instances.len());
        let context = self.game.context(self.out.next_seq(), format!("deck/{}", seat.id_byte()));
        let (elements, proof) = base_key.lock_with_proof(&bases, &context, &mut self.rng);
        let placed: Vec<&CardInstance> = library_instances.iter().chain(&sideboard_instances).copied().collect();
        let sealed: Vec<(G::Element, CardInstance)> =
            key.strip(&elements).into_iter().zip(placed.iter().map(|&instance| instance.clone())).collect();
        let catalogue = Catalogue::seal::<G>(&sealed).expect("deck names were checked in Engine::new");
        let mut cards = elements.into_iter().zip(placed.iter().map(|instance| instance.back));
        let library: Vec<(G::Element, BackId)> = cards.by_ref().take(library_len).collect();
        let sideboard: Vec<(G::Element, BackId)> = cards.collect();
        let message = Message::Deck {
            key: key.commitment().clone(),
            base_key: base_key.commitment().clone(),
            proof,
            library: library.clone(),
            sideboard: sideboard.clone(),
            catalogue: catalogue.entries(),
        };
        let envelope = self.out.send::<G>(&message).clone();
        self.game.deck_envelopes.insert(seat, envelope);
        let key_ref = KeyRef { holder: seat, library: seat, epoch: 0 };
        self.game.commitments.insert(key_ref, key.commitment().clone());
        self.game.keys.insert(key_ref, key);
        self.game.current_keys.insert((seat, seat), 0);
        self.game.catalogues.insert(seat, catalogue);
        let backs: Vec<BackId> = placed.iter().map(|instance| instance.back).collect();
        let elements = library.into_iter().chain(sideboard).map(|(element, _)| element).collect();
        let ids = self.place_deck(seat, Verified::made_here(Locked { cards: elements }), &backs, library_len, key_ref);
        for (id, instance) in ids.into_iter().zip(library_instances.into_iter().chain(sideboard_instances)) {
            self.game.identities.insert(id, instance.clone());
        }
        self.start_setup_shuffle(seat);
    }

    /// Creates a deck's cards on the table, known to their owner only: its first `library_len`
    /// cards in the library, the rest in the sideboard, in the forms the deck's proof vouches for.
    pub(super) fn place_deck(
        &mut self,
        owner: Seat,
        locked: Verified<Locked<G>>,
        backs: &[BackId],
        library_len: usize,
        key: KeyRef,
    ) -> Vec<CardId> {
        let base = Self::id_base(owner) + 1;
        let elements = locked.into_inner().cards;
        let mut ids = Vec::with_capacity(elements.len());
        for (i, (element, back)) in elements.iter().zip(backs).enumerate() {
            let id = CardId(base + i as u32);
            let kind = if i < library_len { ZoneKind::Library } else { ZoneKind::Sideboard };
            let card = Card {
                id,
                owner,
                back: *back,
                zone: ZoneId::new(owner, kind),
                placement: Placement::default(),
                tapped: false,
                counters: BTreeMap::new(),
                known_to: Knowledge::only(owner),
            };
            self.game.table.add_card(card, Position::Bottom).expect("fresh ids in empty zones");
            let mut layers = [None, None];
            layers[index(owner)] = Some(key);
            self.game.forms.insert(id, Form { element: element.clone(), layers });
            self.game.planned.insert(id, layers);
            ids.push(id);
        }
        self.game.deck_elements.insert(owner, elements.into_iter().zip(backs.iter().copied()).collect());
        ids
    }

    pub(super) fn receive_deck(
        &mut self,
        envelope: &Envelope,
        key: KeyCommitment<G>,
        (base_key, proof): (KeyCommitment<G>, DleqProof<G>),
        library: Vec<(G::Element, BackId)>,
        sideboard: Vec<(G::Element, BackId)>,
        catalogue: Vec<crate::crypto::CatalogueEntry>,
    ) -> Result<(), Fault> {
        let peer = self.seat.opponent();
        if self.game.catalogues.contains_key(&peer) || self.game.game_id.is_none() {
            return Err(Fault::new(AlertKind::Unexpected, "a deck out of turn"));
        }
        let total = library.len() + sideboard.len();
        if library.is_empty() || total > wire::max_deck_len::<G>() {
            return Err(Fault::new(
                AlertKind::Malformed,
                format!("a deck of {} + {} cards", library.len(), sideboard.len()),
            ));
        }
        let mut distinct = std::collections::HashSet::new();
        if !library.iter().chain(&sideboard).all(|(element, _)| distinct.insert(element.clone())) {
            return Err(Fault::new(AlertKind::Malformed, "the same card twice in a deck"));
        }
        let catalogue =
            Catalogue::from_entries(catalogue).map_err(|e| Fault::new(AlertKind::Malformed, e.to_string()))?;
        if catalogue.len() != total {
            return Err(Fault::new(AlertKind::Malformed, "the catalogue does not list every card once"));
        }
        let game_id = self.game.game_id();
        let bases = deck_bases::<G>(&game_id, peer, total);
        let elements: Vec<G::Element> = library.iter().chain(&sideboard).map(|(element, _)| element.clone()).collect();
        let context = self.game.context(envelope.seq, format!("deck/{}", peer.id_byte()));
        let locked = base_key.verify_lock(&bases, elements, &proof, &context).map_err(|error| {
            Fault::new(AlertKind::BadProof, format!("the deck's elements are not one multiple of its bases: {error}"))
        })?;
        let backs: Vec<BackId> = library.iter().chain(&sideboard).map(|(_, back)| *back).collect();
        let key_ref = KeyRef { holder: peer, library: peer, epoch: 0 };
        self.game.commitments.insert(key_ref, key);
        self.game.current_keys.insert((peer, peer), 0);
        self.game.catalogues.insert(peer, catalogue);
        self.game.deck_envelopes.insert(peer, envelope.clone());
        self.place_deck(peer, locked, &backs, library.len(), key_ref);
        self.start_setup_shuffle(peer);
        Ok(())
    }

    pub(super) fn start_setup_shuffle(&mut self, library: Seat) {
        // Only the opponent's shuffle matters at set-up: the owner knows every card anyway.
        let steps = VecDeque::from([library.opponent()]);
        let arrangement = self.start_arrangement(library, 0);
        self.game.shuffles.insert(library, ShuffleRun { relock_first: None, steps, arrangement, own_step: None });
    }
}
