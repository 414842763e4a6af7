//! Any text as a deck file of any format (the first byte picks the file name, and with it the
//! reader): parsing never panics, and a deck that parses hashes and converts.
#![no_main]

use libfuzzer_sys::fuzz_target;

const NAMES: [&str; 7] = ["deck.cod", "deck.dek", "deck.dec", "deck.mwdeck", "deck.dck", "deck.txt", "deck"];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, text)) = data.split_first() else { return };
    let text = String::from_utf8_lossy(text);
    if let Ok(deck) = fairdeck::deck::parse_deck(NAMES[usize::from(pick) % NAMES.len()], &text) {
        let _ = fairdeck::deck::cockatrice_hash(&deck);
        let _ = deck.to_deck_list();
    }
});
