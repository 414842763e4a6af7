//! Where the log last saw each card. An engine event comes after the engine applied it, and may come
//! after later actions too (the session hands over the events of every message that arrived at once), so
//! the zone a card left is known only from what the log kept.

use std::collections::HashMap;

use fairdeck_shared::crypto::Group;
use fairdeck_shared::engine::{Engine, Event};
use fairdeck_shared::table::{CardId, ZoneId, ZoneKind};
use fairdeck_shared::wire::Action;

/// Where a card lies, as far as the log's words need it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place {
    pub zone: ZoneId,
    /// Face down in a play area.
    pub face_down: bool,
}

/// Every card's place as of the last event told.
#[derive(Clone, Debug, Default)]
pub struct Places {
    cards: HashMap<CardId, Place>,
    /// The number of the next action of the game to be told: while the engine has applied more, its table
    /// is ahead of the events and says nothing of where a card was.
    told: u64,
}

impl Places {
    /// Where `card` was as of the last event told; `None` when the log cannot know.
    pub fn get(&self, card: CardId) -> Option<Place> {
        self.cards.get(&card).copied()
    }

    /// Follows an event that was just told.
    pub fn follow<G: Group>(&mut self, event: &Event, engine: &Engine<G>) {
        match event {
            Event::NewGame { .. } => {
                self.cards.clear();
                self.told = 0;
            }
            Event::Applied { number, by, action, .. } => {
                self.told = number + 1;
                match action {
                    Action::Move { card, to, placement, .. } => {
                        let face_down = to.kind == ZoneKind::Play && placement.face_down;
                        self.cards.insert(*card, Place { zone: *to, face_down });
                    }
                    // Cards that moved unnamed: which ones, only a table as of this action tells. Until
                    // the log catches up with the engine, their zones are unknown rather than wrong.
                    Action::Draw { .. } | Action::Mulligan { .. } => {
                        self.forget(&[ZoneId::library(*by), ZoneId::hand(*by)]);
                    }
                    Action::TakeFromLibrary { .. } => {
                        self.forget(&[ZoneId::library(by.opponent()), ZoneId::hand(*by)]);
                    }
                    Action::AddCard { card, to, placement, .. } => {
                        if let Some(id) = self.new_token(engine, &card.name, *to) {
                            let face_down = to.kind == ZoneKind::Play && placement.face_down;
                            self.cards.insert(id, Place { zone: *to, face_down });
                        }
                    }
                    _ => {}
                }
            }
            _ => {}
        }
        self.catch_up(engine);
    }

    /// The id of the token named `name` just created in `zone`: of the cards there the log has not placed
    /// yet, the one of that name with the lowest id (ids grow, and each token told is placed). `None` when
    /// the engine is ahead and the token has moved on.
    pub fn new_token<G: Group>(&self, engine: &Engine<G>, name: &str, zone: ZoneId) -> Option<CardId> {
        let unplaced = |id: &&CardId| !self.cards.contains_key(id);
        let named = |id: &&CardId| engine.identity(**id).is_some_and(|card| card.name == name);
        engine.table().zone(zone).iter().filter(unplaced).filter(named).min().copied()
    }

    /// After a restored game: the engine's table is where the game stands, and no action is left untold.
    pub fn restart<G: Group>(&mut self, engine: &Engine<G>) {
        self.told = engine.actions_applied();
        self.catch_up(engine);
    }

    /// Takes every card's place from the engine's table, when the log has told every action it applied.
    fn catch_up<G: Group>(&mut self, engine: &Engine<G>) {
        if engine.actions_applied() != self.told {
            return;
        }
        self.cards.clear();
        for card in engine.table().cards() {
            let face_down = card.zone.kind == ZoneKind::Play && card.placement.face_down;
            self.cards.insert(card.id, Place { zone: card.zone, face_down });
        }
    }

    fn forget(&mut self, zones: &[ZoneId]) {
        self.cards.retain(|_, place| !zones.contains(&place.zone));
    }
}
