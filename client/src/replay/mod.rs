//! `fairdeck replay`: a game played back from its owner's journal, input by input, on the table the owner saw.
//!
//! [`Replay`] is the core, with no I/O. The engine is sans-IO and deterministic: made again from the journal's
//! seat, deck and seed, and given the journal's inputs in order, it does exactly what it did in the game, so each
//! step (one input: an intent the player took, or a message received) leaves it as it was then. The terminal
//! table's [`View`] is fed as the session fed it (the engine's events, the intents taken), so the table and the
//! log are the game's own, the owner's hidden cards shown. The viewer (`viewer`), scripted mode (`script`) and
//! `journal show --text` (`text`) all drive it.

mod script;
pub mod text;
mod viewer;

use std::io::{ErrorKind, IsTerminal};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use fairdeck_shared::crypto::{Group, Modp2048, Ristretto255, Suite};
use fairdeck_shared::engine::{Engine, Intent};
use fairdeck_shared::journal::{self, Input, Journal, JournalError};
use fairdeck_shared::wire::{self, MessageKind};
use serde::Serialize;

use crate::session::Output;
use crate::ui::View;

/// `fairdeck replay`'s arguments.
#[derive(clap::Args)]
pub struct Args {
    /// The game's journal (written by --record), or its save (`fairdeck games` lists them).
    file: PathBuf,
    /// Print a `step` event for every input replayed, each followed by the `table` event the game printed,
    /// instead of opening the terminal.
    #[arg(long)]
    script: bool,
    /// Stop (or, at the terminal, open) at the step that starts turn N.
    #[arg(long, value_name = "N", conflicts_with = "steps")]
    to_turn: Option<u32>,
    /// Stop (or, at the terminal, open) after the first N steps.
    #[arg(long, value_name = "N")]
    steps: Option<usize>,
}

/// Where `--to-turn` or `--steps` stops the replay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Until {
    /// The last step.
    End,
    /// The step that starts this turn (the last step, in a game that never reached it).
    Turn(u32),
    /// After this many steps (all of them, in a shorter journal).
    Steps(usize),
}

/// Runs `fairdeck replay`: the viewer, or with `--script` the JSON lines.
pub fn run(args: Args) -> ExitCode {
    let until = match (args.to_turn, args.steps) {
        (Some(turn), _) => Some(Until::Turn(turn)),
        (None, Some(steps)) => Some(Until::Steps(steps)),
        (None, None) => None,
    };
    let result = crate::journal::read_file(&args.file).and_then(|journal| match journal.suite {
        Suite::Ristretto255 => replay::<Ristretto255>(&args.file, journal, args.script, until),
        Suite::Modp2048 => replay::<Modp2048>(&args.file, journal, args.script, until),
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // A reader that stopped reading (`| head`) took what it wanted.
        Err(error) if error.downcast_ref::<std::io::Error>().is_some_and(|e| e.kind() == ErrorKind::BrokenPipe) => {
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("fairdeck: {error:#}");
            ExitCode::FAILURE
        }
    }
}

/// The file's faults come first: they are what a user must hear of, terminal or not. Without `until`, a script
/// goes to the end and the viewer opens at the start.
fn replay<G: Group>(path: &Path, journal: Journal, script: bool, until: Option<Until>) -> anyhow::Result<()> {
    let replay = Replay::<G>::new(journal).map_err(|error| anyhow::anyhow!("{}: {error}", path.display()))?;
    if script {
        return script::print(replay, until.unwrap_or(Until::End), std::io::stdout().lock());
    }
    // The viewer draws with escape sequences: into a file or a pipe they would only be garbage.
    if !std::io::stdout().is_terminal() {
        anyhow::bail!("standard output is not a terminal; use --script for JSON events (see fairdeck --help)");
    }
    viewer::run(replay, until)
}

/// A game being played back: the engine and the view at one position of the journal (how many of its inputs
/// were taken), which moves forward one step at a time, or back by making them again from the start (a whole
/// game takes a fraction of a second).
pub(crate) struct Replay<G: Group> {
    /// The journal without its inputs: what a fresh engine is made from.
    start: Journal,
    inputs: Vec<Input>,
    engine: Engine<G>,
    view: View,
    position: usize,
    /// The table's turn at each position, from 0 to the last: read once, for jumps and the status line.
    turns: Vec<u32>,
}

/// One step of a replay: which input, of how many, what it was, and the turn once it was taken.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct Step {
    /// The step's number, from 1.
    pub step: usize,
    /// How many steps the journal holds.
    pub of: usize,
    #[serde(flatten)]
    pub kind: StepKind,
    pub turn: u32,
}

/// What a step's input was.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(crate) enum StepKind {
    /// An intent of the player's, by its name (as the journal's JSON spells it); a table action also by the
    /// action's.
    Intent {
        intent: &'static str,
        #[serde(skip_serializing_if = "Option::is_none")]
        action: Option<&'static str>,
    },
    /// A message received from the opponent, by its kind; `null`: bytes that are no message (a journal may hold a
    /// cheater's).
    Message { message: Option<MessageKind> },
}

