//! The terminal table's model: what the player sees, built from the session's outputs and the engine's
//! table. Pure data and pure updates, so tests build it from real engines and check it without a
//! terminal.

use std::cell::Cell;
use std::collections::VecDeque;
use std::net::SocketAddr;
use std::path::Path;

use fairdeck_shared::crypto::Group;
use fairdeck_shared::engine::{Engine, Event, GameEnd};
use fairdeck_shared::table::CardId;
use fairdeck_shared::wire::{LimitedFormat, PeekPurpose};

use super::arrows::Arrows;
use super::card_book::CardBook;
use super::log::{LogKind, LogLine, Story, building_words, pool_lines, table_lines};
use super::table_view::{CardView, Side, TableSource, TableView};
use crate::command::{Spec, TopWatch, table};
use crate::session::spectators::{OpeningFailure, WRONG_WATCH_CODES_PER_CODE};
use crate::session::{Browsing, Output, WRONG_CODES_PER_CODE, Waiting, purpose_name};
use crate::text::clean;

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
    /// The card database as the table reads it: kinds for the board, text for `card NAME`.
    pub book: CardBook,
    /// The text `card NAME` shows over the table, its name first.
    pub card_text: Vec<String>,
    /// The line a single key would run, while it asks whether to (the overlay [`Overlay::Confirm`]).
    pub asked: Option<String>,
    /// How this game was lost, as the engine told it.
    pub game_end: Option<GameEnd>,
    /// Spectators, as the relay last counted them (both seats'), once it did.
    pub watchers: Option<Watchers>,
    /// What the table is about (a game, building a limited deck between games or before the first, a draft): its
    /// hint line and set-up panel say so.
    pub stage: Stage,
    /// Limited play: whether this player's pool was dealt.
    pool_dealt: bool,
    /// What the log keeps to tell the events.
    story: Story,
    /// How many inputs the engine had taken when `table` was built from it.
    table_inputs: Option<usize>,
}

/// What the table is about, for its hint line and set-up panel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// A game: the table's keys.
    Playing,
    /// A limited deck being built from the pool.
    Building,
    /// A draft under way, of this format.
    Drafting(LimitedFormat),
}

/// A deck's label (its hash) as shown at the start of a game, and whether it differs from the last game's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeckLabel {
    pub label: String,
    pub changed: bool,
}

/// The game's spectators, as the relay counts them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Watchers {
    /// Both players' spectators.
    pub count: u32,
    /// Whether watching is open (neither player turned it off).
    pub open: bool,
    /// The delay in turns.
    pub delay: u32,
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
    /// Whether to run the line a single key stands for ([`View::asked`]): y runs it, any other key does not.
    Confirm,
    /// A card's text ([`View::card_text`]).
    Card,
    /// A pile, card by card, with ids.
    Pile(Pile),
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

    /// The pile's cards on `table`, top first.
    pub fn cards(self, table: &TableView) -> &[CardView] {
        match self {
            Pile::Graveyard(side) => &table.side(side).graveyard,
            Pile::Exile(side) => &table.side(side).exile,
            Pile::Command(side) => &table.side(side).command,
            Pile::Sideboard => &table.me.sideboard,
        }
    }
}

/// The open search, scry or surveil: the peeked cards of the player's library, top first, with the names this
/// player knows, listed over the table until `done` (`library_view` draws it and reads its keys).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LibraryView {
    pub purpose: PeekPurpose,
    pub cards: Vec<(CardId, Option<String>)>,
    /// The first card listed, when they do not all fit.
    pub scroll: usize,
}

impl LibraryView {
    pub fn new<G: Group>(open: &Browsing, engine: &Engine<G>) -> LibraryView {
        let name = |card: CardId| engine.identity(card).map(|identity| identity.name.clone());
        LibraryView {
            purpose: open.purpose,
            cards: open.cards.iter().map(|&card| (card, name(card))).collect(),
            scroll: 0,
        }
    }

