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
use fairdeck_shared::wire::{self, Action, ArrowTarget, Envelope, MessageKind, PeekPurpose};
use proptest::prelude::*;
use proptest::sample::Index;

const SEED: u8 = 5;
const LIBRARY: usize = 4;

fn deck(seat: Seat) -> fairdeck_shared::engine::DeckList {
    match seat {
        Seat::HOST => numbered_deck("Host", LIBRARY, 1),
        Seat::GUEST => numbered_deck("Guest", LIBRARY, 1),
    }
}

fn new_pair<G: Group>() -> Pair<G> {
    Pair::new(deck(Seat::HOST), deck(Seat::GUEST), SEED)
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
    play.act(Seat::HOST, |_| Action::Draw { count: 2 });
    play.act(Seat::GUEST, |_| Action::Draw { count: 1 });
    play.act(Seat::HOST, |p| Action::Move {
        card: hand(p, Seat::HOST)[0],
        to: ZoneId::new(Seat::HOST, ZoneKind::Play),
        position: Position::Top,
        placement: Placement { x: 1, y: 2, face_down: false },
    });
    play.act(Seat::GUEST, |p| Action::Reveal { cards: vec![hand(p, Seat::GUEST)[0]], to: Some(Seat::HOST) });
    play.act(Seat::HOST, |_| Action::Roll { dice: "1d6".parse().unwrap() });
    play.act(Seat::GUEST, |_| Action::Peek { count: 1, purpose: Default::default() });
    play.act(Seat::GUEST, |_| Action::Shuffle { permutation: None });
    play.act(Seat::HOST, |_| Action::TakeFromLibrary { count: 1 });
    play.intent(Seat::GUEST, Intent::Chat("good luck".into()));
    play.intent(Seat::HOST, Intent::Ping);
    play.intent(Seat::GUEST, Intent::RequestReveal { zone: ZoneId::hand(Seat::HOST), count: None });
    play.intent(Seat::HOST, Intent::RefuseReveal { zone: ZoneId::hand(Seat::HOST) });
    play.act(Seat::HOST, |p| Action::Move {
        card: hand(p, Seat::HOST)[0],
        to: ZoneId::library(Seat::HOST),
        position: Position::Top,
        placement: Placement::default(),
    });
    play.act(Seat::HOST, |_| Action::Shuffle { permutation: None });
    play.act(Seat::GUEST, |_| Action::Shuffle { permutation: None });
    play.act(Seat::HOST, |_| Action::Flip);
    play.act(Seat::HOST, |_| Action::ShowRandom);
    play.act(Seat::GUEST, |_| Action::SetPlayerValue { key: "life".into(), value: 18 });
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
            Seat::HOST => "Host".into(),
            Seat::GUEST => "Guest".into(),
        },
        software: "fairdeck-test".into(),
    };
    let seed = match from {
        Seat::HOST => [SEED; 32],
        Seat::GUEST => [SEED.wrapping_add(1); 32],
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
    // Bytes that mean most to the binary encoding: small lengths and kinds, a 32-byte length, varint
    // continuations.
    let structural = prop::sample::select(vec![0u8, 1, 2, 3, 20, 21, 32, 0x7f, 0x80, 0x81, 0xff]);
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

/// A body of a known kind (its index, the binary encoding's first byte), then any bytes.
fn message_like() -> impl Strategy<Value = Vec<u8>> {
    (0u8..21, prop::collection::vec(any::<u8>(), 0..200)).prop_map(|(kind, rest)| [vec![kind], rest].concat())
}

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig { cases, failure_persistence: None, ..ProptestConfig::default() }
}

