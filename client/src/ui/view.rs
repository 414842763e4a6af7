//! The terminal table's model: what the player sees, built from the session's outputs and the engine's
//! table. Pure data and pure updates, so tests build it from real engines and check it without a
//! terminal.

use std::cell::Cell;
use std::collections::VecDeque;

use fairdeck_shared::Seat;
use fairdeck_shared::crypto::Group;
use fairdeck_shared::engine::{Engine, Event, GameEnd};
use fairdeck_shared::table::{CardId, PowerToughness, Table, ZoneId, ZoneKind};

use super::arrows::Arrows;
use super::library_view::LibraryView;
use super::log::{LogKind, LogLine, Story, table_lines};
use crate::command::TopWatch;
use crate::session::{Output, WRONG_CODES_PER_CODE, Waiting, purpose_name};

/// Zones in the order the screen lists their counts.
pub const ZONE_ORDER: [ZoneKind; 6] =
    [ZoneKind::Library, ZoneKind::Hand, ZoneKind::Graveyard, ZoneKind::Exile, ZoneKind::Sideboard, ZoneKind::Play];
/// Set-up shuffles one library per player; the engine's `SetupProgress` confirms the total.
const LIBRARIES: u32 = 2;
/// The log keeps this many lines; older ones scroll away for good.
const LOG_LIMIT: usize = 2_000;

/// Everything the screen shows.
#[derive(Clone, Debug)]
pub struct View {
    pub table: TableView,
    pub log: Log,
    pub relay: RelayLink,
    pub peer: PeerState,
    pub setup: Setup,
    /// The code to give the other player, while hosting and waiting for them.
    pub code: Option<String>,
    /// The deck file's summary: Cockatrice hash, main and sideboard counts.
    pub deck: Option<(String, u32, u32)>,
    pub prompt: Prompt,
    pub overlay: Overlay,
    /// Which panel the scroll keys move, and how far each panel is scrolled.
    pub scrolls: Scrolls,
    /// The page of the `?` help shown, counted on (the help wraps around on a terminal too small for one page).
    pub help_page: usize,
    /// Why the game stopped (a cheat was caught, or the game ended), once it did.
    pub halted: Option<String>,
    /// The player asked to quit: the session is saying goodbye.
    pub leaving: bool,
    /// What the engine has long waited on the opponent for, and how long (the session counts).
    pub waiting: Option<Waiting>,
    /// The opponent is away: the seconds left before `forfeit` may claim the game (the session counts).
    pub forfeit_in: Option<u64>,
    /// The relay's address, shown while connecting.
    pub relay_url: String,
    /// Each player's deck label in this game (this player's, the opponent's), as `Event::DeckLabel` told it.
    pub deck_labels: [Option<DeckLabel>; 2],
    /// The open search, scry or surveil, drawn over the table until `done`.
    pub library: Option<LibraryView>,
    /// The arrows drawn on the table, which the engine's table does not keep.
    pub arrows: Arrows,
    /// How this game was lost, as the engine told it.
    pub game_end: Option<GameEnd>,
    /// What the log keeps to tell the events.
    story: Story,
}

/// The public table as this player sees it, with the names this player knows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TableView {
    pub me: SideView,
    pub opponent: SideView,
    pub turn: u32,
    /// Whether it is this player's turn; `None` before the first turn.
    pub my_turn: Option<bool>,
    pub phase: String,
    /// Who chooses to play or draw, while they have not chosen yet.
    pub chooser: Option<Side>,
    /// Who lost the game, once it is over.
    pub loser: Option<Side>,
    /// The game is over: a player lost it (conceded, forfeited), or this player ended it.
    pub over: bool,
}

/// A deck's label (its hash) as shown at the start of a game, and whether it differs from the last game's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeckLabel {
    pub label: String,
    pub changed: bool,
}

