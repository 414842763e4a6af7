//! The end-to-end channel between the two players, sans-IO.
//!
//! The relay forwards binary frames byte-exact but may drop them (a peer away, a restart, Redis pub/sub) and,
//! being untrusted, may replay, reorder, truncate or alter them. This module turns that into an authenticated,
//! encrypted, reliable and ordered message stream. It does no I/O: the caller feeds received frames to
//! [`Channel::handle_frame`], hands what [`Channel::poll_frame`] returns to the relay, takes delivered
//! messages from [`Channel::poll_message`], and calls [`Channel::resend_unacked`] after every reconnection
//! (`resumed`) and on `peer_back`.
//!
//! Once established, a channel can be saved and restored ([`Channel::saved_keys`], [`Channel::restore`]): a
//! message is sealed into its data frames as soon as it is sent, so the frames a save holds are exactly the
//! frames that may have left. A restored channel resends those frames byte-identical and seals everything new
//! in a run of its own (below), so no copy of a save, resumed once or twice, now or from an old backup, ever
//! seals a second plaintext under a used key and nonce.
//!
//! # Runs
//!
//! Every process that uses a channel (the one that made it, and each restore) is a *run*, with a random
//! 16-byte run id drawn when it starts. The run id travels in clear in every data and ack frame it seals,
//! and picks the key: `HKDF-SHA256(salt = run id, ikm = the direction's key, info = "fairdeck channel v2
//! run")`. The counters go on from the save, so an honest peer's runs take turns: each seals the data frames
//! from where the one before stopped, and its ack frames are numbered after the one before's. The receiver
//! records where each of the peer's runs began in its data frames, and so knows, for every number it has
//! taken, which run sealed it. Two runs sealing the same number (a save resumed twice, or an old copy of it)
//! is a *fork*: [`ChannelError::Forked`], fatal, never a silent duplicate.
//!
//! # Handshake
//!
//! Both sides send `HELLO` (their side and a symmetric SPAKE2 message, password = the words of the code,
//! identity = the nameplate). Each then derives, with HKDF-SHA256 from the SPAKE2 key, one confirmation value
//! and one ChaCha20-Poly1305 key per direction, and sends `CONFIRM` with its own confirmation value. A side is
//! established once the peer's `CONFIRM` matches: with a wrong code (or a relay guessing it) the values differ
//! on both sides and both get [`ChannelError::WrongCode`] before any game data is sent.
//!
//! # Frame format
//!
//! All integers are big-endian.
//!
//! | frame     | layout                                                                  |
//! |-----------|-------------------------------------------------------------------------|
//! | `HELLO`   | `0x01`, version `0x02`, side (`0` host, `1` guest), SPAKE2 message (33)      |
//! | `CONFIRM` | `0x02`, confirmation value (32)                                              |
//! | `DATA`    | `0x03`, run id (16), seq (u64), ack (u64), AEAD(`flags` (u8) ‖ fragment)     |
//! | `ACK`     | `0x04`, run id (16), counter (u64), ack (u64), AEAD(empty)                   |
//!
//! The AEAD associated data is the 33-byte header; the key is the sender's run key; the nonce is
//! `type ‖ 0 0 0 ‖ number` (the data frame's sequence number, or the ack frame's own counter). A run seals each
//! number once, each key serves one direction of one run, and run ids are random: no nonce is ever used twice
//! with a key. A data frame, once encrypted, is kept and resent byte-identical, by a later run too, under its
//! own run id (re-encrypting it with a fresher ack would reuse its nonce). `ack` is cumulative: the number of
//! data frames received in order. `flags` bit 0 marks the last fragment of a message.
//!
//! Acknowledgements must grow. An ack frame numbered below one already taken is old (the relay may replay or
//! reorder frames) and moves nothing; a newer one that acknowledges less than the one before, or a data frame
//! that acknowledges less than the data frame before it, comes from a peer that forgot what it had received
//! (an old copy of its save): [`ChannelError::AckWentBack`].
//!
//! Every data frame carries an ack, so a side need not send an ack frame of its own for a message it answers:
//! [`Channel::owes_ack`] says whether one may wait for that ([`Channel::poll_data_frame`] leaves it out,
//! [`Channel::poll_ack`] makes it). Fragments of a message under way, and many frames, are acknowledged at once:
//! the sender's window closes on what is unacknowledged.
//!
//! # Rendezvous
//!
//! The same HKDF also gives one secret per seat (info `rendezvous seat host` and `rendezvous seat guest`, 32
//! bytes each). Each is the secret key of an Ed25519 key pair ([`fairdeck_relay_protocol::SeatKey`]); the relay's
//! rendezvous room is the hash of the two public keys ([`fairdeck_relay_protocol::rendezvous_room`]), and a seat
//! is taken by signing the connection's challenge: the two players can meet again on any relay with no code,
//! nobody without the key can take a seat, and no relay ever sees a secret it could use at another. A wrong
//! code gives other secrets, so a guesser never finds the room either.
//!
//! # Errors
//!
//! Every error returned by [`Channel::handle_frame`] is fatal: the channel is then failed and every later call
//! returns the same error, because anything that is not a duplicate can only come from tampering, a peer that
//! breaks the protocol, or the wrong code. What is dropped silently: data frames that authenticate and are
//! the very frame already taken (a retransmission: same number, same run), ack frames older than one already
//! taken, a repeated identical `HELLO`/`CONFIRM`, and data or ack frames that arrive before the key exists
//! (the peer resends them after the handshake is repaired).
//!
//! # Files
//!
//! | file | job |
//! |---|---|
//! | `mod.rs` | the frame format's constants, [`Side`], [`Channel`] and what it tells of itself |
//! | `handshake.rs` | `HELLO` and `CONFIRM`, the key exchange started again for another peer |
//! | `send.rs` | messages into sealed data frames, the send window, acks owed and made, resending |
//! | `receive.rs` | a frame from the relay opened and taken in order, acks taken, messages reassembled |
//! | `keys.rs` | the keys from the key exchange, each run's key and nonce, the [`Rendezvous`] |
//! | `saved.rs` | what a save holds ([`SavedKeys`], [`Progress`], [`SavedState`]) and the channel restored from it |
//! | `error.rs` | [`ChannelError`] |

