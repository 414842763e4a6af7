//! The session's link to the relay over time: up on a WebSocket, down while the seat is being taken back (one
//! attempt at a time, on a backoff timer), or closed. The loop selects on [`Link::next`] beside the player's
//! commands, so a link that is down holds nothing up: commands still reach the engine, what the engine sends
//! waits in the channel, and once the seat is back the channel resends every frame not acknowledged.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use fairdeck_relay_protocol::{ClientMessage, PeerState, ReportedResult};
use fairdeck_shared::Seat;
use futures_util::StreamExt;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

use super::error::SessionError;
use super::frontend::{Frontend, Output};
use super::relay::{Claim, Claimed, Frame, Seated, Ws, claim_seat, send_control};
use super::state::{Door, Session};

/// How long to keep trying to take the seat back, unless a restarting relay says otherwise.
const RECONNECT_FOR: Duration = Duration::from_secs(60);
/// The wait after the first failed attempt; it doubles after each, up to [`LONGEST_RETRY`].
const FIRST_RETRY: Duration = Duration::from_millis(200);
const LONGEST_RETRY: Duration = Duration::from_secs(5);
/// How long a last word to the relay (a report, `leave`, the close) may take when leaving.
const PARTING: Duration = Duration::from_secs(2);

pub(super) enum Link {
    /// Boxed: a WebSocket is large beside the other states.
    Up(Box<Ws>),
    /// The seat is being taken back: the loop takes commands meanwhile.
    Down(Reconnecting),
    /// No connection and none tried: the room is over and the game does not go on there (or the session is
    /// leaving).
    Closed,
}

/// One attempt to take the seat back, and what to do if it fails.
pub(super) struct Reconnecting {
    claim: Claim,
    /// Waits for its moment, connects, claims the seat. Kept here so that the loop can poll it among other
    /// things and drop nothing when another branch is ready first.
    attempt: Pin<Box<dyn Future<Output = Result<Claimed, SessionError>> + Send>>,
    /// After this, a failed attempt ends the session (the game is saved: `fairdeck resume` goes on).
    deadline: Instant,
    /// The wait before the next attempt if this one fails.
    delay: Duration,
}

/// What the link brought.
pub(super) enum LinkEvent {
    /// A frame from the relay (or the end or failure of the WebSocket).
    Frame(Frame),
    /// The end of an attempt to take the seat back.
    Attempt(Result<Claimed, SessionError>),
}

impl Link {
    /// The next thing the link brings; pending forever when closed. Cancel-safe: an attempt under way stays in
    /// the link.
    pub async fn next(&mut self) -> LinkEvent {
        match self {
            Link::Up(ws) => LinkEvent::Frame(ws.next().await),
            Link::Down(down) => LinkEvent::Attempt((&mut down.attempt).await),
            Link::Closed => std::future::pending().await,
        }
    }

    /// The WebSocket, while the link is up.
    pub fn ws(&mut self) -> Option<&mut Ws> {
        match self {
            Link::Up(ws) => Some(ws.as_mut()),
            _ => None,
        }
    }

    pub fn is_up(&self) -> bool {
        matches!(self, Link::Up(_))
    }

    /// Closes the link, and returns its WebSocket if it was up, for a last word.
    fn close(&mut self) -> Option<Box<Ws>> {
        match std::mem::replace(self, Link::Closed) {
            Link::Up(ws) => Some(ws),
            _ => None,
        }
    }

    /// Leaves the room for good (best effort: the process is ending anyway).
    pub async fn leave(&mut self, report: Option<ReportedResult>) {
        if let Some(mut ws) = self.close() {
            if let Some(result) = report {
                let _ = send_control(&mut ws, &ClientMessage::Report { result }).await;
            }
            let _ = send_control(&mut ws, &ClientMessage::Leave).await;
            let _ = tokio::time::timeout(PARTING, ws.close(None)).await;
        }
    }

    /// Guest with a wrong code: reports it and drops the connection without `leave`, so that the host's room
    /// stays open for the right code.
    pub async fn abandon_seat(&mut self, report: ReportedResult) {
        if let Some(mut ws) = self.close() {
            let _ = send_control(&mut ws, &ClientMessage::Report { result: report }).await;
            let frame = CloseFrame { code: CloseCode::Away, reason: "wrong code".into() };
            let _ = tokio::time::timeout(PARTING, ws.close(Some(frame))).await;
        }
    }
}

impl Session {
    /// The relay connection dropped (a restart, a network blip): the seat is taken back while the game goes on.
    pub fn link_lost<F: Frontend>(&mut self, reason: String, front: &mut F) -> Result<(), SessionError> {
        self.link = Link::Closed;
        self.paired = false;
        front.show(Output::RelayLost(reason), &self.engine)?;
        self.reach_seat()
    }

