//! The steps of [`View::apply`](super::View::apply) that tell an output in the log, and what changes with them.

use std::net::SocketAddr;
use std::path::Path;

use fairdeck_shared::crypto::Group;
use fairdeck_shared::engine::{Engine, Event};

use super::{DeckLabel, PeerState, RelayLink, View, Watchers};
use crate::command::TopWatch;
use crate::session::spectators::{OpeningFailure, WRONG_WATCH_CODES_PER_CODE};
use crate::session::{Output, WRONG_CODES_PER_CODE};
use crate::text::clean;
use crate::ui::log::{LogKind, Story};

impl View {
    /// The host's game is open: the code to give, and the suite the cards will be locked with (the guest learns
    /// it from the host's hello; the host, who chose it, is told it here).
    pub(super) fn game_open<G: Group>(&mut self, code: &str) {
        self.relay = RelayLink::Up;
        self.code = Some(code.to_owned());
        self.notice(format!(
            "Game open: give the code above to the other player (the cards will be locked with {})",
            G::SUITE
        ));
    }

    /// The watch code, and the relay's count of spectators; watching turned off is told once.
    pub(super) fn spectators(&mut self, output: &Output) {
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

    pub(super) fn notice(&mut self, text: impl Into<String>) {
        self.log.push(LogKind::Notice, text);
    }

    /// The deck file was read: its summary, and a line in the log.
    pub(super) fn deck_read(&mut self, hash: &str, main: u32, sideboard: u32, commander: &[String]) {
        self.deck = Some((hash.to_string(), main, sideboard));
        let commander =
            if commander.is_empty() { String::new() } else { format!(", commander {}", commander.join(" and ")) };
        let sideboard = if sideboard == 0 { String::new() } else { format!(", {sideboard} in the sideboard") };
        self.notice(format!("Your deck: {main} cards{commander}{sideboard} (hash {hash})"));
    }

    /// Hosting: a guest came with a wrong code, and the game is open for the next one (`reopened`) or not.
    pub(super) fn wrong_code_tried(&mut self, attempts: u32, reopened: bool) {
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

    pub(super) fn wrong_watch_code_tried(&mut self, watcher: u8, failure: OpeningFailure, attempts: u32, closed: bool) {
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
    pub(super) fn restored<G: Group>(
        &mut self,
        path: &Path,
        moves: u64,
        relay: &str,
        history: &[Event],
        engine: &Engine<G>,
    ) {
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
    pub(super) fn serving(&mut self, listen: SocketAddr, relay: Option<&str>) {
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
    pub(super) fn rendezvous(&mut self, peer_here: bool, opponent: &str) {
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
    pub(super) fn resumed(&mut self, peer_here: bool) {
        self.relay = RelayLink::Up;
        // Once the game is under way, the relay says whether the opponent is still there.
        if self.setup.channel {
            self.peer = if peer_here { PeerState::Present } else { PeerState::Away };
        }
        self.notice("Reconnected to the relay");
    }

    /// The count before `forfeit` may claim the absent opponent's game: the status line's, which the log tells
    /// once, as it begins.
    pub(super) fn forfeit_grace(&mut self, left: Option<u64>, opponent: &str) {
        if let (None, Some(left)) = (self.forfeit_in, left) {
            self.notice(format!("{opponent} is away: forfeit possible in {left} s"));
        }
        self.forfeit_in = left;
    }
}

/// What watching the top card of the library now does, in words.
pub(super) fn watch_words(watch: Option<TopWatch>) -> &'static str {
    match watch {
        Some(TopWatch::Look) => "You look at the top card of your library whenever it changes",
        Some(TopWatch::Reveal) => "You reveal the top card of your library whenever it changes",
        None => "You no longer watch the top card of your library",
    }
}
