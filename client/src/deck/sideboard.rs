//! Sideboarding at the table: `sideboard in 2 Kor Firewalker out 2 Lava Spike` trades cards between the main deck
//! and the sideboard for the next game, without a deck file. The cards stay the match's 75, so the next game's deck
//! is not a changed deck (`CHANGED DECK` is for a deck off the 75); its hash changes, as in Cockatrice.

use fairdeck_shared::engine::{DeckCard, DeckList};

use super::{Deck, DeckEntry, cockatrice_hash};

/// Cards to bring in from the sideboard and to take out of the main deck, as typed: `(count, name)`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Swap {
    pub cards_in: Vec<(u32, String)>,
    pub cards_out: Vec<(u32, String)>,
}

/// Reads `in [N] NAME … out [N] NAME …`, each part as often as wanted, in any order. A name holding the word `in`
/// or `out` is quoted (`in "Trapped in the Tower"`).
pub fn parse_swap(text: &str) -> Result<Swap, String> {
    let mut swap = Swap::default();
    let mut words = words(text)?.into_iter().peekable();
    while let Some((word, quoted)) = words.next() {
        let side = match word.to_lowercase().as_str() {
            "in" if !quoted => &mut swap.cards_in,
            "out" if !quoted => &mut swap.cards_out,
            _ => return Err(format!("expected `in` or `out` before {word:?}")),
        };
        let count = match words.peek() {
            Some((n, false)) if n.chars().all(|c| c.is_ascii_digit()) => {
                let count = n.parse::<u32>().ok().filter(|&n| n > 0).ok_or("a count of 1 or more")?;
                words.next();
                count
            }
            _ => 1,
        };
        let mut name = Vec::new();
        while let Some((next, quoted)) = words.peek() {
            if !quoted && (next.eq_ignore_ascii_case("in") || next.eq_ignore_ascii_case("out")) {
                break;
            }
            name.push(next.clone());
            words.next();
        }
        if name.is_empty() {
            return Err(format!("expected a card name after `{word}`"));
        }
        side.push((count, name.join(" ")));
    }
    if swap.cards_in.is_empty() && swap.cards_out.is_empty() {
        return Err("expected `in CARD` or `out CARD`".into());
    }
    Ok(swap)
}

/// The line's words, each with whether it was quoted; a quoted name is one word.
fn words(text: &str) -> Result<Vec<(String, bool)>, String> {
    let mut words = Vec::new();
    let mut rest = text.trim();
    while !rest.is_empty() {
        if let Some(quoted) = rest.strip_prefix('"') {
            let close = quoted.find('"').ok_or("a name's quote is not closed")?;
            words.push((quoted[..close].trim().to_string(), true));
            rest = quoted[close + 1..].trim_start();
        } else {
            let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
            words.push((rest[..end].to_string(), false));
            rest = rest[end..].trim_start();
        }
    }
    Ok(words)
}

/// `sideboard` said in words: "Sideboarded: in 2 Kor Firewalker; out 2 Lava Spike. Next game: 60 cards, 15 in the
/// sideboard (hash …); new-game takes this deck".
pub fn sideboarded_text(
    cards_in: &[(u32, String)],
    cards_out: &[(u32, String)],
    main: u32,
    side: u32,
    hash: &str,
) -> String {
    let list =
        |cards: &[(u32, String)]| cards.iter().map(|(n, name)| format!("{n} {name}")).collect::<Vec<_>>().join(", ");
    let parts: Vec<String> = [("in", cards_in), ("out", cards_out)]
        .into_iter()
        .filter(|(_, cards)| !cards.is_empty())
        .map(|(way, cards)| format!("{way} {}", list(cards)))
        .collect();
    format!(
        "Sideboarded: {}. Next game: {main} cards, {side} in the sideboard (hash {hash}); new-game takes this deck",
        parts.join("; ")
    )
}

/// The cards swapped, by their names in the deck.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Swapped {
    /// The next game's deck, labelled with its new hash.
    pub deck: DeckList,
    pub cards_in: Vec<(u32, String)>,
    pub cards_out: Vec<(u32, String)>,
}

/// `deck` with the swap made: every card taken out first, then every card brought in; a name is a card's in the
/// zone it leaves, in any case, or the start of exactly one. Refused, with the deck unchanged, when a card is not
/// there in the number asked.
pub fn sideboard(deck: &DeckList, swap: &Swap) -> Result<Swapped, String> {
    let mut next = deck.clone();
    let cards_out = move_cards(&mut next.library, &mut next.sideboard, &swap.cards_out, "main deck")?;
    let cards_in = move_cards(&mut next.sideboard, &mut next.library, &swap.cards_in, "sideboard")?;
    next.label = cockatrice_hash(&deck_of(&next));
    Ok(Swapped { deck: next, cards_in, cards_out })
}

/// Moves each `(count, name)` from `from` to `to`, saying which zone lacked a card when one did.
fn move_cards(
    from: &mut Vec<DeckCard>,
    to: &mut Vec<DeckCard>,
    wanted: &[(u32, String)],
    zone: &str,
) -> Result<Vec<(u32, String)>, String> {
    let mut moved = Vec::new();
    for (count, typed) in wanted {
        let name = find_name(from, typed).ok_or_else(|| {
            let held = counted_names(from).iter().map(|(n, name)| format!("{n} {name}")).collect::<Vec<_>>();
            format!("your {zone} holds no card named {typed:?} (it holds {})", held.join(", "))
        })?;
        let held = from.iter().filter(|card| card.name == name).count() as u32;
        if held < *count {
            return Err(format!("your {zone} holds {held} {name}, not {count}"));
        }
        for _ in 0..*count {
            let at = from.iter().rposition(|card| card.name == name).unwrap_or_default();
            to.push(from.remove(at));
        }
        moved.push((*count, name));
    }
    Ok(moved)
}

