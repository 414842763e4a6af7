//! A game session: one task that selects over the player's commands, the relay link and a ticker, feeds
//! the end-to-end [`Channel`](crate::channel::Channel) and the table engine, and shows every [`Output`] to
//! the player. The player's side is a [`Frontend`]: scripted mode reads lines and writes JSON
//! ([`crate::script`]), the terminal table reads keys and draws ([`crate::ui`]); both drive this same loop.
//!
//! Layering: relay frames → channel (decrypt, order, deduplicate) → engine messages → engine; the engine's
//! messages go back the same way. The relay sees only channel frames.
//!
//! Where each part lives:
//!
//! | file | job |
//! |---|---|
//! | `start.rs` | hosting, joining or resuming: the first connection, the room, the code; the journal at the end |
//! | `event_loop.rs` | the loop itself: the `select!` over commands, the link and the ticker |
//! | `commands.rs` | the player's commands: queued until the table takes them, then given to the engine |
//! | `inbound.rs` | what the relay sends: the opponent's frames, the relay's control messages |
//! | `outbound.rs` | engine → channel → relay, and the engine's events to the player |
//! | `link.rs` | the link over time: up, down while reconnecting, closed; leaving the room |
//! | `reconnect.rs` | taking the seat back (resume token, else rendezvous) on a backoff timer, commands going on |
//! | `relay.rs` | one WebSocket: connecting, control messages, creating, joining and claiming a seat |
//! | `door.rs` | hosting, until the code is proved: guests with a wrong code, `new-code` |
//! | `saving.rs` | saving as it goes |
//! | `frontend.rs` | the front-end contract: [`Frontend`], [`Output`] |
//! | `wait_clock.rs` | the wait on the opponent ([`WaitClock`], [`Waiting`]) and its absence ([`AbsenceClock`]) |
//! | `error.rs` | [`SessionError`] |
//! | `state.rs` | the session's state, which the files above work on |

mod browse;
mod commands;
mod door;
mod error;
mod event_loop;
mod frontend;
mod inbound;
mod link;
mod outbound;
mod reconnect;
mod relay;
mod saving;
mod start;
mod state;
mod top_card;
mod wait_clock;

pub use crate::command::{Browsing, purpose_name};
pub use door::WRONG_CODES_PER_CODE;
pub use error::SessionError;
pub use frontend::{Frontend, Output};
pub use start::{DEFAULT_RELAY, Options, Role, run};
pub use wait_clock::{
    AbsenceClock, AbsenceNews, FORFEIT_GRACE, FORFEIT_GRACE_VARIABLE, FORFEIT_HINT_AFTER, WAIT_SHOWN_AFTER, WaitClock,
    WaitNews, Waiting,
};
