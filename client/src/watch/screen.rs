//! `fairdeck watch`'s terminal: a read-only table, drawn as the game draws its own (the board's panels and the log,
//! from the game's [`View`] built from the observer), the inviting player's side at the bottom. Keys scroll the
//! log, `?` shows them, `q` quits. The status line says who plays whom, the turn, life totals, the delay, and in
//! red any breach the observer caught.

use crossterm::event::{Event as TermEvent, EventStream, KeyCode, KeyEvent, KeyEventKind};
use futures_util::StreamExt;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Stylize};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};
use ratatui::{DefaultTerminal, Frame};

use super::error::WatchError;
use super::run::{Ended, WatchFront, WatchOptions, watch};
use super::spectator::{News, Spectator};
use crate::session::SessionError;
use crate::ui::board::render_table;
use crate::ui::log::LogKind;
use crate::ui::render::{render_log, turns_behind};
use crate::ui::{RestoreOnDrop, View};

/// The keys, as `?` shows them.
const KEYS: [&str; 5] =
    ["↑ ↓: scroll the log a line", "PgUp PgDn: a page", "End: the newest", "?: these keys", "q: quit"];
const HINT: &str = "watching (read-only) · ↑↓ PgUp PgDn: log · ?: keys · q: quit";
const PAGE: isize = 10;

/// What the spectator's screen shows: the game's view, and what is the spectator's own.
pub struct Watching {
    pub view: View,
    /// The player's delay, in turns.
    pub delay: u8,
    /// The keys shown over the table.
    pub help: bool,
    /// Watching ended: why.
    pub ended: Option<Ended>,
    /// The observer stopped on a breach: why.
    pub halted: Option<String>,
    /// The player's feed began.
    started: bool,
}

impl Watching {
    pub fn new(relay: &str) -> Watching {
        let mut view = View::new(relay);
        view.log.push(LogKind::Notice, "Connecting to the relay");
        Watching { view, delay: 0, help: false, ended: None, halted: None, started: false }
    }

    /// Takes in what the spectator was told, `spectator` as it stands after it.
    pub fn apply(&mut self, news: &News, spectator: &Spectator) {
        match news {
            News::Started { delay, .. } => {
                if std::mem::replace(&mut self.started, true) {
                    // The player's program started again, and the game is checked again from its start.
                    self.view = View::new(std::mem::take(&mut self.view.relay_url));
                    self.view.log.push(LogKind::Notice, "The player's program started again");
                }
                self.delay = *delay;
                self.view.follow_source(spectator);
                self.view.log.push(LogKind::Notice, "The player's program sends the game: checking every step");
            }
            News::Delay(turns) => {
                self.delay = *turns;
                let said = match turns {
                    0 => "The players chose no delay: each step as it is played".to_string(),
                    1 => "The players chose a delay of 1 turn".to_string(),
                    turns => format!("The players chose a delay of {turns} turns"),
                };
                self.view.log.push(LogKind::Notice, said);
            }
            News::Step { .. } => {}
            News::Event(event) => self.view.spectate(event, spectator),
            News::Table => self.view.follow_source(spectator),
        }
        self.halted = spectator.halted().map(str::to_string);
    }

    /// The connection to the relay was lost: the game is shown again from its start once a seat is had again.
    pub fn relay_lost(&mut self, reason: &str) {
        self.view = View::new(std::mem::take(&mut self.view.relay_url));
        self.started = false;
        let text =
            format!("Lost the relay ({reason}): taking a watch seat again, then checking the game from its start");
        self.view.log.push(LogKind::Notice, text);
    }

    /// A key: `true` to quit.
    pub fn key(&mut self, key: KeyEvent) -> bool {
        if key.kind == KeyEventKind::Release {
            return false;
        }
        match key.code {
            KeyCode::Char('q') => return true,
            KeyCode::Char('?') => self.help = !self.help,
            KeyCode::Esc => self.help = false,
            KeyCode::Up => self.view.log.scroll_by(1),
            KeyCode::Down => self.view.log.scroll_by(-1),
            KeyCode::PageUp => self.view.log.scroll_by(PAGE),
            KeyCode::PageDown => self.view.log.scroll_by(-PAGE),
            KeyCode::End => self.view.log.scroll_to_newest(),
            _ => {}
        }
        false
    }
}

/// Draws the spectator's screen.
pub fn render(frame: &mut Frame, watching: &Watching) {
    let [main, hint, status] =
        Layout::vertical([Constraint::Min(0), Constraint::Length(1), Constraint::Length(1)]).areas(frame.area());
    let [table, log] = Layout::horizontal([Constraint::Percentage(60), Constraint::Percentage(40)]).areas(main);
    render_table(frame, table, &watching.view);
    render_log(frame, log, &watching.view);
    frame.render_widget(Paragraph::new(HINT).fg(Color::Gray), hint);
    frame.render_widget(Paragraph::new(Line::from(status_spans(watching))).reversed(), status);
    if watching.help {
        render_keys(frame, frame.area());
    }
}

