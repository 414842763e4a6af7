//! One room: its seats (as many as its creator asked for), counters and end.

use std::sync::Mutex;
use std::time::Instant;

use super::{Seated, Stamp, TokenHash, watch};
use crate::handover::{RoomSnapshot, SeatSnapshot, WatchSnapshot};
use crate::outbox::Outbox;
use crate::protocol::{GoneReason, PeerState, SeatState, ServerMessage, close};
use crate::stats::RoomRecord;
use crate::tally::RoomResult;

/// One room.
#[derive(Debug)]
pub(crate) struct Room {
    /// Internal id, never shown to clients; the key of the room once its nameplate is released.
    pub(super) id: u64,
    pub(super) state: Mutex<RoomState>,
}

#[derive(Debug)]
pub(super) struct RoomState {
    /// Every seat, in join order: as many as the room has, fixed when it opens.
    pub(super) seats: Vec<Seat>,
    /// The nameplate the room is listed under, while it waits for its guest. Changed with the registry locked.
    pub(super) nameplate: Option<u32>,
    /// The last nameplate it had, which a reopened room takes again if it is still free.
    pub(super) last_nameplate: Option<u32>,
    pub(super) created_at: Instant,
    pub(super) created_ms: i64,
    pub(super) paired_ms: Option<i64>,
    pub(super) waiting_until: Instant,
    /// Frames and bytes sent by each seat.
    pub(super) traffic: Vec<(u64, u64)>,
    pub(super) resumes: u32,
    pub(super) crowded: bool,
    pub(super) scary: bool,
    pub(super) errored: bool,
    pub(super) next_hold_id: u64,
    pub(super) ended: bool,
    /// The rendezvous id of a room players met in by their keys, which finds it instead of a nameplate: the hash of
    /// both public keys, which every later `rendezvous` brings again. Nothing secret.
    pub(super) rendezvous: Option<[u8; 32]>,
    /// The spectators' seats of the player seats (of rooms of two).
    pub(super) watch: watch::Watch,
}

#[derive(Debug)]
pub(super) enum Seat {
    Empty,
    Connected { outbox: Outbox, token: TokenHash, client: Option<String> },
    Held { until: Instant, hold_id: u64, token: TokenHash, client: Option<String> },
}

impl Seat {
    pub(super) fn token(&self) -> Option<&TokenHash> {
        match self {
            Seat::Empty => None,
            Seat::Connected { token, .. } | Seat::Held { token, .. } => Some(token),
        }
    }

    pub(super) fn client(&self) -> Option<&String> {
        match self {
            Seat::Empty => None,
            Seat::Connected { client, .. } | Seat::Held { client, .. } => client.as_ref(),
        }
    }

    pub(super) fn outbox(&self) -> Option<&Outbox> {
        match self {
            Seat::Connected { outbox, .. } => Some(outbox),
            _ => None,
        }
    }

    pub(super) fn peer_state(&self) -> PeerState {
        match self {
            Seat::Empty => PeerState::Waiting,
            Seat::Connected { .. } => PeerState::Present,
            Seat::Held { .. } => PeerState::Away,
        }
    }
}

/// What is left of a room that ended, for [`Rooms::finish`].
#[derive(Debug)]
pub(super) struct Ended {
    pub(super) record: RoomRecord,
    pub(super) nameplate: Option<u32>,
    pub(super) rendezvous: Option<[u8; 32]>,
    pub(super) tokens: Vec<TokenHash>,
    pub(super) watch_nameplates: Vec<u32>,
}

impl RoomState {
    pub(super) fn owns(&self, seated: &Seated) -> bool {
        self.seats[seated.seat].outbox().is_some_and(|o| o.same_connection(&seated.outbox))
    }

