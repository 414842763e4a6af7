//! Running the player's commands: each line waits in the queue until the table can take it (table commands
//! until set-up is done, `wait` until nothing is pending, `quit` a few seconds for the opponent's
//! acknowledgements), then goes to the engine as an intent; a card named by name is found on the table as it
//! is then. What a line means is [`crate::command`]'s.

use std::time::Duration;

use fairdeck_shared::crypto::CardInstance;
use fairdeck_shared::engine::{Input, Intent, IntentError};
use fairdeck_shared::table::{ZoneId, ZoneKind};
use fairdeck_shared::wire::Action;
use rand::Rng;

use super::claim::LinkAction;
use super::frontend::Output;
use super::start::read_deck;
use super::state::{Flow, SessionCore};
use crate::command::resolve::resolve;
use crate::command::{self, Command};

/// How long `quit` waits for the peer to acknowledge what was sent.
const QUIT_GRACE: Duration = Duration::from_secs(5);

impl SessionCore {
    /// Takes a line from the player into the queue; `None`, the end of the input, is a `quit` after the rest.
    pub fn take_line(&mut self, line: Option<String>) {
        match line {
            Some(line) => {
                let line = line.trim();
                if !line.is_empty() {
                    self.queue.push_back(line.to_string());
                }
            }
            None => {
                self.input_done = true;
                self.queue.push_back("quit".into());
            }
        }
    }

    /// Runs the next queued command if it can run: table commands wait for set-up, `wait` for idleness.
    pub(super) fn run_queue(&mut self) -> Flow {
        let Some(line) = self.queue.front().cloned() else { return Flow::Blocked };
        let command = match command::parse(&line, self.engine.seat()) {
            Ok(command) => command,
            Err(message) => {
                self.queue.pop_front();
                let error = Output::CommandError { kind: "bad_command", command: line, message };
                self.show(error);
                return Flow::Ran;
            }
        };
        let halted = self.engine.halted().is_some();
        let ready = self.engine.is_ready() || halted;
        match command {
            Command::Quit => {
                // Let what we sent reach the peer before leaving the room, but not forever (the
                // peer may be away): the core's timer brings us back here until the grace runs out. With the
                // link down nothing can be acknowledged: the game is saved, and it leaves at once.
                let deadline = *self.quit_deadline.get_or_insert_with(|| self.now + QUIT_GRACE);
                let pending = self.channel.unacked_frames() > 0 || self.engine.is_busy();
                if !halted && self.link.is_up() && pending && self.now < deadline {
                    return Flow::Blocked;
                }
                self.queue.pop_front();
                self.show(Output::Table);
                self.link_actions.push_back(LinkAction::Leave(None));
                return Flow::Quit;
            }
            Command::Wait => {
                let settled = halted || (ready && self.is_idle());
                if !settled {
                    return Flow::Blocked;
                }
                self.queue.pop_front();
                self.show(Output::Idle);
            }
            Command::Table => {
                self.queue.pop_front();
                self.show(Output::Table);
            }
            Command::NewCode => {
                self.queue.pop_front();
                self.new_code(&line);
            }
            Command::Chat(text) => {
                self.queue.pop_front();
                self.intent(Intent::Chat(text), &line);
            }
            Command::Ask(zone, count) => {
                self.queue.pop_front();
                self.intent(Intent::RequestReveal { zone, count }, &line);
            }
            Command::Refuse(zone) => {
                self.queue.pop_front();
                self.intent(Intent::RefuseReveal { zone }, &line);
            }
            Command::Act(action) => {
                if !ready {
                    return Flow::Blocked;
                }
                self.queue.pop_front();
                self.intent(Intent::Act(action), &line);
            }
            Command::PlayerValue { key, amount } => {
                if !ready {
                    return Flow::Blocked;
                }
                self.queue.pop_front();
                // A change is from the value on the table now: what both players see.
                let seat = self.engine.seat();
                let current = self.engine.table().player(seat).values.get(&key).copied().unwrap_or(0);
                let action = Action::SetPlayerValue { value: amount.apply(current), key };
                self.intent(Intent::Act(action), &line);
            }
            Command::Token { name, power_toughness, placement } => {
                if !ready {
                    return Flow::Blocked;
                }
                self.queue.pop_front();
                // A fresh nonce keeps two tokens of one name distinct cards.
                let mut nonce = [0; 16];
                rand::rng().fill_bytes(&mut nonce);
                let seat = self.engine.seat();
                let card = CardInstance { owner: seat, nonce, name, back: 0 };
                let to = ZoneId::new(seat, ZoneKind::Play);
                let action = Action::AddCard { card, to, placement, power_toughness };
                self.intent(Intent::Act(action), &line);
            }
            Command::OnCard(card, act) => {
                if !ready {
                    return Flow::Blocked;
                }
                self.queue.pop_front();
                match resolve(&self.engine, &card, &act).and_then(|card| act.action(&self.engine, card)) {
                    Ok(action) => {
                        self.intent(Intent::Act(action), &line);
                    }
                    Err(error) => {
                        let error =
                            Output::CommandError { kind: error.kind(), command: line, message: error.to_string() };
                        self.show(error);
                    }
                }
            }
            Command::WatchTop(watch) => {
                if !ready {
                    return Flow::Blocked;
                }
                self.queue.pop_front();
                self.set_top_watch(watch);
            }
            Command::Browse(..)
            | Command::Take(..)
            | Command::Place(..)
            | Command::Done
            | Command::RevealHand
            | Command::RevealTop => {
                // Cards are named as this player knows them once its peeks are answered.
                if !ready || (!halted && self.engine.is_busy()) {
                    return Flow::Blocked;
                }
                self.queue.pop_front();
                self.browse(command, &line);
            }
            Command::End => {
                if !ready {
                    return Flow::Blocked;
                }
                self.queue.pop_front();
                self.intent(Intent::EndGame, &line);
            }
            Command::Forfeit => {
                self.queue.pop_front();
                if let Some(message) = self.forfeit_refused() {
                    let error = Output::CommandError { kind: "refused", command: line, message };
                    self.show(error);
                    return Flow::Ran;
                }
                // Nothing awaited, but the opponent left and has not come back: its absence is the claim.
                let abandoned =
                    self.engine.awaiting_opponent().is_none() && !self.peer_here && self.channel.is_established();
                let claim = if abandoned { Intent::ClaimAbandoned } else { Intent::ClaimForfeit };
                self.intent(claim, &line);
            }
            Command::NewGame(file) => {
                self.queue.pop_front();
                match file.map(|path| read_deck(&path)).transpose() {
                    Ok(deck) => {
                        let deck = deck.map(|deck| deck.to_deck_list());
                        self.intent(Intent::NewGame(deck), &line);
                    }
                    Err(error) => {
                        let message = error.to_string();
                        let error = Output::CommandError { kind: "bad_deck", command: line.clone(), message };
                        self.show(error);
                    }
                }
            }
        }
        Flow::Ran
    }

