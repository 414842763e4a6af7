//! The relay's wire protocol: the control messages, error codes and close codes a client and the relay exchange.
//!
//! A crate of its own, depending on serde, hex, sha2 and ed25519-dalek alone, so that a client can use these types
//! (and the rendezvous proof, made and checked here for both) without building the relay
//! (`fairdeck_relay::protocol` re-exports it).
//!
//! Control messages are small JSON text frames tagged by `type`; binary frames carry the players' end-to-end
//! encrypted data and are never parsed. `docs/RELAY.md` is the reference for client authors; keep it in step.

use std::fmt;

use serde::{Deserialize, Serialize};

/// Version of the protocol, told in `welcome`: a client refuses a relay of another version. Version 2 addressed
/// data frames to seats, for rooms of more than two.
pub const PROTOCOL_VERSION: u32 = 2;

/// Path of the WebSocket endpoint, which configured relay addresses name: kept across versions (see
/// [`PROTOCOL_VERSION`]).
pub const ENDPOINT_PATH: &str = "/v1";

/// Seats of a room whose `create` asks for no number.
pub const DEFAULT_SEATS: u8 = 2;

/// The most seats a room may have. A frame to every other seat is sent once per seat; eight keeps that bounded.
pub const MAX_SEATS: u8 = 8;

/// First byte of a player's data frame addressed to every other seat (any other first byte is one seat's number).
pub const TO_ALL: u8 = 0xff;

/// Largest control (text) message the relay reads. Control messages are a few dozen bytes.
pub const MAX_CONTROL_BYTES: usize = 1024;

/// The most a relay's `max_message_bytes` may be: no message from a relay is larger, so a client refuses one that
/// is rather than hold it.
pub const MAX_MESSAGE_BYTES_CEILING: usize = 16 * 1024 * 1024;

/// Longest client version string kept; longer ones are cut.
pub const MAX_CLIENT_VERSION_CHARS: usize = 64;

/// Messages a client sends as JSON text frames.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ClientMessage {
    /// Open a new room of `seats` seats ([`DEFAULT_SEATS`] if absent, at most [`MAX_SEATS`]) and take seat 0.
    Create {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        client: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seats: Option<u8>,
    },
    /// Take the next free seat (seats are numbered in join order) of the room with this nameplate.
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
    /// Leave the room for good; the other seats are told and the room ends.
    Leave,
    /// Creator only: the key exchange with a guest failed (a wrong code). The relay frees every seat but the
    /// creator's for whoever joins next: the guests are sent away, the room waits again under a nameplate
    /// (`reopened`).
    Reopen,
    /// Meet the other player again in the room both derive from their shared session key: after the relay lost
    /// the room (a crash), on another relay, or another day. The relay keeps nothing beforehand: it checks that
    /// `room` is [`rendezvous_room`] of the two seats' public keys and that `proof` is this seat's signature of
    /// the connection's challenge ([`Meeting::check`]), so only a holder of the seat's secret takes the seat, and
    /// the secret never leaves the client. A seat taken this way replaces a connection still holding it.
    /// Built by [`SeatKey::rendezvous`].
    Rendezvous {
        /// 64 hex digits: [`rendezvous_room`].
        room: String,
        /// 0 (the game's host) or 1 (its guest).
        seat: u8,
        /// 64 hex digits: this seat's Ed25519 public key.
        key: String,
        /// 64 hex digits: the other seat's Ed25519 public key.
        peer: String,
        /// 128 hex digits: the Ed25519 signature, by `key`, of [`rendezvous_proof_message`].
        proof: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        client: Option<String>,
    },
    /// First message of a player's second connection, its spectators' side: the seat's token (the one
    /// `created`/`joined`/`met` gave). The relay answers `watch_opened`; binary frames on this connection are
    /// `[watcher] ++ payload` both ways. A second `host_watch` of the same seat replaces the first connection.
    HostWatch { token: String },
    /// First message of a spectator: take a watch seat of the room whose watch nameplate this is. Binary frames
    /// are then the bare payloads exchanged with the player who gave the nameplate.
    Watch { nameplate: String },
    /// On a player's game connection: close every watch seat of the room for good (both players' spectators
    /// leave, later `host_watch` and `watch` are refused).
    WatchOff,
    /// On a player's game connection: this seat's choice of delay for spectators, in turns (at most
    /// [`MAX_WATCH_DELAY_TURNS`]). The relay only passes it on in `watchers`; the players keep the delay.
    WatchDelay { turns: u32 },
}

