//! A game session: a sans-IO core that owns the table engine, the end-to-end
//! [`Channel`](crate::channel::Channel), the player's commands, hosting and the link's reconnection as
//! timers, and a thin driver that does its I/O: it selects over the player's commands, the relay link and the
//! core's next deadline, and shows every [`Output`] to the player. The player's side is a [`Frontend`]:
//! scripted mode reads lines and writes JSON ([`crate::script`]), the terminal table reads keys and draws
//! ([`crate::ui`]); both drive this same loop.
//!
//! Layering: relay frames → channel (decrypt, order, deduplicate) → engine messages → engine; the engine's
//! messages go back the same way. The relay sees only channel frames.
//!
//! Where each part lives. The core (no socket, file, environment variable, task or clock; time is a parameter), a
//! [`SessionCore`](state::SessionCore) made of parts that each own their data:
//!
//! | file | job |
//! |---|---|
//! | `core.rs` | the core's inputs (`handle`, `handle_timeout`), its turn (`advance`), outputs (`poll_*`) and timers |
//! | `state.rs` | the core's state ([`SessionCore`](state::SessionCore)), which the files below work on |
//! | `uplink.rs` | the link as the core knows it: up, an attempt at the seat waiting or under way, or closed |
//! | `outbox.rs` | what the driver is to do, in its order: the save point, sends, shows, files, link actions |
//! | `timers.rs` | the timer table: one deadline per kind of timer, the next timeout the earliest |
//! | `clocks.rs` | the wait and absence clocks, and whether the opponent is here |
//! | `hosting.rs` | the game's code, its door, and the guests the code sent away |
//! | `queue.rs` | the player's commands read but not run yet, and the file the first one waits for |
//! | `commands.rs` | the player's commands: each run once its gate opens; an intent given, a refusal shown |
//! | `cmd/` | each kind of command in its module: its gate, the file it needs first, its effect, its refusals |
//! | `files.rs` | the files a command asks the driver to read or write, and the driver's answers |
//! | `inbound.rs` | what the relay sends: the opponent's frames, the relay's control messages |
//! | `outbound.rs` | engine → channel → frames for the relay, and the engine's events to the player |
//! | `reconnect.rs` | taking the seat back (resume token, else rendezvous) on a backoff timer, commands going on |
//! | `claim.rs` | how a seat is claimed, what the relay answered, what the core asks of the link |
//! | `door.rs` | hosting, until the code is proved: guests with a wrong code, a room reopened or moved |
//! | `meeting.rs` | a guest meets the host's suite: its engine held back until the host's hello names it |
//! | `building.rs` | limited play: the deck built from the pool at the table (`add`, `remove`, `basics`, `pool`, `done`) |
//! | `browse.rs`, `top_card.rs` | searching, scrying, surveilling ([`Browsing`] is `command/`'s), revealing; the top card watched |
//! | `wait_clock.rs` | the wait on the opponent ([`WaitClock`], [`Waiting`]) and its absence ([`AbsenceClock`]) |
//! | `spectators/` | the player's side of watching, sans-IO: the feed's messages and the hub, one channel per spectator |
//! | `watching.rs` | the player's spectators: the watch hub fed with the record, the watch link, `watch-*` commands |
//! | `watch_state.rs` | what the core keeps of them ([`Watching`](watch_state::Watching)), and what the watch link brings |
//!
//! The driver and the rest:
//!
//! | file | job |
//! |---|---|
//! | `start.rs` | hosting, joining or resuming: the first connection, the room, the code; the journal at the end |
//! | `event_loop.rs` | the driver: the `select!` over commands, the link and the core's deadline; doing what the core asks |
//! | `link.rs` | the driver's link: the WebSocket up, an attempt at the seat under way, or none; leaving the room |
//! | `watch_link.rs` | the driver's watch link: the second WebSocket (`host_watch`), for the spectators' frames |
//! | `relay.rs` | one WebSocket: connecting, control messages, creating, joining and claiming a seat |
//! | `disk.rs` | the driver's file work for the core: deck files read, decks built from a pool written |
//! | `saving.rs` | where the game stands (the core's), and the save file written at the core's save points |
//! | `frontend.rs` | the front-end contract: [`Frontend`], [`Output`] |
//! | `error.rs` | [`SessionError`] |

mod browse;
mod building;
mod claim;
mod clocks;
mod cmd;
mod commands;
mod core;
mod disk;
mod door;
mod error;
mod event_loop;
mod files;
mod frontend;
mod hosting;
mod inbound;
mod link;
mod meeting;
mod outbound;
mod outbox;
mod queue;
mod reconnect;
mod relay;
mod saving;
pub mod spectators;
mod start;
mod state;
mod timers;
mod top_card;
mod uplink;
mod wait_clock;
mod watch_link;
mod watch_state;
mod watching;

pub(crate) use crate::command::{Browsing, purpose_name};
pub(crate) use building::{PoolLine, Tally};
pub use error::SessionError;
pub(crate) use frontend::Frontend;
pub use frontend::Output;
pub use hosting::WRONG_CODES_PER_CODE;
pub(crate) use reconnect::{FIRST_RETRY, LONGEST_RETRY, RECONNECT_FOR};
pub(crate) use relay::{Opened, Ws, next_control, open_relay, relay_refusal, send_control};
pub use start::{Brought, DEFAULT_RELAY, Offer, Options, Role};
pub(crate) use start::{os_seed, run};
pub(crate) use wait_clock::forfeit_hint_after;
pub use wait_clock::{FORFEIT_HINT_AFTER, Waiting};

#[cfg(test)]
mod tests;
