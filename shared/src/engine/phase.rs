//! Where the match and its game stand. Every change of phase is a method here, and the fields are private to this
//! module, so no other part of the engine can set a phase the transitions do not allow.
//!
//! Two values, because their parts move independently:
//! - [`MatchPhase`] (one per engine) follows the opponent: whether its hello came, the new-game requests, and the
//!   wait for its deck once a new game started here.
//! - [`GamePhase`] (one per game, dropped with it) follows the game: meeting (the match's first game before the
//!   hellos, with no id yet), set-up, then play; and, apart from that, who ended it. Ending is not a stage of its
//!   own: a forfeit can be claimed before set-up is done, and a player who ended the game still takes a late answer
//!   to a proposal, so the stage and the ending are two fields.

use std::fmt;

use ed25519_dalek::VerifyingKey;

use crate::ids::{GameId, Seat};

/// A transition the current phase does not allow. The engine maps each to the error or alert it reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum PhaseError {
    /// A second hello: the opponent is already met.
    AlreadyMet,
    /// Set-up finished outside set-up.
    NotSettingUp,
    /// A concession outside play.
    NotPlaying,
    /// A new game asked for while this player's request is pending.
    AlreadyAsked,
    /// The opponent asked for a new game while its request is pending.
    PeerAlreadyAsked,
}

impl fmt::Display for PhaseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PhaseError::AlreadyMet => "hello sent twice",
            PhaseError::NotSettingUp => "set-up finished outside set-up",
            PhaseError::NotPlaying => "a concession outside play",
            PhaseError::AlreadyAsked => "a new game is already asked for",
            PhaseError::PeerAlreadyAsked => "a new game asked for twice",
        })
    }
}

/// The opponent's new-game request: the loser it named, and how many of this player's messages it had taken in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct PeerRequest {
    pub(super) loser: Option<Seat>,
    pub(super) ack: u64,
}

/// Both players' new-game requests, once both are in: the game is dropped and the next one starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Agreed {
    /// The loser this player named.
    pub(super) mine: Option<Seat>,
    pub(super) theirs: PeerRequest,
    /// The number of this player's `new-game` message.
    pub(super) request: u64,
}

/// The engine's side of the match: the opponent's key once its hello came, and the talk of a new game.
#[derive(Clone, Debug, Default)]
pub(super) struct MatchPhase {
    peer_key: Option<VerifyingKey>,
    /// This player asked for a new game, naming the loser it saw then.
    asked: Option<Option<Seat>>,
    offered: Option<PeerRequest>,
    /// The number of this player's last `new-game` message: the opponent's messages that acknowledge it were sent
    /// in the new game. Kept once the game starts, for that.
    request: Option<u64>,
    /// A new game started here but the opponent's new `deck` has not come yet: what it sent before that belongs to
    /// the game both dropped.
    awaiting_new_deck: bool,
}

impl MatchPhase {
    /// The opponent's signing key, once its hello came.
    pub(super) fn peer_key(&self) -> Option<&VerifyingKey> {
        self.peer_key.as_ref()
    }

    /// The opponent's hello came, signed by `key`.
    pub(super) fn hello_received(&mut self, key: VerifyingKey) -> Result<(), PhaseError> {
        if self.peer_key.is_some() {
            return Err(PhaseError::AlreadyMet);
        }
        self.peer_key = Some(key);
        Ok(())
    }

    /// This player asks for a new game with its message number `request`, naming `loser`.
    pub(super) fn new_game_asked(&mut self, loser: Option<Seat>, request: u64) -> Result<(), PhaseError> {
        if self.asked.is_some() {
            return Err(PhaseError::AlreadyAsked);
        }
        self.asked = Some(loser);
        self.request = Some(request);
        Ok(())
    }

    /// Whether this player's new-game request waits for the opponent's.
    pub(super) fn is_new_game_asked(&self) -> bool {
        self.asked.is_some()
    }

    /// The opponent asks for a new game.
    pub(super) fn new_game_offered(&mut self, request: PeerRequest) -> Result<(), PhaseError> {
        if self.offered.is_some() {
            return Err(PhaseError::PeerAlreadyAsked);
        }
        self.offered = Some(request);
        Ok(())
    }

    /// Whether the opponent's new-game request is in.
    pub(super) fn is_new_game_offered(&self) -> bool {
        self.offered.is_some()
    }

    /// Both requests are in: they are used up, and the opponent's messages are of the dropped game until its new
    /// deck comes (`new_deck_received`). `None`, changing nothing, while one is missing.
    pub(super) fn start_new_game(&mut self) -> Option<Agreed> {
        let (Some(mine), Some(theirs), Some(request)) = (self.asked, self.offered, self.request) else {
            return None;
        };
        self.asked = None;
        self.offered = None;
        self.awaiting_new_deck = true;
        Some(Agreed { mine, theirs, request })
    }

    /// The opponent's `deck` came: the new game's messages have begun.
    pub(super) fn new_deck_received(&mut self) {
        self.awaiting_new_deck = false;
    }

