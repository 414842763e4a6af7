//! What goes wrong: faults raised on the opponent's messages, and refused actions.

use super::Engine;
use super::api::{Alert, AlertKind, Event};
use crate::crypto::Group;
use crate::wire::{Action, Envelope, MAX_TEXT_LEN, WireError};

/// A failed check of an action: forbidden whatever the timing, or merely out of date.
pub(super) struct ActionError {
    pub(super) forbidden: bool,
    pub(super) reason: String,
}

impl ActionError {
    pub(super) fn forbidden(reason: impl Into<String>) -> Self {
        ActionError { forbidden: true, reason: reason.into() }
    }
    pub(super) fn stale(reason: impl Into<String>) -> Self {
        ActionError { forbidden: false, reason: reason.into() }
    }
}

/// An alert raised while handling a message, before it is given its evidence.
pub(super) struct Fault {
    pub(super) kind: AlertKind,
    pub(super) detail: String,
}

impl Fault {
    pub(super) fn new(kind: AlertKind, detail: impl Into<String>) -> Self {
        Fault { kind, detail: detail.into() }
    }
}

impl From<WireError> for Fault {
    fn from(error: WireError) -> Self {
        let kind = match error {
            // A weak key's signatures prove nothing: like a bad signature, no verdict can rest on it.
            WireError::Sequence { .. }
            | WireError::Chain
            | WireError::Signature
            | WireError::WeakKey
            | WireError::Ack { .. } => AlertKind::Sequence,
            _ => AlertKind::Malformed,
        };
        Fault::new(kind, error.to_string())
    }
}

pub(super) fn forbidden_kind(action: &Action) -> AlertKind {
    match action {
        Action::Shuffle { .. } => AlertKind::Stacking,
        _ => AlertKind::Forbidden,
    }
}

pub(super) fn check_text(what: &str, text: &str) -> Result<(), Fault> {
    if text.len() > MAX_TEXT_LEN {
        return Err(Fault::new(AlertKind::Malformed, format!("{what} longer than {MAX_TEXT_LEN} bytes")));
    }
    Ok(())
}

impl<G: Group> Engine<G> {
    pub(super) fn raise(&mut self, fault: Fault, evidence: Option<Envelope>) {
        // A spectator has no cards of its own to be moved or looked at: those are the players' news, in the log.
        if self.observing && !fault.kind.is_misbehaviour() {
            return;
        }
        if fault.kind.is_misbehaviour() {
            self.halted = Some(format!("{}: {}", fault.kind, fault.detail));
        }
        self.out.emit(Event::Alert(Alert { kind: fault.kind, detail: fault.detail, evidence }));
    }
}
