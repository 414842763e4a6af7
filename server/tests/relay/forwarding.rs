//! Rooms, pairing and byte-exact forwarding; refusals that leave everything else alone.

use fairdeck_relay::protocol::{ServerMessage, close};
use futures_util::SinkExt;
use serde_json::json;

use crate::common::{Client, Received, TestRelay, test_limits};

/// Frames that would catch any re-encoding: empty, every byte value, text-looking bytes, invalid UTF-8, large.
fn tricky_frames(max: usize) -> Vec<Vec<u8>> {
    vec![
        Vec::new(),
        (0..=255u8).collect(),
        br#"{"type":"leave"}"#.to_vec(),
        vec![0xff, 0xfe, 0x00, 0xc3, 0x28],
        (0..max).map(|i| (i * 7 % 251) as u8).collect(),
    ]
}

#[tokio::test]
async fn frames_are_forwarded_byte_exact_both_ways() {
    let dir = tempfile::tempdir().unwrap();
    let relay = TestRelay::start(dir.path(), test_limits()).await;
    let (mut creator, mut joiner, nameplate, _, _) = Client::pair(&relay.url()).await;
    assert_eq!(nameplate, "1");
    // The largest payload leaves room for the address byte under the limit.
    let frames = tricky_frames(test_limits().max_message_bytes - 1);
    for frame in &frames {
        creator.send_data(frame).await;
        joiner.send_data(&frame.iter().rev().copied().collect::<Vec<_>>()).await;
    }
    for frame in &frames {
        joiner.expect_data(0, frame).await;
        creator.expect_data(1, &frame.iter().rev().copied().collect::<Vec<_>>()).await;
    }
    creator.expect_silence().await;
    joiner.expect_silence().await;
    relay.stop().await;
}

#[tokio::test]
async fn pairing_tells_each_side_the_other_clients_version() {
    let dir = tempfile::tempdir().unwrap();
    let relay = TestRelay::start(dir.path(), test_limits()).await;
    let (mut creator, nameplate, _) = Client::create(&relay.url()).await;
    let mut joiner = Client::connect(&relay.url()).await;
    joiner.send(json!({"type": "join", "nameplate": nameplate, "client": "fairdeck/9.9"})).await;
    assert!(matches!(joiner.recv().await, Received::Control(ServerMessage::Joined { seat: 1, .. })));
    assert_eq!(
        joiner.recv().await,
        Received::Control(ServerMessage::Paired { peer_client: Some("test/creator".into()) })
    );
    assert_eq!(
        creator.recv().await,
        Received::Control(ServerMessage::Paired { peer_client: Some("fairdeck/9.9".into()) })
    );
    relay.stop().await;
}

#[tokio::test]
async fn a_third_joiner_finds_the_nameplate_released_and_the_pair_keeps_flowing() {
    let dir = tempfile::tempdir().unwrap();
    let relay = TestRelay::start(dir.path(), test_limits()).await;
    let (mut creator, mut joiner, nameplate, _, _) = Client::pair(&relay.url()).await;
    let mut third = Client::connect(&relay.url()).await;
    third.send(json!({"type": "join", "nameplate": nameplate})).await;
    third.expect_error_and_close("unknown_nameplate", close::UNKNOWN_NAMEPLATE).await;
    creator.send_data(b"still here").await;
    joiner.expect_data(0, b"still here").await;
    creator.expect_silence().await;
    relay.stop().await;
}

#[tokio::test]
async fn unknown_and_malformed_nameplates_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let relay = TestRelay::start(dir.path(), test_limits()).await;
    for nameplate in ["42", "not-a-number", "", "99999999999999"] {
        let mut client = Client::connect(&relay.url()).await;
        client.send(json!({"type": "join", "nameplate": nameplate})).await;
        client.expect_error_and_close("unknown_nameplate", close::UNKNOWN_NAMEPLATE).await;
    }
    relay.stop().await;
}

