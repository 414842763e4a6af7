//! Talking to the relay: connecting (TLS for `wss://`), its JSON control messages, opening and joining a room,
//! and its refusals in the player's words. Functions of one WebSocket, for the driver; what the session does
//! with the link over time (losing it, taking the seat back) is the core's, in `reconnect.rs`.

use std::sync::Arc;
use std::time::Duration;

use fairdeck_relay_protocol::{
    CHALLENGE_BYTES, ClientMessage, ErrorCode, MAX_MESSAGE_BYTES_CEILING, PROTOCOL_VERSION, SeatState, ServerMessage,
};
use futures_util::{SinkExt, StreamExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::{self, Message};
use tokio_tungstenite::{Connector, MaybeTlsStream, WebSocketStream};

use super::claim::{Claim, Seated};
use super::error::SessionError;
use crate::code::{self, Code};
use crate::tls::explain_certificate_failure;

/// How long connecting to the relay (and its first answers) may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// The client's name and version, told to the relay and to the opponent.
pub(super) const SOFTWARE: &str = concat!("fairdeck/", env!("CARGO_PKG_VERSION"));

pub(crate) type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// A connection to the relay, past its welcome.
pub(crate) struct Opened {
    pub ws: Ws,
    /// The largest frame the relay takes.
    pub max_frame: usize,
    /// What a `rendezvous` proof on this connection signs.
    pub challenge: [u8; CHALLENGE_BYTES],
}

/// Connects to the relay and reads its welcome.
pub(crate) async fn open_relay(url: &str, tls: &Arc<rustls::ClientConfig>) -> Result<Opened, SessionError> {
    let mut ws = tokio::time::timeout(CONNECT_TIMEOUT, connect(url, tls))
        .await
        .map_err(|_| SessionError::Unreachable { url: url.to_string(), reason: "timed out".into() })?
        .map_err(|error| connect_error(url, &error))?;
    match next_control(&mut ws).await? {
        ServerMessage::Welcome { protocol, .. } if protocol != PROTOCOL_VERSION => Err(SessionError::Relay {
            code: "protocol",
            message: format!(
                "the relay speaks relay protocol {protocol} and this program {PROTOCOL_VERSION}: update the older one"
            ),
        }),
        ServerMessage::Welcome { max_message_bytes, challenge, .. } => {
            let challenge = hex::decode(challenge)
                .ok()
                .and_then(|bytes| bytes.try_into().ok())
                .ok_or_else(|| SessionError::Lost("the relay's welcome has no readable challenge".into()))?;
            Ok(Opened { ws, max_frame: max_message_bytes, challenge })
        }
        other => Err(unexpected(&other)),
    }
}

/// Opens a room in the first seat: its nameplate, and the token that resumes the seat.
pub(super) async fn create_room(ws: &mut Ws) -> Result<(String, String), SessionError> {
    send_control(ws, &ClientMessage::Create { client: Some(SOFTWARE.to_string()), seats: None }).await?;
    match next_control(ws).await? {
        ServerMessage::Created { nameplate, token, .. } if code::is_nameplate(&nameplate) => Ok((nameplate, token)),
        ServerMessage::Created { .. } => Err(SessionError::Lost("the relay gave an impossible room number".into())),
        other => Err(relay_refusal(other)),
    }
}

/// Takes the second seat of the room of `code`: the token that resumes the seat.
pub(super) async fn join_room(ws: &mut Ws, code: &Code) -> Result<String, SessionError> {
    let join = ClientMessage::Join { nameplate: code.nameplate().to_string(), client: Some(SOFTWARE.into()) };
    send_control(ws, &join).await?;
    match next_control(ws).await? {
        ServerMessage::Joined { token, .. } => Ok(token),
        other => Err(relay_refusal(other)),
    }
}

/// A new connection with its seat claimed: the largest frame the relay takes, and how the seat was had.
pub(super) struct Claimed {
    pub ws: Box<Ws>,
    pub max_frame: usize,
    pub seated: Seated,
}

/// Connects to the relay and claims a seat. Owns what it needs, so that the driver keeps it as the state of
/// its link while the session goes on taking commands.
pub(super) async fn claim_seat(
    url: String,
    tls: Arc<rustls::ClientConfig>,
    claim: Claim,
) -> Result<Claimed, SessionError> {
    let opened = open_relay(&url, &tls).await;
    let Opened { mut ws, max_frame, challenge } = match (&claim, opened) {
        // Taking a seat back, an unreachable relay is a lost connection (retried), not a wrong address.
        (Claim::Token(_) | Claim::Rendezvous(_), Err(SessionError::Unreachable { reason, .. })) => {
            return Err(SessionError::Lost(reason));
        }
        (_, opened) => opened?,
    };
    let client = Some(SOFTWARE.to_string());
    let seated = match claim {
        Claim::NewRoom => {
            let (nameplate, token) = create_room(&mut ws).await?;
            Seated::Created { nameplate, token }
        }
        Claim::Token(token) => {
            send_control(&mut ws, &ClientMessage::Resume { token, client }).await?;
            match next_control(&mut ws).await? {
                ServerMessage::Resumed { others, nameplate, .. } => {
                    Seated::Resumed { peer: SeatState::together(&others), waiting_as: nameplate }
                }
                other => return Err(relay_refusal(other)),
            }
        }
        Claim::Rendezvous(meeting) => {
            send_control(&mut ws, &meeting.message(&challenge, client)).await?;
            match next_control(&mut ws).await? {
                ServerMessage::Met { token, others, .. } => Seated::Met { token, peer: SeatState::together(&others) },
                other => return Err(relay_refusal(other)),
            }
        }
    };
    Ok(Claimed { ws: Box::new(ws), max_frame, seated })
}

/// `wss://` goes through rustls with `tls`; `ws://` ignores it.
async fn connect(url: &str, tls: &Arc<rustls::ClientConfig>) -> Result<Ws, tungstenite::Error> {
    let connector = Connector::Rustls(tls.clone());
    // A relay sends nothing larger than it may take; the library's default would hold 64 MiB.
    let limits = WebSocketConfig::default()
        .max_message_size(Some(MAX_MESSAGE_BYTES_CEILING))
        .max_frame_size(Some(MAX_MESSAGE_BYTES_CEILING));
    let (ws, _response) =
        tokio_tungstenite::connect_async_tls_with_config(url, Some(limits), true, Some(connector)).await?;
    Ok(ws)
}

/// What a failed connection to `url` tells the player: a refused certificate names the host and the reason.
fn connect_error(url: &str, error: &tungstenite::Error) -> SessionError {
    match explain_certificate_failure(error, host_of(url)) {
        Some(reason) => SessionError::Certificate { url: url.to_string(), reason },
        None => SessionError::Unreachable { url: url.to_string(), reason: error.to_string() },
    }
}

/// Why the relay connection dropped, in a player's words: a TLS connection cut without its closing message
/// (a proxy or network failure) is just a cut connection.
pub(super) fn lost_reason(error: &tungstenite::Error) -> String {
    match error {
        tungstenite::Error::Io(io) if io.kind() == std::io::ErrorKind::UnexpectedEof => {
            "the connection was cut".to_string()
        }
        other => other.to_string(),
    }
}

/// The host part of a WebSocket URL (`relay.example.org` of `wss://relay.example.org:443/v1`).
fn host_of(url: &str) -> &str {
    let authority = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = authority.split(['/', '?', '#']).next().unwrap_or_default();
    let authority = authority.rsplit_once('@').map_or(authority, |(_, host)| host);
    match authority.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or_default(),
        None => authority.split(':').next().unwrap_or_default(),
    }
}

