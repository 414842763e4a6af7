//! A deck's catalogue: how a player who learns a card's point reads what the card is,
//! without the card's owner learning that anything was read.
//!
//! A card's identity point (what is left once every lock is stripped) does not say which card
//! it is. When a player takes a face-down card from the opponent's library, only the taker may
//! learn it, so the owner cannot be asked. Instead each player publishes, with their deck, one
//! sealed entry per card: a tag and a ciphertext, both derived from the card's identity point.
//! Whoever holds the point finds the entry by its tag and opens it; without the point, entries
//! are opaque. Every entry has the same size, so name lengths do not leak, and entries are
//! sorted by tag, so their order says nothing. The catalogue is fixed before any card is
//! shuffled, so its owner cannot change what a card is once it knows where it lies.

use std::collections::BTreeMap;

use chacha20poly1305::aead::{Aead, KeyInit};
use chacha20poly1305::{ChaCha20Poly1305, Key, Nonce};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::card::CardInstance;
use super::group::Group;

/// Longest card name, in UTF-8 bytes.
pub const MAX_NAME_LEN: usize = 200;
/// Size of every sealed entry's plaintext.
const SEALED_LEN: usize = 320;

/// One sealed card of a catalogue, as the deck message carries it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CatalogueEntry {
    /// Derived from the card's identity point: how the holder of the point finds the entry.
    #[serde(with = "crate::serde_hex::array")]
    pub tag: [u8; 32],
    /// The card instance, sealed under a key derived from the same point.
    #[serde(with = "crate::serde_hex::vec")]
    pub sealed: Vec<u8>,
}

/// One player's deck list: sealed entries, or for a deck built from a limited pool, its cards' public points in
/// the clear (each such point is a hash anyone with the pool file computes, so sealing would hide nothing).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Catalogue {
    entries: BTreeMap<[u8; 32], Vec<u8>>,
    public: BTreeMap<Vec<u8>, CardInstance>,
}

/// Why a catalogue, or one of its entries, was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CatalogueError {
    /// No entry has the tag of this identity point: the card is not in the deck.
    #[error("no catalogue entry for this card")]
    Missing,
    /// The entry's tag matches but its seal does not open.
    #[error("the catalogue entry does not open with this card's point")]
    Sealed,
    /// The entry opens to something that is not a card instance.
    #[error("the catalogue entry is not a card description")]
    Malformed,
    /// The entry opens to a card of another owner or back than the table says.
    #[error("the catalogue entry describes another card")]
    WrongCard,
    /// Two entries share a tag: two cards with one identity point.
    #[error("two catalogue entries share a tag")]
    DuplicateTag,
    /// An entry whose size is not that of a sealed card.
    #[error("a catalogue entry has the wrong size")]
    EntrySize,
    /// A card name the fixed entry size cannot hold.
    #[error("card name longer than {MAX_NAME_LEN} bytes, or too long to seal once escaped")]
    NameTooLong,
}

/// Whether a card of this name can be sealed: at most [`MAX_NAME_LEN`] bytes, and its entry's JSON (in which a
/// quote or backslash takes two bytes and a control character six) fits the fixed entry size whatever the card's
/// owner, nonce and back. A name that does not is refused where the deck enters, never cut.
pub fn name_fits(name: &str) -> bool {
    let widest = CardInstance { owner: crate::Seat::GUEST, nonce: [0xff; 16], name: name.to_string(), back: u32::MAX };
    !name.is_empty()
        && name.len() <= MAX_NAME_LEN
        && serde_json::to_vec(&widest).is_ok_and(|json| json.len() <= SEALED_LEN)
}

fn derive(label: &[u8], point: &[u8]) -> [u8; 32] {
    Sha256::new().chain_update(b"fairdeck/v1/catalogue/").chain_update(label).chain_update(point).finalize().into()
}

impl Catalogue {
    /// Seals each instance under its identity point.
    pub fn seal<G: Group>(cards: &[(G::Element, CardInstance)]) -> Result<Self, CatalogueError> {
        let mut entries = BTreeMap::new();
        for (point, instance) in cards {
            if !name_fits(&instance.name) {
                return Err(CatalogueError::NameTooLong);
            }
            let point = G::encode_element(point);
            let mut plaintext = serde_json::to_vec(instance).map_err(|_| CatalogueError::Malformed)?;
            if plaintext.len() > SEALED_LEN {
                return Err(CatalogueError::NameTooLong);
            }
            // JSON never contains a NUL byte, so padding with NULs is unambiguous.
            plaintext.resize(SEALED_LEN, 0);
            let cipher = ChaCha20Poly1305::new(&Key::from(derive(b"key", &point)));
            // Each key seals exactly one message, so a fixed nonce is safe.
            let sealed =
                cipher.encrypt(&Nonce::from([0u8; 12]), plaintext.as_slice()).map_err(|_| CatalogueError::Malformed)?;
            if entries.insert(derive(b"tag", &point), sealed).is_some() {
                return Err(CatalogueError::DuplicateTag);
            }
        }
        Ok(Catalogue { entries, public: BTreeMap::new() })
    }

    /// A catalogue of cards whose points are public: each point reads as its instance.
    pub fn public<G: Group>(cards: Vec<(G::Element, CardInstance)>) -> Self {
        let public = cards.into_iter().map(|(point, instance)| (G::encode_element(&point), instance)).collect();
        Catalogue { entries: BTreeMap::new(), public }
    }

    /// Accepts a received catalogue; every entry must have the size of a sealed card.
    pub fn from_entries(list: Vec<CatalogueEntry>) -> Result<Self, CatalogueError> {
        let mut entries = BTreeMap::new();
        for entry in list {
            if entry.sealed.len() != SEALED_LEN + 16 {
                return Err(CatalogueError::EntrySize);
            }
            if entries.insert(entry.tag, entry.sealed).is_some() {
                return Err(CatalogueError::DuplicateTag);
            }
        }
        Ok(Catalogue { entries, public: BTreeMap::new() })
    }

    /// The entries as the deck message sends them, sorted by tag.
    pub fn entries(&self) -> Vec<CatalogueEntry> {
        self.entries.iter().map(|(tag, sealed)| CatalogueEntry { tag: *tag, sealed: sealed.clone() }).collect()
    }

    /// How many cards the catalogue names.
    pub fn len(&self) -> usize {
        self.entries.len() + self.public.len()
    }

    /// Whether it names no card at all.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Reads the card behind an identity point. Whether it is the card the caller expected
    /// (its owner, its back) is the caller's check.
    pub fn open<G: Group>(&self, point: &G::Element) -> Result<CardInstance, CatalogueError> {
        let encoded = G::encode_element(point);
        if let Some(instance) = self.public.get(&encoded) {
            return Ok(instance.clone());
        }
        let sealed = self.entries.get(&derive(b"tag", &encoded)).ok_or(CatalogueError::Missing)?;
        let cipher = ChaCha20Poly1305::new(&Key::from(derive(b"key", &encoded)));
        let plaintext =
            cipher.decrypt(&Nonce::from([0u8; 12]), sealed.as_slice()).map_err(|_| CatalogueError::Sealed)?;
        let json_len = plaintext.iter().position(|&b| b == 0).unwrap_or(plaintext.len());
        let instance: CardInstance =
            serde_json::from_slice(&plaintext[..json_len]).map_err(|_| CatalogueError::Malformed)?;
        if instance.name.is_empty() || instance.name.len() > MAX_NAME_LEN {
            return Err(CatalogueError::Malformed);
        }
        Ok(instance)
    }
}
