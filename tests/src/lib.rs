//! The end-to-end harness: a real relay on loopback (in-process) and real `fairdeck --script` processes.
//!
//! The `fairdeck` binary belongs to another package, so Cargo gives this crate no `CARGO_BIN_EXE_fairdeck`:
//! [`fairdeck_binary`] asks the Cargo that runs the tests to build it (once per test binary, a no-op when
//! `cargo test --workspace` already did) and takes the path Cargo reports. Every wait is bounded, so a
//! failure reports the events seen instead of hanging.

use std::ffi::{OsStr, OsString};
use std::io::{BufRead, BufReader, Write};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use serde_json::Value;

pub mod cluster;
pub mod tls;

/// Set-up shuffles two 60-card libraries under proof: generous for slow CI machines.
pub const TIMEOUT: Duration = Duration::from_secs(120);

/// The grace, in seconds, before `forfeit` may claim a game against an absent opponent, in every `fairdeck` the
/// tests start (`FAIRDECK_FORFEIT_GRACE_SECS`): a test cannot wait the real minute.
pub const FORFEIT_GRACE_SECS: u64 = 5;

/// The workspace's root directory.
fn workspace_root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// A sample deck of the client's tests, by file name (such as `burn.txt`).
pub fn deck(file_name: &str) -> PathBuf {
    workspace_root().join("client/tests/decks").join(file_name)
}

/// `burn.txt` after sideboarding, written into `dir`: two Skullcracks swapped for the two Deflecting Palms of
/// its sideboard, the same 75 cards.
pub fn sideboarded_burn(dir: &Path) -> PathBuf {
    let burn = std::fs::read_to_string(deck("burn.txt")).expect("read burn.txt");
    let sideboarded = burn
        .replace("4x Skullcrack", "2x Skullcrack\n2 Deflecting Palm")
        .replace("2 Deflecting Palm\n3 Roiling Vortex", "2 Skullcrack\n3 Roiling Vortex");
    assert_ne!(sideboarded, burn, "burn.txt has the lines swapped");
    let file = dir.join("burn-sideboarded.txt");
    std::fs::write(&file, sideboarded).expect("write the sideboarded deck");
    file
}

/// A deck of the repository's `examples/`, by file name (such as `krenko-commander.txt`).
pub fn example(file_name: &str) -> PathBuf {
    workspace_root().join("examples").join(file_name)
}

/// The `fairdeck` binary of this workspace, built with the tests' profile on first use; or the one
/// `FAIRDECK_BINARY` names, which the measuring tools use to compare two builds in alternating runs.
///
/// Panics (failing the test) with Cargo's output when the build fails.
pub fn fairdeck_binary() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| match std::env::var_os("FAIRDECK_BINARY") {
        Some(path) => PathBuf::from(path),
        None => build_binary("fairdeck"),
    })
}

/// A command running [`fairdeck_binary`] as a user without configuration would: no configuration of the user
/// running the tests (a default relay or name, `untap_draw`, a suite) reaches it. `XDG_CONFIG_HOME` names a
/// folder that does not exist, and a missing configuration file is an empty one.
pub fn fairdeck_command() -> Command {
    let mut command = Command::new(fairdeck_binary());
    command
        .env_remove("FAIRDECK_CONFIG")
        .env_remove("FAIRDECK_RELAY")
        .env("XDG_CONFIG_HOME", Path::new(env!("CARGO_MANIFEST_DIR")).join("no-config"));
    command
}

/// The `fairdeck-relay` binary of this workspace, built with the tests' profile on first use.
pub fn relay_binary() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| build_binary("fairdeck-relay"))
}

