//! The session's link to the relay over time: up on a WebSocket, down while the seat is being taken back (one
//! attempt at a time, on a backoff timer), or closed. The loop selects on [`Link::next`] beside the player's
//! commands, so a link that is down holds nothing up: commands still reach the engine, what the engine sends
//! waits in the channel, and once the seat is back the channel resends every frame not acknowledged. When and
//! how the seat is taken back is `reconnect.rs`.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use fairdeck_relay_protocol::{ClientMessage, ReportedResult};
use futures_util::StreamExt;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

use super::error::SessionError;
use super::relay::{Claim, Claimed, Frame, Ws, claim_seat, send_control};
use crate::save::RelayPlace;

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
    pub claim: Claim,
    /// Waits for its moment, connects, claims the seat. Kept here so that the loop can poll it among other
    /// things and drop nothing when another branch is ready first.
    attempt: Pin<Box<dyn Future<Output = Result<Claimed, SessionError>> + Send>>,
    /// After this, a failed attempt ends the session (the game is saved: `fairdeck resume` goes on).
    pub deadline: Instant,
    /// The wait before the next attempt if this one fails.
    pub delay: Duration,
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

    /// Down, taking the seat back with `claim` at `at`; if that fails, `deadline` and `delay` say what next.
    pub fn reconnecting(
        relay: &RelayPlace,
        tls: &Arc<rustls::ClientConfig>,
        claim: Claim,
        at: Instant,
        deadline: Instant,
        delay: Duration,
    ) -> Link {
        let attempt = Box::pin(claim_seat(relay.url.clone(), tls.clone(), claim.clone(), at));
        Link::Down(Reconnecting { claim, attempt, deadline, delay })
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
