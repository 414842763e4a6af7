//! Set-up of a game: the sealed decks, their proofs, and the first shuffles; a new game of the match.

use std::collections::BTreeMap;

use rand_core::Rng;
use sha2::{Digest, Sha256};

use super::Engine;
use super::api::{AlertKind, DeckError, DeckList, Event};
use super::fault::Fault;
use super::phase::{Agreed, GamePhase};
use super::shuffle_run::ShuffleRun;
use super::state::{Form, GameState};
use crate::crypto::{
    BackId, CardInstance, Catalogue, DleqProof, Group, KeyCommitment, LockKey, Locked, Verified, random_permutation,
};
use crate::ids::{GameId, Seat};
use crate::seats::SeatMap;
use crate::table::{Card, CardId, Knowledge, Placement, Position, ZoneId, ZoneKind};
use crate::wire::{self, DeckDifference, Envelope, KeyRef, Message};

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
    if deck.commander.len() > wire::MAX_COMMANDERS {
        return Err(DeckError::TooManyCommanders(wire::MAX_COMMANDERS));
    }
    if !wire::deck_label_fits(&deck.label) {
        return Err(DeckError::BadLabel(wire::MAX_DECK_LABEL_LEN));
    }
    let cards = || deck.library.iter().chain(&deck.sideboard).chain(&deck.commander);
    if let Some(card) = cards().find(|c| !crate::crypto::name_fits(&c.name)) {
        return Err(DeckError::BadName(card.name.clone()));
    }
    Ok(())
}

/// The loser both new-game requests name, if they name the same one. Each engine has both requests when the new
/// game starts, so both find the same: a loss and a request that crossed on the wire leave the choice to the coin.
/// (A request naming another loser than its sender had heard of never gets here: `loser_seen_by_peer`.)
pub(super) fn agreed_loser(mine: Option<Seat>, theirs: Option<Seat>) -> Option<Seat> {
    mine.filter(|_| mine == theirs)
}

/// This player's deck as it enters the game: its key, catalogue, cards (library first) and their instances.
pub(super) struct OwnDeck<G: Group> {
    pub(super) key: LockKey<G>,
    pub(super) catalogue: Catalogue,
    pub(super) locked: Verified<Locked<G>>,
    pub(super) backs: Vec<BackId>,
    pub(super) library_len: usize,
    pub(super) instances: Vec<CardInstance>,
}

/// The opponent's checked deck as it enters the game.
pub(super) struct PeerDeck<G: Group> {
    pub(super) key: KeyCommitment<G>,
    pub(super) catalogue: Catalogue,
    pub(super) locked: Verified<Locked<G>>,
    pub(super) backs: Vec<BackId>,
    pub(super) library_len: usize,
}

/// The fields of the opponent's `deck` message, as `receive_deck` takes them.
pub(super) struct ReceivedDeck<G: Group> {
    pub(super) key: KeyCommitment<G>,
    pub(super) base_key: KeyCommitment<G>,
    pub(super) proof: DleqProof<G>,
    pub(super) library: Vec<(G::Element, BackId)>,
    pub(super) sideboard: Vec<(G::Element, BackId)>,
    pub(super) catalogue: Vec<crate::crypto::CatalogueEntry>,
    pub(super) commander: Vec<CardInstance>,
    pub(super) label: String,
    pub(super) difference: DeckDifference,
}

impl<G: Group> Engine<G> {
    /// Both players asked for a new game: this one is dropped and the next one's set-up
    /// starts with this player's deck. Both engines derive the new game id alike, and who chooses to play or draw
    /// from the two requests alone, which both hold now.
    pub(super) fn start_new_game_if_agreed(&mut self) {
        let Some(Agreed { mine, theirs, request }) = self.phase.start_new_game() else {
            return;
        };
        self.tell_missing_audits(request, theirs.ack);
        self.begin_next_game();
        self.send_deck();
        self.decide_chooser(agreed_loser(mine, theirs.loser));
    }

    /// The match's next game begins: its id derived from the last one's, both players' names kept, the rest new.
    pub(super) fn begin_next_game(&mut self) {
        let previous = self.game.game_id();
        let number = self.game.number + 1;
        let id = Sha256::new()
            .chain_update(b"fairdeck/v1/next-game")
            .chain_update(previous.0)
            .chain_update(number.to_be_bytes())
            .finalize();
        let names = Seat::BOTH.map(|seat| self.game.table.player(seat).name.clone());
        self.game = GameState::new(number, GamePhase::next_game(GameId(id.into())));
        for (seat, name) in Seat::BOTH.into_iter().zip(names) {
            self.game.table.player_mut(seat).name = name;
        }
        self.out.emit(Event::NewGame { number });
    }

