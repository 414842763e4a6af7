//! The session core's inputs and outputs: [`SessionCore`] is sans-IO, as the channel and the engine are. It
//! owns no socket, task or clock: the driver (`event_loop.rs`) hands it what happened with the time it
//! happened, and does what the core asks.
//!
//! Inputs: [`SessionCore::handle`] (a line of the player's, what the relay sent, the end of an attempt to take
//! the seat back) and [`SessionCore::handle_timeout`] (once [`SessionCore::poll_timeout`] passed; an early or
//! extra call does nothing). After an input the driver runs the turn: while [`SessionCore::advance`] says there
//! is more, it first drains, in this order,
//!
//! 1. [`SessionCore::poll_save`]: a save point, the engine and the channel settled: save them before any
//!    frame leaves;
//! 2. [`SessionCore::poll_transmit`]: frames and control messages for the relay (before the shows: the
//!    opponent waits on them, not on this side's screen);
//! 3. [`SessionCore::poll_output`]: what to show the player, with the engine as it stands (no step changes the
//!    engine while something is left to show);
//! 4. [`SessionCore::poll_file`]: a deck file to read or write for a command, answered at once with
//!    [`Input::File`];
//! 5. [`SessionCore::poll_link`]: connecting and claiming a seat, leaving, dropping the connection;
//! 6. [`SessionCore::poll_watch_frame`] and [`SessionCore::poll_watch_link`]: the spectators' frames and the watch
//!    link (the player's second connection, `watching.rs`);
//!
//! then asks [`SessionCore::poll_end`] whether the session is over. The timers are one table (`timers.rs`),
//! armed after each input and each step from the parts they time: the next attempt at the seat (its backoff),
//! `quit`'s grace, the wait on the opponent and its absence, the watch link's next attempt, an ack held back;
//! [`SessionCore::poll_timeout`] is the earliest.

use std::time::Instant;

use fairdeck_shared::crypto::Group;
use fairdeck_shared::engine::Engine;

use super::claim::{LinkAction, Seated, WatchAction};
use super::error::SessionError;
use super::files::{FileAnswer, FileRequest};
use super::frontend::Output;
use super::outbox::{SavePoint, ToRelay};
pub(super) use super::state::SessionCore;
use super::state::{Flow, Meeting, Stage};
use super::timers::Timer;
pub(super) use super::watch_state::WatchInput;
use super::watch_state::WatchLinkState;
use crate::channel::Channel;
use crate::save::RelayPlace;

/// What the driver hands the core.
pub(super) enum Input {
    /// A line of the player's, or `None`: the player's input ended, an implicit `quit`.
    Line(Option<String>),
    /// A binary frame from the relay: the opponent's channel.
    Frame(Vec<u8>),
    /// A text message from the relay: one of its control messages.
    Control(String),
    /// The WebSocket ended or failed, in the player's words.
    Lost(String),
    /// The attempt the core asked for has a seat, on a new connection taking frames up to `max_frame` bytes.
    Seated { seated: Seated, max_frame: usize },
    /// The attempt the core asked for failed.
    Unseated(SessionError),
    /// What the watch link, the spectators' side, brought.
    Watch(WatchInput),
    /// The answer to the file asked for ([`SessionCore::poll_file`]).
    File(FileAnswer),
}

impl<G: Group> SessionCore<G> {
    /// Takes in `input`, which came at `now`, and starts the turn that follows it.
    pub fn handle(&mut self, input: Input, now: Instant) {
        if self.end.is_some() {
            return;
        }
        self.now = now;
        self.take_in(input);
        self.arm_timers();
    }

    fn take_in(&mut self, input: Input) {
        let handled = match input {
            Input::Line(line) => {
                self.take_line(line);
                Ok(())
            }
            Input::Frame(bytes) => self.handle_frame(&bytes),
            Input::Control(text) => self.handle_control_text(&text),
            Input::Lost(reason) => self.link_lost(reason),
            Input::Seated { seated, max_frame } => self.attempted(Ok((seated, max_frame))),
            Input::Unseated(error) => self.attempted(Err(error)),
            Input::Watch(input) => {
                self.handle_watch(input);
                Ok(())
            }
            Input::File(answer) => {
                // The turn goes on at the command that asked, which runs now.
                self.commands.answer(answer);
                self.stage = Stage::Queue;
                return;
            }
        };
        self.turn_after(handled);
    }

    /// The time passed [`poll_timeout`](Self::poll_timeout)'s deadline (or not: then nothing is due). The
    /// attempts at the seat and at the watch link are made here; the other timers are the turn's to read.
    pub fn handle_timeout(&mut self, now: Instant) {
        if self.end.is_some() {
            return;
        }
        self.now = now;
        if self.timers.is_expired(Timer::Retry, now) {
            self.retry_due();
        }
        if self.timers.is_expired(Timer::Watch, now) {
            self.watch_due();
        }
        self.turn_after(Ok(()));
        self.arm_timers();
    }

    /// The input was taken in: the turn runs, unless it ended the session.
    fn turn_after(&mut self, handled: Result<(), SessionError>) {
        match handled {
            Ok(()) => self.stage = Stage::Pump,
            Err(error) => self.end = Some(Err(error)),
        }
    }

    /// Runs the next step of the turn; `false` once the turn is over (or the session). Each step changes the
    /// engine at most once, so what it shows is shown with the engine it was told of.
    #[must_use]
    pub fn advance(&mut self) -> bool {
        if self.end.is_some() || self.elsewhere().is_some() {
            return false;
        }
        let more = match self.step() {
            Ok(more) => more,
            Err(error) => {
                self.end = Some(Err(error));
                false
            }
        };
        self.arm_timers();
        more
    }

