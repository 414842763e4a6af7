//! Two engines wired together in memory, for tests and benchmarks: messages go through a
//! queue that a test may reorder, drop, duplicate or rewrite.

use std::collections::VecDeque;

use crate::crypto::Group;
use crate::engine::Input;
use crate::engine::{DeckCard, DeckList, Engine, EngineConfig, Event, Intent, IntentError};
use crate::ids::Seat;
use crate::wire::{Ack, Envelope};

/// A message on its way, and who sent it.
#[derive(Clone, Debug)]
pub struct InFlight {
    pub from: Seat,
    pub bytes: Vec<u8>,
}

#[cfg_attr(fuzzing, derive(Clone))]
pub struct Pair<G: Group> {
    pub host: Engine<G>,
    pub guest: Engine<G>,
    /// Events each engine gave, in order.
    pub host_events: Vec<Event>,
    pub guest_events: Vec<Event>,
    pub queue: VecDeque<InFlight>,
}

/// A simple deck: `count` library cards named "Card 0", "Card 1"… and a small sideboard.
pub fn numbered_deck(prefix: &str, count: usize, sideboard: usize) -> DeckList {
    let card = |i: usize, kind: &str| DeckCard { name: format!("{prefix} {kind}{i}"), back: 0 };
    DeckList {
        library: (0..count).map(|i| card(i, "")).collect(),
        sideboard: (0..sideboard).map(|i| card(i, "sideboard ")).collect(),
        commander: Vec::new(),
        label: String::new(),
    }
}

impl<G: Group> Pair<G> {
    pub fn new(host_deck: DeckList, guest_deck: DeckList, seed: u8) -> Self {
        let config = |name: &str| EngineConfig { name: name.into(), software: "fairdeck-test".into() };
        let host = Engine::new(Seat::Host, config("Host"), host_deck, [seed; 32]).expect("valid deck");
        let guest =
            Engine::new(Seat::Guest, config("Guest"), guest_deck, [seed.wrapping_add(1); 32]).expect("valid deck");
        let mut pair = Pair { host, guest, host_events: Vec::new(), guest_events: Vec::new(), queue: VecDeque::new() };
        pair.collect();
        pair
    }

    pub fn engine(&self, seat: Seat) -> &Engine<G> {
        match seat {
            Seat::Host => &self.host,
            Seat::Guest => &self.guest,
        }
    }

    pub fn engine_mut(&mut self, seat: Seat) -> &mut Engine<G> {
        match seat {
            Seat::Host => &mut self.host,
            Seat::Guest => &mut self.guest,
        }
    }

    /// What message `seq` of `from` acknowledges, as `Engine::send_unchecked` takes it: what
    /// the genuine message acknowledged, or, for a message not sent yet, everything `from`
    /// has taken in of the other player's stream.
    pub fn ack_of(&self, from: Seat, seq: u64) -> Ack {
        let sent_by = |seat: Seat| -> Vec<&Envelope> {
            self.engine(from).record().iter().filter(|(s, _)| *s == seat).map(|(_, e)| e).collect()
        };
        let other = sent_by(from.opponent());
        let count = match sent_by(from).get(seq as usize) {
            Some(envelope) => envelope.ack,
            None => other.len() as u64,
        };
        let head = count.checked_sub(1).map_or([0; 32], |last| other[last as usize].chain);
        Ack { count, head }
    }

    pub fn events(&self, seat: Seat) -> &[Event] {
        match seat {
            Seat::Host => &self.host_events,
            Seat::Guest => &self.guest_events,
        }
    }

    /// Moves every engine's output into the queue and the event lists.
    pub fn collect(&mut self) {
        for seat in Seat::BOTH {
            while let Some(bytes) = self.engine_mut(seat).poll_transmit() {
                self.queue.push_back(InFlight { from: seat, bytes });
            }
            while let Some(event) = self.engine_mut(seat).poll_event() {
                match seat {
                    Seat::Host => self.host_events.push(event),
                    Seat::Guest => self.guest_events.push(event),
                }
            }
        }
    }

    pub fn intent(&mut self, seat: Seat, intent: Intent) -> Result<(), IntentError> {
        let result = self.engine_mut(seat).handle(Input::Intent { intent });
        self.collect();
        result
    }

    /// Delivers `message` to its recipient as is.
    pub fn deliver(&mut self, message: InFlight) {
        let _messages_are_never_refused =
            self.engine_mut(message.from.opponent()).handle(Input::Message { bytes: message.bytes });
        self.collect();
    }

    /// Delivers the next queued message; false when the queue is empty.
    pub fn step(&mut self) -> bool {
        match self.queue.pop_front() {
            Some(message) => {
                self.deliver(message);
                true
            }
            None => false,
        }
    }

    /// Delivers the oldest queued message of `from`, whatever the other direction holds: each
    /// direction keeps its own order, as on a real connection, but neither waits for the other.
    /// False when `from` has nothing on its way.
    pub fn step_from(&mut self, from: Seat) -> bool {
        match self.queue.iter().position(|message| message.from == from) {
            Some(at) => {
                let message = self.queue.remove(at).expect("found above");
                self.deliver(message);
                true
            }
            None => false,
        }
    }

    /// Delivers messages until none is left, at most `limit` (a livelock guard).
    pub fn drive_bounded(&mut self, limit: usize) -> usize {
        let mut delivered = 0;
        while delivered < limit && self.step() {
            delivered += 1;
        }
        delivered
    }

    pub fn drive(&mut self) -> usize {
        self.drive_bounded(100_000)
    }
}
