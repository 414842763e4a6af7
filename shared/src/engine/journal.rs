//! What an engine was given, in order: the record a replay runs again (`crate::journal`) and a
//! saved game resumes from. The engine keeps it as it goes; it depends on nothing but the engine's
//! own vocabulary, so the engine never depends on the replay.

use serde::{Deserialize, Serialize};

use super::api::{DeckList, EngineConfig, Intent};
use crate::crypto::Suite;
use crate::ids::Seat;

/// The version of the journal's layout. 3: protocol 5's messages (a shuffle step carries its proof); 2: a binary
/// file (postcard) holding binary envelopes.
pub const JOURNAL_FORMAT: u32 = 3;

#[derive(Clone, Serialize, Deserialize)]
pub struct Journal {
    pub format: u32,
    pub suite: Suite,
    pub seat: Seat,
    pub config: EngineConfig,
    pub deck: DeckList,
    /// The engine's seed: every key and nonce of the game comes from it.
    #[serde(with = "crate::serde_hex::array")]
    pub rng_seed: [u8; 32],
    pub inputs: Vec<Input>,
}

/// Never prints the seed: it is every secret of the game.
impl std::fmt::Debug for Journal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Journal")
            .field("suite", &self.suite)
            .field("seat", &self.seat)
            .field("inputs", &self.inputs.len())
            .finish_non_exhaustive()
    }
}

/// One thing the engine was given, in order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Input {
    Intent {
        intent: Intent,
    },
    Message {
        #[serde(with = "crate::serde_hex::vec")]
        bytes: Vec<u8>,
    },
}
