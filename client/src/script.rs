//! Scripted mode: the session's front end for scripts, bots and tests. Commands come one per line from an
//! input, and every output goes out as one JSON object per line.

use std::collections::BTreeMap;
use std::io::Write;

use fairdeck_shared::crypto::{Group, Suite};
use fairdeck_shared::engine::{ChosenBy, DifferenceCheck, Engine, Event, GameEnd};
use fairdeck_shared::table::{CardId, Knowledge, ZoneId, ZoneKind};
use fairdeck_shared::wire::{Action, PeekPurpose};
use fairdeck_shared::{Seat, SeatMap};
use serde::Serialize;
use tokio::io::AsyncBufRead;

use crate::command::ErrorKind;
use crate::input_lines::{InputLines, Refused};
use crate::play::Play;
use crate::session::{Frontend, Output, SessionError};
use crate::ui::table_view::TableSource;

/// An action as scripts read it: its kind beside its fields (`{"action": "draw", "count": 1}`), a shape kept stable
/// for scripts, where the engine's JSON view nests the fields under the kind (`{"draw": {"count": 1}}`).
fn tagged_action<S: serde::Serializer>(action: &Action, serializer: S) -> Result<S::Ok, S::Error> {
    let mut tagged = serde_json::Map::new();
    match serde_json::to_value(action).map_err(serde::ser::Error::custom)? {
        serde_json::Value::Object(variant) => {
            for (kind, fields) in variant {
                tagged.insert("action".into(), kind.into());
                if let serde_json::Value::Object(fields) = fields {
                    tagged.extend(fields);
                }
            }
        }
        kind => {
            tagged.insert("action".into(), kind);
        }
    }
    tagged.serialize(serializer)
}

/// Runs a scripted game (a session, or a practice game) to its end: `Ok` after `quit` (or the end of input),
/// else the fatal error, which has also been written as an `error` event.
pub async fn run_script<R, W>(game: impl Play, input: R, out: W) -> Result<(), SessionError>
where
    R: AsyncBufRead + Unpin,
    W: Write,
{
    let mut front = Script { lines: InputLines::new(input), out };
    let result = game.play(&mut front).await;
    if let Err(error) = &result {
        // Best effort: the error also goes to stderr from the binary.
        let _ = emit(&mut front.out, &ScriptEvent::Error { kind: error.kind(), message: error.to_string() });
    }
    result
}

struct Script<R, W> {
    lines: InputLines<R>,
    out: W,
}

impl<R: AsyncBufRead + Unpin, W: Write> Frontend for Script<R, W> {
    async fn next_line(&mut self) -> Option<String> {
        // `InputLines::next` is cancel-safe, as the session requires. A read error ends the input like its end.
        loop {
            match self.lines.next().await?.taken() {
                Ok(text) => return Some(text),
                Err(Refused { start, reason }) => {
                    let refused = Output::CommandError { kind: ErrorKind::BadCommand, command: start, message: reason };
                    // Best effort, as every event: a script that stopped reading learns nothing more.
                    let _ = emit(&mut self.out, &refused);
                }
            }
        }
    }

    /// Each output as it serializes, but for those that need the engine to be written, and those not for scripts:
    /// what a script's intent changes comes as events, and the status line's running counts are the terminal's (a
    /// script gets the one `waiting` event when a wait is long enough to claim a forfeit, and the one
    /// `forfeit_possible` when an absence is).
    fn show<G: Group>(&mut self, output: Output, engine: &Engine<G>) -> std::io::Result<()> {
        match output {
            Output::Waiting(_) | Output::ForfeitGrace(_) | Output::Taken(_) => Ok(()),
            Output::Table => emit_table(&mut self.out, engine),
            Output::Browsing(open) => {
                let cards = open.cards.iter().map(|&card| BrowsedCard { card: card.0, name: card_name(engine, card) });
                emit(&mut self.out, &ScriptEvent::Browsing { purpose: open.purpose, cards: cards.collect() })
            }
            Output::Engine(event) => emit(&mut self.out, &engine_event(event, engine)),
            output => emit(&mut self.out, &output),
        }
    }
}

