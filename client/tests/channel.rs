//! The end-to-end channel, two instances wired in memory: a relay that delivers, drops, reorders, duplicates
//! or alters frames.

use fairdeck::channel::{
    Channel, ChannelError, DEFAULT_MAX_FRAME_BYTES, OwedAck, SEND_WINDOW_BYTES, SEND_WINDOW_FRAMES, Side,
};
use fairdeck_relay_protocol::{CHALLENGE_BYTES, ClientMessage, Meeting, MeetingRefusal};
use proptest::prelude::*;

const WORDS: &str = "purple-sausage";
const NAMEPLATE: &str = "7";

fn pair(host_words: &str, guest_words: &str) -> (Channel, Channel) {
    (
        Channel::new(Side::Host, host_words, NAMEPLATE, [1; 32]),
        Channel::new(Side::Guest, guest_words, NAMEPLATE, [2; 32]),
    )
}

fn drain(channel: &mut Channel) -> Vec<Vec<u8>> {
    std::iter::from_fn(|| channel.poll_frame()).collect()
}

fn messages(channel: &mut Channel) -> Vec<Vec<u8>> {
    std::iter::from_fn(|| channel.poll_message()).collect()
}

/// Moves frames both ways until both are quiet; returns the first error each side hit.
fn pump(a: &mut Channel, b: &mut Channel) -> (Result<(), ChannelError>, Result<(), ChannelError>) {
    let (mut ra, mut rb) = (Ok(()), Ok(()));
    for _ in 0..100_000 {
        let to_b = drain(a);
        let to_a = drain(b);
        if to_a.is_empty() && to_b.is_empty() {
            return (ra, rb);
        }
        for frame in to_b {
            if let Err(e) = b.handle_frame(&frame) {
                rb = rb.and(Err(e));
            }
        }
        for frame in to_a {
            if let Err(e) = a.handle_frame(&frame) {
                ra = ra.and(Err(e));
            }
        }
    }
    panic!("the channels never went quiet");
}

fn established() -> (Channel, Channel) {
    let (mut host, mut guest) = pair(WORDS, WORDS);
    assert_eq!(pump(&mut host, &mut guest), (Ok(()), Ok(())));
    assert!(host.is_established() && guest.is_established());
    (host, guest)
}

#[test]
fn handshake_then_messages_both_ways_in_order() {
    let (mut host, mut guest) = pair(WORDS, WORDS);
    assert!(!host.is_established());
    // Queued before the handshake: held until the peer proved it knows the code.
    host.send(b"early".to_vec()).unwrap();
    assert_eq!(pump(&mut host, &mut guest), (Ok(()), Ok(())));
    assert!(host.is_established() && guest.is_established());
    assert_eq!(messages(&mut guest), vec![b"early".to_vec()]);

    for i in 0..20u8 {
        host.send(vec![i; i as usize]).unwrap();
        guest.send(vec![100 + i]).unwrap();
    }
    guest.send(Vec::new()).unwrap();
    assert_eq!(pump(&mut host, &mut guest), (Ok(()), Ok(())));
    assert_eq!(messages(&mut guest), (0..20u8).map(|i| vec![i; i as usize]).collect::<Vec<_>>());
    let mut expected: Vec<Vec<u8>> = (0..20u8).map(|i| vec![100 + i]).collect();
    expected.push(Vec::new());
    assert_eq!(messages(&mut host), expected);
    // Everything was acknowledged, so a resend has no data to repeat.
    assert_eq!(host.unacked_frames(), 0);
    assert_eq!(guest.unacked_frames(), 0);
}

#[test]
fn frames_are_encrypted() {
    let (mut host, mut guest) = established();
    let secret = b"the ace of spades is at position 17".to_vec();
    host.send(secret.clone()).unwrap();
    let frames = drain(&mut host);
    assert!(frames.iter().all(|f| !f.windows(8).any(|w| w == &secret[..8])));
    for f in &frames {
        guest.handle_frame(f).unwrap();
    }
    assert_eq!(messages(&mut guest), vec![secret]);
}

