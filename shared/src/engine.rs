//! The table engine: one state machine per player, fed local intents and received messages,
//! giving back messages to send and events for the interface. No I/O, no clock, no OS
//! randomness: the same engine runs in the client, the tests and the benchmarks.
//!
//! How to drive it: call [`Engine::handle_intent`] or [`Engine::handle_message`], then drain
//! [`Engine::poll_transmit`] (send each in order) and [`Engine::poll_event`] until both
//! return `None`.
//!
//! Order. Table actions are applied by both engines in one order, the host's: the host's
//! actions take effect when sent; the guest's are proposals that take effect when the host
//! accepts them. Cryptographic replies (strips, shuffle steps, commit–reveal) do not change
//! the order of anything, so they flow freely.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

use ed25519_dalek::{SigningKey, VerifyingKey};
use rand_chacha::ChaCha20Rng;
use rand_core::{Rng, SeedableRng};
use sha2::{Digest, Sha256};

use crate::crypto::SharedSeed;
use crate::crypto::{
    AwaitingOpening, BackId, CardInstance, Catalogue, Coin, Dice, DleqProof, Group, KeyCommitment, LockKey,
    MAX_NAME_LEN, PendingShuffle, ProofContext, SharedRandom, ShuffleChallenge, Soundness, random_permutation,
};
use crate::hash_rng::HashRng;
use crate::ids::{GameId, Seat};
use crate::journal::{Input, JOURNAL_FORMAT, Journal};
use crate::table::{Card, CardId, GUEST_CARD_OFFSET, Knowledge, Placement, Position, Table, ZoneId, ZoneKind};
use crate::wire::{
    self, Action, Envelope, KeyRef, MAX_TEXT_LEN, Message, PROTOCOL_VERSION, RelockGroup, ShuffleStep, Stream,
    StripGroup, TableDigest, WireError,
};

/// Set-up is done when both libraries are shuffled.
const SETUP_SHUFFLES: u32 = 2;

/// A card of a deck list.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DeckCard {
    pub name: String,
    pub back: BackId,
}

/// What a player brings to the table.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DeckList {
    pub library: Vec<DeckCard>,
    pub sideboard: Vec<DeckCard>,
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct EngineConfig {
    pub name: String,
    /// Program name and version, shown to the opponent.
    pub software: String,
}

/// What a forfeit claim says was awaited when the opponent left the game and never came back.
pub const ABANDONED: &str = "its return to the game";

/// What the local player wants to do.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "intent", content = "with", rename_all = "kebab-case")]
pub enum Intent {
    Act(Action),
    Chat(String),
    Ping,
    /// Ask the opponent to show cards of one of their zones.
    RequestReveal {
        zone: ZoneId,
        count: Option<u32>,
    },
    RefuseReveal {
        zone: ZoneId,
    },
    /// End the game: reveal this player's deck key so the opponent can audit the deck.
    /// No action is taken afterwards.
    EndGame,
    /// The opponent has stopped answering an exchange that waits on it
    /// (`Engine::awaiting_opponent`): end the game, and record that the opponent forfeits it
    /// (DESIGN: refusing to reveal is a forfeit). Refused when nothing waits on the opponent.
    ClaimForfeit,
    /// The opponent left the game and has not come back (the client knows: the relay says its seat is
    /// empty): end the game, and record that the opponent forfeits it by its absence. The client asks this
    /// only while the opponent is away; the engine cannot tell.
    ClaimAbandoned,
    /// Ask for a new game against the same opponent, with a new deck (after sideboarding)
    /// or, with `None`, the same one. It starts when both players have asked; until then
    /// the game goes on.
    NewGame(Option<DeckList>),
}

/// What happened, for the interface.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// The opponent's hello arrived.
    Connected {
        name: String,
        software: String,
    },
    /// Set-up advanced: libraries locked, shuffled and verified so far.
    SetupProgress {
        done: u32,
        total: u32,
    },
    /// Both libraries are shuffled: play can start.
    Ready,
    /// An action took effect on the table (number `number` in the game's order).
    Applied {
        number: u64,
        by: Seat,
        action: Action,
    },
    /// The host refused this player's action.
    Rejected {
        action: Action,
        reason: String,
    },
    /// This player now knows what card `card` is.
    Learned {
        card: CardId,
        instance: CardInstance,
    },
    /// A library's shuffle (with its proofs) is complete.
    Shuffled {
        library: Seat,
    },
    Rolled {
        by: Seat,
        dice: Dice,
        faces: Vec<u32>,
    },
    Flipped {
        by: Seat,
        coin: Coin,
    },
    /// The random card of a "show random card" action.
    ShownAtRandom {
        by: Seat,
        card: CardId,
    },
    Chat {
        from: Seat,
        text: String,
    },
    Pong,
    RevealRequested {
        zone: ZoneId,
        count: Option<u32>,
    },
    RevealRefused {
        zone: ZoneId,
    },
    /// A player claimed that the other one forfeits the game, having stopped answering
    /// `awaited`. The game is over for both; the claim is in the record.
    ForfeitClaimed {
        by: Seat,
        awaited: String,
    },
    /// The opponent asked for a new game; it starts when this player asks too.
    NewGameRequested,
    /// Both players asked: game `number` of the match starts with its set-up (each player's
    /// new deck, then the shuffles); the previous game's table, cards and keys are gone.
    NewGame {
        number: u32,
    },
    /// The opponent ended the game, and its whole deck checked out against its catalogue.
    Audited {
        seat: Seat,
        deck: Vec<CardInstance>,
    },
    Alert(Alert),
}

/// Something the opponent did that the player must know about, with its evidence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Alert {
    pub kind: AlertKind,
    /// What exactly was wrong.
    pub detail: String,
    /// The opponent's signed message it is about, when there is one: with the opponent's
    /// signing key from `hello`, anyone can check that they sent it.
    pub evidence: Option<Envelope>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AlertKind {
    /// Undecodable message, or an invalid group element in it.
    Malformed,
    /// Replayed, reordered, unchained or unsigned message.
    Sequence,
    /// A proof did not verify.
    BadProof,
    /// A message that does not fit the state of the table.
    Unexpected,
    /// An action the protocol forbids (e.g. touching this player's library).
    Forbidden,
    /// A shuffle of a library someone knows cards of, without fresh locks.
    Stacking,
    /// A revealed card that is not in its owner's sealed deck list.
    NotInDeck,
    /// The opponent asked to see this player's hidden cards, or took one.
    LookedAtYourCards,
    /// The opponent moved this player's cards.
    MovedYourCards,
    /// Incompatible protocol or suite.
    Incompatible,
}

impl AlertKind {
    /// Misbehaviour stops the game: nothing the offender sends afterwards is applied.
    pub fn is_misbehaviour(self) -> bool {
        !matches!(self, AlertKind::LookedAtYourCards | AlertKind::MovedYourCards)
    }

    /// Whether an alert of this kind, raised on a signed message, convicts its sender. A
    /// message out of sequence proves nothing about who made it, and an incompatible hello is
    /// a game that could not be played, not a breach (a journal edited to another suite or seat
    /// makes a genuine hello look so).
    pub fn is_breach(self) -> bool {
        self.is_misbehaviour() && !matches!(self, AlertKind::Sequence | AlertKind::Incompatible)
    }
}

/// Why a local intent was refused (nothing was sent).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum IntentError {
    #[error("the table is not ready yet")]
    NotReady,
    #[error("the game has stopped: {0}")]
    Halted(String),
    #[error("{0}")]
    Invalid(String),
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DeckError {
    #[error("a deck needs at least one library card")]
    Empty,
    #[error("a deck holds at most {0} cards with this suite")]
    TooLarge(usize),
    #[error(
        "card name {0:?} is empty, longer than {MAX_NAME_LEN} bytes, or too long to seal (quotes, backslashes and control characters count double or more)"
    )]
    BadName(String),
}

/// A card's current cryptographic form: the element everyone sees, and whose layers are on it.
#[derive(Clone, Debug)]
struct Form<G: Group> {
    element: G::Element,
    layers: [Option<KeyRef>; 2],
}

fn index(seat: Seat) -> usize {
    match seat {
        Seat::Host => 0,
        Seat::Guest => 1,
    }
}

/// Cards being unlocked: each holder strips its cards in turn, then the learners read them.
///
/// Everything here is planned when the action is applied, in the game's order, from the
/// *planned* layers (what will be left once every earlier unlock is done), so both engines
/// plan alike however their messages interleave. Unlocks of one card then run first-come,
/// first-served.
#[derive(Clone, Debug)]
struct Unlock {
    cards: Vec<CardId>,
    steps: VecDeque<(Seat, Vec<CardId>)>,
    learners: Vec<Knowledge>,
}

#[cfg_attr(fuzzing, derive(Clone))]
enum ShuffleStage<G: Group> {
    /// The next stepper has not sent its step yet.
    Waiting,
    /// This engine sent its step and waits for the challenge.
    Committed {
        pendings: Vec<PendingShuffle<G>>,
        new_key: LockKey<G>,
        new_ref: KeyRef,
        outputs: Vec<(CardId, G::Element)>,
    },
    /// This engine received a step and sent a challenge.
    Challenged { step: ShuffleStep<G>, groups: Vec<BackGroup<G>>, challenge: ShuffleChallenge },
}

/// The cards of one back in a library, as a shuffle step takes them.
#[cfg_attr(fuzzing, derive(Clone))]
struct BackGroup<G: Group> {
    cards: Vec<CardId>,
    inputs: Vec<G::Element>,
    context: ProofContext,
}

/// Where the backs of a library lie after a shuffle run.
#[cfg_attr(fuzzing, derive(Clone))]
enum Arrangement {
    /// One back only: nothing to draw.
    Single,
    /// Drawn in common by a random round that has not settled yet.
    Drawing,
    /// The library's new order (`Table::permute`), which puts its backs where the random
    /// round drew them.
    Drawn(Vec<u32>),
}

/// Random rounds that arrange a library's backs are numbered apart from the actions' rounds.
const ARRANGEMENT_ROUNDS: u64 = 1 << 63;

#[cfg_attr(fuzzing, derive(Clone))]
struct ShuffleRun<G: Group> {
    /// A player who must first relock its stale cards: every permutation needs both
    /// players' layers uniform across the library, or layers would follow the wrong cards.
    relock_first: Option<Seat>,
    steps: VecDeque<Seat>,
    stage: ShuffleStage<G>,
    arrangement: Arrangement,
    /// This player's last shuffle response in the run, by message number: the host completes
    /// the run only once it has it.
    own_response: Option<u64>,
}

#[cfg_attr(fuzzing, derive(Clone))]
enum RandomKind {
    Roll(Dice),
    Flip,
    ShowRandom(Vec<CardId>),
    /// Where the backs of a library with several backs lie after its shuffle run.
    Arrangement(Seat),
}

#[cfg_attr(fuzzing, derive(Clone))]
enum RandomStage {
    Committed {
        mine: SharedRandom,
    },
    Opened {
        waiting: AwaitingOpening,
    },
    /// The guest has the outcome and waits for the host to place it in the game's order.
    Settled {
        seed: SharedSeed,
    },
}

#[cfg_attr(fuzzing, derive(Clone))]
struct RandomRound {
    by: Seat,
    kind: RandomKind,
    stage: Option<RandomStage>,
}

/// A failed check of an action: forbidden whatever the timing, or merely out of date.
struct ActionError {
    forbidden: bool,
    reason: String,
}

impl ActionError {
    fn forbidden(reason: impl Into<String>) -> Self {
        ActionError { forbidden: true, reason: reason.into() }
    }
    fn stale(reason: impl Into<String>) -> Self {
        ActionError { forbidden: false, reason: reason.into() }
    }
}

/// An alert raised while handling a message, before it is given its evidence.
struct Fault {
    kind: AlertKind,
    detail: String,
}

impl Fault {
    fn new(kind: AlertKind, detail: impl Into<String>) -> Self {
        Fault { kind, detail: detail.into() }
    }
}

impl From<WireError> for Fault {
    fn from(error: WireError) -> Self {
        let kind = match error {
            // A weak key's signatures prove nothing: like a bad signature, no verdict can rest on it.
            WireError::Sequence { .. }
            | WireError::Chain
            | WireError::Signature
            | WireError::WeakKey
            | WireError::Ack { .. } => AlertKind::Sequence,
            _ => AlertKind::Malformed,
        };
        Fault::new(kind, error.to_string())
    }
}