/// Writes `event` as the game writes it, with `source`'s table (a spectator's `alert` events, for one).
pub(crate) fn emit_event(out: &mut impl Write, event: Event, source: &impl TableSource) -> std::io::Result<()> {
    emit(out, &engine_event(event, source))
}

/// Writes `event` as one JSON line (`fairdeck replay --script` and `fairdeck watch --script` write their own events
/// this way too).
pub(crate) fn emit(out: &mut impl Write, event: &impl Serialize) -> std::io::Result<()> {
    let line = serde_json::to_string(event).map_err(std::io::Error::other)?;
    writeln!(out, "{line}")?;
    out.flush()
}

/// The lines scripted mode prints besides the session's own outputs ([`Output`], which serialize themselves): the
/// engine's events, the table, an open search, and the fatal error. One JSON object whose `event` names the
/// variant (README, "Scripted mode", lists them all). Names and fields are stable: they come from these types,
/// never from `Debug` text.
#[derive(Debug, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
enum ScriptEvent {
    /// An alert of the engine: `kind` is its alert kind (`AlertKind::name`).
    Alert {
        kind: &'static str,
        detail: String,
        misbehaviour: bool,
    },
    /// The fatal error that ends the session (a refused command is an [`Output::CommandError`]).
    Error {
        kind: &'static str,
        message: String,
    },
    Table(TableView),
    /// The opponent's hello: its name, its program, and the suite the cards are locked in (both hellos agree).
    Connected {
        name: String,
        software: String,
        suite: Suite,
    },
    Setup {
        done: u32,
        total: u32,
    },
    Ready,
    Applied {
        number: u64,
        by: &'static str,
        #[serde(serialize_with = "tagged_action")]
        action: Action,
        /// The card's name, when the action names a card this player knows.
        #[serde(skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    Rejected {
        #[serde(serialize_with = "tagged_action")]
        action: Action,
        reason: String,
    },
    /// An open search, scry or surveil: its cards still in the library, top first.
    Browsing {
        purpose: PeekPurpose,
        cards: Vec<BrowsedCard>,
    },
    Learned {
        card: u32,
        name: String,
        owner: &'static str,
    },
    Shuffled {
        library: &'static str,
    },
    /// `dice` as `NdM`.
    Rolled {
        by: &'static str,
        dice: String,
        faces: Vec<u32>,
    },
    Flipped {
        by: &'static str,
        coin: &'static str,
    },
    ShownAtRandom {
        by: &'static str,
        card: u32,
        name: Option<String>,
    },
    Chat {
        from: &'static str,
        text: String,
    },
    RevealRequested {
        zone: String,
        count: Option<u32>,
    },
    RevealRefused {
        zone: String,
    },
    /// `by` asks to undo its action number `action` (`undone`); the other answers `undo accept` or `undo refuse`.
    UndoAsked {
        by: &'static str,
        action: u64,
        #[serde(serialize_with = "tagged_action")]
        undone: Action,
    },
    /// `by` refused to undo action number `action`.
    UndoRefused {
        by: &'static str,
        action: u64,
    },
    /// `asker`'s request to undo action number `action` lapsed: another action came first.
    UndoLapsed {
        asker: &'static str,
        action: u64,
    },
    /// Action number `action`, `actor`'s, was undone by consent: the table is as before it.
    Undone {
        actor: &'static str,
        action: u64,
        #[serde(serialize_with = "tagged_action")]
        undone: Action,
    },
    NewGameRequested,
    ForfeitClaimed {
        by: &'static str,
        awaited: String,
    },
    NewGame {
        number: u32,
    },
    Pong,
    /// The opponent ended the game and its whole deck checked out: `cards` cards.
    Audited {
        seat: &'static str,
        cards: usize,
    },
    /// The game is over: `loser` lost it, `how` (`conceded`, `forfeited`).
    GameOver {
        loser: &'static str,
        how: GameEnd,
    },
    /// `seat` chooses to play or draw, decided `by` (`coin`, or `previous-loser`: both new-game requests named it
    /// the loser of the previous game).
    Chooser {
        seat: &'static str,
        by: ChosenBy,
    },
    /// Limited play: both hold the pool file of hash `pool` (its first 8 bytes in hex) and play the host's `format`.
    Limited {
        format: fairdeck_shared::wire::LimitedFormat,
        pool: String,
    },
    /// Limited play: this player's pool, dealt: `[count, name]` pairs by name.
    Pool {
        cards: Vec<(u32, String)>,
    },
    /// Grid draft: grid `grid` (from 0) as it stands, its nine cells row by row (`null` when taken), and who picks
    /// next (`null` once both picked).
    Grid {
        grid: u32,
        cells: Vec<Option<String>>,
        picker: Option<&'static str>,
    },
    /// Grid draft: `by` took `line` (`{"row":N}` or `{"column":N}`, from 0) of grid `grid`: these cards.
    Picked {
        by: &'static str,
        grid: u32,
        line: fairdeck_shared::wire::GridLine,
        cards: Vec<String>,
    },
    /// Winston draft: the piles' sizes, the cards left in the stack, who looks (`null` once over) at which pile (0 to
    /// 2).
    Winston {
        piles: [u32; 3],
        stack: u32,
        looking: Option<&'static str>,
        pile: Option<u8>,
    },
    /// Winston draft: the cards of the pile this player looks at.
    PileShown {
        pile: u8,
        cards: Vec<String>,
    },
    /// Winston draft: `by` took `count` cards, of pile `pile` or (`null`) the stack's top card; `cards` names them
    /// to the taker only.
    PileTaken {
        by: &'static str,
        pile: Option<u8>,
        count: u32,
        cards: Vec<String>,
    },
    /// Booster draft: round `round` (from 0) of `rounds`; the packs waiting with, and the cards taken by, the host
    /// and the guest.
    Packs {
        round: u32,
        rounds: u32,
        waiting: SeatMap<u32>,
        picks: SeatMap<u32>,
    },
    /// Booster draft: the pack `pack` this player picks from now: its cards, in the order `pick N` counts (from 1).
    Pack {
        pack: u32,
        cards: Vec<String>,
    },
    /// Booster draft: `by` took a card of pack `pack`; `card` names it to the taker only (`null` for the other).
    CardTaken {
        by: &'static str,
        pack: u32,
        card: Option<String>,
    },
    /// A deck entered the game with its owner's label; `changed` since the previous game.
    DeckLabel {
        seat: &'static str,
        label: String,
        changed: bool,
    },
    /// `seat`'s deck for game `game` holds other cards than its deck in the match's first game: `added` and
    /// `removed` as `[count, name]` pairs; `check` is `at-audit` (its owner's audit checks it) or `unverifiable`
    /// (its owner's deck of the match's first game was never audited).
    DeckDiffers {
        seat: &'static str,
        game: u32,
        added: Vec<(u32, String)>,
        removed: Vec<(u32, String)>,
        check: DifferenceCheck,
    },
    /// Game `game` was left without `seat`'s deck of it passing an audit the opponent took in: nobody checked it; when
    /// `game` is 1, every later `deck_differs` of `seat` is `unverifiable`.
    AuditMissing {
        seat: &'static str,
        game: u32,
    },
}

