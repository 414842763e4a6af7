//! The driver of one WebSocket connection: reads the socket, talks to [`Rooms`], enforces liveness, and
//! schedules the deadlines `Rooms` hands back.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::ws::{Message, WebSocket};
use futures_util::StreamExt;
use futures_util::stream::SplitStream;
use tokio::sync::oneshot;
use tokio::time::{MissedTickBehavior, interval_at, sleep, sleep_until};

use crate::admission::AddressTicket;
use crate::admission::Slot;
use crate::outbox::{Outbox, WriterEnd, write_loop};
use crate::protocol::{
    CHALLENGE_BYTES, ClientMessage, ClosingReason, ErrorCode, MAX_CONTROL_BYTES, Meeting, PROTOCOL_VERSION,
    ServerMessage, close, sanitize_client_version,
};
use crate::rooms::{Deadline, Forwarded, RoomError, Seated, Stamp};
use crate::state::AppState;

/// How long a finished connection waits for its writer to deliver the last frames.
const WRITER_DRAIN: Duration = Duration::from_secs(5);

/// How the connection ended, which decides what happens to its seat.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    /// The player left for good (`leave`, or a close frame with code 1000).
    Left,
    /// The connection is gone; the seat is held. `errored` if the relay cut it for breaking a rule.
    Dropped { errored: bool },
    /// The relay is shutting down; rooms are handed over, nobody is told `peer_away`.
    Shutdown,
}

/// Runs one connection to its end.
/// `guard` and `ticket` count the connection (in all, and against its address) until it ends.
pub(crate) async fn run(state: Arc<AppState>, socket: WebSocket, addr: IpAddr, guard: Slot, ticket: AddressTicket) {
    let limits = &state.limits;
    let (sink, mut stream) = socket.split();
    let (outbox, queue) = Outbox::new(limits.queue_bytes, limits.queue_age, &state.queues);
    let (done_tx, writer_done) = oneshot::channel();
    let writer = tokio::spawn(write_loop(sink, queue, outbox.clone(), state.metrics.clone(), done_tx));
    state.metrics.connections_accepted.increment(1);
    // Fresh for each connection, so that a rendezvous proof made for one is worthless on any other.
    let challenge: [u8; CHALLENGE_BYTES] = rand::random();
    let _ = outbox.control(&ServerMessage::Welcome {
        relay: concat!("fairdeck-relay/", env!("CARGO_PKG_VERSION")).into(),
        protocol: PROTOCOL_VERSION,
        max_message_bytes: limits.max_message_bytes,
        hold_ms: limits.hold.as_millis() as u64,
        waiting_ms: limits.waiting_lifetime.as_millis() as u64,
        challenge: hex::encode(challenge),
    });

    let mut session = Session { state: &state, outbox, addr, challenge, seated: None };
    let end = session.serve(&mut stream, writer_done).await;
    let Session { outbox, seated, .. } = session;
    if let Some(seated) = seated {
        release(&state, &seated, end);
    }
    if end == End::Left {
        let _ = outbox.close(close::NORMAL, "left");
    }
    drop(outbox);
    // The writer ends once every queue handle is gone (the room dropped its handle above) or after its close frame.
    let _ = tokio::time::timeout(WRITER_DRAIN, writer).await;
    if end == End::Shutdown {
        // Read on until the client answers the close (it drops what it reads): a socket closed with frames
        // unread is reset, and a client whose send fails on that reset takes the restart for a lost link.
        let drain = async { while let Some(Ok(_)) = stream.next().await {} };
        let _ = tokio::time::timeout(limits.shutdown_grace, drain).await;
    }
    drop(guard);
    drop(ticket);
}

/// What becomes of the seat of a connection that ended: given up, or held for a resume until its deadline.
fn release(state: &Arc<AppState>, seated: &Seated, end: End) {
    let now = Stamp::now();
    match end {
        End::Left => state.rooms.leave(now, seated),
        End::Dropped { errored } => {
            if let Some(deadline) = state.rooms.detach(now, seated, errored) {
                schedule(state, deadline);
            }
        }
        End::Shutdown => {}
    }
}

struct Session<'a> {
    state: &'a Arc<AppState>,
    outbox: Outbox,
    addr: IpAddr,
    /// The `welcome`'s challenge, which a `rendezvous` proof must sign.
    challenge: [u8; CHALLENGE_BYTES],
    seated: Option<Seated>,
}

