//! The state of one game of a match: table, card forms and keys, and the exchanges under way.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::fault::ActionError;
use super::phase::GamePhase;
use super::round::RandomRound;
use super::shuffle_run::ShuffleRuns;
// Set-up plans its shuffle runs by naming them from here.

use super::undo::LastAction;
use super::unlock_run::Unlocks;
use crate::crypto::{BackId, CardInstance, Catalogue, Group, KeyCommitment, LockKey, ProofContext};
use crate::ids::{GameId, Seat};
use crate::seats::SeatMap;
use crate::table::{Card, CardId, Table, ZoneId};
use crate::wire::{Action, DeckDifference, Envelope, KeyRef};

/// A card's current cryptographic form: the element everyone sees, and whose layers are on it.
#[derive(Clone, Debug)]
pub(super) struct Form<G: Group> {
    pub(super) element: G::Element,
    pub(super) layers: SeatMap<Option<KeyRef>>,
}

/// The cards of one back in a library, as a shuffle step takes them.
pub(super) struct BackGroup<G: Group> {
    pub(super) cards: Vec<CardId>,
    pub(super) inputs: Vec<G::Element>,
    pub(super) context: ProofContext,
}

/// One game of a match: its table, keys, cards and exchanges.
#[cfg_attr(fuzzing, derive(Clone))]
pub(super) struct GameState<G: Group> {
    /// 1 for the first game of a match, then 2, 3…
    pub(super) number: u32,
    /// Set-up, play, and who ended the game: changed only through its transitions.
    pub(super) phase: GamePhase,
    pub(super) table: Table,
    pub(super) forms: HashMap<CardId, Form<G>>,
    /// Each card's layers once every unlock planned so far is done.
    pub(super) planned: HashMap<CardId, SeatMap<Option<KeyRef>>>,
    pub(super) keys: HashMap<KeyRef, LockKey<G>>,
    pub(super) commitments: HashMap<KeyRef, KeyCommitment<G>>,
    pub(super) current_keys: HashMap<(Seat, Seat), u32>,
    pub(super) catalogues: HashMap<Seat, Catalogue>,
    /// The envelope that carried each seat's deck: the evidence for its catalogue.
    pub(super) deck_envelopes: HashMap<Seat, Envelope>,
    /// Each seat's locked deck as it was sent, for the end-of-game audit.
    pub(super) deck_elements: HashMap<Seat, Vec<(G::Element, BackId)>>,
    pub(super) identities: HashMap<CardId, CardInstance>,
    pub(super) unlocks: Unlocks,
    pub(super) shuffles: ShuffleRuns,
    pub(super) randoms: BTreeMap<u64, RandomRound>,
    /// The guest's proposals awaiting the host's answer, by message number.
    pub(super) proposals: BTreeMap<u64, Action>,
    pub(super) actions_applied: u64,
    /// The last action applied, with how to undo it (`undo.rs`).
    pub(super) last: Option<LastAction>,
    /// The number of the last action, once its player asked to undo it; cleared by any action applied.
    pub(super) undo_asked: Option<u64>,
    /// Cards to draw once this player's mulligan shuffle is done.
    pub(super) mulligan_draw: Option<u32>,
    /// Tokens and commanders, public from their creation: read by point like catalogue entries.
    pub(super) tokens: HashMap<G::Element, CardInstance>,
    /// Each seat's commanders, as its deck message named them: part of its deck at the audit.
    pub(super) commanders: HashMap<Seat, Vec<CardInstance>>,
    /// Who lost this game (a concession, forfeit claims). Both players' claims of each other's forfeit leave two:
    /// no single loser.
    pub(super) losers: BTreeSet<Seat>,
    /// Each loss of this game as the opponent learned of it: what its new-game request must name
    /// (`Engine::loser_seen_by_peer`).
    pub(super) losses_told: Vec<LossTold>,
    /// This player's `audit` of this game, by message number: whether the opponent took it in before the next game.
    pub(super) own_audit: Option<u64>,
    /// The opponent's deck of this game passed its audit here.
    pub(super) peer_audited: bool,
    /// Who chooses to play or draw, once decided.
    pub(super) chooser: Option<Seat>,
    /// How each deck of this game differs from its owner's in the match's first game, as its owner said.
    pub(super) differences: HashMap<Seat, DeckDifference>,
    pub(super) setup_done: BTreeSet<Seat>,
    /// The guest's library reorders that its own shuffle response completed, which the host
    /// applies only once that response reaches it: the turn digest is compared as the host saw
    /// the table (`digest_as_host_saw`).
    pub(super) unseen_reorders: Vec<UnseenReorder>,
}

/// A loss of the game (or a guest's concession waiting for the host's answer), and which messages told the opponent
/// of it. Every such message is numbered in one stream or the other, so the opponent's signed `ack` says exactly which
/// losses it knew of when it signed.
#[cfg_attr(fuzzing, derive(Clone))]
pub(super) struct LossTold {
    pub(super) loser: Seat,
    /// The opponent learned of it from this player's message of this number; `None`: from its own message (its
    /// concession, its forfeit claim, its acceptance of this player's concession), so it knew from the start.
    pub(super) since: Option<u64>,
    /// The opponent stopped counting it on taking in this player's message of this number: the host's rejection of
    /// the guest's concession, which the guest counted as its own loss while it waited.
    pub(super) until: Option<u64>,
}

