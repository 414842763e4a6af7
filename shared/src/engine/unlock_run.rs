//! Unlocks as an owned machine: which holder strips which cards in turn, which unlock waits for an earlier one of
//! the same cards, and who reads each card at the end. It takes the strips as they are made or come in and gives
//! back what to do next; the engine (`unlock.rs`) does the cryptography, the sending and the reading, and the
//! machine never reaches back into it.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use crate::ids::Seat;
use crate::table::{CardId, Knowledge};

/// One unlock: each holder strips its cards in turn, then the learners read them.
///
/// Everything here is planned when the action is applied, in the game's order, from the
/// *planned* layers (what will be left once every earlier unlock is done), so both engines
/// plan alike however their messages interleave. Unlocks of one card then run first-come,
/// first-served (`Unlocks`).
#[derive(Clone, Debug)]
pub(super) struct UnlockRun {
    cards: Vec<CardId>,
    steps: VecDeque<(Seat, Vec<CardId>)>,
    learners: Vec<Knowledge>,
}

impl UnlockRun {
    /// Plans the unlock of `cards` for `audience`. `has_layer` says whether a holder's layer is planned on a card:
    /// each holder strips, in seat order, its layer off every card, unless the audience is that holder alone, who
    /// then reads its own layer away without telling anyone. Who learns a card is who can read it through the
    /// layers left: everybody when none is, the one holder whose layer stays, or nobody.
    pub(super) fn plan(cards: Vec<CardId>, audience: Knowledge, has_layer: impl Fn(CardId, Seat) -> bool) -> Self {
        let both = audience == Knowledge::BOTH;
        let steps: VecDeque<(Seat, Vec<CardId>)> = Seat::BOTH
            .into_iter()
            .filter(|holder| both || !audience.knows(*holder))
            .map(|holder| (holder, cards.iter().copied().filter(|id| has_layer(*id, holder)).collect::<Vec<_>>()))
            .filter(|(_, due)| !due.is_empty())
            .collect();
        let strips = |id: CardId, holder: Seat| steps.iter().any(|(h, due)| *h == holder && due.contains(&id));
        let learners = cards
            .iter()
            .map(|id| {
                let left: Vec<Seat> =
                    Seat::BOTH.into_iter().filter(|holder| has_layer(*id, *holder) && !strips(*id, *holder)).collect();
                match left[..] {
                    [] => Knowledge::BOTH,
                    [holder] => Knowledge::only(holder),
                    _ => Knowledge::NOBODY,
                }
            })
            .collect();
        UnlockRun { cards, steps, learners }
    }

    /// Each holder's strip, in turn order, with the cards it names.
    pub(super) fn steps(&self) -> impl Iterator<Item = (Seat, &[CardId])> {
        self.steps.iter().map(|(holder, cards)| (*holder, cards.as_slice()))
    }

    /// Each card with who will know it once the unlock is done.
    pub(super) fn learners(&self) -> impl Iterator<Item = (CardId, Knowledge)> {
        self.cards.iter().copied().zip(self.learners.iter().copied())
    }
}

/// What the player an unlock waits on does next.
#[derive(Debug, PartialEq)]
pub(super) enum UnlockEffect {
    /// Strip this player's layer off `cards` and send the strip: the machine counts it as made.
    Strip { unlock: u64, cards: Vec<CardId> },
    /// Every strip is in: each card is read by its learners.
    Read { cards: Vec<(CardId, Knowledge)> },
}

/// A strip that does not fit the unlocks under way.
#[derive(Debug, PartialEq)]
pub(super) enum StripRefusal {
    /// No such unlock is under way.
    Unknown,
    /// The unlock waits on the other holder, or on an earlier unlock of one of its cards.
    OutOfTurn,
    /// A card the strip is not due for (or named twice).
    NotDue(CardId),
    /// A card the strip is due for and does not name (the least such).
    Missing(CardId),
}

/// The unlocks under way, by their number in the game's order.
#[derive(Clone, Debug, Default)]
pub(super) struct Unlocks {
    runs: BTreeMap<u64, UnlockRun>,
}

impl Unlocks {
    /// Puts unlock `number` under way.
    pub(super) fn start(&mut self, number: u64, run: UnlockRun) {
        self.runs.insert(number, run);
    }

    pub(super) fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    /// Whether an unlock under way names one of `cards`.
    pub(super) fn names_any(&self, cards: &[CardId]) -> bool {
        self.runs.values().any(|run| run.cards.iter().any(|c| cards.contains(c)))
    }

