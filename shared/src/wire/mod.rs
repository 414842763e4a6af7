//! The wire protocol between two engines: message bodies, and the signed, numbered,
//! hash-chained envelope around each one. docs/PROTOCOL.md describes every message.

use serde::{Deserialize, Serialize};

use crate::crypto::{
    BackId, CardInstance, CatalogueEntry, Commitment, DleqProof, Group, KeyCommitment, Opening, ProvenShuffle, Suite,
};
use crate::ids::Seat;
use crate::table::{CardId, ZoneId};

mod action;
mod difference;
mod envelope;
mod limited;
pub use action::{Action, ArrowTarget, PeekPurpose};
pub use difference::{CardCounts, DeckDifference, card_counts};
pub use envelope::{
    Ack, Envelope, WireError, chain_hash, check_envelope, decode_body, decode_envelope, encode_body, encode_envelope,
    peek_kind, peek_suite,
};
pub(crate) use envelope::{Stream, verifying_key};
pub use limited::{
    BasicLand, DeckSource, GridLine, LimitedFormat, MAX_DEAL, MAX_GRIDS, MAX_PACKS, MAX_POOL_LEN, PileChoice, PoolHash,
};

/// Version 10: each player's boosters of a set are dealt from stack segments of their own (9 shared one segment a
/// sheet between both players, so that a pool told part of the other's; a 9 and a 10 would disagree on the deal). Version 7: limited play (`limited-pool`, `stack-shuffle`, `stack-deal`, `pool-deck`, `grid-reveal`, `grid-pick`). Version 6: a new-game request names the loser of the game it leaves, as its sender saw it (the agreed loser
/// chooses to play or draw); a deck says how its cards differ from its sender's deck in the match's first game. Version 5: a shuffle step carries a non-interactive proof of its shuffle (a linear-size argument), and the
/// `shuffle-challenge` and `shuffle-response` messages are gone; the command zone, commanders and a deck label in
/// the deck message; concede, attach, arrows, untap all, the choice to play or draw, a token's power and
/// toughness, and why a player looks at their library. Version 4: envelopes and bodies in a binary encoding
/// (postcard), about a quarter of their JSON size. Version 3 made what a forfeit claim names a typed value
/// (`Awaited`); version 2 had the hello sign the sender's seat.
pub const PROTOCOL_VERSION: u32 = 11;
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

/// Most commanders in one deck (a commander and its partner).
pub const MAX_COMMANDERS: usize = 2;

/// Longest deck label (the client's deck hash), in bytes.
pub const MAX_DECK_LABEL_LEN: usize = 32;

/// Whether a deck label may be shown as is: at most [`MAX_DECK_LABEL_LEN`] bytes of printable ASCII, so the
/// opponent's label can neither flood the screen nor carry terminal control sequences.
pub fn deck_label_fits(label: &str) -> bool {
    label.len() <= MAX_DECK_LABEL_LEN && label.bytes().all(|b| b.is_ascii_graphic())
}

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
    /// The player who locked the cards with this key.
    pub holder: Seat,
    /// The owner of the library whose cards the key is on.
    pub library: Seat,
    /// The key's version: 0 when first made, one more at each later shuffle step of its holder on this library.
    pub epoch: u32,
}

/// The sender's strips of cards under one of its keys, with the proof that each was stripped with that key.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct StripGroup<G: Group> {
    /// The key whose layer comes off.
    pub key: KeyRef,
    /// The cards, in the order of `forms`.
    pub cards: Vec<CardId>,
    /// Each card's form with the layer off.
    #[serde(deserialize_with = "crate::crypto::encoding::elements::<G, _>")]
    pub forms: Vec<G::Element>,
    /// One proof for the whole group that the same key made every form.
    pub proof: DleqProof<G>,
}

/// The sender's relock of cards onto its current key, with the proof that it is the same key everywhere.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct RelockGroup<G: Group> {
    /// The holder's old key on these cards, or none.
    pub from: Option<KeyRef>,
    /// The cards, in the order of `forms`.
    pub cards: Vec<CardId>,
    /// Each card's form under the current key.
    #[serde(deserialize_with = "crate::crypto::encoding::elements::<G, _>")]
    pub forms: Vec<G::Element>,
    /// One proof for the whole group, against the commitments of both keys.
    pub proof: DleqProof<G>,
}

/// One player's part of a library shuffle: bring every card to their current key, then
/// lock with a fresh key and permute, with the proof of it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct ShuffleStep<G: Group> {
    /// The owner of the library shuffled.
    pub library: Seat,
    /// The library's cards not yet under the stepper's current key, brought to it: one group per layer they
    /// carried.
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

