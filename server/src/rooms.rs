//! The room table: nameplates, seats, tokens, holds and results.
//!
//! `Rooms` is the only thing that changes room state, and only through its methods, which return errors instead
//! of panicking on odd sequences (a stale connection, a timer that fires late). It owns no socket, task or clock:
//! the session driver passes the time in, and schedules the deadlines these methods hand back. That keeps a later
//! multi-instance version (rooms shared through Redis) a matter of re-implementing this one type.
//!
//! Locking: the registry lock maps nameplates to rooms; each room has its own lock for seats and counters, so
//! forwarding a frame takes only its room's lock. The two locks are never held together.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use thiserror::Error;
use tokio::sync::mpsc;

use crate::handover::{RoomSnapshot, SeatSnapshot};
use crate::metrics::Metrics;
use crate::outbox::Outbox;
use crate::protocol::{ErrorCode, GoneReason, PeerState, ReportedResult, ServerMessage, close};
use crate::stats::{RoomRecord, RoomResult};

/// Longest nameplate accepted, in digits.
const MAX_NAMEPLATE_DIGITS: usize = 9;

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
    #[error("no room has this nameplate")]
    UnknownNameplate,
    #[error("this room already has two players")]
    Crowded,
    #[error("this token does not match a seat of this room")]
    BadToken,
    #[error("the relay has as many rooms as it may hold; try again later")]
    ServerFull,
}

impl RoomError {
    /// The wire error code for this refusal.
    pub fn code(self) -> ErrorCode {
        match self {
            RoomError::UnknownNameplate => ErrorCode::UnknownNameplate,
            RoomError::Crowded => ErrorCode::Crowded,
            RoomError::BadToken => ErrorCode::BadToken,
            RoomError::ServerFull => ErrorCode::ServerFull,
        }
    }
}

/// Counts of the live table, for metrics and the stats page.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct LiveCounts {
    pub rooms: usize,
    pub waiting: usize,
    pub seats_connected: usize,
    pub seats_held: usize,
}

/// A connection's place in a room. Only the connection that holds it may act through it.
#[derive(Debug)]
pub(crate) struct Seated {
    room: Arc<Room>,
    seat: usize,
    outbox: Outbox,
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
    nameplate: u32,
    state: Mutex<RoomState>,
}