    /// Sets each timer from what it times, as the input or the step left it: the attempt at the seat waited for,
    /// the clocks' next news (the absence's while the clocks count), the watch link's next attempt, and the ack
    /// held back while it can leave. `quit`'s grace is set once, by the first `quit` (`commands.rs`).
    fn arm_timers(&mut self) {
        let counts = self.clocks_count();
        self.timers.set(Timer::Retry, self.uplink.retry_at());
        self.timers.set(Timer::Wait, self.clocks.next_wait_news());
        self.timers.set(Timer::Absence, self.clocks.next_absence_news().filter(|_| counts));
        self.timers.set(Timer::Watch, self.watch_deadline());
        // An ack held back can only leave on a link that is up.
        self.timers.set(Timer::Ack, self.ack_deadline.filter(|_| self.uplink.can_transmit()));
    }

    fn step(&mut self) -> Result<bool, SessionError> {
        match self.stage {
            Stage::Pump => {
                if !self.pump_or_meet()? {
                    self.stage = Stage::Browse;
                }
            }
            Stage::Browse => {
                self.show_browsing();
                self.stage = Stage::Watch;
            }
            Stage::Watch => {
                self.watch_top();
                self.stage = Stage::Queue;
            }
            Stage::Queue => match self.run_queue() {
                Flow::Ran => self.stage = Stage::QueuePump,
                Flow::Blocked => self.stage = Stage::Clocks,
                // The driver answers before anything else comes in; the turn goes on with the answer.
                Flow::Asked => self.stage = Stage::Idle,
                Flow::Quit => {
                    self.acknowledge_before_leaving();
                    self.end = Some(Ok(()));
                    return Ok(false);
                }
            },
            Stage::QueuePump => {
                if !self.pump_or_meet()? {
                    self.stage = Stage::Queue;
                }
            }
            Stage::Clocks => {
                self.time_wait();
                self.stage = Stage::Idle;
            }
            Stage::Idle => return Ok(false),
        }
        Ok(true)
    }

    /// The engine ↔ channel ↔ relay step (`outbound.rs`), or, while a guest awaits the host's suite, its meeting
    /// (`meeting.rs`). Whether anything moved.
    fn pump_or_meet(&mut self) -> Result<bool, SessionError> {
        match self.meeting {
            Meeting::Met => self.pump(),
            Meeting::Awaiting => Ok(self.meet()),
            Meeting::Elsewhere { .. } => Ok(false),
        }
    }

    /// Times the engine's wait on the opponent, and the opponent's absence. They count once the opponent
    /// proved the code (before, the status already says who is missing) and while the game goes on.
    fn time_wait(&mut self) {
        let counts = self.clocks_count();
        let awaited = self.engine.awaiting_opponent().filter(|_| counts);
        for news in self.clocks.observe(awaited, counts, self.now) {
            self.show(news);
        }
    }

    fn clocks_count(&self) -> bool {
        self.channel.is_established() && self.engine.halted().is_none() && !self.engine.is_ended()
    }

    /// Whether the engine and the channel are settled at a point to save, and what for (see `outbound.rs`);
    /// asks once.
    #[must_use]
    pub fn poll_save(&mut self) -> Option<SavePoint> {
        self.outbox.poll_save()
    }

    /// The next thing to show the player.
    #[must_use]
    pub fn poll_output(&mut self) -> Option<Output> {
        self.outbox.poll_output()
    }

    /// The next frame or control message for the relay.
    #[must_use]
    pub fn poll_transmit(&mut self) -> Option<ToRelay> {
        self.outbox.poll_transmit()
    }

    /// The next file to read or write; the driver answers a read or a write with [`Input::File`] at once.
    #[must_use]
    pub fn poll_file(&mut self) -> Option<FileRequest> {
        self.outbox.poll_file()
    }

    /// The next thing to do with the link.
    #[must_use]
    pub fn poll_link(&mut self) -> Option<LinkAction> {
        self.outbox.poll_link()
    }

    /// The next thing to do with the watch link.
    #[must_use]
    pub fn poll_watch_link(&mut self) -> Option<WatchAction> {
        self.outbox.poll_watch()
    }

    /// The next frame for the watch link (`[K] ++ payload`, for spectator K), while it is up.
    #[must_use]
    pub fn poll_watch_frame(&mut self) -> Option<Vec<u8>> {
        (self.watching.link == WatchLinkState::Up).then(|| self.watching.hub.poll_frame()).flatten()
    }

    /// How the session ended, once it did (taken once): `Ok` after `quit`, else why it stopped.
    #[must_use]
    pub fn poll_end(&mut self) -> Option<Result<(), SessionError>> {
        self.end.take()
    }

    /// When to call [`handle_timeout`](Self::handle_timeout): the earliest of the core's timers.
    pub fn poll_timeout(&self) -> Option<Instant> {
        self.timers.next_timeout()
    }

    /// The engine, as the front end shows it.
    pub fn engine(&self) -> &Engine<G> {
        &self.engine
    }

    pub fn channel(&self) -> &Channel {
        &self.channel
    }

    /// The relay, its CA and the seat's token, as they are now.
    pub fn relay(&self) -> &RelayPlace {
        self.uplink.place()
    }

    /// Whether the player's input ended: the driver reads no more lines.
    pub fn input_done(&self) -> bool {
        self.commands.input_done()
    }

    /// The driver made the save file at `path`.
    pub fn saved(&mut self, path: std::path::PathBuf) {
        self.saved_at = Some(path);
    }
}
