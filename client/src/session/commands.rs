//! Running the player's commands: each line is read once into the queue, where it waits until its gate opens
//! (table commands until set-up is done, `wait` until nothing is pending, `quit` a few seconds for the
//! opponent's acknowledgements), then runs, one per step of the core. What a line means is [`crate::command`]'s;
//! when each kind may run and what it does, `cmd/`'s. Here are the queue's turn, the gates as the session judges
//! them, and what commands share: an intent handed to the engine, a refusal shown.

use std::time::Duration;

use fairdeck_shared::crypto::Group;
use fairdeck_shared::engine::{Input, Intent, IntentError};
use fairdeck_shared::wire::Action;

use super::cmd;
use super::frontend::Output;
use super::state::{Flow, SessionCore};
use super::timers::Timer;
use crate::command::{Entered, ErrorKind, Gate};

/// How long `quit` waits for the peer to acknowledge what was sent.
const QUIT_GRACE: Duration = Duration::from_secs(5);

impl<G: Group> SessionCore<G> {
    /// Takes a line from the player into the queue, read once; `None`, the end of the input, is a `quit` after the
    /// rest.
    pub fn take_line(&mut self, line: Option<String>) {
        self.commands.take_line(line, self.engine.seat());
    }

    /// Runs the next queued command if its gate is open (a line that did not parse is reported in its turn). A
    /// command with a file asks the driver for it first, and runs once answered.
    pub(super) fn run_queue(&mut self) -> Flow {
        let Some(Entered { parsed, .. }) = self.commands.head() else { return Flow::Blocked };
        if let Ok(parsed) = parsed
            && (self.waits_for_suite(&parsed.command) || !self.may_run(cmd::gate(&parsed.command, self)))
        {
            return Flow::Blocked;
        }
        if let Some(Entered { parsed: Ok(parsed), .. }) = self.commands.head()
            && !self.commands.answered()
            && let Some(request) = cmd::file(&parsed.command, self)
        {
            self.commands.ask();
            self.outbox.file(request);
            return Flow::Asked;
        }
        let Some((Entered { line, parsed }, answer)) = self.commands.pop() else { return Flow::Blocked };
        let parsed = match parsed {
            Ok(parsed) => parsed,
            Err(message) => {
                self.refuse(ErrorKind::BadCommand, &line, message);
                return Flow::Ran;
            }
        };
        cmd::run(parsed, self, &line, answer)
    }

    /// Whether a command waiting at `gate` may run now.
    fn may_run(&mut self, gate: Gate) -> bool {
        let halted = self.engine.halted().is_some();
        let set_up = self.engine.is_ready() || halted;
        match gate {
            Gate::Always => true,
            Gate::SetUp => set_up,
            Gate::Settled => set_up && (halted || !self.engine.is_busy()),
            // A player building its limited deck, or picking in a draft, is what the table waits on: nothing else is pending.
            Gate::Idle => {
                let player = self.engine.is_building() || self.engine.waits_on_a_pick();
                halted || ((set_up || player) && self.is_idle())
            }
            Gate::Acknowledged => {
                // Let what we sent reach the peer before leaving the room, but not forever (the peer may be
                // away): the core's timer brings us back here until the grace runs out. With the link down
                // nothing can be acknowledged: the game is saved, and it leaves at once.
                let deadline = self.timers.get(Timer::Quit).unwrap_or(self.now + QUIT_GRACE);
                self.timers.set(Timer::Quit, Some(deadline));
                let pending = self.channel.unacked_frames() > 0 || self.engine.is_busy();
                halted || !self.uplink.is_up() || !pending || self.now >= deadline
            }
        }
    }

    /// Nothing in flight: no exchange, nothing the engine has yet to hand over (an action just taken), nothing
    /// unacknowledged, nothing the top-card watch still has to do.
    fn is_idle(&self) -> bool {
        !self.engine.is_busy()
            && !self.engine.has_output()
            && self.channel.unacked_frames() == 0
            && self.top_watch_due().is_none()
    }

    /// Hands `actions` to the engine in turn, stopping at the first it refuses. Whether it took them all.
    pub(super) fn intents(&mut self, actions: impl IntoIterator<Item = Action>, line: &str) -> bool {
        actions.into_iter().all(|action| self.intent(Intent::Act(action), line))
    }

    /// Hands an intent to the engine; a refusal is shown. Whether the engine took it.
    pub(super) fn intent(&mut self, intent: Intent, line: &str) -> bool {
        let Err(error) = self.engine.handle(Input::Intent { intent: intent.clone() }) else {
            // A limited deck taken, from `done` or a deck file: the next build starts from it.
            if let Intent::Build(deck) | Intent::NewGame(Some(deck)) = &intent
                && let Ok(build) = self.limited.build_mut()
            {
                build.follow(deck);
            }
            self.show(Output::Taken(intent));
            return true;
        };
        let kind = match error {
            IntentError::NotReady => ErrorKind::NotReady,
            IntentError::Halted(_) => ErrorKind::Halted,
            IntentError::NotInPool(_) => ErrorKind::NotInPool,
            _ => ErrorKind::Refused,
        };
        self.refuse(kind, line, error.to_string());
        false
    }

    /// Shows that the command `line` was refused before it changed anything.
    pub(super) fn refuse(&mut self, kind: ErrorKind, line: &str, message: String) {
        self.show(Output::CommandError { kind, command: line.to_string(), message });
    }
}
