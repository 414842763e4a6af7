//! The engine's public vocabulary: what a player brings (deck), asks (intents), and is told (events, alerts).

use crate::crypto::{BackId, CardInstance, Coin, Dice, MAX_NAME_LEN, Suite};
use crate::ids::Seat;
use crate::seats::SeatMap;
use crate::table::{Card, CardId, ZoneId, ZoneKind};
use crate::wire::{Action, Awaited, DeckDifference, Envelope, GridLine, LimitedFormat, PileChoice, PoolHash};

/// A card of a deck list.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DeckCard {
    /// The card's name, which its owner's catalogue seals.
    pub name: String,
    /// The card's back, which both players see.
    pub back: BackId,
}

/// What a player brings to the table.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DeckList {
    /// The cards shuffled into the library when the game starts.
    pub library: Vec<DeckCard>,
    /// The cards kept aside, out of the game, for sideboarding between games.
    pub sideboard: Vec<DeckCard>,
    /// The commanders (at most [`crate::wire::MAX_COMMANDERS`]): face up in the owner's command zone from the
    /// start of each game, known to both.
    #[serde(default)]
    pub commander: Vec<DeckCard>,
    /// The player's name for the deck (the client puts its deck hash here), shown to both at the start of each
    /// game: at most [`crate::wire::MAX_DECK_LABEL_LEN`] bytes of printable ASCII.
    #[serde(default)]
    pub label: String,
}

/// The pool file of a limited match, as the client read it: its hash, and what it holds.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PoolList {
    /// The SHA-256 of the file's bytes, which both players must share.
    pub hash: PoolHash,
    /// The file's cards.
    pub source: PoolSource,
}

/// What a pool file holds.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum PoolSource {
    /// A cube list: every card, one entry per copy, in the file's order (the stack both players lock and shuffle).
    Cube(Vec<String>),
    /// An MTGJSON set file, as its bytes (`pool::SetFile` reads it): its boosters are dealt.
    Set(Vec<u8>),
}

/// A limited match: the pool both players hold and, from the host, the format it offers.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LimitedConfig {
    /// The pool file.
    pub pool: PoolList,
    /// The host's format; the guest gives none and plays the host's.
    pub format: Option<LimitedFormat>,
}

/// Why a limited match cannot start with this pool or format.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PoolError {
    /// More cards than one stack holds (the number given).
    #[error("a pool file holds at most {0} cards")]
    TooLarge(usize),
    /// Fewer cards than the format deals to both players.
    #[error("the pool has {cards} cards, and {format} deals {needed}")]
    TooSmall {
        /// Cards in the pool.
        cards: usize,
        /// The format.
        format: LimitedFormat,
        /// Cards the format deals in all.
        needed: usize,
    },
    /// A format from the guest, who plays the host's.
    #[error("only the host chooses the format")]
    GuestFormat,
    /// The host gave no format.
    #[error("the host must choose a format")]
    NoFormat,
    /// A card name the catalogue cannot seal.
    #[error("card name {0:?} in the pool is empty or too long")]
    BadName(String),
    /// A set file that does not read.
    #[error("{0}")]
    Set(String),
    /// A set file with no booster to deal.
    #[error("the set file has no booster layouts (data.booster) to deal")]
    NoBoosters,
    /// A format that does not deal from this kind of pool file.
    #[error("{format} needs {needs}")]
    WrongFile {
        /// The format.
        format: LimitedFormat,
        /// What it needs, in words.
        needs: &'static str,
    },
}

/// What the player says about itself in its hello.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct EngineConfig {
    /// The player's name, shown to the opponent.
    pub name: String,
    /// Program name and version, shown to the opponent.
    pub software: String,
}