    /// The commands that place the cards, for the overlay's foot.
    pub fn hint(&self) -> String {
        let done = table::DONE.name;
        let cards = |spec: &Spec| format!(": {} CARD…", spec.name);
        match self.purpose {
            PeekPurpose::Search => format!(": {} CARD [ZONE] · Esc: {done} (shuffles)", table::TAKE.name),
            PeekPurpose::Scry => format!("{} · {} · Esc: {done}", cards(&table::TOP), cards(&table::BOTTOM)),
            PeekPurpose::Surveil => format!("{} · {} · Esc: {done}", cards(&table::TOP), cards(&table::GRAVE)),
            PeekPurpose::Look => format!("Esc: {done}"),
        }
    }

    /// The lines listed: `#12 Lightning Bolt`, the first marked as the top.
    pub fn lines(&self) -> Vec<String> {
        self.cards
            .iter()
            .enumerate()
            .map(|(i, (card, name))| {
                let name = name.as_deref().unwrap_or("unknown card");
                if i == 0 { format!("{card} {name} (top)") } else { format!("{card} {name}") }
            })
            .collect()
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
    /// Each panel's selected card, as last drawn: the first card it shows.
    selected: Cell<[Option<CardId>; 5]>,
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

    /// The card `panel` showed first when last drawn: the one a key on the selected card acts on.
    pub fn selected(&self, panel: Panel) -> Option<CardId> {
        self.selected.get()[panel as usize]
    }

    /// Records the card `panel` shows first at the size being drawn.
    pub fn set_selected(&self, panel: Panel, card: Option<CardId>) {
        let mut selected = self.selected.get();
        selected[panel as usize] = card;
        self.selected.set(selected);
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
            book: CardBook::new(crate::cards::database_path_from_env().ok()),
            card_text: Vec::new(),
            asked: None,
            game_end: None,
            watchers: None,
            stage: Stage::Playing,
            pool_dealt: false,
            story: Story::default(),
            table_inputs: None,
        }
    }

    /// Opens the view of the pile named by `words` (see [`Pile::parse`]), from its top.
    pub fn open_pile(&mut self, words: &str) -> Result<(), String> {
        let pile = Pile::parse(words)?;
        self.scrolls.reset(Panel::Pile);
        self.overlay = Overlay::Pile(pile);
        Ok(())
    }

    /// Shows the text of the card named `name` (or `#ID`, a card whose name this player knows) over the table;
    /// or, in the log, why there is none.
    pub fn show_card(&mut self, name: &str) {
        let name = name.trim();
        let id = name.trim_start_matches('#').parse().ok().map(CardId);
        let named = match id {
            Some(id) => self.table.name_of(id),
            None if name.is_empty() => {
                return self.log.push(LogKind::Error, "usage: card NAME (or #ID)");
            }
            None => Some(name.to_string()),
        };
        let Some(named) = named else {
            return self.log.push(LogKind::Error, format!("card {name}: you cannot see that card"));
        };
        match self.book.text(&named) {
            Ok(text) => {
                self.card_text = text.lines().map(str::to_string).collect();
                self.overlay = Overlay::Card;
            }
            Err(message) => self.log.push(LogKind::Error, format!("card {name}: {message}")),
        }
    }

    /// The host's game is open: the code to give, and the suite the cards will be locked with (the guest learns
    /// it from the host's hello; the host, who chose it, is told it here).
    fn game_open<G: Group>(&mut self, code: &str) {
        self.relay = RelayLink::Up;
        self.code = Some(code.to_owned());
        self.notice(format!(
            "Game open: give the code above to the other player (the cards will be locked with {})",
            G::SUITE
        ));
    }

