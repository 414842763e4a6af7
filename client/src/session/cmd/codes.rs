//! The codes a player hands out: `new-code` (hosting, before a guest proved the code) and the spectators'
//! `watch-code`, `new-watch-code`, `watch-off`, `watch-delay` (`watching.rs`). They run at any time.

use std::fmt;

use fairdeck_relay_protocol::ClientMessage;
use fairdeck_shared::Seat;
use fairdeck_shared::crypto::Group;

use crate::code::Code;
use crate::command::{ErrorKind, Gate};
use crate::session::state::SessionCore;

pub(super) const GATE: Gate = Gate::Always;

/// Why `new-code` is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum NewCodeRefused {
    /// A guest has no code of its own, and a host none once the opponent proved it.
    NoCode,
}

impl fmt::Display for NewCodeRefused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NewCodeRefused::NoCode => f.write_str("only the host has a code, and only until the opponent proved it"),
        }
    }
}

/// `new-code`: hosting, before the key exchange succeeded, new words, and the seat given to the next guest.
pub(super) fn new_code<G: Group>(core: &mut SessionCore<G>, line: &str) {
    let code = match core.hosting.code() {
        Some(code) if core.engine.seat() == Seat::HOST && !core.channel.is_established() => code,
        _ => return core.refuse(ErrorKind::Refused, line, NewCodeRefused::NoCode.to_string()),
    };
    let code = Code::random_from(&mut core.rng, code.nameplate());
    let seed = core.seed();
    core.channel.restart_handshake(&code.password(), code.nameplate(), seed);
    core.hosting.new_code(code);
    core.uplink.pair(false);
    core.send_control(ClientMessage::Reopen);
}
