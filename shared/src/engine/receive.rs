//! Received messages: authentication, admission, and dispatch to each part of the protocol.

use sha2::{Digest, Sha256};

use super::Engine;
use super::api::{AlertKind, Event, GameEnd};
use super::fault::{Fault, check_text, forbidden_kind};
use super::phase::{PeerRequest, PhaseError};
use super::pool_deck::ReceivedPoolDeck;
use super::setup::ReceivedDeck;
use super::state::LossTold;
use crate::crypto::{Group, Suite};
use crate::ids::{GameId, Seat};
use crate::table::ZoneId;
use crate::wire::{self, Action, Envelope, KeyRef, Message, MessageKind, PROTOCOL_VERSION, TableDigest};

impl<G: Group> Engine<G> {
    pub(super) fn receive(&mut self, envelope: &Envelope) -> Result<(), Fault> {
        let Some(message) = self.authenticate(envelope)? else { return Ok(()) };
        let seq = envelope.seq;
        if let Message::Deck { .. } | Message::PoolDeck { .. } = message {
            self.phase.new_deck_received();
        }
        self.check_not_after_end(&message)?;
        let peer = self.seat.opponent();
        match message {
            Message::Hello { protocol, software, suite, seat, nonce, name, .. } => {
                if seq != 0 {
                    return Err(Fault::new(AlertKind::Unexpected, "hello sent twice"));
                }
                check_hello::<G>(protocol, suite, seat, peer)?;
                check_text("name", &name)?;
                check_text("software", &software)?;
                self.meet(name, software, nonce)?;
            }
            Message::Deck { .. } if self.limited.is_some() => {
                return Err(Fault::new(AlertKind::Incompatible, "the opponent brought a deck to a limited match"));
            }
            Message::Deck { key, base_key, proof, library, sideboard, catalogue, commander, label, difference } => {
                let deck =
                    ReceivedDeck { key, base_key, proof, library, sideboard, catalogue, commander, label, difference };
                self.receive_deck(envelope, deck)?
            }
            Message::Act { action, seen, digest } => self.receive_act(seq, action, seen, digest)?,
            Message::Accept { seq: proposal } => self.receive_accept(proposal)?,
            Message::Reject { seq: proposal, reason } => self.receive_reject(proposal, reason)?,
            Message::Strip { unlock, groups } => self.receive_strip(seq, unlock, groups)?,
            Message::ShuffleStep { step } => self.receive_shuffle_step(seq, step)?,
            Message::Relock { library, relock } => self.receive_relock(seq, library, relock)?,
            Message::RandomCommit { round, commitment } => self.receive_random_commit(round, commitment)?,
            Message::RandomOpen { round, opening } => self.receive_random_open(round, opening)?,
            Message::RandomSettle { round } => self.receive_random_settle(round)?,
            Message::Audit { deck_key } => {
                self.game.phase.ended_by_peer();
                self.receive_audit(deck_key)?
            }
            Message::ForfeitClaim { awaited } => {
                self.check_forfeit_claim(&awaited, envelope.ack)?;
                // A silence is neither proven nor disproven: a plausible claim is reported, the
                // game is over, and the record keeps the claim.
                self.game.phase.forfeit_claimed_by_peer();
                self.out.emit(Event::ForfeitClaimed { by: peer, awaited });
                self.record_loss(self.seat, GameEnd::Forfeited, None);
            }
            Message::NewGame { loser } => self.receive_new_game(loser, envelope.ack)?,
            // Only a request: nothing is seen unless this player reveals, so it is an event, not an alert.
            Message::RevealRequest { zone, count } => self.out.emit(Event::RevealRequested { zone, count }),
            Message::RevealRefuse { zone } => self.out.emit(Event::RevealRefused { zone }),
            Message::UndoAsk { action } => self.receive_undo_ask(action)?,
            Message::UndoRefuse { action } => self.receive_undo_refuse(action),
            Message::Chat { text } => {
                check_text("chat", &text)?;
                #[cfg(feature = "testing")]
                super::testing::fail_on(&text);
                self.out.emit(Event::Chat { from: peer, text });
            }
            Message::Ping => {
                self.out.send::<G>(&Message::Pong);
            }
            Message::Pong => self.out.emit(Event::Pong),
            Message::LimitedPool { pool, format } => self.receive_limited_pool(pool, format)?,
            Message::StackShuffle { key, shuffles } => self.receive_stack_shuffle(seq, key, shuffles)?,
            Message::StackDeal { positions, forms, proof } => self.receive_stack_deal(seq, positions, forms, proof)?,
            Message::GridReveal { grid, forms, proof } => self.receive_grid_reveal(seq, grid, forms, proof)?,
            Message::GridPick { grid, line } => self.receive_grid_pick(grid, line)?,
            Message::StackReveal { positions, forms, proof } => {
                self.receive_stack_reveal(seq, positions, forms, proof)?
            }
            Message::WinstonChoice { pile, choice } => self.receive_winston_choice(pile, choice)?,
            Message::PackPick { pack, position } => self.receive_pack_pick(pack, position)?,
            Message::PoolShuffle { key, shuffle, forms, proof } => {
                self.receive_pool_shuffle(seq, key, shuffle, forms, proof)?
            }
            Message::PoolDeck { key, library, sideboard, forms, pool_proof, basic_proof, label, difference } => {
                let deck =
                    ReceivedPoolDeck { key, library, sideboard, forms, pool_proof, basic_proof, label, difference };
                self.receive_pool_deck(envelope, deck)?
            }
        }
        Ok(())
    }

