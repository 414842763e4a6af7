//! A protocol-level player for the soak: the relay side of the real client without its game. It takes its seat
//! back as `fairdeck` does (by its token while the relay knows it, else at the game's rendezvous, one attempt at
//! a time on a backoff timer for a minute), and resends every frame the peer has not acknowledged on `resumed`,
//! `met`, `peer_back` and a `paired` after a rendezvous. In place of the encrypted channel its frames carry a
//! number, a cumulative acknowledgement and a payload the receiver can check; the receiver drops what it already
//! took (the end-to-end deduplication by number) and holds frames that come ahead of their turn, as the channel
//! does. What passes on to the application is checked there: each frame the next of its game and seat, once.

use std::collections::{BTreeSet, VecDeque};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime};

use anyhow::Context;
use fairdeck_relay::protocol::{CHALLENGE_BYTES, ClientMessage, ErrorCode, SeatKey, ServerMessage, TO_ALL};
use futures_util::stream::SplitSink;
use futures_util::{SinkExt, StreamExt};
use tokio_tungstenite::tungstenite::Message;

use crate::ws::{Ws, connect, next_control};

/// How long a player keeps trying to take its seat back (the client's minute).
const RECONNECT_FOR: Duration = Duration::from_secs(60);
/// The wait after the first failed attempt; it doubles after each, up to [`LONGEST_RETRY`] (as the client's).
const FIRST_RETRY: Duration = Duration::from_millis(200);
const LONGEST_RETRY: Duration = Duration::from_secs(5);
/// One attempt at a seat: the connection, `welcome`, the claim and its answer.
const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(20);
/// Frames a player may have unacknowledged, as the channel's window.
const WINDOW: u64 = 128;
/// How often a player looks at its clock: new frames, acknowledgements owed, the end of the game.
const TICK: Duration = Duration::from_millis(50);
/// Link events a player keeps, the latest, for the report of a lost game.
const JOURNAL: usize = 40;
/// The client name the players give the relay.
const CLIENT: &str = "fairdeck-relay-load soak";

const DATA: u8 = 0x03;
const ACK: u8 = 0x04;
const DATA_LEN: usize = 1 + 4 + 1 + 8 + 8 + 32;
const ACK_LEN: usize = 1 + 4 + 1 + 8;

/// What the two players of a game share: its number, its secret (from which each seat's rendezvous key is
/// derived, as the channel derives them from its key), how many frames each has sent, and where they stand at
/// the end.
pub struct Game {
    pub number: u32,
    secret: [u8; 32],
    sent: [AtomicU64; 2],
    drained: [AtomicBool; 2],
}

impl Game {
    pub fn new(number: u32) -> Arc<Game> {
        Arc::new(Game { number, secret: rand::random(), sent: Default::default(), drained: Default::default() })
    }

    /// The rendezvous key of `seat`: SHA-256 of the game's secret and the seat.
    fn seat_key(&self, seat: u8) -> SeatKey {
        use sha2::{Digest, Sha256};
        let secret: [u8; 32] = Sha256::new()
            .chain_update(b"fairdeck soak seat")
            .chain_update(self.secret)
            .chain_update([seat])
            .finalize()
            .into();
        SeatKey::from_secret(&secret)
    }

    /// The payload of frame `seq` of `seat`: a function of the game, the seat and the number, so the receiver
    /// knows a frame of another game, of itself, or an altered one.
    fn payload(&self, seat: u8, seq: u64) -> [u8; 32] {
        let mut state = (u64::from(self.number) << 40) ^ (u64::from(seat) << 32) ^ seq;
        let mut out = [0u8; 32];
        for chunk in out.chunks_mut(8) {
            state = splitmix64(state);
            chunk.copy_from_slice(&state.to_le_bytes());
        }
        out
    }
}

