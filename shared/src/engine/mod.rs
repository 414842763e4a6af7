//! The table engine: one state machine per player, fed local intents and received messages,
//! giving back messages to send and events for the interface. No I/O, no clock, no OS
//! randomness: the same engine runs in the client, the tests and the benchmarks.
//!
//! How to drive it: give it each input ([`Engine::handle`]: the player's intent, or a message
//! received from the opponent), then drain [`Engine::poll_transmit`] (send each in order) and
//! [`Engine::poll_event`] until both return `None`. A journal is its inputs in order: a replay
//! hands them to `handle` one by one (`journal::replay`).
//!
//! Order. Table actions are applied by both engines in one order, the host's: the host's
//! actions take effect when sent; the guest's are proposals that take effect when the host
//! accepts them. Cryptographic replies (strips, shuffle steps, commit–reveal) do not change
//! the order of anything, so they flow freely.

mod api;
mod awaited;
mod boosters;
mod contain;
mod fault;
mod grid;
mod intent;
mod journal;
mod limited;
pub mod observer;
mod output;
mod packs;
mod phase;
mod pool_deck;
mod pool_shuffle;
mod random;
mod receive;
mod reveals;
mod round;
mod rules;
mod setup;
mod shuffle;
mod shuffle_run;
mod stack;
mod state;
#[cfg(feature = "testing")]
mod testing;
#[cfg(feature = "testing")]
pub use testing::FAILING_CHAT;
mod the75;
mod undo;
mod unlock;
mod unlock_run;
mod winston;

pub use crate::wire::Awaited;
pub use api::{
    Alert, AlertKind, ChosenBy, DeckCard, DeckError, DeckList, DifferenceCheck, EngineConfig, Event, GameEnd, Intent,
    IntentError, LimitedConfig, Moved, NotUndoable, Place, PoolError, PoolList, PoolSource,
};
pub use journal::{Input, JOURNAL_FORMAT, Journal};

use std::collections::{HashMap, VecDeque};

use ed25519_dalek::SigningKey;
use rand_chacha::ChaCha20Rng;
use rand_core::{Rng, SeedableRng};

use self::fault::Fault;
use self::output::Output;
use self::phase::{GamePhase, MatchPhase};
use self::rules::{Applied, CheckedAction, Effect};
use self::setup::check_deck;
use self::state::GameState;
use crate::crypto::{CardInstance, Group};
use crate::ids::{GameId, Seat};
use crate::seats::SeatMap;
use crate::table::{CardId, Table};
use crate::wire::{self, Action, Envelope, Message, PROTOCOL_VERSION};

/// One player's side of a game: its keys, its view of the table and its part of every exchange.
/// Feed it with [`Engine::handle`], then drain [`Engine::poll_transmit`] and [`Engine::poll_event`].
#[cfg_attr(fuzzing, derive(Clone))]
pub struct Engine<G: Group> {
    seat: Seat,
    config: EngineConfig,
    rng: ChaCha20Rng,
    nonce: [u8; 32],
    deck: DeckList,
    /// Where every part writes what it sends and tells.
    out: Output,
    /// The opponent's key and the talk of a new game (`phase`).
    phase: MatchPhase,
    halted: Option<String>,
    /// Actions this engine takes on its player's behalf, set off while it handles an input (the draw after a
    /// mulligan's shuffle): `drive` takes them in order as soon as the step that set them off is done, so
    /// nothing re-enters it. Empty between inputs.
    follow_ups: VecDeque<Action>,
    /// Everything this engine was given, to run it again (`journal::check`).
    journal: Journal,
    /// Everything of the game being played, dropped when a new game starts.
    game: GameState<G>,
    /// Each seat's deck label in the last game its deck entered (host, guest).
    labels: SeatMap<Option<String>>,
    /// Each seat's deck in the match's first game, card names counted (host, guest): this player's own, and the
    /// opponent's once audited (`the75`).
    first_decks: SeatMap<Option<wire::CardCounts>>,
    /// Each seat whose deck of the match's first game was never audited (host, guest): nothing can check its later
    /// decks' declared differences (`the75`).
    unverifiable: SeatMap<bool>,
    /// A limited match's pool and its stack, kept for the whole match (`limited`).
    limited: Option<limited::Limited<G>>,
    /// A spectator's engine (`observer`): it holds no key and plays no part, so it makes no strip, step,
    /// commitment or follow-up of its own, reads only cards both players know, and tells no player's own alerts.
    observing: bool,
}

