//! Any bytes as a received envelope: decoding never panics, and what decodes encodes back to
//! the same envelope.
#![no_main]

use fairdeck_shared::wire;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(envelope) = wire::decode_envelope(data) {
        let again = wire::decode_envelope(&wire::encode_envelope(&envelope)).expect("an encoded envelope decodes");
        assert_eq!(again, envelope);
    }
});