    pub(super) fn send_deck(&mut self) {
        if self.limited.is_some() {
            return self.send_pool_deck();
        }
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
        let commanders: Vec<CardInstance> = self
            .deck
            .commander
            .iter()
            .map(|card| {
                let mut nonce = [0u8; 16];
                self.rng.fill_bytes(&mut nonce);
                CardInstance { owner: seat, nonce, name: card.name.clone(), back: card.back }
            })
            .collect();
        let key = LockKey::<G>::generate(&mut self.rng);
        let base_key = LockKey::<G>::generate(&mut self.rng);
        let bases = deck_bases::<G>(&game_id, seat, instances.len());
        let context = self.game.context(self.out.next_seq(), format!("deck/{}", seat.id_byte()));
        // The points the catalogue seals: the locked bases with the deck key stripped.
        let (locked, proof, points) = base_key.lock_with_proof_and_strip(&bases, &key, &context, &mut self.rng);
        let placed: Vec<&CardInstance> = library_instances.iter().chain(&sideboard_instances).copied().collect();
        let sealed: Vec<(G::Element, CardInstance)> =
            points.into_iter().zip(placed.iter().map(|&instance| instance.clone())).collect();
        // Sealing refuses a name too long (every deck is checked as it enters, `check_deck`) or two cards with one
        // point (each point is a secret multiple of its own hashed base); JSON and encryption of a card do not fail.
        let catalogue = Catalogue::seal::<G>(&sealed).expect("every deck is checked as it enters");
        let mut cards = locked.cards.iter().cloned().zip(placed.iter().map(|instance| instance.back));
        let library: Vec<(G::Element, BackId)> = cards.by_ref().take(library_len).collect();
        let sideboard: Vec<(G::Element, BackId)> = cards.collect();
        let difference = self.own_difference();
        let message = Message::Deck {
            key: key.commitment().clone(),
            base_key: base_key.commitment().clone(),
            proof,
            library: library.clone(),
            sideboard: sideboard.clone(),
            catalogue: catalogue.entries(),
            commander: commanders.clone(),
            label: self.deck.label.clone(),
            difference: difference.clone(),
        };
        let backs: Vec<BackId> = placed.iter().map(|instance| instance.back).collect();
        let instances: Vec<CardInstance> = library_instances.into_iter().chain(sideboard_instances).cloned().collect();
        self.enter_own_deck(&message, OwnDeck { key, catalogue, locked, backs, library_len, instances });
        self.place_commanders(seat, commanders);
        self.announce_deck(seat, self.deck.label.clone(), difference);
    }

    /// Sends this player's deck message and puts its cards on the table under its deck key, known to it.
    pub(super) fn enter_own_deck(&mut self, message: &Message<G>, deck: OwnDeck<G>) {
        let OwnDeck { key, catalogue, locked, backs, library_len, instances } = deck;
        let seat = self.seat;
        let envelope = self.out.send::<G>(message).clone();
        self.game.deck_envelopes.insert(seat, envelope);
        let key_ref = KeyRef { holder: seat, library: seat, epoch: 0 };
        self.game.commitments.insert(key_ref, key.commitment().clone());
        self.game.keys.insert(key_ref, key);
        self.game.current_keys.insert((seat, seat), 0);
        self.game.catalogues.insert(seat, catalogue);
        let ids = self.place_deck(seat, locked, &backs, library_len, key_ref);
        for (id, instance) in ids.into_iter().zip(instances) {
            self.game.identities.insert(id, instance);
        }
    }

    /// Puts the opponent's checked deck on the table under its deck key, known to it alone.
    pub(super) fn enter_peer_deck(&mut self, envelope: &Envelope, deck: PeerDeck<G>) {
        let PeerDeck { key, catalogue, locked, backs, library_len } = deck;
        let peer = self.seat.opponent();
        let key_ref = KeyRef { holder: peer, library: peer, epoch: 0 };
        self.game.commitments.insert(key_ref, key);
        self.game.current_keys.insert((peer, peer), 0);
        self.game.catalogues.insert(peer, catalogue);
        self.game.deck_envelopes.insert(peer, envelope.clone());
        self.place_deck(peer, locked, &backs, library_len, key_ref);
    }

