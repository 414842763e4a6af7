//! Relay instances that share their rooms through Redis, as operators run several behind one domain: a real
//! `redis-server` on loopback, `fairdeck-relay` processes pointed at it (each with its own data directory), and
//! Caddy in front of them all. Each piece can be killed and started again on the same port.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::tls::{Caddy, TestCa};
use crate::{RelayProcess, TIMEOUT, append_log, free_port};

/// Connections forwarded to the instance that holds their room, counted where the player connected.
pub const LINKS: &str = "fairdeck_relay_cluster_links_total";
/// Rooms an instance took over from one whose lease expired.
pub const ADOPTIONS: &str = "fairdeck_relay_cluster_adoptions_total";
/// 1 while the instance reaches Redis, else 0.
pub const REDIS_UP: &str = "fairdeck_relay_cluster_redis_up";

/// A `redis-server` on a free loopback port that keeps nothing on disk, so that a restart loses everything, as a
/// crash of a Redis without persistence would.
pub struct RedisServer {
    child: Option<Child>,
    port: u16,
    dir: tempfile::TempDir,
}

impl RedisServer {
    /// Starts Redis (the `redis-server` on PATH; `scripts/ensure-test-tools.sh` installs it) and waits until it
    /// answers PING.
    pub fn start() -> RedisServer {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut redis = RedisServer { child: None, port: free_port(), dir };
        redis.start_again();
        redis
    }

    /// The URL relays are given with `--redis-url`.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// Kills Redis with SIGKILL: every key is lost.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            child.kill().expect("SIGKILL redis");
            child.wait().expect("reap redis");
        }
    }

    /// Starts Redis (again) on the same port, empty, and waits until it answers PING.
    pub fn start_again(&mut self) {
        assert!(self.child.is_none(), "redis is running");
        let log = append_log(&self.dir.path().join("redis.log"));
        let child = Command::new("redis-server")
            .args(["--port", &self.port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
            .arg("--dir")
            .arg(self.dir.path())
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("redis log"))
            .stderr(log)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start redis-server ({e}): run scripts/ensure-test-tools.sh"));
        self.child = Some(child);
        let deadline = Instant::now() + TIMEOUT;
        while !self.answers_ping() {
            if let Some(status) = self.child.as_mut().and_then(|child| child.try_wait().expect("wait for redis")) {
                panic!("redis-server exited ({status}):\n{}", self.log());
            }
            assert!(Instant::now() < deadline, "redis did not answer on port {}:\n{}", self.port, self.log());
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn answers_ping(&self) -> bool {
        let Ok(mut stream) = TcpStream::connect(("127.0.0.1", self.port)) else { return false };
        let mut answer = [0u8; 7];
        stream.set_read_timeout(Some(Duration::from_secs(1))).is_ok()
            && stream.write_all(b"PING\r\n").is_ok()
            && stream.read_exact(&mut answer).is_ok()
            && &answer == b"+PONG\r\n"
    }

    /// What Redis wrote, for failure messages.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("redis.log")).unwrap_or_default()
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Relay instances sharing their rooms through one Redis, each trusting the `X-Forwarded-For` of the Caddy in
/// front of them.
pub struct Cluster {
    pub redis: RedisServer,
    pub relays: Vec<RelayProcess>,
}

impl Cluster {
    /// Starts Redis and `instances` relays pointed at it, each listening when this returns.
    pub fn start(instances: usize) -> Cluster {
        let redis = RedisServer::start();
        let relays = (0..instances)
            .map(|_| {
                RelayProcess::start_with(vec!["--redis-url".into(), redis.url().into(), "--trust-forwarded-for".into()])
            })
            .collect();
        Cluster { redis, relays }
    }

    /// Caddy over TLS (a certificate of `ca`) in front of every instance.
    pub fn caddy(&self, ca: &TestCa) -> Caddy {
        let upstreams: Vec<SocketAddr> = self.relays.iter().map(RelayProcess::addr).collect();
        Caddy::start_for(&upstreams, ca)
    }

    /// Metric `name` summed over the running instances (given by index in `running`).
    pub fn metric_sum(&self, running: &[usize], name: &str) -> f64 {
        running.iter().map(|&i| self.relays[i].metric(name)).sum()
    }

    /// Waits until every instance of `running` says that it reaches Redis (`up`), or that it does not.
    pub fn wait_redis(&self, running: &[usize], up: bool) {
        let deadline = Instant::now() + TIMEOUT;
        let expected = if up { 1.0 } else { 0.0 };
        while running.iter().any(|&i| self.relays[i].metric(REDIS_UP) != expected) {
            assert!(Instant::now() < deadline, "the relays do not say redis is up = {up}:\n{}", self.logs());
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Waits until every instance of `running` has read the others from Redis: whom it asks for a room while Redis
    /// is down.
    pub fn wait_peers(&self, running: &[usize]) {
        let deadline = Instant::now() + TIMEOUT;
        let others = running.len().saturating_sub(1) as f64;
        while running.iter().any(|&i| self.relays[i].metric("fairdeck_relay_cluster_peers") != others) {
            assert!(Instant::now() < deadline, "the relays do not know each other:\n{}", self.logs());
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Every instance's log, for failure messages.
    pub fn logs(&self) -> String {
        let logs = self.relays.iter().enumerate().map(|(i, relay)| format!("--- relay {i}:\n{}", relay.log()));
        logs.collect::<Vec<_>>().join("\n") + &format!("\n--- redis:\n{}", self.redis.log())
    }
}
