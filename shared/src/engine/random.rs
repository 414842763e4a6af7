//! Shared randomness: commit–reveal rounds for dice, coins, random picks and arrangements.

use super::Engine;
use super::api::{AlertKind, ChosenBy, Event, GameEnd};
use super::fault::Fault;
use super::round::{RandomKind, RandomRound, RoundError};
use super::state::{LossTold, single_loser};
use crate::crypto::{BackId, Coin, Group, ProofError, SharedSeed, Verified};
use crate::ids::Seat;
use crate::table::{Knowledge, ZoneId};
use crate::wire::{Action, CHOOSER_ROUND, Message};

impl<G: Group> Engine<G> {
    /// At the start of every game, once this player's deck is sent: the previous game's loser chooses to play or
    /// draw when both new-game requests named it (`agreed_loser`); otherwise (the match's first game, no single
    /// loser, or the two requests disagree) a fair coin decides. Both engines start the coin's round alike; the
    /// opponent's commitment follows its deck.
    pub(super) fn decide_chooser(&mut self, agreed_loser: Option<Seat>) {
        match agreed_loser {
            Some(loser) => {
                self.game.chooser = Some(loser);
                self.out.emit(Event::Chooser { seat: loser, by: ChosenBy::Loser });
            }
            None => self.start_random(CHOOSER_ROUND, Seat::HOST, RandomKind::Chooser),
        }
    }

    /// The loser of this game as this player sees it, for its new-game request: the single player who lost it, or
    /// this player while its own concession waits for the host's answer (a guest that concedes and asks at once).
    pub(super) fn loser_as_seen(&self) -> Option<Seat> {
        let mut losers = self.game.losers.clone();
        if self.game.proposals.values().any(|action| *action == Action::Concede) {
            losers.insert(self.seat);
        }
        single_loser(&losers)
    }

    /// Records that `loser` lost the game, and tells the interface. `since`: this player's message that tells the
    /// opponent, or `None` when the opponent's own message told this player.
    pub(super) fn record_loss(&mut self, loser: Seat, how: GameEnd, since: Option<u64>) {
        self.game.losers.insert(loser);
        self.game.losses_told.push(LossTold { loser, since, until: None });
        self.out.emit(Event::GameOver { loser, how });
    }

    /// The loser the opponent saw (`loser_as_seen` on its side) when it had taken in `ack` of this player's
    /// messages and every one of its own before: what an honest new-game request sent then names. Each loss it knew
    /// of came from one of those messages, whatever the order of delivery, so a request that names another loser is
    /// false, and one sent before the deciding message reached it (a true crossing) is not.
    pub(super) fn loser_seen_by_peer(&self, ack: u64) -> Option<Seat> {
        let counted = self.game.losses_told.iter().filter(|loss| loss.counted_at(ack)).map(|loss| loss.loser);
        single_loser(&counted.collect())
    }

    pub(super) fn start_random(&mut self, number: u64, by: Seat, kind: RandomKind) {
        let purpose = format!("random/{number}");
        let game_id = self.game.game_id();
        if self.observing {
            self.game.randoms.insert(number, RandomRound::observed(by, kind, &purpose, game_id));
            return;
        }
        let (round, commitment) = RandomRound::start(by, kind, &purpose, game_id, self.seat, &mut self.rng);
        self.out.send::<G>(&Message::RandomCommit { round: number, commitment });
        self.game.randoms.insert(number, round);
    }

    pub(super) fn receive_random_commit(
        &mut self,
        round: u64,
        commitment: crate::crypto::Commitment,
    ) -> Result<(), Fault> {
        let entry =
            self.game.randoms.get_mut(&round).ok_or_else(|| {
                Fault::new(AlertKind::Unexpected, format!("commitment for unknown random round {round}"))
            })?;
        let opening = entry.take_commitment(commitment).map_err(|error| match error {
            RoundError::OutOfTurn => {
                Fault::new(AlertKind::Unexpected, format!("second commitment for random round {round}"))
            }
            RoundError::BadProof(e) => bad_round(round, e),
        })?;
        self.out.send::<G>(&Message::RandomOpen { round, opening });
        Ok(())
    }