fn splitmix64(state: u64) -> u64 {
    let mut z = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// What the soak tells every player: when to stop sending new frames, and when to give up finishing.
pub struct Clock {
    stop: AtomicBool,
    give_up: std::sync::Mutex<Option<Instant>>,
}

impl Clock {
    pub fn new() -> Arc<Clock> {
        Arc::new(Clock { stop: AtomicBool::new(false), give_up: std::sync::Mutex::new(None) })
    }

    /// From now on players send no new frame and finish what is in flight, until `drain` has passed.
    pub fn stop(&self, drain: Duration) {
        *self.give_up.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(Instant::now() + drain);
        self.stop.store(true, Ordering::SeqCst);
    }

    fn stopped(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }

    fn past_drain(&self) -> bool {
        let give_up = *self.give_up.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        give_up.is_some_and(|at| Instant::now() > at)
    }
}

/// Frames delivered wrongly: each a false alert, since nobody here cheats.
#[derive(Debug, Default, Clone)]
pub struct Alerts {
    /// A frame of another game or seat, of a wrong size, or whose payload was altered.
    pub foreign: u64,
    /// A frame numbered beyond what its sender had sent, or acknowledging more than this side sent.
    pub unsent: u64,
    /// Delivered to the application a second time.
    pub duplicated: u64,
    /// Delivered to the application after a later one.
    pub out_of_order: u64,
    /// Sent by the peer and never delivered by the end of the run (a finished game has none: it ends when both
    /// sides have everything).
    pub lost: u64,
}

impl Alerts {
    pub fn total(&self) -> u64 {
        self.foreign + self.unsent + self.duplicated + self.out_of_order + self.lost
    }

    pub fn add(&mut self, other: &Alerts) {
        self.foreign += other.foreign;
        self.unsent += other.unsent;
        self.duplicated += other.duplicated;
        self.out_of_order += other.out_of_order;
        self.lost += other.lost;
    }
}

/// What a player went through: nothing here is wrong in itself.
#[derive(Debug, Default, Clone)]
pub struct Counts {
    pub delivered: u64,
    pub drops: u64,
    pub resumes: u64,
    pub bad_tokens: u64,
    pub rendezvous: u64,
    pub peer_backs: u64,
    pub peer_gone: u64,
    /// Frames the relay dropped because the room had nobody else (`not_paired`).
    pub not_paired: u64,
    /// Frames sent again after a reconnection or a `peer_back`.
    pub resent: u64,
    /// Frames dropped by the deduplication (already taken).
    pub repeats: u64,
    /// Frames held because they came ahead of one not yet taken.
    pub ahead: u64,
    /// Longest time from losing the connection to having the seat again.
    pub longest_outage: Duration,
}

impl Counts {
    pub fn add(&mut self, other: &Counts) {
        self.delivered += other.delivered;
        self.drops += other.drops;
        self.resumes += other.resumes;
        self.bad_tokens += other.bad_tokens;
        self.rendezvous += other.rendezvous;
        self.peer_backs += other.peer_backs;
        self.peer_gone += other.peer_gone;
        self.not_paired += other.not_paired;
        self.resent += other.resent;
        self.repeats += other.repeats;
        self.ahead += other.ahead;
        self.longest_outage = self.longest_outage.max(other.longest_outage);
    }
}

/// How a player's game ended.
#[derive(Debug, Clone)]
pub enum Ending {
    /// Both players have every frame the other sent.
    Finished,
    /// The player could not go on, as the client would stop: why.
    Lost(String),
}

/// A player's account of its game.
#[derive(Debug, Clone)]
pub struct Report {
    pub seat: u8,
    pub ending: Ending,
    pub alerts: Alerts,
    pub counts: Counts,
    /// The latest events of its link to the relays (seats taken, control messages, drops), with the time, to
    /// read beside the relays' logs.
    pub journal: VecDeque<(SystemTime, String)>,
}

/// The application behind the channel: it expects each frame of the peer once, in order.
#[derive(Default)]
struct Application {
    expected: u64,
}

/// How a connection ended.
enum Link {
    /// It dropped: take the seat back.
    Dropped,
    /// The game is over for this player.
    Over(Ending),
}

/// A control message's consequence.
enum Control {
    Nothing,
    Resend,
    /// The room is over: meet again at the rendezvous.
    Gone,
    Lost(String),
}

type Sink = SplitSink<Ws, Message>;

/// One of a game's two players.
pub struct Player {
    game: Arc<Game>,
    seat: u8,
    urls: Arc<Vec<String>>,
    /// The instance (from 1) of the current or latest connection.
    instance: usize,
    token: Option<String>,
    sent: u64,
    acked: u64,
    received: u64,
    ack_sent: u64,
    ahead: BTreeSet<u64>,
    app: Application,
    alerts: Alerts,
    counts: Counts,
    journal: VecDeque<(SystemTime, String)>,
}

/// Opens one game: the host creates its room at one of `urls`, the guest joins it at one (each picked at
/// random); both wait until paired. Returns the players and their connections.
pub async fn open_game(game: Arc<Game>, urls: Arc<Vec<String>>) -> anyhow::Result<[(Player, Ws); 2]> {
    let host_at = pick(&urls);
    let mut host = connect(&urls[host_at]).await?;
    welcome(&mut host).await?;
    send_control(&mut host, &ClientMessage::Create { client: Some(CLIENT.into()), seats: None }).await?;
    let (nameplate, host_token) = match next_control(&mut host).await? {
        ServerMessage::Created { nameplate, token, .. } => (nameplate, token),
        other => anyhow::bail!("create: {other:?}"),
    };
    let guest_at = pick(&urls);
    let mut guest = connect(&urls[guest_at]).await?;
    welcome(&mut guest).await?;
    send_control(&mut guest, &ClientMessage::Join { nameplate, client: Some(CLIENT.into()) }).await?;
    let guest_token = match next_control(&mut guest).await? {
        ServerMessage::Joined { token, .. } => token,
        other => anyhow::bail!("join: {other:?}"),
    };
    for ws in [&mut guest, &mut host] {
        match next_control(ws).await? {
            ServerMessage::Paired { .. } => {}
            other => anyhow::bail!("waiting for paired: {other:?}"),
        }
    }
    let player = |seat, at, token| Player::new(game.clone(), seat, urls.clone(), at, token);
    Ok([(player(0, host_at, host_token), host), (player(1, guest_at, guest_token), guest)])
}

impl Player {
    fn new(game: Arc<Game>, seat: u8, urls: Arc<Vec<String>>, at: usize, token: String) -> Player {
        let mut player = Player {
            game,
            seat,
            urls,
            instance: at + 1,
            token: Some(token),
            sent: 0,
            acked: 0,
            received: 0,
            ack_sent: 0,
            ahead: BTreeSet::new(),
            app: Application::default(),
            alerts: Alerts::default(),
            counts: Counts::default(),
            journal: VecDeque::new(),
        };
        player.note(format!("paired at instance {}", player.instance));
        player
    }

    fn note(&mut self, event: String) {
        if self.journal.len() == JOURNAL {
            self.journal.pop_front();
        }
        self.journal.push_back((SystemTime::now(), event));
    }

    /// Plays until the clock stops the game and every frame is through both ways, or the game is lost.
    /// `interval` is the mean time between new frames.
    pub async fn play(mut self, first: Ws, clock: Arc<Clock>, interval: Duration) -> Report {
        let mut ws = first;
        let ending = loop {
            match self.connected(ws, &clock, interval).await {
                Link::Over(ending) => break ending,
                Link::Dropped => self.counts.drops += 1,
            }
            let lost_at = Instant::now();
            match self.reach_seat().await {
                Ok(back) => ws = back,
                Err(reason) => break Ending::Lost(reason),
            }
            self.counts.longest_outage = self.counts.longest_outage.max(lost_at.elapsed());
        };
        self.alerts.lost = self.game.sent[usize::from(1 - self.seat)].load(Ordering::SeqCst) - self.received;
        let (sent, received, acked) = (self.sent, self.received, self.acked);
        self.note(format!("the end: {sent} sent, {acked} of them acknowledged; {received} received"));
        Report { seat: self.seat, ending, alerts: self.alerts, counts: self.counts, journal: self.journal }
    }

    /// One connection, from the seat had (everything unacknowledged is resent first) until it drops or the game
    /// is over.
    async fn connected(&mut self, ws: Ws, clock: &Clock, interval: Duration) -> Link {
        let (mut tx, mut rx) = ws.split();
        if self.resend(&mut tx).await.is_err() {
            return Link::Dropped;
        }
        let mut tick = tokio::time::interval(TICK);
        let mut next_frame = Instant::now() + between(Duration::ZERO, interval * 2);
        loop {
            let step = tokio::select! {
                message = rx.next() => self.take(message, &mut tx).await,
                _ = tick.tick() => self.on_tick(&mut tx, clock, interval, &mut next_frame).await,
            };
            if let Some(link) = step {
                return link;
            }
        }
    }

    /// A message from the relay; `Some` when the connection is done.
    async fn take(
        &mut self,
        message: Option<Result<Message, tokio_tungstenite::tungstenite::Error>>,
        tx: &mut Sink,
    ) -> Option<Link> {
        match message {
            // The sender's seat comes first: a room of two has one other.
            Some(Ok(Message::Binary(frame))) => {
                self.take_frame(frame.get(1..).unwrap_or_default());
                None
            }
            Some(Ok(Message::Text(text))) => match self.control(&text) {
                Control::Nothing => None,
                Control::Resend => self.resend(tx).await.err().map(|_| Link::Dropped),
                Control::Gone => {
                    self.token = None;
                    Some(Link::Dropped)
                }
                Control::Lost(reason) => Some(Link::Over(Ending::Lost(reason))),
            },
            Some(Ok(Message::Ping(_) | Message::Pong(_) | Message::Frame(_))) => None,
            Some(Ok(Message::Close(frame))) => {
                self.note(format!("closed by instance {}: {frame:?}", self.instance));
                Some(Link::Dropped)
            }
            Some(Err(error)) => {
                self.note(format!("connection to instance {} failed: {error}", self.instance));
                Some(Link::Dropped)
            }
            None => {
                self.note(format!("connection to instance {} ended", self.instance));
                Some(Link::Dropped)
            }
        }
    }

    /// A control message while seated, handled as the client handles it.
    fn control(&mut self, text: &str) -> Control {
        let message = serde_json::from_str::<ServerMessage>(text);
        if let Ok(ServerMessage::Error { code: ErrorCode::NotPaired, .. }) = message {
            // One for each frame sent while alone in the room: counted, not journalled, so that the journal
            // keeps how the player got there.
            self.counts.not_paired += 1;
            return Control::Nothing;
        }
        self.note(format!("from instance {}: {text}", self.instance));
        match message {
            // Met again at the rendezvous, or back with a peer that was away: the peer may lack anything.
            Ok(ServerMessage::Paired { .. } | ServerMessage::PeerBack { .. }) => {
                self.counts.peer_backs += 1;
                Control::Resend
            }
            Ok(ServerMessage::PeerGone { .. }) => {
                self.counts.peer_gone += 1;
                Control::Gone
            }
            Ok(ServerMessage::Error { code: ErrorCode::Replaced, .. }) => {
                Control::Lost("another connection took this seat (replaced)".into())
            }
            Ok(_) => Control::Nothing,
            Err(error) => Control::Lost(format!("unreadable relay message {text:?}: {error}")),
        }
    }

    /// The clock: a new frame when one is due, an acknowledgement owed, and the end of the game.
    async fn on_tick(&mut self, tx: &mut Sink, clock: &Clock, interval: Duration, next: &mut Instant) -> Option<Link> {
        let stopped = clock.stopped();
        if !stopped && Instant::now() >= *next && self.sent - self.acked < WINDOW {
            *next = Instant::now() + between(Duration::ZERO, interval * 2);
            self.sent += 1;
            self.game.sent[usize::from(self.seat)].store(self.sent, Ordering::SeqCst);
            if tx.send(self.data_frame(self.sent - 1)).await.is_err() {
                return Some(Link::Dropped);
            }
        }
        if self.ack_sent < self.received {
            self.ack_sent = self.received;
            if tx.send(self.ack_frame()).await.is_err() {
                return Some(Link::Dropped);
            }
        }
        if stopped {
            let peer_sent = self.game.sent[usize::from(1 - self.seat)].load(Ordering::SeqCst);
            let drained = self.acked == self.sent && self.received == peer_sent;
            self.game.drained[usize::from(self.seat)].store(drained, Ordering::SeqCst);
            if self.game.drained.iter().all(|side| side.load(Ordering::SeqCst)) {
                return Some(Link::Over(Ending::Finished));
            }
            if clock.past_drain() {
                let missing = (self.sent - self.acked, peer_sent - self.received);
                let reason = format!("not through when the run ended: {} sent and {} to receive", missing.0, missing.1);
                return Some(Link::Over(Ending::Lost(reason)));
            }
        }
        None
    }

    /// Sends again every frame the peer has not acknowledged, and where this side stands.
    async fn resend(&mut self, tx: &mut Sink) -> Result<(), tokio_tungstenite::tungstenite::Error> {
        for seq in self.acked..self.sent {
            self.counts.resent += 1;
            tx.feed(self.data_frame(seq)).await?;
        }
        self.ack_sent = self.received;
        tx.feed(self.ack_frame()).await?;
        tx.flush().await
    }

    fn data_frame(&self, seq: u64) -> Message {
        let mut frame = Vec::with_capacity(DATA_LEN + 1);
        frame.push(TO_ALL);
        frame.push(DATA);
        frame.extend_from_slice(&self.game.number.to_be_bytes());
        frame.push(self.seat);
        frame.extend_from_slice(&seq.to_be_bytes());
        frame.extend_from_slice(&self.received.to_be_bytes());
        frame.extend_from_slice(&self.game.payload(self.seat, seq));
        Message::Binary(frame.into())
    }

    fn ack_frame(&self) -> Message {
        let mut frame = Vec::with_capacity(ACK_LEN + 1);
        frame.push(TO_ALL);
        frame.push(ACK);
        frame.extend_from_slice(&self.game.number.to_be_bytes());
        frame.push(self.seat);
        frame.extend_from_slice(&self.received.to_be_bytes());
        Message::Binary(frame.into())
    }

    /// A frame of the peer: checked, its acknowledgement taken, its data delivered in order once.
    fn take_frame(&mut self, frame: &[u8]) {
        let peer = 1 - self.seat;
        let number = |at: usize| frame.get(at..at + 8).and_then(|b| b.try_into().ok()).map(u64::from_be_bytes);
        let ours = frame.get(1..5) == Some(&self.game.number.to_be_bytes()[..]) && frame.get(5) == Some(&peer);
        let (seq, ack) = match (frame.first(), frame.len()) {
            (Some(&DATA), DATA_LEN) if ours => (number(6), number(14)),
            (Some(&ACK), ACK_LEN) if ours => (None, number(6)),
            _ => (None, None),
        };
        let Some(ack) = ack else {
            self.alerts.foreign += 1;
            return;
        };
        if let Some(seq) = seq
            && frame[22..] != self.game.payload(peer, seq)
        {
            self.alerts.foreign += 1;
            return;
        }
        if ack > self.sent {
            self.alerts.unsent += 1;
            return;
        }
        self.acked = self.acked.max(ack);
        let Some(seq) = seq else { return };
        if seq >= self.game.sent[usize::from(peer)].load(Ordering::SeqCst) {
            self.alerts.unsent += 1;
        } else if seq < self.received || !self.ahead.insert(seq) {
            self.counts.repeats += 1;
        } else if seq > self.received {
            self.counts.ahead += 1;
        }
        while self.ahead.remove(&self.received) {
            self.deliver(self.received);
            self.received += 1;
        }
    }

    /// The application takes a frame of the peer.
    fn deliver(&mut self, seq: u64) {
        use std::cmp::Ordering::{Equal, Greater, Less};
        match seq.cmp(&self.app.expected) {
            Equal => self.app.expected += 1,
            Less => self.alerts.duplicated += 1,
            Greater => {
                self.alerts.out_of_order += 1;
                self.app.expected = seq + 1;
            }
        }
        self.counts.delivered += 1;
    }

    /// Takes the seat back at any instance, as the client does: by the token while the relay knows it, else at
    /// the rendezvous; retrying on a backoff timer for a minute. `Err` is why the game is lost.
    async fn reach_seat(&mut self) -> Result<Ws, String> {
        let deadline = Instant::now() + RECONNECT_FOR;
        let mut delay = FIRST_RETRY;
        loop {
            let by_token = self.token.is_some();
            let attempt = tokio::time::timeout(ATTEMPT_TIMEOUT, self.claim()).await;
            let error = match attempt {
                Ok(Ok(ws)) => return Ok(ws),
                Ok(Err(Claim::Refused(ErrorCode::BadToken))) if by_token => {
                    // The relay lost the room: meet at the game's rendezvous, at once.
                    self.counts.bad_tokens += 1;
                    self.token = None;
                    continue;
                }
                Ok(Err(Claim::Refused(code))) => return Err(format!("the relay refused the seat: {code}")),
                Ok(Err(Claim::Failed(error))) => format!("{error:#}"),
                Err(_) => format!("no seat within {ATTEMPT_TIMEOUT:?}"),
            };
            self.note(format!("attempt at instance {}: {error}", self.instance));
            if Instant::now() >= deadline {
                return Err(format!("could not reconnect in {RECONNECT_FOR:?}: {error}"));
            }
            tokio::time::sleep(delay).await;
            delay = (delay * 2).min(LONGEST_RETRY);
        }
    }

    /// One attempt: connect to an instance picked at random, claim the seat.
    async fn claim(&mut self) -> Result<Ws, Claim> {
        let at = pick(&self.urls);
        self.instance = at + 1;
        let mut ws = connect(&self.urls[at]).await.map_err(Claim::Failed)?;
        let challenge = welcome(&mut ws).await.map_err(Claim::Failed)?;
        let client = Some(CLIENT.to_string());
        let message = match &self.token {
            Some(token) => ClientMessage::Resume { token: token.clone(), client },
            None => {
                let peer = self.game.seat_key(1 - self.seat).public();
                self.game.seat_key(self.seat).rendezvous(self.seat, &peer, &challenge, client)
            }
        };
        send_control(&mut ws, &message).await.map_err(Claim::Failed)?;
        let answer = next_control(&mut ws).await.map_err(Claim::Failed)?;
        let how = if self.token.is_some() { "resume" } else { "rendezvous" };
        self.note(format!("{how} at instance {}: {answer:?}", self.instance));
        match answer {
            ServerMessage::Resumed { .. } => self.counts.resumes += 1,
            ServerMessage::Met { token, .. } => {
                self.counts.rendezvous += 1;
                self.token = Some(token);
            }
            ServerMessage::Error { code, .. } => return Err(Claim::Refused(code)),
            other => return Err(Claim::Failed(anyhow::anyhow!("unexpected answer to a claim: {other:?}"))),
        }
        Ok(ws)
    }
}

/// Why an attempt at the seat failed.
enum Claim {
    /// The relay answered with an error.
    Refused(ErrorCode),
    /// No answer: the instance is down, or the connection dropped.
    Failed(anyhow::Error),
}

/// The index of an instance picked at random.
fn pick(urls: &[String]) -> usize {
    rand::random::<u64>() as usize % urls.len()
}

/// A random duration in `[low, high)`.
pub fn between(low: Duration, high: Duration) -> Duration {
    let span = high.saturating_sub(low).as_micros().max(1) as u64;
    low + Duration::from_micros(rand::random::<u64>() % span)
}

/// Reads `welcome`: this connection's challenge.
async fn welcome(ws: &mut Ws) -> anyhow::Result<[u8; CHALLENGE_BYTES]> {
    match next_control(ws).await? {
        ServerMessage::Welcome { challenge, .. } => {
            let bytes = hex::decode(&challenge).context("a challenge that is not hex")?;
            bytes.try_into().map_err(|_| anyhow::anyhow!("a challenge of a wrong length"))
        }
        other => anyhow::bail!("expected welcome, got {other:?}"),
    }
}

async fn send_control(ws: &mut Ws, message: &ClientMessage) -> anyhow::Result<()> {
    ws.send(Message::Text(serde_json::to_string(message)?.into())).await?;
    Ok(())
}
