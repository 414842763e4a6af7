//! Decks of a limited match, built from the pool: the build checked against the cards dealt, the deck message
//! relocked from the stack, and the opponent's deck checked card by card against its dealt cards' forms.
//!
//! A pool card enters a library as its dealt form moved from its owner's stack layer to its deck key (a relock
//! proof against both commitments, over forms the opponent holds since the deal), so every library card is provably
//! a card of its owner's pool from the first shuffle on; a basic land enters as its public point locked with the deck
//! key. Where each card comes from is public: pool positions say nothing of the cards, which the stack's shuffles
//! hid. The whole pool is in every deck message (the rest of the pool in the sideboard), so sideboarding between
//! games is choosing another split of it.

use std::collections::{BTreeMap, HashSet};

use sha2::{Digest, Sha256};

use super::Engine;
use super::api::{AlertKind, DeckCard, DeckList, IntentError};
use super::fault::Fault;
use super::setup::{OwnDeck, PeerDeck};
use super::stack::Stack;
use crate::crypto::{BackId, CardInstance, Catalogue, DleqProof, Group, KeyCommitment, LockKey, basic_point};
use crate::ids::Seat;
use crate::wire::{self, BasicLand, DeckDifference, DeckSource, Envelope, Message};

/// The fields of the opponent's `pool-deck` message, as `receive_pool_deck` takes them.
pub(super) struct ReceivedPoolDeck<G: Group> {
    pub(super) key: KeyCommitment<G>,
    pub(super) library: Vec<DeckSource>,
    pub(super) sideboard: Vec<DeckSource>,
    pub(super) forms: Vec<G::Element>,
    pub(super) pool_proof: Option<DleqProof<G>>,
    pub(super) basic_proof: Option<DleqProof<G>>,
    pub(super) label: String,
    pub(super) difference: DeckDifference,
}

/// A deck's cards by where they come from: the pool positions in the order of the deck message (library, then
/// sideboard), and the basic lands of the library.
struct Split {
    pool: Vec<u32>,
    basics: Vec<BasicLand>,
    /// How many of `pool` are in the library.
    library_pool: usize,
}

impl Split {
    /// Checks a deck's sources against a pool of `deal` cards: the library's pool cards, then its basic lands; the
    /// sideboard's pool cards; no pool position twice, and every one of them when the pool was `dealt` from a stack
    /// both shuffled (a uniform pool is a whole list, of which a deck takes what it likes).
    fn of(library: &[DeckSource], sideboard: &[DeckSource], deal: u32, dealt: bool) -> Result<Split, &'static str> {
        let mut pool = Vec::new();
        let mut basics = Vec::new();
        for source in library {
            match *source {
                DeckSource::Pool(_) if !basics.is_empty() => return Err("a pool card after the basic lands"),
                DeckSource::Pool(position) => pool.push(position),
                DeckSource::Basic(land) => basics.push(land),
            }
        }
        let library_pool = pool.len();
        for source in sideboard {
            match *source {
                DeckSource::Pool(position) => pool.push(position),
                DeckSource::Basic(_) => return Err("a basic land in the sideboard"),
            }
        }
        let distinct: HashSet<u32> = pool.iter().copied().collect();
        if distinct.len() != pool.len() || pool.iter().any(|&p| p >= deal) {
            return Err("the deck names a pool card twice, or one the pool does not have");
        }
        if dealt && pool.len() != deal as usize {
            return Err("the deck does not hold every card of the pool");
        }
        Ok(Split { pool, basics, library_pool })
    }

    /// Each basic land with its copy number (its count among the earlier lands of its name).
    fn numbered(&self) -> Vec<(BasicLand, u32)> {
        let mut seen: BTreeMap<BasicLand, u32> = BTreeMap::new();
        self.basics
            .iter()
            .map(|&land| {
                let copy = seen.entry(land).or_default();
                *copy += 1;
                (land, *copy - 1)
            })
            .collect()
    }
}

/// A pool card's or basic land's instance, the same on both sides: the nonce is derived from public values, since
/// the card's point (which the catalogue reads it under) is public too.
fn instance(stack_id: &[u8; 32], owner: Seat, name: &str, what: &str, number: u32) -> CardInstance {
    let digest = Sha256::new()
        .chain_update(b"fairdeck/v1/pool-card")
        .chain_update(stack_id)
        .chain_update([owner.id_byte()])
        .chain_update(what.as_bytes())
        .chain_update(number.to_be_bytes())
        .finalize();
    let mut nonce = [0u8; 16];
    nonce.copy_from_slice(&digest[..16]);
    CardInstance { owner, nonce, name: name.to_string(), back: BackId::default() }
}

