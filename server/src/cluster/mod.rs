//! Instances of the relay that share their rooms through Redis (`--redis-url`), so that players reach a game
//! whichever instance a load balancer sends them to.
//!
//! A room lives on one instance, as Colyseus keeps a room in one process: its seats, holds and frames stay in
//! that instance's [`Rooms`], and nothing of a game passes through Redis. Redis only says where each room is:
//! an instance publishes, for each of its rooms, the nameplate, seat-token hashes and rendezvous id that lead to
//! it, and a snapshot (what a graceful restart hands over: no frame, no token). A player whose first message
//! names a room held elsewhere has its connection forwarded to that instance over a WebSocket between instances
//! (`link`); every frame then takes one more hop on the local network, and none through Redis.
//!
//! Each instance holds a lease in Redis that it renews every [`LEASE_RENEW`]; a room whose instance lost its
//! lease (it died, or stopped and released it) is taken over by the first instance one of its players reaches,
//! from its snapshot, with both seats held: its players resume there as after a restart. Every key expires
//! unless renewed, so no entry outlives a dead instance by more than its players' hold. When Redis is down or
//! forgets everything (a restart), instances serve their own rooms on, take a player whose room is not here to
//! the instance of those Redis last named that holds it ([`link`]), else tell it to come back shortly, rather than
//! answer as a relay alone (its room may be at another instance); they publish their rooms again once Redis
//! answers, and players whose room can no longer be found meet at their rendezvous (the client falls back to it
//! when its token is unknown). The end-to-end channel resends
//! whatever a seat missed while it was away.

pub(crate) mod link;
mod publish;
mod scripts;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError, RwLock};
use std::time::{Duration, Instant};

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{RedisError, Script};
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::handover::RoomSnapshot;
use crate::metrics::Metrics;
use crate::rooms::{RoomListing, Rooms};

pub(crate) use publish::{leave, run};
pub(crate) use scripts::Lookup;

/// How long an instance's lease lasts without renewal: how soon its rooms can be taken over after it died.
const LEASE: Duration = Duration::from_secs(6);
/// How often the lease is renewed.
const LEASE_RENEW: Duration = Duration::from_secs(2);
/// How long a Redis command may take before the instance treats Redis as down.
const REDIS_PATIENCE: Duration = Duration::from_millis(800);
const UNKNOWN: u8 = 0;
const UP: u8 = 1;
const DOWN: u8 = 2;

/// The highest nameplate a cluster hands out.
const MAX_NAMEPLATE: u32 = 999_999;
/// Where a nameplate Redis cannot claim is drawn from, at random.
const UNCLAIMED_NAMEPLATES: std::ops::Range<u32> = 100_000..MAX_NAMEPLATE + 1;

/// Errors setting up the cluster.
#[derive(Debug, Error)]
pub enum ClusterError {
    #[error("the Redis URL is not valid")]
    Url(#[source] RedisError),
    #[error("the advertised URL {0} is not a ws:// URL with a host and port and nothing else")]
    Advertise(String),
    #[error("the relay listens on {0}, which other instances cannot reach: say where with --advertise")]
    Unspecified(SocketAddr),
}

/// Where the room a player names is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Located {
    /// No instance has it: this instance answers as it would alone.
    Nowhere,
    /// Redis cannot say for sure: it does not answer, or it has just lost what the instances published (a
    /// restart) and they may not all have published their rooms again yet. A player coming back to a room that
    /// is not here is told to try again shortly: answered here, as by a relay alone, it would be told its room is
    /// unknown and meet its opponent at a rendezvous of this instance's, while the room is held at another.
    Unsettled,
    Here,
    /// On a live instance, reached at this URL.
    There {
        room: u64,
        owner: String,
        url: String,
    },
    /// Its instance has no lease (or it has no owner): it can be taken over.
    Orphan {
        room: u64,
        owner: Option<String>,
    },
}

/// What `/readyz` says of the cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub(crate) struct Canary {
    /// Instances with a lease, this one included.
    pub(crate) instances: usize,
    /// Other instances that did not answer `/healthz` at their advertised address.
    pub(crate) unreachable: usize,
}

/// Another instance of the cluster, as its lease in Redis names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Peer {
    pub(crate) instance: String,
    /// Its advertised URL, `ws://host:port`.
    pub(crate) url: String,
}

