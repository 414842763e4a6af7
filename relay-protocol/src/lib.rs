//! The relay's wire protocol: the control messages, error codes and close codes a client and the relay exchange.
//!
//! A crate of its own, depending on serde and sha2 alone, so that a client can use these types without building the
//! relay (`fairdeck_relay::protocol` re-exports it).
//!
//! Control messages are small JSON text frames tagged by `type`; binary frames carry the players' end-to-end
//! encrypted data and are never parsed. `docs/RELAY.md` is the reference for client authors; keep it in step.

use std::fmt;

use serde::{Deserialize, Serialize};

/// Version of the protocol, also the endpoint path (`/v1`).
pub const PROTOCOL_VERSION: u32 = 1;

/// Path of the WebSocket endpoint.
pub const ENDPOINT_PATH: &str = "/v1";

/// Largest control (text) message the relay reads. Control messages are a few dozen bytes.
pub const MAX_CONTROL_BYTES: usize = 1024;

/// Longest client version string kept; longer ones are cut.
pub const MAX_CLIENT_VERSION_CHARS: usize = 64;

/// Messages a client sends as JSON text frames.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ClientMessage {
    /// Open a new room and take its first seat.
    Create {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        client: Option<String>,
    },
    /// Take the second seat of the room with this nameplate.
    Join {
        nameplate: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        client: Option<String>,
    },
    /// Take back a held (or still connected) seat with its token (the relay finds the room by the token).
    Resume {
        token: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        client: Option<String>,
    },
    /// Tell the relay how the session went, for the statistics (e.g. a failed key exchange).
    Report { result: ReportedResult },
    /// Leave the room for good; the peer is told and the room ends.
    Leave,
    /// Creator only: the key exchange with the guest failed (a wrong code). The relay gives seat 1 to whoever
    /// joins next: the guest is sent away, the room waits again under a nameplate (`reopened`).
    Reopen,
    /// Meet the other player again in the room both derive from their shared session key: after the relay lost
    /// the room (a crash), on another relay, or another day. The relay keeps nothing beforehand: it checks that
    /// `room` is [`rendezvous_room`] of this seat's `SHA-256(secret)` and the `peer` hash, so only a holder of the
    /// seat's secret takes the seat. A seat taken this way replaces a connection still holding it.
    Rendezvous {
        /// 64 hex digits: [`rendezvous_room`].
        room: String,
        /// 0 (the game's host) or 1 (its guest).
        seat: u8,
        /// 64 hex digits: this seat's secret.
        secret: String,
        /// 64 hex digits: SHA-256 of the other seat's secret.
        peer: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        client: Option<String>,
    },
}

/// The rendezvous room of two seat secrets, from their SHA-256 hashes (seat 0's first):
/// `SHA-256("fairdeck rendezvous v1" ‖ SHA-256(secret 0) ‖ SHA-256(secret 1))`.
pub fn rendezvous_room(seat0_hash: &[u8; 32], seat1_hash: &[u8; 32]) -> [u8; 32] {
    use sha2::{Digest, Sha256};
    let mut hasher = Sha256::new();
    hasher.update(b"fairdeck rendezvous v1");
    hasher.update(seat0_hash);
    hasher.update(seat1_hash);
    hasher.finalize().into()
}

/// The SHA-256 of a seat secret, as [`rendezvous_room`] takes it.
pub fn seat_hash(secret: &[u8; 32]) -> [u8; 32] {
    use sha2::{Digest, Sha256};
    Sha256::digest(secret).into()
}

/// What a client may report about its room.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReportedResult {
    /// The key exchange failed: a wrong code, or someone guessed at it.
    Scary,
    /// Something else went wrong between the clients.
    Errored,
}

