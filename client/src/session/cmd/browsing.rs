//! Searching, scrying and surveilling (`search`, `scry`, `take`, `top`, `bottom`, …), revealing the hand or the
//! top card, and keeping the top card watched; their effects are `browse.rs`'s and `top_card.rs`'s.

use fairdeck_shared::crypto::Group;

use crate::command::{self, CardRef, Gate, Placing};
use crate::session::state::SessionCore;

/// Cards named in the library, or taken from its top, once the peeks under way are answered.
pub(super) const GATE: Gate = Gate::Settled;
/// `always-look`, `always-reveal`: once the set-up is done.
pub(super) const TOP_WATCH_GATE: Gate = Gate::SetUp;

/// `top`, `bottom`, `graveyard`: the cards of the scry or surveil open; with none open, `bottom` puts the London
/// mulligan's cards from the hand.
pub(super) fn place<G: Group>(core: &mut SessionCore<G>, placing: Placing, cards: &[CardRef], line: &str) {
    if placing != Placing::Bottom || core.browsing.is_some() {
        return core.place_browsed(placing, cards, line);
    }
    match command::hand_to_bottom(&core.engine, cards) {
        Ok(actions) => {
            core.intents(actions, line);
        }
        Err((kind, message)) => core.refuse(kind, line, message),
    }
}