#[test]
fn wrong_code_fails_on_both_sides_and_delivers_nothing() {
    let (mut host, mut guest) = pair("purple-sausage", "purple-sausages");
    host.send(b"secret".to_vec()).unwrap();
    guest.send(b"secret".to_vec()).unwrap();
    let mut data_frames = 0;
    let (mut rh, mut rg) = (Ok(()), Ok(()));
    for _ in 0..10 {
        for f in drain(&mut host) {
            data_frames += usize::from(f[0] == 3);
            rg = rg.and(guest.handle_frame(&f));
        }
        for f in drain(&mut guest) {
            data_frames += usize::from(f[0] == 3);
            rh = rh.and(host.handle_frame(&f));
        }
    }
    assert_eq!(rh, Err(ChannelError::WrongCode));
    assert_eq!(rg, Err(ChannelError::WrongCode));
    assert_eq!(data_frames, 0);
    assert!(!host.is_established() && !guest.is_established());
    assert_eq!(messages(&mut host), Vec::<Vec<u8>>::new());
    assert_eq!(messages(&mut guest), Vec::<Vec<u8>>::new());
    // The failure sticks.
    assert_eq!(host.send(b"x".to_vec()), Err(ChannelError::WrongCode));
    assert_eq!(host.error(), Some(&ChannelError::WrongCode));
    host.resend_unacked();
    assert_eq!(host.poll_frame(), None);
}

#[test]
fn another_nameplate_is_a_wrong_code() {
    let mut host = Channel::new(Side::Host, WORDS, "7", [1; 32]);
    let mut guest = Channel::new(Side::Guest, WORDS, "8", [2; 32]);
    assert_eq!(pump(&mut host, &mut guest), (Err(ChannelError::WrongCode), Err(ChannelError::WrongCode)));
}

#[test]
fn two_hosts_are_refused() {
    let mut a = Channel::new(Side::Host, WORDS, NAMEPLATE, [1; 32]);
    let mut b = Channel::new(Side::Host, WORDS, NAMEPLATE, [2; 32]);
    let (ra, rb) = pump(&mut a, &mut b);
    assert!(matches!(ra, Err(ChannelError::Malformed(_))));
    assert!(matches!(rb, Err(ChannelError::Malformed(_))));
}

#[test]
fn altered_handshake_is_a_wrong_code() {
    let (mut host, mut guest) = pair(WORDS, WORDS);
    let hello = host.poll_frame().unwrap();
    let mut confirm_source = guest.poll_frame().unwrap();
    host.handle_frame(&confirm_source).unwrap();
    guest.handle_frame(&hello).unwrap();
    let mut confirm = host.poll_frame().unwrap();
    confirm[5] ^= 0x10;
    assert_eq!(guest.handle_frame(&confirm), Err(ChannelError::WrongCode));
    // A HELLO replaced by the relay after the fact contradicts the first one.
    confirm_source[10] ^= 1;
    assert_eq!(host.handle_frame(&confirm_source), Err(ChannelError::HandshakeChanged("HELLO")));
}