/// What the local player wants to do.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Intent {
    /// A table action.
    Act(Action),
    /// A chat line to the opponent.
    Chat(String),
    /// Ask the opponent for a pong.
    Ping,
    /// Ask the opponent to show cards of one of their zones.
    RequestReveal {
        /// The zone, usually the opponent's hand or library.
        zone: ZoneId,
        /// The top `count` cards, or `None` for the whole zone.
        count: Option<u32>,
    },
    /// Refuse the opponent's request to see cards of this zone.
    RefuseReveal {
        /// The zone.
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
    /// the game goes on. The request names the loser of this game as this player sees it now: when the
    /// opponent's request names the same, that player chooses to play or draw in the new game (`ChosenBy`).
    NewGame(Option<DeckList>),
    /// Limited play: this player's deck for the first game, built from its pool and basic lands (the rest of the
    /// pool goes to the sideboard). Refused with the cards not in the pool.
    Build(DeckList),
    /// Grid draft: take this row or column of the grid shown (what is left of it), in this player's turn.
    Pick(GridLine),
    /// Winston draft: take or pass the pile this player looks at, in its turn.
    Pile(PileChoice),
    /// Booster draft: take card `n` (from 0, in the order `Event::Pack` lists them) of the pack this player picks
    /// from now.
    TakeCard(u32),
    /// Ask the opponent to undo this player's last action, which must be the last one applied and undoable
    /// (`Engine::undoable`). The opponent's answer comes as `Event::Undone` or `Event::UndoRefused`.
    AskUndo,
    /// Answer the opponent's request to undo its last action: `true` undoes it (an `undo` action of this player's),
    /// `false` refuses.
    AnswerUndo(bool),
}

impl Intent {
    /// The intent's stable name, as the journal's JSON spells it: never renamed with the variant.
    pub fn name(&self) -> &'static str {
        match self {
            Intent::Act(_) => "act",
            Intent::Chat(_) => "chat",
            Intent::Ping => "ping",
            Intent::RequestReveal { .. } => "request-reveal",
            Intent::RefuseReveal { .. } => "refuse-reveal",
            Intent::EndGame => "end-game",
            Intent::ClaimForfeit => "claim-forfeit",
            Intent::ClaimAbandoned => "claim-abandoned",
            Intent::NewGame(_) => "new-game",
            Intent::Build(_) => "build",
            Intent::Pick(_) => "pick",
            Intent::Pile(_) => "pile",
            Intent::TakeCard(_) => "take-card",
            Intent::AskUndo => "ask-undo",
            Intent::AnswerUndo(_) => "answer-undo",
        }
    }
}

/// Where a card lies, as far as a player can tell without knowing it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place {
    /// The zone.
    pub zone: ZoneId,
    /// Whether it lies face down in a play area (elsewhere, always `false`).
    pub face_down: bool,
}

impl Place {
    /// Where a card lies as the players see it: its zone, and whether it lies face down in play.
    pub(crate) fn of(card: &Card) -> Place {
        Place { zone: card.zone, face_down: card.zone.kind == ZoneKind::Play && card.placement.face_down }
    }
}

/// A card an action put somewhere: where it lay before, where it lies now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Moved {
    /// The card's id on the table.
    pub card: CardId,
    /// Where it lay before the action; `None` for a card the action put on the table (a token).
    pub from: Option<Place>,
    /// Where it lies once the action is applied.
    pub to: Place,
}

