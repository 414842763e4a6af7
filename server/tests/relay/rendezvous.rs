//! Rendezvous rooms: players who lost their room meet again by the keys of their session key's seat secrets, with
//! nothing kept on the relay beforehand and no secret ever sent to it.

use fairdeck_relay::Limits;
use fairdeck_relay::protocol::{PeerState, SeatKey, SeatState, ServerMessage, close, rendezvous_room};
use serde_json::json;

use crate::common::{Client, Received, TestRelay, metric, metrics, other, test_limits};

/// Two seats' keys, as two clients derive them from their session key.
struct Seats {
    keys: [SeatKey; 2],
}

impl Seats {
    fn new(tag: u8) -> Seats {
        Seats { keys: [SeatKey::from_secret(&[tag; 32]), SeatKey::from_secret(&[tag.wrapping_add(1); 32])] }
    }

    fn room(&self) -> [u8; 32] {
        rendezvous_room(&self.keys[0].public(), &self.keys[1].public())
    }

    /// The `rendezvous` message of `seat` on the connection whose welcome gave `challenge`.
    fn message(&self, seat: u8, challenge: &[u8; 32]) -> serde_json::Value {
        let (key, peer) = (&self.keys[usize::from(seat)], &self.keys[usize::from(1 - seat)]);
        serde_json::to_value(key.rendezvous(seat, &peer.public(), challenge, None)).unwrap()
    }
}

/// Takes `seat` at the rendezvous on a new connection: the client, its token and where the peer stands.
async fn meet(url: &str, seats: &Seats, seat: u8) -> (Client, String, PeerState) {
    let mut client = Client::connect(url).await;
    client.send(seats.message(seat, &client.challenge)).await;
    match client.recv().await {
        Received::Control(ServerMessage::Met { token, others, .. }) => (client, token, SeatState::together(&others)),
        other => panic!("expected met, got {other:?}"),
    }
}

#[tokio::test]
async fn two_players_meet_in_either_order_and_frames_flow_both_ways() {
    let dir = tempfile::tempdir().unwrap();
    let relay = TestRelay::start(dir.path(), test_limits()).await;
    let seats = Seats::new(1);
    for first in [0u8, 1] {
        let (mut a, _, peer) = meet(&relay.url(), &seats, first).await;
        assert_eq!(peer, PeerState::Waiting);
        let (mut b, _, peer) = meet(&relay.url(), &seats, 1 - first).await;
        assert_eq!(peer, PeerState::Present);
        assert!(matches!(a.recv().await, Received::Control(ServerMessage::Paired { .. })));
        assert!(matches!(b.recv().await, Received::Control(ServerMessage::Paired { .. })));
        a.send_data(b"to b").await;
        b.expect_data(first, b"to b").await;
        b.send_data(b"to a").await;
        a.expect_data(1 - first, b"to a").await;
        // Leaving ends the room: the next rendezvous opens a new one.
        a.send(json!({"type": "leave"})).await;
        assert!(matches!(b.recv().await, Received::Control(ServerMessage::PeerGone { .. })));
    }
    relay.stop().await;
}