    /// Starts taking the seat back: with its token while the relay knows it, else, once the channel is up, at
    /// the game's rendezvous (the relay lost the room in a crash, or the room ended when the opponent left).
    pub fn reach_seat(&mut self) -> Result<(), SessionError> {
        // A restarting relay says when to come back and for how long to try; otherwise retry for a minute.
        let (first_delay, try_for) = self.restart_hint.take().unwrap_or((Duration::ZERO, RECONNECT_FOR));
        let at = Instant::now() + first_delay;
        self.claim_seat(at, at + try_for, FIRST_RETRY)
    }

    /// Hosting: the game's room ended before any guest proved the code (a guest left); the game opens again
    /// in a new room, under a new number with the same words.
    pub fn open_new_room(&mut self) {
        self.paired = false;
        self.link = Link::Closed;
        if self.code.is_some() {
            let now = Instant::now();
            self.attempt(Claim::NewRoom, now, now, FIRST_RETRY);
        }
    }

    /// The next attempt at the seat, at `at`, by its token if the relay knows one, else at the rendezvous.
    fn claim_seat(&mut self, at: Instant, deadline: Instant, delay: Duration) -> Result<(), SessionError> {
        let claim =
            match self.relay.token.clone() {
                Some(token) => Claim::Token(token),
                None => Claim::Rendezvous(self.channel.rendezvous().ok_or_else(|| {
                    SessionError::Lost("the game has no rendezvous before the code is proved".into())
                })?),
            };
        self.attempt(claim, at, deadline, delay);
        Ok(())
    }

    fn attempt(&mut self, claim: Claim, at: Instant, deadline: Instant, delay: Duration) {
        let attempt = Box::pin(claim_seat(self.relay.url.clone(), self.tls.clone(), claim.clone(), at));
        self.link = Link::Down(Reconnecting { claim, attempt, deadline, delay });
    }

    /// Takes in the end of an attempt: the link is up again, another attempt is scheduled, or the session ends.
    pub fn attempted<F: Frontend>(
        &mut self,
        outcome: Result<Claimed, SessionError>,
        front: &mut F,
    ) -> Result<(), SessionError> {
        let Link::Down(down) = std::mem::replace(&mut self.link, Link::Closed) else { return Ok(()) };
        let error = match outcome {
            Ok(claimed) => return self.seated(claimed, front),
            Err(error) => error,
        };
        let now = Instant::now();
        let bad_token = matches!(error, SessionError::Relay { code: "bad_token", .. });
        match (down.claim, error) {
            // A new room is opened once, as the room was at the start.
            (Claim::NewRoom, error) => Err(error),
            // The relay lost the room (a crash): the players meet at the game's rendezvous.
            (Claim::Token(_), _) if bad_token && self.channel.is_established() => {
                self.relay.token = None;
                self.claim_seat(now, down.deadline, down.delay)
            }
            // The room ended while we were away, before any guest proved the code (a guest left).
            (Claim::Token(_), _) if bad_token && self.engine.seat() == Seat::Host => {
                self.open_new_room();
                Ok(())
            }
            (
                _,
                error @ (SessionError::UnknownCode | SessionError::Relay { .. } | SessionError::Certificate { .. }),
            ) => Err(SessionError::Lost(format!("the seat could not be resumed: {error}"))),
            (_, error) if now >= down.deadline => {
                let saved = match &self.save {
                    Some(save) => format!("; the game is saved: `fairdeck resume {}` goes on", save.path().display()),
                    None => String::new(),
                };
                Err(SessionError::Lost(format!("could not reconnect: {error}{saved}")))
            }
            (_, _) => self.claim_seat(now + down.delay, down.deadline, (down.delay * 2).min(LONGEST_RETRY)),
        }
    }

    /// The seat is had on a new connection: the channel resends what the opponent may lack.
    fn seated<F: Frontend>(&mut self, claimed: Claimed, front: &mut F) -> Result<(), SessionError> {
        self.channel.set_max_frame_bytes(claimed.max_frame);
        self.link = Link::Up(claimed.ws);
        match claimed.seated {
            Seated::Resumed { peer, waiting_as } => {
                self.paired = peer != PeerState::Waiting;
                self.peer_here = peer == PeerState::Present;
                self.channel.resend_unacked();
                front.show(Output::Resumed { peer_here: self.peer_here }, &self.engine)?;
                // Our `reopen` took effect while the connection was down, its answer lost with it.
                if let Some(nameplate) = waiting_as.filter(|_| self.door == Door::Reopening) {
                    self.reopened(&nameplate, front)?;
                }
            }
            Seated::Met { token, peer } => {
                self.relay.token = Some(token);
                self.paired = peer == PeerState::Present;
                self.peer_here = self.paired;
                self.channel.resend_unacked();
                front.show(Output::Rendezvous { peer_here: self.peer_here }, &self.engine)?;
            }
            Seated::Created { nameplate, token } => return self.new_room_opened(&nameplate, token, front),
        }
        if let Some(news) = self.wait_clock.restart() {
            front.show(news.into(), &self.engine)?;
        }
        Ok(())
    }
}