mod error;
mod handshake;
mod keys;
mod receive;
mod saved;
mod send;

use std::collections::{BTreeMap, VecDeque};
use std::fmt;

use hkdf::Hkdf;
use rand_chacha::ChaCha20Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};
use sha2::Sha256;
use spake2::{Ed25519Group, Identity, Password, Spake2};

pub use error::ChannelError;
use keys::Keys;
pub(crate) use keys::Rendezvous;
pub(crate) use saved::Progress;
pub use saved::{SavedKeys, SavedState};

/// Largest message the channel sends or reassembles: a hostile peer cannot make us hold more than this.
pub(crate) const MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;
/// The relay's default `max_message_bytes` (docs/RELAY.md); frames are never larger.
pub const DEFAULT_MAX_FRAME_BYTES: usize = 64 * 1024;
/// How far ahead of the next expected data frame a receiver accepts a sequence number. An honest sender
/// never has more unacknowledged, so a frame beyond it is an error.
pub(crate) const WINDOW: u64 = 256;
/// Data frames this side keeps unacknowledged, at most. With [`SEND_WINDOW_BYTES`] it keeps what waits in
/// the relay for a busy peer (one computing a shuffle proof does not read for a while) within half of the
/// relay's default outbound queue (256 frames, 512 KiB), which cuts off a reader that lets it overflow.
pub const SEND_WINDOW_FRAMES: u64 = WINDOW / 2;
/// Bytes of data frames this side keeps unacknowledged, at most (one frame may always be in flight).
pub const SEND_WINDOW_BYTES: usize = 256 * 1024;

/// Data frames received before an ack leaves even when this side has no message of its own to carry it.
const ACK_AT_THE_LATEST: u64 = 16;

/// What a side owes the peer in acks ([`Channel::owes_ack`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OwedAck {
    Nothing,
    /// Owed, and may wait a little for a data frame to carry it.
    MayWait,
    /// Owed, and should leave now.
    Now,
}

