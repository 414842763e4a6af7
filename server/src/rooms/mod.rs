//! The room table: nameplates, seats, tokens, holds and results.
//!
//! `Rooms` is the only thing that changes room state, and only through its methods, which return errors instead
//! of panicking on odd sequences (a stale connection, a timer that fires late). It owns no socket, task or clock:
//! the session driver passes the time in, and schedules the deadlines these methods hand back. That keeps a later
//! multi-instance version (rooms shared through Redis) a matter of re-implementing this one type.
//!
//! A room has the number of seats its creator asked for (two unless it asked for more), numbered in join order.
//! A nameplate names a *waiting* room only: a room gets one when it is created (or reopened after a wrong code)
//! and releases it as soon as every seat is taken, as magic-wormhole does. The room goes on under an internal
//! id, and a seat is found by the SHA-256 of its token, the only form in which tokens are kept.
//!
//! A rendezvous room has no nameplate: players who lost their room (a relay crash, a day away) meet again in the
//! room whose id both derive from their session key ([`crate::protocol::rendezvous_room`] of the seats' public
//! keys; such a room has two seats). The relay keeps nothing beforehand, and afterwards only that id; it checks
//! that the id is the hash of the two keys and that the seat's key signed this connection's challenge, so only a holder of a seat's secret
//! takes that seat, even from a connection still sitting in it, and the relay never sees the secret.
//!
//! Locking: the registry lock maps nameplates, ids and token hashes to rooms; each room has its own lock for
//! seats and counters, so forwarding a frame takes only its room's lock. An operation that changes both what the
//! registry lists and a room (create, join, reopen) takes the registry lock first; nothing takes the registry
//! lock while holding a room's.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use thiserror::Error;
use tokio::sync::mpsc;

use crate::metrics::Metrics;
use crate::outbox::Outbox;
use crate::protocol::{ErrorCode, MAX_SEATS};
use crate::stats::RoomRecord;

mod departures;
mod nameplates;
mod registry;
mod room;
mod routing;
mod seating;
mod tokens;
mod transfer;
mod watch;

use nameplates::Nameplates;
pub(crate) use nameplates::parse_nameplate;
use registry::Registry;
use room::{Ended, Room, RoomState, Seat, snapshot};
pub(crate) use tokens::token_sha256;
use tokens::{TokenHash, decode_token_hash, new_token, parse_token};
pub(crate) use watch::{Role, Watcher};

#[cfg(test)]
mod tests;

/// A moment, both monotonic (for deadlines) and wall-clock (for the statistics).
#[derive(Debug, Clone, Copy)]
pub struct Stamp {
    pub at: Instant,
    pub unix_ms: i64,
}

impl Stamp {
    /// The current moment.
    pub fn now() -> Stamp {
        let unix_ms = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64);
        Stamp { at: Instant::now(), unix_ms }
    }
}

/// Why a create, join or resume was refused.
#[derive(Debug, Error, Clone, Copy, PartialEq, Eq)]
pub enum RoomError {
    #[error("no room waits under this nameplate")]
    UnknownNameplate,
    #[error("every seat of this room is taken")]
    Crowded,
    /// Every failed resume, whatever the reason: the answer must not tell live games from others.
    #[error("no seat has this token")]
    BadToken,
    #[error("the relay has as many rooms as it may hold; try again later")]
    ServerFull,
    #[error("watching is turned off for this game")]
    WatchingOff,
    #[error("a delay for spectators is at most {max} turns", max = crate::protocol::MAX_WATCH_DELAY_TURNS)]
    DelayTooLong,
    #[error("a room has 2 to {MAX_SEATS} seats")]
    SeatsOutOfRange,
}

impl RoomError {
    /// The wire error code for this refusal.
    pub fn code(self) -> ErrorCode {
        match self {
            RoomError::UnknownNameplate => ErrorCode::UnknownNameplate,
            RoomError::Crowded => ErrorCode::Crowded,
            RoomError::BadToken => ErrorCode::BadToken,
            RoomError::ServerFull => ErrorCode::ServerFull,
            RoomError::WatchingOff => ErrorCode::WatchingOff,
            RoomError::DelayTooLong | RoomError::SeatsOutOfRange => ErrorCode::BadMessage,
        }
    }
}

/// A connection's place in a room. Only the connection that holds it may act through it.
#[derive(Debug)]
pub(crate) struct Seated {
    room: Arc<Room>,
    seat: usize,
    outbox: Outbox,
}

impl Seated {
    /// Whether this is seat 0, the room's creator.
    pub(crate) fn is_creator(&self) -> bool {
        self.seat == 0
    }

    /// The room's internal id.
    pub(crate) fn room_id(&self) -> u64 {
        self.room.id
    }
}

