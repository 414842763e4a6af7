//! The way out: the engine's messages into the channel, the channel's frames to the relay once both seats are
//! taken, the engine's events to the player. Frames the relay has not taken stay in the channel (as does every
//! frame the opponent has not acknowledged), so a link that is down loses nothing.

use fairdeck_shared::engine::{Event, Input};
use futures_util::SinkExt;
use tokio_tungstenite::tungstenite::Message;

use super::error::SessionError;
use super::frontend::{Frontend, Output};
use super::state::Session;

impl Session {
    /// Hands the engine's messages to the channel, the channel's frames to the relay, and shows the
    /// engine's events. The game is saved before any frame leaves.
    pub async fn pump<F: Frontend>(&mut self, front: &mut F) -> Result<(), SessionError> {
        loop {
            let mut progressed = self.settle(front)?;
            let mut frames = Vec::new();
            while self.paired
                && self.link.is_up()
                && let Some(frame) = self.channel.poll_frame()
            {
                frames.push(frame);
            }
            // Saved before anything leaves: a save is never behind what the opponent has seen.
            self.save(front)?;
            for frame in frames {
                progressed = true;
                let Some(ws) = self.link.ws() else { break };
                if let Err(error) = ws.send(Message::binary(frame)).await {
                    // A dropped socket is not the end of the game: the channel still holds every
                    // unacknowledged frame, and resends them once the seat is resumed and paired.
                    self.link_lost(format!("sending to the relay failed: {error}"), front)?;
                    break;
                }
            }
            if !progressed {
                return Ok(());
            }
        }
    }

    /// Hands the channel's messages to the engine and the engine's messages to the channel, and shows the
    /// engine's events. Afterwards the save is consistent: every message taken in is in the journal, and every
    /// message the journal makes the engine send is sealed in the channel (a replay drops what the engine
    /// sends, as the opponent had it). Returns whether anything moved.
    fn settle<F: Frontend>(&mut self, front: &mut F) -> Result<bool, SessionError> {
        let mut progressed = false;
        loop {
            let mut moved = false;
            while let Some(message) = self.channel.poll_message() {
                let _messages_are_never_refused = self.engine.handle(Input::Message { bytes: message });
                moved = true;
            }
            while let Some(message) = self.engine.poll_transmit() {
                self.channel.send(message).map_err(SessionError::Channel)?;
                moved = true;
            }
            while let Some(event) = self.engine.poll_event() {
                if let Event::Connected { name, .. } = &event {
                    self.opponent = Some(name.clone());
                }
                front.show(Output::Engine(event), &self.engine)?;
                moved = true;
            }
            if !moved {
                return Ok(progressed);
            }
            progressed = true;
        }
    }

    /// Sends what the channel has queued, best effort (before leaving on a failed key exchange).
    pub async fn flush_frames(&mut self) {
        if !self.paired {
            return;
        }
        if let Some(ws) = self.link.ws() {
            while let Some(frame) = self.channel.poll_frame() {
                if ws.send(Message::binary(frame)).await.is_err() {
                    break;
                }
            }
        }
    }
}
