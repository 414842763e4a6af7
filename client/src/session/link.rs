//! The driver's link to the relay: a WebSocket that is up, an attempt under way to take the seat back, or
//! nothing. The driver selects on [`Link::next`] beside the player's commands and the core's timer, and does
//! to the link what the core asks ([`LinkAction`]): when and how the seat is taken back is the core's
//! (`reconnect.rs`).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use fairdeck_relay_protocol::{ClientMessage, ReportedResult, TO_ALL};
use futures_util::{SinkExt, StreamExt};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

use super::claim::LinkAction;
use super::core::Input;
use super::error::SessionError;
use super::outbox::ToRelay;
use super::relay::{Claimed, Ws, claim_seat, lost_reason, send_control};

/// How long a last word to the relay (a report, `leave`, the close) may take when leaving.
const PARTING: Duration = Duration::from_secs(2);

pub(super) enum Link {
    /// Boxed: a WebSocket is large beside the other states.
    Up(Box<Ws>),
    /// Connecting and claiming the seat. Kept here so that the driver can poll it among other things and drop
    /// nothing when another branch is ready first.
    Attempt(Pin<Box<dyn Future<Output = Result<Claimed, SessionError>> + Send>>),
    /// No connection and none tried.
    Closed,
}

impl Link {
    /// What the link brought, for the core; pending forever when closed. Cancel-safe: an attempt under way stays
    /// in the link. A successful attempt puts its WebSocket up.
    pub async fn next(&mut self) -> Option<Input> {
        match self {
            Link::Up(ws) => match ws.next().await {
                // The first byte names the sending seat: with two seats, always the opponent's.
                Some(Ok(Message::Binary(bytes))) => Some(match bytes.split_first() {
                    Some((_from, payload)) => Input::Frame(payload.to_vec()),
                    None => Input::Lost("the relay sent a data frame naming no seat".into()),
                }),
                Some(Ok(Message::Text(text))) => Some(Input::Control(text.as_str().to_string())),
                // The stream ends right after a close; the next read gives `None` and the seat is taken back.
                Some(Ok(_)) => None,
                Some(Err(e)) => Some(Input::Lost(lost_reason(&e))),
                None => Some(Input::Lost("the relay closed the connection".into())),
            },
            Link::Attempt(attempt) => {
                let outcome = attempt.await;
                *self = Link::Closed;
                Some(match outcome {
                    Ok(Claimed { ws, max_frame, seated }) => {
                        *self = Link::Up(ws);
                        // Each frame leaves with its address byte before it.
                        Input::Seated { seated, max_frame: max_frame.saturating_sub(1) }
                    }
                    Err(error) => Input::Unseated(error),
                })
            }
            Link::Closed => std::future::pending().await,
        }
    }

    /// Queues a frame, or sends a control message (with the frames queued before it); a failure is the reason
    /// the link is lost. Queued frames leave at the next [`flush`](Self::flush): the frames of one turn go in
    /// one write.
    pub async fn send(&mut self, transmit: ToRelay) -> Result<(), String> {
        let Link::Up(ws) = self else { return Ok(()) };
        match transmit {
            // Addressed to every other seat: with two seats, the opponent.
            ToRelay::Frame(frame) => {
                let addressed = [&[TO_ALL][..], &frame].concat();
                ws.feed(Message::binary(addressed)).await.map_err(sending_failed)
            }
            // A control message that does not go shows up on the next read.
            ToRelay::Control(message) => {
                let _ = send_control(ws, &message).await;
                Ok(())
            }
        }
    }

    /// Sends what [`send`](Self::send) queued.
    pub async fn flush(&mut self) -> Result<(), String> {
        let Link::Up(ws) = self else { return Ok(()) };
        ws.flush().await.map_err(sending_failed)
    }

    /// What the link brought if it holds it already, without waiting.
    pub fn ready(&mut self) -> Option<Input> {
        futures_util::FutureExt::now_or_never(self.next()).flatten()
    }

    /// Does what the core asks of the link: `url` and `tls` reach the relay for a claim.
    pub async fn act(&mut self, action: LinkAction, url: &str, tls: &Arc<rustls::ClientConfig>) {
        match action {
            LinkAction::Claim(claim) => {
                *self = Link::Attempt(Box::pin(claim_seat(url.to_string(), tls.clone(), claim)));
            }
            LinkAction::Leave(report) => self.leave(report).await,
            LinkAction::Abandon(report) => self.abandon_seat(report).await,
            LinkAction::Close => *self = Link::Closed,
        }
    }

    /// Closes the link, and returns its WebSocket if it was up, for a last word.
    fn close(&mut self) -> Option<Box<Ws>> {
        match std::mem::replace(self, Link::Closed) {
            Link::Up(ws) => Some(ws),
            _ => None,
        }
    }

    /// Leaves the room for good (best effort: the process is ending anyway).
    async fn leave(&mut self, report: Option<ReportedResult>) {
        if let Some(mut ws) = self.close() {
            if let Some(result) = report {
                let _ = send_control(&mut ws, &ClientMessage::Report { result }).await;
            }
            let _ = send_control(&mut ws, &ClientMessage::Leave).await;
            let _ = tokio::time::timeout(PARTING, Ws::close(&mut ws, None)).await;
        }
    }

    /// Guest with a wrong code: reports it and drops the connection without `leave`, so that the host's room
    /// stays open for the right code.
    async fn abandon_seat(&mut self, report: ReportedResult) {
        if let Some(mut ws) = self.close() {
            let _ = send_control(&mut ws, &ClientMessage::Report { result: report }).await;
            let frame = CloseFrame { code: CloseCode::Away, reason: "wrong code".into() };
            let _ = tokio::time::timeout(PARTING, Ws::close(&mut ws, Some(frame))).await;
        }
    }
}

fn sending_failed(error: tokio_tungstenite::tungstenite::Error) -> String {
    format!("sending to the relay failed: {error}")
}
