//! Two encrypted channels, handshaken honestly at the start of each run, over a relay the input
//! drives: each side sends messages (fragmented: frames are at most 256 bytes), and the relay
//! delivers frames in any order, duplicates them, drops them, loses everything on a
//! reconnection (after which both sides resend what is unacknowledged), and tampers with them
//! or forges its own. Only `Channel`'s public API is used.
//!
//! Checked, beyond no panic: every message delivered is the next one its peer sent (in order,
//! each once); an honest frame, however late or repeated, is never refused; a tampered frame is
//! refused, and delivers nothing; and once the relay behaves (a reconnection, then every frame
//! delivered in order), every message sent arrives.
#![no_main]

use fairdeck::channel::{Channel, Side};
use fairdeck_fuzz::Choices;
use libfuzzer_sys::fuzz_target;

const WORDS: &str = "purple-sausage";
/// The smallest frames the channel makes, so a message of a few hundred bytes spans several.
const FRAME_BYTES: usize = 256;
/// Messages one run may send.
const MAX_SENDS: usize = 64;

/// One player's end: its channel, the frames on their way from it, what it sent, and how many
/// of the peer's messages it was given.
struct End {
    channel: Channel,
    in_flight: Vec<Vec<u8>>,
    sent: Vec<Vec<u8>>,
    delivered: usize,
}

impl End {
    fn new(side: Side, seed: u8) -> Self {
        let mut channel = Channel::new(side, WORDS, "7", [seed; 32]);
        channel.set_max_frame_bytes(FRAME_BYTES);
        End { channel, in_flight: Vec::new(), sent: Vec::new(), delivered: 0 }
    }

    /// Everything the channel has to send goes to the relay.
    fn poll(&mut self) {
        while let Some(frame) = self.channel.poll_frame() {
            self.in_flight.push(frame);
        }
    }
}

/// Message `index` of `side`: distinct from every other message of both sides.
fn message(side: usize, index: usize, len: usize) -> Vec<u8> {
    let mut message = Vec::with_capacity(len + 5);
    message.push(side as u8);
    message.extend_from_slice(&(index as u32).to_be_bytes());
    message.extend((0..len).map(|i| (i + index) as u8));
    message
}

/// Hands `frame` to the end `to` and checks what it delivers against what the other end sent.
fn hand(ends: &mut [End; 2], to: usize, frame: &[u8]) -> bool {
    let from = 1 - to;
    let accepted = ends[to].channel.handle_frame(frame).is_ok();
    while let Some(delivered) = ends[to].channel.poll_message() {
        let index = ends[to].delivered;
        let expected = ends[from].sent.get(index);
        assert_eq!(Some(&delivered), expected, "message {index} delivered wrong");
        ends[to].delivered += 1;
    }
    accepted
}

/// Both ends, established by an honest exchange of handshake frames.
fn handshaken() -> [End; 2] {
    let mut ends = [End::new(Side::Host, 1), End::new(Side::Guest, 2)];
    while !ends.iter().all(|end| end.channel.is_established()) {
        for from in 0..2 {
            ends[from].poll();
            for frame in std::mem::take(&mut ends[from].in_flight) {
                assert!(hand(&mut ends, 1 - from, &frame), "the honest handshake failed");
            }
        }
    }
    ends
}

/// A changed copy of `frame`: one byte flipped, the frame cut short, or a byte added.
fn tampered(frame: &[u8], choices: &mut Choices) -> Vec<u8> {
    let mut frame = frame.to_vec();
    let at = usize::from(choices.u16()) % frame.len();
    match choices.below(3) {
        0 => frame[at] ^= choices.byte().max(1),
        1 => frame.truncate(at),
        _ => frame.insert(at, choices.byte()),
    }
    frame
}

fuzz_target!(|data: &[u8]| {
    let mut choices = Choices::new(data);
    let mut ends = handshaken();
    let mut sends = 0;
    while !choices.is_empty() {
        let from = choices.below(2);
        let to = 1 - from;
        match choices.below(9) {
            0 if sends < MAX_SENDS => {
                sends += 1;
                let message = message(from, ends[from].sent.len(), usize::from(choices.u16() % 700));
                ends[from].channel.send(message.clone()).expect("an established channel takes a message");
                ends[from].sent.push(message);
            }
            1 => ends[from].poll(),
            // Delivered, in any order: an honest frame is never refused.
            2 | 3 if !ends[from].in_flight.is_empty() => {
                let at = choices.below(ends[from].in_flight.len());
                let frame = ends[from].in_flight.remove(at);
                assert!(hand(&mut ends, to, &frame), "an honest frame was refused");
            }
            4 if !ends[from].in_flight.is_empty() => {
                let at = choices.below(ends[from].in_flight.len());
                let frame = ends[from].in_flight[at].clone();
                assert!(hand(&mut ends, to, &frame), "a repeated honest frame was refused");
            }
            5 if !ends[from].in_flight.is_empty() => {
                let at = choices.below(ends[from].in_flight.len());
                ends[from].in_flight.remove(at);
            }
            // A reconnection: whatever was on its way is lost, and both sides resend.
            6 => {
                for end in &mut ends {
                    end.in_flight.clear();
                    end.channel.resend_unacked();
                }
            }
            7 if !ends[from].in_flight.is_empty() => {
                let at = choices.below(ends[from].in_flight.len());
                let frame = tampered(&ends[from].in_flight[at], &mut choices);
                assert!(!hand(&mut ends, to, &frame), "a tampered frame was accepted");
                return;
            }
            8 => {
                let len = choices.below(64);
                let frame: Vec<u8> = (0..len).map(|_| choices.byte()).collect();
                if !hand(&mut ends, to, &frame) {
                    return;
                }
            }
            _ => {}
        }
    }
    // The relay behaves from now on: every message sent arrives.
    for end in &mut ends {
        end.in_flight.clear();
        end.channel.resend_unacked();
    }
    for _ in 0..64 {
        let mut moved = false;
        for from in 0..2 {
            ends[from].poll();
            for frame in std::mem::take(&mut ends[from].in_flight) {
                moved = true;
                assert!(hand(&mut ends, 1 - from, &frame), "an honest frame was refused");
            }
        }
        if !moved {
            break;
        }
    }
    for to in 0..2 {
        assert_eq!(ends[to].delivered, ends[1 - to].sent.len(), "messages were lost");
    }
});
