//! The `fairdeck-relay` binary: its options, and SIGTERM.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use fairdeck_relay::protocol::{ClosingReason, ServerMessage, close};

use crate::common::{Client, PATIENCE, Received, wait_for_exit};

#[tokio::test]
async fn the_help_lists_every_option_with_its_environment_variable() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_fairdeck-relay")).arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&output.stdout);
    for (flag, env) in [
        ("--listen", "FAIRDECK_RELAY_LISTEN"),
        ("--data-dir", "FAIRDECK_RELAY_DATA_DIR"),
        ("--database-url", "FAIRDECK_RELAY_DATABASE_URL"),
        ("--operator-token", "FAIRDECK_RELAY_OPERATOR_TOKEN"),
        ("--log-format", "FAIRDECK_RELAY_LOG_FORMAT"),
        ("--max-message-bytes", "FAIRDECK_RELAY_MAX_MESSAGE_BYTES"),
        ("--queue-bytes", "FAIRDECK_RELAY_QUEUE_BYTES"),
        ("--rooms-per-minute", "FAIRDECK_RELAY_ROOMS_PER_MINUTE"),
        ("--joins-per-minute", "FAIRDECK_RELAY_JOINS_PER_MINUTE"),
        ("--waiting-lifetime", "FAIRDECK_RELAY_WAITING_LIFETIME"),
        ("--hold", "FAIRDECK_RELAY_HOLD"),
        ("--ping-interval", "FAIRDECK_RELAY_PING_INTERVAL"),
        ("--max-rooms", "FAIRDECK_RELAY_MAX_ROOMS"),
        ("--max-connections", "FAIRDECK_RELAY_MAX_CONNECTIONS"),
        ("--resumes-per-minute", "FAIRDECK_RELAY_RESUMES_PER_MINUTE"),
        ("--queue-age", "FAIRDECK_RELAY_QUEUE_AGE"),
        ("--request-head-timeout", "FAIRDECK_RELAY_REQUEST_HEAD_TIMEOUT"),
        ("--upgrade-timeout", "FAIRDECK_RELAY_UPGRADE_TIMEOUT"),
        ("--max-handshakes", "FAIRDECK_RELAY_MAX_HANDSHAKES"),
        ("--connections-per-address", "FAIRDECK_RELAY_CONNECTIONS_PER_ADDRESS"),
        ("--refuse", "FAIRDECK_RELAY_REFUSE"),
    ] {
        assert!(help.contains(flag) && help.contains(&format!("env: {env}")), "{flag} / {env} in\n{help}");
    }
}

#[tokio::test]
async fn sigterm_tells_clients_hands_rooms_over_and_exits_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_fairdeck-relay"))
        .args(["--listen", "127.0.0.1:0", "--log-format", "json", "--restart-hint", "50ms"])
        .arg("--data-dir")
        .arg(dir.path())
        .env("FAIRDECK_RELAY_OPERATOR_TOKEN", "never-logged-token")
        .env("RUST_LOG", "debug")
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut log = BufReader::new(child.stderr.take().unwrap()).lines();
    let mut lines = Vec::new();
    let addr = loop {
        let line = log.next().expect("the relay logs its address").unwrap();
        lines.push(line.clone());
        let entry: serde_json::Value = serde_json::from_str(&line).unwrap();
        if entry["fields"]["message"] == "relay listening" {
            break entry["fields"]["addr"].as_str().unwrap().to_owned();
        }
    };
    let (mut creator, _, _) = Client::create(&format!("ws://{addr}/v1")).await;

    // SAFETY: kill only sends a signal to the child we started.
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) }, 0);
    match creator.recv().await {
        Received::Control(ServerMessage::Closing { reason: ClosingReason::Restart, .. }) => {}
        other => panic!("expected closing, got {other:?}"),
    }
    assert_eq!(creator.recv().await, Received::Closed(Some(close::RESTART)));
    let deadline = Instant::now() + PATIENCE;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "the relay did not exit after SIGTERM");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert!(status.success(), "{status}");
    assert!(dir.path().join("handover.json").exists() && dir.path().join("stats.sqlite").exists());
    lines.extend(log.map_while(Result::ok));
    assert!(lines.iter().any(|line| line.contains("stopped")), "{lines:?}");
    assert!(!lines.iter().any(|line| line.contains("never-logged-token")), "the token never reaches the log");
}

#[tokio::test]
async fn refused_connections_are_logged_rate_limited_in_plain_text_without_addresses() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_fairdeck-relay"))
        .args(["--listen", "127.0.0.1:0", "--connections-per-address", "1", "--request-head-timeout", "30s"])
        .arg("--data-dir")
        .arg(dir.path())
        .env_remove("RUST_LOG")
        .env_remove("NO_COLOR")
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Standard error is a pipe here, not a terminal: no colour codes.
    let mut log = BufReader::new(child.stderr.take().unwrap()).lines();
    // (A line about caps fitted to the open-file limit may come first.)
    let listening =
        log.by_ref().map_while(Result::ok).find(|line| line.contains("relay listening")).expect("a listening line");
    let addr: std::net::SocketAddr = listening
        .split_whitespace()
        .find_map(|field| field.strip_prefix("addr="))
        .expect("the address in the line")
        .parse()
        .unwrap();
    let _held = tokio::net::TcpStream::connect(addr).await.unwrap();
    let mut refused = Vec::new();
    for _ in 0..5 {
        let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        crate::common::wait_closed(&mut stream).await;
        refused.push(stream);
    }
    // SAFETY: kill only sends a signal to the child we started.
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) }, 0);
    let status = tokio::task::spawn_blocking(move || child.wait()).await.unwrap().unwrap();
    assert!(status.success(), "{status}");
    let lines: Vec<String> = std::iter::once(listening).chain(log.map_while(Result::ok)).collect();
    assert!(lines.iter().all(|line| !line.contains('\x1b')), "colour codes in {lines:#?}");
    let refusals: Vec<&String> = lines.iter().filter(|line| line.contains("refused a connection")).collect();
    assert_eq!(refusals.len(), 1, "one line for five refusals within the interval: {lines:#?}");
    assert!(refusals[0].contains("reason=\"address_limit\"") || refusals[0].contains("reason=address_limit"));
    assert!(!refusals[0].contains("127.0.0.1"), "no address in the line: {}", refusals[0]);
}

#[tokio::test]
async fn sigterm_still_stops_the_relay_when_its_log_pipe_is_closed() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_fairdeck-relay"))
        .args(["--listen", "127.0.0.1:0", "--restart-hint", "50ms"])
        .arg("--data-dir")
        .arg(dir.path())
        .env("RUST_LOG", "debug")
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut log = BufReader::new(child.stderr.take().unwrap()).lines();
    // The SQLite file is opened (with debug lines), and caps may be fitted to the open-file limit, before the relay
    // listens.
    let listening = log.by_ref().map_while(Result::ok).find(|line| line.contains("relay listening"));
    if listening.is_none() {
        let _ = child.kill();
        panic!("the relay never said it listens");
    }
    // Whoever read the log is gone (a crashed log collector): every log line now fails to be written.
    drop(log);
    // SAFETY: kill only sends a signal to the child we started.
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) }, 0);
    let status = wait_for_exit(&mut child, "the relay did not stop after SIGTERM");
    assert!(status.success(), "{status}");
}
