//! The terminal table's model: what the player sees, built from the session's outputs and the engine's
//! table. Pure data and pure updates, so tests build it from real engines and check it without a
//! terminal.
//!
//! | file | job |
//! |---|---|
//! | `mod.rs` | [`View`], and how it takes in the session's outputs and the engine's events |
//! | `notices.rs` | the steps of [`View::apply`] that tell an output in the log, and what changes with them |
//! | `status.rs` | what is shown around the table: [`Stage`], [`RelayLink`], [`PeerState`], [`Setup`], [`Prompt`], [`Overlay`] |
//! | `pile.rs` | what the player looks through: a [`Pile`], the open search's [`LibraryView`] |
//! | `scrolls.rs` | what scrolls ([`Panel`]) and how far ([`Scrolls`]) |
//! | `log_pane.rs` | the [`Log`] as the screen keeps it |

mod log_pane;
mod notices;
mod pile;
mod scrolls;
mod status;

use fairdeck_shared::crypto::Group;
use fairdeck_shared::engine::{Engine, Event, GameEnd};
use fairdeck_shared::table::CardId;

pub(crate) use log_pane::Log;
use notices::watch_words;
pub(crate) use pile::LibraryView;
pub use pile::Pile;
pub use scrolls::Panel;
pub(crate) use scrolls::Scrolls;
pub(crate) use status::{DeckLabel, PeerState, Prompt, RelayLink, Setup, Watchers};
pub use status::{Overlay, Stage};

use super::arrows::Arrows;
use super::card_book::CardBook;
use super::log::{LogKind, Story, building_words, pool_lines, table_lines};
use super::table_view::{TableSource, TableView};
use crate::session::{Output, Waiting, purpose_name};
use crate::text::clean;

/// Set-up shuffles one library per player; the engine's `SetupProgress` confirms the total.
const LIBRARIES: u32 = 2;

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
        pair.intent(Seat::HOST, Intent::Act(Action::Draw { count: 2 })).expect("a legal draw");
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
