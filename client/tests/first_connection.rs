//! The first connection to the relay, as the real `fairdeck` binary makes it: the player is heard while it is
//! under way.

use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;

use serde_json::Value;

mod support;

const DECK: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/decks/burn.txt");

#[test]
fn quit_while_the_relay_does_not_answer_leaves_at_once_and_cleanly() {
    // A listener that never accepts: the connection is made by the kernel, the WebSocket handshake never ends,
    // so the client would wait out its connect timeout and fail as `unreachable`.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let relay = format!("ws://{}/v1", silent.local_addr().unwrap());
    let data = tempfile::tempdir().unwrap();
    let mut child = support::command_in(data.path())
        .args(["host", "--deck", DECK, "--script", "--relay", &relay])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start fairdeck");
    let mut stdin = child.stdin.take().unwrap();
    // The deck is read first; then the client is connecting.
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    let deck: Value = serde_json::from_str(&first).unwrap();
    assert_eq!(deck["event"], "deck");
    writeln!(stdin, "quit").unwrap();
    let status = child.wait().expect("wait for fairdeck");
    drop(stdin);
    let rest: Vec<String> = stdout.lines().map_while(Result::ok).collect();
    assert!(status.success(), "quit is a clean exit, not the connect timeout's error: {status} {rest:?}");
    assert!(rest.iter().all(|line| !line.contains("\"error\"")), "{rest:?}");
    drop(silent);
}
