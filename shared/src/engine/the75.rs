//! The match's 75: each later game's deck compared, card names counted, with its owner's deck in the match's
//! first game. A difference is a warning to both players, never a refusal: the table enforces no format.
//!
//! The opponent's card names are sealed in its catalogue until its end-of-game audit, so the receiver cannot count
//! them when a deck arrives. Each deck message therefore carries its sender's own account of its difference
//! (`DeckDifference`), which both players are shown at once; the receiver checks that account against the audited
//! decks once it has audited the opponent's deck in both the first game and the later one.

use super::Engine;
use super::api::{AlertKind, DifferenceCheck, Event};
use super::fault::Fault;
use crate::crypto::{CardInstance, Group};
use crate::ids::Seat;
use crate::wire::{self, DeckDifference, card_counts};

impl<G: Group> Engine<G> {
    /// The difference of this player's deck from its deck in the match's first game, for its deck message; in the
    /// first game, that deck is recorded.
    pub(super) fn own_difference(&mut self) -> DeckDifference {
        let deck = &self.deck;
        let counts = card_counts(deck.library.iter().chain(&deck.sideboard).chain(&deck.commander).map(|c| &*c.name));
        let first = &mut self.first_decks[self.seat];
        match first {
            // Every game sends this player's deck, the first one too.
            Some(first) => DeckDifference::between(first, &counts),
            None => {
                *first = Some(counts);
                DeckDifference::default()
            }
        }
    }

    /// The opponent's account of its deck's difference, checked for form: none in the first game, one form only,
    /// no more cards added than the deck holds nor removed than a deck can hold.
    pub(super) fn check_difference(&self, difference: &DeckDifference, cards: usize) -> Result<(), Fault> {
        let malformed = |what: &str| Err(Fault::new(AlertKind::Malformed, format!("a deck difference {what}")));
        if self.game.number == 1 && !difference.is_empty() {
            return malformed("in the match's first game");
        }
        if !difference.is_canonical() {
            return malformed("out of order, with a name twice or a count of zero");
        }
        let names = difference.added.iter().chain(&difference.removed);
        if let Some((_, name)) = names.clone().find(|(_, name)| !crate::crypto::name_fits(name)) {
            return malformed(&format!("naming {name:?}, which no card can be named"));
        }
        let (added, removed) = difference.totals();
        if added > cards as u64 || removed > (wire::max_deck_len::<G>() + wire::MAX_COMMANDERS) as u64 {
            return malformed(&format!("of +{added} −{removed} cards for a deck of {cards}"));
        }
        Ok(())
    }

    /// Tells the interface how `seat`'s deck differs from the match's 75, if it does, and whether anything can
    /// check that account.
    pub(super) fn tell_difference(&mut self, seat: Seat, difference: DeckDifference) {
        if !difference.is_empty() {
            let check = if self.unverifiable[seat] { DifferenceCheck::Unverifiable } else { DifferenceCheck::AtAudit };
            self.out.emit(Event::DeckDiffers { seat, game: self.game.number, difference: difference.clone(), check });
        }
        self.game.differences.insert(seat, difference);
    }

    /// At the start of the next game, each deck of the game being left whose audit the opponent never took in: both
    /// players are told, and a deck of the match's first game that went unaudited leaves every later difference of
    /// its owner's unverifiable. `request` is this player's new-game message, `peer_ack` what the opponent's had
    /// taken in: the opponent started the next game (and dropped the rest of this one) at the later of sending its
    /// request and taking in this player's, so it took in this player's audit if the audit came before either.
    pub(super) fn tell_missing_audits(&mut self, request: u64, peer_ack: u64) {
        let own_taken = self.game.own_audit.is_some_and(|audit| audit < request || audit < peer_ack);
        for (seat, audited) in [(self.seat, own_taken), (self.seat.opponent(), self.game.peer_audited)] {
            if audited {
                continue;
            }
            if self.game.number == 1 {
                self.unverifiable[seat] = true;
            }
            self.out.emit(Event::AuditMissing { seat, game: self.game.number });
        }
    }

    /// The opponent's audited deck: in the first game, the deck later games are compared with; in a later one,
    /// the check of the difference its deck message declared, when the first game's deck was audited too.
    pub(super) fn audit_difference(&mut self, deck: &[CardInstance]) -> Result<(), Fault> {
        let peer = self.seat.opponent();
        let counts = card_counts(deck.iter().map(|card| &*card.name));
        if self.game.number == 1 {
            self.first_decks[peer] = Some(counts);
            return Ok(());
        }
        let Some(first) = &self.first_decks[peer] else { return Ok(()) };
        let actual = DeckDifference::between(first, &counts);
        if self.game.differences.get(&peer) == Some(&actual) {
            return Ok(());
        }
        Err(Fault::new(
            AlertKind::Unexpected,
            format!("the deck's declared difference from the match's first deck is false: it is really {actual:?}"),
        ))
    }
}