    /// Whether an earlier unlock of one of the same cards is still under way.
    fn blocked(&self, number: u64) -> bool {
        let cards = &self.runs[&number].cards;
        self.runs.range(..number).any(|(_, earlier)| earlier.cards.iter().any(|c| cards.contains(c)))
    }

    /// What `seat` does next, in the order of the unlocks: the first that can run and waits on it gives its strip to
    /// make (counted as made), or, with every strip in, its cards to read (the unlock is over). `None`: nothing
    /// waits on `seat` now.
    pub(super) fn next(&mut self, seat: Seat) -> Option<UnlockEffect> {
        let number = self.runs.keys().copied().find(|&number| {
            !self.blocked(number) && self.runs[&number].steps.front().is_none_or(|(holder, _)| *holder == seat)
        })?;
        let run = self.runs.get_mut(&number)?;
        match run.steps.pop_front() {
            Some((_, cards)) => Some(UnlockEffect::Strip { unlock: number, cards }),
            None => {
                let run = self.runs.remove(&number)?;
                Some(UnlockEffect::Read { cards: run.cards.into_iter().zip(run.learners).collect() })
            }
        }
    }

    /// The first unlock whose strips are all in, over, with its cards to read: what a spectator, who strips
    /// nothing, takes from the machine.
    pub(super) fn next_read(&mut self) -> Option<Vec<(CardId, Knowledge)>> {
        let number = self
            .runs
            .iter()
            .find(|(number, run)| run.steps.is_empty() && !self.blocked(**number))
            .map(|(number, _)| *number)?;
        let run = self.runs.remove(&number)?;
        Some(run.cards.into_iter().zip(run.learners).collect())
    }

    /// The cards `from`'s strip for unlock `number` is due for, if it is `from`'s turn in it.
    pub(super) fn due(&self, number: u64, from: Seat) -> Result<&[CardId], StripRefusal> {
        let run = self.runs.get(&number).ok_or(StripRefusal::Unknown)?;
        match run.steps.front() {
            Some((holder, due)) if *holder == from && !self.blocked(number) => Ok(due),
            _ => Err(StripRefusal::OutOfTurn),
        }
    }

    /// `from`'s strip of `cards` for unlock `number` came in, verified: it must be `from`'s turn, and the strip must
    /// name each due card once and nothing else. Refused, it changes nothing.
    pub(super) fn take_strip(&mut self, number: u64, from: Seat, cards: &[CardId]) -> Result<(), StripRefusal> {
        let mut due: BTreeSet<CardId> = self.due(number, from)?.iter().copied().collect();
        for id in cards {
            if !due.remove(id) {
                return Err(StripRefusal::NotDue(*id));
            }
        }
        if let Some(id) = due.first() {
            return Err(StripRefusal::Missing(*id));
        }
        if let Some(run) = self.runs.get_mut(&number) {
            run.steps.pop_front();
        }
        Ok(())
    }

    /// The cards of the first unlock that can run and waits on `seat`'s strip.
    pub(super) fn due_from(&self, seat: Seat) -> Option<&[CardId]> {
        self.runs.keys().find_map(|&number| self.due(number, seat).ok())
    }