/// One player's side of the table.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SideView {
    pub name: String,
    pub life: Option<i64>,
    /// The player's other numbers (poison, energy…), by name.
    pub values: Vec<(String, i64)>,
    /// Card counts in [`ZONE_ORDER`].
    pub counts: Vec<(ZoneKind, usize)>,
    /// The hand, with names where this player knows them (all of its own, none of the opponent's
    /// unless revealed).
    pub hand: Vec<CardView>,
    pub play: Vec<PlayedCard>,
    /// The public piles, top first.
    pub graveyard: Vec<CardView>,
    pub exile: Vec<CardView>,
    /// The sideboard, with names for this player's own.
    pub sideboard: Vec<CardView>,
    /// The command zone: commanders, face up, known to both.
    pub command: Vec<CardView>,
}

/// A card by id, and its name if this player knows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CardView {
    pub id: CardId,
    pub name: Option<String>,
}

/// A card in a play area.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayedCard {
    pub card: CardView,
    pub x: i32,
    pub y: i32,
    pub face_down: bool,
    pub tapped: bool,
    pub counters: Vec<(String, i64)>,
    /// The card in play this one is attached to.
    pub attached_to: Option<CardId>,
    /// A token's power and toughness.
    pub power_toughness: Option<PowerToughness>,
}

/// This player's connection to the relay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RelayLink {
    Connecting,
    Up,
    Reconnecting,
}

/// The opponent, as the relay reports them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PeerState {
    /// Nobody took the other seat yet.
    Waiting,
    Present,
    /// Their connection dropped; the relay holds their seat.
    Away,
    /// They left the room for good.
    Gone,
}

/// How far the game's set-up is: the key exchange, the hello, then each library locked, shuffled and
/// verified.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Setup {
    /// The game of the match being set up, from 1.
    pub game: u32,
    pub channel: bool,
    pub hello: bool,
    pub shuffled: u32,
    pub libraries: u32,
    pub ready: bool,
}

impl Setup {
    /// The share of set-up done, from 0 to 1.
    pub fn ratio(&self) -> f64 {
        if self.ready {
            return 1.0;
        }
        let done = u32::from(self.channel) + u32::from(self.hello) + self.shuffled;
        let total = 2 + self.libraries.max(1);
        f64::from(done.min(total)) / f64::from(total)
    }

    /// What set-up is doing now, in words.
    pub fn stage(&self) -> String {
        if self.ready {
            "Both libraries are shuffled and verified".to_string()
        } else if !self.channel {
            "Waiting for the opponent and the key exchange".to_string()
        } else if !self.hello {
            "Exchanging hellos and deck commitments".to_string()
        } else {
            format!("Locking, shuffling and verifying the libraries: {} of {} done", self.shuffled, self.libraries)
        }
    }
}

/// The command line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Prompt {
    pub text: String,
    /// Keys go to the command line (else they are shortcuts).
    pub focused: bool,
    /// Commands entered, oldest first, for Up and Down.
    pub history: Vec<String>,
    /// Where Up/Down is in the history; `None` when editing a new line.
    pub recalled: Option<usize>,
}

/// What covers the table, if anything.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Overlay {
    None,
    Help,
    ConfirmQuit,
    /// A pile, card by card, with ids.
    Pile(Pile),
}

/// Whose side of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Mine,
    Opponent,
}

/// A pile this player may look through: either player's graveyard or exile, or this player's sideboard.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pile {
    Graveyard(Side),
    Exile(Side),
    Command(Side),
    Sideboard,
}

impl Pile {
    /// The pile named by the words after `view`: `[opponent] graveyard|exile|command`, or `sideboard`.
    pub fn parse(words: &str) -> Result<Pile, String> {
        let usage = "usage: view [opponent] graveyard|exile|command, or view sideboard";
        let words: Vec<&str> = words.split_whitespace().collect();
        let (side, pile) = match words[..] {
            ["opponent", pile] => (Side::Opponent, pile),
            [pile] => (Side::Mine, pile),
            _ => return Err(usage.into()),
        };
        match (pile, side) {
            ("graveyard", _) => Ok(Pile::Graveyard(side)),
            ("exile", _) => Ok(Pile::Exile(side)),
            ("command", _) => Ok(Pile::Command(side)),
            ("sideboard", Side::Mine) => Ok(Pile::Sideboard),
            ("sideboard", Side::Opponent) => Err("the opponent's sideboard is hidden".into()),
            _ => Err(usage.into()),
        }
    }

