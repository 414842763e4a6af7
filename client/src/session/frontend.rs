//! The front-end contract: what a session needs from the player's side ([`Frontend`]) and everything it
//! tells the player ([`Output`]). Scripted mode ([`crate::script`]) and the terminal table ([`crate::ui`])
//! are the two front ends.

use std::future::Future;
use std::path::PathBuf;

use fairdeck_shared::crypto::Group;
use fairdeck_shared::engine::{Engine, Event, Intent};
use fairdeck_shared::wire::PeekPurpose;
use serde::Serialize;

use super::building::{PoolLine, Tally};
use super::spectators::OpeningFailure;
use super::wait_clock::{AbsenceNews, WaitNews, Waiting};
use crate::command::{Browsing, ErrorKind, TopWatch};
use crate::deck::DeckWarning;

/// The player's side of a session. The session calls `next_line` in every turn of its loop and shows
/// every output as it happens, with the engine as it stands after it.
pub trait Frontend {
    /// The player's next command line (a scripted-mode command), or `None` when the player's input has
    /// ended, which is an implicit `quit`. Must be cancel-safe: the session drops this future whenever
    /// the relay, a reconnection or the session's timer is ready first.
    fn next_line(&mut self) -> impl Future<Output = Option<String>>;
    /// Shows what happened; an error here ends the session.
    fn show<G: Group>(&mut self, output: Output, engine: &Engine<G>) -> std::io::Result<()>;
}

/// What the session tells the player, besides the engine's own events. Scripted mode prints each as it
/// serializes (`{"event": "paired"}`): the names and fields are stable, scripts rely on them. The variants marked
/// `skip` need the engine to be written (scripted mode writes them itself) or are not for scripts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Output {
    /// The deck file was read.
    Deck {
        hash: String,
        main: u32,
        sideboard: u32,
        /// The commanders' names, for the command zone.
        commander: Vec<String>,
    },
    /// `sideboard`: the cards brought in and taken out (by their names in the deck), and the next game's deck, which
    /// `new-game` takes: its main deck and sideboard sizes and its hash.
    Sideboarded {
        cards_in: Vec<(u32, String)>,
        cards_out: Vec<(u32, String)>,
        main: u32,
        sideboard: u32,
        hash: String,
    },
    /// A deck check's warning about the deck file `file` (`fairdeck deck` prints the same): the game goes on.
    DeckWarning {
        file: String,
        #[serde(flatten)]
        warning: DeckWarning,
    },
    /// The code to give the other player (hosting only), again after a wrong code or `new-code`. A secret: a
    /// front end shows it, never logs it.
    #[serde(serialize_with = "json::code")]
    Code(String),
    /// Hosting: a guest joined with another code (or broke the key exchange) and was sent away. `attempts`
    /// counts them on this code; while `reopened`, the game waits for the next guest, else `new-code` is needed.
    WrongCodeTried {
        attempts: u32,
        reopened: bool,
    },
    /// A relay serves in this program (`host --serve`, and a resumed game of one) on `listen`: the guest joins with
    /// `--relay` and `relay`, or, when no address of this machine was found, with its LAN address and this port.
    Serving {
        listen: std::net::SocketAddr,
        relay: Option<String>,
    },
    /// The relay seated both players.
    Paired,
    /// The game is saved as it goes in this file (`fairdeck resume` continues it).
    #[serde(serialize_with = "json::file")]
    Saved(PathBuf),
    /// A saved game was read back: the table stands as it did after `moves` actions; it goes on at `relay`.
    Restored {
        #[serde(rename = "file")]
        path: PathBuf,
        moves: u64,
        relay: String,
        /// The game's events so far, replayed from the save, for the terminal's log (a script has its own record).
        /// The events of a draft's standing are not among them: the session shows them again, as they stand.
        #[serde(skip)]
        history: Vec<Event>,
    },
    /// At the game's rendezvous on the relay: the opponent is there too, or it is awaited.
    Rendezvous {
        peer_here: bool,
    },
    /// The code to give spectators (`fairdeck watch CODE`): after `watch-code`, and again if the relay gave the
    /// watch seats another number. A secret, as the game's code.
    #[serde(serialize_with = "json::code")]
    WatchCode(String),
    /// A spectator at watch seat `watcher` had the player's answer to its opening and did not prove the watch
    /// code (`failure` says how). `attempts` counts them on this watch code; once `closed`, no spectator comes in
    /// until `new-watch-code`, and those watching go on.
    WrongWatchCodeTried {
        watcher: u8,
        failure: OpeningFailure,
        attempts: u32,
        closed: bool,
    },
    /// The relay's count of spectators of each seat, whether watching is open, and the delay in turns (the
    /// larger of both players' choices).
    Watchers {
        host: u8,
        guest: u8,
        open: bool,
        delay: u32,
    },
    /// The peer proved it knows the code: the end-to-end channel is up.
    #[serde(rename = "channel", serialize_with = "json::established")]
    ChannelEstablished,
    /// The peer's connection to the relay is gone; the relay holds its seat for `hold_ms`.
    PeerAway {
        hold_ms: u64,
    },
    PeerBack,
    /// The peer left the room for good (`left` or `timeout`).
    PeerGone {
        reason: &'static str,
    },
    /// The relay is restarting and asked to come back after a while.
    RelayRestarting {
        reconnect_after_ms: u64,
    },
    /// This player's connection to the relay dropped: the session is reconnecting, and takes commands
    /// meanwhile.
    #[serde(serialize_with = "json::detail")]
    RelayLost(String),
    /// The seat was taken back with its token; whether the opponent holds its seat too.
    Resumed {
        peer_here: bool,
    },
    /// The relay reported an error, or sent something unreadable: an `alert` of kind `relay`.
    #[serde(rename = "alert", serialize_with = "json::relay_alert")]
    RelayAlert(String),
    /// A command was refused before it changed anything, for the reason `kind` says: an `error` event with the
    /// `command`.
    #[serde(rename = "error")]
    CommandError {
        kind: ErrorKind,
        command: String,
        message: String,
    },
    /// A search, scry or surveil is open on these cards of this player's library, top first (the ones still
    /// there); shown once its peek is answered and after each card placed.
    #[serde(skip)]
    Browsing(Browsing),
    /// The search (then shuffled), scry or surveil was closed with `done`.
    #[serde(serialize_with = "json::purpose")]
    BrowsingClosed(PeekPurpose),
    /// The top card of the library is from now on kept looked at or revealed, or (`None`) no longer.
    #[serde(serialize_with = "json::watch")]
    TopWatch(Option<TopWatch>),
    /// Limited play: how the deck built from the pool stands after `add`, `remove` or `basics`: pool cards in
    /// it, basic lands, pool cards left for the sideboard.
    Building(Tally),
    /// Limited play, `pool`: the pool by name, with how many of each are in the deck.
    PoolListed {
        cards: Vec<PoolLine>,
    },
    /// Limited play, `done`: the deck built was written to this deck file, and sent.
    #[serde(serialize_with = "json::file")]
    DeckWritten(PathBuf),
    /// The answer to `wait`: no exchange is pending.
    Idle,
    /// How long the engine has waited on the opponent, once past
    /// [`WAIT_SHOWN_AFTER`](super::WAIT_SHOWN_AFTER), sent again as each second passes; `None` once that wait
    /// is over. For the terminal's status line: scripts ignore it.
    #[serde(skip)]
    Waiting(Option<Waiting>),
    /// A wait on the opponent passed [`FORFEIT_HINT_AFTER`](super::FORFEIT_HINT_AFTER): `forfeit` may end
    /// the game. Sent once per exchange waited on: a `waiting` event, what is awaited in words.
    #[serde(rename = "waiting", serialize_with = "json::overdue")]
    Overdue(Waiting),
    /// The opponent is away from the relay: the seconds left before `forfeit` may claim the game against its
    /// absence ([`FORFEIT_GRACE`](super::FORFEIT_GRACE)), sent again as each second passes; `None` once that no
    /// longer runs. For the terminal's status line: scripts ignore it.
    #[serde(skip)]
    ForfeitGrace(Option<u64>),
    /// The opponent has been away for `away` seconds, the grace passed: `forfeit` ends the game. Sent once per
    /// absence.
    ForfeitPossible {
        #[serde(rename = "seconds")]
        away: u64,
    },
    /// The answer to `table` and `quit`: the front end shows the whole table.
    #[serde(skip)]
    Table,
    /// The engine took this player's intent. What it changes on the table comes as events; the terminal
    /// tells the rest (`end`, `refuse`, `ask`, `new-game`), which no event of this player's does. Scripts know
    /// it, having sent the command.
    #[serde(skip)]
    Taken(Intent),
    /// An event of the table engine.
    #[serde(skip)]
    Engine(Event),
}

