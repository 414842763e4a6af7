//! A game session: one task that selects over the player's commands, the relay's WebSocket frames and a
//! ticker, feeds the end-to-end [`Channel`] and the table [`Engine`], and shows every [`Output`] to the
//! player. The player's side is a [`Frontend`]: scripted mode reads lines and writes JSON
//! ([`crate::script`]), the terminal table reads keys and draws ([`crate::ui`]); both drive this same loop.
//!
//! Layering: relay frames → [`Channel`] (decrypt, order, deduplicate) → engine messages → [`Engine`]; the
//! engine's messages go back the same way. The relay sees only channel frames.

use std::collections::VecDeque;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use fairdeck_relay_protocol::{ClientMessage, ErrorCode, GoneReason, PeerState, ReportedResult, ServerMessage};
use fairdeck_shared::Seat;
use fairdeck_shared::crypto::{Dice, Ristretto255};
use fairdeck_shared::engine::Input;
use fairdeck_shared::engine::{Engine, EngineConfig, Event, Intent, IntentError};
use fairdeck_shared::journal;
use fairdeck_shared::table::{CardId, Placement, Position, ZoneId, ZoneKind};
use fairdeck_shared::wire::{Action, Awaited, PeekPurpose};
use futures_util::{SinkExt, StreamExt};
use rand::Rng;
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::{Connector, MaybeTlsStream, WebSocketStream};

use crate::channel::{Channel, ChannelError, Side};
use crate::code::{self, Code, CodeError};
use crate::deck::{Deck, cockatrice_hash, parse_deck};
use crate::save::{self, RelayPlace, SaveError, SaveFile, Standing, Status};
use crate::tls::{CaError, client_config, explain_certificate_failure};

/// The relay a session uses unless told otherwise.
pub const DEFAULT_RELAY: &str = "ws://127.0.0.1:7171/v1";
/// How long connecting to the relay (and its first answers) may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
const TICK: Duration = Duration::from_millis(100);
/// How long `quit` waits for the peer to acknowledge what was sent.
const QUIT_GRACE: Duration = Duration::from_secs(5);
/// A wait on the opponent shorter than this is the ordinary pace of an exchange, not worth showing.
pub const WAIT_SHOWN_AFTER: Duration = Duration::from_secs(5);
/// After this long waiting on the opponent for one exchange, the player is told that `forfeit` ends the game
/// (scripts get one `waiting` event): an honest client answers within a second or two, even on a slow link.
pub const FORFEIT_HINT_AFTER: Duration = Duration::from_secs(60);
const SOFTWARE: &str = concat!("fairdeck/", env!("CARGO_PKG_VERSION"));
/// Wrong codes a host takes on one code before it stops giving the seat to the next guest: each guess has one
/// chance in 65,536 (two words of 256), so an online guesser gets at most this many such chances per code
/// before the host chooses, with `new-code`, whether to go on.
pub const WRONG_CODES_PER_CODE: u32 = 3;

type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// Which seat to take.
#[derive(Clone, Debug)]
pub enum Role {
    /// Open a room and print the code to share.
    Host { deck: PathBuf },
    /// Join the room of this code.
    Join { code: String, deck: PathBuf },
    /// Go on with a saved game: this file, or the most recently played unfinished one.
    Resume { file: Option<PathBuf> },
}

/// What a session needs from the command line.
#[derive(Clone, Debug)]
pub struct Options {
    pub role: Role,
    /// The relay. A resumed game uses its own unless this is set.
    pub relay: Option<String>,
    /// Where games are saved as they go ([`save::games_dir`]).
    pub games: PathBuf,
    /// The player's name shown to the opponent.
    pub name: String,
    /// Where to write the game's journal when the session ends (`fairdeck verify` reads it).
    pub record: Option<PathBuf>,
    /// A PEM file of CA certificates to trust for a `wss://` relay, besides the public roots.
    pub ca: Option<PathBuf>,
}

/// Why a session stopped early. Each message says what to do about it.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("cannot read the deck file {path}: {reason}")]
    Deck { path: String, reason: String },
    #[error("cannot write the game's journal to {path}: {reason}")]
    Record { path: String, reason: String },
    #[error("cannot reach the relay at {url}: {reason} (start one with `fairdeck-relay`, or pass --relay URL)")]
    Unreachable { url: String, reason: String },
    #[error("cannot reach the relay at {url} securely: {reason}")]
    Certificate { url: String, reason: String },
    #[error(transparent)]
    Ca(#[from] CaError),
    #[error("the relay refused: {message} ({code})")]
    Relay { code: &'static str, message: String },
    #[error("{0} (checked on this computer: the relay was not contacted)")]
    BadCode(CodeError),
    #[error("no game has this code (it is mistyped, or the game ended): ask the host for the code again")]
    UnknownCode,
    #[error(
        "wrong code: the key exchange failed (the words differ from the host's); check the code with the host and join again: the host's game stays open"
    )]
    WrongCode,
    #[error("the connection to the opponent failed: {0}; start a new game")]
    Channel(ChannelError),
    #[error("lost the connection to the relay: {0}")]
    Lost(String),
    #[error("the game stopped: {0}")]
    Halted(String),
    #[error("cannot write events: {0}")]
    Output(#[from] std::io::Error),
    #[error(transparent)]
    Save(#[from] SaveError),
    #[error("cannot rebuild the game of {path}: {reason}")]
    Restore { path: String, reason: String },
}

impl SessionError {
    /// The `kind` of the error event.
    pub fn kind(&self) -> &'static str {
        match self {
            SessionError::Deck { .. } => "deck",
            SessionError::Record { .. } => "record",
            SessionError::Unreachable { .. } => "unreachable",
            SessionError::Certificate { .. } => "certificate",
            SessionError::Ca(_) => "ca",
            SessionError::Relay { code, .. } => code,
            SessionError::BadCode(_) => "bad_code",
            SessionError::UnknownCode => "unknown_code",
            SessionError::WrongCode => "wrong_code",
            SessionError::Channel(_) => "channel",
            SessionError::Lost(_) => "lost",
            SessionError::Halted(_) => "halted",
            SessionError::Output(_) => "output",
            SessionError::Save(_) | SessionError::Restore { .. } => "save",
        }
    }

    /// The process exit code: 2 when the code is at fault (the user can fix it by asking again), 1 otherwise.
    pub fn exit_code(&self) -> u8 {
        match self {
            SessionError::BadCode(_) | SessionError::UnknownCode | SessionError::WrongCode => 2,
            _ => 1,
        }
    }
}

/// What the session tells the player, besides the engine's own events.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Output {
    /// The deck file was read.
    Deck {
        hash: String,
        main: u32,
        sideboard: u32,
    },
    /// The code to give the other player (hosting only), again after a wrong code or `new-code`. A secret: a
    /// front end shows it, never logs it.
    Code(String),
    /// Hosting: a guest joined with another code (or broke the key exchange) and was sent away. `attempts`
    /// counts them on this code; while `reopened`, the game waits for the next guest, else `new-code` is needed.
    WrongCodeTried {
        attempts: u32,
        reopened: bool,
    },
    /// The relay seated both players.
    Paired,
    /// The game is saved as it goes in this file (`fairdeck resume` continues it).
    Saved(PathBuf),
    /// A saved game was read back: the table stands as it did after `moves` actions; it goes on at `relay`.
    Restored {
        path: PathBuf,
        moves: u64,
        relay: String,
    },
    /// At the game's rendezvous on the relay: the opponent is there too, or it is awaited.
    Rendezvous {
        peer_here: bool,
    },
    /// The peer proved it knows the code: the end-to-end channel is up.
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
    /// This player's connection to the relay dropped: the session is reconnecting.
    RelayLost(String),
    /// The seat was taken back with its token; whether the opponent holds its seat too.
    Resumed {
        peer_here: bool,
    },
    /// The relay reported an error, or sent something unreadable.
    RelayAlert(String),
    /// A command was refused before it changed anything; `kind` is `bad_command`, `not_ready`, `halted`
    /// or `refused`.
    CommandError {
        kind: &'static str,
        command: String,
        message: String,
    },
    /// The answer to `wait`: no exchange is pending.
    Idle,
    /// How long the engine has waited on the opponent, once past [`WAIT_SHOWN_AFTER`], sent again as each
    /// second passes; `None` once that wait is over. For the terminal's status line: scripts ignore it.
    Waiting(Option<Waiting>),
    /// A wait on the opponent passed [`FORFEIT_HINT_AFTER`]: `forfeit` may end the game. Sent once per
    /// exchange waited on.
    Overdue(Waiting),
    /// The answer to `table` and `quit`: the front end shows the whole table.
    Table,
    /// An event of the table engine.
    Engine(Event),
}

