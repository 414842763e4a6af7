//! The goldfish: the practice game's opponent. It joins the player's game as a guest, through the same session as
//! any player, and plays the whole protocol honestly: its engine locks and shuffles its deck, strips its layer
//! off the player's cards, shuffles under proof and takes part in every random round, all by itself. Its front
//! end issues no table action; it only gives the answers the engine leaves to a player:
//!
//! - limited play, its pool dealt: it builds its deck with `build`, as a player does, from a deck file it writes
//!   ([`limited_deck`]);
//! - a new game asked for: it agrees, with the same deck;
//! - a request to see its cards: it refuses, showing nothing as it does nothing. Its hand is empty unless the
//!   player put cards there (it never draws), and no player may reveal cards of its library, which it does not
//!   know itself;
//! - the player ended the game (revealing the deck key for the audit): it ends the game too, so the player's
//!   table audits the goldfish's deck in turn;
//! - the player left the room, or the practice game tells it to stop: it quits.
//!
//! Anything else (chat, the turn passed to it, its cards moved) it lets be.

use std::collections::VecDeque;
use std::fmt::Write;
use std::path::PathBuf;

use fairdeck_shared::crypto::Group;
use fairdeck_shared::engine::{Engine, Event};
use fairdeck_shared::wire::{BasicLand, GridLine};
use tokio::sync::{oneshot, watch};

use crate::command::table;
use crate::session::{self, Brought, Frontend, Options, Output, Role, SessionError};

/// The goldfish's name at the table.
pub(super) const NAME: &str = "Goldfish";
/// Limited play: the pool cards the goldfish's deck takes, and the deck's size with its basic lands.
const LIMITED_SPELLS: usize = 23;
const LIMITED_DECK: usize = 40;
/// The basic land that fills its limited deck: it casts nothing, so no colour is better than another.
const LIMITED_LAND: BasicLand = BasicLand::Wastes;

/// Where the goldfish plays, but for the code, which the player's session makes.
pub(super) struct Place {
    /// The player's deck file, or its pool file with no format (the host offers it).
    pub(super) brought: Brought,
    pub(super) relay: String,
    /// Where its session saves the game: the practice game's temporary folder.
    pub(super) games: PathBuf,
    /// Limited play: where it writes the deck it builds, for its `build`.
    pub(super) build: PathBuf,
}

/// Joins the game of the code that `code` brings and plays until the player quits (`quit` becomes true, or its
/// sender goes) or leaves. `Ok` without playing when the code never comes (the player's session stopped first).
/// A goldfish whose engine stopped, or whose answer was refused, stops with that reason: the player's table
/// would otherwise wait on it for ever.
pub(super) async fn play(
    place: Place,
    code: oneshot::Receiver<String>,
    quit: watch::Receiver<bool>,
) -> Result<(), SessionError> {
    let Ok(code) = code.await else { return Ok(()) };
    let options = Options {
        role: Role::Join { code, brought: place.brought },
        relay: Some(place.relay),
        serve: None,
        games: place.games,
        name: NAME.to_string(),
        record: None,
        ca: None,
        untap_draw: false,
    };
    let mut goldfish =
        Goldfish { answers: VecDeque::new(), quit, leaving: false, failed: None, held: None, build: place.build };
    session::run(options, &mut goldfish).await?;
    match goldfish.failed {
        Some(reason) => Err(SessionError::Halted(reason)),
        None => Ok(()),
    }
}

/// The goldfish's front end: the answers it owes, as command lines.
struct Goldfish {
    answers: VecDeque<String>,
    quit: watch::Receiver<bool>,
    /// The player left the room: nothing more will come.
    leaving: bool,
    /// Why it cannot go on, if it cannot.
    failed: Option<String>,
    /// Its choice to play or draw, made before the set-up is done: held until it is (see `show`).
    held: Option<String>,
    /// Where it writes its limited deck.
    build: PathBuf,
}