const VERSION: u8 = 2;
const T_HELLO: u8 = 0x01;
const T_CONFIRM: u8 = 0x02;
const T_DATA: u8 = 0x03;
const T_ACK: u8 = 0x04;
const SPAKE2_MSG_LEN: usize = 33;
const HELLO_LEN: usize = 3 + SPAKE2_MSG_LEN;
const CONFIRM_LEN: usize = 1 + 32;
/// Type, run id, number, ack.
const HEADER_LEN: usize = 1 + RUN_ID_LEN + 8 + 8;
const NUMBER_AT: usize = 1 + RUN_ID_LEN;
const ACK_AT: usize = NUMBER_AT + 8;
/// The peer's runs a receiver records, at most: one per resume of the peer's game; beyond, the peer is
/// broken or hostile.
pub(crate) const MAX_PEER_RUNS: usize = 1024;
const TAG_LEN: usize = 16;
const FLAG_LAST: u8 = 1;
/// Smallest frame limit accepted: header, tag, flags and a useful fragment.
const MIN_FRAME_BYTES: usize = 256;

/// Length of a run id.
pub const RUN_ID_LEN: usize = 16;

/// A run's random id (see the module documentation).
pub type RunId = [u8; RUN_ID_LEN];

/// Where one of the peer's runs began in its data frames: the first number the receiver took from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunStart {
    pub seq: u64,
    #[serde(with = "fairdeck_shared::serde_hex::array")]
    pub run: RunId,
}

/// Which seat this client has. The two sides must differ; it picks the direction of each key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// The player who created the room.
    Host,
    /// The player who joined it.
    Guest,
}

impl Side {
    /// The seat number, as the relay's `rendezvous` takes it.
    pub fn byte(self) -> u8 {
        match self {
            Side::Host => 0,
            Side::Guest => 1,
        }
    }
}

/// A data frame taken ahead of its turn.
struct Ahead {
    run: RunId,
    ack: u64,
    fragment: Vec<u8>,
}

enum Handshake {
    /// Our HELLO is out; waiting for the peer's.
    Started(Spake2<Ed25519Group>),
    /// Keys derived; waiting for the peer's CONFIRM.
    Confirming,
    /// The peer's CONFIRM matched.
    Established,
}

/// The end-to-end channel state machine. See the module documentation.
pub struct Channel {
    side: Side,
    /// This process's run.
    run: RunId,
    max_frame: usize,
    max_message: usize,
    handshake: Option<Handshake>,
    keys: Option<Keys>,
    failed: Option<ChannelError>,

    my_hello: Vec<u8>,
    my_confirm: Option<Vec<u8>>,
    peer_hello: Option<Vec<u8>>,
    /// Until an authenticated frame from the peer proves it has our HELLO and CONFIRM, resends include them.
    peer_proved_established: bool,

    /// Control frames (handshake) ready to go, before data.
    out: VecDeque<Vec<u8>>,
    /// Fragments (flags ‖ chunk) waiting for the channel to be established.
    to_send: VecDeque<Vec<u8>>,
    /// Encrypted data frames not yet acknowledged, sequence numbers `acked..next_seq`; those below
    /// `transmitted` have been given to the relay.
    unacked: VecDeque<Vec<u8>>,
    next_seq: u64,
    transmitted: u64,
    acked: u64,
    ack_counter: u64,

    /// Next data frame expected; also the cumulative ack we send.
    recv_next: u64,
    last_ack_sent: u64,
    /// Where each of the peer's runs began, in order: which run sealed each number below `recv_next`.
    peer_runs: Vec<RunStart>,
    peer_data_ack: u64,
    peer_ack_next: u64,
    peer_ack_latest: u64,
    /// Authenticated fragments that arrived ahead of `recv_next`.
    ahead: BTreeMap<u64, Ahead>,
    ahead_bytes: usize,
    reassembly: Vec<u8>,
    delivered: VecDeque<Vec<u8>>,
    delivered_count: u64,
}

impl fmt::Debug for Channel {
    // Only counters and state: never the password, the keys or any plaintext.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Channel")
            .field("side", &self.side)
            .field("established", &self.is_established())
            .field("failed", &self.failed)
            .field("next_seq", &self.next_seq)
            .field("acked", &self.acked)
            .field("recv_next", &self.recv_next)
            .field("queued_fragments", &self.to_send.len())
            .finish_non_exhaustive()
    }
}