/// Whether Cargo sets the variable `name` for the crate it builds or runs, as opposed to configuring Cargo itself.
fn set_for_the_running_crate(name: &str) -> bool {
    name.starts_with("CARGO_PKG_")
        || name.starts_with("CARGO_BIN_EXE_")
        || matches!(
            name,
            "CARGO_MANIFEST_DIR"
                | "CARGO_MANIFEST_PATH"
                | "CARGO_MANIFEST_LINKS"
                | "CARGO_CRATE_NAME"
                | "CARGO_BIN_NAME"
                | "CARGO_PRIMARY_PACKAGE"
                | "CARGO_TARGET_TMPDIR"
                | "OUT_DIR"
        )
}

/// Builds both programs the tests run, `fairdeck` and `fairdeck-relay`, and returns `bin`. They are built as
/// `cargo test --workspace` builds them: with every package's tests selected, so the tests' features are unified
/// the same way and the programs it already built are fresh. Built for their packages alone, ring, rustls, axum
/// and the crates above them were compiled a second time with other features.
fn build_binary(bin: &str) -> PathBuf {
    // Cargo sets CARGO for the tests it runs; the one that compiled this crate is the fallback.
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| env!("CARGO").into());
    let mut command = Command::new(cargo);
    // What Cargo set for the crate running this (a test, a tool under `cargo run`) is not the build's: a build
    // script that reads it (ring's reads CARGO_MANIFEST_DIR and CARGO_PKG_*) would run again, and every crate
    // above it be rebuilt, here and once more in the next plain build.
    for (name, _) in std::env::vars_os() {
        if name.to_str().is_some_and(set_for_the_running_crate) {
            command.env_remove(name);
        }
    }
    command
        .args(["build", "--workspace", "--bins", "--tests", "--message-format", "json-render-diagnostics"])
        .arg("--manifest-path")
        .arg(workspace_root().join("Cargo.toml"))
        .stderr(Stdio::inherit());
    if !cfg!(debug_assertions) {
        command.arg("--release");
    }
    let output = command.output().unwrap_or_else(|e| panic!("run cargo build for {bin}: {e}"));
    assert!(output.status.success(), "cargo build of {bin} failed ({})", output.status);
    // One JSON message per line; the executable is in the `compiler-artifact` of the binary.
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|message| message["reason"] == "compiler-artifact" && message["target"]["name"] == bin)
        // The package's unit-test program has the same name: the program is the one not built for tests.
        .filter(|message| message["profile"]["test"] == false && message["target"]["kind"][0] == "bin")
        .find_map(|message| message["executable"].as_str().map(PathBuf::from))
        .unwrap_or_else(|| panic!("cargo build reported no {bin} executable"))
}

/// Runs `fairdeck ARGS --deck burn.txt --script --relay URL` with no input (so it quits as soon as it can)
/// to its end: its exit code and its last event.
pub fn run_once(args: &[&str], url: &str) -> (Option<i32>, Value) {
    let data = tempfile::tempdir().expect("temp dir");
    let output = fairdeck_command()
        .args(args)
        .arg("--deck")
        .arg(deck("burn.txt"))
        .args(["--script", "--relay", url])
        .env("XDG_DATA_HOME", data.path())
        .stdin(Stdio::null())
        .output()
        .expect("run fairdeck");
    let stdout = String::from_utf8(output.stdout).expect("UTF-8 events");
    let last = stdout.lines().last().unwrap_or_else(|| panic!("no event; exit {}", output.status));
    (output.status.code(), serde_json::from_str(last).unwrap_or_else(|e| panic!("not JSON ({e}): {last}")))
}

/// A relay served by a runtime of its own on loopback; dropping it stops the relay.
pub struct Relay {
    addr: SocketAddr,
    shutdown: fairdeck_relay::ShutdownHandle,
    task: tokio::task::JoinHandle<Result<(), fairdeck_relay::RelayError>>,
    // Dropping the runtime stops the relay; the directory holds its statistics and hand-over files.
    runtime: tokio::runtime::Runtime,
    dir: tempfile::TempDir,
    behind_proxy: bool,
}

