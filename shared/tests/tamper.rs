//! A tampering peer attempts each cheat, and its opponent's engine catches it at once: one
//! alert of the expected kind, the offending signed message as its evidence, and a halted
//! game. Every scenario is also played honestly with the same seeds, and that control
//! raises no alert: a false alert is as bad as a missed one.
//!
//! How the cheater signs. Two honest engines play through a `Pair`; the test takes the
//! cheater's message off the queue before it is delivered and puts a forgery in its place.
//! The forgery is sealed by a puppet: a second engine built exactly as `Pair::new` builds the
//! cheater (same seat, configuration, deck and seed, hence the same signing key and hello),
//! which re-sends through `Engine::send_unchecked` every body the cheater sent before, then
//! the forged body. The forgery is therefore numbered, chained and signed exactly as the
//! cheater's own message would be, and the victim can only refuse it for what it says.

use std::collections::BTreeMap;

use ed25519_dalek::{Signer, SigningKey, VerifyingKey};
use fairdeck_shared::Seat;
use fairdeck_shared::crypto::{
    BackId, CardInstance, CatalogueEntry, Commitment, Dice, Group, LockKey, Modp2048, Opening, ProofContext,
    Ristretto255,
};
use fairdeck_shared::engine::{
    Alert, AlertKind, ChosenBy, DeckCard, DeckList, Engine, EngineConfig, Event, Input, Intent, IntentError,
};
use fairdeck_shared::observer::Observer;
use fairdeck_shared::pair::{InFlight, Pair, numbered_deck};
use fairdeck_shared::table::{CardId, Placement, Position, ZoneId, ZoneKind};
use fairdeck_shared::wire::{self, Action, Awaited, Envelope, Message, MessageKind};
use num_bigint::BigUint;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use serde_json::{Value, json};

type DeckCards = Vec<(<Ristretto255 as Group>::Element, BackId)>;
type JsonTamper<'a> = &'a dyn Fn(&mut Value);
type EnvelopeTamper<'a> = Box<dyn Fn(&Game<Ristretto255>, &Envelope) -> Envelope + 'a>;
type MakeAction = Box<dyn Fn(&Game<Ristretto255>) -> Action>;

/// The seed of every game here: the host's engine gets `[SEED; 32]`, the guest's `[SEED + 1; 32]`.
const SEED: u8 = 11;

fn slot(seat: Seat) -> usize {
    match seat {
        Seat::HOST => 0,
        Seat::GUEST => 1,
    }
}

/// Two engines in memory, and what it takes to build a puppet of either.
struct Game<G: Group> {
    pair: Pair<G>,
    decks: [DeckList; 2],
    /// The bodies a persistent cheater replaced, by message number, and every envelope it
    /// sent instead of its engine's: once one message is forged, each later one must be
    /// sealed again on the forged chain, or the victim sees a broken chain.
    forged_bodies: BTreeMap<u64, Vec<u8>>,
    forged: BTreeMap<u64, Envelope>,
    /// Why a spectator cannot see this cheat (it shows only against what the victim alone knows); none: it must.
    victim_alone: Option<&'static str>,
}

impl<G: Group> Game<G> {
    /// Two engines with `library` cards each and one sideboard card; the hellos are queued.
    fn new(library: usize) -> Self {
        Self::with_decks([numbered_deck("Host", library, 1), numbered_deck("Guest", library, 1)])
    }

    fn with_decks(decks: [DeckList; 2]) -> Self {
        let pair = Pair::new(decks[0].clone(), decks[1].clone(), SEED);
        Game { pair, decks, forged_bodies: BTreeMap::new(), forged: BTreeMap::new(), victim_alone: None }
    }

    /// Set-up done: both libraries locked, shuffled and verified, and no alert.
    fn ready(library: usize) -> Self {
        let mut game = Self::new(library);
        game.pair.drive();
        for seat in Seat::BOTH {
            assert!(game.engine(seat).is_ready(), "{seat:?} is not ready: {:?}", game.alerts(seat));
            assert!(game.alerts(seat).is_empty(), "{seat:?}: {:?}", game.alerts(seat));
        }
        game
    }

    fn engine(&self, seat: Seat) -> &Engine<G> {
        self.pair.engine(seat)
    }

    /// An honest action, delivered with everything it sets off.
    fn play(&mut self, seat: Seat, action: Action) {
        self.act(seat, action);
        self.pair.drive();
    }

    /// An honest action, its messages left in the queue.
    fn act(&mut self, seat: Seat, action: Action) {
        self.pair.intent(seat, Intent::Act(action)).expect("an honest action");
    }

    fn alerts(&self, seat: Seat) -> Vec<Alert> {
        self.pair
            .events(seat)
            .iter()
            .filter_map(|event| match event {
                Event::Alert(alert) => Some(alert.clone()),
                _ => None,
            })
            .collect()
    }

    /// The envelopes `seat` sent, in order (so `sent(seat)[n].seq == n`).
    fn sent(&self, seat: Seat) -> Vec<Envelope> {
        self.engine(seat).record().iter().filter(|(from, _)| *from == seat).map(|(_, e)| e.clone()).collect()
    }

    /// The envelopes `seat` received and took in, in order.
    fn received(&self, seat: Seat) -> Vec<Envelope> {
        let peer = seat.opponent();
        self.engine(seat).record().iter().filter(|(from, _)| *from == peer).map(|(_, e)| e.clone()).collect()
    }

    fn hand(&self, seat: Seat) -> Vec<CardId> {
        self.engine(seat).table().zone(ZoneId::hand(seat)).to_vec()
    }

    fn library(&self, seat: Seat) -> Vec<CardId> {
        self.engine(seat).table().zone(ZoneId::library(seat)).to_vec()
    }

    /// Delivers messages in order until the next one is a message of `from` that `pick`
    /// chooses, and takes that one off the queue, undelivered.
    fn intercept(&mut self, from: Seat, pick: impl Fn(&Message<G>) -> bool) -> Envelope {
        loop {
            let front = self.pair.queue.front().unwrap_or_else(|| panic!("{from:?} never sent the awaited message"));
            if front.from == from {
                let envelope = wire::decode_envelope(&front.bytes).expect("engines send valid envelopes");
                if pick(&body::<G>(&envelope)) {
                    self.pair.queue.pop_front();
                    return envelope;
                }
            }
            self.pair.step();
        }
    }

    /// The cheater's message number `seq`, carrying `body`: chained after what the cheater
    /// really sent before it, and signed with the cheater's key.
    fn forge(&self, cheater: Seat, seq: u64, body: Vec<u8>) -> Vec<u8> {
        self.forge_with_history(cheater, seq, body, |_, earlier| earlier)
    }

    /// As `forge`, with the cheater's earlier bodies passed through `history` first (a
    /// rewritten past gives a message the victim's chain does not continue).
    fn forge_with_history(
        &self,
        cheater: Seat,
        seq: u64,
        body: Vec<u8>,
        history: impl Fn(u64, Vec<u8>) -> Vec<u8>,
    ) -> Vec<u8> {
        let config = EngineConfig {
            name: match cheater {
                Seat::HOST => "Host".into(),
                Seat::GUEST => "Guest".into(),
            },
            software: "fairdeck-test".into(),
        };
        let seed = match cheater {
            Seat::HOST => [SEED; 32],
            Seat::GUEST => [SEED.wrapping_add(1); 32],
        };
        let mut puppet =
            Engine::<G>::new(cheater, config, self.decks[slot(cheater)].clone(), seed).expect("valid deck");
        let sent = self.sent(cheater);
        assert_eq!(puppet.record()[0].1, sent[0], "the puppet's hello is not the cheater's: Pair::new changed");
        assert!(seq >= 1 && seq as usize <= sent.len(), "message {seq} cannot be forged after {} sent", sent.len());
        for envelope in &sent[1..seq as usize] {
            puppet
                .send_unchecked(history(envelope.seq, envelope.body.clone()), self.pair.ack_of(cheater, envelope.seq));
        }
        puppet.send_unchecked(body, self.pair.ack_of(cheater, seq));
        let bytes = std::iter::from_fn(|| puppet.poll_transmit()).last().expect("the puppet sent");
        assert_eq!(wire::decode_envelope(&bytes).unwrap().seq, seq);
        bytes
    }

    /// A persistent cheater: its message `seq` carries `body`, and `drive_as_cheater`
    /// reseals its later messages on that chain.
    fn substitute(&mut self, cheater: Seat, seq: u64, body: Vec<u8>) -> Vec<u8> {
        self.forged_bodies.insert(seq, body);
        self.reseal(cheater, seq)
    }

    /// The cheater's message `seq` (the engine's, or its substitute), sealed on the
    /// chain of the substituted bodies.
    fn reseal(&mut self, cheater: Seat, seq: u64) -> Vec<u8> {
        let body = match self.forged_bodies.get(&seq) {
            Some(body) => body.clone(),
            None => self.sent(cheater)[seq as usize].body.clone(),
        };
        let forged = self.forge_with_history(cheater, seq, body, |n, genuine| {
            self.forged_bodies.get(&n).cloned().unwrap_or(genuine)
        });
        let envelope = wire::decode_envelope(&forged).unwrap();
        self.pair.engine_mut(cheater).replace_sent_head(seq, envelope.chain);
        self.forged.insert(seq, envelope);
        forged
    }

    /// Delivers every queued message, the cheater's resealed after a substitution.
    fn drive_as_cheater(&mut self, cheater: Seat) {
        while let Some(message) = self.pair.queue.pop_front() {
            let seq = wire::decode_envelope(&message.bytes).unwrap().seq;
            let bytes = match self.forged_bodies.keys().next() {
                Some(&first) if message.from == cheater && seq > first => self.reseal(cheater, seq),
                _ => message.bytes,
            };
            self.deliver(message.from, bytes);
        }
    }

    /// The cheater's next message: everything it sent so far must have been delivered.
    fn forge_next(&self, cheater: Seat, message: &Message<G>) -> Vec<u8> {
        assert!(self.pair.queue.iter().all(|m| m.from != cheater), "deliver the cheater's messages first");
        self.forge(cheater, self.sent(cheater).len() as u64, wire::encode_body(message))
    }

    /// Hands `bytes` to `from`'s opponent as a message from `from`.
    fn deliver(&mut self, from: Seat, bytes: Vec<u8>) {
        self.pair.deliver(InFlight { from, bytes });
    }

    /// Honest play: everything delivered, no misbehaviour alert, nobody halted or still
    /// busy, and both tables agree.
    fn assert_honest(&mut self) {
        self.pair.drive();
        for seat in Seat::BOTH {
            let bad: Vec<Alert> = self.alerts(seat).into_iter().filter(|a| a.kind.is_misbehaviour()).collect();
            assert!(bad.is_empty(), "honest play, yet {seat:?} raised {bad:#?}");
            assert_eq!(self.engine(seat).halted(), None);
            assert!(!self.engine(seat).is_busy(), "{seat:?} is still busy");
            let (alerts, spectator) = self.spectate(seat);
            assert!(alerts.is_empty(), "honest play, yet the spectator of the {seat:?} raised {alerts:#?}");
            assert_eq!(spectator.table(), self.engine(seat).table(), "the spectator's table differs");
        }
        assert_eq!(self.pair.host.table(), self.pair.guest.table(), "the two tables differ");
    }

    /// A spectator of `seat`'s, fed every envelope its engine took in or sent, in order: its alerts.
    fn spectate(&self, seat: Seat) -> (Vec<Alert>, Observer<G>) {
        let mut spectator = Observer::<G>::new([5; 32]);
        for (from, envelope) in self.engine(seat).record() {
            spectator.observe(*from, &wire::encode_envelope(envelope));
        }
        let mut alerts = Vec::new();
        while let Some(event) = spectator.poll_event() {
            if let Event::Alert(alert) = event {
                alerts.push(alert);
            }
        }
        (alerts, spectator)
    }

