//! Command-line flags, each also read from a `FAIRDECK_RELAY_*` environment variable.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Parser, Subcommand, ValueEnum};
use fairdeck_relay::{Limits, parse_duration};

/// fairdeck's relay: pairs two players by a short room number and forwards their encrypted frames.
#[derive(Debug, Parser)]
#[command(version, about, rename_all_env = "SCREAMING_SNAKE_CASE")]
pub struct Args {
    #[command(subcommand)]
    pub command: Option<Command>,

    /// Address to listen on (put a TLS proxy such as Caddy in front for wss://).
    #[arg(long, env = "FAIRDECK_RELAY_LISTEN", default_value = "127.0.0.1:7171", global = true)]
    pub listen: SocketAddr,

    /// Directory for the SQLite statistics file and the room hand-over file (created if missing).
    /// Defaults to $STATE_DIRECTORY (systemd), else $XDG_DATA_HOME/fairdeck-relay, else ~/.local/share/fairdeck-relay.
    #[arg(long, env = "FAIRDECK_RELAY_DATA_DIR", global = true)]
    pub data_dir: Option<PathBuf>,

    /// Statistics database URL, e.g. postgres://relay@localhost/relay (default: SQLite in the data directory).
    #[arg(long, env = "FAIRDECK_RELAY_DATABASE_URL", hide_env_values = true, global = true)]
    pub database_url: Option<String>,

    /// Token that opens /stats and /api/stats (as a Bearer token, or the password of HTTP Basic auth).
    /// Without it those pages are disabled. Prefer the environment variable: arguments are visible in `ps`.
    #[arg(long, env = "FAIRDECK_RELAY_OPERATOR_TOKEN", hide_env_values = true, global = true)]
    pub operator_token: Option<String>,

    /// Take the client address for rate limits from X-Forwarded-For (only behind a reverse proxy you run).
    #[arg(long, env = "FAIRDECK_RELAY_TRUST_FORWARDED_FOR")]
    pub trust_forwarded_for: bool,

    /// File of refused addresses and prefixes (CIDR), one a line, `#` for comments; read again when it changes.
    /// Behind a trusted proxy it applies to the forwarded address.
    #[arg(long = "refuse", env = "FAIRDECK_RELAY_REFUSE", value_name = "FILE")]
    pub refusal_list: Option<PathBuf>,

    /// Share rooms with the other instances that use this Redis, e.g. redis://127.0.0.1:6379/ (a password goes in the
    /// URL: prefer the environment variable). Without it the relay works alone.
    #[arg(long, env = "FAIRDECK_RELAY_REDIS_URL", hide_env_values = true)]
    pub redis_url: Option<String>,

    /// Where the other instances of the cluster reach this one, ws://host:port on a private network
    /// (default: ws:// and the --listen address).
    #[arg(long, env = "FAIRDECK_RELAY_ADVERTISE", value_name = "URL")]
    pub advertise: Option<String>,

    /// Log format.
    #[arg(long, env = "FAIRDECK_RELAY_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text, global = true)]
    pub log_format: LogFormat,

    /// Largest message accepted, in bytes; larger ones close the connection with code 1009.
    #[arg(long, env = "FAIRDECK_RELAY_MAX_MESSAGE_BYTES", default_value_t = Limits::default().max_message_bytes)]
    pub max_message_bytes: usize,

    /// Outbound queue per connection, in bytes (plus 64 per queued item); a reader that lets it overflow is
    /// disconnected (4007).
    #[arg(long, env = "FAIRDECK_RELAY_QUEUE_BYTES", default_value_t = Limits::default().queue_bytes)]
    pub queue_bytes: usize,

    /// Oldest an outbound frame may get before its reader is disconnected as too slow (4007).
    #[arg(long, env = "FAIRDECK_RELAY_QUEUE_AGE", value_parser = parse_duration, default_value = "20s")]
    pub queue_age: Duration,

    /// New rooms per client address per minute (0: no limit).
    #[arg(long, env = "FAIRDECK_RELAY_ROOMS_PER_MINUTE", default_value_t = Limits::default().rooms_per_minute)]
    pub rooms_per_minute: u32,

    /// Joins per client address per minute (0: no limit).
    #[arg(long, env = "FAIRDECK_RELAY_JOINS_PER_MINUTE", default_value_t = Limits::default().joins_per_minute)]
    pub joins_per_minute: u32,

    /// Failed resumes per client address per minute (0: no limit); successful resumes never count.
    #[arg(long, env = "FAIRDECK_RELAY_RESUMES_PER_MINUTE", default_value_t = Limits::default().resumes_per_minute)]
    pub resumes_per_minute: u32,

    /// How long a room waits for its second player (e.g. 30m).
    #[arg(long, env = "FAIRDECK_RELAY_WAITING_LIFETIME", value_parser = parse_duration, default_value = "30m")]
    pub waiting_lifetime: Duration,

    /// How long a dropped seat is held for a resume (e.g. 5m).
    #[arg(long, env = "FAIRDECK_RELAY_HOLD", value_parser = parse_duration, default_value = "5m")]
    pub hold: Duration,

