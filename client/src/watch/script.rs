//! `fairdeck watch --script`: JSON lines, as a game's scripted mode writes them. `watching` once seated, then
//! for every envelope a `step` (its number, sender and message kind) followed by the observer's `alert` events
//! and a `table` event of the game's own shape; `relay_lost` when the connection is lost (then `watching` again);
//! `ended` at the end, or the `error` that stopped it.

use std::io::Write;

use fairdeck_shared::Seat;
use fairdeck_shared::engine::Event;
use fairdeck_shared::wire::MessageKind;
use serde::Serialize;
use tokio::io::AsyncBufRead;

use super::error::WatchError;
use super::run::{Ended, WatchFront, WatchOptions, watch};
use super::spectator::{News, Spectator};
use crate::input_lines::InputLines;
use crate::script::{emit, emit_event, emit_table};

/// The lines besides the game's own `table` and `alert`: names and fields are stable.
#[derive(Debug, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
enum WatchEvent {
    /// Seated as spectator `watcher` of the player whose code it is.
    Watching {
        watcher: u8,
    },
    /// The player's feed began: the seat whose side it is, the delay in turns.
    Started {
        seat: Seat,
        delay: u8,
    },
    /// The connection to the relay was lost: a watch seat is being taken again (`watching`), then the feed
    /// starts afresh (`started`).
    RelayLost {
        reason: String,
    },
    /// The players changed the delay.
    Delay {
        turns: u8,
    },
    /// Envelope number `seq` of `from`'s stream (`null` for bytes that are no envelope), a message of `kind`.
    Step {
        seq: Option<u64>,
        from: Seat,
        kind: Option<MessageKind>,
    },
    Ended {
        reason: Ended,
    },
    Error {
        kind: &'static str,
        message: String,
    },
}

struct Script<R, W> {
    lines: InputLines<R>,
    out: W,
}

impl<R: AsyncBufRead + Unpin, W: Write> WatchFront for Script<R, W> {
    async fn next_line(&mut self) -> Option<String> {
        // A refused line is no command a spectator has, as any unknown line: skipped.
        loop {
            if let Ok(text) = self.lines.next().await?.taken() {
                return Some(text);
            }
        }
    }

    fn watching(&mut self, watcher: u8) -> std::io::Result<()> {
        emit(&mut self.out, &WatchEvent::Watching { watcher })
    }

    fn relay_lost(&mut self, reason: &str) -> std::io::Result<()> {
        emit(&mut self.out, &WatchEvent::RelayLost { reason: reason.to_string() })
    }

    fn show(&mut self, news: News, spectator: &Spectator) -> std::io::Result<()> {
        match news {
            News::Started { seat, delay } => emit(&mut self.out, &WatchEvent::Started { seat, delay }),
            News::Delay(turns) => emit(&mut self.out, &WatchEvent::Delay { turns }),
            News::Step { seq, from, kind } => emit(&mut self.out, &WatchEvent::Step { seq, from, kind }),
            News::Event(event @ Event::Alert(_)) => emit_event(&mut self.out, event, spectator),
            // The table says what the events did.
            News::Event(_) => Ok(()),
            News::Table => emit_table(&mut self.out, spectator),
        }
    }

    fn ended(&mut self, reason: Ended, _: &Spectator) -> std::io::Result<()> {
        emit(&mut self.out, &WatchEvent::Ended { reason })
    }
}

/// Watches in scripted mode: commands (`table`, `quit`) from `input`, JSON lines to `out`.
pub async fn watch_script<R, W>(options: WatchOptions, input: R, out: W) -> Result<(), WatchError>
where
    R: AsyncBufRead + Unpin,
    W: Write,
{
    let mut front = Script { lines: InputLines::new(input), out };
    let result = watch(options, &mut front).await;
    if let Err(error) = &result {
        // Best effort: the error also goes to stderr from the binary.
        let _ = emit(&mut front.out, &WatchEvent::Error { kind: error.kind(), message: error.to_string() });
    }
    result
}
