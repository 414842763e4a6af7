//! Winston draft: after both players shuffled the stack, its top `cards` positions are drafted through three piles
//! (docs/PROTOCOL.md, "Winston draft").
//!
//! Both engines run the same machine: the piles (lists of stack positions), the stack's next position, whose turn
//! it is and the pile it looks at. What a player may read is what the other revealed to it (`reveals.rs`): whenever
//! a player comes to a pile holding positions it has not seen (or takes the stack's top card unseen), those
//! positions are owed to it. The other player learns how many cards were taken, and from which pile, not which
//! cards it never saw.

use super::Engine;
use super::api::{AlertKind, Event, IntentError};
use super::fault::Fault;
use super::reveals::Reveals;
use crate::crypto::Group;
use crate::ids::Seat;
use crate::seats::SeatMap;
use crate::wire::{Awaited, Message, PileChoice};

/// The draft under way.
#[cfg_attr(fuzzing, derive(Clone))]
pub(super) struct WinstonDraft<G: Group> {
    /// The stack's next position, and its end.
    next: u32,
    end: u32,
    piles: [Vec<u32>; 3],
    /// Whose turn it is, and the pile it looks at; none once the draft is over.
    looking: Option<(Seat, usize)>,
    /// What each seat was revealed, and is owed.
    pub(super) reveals: Reveals<G>,
    /// Each seat's picks, in order; a card taken unseen is read once revealed.
    picked: SeatMap<Vec<u32>>,
    /// This player's card taken unseen, named once revealed.
    blind: Option<u32>,
    /// The state last told (piles' sizes, stack, who looks where), so that it is told once per change; and the
    /// state in which this player was last shown its pile, so that a look is shown once.
    told: Option<Told>,
    shown: Option<Told>,
}

type Told = ([u32; 3], u32, Option<(Seat, u8)>);

impl<G: Group> WinstonDraft<G> {
    pub(super) fn new(cards: u32) -> Self {
        let mut draft = WinstonDraft {
            next: 3,
            end: cards,
            piles: [vec![0], vec![1], vec![2]],
            looking: None,
            reveals: Reveals::new(),
            picked: SeatMap::default(),
            blind: None,
            told: None,
            shown: None,
        };
        draft.arrive(Seat::HOST, 0);
        draft
    }

    /// The stack's top position, drawn.
    fn draw(&mut self) -> Option<u32> {
        (self.next < self.end).then(|| {
            self.next += 1;
            self.next - 1
        })
    }

    /// `seat` comes to the first pile from `from` on that holds a card: owed what it has not seen of it. With none
    /// left, the turn passes, or the draft is over.
    fn arrive(&mut self, seat: Seat, from: usize) {
        match (from..3).find(|&pile| !self.piles[pile].is_empty()) {
            Some(pile) => {
                self.reveals.owe(seat, &self.piles[pile]);
                self.looking = Some((seat, pile));
            }
            None => self.looking = None,
        }
    }

    /// Whether `seat` may choose now: its turn, at a pile it can read whole.
    fn may_choose(&self, seat: Seat) -> Option<usize> {
        let (turn, pile) = self.looking?;
        (turn == seat && self.reveals.reads(seat, &self.piles[pile])).then_some(pile)
    }

    /// Whether passing `pile` is allowed: a later pile, or the stack, has a card.
    fn may_pass(&self, pile: usize) -> bool {
        self.next < self.end || (pile + 1..3).any(|later| !self.piles[later].is_empty())
    }

    /// Applies `seat`'s choice of `pile`: what it took (the positions, and whether unseen).
    fn choose(&mut self, seat: Seat, pile: usize, choice: PileChoice) -> (Vec<u32>, bool) {
        match choice {
            PileChoice::Take => {
                let taken = std::mem::take(&mut self.piles[pile]);
                let refill = self.draw();
                self.piles[pile].extend(refill);
                self.picked[seat].extend(&taken);
                self.arrive(seat.opponent(), 0);
                (taken, false)
            }
            PileChoice::Pass if (pile + 1..3).any(|later| !self.piles[later].is_empty()) => {
                let card = self.draw();
                self.piles[pile].extend(card);
                self.arrive(seat, pile + 1);
                (Vec::new(), false)
            }
            PileChoice::Pass => {
                // The last pile passed: the stack's next card joins it, and the card after that, unseen, goes to
                // the taker. With one card left in the stack the pile stays as it is: that card is the one taken.
                let (Some(first), second) = (self.draw(), self.draw()) else {
                    // `may_pass` refuses this pass, on both sides; nothing changes.
                    return (Vec::new(), false);
                };
                let top = match second {
                    Some(second) => {
                        self.piles[pile].push(first);
                        second
                    }
                    None => first,
                };
                self.picked[seat].push(top);
                self.reveals.owe(seat, &[top]);
                self.arrive(seat.opponent(), 0);
                (vec![top], true)
            }
        }
    }

    fn done(&self) -> bool {
        self.looking.is_none() && self.reveals.is_quiet()
    }
}

impl<G: Group> Engine<G> {
    fn winston(&self) -> Option<&WinstonDraft<G>> {
        self.limited.as_ref()?.winston.as_ref()
    }

