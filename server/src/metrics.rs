//! Prometheus metrics of one relay instance, and the rate-limited log lines of refused and cut connections.
//!
//! Each relay owns its recorder (no global one), so several relays in one test process keep separate counts.
//! Counters and the histogram are updated on the hot path through pre-registered handles (an atomic add);
//! gauges are set from the live state when `/metrics` is scraped, so they cannot drift. The `process_*` metrics
//! are read from `/proc/self` at each scrape (see `process`), except that `process_start_time_seconds` falls back
//! on the wall-clock time noted when the process started: systemd's `ProcSubset=pid` (in the shipped unit) hides
//! `/proc/stat`, whose boot time the `/proc/self/stat` start is relative to.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant, SystemTime};

use metrics::{Counter, Gauge, Histogram, Key, KeyName, Label, Level, Metadata, Recorder, SharedString};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle, PrometheusRecorder};

use crate::process;
use crate::protocol::ErrorCode;
use crate::tally::{LiveCounts, RoomResult};

const LATENCY: &str = "fairdeck_relay_forward_latency_seconds";
const LATENCY_BUCKETS: [f64; 14] =
    [0.000_05, 0.000_1, 0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0];

/// When the process started, in seconds since the Unix epoch: noted by [`note_process_start`] first thing in
/// `main`, else when the first relay is built.
static PROCESS_START: OnceLock<f64> = OnceLock::new();

/// Notes now as the process's start (only the first call counts).
pub fn note_process_start() {
    PROCESS_START.get_or_init(|| {
        SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map_or(0.0, |since| since.as_secs_f64())
    });
}

/// At most one log line per kind of refusal in this interval; the next line says how many were left out.
const LOG_EVERY: Duration = Duration::from_secs(10);

/// Why a connection was refused or closed before it became a WebSocket (the `reason` label of
/// `fairdeck_relay_connections_refused_total`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Its address is on the operator's refusal list (`--refuse`).
    Listed,
    /// Its address (IPv6: its /64) already had `connections_per_address` connections open.
    AddressLimit,
    /// `max_handshakes` connections were in their handshake: the oldest was closed for a newer one (or, when all
    /// were already told to close, the newcomer).
    HandshakeLimit,
    /// No complete request head within `request_head_timeout` (silent or slowloris).
    HeadTimeout,
    /// Not upgraded (or done with its request) within `upgrade_timeout`.
    UpgradeTimeout,
    /// The listening socket could not accept (usually the open-file limit).
    AcceptError,
}

impl Refusal {
    pub const ALL: [Refusal; 6] = [
        Refusal::Listed,
        Refusal::AddressLimit,
        Refusal::HandshakeLimit,
        Refusal::HeadTimeout,
        Refusal::UpgradeTimeout,
        Refusal::AcceptError,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Refusal::Listed => "refusal_list",
            Refusal::AddressLimit => "address_limit",
            Refusal::HandshakeLimit => "handshake_limit",
            Refusal::HeadTimeout => "head_timeout",
            Refusal::UpgradeTimeout => "upgrade_timeout",
            Refusal::AcceptError => "accept_error",
        }
    }
}

/// Why a slow reader was cut off (the `reason` label of `fairdeck_relay_slow_readers_total`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlowReason {
    /// Its queue went over `queue_bytes`.
    Bytes,
    /// Its oldest queued item got older than `queue_age`.
    Age,
}

impl SlowReason {
    pub fn as_str(self) -> &'static str {
        match self {
            SlowReason::Bytes => "bytes",
            SlowReason::Age => "age",
        }
    }
}

/// Gauges taken from the live state at each scrape.
#[derive(Debug, Clone, Copy, Default)]
pub struct Live {
    pub rooms: LiveCounts,
    /// WebSocket connections.
    pub connections: usize,
    /// Connections accepted and not yet upgraded.
    pub handshakes: usize,
    /// Addresses (IPv6: /64s) with open connections.
    pub addresses: usize,
    /// Bytes waiting in every connection's outbound queue.
    pub queued_bytes: usize,
}

