//! What every handler and connection of the relay shares: the rooms, the limits and limiters, the metrics and
//! the statistics store. Built once by `server.rs`; read by `accept.rs`, `web.rs` and `session.rs`.

use std::sync::Arc;

use tokio::sync::watch;

use crate::admission::{Admission, Slots};
use crate::cluster::Cluster;
use crate::config::Limits;
use crate::metrics::Metrics;
use crate::outbox::Queues;
use crate::ratelimit::RateLimiter;
use crate::rooms::Rooms;
use crate::stats::StatsStore;

/// What every handler and connection shares.
#[derive(Debug)]
pub(crate) struct AppState {
    pub(crate) rooms: Arc<Rooms>,
    /// The cluster this instance shares its rooms with (`--redis-url`), if any.
    pub(crate) cluster: Option<Arc<Cluster>>,
    pub(crate) metrics: Arc<Metrics>,
    pub(crate) limits: Limits,
    pub(crate) room_limiter: RateLimiter,
    pub(crate) join_limiter: RateLimiter,
    pub(crate) resume_limiter: RateLimiter,
    /// Open WebSocket connections, under `max_connections`.
    pub(crate) connections: Arc<Slots>,
    pub(crate) admission: Arc<Admission>,
    pub(crate) queues: Queues,
    pub(crate) shutdown: watch::Receiver<bool>,
    pub(crate) stats: StatsStore,
    pub(crate) operator_token: Option<String>,
    pub(crate) trust_forwarded_for: bool,
}
