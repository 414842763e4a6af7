//! Grid draft: after both players shuffled the stack, grid after grid of nine positions is revealed to both and each
//! player takes a row or a column of it in turn (docs/PROTOCOL.md, "Grid draft").
//!
//! A grid is revealed as a deal to both: each player strips its layer off the nine positions, with proof, and reads
//! the cards by stripping its own off the other's forms. Each engine so holds every card of the grid under each
//! player's layer alone: a card a player takes joins its pool in the form under its own layer, which the opponent
//! holds (its own strip), exactly as a sealed deal leaves it, so decks are built and checked as in sealed.

use super::Engine;
use super::api::{AlertKind, Event, IntentError};
use super::fault::Fault;
use crate::crypto::{DleqProof, Group};
use crate::ids::Seat;
use crate::wire::{Awaited, GridLine, Message};

/// The draft under way: the grid being picked from, and what each engine holds of it.
#[cfg_attr(fuzzing, derive(Clone))]
pub(super) struct GridDraft<G: Group> {
    grids: u32,
    /// The grid being revealed or picked from.
    current: u32,
    /// This player's strips of the current grid (forms under the opponent's layer alone), once made.
    mine_off: Option<Vec<G::Element>>,
    /// The opponent's strips of the current grid (forms under this player's layer alone), once checked.
    peer_off: Option<Vec<G::Element>>,
    /// The point index (place in the pool file) of each cell, once both strips are in.
    cells: Option<Vec<u32>>,
    taken: [bool; 9],
    /// Picks made of the current grid.
    picks: u8,
}

impl<G: Group> GridDraft<G> {
    pub(super) fn new(grids: u32) -> Self {
        GridDraft { grids, current: 0, mine_off: None, peer_off: None, cells: None, taken: [false; 9], picks: 0 }
    }

    /// Who picks next from the current grid: the host first in even grids, the guest in odd ones.
    fn picker(&self) -> Option<Seat> {
        let first = if self.current.is_multiple_of(2) { Seat::HOST } else { Seat::GUEST };
        match self.picks {
            0 => Some(first),
            1 => Some(first.opponent()),
            _ => None,
        }
    }

    /// The cells of `line` not taken yet; none for a line beyond the grid.
    fn open_cells(&self, line: GridLine) -> Vec<usize> {
        line.cells().into_iter().filter(|&cell| !self.taken[cell]).collect()
    }

    /// Whether every grid was picked.
    pub(super) fn is_done(&self) -> bool {
        self.current >= self.grids
    }
}

fn grid_purpose(seat: Seat, grid: u32) -> String {
    format!("stack/{}/grid/{grid}", seat.id_byte())
}

impl<G: Group> Engine<G> {
    fn grid(&self) -> Option<&GridDraft<G>> {
        self.limited.as_ref()?.grid.as_ref()
    }

    /// Strips this player's layer off the current grid's nine positions, with proof.
    pub(super) fn reveal_grid(&mut self) {
        let me = self.seat;
        let seq = self.out.next_seq();
        let Some(limited) = self.limited.as_mut() else { return };
        let (Some(stack), Some(grid)) = (limited.stack.as_ref(), limited.grid.as_mut()) else { return };
        let context = self.game.context(seq, grid_purpose(me, grid.current));
        let start = 9 * grid.current as usize;
        let (stripped, proof) = stack.key.strip_with_proof(stack.cards_at(start..start + 9), &context, &mut self.rng);
        let forms = stripped.into_inner().cards;
        grid.mine_off = Some(forms.clone());
        let number = grid.current;
        self.out.send::<G>(&Message::GridReveal { grid: number, forms, proof });
        self.read_grid();
    }

    /// The opponent's strips of the current grid: checked against the stack and its stack key.
    pub(super) fn receive_grid_reveal(
        &mut self,
        seq: u64,
        number: u32,
        forms: Vec<G::Element>,
        proof: DleqProof<G>,
    ) -> Result<(), Fault> {
        let peer = self.seat.opponent();
        let context = self.game.context(seq, grid_purpose(peer, number));
        let Some(limited) = self.limited.as_mut() else {
            return Err(Fault::new(AlertKind::Unexpected, "a grid-reveal outside a grid draft"));
        };
        let (Some(stack), Some(grid)) = (limited.stack.as_ref(), limited.grid.as_mut()) else {
            return Err(Fault::new(AlertKind::Unexpected, "a grid-reveal outside a grid draft"));
        };
        if !stack.is_shuffled()
            || grid.is_done()
            || number != grid.current
            || grid.peer_off.is_some()
            || forms.len() != 9
        {
            return Err(Fault::new(AlertKind::Unexpected, format!("a grid-reveal of grid {number} out of turn")));
        }
        let key = stack
            .peer_key
            .as_ref()
            .ok_or_else(|| Fault::new(AlertKind::Unexpected, "a grid-reveal before the shuffles"))?;
        let start = 9 * grid.current as usize;
        let stripped = key
            .verify_strip(stack.cards_at(start..start + 9), forms, &proof, &context)
            .map_err(|e| Fault::new(AlertKind::BadProof, format!("the reveal of grid {number}: {e}")))?;
        grid.peer_off = Some(stripped.into_inner().cards);
        self.read_grid();
        Ok(())
    }

    /// Once both strips of the current grid are in: this player strips its own layer off the opponent's forms and
    /// reads the nine cards.
    fn read_grid(&mut self) {
        let Some(limited) = self.limited.as_mut() else { return };
        let (Some(stack), Some(grid)) = (limited.stack.as_ref(), limited.grid.as_mut()) else { return };
        let Some(peer_off) = grid.peer_off.as_ref().filter(|_| grid.mine_off.is_some() && grid.cells.is_none()) else {
            return;
        };
        grid.cells = Some(stack.read(peer_off));
        self.show_grid();
    }

