//! The table: zones, cards, players, and who knows what. Pure state with checked mutators;
//! the engine decides which mutation a message means.
//!
//! Everything here is public: both engines hold an identical `Table` at every point of the
//! host's message order. What a card *is* (its identity) is not in the table; each engine
//! keeps the identities it has learned apart.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::crypto::BackId;
use crate::ids::Seat;

/// A card's global id. Both players know every id; what card stands behind an id is
/// hidden until it is unlocked for someone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct CardId(pub u32);

impl fmt::Display for CardId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

/// The host's cards are numbered from 1, the guest's from this offset (as seed 001 adds 5000).
pub const GUEST_CARD_OFFSET: u32 = 100_000;

/// The kind of a zone: what it holds and who sees its cards.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ZoneKind {
    /// Private: nobody sees its cards or their order.
    Library,
    /// Its owner knows the cards, the opponent does not.
    Sideboard,
    /// Its owner knows the cards, the opponent does not.
    Hand,
    /// Public.
    Graveyard,
    /// Public ("removed from game").
    Exile,
    /// Cards at (x, y), face up (public) or face down.
    Play,
    /// Public, and only its owner's cards: the commanders, from the start of each game, and any card its owner
    /// puts there.
    Command,
}

impl ZoneKind {
    /// Every kind of zone, each player having one of each.
    pub const ALL: [ZoneKind; 7] = [
        ZoneKind::Library,
        ZoneKind::Sideboard,
        ZoneKind::Hand,
        ZoneKind::Graveyard,
        ZoneKind::Exile,
        ZoneKind::Play,
        ZoneKind::Command,
    ];

    /// Whether only the owner's own cards may be in a zone of this kind.
    pub fn owners_only(self) -> bool {
        matches!(self, ZoneKind::Library | ZoneKind::Sideboard | ZoneKind::Command)
    }

    /// The kind's name, as the wire and the command line spell it.
    pub fn name(self) -> &'static str {
        match self {
            ZoneKind::Library => "library",
            ZoneKind::Sideboard => "sideboard",
            ZoneKind::Hand => "hand",
            ZoneKind::Graveyard => "graveyard",
            ZoneKind::Exile => "exile",
            ZoneKind::Play => "play",
            ZoneKind::Command => "command",
        }
    }
}

/// A zone: one player's zone of one kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ZoneId {
    /// The player whose zone it is.
    pub owner: Seat,
    /// What kind of zone.
    pub kind: ZoneKind,
}

impl ZoneId {
    /// The zone of this kind of this player's.
    pub fn new(owner: Seat, kind: ZoneKind) -> Self {
        ZoneId { owner, kind }
    }

    /// This player's library.
    pub fn library(owner: Seat) -> Self {
        ZoneId::new(owner, ZoneKind::Library)
    }

    /// This player's hand.
    pub fn hand(owner: Seat) -> Self {
        ZoneId::new(owner, ZoneKind::Hand)
    }
}

impl fmt::Display for ZoneId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.owner, self.kind.name())
    }
}

/// Where in a zone a card goes. Index 0 is the top.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Position {
    /// Before the first card: index 0.
    Top,
    /// After the last card.
    Bottom,
    /// At this index, counted from the top; at most the zone's length.
    Index(u32),
}

/// Where a card lies in a play area.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Placement {
    /// Left to right.
    pub x: i32,
    /// Top to bottom.
    pub y: i32,
    /// Whether the card lies face down, its identity hidden from both players.
    pub face_down: bool,
}

/// Which players know a card's identity.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Knowledge {
    /// The host knows it.
    pub host: bool,
    /// The guest knows it.
    pub guest: bool,
}

impl Knowledge {
    /// No one knows the card: a locked card in a library.
    pub const NOBODY: Knowledge = Knowledge { host: false, guest: false };
    /// Both players know it: a public card.
    pub const BOTH: Knowledge = Knowledge { host: true, guest: true };

