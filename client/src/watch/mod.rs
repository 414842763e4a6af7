//! Watching a game: the feed a player's program sends each spectator inside an end-to-end channel, the
//! player's side that keeps it (the delay too), and `fairdeck watch`, the spectator's side.
//!
//! | file | job |
//! |---|---|
//! | `feed.rs` | the feed's messages ([`Feed`]): the game's start, the delay, each envelope; their encoding |
//! | `hub.rs` | the player's side, sans-IO ([`WatchHub`]): one channel per spectator, the envelopes after the delay |

mod feed;
mod hub;

pub use feed::{Feed, FeedError, MAX_DELAY};
pub use hub::WatchHub;
