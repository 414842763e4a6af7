//! The plan for dealing N boosters of one kind from shared stacks.
//!
//! Each booster's layout is drawn from shared randomness with odds of the layouts' weights. Each sheet the
//! boosters draw from becomes one stack: every card repeated by its weight (reduced by the gcd of the sheet's
//! weights), the whole sheet repeated as often as needed to cover all the slots. Once both players have shuffled
//! a stack, every position of it holds card c with probability w_c / W, so dealing each booster's slots from the
//! top of the stack, in order and without replacement, gives every slot the sheet's odds. Within one plan a
//! sheet's card comes up no more often than its share of the stack allows, as in a printed sheet; and when the
//! sheet is repeated, one booster may hold the same card twice (MTGJSON's `allowDuplicates: false` is not kept:
//! keeping it would mean skipping cards already seen, which the players could not do without seeing them).

use std::num::NonZeroU64;

use num_integer::Integer;

use super::set::{BoosterKind, Sheet};

/// The largest stack a sheet may need, in cards (a stack is locked and shuffled by both players, so its size is
/// the cost of the deal). A sheet whose reduced total weight alone exceeds this cannot be dealt this way.
pub const MAX_STACK_CARDS: u64 = 4_000;
/// The most boosters in one plan.
pub const MAX_PLAN_BOOSTERS: usize = 256;

/// How to deal N boosters: each booster's layout, and the stacks its slots are dealt from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoosterPlan {
    /// For each booster, the index of its layout in `BoosterKind::layouts`.
    pub layouts: Vec<usize>,
    /// One stack for each sheet some booster draws from, by sheet index.
    pub stacks: Vec<SheetStack>,
}

/// One sheet's stack: the cards to lock and shuffle, and the deals to make from its top, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SheetStack {
    /// The index of the sheet in `BoosterKind::sheets`.
    pub sheet: usize,
    /// Card indices into `SetFile::cards`, each repeated by its reduced weight, the sheet repeated as needed.
    pub cards: Vec<usize>,
    /// The deals, in booster order: their counts add up to at most `cards.len()`.
    pub deals: Vec<Deal>,
}

/// Cards for one booster from one stack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Deal {
    /// The booster's index in the plan.
    pub booster: usize,
    /// How many cards it takes from the stack.
    pub count: usize,
}

/// A plan that cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    /// More boosters than `MAX_PLAN_BOOSTERS`.
    #[error("{0} boosters: at most {MAX_PLAN_BOOSTERS} at once")]
    TooManyBoosters(usize),
    /// A sheet needs a stack over `MAX_STACK_CARDS`.
    #[error(
        "sheet {sheet}: reduced total weight {reduced_weight}, {slots} slot(s) to deal: a stack of {cards} cards, \
         at most {MAX_STACK_CARDS}"
    )]
    StackTooLarge {
        /// The sheet's name.
        sheet: String,
        /// The sum of its weights divided by their gcd: the size of one copy of the sheet.
        reduced_weight: u64,
        /// The cards dealt from it.
        slots: u64,
        /// The stack needed.
        cards: u128,
    },
    /// The shared randomness gave a value outside the range asked for.
    #[error("the shared randomness gave {value} for a choice below {bound}")]
    ChoiceOutOfRange {
        /// The value given.
        value: u64,
        /// The bound asked for.
        bound: u64,
    },
}

impl BoosterKind {
    /// Plans `boosters` boosters: `choose(n)` gives a uniform value below n from randomness both players
    /// share, used to draw each booster's layout (the stacks are then shuffled by the protocol itself).
    pub fn plan(&self, boosters: usize, choose: &mut dyn FnMut(NonZeroU64) -> u64) -> Result<BoosterPlan, PlanError> {
        if boosters > MAX_PLAN_BOOSTERS {
            return Err(PlanError::TooManyBoosters(boosters));
        }
        let layouts = (0..boosters).map(|_| self.draw_layout(choose)).collect::<Result<Vec<_>, _>>()?;
        let mut stacks = Vec::new();
        for (index, sheet) in self.sheets.iter().enumerate() {
            let deals: Vec<Deal> = layouts
                .iter()
                .enumerate()
                .filter_map(|(booster, &layout)| {
                    let count = self.layouts[layout].count_of(index);
                    // A count is at most MAX_BOOSTER_CARDS, checked when the file was read.
                    (count > 0).then_some(Deal { booster, count: count as usize })
                })
                .collect();
            if !deals.is_empty() {
                stacks.push(sheet.stack(index, deals)?);
            }
        }
        Ok(BoosterPlan { layouts, stacks })
    }

    fn draw_layout(&self, choose: &mut dyn FnMut(NonZeroU64) -> u64) -> Result<usize, PlanError> {
        let bound = self.total_weight;
        let value = choose(bound);
        let mut below = value;
        for (index, layout) in self.layouts.iter().enumerate() {
            match below.checked_sub(layout.weight.get()) {
                Some(rest) => below = rest,
                None => return Ok(index),
            }
        }
        Err(PlanError::ChoiceOutOfRange { value, bound: bound.get() })
    }
}

impl Sheet {
    fn stack(&self, index: usize, deals: Vec<Deal>) -> Result<SheetStack, PlanError> {
        // The weights are positive, so their gcd is too (`max` only spells it out), and it divides the total.
        let divisor = self.cards.iter().fold(0u64, |divisor, (_, weight)| divisor.gcd(&weight.get())).max(1);
        let reduced_weight = self.total_weight.get() / divisor;
        let slots: u64 = deals.iter().map(|deal| deal.count as u64).sum();
        let copies = slots.div_ceil(reduced_weight);
        let cards = u128::from(copies) * u128::from(reduced_weight);
        if cards > u128::from(MAX_STACK_CARDS) {
            return Err(PlanError::StackTooLarge { sheet: self.name.clone(), reduced_weight, slots, cards });
        }
        let one_copy =
            self.cards.iter().flat_map(|&(card, weight)| std::iter::repeat_n(card, (weight.get() / divisor) as usize));
        let cards = std::iter::repeat_n(one_copy, copies as usize).flatten().collect();
        Ok(SheetStack { sheet: index, cards, deals })
    }
}

#[cfg(test)]
mod tests;
