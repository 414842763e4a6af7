//! Hosting, until a guest proved the code: who is let in. A guest with another code is sent away and the seat
//! given to the next one, up to [`WRONG_CODES_PER_CODE`] per code; `new-code` makes new words.

use fairdeck_relay_protocol::{ClientMessage, ReportedResult};
use fairdeck_shared::Seat;
use fairdeck_shared::crypto::Group;

use super::frontend::Output;
use super::state::{Door, SessionCore};
use crate::code::{self, Code};
use crate::command::ErrorKind;

/// Wrong codes a host takes on one code before it stops giving the seat to the next guest: each guess has one
/// chance in 65,536 (two words of 256), so an online guesser gets at most this many such chances per code
/// before the host chooses, with `new-code`, whether to go on.
pub const WRONG_CODES_PER_CODE: u32 = 3;

impl<G: Group> SessionCore<G> {
    /// Hosting: a guest failed the key exchange. Reports it, and gives the seat to the next guest unless this
    /// code has had [`WRONG_CODES_PER_CODE`] wrong guests: then only `new-code` opens the game again.
    pub(super) fn send_away_guest(&mut self, report: ReportedResult) {
        self.wrong_codes += 1;
        let reopened = self.wrong_codes < WRONG_CODES_PER_CODE;
        self.paired = false;
        // The game's own messages wait in the channel for whoever proves the code next.
        if let Some(code) = self.code.clone() {
            let seed = self.seed();
            self.channel.restart_handshake(&code.password(), code.nameplate(), seed);
        }
        self.door = if reopened { Door::Reopening } else { Door::Closed };
        // A lost connection shows up on the next read; the seat is resumed and the door stays as set.
        self.send_control(ClientMessage::Report { result: report });
        if reopened {
            self.send_control(ClientMessage::Reopen);
        }
        self.show(Output::WrongCodeTried { attempts: self.wrong_codes, reopened });
    }

    /// Hosting: the game has a new room under `nameplate` (its previous one ended before any guest proved the
    /// code). The channel starts again under the new number, with the same words.
    pub(super) fn new_room_opened(&mut self, nameplate: &str, token: String) {
        let Some(code) = &self.code else { return };
        let code = code.with_nameplate(nameplate);
        self.relay.token = Some(token);
        let seed = self.seed();
        self.channel.restart_handshake(&code.password(), code.nameplate(), seed);
        if self.door == Door::Reopening {
            self.door = Door::Open;
        }
        self.show(Output::Code(code.to_string()));
        self.code = Some(code);
    }

    /// Hosting: the relay gave seat 1 back and waits for a guest under `nameplate` (perhaps another number, if
    /// the old one was taken meanwhile). A fresh channel takes the next guest's key exchange.
    pub(super) fn reopened(&mut self, nameplate: &str) {
        if self.engine.seat() != Seat::HOST || self.channel.is_established() {
            return;
        }
        if !code::is_nameplate(nameplate) {
            self.show(Output::RelayAlert("the relay reopened the room under an impossible number".into()));
            return;
        }
        let Some(mut code) = self.code.clone() else { return };
        if code.nameplate() != nameplate {
            // The nameplate is part of the key exchange: the channel starts again under the new one.
            code = code.with_nameplate(nameplate);
            let seed = self.seed();
            self.channel.restart_handshake(&code.password(), code.nameplate(), seed);
        }
        self.door = Door::Open;
        self.paired = false;
        self.show(Output::Code(code.to_string()));
        self.code = Some(code);
    }

    /// `new-code`: hosting, before the key exchange succeeded, new words, and the seat given to the next guest.
    pub(super) fn new_code(&mut self, line: &str) {
        let code = match &self.code {
            Some(code) if self.engine.seat() == Seat::HOST && !self.channel.is_established() => code,
            _ => {
                let message = "only the host has a code, and only until the opponent proved it".to_string();
                return self.refuse(ErrorKind::Refused, line, message);
            }
        };
        let code = Code::random_from(&mut self.rng, code.nameplate());
        let seed = self.seed();
        self.channel.restart_handshake(&code.password(), code.nameplate(), seed);
        self.code = Some(code);
        self.wrong_codes = 0;
        self.paired = false;
        self.door = Door::Reopening;
        self.send_control(ClientMessage::Reopen);
    }
}
