//! The `fairdeck-relay` binary: its options, and SIGTERM.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use fairdeck_relay::protocol::{ClosingReason, ServerMessage, close};

use crate::common::{Client, PATIENCE, Received};

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
