//! One commit–reveal random round as an owned machine: it takes the opponent's commitment, its opening and the
//! host's settlement, and gives back what to send or the seed to act on. The engine (`random.rs`) routes the
//! messages to it, sends what it returns and acts on the seed; the round never reaches back into the engine.

use rand_core::CryptoRng;

use crate::crypto::{AwaitingOpening, Commitment, Dice, Opening, ProofError, SharedRandom, SharedSeed, Verified};
use crate::ids::{GameId, Seat};
use crate::seats::SeatMap;
use crate::table::CardId;

#[cfg_attr(fuzzing, derive(Clone))]
pub(super) enum RandomKind {
    Roll(Dice),
    Flip,
    ShowRandom(Vec<CardId>),
    /// Who chooses to play or draw: the coin of a match's first game.
    Chooser,
    /// Where the backs of a library with several backs lie after its shuffle run.
    Arrangement(Seat),
    /// The layouts of a limited match's boosters.
    Boosters,
}

/// A round's message that does not fit it.
#[derive(Debug)]
pub(super) enum RoundError {
    /// Not the step the round waits for (a second commitment, an opening before the commitments, a settlement
    /// before the outcome).
    OutOfTurn,
    /// The opponent's commitment or opening fails its check.
    BadProof(ProofError),
}

#[cfg_attr(fuzzing, derive(Clone))]
enum Stage {
    Committed {
        mine: SharedRandom,
    },
    Opened {
        waiting: AwaitingOpening,
    },
    /// The guest has the outcome and waits for the host to place it in the game's order.
    Settled {
        seed: Verified<SharedSeed>,
    },
    /// A spectator's round: each seat's commitment, then its opening, as they come (host, guest).
    Observed {
        purpose: String,
        game_id: GameId,
        commitments: SeatMap<Option<Commitment>>,
        openings: SeatMap<Option<Opening>>,
    },
    /// The outcome went to the engine: the round takes nothing more.
    Spent,
}

/// One random round: who started it, what it decides, and how far the exchange is.
#[cfg_attr(fuzzing, derive(Clone))]
pub(super) struct RandomRound {
    by: Seat,
    kind: RandomKind,
    stage: Stage,
}

impl RandomRound {
    /// Starts round `purpose` of game `game_id` for `seat`: the round, and this player's commitment to send.
    pub(super) fn start<R: CryptoRng + ?Sized>(
        by: Seat,
        kind: RandomKind,
        purpose: &str,
        game_id: GameId,
        seat: Seat,
        rng: &mut R,
    ) -> (Self, Commitment) {
        let (mine, commitment) = SharedRandom::start(purpose, game_id, seat, rng);
        (RandomRound { by, kind, stage: Stage::Committed { mine } }, commitment)
    }

    /// What the round decides.
    /// A round a spectator follows: it takes both seats' commitments and openings (`observe_commitment`,
    /// `observe_opening`) and holds the seed once both are in.
    pub(super) fn observed(by: Seat, kind: RandomKind, purpose: &str, game_id: GameId) -> Self {
        let stage = Stage::Observed {
            purpose: purpose.to_owned(),
            game_id,
            commitments: SeatMap::default(),
            openings: SeatMap::default(),
        };
        RandomRound { by, kind, stage }
    }

    /// `from`'s commitment to a round a spectator follows: one each, before any opening.
    pub(super) fn observe_commitment(&mut self, from: Seat, commitment: Commitment) -> Result<(), RoundError> {
        match &mut self.stage {
            Stage::Observed { commitments, openings, .. }
                if commitments[from].is_none() && openings.values().all(Option::is_none) =>
            {
                // An echo of the other's commitment would cancel its contribution out.
                if commitments[from.opponent()] == Some(commitment) {
                    return Err(RoundError::BadProof(ProofError::EchoedCommitment));
                }
                commitments[from] = Some(commitment);
                Ok(())
            }
            _ => Err(RoundError::OutOfTurn),
        }
    }

    /// `from`'s opening of a round a spectator follows, once both commitments are in: checked against its
    /// commitment at once; with both openings in, the round holds its seed for the host's settlement.
    pub(super) fn observe_opening(&mut self, from: Seat, opening: Opening) -> Result<(), RoundError> {
        let Stage::Observed { purpose, game_id, commitments, openings } = &mut self.stage else {
            return Err(RoundError::OutOfTurn);
        };
        let [Some(host), Some(guest)] = commitments.as_slice() else { return Err(RoundError::OutOfTurn) };
        if openings[from].is_some() {
            return Err(RoundError::OutOfTurn);
        }
        let own = if from == Seat::HOST { host } else { guest };
        // Checked as it comes, so a false opening is blamed on the message that carries it.
        let _checked = own.verify(purpose, game_id, from, &opening).map_err(RoundError::BadProof)?;
        openings[from] = Some(opening);
        if let [Some(host_opening), Some(guest_opening)] = openings.as_slice() {
            let seed = crate::crypto::observe_round(purpose, game_id, (host, host_opening), (guest, guest_opening))
                .map_err(RoundError::BadProof)?;
            self.stage = Stage::Settled { seed };
        }
        Ok(())
    }

    pub(super) fn kind(&self) -> &RandomKind {
        &self.kind
    }

    /// The round's parts, once its outcome is acted on.
    pub(super) fn into_parts(self) -> (Seat, RandomKind) {
        (self.by, self.kind)
    }

