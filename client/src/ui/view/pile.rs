//! What the player looks through over the table: a pile, card by card, or the open search, scry or surveil.

use fairdeck_shared::crypto::Group;
use fairdeck_shared::engine::Engine;
use fairdeck_shared::table::CardId;
use fairdeck_shared::wire::PeekPurpose;

use crate::command::{Spec, table};
use crate::session::Browsing;
use crate::ui::table_view::{CardView, Side, TableView};

/// A pile this player may look through: either player's graveyard or exile, or this player's sideboard.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pile {
    Graveyard(Side),
    Exile(Side),
    Command(Side),
    Sideboard,
}

impl Pile {
    /// The pile named by the words after `view`: `[opponent] graveyard|exile|command`, or `sideboard`.
    pub fn parse(words: &str) -> Result<Pile, String> {
        let usage = "usage: view [opponent] graveyard|exile|command, or view sideboard";
        let words: Vec<&str> = words.split_whitespace().collect();
        let (side, pile) = match words[..] {
            ["opponent", pile] => (Side::Opponent, pile),
            [pile] => (Side::Mine, pile),
            _ => return Err(usage.into()),
        };
        match (pile, side) {
            ("graveyard", _) => Ok(Pile::Graveyard(side)),
            ("exile", _) => Ok(Pile::Exile(side)),
            ("command", _) => Ok(Pile::Command(side)),
            ("sideboard", Side::Mine) => Ok(Pile::Sideboard),
            ("sideboard", Side::Opponent) => Err("the opponent's sideboard is hidden".into()),
            _ => Err(usage.into()),
        }
    }

    /// The pile in words, for the title of its view.
    pub fn name(self, table: &TableView) -> String {
        let whose = |side| match side {
            Side::Mine => "Your".to_string(),
            Side::Opponent => format!("{}'s", table.opponent.name),
        };
        match self {
            Pile::Graveyard(side) => format!("{} graveyard", whose(side)),
            Pile::Exile(side) => format!("{} exile", whose(side)),
            Pile::Command(side) => format!("{} command zone", whose(side)),
            Pile::Sideboard => "Your sideboard".to_string(),
        }
    }

    /// The pile's cards on `table`, top first.
    pub fn cards(self, table: &TableView) -> &[CardView] {
        match self {
            Pile::Graveyard(side) => &table.side(side).graveyard,
            Pile::Exile(side) => &table.side(side).exile,
            Pile::Command(side) => &table.side(side).command,
            Pile::Sideboard => &table.me.sideboard,
        }
    }
}

/// The open search, scry or surveil: the peeked cards of the player's library, top first, with the names this
/// player knows, listed over the table until `done` (`library_view` draws it and reads its keys).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LibraryView {
    pub purpose: PeekPurpose,
    pub cards: Vec<(CardId, Option<String>)>,
    /// The first card listed, when they do not all fit.
    pub scroll: usize,
}

impl LibraryView {
    pub fn new<G: Group>(open: &Browsing, engine: &Engine<G>) -> LibraryView {
        let name = |card: CardId| engine.identity(card).map(|identity| identity.name.clone());
        LibraryView {
            purpose: open.purpose,
            cards: open.cards.iter().map(|&card| (card, name(card))).collect(),
            scroll: 0,
        }
    }

    /// The commands that place the cards, for the overlay's foot.
    pub fn hint(&self) -> String {
        let done = table::DONE.name;
        let cards = |spec: &Spec| format!(": {} CARD…", spec.name);
        match self.purpose {
            PeekPurpose::Search => format!(": {} CARD [ZONE] · Esc: {done} (shuffles)", table::TAKE.name),
            PeekPurpose::Scry => format!("{} · {} · Esc: {done}", cards(&table::TOP), cards(&table::BOTTOM)),
            PeekPurpose::Surveil => format!("{} · {} · Esc: {done}", cards(&table::TOP), cards(&table::GRAVE)),
            PeekPurpose::Look => format!("Esc: {done}"),
        }
    }

    /// The lines listed: `#12 Lightning Bolt`, the first marked as the top.
    pub fn lines(&self) -> Vec<String> {
        self.cards
            .iter()
            .enumerate()
            .map(|(i, (card, name))| {
                let name = name.as_deref().unwrap_or("unknown card");
                if i == 0 { format!("{card} {name} (top)") } else { format!("{card} {name}") }
            })
            .collect()
    }
}
