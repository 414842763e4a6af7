//! What the session core holds: the [`SessionCore`] every file of the core works on, and the small states it
//! is made of. The core's inputs and outputs are in `core.rs`.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use fairdeck_relay_protocol::ClientMessage;
use fairdeck_shared::crypto::{Group, Suite};
use fairdeck_shared::engine::{DeckList, Engine};
use rand::Rng;
use rand_chacha::ChaCha20Rng;
use rand_chacha::rand_core::SeedableRng;

use super::building::Limited;
use super::claim::{Claim, LinkAction, WatchAction};
use super::error::SessionError;
use super::frontend::Output;
use super::spectators::WatchHub;
use super::wait_clock::{AbsenceClock, WaitClock, forfeit_grace};
use super::watch_state::Watching;
use crate::channel::Channel;
use crate::code::Code;
use crate::command::{Browsing, Entered, TopWatch};
use crate::save::RelayPlace;

/// One game's session without I/O: the engine, the channel, the player's commands, hosting and the link's
/// reconnection as timers. The driver (`event_loop.rs`) feeds it and does what it asks; see `core.rs`.
pub(super) struct SessionCore<G: Group> {
    pub engine: Engine<G>,
    /// Whether the engine plays the game's suite yet: a guest's waits for the host's hello (`meeting.rs`).
    pub meeting: Meeting,
    pub channel: Channel,
    /// What the core knows of the link to the relay; the driver holds the WebSocket.
    pub link: LinkState,
    /// Binary frames may go to the relay only once both seats are taken.
    pub paired: bool,
    /// Whether the `channel` event (the peer proved it knows the code) was written.
    pub announced: bool,
    /// From the relay's `closing`: when to reconnect, and for how long to keep trying.
    pub restart_hint: Option<(Duration, Duration)>,
    /// Set by the first `quit`: until then, it waits for the peer to acknowledge what was sent.
    pub quit_deadline: Option<Instant>,
    /// Commands read but not run yet: table commands wait for set-up, `wait` for an idle engine.
    pub queue: VecDeque<Entered>,
    pub input_done: bool,
    pub wait_clock: WaitClock,
    /// The relay, its CA, and the seat's token there while the relay knows it.
    pub relay: RelayPlace,
    /// The game's code: the host rebuilds its channel from it for each new guest. A resumed game has none.
    pub code: Option<Code>,
    /// Hosting, before the channel is up: whether a guest's frames are taken.
    pub door: Door,
    /// Hosting: guests sent away on the current code.
    pub wrong_codes: u32,
    /// The save file, once the driver made it: named when the seat is lost for good.
    pub saved_at: Option<PathBuf>,
    /// The opponent's name, from its hello.
    pub opponent: Option<String>,
    /// Where the journal goes when the session ends (`--record`, or the resumed game's own), absolute.
    pub record: Option<PathBuf>,
    /// Untap and draw for the player when the opponent passes the turn to it.
    pub untap_draw: bool,
    /// Whether the relay says the opponent holds its seat: a game whose opponent left can be claimed, once
    /// `absence` says the grace passed. Set with [`SessionCore::peer_is_here`].
    pub peer_here: bool,
    pub absence: AbsenceClock,
    /// The search, scry or surveil open, if any.
    pub browsing: Option<Browsing>,
    /// Whether the top card of the library is kept looked at or revealed (`always-look`, `always-reveal`).
    pub top_watch: Option<TopWatch>,
    /// Limited play: the pool as dealt and the deck being built from it.
    pub limited: Limited,
    /// The next game's deck as `sideboard` left it, until `new-game` takes it.
    pub sideboarded: Option<DeckList>,
    /// The time of the input being handled: the core reads no clock.
    pub now: Instant,
    /// The core's randomness, from the seed it was given: new key exchanges' seeds, new code words, token nonces.
    pub rng: ChaCha20Rng,
    /// The player's spectators: their channels, the watch link, the delay.
    pub watching: Watching,
    /// Where the turn after the last input stands (see `SessionCore::advance`).
    pub stage: Stage,
    /// What the driver is to do, in order: shows, sends, link actions; and whether to save.
    pub outputs: VecDeque<Output>,
    pub transmits: VecDeque<ToRelay>,
    pub link_actions: VecDeque<LinkAction>,
    pub watch_actions: VecDeque<WatchAction>,
    pub save_due: Option<SavePoint>,
    /// When an ack held back (`outbound.rs`) leaves even with no message of ours to carry it.
    pub ack_deadline: Option<Instant>,
    /// How the session ended, once it did; the driver hands over what is queued, then stops with it.
    pub end: Option<Result<(), SessionError>>,
}