    /// The victim caught the cheat: its one and only alert is of `kind`, with `evidence` as
    /// its evidence (none for a message out of sequence: what fails its number, chain or
    /// signature proves nothing about its sender), and it halted; nothing delivered afterwards
    /// moves it.
    fn assert_caught(&mut self, victim: Seat, kind: AlertKind, evidence: Option<&Envelope>) -> Alert {
        let alerts = self.alerts(victim);
        assert_eq!(alerts.len(), 1, "{victim:?} should raise exactly one alert: {alerts:#?}");
        let alert = alerts[0].clone();
        assert_eq!(alert.kind, kind, "{alert:#?}");
        let evidence = evidence.filter(|_| kind != AlertKind::Sequence);
        assert_eq!(alert.evidence.as_ref(), evidence, "the evidence is not the offending message: {}", alert.detail);
        if evidence.is_some() && self.victim_alone.is_none() {
            // The cheat is in a message the victim took in: a spectator shown the victim's record sees it too.
            // (A kind nothing awaits the victim refuses unread, as unexpected; the spectator, awaiting nothing,
            // reads it and finds it malformed.)
            let (seen, _) = self.spectate(victim);
            let kinds = |a: &Alert| a.kind == kind || (kind, a.kind) == (AlertKind::Unexpected, AlertKind::Malformed);
            assert!(
                seen.len() == 1 && kinds(&seen[0]) && seen[0].evidence.as_ref() == evidence,
                "the spectator of the victim should raise one {kind} alert on {evidence:?}: {seen:#?}"
            );
        }
        let reason = self.engine(victim).halted().expect("misbehaviour halts the victim").to_owned();
        let table = self.engine(victim).table().clone();
        self.pair.drive();
        assert_eq!(self.alerts(victim).len(), 1, "a halted engine raised more: {:#?}", self.alerts(victim));
        assert_eq!(self.engine(victim).table(), &table, "a halted engine's table changed");
        assert_eq!(
            self.pair.engine_mut(victim).handle(Input::Intent { intent: Intent::Ping }),
            Err(IntentError::Halted(reason)),
            "a halted engine still takes intents"
        );
        alert
    }

    /// As `assert_caught`, for a forgery of the cheater's that was just delivered: it is
    /// the evidence, and anyone holding the cheater's hello can check that they signed it.
    fn assert_caught_forgery(&mut self, cheater: Seat, forged: &[u8], kind: AlertKind) -> Alert {
        let evidence = wire::decode_envelope(forged).unwrap();
        self.assert_attributable(cheater, &evidence);
        self.assert_caught(cheater.opponent(), kind, Some(&evidence))
    }

    /// `evidence` continues the cheater's hash chain and carries the signature of the key
    /// the cheater announced in its hello.
    fn assert_attributable(&self, cheater: Seat, evidence: &Envelope) {
        self.check_signed(cheater, evidence).expect("the evidence is signed by the cheater");
    }

    fn check_signed(&self, cheater: Seat, envelope: &Envelope) -> Result<(), wire::WireError> {
        let sent = self.sent(cheater);
        let Message::Hello { signing_key, .. } = body::<G>(&sent[0]) else { panic!("the first message is hello") };
        let key = VerifyingKey::from_bytes(&signing_key).expect("a valid key");
        let previous = match envelope.seq {
            0 => [0; 32],
            seq => self.forged.get(&(seq - 1)).map_or(sent[seq as usize - 1].chain, |e| e.chain),
        };
        let victim = self.sent(cheater.opponent());
        let ack_head = match envelope.ack.checked_sub(1) {
            None => [0; 32],
            Some(last) => victim.get(last as usize).ok_or(wire::WireError::Chain)?.chain,
        };
        wire::check_envelope(&key, &previous, envelope.seq, &ack_head, envelope)
    }
}

fn body<G: Group>(envelope: &Envelope) -> Message<G> {
    wire::decode_body(&envelope.body).expect("a genuine body")
}

fn bytes(envelope: &Envelope) -> Vec<u8> {
    wire::encode_envelope(envelope)
}

/// A genuine body, changed as a message.
fn retype<G: Group>(envelope: &Envelope, change: impl FnOnce(&mut Message<G>)) -> Vec<u8> {
    let mut message = body::<G>(envelope);
    change(&mut message);
    wire::encode_body(&message)
}

/// A genuine body, changed in its JSON view (the message as `fairdeck journal show` prints it), for what a typed
/// edit cannot reach (private fields); `change` sees the content of the message's variant. The result must still
/// be a valid message: bytes no message can hold are `replace_bytes`'s.
fn rejson(envelope: &Envelope, change: impl FnOnce(&mut Value)) -> Vec<u8> {
    let mut view = serde_json::to_value(body::<Ristretto255>(envelope)).expect("a message has a JSON view");
    change(variant_content(&mut view));
    let message: Message<Ristretto255> = serde_json::from_value(view).expect("the change keeps a valid message");
    wire::encode_body(&message)
}

/// The content of an enum variant in a JSON view (`{"variant": content}`).
fn variant_content(view: &mut Value) -> &mut Value {
    view.as_object_mut().and_then(|fields| fields.values_mut().next()).expect("a variant with content")
}

/// A genuine body with the byte string at `pointer` of its JSON view (an element, scalar or key: hex there)
/// replaced, in the binary body, by the encoding `raw`: what no typed message can hold.
fn replace_bytes<G: Group>(envelope: &Envelope, pointer: &str, raw: &[u8]) -> Vec<u8> {
    let view = serde_json::to_value(body::<G>(envelope)).expect("a message has a JSON view");
    let genuine = hex::decode(view.pointer(pointer).and_then(Value::as_str).expect(pointer)).expect("hex");
    splice(&envelope.body, &framed(&genuine), raw)
}

/// A byte string as the binary encoding frames it: its length, then its bytes.
fn framed(bytes: &[u8]) -> Vec<u8> {
    postcard::to_stdvec(&bytes.to_vec()).expect("bytes serialize")
}

/// `body` with the first occurrence of `genuine` replaced by `forged`.
fn splice(body: &[u8], genuine: &[u8], forged: &[u8]) -> Vec<u8> {
    let at = body.windows(genuine.len()).position(|w| w == genuine).expect("the genuine bytes are in the body");
    [&body[..at], forged, &body[at + genuine.len()..]].concat()
}

fn scalar_plus_one<G: Group>(value: &Value) -> Value {
    let bytes = hex::decode(value.as_str().expect("a hex scalar")).expect("hex");
    let scalar = G::decode_scalar(&bytes).expect("a genuine scalar");
    let bumped = G::scalar_add(&scalar, &G::scalar_from_u128(1));
    Value::String(hex::encode(G::encode_scalar(&bumped)))
}

/// The proposal the host's last message rejected, if it is a rejection.
fn last_reject<G: Group>(game: &Game<G>) -> Option<u64> {
    match body::<G>(game.sent(Seat::HOST).last().unwrap()) {
        Message::Reject { seq, .. } => Some(seq),
        _ => None,
    }
}

fn is_strip<G: Group>(message: &Message<G>) -> bool {
    matches!(message, Message::Strip { .. })
}

fn is_act<G: Group>(message: &Message<G>) -> bool {
    matches!(message, Message::Act { .. })
}

fn is_deck<G: Group>(message: &Message<G>) -> bool {
    matches!(message, Message::Deck { .. })
}

fn shuffle_step_of<G: Group>(library: Seat) -> impl Fn(&Message<G>) -> bool {
    move |message| matches!(message, Message::ShuffleStep { step } if step.library == library)
}

fn strip_groups<G: Group>(message: &mut Message<G>) -> &mut Vec<wire::StripGroup<G>> {
    match message {
        Message::Strip { groups, .. } => groups,
        other => panic!("not a strip: {}", other.kind()),
    }
}

/// Plays `prepare` twice. The control delivers the message of `cheater` that `pick`
/// chooses as it is, and play stays honest. The cheat delivers `tamper`'s forgery instead,
/// and the victim raises one alert of `kind` whose evidence is the forgery, and halts.
fn rewrite<G: Group>(
    prepare: impl Fn() -> Game<G>,
    cheater: Seat,
    pick: impl Fn(&Message<G>) -> bool,
    tamper: impl FnOnce(&Game<G>, &Envelope) -> Vec<u8>,
    kind: AlertKind,
) -> (Game<G>, Alert) {
    let mut control = prepare();
    let genuine = control.intercept(cheater, &pick);
    control.deliver(cheater, bytes(&genuine));
    control.assert_honest();

    let mut game = prepare();
    let genuine = game.intercept(cheater, &pick);
    let forged = tamper(&game, &genuine);
    let envelope = wire::decode_envelope(&forged).unwrap();
    assert_ne!(envelope, genuine, "the tamper changed nothing");
    // The cheater sent the forgery: the victim's acknowledgements name it.
    game.pair.engine_mut(cheater).replace_sent_head(envelope.seq, envelope.chain);
    game.deliver(cheater, forged.clone());
    let alert = game.assert_caught_forgery(cheater, &forged, kind);
    (game, alert)
}

/// As `rewrite`, the forgery carrying `change`'s rewrite of the genuine body.
fn rewrite_body<G: Group>(
    prepare: impl Fn() -> Game<G>,
    cheater: Seat,
    pick: impl Fn(&Message<G>) -> bool,
    change: impl FnOnce(&Game<G>, &Envelope) -> Vec<u8>,
    kind: AlertKind,
) -> (Game<G>, Alert) {
    rewrite(prepare, cheater, pick, |game, genuine| game.forge(cheater, genuine.seq, change(game, genuine)), kind)
}

/// The host draws `count` cards: the guest strips its layer from them, and that strip is
/// the next message of the guest.
fn host_draws<G: Group>(library: usize, count: u32) -> Game<G> {
    let mut game = Game::ready(library);
    game.act(Seat::HOST, Action::Draw { count });
    game
}

// ----- stacking -----

/// `shuffler` peeks at its top card, so its library is dirty, and asks to shuffle it.
fn dirty_shuffle<G: Group>(shuffler: Seat) -> Game<G> {
    let mut game = Game::ready(8);
    game.play(shuffler, Action::Peek { count: 1, purpose: Default::default() });
    assert!(game.engine(shuffler).table().is_dirty(shuffler));
    game.act(shuffler, Action::Shuffle { permutation: None });
    game
}

/// A shuffle of `seat`'s library by reordering alone: its cards turned upside down.
fn reorder_only(game: &Game<impl Group>, seat: Seat) -> Action {
    let len = game.library(seat).len() as u32;
    Action::Shuffle { permutation: Some((0..len).rev().collect()) }
}

#[test]
fn stacking_the_host_reorders_its_dirty_library_without_fresh_locks() {
    // The honest host's shuffle of a dirty library is a full one; the cheater sends a
    // reorder it chose itself, knowing where its peeked card goes.
    rewrite_body::<Ristretto255>(
        || dirty_shuffle(Seat::HOST),
        Seat::HOST,
        is_act,
        |game, act| {
            let Message::Act { action: Action::Shuffle { permutation: None }, seen, .. } = body::<Ristretto255>(act)
            else {
                panic!("an honest shuffle of a dirty library is a full one")
            };
            wire::encode_body::<Ristretto255>(&Message::Act {
                action: reorder_only(game, Seat::HOST),
                seen,
                digest: None,
            })
        },
        AlertKind::Stacking,
    );
}

#[test]
fn stacking_proposed_by_the_guest_is_rejected_and_alerted() {
    let (game, alert) = rewrite_body::<Ristretto255>(
        || dirty_shuffle(Seat::GUEST),
        Seat::GUEST,
        is_act,
        |game, act| {
            let Message::Act { seen, .. } = body::<Ristretto255>(act) else { panic!("an act") };
            wire::encode_body::<Ristretto255>(&Message::Act {
                action: reorder_only(game, Seat::GUEST),
                seen,
                digest: None,
            })
        },
        AlertKind::Stacking,
    );
    // The host refused the proposal, so the guest's table did not change either.
    assert_eq!(last_reject(&game), alert.evidence.map(|e| e.seq));
    assert!(game.pair.guest_events.iter().any(|e| matches!(e, Event::Rejected { .. })));
    assert_eq!(game.pair.host.table(), game.pair.guest.table());
}

#[test]
fn a_reorder_that_is_not_a_permutation_is_refused() {
    // On a clean library a reorder-only shuffle is honest, but not one that repeats a
    // position (it would duplicate a card and lose another).
    let prepare = || {
        let mut game = Game::<Ristretto255>::ready(8);
        game.act(Seat::HOST, Action::Shuffle { permutation: None });
        game
    };
    rewrite_body(
        prepare,
        Seat::HOST,
        is_act,
        |_, act| {
            retype::<Ristretto255>(act, |m| {
                let Message::Act { action: Action::Shuffle { permutation: Some(permutation) }, .. } = m else {
                    panic!("a clean library is shuffled by reordering: {m:?}")
                };
                permutation[1] = permutation[0];
            })
        },
        AlertKind::Stacking,
    );
}

