//! The way out: the engine's messages into the channel, the channel's frames to the relay once both seats are
//! taken, the engine's events to the player. Frames the relay has not taken stay in the channel (as does every
//! frame the opponent has not acknowledged), so a link that is down loses nothing.

use std::time::Duration;

use fairdeck_shared::crypto::Group;
use fairdeck_shared::engine::{Event, Input};
use fairdeck_shared::wire::Action;

use super::error::SessionError;
use super::frontend::Output;
use super::outbox::{SavePoint, ToRelay};
use super::state::SessionCore;
use super::timers::Timer;
use crate::channel::OwedAck;

/// How long the ack of a lone message waits for a message of this side's to carry it. Most of the
/// opponent's messages are answered at once (a strip, an acceptance), so its ack rides on the answer and
/// no save is written for the ack alone; one that is not answered is acknowledged after this.
const ACK_DELAY: Duration = Duration::from_millis(10);

impl<G: Group> SessionCore<G> {
    /// One step of moving the engine's messages to the channel and the channel's frames to the relay: a round
    /// of [`settle`](Self::settle), whose events are shown before the next; once settled, a save point, then the
    /// frames. Whether anything moved (`false`: the next step has nothing to do either).
    ///
    /// A round that leaves nothing to take in or send is settled already: its save and frames go in the same
    /// step, so the opponent's answer leaves before this side's screen is drawn, not after.
    pub(super) fn pump(&mut self) -> Result<bool, SessionError> {
        let moved = self.settle()?;
        if moved && (self.channel.has_message() || self.engine.has_output()) {
            return Ok(true);
        }
        self.follow_for_spectators();
        let ack = self.ack_due();
        // Saved before anything leaves: a save is never behind what the opponent (or a spectator) has seen.
        let sending = self.can_transmit() && (self.channel.has_data_frame() || ack);
        self.outbox.save(if sending || self.watching.wanted { SavePoint::Sending } else { SavePoint::Settled });
        let flushed = self.flush_frames(ack);
        self.ack_deadline = match self.channel.owes_ack() {
            OwedAck::Nothing => None,
            OwedAck::MayWait | OwedAck::Now => Some(self.ack_deadline.unwrap_or(self.now + ACK_DELAY)),
        };
        Ok(moved || flushed)
    }

    /// Whether the ack owed leaves now: the channel wants it at once, it waited long enough, or the player
    /// is leaving.
    fn ack_due(&self) -> bool {
        match self.channel.owes_ack() {
            OwedAck::Nothing => false,
            OwedAck::Now => true,
            OwedAck::MayWait => {
                self.timers.get(Timer::Quit).is_some() || self.ack_deadline.is_some_and(|deadline| self.now >= deadline)
            }
        }
    }

    /// Sends the ack held back, if any, saved first: the opponent need not keep what this side took in after it
    /// leaves.
    pub(super) fn acknowledge_before_leaving(&mut self) {
        if self.can_transmit() && self.channel.owes_ack() != OwedAck::Nothing {
            self.outbox.save(SavePoint::Sending);
            self.flush_frames(true);
        }
    }

    /// Whether frames can go to the opponent: both seats taken and the link up.
    pub(super) fn can_transmit(&self) -> bool {
        self.uplink.can_transmit()
    }

    /// Hands the channel's messages to the engine and the engine's messages to the channel, and shows the
    /// engine's events: one round, so that the events are shown with the engine as it stands after them. Once
    /// a round moves nothing, the save is consistent: every message taken in is in the journal, and every
    /// message the journal makes the engine send is sealed in the channel (a replay drops what the engine
    /// sends, as the opponent had it). Returns whether anything moved.
    fn settle(&mut self) -> Result<bool, SessionError> {
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
            let turn_came = matches!(&event, Event::Applied { by, action: Action::NextTurn, .. } if *by != self.engine.seat())
                && self.engine.table().active == Some(self.engine.seat());
            self.show(Output::Engine(event));
            if turn_came && self.untap_draw {
                // The configuration's `untap_draw`: what the player does first each turn, done for it.
                self.intents([Action::UntapAll, Action::Draw { count: 1 }], "untap_draw");
            }
            moved = true;
        }
        Ok(moved)
    }

    /// Hands the driver what the channel has queued, once both seats are taken and the link is up, with a
    /// standalone ack if `ack` and one is owed. Whether there was any.
    pub(super) fn flush_frames(&mut self, ack: bool) -> bool {
        let mut any = false;
        while self.can_transmit()
            && let Some(frame) =
                self.channel.poll_data_frame().or_else(|| ack.then(|| self.channel.poll_ack()).flatten())
        {
            self.outbox.transmit(ToRelay::Frame(frame));
            any = true;
        }
        any
    }
}
