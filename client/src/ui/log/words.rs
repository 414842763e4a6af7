//! The table's words for seats, zones, cards and actions, from the point of view of the engine's player:
//! "You put #5 Goblin Guide from your hand into your play area at 0,0", "Bea moved your #5 Goblin Guide
//! from your play area to your graveyard".

use fairdeck_shared::Seat;
use fairdeck_shared::engine::{Alert, AlertKind, Intent, Moved, Place};
use fairdeck_shared::table::{CardId, Placement, Position, ZoneId, ZoneKind};
use fairdeck_shared::wire::{Action, ArrowTarget, PeekPurpose};

use crate::command::commander_damage_from;
use crate::session::{PoolLine, Tally};
use crate::ui::table_view::{SideView, TableSource, TableView, ZONE_ORDER};

/// Names seats, zones and cards for the engine's player.
pub struct Words<'a, S: TableSource> {
    pub engine: &'a S,
}

impl<S: TableSource> Words<'_, S> {
    /// The seat at the bottom of the table.
    fn me(&self) -> Seat {
        self.engine.seat()
    }

    /// Whether `seat` is this program's player, "you" (a spectator names both players).
    pub fn is_me(&self, seat: Seat) -> bool {
        self.engine.plays() && seat == self.engine.seat()
    }

    /// The subject of a sentence: "You" or the opponent's name.
    pub fn who(&self, seat: Seat) -> String {
        if self.is_me(seat) { "You".into() } else { self.name(seat) }
    }

    /// "you", or the opponent's name ("the opponent" before their hello).
    pub fn name(&self, seat: Seat) -> String {
        let name = &self.engine.table().player(seat).name;
        match (self.is_me(seat), name.is_empty()) {
            (true, _) => "you".into(),
            (false, true) if self.engine.plays() => "the opponent".into(),
            (false, true) => seat.name().into(),
            (false, false) => name.clone(),
        }
    }

    /// "Your" or "Ada's".
    pub fn whose(&self, seat: Seat) -> String {
        if self.is_me(seat) { "Your".into() } else { format!("{}'s", self.name(seat)) }
    }

    /// "your" or "Ada's", inside a sentence.
    pub fn owner_word(&self, seat: Seat) -> String {
        if self.is_me(seat) { "your".into() } else { format!("{}'s", self.name(seat)) }
    }

    /// Whose a thing is in a sentence whose subject is `actor` (if any): "your", "their" (the actor's own),
    /// or "Bea's".
    fn owner(&self, owner: Seat, actor: Option<Seat>) -> String {
        if self.is_me(owner) {
            "your".into()
        } else if Some(owner) == actor {
            "their".into()
        } else {
            format!("{}'s", self.name(owner))
        }
    }

    /// "your hand", "their play area", "Bea's library".
    pub fn zone(&self, zone: ZoneId, actor: Option<Seat>) -> String {
        format!("{} {}", self.owner(zone.owner, actor), zone_name(zone.kind))
    }

    /// Where `card` lies on the engine's table now.
    pub fn place(&self, card: CardId) -> Option<Place> {
        let card = self.engine.table().card(card)?;
        Some(Place { zone: card.zone, face_down: card.zone.kind == ZoneKind::Play && card.placement.face_down })
    }

    /// "#12 Forest" for a card this player knows; "a card", or "a face-down card #12" where its id is what
    /// the table shows of it. Another player's card than the actor's says whose: "your #12 Forest".
    pub fn card(&self, card: CardId, actor: Option<Seat>) -> String {
        self.card_lying(card, actor, self.place(card).is_some_and(|p| p.face_down))
    }

    /// A card in words, as it lay (`face_down` or not) when the event told happened.
    fn card_lying(&self, card: CardId, actor: Option<Seat>, face_down: bool) -> String {
        let owner = self.engine.table().card(card).map(|c| c.owner);
        let prefix = match (owner, actor) {
            (Some(owner), Some(actor)) if owner != actor => format!("{} ", self.owner(owner, Some(actor))),
            _ => String::new(),
        };
        if let Some(instance) = self.engine.identity(card) {
            return format!("{prefix}{card} {}", instance.name);
        }
        match (prefix.is_empty(), face_down) {
            (true, true) => format!("a face-down card {card}"),
            (true, false) => "a card".into(),
            (false, true) => format!("{prefix}face-down card {card}"),
            (false, false) => format!("{prefix}card"),
        }
    }

    /// The sentence for an action, which put the cards `moved` somewhere, or `None` for those told by their own
    /// event.
    pub fn action(&self, by: Seat, action: &Action, moved: &[Moved]) -> Option<String> {
        let who = self.who(by);
        let actor = Some(by);
        let text = match action {
            Action::Draw { count } => format!("{who} drew {}", cards(*count)),
            Action::Move { card, to, position, placement } => {
                let from = moved.iter().find(|m| m.card == *card).and_then(|m| m.from);
                self.moved(by, *card, from, *to, *position, *placement)
            }
            Action::Rearrange { card, index } => {
                let place = self.place(*card);
                let zone = place.map(|p| format!(" of {}", self.zone(p.zone, actor))).unwrap_or_default();
                let len = place.map_or(0, |p| self.engine.table().zone(p.zone).len());
                let card = self.card(*card, actor);
                // The table has already applied it: the card stands where it went.
                match *index as usize {
                    0 => format!("{who} put {card} on top{zone}"),
                    i if i + 1 == len => format!("{who} put {card} at the bottom{zone}"),
                    i => format!("{who} moved {card} to place {} from the top{zone}", i + 1),
                }
            }
            Action::Shuffle { .. } => format!("{who} shuffled {}", self.zone(ZoneId::library(by), actor)),
            Action::Peek { count, purpose } => {
                let library = self.zone(ZoneId::library(by), actor);
                match purpose {
                    PeekPurpose::Look => format!("{who} looked at the top {} of {library}", top_cards(*count)),
                    PeekPurpose::Scry => format!("{who} scried {count} ({library})"),
                    PeekPurpose::Surveil => format!("{who} surveilled {count} ({library})"),
                    PeekPurpose::Search => format!("{who} searched {library}"),
                }
            }
            Action::Reveal { cards: shown, to } => {
                let names: Vec<String> = shown.iter().map(|c| self.card(*c, actor)).collect();
                let audience = to.map(|seat| format!(" to {}", self.name(seat))).unwrap_or_default();
                format!("{who} revealed {}{audience}", names.join(", "))
            }
            // The taker sees the cards (its next line names them); the library's owner does not.
            Action::TakeFromLibrary { count } => format!(
                "{who} took the top {} of {} into {}, unseen by {}",
                top_cards(*count),
                self.zone(ZoneId::library(by.opponent()), actor),
                self.zone(ZoneId::hand(by), actor),
                self.name(by.opponent())
            ),
            Action::ShowRandom => {
                format!("{who} asked to show a random card of {}", self.zone(ZoneId::hand(by), actor))
            }
            Action::Tap { card, tapped } => {
                format!("{who} {} {}", if *tapped { "tapped" } else { "untapped" }, self.card(*card, actor))
            }
            Action::SetCardValue { card, key, value: Some(value) } => {
                format!("{who} set {key} to {value} on {}", self.card(*card, actor))
            }
            Action::SetCardValue { card, key, value: None } => {
                format!("{who} removed {key} from {}", self.card(*card, actor))
            }
            Action::SetPlayerValue { key, value } => {
                let what = match commander_damage_from(key) {
                    Some(commander) => format!("commander damage from {}", self.card(commander, actor)),
                    None => key.clone(),
                };
                format!("{who} set {} {what} to {value}", self.owner(by, actor))
            }
            Action::SetPhase { phase } => format!("{who} moved to the {phase} phase"),
            Action::NextTurn => format!("{who} passed the turn (turn {})", self.engine.table().turn),
            // The outcome comes as its own event, with the faces.
            Action::Roll { .. } | Action::Flip => return None,
            Action::Mulligan { draw } => format!("{who} took a mulligan and drew {}", cards(*draw)),
            Action::AddCard { card, to, placement, power_toughness } => {
                let id = moved.first().map(|token| format!("{} ", token.card)).unwrap_or_default();
                let at = if to.kind == ZoneKind::Play { at(*placement) } else { String::new() };
                let pt = power_toughness.map(|pt| format!(" {pt}")).unwrap_or_default();
                format!("{who} created token {id}{}{pt} in {}{at}", card.name, self.zone(*to, actor))
            }
            Action::UntapAll => {
                format!("{who} untapped every card in {}", self.zone(ZoneId::new(by, ZoneKind::Play), actor))
            }
            Action::Attach { card, to: Some(host) } => {
                format!("{who} attached {} to {}", self.card(*card, actor), self.card(*host, actor))
            }
            Action::Attach { card, to: None } => format!("{who} detached {}", self.card(*card, actor)),
            Action::Arrow { from, to: ArrowTarget::Card(card) } => {
                format!("{who} pointed from {} to {}", self.card(*from, actor), self.card(*card, actor))
            }
            Action::Arrow { from, to: ArrowTarget::Player(seat) } => {
                format!("{who} pointed from {} to {}", self.card(*from, actor), self.name(*seat))
            }
            Action::Concede => format!("{who} conceded the game"),
            // Told by its `Undone` event, with the action it undid.
            Action::Undo { .. } => return None,
            Action::PlayOrDraw { play: true } => format!("{who} chose to play first"),
            Action::PlayOrDraw { play: false } => {
                let verb = if self.is_me(by.opponent()) { "play" } else { "plays" };
                format!("{who} chose to draw ({} {verb} first)", self.name(by.opponent()))
            }
        };
        Some(text)
    }

    /// A move of `card` from where it lay before (`from`, as the event says) to `to`.
    fn moved(
        &self,
        by: Seat,
        card: CardId,
        from: Option<Place>,
        to: ZoneId,
        position: Position,
        placement: Placement,
    ) -> String {
        let (who, actor) = (self.who(by), Some(by));
        let what = self.card_lying(card, actor, from.is_some_and(|p| p.face_down));
        let from = from.map(|p| p.zone);
        let source = match from {
            Some(from) if from != to => format!(" from {}", self.zone(from, actor)),
            _ => String::new(),
        };
        let target = self.zone(to, actor);
        match to.kind {
            ZoneKind::Play if from == Some(to) => format!("{who} moved {what} within {target}{}", at(placement)),
            ZoneKind::Play => format!("{who} put {what}{source} into {target}{}", at(placement)),
            ZoneKind::Library => match position {
                Position::Top | Position::Index(0) => format!("{who} put {what}{source} on top of {target}"),
                Position::Bottom => format!("{who} put {what}{source} on the bottom of {target}"),
                Position::Index(index) => {
                    format!("{who} put {what}{source} into {target}, {} from the top", ordinal(index + 1))
                }
            },
            _ => format!("{who} moved {what}{source} to {target}"),
        }
    }

    /// An alert in a sentence. The opponent's actions on this player's cards are told with the action
    /// (`Story`); this is every other alert, with the engine's detail as its evidence.
    pub fn alert(&self, alert: &Alert) -> String {
        let them = self.name(self.me().opponent());
        let what = match alert.kind {
            AlertKind::Malformed => format!("{them} sent a message that cannot be read"),
            AlertKind::Sequence => format!("A message from {them} came out of order, or unsigned"),
            AlertKind::BadProof => format!("A proof from {them} did not verify"),
            AlertKind::Unexpected => format!("{them} sent a message that does not fit the table"),
            AlertKind::Forbidden => format!("{them} tried an action the rules forbid"),
            AlertKind::Stacking => format!("{them} shuffled a library with known cards without fresh locks"),
            AlertKind::NotInDeck => format!("{them} showed a card that is not in their sealed deck list"),
            AlertKind::LookedAtYourCards => format!("{them} took your hidden cards"),
            AlertKind::MovedYourCards => format!("{them} changed your cards"),
            AlertKind::Incompatible => format!("{them}'s program cannot play with this one"),
            AlertKind::Internal => "A fault in this program, not a cheat by anyone; your save is kept".to_string(),
            // A kind newer than this screen: its stable name, in words.
            other => words_of_name(other.name()),
        };
        let stop = if alert.kind.is_misbehaviour() { " — the game is stopped" } else { "" };
        format!("{what} ({}){stop}", alert.detail)
    }

    /// What this player's taken intent did that no event of theirs tells, if anything.
    pub fn taken(&self, intent: &Intent) -> Option<String> {
        let them = self.name(self.me().opponent());
        let text = match intent {
            Intent::EndGame => {
                format!(
                    "You ended the game and sent your deck key: {them} can check your whole deck against its sealed list"
                )
            }
            Intent::RefuseReveal { zone } => format!("You refused to show {}", self.zone(*zone, None)),
            Intent::RequestReveal { zone, count } => {
                let what = count.map(|n| format!("the top {} of ", top_cards(n))).unwrap_or_default();
                format!("You asked {them} to show {what}{}", self.zone(*zone, Some(zone.owner)))
            }
            Intent::NewGame(_) => format!("You asked for a new game: it starts when {them} asks too"),
            // A pick is told by its event, with the cards it took; an undo asked or answered too.
            Intent::Pick(_) | Intent::Pile(_) | Intent::TakeCard(_) | Intent::AskUndo | Intent::AnswerUndo(_) => {
                return None;
            }
            Intent::Build(deck) => format!(
                "You built your deck from your pool: {} cards in the library, the rest of the pool in the sideboard",
                deck.library.len()
            ),
            // Actions and forfeit claims are told by their events; chat by `Story::taken`; a ping says nothing.
            Intent::Act(_) | Intent::Chat(_) | Intent::Ping | Intent::ClaimForfeit | Intent::ClaimAbandoned => {
                return None;
            }
        };
        Some(text)
    }
}

