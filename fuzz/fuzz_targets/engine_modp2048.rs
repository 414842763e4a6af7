//! The engine on modp2048, as `engine_ristretto255` on ristretto255, with decks of three library
//! cards of two backs and a sideboard card: each element costs a 2048-bit exponentiation.
#![no_main]

use std::sync::OnceLock;

use fairdeck_fuzz::table::{Checkpoints, deck, run};
use fairdeck_shared::crypto::Modp2048;
use libfuzzer_sys::fuzz_target;

fn checkpoints() -> &'static Checkpoints<Modp2048> {
    static CHECKPOINTS: OnceLock<Checkpoints<Modp2048>> = OnceLock::new();
    CHECKPOINTS.get_or_init(|| Checkpoints::new(deck("Host", 3, 1), deck("Guest", 3, 1)))
}

fuzz_target!(|data: &[u8]| run(checkpoints(), data));
