//! Drawing: functions from the [`View`] to a frame. Nothing here changes what the view shows (drawing only
//! notes, for the scroll keys, how far each panel can scroll at this size), so what is drawn depends on the
//! view alone and tests render it to ratatui's `TestBackend`.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Position, Rect};
use ratatui::style::{Color, Modifier, Style, Stylize};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Gauge, Paragraph};

use super::log::{LogKind, lost_by};
use super::overlay::{render_card, render_confirm, render_confirm_quit, render_help};
use super::table_view::{Side, SideView};
use super::view::{Overlay, PeerState, RelayLink, Stage, View, Watchers};
use super::{board, library_view};
use crate::session::forfeit_hint_after;
use crate::text::wrap;

/// The mark before an alert in the log, so it stands out even without colour.
pub(crate) const ALERT_MARK: &str = "!! ";

/// Draws the whole screen.
pub fn render(frame: &mut Frame, view: &View) {
    let [main, prompt, status] = screen_rows(frame.area());
    render_table_and_log(frame, main, view);
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
        Overlay::Confirm => render_confirm(frame, frame.area(), view.asked.as_deref().unwrap_or_default()),
        Overlay::Card => render_card(frame, frame.area(), &view.card_text),
        Overlay::Pile(pile) => board::render_pile(frame, frame.area(), view, pile),
    }
}

/// The screen's rows: the table and the log, the command line, the status line.
pub(crate) fn screen_rows(area: Rect) -> [Rect; 3] {
    Layout::vertical([Constraint::Min(0), Constraint::Length(1), Constraint::Length(1)]).areas(area)
}

/// The table (under the set-up panel while set-up lasts) and the log beside it, in `area`: the game's screen but
/// its two last rows, which `fairdeck replay` fills with its own.
pub(crate) fn render_table_and_log(frame: &mut Frame, area: Rect, view: &View) {
    let [table, log] = Layout::horizontal([Constraint::Percentage(60), Constraint::Percentage(40)]).areas(area);
    let setup_height = if view.setup.ready { 0 } else { 6 };
    let [setup, table] = Layout::vertical([Constraint::Length(setup_height), Constraint::Min(0)]).areas(table);
    if !view.setup.ready {
        render_setup(frame, setup, view);
    }
    board::render_table(frame, table, view);
    render_log(frame, log, view);
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
pub(crate) fn render_log(frame: &mut Frame, area: Rect, view: &View) {
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
/// turn and phase. On a narrow screen it is shortened, words first, so that the opponent's name and the phase
/// stay whole: then the alerts come after them.
fn render_status(frame: &mut Frame, area: Rect, view: &View) {
    let width = usize::from(area.width);
    let fits = |spans: &Vec<Span>| spans.iter().map(Span::width).sum::<usize>() <= width;
    let line = [Status::Full, Status::Short, Status::Shortest]
        .into_iter()
        .map(|form| status_spans(view, form))
        .find(fits)
        .unwrap_or_else(|| status_spans(view, Status::Shortest));
    frame.render_widget(Paragraph::new(Line::from(line)).reversed(), area);
}

/// How much the status line is shortened.
#[derive(Clone, Copy, PartialEq)]
enum Status {
    /// Every word.
    Full,
    /// Life totals without `life:`, the turn and phase without `vs` and `phase`, the opponent named once.
    Short,
    /// As short, the connection by its colour alone, and the alerts after the game's state.
    Shortest,
}

fn status_spans(view: &View, form: Status) -> Vec<Span<'static>> {
    let (state, colour) = connection(view);
    let table = &view.table;
    let opponent = &table.opponent.name;
    let turn = match (table.my_turn, form) {
        (None, _) => "no turn yet".to_string(),
        (Some(true), _) => format!("turn {} (yours)", table.turn),
        (Some(false), Status::Full) => format!("turn {} ({opponent}'s)", table.turn),
        (Some(false), _) => format!("turn {} (theirs)", table.turn),
    };
    let phase = if table.phase.is_empty() { "—" } else { table.phase.as_str() };
    let life = |side: &SideView| side.life.map_or_else(|| "—".to_string(), |l| l.to_string());
    let (you, them) = (life(&table.me), life(&table.opponent));
    let game = match form {
        Status::Full => vec![
            Span::from(format!("│ life: you {you} · {opponent} {them} ")),
            Span::from(format!("│ vs {opponent} │ {turn} │ phase {phase} ")),
        ],
        Status::Short | Status::Shortest => {
            vec![Span::from(format!("│ you {you} · {opponent} {them} │ {turn} │ {phase} "))]
        }
    };
    let mut game = game;
    if form != Status::Shortest
        && let Some(watchers) = &view.watchers
    {
        game.push(Span::from(watching(watchers, form)));
    }
    let connection = if form == Status::Shortest { " ● ".to_string() } else { format!(" ● {state} ") };
    let mut spans = vec![Span::from(connection).fg(colour).bold()];
    // First after the connection: a stalled game is what the player must see, unless the screen is too narrow
    // for the game's state to show whole after it.
    if form == Status::Shortest {
        spans.extend(game);
        spans.extend(alerts(view));
    } else {
        spans.extend(alerts(view));
        spans.extend(game);
    }
    if let Some(reason) = &view.halted {
        spans.push(Span::from(format!("│ STOPPED: {reason} ")).fg(Color::Red).bold());
    }
    // Last on the shortest line, without the delay: where there is room, both players still see who watches.
    if form == Status::Shortest
        && let Some(watchers) = &view.watchers
    {
        spans.push(Span::from(watching(watchers, form)));
    }
    spans
}

/// What the player must act on or know at once: a long wait, a forfeit coming, who chooses to play or draw,
/// the game's end.
fn alerts(view: &View) -> Vec<Span<'static>> {
    let table = &view.table;
    let opponent = &table.opponent.name;
    let mut texts = Vec::new();
    if let Some(waiting) = &view.waiting {
        let hint = if forfeit_hint_after(&waiting.awaited).as_secs() <= waiting.seconds {
            " — forfeit ends the game"
        } else {
            ""
        };
        texts.push(format!("│ waiting for {opponent}: {} ({} s){hint} ", waiting.awaited, waiting.seconds));
    }
    if let Some(left) = view.forfeit_in {
        texts.push(format!("│ {opponent} away: forfeit possible in {left} s "));
    }
    if let Some(chooser) = table.chooser {
        texts.push(match chooser {
            Side::Mine => "│ you choose: play-first or draw-first ".to_string(),
            Side::Opponent => format!("│ {opponent} chooses to play or draw "),
        });
    }
    if table.over {
        let how = view.game_end.map_or("lost", lost_by);
        texts.push(match table.loser {
            Some(Side::Mine) => format!("│ GAME OVER: you {how} · {opponent} wins "),
            Some(Side::Opponent) => format!("│ GAME OVER: {opponent} {how} · you win "),
            None => "│ GAME OVER ".to_string(),
        });
    }
    texts.into_iter().map(|text| Span::from(text).fg(Color::Yellow).bold()).collect()
}