/// Largest delay, in turns, a `watch_delay` may choose.
pub const MAX_WATCH_DELAY_TURNS: u32 = 20;

/// Bytes of the `challenge` in `welcome` (sent as twice as many hex digits).
pub const CHALLENGE_BYTES: usize = 32;

/// The rendezvous room of two seats, from their public keys (seat 0's first):
/// `SHA-256("fairdeck rendezvous v2" ‖ key of seat 0 ‖ key of seat 1)`.
pub fn rendezvous_room(seat0_key: &[u8; 32], seat1_key: &[u8; 32]) -> [u8; 32] {
    use sha2::{Digest, Sha256};
    let mut hasher = Sha256::new();
    hasher.update(b"fairdeck rendezvous v2");
    hasher.update(seat0_key);
    hasher.update(seat1_key);
    hasher.finalize().into()
}

/// Domain of the rendezvous proof, so that the signature means nothing anywhere else.
const PROOF_DOMAIN: &[u8] = b"fairdeck rendezvous proof v2";

/// What a seat's key signs to take `seat` of `room` on the connection whose `welcome` gave `challenge`:
/// `"fairdeck rendezvous proof v2" ‖ challenge ‖ room ‖ seat`. A fresh challenge per connection makes a proof
/// useless on any other connection.
pub fn rendezvous_proof_message(challenge: &[u8; CHALLENGE_BYTES], room: &[u8; 32], seat: u8) -> Vec<u8> {
    [PROOF_DOMAIN, challenge, room, &[seat]].concat()
}

/// A seat's rendezvous key: the Ed25519 key whose 32-byte secret key is the seat's secret. Its `Debug` shows the
/// public key only.
#[derive(Clone)]
pub struct SeatKey(ed25519_dalek::SigningKey);

impl SeatKey {
    /// The key of a seat's secret.
    pub fn from_secret(secret: &[u8; 32]) -> SeatKey {
        SeatKey(ed25519_dalek::SigningKey::from_bytes(secret))
    }

    /// The public key, as the `rendezvous` message and [`rendezvous_room`] take it.
    pub fn public(&self) -> [u8; 32] {
        self.0.verifying_key().to_bytes()
    }

    /// The `rendezvous` message taking `seat` (0 or 1) of the room of this key and `peer` (the other seat's public
    /// key), on the connection whose `welcome` gave `challenge`. It holds public keys and a signature, never the secret.
    pub fn rendezvous(
        &self,
        seat: u8,
        peer: &[u8; 32],
        challenge: &[u8; CHALLENGE_BYTES],
        client: Option<String>,
    ) -> ClientMessage {
        use ed25519_dalek::Signer;
        let key = self.public();
        let room = if seat == 0 { rendezvous_room(&key, peer) } else { rendezvous_room(peer, &key) };
        let proof = self.0.sign(&rendezvous_proof_message(challenge, &room, seat));
        ClientMessage::Rendezvous {
            room: hex::encode(room),
            seat,
            key: hex::encode(key),
            peer: hex::encode(peer),
            proof: hex::encode(proof.to_bytes()),
            client,
        }
    }
}

impl fmt::Debug for SeatKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("SeatKey").field(&hex::encode(self.public())).finish()
    }
}

/// What a `rendezvous` message presents, as sent (hex), for [`Meeting::check`].
#[derive(Debug, Clone, Copy)]
pub struct Meeting<'a> {
    pub room: &'a str,
    pub seat: u8,
    pub key: &'a str,
    pub peer: &'a str,
    pub proof: &'a str,
}

