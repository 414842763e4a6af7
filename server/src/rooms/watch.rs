//! Watch seats: each player seat of a room lets up to `watch_seats` spectators in under a watch nameplate of its
//! own. The player opens its spectators' side on a second connection (`host_watch`, by its seat token); on it each
//! binary frame is `[watcher] ++ payload` both ways, while a spectator sends and receives bare payloads. The relay
//! reads no more of these frames than of a game's: the player and its spectators encrypt them end to end.
//!
//! Watch connections never hold anything: when one drops, its place is free at once. Both players' game
//! connections are told the counts, the switch and the delay choices (`watchers`) whenever they change.

use std::sync::Arc;
use std::time::Instant;

use bytes::{BufMut, Bytes, BytesMut};
use subtle::ConstantTimeEq;

use super::{Forwarded, Registry, Room, RoomError, RoomState, Rooms, Seated, lock, parse_nameplate, parse_token};
use crate::handover::WatchSnapshot;
use crate::outbox::Outbox;
use crate::protocol::{ErrorCode, GoneReason, MAX_WATCH_DELAY_TURNS, ServerMessage, close};

/// A room's watch seats.
#[derive(Debug)]
pub(super) struct Watch {
    /// Cleared for good by either player's `watch_off`.
    pub(super) open: bool,
    /// The watch seats of player seat 0 and of player seat 1.
    pub(super) sides: [Side; 2],
    /// The most spectators present at once, both sides together, for the room's record.
    pub(super) most: u32,
}

/// One player seat's watch seats.
#[derive(Debug, Default)]
pub(super) struct Side {
    /// Drawn at the seat's first `host_watch`, kept for the room's life (released when the room ends).
    pub(super) nameplate: Option<u32>,
    /// The player's host_watch connection.
    host: Option<Outbox>,
    /// Spectators by watch seat; grown on demand up to the relay's `watch_seats`.
    spectators: Vec<Option<Outbox>>,
    /// The seat's choice of delay, in turns (the players keep it; the relay only passes it on).
    pub(super) delay: u32,
}

impl Side {
    fn count(&self) -> u8 {
        self.spectators.iter().filter(|s| s.is_some()).count() as u8
    }

    fn connections(&self) -> impl Iterator<Item = &Outbox> {
        self.host.iter().chain(self.spectators.iter().flatten())
    }
}

impl Watch {
    /// A new room's watch seats: open if the relay offers watching at all.
    pub(super) fn new(open: bool) -> Watch {
        Watch { open, sides: [Side::default(), Side::default()], most: 0 }
    }

    /// Spectators present, both sides together.
    pub(super) fn spectators(&self) -> usize {
        self.sides.iter().map(|side| usize::from(side.count())).sum()
    }

    /// Sends every watch connection of `side` (both sides: `None`) away with `peer_gone` and a normal close, and
    /// empties those seats.
    pub(super) fn dismiss(&mut self, side: Option<usize>, reason: GoneReason) {
        for (index, watched) in self.sides.iter_mut().enumerate() {
            if side.is_some_and(|side| side != index) {
                continue;
            }
            for outbox in watched.connections() {
                let _ = outbox.control(&ServerMessage::PeerGone { reason });
                let _ = outbox.close(close::NORMAL, "watching over");
            }
            watched.host = None;
            watched.spectators.clear();
        }
    }

    /// Closes every watch connection as by a restart: the room moved to another instance.
    pub(super) fn evict(&mut self) {
        for side in &mut self.sides {
            for outbox in side.connections() {
                let _ = outbox.close(close::RESTART, "the room moved to another instance");
            }
            side.host = None;
            side.spectators.clear();
        }
    }
}

/// Who a watch connection is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    /// The player's host_watch connection.
    Host,
    /// Spectator K.
    Spectator(u8),
}

/// A watch connection's place in a room. Only the connection that holds it may act through it.
#[derive(Debug)]
pub(crate) struct Watcher {
    room: Arc<Room>,
    side: usize,
    role: Role,
    outbox: Outbox,
}

impl Watcher {
    pub(crate) fn role(&self) -> Role {
        self.role
    }
}

impl RoomState {
    /// Sends `watchers` to both players' game connections.
    pub(super) fn tell_watchers(&self) {
        for seat in &self.seats {
            if let Some(outbox) = seat.outbox() {
                self.tell_watchers_to(outbox);
            }
        }
    }

    /// Sends `watchers` to one game connection.
    pub(super) fn tell_watchers_to(&self, outbox: &Outbox) {
        let watch = &self.watch;
        let _ = outbox.control(&ServerMessage::Watchers {
            host: watch.sides[0].count(),
            guest: watch.sides[1].count(),
            open: watch.open,
            delay: watch.sides.iter().map(|side| side.delay).max().unwrap_or(0),
        });
    }

