//! The vocabulary of the command table: what a command line asks for ([`Command`]), one entry of the table
//! ([`Spec`]), its single-key shortcuts ([`Key`]), and what an entry's parser reads ([`Args`]).

use std::path::PathBuf;

use fairdeck_shared::Seat;
use fairdeck_shared::table::{Card, CardId, Placement, Position, ZoneId, ZoneKind};
use fairdeck_shared::wire::{Action, PeekPurpose};

use super::resolve::Reach;

/// What one command line asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    Act(Action),
    /// An action on one card, named by id or by name: the session finds the card on its table first.
    OnCard(CardRef, CardAct),
    Chat(String),
    /// End the game: reveal this player's deck key for the opponent's audit.
    End,
    /// Ask for the next game of the match, with another deck file (after sideboarding) or the
    /// same deck.
    NewGame(Option<PathBuf>),
    /// End the game on the opponent's silence: it forfeits.
    Forfeit,
    /// Ask the opponent to show its zone (the top N cards, or all).
    Ask(ZoneId, Option<u32>),
    /// Decline the opponent's request to see one of this player's zones.
    Refuse(ZoneId),
    /// Look at the top N cards of the library (all of it for a search) for `purpose`, in a view that stays open
    /// until `done`.
    Browse(PeekPurpose, Option<u32>),
    /// While a search is open: one of the searched cards into a zone of this player's.
    Take(CardRef, ZoneKind),
    /// While a scry or surveil is open: the named cards, in the order given, to the top, the bottom or the
    /// graveyard.
    Place(Placing, Vec<CardRef>),
    /// Close the open search (shuffling the library), scry or surveil.
    Done,
    /// Reveal every card of this player's hand to the opponent.
    RevealHand,
    /// Look at the top card of this player's library and reveal it to both.
    RevealTop,
    /// Hosting, before the opponent proved the code: new words, and the seat to the next guest.
    NewCode,
    Table,
    Wait,
    Quit,
}

/// Where a scry or surveil puts the cards it names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placing {
    /// On top of the library, the first named topmost.
    Top,
    /// At the bottom of the library, the last named bottommost.
    Bottom,
    /// Into the graveyard (surveil only).
    Graveyard,
}

/// A card as a command line names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CardRef {
    /// `12` or `#12`: taken as it is, the engine says whether it fits.
    Id(CardId),
    /// A name or the start of one (of the name or of a word in it), as typed, quotes removed.
    Name(String),
}

/// What a command does to the one card it names, once found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CardAct {
    /// Into `area`, the player's own play area, at `placement`.
    Play {
        area: ZoneId,
        placement: Placement,
    },
    Move {
        to: ZoneId,
        position: Position,
    },
    /// To both players, or to the one seat.
    Reveal {
        to: Option<Seat>,
    },
    /// Tapped (`true`) or untapped.
    Tap(bool),
    /// A counter's new value; `None` removes it.
    Counter {
        key: String,
        value: Option<i64>,
    },
}

impl CardAct {
    /// The action on `card`.
    pub fn action(&self, card: CardId) -> Action {
        match self {
            CardAct::Play { area, placement } => {
                Action::Move { card, to: *area, position: Position::Top, placement: *placement }
            }
            CardAct::Move { to, position } => {
                Action::Move { card, to: *to, position: *position, placement: Placement::default() }
            }
            CardAct::Reveal { to } => Action::Reveal { cards: vec![card], to: *to },
            CardAct::Tap(tapped) => Action::Tap { card, tapped: *tapped },
            CardAct::Counter { key, value } => Action::SetCardValue { card, key: key.clone(), value: *value },
        }
    }

    /// Where a card named by name is looked for.
    pub fn reach(&self) -> Reach {
        match self {
            CardAct::Play { .. } => Reach::ToPlay,
            CardAct::Move { to, .. } => Reach::Anywhere { but: *to },
            CardAct::Reveal { .. } => Reach::Unseen,
            CardAct::Tap(_) | CardAct::Counter { .. } => Reach::InPlay,
        }
    }

    /// Among copies of one card in one zone, whether this one is the better pick: the one the action changes
    /// (an untapped copy for `tap`, a tapped one for `untap`).
    pub fn prefers(&self, card: &Card) -> bool {
        match self {
            CardAct::Tap(tap) => card.tapped != *tap,
            _ => true,
        }
    }
}

/// One command: everything the parser, `--help`, the keys and the `?` overlay say about it.
#[derive(Debug)]
pub struct Spec {
    /// The first word of the line.
    pub name: &'static str,
    /// The arguments as the help shows them (`CARD at X,Y [facedown]`); empty when there are none.
    pub args: &'static str,
    /// What it does, in one line.
    pub about: &'static str,
    /// A line that runs it, arguments and all (the tests parse every one).
    pub example: &'static str,
    /// Its single keys on the terminal table, if any.
    pub keys: &'static [Key],
    /// Reads the line into a [`Command`], or says what was expected.
    pub parse: fn(&Args) -> Result<Command, String>,
}

impl Spec {
    /// The name and its arguments: `draw N`.
    pub fn usage(&self) -> String {
        if self.args.is_empty() { self.name.to_string() } else { format!("{} {}", self.name, self.args) }
    }
}

/// A single-key shortcut of the terminal table, while the command line is closed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Key {
    /// Runs the command, which takes no argument.
    Runs(char),
    /// Runs `line` at once (`draw 1`): `about` says what that does.
    RunsLine { key: char, line: &'static str, about: &'static str },
    /// Opens the command line with the command's name typed, for the player to complete.
    Prefills(char),
}

/// A command line as an entry's parser reads it.
pub struct Args<'a> {
    pub spec: &'a Spec,
    /// Everything after the name, trimmed (`say` takes it whole).
    pub rest: &'a str,
    /// `rest` in words.
    pub words: Vec<&'a str>,
    /// Whose command it is: `opponent` and zone names are read from this seat.
    pub seat: Seat,
}

impl Args<'_> {
    /// `usage: draw N`.
    pub fn usage(&self) -> String {
        format!("usage: {}", self.spec.usage())
    }

    /// `usage: draw N (note)`.
    pub fn usage_with(&self, note: &str) -> String {
        format!("{} ({note})", self.usage())
    }

    /// `command`, if the line has no argument.
    pub fn none(&self, command: Command) -> Result<Command, String> {
        if self.words.is_empty() { Ok(command) } else { Err(format!("`{}` takes no argument", self.spec.name)) }
    }
}