/// The public table, as the `table` event prints it.
#[derive(Debug, Serialize)]
struct TableView {
    me: &'static str,
    turn: u32,
    /// Each zone (`host hand`, `guest library`…): its count and card ids in order.
    zones: BTreeMap<String, ZoneView>,
    /// Each player's values (life and counters), by seat name.
    players: BTreeMap<&'static str, BTreeMap<String, i64>>,
    /// What both players see of every card outside the libraries, by id.
    cards: BTreeMap<u32, CardView>,
    applied: u64,
}

/// What both players see of a card.
#[derive(Debug, Serialize)]
struct CardView {
    /// Its name, when both players know it.
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<String>,
    x: i32,
    y: i32,
    face_down: bool,
    tapped: bool,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    counters: BTreeMap<String, i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    attached_to: Option<u32>,
    /// A token's power and toughness, as `1/1`.
    #[serde(skip_serializing_if = "Option::is_none")]
    power_toughness: Option<String>,
}

#[derive(Debug, Serialize)]
struct BrowsedCard {
    card: u32,
    name: Option<String>,
}

#[derive(Debug, Serialize)]
struct ZoneView {
    count: usize,
    cards: Vec<u32>,
}

fn card_name(engine: &impl TableSource, card: CardId) -> Option<String> {
    engine.identity(card).map(|i| i.name.clone())
}