impl<G: Group> Replay<G> {
    /// The replay of `journal`, at its start (the engine just made: its hello and deck sent, no input taken).
    pub fn new(mut journal: Journal) -> Result<Replay<G>, JournalError> {
        let inputs = std::mem::take(&mut journal.inputs);
        let (engine, view) = fresh(&journal)?;
        let turn = engine.table().turn;
        let mut replay = Replay { start: journal, inputs, engine, view, position: 0, turns: vec![turn] };
        while replay.forward() {}
        replay.seek(0)?;
        Ok(replay)
    }

    /// How many steps the journal holds.
    pub fn len(&self) -> usize {
        self.inputs.len()
    }

    /// How many steps were taken: 0 at the start, [`Replay::len`] at the end.
    pub fn position(&self) -> usize {
        self.position
    }

    /// The terminal table's view at this position.
    pub fn view(&self) -> &View {
        &self.view
    }

    /// The view, for what the viewer changes on it without changing the game (the log's scroll).
    pub fn view_mut(&mut self) -> &mut View {
        &mut self.view
    }

    /// The engine at this position.
    pub fn engine(&self) -> &Engine<G> {
        &self.engine
    }

    /// The table's turn at this position.
    pub fn turn(&self) -> u32 {
        self.turn_at(self.position)
    }

    /// The table's turn at the end of the journal.
    pub fn last_turn(&self) -> u32 {
        self.turn_at(self.len())
    }

    fn turn_at(&self, position: usize) -> u32 {
        self.turns.get(position).copied().unwrap_or_default()
    }

    /// The position where turn `turn` starts (the first at or past it), or `None` if the game never reached it.
    pub fn start_of_turn(&self, turn: u32) -> Option<usize> {
        self.turns.iter().position(|&t| t >= turn)
    }

    /// Whether the replay stands where `until` stops it.
    pub fn reached(&self, until: Until) -> bool {
        match until {
            Until::End => false,
            Until::Turn(turn) => turn <= self.turn(),
            Until::Steps(steps) => steps <= self.position,
        }
    }

    /// Step `number` (from 1) as [`Step`] says it, or `None` past the end.
    pub fn step(&self, number: usize) -> Option<Step> {
        let input = self.inputs.get(number.checked_sub(1)?)?;
        let kind = match input {
            Input::Intent { intent } => StepKind::Intent {
                intent: intent.name(),
                action: match intent {
                    Intent::Act(action) => Some(action.name()),
                    _ => None,
                },
            },
            Input::Message { bytes } => StepKind::Message {
                message: wire::decode_envelope(bytes).ok().and_then(|envelope| wire::peek_kind(&envelope.body).ok()),
            },
        };
        Some(Step { step: number, of: self.len(), kind, turn: self.turn_at(number) })
    }

    /// Takes the next step: the engine is given the next input, and the view what the session showed of it.
    /// `false` at the end.
    pub fn forward(&mut self) -> bool {
        let Some(input) = self.inputs.get(self.position) else {
            return false;
        };
        // An intent the engine refused changed nothing but its randomness: the game said so in the command's
        // error, which the journal does not keep.
        let taken = self.engine.handle(input.clone()).is_ok();
        if let (true, Input::Intent { intent }) = (taken, input) {
            self.view.apply(&Output::Taken(intent.clone()), &self.engine);
        }
        drain(&mut self.engine, &mut self.view);
        self.position += 1;
        if self.turns.len() == self.position {
            self.turns.push(self.engine.table().turn);
        }
        true
    }

    /// Goes to position `position` (at most the end): forward from here, or back by making the game again from
    /// the start, since an engine cannot be copied.
    pub fn seek(&mut self, position: usize) -> Result<(), JournalError> {
        let position = position.min(self.len());
        if position < self.position {
            (self.engine, self.view) = fresh(&self.start)?;
            self.position = 0;
        }
        while self.position < position && self.forward() {}
        Ok(())
    }
}

/// The engine of `start` (a journal without inputs) just made, and the view of it: the table as it opened once
/// the channel was up, which the journal's first message needed.
fn fresh<G: Group>(start: &Journal) -> Result<(Engine<G>, View), JournalError> {
    let mut events = Vec::new();
    let engine = journal::replay::<G>(start, |event| events.push(event))?;
    let mut view = View::new("");
    for output in [Output::Paired, Output::ChannelEstablished] {
        view.apply(&output, &engine);
    }
    for event in events {
        view.apply(&Output::Engine(event), &engine);
    }
    view.follow_engine(&engine);
    Ok((engine, view))
}

/// What the session does after each input: the messages sent go nowhere (the opponent had them then), the events
/// are shown, and the table follows the engine even when no event came.
fn drain<G: Group>(engine: &mut Engine<G>, view: &mut View) {
    while engine.poll_transmit().is_some() {}
    while let Some(event) = engine.poll_event() {
        view.apply(&Output::Engine(event), engine);
    }
    view.follow_engine(engine);
}

#[cfg(test)]
mod tests;