/// Messages the relay sends as JSON text frames.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMessage {
    /// First message on every connection.
    Welcome { relay: String, protocol: u32, max_message_bytes: usize, hold_ms: u64, waiting_ms: u64 },
    /// The room exists; share the nameplate, keep the token to resume.
    Created { nameplate: String, seat: u8, token: String },
    /// The second seat is yours; `paired` follows.
    Joined { nameplate: String, seat: u8, token: String },
    /// Answer to `rendezvous`: the seat is yours, with a token to `resume` it after a drop; `peer` says where the
    /// other seat stands (`waiting`: nobody has come yet). `paired` follows when both are there (or `peer_back`
    /// to a player who was waiting with its peer away).
    Met { seat: u8, token: String, peer: PeerState },
    /// The seat is yours again; `peer` says where the other seat stands. `nameplate` is there only while the room
    /// still waits for its guest (a paired room has released its nameplate).
    Resumed {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        nameplate: Option<String>,
        seat: u8,
        peer: PeerState,
    },
    /// Both seats are taken: binary frames now flow to the peer.
    Paired {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        peer_client: Option<String>,
    },
    /// The peer's connection dropped; its seat is held for `hold_ms`. Frames sent meanwhile are dropped.
    PeerAway { hold_ms: u64 },
    /// The peer took its seat back: resend what it has not acknowledged.
    PeerBack,
    /// The peer is gone for good; the room is over and the relay closes this connection.
    PeerGone { reason: GoneReason },
    /// Answer to `reopen`: seat 1 is free again and the room waits for a guest under this nameplate.
    Reopened { nameplate: String },
    /// The relay is shutting down; reconnect and resume after about `reconnect_after_ms`.
    Closing { reason: ClosingReason, reconnect_after_ms: u64, try_for_ms: u64 },
    /// Something went wrong; if the code is fatal a close frame with its close code follows.
    Error { code: ErrorCode, message: String },
}

/// Where the other seat stands when a seat is resumed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PeerState {
    /// Nobody has joined yet.
    Waiting,
    /// The peer is connected.
    Present,
    /// The peer's seat is held, waiting for it to resume.
    Away,
}

/// Why the peer is gone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GoneReason {
    /// It left (a `leave` message or a normal close).
    Left,
    /// Its seat was held too long without a resume.
    Timeout,
    /// Sent to a guest: the creator's key exchange with it failed (a wrong code) and the creator gave the seat
    /// to someone else (`reopen`). The guest's token is void.
    Rejected,
}

/// Why the relay closes every connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClosingReason {
    /// The relay is restarting (SIGTERM); rooms are handed over to the next process.
    Restart,
}

/// Stable error codes. Each knows whether it ends the connection and with which close code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// Not valid JSON, an unknown message, or a message not allowed now.
    BadMessage,
    /// No waiting room has this nameplate.
    UnknownNameplate,
    /// The room already has two players.
    Crowded,
    /// No seat has this token: unknown, malformed, void, or its room is over (one answer for all).
    BadToken,
    /// Too many new rooms, joins or failed resumes from this address; try again in a minute.
    RateLimited,
    /// The relay is at its room limit.
    ServerFull,
    /// Nobody joined before the waiting room's lifetime ran out.
    Expired,
    /// This connection read too slowly; its outbound queue overflowed.
    SlowReader,
    /// No message or pong within the liveness window (or no first message in time).
    Timeout,
    /// Another connection resumed this seat.
    Replaced,
    /// A message exceeded the size limit.
    TooBig,
    /// A binary frame before the room was paired: it was dropped. Not fatal.
    NotPaired,
    /// A text frame that is not valid UTF-8.
    BadEncoding,
}

impl ErrorCode {
    /// Every code, for documentation and metrics.
    pub const ALL: [ErrorCode; 13] = [
        ErrorCode::BadMessage,
        ErrorCode::UnknownNameplate,
        ErrorCode::Crowded,
        ErrorCode::BadToken,
        ErrorCode::RateLimited,
        ErrorCode::ServerFull,
        ErrorCode::Expired,
        ErrorCode::SlowReader,
        ErrorCode::Timeout,
        ErrorCode::Replaced,
        ErrorCode::TooBig,
        ErrorCode::NotPaired,
        ErrorCode::BadEncoding,
    ];

    /// The WebSocket close code that follows this error, or `None` if the connection stays open.
    pub fn close_code(self) -> Option<u16> {
        Some(match self {
            ErrorCode::BadMessage => close::BAD_MESSAGE,
            ErrorCode::UnknownNameplate => close::UNKNOWN_NAMEPLATE,
            ErrorCode::Crowded => close::CROWDED,
            ErrorCode::BadToken => close::BAD_TOKEN,
            ErrorCode::RateLimited => close::RATE_LIMITED,
            ErrorCode::ServerFull => close::SERVER_FULL,
            ErrorCode::Expired => close::EXPIRED,
            ErrorCode::SlowReader => close::SLOW_READER,
            ErrorCode::Timeout => close::TIMEOUT,
            ErrorCode::Replaced => close::REPLACED,
            ErrorCode::TooBig => close::TOO_BIG,
            ErrorCode::BadEncoding => close::BAD_ENCODING,
            ErrorCode::NotPaired => return None,
        })
    }

