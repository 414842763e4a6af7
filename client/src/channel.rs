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

use std::collections::{BTreeMap, VecDeque};
use std::fmt;

use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{ChaCha20Poly1305, Key, Nonce};
use fairdeck_relay_protocol::{CHALLENGE_BYTES, ClientMessage, SeatKey};
use hkdf::Hkdf;
use rand_chacha::ChaCha20Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};
use sha2::Sha256;
use spake2::{Ed25519Group, Identity, Password, Spake2};

/// Largest message the channel sends or reassembles: a hostile peer cannot make us hold more than this.
pub const MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;
/// The relay's default `max_message_bytes` (docs/RELAY.md); frames are never larger.
pub const DEFAULT_MAX_FRAME_BYTES: usize = 64 * 1024;
/// How far ahead of the next expected data frame a receiver accepts a sequence number. An honest sender
/// never has more unacknowledged, so a frame beyond it is an error.
pub const WINDOW: u64 = 256;
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
pub const MAX_PEER_RUNS: usize = 1024;
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

/// Why the channel failed (from [`Channel::handle_frame`]; always fatal there) or refused a message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ChannelError {
    /// Key confirmation failed: the peer used other words (a typo, or someone guessing the code).
    #[error("wrong code: the key exchange failed (a typo, or someone tried to guess the code)")]
    WrongCode,
    /// A frame failed authentication: it was altered in transit (tampering by the relay).
    #[error("a {frame} frame (number {number}) failed authentication: it was altered in transit")]
    Tampered { frame: &'static str, number: u64 },
    /// A data frame number the peer cannot have sent yet (beyond the window).
    #[error("data frame {seq} is impossible: next expected is {expected}, window {WINDOW}")]
    SequenceOutOfRange { seq: u64, expected: u64 },
    /// Two of the peer's runs sealed the same data frame number: one save resumed twice, or an old copy of it.
    #[error(
        "the opponent's program sent two different frames numbered {seq}: its saved game is being used twice, \
         or an older copy of it was resumed"
    )]
    Forked { seq: u64 },
    /// The peer acknowledged less than it had before: it forgot what it had received.
    #[error(
        "the opponent's program acknowledged {ack} frames after {before}: it forgot what it had received \
         (an older copy of its saved game was resumed)"
    )]
    AckWentBack { ack: u64, before: u64 },
    /// The peer acknowledged frames never sent: another process sealed them under this save's numbers (a copy
    /// of it resumed elsewhere), or the peer is broken.
    #[error(
        "the opponent acknowledged {ack} frames but this program sealed only {sent}: another copy of this saved \
         game is running (or ran), or the opponent's program is broken"
    )]
    BadAck { ack: u64, sent: u64 },
    /// The peer sent a handshake frame that contradicts its earlier one.
    #[error("the peer's {0} changed during the session")]
    HandshakeChanged(&'static str),
    /// The frame cannot be parsed, or breaks the protocol.
    #[error("malformed frame: {0}")]
    Malformed(&'static str),
    /// A message (sent, or being reassembled from the peer) is larger than the limit.
    #[error("message of {size} bytes or more exceeds the {limit}-byte limit")]
    MessageTooLarge { size: usize, limit: usize },
}

/// Keys of an established (or confirming) session.
struct Keys {
    /// This run's key.
    send: ChaCha20Poly1305,
    /// The key of the peer's run whose frame came last.
    recv: Option<(RunId, ChaCha20Poly1305)>,
    /// The directions' keys, from which the runs' keys are derived, for a save.
    raw: RawKeys,
}

impl Keys {
    fn new(raw: RawKeys, run: &RunId) -> Keys {
        Keys { send: run_key(&raw.send, run), recv: None, raw }
    }

    /// The key of one of the peer's runs, kept for the next frame of the same run.
    fn recv(&mut self, run: &RunId) -> &ChaCha20Poly1305 {
        if self.recv.as_ref().is_none_or(|(cached, _)| cached != run) {
            self.recv = Some((*run, run_key(&self.raw.recv, run)));
        }
        &self.recv.as_ref().expect("set just above").1
    }
}

#[derive(Clone)]
struct RawKeys {
    send: [u8; 32],
    recv: [u8; 32],
    /// The confirmation value the peer must send.
    peer_confirm: [u8; 32],
    /// Each seat's rendezvous secret, the host's first.
    rendezvous: [[u8; 32]; 2],
}

/// What a restored channel needs that never changes once the key exchange is done: its keys and handshake
/// frames. Every secret of the connection: it goes to the owner-only save file, never to a log.
#[derive(Clone, Serialize, Deserialize)]
pub struct SavedKeys {
    side: Side,
    #[serde(with = "fairdeck_shared::serde_hex::array")]
    send: [u8; 32],
    #[serde(with = "fairdeck_shared::serde_hex::array")]
    recv: [u8; 32],
    #[serde(with = "fairdeck_shared::serde_hex::array")]
    peer_confirm: [u8; 32],
    #[serde(with = "fairdeck_shared::serde_hex::array")]
    host_rendezvous: [u8; 32],
    #[serde(with = "fairdeck_shared::serde_hex::array")]
    guest_rendezvous: [u8; 32],
    #[serde(with = "fairdeck_shared::serde_hex::vec")]
    my_hello: Vec<u8>,
    #[serde(with = "fairdeck_shared::serde_hex::vec")]
    my_confirm: Vec<u8>,
    #[serde(with = "fairdeck_shared::serde_hex::vec")]
    peer_hello: Vec<u8>,
}

impl SavedKeys {
    pub fn side(&self) -> Side {
        self.side
    }
}

impl fmt::Debug for SavedKeys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SavedKeys").field("side", &self.side).finish_non_exhaustive()
    }
}

