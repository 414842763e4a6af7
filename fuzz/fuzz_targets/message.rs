//! Any bytes as a message body, in either suite (the first byte picks it): reading its kind and
//! decoding it (every group element validated) never panic, and what decodes encodes back to
//! the same message (compared as encoded).
#![no_main]

use fairdeck_shared::crypto::{Group, Modp2048, Ristretto255};
use fairdeck_shared::wire;
use libfuzzer_sys::fuzz_target;

fn round_trip<G: Group>(body: &[u8]) {
    let _ = wire::peek_kind(body);
    if let Ok(message) = wire::decode_body::<G>(body) {
        let encoded = wire::encode_body(&message);
        let again = wire::decode_body::<G>(&encoded).expect("an encoded message decodes");
        assert_eq!(wire::encode_body(&again), encoded);
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&suite, body)) = data.split_first() else { return };
    if suite % 2 == 0 {
        round_trip::<Ristretto255>(body);
    } else {
        round_trip::<Modp2048>(body);
    }
});
