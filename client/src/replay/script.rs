//! `fairdeck replay --script`: a `step` event for every input replayed, each followed by the `table` event the
//! game's scripted mode prints (the same function writes both), so a program reads the game's tables in order.

use std::io::Write;

use fairdeck_shared::crypto::Group;
use serde::Serialize;

use super::{Replay, Step, Until};
use crate::script::{emit, emit_table};

/// The replay's own line: one object whose `event` names the variant.
#[derive(Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
enum ReplayEvent {
    /// The step just taken.
    Step(Step),
}

/// Prints the steps of `replay` from its start until `until`, each with the table after it; a replay that takes no
/// step prints the table it starts on, so the output always ends with a table.
pub fn print<G: Group>(mut replay: Replay<G>, until: Until, mut out: impl Write) -> anyhow::Result<()> {
    let mut printed = false;
    while !replay.reached(until) && replay.forward() {
        let step = replay.step(replay.position()).ok_or_else(|| anyhow::anyhow!("a step taken has a number"))?;
        emit(&mut out, &ReplayEvent::Step(step))?;
        emit_table(&mut out, replay.engine())?;
        printed = true;
    }
    if !printed {
        emit_table(&mut out, replay.engine())?;
    }
    Ok(())
}
