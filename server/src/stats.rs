//! Match statistics: one row per room when it ends, through sqlx `Any` (SQLite by default, PostgreSQL by URL).
//!
//! Portable SQL only: `$n` placeholders, BIGINT unix milliseconds, TEXT results, integer arithmetic for
//! grouping. No IP address and no content is ever stored. Migrations live in `migrations/sqlite` and
//! `migrations/postgres` with the same version numbers (a test checks it).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use sqlx::any::{AnyPoolOptions, install_default_drivers};
use sqlx::migrate::Migrator;
use sqlx::{AnyPool, Row};
use thiserror::Error;
use tokio::sync::{OnceCell, mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio::time::Instant;

use crate::metrics::Metrics;
use crate::tally::RoomResult;

static SQLITE_MIGRATIONS: Migrator = sqlx::migrate!("../migrations/sqlite");
static POSTGRES_MIGRATIONS: Migrator = sqlx::migrate!("../migrations/postgres");

/// One finished room, as stored (and as handed over when it could not be stored before a restart).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoomRecord {
    /// When the room was created, unix milliseconds.
    pub created_ms: i64,
    /// Time until the second player joined; `None` if nobody did.
    pub waiting_ms: Option<i64>,
    /// Time from creation to the end.
    pub total_ms: i64,
    pub result: RoomResult,
    /// Frames and bytes from the creator (seat 0) to the joiner (seat 1), and back.
    pub frames_a_to_b: i64,
    pub bytes_a_to_b: i64,
    pub frames_b_to_a: i64,
    pub bytes_b_to_a: i64,
    /// How many times a seat was resumed.
    pub resumes: i64,
    /// Client version strings as the clients gave them.
    pub client_a: Option<String>,
    pub client_b: Option<String>,
    /// The most spectators present at once (absent from records of earlier relays).
    #[serde(default)]
    pub watchers: i64,
}

