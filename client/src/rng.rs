//! `fairdeck rng`: recompute the public random numbers of seed 000 from their inputs.

use anyhow::{Context, bail};
use fairdeck_shared::hash_rng::{HashRng, shuffled_indices};

/// Shuffles bigger than this are no deck; refusing them keeps a typo from eating memory.
pub(crate) const MAX_COUNT: usize = 1_000_000;

/// The basic shuffle of `0..count` over the generator given by its shared seed and state,
/// as a JSON array.
pub fn shuffle_json(shared_seed_hex: &str, state_hex: &str, count: usize) -> anyhow::Result<String> {
    let shared_seed = decode_hex("--shared-seed", shared_seed_hex)?;
    let state = decode_hex("--state", state_hex)?;
    if count > MAX_COUNT {
        bail!("--count {count} is more than {MAX_COUNT} cards");
    }
    let mut rng = HashRng::new(&shared_seed, &state);
    Ok(serde_json::to_string(&shuffled_indices(count, &mut rng))?)
}

fn decode_hex(flag: &str, value: &str) -> anyhow::Result<Vec<u8>> {
    let value = value.trim();
    let value = value.strip_prefix("0x").unwrap_or(value);
    hex::decode(value).with_context(|| format!("{flag} must be hexadecimal bytes (e.g. 64 hex digits for 32 bytes)"))
}
