//! The card pools of limited play: the files both players hold and the booster plan of a set.
//!
//! A pool is a cube (any deck file the client reads, counts being copies in the cube) or a set (an MTGJSON
//! per-set file, read by `set`). Both players must hold the same file: `pool_hash` names it, and the two
//! hashes are compared before anything is dealt. `booster` turns a set's booster kind into the shared stacks
//! that N boosters are dealt from (docs/CLIENT.md, "Pool files for limited play").

pub mod booster;
pub mod set;

pub use booster::{BoosterPlan, MAX_PLAN_BOOSTERS, PlanError};
pub use set::{BoosterKind, SetFile, SetFileError};

use sha2::{Digest, Sha256};

/// The hash both players compare before a limited match: SHA-256 of the pool file's bytes, exactly as read
/// (a cube list and a set file alike), so any difference between the two files, even in spacing, is caught.
#[must_use]
pub fn pool_hash(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

#[cfg(test)]
mod tests {
    use super::pool_hash;

    #[test]
    fn pool_hash_is_sha256_of_the_bytes() {
        // FIPS 180-2's "abc" example.
        assert_eq!(hex::encode(pool_hash(b"abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        assert_ne!(pool_hash(b"1 Lightning Bolt\n"), pool_hash(b"1 Lightning Bolt\r\n"));
    }
}