#[test]
fn a_flipped_bit_anywhere_in_a_data_frame_is_detected() {
    let (mut host, mut guest) = established();
    host.send(b"attack with the dragon".to_vec()).unwrap();
    let frame = host.poll_frame().unwrap();
    for byte in 1..frame.len() {
        for bit in [0, 7] {
            // The seeds are fixed, so a fresh pair has the same keys: each alteration meets a clean receiver.
            let (_, mut receiver) = established();
            let mut bad = frame.clone();
            bad[byte] ^= 1 << bit;
            let err = receiver.handle_frame(&bad).unwrap_err();
            assert!(
                matches!(err, ChannelError::Tampered { frame: "data", .. } | ChannelError::SequenceOutOfRange { .. }),
                "byte {byte} bit {bit}: {err:?}"
            );
            assert_eq!(receiver.poll_message(), None);
        }
    }
    // The untouched frame still goes through on the real receiver.
    guest.handle_frame(&frame).unwrap();
    assert_eq!(messages(&mut guest), vec![b"attack with the dragon".to_vec()]);
    // The high byte of the sequence number makes a number no honest sender can have used.
    let mut far = frame.clone();
    far[1 + fairdeck::channel::RUN_ID_LEN] ^= 0x80;
    assert!(matches!(guest.handle_frame(&far), Err(ChannelError::SequenceOutOfRange { .. })));
    // Fatal: even the genuine frame is refused afterwards.
    assert!(guest.handle_frame(&frame).is_err());
}

#[test]
fn a_tampered_ack_frame_is_detected() {
    let (mut host, mut guest) = established();
    host.send(b"m".to_vec()).unwrap();
    for f in drain(&mut host) {
        guest.handle_frame(&f).unwrap();
    }
    let ack = guest.poll_frame().unwrap();
    assert_eq!(ack[0], 4, "an explicit ack frame");
    let mut bad = ack.clone();
    bad[16] ^= 1;
    assert_eq!(host.handle_frame(&bad), Err(ChannelError::Tampered { frame: "ack", number: 0 }));
}

#[test]
fn reordered_and_duplicated_frames_are_delivered_once_in_order() {
    let (mut host, mut guest) = established();
    host.set_max_frame_bytes(300);
    let sent: Vec<Vec<u8>> = (0..12u32).map(|i| vec![i as u8; 150 * i as usize]).collect();
    for m in &sent {
        host.send(m.clone()).unwrap();
    }
    let frames = drain(&mut host);
    assert!(frames.len() > 12, "messages were fragmented");
    let mut shuffled: Vec<&Vec<u8>> = frames.iter().rev().collect();
    shuffled.extend(frames.iter().step_by(3));
    shuffled.extend(frames.iter().rev().step_by(2));
    for f in shuffled {
        guest.handle_frame(f).unwrap();
    }
    assert_eq!(messages(&mut guest), sent);
    assert_eq!(pump(&mut host, &mut guest), (Ok(()), Ok(())));
    assert_eq!(host.unacked_frames(), 0);
    assert_eq!(messages(&mut guest), Vec::<Vec<u8>>::new());
}

#[test]
fn frames_lost_in_a_disconnection_are_resent_and_delivered_exactly_once() {
    let (mut host, mut guest) = established();
    for i in 0..5u8 {
        host.send(vec![i]).unwrap();
    }
    assert_eq!(pump(&mut host, &mut guest), (Ok(()), Ok(())));
    // The connection drops: frames both ways vanish, including acks.
    for i in 5..10u8 {
        host.send(vec![i]).unwrap();
        guest.send(vec![50 + i]).unwrap();
    }
    let lost_host = drain(&mut host);
    let lost_guest = drain(&mut guest);
    assert_eq!(lost_host.len(), 5);
    // Some of the guest's frames did arrive before the drop; the host's acks for them were lost.
    for f in &lost_guest[..2] {
        host.handle_frame(f).unwrap();
    }
    drain(&mut host);
    assert_eq!(host.unacked_frames(), 5);
    // Reconnected: both resend what is unacknowledged.
    host.resend_unacked();
    guest.resend_unacked();
    assert_eq!(pump(&mut host, &mut guest), (Ok(()), Ok(())));
    assert_eq!(messages(&mut guest), (0..10u8).map(|i| vec![i]).collect::<Vec<_>>());
    assert_eq!(messages(&mut host), (5..10u8).map(|i| vec![50 + i]).collect::<Vec<_>>());
    assert_eq!((host.unacked_frames(), guest.unacked_frames()), (0, 0));
    // A second, needless resend changes nothing.
    host.resend_unacked();
    guest.resend_unacked();
    assert_eq!(pump(&mut host, &mut guest), (Ok(()), Ok(())));
    assert_eq!(messages(&mut guest), Vec::<Vec<u8>>::new());
    assert_eq!(messages(&mut host), Vec::<Vec<u8>>::new());
}