/// What happened, for the interface.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// The opponent's hello arrived.
    Connected {
        /// The opponent's name.
        name: String,
        /// The opponent's program name and version.
        software: String,
        /// The suite the game is played in: the opponent's hello said it too (a hello of another is refused).
        suite: Suite,
    },
    /// Set-up advanced: libraries locked, shuffled and verified so far.
    SetupProgress {
        /// Libraries done.
        done: u32,
        /// Libraries in all.
        total: u32,
    },
    /// Both libraries are shuffled: play can start.
    Ready,
    /// An action took effect on the table (number `number` in the game's order).
    Applied {
        /// The action's number in the game's order.
        number: u64,
        /// The player who acted.
        by: Seat,
        /// The action.
        action: Action,
        /// The cards the action put somewhere, in the order it moved them, each with where it lay before:
        /// the card a `move` names, the cards a draw, a mulligan or a take from a library moved (which the
        /// action does not name), a token put on the table. A front end reads where a card came from here,
        /// since the engine's table may already be ahead of the events it has told.
        moved: Vec<Moved>,
    },
    /// The host refused this player's action.
    Rejected {
        /// The action refused.
        action: Action,
        /// The host's reason.
        reason: String,
    },
    /// This player now knows what card `card` is.
    Learned {
        /// The card's id on the table.
        card: CardId,
        /// What it is: owner, name, back.
        instance: CardInstance,
    },
    /// A library's shuffle (with its proofs) is complete.
    Shuffled {
        /// The owner of the library.
        library: Seat,
    },
    /// Dice were rolled with a shared random value.
    Rolled {
        /// The player who rolled.
        by: Seat,
        /// The dice.
        dice: Dice,
        /// Each die's face, in order.
        faces: Vec<u32>,
    },
    /// A coin was flipped with a shared random value.
    Flipped {
        /// The player who flipped.
        by: Seat,
        /// The side it landed on.
        coin: Coin,
    },
    /// The random card of a "show random card" action.
    ShownAtRandom {
        /// The player whose hand it was.
        by: Seat,
        /// The card shown.
        card: CardId,
    },
    /// The opponent wrote a chat line.
    Chat {
        /// The player who wrote it: the opponent.
        from: Seat,
        /// The line.
        text: String,
    },
    /// The opponent answered a ping.
    Pong,
    /// The opponent asks to see cards of a zone; a `reveal` action answers it, or a refusal.
    RevealRequested {
        /// The zone.
        zone: ZoneId,
        /// The top `count` cards, or `None` for the whole zone.
        count: Option<u32>,
    },
    /// The opponent refused to show cards of a zone.
    RevealRefused {
        /// The zone.
        zone: ZoneId,
    },
    /// A player asks to undo its action number `action`, the last one applied: this player (`undo-ask` sent) or the
    /// opponent (then `Intent::AnswerUndo` answers it).
    UndoAsked {
        /// The player who asks: the one who took the action.
        by: Seat,
        /// The action's number in the game's order.
        action: u64,
        /// The action it would undo.
        undone: Action,
    },
    /// A player refused to undo action number `action`.
    UndoRefused {
        /// The player who refused.
        by: Seat,
        /// The action's number.
        action: u64,
    },
    /// The request to undo action number `action` lapsed unanswered: another action came first, and only the last
    /// action can be undone.
    UndoLapsed {
        /// The player who asked.
        asker: Seat,
        /// The action's number.
        action: u64,
    },
    /// Action number `action` was undone by consent: the table is as it was before it. An `Applied` event of the
    /// `undo` action follows, with the cards it put back.
    Undone {
        /// The player whose action it was (who asked).
        actor: Seat,
        /// The action's number.
        action: u64,
        /// The action undone.
        undone: Action,
    },
    /// A player claimed that the other one forfeits the game, having stopped answering
    /// `awaited`. The game is over for both; the claim is in the record.
    ForfeitClaimed {
        /// The player who claimed.
        by: Seat,
        /// What the claimant waited for in vain.
        awaited: Awaited,
    },
    /// The opponent asked for a new game; it starts when this player asks too.
    NewGameRequested,
    /// Both players asked: game `number` of the match starts with its set-up (each player's
    /// new deck, then the shuffles); the previous game's table, cards and keys are gone.
    NewGame {
        /// The game's number in the match, from 1.
        number: u32,
    },
    /// The game is over: `loser` lost it (its opponent won), `how`. Only the deck audit, chat and a new game
    /// follow.
    GameOver {
        /// Who lost; the other player won.
        loser: Seat,
        /// By concession or forfeit.
        how: GameEnd,
    },
    /// `seat` chooses to play or draw this game (`Action::PlayOrDraw`), as decided `by`.
    Chooser {
        /// Who chooses.
        seat: Seat,
        /// A coin, or the previous game's loss.
        by: ChosenBy,
    },
    /// A deck entered the game (each player's, at the start of every game) with the label its owner gave it;
    /// `changed` when its cards are not those of that player's deck in the match's first game (then a
    /// `DeckDiffers` follows); sideboarding alone changes the label but not this.
    DeckLabel {
        /// Whose deck.
        seat: Seat,
        /// Its label, as its owner set it (checked: short, printable ASCII).
        label: String,
        /// The deck is off the match's 75, by its owner's account.
        changed: bool,
    },
    /// `seat`'s deck for game `game`, a later game of the match, holds other cards than its deck in the match's
    /// first game (names counted over library, sideboard and commanders, so sideboarding alone never differs): a
    /// warning, the game goes on. For the opponent's deck this is its own account, which the end-of-game audits
    /// check once both decks were audited (names are sealed until then); `check` says whether they still can.
    DeckDiffers {
        /// Whose deck.
        seat: Seat,
        /// The game's number in the match.
        game: u32,
        /// The cards added and removed.
        difference: DeckDifference,
        /// Whether this account can be checked.
        check: DifferenceCheck,
    },
    /// Game `game` was left for the next one without `seat`'s deck of it passing an audit the opponent took in (its
    /// owner did not end the game with an audit, a forfeit ended it, or the audit crossed the new game): nobody
    /// checked that deck against its sealed list, nor its declared difference from the match's first deck. Both
    /// players are told, about either deck. When `game` is 1, no later difference of `seat`'s can be checked
    /// (`DifferenceCheck::Unverifiable`).
    AuditMissing {
        /// Whose deck.
        seat: Seat,
        /// The game it was the deck of.
        game: u32,
    },
    /// The opponent ended the game, and its whole deck checked out against its catalogue.
    Audited {
        /// The player whose deck was audited.
        seat: Seat,
        /// Its whole deck, library and sideboard.
        deck: Vec<CardInstance>,
    },
    /// The opponent did something the player must know about.
    Alert(Alert),
    /// Limited play: both players hold the same pool file (`pool`) and play `format`; dealing starts.
    LimitedAgreed {
        /// The format, the host's.
        format: LimitedFormat,
        /// The pool file's hash.
        pool: PoolHash,
    },
    /// Limited play: this player's pool is dealt (or drafted): its cards, in the order of the deal.
    Pool {
        /// The cards' names.
        cards: Vec<String>,
    },
    /// Grid draft: grid `grid` (from 0) as it stands, row by row, a taken cell `None`; `picker` takes a row or a
    /// column next (none once both picked).
    Grid {
        /// The grid's number.
        grid: u32,
        /// Its nine cells.
        cells: Vec<Option<String>>,
        /// Who picks next.
        picker: Option<Seat>,
    },
    /// Winston draft: where the draft stands: each pile's size, the cards left in the stack, whose turn it is and
    /// the pile it looks at (none once the draft is over).
    Winston {
        /// The three piles' sizes.
        piles: [u32; 3],
        /// Cards left in the stack.
        stack: u32,
        /// Whose turn, and the pile it looks at.
        looking: Option<(Seat, u8)>,
    },
    /// Winston draft: the cards of the pile this player looks at, now that it may read them all.
    PileShown {
        /// The pile, 0 to 2.
        pile: u8,
        /// Its cards.
        cards: Vec<String>,
    },
    /// Winston draft: `by` took `count` cards: pile `pile`, or (none) the stack's top card unseen; `cards` names them
    /// to the taker only (empty for the other player, who learns how many).
    PileTaken {
        /// Who took them.
        by: Seat,
        /// The pile, or none for the stack's top card.
        pile: Option<u8>,
        /// How many cards.
        count: u32,
        /// Their names, to the taker.
        cards: Vec<String>,
    },
    /// Booster draft: where the draft stands: the round (from 0) of `rounds`, the packs waiting with each seat
    /// (host, guest) and how many cards each has taken.
    Packs {
        /// The round under way.
        round: u32,
        /// How many rounds in all.
        rounds: u32,
        /// Packs waiting with each seat.
        waiting: SeatMap<u32>,
        /// Cards each seat has taken.
        picks: SeatMap<u32>,
    },
    /// Booster draft: the pack this player picks from now, every card of it readable: its cards, in order.
    Pack {
        /// The pack's number.
        pack: u32,
        /// Its cards.
        cards: Vec<String>,
    },
    /// Booster draft: `by` took a card of pack `pack`, named to the taker only.
    CardTaken {
        /// Who took it.
        by: Seat,
        /// The pack's number.
        pack: u32,
        /// The card, to its taker.
        card: Option<String>,
    },
    /// Grid draft: `by` took `line` of grid `grid`: these cards.
    Picked {
        /// Who took them.
        by: Seat,
        /// The grid's number.
        grid: u32,
        /// The row or column.
        line: GridLine,
        /// The cards taken (the line's cards not taken before).
        cards: Vec<String>,
    },
}