    /// Checks a received envelope's number, chain and signature, and admits its kind: the message, or `None`
    /// for one of the dropped game's, sent before the opponent took this player's new game in.
    fn authenticate(&mut self, envelope: &Envelope) -> Result<Option<Message<G>>, Fault> {
        // The signature is checked before the body is read (but for hello, which carries the
        // key), so every alert's evidence is a message the opponent provably sent.
        let Some(&key) = self.phase.peer_key() else {
            let message = wire::decode_body(&envelope.body)?;
            let Message::Hello { signing_key, .. } = &message else {
                return Err(Fault::new(AlertKind::Unexpected, "the first message must be hello"));
            };
            let key = wire::verifying_key(signing_key)?;
            self.out.incoming.open(&key, envelope, &self.out.acknowledged_head(envelope.ack)?)?;
            self.phase.hello_received(key).map_err(|e| Fault::new(AlertKind::Unexpected, e.to_string()))?;
            self.take_in(envelope);
            return Ok(Some(message));
        };
        self.out.incoming.open(&key, envelope, &self.out.acknowledged_head(envelope.ack)?)?;
        self.take_in(envelope);
        // Cheap checks first: what kind of message, whether anything of that kind is
        // awaited, and whether its size fits what is; only then are its elements decoded
        // and validated (about 11 ms each with modp2048).
        let kind = wire::peek_kind(&envelope.body)?;
        if self.phase.is_awaiting_new_deck()
            && !matches!(
                kind,
                MessageKind::Deck | MessageKind::PoolDeck | MessageKind::Chat | MessageKind::Ping | MessageKind::Pong
            )
        {
            // Sent before the opponent started the new game, so part of the dropped one:
            // unless it had this player's new-game request by then.
            if self.phase.sent_after_request(envelope.ack) {
                return Err(Fault::new(AlertKind::Unexpected, format!("a {kind} in the new game before its deck")));
            }
            return Ok(None);
        }
        self.admit(kind, envelope.body.len())?;
        Ok(Some(wire::decode_body(&envelope.body)?))
    }

