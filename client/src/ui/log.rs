//! The log's words for the engine's events, from this player's point of view ("You drew 2 cards",
//! "Bea moved your #12 Forest from your play area to your graveyard"). Where a card came from is the event's
//! to say (the engine's table may be ahead of the events told); the log keeps what the events do not carry: the
//! alert the engine raised about the action that comes next.

#[cfg(test)]
mod tests;
mod words;

use fairdeck_shared::crypto::CardInstance;
use fairdeck_shared::engine::{Alert, ChosenBy, DifferenceCheck, Event, GameEnd, Intent};
use fairdeck_shared::table::{CardId, ZoneId};
use fairdeck_shared::wire::{Action, Awaited, DeckDifference, PeekPurpose};
use fairdeck_shared::{Seat, SeatMap};

use self::words::{Words, top_cards};
pub use self::words::{building_words, pool_lines, table_lines};
use crate::ui::table_view::TableSource;

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

/// What the log remembers between events to tell them.
#[derive(Clone, Debug, Default)]
pub(crate) struct Story {
    /// The engine's alert about the opponent's action on this player's cards: it comes before the action's
    /// `Applied`, whose sentence then is the alert.
    alert: Option<Alert>,
    /// Cards of this player's library it is about to learn in a search, scry or surveil: the view lists them,
    /// so the log does not (a search would fill it).
    browsed: u32,
}

impl Story {
    /// The log lines for an event (usually one), which `engine` shows the table after.
    pub fn tell(&mut self, event: &Event, engine: &impl TableSource) -> Vec<LogLine> {
        let words = Words { engine };
        match event {
            Event::Alert(alert) if !alert.kind.is_misbehaviour() => {
                // An alert still waiting for its action would be lost: it is told as it came.
                let flushed = self.alert.replace(alert.clone());
                flushed.map(|alert| LogLine { kind: LogKind::Alert, text: words.alert(&alert) }).into_iter().collect()
            }
            Event::Applied { by, action, moved, .. } => {
                if words.is_me(*by) {
                    // Cards already known are not learned again: what is left of a count ends with the next
                    // action.
                    self.browsed = match action {
                        Action::Peek { count, purpose } if *purpose != PeekPurpose::Look => *count,
                        _ => 0,
                    };
                }
                let alert = self.alert.take();
                let kind = if alert.is_some() { LogKind::Alert } else { LogKind::Action };
                let text = words.action(*by, action, moved).or_else(|| alert.map(|alert| words.alert(&alert)));
                text.map(|text| LogLine { kind, text }).into_iter().collect()
            }
            Event::Learned { card, .. }
                if self.browsed > 0 && words.place(*card).is_some_and(|p| p.zone == ZoneId::library(engine.seat())) =>
            {
                self.browsed -= 1;
                Vec::new()
            }
            _ => describe(event, &words).into_iter().collect(),
        }
    }

    /// The log line for an intent of this player's that the engine took, if no event tells it.
    pub fn taken(&self, intent: &Intent, engine: &impl TableSource) -> Option<LogLine> {
        // The player's own chat line reads as the opponent sees it.
        if let Intent::Chat(text) = intent {
            let name = &engine.table().player(engine.seat()).name;
            return Some(LogLine { kind: LogKind::Chat, text: format!("<{name}> {text}") });
        }
        let words = Words { engine };
        words.taken(intent).map(|text| LogLine { kind: LogKind::Notice, text })
    }
}

