//! The wire protocol between two engines: message bodies, and the signed, numbered,
//! hash-chained envelope around each one. docs/PROTOCOL.md describes every message.

use ed25519_dalek::{Signature, Signer, SigningKey, VerifyingKey};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::codec;
use crate::crypto::{
    BackId, CardInstance, CatalogueEntry, Commitment, Dice, DleqProof, Group, KeyCommitment, Opening, ProvenShuffle,
    Suite,
};
use crate::ids::Seat;
use crate::table::{CardId, Placement, Position, ZoneId};

/// Version 5: a shuffle step carries a non-interactive proof of its shuffle (a linear-size argument), and the
/// `shuffle-challenge` and `shuffle-response` messages are gone. Version 4: envelopes and bodies in a binary
/// encoding (postcard), about a quarter of their JSON size.
/// Version 3 made what a forfeit claim names a typed value (`Awaited`); version 2 had the hello sign the sender's
/// seat.
pub const PROTOCOL_VERSION: u32 = 5;
/// The largest message body accepted (a 300-card modp2048 shuffle step with its relocks is about 0.6 MB).
pub const MAX_MESSAGE_LEN: usize = 8 << 20;
/// Longest chat line, player name, value key or phase name, in bytes.
pub const MAX_TEXT_LEN: usize = 2000;
/// Most cards in one deck (library and sideboard together).
pub const MAX_DECK_LEN: usize = 1000;
/// Most cards in one deck with modp2048: a shuffle step of a 300-card library already takes
/// several seconds to prove and check (it also overflowed `MAX_MESSAGE_LEN` under protocol 4's proof).
pub const MAX_DECK_LEN_MODP2048: usize = 300;

// A library is shuffled by permutations of `u16` indices.
const _: () = assert!(MAX_DECK_LEN <= crate::crypto::MAX_PERMUTATION_LEN);

/// Most tokens one player may create in a game.
pub const MAX_TOKENS: usize = 1000;

/// The most cards a deck may hold in suite `G`.
pub fn max_deck_len<G: Group>() -> usize {
    match G::SUITE {
        crate::crypto::Suite::Ristretto255 => MAX_DECK_LEN,
        crate::crypto::Suite::Modp2048 => MAX_DECK_LEN_MODP2048,
    }
}

/// The most cards a library may hold in suite `G`, tokens moved into it included: as many as
/// a whole deck, whose shuffle step (relocks and proof) fits in `MAX_MESSAGE_LEN`.
pub fn max_library_len<G: Group>() -> usize {
    max_deck_len::<G>()
}

/// A digest of the public table (`Table::digest`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableDigest(#[serde(with = "crate::serde_hex::array")] pub [u8; 32]);

/// A layer key: which player holds it, on which library's cards, and which generation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct KeyRef {
    pub holder: Seat,
    pub library: Seat,
    pub epoch: u32,
}