/// A channel's counters, saved with the frames it sent and the part of a message it has received.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Progress {
    /// Data frames sealed so far (the next sequence number).
    pub next_seq: u64,
    /// Data frames the peer acknowledged.
    pub acked: u64,
    /// Ack frames sent (each one's own nonce).
    pub ack_counter: u64,
    /// Data frames received in order.
    pub recv_next: u64,
    /// Messages delivered so far.
    pub delivered: u64,
    /// Whether the peer proved it has our handshake frames.
    pub peer_proved_established: bool,
    /// The ack carried by the peer's data frame `recv_next - 1`.
    pub peer_data_ack: u64,
    /// The peer's ack frames numbered below were taken, or are old.
    pub peer_ack_next: u64,
    /// The ack carried by the last ack frame taken.
    pub peer_ack_latest: u64,
}

/// What a save holds of a channel besides its keys.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SavedState {
    pub progress: Progress,
    /// Data frames sealed and not acknowledged, from `progress.acked` on.
    pub unacked: Vec<Vec<u8>>,
    /// The part of the peer's next message received so far.
    pub partial: Vec<u8>,
    /// Where each of the peer's runs began.
    pub peer_runs: Vec<RunStart>,
}

/// Where to meet the peer again at a relay: this seat's secret and the other seat's public key, from which the
/// `rendezvous` message is made for each connection ([`Rendezvous::message`]). The secret is the private half of
/// the seat's key and never leaves this side; `Debug` shows the seat alone.
#[derive(Clone)]
pub struct Rendezvous {
    seat: u8,
    secret: [u8; 32],
    peer: [u8; 32],
}

impl fmt::Debug for Rendezvous {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Rendezvous").field("seat", &self.seat).finish_non_exhaustive()
    }
}

impl Rendezvous {
    fn of(secrets: &[[u8; 32]; 2], side: Side) -> Rendezvous {
        let seat = side.byte();
        Rendezvous {
            seat,
            secret: secrets[usize::from(seat)],
            peer: SeatKey::from_secret(&secrets[usize::from(1 - seat)]).public(),
        }
    }