#[test]
fn a_handshake_interrupted_by_a_disconnection_completes_after_resend() {
    let (mut host, mut guest) = pair(WORDS, WORDS);
    host.send(b"hello".to_vec()).unwrap();
    // Both HELLOs arrive, then the connection drops: both CONFIRMs are lost.
    let h = drain(&mut host);
    let g = drain(&mut guest);
    guest.handle_frame(&h[0]).unwrap();
    host.handle_frame(&g[0]).unwrap();
    drain(&mut host);
    drain(&mut guest);
    assert!(!host.is_established() && !guest.is_established());
    host.resend_unacked();
    guest.resend_unacked();
    assert_eq!(pump(&mut host, &mut guest), (Ok(()), Ok(())));
    assert!(host.is_established() && guest.is_established());
    assert_eq!(messages(&mut guest), vec![b"hello".to_vec()]);
}

#[test]
fn a_five_megabyte_message_goes_through_in_fragments() {
    let (mut host, mut guest) = established();
    let big: Vec<u8> = (0..5_000_000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
    host.send(big.clone()).unwrap();
    // The host sends what the window allows, the guest acknowledges, and so on.
    let mut frames = Vec::new();
    loop {
        let to_guest = drain(&mut host);
        if to_guest.is_empty() {
            break;
        }
        let in_flight: usize = to_guest.iter().map(Vec::len).sum();
        assert!(in_flight <= SEND_WINDOW_BYTES, "{in_flight} bytes unacknowledged");
        for f in &to_guest {
            guest.handle_frame(f).unwrap();
        }
        for ack in drain(&mut guest) {
            host.handle_frame(&ack).unwrap();
        }
        frames.extend(to_guest);
    }
    assert!(frames.len() >= 5_000_000 / DEFAULT_MAX_FRAME_BYTES);
    assert!(frames.iter().all(|f| f.len() <= DEFAULT_MAX_FRAME_BYTES));
    assert_eq!(messages(&mut guest), vec![big]);
}

#[test]
fn a_lone_message_s_ack_may_wait_for_a_data_frame_but_fragments_and_many_frames_are_acknowledged_at_once() {
    let (mut host, mut guest) = established();
    assert_eq!(guest.owes_ack(), OwedAck::Nothing);
    host.send(b"draw".to_vec()).unwrap();
    for frame in drain(&mut host) {
        guest.handle_frame(&frame).unwrap();
    }
    assert_eq!(guest.owes_ack(), OwedAck::MayWait);
    assert!(!guest.has_data_frame());
    assert_eq!(guest.poll_data_frame(), None, "no standalone ack among the data frames");
    // The answer carries the ack: the host's frame is acknowledged without an ack frame.
    guest.send(b"strip".to_vec()).unwrap();
    assert!(guest.has_data_frame());
    let answer = guest.poll_data_frame().expect("the answer");
    assert_eq!(guest.owes_ack(), OwedAck::Nothing);
    assert_eq!(guest.poll_ack(), None);
    host.handle_frame(&answer).unwrap();
    assert_eq!(host.unacked_frames(), 0);

    // A message in several frames: each is acknowledged at once, the sender's window counts bytes.
    host.set_max_frame_bytes(256);
    host.send(vec![3; 1000]).unwrap();
    let fragments = drain(&mut host);
    guest.handle_frame(&fragments[0]).unwrap();
    assert_eq!(guest.owes_ack(), OwedAck::Now);
    assert!(guest.poll_ack().is_some());
    for frame in &fragments[1..] {
        guest.handle_frame(frame).unwrap();
    }
    assert_eq!(guest.owes_ack(), OwedAck::MayWait, "the message is whole");
    assert!(guest.poll_ack().is_some());

    // Many lone messages: after sixteen frames the ack goes without waiting.
    for i in 0..16u8 {
        assert_ne!(guest.owes_ack(), OwedAck::Now, "{i} frames");
        host.send(vec![i]).unwrap();
        for frame in drain(&mut host) {
            guest.handle_frame(&frame).unwrap();
        }
    }
    assert_eq!(guest.owes_ack(), OwedAck::Now);
    assert_eq!(messages(&mut guest).len(), 18);
}

#[test]
fn a_message_longer_than_the_window_waits_for_acks() {
    let (mut host, mut guest) = established();
    host.set_max_frame_bytes(256);
    let big = vec![7u8; 300 * 256];
    host.send(big.clone()).unwrap();
    assert_eq!(drain(&mut host).len(), SEND_WINDOW_FRAMES as usize, "no more than the window before an ack");
    host.resend_unacked();
    assert_eq!(pump(&mut host, &mut guest), (Ok(()), Ok(())));
    assert_eq!(messages(&mut guest), vec![big]);
}

#[test]
fn an_oversized_reassembly_is_refused() {
    let (mut host, mut guest) = established();
    guest.set_max_message_bytes(1 << 20);
    host.send(vec![0; (1 << 20) + 1]).unwrap();
    let (rh, rg) = pump(&mut host, &mut guest);
    assert_eq!(rh, Ok(()));
    assert!(matches!(rg, Err(ChannelError::MessageTooLarge { limit: 1_048_576, .. })), "{rg:?}");
    assert_eq!(guest.poll_message(), None);
    // And a local message above the limit is refused before anything is sent.
    assert!(matches!(guest.send(vec![0; 17 << 20]), Err(ChannelError::MessageTooLarge { .. })));
}

#[test]
fn sending_too_large_a_message_is_refused_locally() {
    let (mut host, _) = established();
    assert!(matches!(host.send(vec![0; (16 << 20) + 1]), Err(ChannelError::MessageTooLarge { .. })));
    assert!(host.send(b"still usable".to_vec()).is_ok());
}

#[test]
fn debug_output_holds_no_secret() {
    let (mut host, _) = established();
    host.send(b"plaintext-marker".to_vec()).unwrap();
    let debug = format!("{host:?}");
    assert!(!debug.contains("purple") && !debug.contains("sausage") && !debug.contains("plaintext-marker"));
}

/// The relay's `rendezvous` proves the seat with a signature of the connection's challenge: no secret of the
/// channel (the seats' secrets, the keys) is in what the client sends, in any form.
#[test]
fn the_rendezvous_message_proves_the_seat_without_any_secret() {
    let (host, guest) = established();
    let saved = serde_json::to_value(host.saved_keys().unwrap()).unwrap();
    // Every 32-byte value of the save: the data keys, the confirmation value, both seats' secrets.
    let secrets: Vec<String> = saved
        .as_object()
        .unwrap()
        .values()
        .filter_map(|value| value.as_str().filter(|text| text.len() == 64).map(str::to_string))
        .collect();
    assert!(secrets.len() >= 4, "{saved}");
    let challenge = [5; CHALLENGE_BYTES];
    let mut rooms = Vec::new();
    for (channel, expected_seat) in [(&host, 0), (&guest, 1)] {
        let rendezvous = channel.rendezvous().unwrap();
        let message = rendezvous.message(&challenge, Some("fairdeck/test".into()));
        let json = serde_json::to_string(&message).unwrap();
        let debug = format!("{rendezvous:?}");
        for secret in &secrets {
            for form in [secret.clone(), secret.to_uppercase()] {
                assert!(!json.contains(&form) && !debug.contains(&form), "{json}");
            }
        }
        let ClientMessage::Rendezvous { room, seat, key, peer, proof, .. } = message else {
            panic!("not a rendezvous: {json}");
        };
        assert_eq!(seat, expected_seat);
        let meeting = Meeting { room: &room, seat, key: &key, peer: &peer, proof: &proof };
        assert_eq!(meeting.check(&challenge).map(hex::encode), Ok(room.clone()));
        assert_eq!(meeting.check(&[6; CHALLENGE_BYTES]), Err(MeetingRefusal::BadProof), "another connection");
        rooms.push((room, key, peer));
    }
    // Both sides find the same room, each with the other's key as its peer.
    assert_eq!(rooms[0].0, rooms[1].0);
    assert_eq!((&rooms[0].1, &rooms[0].2), (&rooms[1].2, &rooms[1].1));
}

fn frame_strategy() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..200),
        (1u8..=4, proptest::collection::vec(any::<u8>(), 0..120)).prop_map(|(t, mut v)| {
            v.insert(0, t);
            v
        }),
    ]
}

