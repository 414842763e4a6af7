//! The room table's tests, through its methods as the session driver calls them.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use tokio::sync::mpsc;

use super::*;
use crate::metrics::Metrics;
use crate::outbox::{Outbox, Outgoing, Queue};
use crate::protocol::{ErrorCode, GoneReason, PeerState, ReportedResult, SeatState, ServerMessage};
use crate::stats::RoomRecord;
use crate::tally::{LiveCounts, RoomResult};

mod three_seats;

struct Fixture {
    rooms: Rooms,
    records: mpsc::Receiver<RoomRecord>,
}

fn fixture(max_rooms: usize) -> Fixture {
    let (tx, records) = mpsc::channel(64);
    let rooms =
        Rooms::new(Duration::from_secs(60), Duration::from_secs(600), max_rooms, Arc::new(Metrics::default()), tx);
    Fixture { rooms, records }
}

fn conn() -> (Outbox, Queue) {
    Outbox::new(1 << 20, Duration::from_secs(60), &crate::outbox::Queues::default())
}

fn messages(queue: &mut Queue) -> Vec<ServerMessage> {
    let mut out = Vec::new();
    while let Some(queued) = queue.try_pop() {
        if let Outgoing::Text(text) = queued.item {
            let message = serde_json::from_str(&text).unwrap();
            // Told after paired, resumed and met; the tests of watching are in tests/relay/watch.rs.
            if !matches!(message, ServerMessage::Watchers { .. }) {
                out.push(message);
            }
        }
    }
    out
}

/// What `met` and `resumed` say of the one other seat of a room of two.
fn other(seat: u8, state: PeerState) -> Vec<SeatState> {
    vec![SeatState { seat, state }]
}

fn nameplate_of(seated: &Seated) -> u32 {
    lock(&seated.room.state).nameplate.expect("a listed room")
}

fn token_of(messages: &[ServerMessage]) -> String {
    messages
        .iter()
        .find_map(|m| match m {
            ServerMessage::Created { token, .. } | ServerMessage::Joined { token, .. } => Some(token.clone()),
            _ => None,
        })
        .unwrap()
}

#[test]
fn nameplates_are_smallest_free_first_and_recycled() {
    let f = fixture(100);
    let now = Stamp::now();
    let seats: Vec<Seated> = (0..3).map(|_| f.rooms.create(now, conn().0, None, None, None).unwrap().0).collect();
    let plates: Vec<u32> = seats.iter().map(nameplate_of).collect();
    assert_eq!(plates, [1, 2, 3]);
    f.rooms.leave(now, &seats[1]);
    f.rooms.leave(now, &seats[0]);
    assert_eq!(nameplate_of(&f.rooms.create(now, conn().0, None, None, None).unwrap().0), 1);
    assert_eq!(nameplate_of(&f.rooms.create(now, conn().0, None, None, None).unwrap().0), 2);
    assert_eq!(nameplate_of(&f.rooms.create(now, conn().0, None, None, None).unwrap().0), 4);
}

#[test]
fn the_nameplate_is_released_at_pairing_and_the_game_goes_on() {
    let f = fixture(10);
    let now = Stamp::now();
    let (creator_box, mut creator_rx) = conn();
    let (creator, _) = f.rooms.create(now, creator_box, None, None, None).unwrap();
    let creator_token = token_of(&messages(&mut creator_rx));
    let (joiner_box, mut joiner_rx) = conn();
    let joiner = f.rooms.join(now, "1", joiner_box, None).unwrap();
    assert_eq!(token_of(&messages(&mut joiner_rx)).len(), 32);
    // The number is free at once: a late join finds nothing, and a new room takes it.
    assert_eq!(f.rooms.join(now, "1", conn().0, None).unwrap_err(), RoomError::UnknownNameplate);
    let (newer, _) = f.rooms.create(now, conn().0, None, None, None).unwrap();
    assert_eq!(nameplate_of(&newer), 1);
    assert_eq!(
        f.rooms.live_counts(),
        LiveCounts { rooms: 2, waiting: 1, seats_connected: 3, seats_held: 0, watchers: 0 }
    );
    // The paired room still forwards, and its seats resume by token; `resumed` names no nameplate.
    assert_eq!(f.rooms.forward(&creator, Bytes::from_static(b"\xffx"), now.at), Forwarded::Delivered);
    assert!(f.rooms.detach(now, &creator, false).is_some());
    let (resumed_box, mut resumed_rx) = conn();
    let _resumed = f.rooms.resume(&creator_token, resumed_box, None).unwrap();
    assert_eq!(
        messages(&mut resumed_rx),
        [ServerMessage::Resumed { nameplate: None, seat: 0, others: other(1, PeerState::Present) }]
    );
    f.rooms.leave(now, &joiner);
    assert_eq!(f.rooms.live_counts().rooms, 1);
}

