//! The room table: nameplates, seats, tokens, holds and results.
//!
//! `Rooms` is the only thing that changes room state, and only through its methods, which return errors instead
//! of panicking on odd sequences (a stale connection, a timer that fires late). It owns no socket, task or clock:
//! the session driver passes the time in, and schedules the deadlines these methods hand back. That keeps a later
//! multi-instance version (rooms shared through Redis) a matter of re-implementing this one type.
//!
//! A nameplate names a *waiting* room only: a room gets one when it is created (or reopened after a wrong code)
//! and releases it as soon as both seats are taken, as magic-wormhole does. The room goes on under an internal
//! id, and a seat is found by the SHA-256 of its token, the only form in which tokens are kept.
//!
//! A rendezvous room has no nameplate: players who lost their room (a relay crash, a day away) meet again in the
//! room whose id both derive from their session key ([`crate::protocol::rendezvous_room`] of the seats' public
//! keys). The relay keeps nothing beforehand, and afterwards only that id; it checks that the id is the hash of
//! the two keys and that the seat's key signed this connection's challenge, so only a holder of a seat's secret
//! takes that seat, even from a connection still sitting in it, and the relay never sees the secret.
//!
//! Locking: the registry lock maps nameplates, ids and token hashes to rooms; each room has its own lock for
//! seats and counters, so forwarding a frame takes only its room's lock. An operation that changes both what the
//! registry lists and a room (create, join, reopen) takes the registry lock first; nothing takes the registry
//! lock while holding a room's.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use thiserror::Error;
use tokio::sync::mpsc;

use crate::handover::{RoomSnapshot, SeatSnapshot, WatchSnapshot};
use crate::metrics::Metrics;
use crate::outbox::Outbox;
use crate::protocol::{
    CHALLENGE_BYTES, ErrorCode, GoneReason, Meeting, PeerState, ReportedResult, ServerMessage, close,
};
use crate::stats::RoomRecord;
use crate::tally::{LiveCounts, RoomResult};

mod watch;

pub(crate) use watch::{Role, Watcher};

/// Longest nameplate accepted, in digits.
const MAX_NAMEPLATE_DIGITS: usize = 9;

/// Bytes in a seat token (sent as twice as many hex digits).
const TOKEN_BYTES: usize = 16;

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
    #[error("this room already has two players")]
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
            RoomError::DelayTooLong => ErrorCode::BadMessage,
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
    /// Nobody has joined yet.
    NotPaired,
    /// The peer is away (held), being cut off, or the room is over.
    Dropped,
}

/// One room.
#[derive(Debug)]
pub(crate) struct Room {
    /// Internal id, never shown to clients; the key of the room once its nameplate is released.
    id: u64,
    state: Mutex<RoomState>,
}

#[derive(Debug)]
struct RoomState {
    seats: [Seat; 2],
    /// The nameplate the room is listed under, while it waits for its guest. Changed with the registry locked.
    nameplate: Option<u32>,
    /// The last nameplate it had, which a reopened room takes again if it is still free.
    last_nameplate: Option<u32>,
    created_at: Instant,
    created_ms: i64,
    paired_ms: Option<i64>,
    waiting_until: Instant,
    /// Frames and bytes sent by each seat.
    traffic: [(u64, u64); 2],
    resumes: u32,
    crowded: bool,
    scary: bool,
    errored: bool,
    next_hold_id: u64,
    ended: bool,
    /// The rendezvous id of a room players met in by their keys, which finds it instead of a nameplate: the hash of
    /// both public keys, which every later `rendezvous` brings again. Nothing secret.
    rendezvous: Option<[u8; 32]>,
    /// The spectators' seats of both player seats.
    watch: watch::Watch,
}

#[derive(Debug)]
enum Seat {
    Empty,
    Connected { outbox: Outbox, token: TokenHash, client: Option<String> },
    Held { until: Instant, hold_id: u64, token: TokenHash, client: Option<String> },
}

impl Seat {
    fn token(&self) -> Option<&TokenHash> {
        match self {
            Seat::Empty => None,
            Seat::Connected { token, .. } | Seat::Held { token, .. } => Some(token),
        }
    }

    fn client(&self) -> Option<&String> {
        match self {
            Seat::Empty => None,
            Seat::Connected { client, .. } | Seat::Held { client, .. } => client.as_ref(),
        }
    }

    fn outbox(&self) -> Option<&Outbox> {
        match self {
            Seat::Connected { outbox, .. } => Some(outbox),
            _ => None,
        }
    }

