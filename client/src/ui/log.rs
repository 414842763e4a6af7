//! The log's words for the engine's events, from this player's point of view ("You drew 2 cards",
//! "Ada tapped #12 Forest").

use fairdeck_shared::Seat;
use fairdeck_shared::crypto::Group;
use fairdeck_shared::engine::{ChosenBy, Engine, Event, GameEnd};
use fairdeck_shared::table::{CardId, ZoneId, ZoneKind};
use fairdeck_shared::wire::{Action, ArrowTarget, PeekPurpose};

/// One line of the log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogLine {
    pub kind: LogKind,
    pub text: String,
}

/// What a log line is, which decides how it looks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogKind {
    /// A table action by either player.
    Action,
    Chat,
    /// Something the player must not miss: a cheat caught, the opponent looking at or moving the
    /// player's cards.
    Alert,
    /// A command that failed.
    Error,
    /// Connection and set-up news.
    Notice,
    /// A command the player entered, echoed.
    Command,
}

/// The log line for an event, or `None` for events the screen shows elsewhere (set-up progress, the
/// cards this player draws into their own hand) or not at all.
pub fn describe<G: Group>(event: &Event, engine: &Engine<G>) -> Option<LogLine> {
    let words = Words { engine };
    let line = |kind, text: String| Some(LogLine { kind, text });
    match event {
        Event::Connected { name, software } => line(LogKind::Notice, format!("Connected to {name} ({software})")),
        Event::SetupProgress { .. } => None,
        Event::Ready => line(LogKind::Notice, "Both libraries are shuffled and verified: the table is ready".into()),
        Event::Applied { by, action, .. } => {
            words.action(*by, action).map(|text| LogLine { kind: LogKind::Action, text })
        }
        Event::Rejected { action, reason } => {
            line(LogKind::Error, format!("The host refused your action ({}): {reason}", verb(action)))
        }
        Event::Learned { card, instance } => {
            // News are the opponent's cards and those of one's own library (a peek); one's other cards
            // were known already, or are in the hand pane now.
            let me = engine.seat();
            let news =
                instance.owner != me || engine.table().card(*card).is_some_and(|c| c.zone == ZoneId::library(me));
            let text = format!("You see {card} {} ({})", instance.name, words.zone_of(*card));
            news.then_some(LogLine { kind: LogKind::Action, text })
        }
        Event::Shuffled { library } => line(LogKind::Notice, format!("{} library is shuffled", words.whose(*library))),
        Event::Rolled { by, dice, faces } => {
            let list: Vec<String> = faces.iter().map(u32::to_string).collect();
            let total: u64 = faces.iter().map(|&f| u64::from(f)).sum();
            let dice = format!("{}d{}", dice.count(), dice.sides());
            line(LogKind::Action, format!("{} rolled {dice}: {} (total {total})", words.who(*by), list.join(", ")))
        }
        Event::Flipped { by, coin } => {
            line(LogKind::Action, format!("{} flipped a coin: {}", words.who(*by), format!("{coin:?}").to_lowercase()))
        }
        Event::ShownAtRandom { by, card } => {
            line(LogKind::Action, format!("{} shows {} at random", words.who(*by), words.card(*card)))
        }
        Event::Chat { from, text } => line(LogKind::Chat, format!("<{}> {text}", words.name(*from))),
        Event::RevealRequested { zone, count } => {
            let how_many = count.map(|n| format!("{n} cards of ")).unwrap_or_default();
            let asker = words.name(engine.seat().opponent());
            line(LogKind::Alert, format!("{asker} asks to see {how_many}{}", words.zone(*zone)))
        }
        Event::RevealRefused { zone } => {
            line(LogKind::Notice, format!("{} refused to show {}", words.name(zone.owner), words.zone(*zone)))
        }
        Event::NewGameRequested => line(
            LogKind::Notice,
            format!("{} asks for a new game (type new-game [DECKFILE] to agree)", words.name(engine.seat().opponent())),
        ),
        Event::ForfeitClaimed { by, awaited } => {
            let loser = words.name(by.opponent());
            line(
                LogKind::Alert,
                format!("{} ended the game: {loser} forfeits, having not sent {awaited}", words.name(*by)),
            )
        }
        Event::NewGame { number } => line(LogKind::Notice, format!("Game {number} starts: new decks are shuffled")),
        Event::Audited { seat, deck } => line(
            LogKind::Notice,
            format!("{} deck checked out against its sealed list ({} cards)", words.whose(*seat), deck.len()),
        ),
        Event::GameOver { loser, how } => {
            let how = match how {
                GameEnd::Conceded => "conceded",
                GameEnd::Forfeited => "forfeited",
            };
            line(
                LogKind::Notice,
                format!("Game over: {} {how}, {} wins", words.name(*loser), words.name(loser.opponent())),
            )
        }
        Event::Chooser { seat, by } => {
            let by = match by {
                ChosenBy::Coin => "a fair coin decided",
                ChosenBy::PreviousLoser => "having lost the last game",
            };
            line(LogKind::Notice, format!("{} chooses to play or draw ({by})", words.name(*seat)))
        }
        Event::DeckLabel { seat, label, changed } => {
            let changed = if *changed { " — a different deck from the last game" } else { "" };
            line(LogKind::Notice, format!("{} deck: {label}{changed}", words.whose(*seat)))
        }
        Event::Alert(alert) => {
            let stop = if alert.kind.is_misbehaviour() { " — the game is stopped" } else { "" };
            line(LogKind::Alert, format!("{}: {}{stop}", words_of_name(alert.kind.name()), alert.detail))
        }
        other => unlisted(other),
    }
}