fn engine_event(event: Event, engine: &impl TableSource) -> ScriptEvent {
    match event {
        Event::Connected { name, software, suite } => ScriptEvent::Connected { name, software, suite },
        Event::SetupProgress { done, total } => ScriptEvent::Setup { done, total },
        Event::Ready => ScriptEvent::Ready,
        Event::Applied { number, by, action, .. } => {
            let card = match &action {
                Action::Move { card, .. } | Action::Tap { card, .. } | Action::SetCardValue { card, .. } => Some(*card),
                _ => None,
            };
            let name = card.and_then(|c| card_name(engine, c));
            ScriptEvent::Applied { number, by: by.name(), action, name }
        }
        Event::Rejected { action, reason } => ScriptEvent::Rejected { action, reason },
        Event::Learned { card, instance } => {
            ScriptEvent::Learned { card: card.0, name: instance.name, owner: instance.owner.name() }
        }
        Event::Shuffled { library } => ScriptEvent::Shuffled { library: library.name() },
        Event::Rolled { by, dice, faces } => {
            ScriptEvent::Rolled { by: by.name(), dice: format!("{}d{}", dice.count(), dice.sides()), faces }
        }
        Event::Flipped { by, coin } => ScriptEvent::Flipped { by: by.name(), coin: coin.name() },
        Event::ShownAtRandom { by, card } => {
            ScriptEvent::ShownAtRandom { by: by.name(), card: card.0, name: card_name(engine, card) }
        }
        Event::Chat { from, text } => ScriptEvent::Chat { from: from.name(), text },
        Event::RevealRequested { zone, count } => ScriptEvent::RevealRequested { zone: zone.to_string(), count },
        Event::RevealRefused { zone } => ScriptEvent::RevealRefused { zone: zone.to_string() },
        Event::UndoAsked { by, action, undone } => ScriptEvent::UndoAsked { by: by.name(), action, undone },
        Event::UndoRefused { by, action } => ScriptEvent::UndoRefused { by: by.name(), action },
        Event::UndoLapsed { asker, action } => ScriptEvent::UndoLapsed { asker: asker.name(), action },
        Event::Undone { actor, action, undone } => ScriptEvent::Undone { actor: actor.name(), action, undone },
        Event::NewGameRequested => ScriptEvent::NewGameRequested,
        Event::ForfeitClaimed { by, awaited } => {
            ScriptEvent::ForfeitClaimed { by: by.name(), awaited: awaited.to_string() }
        }
        Event::NewGame { number } => ScriptEvent::NewGame { number },
        Event::Pong => ScriptEvent::Pong,
        Event::Audited { seat, deck } => ScriptEvent::Audited { seat: seat.name(), cards: deck.len() },
        Event::GameOver { loser, how } => ScriptEvent::GameOver { loser: loser.name(), how },
        Event::Chooser { seat, by } => ScriptEvent::Chooser { seat: seat.name(), by },
        Event::DeckLabel { seat, label, changed } => ScriptEvent::DeckLabel { seat: seat.name(), label, changed },
        Event::DeckDiffers { seat, game, difference, check } => ScriptEvent::DeckDiffers {
            seat: seat.name(),
            game,
            added: difference.added,
            removed: difference.removed,
            check,
        },
        Event::AuditMissing { seat, game } => ScriptEvent::AuditMissing { seat: seat.name(), game },
        Event::LimitedAgreed { format, pool } => ScriptEvent::Limited { format, pool: pool.to_string() },
        Event::Pool { cards } => ScriptEvent::Pool { cards: crate::deck::counted(&cards) },
        Event::Grid { grid, cells, picker } => ScriptEvent::Grid { grid, cells, picker: picker.map(Seat::name) },
        Event::Picked { by, grid, line, cards } => ScriptEvent::Picked { by: by.name(), grid, line, cards },
        Event::Winston { piles, stack, looking } => ScriptEvent::Winston {
            piles,
            stack,
            looking: looking.map(|(seat, _)| seat.name()),
            pile: looking.map(|(_, pile)| pile),
        },
        Event::PileShown { pile, cards } => ScriptEvent::PileShown { pile, cards },
        Event::PileTaken { by, pile, count, cards } => ScriptEvent::PileTaken { by: by.name(), pile, count, cards },
        Event::Packs { round, rounds, waiting, picks } => ScriptEvent::Packs { round, rounds, waiting, picks },
        Event::Pack { pack, cards } => ScriptEvent::Pack { pack, cards },
        Event::CardTaken { by, pack, card } => ScriptEvent::CardTaken { by: by.name(), pack, card },
        Event::Alert(alert) => ScriptEvent::Alert {
            kind: alert.kind.name(),
            detail: alert.detail,
            misbehaviour: alert.kind.is_misbehaviour(),
        },
    }
}