#[tokio::test]
async fn nameplates_are_recycled_smallest_first() {
    let dir = tempfile::tempdir().unwrap();
    let relay = TestRelay::start(dir.path(), test_limits()).await;
    let (mut first, one, _) = Client::create(&relay.url()).await;
    let (_second, two, _) = Client::create(&relay.url()).await;
    assert_eq!((one.as_str(), two.as_str()), ("1", "2"));
    first.send(json!({"type": "leave"})).await;
    assert_eq!(first.recv().await, Received::Closed(Some(close::NORMAL)));
    let (_third, again, _) = Client::create(&relay.url()).await;
    assert_eq!(again, "1");
    relay.stop().await;
}

#[tokio::test]
async fn bad_input_gets_a_clear_error_and_disturbs_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    let relay = TestRelay::start(dir.path(), test_limits()).await;
    let (mut creator, mut joiner, _, _, _) = Client::pair(&relay.url()).await;
    let bad_inputs = [
        json!("not an object"),
        json!(["leave"]),
        json!({"type": "shout"}),
        json!({"type": "reopen"}),
        json!({"type": "resume", "nameplate": "1", "token": "00".repeat(16)}),
        json!({"type": "join"}),
        json!({"type": "report", "result": "scary"}),
        json!({"type": "create", "client": "x".repeat(2000)}),
    ];
    for input in bad_inputs {
        let mut client = Client::connect(&relay.url()).await;
        client.send(input).await;
        client.expect_error_and_close("bad_message", close::BAD_MESSAGE).await;
    }
    let mut early = Client::connect(&relay.url()).await;
    early.send_data(b"too early").await;
    early.expect_error_and_close("bad_message", close::BAD_MESSAGE).await;
    let mut raw = Client::connect(&relay.url()).await;
    raw.ws.send(tokio_tungstenite::tungstenite::Message::Text("{\"type\":".into())).await.unwrap();
    raw.expect_error_and_close("bad_message", close::BAD_MESSAGE).await;

    joiner.send_data(&[1, 2, 3]).await;
    creator.expect_data(1, &[1, 2, 3]).await;
    relay.stop().await;
}

#[tokio::test]
async fn a_frame_before_anyone_joins_is_dropped_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let relay = TestRelay::start(dir.path(), test_limits()).await;
    let (mut creator, nameplate, _) = Client::create(&relay.url()).await;
    creator.send_data(b"anyone?").await;
    match creator.recv().await {
        Received::Control(ServerMessage::Error { code, .. }) => assert_eq!(code.as_str(), "not_paired"),
        other => panic!("expected not_paired, got {other:?}"),
    }
    let (mut joiner, _) = Client::join(&relay.url(), &nameplate).await;
    creator.expect(|m| matches!(m, ServerMessage::Paired { .. })).await;
    joiner.expect_silence().await;
    creator.send_data(b"now").await;
    joiner.expect_data(0, b"now").await;
    relay.stop().await;
}

#[tokio::test]
async fn leaving_ends_the_room_for_both() {
    let dir = tempfile::tempdir().unwrap();
    let relay = TestRelay::start(dir.path(), test_limits()).await;
    let (mut creator, mut joiner, nameplate, creator_token, _) = Client::pair(&relay.url()).await;
    joiner.close_normally().await;
    assert_eq!(
        creator.recv().await,
        Received::Control(ServerMessage::PeerGone { reason: fairdeck_relay::protocol::GoneReason::Left })
    );
    assert_eq!(creator.recv().await, Received::Closed(Some(close::NORMAL)));
    let mut late = Client::connect(&relay.url()).await;
    late.send(json!({"type": "resume", "token": creator_token})).await;
    late.expect_error_and_close("bad_token", close::BAD_TOKEN).await;
    let mut joiner = Client::connect(&relay.url()).await;
    joiner.send(json!({"type": "join", "nameplate": nameplate})).await;
    joiner.expect_error_and_close("unknown_nameplate", close::UNKNOWN_NAMEPLATE).await;
    relay.stop().await;
}
