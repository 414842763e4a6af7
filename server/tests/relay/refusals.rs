//! The operator's refusal list (`--refuse FILE`): refused addresses are closed at accept, and a changed file takes
//! effect without a restart.

use std::net::IpAddr;
use std::time::{Duration, Instant};

use fairdeck_relay::Relay;
use tokio::io::AsyncReadExt;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

use crate::common::{Client, PATIENCE, TestRelay, metric, metrics, tcp_from, test_limits, wait_closed};

const REFUSED: &str = "refusal_list";

fn ip(text: &str) -> IpAddr {
    text.parse().unwrap()
}

/// Whether the relay closes a connection from `source` at once (a connection it accepts waits for its request).
async fn closed_at_once(relay: &TestRelay, source: &str) -> bool {
    let mut tcp = tcp_from(ip(source), relay.addr).await;
    let mut buffer = [0; 16];
    matches!(tokio::time::timeout(Duration::from_millis(500), tcp.read(&mut buffer)).await, Ok(Ok(0) | Err(_)))
}

#[tokio::test]
async fn listed_addresses_are_closed_at_accept_and_a_changed_list_applies_without_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("refused");
    std::fs::write(&file, "# abusers\n127.0.0.2/31\nnot an address\n2001:db8::/32\n").unwrap();
    let relay = TestRelay::start_with(
        Relay::builder("127.0.0.1:0".parse().unwrap(), dir.path()).limits(test_limits()).refusal_list(&file),
    )
    .await;

    // 127.0.0.2 is refused, and so is 127.0.0.3 (the same /31), despite the bad line before it was skipped:
    // closed at once, before an HTTP request is even read.
    for source in ["127.0.0.2", "127.0.0.3"] {
        let mut tcp = tcp_from(ip(source), relay.addr).await;
        assert!(wait_closed(&mut tcp).await < Duration::from_secs(2));
    }
    let mut player = Client::connect_from(ip("127.0.0.4"), &relay.url()).await;
    let text = metrics(relay.addr).await;
    assert_eq!(metric(&text, &format!("fairdeck_relay_connections_refused_total{{reason=\"{REFUSED}\"}}")), 2.0);

    // The operator lifts the refusal of 127.0.0.2/31 and refuses 127.0.0.4 instead: no restart.
    std::fs::write(&file, "127.0.0.4\n").unwrap();
    let lifted = Instant::now();
    while !closed_at_once(&relay, "127.0.0.4").await {
        assert!(lifted.elapsed() < PATIENCE, "the new list is not in force");
    }
    let _welcomed = Client::connect_from(ip("127.0.0.2"), &relay.url()).await;
    // A connection already open stays: the list applies at accept.
    player.send(serde_json::json!({"type": "create"})).await;
    player.expect(|message| matches!(message, fairdeck_relay::protocol::ServerMessage::Created { .. })).await;
    relay.stop().await;
}

#[tokio::test]
async fn behind_a_trusted_proxy_the_list_applies_to_the_forwarded_address() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("refused");
    std::fs::write(&file, "198.51.100.0/24\n").unwrap();
    let relay = TestRelay::start_with(
        Relay::builder("127.0.0.1:0".parse().unwrap(), dir.path())
            .limits(test_limits())
            .trust_forwarded_for(true)
            .refusal_list(&file),
    )
    .await;
    let forwarded = |client: &str| {
        let mut request = relay.url().into_client_request().unwrap();
        request.headers_mut().insert("x-forwarded-for", client.parse().unwrap());
        request
    };
    match tokio_tungstenite::connect_async(forwarded("198.51.100.7")).await {
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => assert_eq!(response.status(), 403),
        other => panic!("expected HTTP 403, got {other:?}"),
    }
    let _kept = tokio_tungstenite::connect_async(forwarded("203.0.113.7")).await.expect("another player");
    let text = metrics(relay.addr).await;
    assert_eq!(metric(&text, &format!("fairdeck_relay_connections_refused_total{{reason=\"{REFUSED}\"}}")), 1.0);
    relay.stop().await;
}

#[tokio::test]
async fn an_unreadable_list_stops_the_start() {
    let dir = tempfile::tempdir().unwrap();
    let built = Relay::builder("127.0.0.1:0".parse().unwrap(), dir.path())
        .refusal_list(dir.path().join("missing"))
        .build()
        .await;
    assert!(matches!(built, Err(fairdeck_relay::RelayError::RefusalList { .. })), "{built:?}");
}
