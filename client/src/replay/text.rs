//! `fairdeck journal show --text`: the game as the table's log told it, a line per sentence, each with the step that
//! told it and the turn then. The sentences are the log pane's own: the replay feeds the view as the game did, and
//! this reads what its log gained at each step.

use std::fmt::Write;
use std::path::Path;

use fairdeck_shared::crypto::{Group, Modp2048, Ristretto255, Suite};
use fairdeck_shared::journal::Journal;

use super::Replay;
use crate::ui::log::LogKind;
use crate::ui::render::ALERT_MARK;

/// The journal (or save) at `path` as the table's log.
pub fn show_file(path: &Path) -> anyhow::Result<String> {
    let journal = crate::journal::read_file(path)?;
    let text = match journal.suite {
        Suite::Ristretto255 => log_text::<Ristretto255>(journal),
        Suite::Modp2048 => log_text::<Modp2048>(journal),
    };
    text.map_err(|error| anyhow::anyhow!("{}: {error:#}", path.display()))
}

/// The log of `journal`'s game: `step  turn  sentence`, the lines of the start as step 0.
pub(crate) fn log_text<G: Group>(journal: Journal) -> anyhow::Result<String> {
    let mut replay = Replay::<G>::new(journal)?;
    let mut text = String::new();
    let mut told = 0;
    loop {
        let log = &replay.view().log;
        let new = usize::try_from(log.told() - told).unwrap_or(usize::MAX).min(log.lines().len());
        for line in log.lines().iter().skip(log.lines().len() - new) {
            let mark = if line.kind == LogKind::Alert { ALERT_MARK } else { "" };
            writeln!(text, "{:>6}  turn {:<3} {mark}{}", replay.position(), replay.turn(), line.text)?;
        }
        told = log.told();
        if !replay.forward() {
            break;
        }
    }
    // The caller prints it with its own line end.
    text.pop();
    Ok(text)
}