/// What the engine waits on the opponent for, and for how long so far.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Waiting {
    /// What is awaited (shown in the engine's words, such as "its strip of #12").
    pub awaited: Awaited,
    pub seconds: u64,
}

/// Times the engine's waits on the opponent and says what to tell the player. Time is a parameter, so
/// tests run it without a clock.
#[derive(Debug, Default)]
pub struct WaitClock {
    current: Option<WaitStart>,
}

#[derive(Debug)]
struct WaitStart {
    awaited: Awaited,
    since: tokio::time::Instant,
    /// The seconds last sent in [`Output::Waiting`], if any was.
    shown: Option<u64>,
    overdue_told: bool,
}

impl WaitClock {
    /// Takes in what the engine waits on the opponent for at `now` (`None`: nothing that counts) and
    /// returns what to show. Another `awaited` is another exchange: its wait starts from zero.
    pub fn observe(&mut self, awaited: Option<Awaited>, now: tokio::time::Instant) -> Vec<Output> {
        let mut outputs = Vec::new();
        if self.current.as_ref().map(|c| &c.awaited) != awaited.as_ref() {
            if self.current.take().is_some_and(|c| c.shown.is_some()) {
                outputs.push(Output::Waiting(None));
            }
            self.current = awaited.map(|awaited| WaitStart { awaited, since: now, shown: None, overdue_told: false });
        }
        let Some(current) = self.current.as_mut() else { return outputs };
        let waited = now.saturating_duration_since(current.since);
        if waited < WAIT_SHOWN_AFTER {
            return outputs;
        }
        let waiting = Waiting { awaited: current.awaited.clone(), seconds: waited.as_secs() };
        if current.shown != Some(waiting.seconds) {
            current.shown = Some(waiting.seconds);
            outputs.push(Output::Waiting(Some(waiting.clone())));
        }
        if !current.overdue_told && FORFEIT_HINT_AFTER <= waited {
            current.overdue_told = true;
            outputs.push(Output::Overdue(waiting));
        }
        outputs
    }

    /// Forgets the wait under way: this player's own connection dropped, so the opponent may not have had
    /// what it should answer, and owes nothing until it had the time to. Returns what clears the line.
    pub fn restart(&mut self) -> Option<Output> {
        let shown = self.current.take()?.shown;
        shown.map(|_| Output::Waiting(None))
    }
}

/// The player's side of a session. The session calls `next_line` in every turn of its loop and shows
/// every output as it happens, with the engine as it stands after it.
pub trait Frontend {
    /// The player's next command line (a scripted-mode command), or `None` when the player's input has
    /// ended, which is an implicit `quit`. Must be cancel-safe: the session drops this future whenever
    /// the relay or the ticker is ready first.
    fn next_line(&mut self) -> impl Future<Output = Option<String>>;
    /// Shows what happened; an error here ends the session.
    fn show(&mut self, output: Output, engine: &Engine<Ristretto255>) -> std::io::Result<()>;
}

fn os_seed() -> [u8; 32] {
    let mut seed = [0u8; 32];
    rand::rng().fill_bytes(&mut seed);
    seed
}

/// Reads and parses a deck file.
fn read_deck(path: &Path) -> Result<Deck, SessionError> {
    let deck_error = |reason: String| SessionError::Deck { path: path.display().to_string(), reason };
    let text = std::fs::read_to_string(path).map_err(|e| deck_error(e.to_string()))?;
    let file_name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    parse_deck(&file_name, &text).map_err(|e| deck_error(e.to_string()))
}

/// Runs a session to its end: `Ok` after `quit` (or the end of input), else the fatal error.
pub async fn run<F: Frontend>(options: Options, front: &mut F) -> Result<(), SessionError> {
    let (seat, deck_path, code) = match &options.role {
        Role::Host { deck } => (Seat::Host, deck, None),
        Role::Join { code, deck } => (Seat::Guest, deck, Some(code)),
        Role::Resume { file } => return resume(file.clone(), &options, front).await,
    };
    let deck = read_deck(deck_path)?;
    let deck_error = |reason: String| SessionError::Deck { path: deck_path.display().to_string(), reason };
    let config = EngineConfig { name: options.name.clone(), software: SOFTWARE.to_string() };
    let engine = Engine::<Ristretto255>::new(seat, config, deck.to_deck_list(), os_seed())
        .map_err(|e| deck_error(e.to_string()))?;
    let deck_output =
        Output::Deck { hash: cockatrice_hash(&deck), main: deck.main_count(), sideboard: deck.sideboard_count() };
    front.show(deck_output, &engine)?;

    // Check the code before touching the network: a mistyped one can never work, and would spend an attempt.
    let joining = code.map(|code| code::parse(code).map_err(SessionError::BadCode)).transpose()?;

    let relay_url = options.relay.clone().unwrap_or_else(|| DEFAULT_RELAY.to_string());
    let tls = client_config(options.ca.as_deref())?;
    let (mut ws, max_frame) = open_relay(&relay_url, &tls).await?;
    let (code, token) = match joining {
        None => {
            let (nameplate, token) = create_room(&mut ws).await?;
            let code = Code::random(&nameplate);
            // The code is the secret the players share; it goes to the player only, never to a log.
            front.show(Output::Code(code.to_string()), &engine)?;
            (code, token)
        }
        Some(code) => {
            let join = ClientMessage::Join { nameplate: code.nameplate().to_string(), client: Some(SOFTWARE.into()) };
            send_control(&mut ws, &join).await?;
            match next_control(&mut ws).await? {
                ServerMessage::Joined { token, .. } => (code, token),
                other => return Err(relay_refusal(other)),
            }
        }
    };
    let side = if seat == Seat::Host { Side::Host } else { Side::Guest };
    let mut channel = Channel::new(side, &code.password(), code.nameplate(), os_seed());
    channel.set_max_frame_bytes(max_frame);

    let mut session = Session {
        engine,
        channel,
        ws: Some(ws),
        paired: false,
        announced: false,
        restart_hint: None,
        quit_deadline: None,
        queue: VecDeque::new(),
        input_done: false,
        wait_clock: WaitClock::default(),
        relay: RelayPlace { url: relay_url, ca: absolute(options.ca.as_deref()), token: Some(token) },
        tls,
        code: Some(code),
        door: Door::Open,
        wrong_codes: 0,
        games: options.games.clone(),
        save: None,
        opponent: None,
        peer_here: false,
    };
    finish(session.run(front).await, &session, &options)
}

