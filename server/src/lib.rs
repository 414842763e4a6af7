//! fairdeck's relay: pairs two players by a short numeric nameplate and forwards their end-to-end encrypted
//! frames without reading them.
//!
//! Architecture invariants: the relay knows nothing of the game (it does not depend on the engine), stores no
//! frames, and keeps no IP address anywhere but in memory for rate limits. The protocol is documented in
//! `docs/RELAY.md`; operations in `docs/OPERATIONS.md`.
//!
//! Starting a relay in-process (as the tests do):
//!
//! ```no_run
//! # async fn example() -> Result<(), fairdeck_relay::RelayError> {
//! let data_dir = tempfile::tempdir().expect("temporary directory");
//! let mut relay = fairdeck_relay::Relay::builder("127.0.0.1:0".parse().unwrap(), data_dir.path()).build().await?;
//! let addr = relay.bind().await?; // ws://{addr}/v1
//! let shutdown = relay.shutdown_handle();
//! let served = tokio::spawn(relay.serve());
//! // ... connect clients ...
//! shutdown.shutdown();
//! served.await.expect("relay task")?;
//! # Ok(()) }
//! ```

mod accept;
mod admission;
mod cluster;
pub mod config;
pub mod descriptors;
mod handover;
mod metrics;
mod outbox;
mod process;
pub mod ratelimit;
mod refusals;
mod rooms;
mod server;
mod session;
mod state;
pub mod stats;
mod statspage;
mod tally;
mod web;

/// The wire protocol, in its own crate so that clients can use it without the relay's dependencies.
pub use fairdeck_relay_protocol as protocol;

pub use config::{Limits, parse_duration};
pub use handover::HandoverError;
pub use metrics::note_process_start;
pub use rooms::{RoomError, RoomListing};
pub use server::{Relay, RelayBuilder, RelayError, ShutdownHandle};
pub use stats::{RoomRecord, StatsError, StatsStore, Summary};
pub use tally::{LiveCounts, RoomResult};