// ----- cards substituted or stripped wrongly at a reveal -----

/// The guest draws a card and plays it face up: its strip reveals the card to the host.
fn guest_plays_face_up<G: Group>() -> Game<G> {
    let mut game = Game::ready(8);
    game.play(Seat::GUEST, Action::Draw { count: 1 });
    let card = game.hand(Seat::GUEST)[0];
    let to = ZoneId::new(Seat::GUEST, ZoneKind::Play);
    game.act(Seat::GUEST, Action::Move { card, to, position: Position::Top, placement: Placement::default() });
    game
}

#[test]
fn a_card_substituted_at_reveal_by_one_of_the_sideboard_is_caught() {
    // The guest's strip claims the card it plays is its sideboard card: a genuine card
    // point of its own deck, just not the one under the lock.
    rewrite_body(
        guest_plays_face_up::<Ristretto255>,
        Seat::GUEST,
        is_strip,
        |game, strip| {
            let guest = game.engine(Seat::GUEST);
            let sideboard = guest.table().zone(ZoneId::new(Seat::GUEST, ZoneKind::Sideboard))[0];
            let point = guest.identity_point(sideboard).expect("the guest's own sideboard card");
            retype::<Ristretto255>(strip, |m| strip_groups(m)[0].forms[0] = point)
        },
        AlertKind::BadProof,
    );
}

fn swapped_strip<G: Group>(library: usize) {
    // The host draws two cards; the guest's strip swaps their forms, so the host would
    // take each card for the other.
    rewrite_body(
        || host_draws::<G>(library, 2),
        Seat::GUEST,
        is_strip,
        |_, strip| {
            retype::<G>(strip, |m| {
                let group = &mut strip_groups(m)[0];
                assert_eq!(group.forms.len(), 2);
                group.forms.swap(0, 1);
            })
        },
        AlertKind::BadProof,
    );
}

#[test]
fn cards_swapped_in_a_strip_are_caught() {
    swapped_strip::<Ristretto255>(8);
}

#[test]
fn cards_swapped_in_a_strip_are_caught_modp2048() {
    swapped_strip::<Modp2048>(2);
}

#[test]
fn a_strip_to_a_garbage_element_is_caught() {
    rewrite_body(
        || host_draws::<Ristretto255>(8, 2),
        Seat::GUEST,
        is_strip,
        |_, strip| {
            retype::<Ristretto255>(strip, |m| strip_groups(m)[0].forms[1] = Ristretto255::hash_to_element(b"garbage"))
        },
        AlertKind::BadProof,
    );
}

#[test]
fn a_strip_with_another_key_and_a_proof_for_that_key_is_caught() {
    // A strip that is consistent with its own proof, only made with a key that is not the
    // one the guest committed to on these cards.
    rewrite_body(
        || host_draws::<Ristretto255>(8, 2),
        Seat::GUEST,
        is_strip,
        |game, strip| {
            // At set-up the guest's shuffle step gave the host's library, in order, the forms
            // the guest now strips (host cards are numbered from 1 in library order).
            let setup = game
                .received(Seat::HOST)
                .iter()
                .find_map(|e| match body::<Ristretto255>(e) {
                    Message::ShuffleStep { step } if step.library == Seat::HOST => Some(step.shuffles[0].cards.clone()),
                    _ => None,
                })
                .unwrap();
            let Message::Strip { unlock, groups } = body::<Ristretto255>(strip) else { panic!("a strip") };
            let locked: Vec<_> = groups[0].cards.iter().map(|id| setup[id.0 as usize - 1]).collect();
            let context =
                ProofContext::new(game.engine(Seat::HOST).game_id().unwrap(), strip.seq, format!("unlock/{unlock}"));
            let wrong = LockKey::<Ristretto255>::generate(&mut ChaCha20Rng::from_seed([3; 32]));
            let (stripped, proof) = wrong.strip_with_proof(&locked, &context, &mut ChaCha20Rng::from_seed([4; 32]));
            let forms = stripped.into_inner().cards;
            // The forgery holds up against the wrong key: only the key is wrong.
            assert!(wrong.commitment().verify_strip(&locked, forms.clone(), &proof, &context).is_ok());
            retype::<Ristretto255>(strip, |m| {
                let group = &mut strip_groups(m)[0];
                group.forms = forms;
                group.proof = proof;
            })
        },
        AlertKind::BadProof,
    );
}

#[test]
fn a_tampered_strip_proof_is_caught() {
    for field in ["challenge", "response"] {
        let (_, alert) = rewrite_body(
            || host_draws::<Ristretto255>(8, 2),
            Seat::GUEST,
            is_strip,
            |_, strip| {
                rejson(strip, |v| {
                    let value = &mut v["groups"][0]["proof"][field];
                    *value = scalar_plus_one::<Ristretto255>(value);
                })
            },
            AlertKind::BadProof,
        );
        assert!(alert.detail.contains("strip"), "{field}: {}", alert.detail);
    }
}

#[test]
fn a_strip_under_the_wrong_key_name_is_caught() {
    rewrite_body(
        || host_draws::<Ristretto255>(8, 2),
        Seat::GUEST,
        is_strip,
        |_, strip| retype::<Ristretto255>(strip, |m| strip_groups(m)[0].key.epoch += 1),
        AlertKind::Unexpected,
    );
}

#[test]
fn a_strip_that_leaves_cards_locked_is_caught() {
    rewrite_body(
        || host_draws::<Ristretto255>(8, 2),
        Seat::GUEST,
        is_strip,
        |_, strip| retype::<Ristretto255>(strip, |m| strip_groups(m).clear()),
        AlertKind::Unexpected,
    );
}

#[test]
fn a_strip_with_fewer_forms_than_cards_is_caught() {
    rewrite_body(
        || host_draws::<Ristretto255>(8, 2),
        Seat::GUEST,
        is_strip,
        |_, strip| {
            retype::<Ristretto255>(strip, |m| {
                strip_groups(m)[0].forms.pop();
            })
        },
        AlertKind::Malformed,
    );
}

// ----- shuffles that are not permutations -----

/// The guest's set-up shuffle of the host's library has its output changed by `change`: its
/// (genuine) proof does not prove the changed output, so the host refuses the step, which is
/// the evidence.
fn forged_shuffle_output<G: Group>(library: usize, change: impl FnOnce(&mut Vec<G::Element>)) {
    let mut control = Game::<G>::new(library);
    let step = control.intercept(Seat::GUEST, shuffle_step_of(Seat::HOST));
    control.deliver(Seat::GUEST, bytes(&step));
    control.assert_honest();
    assert!(control.engine(Seat::HOST).is_ready());

    let mut game = Game::<G>::new(library);
    let step = game.intercept(Seat::GUEST, shuffle_step_of(Seat::HOST));
    let forged = retype::<G>(&step, |m| {
        let Message::ShuffleStep { step } = m else { unreachable!() };
        change(&mut step.shuffles[0].cards);
    });
    let forged = game.substitute(Seat::GUEST, step.seq, forged);
    game.deliver(Seat::GUEST, forged.clone());
    let forged = wire::decode_envelope(&forged).unwrap();
    game.assert_attributable(Seat::GUEST, &forged);
    game.assert_caught(Seat::HOST, AlertKind::BadProof, Some(&forged));
    assert!(!game.engine(Seat::HOST).is_ready());
    // The proof is non-interactive: the host's record alone convicts the guest (`fairdeck verify`).
    match fairdeck_shared::journal::check::<G>(game.engine(Seat::HOST).journal()).unwrap() {
        fairdeck_shared::journal::Verdict::Breach { by, alert, .. } => {
            assert_eq!((by, alert.kind), (Seat::GUEST, AlertKind::BadProof));
            assert_eq!(alert.evidence.as_ref(), Some(&forged));
        }
        other => panic!("not a breach: {other:?}"),
    }
}

#[test]
fn a_shuffle_output_with_a_duplicated_card_is_caught() {
    forged_shuffle_output::<Ristretto255>(8, |cards| cards[1] = cards[0]);
}

#[test]
fn a_shuffle_output_with_a_duplicated_card_is_caught_modp2048() {
    forged_shuffle_output::<Modp2048>(2, |cards| cards[1] = cards[0].clone());
}

#[test]
fn a_shuffle_output_with_a_substituted_card_is_caught() {
    forged_shuffle_output::<Ristretto255>(8, |cards| cards[3] = Ristretto255::hash_to_element(b"a card of my choice"));
}

#[test]
fn a_shuffle_output_missing_a_card_is_caught() {
    forged_shuffle_output::<Ristretto255>(8, |cards| {
        cards.pop();
    });
}

#[test]
fn a_shuffle_step_that_mixes_the_backs_of_a_library_is_caught() {
    // The host's library has two backs; the guest's set-up step proves one shuffle over the
    // first back's cards only, and nothing for the other back's.
    let two_backs = |prefix| {
        let mut deck = numbered_deck(prefix, 8, 1);
        deck.library[6].back = 3;
        deck.library[7].back = 3;
        deck
    };
    let (_, alert) = rewrite_body(
        || Game::<Ristretto255>::with_decks([two_backs("Host"), two_backs("Guest")]),
        Seat::GUEST,
        shuffle_step_of(Seat::HOST),
        |_, step| {
            retype::<Ristretto255>(step, |m| {
                let Message::ShuffleStep { step } = m else { unreachable!() };
                assert_eq!(step.shuffles.len(), 2, "one proven shuffle per back");
                step.shuffles.truncate(1);
            })
        },
        AlertKind::BadProof,
    );
    assert!(alert.detail.contains("backs"), "{}", alert.detail);
}

#[test]
fn a_tampered_shuffle_proof_is_caught() {
    // Valid elements and scalars in the wrong place: the step decodes, and its proof fails.
    let swap = |field: &'static str| {
        move |v: &mut Value| v["step"]["shuffles"][0]["proof"][field].as_array_mut().unwrap().swap(0, 1)
    };
    let bump = |field: &'static str, index: usize| {
        move |v: &mut Value| {
            let scalar = &mut v["step"]["shuffles"][0]["proof"][field][index];
            *scalar = scalar_plus_one::<Ristretto255>(scalar);
        }
    };
    let tampers: [(&str, JsonTamper); 6] = [
        ("permutation commitments", &swap("permutation")),
        ("chain", &swap("chain")),
        ("chain commitments", &swap("chain_commitments")),
        ("a response", &bump("responses", 3)),
        ("a chain response", &bump("chain_responses", 2)),
        ("a permuted response", &bump("permuted_responses", 4)),
    ];
    for (what, tamper) in tampers {
        let (_, alert) = rewrite_body(
            || Game::<Ristretto255>::new(8),
            Seat::GUEST,
            shuffle_step_of(Seat::HOST),
            |_, step| rejson(step, tamper),
            AlertKind::BadProof,
        );
        assert!(alert.detail.contains("shuffle"), "{what}: {}", alert.detail);
    }
}

#[test]
fn a_tampered_relock_before_a_reshuffle_is_caught() {
    // The host draws a card, puts it back on top of its library and shuffles: the guest
    // must first lock that card again (its layer was stripped), with a proof.
    let prepare = || {
        let mut game = Game::<Ristretto255>::ready(8);
        game.play(Seat::HOST, Action::Draw { count: 1 });
        let card = game.hand(Seat::HOST)[0];
        let to = ZoneId::library(Seat::HOST);
        game.play(Seat::HOST, Action::Move { card, to, position: Position::Top, placement: Placement::default() });
        game.act(Seat::HOST, Action::Shuffle { permutation: None });
        game
    };
    rewrite_body(
        prepare,
        Seat::GUEST,
        shuffle_step_of(Seat::HOST),
        |_, step| {
            retype::<Ristretto255>(step, |m| {
                let Message::ShuffleStep { step } = m else { unreachable!() };
                assert_eq!(step.relock.len(), 1, "one card to relock");
                step.relock[0].forms[0] = Ristretto255::hash_to_element(b"not this card");
            })
        },
        AlertKind::BadProof,
    );
}

