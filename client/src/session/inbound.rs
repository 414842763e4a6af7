//! What comes from the relay while the link is up: the opponent's channel frames, and the relay's control
//! messages (pairing, the opponent away, back or gone, a restart announced, errors).

use std::time::Duration;

use fairdeck_relay_protocol::{ErrorCode, GoneReason, ReportedResult, ServerMessage};
use fairdeck_shared::Seat;
use tokio_tungstenite::tungstenite::Message;

use super::error::SessionError;
use super::frontend::{Frontend, Output};
use super::link::Link;
use super::relay::{Frame, lost_reason};
use super::state::{Door, Session};
use crate::channel::ChannelError;
use crate::save::Status;

impl Session {
    /// Takes in one read of the WebSocket; its end or failure starts taking the seat back.
    pub async fn handle_relay<F: Frontend>(&mut self, frame: Frame, front: &mut F) -> Result<(), SessionError> {
        let message = match frame {
            Some(Ok(message)) => message,
            Some(Err(e)) => return self.link_lost(lost_reason(&e), front),
            None => return self.link_lost("the relay closed the connection".into(), front),
        };
        match message {
            Message::Binary(bytes) => self.handle_frame(&bytes, front).await,
            Message::Text(text) => match serde_json::from_str::<ServerMessage>(text.as_str()) {
                Ok(message) => self.handle_control(message, front),
                Err(e) => {
                    front.show(Output::RelayAlert(format!("unreadable relay message: {e}")), &self.engine)?;
                    Ok(())
                }
            },
            // The stream ends right after; the next read returns None and the seat is taken back.
            _ => Ok(()),
        }
    }

    /// A frame of the end-to-end channel, from the opponent.
    async fn handle_frame<F: Frontend>(&mut self, bytes: &[u8], front: &mut F) -> Result<(), SessionError> {
        if self.door != Door::Open {
            return Ok(());
        }
        if let Err(error) = self.channel.handle_frame(bytes) {
            // Our own CONFIRM may still be queued: sending it lets the peer see the failure too.
            self.flush_frames().await;
            let report = match error {
                ChannelError::WrongCode => ReportedResult::Scary,
                _ => ReportedResult::Errored,
            };
            if self.engine.seat() == Seat::Host && !self.channel.is_established() {
                // A guest with another code (or a broken one): send it away, keep the game open.
                return self.send_away_guest(report, front).await;
            }
            if error == ChannelError::WrongCode {
                // Not `leave`, which would end the host's room: the host gives the seat to the next guest.
                self.link.abandon_seat(report).await;
                return Err(SessionError::WrongCode);
            }
            self.link.leave(Some(report)).await;
            return Err(SessionError::Channel(error));
        }
        if self.channel.is_established() && !self.announced {
            self.announced = true;
            front.show(Output::ChannelEstablished, &self.engine)?;
        }
        Ok(())
    }

    /// A control message of the relay.
    fn handle_control<F: Frontend>(&mut self, message: ServerMessage, front: &mut F) -> Result<(), SessionError> {
        match message {
            ServerMessage::Paired { .. } if self.channel.is_established() => {
                // Met again at the rendezvous: the opponent may lack anything sent before.
                self.paired = true;
                self.peer_is_here(true);
                self.channel.resend_unacked();
                front.show(Output::PeerBack, &self.engine)?;
            }
            ServerMessage::Paired { .. } => {
                self.paired = true;
                self.peer_is_here(true);
                front.show(Output::Paired, &self.engine)?;
            }
            // A guest being sent away may drop before the relay has its seat: not worth showing.
            ServerMessage::PeerAway { .. } | ServerMessage::PeerBack if self.door != Door::Open => {}
            ServerMessage::PeerAway { hold_ms } => {
                self.peer_is_here(false);
                front.show(Output::PeerAway { hold_ms }, &self.engine)?;
            }
            ServerMessage::PeerBack => {
                self.peer_is_here(true);
                self.channel.resend_unacked();
                front.show(Output::PeerBack, &self.engine)?;
            }
            ServerMessage::Reopened { nameplate } => self.reopened(&nameplate, front)?,
            // The host's key exchange with us failed first and it gave the seat away.
            ServerMessage::PeerGone { reason: GoneReason::Rejected } if !self.channel.is_established() => {
                self.link = Link::Closed;
                return Err(SessionError::WrongCode);
            }
            ServerMessage::PeerGone { .. } if self.engine.seat() == Seat::Host && !self.channel.is_established() => {
                // A guest who never proved the code left, and the relay ended the room with it: the game
                // opens again in a new room, under a new number with the same words.
                self.open_new_room();
            }
            ServerMessage::PeerGone { reason } => {
                let reason = match reason {
                    GoneReason::Left => "left",
                    GoneReason::Timeout => "timeout",
                    GoneReason::Rejected => "rejected",
                };
                front.show(Output::PeerGone { reason }, &self.engine)?;
                // The room is over; the player may still look at the table and quit.
                self.peer_is_here(false);
                self.link = Link::Closed;
                self.paired = false;
                self.relay.token = None;
                if self.channel.is_established() && self.standing().status == Status::Playing {
                    // The game is not: wait for the opponent at the game's rendezvous, where its
                    // `fairdeck resume` finds this side.
                    self.reach_seat()?;
                }
            }
            ServerMessage::Closing { reconnect_after_ms, try_for_ms, .. } => {
                self.restart_hint =
                    Some((Duration::from_millis(reconnect_after_ms), Duration::from_millis(try_for_ms)));
                front.show(Output::RelayRestarting { reconnect_after_ms }, &self.engine)?;
            }
            ServerMessage::Error { code: ErrorCode::NotPaired, .. } => {}
            ServerMessage::Error { code, message } => {
                front.show(Output::RelayAlert(format!("{}: {message}", code.as_str())), &self.engine)?;
            }
            _ => {}
        }
        Ok(())
    }
}
