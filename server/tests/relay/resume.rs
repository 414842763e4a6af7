//! Seats held across dropped connections, resumes, expiry, and graceful shutdown with hand-over.

use std::time::Duration;

use fairdeck_relay::Limits;
use fairdeck_relay::protocol::{ClosingReason, GoneReason, PeerState, ServerMessage, close};
use futures_util::SinkExt;
use serde_json::json;

use crate::common::{Client, Received, TestRelay, other, test_limits};

async fn resume(url: &str, token: &str) -> (Client, ServerMessage) {
    let mut client = Client::connect(url).await;
    client.send(json!({"type": "resume", "token": token})).await;
    match client.recv().await {
        Received::Control(message @ ServerMessage::Resumed { .. }) => (client, message),
        other => panic!("expected resumed, got {other:?}"),
    }
}

#[tokio::test]
async fn a_dropped_seat_is_taken_back_with_its_token_and_the_peer_is_told() {
    let dir = tempfile::tempdir().unwrap();
    let relay = TestRelay::start(dir.path(), test_limits()).await;
    let (creator, mut joiner, _, creator_token, _) = Client::pair(&relay.url()).await;
    drop(creator); // The TCP connection goes away without a close frame, as on a network failure.
    match joiner.recv().await {
        Received::Control(ServerMessage::PeerAway { hold_ms, .. }) => assert_eq!(hold_ms, 10_000),
        other => panic!("expected peer_away, got {other:?}"),
    }
    // Frames sent while the peer is away are dropped, not stored: the clients retransmit after `peer_back`.
    joiner.send_data(b"lost").await;

    let mut thief = Client::connect(&relay.url()).await;
    thief.send(json!({"type": "resume", "token": "00".repeat(16)})).await;
    thief.expect_error_and_close("bad_token", close::BAD_TOKEN).await;

    let (mut creator, resumed) = resume(&relay.url(), &creator_token).await;
    assert_eq!(resumed, ServerMessage::Resumed { nameplate: None, seat: 0, others: other(0, PeerState::Present) });
    assert_eq!(joiner.recv().await, Received::Control(ServerMessage::PeerBack { seat: 0 }));
    creator.expect_silence().await;
    joiner.send_data(b"again").await;
    creator.expect_data(1, b"again").await;
    creator.send_data(b"welcome back").await;
    joiner.expect_data(0, b"welcome back").await;
    relay.stop().await;
}

#[tokio::test]
async fn resuming_a_seat_still_connected_replaces_the_old_connection() {
    let dir = tempfile::tempdir().unwrap();
    let relay = TestRelay::start(dir.path(), test_limits()).await;
    let (mut old, mut joiner, _, _, joiner_token) = Client::pair(&relay.url()).await;
    let (mut new, resumed) = resume(&relay.url(), &joiner_token).await;
    assert!(
        matches!(resumed, ServerMessage::Resumed { seat: 1, others, .. } if *others == other(1, PeerState::Present))
    );
    joiner.expect_error_and_close("replaced", close::REPLACED).await;
    assert_eq!(old.recv().await, Received::Control(ServerMessage::PeerBack { seat: 1 }));
    old.send_data(b"to the new one").await;
    new.expect_data(0, b"to the new one").await;
    relay.stop().await;
}

#[tokio::test]
async fn a_seat_not_resumed_in_time_ends_the_room() {
    let dir = tempfile::tempdir().unwrap();
    let limits = Limits { hold: Duration::from_millis(300), ..test_limits() };
    let relay = TestRelay::start(dir.path(), limits).await;
    let (creator, mut joiner, _, creator_token, _) = Client::pair(&relay.url()).await;
    drop(creator);
    assert!(matches!(joiner.recv().await, Received::Control(ServerMessage::PeerAway { hold_ms: 300, .. })));
    assert_eq!(joiner.recv().await, Received::Control(ServerMessage::PeerGone { reason: GoneReason::Timeout }));
    assert_eq!(joiner.recv().await, Received::Closed(Some(close::NORMAL)));
    let mut late = Client::connect(&relay.url()).await;
    late.send(json!({"type": "resume", "token": creator_token})).await;
    late.expect_error_and_close("bad_token", close::BAD_TOKEN).await;
    relay.stop().await;
}