impl Session<'_> {
    /// Reads the connection and keeps it alive (pings, the hello's deadline) until it ends: the client leaves or
    /// is gone, the writer stops, a rule is broken, or the relay shuts down.
    async fn serve(
        &mut self,
        stream: &mut SplitStream<WebSocket>,
        mut writer_done: oneshot::Receiver<WriterEnd>,
    ) -> End {
        let limits = &self.state.limits;
        let mut shutdown = self.state.shutdown.clone();
        let mut last_heard = Instant::now();
        let mut pings = interval_at((Instant::now() + limits.ping_interval).into(), limits.ping_interval);
        pings.set_missed_tick_behavior(MissedTickBehavior::Delay);
        let hello = sleep(limits.hello_timeout);
        tokio::pin!(hello);
        // Made once, not per message: each new wait registers with the channel shared by every connection.
        let stopping = shutdown.wait_for(|stopping| *stopping);
        tokio::pin!(stopping);
        loop {
            tokio::select! {
                biased;
                end = &mut writer_done => return self.writer_ended(end.unwrap_or(WriterEnd::SocketError)),
                _ = &mut stopping => return self.restarting(),
                () = &mut hello, if self.seated.is_none() => {
                    return self.fail(ErrorCode::Timeout, "no create, join or resume in time");
                }
                _ = pings.tick() => {
                    if last_heard.elapsed() > limits.ping_interval + limits.ping_timeout {
                        return self.fail(ErrorCode::Timeout, "no pong in time");
                    }
                    let _ = self.outbox.ping();
                }
                message = stream.next() => {
                    last_heard = Instant::now();
                    let step = match message {
                        Some(Ok(message)) => self.handle(message, last_heard),
                        Some(Err(error)) => Some(self.read_failed(error)),
                        None => Some(End::Dropped { errored: false }),
                    };
                    if let Some(end) = step {
                        return end;
                    }
                }
            }
        }
    }

    /// The writer stopped: the socket is gone, or the reader was too slow (a broken rule).
    fn writer_ended(&self, end: WriterEnd) -> End {
        match end {
            WriterEnd::SlowReader(reason) => {
                self.state.metrics.rejected(ErrorCode::SlowReader);
                self.state.metrics.slow_reader(reason);
                End::Dropped { errored: true }
            }
            WriterEnd::Closed | WriterEnd::SocketError => End::Dropped { errored: false },
        }
    }

    /// The relay is shutting down: the client is told to come back, after a while, to the restarted relay.
    fn restarting(&self) -> End {
        let limits = &self.state.limits;
        let try_for_ms = limits.hold.as_millis() as u64;
        // Spread reconnects over one more hint so a restarted relay is not hit by everyone at once.
        let hint_ms = limits.restart_hint.as_millis() as u64;
        let jitter = rand::random::<u64>() % hint_ms.max(1);
        let _ = self.outbox.control(&ServerMessage::Closing {
            reason: ClosingReason::Restart,
            reconnect_after_ms: hint_ms + jitter,
            try_for_ms,
        });
        let _ = self.outbox.close(close::RESTART, "relay restarting");
        End::Shutdown
    }

    /// Handles one message; returns how the connection ends, if it does.
    fn handle(&mut self, message: Message, received: Instant) -> Option<End> {
        match message {
            Message::Binary(data) => {
                let Some(seated) = &self.seated else {
                    return Some(self.fail(ErrorCode::BadMessage, "binary frame before create, join or resume"));
                };
                let len = data.len() as u64;
                match self.state.rooms.forward(seated, data, received) {
                    Forwarded::Delivered => {
                        self.state.metrics.frames.increment(1);
                        self.state.metrics.bytes.increment(len);
                    }
                    Forwarded::NotPaired => {
                        self.state.metrics.frames_dropped.increment(1);
                        let _ = self.outbox.error(ErrorCode::NotPaired, "nobody has joined yet; frame dropped");
                    }
                    Forwarded::Dropped => self.state.metrics.frames_dropped.increment(1),
                }
                None
            }
            Message::Text(text) => {
                if text.len() > MAX_CONTROL_BYTES {
                    return Some(self.fail(ErrorCode::BadMessage, "control message too long"));
                }
                match parse_control(text.as_str()) {
                    Ok(control) => self.control(control),
                    Err(error) => Some(self.fail(ErrorCode::BadMessage, error)),
                }
            }
            Message::Close(frame) => {
                let normal = frame.is_some_and(|f| f.code == close::NORMAL);
                Some(if normal { End::Left } else { End::Dropped { errored: false } })
            }
            // Tungstenite answers pings itself; any frame already counted as a sign of life.
            Message::Ping(_) | Message::Pong(_) => None,
        }
    }

    fn control(&mut self, control: ClientMessage) -> Option<End> {
        let state = self.state;
        let client = |raw: Option<String>| raw.map(|v| sanitize_client_version(&v));
        if let Some(seated) = &self.seated {
            return match control {
                ClientMessage::Report { result } => {
                    state.rooms.report(seated, result);
                    None
                }
                ClientMessage::Leave => Some(End::Left),
                ClientMessage::Reopen if seated.is_creator() => {
                    if let Some(deadline) = state.rooms.reopen(Stamp::now(), seated) {
                        schedule(state, deadline);
                    }
                    None
                }
                ClientMessage::Reopen => {
                    Some(self.fail(ErrorCode::BadMessage, "only the room's creator can reopen it"))
                }
                ClientMessage::Create { .. }
                | ClientMessage::Join { .. }
                | ClientMessage::Resume { .. }
                | ClientMessage::Rendezvous { .. } => {
                    Some(self.fail(ErrorCode::BadMessage, "this connection already has a seat"))
                }
            };
        }
        let now = Stamp::now();
        let seated = match control {
            ClientMessage::Create { client: version } => {
                if state.room_limiter.check(self.addr, now.at).is_err() {
                    return Some(self.fail(ErrorCode::RateLimited, "too many new rooms from your address"));
                }
                state.rooms.create(now, self.outbox.clone(), client(version)).map(|(seated, deadline)| {
                    schedule(state, deadline);
                    seated
                })
            }
            ClientMessage::Join { nameplate, client: version } => {
                if state.join_limiter.check(self.addr, now.at).is_err() {
                    return Some(self.fail(ErrorCode::RateLimited, "too many joins from your address"));
                }
                state.rooms.join(now, &nameplate, self.outbox.clone(), client(version))
            }
            ClientMessage::Resume { token, client: version } => {
                // Only failures count: a reconnect storm after a restart must get through.
                if state.resume_limiter.peek(self.addr, now.at).is_err() {
                    return Some(self.fail(ErrorCode::RateLimited, "too many failed resumes from your address"));
                }
                let resumed = state.rooms.resume(&token, self.outbox.clone(), client(version));
                if resumed.is_err() {
                    let _ = state.resume_limiter.check(self.addr, now.at);
                }
                resumed
            }
            ClientMessage::Rendezvous { room, seat, key, peer, proof, client: version } => {
                // A failed proof counts as a failed resume; a room it opens, as a new room.
                if state.resume_limiter.peek(self.addr, now.at).is_err() {
                    return Some(self.fail(ErrorCode::RateLimited, "too many failed resumes from your address"));
                }
                if state.room_limiter.check(self.addr, now.at).is_err() {
                    return Some(self.fail(ErrorCode::RateLimited, "too many new rooms from your address"));
                }
                let meeting = Meeting { room: &room, seat, key: &key, peer: &peer, proof: &proof };
                match state.rooms.rendezvous(now, meeting, &self.challenge, self.outbox.clone(), client(version)) {
                    Ok((seated, deadline)) => {
                        if let Some(deadline) = deadline {
                            schedule(state, deadline);
                        }
                        Ok(seated)
                    }
                    Err(error) => {
                        if error == RoomError::BadToken {
                            let _ = state.resume_limiter.check(self.addr, now.at);
                        }
                        Err(error)
                    }
                }
            }
            ClientMessage::Report { .. } | ClientMessage::Leave | ClientMessage::Reopen => {
                return Some(self.fail(ErrorCode::BadMessage, "create, join, resume or rendezvous first"));
            }
        };
        match seated {
            Ok(seated) => {
                self.seated = Some(seated);
                None
            }
            Err(error) => Some(self.refuse(error)),
        }
    }

    fn refuse(&self, error: RoomError) -> End {
        self.fail(error.code(), error.to_string())
    }

    /// Sends a fatal error (its close frame follows) and counts it. A silent peer (timeout) is a lost connection;
    /// anything else means the client broke a rule, which marks its room `errored`.
    fn fail(&self, code: ErrorCode, message: impl Into<String>) -> End {
        self.state.metrics.rejected(code);
        let _ = self.outbox.error(code, message);
        End::Dropped { errored: code != ErrorCode::Timeout }
    }

    fn read_failed(&self, error: axum::Error) -> End {
        use tokio_tungstenite::tungstenite::Error as WsError;
        let error = error.into_inner();
        match error.downcast_ref::<WsError>() {
            Some(WsError::Capacity(_)) => {
                let max = self.state.limits.max_message_bytes;
                self.fail(ErrorCode::TooBig, format!("messages are limited to {max} bytes"))
            }
            Some(WsError::Utf8(_)) => self.fail(ErrorCode::BadEncoding, "text frames must be valid UTF-8"),
            _ => End::Dropped { errored: false },
        }
    }
}

/// Reads a control message. Only a JSON object is one: serde would also read an internally tagged enum from an
/// array (`["leave"]`), which the protocol does not allow.
fn parse_control(text: &str) -> Result<ClientMessage, String> {
    if !text.trim_start().starts_with('{') {
        return Err("a control message is a JSON object".into());
    }
    serde_json::from_str(text).map_err(|error| format!("cannot read control message: {error}"))
}

/// Runs `deadline` through `Rooms::expire` when it is due, unless the relay shuts down first.
pub(crate) fn schedule(state: &Arc<AppState>, deadline: Deadline) {
    let rooms = state.rooms.clone();
    let mut shutdown = state.shutdown.clone();
    tokio::spawn(async move {
        tokio::select! {
            () = sleep_until(deadline.at().into()) => rooms.expire(Stamp::now(), &deadline),
            _ = shutdown.wait_for(|stopping| *stopping) => {}
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_json_objects_are_control_messages() {
        assert_eq!(parse_control(r#" {"type":"leave"}"#), Ok(ClientMessage::Leave));
        for text in [r#"["leave"]"#, r#"["create",null]"#, r#""leave""#, "1", "null", "true", ""] {
            assert!(parse_control(text).is_err(), "{text}");
        }
    }
}