    /// The pile in words, for the title of its view.
    pub fn name(self, table: &TableView) -> String {
        let whose = |side| match side {
            Side::Mine => "Your".to_string(),
            Side::Opponent => format!("{}'s", table.opponent.name),
        };
        match self {
            Pile::Graveyard(side) => format!("{} graveyard", whose(side)),
            Pile::Exile(side) => format!("{} exile", whose(side)),
            Pile::Command(side) => format!("{} command zone", whose(side)),
            Pile::Sideboard => "Your sideboard".to_string(),
        }
    }
}

/// What scrolls on the table: the hands, the play areas, and the pile on view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Panel {
    MyHand,
    MyPlay,
    TheirPlay,
    TheirHand,
    Pile,
}

impl Panel {
    /// The panels Tab goes round, from the bottom of the screen up.
    pub const CYCLE: [Panel; 4] = [Panel::MyHand, Panel::MyPlay, Panel::TheirPlay, Panel::TheirHand];
}

/// Which panel the scroll keys move, and how far each is scrolled (in rows of cards: a hand's row, a card
/// in play, a card in a pile).
#[derive(Clone, Debug, Default)]
pub struct Scrolls {
    /// The panel the scroll keys move, as an index in [`Panel::CYCLE`].
    focus: usize,
    offsets: [usize; 5],
    /// How far each panel could scroll at the size last drawn: the drawing finds out, and the keys stop
    /// there.
    limits: Cell<[usize; 5]>,
}

impl Scrolls {
    pub fn focus(&self) -> Panel {
        Panel::CYCLE[self.focus]
    }

    /// Moves the focus to the next panel (or the one before).
    pub fn cycle(&mut self, forward: bool) {
        let len = Panel::CYCLE.len();
        self.focus = if forward { (self.focus + 1) % len } else { (self.focus + len - 1) % len };
    }

    pub fn offset(&self, panel: Panel) -> usize {
        self.offsets[panel as usize]
    }

    /// Scrolls `panel` `by` rows down (negative: up), as far as it last could.
    pub fn scroll(&mut self, panel: Panel, by: isize) {
        let limit = self.limits.get()[panel as usize];
        let offset = &mut self.offsets[panel as usize];
        // From where the panel shows now: the size may have shrunk since it scrolled.
        *offset = (*offset).min(limit).saturating_add_signed(by).min(limit);
    }

    /// Records how far `panel` can scroll at the size being drawn.
    pub fn set_limit(&self, panel: Panel, limit: usize) {
        let mut limits = self.limits.get();
        limits[panel as usize] = limit;
        self.limits.set(limits);
    }

    fn reset(&mut self, panel: Panel) {
        self.offsets[panel as usize] = 0;
    }
}

/// The scrolling log of actions, chat, alerts and notices.
#[derive(Clone, Debug, Default)]
pub struct Log {
    lines: VecDeque<LogLine>,
    /// How many lines up from the newest the view is scrolled.
    scroll: usize,
}

impl Log {
    pub fn push(&mut self, kind: LogKind, text: impl Into<String>) {
        if self.lines.len() == LOG_LIMIT {
            self.lines.pop_front();
        }
        self.lines.push_back(LogLine { kind, text: clean(&text.into()) });
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

    /// Scrolls `by` lines up (negative: down), within the log.
    pub fn scroll_by(&mut self, by: isize) {
        let max = self.lines.len().saturating_sub(1);
        self.scroll = self.scroll.saturating_add_signed(by).min(max);
    }

    pub fn scroll_to_newest(&mut self) {
        self.scroll = 0;
    }
}

impl View {
    /// The screen before anything happened: connecting to `relay_url`.
    pub fn new(relay_url: impl Into<String>) -> Self {
        View {
            table: TableView::default(),
            log: Log::default(),
            relay: RelayLink::Connecting,
            peer: PeerState::Waiting,
            setup: Setup { game: 1, channel: false, hello: false, shuffled: 0, libraries: LIBRARIES, ready: false },
            code: None,
            deck: None,
            prompt: Prompt::default(),
            overlay: Overlay::None,
            scrolls: Scrolls::default(),
            help_page: 0,
            halted: None,
            leaving: false,
            waiting: None,
            forfeit_in: None,
            relay_url: relay_url.into(),
            deck_labels: [None, None],
            library: None,
            arrows: Arrows::default(),
            game_end: None,
            story: Story::default(),
        }
    }