/// Whoever cannot sign this connection's challenge with a seat's key takes no seat, opens no room, and does not
/// disturb the seat's holder: a proof replayed from another connection, a wrong signature, another key, a
/// small-order key, malformed fields.
#[tokio::test]
async fn an_unproved_claim_takes_no_seat_and_disturbs_nothing() {
    let dir = tempfile::tempdir().unwrap();
    // Every claim counts against the address's new rooms, every refusal as a failed resume: room for them all.
    let limits = Limits { rooms_per_minute: 100, resumes_per_minute: 100, ..test_limits() };
    let relay = TestRelay::start(dir.path(), limits).await;
    let seats = Seats::new(7);
    let mut holder = Client::connect(&relay.url()).await;
    let sent = seats.message(0, &holder.challenge);
    holder.send(sent.clone()).await;
    assert!(matches!(
        holder.recv().await,
        Received::Control(ServerMessage::Met { others, .. }) if others == other(0, PeerState::Waiting)
    ));
    // What the guest's client sent to another relay, or on a connection it lost.
    let guest_elsewhere = seats.message(1, &[9; 32]);
    let thief = SeatKey::from_secret(&[99; 32]);
    let (room, host_key) = (hex::encode(seats.room()), hex::encode(seats.keys[0].public()));
    let guest_key = hex::encode(seats.keys[1].public());
    // The identity point: small order, and a signature of it (R the identity, s zero) needs no secret.
    let small = {
        let mut bytes = [0u8; 32];
        bytes[0] = 1;
        bytes
    };
    let forged = format!("{}{}", hex::encode(small), "00".repeat(32));
    let small_room = hex::encode(rendezvous_room(&seats.keys[0].public(), &small));
    let with = |message: &serde_json::Value, field: &str, value: serde_json::Value| {
        let mut message = message.clone();
        message[field] = value;
        message
    };
    let mut flipped = hex::decode(sent["proof"].as_str().unwrap()).unwrap();
    flipped[10] ^= 1;
    let claims = [
        // Replays, on a connection whose challenge differs.
        sent.clone(),
        guest_elsewhere.clone(),
        with(&sent, "proof", json!(hex::encode(flipped))),
        with(&guest_elsewhere, "proof", json!("00".repeat(64))),
        // The thief signs correctly, but with its own key: the room is not its key's.
        with(
            &serde_json::to_value(thief.rendezvous(1, &seats.keys[0].public(), &[0; 32], None)).unwrap(),
            "room",
            json!(room),
        ),
        // The right key claimed for the other seat.
        json!({"type": "rendezvous", "room": room, "seat": 0, "key": guest_key, "peer": host_key, "proof": "00".repeat(64)}),
        // A small-order key, in the room it makes with the host's key.
        json!({"type": "rendezvous", "room": small_room, "seat": 1, "key": hex::encode(small), "peer": host_key, "proof": forged}),
        with(&sent, "room", json!("zz".repeat(32))),
        with(&sent, "seat", json!(2)),
        with(&sent, "key", json!(format!("{host_key}00"))),
        with(&sent, "proof", json!("00".repeat(63))),
    ];
    for claim in claims {
        let mut thief = Client::connect(&relay.url()).await;
        // Replays are made for their own challenge, never this one.
        if claim == sent || claim == guest_elsewhere {
            assert_ne!(thief.challenge, holder.challenge);
        }
        thief.send(claim.clone()).await;
        thief.expect_error_and_close("bad_token", close::BAD_TOKEN).await;
    }
    holder.expect_silence().await;
    assert_eq!(metric(&metrics(relay.addr).await, "fairdeck_relay_rooms_open"), 1.0, "no claim opened a room");
    let (_guest, _, peer) = meet(&relay.url(), &seats, 1).await;
    assert_eq!(peer, PeerState::Present);
    assert!(matches!(holder.recv().await, Received::Control(ServerMessage::Paired { .. })));
    relay.stop().await;
}

#[tokio::test]
async fn the_seats_secret_replaces_a_connection_still_in_it_and_its_token_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let relay = TestRelay::start(dir.path(), test_limits()).await;
    let seats = Seats::new(20);
    let (mut host, _, _) = meet(&relay.url(), &seats, 0).await;
    let (mut stale, old_token, _) = meet(&relay.url(), &seats, 1).await;
    assert!(matches!(host.recv().await, Received::Control(ServerMessage::Paired { .. })));
    assert!(matches!(stale.recv().await, Received::Control(ServerMessage::Paired { .. })));
    // The guest's machine restarted; the relay has not noticed its old connection is dead.
    let (guest, token, peer) = meet(&relay.url(), &seats, 1).await;
    assert_eq!(peer, PeerState::Present);
    stale.expect_error_and_close("replaced", close::REPLACED).await;
    assert_eq!(host.recv().await, Received::Control(ServerMessage::PeerBack { seat: 1 }));
    // The old token is void; the new one takes the seat back after a drop.
    drop(guest);
    assert!(matches!(host.recv().await, Received::Control(ServerMessage::PeerAway { .. })));
    let mut late = Client::connect(&relay.url()).await;
    late.send(json!({"type": "resume", "token": old_token})).await;
    late.expect_error_and_close("bad_token", close::BAD_TOKEN).await;
    let mut guest = Client::connect(&relay.url()).await;
    guest.send(json!({"type": "resume", "token": token})).await;
    assert!(matches!(guest.recv().await, Received::Control(ServerMessage::Resumed { seat: 1, .. })));
    assert_eq!(host.recv().await, Received::Control(ServerMessage::PeerBack { seat: 1 }));
    host.send_data(b"again").await;
    guest.expect_data(0, b"again").await;
    relay.stop().await;
}

#[tokio::test]
async fn a_rendezvous_room_survives_a_graceful_restart_and_a_nameplate_never_reaches_it() {
    let dir = tempfile::tempdir().unwrap();
    let relay = TestRelay::start(dir.path(), test_limits()).await;
    let seats = Seats::new(40);
    let (_waiting, token, _) = meet(&relay.url(), &seats, 0).await;
    let mut joiner = Client::connect(&relay.url()).await;
    joiner.send(json!({"type": "join", "nameplate": "1"})).await;
    joiner.expect_error_and_close("unknown_nameplate", close::UNKNOWN_NAMEPLATE).await;
    relay.stop().await;

    let relay = TestRelay::start(dir.path(), test_limits()).await;
    let mut back = Client::connect(&relay.url()).await;
    back.send(json!({"type": "resume", "token": token})).await;
    assert!(matches!(back.recv().await, Received::Control(ServerMessage::Resumed { seat: 0, .. })));
    let (_guest, _, peer) = meet(&relay.url(), &seats, 1).await;
    assert_eq!(peer, PeerState::Present);
    assert!(matches!(back.recv().await, Received::Control(ServerMessage::Paired { .. })));
    relay.stop().await;
}