    /// The guest was sent away (`reopen`): its spectators go with it and its watch nameplate is void. Whether
    /// what `watchers` says changed.
    pub(super) fn send_guest_watch_away(&mut self, registry: &mut Registry, room: &Arc<Room>) -> bool {
        let guest = &self.watch.sides[1];
        let changed = guest.count() > 0 || guest.delay > 0;
        self.watch.dismiss(Some(1), GoneReason::Rejected);
        let guest = &mut self.watch.sides[1];
        guest.delay = 0;
        if let Some(nameplate) = guest.nameplate.take() {
            registry.unlist_watch(room, nameplate);
        }
        changed
    }

    /// Whether `watcher` still holds its place.
    fn holds(&self, watcher: &Watcher) -> bool {
        let side = &self.watch.sides[watcher.side];
        let place = match watcher.role {
            Role::Host => side.host.as_ref(),
            Role::Spectator(k) => side.spectators.get(usize::from(k)).and_then(Option::as_ref),
        };
        !self.ended && place.is_some_and(|outbox| outbox.same_connection(&watcher.outbox))
    }
}

impl Registry {
    /// Forgets a watch nameplate, if it leads to `room`, and frees its number.
    pub(super) fn unlist_watch(&mut self, room: &Arc<Room>, nameplate: u32) {
        if self.watching.get(&nameplate).is_some_and(|(r, _)| Arc::ptr_eq(r, room)) {
            self.watching.remove(&nameplate);
            self.nameplates.release(nameplate);
        }
    }

    /// Gives a room taken back from a snapshot its watch nameplates (those still free), switch, delays and most
    /// spectators; its spectators and host_watch connections come back with `watch` and `host_watch`.
    pub(super) fn restore_watch(&mut self, room: &Arc<Room>, snapshot: &WatchSnapshot) {
        let mut state = lock(&room.state);
        let watch = &mut state.watch;
        watch.open &= !snapshot.off;
        watch.most = snapshot.most;
        for (side, watched) in watch.sides.iter_mut().enumerate() {
            watched.delay = snapshot.delays[side].min(MAX_WATCH_DELAY_TURNS);
            watched.nameplate = snapshot.nameplates[side].filter(|n| self.nameplates.is_free(*n));
            if let Some(nameplate) = watched.nameplate {
                self.nameplates.claim(nameplate);
                self.watching.insert(nameplate, (room.clone(), side));
            }
        }
    }
}

impl Rooms {
    /// The id of the room of the seat whose token this is, if that seat has no watch nameplate yet and may have
    /// one: in a cluster, the instance claims a nameplate for it before [`Rooms::host_watch`].
    pub(crate) fn needs_watch_nameplate(&self, token: &str) -> Option<u64> {
        let presented = parse_token(token)?;
        let room = lock(&self.registry).tokens.get(&presented).cloned()?;
        let state = lock(&room.state);
        let side = state.seats.iter().position(|s| s.token() == Some(&presented))?;
        let needed = self.watch_seats > 0 && state.watch.open && !state.ended;
        (needed && state.watch.sides[side].nameplate.is_none()).then_some(room.id)
    }

    /// Opens the spectators' side of the seat whose token this is, on a player's second connection: it gets
    /// `watch_opened` with the seat's watch nameplate (drawn now if it has none: `claimed`, the one the cluster
    /// claimed for it, if it is free here too) and `watcher_joined` for each spectator already there. A host_watch
    /// connection already there gets `replaced`.
    pub(crate) fn host_watch(&self, token: &str, outbox: Outbox, claimed: Option<u32>) -> Result<Watcher, RoomError> {
        let presented = parse_token(token).ok_or(RoomError::BadToken)?;
        let mut registry = lock(&self.registry);
        let room = registry.tokens.get(&presented).cloned().ok_or(RoomError::BadToken)?;
        let mut state = lock(&room.state);
        let matches = state.seats.iter().map(|s| s.token().is_some_and(|t| bool::from(t.0.ct_eq(&presented.0))));
        let side = matches.collect::<Vec<bool>>().iter().position(|m| *m);
        let Some(side) = side.filter(|_| !state.ended) else { return Err(RoomError::BadToken) };
        if self.watch_seats == 0 || !state.watch.open {
            return Err(RoomError::WatchingOff);
        }
        let nameplate = match state.watch.sides[side].nameplate {
            Some(nameplate) => nameplate,
            None => {
                let nameplate = match claimed.filter(|n| registry.nameplates.is_free(*n)) {
                    Some(nameplate) => {
                        registry.nameplates.claim(nameplate);
                        nameplate
                    }
                    None => registry.nameplates.allocate(),
                };
                registry.watching.insert(nameplate, (room.clone(), side));
                state.watch.sides[side].nameplate = Some(nameplate);
                self.tell_cluster(room.id);
                nameplate
            }
        };
        drop(registry);
        let watched = &mut state.watch.sides[side];
        if let Some(old) = watched.host.replace(outbox.clone()) {
            let _ = old.error(ErrorCode::Replaced, "another connection opened this seat's watching");
        }
        let _ =
            outbox.control(&ServerMessage::WatchOpened { nameplate: nameplate.to_string(), seats: self.watch_seats });
        for (k, _) in watched.spectators.iter().enumerate().filter(|(_, s)| s.is_some()) {
            let _ = outbox.control(&ServerMessage::WatcherJoined { watcher: k as u8 });
        }
        drop(state);
        Ok(Watcher { room, side, role: Role::Host, outbox })
    }

