//! Limited play at the table: a booster draft's `take`, and the deck built from the pool (`add`, `remove`,
//! `basics`, `pool`). They run at any time; the build is `building.rs`'s.

use fairdeck_shared::crypto::Group;
use fairdeck_shared::engine::Intent;

use crate::command::{BuildStep, ErrorKind, Gate, PackCard};
use crate::session::frontend::Output;
use crate::session::state::SessionCore;

pub(super) const GATE: Gate = Gate::Always;

/// Booster draft: this card of the pack shown taken.
pub(super) fn take_card<G: Group>(core: &mut SessionCore<G>, card: &PackCard, line: &str) {
    match core.limited.pack_card(card) {
        Ok(n) => {
            core.intent(Intent::TakeCard(n), line);
        }
        Err((kind, message)) => core.refuse(kind, line, message),
    }
}

/// `add`, `remove`, `basics` and `pool`: the deck built from the pool changed, or the pool shown.
pub(super) fn building<G: Group>(core: &mut SessionCore<G>, step: BuildStep, line: &str) {
    let build = match core.limited.build_mut() {
        Ok(build) => build,
        Err(message) => return core.refuse(ErrorKind::Refused, line, message),
    };
    let shown = match step {
        BuildStep::Add(count, name) => build.add(count, &name).map(Output::Building),
        BuildStep::Remove(count, name) => build.remove(count, &name).map(Output::Building),
        BuildStep::AddPool => Ok(Output::Building(build.add_pool())),
        BuildStep::RemoveAll => Ok(Output::Building(build.remove_all())),
        BuildStep::Basics(lands) => Ok(Output::Building(build.set_basics(&lands))),
        BuildStep::ShowPool => Ok(Output::PoolListed { cards: build.listing() }),
    };
    match shown {
        Ok(output) => core.show(output),
        Err((kind, message)) => core.refuse(kind, line, message),
    }
}