    /// Only this player knows the card.
    pub fn only(seat: Seat) -> Self {
        let mut knowledge = Knowledge::NOBODY;
        knowledge.add(seat);
        knowledge
    }

    /// Whether this player knows the card.
    pub fn knows(self, seat: Seat) -> bool {
        match seat {
            Seat::HOST => self.host,
            Seat::GUEST => self.guest,
        }
    }

    /// This player learns the card.
    pub fn add(&mut self, seat: Seat) {
        match seat {
            Seat::HOST => self.host = true,
            Seat::GUEST => self.guest = true,
        }
    }

    /// Everyone who knows the card in either.
    pub fn union(self, other: Knowledge) -> Knowledge {
        Knowledge { host: self.host || other.host, guest: self.guest || other.guest }
    }

    /// Whether anyone at all knows the card.
    pub fn is_anyone(self) -> bool {
        self.host || self.guest
    }
}

/// A card on the table: where it is and what it wears; never what it is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Card {
    /// Its id.
    pub id: CardId,
    /// Its owner, who took it to the table: its library and sideboard are the only ones it may enter.
    pub owner: Seat,
    /// Its back, which both players see.
    pub back: BackId,
    /// The zone it is in.
    pub zone: ZoneId,
    /// Only meaningful in a play area.
    pub placement: Placement,
    /// Whether it is turned sideways, in a play area.
    pub tapped: bool,
    /// Its counters in a play area, by name (`+1/+1`).
    pub counters: BTreeMap<String, i64>,
    /// Who knows its identity.
    pub known_to: Knowledge,
    /// The card in play this one is attached to (an aura, an equipment): both in play, cleared when either
    /// leaves play.
    pub attached_to: Option<CardId>,
    /// A token's power and toughness, given when it is created.
    pub power_toughness: Option<PowerToughness>,
}

/// A creature token's power and toughness ("1/1").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct PowerToughness {
    /// Power, the first number.
    pub power: i32,
    /// Toughness, the second number.
    pub toughness: i32,
}

impl fmt::Display for PowerToughness {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.power, self.toughness)
    }
}

/// The player value that holds a player's life: set when a game's play begins (`Event::Ready`) to 40 for a
/// player with a commander, 20 for any other, on both tables alike.
pub const LIFE: &str = "life";

/// A player at the table: its name and its numbers.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Player {
    /// The name from its hello.
    pub name: String,
    /// Life ([`LIFE`]) and any other per-player number ("poison", "energy"...).
    pub values: BTreeMap<String, i64>,
}

/// Why the table refused a change: a move, an order, a new card.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TableError {
    /// No card has this id.
    #[error("no card {0}")]
    NoCard(CardId),
    /// A card that is not in the zone an action names for it.
    #[error("card {card} is in {actual}, not {expected}")]
    NotInZone {
        /// The card.
        card: CardId,
        /// The zone it should be in.
        expected: ZoneId,
        /// The zone it is in.
        actual: ZoneId,
    },
    /// A position past the end of a zone.
    #[error("{zone} holds {len} cards, position {index} is outside it")]
    BadIndex {
        /// The zone.
        zone: ZoneId,
        /// The index asked for.
        index: u32,
        /// How many cards the zone holds.
        len: usize,
    },
    /// More cards asked for than a zone holds.
    #[error("{zone} has only {len} cards, {wanted} wanted")]
    NotEnoughCards {
        /// The zone.
        zone: ZoneId,
        /// How many cards it holds.
        len: usize,
        /// How many were asked for.
        wanted: u32,
    },
    /// A card put into another player's library, sideboard or command zone.
    #[error("only a card's owner's library, sideboard and command zone may hold it")]
    NotOwnersZone,
    /// An order that does not take each card of the zone once.
    #[error("not a permutation of the zone")]
    NotAPermutation,
    /// A card with this id is already on the table.
    #[error("card {0} already exists")]
    Duplicate(CardId),
}