/// A table action. The host's actions take effect when sent; the guest's are proposals
/// that take effect when the host accepts them, so both tables change in one order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Action {
    /// The top `count` cards of the actor's library go to the actor's hand.
    Draw {
        count: u32,
    },
    /// Any card to any zone; libraries and sideboards take only their owner's cards.
    Move {
        card: CardId,
        to: ZoneId,
        position: Position,
        #[serde(default)]
        placement: Placement,
    },
    /// A new place for a card within its zone.
    Rearrange {
        card: CardId,
        index: u32,
    },
    /// Shuffle the actor's library. `permutation` is given for a clean library only.
    Shuffle {
        permutation: Option<Vec<u32>>,
    },
    /// The actor looks at the top `count` cards of their own library.
    Peek {
        count: u32,
    },
    /// Reveal cards to the opponent (`to` one seat) or to both (`to` absent).
    Reveal {
        cards: Vec<CardId>,
        to: Option<Seat>,
    },
    /// Take the top card of the opponent's library face down: only the taker learns it.
    TakeFromLibrary {
        count: u32,
    },
    /// Show a card picked at random from the actor's hand to both players.
    ShowRandom,
    Tap {
        card: CardId,
        tapped: bool,
    },
    /// Sets (or with `None` removes) a counter on a card in play.
    SetCardValue {
        card: CardId,
        key: String,
        value: Option<i64>,
    },
    SetPlayerValue {
        key: String,
        value: i64,
    },
    SetPhase {
        phase: String,
    },
    NextTurn,
    Roll {
        dice: Dice,
    },
    Flip,
    /// Put the whole hand into the library and shuffle it; the actor then draws `draw`.
    Mulligan {
        draw: u32,
    },
    /// Create a token: a new public card of the actor's, known to both from the start.
    AddCard {
        card: CardInstance,
        to: ZoneId,
        #[serde(default)]
        placement: Placement,
    },
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct StripGroup<G: Group> {
    pub key: KeyRef,
    pub cards: Vec<CardId>,
    pub forms: Vec<G::Element>,
    pub proof: DleqProof<G>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct RelockGroup<G: Group> {
    /// The holder's old key on these cards, or none.
    pub from: Option<KeyRef>,
    pub cards: Vec<CardId>,
    pub forms: Vec<G::Element>,
    pub proof: DleqProof<G>,
}

/// One player's part of a library shuffle: bring every card to their current key, then
/// lock with a fresh key and permute, with the proof of it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct ShuffleStep<G: Group> {
    pub library: Seat,
    pub relock: Vec<RelockGroup<G>>,
    /// The fresh key the shuffle locks with.
    pub fresh: KeyCommitment<G>,
    /// One proven shuffle per back of the library, by ascending back id, each over that
    /// back's cards in the library's order: a step permutes cards among those of one back,
    /// so every position keeps its back (where the backs lie is drawn in common).
    pub shuffles: Vec<ProvenShuffle<G>>,
    /// The holder's key after this step (current key × fresh key), with its proof; absent
    /// when the holder had no key on this library before.
    pub combined: Option<(KeyCommitment<G>, DleqProof<G>)>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(bound = "", rename_all = "kebab-case")]
pub enum Message<G: Group> {
    /// Everything the game depends on that is not in later messages, signed with the key it
    /// carries: the protocol version (which fixes every game parameter: limits, set-up, proofs),
    /// the suite, and the sender's seat, so a journal edited to another suite or seat cannot make
    /// a genuine hello look wrong.
    Hello {
        protocol: u32,
        software: String,
        suite: Suite,
        seat: Seat,
        #[serde(with = "crate::serde_hex::array")]
        signing_key: [u8; 32],
        #[serde(with = "crate::serde_hex::array")]
        nonce: [u8; 32],
        name: String,
    },
    /// The sender's deck: its library and sideboard locked with the sender's key `x`
    /// (committed in `key`), with their backs, and the sealed catalogue that names them.
    /// Every element is `w·base` of its card's public base (`crypto::deck_base`), with one
    /// secret `w` committed in `base_key` and proven by `proof`; a card's identity point,
    /// under which the catalogue seals it, is `x⁻¹·w·base`.
    Deck {
        key: KeyCommitment<G>,
        base_key: KeyCommitment<G>,
        proof: DleqProof<G>,
        library: Vec<(G::Element, BackId)>,
        sideboard: Vec<(G::Element, BackId)>,
        catalogue: Vec<CatalogueEntry>,
    },
    Act {
        action: Action,
        /// How many actions of the game's order the sender had applied when it sent this:
        /// the host checks its own count against it, and tells a guest proposal overtaken
        /// by the host's actions (merely out of date) from a forbidden one.
        seen: u64,
        /// The host's table digest before its `next-turn`, which the guest compares with its
        /// own: the two tables must agree at every turn.
        digest: Option<TableDigest>,
    },
    /// The host accepts the guest's action numbered `seq` (the guest's message number).
    Accept {
        seq: u64,
    },
    /// The host refuses it (it no longer fits the table).
    Reject {
        seq: u64,
        reason: String,
    },
    /// The sender's strips for step `step` of unlock `unlock`.
    Strip {
        unlock: u64,
        groups: Vec<StripGroup<G>>,
    },
    ShuffleStep {
        step: ShuffleStep<G>,
    },
    /// Before a shuffle's first permutation: the sender brings every card of the library
    /// that is not under its current key to it, so both layers are uniform when cards move.
    Relock {
        library: Seat,
        relock: Vec<RelockGroup<G>>,
    },
    /// Commit–reveal for the shared random value `round`.
    RandomCommit {
        round: u64,
        commitment: Commitment,
    },
    RandomOpen {
        round: u64,
        opening: Opening,
    },
    /// The host puts the outcome of round `round` in the game's order: both engines act on
    /// it at this point of the host's messages.
    RandomSettle {
        round: u64,
    },
    /// The game is over for the sender: it reveals the key it locked its deck with, so the
    /// other player can check every element of its deck message against its catalogue
    /// (seed 000's ending handshake). Afterwards the sender takes no more actions.
    Audit {
        deck_key: G::Scalar,
    },
    /// The sender ends the game: the receiver stopped answering `awaited` (what the sender's
    /// engine was waiting on it for), which counts as the receiver's forfeit.
    ForfeitClaim {
        awaited: Awaited,
    },
    /// The sender wants a new game against the same opponent (seed 001's request-new-game).
    /// When both players have sent one, each drops the game and sends its new `deck`.
    NewGame,
    /// The sender asks to see cards (the top `count` of a zone, or all of it).
    RevealRequest {
        zone: ZoneId,
        count: Option<u32>,
    },
    RevealRefuse {
        zone: ZoneId,
    },
    Chat {
        text: String,
    },
    Ping,
    Pong,
}