    /// After any change: sends what this player owes the opponent, tells where the draft stands, shows this player
    /// its pile once readable, and ends the draft once every pick is read.
    pub(super) fn advance_winston(&mut self) {
        if !self.stack().is_some_and(|stack| stack.is_shuffled()) {
            return;
        }
        self.send_owed_reveals();
        self.show_blind_take();
        let Some(draft) = self.winston() else { return };
        let piles = draft.piles.clone().map(|pile| pile.len() as u32);
        let looking = draft.looking.map(|(seat, pile)| (seat, pile as u8));
        let now = (piles, draft.end - draft.next, looking);
        let state = (draft.told != Some(now)).then_some(Event::Winston { piles, stack: now.1, looking });
        let shown = draft.may_choose(self.seat).filter(|_| draft.shown != Some(now)).map(|pile| {
            let cards = self.revealed_names(&draft.piles[pile]);
            Event::PileShown { pile: pile as u8, cards }
        });
        let done = draft.done();
        if let Some(draft) = self.limited.as_mut().and_then(|l| l.winston.as_mut()) {
            draft.told = Some(now);
            if shown.is_some() {
                draft.shown = Some(now);
            }
        }
        if let Some(state) = state {
            self.out.emit(state);
        }
        if let Some(shown) = shown {
            self.out.emit(shown);
        }
        if done {
            self.finish_winston();
        }
    }

    /// This player's card taken unseen, named once the opponent revealed it.
    fn show_blind_take(&mut self) {
        let me = self.seat;
        let Some(draft) = self.winston() else { return };
        let Some(blind) = draft.blind.filter(|p| draft.reveals.reads(me, &[*p])) else { return };
        let cards = self.revealed_names(&[blind]);
        if let Some(draft) = self.limited.as_mut().and_then(|l| l.winston.as_mut()) {
            draft.blind = None;
        }
        self.out.emit(Event::PileTaken { by: me, pile: None, count: 1, cards });
    }

    /// `Intent::Pile`: this player takes or passes the pile it looks at, in its turn.
    pub(super) fn choose_pile(&mut self, choice: PileChoice) -> Result<(), IntentError> {
        let Some(draft) = self.winston() else {
            return Err(IntentError::Invalid("there is no Winston draft under way".into()));
        };
        let Some(pile) = draft.may_choose(self.seat) else {
            return Err(IntentError::Invalid("it is not your turn to look at a pile".into()));
        };
        if choice == PileChoice::Pass && !draft.may_pass(pile) {
            return Err(IntentError::Invalid("the stack is empty: take this pile".into()));
        }
        self.out.send::<G>(&Message::WinstonChoice { pile: pile as u8, choice });
        self.apply_pile_choice(self.seat, pile, choice);
        Ok(())
    }

    /// The opponent's choice: its turn, the pile it looks at (which it could read whole), a pass only if allowed.
    pub(super) fn receive_winston_choice(&mut self, pile: u8, choice: PileChoice) -> Result<(), Fault> {
        let peer = self.seat.opponent();
        let fits = self.winston().is_some_and(|draft| {
            draft.looking == Some((peer, usize::from(pile)))
                && draft.reveals.reads(peer, &draft.piles[usize::from(pile)])
                && (choice == PileChoice::Take || draft.may_pass(usize::from(pile)))
        });
        if !fits {
            return Err(Fault::new(AlertKind::Unexpected, format!("a choice of pile {pile} not offered")));
        }
        self.apply_pile_choice(peer, usize::from(pile), choice);
        Ok(())
    }

    fn apply_pile_choice(&mut self, by: Seat, pile: usize, choice: PileChoice) {
        let me = self.seat;
        let Some(draft) = self.limited.as_mut().and_then(|l| l.winston.as_mut()) else { return };
        let (taken, unseen) = draft.choose(by, pile, choice);
        if unseen && by == me {
            // Named once the opponent reveals it.
            draft.blind = taken.first().copied();
        } else if !taken.is_empty() {
            let cards = if by == me { self.revealed_names(&taken) } else { Vec::new() };
            let pile = (!unseen).then_some(pile as u8);
            self.out.emit(Event::PileTaken { by, pile, count: taken.len() as u32, cards });
        }
        self.advance_winston();
    }

    /// Every pick read: the pools are the picks.
    fn finish_winston(&mut self) {
        let Some(draft) = self.limited.as_mut().and_then(|l| l.winston.take()) else { return };
        self.take_drafted_pools(&draft.reveals, &draft.picked);
    }

    /// Whether a draft is under way with nothing owed by either engine: it waits on a player's pick or choice.
    pub fn waits_on_a_pick(&self) -> bool {
        let shuffled = self.stack().is_some_and(|stack| stack.is_shuffled());
        let winston = self.winston().is_some_and(|draft| draft.reveals.is_quiet());
        shuffled && (winston || self.grid_waits_on_a_pick() || self.packs_wait_on_a_pick())
    }

    /// What the opponent owes in a Winston draft: a reveal, or its choice.
    pub(super) fn awaiting_winston(&self) -> Option<Awaited> {
        let draft = self.winston()?;
        if !self.stack().is_some_and(|stack| stack.is_shuffled()) {
            return None;
        }
        if draft.reveals.is_owed(self.seat) {
            return Some(Awaited::Stack);
        }
        draft.may_choose(self.seat.opponent()).map(|_| Awaited::Pick)
    }
}