/// The log line for an event told on its own (all but actions and the alerts about them), or `None` for
/// events the screen shows elsewhere (set-up progress, the cards this player draws into their own hand) or not
/// at all.
fn describe(event: &Event, words: &Words<impl TableSource>) -> Option<LogLine> {
    let engine = words.engine;
    let line = |kind, text: String| Some(LogLine { kind, text });
    let them = words.name(engine.seat().opponent());
    match event {
        Event::Connected { name, software, suite } => {
            line(LogKind::Notice, format!("Connected to {name} ({software}); the cards are locked with {suite}"))
        }
        Event::SetupProgress { .. } => None,
        Event::Ready => line(LogKind::Notice, "Both libraries are shuffled and verified: the table is ready".into()),
        Event::Rejected { action, reason } => {
            line(LogKind::Error, format!("The host refused your action ({}): {reason}", action.name()))
        }
        Event::Learned { card, instance } => learned(*card, instance, words),
        Event::Shuffled { library } => line(LogKind::Notice, format!("{} library is shuffled", words.whose(*library))),
        Event::Rolled { by, dice, faces } => {
            let list: Vec<String> = faces.iter().map(u32::to_string).collect();
            let total: u64 = faces.iter().map(|&f| u64::from(f)).sum();
            let dice = format!("{}d{}", dice.count(), dice.sides());
            line(LogKind::Action, format!("{} rolled {dice}: {} (total {total})", words.who(*by), list.join(", ")))
        }
        Event::Flipped { by, coin } => line(LogKind::Action, format!("{} flipped a coin: {coin}", words.who(*by))),
        Event::ShownAtRandom { by, card } => {
            line(LogKind::Action, format!("{} showed {} at random", words.who(*by), words.card(*card, None)))
        }
        Event::Chat { from, text } => line(LogKind::Chat, format!("<{}> {text}", words.name(*from))),
        Event::RevealRequested { .. }
        | Event::RevealRefused { .. }
        | Event::UndoAsked { .. }
        | Event::UndoRefused { .. }
        | Event::UndoLapsed { .. }
        | Event::Undone { .. } => request_line(event, words),
        Event::NewGameRequested => {
            line(LogKind::Notice, format!("{them} asks for a new game (type new-game [DECKFILE] to agree)"))
        }
        Event::ForfeitClaimed { by, awaited } => line(LogKind::Alert, forfeit_claimed(*by, awaited, words)),
        Event::NewGame { number } => line(LogKind::Notice, format!("Game {number} starts: new decks are shuffled")),
        Event::GameOver { loser, how } => {
            let winner = loser.opponent();
            let wins = if words.is_me(winner) { "you win".to_string() } else { format!("{them} wins") };
            line(LogKind::Notice, format!("Game over: {} {}, {wins}", words.who(*loser), lost_by(*how)))
        }
        Event::Chooser { seat, by } => line(LogKind::Notice, chooser(*seat, *by, words)),
        Event::Audited { seat, deck } => line(
            LogKind::Notice,
            format!("{} deck checked out against its sealed list ({} cards)", words.whose(*seat), deck.len()),
        ),
        Event::DeckLabel { seat, label, changed } => {
            let changed = if *changed { " — CHANGED DECK: not the match's 75" } else { "" };
            line(LogKind::Notice, format!("{} deck: {label}{changed}", words.whose(*seat)))
        }
        Event::DeckDiffers { seat, game, difference, check } => {
            line(doubt(*seat, words), deck_differs(*seat, *game, difference, *check, words))
        }
        Event::AuditMissing { seat, game } => line(doubt(*seat, words), audit_missing(*seat, *game, words)),
        Event::Alert(alert) => line(LogKind::Alert, words.alert(alert)),
        Event::LimitedAgreed { format, pool } => {
            line(LogKind::Notice, format!("Limited play: {format}, from pool file {pool}; dealing the pools"))
        }
        Event::Grid { grid, cells, picker } => line(LogKind::Notice, grid_words(*grid, cells, *picker, words)),
        Event::Picked { by, grid, line: taken, cards } => {
            line(LogKind::Notice, format!("{} took {taken} of grid {}: {}", words.who(*by), grid + 1, cards.join(", ")))
        }
        Event::Winston { piles, stack, looking } => {
            line(LogKind::Notice, winston_words(*piles, *stack, *looking, words))
        }
        Event::PileShown { pile, cards } => {
            line(LogKind::Notice, format!("Pile {} holds: {} (pile take, or pile pass)", pile + 1, cards.join(", ")))
        }
        Event::PileTaken { by, pile, count, cards } => {
            let from =
                pile.map_or_else(|| "the top card of the stack".to_string(), |pile| format!("pile {}", pile + 1));
            let what = if cards.is_empty() { format!("{count} card(s)") } else { cards.join(", ") };
            line(LogKind::Notice, format!("{} took {from}: {what}", words.who(*by)))
        }
        Event::Packs { round, rounds, waiting, picks } => {
            line(LogKind::Notice, packs_words(*round, *rounds, waiting, picks, words))
        }
        Event::Pack { pack, cards } => line(LogKind::Notice, pack_words(*pack, cards)),
        Event::CardTaken { by, pack, card } => {
            let what = card.clone().unwrap_or_else(|| "a card".to_string());
            line(LogKind::Notice, format!("{} took {what} from pack {}", words.who(*by), pack + 1))
        }
        Event::Pool { cards } => {
            let counted: Vec<String> =
                crate::deck::counted(cards).into_iter().map(|(n, name)| format!("{n} {name}")).collect();
            let build = "build your deck with add, remove, basics, then done; or build DECKFILE";
            line(LogKind::Notice, format!("Your pool ({} cards; {build}): {}", cards.len(), counted.join(", ")))
        }
        // Actions are told with the alert that came before them (`Story::lines`); an answer to a ping says
        // nothing to the player. Every event is listed, so an event the engine gains does not compile here until
        // it has its words.
        Event::Applied { .. } | Event::Pong => None,
    }
}

