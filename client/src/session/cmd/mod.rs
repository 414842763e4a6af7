//! Each kind of command as the session runs it, one module per kind (as mini-redis's `cmd/`): when it may run
//! (its [`Gate`]), the file it needs first, and what it does. The table in [`crate::command`] reads, documents
//! and binds each command to keys; this dispatches a parsed [`Command`] to its kind. A new kind of command is its
//! table entry (and variant) there, and its module here.

mod browsing;
mod card;
mod codes;
mod decks;
mod done;
mod forfeit;
mod given;
mod limited;
mod on_table;
mod session;

use fairdeck_shared::crypto::Group;
use fairdeck_shared::engine::Intent;

use super::files::{FileAnswer, FileRequest};
use super::state::{Flow, SessionCore};
use crate::command::{Command, Gate, Parsed};

/// When `command` may run.
pub(super) fn gate<G: Group>(command: &Command, core: &SessionCore<G>) -> Gate {
    match command {
        Command::Act(_) | Command::End => given::ON_TABLE,
        Command::Chat(_) | Command::Ask(..) | Command::Refuse(_) | Command::Pick(_) | Command::Pile(_) => {
            given::ANY_TIME
        }
        Command::Undo(step) => given::undo_gate(*step),
        Command::OnCard(..) | Command::PlayerValue { .. } | Command::Token { .. } => card::GATE,
        Command::OnTable(_) => on_table::GATE,
        Command::Browse(..) | Command::Take(..) | Command::Place(..) | Command::RevealHand | Command::RevealTop => {
            browsing::GATE
        }
        Command::WatchTop(_) => browsing::TOP_WATCH_GATE,
        Command::Done => done::gate(core),
        Command::NewGame(_) | Command::Sideboard(_) | Command::Build(_) => decks::GATE,
        Command::TakeCard(_) | Command::Building(_) => limited::GATE,
        Command::Forfeit => forfeit::GATE,
        Command::NewCode | Command::Watch(_) => codes::GATE,
        Command::Table => session::TABLE_GATE,
        Command::Wait => session::WAIT_GATE,
        Command::Quit => session::QUIT_GATE,
    }
}

/// The file `command` needs before it runs, if any.
pub(super) fn file<G: Group>(command: &Command, core: &SessionCore<G>) -> Option<FileRequest> {
    match command {
        Command::NewGame(file) => decks::new_game_file(file.as_deref(), core),
        Command::Build(file) => Some(decks::build_file(file)),
        Command::Done => done::file(core),
        _ => None,
    }
}

/// Does what the parsed line asks, its gate open; `line` is quoted by a refusal, `answer` is the driver's to the
/// file the command asked for. A refusal is shown, not returned: the session goes on.
pub(super) fn run<G: Group>(
    Parsed { spec, command }: Parsed,
    core: &mut SessionCore<G>,
    line: &str,
    answer: Option<FileAnswer>,
) -> Flow {
    match command {
        Command::Act(action) => given::run(core, Intent::Act(action), line),
        Command::Chat(text) => given::run(core, Intent::Chat(text), line),
        Command::Ask(zone, count) => given::run(core, Intent::RequestReveal { zone, count }, line),
        Command::Refuse(zone) => given::run(core, Intent::RefuseReveal { zone }, line),
        Command::Undo(step) => given::run(core, given::undo_intent(step), line),
        Command::End => given::run(core, Intent::EndGame, line),
        Command::Pick(grid_line) => given::run(core, Intent::Pick(grid_line), line),
        Command::Pile(choice) => given::run(core, Intent::Pile(choice), line),
        Command::OnCard(card, act) => card::on_card(core, &card, &act, line),
        Command::PlayerValue { key, amount } => card::player_value(core, key, amount, line),
        Command::Token { name, power_toughness, placement } => {
            card::token(core, name, power_toughness, placement, line)
        }
        Command::OnTable(act) => on_table::run(core, spec, act, line),
        Command::Browse(purpose, count) => core.open_browsing(purpose, count, line),
        Command::Take(card, zone) => core.take_browsed(card, zone, line),
        Command::Place(placing, cards) => browsing::place(core, placing, &cards, line),
        Command::RevealHand => core.reveal_hand(line),
        Command::RevealTop => core.reveal_top(line),
        Command::WatchTop(watch) => core.set_top_watch(watch),
        Command::Done => done::run(core, answer, line),
        Command::NewGame(file) => decks::new_game(core, file.as_deref(), answer, line),
        Command::Sideboard(swap) => decks::sideboard(core, &swap, line),
        Command::Build(file) => decks::build(core, &file, answer, line),
        Command::TakeCard(card) => limited::take_card(core, &card, line),
        Command::Building(step) => limited::building(core, step, line),
        Command::Forfeit => forfeit::run(core, line),
        Command::NewCode => codes::new_code(core, line),
        Command::Watch(step) => core.watch_command(step, line),
        Command::Table => session::table(core),
        Command::Wait => session::wait(core),
        Command::Quit => return session::quit(core),
    }
    Flow::Ran
}

#[cfg(test)]
mod tests;