/// The relay's metric handles.
pub struct Metrics {
    handle: PrometheusHandle,
    /// Binary frames forwarded to a peer.
    pub frames: Counter,
    /// Bytes of binary frames forwarded to a peer.
    pub bytes: Counter,
    /// Binary frames dropped because the peer was away or not there yet.
    pub frames_dropped: Counter,
    /// Time from reading a frame to having written it to the peer's socket.
    pub forward_latency: Histogram,
    /// WebSocket connections accepted.
    pub connections_accepted: Counter,
    /// Room records lost: the queue to the database was full, or the relay stopped before it could write them.
    pub stats_dropped: Counter,
    /// Room record writes that failed (each is retried).
    pub stats_write_errors: Counter,
    /// Rooms reopened by their creator after a failed key exchange.
    pub reopens: Counter,
    /// Spectators seated (`watch` answered `watching`).
    pub watch_joins: Counter,
    /// Room records waiting to be written.
    pub stats_queued: AtomicUsize,
    pub cluster: ClusterMetrics,
    rejections: Vec<(ErrorCode, Counter)>,
    refusals: Vec<(Refusal, Counter)>,
    slow_readers: [Counter; 2],
    rooms_ended: Vec<(RoomResult, Counter)>,
    rooms_open: Gauge,
    rooms_waiting: Gauge,
    seats_connected: Gauge,
    seats_held: Gauge,
    watchers: Gauge,
    connections: Gauge,
    handshakes: Gauge,
    addresses: Gauge,
    queued_bytes_gauge: Gauge,
    stats_queued_gauge: Gauge,
    log: LogLimiter,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics").finish_non_exhaustive()
    }
}

/// What the instances of a cluster do together (all 0 without one).
pub struct ClusterMetrics {
    /// 1 while this instance reaches the Redis its cluster shares, else 0 (also without a cluster).
    pub redis_up: Gauge,
    /// Connections forwarded to the instance that holds their room.
    pub links: Counter,
    /// Connections told to come back because the instance holding their room could not be reached.
    pub link_failures: Counter,
    /// Connections told to come back because Redis could not say where their room is.
    pub unlocated: Counter,
    /// Rooms taken over from an instance that stopped or died.
    pub adoptions: Counter,
    /// The other instances this one last read from Redis: those it asks for a room while Redis is down.
    pub peers: Gauge,
}

impl ClusterMetrics {
    fn register(registry: &Registry) -> ClusterMetrics {
        let counter = |name, help| registry.counter(name, help, vec![]);
        ClusterMetrics {
            redis_up: registry.gauge(
                "fairdeck_relay_cluster_redis_up",
                "1 while the Redis shared by the relay's instances answers, else 0 (also when there is none).",
                vec![],
            ),
            links: counter(
                "fairdeck_relay_cluster_links_total",
                "Connections forwarded to the instance that holds their room.",
            ),
            link_failures: counter(
                "fairdeck_relay_cluster_link_failures_total",
                "Connections told to come back: the instance holding their room could not be reached.",
            ),
            unlocated: counter(
                "fairdeck_relay_cluster_unlocated_total",
                "Connections told to come back: Redis could not say where their room is (down, or just restarted).",
            ),
            adoptions: counter(
                "fairdeck_relay_cluster_adoptions_total",
                "Rooms taken over from an instance that stopped or died.",
            ),
            peers: registry.gauge(
                "fairdeck_relay_cluster_peers",
                "Other instances this one last read from Redis: those it asks for a room while Redis is down.",
                vec![],
            ),
        }
    }
}

