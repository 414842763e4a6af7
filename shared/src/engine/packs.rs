//! Booster draft for two: round after round, each player opens a pack, takes one card and passes the rest to the
//! other, who takes one and passes it back, until both packs are empty (docs/PROTOCOL.md, "Booster draft").
//!
//! Packs are lists of stack positions, laid out before the shuffles. A player reads what the other revealed to it
//! (`reveals.rs`): a pack's cards it has not seen are owed to it when the pack comes to it, so the opener alone reads
//! its pack, and the other player reads the rest once passed, never the card taken first. A pick names its stack
//! position: the other player learns which position went, which tells it the card only if it saw the pack, as a
//! pack passed back shows what was taken from it at a real table.

use std::collections::VecDeque;

use super::Engine;
use super::api::{AlertKind, Event, IntentError};
use super::fault::Fault;
use super::reveals::Reveals;
use crate::crypto::Group;
use crate::ids::Seat;
use crate::seats::SeatMap;
use crate::wire::{Awaited, Message};

/// The draft under way.
#[cfg_attr(fuzzing, derive(Clone))]
pub(super) struct PackDraft<G: Group> {
    /// Each pack's positions not taken yet, in the stack's order; round `r`'s packs are `2r`, which the host opens,
    /// and `2r + 1`, which the guest opens.
    packs: Vec<Vec<u32>>,
    round: u32,
    /// The packs waiting with each seat (host, guest), in the order they came: it picks from the first.
    waiting: SeatMap<VecDeque<u32>>,
    /// What each seat was revealed, and is owed.
    pub(super) reveals: Reveals<G>,
    /// Each seat's picks, in order.
    picked: SeatMap<Vec<u32>>,
    /// The standing last told, and the pack (with its size) last shown to this player, each told once.
    told: Option<Standing>,
    shown: Option<(u32, usize)>,
}

/// The round, the packs waiting with each seat and each seat's picks.
type Standing = (u32, SeatMap<u32>, SeatMap<u32>);

impl<G: Group> PackDraft<G> {
    /// A draft of `packs`, two to a round (the host's, then the guest's).
    pub(super) fn new(packs: Vec<Vec<u32>>) -> Self {
        let mut draft = PackDraft {
            packs,
            round: 0,
            waiting: SeatMap::default(),
            reveals: Reveals::new(),
            picked: SeatMap::default(),
            told: None,
            shown: None,
        };
        draft.open_round();
        draft
    }

    fn rounds(&self) -> u32 {
        self.packs.len() as u32 / 2
    }

    /// Each seat opens its pack of the round: its cards owed to it.
    fn open_round(&mut self) {
        for seat in [Seat::HOST, Seat::GUEST] {
            let pack = 2 * self.round + seat.index() as u32;
            self.waiting[seat].push_back(pack);
            self.reveals.owe(seat, &self.packs[pack as usize]);
        }
    }

    /// The pack `seat` picks from now, once it can read it whole.
    fn ready(&self, seat: Seat) -> Option<u32> {
        let pack = *self.waiting[seat].front()?;
        self.reveals.reads(seat, &self.packs[pack as usize]).then_some(pack)
    }

    /// `seat` takes `position` of `pack`, its first: the rest goes to the other seat, owed what it has not seen;
    /// once the round's packs are empty, the next round opens.
    fn take(&mut self, seat: Seat, pack: u32, position: u32) {
        let left = &mut self.packs[pack as usize];
        left.retain(|&p| p != position);
        self.picked[seat].push(position);
        self.waiting[seat].pop_front();
        if !left.is_empty() {
            let other = seat.opponent();
            self.waiting[other].push_back(pack);
            self.reveals.owe(other, &self.packs[pack as usize]);
        } else if self.waiting.values().all(VecDeque::is_empty) && self.round + 1 < self.rounds() {
            self.round += 1;
            self.open_round();
        }
    }

    fn standing(&self) -> Standing {
        let waiting = self.waiting.map(|packs| packs.len() as u32);
        (self.round, waiting, self.picked.map(|picks| picks.len() as u32))
    }

    fn done(&self) -> bool {
        self.waiting.values().all(VecDeque::is_empty) && self.reveals.is_quiet()
    }
}

impl<G: Group> Engine<G> {
    fn packs(&self) -> Option<&PackDraft<G>> {
        self.limited.as_ref()?.packs.as_ref()
    }

