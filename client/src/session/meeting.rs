//! The guest meets the host's suite. The host chooses the suite (`fairdeck host --suite`); a guest cannot know it
//! before the host's first message, its `hello`, which names it. So a guest's session starts in the default suite
//! and holds its engine back: nothing of its engine goes to the channel, nothing is saved, and only `table` and
//! `quit` run, until the host's first message is in. That message's suite, read with `wire::peek_suite`, settles it:
//!
//! - the engine's own: the engine takes the message and the game goes on;
//! - another suite this program plays: the driver stops, and `start.rs` goes on with this session in that suite
//!   ([`SessionCore::into_suite`]): an engine of that suite is made for the same player (seat, name, deck or pool),
//!   takes the host's hello first, and everything else of the session (the channel, the link, the commands queued)
//!   is kept;
//! - no suite at all (not a hello, or a suite nobody knows, which does not decode): the engine takes the message
//!   and refuses it as any engine refuses a message out of place. A hostile host can only make a guest play a suite
//!   this program knows, or stop.
//!
//! The hello's agreement stays the engine's check: the new engine compares the host's hello with its own suite
//! (`check_hello`), so a second, different hello or one of another protocol is refused as before.

use fairdeck_relay_protocol::ReportedResult;
use fairdeck_shared::crypto::{Group, Suite};
use fairdeck_shared::engine::{Engine, Input};
use fairdeck_shared::wire::peek_suite;

use super::claim::LinkAction;
use super::error::SessionError;
use super::spectators::WatchHub;
use super::state::{Meeting, SessionCore, Stage};
use super::watch_state::Watching;
use crate::command::Command;

impl<G: Group> SessionCore<G> {
    /// A step of a guest awaiting the host's first message, in place of `pump`: the channel's own frames go out (the
    /// key exchange), and the host's first message, once in, settles the suite. Whether anything moved.
    pub(super) fn meet(&mut self) -> bool {
        // No ack goes before the host's hello is taken in (and saved, once the suite is settled).
        let Some(first) = self.channel.poll_message() else { return self.flush_frames(false) };
        match peek_suite(&first) {
            Ok(suite) if suite != G::SUITE => self.meeting = Meeting::Elsewhere { suite, hello: first },
            // This engine's suite; or none, which the engine refuses as it refuses any message out of place.
            _ => {
                self.meeting = Meeting::Met;
                let _messages_are_never_refused = self.engine.handle(Input::Message { bytes: first });
            }
        }
        true
    }

    /// The host's suite, when it is not this engine's: the session is to go on in it ([`into_suite`](Self::into_suite)).
    pub fn elsewhere(&self) -> Option<Suite> {
        match &self.meeting {
            Meeting::Elsewhere { suite, .. } => Some(*suite),
            _ => None,
        }
    }

    /// Whether the engine is held back until the host's first message.
    pub(super) fn awaits_suite(&self) -> bool {
        self.meeting == Meeting::Awaiting
    }

    /// Whether `command` waits for the host's suite: every command but `table` and `quit`, until it is known, so
    /// that nothing is given to an engine the session may replace.
    pub(super) fn waits_for_suite(&self, command: &Command) -> bool {
        self.awaits_suite() && !matches!(command, Command::Table | Command::Quit)
    }

    /// An engine of suite `H` for this player: its seat, name and deck (or pool) as this session's engine was given
    /// them, its randomness from `seed`. A deck or pool that suite cannot take (more cards than its
    /// `max_deck_len`) is refused here, before the game starts.
    pub(super) fn engine_in<H: Group>(&self, seed: [u8; 32]) -> Result<Engine<H>, SessionError> {
        let journal = self.engine.journal();
        let (seat, config) = (journal.seat, journal.config.clone());
        let refused = |reason: String| SessionError::Suite { suite: H::SUITE, reason };
        match &journal.limited {
            Some(limited) => {
                Engine::new_limited(seat, config, limited.clone(), seed).map_err(|e| refused(e.to_string()))
            }
            None => Engine::new(seat, config, journal.deck.clone(), seed).map_err(|e| refused(e.to_string())),
        }
    }

    /// Ends the session on `error` (the host's suite cannot take this player's deck): the room is left, so that the
    /// host learns the guest is gone.
    pub(super) fn refuse_suite(&mut self, error: SessionError) {
        self.meeting = Meeting::Met;
        self.outbox.link(LinkAction::Leave(Some(ReportedResult::Errored)));
        self.end = Some(Err(error));
    }

    /// This session, going on in the host's suite with `engine` (from [`engine_in`](Self::engine_in)), which takes
    /// the host's hello first. The watch hub is made again for that suite: nothing was watched while the suite was
    /// unknown (`watching.rs`).
    pub(super) fn into_suite<H: Group>(mut self, mut engine: Engine<H>) -> SessionCore<H> {
        if let Meeting::Elsewhere { hello, .. } = std::mem::replace(&mut self.meeting, Meeting::Met) {
            let _messages_are_never_refused = engine.handle(Input::Message { bytes: hello });
        }
        let hub = WatchHub::new(engine.seat(), H::SUITE, self.seed());
        SessionCore {
            engine,
            meeting: Meeting::Met,
            watching: Watching { hub, ..self.watching },
            stage: Stage::Pump,
            channel: self.channel,
            uplink: self.uplink,
            commands: self.commands,
            hosting: self.hosting,
            clocks: self.clocks,
            timers: self.timers,
            outbox: self.outbox,
            browsing: self.browsing,
            top_watch: self.top_watch,
            sideboarded: self.sideboarded,
            limited: self.limited,
            opponent: self.opponent,
            announced: self.announced,
            saved_at: self.saved_at,
            record: self.record,
            untap_draw: self.untap_draw,
            now: self.now,
            rng: self.rng,
            ack_deadline: self.ack_deadline,
            end: self.end,
        }
    }
}
