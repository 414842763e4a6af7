//! Hosting, until a guest proved the code: who is let in. A guest with another code is sent away and the seat
//! given to the next one, up to [`WRONG_CODES_PER_CODE`] per code; `new-code` makes new words.

use fairdeck_relay_protocol::{ClientMessage, ReportedResult};
use fairdeck_shared::Seat;

use super::error::SessionError;
use super::frontend::{Frontend, Output};
use super::relay::send_control;
use super::state::{Door, Session, os_seed};
use crate::code::{self, Code};
use crate::command::ErrorKind;

/// Wrong codes a host takes on one code before it stops giving the seat to the next guest: each guess has one
/// chance in 65,536 (two words of 256), so an online guesser gets at most this many such chances per code
/// before the host chooses, with `new-code`, whether to go on.
pub const WRONG_CODES_PER_CODE: u32 = 3;

impl Session {
    /// Hosting: a guest failed the key exchange. Reports it, and gives the seat to the next guest unless this
    /// code has had [`WRONG_CODES_PER_CODE`] wrong guests: then only `new-code` opens the game again.
    pub async fn send_away_guest<F: Frontend>(
        &mut self,
        report: ReportedResult,
        front: &mut F,
    ) -> Result<(), SessionError> {
        self.wrong_codes += 1;
        let reopened = self.wrong_codes < WRONG_CODES_PER_CODE;
        self.paired = false;
        // The game's own messages wait in the channel for whoever proves the code next.
        if let Some(code) = &self.code {
            self.channel.restart_handshake(&code.password(), code.nameplate(), os_seed());
        }
        self.door = if reopened { Door::Reopening } else { Door::Closed };
        if let Some(ws) = self.link.ws() {
            // A lost connection shows up on the next read; the seat is resumed and the door stays as set.
            let _ = send_control(ws, &ClientMessage::Report { result: report }).await;
            if reopened {
                let _ = send_control(ws, &ClientMessage::Reopen).await;
            }
        }
        front.show(Output::WrongCodeTried { attempts: self.wrong_codes, reopened }, &self.engine)?;
        Ok(())
    }

    /// Hosting: the game has a new room under `nameplate` (its previous one ended before any guest proved the
    /// code). The channel starts again under the new number, with the same words.
    pub fn new_room_opened<F: Frontend>(
        &mut self,
        nameplate: &str,
        token: String,
        front: &mut F,
    ) -> Result<(), SessionError> {
        let Some(code) = &self.code else { return Ok(()) };
        let code = code.with_nameplate(nameplate);
        self.relay.token = Some(token);
        self.channel.restart_handshake(&code.password(), code.nameplate(), os_seed());
        if self.door == Door::Reopening {
            self.door = Door::Open;
        }
        front.show(Output::Code(code.to_string()), &self.engine)?;
        self.code = Some(code);
        Ok(())
    }

    /// Hosting: the relay gave seat 1 back and waits for a guest under `nameplate` (perhaps another number, if
    /// the old one was taken meanwhile). A fresh channel takes the next guest's key exchange.
    pub fn reopened<F: Frontend>(&mut self, nameplate: &str, front: &mut F) -> Result<(), SessionError> {
        if self.engine.seat() != Seat::Host || self.channel.is_established() {
            return Ok(());
        }
        if !code::is_nameplate(nameplate) {
            front.show(
                Output::RelayAlert("the relay reopened the room under an impossible number".into()),
                &self.engine,
            )?;
            return Ok(());
        }
        let Some(mut code) = self.code.clone() else { return Ok(()) };
        if code.nameplate() != nameplate {
            // The nameplate is part of the key exchange: the channel starts again under the new one.
            code = code.with_nameplate(nameplate);
            self.channel.restart_handshake(&code.password(), code.nameplate(), os_seed());
        }
        self.door = Door::Open;
        self.paired = false;
        front.show(Output::Code(code.to_string()), &self.engine)?;
        self.code = Some(code);
        Ok(())
    }

    /// `new-code`: hosting, before the key exchange succeeded, new words, and the seat given to the next guest.
    pub async fn new_code<F: Frontend>(&mut self, line: &str, front: &mut F) -> Result<(), SessionError> {
        let code = match &self.code {
            Some(code) if self.engine.seat() == Seat::Host && !self.channel.is_established() => code,
            _ => {
                let message = "only the host has a code, and only until the opponent proved it".to_string();
                return self.refuse(ErrorKind::Refused, line, message, front);
            }
        };
        let code = Code::random(code.nameplate());
        self.channel.restart_handshake(&code.password(), code.nameplate(), os_seed());
        self.code = Some(code);
        self.wrong_codes = 0;
        self.paired = false;
        self.door = Door::Reopening;
        if let Some(ws) = self.link.ws() {
            let _ = send_control(ws, &ClientMessage::Reopen).await;
        }
        Ok(())
    }
}