impl From<AbsenceNews> for Output {
    fn from(news: AbsenceNews) -> Output {
        match news {
            AbsenceNews::Count(left) => Output::ForfeitGrace(left),
            AbsenceNews::ForfeitOpen { away } => Output::ForfeitPossible { away },
        }
    }
}

impl From<WaitNews> for Output {
    fn from(news: WaitNews) -> Output {
        match news {
            WaitNews::Count(waiting) => Output::Waiting(waiting),
            WaitNews::Overdue(waiting) => Output::Overdue(waiting),
        }
    }
}

/// The shapes of the outputs whose fields are not their own: each a JSON object beside the `event` tag, its
/// entries in the order given.
mod json {
    use std::path::PathBuf;

    use fairdeck_shared::wire::PeekPurpose;
    use serde::ser::{SerializeMap, Serializer};
    use serde_json::{Value, json};

    use super::Waiting;
    use crate::command::TopWatch;

    type Written<S> = Result<<S as Serializer>::Ok, <S as Serializer>::Error>;

    fn object<S: Serializer>(serializer: S, entries: &[(&str, Value)]) -> Written<S> {
        let mut map = serializer.serialize_map(Some(entries.len()))?;
        for (key, value) in entries {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }

    pub fn code<S: Serializer>(code: &String, serializer: S) -> Written<S> {
        object(serializer, &[("code", json!(code))])
    }

    pub fn file<S: Serializer>(file: &PathBuf, serializer: S) -> Written<S> {
        object(serializer, &[("file", json!(file))])
    }

    pub fn established<S: Serializer>(serializer: S) -> Written<S> {
        object(serializer, &[("established", json!(true))])
    }

    pub fn detail<S: Serializer>(detail: &String, serializer: S) -> Written<S> {
        object(serializer, &[("detail", json!(detail))])
    }

    pub fn relay_alert<S: Serializer>(detail: &String, serializer: S) -> Written<S> {
        object(serializer, &[("kind", json!("relay")), ("detail", json!(detail))])
    }

    pub fn purpose<S: Serializer>(purpose: &PeekPurpose, serializer: S) -> Written<S> {
        object(serializer, &[("purpose", json!(purpose))])
    }

    pub fn watch<S: Serializer>(watch: &Option<TopWatch>, serializer: S) -> Written<S> {
        object(serializer, &[("watch", json!(watch))])
    }

    pub fn overdue<S: Serializer>(waiting: &Waiting, serializer: S) -> Written<S> {
        object(serializer, &[("awaited", json!(waiting.awaited.to_string())), ("seconds", json!(waiting.seconds))])
    }
}