    /// Marks the room ended, drops its connections' queues, sends its spectators away (`peer_gone` with `reason`)
    /// and makes its record.
    pub(super) fn end(&mut self, now: Stamp, base: RoomResult, reason: GoneReason) -> Ended {
        self.ended = true;
        self.watch.dismiss(None, reason);
        let watch_nameplates = self.watch.sides.iter().filter_map(|side| side.nameplate).collect();
        let client_of = |seat: usize| self.seats.get(seat).and_then(Seat::client).cloned();
        let (client_a, client_b) = (client_of(0), client_of(1));
        let tokens = self.seats.iter().filter_map(|s| s.token().copied()).collect();
        self.seats.iter_mut().for_each(|seat| *seat = Seat::Empty);
        let flags =
            [(self.crowded, RoomResult::Crowded), (self.scary, RoomResult::Scary), (self.errored, RoomResult::Errored)];
        let result = flags.iter().filter(|(set, _)| *set).map(|(_, r)| *r).fold(base, RoomResult::max);
        // The record has two sides: the creator's seat, and every other seat together.
        let others = self.traffic[1..].iter().fold((0, 0), |sum, seat| (sum.0 + seat.0, sum.1 + seat.1));
        let record = RoomRecord {
            created_ms: self.created_ms,
            waiting_ms: self.paired_ms.map(|p| (p - self.created_ms).max(0)),
            total_ms: now.at.saturating_duration_since(self.created_at).as_millis() as i64,
            result,
            frames_a_to_b: self.traffic[0].0 as i64,
            bytes_a_to_b: self.traffic[0].1 as i64,
            frames_b_to_a: others.0 as i64,
            bytes_b_to_a: others.1 as i64,
            resumes: i64::from(self.resumes),
            client_a,
            client_b,
            watchers: i64::from(self.watch.most),
        };
        Ended { record, nameplate: self.nameplate, rendezvous: self.rendezvous, tokens, watch_nameplates }
    }
}

/// A room's snapshot, unless it ended.
pub(super) fn snapshot(id: u64, state: &RoomState, now: Stamp) -> Option<RoomSnapshot> {
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
        seats: state.seats.iter().map(seat).collect(),
        traffic: state.traffic.clone(),
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

impl RoomState {
    /// Where every seat but `seat` stands, for `met` and `resumed`.
    pub(super) fn others(&self, seat: usize) -> Vec<SeatState> {
        let others = self.seats.iter().enumerate().filter(|(other, _)| *other != seat);
        others.map(|(other, place)| SeatState { seat: other as u8, state: place.peer_state() }).collect()
    }

    /// Sends `message` to every connected seat but `seat`.
    pub(super) fn tell_others(&self, seat: usize, message: &ServerMessage) {
        for (_, place) in self.seats.iter().enumerate().filter(|(other, _)| *other != seat) {
            if let Some(outbox) = place.outbox() {
                let _ = outbox.control(message);
            }
        }
    }

    /// Every seat is taken: each connected seat gets `paired` (with the other's client in a room of two), then
    /// `peer_away` for each held seat, and `watchers`.
    pub(super) fn pair(&mut self, now: Stamp) {
        self.paired_ms = Some(now.unix_ms);
        let two = self.seats.len() == 2;
        for (seat, place) in self.seats.iter().enumerate() {
            let Some(outbox) = place.outbox() else { continue };
            let peer_client = if two { self.seats[1 - seat].client().cloned() } else { None };
            let _ = outbox.control(&ServerMessage::Paired { peer_client });
            for (held, other) in self.seats.iter().enumerate() {
                if let Seat::Held { until, .. } = other {
                    let hold_ms = until.saturating_duration_since(now.at).as_millis() as u64;
                    let _ = outbox.control(&ServerMessage::PeerAway { seat: held as u8, hold_ms });
                }
            }
        }
        self.tell_watchers();
    }

    /// Tells every connected seat but `seat` that a player is gone for good, and closes their connections.
    pub(super) fn tell_gone(&self, seat: usize, reason: GoneReason) {
        for (_, place) in self.seats.iter().enumerate().filter(|(other, _)| *other != seat) {
            if let Some(outbox) = place.outbox() {
                let _ = outbox.control(&ServerMessage::PeerGone { reason });
                let _ = outbox.close(close::NORMAL, "room over");
            }
        }
    }
}
