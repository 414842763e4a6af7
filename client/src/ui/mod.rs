//! The terminal table: the session's interactive front end. Keys become scripted-mode command lines
//! (so the session loop is the same as in scripted mode), and every output updates the [`View`]; the screen is
//! drawn once the session waits for the player again, so the outputs of one batch are drawn together.
//!
//! Layers: [`view`] is the model (pure data built from the engine's table and the session's outputs, the public
//! table in [`table_view`], the log's sentences from [`log`], the arrows in `arrows`), [`keys`] turns keys into
//! commands, [`render`] draws a view (the table's panels in `board`, laid out by `panels`, a play area grouped by `groups` with kinds from
//! [`card_book`]; what covers them in
//! [`overlay`] and [`library_view`]), and this module owns the terminal.

mod arrows;
pub(crate) mod board;
pub mod card_book;
pub mod code_prompt;
mod groups;
pub mod keys;
mod library_view;
pub mod log;
mod overlay;
mod panels;
pub mod render;
pub mod table_view;
pub mod view;

use crossterm::event::{Event as TermEvent, EventStream};
use fairdeck_shared::crypto::Group;
use fairdeck_shared::engine::Engine;
use futures_util::StreamExt;
use ratatui::DefaultTerminal;

pub use view::View;

use crate::play::Play;
use crate::session::{Frontend, Output, SessionError};

/// The terminal in raw mode on its alternate screen, cleared: a program killed there (`kill -9`, before
/// `fairdeck resume`) leaves its last screen behind, and the first frame is drawn over a blank one. On failure the
/// terminal is put back (raw mode may be on already when entering the alternate screen failed).
pub(crate) fn open_terminal() -> std::io::Result<DefaultTerminal> {
    let mut terminal = ratatui::try_init().inspect_err(|_| ratatui::restore())?;
    terminal.clear().inspect_err(|_| ratatui::restore())?;
    Ok(terminal)
}

/// Runs a game (a session, or a practice game) in the terminal until the player quits or it fails. The
/// terminal is put back as it was in every case: on return, and by ratatui's hook on a panic.
pub async fn run(game: impl Play) -> Result<(), SessionError> {
    let terminal = open_terminal().map_err(SessionError::Output)?;
    let _restore = RestoreOnDrop;
    let view = View::new(game.relay().unwrap_or_default());
    let mut tui = Tui { terminal, keys: EventStream::new(), view, unshown: false };
    tui.draw()?;
    game.play(&mut tui).await
}

/// Leaves raw mode and the alternate screen when dropped, whichever way the session (or watching) ended.
pub(crate) struct RestoreOnDrop;

impl Drop for RestoreOnDrop {
    fn drop(&mut self) {
        ratatui::restore();
    }
}

struct Tui {
    terminal: DefaultTerminal,
    keys: EventStream,
    view: View,
    /// The view took in outputs since it was last drawn.
    unshown: bool,
}

impl Tui {
    fn draw(&mut self) -> std::io::Result<()> {
        self.terminal.draw(|frame| render::render(frame, &self.view)).map(drop)
    }
}

impl Frontend for Tui {
    async fn next_line(&mut self) -> Option<String> {
        // The session asks for the next line whenever it waits, having shown all it had to: what it showed since
        // the last draw (one command's outputs, the events of the messages that arrived together) is drawn once.
        if self.unshown {
            self.unshown = false;
            if self.draw().is_err() {
                return None;
            }
        }
        loop {
            // `EventStream::next` is cancel-safe, and a key is handled without awaiting: a dropped future
            // loses no key.
            let event = match self.keys.next().await {
                Some(Ok(event)) => event,
                // The terminal is gone: as at the end of scripted input, the session quits.
                Some(Err(_)) | None => return None,
            };
            let line = match event {
                TermEvent::Key(key) => keys::handle_key(&mut self.view, key),
                // A resize (or anything else) only needs a redraw.
                _ => None,
            };
            // A terminal that cannot be drawn on is as gone as one that cannot be read.
            if self.draw().is_err() {
                return None;
            }
            if line.is_some() {
                return line;
            }
        }
    }

    fn show<G: Group>(&mut self, output: Output, engine: &Engine<G>) -> std::io::Result<()> {
        self.view.apply(&output, engine);
        self.unshown = true;
        Ok(())
    }
}
