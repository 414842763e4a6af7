//! The load tools' WebSocket connections and reads: the next control message or frame, skipping pings.

use anyhow::{Context, bail};
use fairdeck_relay::protocol::ServerMessage;
use futures_util::StreamExt;
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::{Bytes, Message};
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// A client connection to a relay.
pub type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// Connects to `url` with small buffers, so that 10,000 client connections fit comfortably beside the relay.
pub async fn connect(url: &str) -> anyhow::Result<Ws> {
    let config = WebSocketConfig::default().read_buffer_size(4096).write_buffer_size(4096);
    let (ws, _) = tokio_tungstenite::connect_async_with_config(url, Some(config), true).await?;
    Ok(ws)
}

/// The next text frame (control messages or the baseline's "paired").
pub async fn next_text(ws: &mut Ws) -> anyhow::Result<String> {
    loop {
        match ws.next().await {
            Some(Ok(Message::Text(text))) => return Ok(text.to_string()),
            Some(Ok(Message::Ping(_) | Message::Pong(_))) => continue,
            other => bail!("expected a text frame, got {other:?}"),
        }
    }
}

/// The next binary frame; a control message at this point means trouble (e.g. the peer was cut off).
pub async fn next_binary(ws: &mut Ws) -> anyhow::Result<Bytes> {
    loop {
        match ws.next().await {
            Some(Ok(Message::Binary(data))) => return Ok(data),
            Some(Ok(Message::Ping(_) | Message::Pong(_))) => continue,
            other => bail!("expected a binary frame, got {other:?}"),
        }
    }
}

/// The next control message; a binary frame before it is an error.
pub async fn next_control(ws: &mut Ws) -> anyhow::Result<ServerMessage> {
    let text = next_text(ws).await?;
    serde_json::from_str(&text).with_context(|| format!("unreadable control message {text:?}"))
}

/// Reads on to `paired` (past `joined` or `created`), then the `watchers` the relay sends right after it: the
/// next message is the peer's first frame.
pub async fn until_paired(ws: &mut Ws) -> anyhow::Result<()> {
    while !matches!(next_control(ws).await?, ServerMessage::Paired { .. }) {}
    match next_control(ws).await? {
        ServerMessage::Watchers { .. } => Ok(()),
        other => bail!("expected watchers after paired, got {other:?}"),
    }
}

/// A string field of a JSON control message.
pub fn field(json: &str, name: &str) -> anyhow::Result<String> {
    let value: serde_json::Value = serde_json::from_str(json)?;
    value[name].as_str().map(str::to_owned).with_context(|| format!("no {name} in {json}"))
}
