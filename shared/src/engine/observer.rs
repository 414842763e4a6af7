//! A spectator's engine: it takes every envelope both players exchanged, as one player's engine handled them, and
//! checks what anyone can check without a key: both signed streams (number, chain, signature, and each message's
//! acknowledgement of the other stream, so that a player who shows a game other than the one its opponent signed
//! for is caught as soon as one of the opponent's messages arrives), every action against the table's rules in the
//! game's order, and every public proof (decks, relocks, shuffle steps, strips, random rounds, audits). It keeps the
//! public table and learns a card's name only when the last strip of an unlock to both players lays its point bare,
//! which is exactly when both players know it.
//!
//! It is the players' engine run from the receiving side of each message: before a message of one seat it takes the
//! other seat's place (`Engine::seat`), so every check is the one that player's engine makes of it, while
//! `Engine::observing` keeps the engine from playing a part of its own (no strip, step, commitment or follow-up).
//! What one player's engine decides alone (the host's acceptance of a guest's proposal, a random round's
//! settlement) is taken from the message that carries the decision.
//!
//! Limited play (pools, drafts) is not followed yet: an observer of such a match stops with `unsupported`, without
//! an alert.

use ed25519_dalek::VerifyingKey;

use super::api::{AlertKind, EngineConfig, Event, GameEnd};
use super::contain;
use super::fault::{Fault, check_text, forbidden_kind};
use super::pool_deck::ReceivedPoolDeck;
use super::receive::{check_hello, game_id};
use super::round::RoundError;
use super::setup::{ReceivedDeck, agreed_loser};
use super::{DeckList, Engine};
use crate::crypto::{CardInstance, Group};
use crate::ids::{GameId, Seat};
use crate::seats::{SeatMap, Seats};
use crate::table::{CardId, Table};
use crate::wire::{self, Action, Envelope, Message, MessageKind, Stream, TableDigest, WireError};

/// A spectator's view of a game: feed it each envelope with [`Observer::observe`], then drain
/// [`Observer::poll_event`]. It never sends anything.
pub struct Observer<G: Group> {
    engine: Engine<G>,
    streams: SeatMap<SeatStream>,
    /// Each seat's hello nonce, until the game's id is made of both.
    nonces: SeatMap<Option<[u8; 32]>>,
    /// Each seat's new-game request (the loser it names), until both asked.
    new_game: SeatMap<Option<Option<Seat>>>,
    /// After a new game began: the seats whose deck of it has not come yet, whose other messages belong to the game
    /// dropped.
    awaiting_deck: SeatMap<bool>,
    /// The seats that ended this game with their audit: they take no more actions in it.
    ended: SeatMap<bool>,
    unsupported: Option<String>,
}

/// One seat's signed stream as the spectator has checked it.
struct SeatStream {
    stream: Stream,
    key: Option<VerifyingKey>,
    /// The chain hash of each message, by number: what the other seat's acknowledgements bind.
    heads: Vec<[u8; 32]>,
    /// How many of the other seat's messages this seat last said it had taken in.
    acked: u64,
}

impl SeatStream {
    fn new() -> Self {
        SeatStream { stream: Stream::new(), key: None, heads: Vec::new(), acked: 0 }
    }

    /// The head of this stream after `ack` messages, as a message of the other seat acknowledges it: never more
    /// than were shown to the spectator, never fewer than that seat said before.
    fn acknowledged_head(&self, ack: u64, before: u64) -> Result<[u8; 32], WireError> {
        let shown = self.heads.len() as u64;
        if ack > shown || ack < before {
            return Err(WireError::Ack { acked: ack, sent: shown, before });
        }
        Ok(ack.checked_sub(1).map_or([0; 32], |last| self.heads[last as usize]))
    }
}

impl<G: Group> Observer<G> {
    /// A spectator's engine. `rng_seed` must be secret and fresh (the operating system's): the shuffle proofs'
    /// checks draw their challenges from it, and a player who knew them could pass a false proof.
    pub fn new(rng_seed: [u8; 32]) -> Self {
        let mut engine = Engine::blank(Seat::GUEST, EngineConfig::default(), DeckList::default(), None, rng_seed);
        engine.observing = true;
        Observer {
            engine,
            streams: SeatMap::from_fn(Seats::TWO, |_| SeatStream::new()),
            nonces: SeatMap::default(),
            new_game: SeatMap::default(),
            awaiting_deck: SeatMap::default(),
            ended: SeatMap::default(),
            unsupported: None,
        }
    }