    /// The opponent's hello fits: the game has its id from both nonces, and this player's deck goes out.
    fn meet(&mut self, name: String, software: String, nonce: [u8; 32]) -> Result<(), Fault> {
        self.game.table.player_mut(self.seat.opponent()).name = name.clone();
        let (host_nonce, guest_nonce) = match self.seat {
            Seat::HOST => (self.nonce, nonce),
            Seat::GUEST => (nonce, self.nonce),
        };
        self.game
            .phase
            .met(game_id(&host_nonce, &guest_nonce))
            .map_err(|e| Fault::new(AlertKind::Unexpected, e.to_string()))?;
        self.out.emit(Event::Connected { name, software, suite: G::SUITE });
        // A limited match's first deck is built once the pool is dealt (`Intent::Build`).
        if self.limited.is_none() {
            self.send_deck();
        }
        self.decide_chooser(None);
        Ok(())
    }

    /// The host's acceptance of this guest's proposal: it takes its place in the game's order now.
    pub(super) fn receive_accept(&mut self, proposal: u64) -> Result<(), Fault> {
        let action = self
            .expect_guest()?
            .game
            .proposals
            .remove(&proposal)
            .ok_or_else(|| Fault::new(AlertKind::Unexpected, format!("accept of unknown proposal {proposal}")))?;
        let checked = self.check_action(Seat::GUEST, &action).map_err(|e| {
            Fault::new(AlertKind::Unexpected, format!("accepted an action that does not fit: {}", e.reason))
        })?;
        self.apply(checked);
        Ok(())
    }

    /// The host's refusal of this guest's proposal: it never takes a place in the game's order.
    pub(super) fn receive_reject(&mut self, proposal: u64, reason: String) -> Result<(), Fault> {
        let action = self
            .expect_guest()?
            .game
            .proposals
            .remove(&proposal)
            .ok_or_else(|| Fault::new(AlertKind::Unexpected, format!("reject of unknown proposal {proposal}")))?;
        check_text("reason", &reason)?;
        self.out.emit(Event::Rejected { action, reason });
        Ok(())
    }

    fn receive_new_game(&mut self, loser: Option<Seat>, ack: u64) -> Result<(), Fault> {
        if self.phase.is_new_game_offered() {
            return Err(Fault::new(AlertKind::Unexpected, PhaseError::PeerAlreadyAsked.to_string()));
        }
        // Its `ack` says which of this player's messages it had taken in: a loss it had learned of is not a
        // crossing, and naming another loser (or none) only to turn the choice over to the coin is false.
        let seen = self.loser_seen_by_peer(ack);
        if loser != seen {
            return Err(Fault::new(
                AlertKind::Unexpected,
                format!(
                    "a new game naming {} the loser, though the messages it had taken in made it {}",
                    loser_words(loser),
                    loser_words(seen)
                ),
            ));
        }
        self.phase
            .new_game_offered(PeerRequest { loser, ack })
            .map_err(|e| Fault::new(AlertKind::Unexpected, e.to_string()))?;
        self.out.emit(Event::NewGameRequested);
        self.start_new_game_if_agreed();
        Ok(())
    }

    /// An authenticated message of the opponent's: it is in the record, and says how much of
    /// this player's stream its sender had taken in.
    pub(super) fn take_in(&mut self, envelope: &Envelope) {
        self.out.take_in(envelope);
        self.game.unseen_reorders.retain(|reorder| reorder.seq >= envelope.ack);
    }