impl Goldfish {
    /// The answer the engine leaves to the player, if `event` calls for one.
    fn answer<G: Group>(event: &Event, engine: &Engine<G>) -> Option<String> {
        match event {
            Event::NewGameRequested => Some(table::NEW_GAME.name.to_string()),
            Event::RevealRequested { zone, .. } if zone.owner == engine.seat() => {
                Some(format!("{} {}", table::REFUSE.name, zone.kind.name()))
            }
            Event::Audited { seat, .. } if *seat != engine.seat() && !engine.is_ended() => {
                Some(table::END.name.to_string())
            }
            // Chosen by the coin, it lets the player play first: the game being practised is the player's.
            Event::Chooser { seat, .. } if *seat == engine.seat() => Some(table::DRAW_FIRST.name.to_string()),
            // Drafting, in its turn: a line of the grid with a card left, every Winston pile it looks at (a take
            // is never refused, where a pass may be), a card of every pack shown to it.
            Event::Grid { cells, picker: Some(seat), .. } if *seat == engine.seat() => grid_pick(cells),
            Event::PileShown { .. } => Some(format!("{} take", table::PILE.name)),
            Event::Pack { cards, .. } => pack_pick(cards),
            _ => None,
        }
    }

    /// Its pool dealt: writes its deck from `pool` and builds it, through the same `build` as a player's.
    fn build(&mut self, pool: &[String]) {
        match std::fs::write(&self.build, limited_deck(pool)) {
            Ok(()) => self.answers.push_back(format!("{} {}", table::BUILD.name, self.build.display())),
            Err(error) => {
                let file = self.build.display();
                self.failed.get_or_insert_with(|| format!("cannot write its deck file {file}: {error}"));
            }
        }
    }
}

/// A card of the pack: the one its cards (which both players' shuffles laid out at random) point to, as for a grid.
fn pack_pick(cards: &[String]) -> Option<String> {
    let seed = cards.iter().map(String::len).sum::<usize>();
    (!cards.is_empty()).then(|| format!("{} {}", table::PICK.name, seed % cards.len() + 1))
}

/// A line of the grid with a card left: among them, the one the grid's cards (which both players' shuffles laid out
/// at random) point to.
fn grid_pick(cells: &[Option<String>]) -> Option<String> {
    let lines = (0..3).map(GridLine::Row).chain((0..3).map(GridLine::Column));
    let left = |line: &GridLine| line.cells().iter().any(|&cell| cells.get(cell).is_some_and(Option::is_some));
    let open: Vec<GridLine> = lines.filter(left).collect();
    let seed = cells.iter().flatten().map(String::len).sum::<usize>();
    let line = open.get(seed % open.len().max(1))?;
    let (kind, n) = match line {
        GridLine::Row(n) => ("row", n),
        GridLine::Column(n) => ("column", n),
    };
    Some(format!("{} {kind} {}", table::PICK.name, n + 1))
}

/// The goldfish's limited deck, as a plain-text deck file: the first [`LIMITED_SPELLS`] cards of its pool as dealt
/// (a random pick, the deal being shuffled), or the whole pool if smaller, and basic lands up to [`LIMITED_DECK`]
/// cards. The rest of the pool is its sideboard.
fn limited_deck(pool: &[String]) -> String {
    let spells = &pool[..pool.len().min(LIMITED_SPELLS)];
    let mut text = String::new();
    for name in spells {
        let _ = writeln!(text, "1 {name}");
    }
    // Never under 17: a deck takes at most 23 pool cards.
    let lands = LIMITED_DECK - spells.len();
    let _ = writeln!(text, "{lands} {}", LIMITED_LAND.name());
    text
}

impl Frontend for Goldfish {
    async fn next_line(&mut self) -> Option<String> {
        if self.failed.is_some() || self.leaving {
            return None;
        }
        if let Some(answer) = self.answers.pop_front() {
            return Some(answer);
        }
        // Nothing to answer until the session shows something: wait for the player to quit. A dropped sender
        // (the practice game is over) quits as well.
        let _quit_or_gone = self.quit.wait_for(|quit| *quit).await;
        None
    }