// ----- duplicated cards and bad catalogues in a deck -----

fn forged_deck(change: impl FnOnce(&mut Message<Ristretto255>), kind: AlertKind) {
    rewrite_body(|| Game::<Ristretto255>::new(8), Seat::GUEST, is_deck, |_, deck| retype(deck, change), kind);
}

fn deck_parts(message: &mut Message<Ristretto255>) -> (&mut DeckCards, &mut DeckCards, &mut Vec<CatalogueEntry>) {
    match message {
        Message::Deck { library, sideboard, catalogue, .. } => (library, sideboard, catalogue),
        other => panic!("not a deck: {}", other.kind()),
    }
}

#[test]
fn a_deck_with_a_duplicated_card_is_refused() {
    forged_deck(
        |m| {
            let (library, ..) = deck_parts(m);
            library[1] = library[0];
        },
        AlertKind::Malformed,
    );
}

#[test]
fn a_deck_whose_sideboard_repeats_a_library_card_is_refused() {
    forged_deck(
        |m| {
            let (library, sideboard, _) = deck_parts(m);
            sideboard[0] = library[3];
        },
        AlertKind::Malformed,
    );
}

#[test]
fn a_deck_with_related_elements_is_refused_at_once() {
    // The guest makes its second card twice its first: a pair it could follow through every
    // shuffle, since one lock on both keeps the relation. Its elements are no longer one
    // multiple of their public bases, so the deck's proof fails.
    forged_deck(
        |m| {
            let (library, ..) = deck_parts(m);
            library[1].0 = Ristretto255::mul(&library[0].0, &Ristretto255::scalar_from_u128(2));
        },
        AlertKind::BadProof,
    );
}

#[test]
fn a_deck_proven_under_another_base_key_is_refused() {
    forged_deck(
        |m| {
            let Message::Deck { base_key, .. } = m else { unreachable!() };
            *base_key = LockKey::<Ristretto255>::generate(&mut ChaCha20Rng::from_seed([3; 32])).commitment().clone();
        },
        AlertKind::BadProof,
    );
}

#[test]
fn a_deck_with_a_catalogue_that_does_not_list_every_card_is_refused() {
    forged_deck(
        |m| {
            deck_parts(m).2.pop();
        },
        AlertKind::Malformed,
    );
    forged_deck(
        |m| {
            let catalogue = deck_parts(m).2;
            catalogue[1].tag = catalogue[0].tag;
        },
        AlertKind::Malformed,
    );
}

/// How a card of a deck whose catalogue names none of its cards comes to light.
#[derive(Clone, Copy, Debug)]
enum Discovery {
    /// The host takes a card of the guest's library face down and cannot read it.
    Taken,
    /// The guest ends the game and the host audits its whole deck.
    Audit,
}

#[test]
fn a_catalogue_that_names_no_card_of_the_deck_is_caught() {
    // The guest's catalogue has the right number of well-formed entries, but none opens
    // with a card of its deck. It shows when the host learns one of its cards, or at the
    // end-of-game audit: then the evidence is the deck message that carried the catalogue.
    for (opening, tamper) in [Discovery::Taken, Discovery::Audit].into_iter().flat_map(|d| [(d, false), (d, true)]) {
        let mut game = Game::<Ristretto255>::new(8);
        let deck = game.intercept(Seat::GUEST, is_deck);
        let sent = match tamper {
            false => bytes(&deck),
            true => {
                let changed = retype::<Ristretto255>(&deck, |m| {
                    for (i, entry) in deck_parts(m).2.iter_mut().enumerate() {
                        entry.tag = [i as u8 + 1; 32];
                    }
                });
                game.substitute(Seat::GUEST, deck.seq, changed)
            }
        };
        game.deliver(Seat::GUEST, sent.clone());
        game.drive_as_cheater(Seat::GUEST);
        assert!(game.engine(Seat::HOST).is_ready() && game.alerts(Seat::HOST).is_empty());
        match opening {
            Discovery::Taken => game.act(Seat::HOST, Action::TakeFromLibrary { count: 1 }),
            Discovery::Audit => game.pair.intent(Seat::GUEST, Intent::EndGame).expect("the guest may end"),
        }
        game.drive_as_cheater(Seat::GUEST);
        let audited =
            game.pair.events(Seat::HOST).iter().any(|e| matches!(e, Event::Audited { seat: Seat::GUEST, .. }));
        if let Discovery::Taken = opening {
            let taken = *game.hand(Seat::HOST).last().unwrap();
            assert_eq!(game.engine(Seat::HOST).identity(taken).is_some(), !tamper, "{opening:?}");
        } else {
            assert_eq!(audited, !tamper, "{opening:?}");
        }
        if tamper {
            if let Discovery::Taken = opening {
                game.victim_alone = Some("a card the victim alone learned");
            }
            game.assert_caught_forgery(Seat::GUEST, &sent, AlertKind::NotInDeck);
        } else {
            game.assert_honest();
        }
    }
}

// ----- invalid group elements -----

/// Each bad value in place of the guest's first library card (and of its key), in the deck
/// message, which the guest signs: the host refuses it as malformed.
fn invalid_elements<G: Group>(bad: Vec<(String, Vec<u8>)>) {
    let mut control = Game::<G>::new(2);
    let deck = control.intercept(Seat::GUEST, is_deck);
    control.deliver(Seat::GUEST, bytes(&deck));
    control.assert_honest();

    for (what, raw) in bad {
        for pointer in ["/deck/library/0/0", "/deck/key"] {
            let mut game = Game::<G>::new(2);
            let deck = game.intercept(Seat::GUEST, is_deck);
            let changed = replace_bytes::<G>(&deck, pointer, &raw);
            let forged = game.forge(Seat::GUEST, deck.seq, changed);
            game.deliver(Seat::GUEST, forged.clone());
            let alert = game.assert_caught_forgery(Seat::GUEST, &forged, AlertKind::Malformed);
            assert!(!alert.detail.is_empty(), "{what} as {pointer}");
        }
    }
}

/// Encodings a byte string's frame cannot be read from: no bytes, or a length past the end of the body.
fn broken_frames() -> Vec<(String, Vec<u8>)> {
    vec![("no bytes".into(), framed(&[])), ("a length past the end".into(), [&[0xc8, 0x01][..], &[7; 32]].concat())]
}

#[test]
fn invalid_elements_are_refused_ristretto255() {
    let mut p = vec![0xff; 32];
    p[0] = 0xed;
    p[31] = 0x7f;
    let mut negative = vec![0; 32];
    negative[0] = 1;
    let mut bad = vec![
        ("the identity".into(), framed(&[0u8; 32])),
        ("p, a non-canonical field element".into(), framed(&p)),
        ("2^256 - 1".into(), framed(&[0xffu8; 32])),
        ("a negative field element".into(), framed(&negative)),
        ("31 bytes".into(), framed(&[7u8; 31])),
        ("33 bytes".into(), framed(&[7u8; 33])),
    ];
    bad.extend(broken_frames());
    invalid_elements::<Ristretto255>(bad);
}

const MODP_P_HEX: &str = concat!(
    "FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E3404DD",
    "EF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED",
    "EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE45B3DC2007CB8A163BF0598DA48361C55D39A69163FA8FD24CF5F",
    "83655D23DCA3AD961C62F356208552BB9ED529077096966D670C354E4ABC9804F1746C08CA18217C32905E462E36CE3B",
    "E39E772C180E86039B2783A2EC07A28FB5C55DF06F4C52C9DE2BCBF6955817183995497CEA956AE515D2261898FA0510",
    "15728E5A8AACAA68FFFFFFFFFFFFFFFF",
);

#[test]
fn invalid_elements_are_refused_modp2048() {
    let p = BigUint::parse_bytes(MODP_P_HEX.as_bytes(), 16).unwrap();
    let fixed = |x: &BigUint| {
        let digits = x.to_bytes_be();
        let mut out = vec![0u8; 256usize.saturating_sub(digits.len())];
        out.extend(digits);
        framed(&out)
    };
    let g = BigUint::from_bytes_be(&Modp2048::encode_element(&Modp2048::generator()));
    let one = BigUint::from(1u32);
    invalid_elements::<Modp2048>(vec![
        ("zero".into(), fixed(&BigUint::from(0u32))),
        ("one, the identity".into(), fixed(&one)),
        ("p - 1".into(), fixed(&(&p - &one))),
        ("p".into(), fixed(&p)),
        ("p + 1".into(), fixed(&(&p + &one))),
        ("a non-residue, p - g".into(), fixed(&(&p - &g))),
        ("2^2048 - 1".into(), framed(&[0xffu8; 256])),
        ("255 bytes".into(), framed(&[7u8; 255])),
        ("257 bytes".into(), framed(&[7u8; 257])),
    ]);
}

#[test]
fn invalid_elements_and_scalars_in_strips_and_shuffles_are_refused() {
    let identity = framed(&[0u8; 32]);
    let unreduced = framed(&[0xffu8; 32]);
    for (pointer, raw) in [("/strip/groups/0/forms/0", &identity), ("/strip/groups/0/proof/response", &unreduced)] {
        rewrite_body(
            || host_draws::<Ristretto255>(8, 2),
            Seat::GUEST,
            is_strip,
            |_, strip| replace_bytes::<Ristretto255>(strip, pointer, raw),
            AlertKind::Malformed,
        );
    }
    for pointer in [
        "/shuffle-step/step/shuffles/0/cards/2",
        "/shuffle-step/step/shuffles/0/proof/permutation/0",
        "/shuffle-step/step/shuffles/0/proof/chain/1",
        "/shuffle-step/step/shuffles/0/proof/commitments/3",
        "/shuffle-step/step/shuffles/0/proof/chain_commitments/7",
        "/shuffle-step/step/fresh",
    ] {
        rewrite_body(
            || Game::<Ristretto255>::new(8),
            Seat::GUEST,
            shuffle_step_of(Seat::HOST),
            |_, step| replace_bytes::<Ristretto255>(step, pointer, &identity),
            AlertKind::Malformed,
        );
    }
    for pointer in [
        "/shuffle-step/step/shuffles/0/proof/responses/1",
        "/shuffle-step/step/shuffles/0/proof/chain_responses/0",
        "/shuffle-step/step/shuffles/0/proof/permuted_responses/5",
    ] {
        rewrite_body(
            || Game::<Ristretto255>::new(8),
            Seat::GUEST,
            shuffle_step_of(Seat::HOST),
            |_, step| replace_bytes::<Ristretto255>(step, pointer, &unreduced),
            AlertKind::Malformed,
        );
    }
}

// ----- replayed, reordered, unsigned and rechained messages -----

/// The host draws a card, then sets the phase: two host messages in a row.
fn two_host_actions() -> (Game<Ristretto255>, Envelope, Envelope) {
    let mut game = Game::<Ristretto255>::ready(8);
    game.act(Seat::HOST, Action::Draw { count: 1 });
    game.act(Seat::HOST, Action::SetPhase { phase: "main".into() });
    let first = game.intercept(Seat::HOST, is_act);
    let second = game.intercept(Seat::HOST, is_act);
    assert_eq!(second.seq, first.seq + 1);
    (game, first, second)
}

#[test]
fn a_replayed_message_is_caught() {
    let (mut control, first, second) = two_host_actions();
    control.deliver(Seat::HOST, bytes(&first));
    control.deliver(Seat::HOST, bytes(&second));
    control.assert_honest();

    // The host's draw, delivered twice: the second copy must not draw again.
    let (mut game, first, _) = two_host_actions();
    game.deliver(Seat::HOST, bytes(&first));
    game.pair.drive();
    let hand = game.hand(Seat::HOST);
    game.deliver(Seat::HOST, bytes(&first));
    game.assert_attributable(Seat::HOST, &first);
    game.assert_caught(Seat::GUEST, AlertKind::Sequence, Some(&first));
    assert_eq!(game.engine(Seat::GUEST).table().zone(ZoneId::hand(Seat::HOST)), hand.as_slice());

    // The host's hello, replayed in the middle of the game.
    let mut game = Game::<Ristretto255>::ready(8);
    let hello = game.sent(Seat::HOST)[0].clone();
    game.deliver(Seat::HOST, bytes(&hello));
    game.assert_caught(Seat::GUEST, AlertKind::Sequence, Some(&hello));
}