/// The status line: the state of watching, who plays whom with their life, the turn, the delay, a breach.
fn status_spans(watching: &Watching) -> Vec<Span<'static>> {
    let table = &watching.view.table;
    let (me, them) = (&table.me.name, &table.opponent.name);
    let life = |life: Option<i64>| life.map_or_else(|| "—".to_string(), |l| l.to_string());
    let state = match watching.ended {
        None => " ● watching ".to_string(),
        Some(Ended::WatchingOff) => " ● watching was turned off (q quits) ".to_string(),
        Some(Ended::PlayerLeft) => " ● the player left (q quits) ".to_string(),
        Some(Ended::Closed | Ended::Quit) => " ● the relay closed (q quits) ".to_string(),
        Some(Ended::Unsupported) => " ● spectators cannot follow limited play yet (q quits) ".to_string(),
    };
    let turn = match table.my_turn {
        None => "no turn yet".to_string(),
        Some(true) => format!("turn {} ({me}'s)", table.turn),
        Some(false) => format!("turn {} ({them}'s)", table.turn),
    };
    let mut spans = vec![
        Span::from(state).fg(if watching.ended.is_some() { Color::Yellow } else { Color::Green }).bold(),
        Span::from(format!("│ {me} {} · {them} {} │ {turn} ", life(table.me.life), life(table.opponent.life))),
    ];
    if watching.delay > 0 {
        spans.push(Span::from(format!("│ {} ", turns_behind(u32::from(watching.delay)))));
    }
    if table.over {
        spans.push(Span::from("│ GAME OVER ").fg(Color::Yellow).bold());
    }
    if let Some(reason) = &watching.halted {
        spans.push(Span::from(format!("│ CHEATING CAUGHT: {reason} ")).fg(Color::Red).bold());
    }
    spans
}

/// The keys, in a box over the table.
fn render_keys(frame: &mut Frame, area: Rect) {
    let height = u16::try_from(KEYS.len()).unwrap_or(u16::MAX) + 2;
    let [_, middle, _] =
        Layout::vertical([Constraint::Min(0), Constraint::Length(height), Constraint::Min(0)]).areas(area);
    let [_, shown, _] =
        Layout::horizontal([Constraint::Min(0), Constraint::Length(40), Constraint::Min(0)]).areas(middle);
    frame.render_widget(Clear, shown);
    let lines: Vec<Line> = KEYS.iter().map(|key| Line::from(*key)).collect();
    frame.render_widget(Paragraph::new(lines).block(Block::bordered().title(" Keys (Esc closes) ")), shown);
}

/// The terminal, and the screen drawn on it.
struct Screen {
    terminal: DefaultTerminal,
    keys: EventStream,
    watching: Watching,
    /// Something was shown since the screen was last drawn.
    unshown: bool,
}

impl Screen {
    fn draw(&mut self) -> std::io::Result<()> {
        self.terminal.draw(|frame| render(frame, &self.watching)).map(drop)
    }
}

impl WatchFront for Screen {
    async fn next_line(&mut self) -> Option<String> {
        // Asked for whenever the spectator waits: what came since (a whole batch of steps) is drawn once.
        if std::mem::take(&mut self.unshown) {
            self.draw().ok()?;
        }
        loop {
            let TermEvent::Key(key) = self.keys.next().await?.ok()? else {
                self.draw().ok()?;
                continue;
            };
            let quit = self.watching.key(key);
            self.draw().ok()?;
            if quit {
                return Some("quit".into());
            }
        }
    }

    fn watching(&mut self, watcher: u8) -> std::io::Result<()> {
        let text = format!("Seated as spectator {}: waiting for the player's program", watcher + 1);
        self.watching.view.log.push(LogKind::Notice, text);
        self.draw()
    }

    fn relay_lost(&mut self, reason: &str) -> std::io::Result<()> {
        self.watching.relay_lost(reason);
        self.draw()
    }

    fn show(&mut self, news: News, spectator: &Spectator) -> std::io::Result<()> {
        self.watching.apply(&news, spectator);
        self.unshown = true;
        Ok(())
    }

    fn ended(&mut self, why: Ended, _: &Spectator) -> std::io::Result<()> {
        self.watching.ended = Some(why);
        self.draw()
    }
}

