//! Library shuffle runs as an owned machine: who relocks first, whose shuffle step comes when, and when a run is
//! over with the arrangement of its backs. It takes the relocks and steps as they are made or come in and gives back
//! what to do next; the engine (`shuffle.rs`) does the cryptography and the sending, and puts a finished run's order
//! on the table. The machine never reaches back into the engine.

use std::collections::{BTreeMap, VecDeque};

use crate::ids::Seat;
use crate::table::Knowledge;

/// Where the backs of a library lie after a shuffle run.
#[cfg_attr(fuzzing, derive(Clone))]
#[derive(Debug, PartialEq)]
pub(super) enum Arrangement {
    /// One back only: nothing to draw.
    Single,
    /// Drawn in common by a random round that has not settled yet.
    Drawing,
    /// The library's new order (`Table::permute`), which puts its backs where the random
    /// round drew them.
    Drawn(Vec<u32>),
}

/// One library's shuffle run: every change goes through the methods here.
#[cfg_attr(fuzzing, derive(Clone))]
pub(super) struct ShuffleRun {
    /// A player who must first relock its stale cards: every permutation needs both
    /// players' layers uniform across the library, or layers would follow the wrong cards.
    relock_first: Option<Seat>,
    steps: VecDeque<Seat>,
    arrangement: Arrangement,
    /// This player's last shuffle step in the run, by message number: the host completes
    /// the run only once it has it.
    own_step: Option<u64>,
}

impl ShuffleRun {
    /// Plans a full shuffle of `library` with fresh locks, whose cards `known` players might know: whoever might know
    /// cards is hidden from by the other player's step, which comes after its own (only the stepper can follow a
    /// card through its permutation). `stale` says whether a player has cards of the library under an old key: the
    /// first stepper relocks its own in its step, the other one must do it before.
    pub(super) fn plan(
        library: Seat,
        known: Knowledge,
        stale: impl FnOnce(Seat) -> bool,
        arrangement: Arrangement,
    ) -> Self {
        let mut steps = VecDeque::new();
        if known.knows(library.opponent()) {
            steps.push_back(library);
        }
        if known.knows(library) || steps.is_empty() {
            steps.push_back(library.opponent());
        }
        let other = steps[0].opponent();
        let relock_first = stale(other).then_some(other);
        ShuffleRun { relock_first, steps, arrangement, own_step: None }
    }

    /// The part of the run that waits on `seat` now, if any.
    pub(super) fn due_from(&self, seat: Seat) -> Option<ShufflePart> {
        match self.relock_first {
            Some(holder) => (holder == seat).then_some(ShufflePart::Relock),
            None => (self.steps.front() == Some(&seat)).then_some(ShufflePart::Step),
        }
    }

    fn is_done(&self) -> bool {
        self.steps.is_empty() && self.arrangement != Arrangement::Drawing
    }
}

/// A part of a shuffle run one player makes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum ShufflePart {
    /// Bring its stale cards of the library to its current key, before any step.
    Relock,
    /// Relock, lock afresh and permute the library.
    Step,
}

/// What this player does next for a library's shuffle run: the machine counts it as made.
#[derive(Debug, PartialEq)]
pub(super) enum ShuffleEffect {
    Relock { library: Seat },
    Step { library: Seat },
}

/// A relock or step that does not fit the runs under way: no run of that library, or not that player's part now.
#[derive(Debug, PartialEq)]
pub(super) struct OutOfTurn;

/// A finished run: the library's new order (none with a single back), and this player's last step in it.
#[derive(Debug, PartialEq)]
pub(super) struct RunEnd {
    pub(super) order: Option<Vec<u32>>,
    pub(super) own_step: Option<u64>,
}

/// The shuffle runs under way, by library.
#[derive(Default)]
#[cfg_attr(fuzzing, derive(Clone))]
pub(super) struct ShuffleRuns {
    runs: BTreeMap<Seat, ShuffleRun>,
}

impl ShuffleRuns {
    /// Puts `library`'s run under way.
    pub(super) fn insert(&mut self, library: Seat, run: ShuffleRun) {
        self.runs.insert(library, run);
    }

    pub(super) fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    /// Whether `library` is being shuffled.
    pub(super) fn contains(&self, library: Seat) -> bool {
        self.runs.contains_key(&library)
    }

    pub(super) fn iter(&self) -> impl Iterator<Item = (&Seat, &ShuffleRun)> {
        self.runs.iter()
    }

    /// The part of `library`'s run that waits on `seat` now, if any.
    pub(super) fn due_from(&self, library: Seat, seat: Seat) -> Option<ShufflePart> {
        self.runs.get(&library)?.due_from(seat)
    }

    /// What `seat` does next: the part of the first run that waits on it, among the libraries `unlocking` does not
    /// hold back (a run waits for its library's reveals). The part is counted as made.
    pub(super) fn next(&mut self, seat: Seat, unlocking: impl Fn(Seat) -> bool) -> Option<ShuffleEffect> {
        let (library, part) = self
            .runs
            .iter()
            .filter(|(library, _)| !unlocking(**library))
            .find_map(|(library, run)| Some((*library, run.due_from(seat)?)))?;
        self.take(library, seat, part).ok()?;
        Some(match part {
            ShufflePart::Relock => ShuffleEffect::Relock { library },
            ShufflePart::Step => ShuffleEffect::Step { library },
        })
    }