impl<G: Group> Message<G> {
    /// Which kind of message this is.
    pub fn kind(&self) -> MessageKind {
        match self {
            Message::Hello { .. } => MessageKind::Hello,
            Message::Deck { .. } => MessageKind::Deck,
            Message::Act { .. } => MessageKind::Act,
            Message::Accept { .. } => MessageKind::Accept,
            Message::Reject { .. } => MessageKind::Reject,
            Message::Strip { .. } => MessageKind::Strip,
            Message::ShuffleStep { .. } => MessageKind::ShuffleStep,
            Message::Relock { .. } => MessageKind::Relock,
            Message::RandomCommit { .. } => MessageKind::RandomCommit,
            Message::RandomOpen { .. } => MessageKind::RandomOpen,
            Message::RandomSettle { .. } => MessageKind::RandomSettle,
            Message::Audit { .. } => MessageKind::Audit,
            Message::ForfeitClaim { .. } => MessageKind::ForfeitClaim,
            Message::NewGame => MessageKind::NewGame,
            Message::RevealRequest { .. } => MessageKind::RevealRequest,
            Message::RevealRefuse { .. } => MessageKind::RevealRefuse,
            Message::Chat { .. } => MessageKind::Chat,
            Message::Ping => MessageKind::Ping,
            Message::Pong => MessageKind::Pong,
        }
    }
}

/// The kind of a message, without its content. Declared in the order of [`Message`]'s variants:
/// the binary encoding names a variant by its index, so a body's kind is read from its first
/// bytes alone ([`peek_kind`]; the test `every_kind_peeks_as_itself` holds the two in step).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MessageKind {
    Hello,
    Deck,
    Act,
    Accept,
    Reject,
    Strip,
    ShuffleStep,
    Relock,
    RandomCommit,
    RandomOpen,
    RandomSettle,
    Audit,
    ForfeitClaim,
    NewGame,
    RevealRequest,
    RevealRefuse,
    Chat,
    Ping,
    Pong,
}

impl MessageKind {
    /// The kind's name, as PROTOCOL.md and the alerts spell it.
    pub fn name(self) -> &'static str {
        match self {
            MessageKind::Hello => "hello",
            MessageKind::Deck => "deck",
            MessageKind::Act => "act",
            MessageKind::Accept => "accept",
            MessageKind::Reject => "reject",
            MessageKind::Strip => "strip",
            MessageKind::ShuffleStep => "shuffle-step",
            MessageKind::Relock => "relock",
            MessageKind::RandomCommit => "random-commit",
            MessageKind::RandomOpen => "random-open",
            MessageKind::RandomSettle => "random-settle",
            MessageKind::Audit => "audit",
            MessageKind::ForfeitClaim => "forfeit-claim",
            MessageKind::NewGame => "new-game",
            MessageKind::RevealRequest => "reveal-request",
            MessageKind::RevealRefuse => "reveal-refuse",
            MessageKind::Chat => "chat",
            MessageKind::Ping => "ping",
            MessageKind::Pong => "pong",
        }
    }
}

impl std::fmt::Display for MessageKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A message as it travels: numbered, chained to the sender's previous message, signed.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Envelope {
    pub seq: u64,
    /// How many of the other player's messages the sender had taken in when it sent this
    /// one. The chain hash binds the other stream's head at that point, so every message
    /// says exactly which of the receiver's messages its sender had seen.
    pub ack: u64,
    #[serde(with = "crate::serde_hex::array")]
    pub chain: [u8; 32],
    #[serde(with = "crate::serde_hex::vec")]
    pub body: Vec<u8>,
    #[serde(with = "crate::serde_hex::vec")]
    pub signature: Vec<u8>,
}

