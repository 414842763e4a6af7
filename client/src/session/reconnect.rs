//! Taking the seat back after the link dropped: by the seat's token while the relay knows it, else at the
//! game's rendezvous, one attempt at a time on a backoff timer, for a minute (or as long as a restarting relay
//! says). The attempts are a state of the [`Link`], so the loop takes commands meanwhile; the seat back, the
//! channel resends every frame the opponent has not acknowledged.

use std::time::Duration;

use fairdeck_relay_protocol::PeerState;
use fairdeck_shared::Seat;
use tokio::time::Instant;

use super::error::SessionError;
use super::frontend::{Frontend, Output};
use super::link::Link;
use super::relay::{Claim, Claimed, Seated};
use super::state::{Door, Session};

/// How long to keep trying to take the seat back, unless a restarting relay says otherwise.
const RECONNECT_FOR: Duration = Duration::from_secs(60);
/// The wait after the first failed attempt; it doubles after each, up to [`LONGEST_RETRY`].
const FIRST_RETRY: Duration = Duration::from_millis(200);
const LONGEST_RETRY: Duration = Duration::from_secs(5);

impl Session {
    /// The relay connection dropped (a restart, a network blip): the seat is taken back while the game goes on.
    pub fn link_lost<F: Frontend>(&mut self, reason: String, front: &mut F) -> Result<(), SessionError> {
        self.link = Link::Closed;
        self.paired = false;
        front.show(Output::RelayLost(reason), &self.engine)?;
        self.reach_seat()
    }

    /// Starts taking the seat back: with its token while the relay knows it, else, once the channel is up, at
    /// the game's rendezvous (the relay lost the room in a crash, or the room ended when the opponent left).
    pub fn reach_seat(&mut self) -> Result<(), SessionError> {
        // A restarting relay says when to come back and for how long to try; otherwise retry for a minute.
        let (first_delay, try_for) = self.restart_hint.take().unwrap_or((Duration::ZERO, RECONNECT_FOR));
        let at = Instant::now() + first_delay;
        self.claim_seat(at, at + try_for, FIRST_RETRY)
    }

    /// Hosting: the game's room ended before any guest proved the code (a guest left); the game opens again
    /// in a new room, under a new number with the same words.
    pub fn open_new_room(&mut self) {
        self.paired = false;
        self.link = Link::Closed;
        if self.code.is_some() {
            let now = Instant::now();
            self.attempt(Claim::NewRoom, now, now, FIRST_RETRY);
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
        self.attempt(claim, at, deadline, delay);
        Ok(())
    }

    fn attempt(&mut self, claim: Claim, at: Instant, deadline: Instant, delay: Duration) {
        self.link = Link::reconnecting(&self.relay, &self.tls, claim, at, deadline, delay);
    }

    /// Takes in the end of an attempt: the link is up again, another attempt is scheduled, or the session ends.
    pub fn attempted<F: Frontend>(
        &mut self,
        outcome: Result<Claimed, SessionError>,
        front: &mut F,
    ) -> Result<(), SessionError> {
        let Link::Down(down) = std::mem::replace(&mut self.link, Link::Closed) else { return Ok(()) };
        let error = match outcome {
            Ok(claimed) => return self.seated(claimed, front),
            Err(error) => error,
        };
        let now = Instant::now();
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
            (Claim::Token(_), _) if bad_token && self.engine.seat() == Seat::Host => {
                self.open_new_room();
                Ok(())
            }
            (
                _,
                error @ (SessionError::UnknownCode | SessionError::Relay { .. } | SessionError::Certificate { .. }),
            ) => Err(SessionError::Lost(format!("the seat could not be resumed: {error}"))),
            (_, error) if now >= down.deadline => {
                let saved = match &self.save {
                    Some(save) => format!("; the game is saved: `fairdeck resume {}` goes on", save.path().display()),
                    None => String::new(),
                };
                Err(SessionError::Lost(format!("could not reconnect: {error}{saved}")))
            }
            (_, _) => self.claim_seat(now + down.delay, down.deadline, (down.delay * 2).min(LONGEST_RETRY)),
        }
    }

    /// The seat is had on a new connection: the channel resends what the opponent may lack.
    fn seated<F: Frontend>(&mut self, claimed: Claimed, front: &mut F) -> Result<(), SessionError> {
        self.channel.set_max_frame_bytes(claimed.max_frame);
        self.link = Link::Up(claimed.ws);
        match claimed.seated {
            Seated::Resumed { peer, waiting_as } => {
                self.paired = peer != PeerState::Waiting;
                self.peer_is_here(peer == PeerState::Present);
                self.channel.resend_unacked();
                front.show(Output::Resumed { peer_here: self.peer_here }, &self.engine)?;
                // Our `reopen` took effect while the connection was down, its answer lost with it.
                if let Some(nameplate) = waiting_as.filter(|_| self.door == Door::Reopening) {
                    self.reopened(&nameplate, front)?;
                }
            }
            Seated::Met { token, peer } => {
                self.relay.token = Some(token);
                self.paired = peer == PeerState::Present;
                self.peer_is_here(self.paired);
                self.channel.resend_unacked();
                front.show(Output::Rendezvous { peer_here: self.peer_here }, &self.engine)?;
            }
            Seated::Created { nameplate, token } => return self.new_room_opened(&nameplate, token, front),
        }
        if let Some(news) = self.wait_clock.restart() {
            front.show(news.into(), &self.engine)?;
        }
        Ok(())
    }
}
