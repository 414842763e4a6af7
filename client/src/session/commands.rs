//! Running the player's commands: each line is read once into the queue, where it waits until its gate opens
//! (table commands until set-up is done, `wait` until nothing is pending, `quit` a few seconds for the
//! opponent's acknowledgements), then runs, one per step of the core. What a line means, when it may run and
//! what it does are [`crate::command`]'s; here are the queue, the gates as the session judges them, and what
//! commands share: an intent handed to the engine, a refusal shown.

use std::path::Path;
use std::time::Duration;

use fairdeck_shared::crypto::CardInstance;
use fairdeck_shared::crypto::Group;
use fairdeck_shared::engine::{Input, Intent, IntentError};
use fairdeck_shared::table::{Placement, PowerToughness, ZoneId, ZoneKind};
use fairdeck_shared::wire::Action;
use rand::Rng;

use super::building::{Refusal, deck_text};
use super::claim::LinkAction;
use super::files::{FileAnswer, FileRequest};
use super::frontend::Output;
use super::state::{Flow, SessionCore};
use super::timers::Timer;
use crate::command::{self, Amount, BuildStep, Command, Entered, ErrorKind, Gate, Parsed, Placing, UndoStep};
use crate::deck::{Deck, Swap, Swapped};

/// How long `quit` waits for the peer to acknowledge what was sent.
const QUIT_GRACE: Duration = Duration::from_secs(5);

/// Does what the parsed line asks, its gate open: an intent for the engine, or what the session does itself; `line`
/// is quoted by a refusal, `answer` is the driver's to the file the command asked for. A refusal is shown, not
/// returned: the session goes on.
fn run<G: Group>(
    Parsed { spec, command }: Parsed,
    session: &mut SessionCore<G>,
    line: &str,
    answer: Option<FileAnswer>,
) -> Flow {
    let mut give = |intent| {
        session.intent(intent, line);
    };
    match command {
        Command::Act(action) => give(Intent::Act(action)),
        Command::Chat(text) => give(Intent::Chat(text)),
        Command::Ask(zone, count) => give(Intent::RequestReveal { zone, count }),
        Command::Refuse(zone) => give(Intent::RefuseReveal { zone }),
        Command::Undo(UndoStep::Ask) => give(Intent::AskUndo),
        Command::Undo(step) => give(Intent::AnswerUndo(step == UndoStep::Accept)),
        Command::End => give(Intent::EndGame),
        Command::OnCard(card, act) => {
            let engine = &session.engine;
            match act.find(engine, &card).and_then(|card| act.action(engine, card)) {
                Ok(action) => {
                    session.intent(Intent::Act(action), line);
                }
                Err(error) => session.refuse(error.kind(), line, error.to_string()),
            }
        }
        Command::PlayerValue { key, amount } => session.set_player_value(key, amount, line),
        Command::Token { name, power_toughness, placement } => {
            session.put_token(name, power_toughness, placement, line)
        }
        Command::OnTable(act) => match act.actions(&session.engine) {
            Ok(actions) => {
                let then = act.then(&actions);
                if session.intents(actions, line)
                    && let Some(then) = then
                {
                    // First in the queue: it runs once what was just handed in is answered (its gate).
                    let parsed = Ok(Parsed { spec, command: Command::OnTable(then) });
                    session.commands.push_front(Entered { line: line.to_string(), parsed });
                }
            }
            Err(message) => session.refuse(ErrorKind::Refused, line, message),
        },
        Command::Browse(purpose, count) => session.open_browsing(purpose, count, line),
        Command::Take(card, zone) => session.take_browsed(card, zone, line),
        // No scry open: the London mulligan's cards from the hand.
        Command::Place(Placing::Bottom, cards) if session.browsing.is_none() => {
            match command::hand_to_bottom(&session.engine, &cards) {
                Ok(actions) => {
                    session.intents(actions, line);
                }
                Err((kind, message)) => session.refuse(kind, line, message),
            }
        }
        Command::Place(placing, cards) => session.place_browsed(placing, &cards, line),
        Command::Done if session.done_builds() => session.finish_build(answer, line),
        Command::Done => session.close_browsing(line),
        Command::RevealHand => session.reveal_hand(line),
        Command::RevealTop => session.reveal_top(line),
        Command::WatchTop(watch) => session.set_top_watch(watch),
        Command::Forfeit => session.forfeit(line),
        Command::NewGame(file) => session.new_game(file.as_deref(), answer, line),
        Command::Sideboard(swap) => session.sideboard(&swap, line),
        Command::Build(file) => session.build(&file, answer, line),
        Command::Pick(grid_line) => {
            session.intent(Intent::Pick(grid_line), line);
        }
        Command::Pile(choice) => {
            session.intent(Intent::Pile(choice), line);
        }
        Command::TakeCard(card) => match session.limited.pack_card(&card) {
            Ok(n) => {
                session.intent(Intent::TakeCard(n), line);
            }
            Err((kind, message)) => session.refuse(kind, line, message),
        },
        Command::Building(step) => session.building(step, line),
        Command::NewCode => session.new_code(line),
        Command::Watch(step) => session.watch_command(step, line),
        Command::Table => session.show(Output::Table),
        Command::Wait => session.show(Output::Idle),
        Command::Quit => {
            session.show(Output::Table);
            return Flow::Quit;
        }
    }
    Flow::Ran
}

