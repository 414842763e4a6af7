//! A set's boosters: the layouts drawn by a shared random round, then, for each player, one stack segment per sheet
//! (`pool::BoosterKind::plan`), each booster's slots taken from the top of its player's segments, in booster order.
//! The host's boosters are dealt from stacks of their own and the guest's from others: a sheet's stack is dealt
//! without replacement, so boosters sharing one would tell each player what the other's cannot hold. Dealt to them
//! in sealed, opened by them round after round in a booster draft.

use super::Engine;
use super::api::AlertKind;
use super::fault::Fault;
use super::limited::{booster_kind, max_stack};
use super::packs::PackDraft;
use crate::crypto::{Group, SharedSeed, Verified};
use crate::pool::BoosterPlan;
use crate::seats::SeatMap;
use crate::wire::LimitedFormat;

/// A plan laid out as a stack: the card at each position, the segments (one per player and sheet), and each booster's
/// positions.
type Layout = (Vec<String>, Vec<std::ops::Range<usize>>, Vec<Vec<u32>>);

/// The stack of `plans`, one after the other, for a set whose card names are `names`: each plan's boosters are
/// numbered after the previous plan's.
fn layout(plans: &[BoosterPlan], names: &[&str]) -> Layout {
    let mut cards = Vec::new();
    let mut segments = Vec::new();
    let mut boosters: Vec<Vec<u32>> = Vec::new();
    for plan in plans {
        let first = boosters.len();
        boosters.resize_with(first + plan.layouts.len(), Vec::new);
        for stack in &plan.stacks {
            let start = cards.len();
            cards.extend(stack.cards.iter().map(|&card| names[card].to_string()));
            segments.push(start..cards.len());
            let mut next = start as u32;
            for deal in &stack.deals {
                boosters[first + deal.booster].extend(next..next + deal.count as u32);
                next += deal.count as u32;
            }
        }
    }
    (cards, segments, boosters)
}

impl<G: Group> Engine<G> {
    /// The layouts' round settled: both engines plan the same boosters from its seed and lay out their stack.
    pub(super) fn lay_boosters(&mut self, seed: Verified<SharedSeed>) {
        let Some(limited) = &self.limited else { return };
        let (Some(set), Some(format)) = (&limited.set, limited.agreed_format()) else { return };
        let boosters = match format {
            LimitedFormat::SealedBoosters { boosters } | LimitedFormat::BoosterDraft { packs: boosters } => boosters,
            _ => return,
        };
        let kind = booster_kind(set).expect("a set is taken with boosters to deal (check_config)");
        let mut rng = seed.rng();
        // The host's boosters, then the guest's, each with stacks of their own.
        let planned: Result<Vec<BoosterPlan>, _> =
            (0..2).map(|_| kind.plan(boosters as usize, &mut |n| rng.below(n))).collect();
        let names: Vec<&str> = set.cards().iter().map(|card| card.name.as_str()).collect();
        let laid = planned.map_err(|e| e.to_string()).and_then(|plans| {
            let laid = layout(&plans, &names);
            match laid.0.len() {
                cards if cards > max_stack::<G>() => {
                    Err(format!("the boosters need a stack of {cards} cards, at most {}", max_stack::<G>()))
                }
                _ => Ok(laid),
            }
        });
        match laid {
            Ok((cards, segments, mut opened)) => {
                let guests = opened.split_off(boosters as usize);
                let positions = if let LimitedFormat::BoosterDraft { .. } = format {
                    // Round `r` opens the host's booster `r` and the guest's.
                    let packs = opened.into_iter().zip(guests).flat_map(|(host, guest)| [host, guest]).collect();
                    if let Some(limited) = self.limited.as_mut() {
                        limited.packs = Some(PackDraft::new(packs));
                    }
                    SeatMap::default()
                } else {
                    SeatMap::from([opened.concat(), guests.concat()])
                };
                self.lay_stack(format, cards, segments, positions);
            }
            // Both engines plan alike from the same file and seed, so both stop here: nobody is to blame.
            Err(reason) => {
                self.raise(Fault::new(AlertKind::Incompatible, format!("the set's boosters: {reason}")), None)
            }
        }
    }
}
