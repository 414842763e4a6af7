//! What comes from the relay while the link is up: the opponent's channel frames, and the relay's control
//! messages (pairing, the opponent away, back or gone, a restart announced, errors).

use fairdeck_relay_protocol::{ErrorCode, GoneReason, ReportedResult, ServerMessage};
use fairdeck_shared::Seat;
use fairdeck_shared::crypto::Group;

use super::claim::LinkAction;
use super::error::SessionError;
use super::frontend::Output;
use super::hosting::Door;
use super::state::SessionCore;
use crate::channel::ChannelError;
use crate::save::Status;

impl<G: Group> SessionCore<G> {
    /// A frame of the end-to-end channel, from the opponent.
    pub(super) fn handle_frame(&mut self, bytes: &[u8]) -> Result<(), SessionError> {
        if self.hosting.door() != Door::Open {
            return Ok(());
        }
        if let Err(error) = self.channel.handle_frame(bytes) {
            // Our own CONFIRM may still be queued: sending it lets the peer see the failure too.
            self.flush_frames(false);
            let report = match error {
                ChannelError::WrongCode => ReportedResult::Scary,
                _ => ReportedResult::Errored,
            };
            if self.engine.seat() == Seat::HOST && !self.channel.is_established() {
                // A guest with another code (or a broken one): send it away, keep the game open.
                self.send_away_guest(report);
                return Ok(());
            }
            if error == ChannelError::WrongCode {
                // Not `leave`, which would end the host's room: the host gives the seat to the next guest.
                self.outbox.link(LinkAction::Abandon(report));
                return Err(SessionError::WrongCode);
            }
            self.outbox.link(LinkAction::Leave(Some(report)));
            return Err(SessionError::Channel(error));
        }
        if self.channel.is_established() && !self.announced {
            self.announced = true;
            self.show(Output::ChannelEstablished);
        }
        Ok(())
    }

    /// A text message of the relay: one of its control messages.
    pub(super) fn handle_control_text(&mut self, text: &str) -> Result<(), SessionError> {
        match serde_json::from_str::<ServerMessage>(text) {
            Ok(message) => self.handle_control(message),
            Err(e) => {
                self.show(Output::RelayAlert(format!("unreadable relay message: {e}")));
                Ok(())
            }
        }
    }

    /// A control message of the relay.
    fn handle_control(&mut self, message: ServerMessage) -> Result<(), SessionError> {
        match message {
            ServerMessage::Paired { .. } if self.channel.is_established() => {
                // Met again at the rendezvous: the opponent may lack anything sent before.
                self.uplink.pair(true);
                self.peer_is_here(true);
                self.channel.resend_unacked();
                self.show(Output::PeerBack);
            }
            ServerMessage::Paired { .. } => {
                self.uplink.pair(true);
                self.peer_is_here(true);
                self.show(Output::Paired);
            }
            // A guest being sent away may drop before the relay has its seat: not worth showing.
            ServerMessage::PeerAway { .. } | ServerMessage::PeerBack { .. } if self.hosting.door() != Door::Open => {}
            // With two seats, the seat away or back is always the opponent's.
            ServerMessage::PeerAway { hold_ms, .. } => {
                self.peer_is_here(false);
                self.show(Output::PeerAway { hold_ms });
            }
            ServerMessage::PeerBack { .. } => {
                self.peer_is_here(true);
                self.channel.resend_unacked();
                self.show(Output::PeerBack);
            }
            ServerMessage::Reopened { nameplate } => self.reopened(&nameplate),
            // The host's key exchange with us failed first and it gave the seat away.
            ServerMessage::PeerGone { reason: GoneReason::Rejected } if !self.channel.is_established() => {
                self.close_link();
                return Err(SessionError::WrongCode);
            }
            ServerMessage::PeerGone { .. } if self.engine.seat() == Seat::HOST && !self.channel.is_established() => {
                // A guest who never proved the code left, and the relay ended the room with it: the game
                // opens again in a new room, under a new number with the same words.
                self.open_new_room();
            }
            ServerMessage::PeerGone { reason } => return self.peer_gone(reason),
            ServerMessage::Closing { reconnect_after_ms, try_for_ms, .. } => {
                let (after, try_for) = super::reconnect::restart_hint(reconnect_after_ms, try_for_ms);
                self.uplink.hint_restart((after, try_for));
                self.show(Output::RelayRestarting { reconnect_after_ms: after.as_millis() as u64 });
            }
            ServerMessage::Watchers { host, guest, open, delay } => self.watchers(host, guest, open, delay),
            ServerMessage::Error { code: ErrorCode::NotPaired, .. } => {}
            // Another copy of this game took the seat. Taking it back would only take turns with that copy
            // for as long as both run, each unseating the other: this one stops instead.
            ServerMessage::Error { code: ErrorCode::Replaced, .. } => {
                self.close_link();
                return Err(SessionError::Lost(
                    "another fairdeck took this game's seat at the relay (a copy of this saved game was resumed \
                     elsewhere); this one stops"
                        .into(),
                ));
            }
            ServerMessage::Error { code, message } => {
                self.show(Output::RelayAlert(format!("{}: {message}", code.as_str())));
            }
            _ => {}
        }
        Ok(())
    }

    /// The opponent left the room for good, and the room is over; the player may still look at the table and
    /// quit.
    fn peer_gone(&mut self, reason: GoneReason) -> Result<(), SessionError> {
        let reason = match reason {
            GoneReason::Left => "left",
            GoneReason::Timeout => "timeout",
            GoneReason::Rejected => "rejected",
            GoneReason::WatchingOff => "watching_off",
        };
        self.show(Output::PeerGone { reason });
        self.peer_is_here(false);
        self.close_link();
        self.uplink.forget_token();
        if self.channel.is_established() && self.standing().status == Status::Playing {
            // The game is not: wait for the opponent at the game's rendezvous, where its `fairdeck resume`
            // finds this side.
            self.reach_seat()?;
        }
        Ok(())
    }
}
