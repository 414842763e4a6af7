//! The limited-play harness both suites' draft targets run: every format of `fairdeck_shared::pair::draft`, from a
//! fresh table or from the point where both players shuffled the stack, played to its end by the input's choices
//! (`draft::play` says what is checked).

use fairdeck_shared::crypto::Group;
use fairdeck_shared::pair::Pair;
use fairdeck_shared::pair::draft::{self, Chooser};

use crate::Choices;

const SMALL_SET: &[u8] = include_bytes!("../../examples/pools/small-set.json");
/// The host's engine gets `[SEED; 32]`, the guest's `[SEED + 1; 32]`.
const SEED: u8 = 11;

/// Each format's match, fresh and with its stack shuffled by both, made once.
pub struct Starts<G: Group> {
    pairs: Vec<Pair<G>>,
}

impl<G: Group> Starts<G> {
    pub fn new() -> Self {
        let mut pairs = Vec::new();
        for config in draft::formats(SMALL_SET) {
            let mut pair = draft::start::<G>(config, SEED);
            pairs.push(pair.clone());
            pair.drive();
            pairs.push(pair);
        }
        Starts { pairs }
    }
}

impl<G: Group> Default for Starts<G> {
    fn default() -> Self {
        Self::new()
    }
}

impl Chooser for Choices<'_> {
    fn below(&mut self, bound: usize) -> usize {
        Choices::below(self, bound)
    }

    fn is_spent(&self) -> bool {
        self.is_empty()
    }
}

/// One run: a start, then the match played from the input's choices.
pub fn run<G: Group>(starts: &Starts<G>, data: &[u8]) {
    let mut choices = Choices::new(data);
    let pair = starts.pairs[Choices::below(&mut choices, starts.pairs.len())].clone();
    draft::play(pair, &mut choices);
}