/// The whole table in a few lines: the turn, then each side's life, numbers and zone counts.
/// Pools of at most this many names are listed one name a line: the log of an 80×24 screen shows them whole.
const POOL_NAMES_PER_LINE: usize = 16;

/// How the deck built from the pool stands: `Deck: 23 cards + 17 lands (pool: 22 left)`.
pub fn building_words(tally: Tally) -> String {
    let Tally { cards, lands, left } = tally;
    let count = |n: u32, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    format!("Deck: {} + {} (pool: {left} left)", count(cards, "card", "cards"), count(lands, "land", "lands"))
}

/// `pool`'s lines: a head, then one name a line (`2 Lightning Bolt (1 in deck)`), or for a pool of many names
/// the names one after another, which the log wraps.
pub fn pool_lines(pool: &[PoolLine]) -> Vec<String> {
    let copies: u32 = pool.iter().map(|line| line.copies).sum();
    let in_deck: u32 = pool.iter().map(|line| line.in_deck).sum();
    let head = format!("Your pool: {copies} cards, {in_deck} in your deck");
    let name = |line: &PoolLine| match line.in_deck {
        0 => format!("{} {}", line.copies, line.name),
        n => format!("{} {} ({n} in deck)", line.copies, line.name),
    };
    if pool.len() <= POOL_NAMES_PER_LINE {
        std::iter::once(head).chain(pool.iter().map(name)).collect()
    } else {
        vec![format!("{head}: {}", pool.iter().map(name).collect::<Vec<_>>().join(", "))]
    }
}

