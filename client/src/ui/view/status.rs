//! The state shown around the table: what it is about, the relay and the opponent, set-up, the command line, and
//! what covers the table.

use fairdeck_shared::wire::LimitedFormat;

use super::Pile;

/// What the table is about, for its hint line and set-up panel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// A game: the table's keys.
    Playing,
    /// A limited deck being built from the pool.
    Building,
    /// A draft under way, of this format.
    Drafting(LimitedFormat),
}

/// A deck's label (its hash) as shown at the start of a game, and whether it differs from the last game's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeckLabel {
    pub label: String,
    pub changed: bool,
}

/// The game's spectators, as the relay counts them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Watchers {
    /// Both players' spectators.
    pub count: u32,
    /// Whether watching is open (neither player turned it off).
    pub open: bool,
    /// The delay in turns.
    pub delay: u32,
}

/// This player's connection to the relay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RelayLink {
    Connecting,
    Up,
    Reconnecting,
}

/// The opponent, as the relay reports them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PeerState {
    /// Nobody took the other seat yet.
    Waiting,
    Present,
    /// Their connection dropped; the relay holds their seat.
    Away,
    /// They left the room for good.
    Gone,
}

/// How far the game's set-up is: the key exchange, the hello, then each library locked, shuffled and
/// verified.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Setup {
    /// The game of the match being set up, from 1.
    pub game: u32,
    pub channel: bool,
    pub hello: bool,
    pub shuffled: u32,
    pub libraries: u32,
    pub ready: bool,
}

impl Setup {
    /// The share of set-up done, from 0 to 1.
    pub fn ratio(&self) -> f64 {
        if self.ready {
            return 1.0;
        }
        let done = u32::from(self.channel) + u32::from(self.hello) + self.shuffled;
        let total = 2 + self.libraries.max(1);
        f64::from(done.min(total)) / f64::from(total)
    }

    /// What set-up is doing now, in words.
    pub fn stage(&self) -> String {
        if self.ready {
            "Both libraries are shuffled and verified".to_string()
        } else if !self.channel {
            "Waiting for the opponent and the key exchange".to_string()
        } else if !self.hello {
            "Exchanging hellos and deck commitments".to_string()
        } else {
            format!("Locking, shuffling and verifying the libraries: {} of {} done", self.shuffled, self.libraries)
        }
    }
}

/// The command line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Prompt {
    pub text: String,
    /// Keys go to the command line (else they are shortcuts).
    pub focused: bool,
    /// Commands entered, oldest first, for Up and Down.
    pub history: Vec<String>,
    /// Where Up/Down is in the history; `None` when editing a new line.
    pub recalled: Option<usize>,
}

/// What covers the table, if anything.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Overlay {
    None,
    Help,
    ConfirmQuit,
    /// Whether to run the line a single key stands for ([`View::asked`](super::View::asked)): y runs it, any other key does not.
    Confirm,
    /// A card's text ([`View::card_text`](super::View::card_text)).
    Card,
    /// A pile, card by card, with ids.
    Pile(Pile),
}
