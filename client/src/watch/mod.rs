//! `fairdeck watch`, the spectator's program: it takes a watch seat at the relay, opens the end-to-end channel
//! with a player's program and shows the feed it sends. The player's side (the hub, the feed's messages) is
//! [`crate::session::spectators`].
//!
//! | file | job |
//! |---|---|
//! | `spectator.rs` | the spectator's side, sans-IO ([`Spectator`](spectator::Spectator)): the channel, the feed, the observer |
//! | `run.rs` | `fairdeck watch`: the watch seat at the relay, the spectator driven, a [`WatchFront`](run::WatchFront) shown |
//! | `script.rs` | `fairdeck watch --script`: JSON lines |
//! | `screen.rs` | `fairdeck watch`'s terminal: the read-only table, drawn as the game draws its own |
//! | `command.rs` | the command as the program runs it: configuration, terminal, exit code |
//! | `error.rs` | [`WatchError`](error::WatchError) |

mod command;
mod error;
mod run;
mod screen;
mod script;
mod spectator;

pub use command::command;
pub(crate) use script::watch_script;
