//! Taking the seat back after the link dropped: by the seat's token while the relay knows it, else at the
//! game's rendezvous, one attempt at a time on a backoff timer, for a minute (or as long as a restarting relay
//! says). The timer is a deadline of the core ([`LinkState::Waiting`]); the driver makes each attempt when the
//! core asks, so commands go on meanwhile; the seat back, the channel resends every frame the opponent has
//! not acknowledged.

use std::time::{Duration, Instant};

use fairdeck_relay_protocol::PeerState;
use fairdeck_shared::Seat;
use fairdeck_shared::crypto::Group;

use super::claim::{Claim, LinkAction, Seated};
use super::error::SessionError;
use super::frontend::Output;
use super::state::{Door, LinkState, Retry, SessionCore};

/// How long to keep trying to take the seat back, unless a restarting relay says otherwise.
pub(crate) const RECONNECT_FOR: Duration = Duration::from_secs(60);
/// The wait after the first failed attempt; it doubles after each, up to [`LONGEST_RETRY`].
pub(crate) const FIRST_RETRY: Duration = Duration::from_millis(200);
pub(crate) const LONGEST_RETRY: Duration = Duration::from_secs(5);
/// The most a relay's `closing` is believed: a relay says a few seconds and its hold (5 minutes by default).
const LONGEST_COME_BACK: Duration = Duration::from_secs(30);
const LONGEST_TRY_FOR: Duration = Duration::from_secs(60 * 60);

/// What a relay's `closing` says of coming back, within bounds: when to, and for how long to keep trying.
pub(super) fn restart_hint(reconnect_after_ms: u64, try_for_ms: u64) -> (Duration, Duration) {
    let after = Duration::from_millis(reconnect_after_ms).min(LONGEST_COME_BACK);
    (after, Duration::from_millis(try_for_ms).min(LONGEST_TRY_FOR))
}

impl<G: Group> SessionCore<G> {
    /// The relay connection dropped (a restart, a network blip): the seat is taken back while the game goes on.
    pub(super) fn link_lost(&mut self, reason: String) -> Result<(), SessionError> {
        // What was queued for the connection goes with it: the channel keeps every frame not acknowledged.
        self.transmits.clear();
        self.close_link();
        self.show(Output::RelayLost(reason));
        self.reach_seat()
    }

    /// Drops the connection, once what was queued for it is sent.
    pub(super) fn close_link(&mut self) {
        self.link = LinkState::Closed;
        self.paired = false;
        self.link_actions.push_back(LinkAction::Close);
    }

    /// Starts taking the seat back: with its token while the relay knows it, else, once the channel is up, at
    /// the game's rendezvous (the relay lost the room in a crash, or the room ended when the opponent left).
    pub(super) fn reach_seat(&mut self) -> Result<(), SessionError> {
        // A restarting relay says when to come back and for how long to try; otherwise retry for a minute.
        let (first_delay, try_for) = self.restart_hint.take().unwrap_or((Duration::ZERO, RECONNECT_FOR));
        let at = self.now + first_delay;
        self.claim_seat(at, at + try_for, FIRST_RETRY)
    }

    /// Hosting: the game's room ended before any guest proved the code (a guest left); the game opens again
    /// in a new room, under a new number with the same words.
    pub(super) fn open_new_room(&mut self) {
        self.close_link();
        if self.code.is_some() {
            let now = self.now;
            self.schedule(Retry { claim: Claim::NewRoom, at: now, deadline: now, delay: FIRST_RETRY });
        }
    }

    /// The next attempt at the seat, at `at`, by its token if the relay knows one, else at the rendezvous.
    fn claim_seat(&mut self, at: Instant, deadline: Instant, delay: Duration) -> Result<(), SessionError> {
        let claim =
            match self.relay.token.clone() {
                Some(token) => Claim::Token(token),
                None => Claim::Rendezvous(self.channel.rendezvous().ok_or_else(|| {
                    SessionError::Lost("the game has no rendezvous before the code is proved".into())
                })?),
            };
        self.schedule(Retry { claim, at, deadline, delay });
        Ok(())
    }

