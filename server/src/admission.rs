//! Admission of TCP connections before they become WebSockets: the operator's refusal list, how many are still in
//! their handshake, and how many each address holds open.
//!
//! When every handshake slot is taken, the oldest handshake is closed to make room for the newcomer: connections
//! that sit idle (a flood of them, or slowloris) cannot keep players out; to do so, they would have to be opened
//! faster than players open theirs, each living only until `max_handshakes` newer ones came.
//!
//! Both counts are taken when a connection is accepted (the per-address one later, on the forwarded address,
//! behind a trusted proxy) and given back by dropping the guard, so they cannot drift.

use std::collections::{BTreeMap, HashMap};
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::sync::Notify;

use crate::metrics::Refusal;
use crate::ratelimit;
use crate::refusals::RefusalList;

/// The handshake and per-address counts.
#[derive(Debug)]
pub(crate) struct Admission {
    max_handshakes: usize,
    /// 0: no per-address limit.
    per_address: usize,
    handshakes: Arc<Slots>,
    /// Handshakes under way, oldest first, each with what tells it to close.
    pending: Mutex<BTreeMap<u64, Arc<Notify>>>,
    next_handshake: AtomicU64,
    addresses: Mutex<HashMap<IpAddr, usize>>,
    refusals: Arc<RefusalList>,
}

/// A count of open things (handshakes, WebSocket connections) under a ceiling: each is a [`Slot`], given back
/// when dropped, and shutdown can wait for the count to reach zero.
#[derive(Debug, Default)]
pub(crate) struct Slots {
    open: AtomicUsize,
    empty: Notify,
    freed: Notify,
}

/// One taken slot; dropping it gives the slot back.
#[derive(Debug)]
pub(crate) struct Slot(Arc<Slots>);

impl Slots {
    /// Takes a slot, unless `max` are already taken.
    pub(crate) fn try_take(self: &Arc<Self>, max: usize) -> Option<Slot> {
        self.open
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |open| (open < max).then_some(open + 1))
            .ok()
            .map(|_| Slot(self.clone()))
    }

    /// Slots taken now.
    pub(crate) fn open(&self) -> usize {
        self.open.load(Ordering::Acquire)
    }

    /// Waits until fewer than `max` slots are taken.
    async fn wait_below(&self, max: usize) {
        loop {
            let notified = self.freed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if self.open() < max {
                return;
            }
            notified.await;
        }
    }

    /// Waits until every slot is given back, or `limit` has passed.
    pub(crate) async fn wait_empty(&self, limit: Duration) {
        let deadline = tokio::time::Instant::now() + limit;
        loop {
            let notified = self.empty.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if self.open() == 0 || tokio::time::timeout_at(deadline, notified).await.is_err() {
                return;
            }
        }
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        if self.0.open.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.0.empty.notify_waiters();
        }
        self.0.freed.notify_waiters();
    }
}

/// One connection in its handshake; dropping it gives the slot back.
#[derive(Debug)]
pub(crate) struct Handshake {
    _slot: Slot,
    id: u64,
    admission: Arc<Admission>,
    evicted: Arc<Notify>,
}

impl Handshake {
    /// Returns when this handshake is closed to make room for a newer one.
    pub(crate) async fn evicted(&self) {
        self.evicted.notified().await;
    }
}

impl Drop for Handshake {
    fn drop(&mut self) {
        self.admission.pending.lock().unwrap_or_else(PoisonError::into_inner).remove(&self.id);
    }
}

/// One open connection counted against its address; dropping it gives the slot back.
#[derive(Debug)]
pub(crate) struct AddressGuard {
    admission: Arc<Admission>,
    key: IpAddr,
}

/// An address slot shared by the HTTP connection and, after the upgrade, its WebSocket session: the slot is given
/// back when both are gone. Travels from the accept loop to the WebSocket handler as a request extension.
#[derive(Debug, Clone)]
pub(crate) struct AddressTicket {
    _slot: Arc<AddressGuard>,
}

impl AddressTicket {
    pub(crate) fn new(guard: AddressGuard) -> AddressTicket {
        AddressTicket { _slot: Arc::new(guard) }
    }
}

impl Admission {
    pub(crate) fn new(max_handshakes: usize, per_address: usize, refusals: Arc<RefusalList>) -> Admission {
        Admission {
            max_handshakes,
            per_address,
            handshakes: Arc::default(),
            pending: Mutex::default(),
            next_handshake: AtomicU64::new(0),
            addresses: Mutex::new(HashMap::new()),
            refusals,
        }
    }