    /// The `rendezvous` message for the connection whose `welcome` gave `challenge`: the room, both public keys
    /// and this seat's proof, never its secret.
    pub fn message(&self, challenge: &[u8; CHALLENGE_BYTES], client: Option<String>) -> ClientMessage {
        SeatKey::from_secret(&self.secret).rendezvous(self.seat, &self.peer, challenge, client)
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

    /// The channel of a save: established, with the data frames it had sealed and not seen acknowledged, the
    /// part of a message it had received and where the peer's runs began. Everything unacknowledged goes out
    /// again, byte-identical, at the first [`resend_unacked`](Self::resend_unacked); everything new is sealed in
    /// a new run, whose id comes from `rng_seed` (fresh secret randomness).
    pub fn restore(keys: &SavedKeys, saved: SavedState, rng_seed: [u8; 32]) -> Channel {
        let mut run = RunId::default();
        ChaCha20Rng::from_seed(rng_seed).fill_bytes(&mut run);
        let raw = RawKeys {
            send: keys.send,
            recv: keys.recv,
            peer_confirm: keys.peer_confirm,
            rendezvous: [keys.host_rendezvous, keys.guest_rendezvous],
        };
        let progress = saved.progress;
        Channel {
            side: keys.side,
            run,
            max_frame: DEFAULT_MAX_FRAME_BYTES,
            max_message: MAX_MESSAGE_BYTES,
            handshake: Some(Handshake::Established),
            keys: Some(Keys::new(raw, &run)),
            failed: None,
            my_hello: keys.my_hello.clone(),
            my_confirm: Some(keys.my_confirm.clone()),
            peer_hello: Some(keys.peer_hello.clone()),
            peer_proved_established: progress.peer_proved_established,
            out: VecDeque::new(),
            to_send: VecDeque::new(),
            unacked: saved.unacked.into(),
            next_seq: progress.next_seq,
            transmitted: progress.acked,
            acked: progress.acked,
            ack_counter: progress.ack_counter,
            recv_next: progress.recv_next,
            last_ack_sent: 0,
            peer_runs: saved.peer_runs,
            peer_data_ack: progress.peer_data_ack,
            peer_ack_next: progress.peer_ack_next,
            peer_ack_latest: progress.peer_ack_latest,
            ahead: BTreeMap::new(),
            ahead_bytes: 0,
            reassembly: saved.partial,
            delivered: VecDeque::new(),
            delivered_count: progress.delivered,
        }
    }

    /// The keys and handshake frames to save, once established.
    pub fn saved_keys(&self) -> Option<SavedKeys> {
        let raw = &self.keys.as_ref().filter(|_| self.is_established())?.raw;
        Some(SavedKeys {
            side: self.side,
            send: raw.send,
            recv: raw.recv,
            peer_confirm: raw.peer_confirm,
            host_rendezvous: raw.rendezvous[0],
            guest_rendezvous: raw.rendezvous[1],
            my_hello: self.my_hello.clone(),
            my_confirm: self.my_confirm.clone()?,
            peer_hello: self.peer_hello.clone()?,
        })
    }

    /// The counters to save.
    pub fn progress(&self) -> Progress {
        Progress {
            next_seq: self.next_seq,
            acked: self.acked,
            ack_counter: self.ack_counter,
            recv_next: self.recv_next,
            delivered: self.delivered_count,
            peer_proved_established: self.peer_proved_established,
            peer_data_ack: self.peer_data_ack,
            peer_ack_next: self.peer_ack_next,
            peer_ack_latest: self.peer_ack_latest,
        }
    }

    /// Where the peer's runs began, from data frame `seq` on (those before are in an earlier save line).
    pub fn peer_runs_from(&self, seq: u64) -> impl Iterator<Item = &RunStart> {
        self.peer_runs.iter().filter(move |start| start.seq >= seq)
    }

    /// This process's run id.
    pub fn run(&self) -> RunId {
        self.run
    }

    /// The sealed data frames from sequence number `seq` on (those below `acked` are gone).
    pub fn sealed_from(&self, seq: u64) -> impl Iterator<Item = &[u8]> {
        let skip = seq.saturating_sub(self.acked);
        self.unacked.iter().skip(usize::try_from(skip).unwrap_or(usize::MAX)).map(Vec::as_slice)
    }

    /// The part of the peer's next message received so far.
    pub fn partial_message(&self) -> &[u8] {
        &self.reassembly
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

    /// Starts the key exchange again, for another peer (a host whose guest had a wrong code), with these words
    /// and nameplate, keeping the messages queued for the peer: until a peer proved the code none of them has
    /// left this side. A failed channel is usable again. Once established, the channel is kept as it is.
    pub fn restart_handshake(&mut self, code_words: &str, nameplate: &str, rng_seed: [u8; 32]) {
        if self.is_established() {
            return;
        }
        let mut fresh = Channel::new(self.side, code_words, nameplate, rng_seed);
        fresh.max_frame = self.max_frame;
        fresh.max_message = self.max_message;
        fresh.to_send = std::mem::take(&mut self.to_send);
        *self = fresh;
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

    /// Bytes of the data frames given to the relay and not yet acknowledged by the peer.
    fn in_flight_bytes(&self) -> usize {
        let in_flight = usize::try_from(self.transmitted - self.acked).unwrap_or(usize::MAX);
        self.unacked.iter().take(in_flight).map(Vec::len).sum()
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

    /// Queues a message for the peer. Before the channel is established it waits (unencrypted, in memory);
    /// it is only ever sent encrypted to a peer that proved it knows the code. Once established it is sealed
    /// into data frames at once.
    pub fn send(&mut self, message: Vec<u8>) -> Result<(), ChannelError> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        if message.len() > self.max_message {
            return Err(ChannelError::MessageTooLarge { size: message.len(), limit: self.max_message });
        }
        let chunk_len = self.max_frame - HEADER_LEN - TAG_LEN - 1;
        let mut chunks = message.chunks(chunk_len).peekable();
        if chunks.peek().is_none() {
            self.to_send.push_back(vec![FLAG_LAST]);
        }
        while let Some(chunk) = chunks.next() {
            let flags = if chunks.peek().is_none() { FLAG_LAST } else { 0 };
            let mut fragment = Vec::with_capacity(1 + chunk.len());
            fragment.push(flags);
            fragment.extend_from_slice(chunk);
            self.to_send.push_back(fragment);
        }
        self.seal_queued();
        Ok(())
    }

    /// Once established, seals every waiting fragment into a numbered data frame.
    fn seal_queued(&mut self) {
        if !self.is_established() {
            return;
        }
        while let Some(fragment) = self.to_send.pop_front() {
            let frame = self.seal(T_DATA, self.next_seq, &fragment);
            self.next_seq += 1;
            self.unacked.push_back(frame);
        }
    }

    /// The next frame to give the relay, if any.
    pub fn poll_frame(&mut self) -> Option<Vec<u8>> {
        self.poll_data_frame().or_else(|| self.poll_ack())
    }

    /// The next handshake or data frame to send, never a standalone ack: a data frame carries the ack of
    /// the moment it was sealed. For a side that holds its acks back to let them ride on its next message
    /// ([`owes_ack`](Self::owes_ack), [`poll_ack`](Self::poll_ack)).
    pub fn poll_data_frame(&mut self) -> Option<Vec<u8>> {
        if let Some(frame) = self.out.pop_front() {
            return Some(frame);
        }
        if let Some(next) = self.next_in_window() {
            let frame = next.to_vec();
            self.transmitted += 1;
            // A frame sealed a while ago carries the ack of that moment: a fresher one may have to follow.
            let carried = header_u64(&frame, ACK_AT);
            self.last_ack_sent = self.last_ack_sent.max(carried);
            return Some(frame);
        }
        None
    }

    /// A standalone ack frame, if data frames were received since the last ack sent.
    pub fn poll_ack(&mut self) -> Option<Vec<u8>> {
        if self.owes_ack() == OwedAck::Nothing || self.failed.is_some() {
            return None;
        }
        let frame = self.seal(T_ACK, self.ack_counter, &[]);
        self.ack_counter += 1;
        self.last_ack_sent = self.recv_next;
        Some(frame)
    }

    /// Whether data frames received wait for an ack, and whether it may wait. The peer's window closes on
    /// what is unacknowledged: a message that comes in several frames, or many frames unacknowledged, are
    /// acknowledged at once; a lone message's ack may wait for this side's next data frame.
    pub fn owes_ack(&self) -> OwedAck {
        let owed = self.recv_next.saturating_sub(self.last_ack_sent);
        if owed == 0 || !self.is_established() {
            OwedAck::Nothing
        } else if !self.reassembly.is_empty() || owed >= ACK_AT_THE_LATEST {
            OwedAck::Now
        } else {
            OwedAck::MayWait
        }
    }

    /// Whether a data frame waits to be sent (in the send window), the handshake's frames included.
    pub fn has_data_frame(&self) -> bool {
        !self.out.is_empty() || self.next_in_window().is_some()
    }

    /// The next sealed data frame not yet given to the relay, if the send window lets it go.
    fn next_in_window(&self) -> Option<&[u8]> {
        if self.failed.is_some() || !self.is_established() {
            return None;
        }
        let index = usize::try_from(self.transmitted - self.acked).unwrap_or(usize::MAX);
        let next = self.unacked.get(index)?;
        let fits = self.transmitted < self.acked + SEND_WINDOW_FRAMES
            && (index == 0 || self.in_flight_bytes() + next.len() <= SEND_WINDOW_BYTES);
        fits.then_some(next.as_slice())
    }

    /// The next message delivered by the peer, in the order it sent them, each exactly once.
    pub fn poll_message(&mut self) -> Option<Vec<u8>> {
        self.delivered.pop_front()
    }

    /// Whether a message is waiting for [`poll_message`](Self::poll_message).
    pub fn has_message(&self) -> bool {
        !self.delivered.is_empty()
    }

    /// Re-emits, through [`poll_frame`](Self::poll_frame), every frame the peer may not have: the handshake
    /// until the peer proved it completed it, every unacknowledged data frame, and a fresh ack. Call it after
    /// reconnecting to the relay and on `peer_back`.
    pub fn resend_unacked(&mut self) {
        if self.failed.is_some() {
            return;
        }
        self.out.clear();
        if !self.peer_proved_established {
            self.out.push_back(self.my_hello.clone());
            if let Some(confirm) = &self.my_confirm {
                self.out.push_back(confirm.clone());
            }
        }
        self.transmitted = self.acked;
        // The resent frames carry old acks: make sure a current one follows.
        if self.recv_next > 0 {
            self.last_ack_sent = 0;
        }
    }

    /// Processes one binary frame from the relay. Any error is fatal (see the module documentation).
    pub fn handle_frame(&mut self, bytes: &[u8]) -> Result<(), ChannelError> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        let result = self.handle_frame_inner(bytes);
        if let Err(e) = &result {
            self.failed = Some(e.clone());
            // Nothing more goes out and nothing partial is delivered, except our CONFIRM after a wrong code,
            // so that the peer learns it too.
            let keep_confirm = *e == ChannelError::WrongCode;
            self.out.retain(|frame| keep_confirm && frame[0] == T_CONFIRM);
            // Before any peer proved the code nothing queued has left: it waits for `restart_handshake`.
            if self.is_established() {
                self.to_send.clear();
            }
            self.reassembly = Vec::new();
            self.ahead.clear();
        }
        result
    }

    fn handle_frame_inner(&mut self, bytes: &[u8]) -> Result<(), ChannelError> {
        match bytes.first() {
            Some(&T_HELLO) => self.handle_hello(bytes),
            Some(&T_CONFIRM) => self.handle_confirm(bytes),
            Some(&T_DATA) => self.handle_data(bytes),
            Some(&T_ACK) => self.handle_ack(bytes),
            Some(_) => Err(ChannelError::Malformed("unknown frame type")),
            None => Err(ChannelError::Malformed("empty frame")),
        }
    }

    fn handle_hello(&mut self, bytes: &[u8]) -> Result<(), ChannelError> {
        if bytes.len() != HELLO_LEN {
            return Err(ChannelError::Malformed("HELLO has the wrong length"));
        }
        if let Some(previous) = &self.peer_hello {
            // A resend after a reconnection is identical; anything else is a second, different exchange.
            return if previous.as_slice() == bytes { Ok(()) } else { Err(ChannelError::HandshakeChanged("HELLO")) };
        }
        if bytes[1] != VERSION {
            return Err(ChannelError::Malformed("unsupported channel version"));
        }
        let peer_side = match bytes[2] {
            0 => Side::Host,
            1 => Side::Guest,
            _ => return Err(ChannelError::Malformed("HELLO names an unknown side")),
        };
        if peer_side == self.side {
            return Err(ChannelError::Malformed("both players claim the same side"));
        }
        let Some(Handshake::Started(spake)) = self.handshake.take() else {
            return Err(ChannelError::Malformed("HELLO out of place"));
        };
        let key =
            spake.finish(&bytes[3..]).map_err(|_| ChannelError::Malformed("HELLO has an invalid SPAKE2 message"))?;
        let (raw, my_confirm) = derive_keys(&key, self.side);
        let keys = Keys::new(raw, &self.run);
        let mut confirm = Vec::with_capacity(CONFIRM_LEN);
        confirm.push(T_CONFIRM);
        confirm.extend_from_slice(&my_confirm);
        self.keys = Some(keys);
        self.peer_hello = Some(bytes.to_vec());
        self.my_confirm = Some(confirm.clone());
        self.out.push_back(confirm);
        self.handshake = Some(Handshake::Confirming);
        Ok(())
    }

    fn handle_confirm(&mut self, bytes: &[u8]) -> Result<(), ChannelError> {
        if bytes.len() != CONFIRM_LEN {
            return Err(ChannelError::Malformed("CONFIRM has the wrong length"));
        }
        let Some(keys) = &self.keys else {
            // The peer's HELLO was lost on the way; it resends both after a reconnection.
            return Ok(());
        };
        let matches = constant_time_eq(&bytes[1..], &keys.raw.peer_confirm);
        match (&self.handshake, matches) {
            (Some(Handshake::Confirming), true) => {
                self.handshake = Some(Handshake::Established);
                self.seal_queued();
                Ok(())
            }
            (Some(Handshake::Confirming), false) => Err(ChannelError::WrongCode),
            (Some(Handshake::Established), true) => Ok(()),
            _ => Err(ChannelError::HandshakeChanged("CONFIRM")),
        }
    }

    fn parse_header(bytes: &[u8]) -> Result<Header, ChannelError> {
        if bytes.len() < HEADER_LEN + TAG_LEN {
            return Err(ChannelError::Malformed("frame shorter than its header and tag"));
        }
        Ok(Header {
            run: bytes[1..NUMBER_AT].try_into().expect("16 bytes"),
            number: header_u64(bytes, NUMBER_AT),
            ack: header_u64(bytes, ACK_AT),
        })
    }

    fn handle_data(&mut self, bytes: &[u8]) -> Result<(), ChannelError> {
        let Header { run, number: seq, ack } = Self::parse_header(bytes)?;
        if !self.is_established() {
            // Cannot be checked or trusted yet; the peer keeps it unacked and resends it.
            return Ok(());
        }
        if seq >= self.recv_next.saturating_add(WINDOW) {
            return Err(ChannelError::SequenceOutOfRange { seq, expected: self.recv_next });
        }
        // Authenticate even duplicates, so an altered retransmission is noticed too.
        let fragment =
            self.open(T_DATA, &run, seq, bytes).ok_or(ChannelError::Tampered { frame: "data", number: seq })?;
        if fragment.is_empty() || fragment[0] & !FLAG_LAST != 0 {
            return Err(ChannelError::Malformed("data fragment has invalid flags"));
        }
        // A number already taken must come again from the run that sealed it: the same frame, resent.
        let sealed_by = if seq < self.recv_next { self.run_of(seq) } else { self.ahead.get(&seq).map(|a| a.run) };
        if sealed_by.is_some_and(|sealed_by| sealed_by != run) {
            return Err(ChannelError::Forked { seq });
        }
        self.peer_proved_established = true;
        self.process_ack(ack)?;
        if sealed_by.is_some() {
            return Ok(());
        }
        if seq > self.recv_next {
            // Bounded: beyond this the frame is dropped and will come again with the peer's resend.
            if self.ahead_bytes + fragment.len() <= MAX_MESSAGE_BYTES {
                self.ahead_bytes += fragment.len();
                self.ahead.insert(seq, Ahead { run, ack, fragment });
            }
            return Ok(());
        }
        self.accept_fragment(Ahead { run, ack, fragment })?;
        while let Some(next) = self.ahead.remove(&self.recv_next) {
            self.ahead_bytes -= next.fragment.len();
            self.accept_fragment(next)?;
        }
        Ok(())
    }

    /// The run that sealed data frame `seq`, one already taken.
    fn run_of(&self, seq: u64) -> Option<RunId> {
        self.peer_runs.iter().rev().find(|start| start.seq <= seq).map(|start| start.run)
    }

    /// Takes the next data frame in order.
    fn accept_fragment(&mut self, Ahead { run, ack, fragment }: Ahead) -> Result<(), ChannelError> {
        if ack < self.peer_data_ack {
            return Err(ChannelError::AckWentBack { ack, before: self.peer_data_ack });
        }
        if self.peer_runs.last().is_none_or(|last| last.run != run) {
            // A run that stopped never seals again: a later run took over its numbers.
            if self.peer_runs.iter().any(|start| start.run == run) {
                return Err(ChannelError::Forked { seq: self.recv_next });
            }
            if self.peer_runs.len() >= MAX_PEER_RUNS {
                return Err(ChannelError::Malformed("the peer restarted its channel too many times"));
            }
            self.peer_runs.push(RunStart { seq: self.recv_next, run });
        }
        let size = self.reassembly.len() + fragment.len() - 1;
        if size > self.max_message {
            return Err(ChannelError::MessageTooLarge { size, limit: self.max_message });
        }
        self.peer_data_ack = ack;
        self.reassembly.extend_from_slice(&fragment[1..]);
        self.recv_next += 1;
        if fragment[0] & FLAG_LAST != 0 {
            self.delivered.push_back(std::mem::take(&mut self.reassembly));
            self.delivered_count += 1;
        }
        Ok(())
    }

    fn handle_ack(&mut self, bytes: &[u8]) -> Result<(), ChannelError> {
        let Header { run, number: counter, ack } = Self::parse_header(bytes)?;
        if !self.is_established() {
            return Ok(());
        }
        let plaintext =
            self.open(T_ACK, &run, counter, bytes).ok_or(ChannelError::Tampered { frame: "ack", number: counter })?;
        if !plaintext.is_empty() {
            return Err(ChannelError::Malformed("ack frame carries data"));
        }
        self.peer_proved_established = true;
        if counter < self.peer_ack_next {
            // Replayed or overtaken: a later ack frame said at least as much.
            return Ok(());
        }
        if ack < self.peer_ack_latest {
            return Err(ChannelError::AckWentBack { ack, before: self.peer_ack_latest });
        }
        self.peer_ack_next = counter.saturating_add(1);
        self.peer_ack_latest = ack;
        self.process_ack(ack)
    }

    fn process_ack(&mut self, ack: u64) -> Result<(), ChannelError> {
        if ack > self.next_seq {
            return Err(ChannelError::BadAck { ack, sent: self.next_seq });
        }
        // Older acks come with retransmissions: only a higher one moves anything.
        while self.acked < ack {
            self.unacked.pop_front();
            self.acked += 1;
        }
        // After a restore the peer may acknowledge frames this process has not given the relay yet.
        self.transmitted = self.transmitted.max(self.acked);
        Ok(())
    }

    fn seal(&mut self, frame_type: u8, number: u64, plaintext: &[u8]) -> Vec<u8> {
        let keys = self.keys.as_ref().expect("sealing only once established");
        let mut frame = Vec::with_capacity(HEADER_LEN + plaintext.len() + TAG_LEN);
        frame.push(frame_type);
        frame.extend_from_slice(&self.run);
        frame.extend_from_slice(&number.to_be_bytes());
        frame.extend_from_slice(&self.recv_next.to_be_bytes());
        let ciphertext = keys
            .send
            .encrypt(&nonce(frame_type, number), Payload { msg: plaintext, aad: &frame })
            .expect("ChaCha20-Poly1305 encrypts any message below 256 GiB");
        frame.extend_from_slice(&ciphertext);
        frame
    }

    fn open(&mut self, frame_type: u8, run: &RunId, number: u64, frame: &[u8]) -> Option<Vec<u8>> {
        let keys = self.keys.as_mut()?;
        let (header, ciphertext) = frame.split_at(HEADER_LEN);
        keys.recv(run).decrypt(&nonce(frame_type, number), Payload { msg: ciphertext, aad: header }).ok()
    }
}

/// A data or ack frame's clear header.
struct Header {
    run: RunId,
    number: u64,
    ack: u64,
}

fn header_u64(frame: &[u8], at: usize) -> u64 {
    u64::from_be_bytes(frame[at..at + 8].try_into().expect("a frame checked to hold its header"))
}

/// One run's key for one direction (see the module documentation).
fn run_key(direction: &[u8; 32], run: &RunId) -> ChaCha20Poly1305 {
    let mut key = [0u8; 32];
    Hkdf::<Sha256>::new(Some(run), direction)
        .expand(b"fairdeck channel v2 run", &mut key)
        .expect("32 bytes is a valid HKDF-SHA256 length");
    ChaCha20Poly1305::new(&Key::from(key))
}

fn nonce(frame_type: u8, number: u64) -> Nonce {
    let mut n = [0u8; 12];
    n[0] = frame_type;
    n[4..].copy_from_slice(&number.to_be_bytes());
    Nonce::from(n)
}

/// The session's keys, and the confirmation value this side sends.
fn derive_keys(spake_key: &[u8], side: Side) -> (RawKeys, [u8; 32]) {
    let hk = Hkdf::<Sha256>::new(Some(b"fairdeck channel v1"), spake_key);
    let expand = |info: &[u8]| {
        let mut out = [0u8; 32];
        hk.expand(info, &mut out).expect("32 bytes is a valid HKDF-SHA256 length");
        out
    };
    let host_key = expand(b"data host->guest");
    let guest_key = expand(b"data guest->host");
    let host_confirm = expand(b"confirm host");
    let guest_confirm = expand(b"confirm guest");
    let rendezvous = [expand(b"rendezvous seat host"), expand(b"rendezvous seat guest")];
    let (send, recv, my_confirm, peer_confirm) = match side {
        Side::Host => (host_key, guest_key, host_confirm, guest_confirm),
        Side::Guest => (guest_key, host_key, guest_confirm, host_confirm),
    };
    (RawKeys { send, recv, peer_confirm, rendezvous }, my_confirm)
}

/// Compares without an early exit, so timing does not tell how much of a guessed confirmation matched.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}