    /// Takes one envelope of `from`'s, in the order the forwarding player's engine handled it. Misbehaviour becomes
    /// an alert (and stops the observer), never an error or a panic.
    pub fn observe(&mut self, from: Seat, bytes: &[u8]) {
        if let Err(words) = contain::hold(self, |observer| observer.take(from, bytes)) {
            let input = format!("the {} {}", from.name(), contain::message_words::<G>(bytes));
            self.engine.fail(&input, &words);
        }
    }

    fn take(&mut self, from: Seat, bytes: &[u8]) {
        if self.engine.halted.is_some() || self.unsupported.is_some() {
            return;
        }
        let envelope = match wire::decode_envelope(bytes) {
            Ok(envelope) => envelope,
            Err(error) => return self.engine.raise(Fault::from(error), None),
        };
        let hello = match self.authenticate(from, &envelope) {
            Ok(hello) => hello,
            // Unauthenticated, the envelope proves nothing against its seat: the forwarder may have made it.
            Err(fault) => return self.engine.raise(fault, None),
        };
        // Every check from here is the receiving player's, made of a message its sender provably signed.
        self.engine.seat = from.opponent();
        let checked = match hello {
            Some(message) => Ok(message),
            None => wire::decode_body(&envelope.body).map_err(Fault::from),
        }
        .and_then(|message| self.dispatch(from, &envelope, message));
        if let Err(fault) = checked {
            self.engine.raise(fault, Some(envelope));
        }
    }

    /// The next thing to tell the spectator.
    #[must_use]
    pub fn poll_event(&mut self) -> Option<Event> {
        self.engine.poll_event()
    }

    /// The public table.
    pub fn table(&self) -> &Table {
        self.engine.table()
    }

    /// What card `card` is, when both players know it.
    pub fn identity(&self, card: CardId) -> Option<&CardInstance> {
        self.engine.identity(card)
    }

    /// Who chooses to play or draw, once decided.
    pub fn chooser(&self) -> Option<Seat> {
        self.engine.chooser()
    }

    /// Who lost the game, once it has a single loser.
    pub fn loser(&self) -> Option<Seat> {
        self.engine.loser()
    }

    /// Whether the game is over: a player ended it, or a forfeit was claimed.
    pub fn is_ended(&self) -> bool {
        self.engine.is_ended()
    }

    /// Whether set-up is done.
    pub fn is_ready(&self) -> bool {
        self.engine.is_ready()
    }

    /// How many actions of the game's order were applied.
    pub fn actions_applied(&self) -> u64 {
        self.engine.actions_applied()
    }

    /// The game's id, once both hellos are in.
    pub fn game_id(&self) -> Option<GameId> {
        self.engine.game_id()
    }

    /// Why the observer stopped on a breach, if it did.
    pub fn halted(&self) -> Option<&str> {
        self.engine.halted()
    }

    /// Why the observer stopped without a breach: a match it cannot follow (limited play).
    pub fn unsupported(&self) -> Option<&str> {
        self.unsupported.as_deref()
    }

    /// How many of `seat`'s messages the observer has taken in.
    pub fn seen(&self, seat: Seat) -> u64 {
        self.streams[seat].stream.next_seq
    }

    /// Checks the envelope's number, chain, signature (the key from the seat's hello) and its acknowledgement of
    /// the other stream; gives the hello, decoded for its key, if this is the seat's first message.
    fn authenticate(&mut self, from: Seat, envelope: &Envelope) -> Result<Option<Message<G>>, Fault> {
        let other = &self.streams[from.opponent()];
        let own = &self.streams[from];
        let ack_head = other.acknowledged_head(envelope.ack, own.acked)?;
        let (key, hello) = match own.key {
            Some(key) => (key, None),
            None => {
                let message = wire::decode_body::<G>(&envelope.body)?;
                let Message::Hello { signing_key, .. } = &message else {
                    return Err(Fault::new(AlertKind::Unexpected, "the first message must be hello"));
                };
                (wire::verifying_key(signing_key)?, Some(message))
            }
        };
        let own = &mut self.streams[from];
        own.stream.open(&key, envelope, &ack_head)?;
        own.key = Some(key);
        own.heads.push(envelope.chain);
        own.acked = envelope.ack;
        if from == Seat::HOST {
            // The host's acknowledgement of the guest's stream: which of the guest's library reorders its table had.
            self.engine.out.peer_ack = envelope.ack;
            self.engine.game.unseen_reorders.retain(|reorder| reorder.seq >= envelope.ack);
        }
        Ok(hello)
    }

