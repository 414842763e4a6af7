//! Drawing: pure functions from the [`View`] to a frame. Nothing here changes the view, so what is drawn
//! depends on the view alone and tests render it to ratatui's `TestBackend`.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Position, Rect};
use ratatui::style::{Color, Modifier, Style, Stylize};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Gauge, Paragraph, Wrap};

use super::log::LogKind;
use super::overlay::{render_confirm_quit, render_help};
use super::view::{CardView, Overlay, PeerState, PlayedCard, RelayLink, SideView, View};
use crate::session::FORFEIT_HINT_AFTER;
use crate::text::wrap;

/// The mark before an alert in the log, so it stands out even without colour.
pub const ALERT_MARK: &str = "!! ";
/// How the opponent's hidden cards look.
const CARD_BACK: &str = "[▒▒]";
const NBSP: &str = "\u{a0}";

/// Draws the whole screen.
pub fn render(frame: &mut Frame, view: &View) {
    let [main, prompt, status] =
        Layout::vertical([Constraint::Min(0), Constraint::Length(1), Constraint::Length(1)]).areas(frame.area());
    let [table, log] = Layout::horizontal([Constraint::Percentage(60), Constraint::Percentage(40)]).areas(main);
    render_table(frame, table, view);
    render_log(frame, log, view);
    render_prompt(frame, prompt, view);
    render_status(frame, status, view);
    match view.overlay {
        Overlay::None => {}
        Overlay::Help => render_help(frame, frame.area(), view.help_page),
        Overlay::ConfirmQuit => render_confirm_quit(frame, frame.area()),
    }
}

/// The left column: set-up while it lasts, the opponent's side, both play areas, this player's side.
fn render_table(frame: &mut Frame, area: Rect, view: &View) {
    let table = &view.table;
    let setup_height = if view.setup.ready { 0 } else { 6 };
    let opponent_lines = side_lines(&table.opponent, false);
    let my_lines = side_lines(&table.me, true);
    let inner_width = area.width.saturating_sub(2).max(1);
    let [setup, opponent, their_play, my_play, me] = Layout::vertical([
        Constraint::Length(setup_height),
        Constraint::Length(block_height(&opponent_lines, inner_width, 5)),
        Constraint::Fill(1),
        Constraint::Fill(1),
        Constraint::Length(block_height(&my_lines, inner_width, 10)),
    ])
    .areas(area);
    if !view.setup.ready {
        render_setup(frame, setup, view);
    }
    let opponent_title = side_title(&table.opponent, &table.opponent.name);
    frame.render_widget(wrapped(opponent_lines).block(Block::bordered().title(opponent_title)), opponent);
    let their_title = format!(" {}'s play area ", table.opponent.name);
    frame.render_widget(play_area(&table.opponent.play).block(Block::bordered().title(their_title)), their_play);
    frame.render_widget(play_area(&table.me.play).block(Block::bordered().title(" Your play area ")), my_play);
    let my_title = side_title(&table.me, &format!("You ({})", table.me.name));
    frame.render_widget(wrapped(my_lines).block(Block::bordered().title(my_title).bold()), me);
}

/// Lines of text wrap at the block's edge.
fn wrapped(lines: Vec<Line<'static>>) -> Paragraph<'static> {
    Paragraph::new(lines).wrap(Wrap { trim: false })
}

/// A bordered block's height for `lines` wrapped at `width`, at most `max`.
fn block_height(lines: &[Line], width: u16, max: u16) -> u16 {
    let rows: usize = lines.iter().map(|line| line.width().max(1).div_ceil(usize::from(width))).sum();
    u16::try_from(rows).unwrap_or(u16::MAX).saturating_add(2).min(max)
}

fn side_title(side: &SideView, name: &str) -> String {
    let life = side.life.map_or_else(|| "—".to_string(), |life| life.to_string());
    let others: String = side.values.iter().map(|(key, value)| format!(" · {key} {value}")).collect();
    format!(" {name} · life {life}{others} ")
}

/// A side's zone counts, the tops of its public piles, and its hand: names for this player's own hand,
/// backs for the opponent's (with the names this player was shown).
fn side_lines(side: &SideView, mine: bool) -> Vec<Line<'static>> {
    let counts: Vec<String> = side.counts.iter().map(|(kind, n)| format!("{} {n}", kind.name())).collect();
    let mut lines = vec![Line::from(counts.join(" · "))];
    let tops: Vec<String> = [("graveyard", &side.graveyard_top), ("exile", &side.exile_top)]
        .into_iter()
        .filter_map(|(pile, top)| top.as_ref().map(|card| format!("{pile} top: {}", card_label(card))))
        .collect();
    if !tops.is_empty() {
        lines.push(Line::from(tops.join(" · ")).italic());
    }
    let mut hand = vec![Span::from("hand: ").bold()];
    for card in &side.hand {
        match (&card.name, mine) {
            (Some(name), _) => {
                // No-break spaces keep a card's id and name on one row when the hand wraps.
                hand.push(Span::from(format!("{}{NBSP}", card.id)).fg(Color::Cyan));
                hand.push(Span::from(format!("{}  ", name.replace(' ', NBSP))));
            }
            (None, true) => hand.push(Span::from(format!("{}  ", card.id))),
            (None, false) => hand.push(Span::from(format!("{CARD_BACK} ")).fg(Color::Blue)),
        }
    }
    if side.hand.is_empty() {
        hand.push(Span::from("empty").italic());
    }
    lines.push(Line::from(hand));
    lines
}

fn card_label(card: &CardView) -> String {
    match &card.name {
        Some(name) => format!("{} {name}", card.id),
        None => card.id.to_string(),
    }
}

/// A play area: one line per card, by position, with its state.
fn play_area(cards: &[PlayedCard]) -> Paragraph<'static> {
    if cards.is_empty() {
        return Paragraph::new(Line::from("no cards").italic());
    }
    Paragraph::new(cards.iter().map(played_card).collect::<Vec<_>>())
}

fn played_card(played: &PlayedCard) -> Line<'static> {
    let name = match (&played.card.name, played.face_down) {
        (Some(name), _) => name.clone(),
        (None, true) => "face-down card".to_string(),
        (None, false) => "unknown card".to_string(),
    };
    let mut spans = vec![
        Span::from(format!("{:<8}", played.card.id.to_string())).fg(Color::Cyan),
        Span::from(format!("{name} ")),
        Span::from(format!("at {},{}", played.x, played.y)).fg(Color::Gray),
    ];
    if played.tapped {
        spans.push(Span::from(" TAPPED").fg(Color::Yellow).bold());
    }
    if played.face_down {
        spans.push(Span::from(" FACE DOWN").fg(Color::Magenta).bold());
    }
    for (key, value) in &played.counters {
        spans.push(Span::from(format!(" [{key}: {value}]")).fg(Color::Green));
    }
    Line::from(spans)
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