#[cfg_attr(fuzzing, derive(Clone))]
pub struct Engine<G: Group> {
    seat: Seat,
    config: EngineConfig,
    rng: ChaCha20Rng,
    signing: SigningKey,
    nonce: [u8; 32],
    deck: DeckList,
    outgoing: Stream,
    incoming: Stream,
    /// The chain hash of each message this engine sent, by number.
    sent_heads: Vec<[u8; 32]>,
    /// How many of this engine's messages the opponent last said it had taken in.
    peer_ack: u64,
    peer_key: Option<VerifyingKey>,
    peer_nonce: Option<[u8; 32]>,
    halted: Option<String>,
    record: Vec<(Seat, Envelope)>,
    /// Everything this engine was given, to run it again (`journal::check`).
    journal: Journal,
    transmits: VecDeque<Vec<u8>>,
    events: VecDeque<Event>,
    /// Everything of the game being played, dropped when a new game starts.
    game: GameState<G>,
    /// This player asked for a new game, and whether the opponent did.
    new_game_asked: bool,
    new_game_offered: bool,
    /// A new game started here but the opponent's new `deck` has not come yet: what it sent
    /// before that belongs to the game both dropped.
    awaiting_new_deck: bool,
    /// The number of this player's last `new-game` message: the opponent's messages that
    /// acknowledge it were sent in the new game.
    new_game_request: Option<u64>,
}

/// One game of a match: its table, keys, cards and exchanges.
#[cfg_attr(fuzzing, derive(Clone))]
struct GameState<G: Group> {
    /// 1 for the first game of a match, then 2, 3…
    number: u32,
    game_id: Option<GameId>,
    table: Table,
    forms: HashMap<CardId, Form<G>>,
    /// Each card's layers once every unlock planned so far is done.
    planned: HashMap<CardId, [Option<KeyRef>; 2]>,
    keys: HashMap<KeyRef, LockKey<G>>,
    commitments: HashMap<KeyRef, KeyCommitment<G>>,
    current_keys: HashMap<(Seat, Seat), u32>,
    catalogues: HashMap<Seat, Catalogue>,
    /// The envelope that carried each seat's deck: the evidence for its catalogue.
    deck_envelopes: HashMap<Seat, Envelope>,
    /// Each seat's locked deck as it was sent, for the end-of-game audit.
    deck_elements: HashMap<Seat, Vec<(G::Element, BackId)>>,
    /// This player ended the game and revealed its deck key.
    ended: bool,
    /// The opponent ended the game (its audit or forfeit claim): it takes no more actions.
    peer_ended: bool,
    identities: HashMap<CardId, CardInstance>,
    unlocks: BTreeMap<u64, Unlock>,
    shuffles: BTreeMap<Seat, ShuffleRun<G>>,
    randoms: BTreeMap<u64, RandomRound>,
    /// The guest's proposals awaiting the host's answer, by message number.
    proposals: BTreeMap<u64, Action>,
    actions_applied: u64,
    /// Cards to draw once this player's mulligan shuffle is done.
    mulligan_draw: Option<u32>,
    /// Tokens, public from their creation: read by point like catalogue entries.
    tokens: HashMap<G::Element, CardInstance>,
    setup_done: BTreeSet<Seat>,
    ready: bool,
    /// The guest's library reorders that its own shuffle response completed, which the host
    /// applies only once that response reaches it: the turn digest is compared as the host saw
    /// the table (`digest_as_host_saw`).
    unseen_reorders: Vec<UnseenReorder>,
}

/// A library order the host had not yet seen changed: `library` was in order `before` until
/// this player's message `seq` completed its shuffle run.
#[cfg_attr(fuzzing, derive(Clone))]
struct UnseenReorder {
    seq: u64,
    library: Seat,
    before: Vec<CardId>,
}

impl<G: Group> GameState<G> {
    fn new(number: u32, game_id: Option<GameId>) -> Self {
        GameState {
            number,
            game_id,
            table: Table::new(),
            forms: Default::default(),
            planned: Default::default(),
            keys: Default::default(),
            commitments: Default::default(),
            current_keys: Default::default(),
            catalogues: Default::default(),
            deck_envelopes: Default::default(),
            deck_elements: Default::default(),
            ended: false,
            peer_ended: false,
            identities: Default::default(),
            unlocks: Default::default(),
            shuffles: Default::default(),
            randoms: Default::default(),
            proposals: Default::default(),
            actions_applied: 0,
            mulligan_draw: None,
            tokens: Default::default(),
            setup_done: Default::default(),
            ready: false,
            unseen_reorders: Vec::new(),
        }
    }
}

impl<G: Group> Engine<G> {
    /// A new engine for `seat`. Its randomness (keys, nonces, permutations) all comes from
    /// `rng_seed`: the client seeds it from the operating system, tests fix it.
    pub fn new(seat: Seat, config: EngineConfig, deck: DeckList, rng_seed: [u8; 32]) -> Result<Self, DeckError> {
        check_deck::<G>(&deck)?;
        let mut rng = ChaCha20Rng::from_seed(rng_seed);
        let mut signing_seed = [0u8; 32];
        rng.fill_bytes(&mut signing_seed);
        let signing = SigningKey::from_bytes(&signing_seed);
        let mut nonce = [0u8; 32];
        rng.fill_bytes(&mut nonce);
        let journal = Journal {
            format: JOURNAL_FORMAT,
            suite: G::SUITE,
            seat,
            config: config.clone(),
            deck: deck.clone(),
            rng_seed,
            inputs: Vec::new(),
        };
        let mut engine = Engine {
            seat,
            config,
            rng,
            signing,
            nonce,
            deck,
            outgoing: Stream::new(),
            incoming: Stream::new(),
            sent_heads: Vec::new(),
            peer_ack: 0,
            peer_key: None,
            peer_nonce: None,
            halted: None,
            record: Vec::new(),
            journal,
            transmits: VecDeque::new(),
            events: VecDeque::new(),
            game: GameState::new(1, None),
            new_game_asked: false,
            new_game_offered: false,
            awaiting_new_deck: false,
            new_game_request: None,
        };
        engine.game.table.player_mut(seat).name = engine.config.name.clone();
        let hello = Message::Hello {
            protocol: PROTOCOL_VERSION,
            software: engine.config.software.clone(),
            suite: G::SUITE,
            seat,
            signing_key: engine.signing.verifying_key().to_bytes(),
            nonce,
            name: engine.config.name.clone(),
        };
        engine.send(&hello);
        Ok(engine)
    }

    pub fn seat(&self) -> Seat {
        self.seat
    }

    pub fn table(&self) -> &Table {
        &self.game.table
    }

    /// Ids of `owner`'s cards start above this number.
    fn id_base(owner: Seat) -> u32 {
        match owner {
            Seat::Host => 0,
            Seat::Guest => GUEST_CARD_OFFSET,
        }
    }

    /// The id a new card of `owner`'s gets: one above its highest.
    fn next_card_id(&self, owner: Seat) -> CardId {
        let highest = self.game.table.cards().filter(|c| c.owner == owner).map(|c| c.id.0).max();
        CardId(highest.unwrap_or(Self::id_base(owner)) + 1)
    }

    /// How many actions of the game's order this engine has applied.
    pub fn actions_applied(&self) -> u64 {
        self.game.actions_applied
    }

    pub fn is_ready(&self) -> bool {
        self.game.ready
    }

    /// Whether this player's game is over: it ended it (`EndGame`), or a forfeit was claimed
    /// by either player. Only chat, ping and a new game are taken then.
    pub fn is_ended(&self) -> bool {
        self.game.ended
    }

    /// Why the game stopped, if it did.
    pub fn halted(&self) -> Option<&str> {
        self.halted.as_deref()
    }

    pub fn game_id(&self) -> Option<GameId> {
        self.game.game_id
    }

    /// What this player knows card `card` to be.
    pub fn identity(&self, card: CardId) -> Option<&CardInstance> {
        self.game.identities.get(&card)
    }

    /// Card `card`'s identity point (the point its owner's catalogue seals it under), when
    /// only this player's locks are left on it: what this player would strip it to.
    pub fn identity_point(&self, card: CardId) -> Option<G::Element> {
        let form = self.game.forms.get(&card)?;
        if form.layers[index(self.seat.opponent())].is_some() {
            return None;
        }
        Some(match form.layers[index(self.seat)] {
            Some(key) => G::mul(&form.element, self.game.keys.get(&key)?.strip_scalar()),
            None => form.element.clone(),
        })
    }

    /// Every identity this player knows.
    pub fn identities(&self) -> &HashMap<CardId, CardInstance> {
        &self.game.identities
    }

    /// This player's cards whose identity the opponent knows.
    pub fn known_to_opponent(&self) -> Vec<CardId> {
        let opponent = self.seat.opponent();
        self.game.table.cards().filter(|c| c.owner == self.seat && c.known_to.knows(opponent)).map(|c| c.id).collect()
    }

    /// Every message sent and received so far, in the order this engine handled them.
    pub fn record(&self) -> &[(Seat, Envelope)] {
        &self.record
    }

    /// Everything this engine was given so far: with it anyone can run the engine again and
    /// see what it saw (`journal::check`). It holds the engine's seed, so every secret of
    /// the game: keep it to yourself until the game is over.
    pub fn journal(&self) -> &Journal {
        &self.journal
    }

    /// What this engine waits on the opponent for, if anything: the exchange a player who has
    /// waited too long can claim a forfeit over. Nothing is owed once the game is over or stopped.
    pub fn awaiting_opponent(&self) -> Option<String> {
        if self.game.ended || self.halted.is_some() {
            return None;
        }
        let peer = self.seat.opponent();
        if self.peer_key.is_none() {
            return Some("its hello".into());
        }
        if !self.game.catalogues.contains_key(&peer) {
            return Some("its deck".into());
        }
        for (number, unlock) in &self.game.unlocks {
            if let Some((holder, cards)) = unlock.steps.front()
                && *holder == peer
                && !self.unlock_blocked(*number)
            {
                let ids: Vec<String> = cards.iter().map(|c| c.to_string()).collect();
                return Some(format!("its strip of {}", ids.join(", ")));
            }
        }
        for (library, run) in &self.game.shuffles {
            let theirs = match run.stage {
                ShuffleStage::Waiting => match run.relock_first {
                    Some(holder) => holder == peer,
                    None => run.steps.front() == Some(&peer) && !self.library_unlocking(*library),
                },
                // A challenge to this engine's step, or a response to its challenge.
                ShuffleStage::Committed { .. } | ShuffleStage::Challenged { .. } => true,
            };
            if theirs {
                return Some(format!("its part of the shuffle of the {library:?} library"));
            }
        }
        if let Some(number) = self.game.randoms.keys().next() {
            return Some(format!("its side of random round {number}"));
        }
        self.game.proposals.keys().next().map(|seq| format!("its answer to the proposal in message {seq}"))
    }

    /// Whether a cryptographic exchange is still under way (strips, shuffles, random rounds,
    /// or a guest proposal waiting for the host).
    pub fn is_busy(&self) -> bool {
        !self.game.unlocks.is_empty()
            || !self.game.shuffles.is_empty()
            || !self.game.randoms.is_empty()
            || !self.game.proposals.is_empty()
    }

    #[must_use]
    pub fn poll_transmit(&mut self) -> Option<Vec<u8>> {
        self.transmits.pop_front()
    }

    #[must_use]
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    /// Signs and sends any body as the next message, without checking or applying it: the
    /// tests' tampering peer uses this to send what an honest engine never would.
    /// `ack` is what it claims to have taken in of the other player's stream.
    #[doc(hidden)]
    pub fn send_unchecked(&mut self, body: Vec<u8>, ack: wire::Ack) {
        self.seal_and_send(body, ack);
    }

    /// Records that message `seq` went out with `chain` instead of what this engine sealed:
    /// the tests' persistent cheater replaces its engine's messages after the fact, and the
    /// opponent's acknowledgements then name the replacement.
    #[doc(hidden)]
    pub fn replace_sent_head(&mut self, seq: u64, chain: [u8; 32]) {
        if let Some(head) = self.sent_heads.get_mut(seq as usize) {
            *head = chain;
        }
    }

    fn send(&mut self, message: &Message<G>) {
        self.seal_and_send(wire::encode_body(message), self.incoming.ack());
    }

    fn seal_and_send(&mut self, body: Vec<u8>, ack: wire::Ack) {
        let envelope = self.outgoing.seal(&self.signing, body, ack);
        self.sent_heads.push(envelope.chain);
        self.transmits.push_back(wire::encode_envelope(&envelope));
        self.record.push((self.seat, envelope));
    }

    /// The head of this engine's stream after the `ack` messages a received envelope says
    /// its sender had taken in: never more than were sent, never fewer than said before.
    fn acknowledged_head(&self, ack: u64) -> Result<[u8; 32], WireError> {
        let sent = self.sent_heads.len() as u64;
        if ack > sent || ack < self.peer_ack {
            return Err(WireError::Ack { acked: ack, sent, before: self.peer_ack });
        }
        Ok(ack.checked_sub(1).map_or([0; 32], |last| self.sent_heads[last as usize]))
    }

    fn emit(&mut self, event: Event) {
        self.events.push_back(event);
    }

    fn context(&self, sequence: u64, purpose: impl Into<String>) -> ProofContext {
        ProofContext::new(self.game.game_id.expect("proofs are made after hello"), sequence, purpose)
    }

