//! The deck hash Cockatrice shows, so two players can tell they mean the same 75 (or 100) cards.

use sha1::{Digest, Sha1};

use super::{Deck, DeckEntry};

/// The 8-character deck hash Cockatrice shows (`DecklistNodeTree::computeDeckHash`): every copy's lower-case
/// name, sideboard copies prefixed `SB:`, sorted, joined with `;`, SHA-1, first 40 bits in base 32.
///
/// Cockatrice has no command zone in a deck: a Commander deck keeps its commander in the main deck, so the
/// commander is hashed as a main-deck card and the same 100 cards hash alike in both programs.
///
/// Qt's `toLower` and Rust's `to_lowercase` agree except for a handful of special-cased letters (such as `İ`),
/// which no printed card name contains.
pub fn cockatrice_hash(deck: &Deck) -> String {
    let copies = |entries: &[DeckEntry], prefix: &'static str| {
        entries
            .iter()
            .flat_map(move |e| {
                let name = format!("{prefix}{}", e.name.to_lowercase());
                (0..e.count).map(move |_| name.clone())
            })
            .collect::<Vec<_>>()
    };
    let mut cards = copies(&deck.main, "");
    cards.extend(copies(&deck.commander, ""));
    cards.extend(copies(&deck.sideboard, "SB:"));
    // QStringList::sort compares UTF-16 code units, which differs from UTF-8 byte order above U+FFFF.
    cards.sort_by(|a, b| a.encode_utf16().cmp(b.encode_utf16()));
    let digest = Sha1::digest(cards.join(";").as_bytes());
    let number = digest[..5].iter().fold(0u64, |acc, &b| (acc << 8) | u64::from(b));
    let mut digits = Vec::with_capacity(8);
    let mut n = number;
    while n > 0 || digits.is_empty() {
        digits.push(b"0123456789abcdefghijklmnopqrstuv"[(n % 32) as usize]);
        n /= 32;
    }
    while digits.len() < 8 {
        digits.push(b'0');
    }
    digits.iter().rev().map(|&d| char::from(d)).collect()
}
