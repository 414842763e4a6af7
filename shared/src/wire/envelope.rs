//! The signed, numbered, hash-chained envelope around each message body, and the checks of one received.

use ed25519_dalek::{Signature, Signer, SigningKey, VerifyingKey};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{MAX_MESSAGE_LEN, Message, MessageKind};
use crate::codec;
use crate::crypto::{Group, Suite};

/// A message as it travels: numbered, chained to the sender's previous message, signed.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Envelope {
    /// The message's number in the sender's stream, from 0.
    pub seq: u64,
    /// How many of the other player's messages the sender had taken in when it sent this
    /// one. The chain hash binds the other stream's head at that point, so every message
    /// says exactly which of the receiver's messages its sender had seen.
    pub ack: u64,
    /// The chain hash (`chain_hash`) the signature covers.
    #[serde(with = "crate::serde_hex::array")]
    pub chain: [u8; 32],
    /// The encoded message body.
    #[serde(with = "crate::serde_hex::vec")]
    pub body: Vec<u8>,
    /// The Ed25519 signature of `chain` with the sender's signing key from its hello.
    #[serde(with = "crate::serde_hex::vec")]
    pub signature: Vec<u8>,
}

impl std::fmt::Debug for Envelope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Envelope(#{} ack {} chain {}, {} body bytes)",
            self.seq,
            self.ack,
            hex::encode(&self.chain[..6]),
            self.body.len()
        )
    }
}

/// Why received bytes were refused before any game meaning was given to them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WireError {
    /// A message longer than `MAX_MESSAGE_LEN`, refused before decoding.
    #[error("message of {0} bytes is over the limit")]
    TooLarge(usize),
    /// Bytes that are not an envelope.
    #[error("malformed envelope: {0}")]
    Envelope(String),
    /// A body that is not a message, or holds an invalid group element.
    #[error("malformed message: {0}")]
    Body(String),
    /// A message out of its place in the sender's stream.
    #[error("message number {got}, expected {expected} (replayed, reordered or lost)")]
    Sequence {
        /// The number the stream was at.
        expected: u64,
        /// The number the message carries.
        got: u64,
    },
    /// The chain hash does not follow from the previous one and this body.
    #[error("the message does not continue the sender's hash chain")]
    Chain,
    /// An acknowledgement that counts messages never sent, or fewer than an earlier one.
    #[error("the message acknowledges {acked} messages, but {sent} were sent and {before} acknowledged before")]
    Ack {
        /// The count the message acknowledges.
        acked: u64,
        /// How many messages this side has sent.
        sent: u64,
        /// The count acknowledged before.
        before: u64,
    },
    /// The signature does not verify with the sender's signing key.
    #[error("bad signature")]
    Signature,
    /// A small-order signing key: one signature would verify every message, so nothing it signs proves anything.
    #[error("the signing key is weak (of small order): its signatures would prove nothing")]
    WeakKey,
}

/// The other player's stream as a sender had taken it in: how many of its messages, and the
/// chain hash of the last one (zeros for none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ack {
    /// How many messages.
    pub count: u64,
    /// The chain hash of the last one.
    pub head: [u8; 32],
}

/// h_n = SHA-256("fairdeck/v1/record" ‖ h_{n−1} ‖ n ‖ ack count ‖ ack head ‖ len(body) ‖ body):
/// each message commits to everything its sender sent before, and to everything it had
/// received.
pub fn chain_hash(previous: &[u8; 32], seq: u64, ack: &Ack, body: &[u8]) -> [u8; 32] {
    Sha256::new()
        .chain_update(b"fairdeck/v1/record")
        .chain_update(previous)
        .chain_update(seq.to_be_bytes())
        .chain_update(ack.count.to_be_bytes())
        .chain_update(ack.head)
        .chain_update((body.len() as u64).to_be_bytes())
        .chain_update(body)
        .finalize()
        .into()
}

/// One direction of the conversation: numbering, chaining, signing or checking.
#[derive(Clone, Debug)]
pub(crate) struct Stream {
    pub next_seq: u64,
    pub chain: [u8; 32],
}

impl Stream {
    pub fn new() -> Self {
        Stream { next_seq: 0, chain: [0; 32] }
    }

    pub fn seal(&mut self, key: &SigningKey, body: Vec<u8>, ack: Ack) -> Envelope {
        let seq = self.next_seq;
        let chain = chain_hash(&self.chain, seq, &ack, &body);
        let signature = key.sign(&chain).to_bytes().to_vec();
        self.chain = chain;
        self.next_seq += 1;
        Envelope { seq, ack: ack.count, chain, body, signature }
    }

