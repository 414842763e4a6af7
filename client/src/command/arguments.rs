//! How each command reads its arguments: one function per entry of the table that takes any (the table names
//! it in its entry's `parse`), and the readers they share (numbers, zones, cards by id or name).

use std::path::PathBuf;

use fairdeck_relay_protocol::MAX_WATCH_DELAY_TURNS;
use fairdeck_shared::crypto::Dice;
use fairdeck_shared::table::{CardId, Placement, Position, PowerToughness, ZoneId, ZoneKind};
use fairdeck_shared::wire::{Action, BasicLand, GridLine, PeekPurpose, PileChoice};

use super::resolve::CardRef;
use super::spec::{
    Amount, Args, ArrowTo, BuildStep, CardAct, Command, PackCard, Placing, Spot, TableAct, TopWatch, UndoStep,
    WatchStep,
};

pub fn draw(a: &Args) -> Result<Command, String> {
    Ok(Command::Act(Action::Draw { count: one_number(a)? }))
}

pub fn peek(a: &Args) -> Result<Command, String> {
    Ok(Command::Act(Action::Peek { count: one_number(a)?, purpose: PeekPurpose::Look }))
}

pub fn mill(a: &Args) -> Result<Command, String> {
    match one_number(a)? {
        0 => Err(a.usage_with("N of 1 or more")),
        count => Ok(Command::OnTable(TableAct::Mill(count))),
    }
}

/// `scry N` and `surveil N`.
pub fn browse(a: &Args, purpose: PeekPurpose) -> Result<Command, String> {
    Ok(Command::Browse(purpose, Some(one_number(a)?)))
}

pub fn take(a: &Args) -> Result<Command, String> {
    // Read from the end: an optional zone, and the card before it.
    let (zone, card) = match a.words.split_last() {
        Some((&zone @ ("hand" | "graveyard" | "exile" | "play"), card)) if !card.is_empty() => (zone_kind(zone)?, card),
        _ => (ZoneKind::Hand, &a.words[..]),
    };
    Ok(Command::Take(card_ref(a, card)?, zone))
}

/// `top`, `bottom` and `grave`: cards by id or by name, a name of several words in double quotes; or, the cards
/// parted by commas, each name as typed (`Mountain, Lava Spike`; a name holding a comma in double quotes).
pub fn place(a: &Args, placing: Placing) -> Result<Command, String> {
    let parts = outside_quotes(a.rest, ',');
    if parts.len() > 1 {
        let card = |part: &str| card_ref(a, &part.split_whitespace().collect::<Vec<_>>());
        return Ok(Command::Place(placing, parts.into_iter().map(card).collect::<Result<_, _>>()?));
    }
    let mut cards = Vec::new();
    let mut rest = a.rest;
    while let Some(start) = rest.find(|c: char| !c.is_whitespace()) {
        rest = &rest[start..];
        let end = if let Some(quoted) = rest.strip_prefix('"') {
            quoted.find('"').map(|i| i + 2).ok_or_else(|| format!("{rest} lacks its closing quote"))?
        } else {
            rest.find(char::is_whitespace).unwrap_or(rest.len())
        };
        cards.push(card_ref(a, &[&rest[..end]])?);
        rest = &rest[end..];
    }
    if cards.is_empty() { Err(a.usage()) } else { Ok(Command::Place(placing, cards)) }
}

pub fn mulligan(a: &Args) -> Result<Command, String> {
    // Bare, the London mulligan's seven.
    let draw = if a.words.is_empty() { 7 } else { one_number(a)? };
    Ok(Command::Act(Action::Mulligan { draw }))
}

pub fn ask(a: &Args) -> Result<Command, String> {
    let (zone, count) = match a.words[..] {
        [zone] => (zone, None),
        [zone, n] => (zone, Some(n.parse::<u32>().map_err(|_| a.usage())?)),
        _ => return Err(a.usage()),
    };
    Ok(Command::Ask(ZoneId::new(a.seat.opponent(), zone_kind(zone)?), count))
}

pub fn refuse(a: &Args) -> Result<Command, String> {
    let [zone] = a.words[..] else { return Err(a.usage()) };
    Ok(Command::Refuse(ZoneId::new(a.seat, zone_kind(zone)?)))
}

