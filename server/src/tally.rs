//! What the relay counts, shared by the rooms that produce the counts and the metrics, statistics and stats page
//! that report them: how a room ended, and the live table's counts.

use serde::{Deserialize, Serialize};

/// How a room ended, from least to most severe. A room's result is the most severe of what happened to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RoomResult {
    /// Two players met and the room ended normally.
    Happy,
    /// The creator left (or never came back) before anyone joined.
    Lonely,
    /// The waiting room expired, or a held seat was never resumed.
    Pruned,
    /// A third player tried to join.
    Crowded,
    /// A client reported a failed key exchange.
    Scary,
    /// A client broke a rule (oversize frame, bad message, too slow) or reported an error.
    Errored,
}

impl RoomResult {
    pub const ALL: [RoomResult; 6] = [
        RoomResult::Happy,
        RoomResult::Lonely,
        RoomResult::Pruned,
        RoomResult::Crowded,
        RoomResult::Scary,
        RoomResult::Errored,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            RoomResult::Happy => "happy",
            RoomResult::Lonely => "lonely",
            RoomResult::Pruned => "pruned",
            RoomResult::Crowded => "crowded",
            RoomResult::Scary => "scary",
            RoomResult::Errored => "errored",
        }
    }

    pub fn parse(text: &str) -> Option<RoomResult> {
        RoomResult::ALL.into_iter().find(|r| r.as_str() == text)
    }
}

/// Counts of the live table, for metrics and the stats page.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct LiveCounts {
    pub rooms: usize,
    pub waiting: usize,
    pub seats_connected: usize,
    pub seats_held: usize,
    /// Spectators connected.
    pub watchers: usize,
}
