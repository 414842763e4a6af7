//! Drawing: functions from the [`View`] to a frame. Nothing here changes what the view shows (drawing only
//! notes, for the scroll keys, how far each panel can scroll at this size), so what is drawn depends on the
//! view alone and tests render it to ratatui's `TestBackend`.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Position, Rect};
use ratatui::style::{Color, Modifier, Style, Stylize};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Gauge, Paragraph};

use super::log::{LogKind, lost_by};
use super::overlay::{render_confirm_quit, render_help};
use super::table_view::{Side, SideView};
use super::view::{Overlay, PeerState, RelayLink, Stage, View};
use super::{board, library_view};
use crate::session::forfeit_hint_after;
use crate::text::wrap;

/// The mark before an alert in the log, so it stands out even without colour.
pub const ALERT_MARK: &str = "!! ";

/// Draws the whole screen.
pub fn render(frame: &mut Frame, view: &View) {
    let [main, prompt, status] =
        Layout::vertical([Constraint::Min(0), Constraint::Length(1), Constraint::Length(1)]).areas(frame.area());
    let [table, log] = Layout::horizontal([Constraint::Percentage(60), Constraint::Percentage(40)]).areas(main);
    let setup_height = if view.setup.ready { 0 } else { 6 };
    let [setup, table] = Layout::vertical([Constraint::Length(setup_height), Constraint::Min(0)]).areas(table);
    if !view.setup.ready {
        render_setup(frame, setup, view);
    }
    board::render_table(frame, table, view);
    render_log(frame, log, view);
    render_prompt(frame, prompt, view);
    render_status(frame, status, view);
    match view.overlay {
        Overlay::None => {
            if let Some(open) = &view.library {
                library_view::render(frame, frame.area(), open);
            }
        }
        Overlay::Help => render_help(frame, frame.area(), view.help_page),
        Overlay::ConfirmQuit => render_confirm_quit(frame, frame.area()),
        Overlay::Pile(pile) => board::render_pile(frame, frame.area(), view, pile),
    }
}

/// The set-up panel's stage while the player builds its limited deck (short enough for an 80-column screen).
const BUILDING_STAGE: &str = "Build your deck from your pool, then done";
const DRAFTING_STAGE: &str = "Drafting: the log shows what you may pick";

/// The set-up panel: the code to share while waiting, the stage, and a progress bar.
fn render_setup(frame: &mut Frame, area: Rect, view: &View) {
    let block = Block::bordered().title(" Setting up the table ");
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let [first, second, bar] =
        Layout::vertical([Constraint::Length(1), Constraint::Length(1), Constraint::Length(2)]).areas(inner);
    let first_line = match (&view.code, view.relay) {
        (Some(code), _) => {
            // The code must show whole: a narrow panel gets the short label.
            let long = "Give the other player this code: ";
            let label = if long.len() + code.len() <= usize::from(first.width) { long } else { "Code: " };
            Line::from(vec![Span::from(label), Span::from(code.clone()).fg(Color::Yellow).bold()])
        }
        (None, RelayLink::Connecting) => Line::from(format!("Connecting to the relay at {}", view.relay_url)),
        (None, _) if 1 < view.setup.game => Line::from(format!("Game {} of the match", view.setup.game)),
        (None, _) => Line::from("Joined the game"),
    };
    frame.render_widget(Paragraph::new(first_line), first);
    // The table waits on this player while it builds its deck: the stage says so, not the shuffles.
    let stage = match view.stage {
        Stage::Building => BUILDING_STAGE.to_string(),
        Stage::Drafting(_) => DRAFTING_STAGE.to_string(),
        Stage::Playing => view.setup.stage(),
    };
    frame.render_widget(Paragraph::new(stage), second);
    // A draft or a build is the players' to finish: no gauge stands still at half way meanwhile.
    if view.stage == Stage::Playing {
        let ratio = view.setup.ratio().clamp(0.0, 1.0);
        let gauge = Gauge::default().gauge_style(Style::new().fg(Color::Green)).ratio(ratio);
        frame.render_widget(gauge, bar);
    }
}

/// The log, newest at the bottom, wrapped to the pane, scrolled as the player asked.
fn render_log(frame: &mut Frame, area: Rect, view: &View) {
    let scroll = view.log.scroll();
    let title = if scroll == 0 { " Log ".to_string() } else { format!(" Log (scrolled up {scroll}; End: newest) ") };
    let block = Block::bordered().title(title);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let width = usize::from(inner.width.max(1));
    let height = usize::from(inner.height);
    let newest = view.log.lines().len().saturating_sub(scroll);
    let mut rows: Vec<Line> = Vec::new();
    // Walk back from the newest line shown until the pane is full.
    for line in view.log.lines().iter().take(newest).rev() {
        let (prefix, style) = log_style(line.kind);
        let mut wrapped = wrap(&format!("{prefix}{}", line.text), width);
        wrapped.reverse();
        rows.extend(wrapped.into_iter().map(|row| Line::styled(row, style)));
        if rows.len() >= height {
            break;
        }
    }
    rows.truncate(height);
    rows.reverse();
    frame.render_widget(Paragraph::new(rows), inner);
}