    fn dispatch(&mut self, from: Seat, envelope: &Envelope, message: Message<G>) -> Result<(), Fault> {
        let seq = envelope.seq;
        let kind = message.kind();
        if self.awaiting_deck[from] {
            if !matches!(kind, MessageKind::Deck | MessageKind::Chat | MessageKind::Ping | MessageKind::Pong) {
                // Its sender's part of the game dropped, sent before it took the new one in.
                return Ok(());
            }
            if kind == MessageKind::Deck {
                self.awaiting_deck[from] = false;
            }
        }
        let late = matches!(
            message,
            Message::Act { .. } | Message::Audit { .. } | Message::ForfeitClaim { .. } | Message::RevealRequest { .. }
        );
        if late && self.ended[from] {
            return Err(Fault::new(AlertKind::Unexpected, format!("a {kind} after its sender ended the game")));
        }
        let engine = &mut self.engine;
        match message {
            Message::Hello { protocol, software, suite, seat, nonce, name, .. } => {
                self.hello(from, protocol, suite, seat, nonce, name, software)?
            }
            Message::Deck { key, base_key, proof, library, sideboard, catalogue, commander, label, difference } => {
                let deck =
                    ReceivedDeck { key, base_key, proof, library, sideboard, catalogue, commander, label, difference };
                engine.receive_deck(envelope, deck)?
            }
            Message::Act { action, seen, digest } => self.act(from, seq, action, seen, digest)?,
            Message::Accept { seq: proposal } => engine.receive_accept(proposal)?,
            Message::Reject { seq: proposal, reason } => engine.receive_reject(proposal, reason)?,
            Message::Strip { unlock, groups } => engine.receive_strip(seq, unlock, groups)?,
            Message::ShuffleStep { step } => engine.receive_shuffle_step(seq, step)?,
            Message::Relock { library, relock } => engine.receive_relock(seq, library, relock)?,
            Message::RandomCommit { round, commitment } => {
                round_entry(engine, round)?.observe_commitment(from, commitment).map_err(|e| bad_round(round, e))?
            }
            Message::RandomOpen { round, opening } => {
                round_entry(engine, round)?.observe_opening(from, opening).map_err(|e| bad_round(round, e))?
            }
            Message::RandomSettle { round } => {
                let entry = round_entry(engine.expect_guest()?, round)?;
                let seed = entry.take_settlement().map_err(|e| bad_round(round, e))?;
                engine.settle_random(round, seed);
            }
            Message::Audit { deck_key } => {
                self.ended[from] = true;
                engine.game.phase.ended_by_peer();
                engine.receive_audit(deck_key)?
            }
            Message::ForfeitClaim { awaited } => {
                // A silence is neither proven nor disproven, by the players or by a spectator: the claim ends the
                // game and the record keeps it.
                engine.game.phase.forfeit_claimed_by_peer();
                engine.out.emit(Event::ForfeitClaimed { by: from, awaited });
                engine.record_loss(from.opponent(), GameEnd::Forfeited, None);
            }
            Message::NewGame { loser } => self.new_game(from, loser)?,
            Message::RevealRequest { zone, count } => engine.out.emit(Event::RevealRequested { zone, count }),
            Message::RevealRefuse { zone } => engine.out.emit(Event::RevealRefused { zone }),
            Message::UndoAsk { action } => engine.receive_undo_ask(action)?,
            Message::UndoRefuse { action } => engine.receive_undo_refuse(action),
            Message::Chat { text } => {
                check_text("chat", &text)?;
                engine.out.emit(Event::Chat { from, text });
            }
            Message::Ping | Message::Pong => {}
            Message::PoolDeck { key, library, sideboard, forms, pool_proof, basic_proof, label, difference } => {
                // Decoded in full (its elements validated) before it is set aside.
                drop(ReceivedPoolDeck { key, library, sideboard, forms, pool_proof, basic_proof, label, difference });
                self.unsupported = Some(format!("a {kind}: limited play is not followed by spectators yet"));
            }
            Message::LimitedPool { .. }
            | Message::StackShuffle { .. }
            | Message::StackDeal { .. }
            | Message::GridReveal { .. }
            | Message::GridPick { .. }
            | Message::StackReveal { .. }
            | Message::WinstonChoice { .. }
            | Message::PackPick { .. }
            | Message::PoolShuffle { .. } => {
                self.unsupported = Some(format!("a {kind}: limited play is not followed by spectators yet"));
            }
        }
        Ok(())
    }

