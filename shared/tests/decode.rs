//! Every decode of a received message is total: whatever bytes arrive, the wire decoders
//! return a value or an error, and an engine turns them into an alert, never a panic.
//!
//! Three sources of bytes: random ones; the messages of an honest game with random byte
//! mutations (the envelope as it travels); and the same messages with their body changed
//! as JSON and sealed again with the sender's key, so that the change gets past the
//! signature and reaches the engine's handling of what the message says.

use std::sync::OnceLock;

use fairdeck_shared::Seat;
use fairdeck_shared::crypto::{Group, Modp2048, Ristretto255};
use fairdeck_shared::engine::{Alert, Engine, EngineConfig, Event, Intent};
use fairdeck_shared::pair::{InFlight, Pair, numbered_deck};
use fairdeck_shared::table::{Placement, Position, ZoneId, ZoneKind};
use fairdeck_shared::wire::{self, Action, Envelope};
use proptest::prelude::*;
use proptest::sample::Index;
use serde_json::{Value, json};

const SEED: u8 = 5;
const LIBRARY: usize = 4;

fn deck(seat: Seat) -> fairdeck_shared::engine::DeckList {
    match seat {
        Seat::Host => numbered_deck("Host", LIBRARY, 1),
        Seat::Guest => numbered_deck("Guest", LIBRARY, 1),
    }
}

fn new_pair<G: Group>() -> Pair<G> {
    Pair::new(deck(Seat::Host), deck(Seat::Guest), SEED)
}

fn alerts<G: Group>(pair: &Pair<G>, seat: Seat) -> Vec<Alert> {
    pair.events(seat)
        .iter()
        .filter_map(|event| match event {
            Event::Alert(alert) => Some(alert.clone()),
            _ => None,
        })
        .collect()
}

fn misbehaviour<G: Group>(pair: &Pair<G>, seat: Seat) -> Vec<Alert> {
    alerts(pair, seat).into_iter().filter(|a| a.kind.is_misbehaviour()).collect()
}

/// Plays the honest game below, stopping before delivery number `stop`: that message is
/// taken off the queue, and the pair is left in the state that receives it.
struct Play<G: Group> {
    pair: Pair<G>,
    delivered: usize,
    stop: Option<usize>,
    taken: Option<InFlight>,
    transcript: Vec<InFlight>,
}

impl<G: Group> Play<G> {
    fn new(stop: Option<usize>) -> Self {
        Play { pair: new_pair(), delivered: 0, stop, taken: None, transcript: Vec::new() }
    }

    fn drive(&mut self) {
        while self.taken.is_none() {
            let Some(message) = self.pair.queue.pop_front() else { return };
            if Some(self.delivered) == self.stop {
                self.taken = Some(message);
                return;
            }
            self.transcript.push(message.clone());
            self.pair.deliver(message);
            self.delivered += 1;
        }
    }

    fn intent(&mut self, seat: Seat, intent: Intent) {
        if self.taken.is_none() {
            self.pair.intent(seat, intent).expect("an honest intent");
            self.drive();
        }
    }

    fn act(&mut self, seat: Seat, action: impl FnOnce(&Pair<G>) -> Action) {
        if self.taken.is_none() {
            let action = action(&self.pair);
            self.intent(seat, Intent::Act(action));
        }
    }
}

fn hand<G: Group>(pair: &Pair<G>, seat: Seat) -> Vec<fairdeck_shared::table::CardId> {
    pair.host.table().zone(ZoneId::hand(seat)).to_vec()
}

