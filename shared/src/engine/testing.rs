//! Hooks for the tests' cheating peers and the fuzz targets (feature `testing`): what an honest player never
//! does, kept out of the engine's API otherwise.

use super::Engine;
use crate::crypto::Group;
use crate::table::CardId;
use crate::wire;

impl<G: Group> Engine<G> {
    /// Signs and sends any body as the next message, without checking or applying it: the
    /// tests' tampering peer uses this to send what an honest engine never would.
    /// `ack` is what it claims to have taken in of the other player's stream.
    pub fn send_unchecked(&mut self, body: Vec<u8>, ack: wire::Ack) {
        self.out.seal_and_send(body, ack);
    }

    /// Records that message `seq` went out with `chain` instead of what this engine sealed:
    /// the tests' persistent cheater replaces its engine's messages after the fact, and the
    /// opponent's acknowledgements then name the replacement.
    pub fn replace_sent_head(&mut self, seq: u64, chain: [u8; 32]) {
        if let Some(head) = self.out.sent_heads.get_mut(seq as usize) {
            *head = chain;
        }
    }

    /// Card `card`'s identity point, when only this player's locks are left on it: what a cheater would
    /// claim a card is.
    pub fn identity_point(&self, card: CardId) -> Option<G::Element> {
        self.stripped_point(card)
    }
}

/// A chat line that makes its receiver's engine panic, in builds with the feature `testing` only: the tests of
/// `contain.rs` need a panic that comes back whenever the message is taken in again, as a real fault would.
pub const FAILING_CHAT: &str = "\u{0}testing: fail on this chat\u{0}";

pub(super) fn fail_on(text: &str) {
    assert!(text != FAILING_CHAT, "a chat made to fail");
}
