//! Why the channel failed, or refused a message.

use super::WINDOW;

/// Why the channel failed (from [`Channel::handle_frame`](super::Channel::handle_frame); always fatal there) or refused a message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ChannelError {
    /// Key confirmation failed: the peer used other words (a typo, or someone guessing the code).
    #[error("wrong code: the key exchange failed (a typo, or someone tried to guess the code)")]
    WrongCode,
    /// A frame failed authentication: it was altered in transit (tampering by the relay).
    #[error("a {frame} frame (number {number}) failed authentication: it was altered in transit")]
    Tampered { frame: &'static str, number: u64 },
    /// A data frame number the peer cannot have sent yet (beyond the window).
    #[error("data frame {seq} is impossible: next expected is {expected}, window {WINDOW}")]
    SequenceOutOfRange { seq: u64, expected: u64 },
    /// Two of the peer's runs sealed the same data frame number: one save resumed twice, or an old copy of it.
    #[error(
        "the opponent's program sent two different frames numbered {seq}: its saved game is being used twice, \
         or an older copy of it was resumed"
    )]
    Forked { seq: u64 },
    /// The peer acknowledged less than it had before: it forgot what it had received.
    #[error(
        "the opponent's program acknowledged {ack} frames after {before}: it forgot what it had received \
         (an older copy of its saved game was resumed)"
    )]
    AckWentBack { ack: u64, before: u64 },
    /// The peer acknowledged frames never sent: another process sealed them under this save's numbers (a copy
    /// of it resumed elsewhere), or the peer is broken.
    #[error(
        "the opponent acknowledged {ack} frames but this program sealed only {sent}: another copy of this saved \
         game is running (or ran), or the opponent's program is broken"
    )]
    BadAck { ack: u64, sent: u64 },
    /// The peer sent a handshake frame that contradicts its earlier one.
    #[error("the peer's {0} changed during the session")]
    HandshakeChanged(&'static str),
    /// The frame cannot be parsed, or breaks the protocol.
    #[error("malformed frame: {0}")]
    Malformed(&'static str),
    /// A message (sent, or being reassembled from the peer) is larger than the limit.
    #[error("message of {size} bytes or more exceeds the {limit}-byte limit")]
    MessageTooLarge { size: usize, limit: usize },
}
