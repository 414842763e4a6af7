//! Drawing: functions from the [`View`] to a frame. Nothing here changes what the view shows (drawing only
//! notes, for the scroll keys, how far each panel can scroll at this size), so what is drawn depends on the
//! view alone and tests render it to ratatui's `TestBackend`.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Position, Rect};
use ratatui::style::{Color, Modifier, Style, Stylize};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Gauge, Paragraph};

use super::board;
use super::keys::{COMMANDS, OTHER_KEYS, SHORTCUTS};
use super::log::LogKind;
use super::panels::centered;
use super::view::{Overlay, PeerState, RelayLink, SideView, View};
use crate::session::FORFEIT_HINT_AFTER;

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
        Overlay::None => {}
        Overlay::Help => render_help(frame, frame.area()),
        Overlay::ConfirmQuit => render_confirm_quit(frame, frame.area()),
        Overlay::Pile(pile) => board::render_pile(frame, frame.area(), view, pile),
    }
}

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
    frame.render_widget(Paragraph::new(view.setup.stage()), second);
    let ratio = view.setup.ratio().clamp(0.0, 1.0);
    let gauge = Gauge::default().gauge_style(Style::new().fg(Color::Green)).ratio(ratio);
    frame.render_widget(gauge, bar);
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

/// Splits text into rows of at most `width` characters, at spaces where it can.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut rows = Vec::new();
    let mut row = String::new();
    for word in text.split(' ') {
        let mut word: Vec<char> = word.chars().collect();
        let row_len = row.chars().count();
        if row_len > 0 && row_len + 1 + word.len() > width {
            rows.push(std::mem::take(&mut row));
        }
        if !row.is_empty() {
            row.push(' ');
        }
        // A word longer than the pane is cut into pieces.
        while row.chars().count() + word.len() > width {
            let room = width - row.chars().count();
            row.extend(word.drain(..room));
            rows.push(std::mem::take(&mut row));
        }
        row.extend(word);
    }
    rows.push(row);
    rows
}

/// The command line: open with a cursor, or a hint.
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
        let hint = "Keys: d draw · s shuffle · p play · t tap · : command · ? help · q quit";
        frame.render_widget(Paragraph::new(hint).fg(Color::Gray), area);
    }
}