proptest! {
    #![proptest_config(config(256))]

    /// Random bytes, and random bytes after a known kind.
    #[test]
    fn decoders_are_total_on_random_bytes(
        bytes in prop::collection::vec(any::<u8>(), 0..600),
        message in message_like(),
    ) {
        decode_all(&bytes);
        decode_all(&message);
    }

    /// An envelope that parses, carrying random bytes as its body.
    #[test]
    fn body_decoders_are_total_inside_valid_envelopes(
        seq in any::<u64>(),
        body in prop_oneof![
            prop::collection::vec(any::<u8>(), 0..300),
            message_like(),
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
            message_like(),
        ],
        to_host in any::<bool>(),
    ) {
        let mut pair = new_pair::<Ristretto255>();
        let from = if to_host { Seat::GUEST } else { Seat::HOST };
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

    /// Each message of the honest game, its body's bytes changed and sealed again with the
    /// sender's key, delivered in its place: the receiving engine never panics, and a body
    /// that still says the same thing raises nothing.
    #[test]
    fn resealed_mutated_bodies_never_panic_the_engine(
        index in any::<Index>(),
        mutations in prop::collection::vec(mutation(), 1..3),
    ) {
        let index = index.index(transcript().len());
        let (mut pair, genuine) = before(index);
        let envelope = wire::decode_envelope(&genuine.bytes).unwrap();
        prop_assume!(envelope.seq > 0, "a hello is sealed by Engine::new, not resealed");
        let mut body = envelope.body.clone();
        for m in &mutations {
            mutate(&mut body, m);
        }
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
            if kind == MessageKind::ShuffleStep {
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
        // A deck whose key and first card are any 256 bytes: its kind, then the fields in order (an element is
        // framed as its length and bytes; the base key and proof are cut short).
        let deck = (MessageKind::Deck, element.clone(), element.clone(), vec![(element, 0u32)]);
        let _ = wire::decode_body::<Modp2048>(&postcard::to_stdvec(&deck).unwrap());
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
    let mut kinds = std::collections::BTreeSet::new();
    for message in transcript() {
        let body = wire::decode_envelope(&message.bytes).unwrap().body;
        let kind = wire::decode_body::<Ristretto255>(&body).unwrap().kind();
        // The kind read from the first bytes alone is the decoded message's: `MessageKind` keeps `Message`'s order.
        assert_eq!(wire::peek_kind(&body).unwrap(), kind);
        kinds.insert(kind.name());
    }
    for kind in [
        "hello",
        "deck",
        "act",
        "accept",
        "strip",
        "shuffle-step",
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

/// The stable names front ends and scripts show (`Action::name`, `Seat::name`, `Coin::name`,
/// `MessageKind::name`) are the names the JSON view gives the same values.
#[test]
fn stable_names_are_the_json_names() {
    use fairdeck_shared::crypto::{CardInstance, Coin};
    use fairdeck_shared::table::CardId;

    fn json_name(value: impl serde::Serialize) -> String {
        match serde_json::to_value(value).unwrap() {
            serde_json::Value::String(name) => name,
            serde_json::Value::Object(map) if map.len() == 1 => map.keys().next().unwrap().clone(),
            other => panic!("not the JSON of an enum: {other}"),
        }
    }
    let card = CardId(1);
    let zone = ZoneId::hand(Seat::HOST);
    let token = CardInstance { owner: Seat::HOST, nonce: [7; 16], name: "Goblin token".into(), back: 0 };
    let actions = [
        Action::Draw { count: 1 },
        Action::Move { card, to: zone, position: Position::Top, placement: Placement::default() },
        Action::Rearrange { card, index: 0 },
        Action::Shuffle { permutation: None },
        Action::Peek { count: 1, purpose: PeekPurpose::Scry },
        Action::Reveal { cards: vec![card], to: None },
        Action::TakeFromLibrary { count: 1 },
        Action::ShowRandom,
        Action::Tap { card, tapped: true },
        Action::SetCardValue { card, key: "+1/+1".into(), value: Some(1) },
        Action::SetPlayerValue { key: "life".into(), value: 20 },
        Action::SetPhase { phase: "main".into() },
        Action::NextTurn,
        Action::Roll { dice: "1d6".parse().unwrap() },
        Action::Flip,
        Action::Mulligan { draw: 7 },
        Action::AddCard { card: token, to: zone, placement: Placement::default(), power_toughness: None },
        Action::UntapAll,
        Action::Attach { card, to: None },
        Action::Arrow { from: card, to: ArrowTarget::Player(Seat::GUEST) },
        Action::Concede,
        Action::PlayOrDraw { play: true },
    ];
    let names: std::collections::BTreeSet<&str> = actions.iter().map(Action::name).collect();
    assert_eq!(names.len(), actions.len(), "two actions share a name: {names:?}");
    for action in &actions {
        assert_eq!(action.name(), json_name(action));
    }
    for seat in Seat::BOTH {
        assert_eq!(seat.name(), json_name(seat));
        assert_eq!(seat.to_string(), seat.name());
    }
    for coin in [Coin::Heads, Coin::Tails] {
        assert_eq!(coin.name(), json_name(coin));
        assert_eq!(coin.to_string(), coin.name());
    }
    for kind in [MessageKind::Hello, MessageKind::ShuffleStep, MessageKind::RandomCommit, MessageKind::Pong] {
        assert_eq!(kind.name(), json_name(kind));
    }
}