impl Default for Metrics {
    /// Registers every metric with a fresh recorder.
    fn default() -> Metrics {
        note_process_start();
        let registry = Registry::new();
        let counter = |name, help| registry.counter(name, help, vec![]);
        let gauge = |name, help| registry.gauge(name, help, vec![]);
        let seat_help = "Occupied seats, by state (connected, or held for a resume).";
        let seats = |state| registry.gauge("fairdeck_relay_seats", seat_help, vec![Label::new("state", state)]);
        let slow_help = "Readers cut off as too slow (4007), by what overflowed.";
        let metrics = Metrics {
            handle: registry.recorder.handle(),
            frames: counter("fairdeck_relay_frames_total", "Binary frames forwarded to a peer."),
            bytes: counter("fairdeck_relay_bytes_total", "Bytes of binary frames forwarded to a peer."),
            frames_dropped: counter(
                "fairdeck_relay_frames_dropped_total",
                "Binary frames dropped because the peer was away or not paired yet.",
            ),
            connections_accepted: counter(
                "fairdeck_relay_connections_accepted_total",
                "WebSocket connections accepted.",
            ),
            stats_dropped: counter(
                "fairdeck_relay_stats_dropped_total",
                "Room records lost: the queue to the statistics database was full, or the relay stopped first.",
            ),
            stats_write_errors: counter(
                "fairdeck_relay_stats_write_errors_total",
                "Room record writes that failed; the record is kept and retried.",
            ),
            reopens: counter(
                "fairdeck_relay_reopens_total",
                "Rooms given to a new guest by their creator after a failed key exchange (a wrong code).",
            ),
            watch_joins: counter("fairdeck_relay_watch_joins_total", "Spectators seated in a watch seat."),
            stats_queued: AtomicUsize::new(0),
            cluster: ClusterMetrics::register(&registry),
            rejections: registry.counters(
                "fairdeck_relay_rejections_total",
                "Requests refused or connections cut, by reason.",
                ("reason", &ErrorCode::ALL, ErrorCode::as_str),
            ),
            refusals: registry.counters(
                "fairdeck_relay_connections_refused_total",
                "TCP connections refused or closed before becoming WebSockets, by reason.",
                ("reason", &Refusal::ALL, Refusal::as_str),
            ),
            slow_readers: [SlowReason::Bytes, SlowReason::Age].map(|reason| {
                registry.counter(
                    "fairdeck_relay_slow_readers_total",
                    slow_help,
                    vec![Label::new("reason", reason.as_str())],
                )
            }),
            rooms_ended: registry.counters(
                "fairdeck_relay_rooms_ended_total",
                "Rooms ended, by result.",
                ("result", &RoomResult::ALL, RoomResult::as_str),
            ),
            rooms_open: gauge("fairdeck_relay_rooms_open", "Rooms open (waiting or paired)."),
            rooms_waiting: gauge("fairdeck_relay_rooms_waiting", "Rooms waiting for their second player."),
            seats_connected: seats("connected"),
            seats_held: seats("held"),
            watchers: gauge("fairdeck_relay_watchers", "Spectators connected."),
            connections: gauge("fairdeck_relay_connections", "WebSocket connections open."),
            handshakes: gauge(
                "fairdeck_relay_handshakes",
                "TCP connections accepted and not yet upgraded to WebSocket.",
            ),
            addresses: gauge("fairdeck_relay_addresses", "Client addresses (IPv6: /64s) with open connections."),
            queued_bytes_gauge: gauge(
                "fairdeck_relay_queued_bytes",
                "Bytes waiting in outbound queues, all connections (each item counts 64 bytes more).",
            ),
            stats_queued_gauge: gauge(
                "fairdeck_relay_stats_queued",
                "Room records waiting to be written to the database.",
            ),
            forward_latency: registry.latency(),
            log: LogLimiter::default(),
        };
        let version = vec![Label::new("version", env!("CARGO_PKG_VERSION"))];
        registry.gauge("fairdeck_relay_build_info", "The relay's version, as a label; always 1.", version).set(1.0);
        metrics
    }
}

/// One relay's recorder, with which each metric is described (its help text) as it is registered.
struct Registry {
    recorder: PrometheusRecorder,
    metadata: Metadata<'static>,
}

impl Registry {
    fn new() -> Registry {
        let recorder = PrometheusBuilder::new()
            .set_buckets_for_metric(Matcher::Full(LATENCY.into()), &LATENCY_BUCKETS)
            .map(PrometheusBuilder::build_recorder)
            // The bucket list is a non-empty constant, which is all `set_buckets_for_metric` checks.
            .unwrap_or_else(|_| PrometheusBuilder::new().build_recorder());
        Registry { recorder, metadata: Metadata::new(module_path!(), Level::INFO, Some(module_path!())) }
    }

    fn counter(&self, name: &'static str, help: &'static str, labels: Vec<Label>) -> Counter {
        self.recorder.describe_counter(KeyName::from_const_str(name), None, SharedString::const_str(help));
        self.recorder.register_counter(&Key::from_parts(name, labels), &self.metadata)
    }

    fn gauge(&self, name: &'static str, help: &'static str, labels: Vec<Label>) -> Gauge {
        self.recorder.describe_gauge(KeyName::from_const_str(name), None, SharedString::const_str(help));
        self.recorder.register_gauge(&Key::from_parts(name, labels), &self.metadata)
    }

    /// One counter of `name` for each of `values`, labelled `label` with the value's name.
    fn counters<T: Copy>(
        &self,
        name: &'static str,
        help: &'static str,
        (label, values, value_name): (&'static str, &[T], fn(T) -> &'static str),
    ) -> Vec<(T, Counter)> {
        values
            .iter()
            .map(|&value| (value, self.counter(name, help, vec![Label::new(label, value_name(value))])))
            .collect()
    }

    /// The forwarding latency's histogram, in seconds.
    fn latency(&self) -> Histogram {
        let help = SharedString::const_str("Time from reading a frame to writing it to the peer's socket.");
        self.recorder.describe_histogram(KeyName::from_const_str(LATENCY), Some(metrics::Unit::Seconds), help);
        self.recorder.register_histogram(&Key::from_name(LATENCY), &self.metadata)
    }
}

impl Metrics {
    /// Counts (and logs, rate-limited) a refused request or a connection cut, by its error code.
    pub fn rejected(&self, code: ErrorCode) {
        if let Some((_, counter)) = self.rejections.iter().find(|(c, _)| *c == code) {
            counter.increment(1);
        }
        if let Some(suppressed) = self.log.admit(code.as_str()) {
            tracing::info!(reason = code.as_str(), suppressed, "refused a request or cut a connection");
        }
    }

