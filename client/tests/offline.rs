//! The relay goes away mid-game: while the session tries to take its seat back, the player's commands still
//! reach the engine, and `quit` ends the session at once instead of after the reconnection gives up.
//!
//! Two scripted sessions play through a small relay of this file (create, join, pair, forward frames), which
//! is then stopped for good: its connections cut, its port closed.

use std::io::Write;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use fairdeck::session::{Brought, Options, Role, SessionError};
use fairdeck_relay_protocol::{ClientMessage, PROTOCOL_VERSION, ServerMessage};
use fairdeck_shared::crypto::Suite;
use futures_util::{SinkExt, StreamExt};
use serde_json::Value;
use tokio::io::{AsyncWriteExt, BufReader, DuplexStream};
use tokio::net::TcpListener;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};
use tokio::task::{JoinHandle, JoinSet, LocalSet};
use tokio_tungstenite::tungstenite::Message;

/// Far longer than anything here takes: only a session that never answers reaches it.
const HANG_GUARD: Duration = Duration::from_secs(300);

/// The seats of the relay's one room: where to send each player's frames.
type Seats = Arc<Mutex<[Option<UnboundedSender<Message>>; 2]>>;

/// A relay of one room, on a port of its own; `stop` cuts every connection and closes the port.
struct Relay {
    url: String,
    accept: JoinHandle<()>,
}

impl Relay {
    async fn start() -> Relay {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let url = format!("ws://{}/v1", listener.local_addr().expect("address"));
        let seats: Seats = Arc::default();
        let accept = tokio::spawn(async move {
            // Dropped with this task when the relay stops: every connection's task is aborted with it.
            let mut connections = JoinSet::new();
            loop {
                let (stream, _) = listener.accept().await.expect("accept");
                connections.spawn(serve(stream, seats.clone()));
            }
        });
        Relay { url, accept }
    }

    async fn stop(self) {
        self.accept.abort();
        let _ = self.accept.await;
    }
}

/// One player's connection: the welcome, its seat (`create` takes seat 0, `join` seat 1 and pairs both), then
/// its frames forwarded to the other seat.
async fn serve(stream: tokio::net::TcpStream, seats: Seats) {
    let ws = tokio_tungstenite::accept_async(stream).await.expect("handshake");
    let (mut sink, mut source) = ws.split();
    let (to_player, mut outbox) = unbounded_channel::<Message>();
    let writer = async move {
        while let Some(message) = outbox.recv().await {
            if sink.send(message).await.is_err() {
                break;
            }
        }
    };
    let control = |message: &ServerMessage| Message::text(serde_json::to_string(message).unwrap());
    let welcome = ServerMessage::Welcome {
        relay: "test".into(),
        protocol: PROTOCOL_VERSION,
        max_message_bytes: 1 << 20,
        hold_ms: 60_000,
        waiting_ms: 60_000,
        challenge: "00".repeat(32),
    };
    to_player.send(control(&welcome)).unwrap();
    let reader = async move {
        let mut seat = None;
        while let Some(Ok(message)) = source.next().await {
            match message {
                Message::Text(text) => match serde_json::from_str::<ClientMessage>(text.as_str()) {
                    Ok(ClientMessage::Create { .. }) => {
                        seat = Some(0);
                        seats.lock().unwrap()[0] = Some(to_player.clone());
                        let created =
                            ServerMessage::Created { nameplate: "7".into(), seat: 0, seats: 2, token: "t0".into() };
                        to_player.send(control(&created)).unwrap();
                    }
                    Ok(ClientMessage::Join { nameplate, .. }) => {
                        seat = Some(1);
                        let mut seats = seats.lock().unwrap();
                        seats[1] = Some(to_player.clone());
                        let joined = ServerMessage::Joined { nameplate, seat: 1, seats: 2, token: "t1".into() };
                        to_player.send(control(&joined)).unwrap();
                        for player in seats.iter().flatten() {
                            let _ = player.send(control(&ServerMessage::Paired { peer_client: None }));
                        }
                    }
                    _ => {}
                },
                // A frame addressed to the other seat leaves naming its sender instead.
                Message::Binary(frame) if !frame.is_empty() => {
                    let other = seat.map(|seat: usize| (seat, seats.lock().unwrap()[1 - seat].clone()));
                    if let Some((from, Some(other))) = other {
                        let named = [&[from as u8][..], &frame[1..]].concat();
                        let _ = other.send(Message::Binary(named.into()));
                    }
                }
                _ => {}
            }
        }
    };
    tokio::join!(writer, reader);
}