/// How a game was lost.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GameEnd {
    /// The loser conceded (`Action::Concede`).
    Conceded,
    /// The winner claimed the loser's forfeit (it stopped answering, or left).
    Forfeited,
}

/// How the player who chooses to play or draw was decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ChosenBy {
    /// A fair coin (a commit–reveal round): heads the host, tails the guest. It decides in the match's first
    /// game, and in a later one whose two new-game requests did not name the same loser of the previous game (no
    /// single loser, or a loss that crossed a request on the wire; a request naming another loser than its sender
    /// had heard of is an alert, not a coin).
    Coin,
    /// The chooser lost the previous game, as both players' new-game requests said.
    #[serde(rename = "previous-loser")]
    Loser,
}

/// Whether a deck's declared difference from its owner's deck in the match's first game can be checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DifferenceCheck {
    /// The first game's deck was audited: the audit of this deck, if its owner ends the game with one, checks it.
    AtAudit,
    /// The first game's deck was never audited (`Event::AuditMissing`): the account stands as its owner's word, for
    /// the rest of the match.
    Unverifiable,
}

/// Something the opponent did that the player must know about, with its evidence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Alert {
    /// What it is about.
    pub kind: AlertKind,
    /// What exactly was wrong.
    pub detail: String,
    /// The opponent's signed message it is about, when there is one: with the opponent's
    /// signing key from `hello`, anyone can check that they sent it.
    pub evidence: Option<Envelope>,
}