impl<G: Group> SessionCore<G> {
    /// A session in its first state at `now`: not paired, nothing queued, no code, no save yet, the door open, the
    /// engine's suite the game's (a guest's session says otherwise: `meeting.rs`).
    /// Its randomness comes from `seed`.
    pub fn new(
        engine: Engine<G>,
        channel: Channel,
        link: LinkState,
        relay: RelayPlace,
        seed: [u8; 32],
        now: Instant,
    ) -> Self {
        let mut rng = ChaCha20Rng::from_seed(seed);
        let mut watch_seed = [0u8; 32];
        rng.fill_bytes(&mut watch_seed);
        let watching = Watching::new(WatchHub::new(engine.seat(), G::SUITE, watch_seed));
        SessionCore {
            engine,
            meeting: Meeting::Met,
            channel,
            link,
            paired: false,
            announced: false,
            restart_hint: None,
            quit_deadline: None,
            queue: VecDeque::new(),
            input_done: false,
            wait_clock: WaitClock::default(),
            relay,
            code: None,
            door: Door::Open,
            wrong_codes: 0,
            saved_at: None,
            opponent: None,
            record: None,
            untap_draw: false,
            peer_here: false,
            absence: AbsenceClock::new(forfeit_grace()),
            browsing: None,
            top_watch: None,
            limited: Limited::default(),
            sideboarded: None,
            now,
            rng,
            watching,
            stage: Stage::Pump,
            outputs: VecDeque::new(),
            transmits: VecDeque::new(),
            link_actions: VecDeque::new(),
            watch_actions: VecDeque::new(),
            save_due: None,
            ack_deadline: None,
            end: None,
        }
    }

    /// Takes in the relay's word on whether the opponent holds its seat.
    pub fn peer_is_here(&mut self, here: bool) {
        self.peer_here = here;
        self.absence.peer(here, self.now);
    }

    /// The seed of a new key exchange.
    pub fn seed(&mut self) -> [u8; 32] {
        let mut seed = [0u8; 32];
        self.rng.fill_bytes(&mut seed);
        seed
    }

    /// Tells the player `output` (the driver shows it with the engine as it stands then).
    pub fn show(&mut self, output: Output) {
        if let Output::Engine(event) = &output {
            self.limited.see(event);
        }
        self.outputs.push_back(output);
    }

    /// Sends a control message to the relay, if the link is up (a lost one shows on the next read).
    pub fn send_control(&mut self, message: ClientMessage) {
        if self.link.is_up() {
            self.transmits.push_back(ToRelay::Control(message));
        }
    }
}

/// A save point: the engine and the channel settled, and whether anything is about to leave.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SavePoint {
    /// Frames leave after it (to the opponent or to spectators): everything they follow from is saved first.
    Sending,
    /// Nothing leaves: what came in may wait for the next save (the opponent keeps every frame until it is
    /// acknowledged, and this side acknowledges only what is saved); where the game stands is saved now.
    Settled,
}

/// What goes to the relay on the link that is up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum ToRelay {
    /// A frame of the end-to-end channel.
    Frame(Vec<u8>),
    Control(ClientMessage),
}

/// The link as the core knows it.
#[derive(Debug)]
pub(super) enum LinkState {
    /// A WebSocket is up, the seat on it.
    Up,
    /// The seat is to be taken back at `retry.at`: the core's timer.
    Waiting(Retry),
    /// The driver is connecting and claiming the seat.
    Attempting(Retry),
    /// No connection and none tried: the room is over and the game does not go on there (or the session is
    /// leaving).
    Closed,
}

impl LinkState {
    pub fn is_up(&self) -> bool {
        matches!(self, LinkState::Up)
    }
}

/// One attempt to take the seat back, and what to do if it fails.
#[derive(Clone, Debug)]
pub(super) struct Retry {
    pub claim: Claim,
    /// When the attempt is to start.
    pub at: Instant,
    /// After this, a failed attempt ends the session (the game is saved: `fairdeck resume` goes on).
    pub deadline: Instant,
    /// The wait before the next attempt if this one fails.
    pub delay: Duration,
}

/// Where the turn after an input stands: the steps of the loop, each run on its own so that the driver shows
/// what one step told before the next changes the engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Stage {
    /// Engine ↔ channel ↔ relay until nothing moves.
    Pump,
    /// The open search, scry or surveil shown once answered.
    Browse,
    /// The top-card watch.
    Watch,
    /// The next queued command.
    Queue,
    /// Engine ↔ channel ↔ relay after a command, then the next command.
    QueuePump,
    /// The wait and absence clocks.
    Clocks,
    /// Nothing more to do until the next input or timeout.
    Idle,
}

/// Whether the engine plays the game's suite yet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Meeting {
    /// A guest before the host's first message: its engine is held back until then (`meeting.rs`).
    Awaiting,
    /// The host's first message names another suite: the session goes on in it, with that message (`hello`).
    Elsewhere { suite: Suite, hello: Vec<u8> },
    /// The engine plays the game's suite: hosting, a resumed game, or a guest that met the host's.
    Met,
}

/// Hosting, before the key exchange succeeded: whether the next guest's frames go to the channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Door {
    /// A guest may be exchanging keys (or none has joined yet).
    Open,
    /// A guest was sent away (`reopen` is out): frames still on their way from it are dropped.
    Reopening,
    /// [`WRONG_CODES_PER_CODE`](super::WRONG_CODES_PER_CODE) guests were sent away: nobody else is let in
    /// until `new-code`.
    Closed,
}

/// What the queue did with its next command.
pub(super) enum Flow {
    /// A command ran (or was refused): the engine and the channel move, then the next one.
    Ran,
    /// The next command waits (or none is queued).
    Blocked,
    Quit,
}

/// 32 bytes of the operating system's randomness: the seed of an engine or of a key exchange.
pub(crate) fn os_seed() -> [u8; 32] {
    let mut seed = [0u8; 32];
    rand::rng().fill_bytes(&mut seed);
    seed
}
