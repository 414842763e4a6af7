//! `fairdeck watch CODE`: the spectator's driver. It takes a watch seat (`watch`), runs the channel with the
//! player and the observer ([`Spectator`]), and shows what happens on a [`WatchFront`]: the terminal's
//! read-only table, or scripted mode's JSON lines.

use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use fairdeck_relay_protocol::{ClientMessage, ErrorCode, GoneReason, ServerMessage};
use futures_util::{SinkExt, StreamExt};
use serde::Serialize;
use tokio_tungstenite::tungstenite::Message;

use super::error::WatchError;
use super::spectator::{HELLO_AGAIN, News, Spectator};
use crate::code::{self, Code};
use crate::session::{
    FIRST_RETRY, LONGEST_RETRY, Opened, RECONNECT_FOR, SessionError, Ws, next_control, open_relay, os_seed,
    relay_refusal, send_control,
};

/// What `fairdeck watch` was given.
pub struct WatchOptions {
    /// The watch code, as typed.
    pub code: String,
    pub relay: String,
    /// A private relay's CA, for `wss://`.
    pub ca: Option<PathBuf>,
}

/// Why watching ended without an error.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Ended {
    /// A player turned watching off.
    WatchingOff,
    /// The player left, and the room is over.
    PlayerLeft,
    /// The relay closed the connection, and no watch seat could be had again for a minute.
    Closed,
    /// The spectator quit.
    Quit,
    /// The game is one spectators cannot follow yet (limited play).
    Unsupported,
}

/// The spectator's side: scripted mode, or the terminal's read-only table.
pub trait WatchFront {
    /// The spectator's next command (`quit`, `table`), or `None` once its input ended. Cancel-safe.
    fn next_line(&mut self) -> impl Future<Output = Option<String>>;
    /// The relay gave this watch seat (again, after a lost connection: the feed starts afresh).
    fn watching(&mut self, watcher: u8) -> std::io::Result<()>;
    /// The connection to the relay was lost, for `reason`: a watch seat is being taken again.
    fn relay_lost(&mut self, reason: &str) -> std::io::Result<()>;
    /// Shows what happened, with the spectator's table as it stands after it.
    fn show(&mut self, news: News, spectator: &Spectator) -> std::io::Result<()>;
    /// Watching ended.
    fn ended(&mut self, why: Ended, spectator: &Spectator) -> std::io::Result<()>;
}

/// Watches the game of `options.code` until it ends or the spectator quits. A lost connection to the relay (a
/// restart, a network blip) is taken back as a player's is, for a minute: the spectator starts afresh, the
/// player's program sending its feed again from the start to a new watch seat.
pub async fn watch(options: WatchOptions, front: &mut impl WatchFront) -> Result<(), WatchError> {
    let code = code::parse(&options.code).map_err(SessionError::BadCode)?;
    let tls = crate::tls::client_config(options.ca.as_deref()).map_err(SessionError::Ca)?;
    let mut seated = match take_watch_seat(&options.relay, &tls, &code, front).await {
        // A relay of several sharing Redis, which cannot say where the room is now.
        Err(WatchError::Session(SessionError::ComeBack { .. })) => None,
        seated => Some(seated?),
    };
    // What the spectator saw last stays for the end's words until a seat is taken again.
    let mut spectator = Spectator::new(&code, os_seed(), os_seed());
    loop {
        let mut ws = match seated.take() {
            Some(ws) => ws,
            None => match come_back(&options.relay, &tls, &code, front).await? {
                Ok(ws) => {
                    spectator = Spectator::new(&code, os_seed(), os_seed());
                    ws
                }
                Err(why) => return Ok(front.ended(why, &spectator)?),
            },
        };
        let reason = match follow(&mut ws, &code, &mut spectator, front).await {
            Ok(Ended::Closed) => "the relay closed the connection".to_string(),
            Err(WatchError::Session(SessionError::Lost(reason))) => reason,
            Ok(why) => return Ok(front.ended(why, &spectator)?),
            Err(error) => return Err(error),
        };
        front.relay_lost(&reason)?;
    }
}

