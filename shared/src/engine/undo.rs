//! Undo by consent. A player asks to undo its last action (`undo-ask`); the opponent accepts with an `undo` action
//! of its own, which takes its place in the game's order like any other, or refuses (`undo-refuse`).
//!
//! What can be undone is decided on the table as it was just before the action, the same on both tables: an action
//! that moved no hidden card and drew on no chance (taps, counters, attachments, life and other numbers, the phase,
//! moves of cards both players know between zones other than libraries and sideboards). Its undo puts back exactly
//! what it changed, so both tables stay equal. A draw, a shuffle, a peek, a reveal, a die, the turn: not undoable,
//! since what was seen cannot be unseen and a chance taken again is a chance chosen.
//!
//! Only the last action applied can be undone: one after it may rest on it. A request that another action overtakes
//! lapses on both tables as that action applies (`Event::UndoLapsed`); one that arrives after such an action is
//! ignored, since its asker learns of the lapse from the same action.

use super::Engine;
use super::api::{AlertKind, Event, IntentError, Moved, NotUndoable, Place};
use super::fault::{ActionError, Fault};
use crate::crypto::Group;
use crate::ids::Seat;
use crate::table::{Card, CardId, Position, ZoneId, ZoneKind};
use crate::wire::{Action, Message};

/// The last action applied in this game, and how to put the table back as it was before it.
#[derive(Clone, Debug)]
pub(super) struct LastAction {
    pub(super) number: u64,
    pub(super) actor: Seat,
    pub(super) action: Action,
    pub(super) restore: Result<Vec<Restore>, NotUndoable>,
}

/// One thing an undo puts back.
#[derive(Clone, Debug)]
pub(super) enum Restore {
    /// A card as it was: zone, index in it, placement, tap, counters, attachment; and the cards attached to it then
    /// (a card leaving play loses them).
    Card { card: Card, index: u32, attached: Vec<CardId> },
    /// A player's number as it was (`None`: it had none of that name).
    PlayerValue { seat: Seat, key: String, value: Option<i64> },
    /// The phase as it was.
    Phase(String),
}

impl<G: Group> Engine<G> {
    /// Whether this player can ask to undo its last action, and that action's number if so.
    pub fn undoable(&self) -> Result<u64, NotUndoable> {
        let last = self.game.last.as_ref().ok_or(NotUndoable::NoAction)?;
        if last.actor != self.seat {
            return Err(NotUndoable::NotYours);
        }
        last.restore.as_ref().map(|_| last.number).map_err(|reason| *reason)
    }

    /// The number of the last action, when its player has asked to undo it and no answer has come: the opponent's
    /// (this player answers with `Intent::AnswerUndo`) or this player's own.
    pub fn undo_asked(&self) -> Option<(Seat, u64)> {
        let last = self.game.last.as_ref()?;
        self.game.undo_asked.filter(|&number| number == last.number).map(|number| (last.actor, number))
    }

