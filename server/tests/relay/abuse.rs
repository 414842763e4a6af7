//! What an attacker (or a broken client) can try against a public relay, each case next to an honest pair in
//! another room that must keep exchanging byte-exact frames throughout.

use std::net::{IpAddr, Ipv4Addr};
use std::time::{Duration, Instant};

use fairdeck_relay::protocol::{GoneReason, ServerMessage, TO_ALL, close};
use fairdeck_relay::{Limits, Relay};
use futures_util::SinkExt;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

use crate::common::{Client, PATIENCE, Received, TestRelay, metric, metrics, tcp_from, test_limits, wait_closed};

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
            self.host.send_data(frame).await;
            self.guest.send_data(&frame.iter().rev().copied().collect::<Vec<_>>()).await;
        }
        for frame in &frames {
            self.guest.expect_data(0, frame).await;
            self.host.expect_data(1, &frame.iter().rev().copied().collect::<Vec<_>>()).await;
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
    first_host.send_data(b"first").await;
    second_host.send_data(b"second").await;
    first_guest.expect_data(0, b"first").await;
    second_guest.expect_data(0, b"second").await;
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
    host.expect(|m| matches!(m, ServerMessage::PeerBack { .. })).await;
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
    host.send_data(b"welcome").await;
    right.expect_data(0, b"welcome").await;
    right.send_data(b"thanks").await;
    host.expect_data(1, b"thanks").await;
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

/// Where the attacks come from: another loopback address, so that per-address limits tell it from the honest pair.
const ATTACKER: IpAddr = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2));

/// Limits for the connection-level cases: short timeouts, so that the tests take a second, not a minute.
fn transport_limits() -> Limits {
    Limits {
        request_head_timeout: Duration::from_millis(500),
        upgrade_timeout: Duration::from_secs(5),
        ..test_limits()
    }
}