    // ----- local intents -----

    pub fn handle_intent(&mut self, intent: Intent) -> Result<(), IntentError> {
        if let Some(reason) = &self.halted {
            return Err(IntentError::Halted(reason.clone()));
        }
        // Even a refused intent may have drawn randomness: a replay needs every one.
        self.journal.inputs.push(Input::Intent { intent: intent.clone() });
        self.take_intent(intent)
    }

    /// An intent of the player's, or one the engine issues on its behalf (`follow_up`), which
    /// a replay issues again by itself.
    fn take_intent(&mut self, intent: Intent) -> Result<(), IntentError> {
        if let Some(reason) = &self.halted {
            return Err(IntentError::Halted(reason.clone()));
        }
        if self.game.ended && !matches!(intent, Intent::Chat(_) | Intent::Ping | Intent::NewGame(_)) {
            return Err(IntentError::Invalid("this player has ended the game".into()));
        }
        match intent {
            Intent::ClaimForfeit | Intent::ClaimAbandoned => {
                let awaited = match intent {
                    Intent::ClaimAbandoned => ABANDONED.to_string(),
                    _ => self
                        .awaiting_opponent()
                        .ok_or_else(|| IntentError::Invalid("nothing waits on the opponent".into()))?,
                };
                self.send(&Message::ForfeitClaim { awaited: awaited.clone() });
                self.game.ended = true;
                self.emit(Event::ForfeitClaimed { by: self.seat, awaited });
            }
            Intent::EndGame => {
                self.require_ready()?;
                let key = &self.game.keys[&KeyRef { holder: self.seat, library: self.seat, epoch: 0 }];
                let deck_key = key.lock_scalar().clone();
                self.send(&Message::Audit { deck_key });
                self.game.ended = true;
            }
            Intent::NewGame(deck) => {
                if self.game.game_id.is_none() {
                    return Err(IntentError::NotReady);
                }
                if self.new_game_asked {
                    return Err(IntentError::Invalid("a new game is already asked for".into()));
                }
                if let Some(deck) = deck {
                    check_deck::<G>(&deck).map_err(|e| IntentError::Invalid(e.to_string()))?;
                    self.deck = deck;
                }
                self.new_game_request = Some(self.outgoing.next_seq);
                self.send(&Message::NewGame);
                self.new_game_asked = true;
                self.start_new_game_if_agreed();
            }
            Intent::Chat(text) => {
                if text.len() > MAX_TEXT_LEN {
                    return Err(IntentError::Invalid(format!("chat lines are at most {MAX_TEXT_LEN} bytes")));
                }
                self.send(&Message::Chat { text });
            }
            Intent::Ping => self.send(&Message::Ping),
            Intent::RequestReveal { zone, count } => {
                self.require_ready()?;
                self.send(&Message::RevealRequest { zone, count });
            }
            Intent::RefuseReveal { zone } => self.send(&Message::RevealRefuse { zone }),
            Intent::Act(action) => {
                self.require_ready()?;
                let action = self.complete_action(action);
                self.check_action(self.seat, &action).map_err(|e| IntentError::Invalid(e.reason))?;
                match self.seat {
                    Seat::Host => {
                        let digest = (action == Action::NextTurn).then(|| TableDigest(self.game.table.digest()));
                        self.send(&Message::Act { action: action.clone(), seen: self.game.actions_applied, digest });
                        self.apply_action(Seat::Host, action);
                    }
                    Seat::Guest => {
                        let seq = self.outgoing.next_seq;
                        self.send(&Message::Act {
                            action: action.clone(),
                            seen: self.game.actions_applied,
                            digest: None,
                        });
                        self.game.proposals.insert(seq, action);
                    }
                }
                self.drive();
            }
        }
        Ok(())
    }

    /// An action this engine takes on its player's behalf (the draw after a mulligan): it
    /// goes the way of any intent; if it no longer fits, the player is told.
    fn follow_up(&mut self, action: Action) {
        if let Err(error) = self.take_intent(Intent::Act(action.clone())) {
            self.emit(Event::Rejected { action, reason: error.to_string() });
        }
    }

    fn require_ready(&self) -> Result<(), IntentError> {
        if self.game.ready { Ok(()) } else { Err(IntentError::NotReady) }
    }

    /// Fills in what the player leaves to the engine: a clean library's permutation.
    fn complete_action(&mut self, action: Action) -> Action {
        match action {
            // A guest with unanswered proposals sees the table as it was: a proposal of its own
            // may make the library dirty, so it asks for a full shuffle instead.
            Action::Shuffle { permutation: None }
                if self.game.proposals.is_empty() && self.is_clean_for_permutation(self.seat) =>
            {
                let len = self.game.table.zone(ZoneId::library(self.seat)).len();
                let permutation =
                    random_permutation(&mut self.rng, len).into_iter().map(u32::from).collect::<Vec<u32>>();
                Action::Shuffle { permutation: Some(permutation) }
            }
            other => other,
        }
    }

    /// Whether a library may be shuffled by a public permutation: nobody knows any of its
    /// cards, every layer is current, and it has one back (the actor would place the backs).
    fn is_clean_for_permutation(&self, library: Seat) -> bool {
        !self.game.table.is_dirty(library)
            && self.back_groups(library).len() < 2
            && self.game.table.zone(ZoneId::library(library)).iter().all(|id| {
                Seat::BOTH.into_iter().all(|holder| {
                    let current =
                        self.game.current_keys.get(&(holder, library)).map(|&epoch| KeyRef { holder, library, epoch });
                    current.is_some() && self.game.planned[id][index(holder)] == current
                })
            })
    }

    // ----- received messages -----

    /// Handles bytes received from the opponent. Misbehaviour becomes an alert, never a panic.
    pub fn handle_message(&mut self, bytes: &[u8]) {
        // A halted engine takes nothing in, so its journal keeps nothing more either.
        if self.halted.is_some() {
            return;
        }
        self.journal.inputs.push(Input::Message { bytes: bytes.to_vec() });
        let envelope = match wire::decode_envelope(bytes) {
            Ok(envelope) => envelope,
            Err(error) => return self.raise(Fault::from(error), None),
        };
        let authenticated = self.incoming.next_seq;
        if let Err(fault) = self.receive(&envelope) {
            // Only a message that passed its number, chain and signature checks is evidence of
            // anything: before that, anyone could have made it.
            let evidence = (self.incoming.next_seq > authenticated).then_some(envelope);
            self.raise(fault, evidence);
        }
        self.drive();
    }

    fn raise(&mut self, fault: Fault, evidence: Option<Envelope>) {
        if fault.kind.is_misbehaviour() {
            self.halted = Some(format!("{:?}: {}", fault.kind, fault.detail));
        }
        self.emit(Event::Alert(Alert { kind: fault.kind, detail: fault.detail, evidence }));
    }

    fn receive(&mut self, envelope: &Envelope) -> Result<(), Fault> {
        let peer = self.seat.opponent();
        // The signature is checked before the body is read (but for hello, which carries the
        // key), so every alert's evidence is a message the opponent provably sent.
        let message: Message<G> = match &self.peer_key {
            None => {
                let message = wire::decode_body(&envelope.body)?;
                let Message::Hello { signing_key, .. } = &message else {
                    return Err(Fault::new(AlertKind::Unexpected, "the first message must be hello"));
                };
                let key = wire::verifying_key(signing_key)?;
                self.incoming.open(&key, envelope, &self.acknowledged_head(envelope.ack)?)?;
                self.peer_key = Some(key);
                self.take_in(envelope);
                message
            }
            Some(key) => {
                let key = *key;
                self.incoming.open(&key, envelope, &self.acknowledged_head(envelope.ack)?)?;
                self.take_in(envelope);
                // Cheap checks first: what kind of message, whether anything of that kind is
                // awaited, and whether its size fits what is; only then are its elements decoded
                // and validated (about 11 ms each with modp2048).
                let kind = wire::peek_kind(&envelope.body)?;
                if self.awaiting_new_deck && !matches!(kind.as_str(), "deck" | "chat" | "ping" | "pong") {
                    // Sent before the opponent started the new game, so part of the dropped one:
                    // unless it had this player's new-game request by then.
                    if self.new_game_request.is_some_and(|request| envelope.ack > request) {
                        return Err(Fault::new(
                            AlertKind::Unexpected,
                            format!("a {kind} in the new game before its deck"),
                        ));
                    }
                    return Ok(());
                }
                self.admit(&kind, envelope.body.len())?;
                wire::decode_body(&envelope.body)?
            }
        };
        let seq = envelope.seq;
        if let Message::Deck { .. } = message {
            self.awaiting_new_deck = false;
        }
        if self.game.peer_ended
            && matches!(
                message,
                Message::Act { .. }
                    | Message::Audit { .. }
                    | Message::ForfeitClaim { .. }
                    | Message::RevealRequest { .. }
                    | Message::RevealRefuse { .. }
            )
        {
            return Err(Fault::new(
                AlertKind::Unexpected,
                format!("a {} after the opponent ended the game", message.kind()),
            ));
        }
        match message {
            Message::Hello { protocol, software, suite, seat, nonce, name, .. } => {
                if seq != 0 {
                    return Err(Fault::new(AlertKind::Unexpected, "hello sent twice"));
                }
                if protocol != PROTOCOL_VERSION || suite != G::SUITE {
                    return Err(Fault::new(
                        AlertKind::Incompatible,
                        format!(
                            "opponent speaks protocol {protocol} with {suite}, this table {PROTOCOL_VERSION} with {}",
                            G::SUITE
                        ),
                    ));
                }
                if seat != peer {
                    return Err(Fault::new(
                        AlertKind::Incompatible,
                        format!("the opponent's hello is for the {seat:?} seat, which is this player's"),
                    ));
                }
                check_text("name", &name)?;
                check_text("software", &software)?;
                self.peer_nonce = Some(nonce);
                self.game.table.player_mut(peer).name = name.clone();
                let (host_nonce, guest_nonce) = match self.seat {
                    Seat::Host => (self.nonce, nonce),
                    Seat::Guest => (nonce, self.nonce),
                };
                let id = Sha256::new()
                    .chain_update(b"fairdeck/v1/game")
                    .chain_update(host_nonce)
                    .chain_update(guest_nonce)
                    .finalize();
                self.game.game_id = Some(GameId(id.into()));
                self.emit(Event::Connected { name, software });
                self.send_deck();
            }
            Message::Deck { key, base_key, proof, library, sideboard, catalogue } => {
                self.receive_deck(envelope, key, (base_key, proof), library, sideboard, catalogue)?
            }
            Message::Act { action, seen, digest } => self.receive_act(seq, action, seen, digest)?,
            Message::Accept { seq: proposal } => {
                let action = self.expect_guest()?.game.proposals.remove(&proposal).ok_or_else(|| {
                    Fault::new(AlertKind::Unexpected, format!("accept of unknown proposal {proposal}"))
                })?;
                self.check_action(Seat::Guest, &action).map_err(|e| {
                    Fault::new(AlertKind::Unexpected, format!("accepted an action that does not fit: {}", e.reason))
                })?;
                self.apply_action(Seat::Guest, action);
            }
            Message::Reject { seq: proposal, reason } => {
                let action = self.expect_guest()?.game.proposals.remove(&proposal).ok_or_else(|| {
                    Fault::new(AlertKind::Unexpected, format!("reject of unknown proposal {proposal}"))
                })?;
                check_text("reason", &reason)?;
                self.emit(Event::Rejected { action, reason });
            }
            Message::Strip { unlock, groups } => self.receive_strip(seq, unlock, groups)?,
            Message::ShuffleStep { step } => self.receive_shuffle_step(seq, step)?,
            Message::Relock { library, relock } => self.receive_relock(seq, library, relock)?,
            Message::ShuffleChallenge { library, challenge } => self.receive_challenge(library, challenge)?,
            Message::ShuffleResponse { library, responses } => self.receive_response(library, responses)?,
            Message::RandomCommit { round, commitment } => self.receive_random_commit(round, commitment)?,
            Message::RandomOpen { round, opening } => self.receive_random_open(round, opening)?,
            Message::RandomSettle { round } => self.receive_random_settle(round)?,
            Message::Audit { deck_key } => {
                self.game.peer_ended = true;
                self.receive_audit(deck_key)?
            }
            Message::ForfeitClaim { awaited } => {
                check_text("awaited", &awaited)?;
                self.check_forfeit_claim(&awaited, envelope.ack)?;
                // A silence is neither proven nor disproven: a plausible claim is reported, the
                // game is over, and the record keeps the claim.
                self.game.ended = true;
                self.game.peer_ended = true;
                self.emit(Event::ForfeitClaimed { by: peer, awaited });
            }
            Message::NewGame => {
                if self.new_game_offered {
                    return Err(Fault::new(AlertKind::Unexpected, "a new game asked for twice"));
                }
                self.new_game_offered = true;
                self.emit(Event::NewGameRequested);
                self.start_new_game_if_agreed();
            }
            Message::RevealRequest { zone, count } => {
                self.emit(Event::RevealRequested { zone, count });
                self.raise(
                    Fault::new(
                        AlertKind::LookedAtYourCards,
                        format!(
                            "opponent asks to see {} of {zone}",
                            count.map_or("all".into(), |n| format!("the top {n}"))
                        ),
                    ),
                    Some(envelope.clone()),
                );
            }
            Message::RevealRefuse { zone } => self.emit(Event::RevealRefused { zone }),
            Message::Chat { text } => {
                check_text("chat", &text)?;
                self.emit(Event::Chat { from: peer, text });
            }
            Message::Ping => self.send(&Message::Pong),
            Message::Pong => self.emit(Event::Pong),
        }
        Ok(())
    }

