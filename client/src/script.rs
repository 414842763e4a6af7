//! Scripted mode: the session's front end for scripts, bots and tests. Commands come one per line from an
//! input, and every output goes out as one JSON object per line.

use std::io::Write;

use fairdeck_shared::Seat;
use fairdeck_shared::crypto::Ristretto255;
use fairdeck_shared::engine::{Engine, Event};
use fairdeck_shared::table::{ZoneId, ZoneKind};
use fairdeck_shared::wire::Action;
use serde_json::{Value, json};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, Lines};

use crate::session::{self, Frontend, Options, Output, SessionError, Waiting};

/// Runs a scripted session to its end: `Ok` after `quit` (or the end of input), else the fatal error,
/// which has also been written as an `error` event.
pub async fn run_script<R, W>(options: Options, input: R, out: W) -> Result<(), SessionError>
where
    R: AsyncBufRead + Unpin,
    W: Write,
{
    let mut front = Script { lines: input.lines(), out };
    let result = session::run(options, &mut front).await;
    if let Err(error) = &result {
        // Best effort: the error also goes to stderr from the binary.
        let _ = emit(&mut front.out, json!({"event": "error", "kind": error.kind(), "message": error.to_string()}));
    }
    result
}

struct Script<R, W> {
    lines: Lines<R>,
    out: W,
}

impl<R: AsyncBufRead + Unpin, W: Write> Frontend for Script<R, W> {
    async fn next_line(&mut self) -> Option<String> {
        // `next_line` is cancel-safe, as the session requires. A read error ends the input like its end.
        self.lines.next_line().await.ok().flatten()
    }

    fn show(&mut self, output: Output, engine: &Engine<Ristretto255>) -> std::io::Result<()> {
        match output_json(output, engine) {
            Some(value) => emit(&mut self.out, value),
            None => Ok(()),
        }
    }
}

fn emit(out: &mut impl Write, value: Value) -> std::io::Result<()> {
    writeln!(out, "{value}")?;
    out.flush()
}

/// The event for an output, or `None` for the status line's running count of a wait: a script gets the
/// one `waiting` event when the wait is long enough to claim a forfeit.
fn output_json(output: Output, engine: &Engine<Ristretto255>) -> Option<Value> {
    let value = match output {
        Output::Deck { hash, main, sideboard } => {
            json!({"event": "deck", "hash": hash, "main": main, "sideboard": sideboard})
        }
        Output::Code(code) => json!({"event": "code", "code": code}),
        Output::WrongCodeTried { attempts, reopened } => {
            json!({"event": "wrong_code_tried", "attempts": attempts, "reopened": reopened})
        }
        Output::Paired => json!({"event": "paired"}),
        Output::Saved(path) => json!({"event": "saved", "file": path}),
        Output::Restored { path, moves, relay } => {
            json!({"event": "restored", "file": path, "moves": moves, "relay": relay})
        }
        Output::Rendezvous { peer_here } => json!({"event": "rendezvous", "peer_here": peer_here}),
        Output::ChannelEstablished => json!({"event": "channel", "established": true}),
        Output::PeerAway { hold_ms } => json!({"event": "peer_away", "hold_ms": hold_ms}),
        Output::PeerBack => json!({"event": "peer_back"}),
        Output::PeerGone { reason } => json!({"event": "peer_gone", "reason": reason}),
        Output::RelayRestarting { reconnect_after_ms } => {
            json!({"event": "relay_restarting", "reconnect_after_ms": reconnect_after_ms})
        }
        Output::RelayLost(detail) => json!({"event": "relay_lost", "detail": detail}),
        Output::Resumed { peer_here } => json!({"event": "resumed", "peer_here": peer_here}),
        Output::RelayAlert(detail) => json!({"event": "alert", "kind": "relay", "detail": detail}),
        Output::CommandError { kind, command, message } => {
            json!({"event": "error", "kind": kind, "command": command, "message": message})
        }
        Output::Idle => json!({"event": "idle"}),
        Output::Waiting(_) => return None,
        Output::Overdue(Waiting { awaited, seconds }) => {
            json!({"event": "waiting", "awaited": awaited.to_string(), "seconds": seconds})
        }
        Output::Table => table_json(engine),
        Output::Engine(event) => event_json(event, engine),
    };
    Some(value)
}

