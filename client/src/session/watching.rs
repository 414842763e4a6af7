//! The player's spectators, in the core: the [`WatchHub`] fed with the engine's record as it grows, the watch
//! link (a second connection to the relay, `host_watch`) opened by `watch-code` and taken back after a drop,
//! the relay's `watchers` news, and the commands `watch-code`, `new-watch-code`, `watch-off` and `watch-delay`.
//! The watch code's words come from this seat's secret
//! ([`Channel::watch_secret`](crate::channel::Channel::watch_secret)): a resumed game gives the same words, under
//! the nameplate the relay gives its watch seats. `new-watch-code` draws other words, kept by this process only.

use std::time::{Duration, Instant};

use fairdeck_relay_protocol::{ClientMessage, ErrorCode, ServerMessage};
use fairdeck_shared::Seat;
use fairdeck_shared::crypto::Group;

use super::claim::WatchAction;
use super::error::SessionError;
use super::frontend::Output;
use super::spectators::FailedOpening;
use super::state::SessionCore;
use super::watch_state::{WatchInput, WatchLinkState};
use crate::code::{self, Code};
use crate::command::{ErrorKind, WatchStep};

/// The wait before the watch link is opened again after a drop.
const WATCH_RETRY: Duration = Duration::from_secs(1);

impl<G: Group> SessionCore<G> {
    /// `watch-code`, `new-watch-code`, `watch-off`, `watch-delay N`.
    pub(super) fn watch_command(&mut self, step: WatchStep, line: &str) {
        if self.watching.off {
            return self.refuse(ErrorKind::Refused, line, "watching is off in this game".into());
        }
        match step {
            // Its spectators would be shown an empty table: the observer does not follow pools and drafts.
            WatchStep::Code if self.limited.pool_hash().is_some() => {
                let message = "spectators cannot follow limited play yet: watching stays closed in this match".into();
                self.refuse(ErrorKind::Refused, line, message);
            }
            WatchStep::Code if self.channel.watch_secret().is_none() => {
                let message = "watching opens once the opponent proved the game's code".into();
                self.refuse(ErrorKind::Refused, line, message);
            }
            WatchStep::Code => {
                self.watching.wanted = true;
                self.follow_for_spectators();
                match self.watching.hub.code() {
                    Some(code) if self.watching.link == WatchLinkState::Up => {
                        let code = code.to_string();
                        self.show(Output::WatchCode(code));
                    }
                    _ => self.open_watch(),
                }
            }
            WatchStep::NewCode => {
                let Some(nameplate) = self.watching.hub.code().map(|code| code.nameplate().to_string()) else {
                    return self.refuse(ErrorKind::Refused, line, "watching is not open: watch-code opens it".into());
                };
                let code = Code::random_from(&mut self.rng, &nameplate);
                self.watching.hub.renew(code.clone());
                self.show(Output::WatchCode(code.to_string()));
            }
            WatchStep::Off | WatchStep::Delay(_) if !self.uplink.is_up() => {
                self.refuse(ErrorKind::Refused, line, "not connected to the relay: try again once it is back".into());
            }
            WatchStep::Off => self.send_control(ClientMessage::WatchOff),
            WatchStep::Delay(turns) => {
                self.watching.own_delay = turns;
                self.send_control(ClientMessage::WatchDelay { turns: u32::from(turns) });
                self.set_watch_delay();
            }
        }
    }

    /// Asks the driver to open the watch link, if it is wanted and can be: the seat is had, with its token.
    pub(super) fn open_watch(&mut self) {
        let closed = matches!(self.watching.link, WatchLinkState::Closed | WatchLinkState::Waiting(_));
        // A guest's engine may be replaced until the host's suite is known (`meeting.rs`): nothing is watched before.
        let can = self.uplink.is_up()
            && self.channel.watch_secret().is_some()
            && !self.awaits_suite()
            && self.limited.pool_hash().is_none();
        if !self.watching.wanted || self.watching.off || !closed || !can {
            return;
        }
        if let Some(token) = self.uplink.token().map(str::to_string) {
            self.watching.link = WatchLinkState::Opening;
            self.outbox.watch(WatchAction::Open(token));
        }
    }

    /// The watch link's time to open again came, if it did. Without the seat it waits, with no deadline, for the
    /// seat's return (`reconnect.rs`), which opens it.
    pub(super) fn watch_due(&mut self) {
        if let WatchLinkState::Waiting(at) = self.watching.link
            && at <= self.now
        {
            self.watching.link = WatchLinkState::Closed;
            self.open_watch();
        }
    }

    /// When the watch link is to be opened again.
    pub(super) fn watch_deadline(&self) -> Option<Instant> {
        match self.watching.link {
            WatchLinkState::Waiting(at) => Some(at),
            _ => None,
        }
    }

