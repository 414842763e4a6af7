//! A channel saved and restored: its keys and handshake frames, its counters, the frames it sealed and the part
//! of a message it received.

use std::collections::{BTreeMap, VecDeque};
use std::fmt;

use rand_chacha::ChaCha20Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};

use super::keys::{Keys, RawKeys};
use super::{Channel, DEFAULT_MAX_FRAME_BYTES, Handshake, MAX_MESSAGE_BYTES, RunId, RunStart, Side};

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

impl Channel {
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

    /// The sealed data frames from sequence number `seq` on (those below `acked` are gone).
    pub fn sealed_from(&self, seq: u64) -> impl Iterator<Item = &[u8]> {
        let skip = seq.saturating_sub(self.acked);
        self.unacked.iter().skip(usize::try_from(skip).unwrap_or(usize::MAX)).map(Vec::as_slice)
    }

    /// The part of the peer's next message received so far.
    pub fn partial_message(&self) -> &[u8] {
        &self.reassembly
    }
}
