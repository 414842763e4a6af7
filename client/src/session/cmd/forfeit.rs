//! `forfeit`: claims the game against the opponent's silence, or its absence once the grace passed. It runs at
//! any time: the engine judges a silence by what the opponent owes, the session an absence by its clock.

use std::fmt;

use fairdeck_shared::crypto::Group;
use fairdeck_shared::engine::Intent;

use crate::command::{ErrorKind, Gate};
use crate::session::state::SessionCore;

pub(super) const GATE: Gate = Gate::Always;

/// Why `forfeit` is refused now: the opponent is away, and it may be coming back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum ForfeitRefused {
    /// The relay has not said yet whether the opponent is here.
    NotToldYet { opponent: String },
    /// The opponent left `away` seconds ago; the grace ends in `left` seconds.
    MayComeBack { opponent: String, away: u64, left: u64 },
}

impl fmt::Display for ForfeitRefused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ForfeitRefused::NotToldYet { opponent } => {
                write!(f, "the relay has not said yet whether {opponent} is here: forfeit once it has")
            }
            ForfeitRefused::MayComeBack { opponent, away, left } => {
                write!(f, "{opponent} left {away} s ago and may be coming back: forfeit is possible in {left} s")
            }
        }
    }
}

/// Claims the game, unless [`refused`] says the opponent may be coming back.
pub(super) fn run<G: Group>(core: &mut SessionCore<G>, line: &str) {
    if let Some(refused) = refused(core) {
        return core.refuse(ErrorKind::Refused, line, refused.to_string());
    }
    // Nothing awaited, but the opponent left and has not come back: its absence is the claim.
    let abandoned =
        core.engine.awaiting_opponent().is_none() && !core.clocks.peer_here() && core.channel.is_established();
    let claim = if abandoned { Intent::ClaimAbandoned } else { Intent::ClaimForfeit };
    core.intent(claim, line);
}

/// Why `forfeit` is refused now, if it is: the opponent is away, and has not been for the whole
/// [`FORFEIT_GRACE`](crate::session::FORFEIT_GRACE) (it may be coming back), or the relay has not said yet whether
/// it is here. An opponent who is here but silent is the engine's to judge, by what it owes.
fn refused<G: Group>(core: &SessionCore<G>) -> Option<ForfeitRefused> {
    if core.clocks.peer_here() || !core.channel.is_established() {
        return None;
    }
    let opponent = core.opponent.clone().unwrap_or_else(|| "the opponent".to_string());
    let now = core.now;
    let Some(left) = core.clocks.forfeit_in(now) else { return Some(ForfeitRefused::NotToldYet { opponent }) };
    if left.is_zero() {
        return None;
    }
    let away = core.clocks.away_for(now).unwrap_or_default().as_secs();
    let left = left.as_millis().div_ceil(1000) as u64;
    Some(ForfeitRefused::MayComeBack { opponent, away, left })
}