impl<G: Group> Engine<G> {
    /// A new engine for `seat`. Its randomness (keys, nonces, permutations) all comes from
    /// `rng_seed`: the client seeds it from the operating system, tests fix it.
    pub fn new(seat: Seat, config: EngineConfig, deck: DeckList, rng_seed: [u8; 32]) -> Result<Self, DeckError> {
        check_deck::<G>(&deck)?;
        Ok(Self::start(seat, config, deck, None, rng_seed))
    }

    /// A new engine for `seat` in a limited match: its deck comes later, built from the pool dealt to it
    /// (`Intent::Build`).
    pub fn new_limited(
        seat: Seat,
        config: EngineConfig,
        limited: LimitedConfig,
        rng_seed: [u8; 32],
    ) -> Result<Self, PoolError> {
        let set = limited::check_config::<G>(seat, &limited)?;
        Ok(Self::start(seat, config, DeckList::default(), Some((limited, set)), rng_seed))
    }

    fn start(
        seat: Seat,
        config: EngineConfig,
        deck: DeckList,
        limited: Option<(LimitedConfig, Option<crate::pool::SetFile>)>,
        rng_seed: [u8; 32],
    ) -> Self {
        let mut engine = Self::blank(seat, config, deck, limited.as_ref().map(|(config, _)| config.clone()), rng_seed);
        engine.game.table.player_mut(seat).name = engine.config.name.clone();
        let hello = Message::Hello {
            protocol: PROTOCOL_VERSION,
            software: engine.config.software.clone(),
            suite: G::SUITE,
            seat,
            signing_key: engine.out.signing().verifying_key().to_bytes(),
            nonce: engine.nonce,
            name: engine.config.name.clone(),
        };
        engine.out.send::<G>(&hello);
        if let Some((limited, set)) = limited {
            engine.offer_pool(limited, set);
        }
        engine
    }

