//! Nameplates: the short numbers that name waiting rooms and watch seats, smallest free first.

use std::collections::BTreeSet;

/// Longest nameplate accepted, in digits.
const MAX_NAMEPLATE_DIGITS: usize = 9;

/// The nameplate a client typed, if it has the form of one.
pub(crate) fn parse_nameplate(text: &str) -> Option<u32> {
    if text.is_empty() || text.len() > MAX_NAMEPLATE_DIGITS || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// Nameplate numbers in use: the smallest free one is handed out first.
#[derive(Debug, Default)]
pub(super) struct Nameplates {
    /// Released nameplates below `next`.
    free: BTreeSet<u32>,
    /// The highest nameplate in use (0: none), but for those in `far`.
    next: u32,
    /// Nameplates in use more than [`FAR`] above `next` (a room opened unclaimed while Redis is down takes one at
    /// random, up to 999,999), kept apart so that `free` is not filled with every number between.
    far: BTreeSet<u32>,
}

/// How far above the highest nameplate in use a claim is kept apart.
const FAR: u32 = 1024;

impl Nameplates {
    pub(super) fn allocate(&mut self) -> u32 {
        if let Some(nameplate) = self.free.pop_first() {
            return nameplate;
        }
        loop {
            self.next += 1;
            // One in use far above is now just one in use below `next`.
            if !self.far.remove(&self.next) {
                return self.next;
            }
        }
    }

    pub(super) fn is_free(&self, nameplate: u32) -> bool {
        nameplate != 0 && ((nameplate > self.next && !self.far.contains(&nameplate)) || self.free.contains(&nameplate))
    }

    /// Marks a specific free nameplate as used.
    pub(super) fn claim(&mut self, nameplate: u32) {
        let Nameplates { free, next, far } = self;
        if nameplate > next.saturating_add(FAR) {
            far.insert(nameplate);
        } else if nameplate > *next {
            free.extend((*next + 1..nameplate).filter(|between| !far.remove(between)));
            far.remove(&nameplate);
            *next = nameplate;
        } else {
            free.remove(&nameplate);
        }
    }

    pub(super) fn release(&mut self, nameplate: u32) {
        if self.far.remove(&nameplate) {
            return;
        }
        self.free.insert(nameplate);
        // Shrink from the top so `free` only ever holds holes below the highest nameplate in use.
        while self.next > 0 && self.free.remove(&self.next) {
            self.next -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_nameplate_claimed_far_above_the_others_is_kept_apart_and_given_back() {
        let mut plates = Nameplates::default();
        plates.claim(543_210);
        plates.claim(1_030);
        assert_eq!((plates.free.len(), plates.far.len()), (0, 2), "no hole for every number between");
        assert!(!plates.is_free(543_210) && plates.is_free(543_209) && plates.is_free(1));
        // Handed out up to a far one: it is passed over, as any number in use.
        let handed: Vec<u32> = (0..1_030).map(|_| plates.allocate()).collect();
        assert_eq!(handed, (1..1_030).chain([1_031]).collect::<Vec<u32>>());
        assert!(!plates.is_free(1_030) && plates.far.len() == 1);
        plates.release(543_210);
        assert!(plates.far.is_empty() && plates.is_free(543_210));
        // A claim within reach turns the numbers between into holes, but not one in use far above.
        let mut plates = Nameplates::default();
        plates.claim(1_500);
        plates.claim(600);
        plates.claim(1_550);
        assert!(!plates.is_free(1_500) && plates.is_free(1_499) && !plates.is_free(1_550));
        assert!(plates.far.is_empty());
        assert_eq!(plates.free.len(), 1_550 - 3, "every number but the three in use");
    }
}