#[test]
fn a_reordered_or_missing_message_is_caught() {
    let (mut game, _, second) = two_host_actions();
    game.deliver(Seat::HOST, bytes(&second));
    game.assert_caught(Seat::GUEST, AlertKind::Sequence, Some(&second));
}

#[test]
fn a_message_reflected_back_to_its_sender_is_caught() {
    // The guest's own proposal, sent back to it as if the host had sent it.
    let mut game = Game::<Ristretto255>::ready(8);
    game.act(Seat::GUEST, Action::Draw { count: 1 });
    let proposal = game.intercept(Seat::GUEST, is_act);
    game.deliver(Seat::HOST, bytes(&proposal));
    game.assert_caught(Seat::GUEST, AlertKind::Sequence, Some(&proposal));
}

#[test]
fn an_unsigned_wrongly_signed_or_rechained_message_is_caught() {
    let (mut control, first, second) = two_host_actions();
    control.deliver(Seat::HOST, bytes(&first));
    control.deliver(Seat::HOST, bytes(&second));
    control.assert_honest();

    let other_key = SigningKey::from_bytes(&[42; 32]);
    let draw_two =
        wire::encode_body::<Ristretto255>(&Message::Act { action: Action::Draw { count: 2 }, seen: 0, digest: None });
    let tampers: Vec<(&str, EnvelopeTamper)> = vec![
        ("unsigned", Box::new(|_, e| Envelope { signature: Vec::new(), ..e.clone() })),
        ("an acknowledgement of messages never sent", Box::new(|_, e| Envelope { ack: e.ack + 100, ..e.clone() })),
        ("an acknowledgement going back", Box::new(|_, e| Envelope { ack: 0, ..e.clone() })),
        (
            "a flipped signature bit",
            Box::new(|_, e| {
                let mut signature = e.signature.clone();
                signature[10] ^= 4;
                Envelope { signature, ..e.clone() }
            }),
        ),
        ("a changed body, chain kept", Box::new(|_, e| Envelope { body: draw_two.clone(), ..e.clone() })),
        (
            "a changed body, rechained, signature kept",
            Box::new(|game, e| {
                let previous = game.sent(Seat::HOST)[e.seq as usize - 1].chain;
                let chain = wire::chain_hash(&previous, e.seq, &game.pair.ack_of(Seat::HOST, e.seq), &draw_two);
                Envelope { body: draw_two.clone(), chain, ..e.clone() }
            }),
        ),
        (
            "a changed body, rechained, signed by another key",
            Box::new(|game, e| {
                let previous = game.sent(Seat::HOST)[e.seq as usize - 1].chain;
                let chain = wire::chain_hash(&previous, e.seq, &game.pair.ack_of(Seat::HOST, e.seq), &draw_two);
                let signature = other_key.sign(&chain).to_bytes().to_vec();
                Envelope { seq: e.seq, ack: e.ack, chain, body: draw_two.clone(), signature }
            }),
        ),
        (
            "signed by the host, on a past it rewrote",
            Box::new(|game, e| {
                let forged = game.forge_with_history(Seat::HOST, e.seq, e.body.clone(), |seq, body| {
                    if seq == 1 { [body.as_slice(), b" "].concat() } else { body }
                });
                wire::decode_envelope(&forged).unwrap()
            }),
        ),
    ];
    for (what, tamper) in tampers {
        let (mut game, first, _) = two_host_actions();
        let forged = tamper(&game, &first);
        assert!(game.check_signed(Seat::HOST, &forged).is_err(), "{what}: the forgery checks out");
        game.deliver(Seat::HOST, bytes(&forged));
        let alert = game.assert_caught(Seat::GUEST, AlertKind::Sequence, Some(&forged));
        assert!(!alert.detail.is_empty(), "{what}");
    }
}

#[test]
fn a_hello_signed_with_another_key_than_the_one_it_announces_is_caught() {
    let mut game = Game::<Ristretto255>::new(8);
    let hello = game.intercept(Seat::HOST, |m| matches!(m, Message::Hello { .. }));
    let signature = SigningKey::from_bytes(&[42; 32]).sign(&hello.chain).to_bytes().to_vec();
    let forged = Envelope { signature, ..hello };
    game.deliver(Seat::HOST, bytes(&forged));
    game.assert_caught(Seat::GUEST, AlertKind::Sequence, Some(&forged));
}

// ----- forbidden actions -----

/// The top card of `owner`'s library goes to `to`'s hand: honest when `to` owns the library.
fn take_top(game: &Game<impl Group>, owner: Seat, to: Seat) -> Action {
    let card = game.library(owner)[0];
    Action::Move { card, to: ZoneId::hand(to), position: Position::Top, placement: Placement::default() }
}

/// `cheater` sends `forbidden` as its next action; the control sends `honest` instead.
fn forbidden_action(
    cheater: Seat,
    honest: impl Fn(&Game<Ristretto255>) -> Action,
    forbidden: impl Fn(&Game<Ristretto255>) -> Action,
) -> Game<Ristretto255> {
    let prepare = || {
        let mut game = Game::<Ristretto255>::ready(8);
        game.play(Seat::HOST, Action::Draw { count: 1 });
        game.play(Seat::GUEST, Action::Draw { count: 1 });
        game
    };
    let mut control = prepare();
    let action = honest(&control);
    control.play(cheater, action);
    control.assert_honest();

    let mut game = prepare();
    let seen = game.engine(cheater).actions_applied();
    let forged = game.forge_next(cheater, &Message::Act { action: forbidden(&game), seen, digest: None });
    game.deliver(cheater, forged.clone());
    game.assert_caught_forgery(cheater, &forged, AlertKind::Forbidden);
    game
}

#[test]
fn a_move_in_the_opponents_library_is_caught() {
    forbidden_action(Seat::HOST, |g| take_top(g, Seat::HOST, Seat::HOST), |g| take_top(g, Seat::GUEST, Seat::HOST));
}

#[test]
fn a_move_in_the_opponents_library_proposed_by_the_guest_is_rejected_and_alerted() {
    let game = forbidden_action(
        Seat::GUEST,
        |g| take_top(g, Seat::GUEST, Seat::GUEST),
        |g| take_top(g, Seat::HOST, Seat::GUEST),
    );
    let alert = &game.alerts(Seat::HOST)[0];
    assert_eq!(last_reject(&game), alert.evidence.as_ref().map(|e| e.seq));
}

#[test]
fn other_forbidden_actions_are_caught() {
    let own_hand_card = |g: &Game<Ristretto255>| g.hand(Seat::HOST)[0];
    let cases: Vec<(&str, MakeAction)> = vec![
        (
            "a card of one's hand put into the opponent's library",
            Box::new(move |g| Action::Move {
                card: own_hand_card(g),
                to: ZoneId::library(Seat::GUEST),
                position: Position::Top,
                placement: Placement::default(),
            }),
        ),
        (
            "the opponent's library rearranged",
            Box::new(|g| Action::Rearrange { card: g.library(Seat::GUEST)[0], index: 3 }),
        ),
        (
            "a reveal of a card the revealer does not know",
            Box::new(|g| Action::Reveal { cards: vec![g.library(Seat::HOST)[0]], to: None }),
        ),
        ("a draw of no card", Box::new(|_| Action::Draw { count: 0 })),
        ("a card that does not exist", Box::new(|_| Action::Tap { card: CardId(77_777), tapped: true })),
    ];
    for (what, forbidden) in cases {
        let game = forbidden_action(
            Seat::HOST,
            |g| Action::Move {
                card: own_hand_card(g),
                to: ZoneId::library(Seat::HOST),
                position: Position::Top,
                placement: Placement::default(),
            },
            forbidden,
        );
        assert!(game.engine(Seat::GUEST).halted().is_some(), "{what}");
    }
}

// ----- messages out of turn -----

#[test]
fn a_strip_for_an_unknown_unlock_is_caught() {
    rewrite_body(
        || host_draws::<Ristretto255>(8, 2),
        Seat::GUEST,
        is_strip,
        |_, strip| {
            retype::<Ristretto255>(strip, |m| {
                let Message::Strip { unlock, .. } = m else { unreachable!() };
                *unlock = 999;
            })
        },
        AlertKind::Unexpected,
    );
}

#[test]
fn a_strip_out_of_turn_is_caught() {
    // The host draws a card and at once plays it face up, before the guest's strip for the
    // draw arrives: the reveal waits for the draw. The guest's strip for the draw, sent as
    // one for the reveal (where only the host strips), is out of turn. The control also
    // checks that honest, overlapping unlocks of one card raise no alert.
    let prepare = || {
        let mut game = host_draws::<Ristretto255>(8, 1);
        let card = game.hand(Seat::HOST)[0];
        let to = ZoneId::new(Seat::HOST, ZoneKind::Graveyard);
        game.act(Seat::HOST, Action::Move { card, to, position: Position::Top, placement: Placement::default() });
        game
    };
    rewrite_body(
        prepare,
        Seat::GUEST,
        is_strip,
        |_, strip| {
            retype::<Ristretto255>(strip, |m| {
                let Message::Strip { unlock, .. } = m else { unreachable!() };
                *unlock += 1;
            })
        },
        AlertKind::Unexpected,
    );
}

#[test]
fn a_strip_by_a_player_who_has_nothing_to_strip_is_caught() {
    // The host's draw is unlocked by the guest alone; the host sends a strip for it too.
    let mut game = host_draws::<Ristretto255>(8, 1);
    game.pair.drive();
    let number = game.pair.host_events.iter().rev().find_map(|e| match e {
        Event::Applied { number, .. } => Some(*number),
        _ => None,
    });
    let forged = game.forge_next(Seat::HOST, &Message::Strip { unlock: number.unwrap(), groups: Vec::new() });
    game.deliver(Seat::HOST, forged.clone());
    game.assert_caught_forgery(Seat::HOST, &forged, AlertKind::Unexpected);
}

#[test]
fn other_messages_out_of_turn_are_caught() {
    type Make = Box<dyn Fn(&Game<Ristretto255>) -> Message<Ristretto255>>;
    let setup_message = |from: Seat, pick: fn(&Message<Ristretto255>) -> bool| {
        move |g: &Game<Ristretto255>| g.sent(from).iter().map(body::<Ristretto255>).find(pick).unwrap()
    };
    let cases: Vec<(&str, Seat, Make)> = vec![
        ("an accept of a proposal never made", Seat::HOST, Box::new(|_| Message::Accept { seq: 999 })),
        ("an accept from the guest", Seat::GUEST, Box::new(|_| Message::Accept { seq: 3 })),
        ("a second deck", Seat::GUEST, Box::new(setup_message(Seat::GUEST, is_deck))),
        ("a second hello", Seat::HOST, Box::new(setup_message(Seat::HOST, |m| matches!(m, Message::Hello { .. })))),
        (
            "a shuffle step for a library nobody is shuffling",
            Seat::GUEST,
            Box::new(setup_message(Seat::GUEST, |m| matches!(m, Message::ShuffleStep { .. }))),
        ),
        (
            "a commitment for a random round nobody started",
            Seat::HOST,
            Box::new(|_| Message::RandomCommit { round: 40, commitment: Commitment([1; 32]) }),
        ),
        (
            "an opening for a random round nobody started",
            Seat::GUEST,
            Box::new(|_| Message::RandomOpen { round: 40, opening: Opening { nonce: [1; 32], value: vec![2; 32] } }),
        ),
    ];
    let mut control = Game::<Ristretto255>::ready(8);
    control.assert_honest();
    for (what, cheater, make) in cases {
        let mut game = Game::<Ristretto255>::ready(8);
        let forged = game.forge_next(cheater, &make(&game));
        game.deliver(cheater, forged.clone());
        let alert = game.assert_caught_forgery(cheater, &forged, AlertKind::Unexpected);
        assert!(!alert.detail.is_empty(), "{what}");
    }
}

#[test]
fn an_action_before_set_up_is_caught() {
    rewrite_body(
        || Game::<Ristretto255>::new(8),
        Seat::HOST,
        shuffle_step_of(Seat::GUEST),
        |_, _| wire::encode_body::<Ristretto255>(&Message::Act { action: Action::NextTurn, seen: 0, digest: None }),
        AlertKind::Unexpected,
    );
}

// ----- commit–reveal -----