impl<G: Group> SessionCore<G> {
    /// Takes a line from the player into the queue, read once; `None`, the end of the input, is a `quit` after the
    /// rest.
    pub fn take_line(&mut self, line: Option<String>) {
        self.commands.take_line(line, self.engine.seat());
    }

    /// Runs the next queued command if its gate is open (a line that did not parse is reported in its turn). A
    /// command with a file asks the driver for it first, and runs once answered.
    pub(super) fn run_queue(&mut self) -> Flow {
        let Some(Entered { parsed, .. }) = self.commands.head() else { return Flow::Blocked };
        if let Ok(parsed) = parsed
            && (self.waits_for_suite(&parsed.command) || !self.may_run(self.gate(&parsed.command)))
        {
            return Flow::Blocked;
        }
        if let Some(Entered { parsed: Ok(parsed), .. }) = self.commands.head()
            && !self.commands.answered()
            && let Some(request) = self.file_request(&parsed.command)
        {
            self.commands.ask();
            self.outbox.file(request);
            return Flow::Asked;
        }
        let Some((Entered { line, parsed }, answer)) = self.commands.pop() else { return Flow::Blocked };
        let parsed = match parsed {
            Ok(parsed) => parsed,
            Err(message) => {
                self.refuse(ErrorKind::BadCommand, &line, message);
                return Flow::Ran;
            }
        };
        let flow = run(parsed, self, &line, answer);
        if let Flow::Quit = flow {
            self.outbox.link(LinkAction::Leave(None));
        }
        flow
    }

    /// The file `command` needs before it runs, if any: a deck file to read, or the deck built to write (unless
    /// `done` is refused before).
    fn file_request(&self, command: &Command) -> Option<FileRequest> {
        match command {
            Command::NewGame(Some(path)) => {
                // A limited deck is checked by its pool, not by a constructed deck's rules.
                let checked = self.limited.pool_hash().is_none();
                Some(FileRequest::ReadDeck { path: path.clone(), checked })
            }
            Command::Build(path) => Some(FileRequest::ReadDeck { path: path.clone(), checked: false }),
            Command::Done if self.done_builds() => {
                let deck = self.deck_to_send()?.ok()?;
                Some(FileRequest::WriteDeck { text: deck_text(&deck), pool: self.limited.pool_hash() })
            }
            _ => None,
        }
    }

    /// When `command` may run: its own gate, but for a `done` that sends the deck built from the pool, at once.
    fn gate(&self, command: &Command) -> Gate {
        match command {
            Command::Done if self.done_builds() => Gate::Always,
            command => command.gate(),
        }
    }

    /// Whether `done` sends the deck built from the pool: in limited play, with no search, scry or surveil open.
    fn done_builds(&self) -> bool {
        self.browsing.is_none() && self.limited.build().is_some()
    }

    /// Whether a command waiting at `gate` may run now.
    fn may_run(&mut self, gate: Gate) -> bool {
        let halted = self.engine.halted().is_some();
        let set_up = self.engine.is_ready() || halted;
        match gate {
            Gate::Always => true,
            Gate::SetUp => set_up,
            Gate::Settled => set_up && (halted || !self.engine.is_busy()),
            // A player building its limited deck, or picking in a draft, is what the table waits on: nothing else is pending.
            Gate::Idle => {
                let player = self.engine.is_building() || self.engine.waits_on_a_pick();
                halted || ((set_up || player) && self.is_idle())
            }
            Gate::Acknowledged => {
                // Let what we sent reach the peer before leaving the room, but not forever (the peer may be
                // away): the core's timer brings us back here until the grace runs out. With the link down
                // nothing can be acknowledged: the game is saved, and it leaves at once.
                let deadline = self.timers.get(Timer::Quit).unwrap_or(self.now + QUIT_GRACE);
                self.timers.set(Timer::Quit, Some(deadline));
                let pending = self.channel.unacked_frames() > 0 || self.engine.is_busy();
                halted || !self.uplink.is_up() || !pending || self.now >= deadline
            }
        }
    }