/// An honest game with a message of every kind: set-up, draws, reveals, a roll, dirty and
/// clean reshuffles with relocks, a card taken from the opponent's library, chat, ping,
/// a reveal request and its refusal.
fn play<G: Group>(stop: Option<usize>) -> Play<G> {
    let mut play = Play::<G>::new(stop);
    play.drive();
    play.act(Seat::Host, |_| Action::Draw { count: 2 });
    play.act(Seat::Guest, |_| Action::Draw { count: 1 });
    play.act(Seat::Host, |p| Action::Move {
        card: hand(p, Seat::Host)[0],
        to: ZoneId::new(Seat::Host, ZoneKind::Play),
        position: Position::Top,
        placement: Placement { x: 1, y: 2, face_down: false },
    });
    play.act(Seat::Guest, |p| Action::Reveal { cards: vec![hand(p, Seat::Guest)[0]], to: Some(Seat::Host) });
    play.act(Seat::Host, |_| Action::Roll { dice: "1d6".parse().unwrap() });
    play.act(Seat::Guest, |_| Action::Peek { count: 1 });
    play.act(Seat::Guest, |_| Action::Shuffle { permutation: None });
    play.act(Seat::Host, |_| Action::TakeFromLibrary { count: 1 });
    play.intent(Seat::Guest, Intent::Chat("good luck".into()));
    play.intent(Seat::Host, Intent::Ping);
    play.intent(Seat::Guest, Intent::RequestReveal { zone: ZoneId::hand(Seat::Host), count: None });
    play.intent(Seat::Host, Intent::RefuseReveal { zone: ZoneId::hand(Seat::Host) });
    play.act(Seat::Host, |p| Action::Move {
        card: hand(p, Seat::Host)[0],
        to: ZoneId::library(Seat::Host),
        position: Position::Top,
        placement: Placement::default(),
    });
    play.act(Seat::Host, |_| Action::Shuffle { permutation: None });
    play.act(Seat::Guest, |_| Action::Shuffle { permutation: None });
    play.act(Seat::Host, |_| Action::Flip);
    play.act(Seat::Host, |_| Action::ShowRandom);
    play.act(Seat::Guest, |_| Action::SetPlayerValue { key: "life".into(), value: 18 });
    play
}

/// The honest game's messages in delivery order, played once.
fn transcript() -> &'static [InFlight] {
    static TRANSCRIPT: OnceLock<Vec<InFlight>> = OnceLock::new();
    TRANSCRIPT.get_or_init(|| {
        let play = play::<Ristretto255>(None);
        for seat in Seat::BOTH {
            assert!(misbehaviour(&play.pair, seat).is_empty(), "{seat:?}: {:?}", alerts(&play.pair, seat));
            assert!(play.pair.engine(seat).halted().is_none());
        }
        play.transcript
    })
}

/// The pair just before message `index` of the honest game, and that message.
fn before(index: usize) -> (Pair<Ristretto255>, InFlight) {
    let play = play::<Ristretto255>(Some(index));
    let message = play.taken.expect("the game has that many messages");
    assert_eq!(message.bytes, transcript()[index].bytes, "the honest game is not deterministic");
    (play.pair, message)
}

/// The sender's message `seq` carrying `body`, sealed after the sender's earlier messages
/// by a puppet engine built as `Pair::new` builds the sender.
fn reseal<G: Group>(pair: &Pair<G>, from: Seat, seq: u64, body: Vec<u8>) -> Vec<u8> {
    let config = EngineConfig {
        name: match from {
            Seat::Host => "Host".into(),
            Seat::Guest => "Guest".into(),
        },
        software: "fairdeck-test".into(),
    };
    let seed = match from {
        Seat::Host => [SEED; 32],
        Seat::Guest => [SEED.wrapping_add(1); 32],
    };
    let mut puppet = Engine::<G>::new(from, config, deck(from), seed).expect("valid deck");
    let sent: Vec<&Envelope> =
        pair.engine(from).record().iter().filter(|(seat, _)| *seat == from).map(|(_, e)| e).collect();
    assert_eq!(&puppet.record()[0].1, sent[0], "the puppet's hello is not the sender's");
    for envelope in &sent[1..seq as usize] {
        puppet.send_unchecked(envelope.body.clone(), pair.ack_of(from, envelope.seq));
    }
    puppet.send_unchecked(body, pair.ack_of(from, seq));
    std::iter::from_fn(|| puppet.poll_transmit()).last().expect("the puppet sent")
}