/// Why a `rendezvous` was refused. The relay answers every one alike (`bad_token`); the reasons are for tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MeetingRefusal {
    /// A field is not hex of the right length, or the seat is neither 0 nor 1.
    Malformed,
    /// A key is not the canonical encoding of a point of the curve, or is of small order.
    BadKey,
    /// The room is not [`rendezvous_room`] of the keys.
    WrongRoom,
    /// The proof is not this connection's challenge signed by the seat's key (checked strictly).
    BadProof,
}

impl Meeting<'_> {
    /// The room's id, if this meeting proves the seat on the connection whose `welcome` gave `challenge`: both
    /// keys are sound, the room is theirs, and the proof is the seat key's signature of
    /// [`rendezvous_proof_message`], verified strictly (no small-order or non-canonical parts).
    pub fn check(&self, challenge: &[u8; CHALLENGE_BYTES]) -> Result<[u8; 32], MeetingRefusal> {
        use ed25519_dalek::Signature;
        let room: [u8; 32] = decode_hex(self.room)?;
        let key = sound_key(&decode_hex(self.key)?)?;
        let peer = sound_key(&decode_hex(self.peer)?)?;
        let proof = Signature::from_bytes(&decode_hex(self.proof)?);
        let expected = match self.seat {
            0 => rendezvous_room(key.as_bytes(), peer.as_bytes()),
            1 => rendezvous_room(peer.as_bytes(), key.as_bytes()),
            _ => return Err(MeetingRefusal::Malformed),
        };
        if expected != room {
            return Err(MeetingRefusal::WrongRoom);
        }
        let signed = rendezvous_proof_message(challenge, &room, self.seat);
        key.verify_strict(&signed, &proof).map_err(|_| MeetingRefusal::BadProof)?;
        Ok(room)
    }
}

fn decode_hex<const N: usize>(text: &str) -> Result<[u8; N], MeetingRefusal> {
    hex::decode(text).ok().and_then(|bytes| bytes.try_into().ok()).ok_or(MeetingRefusal::Malformed)
}