/// Scripted mode's output, one event a line, sent on as JSON as it is written.
struct Events {
    partial: Vec<u8>,
    lines: UnboundedSender<Value>,
}

impl Write for Events {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.partial.extend_from_slice(bytes);
        while let Some(end) = self.partial.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = self.partial.drain(..=end).collect();
            let event = serde_json::from_slice(&line).map_err(std::io::Error::other)?;
            let _ = self.lines.send(event);
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A player in scripted mode, run in this process: its input, its events, and its session's outcome.
struct Player {
    name: &'static str,
    input: DuplexStream,
    events: UnboundedReceiver<Value>,
    session: JoinHandle<Result<(), SessionError>>,
}

impl Player {
    fn spawn(name: &'static str, role: Role, relay: &str, games: &Path) -> Player {
        let (input, script_input) = tokio::io::duplex(4096);
        let (lines, events) = unbounded_channel();
        let options = Options {
            role,
            relay: Some(relay.to_string()),
            serve: None,
            games: games.join(name),
            name: name.to_string(),
            record: None,
            ca: None,
            untap_draw: false,
        };
        let out = Events { partial: Vec::new(), lines };
        let session =
            tokio::task::spawn_local(fairdeck::script::run_script(options, BufReader::new(script_input), out));
        Player { name, input, events, session }
    }

    async fn send(&mut self, line: &str) {
        self.input.write_all(format!("{line}\n").as_bytes()).await.expect("the session reads its input");
    }

    /// Reads events up to the first of `kind`, which it returns; every event before it is given to `seen`.
    async fn expect_with(&mut self, kind: &str, mut seen: impl FnMut(&Value)) -> Value {
        let read = async {
            loop {
                let Some(event) = self.events.recv().await else {
                    panic!("{}: the session ended before a {kind} event", self.name);
                };
                if event["event"] == kind {
                    return event;
                }
                seen(&event);
            }
        };
        tokio::time::timeout(HANG_GUARD, read).await.unwrap_or_else(|_| panic!("{}: no {kind} event", self.name))
    }

    async fn expect(&mut self, kind: &str) -> Value {
        self.expect_with(kind, |_| {}).await
    }
}

fn deck_file(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("small.txt");
    std::fs::write(&path, "6 Mountain\n4 Lightning Bolt\n").expect("write the deck");
    path
}

#[test]
fn with_the_relay_down_a_command_still_reaches_the_engine_and_quit_ends_at_once() {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    LocalSet::new().block_on(&runtime, async {
        let dir = tempfile::tempdir().unwrap();
        let deck = deck_file(dir.path());
        let relay = Relay::start().await;
        let mut host = Player::spawn(
            "host",
            Role::Host { brought: Brought::Deck(deck.clone()), suite: Suite::Ristretto255 },
            &relay.url,
            dir.path(),
        );
        let code = host.expect("code").await["code"].as_str().unwrap().to_string();
        let mut guest =
            Player::spawn("guest", Role::Join { code, brought: Brought::Deck(deck) }, &relay.url, dir.path());
        for player in [&mut host, &mut guest] {
            player.expect("ready").await;
        }

        relay.stop().await;
        host.expect("relay_lost").await;
        // The host's own draw applies on its table at once; the guest's half of the exchange waits in the
        // channel for the seat to come back. No reconnection gives up first (the seat is tried for a minute).
        host.send("draw 1").await;
        let applied = host
            .expect_with("applied", |event| {
                assert_ne!(event["event"], "error", "the session gave up before the command ran: {event}");
            })
            .await;
        assert_eq!(applied["by"], "host");
        assert_eq!(applied["action"]["action"], "draw");
        host.send("table").await;
        let table = host.expect("table").await;
        assert_eq!(table["zones"]["host hand"]["count"], 1, "the card is in the host's hand: {table}");

        // Quitting while offline: the session ends well, the relay still down.
        host.send("quit").await;
        let outcome = tokio::time::timeout(HANG_GUARD, host.session).await.expect("the host's session ended");
        assert!(matches!(outcome, Ok(Ok(()))), "{outcome:?}");
        guest.expect("relay_lost").await;
        drop(guest.input);
        let outcome = tokio::time::timeout(HANG_GUARD, guest.session).await.expect("the guest's session ended");
        assert!(matches!(outcome, Ok(Ok(()))), "the end of the input quits: {outcome:?}");
    });
}