/// Every decoder, on any bytes: no panic.
fn decode_all(bytes: &[u8]) {
    let _ = wire::decode_envelope(bytes);
    let _ = wire::decode_body::<Ristretto255>(bytes);
    let _ = wire::decode_body::<Modp2048>(bytes);
    let _ = wire::peek_suite(bytes);
    if let Ok(envelope) = wire::decode_envelope(bytes) {
        let _ = wire::decode_body::<Ristretto255>(&envelope.body);
        let _ = wire::decode_body::<Modp2048>(&envelope.body);
    }
}

// ----- byte mutations -----

#[derive(Clone, Debug)]
enum Mutation {
    Flip {
        at: Index,
        bit: u8,
    },
    Replace {
        at: Index,
        byte: u8,
    },
    Insert {
        at: Index,
        bytes: Vec<u8>,
    },
    Remove {
        at: Index,
        len: u8,
    },
    Truncate {
        at: Index,
    },
    /// A copy of a stretch of the message, elsewhere in it.
    Splice {
        from: Index,
        to: Index,
        len: u8,
    },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let structural = prop::sample::select(b"{}[]\",:0123456789abcdef-\\ ".to_vec());
    prop_oneof![
        (any::<Index>(), 0u8..8).prop_map(|(at, bit)| Mutation::Flip { at, bit }),
        (any::<Index>(), prop_oneof![any::<u8>(), structural.clone()])
            .prop_map(|(at, byte)| Mutation::Replace { at, byte }),
        (any::<Index>(), prop::collection::vec(prop_oneof![any::<u8>(), structural], 1..8))
            .prop_map(|(at, bytes)| Mutation::Insert { at, bytes }),
        (any::<Index>(), 1u8..16).prop_map(|(at, len)| Mutation::Remove { at, len }),
        any::<Index>().prop_map(|at| Mutation::Truncate { at }),
        (any::<Index>(), any::<Index>(), 1u8..64).prop_map(|(from, to, len)| Mutation::Splice { from, to, len }),
    ]
}

fn mutate(bytes: &mut Vec<u8>, mutation: &Mutation) {
    if bytes.is_empty() {
        return;
    }
    let len = bytes.len();
    match mutation {
        Mutation::Flip { at, bit } => bytes[at.index(len)] ^= 1 << bit,
        Mutation::Replace { at, byte } => bytes[at.index(len)] = *byte,
        Mutation::Insert { at, bytes: inserted } => {
            let at = at.index(len + 1);
            bytes.splice(at..at, inserted.iter().copied());
        }
        Mutation::Remove { at, len: n } => {
            let at = at.index(len);
            bytes.drain(at..(at + usize::from(*n)).min(len));
        }
        Mutation::Truncate { at } => bytes.truncate(at.index(len)),
        Mutation::Splice { from, to, len: n } => {
            let from = from.index(len);
            let chunk = bytes[from..(from + usize::from(*n)).min(len)].to_vec();
            let to = to.index(len + 1);
            bytes.splice(to..to, chunk);
        }
    }
}

// ----- JSON mutations of a body -----

#[derive(Clone, Debug)]
struct JsonMutation {
    /// Which node of the body (all nodes, depth first).
    node: Index,
    op: u8,
    pick: Index,
    number: u64,
    bytes: Vec<u8>,
}

fn json_mutation() -> impl Strategy<Value = JsonMutation> {
    (any::<Index>(), any::<u8>(), any::<Index>(), any::<u64>(), prop::collection::vec(any::<u8>(), 0..40))
        .prop_map(|(node, op, pick, number, bytes)| JsonMutation { node, op, pick, number, bytes })
}

const KINDS: [&str; 17] = [
    "hello",
    "deck",
    "act",
    "accept",
    "reject",
    "strip",
    "shuffle-step",
    "shuffle-challenge",
    "shuffle-response",
    "random-commit",
    "random-open",
    "random-settle",
    "reveal-request",
    "reveal-refuse",
    "chat",
    "ping",
    "pong",
];

