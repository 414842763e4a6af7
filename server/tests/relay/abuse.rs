//! What an attacker (or a broken client) can try against a public relay, each case next to an honest pair in
//! another room that must keep exchanging byte-exact frames throughout.

use fairdeck_relay::Limits;
use fairdeck_relay::protocol::{GoneReason, ServerMessage, close};
use futures_util::SinkExt;
use serde_json::json;
use tokio_tungstenite::tungstenite::Message;

use crate::common::{Client, Received, TestRelay, test_limits};

/// Two players in their own room, checked after every abuse case.
struct HonestPair {
    host: Client,
    guest: Client,
    round: u8,
}

impl HonestPair {
    async fn start(url: &str) -> HonestPair {
        let (host, guest, _, _, _) = Client::pair(url).await;
        HonestPair { host, guest, round: 0 }
    }

    /// Frames both ways that would catch any re-encoding, each received byte-exact.
    async fn exchange(&mut self) {
        self.round = self.round.wrapping_add(1);
        let frames: [Vec<u8>; 3] =
            [vec![self.round], (0..=255u8).map(|b| b ^ self.round).collect(), vec![0xff, 0x00, self.round, 0xc3]];
        for frame in &frames {
            self.host.send_binary(frame.clone()).await;
            self.guest.send_binary(frame.iter().rev().copied().collect()).await;
        }
        for frame in &frames {
            self.guest.expect_binary(frame).await;
            self.host.expect_binary(&frame.iter().rev().copied().collect::<Vec<_>>()).await;
        }
    }
}

async fn resume_refusal(url: &str, token: &str) -> (String, String) {
    let mut client = Client::connect(url).await;
    client.send(json!({"type": "resume", "token": token})).await;
    match client.recv().await {
        Received::Control(ServerMessage::Error { code, message }) => {
            let close = client.recv().await;
            assert!(matches!(close, Received::Closed(Some(_))), "a close frame follows, got {close:?}");
            (code.as_str().to_owned(), message)
        }
        other => panic!("expected an error, got {other:?}"),
    }
}

#[tokio::test]
async fn failed_resumes_all_get_one_answer_and_are_rate_limited_but_good_ones_never_are() {
    let dir = tempfile::tempdir().unwrap();
    let relay = TestRelay::start(dir.path(), Limits { resumes_per_minute: 4, ..test_limits() }).await;
    let url = relay.url();
    let mut honest = HonestPair::start(&url).await;

    // A live seat resumes as often as it likes: successes never count.
    let (_creator, live_guest, _, _, live_token) = Client::pair(&url).await;
    drop(live_guest);
    for _ in 0..6 {
        let mut client = Client::connect(&url).await;
        client.send(json!({"type": "resume", "token": live_token})).await;
        client.expect(|m| matches!(m, ServerMessage::Resumed { .. })).await;
    }
    // A room that is over.
    let (mut ended, _, ended_token) = Client::create(&url).await;
    ended.send(json!({"type": "leave"})).await;
    assert_eq!(ended.recv().await, Received::Closed(Some(close::NORMAL)));
    honest.exchange().await;

    let unknown = "0123456789abcdef".repeat(2);
    let mut answers = Vec::new();
    for token in [unknown.as_str(), "not hex at all", ended_token.as_str(), "00"] {
        answers.push(resume_refusal(&url, token).await);
    }
    let expected = ("bad_token".to_owned(), "no seat has this token".to_owned());
    assert!(answers.iter().all(|answer| *answer == expected), "one answer for every failure: {answers:?}");
    // The fifth failure in a minute is refused before the token is even looked at, and so is a good token now.
    assert_eq!(resume_refusal(&url, &unknown).await.0, "rate_limited");
    assert_eq!(resume_refusal(&url, &live_token).await.0, "rate_limited");
    honest.exchange().await;
    relay.stop().await;
}

#[tokio::test]
async fn a_nameplate_is_free_again_once_its_room_is_paired() {
    let dir = tempfile::tempdir().unwrap();
    let relay = TestRelay::start(dir.path(), test_limits()).await;
    let url = relay.url();
    let mut honest = HonestPair::start(&url).await;

    let (mut first_host, mut first_guest, plate, _, _) = Client::pair(&url).await;
    // The number is free at once: a late joiner finds no room, a new room takes the number.
    let mut late = Client::connect(&url).await;
    late.send(json!({"type": "join", "nameplate": plate})).await;
    late.expect_error_and_close("unknown_nameplate", close::UNKNOWN_NAMEPLATE).await;
    let (mut second_host, second_plate, _) = Client::create(&url).await;
    assert_eq!(second_plate, plate);
    let (mut second_guest, _) = Client::join(&url, &plate).await;
    second_host.expect(|m| matches!(m, ServerMessage::Paired { .. })).await;
    // Both rooms that used the number flow independently.
    first_host.send_binary(b"first".to_vec()).await;
    second_host.send_binary(b"second".to_vec()).await;
    first_guest.expect_binary(b"first").await;
    second_guest.expect_binary(b"second").await;
    first_guest.expect_silence().await;
    honest.exchange().await;
    relay.stop().await;
}

