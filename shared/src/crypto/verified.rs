//! Data whose proof was checked.
//!
//! `Verified<T>` can only be made inside the `crypto` module: by the functions that check a proof, and by
//! those that compute a player's own output with its own key (which is correct by construction, and comes out
//! already `Verified`). It has no `Deserialize`, `Default` or public constructor. The engine applies only
//! `Verified` data, so a skipped check does not compile.

use std::ops::Deref;

/// Data whose proof was checked (or that this player made itself): the only form the engine applies.
#[derive(Clone, Debug, PartialEq, Eq)]
#[must_use = "verified data is there to be applied"]
pub struct Verified<T>(T);

impl<T> Verified<T> {
    /// Only verifiers call this.
    pub(super) fn assert_checked(value: T) -> Self {
        Verified(value)
    }

    /// What this player computed itself with its own secret key: correct by construction, so
    /// it goes the same way as the opponent's checked data. Only the functions that compute it call this.
    pub(super) fn made_here(value: T) -> Self {
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