/// A room as published: its snapshot, and which seats are connected at its instance.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct RoomEntry {
    pub(crate) snapshot: RoomSnapshot,
    pub(crate) connected: Vec<bool>,
}

/// This instance's membership of the cluster.
pub(crate) struct Cluster {
    /// Random, fresh for each process: a restarted instance is a new member.
    instance: String,
    /// Where the other instances reach this one (`ws://host:port`), known once the relay listens.
    advertise: OnceLock<String>,
    redis: ConnectionManager,
    secret: RwLock<Option<String>>,
    /// The other instances with a lease, as last read from Redis: asked for a room while Redis is down.
    peers: RwLock<Vec<Peer>>,
    /// How Redis answered the last command: [`UNKNOWN`] before the first, then [`UP`] or [`DOWN`].
    redis_state: AtomicU8,
    /// Held while a room is taken over, until it is in `Rooms`.
    adopting: tokio::sync::Mutex<()>,
    /// When this instance last took a new lease after having had one (Redis restarted, or it was cut off).
    rejoined: Mutex<Option<Instant>>,
    had_lease: AtomicBool,
    /// How long a room's keys live without renewal.
    room_ttl: Duration,
    /// The lookup keys published for each room, so that those it no longer has are removed.
    published: Mutex<HashMap<u64, Vec<String>>>,
    metrics: Arc<Metrics>,
    scripts: Scripts,
}

struct Scripts {
    locate: Script,
    claim_nameplate: Script,
    claim_rendezvous: Script,
    adopt: Script,
    publish: Script,
    forget: Script,
}

/// Whether this instance holds the room a lookup names.
pub(crate) fn holds(rooms: &Rooms, lookup: Lookup) -> bool {
    match lookup {
        Lookup::Nameplate(nameplate) => rooms.has_nameplate(nameplate),
        Lookup::Token(hash) => rooms.has_token(&hash),
        Lookup::Rendezvous(id) => rooms.has_rendezvous(&id),
    }
}

/// An advertised URL as given, if it is `ws://host:port`.
pub(crate) fn check_advertise(url: &str) -> Result<String, ClusterError> {
    let authority = url.strip_prefix("ws://").unwrap_or_default().trim_end_matches('/');
    let port = authority.rsplit_once(':').and_then(|(host, port)| (!host.is_empty()).then_some(port));
    if authority.contains('/') || port.and_then(|port| port.parse::<u16>().ok()).is_none() {
        return Err(ClusterError::Advertise(url.to_owned()));
    }
    Ok(format!("ws://{authority}"))
}

impl std::fmt::Debug for Cluster {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cluster").field("instance", &self.instance).field("advertise", &self.advertise).finish()
    }
}

impl Cluster {
    /// Joins the cluster of the Redis at `url`. Nothing is contacted yet: a relay whose Redis is down starts, serves
    /// alone, and joins when Redis answers. `hold` is the players' hold, which a dead instance's rooms outlive.
    pub(crate) fn new(url: &str, hold: Duration, metrics: Arc<Metrics>) -> Result<Cluster, ClusterError> {
        let client = redis::Client::open(url).map_err(ClusterError::Url)?;
        let config = ConnectionManagerConfig::new()
            .set_response_timeout(Some(REDIS_PATIENCE))
            .set_connection_timeout(Some(REDIS_PATIENCE))
            .set_number_of_retries(1)
            .set_max_delay(Duration::from_secs(1));
        let redis = ConnectionManager::new_lazy_with_config(client, config).map_err(ClusterError::Url)?;
        metrics.cluster.redis_up.set(0.0);
        Ok(Cluster {
            instance: hex::encode(rand::random::<[u8; 8]>()),
            advertise: OnceLock::new(),
            redis,
            secret: RwLock::new(None),
            peers: RwLock::default(),
            redis_state: AtomicU8::new(UNKNOWN),
            adopting: tokio::sync::Mutex::new(()),
            rejoined: Mutex::new(None),
            had_lease: AtomicBool::new(false),
            room_ttl: hold + Duration::from_secs(60),
            published: Mutex::default(),
            metrics,
            scripts: Scripts {
                locate: scripts::locate(),
                claim_nameplate: scripts::claim_nameplate(),
                claim_rendezvous: scripts::claim_rendezvous(),
                adopt: scripts::adopt(),
                publish: scripts::publish(),
                forget: scripts::forget(),
            },
        })
    }