    /// `forfeit`: claims the game against the opponent's silence, or its absence once the grace passed.
    pub(super) fn forfeit(&mut self, line: &str) {
        if let Some(message) = self.forfeit_refused() {
            return self.refuse(ErrorKind::Refused, line, message);
        }
        // Nothing awaited, but the opponent left and has not come back: its absence is the claim.
        let abandoned =
            self.engine.awaiting_opponent().is_none() && !self.clocks.peer_here() && self.channel.is_established();
        let claim = if abandoned { Intent::ClaimAbandoned } else { Intent::ClaimForfeit };
        self.intent(claim, line);
    }

    /// `new-game [DECKFILE]`: asks for the next game, with the deck of that file, or the one `sideboard` left, or
    /// the same one; `answer` is the driver's to the file read.
    pub(super) fn new_game(&mut self, file: Option<&Path>, answer: Option<FileAnswer>, line: &str) {
        match file.map(|file| FileAnswer::into_deck(answer, file)).transpose() {
            Ok(read) => {
                let deck = read.map(|read| {
                    read.warnings.into_iter().for_each(|warning| self.show(warning));
                    read.deck.to_deck_list()
                });
                let deck = deck.or_else(|| self.sideboarded.clone());
                if self.intent(Intent::NewGame(deck), line) {
                    self.sideboarded = None;
                }
            }
            Err(error) => self.refuse(ErrorKind::BadDeck, line, error.to_string()),
        }
    }

    /// `sideboard in … out …`: the next game's deck, cards traded between main deck and sideboard, from the deck
    /// last sideboarded or else this game's. Limited play sideboards with `add`, `remove` and `done`.
    pub(super) fn sideboard(&mut self, swap: &Swap, line: &str) {
        if self.limited.pool_hash().is_some() {
            let message = "in limited play, change your deck with add and remove, then done".to_string();
            return self.refuse(ErrorKind::Refused, line, message);
        }
        let deck = self.sideboarded.as_ref().unwrap_or(self.engine.deck());
        match crate::deck::sideboard(deck, swap) {
            Ok(Swapped { deck, cards_in, cards_out }) => {
                let output = Output::Sideboarded {
                    cards_in,
                    cards_out,
                    main: deck.library.len() as u32,
                    sideboard: deck.sideboard.len() as u32,
                    hash: deck.label.clone(),
                };
                self.sideboarded = Some(deck);
                self.show(output);
            }
            Err(message) => self.refuse(ErrorKind::Refused, line, message),
        }
    }

    /// `build DECKFILE`: this player's deck from its pool; `answer` is the driver's to the file read.
    pub(super) fn build(&mut self, file: &Path, answer: Option<FileAnswer>, line: &str) {
        match FileAnswer::into_deck(answer, file) {
            Ok(read) => {
                self.intent(Intent::Build(read.deck.to_deck_list()), line);
            }
            Err(error) => self.refuse(ErrorKind::BadDeck, line, error.to_string()),
        }
    }

    /// `add`, `remove`, `basics` and `pool`: the deck built from the pool changed, or the pool shown.
    fn building(&mut self, step: BuildStep, line: &str) {
        let build = match self.limited.build_mut() {
            Ok(build) => build,
            Err(message) => return self.refuse(ErrorKind::Refused, line, message),
        };
        let shown = match step {
            BuildStep::Add(count, name) => build.add(count, &name).map(Output::Building),
            BuildStep::Remove(count, name) => build.remove(count, &name).map(Output::Building),
            BuildStep::AddPool => Ok(Output::Building(build.add_pool())),
            BuildStep::RemoveAll => Ok(Output::Building(build.remove_all())),
            BuildStep::Basics(lands) => Ok(Output::Building(build.set_basics(&lands))),
            BuildStep::ShowPool => Ok(Output::PoolListed { cards: build.listing() }),
        };
        match shown {
            Ok(output) => self.show(output),
            Err((kind, message)) => self.refuse(kind, line, message),
        }
    }