pub fn undo(a: &Args) -> Result<Command, String> {
    let step = match a.words[..] {
        [] => UndoStep::Ask,
        ["accept" | "yes"] => UndoStep::Accept,
        ["refuse" | "no"] => UndoStep::Refuse,
        _ => return Err(a.usage()),
    };
    Ok(Command::Undo(step))
}

pub fn life(a: &Args) -> Result<Command, String> {
    let [value] = a.words[..] else { return Err(a.usage()) };
    Ok(Command::PlayerValue { key: "life".into(), amount: amount(a, value)? })
}

pub fn player_counter(a: &Args) -> Result<Command, String> {
    let [key, value] = a.words[..] else { return Err(a.usage()) };
    Ok(Command::PlayerValue { key: key.to_string(), amount: amount(a, value)? })
}

pub fn commander_damage(a: &Args) -> Result<Command, String> {
    let [ref card @ .., value] = a.words[..] else { return Err(a.usage()) };
    Ok(Command::OnCard(card_ref(a, card)?, CardAct::CommanderDamage(amount(a, value)?)))
}

/// `command CARD`: back to the player's own command zone.
pub fn command_zone(a: &Args) -> Result<Command, String> {
    let to = ZoneId::new(a.seat, ZoneKind::Command);
    Ok(Command::OnCard(card_ref(a, &a.words)?, CardAct::Move { to, position: Position::Top }))
}

pub fn attach(a: &Args) -> Result<Command, String> {
    let (card, to) = split_at_to(a)?;
    Ok(Command::OnCard(card_ref(a, card)?, CardAct::Attach { to: Some(card_ref(a, to)?) }))
}

pub fn detach(a: &Args) -> Result<Command, String> {
    Ok(Command::OnCard(card_ref(a, &a.words)?, CardAct::Attach { to: None }))
}

pub fn arrow(a: &Args) -> Result<Command, String> {
    let (card, to) = split_at_to(a)?;
    let to = match to {
        ["opponent"] => ArrowTo::Player(a.seat.opponent()),
        ["me"] => ArrowTo::Player(a.seat),
        card => ArrowTo::Card(card_ref(a, card)?),
    };
    Ok(Command::OnCard(card_ref(a, card)?, CardAct::Arrow { to }))
}

pub fn token(a: &Args) -> Result<Command, String> {
    // Read from the end: `[at X,Y]`, then `[P/T]`, and the name before them.
    let (placement, words) = match a.words[..] {
        [ref words @ .., "at", xy] => {
            let (x, y) = position(a, xy)?;
            (Placement { x, y, face_down: false }, words)
        }
        ref words => (Placement::default(), words),
    };
    let (power_toughness, words) = match words.split_last() {
        Some((last, name)) if last.contains('/') => (Some(power_toughness(a, last)?), name),
        _ => (None, words),
    };
    let name = match card_ref(a, words)? {
        CardRef::Name(name) => name,
        // A bare number is a name here: tokens have no ids yet.
        CardRef::Id(_) => words.join(" "),
    };
    Ok(Command::Token { name, power_toughness, placement })
}

/// `next-turn [untap-draw]`.
pub fn next_turn(a: &Args) -> Result<Command, String> {
    let untap_draw = match a.words[..] {
        [] => false,
        ["untap-draw"] => true,
        _ => return Err(a.usage()),
    };
    Ok(Command::OnTable(TableAct::NextTurn { untap_draw }))
}

pub fn phase(a: &Args) -> Result<Command, String> {
    if a.rest.is_empty() {
        return Err(a.usage_with("such as untap, upkeep, draw, main1, combat, main2, end"));
    }
    Ok(Command::Act(Action::SetPhase { phase: a.rest.to_string() }))
}

/// `N` sets, `+N` and `-N` change.
fn amount(a: &Args, text: &str) -> Result<Amount, String> {
    let bad = || a.usage_with("N sets it, +N or -N changes it");
    let value = text.parse::<i64>().map_err(|_| bad())?;
    Ok(if text.starts_with(['+', '-']) { Amount::Add(value) } else { Amount::Set(value) })
}

