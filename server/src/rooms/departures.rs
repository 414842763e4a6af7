//! Leaving a room: reports, a player leaving for good, a dropped connection's hold, deadlines that end rooms,
//! and handing an ended room's record to the statistics.

use std::sync::Arc;

use super::{Deadline, Ended, Room, Rooms, Seat, Seated, Stamp, lock};
use crate::protocol::{ErrorCode, GoneReason, ReportedResult, ServerMessage};
use crate::tally::RoomResult;

impl Rooms {
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

    /// The caller leaves for good: the room ends and every other connected seat gets `peer_gone` and a normal close.
    pub(crate) fn leave(&self, now: Stamp, from: &Seated) {
        let mut state = lock(&from.room.state);
        if state.ended || !state.owns(from) {
            return;
        }
        let base = if state.paired_ms.is_some() { RoomResult::Happy } else { RoomResult::Lonely };
        state.tell_gone(from.seat, GoneReason::Left);
        let ended = state.end(now, base, GoneReason::Left);
        drop(state);
        self.finish(&from.room, ended);
    }

    /// The caller's connection dropped: its seat is held for a resume and every other connected seat gets
    /// `peer_away` naming it.
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
        let away = ServerMessage::PeerAway { seat: from.seat as u8, hold_ms: self.hold.as_millis() as u64 };
        state.tell_others(from.seat, &away);
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
        state.tell_gone(seat, GoneReason::Timeout);
        let ended = state.end(now, base, GoneReason::Timeout);
        drop(state);
        self.finish(room, ended);
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