/// The host rolls dice: both players commit to a contribution, then open it.
fn host_rolls() -> Game<Ristretto255> {
    let mut game = Game::<Ristretto255>::ready(4);
    game.act(Seat::HOST, Action::Roll { dice: "2d6".parse().unwrap() });
    game
}

#[test]
fn an_echoed_random_commitment_is_caught() {
    // The guest answers the host's commitment with that same commitment, to cancel the
    // host's contribution out.
    rewrite_body(
        host_rolls,
        Seat::GUEST,
        |m| matches!(m, Message::RandomCommit { .. }),
        |game, commit| {
            let Message::RandomCommit { round: guests, .. } = body::<Ristretto255>(commit) else { unreachable!() };
            // The host's commitment in the same round (the coin of who chooses to play or draw came before).
            let hosts = game.sent(Seat::HOST).iter().map(body::<Ristretto255>).find_map(|m| match m {
                Message::RandomCommit { round, commitment } if round == guests => Some(commitment),
                _ => None,
            });
            retype::<Ristretto255>(commit, |m| {
                let Message::RandomCommit { commitment, .. } = m else { unreachable!() };
                *commitment = hosts.unwrap();
            })
        },
        AlertKind::BadProof,
    );
}

#[test]
fn a_random_opening_that_does_not_match_its_commitment_is_caught() {
    // The guest, having seen the host's contribution, opens to another value of its own.
    rewrite_body(
        host_rolls,
        Seat::GUEST,
        |m| matches!(m, Message::RandomOpen { .. }),
        |_, open| {
            retype::<Ristretto255>(open, |m| {
                let Message::RandomOpen { opening, .. } = m else { unreachable!() };
                opening.value[0] ^= 1;
            })
        },
        AlertKind::BadProof,
    );
}

// ----- regressions: hostile input that once crashed the engine or misled it -----

#[test]
fn dice_outside_their_bounds_are_refused_not_rolled() {
    // Dice with no sides, or billions of them, are refused as they are decoded.
    let genuine: Dice = "1d6".parse().unwrap();
    for (count, sides) in [(1u32, 0u32), (4_000_000_000, 6)] {
        rewrite_body::<Ristretto255>(
            || {
                let mut game = Game::ready(4);
                game.act(Seat::GUEST, Action::Roll { dice: genuine });
                game
            },
            Seat::GUEST,
            is_act,
            // The dice's count and sides, as the binary encoding writes them, in place of the genuine ones.
            |_, act| {
                let raw = postcard::to_stdvec(&(count, sides)).unwrap();
                splice(&act.body, &postcard::to_stdvec(&genuine).unwrap(), &raw)
            },
            AlertKind::Malformed,
        );
    }
}

fn empty_group_proof() -> Value {
    let one = json!(format!("01{}", "00".repeat(31)));
    json!({"challenge": one, "response": one})
}

#[test]
fn a_relock_group_naming_no_card_is_refused() {
    rewrite_body::<Ristretto255>(
        || Game::new(8),
        Seat::GUEST,
        shuffle_step_of(Seat::HOST),
        |_, step| {
            rejson(step, |v| {
                v["step"]["relock"] = json!([{"from": null, "cards": [], "forms": [], "proof": empty_group_proof()}])
            })
        },
        AlertKind::Unexpected,
    );
}

#[test]
fn a_relock_from_an_unknown_key_is_refused() {
    rewrite_body::<Ristretto255>(
        || dirty_shuffle(Seat::HOST),
        Seat::GUEST,
        shuffle_step_of(Seat::HOST),
        |_, step| {
            rejson(step, |v| {
                let from = json!({"holder": "guest", "library": "host", "epoch": 7});
                v["step"]["relock"] = json!([{"from": from, "cards": [], "forms": [], "proof": empty_group_proof()}])
            })
        },
        AlertKind::Unexpected,
    );
}

#[test]
fn a_strip_group_with_no_card_and_an_unknown_key_is_refused() {
    rewrite_body::<Ristretto255>(
        || host_draws(8, 2),
        Seat::GUEST,
        is_strip,
        |_, strip| {
            rejson(strip, |v| {
                let key = json!({"holder": "guest", "library": "guest", "epoch": 9});
                let group = json!({"key": key, "cards": [], "forms": [], "proof": empty_group_proof()});
                v["groups"].as_array_mut().expect("groups").push(group)
            })
        },
        AlertKind::Unexpected,
    );
}

#[test]
fn a_reveal_naming_a_card_twice_is_refused_before_it_is_sent() {
    let mut game = Game::<Ristretto255>::ready(8);
    game.play(Seat::HOST, Action::Draw { count: 1 });
    let card = game.hand(Seat::HOST)[0];
    let result = game.pair.intent(Seat::HOST, Intent::Act(Action::Reveal { cards: vec![card, card], to: None }));
    assert!(matches!(result, Err(IntentError::Invalid(_))), "{result:?}");
    game.pair.drive();
    game.assert_honest();
}

#[test]
fn an_unsigned_message_with_a_bad_body_is_a_sequence_fault_not_the_senders() {
    let (mut game, first, _) = two_host_actions();
    game.deliver(Seat::HOST, bytes(&Envelope { body: b"{not json".to_vec(), signature: vec![0; 64], ..first }));
    let alerts = game.alerts(Seat::GUEST);
    assert_eq!(alerts.len(), 1, "{alerts:?}");
    assert_eq!(alerts[0].kind, AlertKind::Sequence);
}

#[test]
fn a_new_game_asked_for_twice_is_caught() {
    let mut game = Game::<Ristretto255>::ready(8);
    game.pair.intent(Seat::GUEST, Intent::NewGame(None)).expect("the guest may ask");
    game.pair.drive();
    assert!(game.pair.host_events.contains(&Event::NewGameRequested));
    let forged = game.forge_next(Seat::GUEST, &Message::NewGame { loser: None });
    game.deliver(Seat::GUEST, forged.clone());
    game.assert_caught_forgery(Seat::GUEST, &forged, AlertKind::Unexpected);
}

/// The host concedes game 1 and asks for a new game; the guest's request is the next message.
fn host_conceded_and_asked() -> Game<Ristretto255> {
    let mut game = Game::<Ristretto255>::ready(8);
    game.play(Seat::HOST, Action::Concede);
    game.pair.intent(Seat::HOST, Intent::NewGame(None)).expect("the loser may ask");
    game.pair.drive();
    game.pair.intent(Seat::GUEST, Intent::NewGame(None)).expect("the winner may ask");
    game
}

fn chosen_in_game_two(game: &Game<Ristretto255>, seat: Seat) -> Vec<Event> {
    let events = game.pair.events(seat);
    let start = events.iter().position(|e| *e == Event::NewGame { number: 2 }).expect("game 2 started");
    events[start..].iter().filter(|e| matches!(e, Event::Chooser { .. })).cloned().collect()
}

/// The guest's genuine request after it took in the host's concession, and a forgery naming `loser` in its place,
/// delivered: the host, whose concession the guest's own `ack` shows it had, catches the forgery.
fn winner_names(loser: Option<Seat>) {
    let mut game = host_conceded_and_asked();
    let genuine = game.intercept(Seat::GUEST, |m| matches!(m, Message::NewGame { .. }));
    assert_eq!(body::<Ristretto255>(&genuine), Message::NewGame { loser: Some(Seat::HOST) });
    let forged =
        game.substitute(Seat::GUEST, genuine.seq, wire::encode_body(&Message::<Ristretto255>::NewGame { loser }));
    game.deliver(Seat::GUEST, forged.clone());
    game.victim_alone = Some("which losses the victim had told of when");
    let alert = game.assert_caught_forgery(Seat::GUEST, &forged, AlertKind::Unexpected);
    assert!(alert.detail.contains("made it the host"), "{}", alert.detail);
    assert!(!game.pair.host_events.contains(&Event::NewGame { number: 2 }), "no game 2 on a false request");
    // The guest's signed `ack` is in the request: the host's journal alone convicts it (`fairdeck verify`).
    match fairdeck_shared::journal::check::<Ristretto255>(game.engine(Seat::HOST).journal()).unwrap() {
        fairdeck_shared::journal::Verdict::Breach { by, alert: found, .. } => {
            assert_eq!(by, Seat::GUEST);
            assert_eq!(found, alert);
        }
        other => panic!("not a breach: {other:?}"),
    }
}

#[test]
fn a_winner_naming_another_loser_after_taking_in_the_concession_is_caught() {
    let mut control = host_conceded_and_asked();
    control.assert_honest();
    for seat in Seat::BOTH {
        assert_eq!(
            chosen_in_game_two(&control, seat),
            [Event::Chooser { seat: Seat::HOST, by: ChosenBy::Loser }],
            "{seat:?}"
        );
    }
    // The guest, who won, names itself the loser to get the choice, or no one to get the coin.
    winner_names(Some(Seat::GUEST));
    winner_names(None);
}

/// The host concedes and asks for a new game; the guest asks before the concession reaches it. Its request names no
/// loser, truly: a crossing, which brings the coin on both sides and accuses nobody.
#[test]
fn a_new_game_crossing_the_concession_brings_the_coin_and_no_alert() {
    let mut game = Game::<Ristretto255>::ready(8);
    game.act(Seat::HOST, Action::Concede);
    game.pair.intent(Seat::HOST, Intent::NewGame(None)).expect("the loser may ask");
    game.pair.intent(Seat::GUEST, Intent::NewGame(None)).expect("the winner asks before it hears");
    game.assert_honest();
    for seat in Seat::BOTH {
        let chosen = chosen_in_game_two(&game, seat);
        assert!(matches!(chosen[..], [Event::Chooser { by: ChosenBy::Coin, .. }]), "{seat:?}: {chosen:?}");
    }
    assert_eq!(game.engine(Seat::HOST).chooser(), game.engine(Seat::GUEST).chooser());
}

/// A guest that concedes and asks at once counts its own concession: a request naming the host instead is caught.
#[test]
fn a_guest_naming_the_host_the_loser_of_its_own_concession_is_caught() {
    let mut game = Game::<Ristretto255>::ready(8);
    game.act(Seat::GUEST, Action::Concede);
    game.pair.intent(Seat::GUEST, Intent::NewGame(None)).expect("the guest asks at once");
    let genuine = game.intercept(Seat::GUEST, |m| matches!(m, Message::NewGame { .. }));
    assert_eq!(body::<Ristretto255>(&genuine), Message::NewGame { loser: Some(Seat::GUEST) });
    let forged = game.substitute(
        Seat::GUEST,
        genuine.seq,
        wire::encode_body(&Message::<Ristretto255>::NewGame { loser: Some(Seat::HOST) }),
    );
    game.deliver(Seat::GUEST, forged.clone());
    game.victim_alone = Some("which losses the victim had told of when");
    game.assert_caught_forgery(Seat::GUEST, &forged, AlertKind::Unexpected);
}

/// The host claims the guest's forfeit over a strip still on its way; the guest, having taken the claim in, asks for a new
/// game naming no loser: caught. Naming itself, as the honest guest does, is not.
#[test]
fn a_request_ignoring_a_forfeit_claim_it_took_in_is_caught() {
    let claimed = || {
        let mut game = Game::<Ristretto255>::ready(8);
        game.act(Seat::HOST, Action::Draw { count: 2 });
        game.pair.step_from(Seat::HOST);
        // The guest's strip is on its way when the host claims.
        game.pair.intent(Seat::HOST, Intent::ClaimForfeit).expect("the host waits on the guest");
        game.pair.intent(Seat::HOST, Intent::NewGame(None)).expect("the claimant asks");
        while game.pair.step_from(Seat::HOST) {}
        game.pair.intent(Seat::GUEST, Intent::NewGame(None)).expect("the forfeiter asks");
        game
    };
    let mut control = claimed();
    control.pair.drive();
    for seat in Seat::BOTH {
        assert!(game_alerts_none(&control, seat), "{seat:?}: {:?}", control.alerts(seat));
        let chosen = chosen_in_game_two(&control, seat);
        assert_eq!(chosen, [Event::Chooser { seat: Seat::GUEST, by: ChosenBy::Loser }], "{seat:?}");
    }

    let mut game = claimed();
    let genuine = game.intercept(Seat::GUEST, |m| matches!(m, Message::NewGame { .. }));
    assert_eq!(body::<Ristretto255>(&genuine), Message::NewGame { loser: Some(Seat::GUEST) });
    let forged =
        game.substitute(Seat::GUEST, genuine.seq, wire::encode_body(&Message::<Ristretto255>::NewGame { loser: None }));
    game.deliver(Seat::GUEST, forged.clone());
    game.victim_alone = Some("which losses the victim had told of when");
    game.assert_caught_forgery(Seat::GUEST, &forged, AlertKind::Unexpected);
}

