//! Commands on one card or one of the player's values: an action on a card named by id or by name (`tap 3`,
//! `reveal Bolt`), `life`, `poison` and the like, and a new `token`. They wait for the set-up.

use fairdeck_shared::crypto::{CardInstance, Group};
use fairdeck_shared::engine::Intent;
use fairdeck_shared::table::{Placement, PowerToughness, ZoneId, ZoneKind};
use fairdeck_shared::wire::Action;
use rand::Rng;

use crate::command::{Amount, CardAct, CardRef, Gate};
use crate::session::state::SessionCore;

pub(super) const GATE: Gate = Gate::SetUp;

/// An action on one card: the card is found on the table as it stands, right before acting.
pub(super) fn on_card<G: Group>(core: &mut SessionCore<G>, card: &CardRef, act: &CardAct, line: &str) {
    let engine = &core.engine;
    match act.find(engine, card).and_then(|card| act.action(engine, card)) {
        Ok(action) => {
            core.intent(Intent::Act(action), line);
        }
        Err(error) => core.refuse(error.kind(), line, error.to_string()),
    }
}

/// `life`, `poison` and the like: a change is from the value on the table now, what both players see.
pub(super) fn player_value<G: Group>(core: &mut SessionCore<G>, key: String, amount: Amount, line: &str) {
    let seat = core.engine.seat();
    let current = core.engine.table().player(seat).values.get(&key).copied().unwrap_or(0);
    core.intent(Intent::Act(Action::SetPlayerValue { value: amount.apply(current), key }), line);
}

/// `token`: a new card of the player's in its play area.
pub(super) fn token<G: Group>(
    core: &mut SessionCore<G>,
    name: String,
    power_toughness: Option<PowerToughness>,
    placement: Placement,
    line: &str,
) {
    // A fresh nonce keeps two tokens of one name distinct cards.
    let mut nonce = [0; 16];
    core.rng.fill_bytes(&mut nonce);
    let seat = core.engine.seat();
    let card = CardInstance { owner: seat, nonce, name, back: 0 };
    let to = ZoneId::new(seat, ZoneKind::Play);
    core.intent(Intent::Act(Action::AddCard { card, to, placement, power_toughness }), line);
}