/// `pong`, which says nothing to the player, and events newer than this screen (the engine grows):
/// the latter are logged by name, so that nothing happens unseen.
fn unlisted(event: &Event) -> Option<LogLine> {
    if matches!(event, Event::Pong) {
        return None;
    }
    let debug = format!("{event:?}");
    let name: String = debug.chars().take_while(char::is_ascii_alphanumeric).collect();
    Some(LogLine { kind: LogKind::Notice, text: words_of(&name) })
}

/// A variant's name in words: `MovedYourCards` becomes "Moved your cards".
fn words_of(name: &str) -> String {
    let mut words = String::new();
    for (i, c) in name.chars().enumerate() {
        if i > 0 && c.is_uppercase() {
            words.push(' ');
            words.extend(c.to_lowercase());
        } else {
            words.push(c);
        }
    }
    words
}

/// A stable snake_case name in words: `moved_your_cards` becomes "Moved your cards".
fn words_of_name(name: &str) -> String {
    let words = name.replace('_', " ");
    let mut chars = words.chars();
    chars.next().map_or_else(String::new, |first| first.to_uppercase().chain(chars).collect())
}

/// A short name for an action, for refusals.
fn verb(action: &Action) -> String {
    let debug = format!("{action:?}");
    debug.chars().take_while(char::is_ascii_alphanumeric).collect::<String>().to_lowercase()
}

/// Names seats, zones and cards from the point of view of the engine's player.
struct Words<'a, G: Group> {
    engine: &'a Engine<G>,
}