    /// Counts a new handshake. If `max_handshakes` are already under way, the oldest is told to close and the new
    /// one takes its slot at once (the count is over until the oldest has closed). `None` past twice
    /// `max_handshakes`, while those told to close are still closing: the bound the open-file limit counts on.
    pub(crate) fn try_handshake(self: &Arc<Self>) -> Option<Handshake> {
        let mut pending = self.pending.lock().unwrap_or_else(PoisonError::into_inner);
        let slot = match self.handshakes.try_take(self.max_handshakes) {
            Some(slot) => slot,
            None => {
                let slot = self.handshakes.try_take(self.max_handshakes.saturating_mul(2))?;
                let (_, oldest) = pending.pop_first()?;
                // A stored permit: the oldest closes even if it is not waiting yet.
                oldest.notify_one();
                slot
            }
        };
        let id = self.next_handshake.fetch_add(1, Ordering::Relaxed);
        let evicted = Arc::new(Notify::new());
        pending.insert(id, evicted.clone());
        Some(Handshake { _slot: slot, id, admission: self.clone(), evicted })
    }

    /// Counts a connection from `addr`, unless the refusal list names it or its address (IPv6: its /64) already
    /// has its limit.
    pub(crate) fn try_address(self: &Arc<Self>, addr: IpAddr) -> Result<AddressGuard, Refusal> {
        if self.refusals.refuses(addr) {
            return Err(Refusal::Listed);
        }
        let key = ratelimit::key(addr);
        let mut addresses = self.addresses.lock().unwrap_or_else(PoisonError::into_inner);
        let open = addresses.entry(key).or_insert(0);
        if self.per_address != 0 && *open >= self.per_address {
            return Err(Refusal::AddressLimit);
        }
        *open += 1;
        Ok(AddressGuard { admission: self.clone(), key })
    }

    /// Waits until a new handshake can be counted (fewer than twice `max_handshakes` under way, see
    /// [`Self::try_handshake`]). Until then, new connections wait in the kernel's backlog, using no descriptor.
    pub(crate) async fn handshake_room(&self) {
        self.handshakes.wait_below(self.max_handshakes.saturating_mul(2)).await;
    }

    /// The refusal list, to read again when its file changes.
    pub(crate) fn refusals(&self) -> Arc<RefusalList> {
        self.refusals.clone()
    }

    /// Connections accepted and not yet upgraded (or done).
    pub(crate) fn handshakes(&self) -> usize {
        self.handshakes.open()
    }

    /// Addresses with at least one open connection.
    pub(crate) fn addresses(&self) -> usize {
        self.addresses.lock().unwrap_or_else(PoisonError::into_inner).len()
    }

    /// Waits until no handshake is under way, or `limit` has passed.
    pub(crate) async fn wait_handshakes_done(&self, limit: Duration) {
        self.handshakes.wait_empty(limit).await;
    }
}

impl Drop for AddressGuard {
    fn drop(&mut self) {
        let mut addresses = self.admission.addresses.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(open) = addresses.get_mut(&self.key) {
            *open -= 1;
            if *open == 0 {
                addresses.remove(&self.key);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[tokio::test]
    async fn past_the_cap_the_oldest_handshake_makes_room_and_slots_are_given_back() {
        let admission = Arc::new(Admission::new(2, 0, Arc::default()));
        let first = admission.try_handshake().unwrap();
        let second = admission.try_handshake().unwrap();
        let third = admission.try_handshake().expect("the oldest makes room");
        tokio::time::timeout(Duration::from_secs(1), first.evicted()).await.expect("the oldest is told to close");
        assert_eq!(admission.handshakes(), 3, "until it has closed");
        let fourth = admission.try_handshake().expect("the next oldest makes room");
        tokio::time::timeout(Duration::from_secs(1), second.evicted()).await.expect("then the next oldest");
        assert!(admission.try_handshake().is_none(), "twice the cap, until the oldest have closed");
        drop((first, second));
        assert_eq!(admission.handshakes(), 2);
        drop(third);
        assert!(admission.try_handshake().is_some());
        assert!(tokio::time::timeout(Duration::from_millis(50), fourth.evicted()).await.is_err(), "room was free");
    }

    #[test]
    fn addresses_are_capped_ipv6_by_slash_64_and_forgotten_when_idle() {
        let admission = Arc::new(Admission::new(10, 2, Arc::default()));
        let a = admission.try_address(ip("2001:db8::1")).unwrap();
        let _b = admission.try_address(ip("2001:db8::ffff:2")).unwrap();
        assert!(admission.try_address(ip("2001:db8::3")).is_err(), "same /64");
        assert!(admission.try_address(ip("2001:db8:0:1::1")).is_ok(), "another /64");
        assert!(admission.try_address(ip("192.0.2.1")).is_ok());
        drop(a);
        assert!(admission.try_address(ip("2001:db8::3")).is_ok());
        assert_eq!(admission.addresses(), 1, "only the /64 with open connections is remembered");
        let unlimited = Arc::new(Admission::new(10, 0, Arc::default()));
        let guards: Vec<_> = (0..100).map(|_| unlimited.try_address(ip("192.0.2.1")).unwrap()).collect();
        drop(guards);
        assert_eq!(unlimited.addresses(), 0);
    }
}