/// The log line for a request of one player's to the other (to see cards, to undo an action) and its answer.
fn request_line(event: &Event, words: &Words<impl TableSource>) -> Option<LogLine> {
    let line = |kind, text: String| Some(LogLine { kind, text });
    let them = words.name(words.engine.seat().opponent());
    match event {
        Event::RevealRequested { zone, count } => {
            // Only a request: nothing is shown unless this player reveals it.
            let what = count.map(|n| format!("the top {} of ", top_cards(n))).unwrap_or_default();
            let (zone_words, kind) = (words.zone(*zone, None), zone.kind.name());
            line(
                LogKind::Alert,
                format!("{them} asks to see {what}{zone_words}: reveal cards to them, or refuse {kind}"),
            )
        }
        Event::RevealRefused { zone } => line(
            LogKind::Notice,
            format!("{} refused to show {}", words.who(zone.owner), words.zone(*zone, Some(zone.owner))),
        ),
        Event::UndoAsked { by, undone, .. } => {
            let what = words.action(*by, undone, &[]).unwrap_or_else(|| undone.name().into());
            match words.is_me(*by) {
                true => line(LogKind::Notice, format!("You asked {them} to undo your last action: {what}")),
                false => line(LogKind::Alert, format!("{them} asks to undo: {what} (undo accept, or undo refuse)")),
            }
        }
        Event::UndoRefused { by, .. } => {
            line(LogKind::Notice, format!("{} refused to undo the action", words.who(*by)))
        }
        Event::UndoLapsed { asker, .. } => line(
            LogKind::Notice,
            format!("The request to undo {} last action lapsed: another action came first", words.owner_word(*asker)),
        ),
        Event::Undone { actor, undone, .. } => {
            let what = words.action(*actor, undone, &[]).unwrap_or_else(|| undone.name().into());
            line(LogKind::Action, format!("Undone by consent: {what}"))
        }
        _ => None,
    }
}

/// Where a Winston draft stands: the piles, the stack, and who looks at which pile.
fn winston_words(piles: [u32; 3], stack: u32, looking: Option<(Seat, u8)>, words: &Words<impl TableSource>) -> String {
    let sizes = format!("piles {} · {} · {}, stack {stack}", piles[0], piles[1], piles[2]);
    match looking {
        Some((seat, pile)) if words.is_me(seat) => format!("Winston: {sizes}; you look at pile {}", pile + 1),
        Some((seat, pile)) => format!("Winston: {sizes}; {} looks at pile {}", words.who(seat), pile + 1),
        None => format!("Winston: {sizes}; the draft is over"),
    }
}

/// Where a booster draft stands: the round, then this player's picks and packs waiting, then the opponent's.
fn packs_words(
    round: u32,
    rounds: u32,
    waiting: &SeatMap<u32>,
    picks: &SeatMap<u32>,
    words: &Words<impl TableSource>,
) -> String {
    let [mine, theirs] = [words.engine.seat(), words.engine.seat().opponent()].map(|seat| {
        let (taken, waiting) = (picks.get(seat).copied(), waiting.get(seat).copied());
        let (taken, waiting) = (taken.unwrap_or_default(), waiting.unwrap_or_default());
        format!("{} {taken} taken, {} waiting", words.name(seat), crate::text::counted(waiting as usize, "pack"))
    });
    format!("Booster draft, round {} of {rounds}: {mine}; {theirs}", round + 1)
}

/// The pack to pick from, its cards numbered as `pick N` counts them.
fn pack_words(pack: u32, cards: &[String]) -> String {
    let numbered: Vec<String> = cards.iter().enumerate().map(|(n, card)| format!("{} {card}", n + 1)).collect();
    let size = crate::text::counted(cards.len(), "card");
    format!("Pack {}, {size} (pick N or pick NAME): {}", pack + 1, numbered.join(" · "))
}

