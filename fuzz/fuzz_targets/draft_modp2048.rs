//! Every limited format on modp2048, played to its end from the input's choices (`fairdeck_fuzz::draft`):
//! picks and passes in turn and out of it, messages in any order, draft messages a player's program made up.
#![no_main]

use std::sync::OnceLock;

use fairdeck_fuzz::draft::{Starts, run};
use fairdeck_shared::crypto::Modp2048;
use libfuzzer_sys::fuzz_target;

fn starts() -> &'static Starts<Modp2048> {
    static STARTS: OnceLock<Starts<Modp2048>> = OnceLock::new();
    STARTS.get_or_init(Starts::new)
}

fuzz_target!(|data: &[u8]| run(starts(), data));