    /// An engine before its first message: keys and nonce drawn from `rng_seed`, the journal begun, nothing sent.
    fn blank(
        seat: Seat,
        config: EngineConfig,
        deck: DeckList,
        limited: Option<LimitedConfig>,
        rng_seed: [u8; 32],
    ) -> Self {
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
            limited,
            rng_seed,
            inputs: Vec::new(),
        };
        Engine {
            seat,
            config,
            rng,
            nonce,
            deck,
            out: Output::new(seat, signing),
            phase: MatchPhase::default(),
            halted: None,
            follow_ups: VecDeque::new(),
            journal,
            game: GameState::new(1, GamePhase::meeting()),
            labels: SeatMap::default(),
            first_decks: SeatMap::default(),
            unverifiable: SeatMap::default(),
            limited: None,
            observing: false,
        }
    }

    /// This player's seat.
    pub fn seat(&self) -> Seat {
        self.seat
    }

    /// This player's deck: the one of the game on, or the one the next game will take.
    pub fn deck(&self) -> &DeckList {
        &self.deck
    }

    /// The label of `seat`'s deck as its latest deck message gave it, once one came.
    pub fn deck_label(&self, seat: Seat) -> Option<&str> {
        self.labels[seat].as_deref()
    }

    /// The public table, as this engine has applied it.
    pub fn table(&self) -> &Table {
        &self.game.table
    }

    /// How many actions of the game's order this engine has applied.
    pub fn actions_applied(&self) -> u64 {
        self.game.actions_applied
    }

    /// Whether set-up is done: both libraries are shuffled and play can start.
    pub fn is_ready(&self) -> bool {
        self.game.phase.is_ready()
    }

    /// Whether this player's game is over: it ended it (`EndGame`), or a forfeit was claimed
    /// by either player. Only chat, ping and a new game are taken then.
    pub fn is_ended(&self) -> bool {
        self.game.phase.is_ended()
    }

    /// The player who lost this game (by concession or forfeit), once it has a single loser.
    pub fn loser(&self) -> Option<Seat> {
        self.game.loser()
    }

    /// The player who chooses to play or draw this game, once decided (`Event::Chooser`).
    pub fn chooser(&self) -> Option<Seat> {
        self.game.chooser
    }

    /// Why the game stopped, if it did.
    pub fn halted(&self) -> Option<&str> {
        self.halted.as_deref()
    }

    /// The game's id, once both hellos are in.
    pub fn game_id(&self) -> Option<GameId> {
        self.game.phase.game_id()
    }

    /// What this player knows card `card` to be.
    pub fn identity(&self, card: CardId) -> Option<&CardInstance> {
        self.game.identities.get(&card)
    }

    /// Every identity this player knows.
    pub fn identities(&self) -> &HashMap<CardId, CardInstance> {
        &self.game.identities
    }

    /// Every message sent and received so far, in the order this engine handled them.
    pub fn record(&self) -> &[(Seat, Envelope)] {
        &self.out.record
    }

    /// Everything this engine was given so far: with it anyone can run the engine again and
    /// see what it saw (`journal::check`). It holds the engine's seed, so every secret of
    /// the game: keep it to yourself until the game is over.
    pub fn journal(&self) -> &Journal {
        &self.journal
    }

    /// The next message to send, sealed and encoded; send them in the order given.
    #[must_use]
    pub fn poll_transmit(&mut self) -> Option<Vec<u8>> {
        self.out.poll_transmit()
    }

    /// The next thing to tell the player.
    #[must_use]
    pub fn poll_event(&mut self) -> Option<Event> {
        self.out.poll_event()
    }

    /// Whether a message to send or an event is waiting to be polled.
    pub fn has_output(&self) -> bool {
        !self.out.is_empty()
    }

    /// Takes one input: the player's intent (refused with a reason, nothing sent), or bytes received from
    /// the opponent (misbehaviour becomes an alert, never an error or a panic).
    pub fn handle(&mut self, input: Input) -> Result<(), IntentError> {
        match input {
            Input::Intent { intent } => {
                let name = intent.name();
                self.contained(|engine| engine.handle_intent(intent), || format!("your {name}"))?
            }
            Input::Message { bytes } => {
                let _halted_with_an_alert = self.contained(
                    |engine| engine.handle_message(&bytes),
                    || format!("the opponent's {}", contain::message_words::<G>(&bytes)),
                );
                Ok(())
            }
        }
    }

    fn handle_intent(&mut self, intent: Intent) -> Result<(), IntentError> {
        if let Some(reason) = &self.halted {
            return Err(IntentError::Halted(reason.clone()));
        }
        // Even a refused intent may have drawn randomness: a replay needs every one.
        self.journal.inputs.push(Input::Intent { intent: intent.clone() });
        let act = matches!(intent, Intent::Act(_));
        self.take_intent(intent)?;
        if act {
            self.drive();
        }
        Ok(())
    }

    /// Applies a checked action in the game's order, starts the exchange it sets off, and tells
    /// the interface.
    fn apply(&mut self, checked: CheckedAction) {
        let Applied { number, actor, action, effect, moved } = self.apply_action(checked);
        match effect {
            Effect::None => {}
            Effect::Unlock { cards, audience } => self.start_unlock(number, cards, audience),
            Effect::Shuffle => self.start_shuffle(actor, number),
            Effect::Random(kind) => self.start_random(number, actor, kind),
        }
        self.out.emit(Event::Applied { number, by: actor, action, moved });
    }

    fn handle_message(&mut self, bytes: &[u8]) {
        // A halted engine takes nothing in, so its journal keeps nothing more either.
        if self.halted.is_some() {
            return;
        }
        self.journal.inputs.push(Input::Message { bytes: bytes.to_vec() });
        let envelope = match wire::decode_envelope(bytes) {
            Ok(envelope) => envelope,
            Err(error) => return self.raise(Fault::from(error), None),
        };
        let authenticated = self.out.incoming.next_seq;
        if let Err(fault) = self.receive(&envelope) {
            // Only a message that passed its number, chain and signature checks is evidence of
            // anything: before that, anyone could have made it.
            let evidence = (self.out.incoming.next_seq > authenticated).then_some(envelope);
            self.raise(fault, evidence);
        }
        self.drive();
    }
}
