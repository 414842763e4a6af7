// Checks shared by the engine tests (included with `include!`, so each test crate gets its own copy).

use fairdeck_shared::crypto::Group;
use fairdeck_shared::engine::Event;
use fairdeck_shared::pair::Pair;
use fairdeck_shared::Seat;

/// Both engines hold the same public table, its invariants hold, and every identity an
/// engine holds is one the table says it was given, and the true one.
pub fn assert_consistent<G: Group>(pair: &Pair<G>) {
    assert_eq!(pair.host.table(), pair.guest.table(), "the two tables differ");
    pair.host.table().check_invariants().unwrap();
    for seat in Seat::BOTH {
        let engine = pair.engine(seat);
        for card in engine.table().cards() {
            let known = engine.identity(card.id);
            assert_eq!(known.is_some(), card.known_to.knows(seat), "{seat:?} and card {}: {:?}", card.id, card.known_to);
            if let (Some(instance), Some(truth)) = (known, pair.engine(card.owner).identity(card.id)) {
                assert_eq!(instance, truth);
            }
        }
    }    // In the same game, with nothing under way, both engines name the same player to choose to play or draw.
    let settled = |seat: Seat| pair.engine(seat).is_ready() && !pair.engine(seat).is_busy();
    if pair.host.game_id() == pair.guest.game_id() && Seat::BOTH.into_iter().all(settled) {
        assert_eq!(pair.host.chooser(), pair.guest.chooser(), "the two engines differ on who chooses");
    }
}

/// The alerts of `seat` that stop a game.
pub fn misbehaviour<G: Group>(pair: &Pair<G>, seat: Seat) -> Vec<String> {
    pair.events(seat)
        .iter()
        .filter_map(|e| match e {
            Event::Alert(alert) if alert.kind.is_misbehaviour() => Some(format!("{}: {}", alert.kind, alert.detail)),
            _ => None,
        })
        .collect()
}
