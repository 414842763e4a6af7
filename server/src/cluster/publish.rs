//! Keeping Redis up to date with this instance: its lease, and every room it holds (published when it changes,
//! renewed before its keys expire, published again after Redis lost them), until the instance leaves.

use std::collections::BTreeSet;
use std::sync::atomic::Ordering;
use std::sync::{Arc, PoisonError};
use std::time::Instant;

use tokio::sync::{mpsc, watch};
use tokio::time::{MissedTickBehavior, interval};

use super::scripts::{self, Lookup};
use super::{Cluster, LEASE, LEASE_RENEW, RoomEntry};
use crate::rooms::{Rooms, Stamp};

/// Publishes the rooms that change, renews the lease and the rooms' keys, until the relay shuts down. Returns the
/// changes not yet published, for [`leave`].
pub(crate) async fn run(
    cluster: Arc<Cluster>,
    rooms: Arc<Rooms>,
    mut changes: mpsc::UnboundedReceiver<u64>,
    mut shutdown: watch::Receiver<bool>,
) -> mpsc::UnboundedReceiver<u64> {
    let mut lease = interval(LEASE_RENEW);
    lease.set_missed_tick_behavior(MissedTickBehavior::Delay);
    let mut refresh = interval(cluster.room_ttl / 4);
    refresh.set_missed_tick_behavior(MissedTickBehavior::Delay);
    refresh.reset();
    // Its output (a lock guard, not `Send`) is dropped inside: the branches below await.
    let stopping = async move {
        let _ = shutdown.wait_for(|stopping| *stopping).await;
    };
    tokio::pin!(stopping);
    loop {
        tokio::select! {
            Some(room) = changes.recv() => {
                let mut lease_lapsed = false;
                for room in pending(BTreeSet::from([room]), &mut changes) {
                    lease_lapsed |= cluster.publish(&rooms, room).await;
                }
                if lease_lapsed {
                    cluster.publish_all(&rooms).await;
                }
            }
            _ = lease.tick() => {
                if cluster.renew_lease().await == Some(false) {
                    // A new lease: this instance just joined, was cut off past its lease, or Redis lost everything.
                    cluster.publish_all(&rooms).await;
                }
                if cluster.is_up() {
                    cluster.read_peers().await;
                }
            }
            _ = refresh.tick() => cluster.publish_all(&rooms).await,
            () = &mut stopping => return changes,
        }
    }
}

/// Leaves the cluster once the instance's connections are closed: every room is published as it is left (its
/// seats held), then the lease is released, so that other instances take the rooms over as soon as a player
/// reaches them. False if Redis did not take it all: the rooms then go into the hand-over file.
pub(crate) async fn leave(cluster: &Cluster, rooms: &Rooms, mut changes: mpsc::UnboundedReceiver<u64>) -> bool {
    // Every open room, and those that ended since they were last published: each once.
    for room in pending(rooms.ids().into_iter().collect(), &mut changes) {
        cluster.publish(rooms, room).await;
    }
    let mut redis = cluster.redis.clone();
    let released: Option<i64> =
        cluster.answered(redis::cmd("DEL").arg(scripts::instance_key(&cluster.instance)).query_async(&mut redis).await);
    if released.is_none() {
        tracing::warn!("cannot reach Redis to hand this instance's rooms over: they go into the hand-over file");
    }
    released.is_some() && cluster.is_up()
}

/// `rooms` and every room whose change is waiting in `changes`, each once.
fn pending(mut rooms: BTreeSet<u64>, changes: &mut mpsc::UnboundedReceiver<u64>) -> BTreeSet<u64> {
    while let Ok(room) = changes.try_recv() {
        rooms.insert(room);
    }
    rooms
}

impl Cluster {
    /// Renews the lease: `Some(true)` if it was held, `Some(false)` if it is new, `None` if Redis is down.
    async fn renew_lease(&self) -> Option<bool> {
        let advertise = self.advertise.get()?;
        let mut redis = self.redis.clone();
        let previous: Option<String> = self.answered(
            redis::cmd("SET")
                .arg(scripts::instance_key(&self.instance))
                .arg(advertise)
                .arg("PX")
                .arg(LEASE.as_millis() as u64)
                .arg("GET")
                .query_async(&mut redis)
                .await,
        )?;
        if previous.is_none() {
            self.lease_taken().await;
        } else if self.secret().is_none() {
            self.read_secret().await?;
        }
        Some(previous.is_some())
    }