    /// Opens the view of the pile named by `words` (see [`Pile::parse`]), from its top.
    pub fn open_pile(&mut self, words: &str) -> Result<(), String> {
        let pile = Pile::parse(words)?;
        self.scrolls.reset(Panel::Pile);
        self.overlay = Overlay::Pile(pile);
        Ok(())
    }

    /// Takes in one output of the session; `engine` is the table after it.
    pub fn apply<G: Group>(&mut self, output: &Output, engine: &Engine<G>) {
        self.table = TableView::from_engine(engine);
        self.halted = engine.halted().map(str::to_string);
        let ready = engine.is_ready();
        if self.setup.ready && !ready {
            // The next game of a match starts its set-up afresh.
            self.setup.shuffled = 0;
        }
        self.setup.ready = ready;
        let opponent = self.table.opponent.name.clone();
        match output {
            Output::Deck { hash, main, sideboard, commander } => {
                self.deck = Some((hash.clone(), *main, *sideboard));
                let commander = if commander.is_empty() {
                    String::new()
                } else {
                    format!(", commander {}", commander.join(" and "))
                };
                let sideboard = if *sideboard == 0 { String::new() } else { format!(", {sideboard} in the sideboard") };
                self.log.push(LogKind::Notice, format!("Your deck: {main} cards{commander}{sideboard} (hash {hash})"));
            }
            Output::Code(code) => {
                self.relay = RelayLink::Up;
                self.code = Some(code.clone());
                self.log.push(LogKind::Notice, "Game open: give the code above to the other player");
            }
            Output::WrongCodeTried { attempts, reopened } => {
                self.peer = PeerState::Waiting;
                let message = if *reopened {
                    format!(
                        "Someone tried a wrong code ({attempts} of {WRONG_CODES_PER_CODE}): the game stays open for the right one; new-code gives new words"
                    )
                } else {
                    format!(
                        "{attempts} wrong codes: someone may be guessing. Nobody joins until new-code gives new words"
                    )
                };
                self.log.push(LogKind::Alert, message);
            }
            Output::Paired => {
                self.relay = RelayLink::Up;
                self.peer = PeerState::Present;
                self.log.push(LogKind::Notice, "The other seat is taken: checking the code");
            }
            Output::Saved(path) => {
                let file = path.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
                self.log.push(
                    LogKind::Notice,
                    format!("The game is saved as it goes ({file}): after a crash, fairdeck resume goes on"),
                );
            }
            Output::Restored { path, moves, relay } => {
                self.setup.channel = true;
                self.setup.hello = true;
                self.code = None;
                self.relay = RelayLink::Connecting;
                self.relay_url = relay.clone();
                self.story.restart(engine);
                // The labels' events were replayed unseen; whether a deck changed is not kept.
                let me = engine.seat();
                self.deck_labels = [me, me.opponent()]
                    .map(|seat| engine.deck_label(seat).map(|label| DeckLabel { label: clean(label), changed: false }));
                self.log.push(LogKind::Notice, format!("Game restored from {} after {moves} moves", path.display()));
            }
            Output::Rendezvous { peer_here } => {
                self.relay = RelayLink::Up;
                if *peer_here {
                    self.peer = PeerState::Present;
                    // Whether the game goes on is the opponent's next message's to say: it may be a forfeit
                    // claimed while this player was away.
                    let text = if self.table.over {
                        format!("{opponent} is here; the game is over")
                    } else {
                        format!("{opponent} is here")
                    };
                    self.log.push(LogKind::Notice, text);
                } else {
                    self.peer = PeerState::Away;
                    self.log.push(
                        LogKind::Notice,
                        format!("Waiting for {opponent} at the game's rendezvous (a player who quit comes back with fairdeck resume)"),
                    );
                }
            }
            Output::ChannelEstablished => {
                self.setup.channel = true;
                self.code = None;
                self.log.push(LogKind::Notice, "The opponent proved the code: the end-to-end channel is up");
            }
            Output::PeerAway { hold_ms } => {
                self.peer = PeerState::Away;
                let seconds = hold_ms / 1000;
                self.log
                    .push(LogKind::Notice, format!("{opponent} is away: the relay holds their seat for {seconds} s"));
            }
            Output::PeerBack => {
                self.peer = PeerState::Present;
                self.log.push(LogKind::Notice, format!("{opponent} is back"));
            }
            Output::PeerGone { reason } => {
                self.peer = PeerState::Gone;
                self.log.push(LogKind::Notice, format!("{opponent} left the room ({reason}); q quits"));
            }
            Output::RelayRestarting { reconnect_after_ms } => {
                let seconds = reconnect_after_ms / 1000;
                self.log.push(LogKind::Notice, format!("The relay is restarting: reconnecting in {seconds} s"));
            }
            Output::RelayLost(detail) => {
                self.relay = RelayLink::Reconnecting;
                self.log.push(LogKind::Notice, format!("Lost the relay ({detail}): reconnecting"));
            }
            Output::Resumed { peer_here } => {
                self.relay = RelayLink::Up;
                // Once the game is under way, the relay says whether the opponent is still there.
                if self.setup.channel {
                    self.peer = if *peer_here { PeerState::Present } else { PeerState::Away };
                }
                self.log.push(LogKind::Notice, "Reconnected to the relay");
            }
            Output::RelayAlert(detail) => self.log.push(LogKind::Alert, format!("relay: {detail}")),
            Output::CommandError { command, message, .. } => {
                self.log.push(LogKind::Error, format!("{command}: {message}"));
            }
            Output::Idle => self.log.push(LogKind::Notice, "No exchange is pending"),
            Output::Browsing(open) => {
                let scroll = self.library.as_ref().map_or(0, |shown| shown.scroll);
                self.library = Some(LibraryView { scroll, ..LibraryView::new(open, engine) });
            }
            Output::TopWatch(watch) => {
                let text = match watch {
                    Some(TopWatch::Look) => "You look at the top card of your library whenever it changes",
                    Some(TopWatch::Reveal) => "You reveal the top card of your library whenever it changes",
                    None => "You no longer watch the top card of your library",
                };
                self.log.push(LogKind::Notice, text);
            }
            Output::BrowsingClosed(purpose) => {
                self.library = None;
                self.log.push(LogKind::Notice, format!("Your {} is over", purpose_name(*purpose)));
            }
            Output::Waiting(waiting) => self.waiting = waiting.clone(),
            Output::ForfeitGrace(left) => {
                // The count is the status line's; the log says once that it began.
                if let (None, Some(left)) = (self.forfeit_in, left) {
                    self.log.push(LogKind::Notice, format!("{opponent} left: forfeit possible in {left} s"));
                }
                self.forfeit_in = *left;
            }
            Output::ForfeitPossible { away } => self.log.push(
                LogKind::Notice,
                format!("{opponent} has been away for {away} s: the command forfeit ends the game"),
            ),
            Output::Overdue(Waiting { awaited, seconds }) => self.log.push(
                LogKind::Notice,
                format!("{opponent} has not sent {awaited} for {seconds} s: the command forfeit ends the game"),
            ),
            // The screen shows the whole table; the log says it in words, as `table` asked.
            Output::Table => {
                for text in table_lines(&self.table) {
                    self.log.push(LogKind::Notice, text);
                }
            }
            Output::Taken(intent) => {
                if let Some(line) = self.story.taken(intent, engine) {
                    self.log.push(line.kind, line.text);
                }
            }
            Output::Engine(event) => self.apply_event(event, engine),
        }
    }