/// A message body between the two engines, one variant per kind: what a player tells its opponent.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(bound = "", rename_all = "kebab-case")]
pub enum Message<G: Group> {
    /// Everything the game depends on that is not in later messages, signed with the key it
    /// carries: the protocol version (which fixes every game parameter: limits, set-up, proofs),
    /// the suite, and the sender's seat, so a journal edited to another suite or seat cannot make
    /// a genuine hello look wrong.
    Hello {
        /// The protocol version, `PROTOCOL_VERSION`.
        protocol: u32,
        /// Program name and version, shown to the opponent.
        software: String,
        /// The cryptographic suite of the game.
        suite: Suite,
        /// The sender's seat.
        seat: Seat,
        /// The public key that signs every later message of the sender.
        #[serde(with = "crate::serde_hex::array")]
        signing_key: [u8; 32],
        /// 32 random bytes the game id is made of, with the other player's.
        #[serde(with = "crate::serde_hex::array")]
        nonce: [u8; 32],
        /// The sender's player name.
        name: String,
    },
    /// The sender's deck: its library and sideboard locked with the sender's key `x`
    /// (committed in `key`), with their backs, and the sealed catalogue that names them.
    /// Every element is `w·base` of its card's public base (`crypto::deck_base`), with one
    /// secret `w` committed in `base_key` and proven by `proof`; a card's identity point,
    /// under which the catalogue seals it, is `x⁻¹·w·base`.
    ///
    /// The commanders travel in the clear (public from the start, as a token is), at most
    /// [`MAX_COMMANDERS`]; `label` is the sender's name for its deck (the client's deck hash), at most
    /// [`MAX_DECK_LABEL_LEN`] printable ASCII bytes, shown to both.
    Deck {
        /// The commitment to the sender's deck key.
        key: KeyCommitment<G>,
        /// The commitment to the secret `w` of every element's base.
        base_key: KeyCommitment<G>,
        /// The proof that every element is `w` times its card's base, for the `w` of `base_key`.
        proof: DleqProof<G>,
        /// The library, locked, each card with its back, which both players see.
        #[serde(deserialize_with = "crate::crypto::encoding::elements_with::<G, _, _>")]
        library: Vec<(G::Element, BackId)>,
        /// The sideboard, locked, each card with its back.
        #[serde(deserialize_with = "crate::crypto::encoding::elements_with::<G, _, _>")]
        sideboard: Vec<(G::Element, BackId)>,
        /// One sealed entry per card: each opens only with its card's identity point.
        catalogue: Vec<CatalogueEntry>,
        /// The commanders, in the clear.
        commander: Vec<CardInstance>,
        /// The sender's label for its deck.
        label: String,
        /// How the deck's cards differ from the sender's deck in the match's first game (empty in that game): the
        /// sender's own account, which the receiver can check only at the end-of-game audits.
        difference: DeckDifference,
    },
    /// A table action of the sender's: the host's takes effect, the guest's is a proposal.
    Act {
        /// The action.
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
        /// The guest's message number of the proposal.
        seq: u64,
    },
    /// The host refuses it (it no longer fits the table).
    Reject {
        /// The guest's message number of the proposal.
        seq: u64,
        /// Why, in words.
        reason: String,
    },
    /// The sender's strips for step `step` of unlock `unlock`.
    Strip {
        /// The unlock's number: the number of the action that started it.
        unlock: u64,
        /// One group of strips per key that comes off.
        groups: Vec<StripGroup<G>>,
    },
    /// One player's part of a library shuffle.
    ShuffleStep {
        /// The step.
        step: ShuffleStep<G>,
    },
    /// Before a shuffle's first permutation: the sender brings every card of the library
    /// that is not under its current key to it, so both layers are uniform when cards move.
    Relock {
        /// The owner of the library.
        library: Seat,
        /// The relocked cards, by the key they were under.
        relock: Vec<RelockGroup<G>>,
    },
    /// Commit–reveal for the shared random value `round`.
    RandomCommit {
        /// The round's number.
        round: u64,
        /// The hash that binds the sender to its contribution.
        commitment: Commitment,
    },
    /// The sender's contribution to round `round`, which must match its commitment.
    RandomOpen {
        /// The round's number.
        round: u64,
        /// The contribution and its nonce.
        opening: Opening,
    },
    /// The host puts the outcome of round `round` in the game's order: both engines act on
    /// it at this point of the host's messages.
    RandomSettle {
        /// The round's number.
        round: u64,
    },
    /// The game is over for the sender: it reveals the key it locked its deck with, so the
    /// other player can check every element of its deck message against its catalogue
    /// (seed 000's ending handshake). Afterwards the sender takes no more actions.
    Audit {
        /// The scalar the sender locked its deck with.
        deck_key: G::Scalar,
    },
    /// The sender ends the game: the receiver stopped answering `awaited` (what the sender's
    /// engine was waiting on it for), which counts as the receiver's forfeit.
    ForfeitClaim {
        /// What the sender waited for in vain.
        awaited: Awaited,
    },
    /// The sender wants a new game against the same opponent (seed 001's request-new-game).
    /// When both players have sent one, each drops the game and sends its new `deck`.
    NewGame {
        /// Who lost the game being left, as the sender saw it when it asked (none: no single loser, or the game
        /// was ended without one). When both requests name the same loser, that player chooses to play or draw
        /// in the new game; otherwise a fair coin decides.
        loser: Option<Seat>,
    },
    /// The sender asks to see cards (the top `count` of a zone, or all of it).
    RevealRequest {
        /// The zone.
        zone: ZoneId,
        /// The top `count` cards, or `None` for the whole zone.
        count: Option<u32>,
    },
    /// The sender refuses a reveal request about this zone.
    RevealRefuse {
        /// The zone.
        zone: ZoneId,
    },
    /// A chat line to the opponent.
    Chat {
        /// The line, at most `MAX_TEXT_LEN` bytes.
        text: String,
    },
    /// Asks the opponent for a `pong`: is it there?
    Ping,
    /// The answer to a `ping`.
    Pong,
    /// Limited play: the SHA-256 of the sender's pool file and, from the host, the format it offers. Sent right
    /// after the hello; a different hash, or a format from the guest, ends the match before anything is dealt.
    LimitedPool {
        /// The hash of the sender's pool file.
        pool: PoolHash,
        /// The host's format; none from the guest.
        format: Option<LimitedFormat>,
    },
    /// The sender's lock and shuffle of the shared stack (the pool's public card points, host's step first): a key
    /// of its own, and the proven shuffle of the stack as the sender received it.
    StackShuffle {
        /// The commitment to the sender's stack key.
        key: KeyCommitment<G>,
        /// The stack locked with that key, each of its segments (a set's sheets; a cube's stack is one) permuted
        /// within itself, with one proof per segment.
        shuffles: Vec<ProvenShuffle<G>>,
    },
    /// The sender strips its stack layer off the positions dealt to the other player, who alone strips the last
    /// layer and learns the cards.
    StackDeal {
        /// The stack positions, in the order of `forms`.
        positions: Vec<u32>,
        /// Each position's form with the sender's layer off.
        #[serde(deserialize_with = "crate::crypto::encoding::elements::<G, _>")]
        forms: Vec<G::Element>,
        /// One proof that the sender's stack key made every form.
        proof: DleqProof<G>,
    },
    /// The sender's deck for a game of a limited match, built from its pool: every pool card in the library or the
    /// sideboard, basic lands beside them. The pool cards' forms are relocked from the sender's stack key to its
    /// deck key (`pool_proof`); the basic lands' are their public points locked with the deck key (`basic_proof`).
    PoolDeck {
        /// The commitment to the sender's deck key.
        key: KeyCommitment<G>,
        /// Where each library card comes from.
        library: Vec<DeckSource>,
        /// Where each sideboard card comes from.
        sideboard: Vec<DeckSource>,
        /// Each card's form under the deck key: library, then sideboard.
        #[serde(deserialize_with = "crate::crypto::encoding::elements::<G, _>")]
        forms: Vec<G::Element>,
        /// The relock of the pool cards (in the order they appear), when there is one.
        pool_proof: Option<DleqProof<G>>,
        /// The lock of the basic lands' points (in the order they appear), when there is one.
        basic_proof: Option<DleqProof<G>>,
        /// The sender's label for its deck.
        label: String,
        /// How the deck differs from the sender's first deck of the match.
        difference: DeckDifference,
    },
    /// Grid draft: the sender strips its stack layer off grid `grid`'s nine positions, with proof, so that the other
    /// player, stripping its own, reads the grid; both do, and both read it.
    GridReveal {
        /// The grid's number, from 0.
        grid: u32,
        /// Each of the grid's nine positions with the sender's layer off, row by row.
        #[serde(deserialize_with = "crate::crypto::encoding::elements::<G, _>")]
        forms: Vec<G::Element>,
        /// One proof that the sender's stack key made every form.
        proof: DleqProof<G>,
    },
    /// Grid draft: the sender, whose turn it is, takes this row or column of grid `grid` (what is left of it).
    GridPick {
        /// The grid's number.
        grid: u32,
        /// The row or column.
        line: GridLine,
    },
    /// Winston or booster draft: the sender strips its stack layer off these positions for the other player, who
    /// alone reads them: the positions of the pile it looks at that it has not seen, or the stack's top card it
    /// takes unseen; the cards of a pack it comes to that it has not seen.
    StackReveal {
        /// The positions, as owed, in order.
        positions: Vec<u32>,
        /// Each with the sender's layer off.
        #[serde(deserialize_with = "crate::crypto::encoding::elements::<G, _>")]
        forms: Vec<G::Element>,
        /// One proof that the sender's stack key made every form.
        proof: DleqProof<G>,
    },
    /// Winston draft: the sender, whose turn it is, takes or passes pile `pile`, which it looks at.
    WinstonChoice {
        /// The pile, 0 to 2.
        pile: u8,
        /// Take or pass.
        choice: PileChoice,
    },
    /// Booster draft: the sender takes the card at stack position `position` of pack `pack`, the first pack it
    /// holds; the rest of the pack goes to the other player.
    PackPick {
        /// The pack's number.
        pack: u32,
        /// The stack position taken.
        position: u32,
    },
    /// After a draft: the sender's drafted pool, which the other player saw in part, locked with a new pool key and
    /// shuffled, then its stack layer stripped: the pool its decks are built from, in an order the other cannot link
    /// to the picks, so a deck does not tell which of the cards it saw drafted are in the library.
    PoolShuffle {
        /// The commitment to the sender's pool key.
        key: KeyCommitment<G>,
        /// The lock and shuffle of the drafted forms, with its proof.
        shuffle: ProvenShuffle<G>,
        /// The shuffle's outputs with the sender's stack layer off: each under the pool key alone.
        #[serde(deserialize_with = "crate::crypto::encoding::elements::<G, _>")]
        forms: Vec<G::Element>,
        /// One proof that the sender's stack key made every form.
        proof: DleqProof<G>,
    },
    /// The sender asks to undo its action number `action`, the last one applied: the other player accepts (with an
    /// `undo` action of its own) or refuses.
    UndoAsk {
        /// The action's number in the game's order.
        action: u64,
    },
    /// The sender will not undo action number `action`, which the other player asked to undo.
    UndoRefuse {
        /// The action's number.
        action: u64,
    },
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
            Message::NewGame { .. } => MessageKind::NewGame,
            Message::RevealRequest { .. } => MessageKind::RevealRequest,
            Message::RevealRefuse { .. } => MessageKind::RevealRefuse,
            Message::Chat { .. } => MessageKind::Chat,
            Message::Ping => MessageKind::Ping,
            Message::Pong => MessageKind::Pong,
            Message::LimitedPool { .. } => MessageKind::LimitedPool,
            Message::StackShuffle { .. } => MessageKind::StackShuffle,
            Message::StackDeal { .. } => MessageKind::StackDeal,
            Message::PoolDeck { .. } => MessageKind::PoolDeck,
            Message::GridReveal { .. } => MessageKind::GridReveal,
            Message::GridPick { .. } => MessageKind::GridPick,
            Message::StackReveal { .. } => MessageKind::StackReveal,
            Message::WinstonChoice { .. } => MessageKind::WinstonChoice,
            Message::PackPick { .. } => MessageKind::PackPick,
            Message::PoolShuffle { .. } => MessageKind::PoolShuffle,
            Message::UndoAsk { .. } => MessageKind::UndoAsk,
            Message::UndoRefuse { .. } => MessageKind::UndoRefuse,
        }
    }
}

