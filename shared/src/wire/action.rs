//! Table actions: what a player does to the table, as the wire carries it.

use serde::{Deserialize, Serialize};

use crate::crypto::{CardInstance, Dice};
use crate::ids::Seat;
use crate::table::{CardId, Placement, Position, PowerToughness, ZoneId};

/// A table action. The host's actions take effect when sent; the guest's are proposals
/// that take effect when the host accepts them, so both tables change in one order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Action {
    /// The top `count` cards of the actor's library go to the actor's hand.
    Draw {
        /// How many cards.
        count: u32,
    },
    /// Any card to any zone; libraries and sideboards take only their owner's cards.
    Move {
        /// The card that moves.
        card: CardId,
        /// The zone it goes to.
        to: ZoneId,
        /// Where in that zone: top, bottom or an index.
        position: Position,
        /// Where on a play area, and whether face down there.
        #[serde(default)]
        placement: Placement,
    },
    /// A new place for a card within its zone.
    Rearrange {
        /// The card to move.
        card: CardId,
        /// Its new index in the zone, counted from the top.
        index: u32,
    },
    /// Shuffle the actor's library. `permutation` is given for a clean library only.
    Shuffle {
        /// The new order of a clean library, which no one knows cards of; `None` for a full shuffle run with proofs.
        permutation: Option<Vec<u32>>,
    },
    /// The actor looks at the top `count` cards of their own library, for `purpose`, which the opponent is shown.
    Peek {
        /// How many cards, from the top.
        count: u32,
        /// Why: look, scry, surveil, or search (then `count` is the whole library).
        #[serde(default)]
        purpose: PeekPurpose,
    },
    /// Reveal cards to the opponent (`to` one seat) or to both (`to` absent).
    Reveal {
        /// The cards revealed.
        cards: Vec<CardId>,
        /// The one player who sees them, or `None` for both.
        to: Option<Seat>,
    },
    /// Take the top card of the opponent's library face down: only the taker learns it.
    TakeFromLibrary {
        /// How many cards, from the top.
        count: u32,
    },
    /// Show a card picked at random from the actor's hand to both players.
    ShowRandom,
    /// Turn a card in play sideways (tapped) or back.
    Tap {
        /// The card.
        card: CardId,
        /// Whether it ends up tapped.
        tapped: bool,
    },
    /// Sets (or with `None` removes) a counter on a card in play.
    SetCardValue {
        /// The card, in a play area.
        card: CardId,
        /// The counter's name, such as `+1/+1`.
        key: String,
        /// The counter's new value, or `None` to remove it.
        value: Option<i64>,
    },
    /// Sets a number of the actor's own, such as its life total.
    SetPlayerValue {
        /// The value's name, such as `life`.
        key: String,
        /// Its new value.
        value: i64,
    },
    /// Names the phase of the turn the actor is in, for both players to see.
    SetPhase {
        /// The phase's name, as the players call it.
        phase: String,
    },
    /// Ends the actor's turn: the other player's turn begins.
    NextTurn,
    /// Roll dice with a shared random value, which neither player alone can choose.
    Roll {
        /// How many dice, and of how many sides.
        dice: Dice,
    },
    /// Flip a coin with a shared random value.
    Flip,
    /// Put the whole hand into the library and shuffle it; the actor then draws `draw`.
    Mulligan {
        /// How many cards to draw afterwards.
        draw: u32,
    },
    /// Create a token: a new public card of the actor's, known to both from the start.
    AddCard {
        /// The token's identity: owner, nonce, name and back.
        card: CardInstance,
        /// The zone it enters.
        to: ZoneId,
        /// Where on a play area, and whether face down there.
        #[serde(default)]
        placement: Placement,
        /// The token's power and toughness, if it is a creature.
        #[serde(default)]
        power_toughness: Option<PowerToughness>,
    },
    /// Untap every card in the actor's play area.
    UntapAll,
    /// Attach `card` to the card `to` (both in play), or with `to` absent detach it.
    Attach {
        /// The card attached (the aura, the equipment).
        card: CardId,
        /// The card it goes on; `None` detaches it.
        to: Option<CardId>,
    },
    /// Point from a card in play to a card in play or to a player: shown once, not kept on the table.
    Arrow {
        /// The card the arrow starts at.
        from: CardId,
        /// What it points at.
        to: ArrowTarget,
    },
    /// The actor concedes: the game is over, the actor has lost it. Only the end of the game (the deck audit)
    /// and a new game follow.
    Concede,
    /// The player chosen to start (`Event::Chooser`) plays first (`play`) or lets the opponent play first:
    /// turn 1 begins. Taken once a game, before any turn.
    PlayOrDraw {
        /// The chooser plays first; `false`: it draws, and the opponent plays first.
        play: bool,
    },
    /// Undo the opponent's action number `action`, at its asking (`undo-ask`): the table goes back to how it was
    /// before it. Only the last action applied, and only one that moved no hidden card and drew on no chance.
    Undo {
        /// The number, in the game's order, of the action undone.
        action: u64,
    },
}

/// Why a player looks at the top of their own library: what the opponent's log says.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PeekPurpose {
    /// Looks at the top cards.
    #[default]
    Look,
    /// Scry: keeps them on top in any order, or puts them at the bottom.
    Scry,
    /// Surveil: keeps them on top in any order, or puts them into the graveyard.
    Surveil,
    /// Searches the whole library (the count is its size); a shuffle with fresh locks closes the search.
    Search,
}

/// What an arrow points at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ArrowTarget {
    /// A card in play.
    Card(CardId),
    /// A player.
    Player(Seat),
}

impl Action {
    /// The action's name, as the wire and scripts spell it (`take-from-library`): never renamed with the variant.
    pub fn name(&self) -> &'static str {
        match self {
            Action::Draw { .. } => "draw",
            Action::Move { .. } => "move",
            Action::Rearrange { .. } => "rearrange",
            Action::Shuffle { .. } => "shuffle",
            Action::Peek { .. } => "peek",
            Action::Reveal { .. } => "reveal",
            Action::TakeFromLibrary { .. } => "take-from-library",
            Action::ShowRandom => "show-random",
            Action::Tap { .. } => "tap",
            Action::SetCardValue { .. } => "set-card-value",
            Action::SetPlayerValue { .. } => "set-player-value",
            Action::SetPhase { .. } => "set-phase",
            Action::NextTurn => "next-turn",
            Action::Roll { .. } => "roll",
            Action::Flip => "flip",
            Action::Mulligan { .. } => "mulligan",
            Action::AddCard { .. } => "add-card",
            Action::UntapAll => "untap-all",
            Action::Attach { .. } => "attach",
            Action::Arrow { .. } => "arrow",
            Action::Concede => "concede",
            Action::PlayOrDraw { .. } => "play-or-draw",
            Action::Undo { .. } => "undo",
        }
    }
}