impl std::fmt::Debug for Envelope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Envelope(#{} ack {} chain {}, {} body bytes)",
            self.seq,
            self.ack,
            hex::encode(&self.chain[..6]),
            self.body.len()
        )
    }
}

/// Why received bytes were refused before any game meaning was given to them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WireError {
    #[error("message of {0} bytes is over the limit")]
    TooLarge(usize),
    #[error("malformed envelope: {0}")]
    Envelope(String),
    #[error("malformed message: {0}")]
    Body(String),
    #[error("message number {got}, expected {expected} (replayed, reordered or lost)")]
    Sequence { expected: u64, got: u64 },
    #[error("the message does not continue the sender's hash chain")]
    Chain,
    #[error("the message acknowledges {acked} messages, but {sent} were sent and {before} acknowledged before")]
    Ack { acked: u64, sent: u64, before: u64 },
    #[error("bad signature")]
    Signature,
    /// A small-order signing key: one signature would verify every message, so nothing it signs proves anything.
    #[error("the signing key is weak (of small order): its signatures would prove nothing")]
    WeakKey,
}

/// The other player's stream as a sender had taken it in: how many of its messages, and the
/// chain hash of the last one (zeros for none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ack {
    pub count: u64,
    pub head: [u8; 32],
}

/// h_n = SHA-256("fairdeck/v1/record" ‖ h_{n−1} ‖ n ‖ ack count ‖ ack head ‖ len(body) ‖ body):
/// each message commits to everything its sender sent before, and to everything it had
/// received.
pub fn chain_hash(previous: &[u8; 32], seq: u64, ack: &Ack, body: &[u8]) -> [u8; 32] {
    Sha256::new()
        .chain_update(b"fairdeck/v1/record")
        .chain_update(previous)
        .chain_update(seq.to_be_bytes())
        .chain_update(ack.count.to_be_bytes())
        .chain_update(ack.head)
        .chain_update((body.len() as u64).to_be_bytes())
        .chain_update(body)
        .finalize()
        .into()
}

/// One direction of the conversation: numbering, chaining, signing or checking.
#[derive(Clone, Debug)]
pub(crate) struct Stream {
    pub next_seq: u64,
    pub chain: [u8; 32],
}

impl Stream {
    pub fn new() -> Self {
        Stream { next_seq: 0, chain: [0; 32] }
    }

    pub fn seal(&mut self, key: &SigningKey, body: Vec<u8>, ack: Ack) -> Envelope {
        let seq = self.next_seq;
        let chain = chain_hash(&self.chain, seq, &ack, &body);
        let signature = key.sign(&chain).to_bytes().to_vec();
        self.chain = chain;
        self.next_seq += 1;
        Envelope { seq, ack: ack.count, chain, body, signature }
    }

    /// What this stream's receiver has taken in, to acknowledge in the other direction.
    pub fn ack(&self) -> Ack {
        Ack { count: self.next_seq, head: self.chain }
    }

    /// Checks number, chain and signature; advances only if all three hold. `ack_head` is the
    /// head of the other stream after the `envelope.ack` messages it acknowledges.
    pub fn open(&mut self, key: &VerifyingKey, envelope: &Envelope, ack_head: &[u8; 32]) -> Result<(), WireError> {
        check_envelope(key, &self.chain, self.next_seq, ack_head, envelope)?;
        self.chain = envelope.chain;
        self.next_seq += 1;
        Ok(())
    }
}

/// The checks of one received envelope against the sender's stream so far.
pub fn check_envelope(
    key: &VerifyingKey,
    previous: &[u8; 32],
    expected_seq: u64,
    ack_head: &[u8; 32],
    envelope: &Envelope,
) -> Result<(), WireError> {
    if envelope.seq != expected_seq {
        return Err(WireError::Sequence { expected: expected_seq, got: envelope.seq });
    }
    let ack = Ack { count: envelope.ack, head: *ack_head };
    if chain_hash(previous, envelope.seq, &ack, &envelope.body) != envelope.chain {
        return Err(WireError::Chain);
    }
    let signature = Signature::from_slice(&envelope.signature).map_err(|_| WireError::Signature)?;
    // Strict: no small-order R, no weak key, a canonical s; a signature that verifies only loosely is evidence of
    // nothing.
    key.verify_strict(&envelope.chain, &signature).map_err(|_| WireError::Signature)
}

