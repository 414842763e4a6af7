//! The engine on ristretto255, fed games the input scripts with rewritten messages of one
//! cheating player (`fairdeck_fuzz::table` says how, and what is checked). Decks of six library
//! cards of two backs and a sideboard card.
#![no_main]

use std::sync::OnceLock;

use fairdeck_fuzz::table::{Checkpoints, deck, run};
use fairdeck_shared::crypto::Ristretto255;
use libfuzzer_sys::fuzz_target;

fn checkpoints() -> &'static Checkpoints<Ristretto255> {
    static CHECKPOINTS: OnceLock<Checkpoints<Ristretto255>> = OnceLock::new();
    CHECKPOINTS.get_or_init(|| Checkpoints::new(deck("Host", 6, 2), deck("Guest", 6, 2)))
}

fuzz_target!(|data: &[u8]| run(checkpoints(), data));