    /// Takes in one output of the session; `engine` is the table after it. The view follows one engine, the
    /// session's, throughout.
    pub fn apply<G: Group>(&mut self, output: &Output, engine: &Engine<G>) {
        if let Output::Engine(Event::Pool { .. }) = output {
            self.pool_dealt = true;
        }
        self.follow_engine(engine);
        let opponent = self.table.opponent.name.clone();
        match output {
            Output::Deck { hash, main, sideboard, commander } => self.deck_read(hash, *main, *sideboard, commander),
            Output::Sideboarded { cards_in, cards_out, main, sideboard, hash } => {
                self.notice(crate::deck::sideboarded_text(cards_in, cards_out, *main, *sideboard, hash))
            }
            Output::DeckWarning { file, warning } => self.log.push(LogKind::Alert, format!("{file}: {warning}")),
            Output::Code(code) => self.game_open::<G>(code),
            Output::WrongCodeTried { attempts, reopened } => self.wrong_code_tried(*attempts, *reopened),
            Output::WatchCode(_) | Output::Watchers { .. } => self.spectators(output),
            Output::WrongWatchCodeTried { watcher, failure, attempts, closed } => {
                self.wrong_watch_code_tried(*watcher, *failure, *attempts, *closed)
            }
            Output::Paired => {
                self.relay = RelayLink::Up;
                self.peer = PeerState::Present;
                self.notice("The other seat is taken: checking the code");
            }
            Output::Saved(path) => {
                let file = path.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
                self.notice(format!("The game is saved as it goes ({file}): after a crash, fairdeck resume goes on"));
            }
            Output::Serving { listen, relay } => self.serving(*listen, relay.as_deref()),
            Output::Restored { path, moves, relay, history } => self.restored(path, *moves, relay, history, engine),
            Output::Rendezvous { peer_here } => self.rendezvous(*peer_here, &opponent),
            Output::ChannelEstablished => {
                self.setup.channel = true;
                self.code = None;
                self.notice("The opponent proved the code: the end-to-end channel is up");
            }
            Output::PeerAway { hold_ms } => {
                self.peer = PeerState::Away;
                self.notice(format!("{opponent} is away: the relay holds their seat for {} s", hold_ms / 1000));
            }
            Output::PeerBack => {
                self.peer = PeerState::Present;
                self.notice(format!("{opponent} is back"));
            }
            Output::PeerGone { reason } => {
                self.peer = PeerState::Gone;
                self.notice(format!("{opponent} left the room ({reason}); q quits"));
            }
            Output::RelayRestarting { reconnect_after_ms } => {
                let seconds = reconnect_after_ms / 1000;
                self.notice(format!("The relay is restarting: reconnecting in {seconds} s"));
            }
            Output::RelayLost(detail) => {
                self.relay = RelayLink::Reconnecting;
                self.notice(format!("Lost the relay ({detail}): reconnecting"));
            }
            Output::Resumed { peer_here } => self.resumed(*peer_here),
            Output::RelayAlert(detail) => self.log.push(LogKind::Alert, format!("relay: {detail}")),
            Output::CommandError { command, message, .. } => {
                self.log.push(LogKind::Error, format!("{command}: {message}"));
            }
            Output::Building(tally) => self.notice(building_words(*tally)),
            Output::PoolListed { cards } => {
                for text in pool_lines(cards) {
                    self.notice(text);
                }
            }
            Output::DeckWritten(path) => self.notice(format!("Your deck is written to {}", path.display())),
            Output::Idle => self.notice("No exchange is pending"),
            Output::Browsing(open) => {
                let scroll = self.library.as_ref().map_or(0, |shown| shown.scroll);
                self.library = Some(LibraryView { scroll, ..LibraryView::new(open, engine) });
            }
            Output::TopWatch(watch) => self.notice(watch_words(*watch)),
            Output::BrowsingClosed(purpose) => {
                self.library = None;
                self.notice(format!("Your {} is over", purpose_name(*purpose)));
            }
            Output::Waiting(waiting) => self.waiting = waiting.clone(),
            Output::ForfeitGrace(left) => self.forfeit_grace(*left, &opponent),
            Output::ForfeitPossible { away } => {
                self.notice(format!("{opponent} has been away for {away} s: the command forfeit ends the game"));
            }
            Output::Overdue(Waiting { awaited, seconds }) => self.notice(format!(
                "{opponent} has not sent {awaited} for {seconds} s: the command forfeit ends the game"
            )),
            // The screen shows the whole table; the log says it in words, as `table` asked.
            Output::Table => {
                for text in table_lines(&self.table) {
                    self.notice(text);
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

    /// Takes in where `engine` stands: the table is built again only when the engine moved since it was last
    /// built (by its journal, to which every input that changes it is added), so the outputs of one batch (the
    /// events of the messages that arrived together) build it once.
    pub fn follow_engine<G: Group>(&mut self, engine: &Engine<G>) {
        let inputs = engine.journal().inputs.len();
        if self.table_inputs != Some(inputs) {
            self.table = TableView::from_engine(engine);
            self.table_inputs = Some(inputs);
            let played = self.table.me.play.iter().chain(&self.table.opponent.play);
            self.book.learn(played.filter_map(|played| played.card.name.as_deref()));
        }
        self.halted = engine.halted().map(str::to_string);
        let building = engine.is_building() || (self.pool_dealt && engine.is_ended());
        self.stage = if let Some(format) = engine.drafting() {
            Stage::Drafting(format)
        } else if building {
            Stage::Building
        } else {
            Stage::Playing
        };
        let ready = engine.is_ready();
        if self.setup.ready && !ready {
            // The next game of a match starts its set-up afresh.
            self.setup.shuffled = 0;
        }
        self.setup.ready = ready;
    }

    /// The watch code, and the relay's count of spectators; watching turned off is told once.
    fn spectators(&mut self, output: &Output) {
        match output {
            Output::WatchCode(code) => self.notice(format!("watch code: {code} (spectators: fairdeck watch {code})")),
            Output::Watchers { host, guest, open, delay } => {
                if !open && self.watchers.is_none_or(|before| before.open) {
                    self.notice("Watching is off in this game");
                }
                let count = u32::from(*host) + u32::from(*guest);
                self.watchers = Some(Watchers { count, open: *open, delay: *delay });
            }
            _ => {}
        }
    }

    fn notice(&mut self, text: impl Into<String>) {
        self.log.push(LogKind::Notice, text);
    }

    /// The deck file was read: its summary, and a line in the log.
    fn deck_read(&mut self, hash: &str, main: u32, sideboard: u32, commander: &[String]) {
        self.deck = Some((hash.to_string(), main, sideboard));
        let commander =
            if commander.is_empty() { String::new() } else { format!(", commander {}", commander.join(" and ")) };
        let sideboard = if sideboard == 0 { String::new() } else { format!(", {sideboard} in the sideboard") };
        self.notice(format!("Your deck: {main} cards{commander}{sideboard} (hash {hash})"));
    }

    /// Hosting: a guest came with a wrong code, and the game is open for the next one (`reopened`) or not.
    fn wrong_code_tried(&mut self, attempts: u32, reopened: bool) {
        self.peer = PeerState::Waiting;
        let message = if reopened {
            format!(
                "Someone tried a wrong code ({attempts} of {WRONG_CODES_PER_CODE}): the game stays open for the right one; new-code gives new words"
            )
        } else {
            format!("{attempts} wrong codes: someone may be guessing. Nobody joins until new-code gives new words")
        };
        self.log.push(LogKind::Alert, message);
    }

    fn wrong_watch_code_tried(&mut self, watcher: u8, failure: OpeningFailure, attempts: u32, closed: bool) {
        let how = match failure {
            OpeningFailure::WrongCode => "a wrong watch code",
            OpeningFailure::Replaced => "another try at its seat",
            OpeningFailure::Left => "gone before proving the watch code",
            OpeningFailure::Broken => "a broken key exchange",
        };
        let message = if closed {
            format!(
                "{attempts} wrong watch codes: someone may be guessing. No spectator comes in until new-watch-code gives new words; those watching go on"
            )
        } else {
            format!(
                "Spectator {watcher}: {how} ({attempts} of {WRONG_WATCH_CODES_PER_CODE}): watching stays open for the right code; new-watch-code gives new words"
            )
        };
        self.log.push(LogKind::Alert, message);
    }

    /// A saved game was read back: set-up is long done, and the log's memory starts from the table as it stands.
    /// A saved game read back: its log told again from its events (with the table as it stands now), then where
    /// it goes on.
    fn restored<G: Group>(&mut self, path: &Path, moves: u64, relay: &str, history: &[Event], engine: &Engine<G>) {
        self.story = Story::default();
        for event in history {
            self.apply_event(event, engine);
        }
        self.arrows = Default::default();
        // A save of an older game may not hold the events that told a label: the engine knows it still.
        let me = engine.seat();
        for (side, seat) in [me, me.opponent()].into_iter().enumerate() {
            if self.deck_labels[side].is_none() {
                let label = engine.deck_label(seat).map(|label| DeckLabel { label: clean(label), changed: false });
                self.deck_labels[side] = label;
            }
        }
        self.setup.channel = true;
        self.setup.hello = true;
        self.code = None;
        self.relay = RelayLink::Connecting;
        self.relay_url = relay.to_string();
        self.notice(format!("Game restored from {} after {moves} moves", path.display()));
    }

    /// The relay serves in this program: the log tells the URL to give the guest with the code.
    fn serving(&mut self, listen: SocketAddr, relay: Option<&str>) {
        match relay {
            Some(url) => {
                self.relay_url = url.to_string();
                self.notice(format!("Serving the relay here: the guest joins with --relay {url} and the code"));
            }
            None => self.notice(format!(
                "Serving the relay on port {port}, but no address of this machine was found: the guest joins with \
                 --relay ws://LAN-ADDRESS:{port}/v1 (this machine's address on your network) and the code",
                port = listen.port()
            )),
        }
    }

    /// At the game's rendezvous on the relay, with the opponent there or awaited.
    fn rendezvous(&mut self, peer_here: bool, opponent: &str) {
        self.relay = RelayLink::Up;
        if peer_here {
            self.peer = PeerState::Present;
            // Whether the game goes on is the opponent's next message's to say: it may be a forfeit claimed
            // while this player was away.
            let text = if self.table.over {
                format!("{opponent} is here; the game is over")
            } else {
                format!("{opponent} is here")
            };
            self.notice(text);
        } else {
            self.peer = PeerState::Away;
            self.notice(format!(
                "Waiting for {opponent} at the game's rendezvous (a player who quit comes back with fairdeck resume)"
            ));
        }
    }

    /// The seat was taken back after the link dropped.
    fn resumed(&mut self, peer_here: bool) {
        self.relay = RelayLink::Up;
        // Once the game is under way, the relay says whether the opponent is still there.
        if self.setup.channel {
            self.peer = if peer_here { PeerState::Present } else { PeerState::Away };
        }
        self.notice("Reconnected to the relay");
    }

    /// The count before `forfeit` may claim the absent opponent's game: the status line's, which the log tells
    /// once, as it begins.
    fn forfeit_grace(&mut self, left: Option<u64>, opponent: &str) {
        if let (None, Some(left)) = (self.forfeit_in, left) {
            self.notice(format!("{opponent} is away: forfeit possible in {left} s"));
        }
        self.forfeit_in = left;
    }

    /// A spectator's view: takes in an event of the observer, `source` its table after it. The table the view
    /// shows is built from `source` as a player's is from its engine.
    pub fn spectate(&mut self, event: &Event, source: &impl TableSource) {
        self.follow_source(source);
        self.apply_event(event, source);
    }

    /// Builds the table again from `source` as it stands: a spectator's, after each step.
    pub fn follow_source(&mut self, source: &impl TableSource) {
        self.table = TableView::from_engine(source);
    }

    fn apply_event(&mut self, event: &Event, engine: &impl TableSource) {
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

/// What watching the top card of the library now does, in words.
fn watch_words(watch: Option<TopWatch>) -> &'static str {
    match watch {
        Some(TopWatch::Look) => "You look at the top card of your library whenever it changes",
        Some(TopWatch::Reveal) => "You reveal the top card of your library whenever it changes",
        None => "You no longer watch the top card of your library",
    }
}

#[cfg(test)]
mod tests {
    use fairdeck_shared::Seat;
    use fairdeck_shared::crypto::{Modp2048, Ristretto255};
    use fairdeck_shared::engine::Intent;
    use fairdeck_shared::pair::{Pair, numbered_deck};
    use fairdeck_shared::wire::Action;

    use super::*;

    #[test]
    fn the_table_is_built_once_for_all_the_outputs_of_one_engine_state() {
        let mut pair = Pair::<Ristretto255>::new(numbered_deck("Host", 10, 0), numbered_deck("Guest", 10, 0), 3);
        pair.drive();
        let mut view = View::new("ws://relay");
        let seen = pair.host_events.len();
        view.apply(&Output::Idle, &pair.host);
        assert_eq!(view.table, TableView::from_engine(&pair.host));

        // A mark the engine's table never has: outputs of the same engine state leave the table built as it was.
        view.table.turn = 99;
        view.apply(&Output::Engine(Event::Pong), &pair.host);
        view.apply(&Output::Table, &pair.host);
        assert_eq!(view.table.turn, 99);

        // The engine moves on: its first output builds the table again.
        pair.intent(Seat::Host, Intent::Act(Action::Draw { count: 2 })).expect("a legal draw");
        pair.drive();
        for event in &pair.host_events[seen..] {
            view.apply(&Output::Engine(event.clone()), &pair.host);
        }
        assert_eq!(view.table, TableView::from_engine(&pair.host));
        assert_eq!(view.table.me.hand.len(), 2);
    }

    #[test]
    fn the_open_game_names_the_suite_the_cards_will_be_locked_with() {
        fn opened<G: Group>() -> String {
            let pair = Pair::<G>::new(numbered_deck("Host", 3, 0), numbered_deck("Guest", 3, 0), 3);
            let mut view = View::new("ws://relay");
            view.apply(&Output::Code("7-violin-ember".into()), &pair.host);
            view.log.lines().back().map(|line| line.text.clone()).unwrap_or_default()
        }
        let ristretto = opened::<Ristretto255>();
        assert!(ristretto.starts_with("Game open") && ristretto.ends_with("locked with ristretto255)"), "{ristretto}");
        let modp = opened::<Modp2048>();
        assert!(modp.ends_with("locked with modp2048)"), "{modp}");
    }

    #[test]
    fn a_relay_served_here_tells_the_url_to_give_or_asks_for_the_lan_address() {
        let pair = Pair::<Ristretto255>::new(numbered_deck("Host", 10, 0), numbered_deck("Guest", 10, 0), 3);
        let mut view = View::new("");
        let listen = "0.0.0.0:7171".parse().unwrap();
        view.apply(&Output::Serving { listen, relay: Some("ws://192.168.1.5:7171/v1".into()) }, &pair.host);
        view.apply(&Output::Serving { listen, relay: None }, &pair.host);
        let texts: Vec<&str> = view.log.lines().iter().map(|line| line.text.as_str()).collect();
        assert!(texts[0].contains("--relay ws://192.168.1.5:7171/v1 and the code"), "{texts:?}");
        assert!(texts[1].contains("--relay ws://LAN-ADDRESS:7171/v1"), "{texts:?}");
        assert_eq!(view.relay_url, "ws://192.168.1.5:7171/v1", "shown while connecting");
    }
}
