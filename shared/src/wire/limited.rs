//! The wire types of limited play: the format the host offers, and where each card of a deck built from a pool
//! comes from.

use std::fmt;

use serde::{Deserialize, Serialize};

/// Most cards in one pool file: the whole list is locked and shuffled by both players as one stack.
pub const MAX_POOL_LEN: usize = 1000;
/// Most pool cards one player may be dealt.
pub const MAX_DEAL: u32 = 500;

/// A limited format, as the host offers it and both players play it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LimitedFormat {
    /// Sealed deck from a cube: each player is dealt `cards` cards of the pool file, unseen by the other.
    Sealed {
        /// How many cards each player is dealt.
        cards: u32,
    },
    /// Uniform deck (seed 004, 4.6): both players build from the whole pool file, a public list; which cards each
    /// chose stays hidden from the other until the audit.
    Uniform,
    /// Sealed deck from a set's boosters: each player opens `boosters` boosters of an MTGJSON set file, unseen by
    /// the other; the layouts are drawn by a shared random round, each sheet a stack both players shuffle.
    SealedBoosters {
        /// How many boosters each player opens.
        boosters: u32,
    },
    /// Grid draft from a cube: `grids` times, nine cards of the stack are shown to both as a 3×3 grid; one player
    /// takes a row or a column, the other a row or a column of what is left, the rest is set aside. The first to
    /// pick alternates, the host first.
    Grid {
        /// How many grids.
        grids: u32,
    },
    /// Winston draft from a cube: `cards` cards of the stack in play, three piles of them face down; in turn each
    /// player looks at the first pile and takes it or passes it (a card of the stack added to it) and looks at the
    /// next; passing the last pile takes the stack's top card unseen. The host first.
    Winston {
        /// How many cards of the stack are drafted.
        cards: u32,
    },
    /// Booster draft for two from a cube: `packs` rounds; in each, each player opens a pack of `cards` cards of the
    /// stack, takes one card and passes the rest to the other, who takes one and passes it back, until both packs
    /// are empty. The host's pack is opened first in the stack's order.
    Draft {
        /// How many packs each player opens.
        packs: u32,
        /// How many cards a pack holds.
        cards: u32,
    },
    /// Booster draft for two from a set's boosters: as `Draft`, each pack one of the set's boosters, the layouts
    /// drawn as for sealed.
    BoosterDraft {
        /// How many boosters each player opens.
        packs: u32,
    },
}

/// A Winston drafter's answer to the pile it looks at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PileChoice {
    /// Take the whole pile.
    Take,
    /// Leave it, a card of the stack added to it, and look at the next (after the last: take the stack's top card).
    Pass,
}

/// Most grids of a grid draft.
pub const MAX_GRIDS: u32 = 100;
/// Most packs each player opens in a booster draft.
pub const MAX_PACKS: u32 = 24;

/// A row or a column of a grid draft's 3×3 grid (0 to 2, top to bottom and left to right).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GridLine {
    /// A row.
    Row(u8),
    /// A column.
    Column(u8),
}

impl GridLine {
    /// The grid's cells (`0..9`, row by row) on this line; none for a line beyond the grid.
    pub fn cells(self) -> Vec<usize> {
        match self {
            GridLine::Row(row) if row < 3 => (0..3).map(|column| 3 * usize::from(row) + column).collect(),
            GridLine::Column(column) if column < 3 => (0..3).map(|row| 3 * row + usize::from(column)).collect(),
            _ => Vec::new(),
        }
    }
}

impl fmt::Display for GridLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GridLine::Row(row) => write!(f, "row {}", row + 1),
            GridLine::Column(column) => write!(f, "column {}", column + 1),
        }
    }
}

impl LimitedFormat {
    /// Whether the two pools are dealt from one stack both shuffled (disjoint), rather than each player's being the
    /// whole list.
    pub fn deals_from_one_stack(self) -> bool {
        !matches!(self, LimitedFormat::Uniform)
    }

    /// Whether the pools are drafted from cards shown to both, rather than dealt unseen.
    pub fn is_draft(self) -> bool {
        matches!(
            self,
            LimitedFormat::Grid { .. }
                | LimitedFormat::Winston { .. }
                | LimitedFormat::Draft { .. }
                | LimitedFormat::BoosterDraft { .. }
        )
    }
}

impl fmt::Display for LimitedFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LimitedFormat::Sealed { cards } => write!(f, "sealed, {cards} cards each"),
            LimitedFormat::Uniform => write!(f, "uniform, both building from the whole list"),
            LimitedFormat::SealedBoosters { boosters } => write!(f, "sealed, {boosters} boosters each"),
            LimitedFormat::Grid { grids } => write!(f, "grid draft, {grids} grids"),
            LimitedFormat::Winston { cards } => write!(f, "Winston draft, {cards} cards"),
            LimitedFormat::Draft { packs, cards } => write!(f, "booster draft, {packs} packs of {cards} cards each"),
            LimitedFormat::BoosterDraft { packs } => write!(f, "booster draft, {packs} boosters each"),
        }
    }
}

/// The SHA-256 of a pool file's bytes: both players must hold the same file.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct PoolHash(#[serde(with = "crate::serde_hex::array")] pub [u8; 32]);

impl fmt::Display for PoolHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&hex::encode(&self.0[..8]))
    }
}

impl fmt::Debug for PoolHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PoolHash({self})")
    }
}

/// A basic land: the cards a limited deck may add beyond its pool, as many as its owner likes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BasicLand {
    /// Plains.
    Plains,
    /// Island.
    Island,
    /// Swamp.
    Swamp,
    /// Mountain.
    Mountain,
    /// Forest.
    Forest,
    /// Wastes.
    Wastes,
}

impl BasicLand {
    /// Every basic land.
    pub const ALL: [BasicLand; 6] = [
        BasicLand::Plains,
        BasicLand::Island,
        BasicLand::Swamp,
        BasicLand::Mountain,
        BasicLand::Forest,
        BasicLand::Wastes,
    ];

    /// The card's name.
    pub fn name(self) -> &'static str {
        match self {
            BasicLand::Plains => "Plains",
            BasicLand::Island => "Island",
            BasicLand::Swamp => "Swamp",
            BasicLand::Mountain => "Mountain",
            BasicLand::Forest => "Forest",
            BasicLand::Wastes => "Wastes",
        }
    }

    /// The basic land of this name, if it is one (case-insensitive, as deck files are written by hand).
    pub fn named(name: &str) -> Option<BasicLand> {
        BasicLand::ALL.into_iter().find(|land| land.name().eq_ignore_ascii_case(name))
    }
}

/// Where one card of a deck built from a pool comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DeckSource {
    /// The sender's pool card at this position of its deal (`0..` the format's `dealt`).
    Pool(u32),
    /// A basic land, public: its point is a hash anyone can compute (`crypto::basic_point`).
    Basic(BasicLand),
}