/// The public table both engines hold alike: zones, cards, players, turn and phase.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Table {
    zones: BTreeMap<ZoneId, Vec<CardId>>,
    cards: BTreeMap<CardId, Card>,
    /// The host's, then the guest's.
    players: [Player; 2],
    /// The phase of the turn, as the active player named it.
    pub phase: String,
    /// The turn's number: how many `next-turn` actions there were.
    pub turn: u32,
    /// Whose turn it is.
    pub active: Option<Seat>,
}

impl Table {
    /// A table with every zone of both players, empty.
    pub fn new() -> Self {
        let mut table = Table::default();
        for owner in Seat::BOTH {
            for kind in ZoneKind::ALL {
                table.zones.insert(ZoneId::new(owner, kind), Vec::new());
            }
        }
        table
    }

    /// The card ids of a zone, top first.
    pub fn zone(&self, zone: ZoneId) -> &[CardId] {
        self.zones.get(&zone).map(Vec::as_slice).unwrap_or_default()
    }

    /// The card with this id, if it is on the table.
    pub fn card(&self, id: CardId) -> Option<&Card> {
        self.cards.get(&id)
    }

    /// Every card on the table, by id.
    pub fn cards(&self) -> impl Iterator<Item = &Card> {
        self.cards.values()
    }

    /// A player's name and values.
    pub fn player(&self, seat: Seat) -> &Player {
        &self.players[usize::from(seat == Seat::GUEST)]
    }

    /// A player's name and values, to change.
    pub fn player_mut(&mut self, seat: Seat) -> &mut Player {
        &mut self.players[usize::from(seat == Seat::GUEST)]
    }

    pub(crate) fn card_mut(&mut self, id: CardId) -> Result<&mut Card, TableError> {
        self.cards.get_mut(&id).ok_or(TableError::NoCard(id))
    }

    /// A library is dirty when anyone knows the identity (and so the place) of one of its cards.
    pub fn is_dirty(&self, library: Seat) -> bool {
        self.zone(ZoneId::library(library)).iter().any(|id| self.cards[id].known_to.is_anyone())
    }

    /// Adds a new card on top of (or at the bottom of) a zone.
    pub(crate) fn add_card(&mut self, card: Card, position: Position) -> Result<(), TableError> {
        if self.cards.contains_key(&card.id) {
            return Err(TableError::Duplicate(card.id));
        }
        let (id, zone) = (card.id, card.zone);
        let index = self.insertion_index(zone, position)?;
        self.cards.insert(id, card);
        self.zones.entry(zone).or_default().insert(index, id);
        Ok(())
    }

    fn insertion_index(&self, zone: ZoneId, position: Position) -> Result<usize, TableError> {
        let len = self.zone(zone).len();
        match position {
            Position::Top => Ok(0),
            Position::Bottom => Ok(len),
            Position::Index(index) if (index as usize) <= len => Ok(index as usize),
            Position::Index(index) => Err(TableError::BadIndex { zone, index, len }),
        }
    }

    /// Checks that a move is possible without doing it.
    pub fn check_move(&self, id: CardId, to: ZoneId, position: Position) -> Result<(), TableError> {
        let card = self.card(id).ok_or(TableError::NoCard(id))?;
        if to.kind.owners_only() && card.owner != to.owner {
            return Err(TableError::NotOwnersZone);
        }
        let len = self.zone(to).len() - usize::from(card.zone == to);
        if let Position::Index(index) = position
            && index as usize > len
        {
            return Err(TableError::BadIndex { zone: to, index, len });
        }
        Ok(())
    }