    fn show_grid(&mut self) {
        let Some(limited) = self.limited.as_ref() else { return };
        let (Some(stack), Some(grid)) = (limited.stack.as_ref(), limited.grid.as_ref()) else { return };
        let Some(cells) = &grid.cells else { return };
        let names = cells
            .iter()
            .zip(grid.taken)
            .map(|(&point, taken)| (!taken).then(|| stack.names[point as usize].clone()))
            .collect();
        self.out.emit(Event::Grid { grid: grid.current, cells: names, picker: grid.picker() });
    }

    /// `Intent::Pick`: this player takes `line` of the grid shown, in its turn.
    pub(super) fn pick(&mut self, line: GridLine) -> Result<(), IntentError> {
        let Some(grid) = self.grid() else {
            return Err(IntentError::Invalid("there is no grid draft".into()));
        };
        if grid.is_done() {
            return Err(IntentError::Invalid("the grid draft is over".into()));
        }
        if grid.cells.is_none() {
            return Err(IntentError::NotReady);
        }
        if grid.picker() != Some(self.seat) {
            return Err(IntentError::Invalid("it is the opponent's pick".into()));
        }
        if grid.open_cells(line).is_empty() {
            return Err(IntentError::Invalid(format!("{line} of the grid holds no card left")));
        }
        let number = grid.current;
        self.out.send::<G>(&Message::GridPick { grid: number, line });
        self.take_line(self.seat, line);
        Ok(())
    }

    /// The opponent's pick: its turn, the grid shown, a line with a card left.
    pub(super) fn receive_grid_pick(&mut self, number: u32, line: GridLine) -> Result<(), Fault> {
        let peer = self.seat.opponent();
        let offered = self.grid().is_some_and(|grid| {
            grid.cells.is_some()
                && !grid.is_done()
                && grid.current == number
                && grid.picker() == Some(peer)
                && !grid.open_cells(line).is_empty()
        });
        if !offered {
            return Err(Fault::new(AlertKind::Unexpected, format!("a pick of {line} of grid {number}, not offered")));
        }
        self.take_line(peer, line);
        Ok(())
    }

    /// `by` takes what is left of `line`: each card joins its pool in the form under its own layer alone. After the
    /// second pick the next grid is revealed, or, the last one picked, each pool is told.
    fn take_line(&mut self, by: Seat, line: GridLine) {
        let me = self.seat;
        let Some(limited) = self.limited.as_mut() else { return };
        let (Some(stack), Some(grid)) = (limited.stack.as_mut(), limited.grid.as_mut()) else { return };
        let (Some(cells), Some(mine_off), Some(peer_off)) = (&grid.cells, &grid.mine_off, &grid.peer_off) else {
            return;
        };
        let open = grid.open_cells(line);
        // This player's cards are under its layer alone in the opponent's strips; the opponent's in this player's.
        let forms = if by == me { peer_off } else { mine_off };
        let dealt = stack.dealt[by].get_or_insert_with(Vec::new);
        dealt.extend(open.iter().map(|&cell| forms[cell].clone()));
        let cards = open.iter().map(|&cell| stack.names[cells[cell] as usize].clone()).collect();
        for &cell in &open {
            grid.taken[cell] = true;
        }
        grid.picks += 1;
        let number = grid.current;
        self.out.emit(Event::Picked { by, grid: number, line, cards });
        self.next_grid();
    }

    /// After a pick: the grid as it stands, or, both picked, the next grid's reveal, or the pools once drafted.
    fn next_grid(&mut self) {
        let Some(limited) = self.limited.as_mut() else { return };
        let (Some(stack), Some(grid)) = (limited.stack.as_mut(), limited.grid.as_mut()) else { return };
        if grid.picker().is_some() {
            return self.show_grid();
        }
        *grid = GridDraft { current: grid.current + 1, ..GridDraft::new(grid.grids) };
        if !grid.is_done() {
            return self.reveal_grid();
        }
        // Every grid picked: the forms each player took are its pool, shuffled by its owner.
        let theirs = stack.dealt[self.seat.opponent()].take().unwrap_or_default();
        let mine = stack.dealt[self.seat].take().unwrap_or_default();
        self.shuffle_drafted_pools(mine, theirs);
    }

    /// What the opponent owes in a grid draft, if anything: its reveal of the current grid, or its pick.
    pub(super) fn awaiting_grid(&self) -> Option<Awaited> {
        let grid = self.grid()?;
        if grid.is_done() || grid.mine_off.is_none() {
            return None;
        }
        if grid.peer_off.is_none() {
            return Some(Awaited::Stack);
        }
        (grid.picker() == Some(self.seat.opponent())).then_some(Awaited::Pick)
    }

    /// Whether the grid draft shows a grid both read, waiting on a pick.
    pub(super) fn grid_waits_on_a_pick(&self) -> bool {
        self.grid().is_some_and(|grid| grid.cells.is_some() && !grid.is_done())
    }

    /// Whether the opponent may send a grid-reveal now (nine forms and a proof).
    pub(super) fn grid_reveal_awaited(&self) -> bool {
        let shuffled = self.stack().is_some_and(|stack| stack.is_shuffled());
        shuffled && self.grid().is_some_and(|grid| !grid.is_done() && grid.peer_off.is_none())
    }
}