    fn packs_mut(&mut self) -> Option<&mut PackDraft<G>> {
        self.limited.as_mut()?.packs.as_mut()
    }

    /// After any change: sends what this player owes the opponent, tells where the draft stands, shows this player
    /// the pack it picks from once readable, and ends the draft once every pack is empty.
    pub(super) fn advance_packs(&mut self) {
        if !self.stack().is_some_and(|stack| stack.is_shuffled()) {
            return;
        }
        self.send_owed_reveals();
        let Some(draft) = self.packs() else { return };
        let standing = draft.standing();
        let told = (draft.told.as_ref() != Some(&standing)).then(|| {
            let (round, waiting, picks) = standing.clone();
            Event::Packs { round, rounds: draft.rounds(), waiting, picks }
        });
        let shown = draft
            .ready(self.seat)
            .map(|pack| (pack, draft.packs[pack as usize].clone()))
            .filter(|(pack, left)| draft.shown != Some((*pack, left.len())));
        let done = draft.done();
        let shown = shown.map(|(pack, left)| {
            let cards = self.revealed_names(&left);
            (Event::Pack { pack, cards }, (pack, left.len()))
        });
        if let Some(draft) = self.packs_mut() {
            draft.told = Some(standing);
            if let Some((_, now)) = &shown {
                draft.shown = Some(*now);
            }
        }
        if let Some(told) = told {
            self.out.emit(told);
        }
        if let Some((shown, _)) = shown {
            self.out.emit(shown);
        }
        if done {
            self.finish_packs();
        }
    }

    /// `Intent::TakeCard`: this player takes card `n` of the pack it picks from now.
    pub(super) fn take_card(&mut self, n: u32) -> Result<(), IntentError> {
        let Some(draft) = self.packs() else {
            return Err(IntentError::Invalid("there is no booster draft under way".into()));
        };
        let Some(pack) = draft.ready(self.seat) else {
            return Err(IntentError::Invalid("there is no pack to take a card from yet".into()));
        };
        let left = &draft.packs[pack as usize];
        let Some(&position) = left.get(n as usize) else {
            return Err(IntentError::Invalid(format!("the pack holds {} cards", left.len())));
        };
        self.out.send::<G>(&Message::PackPick { pack, position });
        self.apply_pack_pick(self.seat, pack, position);
        Ok(())
    }

    /// The opponent's pick: of the first pack waiting with it, which it could read whole, a card still in it.
    pub(super) fn receive_pack_pick(&mut self, pack: u32, position: u32) -> Result<(), Fault> {
        let peer = self.seat.opponent();
        let fits = self
            .packs()
            .is_some_and(|draft| draft.ready(peer) == Some(pack) && draft.packs[pack as usize].contains(&position));
        if !fits {
            return Err(Fault::new(
                AlertKind::Unexpected,
                format!("a pick of stack position {position} from pack {pack}, not offered"),
            ));
        }
        self.apply_pack_pick(peer, pack, position);
        Ok(())
    }

    fn apply_pack_pick(&mut self, by: Seat, pack: u32, position: u32) {
        let card = (by == self.seat).then(|| self.revealed_names(&[position]).remove(0));
        if let Some(draft) = self.packs_mut() {
            draft.take(by, pack, position);
        }
        self.out.emit(Event::CardTaken { by, pack, card });
        self.advance_packs();
    }

    /// Every pack empty and every reveal in: the pools are the picks.
    fn finish_packs(&mut self) {
        let Some(draft) = self.limited.as_mut().and_then(|l| l.packs.take()) else { return };
        self.take_drafted_pools(&draft.reveals, &draft.picked);
    }

    /// Whether a booster draft waits on a player's pick, nothing owed by either engine.
    pub(super) fn packs_wait_on_a_pick(&self) -> bool {
        self.packs().is_some_and(|draft| draft.reveals.is_quiet())
    }

    /// What the opponent owes in a booster draft: a reveal, or its pick.
    pub(super) fn awaiting_packs(&self) -> Option<Awaited> {
        let draft = self.packs()?;
        if !self.stack().is_some_and(|stack| stack.is_shuffled()) {
            return None;
        }
        if draft.reveals.is_owed(self.seat) {
            return Some(Awaited::Stack);
        }
        draft.ready(self.seat.opponent()).map(|_| Awaited::Pick)
    }
}