    /// Moves a card; a card leaving a play area loses its placement, tap, counters and attachments (its own, and
    /// those of the cards attached to it).
    pub(crate) fn move_card(
        &mut self,
        id: CardId,
        to: ZoneId,
        position: Position,
        placement: Placement,
    ) -> Result<(), TableError> {
        self.check_move(id, to, position)?;
        let from = self.cards[&id].zone;
        // Every zone exists from `Table::new`: the entry is always there.
        self.zones.entry(from).or_default().retain(|&c| c != id);
        let index = self.insertion_index(to, position)?;
        self.zones.entry(to).or_default().insert(index, id);
        let card = self.card_mut(id)?;
        card.zone = to;
        if to.kind == ZoneKind::Play {
            card.placement = placement;
        } else {
            card.placement = Placement::default();
            card.tapped = false;
            card.counters.clear();
            card.attached_to = None;
            // Only a card in play has cards attached to it (`check_invariants`): a draw looks at no other card.
            if from.kind == ZoneKind::Play {
                for other in self.cards.values_mut() {
                    if other.attached_to == Some(id) {
                        other.attached_to = None;
                    }
                }
            }
        }
        Ok(())
    }

    /// Replaces a zone's order by a permutation of it (`new[i] = old[permutation[i]]`).
    pub(crate) fn permute(&mut self, zone: ZoneId, permutation: &[u32]) -> Result<(), TableError> {
        let old = self.zone(zone).to_vec();
        if permutation.len() != old.len() {
            return Err(TableError::NotAPermutation);
        }
        let mut seen = vec![false; old.len()];
        let mut new = Vec::with_capacity(old.len());
        for &k in permutation {
            let slot = seen.get_mut(k as usize).ok_or(TableError::NotAPermutation)?;
            if std::mem::replace(slot, true) {
                return Err(TableError::NotAPermutation);
            }
            new.push(old[k as usize]);
        }
        self.zones.insert(zone, new);
        Ok(())
    }

    /// The top `count` cards of a zone.
    pub fn top(&self, zone: ZoneId, count: u32) -> Result<Vec<CardId>, TableError> {
        let cards = self.zone(zone);
        if count as usize > cards.len() {
            return Err(TableError::NotEnoughCards { zone, len: cards.len(), wanted: count });
        }
        Ok(cards[..count as usize].to_vec())
    }

    /// The invariants both engines keep after every step: every card in exactly one zone,
    /// the one its record names; libraries and sideboards hold only their owner's cards.
    pub fn check_invariants(&self) -> Result<(), String> {
        let mut seen = BTreeMap::new();
        for (zone, ids) in &self.zones {
            for id in ids {
                if let Some(other) = seen.insert(*id, *zone) {
                    return Err(format!("card {id} is in {other} and {zone}"));
                }
                let card = self.cards.get(id).ok_or_else(|| format!("{zone} holds unknown card {id}"))?;
                if card.zone != *zone {
                    return Err(format!("card {id} is listed in {zone} but says {}", card.zone));
                }
                if zone.kind.owners_only() && card.owner != zone.owner {
                    return Err(format!("card {id} of the {} is in {zone}", card.owner));
                }
                if let Some(host) = card.attached_to {
                    let in_play = |c: &Card| c.zone.kind == ZoneKind::Play;
                    if !in_play(card) || !self.cards.get(&host).is_some_and(in_play) {
                        return Err(format!("card {id} is attached to {host} outside play"));
                    }
                }
            }
        }
        if seen.len() != self.cards.len() {
            return Err(format!("{} cards but {} placed in zones", self.cards.len(), seen.len()));
        }
        Ok(())
    }

    /// A digest of the public table, which both players compare at each turn. Who knows
    /// which card is left out: a shuffle's end resets it at a different moment on each side.
    pub fn digest(&self) -> [u8; 32] {
        let mut hasher = Sha256::new();
        let cards: BTreeMap<&CardId, Card> =
            self.cards.iter().map(|(id, card)| (id, Card { known_to: Knowledge::NOBODY, ..card.clone() })).collect();
        let state = crate::codec::encode(&(
            &self.zones.iter().collect::<Vec<_>>(),
            &cards,
            &self.players,
            &self.phase,
            self.turn,
            self.active,
        ));
        hasher.update(state);
        hasher.finalize().into()
    }
}
