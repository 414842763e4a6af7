//! The engine harness: two honest engines play a game the input scripts, from one of a few
//! genuine checkpoints (a fresh table, set-up done, cards drawn, a second game of the match),
//! while one of them, the cheater, has some of its messages rewritten on their way.
//!
//! How the cheater signs (as in `shared/tests/tamper.rs`). The cheater's engine plays honestly;
//! each of its messages is sealed again, as it leaves, by a puppet (a copy of the cheater's
//! engine at the checkpoint, so it holds the same signing key and chain): the genuine body, or
//! the body rewritten by the input's edits. Once one message is rewritten, every later one is
//! chained on the rewritten one, and the cheater's engine is told (`replace_sent_head`) so it
//! still takes the victim's acknowledgements. The victim can refuse a rewritten message only
//! for what it says.
//!
//! The input chooses, step by step: which direction delivers its next message (each direction
//! keeps its order, as on the channel, but neither waits for the other), the players' intents
//! (draws, moves into the library and shuffles with their relocks, mulligans, reveals,
//! randomness, the end of a game and its audit, forfeit claims, new games with a sideboarded
//! deck), and which of the cheater's coming messages to rewrite, with what edits.
//!
//! Limited play too: from a booster draft of a small cube (fresh, mid-draft, and drafted), the players take cards,
//! build decks from their pools and play on.
//!
//! What is checked, beyond no panic:
//! - a rewritten proof never verifies: a message whose proven content (elements, proofs,
//!   openings, a deck key) the rewrite changed, or that no longer decodes, is refused with an
//!   alert, or ignored altogether (no event, nothing sent: a message of a game both dropped);
//!   it is never acted on;
//! - no false alert: before the victim took in a rewritten message, neither engine raises a
//!   misbehaviour alert; afterwards the victim's alerts name (as evidence) only a message at or
//!   after the first rewritten one (the later genuine ones may no longer fit what it took in),
//!   and the cheater's only a message the victim sent after taking the rewritten one in;
//! - an honest run (nothing rewritten reached the victim) ends with both tables equal.

use std::collections::BTreeMap;

use fairdeck_shared::Seat;
use fairdeck_shared::crypto::{Dice, Group};
use fairdeck_shared::engine::{Alert, DeckCard, DeckList, Engine, Event, Intent, LimitedConfig, PoolList, PoolSource};
use fairdeck_shared::pair::{InFlight, Pair, numbered_deck};
use fairdeck_shared::table::{Placement, Position, ZoneId, ZoneKind};
use fairdeck_shared::wire::{self, Ack, Action, LimitedFormat, Message, PoolHash, RelockGroup};
use serde_json::{Value, json};

use crate::Choices;

/// The host's engine gets `[SEED; 32]`, the guest's `[SEED + 1; 32]`.
const SEED: u8 = 9;
/// Intents one run may give: each may set off a shuffle's proofs.
const MAX_INTENTS: usize = 12;
/// Messages one run may deliver (a livelock guard; a run of `MAX_INTENTS` sends far fewer).
const MAX_DELIVERIES: usize = 2000;

/// A deck of `library` cards, the last `second_back` of them with another back than the rest,
/// and one sideboard card.
pub fn deck(player: &str, library: usize, second_back: usize) -> DeckList {
    let mut deck = numbered_deck(player, library, 1);
    for card in deck.library.iter_mut().rev().take(second_back) {
        card.back = 1;
    }
    deck
}

/// The same deck after sideboarding: its first library card and its sideboard card swapped.
fn sideboarded(deck: &DeckList) -> DeckList {
    let mut deck = deck.clone();
    std::mem::swap(&mut deck.library[0], &mut deck.sideboard[0]);
    deck
}

/// Genuine games, played once, that each run starts from.
pub struct Checkpoints<G: Group> {
    pairs: Vec<Pair<G>>,
    /// Each player's sideboarded deck, for a new game (host, guest).
    sideboarded: [DeckList; 2],
}

