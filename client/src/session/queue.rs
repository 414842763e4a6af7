//! The player's commands read but not run yet, in order: table commands wait for set-up, `wait` for an idle
//! engine; a command with a file waits at the head for the driver's answer ([`FileAnswer`]).

use std::collections::VecDeque;

use fairdeck_shared::Seat;

use super::files::FileAnswer;
use crate::command::{self, Entered, table};

/// The queue of the player's commands, and whether the player's input ended.
#[derive(Debug, Default)]
pub(super) struct CommandQueue {
    entered: VecDeque<Entered>,
    input_done: bool,
    /// The file the command at the head asked the driver for.
    file: FileWait,
}

/// Where the command at the head of the queue stands with its file.
#[derive(Debug, Default)]
enum FileWait {
    /// It asked for none.
    #[default]
    None,
    /// It asked, and waits for the answer.
    Asked,
    Answered(FileAnswer),
}

impl CommandQueue {
    /// Takes a line from the player, read once; `None`, the end of the input, is a `quit` after the rest.
    pub fn take_line(&mut self, line: Option<String>, seat: Seat) {
        match line {
            Some(line) if line.trim().is_empty() => {}
            Some(line) => self.entered.push_back(command::read(&line, seat)),
            None => {
                self.input_done = true;
                self.entered.push_back(command::read(table::QUIT.name, seat));
            }
        }
    }

    /// Whether the player's input ended: the driver reads no more lines.
    pub fn input_done(&self) -> bool {
        self.input_done
    }

    /// The command at the head, unless it waits for its file.
    pub fn head(&self) -> Option<&Entered> {
        self.entered.front().filter(|_| !matches!(self.file, FileWait::Asked))
    }

    /// Whether the command at the head has the answer to the file it asked for.
    pub fn answered(&self) -> bool {
        matches!(self.file, FileWait::Answered(_))
    }

    /// The command at the head asked the driver for a file: it waits for the answer.
    pub fn ask(&mut self) {
        self.file = FileWait::Asked;
    }

    /// The driver's answer for the command at the head; one that asked for nothing ignores it.
    pub fn answer(&mut self, answer: FileAnswer) {
        if let FileWait::Asked = self.file {
            self.file = FileWait::Answered(answer);
        }
    }

    /// The command at the head, taken out to run, with the answer to the file it asked for, if any.
    pub fn pop(&mut self) -> Option<(Entered, Option<FileAnswer>)> {
        let entered = self.entered.pop_front()?;
        let answer = match std::mem::take(&mut self.file) {
            FileWait::Answered(answer) => Some(answer),
            FileWait::None | FileWait::Asked => None,
        };
        Some((entered, answer))
    }

    /// Puts `entered` at the head: it runs next, once its gate opens.
    pub fn push_front(&mut self, entered: Entered) {
        self.entered.push_front(entered);
    }
}