/// Goes on with a saved game: the engine replays its journal, the channel takes up its keys and counters, and
/// the seat is taken back (by its token, else at the game's rendezvous).
async fn resume<F: Frontend>(file: Option<PathBuf>, options: &Options, front: &mut F) -> Result<(), SessionError> {
    let path = match file {
        Some(path) => path,
        None => save::latest_unfinished(&options.games)?,
    };
    let saved = save::load(&path)?;
    let restore_error = |reason: String| SessionError::Restore { path: path.display().to_string(), reason };
    let engine = journal::replay::<Ristretto255>(&saved.journal, |_| {}).map_err(|e| restore_error(e.to_string()))?;
    let mut relay = saved.standing.relay.clone();
    if let Some(url) = options.relay.clone().filter(|url| *url != relay.url) {
        // Another relay knows no token of this game: the players meet at the rendezvous there.
        relay = RelayPlace { url, ca: absolute(options.ca.as_deref()), token: None };
    } else if options.ca.is_some() {
        relay.ca = absolute(options.ca.as_deref());
    }
    let tls = client_config(relay.ca.as_deref())?;
    let moves = engine.actions_applied();
    front.show(Output::Restored { path: path.clone(), moves, relay: relay.url.clone() }, &engine)?;
    let mut session = Session {
        engine,
        channel: saved.channel(),
        ws: None,
        paired: false,
        announced: true,
        restart_hint: None,
        quit_deadline: None,
        queue: VecDeque::new(),
        input_done: false,
        wait_clock: WaitClock::default(),
        relay,
        tls,
        code: None,
        door: Door::Open,
        wrong_codes: 0,
        games: options.games.clone(),
        save: Some(SaveFile::reopen(&saved)?),
        opponent: saved.standing.opponent.clone(),
        peer_here: false,
    };
    let outcome = match session.reach_seat(front).await {
        Ok(_) => session.run(front).await,
        Err(error) => Err(error),
    };
    finish(outcome, &session, options)
}

/// Ends a session: the journal goes to `--record`'s file, whatever the outcome.
fn finish(outcome: Result<(), SessionError>, session: &Session, options: &Options) -> Result<(), SessionError> {
    if let Some(path) = &options.record {
        write_journal(path, session.engine.journal())?;
    }
    outcome
}

/// A path made absolute, so that a resumed game finds it from any folder.
fn absolute(path: Option<&Path>) -> Option<PathBuf> {
    path.map(|path| std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()))
}

/// Writes the journal readable by its owner only: it holds every secret of the game.
fn write_journal(path: &Path, journal: &fairdeck_shared::journal::Journal) -> Result<(), SessionError> {
    let failed = |reason: String| SessionError::Record { path: path.display().to_string(), reason };
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(path).map_err(|e| failed(e.to_string()))?;
    std::io::Write::write_all(&mut file, &fairdeck_shared::journal::encode(journal)).map_err(|e| failed(e.to_string()))
}

/// Connects to the relay and reads its welcome, which says the largest frame it takes.
async fn open_relay(url: &str, tls: &Arc<rustls::ClientConfig>) -> Result<(Ws, usize), SessionError> {
    let mut ws = tokio::time::timeout(CONNECT_TIMEOUT, connect(url, tls))
        .await
        .map_err(|_| SessionError::Unreachable { url: url.to_string(), reason: "timed out".into() })?
        .map_err(|error| connect_error(url, &error))?;
    match next_control(&mut ws).await? {
        ServerMessage::Welcome { max_message_bytes, .. } => Ok((ws, max_message_bytes)),
        other => Err(unexpected(&other)),
    }
}

/// Opens a room in the first seat: its nameplate, and the token that resumes the seat.
async fn create_room(ws: &mut Ws) -> Result<(String, String), SessionError> {
    send_control(ws, &ClientMessage::Create { client: Some(SOFTWARE.to_string()) }).await?;
    match next_control(ws).await? {
        ServerMessage::Created { nameplate, token, .. } if code::is_nameplate(&nameplate) => Ok((nameplate, token)),
        ServerMessage::Created { .. } => Err(SessionError::Lost("the relay gave an impossible room number".into())),
        other => Err(relay_refusal(other)),
    }
}

/// `wss://` goes through rustls with `tls`; `ws://` ignores it.
async fn connect(url: &str, tls: &Arc<rustls::ClientConfig>) -> Result<Ws, tokio_tungstenite::tungstenite::Error> {
    let connector = Connector::Rustls(tls.clone());
    let (ws, _response) = tokio_tungstenite::connect_async_tls_with_config(url, None, true, Some(connector)).await?;
    Ok(ws)
}

/// What a failed connection to `url` tells the player: a refused certificate names the host and the reason.
fn connect_error(url: &str, error: &tokio_tungstenite::tungstenite::Error) -> SessionError {
    match explain_certificate_failure(error, host_of(url)) {
        Some(reason) => SessionError::Certificate { url: url.to_string(), reason },
        None => SessionError::Unreachable { url: url.to_string(), reason: error.to_string() },
    }
}

/// Why the relay connection dropped, in a player's words: a TLS connection cut without its closing message
/// (a proxy or network failure) is just a cut connection.
fn lost_reason(error: &tokio_tungstenite::tungstenite::Error) -> String {
    match error {
        tokio_tungstenite::tungstenite::Error::Io(io) if io.kind() == std::io::ErrorKind::UnexpectedEof => {
            "the connection was cut".to_string()
        }
        other => other.to_string(),
    }
}

/// The host part of a WebSocket URL (`relay.example.org` of `wss://relay.example.org:443/v1`).
fn host_of(url: &str) -> &str {
    let authority = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = authority.split(['/', '?', '#']).next().unwrap_or_default();
    let authority = authority.rsplit_once('@').map_or(authority, |(_, host)| host);
    match authority.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or_default(),
        None => authority.split(':').next().unwrap_or_default(),
    }
}

async fn next_control(ws: &mut Ws) -> Result<ServerMessage, SessionError> {
    let read = async {
        while let Some(message) = ws.next().await {
            match message.map_err(|e| SessionError::Lost(e.to_string()))? {
                Message::Text(text) => {
                    return serde_json::from_str(text.as_str())
                        .map_err(|e| SessionError::Lost(format!("the relay sent an unreadable message: {e}")));
                }
                Message::Close(_) => break,
                _ => {}
            }
        }
        Err(SessionError::Lost("the relay closed the connection".into()))
    };
    tokio::time::timeout(CONNECT_TIMEOUT, read)
        .await
        .map_err(|_| SessionError::Lost("the relay did not answer".into()))?
}

async fn send_control(ws: &mut Ws, message: &ClientMessage) -> Result<(), SessionError> {
    let text = serde_json::to_string(message).expect("control messages serialize");
    ws.send(Message::text(text)).await.map_err(|e| SessionError::Lost(e.to_string()))
}

fn unexpected(message: &ServerMessage) -> SessionError {
    // Only the type: messages such as `created` carry the seat token, which must not be shown.
    let kind = serde_json::to_value(message).ok().and_then(|v| v["type"].as_str().map(str::to_string));
    SessionError::Lost(format!("unexpected `{}` message from the relay", kind.unwrap_or_default()))
}

fn relay_refusal(message: ServerMessage) -> SessionError {
    match message {
        ServerMessage::Error { code: ErrorCode::UnknownNameplate, .. } => SessionError::UnknownCode,
        ServerMessage::Error { code, message } => SessionError::Relay { code: code.as_str(), message },
        other => unexpected(&other),
    }
}

/// How a seat was taken back.
enum Seated {
    /// With its token; the nameplate while the room waits for its guest.
    Resumed { waiting_as: Option<String> },
    /// At the game's rendezvous; whether the opponent is there too.
    Met { peer_here: bool },
}

/// What the loop should do after handling something.
enum Flow {
    Continue,
    Quit,
}