    /// Why `forfeit` is refused now, if it is: the opponent is away, and has not been for the whole
    /// [`FORFEIT_GRACE`](super::FORFEIT_GRACE) (it may be coming back), or the relay has not said yet whether
    /// it is here. An opponent who is here but silent is the engine's to judge, by what it owes.
    fn forfeit_refused(&self) -> Option<String> {
        if self.peer_here || !self.channel.is_established() {
            return None;
        }
        let opponent = self.opponent.as_deref().unwrap_or("the opponent");
        let now = self.now;
        let Some(left) = self.absence.forfeit_in(now) else {
            return Some(format!("the relay has not said yet whether {opponent} is here: forfeit once it has"));
        };
        if left.is_zero() {
            return None;
        }
        let away = self.absence.away_for(now).unwrap_or_default().as_secs();
        let left = left.as_millis().div_ceil(1000);
        Some(format!("{opponent} left {away} s ago and may be coming back: forfeit is possible in {left} s"))
    }

    /// Nothing in flight: no exchange, nothing the engine has yet to hand over (an action just taken), nothing
    /// unacknowledged, nothing the top-card watch still has to do.
    fn is_idle(&self) -> bool {
        !self.engine.is_busy()
            && !self.engine.has_output()
            && self.channel.unacked_frames() == 0
            && self.top_watch_due().is_none()
    }

    /// Hands an intent to the engine; a refusal is shown. Whether the engine took it.
    pub(super) fn intent(&mut self, intent: Intent, line: &str) -> bool {
        let Err(error) = self.engine.handle(Input::Intent { intent: intent.clone() }) else {
            self.show(Output::Taken(intent));
            return true;
        };
        let kind = match error {
            IntentError::NotReady => "not_ready",
            IntentError::Halted(_) => "halted",
            _ => "refused",
        };
        let error = Output::CommandError { kind, command: line.to_string(), message: error.to_string() };
        self.show(error);
        false
    }
}