/// The kind of a message, without its content. Declared in the order of [`Message`]'s variants:
/// the binary encoding names a variant by its index, so a body's kind is read from its first
/// bytes alone ([`peek_kind`]; the test `every_kind_peeks_as_itself` holds the two in step).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MessageKind {
    /// A `hello`.
    Hello,
    /// A `deck`.
    Deck,
    /// An `act`.
    Act,
    /// An `accept`.
    Accept,
    /// A `reject`.
    Reject,
    /// A `strip`.
    Strip,
    /// A `shuffle-step`.
    ShuffleStep,
    /// A `relock`.
    Relock,
    /// A `random-commit`.
    RandomCommit,
    /// A `random-open`.
    RandomOpen,
    /// A `random-settle`.
    RandomSettle,
    /// An `audit`.
    Audit,
    /// A `forfeit-claim`.
    ForfeitClaim,
    /// A `new-game`.
    NewGame,
    /// A `reveal-request`.
    RevealRequest,
    /// A `reveal-refuse`.
    RevealRefuse,
    /// A `chat`.
    Chat,
    /// A `ping`.
    Ping,
    /// A `pong`.
    Pong,
    /// A `limited-pool`.
    LimitedPool,
    /// A `stack-shuffle`.
    StackShuffle,
    /// A `stack-deal`.
    StackDeal,
    /// A `pool-deck`.
    PoolDeck,
    /// A `grid-reveal`.
    GridReveal,
    /// A `grid-pick`.
    GridPick,
    /// A `stack-reveal`.
    StackReveal,
    /// A `winston-choice`.
    WinstonChoice,
    /// A `pack-pick`.
    PackPick,
    /// A `pool-shuffle`.
    PoolShuffle,
    /// An `undo-ask`.
    UndoAsk,
    /// An `undo-refuse`.
    UndoRefuse,
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
            MessageKind::LimitedPool => "limited-pool",
            MessageKind::StackShuffle => "stack-shuffle",
            MessageKind::StackDeal => "stack-deal",
            MessageKind::PoolDeck => "pool-deck",
            MessageKind::GridReveal => "grid-reveal",
            MessageKind::GridPick => "grid-pick",
            MessageKind::StackReveal => "stack-reveal",
            MessageKind::WinstonChoice => "winston-choice",
            MessageKind::PackPick => "pack-pick",
            MessageKind::PoolShuffle => "pool-shuffle",
            MessageKind::UndoAsk => "undo-ask",
            MessageKind::UndoRefuse => "undo-refuse",
        }
    }
}

