//! The vocabulary of the command table: what a command line asks for ([`Command`]), one entry of the table
//! ([`Spec`]), its single-key shortcuts ([`Key`]), and what an entry's parser reads ([`Args`]).

use std::path::PathBuf;

use fairdeck_shared::Seat;
use fairdeck_shared::table::ZoneId;
use fairdeck_shared::wire::Action;

/// What one command line asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    Act(Action),
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
    /// Hosting, before the opponent proved the code: new words, and the seat to the next guest.
    NewCode,
    Table,
    Wait,
    Quit,
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