struct Session {
    engine: Engine<Ristretto255>,
    channel: Channel,
    /// `None` once the relay closed the room.
    ws: Option<Ws>,
    /// Binary frames may go to the relay only once both seats are taken.
    paired: bool,
    /// Whether the `channel` event (the peer proved it knows the code) was written.
    announced: bool,
    /// From the relay's `closing`: when to reconnect, and for how long to keep trying.
    restart_hint: Option<(Duration, Duration)>,
    /// Set by the first `quit`: until then, it waits for the peer to acknowledge what was sent.
    quit_deadline: Option<tokio::time::Instant>,
    /// Commands read but not run yet: table commands wait for set-up, `wait` for an idle engine.
    queue: VecDeque<String>,
    input_done: bool,
    wait_clock: WaitClock,
    /// The relay, its CA, and the seat's token there while the relay knows it.
    relay: RelayPlace,
    tls: Arc<rustls::ClientConfig>,
    /// The game's code: the host rebuilds its channel from it for each new guest. A resumed game has none.
    code: Option<Code>,
    /// Hosting, before the channel is up: whether a guest's frames are taken.
    door: Door,
    /// Hosting: guests sent away on the current code.
    wrong_codes: u32,
    /// Where the save is created once the channel is up.
    games: PathBuf,
    save: Option<SaveFile>,
    /// The opponent's name, from its hello.
    opponent: Option<String>,
    /// Whether the relay says the opponent holds its seat: a game whose opponent left can be claimed.
    peer_here: bool,
}

/// Hosting, before the key exchange succeeded: whether the next guest's frames go to the channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Door {
    /// A guest may be exchanging keys (or none has joined yet).
    Open,
    /// A guest was sent away (`reopen` is out): frames still on their way from it are dropped.
    Reopening,
    /// [`WRONG_CODES_PER_CODE`] guests were sent away: nobody else is let in until `new-code`.
    Closed,
}

