//! The local player's intents, turned into messages.

use super::Engine;
use super::api::{Event, GameEnd, Intent, IntentError};
use super::phase::PhaseError;
use super::setup::check_deck;
use crate::crypto::{Group, random_permutation};
use crate::ids::Seat;
use crate::table::ZoneId;
use crate::wire::{Action, Awaited, KeyRef, MAX_TEXT_LEN, Message, TableDigest};

impl<G: Group> Engine<G> {
    /// An intent of the player's, or one the engine takes on its behalf (`take_follow_up`), which
    /// a replay takes again by itself. An action moves the game on: `handle` then drives it (`drive`).
    pub(super) fn take_intent(&mut self, intent: Intent) -> Result<(), IntentError> {
        if let Some(reason) = &self.halted {
            return Err(IntentError::Halted(reason.clone()));
        }
        if self.game.phase.is_ended() && !matches!(intent, Intent::Chat(_) | Intent::Ping | Intent::NewGame(_)) {
            return Err(IntentError::Invalid("this player has ended the game".into()));
        }
        match intent {
            Intent::ClaimForfeit | Intent::ClaimAbandoned => {
                let awaited = match intent {
                    Intent::ClaimAbandoned => Awaited::Return,
                    _ => self
                        .awaiting_opponent()
                        .ok_or_else(|| IntentError::Invalid("nothing waits on the opponent".into()))?,
                };
                let claim = self.out.send::<G>(&Message::ForfeitClaim { awaited: awaited.clone() }).seq;
                self.game.phase.ended_here();
                self.out.emit(Event::ForfeitClaimed { by: self.seat, awaited });
                self.record_loss(self.seat.opponent(), GameEnd::Forfeited, Some(claim));
            }
            Intent::EndGame => {
                self.require_ready()?;
                let key = &self.game.keys[&KeyRef { holder: self.seat, library: self.seat, epoch: 0 }];
                let deck_key = key.lock_scalar().clone();
                let audit = self.out.send::<G>(&Message::Audit { deck_key }).seq;
                self.game.phase.ended_here();
                self.game.own_audit = Some(audit);
            }
            Intent::NewGame(deck) => {
                if self.game.phase.game_id().is_none() {
                    return Err(IntentError::NotReady);
                }
                if self.phase.is_new_game_asked() {
                    return Err(IntentError::Invalid(PhaseError::AlreadyAsked.to_string()));
                }
                match deck {
                    Some(deck) if self.limited.is_some() => self.choose_pool_deck(deck)?,
                    Some(deck) => {
                        check_deck::<G>(&deck).map_err(|e| IntentError::Invalid(e.to_string()))?;
                        self.deck = deck;
                    }
                    None => {}
                }
                let request = self.out.next_seq();
                let loser = self.loser_as_seen();
                self.phase.new_game_asked(loser, request).map_err(|e| IntentError::Invalid(e.to_string()))?;
                self.out.send::<G>(&Message::NewGame { loser });
                self.start_new_game_if_agreed();
            }
            Intent::AskUndo => self.ask_undo()?,
            Intent::AnswerUndo(accept) => self.answer_undo(accept)?,
            Intent::Build(_) | Intent::Pick(_) | Intent::Pile(_) | Intent::TakeCard(_) => {
                self.take_limited_intent(intent)?
            }
            Intent::Chat(text) => {
                if text.len() > MAX_TEXT_LEN {
                    return Err(IntentError::Invalid(format!("chat lines are at most {MAX_TEXT_LEN} bytes")));
                }
                self.out.send::<G>(&Message::Chat { text });
            }
            Intent::Ping => {
                self.out.send::<G>(&Message::Ping);
            }
            Intent::RequestReveal { zone, count } => {
                self.require_ready()?;
                self.out.send::<G>(&Message::RevealRequest { zone, count });
            }
            Intent::RefuseReveal { zone } => {
                self.out.send::<G>(&Message::RevealRefuse { zone });
            }
            Intent::Act(action) => {
                self.require_ready()?;
                let action = self.complete_action(action);
                let checked = self.check_action(self.seat, &action).map_err(|e| IntentError::Invalid(e.reason))?;
                match self.seat {
                    Seat::HOST => {
                        let digest = (action == Action::NextTurn).then(|| TableDigest(self.game.table.digest()));
                        self.out.send::<G>(&Message::Act {
                            action: action.clone(),
                            seen: self.game.actions_applied,
                            digest,
                        });
                        self.apply(checked);
                    }
                    Seat::GUEST => {
                        let seq = self.out.next_seq();
                        self.out.send::<G>(&Message::Act {
                            action: action.clone(),
                            seen: self.game.actions_applied,
                            digest: None,
                        });
                        self.game.proposals.insert(seq, action);
                    }
                }
            }
        }
        Ok(())
    }

    /// Queues an action this engine takes on its player's behalf (the draw after a mulligan's shuffle), for
    /// `drive` to take as soon as the step that set it off is done.
    pub(super) fn follow_up(&mut self, action: Action) {
        // A spectator takes no action: the player's own follow-up comes in its stream.
        if !self.observing {
            self.follow_ups.push_back(action);
        }
    }

    /// A queued follow-up goes the way of any intent; if it no longer fits, the player is told.
    fn take_follow_up(&mut self, action: Action) {
        if let Err(error) = self.take_intent(Intent::Act(action.clone())) {
            self.out.emit(Event::Rejected { action, reason: error.to_string() });
        }
    }

    /// Moves the game on as far as this player can: takes the queued follow-ups, in order, and sends whatever
    /// part of a shuffle run it is now this engine's turn to send, until neither is left. Each part is chosen
    /// afresh: a step completes at once and may set off more (a mulligan's draw), which may start more parts.
    /// Nothing here calls back into it: what a step sets off waits in the queue.
    pub(super) fn drive(&mut self) {
        loop {
            while let Some(action) = self.follow_ups.pop_front() {
                self.take_follow_up(action);
            }
            if self.halted.is_some() {
                return;
            }
            match self.next_own_shuffle_part() {
                Some((library, true)) => self.send_relock(library),
                Some((library, false)) => self.send_shuffle_step(library),
                None => return,
            }
        }
    }

    pub(super) fn require_ready(&self) -> Result<(), IntentError> {
        if self.game.phase.is_ready() { Ok(()) } else { Err(IntentError::NotReady) }
    }

    /// Fills in what the player leaves to the engine: a clean library's permutation.
    pub(super) fn complete_action(&mut self, action: Action) -> Action {
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
}