/// Sends a request head a byte at a time, one byte every 50 ms, until the relay closes the connection.
fn slowloris(mut stream: TcpStream) -> tokio::task::JoinHandle<Duration> {
    tokio::spawn(async move {
        let started = Instant::now();
        let head = b"GET /v1 HTTP/1.1\r\nHost: relay\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nX-Padding: ";
        for byte in head.iter().chain(std::iter::repeat(&b'a')) {
            if stream.write_all(&[*byte]).await.is_err() || started.elapsed() > PATIENCE {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let closed = wait_closed(&mut stream).await;
        started.elapsed().max(closed)
    })
}

#[tokio::test]
async fn silent_connections_and_slowloris_heads_are_closed_by_the_head_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let relay = TestRelay::start(dir.path(), transport_limits()).await;
    let mut honest = HonestPair::start(&relay.url()).await;

    let mut silent = Vec::new();
    for _ in 0..20 {
        silent.push(tcp_from(ATTACKER, relay.addr).await);
    }
    let slow: Vec<_> = {
        let mut slow = Vec::new();
        for _ in 0..5 {
            slow.push(slowloris(tcp_from(ATTACKER, relay.addr).await));
        }
        slow
    };
    honest.exchange().await;
    let mut closed = Vec::new();
    for stream in &mut silent {
        closed.push(wait_closed(stream).await);
    }
    for task in slow {
        closed.push(task.await.unwrap());
    }
    eprintln!("closed after (head timeout 500 ms): {closed:?}");
    let text = metrics(relay.addr).await;
    assert_eq!(metric(&text, r#"fairdeck_relay_connections_refused_total{reason="head_timeout"}"#), 25.0);
    assert_eq!(metric(&text, "fairdeck_relay_handshakes"), 1.0, "only the scrape itself is in its handshake");
    honest.exchange().await;
    relay.stop().await;
}

#[tokio::test]
async fn a_connection_not_upgraded_in_time_is_closed_by_the_upgrade_deadline() {
    let dir = tempfile::tempdir().unwrap();
    // A head timeout longer than the upgrade deadline, so that the deadline is what closes them.
    let limits = Limits {
        request_head_timeout: Duration::from_secs(30),
        upgrade_timeout: Duration::from_millis(500),
        ..test_limits()
    };
    let relay = TestRelay::start(dir.path(), limits).await;
    let mut honest = HonestPair::start(&relay.url()).await;
    let mut silent = tcp_from(ATTACKER, relay.addr).await;
    let slow = slowloris(tcp_from(ATTACKER, relay.addr).await);
    honest.exchange().await;
    wait_closed(&mut silent).await;
    slow.await.unwrap();
    let text = metrics(relay.addr).await;
    assert_eq!(metric(&text, r#"fairdeck_relay_connections_refused_total{reason="upgrade_timeout"}"#), 2.0);
    honest.exchange().await;
    relay.stop().await;
}

#[tokio::test]
async fn one_address_cannot_take_more_than_its_connections() {
    let dir = tempfile::tempdir().unwrap();
    let limits = Limits { connections_per_address: 3, request_head_timeout: Duration::from_secs(30), ..test_limits() };
    let relay = TestRelay::start(dir.path(), limits).await;
    let mut honest = HonestPair::start(&relay.url()).await;

    // Two WebSockets and one connection still in its handshake: the address's three.
    let first = Client::connect_from(ATTACKER, &relay.url()).await;
    let _second = Client::connect_from(ATTACKER, &relay.url()).await;
    let _silent = tcp_from(ATTACKER, relay.addr).await;
    // The fourth is closed at once, before any HTTP.
    let mut fourth = tcp_from(ATTACKER, relay.addr).await;
    wait_closed(&mut fourth).await;
    honest.exchange().await;
    // Another address is not affected, and a closed connection gives its slot back.
    let _other = Client::connect_from(IpAddr::V4(Ipv4Addr::new(127, 0, 0, 3)), &relay.url()).await;
    drop(first);
    let deadline = Instant::now() + PATIENCE;
    loop {
        let mut stream = tcp_from(ATTACKER, relay.addr).await;
        stream.write_all(b"GET /healthz HTTP/1.1\r\nHost: relay\r\n\r\n").await.unwrap();
        let mut response = Vec::new();
        let _ = tokio::time::timeout(PATIENCE, stream.read_to_end(&mut response)).await;
        if response.starts_with(b"HTTP/1.1 200") {
            break;
        }
        assert!(Instant::now() < deadline, "the closed connection never gave its slot back");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let text = metrics(relay.addr).await;
    assert!(metric(&text, r#"fairdeck_relay_connections_refused_total{reason="address_limit"}"#) >= 1.0);
    honest.exchange().await;
    relay.stop().await;
}

#[tokio::test]
async fn behind_a_trusted_proxy_the_forwarded_address_is_what_counts() {
    let dir = tempfile::tempdir().unwrap();
    let limits = Limits { connections_per_address: 2, ..test_limits() };
    let relay = TestRelay::start_with(
        Relay::builder("127.0.0.1:0".parse().unwrap(), dir.path()).limits(limits).trust_forwarded_for(true),
    )
    .await;
    // The honest pair comes through the same "proxy" (127.0.0.1) without a forwarded address of its own.
    let mut honest = HonestPair::start(&relay.url()).await;
    let forwarded = |client: &str| {
        let mut request = relay.url().into_client_request().unwrap();
        request.headers_mut().insert("x-forwarded-for", client.parse().unwrap());
        request
    };
    let mut kept = Vec::new();
    for _ in 0..2 {
        kept.push(tokio_tungstenite::connect_async(forwarded("198.51.100.7")).await.expect("under the limit"));
    }
    match tokio_tungstenite::connect_async(forwarded("198.51.100.7")).await {
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => assert_eq!(response.status(), 429),
        other => panic!("expected HTTP 429, got {other:?}"),
    }
    kept.push(tokio_tungstenite::connect_async(forwarded("198.51.100.8")).await.expect("another player"));
    honest.exchange().await;
    relay.stop().await;
}

#[tokio::test]
async fn unfinished_handshakes_are_capped_the_oldest_making_room() {
    let dir = tempfile::tempdir().unwrap();
    let limits = Limits { max_handshakes: 4, request_head_timeout: Duration::from_secs(1), ..test_limits() };
    let relay = TestRelay::start(dir.path(), limits).await;
    // Upgraded connections no longer count.
    let mut honest = HonestPair::start(&relay.url()).await;
    let mut silent = Vec::new();
    for _ in 0..4 {
        silent.push(tcp_from(ATTACKER, relay.addr).await);
    }
    // A fifth makes room: the oldest is closed at once, long before its head timeout.
    let mut fifth = tcp_from(ATTACKER, relay.addr).await;
    assert!(wait_closed(&mut silent[0]).await < Duration::from_millis(500), "the oldest makes room");
    wait_closed(&mut fifth).await;
    honest.exchange().await;
    // Once the head timeout has closed them, new connections get through again.
    for stream in &mut silent {
        wait_closed(stream).await;
    }
    let _late = Client::connect_from(ATTACKER, &relay.url()).await;
    let text = metrics(relay.addr).await;
    assert!(metric(&text, r#"fairdeck_relay_connections_refused_total{reason="handshake_limit"}"#) >= 1.0);
    honest.exchange().await;
    relay.stop().await;
}

#[tokio::test]
async fn a_burst_of_2000_small_frames_to_a_reader_that_reads_cuts_nobody() {
    let dir = tempfile::tempdir().unwrap();
    let relay = TestRelay::start(dir.path(), test_limits()).await;
    let mut honest = HonestPair::start(&relay.url()).await;
    let (mut sender, nameplate, _) = Client::create(&relay.url()).await;
    // A reader with a small socket buffer, busy for a moment when the burst comes (as a terminal UI may be): the
    // burst waits in the relay's queue rather than in the kernel's buffers.
    let socket = TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let mut reader = Client::connect_over(socket.connect(relay.addr).await.unwrap(), &relay.url()).await;
    reader.send(json!({"type": "join", "nameplate": nameplate})).await;
    reader.expect(|m| matches!(m, ServerMessage::Paired { .. })).await;
    sender.expect(|m| matches!(m, ServerMessage::Paired { .. })).await;
    let frames: Vec<Vec<u8>> = (0..2000u32).map(|i| [&i.to_be_bytes()[..], &[0xa5; 96]].concat()).collect();

    // One burst: every frame is written before the first flush.
    for frame in &frames {
        sender.ws.feed(Message::Binary([&[TO_ALL][..], frame].concat().into())).await.unwrap();
    }
    sender.ws.flush().await.unwrap();
    // Here the relay's queue to the reader holds most of the burst (about 2,000 frames on a test machine, where a
    // queue of 256 frames used to cut the reader off).
    tokio::time::sleep(Duration::from_millis(100)).await;
    for frame in &frames {
        reader.expect_data(0, frame).await;
    }
    // And back, the same way.
    for i in 0..2000u32 {
        reader.ws.feed(Message::Binary([&[TO_ALL][..], &i.to_le_bytes()].concat().into())).await.unwrap();
    }
    reader.ws.flush().await.unwrap();
    for i in 0..2000u32 {
        sender.expect_data(1, &i.to_le_bytes()).await;
    }
    sender.expect_silence().await;
    reader.expect_silence().await;
    let text = metrics(relay.addr).await;
    assert_eq!(metric(&text, r#"fairdeck_relay_rejections_total{reason="slow_reader"}"#), 0.0);
    honest.exchange().await;
    relay.stop().await;
}

/// Pushes `frame`s from `sender` (at most one per `pace`) until it hears that its peer was cut off; returns the
/// largest `fairdeck_relay_queued_bytes` seen meanwhile.
async fn push_until_peer_cut(relay: &TestRelay, sender: &mut Client, frame: &[u8], pace: Duration) -> f64 {
    let started = Instant::now();
    let mut largest_queue: f64 = 0.0;
    let mut sent = 0;
    loop {
        assert!(started.elapsed() < 3 * PATIENCE, "the reader was not cut off ({sent} frames sent)");
        for _ in 0..8 {
            sender.send_data(frame).await;
            sent += 1;
            tokio::time::sleep(pace).await;
        }
        largest_queue = largest_queue.max(metric(&metrics(relay.addr).await, "fairdeck_relay_queued_bytes"));
        while let Some(message) = sender.try_recv(Duration::from_millis(1)).await {
            if let Received::Control(ServerMessage::PeerAway { .. }) = message {
                return largest_queue;
            }
        }
    }
}

#[tokio::test]
async fn a_reader_that_never_reads_is_cut_off_with_its_queue_bounded_in_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let queue_bytes = 256 * 1024;
    let limits = Limits { max_message_bytes: 16 * 1024, queue_bytes, ..test_limits() };
    let relay = TestRelay::start(dir.path(), limits).await;
    let mut honest = HonestPair::start(&relay.url()).await;
    let (mut sender, mut never_reads, _, _, _) = Client::pair(&relay.url()).await;

    let largest_queue = push_until_peer_cut(&relay, &mut sender, &[0x5a; 16 * 1024 - 1], Duration::ZERO).await;
    assert!(largest_queue <= queue_bytes as f64, "queued {largest_queue} bytes, over the {queue_bytes} budget");
    honest.exchange().await;
    let text = metrics(relay.addr).await;
    assert_eq!(metric(&text, r#"fairdeck_relay_slow_readers_total{reason="bytes"}"#), 1.0);
    assert_eq!(metric(&text, "fairdeck_relay_queued_bytes"), 0.0, "the cut reader's queue is freed");
    // Reading at last, it finds what fitted in the socket buffers, then the documented close code.
    loop {
        match never_reads.recv().await {
            Received::Binary(_) => {}
            Received::Closed(code) => break assert_eq!(code, Some(close::SLOW_READER)),
            Received::Control(message) => panic!("unexpected {message:?}"),
        }
    }
    honest.exchange().await;
    relay.stop().await;
}

#[tokio::test]
async fn a_reader_that_falls_behind_for_too_long_is_cut_off_by_age() {
    let dir = tempfile::tempdir().unwrap();
    // A byte budget too large to be reached here: what cuts this reader is the age of its oldest frame.
    let limits = Limits { queue_bytes: 64 << 20, queue_age: Duration::from_millis(300), ..test_limits() };
    let relay = TestRelay::start(dir.path(), limits).await;
    let mut honest = HonestPair::start(&relay.url()).await;
    let (mut sender, _never_reads, _, _, _) = Client::pair(&relay.url()).await;
    push_until_peer_cut(&relay, &mut sender, &[0x33; 16 * 1024 - 1], Duration::from_millis(2)).await;
    let text = metrics(relay.addr).await;
    assert_eq!(metric(&text, r#"fairdeck_relay_slow_readers_total{reason="age"}"#), 1.0);
    assert_eq!(metric(&text, r#"fairdeck_relay_slow_readers_total{reason="bytes"}"#), 0.0);
    honest.exchange().await;
    relay.stop().await;
}
