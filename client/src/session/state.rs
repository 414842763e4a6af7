//! What the session core holds: the [`SessionCore`] every file of the core works on, and the small states it
//! is made of. The core's inputs and outputs are in `core.rs`.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use fairdeck_relay_protocol::ClientMessage;
use fairdeck_shared::crypto::{Group, Suite};
use fairdeck_shared::engine::{DeckList, Engine};
use rand::Rng;
use rand_chacha::ChaCha20Rng;
use rand_chacha::rand_core::SeedableRng;

use super::building::Limited;
use super::clocks::Clocks;
use super::error::SessionError;
use super::frontend::Output;
use super::hosting::Hosting;
use super::outbox::{Outbox, ToRelay};
use super::queue::CommandQueue;
use super::spectators::WatchHub;
use super::timers::TimerTable;
use super::uplink::Uplink;
use super::watch_state::Watching;
use crate::channel::Channel;
use crate::code::Code;
use crate::command::{Browsing, TopWatch};

/// One game's session without I/O: the engine and the channel, and the parts the core drives them with, each
/// owning its data: the link, the player's commands, hosting, the clocks, the timers, what the driver is to do.
/// The driver (`event_loop.rs`) feeds it and does what it asks; see `core.rs`.
pub(super) struct SessionCore<G: Group> {
    pub engine: Engine<G>,
    /// Whether the engine plays the game's suite yet: a guest's waits for the host's hello (`meeting.rs`).
    pub meeting: Meeting,
    pub channel: Channel,
    /// The link to the relay as the core knows it; the driver holds the WebSocket.
    pub uplink: Uplink,
    /// Commands read but not run yet.
    pub commands: CommandQueue,
    /// The game's code and who is let in, until a guest proved it.
    pub hosting: Hosting,
    /// The wait on the opponent and its absence.
    pub clocks: Clocks,
    /// Every deadline of the core; [`SessionCore::poll_timeout`] is the earliest.
    pub timers: TimerTable,
    /// What the driver is to do, in order; and whether to save.
    pub outbox: Outbox,
    /// The player's spectators: their channels, the watch link, the delay.
    pub watching: Watching,
    /// The search, scry or surveil open, if any.
    pub browsing: Option<Browsing>,
    /// Whether the top card of the library is kept looked at or revealed (`always-look`, `always-reveal`).
    pub top_watch: Option<TopWatch>,
    /// The next game's deck as `sideboard` left it, until `new-game` takes it.
    pub sideboarded: Option<DeckList>,
    /// Limited play: the pool as dealt and the deck being built from it.
    pub limited: Limited,
    /// The opponent's name, from its hello.
    pub opponent: Option<String>,
    /// Whether the `channel` event (the peer proved it knows the code) was written.
    pub announced: bool,
    /// The save file, once the driver made it: named when the seat is lost for good.
    pub saved_at: Option<PathBuf>,
    /// Where the journal goes when the session ends (`--record`, or the resumed game's own), absolute.
    pub record: Option<PathBuf>,
    /// Untap and draw for the player when the opponent passes the turn to it.
    pub untap_draw: bool,
    /// The time of the input being handled: the core reads no clock.
    pub now: Instant,
    /// The core's randomness, from the seed it was given: new key exchanges' seeds, new code words, token nonces.
    pub rng: ChaCha20Rng,
    /// Where the turn after the last input stands (see `SessionCore::advance`).
    pub stage: Stage,
    /// When an ack held back (`outbound.rs`) leaves even with no message of ours to carry it.
    pub ack_deadline: Option<Instant>,
    /// How the session ended, once it did; the driver hands over what is queued, then stops with it.
    pub end: Option<Result<(), SessionError>>,
}

impl<G: Group> SessionCore<G> {
    /// A session in its first state at `now`: not paired, nothing queued, no code, no save yet, the door open, the
    /// engine's suite the game's (a guest's session says otherwise: `meeting.rs`).
    /// Its randomness comes from `seed`; `forfeit` may claim the game against an absence of `forfeit_grace`.
    pub fn new(
        engine: Engine<G>,
        channel: Channel,
        uplink: Uplink,
        seed: [u8; 32],
        forfeit_grace: Duration,
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
            uplink,
            commands: CommandQueue::default(),
            hosting: Hosting::new(None),
            clocks: Clocks::new(forfeit_grace),
            timers: TimerTable::default(),
            outbox: Outbox::default(),
            watching,
            browsing: None,
            top_watch: None,
            sideboarded: None,
            limited: Limited::default(),
            opponent: None,
            announced: false,
            saved_at: None,
            record: None,
            untap_draw: false,
            now,
            rng,
            stage: Stage::Pump,
            ack_deadline: None,
            end: None,
        }
    }

    /// The same session, its game's code `code` (a resumed game has none).
    pub fn with_code(mut self, code: Code) -> Self {
        self.hosting = Hosting::new(Some(code));
        self
    }

    /// Takes in the relay's word on whether the opponent holds its seat.
    pub fn peer_is_here(&mut self, here: bool) {
        self.clocks.peer(here, self.now);
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
        self.outbox.show(output);
    }

    /// Sends a control message to the relay, if the link is up (a lost one shows on the next read).
    pub fn send_control(&mut self, message: ClientMessage) {
        if self.uplink.is_up() {
            self.outbox.transmit(ToRelay::Control(message));
        }
    }
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

/// What the queue did with its next command.
pub(super) enum Flow {
    /// A command ran (or was refused): the engine and the channel move, then the next one.
    Ran,
    /// The next command waits (or none is queued).
    Blocked,
    /// The next command asked the driver for a file: it runs with the answer, the driver's next input.
    Asked,
    Quit,
}
