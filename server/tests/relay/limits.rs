//! Bounds: message size, slow readers, rate limits, connection limits, liveness.

use std::time::{Duration, Instant};

use fairdeck_relay::Limits;
use fairdeck_relay::protocol::{ServerMessage, close};
use serde_json::json;

use crate::common::{Client, PATIENCE, Received, TestRelay, test_limits};

#[tokio::test]
async fn an_oversize_frame_closes_its_sender_with_1009_and_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    let limits = Limits { max_message_bytes: 8192, ..test_limits() };
    let relay = TestRelay::start(dir.path(), limits).await;
    let (mut sender, mut peer, _, _, _) = Client::pair(&relay.url()).await;
    let (mut other_a, mut other_b, _, _, _) = Client::pair(&relay.url()).await;

    sender.send_data(&[7; 8191]).await;
    peer.expect_data(0, &[7; 8191]).await;
    sender.send_binary(vec![7; 8193]).await;
    sender.expect_error_and_close("too_big", close::TOO_BIG).await;
    // The peer learns its partner dropped (the seat is held for a resume), and nothing else.
    assert!(matches!(peer.recv().await, Received::Control(ServerMessage::PeerAway { .. })));
    peer.expect_silence().await;
    // The other room is undisturbed, in both directions and at full size.
    other_a.send_data(&[1; 8191]).await;
    other_b.expect_data(0, &[1; 8191]).await;
    other_b.send_data(&[2; 10]).await;
    other_a.expect_data(1, &[2; 10]).await;
    relay.stop().await;
}

#[tokio::test]
async fn a_slow_reader_is_cut_off_while_other_rooms_keep_flowing() {
    let dir = tempfile::tempdir().unwrap();
    let limits = Limits { max_message_bytes: 16 * 1024, queue_bytes: 64 * 1024, ..test_limits() };
    let relay = TestRelay::start(dir.path(), limits).await;
    let (mut sender, mut slow, _, _, _) = Client::pair(&relay.url()).await;
    let (mut other_a, mut other_b, _, _, _) = Client::pair(&relay.url()).await;

    // Push until the relay reports the slow reader gone; kernel buffers on loopback hold several megabytes first.
    let frame = vec![0x5a; 16 * 1024];
    let started = Instant::now();
    let mut sent = 0;
    let cut_off = 'push: loop {
        assert!(sent < 8000 && started.elapsed() < Duration::from_secs(30), "slow reader never cut off");
        for _ in 0..32 {
            sender.send_data(&frame[1..]).await;
            sent += 1;
        }
        while let Some(message) = sender.try_recv(Duration::from_millis(1)).await {
            if let Received::Control(ServerMessage::PeerAway { .. }) = message {
                break 'push true;
            }
        }
    };
    assert!(cut_off);

    // Meanwhile the other room flows.
    for i in 0..10u8 {
        other_a.send_data(&[i; 100]).await;
        other_b.expect_data(0, &[i; 100]).await;
    }
    // The slow reader, reading at last, finds what fitted in the buffers and then the documented close code.
    let mut frames = 0;
    let close_code = loop {
        match slow.recv().await {
            Received::Binary(data) => {
                assert_eq!(data, frame);
                frames += 1;
            }
            Received::Closed(code) => break code,
            Received::Control(message) => panic!("unexpected {message:?}"),
        }
    };
    assert_eq!(close_code, Some(close::SLOW_READER));
    assert!(frames < sent, "some frames were dropped rather than buffered");
    relay.stop().await;
}

#[tokio::test]
async fn new_rooms_and_joins_are_rate_limited_per_address() {
    let dir = tempfile::tempdir().unwrap();
    let limits = Limits { rooms_per_minute: 3, joins_per_minute: 2, ..test_limits() };
    let relay = TestRelay::start(dir.path(), limits).await;
    let mut rooms = Vec::new();
    for _ in 0..3 {
        rooms.push(Client::create(&relay.url()).await);
    }
    let mut fourth = Client::connect(&relay.url()).await;
    fourth.send(json!({"type": "create"})).await;
    fourth.expect_error_and_close("rate_limited", close::RATE_LIMITED).await;

    for _ in 0..2 {
        let mut guesser = Client::connect(&relay.url()).await;
        guesser.send(json!({"type": "join", "nameplate": "777"})).await;
        guesser.expect_error_and_close("unknown_nameplate", close::UNKNOWN_NAMEPLATE).await;
    }
    let mut guesser = Client::connect(&relay.url()).await;
    guesser.send(json!({"type": "join", "nameplate": "1"})).await;
    guesser.expect_error_and_close("rate_limited", close::RATE_LIMITED).await;
    // Rooms already open are not affected.
    let (creator, _, _) = &mut rooms[0];
    creator.expect_silence().await;
    relay.stop().await;
}

#[tokio::test]
async fn connections_past_the_limit_get_http_503_until_one_closes() {
    let dir = tempfile::tempdir().unwrap();
    let limits = Limits { max_connections: 2, ..test_limits() };
    let relay = TestRelay::start(dir.path(), limits).await;
    let first = Client::connect(&relay.url()).await;
    let _second = Client::connect(&relay.url()).await;
    match tokio_tungstenite::connect_async(relay.url()).await {
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => assert_eq!(response.status(), 503),
        other => panic!("expected HTTP 503, got {other:?}"),
    }
    drop(first);
    let deadline = Instant::now() + PATIENCE;
    while tokio_tungstenite::connect_async(relay.url()).await.is_err() {
        assert!(Instant::now() < deadline, "the closed connection was never released");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    relay.stop().await;
}

#[tokio::test]
async fn a_silent_connection_is_dropped_and_a_live_one_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    // Short, but with room for a loaded CI machine: a client that is polled answers well within these.
    let limits = Limits {
        ping_interval: Duration::from_millis(150),
        ping_timeout: Duration::from_millis(450),
        hello_timeout: Duration::from_secs(1),
        ..test_limits()
    };
    let relay = TestRelay::start(dir.path(), limits).await;
    let mut mute = Client::connect(&relay.url()).await;
    mute.expect_error_and_close("timeout", close::TIMEOUT).await;

    let (mut live, silent, _, _, _) = Client::pair(&relay.url()).await;
    // `silent` is never polled, so it never answers the relay's pings.
    assert!(matches!(live.recv().await, Received::Control(ServerMessage::PeerAway { .. })));
    for _ in 0..4 {
        live.expect_silence().await; // Reading answers the pings, across several intervals.
    }
    drop(silent);
    relay.stop().await;
}