    /// What undoing `action`, which `actor` is about to take, would have to put back: read on the table as it is
    /// before the action, so both engines find the same.
    pub(super) fn restore_for(&self, actor: Seat, action: &Action) -> Result<Vec<Restore>, NotUndoable> {
        let table = &self.game.table;
        match action {
            Action::Tap { card, .. }
            | Action::SetCardValue { card, .. }
            | Action::Attach { card, .. }
            | Action::Rearrange { card, .. } => {
                if self.game.table.card(*card).is_some_and(|c| hidden_zone(c.zone)) {
                    return Err(NotUndoable::HiddenCards);
                }
                Ok(self.restore_card(*card).into_iter().collect())
            }
            // A card played from a hand is seen by then: putting it back hides nothing new and shows nothing.
            Action::Move { card, to, placement, .. } => {
                let open = table.card(*card).is_some_and(|c| !hidden_zone(c.zone) && !Place::of(c).face_down);
                if !open || hidden_zone(*to) || (to.kind == ZoneKind::Play && placement.face_down) {
                    return Err(NotUndoable::HiddenCards);
                }
                Ok(self.restore_card(*card).into_iter().collect())
            }
            Action::UntapAll => {
                let play = table.zone(ZoneId::new(actor, ZoneKind::Play));
                let tapped = play.iter().filter(|id| table.card(**id).is_some_and(|c| c.tapped));
                Ok(tapped.filter_map(|id| self.restore_card(*id)).collect())
            }
            Action::SetPlayerValue { key, .. } => Ok(vec![Restore::PlayerValue {
                seat: actor,
                key: key.clone(),
                value: table.player(actor).values.get(key).copied(),
            }]),
            Action::SetPhase { .. } => Ok(vec![Restore::Phase(table.phase.clone())]),
            Action::Draw { .. }
            | Action::Peek { .. }
            | Action::TakeFromLibrary { .. }
            | Action::Reveal { .. }
            | Action::ShowRandom
            | Action::Shuffle { .. }
            | Action::Mulligan { .. } => Err(NotUndoable::HiddenCards),
            Action::Roll { .. } | Action::Flip => Err(NotUndoable::Chance),
            Action::NextTurn | Action::PlayOrDraw { .. } | Action::Concede => Err(NotUndoable::Turn),
            Action::AddCard { .. } => Err(NotUndoable::Token),
            Action::Arrow { .. } => Err(NotUndoable::NothingKept),
            Action::Undo { .. } => Err(NotUndoable::Undo),
        }
    }

    /// A card as it is now, with its index and the cards attached to it: none for a card the table lacks, which
    /// the action's own check refuses.
    fn restore_card(&self, id: CardId) -> Option<Restore> {
        let table = &self.game.table;
        let card = table.card(id).cloned()?;
        let index = table.zone(card.zone).iter().position(|&c| c == id).unwrap_or_default() as u32;
        let attached = table.cards().filter(|c| c.attached_to == Some(id)).map(|c| c.id).collect();
        Some(Restore::Card { card, index, attached })
    }

    /// Whether `actor` may undo action number `number` now: the opponent's last action, which it asked to undo.
    pub(super) fn check_undo(&self, actor: Seat, number: u64) -> Result<(), ActionError> {
        let last = self
            .game
            .last
            .as_ref()
            .filter(|last| last.number == number)
            .ok_or_else(|| ActionError::stale(format!("action {number} is not the last one any more")))?;
        if last.actor != actor.opponent() {
            return Err(ActionError::forbidden("a player undoes only the other's action, at its asking"));
        }
        if self.game.undo_asked != Some(number) {
            return Err(ActionError::forbidden(format!("nobody asked to undo action {number}")));
        }
        last.restore.as_ref().map(|_| ()).map_err(|reason| ActionError::forbidden(reason.to_string()))
    }

    /// Applies a checked undo: puts back what the last action changed, and says which cards went back where.
    pub(super) fn apply_undo(&mut self) -> Vec<Moved> {
        // `check_undo` found both on this same table.
        let Some(LastAction { number, actor, action, restore: Ok(restore) }) = self.game.last.take() else {
            self.raise(Fault::new(AlertKind::Internal, "an undo applied with nothing to undo"), None);
            return Vec::new();
        };
        self.out.emit(Event::Undone { actor, action: number, undone: action });
        let mut moved = Vec::new();
        for step in restore {
            match step {
                Restore::Card { card, index, attached } => moved.extend(self.put_back(card, index, &attached)),
                Restore::PlayerValue { seat, key, value } => {
                    let values = &mut self.game.table.player_mut(seat).values;
                    match value {
                        Some(value) => values.insert(key, value),
                        None => values.remove(&key),
                    };
                }
                Restore::Phase(phase) => self.game.table.phase = phase,
            }
        }
        moved
    }