/// The status line: connection, opponent, turn and phase, life totals.
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
        let hint = if FORFEIT_HINT_AFTER.as_secs() <= waiting.seconds { " — forfeit ends the game" } else { "" };
        let text = format!("│ waiting for {}: {} ({} s){hint} ", table.opponent.name, waiting.awaited, waiting.seconds);
        spans.push(Span::from(text).fg(Color::Yellow).bold());
    }
    spans.extend([
        Span::from(format!("│ vs {} │ {turn} │ phase {phase} │ ", table.opponent.name)),
        Span::from(format!("life: you {} · {} {} ", life(&table.me), table.opponent.name, life(&table.opponent))),
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

/// The help's width on one column.
const HELP_WIDTH: u16 = 76;
/// The fewest columns a help entry's text gets beside its key: narrower, the key takes a row of its own.
const HELP_MIN_TEXT: usize = 20;

/// The help: every shortcut with the command it stands for, then the other keys. On a terminal too short
/// for one column (24 rows is common), two side by side: the shortcuts, and the rest.
fn render_help(frame: &mut Frame, area: Rect) {
    let block = Block::bordered().title(" Keys (any key closes) ").border_style(Style::new().fg(Color::Yellow));
    let width = HELP_WIDTH.min(area.width);
    let inner = usize::from(width.saturating_sub(2));
    let mut lines = shortcut_help(inner);
    lines.push(Line::from(""));
    lines.extend(other_help(inner));
    let height = help_height(lines.len());
    if height <= area.height {
        let popup = centered(area, width, height);
        frame.render_widget(Clear, popup);
        frame.render_widget(Paragraph::new(lines).block(block), popup);
        return;
    }
    let width = area.width.min(2 * HELP_WIDTH);
    let inner = width.saturating_sub(2);
    let (left_width, right_width) = (inner / 2, inner - inner / 2);
    // One column of the left half separates the halves.
    let left = shortcut_help(usize::from(left_width.saturating_sub(1)));
    let right = other_help(usize::from(right_width));
    let popup = centered(area, width, help_height(left.len().max(right.len())));
    frame.render_widget(Clear, popup);
    let [left_area, right_area] =
        Layout::horizontal([Constraint::Length(left_width), Constraint::Length(right_width)]).areas(block.inner(popup));
    frame.render_widget(block, popup);
    frame.render_widget(Paragraph::new(left), left_area);
    frame.render_widget(Paragraph::new(right), right_area);
}

/// A bordered popup's height for `rows` rows of text.
fn help_height(rows: usize) -> u16 {
    u16::try_from(rows).unwrap_or(u16::MAX).saturating_add(2)
}

/// The shortcuts, `width` columns wide: key, command, what it does.
fn shortcut_help(width: usize) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    for s in SHORTCUTS {
        let command = if s.prefill { format!("{}…", s.command) } else { s.command.to_string() };
        let head = Line::from(vec![
            Span::from(format!(" {}  ", s.key)).fg(Color::Yellow).bold(),
            Span::from(format!("{command:<11}")).fg(Color::Cyan),
        ]);
        // Further rows go under the command: a column of their own would leave little room.
        lines.extend(help_entry(head, s.what, 4, width));
    }
    lines
}

/// The keys that are not commands, the commands that have no key, and a note on CARD, `width` columns wide.
fn other_help(width: usize) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    for (keys, what) in OTHER_KEYS {
        let head = Line::from(Span::from(format!(" {keys:<12}")).fg(Color::Yellow).bold());
        lines.extend(help_entry(head, what, 14, width));
    }
    lines.push(Line::from(""));
    // The commands in a column as wide as the longest: where that leaves too little room, each takes a row.
    let longest = COMMANDS.iter().map(|(command, _)| command.chars().count()).max().unwrap_or(0);
    for (command, what) in COMMANDS {
        let head = Line::from(format!(" {command:<longest$}")).fg(Color::Cyan);
        lines.extend(help_entry(head, what, longest + 2, width));
    }
    lines.extend(help_entry(Line::from(" CARD").fg(Color::Cyan), "is a card's id: #12 or 12", 6, width));
    lines
}

/// A help entry `width` columns wide: `head`, then `text` wrapped with its further rows indented by
/// `hanging`. When the text would get fewer than [`HELP_MIN_TEXT`] columns beside the head, the head takes a
/// row of its own and the text follows, indented a little.
fn help_entry(head: Line<'static>, text: &str, hanging: usize, width: usize) -> Vec<Line<'static>> {
    let room = width.saturating_sub(head.width() + 1);
    let mut first = head;
    let mut rest = text.to_string();
    let mut indent = hanging.min(4);
    if HELP_MIN_TEXT <= room {
        let row = wrap(text, room).swap_remove(0);
        rest = text.chars().skip(row.chars().count()).collect::<String>().trim_start().to_string();
        first.push_span(format!(" {row}"));
        indent = hanging;
    }
    let mut lines = vec![first];
    if !rest.is_empty() {
        let room = width.saturating_sub(indent).max(1);
        lines.extend(wrap(&rest, room).into_iter().map(|row| Line::from(format!("{}{row}", " ".repeat(indent)))));
    }
    lines
}

fn render_confirm_quit(frame: &mut Frame, area: Rect) {
    let popup = centered(area, 44, 3);
    frame.render_widget(Clear, popup);
    let block = Block::bordered().border_style(Style::new().fg(Color::Yellow));
    frame.render_widget(Paragraph::new(" Leave the game? y: leave · n: stay").block(block), popup);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_keeps_every_character_within_the_width() {
        let text = "a few words then averyveryverylongwordthatmustbecut end";
        for width in 1..20 {
            let rows = wrap(text, width);
            assert!(rows.iter().all(|r| r.chars().count() <= width), "{width}: {rows:?}");
            let joined: String = rows.concat().chars().filter(|c| *c != ' ').collect();
            assert_eq!(joined, text.replace(' ', ""));
        }
    }

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
