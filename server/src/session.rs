//! The driver of one WebSocket connection: reads the socket, talks to [`Rooms`], enforces liveness, and
//! schedules the deadlines `Rooms` hands back. In a cluster, a player whose room is held by another instance has
//! its connection forwarded there (`cluster::link`), and this driver passes messages both ways.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::ws::{Message, WebSocket};
use futures_util::stream::{SplitSink, SplitStream};
use futures_util::{SinkExt, StreamExt};
use rand::seq::SliceRandom;
use tokio::time::{sleep, sleep_until};
use tokio_tungstenite::tungstenite::Message as LinkMessage;
use tokio_tungstenite::tungstenite::protocol::CloseFrame as LinkClose;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

use crate::admission::AddressTicket;
use crate::admission::Slot;
use crate::cluster::link::{self, Link, LinkError};
use crate::cluster::{self, Cluster, Located, Lookup};
use crate::outbox::{News, Outbox, WriterEnd, write_loop};
use crate::protocol::{
    CHALLENGE_BYTES, ClientMessage, ClosingReason, ErrorCode, MAX_CONTROL_BYTES, Meeting, PROTOCOL_VERSION,
    ServerMessage, close, sanitize_client_version,
};
use crate::rooms::{
    Claim, Deadline, Forwarded, Role, RoomError, Seated, Stamp, Watcher, parse_nameplate, token_sha256,
};
use crate::state::AppState;

/// How long a finished connection waits for its writer to deliver the last frames.
const WRITER_DRAIN: Duration = Duration::from_secs(5);
/// When a player whose room's instance cannot be reached now is told to come back (plus as much jitter).
const COME_BACK: Duration = Duration::from_millis(500);

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

/// Where a connection comes from.
#[derive(Debug)]
pub(crate) enum Origin {
    /// A player, counted against its address until the connection ends.
    Player { addr: IpAddr, ticket: AddressTicket },
    /// A player forwarded by another instance of the cluster, which sent it `welcome` with this challenge.
    Instance(link::Forwarded),
}

/// While Redis is down, how long other instances are asked for a player's room: none is asked after this.
const ASK_PEERS_FOR: Duration = Duration::from_secs(4);

/// What a player's first message needs where the cluster holds its room.
enum Route {
    /// Served here; with what the cluster reserved for a room opened here.
    Here(Reserved),
    /// Forwarded to the instance that holds the room.
    Linked(Box<Link>),
    /// The room's instance cannot be reached now, or Redis cannot say which it is: the player comes back shortly.
    ComeBack,
}

#[derive(Debug, Clone, Copy, Default)]
enum Reserved {
    #[default]
    Nothing,
    Create(Claim),
    Rendezvous(u64),
}