    /// Spectators each player seat of a room may have at once (0: no watching on this relay).
    #[arg(long, env = "FAIRDECK_RELAY_WATCH_SEATS", default_value_t = Limits::default().watch_seats)]
    pub watch_seats: u8,

    /// Interval between pings.
    #[arg(long, env = "FAIRDECK_RELAY_PING_INTERVAL", value_parser = parse_duration, default_value = "30s")]
    pub ping_interval: Duration,

    /// Extra silence allowed after a ping before the connection counts as lost.
    #[arg(long, env = "FAIRDECK_RELAY_PING_TIMEOUT", value_parser = parse_duration, default_value = "30s")]
    pub ping_timeout: Duration,

    /// Time allowed for the first control message after connecting.
    #[arg(long, env = "FAIRDECK_RELAY_HELLO_TIMEOUT", value_parser = parse_duration, default_value = "10s")]
    pub hello_timeout: Duration,

    /// Most rooms open at once.
    #[arg(long, env = "FAIRDECK_RELAY_MAX_ROOMS", default_value_t = Limits::default().max_rooms)]
    pub max_rooms: usize,

    /// Most WebSocket connections at once (lowered at start to fit the open-file limit).
    #[arg(long, env = "FAIRDECK_RELAY_MAX_CONNECTIONS", default_value_t = Limits::default().max_connections)]
    pub max_connections: usize,

    /// Time a new connection gets to send its HTTP request head; silent and byte-a-second connections are closed.
    #[arg(long, env = "FAIRDECK_RELAY_REQUEST_HEAD_TIMEOUT", value_parser = parse_duration, default_value = "10s")]
    pub request_head_timeout: Duration,

    /// Time from accepting a connection to its WebSocket upgrade (or the end of its plain HTTP request).
    #[arg(long, env = "FAIRDECK_RELAY_UPGRADE_TIMEOUT", value_parser = parse_duration, default_value = "15s")]
    pub upgrade_timeout: Duration,

    /// Most connections accepted but not yet upgraded to WebSocket; past it the oldest is closed for the newcomer
    /// (lowered at start to fit the open-file limit).
    #[arg(long, env = "FAIRDECK_RELAY_MAX_HANDSHAKES", default_value_t = Limits::default().max_handshakes)]
    pub max_handshakes: usize,

    /// Most open connections from one address, IPv6 by /64, handshakes included (0: no limit). Behind a trusted
    /// proxy it applies to WebSocket connections, by forwarded address.
    #[arg(
        long,
        env = "FAIRDECK_RELAY_CONNECTIONS_PER_ADDRESS",
        default_value_t = Limits::default().connections_per_address
    )]
    pub connections_per_address: usize,

    /// On SIGTERM, how long clients get to receive `closing` before the relay exits.
    #[arg(long, env = "FAIRDECK_RELAY_SHUTDOWN_GRACE", value_parser = parse_duration, default_value = "5s")]
    pub shutdown_grace: Duration,

    /// Reconnect hint sent on shutdown (clients add up to as much again as jitter).
    #[arg(long, env = "FAIRDECK_RELAY_RESTART_HINT", value_parser = parse_duration, default_value = "2s")]
    pub restart_hint: Duration,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve (the default).
    Serve,
    /// List the open rooms of the relay running at --listen (age, seats; no secrets), through its /api/rooms and
    /// the operator token, and exit.
    Rooms,
    /// Print a summary of the statistics database and exit.
    Stats {
        /// Window, in hours.
        #[arg(long, default_value_t = 24)]
        hours: u32,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    Text,
    Json,
}

impl Args {
    /// The limits, as given.
    pub fn limits(&self) -> Limits {
        Limits {
            max_message_bytes: self.max_message_bytes,
            queue_bytes: self.queue_bytes,
            queue_age: self.queue_age,
            rooms_per_minute: self.rooms_per_minute,
            joins_per_minute: self.joins_per_minute,
            resumes_per_minute: self.resumes_per_minute,
            waiting_lifetime: self.waiting_lifetime,
            hold: self.hold,
            watch_seats: self.watch_seats,
            ping_interval: self.ping_interval,
            ping_timeout: self.ping_timeout,
            hello_timeout: self.hello_timeout,
            max_rooms: self.max_rooms,
            max_connections: self.max_connections,
            request_head_timeout: self.request_head_timeout,
            upgrade_timeout: self.upgrade_timeout,
            max_handshakes: self.max_handshakes,
            connections_per_address: self.connections_per_address,
            shutdown_grace: self.shutdown_grace,
            restart_hint: self.restart_hint,
        }
    }

    /// The data directory: the flag, else systemd's state directory, else the XDG data directory.
    pub fn data_dir(&self) -> PathBuf {
        if let Some(dir) = &self.data_dir {
            return dir.clone();
        }
        if let Some(dir) = std::env::var_os("STATE_DIRECTORY").and_then(|v| std::env::split_paths(&v).next()) {
            return dir;
        }
        let xdg = std::env::var_os("XDG_DATA_HOME").map(PathBuf::from);
        let home = std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".local/share"));
        xdg.or(home).unwrap_or_else(|| PathBuf::from(".")).join("fairdeck-relay")
    }
}