    /// Puts a card back as it was, at its index; a card that had left its zone is told as moved. Whoever came to
    /// know it meanwhile still does.
    fn put_back(&mut self, mut card: Card, index: u32, attached: &[CardId]) -> Option<Moved> {
        let table = &mut self.game.table;
        let now = table.card(card.id).map(Place::of)?;
        card.known_to = card.known_to.union(table.card(card.id)?.known_to);
        let back = Place::of(&card);
        let moved_away =
            now != back || table.zone(card.zone).iter().position(|&c| c == card.id) != Some(index as usize);
        if moved_away {
            table.move_card(card.id, card.zone, Position::Index(index), card.placement).ok()?;
        }
        for id in attached {
            if let Ok(other) = table.card_mut(*id) {
                other.attached_to = Some(card.id);
            }
        }
        let (id, zone_changed) = (card.id, now != back);
        *table.card_mut(id).ok()? = card;
        zone_changed.then_some(Moved { card: id, from: Some(now), to: back })
    }

    /// The player asks to undo its last action.
    pub(super) fn ask_undo(&mut self) -> Result<(), IntentError> {
        self.require_ready()?;
        let number = self.undoable().map_err(|reason| IntentError::Invalid(format!("cannot undo: {reason}")))?;
        let undone = self.game.last.as_ref().map(|last| last.action.clone()).ok_or(IntentError::NotReady)?;
        self.out.send::<G>(&Message::UndoAsk { action: number });
        self.game.undo_asked = Some(number);
        self.out.emit(Event::UndoAsked { by: self.seat, action: number, undone });
        Ok(())
    }

    /// The player answers the opponent's request to undo: an `undo` action, or a refusal.
    pub(super) fn answer_undo(&mut self, accept: bool) -> Result<(), IntentError> {
        let number = match self.undo_asked() {
            Some((asker, number)) if asker != self.seat => number,
            _ => return Err(IntentError::Invalid("the opponent has not asked to undo anything".into())),
        };
        if accept {
            return self.take_intent(super::Intent::Act(Action::Undo { action: number }));
        }
        self.out.send::<G>(&Message::UndoRefuse { action: number });
        self.game.undo_asked = None;
        self.out.emit(Event::UndoRefused { by: self.seat, action: number });
        Ok(())
    }

    /// The opponent asks to undo its action `number`. One another action overtook has lapsed already; one that is
    /// the last but not the opponent's, or not undoable, or not taken yet, no honest engine asks about.
    pub(super) fn receive_undo_ask(&mut self, number: u64) -> Result<(), Fault> {
        if self.game.phase.is_ended() {
            // Nothing is undone after the end; this engine sends nothing more of this game.
            return Ok(());
        }
        let peer = self.seat.opponent();
        let last = match &self.game.last {
            Some(last) if last.number == number => last,
            Some(last) if number < last.number => return Ok(()),
            _ => {
                return Err(Fault::new(AlertKind::Unexpected, format!("a request to undo action {number}, not taken")));
            }
        };
        if last.actor != peer || last.restore.is_err() {
            return Err(Fault::new(
                AlertKind::Unexpected,
                format!("a request to undo action {number}, which is not the opponent's to undo"),
            ));
        }
        let undone = last.action.clone();
        self.game.undo_asked = Some(number);
        self.out.emit(Event::UndoAsked { by: peer, action: number, undone });
        Ok(())
    }

    /// The opponent will not undo this player's action `number`. A refusal of a request no longer standing (another
    /// action came first) changes nothing.
    pub(super) fn receive_undo_refuse(&mut self, number: u64) {
        if self.undo_asked() == Some((self.seat, number)) {
            self.game.undo_asked = None;
            self.out.emit(Event::UndoRefused { by: self.seat.opponent(), action: number });
        }
    }

    /// An action is applied: a request to undo the one before it lapses, unless this is its undo.
    pub(super) fn lapse_undo_request(&mut self, action: &Action) {
        if let Some((asker, number)) = self.undo_asked().filter(|_| !matches!(action, Action::Undo { .. })) {
            self.out.emit(Event::UndoLapsed { asker, action: number });
        }
        self.game.undo_asked = None;
    }
}

/// Zones whose cards an undo does not touch: a move out of or into one hides or shows a card, or changes a library
/// a shuffle keeps secret.
fn hidden_zone(zone: ZoneId) -> bool {
    matches!(zone.kind, ZoneKind::Library | ZoneKind::Sideboard)
}
