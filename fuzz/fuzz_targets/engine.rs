//! The engine fed re-signed mutations of genuine messages. A short honest game is played once;
//! for each of its messages (after the hellos) the receiver is kept as it was just before the
//! message arrived, with a puppet of the sender that has sealed everything before it. An input
//! picks a message (its first byte) and mutates its body (the rest: `(position, byte)` triples
//! overwritten, or, after a 0xff marker, the raw bytes as the body); the puppet seals the
//! mutation in the genuine message's place, signed and chained as the genuine one was, and the
//! receiver takes it in. Nothing panics, whatever the receiver decides.
#![no_main]

use std::sync::OnceLock;

use fairdeck_shared::Seat;
use fairdeck_shared::crypto::Ristretto255;
use fairdeck_shared::engine::{DeckList, Engine, EngineConfig, Input, Intent};
use fairdeck_shared::pair::{Pair, numbered_deck};
use fairdeck_shared::table::{CardId, Position, ZoneId, ZoneKind};
use fairdeck_shared::wire::{self, Ack, Action};
use libfuzzer_sys::fuzz_target;

const SEED: u8 = 9;

/// One step of the scripted game: who acts, and the action given the table as it is.
type Scripted = (Seat, fn(&Pair<Ristretto255>) -> Action);

/// One genuine message: its receiver before it arrived, the sender's puppet before it was
/// sealed, what it acknowledged, and its body.
struct Snapshot {
    receiver: Engine<Ristretto255>,
    puppet: Engine<Ristretto255>,
    ack: Ack,
    body: Vec<u8>,
}

fn deck(seat: Seat) -> DeckList {
    match seat {
        Seat::Host => numbered_deck("Host", 6, 1),
        Seat::Guest => numbered_deck("Guest", 6, 1),
    }
}

/// An engine built as `Pair::new` builds `seat`'s.
fn puppet(seat: Seat) -> Engine<Ristretto255> {
    let (name, seed) = match seat {
        Seat::Host => ("Host", SEED),
        Seat::Guest => ("Guest", SEED.wrapping_add(1)),
    };
    let config = EngineConfig { name: name.into(), software: "fairdeck-test".into() };
    let mut engine = Engine::new(seat, config, deck(seat), [seed; 32]).expect("a valid deck");
    while engine.poll_transmit().is_some() {}
    engine
}

fn hand_card(pair: &Pair<Ristretto255>, seat: Seat) -> CardId {
    pair.engine(seat).table().zone(ZoneId::hand(seat))[0]
}

/// Delivers every queued message, keeping a snapshot before each one that is not a hello.
fn run(pair: &mut Pair<Ristretto255>, puppets: &mut [Engine<Ristretto255>; 2], snapshots: &mut Vec<Snapshot>) {
    while let Some(front) = pair.queue.front() {
        let from = front.from;
        let envelope = wire::decode_envelope(&front.bytes).expect("engines send valid envelopes");
        if envelope.seq > 0 {
            let ack = pair.ack_of(from, envelope.seq);
            let puppet = &mut puppets[from as usize];
            snapshots.push(Snapshot {
                receiver: pair.engine(from.opponent()).clone(),
                puppet: puppet.clone(),
                ack,
                body: envelope.body.clone(),
            });
            puppet.send_unchecked(envelope.body, ack);
            let sealed = puppet.poll_transmit().expect("the puppet sealed");
            assert_eq!(sealed, front.bytes, "the puppet does not seal as the sender did");
        }
        pair.step();
    }
}

fn snapshots() -> &'static [Snapshot] {
    static SNAPSHOTS: OnceLock<Vec<Snapshot>> = OnceLock::new();
    SNAPSHOTS.get_or_init(|| {
        let mut pair = Pair::<Ristretto255>::new(deck(Seat::Host), deck(Seat::Guest), SEED);
        let mut puppets = [puppet(Seat::Host), puppet(Seat::Guest)];
        let mut snapshots = Vec::new();
        run(&mut pair, &mut puppets, &mut snapshots);
        let script: [Scripted; 8] = [
            (Seat::Host, |_| Action::Draw { count: 2 }),
            (Seat::Guest, |_| Action::Draw { count: 2 }),
            (Seat::Guest, |p| Action::Reveal { cards: vec![hand_card(p, Seat::Guest)], to: None }),
            (Seat::Host, |_| Action::ShowRandom),
            (Seat::Host, |_| Action::TakeFromLibrary { count: 1 }),
            (Seat::Guest, |p| Action::Move {
                card: hand_card(p, Seat::Guest),
                to: ZoneId::new(Seat::Guest, ZoneKind::Library),
                position: Position::Top,
                placement: Default::default(),
            }),
            (Seat::Guest, |_| Action::Shuffle { permutation: None }),
            (Seat::Host, |_| Action::NextTurn),
        ];
        for (seat, action) in script {
            let action = action(&pair);
            pair.intent(seat, Intent::Act(action)).expect("an honest action");
            run(&mut pair, &mut puppets, &mut snapshots);
        }
        pair.intent(Seat::Guest, Intent::EndGame).expect("the guest may end");
        run(&mut pair, &mut puppets, &mut snapshots);
        snapshots
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, mutation)) = data.split_first() else { return };
    let snapshots = snapshots();
    let snapshot = &snapshots[usize::from(pick) % snapshots.len()];
    let body = match mutation.split_first() {
        Some((0xff, raw)) => raw.to_vec(),
        _ => {
            let mut body = snapshot.body.clone();
            for change in mutation.chunks_exact(3) {
                let at = usize::from(u16::from_be_bytes([change[0], change[1]])) % body.len();
                body[at] = change[2];
            }
            body
        }
    };
    let mut puppet = snapshot.puppet.clone();
    puppet.send_unchecked(body, snapshot.ack);
    let sealed = puppet.poll_transmit().expect("the puppet sealed");
    let mut receiver = snapshot.receiver.clone();
    let _messages_are_never_refused = receiver.handle(Input::Message { bytes: sealed });
    while receiver.poll_transmit().is_some() {}
    while receiver.poll_event().is_some() {}
});
