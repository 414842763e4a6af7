//! Rendezvous rooms: players who lost their room meet again by the secrets of their session key, with nothing
//! kept on the relay beforehand.

use fairdeck_relay::protocol::{PeerState, ServerMessage, close, rendezvous_room, seat_hash};
use serde_json::json;

use crate::common::{Client, Received, TestRelay, test_limits};

/// Two seat secrets and their room, as two clients derive them from their session key.
struct Secrets {
    seats: [[u8; 32]; 2],
}

impl Secrets {
    fn new(tag: u8) -> Secrets {
        Secrets { seats: [[tag; 32], [tag.wrapping_add(1); 32]] }
    }

    fn room(&self) -> [u8; 32] {
        rendezvous_room(&seat_hash(&self.seats[0]), &seat_hash(&self.seats[1]))
    }

    /// The `rendezvous` message of `seat`.
    fn message(&self, seat: u8) -> serde_json::Value {
        let seat_index = usize::from(seat);
        json!({
            "type": "rendezvous",
            "room": hex::encode(self.room()),
            "seat": seat,
            "secret": hex::encode(self.seats[seat_index]),
            "peer": hex::encode(seat_hash(&self.seats[1 - seat_index])),
        })
    }
}

async fn meet(url: &str, message: serde_json::Value) -> (Client, String, PeerState) {
    let mut client = Client::connect(url).await;
    client.send(message).await;
    match client.recv().await {
        Received::Control(ServerMessage::Met { token, peer, .. }) => (client, token, peer),
        other => panic!("expected met, got {other:?}"),
    }
}

#[tokio::test]
async fn two_players_meet_in_either_order_and_frames_flow_both_ways() {
    let dir = tempfile::tempdir().unwrap();
    let relay = TestRelay::start(dir.path(), test_limits()).await;
    let secrets = Secrets::new(1);
    for first in [0u8, 1] {
        let (mut a, _, peer) = meet(&relay.url(), secrets.message(first)).await;
        assert_eq!(peer, PeerState::Waiting);
        let (mut b, _, peer) = meet(&relay.url(), secrets.message(1 - first)).await;
        assert_eq!(peer, PeerState::Present);
        assert!(matches!(a.recv().await, Received::Control(ServerMessage::Paired { .. })));
        assert!(matches!(b.recv().await, Received::Control(ServerMessage::Paired { .. })));
        a.send_binary(b"to b".to_vec()).await;
        b.expect_binary(b"to b").await;
        b.send_binary(b"to a".to_vec()).await;
        a.expect_binary(b"to a").await;
        // Leaving ends the room: the next rendezvous opens a new one.
        a.send(json!({"type": "leave"})).await;
        assert!(matches!(b.recv().await, Received::Control(ServerMessage::PeerGone { .. })));
    }
    relay.stop().await;
}

#[tokio::test]
async fn a_wrong_secret_takes_no_seat_and_disturbs_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let relay = TestRelay::start(dir.path(), test_limits()).await;
    let secrets = Secrets::new(7);
    let (mut waiting, _, _) = meet(&relay.url(), secrets.message(0)).await;
    let room = hex::encode(secrets.room());
    let peer = hex::encode(seat_hash(&secrets.seats[0]));
    let wrong = [
        // Someone who knows the room and seat 0's hash, but not seat 1's secret.
        json!({"type": "rendezvous", "room": room, "seat": 1, "secret": "00".repeat(32), "peer": peer}),
        // The right secret claimed for the other seat.
        json!({"type": "rendezvous", "room": room, "seat": 0, "secret": hex::encode(secrets.seats[1]), "peer": peer}),
        json!({"type": "rendezvous", "room": room, "seat": 2, "secret": hex::encode(secrets.seats[1]), "peer": peer}),
        json!({"type": "rendezvous", "room": "zz", "seat": 1, "secret": hex::encode(secrets.seats[1]), "peer": peer}),
    ];
    for message in wrong {
        let mut thief = Client::connect(&relay.url()).await;
        thief.send(message).await;
        thief.expect_error_and_close("bad_token", close::BAD_TOKEN).await;
    }
    waiting.expect_silence().await;
    let (_guest, _, peer) = meet(&relay.url(), secrets.message(1)).await;
    assert_eq!(peer, PeerState::Present);
    assert!(matches!(waiting.recv().await, Received::Control(ServerMessage::Paired { .. })));
    relay.stop().await;
}

#[tokio::test]
async fn the_seats_secret_replaces_a_connection_still_in_it_and_its_token_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let relay = TestRelay::start(dir.path(), test_limits()).await;
    let secrets = Secrets::new(20);
    let (mut host, _, _) = meet(&relay.url(), secrets.message(0)).await;
    let (mut stale, old_token, _) = meet(&relay.url(), secrets.message(1)).await;
    assert!(matches!(host.recv().await, Received::Control(ServerMessage::Paired { .. })));
    assert!(matches!(stale.recv().await, Received::Control(ServerMessage::Paired { .. })));
    // The guest's machine restarted; the relay has not noticed its old connection is dead.
    let (guest, token, peer) = meet(&relay.url(), secrets.message(1)).await;
    assert_eq!(peer, PeerState::Present);
    stale.expect_error_and_close("replaced", close::REPLACED).await;
    assert_eq!(host.recv().await, Received::Control(ServerMessage::PeerBack));
    // The old token is void; the new one takes the seat back after a drop.
    drop(guest);
    assert!(matches!(host.recv().await, Received::Control(ServerMessage::PeerAway { .. })));
    let mut late = Client::connect(&relay.url()).await;
    late.send(json!({"type": "resume", "token": old_token})).await;
    late.expect_error_and_close("bad_token", close::BAD_TOKEN).await;
    let mut guest = Client::connect(&relay.url()).await;
    guest.send(json!({"type": "resume", "token": token})).await;
    assert!(matches!(guest.recv().await, Received::Control(ServerMessage::Resumed { seat: 1, .. })));
    assert_eq!(host.recv().await, Received::Control(ServerMessage::PeerBack));
    host.send_binary(b"again".to_vec()).await;
    guest.expect_binary(b"again").await;
    relay.stop().await;
}

#[tokio::test]
async fn a_rendezvous_room_survives_a_graceful_restart_and_a_nameplate_never_reaches_it() {
    let dir = tempfile::tempdir().unwrap();
    let relay = TestRelay::start(dir.path(), test_limits()).await;
    let secrets = Secrets::new(40);
    let (_waiting, token, _) = meet(&relay.url(), secrets.message(0)).await;
    let mut joiner = Client::connect(&relay.url()).await;
    joiner.send(json!({"type": "join", "nameplate": "1"})).await;
    joiner.expect_error_and_close("unknown_nameplate", close::UNKNOWN_NAMEPLATE).await;
    relay.stop().await;

    let relay = TestRelay::start(dir.path(), test_limits()).await;
    let mut back = Client::connect(&relay.url()).await;
    back.send(json!({"type": "resume", "token": token})).await;
    assert!(matches!(back.recv().await, Received::Control(ServerMessage::Resumed { seat: 0, .. })));
    let (_guest, _, peer) = meet(&relay.url(), secrets.message(1)).await;
    assert_eq!(peer, PeerState::Present);
    assert!(matches!(back.recv().await, Received::Control(ServerMessage::Paired { .. })));
    relay.stop().await;
}
