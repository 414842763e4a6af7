//! Data frames between seats. A player's frame is `[to] ++ payload`, `to` a seat's number or [`TO_ALL`] for every
//! other seat; each receiver gets `[from] ++ payload`, `from` the sender's seat. The relay reads nothing else of
//! a frame: the players encrypt the payloads end to end.

use std::time::Instant;

use bytes::{BufMut, Bytes, BytesMut};

use super::{Forwarded, Rooms, Seat, Seated, lock};
use crate::protocol::TO_ALL;

/// Where a player's frame goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Address {
    Seat(usize),
    All,
}

impl Address {
    /// The address of a frame from `from` in a room of `seats`, if it names a seat there other than the sender's.
    fn of(frame: &[u8], from: usize, seats: usize) -> Option<Address> {
        match *frame.first()? {
            TO_ALL => Some(Address::All),
            to if usize::from(to) < seats && usize::from(to) != from => Some(Address::Seat(usize::from(to))),
            _ => None,
        }
    }

    fn includes(self, seat: usize, from: usize) -> bool {
        match self {
            Address::Seat(to) => seat == to,
            Address::All => seat != from,
        }
    }
}

impl Rooms {
    /// Forwards a binary frame from `from`'s seat to the seats it addresses, naming the sender, and counts it for
    /// the room's record if any seat got it. Until every seat is taken, nothing is forwarded (`NotPaired`).
    pub(crate) fn forward(&self, from: &Seated, frame: Bytes, received: Instant) -> Forwarded {
        let mut state = lock(&from.room.state);
        if state.ended || !state.owns(from) {
            return Forwarded::Dropped;
        }
        let Some(address) = Address::of(&frame, from.seat, state.seats.len()) else {
            return Forwarded::Misaddressed;
        };
        let to = state.seats.iter().enumerate().filter(|(seat, _)| address.includes(*seat, from.seat));
        if to.clone().any(|(_, seat)| matches!(seat, Seat::Empty)) {
            return Forwarded::NotPaired;
        }
        let payload = frame.slice(1..);
        let mut named = BytesMut::with_capacity(frame.len());
        named.put_u8(from.seat as u8);
        named.put_slice(&payload);
        let named = named.freeze();
        let delivered = to.fold(false, |delivered, (_, seat)| {
            let sent = seat.outbox().is_some_and(|outbox| outbox.frame(named.clone(), received).is_ok());
            delivered | sent
        });
        if !delivered {
            return Forwarded::Dropped;
        }
        let traffic = &mut state.traffic[from.seat];
        traffic.0 += 1;
        traffic.1 += payload.len() as u64;
        Forwarded::Delivered
    }
}