impl Relay {
    /// Starts a relay on a free loopback port.
    pub fn start() -> Relay {
        Relay::start_with(false)
    }

    /// Starts a relay as operators run it behind Caddy: client addresses from `X-Forwarded-For`.
    pub fn start_behind_proxy() -> Relay {
        Relay::start_with(true)
    }

    fn start_with(behind_proxy: bool) -> Relay {
        let runtime = tokio::runtime::Runtime::new().expect("runtime");
        let dir = tempfile::tempdir().expect("temp dir");
        let (addr, shutdown, task) = serve(&runtime, "127.0.0.1:0".parse().unwrap(), &dir, behind_proxy);
        Relay { addr, shutdown, task, runtime, dir, behind_proxy }
    }

    /// The URL clients connect to.
    pub fn url(&self) -> String {
        format!("ws://{}/v1", self.addr)
    }

    /// Stops the relay as on SIGTERM (rooms handed over to its data directory) and starts a new one on
    /// the same address, which takes the rooms back.
    pub fn restart(&mut self) {
        self.shutdown.shutdown();
        let task = std::mem::replace(&mut self.task, self.runtime.spawn(async { Ok(()) }));
        self.runtime.block_on(task).expect("join").expect("relay stopped cleanly");
        let (addr, shutdown, task) = serve(&self.runtime, self.addr, &self.dir, self.behind_proxy);
        assert_eq!(addr, self.addr);
        self.shutdown = shutdown;
        self.task = task;
    }
}

type Served =
    (SocketAddr, fairdeck_relay::ShutdownHandle, tokio::task::JoinHandle<Result<(), fairdeck_relay::RelayError>>);

fn serve(runtime: &tokio::runtime::Runtime, addr: SocketAddr, dir: &tempfile::TempDir, behind_proxy: bool) -> Served {
    runtime.block_on(async {
        let builder = fairdeck_relay::Relay::builder(addr, dir.path()).trust_forwarded_for(behind_proxy);
        let mut relay = builder.build().await.expect("relay");
        let addr = relay.bind().await.expect("bind");
        let shutdown = relay.shutdown_handle();
        (addr, shutdown, tokio::spawn(relay.serve()))
    })
}

/// A relay as operators run it: the `fairdeck-relay` program in a process of its own, on a free loopback port,
/// with a data directory that outlives the process (so it can be killed and started again on the same port).
pub struct RelayProcess {
    child: Option<Child>,
    addr: SocketAddr,
    dir: tempfile::TempDir,
    /// Flags after the address and the data directory, given again on every start.
    args: Vec<OsString>,
}

impl RelayProcess {
    /// Starts the relay and waits until it accepts connections.
    pub fn start() -> RelayProcess {
        RelayProcess::start_with(Vec::new())
    }

    /// Starts the relay with `args` after its address and data directory (such as `--redis-url URL`), and waits
    /// until it accepts connections.
    pub fn start_with(args: Vec<OsString>) -> RelayProcess {
        let addr = SocketAddr::from(([127, 0, 0, 1], free_port()));
        let mut relay = RelayProcess { child: None, addr, dir: tempfile::tempdir().expect("temp dir"), args };
        relay.start_again();
        relay
    }

    /// The URL clients connect to.
    pub fn url(&self) -> String {
        format!("ws://{}/v1", self.addr)
    }