/// Decodes an envelope from received bytes. Total: any input gives a value or an error.
pub fn decode_envelope(bytes: &[u8]) -> Result<Envelope, WireError> {
    if bytes.len() > MAX_MESSAGE_LEN + 1024 {
        return Err(WireError::TooLarge(bytes.len()));
    }
    codec::decode_exact(bytes).map_err(WireError::Envelope)
}

/// An envelope as it travels: its binary encoding.
pub fn encode_envelope(envelope: &Envelope) -> Vec<u8> {
    codec::encode(envelope)
}

/// Decodes a message body; every group element in it is validated on the way.
pub fn decode_body<G: Group>(body: &[u8]) -> Result<Message<G>, WireError> {
    if body.len() > MAX_MESSAGE_LEN {
        return Err(WireError::TooLarge(body.len()));
    }
    codec::decode_exact(body).map_err(WireError::Body)
}

/// A message body as it is signed and sent: its binary encoding.
pub fn encode_body<G: Group>(message: &Message<G>) -> Vec<u8> {
    codec::encode(message)
}

/// A body's kind, read from its first bytes without decoding anything else: the engine checks
/// that a message of that kind is awaited before it validates any element in it.
pub fn peek_kind(body: &[u8]) -> Result<MessageKind, WireError> {
    if body.len() > MAX_MESSAGE_LEN {
        return Err(WireError::TooLarge(body.len()));
    }
    postcard::take_from_bytes::<MessageKind>(body).map(|(kind, _)| kind).map_err(|e| WireError::Body(e.to_string()))
}

/// The suite a peer's first message announces, so a program can pick the engine for it.
pub fn peek_suite(bytes: &[u8]) -> Result<Suite, WireError> {
    let envelope = decode_envelope(bytes)?;
    // A hello begins with its kind, protocol, software and suite, in that order.
    match postcard::take_from_bytes::<(MessageKind, u32, String, Suite)>(&envelope.body) {
        Ok(((MessageKind::Hello, _, _, suite), _)) => Ok(suite),
        Ok(((kind, ..), _)) => Err(WireError::Body(format!("the first message is a {kind}, not a hello"))),
        Err(e) => Err(WireError::Body(codec::unreadable(e).into())),
    }
}

/// The signing key of a hello: a valid point, and not of small order.
pub(crate) fn verifying_key(bytes: &[u8; 32]) -> Result<VerifyingKey, WireError> {
    let key = VerifyingKey::from_bytes(bytes).map_err(|_| WireError::Signature)?;
    if key.is_weak() {
        return Err(WireError::WeakKey);
    }
    Ok(key)
}

/// What one player's engine waits on the other for: the exchange a forfeit claim names.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Awaited {
    /// Its hello, which opens the game.
    Hello,
    /// Its sealed deck.
    Deck,
    /// Its strip of these cards.
    Strip { cards: Vec<CardId> },
    /// Its part (relock, step, challenge or response) of the shuffle of this library.
    Shuffle { library: Seat },
    /// Its side of this random round.
    RandomRound { round: u64 },
    /// The host's answer to the guest's proposal in this message.
    Answer { proposal: u64 },
    /// Its return to the game, after it left (a claim about a connection, which no state proves).
    Return,
}

impl std::fmt::Display for Awaited {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Awaited::Hello => write!(f, "its hello"),
            Awaited::Deck => write!(f, "its deck"),
            Awaited::Strip { cards } => {
                let ids: Vec<String> = cards.iter().map(|c| c.to_string()).collect();
                write!(f, "its strip of {}", ids.join(", "))
            }
            Awaited::Shuffle { library: Seat::Host } => write!(f, "its part of the shuffle of the host's library"),
            Awaited::Shuffle { library: Seat::Guest } => write!(f, "its part of the shuffle of the guest's library"),
            Awaited::RandomRound { round } => write!(f, "its side of random round {round}"),
            Awaited::Answer { proposal } => write!(f, "its answer to the proposal in message {proposal}"),
            Awaited::Return => write!(f, "its return to the game"),
        }
    }
}