    /// Checks the opponent's whole deck once it reveals its deck key: every element it sent
    /// must be the lock of a distinct card of its catalogue, with the back it claimed.
    pub(super) fn receive_audit(&mut self, deck_key: G::Scalar) -> Result<(), Fault> {
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
        let locked: Vec<G::Element> = elements.iter().map(|(element, _)| element.clone()).collect();
        let points = G::mul_each(&locked, &strip);
        for (index, ((_, back), point)) in elements.iter().zip(&points).enumerate() {
            match self.game.catalogues[&peer].open::<G>(point) {
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
            None => {
                // The commanders came in the clear in the same signed deck message.
                deck.extend(self.game.commanders.get(&peer).into_iter().flatten().cloned());
                let checked = self.audit_difference(&deck);
                self.game.peer_audited = true;
                self.out.emit(Event::Audited { seat: peer, deck });
                if let Err(fault) = checked {
                    let evidence = self.game.deck_envelopes.get(&peer).cloned();
                    self.raise(fault, evidence);
                }
            }
        }
        Ok(())
    }

    pub(super) fn expect_guest(&mut self) -> Result<&mut Self, Fault> {
        if self.seat == Seat::GUEST {
            Ok(self)
        } else {
            Err(Fault::new(AlertKind::Unexpected, "only the host accepts or rejects actions"))
        }
    }

    /// What the opponent sends after ending the game (its `audit`, a concession's end) is only the end's follow-up:
    /// no action, audit, claim or request.
    fn check_not_after_end(&self, message: &Message<G>) -> Result<(), Fault> {
        let late = matches!(
            message,
            Message::Act { .. }
                | Message::Audit { .. }
                | Message::ForfeitClaim { .. }
                | Message::RevealRequest { .. }
                | Message::RevealRefuse { .. }
        );
        if self.game.phase.is_ended_by_peer() && late {
            return Err(Fault::new(
                AlertKind::Unexpected,
                format!("a {} after the opponent ended the game", message.kind()),
            ));
        }
        Ok(())
    }

    pub(super) fn receive_act(
        &mut self,
        seq: u64,
        action: Action,
        seen: u64,
        digest: Option<TableDigest>,
    ) -> Result<(), Fault> {
        if !self.game.phase.is_ready() {
            return Err(Fault::new(AlertKind::Unexpected, "an action before set-up finished"));
        }
        let peer = self.seat.opponent();
        match self.seat {
            // The guest's proposal: the host decides its place in the game's order.
            Seat::HOST => match self.check_action(peer, &action) {
                Ok(checked) => {
                    self.out.send::<G>(&Message::Accept { seq });
                    self.apply(checked);
                }
                Err(error) => {
                    let reject = self.out.send::<G>(&Message::Reject { seq, reason: error.reason.clone() }).seq;
                    if action == Action::Concede {
                        // The guest counted its concession as its loss until this rejection reaches it.
                        self.game.losses_told.push(LossTold { loser: peer, since: None, until: Some(reject) });
                    }
                    // Only a proposal made on the table as it is now can be called forbidden;
                    // one the host's own actions overtook may just be out of date.
                    if error.forbidden && seen == self.game.actions_applied {
                        let kind = forbidden_kind(&action);
                        return Err(Fault::new(kind, error.reason));
                    }
                }
            },
            // The host's action, already applied on its side: it must fit, at the same point.
            Seat::GUEST => {
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
                let checked = self.check_action(peer, &action).map_err(|error| {
                    let kind = if error.forbidden { forbidden_kind(&action) } else { AlertKind::Unexpected };
                    Fault::new(kind, error.reason)
                })?;
                self.apply(checked);
            }
        }
        Ok(())
    }

    /// The guest's table as the host saw it when it sent the message being handled (which
    /// acknowledged `peer_ack` of the guest's messages): a library whose run the guest's own
    /// unseen response completed is in its order from before.
    pub(super) fn digest_as_host_saw(&self) -> TableDigest {
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
}

/// The game's id, from both hellos' nonces.
pub(super) fn game_id(host_nonce: &[u8; 32], guest_nonce: &[u8; 32]) -> GameId {
    let id =
        Sha256::new().chain_update(b"fairdeck/v1/game").chain_update(host_nonce).chain_update(guest_nonce).finalize();
    GameId(id.into())
}

/// The opponent's hello speaks this table's protocol and suite, for the other seat.
pub(super) fn check_hello<G: Group>(protocol: u32, suite: Suite, seat: Seat, peer: Seat) -> Result<(), Fault> {
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
            format!("the opponent's hello is for the {seat} seat, which is this player's"),
        ));
    }
    Ok(())
}

/// A named loser in words, for an alert's detail.
fn loser_words(loser: Option<Seat>) -> String {
    match loser {
        Some(seat) => format!("the {seat}"),
        None => "no single player".into(),
    }
}