    /// `done` in limited play: the deck built is written to a deck file of its own (`answer` is the driver's) and
    /// sent, as the first game's deck or, once a game is over, the next one's (sideboarding). A deck the engine
    /// refuses leaves no file.
    fn finish_build(&mut self, answer: Option<FileAnswer>, line: &str) {
        let deck = match self.deck_to_send() {
            Some(Ok(deck)) => deck,
            Some(Err((kind, message))) => return self.refuse(kind, line, message),
            None => return self.close_browsing(line),
        };
        let path = match FileAnswer::into_path(answer) {
            Ok(path) => path,
            Err(message) => return self.refuse(ErrorKind::Refused, line, message),
        };
        let list = deck.to_deck_list();
        let intent = if self.engine.is_building() { Intent::Build(list) } else { Intent::NewGame(Some(list)) };
        if self.intent(intent, line) {
            self.show(Output::DeckWritten(path));
        } else {
            self.outbox.file(FileRequest::Remove(path));
        }
    }

    /// The deck `done` sends in limited play, or why it is refused: the first game's deck while building, else
    /// the next one's once a game is over. `None` outside limited play.
    fn deck_to_send(&self) -> Option<Result<Deck, Refusal>> {
        let build = self.limited.build()?;
        if !self.engine.is_building() && !self.engine.is_ended() {
            let message = "your deck for this game is in: sideboard once the game is over (`end`)".to_string();
            return Some(Err((ErrorKind::Refused, message)));
        }
        Some(build.deck())
    }

    /// Why `forfeit` is refused now, if it is: the opponent is away, and has not been for the whole
    /// [`FORFEIT_GRACE`](super::FORFEIT_GRACE) (it may be coming back), or the relay has not said yet whether
    /// it is here. An opponent who is here but silent is the engine's to judge, by what it owes.
    fn forfeit_refused(&self) -> Option<String> {
        if self.clocks.peer_here() || !self.channel.is_established() {
            return None;
        }
        let opponent = self.opponent.as_deref().unwrap_or("the opponent");
        let now = self.now;
        let Some(left) = self.clocks.forfeit_in(now) else {
            return Some(format!("the relay has not said yet whether {opponent} is here: forfeit once it has"));
        };
        if left.is_zero() {
            return None;
        }
        let away = self.clocks.away_for(now).unwrap_or_default().as_secs();
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

    /// `life`, `poison` and the like: a change is from the value on the table now, what both players see.
    fn set_player_value(&mut self, key: String, amount: Amount, line: &str) {
        let seat = self.engine.seat();
        let current = self.engine.table().player(seat).values.get(&key).copied().unwrap_or(0);
        self.intent(Intent::Act(Action::SetPlayerValue { value: amount.apply(current), key }), line);
    }

    /// `token`: a new card of the player's in its play area.
    fn put_token(&mut self, name: String, power_toughness: Option<PowerToughness>, placement: Placement, line: &str) {
        // A fresh nonce keeps two tokens of one name distinct cards.
        let mut nonce = [0; 16];
        self.rng.fill_bytes(&mut nonce);
        let seat = self.engine.seat();
        let card = CardInstance { owner: seat, nonce, name, back: 0 };
        let to = ZoneId::new(seat, ZoneKind::Play);
        self.intent(Intent::Act(Action::AddCard { card, to, placement, power_toughness }), line);
    }

    /// Hands `actions` to the engine in turn, stopping at the first it refuses. Whether it took them all.
    pub(super) fn intents(&mut self, actions: impl IntoIterator<Item = Action>, line: &str) -> bool {
        actions.into_iter().all(|action| self.intent(Intent::Act(action), line))
    }

    /// Hands an intent to the engine; a refusal is shown. Whether the engine took it.
    pub(super) fn intent(&mut self, intent: Intent, line: &str) -> bool {
        let Err(error) = self.engine.handle(Input::Intent { intent: intent.clone() }) else {
            // A limited deck taken, from `done` or a deck file: the next build starts from it.
            if let Intent::Build(deck) | Intent::NewGame(Some(deck)) = &intent
                && let Ok(build) = self.limited.build_mut()
            {
                build.follow(deck);
            }
            self.show(Output::Taken(intent));
            return true;
        };
        let kind = match error {
            IntentError::NotReady => ErrorKind::NotReady,
            IntentError::Halted(_) => ErrorKind::Halted,
            IntentError::NotInPool(_) => ErrorKind::NotInPool,
            _ => ErrorKind::Refused,
        };
        self.refuse(kind, line, error.to_string());
        false
    }

    /// Shows that the command `line` was refused before it changed anything.
    pub(super) fn refuse(&mut self, kind: ErrorKind, line: &str, message: String) {
        self.show(Output::CommandError { kind, command: line.to_string(), message });
    }
}