    /// Waits for the attempt's moment, or asks the driver for it at once if it has come.
    fn schedule(&mut self, retry: Retry) {
        self.link = LinkState::Waiting(retry);
        self.retry_due();
    }

    /// The attempt waited for, if its moment came: the driver is asked to make it.
    pub(super) fn retry_due(&mut self) {
        if let LinkState::Waiting(retry) = &self.link
            && retry.at <= self.now
        {
            let retry = retry.clone();
            self.link_actions.push_back(LinkAction::Claim(retry.claim.clone()));
            self.link = LinkState::Attempting(retry);
        }
    }

    /// Takes in the end of an attempt: the link is up again, another attempt is scheduled, or the session ends.
    pub(super) fn attempted(&mut self, outcome: Result<(Seated, usize), SessionError>) -> Result<(), SessionError> {
        let LinkState::Attempting(down) = std::mem::replace(&mut self.link, LinkState::Closed) else { return Ok(()) };
        let error = match outcome {
            Ok((seated, max_frame)) => return self.seated(seated, max_frame),
            Err(error) => error,
        };
        let now = self.now;
        let bad_token = matches!(error, SessionError::Relay { code: "bad_token", .. });
        match (down.claim, error) {
            // A new room is opened once, as the room was at the start.
            (Claim::NewRoom, error) => Err(error),
            // The relay lost the room (a crash): the players meet at the game's rendezvous.
            (Claim::Token(_), _) if bad_token && self.channel.is_established() => {
                self.relay.token = None;
                self.claim_seat(now, down.deadline, down.delay)
            }
            // The room ended while we were away, before any guest proved the code (a guest left).
            (Claim::Token(_), _) if bad_token && self.engine.seat() == Seat::HOST => {
                self.open_new_room();
                Ok(())
            }
            (
                _,
                error @ (SessionError::UnknownCode | SessionError::Relay { .. } | SessionError::Certificate { .. }),
            ) => Err(SessionError::Lost(format!("the seat could not be resumed: {error}"))),
            // Told when to come back (not for how long: a relay that always says so would hold the game for
            // ever), within the attempts' deadline.
            (_, SessionError::ComeBack { after }) if now < down.deadline => {
                self.claim_seat(now + after.min(LONGEST_COME_BACK), down.deadline, down.delay)
            }
            (_, error) if now >= down.deadline => {
                let saved = match &self.saved_at {
                    Some(path) => format!("; the game is saved: `fairdeck resume {}` goes on", path.display()),
                    None => String::new(),
                };
                Err(SessionError::Lost(format!("could not reconnect: {error}{saved}")))
            }
            (_, _) => self.claim_seat(now + down.delay, down.deadline, (down.delay * 2).min(LONGEST_RETRY)),
        }
    }

    /// The seat is had on a new connection: the channel resends what the opponent may lack.
    fn seated(&mut self, seated: Seated, max_frame: usize) -> Result<(), SessionError> {
        self.channel.set_max_frame_bytes(max_frame);
        self.link = LinkState::Up;
        match seated {
            Seated::Resumed { peer, waiting_as } => {
                self.paired = peer != PeerState::Waiting;
                self.peer_is_here(peer == PeerState::Present);
                self.channel.resend_unacked();
                self.show(Output::Resumed { peer_here: self.peer_here });
                // Our `reopen` took effect while the connection was down, its answer lost with it.
                if let Some(nameplate) = waiting_as.filter(|_| self.door == Door::Reopening) {
                    self.reopened(&nameplate);
                }
            }
            Seated::Met { token, peer } => {
                self.relay.token = Some(token);
                self.paired = peer == PeerState::Present;
                self.peer_is_here(self.paired);
                self.channel.resend_unacked();
                self.show(Output::Rendezvous { peer_here: self.peer_here });
            }
            Seated::Created { nameplate, token } => {
                self.new_room_opened(&nameplate, token);
                return Ok(());
            }
        }
        if let Some(news) = self.wait_clock.restart() {
            self.show(news.into());
        }
        // The watch link may have dropped with the seat: it opens again with the seat's token.
        self.open_watch();
        Ok(())
    }
}