/// `P/T`, such as `1/1` or `0/4`.
fn power_toughness(a: &Args, text: &str) -> Result<PowerToughness, String> {
    let bad = || a.usage_with("power and toughness such as 1/1");
    let (power, toughness) = text.split_once('/').ok_or_else(bad)?;
    let power = power.parse::<i32>().map_err(|_| bad())?;
    let toughness = toughness.parse::<i32>().map_err(|_| bad())?;
    Ok(PowerToughness { power, toughness })
}

/// `CARD to TARGET`, split at the last `to`: a name may hold the word.
fn split_at_to<'w>(a: &'w Args) -> Result<(&'w [&'w str], &'w [&'w str]), String> {
    let at = a.words.iter().rposition(|w| *w == "to").ok_or_else(|| a.usage())?;
    let (card, to) = (&a.words[..at], &a.words[at + 1..]);
    if card.is_empty() || to.is_empty() { Err(a.usage()) } else { Ok((card, to)) }
}

pub fn play(a: &Args) -> Result<Command, String> {
    // Read from the end: `[at X,Y] [facedown]`, and the card's name before them, which may hold any word.
    let (face_down, words) = match a.words.split_last() {
        Some((&"facedown", words)) => (true, words),
        _ => (false, &a.words[..]),
    };
    let (spot, card) = match words {
        // `at` before anything but a position is a word of the name (`Hit at Dawn`).
        [card @ .., "at", xy] if xy.starts_with(|c: char| c.is_ascii_digit() || "+-,".contains(c)) => {
            let (x, y) = position(a, xy)?;
            (Spot::At { x, y }, card)
        }
        card => (Spot::Next, card),
    };
    let area = ZoneId::new(a.seat, ZoneKind::Play);
    Ok(Command::OnCard(card_ref(a, card)?, CardAct::Play { area, spot, face_down }))
}

pub fn move_card(a: &Args) -> Result<Command, String> {
    // Read from the end: `[opponent] ZONE [top|bottom]`, and the card before it.
    let (position, words) = match a.words.split_last() {
        Some((&"top", words)) => (Position::Top, words),
        Some((&"bottom", words)) => (Position::Bottom, words),
        _ => (Position::Top, &a.words[..]),
    };
    let Some((zone, words)) = words.split_last() else { return Err(a.usage()) };
    let (owner, card) = match words.split_last() {
        Some((&"opponent", card)) => (a.seat.opponent(), card),
        _ => (a.seat, words),
    };
    if card.is_empty() {
        return Err(a.usage());
    }
    let to = ZoneId::new(owner, zone_kind(zone)?);
    Ok(Command::OnCard(card_ref(a, card)?, CardAct::Move { to, position }))
}

pub fn reveal(a: &Args) -> Result<Command, String> {
    // `hand`, `top` and `library` are the zones; a card of that name is written in quotes.
    let (card, to) = match a.words[..] {
        ["hand"] => return Ok(Command::RevealHand),
        ["top"] => return Ok(Command::RevealTop),
        ["library"] => return Ok(Command::OnTable(TableAct::RevealLibrary { count: None, looked: false })),
        ["library", n] if n.chars().all(|c| c.is_ascii_digit()) => {
            return match n.parse::<u32>() {
                Ok(0) | Err(_) => Err(a.usage_with("library N, N of 1 or more")),
                Ok(count) => Ok(Command::OnTable(TableAct::RevealLibrary { count: Some(count), looked: false })),
            };
        }
        [ref card @ .., "to", "opponent"] => (card, Some(a.seat.opponent())),
        ref card => (card, None),
    };
    Ok(Command::OnCard(card_ref(a, card)?, CardAct::Reveal { to }))
}

/// `always-look [off]` and `always-reveal [off]`.
pub fn watch_top(a: &Args, watch: TopWatch) -> Result<Command, String> {
    match a.words[..] {
        [] => Ok(Command::WatchTop(Some(watch))),
        ["off"] => Ok(Command::WatchTop(None)),
        _ => Err(a.usage()),
    }
}

