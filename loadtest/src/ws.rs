//! The load tools' WebSocket connections and reads: the next control message or frame, skipping pings.

use std::net::{IpAddr, SocketAddr};
use std::os::fd::AsRawFd;

use anyhow::{Context, bail};
use fairdeck_relay::protocol::{ServerMessage, TO_ALL};
use futures_util::StreamExt;
use tokio::net::{TcpSocket, TcpStream};
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::{Bytes, Message};
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// A client connection to a relay.
pub type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// Small buffers, so that tens of thousands of client connections fit comfortably beside the relay.
fn config() -> WebSocketConfig {
    WebSocketConfig::default().read_buffer_size(4096).write_buffer_size(4096)
}

/// Connects to `url`.
pub async fn connect(url: &str) -> anyhow::Result<Ws> {
    let (ws, _) = tokio_tungstenite::connect_async_with_config(url, Some(config()), true).await?;
    Ok(ws)
}

/// Connects to `path` at `relay` from the loopback address `source` (see [`crate::system::Sources`]).
pub async fn connect_from(source: IpAddr, relay: SocketAddr, path: &str) -> anyhow::Result<Ws> {
    let socket = if source.is_ipv4() { TcpSocket::new_v4()? } else { TcpSocket::new_v6()? };
    // The port is chosen at connect, for this source and relay address, rather than at bind for the source
    // alone: otherwise every connection from one address needs a port of its own, whatever relay it reaches.
    let on: libc::c_int = 1;
    // SAFETY: the descriptor is the socket's, open; setsockopt only reads the `c_int` it is given.
    let set = unsafe {
        libc::setsockopt(
            socket.as_raw_fd(),
            libc::IPPROTO_IP,
            libc::IP_BIND_ADDRESS_NO_PORT,
            (&raw const on).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
    if set != 0 {
        return Err(std::io::Error::last_os_error()).context("IP_BIND_ADDRESS_NO_PORT");
    }
    socket.bind(SocketAddr::new(source, 0)).with_context(|| format!("cannot bind to {source}"))?;
    let tcp = socket.connect(relay).await.with_context(|| format!("cannot connect from {source} to {relay}"))?;
    tcp.set_nodelay(true)?;
    let url = format!("ws://{relay}{path}");
    let (ws, _) = tokio_tungstenite::client_async_with_config(url, MaybeTlsStream::Plain(tcp), Some(config())).await?;
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

/// A data frame to every other seat of the room: the address byte, then the payload.
pub fn to_all(payload: &[u8]) -> Message {
    let mut frame = Vec::with_capacity(payload.len() + 1);
    frame.push(TO_ALL);
    frame.extend_from_slice(payload);
    Message::Binary(frame.into())
}

/// The payload of the next binary frame, without the sender's seat the relay puts before it; a control message at
/// this point means trouble (e.g. the peer was cut off).
pub async fn next_binary(ws: &mut Ws) -> anyhow::Result<Bytes> {
    loop {
        match ws.next().await {
            Some(Ok(Message::Binary(data))) if !data.is_empty() => return Ok(data.slice(1..)),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_connection_comes_from_the_source_address_asked() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let relay = listener.local_addr().unwrap();
        let accepted = tokio::spawn(async move {
            let (tcp, peer) = listener.accept().await.unwrap();
            let _ = tokio_tungstenite::accept_async(tcp).await.unwrap();
            peer
        });
        let source: IpAddr = "127.0.0.7".parse().unwrap();
        let _ws = connect_from(source, relay, "/v1").await.unwrap();
        assert_eq!(accepted.await.unwrap().ip(), source);
    }
}
