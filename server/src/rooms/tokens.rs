//! Seat tokens: made here, kept only as their SHA-256.

use sha2::{Digest, Sha256};

/// Bytes in a seat token (sent as twice as many hex digits).
const TOKEN_BYTES: usize = 16;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct TokenHash(pub(super) [u8; 32]);

/// Makes a fresh seat token: 16 random bytes, hex. Only its hash is kept.
pub(super) fn new_token() -> (String, TokenHash) {
    let bytes: [u8; TOKEN_BYTES] = rand::random();
    (hex::encode(bytes), hash_token(&bytes))
}

fn hash_token(bytes: &[u8]) -> TokenHash {
    TokenHash(Sha256::digest(bytes).into())
}

/// The hash of a token as a client presents it, if it has the form of one.
pub(super) fn parse_token(text: &str) -> Option<TokenHash> {
    let bytes: [u8; TOKEN_BYTES] = hex::decode(text).ok()?.try_into().ok()?;
    Some(hash_token(&bytes))
}

/// A token hash as a snapshot keeps it (hex).
pub(super) fn decode_token_hash(text: &str) -> Option<TokenHash> {
    hex::decode(text).ok()?.try_into().ok().map(TokenHash)
}

/// The SHA-256 of a token as a client presents it, if it has the form of one: how the cluster finds its room.
pub(crate) fn token_sha256(text: &str) -> Option<[u8; 32]> {
    parse_token(text).map(|hash| hash.0)
}
