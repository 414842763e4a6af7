//! The replay at the terminal: the game's table and log drawn as the game drew them (`ui::render`), with the
//! replay's own hint and status lines below. [`Viewer`] holds what the keys change (the position, playing or not,
//! the speed, a turn being typed) and is drawn by [`draw`], so tests drive and draw it without a terminal; [`run`]
//! only reads keys and waits between the steps of a play.

use std::time::Duration;

use crossterm::event::{self, Event as TermEvent, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use fairdeck_shared::crypto::Group;
use fairdeck_shared::journal::JournalError;
use ratatui::Frame;
use ratatui::layout::Position;
use ratatui::style::{Color, Stylize};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{Replay, Until};
use crate::ui::render::{render_table_and_log, screen_rows};

/// Steps a second a play goes at; + and - move along.
pub const SPEEDS: [u32; 5] = [1, 2, 4, 8, 16];

/// The keys, as the hint line shows them.
pub const HINT: &str = "→ step · ← back · Space play · +/- speed · t turn · Home/End · q quit";

/// What the viewer does after a key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    Stay,
    Quit,
}

/// The replay as the terminal shows it, and what the keys change.
pub struct Viewer<G: Group> {
    pub replay: Replay<G>,
    /// Steps are taken on their own, at [`Viewer::speed`].
    pub playing: bool,
    /// Where in [`SPEEDS`].
    speed: usize,
    /// The command line after `:` (`turn 5`, `step 40`), while it is open.
    pub asking: Option<String>,
    /// What the last command said, until the next key (a turn the game never reached).
    pub said: Option<String>,
}

impl<G: Group> Viewer<G> {
    pub fn new(replay: Replay<G>) -> Viewer<G> {
        Viewer { replay, playing: false, speed: 0, asking: None, said: None }
    }

    /// Steps a second while playing.
    pub fn speed(&self) -> u32 {
        SPEEDS[self.speed]
    }

    /// How long to wait before the next step of a play; `None` when paused.
    pub fn interval(&self) -> Option<Duration> {
        self.playing.then(|| Duration::from_millis(1000 / u64::from(self.speed())))
    }

    /// The next step of a play; the play stops at the end.
    pub fn tick(&mut self) {
        if self.playing && !self.replay.forward() {
            self.playing = false;
        }
    }

    /// Goes where `until` says, from the start.
    pub fn open_at(&mut self, until: Until) {
        while !self.replay.reached(until) && self.replay.forward() {}
    }

    /// One key. Going back makes the game again from its start, which is the only thing that can fail.
    pub fn handle_key(&mut self, key: KeyEvent) -> Result<Flow, JournalError> {
        if key.kind != KeyEventKind::Press {
            return Ok(Flow::Stay);
        }
        if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c') {
            return Ok(Flow::Quit);
        }
        self.said = None;
        if let Some(line) = &mut self.asking {
            match key.code {
                KeyCode::Enter => {
                    let line = std::mem::take(line);
                    self.asking = None;
                    self.go_to(&line)?;
                }
                KeyCode::Esc => self.asking = None,
                KeyCode::Backspace => drop(line.pop()),
                KeyCode::Char(c) => line.push(c),
                _ => {}
            }
            return Ok(Flow::Stay);
        }
        let position = self.replay.position();
        match key.code {
            KeyCode::Char('q') | KeyCode::Esc => return Ok(Flow::Quit),
            KeyCode::Right | KeyCode::Char('l') => {
                self.playing = false;
                self.replay.forward();
            }
            KeyCode::Left | KeyCode::Char('h') => {
                self.playing = false;
                self.replay.seek(position.saturating_sub(1))?;
            }
            KeyCode::Home | KeyCode::Char('g') => self.replay.seek(0)?,
            KeyCode::End | KeyCode::Char('G') => self.replay.seek(self.replay.len())?,
            KeyCode::Char(' ') | KeyCode::Char('p') => self.playing = !self.playing,
            KeyCode::Char('+') | KeyCode::Char('=') => self.speed = (self.speed + 1).min(SPEEDS.len() - 1),
            KeyCode::Char('-') => self.speed = self.speed.saturating_sub(1),
            KeyCode::Char(':') => self.asking = Some(String::new()),
            KeyCode::Char('t') => self.asking = Some("turn ".to_string()),
            KeyCode::PageUp => self.replay.view_mut().log.scroll_by(5),
            KeyCode::PageDown => self.replay.view_mut().log.scroll_by(-5),
            _ => {}
        }
        Ok(Flow::Stay)
    }

    /// Runs the command line: `turn N` goes to the step that starts turn N, `step N` to step N.
    fn go_to(&mut self, line: &str) -> Result<(), JournalError> {
        let words: Vec<&str> = line.split_whitespace().collect();
        let number = |word: &str| word.parse::<usize>().ok();
        match words[..] {
            ["turn", n] => match number(n).and_then(|n| u32::try_from(n).ok()) {
                Some(turn) => match self.replay.start_of_turn(turn) {
                    Some(position) => self.replay.seek(position)?,
                    None => {
                        self.said =
                            Some(format!("the game never reached turn {turn}: its last is {}", self.replay.last_turn()))
                    }
                },
                None => self.said = Some(format!("not a turn: {n}")),
            },
            ["step", n] => match number(n) {
                Some(step) => self.replay.seek(step)?,
                None => self.said = Some(format!("not a step: {n}")),
            },
            _ => self.said = Some("type turn N or step N".to_string()),
        }
        Ok(())
    }
}