    /// An authenticated message of the opponent's: it is in the record, and says how much of
    /// this player's stream its sender had taken in.
    fn take_in(&mut self, envelope: &Envelope) {
        self.peer_ack = envelope.ack;
        self.game.unseen_reorders.retain(|reorder| reorder.seq >= envelope.ack);
        self.record.push((self.seat.opponent(), envelope.clone()));
    }

    /// Whether a message of `kind` and `len` bytes could be one the opponent owes now. Only the
    /// kinds that carry group elements are checked, each against a bound well above what an
    /// honest message of that kind holds, so a peer cannot make this player validate thousands
    /// of elements nobody awaits. The handlers check the details after decoding.
    fn admit(&self, kind: &str, len: usize) -> Result<(), Fault> {
        let peer = self.seat.opponent();
        let element = 2 * G::ELEMENT_LEN + 16;
        let scalar = 2 * G::SCALAR_LEN + 16;
        let rounds = Soundness::Interactive.rounds();
        let library_len = |library: &Seat| self.game.table.zone(ZoneId::library(*library)).len();
        let awaited = |runs: &mut dyn Iterator<Item = (&Seat, &ShuffleRun<G>)>| runs.map(|(l, _)| library_len(l)).max();
        let bound = match kind {
            "deck" => (!self.game.catalogues.contains_key(&peer) && self.game.game_id.is_some())
                .then(|| wire::max_deck_len::<G>() * (element + 1024)),
            "strip" => {
                let cards: usize = self
                    .game
                    .unlocks
                    .values()
                    .flat_map(|unlock| &unlock.steps)
                    .filter(|(holder, _)| *holder == peer)
                    .map(|(_, cards)| cards.len())
                    .sum();
                (cards > 0).then(|| cards * (5 * element + 256))
            }
            "shuffle-step" => awaited(&mut self.game.shuffles.iter().filter(|(_, run)| {
                run.relock_first.is_none()
                    && run.steps.front() == Some(&peer)
                    && matches!(run.stage, ShuffleStage::Waiting)
            }))
            .map(|cards| (2 * rounds + 12) * cards.max(1) * (element + 64)),
            "relock" => awaited(&mut self.game.shuffles.iter().filter(|(_, run)| run.relock_first == Some(peer)))
                .map(|cards| cards.max(1) * (5 * element + 256)),
            "shuffle-response" => awaited(
                &mut self.game.shuffles.iter().filter(|(_, run)| matches!(run.stage, ShuffleStage::Challenged { .. })),
            )
            .map(|cards| rounds * cards.max(1) * (scalar + 72)),
            "audit" => Some(scalar),
            // The other kinds carry no group element: JSON alone, under MAX_MESSAGE_LEN.
            _ => return Ok(()),
        };
        match bound {
            None => Err(Fault::new(AlertKind::Unexpected, format!("a {kind} nothing awaits"))),
            Some(bound) if len > bound + 16 * 1024 => Err(Fault::new(
                AlertKind::Malformed,
                format!("a {kind} of {len} bytes, more than what is awaited could take"),
            )),
            Some(_) => Ok(()),
        }
    }

    /// A forfeit claim must fit this player's own state: when the claimant had taken in every
    /// message this player sent (`ack`) and no exchange is under way here, nothing was owed to
    /// it, so the claim is false. A claim that this player left the game is a claim about a
    /// connection, which no state proves or disproves: it is reported as made.
    fn check_forfeit_claim(&self, awaited: &str, ack: u64) -> Result<(), Fault> {
        let sent = self.sent_heads.len() as u64;
        let owing = ack < sent || self.is_busy() || !self.game.ready || self.awaiting_new_deck;
        if awaited == ABANDONED || owing {
            return Ok(());
        }
        Err(Fault::new(
            AlertKind::Unexpected,
            format!(
                "a forfeit claim for want of {awaited}, though it had every message of this player and nothing was under way"
            ),
        ))
    }

    /// Checks the opponent's whole deck once it reveals its deck key: every element it sent
    /// must be the lock of a distinct card of its catalogue, with the back it claimed.
    fn receive_audit(&mut self, deck_key: G::Scalar) -> Result<(), Fault> {
        let peer = self.seat.opponent();
        let (Some(commitment), Some(elements)) = (
            self.game.commitments.get(&KeyRef { holder: peer, library: peer, epoch: 0 }),
            self.game.deck_elements.get(&peer),
        ) else {
            return Err(Fault::new(AlertKind::Unexpected, "an audit before the deck"));
        };
        if G::mul_generator(&deck_key) != *commitment.element() {
            return Err(Fault::new(AlertKind::BadProof, "the revealed deck key does not match its commitment"));
        }
        let strip = G::scalar_invert(&deck_key).ok_or_else(|| Fault::new(AlertKind::BadProof, "a zero deck key"))?;
        let mut deck = Vec::with_capacity(elements.len());
        let mut fault = None;
        for (index, (element, back)) in elements.iter().enumerate() {
            let point = G::mul(element, &strip);
            match self.game.catalogues[&peer].open::<G>(&point) {
                Ok(instance) if instance.owner == peer && instance.back == *back => deck.push(instance),
                Ok(_) => {
                    fault = Some(format!("element {index} of the opponent's deck claims another owner or back"));
                    break;
                }
                Err(error) => {
                    fault =
                        Some(format!("element {index} of the opponent's deck is no card of its catalogue: {error}"));
                    break;
                }
            }
        }
        match fault {
            Some(detail) => {
                let evidence = self.game.deck_envelopes.get(&peer).cloned();
                self.raise(Fault::new(AlertKind::NotInDeck, detail), evidence);
            }
            None => self.emit(Event::Audited { seat: peer, deck }),
        }
        Ok(())
    }

    fn expect_guest(&mut self) -> Result<&mut Self, Fault> {
        if self.seat == Seat::Guest {
            Ok(self)
        } else {
            Err(Fault::new(AlertKind::Unexpected, "only the host accepts or rejects actions"))
        }
    }

    fn receive_act(&mut self, seq: u64, action: Action, seen: u64, digest: Option<TableDigest>) -> Result<(), Fault> {
        if !self.game.ready {
            return Err(Fault::new(AlertKind::Unexpected, "an action before set-up finished"));
        }
        let peer = self.seat.opponent();
        match self.seat {
            // The guest's proposal: the host decides its place in the game's order.
            Seat::Host => match self.check_action(peer, &action) {
                Ok(()) => {
                    self.send(&Message::Accept { seq });
                    self.apply_action(peer, action);
                }
                Err(error) => {
                    self.send(&Message::Reject { seq, reason: error.reason.clone() });
                    // Only a proposal made on the table as it is now can be called forbidden;
                    // one the host's own actions overtook may just be out of date.
                    if error.forbidden && seen == self.game.actions_applied {
                        let kind = forbidden_kind(&action);
                        return Err(Fault::new(kind, error.reason));
                    }
                }
            },
            // The host's action, already applied on its side: it must fit, at the same point.
            Seat::Guest => {
                if seen != self.game.actions_applied {
                    return Err(Fault::new(
                        AlertKind::Unexpected,
                        format!("the host acted after {seen} actions, this table has {}", self.game.actions_applied),
                    ));
                }
                if action == Action::NextTurn && digest != Some(self.digest_as_host_saw()) {
                    return Err(Fault::new(
                        AlertKind::Unexpected,
                        "the host's table differs from this one at the turn",
                    ));
                }
                if let Err(error) = self.check_action(peer, &action) {
                    let kind = if error.forbidden { forbidden_kind(&action) } else { AlertKind::Unexpected };
                    return Err(Fault::new(kind, error.reason));
                }
                self.apply_action(peer, action);
            }
        }
        Ok(())
    }

    /// The guest's table as the host saw it when it sent the message being handled (which
    /// acknowledged `peer_ack` of the guest's messages): a library whose run the guest's own
    /// unseen response completed is in its order from before.
    fn digest_as_host_saw(&self) -> TableDigest {
        if self.game.unseen_reorders.is_empty() {
            return TableDigest(self.game.table.digest());
        }
        let mut table = self.game.table.clone();
        for reorder in self.game.unseen_reorders.iter().rev() {
            let zone = ZoneId::library(reorder.library);
            let now = table.zone(zone);
            let back: Option<Vec<u32>> =
                reorder.before.iter().map(|id| now.iter().position(|c| c == id).map(|at| at as u32)).collect();
            if let Some(back) = back {
                // The same cards, by construction: only the order is restored.
                let _same_cards = table.permute(zone, &back);
            }
        }
        TableDigest(table.digest())
    }

    // ----- set-up -----

    /// Both players asked for a new game: this one is dropped and the next one's set-up
    /// starts with this player's deck. Both engines derive the new game id alike.
    fn start_new_game_if_agreed(&mut self) {
        if !(self.new_game_asked && self.new_game_offered) {
            return;
        }
        self.new_game_asked = false;
        self.new_game_offered = false;
        let previous = self.game.game_id.expect("a new game is asked for after hello");
        let number = self.game.number + 1;
        let id = Sha256::new()
            .chain_update(b"fairdeck/v1/next-game")
            .chain_update(previous.0)
            .chain_update(number.to_be_bytes())
            .finalize();
        let names = Seat::BOTH.map(|seat| self.game.table.player(seat).name.clone());
        self.game = GameState::new(number, Some(GameId(id.into())));
        for (seat, name) in Seat::BOTH.into_iter().zip(names) {
            self.game.table.player_mut(seat).name = name;
        }
        self.awaiting_new_deck = true;
        self.emit(Event::NewGame { number });
        self.send_deck();
    }

    fn send_deck(&mut self) {
        let game_id = self.game.game_id.expect("game id is set before the deck is sent");
        let seat = self.seat;
        let instances: Vec<CardInstance> = self
            .deck
            .library
            .iter()
            .chain(&self.deck.sideboard)
            .map(|card| {
                let mut nonce = [0u8; 16];
                self.rng.fill_bytes(&mut nonce);
                CardInstance { owner: seat, nonce, name: card.name.clone(), back: card.back }
            })
            .collect();
        let library_len = self.deck.library.len();
        // Lay the library out in a random order of this player's own: nothing rests on it
        // (the opponent's shuffle is what hides the order), but it costs nothing.
        let order = random_permutation(&mut self.rng, library_len);
        let library_instances: Vec<&CardInstance> = order.iter().map(|&i| &instances[usize::from(i)]).collect();
        // The sideboard too, or its ids would follow the deck list (three Negates in a row) and
        // one revealed sideboard card would hint at its neighbours.
        let sideboard_order = random_permutation(&mut self.rng, instances.len() - library_len);
        let sideboard_instances: Vec<&CardInstance> =
            sideboard_order.iter().map(|&i| &instances[library_len + usize::from(i)]).collect();
        let key = LockKey::<G>::generate(&mut self.rng);
        let base_key = LockKey::<G>::generate(&mut self.rng);
        let bases = deck_bases::<G>(&game_id, seat, instances.len());
        let context = self.context(self.outgoing.next_seq, format!("deck/{}", seat.id_byte()));
        let (elements, proof) = base_key.lock_with_proof(&bases, &context, &mut self.rng);
        let placed: Vec<&CardInstance> = library_instances.iter().chain(&sideboard_instances).copied().collect();
        let sealed: Vec<(G::Element, CardInstance)> =
            key.strip(&elements).into_iter().zip(placed.iter().map(|&instance| instance.clone())).collect();
        let catalogue = Catalogue::seal::<G>(&sealed).expect("deck names were checked in Engine::new");
        let mut cards = elements.into_iter().zip(placed.iter().map(|instance| instance.back));
        let library: Vec<(G::Element, BackId)> = cards.by_ref().take(library_len).collect();
        let sideboard: Vec<(G::Element, BackId)> = cards.collect();
        let message = Message::Deck {
            key: key.commitment().clone(),
            base_key: base_key.commitment().clone(),
            proof,
            library: library.clone(),
            sideboard: sideboard.clone(),
            catalogue: catalogue.entries(),
        };
        self.send(&message);
        let envelope = self.record.last().expect("just sent").1.clone();
        self.game.deck_envelopes.insert(seat, envelope);
        let key_ref = KeyRef { holder: seat, library: seat, epoch: 0 };
        self.game.commitments.insert(key_ref, key.commitment().clone());
        self.game.keys.insert(key_ref, key);
        self.game.current_keys.insert((seat, seat), 0);
        self.game.catalogues.insert(seat, catalogue);
        let ids = self.place_deck(seat, &library, &sideboard, key_ref);
        self.game.deck_elements.insert(seat, library.iter().chain(&sideboard).cloned().collect());
        for (id, instance) in ids.into_iter().zip(library_instances.into_iter().chain(sideboard_instances)) {
            self.game.identities.insert(id, instance.clone());
        }
        self.start_setup_shuffle(seat);
    }