#[derive(Debug)]
struct RoomState {
    seats: [Seat; 2],
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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct TokenHash([u8; 32]);

/// Makes a fresh seat token: 16 random bytes, hex. Only its hash is kept.
fn new_token() -> (String, TokenHash) {
    let bytes: [u8; 16] = rand::random();
    (hex::encode(bytes), hash_token(&bytes))
}

fn hash_token(bytes: &[u8]) -> TokenHash {
    TokenHash(Sha256::digest(bytes).into())
}

fn decode_token_hash(text: &str) -> Option<TokenHash> {
    hex::decode(text).ok()?.try_into().ok().map(TokenHash)
}

fn parse_nameplate(text: &str) -> Option<u32> {
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

/// The room table.
#[derive(Debug)]
pub struct Rooms {
    registry: Mutex<Registry>,
    hold: Duration,
    waiting_lifetime: Duration,
    max_rooms: usize,
    metrics: Arc<Metrics>,
    records: mpsc::Sender<RoomRecord>,
}

#[derive(Debug, Default)]
struct Registry {
    rooms: HashMap<u32, Arc<Room>>,
    /// Released nameplates below `next`, so the smallest free one is reused first.
    free: BTreeSet<u32>,
    next: u32,
}

impl Registry {
    fn allocate(&mut self) -> u32 {
        if let Some(nameplate) = self.free.pop_first() {
            return nameplate;
        }
        self.next += 1;
        self.next
    }

    /// Marks a specific nameplate as used (when rooms are taken over).
    fn claim(&mut self, nameplate: u32) {
        if nameplate > self.next {
            self.free.extend(self.next + 1..nameplate);
            self.next = nameplate;
        } else {
            self.free.remove(&nameplate);
        }
    }

    fn release(&mut self, nameplate: u32) {
        self.free.insert(nameplate);
        // Shrink from the top so `free` only ever holds holes below the highest nameplate in use.
        while self.next > 0 && self.free.remove(&self.next) {
            self.next -= 1;
        }
    }
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
        Rooms { registry: Mutex::new(Registry::default()), hold, waiting_lifetime, max_rooms, metrics, records }
    }

    /// Opens a room with the caller in seat 0, and sends it `created`.
    pub(crate) fn create(
        &self,
        now: Stamp,
        outbox: Outbox,
        client: Option<String>,
    ) -> Result<(Seated, Deadline), RoomError> {
        let (token_text, token) = new_token();
        let waiting_until = now.at + self.waiting_lifetime;
        let mut registry = lock(&self.registry);
        if registry.rooms.len() >= self.max_rooms {
            return Err(RoomError::ServerFull);
        }
        let nameplate = registry.allocate();
        let room = Arc::new(Room {
            nameplate,
            state: Mutex::new(RoomState {
                seats: [Seat::Connected { outbox: outbox.clone(), token, client }, Seat::Empty],
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
            }),
        });
        registry.rooms.insert(nameplate, room.clone());
        drop(registry);
        let _ =
            outbox.control(&ServerMessage::Created { nameplate: nameplate.to_string(), seat: 0, token: token_text });
        let deadline = Deadline::Waiting { room: room.clone(), at: waiting_until };
        Ok((Seated { room, seat: 0, outbox }, deadline))
    }

    /// Seats the caller in the free seat of the room named `nameplate`, sends it `joined` and pairs the room.
    pub(crate) fn join(
        &self,
        now: Stamp,
        nameplate: &str,
        outbox: Outbox,
        client: Option<String>,
    ) -> Result<Seated, RoomError> {
        let room = self.find(nameplate)?;
        let mut state = lock(&room.state);
        if state.ended {
            return Err(RoomError::UnknownNameplate);
        }
        if !matches!(state.seats[1], Seat::Empty) {
            state.crowded = true;
            return Err(RoomError::Crowded);
        }
        let (token_text, token) = new_token();
        state.seats[1] = Seat::Connected { outbox: outbox.clone(), token, client: client.clone() };
        state.paired_ms = Some(now.unix_ms);
        let _ = outbox.control(&ServerMessage::Joined {
            nameplate: room.nameplate.to_string(),
            seat: 1,
            token: token_text,
        });
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
        drop(state);
        Ok(Seated { room, seat: 1, outbox })
    }

    /// Gives the seat whose token this is to the caller, sends it `resumed` and tells the peer `peer_back`.
    /// A connection still sitting in that seat is closed with `replaced`.
    pub(crate) fn resume(
        &self,
        nameplate: &str,
        token: &str,
        outbox: Outbox,
        client: Option<String>,
    ) -> Result<Seated, RoomError> {
        let room = self.find(nameplate)?;
        let token_bytes = hex::decode(token).map_err(|_| RoomError::BadToken)?;
        let presented = hash_token(&token_bytes);
        let mut state = lock(&room.state);
        if state.ended {
            return Err(RoomError::UnknownNameplate);
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
            nameplate: room.nameplate.to_string(),
            seat: seat as u8,
            peer: peer.peer_state(),
        });
        if let Some(peer_outbox) = peer.outbox() {
            let _ = peer_outbox.control(&ServerMessage::PeerBack);
        }
        drop(state);
        Ok(Seated { room, seat, outbox })
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
        let record = state.end(now, base);
        drop(state);
        self.finish(&from.room, record);
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
        if let Some(creator) = state.seats[0].outbox() {
            let _ = creator.error(ErrorCode::Expired, "nobody joined this room in time");
        }
        let record = state.end(now, RoomResult::Pruned);
        drop(state);
        self.finish(room, record);
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
        let record = state.end(now, base);
        drop(state);
        self.finish(room, record);
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

    /// Snapshots every open room for a successor process (see `handover`).
    pub(crate) fn export(&self, now: Stamp) -> Vec<RoomSnapshot> {
        let rooms: Vec<Arc<Room>> = lock(&self.registry).rooms.values().cloned().collect();
        let mut snapshots: Vec<RoomSnapshot> = rooms
            .iter()
            .filter_map(|room| {
                let state = lock(&room.state);
                if state.ended {
                    return None;
                }
                let seat = |seat: &Seat| {
                    seat.token().map(|token| SeatSnapshot {
                        token_sha256: hex::encode(token.0),
                        client: seat.client().cloned(),
                    })
                };
                Some(RoomSnapshot {
                    nameplate: room.nameplate,
                    created_ms: state.created_ms,
                    paired_ms: state.paired_ms,
                    waiting_left_ms: state.waiting_until.saturating_duration_since(now.at).as_millis() as u64,
                    seats: [seat(&state.seats[0]), seat(&state.seats[1])],
                    traffic: state.traffic,
                    resumes: state.resumes,
                    crowded: state.crowded,
                    scary: state.scary,
                    errored: state.errored,
                })
            })
            .collect();
        snapshots.sort_by_key(|s| s.nameplate);
        snapshots
    }

    /// Takes back rooms from a predecessor that stopped `downtime_ms` ago, with every seat held for what is left
    /// of the hold. Returns the deadlines to schedule. Rooms whose nameplate is already in use are skipped.
    pub(crate) fn import(&self, now: Stamp, downtime_ms: u64, snapshots: Vec<RoomSnapshot>) -> Vec<Deadline> {
        let downtime = Duration::from_millis(downtime_ms);
        let until = now.at + self.hold.saturating_sub(downtime);
        let mut deadlines = Vec::new();
        let mut registry = lock(&self.registry);
        for snapshot in snapshots {
            if registry.rooms.contains_key(&snapshot.nameplate) || snapshot.nameplate == 0 {
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
            let room = Arc::new(Room {
                nameplate: snapshot.nameplate,
                state: Mutex::new(RoomState {
                    seats,
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
                }),
            });
            registry.claim(snapshot.nameplate);
            registry.rooms.insert(snapshot.nameplate, room.clone());
            if snapshot.paired_ms.is_none() {
                deadlines.push(Deadline::Waiting { room: room.clone(), at: waiting_until });
            }
            for seat in occupied {
                deadlines.push(Deadline::Hold { room: room.clone(), seat, hold_id: seat as u64, at: until });
            }
        }
        deadlines
    }

    fn find(&self, nameplate: &str) -> Result<Arc<Room>, RoomError> {
        let nameplate = parse_nameplate(nameplate).ok_or(RoomError::UnknownNameplate)?;
        lock(&self.registry).rooms.get(&nameplate).cloned().ok_or(RoomError::UnknownNameplate)
    }

    /// Frees the room's nameplate and hands its record to the statistics.
    fn finish(&self, room: &Arc<Room>, record: RoomRecord) {
        let mut registry = lock(&self.registry);
        if registry.rooms.get(&room.nameplate).is_some_and(|r| Arc::ptr_eq(r, room)) {
            registry.rooms.remove(&room.nameplate);
            registry.release(room.nameplate);
        }
        drop(registry);
        self.metrics.room_ended(record.result);
        if self.records.try_send(record).is_err() {
            self.metrics.stats_dropped.increment(1);
        }
    }
}

impl RoomState {
    fn owns(&self, seated: &Seated) -> bool {
        self.seats[seated.seat].outbox().is_some_and(|o| o.same_connection(&seated.outbox))
    }

    /// Marks the room ended, drops its connections' queues and makes its record.
    fn end(&mut self, now: Stamp, base: RoomResult) -> RoomRecord {
        self.ended = true;
        let clients = [self.seats[0].client().cloned(), self.seats[1].client().cloned()];
        self.seats = [Seat::Empty, Seat::Empty];
        let flags =
            [(self.crowded, RoomResult::Crowded), (self.scary, RoomResult::Scary), (self.errored, RoomResult::Errored)];
        let result = flags.iter().filter(|(set, _)| *set).map(|(_, r)| *r).fold(base, RoomResult::max);
        let [client_a, client_b] = clients;
        RoomRecord {
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
        }
    }
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
        Outbox::new(64, 1 << 20)
    }

    fn messages(queue: &mut Queue) -> Vec<ServerMessage> {
        let mut out = Vec::new();
        while let Ok(item) = queue.items.try_recv() {
            if let Outgoing::Text(text) = item {
                out.push(serde_json::from_str(&text).unwrap());
            }
        }
        out
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
        let seats: Vec<Seated> = (0..3).map(|_| f.rooms.create(now, conn().0, None).unwrap().0).collect();
        let plates: Vec<u32> = seats.iter().map(|s| s.room.nameplate).collect();
        assert_eq!(plates, [1, 2, 3]);
        f.rooms.leave(now, &seats[1]);
        f.rooms.leave(now, &seats[0]);
        assert_eq!(f.rooms.create(now, conn().0, None).unwrap().0.room.nameplate, 1);
        assert_eq!(f.rooms.create(now, conn().0, None).unwrap().0.room.nameplate, 2);
        assert_eq!(f.rooms.create(now, conn().0, None).unwrap().0.room.nameplate, 4);
    }

    #[test]
    fn the_room_limit_is_enforced() {
        let f = fixture(1);
        let now = Stamp::now();
        let _first = f.rooms.create(now, conn().0, None).unwrap();
        assert_eq!(f.rooms.create(now, conn().0, None).unwrap_err(), RoomError::ServerFull);
    }

    #[test]
    fn a_third_joiner_is_crowded_and_the_room_remembers() {
        let mut f = fixture(10);
        let now = Stamp::now();
        let (creator, _) = f.rooms.create(now, conn().0, None).unwrap();
        let joiner = f.rooms.join(now, "1", conn().0, None).unwrap();
        assert_eq!(f.rooms.join(now, "1", conn().0, None).unwrap_err(), RoomError::Crowded);
        f.rooms.leave(now, &joiner);
        assert_eq!(f.records.try_recv().unwrap().result, RoomResult::Crowded);
        // The creator's seat is already gone with the room; acting through it does nothing.
        f.rooms.leave(now, &creator);
        assert!(f.records.try_recv().is_err());
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
        let (creator, _) = f.rooms.create(now, creator_box, None).unwrap();
        let token = token_of(&messages(&mut creator_rx));
        let (joiner_box, mut joiner_rx) = conn();
        let _joiner = f.rooms.join(now, "1", joiner_box, None).unwrap();
        let _ = messages(&mut joiner_rx);
        assert_eq!(f.rooms.resume("1", "00", conn().0, None).unwrap_err(), RoomError::BadToken);
        assert_eq!(f.rooms.resume("1", "zz", conn().0, None).unwrap_err(), RoomError::BadToken);
        let (new_box, mut new_rx) = conn();
        let resumed = f.rooms.resume("1", &token, new_box, None).unwrap();
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
        let (creator, _) = f.rooms.create(now, creator_box, None).unwrap();
        let token = token_of(&messages(&mut creator_rx));
        let (joiner_box, mut joiner_rx) = conn();
        let _joiner = f.rooms.join(now, "1", joiner_box, None).unwrap();
        let first = f.rooms.detach(now, &creator, false).unwrap();
        let early = Stamp { at: first.at() - Duration::from_millis(1), ..now };
        f.rooms.expire(early, &first);
        assert!(f.records.try_recv().is_err());
        // Resuming and dropping again makes the first deadline stale.
        let resumed = f.rooms.resume("1", &token, conn().0, None).unwrap();
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
        let (creator, _) = f.rooms.create(now, creator_box, Some("a/1".into())).unwrap();
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
        let (lonely, _) = f.rooms.create(now, conn().0, None).unwrap();
        f.rooms.leave(now, &lonely);
        assert_eq!(f.records.try_recv().unwrap().result, RoomResult::Lonely);
        let (creator_box, mut creator_rx) = conn();
        let (_waiting, deadline) = f.rooms.create(now, creator_box, None).unwrap();
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
        let (creator, _) = old.rooms.create(now, creator_box, Some("a/1".into())).unwrap();
        let token = token_of(&messages(&mut creator_rx));
        let (_waiting, _) = old.rooms.create(now, conn().0, None).unwrap();
        let (_third, _) = old.rooms.create(now, conn().0, None).unwrap();
        let (joiner_box, _joiner_rx) = conn();
        let _joiner = old.rooms.join(now, "1", joiner_box, None).unwrap();
        assert_eq!(old.rooms.forward(&creator, Bytes::from_static(b"hello"), now.at), Forwarded::Delivered);
        let third_joiner = old.rooms.join(now, "3", conn().0, None).unwrap();
        old.rooms.leave(now, &third_joiner);
        let snapshots = old.rooms.export(now);
        assert_eq!(snapshots.iter().map(|s| s.nameplate).collect::<Vec<_>>(), [1, 2]);

        let mut new = fixture(10);
        let deadlines = new.rooms.import(now, 0, snapshots);
        // Room 1: two held seats; room 2: one held seat and its waiting lifetime.
        assert_eq!(deadlines.len(), 4);
        assert_eq!(new.rooms.live_counts(), LiveCounts { rooms: 2, waiting: 1, seats_connected: 0, seats_held: 3 });
        let (_fresh, _) = new.rooms.create(now, conn().0, None).unwrap();
        assert_eq!(new.rooms.live_counts().rooms, 3);
        let (resumed_box, mut resumed_rx) = conn();
        let resumed = new.rooms.resume("1", &token, resumed_box, None).unwrap();
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