/// Takes a watch seat of the game of `code`.
async fn take_watch_seat(
    relay: &str,
    tls: &Arc<rustls::ClientConfig>,
    code: &Code,
    front: &mut impl WatchFront,
) -> Result<Ws, WatchError> {
    let Opened { mut ws, .. } = open_relay(relay, tls).await?;
    send_control(&mut ws, &ClientMessage::Watch { nameplate: code.nameplate().to_string() }).await?;
    let watcher = match next_control(&mut ws).await? {
        ServerMessage::Watching { watcher } => watcher,
        ServerMessage::Error { code: ErrorCode::UnknownNameplate, .. } => return Err(WatchError::UnknownCode),
        other => return Err(relay_refusal(other).into()),
    };
    front.watching(watcher)?;
    Ok(ws)
}

/// Takes a watch seat again after the connection was lost, backing off as a player does, until a minute is out
/// (`Err(Ended::Closed)`), watching is turned off, or the spectator quits.
async fn come_back(
    relay: &str,
    tls: &Arc<rustls::ClientConfig>,
    code: &Code,
    front: &mut impl WatchFront,
) -> Result<Result<Ws, Ended>, WatchError> {
    // A player's backoff, for as long as a player tries.
    let deadline = Instant::now() + RECONNECT_FOR;
    let mut delay = FIRST_RETRY;
    let mut input_done = false;
    loop {
        let wait = tokio::time::sleep(delay);
        tokio::pin!(wait);
        loop {
            tokio::select! {
                () = &mut wait => break,
                line = front.next_line(), if !input_done => match line.as_deref().map(str::trim) {
                    Some("quit") => return Ok(Err(Ended::Quit)),
                    Some(_) => {}
                    None => input_done = true,
                },
            }
        }
        delay = match take_watch_seat(relay, tls, code, front).await {
            Ok(ws) => return Ok(Ok(ws)),
            Err(WatchError::Session(SessionError::Relay { code: "watching_off", .. })) => {
                return Ok(Err(Ended::WatchingOff));
            }
            // A relay restarting says when to come back; one that lost the room may have it again once the
            // player's program is back.
            Err(WatchError::Session(SessionError::ComeBack { after })) => after.min(LONGEST_RETRY),
            Err(WatchError::UnknownCode) => (delay * 2).min(LONGEST_RETRY),
            Err(WatchError::Session(error)) if error.is_transient() => (delay * 2).min(LONGEST_RETRY),
            Err(error) => return Err(error),
        };
        if Instant::now() >= deadline {
            return Ok(Err(Ended::Closed));
        }
    }
}

/// Runs the channel and the observer until the relay or the spectator ends it. A player's program that starts
/// again (its game resumed) sends its feed from the start in a new channel: the spectator starts afresh with it.
async fn follow(
    ws: &mut Ws,
    code: &Code,
    spectator: &mut Spectator,
    front: &mut impl WatchFront,
) -> Result<Ended, WatchError> {
    let mut input_done = false;
    let mut hello_again = tokio::time::interval_at(tokio::time::Instant::now() + HELLO_AGAIN, HELLO_AGAIN);
    hello_again.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        while let Some(frame) = spectator.poll_frame() {
            ws.send(Message::binary(frame)).await.map_err(|e| SessionError::Lost(e.to_string()))?;
        }
        while let Some(news) = spectator.poll_news() {
            front.show(news, spectator)?;
        }
        tokio::select! {
            message = ws.next() => match message {
                Some(Ok(Message::Binary(bytes))) => {
                    match spectator.handle_frame(&bytes) {
                        Err(WatchError::Restarted) => {
                            *spectator = Spectator::new(code, os_seed(), os_seed());
                            spectator.handle_frame(&bytes)?;
                        }
                        handled => handled?,
                    }
                    if spectator.unsupported().is_some() {
                        while let Some(news) = spectator.poll_news() {
                            front.show(news, spectator)?;
                        }
                        return Ok(Ended::Unsupported);
                    }
                }
                Some(Ok(Message::Text(text))) => {
                    if let Some(why) = control(text.as_str())? {
                        return Ok(why);
                    }
                }
                Some(Ok(Message::Close(_))) | None => return Ok(Ended::Closed),
                Some(Ok(_)) => {}
                Some(Err(e)) => return Err(SessionError::Lost(e.to_string()).into()),
            },
            _ = hello_again.tick(), if !spectator.is_established() => spectator.resend_hello(),
            line = front.next_line(), if !input_done => match line.as_deref().map(str::trim) {
                Some("quit") => return Ok(Ended::Quit),
                Some("table") if spectator.started() => front.show(News::Table, spectator)?,
                Some(_) => {}
                None => input_done = true,
            },
        }
    }
}