fn card_name(engine: &Engine<Ristretto255>, card: fairdeck_shared::table::CardId) -> Option<String> {
    engine.identity(card).map(|i| i.name.clone())
}

fn event_json(event: Event, engine: &Engine<Ristretto255>) -> Value {
    match event {
        Event::Connected { name, software } => json!({"event": "connected", "name": name, "software": software}),
        Event::SetupProgress { done, total } => json!({"event": "setup", "done": done, "total": total}),
        Event::Ready => json!({"event": "ready"}),
        Event::Applied { number, by, action } => {
            let mut value = json!({"event": "applied", "number": number, "by": seat_name(by), "action": action});
            let card = match &action {
                Action::Move { card, .. } | Action::Tap { card, .. } | Action::SetCardValue { card, .. } => Some(*card),
                _ => None,
            };
            if let Some(name) = card.and_then(|c| card_name(engine, c)) {
                value["name"] = json!(name);
            }
            value
        }
        Event::Rejected { action, reason } => json!({"event": "rejected", "action": action, "reason": reason}),
        Event::Learned { card, instance } => json!({
            "event": "learned", "card": card.0, "name": instance.name, "owner": seat_name(instance.owner)
        }),
        Event::Shuffled { library } => json!({"event": "shuffled", "library": seat_name(library)}),
        Event::Rolled { by, dice, faces } => json!({
            "event": "rolled", "by": seat_name(by), "dice": format!("{}d{}", dice.count(), dice.sides()), "faces": faces
        }),
        Event::Flipped { by, coin } => {
            json!({"event": "flipped", "by": seat_name(by), "coin": format!("{coin:?}").to_lowercase()})
        }
        Event::ShownAtRandom { by, card } => json!({
            "event": "shown_at_random", "by": seat_name(by), "card": card.0, "name": card_name(engine, card)
        }),
        Event::Chat { from, text } => json!({"event": "chat", "from": seat_name(from), "text": text}),
        Event::RevealRequested { zone, count } => {
            json!({"event": "reveal_requested", "zone": zone.to_string(), "count": count})
        }
        Event::RevealRefused { zone } => json!({"event": "reveal_refused", "zone": zone.to_string()}),
        Event::NewGameRequested => json!({"event": "new_game_requested"}),
        Event::ForfeitClaimed { by, awaited } => {
            json!({"event": "forfeit_claimed", "by": seat_name(by), "awaited": awaited.to_string()})
        }
        Event::NewGame { number } => json!({"event": "new_game", "number": number}),
        Event::Alert(alert) => json!({
            "event": "alert",
            "kind": alert.kind.name(),
            "detail": alert.detail,
            "misbehaviour": alert.kind.is_misbehaviour()
        }),
        // `pong`, and events newer than this program (the engine grows): named after the variant.
        other => {
            let debug = format!("{other:?}");
            let name: String = debug.chars().take_while(char::is_ascii_alphanumeric).collect();
            json!({"event": name.to_lowercase(), "detail": debug})
        }
    }
}

/// The public table: each zone's card ids in order, its count, and the players' values. Both sides
/// print the same thing at the same point of the game's order.
fn table_json(engine: &Engine<Ristretto255>) -> Value {
    let table = engine.table();
    let mut zones = serde_json::Map::new();
    for owner in Seat::BOTH {
        for kind in ZoneKind::ALL {
            let ids: Vec<u32> = table.zone(ZoneId::new(owner, kind)).iter().map(|c| c.0).collect();
            zones.insert(format!("{} {}", seat_name(owner), kind.name()), json!({"count": ids.len(), "cards": ids}));
        }
    }
    let players: serde_json::Map<String, Value> =
        Seat::BOTH.into_iter().map(|seat| (seat_name(seat).to_string(), json!(table.player(seat).values))).collect();
    json!({
        "event": "table",
        "me": seat_name(engine.seat()),
        "turn": table.turn,
        "zones": zones,
        "players": players,
        "applied": engine.actions_applied(),
    })
}

pub(crate) fn seat_name(seat: Seat) -> &'static str {
    match seat {
        Seat::Host => "host",
        Seat::Guest => "guest",
    }
}