/// The JSON pointer of every node of `value`, depth first.
fn nodes(value: &Value, path: String, out: &mut Vec<String>) {
    match value {
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                nodes(item, format!("{path}/{i}"), out);
            }
        }
        Value::Object(fields) => {
            for (key, field) in fields {
                nodes(field, format!("{path}/{}", key.replace('~', "~0").replace('/', "~1")), out);
            }
        }
        _ => {}
    }
    out.push(path);
}

/// Changes one node of `value`: a number to an edge value, a string to other hex or text,
/// an array or object reshaped, or the node replaced by a value of another type.
fn mutate_json(value: &mut Value, m: &JsonMutation) {
    let mut all = Vec::new();
    nodes(value, String::new(), &mut all);
    let node = value.pointer_mut(&all[m.node.index(all.len())]).expect("a node of the value");
    let numbers = [0, 1, 2, 6, 39, 40, 255, 256, u64::from(u32::MAX), u64::from(u32::MAX) + 1, u64::MAX, m.number];
    let hex_sized = |len: usize| json!(hex::encode(m.bytes.iter().copied().cycle().take(len).collect::<Vec<u8>>()));
    match (m.op % 4, &mut *node) {
        (0, Value::Number(_)) => *node = json!(numbers[m.pick.index(numbers.len())]),
        (0, Value::String(text)) => {
            *node = match m.pick.index(6) {
                0 => json!(""),
                1 => hex_sized(text.len() / 2),
                2 => hex_sized(32),
                3 => json!(KINDS[m.pick.index(KINDS.len())]),
                4 => json!("x".repeat(3000)),
                _ => json!(format!("{text}0")),
            }
        }
        (0, Value::Array(items)) if !items.is_empty() => {
            let (i, last) = (m.pick.index(items.len()), items.len() - 1);
            match m.number % 4 {
                0 => {
                    items.remove(i);
                }
                1 => items.insert(i, items[i].clone()),
                2 => items.swap(i, last),
                _ => items.clear(),
            }
        }
        (0, Value::Object(fields)) if !fields.is_empty() => {
            let key = fields.keys().nth(m.pick.index(fields.len())).cloned().unwrap();
            fields.remove(&key);
        }
        (1, _) => {
            let others = [json!(null), json!(true), json!(-1), json!(1.5), json!([]), json!({}), json!("")];
            *node = others[m.pick.index(others.len())].clone();
        }
        (2, Value::Object(fields)) if fields.contains_key("type") => {
            fields.insert("type".into(), json!(KINDS[m.pick.index(KINDS.len())]));
        }
        (_, Value::Number(number)) => {
            let n = number.as_u64().unwrap_or(0);
            *node = json!(if m.number.is_multiple_of(2) { n.wrapping_add(1) } else { n.wrapping_sub(1) });
        }
        (_, other) => *other = json!(numbers[m.pick.index(numbers.len())]),
    }
}

/// The start of a body of a known kind, then any printable text.
const MESSAGE_LIKE: &str =
    "\\{\"type\":\"(deck|strip|act|shuffle-step|shuffle-response|hello|random-open)\"[ -~]{0,200}";

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig { cases, failure_persistence: None, ..ProptestConfig::default() }
}

proptest! {
    #![proptest_config(config(256))]

    /// Random bytes, and random text made of JSON's own characters.
    #[test]
    fn decoders_are_total_on_random_bytes(
        bytes in prop::collection::vec(any::<u8>(), 0..600),
        text in "[\\[\\]{}\",:0-9a-f. tnrueflsx-]{0,300}",
    ) {
        decode_all(&bytes);
        decode_all(text.as_bytes());
    }

    /// An envelope that parses, carrying random bytes as its body.
    #[test]
    fn body_decoders_are_total_inside_valid_envelopes(
        seq in any::<u64>(),
        body in prop_oneof![
            prop::collection::vec(any::<u8>(), 0..300),
            MESSAGE_LIKE.prop_map(String::into_bytes),
        ],
    ) {
        let envelope = Envelope { seq, ack: 0, chain: [7; 32], body, signature: vec![1; 64] };
        decode_all(&wire::encode_envelope(&envelope));
    }
}