#[test]
fn every_failed_resume_is_the_same_bad_token() {
    let f = fixture(10);
    let now = Stamp::now();
    let (creator_box, mut creator_rx) = conn();
    let (creator, _) = f.rooms.create(now, creator_box, None, None, None).unwrap();
    let token = token_of(&messages(&mut creator_rx));
    for wrong in ["", "zz", "00", &"00".repeat(16), &"00".repeat(17), &token[..30], &format!("{token}00")] {
        assert_eq!(f.rooms.resume(wrong, conn().0, None).unwrap_err(), RoomError::BadToken, "{wrong}");
    }
    f.rooms.leave(now, &creator);
    assert_eq!(f.rooms.resume(&token, conn().0, None).unwrap_err(), RoomError::BadToken, "room over");
}

#[test]
fn reopen_sends_the_guest_away_and_lists_the_room_again() {
    let mut f = fixture(10);
    let now = Stamp::now();
    let (creator_box, mut creator_rx) = conn();
    let (creator, _) = f.rooms.create(now, creator_box, Some("a/1".into()), None, None).unwrap();
    let _ = messages(&mut creator_rx);
    // Already waiting: it just answers with the nameplate.
    assert!(f.rooms.reopen(now, &creator, None).is_none());
    assert_eq!(messages(&mut creator_rx), [ServerMessage::Reopened { nameplate: "1".into() }]);

    let (guest_box, mut guest_rx) = conn();
    let guest = f.rooms.join(now, "1", guest_box, Some("wrong/1".into())).unwrap();
    let guest_token = token_of(&messages(&mut guest_rx));
    f.rooms.report(&guest, ReportedResult::Scary);
    let _ = messages(&mut creator_rx);
    // The guest cannot reopen; the creator can.
    assert!(f.rooms.reopen(now, &guest, None).is_none());
    let later = Stamp { at: now.at + Duration::from_secs(100), ..now };
    let deadline = f.rooms.reopen(later, &creator, None).expect("a new waiting lifetime");
    assert_eq!(deadline.at(), later.at + Duration::from_secs(600));
    assert_eq!(messages(&mut creator_rx), [ServerMessage::Reopened { nameplate: "1".into() }]);
    assert_eq!(messages(&mut guest_rx), [ServerMessage::PeerGone { reason: GoneReason::Rejected }]);
    assert!(guest_rx.try_pop().is_none(), "the close frame was taken with the messages");
    assert_eq!(f.rooms.resume(&guest_token, conn().0, None).unwrap_err(), RoomError::BadToken);
    assert_eq!(f.rooms.forward(&guest, Bytes::from_static(b"\xffx"), now.at), Forwarded::Dropped);
    assert_eq!(f.rooms.live_counts().waiting, 1);

    let (right_box, mut right_rx) = conn();
    let right = f.rooms.join(now, "1", right_box, Some("right/1".into())).unwrap();
    assert!(messages(&mut right_rx).contains(&ServerMessage::Paired { peer_client: Some("a/1".into()) }));
    assert_eq!(messages(&mut creator_rx), [ServerMessage::Paired { peer_client: Some("right/1".into()) }]);
    assert_eq!(f.rooms.forward(&creator, Bytes::from_static(b"\xffhi"), now.at), Forwarded::Delivered);
    f.rooms.leave(now, &right);
    let record = f.records.try_recv().unwrap();
    assert_eq!(record.result, RoomResult::Scary, "the wrong code stays in the statistics");
    assert_eq!(record.client_b.as_deref(), Some("right/1"));
}

#[test]
fn a_reopened_room_takes_the_smallest_free_nameplate_if_its_own_is_taken() {
    let f = fixture(10);
    let now = Stamp::now();
    let (creator, _) = f.rooms.create(now, conn().0, None, None, None).unwrap();
    let (guest_box, _guest_rx) = conn();
    let guest = f.rooms.join(now, "1", guest_box, None).unwrap();
    assert!(f.rooms.detach(now, &guest, false).is_some());
    // Numbers 1, 2 and 3 go to new rooms; 2 ends, so 2 is the smallest free number.
    let others: Vec<Seated> = (0..3).map(|_| f.rooms.create(now, conn().0, None, None, None).unwrap().0).collect();
    assert_eq!(others.iter().map(nameplate_of).collect::<Vec<_>>(), [1, 2, 3]);
    f.rooms.leave(now, &others[1]);
    assert!(f.rooms.reopen(now, &creator, None).is_some());
    assert_eq!(nameplate_of(&creator), 2);
    assert_eq!(f.rooms.join(now, "2", conn().0, None).map(|s| s.seat), Ok(1));
}