pub fn table_lines(table: &TableView) -> Vec<String> {
    let turn = match table.my_turn {
        None => "before the first turn".to_string(),
        Some(true) => format!("turn {}, yours", table.turn),
        Some(false) => format!("turn {}, {}'s", table.turn, table.opponent.name),
    };
    let phase = if table.phase.is_empty() { String::new() } else { format!(", {} phase", table.phase) };
    let side = |who: &str, side: &SideView| {
        let life = side.life.map_or("—".to_string(), |life| life.to_string());
        let mut parts = vec![format!("life {life}")];
        parts.extend(side.values.iter().map(|(key, value)| format!("{key} {value}")));
        parts.extend(ZONE_ORDER.iter().map(|&kind| format!("{} {}", zone_name(kind), side.count(kind))));
        format!("{who}: {}", parts.join(" · "))
    };
    vec![format!("The table: {turn}{phase}"), side("You", &table.me), side(&table.opponent.name, &table.opponent)]
}

/// A zone kind in the table's words.
fn zone_name(kind: ZoneKind) -> &'static str {
    match kind {
        ZoneKind::Play => "play area",
        ZoneKind::Command => "command zone",
        other => other.name(),
    }
}

/// " at 0,0", " at 1,1 face down".
fn at(placement: Placement) -> String {
    let down = if placement.face_down { " face down" } else { "" };
    format!(" at {},{}{down}", placement.x, placement.y)
}

fn cards(count: u32) -> String {
    if count == 1 { "1 card".into() } else { format!("{count} cards") }
}

/// "card" or "3 cards", after "the top".
pub(super) fn top_cards(count: u32) -> String {
    if count == 1 { "card".into() } else { format!("{count} cards") }
}

fn ordinal(n: u32) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// A stable snake_case name in words: `moved_your_cards` becomes "Moved your cards".
fn words_of_name(name: &str) -> String {
    let words = name.replace('_', " ");
    let mut chars = words.chars();
    chars.next().map_or_else(String::new, |first| first.to_uppercase().chain(chars).collect())
}