impl Session {
    async fn run<F: Frontend>(&mut self, front: &mut F) -> Result<(), SessionError> {
        let mut ticker = tokio::time::interval(TICK);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                line = front.next_line(), if !self.input_done => {
                    match line {
                        Some(line) => {
                            let line = line.trim();
                            if !line.is_empty() {
                                self.queue.push_back(line.to_string());
                            }
                        }
                        // The end of the input is an implicit `quit`, after what is queued.
                        None => {
                            self.input_done = true;
                            self.queue.push_back("quit".into());
                        }
                    }
                }
                frame = next_frame(&mut self.ws) => {
                    if let Flow::Quit = self.handle_relay(frame, front).await? {
                        return Ok(());
                    }
                }
                _ = ticker.tick() => {}
            }
            self.pump(front).await?;
            if let Flow::Quit = self.run_queue(front).await? {
                return Ok(());
            }
            self.time_wait(front)?;
        }
    }

    /// Times the engine's wait on the opponent. It counts once the opponent proved the code (before, the
    /// status already says who is missing) and while the game goes on.
    fn time_wait<F: Frontend>(&mut self, front: &mut F) -> Result<(), SessionError> {
        let counts = self.channel.is_established() && self.engine.halted().is_none() && !self.engine.is_ended();
        let awaited = self.engine.awaiting_opponent().filter(|_| counts);
        for output in self.wait_clock.observe(awaited, tokio::time::Instant::now()) {
            front.show(output, &self.engine)?;
        }
        Ok(())
    }

    /// Hands the engine's messages to the channel, the channel's frames to the relay, and shows the
    /// engine's events.
    async fn pump<F: Frontend>(&mut self, front: &mut F) -> Result<(), SessionError> {
        loop {
            let mut progressed = self.settle(front)?;
            let mut frames = Vec::new();
            while self.paired
                && self.ws.is_some()
                && let Some(frame) = self.channel.poll_frame()
            {
                frames.push(frame);
            }
            // Saved before anything leaves: a save is never behind what the opponent has seen.
            self.save(front)?;
            for frame in frames {
                progressed = true;
                let Some(ws) = self.ws.as_mut() else { break };
                if let Err(error) = ws.send(Message::binary(frame)).await {
                    // A dropped socket is not the end of the game: the channel still holds every
                    // unacknowledged frame, and resends them once the seat is resumed and paired.
                    self.reconnect(format!("sending to the relay failed: {error}"), front).await?;
                    break;
                }
            }
            if !progressed {
                return Ok(());
            }
        }
    }

    /// Hands the channel's messages to the engine and the engine's messages to the channel, and shows the
    /// engine's events. Afterwards the save is consistent: every message taken in is in the journal, and every
    /// message the journal makes the engine send is sealed in the channel (a replay drops what the engine
    /// sends, as the opponent had it). Returns whether anything moved.
    fn settle<F: Frontend>(&mut self, front: &mut F) -> Result<bool, SessionError> {
        let mut progressed = false;
        loop {
            let mut moved = false;
            while let Some(message) = self.channel.poll_message() {
                let _messages_are_never_refused = self.engine.handle(Input::Message { bytes: message });
                moved = true;
            }
            while let Some(message) = self.engine.poll_transmit() {
                self.channel.send(message).map_err(SessionError::Channel)?;
                moved = true;
            }
            while let Some(event) = self.engine.poll_event() {
                if let Event::Connected { name, .. } = &event {
                    self.opponent = Some(name.clone());
                }
                front.show(Output::Engine(event), &self.engine)?;
                moved = true;
            }
            if !moved {
                return Ok(progressed);
            }
            progressed = true;
        }
    }

    /// Where the game stands, for the save.
    fn standing(&self) -> Standing {
        let status = if self.engine.halted().is_some() {
            Status::Halted
        } else if self.engine.is_ended() {
            Status::Ended
        } else {
            Status::Playing
        };
        Standing {
            relay: self.relay.clone(),
            status,
            opponent: self.opponent.clone(),
            moves: self.engine.actions_applied(),
        }
    }

    /// Writes what changed to the save, which starts once the channel is up (before, nothing of the game
    /// has left this side).
    fn save<F: Frontend>(&mut self, front: &mut F) -> Result<(), SessionError> {
        self.settle(front)?;
        let standing = self.standing();
        match &mut self.save {
            Some(save) => save.commit(self.engine.journal(), &self.channel, standing)?,
            None if self.channel.is_established() => {
                let save = SaveFile::create(&self.games, self.engine.journal(), &self.channel, standing)?;
                front.show(Output::Saved(save.path().to_path_buf()), &self.engine)?;
                self.save = Some(save);
            }
            None => {}
        }
        Ok(())
    }

    async fn handle_relay<F: Frontend>(
        &mut self,
        frame: Option<Result<Message, tokio_tungstenite::tungstenite::Error>>,
        front: &mut F,
    ) -> Result<Flow, SessionError> {
        let message = match frame {
            Some(Ok(message)) => message,
            Some(Err(e)) => return self.reconnect(lost_reason(&e), front).await,
            None => return self.reconnect("the relay closed the connection".into(), front).await,
        };
        match message {
            Message::Binary(bytes) => {
                if self.door != Door::Open {
                    return Ok(Flow::Continue);
                }
                if let Err(error) = self.channel.handle_frame(&bytes) {
                    // Our own CONFIRM may still be queued: sending it lets the peer see the failure too.
                    self.flush_frames().await;
                    let report = match error {
                        ChannelError::WrongCode => ReportedResult::Scary,
                        _ => ReportedResult::Errored,
                    };
                    if self.engine.seat() == Seat::Host && !self.channel.is_established() {
                        // A guest with another code (or a broken one): send it away, keep the game open.
                        self.send_away_guest(report, front).await?;
                        return Ok(Flow::Continue);
                    }
                    if error == ChannelError::WrongCode {
                        // Not `leave`, which would end the host's room: the host gives the seat to the next guest.
                        self.abandon_seat(report).await;
                        return Err(SessionError::WrongCode);
                    }
                    self.leave(Some(report)).await;
                    return Err(SessionError::Channel(error));
                }
                if self.channel.is_established() && !self.announced {
                    self.announced = true;
                    front.show(Output::ChannelEstablished, &self.engine)?;
                }
            }
            Message::Text(text) => match serde_json::from_str::<ServerMessage>(text.as_str()) {
                Ok(ServerMessage::Paired { .. }) if self.channel.is_established() => {
                    // Met again at the rendezvous: the opponent may lack anything sent before.
                    self.paired = true;
                    self.peer_here = true;
                    self.channel.resend_unacked();
                    front.show(Output::PeerBack, &self.engine)?;
                }
                Ok(ServerMessage::Paired { .. }) => {
                    self.paired = true;
                    self.peer_here = true;
                    front.show(Output::Paired, &self.engine)?;
                }
                // A guest being sent away may drop before the relay has its seat: not worth showing.
                Ok(ServerMessage::PeerAway { .. } | ServerMessage::PeerBack) if self.door != Door::Open => {}
                Ok(ServerMessage::PeerAway { hold_ms }) => {
                    self.peer_here = false;
                    front.show(Output::PeerAway { hold_ms }, &self.engine)?;
                }
                Ok(ServerMessage::PeerBack) => {
                    self.peer_here = true;
                    self.channel.resend_unacked();
                    front.show(Output::PeerBack, &self.engine)?;
                }
                Ok(ServerMessage::Reopened { nameplate }) => self.reopened(&nameplate, front)?,
                // The host's key exchange with us failed first and it gave the seat away.
                Ok(ServerMessage::PeerGone { reason: GoneReason::Rejected }) if !self.channel.is_established() => {
                    self.ws = None;
                    return Err(SessionError::WrongCode);
                }
                Ok(ServerMessage::PeerGone { .. })
                    if self.engine.seat() == Seat::Host && !self.channel.is_established() =>
                {
                    // A guest who never proved the code left, and the relay ended the room with it: the game
                    // opens again in a new room, under a new number with the same words.
                    self.open_new_room(front).await?;
                }
                Ok(ServerMessage::PeerGone { reason }) => {
                    let reason = match reason {
                        GoneReason::Left => "left",
                        GoneReason::Timeout => "timeout",
                        GoneReason::Rejected => "rejected",
                    };
                    front.show(Output::PeerGone { reason }, &self.engine)?;
                    // The room is over; the player may still look at the table and quit.
                    self.peer_here = false;
                    self.ws = None;
                    self.paired = false;
                    self.relay.token = None;
                    if self.channel.is_established() && self.standing().status == Status::Playing {
                        // The game is not: wait for the opponent at the game's rendezvous, where its
                        // `fairdeck resume` finds this side.
                        return self.reach_seat(front).await;
                    }
                }
                Ok(ServerMessage::Closing { reconnect_after_ms, try_for_ms, .. }) => {
                    self.restart_hint =
                        Some((Duration::from_millis(reconnect_after_ms), Duration::from_millis(try_for_ms)));
                    front.show(Output::RelayRestarting { reconnect_after_ms }, &self.engine)?;
                }
                Ok(ServerMessage::Error { code: ErrorCode::NotPaired, .. }) => {}
                Ok(ServerMessage::Error { code, message }) => {
                    front.show(Output::RelayAlert(format!("{}: {message}", code.as_str())), &self.engine)?;
                }
                Ok(_) => {}
                Err(e) => {
                    front.show(Output::RelayAlert(format!("unreadable relay message: {e}")), &self.engine)?;
                }
            },
            Message::Close(_) => {
                // The stream ends right after; `next_frame` then returns None and we resume.
            }
            _ => {}
        }
        Ok(Flow::Continue)
    }

    /// The relay connection dropped: take the seat back (a restart, a network blip).
    async fn reconnect<F: Frontend>(&mut self, reason: String, front: &mut F) -> Result<Flow, SessionError> {
        self.ws = None;
        self.paired = false;
        front.show(Output::RelayLost(reason), &self.engine)?;
        self.reach_seat(front).await
    }

    /// Takes the seat back: with its token while the relay knows it, else, once the channel is up, at the
    /// game's rendezvous (the relay lost the room in a crash, or the room ended when the opponent left).
    async fn reach_seat<F: Frontend>(&mut self, front: &mut F) -> Result<Flow, SessionError> {
        // A restarting relay says when to come back and for how long to try; otherwise retry for a minute.
        let (first_delay, try_for) = self.restart_hint.take().unwrap_or((Duration::ZERO, Duration::from_secs(60)));
        tokio::time::sleep(first_delay).await;
        let deadline = tokio::time::Instant::now() + try_for;
        let mut delay = Duration::from_millis(200);
        loop {
            let attempt = match self.relay.token.clone() {
                Some(token) => match self.try_resume(&token).await {
                    Err(SessionError::Relay { code: "bad_token", .. }) if self.channel.is_established() => {
                        self.relay.token = None;
                        self.try_rendezvous().await
                    }
                    other => other,
                },
                None => self.try_rendezvous().await,
            };
            match attempt {
                Ok((ws, seated)) => {
                    self.ws = Some(ws);
                    match seated {
                        Seated::Resumed { waiting_as } => {
                            front.show(Output::Resumed { peer_here: self.peer_here }, &self.engine)?;
                            // Our `reopen` took effect while the connection was down, its answer lost with it.
                            if let Some(nameplate) = waiting_as.filter(|_| self.door == Door::Reopening) {
                                self.reopened(&nameplate, front)?;
                            }
                        }
                        Seated::Met { peer_here } => front.show(Output::Rendezvous { peer_here }, &self.engine)?,
                    }
                    if let Some(output) = self.wait_clock.restart() {
                        front.show(output, &self.engine)?;
                    }
                    // The save names the relay's new token.
                    self.save(front)?;
                    return Ok(Flow::Continue);
                }
                // The room ended while we were away, before any guest proved the code (a guest left): the
                // game opens again in a new room.
                Err(SessionError::Relay { code: "bad_token", .. })
                    if self.engine.seat() == Seat::Host && !self.channel.is_established() =>
                {
                    self.open_new_room(front).await?;
                    return Ok(Flow::Continue);
                }
                Err(
                    error @ (SessionError::UnknownCode | SessionError::Relay { .. } | SessionError::Certificate { .. }),
                ) => {
                    return Err(SessionError::Lost(format!("the seat could not be resumed: {error}")));
                }
                Err(error) if tokio::time::Instant::now() >= deadline => {
                    let saved = match &self.save {
                        Some(save) => {
                            format!("; the game is saved: `fairdeck resume {}` goes on", save.path().display())
                        }
                        None => String::new(),
                    };
                    return Err(SessionError::Lost(format!("could not reconnect: {error}{saved}")));
                }
                Err(_) => {
                    tokio::time::sleep(delay).await;
                    delay = (delay * 2).min(Duration::from_secs(5));
                }
            }
        }
    }

    /// A new connection to the relay, its welcome read.
    async fn connect_again(&mut self) -> Result<Ws, SessionError> {
        let url = &self.relay.url;
        let (ws, max_frame) = open_relay(url, &self.tls).await.map_err(|error| match error {
            certificate @ SessionError::Certificate { .. } => certificate,
            SessionError::Unreachable { reason, .. } => SessionError::Lost(reason),
            other => other,
        })?;
        self.channel.set_max_frame_bytes(max_frame);
        Ok(ws)
    }

    /// Takes the seat back with its token on a new connection.
    async fn try_resume(&mut self, token: &str) -> Result<(Ws, Seated), SessionError> {
        let mut ws = self.connect_again().await?;
        let resume = ClientMessage::Resume { token: token.to_string(), client: Some(SOFTWARE.to_string()) };
        send_control(&mut ws, &resume).await?;
        match next_control(&mut ws).await? {
            ServerMessage::Resumed { peer, nameplate, .. } => {
                self.paired = peer != PeerState::Waiting;
                self.peer_here = peer == PeerState::Present;
                self.channel.resend_unacked();
                Ok((ws, Seated::Resumed { waiting_as: nameplate }))
            }
            other => Err(relay_refusal(other)),
        }
    }

    /// Takes this side's seat in the game's rendezvous room on a new connection (see [`Channel::rendezvous`]).
    async fn try_rendezvous(&mut self) -> Result<(Ws, Seated), SessionError> {
        let Some(meeting) = self.channel.rendezvous() else {
            return Err(SessionError::Lost("the game has no rendezvous before the code is proved".into()));
        };
        let mut ws = self.connect_again().await?;
        let message = ClientMessage::Rendezvous {
            room: hex::encode(meeting.room),
            seat: meeting.seat,
            secret: hex::encode(meeting.secret),
            peer: hex::encode(meeting.peer_hash),
            client: Some(SOFTWARE.to_string()),
        };
        send_control(&mut ws, &message).await?;
        match next_control(&mut ws).await? {
            ServerMessage::Met { token, peer, .. } => {
                self.relay.token = Some(token);
                self.paired = peer == PeerState::Present;
                self.peer_here = self.paired;
                self.channel.resend_unacked();
                Ok((ws, Seated::Met { peer_here: peer == PeerState::Present }))
            }
            other => Err(relay_refusal(other)),
        }
    }

    async fn flush_frames(&mut self) {
        if let Some(ws) = self.ws.as_mut().filter(|_| self.paired) {
            while let Some(frame) = self.channel.poll_frame() {
                if ws.send(Message::binary(frame)).await.is_err() {
                    break;
                }
            }
        }
    }

    /// Hosting: a guest failed the key exchange. Reports it, and gives the seat to the next guest unless this
    /// code has had [`WRONG_CODES_PER_CODE`] wrong guests: then only `new-code` opens the game again.
    async fn send_away_guest<F: Frontend>(
        &mut self,
        report: ReportedResult,
        front: &mut F,
    ) -> Result<(), SessionError> {
        self.wrong_codes += 1;
        let reopened = self.wrong_codes < WRONG_CODES_PER_CODE;
        self.paired = false;
        // The game's own messages wait in the channel for whoever proves the code next.
        if let Some(code) = &self.code {
            self.channel.restart_handshake(&code.password(), code.nameplate(), os_seed());
        }
        self.door = if reopened { Door::Reopening } else { Door::Closed };
        if let Some(ws) = self.ws.as_mut() {
            // A lost connection shows up on the next read; the seat is resumed and the door stays as set.
            let _ = send_control(ws, &ClientMessage::Report { result: report }).await;
            if reopened {
                let _ = send_control(ws, &ClientMessage::Reopen).await;
            }
        }
        front.show(Output::WrongCodeTried { attempts: self.wrong_codes, reopened }, &self.engine)?;
        Ok(())
    }

    /// Hosting: opens a new room for the game (its previous one ended before any guest proved the code).
    async fn open_new_room<F: Frontend>(&mut self, front: &mut F) -> Result<(), SessionError> {
        self.ws = None;
        self.paired = false;
        let Some(code) = &self.code else { return Ok(()) };
        let (mut ws, _) = open_relay(&self.relay.url, &self.tls).await?;
        let (nameplate, token) = create_room(&mut ws).await?;
        let code = code.with_nameplate(&nameplate);
        self.ws = Some(ws);
        self.relay.token = Some(token);
        self.channel.restart_handshake(&code.password(), code.nameplate(), os_seed());
        if self.door == Door::Reopening {
            self.door = Door::Open;
        }
        front.show(Output::Code(code.to_string()), &self.engine)?;
        self.code = Some(code);
        Ok(())
    }

    /// Hosting: the relay gave seat 1 back and waits for a guest under `nameplate` (perhaps another number, if
    /// the old one was taken meanwhile). A fresh channel takes the next guest's key exchange.
    fn reopened<F: Frontend>(&mut self, nameplate: &str, front: &mut F) -> Result<(), SessionError> {
        if self.engine.seat() != Seat::Host || self.channel.is_established() {
            return Ok(());
        }
        if !code::is_nameplate(nameplate) {
            front.show(
                Output::RelayAlert("the relay reopened the room under an impossible number".into()),
                &self.engine,
            )?;
            return Ok(());
        }
        let Some(mut code) = self.code.clone() else { return Ok(()) };
        if code.nameplate() != nameplate {
            // The nameplate is part of the key exchange: the channel starts again under the new one.
            code = code.with_nameplate(nameplate);
            self.channel.restart_handshake(&code.password(), code.nameplate(), os_seed());
        }
        self.door = Door::Open;
        self.paired = false;
        front.show(Output::Code(code.to_string()), &self.engine)?;
        self.code = Some(code);
        Ok(())
    }

    /// Hosting, before the key exchange succeeded: new words, and the seat given to the next guest.
    async fn new_code<F: Frontend>(&mut self, line: &str, front: &mut F) -> Result<(), SessionError> {
        let code = match &self.code {
            Some(code) if self.engine.seat() == Seat::Host && !self.channel.is_established() => code,
            _ => {
                let message = "only the host has a code, and only until the opponent proved it".to_string();
                let error = Output::CommandError { kind: "refused", command: line.to_string(), message };
                return front.show(error, &self.engine).map_err(SessionError::from);
            }
        };
        let code = Code::random(code.nameplate());
        self.channel.restart_handshake(&code.password(), code.nameplate(), os_seed());
        self.code = Some(code);
        self.wrong_codes = 0;
        self.paired = false;
        self.door = Door::Reopening;
        if let Some(ws) = self.ws.as_mut() {
            let _ = send_control(ws, &ClientMessage::Reopen).await;
        }
        Ok(())
    }

    /// Guest with a wrong code: reports it and drops the connection without `leave`, so that the host's room
    /// stays open for the right code.
    async fn abandon_seat(&mut self, report: ReportedResult) {
        if let Some(mut ws) = self.ws.take() {
            let _ = send_control(&mut ws, &ClientMessage::Report { result: report }).await;
            let frame = CloseFrame { code: CloseCode::Away, reason: "wrong code".into() };
            let _ = tokio::time::timeout(Duration::from_secs(2), ws.close(Some(frame))).await;
        }
    }

    /// Leaves the room for good (best effort: the process is ending anyway).
    async fn leave(&mut self, report: Option<ReportedResult>) {
        if let Some(mut ws) = self.ws.take() {
            if let Some(result) = report {
                let _ = send_control(&mut ws, &ClientMessage::Report { result }).await;
            }
            let _ = send_control(&mut ws, &ClientMessage::Leave).await;
            let _ = tokio::time::timeout(Duration::from_secs(2), ws.close(None)).await;
        }
    }

    /// Runs queued commands while they can run: table commands wait for set-up, `wait` for idleness.
    async fn run_queue<F: Frontend>(&mut self, front: &mut F) -> Result<Flow, SessionError> {
        while let Some(line) = self.queue.front().cloned() {
            let command = match parse_command(&line, self.engine.seat()) {
                Ok(command) => command,
                Err(message) => {
                    self.queue.pop_front();
                    let error = Output::CommandError { kind: "bad_command", command: line, message };
                    front.show(error, &self.engine)?;
                    continue;
                }
            };
            let halted = self.engine.halted().is_some();
            let ready = self.engine.is_ready() || halted;
            match command {
                Command::Quit => {
                    // Let what we sent reach the peer before leaving the room, but not forever (the
                    // peer may be away): the ticker brings us back here until the grace runs out.
                    let deadline = *self.quit_deadline.get_or_insert_with(|| tokio::time::Instant::now() + QUIT_GRACE);
                    let pending = self.channel.unacked_frames() > 0 || self.engine.is_busy();
                    if !halted && self.ws.is_some() && pending && tokio::time::Instant::now() < deadline {
                        return Ok(Flow::Continue);
                    }
                    self.queue.pop_front();
                    front.show(Output::Table, &self.engine)?;
                    self.leave(None).await;
                    return Ok(Flow::Quit);
                }
                Command::Wait => {
                    let settled = halted || (ready && self.is_idle());
                    if !settled {
                        return Ok(Flow::Continue);
                    }
                    self.queue.pop_front();
                    front.show(Output::Idle, &self.engine)?;
                }
                Command::Table => {
                    self.queue.pop_front();
                    front.show(Output::Table, &self.engine)?;
                }
                Command::NewCode => {
                    self.queue.pop_front();
                    self.new_code(&line, front).await?;
                }
                Command::Chat(text) => {
                    self.queue.pop_front();
                    self.intent(Intent::Chat(text), &line, front)?;
                }
                Command::Ask(zone, count) => {
                    self.queue.pop_front();
                    self.intent(Intent::RequestReveal { zone, count }, &line, front)?;
                }
                Command::Refuse(zone) => {
                    self.queue.pop_front();
                    self.intent(Intent::RefuseReveal { zone }, &line, front)?;
                }
                Command::Act(action) => {
                    if !ready {
                        return Ok(Flow::Continue);
                    }
                    self.queue.pop_front();
                    self.intent(Intent::Act(action), &line, front)?;
                }
                Command::End => {
                    if !ready {
                        return Ok(Flow::Continue);
                    }
                    self.queue.pop_front();
                    self.intent(Intent::EndGame, &line, front)?;
                }
                Command::Forfeit => {
                    self.queue.pop_front();
                    // Nothing awaited, but the opponent left and has not come back: its absence is the claim.
                    let abandoned =
                        self.engine.awaiting_opponent().is_none() && !self.peer_here && self.channel.is_established();
                    let claim = if abandoned { Intent::ClaimAbandoned } else { Intent::ClaimForfeit };
                    self.intent(claim, &line, front)?;
                }
                Command::NewGame(file) => {
                    self.queue.pop_front();
                    match file.map(|path| read_deck(&path)).transpose() {
                        Ok(deck) => {
                            let deck = deck.map(|deck| deck.to_deck_list());
                            self.intent(Intent::NewGame(deck), &line, front)?;
                        }
                        Err(error) => {
                            let message = error.to_string();
                            let error = Output::CommandError { kind: "bad_deck", command: line.clone(), message };
                            front.show(error, &self.engine)?;
                        }
                    }
                }
            }
            self.pump(front).await?;
        }
        Ok(Flow::Continue)
    }

    fn is_idle(&self) -> bool {
        !self.engine.is_busy() && self.channel.unacked_frames() == 0
    }

    /// Hands an intent to the engine; a refusal is shown. Returns whether the engine took it.
    fn intent<F: Frontend>(&mut self, intent: Intent, line: &str, front: &mut F) -> Result<(), SessionError> {
        let Err(error) = self.engine.handle(Input::Intent { intent }) else { return Ok(()) };
        let kind = match error {
            IntentError::NotReady => "not_ready",
            IntentError::Halted(_) => "halted",
            _ => "refused",
        };
        let error = Output::CommandError { kind, command: line.to_string(), message: error.to_string() };
        front.show(error, &self.engine)?;
        Ok(())
    }
}