/// A control message of the relay on a spectator's connection: the end of watching, or an error.
fn control(text: &str) -> Result<Option<Ended>, WatchError> {
    let message: ServerMessage = serde_json::from_str(text)
        .map_err(|e| SessionError::Lost(format!("the relay sent an unreadable message: {e}")))?;
    Ok(match message {
        ServerMessage::PeerGone { reason: GoneReason::WatchingOff } => Some(Ended::WatchingOff),
        ServerMessage::PeerGone { .. } => Some(Ended::PlayerLeft),
        ServerMessage::Error { code, .. } => return Err(WatchError::Closed(code.as_str())),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use fairdeck_relay_protocol::ClosingReason;

    use super::*;

    /// A relay whose connections answer a `watch` with these messages, one connection each in turn.
    async fn relay_answering(answers: Vec<Vec<ServerMessage>>) -> String {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("ws://{}/v1", listener.local_addr().unwrap());
        tokio::spawn(async move {
            for messages in answers {
                let (tcp, _) = listener.accept().await.unwrap();
                let mut ws = tokio_tungstenite::accept_async(tcp).await.unwrap();
                let welcome = ServerMessage::Welcome {
                    relay: "r".into(),
                    protocol: fairdeck_relay_protocol::PROTOCOL_VERSION,
                    max_message_bytes: 65536,
                    hold_ms: 1,
                    waiting_ms: 1,
                    challenge: "ff".repeat(32),
                };
                ws.send(Message::text(serde_json::to_string(&welcome).unwrap())).await.unwrap();
                let asked = ws.next().await.unwrap().unwrap();
                assert!(asked.to_text().unwrap().contains(r#""type":"watch""#), "{asked}");
                for message in messages {
                    ws.send(Message::text(serde_json::to_string(&message).unwrap())).await.unwrap();
                }
            }
        });
        url
    }

    /// A front that records what it was told, with no spectator's commands.
    #[derive(Default)]
    struct Told(Vec<String>);

    impl WatchFront for Told {
        fn next_line(&mut self) -> impl Future<Output = Option<String>> {
            std::future::pending()
        }
        fn watching(&mut self, watcher: u8) -> std::io::Result<()> {
            self.0.push(format!("watching {watcher}"));
            Ok(())
        }
        fn relay_lost(&mut self, reason: &str) -> std::io::Result<()> {
            self.0.push(format!("relay_lost {reason}"));
            Ok(())
        }
        fn show(&mut self, _: News, _: &Spectator) -> std::io::Result<()> {
            Ok(())
        }
        fn ended(&mut self, why: Ended, _: &Spectator) -> std::io::Result<()> {
            self.0.push(format!("ended {why:?}"));
            Ok(())
        }
    }

    #[tokio::test]
    async fn a_first_watch_told_to_come_back_takes_its_seat_when_it_does() {
        let closing =
            ServerMessage::Closing { reason: ClosingReason::Restart, reconnect_after_ms: 1, try_for_ms: 1000 };
        let watching = ServerMessage::Watching { watcher: 3 };
        let gone = ServerMessage::PeerGone { reason: GoneReason::Left };
        let relay = relay_answering(vec![vec![closing.clone()], vec![closing], vec![watching, gone]]).await;
        let options = WatchOptions { code: "7-crossbow-guitar".into(), relay, ca: None };
        let mut told = Told::default();
        watch(options, &mut told).await.unwrap();
        assert_eq!(told.0, ["watching 3", "ended PlayerLeft"]);
    }
}
