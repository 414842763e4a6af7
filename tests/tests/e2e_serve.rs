//! No internet at all: `fairdeck host --serve ADDR:PORT` serves the relay inside the host's program, and the guest
//! joins with `--relay` at the URL it prints. Real processes on loopback; a resumed game serves again at its address.

use std::process::Stdio;

use fairdeck_e2e::{Player, deck, fairdeck_command, settle, zone_cards};
use serde_json::Value;

/// A port free on loopback now (the system's choice, released at once).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// The host, serving on `listen` with the burn deck; the `serving` event it printed first.
fn serving_host(listen: &str) -> (Player, Value) {
    let burn = deck("burn.txt");
    let mut host = Player::spawn_serving("host", &["host", "--serve", listen, "--deck", burn.to_str().unwrap()]);
    let serving = host.expect_event("serving");
    (host, serving)
}

#[test]
fn a_guest_plays_at_the_relay_the_host_serves_and_comes_back_when_the_host_resumes() {
    let port = free_port();
    let listen = format!("127.0.0.1:{port}");
    let (mut host, serving) = serving_host(&listen);
    let url = format!("ws://127.0.0.1:{port}/v1");
    assert_eq!((serving["listen"].as_str(), serving["relay"].as_str()), (Some(listen.as_str()), Some(url.as_str())));
    let code = host.expect_event("code")["code"].as_str().unwrap().to_string();
    let mut guest = Player::spawn_at("guest", &url, &deck("burn.txt"), &["join", &code]);
    for player in [&mut host, &mut guest] {
        player.expect_event("ready");
    }
    host.send("draw 7");
    guest.send("draw 7");
    let hand = zone_cards(&host.table(), "host hand");
    host.send(&format!("play {}", hand[0]));
    guest.send("life 18");
    let table = settle(&mut host, &mut guest);
    assert_eq!(zone_cards(&table, "host play"), [hand[0]]);
    assert_eq!(table["players"]["guest"]["life"], 18);

    // The host's program ends, and its relay with it: the guest waits at the same URL for the host to resume.
    host.kill();
    let mut host = Player::resume("host", host.data(), &[]);
    host.expect_event("restored");
    let serving = host.expect_event("serving");
    assert_eq!(serving["relay"].as_str(), Some(url.as_str()), "served again where the guest joined");
    host.send("life 15");
    guest.send("draw 1");
    let table = settle(&mut host, &mut guest);
    assert_eq!(table["players"]["host"]["life"], 15);
    assert_eq!(zone_cards(&table, "guest hand").len(), 8);
    host.send("quit");
    guest.send("quit");
    assert!(host.wait_exit().success(), "host exit");
    assert!(guest.wait_exit().success(), "guest exit");
}

#[test]
fn a_port_in_use_is_refused_before_the_deck_is_read_or_a_code_made() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let listen = taken.local_addr().unwrap().to_string();
    let data = tempfile::tempdir().unwrap();
    // FAIRDECK_RELAY names the usual relay: `--serve` says not this time.
    let output = fairdeck_command()
        .args(["host", "--script", "--serve", &listen, "--deck"])
        .arg(deck("burn.txt"))
        .env("FAIRDECK_RELAY", "ws://127.0.0.1:9/v1")
        .env("XDG_DATA_HOME", data.path())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    let events: Vec<Value> = stdout.lines().map(|line| serde_json::from_str(line).unwrap()).collect();
    assert_eq!(events.len(), 1, "the error and nothing before it: {events:#?}");
    assert_eq!(events[0]["event"], "error");
    assert_eq!(events[0]["kind"], "serve");
    let message = events[0]["message"].as_str().unwrap();
    assert!(message.contains(&listen) && message.contains("in use") && message.contains("another port"), "{message}");
    assert_eq!(output.status.code(), Some(1));
    assert!(!data.path().join("fairdeck/games").exists(), "no game saved");
}

#[test]
fn relay_typed_beside_serve_is_refused_by_the_command_line() {
    let output = fairdeck_command()
        .args(["host", "--script", "--serve", "127.0.0.1:0", "--relay", "ws://127.0.0.1:7171/v1", "--deck"])
        .arg(deck("burn.txt"))
        .env_remove("FAIRDECK_RELAY")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty(), "nothing started");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--relay cannot be given with it"), "{stderr}");
}
