//! fairdeck's peer-side engine: the mental-poker cryptography (`crypto`), the public table
//! (`table`), the wire protocol between two engines (`wire`, encoded by `codec`), the state
//! machine of one player (`engine`), and the signed journal a game can be checked from
//! (`journal`). docs/ARCHITECTURE.md maps every module.
//!
//! Architecture invariant: this crate does no I/O. It owns no socket, clock, task or
//! operating-system randomness; callers pass in a seed, the player's intents and the bytes
//! received, so the same code is driven by the client, the tests, the benchmarks, the fuzz
//! targets and a journal's replay.

#![warn(missing_docs)]

pub mod codec;
pub mod crypto;
pub mod engine;
pub mod hash_rng;
pub mod ids;
pub mod journal;
pub use engine::observer;
#[cfg(feature = "testing")]
pub mod pair;
pub mod pool;
pub mod seats;
pub mod serde_hex;
pub mod table;
pub mod wire;

pub use ids::{GameId, Seat};
pub use seats::{SeatMap, Seats};