/// Draws the viewer: the table and the log, the hint line (or the command line, or what it said), the status line.
pub fn draw<G: Group>(frame: &mut Frame, viewer: &Viewer<G>) {
    let [main, prompt, status] = screen_rows(frame.area());
    render_table_and_log(frame, main, viewer.replay.view());
    match (&viewer.asking, &viewer.said) {
        (Some(line), _) => {
            let text = format!(": {line}");
            let x = prompt.x.saturating_add(u16::try_from(text.chars().count()).unwrap_or(u16::MAX));
            frame.render_widget(Paragraph::new(text).bold(), prompt);
            frame.set_cursor_position(Position::new(x.min(prompt.right().saturating_sub(1)), prompt.y));
        }
        (None, Some(said)) => frame.render_widget(Paragraph::new(said.as_str()).fg(Color::Yellow), prompt),
        (None, None) => frame.render_widget(Paragraph::new(HINT).fg(Color::Gray), prompt),
    }
    frame.render_widget(Paragraph::new(status_line(viewer)).reversed(), status);
}

/// `REPLAY │ step 12 of 340 │ turn 3 of 12 │ ▶ 4/s`, and the game's stop if it stopped.
fn status_line<G: Group>(viewer: &Viewer<G>) -> Line<'static> {
    let replay = &viewer.replay;
    let play = if viewer.playing { "▶" } else { "⏸" };
    let mut spans = vec![
        Span::from(" REPLAY ").fg(Color::Cyan).bold(),
        Span::from(format!(
            "│ step {} of {} │ turn {} of {} │ {play} {}/s ",
            replay.position(),
            replay.len(),
            replay.turn(),
            replay.last_turn(),
            viewer.speed()
        )),
    ];
    let view = replay.view();
    if let Some(reason) = &view.halted {
        spans.push(Span::from(format!("│ STOPPED: {reason} ")).fg(Color::Red).bold());
    }
    Line::from(spans)
}

/// Runs the viewer at the terminal until q, from where `until` says (else the start). The terminal is put back as
/// it was in every case: on return, and by ratatui's hook on a panic.
/// The viewer as the replay opens: at its first step, or where `--to-turn` or `--steps` says.
pub fn opened<G: Group>(replay: Replay<G>, until: Option<Until>) -> Viewer<G> {
    let mut viewer = Viewer::new(replay);
    if let Some(until) = until {
        viewer.open_at(until);
    }
    viewer
}

pub fn run<G: Group>(replay: Replay<G>, until: Option<Until>) -> anyhow::Result<()> {
    let mut viewer = opened(replay, until);
    let mut terminal = crate::ui::open_terminal()?;
    let result = show(&mut terminal, &mut viewer);
    ratatui::restore();
    result
}

fn show<G: Group>(terminal: &mut ratatui::DefaultTerminal, viewer: &mut Viewer<G>) -> anyhow::Result<()> {
    // Paused, the viewer only waits for a key.
    const PAUSED: Duration = Duration::from_secs(3600);
    loop {
        terminal.draw(|frame| draw(frame, viewer))?;
        if !event::poll(viewer.interval().unwrap_or(PAUSED))? {
            viewer.tick();
            continue;
        }
        if let TermEvent::Key(key) = event::read()?
            && viewer.handle_key(key)? == Flow::Quit
        {
            return Ok(());
        }
    }
}