    fn peer_state(&self) -> PeerState {
        match self {
            Seat::Empty => PeerState::Waiting,
            Seat::Connected { .. } => PeerState::Present,
            Seat::Held { .. } => PeerState::Away,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct TokenHash([u8; 32]);

/// Makes a fresh seat token: 16 random bytes, hex. Only its hash is kept.
fn new_token() -> (String, TokenHash) {
    let bytes: [u8; TOKEN_BYTES] = rand::random();
    (hex::encode(bytes), hash_token(&bytes))
}

fn hash_token(bytes: &[u8]) -> TokenHash {
    TokenHash(Sha256::digest(bytes).into())
}

/// The hash of a token as a client presents it, if it has the form of one.
fn parse_token(text: &str) -> Option<TokenHash> {
    let bytes: [u8; TOKEN_BYTES] = hex::decode(text).ok()?.try_into().ok()?;
    Some(hash_token(&bytes))
}

fn decode_token_hash(text: &str) -> Option<TokenHash> {
    hex::decode(text).ok()?.try_into().ok().map(TokenHash)
}

/// The SHA-256 of a token as a client presents it, if it has the form of one: how the cluster finds its room.
pub(crate) fn token_sha256(text: &str) -> Option<[u8; 32]> {
    parse_token(text).map(|hash| hash.0)
}

pub(crate) fn parse_nameplate(text: &str) -> Option<u32> {
    if text.is_empty() || text.len() > MAX_NAMEPLATE_DIGITS || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// Locks, recovering the data if another thread panicked while holding the lock: room state stays usable.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

fn peer_of(seat: usize) -> usize {
    1 - seat
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

#[derive(Debug)]
struct Registry {
    /// Every open room, by internal id.
    rooms: HashMap<u64, Arc<Room>>,
    /// Rooms waiting for their guest, by nameplate.
    waiting: HashMap<u32, Arc<Room>>,
    /// Rooms by the hashes of their seats' tokens.
    tokens: HashMap<TokenHash, Arc<Room>>,
    /// Rendezvous rooms by their id.
    rendezvous: HashMap<[u8; 32], Arc<Room>>,
    /// Watch nameplates: the room and the player seat whose spectators they let in.
    watching: HashMap<u32, (Arc<Room>, usize)>,
    /// Numbers in use, waiting rooms' and watch nameplates alike, so that neither names the other.
    nameplates: Nameplates,
    /// Whether this relay offers watch seats at all.
    watch_seats: bool,
    next_id: u64,
}

impl Registry {
    fn new() -> Registry {
        Registry {
            rooms: HashMap::new(),
            waiting: HashMap::new(),
            tokens: HashMap::new(),
            rendezvous: HashMap::new(),
            watching: HashMap::new(),
            nameplates: Nameplates::default(),
            watch_seats: false,
            next_id: 1,
        }
    }

    /// A new room with empty seats, not yet registered anywhere.
    fn new_room(
        &mut self,
        now: Stamp,
        waiting_until: Instant,
        rendezvous: Option<[u8; 32]>,
        reserved: Option<u64>,
    ) -> Arc<Room> {
        let id = reserved.filter(|id| !self.rooms.contains_key(id)).unwrap_or_else(|| {
            self.next_id += 1;
            self.next_id - 1
        });
        Arc::new(Room {
            id,
            state: Mutex::new(RoomState {
                seats: [Seat::Empty, Seat::Empty],
                nameplate: None,
                last_nameplate: None,
                created_at: now.at,
                created_ms: now.unix_ms,
                paired_ms: None,
                waiting_until,
                traffic: [(0, 0); 2],
                resumes: 0,
                crowded: false,
                scary: false,
                errored: false,
                next_hold_id: 0,
                ended: false,
                rendezvous,
                watch: watch::Watch::new(self.watch_seats),
            }),
        })
    }

    /// Lists `room` under a nameplate: `preferred` if it is free, else the smallest free one.
    fn list(&mut self, room: &Arc<Room>, preferred: Option<u32>) -> u32 {
        let nameplate = match preferred.filter(|n| self.nameplates.is_free(*n)) {
            Some(nameplate) => {
                self.nameplates.claim(nameplate);
                nameplate
            }
            None => self.nameplates.allocate(),
        };
        self.waiting.insert(nameplate, room.clone());
        nameplate
    }

    /// Removes `room` from the nameplate list, if it is listed under `nameplate`.
    fn unlist(&mut self, room: &Arc<Room>, nameplate: u32) {
        if self.waiting.get(&nameplate).is_some_and(|r| Arc::ptr_eq(r, room)) {
            self.waiting.remove(&nameplate);
            self.nameplates.release(nameplate);
        }
    }

    /// Forgets a token hash, if it leads to `room`.
    fn forget_token(&mut self, room: &Arc<Room>, token: &TokenHash) {
        if self.tokens.get(token).is_some_and(|r| Arc::ptr_eq(r, room)) {
            self.tokens.remove(token);
        }
    }
}

/// Nameplate numbers in use: the smallest free one is handed out first.
#[derive(Debug, Default)]
struct Nameplates {
    /// Released nameplates below `next`.
    free: BTreeSet<u32>,
    /// The highest nameplate in use (0: none), but for those in `far`.
    next: u32,
    /// Nameplates in use more than [`FAR`] above `next` (a room opened unclaimed while Redis is down takes one at
    /// random, up to 999,999), kept apart so that `free` is not filled with every number between.
    far: BTreeSet<u32>,
}

/// How far above the highest nameplate in use a claim is kept apart.
const FAR: u32 = 1024;

impl Nameplates {
    fn allocate(&mut self) -> u32 {
        if let Some(nameplate) = self.free.pop_first() {
            return nameplate;
        }
        loop {
            self.next += 1;
            // One in use far above is now just one in use below `next`.
            if !self.far.remove(&self.next) {
                return self.next;
            }
        }
    }

    fn is_free(&self, nameplate: u32) -> bool {
        nameplate != 0 && ((nameplate > self.next && !self.far.contains(&nameplate)) || self.free.contains(&nameplate))
    }

    /// Marks a specific free nameplate as used.
    fn claim(&mut self, nameplate: u32) {
        let Nameplates { free, next, far } = self;
        if nameplate > next.saturating_add(FAR) {
            far.insert(nameplate);
        } else if nameplate > *next {
            free.extend((*next + 1..nameplate).filter(|between| !far.remove(between)));
            far.remove(&nameplate);
            *next = nameplate;
        } else {
            free.remove(&nameplate);
        }
    }

    fn release(&mut self, nameplate: u32) {
        if self.far.remove(&nameplate) {
            return;
        }
        self.free.insert(nameplate);
        // Shrink from the top so `free` only ever holds holes below the highest nameplate in use.
        while self.next > 0 && self.free.remove(&self.next) {
            self.next -= 1;
        }
    }
}

/// The id and nameplate the cluster reserved for a room about to be created.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Claim {
    pub(crate) id: u64,
    pub(crate) nameplate: u32,
}

/// What is left of a room that ended, for [`Rooms::finish`].
#[derive(Debug)]
struct Ended {
    record: RoomRecord,
    nameplate: Option<u32>,
    rendezvous: Option<[u8; 32]>,
    tokens: Vec<TokenHash>,
    watch_nameplates: Vec<u32>,
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

    /// Opens a room with the caller in seat 0, and sends it `created`. `claim` is the id and nameplate the
    /// cluster reserved for it (the nameplate is used if it is free here too).
    pub(crate) fn create(
        &self,
        now: Stamp,
        outbox: Outbox,
        client: Option<String>,
        claim: Option<Claim>,
    ) -> Result<(Seated, Deadline), RoomError> {
        let (token_text, token) = new_token();
        let waiting_until = now.at + self.waiting_lifetime;
        let mut registry = lock(&self.registry);
        if registry.rooms.len() >= self.max_rooms {
            return Err(RoomError::ServerFull);
        }
        let nameplate = match claim.map(|c| c.nameplate).filter(|n| registry.nameplates.is_free(*n)) {
            Some(nameplate) => {
                registry.nameplates.claim(nameplate);
                nameplate
            }
            None => registry.nameplates.allocate(),
        };
        let room = registry.new_room(now, waiting_until, None, claim.map(|c| c.id));
        {
            let mut state = lock(&room.state);
            state.seats[0] = Seat::Connected { outbox: outbox.clone(), token, client };
            state.nameplate = Some(nameplate);
            state.last_nameplate = Some(nameplate);
        }
        registry.rooms.insert(room.id, room.clone());
        registry.waiting.insert(nameplate, room.clone());
        registry.tokens.insert(token, room.clone());
        drop(registry);
        self.changed(&room);
        let _ =
            outbox.control(&ServerMessage::Created { nameplate: nameplate.to_string(), seat: 0, token: token_text });
        let deadline = Deadline::Waiting { room: room.clone(), at: waiting_until };
        Ok((Seated { room, seat: 0, outbox }, deadline))
    }

    /// Seats the caller in the free seat of the room waiting under `nameplate`, sends it `joined`, pairs the room
    /// and releases the nameplate.
    pub(crate) fn join(
        &self,
        now: Stamp,
        nameplate: &str,
        outbox: Outbox,
        client: Option<String>,
    ) -> Result<Seated, RoomError> {
        let nameplate = parse_nameplate(nameplate).ok_or(RoomError::UnknownNameplate)?;
        let (token_text, token) = new_token();
        let mut registry = lock(&self.registry);
        let room = registry.waiting.get(&nameplate).cloned().ok_or(RoomError::UnknownNameplate)?;
        let mut state = lock(&room.state);
        if state.ended {
            return Err(RoomError::UnknownNameplate);
        }
        if !matches!(state.seats[1], Seat::Empty) {
            state.crowded = true;
            return Err(RoomError::Crowded);
        }
        registry.unlist(&room, nameplate);
        registry.tokens.insert(token, room.clone());
        drop(registry);
        state.nameplate = None;
        state.seats[1] = Seat::Connected { outbox: outbox.clone(), token, client: client.clone() };
        state.paired_ms = Some(now.unix_ms);
        let _ = outbox.control(&ServerMessage::Joined { nameplate: nameplate.to_string(), seat: 1, token: token_text });
        let _ = outbox.control(&ServerMessage::Paired { peer_client: state.seats[0].client().cloned() });
        match &state.seats[0] {
            Seat::Connected { outbox: creator, .. } => {
                let _ = creator.control(&ServerMessage::Paired { peer_client: client });
            }
            Seat::Held { until, .. } => {
                let hold_ms = until.saturating_duration_since(now.at).as_millis() as u64;
                let _ = outbox.control(&ServerMessage::PeerAway { hold_ms });
            }
            Seat::Empty => {}
        }
        state.tell_watchers();
        drop(state);
        self.changed(&room);
        Ok(Seated { room, seat: 1, outbox })
    }

    /// Gives the seat whose token this is to the caller, sends it `resumed` and tells the peer `peer_back`.
    /// A connection still sitting in that seat is closed with `replaced`. Every failure is [`RoomError::BadToken`].
    pub(crate) fn resume(&self, token: &str, outbox: Outbox, client: Option<String>) -> Result<Seated, RoomError> {
        let presented = parse_token(token).ok_or(RoomError::BadToken)?;
        let room = lock(&self.registry).tokens.get(&presented).cloned().ok_or(RoomError::BadToken)?;
        let mut state = lock(&room.state);
        if state.ended {
            return Err(RoomError::BadToken);
        }
        // Compare against both seats in constant time, so timing says nothing about either token.
        let matches: Vec<bool> =
            state.seats.iter().map(|s| s.token().is_some_and(|t| bool::from(t.0.ct_eq(&presented.0)))).collect();
        let Some(seat) = matches.iter().position(|m| *m) else {
            return Err(RoomError::BadToken);
        };
        let kept_client = client.or_else(|| state.seats[seat].client().cloned());
        if let Seat::Connected { outbox: old, .. } = &state.seats[seat] {
            let _ = old.error(ErrorCode::Replaced, "another connection resumed this seat");
        }
        state.seats[seat] = Seat::Connected { outbox: outbox.clone(), token: presented, client: kept_client };
        state.resumes += 1;
        let peer = &state.seats[peer_of(seat)];
        let _ = outbox.control(&ServerMessage::Resumed {
            nameplate: state.nameplate.map(|n| n.to_string()),
            seat: seat as u8,
            peer: peer.peer_state(),
        });
        if let Some(peer_outbox) = peer.outbox() {
            let _ = peer_outbox.control(&ServerMessage::PeerBack);
        }
        state.tell_watchers_to(&outbox);
        drop(state);
        self.changed(&room);
        Ok(Seated { room, seat, outbox })
    }

    /// Seats the caller in a seat of a rendezvous room, if the meeting proves that seat on the connection whose
    /// `welcome` gave `challenge` ([`Meeting::check`]: the room's id is the hash of the seats' public keys and the
    /// seat's key signed the challenge). The room is opened if it does not exist. The seat takes a fresh token
    /// (the old one is void); a connection still in it is closed with `replaced`. The caller gets `met`, then
    /// `paired` with its peer when both are there for the first time, or the peer gets `peer_back`. Every refusal
    /// of the proof is [`RoomError::BadToken`], and is decided before anything in the room is touched. Returns the
    /// waiting deadline of a room it opened.
    pub(crate) fn rendezvous(
        &self,
        now: Stamp,
        meeting: Meeting<'_>,
        challenge: &[u8; CHALLENGE_BYTES],
        outbox: Outbox,
        client: Option<String>,
        reserved: Option<u64>,
    ) -> Result<(Seated, Option<Deadline>), RoomError> {
        let id = meeting.check(challenge).map_err(|_| RoomError::BadToken)?;
        let seat = usize::from(meeting.seat);
        let (token_text, token) = new_token();
        let mut registry = lock(&self.registry);
        let existing = registry.rendezvous.get(&id).filter(|room| !lock(&room.state).ended).cloned();
        let (room, opened) = match existing {
            Some(room) => (room, false),
            None => {
                if registry.rooms.len() >= self.max_rooms {
                    return Err(RoomError::ServerFull);
                }
                let room = registry.new_room(now, now.at + self.waiting_lifetime, Some(id), reserved);
                registry.rooms.insert(room.id, room.clone());
                registry.rendezvous.insert(id, room.clone());
                (room, true)
            }
        };
        let mut state = lock(&room.state);
        if let Some(old) = state.seats[seat].token().copied() {
            registry.forget_token(&room, &old);
        }
        registry.tokens.insert(token, room.clone());
        drop(registry);
        let previous = std::mem::replace(
            &mut state.seats[seat],
            Seat::Connected { outbox: outbox.clone(), token, client: client.clone() },
        );
        if let Seat::Connected { outbox: old, .. } = &previous {
            let _ = old.error(ErrorCode::Replaced, "another connection took this seat at the rendezvous");
        }
        let returning = !matches!(previous, Seat::Empty);
        if returning {
            state.resumes += 1;
        }
        let peer = &state.seats[peer_of(seat)];
        let _ = outbox.control(&ServerMessage::Met { seat: meeting.seat, token: token_text, peer: peer.peer_state() });
        let first_pairing = state.paired_ms.is_none() && peer.outbox().is_some();
        if let Some(peer_outbox) = peer.outbox() {
            if first_pairing {
                let _ = peer_outbox.control(&ServerMessage::Paired { peer_client: client });
                let _ = outbox.control(&ServerMessage::Paired { peer_client: peer.client().cloned() });
            } else {
                let _ = peer_outbox.control(&ServerMessage::PeerBack);
            }
        }
        if first_pairing {
            state.paired_ms = Some(now.unix_ms);
            state.tell_watchers();
        } else {
            state.tell_watchers_to(&outbox);
        }
        let deadline = opened.then(|| Deadline::Waiting { room: room.clone(), at: state.waiting_until });
        drop(state);
        self.changed(&room);
        Ok((Seated { room, seat, outbox }, deadline))
    }

    /// The creator gives seat 1 to whoever joins next (its key exchange with the guest failed): a connected guest
    /// gets `peer_gone` (`rejected`) and a normal close, its token is void, and the room waits again under a
    /// nameplate (its last one if still free) with a fresh waiting lifetime. The creator gets `reopened`. Returns
    /// the new waiting deadline; `None` if the room was already waiting (it just answers) or `from` is stale.
    /// The caller checks that `from` is the creator.
    pub(crate) fn reopen(&self, now: Stamp, from: &Seated, claimed: Option<u32>) -> Option<Deadline> {
        let room = &from.room;
        let mut registry = lock(&self.registry);
        let mut state = lock(&room.state);
        if state.ended || !state.owns(from) || !from.is_creator() {
            return None;
        }
        if let Some(nameplate) = state.nameplate {
            drop(registry);
            let _ = from.outbox.control(&ServerMessage::Reopened { nameplate: nameplate.to_string() });
            return None;
        }
        let guest = std::mem::replace(&mut state.seats[1], Seat::Empty);
        if let Some(token) = guest.token() {
            registry.forget_token(room, token);
        }
        let watchers_changed = state.send_guest_watch_away(&mut registry, room);
        let nameplate = registry.list(room, claimed.or(state.last_nameplate));
        drop(registry);
        if let Some(outbox) = guest.outbox() {
            let _ = outbox.control(&ServerMessage::PeerGone { reason: GoneReason::Rejected });
            let _ = outbox.close(close::NORMAL, "rejected");
        }
        state.nameplate = Some(nameplate);
        state.last_nameplate = Some(nameplate);
        state.paired_ms = None;
        state.waiting_until = now.at + self.waiting_lifetime;
        let _ = from.outbox.control(&ServerMessage::Reopened { nameplate: nameplate.to_string() });
        if watchers_changed {
            state.tell_watchers();
        }
        let at = state.waiting_until;
        drop(state);
        self.metrics.reopens.increment(1);
        self.changed(room);
        Some(Deadline::Waiting { room: room.clone(), at })
    }
    /// Forwards a binary frame from `from`'s seat to its peer, counting it for the room's record.
    pub(crate) fn forward(&self, from: &Seated, frame: Bytes, received: Instant) -> Forwarded {
        let len = frame.len() as u64;
        let mut state = lock(&from.room.state);
        if state.ended || !state.owns(from) {
            return Forwarded::Dropped;
        }
        let delivered = match &state.seats[peer_of(from.seat)] {
            Seat::Empty => return Forwarded::NotPaired,
            Seat::Held { .. } => false,
            Seat::Connected { outbox, .. } => outbox.frame(frame, received).is_ok(),
        };
        if !delivered {
            return Forwarded::Dropped;
        }
        let traffic = &mut state.traffic[from.seat];
        traffic.0 += 1;
        traffic.1 += len;
        Forwarded::Delivered
    }

    /// Records what a client reported about its session; the most severe result wins at the end.
    pub(crate) fn report(&self, from: &Seated, result: ReportedResult) {
        let mut state = lock(&from.room.state);
        if !state.owns(from) {
            return;
        }
        match result {
            ReportedResult::Scary => state.scary = true,
            ReportedResult::Errored => state.errored = true,
        }
    }

    /// The caller leaves for good: the room ends and a present peer gets `peer_gone` and a normal close.
    pub(crate) fn leave(&self, now: Stamp, from: &Seated) {
        let mut state = lock(&from.room.state);
        if state.ended || !state.owns(from) {
            return;
        }
        let base = if state.paired_ms.is_some() { RoomResult::Happy } else { RoomResult::Lonely };
        tell_gone(&state.seats[peer_of(from.seat)], GoneReason::Left);
        let ended = state.end(now, base, GoneReason::Left);
        drop(state);
        self.finish(&from.room, ended);
    }

    /// The caller's connection dropped: its seat is held for a resume and a present peer gets `peer_away`.
    /// `errored` marks a drop the relay caused because the client broke a rule. Returns the hold deadline.
    pub(crate) fn detach(&self, now: Stamp, from: &Seated, errored: bool) -> Option<Deadline> {
        let mut state = lock(&from.room.state);
        if state.ended || !state.owns(from) {
            return None;
        }
        state.errored |= errored;
        let until = now.at + self.hold;
        let hold_id = state.next_hold_id;
        state.next_hold_id += 1;
        let seat = std::mem::replace(&mut state.seats[from.seat], Seat::Empty);
        if let Seat::Connected { token, client, .. } = seat {
            state.seats[from.seat] = Seat::Held { until, hold_id, token, client };
        }
        if let Some(peer) = state.seats[peer_of(from.seat)].outbox() {
            let _ = peer.control(&ServerMessage::PeerAway { hold_ms: self.hold.as_millis() as u64 });
        }
        drop(state);
        self.changed(&from.room);
        Some(Deadline::Hold { room: from.room.clone(), seat: from.seat, hold_id, at: until })
    }

    /// Ends the room if `deadline` is due and still current (nothing happened since that it no longer guards).
    pub(crate) fn expire(&self, now: Stamp, deadline: &Deadline) {
        match deadline {
            Deadline::Waiting { room, .. } => self.expire_waiting(now, room),
            Deadline::Hold { room, seat, hold_id, .. } => self.expire_hold(now, room, *seat, *hold_id),
        }
    }

    fn expire_waiting(&self, now: Stamp, room: &Arc<Room>) {
        let mut state = lock(&room.state);
        if state.ended || state.paired_ms.is_some() || now.at < state.waiting_until {
            return;
        }
        // The creator, or whoever waits at a rendezvous.
        for waiting in state.seats.iter().filter_map(Seat::outbox) {
            let _ = waiting.error(ErrorCode::Expired, "nobody joined this room in time");
        }
        let ended = state.end(now, RoomResult::Pruned, GoneReason::Timeout);
        drop(state);
        self.finish(room, ended);
    }

    fn expire_hold(&self, now: Stamp, room: &Arc<Room>, seat: usize, hold_id: u64) {
        let mut state = lock(&room.state);
        let current =
            matches!(state.seats[seat], Seat::Held { hold_id: id, until, .. } if id == hold_id && now.at >= until);
        if state.ended || !current {
            return;
        }
        // A creator who never came back before anyone joined is lonely; a paired room left hanging is pruned.
        let base = if state.paired_ms.is_some() { RoomResult::Pruned } else { RoomResult::Lonely };
        tell_gone(&state.seats[peer_of(seat)], GoneReason::Timeout);
        let ended = state.end(now, base, GoneReason::Timeout);
        drop(state);
        self.finish(room, ended);
    }

    /// Counts rooms and seats.
    pub fn live_counts(&self) -> LiveCounts {
        let rooms: Vec<Arc<Room>> = lock(&self.registry).rooms.values().cloned().collect();
        let mut counts = LiveCounts { rooms: rooms.len(), ..LiveCounts::default() };
        for room in rooms {
            let state = lock(&room.state);
            if state.paired_ms.is_none() {
                counts.waiting += 1;
            }
            counts.watchers += state.watch.spectators();
            for seat in &state.seats {
                match seat {
                    Seat::Connected { .. } => counts.seats_connected += 1,
                    Seat::Held { .. } => counts.seats_held += 1,
                    Seat::Empty => {}
                }
            }
        }
        counts
    }

    /// The open rooms for the operator's `fairdeck-relay rooms`, oldest first: nothing secret (no nameplate, no
    /// token, no client name), only the internal id, the age and how many seats are taken.
    pub(crate) fn list(&self, now: Instant) -> Vec<RoomListing> {
        let rooms: Vec<Arc<Room>> = lock(&self.registry).rooms.values().cloned().collect();
        let mut listing: Vec<RoomListing> = rooms
            .iter()
            .filter_map(|room| {
                let state = lock(&room.state);
                (!state.ended).then(|| RoomListing {
                    room: room.id,
                    age_seconds: now.saturating_duration_since(state.created_at).as_secs(),
                    seats_taken: state.seats.iter().filter(|seat| !matches!(seat, Seat::Empty)).count() as u8,
                    seats_connected: state.seats.iter().filter(|seat| seat.outbox().is_some()).count() as u8,
                    instance: None,
                })
            })
            .collect();
        listing.sort_by_key(|room| std::cmp::Reverse(room.age_seconds));
        listing
    }

    /// Snapshots every open room for a successor process (see `handover`).
    pub(crate) fn export(&self, now: Stamp) -> Vec<RoomSnapshot> {
        let rooms: Vec<Arc<Room>> = lock(&self.registry).rooms.values().cloned().collect();
        let mut snapshots: Vec<RoomSnapshot> =
            rooms.iter().filter_map(|room| snapshot(room.id, &lock(&room.state), now)).collect();
        snapshots.sort_by_key(|s| s.id);
        snapshots
    }

    /// One open room as the cluster publishes it, with which seats are connected here; `None` once it ended.
    pub(crate) fn entry(&self, id: u64, now: Stamp) -> Option<(RoomSnapshot, [bool; 2])> {
        let room = lock(&self.registry).rooms.get(&id).cloned()?;
        let state = lock(&room.state);
        let connected = [0, 1].map(|seat| state.seats[seat].outbox().is_some());
        snapshot(id, &state, now).map(|snapshot| (snapshot, connected))
    }

    /// The ids of every open room.
    pub(crate) fn ids(&self) -> Vec<u64> {
        lock(&self.registry).rooms.keys().copied().collect()
    }

    /// Gives up a room that another instance took over (this one was cut off from the cluster for longer than
    /// its lease): its connections are closed as by a restart, so that they resume at the room's new instance.
    /// No record: the instance that holds the room now writes it.
    pub(crate) fn evict(&self, id: u64) {
        let mut registry = lock(&self.registry);
        let Some(room) = registry.rooms.remove(&id) else { return };
        let mut state = lock(&room.state);
        if let Some(nameplate) = state.nameplate.take() {
            registry.unlist(&room, nameplate);
        }
        if let Some(rendezvous) = state.rendezvous
            && registry.rendezvous.get(&rendezvous).is_some_and(|r| Arc::ptr_eq(r, &room))
        {
            registry.rendezvous.remove(&rendezvous);
        }
        for seat in std::mem::replace(&mut state.seats, [Seat::Empty, Seat::Empty]) {
            if let Some(token) = seat.token() {
                registry.forget_token(&room, token);
            }
            if let Some(outbox) = seat.outbox() {
                let _ = outbox.close(close::RESTART, "the room moved to another instance");
            }
        }
        state.watch.evict();
        for nameplate in state.watch.sides.iter_mut().filter_map(|side| side.nameplate.take()) {
            registry.unlist_watch(&room, nameplate);
        }
        state.ended = true;
    }

    /// Takes back rooms from a predecessor that stopped `downtime_ms` ago, with every seat held for what is left
    /// of the hold. Returns the deadlines to schedule. Rooms whose id is already in use are skipped; a waiting room
    /// whose nameplate is taken stays unlisted (its creator can `reopen` it under another).
    pub(crate) fn import(&self, now: Stamp, downtime_ms: u64, snapshots: Vec<RoomSnapshot>) -> Vec<Deadline> {
        let downtime = Duration::from_millis(downtime_ms);
        let until = now.at + self.hold.saturating_sub(downtime);
        let mut deadlines = Vec::new();
        let mut registry = lock(&self.registry);
        for snapshot in snapshots {
            if registry.rooms.contains_key(&snapshot.id) {
                continue;
            }
            let mut seats = [Seat::Empty, Seat::Empty];
            for (index, seat) in snapshot.seats.iter().enumerate() {
                let Some(seat) = seat else { continue };
                let Some(token) = decode_token_hash(&seat.token_sha256) else { continue };
                seats[index] = Seat::Held { until, hold_id: index as u64, token, client: seat.client.clone() };
            }
            let age = Duration::from_millis(u64::try_from(now.unix_ms - snapshot.created_ms).unwrap_or(0));
            let waiting_until = now.at + Duration::from_millis(snapshot.waiting_left_ms).saturating_sub(downtime);
            let occupied: Vec<usize> = (0..2).filter(|i| !matches!(seats[*i], Seat::Empty)).collect();
            let tokens: Vec<TokenHash> = seats.iter().filter_map(|s| s.token().copied()).collect();
            let nameplate = snapshot.nameplate.filter(|n| registry.nameplates.is_free(*n));
            let rendezvous = snapshot.rendezvous.as_deref().and_then(|id| hex::decode(id).ok()?.try_into().ok());
            let room = Arc::new(Room {
                id: snapshot.id,
                state: Mutex::new(RoomState {
                    seats,
                    nameplate,
                    last_nameplate: nameplate,
                    created_at: now.at.checked_sub(age).unwrap_or(now.at),
                    created_ms: snapshot.created_ms,
                    paired_ms: snapshot.paired_ms,
                    waiting_until,
                    traffic: snapshot.traffic,
                    resumes: snapshot.resumes,
                    crowded: snapshot.crowded,
                    scary: snapshot.scary,
                    errored: snapshot.errored,
                    next_hold_id: 2,
                    ended: false,
                    rendezvous,
                    watch: watch::Watch::new(registry.watch_seats),
                }),
            });
            if let Some(nameplate) = nameplate {
                registry.list(&room, Some(nameplate));
            }
            registry.restore_watch(&room, &snapshot.watch);
            // A room already met in here by that rendezvous keeps it: its players are connected.
            if let Some(id) = rendezvous.filter(|id| !registry.rendezvous.contains_key(id)) {
                registry.rendezvous.insert(id, room.clone());
            }
            for token in tokens {
                registry.tokens.insert(token, room.clone());
            }
            registry.next_id = registry.next_id.max(snapshot.id.saturating_add(1));
            registry.rooms.insert(snapshot.id, room.clone());
            self.changed(&room);
            if snapshot.paired_ms.is_none() {
                deadlines.push(Deadline::Waiting { room: room.clone(), at: waiting_until });
            }
            for seat in occupied {
                deadlines.push(Deadline::Hold { room: room.clone(), seat, hold_id: seat as u64, at: until });
            }
        }
        deadlines
    }

    /// Removes an ended room from the registry (id, nameplate, tokens) and hands its record to the statistics.
    fn finish(&self, room: &Arc<Room>, ended: Ended) {
        let Ended { record, nameplate, rendezvous, tokens, watch_nameplates } = ended;
        let mut registry = lock(&self.registry);
        if registry.rooms.get(&room.id).is_some_and(|r| Arc::ptr_eq(r, room)) {
            registry.rooms.remove(&room.id);
        }
        if let Some(id) = rendezvous
            && registry.rendezvous.get(&id).is_some_and(|r| Arc::ptr_eq(r, room))
        {
            registry.rendezvous.remove(&id);
        }
        if let Some(nameplate) = nameplate {
            registry.unlist(room, nameplate);
        }
        for token in &tokens {
            registry.forget_token(room, token);
        }
        for nameplate in watch_nameplates {
            registry.unlist_watch(room, nameplate);
        }
        drop(registry);
        self.changed(room);
        self.metrics.room_ended(record.result);
        // Counted before it is sent, so that the writer never takes it off the count first.
        self.metrics.stats_queued.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if self.records.try_send(record).is_err() {
            self.metrics.stats_queued.fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
            self.metrics.stats_dropped.increment(1);
        }
    }
}

impl RoomState {
    fn owns(&self, seated: &Seated) -> bool {
        self.seats[seated.seat].outbox().is_some_and(|o| o.same_connection(&seated.outbox))
    }

    /// Marks the room ended, drops its connections' queues, sends its spectators away (`peer_gone` with `reason`)
    /// and makes its record.
    fn end(&mut self, now: Stamp, base: RoomResult, reason: GoneReason) -> Ended {
        self.ended = true;
        self.watch.dismiss(None, reason);
        let watch_nameplates = self.watch.sides.iter().filter_map(|side| side.nameplate).collect();
        let clients = [self.seats[0].client().cloned(), self.seats[1].client().cloned()];
        let tokens = self.seats.iter().filter_map(|s| s.token().copied()).collect();
        self.seats = [Seat::Empty, Seat::Empty];
        let flags =
            [(self.crowded, RoomResult::Crowded), (self.scary, RoomResult::Scary), (self.errored, RoomResult::Errored)];
        let result = flags.iter().filter(|(set, _)| *set).map(|(_, r)| *r).fold(base, RoomResult::max);
        let [client_a, client_b] = clients;
        let record = RoomRecord {
            created_ms: self.created_ms,
            waiting_ms: self.paired_ms.map(|p| (p - self.created_ms).max(0)),
            total_ms: now.at.saturating_duration_since(self.created_at).as_millis() as i64,
            result,
            frames_a_to_b: self.traffic[0].0 as i64,
            bytes_a_to_b: self.traffic[0].1 as i64,
            frames_b_to_a: self.traffic[1].0 as i64,
            bytes_b_to_a: self.traffic[1].1 as i64,
            resumes: i64::from(self.resumes),
            client_a,
            client_b,
            watchers: i64::from(self.watch.most),
        };
        Ended { record, nameplate: self.nameplate, rendezvous: self.rendezvous, tokens, watch_nameplates }
    }
}

/// A room's snapshot, unless it ended.
fn snapshot(id: u64, state: &RoomState, now: Stamp) -> Option<RoomSnapshot> {
    if state.ended {
        return None;
    }
    let seat = |seat: &Seat| {
        seat.token().map(|token| SeatSnapshot { token_sha256: hex::encode(token.0), client: seat.client().cloned() })
    };
    Some(RoomSnapshot {
        id,
        nameplate: state.nameplate,
        rendezvous: state.rendezvous.map(hex::encode),
        created_ms: state.created_ms,
        paired_ms: state.paired_ms,
        waiting_left_ms: state.waiting_until.saturating_duration_since(now.at).as_millis() as u64,
        seats: [seat(&state.seats[0]), seat(&state.seats[1])],
        traffic: state.traffic,
        resumes: state.resumes,
        crowded: state.crowded,
        scary: state.scary,
        errored: state.errored,
        watch: WatchSnapshot {
            off: !state.watch.open,
            nameplates: state.watch.sides.each_ref().map(|side| side.nameplate),
            delays: state.watch.sides.each_ref().map(|side| side.delay),
            most: state.watch.most,
        },
    })
}

fn tell_gone(peer: &Seat, reason: GoneReason) {
    if let Some(outbox) = peer.outbox() {
        let _ = outbox.control(&ServerMessage::PeerGone { reason });
        let _ = outbox.close(close::NORMAL, "room over");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outbox::{Outgoing, Queue};

    struct Fixture {
        rooms: Rooms,
        records: mpsc::Receiver<RoomRecord>,
    }

    fn fixture(max_rooms: usize) -> Fixture {
        let (tx, records) = mpsc::channel(64);
        let rooms =
            Rooms::new(Duration::from_secs(60), Duration::from_secs(600), max_rooms, Arc::new(Metrics::default()), tx);
        Fixture { rooms, records }
    }

    fn conn() -> (Outbox, Queue) {
        Outbox::new(1 << 20, Duration::from_secs(60), &crate::outbox::Queues::default())
    }

    fn messages(queue: &mut Queue) -> Vec<ServerMessage> {
        let mut out = Vec::new();
        while let Some(queued) = queue.try_pop() {
            if let Outgoing::Text(text) = queued.item {
                let message = serde_json::from_str(&text).unwrap();
                // Told after paired, resumed and met; the tests of watching are in tests/relay/watch.rs.
                if !matches!(message, ServerMessage::Watchers { .. }) {
                    out.push(message);
                }
            }
        }
        out
    }

    fn nameplate_of(seated: &Seated) -> u32 {
        lock(&seated.room.state).nameplate.expect("a listed room")
    }

    fn token_of(messages: &[ServerMessage]) -> String {
        messages
            .iter()
            .find_map(|m| match m {
                ServerMessage::Created { token, .. } | ServerMessage::Joined { token, .. } => Some(token.clone()),
                _ => None,
            })
            .unwrap()
    }

    #[test]
    fn nameplates_are_smallest_free_first_and_recycled() {
        let f = fixture(100);
        let now = Stamp::now();
        let seats: Vec<Seated> = (0..3).map(|_| f.rooms.create(now, conn().0, None, None).unwrap().0).collect();
        let plates: Vec<u32> = seats.iter().map(nameplate_of).collect();
        assert_eq!(plates, [1, 2, 3]);
        f.rooms.leave(now, &seats[1]);
        f.rooms.leave(now, &seats[0]);
        assert_eq!(nameplate_of(&f.rooms.create(now, conn().0, None, None).unwrap().0), 1);
        assert_eq!(nameplate_of(&f.rooms.create(now, conn().0, None, None).unwrap().0), 2);
        assert_eq!(nameplate_of(&f.rooms.create(now, conn().0, None, None).unwrap().0), 4);
    }

    #[test]
    fn a_nameplate_claimed_far_above_the_others_is_kept_apart_and_given_back() {
        let mut plates = Nameplates::default();
        plates.claim(543_210);
        plates.claim(1_030);
        assert_eq!((plates.free.len(), plates.far.len()), (0, 2), "no hole for every number between");
        assert!(!plates.is_free(543_210) && plates.is_free(543_209) && plates.is_free(1));
        // Handed out up to a far one: it is passed over, as any number in use.
        let handed: Vec<u32> = (0..1_030).map(|_| plates.allocate()).collect();
        assert_eq!(handed, (1..1_030).chain([1_031]).collect::<Vec<u32>>());
        assert!(!plates.is_free(1_030) && plates.far.len() == 1);
        plates.release(543_210);
        assert!(plates.far.is_empty() && plates.is_free(543_210));
        // A claim within reach turns the numbers between into holes, but not one in use far above.
        let mut plates = Nameplates::default();
        plates.claim(1_500);
        plates.claim(600);
        plates.claim(1_550);
        assert!(!plates.is_free(1_500) && plates.is_free(1_499) && !plates.is_free(1_550));
        assert!(plates.far.is_empty());
        assert_eq!(plates.free.len(), 1_550 - 3, "every number but the three in use");
    }

    #[test]
    fn the_nameplate_is_released_at_pairing_and_the_game_goes_on() {
        let f = fixture(10);
        let now = Stamp::now();
        let (creator_box, mut creator_rx) = conn();
        let (creator, _) = f.rooms.create(now, creator_box, None, None).unwrap();
        let creator_token = token_of(&messages(&mut creator_rx));
        let (joiner_box, mut joiner_rx) = conn();
        let joiner = f.rooms.join(now, "1", joiner_box, None).unwrap();
        assert_eq!(token_of(&messages(&mut joiner_rx)).len(), 32);
        // The number is free at once: a late join finds nothing, and a new room takes it.
        assert_eq!(f.rooms.join(now, "1", conn().0, None).unwrap_err(), RoomError::UnknownNameplate);
        let (newer, _) = f.rooms.create(now, conn().0, None, None).unwrap();
        assert_eq!(nameplate_of(&newer), 1);
        assert_eq!(
            f.rooms.live_counts(),
            LiveCounts { rooms: 2, waiting: 1, seats_connected: 3, seats_held: 0, watchers: 0 }
        );
        // The paired room still forwards, and its seats resume by token; `resumed` names no nameplate.
        assert_eq!(f.rooms.forward(&creator, Bytes::from_static(b"x"), now.at), Forwarded::Delivered);
        assert!(f.rooms.detach(now, &creator, false).is_some());
        let (resumed_box, mut resumed_rx) = conn();
        let _resumed = f.rooms.resume(&creator_token, resumed_box, None).unwrap();
        assert_eq!(
            messages(&mut resumed_rx),
            [ServerMessage::Resumed { nameplate: None, seat: 0, peer: PeerState::Present }]
        );
        f.rooms.leave(now, &joiner);
        assert_eq!(f.rooms.live_counts().rooms, 1);
    }

    #[test]
    fn every_failed_resume_is_the_same_bad_token() {
        let f = fixture(10);
        let now = Stamp::now();
        let (creator_box, mut creator_rx) = conn();
        let (creator, _) = f.rooms.create(now, creator_box, None, None).unwrap();
        let token = token_of(&messages(&mut creator_rx));
        for wrong in ["", "zz", "00", &"00".repeat(16), &"00".repeat(17), &token[..30], &format!("{token}00")] {
            assert_eq!(f.rooms.resume(wrong, conn().0, None).unwrap_err(), RoomError::BadToken, "{wrong}");
        }
        f.rooms.leave(now, &creator);
        assert_eq!(f.rooms.resume(&token, conn().0, None).unwrap_err(), RoomError::BadToken, "room over");
    }

    #[test]
    fn reopen_sends_the_guest_away_and_lists_the_room_again() {
        let mut f = fixture(10);
        let now = Stamp::now();
        let (creator_box, mut creator_rx) = conn();
        let (creator, _) = f.rooms.create(now, creator_box, Some("a/1".into()), None).unwrap();
        let _ = messages(&mut creator_rx);
        // Already waiting: it just answers with the nameplate.
        assert!(f.rooms.reopen(now, &creator, None).is_none());
        assert_eq!(messages(&mut creator_rx), [ServerMessage::Reopened { nameplate: "1".into() }]);

        let (guest_box, mut guest_rx) = conn();
        let guest = f.rooms.join(now, "1", guest_box, Some("wrong/1".into())).unwrap();
        let guest_token = token_of(&messages(&mut guest_rx));
        f.rooms.report(&guest, ReportedResult::Scary);
        let _ = messages(&mut creator_rx);
        // The guest cannot reopen; the creator can.
        assert!(f.rooms.reopen(now, &guest, None).is_none());
        let later = Stamp { at: now.at + Duration::from_secs(100), ..now };
        let deadline = f.rooms.reopen(later, &creator, None).expect("a new waiting lifetime");
        assert_eq!(deadline.at(), later.at + Duration::from_secs(600));
        assert_eq!(messages(&mut creator_rx), [ServerMessage::Reopened { nameplate: "1".into() }]);
        assert_eq!(messages(&mut guest_rx), [ServerMessage::PeerGone { reason: GoneReason::Rejected }]);
        assert!(guest_rx.try_pop().is_none(), "the close frame was taken with the messages");
        assert_eq!(f.rooms.resume(&guest_token, conn().0, None).unwrap_err(), RoomError::BadToken);
        assert_eq!(f.rooms.forward(&guest, Bytes::from_static(b"x"), now.at), Forwarded::Dropped);
        assert_eq!(f.rooms.live_counts().waiting, 1);

        let (right_box, mut right_rx) = conn();
        let right = f.rooms.join(now, "1", right_box, Some("right/1".into())).unwrap();
        assert!(messages(&mut right_rx).contains(&ServerMessage::Paired { peer_client: Some("a/1".into()) }));
        assert_eq!(messages(&mut creator_rx), [ServerMessage::Paired { peer_client: Some("right/1".into()) }]);
        assert_eq!(f.rooms.forward(&creator, Bytes::from_static(b"hi"), now.at), Forwarded::Delivered);
        f.rooms.leave(now, &right);
        let record = f.records.try_recv().unwrap();
        assert_eq!(record.result, RoomResult::Scary, "the wrong code stays in the statistics");
        assert_eq!(record.client_b.as_deref(), Some("right/1"));
    }

    #[test]
    fn a_reopened_room_takes_the_smallest_free_nameplate_if_its_own_is_taken() {
        let f = fixture(10);
        let now = Stamp::now();
        let (creator, _) = f.rooms.create(now, conn().0, None, None).unwrap();
        let (guest_box, _guest_rx) = conn();
        let guest = f.rooms.join(now, "1", guest_box, None).unwrap();
        assert!(f.rooms.detach(now, &guest, false).is_some());
        // Numbers 1, 2 and 3 go to new rooms; 2 ends, so 2 is the smallest free number.
        let others: Vec<Seated> = (0..3).map(|_| f.rooms.create(now, conn().0, None, None).unwrap().0).collect();
        assert_eq!(others.iter().map(nameplate_of).collect::<Vec<_>>(), [1, 2, 3]);
        f.rooms.leave(now, &others[1]);
        assert!(f.rooms.reopen(now, &creator, None).is_some());
        assert_eq!(nameplate_of(&creator), 2);
        assert_eq!(f.rooms.join(now, "2", conn().0, None).map(|s| s.seat), Ok(1));
    }

    #[test]
    fn the_room_limit_is_enforced() {
        let f = fixture(1);
        let now = Stamp::now();
        let _first = f.rooms.create(now, conn().0, None, None).unwrap();
        assert_eq!(f.rooms.create(now, conn().0, None, None).unwrap_err(), RoomError::ServerFull);
    }

    #[test]
    fn acting_through_a_seat_of_an_ended_room_does_nothing() {
        let mut f = fixture(10);
        let now = Stamp::now();
        let (creator, _) = f.rooms.create(now, conn().0, None, None).unwrap();
        let joiner = f.rooms.join(now, "1", conn().0, None).unwrap();
        f.rooms.leave(now, &joiner);
        assert_eq!(f.records.try_recv().unwrap().result, RoomResult::Happy);
        f.rooms.leave(now, &creator);
        assert!(f.rooms.reopen(now, &creator, None).is_none());
        assert!(f.records.try_recv().is_err());
        assert_eq!(f.rooms.live_counts(), LiveCounts::default());
    }

    #[test]
    fn unknown_and_malformed_nameplates_are_refused() {
        let f = fixture(10);
        let now = Stamp::now();
        for plate in ["1", "", "x", "-1", "1234567890", "1 "] {
            assert_eq!(f.rooms.join(now, plate, conn().0, None).unwrap_err(), RoomError::UnknownNameplate);
        }
    }

    #[test]
    fn resume_needs_the_right_token_and_replaces_a_stale_connection() {
        let f = fixture(10);
        let now = Stamp::now();
        let (creator_box, mut creator_rx) = conn();
        let (creator, _) = f.rooms.create(now, creator_box, None, None).unwrap();
        let token = token_of(&messages(&mut creator_rx));
        let (joiner_box, mut joiner_rx) = conn();
        let _joiner = f.rooms.join(now, "1", joiner_box, None).unwrap();
        let _ = messages(&mut joiner_rx);
        assert_eq!(f.rooms.resume("00", conn().0, None).unwrap_err(), RoomError::BadToken);
        assert_eq!(f.rooms.resume("zz", conn().0, None).unwrap_err(), RoomError::BadToken);
        let (new_box, mut new_rx) = conn();
        let resumed = f.rooms.resume(&token, new_box, None).unwrap();
        assert_eq!(resumed.seat, 0);
        assert!(matches!(messages(&mut new_rx)[..], [ServerMessage::Resumed { peer: PeerState::Present, .. }]));
        assert_eq!(messages(&mut joiner_rx), [ServerMessage::PeerBack]);
        let old = messages(&mut creator_rx);
        assert!(old.iter().any(|m| matches!(m, ServerMessage::Error { code: ErrorCode::Replaced, .. })));
        // The replaced connection can no longer act for the seat.
        assert!(f.rooms.detach(now, &creator, false).is_none());
        assert_eq!(f.rooms.forward(&creator, Bytes::from_static(b"x"), now.at), Forwarded::Dropped);
        assert_eq!(f.rooms.forward(&resumed, Bytes::from_static(b"x"), now.at), Forwarded::Delivered);
    }

    #[test]
    fn a_hold_expires_only_when_due_and_current() {
        let mut f = fixture(10);
        let now = Stamp::now();
        let (creator_box, mut creator_rx) = conn();
        let (creator, _) = f.rooms.create(now, creator_box, None, None).unwrap();
        let token = token_of(&messages(&mut creator_rx));
        let (joiner_box, mut joiner_rx) = conn();
        let _joiner = f.rooms.join(now, "1", joiner_box, None).unwrap();
        let first = f.rooms.detach(now, &creator, false).unwrap();
        let early = Stamp { at: first.at() - Duration::from_millis(1), ..now };
        f.rooms.expire(early, &first);
        assert!(f.records.try_recv().is_err());
        // Resuming and dropping again makes the first deadline stale.
        let resumed = f.rooms.resume(&token, conn().0, None).unwrap();
        let second = f.rooms.detach(now, &resumed, false).unwrap();
        f.rooms.expire(Stamp { at: first.at(), ..now }, &first);
        assert!(f.records.try_recv().is_err());
        let late = Stamp { at: second.at(), ..now };
        f.rooms.expire(late, &second);
        let record = f.records.try_recv().unwrap();
        assert_eq!(record.result, RoomResult::Pruned);
        assert_eq!(record.resumes, 1);
        let told = messages(&mut joiner_rx);
        assert!(told.contains(&ServerMessage::PeerGone { reason: GoneReason::Timeout }));
        assert_eq!(f.rooms.live_counts(), LiveCounts::default());
    }

    #[test]
    fn results_follow_the_most_severe_flag() {
        let mut f = fixture(10);
        let now = Stamp::now();
        let ((creator_box, _creator_rx), (joiner_box, _joiner_rx)) = (conn(), conn());
        let (creator, _) = f.rooms.create(now, creator_box, Some("a/1".into()), None).unwrap();
        let joiner = f.rooms.join(now, "1", joiner_box, Some("b/2".into())).unwrap();
        assert_eq!(f.rooms.forward(&creator, Bytes::from_static(b"abc"), now.at), Forwarded::Delivered);
        f.rooms.report(&joiner, ReportedResult::Scary);
        f.rooms.leave(now, &creator);
        let record = f.records.try_recv().unwrap();
        assert_eq!(record.result, RoomResult::Scary);
        assert_eq!((record.frames_a_to_b, record.bytes_a_to_b, record.frames_b_to_a), (1, 3, 0));
        assert_eq!((record.client_a.as_deref(), record.client_b.as_deref()), (Some("a/1"), Some("b/2")));
    }

    #[test]
    fn a_creator_who_leaves_alone_is_lonely_and_waiting_rooms_expire_as_pruned() {
        let mut f = fixture(10);
        let now = Stamp::now();
        let (lonely, _) = f.rooms.create(now, conn().0, None, None).unwrap();
        f.rooms.leave(now, &lonely);
        assert_eq!(f.records.try_recv().unwrap().result, RoomResult::Lonely);
        let (creator_box, mut creator_rx) = conn();
        let (_waiting, deadline) = f.rooms.create(now, creator_box, None, None).unwrap();
        f.rooms.expire(Stamp { at: deadline.at(), ..now }, &deadline);
        let record = f.records.try_recv().unwrap();
        assert_eq!((record.result, record.waiting_ms), (RoomResult::Pruned, None));
        assert!(
            messages(&mut creator_rx)
                .iter()
                .any(|m| matches!(m, ServerMessage::Error { code: ErrorCode::Expired, .. }))
        );
    }

    #[test]
    fn handed_over_rooms_keep_their_nameplates_tokens_and_counters() {
        let old = fixture(10);
        let now = Stamp::now();
        let (creator_box, mut creator_rx) = conn();
        let (creator, _) = old.rooms.create(now, creator_box, Some("a/1".into()), None).unwrap();
        let token = token_of(&messages(&mut creator_rx));
        let (_waiting, _) = old.rooms.create(now, conn().0, None, None).unwrap();
        let (_third, _) = old.rooms.create(now, conn().0, None, None).unwrap();
        let (joiner_box, _joiner_rx) = conn();
        let _joiner = old.rooms.join(now, "1", joiner_box, None).unwrap();
        assert_eq!(old.rooms.forward(&creator, Bytes::from_static(b"hello"), now.at), Forwarded::Delivered);
        let third_joiner = old.rooms.join(now, "3", conn().0, None).unwrap();
        old.rooms.leave(now, &third_joiner);
        let snapshots = old.rooms.export(now);
        // The paired room 1 is listed by id only; the waiting room keeps its nameplate.
        assert_eq!(snapshots.iter().map(|s| (s.id, s.nameplate)).collect::<Vec<_>>(), [(1, None), (2, Some(2))]);

        let mut new = fixture(10);
        let deadlines = new.rooms.import(now, 0, snapshots);
        // Room 1: two held seats; room 2: one held seat and its waiting lifetime.
        assert_eq!(deadlines.len(), 4);
        assert_eq!(
            new.rooms.live_counts(),
            LiveCounts { rooms: 2, waiting: 1, seats_connected: 0, seats_held: 3, watchers: 0 }
        );
        let (fresh, _) = new.rooms.create(now, conn().0, None, None).unwrap();
        assert_eq!(new.rooms.live_counts().rooms, 3);
        assert_eq!(nameplate_of(&fresh), 1, "the paired room's old number was free");
        assert!(fresh.room.id > 2, "ids are not reused");
        assert_eq!(new.rooms.join(now, "2", conn().0, None).map(|s| s.seat), Ok(1), "the waiting room is listed");
        let (resumed_box, mut resumed_rx) = conn();
        let resumed = new.rooms.resume(&token, resumed_box, None).unwrap();
        assert!(matches!(
            messages(&mut resumed_rx)[..],
            [ServerMessage::Resumed { seat: 0, peer: PeerState::Away, .. }]
        ));
        new.rooms.leave(now, &resumed);
        let record = new.records.try_recv().unwrap();
        assert_eq!((record.frames_a_to_b, record.bytes_a_to_b, record.resumes), (1, 5, 1));
        assert_eq!(record.client_a.as_deref(), Some("a/1"));
    }
}