/// How each kind of log line looks: alerts red, bold and marked.
fn log_style(kind: LogKind) -> (&'static str, Style) {
    match kind {
        LogKind::Alert => (ALERT_MARK, Style::new().fg(Color::Red).add_modifier(Modifier::BOLD)),
        LogKind::Error => ("✗ ", Style::new().fg(Color::Yellow)),
        LogKind::Chat => ("", Style::new().fg(Color::Cyan)),
        LogKind::Notice => ("· ", Style::new().fg(Color::Gray)),
        LogKind::Command => ("", Style::new().fg(Color::Blue)),
        LogKind::Action => ("", Style::new()),
    }
}

fn render_prompt(frame: &mut Frame, area: Rect, view: &View) {
    if view.prompt.focused {
        let text = format!("> {}", view.prompt.text);
        // Keep the end of a long line in sight.
        let width = usize::from(area.width.max(1));
        let shown: String = text.chars().skip(text.chars().count().saturating_sub(width - 1)).collect();
        let cursor_x = area.x.saturating_add(u16::try_from(shown.chars().count()).unwrap_or(u16::MAX));
        frame.render_widget(Paragraph::new(shown).bold(), area);
        frame.set_cursor_position(Position::new(cursor_x.min(area.right().saturating_sub(1)), area.y));
    } else if view.leaving {
        frame.render_widget(Paragraph::new("Leaving the game…").italic(), area);
    } else {
        frame.render_widget(Paragraph::new(super::keys::hint_line(view.stage)).fg(Color::Gray), area);
    }
}

/// The status line: connection, a wait, who chooses to play or draw, the game's end, life totals, opponent,
/// turn and phase.
fn render_status(frame: &mut Frame, area: Rect, view: &View) {
    let (state, colour) = connection(view);
    let table = &view.table;
    let turn = match table.my_turn {
        None => "no turn yet".to_string(),
        Some(true) => format!("turn {} (yours)", table.turn),
        Some(false) => format!("turn {} ({}'s)", table.turn, table.opponent.name),
    };
    let phase = if table.phase.is_empty() { "—" } else { table.phase.as_str() };
    let life = |side: &SideView| side.life.map_or_else(|| "—".to_string(), |l| l.to_string());
    let mut spans = vec![Span::from(format!(" ● {state} ")).fg(colour).bold()];
    // First after the connection: a stalled game is what the player must see, even on a narrow screen.
    if let Some(waiting) = &view.waiting {
        let hint = if forfeit_hint_after(&waiting.awaited).as_secs() <= waiting.seconds {
            " — forfeit ends the game"
        } else {
            ""
        };
        let text = format!("│ waiting for {}: {} ({} s){hint} ", table.opponent.name, waiting.awaited, waiting.seconds);
        spans.push(Span::from(text).fg(Color::Yellow).bold());
    }
    if let Some(left) = view.forfeit_in {
        let text = format!("│ {} left: forfeit possible in {left} s ", table.opponent.name);
        spans.push(Span::from(text).fg(Color::Yellow).bold());
    }
    if let Some(chooser) = table.chooser {
        let text = match chooser {
            Side::Mine => "│ you choose: play-first or draw-first ".to_string(),
            Side::Opponent => format!("│ {} chooses to play or draw ", table.opponent.name),
        };
        spans.push(Span::from(text).fg(Color::Yellow).bold());
    }
    if table.over {
        let how = view.game_end.map_or("lost", lost_by);
        let text = match table.loser {
            Some(Side::Mine) => format!("│ GAME OVER: you {how} · {} wins ", table.opponent.name),
            Some(Side::Opponent) => format!("│ GAME OVER: {} {how} · you win ", table.opponent.name),
            None => "│ GAME OVER ".to_string(),
        };
        spans.push(Span::from(text).fg(Color::Yellow).bold());
    }
    // Life before the rest: on a narrow screen the end of the line is what is cut.
    spans.extend([
        Span::from(format!("│ life: you {} · {} {} ", life(&table.me), table.opponent.name, life(&table.opponent))),
        Span::from(format!("│ vs {} │ {turn} │ phase {phase} ", table.opponent.name)),
    ]);
    if let Some(reason) = &view.halted {
        spans.push(Span::from(format!("│ STOPPED: {reason} ")).fg(Color::Red).bold());
    }
    frame.render_widget(Paragraph::new(Line::from(spans)).reversed(), area);
}

/// The connection state in words, and its colour.
pub fn connection(view: &View) -> (&'static str, Color) {
    match (view.relay, view.peer) {
        (RelayLink::Connecting, _) => ("connecting", Color::Yellow),
        (RelayLink::Reconnecting, _) => ("reconnecting", Color::Yellow),
        (RelayLink::Up, PeerState::Waiting) => ("waiting for the opponent", Color::Yellow),
        (RelayLink::Up, PeerState::Away) => ("opponent away", Color::Red),
        (RelayLink::Up, PeerState::Gone) => ("opponent left", Color::Red),
        (RelayLink::Up, PeerState::Present) if !view.setup.channel => ("checking the code", Color::Yellow),
        (RelayLink::Up, PeerState::Present) => ("connected", Color::Green),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_names_each_connection_state() {
        let mut view = View::new("ws://relay");
        assert_eq!(connection(&view).0, "connecting");
        view.relay = RelayLink::Up;
        assert_eq!(connection(&view).0, "waiting for the opponent");
        view.peer = PeerState::Present;
        view.setup.channel = true;
        assert_eq!(connection(&view).0, "connected");
        view.peer = PeerState::Away;
        assert_eq!(connection(&view).0, "opponent away");
        view.relay = RelayLink::Reconnecting;
        assert_eq!(connection(&view).0, "reconnecting");
    }
}