proptest! {
    #![proptest_config(config(64))]

    /// A new engine (waiting for the opponent's hello) given random bytes raises an alert
    /// and stops; it never panics.
    #[test]
    fn a_new_engine_alerts_on_random_bytes(
        bytes in prop_oneof![
            prop::collection::vec(any::<u8>(), 0..400),
            "[\\[\\]{}\",:0-9a-f. tnrueflsx-]{0,300}".prop_map(String::into_bytes),
        ],
        to_host in any::<bool>(),
    ) {
        let mut pair = new_pair::<Ristretto255>();
        let from = if to_host { Seat::Guest } else { Seat::Host };
        pair.deliver(InFlight { from, bytes });
        let victim = from.opponent();
        prop_assert_eq!(alerts(&pair, victim).len(), 1);
        prop_assert!(pair.engine(victim).halted().is_some());
    }

    /// Each message of the honest game, its bytes mutated, delivered in its place: the
    /// decoders never panic, nor does the receiving engine. A change that leaves the
    /// envelope as it was is taken as the genuine message; any other is an alert that
    /// stops the game, with no evidence: what fails its checks proves nothing about its sender.
    #[test]
    fn mutated_messages_are_refused_never_panicked_on(
        index in any::<Index>(),
        mutations in prop::collection::vec(mutation(), 1..4),
    ) {
        let index = index.index(transcript().len());
        let (mut pair, genuine) = before(index);
        let mut bytes = genuine.bytes.clone();
        for m in &mutations {
            mutate(&mut bytes, m);
        }
        decode_all(&bytes);
        let victim = genuine.from.opponent();
        let before = alerts(&pair, victim).len();
        let parsed = wire::decode_envelope(&bytes).ok();
        pair.deliver(InFlight { from: genuine.from, bytes });
        let raised = alerts(&pair, victim)[before..].to_vec();
        if parsed.as_ref() == Some(&wire::decode_envelope(&genuine.bytes).unwrap()) {
            prop_assert!(misbehaviour(&pair, victim).is_empty(), "{:?}", raised);
        } else {
            prop_assert_eq!(raised.len(), 1, "{:?}", raised);
            prop_assert!(raised[0].kind.is_misbehaviour());
            prop_assert_eq!(&raised[0].evidence, &None);
            prop_assert!(pair.engine(victim).halted().is_some());
        }
    }

    /// Each message of the honest game, its body changed as JSON and sealed again with the
    /// sender's key, delivered in its place: the receiving engine never panics, and a body
    /// that still says the same thing raises nothing.
    #[test]
    fn resealed_mutated_bodies_never_panic_the_engine(
        index in any::<Index>(),
        mutations in prop::collection::vec(json_mutation(), 1..3),
    ) {
        let index = index.index(transcript().len());
        let (mut pair, genuine) = before(index);
        let envelope = wire::decode_envelope(&genuine.bytes).unwrap();
        prop_assume!(envelope.seq > 0, "a hello is sealed by Engine::new, not resealed");
        let mut value: Value = serde_json::from_slice(&envelope.body).unwrap();
        for m in &mutations {
            mutate_json(&mut value, m);
        }
        let body = serde_json::to_vec(&value).unwrap();
        decode_all(&body);
        let bytes = reseal(&pair, genuine.from, envelope.seq, body.clone());
        let victim = genuine.from.opponent();
        pair.deliver(InFlight { from: genuine.from, bytes });
        let same = wire::decode_body::<Ristretto255>(&body).ok() == wire::decode_body(&envelope.body).ok();
        if same {
            prop_assert!(misbehaviour(&pair, victim).is_empty(), "{:?}", alerts(&pair, victim));
        }
        // Whatever the victim answered, the sender's engine takes it without panicking.
        pair.drive_bounded(200);
    }
}