impl<G: Group> Checkpoints<G> {
    /// A fresh table (hellos on their way), set-up done, two cards drawn each, and the set-up
    /// of the match's second game with the guest's deck sideboarded.
    pub fn new(host: DeckList, guest: DeckList) -> Self {
        let sideboarded = [sideboarded(&host), sideboarded(&guest)];
        let mut pair = Pair::<G>::new(host, guest, SEED);
        let mut pairs = vec![pair.clone()];
        pair.drive();
        pairs.push(checked(&pair));
        for seat in Seat::BOTH {
            pair.intent(seat, Intent::Act(Action::Draw { count: 2 })).expect("an honest draw");
            pair.drive();
        }
        pairs.push(checked(&pair));
        pair.intent(Seat::HOST, Intent::NewGame(None)).expect("a new game");
        pair.intent(Seat::GUEST, Intent::NewGame(Some(sideboarded[1].clone()))).expect("a new game");
        pair.drive();
        pairs.push(checked(&pair));
        pairs.extend(limited_checkpoints());
        Checkpoints { pairs, sideboarded }
    }
}

/// A booster draft of a twelve-card cube, one round of two packs of four: fresh, its first packs shown, and both
/// pools drafted.
fn limited_checkpoints<G: Group>() -> Vec<Pair<G>> {
    let cube = PoolList {
        hash: PoolHash([3; 32]),
        source: PoolSource::Cube((0..12).map(|i| format!("Cube card {i}")).collect()),
    };
    let host = LimitedConfig { pool: cube.clone(), format: Some(LimitedFormat::Draft { packs: 1, cards: 4 }) };
    let mut pair = Pair::<G>::limited(host, LimitedConfig { pool: cube, format: None }, SEED);
    let mut pairs = vec![pair.clone()];
    pair.drive();
    pairs.push(pair.clone());
    while Seat::BOTH.into_iter().any(|seat| pool(&pair, seat).is_none()) {
        for seat in Seat::BOTH {
            let _ = pair.intent(seat, Intent::TakeCard(0));
        }
        pair.drive();
    }
    for pair in &pairs {
        assert!(Seat::BOTH.into_iter().all(|seat| misbehaviour(pair.events(seat)).is_empty()));
    }
    pairs.push(pair);
    pairs
}

/// `seat`'s pool, once drafted.
fn pool<G: Group>(pair: &Pair<G>, seat: Seat) -> Option<&Vec<String>> {
    pair.events(seat).iter().find_map(|event| match event {
        Event::Pool { cards } => Some(cards),
        _ => None,
    })
}

/// A checkpoint: set-up done and nothing amiss.
fn checked<G: Group>(pair: &Pair<G>) -> Pair<G> {
    for seat in Seat::BOTH {
        assert!(pair.engine(seat).is_ready(), "{seat:?} is not ready at a checkpoint");
        assert!(misbehaviour(pair.events(seat)).is_empty(), "an alert at a checkpoint");
    }
    pair.clone()
}

fn misbehaviour(events: &[Event]) -> Vec<&Alert> {
    events
        .iter()
        .filter_map(|event| match event {
            Event::Alert(alert) if alert.kind.is_misbehaviour() => Some(alert),
            _ => None,
        })
        .collect()
}

/// One edit of a body: `(kind, position, value)` as the input gave it.
type Edit = (u8, u16, u8);

fn apply(body: &mut Vec<u8>, (kind, at, value): Edit) {
    let len = body.len();
    let at = usize::from(at) % (len + 1);
    match kind % 6 {
        0 if at < len => body[at] = value,
        1 if at < len => body[at] ^= value.max(1),
        2 => body.insert(at, value),
        3 if at < len => {
            body.remove(at);
        }
        4 => body.truncate(at),
        5 => {
            // Two blocks of an element's or a scalar's length swapped: one card's form for
            // another's, a proof's scalars exchanged.
            let block = if value & 0x80 == 0 { 32 } else { 256 };
            let other = at + block * (usize::from(value & 0x7f) + 1);
            if other + block <= len {
                let (head, tail) = body.split_at_mut(other);
                head[at..at + block].swap_with_slice(&mut tail[..block]);
            }
        }
        _ => {}
    }
}

