//! The channel's keys: the directions' keys and confirmation values from the key exchange, each run's key, a
//! frame's nonce, the keys as a save holds them, and the rendezvous the seats' secrets give.

use std::fmt;

use chacha20poly1305::aead::KeyInit;
use chacha20poly1305::{ChaCha20Poly1305, Key, Nonce};
use fairdeck_relay_protocol::{CHALLENGE_BYTES, ClientMessage, SeatKey};
use hkdf::Hkdf;
use sha2::Sha256;

use super::{RunId, Side};

/// Keys of an established (or confirming) session.
pub(super) struct Keys {
    /// This run's key.
    pub(super) send: ChaCha20Poly1305,
    /// The key of the peer's run whose frame came last.
    pub(super) recv: Option<(RunId, ChaCha20Poly1305)>,
    /// The directions' keys, from which the runs' keys are derived, for a save.
    pub(super) raw: RawKeys,
}

impl Keys {
    pub(super) fn new(raw: RawKeys, run: &RunId) -> Keys {
        Keys { send: run_key(&raw.send, run), recv: None, raw }
    }

    /// The key of one of the peer's runs, kept for the next frame of the same run.
    pub(super) fn recv(&mut self, run: &RunId) -> &ChaCha20Poly1305 {
        if self.recv.as_ref().is_none_or(|(cached, _)| cached != run) {
            self.recv = Some((*run, run_key(&self.raw.recv, run)));
        }
        &self.recv.as_ref().expect("set just above").1
    }
}

#[derive(Clone)]
pub(super) struct RawKeys {
    pub(super) send: [u8; 32],
    pub(super) recv: [u8; 32],
    /// The confirmation value the peer must send.
    pub(super) peer_confirm: [u8; 32],
    /// Each seat's rendezvous secret, the host's first.
    pub(super) rendezvous: [[u8; 32]; 2],
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
    pub(super) fn of(secrets: &[[u8; 32]; 2], side: Side) -> Rendezvous {
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

/// One run's key for one direction (see the module documentation).
pub(super) fn run_key(direction: &[u8; 32], run: &RunId) -> ChaCha20Poly1305 {
    let mut key = [0u8; 32];
    Hkdf::<Sha256>::new(Some(run), direction)
        .expand(b"fairdeck channel v2 run", &mut key)
        .expect("32 bytes is a valid HKDF-SHA256 length");
    ChaCha20Poly1305::new(&Key::from(key))
}

pub(super) fn nonce(frame_type: u8, number: u64) -> Nonce {
    let mut n = [0u8; 12];
    n[0] = frame_type;
    n[4..].copy_from_slice(&number.to_be_bytes());
    Nonce::from(n)
}

/// The session's keys, and the confirmation value this side sends.
pub(super) fn derive_keys(spake_key: &[u8], side: Side) -> (RawKeys, [u8; 32]) {
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
pub(super) fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}
