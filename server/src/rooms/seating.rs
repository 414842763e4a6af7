//! Taking seats: opening a room, joining it, taking a seat back by its token or at a rendezvous, and reopening a
//! room whose key exchange failed.

use subtle::ConstantTimeEq;

use super::{Claim, Deadline, RoomError, Rooms, Seat, Seated, Stamp, lock, new_token, parse_nameplate, parse_token};
use crate::outbox::Outbox;
use crate::protocol::{
    CHALLENGE_BYTES, DEFAULT_SEATS, ErrorCode, GoneReason, MAX_SEATS, Meeting, ServerMessage, close,
};

/// Seats of a room at a rendezvous: the room is the hash of two seats' keys.
const RENDEZVOUS_SEATS: usize = 2;

impl Rooms {
    /// Opens a room of `seats` seats ([`DEFAULT_SEATS`] if `None`) with the caller in seat 0, and sends it
    /// `created`. `claim` is the id and nameplate the cluster reserved for it (the nameplate is used if it is free
    /// here too).
    pub(crate) fn create(
        &self,
        now: Stamp,
        outbox: Outbox,
        client: Option<String>,
        seats: Option<u8>,
        claim: Option<Claim>,
    ) -> Result<(Seated, Deadline), RoomError> {
        let seats = seats.unwrap_or(DEFAULT_SEATS);
        if !(2..=MAX_SEATS).contains(&seats) {
            return Err(RoomError::SeatsOutOfRange);
        }
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
        let room = registry.new_room(now, waiting_until, usize::from(seats), None, claim.map(|c| c.id));
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
        let created = ServerMessage::Created { nameplate: nameplate.to_string(), seat: 0, seats, token: token_text };
        let _ = outbox.control(&created);
        let deadline = Deadline::Waiting { room: room.clone(), at: waiting_until };
        Ok((Seated { room, seat: 0, outbox }, deadline))
    }

    /// Seats the caller in the first free seat of the room waiting under `nameplate` and sends it `joined`; if that
    /// was the last free seat, pairs the room and releases the nameplate.
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
        let Some(seat) = state.seats.iter().position(|seat| matches!(seat, Seat::Empty)) else {
            state.crowded = true;
            return Err(RoomError::Crowded);
        };
        let full = state.seats.iter().filter(|seat| matches!(seat, Seat::Empty)).count() == 1;
        if full {
            registry.unlist(&room, nameplate);
        }
        registry.tokens.insert(token, room.clone());
        drop(registry);
        state.seats[seat] = Seat::Connected { outbox: outbox.clone(), token, client };
        let seats = state.seats.len() as u8;
        let joined =
            ServerMessage::Joined { nameplate: nameplate.to_string(), seat: seat as u8, seats, token: token_text };
        let _ = outbox.control(&joined);
        if full {
            state.nameplate = None;
            state.pair(now);
        }
        drop(state);
        self.changed(&room);
        Ok(Seated { room, seat, outbox })
    }

    /// Gives the seat whose token this is to the caller, sends it `resumed` and tells the other seats `peer_back`.
    /// A connection still sitting in that seat is closed with `replaced`. Every failure is [`RoomError::BadToken`].
    pub(crate) fn resume(&self, token: &str, outbox: Outbox, client: Option<String>) -> Result<Seated, RoomError> {
        let presented = parse_token(token).ok_or(RoomError::BadToken)?;
        let room = lock(&self.registry).tokens.get(&presented).cloned().ok_or(RoomError::BadToken)?;
        let mut state = lock(&room.state);
        if state.ended {
            return Err(RoomError::BadToken);
        }
        // Compare against every seat in constant time, so timing says nothing about either token.
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
        let _ = outbox.control(&ServerMessage::Resumed {
            nameplate: state.nameplate.map(|n| n.to_string()),
            seat: seat as u8,
            others: state.others(seat),
        });
        state.tell_others(seat, &ServerMessage::PeerBack { seat: seat as u8 });
        state.tell_watchers_to(&outbox);
        drop(state);
        self.changed(&room);
        Ok(Seated { room, seat, outbox })
    }

    /// Seats the caller in a seat of a rendezvous room, if the meeting proves that seat on the connection whose
    /// `welcome` gave `challenge` ([`Meeting::check`]: the room's id is the hash of the seats' public keys and the
    /// seat's key signed the challenge). The room is opened if it does not exist. The seat takes a fresh token
    /// (the old one is void); a connection still in it is closed with `replaced`. The caller gets `met`, then
    /// `paired` with the other seat when both are there for the first time, or the other seat gets `peer_back`. Every refusal
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
                let waiting_until = now.at + self.waiting_lifetime;
                let room = registry.new_room(now, waiting_until, RENDEZVOUS_SEATS, Some(id), reserved);
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
        let _ =
            outbox.control(&ServerMessage::Met { seat: meeting.seat, token: token_text, others: state.others(seat) });
        let first_pairing = state.paired_ms.is_none() && state.seats.iter().all(|seat| seat.outbox().is_some());
        if first_pairing {
            state.pair(now);
        } else {
            state.tell_others(seat, &ServerMessage::PeerBack { seat: meeting.seat });
            state.tell_watchers_to(&outbox);
        }
        let deadline = opened.then(|| Deadline::Waiting { room: room.clone(), at: state.waiting_until });
        drop(state);
        self.changed(&room);
        Ok((Seated { room, seat, outbox }, deadline))
    }

    /// The creator frees every other seat for whoever joins next (its key exchange with a guest failed): each
    /// connected guest gets `peer_gone` (`rejected`) and a normal close, their tokens are void, and the room waits
    /// again under a nameplate (its last one if still free) with a fresh waiting lifetime. The creator gets `reopened`. Returns
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
        let guests: Vec<Seat> = state.seats[1..].iter_mut().map(|seat| std::mem::replace(seat, Seat::Empty)).collect();
        for token in guests.iter().filter_map(Seat::token) {
            registry.forget_token(room, token);
        }
        let watchers_changed = state.send_guest_watch_away(&mut registry, room);
        let nameplate = registry.list(room, claimed.or(state.last_nameplate));
        drop(registry);
        for outbox in guests.iter().filter_map(Seat::outbox) {
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
}