    /// Says where the other instances reach this one: `advertise`, or the address it listens on.
    pub(crate) fn advertise(&self, advertise: Option<&str>, listening: SocketAddr) -> Result<(), ClusterError> {
        let url = match advertise {
            Some(url) => check_advertise(url)?,
            None if listening.ip().is_unspecified() => return Err(ClusterError::Unspecified(listening)),
            None => format!("ws://{listening}"),
        };
        let _ = self.advertise.set(url);
        Ok(())
    }

    /// This instance's name in the cluster.
    pub(crate) fn instance(&self) -> &str {
        &self.instance
    }

    /// What instances present to each other, once read from Redis.
    pub(crate) fn secret(&self) -> Option<String> {
        self.secret.read().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// The other instances with a lease when Redis last answered.
    pub(crate) fn peers(&self) -> Vec<Peer> {
        self.peers.read().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// Taken while a room is taken over, and by a player whose room Redis says is here, so that it finds the room
    /// in `Rooms` and not a moment before.
    pub(crate) async fn adopting(&self) -> tokio::sync::MutexGuard<'_, ()> {
        self.adopting.lock().await
    }

    /// Whether Redis answered the last command.
    pub(crate) fn is_up(&self) -> bool {
        self.redis_state.load(Ordering::Relaxed) == UP
    }

    /// Whether this instance took a new lease less than a lease ago: the other instances may still be
    /// publishing their rooms again.
    fn rejoined_lately(&self) -> bool {
        let rejoined = *self.rejoined.lock().unwrap_or_else(PoisonError::into_inner);
        rejoined.is_some_and(|at| at.elapsed() < LEASE)
    }

    fn ttl_ms(&self) -> u64 {
        self.room_ttl.as_millis() as u64
    }

    /// Notes how the last Redis command went: the metric, and a log line when Redis goes away or comes back.
    fn answered<T>(&self, result: Result<T, RedisError>) -> Option<T> {
        let up = result.is_ok();
        let state = if up { UP } else { DOWN };
        if self.redis_state.swap(state, Ordering::Relaxed) != state {
            self.metrics.cluster.redis_up.set(if up { 1.0 } else { 0.0 });
            match &result {
                Ok(_) => tracing::info!(instance = %self.instance, "Redis answers: serving the cluster's rooms"),
                Err(error) => tracing::warn!(
                    instance = %self.instance,
                    error = %error,
                    "Redis does not answer: serving this instance's rooms alone until it is back"
                ),
            }
        }
        result.ok()
    }

    /// Where the room named by a player's first message is.
    pub(crate) async fn locate(&self, lookup: Lookup) -> Located {
        let mut redis = self.redis.clone();
        let mut locate = self.scripts.locate.prepare_invoke();
        locate.key(lookup.key()).key(scripts::instance_key(&self.instance)).arg(scripts::PREFIX);
        // Once more after an error: the first command after Redis restarted fails on the old connection.
        let mut found: Option<Vec<String>> = self.answered(locate.invoke_async(&mut redis).await);
        if found.is_none() {
            found = self.answered(locate.invoke_async(&mut redis).await);
        }
        let Some(found) = found else { return Located::Unsettled };
        let settled = found.first().is_some_and(|lease| lease == "1") && !self.rejoined_lately();
        let Some(room) = found.get(1).and_then(|room| room.parse().ok()) else {
            return if settled { Located::Nowhere } else { Located::Unsettled };
        };
        match (found.get(2), found.get(3)) {
            (Some(owner), _) if *owner == self.instance => Located::Here,
            (Some(owner), Some(url)) => Located::There { room, owner: owner.clone(), url: url.clone() },
            (owner, _) => Located::Orphan { room, owner: owner.cloned() },
        }
    }

    /// Claims a nameplate for a room about to open here: `preferred` if free, else the smallest free one in the
    /// whole cluster. `None` if Redis cannot say (the room then takes one free here).
    pub(crate) async fn claim_nameplate(&self, room: u64, preferred: Option<u32>) -> Option<u32> {
        let mut redis = self.redis.clone();
        let claimed: u32 = self.answered(
            self.scripts
                .claim_nameplate
                .arg(scripts::PREFIX)
                .arg(room)
                .arg(preferred.unwrap_or(0))
                .arg(self.ttl_ms())
                .arg(&self.instance)
                .arg(MAX_NAMEPLATE)
                .invoke_async(&mut redis)
                .await,
        )?;
        (claimed > 0).then(|| {
            self.note_published(room, Lookup::Nameplate(claimed).key());
            claimed
        })
    }

    /// A nameplate for a room of this instance, or for its watch seats: claimed in Redis as [`Cluster::claim_nameplate`]
    /// does; else (Redis cannot say which nameplates the other instances hold) `preferred`, or one drawn from the top
    /// of the range, which theirs (the smallest free first) seldom reach, rather than this instance's smallest, which
    /// another instance has likely handed out too.
    pub(crate) async fn nameplate(&self, room: u64, preferred: Option<u32>) -> u32 {
        match self.claim_nameplate(room, preferred).await {
            Some(claimed) => claimed,
            None => preferred.unwrap_or_else(|| {
                UNCLAIMED_NAMEPLATES.start + rand::random::<u32>() % UNCLAIMED_NAMEPLATES.len() as u32
            }),
        }
    }

    /// Claims a rendezvous for a room about to open here: `Some(true)` if it is the room's now, `Some(false)` if
    /// another room has it, `None` if Redis cannot say.
    pub(crate) async fn claim_rendezvous(&self, room: u64, id: [u8; 32]) -> Option<bool> {
        let key = Lookup::Rendezvous(id).key();
        let mut redis = self.redis.clone();
        let claimed: i64 = self.answered(
            self.scripts
                .claim_rendezvous
                .key(&key)
                .arg(scripts::PREFIX)
                .arg(room)
                .arg(self.ttl_ms())
                .arg(&self.instance)
                .invoke_async(&mut redis)
                .await,
        )?;
        if claimed == 1 {
            self.note_published(room, key);
        }
        Some(claimed == 1)
    }

    /// Takes over a room whose instance lost its lease (or, `dead`, is known to be gone although its lease runs
    /// on: another process answers at its address): its snapshot, if this instance now holds it.
    pub(crate) async fn adopt(&self, room: u64, owner: Option<&str>, dead: bool) -> Option<RoomSnapshot> {
        let mut redis = self.redis.clone();
        let entry: Option<String> = self.answered(
            self.scripts
                .adopt
                .arg(scripts::PREFIX)
                .arg(room)
                .arg(owner.unwrap_or_default())
                .arg(&self.instance)
                .arg(self.ttl_ms())
                .arg(u8::from(dead))
                .invoke_async(&mut redis)
                .await,
        )?;
        let entry: RoomEntry = match serde_json::from_str(&entry?) {
            Ok(entry) => entry,
            Err(error) => {
                tracing::warn!(room, error = %error, "cannot read a room's snapshot in Redis; it is not taken over");
                return None;
            }
        };
        self.metrics.cluster.adoptions.increment(1);
        tracing::info!(room, from = owner.unwrap_or("nobody"), "took over a room whose instance is gone");
        Some(entry.snapshot).filter(|snapshot| snapshot.id == room)
    }

    /// Every room of the cluster as published, oldest first; `None` if Redis cannot say.
    pub(crate) async fn list(&self, now_ms: i64) -> Option<Vec<RoomListing>> {
        let owner_keys = self.keys(&format!("{}owner:*", scripts::PREFIX)).await?;
        let mut redis = self.redis.clone();
        let mut listing = Vec::new();
        for keys in owner_keys.chunks(500) {
            let rooms: Vec<&str> = keys.iter().filter_map(|key| key.rsplit(':').next()).collect();
            let entry_keys: Vec<String> = rooms.iter().map(|room| format!("{}room:{room}", scripts::PREFIX)).collect();
            let owners: Vec<Option<String>> =
                self.answered(redis::cmd("MGET").arg(keys).query_async(&mut redis).await)?;
            let entries: Vec<Option<String>> =
                self.answered(redis::cmd("MGET").arg(&entry_keys).query_async(&mut redis).await)?;
            for ((owner, entry), room) in owners.into_iter().zip(entries).zip(&rooms) {
                let (Some(owner), Some(entry), Ok(room)) = (owner, entry, room.parse()) else { continue };
                let Ok(RoomEntry { snapshot, connected }) = serde_json::from_str(&entry) else { continue };
                listing.push(RoomListing {
                    room,
                    age_seconds: u64::try_from(now_ms - snapshot.created_ms).unwrap_or(0) / 1000,
                    seats_taken: snapshot.seats.iter().flatten().count() as u8,
                    seats_connected: connected.iter().filter(|c| **c).count() as u8,
                    instance: Some(owner),
                });
            }
        }
        listing.sort_by_key(|room| std::cmp::Reverse(room.age_seconds));
        Some(listing)
    }

    /// Checks the cluster for `/readyz`: a value written to Redis and read back, then each other live instance
    /// answering `/healthz` at its advertised address. `None` if Redis does not answer.
    pub(crate) async fn canary(&self) -> Option<Canary> {
        let mut redis = self.redis.clone();
        let key = format!("{}canary:{}", scripts::PREFIX, self.instance);
        let sent = hex::encode(rand::random::<[u8; 8]>());
        let _: () =
            self.answered(redis::cmd("SET").arg(&key).arg(&sent).arg("PX").arg(10_000).query_async(&mut redis).await)?;
        let read: Option<String> = self.answered(redis::cmd("GET").arg(&key).query_async(&mut redis).await)?;
        if read.as_deref() != Some(sent.as_str()) {
            return None;
        }
        let peers = self.read_peers().await?;
        let mut unreachable = 0;
        for peer in &peers {
            if !link::healthy(&peer.url).await {
                unreachable += 1;
            }
        }
        Some(Canary { instances: peers.len() + 1, unreachable })
    }

    /// Reads the other instances with a lease from Redis, and keeps them for when it is down. Members of the
    /// instances' set whose lease is gone are removed from it.
    pub(super) async fn read_peers(&self) -> Option<Vec<Peer>> {
        let mut redis = self.redis.clone();
        let (members,): (Vec<String>,) = self.answered(
            redis::pipe()
                .sadd(scripts::INSTANCES_KEY, &self.instance)
                .ignore()
                .pexpire(scripts::INSTANCES_KEY, 3 * LEASE.as_millis() as i64)
                .ignore()
                .smembers(scripts::INSTANCES_KEY)
                .query_async(&mut redis)
                .await,
        )?;
        let others: Vec<String> = members.into_iter().filter(|instance| *instance != self.instance).collect();
        let mut peers = Vec::new();
        if !others.is_empty() {
            let keys: Vec<String> = others.iter().map(|instance| scripts::instance_key(instance)).collect();
            let urls: Vec<Option<String>> =
                self.answered(redis::cmd("MGET").arg(&keys).query_async(&mut redis).await)?;
            let mut gone = Vec::new();
            for (instance, url) in others.into_iter().zip(urls) {
                match url {
                    Some(url) => peers.push(Peer { instance, url }),
                    None => gone.push(instance),
                }
            }
            if !gone.is_empty() {
                let _: Option<i64> = self
                    .answered(redis::cmd("SREM").arg(scripts::INSTANCES_KEY).arg(gone).query_async(&mut redis).await);
            }
        }
        self.metrics.cluster.peers.set(peers.len() as f64);
        *self.peers.write().unwrap_or_else(PoisonError::into_inner) = peers.clone();
        Some(peers)
    }

    /// Every key matching `pattern`, read a thousand at a time (SCAN: Redis is never blocked on them all).
    async fn keys(&self, pattern: &str) -> Option<Vec<String>> {
        let mut redis = self.redis.clone();
        let mut keys = Vec::new();
        let mut cursor = 0u64;
        loop {
            let (next, found): (u64, Vec<String>) = self.answered(
                redis::cmd("SCAN")
                    .arg(cursor)
                    .arg("MATCH")
                    .arg(pattern)
                    .arg("COUNT")
                    .arg(1000)
                    .query_async(&mut redis)
                    .await,
            )?;
            keys.extend(found);
            cursor = next;
            if cursor == 0 {
                return Some(keys);
            }
        }
    }

    fn note_published(&self, room: u64, key: String) {
        let mut published = self.published.lock().unwrap_or_else(PoisonError::into_inner);
        let keys = published.entry(room).or_default();
        if !keys.contains(&key) {
            keys.push(key);
        }
    }
}