    /// Counts (and logs, rate-limited) a connection refused or closed before its WebSocket upgrade.
    pub fn refused(&self, refusal: Refusal) {
        if let Some((_, counter)) = self.refusals.iter().find(|(r, _)| *r == refusal) {
            counter.increment(1);
        }
        if let Some(suppressed) = self.log.admit(refusal.as_str()) {
            let what = match refusal {
                Refusal::HeadTimeout | Refusal::UpgradeTimeout => "closed a connection before its upgrade",
                Refusal::Listed | Refusal::AddressLimit | Refusal::HandshakeLimit | Refusal::AcceptError => {
                    "refused a connection"
                }
            };
            tracing::warn!(reason = refusal.as_str(), suppressed, "{what}");
        }
    }

    /// Counts a reader cut off as too slow, by what overflowed (the cut itself is counted by [`Self::rejected`]).
    pub fn slow_reader(&self, reason: SlowReason) {
        self.slow_readers[reason as usize].increment(1);
    }

    /// Counts a room that ended.
    pub fn room_ended(&self, result: RoomResult) {
        if let Some((_, counter)) = self.rooms_ended.iter().find(|(r, _)| *r == result) {
            counter.increment(1);
        }
    }

    /// Moves histogram samples into their buckets; run it periodically so samples do not pile up between scrapes.
    pub fn run_upkeep(&self) {
        self.handle.run_upkeep();
    }

    /// Renders the Prometheus text exposition, with gauges taken from `live` and the `process_*` metrics.
    pub fn render(&self, live: Live) -> String {
        self.rooms_open.set(live.rooms.rooms as f64);
        self.rooms_waiting.set(live.rooms.waiting as f64);
        self.seats_connected.set(live.rooms.seats_connected as f64);
        self.seats_held.set(live.rooms.seats_held as f64);
        self.watchers.set(live.rooms.watchers as f64);
        self.connections.set(live.connections as f64);
        self.handshakes.set(live.handshakes as f64);
        self.addresses.set(live.addresses as f64);
        self.queued_bytes_gauge.set(live.queued_bytes as f64);
        self.stats_queued_gauge.set(self.stats_queued.load(Ordering::Relaxed) as f64);
        let mut text = self.handle.render();
        process::render(&mut text);
        if !text.contains("\nprocess_start_time_seconds ")
            && let Some(start) = PROCESS_START.get()
        {
            text.push_str(&format!(
                "# HELP process_start_time_seconds Start time, in seconds since the Unix epoch.\n\
                 # TYPE process_start_time_seconds gauge\nprocess_start_time_seconds {start}\n\n"
            ));
        }
        text
    }
}

/// Lets one log line per key through every [`LOG_EVERY`], and counts the ones it holds back.
#[derive(Debug, Default)]
struct LogLimiter {
    keys: Mutex<HashMap<&'static str, (Instant, u64)>>,
}

impl LogLimiter {
    /// `Some(lines suppressed since the last one)` if a line for `key` may be logged now.
    fn admit(&self, key: &'static str) -> Option<u64> {
        let now = Instant::now();
        let mut keys = self.keys.lock().unwrap_or_else(PoisonError::into_inner);
        match keys.get_mut(key) {
            Some((last, suppressed)) if now.duration_since(*last) < LOG_EVERY => {
                *suppressed += 1;
                None
            }
            Some((last, suppressed)) => {
                *last = now;
                Some(std::mem::take(suppressed))
            }
            None => {
                keys.insert(key, (now, 0));
                Some(0)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_lines_are_limited_per_reason_and_say_how_many_were_held_back() {
        let limiter = LogLimiter::default();
        assert_eq!(limiter.admit("a"), Some(0));
        assert_eq!(limiter.admit("a"), None);
        assert_eq!(limiter.admit("a"), None);
        assert_eq!(limiter.admit("b"), Some(0), "another reason has its own budget");
        limiter.keys.lock().unwrap().get_mut("a").unwrap().0 -= LOG_EVERY;
        assert_eq!(limiter.admit("a"), Some(2));
    }

    #[test]
    fn the_exposition_has_build_info_and_process_metrics() {
        let text = Metrics::default().render(Live::default());
        let version = env!("CARGO_PKG_VERSION");
        assert!(text.contains(&format!("fairdeck_relay_build_info{{version=\"{version}\"}} 1")), "{text}");
        assert!(text.contains("fairdeck_relay_connections_refused_total{reason=\"head_timeout\"} 0"), "{text}");
        if cfg!(target_os = "linux") {
            for name in ["process_resident_memory_bytes ", "process_open_fds ", "process_cpu_seconds_total "] {
                assert!(text.contains(name), "{name} in {text}");
            }
        }
    }
}
