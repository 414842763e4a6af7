//! A play area in groups, so that an ordinary midgame fits an 80×24 screen: copies of one card in the same
//! state make one group (`Mountain ×3 (1 tapped)`), creatures come first where their kind is known, and lands
//! go last, in a compact row. A card with something of its own to show (counters, an attachment, an arrow, a
//! face-down card) stands alone, as it lies, with what is attached to it right under it.

use fairdeck_shared::table::CardId;

use super::card_book::{CardBook, Kind};
use super::table_view::PlayedCard;

/// One line of a play area: a card alone, or copies of a card grouped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry<'a> {
    /// The cards it stands for, as they lie (the first is the one its id names); one for a card alone.
    pub cards: Vec<&'a PlayedCard>,
    /// A card with state of its own, shown with its position and details.
    pub alone: bool,
    /// Where it sorts: a card attached to another sorts with its host.
    pub kind: Kind,
}

impl Entry<'_> {
    /// How many of its cards are tapped.
    pub fn tapped(&self) -> usize {
        self.cards.iter().filter(|card| card.tapped).count()
    }

    pub fn first(&self) -> CardId {
        self.cards[0].card.id
    }
}

/// A play area's cards in groups: the entries (creatures first, then the others, the lands that stand alone
/// last), then the land groups of the compact row.
pub fn group<'a>(cards: &'a [PlayedCard], book: &CardBook, has_arrows: impl Fn(CardId) -> bool) -> Vec<Entry<'a>> {
    let here = |id| cards.iter().any(|c| c.card.id == id);
    let hosts: Vec<&PlayedCard> = cards.iter().filter(|card| !card.attached_to.is_some_and(here)).collect();
    let mut order: Vec<&PlayedCard> = Vec::with_capacity(cards.len());
    for host in hosts {
        order.push(host);
        order.extend(cards.iter().filter(|c| c.attached_to == Some(host.card.id)));
    }
    // The engine attaches nothing to an attached card; were it so, that card still shows, last.
    let rest: Vec<&PlayedCard> = cards.iter().filter(|c| !order.iter().any(|o| o.card.id == c.card.id)).collect();
    order.extend(rest);
    let alone = |card: &PlayedCard| {
        card.face_down
            || card.card.name.is_none()
            || !card.counters.is_empty()
            || card.attached_to.is_some()
            || cards.iter().any(|c| c.attached_to == Some(card.card.id))
            || has_arrows(card.card.id)
    };
    let mut entries: Vec<Entry> = Vec::new();
    for card in order {
        let kind = match (card.attached_to.filter(|host| here(*host)), &card.card.name) {
            // With its host, whatever it is.
            (Some(_), _) => entries.last().map_or(Kind::Unknown, |host| host.kind),
            (None, _) if card.power_toughness.is_some() => Kind::Creature,
            (None, Some(name)) => book.kind(name),
            (None, None) => Kind::Unknown,
        };
        if alone(card) {
            entries.push(Entry { cards: vec![card], alone: true, kind });
        } else if let Some(entry) = entries.iter_mut().find(|entry| !entry.alone && same(entry.cards[0], card)) {
            entry.cards.push(card);
        } else {
            entries.push(Entry { cards: vec![card], alone: false, kind });
        }
    }
    // Unknown kinds keep their place among the known others: without a database, the board is as it lies.
    entries.sort_by_key(|entry| match entry.kind {
        Kind::Creature => 0,
        Kind::Other | Kind::Unknown => 1,
        Kind::Land if entry.alone => 2,
        Kind::Land => 3,
    });
    entries
}

/// Whether two cards show the same: one name, one power and toughness.
fn same(a: &PlayedCard, b: &PlayedCard) -> bool {
    a.card.name == b.card.name && a.power_toughness == b.power_toughness
}

/// Whether `entry` goes in the compact row of lands.
pub fn in_land_row(entry: &Entry) -> bool {
    entry.kind == Kind::Land && !entry.alone
}

#[cfg(test)]
mod tests {
    use fairdeck_shared::table::PowerToughness;

    use super::*;
    use crate::ui::table_view::CardView;

    fn card(id: u32, name: &str, tapped: bool) -> PlayedCard {
        PlayedCard {
            card: CardView { id: CardId(id), name: Some(name.to_string()) },
            x: 0,
            y: 0,
            face_down: false,
            tapped,
            counters: Vec::new(),
            attached_to: None,
            power_toughness: None,
        }
    }

    fn shown(entries: &[Entry]) -> Vec<(u32, usize, usize)> {
        entries.iter().map(|e| (e.first().0, e.cards.len(), e.tapped())).collect()
    }

    #[test]
    fn copies_group_and_cards_with_state_of_their_own_stand_alone() {
        let mut cards = vec![
            card(1, "Mountain", false),
            card(2, "Goblin Guide", true),
            card(3, "Mountain", true),
            card(4, "Goblin Guide", false),
            card(5, "Mountain", false),
            card(6, "Goblin Guide", false),
            card(7, "Rancor", false),
        ];
        cards[5].counters.push(("+1/+1".into(), 1));
        cards[6].attached_to = Some(CardId(4));
        let book = CardBook::new(None);
        let entries = group(&cards, &book, |_| false);
        // Without a database: as they lie, the host with its aura under it, and basic lands last in a group.
        assert_eq!(shown(&entries), [(2, 1, 1), (4, 1, 0), (7, 1, 0), (6, 1, 0), (1, 3, 1)]);
        assert!(in_land_row(&entries[4]) && !entries[..4].iter().any(in_land_row));
        // An arrow sets a card apart too.
        let entries = group(&cards[..2], &book, |id| id == CardId(2));
        assert!(entries[0].alone);
    }

    #[test]
    fn creatures_come_first_when_their_kind_is_known() {
        let cards = [card(1, "Relic", false), card(2, "Goblin", false), card(3, "Relic", false)];
        let mut book = CardBook::new(None);
        assert_eq!(shown(&group(&cards, &book, |_| false)), [(1, 2, 0), (2, 1, 0)]);
        book.learn(["Relic", "Goblin"].into_iter());
        let mut token = cards.clone();
        // A token with power and toughness is a creature, database or not.
        token[1].power_toughness = Some(PowerToughness { power: 1, toughness: 1 });
        assert_eq!(shown(&group(&token, &book, |_| false)), [(2, 1, 0), (1, 2, 0)]);
    }
}
