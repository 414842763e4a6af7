use std::num::NonZeroU64;

use rand_chacha::ChaCha20Rng;
use rand_core::{Rng, SeedableRng};
use serde_json::json;

use super::{BoosterPlan, Deal, MAX_PLAN_BOOSTERS, PlanError};
use crate::pool::set::{BoosterKind, SetFile};

const FIXTURE: &[u8] = include_bytes!("../../../../examples/pools/small-set.json");

fn fixture_draft() -> BoosterKind {
    SetFile::parse(FIXTURE).unwrap().boosters()["draft"].clone()
}

/// A one-kind set whose single sheet `weighted` has the given card weights, each booster taking `per_booster`.
fn one_sheet_kind(weights: &[u64], per_booster: u64) -> BoosterKind {
    let cards: Vec<_> =
        (0..weights.len()).map(|i| json!({"name": "Forest", "rarity": "common", "uuid": i.to_string()})).collect();
    let sheet: serde_json::Map<_, _> = weights.iter().enumerate().map(|(i, w)| (i.to_string(), json!(w))).collect();
    let file = json!({"data": {"code": "TST", "name": "Test", "cards": cards, "booster": {"draft": {
        "boosters": [{"contents": {"weighted": per_booster}, "weight": 1}], "boostersTotalWeight": 1,
        "sheets": {"weighted": {"cards": sheet, "totalWeight": weights.iter().sum::<u64>()}}
    }}}});
    SetFile::parse(&serde_json::to_vec(&file).unwrap()).unwrap().boosters()["draft"].clone()
}

/// A uniform value below `n` (rejection sampling: the draws at or over the largest multiple of n are redrawn).
fn below(rng: &mut ChaCha20Rng, n: u64) -> u64 {
    let limit = u64::MAX - u64::MAX % n;
    loop {
        let value = rng.next_u64();
        if value < limit {
            return value % n;
        }
    }
}

#[test]
fn layouts_are_drawn_by_their_weights_and_each_sheet_gets_one_stack() {
    let draft = fixture_draft();
    // The layouts weigh 3 and 1: values 0, 1, 2 draw the first, 3 the second.
    let mut values = [0, 2, 3, 1].into_iter();
    let plan = draft.plan(4, &mut |bound| {
        assert_eq!(bound.get(), 4);
        values.next().unwrap()
    });
    let plan = plan.unwrap();
    assert_eq!(plan.layouts, [0, 0, 1, 0]);
    let sheets: Vec<&str> = plan.stacks.iter().map(|stack| draft.sheets()[stack.sheet].name()).collect();
    assert_eq!(sheets, ["basicLand", "common", "foil", "rareMythic", "uncommon"]);
    let common = &plan.stacks[1];
    let deals: Vec<(usize, usize)> = common.deals.iter().map(|deal| (deal.booster, deal.count)).collect();
    assert_eq!(deals, [(0, 10), (1, 10), (2, 9), (3, 10)]);
    // 39 commons from a sheet of 20 weighing 1 each: the sheet twice.
    assert_eq!(common.cards.len(), 40);
    assert_eq!(plan.stacks[2].deals, [Deal { booster: 2, count: 1 }], "only the third booster has a foil");
    // The rare sheet weighs rares 2, mythics 1: one copy of 14 covers 4 slots.
    let rare_mythic = &plan.stacks[3].cards;
    assert_eq!(rare_mythic.len(), 14);
    assert_eq!(rare_mythic.iter().filter(|&&card| card == rare_mythic[0]).count(), 2, "a rare twice");
}

#[test]
fn weights_are_reduced_by_their_gcd_and_the_sheet_repeated_to_cover_the_slots() {
    let kind = one_sheet_kind(&[2, 4, 6], 5);
    let plan = kind.plan(3, &mut |_| 0).unwrap();
    // Reduced weights 1, 2, 3 (six cards a copy); 15 slots need three copies.
    let mut counts = [0; 3];
    plan.stacks[0].cards.iter().for_each(|&card| counts[card] += 1);
    assert_eq!(counts, [3, 6, 9]);
}

#[test]
fn a_sheet_too_heavy_to_stack_is_refused_with_its_reduced_weight() {
    let error = one_sheet_kind(&[1, 10_000], 1).plan(1, &mut |_| 0).unwrap_err();
    assert_eq!(
        error.to_string(),
        "sheet weighted: reduced total weight 10001, 1 slot(s) to deal: a stack of 10001 cards, at most 4000"
    );
    // Light enough for one booster, too heavy for many.
    let kind = one_sheet_kind(&[1; 64], 64);
    assert!(kind.plan(62, &mut |_| 0).is_ok());
    assert!(matches!(kind.plan(63, &mut |_| 0), Err(PlanError::StackTooLarge { cards: 4032, .. })));
}

#[test]
fn randomness_out_of_range_and_too_many_boosters_are_refused() {
    let draft = fixture_draft();
    assert_eq!(draft.plan(1, &mut |_| 4), Err(PlanError::ChoiceOutOfRange { value: 4, bound: 4 }));
    let too_many = MAX_PLAN_BOOSTERS + 1;
    assert_eq!(draft.plan(too_many, &mut |_| 0), Err(PlanError::TooManyBoosters(too_many)));
    assert_eq!(draft.plan(0, &mut |_| unreachable!()), Ok(BoosterPlan { layouts: vec![], stacks: vec![] }));
}