    fn apply_event<G: Group>(&mut self, event: &Event, engine: &Engine<G>) {
        match event {
            Event::Connected { .. } => self.setup.hello = true,
            Event::SetupProgress { done, total } => {
                self.setup.shuffled = *done;
                self.setup.libraries = *total;
            }
            Event::NewGame { number } => {
                self.setup.game = *number;
                self.deck_labels = [None, None];
                self.game_end = None;
            }
            Event::GameOver { how, .. } => self.game_end = Some(*how),
            Event::DeckLabel { seat, label, changed } => {
                let side = usize::from(*seat != engine.seat());
                self.deck_labels[side] = Some(DeckLabel { label: clean(label), changed: *changed });
            }
            _ => {}
        }
        self.arrows.follow(event, engine);
        for line in self.story.tell(event, engine) {
            self.log.push(line.kind, line.text);
        }
    }
}

impl TableView {
    /// The cards of `pile`, top first.
    pub fn pile(&self, pile: Pile) -> &[CardView] {
        let side = |side| match side {
            Side::Mine => &self.me,
            Side::Opponent => &self.opponent,
        };
        match pile {
            Pile::Graveyard(s) => &side(s).graveyard,
            Pile::Exile(s) => &side(s).exile,
            Pile::Command(s) => &side(s).command,
            Pile::Sideboard => &self.me.sideboard,
        }
    }

