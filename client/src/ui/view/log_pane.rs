//! The log as the screen keeps it: the latest lines and how far it is scrolled.

use std::collections::VecDeque;

use crate::text::clean;
use crate::ui::log::{LogKind, LogLine};

/// The log keeps this many lines; older ones scroll away for good.
const LOG_LIMIT: usize = 2_000;

/// The scrolling log of actions, chat, alerts and notices.
#[derive(Clone, Debug, Default)]
pub struct Log {
    lines: VecDeque<LogLine>,
    /// How many lines up from the newest the view is scrolled.
    scroll: usize,
    /// How many lines were ever pushed, those scrolled away included: what a step added is the difference.
    told: u64,
}

impl Log {
    pub fn push(&mut self, kind: LogKind, text: impl Into<String>) {
        if self.lines.len() == LOG_LIMIT {
            self.lines.pop_front();
        }
        self.lines.push_back(LogLine { kind, text: clean(&text.into()) });
        self.told += 1;
        // A reader scrolled up keeps their place: the new line lands below.
        if self.scroll > 0 {
            self.scroll = (self.scroll + 1).min(self.lines.len().saturating_sub(1));
        }
    }

    pub fn lines(&self) -> &VecDeque<LogLine> {
        &self.lines
    }

    pub fn scroll(&self) -> usize {
        self.scroll
    }

    /// How many lines were ever pushed (the log keeps the last [`LOG_LIMIT`]).
    pub fn told(&self) -> u64 {
        self.told
    }

    /// Scrolls `by` lines up (negative: down), within the log.
    pub fn scroll_by(&mut self, by: isize) {
        let max = self.lines.len().saturating_sub(1);
        self.scroll = self.scroll.saturating_add_signed(by).min(max);
    }

    pub fn scroll_to_newest(&mut self) {
        self.scroll = 0;
    }
}
