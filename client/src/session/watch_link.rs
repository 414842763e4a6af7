//! The driver's watch link: the player's second WebSocket to the relay, which carries its spectators' frames
//! (`[K] ++ payload` both ways) and their comings and goings. Opened with the seat's token (`host_watch`) when the
//! core asks ([`WatchAction`]); what is sent on it is the core's watch hub's.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use fairdeck_relay_protocol::{ClientMessage, ServerMessage};
use futures_util::{SinkExt, StreamExt};
use tokio_tungstenite::tungstenite::Message;

use super::claim::WatchAction;
use super::core::{Input, WatchInput};
use super::error::SessionError;
use super::relay::{Opened, Ws, next_control, open_relay, relay_refusal, send_control};

/// A watch link that is open: the WebSocket, the watch nameplate, the largest frame.
pub(super) struct Opening {
    ws: Box<Ws>,
    nameplate: String,
    max_frame: usize,
}

pub(super) enum WatchLink {
    Up(Box<Ws>),
    /// Connecting and opening the watch seats; kept here so that the driver polls it among other things.
    Opening(Pin<Box<dyn Future<Output = Result<Opening, SessionError>> + Send>>),
    Closed,
}

impl WatchLink {
    /// What the watch link brought, for the core; pending forever when closed. Cancel-safe.
    pub async fn next(&mut self) -> Option<Input> {
        let input = match self {
            WatchLink::Up(ws) => match ws.next().await {
                Some(Ok(Message::Binary(bytes))) => WatchInput::Frame(bytes.to_vec()),
                Some(Ok(Message::Text(text))) => WatchInput::Control(text.as_str().to_string()),
                Some(Ok(_)) => return None,
                Some(Err(_)) | None => self.lost(),
            },
            WatchLink::Opening(opening) => {
                let outcome = opening.await;
                *self = WatchLink::Closed;
                match outcome {
                    Ok(Opening { ws, nameplate, max_frame }) => {
                        *self = WatchLink::Up(ws);
                        WatchInput::Opened { nameplate, max_frame }
                    }
                    Err(error) => WatchInput::Refused(error),
                }
            }
            WatchLink::Closed => std::future::pending().await,
        };
        Some(Input::Watch(input))
    }

    /// The link dropped: the core opens it again (why does not matter to spectators, who wait).
    fn lost(&mut self) -> WatchInput {
        *self = WatchLink::Closed;
        WatchInput::Lost
    }

    /// Sends a spectator's frame; a failure drops the link, and is what the core is told.
    pub async fn send(&mut self, frame: Vec<u8>) -> Option<Input> {
        let WatchLink::Up(ws) = self else { return None };
        ws.send(Message::binary(frame)).await.err()?;
        Some(Input::Watch(self.lost()))
    }

    /// Does what the core asks: `url` and `tls` reach the relay.
    pub fn act(&mut self, action: WatchAction, url: &str, tls: &Arc<rustls::ClientConfig>) {
        *self = match action {
            WatchAction::Open(token) => WatchLink::Opening(Box::pin(open_watch(url.to_string(), tls.clone(), token))),
            WatchAction::Close => WatchLink::Closed,
        };
    }
}

/// Connects to the relay and opens this seat's watch seats.
async fn open_watch(url: String, tls: Arc<rustls::ClientConfig>, token: String) -> Result<Opening, SessionError> {
    let Opened { mut ws, max_frame, .. } = open_relay(&url, &tls).await?;
    send_control(&mut ws, &ClientMessage::HostWatch { token }).await?;
    match next_control(&mut ws).await? {
        ServerMessage::WatchOpened { nameplate, .. } => Ok(Opening { ws: Box::new(ws), nameplate, max_frame }),
        other => Err(relay_refusal(other)),
    }
}
