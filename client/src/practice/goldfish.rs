//! The goldfish: the practice game's opponent. It joins the player's game as a guest, through the same session as
//! any player, and plays the whole protocol honestly: its engine locks and shuffles its deck, strips its layer
//! off the player's cards, shuffles under proof and takes part in every random round, all by itself. Its front
//! end issues no table action; it only gives the answers the engine leaves to a player:
//!
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
use std::path::PathBuf;

use fairdeck_shared::crypto::Ristretto255;
use fairdeck_shared::engine::{Engine, Event};
use tokio::sync::{oneshot, watch};

use crate::command::table;
use crate::session::{self, Brought, Frontend, Options, Output, Role, SessionError};

/// The goldfish's name at the table.
pub(super) const NAME: &str = "Goldfish";

/// Where the goldfish plays, but for the code, which the player's session makes.
pub(super) struct Place {
    /// Its deck: a copy of the player's deck file (see `practice`).
    pub(super) deck: PathBuf,
    pub(super) relay: String,
    /// Where its session saves the game: the practice game's temporary folder.
    pub(super) games: PathBuf,
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
        role: Role::Join { code, brought: Brought::Deck(place.deck) },
        relay: Some(place.relay),
        games: place.games,
        name: NAME.to_string(),
        record: None,
        ca: None,
    };
    let mut goldfish = Goldfish { answers: VecDeque::new(), quit, leaving: false, failed: None };
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
}

impl Goldfish {
    /// The answer the engine leaves to the player, if `event` calls for one.
    fn answer(event: &Event, engine: &Engine<Ristretto255>) -> Option<String> {
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
            _ => None,
        }
    }
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

    fn show(&mut self, output: Output, engine: &Engine<Ristretto255>) -> std::io::Result<()> {
        match &output {
            Output::Engine(event) => self.answers.extend(Goldfish::answer(event, engine)),
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
    use fairdeck_shared::engine::{ChosenBy, EngineConfig};
    use fairdeck_shared::table::{ZoneId, ZoneKind};

    use super::*;
    use crate::command::ErrorKind;

    fn engine() -> Engine<Ristretto255> {
        let deck = crate::deck::parse_deck("goldfish.txt", "4 Lightning Bolt\n").unwrap().to_deck_list();
        let config = EngineConfig { name: NAME.into(), software: "test".into() };
        Engine::new(Seat::Guest, config, deck, [7; 32]).unwrap()
    }

    fn new_goldfish() -> (Goldfish, watch::Sender<bool>) {
        let (quit, receiver) = watch::channel(false);
        (Goldfish { answers: VecDeque::new(), quit: receiver, leaving: false, failed: None }, quit)
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
    async fn it_answers_what_the_engine_leaves_to_a_player_and_nothing_else() {
        let (mut goldfish, _quit) = new_goldfish();
        let outputs = vec![
            Output::Engine(Event::Ready),
            Output::Engine(Event::Chat { from: Seat::Host, text: "hello".into() }),
            Output::Engine(Event::RevealRequested { zone: ZoneId::hand(Seat::Guest), count: None }),
            Output::Engine(Event::RevealRequested { zone: ZoneId::library(Seat::Guest), count: Some(3) }),
            // Not its zone: nothing to refuse.
            Output::Engine(Event::RevealRequested { zone: ZoneId::new(Seat::Host, ZoneKind::Hand), count: None }),
            Output::Engine(Event::Audited { seat: Seat::Host, deck: Vec::new() }),
            // Its own deck audited: the player answered its `end`.
            Output::Engine(Event::Audited { seat: Seat::Guest, deck: Vec::new() }),
            Output::Engine(Event::NewGameRequested),
            // The player chooses: nothing to say. The goldfish chooses: the player plays first.
            Output::Engine(Event::Chooser { seat: Seat::Host, by: ChosenBy::Coin }),
            Output::Engine(Event::Chooser { seat: Seat::Guest, by: ChosenBy::Coin }),
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
}