/// What an alert is about. Its stable name (`AlertKind::name`, also its `Display`) is what scripts see.
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
    /// The opponent took this player's hidden cards (`take-from-library`). A request to see cards is an event,
    /// [`Event::RevealRequested`], since it shows nothing by itself.
    LookedAtYourCards,
    /// The opponent moved this player's cards.
    MovedYourCards,
    /// Incompatible protocol or suite.
    Incompatible,
    /// This program failed on an input (a fault of its own, `engine/contain.rs`): the game stops, and nobody is
    /// accused.
    Internal,
}

impl AlertKind {
    /// The kind's stable name, for scripts, halts and verdicts: never renamed with the variant.
    pub fn name(self) -> &'static str {
        match self {
            AlertKind::Malformed => "malformed",
            AlertKind::Sequence => "sequence",
            AlertKind::BadProof => "bad_proof",
            AlertKind::Unexpected => "unexpected",
            AlertKind::Forbidden => "forbidden",
            AlertKind::Stacking => "stacking",
            AlertKind::NotInDeck => "not_in_deck",
            AlertKind::LookedAtYourCards => "looked_at_your_cards",
            AlertKind::MovedYourCards => "moved_your_cards",
            AlertKind::Incompatible => "incompatible",
            AlertKind::Internal => "internal",
        }
    }

    /// Misbehaviour stops the game: nothing the offender sends afterwards is applied.
    pub fn is_misbehaviour(self) -> bool {
        !matches!(self, AlertKind::LookedAtYourCards | AlertKind::MovedYourCards)
    }

    /// Whether an alert of this kind, raised on a signed message, convicts its sender. A
    /// message out of sequence proves nothing about who made it, and an incompatible hello is
    /// a game that could not be played, not a breach (a journal edited to another suite or seat
    /// makes a genuine hello look so).
    pub fn is_breach(self) -> bool {
        self.is_misbehaviour() && !matches!(self, AlertKind::Sequence | AlertKind::Incompatible | AlertKind::Internal)
    }
}