    fn show<G: Group>(&mut self, output: Output, engine: &Engine<G>) -> std::io::Result<()> {
        match &output {
            Output::Engine(Event::Pool { cards }) => self.build(cards),
            Output::Engine(event) => {
                let answer = Goldfish::answer(event, engine);
                // `draw-first` waits in the session's queue until the set-up is done, and every line behind it
                // too: in limited play the set-up waits on the goldfish's `build`, which would be stuck behind it.
                if matches!(event, Event::Chooser { .. }) && !engine.is_ready() {
                    self.held = answer;
                } else {
                    self.answers.extend(answer);
                }
                if matches!(event, Event::Ready) {
                    self.answers.extend(self.held.take());
                }
            }
            Output::PeerGone { .. } => self.leaving = true,
            Output::CommandError { command, message, .. } => {
                self.failed.get_or_insert_with(|| format!("its answer `{command}` was refused: {message}"));
            }
            _ => {}
        }
        if let Some(reason) = engine.halted() {
            self.failed.get_or_insert_with(|| reason.to_string());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use fairdeck_shared::Seat;
    use fairdeck_shared::crypto::Ristretto255;
    use fairdeck_shared::engine::{ChosenBy, EngineConfig};
    use fairdeck_shared::table::{ZoneId, ZoneKind};

    use super::*;
    use crate::command::ErrorKind;

    fn engine() -> Engine<Ristretto255> {
        let deck = crate::deck::parse_deck("goldfish.txt", "4 Lightning Bolt\n").unwrap().to_deck_list();
        let config = EngineConfig { name: NAME.into(), software: "test".into() };
        Engine::new(Seat::GUEST, config, deck, [7; 32]).unwrap()
    }

    fn new_goldfish() -> (Goldfish, watch::Sender<bool>) {
        let (quit, receiver) = watch::channel(false);
        let build = PathBuf::from("/nonexistent/goldfish-deck.txt");
        (Goldfish { answers: VecDeque::new(), quit: receiver, leaving: false, failed: None, held: None, build }, quit)
    }

    fn pool(cards: usize) -> Vec<String> {
        (1..=cards).map(|n| format!("Card {n}")).collect()
    }

    /// What the goldfish says after being shown `outputs`: its lines until it waits.
    async fn answers(goldfish: &mut Goldfish, outputs: Vec<Output>) -> Vec<String> {
        let engine = engine();
        for output in outputs {
            goldfish.show(output, &engine).unwrap();
        }
        let mut lines = Vec::new();
        while let Ok(Some(line)) =
            tokio::time::timeout(std::time::Duration::from_millis(50), goldfish.next_line()).await
        {
            lines.push(line);
        }
        lines
    }

    #[tokio::test]
    async fn drafting_it_picks_a_line_with_cards_left_in_its_turn_takes_every_pile_and_a_card_of_every_pack() {
        let (mut goldfish, _quit) = new_goldfish();
        let mut cells: Vec<Option<String>> = (0..9).map(|i| Some(format!("Card {i}"))).collect();
        for cell in [0, 1, 2, 3, 6] {
            cells[cell] = None;
        }
        let outputs = vec![
            // The player's turn: nothing to say.
            Output::Engine(Event::Grid { grid: 0, cells: cells.clone(), picker: Some(Seat::HOST) }),
            Output::Engine(Event::Grid { grid: 0, cells, picker: Some(Seat::GUEST) }),
            Output::Engine(Event::PileShown { pile: 1, cards: vec!["Card 1".into()] }),
            // Another's pick of a pack: nothing to say. A pack shown to it: a card of it.
            Output::Engine(Event::CardTaken { by: Seat::HOST, pack: 0, card: None }),
            Output::Engine(Event::Pack { pack: 1, cards: vec!["Card 1".into(), "Card 2".into(), "Card 3".into()] }),
        ];
        let lines = answers(&mut goldfish, outputs).await;
        assert_eq!(lines.len(), 3, "{lines:?}");
        assert!(["pick 1", "pick 2", "pick 3"].contains(&lines[2].as_str()), "{lines:?}");
        // Row 1 and column 1 are empty; any other line holds a card.
        assert!(
            ["pick row 2", "pick row 3", "pick column 2", "pick column 3"].contains(&lines[0].as_str()),
            "{lines:?}"
        );
        assert_eq!(lines[1], "pile take");
    }

    #[tokio::test]
    async fn it_answers_what_the_engine_leaves_to_a_player_and_nothing_else() {
        let (mut goldfish, _quit) = new_goldfish();
        let outputs = vec![
            Output::Engine(Event::Chat { from: Seat::HOST, text: "hello".into() }),
            Output::Engine(Event::RevealRequested { zone: ZoneId::hand(Seat::GUEST), count: None }),
            Output::Engine(Event::RevealRequested { zone: ZoneId::library(Seat::GUEST), count: Some(3) }),
            // Not its zone: nothing to refuse.
            Output::Engine(Event::RevealRequested { zone: ZoneId::new(Seat::HOST, ZoneKind::Hand), count: None }),
            Output::Engine(Event::Audited { seat: Seat::HOST, deck: Vec::new() }),
            // Its own deck audited: the player answered its `end`.
            Output::Engine(Event::Audited { seat: Seat::GUEST, deck: Vec::new() }),
            Output::Engine(Event::NewGameRequested),
            // The player chooses: nothing to say. The goldfish chooses: the player plays first.
            Output::Engine(Event::Chooser { seat: Seat::HOST, by: ChosenBy::Coin }),
            Output::Engine(Event::Chooser { seat: Seat::GUEST, by: ChosenBy::Coin }),
            // Its choice is held until the set-up is done.
            Output::Engine(Event::Ready),
        ];
        assert_eq!(
            answers(&mut goldfish, outputs).await,
            ["refuse hand", "refuse library", "end", "new-game", "draw-first"]
        );
        assert!(goldfish.failed.is_none());
    }

    #[tokio::test]
    async fn it_quits_when_told_when_the_player_leaves_and_when_an_answer_is_refused() {
        let (mut goldfish, quit) = new_goldfish();
        let waiting = tokio::time::timeout(std::time::Duration::from_millis(50), goldfish.next_line()).await;
        assert!(waiting.is_err(), "with nothing to answer it waits");
        quit.send_replace(true);
        assert_eq!(goldfish.next_line().await, None);

        let (mut goldfish, _quit) = new_goldfish();
        assert!(answers(&mut goldfish, vec![Output::PeerGone { reason: "left" }]).await.is_empty());
        assert!(goldfish.failed.is_none());

        let (mut goldfish, _quit) = new_goldfish();
        let refused = Output::CommandError {
            kind: ErrorKind::Refused,
            command: "new-game".into(),
            message: "a new game is already asked for".into(),
        };
        let lines = answers(&mut goldfish, vec![Output::Engine(Event::NewGameRequested), refused]).await;
        assert!(lines.is_empty(), "{lines:?}");
        assert_eq!(
            goldfish.failed.as_deref(),
            Some("its answer `new-game` was refused: a new game is already asked for")
        );
    }

    #[test]
    fn its_limited_deck_is_the_first_23_pool_cards_and_basic_lands_to_40() {
        for (dealt, spells) in [(45, 23), (23, 23), (10, 10)] {
            let pool = pool(dealt);
            let deck = crate::deck::parse_deck("goldfish.txt", &limited_deck(&pool)).unwrap();
            assert_eq!(deck.main_count(), 40, "{dealt} dealt");
            assert_eq!(deck.sideboard_count(), 0, "the rest of the pool is left out: the engine sideboards it");
            let names: Vec<&str> = deck.main.iter().map(|entry| entry.name.as_str()).collect();
            let lands = crate::deck::DeckEntry { count: 40 - spells as u32, name: "Wastes".into() };
            assert_eq!(names[..spells], pool[..spells], "{dealt} dealt");
            assert_eq!(deck.main[spells..], [lands], "{dealt} dealt");
        }
    }

    #[tokio::test]
    async fn its_pool_dealt_it_builds_from_the_deck_file_it_wrote() {
        let folder = tempfile::tempdir().unwrap();
        let (mut goldfish, _quit) = new_goldfish();
        goldfish.build = folder.path().join("goldfish-deck.txt");
        let dealt = Output::Engine(Event::Pool { cards: pool(30) });
        let lines = answers(&mut goldfish, vec![dealt]).await;
        assert_eq!(lines, [format!("build {}", goldfish.build.display())]);
        assert_eq!(std::fs::read_to_string(&goldfish.build).unwrap(), limited_deck(&pool(30)));
        assert!(goldfish.failed.is_none());

        // The coin made it the chooser before the deal: its choice waits for the set-up, so that its build, which
        // the set-up waits on, goes first.
        let (mut goldfish, _quit) = new_goldfish();
        goldfish.build = folder.path().join("goldfish-deck.txt");
        let chooser = Output::Engine(Event::Chooser { seat: Seat::GUEST, by: ChosenBy::Coin });
        let dealt = Output::Engine(Event::Pool { cards: pool(30) });
        assert_eq!(answers(&mut goldfish, vec![chooser, dealt]).await, [format!("build {}", goldfish.build.display())]);
        assert_eq!(answers(&mut goldfish, vec![Output::Engine(Event::Ready)]).await, ["draw-first"]);

        // A deck file it cannot write: it stops, saying why, rather than leave the table waiting on its build.
        let (mut goldfish, _quit) = new_goldfish();
        let lines = answers(&mut goldfish, vec![Output::Engine(Event::Pool { cards: pool(30) })]).await;
        assert!(lines.is_empty(), "{lines:?}");
        let reason = goldfish.failed.as_deref().unwrap();
        assert!(reason.starts_with("cannot write its deck file /nonexistent/goldfish-deck.txt"), "{reason}");
    }
}