impl Channel {
    /// Starts the handshake: the first [`poll_frame`](Self::poll_frame) returns our `HELLO`.
    /// `rng_seed` must be fresh secret randomness (it makes the run id and the SPAKE2 scalar).
    pub fn new(side: Side, code_words: &str, nameplate: &str, rng_seed: [u8; 32]) -> Self {
        let identity = Identity::new(format!("fairdeck/v1 nameplate {nameplate}").as_bytes());
        let mut rng = ChaCha20Rng::from_seed(rng_seed);
        let mut run = RunId::default();
        rng.fill_bytes(&mut run);
        let (spake, msg) =
            Spake2::<Ed25519Group>::start_symmetric_with_rng(&Password::new(code_words.as_bytes()), &identity, rng);
        let mut my_hello = Vec::with_capacity(HELLO_LEN);
        my_hello.extend_from_slice(&[T_HELLO, VERSION, side.byte()]);
        my_hello.extend_from_slice(&msg);
        debug_assert_eq!(my_hello.len(), HELLO_LEN);
        Channel {
            side,
            run,
            max_frame: DEFAULT_MAX_FRAME_BYTES,
            max_message: MAX_MESSAGE_BYTES,
            handshake: Some(Handshake::Started(spake)),
            keys: None,
            failed: None,
            out: VecDeque::from([my_hello.clone()]),
            my_hello,
            my_confirm: None,
            peer_hello: None,
            peer_proved_established: false,
            to_send: VecDeque::new(),
            unacked: VecDeque::new(),
            next_seq: 0,
            transmitted: 0,
            acked: 0,
            ack_counter: 0,
            recv_next: 0,
            last_ack_sent: 0,
            peer_runs: Vec::new(),
            peer_data_ack: 0,
            peer_ack_next: 0,
            peer_ack_latest: 0,
            ahead: BTreeMap::new(),
            ahead_bytes: 0,
            reassembly: Vec::new(),
            delivered: VecDeque::new(),
            delivered_count: 0,
        }
    }

    /// This process's run id.
    pub fn run(&self) -> RunId {
        self.run
    }

    /// Where to meet the peer again at a relay, once the keys exist.
    pub fn rendezvous(&self) -> Option<Rendezvous> {
        let raw = &self.keys.as_ref()?.raw;
        Some(Rendezvous::of(&raw.rendezvous, self.side))
    }

    /// This seat's watch secret, once the keys exist: HKDF-SHA256 of the seat's rendezvous secret with a label of
    /// its own (`fairdeck watch code`). The watch code's words come from it, so a resumed game (whose save holds
    /// the rendezvous secrets) gives its spectators the same code, and the save's format stays as it is.
    pub fn watch_secret(&self) -> Option<[u8; 32]> {
        let raw = &self.keys.as_ref()?.raw;
        let mut secret = [0u8; 32];
        Hkdf::<Sha256>::new(None, &raw.rendezvous[usize::from(self.side.byte())])
            .expand(b"fairdeck watch code", &mut secret)
            .expect("32 bytes is a valid HKDF-SHA256 length");
        Some(secret)
    }

    /// Sets the largest frame to emit (the relay's `max_message_bytes` from `welcome`). Applies to messages
    /// queued from now on; values below 256 bytes are raised to 256.
    pub fn set_max_frame_bytes(&mut self, max: usize) {
        self.max_frame = max.max(MIN_FRAME_BYTES);
    }

    /// Lowers the largest message this side sends or accepts to reassemble (at most [`MAX_MESSAGE_BYTES`]).
    pub fn set_max_message_bytes(&mut self, max: usize) {
        self.max_message = max.min(MAX_MESSAGE_BYTES);
    }

    /// Data frames sent and not yet acknowledged by the peer, and fragments waiting for the channel.
    pub fn unacked_frames(&self) -> usize {
        self.unacked.len() + self.to_send.len()
    }

    /// Whether the peer's HELLO came.
    pub fn has_peer_hello(&self) -> bool {
        self.peer_hello.is_some()
    }

    /// Whether the peer has proved it holds the same key: game data may flow.
    pub fn is_established(&self) -> bool {
        matches!(self.handshake, Some(Handshake::Established))
    }

    /// The fatal error the channel stopped on, if any.
    pub fn error(&self) -> Option<&ChannelError> {
        self.failed.as_ref()
    }

    /// The next message delivered by the peer, in the order it sent them, each exactly once.
    pub fn poll_message(&mut self) -> Option<Vec<u8>> {
        self.delivered.pop_front()
    }

    /// Whether a message is waiting for [`poll_message`](Self::poll_message).
    pub fn has_message(&self) -> bool {
        !self.delivered.is_empty()
    }
}
