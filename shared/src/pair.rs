//! Two engines wired together in memory, for tests and benchmarks: messages go through a
//! queue that a test may reorder, drop, duplicate or rewrite.

use std::collections::VecDeque;

use crate::crypto::Group;
use crate::engine::Input;
use crate::engine::{DeckCard, DeckList, Engine, EngineConfig, Event, Intent, IntentError, LimitedConfig};
use crate::ids::Seat;
use crate::wire::{Ack, Envelope};

pub mod draft;

/// A message on its way, and who sent it.
#[derive(Clone, Debug)]
pub struct InFlight {
    /// The seat that sent it.
    pub from: Seat,
    /// The encoded envelope.
    pub bytes: Vec<u8>,
}

/// A host and a guest engine, the messages between them and the events each gave.
#[cfg_attr(fuzzing, derive(Clone))]
pub struct Pair<G: Group> {
    /// The host's engine.
    pub host: Engine<G>,
    /// The guest's engine.
    pub guest: Engine<G>,
    /// Events the host's engine gave, in order.
    pub host_events: Vec<Event>,
    /// Events the guest's engine gave, in order.
    pub guest_events: Vec<Event>,
    /// Messages on their way, in the order they were sent.
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
    /// Two engines with these decks and seeds derived from `seed`, their hellos queued.
    pub fn new(host_deck: DeckList, guest_deck: DeckList, seed: u8) -> Self {
        let engine = |seat: Seat, name: &str, deck: DeckList, seed: u8| {
            let config = EngineConfig { name: name.into(), software: "fairdeck-test".into() };
            // Test support: a test that hands the pair a deck `Engine::new` refuses is a broken test, and stops.
            Engine::new(seat, config, deck, [seed; 32]).expect("a test's decks are valid")
        };
        let host = engine(Seat::HOST, "Host", host_deck, seed);
        let guest = engine(Seat::GUEST, "Guest", guest_deck, seed.wrapping_add(1));
        Self::of(host, guest)
    }

    /// Two engines of a limited match with these pools (the host's with its format), seeded as `new` seeds them.
    pub fn limited(host: LimitedConfig, guest: LimitedConfig, seed: u8) -> Self {
        let engine = |seat: Seat, name: &str, limited: LimitedConfig, seed: u8| {
            let config = EngineConfig { name: name.into(), software: "fairdeck-test".into() };
            // Test support, as in `new`: a pool the engine refuses is a broken test.
            Engine::new_limited(seat, config, limited, [seed; 32]).expect("a test's pools are valid")
        };
        let host = engine(Seat::HOST, "Host", host, seed);
        let guest = engine(Seat::GUEST, "Guest", guest, seed.wrapping_add(1));
        Self::of(host, guest)
    }

    fn of(host: Engine<G>, guest: Engine<G>) -> Self {
        let mut pair = Pair { host, guest, host_events: Vec::new(), guest_events: Vec::new(), queue: VecDeque::new() };
        pair.collect();
        pair
    }

    /// The engine of `seat`.
    pub fn engine(&self, seat: Seat) -> &Engine<G> {
        match seat {
            Seat::HOST => &self.host,
            Seat::GUEST => &self.guest,
        }
    }

    /// The engine of `seat`, to act on.
    pub fn engine_mut(&mut self, seat: Seat) -> &mut Engine<G> {
        match seat {
            Seat::HOST => &mut self.host,
            Seat::GUEST => &mut self.guest,
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

    /// The events `seat`'s engine gave so far.
    pub fn events(&self, seat: Seat) -> &[Event] {
        match seat {
            Seat::HOST => &self.host_events,
            Seat::GUEST => &self.guest_events,
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
                    Seat::HOST => self.host_events.push(event),
                    Seat::GUEST => self.guest_events.push(event),
                }
            }
        }
    }

    /// Gives `seat`'s engine an intent of its player, and collects what it sends.
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
        let next = self.queue.iter().position(|message| message.from == from).and_then(|at| self.queue.remove(at));
        match next {
            Some(message) => {
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

    /// Delivers messages until none is left.
    pub fn drive(&mut self) -> usize {
        self.drive_bounded(100_000)
    }
}