#[test]
fn the_room_limit_is_enforced() {
    let f = fixture(1);
    let now = Stamp::now();
    let _first = f.rooms.create(now, conn().0, None, None, None).unwrap();
    assert_eq!(f.rooms.create(now, conn().0, None, None, None).unwrap_err(), RoomError::ServerFull);
}

#[test]
fn acting_through_a_seat_of_an_ended_room_does_nothing() {
    let mut f = fixture(10);
    let now = Stamp::now();
    let (creator, _) = f.rooms.create(now, conn().0, None, None, None).unwrap();
    let joiner = f.rooms.join(now, "1", conn().0, None).unwrap();
    f.rooms.leave(now, &joiner);
    assert_eq!(f.records.try_recv().unwrap().result, RoomResult::Happy);
    f.rooms.leave(now, &creator);
    assert!(f.rooms.reopen(now, &creator, None).is_none());
    assert!(f.records.try_recv().is_err());
    assert_eq!(f.rooms.live_counts(), LiveCounts::default());
}

#[test]
fn unknown_and_malformed_nameplates_are_refused() {
    let f = fixture(10);
    let now = Stamp::now();
    for plate in ["1", "", "x", "-1", "1234567890", "1 "] {
        assert_eq!(f.rooms.join(now, plate, conn().0, None).unwrap_err(), RoomError::UnknownNameplate);
    }
}

#[test]
fn resume_needs_the_right_token_and_replaces_a_stale_connection() {
    let f = fixture(10);
    let now = Stamp::now();
    let (creator_box, mut creator_rx) = conn();
    let (creator, _) = f.rooms.create(now, creator_box, None, None, None).unwrap();
    let token = token_of(&messages(&mut creator_rx));
    let (joiner_box, mut joiner_rx) = conn();
    let _joiner = f.rooms.join(now, "1", joiner_box, None).unwrap();
    let _ = messages(&mut joiner_rx);
    assert_eq!(f.rooms.resume("00", conn().0, None).unwrap_err(), RoomError::BadToken);
    assert_eq!(f.rooms.resume("zz", conn().0, None).unwrap_err(), RoomError::BadToken);
    let (new_box, mut new_rx) = conn();
    let resumed = f.rooms.resume(&token, new_box, None).unwrap();
    assert_eq!(resumed.seat, 0);
    assert!(
        matches!(&messages(&mut new_rx)[..], [ServerMessage::Resumed { others, .. }] if *others == other(1, PeerState::Present))
    );
    assert_eq!(messages(&mut joiner_rx), [ServerMessage::PeerBack { seat: 0 }]);
    let old = messages(&mut creator_rx);
    assert!(old.iter().any(|m| matches!(m, ServerMessage::Error { code: ErrorCode::Replaced, .. })));
    // The replaced connection can no longer act for the seat.
    assert!(f.rooms.detach(now, &creator, false).is_none());
    assert_eq!(f.rooms.forward(&creator, Bytes::from_static(b"\xffx"), now.at), Forwarded::Dropped);
    assert_eq!(f.rooms.forward(&resumed, Bytes::from_static(b"\xffx"), now.at), Forwarded::Delivered);
}

#[test]
fn a_hold_expires_only_when_due_and_current() {
    let mut f = fixture(10);
    let now = Stamp::now();
    let (creator_box, mut creator_rx) = conn();
    let (creator, _) = f.rooms.create(now, creator_box, None, None, None).unwrap();
    let token = token_of(&messages(&mut creator_rx));
    let (joiner_box, mut joiner_rx) = conn();
    let _joiner = f.rooms.join(now, "1", joiner_box, None).unwrap();
    let first = f.rooms.detach(now, &creator, false).unwrap();
    let early = Stamp { at: first.at() - Duration::from_millis(1), ..now };
    f.rooms.expire(early, &first);
    assert!(f.records.try_recv().is_err());
    // Resuming and dropping again makes the first deadline stale.
    let resumed = f.rooms.resume(&token, conn().0, None).unwrap();
    let second = f.rooms.detach(now, &resumed, false).unwrap();
    f.rooms.expire(Stamp { at: first.at(), ..now }, &first);
    assert!(f.records.try_recv().is_err());
    let late = Stamp { at: second.at(), ..now };
    f.rooms.expire(late, &second);
    let record = f.records.try_recv().unwrap();
    assert_eq!(record.result, RoomResult::Pruned);
    assert_eq!(record.resumes, 1);
    let told = messages(&mut joiner_rx);
    assert!(told.contains(&ServerMessage::PeerGone { reason: GoneReason::Timeout }));
    assert_eq!(f.rooms.live_counts(), LiveCounts::default());
}