    pub(super) fn receive_random_open(&mut self, round: u64, opening: crate::crypto::Opening) -> Result<(), Fault> {
        let out_of_turn = || Fault::new(AlertKind::Unexpected, format!("opening for random round {round} out of turn"));
        let entry = self.game.randoms.get_mut(&round).ok_or_else(out_of_turn)?;
        let seed = entry.take_opening(&opening).map_err(|error| match error {
            RoundError::OutOfTurn => out_of_turn(),
            RoundError::BadProof(e) => bad_round(round, e),
        })?;
        match self.seat {
            Seat::HOST => {
                self.out.send::<G>(&Message::RandomSettle { round });
                self.settle_random(round, seed);
            }
            Seat::GUEST => entry.hold(seed),
        }
        Ok(())
    }

    pub(super) fn receive_random_settle(&mut self, round: u64) -> Result<(), Fault> {
        let out_of_turn =
            || Fault::new(AlertKind::Unexpected, format!("settlement of random round {round} out of turn"));
        let entry = match self.game.randoms.get_mut(&round) {
            Some(entry) if self.seat == Seat::GUEST => entry,
            _ => return Err(out_of_turn()),
        };
        let seed = entry.take_settlement().map_err(|_| out_of_turn())?;
        self.settle_random(round, seed);
        Ok(())
    }

    /// Acts on a random outcome, at the same point of the game's order on both sides.
    pub(super) fn settle_random(&mut self, round: u64, seed: Verified<SharedSeed>) {
        // Called for a round this engine has just settled: it is there.
        let Some((by, kind)) = self.game.randoms.remove(&round).map(RandomRound::into_parts) else { return };
        match kind {
            RandomKind::Roll(dice) => {
                let faces = seed.roll(dice);
                self.out.emit(Event::Rolled { by, dice, faces });
            }
            RandomKind::Flip => {
                let coin = seed.flip_coin();
                self.out.emit(Event::Flipped { by, coin });
            }
            RandomKind::Chooser => {
                let seat = match seed.flip_coin() {
                    Coin::Heads => Seat::HOST,
                    Coin::Tails => Seat::GUEST,
                };
                self.game.chooser = Some(seat);
                self.out.emit(Event::Chooser { seat, by: ChosenBy::Coin });
            }
            RandomKind::Arrangement(library) => {
                let backs: Vec<BackId> = self
                    .game
                    .table
                    .zone(ZoneId::library(library))
                    .iter()
                    .map(|id| self.game.known_card(*id).back)
                    .collect();
                // Seed 000's deck shuffle: the backs' order from the shared state. Within a
                // back the order it gives is public and changes nothing: the steps hid it.
                let order = crate::hash_rng::deck_shuffle(&backs, &mut seed.rng(), &mut seed.rng());
                self.arrangement_drawn(library, order.into_iter().map(|i| i as u32).collect());
            }
            RandomKind::Boosters => self.lay_boosters(seed),
            RandomKind::ShowRandom(hand) => {
                // The check refuses to show a random card of an empty hand: there is always one to pick.
                let Some(&card) = seed.rng().pick(&hand) else { return };
                // The pick is among the cards in hand when the action was taken; one that has
                // left the hand since (played, or shuffled away) is named but not revealed.
                let still_in_hand = self.game.table.card(card).is_some_and(|c| c.zone == ZoneId::hand(by));
                self.out.emit(Event::ShownAtRandom { by, card });
                if still_in_hand {
                    self.start_unlock(round, vec![card], Knowledge::BOTH);
                }
            }
        }
    }
}

/// A commitment or opening of round `round` that fails its check.
fn bad_round(round: u64, error: ProofError) -> Fault {
    Fault::new(AlertKind::BadProof, format!("random round {round}: {error}"))
}