    /// Its listening address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Kills the relay with SIGKILL: no hand-over file is written, every room is lost.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            child.kill().expect("SIGKILL the relay");
            child.wait().expect("reap the relay");
        }
    }

    /// Stops the relay with SIGTERM, as systemd does, and waits until it has exited cleanly (its rooms handed
    /// over).
    pub fn terminate(&mut self) {
        let Some(mut child) = self.child.take() else { return };
        let pid = libc::pid_t::try_from(child.id()).expect("a pid fits pid_t");
        // SAFETY: kill(2) has no memory effects; the pid is our own child's, not reaped yet, so not reused.
        let sent = unsafe { libc::kill(pid, libc::SIGTERM) };
        assert_eq!(sent, 0, "SIGTERM the relay: {}", std::io::Error::last_os_error());
        let deadline = Instant::now() + TIMEOUT;
        let status = loop {
            if let Some(status) = child.try_wait().expect("wait for the relay") {
                break status;
            }
            assert!(Instant::now() < deadline, "the relay did not exit after SIGTERM:\n{}", self.log());
            std::thread::sleep(Duration::from_millis(50));
        };
        assert!(status.success(), "the relay exited with {status} after SIGTERM:\n{}", self.log());
    }

    /// Starts the relay (again) on the same port and data directory, and waits until it accepts connections.
    pub fn start_again(&mut self) {
        assert!(self.child.is_none(), "the relay is running");
        let log = append_log(&self.dir.path().join("relay.log"));
        let child = Command::new(relay_binary())
            .arg("--listen")
            .arg(self.addr.to_string())
            .arg("--data-dir")
            .arg(self.dir.path())
            .args(&self.args)
            // Every player of a test comes from loopback: no limit per address.
            .env("FAIRDECK_RELAY_RESUMES_PER_MINUTE", "10000")
            .env("FAIRDECK_RELAY_ROOMS_PER_MINUTE", "10000")
            .env("FAIRDECK_RELAY_JOINS_PER_MINUTE", "10000")
            .env("FAIRDECK_RELAY_CONNECTIONS_PER_ADDRESS", "0")
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("relay log"))
            .stderr(log)
            .spawn()
            .expect("start fairdeck-relay");
        self.child = Some(child);
        let deadline = Instant::now() + TIMEOUT;
        while std::net::TcpStream::connect(self.addr).is_err() {
            assert!(Instant::now() < deadline, "the relay did not listen on {}:\n{}", self.addr, self.log());
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// What the relay wrote to its standard output and error, over all its starts: for failure messages.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("relay.log")).unwrap_or_default()
    }

    /// The value of metric `name` on the relay's `/metrics` page, summed over its labels (0 when absent).
    pub fn metric(&self, name: &str) -> f64 {
        metric_value(&http_get(self.addr, "/metrics"), name)
    }
}

/// The body of `GET PATH` from a plain HTTP server at `addr`; panics unless it answers 200.
pub fn http_get(addr: SocketAddr, path: &str) -> String {
    let mut response = String::new();
    // HTTP/1.0: the server closes the connection after a body that is never chunked.
    std::net::TcpStream::connect_timeout(&addr, Duration::from_secs(5))
        .and_then(|mut stream| {
            stream.set_read_timeout(Some(Duration::from_secs(10)))?;
            write!(stream, "GET {path} HTTP/1.0\r\nHost: {addr}\r\n\r\n")?;
            std::io::Read::read_to_string(&mut stream, &mut response)
        })
        .unwrap_or_else(|e| panic!("GET http://{addr}{path}: {e}"));
    let (head, body) = response.split_once("\r\n\r\n").unwrap_or_else(|| panic!("no HTTP response: {response}"));
    assert!(head.starts_with("HTTP/1.0 200") || head.starts_with("HTTP/1.1 200"), "GET {path}: {head}");
    body.to_string()
}

/// The value of metric `name` in a Prometheus text page, summed over its label sets (0 when absent).
pub fn metric_value(page: &str, name: &str) -> f64 {
    page.lines()
        .filter(|line| !line.starts_with('#'))
        .filter_map(|line| {
            let (series, value) = line.rsplit_once(' ')?;
            let metric = series.split_once('{').map_or(series, |(metric, _)| metric);
            (metric == name).then(|| value.parse::<f64>().unwrap_or_else(|e| panic!("{line}: {e}")))
        })
        .sum()
}

