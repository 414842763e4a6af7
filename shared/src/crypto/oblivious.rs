//! Handling a secret permutation without showing it: every read or swap at a secret place
//! scans the whole list with `subtle`'s conditional selection, so neither the memory touched
//! nor the branches taken depend on the place. Each costs O(n) per item, O(n²) per list: for
//! the largest library (`wire::MAX_DECK_LEN`, 1000 cards) about 0.1 s more on a shuffle proof of
//! about 0.3 s (figures in docs/PERFORMANCE.md); at 60 cards, lost in the noise.

use subtle::{ConditionallySelectable, ConstantTimeEq, ConstantTimeLess};

/// `table[index]` for a secret `index`, read by a scan of the whole table. `None` if `index`
/// is beyond the table: whether it is in range shows, which is nothing for an index of a
/// permutation of the table.
pub(crate) fn select<T: ConditionallySelectable>(table: &[T], index: u16) -> Option<T> {
    let first = *table.first().filter(|_| usize::from(index) < table.len())?;
    let index = u64::from(index);
    Some(table.iter().enumerate().fold(first, |mut entry, (place, candidate)| {
        entry.conditional_assign(candidate, (place as u64).ct_eq(&index));
        entry
    }))
}

/// Swaps `items[last]` with `items[place]` for a secret `place ≤ last`: every item below `last`
/// is conditionally swapped with it.
pub(crate) fn swap_with_last<T: ConditionallySelectable>(items: &mut [T], last: usize, place: u16) {
    let Some((below, [last, ..])) = items.get_mut(..=last).map(|items| items.split_at_mut(last)) else {
        return;
    };
    let place = u64::from(place);
    for (here, item) in below.iter_mut().enumerate() {
        T::conditional_swap(item, last, (here as u64).ct_eq(&place));
    }
}

/// The inverse of a secret permutation of `0..n`: `inverse[permutation[i]] = i`, each entry found
/// by a scan of the whole permutation. Of a map that is not a permutation, an index no one maps
/// to gets 0 (a shuffle proof over it fails, as it must).
pub(crate) fn invert(permutation: &[u16]) -> Vec<u16> {
    (0..permutation.len() as u64)
        .map(|target| {
            permutation.iter().enumerate().fold(0u16, |mut source, (place, &image)| {
                // Places beyond u16 never occur: permutations are at most `MAX_PERMUTATION_LEN` long.
                source.conditional_assign(&(place as u16), u64::from(image).ct_eq(&target));
                source
            })
        })
        .collect()
}

/// `value mod modulus` by binary long division with conditional subtraction, since the
/// hardware divider's time can depend on the dividend, which here is a secret draw.
pub(crate) fn remainder(value: u64, modulus: u64) -> u64 {
    debug_assert!(modulus > 0);
    // The running remainder stays below `modulus`, so doubling it plus one bit fits in 128 bits.
    let modulus = u128::from(modulus);
    let rest = (0..64).rev().fold(0u128, |rest, bit| {
        let rest = rest << 1 | u128::from(value >> bit & 1);
        u128::conditional_select(&rest.wrapping_sub(modulus), &rest, rest.ct_lt(&modulus))
    });
    rest as u64
}

#[cfg(test)]
mod tests;