#[tokio::test]
async fn after_a_wrong_code_the_creator_reopens_and_the_right_guest_pairs() {
    let dir = tempfile::tempdir().unwrap();
    let relay = TestRelay::start(dir.path(), test_limits()).await;
    let url = relay.url();
    let mut honest = HonestPair::start(&url).await;

    let (mut host, plate, _) = Client::create(&url).await;
    // A wrong guest still connected when the creator reopens: it is sent away and its token is void.
    let (mut wrong, wrong_token) = Client::join(&url, &plate).await;
    host.expect(|m| matches!(m, ServerMessage::Paired { .. })).await;
    wrong.send(json!({"type": "reopen"})).await;
    wrong.expect_error_and_close("bad_message", close::BAD_MESSAGE).await;
    host.expect(|m| matches!(m, ServerMessage::PeerAway { .. })).await;
    let mut wrong = Client::connect(&url).await;
    wrong.send(json!({"type": "resume", "token": wrong_token})).await;
    wrong.expect(|m| matches!(m, ServerMessage::Resumed { .. })).await;
    host.expect(|m| *m == ServerMessage::PeerBack).await;
    host.send(json!({"type": "reopen"})).await;
    assert_eq!(host.recv().await, Received::Control(ServerMessage::Reopened { nameplate: plate.clone() }));
    assert_eq!(wrong.recv().await, Received::Control(ServerMessage::PeerGone { reason: GoneReason::Rejected }));
    assert_eq!(wrong.recv().await, Received::Closed(Some(close::NORMAL)));
    assert_eq!(resume_refusal(&url, &wrong_token).await.0, "bad_token");

    // A second wrong guest reports and drops (the client's way); reopening twice answers twice.
    let (mut wrong, _) = Client::join(&url, &plate).await;
    host.expect(|m| matches!(m, ServerMessage::Paired { .. })).await;
    wrong.send(json!({"type": "report", "result": "scary"})).await;
    let frame = tokio_tungstenite::tungstenite::protocol::CloseFrame {
        code: tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode::Policy,
        reason: "wrong code".into(),
    };
    wrong.ws.close(Some(frame)).await.unwrap();
    host.expect(|m| matches!(m, ServerMessage::PeerAway { .. })).await;
    for _ in 0..2 {
        host.send(json!({"type": "reopen"})).await;
        assert_eq!(host.recv().await, Received::Control(ServerMessage::Reopened { nameplate: plate.clone() }));
    }
    // The right guest pairs and the game flows.
    let (mut right, _) = Client::join(&url, &plate).await;
    host.expect(|m| matches!(m, ServerMessage::Paired { .. })).await;
    host.send_binary(b"welcome".to_vec()).await;
    right.expect_binary(b"welcome").await;
    right.send_binary(b"thanks".to_vec()).await;
    host.expect_binary(b"thanks").await;
    honest.exchange().await;
    relay.stop().await;
}

#[tokio::test]
async fn a_text_frame_that_is_not_utf8_closes_with_1007() {
    let dir = tempfile::tempdir().unwrap();
    let relay = TestRelay::start(dir.path(), test_limits()).await;
    let url = relay.url();
    let mut honest = HonestPair::start(&url).await;

    let (mut seated, mut peer, _, _, _) = Client::pair(&url).await;
    // tungstenite checks UTF-8 when sending text too, so the frame is built by hand.
    let invalid = tokio_tungstenite::tungstenite::protocol::frame::Frame::message(
        vec![b'{', 0xff, 0xfe, b'}'],
        tokio_tungstenite::tungstenite::protocol::frame::coding::OpCode::Data(
            tokio_tungstenite::tungstenite::protocol::frame::coding::Data::Text,
        ),
        true,
    );
    seated.ws.send(Message::Frame(invalid)).await.unwrap();
    seated.expect_error_and_close("bad_encoding", close::BAD_ENCODING).await;
    peer.expect(|m| matches!(m, ServerMessage::PeerAway { .. })).await;
    honest.exchange().await;
    relay.stop().await;
}

#[tokio::test]
async fn only_json_objects_are_control_messages() {
    let dir = tempfile::tempdir().unwrap();
    let relay = TestRelay::start(dir.path(), test_limits()).await;
    let url = relay.url();
    let mut honest = HonestPair::start(&url).await;
    for text in [r#"["create"]"#, r#"["leave"]"#, r#"["join","1"]"#, "42", "null", r#""create""#] {
        let mut client = Client::connect(&url).await;
        client.ws.send(Message::Text(text.into())).await.unwrap();
        client.expect_error_and_close("bad_message", close::BAD_MESSAGE).await;
    }
    let (mut seated, _peer, _, _, _) = Client::pair(&url).await;
    seated.ws.send(Message::Text(r#"["leave"]"#.into())).await.unwrap();
    seated.expect_error_and_close("bad_message", close::BAD_MESSAGE).await;
    honest.exchange().await;
    relay.stop().await;
}