/// Writes the `table` event of `source`'s table: the game's, `fairdeck replay --script`'s after each step, and a
/// spectator's (`fairdeck watch --script`).
pub(crate) fn emit_table(out: &mut impl Write, source: &impl TableSource) -> std::io::Result<()> {
    emit(out, &ScriptEvent::Table(table_view(source)))
}

/// The public table: each zone's card ids in order, its count, and the players' values. Both sides
/// print the same thing at the same point of the game's order.
fn table_view(engine: &impl TableSource) -> TableView {
    let table = engine.table();
    let mut zones = BTreeMap::new();
    for owner in Seat::BOTH {
        for kind in ZoneKind::ALL {
            let cards: Vec<u32> = table.zone(ZoneId::new(owner, kind)).iter().map(|c| c.0).collect();
            zones.insert(format!("{} {}", owner.name(), kind.name()), ZoneView { count: cards.len(), cards });
        }
    }
    let players = Seat::BOTH.into_iter().map(|seat| (seat.name(), table.player(seat).values.clone())).collect();
    let cards = table
        .cards()
        .filter(|card| card.zone.kind != ZoneKind::Library)
        .map(|card| {
            let view = CardView {
                name: (card.known_to == Knowledge::BOTH).then(|| card_name(engine, card.id)).flatten(),
                x: card.placement.x,
                y: card.placement.y,
                face_down: card.placement.face_down,
                tapped: card.tapped,
                counters: card.counters.clone(),
                attached_to: card.attached_to.map(|to| to.0),
                power_toughness: card.power_toughness.map(|pt| pt.to_string()),
            };
            (card.id.0, view)
        })
        .collect();
    let applied = engine.actions_applied();
    TableView { me: engine.seat().name(), turn: table.turn, zones, players, cards, applied }
}

#[cfg(test)]
mod tests {
    use fairdeck_shared::crypto::Ristretto255;
    use fairdeck_shared::engine::{DeckCard, DeckList, EngineConfig};
    use fairdeck_shared::wire::DeckDifference;

    use super::*;

    fn engine() -> Engine<Ristretto255> {
        let config = EngineConfig { name: "Ada".into(), software: "fairdeck-test".into() };
        let deck = DeckList { library: vec![DeckCard { name: "Mountain".into(), back: 0 }], ..DeckList::default() };
        Engine::new(Seat::HOST, config, deck, [1; 32]).expect("a valid deck")
    }

    fn json(event: Event) -> serde_json::Value {
        serde_json::to_value(engine_event(event, &engine())).expect("a script event serializes")
    }