impl<G: Group> Engine<G> {
    /// Limited play: this player's pool is dealt and its deck for this game not built yet (`Intent::Build`): the
    /// engine waits on its player, not on the opponent.
    pub fn is_building(&self) -> bool {
        self.stack().is_some_and(|stack| stack.own.is_some()) && !self.game.catalogues.contains_key(&self.seat)
    }

    /// `Intent::Build`: this player's first deck of a limited match, from its pool.
    pub(super) fn build(&mut self, deck: DeckList) -> Result<(), IntentError> {
        if self.game.catalogues.contains_key(&self.seat) {
            return Err(IntentError::Invalid("your deck is in this game already; change it for the next".into()));
        }
        self.choose_pool_deck(deck)?;
        self.send_deck();
        Ok(())
    }

    /// Takes `deck` as this player's deck from now on if its cards are in its pool (or basic lands): the rest of the
    /// pool joins its sideboard.
    pub(super) fn choose_pool_deck(&mut self, deck: DeckList) -> Result<(), IntentError> {
        let Some((stack, own)) = self.stack().and_then(|stack| Some((stack, stack.own.clone()?))) else {
            return Err(IntentError::NotReady);
        };
        if !deck.commander.is_empty() {
            return Err(IntentError::Invalid("a limited deck has no commander".into()));
        }
        if deck.library.is_empty() {
            return Err(IntentError::Invalid("a deck needs at least one library card".into()));
        }
        if !wire::deck_label_fits(&deck.label) {
            return Err(IntentError::Invalid("a deck label is printable ASCII, 32 bytes at most".into()));
        }
        let mut unused: Vec<Option<&str>> = own.iter().map(|&i| Some(stack.names[i as usize].as_str())).collect();
        let mut take = |name: &str| {
            let slot = unused.iter().position(|card| *card == Some(name))?;
            unused[slot] = None;
            Some(slot as u32)
        };
        let mut missing: BTreeMap<&str, u32> = BTreeMap::new();
        let mut library = Vec::new();
        let mut basics = Vec::new();
        for card in &deck.library {
            match (take(&card.name), BasicLand::named(&card.name)) {
                (Some(position), _) => library.push(DeckSource::Pool(position)),
                (None, Some(land)) => basics.push(DeckSource::Basic(land)),
                (None, None) => *missing.entry(&card.name).or_default() += 1,
            }
        }
        let mut sideboard = Vec::new();
        for card in &deck.sideboard {
            match take(&card.name) {
                Some(position) => sideboard.push(DeckSource::Pool(position)),
                // Basic lands are there for the taking: a sideboard needs none.
                None if BasicLand::named(&card.name).is_some() => {}
                None => *missing.entry(&card.name).or_default() += 1,
            }
        }
        if !missing.is_empty() {
            return Err(IntentError::NotInPool(missing.into_iter().map(|(name, n)| (n, name.to_string())).collect()));
        }
        // A dealt pool is bound whole to every deck: what the library leaves out is the sideboard.
        if self.stack().is_some_and(|stack| stack.format.deals_from_one_stack()) {
            let rest = (0..own.len() as u32).filter(|&slot| unused[slot as usize].is_some());
            sideboard.extend(rest.map(DeckSource::Pool));
        }
        library.extend(basics);
        if library.len() + sideboard.len() > wire::max_deck_len::<G>() {
            return Err(IntentError::Invalid(format!("a deck holds at most {} cards", wire::max_deck_len::<G>())));
        }
        let names = |sources: &[DeckSource]| -> Vec<DeckCard> {
            let name = |source: &DeckSource| match *source {
                DeckSource::Pool(slot) => stack.names[own[slot as usize] as usize].clone(),
                DeckSource::Basic(land) => land.name().to_string(),
            };
            sources.iter().map(|source| DeckCard { name: name(source), back: BackId::default() }).collect()
        };
        let chosen =
            DeckList { library: names(&library), sideboard: names(&sideboard), commander: vec![], label: deck.label };
        self.deck = chosen;
        if let Some(limited) = self.limited.as_mut() {
            limited.sources = Some((library, sideboard));
        }
        Ok(())
    }