/// Why a local intent was refused (nothing was sent).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum IntentError {
    /// The set-up is not done: the libraries are not shuffled yet.
    #[error("the table is not ready yet")]
    NotReady,
    /// The engine halted on the opponent's misbehaviour: it takes nothing more.
    #[error("the game has stopped: {0}")]
    Halted(String),
    /// The action does not fit the table; the words say why.
    #[error("{0}")]
    Invalid(String),
    /// A deck built from a pool names cards the pool does not hold (counts of the missing copies).
    #[error("not in your pool: {}", missing_words(.0))]
    NotInPool(Vec<(u32, String)>),
}

fn missing_words(missing: &[(u32, String)]) -> String {
    let words: Vec<String> = missing.iter().map(|(count, name)| format!("{count} {name}")).collect();
    words.join(", ")
}

/// Why the last action cannot be undone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum NotUndoable {
    /// No action has been taken in this game.
    #[error("nothing has been done yet in this game")]
    NoAction,
    /// The last action is the opponent's: only the player who took an action asks to undo it.
    #[error("the last action is the opponent's, and only your own can be undone")]
    NotYours,
    /// It moved, showed or shuffled cards someone could not see: what was seen cannot be unseen.
    #[error("it touched hidden cards (a draw, a library, a reveal, a shuffle), and what was seen cannot be unseen")]
    HiddenCards,
    /// It drew on chance: taking the chance again would be choosing it.
    #[error("it was a roll or a flip: a chance taken again is a chance chosen")]
    Chance,
    /// It passed the turn, chose who plays, or conceded.
    #[error("it changed the turn or ended the game")]
    Turn,
    /// It created a token: move the token away instead.
    #[error("it created a token: move the token away instead")]
    Token,
    /// An arrow leaves nothing on the table.
    #[error("an arrow leaves nothing to undo")]
    NothingKept,
    /// It was itself an undo.
    #[error("it was an undo; do the action again instead")]
    Undo,
}

/// Why a deck list cannot be played.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DeckError {
    /// No card in the library.
    #[error("a deck needs at least one library card")]
    Empty,
    /// More cards than the suite allows (`max_deck_len`).
    #[error("a deck holds at most {0} cards with this suite")]
    TooLarge(usize),
    /// More commanders than [`crate::wire::MAX_COMMANDERS`], the number given.
    #[error("a deck has at most {0} commanders")]
    TooManyCommanders(usize),
    /// A label longer than the number given ([`crate::wire::MAX_DECK_LABEL_LEN`]) or not printable ASCII.
    #[error("a deck label is at most {0} bytes of printable ASCII")]
    BadLabel(usize),
    #[error(
        "card name {0:?} is empty, longer than {MAX_NAME_LEN} bytes, or too long to seal (quotes, backslashes and control characters count double or more)"
    )]
    /// A card name the catalogue cannot seal.
    BadName(String),
}

impl std::fmt::Display for AlertKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_intents_name_is_its_tag_in_the_journal() {
        let intents = [
            Intent::Act(Action::UntapAll),
            Intent::Chat("hi".into()),
            Intent::Ping,
            Intent::RequestReveal { zone: ZoneId::hand(Seat::HOST), count: None },
            Intent::RefuseReveal { zone: ZoneId::hand(Seat::HOST) },
            Intent::EndGame,
            Intent::ClaimForfeit,
            Intent::ClaimAbandoned,
            Intent::NewGame(None),
            Intent::Build(DeckList::default()),
            Intent::Pick(GridLine::Row(0)),
            Intent::Pile(PileChoice::Take),
            Intent::TakeCard(3),
            Intent::AskUndo,
            Intent::AnswerUndo(true),
        ];
        for intent in intents {
            let json = serde_json::to_value(&intent).unwrap();
            let tag = json.as_str().map(str::to_owned).or_else(|| json.as_object()?.keys().next().cloned());
            assert_eq!(tag.as_deref(), Some(intent.name()), "{json}");
        }
    }
}
