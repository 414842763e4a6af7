//! Prometheus metrics of one relay instance.
//!
//! Each relay owns its recorder (no global one), so several relays in one test process keep separate counts.
//! Counters and the histogram are updated on the hot path through pre-registered handles (an atomic add);
//! gauges are set from the live room table when `/metrics` is scraped, so they cannot drift.

use metrics::{Counter, Gauge, Histogram, Key, KeyName, Label, Level, Metadata, Recorder, SharedString};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};

use crate::protocol::ErrorCode;
use crate::rooms::LiveCounts;
use crate::stats::RoomResult;

const LATENCY: &str = "fairdeck_relay_forward_latency_seconds";
const LATENCY_BUCKETS: [f64; 14] =
    [0.000_05, 0.000_1, 0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0];

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
    /// Room records the stats writer could not keep up with.
    pub stats_dropped: Counter,
    /// Rooms reopened by their creator after a failed key exchange.
    pub reopens: Counter,
    rejections: Vec<(ErrorCode, Counter)>,
    rooms_ended: Vec<(RoomResult, Counter)>,
    rooms_open: Gauge,
    rooms_waiting: Gauge,
    seats_connected: Gauge,
    seats_held: Gauge,
    connections: Gauge,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics").finish_non_exhaustive()
    }
}

impl Default for Metrics {
    /// Registers every metric with a fresh recorder.
    fn default() -> Metrics {
        let recorder = PrometheusBuilder::new()
            .set_buckets_for_metric(Matcher::Full(LATENCY.into()), &LATENCY_BUCKETS)
            .map(PrometheusBuilder::build_recorder)
            // The bucket list is a non-empty constant, which is all `set_buckets_for_metric` checks.
            .unwrap_or_else(|_| PrometheusBuilder::new().build_recorder());
        let handle = recorder.handle();
        let metadata = Metadata::new(module_path!(), Level::INFO, Some(module_path!()));
        let describe =
            |name: &'static str, help: &'static str| (KeyName::from_const_str(name), SharedString::const_str(help));
        let counter = |name: &'static str, help: &'static str, labels: Vec<Label>| {
            let (key_name, text) = describe(name, help);
            recorder.describe_counter(key_name, None, text);
            recorder.register_counter(&Key::from_parts(name, labels), &metadata)
        };
        let gauge = |name: &'static str, help: &'static str, labels: Vec<Label>| {
            let (key_name, text) = describe(name, help);
            recorder.describe_gauge(key_name, None, text);
            recorder.register_gauge(&Key::from_parts(name, labels), &metadata)
        };
        let frames = counter("fairdeck_relay_frames_total", "Binary frames forwarded to a peer.", vec![]);
        let bytes = counter("fairdeck_relay_bytes_total", "Bytes of binary frames forwarded to a peer.", vec![]);
        let frames_dropped = counter(
            "fairdeck_relay_frames_dropped_total",
            "Binary frames dropped because the peer was away or not paired yet.",
            vec![],
        );
        let connections_accepted =
            counter("fairdeck_relay_connections_accepted_total", "WebSocket connections accepted.", vec![]);
        let stats_dropped = counter(
            "fairdeck_relay_stats_dropped_total",
            "Room records lost because the statistics database could not keep up.",
            vec![],
        );
        let reopens = counter(
            "fairdeck_relay_reopens_total",
            "Rooms given to a new guest by their creator after a failed key exchange (a wrong code).",
            vec![],
        );
        let rejections = ErrorCode::ALL
            .iter()
            .map(|code| {
                let labels = vec![Label::new("reason", code.as_str())];
                (
                    *code,
                    counter(
                        "fairdeck_relay_rejections_total",
                        "Requests refused or connections cut, by reason.",
                        labels,
                    ),
                )
            })
            .collect();
        let rooms_ended = RoomResult::ALL
            .iter()
            .map(|result| {
                let labels = vec![Label::new("result", result.as_str())];
                (*result, counter("fairdeck_relay_rooms_ended_total", "Rooms ended, by result.", labels))
            })
            .collect();
        let rooms_open = gauge("fairdeck_relay_rooms_open", "Rooms open (waiting or paired).", vec![]);
        let rooms_waiting = gauge("fairdeck_relay_rooms_waiting", "Rooms waiting for their second player.", vec![]);
        let seat_help = "Occupied seats, by state (connected, or held for a resume).";
        let seats_connected = gauge("fairdeck_relay_seats", seat_help, vec![Label::new("state", "connected")]);
        let seats_held = gauge("fairdeck_relay_seats", seat_help, vec![Label::new("state", "held")]);
        let connections = gauge("fairdeck_relay_connections", "WebSocket connections open.", vec![]);
        let (key_name, text) = describe(LATENCY, "Time from reading a frame to writing it to the peer's socket.");
        recorder.describe_histogram(key_name, Some(metrics::Unit::Seconds), text);
        let forward_latency = recorder.register_histogram(&Key::from_name(LATENCY), &metadata);
        Metrics {
            handle,
            frames,
            bytes,
            frames_dropped,
            forward_latency,
            connections_accepted,
            stats_dropped,
            reopens,
            rejections,
            rooms_ended,
            rooms_open,
            rooms_waiting,
            seats_connected,
            seats_held,
            connections,
        }
    }
}

impl Metrics {
    /// Counts a refused request or a connection cut, by its error code.
    pub fn rejected(&self, code: ErrorCode) {
        if let Some((_, counter)) = self.rejections.iter().find(|(c, _)| *c == code) {
            counter.increment(1);
        }
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

    /// Renders the Prometheus text exposition, with gauges taken from `live`.
    pub fn render(&self, live: LiveCounts, connections: usize) -> String {
        self.rooms_open.set(live.rooms as f64);
        self.rooms_waiting.set(live.waiting as f64);
        self.seats_connected.set(live.seats_connected as f64);
        self.seats_held.set(live.seats_held as f64);
        self.connections.set(connections as f64);
        self.handle.render()
    }
}