    /// Creates a deck's cards on the table, known to their owner only.
    fn place_deck(
        &mut self,
        owner: Seat,
        library: &[(G::Element, BackId)],
        sideboard: &[(G::Element, BackId)],
        key: KeyRef,
    ) -> Vec<CardId> {
        let base = Self::id_base(owner) + 1;
        let mut ids = Vec::new();
        for (i, ((element, back), kind)) in library
            .iter()
            .map(|c| (c, ZoneKind::Library))
            .chain(sideboard.iter().map(|c| (c, ZoneKind::Sideboard)))
            .enumerate()
        {
            let id = CardId(base + i as u32);
            let card = Card {
                id,
                owner,
                back: *back,
                zone: ZoneId::new(owner, kind),
                placement: Placement::default(),
                tapped: false,
                counters: BTreeMap::new(),
                known_to: Knowledge::only(owner),
            };
            self.game.table.add_card(card, Position::Bottom).expect("fresh ids in empty zones");
            let mut layers = [None, None];
            layers[index(owner)] = Some(key);
            self.game.forms.insert(id, Form { element: element.clone(), layers });
            self.game.planned.insert(id, layers);
            ids.push(id);
        }
        ids
    }

    fn receive_deck(
        &mut self,
        envelope: &Envelope,
        key: KeyCommitment<G>,
        (base_key, proof): (KeyCommitment<G>, DleqProof<G>),
        library: Vec<(G::Element, BackId)>,
        sideboard: Vec<(G::Element, BackId)>,
        catalogue: Vec<crate::crypto::CatalogueEntry>,
    ) -> Result<(), Fault> {
        let peer = self.seat.opponent();
        if self.game.catalogues.contains_key(&peer) || self.game.game_id.is_none() {
            return Err(Fault::new(AlertKind::Unexpected, "a deck out of turn"));
        }
        let total = library.len() + sideboard.len();
        if library.is_empty() || total > wire::max_deck_len::<G>() {
            return Err(Fault::new(
                AlertKind::Malformed,
                format!("a deck of {} + {} cards", library.len(), sideboard.len()),
            ));
        }
        let mut distinct = std::collections::HashSet::new();
        if !library.iter().chain(&sideboard).all(|(element, _)| distinct.insert(element.clone())) {
            return Err(Fault::new(AlertKind::Malformed, "the same card twice in a deck"));
        }
        let catalogue =
            Catalogue::from_entries(catalogue).map_err(|e| Fault::new(AlertKind::Malformed, e.to_string()))?;
        if catalogue.len() != total {
            return Err(Fault::new(AlertKind::Malformed, "the catalogue does not list every card once"));
        }
        let game_id = self.game.game_id.expect("checked above");
        let bases = deck_bases::<G>(&game_id, peer, total);
        let elements: Vec<G::Element> = library.iter().chain(&sideboard).map(|(element, _)| element.clone()).collect();
        let context = self.context(envelope.seq, format!("deck/{}", peer.id_byte()));
        base_key.verify_lock(&bases, elements, &proof, &context).map_err(|error| {
            Fault::new(AlertKind::BadProof, format!("the deck's elements are not one multiple of its bases: {error}"))
        })?;
        let key_ref = KeyRef { holder: peer, library: peer, epoch: 0 };
        self.game.commitments.insert(key_ref, key);
        self.game.current_keys.insert((peer, peer), 0);
        self.game.catalogues.insert(peer, catalogue);
        self.game.deck_envelopes.insert(peer, envelope.clone());
        self.place_deck(peer, &library, &sideboard, key_ref);
        self.game.deck_elements.insert(peer, library.into_iter().chain(sideboard).collect());
        self.start_setup_shuffle(peer);
        Ok(())
    }

    fn start_setup_shuffle(&mut self, library: Seat) {
        // Only the opponent's shuffle matters at set-up: the owner knows every card anyway.
        let steps = VecDeque::from([library.opponent()]);
        let arrangement = self.start_arrangement(library, 0);
        self.game.shuffles.insert(
            library,
            ShuffleRun { relock_first: None, steps, stage: ShuffleStage::Waiting, arrangement, own_response: None },
        );
    }

    /// The library's cards by back, by ascending back id, each in the library's order.
    fn back_groups(&self, library: Seat) -> Vec<Vec<CardId>> {
        let mut groups: BTreeMap<BackId, Vec<CardId>> = BTreeMap::new();
        for id in self.game.table.zone(ZoneId::library(library)) {
            groups.entry(self.game.table.card(*id).expect("library cards exist").back).or_default().push(*id);
        }
        groups.into_values().collect()
    }

    /// Starts drawing where a library's backs will lie after the run that starts now (with
    /// `serial` 0 at set-up, the action's number + 1 later): in common, since the backs show.
    fn start_arrangement(&mut self, library: Seat, serial: u64) -> Arrangement {
        if self.back_groups(library).len() < 2 {
            return Arrangement::Single;
        }
        let round = ARRANGEMENT_ROUNDS | serial << 1 | u64::from(library == Seat::Guest);
        self.start_random(round, library, RandomKind::Arrangement(library));
        Arrangement::Drawing
    }

    // ----- actions -----

    fn library_locked(&self, library: Seat) -> bool {
        self.game.shuffles.contains_key(&library)
    }

    fn card(&self, id: CardId) -> Result<&Card, ActionError> {
        self.game.table.card(id).ok_or_else(|| ActionError::forbidden(format!("there is no card {id}")))
    }

    /// Checks an action by `actor` against the table as it is now.
    /// A card of a hand being picked from at random stays in the hand until the pick settles:
    /// whoever learns the outcome first could otherwise move the picked card away.
    fn check_not_pinned(&self, card: CardId) -> Result<(), ActionError> {
        let pinned = self.game.randoms.values().any(|round| match &round.kind {
            RandomKind::ShowRandom(hand) => hand.contains(&card),
            _ => false,
        });
        if pinned {
            return Err(ActionError::stale(format!("card {card} is in a hand being picked from at random")));
        }
        Ok(())
    }

    /// A library holds at most `wire::max_library_len` cards (tokens moved in included), so that
    /// an honest shuffle step of it always fits in a message, whoever makes it.
    fn check_library_room(&self, library: Seat, adding: usize) -> Result<(), ActionError> {
        let max = wire::max_library_len::<G>();
        if self.game.table.zone(ZoneId::library(library)).len() + adding > max {
            return Err(ActionError::forbidden(format!("a library holds at most {max} cards with this suite")));
        }
        Ok(())
    }

    fn check_action(&self, actor: Seat, action: &Action) -> Result<(), ActionError> {
        let own_library = ZoneId::library(actor);
        let count_in = |zone: ZoneId, count: u32| {
            if count == 0 {
                return Err(ActionError::forbidden("a count of zero"));
            }
            if self.library_locked(zone.owner) && zone.kind == ZoneKind::Library {
                return Err(ActionError::stale(format!("{zone} is being shuffled")));
            }
            self.game.table.top(zone, count).map(|_| ()).map_err(|e| ActionError::stale(e.to_string()))
        };
        let in_play = |card: CardId| {
            let card = self.card(card)?;
            if card.zone.kind != ZoneKind::Play {
                return Err(ActionError::stale(format!("card {} is not in play", card.id)));
            }
            Ok(())
        };
        match action {
            Action::Draw { count } | Action::Peek { count } => count_in(own_library, *count),
            Action::TakeFromLibrary { count } => count_in(ZoneId::library(actor.opponent()), *count),
            Action::Move { card, to, position, .. } => {
                self.check_not_pinned(*card)?;
                let from = self.card(*card)?.zone;
                if to.kind == ZoneKind::Library && from != *to {
                    self.check_library_room(to.owner, 1)?;
                }
                for zone in [from, *to] {
                    if zone.kind == ZoneKind::Library {
                        if zone.owner != actor {
                            return Err(ActionError::forbidden(format!("a move in the opponent's library ({zone})")));
                        }
                        if self.library_locked(zone.owner) {
                            return Err(ActionError::stale(format!("{zone} is being shuffled")));
                        }
                    }
                }
                self.game.table.check_move(*card, *to, *position).map_err(|e| match e {
                    // A zone may have shrunk since the move was decided.
                    crate::table::TableError::BadIndex { .. } => ActionError::stale(e.to_string()),
                    other => ActionError::forbidden(other.to_string()),
                })?;
                Ok(())
            }
            Action::Rearrange { card, index } => {
                let zone = self.card(*card)?.zone;
                if zone.kind == ZoneKind::Library && zone.owner != actor {
                    return Err(ActionError::forbidden(format!("a move in the opponent's library ({zone})")));
                }
                if zone.kind == ZoneKind::Library && self.library_locked(zone.owner) {
                    return Err(ActionError::stale(format!("{zone} is being shuffled")));
                }
                let len = self.game.table.zone(zone).len();
                if *index as usize >= len {
                    return Err(ActionError::stale(format!("{zone} has {len} cards")));
                }
                Ok(())
            }
            Action::Shuffle { permutation } => {
                if self.library_locked(actor) {
                    return Err(ActionError::stale("the library is already being shuffled"));
                }
                let cards = self.game.table.zone(own_library);
                match permutation {
                    Some(permutation) => {
                        if !self.is_clean_for_permutation(actor) {
                            let known: Vec<String> = cards
                                .iter()
                                .filter(|id| self.game.table.card(**id).is_some_and(|c| c.known_to.is_anyone()))
                                .map(|id| id.to_string())
                                .collect();
                            let why = if !known.is_empty() {
                                format!("whose cards {} are known", known.join(", "))
                            } else if self.back_groups(actor).len() > 1 {
                                "of several backs, whose places it would choose".to_string()
                            } else {
                                "whose cards are under old keys".to_string()
                            };
                            return Err(ActionError::forbidden(format!(
                                "a reorder-only shuffle of a library {why}: stacking"
                            )));
                        }
                        if permutation.len() != cards.len() {
                            return Err(ActionError::stale("the library changed size"));
                        }
                        let mut sorted = permutation.clone();
                        sorted.sort_unstable();
                        if !sorted.iter().copied().eq(0..cards.len() as u32) {
                            return Err(ActionError::forbidden("not a permutation of the library"));
                        }
                        Ok(())
                    }
                    None => Ok(()),
                }
            }
            Action::Reveal { cards, to } => {
                if cards.is_empty() {
                    return Err(ActionError::forbidden("nothing to reveal"));
                }
                if cards.iter().collect::<BTreeSet<_>>().len() != cards.len() {
                    return Err(ActionError::forbidden("the same card twice in one reveal"));
                }
                if *to == Some(actor) {
                    return Err(ActionError::forbidden("a reveal to oneself"));
                }
                for id in cards {
                    let card = self.card(*id)?;
                    if card.zone.kind == ZoneKind::Library && self.library_locked(card.zone.owner) {
                        return Err(ActionError::stale(format!("{} is being shuffled", card.zone)));
                    }
                    if !card.known_to.knows(actor) {
                        return Err(ActionError::forbidden(format!(
                            "a reveal of card {id}, which the revealer does not know"
                        )));
                    }
                }
                Ok(())
            }
            Action::ShowRandom => {
                if self.game.table.zone(ZoneId::hand(actor)).is_empty() {
                    return Err(ActionError::stale("the hand is empty"));
                }
                Ok(())
            }
            Action::Tap { card, .. } => in_play(*card),
            Action::SetCardValue { card, key, .. } => {
                check_text("counter", key).map_err(|f| ActionError::forbidden(f.detail))?;
                in_play(*card)
            }
            Action::SetPlayerValue { key, .. } => {
                check_text("value", key).map_err(|f| ActionError::forbidden(f.detail))
            }
            Action::SetPhase { phase } => check_text("phase", phase).map_err(|f| ActionError::forbidden(f.detail)),
            Action::NextTurn | Action::Roll { .. } | Action::Flip => Ok(()),
            Action::Mulligan { .. } => {
                if self.library_locked(actor) {
                    return Err(ActionError::stale("the library is already being shuffled"));
                }
                self.check_library_room(actor, self.game.table.zone(ZoneId::hand(actor)).len())?;
                self.game.table.zone(ZoneId::hand(actor)).iter().try_for_each(|id| self.check_not_pinned(*id))
            }
            Action::AddCard { card, to, .. } => {
                if card.owner != actor {
                    return Err(ActionError::forbidden("a token must belong to its creator"));
                }
                if card.name.is_empty() || card.name.len() > MAX_NAME_LEN {
                    return Err(ActionError::forbidden("a token needs a name of at most 200 bytes"));
                }
                if to.kind == ZoneKind::Library || (to.kind == ZoneKind::Sideboard && to.owner != actor) {
                    return Err(ActionError::forbidden("tokens are created outside libraries"));
                }
                if self.game.tokens.contains_key(&card.point::<G>(&self.game.game_id.expect("set"))) {
                    return Err(ActionError::forbidden("this token exists already"));
                }
                if self.game.tokens.values().filter(|token| token.owner == actor).count() >= wire::MAX_TOKENS {
                    return Err(ActionError::forbidden(format!("at most {} tokens per player", wire::MAX_TOKENS)));
                }
                // Ids are numbered per owner below the next owner's range: a full range ends tokens.
                if self.next_card_id(actor).0 > Self::id_base(actor) + GUEST_CARD_OFFSET - 1 {
                    return Err(ActionError::forbidden("no card ids left for more tokens"));
                }
                Ok(())
            }
        }
    }

