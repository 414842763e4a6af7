//! Every limited format played to its end from random choices (`pair::draft`): picks and passes in turn and out of
//! it, messages delivered in any order each direction allows, and now and then a draft message a player's program
//! made up. No program fails, honest play raises no alert, and every honest match ends with both decks audited and
//! both journals clean.
//!
//! `FAIRDECK_RANDOM_DRAFTS=N` plays N matches of each format on ristretto255 instead of the 6 of a test run.

use fairdeck_shared::crypto::{Group, Modp2048, Ristretto255};
use fairdeck_shared::pair::draft::{self, Chooser, Ending};
use proptest::prelude::*;

const SMALL_SET: &[u8] = include_bytes!("../../examples/pools/small-set.json");

/// Numbers from a list the property test drew; past its end, the run finishes honestly.
struct Drawn<'a> {
    numbers: &'a [u16],
}

impl Chooser for Drawn<'_> {
    fn below(&mut self, bound: usize) -> usize {
        match self.numbers.split_first() {
            Some((first, rest)) => {
                self.numbers = rest;
                usize::from(*first) % bound
            }
            None => 0,
        }
    }

    fn is_spent(&self) -> bool {
        self.numbers.is_empty()
    }
}

fn matches() -> u32 {
    std::env::var("FAIRDECK_RANDOM_DRAFTS").ok().and_then(|n| n.parse().ok()).unwrap_or(6)
}

fn play<G: Group>(format: usize, seed: u8, numbers: &[u16]) -> Ending {
    let config = draft::formats(SMALL_SET).swap_remove(format);
    draft::play::<G>(draft::start(config, seed), &mut Drawn { numbers })
}

fn every_format() -> std::ops::Range<usize> {
    0..draft::formats(SMALL_SET).len()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: matches(), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn every_format_ends_with_no_program_failing(
        seed in any::<u8>(),
        numbers in proptest::collection::vec(any::<u16>(), 0..400),
    ) {
        for format in every_format() {
            play::<Ristretto255>(format, seed, &numbers);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn every_format_ends_on_modp2048_too(
        seed in any::<u8>(),
        numbers in proptest::collection::vec(any::<u16>(), 0..200),
    ) {
        for format in every_format() {
            play::<Modp2048>(format, seed, &numbers);
        }
    }
}

#[test]
fn honest_matches_of_every_format_are_played_to_the_end() {
    for format in every_format() {
        assert_eq!(play::<Ristretto255>(format, 3, &[]), Ending::Played, "format {format}");
    }
}