fn game_alerts_none(game: &Game<Ristretto255>, seat: Seat) -> bool {
    game.alerts(seat).iter().all(|alert| !alert.kind.is_misbehaviour())
}

/// A loss and the new-game requests, in many delivery orders: each player's intents in its order, interleaved with
/// single deliveries of either direction, chosen by a fixed generator. In every order no honest request is accused,
/// and both engines name the same chooser of game 2; the orders include true crossings (the coin) and requests sent
/// after the loss was known (the loser).
#[test]
fn every_delivery_order_of_a_loss_and_the_requests_agrees_with_no_alert() {
    let draw = Intent::Act(Action::Draw { count: 1 });
    let scenarios: Vec<[Vec<Intent>; 2]> = vec![
        [vec![Intent::Act(Action::Concede), Intent::NewGame(None)], vec![Intent::NewGame(None)]],
        [vec![Intent::NewGame(None)], vec![Intent::Act(Action::Concede), Intent::NewGame(None)]],
        [
            vec![Intent::Act(Action::Concede), Intent::NewGame(None)],
            vec![Intent::Act(Action::Concede), Intent::NewGame(None)],
        ],
        [vec![Intent::EndGame, Intent::NewGame(None)], vec![Intent::Act(Action::Concede), Intent::NewGame(None)]],
        [vec![draw.clone(), Intent::ClaimForfeit, Intent::NewGame(None)], vec![Intent::NewGame(None)]],
        [vec![Intent::NewGame(None)], vec![draw, Intent::ClaimForfeit, Intent::NewGame(None)]],
    ];
    let mut by = BTreeMap::<&str, usize>::new();
    for (number, scenario) in scenarios.iter().enumerate() {
        for order in 0..24u64 {
            let mut game = Game::<Ristretto255>::ready(6);
            let mut next = [0usize; 2];
            let mut state = order.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ number as u64;
            loop {
                state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                let pick = (state >> 33) % 4;
                let seat = if pick.is_multiple_of(2) { Seat::HOST } else { Seat::GUEST };
                let intents = &scenario[slot(seat)];
                if pick < 2 && next[slot(seat)] < intents.len() {
                    // A claim finds nothing to wait for in some orders: refused, and the order goes on.
                    let _ = game.pair.intent(seat, intents[next[slot(seat)]].clone());
                    next[slot(seat)] += 1;
                } else if pick >= 2 {
                    game.pair.step_from(seat);
                } else if next.iter().zip(scenario.iter()).all(|(done, intents)| *done == intents.len()) {
                    break;
                }
            }
            game.pair.drive();
            for seat in Seat::BOTH {
                assert!(
                    game_alerts_none(&game, seat),
                    "scenario {number}, order {order}, {seat:?}: {:?}",
                    game.alerts(seat)
                );
            }
            let chosen = chosen_in_game_two(&game, Seat::HOST);
            assert_eq!(chosen, chosen_in_game_two(&game, Seat::GUEST), "scenario {number}, order {order}");
            match chosen[..] {
                [Event::Chooser { by: ChosenBy::Coin, .. }] => *by.entry("coin").or_default() += 1,
                [Event::Chooser { by: ChosenBy::Loser, .. }] => *by.entry("loser").or_default() += 1,
                _ => panic!("scenario {number}, order {order}: {chosen:?}"),
            }
        }
    }
    assert!(by.get("coin").is_some_and(|n| *n > 10) && by.get("loser").is_some_and(|n| *n > 10), "{by:?}");
}

/// Both players end game 1 (each audits the other's first deck), and game 2 starts with the host playing a Shock in
/// place of one of its cards; the host's new deck is its next message.
fn host_swaps_a_card_in_game_two() -> Game<Ristretto255> {
    let mut game = Game::<Ristretto255>::ready(8);
    for seat in Seat::BOTH {
        game.pair.intent(seat, Intent::EndGame).expect("either may end the game");
    }
    game.pair.drive();
    let mut changed = game.decks[slot(Seat::HOST)].clone();
    changed.library[0].name = "Shock".into();
    game.pair.intent(Seat::HOST, Intent::NewGame(Some(changed))).expect("a new deck");
    game.pair.intent(Seat::GUEST, Intent::NewGame(None)).expect("the same deck");
    game
}

fn host_difference_told(game: &Game<Ristretto255>) -> bool {
    game.pair.guest_events.iter().any(|e| matches!(e, Event::DeckDiffers { seat: Seat::HOST, game: 2, .. }))
}

#[test]
fn a_deck_hiding_its_difference_from_the_first_game_is_caught_at_its_audit() {
    let mut control = host_swaps_a_card_in_game_two();
    control.assert_honest();
    assert!(host_difference_told(&control));
    control.pair.intent(Seat::HOST, Intent::EndGame).expect("the host may end game 2");
    control.assert_honest();

    // The host says its deck is the first game's.
    let mut game = host_swaps_a_card_in_game_two();
    let genuine = game.intercept(Seat::HOST, is_deck);
    let forged = retype::<Ristretto255>(&genuine, |message| {
        let Message::Deck { difference, .. } = message else { unreachable!() };
        assert!(!difference.is_empty(), "the honest host tells its Shock");
        *difference = Default::default();
    });
    let forged = game.substitute(Seat::HOST, genuine.seq, forged);
    game.deliver(Seat::HOST, forged);
    game.drive_as_cheater(Seat::HOST);
    // Its account is all the guest has until the audit: no warning, no alert yet.
    assert!(!host_difference_told(&game));
    assert!(game.alerts(Seat::GUEST).is_empty(), "{:?}", game.alerts(Seat::GUEST));
    game.pair.intent(Seat::HOST, Intent::EndGame).expect("the host may end game 2");
    game.drive_as_cheater(Seat::HOST);
    let alerts = game.alerts(Seat::GUEST);
    assert_eq!(alerts.len(), 1, "{alerts:?}");
    assert_eq!(alerts[0].kind, AlertKind::Unexpected);
    assert!(alerts[0].detail.contains("Shock"), "{}", alerts[0].detail);
    assert_eq!(alerts[0].evidence.as_ref(), game.forged.get(&genuine.seq));
}

#[test]
fn a_deck_key_that_does_not_match_its_commitment_is_caught() {
    let mut game = Game::<Ristretto255>::ready(8);
    let forged = game.forge_next(Seat::GUEST, &Message::Audit { deck_key: Ristretto255::scalar_from_u128(7) });
    game.deliver(Seat::GUEST, forged.clone());
    game.assert_caught_forgery(Seat::GUEST, &forged, AlertKind::BadProof);
}

#[test]
fn a_turn_on_a_table_that_differs_is_caught() {
    // The host's next-turn carries its table's digest; one that is not the guest's table is a desync
    // (or a lie) and stops the game.
    rewrite_body::<Ristretto255>(
        || {
            let mut game = Game::ready(4);
            game.act(Seat::HOST, Action::NextTurn);
            game
        },
        Seat::HOST,
        is_act,
        |_, act| rejson(act, |v| v["digest"] = json!("00".repeat(32))),
        AlertKind::Unexpected,
    );
}

/// A hello whose signing key is weak (the identity point, of small order), with the signature (R = identity,
/// s = 0) that such a key "verifies" for every message under a loose check: refused, and no verdict rests on it.
#[test]
fn a_weak_signing_key_is_refused_and_proves_nothing() {
    let mut game = Game::<Ristretto255>::new(8);
    let genuine = game.intercept(Seat::GUEST, |m| matches!(m, Message::Hello { .. }));
    let mut identity = [0u8; 32];
    identity[0] = 1;
    let body = rejson(&genuine, |v| v["signing_key"] = json!(hex::encode(identity)));
    let ack = wire::Ack { count: genuine.ack, head: [0; 32] };
    let chain = wire::chain_hash(&[0; 32], 0, &ack, &body);
    let mut signature = identity.to_vec();
    signature.extend_from_slice(&[0; 32]);
    let forged = Envelope { seq: 0, ack: genuine.ack, chain, body, signature };
    game.deliver(Seat::GUEST, bytes(&forged));
    let alerts = game.alerts(Seat::HOST);
    assert_eq!(alerts.len(), 1, "{alerts:?}");
    assert_eq!(alerts[0].kind, AlertKind::Sequence, "a weak key is no evidence of a breach: {alerts:?}");
    assert!(alerts[0].detail.contains("weak"), "{alerts:?}");
    assert!(game.engine(Seat::HOST).halted().is_some());
    let verdict = fairdeck_shared::journal::check::<Ristretto255>(game.engine(Seat::HOST).journal()).unwrap();
    assert!(matches!(verdict, fairdeck_shared::journal::Verdict::Inconsistent { .. }), "{verdict:?}");
}

/// A genuine message whose signature's scalar is not reduced (s + ℓ, the group order added): the same signature
/// to a loose check of the equation, so it must be refused, or one message would have two valid signatures.
#[test]
fn a_non_canonical_signature_is_refused() {
    let mut game = Game::<Ristretto255>::ready(8);
    game.act(Seat::HOST, Action::Draw { count: 1 });
    let genuine = game.intercept(Seat::HOST, is_act);
    let mut signature = genuine.signature.clone();
    // ℓ = 2^252 + 27742317777372353535851937790883648493, little-endian.
    let order: [u8; 32] = [
        0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10,
    ];
    let mut carry = 0u16;
    for (byte, add) in signature[32..].iter_mut().zip(order) {
        let sum = u16::from(*byte) + u16::from(add) + carry;
        *byte = sum as u8;
        carry = sum >> 8;
    }
    let forged = Envelope { signature, ..genuine.clone() };
    game.deliver(Seat::HOST, bytes(&forged));
    let alerts = game.alerts(Seat::GUEST);
    assert_eq!(alerts.len(), 1, "{alerts:?}");
    assert_eq!(alerts[0].kind, AlertKind::Sequence, "{alerts:?}");
    assert!(alerts[0].detail.contains("signature"), "{alerts:?}");
}

// ----- issue: smaller openings -----

/// Sideboard cards get their ids in an order of their owner's choosing at random, not the
/// deck list's: one revealed sideboard card says nothing about its neighbours.
#[test]
fn sideboard_ids_do_not_follow_the_deck_list() {
    let mut deck = numbered_deck("Host", 8, 0);
    deck.sideboard = (0..15).map(|i| DeckCard { name: format!("Sideboard {i:02}"), back: 0 }).collect();
    let mut game = Game::<Ristretto255>::with_decks([deck, numbered_deck("Guest", 8, 1)]);
    game.pair.drive();
    let host = game.engine(Seat::HOST);
    let names: Vec<String> = host
        .table()
        .zone(ZoneId::new(Seat::HOST, ZoneKind::Sideboard))
        .iter()
        .map(|id| host.identity(*id).expect("the owner knows its sideboard").name.clone())
        .collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(sorted.len(), 15);
    assert_ne!(names, sorted, "the sideboard's ids follow the deck list");
}

/// While a random card of a hand is being picked, no card of that hand may leave it: whoever
/// learns the pick first cannot move the card away before the round settles.
#[test]
fn a_hand_being_picked_from_at_random_is_pinned_until_the_pick_settles() {
    let mut game = Game::<Ristretto255>::ready(8);
    game.play(Seat::HOST, Action::Draw { count: 3 });
    game.act(Seat::HOST, Action::ShowRandom);
    game.pair.step_from(Seat::HOST);
    let card = game.hand(Seat::HOST)[0];
    let away = Action::Move {
        card,
        to: ZoneId::new(Seat::HOST, ZoneKind::Graveyard),
        position: Position::Top,
        placement: Default::default(),
    };
    for attempt in [away.clone(), Action::Mulligan { draw: 0 }] {
        let refused = game.pair.intent(Seat::HOST, Intent::Act(attempt));
        assert!(
            matches!(&refused, Err(IntentError::Invalid(reason)) if reason.contains("picked from at random")),
            "{refused:?}"
        );
    }
    game.pair.drive();
    assert!(game.pair.host_events.iter().any(|e| matches!(e, Event::ShownAtRandom { .. })));
    game.play(Seat::HOST, away);
    game.assert_honest();
}