impl LossTold {
    /// Whether the opponent counted this loss when it had taken in `ack` of this player's messages.
    pub(super) fn counted_at(&self, ack: u64) -> bool {
        self.since.is_none_or(|since| ack > since) && self.until.is_none_or(|until| ack <= until)
    }
}

/// A library order the host had not yet seen changed: `library` was in order `before` until
/// this player's message `seq` completed its shuffle run.
#[cfg_attr(fuzzing, derive(Clone))]
pub(super) struct UnseenReorder {
    pub(super) seq: u64,
    pub(super) library: Seat,
    pub(super) before: Vec<CardId>,
}

impl<G: Group> GameState<G> {
    /// The game's id. Every part that asks runs after both hellos, which set it: the only input before them is a
    /// hello, and `receive` refuses any other first message.
    pub(super) fn game_id(&self) -> GameId {
        self.phase.game_id().expect("the game id is set by the hellos, before any part of the game runs")
    }

    /// A card the engine's own state names (a library's card, one being unlocked or shuffled): the table has
    /// every card those name, since cards are never removed from it, only moved.
    pub(super) fn known_card(&self, id: CardId) -> &Card {
        self.table.card(id).expect("cards are never removed from the table")
    }

    /// The same, to change it.
    pub(super) fn known_card_mut(&mut self, id: CardId) -> &mut Card {
        self.table.card_mut(id).expect("cards are never removed from the table")
    }

    /// The form of a card: every card has one from the moment it is dealt or created.
    pub(super) fn form_mut(&mut self, id: CardId) -> &mut Form<G> {
        self.forms.get_mut(&id).expect("every card gets its form when it enters the table")
    }

    pub(super) fn new(number: u32, phase: GamePhase) -> Self {
        GameState {
            number,
            phase,
            table: Table::new(),
            forms: Default::default(),
            planned: Default::default(),
            keys: Default::default(),
            commitments: Default::default(),
            current_keys: Default::default(),
            catalogues: Default::default(),
            deck_envelopes: Default::default(),
            deck_elements: Default::default(),
            identities: Default::default(),
            unlocks: Default::default(),
            shuffles: Default::default(),
            randoms: Default::default(),
            proposals: Default::default(),
            actions_applied: 0,
            last: None,
            undo_asked: None,
            mulligan_draw: None,
            tokens: Default::default(),
            commanders: Default::default(),
            losers: Default::default(),
            losses_told: Vec::new(),
            own_audit: None,
            peer_audited: false,
            chooser: None,
            differences: Default::default(),
            setup_done: Default::default(),
            unseen_reorders: Vec::new(),
        }
    }
}

impl<G: Group> GameState<G> {
    pub(super) fn context(&self, sequence: u64, purpose: impl Into<String>) -> ProofContext {
        ProofContext::new(self.game_id(), sequence, purpose)
    }

    pub(super) fn library_locked(&self, library: Seat) -> bool {
        self.shuffles.contains(library)
    }

    /// Whether cards of a library are still being unlocked (a shuffle step waits for them).
    pub(super) fn library_unlocking(&self, library: Seat) -> bool {
        self.unlocks.names_any(self.table.zone(ZoneId::library(library)))
    }

    pub(super) fn current_key(&self, holder: Seat, library: Seat) -> Option<KeyRef> {
        self.current_keys.get(&(holder, library)).map(|&epoch| KeyRef { holder, library, epoch })
    }

    /// The cards of `library` not yet under `holder`'s current key, grouped by their layer.
    pub(super) fn stale_layers(&self, holder: Seat, library: Seat) -> BTreeMap<Option<KeyRef>, Vec<CardId>> {
        let current = self.current_key(holder, library);
        let mut groups: BTreeMap<Option<KeyRef>, Vec<CardId>> = BTreeMap::new();
        if current.is_none() {
            return groups;
        }
        for id in self.table.zone(ZoneId::library(library)) {
            let layer = self.forms[id].layers[holder];
            if layer != current {
                groups.entry(layer).or_default().push(*id);
            }
        }
        groups
    }

    /// The library's cards by back, by ascending back id, each in the library's order.
    pub(super) fn back_groups(&self, library: Seat) -> Vec<Vec<CardId>> {
        let mut groups: BTreeMap<BackId, Vec<CardId>> = BTreeMap::new();
        for id in self.table.zone(ZoneId::library(library)) {
            groups.entry(self.known_card(*id).back).or_default().push(*id);
        }
        groups.into_values().collect()
    }

    /// The single loser of this game, if it has one.
    pub(super) fn loser(&self) -> Option<Seat> {
        single_loser(&self.losers)
    }

    pub(super) fn card(&self, id: CardId) -> Result<&Card, ActionError> {
        self.table.card(id).ok_or_else(|| ActionError::forbidden(format!("there is no card {id}")))
    }
}

/// The one seat of `losers`, if it has exactly one: both players claiming each other's forfeit leaves no loser.
pub(super) fn single_loser(losers: &BTreeSet<Seat>) -> Option<Seat> {
    match losers.iter().collect::<Vec<_>>()[..] {
        [loser] => Some(*loser),
        _ => None,
    }
}
