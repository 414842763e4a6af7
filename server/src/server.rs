//! Building, binding and serving a relay; graceful shutdown.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use thiserror::Error;
use tokio::net::TcpListener;
use tokio::sync::{mpsc, watch};

use crate::accept;
use crate::admission::Admission;
use crate::cluster::{self, Cluster, ClusterError};
use crate::config::{Limits, LimitsError};
use crate::handover::{self, DirLock, Handover};
use crate::metrics::Metrics;
use crate::outbox::Queues;
use crate::ratelimit::RateLimiter;
use crate::refusals::RefusalList;
use crate::rooms::{Rooms, Stamp};
use crate::state::AppState;
use crate::stats::{RoomRecord, StatsError, StatsStore, StatsWriter, error_chain};

/// Room records waiting to be written; past this the relay drops records (and counts them) rather than grow.
const STATS_QUEUE: usize = 4096;

/// Liveness sweeps per ping interval: a connection is pinged within an eighth of the interval of its due time,
/// and a silent one told within as much of its deadline.
const LIVENESS_SWEEPS: u32 = 8;

/// How often histogram samples are folded into buckets.
const METRICS_UPKEEP: Duration = Duration::from_secs(5);

/// Errors starting or running a relay.
#[derive(Debug, Error)]
pub enum RelayError {
    #[error("invalid limits")]
    Limits(#[from] LimitsError),
    #[error("cannot create the data directory {path}")]
    DataDir { path: PathBuf, source: std::io::Error },
    #[error("cannot take the data directory")]
    DataDirTaken(#[source] handover::HandoverError),
    #[error(transparent)]
    Stats(#[from] StatsError),
    #[error("cannot read the refusal list {path}")]
    RefusalList { path: PathBuf, source: std::io::Error },
    #[error("cannot listen on {addr}")]
    Bind { addr: SocketAddr, source: std::io::Error },
    #[error("cannot join the cluster")]
    Cluster(#[from] ClusterError),
}

/// Configures a relay. `listen` may use port 0; [`Relay::bind`] tells the port chosen.
#[derive(Debug, Clone)]
pub struct RelayBuilder {
    listen: SocketAddr,
    data_dir: PathBuf,
    database_url: Option<String>,
    limits: Limits,
    operator_token: Option<String>,
    trust_forwarded_for: bool,
    refusal_list: Option<PathBuf>,
    redis_url: Option<String>,
    advertise: Option<String>,
}

impl RelayBuilder {
    /// A relay listening on `listen` and keeping its state (SQLite statistics, room hand-over) in `data_dir`.
    pub fn new(listen: SocketAddr, data_dir: impl Into<PathBuf>) -> RelayBuilder {
        RelayBuilder {
            listen,
            data_dir: data_dir.into(),
            database_url: None,
            limits: Limits::default(),
            operator_token: None,
            trust_forwarded_for: false,
            refusal_list: None,
            redis_url: None,
            advertise: None,
        }
    }

    /// Shares rooms with the other instances that use this Redis (`redis://…`).
    pub fn redis_url(mut self, url: impl Into<String>) -> RelayBuilder {
        self.redis_url = Some(url.into());
        self
    }

    /// Where the other instances of the cluster reach this one (`ws://host:port`); by default the address it
    /// listens on.
    pub fn advertise(mut self, url: impl Into<String>) -> RelayBuilder {
        self.advertise = Some(url.into());
        self
    }

    /// Replaces every limit.
    pub fn limits(mut self, limits: Limits) -> RelayBuilder {
        self.limits = limits;
        self
    }

    /// Keeps statistics in this database (`postgres://…` or `sqlite://…`) instead of `<data_dir>/stats.sqlite`.
    pub fn database_url(mut self, url: impl Into<String>) -> RelayBuilder {
        self.database_url = Some(url.into());
        self
    }

    /// Enables `/stats` and `/api/stats` for requests that present this token.
    pub fn operator_token(mut self, token: impl Into<String>) -> RelayBuilder {
        self.operator_token = Some(token.into());
        self
    }

    /// Takes the client address from the last `X-Forwarded-For` entry (only behind a reverse proxy).
    pub fn trust_forwarded_for(mut self, trust: bool) -> RelayBuilder {
        self.trust_forwarded_for = trust;
        self
    }

    /// Refuses connections from the addresses and prefixes listed in this file, read again whenever it changes.
    pub fn refusal_list(mut self, file: impl Into<PathBuf>) -> RelayBuilder {
        self.refusal_list = Some(file.into());
        self
    }

    /// Creates the data directory, takes back the rooms a previous process handed over, and starts the statistics
    /// writer, which connects to (and migrates) the database in the background: a relay whose database is down
    /// starts and serves games, and keeps their records until the database is back.
    pub async fn build(self) -> Result<Relay, RelayError> {
        self.limits.validate()?;
        std::fs::create_dir_all(&self.data_dir)
            .map_err(|source| RelayError::DataDir { path: self.data_dir.clone(), source })?;
        let dir_lock = DirLock::take(&self.data_dir).map_err(RelayError::DataDirTaken)?;
        let url = self.database_url.clone().unwrap_or_else(|| StatsStore::sqlite_url(&self.data_dir));
        let stats = StatsStore::open(&url).await?;
        let (records_tx, records_rx) = mpsc::channel(STATS_QUEUE);
        let refusals = match &self.refusal_list {
            Some(path) => {
                RefusalList::load(path).map_err(|source| RelayError::RefusalList { path: path.clone(), source })?
            }
            None => RefusalList::default(),
        };
        let metrics = Arc::new(Metrics::default());
        let limits = self.limits;
        let rooms =
            Rooms::new(limits.hold, limits.waiting_lifetime, limits.max_rooms, metrics.clone(), records_tx.clone())
                .watch_seats(limits.watch_seats);
        let (rooms, cluster) = match &self.redis_url {
            Some(url) => {
                match &self.advertise {
                    Some(advertise) => drop(cluster::check_advertise(advertise)?),
                    None if self.listen.ip().is_unspecified() => Err(ClusterError::Unspecified(self.listen))?,
                    None => {}
                }
                let cluster = Arc::new(Cluster::new(url, limits.hold, metrics.clone())?);
                let (changes_tx, changes) = mpsc::unbounded_channel();
                (rooms.clustered(changes_tx), Some((cluster, changes)))
            }
            None => (rooms, None),
        };
        let rooms = Arc::new(rooms);
        let (shutdown_tx, shutdown) = watch::channel(false);
        let now = Instant::now();
        let state = Arc::new(AppState {
            rooms,
            cluster: cluster.as_ref().map(|(cluster, _)| cluster.clone()),
            metrics,
            room_limiter: RateLimiter::new(limits.rooms_per_minute, now),
            join_limiter: RateLimiter::new(limits.joins_per_minute, now),
            resume_limiter: RateLimiter::new(limits.resumes_per_minute, now),
            connections: Arc::default(),
            admission: Arc::new(Admission::new(
                limits.max_handshakes,
                limits.connections_per_address,
                Arc::new(refusals),
            )),
            queues: Queues::default(),
            shutdown,
            stats,
            operator_token: self.operator_token,
            trust_forwarded_for: self.trust_forwarded_for,
            limits,
        });
        let handover_path = self.data_dir.join(handover::FILE_NAME);
        match handover::take(&handover_path) {
            Ok(None) => {}
            Ok(Some(handover)) => take_over(&state, handover, &records_tx),
            Err(error) => tracing::warn!(error = %error_chain(&error), "cannot take over the previous rooms"),
        }
        let writer = StatsWriter::spawn(state.stats.clone(), records_rx, state.metrics.clone());
        Ok(Relay {
            listen: self.listen,
            listener: None,
            state,
            writer,
            shutdown: Arc::new(shutdown_tx),
            handover_path,
            changes: cluster.map(|(_, changes)| changes),
            advertise: self.advertise,
            dir_lock,
        })
    }
}

/// A relay, built and ready to bind and serve.
#[derive(Debug)]
pub struct Relay {
    listen: SocketAddr,
    listener: Option<TcpListener>,
    state: Arc<AppState>,
    writer: StatsWriter,
    shutdown: Arc<watch::Sender<bool>>,
    handover_path: PathBuf,
    /// In a cluster, the changes of rooms to publish.
    changes: Option<mpsc::UnboundedReceiver<u64>>,
    advertise: Option<String>,
    /// Held until the rooms are handed over.
    dir_lock: DirLock,
}

/// Stops a serving relay: clients get `closing`, then are closed; rooms are handed over; statistics are flushed.
#[derive(Debug, Clone)]
pub struct ShutdownHandle(Arc<watch::Sender<bool>>);

impl ShutdownHandle {
    /// Starts the shutdown; [`Relay::serve`] returns when it is done.
    pub fn shutdown(&self) {
        self.0.send_replace(true);
    }
}

impl Relay {
    /// Shorthand for [`RelayBuilder::new`].
    pub fn builder(listen: SocketAddr, data_dir: impl Into<PathBuf>) -> RelayBuilder {
        RelayBuilder::new(listen, data_dir)
    }

    /// Binds the listening socket (if not yet bound) and returns its address.
    pub async fn bind(&mut self) -> Result<SocketAddr, RelayError> {
        let addr = self.listen;
        let listener = match self.listener.take() {
            Some(listener) => listener,
            None => listen(addr).await?,
        };
        let local = listener.local_addr().map_err(|source| RelayError::Bind { addr, source })?;
        self.listener = Some(listener);
        Ok(local)
    }

    /// A handle that stops [`Relay::serve`].
    pub fn shutdown_handle(&self) -> ShutdownHandle {
        ShutdownHandle(self.shutdown.clone())
    }

    /// The statistics database.
    pub fn stats(&self) -> &StatsStore {
        &self.state.stats
    }

    /// Serves until shut down, binding first if [`Relay::bind`] was not called.
    pub async fn serve(self) -> Result<(), RelayError> {
        let Relay { listen: addr, listener, state, writer, handover_path, changes, advertise, dir_lock, .. } = self;
        let listener = match listener {
            Some(listener) => listener,
            None => listen(addr).await?,
        };
        let publisher = match (&state.cluster, changes) {
            (Some(cluster), Some(changes)) => {
                let listening = listener.local_addr().map_err(|source| RelayError::Bind { addr, source })?;
                cluster.advertise(advertise.as_deref(), listening)?;
                let run = cluster::run(cluster.clone(), state.rooms.clone(), changes, state.shutdown.clone());
                Some((cluster.clone(), tokio::spawn(run)))
            }
            _ => None,
        };
        let upkeep = {
            let metrics = state.metrics.clone();
            let mut shutdown = state.shutdown.clone();
            tokio::spawn(async move {
                let mut ticks = tokio::time::interval(METRICS_UPKEEP);
                loop {
                    tokio::select! {
                        _ = ticks.tick() => metrics.run_upkeep(),
                        _ = shutdown.wait_for(|stopping| *stopping) => return,
                    }
                }
            })
        };
        tokio::spawn(state.admission.refusals().watch(state.shutdown.clone()));
        let liveness = tokio::spawn(keep_alive(state.clone()));
        // Returns once shutting down; the listener closes with it.
        accept::serve(listener, state.clone()).await;
        state.queues.restart_all();
        // Requests under way get the grace period to finish; a stuck one does not hold the shutdown.
        let grace = state.limits.shutdown_grace;
        state.admission.wait_handshakes_done(grace).await;
        state.connections.wait_empty(grace).await;
        let _ = upkeep.await;
        let _ = liveness.await;
        let records = writer.finish().await;
        // In a cluster the other instances take the rooms over through Redis, unless it is down.
        let handed_to_cluster = match publisher {
            Some((cluster, publisher)) => match publisher.await {
                Ok(changes) => cluster::leave(&cluster, &state.rooms, changes).await,
                Err(_) => false,
            },
            None => false,
        };
        let now = Stamp::now();
        let rooms = if handed_to_cluster { Vec::new() } else { state.rooms.export(now) };
        let handover = Handover { saved_ms: now.unix_ms, rooms, records };
        let (rooms, records) = (handover.rooms.len(), handover.records.len());
        match handover::save(&handover_path, handover) {
            Ok(()) if records > 0 => {
                tracing::info!(records, "statistics records not yet written are handed over to the next process");
            }
            Ok(()) => {}
            Err(error) => {
                state.metrics.stats_dropped.increment(records as u64);
                tracing::warn!(
                    error = %error_chain(&error),
                    rooms,
                    records,
                    "cannot hand the open rooms and the statistics records not yet written over to the next process: \
                     they are lost"
                );
            }
        }
        drop(dir_lock);
        Ok(())
    }
}

/// Takes back what the previous process handed over: its open rooms, and its records for the writer.
fn take_over(state: &Arc<AppState>, handover: Handover, records_tx: &mpsc::Sender<RoomRecord>) {
    let now = Stamp::now();
    let downtime_ms = u64::try_from(now.unix_ms - handover.saved_ms).unwrap_or(0);
    let deadlines = state.rooms.import(now, downtime_ms, handover.rooms);
    if !deadlines.is_empty() {
        tracing::info!(rooms = deadlines.len(), "took over rooms from the previous relay process");
    }
    for deadline in deadlines {
        crate::session::schedule(state, deadline);
    }
    let handed = handover.records.len();
    let mut lost = 0;
    for record in handover.records {
        // Counted before it is sent, as the rooms do, so that the writer never takes it off the count first.
        state.metrics.stats_queued.fetch_add(1, Ordering::Relaxed);
        if records_tx.try_send(record).is_err() {
            state.metrics.stats_queued.fetch_sub(1, Ordering::Relaxed);
            state.metrics.stats_dropped.increment(1);
            lost += 1;
        }
    }
    if handed > 0 {
        tracing::info!(records = handed, lost, "took over statistics records from the previous relay process");
    }
}

/// Pings every connection once per ping interval and tells those silent for longer than the interval and the
/// timeout, sweeping them several times per interval, until the relay shuts down.
async fn keep_alive(state: Arc<AppState>) {
    let limits = &state.limits;
    let silence = limits.ping_interval + limits.ping_timeout;
    let mut ticks = tokio::time::interval(limits.ping_interval / LIVENESS_SWEEPS);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut shutdown = state.shutdown.clone();
    loop {
        tokio::select! {
            _ = ticks.tick() => state.queues.keep_alive(Instant::now(), limits.ping_interval, silence),
            _ = shutdown.wait_for(|stopping| *stopping) => return,
        }
    }
}

async fn listen(addr: SocketAddr) -> Result<TcpListener, RelayError> {
    TcpListener::bind(addr).await.map_err(|source| RelayError::Bind { addr, source })
}