proptest! {
    #[test]
    fn random_bytes_never_panic(frames in proptest::collection::vec(frame_strategy(), 1..8)) {
        let (mut host, mut guest) = established();
        let mut fresh = Channel::new(Side::Guest, WORDS, NAMEPLATE, [3; 32]);
        for f in &frames {
            let _ = host.handle_frame(f);
            let _ = fresh.handle_frame(f);
        }
        while host.poll_frame().is_some() {}
        while fresh.poll_frame().is_some() {}
        // Established or not, garbage never delivers a message.
        prop_assert_eq!(host.poll_message(), None);
        prop_assert_eq!(fresh.poll_message(), None);
        let _ = guest.poll_frame();
    }

    #[test]
    fn mutated_genuine_frames_never_panic_nor_deliver_altered_data(
        byte in 0usize..64, value in any::<u8>(), cut in 0usize..64,
    ) {
        let (mut host, mut guest) = established();
        host.send(b"genuine message of some length, forty bytes".to_vec()).unwrap();
        let frame = host.poll_frame().unwrap();
        let mut bad = frame.clone();
        let i = byte % bad.len();
        bad[i] = value;
        bad.truncate(bad.len() - cut % bad.len());
        let result = guest.handle_frame(&bad);
        if bad != frame {
            prop_assert!(result.is_err());
            prop_assert_eq!(guest.poll_message(), None);
        }
    }
}

