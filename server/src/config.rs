//! Limits and timings of the relay, each with a safe default.

use std::time::Duration;

use fairdeck_relay_protocol::MAX_MESSAGE_BYTES_CEILING;
use thiserror::Error;

/// Every bound the relay enforces. `Default` gives the production values documented in `docs/RELAY.md`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Largest WebSocket message (and frame) accepted, in bytes.
    pub max_message_bytes: usize,
    /// Per-connection outbound queue, in bytes (each item also counts a fixed overhead). A reader that lets it
    /// overflow is disconnected; a burst of small frames to a reader that keeps up fits.
    pub queue_bytes: usize,
    /// Oldest an item may get in a connection's outbound queue (or stuck writing to its socket) before the reader
    /// is disconnected as too slow.
    pub queue_age: Duration,
    /// New rooms per client address per minute (0 = no limit).
    pub rooms_per_minute: u32,
    /// Joins per client address per minute (0 = no limit).
    pub joins_per_minute: u32,
    /// Failed resumes per client address per minute (0 = no limit). Successful resumes never count.
    pub resumes_per_minute: u32,
    /// How long a room waits for its second player.
    pub waiting_lifetime: Duration,
    /// How long a dropped seat is held for its player to resume.
    pub hold: Duration,
    /// Spectators each player seat of a room may have at once (0: no watching on this relay).
    pub watch_seats: u8,
    /// Interval between pings to each connection.
    pub ping_interval: Duration,
    /// A connection that sends nothing (not even a pong) for `ping_interval + ping_timeout` is dropped.
    pub ping_timeout: Duration,
    /// Time allowed between the WebSocket upgrade and the first control message.
    pub hello_timeout: Duration,
    /// Most rooms open at once.
    pub max_rooms: usize,
    /// Most WebSocket connections at once; more get HTTP 503.
    pub max_connections: usize,
    /// Time allowed to send a request head (from the connection's start): silent and slow ("slowloris")
    /// connections are closed after it.
    pub request_head_timeout: Duration,
    /// Time allowed from accepting a TCP connection to its WebSocket upgrade (or to the end of its one plain HTTP
    /// request).
    pub upgrade_timeout: Duration,
    /// Most connections accepted but not yet upgraded to WebSocket (or done with their HTTP request); more are
    /// closed at once.
    pub max_handshakes: usize,
    /// Most open connections from one address (IPv6: one /64), counted from the TCP accept, handshakes included
    /// (0 = no limit). Behind a trusted proxy, counted on WebSocket connections by the forwarded address.
    pub connections_per_address: usize,
    /// On shutdown, how long connections get to receive `closing` before the process exits.
    pub shutdown_grace: Duration,
    /// The reconnect hint sent on shutdown: clients wait about this long (plus jitter) before resuming.
    pub restart_hint: Duration,
}

/// WebSocket read and write buffer size: small, so that an idle connection costs about 10 KiB.
pub const WS_BUFFER_BYTES: usize = 4096;

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_message_bytes: 64 * 1024,
            queue_bytes: 512 * 1024,
            queue_age: Duration::from_secs(20),
            rooms_per_minute: 10,
            joins_per_minute: 30,
            resumes_per_minute: 10,
            waiting_lifetime: Duration::from_secs(30 * 60),
            hold: Duration::from_secs(5 * 60),
            watch_seats: 8,
            ping_interval: Duration::from_secs(30),
            ping_timeout: Duration::from_secs(30),
            hello_timeout: Duration::from_secs(10),
            max_rooms: 10_000,
            max_connections: 20_000,
            request_head_timeout: Duration::from_secs(10),
            upgrade_timeout: Duration::from_secs(15),
            max_handshakes: 1024,
            connections_per_address: 64,
            shutdown_grace: Duration::from_secs(5),
            restart_hint: Duration::from_secs(2),
        }
    }
}

/// A limit that cannot work.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum LimitsError {
    #[error("{name} must be at least {min}")]
    TooSmall { name: &'static str, min: u64 },
    #[error("{name} must be at most {max}")]
    TooLarge { name: &'static str, max: u64 },
}

impl Limits {
    /// Checks that the limits can work together.
    pub fn validate(&self) -> Result<(), LimitsError> {
        let at_least = |name, value: u64, min: u64| {
            if value < min { Err(LimitsError::TooSmall { name, min }) } else { Ok(()) }
        };
        at_least("max_message_bytes", self.max_message_bytes as u64, 1024)?;
        if self.max_message_bytes > MAX_MESSAGE_BYTES_CEILING {
            return Err(LimitsError::TooLarge { name: "max_message_bytes", max: MAX_MESSAGE_BYTES_CEILING as u64 });
        }
        // The queue must hold at least one largest message, or every large frame would cut the reader off.
        at_least("queue_bytes", self.queue_bytes as u64, self.max_message_bytes as u64)?;
        at_least("max_handshakes", self.max_handshakes as u64, 1)?;
        at_least("max_rooms", self.max_rooms as u64, 1)?;
        at_least("max_connections", self.max_connections as u64, 2)?;
        for (name, value) in [
            ("waiting_lifetime", self.waiting_lifetime),
            ("hold", self.hold),
            ("ping_interval", self.ping_interval),
            ("ping_timeout", self.ping_timeout),
            ("hello_timeout", self.hello_timeout),
            ("queue_age", self.queue_age),
            ("request_head_timeout", self.request_head_timeout),
            ("upgrade_timeout", self.upgrade_timeout),
        ] {
            at_least(name, value.as_millis() as u64, 1)?;
        }
        Ok(())
    }
}

/// Parses a duration such as `250ms`, `30s`, `5m`, `2h`; a bare number means seconds.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let split = text.find(|c: char| !c.is_ascii_digit()).unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let value: u64 = number.parse().map_err(|_| format!("`{text}` is not a duration such as 30s, 5m or 250ms"))?;
    let millis = match unit.trim() {
        "ms" => Some(value),
        "" | "s" => value.checked_mul(1000),
        "m" | "min" => value.checked_mul(60_000),
        "h" => value.checked_mul(3_600_000),
        other => return Err(format!("unknown unit `{other}` in `{text}` (use ms, s, m or h)")),
    };
    millis.map(Duration::from_millis).ok_or_else(|| format!("`{text}` is too long"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid() {
        assert_eq!(Limits::default().validate(), Ok(()));
    }

    #[test]
    fn a_queue_smaller_than_one_message_is_refused() {
        let limits = Limits { queue_bytes: 1000, ..Limits::default() };
        assert!(matches!(limits.validate(), Err(LimitsError::TooSmall { name: "queue_bytes", .. })));
    }

    #[test]
    fn durations_parse_with_units() {
        assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_duration("30"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration("5m"), Ok(Duration::from_secs(300)));
        assert_eq!(parse_duration("2h"), Ok(Duration::from_secs(7200)));
        assert!(parse_duration("5 parsecs").is_err());
        assert!(parse_duration("").is_err());
        assert!(parse_duration("99999999999999999999h").is_err());
    }
}
