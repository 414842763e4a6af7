//! A cluster on loopback for the load tools: one `redis-server` and `fairdeck-relay` instances sharing it, each a
//! child process on a port of its own, with its data and its log in one temporary directory. Any of them can be
//! killed with SIGKILL and started again on the same port, as an operator's machine would restart it.

use std::fs::OpenOptions;
use std::io::Write;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

use anyhow::{Context, bail};
use fairdeck_relay::Limits;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// How long a process gets to accept connections after it starts.
const START_TIMEOUT: Duration = Duration::from_secs(60);

/// A free loopback port: the kernel's choice, released for the child process to take.
fn free_port() -> anyhow::Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// Waits until something accepts TCP connections on `addr`, or `child` exits.
async fn wait_listening(addr: SocketAddr, child: &mut Child, what: &str) -> anyhow::Result<()> {
    let deadline = Instant::now() + START_TIMEOUT;
    while TcpStream::connect(addr).await.is_err() {
        if let Some(status) = child.try_wait()? {
            bail!("{what} exited at start ({status})");
        }
        if Instant::now() > deadline {
            bail!("{what} did not listen on {addr} within {START_TIMEOUT:?}");
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    Ok(())
}

/// A log file that every start of a process appends to, each start marked with the time.
fn open_log(path: &Path, what: &str) -> anyhow::Result<std::fs::File> {
    let mut log = OpenOptions::new().create(true).append(true).open(path)?;
    let now = humantime::format_rfc3339_millis(SystemTime::now());
    writeln!(log, "=== fairdeck-relay-load: {what} started at {now}")?;
    Ok(log)
}

/// Kills `child` with SIGKILL (no hand-over, nothing flushed) and reaps it.
fn kill(child: &mut Option<Child>) -> anyhow::Result<()> {
    if let Some(mut running) = child.take() {
        running.kill()?;
        running.wait()?;
    }
    Ok(())
}

/// The environment that gives a relay program the limits of [`Cluster::instance_limits`] that a load changes.
fn instance_environment(limits: &Limits) -> [(&'static str, String); 7] {
    [
        ("FAIRDECK_RELAY_ROOMS_PER_MINUTE", limits.rooms_per_minute.to_string()),
        ("FAIRDECK_RELAY_JOINS_PER_MINUTE", limits.joins_per_minute.to_string()),
        ("FAIRDECK_RELAY_RESUMES_PER_MINUTE", limits.resumes_per_minute.to_string()),
        ("FAIRDECK_RELAY_CONNECTIONS_PER_ADDRESS", limits.connections_per_address.to_string()),
        ("FAIRDECK_RELAY_MAX_ROOMS", limits.max_rooms.to_string()),
        ("FAIRDECK_RELAY_MAX_CONNECTIONS", limits.max_connections.to_string()),
        ("FAIRDECK_RELAY_MAX_HANDSHAKES", limits.max_handshakes.to_string()),
    ]
}

/// `redis-server` on a loopback port, keeping nothing on disk: a restart loses every key.
pub struct Redis {
    port: u16,
    dir: PathBuf,
    child: Option<Child>,
}

impl Redis {
    async fn start(dir: &Path) -> anyhow::Result<Redis> {
        let mut redis = Redis { port: free_port()?, dir: dir.to_path_buf(), child: None };
        redis.start_again().await?;
        Ok(redis)
    }

    /// The URL the relays take (`--redis-url`).
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// Whether the process runs (it was not killed since its last start).
    pub fn is_running(&self) -> bool {
        self.child.is_some()
    }

    /// Kills Redis with SIGKILL: every key is lost.
    pub fn kill(&mut self) -> anyhow::Result<()> {
        kill(&mut self.child)
    }

    /// Starts Redis (again) on its port, empty, and waits until it accepts connections.
    pub async fn start_again(&mut self) -> anyhow::Result<()> {
        anyhow::ensure!(self.child.is_none(), "redis-server is running");
        let log = open_log(&self.dir.join("redis.log"), "redis-server")?;
        let mut child = Command::new("redis-server")
            .args(["--port", &self.port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
            .arg("--dir")
            .arg(&self.dir)
            .stdin(Stdio::null())
            .stdout(log.try_clone()?)
            .stderr(log)
            .spawn()
            .context("cannot start redis-server (scripts/ensure-test-tools.sh installs it)")?;
        let started = wait_listening(SocketAddr::from(([127, 0, 0, 1], self.port)), &mut child, "redis-server").await;
        self.child = Some(child);
        started
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        let _ = self.kill();
    }
}

/// One `fairdeck-relay` instance of the cluster: its own port and data directory, Redis shared.
pub struct Instance {
    /// Its number in the cluster, from 1, as the reports and its log's name say.
    pub number: usize,
    addr: SocketAddr,
    data: PathBuf,
    log: PathBuf,
    redis_url: String,
    child: Option<Child>,
}

impl Instance {
    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The URL players connect to.
    pub fn url(&self) -> String {
        format!("ws://{}/v1", self.addr)
    }

    /// Its process id while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// Whether the process runs (it was not killed since its last start).
    pub fn is_running(&self) -> bool {
        self.child.is_some()
    }

    /// Kills the instance with SIGKILL: no hand-over file, its rooms live on only in Redis.
    pub fn kill(&mut self) -> anyhow::Result<()> {
        kill(&mut self.child)
    }

    /// Starts the instance (again) on its port and data directory, and waits until it accepts connections.
    pub async fn start_again(&mut self) -> anyhow::Result<()> {
        anyhow::ensure!(self.child.is_none(), "instance {} is running", self.number);
        let what = format!("fairdeck-relay instance {}", self.number);
        let log = open_log(&self.log, &what)?;
        let mut child = Command::new(fairdeck_e2e::relay_binary())
            .arg("--listen")
            .arg(self.addr.to_string())
            .arg("--data-dir")
            .arg(&self.data)
            .args(["--redis-url", &self.redis_url])
            .envs(instance_environment(&Cluster::instance_limits()))
            .stdin(Stdio::null())
            .stdout(log.try_clone()?)
            .stderr(log)
            .spawn()
            .context("cannot start fairdeck-relay")?;
        let started = wait_listening(self.addr, &mut child, &what).await;
        self.child = Some(child);
        started
    }

    /// The value of a metric without labels on the instance's `/metrics`, or `None` if it is not there (yet).
    pub async fn metric(&self, name: &str) -> anyhow::Result<Option<f64>> {
        let mut stream = TcpStream::connect(self.addr).await?;
        stream.write_all(b"GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n").await?;
        let mut response = String::new();
        tokio::time::timeout(Duration::from_secs(10), stream.read_to_string(&mut response))
            .await
            .context("/metrics did not answer in 10 s")??;
        Ok(response.lines().find_map(|line| {
            let (metric, value) = line.split_once(' ')?;
            if metric == name { value.trim().parse().ok() } else { None }
        }))
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        let _ = self.kill();
    }
}

/// Redis and the relay instances sharing it, in one temporary directory (data directories and logs).
pub struct Cluster {
    pub redis: Redis,
    pub instances: Vec<Instance>,
    path: PathBuf,
    // Dropped last: the processes above are killed before their directory goes. `None` once kept.
    dir: Option<tempfile::TempDir>,
}

impl Cluster {
    /// Each instance's limits: production limits, except those that would refuse a load generator opening tens
    /// of thousands of connections from a few addresses, and its players' many resumes and rendezvous after
    /// each kill. The relay program fits its connection caps under its open-file limit.
    pub fn instance_limits() -> Limits {
        Limits {
            rooms_per_minute: 0,
            joins_per_minute: 0,
            resumes_per_minute: 0,
            connections_per_address: 0,
            max_rooms: 100_000,
            max_connections: 200_000,
            ..Limits::default()
        }
    }

    /// Starts Redis and `instances` relays, and waits until every relay says it reaches Redis.
    pub async fn start(instances: usize) -> anyhow::Result<Cluster> {
        let dir = tempfile::tempdir()?;
        let redis = Redis::start(dir.path()).await?;
        let mut cluster = Cluster { instances: Vec::new(), redis, path: dir.path().to_path_buf(), dir: Some(dir) };
        for number in 1..=instances {
            let data = cluster.path.join(format!("instance-{number}"));
            std::fs::create_dir(&data)?;
            let mut instance = Instance {
                number,
                addr: SocketAddr::from(([127, 0, 0, 1], free_port()?)),
                data,
                log: cluster.path.join(format!("instance-{number}.log")),
                redis_url: cluster.redis.url(),
                child: None,
            };
            instance.start_again().await?;
            cluster.instances.push(instance);
        }
        cluster.wait_joined().await?;
        Ok(cluster)
    }

    /// Waits until every running instance reports Redis up (`fairdeck_relay_cluster_redis_up` 1).
    pub async fn wait_joined(&self) -> anyhow::Result<()> {
        let deadline = Instant::now() + START_TIMEOUT;
        for instance in self.instances.iter().filter(|instance| instance.is_running()) {
            while instance.metric("fairdeck_relay_cluster_redis_up").await? != Some(1.0) {
                if Instant::now() > deadline {
                    bail!("instance {} did not report Redis up within {START_TIMEOUT:?}", instance.number);
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
        Ok(())
    }

    /// Kills every process and keeps the directory of their logs and data after the run, to read the logs of a
    /// failed one; returns its path.
    pub fn keep_dir(&mut self) -> anyhow::Result<&Path> {
        for instance in &mut self.instances {
            instance.kill()?;
        }
        self.redis.kill()?;
        self.dir.take().map(tempfile::TempDir::keep);
        Ok(&self.path)
    }
}
