//! The engine's output sink: every part of the protocol writes here, never back up into the
//! coordinator. It seals messages into the outgoing stream (acknowledging what the incoming one
//! took in), queues them for the caller, keeps the record of both directions, and queues events.

use std::collections::VecDeque;

use ed25519_dalek::SigningKey;

use super::api::Event;
use crate::crypto::Group;
use crate::ids::Seat;
use crate::wire::{self, Envelope, Message, Stream, WireError};

#[cfg_attr(fuzzing, derive(Clone))]
pub(super) struct Output {
    seat: Seat,
    signing: SigningKey,
    pub(super) outgoing: Stream,
    pub(super) incoming: Stream,
    /// The chain hash of each message this engine sent, by number.
    pub(super) sent_heads: Vec<[u8; 32]>,
    /// How many of this engine's messages the opponent last said it had taken in.
    pub(super) peer_ack: u64,
    pub(super) record: Vec<(Seat, Envelope)>,
    transmits: VecDeque<Vec<u8>>,
    events: VecDeque<Event>,
}

impl Output {
    pub(super) fn new(seat: Seat, signing: SigningKey) -> Self {
        Output {
            seat,
            signing,
            outgoing: Stream::new(),
            incoming: Stream::new(),
            sent_heads: Vec::new(),
            peer_ack: 0,
            record: Vec::new(),
            transmits: VecDeque::new(),
            events: VecDeque::new(),
        }
    }

    pub(super) fn signing(&self) -> &SigningKey {
        &self.signing
    }

    /// The number the next message sent will have.
    pub(super) fn next_seq(&self) -> u64 {
        self.outgoing.next_seq
    }

    /// Seals `message` as the next of this engine's stream and queues it for the caller.
    pub(super) fn send<G: Group>(&mut self, message: &Message<G>) -> &Envelope {
        self.seal_and_send(wire::encode_body(message), self.incoming.ack())
    }

    /// Seals any body, unchecked (the tests' tampering peer sends what an honest engine never would); returns the
    /// envelope as sent.
    pub(super) fn seal_and_send(&mut self, body: Vec<u8>, ack: wire::Ack) -> &Envelope {
        let envelope = self.outgoing.seal(&self.signing, body, ack);
        self.sent_heads.push(envelope.chain);
        self.transmits.push_back(wire::encode_envelope(&envelope));
        self.record.push((self.seat, envelope));
        &self.record[self.record.len() - 1].1
    }

    /// An authenticated message of the opponent's: it goes into the record, and says how much of
    /// this engine's stream its sender had taken in.
    pub(super) fn take_in(&mut self, envelope: &Envelope) {
        self.peer_ack = envelope.ack;
        self.record.push((self.seat.opponent(), envelope.clone()));
    }

    /// The head of this engine's stream after the `ack` messages a received envelope says
    /// its sender had taken in: never more than were sent, never fewer than said before.
    pub(super) fn acknowledged_head(&self, ack: u64) -> Result<[u8; 32], WireError> {
        let sent = self.sent_heads.len() as u64;
        if ack > sent || ack < self.peer_ack {
            return Err(WireError::Ack { acked: ack, sent, before: self.peer_ack });
        }
        Ok(ack.checked_sub(1).map_or([0; 32], |last| self.sent_heads[last as usize]))
    }

    pub(super) fn emit(&mut self, event: Event) {
        self.events.push_back(event);
    }

    pub(super) fn poll_transmit(&mut self) -> Option<Vec<u8>> {
        self.transmits.pop_front()
    }

    pub(super) fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    pub(super) fn is_empty(&self) -> bool {
        self.transmits.is_empty() && self.events.is_empty()
    }
}