    /// The lines scripted mode writes for `outputs`.
    fn lines(outputs: Vec<Output>) -> Vec<String> {
        let mut front = Script { lines: InputLines::new(&b""[..]), out: Vec::new() };
        for output in outputs {
            front.show(output, &engine()).expect("an output is written");
        }
        String::from_utf8(front.out).unwrap().lines().map(str::to_string).collect()
    }

    #[test]
    fn the_sessions_outputs_print_as_scripts_have_always_read_them() {
        use fairdeck_shared::wire::Awaited;

        use crate::command::{ErrorKind, TopWatch};
        use crate::deck::{DeckWarning, WarningKind};
        use crate::session::Waiting;
        use crate::session::spectators::OpeningFailure;

        let refused =
            Output::CommandError { kind: ErrorKind::BadCommand, command: "dance".into(), message: "no".into() };
        let outputs = vec![
            Output::Deck { hash: "ab".into(), main: 60, sideboard: 15, commander: vec!["Krenko".into()] },
            Output::DeckWarning {
                file: "burn.txt".into(),
                warning: DeckWarning { kind: WarningKind::UnknownCard, line: Some(3), message: "no card".into() },
            },
            Output::Sideboarded {
                cards_in: vec![(2, "Kor Firewalker".into())],
                cards_out: vec![(2, "Lava Spike".into())],
                main: 60,
                sideboard: 15,
                hash: "ab".into(),
            },
            Output::Code("7-violin-ember".into()),
            Output::WrongCodeTried { attempts: 2, reopened: true },
            Output::WrongWatchCodeTried { watcher: 1, failure: OpeningFailure::Replaced, attempts: 3, closed: true },
            Output::Serving { listen: "0.0.0.0:7171".parse().unwrap(), relay: Some("ws://192.168.1.5:7171/v1".into()) },
            Output::Serving { listen: "[::]:7171".parse().unwrap(), relay: None },
            Output::Paired,
            Output::Saved("/tmp/g.fairdeck".into()),
            Output::Restored { path: "/tmp/g.fairdeck".into(), moves: 4, relay: "ws://r".into(), history: vec![] },
            Output::Rendezvous { peer_here: false },
            Output::ChannelEstablished,
            Output::PeerAway { hold_ms: 60000 },
            Output::PeerBack,
            Output::PeerGone { reason: "left" },
            Output::RelayRestarting { reconnect_after_ms: 500 },
            Output::RelayLost("reset".into()),
            Output::Resumed { peer_here: true },
            Output::RelayAlert("odd".into()),
            refused,
            Output::BrowsingClosed(PeekPurpose::Search),
            Output::TopWatch(Some(TopWatch::Reveal)),
            Output::TopWatch(None),
            Output::Idle,
            Output::Overdue(Waiting { awaited: Awaited::Deck, seconds: 31 }),
            Output::ForfeitPossible { away: 61 },
            // Not for scripts: the status line's counts, and what a script's own command was taken as.
            Output::Waiting(None),
            Output::ForfeitGrace(Some(3)),
            Output::Taken(fairdeck_shared::engine::Intent::Ping),
        ];
        let expected = [
            r#"{"event":"deck","hash":"ab","main":60,"sideboard":15,"commander":["Krenko"]}"#.to_string(),
            r#"{"event":"deck_warning","file":"burn.txt","kind":"unknown_card","line":3,"message":"no card"}"#.into(),
            r#"{"event":"sideboarded","cards_in":[[2,"Kor Firewalker"]],"cards_out":[[2,"Lava Spike"]],"main":60,"sideboard":15,"hash":"ab"}"#.into(),
            r#"{"event":"code","code":"7-violin-ember"}"#.into(),
            r#"{"event":"wrong_code_tried","attempts":2,"reopened":true}"#.into(),
            r#"{"event":"wrong_watch_code_tried","watcher":1,"failure":"replaced","attempts":3,"closed":true}"#.into(),
            r#"{"event":"serving","listen":"0.0.0.0:7171","relay":"ws://192.168.1.5:7171/v1"}"#.into(),
            r#"{"event":"serving","listen":"[::]:7171","relay":null}"#.into(),
            r#"{"event":"paired"}"#.into(),
            r#"{"event":"saved","file":"/tmp/g.fairdeck"}"#.into(),
            r#"{"event":"restored","file":"/tmp/g.fairdeck","moves":4,"relay":"ws://r"}"#.into(),
            r#"{"event":"rendezvous","peer_here":false}"#.into(),
            r#"{"event":"channel","established":true}"#.into(),
            r#"{"event":"peer_away","hold_ms":60000}"#.into(),
            r#"{"event":"peer_back"}"#.into(),
            r#"{"event":"peer_gone","reason":"left"}"#.into(),
            r#"{"event":"relay_restarting","reconnect_after_ms":500}"#.into(),
            r#"{"event":"relay_lost","detail":"reset"}"#.into(),
            r#"{"event":"resumed","peer_here":true}"#.into(),
            r#"{"event":"alert","kind":"relay","detail":"odd"}"#.into(),
            r#"{"event":"error","kind":"bad_command","command":"dance","message":"no"}"#.into(),
            r#"{"event":"browsing_closed","purpose":"search"}"#.into(),
            r#"{"event":"top_watch","watch":"reveal"}"#.into(),
            r#"{"event":"top_watch","watch":null}"#.into(),
            r#"{"event":"idle"}"#.into(),
            format!(r#"{{"event":"waiting","awaited":"{}","seconds":31}}"#, Awaited::Deck),
            r#"{"event":"forfeit_possible","seconds":61}"#.into(),
        ];
        assert_eq!(lines(outputs), expected);
    }

    #[test]
    fn the_table_an_open_search_and_an_alert_need_the_engine_and_print_as_before() {
        // A card the engine does not know: no name.
        let open = crate::command::Browsing::new(PeekPurpose::Scry, vec![CardId(3)]);
        let printed = lines(vec![Output::Browsing(open), Output::Table]);
        assert_eq!(printed[0], r#"{"event":"browsing","purpose":"scry","cards":[{"card":3,"name":null}]}"#);
        assert!(printed[1].starts_with(r#"{"event":"table","me":"host","turn":0,"#), "{}", printed[1]);
        let alert = fairdeck_shared::engine::Alert {
            kind: fairdeck_shared::engine::AlertKind::BadProof,
            detail: "forged".into(),
            evidence: None,
        };
        let alert = json(Event::Alert(alert));
        assert_eq!(alert["event"], "alert");
        assert_eq!(alert["misbehaviour"], true);
    }

    #[test]
    fn the_chooser_event_says_how_the_choice_was_decided() {
        assert_eq!(
            json(Event::Chooser { seat: Seat::GUEST, by: ChosenBy::Loser }),
            serde_json::json!({"event": "chooser", "seat": "guest", "by": "previous-loser"})
        );
        assert_eq!(
            json(Event::Chooser { seat: Seat::HOST, by: ChosenBy::Coin }),
            serde_json::json!({"event": "chooser", "seat": "host", "by": "coin"})
        );
    }

    #[test]
    fn a_deck_off_the_matchs_75_is_an_event_with_what_differs() {
        let difference =
            DeckDifference { added: vec![(1, "Shock".into())], removed: vec![(2, "Lightning Bolt".into())] };
        assert_eq!(
            json(Event::DeckDiffers { seat: Seat::GUEST, game: 2, difference, check: DifferenceCheck::Unverifiable }),
            serde_json::json!({
                "event": "deck_differs", "seat": "guest", "game": 2,
                "added": [[1, "Shock"]], "removed": [[2, "Lightning Bolt"]], "check": "unverifiable",
            })
        );
    }

    #[test]
    fn a_missing_audit_is_an_event_naming_whose_deck_and_which_game() {
        assert_eq!(
            json(Event::AuditMissing { seat: Seat::GUEST, game: 1 }),
            serde_json::json!({"event": "audit_missing", "seat": "guest", "game": 1})
        );
    }
}