/// The relay's next control message, within [`CONNECT_TIMEOUT`].
pub(crate) async fn next_control(ws: &mut Ws) -> Result<ServerMessage, SessionError> {
    let read = async {
        while let Some(message) = ws.next().await {
            match message.map_err(|e| SessionError::Lost(e.to_string()))? {
                Message::Text(text) => {
                    return serde_json::from_str(text.as_str())
                        .map_err(|e| SessionError::Lost(format!("the relay sent an unreadable message: {e}")));
                }
                Message::Close(_) => break,
                _ => {}
            }
        }
        Err(SessionError::Lost("the relay closed the connection".into()))
    };
    tokio::time::timeout(CONNECT_TIMEOUT, read)
        .await
        .map_err(|_| SessionError::Lost("the relay did not answer".into()))?
}

pub(crate) async fn send_control(ws: &mut Ws, message: &ClientMessage) -> Result<(), SessionError> {
    let text = serde_json::to_string(message).expect("control messages serialize");
    ws.send(Message::text(text)).await.map_err(|e| SessionError::Lost(e.to_string()))
}

fn unexpected(message: &ServerMessage) -> SessionError {
    // Only the type: messages such as `created` carry the seat token, which must not be shown.
    let kind = serde_json::to_value(message).ok().and_then(|v| v["type"].as_str().map(str::to_string));
    SessionError::Lost(format!("unexpected `{}` message from the relay", kind.unwrap_or_default()))
}

