//! The database's index, laid out so a lookup reads a handful of names in place instead of decoding them all:
//!
//! - `n`, the number of names (u32, little endian, as every number here);
//! - `n` pairs (where the name ends in the names' text, the card's number), sorted by the name's lowercase
//!   form, each lowercase form once;
//! - the names' text, one after the other;
//! - `m`, the number of cards plus one, then `m` offsets: where each card starts in the cards part, then the
//!   part's length.
//!
//! The bytes come from a file that may be damaged: every read is checked, and a fault is an `Err`, never a panic.

/// Encodes the index of `names` (sorted, as above) and the cards' `starts`.
pub(super) fn encode(names: &[(&str, u32)], starts: &[u32]) -> Result<Vec<u8>, String> {
    let too_large = |_| "the index takes more than 4 GiB".to_string();
    let mut out = Vec::new();
    out.extend(u32::try_from(names.len()).map_err(too_large)?.to_le_bytes());
    let mut end = 0usize;
    for (name, card) in names {
        end += name.len();
        out.extend(u32::try_from(end).map_err(too_large)?.to_le_bytes());
        out.extend(card.to_le_bytes());
    }
    for (name, _) in names {
        out.extend(name.as_bytes());
    }
    out.extend(u32::try_from(starts.len()).map_err(too_large)?.to_le_bytes());
    for start in starts {
        out.extend(start.to_le_bytes());
    }
    Ok(out)
}

/// The index, read in place.
pub(super) struct Index<'a> {
    pairs: &'a [u8],
    text: &'a [u8],
    starts: &'a [u8],
}

impl<'a> Index<'a> {
    /// The index of `bytes`, its parts' sizes checked against each other and against `cards`.
    pub(super) fn parse(bytes: &'a [u8], cards: u32) -> Result<Self, String> {
        let wrong = || "its index is cut short or too long".to_string();
        let n_names = number(bytes, 0).ok_or_else(wrong)? as usize;
        let pairs_end = n_names.checked_mul(8).and_then(|len| len.checked_add(4)).ok_or_else(wrong)?;
        let pairs = bytes.get(4..pairs_end).ok_or_else(wrong)?;
        let text_len = if n_names == 0 { 0 } else { number(pairs, (n_names - 1) * 8).ok_or_else(wrong)? as usize };
        let text_end = pairs_end.checked_add(text_len).ok_or_else(wrong)?;
        let text = bytes.get(pairs_end..text_end).ok_or_else(wrong)?;
        let n_starts = number(bytes, text_end).ok_or_else(wrong)? as usize;
        if n_starts != cards as usize + 1 {
            return Err(format!("its index has {n_starts} card offsets for {cards} cards"));
        }
        let starts = bytes.get(text_end + 4..).ok_or_else(wrong)?;
        if starts.len() != n_starts * 4 {
            return Err(wrong());
        }
        Ok(Self { pairs, text, starts })
    }

    fn len(&self) -> usize {
        self.pairs.len() / 8
    }

    /// The `at`th name as printed, and its card's number.
    fn entry(&self, at: usize) -> Result<(&'a str, u32), String> {
        let begin = if at == 0 { Some(0) } else { number(self.pairs, (at - 1) * 8) };
        let (begin, end) =
            (begin.ok_or("its index ends early")?, number(self.pairs, at * 8).ok_or("its index ends early")?);
        let bytes = self.text.get(begin as usize..end as usize).ok_or("a name of its index is out of place")?;
        let name = std::str::from_utf8(bytes).map_err(|_| "a name of its index is not UTF-8")?;
        Ok((name, number(self.pairs, at * 8 + 4).ok_or("its index ends early")?))
    }

    /// The number of the card found by `key` (a lowercase name), by binary search over the sorted names.
    pub(super) fn find(&self, key: &str) -> Result<Option<u32>, String> {
        let (mut low, mut high) = (0, self.len());
        while low < high {
            let middle = low + (high - low) / 2;
            let (name, card) = self.entry(middle)?;
            match name.to_lowercase().as_str().cmp(key) {
                std::cmp::Ordering::Less => low = middle + 1,
                std::cmp::Ordering::Greater => high = middle,
                std::cmp::Ordering::Equal => return Ok(Some(card)),
            }
        }
        Ok(None)
    }

    /// Every name, in order.
    pub(super) fn names(&self) -> Result<Vec<&'a str>, String> {
        (0..self.len()).map(|at| self.entry(at).map(|(name, _)| name)).collect()
    }

    /// Where the card numbered `card` lies in the cards part: (start, end).
    pub(super) fn card_range(&self, card: u32) -> Result<(u32, u32), String> {
        let at = card as usize * 4;
        let (start, end) = (number(self.starts, at), number(self.starts, at + 4));
        match (start, end) {
            (Some(start), Some(end)) if start <= end => Ok((start, end)),
            _ => Err(format!("its index has no place for card {card}")),
        }
    }
}

/// The u32 at `at`, if the bytes hold it.
fn number(bytes: &[u8], at: usize) -> Option<u32> {
    let four = bytes.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes(four.try_into().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_found_and_listed_and_damage_is_an_error() {
        let names = [("Delver of Secrets", 0), ("Goblin Guide", 1), ("Insectile Aberration", 0)];
        let bytes = encode(&names, &[0, 10, 25]).unwrap();
        let index = Index::parse(&bytes, 2).unwrap();
        assert_eq!(index.find("goblin guide").unwrap(), Some(1));
        assert_eq!(index.find("insectile aberration").unwrap(), Some(0));
        assert_eq!(index.find("goblin").unwrap(), None);
        assert_eq!(index.names().unwrap(), ["Delver of Secrets", "Goblin Guide", "Insectile Aberration"]);
        assert_eq!(index.card_range(1).unwrap(), (10, 25));
        assert!(index.card_range(2).is_err());
        assert!(Index::parse(&bytes, 3).is_err());
        for cut in 0..bytes.len() {
            assert!(Index::parse(&bytes[..cut], 2).is_err(), "{cut}");
        }
        let mut bad = bytes.clone();
        bad[20] = 200;
        assert!(Index::parse(&bad, 2).is_err());
        let mut bad = bytes.clone();
        bad[12] = 1;
        let index = Index::parse(&bad, 2).unwrap();
        assert!(index.names().is_err());
    }
}
