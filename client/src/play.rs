//! What a front end runs: a game against another player over a relay ([`Options`], through [`session::run`]), or
//! a practice game against the built-in opponent ([`crate::practice::Practice`]). The terminal table and scripted
//! mode take either, so a practice game looks and reads exactly like a real one.

use std::future::Future;

use crate::session::{self, Frontend, Options, SessionError};

/// A game a front end can run to its end.
pub trait Play {
    /// The relay the game uses, shown while connecting (a resumed game may not know it yet).
    fn relay(&self) -> Option<&str>;

    /// Runs the game with `front` as the player's side: `Ok` after `quit` (or the end of input), else the fatal
    /// error.
    fn play<F: Frontend>(self, front: &mut F) -> impl Future<Output = Result<(), SessionError>>;
}

impl Play for Options {
    fn relay(&self) -> Option<&str> {
        self.relay.as_deref()
    }

    fn play<F: Frontend>(self, front: &mut F) -> impl Future<Output = Result<(), SessionError>> {
        session::run(self, front)
    }
}