#[test]
fn results_follow_the_most_severe_flag() {
    let mut f = fixture(10);
    let now = Stamp::now();
    let ((creator_box, _creator_rx), (joiner_box, _joiner_rx)) = (conn(), conn());
    let (creator, _) = f.rooms.create(now, creator_box, Some("a/1".into()), None, None).unwrap();
    let joiner = f.rooms.join(now, "1", joiner_box, Some("b/2".into())).unwrap();
    assert_eq!(f.rooms.forward(&creator, Bytes::from_static(b"\xffabc"), now.at), Forwarded::Delivered);
    f.rooms.report(&joiner, ReportedResult::Scary);
    f.rooms.leave(now, &creator);
    let record = f.records.try_recv().unwrap();
    assert_eq!(record.result, RoomResult::Scary);
    assert_eq!((record.frames_a_to_b, record.bytes_a_to_b, record.frames_b_to_a), (1, 3, 0));
    assert_eq!((record.client_a.as_deref(), record.client_b.as_deref()), (Some("a/1"), Some("b/2")));
}

#[test]
fn a_creator_who_leaves_alone_is_lonely_and_waiting_rooms_expire_as_pruned() {
    let mut f = fixture(10);
    let now = Stamp::now();
    let (lonely, _) = f.rooms.create(now, conn().0, None, None, None).unwrap();
    f.rooms.leave(now, &lonely);
    assert_eq!(f.records.try_recv().unwrap().result, RoomResult::Lonely);
    let (creator_box, mut creator_rx) = conn();
    let (_waiting, deadline) = f.rooms.create(now, creator_box, None, None, None).unwrap();
    f.rooms.expire(Stamp { at: deadline.at(), ..now }, &deadline);
    let record = f.records.try_recv().unwrap();
    assert_eq!((record.result, record.waiting_ms), (RoomResult::Pruned, None));
    assert!(
        messages(&mut creator_rx).iter().any(|m| matches!(m, ServerMessage::Error { code: ErrorCode::Expired, .. }))
    );
}

#[test]
fn handed_over_rooms_keep_their_nameplates_tokens_and_counters() {
    let old = fixture(10);
    let now = Stamp::now();
    let (creator_box, mut creator_rx) = conn();
    let (creator, _) = old.rooms.create(now, creator_box, Some("a/1".into()), None, None).unwrap();
    let token = token_of(&messages(&mut creator_rx));
    let (_waiting, _) = old.rooms.create(now, conn().0, None, None, None).unwrap();
    let (_third, _) = old.rooms.create(now, conn().0, None, None, None).unwrap();
    let (joiner_box, _joiner_rx) = conn();
    let _joiner = old.rooms.join(now, "1", joiner_box, None).unwrap();
    assert_eq!(old.rooms.forward(&creator, Bytes::from_static(b"\xffhello"), now.at), Forwarded::Delivered);
    let third_joiner = old.rooms.join(now, "3", conn().0, None).unwrap();
    old.rooms.leave(now, &third_joiner);
    let snapshots = old.rooms.export(now);
    // The paired room 1 is listed by id only; the waiting room keeps its nameplate.
    assert_eq!(snapshots.iter().map(|s| (s.id, s.nameplate)).collect::<Vec<_>>(), [(1, None), (2, Some(2))]);

    let mut new = fixture(10);
    let deadlines = new.rooms.import(now, 0, snapshots);
    // Room 1: two held seats; room 2: one held seat and its waiting lifetime.
    assert_eq!(deadlines.len(), 4);
    assert_eq!(
        new.rooms.live_counts(),
        LiveCounts { rooms: 2, waiting: 1, seats_connected: 0, seats_held: 3, watchers: 0 }
    );
    let (fresh, _) = new.rooms.create(now, conn().0, None, None, None).unwrap();
    assert_eq!(new.rooms.live_counts().rooms, 3);
    assert_eq!(nameplate_of(&fresh), 1, "the paired room's old number was free");
    assert!(fresh.room.id > 2, "ids are not reused");
    assert_eq!(new.rooms.join(now, "2", conn().0, None).map(|s| s.seat), Ok(1), "the waiting room is listed");
    let (resumed_box, mut resumed_rx) = conn();
    let resumed = new.rooms.resume(&token, resumed_box, None).unwrap();
    assert!(matches!(
        &messages(&mut resumed_rx)[..],
        [ServerMessage::Resumed { seat: 0, others, .. }] if *others == other(1, PeerState::Away)
    ));
    new.rooms.leave(now, &resumed);
    let record = new.records.try_recv().unwrap();
    assert_eq!((record.frames_a_to_b, record.bytes_a_to_b, record.resumes), (1, 5, 1));
    assert_eq!(record.client_a.as_deref(), Some("a/1"));
}
