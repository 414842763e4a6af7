//! Hosting, until a guest proved the code: who is let in. A guest with another code is sent away and the seat
//! given to the next one, up to [`WRONG_CODES_PER_CODE`](super::WRONG_CODES_PER_CODE) per code; `new-code`
//! (`cmd/codes.rs`) makes new words. What the host keeps of it is [`Hosting`](super::hosting::Hosting)'s.

use fairdeck_relay_protocol::{ClientMessage, ReportedResult};
use fairdeck_shared::Seat;
use fairdeck_shared::crypto::Group;

use super::frontend::Output;
use super::state::SessionCore;
use crate::code;

impl<G: Group> SessionCore<G> {
    /// Hosting: a guest failed the key exchange. Reports it, and gives the seat to the next guest unless this
    /// code has had [`WRONG_CODES_PER_CODE`](super::WRONG_CODES_PER_CODE) wrong guests: then only `new-code` opens
    /// the game again.
    pub(super) fn send_away_guest(&mut self, report: ReportedResult) {
        let (attempts, reopened) = self.hosting.send_away();
        self.uplink.pair(false);
        // The game's own messages wait in the channel for whoever proves the code next.
        if let Some(code) = self.hosting.code().cloned() {
            let seed = self.seed();
            self.channel.restart_handshake(&code.password(), code.nameplate(), seed);
        }
        // A lost connection shows up on the next read; the seat is resumed and the door stays as set.
        self.send_control(ClientMessage::Report { result: report });
        if reopened {
            self.send_control(ClientMessage::Reopen);
        }
        self.show(Output::WrongCodeTried { attempts, reopened });
    }

    /// Hosting: the game has a new room under `nameplate` (its previous one ended before any guest proved the
    /// code). The channel starts again under the new number, with the same words.
    pub(super) fn new_room_opened(&mut self, nameplate: &str, token: String) {
        let Some(code) = self.hosting.moved_to(nameplate).cloned() else { return };
        self.uplink.keep_token(token);
        let seed = self.seed();
        self.channel.restart_handshake(&code.password(), code.nameplate(), seed);
        self.show(Output::Code(code.to_string()));
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
        let Some(mut code) = self.hosting.code().cloned() else { return };
        if code.nameplate() != nameplate {
            // The nameplate is part of the key exchange: the channel starts again under the new one.
            code = code.with_nameplate(nameplate);
            let seed = self.seed();
            self.channel.restart_handshake(&code.password(), code.nameplate(), seed);
        }
        self.uplink.pair(false);
        self.show(Output::Code(code.to_string()));
        self.hosting.reopened(code);
    }
}