/// A server's log file, opened for appending over its successive starts.
pub(crate) fn append_log(path: &Path) -> std::fs::File {
    let log = std::fs::OpenOptions::new().create(true).append(true).open(path);
    log.unwrap_or_else(|e| panic!("open {}: {e}", path.display()))
}

/// A port free on loopback: the kernel's choice, released for a server to take.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).expect("free port").port()
}

impl Drop for RelayProcess {
    fn drop(&mut self) {
        self.kill();
    }
}

/// One `fairdeck --script` process: commands to its standard input, its JSON events read as they come.
pub struct Player {
    name: &'static str,
    child: Child,
    stdin: Option<ChildStdin>,
    events: Receiver<Value>,
    /// Its `XDG_DATA_HOME`, where its games are saved; shared with the process that resumes them.
    data: Arc<tempfile::TempDir>,
    /// Every event consumed so far, in order.
    pub seen: Vec<Value>,
}

impl Player {
    /// Starts `fairdeck ARGS --deck burn.txt --script --relay URL` (ARGS: `host`, or `join CODE`).
    pub fn spawn(name: &'static str, relay: &Relay, args: &[&str]) -> Player {
        Player::spawn_with_deck(name, relay, &deck("burn.txt"), args)
    }

    /// A host and a guest of a new game on `relay`, each with burn.txt, once both said `ready`.
    pub fn ready_pair(relay: &Relay) -> (Player, Player) {
        let mut host = Player::spawn("host", relay, &["host"]);
        let code = host.expect_event("code")["code"].as_str().unwrap().to_string();
        let mut guest = Player::spawn("guest", relay, &["join", &code]);
        for player in [&mut host, &mut guest] {
            player.expect_event("ready");
        }
        (host, guest)
    }

    /// Starts `fairdeck ARGS --deck DECK --script --relay URL`.
    pub fn spawn_with_deck(name: &'static str, relay: &Relay, deck: &Path, args: &[&str]) -> Player {
        Player::spawn_at(name, &relay.url(), deck, args)
    }

    /// Starts `fairdeck ARGS --deck DECK --script --relay URL` for a relay at any URL (`wss://` through a proxy).
    pub fn spawn_at(name: &'static str, url: &str, deck: &Path, args: &[&str]) -> Player {
        let deck = deck.to_str().expect("test paths are UTF-8");
        let mut args = args.to_vec();
        args.extend(["--deck", deck]);
        Player::spawn_bringing(name, url, &args)
    }

    /// Starts `fairdeck ARGS --script --relay URL`, ARGS naming what the player brings (`--deck`, or `--pool` and
    /// the host's `--limited`).
    pub fn spawn_bringing(name: &'static str, url: &str, args: &[&str]) -> Player {
        let mut command: Vec<OsString> = args.iter().map(OsString::from).collect();
        command.extend(["--script".into(), "--relay".into(), url.into()]);
        let mut data = tempfile::tempdir().expect("temp dir");
        // To look at a failed test's saved games afterwards.
        if std::env::var_os("FAIRDECK_TEST_KEEP").is_some() {
            data.disable_cleanup(true);
            eprintln!("{name}: data in {}", data.path().display());
        }
        Player::launch(name, command, Arc::new(data))
    }

    /// Starts `fairdeck ARGS --script` with no relay given: ARGS say where the game goes (`host --serve ADDR:PORT`).
    pub fn spawn_serving(name: &'static str, args: &[&str]) -> Player {
        let mut command: Vec<OsString> = args.iter().map(OsString::from).collect();
        command.push("--script".into());
        Player::launch(name, command, Arc::new(tempfile::tempdir().expect("temp dir")))
    }

    /// Starts `fairdeck resume --script ARGS` on the saved games of `data` (another player's [`Player::data`]).
    pub fn resume(name: &'static str, data: Arc<tempfile::TempDir>, args: &[&str]) -> Player {
        let mut command: Vec<OsString> = vec!["resume".into(), "--script".into()];
        command.extend(args.iter().map(OsString::from));
        Player::launch(name, command, data)
    }

