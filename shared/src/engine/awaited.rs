//! What this engine waits on the opponent for, and which message kinds it admits at all.

use super::Engine;
use super::api::AlertKind;
use super::fault::Fault;
use super::shuffle_run::{ShufflePart, ShuffleRun};
use crate::crypto::Group;
use crate::ids::Seat;
use crate::table::ZoneId;
use crate::wire::{self, Awaited, MessageKind};

impl<G: Group> Engine<G> {
    /// What this engine waits on the opponent for, if anything: the exchange a player who has
    /// waited too long can claim a forfeit over. Nothing is owed once the game is over or stopped.
    pub fn awaiting_opponent(&self) -> Option<Awaited> {
        if self.game.phase.is_ended() || self.halted.is_some() {
            return None;
        }
        let peer = self.seat.opponent();
        if self.phase.peer_key().is_none() {
            return Some(Awaited::Hello);
        }
        if let Some(awaited) =
            self.awaiting_grid().or_else(|| self.awaiting_winston()).or_else(|| self.awaiting_packs())
        {
            return Some(awaited);
        }
        if self.awaiting_stack() {
            return Some(Awaited::Stack);
        }
        if self.is_drafting() {
            // This player's own pick: nothing is owed by the opponent.
            return None;
        }
        if !self.game.catalogues.contains_key(&peer) {
            // In a limited match's first game the opponent's player builds its deck; later ones come at once.
            let building = self.limited.is_some() && self.game.number == 1;
            return Some(if building { Awaited::Build } else { Awaited::Deck });
        }
        if let Some(cards) = self.game.unlocks.due_from(peer) {
            return Some(Awaited::Strip { cards: cards.to_vec() });
        }
        for (library, run) in self.game.shuffles.iter() {
            let theirs = match run.due_from(peer) {
                Some(ShufflePart::Relock) => true,
                Some(ShufflePart::Step) => !self.game.library_unlocking(*library),
                None => false,
            };
            if theirs {
                return Some(Awaited::Shuffle { library: *library });
            }
        }
        if let Some(number) = self.game.randoms.keys().next() {
            return Some(Awaited::RandomRound { round: *number });
        }
        self.game.proposals.keys().next().map(|&proposal| Awaited::Answer { proposal })
    }

    /// Whether a cryptographic exchange is still under way (strips, shuffles, random rounds,
    /// or a guest proposal waiting for the host).
    pub fn is_busy(&self) -> bool {
        !self.game.unlocks.is_empty()
            || !self.game.shuffles.is_empty()
            || !self.game.randoms.is_empty()
            || !self.game.proposals.is_empty()
    }

    /// Whether a message of `kind` and `len` bytes could be one the opponent owes now. Only the
    /// kinds that carry group elements are checked, each against a bound well above what an
    /// honest message of that kind holds, so a peer cannot make this player validate thousands
    /// of elements nobody awaits. The handlers check the details after decoding.
    pub(super) fn admit(&self, kind: MessageKind, len: usize) -> Result<(), Fault> {
        let peer = self.seat.opponent();
        // An element or scalar is its bytes and a length of at most three.
        let element = G::ELEMENT_LEN + 3;
        let scalar = G::SCALAR_LEN + 3;
        let library_len = |library: &Seat| self.game.table.zone(ZoneId::library(*library)).len();
        let awaited = |runs: &mut dyn Iterator<Item = (&Seat, &ShuffleRun)>| runs.map(|(l, _)| library_len(l)).max();
        let bound = match kind {
            // Per card, its element and catalogue entry; and a difference that names each card of two decks.
            MessageKind::Deck => (!self.game.catalogues.contains_key(&peer) && self.game.phase.game_id().is_some())
                .then(|| {
                    let cards = wire::max_deck_len::<G>() + wire::MAX_COMMANDERS;
                    cards * (element + 1024) + 2 * cards * (crate::crypto::MAX_NAME_LEN + 8)
                }),
            MessageKind::Strip => {
                let cards = self.game.unlocks.owed_by(peer);
                (cards > 0).then(|| cards * (5 * element + 256))
            }
            // Per card: its output and relocked form, three proof elements and two proof scalars;
            // per back, five elements and four scalars more, and a back has a card at least.
            MessageKind::ShuffleStep => {
                awaited(&mut self.game.shuffles.iter().filter(|(_, run)| run.due_from(peer) == Some(ShufflePart::Step)))
                    .map(|cards| cards.max(1) * (10 * (element + 64) + 6 * scalar))
            }
            MessageKind::Relock => awaited(
                &mut self.game.shuffles.iter().filter(|(_, run)| run.due_from(peer) == Some(ShufflePart::Relock)),
            )
            .map(|cards| cards.max(1) * (5 * element + 256)),
            MessageKind::Audit => Some(scalar),
            MessageKind::StackShuffle | MessageKind::StackDeal => self.stack_bound(kind, element, scalar),
            MessageKind::GridReveal => self.grid_reveal_awaited().then_some(9 * (element + 8) + 4 * element),
            MessageKind::StackReveal => self.stack_reveal_awaited().map(|n| n * (element + 16) + 4 * element),
            // Per card, its source and form, and a difference that names each card of two decks; two proofs.
            MessageKind::PoolDeck => (!self.game.catalogues.contains_key(&peer) && self.limited.is_some()).then(|| {
                let cards = wire::max_deck_len::<G>();
                cards * (element + 16) + 2 * cards * (crate::crypto::MAX_NAME_LEN + 8) + 8 * (element + scalar)
            }),
            // The other kinds carry no group element: bounded by MAX_MESSAGE_LEN alone.
            _ => return Ok(()),
        };
        match bound {
            None => Err(Fault::new(AlertKind::Unexpected, format!("a {kind} nothing awaits"))),
            Some(bound) if len > bound + 16 * 1024 => Err(Fault::new(
                AlertKind::Malformed,
                format!("a {kind} of {len} bytes, more than what is awaited could take"),
            )),
            Some(_) => Ok(()),
        }
    }

    /// A forfeit claim must fit this player's own state: when the claimant had taken in every
    /// message this player sent (`ack`) and no exchange is under way here, nothing was owed to
    /// it, so the claim is false. A claim that this player left the game is a claim about a
    /// connection, which no state proves or disproves: it is reported as made.
    pub(super) fn check_forfeit_claim(&self, awaited: &Awaited, ack: u64) -> Result<(), Fault> {
        let sent = self.out.sent_heads.len() as u64;
        let owing = ack < sent || self.is_busy() || !self.game.phase.is_ready() || self.phase.is_awaiting_new_deck();
        if *awaited == Awaited::Return || owing {
            return Ok(());
        }
        Err(Fault::new(
            AlertKind::Unexpected,
            format!(
                "a forfeit claim for want of {awaited}, though it had every message of this player and nothing was under way"
            ),
        ))
    }
}
