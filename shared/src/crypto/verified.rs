//! Data whose proof was checked.
//!
//! `Verified<T>` can only be made inside this crate, by the functions that check a proof;
//! it has no `Deserialize`, `Default` or public constructor. The table acts only on
//! `Verified` data, so a skipped check does not compile.

use std::ops::Deref;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verified<T>(T);

impl<T> Verified<T> {
    /// Only verifiers call this.
    pub(crate) fn assert_checked(value: T) -> Self {
        Verified(value)
    }

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
