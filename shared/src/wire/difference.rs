//! How a later game's deck differs from its owner's deck in the match's first game (the match's "75").

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

/// A deck's cards counted by name: library, sideboard and commanders together, so that moving cards between
/// library and sideboard (sideboarding) leaves the counts as they were.
pub type CardCounts = BTreeMap<String, u32>;

/// Counts `names`, one per card.
pub fn card_counts<'a>(names: impl IntoIterator<Item = &'a str>) -> CardCounts {
    let mut counts = CardCounts::new();
    for name in names {
        *counts.entry(name.to_owned()).or_default() += 1;
    }
    counts
}

/// What a deck has more and fewer of than its owner's deck in the match's first game, by name. Each list is in
/// ascending name order, each name once with a count of at least one, and no name is in both: one difference has
/// one form, so two engines' differences compare as values.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeckDifference {
    /// (count, name) of each card the deck has more of.
    pub added: Vec<(u32, String)>,
    /// (count, name) of each card the deck has fewer of.
    pub removed: Vec<(u32, String)>,
}

impl DeckDifference {
    /// From the first game's counts to `now`'s.
    pub fn between(first: &CardCounts, now: &CardCounts) -> Self {
        let more = |a: &CardCounts, b: &CardCounts| -> Vec<(u32, String)> {
            a.iter()
                .filter_map(|(name, &count)| {
                    let extra = count.saturating_sub(b.get(name).copied().unwrap_or(0));
                    (extra > 0).then(|| (extra, name.clone()))
                })
                .collect()
        };
        DeckDifference { added: more(now, first), removed: more(first, now) }
    }

    /// The same cards as in the first game.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty()
    }

    /// Whether this is the one form `between` gives: names ascending and distinct within each list, counts of at
    /// least one, no name in both lists.
    pub fn is_canonical(&self) -> bool {
        let ordered = |list: &[(u32, String)]| {
            list.iter().all(|(count, _)| *count > 0) && list.windows(2).all(|pair| pair[0].1 < pair[1].1)
        };
        let added: BTreeSet<&str> = self.added.iter().map(|(_, name)| name.as_str()).collect();
        ordered(&self.added) && ordered(&self.removed) && !self.removed.iter().any(|(_, name)| added.contains(&**name))
    }

    /// How many cards each list counts, in all.
    pub fn totals(&self) -> (u64, u64) {
        let total = |list: &[(u32, String)]| list.iter().map(|(count, _)| u64::from(*count)).sum();
        (total(&self.added), total(&self.removed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moved_cards_make_no_difference_and_a_swap_is_one_each_way() {
        let first = card_counts(["Lightning Bolt", "Lightning Bolt", "Mountain", "Shock"]);
        assert!(DeckDifference::between(&first, &first.clone()).is_empty());
        let now = card_counts(["Lightning Bolt", "Mountain", "Shock", "Shock", "Smash"]);
        let difference = DeckDifference::between(&first, &now);
        assert_eq!(
            difference,
            DeckDifference {
                added: vec![(1, "Shock".into()), (1, "Smash".into())],
                removed: vec![(1, "Lightning Bolt".into())],
            }
        );
        assert!(difference.is_canonical());
        assert_eq!(difference.totals(), (2, 1));
    }

    #[test]
    fn only_the_one_form_is_canonical() {
        let entry = |count: u32, name: &str| (count, name.to_owned());
        let canonical = |added: Vec<(u32, String)>, removed| DeckDifference { added, removed }.is_canonical();
        assert!(canonical(vec![entry(1, "A"), entry(2, "B")], vec![entry(1, "C")]));
        assert!(!canonical(vec![entry(2, "B"), entry(1, "A")], vec![]), "out of order");
        assert!(!canonical(vec![entry(1, "A"), entry(1, "A")], vec![]), "a name twice");
        assert!(!canonical(vec![entry(0, "A")], vec![]), "a count of zero");
        assert!(!canonical(vec![entry(1, "A")], vec![entry(1, "A")]), "a name both ways");
    }
}
