//! `fairdeck verify`: a saved journal's verdict (or a save's, which holds the journal), for anyone to reach alone.

use std::path::Path;

use fairdeck_shared::crypto::{Modp2048, Ristretto255, Suite};
use fairdeck_shared::journal::{Summary, Verdict, check};

/// What `verify` found, for the exit code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Finding {
    /// No breach by the opponent.
    Clean,
    /// A breach, proven by the opponent's signed message.
    Breach,
    /// The journal does not hold together: it proves nothing.
    Inconsistent,
}

impl Finding {
    pub fn exit_code(self) -> u8 {
        match self {
            Finding::Clean => 0,
            Finding::Breach => 3,
            Finding::Inconsistent => 4,
        }
    }
}

/// Reads the journal at `path` (a journal written by `--record`, or a game's save), replays it and says what it
/// shows, in words.
pub fn verify_file(path: &Path) -> anyhow::Result<(Finding, String)> {
    let journal = crate::journal::read_file(path)?;
    let verdict = match journal.suite {
        Suite::Ristretto255 => check::<Ristretto255>(&journal),
        Suite::Modp2048 => check::<Modp2048>(&journal),
    }?;
    Ok(describe(&verdict))
}

fn describe(verdict: &Verdict) -> (Finding, String) {
    match verdict {
        Verdict::Clean(summary) => {
            (Finding::Clean, format!("{}\nverdict: no breach of the protocol by the opponent", facts(summary)))
        }
        Verdict::Breach { summary, by, alert } => {
            let message = alert.evidence.as_ref().map_or(String::new(), |e| format!(" in its message #{}", e.seq));
            let text = format!(
                "{}\nverdict: the {} broke the protocol{message}: {}: {}\nthe evidence is signed with the key of its hello",
                facts(summary),
                by.name(),
                alert.kind,
                alert.detail
            );
            (Finding::Breach, text)
        }
        Verdict::Inconsistent { summary, reason } => (
            Finding::Inconsistent,
            format!("{}\nverdict: the journal does not hold together, so it proves nothing: {reason}", facts(summary)),
        ),
    }
}

fn facts(summary: &Summary) -> String {
    let opponent = match &summary.opponent {
        Some((name, key)) => format!("{name:?}, signing key {}", hex::encode(key)),
        None => "never heard from".to_string(),
    };
    let audit = if summary.opponent_audited { "passed" } else { "not done" };
    let forfeit = match &summary.forfeit {
        Some((by, awaited)) => {
            format!("\nthe {} claimed the {}'s forfeit: it had not sent {awaited}", by.name(), by.opponent().name())
        }
        None => String::new(),
    };
    format!(
        "journal of the {}: {} messages sent, {} received, {} game(s)\nopponent: {opponent}\nopponent's deck audit (last game): {audit}{forfeit}",
        summary.seat.name(),
        summary.sent,
        summary.received,
        summary.games
    )
}
