//! A real relay on 127.0.0.1:0 and real tokio-tungstenite clients, for the integration tests.

use std::net::{IpAddr, SocketAddr};
use std::time::{Duration, Instant};

use fairdeck_relay::protocol::{PROTOCOL_VERSION, PeerState, SeatState, ServerMessage, TO_ALL};
use fairdeck_relay::{Limits, Relay, RelayBuilder, RelayError, ShutdownHandle, StatsStore};
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};
use tokio::task::JoinHandle;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// Longest a test waits for something it expects.
pub const PATIENCE: Duration = Duration::from_secs(10);

/// Limits for tests: production values except timings short enough to test expiry quickly.
pub fn test_limits() -> Limits {
    Limits {
        hold: Duration::from_secs(10),
        waiting_lifetime: Duration::from_secs(30),
        shutdown_grace: Duration::from_secs(2),
        restart_hint: Duration::from_millis(100),
        ..Limits::default()
    }
}

/// A relay serving in this process.
pub struct TestRelay {
    pub addr: SocketAddr,
    pub stats: StatsStore,
    shutdown: ShutdownHandle,
    task: JoinHandle<Result<(), RelayError>>,
}

impl TestRelay {
    /// A relay with SQLite statistics in `data_dir`.
    pub async fn start(data_dir: &std::path::Path, limits: Limits) -> TestRelay {
        TestRelay::start_with(Relay::builder("127.0.0.1:0".parse().unwrap(), data_dir).limits(limits)).await
    }

    pub async fn start_with(builder: RelayBuilder) -> TestRelay {
        let mut relay = builder.build().await.expect("relay builds");
        let addr = relay.bind().await.expect("relay binds");
        let stats = relay.stats().clone();
        let shutdown = relay.shutdown_handle();
        let task = tokio::spawn(relay.serve());
        TestRelay { addr, stats, shutdown, task }
    }

    pub fn url(&self) -> String {
        format!("ws://{}/v1", self.addr)
    }

    /// Shuts down and waits for the relay to finish (statistics flushed, rooms handed over).
    pub async fn stop(self) -> StatsStore {
        self.shutdown.shutdown();
        tokio::time::timeout(PATIENCE, self.task)
            .await
            .expect("relay stops in time")
            .expect("relay task")
            .expect("relay serves without error");
        self.stats
    }
}

/// What `met` and `resumed` tell `seat` of a room of two: where the other seat stands.
pub fn other(seat: u8, state: PeerState) -> Vec<SeatState> {
    vec![SeatState { seat: 1 - seat, state }]
}

/// What a client received.
#[derive(Debug, PartialEq)]
pub enum Received {
    Control(ServerMessage),
    Binary(Vec<u8>),
    /// A close frame (with its code) or the end of the stream (`None`).
    Closed(Option<u16>),
}

pub struct Client {
    pub ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    /// The welcome's challenge, which a `rendezvous` on this connection signs.
    pub challenge: [u8; 32],
    /// Whether `watchers` messages are received; if not (the default, for the tests of everything but watching)
    /// they are passed over: a player is told them after `paired`, `resumed` and `met`.
    pub sees_watchers: bool,
}

impl Client {
    /// Connects and reads the welcome.
    pub async fn connect(url: &str) -> Client {
        let (ws, _) = tokio_tungstenite::connect_async(url).await.expect("connect");
        Client::welcomed(ws).await
    }

    /// Connects from another loopback address (such as 127.0.0.2, so that per-address limits tell it apart from
    /// clients on 127.0.0.1) and reads the welcome.
    pub async fn connect_from(source: IpAddr, url: &str) -> Client {
        let addr: SocketAddr = url.trim_start_matches("ws://").trim_end_matches("/v1").parse().expect("relay url");
        Client::connect_over(tcp_from(source, addr).await, url).await
    }

    /// Makes a WebSocket of a TCP connection already open to the relay, and reads the welcome.
    pub async fn connect_over(tcp: TcpStream, url: &str) -> Client {
        let (ws, _) = tokio_tungstenite::client_async(url, MaybeTlsStream::Plain(tcp)).await.expect("connect");
        Client::welcomed(ws).await
    }