/// Watches in the terminal until the spectator quits; the terminal is put back as it was in every case.
pub async fn watch_screen(options: WatchOptions) -> Result<(), WatchError> {
    let terminal = crate::ui::open_terminal().map_err(SessionError::Output)?;
    let _restore = RestoreOnDrop;
    let watching = Watching::new(&options.relay);
    let mut screen = Screen { terminal, keys: EventStream::new(), watching, unshown: false };
    screen.draw()?;
    watch(options, &mut screen).await?;
    // What ended watching stays on the screen until the spectator quits.
    if screen.watching.ended != Some(Ended::Quit) {
        while screen.next_line().await.is_some_and(|line| line != "quit") {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use fairdeck_shared::Seat;
    use fairdeck_shared::crypto::{Group, Ristretto255};
    use fairdeck_shared::engine::{DeckCard, DeckList, Intent};
    use fairdeck_shared::pair::Pair;
    use fairdeck_shared::table::{Placement, Position, ZoneId, ZoneKind};
    use fairdeck_shared::wire::{Action, Envelope, encode_envelope};
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    use super::*;
    use crate::code::Code;
    use crate::session::spectators::Feed;
    use crate::ui::table_view::TableSource;

    /// Both players draw three; the host plays its first card face up.
    fn game() -> Pair<Ristretto255> {
        let deck = || DeckList {
            library: ["Goblin Guide", "Mountain"]
                .iter()
                .cycle()
                .take(10)
                .map(|n| DeckCard { name: (*n).into(), back: 0 })
                .collect(),
            ..DeckList::default()
        };
        let mut pair = Pair::new(deck(), deck(), 3);
        pair.drive();
        for seat in [Seat::HOST, Seat::GUEST] {
            pair.intent(seat, Intent::Act(Action::Draw { count: 3 })).expect("draw");
            pair.drive();
        }
        let card = pair.host.table().zone(ZoneId::hand(Seat::HOST))[0];
        let to = ZoneId::new(Seat::HOST, ZoneKind::Play);
        let play = Action::Move { card, to, position: Position::Top, placement: Placement::default() };
        pair.intent(Seat::HOST, Intent::Act(play)).expect("play");
        pair.drive();
        pair
    }

    /// The spectator of Ada's feed, every envelope of `record` taken, and its screen's model.
    fn watched(record: &[(Seat, Envelope)]) -> (Spectator, Watching) {
        let mut spectator = Spectator::new(&Code::from_secret("5", &[1; 32]), [2; 32], [3; 32]);
        let mut watching = Watching::new("ws://relay");
        let start = Feed::Start { suite: Ristretto255::SUITE, seat: Seat::HOST, delay: 1 };
        let envelopes = record.iter().map(|(from, e)| Feed::Envelope { from: *from, bytes: encode_envelope(e) });
        for feed in std::iter::once(start).chain(envelopes) {
            spectator.take(feed).expect("an honest feed");
            while let Some(news) = spectator.poll_news() {
                watching.apply(&news, &spectator);
            }
        }
        (spectator, watching)
    }

    fn screen(watching: &Watching) -> String {
        let mut terminal = Terminal::new(TestBackend::new(80, 24)).expect("test terminal");
        terminal.draw(|frame| render(frame, watching)).expect("draw");
        crate::ui::render::screen_text(terminal.backend().buffer())
    }

    #[test]
    fn the_spectator_table_names_both_players_counts_hands_and_names_only_public_cards() {
        let pair = game();
        let (spectator, mut watching) = watched(pair.host.record());
        let text = screen(&watching);
        // The host, whose feed it is, at the bottom; the guest at the top; no "You".
        let (guest, host) = (text.find("Guest").expect("the guest"), text.rfind("Host").expect("the host"));
        assert!(guest < host, "{text}");
        assert!(!text.contains("You"), "{text}");
        assert!(text.contains("Host 20 · Guest 20") && text.contains("1 turn behind"), "{text}");
        assert!(text.contains("hand 2") && text.contains("hand 3"), "hidden hands as counts: {text}");
        assert_eq!(text.matches("[▒▒]").count(), 5, "both hands' hidden cards as backs, the bottom one's too: {text}");
        // The card played is public: named, on the table and in the log, although it is the watched player's own;
        // the hands are not.
        assert!(text.contains("Goblin Guide") || text.contains("Mountain"), "{text}");
        let played = pair.host.table().zone(ZoneId::new(Seat::HOST, ZoneKind::Play))[0];
        let name = &TableSource::identity(&spectator, played).expect("public").name;
        let shown = format!("Shown: {played} {name} (Host's play area)");
        assert!(watching.view.log.lines().iter().any(|line| line.text == shown), "{:?}", watching.view.log.lines());
        let hand = pair.host.table().zone(ZoneId::hand(Seat::HOST)).to_vec();
        assert!(hand.iter().all(|card| TableSource::identity(&spectator, *card).is_none()));
        assert!(spectator.halted().is_none());

        watching.help = true;
        let text = screen(&watching);
        assert!(text.contains("Keys (Esc closes)") && text.contains("q: quit"), "{text}");
    }

    #[test]
    fn a_breach_caught_by_the_observer_is_shown_in_red_on_the_status_line() {
        let pair = game();
        let mut record = pair.host.record().to_vec();
        // The host's program forwards one of the guest's envelopes altered: its signature no longer holds.
        let (_, envelope) = record.iter_mut().rev().find(|(from, _)| *from == Seat::GUEST).expect("one of Bea's");
        envelope.body[0] ^= 1;
        let (spectator, watching) = watched(&record);
        assert!(spectator.halted().is_some());
        let text = screen(&watching);
        assert!(text.contains("CHEATING CAUGHT"), "{text}");
        assert!(text.contains("!! "), "the log marks the alert: {text}");
    }
}