/// The first messages of a modp2048 game (hellos, decks, a shuffle step), played once.
fn modp_messages() -> &'static [InFlight] {
    static MESSAGES: OnceLock<Vec<InFlight>> = OnceLock::new();
    MESSAGES.get_or_init(|| {
        let mut pair = Pair::<Modp2048>::new(numbered_deck("Host", 2, 1), numbered_deck("Guest", 2, 1), SEED);
        let mut messages = Vec::new();
        while let Some(message) = pair.queue.pop_front() {
            let body = wire::decode_envelope(&message.bytes).unwrap().body;
            let kind = wire::decode_body::<Modp2048>(&body).unwrap().kind();
            messages.push(message.clone());
            if kind == "shuffle-step" {
                break;
            }
            pair.deliver(message);
        }
        messages
    })
}

proptest! {
    #![proptest_config(config(64))]

    /// modp2048 messages, mutated: the decoders (which check every element's range and
    /// subgroup) never panic, nor does a new engine given a mutated hello or deck.
    #[test]
    fn mutated_modp2048_messages_are_refused_never_panicked_on(
        index in any::<Index>(),
        mutations in prop::collection::vec(mutation(), 1..4),
        element in prop::collection::vec(any::<u8>(), 256),
    ) {
        let messages = modp_messages();
        let genuine = &messages[index.index(messages.len())];
        let mut bytes = genuine.bytes.clone();
        for m in &mutations {
            mutate(&mut bytes, m);
        }
        decode_all(&bytes);
        // A deck whose first card is any 256 bytes.
        let deck = json!({"type": "deck", "key": hex::encode(&element), "library": [[hex::encode(&element), 0]],
            "sideboard": [], "catalogue": []});
        let _ = wire::decode_body::<Modp2048>(&serde_json::to_vec(&deck).unwrap());
        // The hellos and decks are cheap to replay into a fresh engine.
        let position = messages.iter().position(|m| m.bytes == genuine.bytes).unwrap();
        if position < 4 {
            let mut pair = Pair::<Modp2048>::new(numbered_deck("Host", 2, 1), numbered_deck("Guest", 2, 1), SEED);
            for expected in &messages[..position] {
                let message = pair.queue.pop_front().unwrap();
                prop_assert_eq!(&message.bytes, &expected.bytes);
                pair.deliver(message);
            }
            let victim = genuine.from.opponent();
            let before = alerts(&pair, victim).len();
            let changed = wire::decode_envelope(&bytes).ok() != wire::decode_envelope(&genuine.bytes).ok();
            pair.deliver(InFlight { from: genuine.from, bytes });
            if changed {
                prop_assert_eq!(alerts(&pair, victim).len(), before + 1);
                prop_assert!(pair.engine(victim).halted().is_some());
            }
        }
    }
}

#[test]
fn the_honest_game_has_a_message_of_every_kind_and_replays_exactly() {
    let kinds: std::collections::BTreeSet<&str> = transcript()
        .iter()
        .map(|m| wire::decode_body::<Ristretto255>(&wire::decode_envelope(&m.bytes).unwrap().body).unwrap().kind())
        .collect();
    for kind in [
        "hello",
        "deck",
        "act",
        "accept",
        "strip",
        "shuffle-step",
        "shuffle-challenge",
        "shuffle-response",
        "random-commit",
        "random-open",
        "reveal-request",
        "reveal-refuse",
        "chat",
        "ping",
        "pong",
    ] {
        assert!(kinds.contains(kind), "no {kind} message in {kinds:?}");
    }
    // A replay stops at any message with the same bytes as the original game.
    let last = transcript().len() - 1;
    let (_, message) = before(last);
    assert_eq!(message.bytes, transcript()[last].bytes);
}
