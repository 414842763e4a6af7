//! `fairdeck practice`: the table against a built-in opponent that does nothing but play the protocol (the
//! "goldfish" players test a deck against).
//!
//! Nothing is simulated: the practice game is a real game between two sessions in this process. A real relay
//! (the `fairdeck-relay` library) serves on a free loopback port; the player hosts through the ordinary session,
//! in the terminal table or scripted mode; the goldfish ([`goldfish`]) joins with the code the player's session
//! makes, which the player's front end hands over instead of showing it. The relay and the goldfish run on a
//! small runtime of their own, so the opponent's proofs are computed beside the player's and the relay keeps
//! forwarding while either computes.
//!
//! The goldfish's deck is the player's deck file: every check a deck goes through passes, and the opponent's
//! library is the size of a real one. In limited play it joins with the player's pool file instead: it is dealt its
//! own pool as any guest is, and builds its deck from it by itself (see [`goldfish`]). Both games are saved, as any session saves, but in a temporary folder that
//! goes when the practice ends: a practice game cannot be resumed (its opponent and relay end with this
//! process), so it never appears in `fairdeck games` or is picked up by `fairdeck resume`.

mod goldfish;

use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::time::Duration;

use fairdeck_shared::crypto::{Group, Suite};
use fairdeck_shared::engine::Engine;
use tokio::sync::{oneshot, watch};
use tokio::task::{JoinError, JoinHandle};

use crate::play::Play;
use crate::serve::{Background, LocalRelay};
use crate::session::{self, Brought, Frontend, Options, Output, Role, SessionError};

/// How long the goldfish gets to leave the room once the player's session is over.
const GOLDFISH_GRACE: Duration = Duration::from_secs(1);
/// Threads of the practice runtime: one may compute the goldfish's proofs while the other serves the relay.
const PRACTICE_THREADS: usize = 2;

/// Why a practice game could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum PracticeError {
    #[error("cannot make a temporary folder for the practice game")]
    Folder(#[source] std::io::Error),
    #[error("cannot start the practice game's threads")]
    Runtime(#[source] std::io::Error),
    #[error("cannot start the practice game's relay")]
    Relay(#[source] fairdeck_relay::RelayError),
}

/// A practice game, opened: its relay serves; the goldfish joins once [`Play::play`] runs the player's session.
pub struct Practice {
    player: Options,
    goldfish: goldfish::Place,
    relay: LocalRelay,
    runtime: Background,
    /// The relay's data and both saved games. Declared last: removed once everything else is gone.
    folder: tempfile::TempDir,
}

impl Practice {
    /// Opens a practice game for the player `name`, who hosts with what it `brought` (a deck file, or a pool file
    /// and its format); `record` as `--record`. The file is read when the game starts, so that a bad one is
    /// reported as in any game.
    pub fn start(brought: Brought, name: String, record: Option<PathBuf>) -> Result<Practice, PracticeError> {
        let folder = tempfile::Builder::new().prefix("fairdeck-practice-").tempdir().map_err(PracticeError::Folder)?;
        let runtime = Background::new(PRACTICE_THREADS, "fairdeck-practice").map_err(PracticeError::Runtime)?;
        let loopback = SocketAddr::from((Ipv4Addr::LOCALHOST, 0));
        let data_dir = folder.path().join("relay");
        let started = runtime.block_on(async move { LocalRelay::start(loopback, &data_dir).await });
        let relay = started.map_err(PracticeError::Relay)?;
        // The goldfish brings the same file; the format is the host's to offer.
        let goldfish_brings = match &brought {
            Brought::Deck(deck) => Brought::Deck(deck.clone()),
            Brought::Pool { file, .. } => Brought::Pool { file: file.clone(), offer: None },
        };
        let goldfish = goldfish::Place {
            brought: goldfish_brings,
            relay: relay.url().to_string(),
            games: folder.path().join("goldfish"),
            build: folder.path().join("goldfish-deck.txt"),
        };
        let player = Options {
            role: Role::Host { brought, suite: Suite::Ristretto255 },
            relay: Some(relay.url().to_string()),
            serve: None,
            games: folder.path().join("player"),
            name,
            record,
            ca: None,
            // The goldfish never passes the turn.
            untap_draw: false,
        };
        Ok(Practice { player, goldfish, relay, runtime, folder })
    }
}

impl Play for Practice {
    fn relay(&self) -> Option<&str> {
        Some(self.relay.url())
    }

    /// Runs the player's session with the goldfish beside it. The player's error comes first; else, if the
    /// goldfish stopped while the player was still playing (which ends the player's session as a `quit`
    /// would), why it stopped.
    async fn play<F: Frontend>(self, front: &mut F) -> Result<(), SessionError> {
        let Practice { player, goldfish, relay, runtime, folder } = self;
        let (code, code_rx) = oneshot::channel();
        let (quit, quit_rx) = watch::channel(false);
        let mut opponent = runtime.spawn(goldfish::play(goldfish, code_rx, quit_rx));
        let mut table = PlayerTable { front, code: Some(code), goldfish: &mut opponent, stopped: None };
        let outcome = session::run(player, &mut table).await;
        let stopped = table.stopped.take();
        drop(table);
        quit.send_replace(true);
        if stopped.is_none() && tokio::time::timeout(GOLDFISH_GRACE, &mut opponent).await.is_err() {
            opponent.abort();
        }
        relay.stop().await;
        drop(runtime);
        drop(folder);
        outcome?;
        match stopped {
            None => Ok(()),
            Some(Ok(Ok(()))) => Err(SessionError::Halted("the practice opponent left the game".into())),
            Some(Ok(Err(error))) => Err(SessionError::Halted(format!("the practice opponent stopped: {error}"))),
            Some(Err(error)) => Err(SessionError::Halted(format!("the practice opponent failed: {error}"))),
        }
    }
}

/// The player's front end in a practice game: the code goes to the goldfish, not to the screen, and the input
/// ends (an implicit `quit`) if the goldfish stops.
struct PlayerTable<'a, F> {
    front: &'a mut F,
    /// Until the code is made: where it goes.
    code: Option<oneshot::Sender<String>>,
    goldfish: &'a mut JoinHandle<Result<(), SessionError>>,
    /// The goldfish's outcome, once it stopped while the player played.
    stopped: Option<Result<Result<(), SessionError>, JoinError>>,
}

impl<F: Frontend> Frontend for PlayerTable<'_, F> {
    async fn next_line(&mut self) -> Option<String> {
        if self.stopped.is_some() {
            return None;
        }
        // Both are cancel-safe, as the session requires.
        tokio::select! {
            line = self.front.next_line() => line,
            outcome = &mut *self.goldfish => {
                self.stopped = Some(outcome);
                None
            }
        }
    }

    fn show<G: Group>(&mut self, output: Output, engine: &Engine<G>) -> std::io::Result<()> {
        match output {
            // The goldfish joins with it: the player has nobody to give it to. Only the first counts; the goldfish
            // is seated by then.
            Output::Code(code) => {
                if let Some(goldfish) = self.code.take() {
                    // A goldfish already gone is reported by `next_line`.
                    let _ = goldfish.send(code);
                }
                Ok(())
            }
            // "Saved as it goes, resume goes on": not for a practice game, whose opponent ends with the process.
            Output::Saved(_) => Ok(()),
            output => self.front.show(output, engine),
        }
    }
}