    /// Whether a new game started here and the opponent's deck for it has not come yet.
    pub(super) fn is_awaiting_new_deck(&self) -> bool {
        self.awaiting_new_deck
    }

    /// Whether the opponent's message, which had taken in this player's messages before `ack`, was sent after it
    /// had this player's latest new-game request.
    pub(super) fn sent_after_request(&self, ack: u64) -> bool {
        self.request.is_some_and(|request| ack > request)
    }
}

/// How far one game is, and who ended it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct GamePhase {
    stage: Stage,
    ending: Ending,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    /// The match's first game before both hellos: the id comes from both nonces.
    Meeting,
    /// Decks and the set-up shuffles.
    SettingUp { id: GameId },
    /// Both libraries shuffled: table actions are taken, until a concession in the game's order.
    Playing { id: GameId, conceded: bool },
}

/// Who ended the game. A forfeit claim ends it for both at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ending {
    Open,
    /// This player ended it (`EndGame`, or its forfeit claim).
    Here,
    /// The opponent ended it (its audit): it takes no more actions.
    ByPeer,
    Both,
}

impl GamePhase {
    /// The match's first game, before the hellos.
    pub(super) fn meeting() -> Self {
        GamePhase { stage: Stage::Meeting, ending: Ending::Open }
    }

    /// A later game of the match, whose id both engines derived from the previous one.
    pub(super) fn next_game(id: GameId) -> Self {
        GamePhase { stage: Stage::SettingUp { id }, ending: Ending::Open }
    }

    /// Both hellos are in: the first game has its id and its set-up starts.
    pub(super) fn met(&mut self, id: GameId) -> Result<(), PhaseError> {
        if self.stage != Stage::Meeting {
            return Err(PhaseError::AlreadyMet);
        }
        self.stage = Stage::SettingUp { id };
        Ok(())
    }

    /// Both set-up shuffles are done: play starts.
    pub(super) fn set_up_done(&mut self) -> Result<(), PhaseError> {
        let Stage::SettingUp { id } = self.stage else { return Err(PhaseError::NotSettingUp) };
        self.stage = Stage::Playing { id, conceded: false };
        Ok(())
    }

    /// A player conceded, in the game's order: no action fits afterwards. Conceding again changes nothing.
    pub(super) fn conceded(&mut self) -> Result<(), PhaseError> {
        let Stage::Playing { id, .. } = self.stage else { return Err(PhaseError::NotPlaying) };
        self.stage = Stage::Playing { id, conceded: true };
        Ok(())
    }

    /// This player ended the game: its `EndGame`, or its forfeit claim.
    pub(super) fn ended_here(&mut self) {
        self.ending = match self.ending {
            Ending::Open | Ending::Here => Ending::Here,
            Ending::ByPeer | Ending::Both => Ending::Both,
        };
    }

    /// The opponent ended the game (its audit).
    pub(super) fn ended_by_peer(&mut self) {
        self.ending = match self.ending {
            Ending::Open | Ending::ByPeer => Ending::ByPeer,
            Ending::Here | Ending::Both => Ending::Both,
        };
    }

    /// The opponent claimed this player's forfeit: the game is over for both.
    pub(super) fn forfeit_claimed_by_peer(&mut self) {
        self.ending = Ending::Both;
    }

    /// The game's id, once both hellos are in.
    pub(super) fn game_id(&self) -> Option<GameId> {
        match self.stage {
            Stage::Meeting => None,
            Stage::SettingUp { id } | Stage::Playing { id, .. } => Some(id),
        }
    }

    /// Whether set-up is done: play has started.
    pub(super) fn is_ready(&self) -> bool {
        matches!(self.stage, Stage::Playing { .. })
    }

    /// Whether a player conceded this game.
    pub(super) fn is_conceded(&self) -> bool {
        matches!(self.stage, Stage::Playing { conceded: true, .. })
    }

    /// Whether this player ended the game.
    pub(super) fn is_ended(&self) -> bool {
        matches!(self.ending, Ending::Here | Ending::Both)
    }

    /// Whether the opponent ended the game.
    pub(super) fn is_ended_by_peer(&self) -> bool {
        matches!(self.ending, Ending::ByPeer | Ending::Both)
    }
}

#[cfg(test)]
mod tests {
    use ed25519_dalek::SigningKey;

    use super::*;

    const ID: GameId = GameId([7; 32]);

    fn key(byte: u8) -> VerifyingKey {
        SigningKey::from_bytes(&[byte; 32]).verifying_key()
    }

    fn playing() -> GamePhase {
        let mut phase = GamePhase::next_game(ID);
        phase.set_up_done().unwrap();
        phase
    }

    #[test]
    fn the_first_game_has_no_id_until_the_hellos() {
        let mut phase = GamePhase::meeting();
        assert_eq!(phase.game_id(), None);
        assert!(!phase.is_ready());
        phase.met(ID).unwrap();
        assert_eq!(phase.game_id(), Some(ID));
        assert!(!phase.is_ready());
    }