    /// The points and instances of a deck's cards in the order of its message (library pool cards, basic lands,
    /// sideboard pool cards), and the catalogue that reads them: every pool card of `owner`'s (whose places in the
    /// pool file the opponent does not know) and the deck's basic lands.
    fn pool_cards(stack: &Stack<G>, owner: Seat, split: &Split, own: Option<&[u32]>) -> (Vec<CardInstance>, Catalogue) {
        let id = &stack.match_id.0;
        let pool_instance = |index: u32| instance(id, owner, &stack.names[index as usize], "pool", index);
        let basics: Vec<(G::Element, CardInstance)> = split
            .numbered()
            .into_iter()
            .map(|(land, copy)| {
                let point = basic_point::<G>(&stack.match_id, owner, land.name(), copy);
                (point, instance(id, owner, land.name(), land.name(), copy))
            })
            .collect();
        let mut known: Vec<(G::Element, CardInstance)> =
            stack.points.iter().cloned().zip((0..).map(pool_instance)).collect();
        let instances = match own {
            Some(own) => {
                let pool = |slots: &[u32]| -> Vec<CardInstance> {
                    slots.iter().map(|&slot| pool_instance(own[slot as usize])).collect()
                };
                let mut instances = pool(&split.pool[..split.library_pool]);
                instances.extend(basics.iter().map(|(_, instance)| instance.clone()));
                instances.extend(pool(&split.pool[split.library_pool..]));
                instances
            }
            None => Vec::new(),
        };
        known.extend(basics);
        (instances, Catalogue::public::<G>(known))
    }

    /// Sends this player's deck built from its pool (`choose_pool_deck`) and puts it on the table.
    /// A deck is chosen only from a dealt pool (`choose_pool_deck`); should this engine come here otherwise, its own
    /// state is wrong, and it stops with an internal alert rather than send a deck it cannot prove.
    pub(super) fn send_pool_deck(&mut self) {
        let seat = self.seat;
        let chosen =
            self.limited.as_ref().and_then(|limited| Some((limited.sources.clone()?, limited.stack.as_ref()?)));
        let Some(((library, sideboard), stack)) = chosen else {
            return self.raise(
                Fault::new(AlertKind::Internal, "a pool deck to send with no pool dealt or no deck chosen"),
                None,
            );
        };
        let deal = stack.pool_len(seat) as u32;
        let split = Split::of(&library, &sideboard, deal, stack.format.deals_from_one_stack());
        let (Ok(split), Some(dealt), Some(own)) = (split, stack.dealt[seat].as_ref(), stack.own.clone()) else {
            return self.raise(Fault::new(AlertKind::Internal, "a chosen deck that does not fit the pool dealt"), None);
        };
        let seq = self.out.next_seq();
        let context = |what: &str| self.game.context(seq, format!("pool-deck/{}/{what}", seat.id_byte()));
        let key = LockKey::<G>::generate(&mut self.rng);
        let inputs: Vec<G::Element> = split.pool.iter().map(|&slot| dealt[slot as usize].clone()).collect();
        // A drafted pool is under its pool key once shuffled (`pool_shuffle.rs`), a dealt one under the stack key.
        let from = stack.pool_key.as_ref().unwrap_or(&stack.key);
        let (relocked, pool_proof) = key.relock_with_proof(Some(from), &inputs, &context("pool"), &mut self.rng);
        let points: Vec<G::Element> = split
            .numbered()
            .into_iter()
            .map(|(land, copy)| basic_point::<G>(&stack.match_id, seat, land.name(), copy))
            .collect();
        let (library_pool, sideboard_pool) = relocked.split(split.library_pool);
        let (locked, basic_proof) = if points.is_empty() {
            (library_pool.chain(sideboard_pool), None)
        } else {
            let (basics, proof) = key.lock_with_proof(&points, &context("basics"), &mut self.rng);
            (library_pool.chain(basics).chain(sideboard_pool), Some(proof))
        };
        let (instances, catalogue) = Self::pool_cards(stack, seat, &split, Some(&own));
        let difference = self.own_difference();
        let message = Message::PoolDeck {
            key: key.commitment().clone(),
            library: library.clone(),
            sideboard,
            forms: locked.cards.clone(),
            pool_proof: Some(pool_proof),
            basic_proof,
            label: self.deck.label.clone(),
            difference: difference.clone(),
        };
        let backs = vec![BackId::default(); instances.len()];
        let deck = OwnDeck { key, catalogue, locked, backs, library_len: library.len(), instances };
        self.enter_own_deck(&message, deck);
        self.announce_deck(seat, self.deck.label.clone(), difference);
    }

