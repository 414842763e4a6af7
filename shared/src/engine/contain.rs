//! A panic inside the engine, held where it happened: the game stops with an alert naming the input, the program
//! goes on and its save with it. A fault of this program proves nothing against anyone, so the alert accuses
//! nobody (`AlertKind::Internal`). Replaying the same journal meets the same panic and stops the same way, so a
//! resume cannot loop on it.

use std::any::Any;
use std::panic::{self, AssertUnwindSafe};

use super::Engine;
use super::api::{AlertKind, IntentError};
use super::fault::Fault;
use crate::crypto::Group;
use crate::wire;

/// Runs `work` on `state`; a panic in it comes back as its words. The fuzz targets must see a panic as the crash
/// it is, so there it goes through.
pub(super) fn hold<S, T>(state: &mut S, work: impl FnOnce(&mut S) -> T) -> Result<T, String> {
    if cfg!(fuzzing) {
        return Ok(work(state));
    }
    panic::catch_unwind(AssertUnwindSafe(|| work(state))).map_err(|payload| panic_words(payload.as_ref()).to_string())
}

impl<G: Group> Engine<G> {
    /// Runs `work` on this engine; a panic in it stops the game with an alert about `input()`.
    pub(super) fn contained<T>(
        &mut self,
        work: impl FnOnce(&mut Self) -> T,
        input: impl FnOnce() -> String,
    ) -> Result<T, IntentError> {
        hold(self, work).map_err(|words| {
            self.fail(&input(), &words);
            IntentError::Halted(self.halted.clone().unwrap_or_default())
        })
    }

    /// Stops the game on this program's own fault: the state the panic left may be half changed, so nothing more
    /// is taken in.
    pub(super) fn fail(&mut self, input: &str, words: &str) {
        self.raise(Fault::new(AlertKind::Internal, format!("this program failed on {input}: {words}")), None);
    }
}

/// The message in `bytes`, named by its number and kind as far as they can be read.
pub(super) fn message_words<G: Group>(bytes: &[u8]) -> String {
    let Ok(envelope) = wire::decode_envelope(bytes) else { return "an unreadable message".into() };
    match wire::decode_body::<G>(&envelope.body) {
        Ok(message) => format!("message {} ({})", envelope.seq, message.kind()),
        Err(_) => format!("message {}", envelope.seq),
    }
}

fn panic_words(payload: &(dyn Any + Send)) -> &str {
    match (payload.downcast_ref::<&str>(), payload.downcast_ref::<String>()) {
        (Some(words), _) => words,
        (None, Some(words)) => words,
        (None, None) => "a panic",
    }
}
