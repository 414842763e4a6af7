//! What the load and latency tools share: the operating system's figures for a process, percentiles, WebSocket
//! connections, a cluster of relay instances on loopback and the soak's protocol-level players.

pub mod cluster;
pub mod player;
pub mod system;
pub mod ws;

use std::time::Duration;

/// The value at quantile `p` (0 to 1) of `sorted` (ascending): the nearest sample, zero when there is none.
pub fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}