/// Errors of the statistics database.
#[derive(Debug, Error)]
pub enum StatsError {
    #[error("cannot connect to the statistics database")]
    Connect(#[source] sqlx::Error),
    #[error("cannot migrate the statistics database")]
    Migrate(#[source] sqlx::migrate::MigrateError),
    #[error("statistics query failed")]
    Query(#[from] sqlx::Error),
    #[error("unsupported database `{0}` in the database URL (use sqlite:// or postgres://)")]
    UnsupportedBackend(String),
    #[error("the database URL is not valid")]
    InvalidUrl(#[source] sqlx::Error),
    #[error("cannot open the SQLite file (to create it, end the URL with ?mode=rwc)")]
    SqliteMissing(#[source] sqlx::Error),
    #[error("the statistics database holds a result this relay does not know: `{0}`")]
    UnknownResult(String),
}

/// Bucket edges (exclusive upper bounds, milliseconds) for the duration histograms, with their labels.
pub const DURATION_BUCKETS: [(i64, &str); 7] = [
    (60_000, "< 1 min"),
    (300_000, "1–5 min"),
    (900_000, "5–15 min"),
    (1_800_000, "15–30 min"),
    (3_600_000, "30–60 min"),
    (7_200_000, "1–2 h"),
    (i64::MAX, "≥ 2 h"),
];

/// Aggregates over a time window, for the JSON API, the stats page and `fairdeck-relay stats`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Start of the window, unix milliseconds.
    pub since_ms: i64,
    pub rooms: i64,
    pub frames: i64,
    pub bytes: i64,
    /// Rooms that had at least one spectator.
    pub watched: i64,
    /// The most spectators any one room had at once.
    pub most_watchers: i64,
    /// Rooms by result, every result present.
    pub results: BTreeMap<&'static str, i64>,
    /// Rooms created per hour: (hour start in unix ms, rooms), oldest first, hours without rooms included.
    pub hourly: Vec<(i64, i64)>,
    /// Total time of rooms, by `DURATION_BUCKETS` label.
    pub durations: Vec<(&'static str, i64)>,
    /// Waiting time of the rooms that paired, by `DURATION_BUCKETS` label.
    pub waiting: Vec<(&'static str, i64)>,
}

/// The databases this relay has migrations for, told by the URL's scheme.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Backend {
    Sqlite,
    Postgres,
}

impl Backend {
    /// The backend of `url`, whose options are checked too, so that a malformed URL is refused at once rather
    /// than retried forever. Errors name the scheme only: the URL may hold a password.
    fn of(url: &str) -> Result<Backend, StatsError> {
        use std::str::FromStr;
        let scheme = url.split_once(':').map(|(scheme, _)| scheme.to_ascii_lowercase());
        match scheme.as_deref() {
            Some("sqlite") => {
                sqlx::sqlite::SqliteConnectOptions::from_str(url).map_err(StatsError::InvalidUrl)?;
                Ok(Backend::Sqlite)
            }
            Some("postgres" | "postgresql") => {
                sqlx::postgres::PgConnectOptions::from_str(url).map_err(StatsError::InvalidUrl)?;
                Ok(Backend::Postgres)
            }
            Some(other) if !other.is_empty() && other.chars().all(|c| c.is_ascii_alphanumeric() || c == '+') => {
                Err(StatsError::UnsupportedBackend(other.to_owned()))
            }
            _ => Err(StatsError::InvalidUrl(sqlx::Error::Configuration("no scheme such as postgres:".into()))),
        }
    }
}

/// The statistics database. It connects when first used (and migrates then), so a relay starts and serves games
/// while its database is down; each use retries the connection.
#[derive(Debug, Clone)]
pub struct StatsStore {
    pool: AnyPool,
    backend: Backend,
    migrated: Arc<OnceCell<()>>,
}

const HOUR_MS: i64 = 3_600_000;

/// How long one use waits for a database connection before it fails.
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(5);

impl StatsStore {
    /// Connects (creating a SQLite file if needed) and runs the migrations for the backend.
    pub async fn connect(url: &str) -> Result<StatsStore, StatsError> {
        let store = StatsStore::lazy(url)?;
        store.ready().await?;
        Ok(store)
    }

    /// A store that connects and migrates on first use. Fails only on a URL this relay cannot use: malformed, or
    /// of another database than SQLite and PostgreSQL.
    pub fn lazy(url: &str) -> Result<StatsStore, StatsError> {
        let backend = Backend::of(url)?;
        install_default_drivers();
        let pool = AnyPoolOptions::new()
            .max_connections(4)
            .acquire_timeout(ACQUIRE_TIMEOUT)
            .connect_lazy(url)
            .map_err(StatsError::Connect)?;
        Ok(StatsStore { pool, backend, migrated: Arc::new(OnceCell::new()) })
    }

    /// For a relay starting: a store ready to use if it is SQLite (a local file that cannot be opened is a
    /// mistake in the configuration, not an outage, so it is an error now), else one that connects in the
    /// background (a PostgreSQL that is down or refuses the password is retried until it answers).
    pub async fn open(url: &str) -> Result<StatsStore, StatsError> {
        let store = StatsStore::lazy(url)?;
        if store.backend == Backend::Sqlite {
            store.ready().await.map_err(|error| match error {
                StatsError::Connect(error) if !url.contains("mode=rwc") && !url.contains("mode=memory") => {
                    StatsError::SqliteMissing(error)
                }
                error => error,
            })?;
        }
        Ok(store)
    }

    /// Whether the database answers a query now (connecting and migrating first if need be).
    pub async fn check(&self) -> Result<(), StatsError> {
        self.ready().await?;
        sqlx::query("SELECT 1").execute(&self.pool).await?;
        Ok(())
    }

    /// Connects and runs the migrations, once; a failure is retried on the next call.
    pub async fn ready(&self) -> Result<(), StatsError> {
        self.migrated
            .get_or_try_init(|| async {
                drop(self.pool.acquire().await.map_err(StatsError::Connect)?);
                let migrator = match self.backend {
                    Backend::Sqlite => &SQLITE_MIGRATIONS,
                    Backend::Postgres => &POSTGRES_MIGRATIONS,
                };
                migrator.run(&self.pool).await.map_err(StatsError::Migrate)
            })
            .await?;
        Ok(())
    }

    /// The SQLite URL of the stats file in `data_dir`.
    pub fn sqlite_url(data_dir: &std::path::Path) -> String {
        format!("sqlite://{}?mode=rwc", data_dir.join("stats.sqlite").display())
    }

    /// Stores one finished room. A connection whose write failed is closed rather than put back in the pool: it
    /// may stay broken after the cause is fixed (a SQLite file opened read-only stays read-only).
    pub async fn insert(&self, record: &RoomRecord) -> Result<(), StatsError> {
        self.ready().await?;
        let mut connection = self.pool.acquire().await.map_err(StatsError::Connect)?;
        let written = sqlx::query(
            "INSERT INTO rooms (created_ms, waiting_ms, total_ms, result, frames_a_to_b, bytes_a_to_b, \
             frames_b_to_a, bytes_b_to_a, resumes, client_a, client_b, watchers) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
        )
        .bind(record.created_ms)
        .bind(record.waiting_ms)
        .bind(record.total_ms)
        .bind(record.result.as_str())
        .bind(record.frames_a_to_b)
        .bind(record.bytes_a_to_b)
        .bind(record.frames_b_to_a)
        .bind(record.bytes_b_to_a)
        .bind(record.resumes)
        .bind(record.client_a.as_deref())
        .bind(record.client_b.as_deref())
        .bind(record.watchers)
        .execute(&mut *connection)
        .await;
        if written.is_err() {
            let _ = connection.close().await;
        }
        written?;
        Ok(())
    }

    /// The most recent rooms, newest first.
    pub async fn recent(&self, limit: i64) -> Result<Vec<RoomRecord>, StatsError> {
        self.ready().await?;
        let rows = sqlx::query(
            "SELECT created_ms, waiting_ms, total_ms, result, frames_a_to_b, bytes_a_to_b, frames_b_to_a, \
             bytes_b_to_a, resumes, client_a, client_b, watchers FROM rooms ORDER BY id DESC LIMIT $1",
        )
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|row| {
                let result: String = row.try_get(3)?;
                Ok(RoomRecord {
                    created_ms: row.try_get(0)?,
                    waiting_ms: row.try_get(1)?,
                    total_ms: row.try_get(2)?,
                    result: RoomResult::parse(&result).ok_or(StatsError::UnknownResult(result))?,
                    frames_a_to_b: row.try_get(4)?,
                    bytes_a_to_b: row.try_get(5)?,
                    frames_b_to_a: row.try_get(6)?,
                    bytes_b_to_a: row.try_get(7)?,
                    resumes: row.try_get(8)?,
                    client_a: row.try_get(9)?,
                    client_b: row.try_get(10)?,
                    watchers: row.try_get(11)?,
                })
            })
            .collect()
    }

    /// Aggregates the rooms created in the `hours` hours before `now_ms`.
    pub async fn summary(&self, now_ms: i64, hours: u32) -> Result<Summary, StatsError> {
        self.ready().await?;
        let first_hour = now_ms / HOUR_MS - i64::from(hours.max(1)) + 1;
        let since_ms = first_hour * HOUR_MS;
        let mut summary = Summary {
            since_ms,
            rooms: 0,
            frames: 0,
            bytes: 0,
            watched: 0,
            most_watchers: 0,
            results: RoomResult::ALL.iter().map(|r| (r.as_str(), 0)).collect(),
            hourly: (first_hour..=now_ms / HOUR_MS).map(|h| (h * HOUR_MS, 0)).collect(),
            durations: DURATION_BUCKETS.iter().map(|(_, label)| (*label, 0)).collect(),
            waiting: DURATION_BUCKETS.iter().map(|(_, label)| (*label, 0)).collect(),
        };
        let rows = sqlx::query(
            "SELECT result, COUNT(*), CAST(COALESCE(SUM(frames_a_to_b + frames_b_to_a), 0) AS BIGINT), \
             CAST(COALESCE(SUM(bytes_a_to_b + bytes_b_to_a), 0) AS BIGINT) \
             FROM rooms WHERE created_ms >= $1 GROUP BY result",
        )
        .bind(since_ms)
        .fetch_all(&self.pool)
        .await?;
        for row in rows {
            let result: String = row.try_get(0)?;
            let rooms: i64 = row.try_get(1)?;
            summary.rooms += rooms;
            summary.frames += row.try_get::<i64, _>(2)?;
            summary.bytes += row.try_get::<i64, _>(3)?;
            let result = RoomResult::parse(&result).ok_or(StatsError::UnknownResult(result))?;
            *summary.results.entry(result.as_str()).or_default() += rooms;
        }
        let rows = sqlx::query(
            "SELECT created_ms / 3600000, COUNT(*) FROM rooms WHERE created_ms >= $1 \
             GROUP BY created_ms / 3600000",
        )
        .bind(since_ms)
        .fetch_all(&self.pool)
        .await?;
        for row in rows {
            let hour: i64 = row.try_get(0)?;
            let index = usize::try_from(hour - first_hour).ok();
            if let Some(slot) = index.and_then(|i| summary.hourly.get_mut(i)) {
                slot.1 += row.try_get::<i64, _>(1)?;
            }
        }
        let row = sqlx::query(
            "SELECT COUNT(*), CAST(COALESCE(MAX(watchers), 0) AS BIGINT) FROM rooms \
             WHERE created_ms >= $1 AND watchers > 0",
        )
        .bind(since_ms)
        .fetch_one(&self.pool)
        .await?;
        (summary.watched, summary.most_watchers) = (row.try_get(0)?, row.try_get(1)?);
        summary.durations = self.histogram("total_ms", since_ms).await?;
        summary.waiting = self.histogram("waiting_ms", since_ms).await?;
        Ok(summary)
    }

    /// Counts rooms per duration bucket of `column` (NULLs are left out).
    async fn histogram(&self, column: &'static str, since_ms: i64) -> Result<Vec<(&'static str, i64)>, StatsError> {
        let cases: String = DURATION_BUCKETS
            .iter()
            .enumerate()
            .filter(|(_, (edge, _))| *edge != i64::MAX)
            .map(|(i, (edge, _))| format!("WHEN {column} < {edge} THEN {i} "))
            .collect();
        let last = DURATION_BUCKETS.len() - 1;
        // Only constants and a column name chosen by this file go into the text.
        let sql = format!(
            "SELECT CASE {cases}ELSE {last} END, COUNT(*) FROM rooms \
             WHERE created_ms >= $1 AND {column} IS NOT NULL GROUP BY 1"
        );
        let rows = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(since_ms).fetch_all(&self.pool).await?;
        let mut buckets: Vec<(&'static str, i64)> = DURATION_BUCKETS.iter().map(|(_, label)| (*label, 0)).collect();
        for row in rows {
            let index: i64 = row.try_get(0)?;
            if let Some(slot) = usize::try_from(index).ok().and_then(|i| buckets.get_mut(i)) {
                slot.1 += row.try_get::<i64, _>(1)?;
            }
        }
        Ok(buckets)
    }
}

/// First pause after a failed write; it doubles up to [`RETRY_MAX`] while the database stays down.
const RETRY_FIRST: Duration = Duration::from_millis(500);
const RETRY_MAX: Duration = Duration::from_secs(30);

/// On shutdown, how long the writer may spend on what is queued (if the database is up).
const FLUSH_LIMIT: Duration = Duration::from_secs(5);

/// The task that writes room records as rooms end. A record whose write fails is kept and retried, with backoff,
/// until the database is back; meanwhile new records wait in the bounded queue (the rooms count what does not
/// fit as dropped). Stop it with [`StatsWriter::finish`] to flush what is queued.
#[derive(Debug)]
pub(crate) struct StatsWriter {
    stop: oneshot::Sender<()>,
    task: JoinHandle<Vec<RoomRecord>>,
}

impl StatsWriter {
    /// Spawns the writer on the current runtime. It connects to the database at once, in the background.
    pub(crate) fn spawn(
        store: StatsStore,
        mut records: mpsc::Receiver<RoomRecord>,
        metrics: Arc<Metrics>,
    ) -> StatsWriter {
        let (stop, mut stopped) = oneshot::channel();
        let task = tokio::spawn(async move {
            let mut health = Health::default();
            health.report(store.ready().await);
            let mut retry = RETRY_FIRST;
            let mut pending: Option<RoomRecord> = None;
            loop {
                let record = match pending.take() {
                    Some(record) => record,
                    None => tokio::select! {
                        record = records.recv() => match record {
                            Some(record) => record,
                            None => return Vec::new(),
                        },
                        _ = &mut stopped => break,
                    },
                };
                let written = store.insert(&record).await;
                if written.is_ok() {
                    metrics.stats_queued.fetch_sub(1, Ordering::Relaxed);
                    retry = RETRY_FIRST;
                    health.report(written);
                    continue;
                }
                metrics.stats_write_errors.increment(1);
                health.report(written);
                pending = Some(record);
                tokio::select! {
                    () = tokio::time::sleep(retry) => {}
                    _ = &mut stopped => break,
                }
                retry = (retry * 2).min(RETRY_MAX);
            }
            // Shutting down: write what is left while the database answers and time allows; give back the rest,
            // for the hand-over file.
            let deadline = Instant::now() + FLUSH_LIMIT;
            let mut left: Vec<RoomRecord> = pending.into_iter().collect();
            while let Ok(record) = records.try_recv() {
                left.push(record);
            }
            let mut unwritten = Vec::new();
            for record in left {
                let written = health.up && Instant::now() < deadline && store.insert(&record).await.is_ok();
                metrics.stats_queued.fetch_sub(1, Ordering::Relaxed);
                if !written {
                    health.up = false;
                    unwritten.push(record);
                }
            }
            unwritten
        });
        StatsWriter { stop, task }
    }

    /// Writes what is queued while the database answers, then stops; returns the records it could not write.
    pub(crate) async fn finish(self) -> Vec<RoomRecord> {
        let _ = self.stop.send(());
        self.task.await.unwrap_or_default()
    }
}

/// Whether the database answered the last write, to log once when it goes down and once when it is back.
#[derive(Debug)]
struct Health {
    up: bool,
}

impl Default for Health {
    fn default() -> Health {
        Health { up: true }
    }
}

impl Health {
    fn report(&mut self, result: Result<(), StatsError>) {
        match (self.up, result) {
            (true, Err(error)) => {
                tracing::warn!(
                    error = %error_chain(&error),
                    "the statistics database is unavailable; room records are kept and retried"
                );
                self.up = false;
            }
            (false, Ok(())) => {
                tracing::info!("the statistics database is back; writing the kept room records");
                self.up = true;
            }
            _ => {}
        }
    }
}

/// Formats an error and its sources on one line.
pub(crate) fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_backends_have_the_same_migration_versions() {
        let versions = |m: &Migrator| m.iter().map(|m| m.version).collect::<Vec<_>>();
        assert!(!versions(&SQLITE_MIGRATIONS).is_empty());
        assert_eq!(versions(&SQLITE_MIGRATIONS), versions(&POSTGRES_MIGRATIONS));
    }

    #[test]
    fn results_round_trip_and_order_by_severity() {
        for result in RoomResult::ALL {
            assert_eq!(RoomResult::parse(result.as_str()), Some(result));
        }
        assert!(RoomResult::Happy < RoomResult::Crowded && RoomResult::Scary < RoomResult::Errored);
        assert_eq!(RoomResult::parse("pruney"), None);
    }
}