/// A public key the relay accepts: a point's canonical encoding, not of small order (whose signatures a forger
/// could make for almost any message).
fn sound_key(bytes: &[u8; 32]) -> Result<ed25519_dalek::VerifyingKey, MeetingRefusal> {
    let key = ed25519_dalek::VerifyingKey::from_bytes(bytes).map_err(|_| MeetingRefusal::BadKey)?;
    let canonical = key.to_edwards().compress().to_bytes() == *bytes;
    if !canonical || key.is_weak() {
        return Err(MeetingRefusal::BadKey);
    }
    Ok(key)
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
    /// First message on every connection. `challenge` (64 hex digits, fresh for each connection) is what a
    /// `rendezvous` on this connection signs.
    Welcome { relay: String, protocol: u32, max_message_bytes: usize, hold_ms: u64, waiting_ms: u64, challenge: String },
    /// The room of `seats` seats exists; share the nameplate, keep the token to resume.
    Created { nameplate: String, seat: u8, seats: u8, token: String },
    /// Seat `seat` of a room of `seats` is yours; `paired` follows when every seat is taken.
    Joined { nameplate: String, seat: u8, seats: u8, token: String },
    /// Answer to `rendezvous`: the seat is yours, with a token to `resume` it after a drop; `others` says where
    /// each other seat stands (`waiting`: nobody has come yet). `paired` follows when both are there (or
    /// `peer_back` to a player who was waiting with the other away).
    Met { seat: u8, token: String, others: Vec<SeatState> },
    /// The seat is yours again; `others` says where each other seat stands. `nameplate` is there only while the
    /// room still waits for a guest (a full room has released its nameplate).
    Resumed {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        nameplate: Option<String>,
        seat: u8,
        others: Vec<SeatState>,
    },
    /// Every seat is taken: binary frames now flow between the seats. In a room of two, `peer_client` is the
    /// other seat's client version.
    Paired {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        peer_client: Option<String>,
    },
    /// Seat `seat`'s connection dropped; it is held for `hold_ms`. Frames sent to it meanwhile are dropped.
    PeerAway { seat: u8, hold_ms: u64 },
    /// Seat `seat` took its place back: resend what it has not acknowledged.
    PeerBack { seat: u8 },
    /// A player is gone for good; the room is over and the relay closes this connection.
    PeerGone { reason: GoneReason },
    /// Answer to `reopen`: seat 1 is free again and the room waits for a guest under this nameplate.
    Reopened { nameplate: String },
    /// The relay is shutting down; reconnect and resume after about `reconnect_after_ms`.
    Closing { reason: ClosingReason, reconnect_after_ms: u64, try_for_ms: u64 },
    /// Answer to `host_watch`: spectators take this seat's watch seats with `nameplate` (the same for the room's
    /// life); at most `seats` at once per player seat.
    WatchOpened { nameplate: String, seats: u8 },
    /// Answer to `watch`: you are spectator `watcher` (0..seats-1) of the player who gave the nameplate.
    Watching { watcher: u8 },
    /// To the host_watch connection: spectator `watcher` is here (sent too for those present before it connected).
    WatcherJoined { watcher: u8 },
    /// To the host_watch connection: spectator `watcher` left; its watch seat is free.
    WatcherLeft { watcher: u8 },
    /// To both players' game connections: spectators of each seat (`host`: seat 0's, `guest`: seat 1's), whether
    /// watching is still allowed, and `delay`, the larger of the two seats' delay choices. Sent when any of it
    /// changes and right after `paired`, `resumed` and `met`.
    Watchers { host: u8, guest: u8, open: bool, delay: u32 },
    /// Something went wrong; if the code is fatal a close frame with its close code follows.
    Error { code: ErrorCode, message: String },
}

/// Where one other seat stands, in `met` and `resumed`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatState {
    pub seat: u8,
    pub state: PeerState,
}

impl SeatState {
    /// Where the other seats stand together, for a client that waits for all of them: away if any is away, else
    /// waiting if any has not come yet, else present. In a room of two, the other seat's state.
    pub fn together(others: &[SeatState]) -> PeerState {
        let any = |state| others.iter().any(|other| other.state == state);
        if any(PeerState::Away) {
            PeerState::Away
        } else if any(PeerState::Waiting) {
            PeerState::Waiting
        } else {
            PeerState::Present
        }
    }
}

/// Where another seat stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PeerState {
    /// Nobody has joined yet.
    Waiting,
    /// The seat's player is connected.
    Present,
    /// The seat is held, waiting for its player to resume.
    Away,
}

/// Why a player is gone.
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
    /// Sent to spectators and host_watch connections: a player turned watching off (`watch_off`).
    WatchingOff,
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
    /// Every seat of the room is taken.
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
    /// Watching is turned off in this room (`watch_off`), or on this relay (no watch seats).
    WatchingOff,
}