/// A grid as it stands, row by row (`·` for a taken cell), and who picks next.
fn grid_words(grid: u32, cells: &[Option<String>], picker: Option<Seat>, words: &Words<impl TableSource>) -> String {
    let rows: Vec<String> = cells
        .chunks(3)
        .enumerate()
        .map(|(row, cells)| {
            let names: Vec<&str> = cells.iter().map(|cell| cell.as_deref().unwrap_or("·")).collect();
            format!("row {}: {}", row + 1, names.join(" | "))
        })
        .collect();
    let next = match picker {
        Some(seat) if words.is_me(seat) => "your pick: pick row N or pick column N".to_string(),
        Some(seat) => format!("{} picks", words.who(seat)),
        None => "both picked".to_string(),
    };
    format!("Grid {} ({next}) — {}", grid + 1, rows.join("; "))
}

/// A card this player learned, if it is news: the opponent's cards, and those of one's own library (a peek); one's
/// other cards were known already, or are in the hand pane now. A spectator learns only cards made public, each
/// of them news, whoever owns it.
fn learned(card: CardId, instance: &CardInstance, words: &Words<impl TableSource>) -> Option<LogLine> {
    let me = words.engine.seat();
    let place = words.place(card);
    let zone = place.map_or_else(|| "gone".into(), |p| words.zone(p.zone, None));
    if !words.engine.plays() {
        return Some(LogLine { kind: LogKind::Action, text: format!("Shown: {card} {} ({zone})", instance.name) });
    }
    let news = instance.owner != me || place.is_some_and(|p| p.zone == ZoneId::library(me));
    let text = format!("You see {card} {} ({zone})", instance.name);
    news.then_some(LogLine { kind: LogKind::Action, text })
}

/// A forfeit claimed by `by`, who waited on `awaited`.
fn forfeit_claimed(by: Seat, awaited: &Awaited, words: &Words<impl TableSource>) -> String {
    let them = words.name(words.engine.seat().opponent());
    let (claimant, against_me) = (words.who(by), words.is_me(by.opponent()));
    let loser = if against_me { "you forfeit".to_string() } else { format!("{them} forfeits") };
    // A player who left learns of the claim on coming back: the game ended while they were away.
    match awaited {
        Awaited::Return if against_me => {
            format!("{claimant} ended the game while you were away: {loser}, having left it")
        }
        Awaited::Return => format!("{claimant} ended the game: {loser}, having left it"),
        _ => format!("{claimant} ended the game: {loser}, having not sent {awaited}"),
    }
}

/// Who chooses to play or draw, and why them.
fn chooser(seat: Seat, by: ChosenBy, words: &Words<impl TableSource>) -> String {
    let (who, chooses) = (words.who(seat), if words.is_me(seat) { "choose" } else { "chooses" });
    match by {
        ChosenBy::Coin => format!("{who} {chooses} to play or draw (a fair coin decided)"),
        ChosenBy::Loser => format!("{who} lost the last game and {chooses} to play or draw"),
    }
}

/// How a doubt about `seat`'s deck is told: the opponent's is a warning not to miss; one's own, news of the deck
/// one chose.
fn doubt(seat: Seat, words: &Words<impl TableSource>) -> LogKind {
    if words.is_me(seat) { LogKind::Notice } else { LogKind::Alert }
}

/// A deck of `game` that is not the match's 75: the cards it differs by.
fn deck_differs(
    seat: Seat,
    game: u32,
    difference: &DeckDifference,
    check: DifferenceCheck,
    words: &Words<impl TableSource>,
) -> String {
    let added = difference.added.iter().map(|(count, name)| format!("+{count} {name}"));
    let removed = difference.removed.iter().map(|(count, name)| format!("−{count} {name}"));
    let changes: Vec<String> = added.chain(removed).collect();
    let unverifiable = match check {
        DifferenceCheck::AtAudit => "",
        DifferenceCheck::Unverifiable => " (unverifiable: the game 1 deck was never audited)",
    };
    format!("{} deck for game {game} is not the match's 75: {}{unverifiable}", words.whose(seat), changes.join(", "))
}

/// A deck of `game` nobody audited, and what that leaves unchecked.
fn audit_missing(seat: Seat, game: u32, words: &Words<impl TableSource>) -> String {
    let unchecked = if game == 1 {
        format!(", and {} later differences from the match's 75 are unverifiable", words.owner_word(seat))
    } else {
        ", nor its difference from the match's 75".to_string()
    };
    format!(
        "{} deck of game {game} was never audited: nobody checked it against its sealed list{unchecked}",
        words.whose(seat)
    )
}

/// How a game was lost, in a word: "Bea conceded".
pub(crate) fn lost_by(how: GameEnd) -> &'static str {
    match how {
        GameEnd::Conceded => "conceded",
        GameEnd::Forfeited => "forfeited",
    }
}