    /// Applies a checked action, in the game's order, and starts what it sets off.
    fn apply_action(&mut self, actor: Seat, action: Action) {
        let number = self.game.actions_applied;
        self.game.actions_applied += 1;
        let opponent = actor.opponent();
        // The opponent changing this player's cards in place (moves say so themselves).
        let touched = match &action {
            Action::Rearrange { card, .. } | Action::Tap { card, .. } | Action::SetCardValue { card, .. } => {
                Some(*card)
            }
            _ => None,
        };
        if let Some(card) = touched.and_then(|id| self.game.table.card(id))
            && actor != self.seat
            && (card.owner == self.seat || card.zone.owner == self.seat)
        {
            let detail = format!("opponent changed card {} in {}", card.id, card.zone);
            self.raise(Fault::new(AlertKind::MovedYourCards, detail), None);
        }
        match &action {
            Action::Draw { count } => {
                let cards = self.game.table.top(ZoneId::library(actor), *count).expect("checked");
                for id in &cards {
                    self.game
                        .table
                        .move_card(*id, ZoneId::hand(actor), Position::Bottom, Placement::default())
                        .expect("checked");
                }
                self.start_unlock(number, cards, Knowledge::only(actor));
            }
            Action::Peek { count } => {
                let cards = self.game.table.top(ZoneId::library(actor), *count).expect("checked");
                self.start_unlock(number, cards, Knowledge::only(actor));
            }
            Action::TakeFromLibrary { count } => {
                let cards = self.game.table.top(ZoneId::library(opponent), *count).expect("checked");
                for id in &cards {
                    self.game
                        .table
                        .move_card(*id, ZoneId::hand(actor), Position::Bottom, Placement::default())
                        .expect("checked");
                }
                if actor != self.seat {
                    self.raise(
                        Fault::new(
                            AlertKind::LookedAtYourCards,
                            format!("opponent took {count} card(s) from your library"),
                        ),
                        None,
                    );
                }
                self.start_unlock(number, cards, Knowledge::only(actor));
            }
            Action::Move { card, to, position, placement } => {
                let before = self.game.table.card(*card).expect("checked").clone();
                self.game.table.move_card(*card, *to, *position, *placement).expect("checked");
                if actor != self.seat && (before.owner == self.seat || before.zone.owner == self.seat) {
                    self.raise(
                        Fault::new(
                            AlertKind::MovedYourCards,
                            format!("opponent moved card {card} from {} to {to}", before.zone),
                        ),
                        None,
                    );
                }
                let audience = match to.kind {
                    ZoneKind::Graveyard | ZoneKind::Exile => Knowledge::BOTH,
                    ZoneKind::Play if !placement.face_down => Knowledge::BOTH,
                    ZoneKind::Hand | ZoneKind::Sideboard => Knowledge::only(to.owner),
                    ZoneKind::Play | ZoneKind::Library => Knowledge::NOBODY,
                };
                self.start_unlock(number, vec![*card], audience);
            }
            Action::Rearrange { card, index } => {
                let zone = self.game.table.card(*card).expect("checked").zone;
                let placement = self.game.table.card(*card).expect("checked").placement;
                self.game.table.move_card(*card, zone, Position::Index(*index), placement).expect("checked");
            }
            Action::Shuffle { permutation: Some(permutation) } => {
                self.game.table.permute(ZoneId::library(actor), permutation).expect("checked");
                self.emit(Event::Shuffled { library: actor });
            }
            Action::Shuffle { permutation: None } => self.start_shuffle(actor, number),
            Action::Reveal { cards, to } => {
                let audience = to.map_or(Knowledge::BOTH, Knowledge::only);
                self.start_unlock(number, cards.clone(), audience);
            }
            Action::ShowRandom => {
                let hand = self.game.table.zone(ZoneId::hand(actor)).to_vec();
                self.start_random(number, actor, RandomKind::ShowRandom(hand));
            }
            Action::Tap { card, tapped } => self.game.table.card_mut(*card).expect("checked").tapped = *tapped,
            Action::SetCardValue { card, key, value } => {
                let counters = &mut self.game.table.card_mut(*card).expect("checked").counters;
                match value {
                    Some(value) => counters.insert(key.clone(), *value),
                    None => counters.remove(key),
                };
            }
            Action::SetPlayerValue { key, value } => {
                self.game.table.player_mut(actor).values.insert(key.clone(), *value);
            }
            Action::SetPhase { phase } => self.game.table.phase = phase.clone(),
            Action::NextTurn => {
                self.game.table.turn += 1;
                self.game.table.active = Some(self.game.table.active.map_or(opponent, Seat::opponent));
            }
            Action::Roll { dice } => self.start_random(number, actor, RandomKind::Roll(*dice)),
            Action::Flip => self.start_random(number, actor, RandomKind::Flip),
            Action::Mulligan { draw } => {
                for id in self.game.table.zone(ZoneId::hand(actor)).to_vec() {
                    if self.game.table.card(id).is_some_and(|c| c.owner == actor) {
                        let library = ZoneId::library(actor);
                        self.game
                            .table
                            .move_card(id, library, Position::Bottom, Placement::default())
                            .expect("own card");
                    }
                }
                self.start_shuffle(actor, number);
                if actor == self.seat {
                    self.game.mulligan_draw = Some(*draw);
                }
            }
            Action::AddCard { card, to, placement } => {
                let point = card.point::<G>(&self.game.game_id.expect("set"));
                let id = self.next_card_id(actor);
                let new = Card {
                    id,
                    owner: actor,
                    back: card.back,
                    zone: *to,
                    placement: if to.kind == ZoneKind::Play { *placement } else { Placement::default() },
                    tapped: false,
                    counters: BTreeMap::new(),
                    known_to: Knowledge::BOTH,
                };
                self.game.table.add_card(new, Position::Top).expect("checked");
                self.game.forms.insert(id, Form { element: point.clone(), layers: [None, None] });
                self.game.planned.insert(id, [None, None]);
                self.game.tokens.insert(point, card.clone());
                self.game.identities.insert(id, card.clone());
                self.emit(Event::Learned { card: id, instance: card.clone() });
            }
        }
        self.emit(Event::Applied { number, by: actor, action });
    }

    // ----- unlocking: strips in turn, then learning -----

    /// Unlocks `cards` for `audience`: the holders of their layers strip in turn. Who
    /// will know each card is settled here, at once, in the game's order.
    fn start_unlock(&mut self, number: u64, cards: Vec<CardId>, audience: Knowledge) {
        let cards: Vec<CardId> = cards
            .into_iter()
            .filter(|id| {
                let known = self.game.table.card(*id).expect("unlocked cards exist").known_to;
                known.union(audience) != known
            })
            .collect();
        if cards.is_empty() {
            return;
        }
        let both = audience == Knowledge::BOTH;
        let mut steps = VecDeque::new();
        for holder in Seat::BOTH {
            let due: Vec<CardId> = cards
                .iter()
                .copied()
                .filter(|id| (both || !audience.knows(holder)) && self.game.planned[id][index(holder)].is_some())
                .collect();
            for id in &due {
                self.game.planned.get_mut(id).expect("planned with its form")[index(holder)] = None;
            }
            if !due.is_empty() {
                steps.push_back((holder, due));
            }
        }
        let learners: Vec<Knowledge> = cards
            .iter()
            .map(|id| match self.game.planned[id] {
                [None, None] => Knowledge::BOTH,
                [Some(_), None] => Knowledge::only(Seat::Host),
                [None, Some(_)] => Knowledge::only(Seat::Guest),
                [Some(_), Some(_)] => Knowledge::NOBODY,
            })
            .collect();
        for (id, learners) in cards.iter().zip(&learners) {
            let card = self.game.table.card_mut(*id).expect("unlocked cards exist");
            card.known_to = card.known_to.union(*learners);
        }
        self.game.unlocks.insert(number, Unlock { cards, steps, learners });
        self.advance_unlocks();
    }

    /// Whether an earlier unlock of one of the same cards is still under way.
    fn unlock_blocked(&self, number: u64) -> bool {
        let cards = &self.game.unlocks[&number].cards;
        self.game.unlocks.range(..number).any(|(_, earlier)| earlier.cards.iter().any(|c| cards.contains(c)))
    }

    /// Runs every unlock that can run: sends this engine's strips when it is its turn, and
    /// finishes unlocks whose strips are all in.
    fn advance_unlocks(&mut self) {
        loop {
            let runnable = self.game.unlocks.keys().copied().find(|&number| {
                !self.unlock_blocked(number)
                    && self.game.unlocks[&number].steps.front().is_none_or(|(holder, _)| *holder == self.seat)
            });
            let Some(number) = runnable else { return };
            let unlock = &self.game.unlocks[&number];
            match unlock.steps.front() {
                None => self.finish_unlock(number),
                Some((_, cards)) => {
                    let cards = cards.clone();
                    self.send_strips(number, &cards);
                }
            }
        }
    }

    fn send_strips(&mut self, number: u64, cards: &[CardId]) {
        let seq = self.outgoing.next_seq;
        let context = self.context(seq, format!("unlock/{number}"));
        let mut groups: BTreeMap<KeyRef, Vec<CardId>> = BTreeMap::new();
        for id in cards {
            let key = self.game.forms[id].layers[index(self.seat)].expect("planned strips are of present layers");
            groups.entry(key).or_default().push(*id);
        }
        let mut strip_groups = Vec::new();
        for (key, cards) in groups {
            let locked: Vec<G::Element> = cards.iter().map(|id| self.game.forms[id].element.clone()).collect();
            let lock_key = self.game.keys.get(&key).expect("a holder keeps every key it locked with");
            let (forms, proof) = lock_key.strip_with_proof(&locked, &context, &mut self.rng);
            strip_groups.push(StripGroup { key, cards, forms, proof });
        }
        self.send(&Message::Strip { unlock: number, groups: strip_groups.clone() });
        self.apply_strips(number, strip_groups);
    }

    fn receive_strip(&mut self, seq: u64, number: u64, groups: Vec<StripGroup<G>>) -> Result<(), Fault> {
        let peer = self.seat.opponent();
        let unlock = self
            .game
            .unlocks
            .get(&number)
            .ok_or_else(|| Fault::new(AlertKind::Unexpected, format!("strip for unknown unlock {number}")))?;
        let due = match unlock.steps.front() {
            Some((holder, due)) if *holder == peer && !self.unlock_blocked(number) => due,
            _ => return Err(Fault::new(AlertKind::Unexpected, format!("strip out of turn for unlock {number}"))),
        };
        let mut due: BTreeMap<CardId, KeyRef> = due
            .iter()
            .map(|id| (*id, self.game.forms[id].layers[index(peer)].expect("planned strips are of present layers")))
            .collect();
        let context = self.context(seq, format!("unlock/{number}"));
        for group in &groups {
            if group.cards.len() != group.forms.len() {
                return Err(Fault::new(AlertKind::Malformed, "strip group lengths differ"));
            }
            for id in &group.cards {
                if due.remove(id) != Some(group.key) {
                    return Err(Fault::new(
                        AlertKind::Unexpected,
                        format!("strip of card {id} that is not due, or with the wrong key"),
                    ));
                }
            }
            if group.cards.is_empty() {
                return Err(Fault::new(AlertKind::Unexpected, "an empty strip group"));
            }
            // Every card of the group was due with this key, so its commitment is known.
            let commitment = self.game.commitments.get(&group.key).expect("due keys have commitments");
            let locked: Vec<G::Element> = group.cards.iter().map(|id| self.game.forms[id].element.clone()).collect();
            commitment
                .verify_strip(&locked, group.forms.clone(), &group.proof, &context)
                .map_err(|e| Fault::new(AlertKind::BadProof, format!("strip for unlock {number}: {e}")))?;
        }
        if let Some(id) = due.keys().next() {
            return Err(Fault::new(AlertKind::Unexpected, format!("strip of unlock {number} misses card {id}")));
        }
        self.apply_strips(number, groups);
        self.advance_unlocks();
        Ok(())
    }