/// The next frame from the relay, or pending forever when there is no connection.
async fn next_frame(ws: &mut Option<Ws>) -> Option<Result<Message, tokio_tungstenite::tungstenite::Error>> {
    match ws {
        Some(ws) => ws.next().await,
        None => std::future::pending().await,
    }
}

/// One line of scripted input.
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

/// Parses a scripted command for the player in `seat`. The error says what was expected.
pub fn parse_command(line: &str, seat: Seat) -> Result<Command, String> {
    let line = line.trim();
    let (verb, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
    let rest = rest.trim();
    let args: Vec<&str> = rest.split_whitespace().collect();
    let no_args =
        |command: Command| if args.is_empty() { Ok(command) } else { Err(format!("`{verb}` takes no argument")) };
    match verb {
        "draw" => Ok(Command::Act(Action::Draw { count: one_number(&args, "draw N")? })),
        "peek" => Ok(Command::Act(Action::Peek { count: one_number(&args, "peek N")?, purpose: PeekPurpose::Look })),
        // Bare, the London mulligan's seven.
        "mulligan" if args.is_empty() => Ok(Command::Act(Action::Mulligan { draw: 7 })),
        "mulligan" => Ok(Command::Act(Action::Mulligan { draw: one_number(&args, "mulligan [N]")? })),
        "ask" => {
            let (zone, count) = match args[..] {
                [zone] => (zone, None),
                [zone, n] => (zone, Some(n.parse::<u32>().map_err(|_| "usage: ask ZONE [N]".to_string())?)),
                _ => return Err("usage: ask ZONE [N]".into()),
            };
            Ok(Command::Ask(ZoneId::new(seat.opponent(), zone_kind(zone)?), count))
        }
        "refuse" => {
            let [zone] = args[..] else { return Err("usage: refuse ZONE".into()) };
            Ok(Command::Refuse(ZoneId::new(seat, zone_kind(zone)?)))
        }
        "life" => {
            let [value] = args[..] else { return Err("usage: life N".into()) };
            let value = value.parse::<i64>().map_err(|_| "usage: life N (a whole number)".to_string())?;
            Ok(Command::Act(Action::SetPlayerValue { key: "life".into(), value }))
        }
        "play" => {
            let usage = "usage: play CARD at X,Y [facedown]";
            let (card, xy, face_down) = match args[..] {
                [card, "at", xy] => (card, xy, false),
                [card, "at", xy, "facedown"] => (card, xy, true),
                _ => return Err(usage.into()),
            };
            let (x, y) = xy.split_once(',').ok_or_else(|| usage.to_string())?;
            let x = x.trim().parse::<i32>().map_err(|_| usage.to_string())?;
            let y = y.trim().parse::<i32>().map_err(|_| usage.to_string())?;
            Ok(Command::Act(Action::Move {
                card: card_id(card)?,
                to: ZoneId::new(seat, ZoneKind::Play),
                position: Position::Top,
                placement: Placement { x, y, face_down },
            }))
        }
        "move" => {
            let usage = "usage: move CARD [opponent] ZONE [top|bottom]";
            let (card, rest) = args.split_first().ok_or_else(|| usage.to_string())?;
            let (owner, rest) = match rest {
                ["opponent", rest @ ..] => (seat.opponent(), rest),
                rest => (seat, rest),
            };
            let (zone, position) = match rest {
                [zone] => (*zone, Position::Top),
                [zone, "top"] => (*zone, Position::Top),
                [zone, "bottom"] => (*zone, Position::Bottom),
                _ => return Err(usage.into()),
            };
            let kind = zone_kind(zone)?;
            Ok(Command::Act(Action::Move {
                card: card_id(card)?,
                to: ZoneId::new(owner, kind),
                position,
                placement: Placement::default(),
            }))
        }
        "shuffle" => no_args(Command::Act(Action::Shuffle { permutation: None })),
        "reveal" => {
            let (card, to) = match args[..] {
                [card] => (card, None),
                [card, "to", "opponent"] => (card, Some(seat.opponent())),
                _ => return Err("usage: reveal CARD [to opponent]".into()),
            };
            Ok(Command::Act(Action::Reveal { cards: vec![card_id(card)?], to }))
        }
        "roll" => {
            let usage = "usage: roll NdM (such as 2d6)";
            let [spec] = args[..] else { return Err(usage.into()) };
            let (count, sides) = spec.split_once('d').ok_or_else(|| usage.to_string())?;
            let count = if count.is_empty() { 1 } else { count.parse::<u32>().map_err(|_| usage.to_string())? };
            let sides = sides.parse::<u32>().map_err(|_| usage.to_string())?;
            let dice = Dice::new(count, sides).map_err(|e| e.to_string())?;
            Ok(Command::Act(Action::Roll { dice }))
        }
        "flip" => no_args(Command::Act(Action::Flip)),
        "take-from-library" => no_args(Command::Act(Action::TakeFromLibrary { count: 1 })),
        "next-turn" => no_args(Command::Act(Action::NextTurn)),
        "tap" | "untap" => {
            let [card] = args[..] else { return Err(format!("usage: {verb} CARD")) };
            Ok(Command::Act(Action::Tap { card: card_id(card)?, tapped: verb == "tap" }))
        }
        "counter" => {
            let usage = "usage: counter CARD NAME N (N = 0 removes it)";
            let [card, key, value] = args[..] else { return Err(usage.into()) };
            let value = value.parse::<i64>().map_err(|_| usage.to_string())?;
            let value = (value != 0).then_some(value);
            Ok(Command::Act(Action::SetCardValue { card: card_id(card)?, key: key.to_string(), value }))
        }
        "end" => no_args(Command::End),
        "forfeit" => no_args(Command::Forfeit),
        "new-game" if rest.is_empty() => Ok(Command::NewGame(None)),
        "new-game" => Ok(Command::NewGame(Some(PathBuf::from(rest)))),
        "say" if !rest.is_empty() => Ok(Command::Chat(rest.to_string())),
        "say" => Err("usage: say TEXT".into()),
        "table" => no_args(Command::Table),
        "wait" => no_args(Command::Wait),
        "quit" => no_args(Command::Quit),
        "new-code" => no_args(Command::NewCode),
        other => Err(format!("unknown command {other:?} (see `fairdeck --help`)")),
    }
}

fn one_number(args: &[&str], usage: &str) -> Result<u32, String> {
    match args {
        [n] => n.parse::<u32>().map_err(|_| format!("usage: {usage} (a whole number)")),
        _ => Err(format!("usage: {usage}")),
    }
}

fn zone_kind(name: &str) -> Result<ZoneKind, String> {
    ZoneKind::ALL
        .into_iter()
        .find(|k| k.name() == name)
        .ok_or_else(|| format!("unknown zone {name:?}: library, hand, graveyard, exile, play or sideboard"))
}

/// A card id as printed in events: `12` or `#12`.
fn card_id(text: &str) -> Result<CardId, String> {
    text.trim_start_matches('#').parse::<u32>().map(CardId).map_err(|_| format!("{text:?} is not a card id"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_parse() {
        let host = Seat::Host;
        assert_eq!(parse_command("draw 7", host), Ok(Command::Act(Action::Draw { count: 7 })));
        assert_eq!(
            parse_command("play #3 at 10,-2 facedown", host),
            Ok(Command::Act(Action::Move {
                card: CardId(3),
                to: ZoneId::new(Seat::Host, ZoneKind::Play),
                position: Position::Top,
                placement: Placement { x: 10, y: -2, face_down: true },
            }))
        );
        assert_eq!(
            parse_command("move 4 opponent graveyard bottom", Seat::Guest),
            Ok(Command::Act(Action::Move {
                card: CardId(4),
                to: ZoneId::new(Seat::Host, ZoneKind::Graveyard),
                position: Position::Bottom,
                placement: Placement::default(),
            }))
        );
        assert_eq!(
            parse_command("reveal 5 to opponent", host),
            Ok(Command::Act(Action::Reveal { cards: vec![CardId(5)], to: Some(Seat::Guest) }))
        );
        assert_eq!(parse_command("roll 2d6", host), Ok(Command::Act(Action::Roll { dice: Dice::new(2, 6).unwrap() })));
        assert_eq!(parse_command("say hello there", host), Ok(Command::Chat("hello there".into())));
        assert_eq!(parse_command("tap #12", host), Ok(Command::Act(Action::Tap { card: CardId(12), tapped: true })));
        assert_eq!(
            parse_command("counter 12 +1/+1 2", host),
            Ok(Command::Act(Action::SetCardValue { card: CardId(12), key: "+1/+1".into(), value: Some(2) }))
        );
        assert_eq!(parse_command("end", host), Ok(Command::End));
        assert_eq!(parse_command("forfeit", host), Ok(Command::Forfeit));
        assert_eq!(parse_command("mulligan", host), Ok(Command::Act(Action::Mulligan { draw: 7 })));
        assert_eq!(parse_command("ask hand", host), Ok(Command::Ask(ZoneId::hand(Seat::Guest), None)));
        assert_eq!(parse_command("ask library 3", host), Ok(Command::Ask(ZoneId::library(Seat::Guest), Some(3))));
        assert_eq!(parse_command("refuse hand", host), Ok(Command::Refuse(ZoneId::hand(host))));
        assert_eq!(parse_command("new-game", host), Ok(Command::NewGame(None)));
        assert_eq!(parse_command("new-game side.txt", host), Ok(Command::NewGame(Some(PathBuf::from("side.txt")))));
        assert!(parse_command("counter 12 poison", host).is_err());
        assert_eq!(
            parse_command("life -3", host),
            Ok(Command::Act(Action::SetPlayerValue { key: "life".into(), value: -3 }))
        );
    }

    fn waiting(seconds: u64) -> Waiting {
        Waiting { awaited: Awaited::Strip { cards: vec![CardId(12)] }, seconds }
    }

    #[test]
    fn a_wait_shows_after_a_few_seconds_and_is_overdue_once_per_exchange() {
        let start = tokio::time::Instant::now();
        let at = |seconds: u64| start + Duration::from_secs(seconds);
        let strip = || Some(Awaited::Strip { cards: vec![CardId(12)] });
        let mut clock = WaitClock::default();
        assert_eq!(clock.observe(strip(), at(0)), []);
        assert_eq!(clock.observe(strip(), at(4)), [], "an exchange takes a moment");
        assert_eq!(clock.observe(strip(), at(5)), [Output::Waiting(Some(waiting(5)))]);
        assert_eq!(clock.observe(strip(), at(5)), [], "the same second is not sent twice");
        assert_eq!(clock.observe(strip(), at(61)), [Output::Waiting(Some(waiting(61))), Output::Overdue(waiting(61))]);
        assert_eq!(clock.observe(strip(), at(62)), [Output::Waiting(Some(waiting(62)))]);
        // The strip came: the status line clears, and nothing more is said while nothing is awaited.
        assert_eq!(clock.observe(None, at(63)), [Output::Waiting(None)]);
        assert_eq!(clock.observe(None, at(200)), []);
        // The next exchange is timed from its own start, and is overdue in its turn.
        let shuffle = || Some(Awaited::Shuffle { library: Seat::Host });
        assert_eq!(clock.observe(shuffle(), at(300)), []);
        let outputs = clock.observe(shuffle(), at(400));
        assert_eq!(outputs.iter().filter(|o| matches!(o, Output::Overdue(_))).count(), 1, "{outputs:?}");
        // Another thing awaited straight after a shown one clears the line until it is worth showing.
        assert_eq!(clock.observe(strip(), at(401)), [Output::Waiting(None)]);
        assert_eq!(clock.observe(strip(), at(402)), []);
        // After a reconnection the same strip is timed afresh: the opponent may never have had the request.
        assert_eq!(clock.observe(strip(), at(407)), [Output::Waiting(Some(waiting(6)))]);
        assert_eq!(clock.restart(), Some(Output::Waiting(None)));
        assert_eq!(clock.observe(strip(), at(408)), []);
        assert_eq!(clock.observe(strip(), at(413)), [Output::Waiting(Some(waiting(5)))]);
    }

    #[test]
    fn the_host_of_a_relay_url_names_it_in_certificate_errors() {
        assert_eq!(host_of("wss://relay.example.org/v1"), "relay.example.org");
        assert_eq!(host_of("wss://relay.example.org:8443/v1?x=1"), "relay.example.org");
        assert_eq!(host_of("wss://user@localhost:9/v1"), "localhost");
        assert_eq!(host_of("wss://[::1]:9/v1"), "::1");
        assert_eq!(host_of("ws://127.0.0.1:7171"), "127.0.0.1");
    }

    #[test]
    fn bad_commands_say_why() {
        for line in [
            "draw",
            "draw x",
            "play 3 at 1",
            "move 3 swamp",
            "roll 0d6",
            "roll 2d",
            "say",
            "dance",
            "wait 3",
            "forfeit now",
            "ask",
            "ask deck",
            "ask hand x",
        ] {
            assert!(parse_command(line, Seat::Host).is_err(), "{line} should be refused");
        }
    }
}