/// A forfeit claim when the claimant had every message of the receiver and nothing was under
/// way: nothing was owed, so the claim is false, and caught.
#[test]
fn a_forfeit_claim_when_nothing_was_owed_is_caught() {
    let mut game = Game::<Ristretto255>::ready(8);
    game.play(Seat::HOST, Action::Draw { count: 2 });
    let forged =
        game.forge_next(Seat::GUEST, &Message::ForfeitClaim { awaited: Awaited::Strip { cards: vec![CardId(3)] } });
    game.deliver(Seat::GUEST, forged.clone());
    game.victim_alone = Some("what the victim's engine waited on it for");
    game.assert_caught_forgery(Seat::GUEST, &forged, AlertKind::Unexpected);
}

/// The same claim while the receiver still owes the claimant a strip is reported, not alerted.
#[test]
fn a_forfeit_claim_while_something_is_owed_ends_the_game() {
    let mut game = Game::<Ristretto255>::ready(8);
    game.act(Seat::HOST, Action::Draw { count: 2 });
    game.pair.step_from(Seat::HOST);
    game.pair.queue.retain(|m| m.from != Seat::GUEST); // the guest's strip never arrives
    game.pair.intent(Seat::HOST, Intent::ClaimForfeit).expect("the host waits on the guest");
    game.pair.drive();
    assert!(game.alerts(Seat::GUEST).is_empty(), "{:?}", game.alerts(Seat::GUEST));
    assert!(game.pair.guest_events.iter().any(|e| matches!(e, Event::ForfeitClaimed { by: Seat::HOST, .. })));
}

/// A shuffle step locked with the key 1 hides nothing: refused as stacking.
#[test]
fn a_shuffle_step_with_the_unit_key_is_caught() {
    rewrite_body::<Ristretto255>(
        || Game::new(8),
        Seat::GUEST,
        shuffle_step_of(Seat::HOST),
        |_, step| {
            let generator = serde_json::to_value(Ristretto255::generator()).unwrap();
            rejson(step, |v| v["step"]["fresh"] = generator)
        },
        AlertKind::Stacking,
    );
}

/// After its audit a player takes no more actions: one that comes anyway is caught.
#[test]
fn an_action_after_the_audit_is_caught() {
    let mut game = Game::<Ristretto255>::ready(8);
    game.pair.intent(Seat::GUEST, Intent::EndGame).unwrap();
    game.pair.drive();
    assert!(game.pair.host_events.iter().any(|e| matches!(e, Event::Audited { seat: Seat::GUEST, .. })));
    let seen = game.engine(Seat::HOST).actions_applied();
    let forged = game.forge_next(Seat::GUEST, &Message::Act { action: Action::Draw { count: 1 }, seen, digest: None });
    game.deliver(Seat::GUEST, forged.clone());
    game.assert_caught_forgery(Seat::GUEST, &forged, AlertKind::Unexpected);
}

/// Tokens moved into a library fill it up to the suite's bound and no further: past it, an
/// honest shuffle step of it would no longer fit in a message, so a player could make the
/// opponent's next step unsendable.
#[test]
fn a_library_filled_with_tokens_stops_at_its_bound() {
    let max = wire::max_library_len::<Ristretto255>();
    let mut game = Game::<Ristretto255>::ready(4);
    let token = |n: usize| CardInstance { owner: Seat::HOST, nonce: [0; 16], name: format!("Token {n}"), back: 0 };
    let hand = ZoneId::hand(Seat::HOST);
    for n in 0..=(max - 4) {
        game.pair
            .intent(
                Seat::HOST,
                Intent::Act(Action::AddCard {
                    card: token(n),
                    to: hand,
                    placement: Default::default(),
                    power_toughness: None,
                }),
            )
            .unwrap();
        let id = *game.hand(Seat::HOST).last().unwrap();
        let into_library = Action::Move {
            card: id,
            to: ZoneId::library(Seat::HOST),
            position: Position::Top,
            placement: Default::default(),
        };
        let result = game.pair.intent(Seat::HOST, Intent::Act(into_library.clone()));
        if n < max - 4 {
            result.unwrap();
        } else {
            assert!(matches!(&result, Err(IntentError::Invalid(reason)) if reason.contains("at most")), "{result:?}");
            game.pair.drive();
            assert_eq!(game.library(Seat::HOST).len(), max);
            // The guest takes a forced move for what it is.
            let seen = game.engine(Seat::GUEST).actions_applied();
            let forged = game.forge_next(Seat::HOST, &Message::Act { action: into_library, seen, digest: None });
            game.deliver(Seat::HOST, forged.clone());
            game.assert_caught_forgery(Seat::HOST, &forged, AlertKind::Forbidden);
            return;
        }
        if n % 100 == 0 {
            game.pair.drive();
        }
    }
}

/// At the bound, the opponent's shuffle step of the library fits in one message.
#[test]
fn a_full_library_shuffles_in_one_message() {
    let max = wire::max_library_len::<Ristretto255>();
    let mut game = Game::<Ristretto255>::ready(4);
    let hand = ZoneId::hand(Seat::HOST);
    for n in 0..(max - 4) {
        let card = CardInstance { owner: Seat::HOST, nonce: [0; 16], name: format!("Token {n}"), back: 0 };
        game.pair
            .intent(
                Seat::HOST,
                Intent::Act(Action::AddCard { card, to: hand, placement: Default::default(), power_toughness: None }),
            )
            .unwrap();
        let id = *game.hand(Seat::HOST).last().unwrap();
        let into_library = Action::Move {
            card: id,
            to: ZoneId::library(Seat::HOST),
            position: Position::Top,
            placement: Default::default(),
        };
        game.pair.intent(Seat::HOST, Intent::Act(into_library)).unwrap();
    }
    game.play(Seat::HOST, Action::Shuffle { permutation: None });
    game.assert_honest();
    let largest = game.sent(Seat::GUEST).iter().map(|e| e.body.len()).max().unwrap();
    assert!(largest <= wire::MAX_MESSAGE_LEN, "{largest} bytes");
    assert_eq!(game.library(Seat::HOST).len(), max);
}

/// A strip when no unlock awaits one is refused on its kind alone: its (invalid) elements are
/// never decoded, so the alert is about the kind, not about them.
#[test]
fn a_strip_nothing_awaits_is_refused_before_its_elements_are_read() {
    let mut game = Game::<Ristretto255>::ready(8);
    // A strip's kind, unlock 0, one group, then bytes no element could be.
    let body = [postcard::to_stdvec(&MessageKind::Strip).unwrap(), vec![0, 1], vec![0xff; 40]].concat();
    let forged = game.forge(Seat::GUEST, game.sent(Seat::GUEST).len() as u64, body);
    game.deliver(Seat::GUEST, forged.clone());
    let alert = game.assert_caught_forgery(Seat::GUEST, &forged, AlertKind::Unexpected);
    assert!(alert.detail.contains("nothing awaits"), "{alert:?}");
}

/// A strip far larger than the one card it is owed for is refused on its size, before any of
/// its thousands of elements is validated.
#[test]
fn a_strip_far_larger_than_what_is_owed_is_refused_on_its_size() {
    let mut game = host_draws::<Ristretto255>(8, 1);
    let strip = game.intercept(Seat::GUEST, is_strip);
    let element = serde_json::to_value(Ristretto255::generator()).unwrap();
    let body = rejson(&strip, |v| v["groups"][0]["forms"] = Value::Array(vec![element; 5000]));
    let forged = game.forge(Seat::GUEST, strip.seq, body);
    game.pair.engine_mut(Seat::GUEST).replace_sent_head(strip.seq, wire::decode_envelope(&forged).unwrap().chain);
    game.deliver(Seat::GUEST, forged.clone());
    let alert = game.assert_caught_forgery(Seat::GUEST, &forged, AlertKind::Malformed);
    assert!(alert.detail.contains("more than what is awaited"), "{alert:?}");
}

/// While a new game's deck is awaited, the opponent's messages of the old game are dropped; but
/// one it sent after it had this player's new-game request belongs to the new game, where only
/// its deck may come first.
#[test]
fn a_message_before_the_new_deck_from_a_player_who_had_the_request_is_caught() {
    let mut game = Game::<Ristretto255>::ready(8);
    game.pair.intent(Seat::HOST, Intent::NewGame(None)).unwrap();
    game.pair.intent(Seat::GUEST, Intent::NewGame(None)).unwrap();
    let deck = game.intercept(Seat::GUEST, is_deck);
    assert!(deck.ack > 0);
    let body = wire::encode_body(&Message::<Ristretto255>::Act { action: Action::NextTurn, seen: 0, digest: None });
    let forged = game.forge(Seat::GUEST, deck.seq, body);
    game.deliver(Seat::GUEST, forged.clone());
    game.victim_alone = Some("when the cheater took the victim's request in");
    game.assert_caught_forgery(Seat::GUEST, &forged, AlertKind::Unexpected);
}

/// A halted engine stores nothing more in its journal: neither messages nor intents.
#[test]
fn nothing_is_journaled_after_a_halt() {
    let mut game = Game::<Ristretto255>::ready(8);
    let forged = game.forge_next(Seat::GUEST, &Message::Audit { deck_key: Ristretto255::scalar_from_u128(7) });
    game.deliver(Seat::GUEST, forged.clone());
    assert!(game.engine(Seat::HOST).halted().is_some());
    let kept = game.engine(Seat::HOST).journal().inputs.len();
    game.deliver(Seat::GUEST, forged);
    assert!(game.pair.intent(Seat::HOST, Intent::Ping).is_err());
    assert_eq!(game.engine(Seat::HOST).journal().inputs.len(), kept);
}

/// The host's last action: a card of its hand played face up and tapped. Both undoable.
fn host_taps_a_card() -> Game<Ristretto255> {
    let mut game = Game::<Ristretto255>::ready(8);
    game.play(Seat::HOST, Action::Draw { count: 1 });
    let card = game.hand(Seat::HOST)[0];
    let to = ZoneId::new(Seat::HOST, ZoneKind::Play);
    game.play(Seat::HOST, Action::Move { card, to, position: Position::Top, placement: Placement::default() });
    game.play(Seat::HOST, Action::Tap { card, tapped: true });
    game.assert_honest();
    game
}

#[test]
fn an_undo_nobody_asked_for_is_caught() {
    // The guest undoes the host's tap without the host's asking.
    let mut game = host_taps_a_card();
    let action = game.engine(Seat::GUEST).actions_applied() - 1;
    let seen = game.engine(Seat::GUEST).actions_applied();
    let forged = game.forge_next(Seat::GUEST, &Message::Act { action: Action::Undo { action }, seen, digest: None });
    game.deliver(Seat::GUEST, forged.clone());
    game.assert_caught_forgery(Seat::GUEST, &forged, AlertKind::Forbidden);
}

#[test]
fn a_request_to_undo_a_draw_or_the_other_players_action_is_caught() {
    // A draw cannot be undone: no honest engine asks. Nor does one ask about its opponent's action.
    let mut game = Game::<Ristretto255>::ready(8);
    game.play(Seat::HOST, Action::Draw { count: 1 });
    let action = game.engine(Seat::HOST).actions_applied() - 1;
    let forged = game.forge_next(Seat::HOST, &Message::UndoAsk { action });
    game.deliver(Seat::HOST, forged.clone());
    game.assert_caught_forgery(Seat::HOST, &forged, AlertKind::Unexpected);

    let mut game = host_taps_a_card();
    let action = game.engine(Seat::GUEST).actions_applied() - 1;
    let forged = game.forge_next(Seat::GUEST, &Message::UndoAsk { action });
    game.deliver(Seat::GUEST, forged.clone());
    game.assert_caught_forgery(Seat::GUEST, &forged, AlertKind::Unexpected);
}

#[test]
fn a_request_to_undo_an_action_not_taken_is_caught() {
    let mut game = host_taps_a_card();
    let action = game.engine(Seat::HOST).actions_applied() + 3;
    let forged = game.forge_next(Seat::HOST, &Message::UndoAsk { action });
    game.deliver(Seat::HOST, forged.clone());
    game.assert_caught_forgery(Seat::HOST, &forged, AlertKind::Unexpected);
}