    /// Seats a spectator in the first free watch seat of the side whose watch nameplate this is: it gets
    /// `watching`, the host_watch connection `watcher_joined`, both players `watchers`.
    pub(crate) fn watch(&self, nameplate: &str, outbox: Outbox) -> Result<Watcher, RoomError> {
        if self.watch_seats == 0 {
            return Err(RoomError::WatchingOff);
        }
        let nameplate = parse_nameplate(nameplate).ok_or(RoomError::UnknownNameplate)?;
        let (room, side) = lock(&self.registry).watching.get(&nameplate).cloned().ok_or(RoomError::UnknownNameplate)?;
        let mut state = lock(&room.state);
        if state.ended {
            return Err(RoomError::UnknownNameplate);
        }
        if !state.watch.open {
            return Err(RoomError::WatchingOff);
        }
        let seats = usize::from(self.watch_seats);
        let watched = &mut state.watch.sides[side];
        let free = watched.spectators.iter().position(Option::is_none);
        let k = match free {
            Some(k) => k,
            None if watched.spectators.len() < seats => {
                watched.spectators.push(None);
                watched.spectators.len() - 1
            }
            None => return Err(RoomError::Crowded),
        };
        watched.spectators[k] = Some(outbox.clone());
        let watcher = k as u8;
        let _ = outbox.control(&ServerMessage::Watching { watcher });
        if let Some(host) = &watched.host {
            let _ = host.control(&ServerMessage::WatcherJoined { watcher });
        }
        state.watch.most = state.watch.most.max(state.watch.spectators() as u32);
        state.tell_watchers();
        drop(state);
        self.metrics.watch_joins.increment(1);
        Ok(Watcher { room, side, role: Role::Spectator(watcher), outbox })
    }

    /// Forwards a binary frame of a watch connection: a host_watch frame `[K] ++ payload` goes to spectator K as
    /// the payload; spectator K's frame goes to the host_watch connection with K before it.
    pub(crate) fn forward_watch(&self, from: &Watcher, frame: Bytes, received: Instant) -> Forwarded {
        let state = lock(&from.room.state);
        if !state.holds(from) {
            return Forwarded::Dropped;
        }
        let watched = &state.watch.sides[from.side];
        let (to, frame) = match from.role {
            Role::Host => {
                let Some(&k) = frame.first() else { return Forwarded::Dropped };
                (watched.spectators.get(usize::from(k)).and_then(Option::as_ref), frame.slice(1..))
            }
            Role::Spectator(k) => {
                let mut prefixed = BytesMut::with_capacity(frame.len() + 1);
                prefixed.put_u8(k);
                prefixed.put_slice(&frame);
                (watched.host.as_ref(), prefixed.freeze())
            }
        };
        match to.map(|outbox| outbox.frame(frame, received)) {
            Some(Ok(())) => Forwarded::Delivered,
            _ => Forwarded::Dropped,
        }
    }

    /// A watch connection ended: its place is free. A spectator's host_watch connection gets `watcher_left` and
    /// both players `watchers`.
    pub(crate) fn unwatch(&self, from: &Watcher) {
        let mut state = lock(&from.room.state);
        if !state.holds(from) {
            return;
        }
        let watched = &mut state.watch.sides[from.side];
        match from.role {
            Role::Host => watched.host = None,
            Role::Spectator(watcher) => {
                watched.spectators[usize::from(watcher)] = None;
                if let Some(host) = &watched.host {
                    let _ = host.control(&ServerMessage::WatcherLeft { watcher });
                }
                state.tell_watchers();
            }
        }
    }

    /// A player turns watching off in its room for good: every watch connection of both sides gets `peer_gone`
    /// (`watching_off`) and a normal close; both players get `watchers`.
    pub(crate) fn watch_off(&self, from: &Seated) {
        let mut state = lock(&from.room.state);
        if state.ended || !state.owns(from) || !state.watch.open {
            return;
        }
        state.watch.open = false;
        state.watch.dismiss(None, GoneReason::WatchingOff);
        state.tell_watchers();
        drop(state);
        self.changed(&from.room);
    }

    /// A player's choice of delay for its spectators; both players get `watchers` if it changed. `Err` if it is
    /// over [`MAX_WATCH_DELAY_TURNS`].
    pub(crate) fn watch_delay(&self, from: &Seated, turns: u32) -> Result<(), RoomError> {
        if turns > MAX_WATCH_DELAY_TURNS {
            return Err(RoomError::DelayTooLong);
        }
        let mut state = lock(&from.room.state);
        if state.ended || !state.owns(from) {
            return Ok(());
        }
        // Only rooms of two have watch seats.
        let Some(side) = state.watch.sides.get_mut(from.seat) else { return Err(RoomError::WatchingOff) };
        if side.delay == turns {
            return Ok(());
        }
        side.delay = turns;
        state.tell_watchers();
        drop(state);
        self.changed(&from.room);
        Ok(())
    }
}
