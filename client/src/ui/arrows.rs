//! The arrows on the table. An arrow leaves nothing on the engine's table (it is its `Applied` event), so
//! the screen keeps it, as Cockatrice does, until the phase or the turn changes, or a card it joins leaves
//! play.

use fairdeck_shared::engine::Event;
use fairdeck_shared::table::{CardId, ZoneKind};
use fairdeck_shared::wire::{Action, ArrowTarget};

use super::table_view::{Side, TableSource};

/// What an arrow points at, as this player sees the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    Card(CardId),
    Player(Side),
}

/// The arrows drawn and not yet gone, oldest first.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Arrows(Vec<(CardId, Target)>);

impl Arrows {
    /// Takes in one event; `engine` is the table after it.
    pub fn follow(&mut self, event: &Event, engine: &impl TableSource) {
        match event {
            Event::Applied { action: Action::Arrow { from, to }, .. } => {
                let to = match to {
                    ArrowTarget::Card(card) => Target::Card(*card),
                    ArrowTarget::Player(seat) if *seat == engine.seat() => Target::Player(Side::Mine),
                    ArrowTarget::Player(_) => Target::Player(Side::Opponent),
                };
                self.0.push((*from, to));
            }
            Event::Applied { action: Action::SetPhase { .. } | Action::NextTurn, .. } | Event::NewGame { .. } => {
                self.0.clear();
            }
            _ => {}
        }
        let in_play = |card| engine.table().card(card).is_some_and(|card| card.zone.kind == ZoneKind::Play);
        self.0.retain(|(from, to)| {
            in_play(*from)
                && match to {
                    Target::Card(card) => in_play(*card),
                    Target::Player(_) => true,
                }
        });
    }

    /// What the arrows from `card` point at, oldest first.
    pub fn from(&self, card: CardId) -> impl Iterator<Item = Target> + '_ {
        self.0.iter().filter(move |(from, _)| *from == card).map(|(_, to)| *to)
    }
}

#[cfg(test)]
mod tests {
    use fairdeck_shared::Seat;
    use fairdeck_shared::crypto::Ristretto255;
    use fairdeck_shared::engine::Intent;
    use fairdeck_shared::pair::{Pair, numbered_deck};
    use fairdeck_shared::table::{Placement, Position, ZoneId};

    use super::*;

    /// Runs `action` for `seat` and feeds the host's new events to `arrows`.
    fn act(pair: &mut Pair<Ristretto255>, arrows: &mut Arrows, seat: Seat, action: Action) {
        let seen = pair.host_events.len();
        pair.intent(seat, Intent::Act(action)).expect("a legal action");
        pair.drive();
        for event in &pair.host_events[seen..] {
            arrows.follow(event, &pair.host);
        }
    }

    fn play(pair: &mut Pair<Ristretto255>, arrows: &mut Arrows, seat: Seat, card: CardId) {
        let to = ZoneId::new(seat, ZoneKind::Play);
        act(pair, arrows, seat, Action::Move { card, to, position: Position::Top, placement: Placement::default() });
    }

    #[test]
    fn an_arrow_stays_until_the_phase_changes_or_its_card_leaves_play() {
        let mut pair = Pair::<Ristretto255>::new(numbered_deck("Host", 10, 0), numbered_deck("Guest", 10, 0), 3);
        pair.drive();
        let mut arrows = Arrows::default();
        act(&mut pair, &mut arrows, Seat::HOST, Action::Draw { count: 3 });
        act(&mut pair, &mut arrows, Seat::GUEST, Action::Draw { count: 1 });
        let mine = pair.host.table().zone(ZoneId::hand(Seat::HOST)).to_vec();
        let theirs = pair.guest.table().zone(ZoneId::hand(Seat::GUEST))[0];
        for card in &mine {
            play(&mut pair, &mut arrows, Seat::HOST, *card);
        }
        play(&mut pair, &mut arrows, Seat::GUEST, theirs);

        let (at_card, at_player) = (Target::Card(theirs), Target::Player(Side::Opponent));
        let arrow = |from, to| Action::Arrow { from, to };
        act(&mut pair, &mut arrows, Seat::HOST, arrow(mine[0], ArrowTarget::Card(theirs)));
        act(&mut pair, &mut arrows, Seat::HOST, arrow(mine[0], ArrowTarget::Player(Seat::GUEST)));
        act(&mut pair, &mut arrows, Seat::GUEST, arrow(theirs, ArrowTarget::Card(mine[1])));
        act(&mut pair, &mut arrows, Seat::GUEST, arrow(theirs, ArrowTarget::Player(Seat::HOST)));
        assert_eq!(arrows.from(mine[0]).collect::<Vec<_>>(), [at_card, at_player]);
        assert_eq!(arrows.from(theirs).collect::<Vec<_>>(), [Target::Card(mine[1]), Target::Player(Side::Mine)]);
        assert_eq!(arrows.from(mine[2]).count(), 0);

        // The target leaves play: the arrows to it go, the one to the player stays.
        let graveyard = ZoneId::new(Seat::GUEST, ZoneKind::Graveyard);
        let to_graveyard =
            Action::Move { card: theirs, to: graveyard, position: Position::Top, placement: Placement::default() };
        act(&mut pair, &mut arrows, Seat::GUEST, to_graveyard);
        assert_eq!(arrows.from(mine[0]).collect::<Vec<_>>(), [at_player]);
        assert_eq!(arrows.from(theirs).count(), 0);

        // A new phase clears the table of arrows.
        act(&mut pair, &mut arrows, Seat::HOST, Action::SetPhase { phase: "combat".into() });
        assert_eq!(arrows, Arrows::default());
    }
}