    /// Starts `fairdeck practice --deck DECK --script` (a game against the built-in opponent, over a relay of
    /// its own), with `temp` as its temporary folder (`TMPDIR`).
    pub fn practice(name: &'static str, deck: &Path, temp: &Path) -> Player {
        Player::practice_bringing(name, &["--deck".as_ref(), deck.as_os_str()], temp)
    }

    /// Starts `fairdeck practice --script` with `args` (what the player brings: `--deck FILE`, or `--pool FILE
    /// --limited sealed ...`), with `temp` as its temporary folder (`TMPDIR`).
    pub fn practice_bringing(name: &'static str, args: &[&OsStr], temp: &Path) -> Player {
        let mut command = fairdeck_command();
        command.args(["practice", "--script"]).args(args).env("TMPDIR", temp);
        Player::launch_command(name, command, Arc::new(tempfile::tempdir().expect("temp dir")))
    }

    fn launch(name: &'static str, args: Vec<OsString>, data: Arc<tempfile::TempDir>) -> Player {
        let mut command = fairdeck_command();
        command.args(args);
        Player::launch_command(name, command, data)
    }

    fn launch_command(name: &'static str, mut command: Command, data: Arc<tempfile::TempDir>) -> Player {
        let mut child = command
            .env("XDG_DATA_HOME", data.path())
            .env("FAIRDECK_FORFEIT_GRACE_SECS", FORFEIT_GRACE_SECS.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start fairdeck");
        let stdout = child.stdout.take().unwrap();
        let (tx, events) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let value: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
                if tx.send(value).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        Player { name, child, stdin, events, data, seen: Vec::new() }
    }

    /// Its data directory, where its games are saved.
    pub fn data(&self) -> Arc<tempfile::TempDir> {
        self.data.clone()
    }

    /// The saved games of this player (`.fairdeck` files; not the pid files beside them).
    pub fn saves(&self) -> Vec<PathBuf> {
        let dir = self.data.path().join("fairdeck/games");
        let mut saves: Vec<PathBuf> = std::fs::read_dir(dir)
            .map(|entries| entries.filter_map(Result::ok).map(|e| e.path()).collect())
            .unwrap_or_default();
        saves.retain(|path| path.extension().is_some_and(|ext| ext == "fairdeck"));
        saves.sort();
        saves
    }

    /// Kills the process with SIGKILL, as a crash would, and reaps it.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// The process id, to read its resource use.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Writes one command line.
    pub fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        // A player that exited cannot take the command: say what it saw before.
        // One write for the line and its end: `writeln!` makes two, and the player would wake for each.
        let written = stdin.write_all(format!("{line}\n").as_bytes()).and_then(|()| stdin.flush());
        written.unwrap_or_else(|e| panic!("{}: cannot send {line:?} ({e}); saw {:#?}", self.name, self.seen));
    }

    /// The next event (after those already consumed) matching `pred`.
    pub fn expect(&mut self, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.events.recv_timeout(left) {
                Ok(event) => {
                    self.seen.push(event.clone());
                    if pred(&event) {
                        return event;
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    panic!("{}: no {what} within {TIMEOUT:?}; saw {:#?}", self.name, self.seen)
                }
                Err(RecvTimeoutError::Disconnected) => {
                    panic!("{}: exited before {what}; saw {:#?}", self.name, self.seen)
                }
            }
        }
    }

    /// The next event named `event`.
    pub fn expect_event(&mut self, event: &str) -> Value {
        self.expect(event, |v| v["event"] == event)
    }

    /// Sends `table` and returns the table event.
    pub fn table(&mut self) -> Value {
        self.send("table");
        self.expect_event("table")
    }

    /// Sends `wait` and waits for `idle`.
    pub fn wait_idle(&mut self) {
        self.send("wait");
        self.expect_event("idle");
    }

