//! The constant-time reads, swaps and permutations give what the plain ones give, and the
//! permutations they build are uniform.

use std::collections::HashMap;

use rand_chacha::ChaCha20Rng;
use rand_core::{Rng, SeedableRng};

use super::*;
use crate::crypto::group::{random_permutation, uniform_below};

fn rng(seed: u8) -> ChaCha20Rng {
    ChaCha20Rng::from_seed([seed; 32])
}

/// Fisher–Yates with plain swaps and a plain remainder: what `random_permutation` computed
/// before it was made constant-time, from the same draws.
fn plain_permutation(rng: &mut ChaCha20Rng, n: usize) -> Vec<u16> {
    let mut perm: Vec<u16> = (0..=u16::MAX).take(n).collect();
    for i in (1..perm.len()).rev() {
        let bound = i as u64 + 1;
        let zone = u64::MAX - (u64::MAX % bound + 1) % bound;
        let j = loop {
            let r = rng.next_u64();
            if r <= zone {
                break (r % bound) as usize;
            }
        };
        perm.swap(i, j);
    }
    perm
}

#[test]
fn select_reads_the_entry_at_the_index_and_nothing_beyond() {
    let mut rng = rng(1);
    for len in [1usize, 2, 7, 64] {
        let table: Vec<u64> = (0..len).map(|_| rng.next_u64()).collect();
        for index in 0..len as u16 {
            assert_eq!(select(&table, index), Some(table[usize::from(index)]));
        }
        assert_eq!(select(&table, len as u16), None);
        assert_eq!(select(&table, u16::MAX), None);
    }
    assert_eq!(select::<u64>(&[], 0), None);
}

#[test]
fn swap_with_last_swaps_like_a_plain_swap() {
    let items: Vec<u16> = (100..110).collect();
    for last in 0..items.len() {
        for place in 0..=last {
            let (mut oblivious, mut plain) = (items.clone(), items.clone());
            swap_with_last(&mut oblivious, last, place as u16);
            plain.swap(last, place);
            assert_eq!(oblivious, plain, "last {last}, place {place}");
        }
    }
    // A `last` beyond the list changes nothing rather than panics.
    let mut unchanged = items.clone();
    swap_with_last(&mut unchanged, items.len(), 0);
    assert_eq!(unchanged, items);
}

#[test]
fn invert_gives_the_inverse_permutation() {
    let mut rng = rng(2);
    for n in [0usize, 1, 2, 5, 60, 300] {
        let permutation = plain_permutation(&mut rng, n);
        let inverse = invert(&permutation);
        let mut plain = vec![0u16; n];
        for (i, &j) in permutation.iter().enumerate() {
            plain[usize::from(j)] = i as u16;
        }
        assert_eq!(inverse, plain, "n = {n}");
    }
}

#[test]
fn remainder_is_the_plain_remainder() {
    let mut rng = rng(3);
    let moduli = [1u64, 2, 3, 7, 60, 1000, 65_536, 1 << 63, (1 << 63) + 1, u64::MAX - 1, u64::MAX];
    for &modulus in &moduli {
        for value in
            [0, 1, modulus - 1, modulus, u64::MAX, u64::MAX - 1].into_iter().chain((0..200).map(|_| rng.next_u64()))
        {
            assert_eq!(remainder(value, modulus), value % modulus, "{value} mod {modulus}");
        }
    }
    for _ in 0..2000 {
        let (value, modulus) = (rng.next_u64(), rng.next_u64() >> (rng.next_u64() % 64) | 1);
        assert_eq!(remainder(value, modulus), value % modulus, "{value} mod {modulus}");
    }
}

#[test]
fn uniform_below_draws_what_a_plain_remainder_draws() {
    let (mut oblivious, mut plain) = (rng(4), rng(4));
    for n in (1..=1000).chain([65_536, usize::MAX]) {
        let bound = n as u64;
        let zone = u64::MAX - (u64::MAX % bound + 1) % bound;
        let expected = loop {
            let r = plain.next_u64();
            if r <= zone {
                break (r % bound) as usize;
            }
        };
        assert_eq!(uniform_below(&mut oblivious, n), expected, "n = {n}");
    }
}

#[test]
fn random_permutation_is_the_plain_fisher_yates_of_the_same_draws() {
    for (seed, n) in [(5, 0), (6, 1), (7, 2), (8, 3), (9, 60), (10, 1000)] {
        let permutation = random_permutation(&mut rng(seed), n);
        assert_eq!(permutation, plain_permutation(&mut rng(seed), n), "n = {n}");
        let mut sorted = permutation.clone();
        sorted.sort_unstable();
        assert!(sorted.iter().copied().eq(0..n as u16), "n = {n}: not a permutation");
    }
}

#[test]
fn every_permutation_of_a_few_items_appears_about_equally_often() {
    // 6000 draws of a permutation of 3 from one seed: each of the 6 expected 1000 times; a
    // count off by more than 15 % (about 5 standard deviations) means a biased build.
    let mut rng = rng(11);
    let mut counts: HashMap<Vec<u16>, usize> = HashMap::new();
    for _ in 0..6000 {
        *counts.entry(random_permutation(&mut rng, 3)).or_default() += 1;
    }
    assert_eq!(counts.len(), 6, "every permutation of 3 appears: {counts:?}");
    assert!(counts.values().all(|&count| (850..=1150).contains(&count)), "{counts:?}");
    // And every one of the 24 permutations of 4 is reachable.
    let reached: std::collections::HashSet<Vec<u16>> = (0..2000).map(|_| random_permutation(&mut rng, 4)).collect();
    assert_eq!(reached.len(), 24);
}