/// The proven content of a message: what its receiver checks against commitments and proofs
/// as it takes it in (not the deck's key commitment, backs or catalogue, nor a random
/// commitment: those are checked only later, against what they commit to).
fn proven<G: Group>(message: &Message<G>) -> Value {
    let relocks =
        |groups: &[RelockGroup<G>]| -> Value { groups.iter().map(|group| json!([group.forms, group.proof])).collect() };
    match message {
        Message::Deck { base_key, proof, library, sideboard, .. } => {
            let elements: Vec<&G::Element> = library.iter().chain(sideboard).map(|(element, _)| element).collect();
            json!([base_key, proof, elements])
        }
        Message::Strip { groups, .. } => groups.iter().map(|group| json!([group.forms, group.proof])).collect(),
        Message::Relock { relock, .. } => relocks(relock),
        Message::ShuffleStep { step } => json!([relocks(&step.relock), step.fresh, step.shuffles, step.combined]),
        Message::RandomOpen { opening, .. } => json!(opening),
        Message::Audit { deck_key } => json!(deck_key),
        Message::StackShuffle { shuffles, .. } => json!(shuffles),
        Message::StackDeal { forms, proof, .. }
        | Message::GridReveal { forms, proof, .. }
        | Message::StackReveal { forms, proof, .. } => json!([forms, proof]),
        Message::PoolShuffle { shuffle, forms, proof, .. } => json!([shuffle, forms, proof]),
        Message::PoolDeck { forms, pool_proof, basic_proof, .. } => json!([forms, pool_proof, basic_proof]),
        _ => Value::Null,
    }
}

/// Whether a rewrite must be refused: the body no longer decodes, or it is still a message of
/// the same kind with other proven content.
fn proof_changed<G: Group>(genuine: &[u8], sent: &[u8]) -> bool {
    let genuine: Message<G> = wire::decode_body(genuine).expect("a genuine body decodes");
    match wire::decode_body::<G>(sent) {
        Err(_) => true,
        Ok(sent) => sent.kind() == genuine.kind() && proven(&sent) != proven(&genuine),
    }
}

/// A cheater's message as the victim got it, rewritten.
struct Rewrite {
    seq: u64,
    genuine: Vec<u8>,
    sent: Vec<u8>,
}

struct Run<'a, G: Group> {
    pair: Pair<G>,
    sideboarded: &'a [DeckList; 2],
    cheater: Seat,
    /// Seals the cheater's messages from `next_seal` on.
    puppet: Engine<G>,
    next_seal: u64,
    /// The edits of the cheater's messages, by message number.
    rewrites: BTreeMap<u64, Vec<Edit>>,
    /// The first of the cheater's messages the victim took in rewritten.
    first_rewritten: Option<u64>,
    deliveries: usize,
}