/// Runs one connection to its end: `sink` and `stream` are its WebSocket's halves (split by the caller, so that
/// this task does not keep room for the whole socket).
/// `guard` (and a player's ticket) count the connection (in all, and against its address) until it ends.
pub(crate) async fn run(
    state: Arc<AppState>,
    (sink, mut stream): (SplitSink<WebSocket, Message>, SplitStream<WebSocket>),
    origin: Origin,
    guard: Slot,
) {
    let limits = &state.limits;
    let (outbox, queue) = Outbox::new(limits.queue_bytes, limits.queue_age, &state.queues);
    let writer = tokio::spawn(write_loop(sink, queue, state.metrics.clone()));
    state.metrics.connections_accepted.increment(1);
    let (addr, challenge, ticket, forwarded) = match origin {
        Origin::Player { addr, ticket } => {
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
            (addr, challenge, Some(ticket), false)
        }
        Origin::Instance(player) => (player.client, player.challenge, None, true),
    };

    let mut session =
        Session { state: &state, outbox, addr, challenge, forwarded, seated: None, watching: None, link: None };
    let end = session.serve(&mut stream).await;
    let Session { outbox, seated, watching, link, .. } = session;
    if let Some(seated) = seated {
        release(&state, &seated, end);
    }
    // A watch connection holds nothing: its place is free however it ended.
    if let Some(watcher) = watching {
        state.rooms.unwatch(&watcher);
    }
    if let Some(mut link) = link {
        // Unless the player left (its close frame 1000 went first), the seat is held at the other instance.
        let going = LinkClose { code: CloseCode::Away, reason: "".into() };
        let _ = tokio::time::timeout(WRITER_DRAIN, (*link).close(Some(going))).await;
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
    /// Forwarded by another instance: served here, never forwarded again.
    forwarded: bool,
    seated: Option<Seated>,
    /// A host_watch or spectator connection's place.
    watching: Option<Watcher>,
    /// The link to the instance that holds this player's room (boxed: few connections have one).
    link: Option<Box<Link>>,
}

impl Session<'_> {
    /// Reads the connection until it ends: the client leaves or is gone, the writer stops, a rule is broken (the
    /// hello's deadline, liveness), or the relay shuts down. Liveness and shutdown come as the outbox's news
    /// (see `outbox::Queues`): each message only notes the time it was heard.
    async fn serve(&mut self, stream: &mut SplitStream<WebSocket>) -> End {
        let hello = sleep(self.state.limits.hello_timeout);
        tokio::pin!(hello);
        loop {
            let waiting = self.seated.is_none() && self.watching.is_none() && self.link.is_none();
            tokio::select! {
                biased;
                news = self.outbox.news() => {
                    return match news {
                        News::WriterEnded(end) => self.writer_ended(end),
                        News::Restarting => self.restarting(),
                        News::Silent => self.fail(ErrorCode::Timeout, "no pong in time"),
                    };
                }
                () = &mut hello, if waiting => {
                    return self.fail(ErrorCode::Timeout, "no create, join or resume in time");
                }
                message = next_on_link(&mut self.link) => {
                    if let Some(end) = self.pass_back(message) {
                        return end;
                    }
                }
                message = stream.next() => {
                    let heard = Instant::now();
                    self.outbox.heard(&self.state.queues, heard);
                    let step = match message {
                        Some(Ok(message)) => self.handle(message, heard).await,
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
        let hint = self.state.limits.restart_hint;
        self.come_back(hint);
        End::Shutdown
    }

    /// Tells the client to reconnect after about `hint` (plus jitter, so that clients do not all come back at
    /// once) and resume, trying for as long as a seat is held.
    fn come_back(&self, hint: Duration) {
        let try_for_ms = self.state.limits.hold.as_millis() as u64;
        let hint_ms = hint.as_millis() as u64;
        let jitter = rand::random::<u64>() % hint_ms.max(1);
        let _ = self.outbox.control(&ServerMessage::Closing {
            reason: ClosingReason::Restart,
            reconnect_after_ms: hint_ms + jitter,
            try_for_ms,
        });
        let _ = self.outbox.close(close::RESTART, "relay restarting");
    }

    /// Passes on what the instance holding the room sent; its close ends this connection with the same code.
    fn pass_back(
        &mut self,
        message: Option<Result<LinkMessage, tokio_tungstenite::tungstenite::Error>>,
    ) -> Option<End> {
        match message {
            Some(Ok(LinkMessage::Binary(data))) => {
                let _ = self.outbox.frame(data, Instant::now());
                None
            }
            Some(Ok(LinkMessage::Text(text))) => {
                let _ = self.outbox.text(text.as_str().to_owned());
                None
            }
            Some(Ok(LinkMessage::Close(Some(frame)))) => {
                self.link = None;
                let _ = self.outbox.close(frame.code.into(), frame.reason.as_str().to_owned());
                // Whatever the room did with the seat, it did at the other instance.
                Some(End::Dropped { errored: false })
            }
            Some(Ok(LinkMessage::Ping(_) | LinkMessage::Pong(_) | LinkMessage::Frame(_))) => None,
            // The instance is gone (a relay always closes with a code): the room will be taken over where the
            // player comes back.
            Some(Ok(LinkMessage::Close(None)) | Err(_)) | None => {
                self.link = None;
                self.come_back(COME_BACK);
                Some(End::Dropped { errored: false })
            }
        }
    }

    /// Handles one message; returns how the connection ends, if it does.
    async fn handle(&mut self, message: Message, received: Instant) -> Option<End> {
        if self.link.is_some() {
            return self.pass_on(message).await;
        }
        match message {
            Message::Binary(data) if self.watching.is_some() => self.watch_frame(data, received),
            Message::Binary(data) => {
                let Some(seated) = &self.seated else {
                    return Some(self.fail(ErrorCode::BadMessage, "binary frame before create, join or resume"));
                };
                // The payload, as before frames were addressed: the first byte names a seat.
                let len = data.len().saturating_sub(1) as u64;
                self.count_frame(self.state.rooms.forward(seated, data, received), len)
            }
            Message::Text(text) => {
                if text.len() > MAX_CONTROL_BYTES {
                    return Some(self.fail(ErrorCode::BadMessage, "control message too long"));
                }
                match parse_control(text.as_str()) {
                    // Boxed: control messages are few, and what answering one may await (Redis, a link to
                    // another instance) would otherwise make every connection's task as large as that, idle or not.
                    Ok(control) => Box::pin(self.control(control, text.as_str())).await,
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

    /// Counts a frame by what became of it; a player told that nobody is there yet. A frame naming no other
    /// seat ends the connection.
    fn count_frame(&self, forwarded: Forwarded, len: u64) -> Option<End> {
        let metrics = &self.state.metrics;
        match forwarded {
            Forwarded::Delivered => {
                metrics.frames.increment(1);
                metrics.bytes.increment(len);
            }
            Forwarded::NotPaired => {
                metrics.frames_dropped.increment(1);
                let _ = self.outbox.error(ErrorCode::NotPaired, "nobody has joined yet; frame dropped");
            }
            Forwarded::Dropped => metrics.frames_dropped.increment(1),
            Forwarded::Misaddressed => {
                return Some(
                    self.fail(ErrorCode::BadMessage, "a data frame must start with another seat's number or 255 (all)"),
                );
            }
        }
        None
    }

    /// A binary frame on a watch connection. A spectator's frame reaches its player one byte longer (the
    /// spectator's number before it), so it must leave room for that byte under the size limit.
    fn watch_frame(&self, data: bytes::Bytes, received: Instant) -> Option<End> {
        let watcher = self.watching.as_ref()?;
        let max = self.state.limits.max_message_bytes;
        if matches!(watcher.role(), Role::Spectator(_)) && data.len() >= max {
            return Some(
                self.fail(ErrorCode::TooBig, format!("a spectator's frames are limited to {} bytes", max - 1)),
            );
        }
        let len = data.len() as u64;
        self.count_frame(self.state.rooms.forward_watch(watcher, data, received), len);
        None
    }

    /// Passes a player's message to the instance that holds its room, unchanged.
    async fn pass_on(&mut self, message: Message) -> Option<End> {
        let link = self.link.as_mut()?;
        let (message, end) = match message {
            Message::Binary(data) => (LinkMessage::Binary(data), None),
            Message::Text(text) => (LinkMessage::text(text.as_str()), None),
            Message::Close(frame) => {
                let frame = frame.map(|f| LinkClose { code: f.code.into(), reason: f.reason.as_str().into() });
                (LinkMessage::Close(frame), Some(End::Dropped { errored: false }))
            }
            Message::Ping(_) | Message::Pong(_) => return None,
        };
        if link.send(message).await.is_err() {
            self.link = None;
            self.come_back(COME_BACK);
            return Some(End::Dropped { errored: false });
        }
        if end.is_some() {
            // The close went to the other instance, which ends or holds the seat.
            self.link = None;
        }
        end
    }

    async fn control(&mut self, control: ClientMessage, text: &str) -> Option<End> {
        if let Some(seated) = &self.seated {
            return self.seated_control(seated, control).await;
        }
        if self.watching.is_some() {
            return Some(self.fail(ErrorCode::BadMessage, "a watch connection sends frames only"));
        }
        let state = self.state;
        let reserved = match self.route(&control, text).await {
            Route::Here(reserved) => reserved,
            Route::Linked(link) => {
                state.metrics.cluster.links.increment(1);
                self.link = Some(link);
                return None;
            }
            Route::ComeBack => {
                self.come_back(COME_BACK);
                return Some(End::Dropped { errored: false });
            }
        };
        if matches!(control, ClientMessage::HostWatch { .. } | ClientMessage::Watch { .. }) {
            return match self.take_watch_seat(control).await {
                Ok(watcher) => {
                    self.watching = Some(watcher);
                    None
                }
                Err(end) => Some(end),
            };
        }
        match self.take_seat(control, reserved) {
            Ok(seated) => {
                self.seated = Some(seated);
                None
            }
            Err(end) => {
                // What the cluster reserved for a room that did not open is given back.
                if let Reserved::Create(Claim { id, .. }) | Reserved::Rendezvous(id) = reserved {
                    state.rooms.not_opened(id);
                }
                Some(end)
            }
        }
    }

    /// A control message from a seated player.
    async fn seated_control(&self, seated: &Seated, control: ClientMessage) -> Option<End> {
        let state = self.state;
        match control {
            ClientMessage::Report { result } => {
                state.rooms.report(seated, result);
                None
            }
            ClientMessage::Leave => Some(End::Left),
            ClientMessage::Reopen if seated.is_creator() => {
                let claimed = match &state.cluster {
                    Some(cluster) => {
                        let last = state.rooms.last_nameplate(seated);
                        Some(cluster.nameplate(seated.room_id(), last).await)
                    }
                    None => None,
                };
                if let Some(deadline) = state.rooms.reopen(Stamp::now(), seated, claimed) {
                    schedule(state, deadline);
                }
                None
            }
            ClientMessage::Reopen => Some(self.fail(ErrorCode::BadMessage, "only the room's creator can reopen it")),
            ClientMessage::WatchOff => {
                state.rooms.watch_off(seated);
                None
            }
            ClientMessage::WatchDelay { turns } => match state.rooms.watch_delay(seated, turns) {
                Ok(()) => None,
                Err(error) => Some(self.refuse(error)),
            },
            ClientMessage::Create { .. }
            | ClientMessage::Join { .. }
            | ClientMessage::Resume { .. }
            | ClientMessage::Rendezvous { .. }
            | ClientMessage::HostWatch { .. }
            | ClientMessage::Watch { .. } => {
                Some(self.fail(ErrorCode::BadMessage, "this connection already has a seat"))
            }
        }
    }

    /// Seats a player here by its first message; `Err` with how the connection ends if it is refused.
    fn take_seat(&self, control: ClientMessage, reserved: Reserved) -> Result<Seated, End> {
        let state = self.state;
        let client = |raw: Option<String>| raw.map(|v| sanitize_client_version(&v));
        let now = Stamp::now();
        let seated = match control {
            ClientMessage::Create { client: version, seats } => {
                if state.room_limiter.check(self.addr, now.at).is_err() {
                    return Err(self.fail(ErrorCode::RateLimited, "too many new rooms from your address"));
                }
                let claim = match reserved {
                    Reserved::Create(claim) => Some(claim),
                    _ => None,
                };
                state.rooms.create(now, self.outbox.clone(), client(version), seats, claim).map(|(seated, deadline)| {
                    schedule(state, deadline);
                    seated
                })
            }
            ClientMessage::Join { nameplate, client: version } => {
                if state.join_limiter.check(self.addr, now.at).is_err() {
                    return Err(self.fail(ErrorCode::RateLimited, "too many joins from your address"));
                }
                state.rooms.join(now, &nameplate, self.outbox.clone(), client(version))
            }
            ClientMessage::Resume { token, client: version } => {
                // Only failures count: a reconnect storm after a restart must get through.
                if state.resume_limiter.peek(self.addr, now.at).is_err() {
                    return Err(self.fail(ErrorCode::RateLimited, "too many failed resumes from your address"));
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
                    return Err(self.fail(ErrorCode::RateLimited, "too many failed resumes from your address"));
                }
                if state.room_limiter.check(self.addr, now.at).is_err() {
                    return Err(self.fail(ErrorCode::RateLimited, "too many new rooms from your address"));
                }
                let reserved = match reserved {
                    Reserved::Rendezvous(id) => Some(id),
                    _ => None,
                };
                let meeting = Meeting { room: &room, seat, key: &key, peer: &peer, proof: &proof };
                let met = state.rooms.rendezvous(
                    now,
                    meeting,
                    &self.challenge,
                    self.outbox.clone(),
                    client(version),
                    reserved,
                );
                match met {
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
            ClientMessage::Report { .. }
            | ClientMessage::Leave
            | ClientMessage::Reopen
            | ClientMessage::HostWatch { .. }
            | ClientMessage::Watch { .. }
            | ClientMessage::WatchOff
            | ClientMessage::WatchDelay { .. } => {
                return Err(self.fail(ErrorCode::BadMessage, "create, join, resume or rendezvous first"));
            }
        };
        seated.map_err(|error| self.refuse(error))
    }

    /// Seats a host_watch or spectator connection by its first message; `Err` with how the connection ends if it
    /// is refused. A host_watch is rate-limited as a resume (failures count), a watch as a join.
    async fn take_watch_seat(&self, control: ClientMessage) -> Result<Watcher, End> {
        let state = self.state;
        let now = Instant::now();
        let watcher = match control {
            ClientMessage::HostWatch { token } => {
                if state.resume_limiter.peek(self.addr, now).is_err() {
                    return Err(self.fail(ErrorCode::RateLimited, "too many failed resumes from your address"));
                }
                // In a cluster the watch nameplate is claimed in Redis, as a room's is, so that it is unique there
                // and a spectator reaching another instance is forwarded here.
                let claimed = match (&state.cluster, state.rooms.needs_watch_nameplate(&token)) {
                    (Some(cluster), Some(room)) => Some(cluster.nameplate(room, None).await),
                    _ => None,
                };
                let opened = state.rooms.host_watch(&token, self.outbox.clone(), claimed);
                if matches!(opened, Err(RoomError::BadToken)) {
                    let _ = state.resume_limiter.check(self.addr, now);
                }
                opened
            }
            ClientMessage::Watch { nameplate } => {
                if state.join_limiter.check(self.addr, now).is_err() {
                    return Err(self.fail(ErrorCode::RateLimited, "too many joins from your address"));
                }
                state.rooms.watch(&nameplate, self.outbox.clone())
            }
            _ => return Err(self.fail(ErrorCode::BadMessage, "host_watch or watch expected")),
        };
        watcher.map_err(|error| self.refuse(error))
    }

    /// Where the room a player's first message names is held, in a cluster: here (taking it over if its instance
    /// is gone), or at another instance, to which the connection is then forwarded.
    async fn route(&self, control: &ClientMessage, text: &str) -> Route {
        let state = self.state;
        let Some(cluster) = state.cluster.as_deref() else { return Route::Here(Reserved::Nothing) };
        if self.forwarded {
            // Forwarded because this instance holds the room: if it is taking it over right now, once it is in
            // `Rooms`.
            drop(cluster.adopting().await);
            return Route::Here(Reserved::Nothing);
        }
        // A player over its rate limit is refused here, before it costs Redis anything or claims a nameplate.
        if self.over_rate_limit(control) {
            return Route::Here(Reserved::Nothing);
        }
        let lookup = match control {
            ClientMessage::Create { .. } => {
                let id = state.rooms.reserve_id();
                return Route::Here(Reserved::Create(Claim { id, nameplate: cluster.nameplate(id, None).await }));
            }
            ClientMessage::Join { nameplate, .. } => parse_nameplate(nameplate).map(Lookup::Nameplate),
            ClientMessage::Resume { token, .. } => token_sha256(token).map(Lookup::Token),
            ClientMessage::Rendezvous { room, seat, key, peer, proof, .. } => {
                let meeting = Meeting { room, seat: *seat, key, peer, proof };
                meeting.check(&self.challenge).ok().map(Lookup::Rendezvous)
            }
            ClientMessage::HostWatch { token } => token_sha256(token).map(Lookup::Token),
            ClientMessage::Watch { nameplate } => parse_nameplate(nameplate).map(Lookup::Nameplate),
            ClientMessage::Report { .. }
            | ClientMessage::Leave
            | ClientMessage::Reopen
            | ClientMessage::WatchOff
            | ClientMessage::WatchDelay { .. } => None,
        };
        // Anything malformed is refused here, as by a relay alone.
        let Some(lookup) = lookup else { return Route::Here(Reserved::Nothing) };
        let unlocated = || {
            state.metrics.cluster.unlocated.increment(1);
            Route::ComeBack
        };
        // A second look if another instance won a race for the room.
        for _ in 0..2 {
            match cluster.locate(lookup).await {
                Located::Nowhere => {
                    let Lookup::Rendezvous(meeting) = lookup else { return Route::Here(Reserved::Nothing) };
                    let id = state.rooms.reserve_id();
                    match cluster.claim_rendezvous(id, meeting).await {
                        Some(true) => return Route::Here(Reserved::Rendezvous(id)),
                        // Another instance won the race: a second look finds its room.
                        Some(false) => {}
                        // Opened here unclaimed, the opponent could open its own at another instance.
                        None => return unlocated(),
                    }
                }
                Located::Here => {
                    // Held here: if this instance is taking it over right now, once it is in `Rooms`.
                    drop(cluster.adopting().await);
                    return Route::Here(Reserved::Nothing);
                }
                // Served if its room is here; else it may be held elsewhere, which Redis cannot say now.
                Located::Unsettled if cluster::holds(&state.rooms, lookup) => return Route::Here(Reserved::Nothing),
                Located::Unsettled => return self.ask_peers(cluster, text, lookup).await.unwrap_or_else(unlocated),
                Located::There { room, owner, url } => {
                    let max = state.limits.max_message_bytes;
                    match link::open(cluster, (&owner, &url), self.forwarded_as(), (text, None), max).await {
                        Ok(link) => return Route::Linked(Box::new(link)),
                        // Restarted at its address: the instance holding the room died; its lease only runs on.
                        Err(LinkError::Superseded) => {
                            if adopt_here(state, cluster, room, Some(&owner), true).await {
                                return Route::Here(Reserved::Nothing);
                            }
                        }
                        Err(error) => {
                            tracing::info!(error = %error, "cannot reach the instance holding a room");
                            state.metrics.cluster.link_failures.increment(1);
                            return Route::ComeBack;
                        }
                    }
                }
                Located::Orphan { room, owner } => {
                    if adopt_here(state, cluster, room, owner.as_deref(), false).await {
                        return Route::Here(Reserved::Nothing);
                    }
                }
            }
        }
        Route::Here(Reserved::Nothing)
    }

    /// While Redis is down: the link to the instance, of those Redis last named, that holds the room `lookup`
    /// names, if one does. They are asked one after another, each taking the player only if it holds the room.
    async fn ask_peers(&self, cluster: &Cluster, text: &str, lookup: Lookup) -> Option<Route> {
        let max = self.state.limits.max_message_bytes;
        // Each link may take its patience (2 s) to fail: the player, which waits 10 s for an answer, is told to
        // come back before then rather than left waiting on instances that do not answer. In another order each
        // time, so that one coming back again asks the others first.
        let give_up = Instant::now() + ASK_PEERS_FOR;
        let mut peers = cluster.peers();
        peers.shuffle(&mut rand::rng());
        for peer in peers {
            if Instant::now() >= give_up {
                break;
            }
            let player = self.forwarded_as();
            match link::open(cluster, (&peer.instance, &peer.url), player, (text, Some(lookup)), max).await {
                Ok(link) => return Some(Route::Linked(Box::new(link))),
                Err(LinkError::NotHeld) => {}
                Err(error) => tracing::debug!(error = %error, "an instance asked for a room did not answer"),
            }
        }
        None
    }

    /// This player as another instance takes it.
    fn forwarded_as(&self) -> link::Forwarded {
        link::Forwarded { client: self.addr, challenge: self.challenge }
    }

    /// Whether a first message would be refused for its address's rate limit (or is no first message at all).
    fn over_rate_limit(&self, control: &ClientMessage) -> bool {
        let state = self.state;
        let now = Instant::now();
        match control {
            ClientMessage::Create { .. } => state.room_limiter.peek(self.addr, now).is_err(),
            ClientMessage::Join { .. } => state.join_limiter.peek(self.addr, now).is_err(),
            ClientMessage::Resume { .. } | ClientMessage::HostWatch { .. } => {
                state.resume_limiter.peek(self.addr, now).is_err()
            }
            ClientMessage::Watch { .. } => state.join_limiter.peek(self.addr, now).is_err(),
            ClientMessage::Rendezvous { .. } => {
                state.resume_limiter.peek(self.addr, now).is_err() || state.room_limiter.peek(self.addr, now).is_err()
            }
            ClientMessage::Report { .. }
            | ClientMessage::Leave
            | ClientMessage::Reopen
            | ClientMessage::WatchOff
            | ClientMessage::WatchDelay { .. } => true,
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

/// Takes over a room whose instance is gone, with both seats held for its players' hold. Whether it is here now.
async fn adopt_here(state: &Arc<AppState>, cluster: &Cluster, room: u64, owner: Option<&str>, dead: bool) -> bool {
    // Held until the room is in `Rooms`: Redis names this instance as its holder from the moment it is adopted.
    let _adopting = cluster.adopting().await;
    let Some(snapshot) = cluster.adopt(room, owner, dead).await else { return false };
    for deadline in state.rooms.import(Stamp::now(), 0, vec![snapshot]) {
        schedule(state, deadline);
    }
    true
}

/// The next message from the instance holding the room; never, without a link.
async fn next_on_link(
    link: &mut Option<Box<Link>>,
) -> Option<Result<LinkMessage, tokio_tungstenite::tungstenite::Error>> {
    match link {
        Some(link) => link.next().await,
        None => std::future::pending().await,
    }
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