impl ErrorCode {
    /// Every code, for documentation and metrics.
    pub const ALL: [ErrorCode; 14] = [
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
        ErrorCode::WatchingOff,
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
            ErrorCode::WatchingOff => close::WATCHING_OFF,
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
            ErrorCode::WatchingOff => "watching_off",
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
    /// The room is over: you left, or another player is gone.
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
    pub const WATCHING_OFF: u16 = 4010;
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
            (r#"{"type":"create"}"#, ClientMessage::Create { client: None, seats: None }),
            (r#"{"type":"create","seats":4}"#, ClientMessage::Create { client: None, seats: Some(4) }),
            (
                r#"{"type":"join","nameplate":"7","client":"fairdeck/0.1.0"}"#,
                ClientMessage::Join { nameplate: "7".into(), client: Some("fairdeck/0.1.0".into()) },
            ),
            (r#"{"type":"resume","token":"ab"}"#, ClientMessage::Resume { token: "ab".into(), client: None }),
            (r#"{"type":"report","result":"scary"}"#, ClientMessage::Report { result: ReportedResult::Scary }),
            (r#"{"type":"leave"}"#, ClientMessage::Leave),
            (r#"{"type":"reopen"}"#, ClientMessage::Reopen),
            (r#"{"type":"host_watch","token":"ab"}"#, ClientMessage::HostWatch { token: "ab".into() }),
            (r#"{"type":"watch","nameplate":"12"}"#, ClientMessage::Watch { nameplate: "12".into() }),
            (r#"{"type":"watch_off"}"#, ClientMessage::WatchOff),
            (r#"{"type":"watch_delay","turns":2}"#, ClientMessage::WatchDelay { turns: 2 }),
        ];
        for (json, expected) in cases {
            assert_eq!(serde_json::from_str::<ClientMessage>(json).unwrap(), expected, "{json}");
        }
    }

    #[test]
    fn rendezvous_and_met_use_the_documented_shape() {
        let json = format!(
            r#"{{"type":"rendezvous","room":"{}","seat":1,"key":"{}","peer":"{}","proof":"{}"}}"#,
            "aa".repeat(32),
            "bb".repeat(32),
            "cc".repeat(32),
            "dd".repeat(64)
        );
        let expected = ClientMessage::Rendezvous {
            room: "aa".repeat(32),
            seat: 1,
            key: "bb".repeat(32),
            peer: "cc".repeat(32),
            proof: "dd".repeat(64),
            client: None,
        };
        assert_eq!(serde_json::from_str::<ClientMessage>(&json).unwrap(), expected);
        // The secret of the first version of this message is no field any more.
        let old = json.replace(r#""proof""#, r#""secret""#);
        assert!(serde_json::from_str::<ClientMessage>(&old).is_err());
        let others = vec![SeatState { seat: 1, state: PeerState::Waiting }];
        let met = ServerMessage::Met { seat: 0, token: "ab".into(), others };
        assert_eq!(
            serde_json::to_string(&met).unwrap(),
            r#"{"type":"met","seat":0,"token":"ab","others":[{"seat":1,"state":"waiting"}]}"#
        );
    }

    /// Two seats' keys, from the secrets 7… and 8…, and the challenge of a connection.
    fn seats() -> [SeatKey; 2] {
        [SeatKey::from_secret(&[7; 32]), SeatKey::from_secret(&[8; 32])]
    }

    const CHALLENGE: [u8; CHALLENGE_BYTES] = [3; CHALLENGE_BYTES];

    /// The fields of a `rendezvous` message, for [`Meeting`].
    struct Fields {
        room: String,
        seat: u8,
        key: String,
        peer: String,
        proof: String,
    }

    impl Fields {
        fn of(message: ClientMessage) -> Fields {
            match message {
                ClientMessage::Rendezvous { room, seat, key, peer, proof, .. } => {
                    Fields { room, seat, key, peer, proof }
                }
                other => panic!("not a rendezvous: {other:?}"),
            }
        }

        fn meeting(&self) -> Meeting<'_> {
            Meeting { room: &self.room, seat: self.seat, key: &self.key, peer: &self.peer, proof: &self.proof }
        }
    }

    /// A known answer, so that another client can check its own derivation.
    #[test]
    fn the_rendezvous_room_is_the_hash_of_both_seat_keys() {
        let [host, guest] = seats();
        // RFC 8032's Ed25519 applied to the 32-byte secret: SigningKey::from_bytes, nothing before it.
        assert_eq!(host.public(), ed25519_dalek::SigningKey::from_bytes(&[7; 32]).verifying_key().to_bytes());
        let room = rendezvous_room(&host.public(), &guest.public());
        assert_ne!(room, rendezvous_room(&guest.public(), &host.public()), "the seats' order matters");
        let mut input = b"fairdeck rendezvous v2".to_vec();
        input.extend_from_slice(&host.public());
        input.extend_from_slice(&guest.public());
        use sha2::Digest;
        assert_eq!(room, <[u8; 32]>::from(sha2::Sha256::digest(&input)));
        let message = rendezvous_proof_message(&CHALLENGE, &room, 1);
        assert_eq!(message.len(), 28 + 32 + 32 + 1);
        assert!(message.starts_with(b"fairdeck rendezvous proof v2"));
        assert_eq!((&message[28..60], &message[60..92], message[92]), (&CHALLENGE[..], &room[..], 1));
    }

    #[test]
    fn a_seat_proves_itself_on_its_own_connection_only_and_never_sends_its_secret() {
        let [host, guest] = seats();
        for (seat, key, peer) in [(0, &host, &guest), (1, &guest, &host)] {
            let message = key.rendezvous(seat, &peer.public(), &CHALLENGE, Some("fairdeck/1".into()));
            let json = serde_json::to_string(&message).unwrap();
            let secret = [7 + seat; 32];
            for form in [hex::encode(secret), hex::encode_upper(secret), String::from_utf8_lossy(&secret).into()] {
                assert!(!json.contains(&form), "{json}");
            }
            assert!(!format!("{key:?}").contains(&hex::encode(secret)));
            let fields = Fields::of(message);
            let room = rendezvous_room(&host.public(), &guest.public());
            assert_eq!(fields.meeting().check(&CHALLENGE), Ok(room));
            // Replayed on another connection, whose welcome gave another challenge.
            assert_eq!(fields.meeting().check(&[4; CHALLENGE_BYTES]), Err(MeetingRefusal::BadProof));
        }
    }

    #[test]
    fn every_unproved_or_malformed_meeting_is_refused() {
        let [host, guest] = seats();
        let honest = Fields::of(guest.rendezvous(1, &host.public(), &CHALLENGE, None));
        let thief = SeatKey::from_secret(&[9; 32]);
        // The thief signs with its own key for the real room: the room is not its keys'.
        let stolen = Fields::of(thief.rendezvous(1, &host.public(), &CHALLENGE, None));
        let with = |change: &dyn Fn(&mut Fields)| {
            let mut fields = Fields::of(guest.rendezvous(1, &host.public(), &CHALLENGE, None));
            change(&mut fields);
            fields.meeting().check(&CHALLENGE)
        };
        assert_eq!(
            Meeting { room: &honest.room, key: &stolen.key, ..honest.meeting() }.check(&CHALLENGE),
            Err(MeetingRefusal::WrongRoom)
        );
        assert_eq!(
            Meeting { proof: &stolen.proof, ..honest.meeting() }.check(&CHALLENGE),
            Err(MeetingRefusal::BadProof)
        );
        type Change<'a> = &'a dyn Fn(&mut Fields);
        let cases: [(Change<'_>, MeetingRefusal); 9] = [
            (&|f| f.seat = 0, MeetingRefusal::WrongRoom),
            (&|f| f.seat = 2, MeetingRefusal::Malformed),
            (&|f| f.room = "zz".repeat(32), MeetingRefusal::Malformed),
            (&|f| f.room.truncate(62), MeetingRefusal::Malformed),
            (&|f| f.key.push_str("00"), MeetingRefusal::Malformed),
            (&|f| f.peer = String::new(), MeetingRefusal::Malformed),
            (&|f| f.proof.truncate(126), MeetingRefusal::Malformed),
            (
                &|f| f.proof.replace_range(0..2, if f.proof.starts_with("00") { "01" } else { "00" }),
                MeetingRefusal::BadProof,
            ),
            (&|f| f.peer = hex::encode(not_a_point()), MeetingRefusal::BadKey),
        ];
        for (change, refusal) in cases {
            assert_eq!(with(change), Err(refusal));
        }
        assert_eq!(honest.meeting().check(&CHALLENGE), Ok(rendezvous_room(&host.public(), &guest.public())));
    }

    /// A y coordinate with no point of the curve.
    fn not_a_point() -> [u8; 32] {
        (2u8..)
            .map(|y| {
                let mut bytes = [0; 32];
                bytes[0] = y;
                bytes
            })
            .find(|bytes| ed25519_dalek::VerifyingKey::from_bytes(bytes).is_err())
            .unwrap()
    }

    /// With a small-order key, a signature made without any secret passes the lenient check: such keys and
    /// non-canonical encodings are refused before any signature is looked at.
    #[test]
    fn small_order_and_non_canonical_keys_are_refused() {
        use ed25519_dalek::{Signature, Verifier, VerifyingKey};
        let peer = seats()[0].public();
        let identity = {
            let mut bytes = [0; 32];
            bytes[0] = 1;
            bytes
        };
        // y = p + 1, the identity again, not reduced.
        let unreduced = {
            let mut bytes = [0xff; 32];
            bytes[0] = 0xee;
            bytes[31] = 0x7f;
            bytes
        };
        let forged = Signature::from_bytes(&[&identity[..], &[0; 32]].concat().try_into().unwrap());
        for key in [identity, unreduced, not_a_point()] {
            let room = rendezvous_room(&peer, &key);
            let signed = rendezvous_proof_message(&CHALLENGE, &room, 1);
            if key != not_a_point() {
                assert!(VerifyingKey::from_bytes(&key).unwrap().verify(&signed, &forged).is_ok(), "lenient check");
            }
            let (room, key, peer, proof) =
                (hex::encode(room), hex::encode(key), hex::encode(peer), hex::encode(forged.to_bytes()));
            let meeting = Meeting { room: &room, seat: 1, key: &key, peer: &peer, proof: &proof };
            assert_eq!(meeting.check(&CHALLENGE), Err(MeetingRefusal::BadKey));
            let swapped = Meeting { seat: 0, key: &peer, peer: &key, ..meeting };
            assert_eq!(swapped.check(&CHALLENGE), Err(MeetingRefusal::BadKey), "as the peer's key too");
        }
    }

    #[test]
    fn unknown_or_malformed_client_messages_are_errors() {
        for json in [
            r#"{"type":"shout"}"#,
            r#"{"type":"join"}"#,
            r#"{"type":"create","extra":1}"#,
            r#"{"type":"report","result":"happy"}"#,
            r#"{"type":"resume","nameplate":"7","token":"ab"}"#,
            r#"{"type":"watch"}"#,
            r#"{"type":"watch_delay","turns":-1}"#,
            r#"{"type":"host_watch","token":"ab","nameplate":"7"}"#,
            "not json",
            "",
        ] {
            assert!(serde_json::from_str::<ClientMessage>(json).is_err(), "{json}");
        }
    }

    #[test]
    fn server_messages_use_the_documented_shape() {
        let welcome = ServerMessage::Welcome {
            relay: "r".into(),
            protocol: 1,
            max_message_bytes: 2,
            hold_ms: 3,
            waiting_ms: 4,
            challenge: "ab".into(),
        };
        assert_eq!(
            serde_json::to_string(&welcome).unwrap(),
            r#"{"type":"welcome","relay":"r","protocol":1,"max_message_bytes":2,"hold_ms":3,"waiting_ms":4,"challenge":"ab"}"#
        );
        let json =
            serde_json::to_string(&ServerMessage::Error { code: ErrorCode::Crowded, message: "room is full".into() })
                .unwrap();
        assert_eq!(json, r#"{"type":"error","code":"crowded","message":"room is full"}"#);
        let json = serde_json::to_string(&ServerMessage::PeerAway { seat: 2, hold_ms: 5 }).unwrap();
        assert_eq!(json, r#"{"type":"peer_away","seat":2,"hold_ms":5}"#);
        assert_eq!(
            serde_json::to_string(&ServerMessage::PeerBack { seat: 1 }).unwrap(),
            r#"{"type":"peer_back","seat":1}"#
        );
        let created = ServerMessage::Created { nameplate: "7".into(), seat: 0, seats: 3, token: "ab".into() };
        assert_eq!(
            serde_json::to_string(&created).unwrap(),
            r#"{"type":"created","nameplate":"7","seat":0,"seats":3,"token":"ab"}"#
        );
        let present = vec![SeatState { seat: 1, state: PeerState::Present }];
        let paired = ServerMessage::Resumed { nameplate: None, seat: 0, others: present };
        assert_eq!(
            serde_json::to_string(&paired).unwrap(),
            r#"{"type":"resumed","seat":0,"others":[{"seat":1,"state":"present"}]}"#
        );
        let others = vec![SeatState { seat: 1, state: PeerState::Waiting }];
        let waiting = ServerMessage::Resumed { nameplate: Some("7".into()), seat: 0, others };
        assert_eq!(
            serde_json::to_string(&waiting).unwrap(),
            r#"{"type":"resumed","nameplate":"7","seat":0,"others":[{"seat":1,"state":"waiting"}]}"#
        );
        let reopened = ServerMessage::Reopened { nameplate: "7".into() };
        assert_eq!(serde_json::to_string(&reopened).unwrap(), r#"{"type":"reopened","nameplate":"7"}"#);
        let gone = ServerMessage::PeerGone { reason: GoneReason::Rejected };
        assert_eq!(serde_json::to_string(&gone).unwrap(), r#"{"type":"peer_gone","reason":"rejected"}"#);
    }

    #[test]
    fn watch_messages_use_the_documented_shape() {
        let cases = [
            (
                ServerMessage::WatchOpened { nameplate: "3".into(), seats: 8 },
                r#"{"type":"watch_opened","nameplate":"3","seats":8}"#,
            ),
            (ServerMessage::Watching { watcher: 2 }, r#"{"type":"watching","watcher":2}"#),
            (ServerMessage::WatcherJoined { watcher: 0 }, r#"{"type":"watcher_joined","watcher":0}"#),
            (ServerMessage::WatcherLeft { watcher: 7 }, r#"{"type":"watcher_left","watcher":7}"#),
            (
                ServerMessage::Watchers { host: 2, guest: 0, open: true, delay: 1 },
                r#"{"type":"watchers","host":2,"guest":0,"open":true,"delay":1}"#,
            ),
            (
                ServerMessage::PeerGone { reason: GoneReason::WatchingOff },
                r#"{"type":"peer_gone","reason":"watching_off"}"#,
            ),
        ];
        for (message, json) in cases {
            assert_eq!(serde_json::to_string(&message).unwrap(), json);
            assert_eq!(serde_json::from_str::<ServerMessage>(json).unwrap(), message);
        }
        assert_eq!(ErrorCode::WatchingOff.close_code(), Some(4010));
    }

    /// serde reads an internally tagged enum from a sequence too (the tag first), so a JSON array can decode as a
    /// control message: whoever reads control messages must check that the text is a JSON object first.
    #[test]
    fn serde_alone_would_take_an_array_for_a_control_message() {
        assert_eq!(serde_json::from_str::<ClientMessage>(r#"["leave"]"#).ok(), Some(ClientMessage::Leave));
    }

    #[test]
    fn the_other_seats_together_are_as_far_as_the_least_ready() {
        let of = |states: &[PeerState]| {
            let others: Vec<SeatState> = states
                .iter()
                .enumerate()
                .map(|(seat, state)| SeatState { seat: seat as u8 + 1, state: *state })
                .collect();
            SeatState::together(&others)
        };
        for state in [PeerState::Waiting, PeerState::Present, PeerState::Away] {
            assert_eq!(of(&[state]), state, "two seats: the other's state");
        }
        assert_eq!(of(&[PeerState::Present, PeerState::Waiting]), PeerState::Waiting);
        assert_eq!(of(&[PeerState::Waiting, PeerState::Away, PeerState::Present]), PeerState::Away);
        assert_eq!(of(&[PeerState::Present, PeerState::Present]), PeerState::Present);
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
