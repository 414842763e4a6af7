//! Any frames (each a 2-byte big-endian length, then its bytes) fed to the encrypted channel, both
//! during the handshake and once it is established: nothing panics, and whatever the channel
//! delivers or sends afterwards is drained without panicking either.
#![no_main]

use std::sync::OnceLock;

use fairdeck::channel::{Channel, Progress, SavedKeys, Side};
use libfuzzer_sys::fuzz_target;

const WORDS: &str = "purple-sausage";

/// The keys and progress of an established guest channel, to restore one per input (no key
/// exchange per run).
fn established() -> &'static (SavedKeys, Progress) {
    static ESTABLISHED: OnceLock<(SavedKeys, Progress)> = OnceLock::new();
    ESTABLISHED.get_or_init(|| {
        let mut host = Channel::new(Side::Host, WORDS, "7", [1; 32]);
        let mut guest = Channel::new(Side::Guest, WORDS, "7", [2; 32]);
        host.send(b"hello".to_vec()).expect("a small message");
        for _ in 0..16 {
            let to_guest: Vec<Vec<u8>> = std::iter::from_fn(|| host.poll_frame()).collect();
            let to_host: Vec<Vec<u8>> = std::iter::from_fn(|| guest.poll_frame()).collect();
            for frame in to_guest {
                guest.handle_frame(&frame).expect("honest frames");
            }
            for frame in to_host {
                host.handle_frame(&frame).expect("honest frames");
            }
        }
        assert!(guest.is_established());
        (guest.saved_keys().expect("established"), guest.progress())
    })
}

fn frames(mut data: &[u8]) -> Vec<&[u8]> {
    let mut frames = Vec::new();
    while let [high, low, rest @ ..] = data {
        let len = usize::from(u16::from_be_bytes([*high, *low])).min(rest.len());
        frames.push(&rest[..len]);
        data = &rest[len..];
    }
    frames
}

fn feed(channel: &mut Channel, frames: &[&[u8]]) {
    for frame in frames {
        if channel.handle_frame(frame).is_err() {
            break;
        }
        while channel.poll_message().is_some() {}
        while channel.poll_frame().is_some() {}
    }
}

fuzz_target!(|data: &[u8]| {
    let frames = frames(data);
    feed(&mut Channel::new(Side::Host, WORDS, "7", [3; 32]), &frames);
    let (keys, progress) = established();
    feed(&mut Channel::restore(keys, *progress, Vec::new(), Vec::new()), &frames);
});