impl<G: Group> Run<'_, G> {
    fn victim(&self) -> Seat {
        self.cheater.opponent()
    }

    /// The cheater's message, sealed again by the puppet with its edits, if any.
    fn reseal(&mut self, bytes: Vec<u8>) -> (Vec<u8>, Option<Rewrite>) {
        let envelope = wire::decode_envelope(&bytes).expect("engines send valid envelopes");
        if envelope.seq < self.next_seal {
            // Sealed before the checkpoint: it goes as it is.
            return (bytes, None);
        }
        debug_assert_eq!(envelope.seq, self.next_seal, "each direction is delivered in order");
        let mut body = envelope.body.clone();
        for edit in self.rewrites.get(&envelope.seq).into_iter().flatten() {
            apply(&mut body, *edit);
        }
        let victim = self.victim();
        let head = envelope.ack.checked_sub(1).map_or([0; 32], |last| {
            let mut sent = self.pair.engine(victim).record().iter().filter(|(from, _)| *from == victim);
            sent.nth(last as usize).expect("the cheater acknowledges only what the victim sent").1.chain
        });
        self.puppet.send_unchecked(body.clone(), Ack { count: envelope.ack, head });
        let sealed = self.puppet.poll_transmit().expect("the puppet sealed");
        let chain = wire::decode_envelope(&sealed).expect("the puppet seals valid envelopes").chain;
        self.pair.engine_mut(self.cheater).replace_sent_head(envelope.seq, chain);
        self.next_seal += 1;
        let rewrite =
            (body != envelope.body).then(|| Rewrite { seq: envelope.seq, genuine: envelope.body, sent: body });
        (sealed, rewrite)
    }

    /// Delivers the oldest message on its way from `from`, and checks what its receiver made
    /// of it. False when `from` has nothing on its way.
    fn deliver(&mut self, from: Seat) -> bool {
        let Some(message) =
            self.pair.queue.iter().position(|message| message.from == from).and_then(|at| self.pair.queue.remove(at))
        else {
            return false;
        };
        self.deliveries += 1;
        let receiver = from.opponent();
        let (bytes, rewrite) = if from == self.cheater { self.reseal(message.bytes) } else { (message.bytes, None) };
        if let Some(rewrite) = &rewrite {
            self.first_rewritten.get_or_insert(rewrite.seq);
        }
        let halted_before = self.pair.engine(receiver).halted().is_some();
        let events_before = self.pair.events(receiver).len();
        let sending = |pair: &Pair<G>| pair.queue.iter().filter(|message| message.from == receiver).count();
        let sent_before = sending(&self.pair);
        self.pair.deliver(InFlight { from, bytes });
        let events = &self.pair.events(receiver)[events_before..];
        let alerts = misbehaviour(events);

        for alert in &alerts {
            let excused = match self.first_rewritten {
                None => false,
                // The first rewritten message may set the two engines apart: any later message of the
                // cheater's may no longer fit what the victim took in.
                Some(first) if receiver == self.victim() => alert.evidence.as_ref().is_none_or(|e| e.seq >= first),
                // The victim's messages sent after it took the rewritten one in.
                Some(first) => alert.evidence.as_ref().is_none_or(|e| e.ack > first),
            };
            assert!(
                excused,
                "false alert: {receiver:?} raised {alert:?}, first rewritten message {:?} of the {:?}",
                self.first_rewritten, self.cheater
            );
        }

        if let Some(rewrite) = rewrite
            && !halted_before
            && alerts.is_empty()
            && proof_changed::<G>(&rewrite.genuine, &rewrite.sent)
        {
            let acted = !events.is_empty() || sending(&self.pair) > sent_before;
            assert!(
                !acted,
                "a rewritten proof verified: message {} of the {:?} was taken without an alert, giving {events:?}",
                rewrite.seq, self.cheater
            );
        }
        true
    }

    /// Delivers everything on its way, in the order it was sent.
    fn drain(&mut self) {
        while self.deliveries < MAX_DELIVERIES
            && let Some(front) = self.pair.queue.front()
        {
            let from = front.from;
            self.deliver(from);
        }
    }

    /// An intent of `seat`'s player, chosen by the input; a refused one changes nothing.
    fn intent(&mut self, seat: Seat, choices: &mut Choices) {
        let opponent = seat.opponent();
        let table = self.pair.engine(seat).table();
        let hand = table.zone(ZoneId::hand(seat));
        let pick = choices.byte();
        let hand_card = (!hand.is_empty()).then(|| hand[usize::from(pick) % hand.len()]);
        let play = table.zone(ZoneId::new(seat, ZoneKind::Play));
        let played = (!play.is_empty()).then(|| play[usize::from(pick) % play.len()]);
        let move_to = |to: ZoneId, face_down: bool| {
            hand_card.map(|card| Action::Move {
                card,
                to,
                position: Position::Top,
                placement: Placement { x: 1, y: 1, face_down },
            })
        };
        let intent = match choices.below(23) {
            0 => Intent::Act(Action::Draw { count: 1 + u32::from(pick % 3) }),
            // A card back into the library: its next shuffle relocks first.
            1 => match move_to(ZoneId::library(seat), false) {
                Some(action) => Intent::Act(action),
                None => return,
            },
            2 => match move_to(ZoneId::new(seat, ZoneKind::Play), pick & 1 == 1) {
                Some(action) => Intent::Act(action),
                None => return,
            },
            3 => match move_to(ZoneId::new(seat, ZoneKind::Graveyard), false) {
                Some(action) => Intent::Act(action),
                None => return,
            },
            4 => Intent::Act(Action::Shuffle { permutation: None }),
            5 => Intent::Act(Action::Mulligan { draw: u32::from(pick % 3) }),
            6 => Intent::Act(Action::Peek { count: 1 + u32::from(pick % 2), purpose: Default::default() }),
            7 => Intent::Act(Action::TakeFromLibrary { count: 1 }),
            8 => match hand_card {
                Some(card) => {
                    Intent::Act(Action::Reveal { cards: vec![card], to: (pick & 1 == 1).then_some(opponent) })
                }
                None => return,
            },
            9 => Intent::Act(Action::ShowRandom),
            10 => Intent::Act(Action::Roll { dice: Dice::new(1 + u32::from(pick % 2), 6).expect("valid dice") }),
            11 => Intent::Act(Action::Flip),
            12 => Intent::Act(Action::NextTurn),
            13 if pick & 1 == 0 => Intent::Chat("good game".into()),
            13 => Intent::Ping,
            14 if pick & 1 == 0 => Intent::RequestReveal { zone: ZoneId::hand(opponent), count: None },
            14 => Intent::RefuseReveal { zone: ZoneId::hand(seat) },
            15 => Intent::EndGame,
            16 => Intent::ClaimForfeit,
            17 => Intent::ClaimAbandoned,
            18 if pick & 1 == 0 => Intent::NewGame(None),
            18 => Intent::NewGame(Some(self.sideboarded[usize::from(seat == Seat::GUEST)].clone())),
            19 => Intent::TakeCard(u32::from(pick % 5)),
            // Undo by consent: asking often fails (the last action is not undoable, or not this player's).
            21 if pick & 1 == 0 => Intent::AskUndo,
            21 => Intent::AnswerUndo(pick & 2 == 0),
            // A deck of the first cards of the pool and Mountains.
            20 => match pool(&self.pair, seat) {
                Some(cards) => {
                    let spells = cards.iter().take(1 + usize::from(pick % 3)).map(String::as_str);
                    let names = spells.chain(std::iter::repeat_n("Mountain", 5));
                    let library = names.map(|name| DeckCard { name: name.into(), back: 0 }).collect();
                    Intent::Build(DeckList { library, sideboard: vec![], commander: vec![], label: "draft".into() })
                }
                None => return,
            },
            _ => match (pick % 4, played) {
                (0, _) => Intent::Act(Action::Concede),
                (1, _) => Intent::Act(Action::PlayOrDraw { play: pick & 4 == 0 }),
                (2, Some(card)) => Intent::Act(Action::Tap { card, tapped: pick & 4 == 0 }),
                _ => Intent::Act(Action::SetPlayerValue { key: "life".into(), value: i64::from(pick) }),
            },
        };
        let _refused_intents_change_nothing = self.pair.intent(seat, intent);
    }
}