    /// Tells the interface which deck `seat` brought and how it differs, and starts its library's first shuffle.
    pub(super) fn announce_deck(&mut self, seat: Seat, label: String, difference: DeckDifference) {
        self.show_label(seat, label, !difference.is_empty());
        self.tell_difference(seat, difference);
        self.start_setup_shuffle(seat);
    }

    /// A deck's commanders, face up in its owner's command zone, after its library and sideboard (so both
    /// engines number them alike).
    fn place_commanders(&mut self, owner: Seat, commanders: Vec<CardInstance>) {
        for commander in &commanders {
            self.add_public_card(commander, ZoneId::new(owner, ZoneKind::Command), Placement::default(), None);
        }
        self.game.commanders.insert(owner, commanders);
    }

    /// Tells the interface which deck `seat` brings to this game, and whether it is `changed`: off the match's 75.
    /// Not whether its label changed: the label is the deck hash, which sideboarding changes too.
    fn show_label(&mut self, seat: Seat, label: String, changed: bool) {
        self.labels[seat] = Some(label.clone());
        self.out.emit(Event::DeckLabel { seat, label, changed });
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
                attached_to: None,
                power_toughness: None,
            };
            // A deck is placed once a game, into zones that were empty: its ids are new, and the bottom is a place.
            self.game.table.add_card(card, Position::Bottom).expect("fresh ids in empty zones");
            let mut layers = SeatMap::default();
            layers[owner] = Some(key);
            self.game.forms.insert(id, Form { element: element.clone(), layers: layers.clone() });
            self.game.planned.insert(id, layers);
            ids.push(id);
        }
        self.game.deck_elements.insert(owner, elements.into_iter().zip(backs.iter().copied()).collect());
        ids
    }

    pub(super) fn receive_deck(&mut self, envelope: &Envelope, deck: ReceivedDeck<G>) -> Result<(), Fault> {
        let ReceivedDeck { key, base_key, proof, library, sideboard, catalogue, commander, label, difference } = deck;
        let peer = self.seat.opponent();
        if self.game.catalogues.contains_key(&peer) || self.game.phase.game_id().is_none() {
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
        if commander.len() > wire::MAX_COMMANDERS {
            return Err(Fault::new(AlertKind::Malformed, format!("{} commanders", commander.len())));
        }
        if let Some(card) = commander.iter().find(|c| c.owner != peer || !crate::crypto::name_fits(&c.name)) {
            return Err(Fault::new(
                AlertKind::Malformed,
                format!("a commander {:?} of another owner, or badly named", card.name),
            ));
        }
        let game_id = self.game.game_id();
        let mut points = std::collections::HashSet::new();
        if !commander.iter().all(|card| points.insert(card.point::<G>(&game_id))) {
            return Err(Fault::new(AlertKind::Malformed, "the same commander twice"));
        }
        if !wire::deck_label_fits(&label) {
            return Err(Fault::new(
                AlertKind::Malformed,
                format!("a deck label of more than {} bytes or not printable ASCII", wire::MAX_DECK_LABEL_LEN),
            ));
        }
        self.check_difference(&difference, total + commander.len())?;
        let catalogue =
            Catalogue::from_entries(catalogue).map_err(|e| Fault::new(AlertKind::Malformed, e.to_string()))?;
        if catalogue.len() != total {
            return Err(Fault::new(AlertKind::Malformed, "the catalogue does not list every card once"));
        }
        let bases = deck_bases::<G>(&game_id, peer, total);
        let elements: Vec<G::Element> = library.iter().chain(&sideboard).map(|(element, _)| element.clone()).collect();
        let context = self.game.context(envelope.seq, format!("deck/{}", peer.id_byte()));
        let locked = base_key.verify_lock(&bases, elements, &proof, &context).map_err(|error| {
            Fault::new(AlertKind::BadProof, format!("the deck's elements are not one multiple of its bases: {error}"))
        })?;
        let backs: Vec<BackId> = library.iter().chain(&sideboard).map(|(_, back)| *back).collect();
        self.enter_peer_deck(envelope, PeerDeck { key, catalogue, locked, backs, library_len: library.len() });
        self.place_commanders(peer, commander);
        self.announce_deck(peer, label, difference);
        Ok(())
    }

    pub(super) fn start_setup_shuffle(&mut self, library: Seat) {
        // Only the opponent's shuffle matters at set-up: the owner knows every card anyway, and no layer is stale.
        let arrangement = self.start_arrangement(library, 0);
        let run = ShuffleRun::plan(library, Knowledge::only(library), |_| false, arrangement);
        self.game.shuffles.insert(library, run);
    }
}