    fn apply_strips(&mut self, number: u64, groups: Vec<StripGroup<G>>) {
        for group in groups {
            for (id, element) in group.cards.into_iter().zip(group.forms) {
                let form = self.game.forms.get_mut(&id).expect("stripped cards exist");
                form.element = element;
                form.layers[index(group.key.holder)] = None;
            }
        }
        if let Some(unlock) = self.game.unlocks.get_mut(&number) {
            unlock.steps.pop_front();
        }
    }

    /// All strips are in: the learners read each card's point from its owner's catalogue.
    fn finish_unlock(&mut self, number: u64) {
        let Some(unlock) = self.game.unlocks.remove(&number) else { return };
        for (id, learners) in unlock.cards.into_iter().zip(unlock.learners) {
            if !learners.knows(self.seat) || self.game.identities.contains_key(&id) {
                continue;
            }
            let point = self.identity_point(id).expect("the opponent's strips are in");
            let owner = self.game.table.card(id).expect("unlocked cards exist").owner;
            let back = self.game.table.card(id).expect("unlocked cards exist").back;
            let opened = match self.game.tokens.get(&point) {
                Some(token) => Ok(token.clone()),
                None => self.game.catalogues[&owner].open::<G>(&point),
            }
            .and_then(|instance| {
                if instance.owner == owner && instance.back == back {
                    Ok(instance)
                } else {
                    Err(crate::crypto::CatalogueError::WrongCard)
                }
            });
            match opened {
                Ok(instance) => {
                    self.game.identities.insert(id, instance.clone());
                    self.emit(Event::Learned { card: id, instance });
                }
                // The opponent's strips were proven, so a card of this player's own that does not
                // open means this engine's own state does not hold together: nobody is to blame.
                Err(error) if owner == self.seat => {
                    let detail = format!("this player's own card {id} does not open in its own catalogue: {error}");
                    self.raise(Fault::new(AlertKind::NotInDeck, detail), None);
                }
                Err(error) => {
                    let evidence = self.game.deck_envelopes.get(&owner).cloned();
                    let fault = Fault::new(
                        AlertKind::NotInDeck,
                        format!("card {id} does not open in its owner's catalogue: {error}"),
                    );
                    self.raise(fault, evidence);
                }
            }
        }
    }

    // ----- library shuffles -----

    /// A full shuffle with fresh locks: whoever might know cards is hidden from by the
    /// other player's step.
    fn start_shuffle(&mut self, library: Seat, number: u64) {
        let owner_known = self
            .game
            .table
            .zone(ZoneId::library(library))
            .iter()
            .any(|id| self.game.table.card(*id).is_some_and(|c| c.known_to.knows(library)));
        let other_known = self
            .game
            .table
            .zone(ZoneId::library(library))
            .iter()
            .any(|id| self.game.table.card(*id).is_some_and(|c| c.known_to.knows(library.opponent())));
        let mut steps = VecDeque::new();
        if other_known {
            steps.push_back(library);
        }
        if owner_known || steps.is_empty() {
            steps.push_back(library.opponent());
        }
        // The first stepper relocks its own cards in its step; the other one must do it before.
        let other = steps[0].opponent();
        let current = self.current_key(other, library);
        let stale = self
            .game
            .table
            .zone(ZoneId::library(library))
            .iter()
            .any(|id| self.game.planned[id][index(other)] != current);
        let relock_first = stale.then_some(other);
        let arrangement = self.start_arrangement(library, number + 1);
        self.game.shuffles.insert(
            library,
            ShuffleRun { relock_first, steps, stage: ShuffleStage::Waiting, arrangement, own_response: None },
        );
    }

    /// Relocks this player's stale cards of a library and tells the other player.
    fn send_relock(&mut self, library: Seat) {
        let seq = self.outgoing.next_seq;
        let context = self.context(seq, format!("relock/{}", library.id_byte()));
        let relock = self.relock_stale(library, &context);
        self.send(&Message::Relock { library, relock });
        self.game.shuffles.get_mut(&library).expect("a shuffle is under way").relock_first = None;
    }

    /// Brings every card of `library` to this player's current key, with proofs.
    fn relock_stale(&mut self, library: Seat, context: &ProofContext) -> Vec<RelockGroup<G>> {
        let seat = self.seat;
        let current = self.current_key(seat, library);
        let mut relock = Vec::new();
        for (from, cards) in self.stale_layers(seat, library) {
            let forms: Vec<G::Element> = cards.iter().map(|id| self.game.forms[id].element.clone()).collect();
            let key = &self.game.keys[&current.expect("stale layers exist only under a current key")];
            let (relocked, proof) =
                key.relock_with_proof(from.map(|k| &self.game.keys[&k]), &forms, context, &mut self.rng);
            for (id, element) in cards.iter().zip(&relocked) {
                let form = self.game.forms.get_mut(id).expect("library cards exist");
                form.element = element.clone();
                form.layers[index(seat)] = current;
                self.game.planned.insert(*id, form.layers);
            }
            relock.push(RelockGroup { from, cards, forms: relocked, proof });
        }
        relock
    }

    /// Checks and applies the other player's relock of its stale cards of `library`.
    fn accept_relock(&mut self, library: Seat, groups: &[RelockGroup<G>], context: &ProofContext) -> Result<(), Fault> {
        let peer = self.seat.opponent();
        let current = self.current_key(peer, library);
        let mut stale = self.stale_layers(peer, library);
        let mut relocked: HashMap<CardId, G::Element> = HashMap::new();
        for group in groups {
            // Each group must be exactly one set of stale cards: nothing else is accepted, so
            // the keys it names are keys this engine knows.
            let expected = stale.remove(&group.from).unwrap_or_default();
            if expected.is_empty() || expected != group.cards || group.forms.len() != group.cards.len() {
                return Err(Fault::new(AlertKind::Unexpected, "relock groups do not match the library"));
            }
            let to = current
                .and_then(|k| self.game.commitments.get(&k))
                .expect("stale cards exist only under a current key");
            let from = group.from.map(|k| self.game.commitments[&k].clone());
            let forms: Vec<G::Element> = group.cards.iter().map(|id| self.game.forms[id].element.clone()).collect();
            to.verify_relock(from.as_ref(), &forms, group.forms.clone(), &group.proof, context)
                .map_err(|e| Fault::new(AlertKind::BadProof, format!("relock before shuffle: {e}")))?;
            relocked.extend(group.cards.iter().copied().zip(group.forms.iter().cloned()));
        }
        if !stale.is_empty() {
            return Err(Fault::new(AlertKind::Unexpected, "relock groups leave cards under old keys"));
        }
        for (id, element) in relocked {
            let form = self.game.forms.get_mut(&id).expect("library cards exist");
            form.element = element;
            form.layers[index(peer)] = current;
            self.game.planned.insert(id, form.layers);
        }
        Ok(())
    }

    fn receive_relock(&mut self, seq: u64, library: Seat, groups: Vec<RelockGroup<G>>) -> Result<(), Fault> {
        let peer = self.seat.opponent();
        let due = self.game.shuffles.get(&library).is_some_and(|run| run.relock_first == Some(peer));
        if !due || self.library_unlocking(library) {
            return Err(Fault::new(AlertKind::Unexpected, "a relock out of turn"));
        }
        let context = self.context(seq, format!("relock/{}", library.id_byte()));
        self.accept_relock(library, &groups, &context)?;
        self.game.shuffles.get_mut(&library).expect("checked").relock_first = None;
        Ok(())
    }

    /// Whether cards of a library are still being unlocked (a shuffle step waits for them).
    fn library_unlocking(&self, library: Seat) -> bool {
        let cards = self.game.table.zone(ZoneId::library(library));
        self.game.unlocks.values().any(|u| u.cards.iter().any(|c| cards.contains(c)))
    }

    fn current_key(&self, holder: Seat, library: Seat) -> Option<KeyRef> {
        self.game.current_keys.get(&(holder, library)).map(|&epoch| KeyRef { holder, library, epoch })
    }

    /// The cards of `library` not yet under `holder`'s current key, grouped by their layer.
    fn stale_layers(&self, holder: Seat, library: Seat) -> BTreeMap<Option<KeyRef>, Vec<CardId>> {
        let current = self.current_key(holder, library);
        let mut groups: BTreeMap<Option<KeyRef>, Vec<CardId>> = BTreeMap::new();
        if current.is_none() {
            return groups;
        }
        for id in self.game.table.zone(ZoneId::library(library)) {
            let layer = self.game.forms[id].layers[index(holder)];
            if layer != current {
                groups.entry(layer).or_default().push(*id);
            }
        }
        groups
    }

    fn send_shuffle_step(&mut self, library: Seat) {
        let seat = self.seat;
        let seq = self.outgoing.next_seq;
        let context = self.context(seq, format!("shuffle/{}", library.id_byte()));
        let current = self.current_key(seat, library);
        let relock = self.relock_stale(library, &context);
        let groups = self.back_groups_to_shuffle(library, seq);
        let fresh = LockKey::<G>::generate(&mut self.rng);
        let fresh_commitment = fresh.commitment().clone();
        let mut commits = Vec::with_capacity(groups.len());
        let mut pendings = Vec::with_capacity(groups.len());
        let mut outputs = Vec::new();
        for group in groups {
            let (commit, pending) =
                fresh.lock_and_shuffle(&group.inputs, Soundness::Interactive, &group.context, &mut self.rng);
            outputs.extend(group.cards.into_iter().zip(commit.cards.iter().cloned()));
            commits.push(commit);
            pendings.push(pending);
        }
        // The holder's key on this library becomes current × fresh (or fresh, the first time).
        let (new_key, combined) = match current {
            Some(current) => {
                let (combined, proof) = self.game.keys[&current].combine_with_proof(&fresh, &context, &mut self.rng);
                let commitment = combined.commitment().clone();
                (combined, Some((commitment, proof)))
            }
            None => (fresh, None),
        };
        let new_ref = KeyRef { holder: seat, library, epoch: current.map_or(0, |k| k.epoch + 1) };
        let step = ShuffleStep { library, relock, fresh: fresh_commitment, commits, combined };
        self.send(&Message::ShuffleStep { step });
        if let Some(run) = self.game.shuffles.get_mut(&library) {
            run.stage = ShuffleStage::Committed { pendings, new_key, new_ref, outputs };
        }
    }

    /// The library's back groups with their current forms, each with the proof context of
    /// its shuffle in the step that is message `seq`.
    fn back_groups_to_shuffle(&self, library: Seat, seq: u64) -> Vec<BackGroup<G>> {
        self.back_groups(library)
            .into_iter()
            .enumerate()
            .map(|(group, cards)| BackGroup {
                inputs: cards.iter().map(|id| self.game.forms[id].element.clone()).collect(),
                cards,
                context: self.context(seq, format!("shuffle/{}/{group}", library.id_byte())),
            })
            .collect()
    }

    fn receive_shuffle_step(&mut self, seq: u64, step: ShuffleStep<G>) -> Result<(), Fault> {
        let peer = self.seat.opponent();
        let library = step.library;
        let run = self
            .game
            .shuffles
            .get(&library)
            .ok_or_else(|| Fault::new(AlertKind::Unexpected, "a shuffle step for a library nobody is shuffling"))?;
        if run.relock_first.is_some() || run.steps.front() != Some(&peer) || !matches!(run.stage, ShuffleStage::Waiting)
        {
            return Err(Fault::new(AlertKind::Unexpected, "a shuffle step out of turn"));
        }
        if self.library_unlocking(library) {
            return Err(Fault::new(AlertKind::Unexpected, "a shuffle step before the library's reveals were done"));
        }
        if *step.fresh.element() == G::generator() {
            return Err(Fault::new(
                AlertKind::Stacking,
                "a shuffle step locked with the unit key: no fresh lock at all",
            ));
        }
        let context = self.context(seq, format!("shuffle/{}", library.id_byte()));
        let current = self.current_key(peer, library);
        self.accept_relock(library, &step.relock, &context)?;
        match (&current, &step.combined) {
            (Some(current), Some((combined, proof))) => {
                self.game.commitments[current]
                    .verify_combined(&step.fresh, combined.clone(), proof, &context)
                    .map_err(|e| Fault::new(AlertKind::BadProof, format!("combined shuffle key: {e}")))?;
            }
            (None, None) => {}
            _ => {
                return Err(Fault::new(
                    AlertKind::Unexpected,
                    "combined key present without a current key, or missing",
                ));
            }
        }
        let groups = self.back_groups_to_shuffle(library, seq);
        if step.commits.len() != groups.len() {
            return Err(Fault::new(
                AlertKind::BadProof,
                format!("a shuffle step of {} groups for a library of {} backs", step.commits.len(), groups.len()),
            ));
        }
        let challenge = ShuffleChallenge::random(&mut self.rng);
        self.send(&Message::ShuffleChallenge { library, challenge });
        let run = self.game.shuffles.get_mut(&library).expect("checked above");
        run.stage = ShuffleStage::Challenged { step, groups, challenge };
        Ok(())
    }

