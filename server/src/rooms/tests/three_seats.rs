//! A room of three seats: seats in join order, pairing when the last one comes, frames to one seat and to all
//! naming their sender, and away/back naming the seat.

use super::*;
use crate::protocol::{MAX_SEATS, TO_ALL};

/// The binary frames a connection was sent.
fn frames(queue: &mut Queue) -> Vec<Bytes> {
    let mut out = Vec::new();
    while let Some(queued) = queue.try_pop() {
        if let Outgoing::Frame(frame) = queued.item {
            out.push(frame);
        }
    }
    out
}

/// A data frame: its first byte names a seat (or is [`TO_ALL`]), the rest is the payload.
fn frame(first: u8, payload: &[u8]) -> Bytes {
    Bytes::from([&[first][..], payload].concat())
}

#[test]
fn a_room_of_three_routes_to_one_seat_and_to_all_naming_the_sender() {
    let mut f = fixture(10);
    let now = Stamp::now();
    let (boxes, mut queues): (Vec<Outbox>, Vec<Queue>) = (0..3).map(|_| conn()).unzip();
    let (creator, _) = f.rooms.create(now, boxes[0].clone(), Some("a/1".into()), Some(3), None).unwrap();
    let second = f.rooms.join(now, "1", boxes[1].clone(), None).unwrap();
    assert_eq!(second.seat, 1, "seats are numbered in join order");
    assert_eq!(f.rooms.forward(&second, frame(TO_ALL, b"early"), now.at), Forwarded::NotPaired);
    assert_eq!(f.rooms.live_counts().waiting, 1, "still listed: a seat is free");
    let third = f.rooms.join(now, "1", boxes[2].clone(), None).unwrap();
    assert_eq!(third.seat, 2);
    assert_eq!(f.rooms.join(now, "1", conn().0, None).unwrap_err(), RoomError::UnknownNameplate, "released");
    let told: Vec<Vec<ServerMessage>> = queues.iter_mut().map(messages).collect();
    for (seat, told) in told.iter().enumerate() {
        assert!(told.contains(&ServerMessage::Paired { peer_client: None }), "seat {seat}: {told:?}");
    }
    let third_token = token_of(&told[2]);

    // To one seat: only it gets the payload, with the sender's seat first.
    assert_eq!(f.rooms.forward(&creator, frame(2, b"to two"), now.at), Forwarded::Delivered);
    assert_eq!(frames(&mut queues[2]), [frame(0, b"to two")]);
    assert!(frames(&mut queues[1]).is_empty());
    assert!(frames(&mut queues[0]).is_empty());
    // To all: every other seat, never the sender.
    assert_eq!(f.rooms.forward(&second, frame(TO_ALL, b"to all"), now.at), Forwarded::Delivered);
    assert_eq!(frames(&mut queues[0]), [frame(1, b"to all")]);
    assert_eq!(frames(&mut queues[2]), [frame(1, b"to all")]);
    assert!(frames(&mut queues[1]).is_empty());
    // Its own seat, a seat the room does not have, or no address at all.
    for bad in [frame(1, b"me"), frame(3, b"nobody"), Bytes::new()] {
        assert_eq!(f.rooms.forward(&second, bad, now.at), Forwarded::Misaddressed);
    }

    // Away and back name the seat; a frame to a held seat is dropped, to all it still reaches the others.
    let hold = f.rooms.detach(now, &third, false).unwrap();
    assert_eq!(messages(&mut queues[0]), [ServerMessage::PeerAway { seat: 2, hold_ms: 60_000 }]);
    assert_eq!(messages(&mut queues[1]), [ServerMessage::PeerAway { seat: 2, hold_ms: 60_000 }]);
    assert_eq!(f.rooms.forward(&creator, frame(2, b"lost"), now.at), Forwarded::Dropped);
    assert_eq!(f.rooms.forward(&creator, frame(TO_ALL, b"kept"), now.at), Forwarded::Delivered);
    assert_eq!(frames(&mut queues[1]), [frame(0, b"kept")]);
    let (back_box, mut back_rx) = conn();
    let _back = f.rooms.resume(&third_token, back_box, None).unwrap();
    let present = |seat| SeatState { seat, state: PeerState::Present };
    assert_eq!(
        messages(&mut back_rx),
        [ServerMessage::Resumed { nameplate: None, seat: 2, others: vec![present(0), present(1)] }]
    );
    assert_eq!(messages(&mut queues[0]), [ServerMessage::PeerBack { seat: 2 }]);
    assert_eq!(messages(&mut queues[1]), [ServerMessage::PeerBack { seat: 2 }]);
    drop(hold);

    // The record: the creator's frames on one side, every other seat's together on the other.
    f.rooms.leave(now, &creator);
    let record = f.records.try_recv().unwrap();
    assert_eq!((record.frames_a_to_b, record.bytes_a_to_b), (2, 10));
    assert_eq!((record.frames_b_to_a, record.bytes_b_to_a), (1, 6));
    assert_eq!(record.client_a.as_deref(), Some("a/1"));
}

#[test]
fn a_room_asks_for_two_to_eight_seats() {
    let f = fixture(10);
    let now = Stamp::now();
    for refused in [0, 1, MAX_SEATS + 1, u8::MAX] {
        let refusal = f.rooms.create(now, conn().0, None, Some(refused), None).unwrap_err();
        assert_eq!((refusal, refusal.code()), (RoomError::SeatsOutOfRange, ErrorCode::BadMessage), "{refused}");
    }
    let (largest, _) = f.rooms.create(now, conn().0, None, Some(MAX_SEATS), None).unwrap();
    assert_eq!(lock(&largest.room.state).seats.len(), usize::from(MAX_SEATS));
    let (default, _) = f.rooms.create(now, conn().0, None, None, None).unwrap();
    assert_eq!(lock(&default.room.state).seats.len(), 2);
}