#[test]
fn a_host_restarts_its_key_exchange_for_the_next_guest_and_keeps_its_queued_messages() {
    let mut host = Channel::new(Side::Host, WORDS, NAMEPLATE, [1; 32]);
    host.send(b"hello from the host".to_vec()).unwrap();
    host.send(b"and its deck".to_vec()).unwrap();
    let mut wrong = Channel::new(Side::Guest, "purple-salami", NAMEPLATE, [2; 32]);
    let (host_result, wrong_result) = pump(&mut host, &mut wrong);
    assert_eq!((host_result, wrong_result), (Err(ChannelError::WrongCode), Err(ChannelError::WrongCode)));
    assert!(messages(&mut wrong).is_empty(), "nothing reached the wrong guest");

    // Under another nameplate, as the relay may give the reopened room.
    host.restart_handshake(WORDS, "8", [3; 32]);
    assert_eq!(host.error(), None);
    let mut guest = Channel::new(Side::Guest, WORDS, "8", [4; 32]);
    assert_eq!(pump(&mut host, &mut guest), (Ok(()), Ok(())));
    assert!(host.is_established() && guest.is_established());
    assert_eq!(messages(&mut guest), [b"hello from the host".to_vec(), b"and its deck".to_vec()]);
    guest.send(b"hi".to_vec()).unwrap();
    assert_eq!(pump(&mut host, &mut guest), (Ok(()), Ok(())));
    assert_eq!(messages(&mut host), [b"hi".to_vec()]);
}
