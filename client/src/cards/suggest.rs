//! "Did you mean Goblin Guide?": the real names nearest to a mistyped one.

/// The most names suggested.
const MAX_SUGGESTIONS: usize = 3;

/// The edit distance between `a` and `b` in characters: insertions, deletions, substitutions and swaps of two
/// neighbours (the commonest typo) each count one.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // Three rows of the classic table, reused: two back for a swap, the last, and the one being filled.
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut last: Vec<usize> = (0..=b.len()).collect();
    let mut row: Vec<usize> = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        row[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            row[j] = (last[j] + 1).min(row[j - 1] + 1).min(last[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                row[j] = row[j].min(before[j - 2] + 1);
            }
        }
        std::mem::swap(&mut before, &mut last);
        std::mem::swap(&mut last, &mut row);
    }
    last[b.len()]
}

/// Up to three of `names` nearest to `wanted` (compared in lowercase), nearest first: those within a few edits
/// (one for a short name, up to three for a long one), then those that begin with what was typed
/// (`krenko` finds `Krenko, Mob Boss`).
pub fn nearest<'a>(wanted: &str, names: impl Iterator<Item = &'a str>) -> Vec<String> {
    let wanted = wanted.trim().to_lowercase();
    let length = wanted.chars().count();
    let allowed = (length / 4).clamp(1, 3);
    let mut found: Vec<(usize, &str)> = names
        .filter_map(|name| {
            let lower = name.to_lowercase();
            let begins = length >= 4 && lower.starts_with(&wanted);
            // Names far longer or shorter cannot be near: skip the table for them.
            if lower.chars().count().abs_diff(length) > allowed {
                return begins.then_some((allowed + 1, name));
            }
            let distance = edit_distance(&wanted, &lower);
            if distance <= allowed { Some((distance, name)) } else { begins.then_some((allowed + 1, name)) }
        })
        .collect();
    found.sort();
    found.dedup_by(|a, b| a.1 == b.1);
    found.into_iter().take(MAX_SUGGESTIONS).map(|(_, name)| name.to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(edit_distance("", ""), 0);
        assert_eq!(edit_distance("bolt", ""), 4);
        assert_eq!(edit_distance("", "bolt"), 4);
        assert_eq!(edit_distance("goblin guide", "goblin guide"), 0);
        assert_eq!(edit_distance("goblin gide", "goblin guide"), 1);
        assert_eq!(edit_distance("lightning blot", "lightning bolt"), 1);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("æther vial", "aether vial"), 2);
    }

    #[test]
    fn nearest_names_first_and_only_near_ones() {
        let names = ["Goblin Guide", "Goblin Bushwhacker", "Lightning Bolt", "Lightning Helix", "Krenko, Mob Boss"];
        let near = |wanted: &str| nearest(wanted, names.into_iter());
        assert_eq!(near("Goblin Gide"), ["Goblin Guide"]);
        assert_eq!(near("lightning blot"), ["Lightning Bolt"]);
        assert_eq!(near("krenko"), ["Krenko, Mob Boss"]);
        assert_eq!(near("Goblin"), ["Goblin Bushwhacker", "Goblin Guide"]);
        assert_eq!(near("Counterspell"), Vec::<String>::new());
        assert_eq!(near("bolt"), Vec::<String>::new());
    }
}
