//! The table as a whole: counting and listing rooms, and moving them between processes and instances
//! (snapshots for a successor or the cluster, giving up a room, taking rooms back).

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::{
    Deadline, Room, RoomListing, RoomState, Rooms, Seat, Stamp, TokenHash, decode_token_hash, lock, snapshot, watch,
};
use crate::handover::RoomSnapshot;
use crate::protocol::{MAX_SEATS, close};
use crate::tally::LiveCounts;

impl Rooms {
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
    pub(crate) fn entry(&self, id: u64, now: Stamp) -> Option<(RoomSnapshot, Vec<bool>)> {
        let room = lock(&self.registry).rooms.get(&id).cloned()?;
        let state = lock(&room.state);
        let connected = state.seats.iter().map(|seat| seat.outbox().is_some()).collect();
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
        let seats: Vec<Seat> = state.seats.iter_mut().map(|seat| std::mem::replace(seat, Seat::Empty)).collect();
        for seat in seats {
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
            // Seats no room here can have: a damaged file or entry, skipped.
            if !(2..=usize::from(MAX_SEATS)).contains(&snapshot.seats.len()) {
                continue;
            }
            let mut seats: Vec<Seat> = snapshot.seats.iter().map(|_| Seat::Empty).collect();
            for (index, seat) in snapshot.seats.iter().enumerate() {
                let Some(seat) = seat else { continue };
                let Some(token) = decode_token_hash(&seat.token_sha256) else { continue };
                seats[index] = Seat::Held { until, hold_id: index as u64, token, client: seat.client.clone() };
            }
            let age = Duration::from_millis(u64::try_from(now.unix_ms - snapshot.created_ms).unwrap_or(0));
            let waiting_until = now.at + Duration::from_millis(snapshot.waiting_left_ms).saturating_sub(downtime);
            let occupied: Vec<usize> = (0..seats.len()).filter(|i| !matches!(seats[*i], Seat::Empty)).collect();
            let mut traffic = snapshot.traffic.clone();
            traffic.resize(seats.len(), (0, 0));
            let next_hold_id = seats.len() as u64;
            let seats_two = seats.len() == 2;
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
                    traffic,
                    resumes: snapshot.resumes,
                    crowded: snapshot.crowded,
                    scary: snapshot.scary,
                    errored: snapshot.errored,
                    next_hold_id,
                    ended: false,
                    rendezvous,
                    watch: watch::Watch::new(registry.watch_seats && seats_two),
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
}
