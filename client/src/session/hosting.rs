//! What a host keeps until a guest proved the code ([`Hosting`]): the code, whether the next guest is let in, and
//! how many guests the current code sent away. The core's work with it is in `door.rs`.

use crate::code::Code;

/// Wrong codes a host takes on one code before it stops giving the seat to the next guest: each guess has one
/// chance in 65,536 (two words of 256), so an online guesser gets at most this many such chances per code
/// before the host chooses, with `new-code`, whether to go on.
pub const WRONG_CODES_PER_CODE: u32 = 3;

/// The game's code and its door.
#[derive(Debug)]
pub(super) struct Hosting {
    /// The host rebuilds its channel from it for each new guest. A resumed game has none.
    code: Option<Code>,
    /// Before the channel is up: whether a guest's frames are taken.
    door: Door,
    /// Guests sent away on the current code.
    wrong_codes: u32,
}

/// Hosting, before the key exchange succeeded: whether the next guest's frames go to the channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Door {
    /// A guest may be exchanging keys (or none has joined yet).
    Open,
    /// A guest was sent away (`reopen` is out): frames still on their way from it are dropped.
    Reopening,
    /// [`WRONG_CODES_PER_CODE`] guests were sent away: nobody else is let in until `new-code`.
    Closed,
}

impl Hosting {
    /// The door open, nobody sent away; `code` is the game's, if it has one.
    pub fn new(code: Option<Code>) -> Hosting {
        Hosting { code, door: Door::Open, wrong_codes: 0 }
    }

    pub fn code(&self) -> Option<&Code> {
        self.code.as_ref()
    }

    pub fn door(&self) -> Door {
        self.door
    }

    /// A guest with another code was sent away: how many this code sent away, and whether the seat goes to
    /// the next guest (else the door is closed until `new-code`).
    pub fn send_away(&mut self) -> (u32, bool) {
        self.wrong_codes += 1;
        let reopened = self.wrong_codes < WRONG_CODES_PER_CODE;
        self.door = if reopened { Door::Reopening } else { Door::Closed };
        (self.wrong_codes, reopened)
    }

    /// The game's room is now under `nameplate`, with the same words; a door reopening is open. The code, if
    /// the game has one.
    pub fn moved_to(&mut self, nameplate: &str) -> Option<&Code> {
        let code = self.code.as_ref()?.with_nameplate(nameplate);
        if self.door == Door::Reopening {
            self.door = Door::Open;
        }
        Some(self.code.insert(code))
    }

    /// The relay gave the seat back for the next guest, under `code`: the door is open.
    pub fn reopened(&mut self, code: Code) {
        self.code = Some(code);
        self.door = Door::Open;
    }

    /// `new-code`: new words, no guest sent away on them yet; the door opens once the relay gave the seat back.
    pub fn new_code(&mut self, code: Code) {
        self.code = Some(code);
        self.wrong_codes = 0;
        self.door = Door::Reopening;
    }
}