/// A deadline the driver must schedule; passing it back to `Rooms` after it is due ends what it guards.
#[derive(Debug)]
pub(crate) enum Deadline {
    /// The room's waiting lifetime: call [`Rooms::expire_waiting`].
    Waiting { room: Arc<Room>, at: Instant },
    /// A held seat: call [`Rooms::expire_hold`].
    Hold { room: Arc<Room>, seat: usize, hold_id: u64, at: Instant },
}

impl Deadline {
    pub(crate) fn at(&self) -> Instant {
        match self {
            Deadline::Waiting { at, .. } | Deadline::Hold { at, .. } => *at,
        }
    }
}

/// What became of a forwarded frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Forwarded {
    Delivered,
    /// A seat addressed has nobody yet.
    NotPaired,
    /// No seat addressed is connected (they are held, or being cut off), or the room is over.
    Dropped,
    /// The frame names no other seat of the room, or has no address at all: the sender broke the protocol.
    Misaddressed,
}

/// Locks, recovering the data if another thread panicked while holding the lock: room state stays usable.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// One open room as `fairdeck-relay rooms` lists it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RoomListing {
    /// The relay's internal id: not a nameplate, useless to join or resume.
    pub room: u64,
    pub age_seconds: u64,
    /// Seats with a player, connected or held for a resume.
    pub seats_taken: u8,
    pub seats_connected: u8,
    /// In a cluster, the instance holding the room (a random name, new at each start).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instance: Option<String>,
}

/// The room table.
#[derive(Debug)]
pub struct Rooms {
    registry: Mutex<Registry>,
    hold: Duration,
    waiting_lifetime: Duration,
    max_rooms: usize,
    /// Spectators each player seat may have (0: no watching).
    watch_seats: u8,
    metrics: Arc<Metrics>,
    records: mpsc::Sender<RoomRecord>,
    /// In a cluster, the ids of rooms whose seats, tokens or listing changed (or that ended), for `cluster` to
    /// publish.
    changes: Option<mpsc::UnboundedSender<u64>>,
}

/// The id and nameplate the cluster reserved for a room about to be created.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Claim {
    pub(crate) id: u64,
    pub(crate) nameplate: u32,
}

impl Rooms {
    /// An empty table. Ended rooms are sent to `records`; if that queue is full, the record is counted as dropped.
    pub(crate) fn new(
        hold: Duration,
        waiting_lifetime: Duration,
        max_rooms: usize,
        metrics: Arc<Metrics>,
        records: mpsc::Sender<RoomRecord>,
    ) -> Rooms {
        Rooms {
            registry: Mutex::new(Registry::new()),
            hold,
            waiting_lifetime,
            max_rooms,
            watch_seats: 0,
            metrics,
            records,
            changes: None,
        }
    }

    /// The table with `seats` watch seats for each player seat.
    pub(crate) fn watch_seats(mut self, seats: u8) -> Rooms {
        self.watch_seats = seats;
        lock(&self.registry).watch_seats = seats > 0;
        self
    }

    /// The table of one instance of a cluster: room ids start at a random base, so that ids are unique across
    /// instances (rooms move between them), and every change is sent to `changes`.
    pub(crate) fn clustered(mut self, changes: mpsc::UnboundedSender<u64>) -> Rooms {
        lock(&self.registry).next_id = u64::from(rand::random::<u32>() | 1) << 20;
        self.changes = Some(changes);
        self
    }

    fn changed(&self, room: &Room) {
        self.tell_cluster(room.id);
    }

    /// A room whose id was reserved did not open (it was refused): the cluster forgets what it claimed for it.
    pub(crate) fn not_opened(&self, id: u64) {
        self.tell_cluster(id);
    }

    fn tell_cluster(&self, id: u64) {
        if let Some(changes) = &self.changes {
            let _ = changes.send(id);
        }
    }

    /// An id for a room about to be opened, so that the cluster can list it before it exists.
    pub(crate) fn reserve_id(&self) -> u64 {
        let mut registry = lock(&self.registry);
        registry.next_id += 1;
        registry.next_id - 1
    }

    /// Whether a seat of a room here has the token of this SHA-256.
    pub(crate) fn has_token(&self, sha256: &[u8; 32]) -> bool {
        lock(&self.registry).tokens.contains_key(&TokenHash(*sha256))
    }

    /// Whether a room here waits for its guest under this nameplate, or lets spectators in with it.
    pub(crate) fn has_nameplate(&self, nameplate: u32) -> bool {
        let registry = lock(&self.registry);
        registry.waiting.contains_key(&nameplate) || registry.watching.contains_key(&nameplate)
    }

    /// Whether a room here has this rendezvous id.
    pub(crate) fn has_rendezvous(&self, id: &[u8; 32]) -> bool {
        lock(&self.registry).rendezvous.contains_key(id)
    }

    /// The last nameplate of the room `from` sits in, which a `reopen` takes again if it is free.
    pub(crate) fn last_nameplate(&self, from: &Seated) -> Option<u32> {
        lock(&from.room.state).last_nameplate
    }
}