impl<G: Group> Words<'_, G> {
    /// The subject of a sentence: "You" or the opponent's name.
    fn who(&self, seat: Seat) -> String {
        if seat == self.engine.seat() { "You".into() } else { self.name(seat) }
    }

    fn name(&self, seat: Seat) -> String {
        let name = &self.engine.table().player(seat).name;
        match (seat == self.engine.seat(), name.is_empty()) {
            (true, _) => "you".into(),
            (false, true) => "the opponent".into(),
            (false, false) => name.clone(),
        }
    }

    /// "Your" or "Ada's".
    fn whose(&self, seat: Seat) -> String {
        if seat == self.engine.seat() { "Your".into() } else { format!("{}'s", self.name(seat)) }
    }

    fn zone(&self, zone: ZoneId) -> String {
        let owner =
            if zone.owner == self.engine.seat() { "your".into() } else { format!("{}'s", self.name(zone.owner)) };
        format!("{owner} {}", zone.kind.name())
    }

    fn zone_of(&self, card: CardId) -> String {
        self.engine.table().card(card).map(|c| self.zone(c.zone)).unwrap_or_else(|| "gone".into())
    }

    /// "#12 Forest", or "#12" for a card this player does not know.
    fn card(&self, card: CardId) -> String {
        match self.engine.identity(card) {
            Some(instance) => format!("{card} {}", instance.name),
            None => card.to_string(),
        }
    }

    fn action(&self, by: Seat, action: &Action) -> Option<String> {
        let who = self.who(by);
        let text = match action {
            Action::Draw { count } => format!("{who} drew {}", cards(*count)),
            Action::Move { card, to, placement, .. } if to.kind == ZoneKind::Play => {
                let down = if placement.face_down { " face down" } else { "" };
                let (x, y) = (placement.x, placement.y);
                format!("{who} put {} into {} at {x},{y}{down}", self.card(*card), self.zone(*to))
            }
            Action::Move { card, to, .. } => format!("{who} moved {} to {}", self.card(*card), self.zone(*to)),
            Action::Rearrange { card, index } => {
                format!("{who} moved {} to place {index} of its zone", self.card(*card))
            }
            Action::Shuffle { .. } => format!("{who} shuffled {} library", self.possessive(by)),
            Action::Peek { count, purpose } => {
                let library = self.possessive(by);
                match purpose {
                    PeekPurpose::Look => format!("{who} looked at the top {} of {library} library", cards(*count)),
                    PeekPurpose::Scry => format!("{who} scried {count} ({library} library)"),
                    PeekPurpose::Surveil => format!("{who} surveilled {count} ({library} library)"),
                    PeekPurpose::Search => format!("{who} searched {library} library"),
                }
            }
            Action::Reveal { cards: shown, to } => {
                let names: Vec<String> = shown.iter().map(|c| self.card(*c)).collect();
                let audience = match to {
                    None => String::new(),
                    Some(seat) => format!(" to {}", self.name(*seat)),
                };
                format!("{who} revealed {}{audience}", names.join(", "))
            }
            Action::TakeFromLibrary { count } => {
                format!(
                    "{who} took the top {} of {} library, face down",
                    cards(*count),
                    self.whose(by.opponent()).to_lowercase()
                )
            }
            Action::ShowRandom => format!("{who} asked to show a random card of {} hand", self.possessive(by)),
            Action::Tap { card, tapped } => {
                format!("{who} {} {}", if *tapped { "tapped" } else { "untapped" }, self.card(*card))
            }
            Action::SetCardValue { card, key, value: Some(value) } => {
                format!("{who} set {key} to {value} on {}", self.card(*card))
            }
            Action::SetCardValue { card, key, value: None } => format!("{who} removed {key} from {}", self.card(*card)),
            Action::SetPlayerValue { key, value } => format!("{who} set {} {key} to {value}", self.possessive(by)),
            Action::SetPhase { phase } => format!("{who} moved to the {phase} phase"),
            Action::NextTurn => format!("{who} passed the turn (turn {})", self.engine.table().turn),
            // The outcome comes as its own event, with the faces.
            Action::Roll { .. } | Action::Flip => return None,
            Action::Mulligan { draw } => format!("{who} took a mulligan and drew {}", cards(*draw)),
            Action::AddCard { card, to, power_toughness: None, .. } => {
                format!("{who} created {} in {}", card.name, self.zone(*to))
            }
            Action::AddCard { card, to, power_toughness: Some(pt), .. } => {
                format!("{who} created {} {pt} in {}", card.name, self.zone(*to))
            }
            Action::UntapAll => format!("{who} untapped all {} cards", self.possessive(by)),
            Action::Attach { card, to: Some(host) } => {
                format!("{who} attached {} to {}", self.card(*card), self.card(*host))
            }
            Action::Attach { card, to: None } => format!("{who} detached {}", self.card(*card)),
            Action::Arrow { from, to: ArrowTarget::Card(card) } => {
                format!("{who} pointed from {} to {}", self.card(*from), self.card(*card))
            }
            Action::Arrow { from, to: ArrowTarget::Player(seat) } => {
                format!("{who} pointed from {} to {}", self.card(*from), self.name(*seat))
            }
            Action::Concede => format!("{who} conceded the game"),
            Action::PlayOrDraw { play: true } => format!("{who} chose to play first"),
            Action::PlayOrDraw { play: false } => format!("{who} chose to draw (the opponent plays first)"),
        };
        Some(text)
    }

    /// "your" or "their", after a subject.
    fn possessive(&self, seat: Seat) -> &'static str {
        if seat == self.engine.seat() { "your" } else { "their" }
    }
}

fn cards(count: u32) -> String {
    if count == 1 { "1 card".into() } else { format!("{count} cards") }
}