    async fn welcomed(ws: WebSocketStream<MaybeTlsStream<TcpStream>>) -> Client {
        let mut client = Client { ws, challenge: [0; 32], sees_watchers: false };
        match client.recv().await {
            Received::Control(ServerMessage::Welcome { protocol: PROTOCOL_VERSION, challenge, .. }) => {
                client.challenge = hex::decode(challenge).unwrap().try_into().expect("a 32-byte challenge");
            }
            other => panic!("expected welcome, got {other:?}"),
        }
        client
    }

    /// Creates a room; returns the client, its nameplate and token.
    pub async fn create(url: &str) -> (Client, String, String) {
        let mut client = Client::connect(url).await;
        client.send(json!({"type": "create", "client": "test/creator"})).await;
        match client.recv().await {
            Received::Control(ServerMessage::Created { nameplate, seat: 0, seats: 2, token }) => {
                (client, nameplate, token)
            }
            other => panic!("expected created, got {other:?}"),
        }
    }

    /// Joins a room; returns the client and its token, after `paired`.
    pub async fn join(url: &str, nameplate: &str) -> (Client, String) {
        let mut client = Client::connect(url).await;
        client.send(json!({"type": "join", "nameplate": nameplate, "client": "test/joiner"})).await;
        let token = match client.recv().await {
            Received::Control(ServerMessage::Joined { seat: 1, token, .. }) => token,
            other => panic!("expected joined, got {other:?}"),
        };
        client.expect(|m| matches!(m, ServerMessage::Paired { .. })).await;
        (client, token)
    }

    /// A paired room: (creator, joiner, nameplate, creator token, joiner token). Both have seen `paired`.
    pub async fn pair(url: &str) -> (Client, Client, String, String, String) {
        let (mut creator, nameplate, creator_token) = Client::create(url).await;
        let (joiner, joiner_token) = Client::join(url, &nameplate).await;
        creator.expect(|m| matches!(m, ServerMessage::Paired { .. })).await;
        (creator, joiner, nameplate, creator_token, joiner_token)
    }

    pub async fn send(&mut self, message: Value) {
        self.ws.send(Message::Text(message.to_string().into())).await.expect("send text");
    }

    pub async fn send_binary(&mut self, data: Vec<u8>) {
        self.ws.send(Message::Binary(data.into())).await.expect("send binary");
    }

    /// Sends a player's data frame to every other seat.
    pub async fn send_data(&mut self, payload: &[u8]) {
        self.send_binary([&[TO_ALL][..], payload].concat()).await;
    }

    /// Leaves with a normal close frame.
    pub async fn close_normally(&mut self) {
        let frame = CloseFrame { code: CloseCode::Normal, reason: "bye".into() };
        let _ = self.ws.close(Some(frame)).await;
    }

    /// The next message, skipping pings and pongs.
    pub async fn recv(&mut self) -> Received {
        tokio::time::timeout(PATIENCE, self.recv_now()).await.expect("a message in time")
    }

    /// The next message if one arrives within `wait`.
    pub async fn try_recv(&mut self, wait: Duration) -> Option<Received> {
        tokio::time::timeout(wait, self.recv_now()).await.ok()
    }

    async fn recv_now(&mut self) -> Received {
        loop {
            return match self.ws.next().await {
                Some(Ok(Message::Text(text))) => {
                    let message =
                        serde_json::from_str(text.as_str()).unwrap_or_else(|e| panic!("bad control {text}: {e}"));
                    if !self.sees_watchers && matches!(message, ServerMessage::Watchers { .. }) {
                        continue;
                    }
                    Received::Control(message)
                }
                Some(Ok(Message::Binary(data))) => Received::Binary(data.to_vec()),
                Some(Ok(Message::Close(frame))) => Received::Closed(frame.map(|f| u16::from(f.code))),
                Some(Ok(_)) => continue,
                Some(Err(_)) | None => Received::Closed(None),
            };
        }
    }