impl std::fmt::Display for MessageKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The random round of the coin that decides who chooses to play or draw: above every action's number (a roll's
/// or a flip's round is its action's), below the arrangements' rounds.
pub const CHOOSER_ROUND: u64 = 1 << 62;
/// The random round that draws the layouts of a limited match's boosters: the match's first game only, before any
/// action.
pub const BOOSTER_ROUND: u64 = CHOOSER_ROUND + 1;
/// The first random round that orders a library's card backs (`ARRANGEMENT_ROUNDS | serial << 1 | library`).
pub const ARRANGEMENT_ROUNDS: u64 = 1 << 63;

/// What one player's engine waits on the other for: the exchange a forfeit claim names.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Awaited {
    /// Its hello, which opens the game.
    Hello,
    /// Its sealed deck.
    Deck,
    /// Its strip of these cards.
    Strip {
        /// The cards.
        cards: Vec<CardId>,
    },
    /// Its part (relock, step, challenge or response) of the shuffle of this library.
    Shuffle {
        /// The owner of the library.
        library: Seat,
    },
    /// Its side of this random round.
    RandomRound {
        /// The round's number.
        round: u64,
    },
    /// The host's answer to the guest's proposal in this message.
    Answer {
        /// The guest's message number of the proposal.
        proposal: u64,
    },
    /// Its return to the game, after it left (a claim about a connection, which no state proves).
    Return,
    /// Its part of dealing a limited match's pools: its pool file's hash, its shuffle of the stack, or its deal.
    Stack,
    /// Its first deck of a limited match, which its player builds from its pool: a person's work, not an exchange.
    Build,
    /// Its pick of a row or column of a grid draft's grid, its choice of a Winston pile, or its pick of a booster
    /// draft's pack: a person's choice, not an exchange.
    Pick,
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
            Awaited::Shuffle { library } => write!(f, "its part of the shuffle of the {library}'s library"),
            Awaited::RandomRound { round } => match *round {
                ARRANGEMENT_ROUNDS.. => write!(f, "its side of the random order of a library's card backs"),
                CHOOSER_ROUND => write!(f, "its side of the coin for who chooses to play or draw"),
                action => write!(f, "its side of the random outcome of action {action}"),
            },
            Awaited::Answer { proposal } => write!(f, "its answer to the proposal in message {proposal}"),
            Awaited::Return => write!(f, "its return to the game"),
            Awaited::Stack => write!(f, "its part of dealing the pools"),
            Awaited::Build => write!(f, "its deck, built from its pool"),
            Awaited::Pick => write!(f, "its pick in the draft"),
        }
    }
}
