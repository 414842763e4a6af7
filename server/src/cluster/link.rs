//! A player's connection forwarded to the instance that holds its room.
//!
//! The instance the player reached (which sent it `welcome`) opens a WebSocket to the holding instance's
//! [`PATH`], presenting the cluster's secret, the player's address (for that instance's rate limits) and the
//! challenge of its `welcome` (which a `rendezvous` proof signs), and sends the player's first message. The holding
//! instance then serves it as one of its own players, without a `welcome`; the forwarding instance passes every
//! message both ways unchanged, close codes included, and keeps the player's connection alive with its own pings.
//!
//! While Redis is down, an instance cannot say which instance holds a room: it asks those Redis last named, one
//! after another, naming the room in a header ([`HELD_HEADER`]); an instance that does not hold it refuses the
//! link (421) before the player's first message is sent, so at most one instance ever takes the player.

use std::net::IpAddr;
use std::time::Duration;

use axum::http::HeaderMap;
use subtle::ConstantTimeEq;
use thiserror::Error;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::{self, Message};
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use super::{Cluster, Lookup};
use crate::config::WS_BUFFER_BYTES;
use crate::protocol::CHALLENGE_BYTES;
use crate::rooms::Rooms;

/// Where an instance takes the connections other instances forward to it.
pub(crate) const PATH: &str = "/cluster/v1";
const SECRET_HEADER: &str = "x-fairdeck-cluster-secret";
const CLIENT_HEADER: &str = "x-fairdeck-client";
const CHALLENGE_HEADER: &str = "x-fairdeck-challenge";
/// The instance meant: a process that restarted at the same address is another instance, without its rooms.
const INSTANCE_HEADER: &str = "x-fairdeck-instance";
/// The room the player's first message names ([`Lookup::name`]), when the forwarding instance does not know
/// whether this one holds it: the link is taken only if it does.
const HELD_HEADER: &str = "x-fairdeck-held";

/// How long opening a link may take before the player is told to come back.
const OPEN_PATIENCE: Duration = Duration::from_secs(2);

/// A forwarded connection, from the forwarding instance's side.
pub(crate) type Link = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// Why a link could not be opened.
#[derive(Debug, Error)]
pub(crate) enum LinkError {
    #[error("the cluster's secret is not known yet")]
    NoSecret,
    #[error("the instance did not answer in time")]
    Timeout,
    #[error("another instance answers at the address: the one holding the room is gone")]
    Superseded,
    #[error("the instance does not hold the room")]
    NotHeld,
    #[error(transparent)]
    WebSocket(#[from] tungstenite::Error),
}

/// Why an instance does not take a forwarded player.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// Not from an instance of the cluster (no or a wrong secret, a malformed header).
    Unknown,
    /// Meant for the instance that was at this address before.
    NotThisInstance,
    /// Meant for the instance holding a room, which this one does not hold.
    NotHeld,
}

/// A player forwarded by another instance, as that instance vouches for it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Forwarded {
    pub(crate) client: IpAddr,
    pub(crate) challenge: [u8; CHALLENGE_BYTES],
}

impl Forwarded {
    /// The forwarded player of a request that presents the cluster's secret, names this instance and, if it names
    /// a room, one that this instance holds.
    pub(crate) fn from_headers(headers: &HeaderMap, cluster: &Cluster, rooms: &Rooms) -> Result<Forwarded, Refusal> {
        let read = || {
            let secret = cluster.secret()?;
            let presented = headers.get(SECRET_HEADER)?.as_bytes();
            if !bool::from(presented.ct_eq(secret.as_bytes())) {
                return None;
            }
            let client = headers.get(CLIENT_HEADER)?.to_str().ok()?.parse().ok()?;
            let challenge = hex::decode(headers.get(CHALLENGE_HEADER)?.as_bytes()).ok()?.try_into().ok()?;
            let held = match headers.get(HELD_HEADER) {
                Some(name) => Some(Lookup::from_name(name.to_str().ok()?)?),
                None => None,
            };
            Some((
                Forwarded { client, challenge },
                headers.get(INSTANCE_HEADER)?.as_bytes() == cluster.instance().as_bytes(),
                held,
            ))
        };
        match read() {
            None => Err(Refusal::Unknown),
            Some((_, false, _)) => Err(Refusal::NotThisInstance),
            Some((_, true, Some(lookup))) if !super::holds(rooms, lookup) => Err(Refusal::NotHeld),
            Some((forwarded, true, _)) => Ok(forwarded),
        }
    }
}

/// Whether the instance advertised at `url` answers `/healthz` within [`OPEN_PATIENCE`].
pub(crate) async fn healthy(url: &str) -> bool {
    let Some(authority) = url.strip_prefix("ws://") else { return false };
    let ask = async {
        let mut stream = TcpStream::connect(authority).await?;
        let request = format!("GET /healthz HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n");
        stream.write_all(request.as_bytes()).await?;
        let mut head = [0u8; 12];
        stream.read_exact(&mut head).await?;
        Ok::<bool, std::io::Error>(head.ends_with(b" 200"))
    };
    matches!(tokio::time::timeout(OPEN_PATIENCE, ask).await, Ok(Ok(true)))
}

/// Opens a link to the instance `owner`, at `url`, for a player, and sends it the player's first message. With
/// `held`, the room that message names, only if that instance holds it ([`LinkError::NotHeld`]).
pub(crate) async fn open(
    cluster: &Cluster,
    (owner, url): (&str, &str),
    player: Forwarded,
    (first, held): (&str, Option<Lookup>),
    max_message_bytes: usize,
) -> Result<Link, LinkError> {
    let secret = cluster.secret().ok_or(LinkError::NoSecret)?;
    let mut request = format!("{url}{PATH}").into_client_request()?;
    let headers = request.headers_mut();
    let value = |text: String| HeaderValue::from_str(&text).map_err(|e| tungstenite::Error::HttpFormat(e.into()));
    headers.insert(SECRET_HEADER, value(secret)?);
    headers.insert(CLIENT_HEADER, value(player.client.to_string())?);
    headers.insert(CHALLENGE_HEADER, value(hex::encode(player.challenge))?);
    headers.insert(INSTANCE_HEADER, value(owner.to_owned())?);
    if let Some(lookup) = held {
        headers.insert(HELD_HEADER, value(lookup.name())?);
    }
    // The buffers of the relay's own connections: a link is held as long as its player's.
    let config = WebSocketConfig::default()
        .read_buffer_size(WS_BUFFER_BYTES)
        .write_buffer_size(WS_BUFFER_BYTES)
        .max_write_buffer_size(2 * max_message_bytes + 2 * WS_BUFFER_BYTES)
        .max_message_size(Some(max_message_bytes))
        .max_frame_size(Some(max_message_bytes));
    let open = async {
        let (mut link, _) = match tokio_tungstenite::connect_async_with_config(request, Some(config), true).await {
            Err(tungstenite::Error::Http(answer)) if answer.status() == 409 => return Err(LinkError::Superseded),
            Err(tungstenite::Error::Http(answer)) if answer.status() == 421 => return Err(LinkError::NotHeld),
            connected => connected?,
        };
        futures_util::SinkExt::send(&mut link, Message::text(first)).await?;
        Ok::<Link, LinkError>(link)
    };
    tokio::time::timeout(OPEN_PATIENCE, open).await.map_err(|_| LinkError::Timeout)?
}