pub fn roll(a: &Args) -> Result<Command, String> {
    let usage = || a.usage_with("such as 2d6");
    let [spec] = a.words[..] else { return Err(usage()) };
    let (count, sides) = spec.split_once('d').ok_or_else(usage)?;
    let count = if count.is_empty() { 1 } else { count.parse::<u32>().map_err(|_| usage())? };
    let sides = sides.parse::<u32>().map_err(|_| usage())?;
    let dice = Dice::new(count, sides).map_err(|e| e.to_string())?;
    Ok(Command::Act(Action::Roll { dice }))
}

/// `tap` and `untap`.
pub fn tap(a: &Args, tapped: bool) -> Result<Command, String> {
    Ok(Command::OnCard(card_ref(a, &a.words)?, CardAct::Tap(tapped)))
}

pub fn counter(a: &Args) -> Result<Command, String> {
    let usage = || a.usage_with("N = 0 removes it");
    let [ref card @ .., key, value] = a.words[..] else { return Err(usage()) };
    let value = value.parse::<i64>().map_err(|_| usage())?;
    let value = (value != 0).then_some(value);
    Ok(Command::OnCard(card_ref(a, card)?, CardAct::Counter { key: key.to_string(), value }))
}

pub fn new_game(a: &Args) -> Result<Command, String> {
    // The rest of the line whole: a file name may hold spaces.
    Ok(Command::NewGame((!a.rest.is_empty()).then(|| PathBuf::from(a.rest))))
}

/// `pick row N` and `pick column N` (a grid draft), `pick N` and `pick NAME` (a booster draft's pack).
pub fn pick(a: &Args) -> Result<Command, String> {
    let number = |n: &str| n.parse::<u8>().ok().filter(|n| (1..=3).contains(n)).map(|n| n - 1);
    let usage = || a.usage_with("row and column N are 1, 2 or 3; a pack's N from 1");
    match a.words[..] {
        ["row", n] => number(n).map(|n| Command::Pick(GridLine::Row(n))).ok_or_else(usage),
        ["column" | "col", n] => number(n).map(|n| Command::Pick(GridLine::Column(n))).ok_or_else(usage),
        [n] if n.chars().all(|c| c.is_ascii_digit()) => {
            n.parse::<u32>().ok().filter(|&n| n > 0).map(|n| Command::TakeCard(PackCard::Number(n))).ok_or_else(usage)
        }
        [] => Err(usage()),
        // The rest of the line whole: a card's name holds spaces, and may be quoted.
        _ => Ok(Command::TakeCard(PackCard::Name(a.rest.trim_matches('"').to_string()))),
    }
}

pub fn pile(a: &Args) -> Result<Command, String> {
    match a.words[..] {
        ["take"] => Ok(Command::Pile(PileChoice::Take)),
        ["pass"] => Ok(Command::Pile(PileChoice::Pass)),
        _ => Err(a.usage()),
    }
}

pub fn build(a: &Args) -> Result<Command, String> {
    // The rest of the line whole, as `new-game`'s.
    if a.rest.is_empty() { Err(a.usage()) } else { Ok(Command::Build(PathBuf::from(a.rest))) }
}

/// `add [N] NAME` and `remove [N] NAME`: the name as typed, in quotes or bare.
pub fn build_card(a: &Args, step: fn(u32, String) -> BuildStep, all: BuildStep) -> Result<Command, String> {
    // No card is named just "All": a bare `all` means the whole pool (or deck), any other words a card's name.
    if let [word] = a.words[..]
        && word.eq_ignore_ascii_case("all")
    {
        return Ok(Command::Building(all));
    }
    let (count, name) = match a.words[..] {
        [first, ref name @ ..] if !name.is_empty() && first.chars().all(|c| c.is_ascii_digit()) => {
            (first.parse::<u32>().map_err(|_| a.usage_with("N a whole number"))?, name)
        }
        ref name => (1, name),
    };
    let name = name.join(" ");
    let name = name.strip_prefix('"').and_then(|n| n.strip_suffix('"')).unwrap_or(&name).trim();
    if count == 0 || name.is_empty() {
        return Err(a.usage_with("N of 1 or more"));
    }
    Ok(Command::Building(step(count, name.to_string())))
}