    /// How many cards `seat` still has to strip in all the unlocks under way, whether their turn came or not.
    pub(super) fn owed_by(&self, seat: Seat) -> usize {
        let steps = self.runs.values().flat_map(|run| &run.steps);
        steps.filter(|(holder, _)| *holder == seat).map(|(_, cards)| cards.len()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOST: Seat = Seat::HOST;
    const GUEST: Seat = Seat::GUEST;

    fn ids(ids: &[u32]) -> Vec<CardId> {
        ids.iter().map(|id| CardId(*id)).collect()
    }

    /// An unlock of `cards` for `audience`, with both players' layers planned on every card.
    fn locked(cards: &[u32], audience: Knowledge) -> UnlockRun {
        UnlockRun::plan(ids(cards), audience, |_, _| true)
    }

    fn strip(unlock: u64, cards: &[u32]) -> Option<UnlockEffect> {
        Some(UnlockEffect::Strip { unlock, cards: ids(cards) })
    }

    #[test]
    fn a_public_unlock_is_stripped_by_the_host_then_the_guest_and_read_by_both() {
        let mut unlocks = Unlocks::default();
        unlocks.start(1, locked(&[4, 5], Knowledge::BOTH));
        assert_eq!(unlocks.next(GUEST), None, "the host strips first");
        assert_eq!(unlocks.due_from(GUEST), None);
        assert_eq!(unlocks.due_from(HOST), Some(&ids(&[4, 5])[..]));
        assert_eq!(unlocks.owed_by(GUEST), 2);
        assert_eq!(unlocks.next(HOST), strip(1, &[4, 5]));
        assert_eq!(unlocks.next(HOST), None, "then it waits on the guest");
        assert_eq!(unlocks.take_strip(1, HOST, &ids(&[4, 5])), Err(StripRefusal::OutOfTurn), "a second host strip");
        unlocks.take_strip(1, GUEST, &ids(&[5, 4])).unwrap();
        assert_eq!(unlocks.owed_by(GUEST), 0);
        let read = Some(UnlockEffect::Read { cards: vec![(CardId(4), Knowledge::BOTH), (CardId(5), Knowledge::BOTH)] });
        assert_eq!(unlocks.next(GUEST), read);
        assert!(unlocks.is_empty());
    }

    #[test]
    fn a_private_unlock_is_stripped_by_the_other_holder_only() {
        let run = locked(&[7], Knowledge::only(GUEST));
        assert_eq!(run.steps().collect::<Vec<_>>(), vec![(HOST, &ids(&[7])[..])]);
        assert_eq!(run.learners().collect::<Vec<_>>(), vec![(CardId(7), Knowledge::only(GUEST))]);
        // A card without the host's layer (planned off by an earlier unlock) needs no strip at all.
        let run = UnlockRun::plan(ids(&[7]), Knowledge::only(GUEST), |_, holder| holder == GUEST);
        assert_eq!(run.steps().count(), 0);
        assert_eq!(run.learners().collect::<Vec<_>>(), vec![(CardId(7), Knowledge::only(GUEST))]);
    }

    #[test]
    fn a_strip_out_of_turn_or_of_an_unknown_unlock_is_refused() {
        let mut unlocks = Unlocks::default();
        unlocks.start(1, locked(&[4], Knowledge::BOTH));
        assert_eq!(unlocks.take_strip(1, GUEST, &ids(&[4])), Err(StripRefusal::OutOfTurn), "the host's turn");
        assert_eq!(unlocks.take_strip(2, HOST, &ids(&[4])), Err(StripRefusal::Unknown));
        assert_eq!(unlocks.due(2, HOST), Err(StripRefusal::Unknown));
        // Refused, the strips changed nothing: the host's is still due.
        unlocks.take_strip(1, HOST, &ids(&[4])).unwrap();
    }

    #[test]
    fn a_strip_must_name_each_due_card_once_and_nothing_else() {
        let mut unlocks = Unlocks::default();
        unlocks.start(1, locked(&[4, 5, 6], Knowledge::BOTH));
        assert_eq!(unlocks.take_strip(1, HOST, &ids(&[4, 6])), Err(StripRefusal::Missing(CardId(5))));
        assert_eq!(unlocks.take_strip(1, HOST, &ids(&[4, 5, 6, 9])), Err(StripRefusal::NotDue(CardId(9))));
        assert_eq!(unlocks.take_strip(1, HOST, &ids(&[4, 4, 5, 6])), Err(StripRefusal::NotDue(CardId(4))));
        assert_eq!(unlocks.due(1, HOST), Ok(&ids(&[4, 5, 6])[..]), "still due");
        unlocks.take_strip(1, HOST, &ids(&[6, 5, 4])).unwrap();
        assert_eq!(unlocks.due(1, GUEST), Ok(&ids(&[4, 5, 6])[..]));
    }

    #[test]
    fn an_unlock_of_the_same_cards_waits_for_the_earlier_one() {
        let mut unlocks = Unlocks::default();
        unlocks.start(1, locked(&[4], Knowledge::only(HOST)));
        unlocks.start(2, locked(&[4, 5], Knowledge::BOTH));
        unlocks.start(3, locked(&[6], Knowledge::BOTH));
        assert!(unlocks.names_any(&ids(&[5])) && !unlocks.names_any(&ids(&[7])));
        // Unlock 2 is the host's turn too, but it waits on unlock 1: the host goes on with unlock 3.
        assert_eq!(unlocks.take_strip(2, HOST, &ids(&[4, 5])), Err(StripRefusal::OutOfTurn));
        assert_eq!(unlocks.next(HOST), strip(3, &[6]));
        assert_eq!(unlocks.next(HOST), None);
        assert_eq!(unlocks.owed_by(HOST), 2, "unlock 2's strip, not yet due");
        unlocks.take_strip(1, GUEST, &ids(&[4])).unwrap();
        assert_eq!(unlocks.next(HOST), Some(UnlockEffect::Read { cards: vec![(CardId(4), Knowledge::only(HOST))] }));
        assert_eq!(unlocks.next(HOST), strip(2, &[4, 5]));
    }
}