/// The spectators in the status line: how many watch, with the delay, or that watching is off.
fn watching(watchers: &Watchers, form: Status) -> String {
    match (watchers.open, watchers.delay) {
        (false, _) => "│ watching off ".to_string(),
        (true, delay) if delay == 0 || form == Status::Shortest => format!("│ {} watch ", watchers.count),
        (true, delay) => format!("│ {} watch ({}) ", watchers.count, turns_behind(delay)),
    }
}

/// How far behind spectators are: "1 turn behind", "3 turns behind".
pub(crate) fn turns_behind(delay: u32) -> String {
    if delay == 1 { "1 turn behind".into() } else { format!("{delay} turns behind") }
}

/// The connection state in words, and its colour.
pub(crate) fn connection(view: &View) -> (&'static str, Color) {
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

/// The text of a test terminal's screen, row by row.
#[cfg(test)]
pub(crate) fn screen_text(buffer: &ratatui::buffer::Buffer) -> String {
    let area = buffer.area;
    (0..area.height)
        .map(|y| (0..area.width).map(|x| buffer[(x, y)].symbol()).collect::<String>().replace('\u{a0}', " "))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::Output;

    #[test]
    fn the_status_line_counts_both_players_spectators_and_says_when_watching_is_off() {
        let mut view = View::new("ws://relay");
        let status = |view: &View| {
            status_spans(view, Status::Full).iter().map(|span| span.content.to_string()).collect::<String>()
        };
        assert!(!status(&view).contains("watch"), "nothing before the relay counts");
        view.apply(&Output::Watchers { host: 2, guest: 1, open: true, delay: 1 }, &engine());
        assert!(status(&view).contains("│ 3 watch (1 turn behind) "), "{}", status(&view));
        view.apply(&Output::Watchers { host: 0, guest: 0, open: false, delay: 1 }, &engine());
        assert!(status(&view).contains("│ watching off "), "{}", status(&view));
        assert_eq!(view.log.lines().iter().filter(|line| line.text == "Watching is off in this game").count(), 1);
    }

    #[test]
    fn at_80_columns_the_status_line_still_counts_the_spectators() {
        let mut view = View::new("ws://relay");
        view.relay = RelayLink::Up;
        view.apply(&Output::Watchers { host: 1, guest: 1, open: true, delay: 2 }, &engine());
        view.table.opponent.name = "Bea".into();
        view.table.chooser = Some(Side::Opponent);
        let mut terminal = ratatui::Terminal::new(ratatui::backend::TestBackend::new(80, 1)).unwrap();
        terminal.draw(|frame| render_status(frame, frame.area(), &view)).unwrap();
        let line = screen_text(terminal.backend().buffer());
        assert!(line.contains("Bea chooses to play or draw") && line.contains("│ 2 watch"), "{line}");
    }

    fn engine() -> fairdeck_shared::engine::Engine<fairdeck_shared::crypto::Ristretto255> {
        let config = fairdeck_shared::engine::EngineConfig { name: "Ada".into(), software: "test".into() };
        let card = fairdeck_shared::engine::DeckCard { name: "Mountain".into(), back: 0 };
        let deck = fairdeck_shared::engine::DeckList { library: vec![card], ..Default::default() };
        fairdeck_shared::engine::Engine::new(fairdeck_shared::Seat::HOST, config, deck, [1; 32]).unwrap()
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