    /// The table as `engine`'s player sees it.
    pub fn from_engine<G: Group>(engine: &Engine<G>) -> Self {
        let table = engine.table();
        let me = engine.seat();
        let active = table.active;
        let over = engine.is_ended() || engine.loser().is_some();
        let side = |seat: Seat| if seat == me { Side::Mine } else { Side::Opponent };
        TableView {
            me: SideView::of(engine, table, me, "You"),
            opponent: SideView::of(engine, table, me.opponent(), "Opponent"),
            turn: table.turn,
            my_turn: active.map(|seat| seat == me),
            phase: table.phase.clone(),
            // The chooser has chosen once the first turn is on; nobody chooses in a game that is over.
            chooser: engine.chooser().filter(|_| table.turn == 0 && !over).map(side),
            // A concession is the end: the deck audit (`is_ended`) may follow or not.
            loser: engine.loser().map(side),
            over,
        }
    }
}

impl SideView {
    /// `seat`'s side; `unnamed` stands for a player whose name is not known yet.
    fn of<G: Group>(engine: &Engine<G>, table: &Table, seat: Seat, unnamed: &str) -> Self {
        let player = table.player(seat);
        let card = |id: &CardId| CardView { id: *id, name: engine.identity(*id).map(|i| clean(&i.name)) };
        let zone = |kind| table.zone(ZoneId::new(seat, kind));
        let mut play: Vec<PlayedCard> = zone(ZoneKind::Play)
            .iter()
            .filter_map(|id| table.card(*id))
            .map(|c| PlayedCard {
                card: card(&c.id),
                x: c.placement.x,
                y: c.placement.y,
                face_down: c.placement.face_down,
                tapped: c.tapped,
                counters: c.counters.iter().map(|(k, v)| (clean(k), *v)).collect(),
                attached_to: c.attached_to,
                power_toughness: c.power_toughness,
            })
            .collect();
        // Rows, then columns, as the cards lie on the table.
        play.sort_by_key(|p| (p.y, p.x, p.card.id));
        SideView {
            name: if player.name.is_empty() { unnamed.to_string() } else { clean(&player.name) },
            life: player.values.get("life").copied(),
            values: player.values.iter().filter(|(k, _)| *k != "life").map(|(k, v)| (clean(k), *v)).collect(),
            counts: ZONE_ORDER.iter().map(|&kind| (kind, zone(kind).len())).collect(),
            hand: zone(ZoneKind::Hand).iter().map(card).collect(),
            play,
            graveyard: zone(ZoneKind::Graveyard).iter().map(card).collect(),
            exile: zone(ZoneKind::Exile).iter().map(card).collect(),
            sideboard: zone(ZoneKind::Sideboard).iter().map(card).collect(),
            command: zone(ZoneKind::Command).iter().map(card).collect(),
        }
    }

    /// How many cards a zone holds.
    pub fn count(&self, kind: ZoneKind) -> usize {
        self.counts.iter().find(|(k, _)| *k == kind).map_or(0, |(_, n)| *n)
    }
}

/// Text from the opponent (names, chat, card names) with control characters replaced: written raw to
/// the terminal, an escape sequence could rewrite the screen or worse.
pub fn clean(text: &str) -> String {
    text.chars().map(|c| if c.is_control() { '\u{fffd}' } else { c }).collect()
}
