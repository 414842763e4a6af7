//! Per-address rate limits (new rooms, joins, failed resumes): a token bucket per client address, refilled
//! continuously.
//!
//! IPv6 clients are keyed by their /64, since one host usually owns a whole /64. The table forgets addresses
//! whose bucket has refilled, so its size follows the number of recently active addresses.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How often the table drops full buckets.
const SWEEP_EVERY: Duration = Duration::from_secs(60);

/// A per-address limit of `per_minute` actions, with bursts up to `per_minute`.
#[derive(Debug)]
pub struct RateLimiter {
    per_minute: u32,
    table: Mutex<Table>,
}

#[derive(Debug)]
struct Table {
    buckets: HashMap<IpAddr, Bucket>,
    last_sweep: Instant,
}

#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    updated: Instant,
}

/// The action was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limited;

impl RateLimiter {
    /// A limiter allowing `per_minute` actions per address per minute; 0 means no limit.
    pub fn new(per_minute: u32, now: Instant) -> RateLimiter {
        RateLimiter { per_minute, table: Mutex::new(Table { buckets: HashMap::new(), last_sweep: now }) }
    }

    /// Takes one action's token for `addr`, or refuses.
    pub fn check(&self, addr: IpAddr, now: Instant) -> Result<(), Limited> {
        if self.per_minute == 0 {
            return Ok(());
        }
        let capacity = f64::from(self.per_minute);
        let per_second = capacity / 60.0;
        let refill = |bucket: &Bucket| {
            let elapsed = now.saturating_duration_since(bucket.updated).as_secs_f64();
            (bucket.tokens + elapsed * per_second).min(capacity)
        };
        let mut table = self.table.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if now.saturating_duration_since(table.last_sweep) >= SWEEP_EVERY {
            table.buckets.retain(|_, bucket| refill(bucket) < capacity);
            table.last_sweep = now;
        }
        let bucket = table.buckets.entry(key(addr)).or_insert(Bucket { tokens: capacity, updated: now });
        let tokens = refill(bucket);
        if tokens < 1.0 {
            return Err(Limited);
        }
        *bucket = Bucket { tokens: tokens - 1.0, updated: now };
        Ok(())
    }

    /// Whether `addr` could act now, without taking a token (for limits on failures: check first, and `check`
    /// only once the action failed).
    pub fn peek(&self, addr: IpAddr, now: Instant) -> Result<(), Limited> {
        if self.per_minute == 0 {
            return Ok(());
        }
        let capacity = f64::from(self.per_minute);
        let table = self.table.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let Some(bucket) = table.buckets.get(&key(addr)) else {
            return Ok(());
        };
        let elapsed = now.saturating_duration_since(bucket.updated).as_secs_f64();
        let tokens = (bucket.tokens + elapsed * capacity / 60.0).min(capacity);
        if tokens < 1.0 { Err(Limited) } else { Ok(()) }
    }

    /// Number of addresses remembered.
    pub fn tracked(&self) -> usize {
        self.table.lock().unwrap_or_else(std::sync::PoisonError::into_inner).buckets.len()
    }
}

/// The key an address is counted under: IPv4 as is (IPv4-mapped IPv6 too), IPv6 by its /64.
pub(crate) fn key(addr: IpAddr) -> IpAddr {
    match addr {
        IpAddr::V4(_) => addr,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let mut segments = v6.segments();
                segments[4..].fill(0);
                IpAddr::V6(segments.into())
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn allows_a_burst_then_refills_over_the_minute() {
        let start = Instant::now();
        let limiter = RateLimiter::new(3, start);
        for _ in 0..3 {
            assert_eq!(limiter.check(ip("10.0.0.1"), start), Ok(()));
        }
        assert_eq!(limiter.check(ip("10.0.0.1"), start), Err(Limited));
        assert_eq!(limiter.check(ip("10.0.0.2"), start), Ok(()), "other addresses are not affected");
        assert_eq!(limiter.check(ip("10.0.0.1"), start + Duration::from_secs(19)), Err(Limited));
        assert_eq!(limiter.check(ip("10.0.0.1"), start + Duration::from_secs(21)), Ok(()));
    }

    #[test]
    fn peeking_takes_no_token() {
        let start = Instant::now();
        let limiter = RateLimiter::new(2, start);
        for _ in 0..10 {
            assert_eq!(limiter.peek(ip("10.0.0.1"), start), Ok(()));
        }
        assert_eq!(limiter.check(ip("10.0.0.1"), start), Ok(()));
        assert_eq!(limiter.check(ip("10.0.0.1"), start), Ok(()));
        assert_eq!(limiter.peek(ip("10.0.0.1"), start), Err(Limited));
        assert_eq!(limiter.peek(ip("10.0.0.1"), start + Duration::from_secs(30)), Ok(()));
    }

    #[test]
    fn ipv6_addresses_share_their_slash_64() {
        let start = Instant::now();
        let limiter = RateLimiter::new(1, start);
        assert_eq!(limiter.check(ip("2001:db8::1"), start), Ok(()));
        assert_eq!(limiter.check(ip("2001:db8::ffff:2"), start), Err(Limited));
        assert_eq!(limiter.check(ip("2001:db8:0:1::1"), start), Ok(()));
    }

    #[test]
    fn zero_means_unlimited_and_full_buckets_are_forgotten() {
        let start = Instant::now();
        assert!((0..1000).all(|_| RateLimiter::new(0, start).check(ip("10.0.0.1"), start).is_ok()));
        let limiter = RateLimiter::new(5, start);
        assert_eq!(limiter.check(ip("10.0.0.1"), start), Ok(()));
        assert_eq!(limiter.tracked(), 1);
        assert_eq!(limiter.check(ip("10.0.0.2"), start + SWEEP_EVERY), Ok(()));
        assert_eq!(limiter.tracked(), 1, "the refilled bucket of 10.0.0.1 was dropped");
    }
}