#[cfg(test)]
mod tests {
    use fairdeck_shared::Seat;
    use fairdeck_shared::crypto::Ristretto255;
    use fairdeck_shared::engine::EngineConfig;

    use super::*;

    /// A front end that records what it is shown and has `lines` to give.
    struct Recorder {
        shown: Vec<Output>,
        lines: Vec<String>,
    }

    impl Frontend for Recorder {
        async fn next_line(&mut self) -> Option<String> {
            match self.lines.pop() {
                Some(line) => Some(line),
                None => std::future::pending().await,
            }
        }

        fn show<G: Group>(&mut self, output: Output, _: &Engine<G>) -> std::io::Result<()> {
            self.shown.push(output);
            Ok(())
        }
    }

    fn engine() -> Engine<Ristretto255> {
        let deck = crate::deck::parse_deck("player.txt", "4 Lightning Bolt\n").unwrap().to_deck_list();
        let config = EngineConfig { name: "Ada".into(), software: "test".into() };
        Engine::new(Seat::HOST, config, deck, [3; 32]).unwrap()
    }

    #[tokio::test]
    async fn the_code_goes_to_the_goldfish_and_the_rest_to_the_player() {
        let mut player = Recorder { shown: Vec::new(), lines: vec!["draw 1".into()] };
        let mut goldfish = tokio::spawn(std::future::pending());
        let (code, mut code_rx) = oneshot::channel();
        let mut table = PlayerTable { front: &mut player, code: Some(code), goldfish: &mut goldfish, stopped: None };
        let engine = engine();
        for output in [
            Output::Code("7-violin-ember".into()),
            Output::Code("8-violin-ember".into()),
            Output::Saved("/tmp/game.fairdeck".into()),
            Output::Paired,
        ] {
            table.show(output, &engine).unwrap();
        }
        assert_eq!(table.next_line().await.as_deref(), Some("draw 1"));
        assert_eq!(code_rx.try_recv().as_deref(), Ok("7-violin-ember"), "the first code");
        assert_eq!(player.shown, [Output::Paired]);
        goldfish.abort();
    }

    #[tokio::test]
    async fn the_player_quits_when_the_goldfish_stops() {
        let mut player = Recorder { shown: Vec::new(), lines: Vec::new() };
        let mut goldfish = tokio::spawn(async { Err(SessionError::Halted("a breach".into())) });
        let mut table = PlayerTable { front: &mut player, code: None, goldfish: &mut goldfish, stopped: None };
        assert_eq!(table.next_line().await, None);
        assert_eq!(table.next_line().await, None, "and stays quit");
        assert!(matches!(table.stopped, Some(Ok(Err(SessionError::Halted(_))))));
    }
}