    /// What this stream's receiver has taken in, to acknowledge in the other direction.
    pub fn ack(&self) -> Ack {
        Ack { count: self.next_seq, head: self.chain }
    }

    /// Checks number, chain and signature; advances only if all three hold. `ack_head` is the
    /// head of the other stream after the `envelope.ack` messages it acknowledges.
    pub fn open(&mut self, key: &VerifyingKey, envelope: &Envelope, ack_head: &[u8; 32]) -> Result<(), WireError> {
        check_envelope(key, &self.chain, self.next_seq, ack_head, envelope)?;
        self.chain = envelope.chain;
        self.next_seq += 1;
        Ok(())
    }
}

/// The checks of one received envelope against the sender's stream so far.
pub fn check_envelope(
    key: &VerifyingKey,
    previous: &[u8; 32],
    expected_seq: u64,
    ack_head: &[u8; 32],
    envelope: &Envelope,
) -> Result<(), WireError> {
    if envelope.seq != expected_seq {
        return Err(WireError::Sequence { expected: expected_seq, got: envelope.seq });
    }
    let ack = Ack { count: envelope.ack, head: *ack_head };
    if chain_hash(previous, envelope.seq, &ack, &envelope.body) != envelope.chain {
        return Err(WireError::Chain);
    }
    let signature = Signature::from_slice(&envelope.signature).map_err(|_| WireError::Signature)?;
    // Strict: no small-order R, no weak key, a canonical s; a signature that verifies only loosely is evidence of
    // nothing.
    key.verify_strict(&envelope.chain, &signature).map_err(|_| WireError::Signature)
}

/// Decodes an envelope from received bytes. Total: any input gives a value or an error.
pub fn decode_envelope(bytes: &[u8]) -> Result<Envelope, WireError> {
    if bytes.len() > MAX_MESSAGE_LEN + 1024 {
        return Err(WireError::TooLarge(bytes.len()));
    }
    codec::decode_exact(bytes).map_err(WireError::Envelope)
}

/// An envelope as it travels: its binary encoding.
pub fn encode_envelope(envelope: &Envelope) -> Vec<u8> {
    codec::encode(envelope)
}

/// Decodes a message body; every group element in it is validated on the way.
pub fn decode_body<G: Group>(body: &[u8]) -> Result<Message<G>, WireError> {
    if body.len() > MAX_MESSAGE_LEN {
        return Err(WireError::TooLarge(body.len()));
    }
    codec::decode_exact(body).map_err(WireError::Body)
}

/// A message body as it is signed and sent: its binary encoding.
pub fn encode_body<G: Group>(message: &Message<G>) -> Vec<u8> {
    codec::encode(message)
}

/// A body's kind, read from its first bytes without decoding anything else: the engine checks
/// that a message of that kind is awaited before it validates any element in it.
pub fn peek_kind(body: &[u8]) -> Result<MessageKind, WireError> {
    if body.len() > MAX_MESSAGE_LEN {
        return Err(WireError::TooLarge(body.len()));
    }
    postcard::take_from_bytes::<MessageKind>(body).map(|(kind, _)| kind).map_err(|e| WireError::Body(e.to_string()))
}

/// The suite a peer's first message announces, so a program can pick the engine for it.
pub fn peek_suite(bytes: &[u8]) -> Result<Suite, WireError> {
    let envelope = decode_envelope(bytes)?;
    // A hello begins with its kind, protocol, software and suite, in that order.
    match postcard::take_from_bytes::<(MessageKind, u32, String, Suite)>(&envelope.body) {
        Ok(((MessageKind::Hello, _, _, suite), _)) => Ok(suite),
        Ok(((kind, ..), _)) => Err(WireError::Body(format!("the first message is a {kind}, not a hello"))),
        Err(e) => Err(WireError::Body(codec::unreadable(e).into())),
    }
}

/// The signing key of a hello: a valid point, and not of small order.
pub(crate) fn verifying_key(bytes: &[u8; 32]) -> Result<VerifyingKey, WireError> {
    let key = VerifyingKey::from_bytes(bytes).map_err(|_| WireError::Signature)?;
    if key.is_weak() {
        return Err(WireError::WeakKey);
    }
    Ok(key)
}