/// One run: a checkpoint, a cheater, then steps until the input ends; everything still on its
/// way is delivered at the end.
pub fn run<G: Group>(checkpoints: &Checkpoints<G>, data: &[u8]) {
    let mut choices = Choices::new(data);
    let pair = checkpoints.pairs[choices.below(checkpoints.pairs.len())].clone();
    let cheater = if choices.flag() { Seat::GUEST } else { Seat::HOST };
    let puppet = pair.engine(cheater).clone();
    let next_seal = puppet.record().iter().filter(|(from, _)| *from == cheater).count() as u64;
    let mut run = Run {
        pair,
        sideboarded: &checkpoints.sideboarded,
        cheater,
        puppet,
        next_seal,
        rewrites: BTreeMap::new(),
        first_rewritten: None,
        deliveries: 0,
    };
    let mut intents = 0;
    while !choices.is_empty() && run.deliveries < MAX_DELIVERIES {
        match choices.below(8) {
            0 => {
                run.deliver(Seat::HOST);
            }
            1 => {
                run.deliver(Seat::GUEST);
            }
            2 => {
                for _ in 0..4 {
                    let Some(front) = run.pair.queue.front() else { break };
                    let from = front.from;
                    run.deliver(from);
                }
            }
            3 | 4 if intents < MAX_INTENTS => {
                intents += 1;
                let seat = if choices.flag() { Seat::GUEST } else { Seat::HOST };
                run.intent(seat, &mut choices);
            }
            5 | 6 => {
                // One of the cheater's next few messages, sealed or not yet.
                let seq = run.next_seal + choices.below(4) as u64;
                let count = 1 + choices.below(4);
                let edits = run.rewrites.entry(seq).or_default();
                for _ in 0..count {
                    edits.push((choices.byte(), choices.u16(), choices.byte()));
                }
            }
            _ => run.drain(),
        }
    }
    run.drain();
    if run.first_rewritten.is_none() && run.pair.queue.is_empty() {
        assert_eq!(run.pair.host.table(), run.pair.guest.table(), "honest play, yet the tables differ");
    }
}