    /// Waits for a control message matching `wanted`, skipping other control messages; panics on data or close.
    pub async fn expect(&mut self, wanted: impl Fn(&ServerMessage) -> bool) -> ServerMessage {
        loop {
            match self.recv().await {
                Received::Control(message) if wanted(&message) => return message,
                Received::Control(_) => continue,
                other => panic!("expected a control message, got {other:?}"),
            }
        }
    }

    /// Expects the next message to be this binary frame.
    pub async fn expect_binary(&mut self, data: &[u8]) {
        match self.recv().await {
            Received::Binary(got) => assert!(got == data, "frame differs ({} bytes vs {})", got.len(), data.len()),
            other => panic!("expected a {}-byte frame, got {other:?}", data.len()),
        }
    }

    /// Expects the next message to be a data frame from seat `from` with this payload.
    pub async fn expect_data(&mut self, from: u8, payload: &[u8]) {
        self.expect_binary(&[&[from][..], payload].concat()).await;
    }

    /// Expects an error with this code, then a close frame with `close`.
    pub async fn expect_error_and_close(&mut self, code: &str, close: u16) {
        match self.recv().await {
            Received::Control(ServerMessage::Error { code: got, .. }) => assert_eq!(got.as_str(), code),
            other => panic!("expected error {code}, got {other:?}"),
        }
        assert_eq!(self.recv().await, Received::Closed(Some(close)));
    }

    /// Asserts that nothing arrives for a short while.
    pub async fn expect_silence(&mut self) {
        if let Ok(message) = tokio::time::timeout(Duration::from_millis(200), self.recv_now()).await {
            panic!("expected silence, got {message:?}");
        }
    }
}

/// A TCP connection to `addr` from the loopback address `source`.
pub async fn tcp_from(source: IpAddr, addr: SocketAddr) -> TcpStream {
    let socket = TcpSocket::new_v4().expect("socket");
    socket.bind(SocketAddr::new(source, 0)).expect("bind the source address");
    socket.connect(addr).await.expect("connect")
}

/// Waits until the relay closes `stream` (reading and dropping whatever it sends), and returns how long that
/// took. Fails if it stays open longer than `PATIENCE`.
pub async fn wait_closed(stream: &mut TcpStream) -> Duration {
    let started = Instant::now();
    let mut buffer = [0; 1024];
    loop {
        match tokio::time::timeout_at((started + PATIENCE).into(), stream.read(&mut buffer)).await {
            Ok(Ok(0) | Err(_)) => return started.elapsed(),
            Ok(Ok(_)) => continue,
            Err(_) => panic!("the connection is still open after {PATIENCE:?}"),
        }
    }
}

/// The value of a metric line (name with its labels) in a Prometheus exposition.
pub fn metric(text: &str, name: &str) -> f64 {
    text.lines()
        .find_map(|line| line.strip_prefix(name)?.strip_prefix(' ')?.trim().parse().ok())
        .unwrap_or_else(|| panic!("{name} not in\n{text}"))
}

/// Reads the relay's metrics.
pub async fn metrics(addr: SocketAddr) -> String {
    let (status, text) = http_get(addr, "/metrics", &[]).await;
    assert_eq!(status, 200);
    text
}

/// A minimal HTTP/1.1 GET; returns the status code and the body.
pub async fn http_get(addr: SocketAddr, path: &str, headers: &[(&str, &str)]) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).await.expect("connect http");
    let mut request = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    stream.write_all(request.as_bytes()).await.expect("write request");
    let mut response = Vec::new();
    tokio::time::timeout(PATIENCE, stream.read_to_end(&mut response)).await.expect("response in time").expect("read");
    let response = String::from_utf8_lossy(&response).into_owned();
    let status = response.split(' ').nth(1).and_then(|s| s.parse().ok()).expect("status line");
    let body = response.split_once("\r\n\r\n").map(|(_, body)| body.to_owned()).unwrap_or_default();
    (status, body)
}

/// Waits (blocking) for a child process to exit; kills it and fails the test if it runs past [`PATIENCE`].
pub fn wait_for_exit(child: &mut std::process::Child, what: &str) -> std::process::ExitStatus {
    let deadline = Instant::now() + PATIENCE;
    loop {
        if let Some(status) = child.try_wait().expect("the child's status") {
            return status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("{what}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}