    #[test]
    fn a_second_meeting_is_refused_and_keeps_the_id() {
        let mut phase = GamePhase::meeting();
        phase.met(ID).unwrap();
        assert_eq!(phase.met(GameId([8; 32])), Err(PhaseError::AlreadyMet));
        assert_eq!(phase.game_id(), Some(ID));
        assert_eq!(GamePhase::next_game(ID).met(ID), Err(PhaseError::AlreadyMet));
        assert_eq!(playing().met(ID), Err(PhaseError::AlreadyMet));
    }

    #[test]
    fn set_up_done_starts_play_once() {
        let mut phase = GamePhase::next_game(ID);
        assert_eq!(phase.game_id(), Some(ID));
        phase.set_up_done().unwrap();
        assert!(phase.is_ready());
        assert_eq!(phase.game_id(), Some(ID));
        assert_eq!(phase.set_up_done(), Err(PhaseError::NotSettingUp));
        assert_eq!(GamePhase::meeting().set_up_done(), Err(PhaseError::NotSettingUp));
    }

    #[test]
    fn a_concession_needs_play_and_ends_nothing_else() {
        let mut setting_up = GamePhase::next_game(ID);
        assert_eq!(setting_up.conceded(), Err(PhaseError::NotPlaying));
        assert!(!setting_up.is_conceded());
        assert_eq!(GamePhase::meeting().conceded(), Err(PhaseError::NotPlaying));

        let mut phase = playing();
        phase.conceded().unwrap();
        assert!(phase.is_conceded() && phase.is_ready());
        assert!(!phase.is_ended() && !phase.is_ended_by_peer());
        phase.conceded().unwrap();
        assert!(phase.is_conceded());
        assert_eq!(phase.game_id(), Some(ID));
    }

    #[test]
    fn each_side_ends_the_game_apart_and_a_forfeit_claim_ends_both() {
        let mut here = GamePhase::meeting();
        here.ended_here();
        assert!(here.is_ended() && !here.is_ended_by_peer());
        here.ended_by_peer();
        assert!(here.is_ended() && here.is_ended_by_peer());

        let mut by_peer = playing();
        by_peer.ended_by_peer();
        assert!(!by_peer.is_ended() && by_peer.is_ended_by_peer());
        assert!(by_peer.is_ready(), "ending leaves the stage as it was");
        by_peer.ended_here();
        assert!(by_peer.is_ended() && by_peer.is_ended_by_peer());

        let mut claimed = GamePhase::next_game(ID);
        claimed.forfeit_claimed_by_peer();
        assert!(claimed.is_ended() && claimed.is_ended_by_peer());
        assert_eq!(claimed.set_up_done(), Ok(()), "a late set-up shuffle still completes");
    }

    #[test]
    fn the_peer_key_is_set_by_one_hello() {
        let mut phase = MatchPhase::default();
        assert!(phase.peer_key().is_none());
        phase.hello_received(key(1)).unwrap();
        assert_eq!(phase.hello_received(key(2)), Err(PhaseError::AlreadyMet));
        assert_eq!(phase.peer_key(), Some(&key(1)));
    }

    #[test]
    fn a_new_game_starts_once_both_asked_and_waits_for_the_deck() {
        let mut phase = MatchPhase::default();
        phase.new_game_asked(Some(Seat::GUEST), 5).unwrap();
        assert!(phase.is_new_game_asked());
        assert_eq!(phase.new_game_asked(None, 6), Err(PhaseError::AlreadyAsked));
        assert_eq!(phase.start_new_game(), None, "the opponent has not asked yet");
        assert!(!phase.is_awaiting_new_deck());

        let theirs = PeerRequest { loser: Some(Seat::GUEST), ack: 4 };
        phase.new_game_offered(theirs).unwrap();
        assert_eq!(phase.new_game_offered(theirs), Err(PhaseError::PeerAlreadyAsked));
        assert_eq!(phase.start_new_game(), Some(Agreed { mine: Some(Seat::GUEST), theirs, request: 5 }));
        assert!(!phase.is_new_game_asked() && !phase.is_new_game_offered());
        assert!(phase.is_awaiting_new_deck());
        assert_eq!(phase.start_new_game(), None, "the requests are used up");

        // The opponent's messages that had taken in the request were sent in the new game.
        assert!(!phase.sent_after_request(5) && phase.sent_after_request(6));
        phase.new_deck_received();
        assert!(!phase.is_awaiting_new_deck());
    }

    #[test]
    fn the_opponent_may_ask_first() {
        let mut phase = MatchPhase::default();
        phase.new_game_offered(PeerRequest { loser: None, ack: 0 }).unwrap();
        assert_eq!(phase.start_new_game(), None);
        assert!(!phase.sent_after_request(u64::MAX), "no request of this player's yet");
        phase.new_game_asked(None, 3).unwrap();
        assert!(phase.start_new_game().is_some());
    }
}