/// The name in `cards` that `typed` means: the same in any case, else the only one it begins.
fn find_name(cards: &[DeckCard], typed: &str) -> Option<String> {
    let typed = typed.to_lowercase();
    let names = counted_names(cards);
    if let Some((_, name)) = names.iter().find(|(_, name)| name.to_lowercase() == typed) {
        return Some(name.clone());
    }
    let mut begun = names.iter().filter(|(_, name)| name.to_lowercase().starts_with(&typed));
    match (begun.next(), begun.next()) {
        (Some((_, name)), None) => Some(name.clone()),
        _ => None,
    }
}

/// Each name of `cards` with its copies, in first-seen order.
fn counted_names(cards: &[DeckCard]) -> Vec<(u32, String)> {
    let mut names: Vec<(u32, String)> = Vec::new();
    for card in cards {
        match names.iter_mut().find(|(_, name)| *name == card.name) {
            Some((n, _)) => *n += 1,
            None => names.push((1, card.name.clone())),
        }
    }
    names
}

/// The deck file's view of an engine deck, for its hash.
fn deck_of(list: &DeckList) -> Deck {
    let entries =
        |cards: &[DeckCard]| counted_names(cards).into_iter().map(|(count, name)| DeckEntry { count, name }).collect();
    Deck { main: entries(&list.library), sideboard: entries(&list.sideboard), commander: entries(&list.commander) }
}

#[cfg(test)]
mod tests {
    use fairdeck_shared::wire::{CardCounts, DeckDifference, card_counts};

    use super::*;
    use crate::deck::parse_deck;

    fn burn() -> DeckList {
        parse_deck(
            "burn.txt",
            "4 Lava Spike\n4 Lightning Bolt\n52 Mountain\n\nSideboard\n3 Kor Firewalker\n2 Trapped in the Tower\n",
        )
        .unwrap()
        .to_deck_list()
    }

    fn counts(deck: &DeckList) -> CardCounts {
        card_counts(deck.library.iter().chain(&deck.sideboard).chain(&deck.commander).map(|c| &*c.name))
    }

    #[test]
    fn a_swap_is_read_with_counts_and_quoted_names() {
        let swap = parse_swap(r#"in 2 kor out 2 Lava Spike in "Trapped in the Tower" out lightning bolt"#).unwrap();
        assert_eq!(swap.cards_in, [(2, "kor".into()), (1, "Trapped in the Tower".into())]);
        assert_eq!(swap.cards_out, [(2, "Lava Spike".into()), (1, "lightning bolt".into())]);
        assert_eq!(parse_swap("Lava Spike"), Err("expected `in` or `out` before \"Lava\"".into()));
        assert_eq!(parse_swap("in"), Err("expected a card name after `in`".into()));
        assert_eq!(parse_swap(""), Err("expected `in CARD` or `out CARD`".into()));
        assert_eq!(parse_swap("in 0 Kor"), Err("a count of 1 or more".into()));
        assert_eq!(parse_swap("in \"Kor"), Err("a name's quote is not closed".into()));
    }

    #[test]
    fn a_legal_swap_keeps_the_75_and_changes_the_hash() {
        let deck = burn();
        let swap = parse_swap(r#"in 2 kor in 2 "trapped in the tower" out 3 Lava Spike out Lightning Bolt"#).unwrap();
        let swapped = sideboard(&deck, &swap).unwrap();
        assert_eq!(swapped.cards_in, [(2, "Kor Firewalker".into()), (2, "Trapped in the Tower".into())]);
        assert_eq!(swapped.cards_out, [(3, "Lava Spike".into()), (1, "Lightning Bolt".into())]);
        let next = &swapped.deck;
        assert_eq!((next.library.len(), next.sideboard.len()), (60, 5));
        assert_eq!(next.library.iter().filter(|c| c.name == "Kor Firewalker").count(), 2);
        assert_eq!(next.sideboard.iter().filter(|c| c.name == "Lava Spike").count(), 3);
        // The same 75: the engine declares no difference, so no CHANGED DECK; the hash is the swapped list's.
        assert!(DeckDifference::between(&counts(&deck), &counts(next)).is_empty());
        assert_ne!(next.label, deck.label);
        let written = "1 Lava Spike\n3 Lightning Bolt\n52 Mountain\n2 Kor Firewalker\n2 Trapped in the Tower\n\n\
                       Sideboard\n1 Kor Firewalker\n3 Lava Spike\n1 Lightning Bolt\n";
        assert_eq!(next.label, cockatrice_hash(&parse_deck("side.txt", written).unwrap()));
    }

    #[test]
    fn a_card_not_there_refuses_the_whole_swap() {
        let deck = burn();
        let refused = |line: &str| sideboard(&deck, &parse_swap(line).unwrap()).unwrap_err();
        assert_eq!(refused("in 4 Kor Firewalker out 4 Lava Spike"), "your sideboard holds 3 Kor Firewalker, not 4");
        assert_eq!(
            refused("out 1 Goblin Guide"),
            "your main deck holds no card named \"Goblin Guide\" (it holds 4 Lava Spike, 4 Lightning Bolt, 52 Mountain)"
        );
        // `l` begins two names: neither is guessed.
        assert!(refused("out l").starts_with("your main deck holds no card named \"l\""));
        // The outs are made first: a card taken out can come back in on the same line.
        assert!(sideboard(&deck, &parse_swap("out Lava Spike in Lava Spike").unwrap()).is_ok());
    }
}