    /// The lease was taken anew: for the first time, or after Redis lost it (a restart) or this instance was cut
    /// off for longer than it lasts. The secret may be new too.
    async fn lease_taken(&self) {
        if self.had_lease.swap(true, Ordering::Relaxed) {
            *self.rejoined.lock().unwrap_or_else(PoisonError::into_inner) = Some(Instant::now());
        }
        self.read_secret().await;
    }

    /// Reads the cluster's secret, made by the first instance that finds none.
    async fn read_secret(&self) -> Option<()> {
        let mut redis = self.redis.clone();
        let fresh = hex::encode(rand::random::<[u8; 32]>());
        let _: Option<()> = self
            .answered(redis::cmd("SET").arg(scripts::SECRET_KEY).arg(fresh).arg("NX").query_async(&mut redis).await)?;
        let secret: Option<String> =
            self.answered(redis::cmd("GET").arg(scripts::SECRET_KEY).query_async(&mut redis).await)?;
        *self.secret.write().unwrap_or_else(PoisonError::into_inner) = secret;
        Some(())
    }

    async fn publish_all(&self, rooms: &Rooms) {
        for room in rooms.ids() {
            if !self.is_up() {
                return;
            }
            self.publish(rooms, room).await;
        }
    }

    /// Publishes one room as it is now, or removes its keys if it ended. A room another instance took over (this
    /// one was cut off for longer than its lease) is given up here. True if the lease had lapsed: the caller
    /// publishes every room again.
    async fn publish(&self, rooms: &Rooms, room: u64) -> bool {
        let previous = self.published.lock().unwrap_or_else(PoisonError::into_inner).remove(&room).unwrap_or_default();
        let mut redis = self.redis.clone();
        let Some((snapshot, connected)) = rooms.entry(room, Stamp::now()) else {
            if !previous.is_empty() {
                let mut forget = self.scripts.forget.prepare_invoke();
                forget.arg(scripts::PREFIX).arg(room).arg(&self.instance);
                for key in &previous {
                    forget.key(key);
                }
                let _: Option<i64> = self.answered(forget.invoke_async(&mut redis).await);
            }
            return false;
        };
        let Some(advertise) = self.advertise.get() else { return false };
        let mut wanted: Vec<String> = snapshot.nameplate.map(|n| Lookup::Nameplate(n).key()).into_iter().collect();
        let hashes = snapshot.seats.iter().flatten().map(|seat| &seat.token_sha256);
        wanted.extend(hashes.filter_map(|hash| Some(Lookup::Token(hex::decode(hash).ok()?.try_into().ok()?).key())));
        let rendezvous = snapshot.rendezvous.as_deref().and_then(|id| hex::decode(id).ok()?.try_into().ok());
        wanted.extend(rendezvous.map(|id| Lookup::Rendezvous(id).key()));
        wanted.extend(snapshot.watch.nameplates.iter().flatten().map(|n| Lookup::Nameplate(*n).key()));
        let entry = serde_json::to_string(&RoomEntry { snapshot, connected }).unwrap_or_default();
        let mut publish = self.scripts.publish.prepare_invoke();
        publish.arg(scripts::PREFIX).arg(room).arg(&self.instance).arg(self.ttl_ms()).arg(entry).arg(wanted.len());
        publish.arg(advertise).arg(LEASE.as_millis() as u64);
        for key in wanted.iter().chain(previous.iter().filter(|key| !wanted.contains(key))) {
            publish.key(key);
        }
        match self.answered(publish.invoke_async::<i64>(&mut redis).await) {
            Some(0) => {
                tracing::warn!(room, "another instance took this room over while this one was cut off; giving it up");
                rooms.evict(room);
                false
            }
            Some(answer) => {
                self.published.lock().unwrap_or_else(PoisonError::into_inner).insert(room, wanted);
                if answer == 2 {
                    self.lease_taken().await;
                }
                answer == 2
            }
            // Kept, so that what it had is removed when it is published again.
            None => {
                self.published.lock().unwrap_or_else(PoisonError::into_inner).insert(room, previous);
                false
            }
        }
    }
}