    /// `from` made `part` of `library`'s run: refused unless the run waits on it, and then it changes nothing.
    pub(super) fn take(&mut self, library: Seat, from: Seat, part: ShufflePart) -> Result<(), OutOfTurn> {
        if self.due_from(library, from) != Some(part) {
            return Err(OutOfTurn);
        }
        let run = self.runs.get_mut(&library).ok_or(OutOfTurn)?;
        match part {
            ShufflePart::Relock => run.relock_first = None,
            ShufflePart::Step => {
                run.steps.pop_front();
            }
        }
        Ok(())
    }

    /// This player's step of `library`'s run went out as message `seq`.
    pub(super) fn own_step_sent(&mut self, library: Seat, seq: u64) {
        if let Some(run) = self.runs.get_mut(&library) {
            run.own_step = Some(seq);
        }
    }

    /// The random round drew where `library`'s backs lie: `order` is the library's new order.
    pub(super) fn arrangement_drawn(&mut self, library: Seat, order: Vec<u32>) {
        if let Some(run) = self.runs.get_mut(&library) {
            run.arrangement = Arrangement::Drawn(order);
        }
    }

    /// Ends `library`'s run if its last step is in and its arrangement drawn.
    pub(super) fn end_if_done(&mut self, library: Seat) -> Option<RunEnd> {
        if !self.runs.get(&library)?.is_done() {
            return None;
        }
        let run = self.runs.remove(&library)?;
        let order = match run.arrangement {
            Arrangement::Drawn(order) => Some(order),
            Arrangement::Single | Arrangement::Drawing => None,
        };
        Some(RunEnd { order, own_step: run.own_step })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOST: Seat = Seat::HOST;
    const GUEST: Seat = Seat::GUEST;

    fn steps(known: Knowledge) -> Vec<Seat> {
        ShuffleRun::plan(HOST, known, |_| false, Arrangement::Single).steps.into()
    }

    #[test]
    fn whoever_might_know_cards_is_hidden_from_by_the_other_players_later_step() {
        assert_eq!(steps(Knowledge::NOBODY), [GUEST]);
        assert_eq!(steps(Knowledge::only(HOST)), [GUEST]);
        assert_eq!(steps(Knowledge::only(GUEST)), [HOST]);
        assert_eq!(steps(Knowledge::BOTH), [HOST, GUEST]);
    }

    #[test]
    fn the_player_who_steps_second_relocks_first_and_only_if_stale() {
        let run = ShuffleRun::plan(HOST, Knowledge::BOTH, |_| true, Arrangement::Single);
        assert_eq!(run.relock_first, Some(GUEST), "the host steps first and relocks in its step");
        let run = ShuffleRun::plan(HOST, Knowledge::NOBODY, |seat| seat == GUEST, Arrangement::Single);
        assert_eq!(run.relock_first, None, "the guest steps first: the host's layers are what count");
        let run = ShuffleRun::plan(HOST, Knowledge::NOBODY, |seat| seat == HOST, Arrangement::Single);
        assert_eq!(run.relock_first, Some(HOST));
    }

    #[test]
    fn a_run_goes_relock_then_steps_in_order_and_refuses_parts_out_of_turn() {
        let mut runs = ShuffleRuns::default();
        runs.insert(HOST, ShuffleRun::plan(HOST, Knowledge::BOTH, |_| true, Arrangement::Single));
        assert!(runs.contains(HOST) && !runs.contains(GUEST));
        assert_eq!(runs.next(HOST, |_| false), None, "the host's step waits for the guest's relock");
        assert_eq!(runs.take(HOST, HOST, ShufflePart::Step), Err(OutOfTurn));
        assert_eq!(runs.next(GUEST, |_| true), None, "a library being unlocked holds its run back");
        assert_eq!(runs.next(GUEST, |_| false), Some(ShuffleEffect::Relock { library: HOST }));
        assert_eq!(runs.take(HOST, GUEST, ShufflePart::Relock), Err(OutOfTurn), "a second relock");
        assert_eq!(runs.take(HOST, GUEST, ShufflePart::Step), Err(OutOfTurn), "the host steps first");
        assert_eq!(runs.due_from(HOST, HOST), Some(ShufflePart::Step));
        runs.take(HOST, HOST, ShufflePart::Step).unwrap();
        assert_eq!(runs.end_if_done(HOST), None, "the guest's step is still due");
        assert_eq!(runs.next(GUEST, |_| false), Some(ShuffleEffect::Step { library: HOST }));
        runs.own_step_sent(HOST, 7);
        assert_eq!(runs.end_if_done(HOST), Some(RunEnd { order: None, own_step: Some(7) }));
        assert!(runs.is_empty());
        assert_eq!(runs.take(HOST, GUEST, ShufflePart::Step), Err(OutOfTurn), "no run any more");
    }

    #[test]
    fn a_run_ends_only_once_its_arrangement_is_drawn() {
        let mut runs = ShuffleRuns::default();
        runs.insert(GUEST, ShuffleRun::plan(GUEST, Knowledge::only(GUEST), |_| false, Arrangement::Drawing));
        runs.take(GUEST, HOST, ShufflePart::Step).unwrap();
        assert_eq!(runs.end_if_done(GUEST), None);
        runs.arrangement_drawn(GUEST, vec![1, 0]);
        assert_eq!(runs.end_if_done(GUEST), Some(RunEnd { order: Some(vec![1, 0]), own_step: None }));
    }
}
