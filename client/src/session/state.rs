//! What a session holds while it runs: the [`Session`] every other file of the loop works on, and the small
//! states it is made of.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use fairdeck_shared::crypto::Ristretto255;
use fairdeck_shared::engine::Engine;
use rand::Rng;

use super::link::Link;
use super::wait_clock::{AbsenceClock, WaitClock, forfeit_grace};
use crate::channel::Channel;
use crate::code::Code;
use crate::command::{Browsing, Entered, TopWatch};
use crate::save::{RelayPlace, SaveFile};

pub(super) struct Session {
    pub engine: Engine<Ristretto255>,
    pub channel: Channel,
    /// The WebSocket while it is up, else the reconnection under way (or none, once the room is over).
    pub link: Link,
    /// Binary frames may go to the relay only once both seats are taken.
    pub paired: bool,
    /// Whether the `channel` event (the peer proved it knows the code) was written.
    pub announced: bool,
    /// From the relay's `closing`: when to reconnect, and for how long to keep trying.
    pub restart_hint: Option<(Duration, Duration)>,
    /// Set by the first `quit`: until then, it waits for the peer to acknowledge what was sent.
    pub quit_deadline: Option<tokio::time::Instant>,
    /// Commands read but not run yet: table commands wait for set-up, `wait` for an idle engine.
    pub queue: VecDeque<Entered>,
    pub input_done: bool,
    pub wait_clock: WaitClock,
    /// The relay, its CA, and the seat's token there while the relay knows it.
    pub relay: RelayPlace,
    pub tls: Arc<rustls::ClientConfig>,
    /// The game's code: the host rebuilds its channel from it for each new guest. A resumed game has none.
    pub code: Option<Code>,
    /// Hosting, before the channel is up: whether a guest's frames are taken.
    pub door: Door,
    /// Hosting: guests sent away on the current code.
    pub wrong_codes: u32,
    /// Where the save is created once the channel is up.
    pub games: PathBuf,
    pub save: Option<SaveFile>,
    /// The opponent's name, from its hello.
    pub opponent: Option<String>,
    /// Whether the relay says the opponent holds its seat: a game whose opponent left can be claimed, once
    /// `absence` says the grace passed. Set with [`Session::peer_is_here`].
    pub peer_here: bool,
    pub absence: AbsenceClock,
    /// The search, scry or surveil open, if any.
    pub browsing: Option<Browsing>,
    /// Whether the top card of the library is kept looked at or revealed (`always-look`, `always-reveal`).
    pub top_watch: Option<TopWatch>,
}

impl Session {
    /// A session in its first state: not paired, nothing queued, no code, no save yet, the door open.
    pub fn new(
        engine: Engine<Ristretto255>,
        channel: Channel,
        link: Link,
        relay: RelayPlace,
        tls: Arc<rustls::ClientConfig>,
        games: PathBuf,
    ) -> Session {
        Session {
            engine,
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
            tls,
            code: None,
            door: Door::Open,
            wrong_codes: 0,
            games,
            save: None,
            opponent: None,
            peer_here: false,
            absence: AbsenceClock::new(forfeit_grace()),
            browsing: None,
            top_watch: None,
        }
    }
}

impl Session {
    /// Takes in the relay's word on whether the opponent holds its seat.
    pub fn peer_is_here(&mut self, here: bool) {
        self.peer_here = here;
        self.absence.peer(here, tokio::time::Instant::now());
    }
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

/// What the loop should do after a command.
pub(super) enum Flow {
    Continue,
    Quit,
}

/// 32 bytes of the operating system's randomness: the seed of an engine or of a key exchange.
pub(super) fn os_seed() -> [u8; 32] {
    let mut seed = [0u8; 32];
    rand::rng().fill_bytes(&mut seed);
    seed
}
