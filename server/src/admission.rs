//! Admission of TCP connections before they become WebSockets: the operator's refusal list, how many are still in
//! their handshake, and how many each address holds open.
//!
//! Both counts are taken when a connection is accepted (the per-address one later, on the forwarded address,
//! behind a trusted proxy) and given back by dropping the guard, so they cannot drift.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
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
    addresses: Mutex<HashMap<IpAddr, usize>>,
    refusals: Arc<RefusalList>,
}

/// A count of open things (handshakes, WebSocket connections) under a ceiling: each is a [`Slot`], given back
/// when dropped, and shutdown can wait for the count to reach zero.
#[derive(Debug, Default)]
pub(crate) struct Slots {
    open: AtomicUsize,
    empty: Notify,
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
            addresses: Mutex::new(HashMap::new()),
            refusals,
        }
    }

    /// Counts a new handshake, unless `max_handshakes` are already under way.
    pub(crate) fn try_handshake(&self) -> Option<Slot> {
        self.handshakes.try_take(self.max_handshakes)
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

    #[test]
    fn handshakes_are_capped_and_given_back() {
        let admission = Arc::new(Admission::new(2, 0, Arc::default()));
        let first = admission.try_handshake().unwrap();
        let _second = admission.try_handshake().unwrap();
        assert!(admission.try_handshake().is_none());
        drop(first);
        assert_eq!(admission.handshakes(), 1);
        assert!(admission.try_handshake().is_some());
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
