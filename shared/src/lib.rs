//! fairdeck's peer-side engine: mental-poker cryptography, and (to come) the table state,
//! the wire protocol and the signed game record.
//!
//! Architecture invariant: this crate does no I/O. It owns no socket, clock, task or
//! operating-system randomness; callers pass in time and seeded RNGs, so the same code is
//! driven by the client, the tests and the benchmarks.

pub mod codec;
pub mod crypto;
pub mod engine;
pub mod hash_rng;
pub mod ids;
pub mod journal;
#[cfg(feature = "testing")]
pub mod pair;
pub mod serde_hex;
pub mod table;
pub mod wire;

pub use ids::{GameId, Seat};
