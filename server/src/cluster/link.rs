//! A player's connection forwarded to the instance that holds its room.
//!
//! The instance the player reached (which sent it `welcome`) opens a WebSocket to the holding instance's
//! [`PATH`], presenting the cluster's secret, the player's address (for that instance's rate limits) and the
//! challenge of its `welcome` (which a `rendezvous` proof signs), and sends the player's first message. The holding
//! instance then serves it as one of its own players, without a `welcome`; the forwarding instance passes every
//! message both ways unchanged, close codes included, and keeps the player's connection alive with its own pings.

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

use super::Cluster;
use crate::protocol::CHALLENGE_BYTES;

/// Where an instance takes the connections other instances forward to it.
pub(crate) const PATH: &str = "/cluster/v1";
const SECRET_HEADER: &str = "x-fairdeck-cluster-secret";
const CLIENT_HEADER: &str = "x-fairdeck-client";
const CHALLENGE_HEADER: &str = "x-fairdeck-challenge";

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
    #[error(transparent)]
    WebSocket(#[from] tungstenite::Error),
}

/// A player forwarded by another instance, as that instance vouches for it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Forwarded {
    pub(crate) client: IpAddr,
    pub(crate) challenge: [u8; CHALLENGE_BYTES],
}

impl Forwarded {
    /// The forwarded player of a request that presents the cluster's secret; `None` for anything else.
    pub(crate) fn from_headers(headers: &HeaderMap, cluster: &Cluster) -> Option<Forwarded> {
        let secret = cluster.secret()?;
        let presented = headers.get(SECRET_HEADER)?.as_bytes();
        if !bool::from(presented.ct_eq(secret.as_bytes())) {
            return None;
        }
        let client = headers.get(CLIENT_HEADER)?.to_str().ok()?.parse().ok()?;
        let challenge = hex::decode(headers.get(CHALLENGE_HEADER)?.as_bytes()).ok()?.try_into().ok()?;
        Some(Forwarded { client, challenge })
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

/// Opens a link to the instance at `url` for a player, and sends it the player's first message.
pub(crate) async fn open(
    cluster: &Cluster,
    url: &str,
    player: Forwarded,
    first: &str,
    max_message_bytes: usize,
) -> Result<Link, LinkError> {
    let secret = cluster.secret().ok_or(LinkError::NoSecret)?;
    let mut request = format!("{url}{PATH}").into_client_request()?;
    let headers = request.headers_mut();
    let value = |text: String| HeaderValue::from_str(&text).map_err(|e| tungstenite::Error::HttpFormat(e.into()));
    headers.insert(SECRET_HEADER, value(secret)?);
    headers.insert(CLIENT_HEADER, value(player.client.to_string())?);
    headers.insert(CHALLENGE_HEADER, value(hex::encode(player.challenge))?);
    let config =
        WebSocketConfig::default().max_message_size(Some(max_message_bytes)).max_frame_size(Some(max_message_bytes));
    let open = async {
        let (mut link, _) = tokio_tungstenite::connect_async_with_config(request, Some(config), true).await?;
        futures_util::SinkExt::send(&mut link, Message::text(first)).await?;
        Ok::<Link, LinkError>(link)
    };
    tokio::time::timeout(OPEN_PATIENCE, open).await.map_err(|_| LinkError::Timeout)?
}
