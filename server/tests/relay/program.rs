//! The `fairdeck-relay` program as an operator runs it, under the constraints of a real host: the shipped unit's
//! hidden `/proc/stat`, and a low open-file limit.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::json;
use tokio::net::TcpStream;

use crate::common::{Client, Received, http_get, metrics};

const TOKEN: &str = "operator-token-for-the-tests";

/// A `fairdeck-relay` process, stopped when dropped.
struct RelayProcess {
    child: Child,
    addr: SocketAddr,
    _data_dir: tempfile::TempDir,
}

impl RelayProcess {
    /// Starts the relay on a free loopback port through `wrapper` (a command that runs the rest of its arguments,
    /// such as `prlimit …`), with `args`; waits for it to listen.
    fn start(wrapper: &[&str], args: &[&str]) -> RelayProcess {
        let data_dir = tempfile::tempdir().unwrap();
        let mut command = Command::new(wrapper.first().copied().unwrap_or(env!("CARGO_BIN_EXE_fairdeck-relay")));
        if !wrapper.is_empty() {
            command.args(&wrapper[1..]).arg(env!("CARGO_BIN_EXE_fairdeck-relay"));
        }
        let mut child = command
            .args(["--listen", "127.0.0.1:0", "--data-dir"])
            .arg(data_dir.path())
            .args(args)
            .env("RUST_LOG", "info")
            .env("FAIRDECK_RELAY_OPERATOR_TOKEN", TOKEN)
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start fairdeck-relay");
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let addr = loop {
            let line = lines.next().expect("the relay says where it listens").unwrap();
            if let Some(rest) = line.split("addr=").nth(1) {
                break rest.split_whitespace().next().unwrap().parse().expect("an address");
            }
        };
        // Keep draining the log so that the relay never blocks on a full pipe.
        std::thread::spawn(move || lines.for_each(drop));
        RelayProcess { child, addr, _data_dir: data_dir }
    }

    fn url(&self) -> String {
        format!("ws://{}/v1", self.addr)
    }

    /// A metric's value, if the relay publishes it.
    async fn metric(&self, name: &str) -> Option<f64> {
        let text = metrics(self.addr).await;
        text.lines().find_map(|line| line.strip_prefix(name)?.strip_prefix(' ')?.trim().parse().ok())
    }
}

impl Drop for RelayProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn now() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs_f64()
}

/// Whether this host lets an unprivileged user mount in a namespace of its own (some CI sandboxes do not).
fn can_hide_proc_stat() -> bool {
    Command::new("unshare")
        .args(["-rm", "sh", "-c", "mount --bind /dev/null /proc/stat"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}

#[tokio::test]
async fn the_start_time_is_published_when_proc_stat_is_hidden() {
    if !can_hide_proc_stat() {
        eprintln!("skipped: user namespaces are not available here to hide /proc/stat");
        return;
    }
    let before = now();
    // As under the unit's ProcSubset=pid: /proc/self is there, /proc/stat (and its boot time) is not.
    let hide = ["unshare", "-rm", "sh", "-c", r#"mount --bind /dev/null /proc/stat && exec "$@""#, "sh"];
    let relay = RelayProcess::start(&hide, &[]);
    let started = relay.metric("process_start_time_seconds").await.expect("process_start_time_seconds");
    assert!(started >= before - 1.0 && started <= now(), "{before} <= {started}");
    assert!(relay.metric("process_open_fds").await.is_some(), "the rest of /proc/self is read");
}

#[tokio::test]
async fn the_soft_open_file_limit_is_raised_to_the_hard_one() {
    let relay = RelayProcess::start(&["prlimit", "--nofile=100:300", "--"], &[]);
    assert_eq!(relay.metric("process_max_fds").await, Some(300.0));
}

#[tokio::test]
async fn idle_connections_past_the_open_file_limit_do_not_lock_players_out() {
    // 128 descriptors, and no per-address cap: as if the idle connections came from many addresses.
    let limit = ["prlimit", "--nofile=128:128", "--"];
    let relay = RelayProcess::start(&limit, &["--connections-per-address", "0"]);
    let url = relay.url();
    let (mut host, mut guest, _, _, _) = Client::pair(&url).await;
    let mut idle = Vec::new();
    for _ in 0..200 {
        idle.push(TcpStream::connect(relay.addr).await.expect("the kernel accepts into the backlog"));
    }
    host.send_data(&[1; 32]).await;
    guest.expect_data(0, &[1; 32]).await;
    // A new player gets in long before the idle connections' 10 s head timeout.
    let (mut newcomer, _, _) = tokio::time::timeout(Duration::from_secs(3), Client::create(&url))
        .await
        .expect("a new player is not locked out");
    newcomer.send(json!({"type": "leave"})).await;
    assert!(matches!(newcomer.recv().await, Received::Closed(_)), "the newcomer's room ended");
    guest.send_data(&[2; 32]).await;
    host.expect_data(1, &[2; 32]).await;
    let fds = relay.metric("process_open_fds").await.expect("process_open_fds");
    assert!(fds < 128.0, "{fds} descriptors open");
    drop(idle);
}

#[tokio::test]
async fn rooms_lists_the_open_rooms_without_secrets() {
    let relay = RelayProcess::start(&[], &[]);
    let url = relay.url();
    let (_host, _guest, _nameplate, host_token, guest_token) = Client::pair(&url).await;
    let (_waiting, _, waiting_token) = Client::create(&url).await;
    let listen = relay.addr.to_string();
    let rooms = |token: Option<&str>| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_fairdeck-relay"));
        command.args(["rooms", "--listen", &listen]).env_remove("FAIRDECK_RELAY_OPERATOR_TOKEN");
        if let Some(token) = token {
            command.env("FAIRDECK_RELAY_OPERATOR_TOKEN", token);
        }
        command.output().unwrap()
    };
    let output = rooms(Some(TOKEN));
    assert!(output.status.success(), "{output:?}");
    let text = String::from_utf8(output.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4, "a header, two rooms, a count:\n{text}");
    let seats: Vec<(&str, &str)> = lines[1..3]
        .iter()
        .map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            assert_eq!(fields[4], listen, "the instance in {line}");
            (fields[2], fields[3])
        })
        .collect();
    assert!(seats.contains(&("2", "2")) && seats.contains(&("1", "1")), "{text}");
    for secret in [&host_token, &guest_token, &waiting_token] {
        assert!(!text.contains(secret.as_str()), "{secret} in\n{text}");
    }
    // What the relay sends holds no nameplate either: only these fields.
    let (status, body) = http_get(relay.addr, "/api/rooms", &[("Authorization", &format!("Bearer {TOKEN}"))]).await;
    assert_eq!(status, 200);
    let listed: Vec<serde_json::Map<String, serde_json::Value>> = serde_json::from_str(&body).unwrap();
    for room in listed {
        let keys: Vec<&str> = room.keys().map(String::as_str).collect();
        assert_eq!(keys, ["age_seconds", "room", "seats_connected", "seats_taken"], "{body}");
    }
    let refused = rooms(Some("wrong"));
    assert!(!refused.status.success() && String::from_utf8_lossy(&refused.stderr).contains("401"), "{refused:?}");
    assert!(!rooms(None).status.success(), "no token, no list");
}