    /// A seat's action: the host's takes its place in the game's order now, the guest's with the host's `accept`.
    fn act(
        &mut self,
        from: Seat,
        seq: u64,
        action: Action,
        seen: u64,
        digest: Option<TableDigest>,
    ) -> Result<(), Fault> {
        let engine = &mut self.engine;
        if from == Seat::HOST {
            return engine.receive_act(seq, action, seen, digest);
        }
        if !engine.game.phase.is_ready() {
            return Err(Fault::new(AlertKind::Unexpected, "an action before set-up finished"));
        }
        // Forbidden on the very table its sender saw (the host's actions had not overtaken it): a breach, as the
        // host's engine finds it; else the host's answer decides.
        if let Err(error) = engine.check_action(from, &action)
            && error.forbidden
            && seen == engine.game.actions_applied
        {
            return Err(Fault::new(forbidden_kind(&action), error.reason));
        }
        engine.game.proposals.insert(seq, action);
        Ok(())
    }

    /// A seat's hello: its protocol, suite and seat, its name on the table; with both, the game's id and the coin
    /// of who chooses to play or draw.
    #[allow(clippy::too_many_arguments)]
    fn hello(
        &mut self,
        from: Seat,
        protocol: u32,
        suite: crate::crypto::Suite,
        seat: Seat,
        nonce: [u8; 32],
        name: String,
        software: String,
    ) -> Result<(), Fault> {
        check_hello::<G>(protocol, suite, seat, from)?;
        check_text("name", &name)?;
        check_text("software", &software)?;
        let engine = &mut self.engine;
        engine.game.table.player_mut(from).name = name.clone();
        engine.out.emit(Event::Connected { name, software, suite });
        self.nonces[from] = Some(nonce);
        if let [Some(host), Some(guest)] = self.nonces.as_slice() {
            engine
                .game
                .phase
                .met(game_id(host, guest))
                .map_err(|e| Fault::new(AlertKind::Unexpected, e.to_string()))?;
            engine.decide_chooser(None);
        }
        Ok(())
    }

    /// A seat's new-game request; with both in, the next game begins, as both engines begin it.
    fn new_game(&mut self, from: Seat, loser: Option<Seat>) -> Result<(), Fault> {
        if self.engine.game.phase.game_id().is_none() {
            return Err(Fault::new(AlertKind::Unexpected, "a new game before the hellos"));
        }
        if self.new_game[from].replace(loser).is_some() {
            return Err(Fault::new(AlertKind::Unexpected, "a second new-game request"));
        }
        self.engine.out.emit(Event::NewGameRequested);
        if let [Some(host), Some(guest)] = *self.new_game.as_slice() {
            self.new_game = SeatMap::default();
            self.awaiting_deck = SeatMap::from_fn(Seats::TWO, |_| true);
            self.ended = SeatMap::default();
            self.engine.begin_next_game();
            self.engine.decide_chooser(agreed_loser(host, guest));
        }
        Ok(())
    }
}

/// The random round `round` under way.
fn round_entry<G: Group>(engine: &mut Engine<G>, round: u64) -> Result<&mut super::round::RandomRound, Fault> {
    engine
        .game
        .randoms
        .get_mut(&round)
        .ok_or_else(|| Fault::new(AlertKind::Unexpected, format!("random round {round} is not under way")))
}

fn bad_round(round: u64, error: RoundError) -> Fault {
    match error {
        RoundError::OutOfTurn => Fault::new(AlertKind::Unexpected, format!("random round {round}: out of turn")),
        RoundError::BadProof(e) => Fault::new(AlertKind::BadProof, format!("random round {round}: {e}")),
    }
}