    /// What this player learned card `id` to be.
    pub fn learned_name(&self, id: u64) -> Option<String> {
        self.seen
            .iter()
            .find(|v| v["event"] == "learned" && v["card"] == id)
            .and_then(|v| v["name"].as_str().map(str::to_string))
    }

    /// Waits for the process to end, then collects its remaining events into `seen`.
    pub fn wait_exit(&mut self) -> ExitStatus {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                // Collect the remaining events for the assertions.
                while let Ok(event) = self.events.recv_timeout(Duration::from_secs(2)) {
                    self.seen.push(event);
                }
                return status;
            }
            assert!(Instant::now() < deadline, "{}: did not exit; saw {:#?}", self.name, self.seen);
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Player {
    fn drop(&mut self) {
        // Only our own child, by its handle: a failed test must not leave it running.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The `[count, name]` pairs of a `pool` event, one name per copy.
pub fn pool_cards(pool: &Value) -> Vec<String> {
    let mut cards = Vec::new();
    for pair in pool["cards"].as_array().expect("pool cards") {
        let count = pair[0].as_u64().unwrap();
        cards.extend(std::iter::repeat_n(pair[1].as_str().unwrap().to_string(), count as usize));
    }
    cards
}

/// The card ids of a zone (such as `host hand`) in a table event.
pub fn zone_cards(table: &Value, zone: &str) -> Vec<u64> {
    table["zones"][zone]["cards"]
        .as_array()
        .unwrap_or_else(|| panic!("no zone {zone}"))
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect()
}

/// The table without the `me` field, which differs by design.
pub fn public(table: &Value) -> (Value, Value, Value, Value, Value) {
    let fields = ["zones", "players", "cards", "applied", "turn"].map(|field| table[field].clone());
    let [zones, players, cards, applied, turn] = fields;
    (zones, players, cards, applied, turn)
}

/// The cards the table counts for both players, in every zone: 120 for two 60-card decks when nothing is lost
/// and nothing applied twice.
pub fn card_total(table: &Value) -> usize {
    ["host", "guest"]
        .iter()
        .flat_map(|seat| ["library", "hand", "graveyard", "exile", "play"].map(|zone| format!("{seat} {zone}")))
        .map(|zone| zone_cards(table, &zone).len())
        .sum()
}

/// Waits until nothing is in flight either way (the host, the guest, the host again idle), then checks that both
/// tables are equal and that neither player has seen an alert. The host's table.
pub fn settle(host: &mut Player, guest: &mut Player) -> Value {
    host.wait_idle();
    guest.wait_idle();
    host.wait_idle();
    let table = host.table();
    assert_eq!(public(&table), public(&guest.table()), "both tables are equal");
    let alerts: Vec<&Value> = host.seen.iter().chain(&guest.seen).filter(|e| e["event"] == "alert").collect();
    assert!(alerts.is_empty(), "no alert: {alerts:#?}");
    table
}

/// `fairdeck verify JOURNAL` finds no breach of the protocol.
pub fn verify_clean(journal: &Path) {
    let output = fairdeck_command().arg("verify").arg(journal).output().expect("run fairdeck verify");
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && text.contains("no breach"),
        "verify {}: {}\n{text}{}",
        journal.display(),
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Ends the game (each audits the other's deck) and quits both: both tables are equal to the end, both exit cleanly,
/// neither saw an alert, and both `journals` (host, guest) verify clean.
pub fn end_and_verify(mut host: Player, mut guest: Player, journals: [&Path; 2]) {
    host.send("end");
    guest.send("end");
    host.expect_event("audited");
    guest.expect_event("audited");
    settle(&mut host, &mut guest);
    for player in [&mut host, &mut guest] {
        player.send("quit");
        assert!(player.wait_exit().success());
    }
    assert!(host.seen.iter().chain(&guest.seen).all(|event| event["event"] != "alert"));
    for journal in journals {
        verify_clean(journal);
    }
}