    /// The opponent's commitment: this player's opening, to send. Refused once a commitment came.
    pub(super) fn take_commitment(&mut self, theirs: Commitment) -> Result<Opening, RoundError> {
        let mine = match std::mem::replace(&mut self.stage, Stage::Spent) {
            Stage::Committed { mine } => mine,
            other => return Err(self.keep(other)),
        };
        let (waiting, opening) = mine.reveal(theirs).map_err(RoundError::BadProof)?;
        self.stage = Stage::Opened { waiting };
        Ok(opening)
    }

    /// The opponent's opening: the round's seed, checked against its commitment. The host acts on it now; the
    /// guest holds it (`hold`) until the host's settlement. Refused before the commitments are exchanged.
    pub(super) fn take_opening(&mut self, opening: &Opening) -> Result<Verified<SharedSeed>, RoundError> {
        let waiting = match std::mem::replace(&mut self.stage, Stage::Spent) {
            Stage::Opened { waiting } => waiting,
            other => return Err(self.keep(other)),
        };
        waiting.finish(opening).map_err(RoundError::BadProof)
    }

    /// The guest keeps the seed until the host places the outcome in the game's order.
    pub(super) fn hold(&mut self, seed: Verified<SharedSeed>) {
        self.stage = Stage::Settled { seed };
    }

    /// The host's settlement: the held seed, to act on now. Refused before the guest has it.
    pub(super) fn take_settlement(&mut self) -> Result<Verified<SharedSeed>, RoundError> {
        match std::mem::replace(&mut self.stage, Stage::Spent) {
            Stage::Settled { seed } => Ok(seed),
            other => Err(self.keep(other)),
        }
    }

    /// A step out of turn leaves the round as it was.
    fn keep(&mut self, stage: Stage) -> RoundError {
        self.stage = stage;
        RoundError::OutOfTurn
    }
}

#[cfg(test)]
mod tests {
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;

    use super::*;

    const ID: GameId = GameId([3; 32]);

    /// Both players' rounds, started alike, with their commitments.
    fn pair() -> ((RandomRound, Commitment), (RandomRound, Commitment)) {
        let start = |seat, seed| {
            RandomRound::start(Seat::HOST, RandomKind::Flip, "random/1", ID, seat, &mut ChaCha20Rng::from_seed(seed))
        };
        (start(Seat::HOST, [1; 32]), start(Seat::GUEST, [2; 32]))
    }

    #[test]
    fn a_round_settles_on_one_seed_for_both() {
        let ((mut host, host_commitment), (mut guest, guest_commitment)) = pair();
        let host_opening = host.take_commitment(guest_commitment).unwrap();
        let guest_opening = guest.take_commitment(host_commitment).unwrap();
        let host_seed = host.take_opening(&guest_opening).unwrap();
        let guest_seed = guest.take_opening(&host_opening).unwrap();
        assert!(matches!(guest.take_settlement(), Err(RoundError::OutOfTurn)), "the guest holds it first");
        guest.hold(guest_seed);
        let guest_seed = guest.take_settlement().unwrap();
        assert_eq!(host_seed.flip_coin(), guest_seed.flip_coin());
        assert_eq!(host_seed.roll(Dice::new(1, 1000).unwrap()), guest_seed.roll(Dice::new(1, 1000).unwrap()));
        assert!(matches!(guest.take_settlement(), Err(RoundError::OutOfTurn)), "a second settlement");
        assert!(matches!(guest.into_parts(), (Seat::HOST, RandomKind::Flip)));
    }

    #[test]
    fn an_opening_that_does_not_match_its_commitment_is_refused() {
        let ((mut host, host_commitment), (_, guest_commitment)) = pair();
        host.take_commitment(guest_commitment).unwrap();
        // An opening of another round of the guest's, not the one it committed to.
        let (mut other, _) = RandomRound::start(
            Seat::HOST,
            RandomKind::Flip,
            "random/1",
            ID,
            Seat::GUEST,
            &mut ChaCha20Rng::from_seed([9; 32]),
        );
        let wrong = other.take_commitment(host_commitment).unwrap();
        assert!(matches!(host.take_opening(&wrong), Err(RoundError::BadProof(_))));
    }

    #[test]
    fn an_opening_before_the_commitments_is_refused_and_changes_nothing() {
        let ((mut host, host_commitment), (mut guest, guest_commitment)) = pair();
        let guest_opening = {
            let (mut early, _) = pair().1;
            early.take_commitment(host_commitment).unwrap()
        };
        assert!(matches!(host.take_opening(&guest_opening), Err(RoundError::OutOfTurn)));
        // The round still takes the commitment, then the opening.
        host.take_commitment(guest_commitment).unwrap();
        assert!(host.take_opening(&guest_opening).is_ok());
        assert!(guest.take_commitment(host_commitment).is_ok());
    }

    #[test]
    fn a_second_or_echoed_commitment_is_refused() {
        let ((mut host, _), (_, guest_commitment)) = pair();
        host.take_commitment(guest_commitment).unwrap();
        assert!(matches!(host.take_commitment(guest_commitment), Err(RoundError::OutOfTurn)));

        let ((mut host, host_commitment), _) = pair();
        assert!(matches!(
            host.take_commitment(host_commitment),
            Err(RoundError::BadProof(ProofError::EchoedCommitment))
        ));
    }
}