    /// What the driver's watch link brought.
    pub(super) fn handle_watch(&mut self, input: WatchInput) {
        match input {
            WatchInput::Opened { nameplate, max_frame } => self.watch_opened(&nameplate, max_frame),
            // Not a refusal of watching: opened again as after a drop.
            WatchInput::Refused(error) if error.is_transient() => {
                self.watching.link = WatchLinkState::Waiting(self.now + WATCH_RETRY);
            }
            WatchInput::Refused(error) => {
                self.watching.link = WatchLinkState::Closed;
                if matches!(error, SessionError::Relay { code: "watching_off", .. }) {
                    self.watching.off = true;
                }
                self.show(Output::RelayAlert(format!("watching could not open: {error}")));
            }
            WatchInput::Frame(frame) => {
                self.watching.hub.handle_frame(&frame);
                self.tell_failed_openings();
            }
            WatchInput::Control(text) => self.watch_control(&text),
            WatchInput::Lost => {
                // Spectators keep their channels: each resends what it lacks once the link is back.
                self.watching.link = WatchLinkState::Waiting(self.now + WATCH_RETRY);
            }
        }
    }

    fn watch_opened(&mut self, nameplate: &str, max_frame: usize) {
        let Some(secret) = self.channel.watch_secret().filter(|_| code::is_nameplate(nameplate)) else {
            self.outbox.watch(WatchAction::Close);
            self.watching.link = WatchLinkState::Closed;
            return self.show(Output::RelayAlert("the relay gave an impossible watch number".into()));
        };
        // Words `new-watch-code` drew stay when the link comes back, under the nameplate it has now.
        let code = match self.watching.hub.code() {
            Some(known) => known.with_nameplate(nameplate),
            None => Code::from_secret(nameplate, &secret),
        };
        let news = self.watching.hub.code() != Some(&code);
        self.watching.hub.opened(code.clone(), max_frame);
        self.watching.link = WatchLinkState::Up;
        if news {
            self.show(Output::WatchCode(code.to_string()));
        }
    }

    /// A control message on the watch link: spectators coming and going, the relay's refusals.
    fn watch_control(&mut self, text: &str) {
        let message = match serde_json::from_str::<ServerMessage>(text) {
            Ok(message) => message,
            Err(e) => return self.show(Output::RelayAlert(format!("unreadable relay message: {e}"))),
        };
        match message {
            ServerMessage::WatcherJoined { watcher } => self.watching.hub.joined(watcher),
            ServerMessage::WatcherLeft { watcher } => {
                self.watching.hub.left(watcher);
                self.tell_failed_openings();
            }
            // Another copy of this game holds the watch seats now; taking them back would only take turns.
            ServerMessage::Error { code: ErrorCode::Replaced, .. } => self.close_watch(false),
            ServerMessage::Error { code: ErrorCode::WatchingOff, .. } => self.close_watch(true),
            ServerMessage::Error { code, message } => {
                self.show(Output::RelayAlert(format!("{}: {message}", code.as_str())));
            }
            _ => {}
        }
    }

    /// Tells the player of each opening of its watch code that failed.
    fn tell_failed_openings(&mut self) {
        while let Some(FailedOpening { watcher, failure, attempts, closed }) = self.watching.hub.poll_failed_opening() {
            self.show(Output::WrongWatchCodeTried { watcher, failure, attempts, closed });
        }
    }

    /// Closes the watch link and forgets the wish to keep it; `off`: watching is off for good.
    fn close_watch(&mut self, off: bool) {
        self.watching.off |= off;
        self.watching.wanted = false;
        self.watching.link = WatchLinkState::Closed;
        self.outbox.watch(WatchAction::Close);
    }

    /// The relay's `watchers`: both seats' spectators, the switch, the larger of both delay choices.
    pub(super) fn watchers(&mut self, host: u8, guest: u8, open: bool, delay: u32) {
        self.watching.both_delay = u8::try_from(delay).unwrap_or(u8::MAX);
        self.set_watch_delay();
        if !open && !self.watching.off {
            self.close_watch(true);
        }
        // Spectators of this seat wait at the relay (this program resumed a game they watched): the feed goes on.
        let mine = if self.engine.seat() == Seat::HOST { host } else { guest };
        if open && mine > 0 {
            self.watching.wanted = true;
            self.follow_for_spectators();
            self.open_watch();
        }
        self.show(Output::Watchers { host, guest, open, delay });
    }

    /// The delay the hub keeps: the larger of both choices, this seat's own even if the relay forgot it.
    fn set_watch_delay(&mut self) {
        self.watching.hub.set_delay(self.watching.own_delay.max(self.watching.both_delay));
    }

    /// Hands the hub the engine's record as it stands, once the engine settled, while watching is wanted: a game
    /// nobody asked to watch keeps no copy of its record, and one whose watching opens late (or a resumed one) is
    /// given its record whole, each envelope then placed in the turn it was played in (`WatchHub::follow`).
    pub(super) fn follow_for_spectators(&mut self) {
        if !self.watching.wanted || self.awaits_suite() {
            return;
        }
        // A conceded game is over as one whose decks were audited, or one stopped on a breach.
        let ended = self.engine.is_ended() || self.engine.loser().is_some() || self.engine.halted().is_some();
        self.watching.hub.follow(self.engine.record(), self.engine.table().turn, ended);
    }
}