/// `basics N LAND [N LAND...]`.
pub fn basics(a: &Args) -> Result<Command, String> {
    if a.words.is_empty() || !a.words.len().is_multiple_of(2) {
        return Err(a.usage());
    }
    let land_names = BasicLand::ALL.map(BasicLand::name).join(", ");
    let mut lands: Vec<(u32, BasicLand)> = Vec::new();
    for pair in a.words.chunks(2) {
        let count = pair[0].parse::<u32>().map_err(|_| a.usage_with("N a whole number"))?;
        let land =
            BasicLand::named(pair[1]).ok_or_else(|| format!("{:?} is not a basic land: {land_names}", pair[1]))?;
        if lands.iter().any(|&(_, named)| named == land) {
            return Err(format!("{} is named twice", land.name()));
        }
        lands.push((count, land));
    }
    Ok(Command::Building(BuildStep::Basics(lands)))
}

pub fn say(a: &Args) -> Result<Command, String> {
    if a.rest.is_empty() { Err(a.usage()) } else { Ok(Command::Chat(a.rest.to_string())) }
}

/// `text` parted at each `separator` outside double quotes (one part, the whole, if there is none or a quote is
/// left open).
fn outside_quotes(text: &str, separator: char) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut start, mut quoted) = (0, false);
    for (i, c) in text.char_indices() {
        if c == '"' {
            quoted = !quoted;
        } else if c == separator && !quoted {
            parts.push(&text[start..i]);
            start = i + c.len_utf8();
        }
    }
    if quoted {
        return vec![text];
    }
    parts.push(&text[start..]);
    parts
}

/// `X,Y` on a play area.
fn position(a: &Args, xy: &str) -> Result<(i32, i32), String> {
    let (x, y) = xy.split_once(',').ok_or_else(|| a.usage())?;
    let x = x.trim().parse::<i32>().map_err(|_| a.usage())?;
    let y = y.trim().parse::<i32>().map_err(|_| a.usage())?;
    Ok((x, y))
}

/// `watch-delay N`: N turns, at most the relay's limit.
pub fn watch_delay(a: &Args) -> Result<Command, String> {
    let turns = one_number(a)?;
    match u8::try_from(turns).ok().filter(|&turns| u32::from(turns) <= MAX_WATCH_DELAY_TURNS) {
        Some(turns) => Ok(Command::Watch(WatchStep::Delay(turns))),
        None => Err(a.usage_with(&format!("N from 0 to {MAX_WATCH_DELAY_TURNS}"))),
    }
}

/// The one whole number a command such as `draw N` takes.
fn one_number(a: &Args) -> Result<u32, String> {
    match a.words[..] {
        [n] => n.parse::<u32>().map_err(|_| a.usage_with("a whole number")),
        _ => Err(a.usage()),
    }
}

fn zone_kind(name: &str) -> Result<ZoneKind, String> {
    ZoneKind::ALL
        .into_iter()
        .find(|k| k.name() == name)
        .ok_or_else(|| format!("unknown zone {name:?}: library, hand, graveyard, exile, play, sideboard or command"))
}

/// The card `words` name: an id as printed in events (`12`, `#12`), a name in double quotes (`"Lightning Bolt"`),
/// or the words themselves (`lightning bolt`).
fn card_ref(a: &Args, words: &[&str]) -> Result<CardRef, String> {
    let text = words.join(" ");
    if let Some(quoted) = text.strip_prefix('"') {
        let name = quoted.strip_suffix('"').ok_or_else(|| format!("{text} lacks its closing quote"))?;
        return if name.trim().is_empty() { Err(a.usage()) } else { Ok(CardRef::Name(name.to_string())) };
    }
    match words {
        [] => Err(a.usage()),
        [word] if word.starts_with('#') || word.chars().all(|c| c.is_ascii_digit()) => card_id(word).map(CardRef::Id),
        _ => Ok(CardRef::Name(text)),
    }
}

/// A card id as printed in events: `12` or `#12`.
fn card_id(text: &str) -> Result<CardId, String> {
    text.trim_start_matches('#').parse::<u32>().map(CardId).map_err(|_| format!("{text:?} is not a card id"))
}