/// The χ² bound at 1 % significance for `freedom` degrees of freedom, by the Wilson–Hilferty approximation:
/// (χ²/k)^(1/3) is close to normal with mean 1 − 2/(9k) and variance 2/(9k), so the 99th percentile is
/// k·(1 − 2/(9k) + z·√(2/(9k)))³ with z = 2.326348, the standard normal's 99th percentile. Its error is under
/// 1 % of the value for k ≥ 1 at this tail, far less than the margin of a fair generator.
fn chi_square_bound(freedom: usize) -> f64 {
    const Z_99: f64 = 2.326_348;
    let k = freedom as f64;
    let spread = 2.0 / (9.0 * k);
    k * (1.0 - spread + Z_99 * spread.sqrt()).powi(3)
}

fn chi_square(observed: &[u64], expected: &[f64]) -> f64 {
    observed.iter().zip(expected).map(|(&o, &e)| (o as f64 - e).powi(2) / e).sum()
}

/// What 10,000 boosters gave: how often each layout, and, per sheet, the slots dealt and each card's count.
struct Tally {
    layouts: Vec<u64>,
    slots: Vec<u64>,
    cards: Vec<Vec<u64>>,
}

/// Deals `rounds` plans of `boosters` boosters as the protocol does: layouts from the shared randomness, each
/// stack shuffled uniformly (Fisher–Yates), the deals taken from its top in order.
fn deal(kind: &BoosterKind, set_cards: usize, rounds: usize, boosters: usize, rng: &mut ChaCha20Rng) -> Tally {
    let sheets = kind.sheets().len();
    let mut tally = Tally {
        layouts: vec![0; kind.layouts().len()],
        slots: vec![0; sheets],
        cards: vec![vec![0; set_cards]; sheets],
    };
    for _ in 0..rounds {
        let plan = kind.plan(boosters, &mut |bound: NonZeroU64| below(rng, bound.get())).unwrap();
        plan.layouts.iter().for_each(|&layout| tally.layouts[layout] += 1);
        for mut stack in plan.stacks {
            for i in (1..stack.cards.len()).rev() {
                stack.cards.swap(i, below(rng, i as u64 + 1) as usize);
            }
            let dealt: usize = stack.deals.iter().map(|deal| deal.count).sum();
            stack.cards[..dealt].iter().for_each(|&card| tally.cards[stack.sheet][card] += 1);
            tally.slots[stack.sheet] += dealt as u64;
        }
    }
    tally
}

#[test]
fn ten_thousand_boosters_match_the_layout_and_sheet_weights() {
    let set = SetFile::parse(FIXTURE).unwrap();
    let draft = &set.boosters()["draft"];
    let mut rng = ChaCha20Rng::from_seed([25; 32]);
    // 1,250 sealed-sized plans of 8 boosters: each plan is one independent generation, as in a match.
    let tally = deal(draft, set.cards().len(), 1_250, 8, &mut rng);
    assert_eq!(tally.layouts.iter().sum::<u64>(), 10_000);

    let total = draft.total_weight().get() as f64;
    let expected: Vec<f64> = draft.layouts().iter().map(|l| 10_000.0 * l.weight().get() as f64 / total).collect();
    let statistic = chi_square(&tally.layouts, &expected);
    assert!(statistic < chi_square_bound(expected.len() - 1), "layouts {:?}: χ² = {statistic}", tally.layouts);

    for (index, sheet) in draft.sheets().iter().enumerate() {
        let slots = tally.slots[index] as f64;
        let weight = sheet.total_weight().get() as f64;
        let expected: Vec<f64> = sheet.cards().iter().map(|(_, w)| slots * w.get() as f64 / weight).collect();
        let observed: Vec<u64> = sheet.cards().iter().map(|&(card, _)| tally.cards[index][card]).collect();
        let statistic = chi_square(&observed, &expected);
        let bound = chi_square_bound(expected.len() - 1);
        assert!(statistic < bound, "sheet {}: χ² = {statistic} over {bound}", sheet.name());
    }

    // The test can fail: the same rare-and-mythic counts are far from what equal weights would give.
    let rare_mythic = draft.sheets().iter().position(|sheet| sheet.name() == "rareMythic").unwrap();
    let sheet = &draft.sheets()[rare_mythic];
    let observed: Vec<u64> = sheet.cards().iter().map(|&(card, _)| tally.cards[rare_mythic][card]).collect();
    let even = vec![tally.slots[rare_mythic] as f64 / observed.len() as f64; observed.len()];
    assert!(chi_square(&observed, &even) > chi_square_bound(observed.len() - 1));
}

#[test]
fn the_chi_square_bound_is_close_to_the_table() {
    // Published 99th percentiles of χ² (e.g. NIST/SEMATECH e-Handbook, table 1.3.6.7.4).
    for (freedom, table) in [(1, 6.635), (4, 13.277), (7, 18.475), (19, 36.191), (39, 62.428)] {
        let bound = chi_square_bound(freedom);
        assert!((bound - table).abs() / table < 0.01, "{freedom} degrees: {bound} against {table}");
    }
}