    /// The code as written on the wire and in metrics labels.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::BadMessage => "bad_message",
            ErrorCode::UnknownNameplate => "unknown_nameplate",
            ErrorCode::Crowded => "crowded",
            ErrorCode::BadToken => "bad_token",
            ErrorCode::RateLimited => "rate_limited",
            ErrorCode::ServerFull => "server_full",
            ErrorCode::Expired => "expired",
            ErrorCode::SlowReader => "slow_reader",
            ErrorCode::Timeout => "timeout",
            ErrorCode::Replaced => "replaced",
            ErrorCode::TooBig => "too_big",
            ErrorCode::NotPaired => "not_paired",
            ErrorCode::BadEncoding => "bad_encoding",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// WebSocket close codes the relay uses. 4000–4999 are private-use codes (RFC 6455 §7.4.2).
pub mod close {
    /// The room is over: you left, or your peer is gone.
    pub const NORMAL: u16 = 1000;
    /// A text frame was not valid UTF-8 (standard code).
    pub const BAD_ENCODING: u16 = 1007;
    /// A message was larger than the limit (standard code).
    pub const TOO_BIG: u16 = 1009;
    /// The relay is restarting; reconnect and resume (standard code).
    pub const RESTART: u16 = 1012;
    pub const BAD_MESSAGE: u16 = 4000;
    pub const UNKNOWN_NAMEPLATE: u16 = 4001;
    pub const CROWDED: u16 = 4002;
    pub const BAD_TOKEN: u16 = 4003;
    pub const RATE_LIMITED: u16 = 4004;
    pub const SERVER_FULL: u16 = 4005;
    pub const EXPIRED: u16 = 4006;
    pub const SLOW_READER: u16 = 4007;
    pub const TIMEOUT: u16 = 4008;
    pub const REPLACED: u16 = 4009;
}

/// Keeps a client's version string printable and short: it goes into the statistics.
pub fn sanitize_client_version(raw: &str) -> String {
    raw.chars().filter(|c| c.is_ascii_graphic() || *c == ' ').take(MAX_CLIENT_VERSION_CHARS).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_messages_parse_from_documented_json() {
        let cases = [
            (r#"{"type":"create"}"#, ClientMessage::Create { client: None }),
            (
                r#"{"type":"join","nameplate":"7","client":"fairdeck/0.1.0"}"#,
                ClientMessage::Join { nameplate: "7".into(), client: Some("fairdeck/0.1.0".into()) },
            ),
            (r#"{"type":"resume","token":"ab"}"#, ClientMessage::Resume { token: "ab".into(), client: None }),
            (r#"{"type":"report","result":"scary"}"#, ClientMessage::Report { result: ReportedResult::Scary }),
            (r#"{"type":"leave"}"#, ClientMessage::Leave),
            (r#"{"type":"reopen"}"#, ClientMessage::Reopen),
        ];
        for (json, expected) in cases {
            assert_eq!(serde_json::from_str::<ClientMessage>(json).unwrap(), expected, "{json}");
        }
    }

    #[test]
    fn rendezvous_and_met_use_the_documented_shape() {
        let json = format!(
            r#"{{"type":"rendezvous","room":"{}","seat":1,"secret":"{}","peer":"{}"}}"#,
            "aa".repeat(32),
            "bb".repeat(32),
            "cc".repeat(32)
        );
        let expected = ClientMessage::Rendezvous {
            room: "aa".repeat(32),
            seat: 1,
            secret: "bb".repeat(32),
            peer: "cc".repeat(32),
            client: None,
        };
        assert_eq!(serde_json::from_str::<ClientMessage>(&json).unwrap(), expected);
        let met = ServerMessage::Met { seat: 0, token: "ab".into(), peer: PeerState::Waiting };
        assert_eq!(serde_json::to_string(&met).unwrap(), r#"{"type":"met","seat":0,"token":"ab","peer":"waiting"}"#);
    }

    /// A known answer, so that another client can check its own derivation.
    #[test]
    fn the_rendezvous_room_is_the_hash_of_both_seat_hashes() {
        let (zero, one) = (seat_hash(&[0; 32]), seat_hash(&[1; 32]));
        assert_eq!(zero[..4], [0x66, 0x68, 0x7a, 0xad], "SHA-256 of 32 zero bytes starts 66687aad");
        let room = rendezvous_room(&zero, &one);
        assert_ne!(room, rendezvous_room(&one, &zero), "the seats' order matters");
        let mut input = b"fairdeck rendezvous v1".to_vec();
        input.extend_from_slice(&zero);
        input.extend_from_slice(&one);
        use sha2::Digest;
        assert_eq!(room, <[u8; 32]>::from(sha2::Sha256::digest(&input)));
    }

    #[test]
    fn unknown_or_malformed_client_messages_are_errors() {
        for json in [
            r#"{"type":"shout"}"#,
            r#"{"type":"join"}"#,
            r#"{"type":"create","extra":1}"#,
            r#"{"type":"report","result":"happy"}"#,
            r#"{"type":"resume","nameplate":"7","token":"ab"}"#,
            "not json",
            "",
        ] {
            assert!(serde_json::from_str::<ClientMessage>(json).is_err(), "{json}");
        }
    }

    #[test]
    fn server_messages_use_the_documented_shape() {
        let json =
            serde_json::to_string(&ServerMessage::Error { code: ErrorCode::Crowded, message: "room is full".into() })
                .unwrap();
        assert_eq!(json, r#"{"type":"error","code":"crowded","message":"room is full"}"#);
        let json = serde_json::to_string(&ServerMessage::PeerAway { hold_ms: 5 }).unwrap();
        assert_eq!(json, r#"{"type":"peer_away","hold_ms":5}"#);
        let paired = ServerMessage::Resumed { nameplate: None, seat: 0, peer: PeerState::Present };
        assert_eq!(serde_json::to_string(&paired).unwrap(), r#"{"type":"resumed","seat":0,"peer":"present"}"#);
        let waiting = ServerMessage::Resumed { nameplate: Some("7".into()), seat: 0, peer: PeerState::Waiting };
        assert_eq!(
            serde_json::to_string(&waiting).unwrap(),
            r#"{"type":"resumed","nameplate":"7","seat":0,"peer":"waiting"}"#
        );
        let reopened = ServerMessage::Reopened { nameplate: "7".into() };
        assert_eq!(serde_json::to_string(&reopened).unwrap(), r#"{"type":"reopened","nameplate":"7"}"#);
        let gone = ServerMessage::PeerGone { reason: GoneReason::Rejected };
        assert_eq!(serde_json::to_string(&gone).unwrap(), r#"{"type":"peer_gone","reason":"rejected"}"#);
    }

    /// serde reads an internally tagged enum from a sequence too (the tag first), so a JSON array can decode as a
    /// control message: whoever reads control messages must check that the text is a JSON object first.
    #[test]
    fn serde_alone_would_take_an_array_for_a_control_message() {
        assert_eq!(serde_json::from_str::<ClientMessage>(r#"["leave"]"#).ok(), Some(ClientMessage::Leave));
    }

    #[test]
    fn every_error_code_has_a_distinct_wire_name_and_close_code() {
        let mut names = std::collections::HashSet::new();
        let mut closes = std::collections::HashSet::new();
        for code in ErrorCode::ALL {
            let wire = serde_json::to_string(&code).unwrap();
            assert_eq!(wire, format!("\"{}\"", code.as_str()));
            assert!(names.insert(code.as_str()));
            if let Some(close) = code.close_code() {
                assert!(closes.insert(close), "{code} shares close code {close}");
            }
        }
    }

    #[test]
    fn the_protocol_document_lists_every_error_code_with_its_close_code() {
        let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/RELAY.md")).unwrap();
        for code in ErrorCode::ALL {
            let close = code.close_code().map_or("—".to_string(), |c| c.to_string());
            let row = format!("| `{}` | {close}", code.as_str());
            assert!(doc.contains(&row), "docs/RELAY.md lacks the row starting {row}");
        }
    }

    #[test]
    fn client_versions_are_cut_and_cleaned() {
        let long = "x".repeat(200);
        assert_eq!(sanitize_client_version(&long).len(), MAX_CLIENT_VERSION_CHARS);
        assert_eq!(sanitize_client_version("fair\ndeck\u{7}/1"), "fairdeck/1");
    }
}