#[tokio::test]
async fn a_waiting_room_expires() {
    let dir = tempfile::tempdir().unwrap();
    let limits = Limits { waiting_lifetime: Duration::from_millis(200), ..test_limits() };
    let relay = TestRelay::start(dir.path(), limits).await;
    let (mut creator, nameplate, _) = Client::create(&relay.url()).await;
    creator.expect_error_and_close("expired", close::EXPIRED).await;
    let mut joiner = Client::connect(&relay.url()).await;
    joiner.send(json!({"type": "join", "nameplate": nameplate})).await;
    joiner.expect_error_and_close("unknown_nameplate", close::UNKNOWN_NAMEPLATE).await;
    relay.stop().await;
}

#[tokio::test]
async fn shutdown_tells_clients_and_the_next_relay_takes_the_rooms_over() {
    let dir = tempfile::tempdir().unwrap();
    let relay = TestRelay::start(dir.path(), test_limits()).await;
    let (mut creator, mut joiner, nameplate, creator_token, joiner_token) = Client::pair(&relay.url()).await;
    let (mut waiting, waiting_plate, waiting_token) = Client::create(&relay.url()).await;
    let stopping = tokio::spawn(relay.stop());
    for client in [&mut creator, &mut joiner, &mut waiting] {
        match client.recv().await {
            Received::Control(ServerMessage::Closing {
                reason: ClosingReason::Restart,
                reconnect_after_ms,
                try_for_ms,
            }) => {
                assert!((100..200).contains(&reconnect_after_ms), "hint plus jitter: {reconnect_after_ms}");
                assert_eq!(try_for_ms, 10_000);
            }
            other => panic!("expected closing, got {other:?}"),
        }
        assert_eq!(client.recv().await, Received::Closed(Some(close::RESTART)));
    }
    stopping.await.unwrap();
    assert!(dir.path().join("handover.json").exists());
    let handover = std::fs::read_to_string(dir.path().join("handover.json")).unwrap();
    assert!(!handover.contains(&creator_token) && !handover.contains(&joiner_token), "tokens never touch the disk");

    // A new process on the same data directory (another port here) takes the rooms back.
    let relay = TestRelay::start(dir.path(), test_limits()).await;
    assert!(!dir.path().join("handover.json").exists());
    let (mut creator, resumed) = resume(&relay.url(), &creator_token).await;
    assert_eq!(resumed, ServerMessage::Resumed { nameplate: None, seat: 0, others: other(0, PeerState::Away) });
    let (mut joiner, resumed) = resume(&relay.url(), &joiner_token).await;
    assert_eq!(resumed, ServerMessage::Resumed { nameplate: None, seat: 1, others: other(1, PeerState::Present) });
    assert_eq!(creator.recv().await, Received::Control(ServerMessage::PeerBack { seat: 1 }));
    creator.send_data(b"after restart").await;
    joiner.expect_data(0, b"after restart").await;
    let (_waiting, resumed) = resume(&relay.url(), &waiting_token).await;
    assert_eq!(
        resumed,
        ServerMessage::Resumed {
            nameplate: Some(waiting_plate.clone()),
            seat: 0,
            others: other(0, PeerState::Waiting)
        }
    );
    // The paired room released its number at pairing, so the waiting room took it; a new room does not.
    assert_eq!(waiting_plate, nameplate);
    let (_fresh, fresh_plate, _) = Client::create(&relay.url()).await;
    assert_ne!(fresh_plate, waiting_plate);
    relay.stop().await;
}

#[tokio::test]
async fn a_client_sending_while_the_relay_stops_still_reads_closing() {
    let dir = tempfile::tempdir().unwrap();
    let relay = TestRelay::start(dir.path(), test_limits()).await;
    let (mut creator, _joiner, _, _, _) = Client::pair(&relay.url()).await;
    let stopping = tokio::spawn(relay.stop());
    // The client goes on sending, without reading, while the relay tells it `closing` and closes: every send
    // goes through, and `closing` is there to read afterwards.
    for frame in 0..50u8 {
        let sent = creator.ws.send(tokio_tungstenite::tungstenite::Message::Binary(vec![frame; 512].into())).await;
        assert!(sent.is_ok(), "send {frame} failed: {sent:?}");
        tokio::time::sleep(Duration::from_millis(4)).await;
    }
    let closing = creator.expect(|m| matches!(m, ServerMessage::Closing { .. })).await;
    assert!(matches!(closing, ServerMessage::Closing { reason: ClosingReason::Restart, .. }));
    let _ = creator.ws.close(None).await;
    stopping.await.unwrap();
}