    fn receive_challenge(&mut self, library: Seat, challenge: ShuffleChallenge) -> Result<(), Fault> {
        let run = self
            .game
            .shuffles
            .get_mut(&library)
            .ok_or_else(|| Fault::new(AlertKind::Unexpected, "a challenge for a library nobody is shuffling"))?;
        let ShuffleStage::Committed { .. } = run.stage else {
            return Err(Fault::new(AlertKind::Unexpected, "a challenge out of turn"));
        };
        let ShuffleStage::Committed { pendings, new_key, new_ref, outputs } =
            std::mem::replace(&mut run.stage, ShuffleStage::Waiting)
        else {
            unreachable!("matched above")
        };
        let responses = pendings.into_iter().map(|pending| pending.respond(Some(&challenge))).collect();
        run.own_response = Some(self.outgoing.next_seq);
        self.send(&Message::ShuffleResponse { library, responses });
        self.game.commitments.insert(new_ref, new_key.commitment().clone());
        self.game.keys.insert(new_ref, new_key);
        self.finish_shuffle_step(library, new_ref, outputs);
        Ok(())
    }

    fn receive_response(
        &mut self,
        library: Seat,
        responses: Vec<crate::crypto::ShuffleResponse<G>>,
    ) -> Result<(), Fault> {
        let peer = self.seat.opponent();
        let run =
            self.game.shuffles.get_mut(&library).ok_or_else(|| {
                Fault::new(AlertKind::Unexpected, "a shuffle response for a library nobody is shuffling")
            })?;
        let ShuffleStage::Challenged { .. } = run.stage else {
            return Err(Fault::new(AlertKind::Unexpected, "a shuffle response out of turn"));
        };
        let ShuffleStage::Challenged { step, groups, challenge } =
            std::mem::replace(&mut run.stage, ShuffleStage::Waiting)
        else {
            unreachable!("matched above")
        };
        if responses.len() != groups.len() {
            return Err(Fault::new(AlertKind::BadProof, "a shuffle response does not answer every group"));
        }
        let mut outputs = Vec::new();
        for ((group, commit), response) in groups.into_iter().zip(step.commits).zip(&responses) {
            let shuffled = step
                .fresh
                .verify_shuffle(&group.inputs, commit, &challenge, response, &group.context)
                .map_err(|e| Fault::new(AlertKind::BadProof, format!("shuffle of the {library:?} library: {e}")))?;
            outputs.extend(group.cards.into_iter().zip(shuffled.into_inner().cards));
        }
        let current = self.current_key(peer, library);
        let new_ref = KeyRef { holder: peer, library, epoch: current.map_or(0, |k| k.epoch + 1) };
        let new_commitment = step.combined.map_or(step.fresh, |(combined, _)| combined);
        self.game.commitments.insert(new_ref, new_commitment);
        self.finish_shuffle_step(library, new_ref, outputs);
        Ok(())
    }

    /// Puts a verified shuffle step's output in place: the stepper's layer is the new key,
    /// and only the stepper can still tell which card went where.
    fn finish_shuffle_step(&mut self, library: Seat, new_ref: KeyRef, outputs: Vec<(CardId, G::Element)>) {
        let stepper = new_ref.holder;
        for (id, element) in outputs {
            let form = self.game.forms.get_mut(&id).expect("library cards exist");
            form.element = element;
            form.layers[index(stepper)] = Some(new_ref);
            self.game.planned.insert(id, form.layers);
            let card = self.game.table.card_mut(id).expect("library cards exist");
            // Only the stepper could follow a card it knew through its own permutation, and
            // runs are planned so that the other player's step comes after any such card
            // (see `start_shuffle`): once the run ends, nobody knows any card of it.
            card.known_to = Knowledge::NOBODY;
            self.game.identities.remove(&id);
        }
        self.game.current_keys.insert((stepper, library), new_ref.epoch);
        self.game.shuffles.get_mut(&library).expect("a shuffle is under way").steps.pop_front();
        self.finish_run_if_done(library);
    }

    /// A run is done when its last step is in and its backs' arrangement is drawn: the
    /// library takes the arrangement, and play (or set-up) goes on.
    fn finish_run_if_done(&mut self, library: Seat) {
        let Some(run) = self.game.shuffles.get(&library) else { return };
        if !run.steps.is_empty() || matches!(run.arrangement, Arrangement::Drawing) {
            return;
        }
        let run = self.game.shuffles.remove(&library).expect("seen above");
        if let Arrangement::Drawn(order) = run.arrangement {
            let before = self.game.table.zone(ZoneId::library(library)).to_vec();
            self.game.table.permute(ZoneId::library(library), &order).expect("an order of this library");
            // The host completes the run only once the guest's last response reaches it: until
            // then its table, and the turn digest it sends, have the library's old order.
            if self.seat == Seat::Guest
                && let Some(seq) = run.own_response
                && seq >= self.peer_ack
            {
                self.game.unseen_reorders.push(UnseenReorder { seq, library, before });
            }
        }
        if self.game.ready {
            self.emit(Event::Shuffled { library });
            if library == self.seat
                && let Some(draw) = self.game.mulligan_draw.take()
                && draw > 0
            {
                self.follow_up(Action::Draw { count: draw });
            }
        } else {
            self.game.setup_done.insert(library);
            self.emit(Event::SetupProgress { done: self.game.setup_done.len() as u32, total: SETUP_SHUFFLES });
            if self.game.setup_done.len() as u32 == SETUP_SHUFFLES {
                self.game.ready = true;
                self.emit(Event::Ready);
            }
        }
    }

    // ----- shared randomness -----

    fn start_random(&mut self, number: u64, by: Seat, kind: RandomKind) {
        let purpose = format!("random/{number}");
        let game_id = self.game.game_id.expect("set");
        let (mine, commitment) = SharedRandom::start(&purpose, game_id, self.seat, &mut self.rng);
        self.send(&Message::RandomCommit { round: number, commitment });
        self.game.randoms.insert(number, RandomRound { by, kind, stage: Some(RandomStage::Committed { mine }) });
    }

    fn receive_random_commit(&mut self, round: u64, commitment: crate::crypto::Commitment) -> Result<(), Fault> {
        let entry =
            self.game.randoms.get_mut(&round).ok_or_else(|| {
                Fault::new(AlertKind::Unexpected, format!("commitment for unknown random round {round}"))
            })?;
        let Some(RandomStage::Committed { .. }) = &entry.stage else {
            return Err(Fault::new(AlertKind::Unexpected, format!("second commitment for random round {round}")));
        };
        let Some(RandomStage::Committed { mine, .. }) = entry.stage.take() else { unreachable!("matched above") };
        let (waiting, opening) = mine
            .reveal(commitment)
            .map_err(|e| Fault::new(AlertKind::BadProof, format!("random round {round}: {e}")))?;
        entry.stage = Some(RandomStage::Opened { waiting });
        self.send(&Message::RandomOpen { round, opening });
        Ok(())
    }

    fn receive_random_open(&mut self, round: u64, opening: crate::crypto::Opening) -> Result<(), Fault> {
        let Some(RandomRound { stage: stage @ Some(RandomStage::Opened { .. }), .. }) =
            self.game.randoms.get_mut(&round)
        else {
            return Err(Fault::new(AlertKind::Unexpected, format!("opening for random round {round} out of turn")));
        };
        let Some(RandomStage::Opened { waiting }) = stage.take() else { unreachable!("matched above") };
        let seed = waiting
            .finish(&opening)
            .map_err(|e| Fault::new(AlertKind::BadProof, format!("random round {round}: {e}")))?
            .into_inner();
        match self.seat {
            Seat::Host => {
                self.send(&Message::RandomSettle { round });
                self.settle_random(round, seed);
            }
            Seat::Guest => {
                self.game.randoms.get_mut(&round).expect("matched above").stage = Some(RandomStage::Settled { seed });
            }
        }
        Ok(())
    }

    fn receive_random_settle(&mut self, round: u64) -> Result<(), Fault> {
        match self.game.randoms.get_mut(&round) {
            Some(RandomRound { stage: stage @ Some(RandomStage::Settled { .. }), .. }) if self.seat == Seat::Guest => {
                let Some(RandomStage::Settled { seed }) = stage.take() else { unreachable!("matched above") };
                self.settle_random(round, seed);
                Ok(())
            }
            _ => Err(Fault::new(AlertKind::Unexpected, format!("settlement of random round {round} out of turn"))),
        }
    }

    /// Acts on a random outcome, at the same point of the game's order on both sides.
    fn settle_random(&mut self, round: u64, seed: SharedSeed) {
        let RandomRound { by, kind, .. } = self.game.randoms.remove(&round).expect("a settled round exists");
        match kind {
            RandomKind::Roll(dice) => {
                let faces = seed.roll(dice);
                self.emit(Event::Rolled { by, dice, faces });
            }
            RandomKind::Flip => {
                let coin = seed.flip_coin();
                self.emit(Event::Flipped { by, coin });
            }
            RandomKind::Arrangement(library) => {
                let backs: Vec<BackId> = self
                    .game
                    .table
                    .zone(ZoneId::library(library))
                    .iter()
                    .map(|id| self.game.table.card(*id).expect("library cards exist").back)
                    .collect();
                // Seed 000's deck shuffle: the backs' order from the shared state. Within a
                // back the order it gives is public and changes nothing: the steps hid it.
                let order = crate::hash_rng::deck_shuffle(&backs, &mut seed.rng(), &mut seed.rng());
                let run = self.game.shuffles.get_mut(&library).expect("an arrangement belongs to a run");
                run.arrangement = Arrangement::Drawn(order.into_iter().map(|i| i as u32).collect());
                self.finish_run_if_done(library);
            }
            RandomKind::ShowRandom(hand) => {
                let mut rng: HashRng = seed.rng();
                let pick = rng.below(std::num::NonZeroU64::new(hand.len() as u64).expect("checked non-empty")) as usize;
                let card = hand[pick];
                // The pick is among the cards in hand when the action was taken; one that has
                // left the hand since (played, or shuffled away) is named but not revealed.
                let still_in_hand = self.game.table.card(card).is_some_and(|c| c.zone == ZoneId::hand(by));
                self.emit(Event::ShownAtRandom { by, card });
                if still_in_hand {
                    self.start_unlock(round, vec![card], Knowledge::BOTH);
                }
            }
        }
    }

    // ----- the engine's own next steps -----

    /// Sends whatever it is now this engine's turn to send.
    fn drive(&mut self) {
        if self.halted.is_some() {
            return;
        }
        let ready: Vec<(Seat, bool)> = self
            .game
            .shuffles
            .iter()
            .filter(|(library, run)| matches!(run.stage, ShuffleStage::Waiting) && !self.library_unlocking(**library))
            .filter_map(|(library, run)| match run.relock_first {
                Some(holder) => (holder == self.seat).then_some((*library, true)),
                None => (run.steps.front() == Some(&self.seat)).then_some((*library, false)),
            })
            .collect();
        for (library, relock) in ready {
            if relock {
                self.send_relock(library);
            } else {
                self.send_shuffle_step(library);
            }
        }
    }
}

fn forbidden_kind(action: &Action) -> AlertKind {
    match action {
        Action::Shuffle { .. } => AlertKind::Stacking,
        _ => AlertKind::Forbidden,
    }
}

fn check_text(what: &str, text: &str) -> Result<(), Fault> {
    if text.len() > MAX_TEXT_LEN {
        return Err(Fault::new(AlertKind::Malformed, format!("{what} longer than {MAX_TEXT_LEN} bytes")));
    }
    Ok(())
}

/// The public bases of a deck of `len` cards of `owner` (`crypto::deck_base`).
fn deck_bases<G: Group>(game_id: &GameId, owner: Seat, len: usize) -> Vec<G::Element> {
    (0..len).map(|i| crate::crypto::deck_base::<G>(game_id, owner, i as u32)).collect()
}

fn check_deck<G: Group>(deck: &DeckList) -> Result<(), DeckError> {
    if deck.library.is_empty() {
        return Err(DeckError::Empty);
    }
    let max = wire::max_deck_len::<G>();
    if deck.library.len() + deck.sideboard.len() > max {
        return Err(DeckError::TooLarge(max));
    }
    if let Some(card) = deck.library.iter().chain(&deck.sideboard).find(|c| !crate::crypto::name_fits(&c.name)) {
        return Err(DeckError::BadName(card.name.clone()));
    }
    Ok(())
}
