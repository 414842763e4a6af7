//! What an engine was given, in order: the record a replay runs again (`crate::journal`) and a
//! saved game resumes from. The engine keeps it as it goes; it depends on nothing but the engine's
//! own vocabulary, so the engine never depends on the replay.

use serde::{Deserialize, Serialize};

use super::api::{DeckList, EngineConfig, Intent, LimitedConfig};
use crate::crypto::Suite;
use crate::ids::Seat;

/// The version of the journal's layout. 4: a limited match's pool and format; protocol 7's messages. 3: protocol 5's messages and deck list (commanders and a label; a shuffle
/// step carries its proof). 2: a binary file (postcard) holding binary envelopes.
pub const JOURNAL_FORMAT: u32 = 4;

/// Everything an engine was given, in order, with what it started from: a game a replay can run again.
#[derive(Clone, Serialize, Deserialize)]
pub struct Journal {
    /// The layout's version, `JOURNAL_FORMAT`.
    pub format: u32,
    /// The suite of the game.
    pub suite: Suite,
    /// The seat of the player who kept it.
    pub seat: Seat,
    /// The player's name and software, as its hello said them.
    pub config: EngineConfig,
    /// The deck the engine started with (empty in a limited match, whose decks are built from the pool).
    pub deck: DeckList,
    /// A limited match's pool and format.
    pub limited: Option<LimitedConfig>,
    /// The engine's seed: every key and nonce of the game comes from it.
    #[serde(with = "crate::serde_hex::array")]
    pub rng_seed: [u8; 32],
    /// The player's intents and the opponent's messages, in the order the engine took them.
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
    /// An intent of the player's.
    Intent {
        /// The intent.
        intent: Intent,
    },
    /// A message from the opponent, as received.
    Message {
        /// Its bytes: an encoded envelope.
        #[serde(with = "crate::serde_hex::vec")]
        bytes: Vec<u8>,
    },
}