/// The relay's answer when it was not the one asked for: its refusal, in the player's words.
pub(crate) fn relay_refusal(message: ServerMessage) -> SessionError {
    match message {
        ServerMessage::Error { code: ErrorCode::UnknownNameplate, .. } => SessionError::UnknownCode,
        ServerMessage::Error { code, message } => SessionError::Relay { code: code.as_str(), message },
        ServerMessage::Closing { reconnect_after_ms, .. } => {
            SessionError::ComeBack { after: Duration::from_millis(reconnect_after_ms) }
        }
        other => unexpected(&other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_host_of_a_relay_url_names_it_in_certificate_errors() {
        assert_eq!(host_of("wss://relay.example.org/v1"), "relay.example.org");
        assert_eq!(host_of("wss://relay.example.org:8443/v1?x=1"), "relay.example.org");
        assert_eq!(host_of("wss://user@localhost:9/v1"), "localhost");
        assert_eq!(host_of("wss://[::1]:9/v1"), "::1");
        assert_eq!(host_of("ws://127.0.0.1:7171"), "127.0.0.1");
    }

    /// A relay that sends a binary message of `len` bytes in two frames (each within the library's default frame
    /// limit), then its welcome.
    async fn relay_sending(len: usize) -> String {
        use tokio_tungstenite::tungstenite::protocol::frame::Frame;
        use tokio_tungstenite::tungstenite::protocol::frame::coding::{Data, OpCode};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("ws://{}/v1", listener.local_addr().unwrap());
        tokio::spawn(async move {
            let (tcp, _) = listener.accept().await.unwrap();
            let mut ws = tokio_tungstenite::accept_async(tcp).await.unwrap();
            let welcome = r#"{"type":"welcome","relay":"r","protocol":2,"max_message_bytes":65536,"hold_ms":1,"waiting_ms":1,"challenge":"00000000000000000000000000000000000000000000000000000000000000ff"}"#;
            let first = Frame::message(vec![7; len / 2], OpCode::Data(Data::Binary), false);
            let rest = Frame::message(vec![7; len - len / 2], OpCode::Data(Data::Continue), true);
            // The client may already have refused the message and gone: what follows can fail.
            for message in [Message::Frame(first), Message::Frame(rest), Message::text(welcome)] {
                let _ = ws.send(message).await;
            }
        });
        url
    }

    #[tokio::test]
    async fn a_message_larger_than_any_relay_may_send_is_refused() {
        let tls = crate::tls::client_config(None).unwrap();
        let opened = open_relay(&relay_sending(MAX_MESSAGE_BYTES_CEILING).await, &tls).await;
        assert_eq!(opened.map(|opened| opened.max_frame).ok(), Some(65536), "the largest a relay may send is read");
        match open_relay(&relay_sending(MAX_MESSAGE_BYTES_CEILING + 1).await, &tls).await {
            Err(SessionError::Lost(reason)) => assert!(reason.contains("too long"), "{reason}"),
            other => panic!("a message over the ceiling was taken: {:?}", other.map(|opened| opened.max_frame)),
        }
    }
}
