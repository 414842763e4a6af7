//! Data whose proof was checked.
//!
//! `Verified<T>` can only be made inside this crate, by the functions that check a proof (and
//! for a player's own output, `made_here`); it has no `Deserialize`, `Default` or public
//! constructor. The engine applies only `Verified` data, so a skipped check does not compile.

use std::ops::Deref;

/// Data whose proof was checked (or that this player made itself): the only form the engine applies.
#[derive(Clone, Debug, PartialEq, Eq)]
#[must_use = "verified data is there to be applied"]
pub struct Verified<T>(T);

impl<T> Verified<T> {
    /// Only verifiers call this.
    pub(crate) fn assert_checked(value: T) -> Self {
        Verified(value)
    }

    /// What this player computed itself with its own secret key: correct by construction, so
    /// it goes the same way as the opponent's checked data.
    pub(crate) fn made_here(value: T) -> Self {
        Verified(value)
    }

    /// The checked data.
    pub fn into_inner(self) -> T {
        self.0
    }
}

impl<T> Deref for Verified<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}
