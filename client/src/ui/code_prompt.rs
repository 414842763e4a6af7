//! The code prompt of `fairdeck join` run without a code: one line on the plain terminal, where Tab completes
//! the word being typed (as magic-wormhole's prompt does), the words it could still be are listed under the
//! line, and Enter takes the code only once it reads as one, else says which word to fix.
//!
//! [`Prompt`] is the editor as pure state, fed keys; [`read_code`] connects it to the terminal.

use std::io::Write;

use crossterm::event::{Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use crossterm::style::Print;
use crossterm::terminal::{Clear, ClearType};
use crossterm::{QueueableCommand, terminal};

use crate::code::{self, Code};

const PROMPT: &str = "Code from the host (Tab completes words): ";
/// Longest line the prompt takes: a code is a number and two short words.
const MAX_LINE: usize = 80;

/// The line being edited, and what to show under it.
#[derive(Debug, Default)]
pub(crate) struct Prompt {
    line: String,
    /// Completion candidates or the reason Enter refused the line, shown once under it.
    note: Option<String>,
}

/// What a key did.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// Keep editing.
    Edit,
    /// Enter on a line that reads as a code.
    Done(Code),
    /// Esc, Ctrl-C or Ctrl-D: the player gave up.
    Cancel,
}

impl Prompt {
    /// The line as typed so far.
    pub fn line(&self) -> &str {
        &self.line
    }

    /// Takes the note to show under the line, if any.
    pub fn take_note(&mut self) -> Option<String> {
        self.note.take()
    }

    /// Applies one key.
    pub fn key(&mut self, key: KeyEvent) -> Step {
        let control = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Esc => return Step::Cancel,
            KeyCode::Char('c' | 'd') if control => return Step::Cancel,
            KeyCode::Char('u') if control => self.line.clear(),
            KeyCode::Char('w') if control => {
                let kept = self.line.trim_end_matches(|c: char| !c.is_alphanumeric());
                let kept = kept.trim_end_matches(char::is_alphanumeric).len();
                self.line.truncate(kept);
            }
            KeyCode::Char(c) if !control && !c.is_control() && self.line.chars().count() < MAX_LINE => {
                self.line.push(c);
            }
            KeyCode::Backspace => {
                self.line.pop();
            }
            KeyCode::Tab => {
                let completion = code::complete(&self.line);
                self.line = completion.line;
                if !completion.candidates.is_empty() {
                    self.note = Some(completion.candidates.join("  "));
                }
            }
            KeyCode::Enter => match code::parse(&self.line) {
                Ok(code) => return Step::Done(code),
                Err(error) => self.note = Some(error.to_string()),
            },
            _ => {}
        }
        Step::Edit
    }
}

/// Asks for the code on the terminal. `Ok(None)` when the player cancelled.
pub fn read_code() -> std::io::Result<Option<Code>> {
    terminal::enable_raw_mode()?;
    let _cooked = CookedOnDrop;
    let mut out = std::io::stdout();
    let mut prompt = Prompt::default();
    redraw(&mut out, &prompt)?;
    loop {
        let Event::Key(key) = crossterm::event::read()? else { continue };
        if key.kind == KeyEventKind::Release {
            continue;
        }
        match prompt.key(key) {
            Step::Edit => {
                if let Some(note) = prompt.take_note() {
                    out.queue(Print("\r\n"))?.queue(Print(note))?.queue(Print("\r\n"))?;
                }
                redraw(&mut out, &prompt)?;
            }
            Step::Done(code) => {
                out.queue(Print("\r\n"))?.flush()?;
                return Ok(Some(code));
            }
            Step::Cancel => {
                out.queue(Print("\r\n"))?.flush()?;
                return Ok(None);
            }
        }
    }
}

fn redraw(out: &mut std::io::Stdout, prompt: &Prompt) -> std::io::Result<()> {
    out.queue(Print("\r"))?.queue(Clear(ClearType::CurrentLine))?.queue(Print(PROMPT))?.queue(Print(prompt.line()))?;
    out.flush()
}

/// Leaves raw mode however the prompt ends.
struct CookedOnDrop;

impl Drop for CookedOnDrop {
    fn drop(&mut self) {
        let _ = terminal::disable_raw_mode();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn typed(prompt: &mut Prompt, keys: &str) -> Step {
        let mut step = Step::Edit;
        for c in keys.chars() {
            let code = match c {
                '\t' => KeyCode::Tab,
                '\n' => KeyCode::Enter,
                '\u{8}' => KeyCode::Backspace,
                c => KeyCode::Char(c),
            };
            step = prompt.key(KeyEvent::new(code, KeyModifiers::NONE));
        }
        step
    }

    #[test]
    fn tab_completes_and_enter_takes_a_valid_code() {
        let mut prompt = Prompt::default();
        typed(&mut prompt, "1-vio\t");
        assert_eq!(prompt.line(), "1-violin-");
        typed(&mut prompt, "emb\t");
        assert_eq!(prompt.line(), "1-violin-ember");
        assert_eq!(typed(&mut prompt, "\n"), Step::Done(code::parse("1-violin-ember").unwrap()));
    }

    #[test]
    fn ambiguous_tabs_list_the_candidates_and_bad_codes_are_not_taken() {
        let mut prompt = Prompt::default();
        typed(&mut prompt, "4 cra\t");
        assert_eq!(prompt.take_note().as_deref(), Some("crab  crane  crayon"));
        assert_eq!(prompt.take_note(), None, "shown once");
        typed(&mut prompt, "\u{8}\u{8}\u{8}violn eagle");
        assert_eq!(typed(&mut prompt, "\n"), Step::Edit);
        assert!(prompt.take_note().unwrap().contains("did you mean violin?"));
        let ctrl_w = KeyEvent::new(KeyCode::Char('w'), KeyModifiers::CONTROL);
        prompt.key(ctrl_w);
        prompt.key(ctrl_w);
        assert_eq!(prompt.line(), "4 ");
        let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(prompt.key(ctrl_c), Step::Cancel);
    }
}