    /// The opponent's deck built from its pool: every pool card relocked from the form it was dealt in, every basic
    /// land its public point, all under the committed deck key.
    pub(super) fn receive_pool_deck(&mut self, envelope: &Envelope, deck: ReceivedPoolDeck<G>) -> Result<(), Fault> {
        let ReceivedPoolDeck { key, library, sideboard, forms, pool_proof, basic_proof, label, difference } = deck;
        let peer = self.seat.opponent();
        let Some(stack) = self.stack() else {
            return Err(Fault::new(AlertKind::Incompatible, "a deck built from a pool in a match without one"));
        };
        let Some(dealt) = stack.dealt[peer].as_ref() else {
            return Err(Fault::new(AlertKind::Unexpected, "a pool-deck before the deal"));
        };
        if self.game.catalogues.contains_key(&peer) {
            return Err(Fault::new(AlertKind::Unexpected, "a deck out of turn"));
        }
        let split = Split::of(&library, &sideboard, stack.pool_len(peer) as u32, stack.format.deals_from_one_stack())
            .map_err(|why| Fault::new(AlertKind::Unexpected, format!("a pool-deck: {why}")))?;
        let total = library.len() + sideboard.len();
        if library.is_empty() || total > wire::max_deck_len::<G>() || forms.len() != total {
            return Err(Fault::new(
                AlertKind::Malformed,
                format!("a pool-deck of {} + {} cards", library.len(), sideboard.len()),
            ));
        }
        if !wire::deck_label_fits(&label) {
            return Err(Fault::new(AlertKind::Malformed, "a deck label that is not short printable ASCII"));
        }
        self.check_difference(&difference, total)?;
        let context = |what: &str| self.game.context(envelope.seq, format!("pool-deck/{}/{what}", peer.id_byte()));
        let (library_len, pool_in_library) = (library.len(), split.library_pool);
        let mut forms = forms;
        let sideboard_forms = forms.split_off(library_len);
        let basic_forms = forms.split_off(pool_in_library);
        forms.extend(sideboard_forms);
        let inputs: Vec<G::Element> = split.pool.iter().map(|&slot| dealt[slot as usize].clone()).collect();
        let stack_key = stack.peer_pool_key.as_ref().or(stack.peer_key.as_ref());
        let stack_key =
            stack_key.ok_or_else(|| Fault::new(AlertKind::Unexpected, "a pool-deck before the shuffles"))?;
        let proof = pool_proof.ok_or_else(|| Fault::new(AlertKind::Malformed, "a pool-deck without its relock"))?;
        let relocked = key
            .verify_relock(Some(stack_key), &inputs, forms, &proof, &context("pool"))
            .map_err(|e| Fault::new(AlertKind::NotInDeck, format!("a deck card that is not its pool card: {e}")))?;
        let points: Vec<G::Element> = split
            .numbered()
            .into_iter()
            .map(|(land, copy)| basic_point::<G>(&stack.match_id, peer, land.name(), copy))
            .collect();
        let (library_pool, sideboard_pool) = relocked.split(pool_in_library);
        let locked = match basic_proof {
            None if points.is_empty() => library_pool.chain(sideboard_pool),
            Some(proof) if !points.is_empty() => {
                let basics = key
                    .verify_lock(&points, basic_forms, &proof, &context("basics"))
                    .map_err(|e| Fault::new(AlertKind::NotInDeck, format!("a basic land that is not one: {e}")))?;
                library_pool.chain(basics).chain(sideboard_pool)
            }
            _ => return Err(Fault::new(AlertKind::Malformed, "a pool-deck's basic-land proof does not fit its lands")),
        };
        let (_, catalogue) = Self::pool_cards(stack, peer, &split, None);
        let backs = vec![BackId::default(); total];
        self.enter_peer_deck(envelope, PeerDeck { key, catalogue, locked, backs, library_len });
        self.announce_deck(peer, label, difference);
        Ok(())
    }
}
