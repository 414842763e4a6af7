//! Each kind's gate, as a fresh session judges it, and the refusals' words.

use std::time::Instant;

use fairdeck_shared::Seat;
use fairdeck_shared::crypto::Ristretto255;
use fairdeck_shared::engine::{DeckCard, DeckList, Engine, EngineConfig};

use super::codes::NewCodeRefused;
use super::decks::SideboardRefused;
use super::done::DoneRefused;
use super::forfeit::ForfeitRefused;
use super::gate;
use crate::channel::{Channel, Side};
use crate::code::Code;
use crate::command::{Gate, parse};
use crate::save::RelayPlace;
use crate::session::state::SessionCore;
use crate::session::uplink::{LinkState, Uplink};
use crate::session::wait_clock::FORFEIT_GRACE;

/// A host's session of a constructed match, before any guest.
fn core() -> SessionCore<Ristretto255> {
    let library = (0..8).map(|i| DeckCard { name: format!("Card {i}"), back: 0 }).collect();
    let deck = DeckList { library, ..DeckList::default() };
    let config = EngineConfig { name: "Host".into(), software: "test".into() };
    let engine = Engine::<Ristretto255>::new(Seat::HOST, config, deck, [1; 32]).unwrap();
    let code = Code::random("7");
    let channel = Channel::new(Side::Host, &code.password(), code.nameplate(), [2; 32]);
    let relay = RelayPlace { url: "ws://relay.test/v1".into(), ca: None, token: None, serve: None };
    SessionCore::new(engine, channel, Uplink::new(LinkState::Up, relay), [3; 32], FORFEIT_GRACE, Instant::now())
}

fn gate_of(line: &str) -> Gate {
    gate(&parse(line, Seat::HOST).unwrap_or_else(|e| panic!("{line}: {e}")), &core())
}

#[test]
fn each_kind_of_command_waits_for_what_it_needs() {
    // Talking and asking need no table; table actions wait for the set-up.
    for line in [
        "say hi",
        "ask hand",
        "refuse hand",
        "table",
        "forfeit",
        "new-game",
        "new-code",
        "add 2 bolt",
        "pool",
        "watch-code",
        "new-watch-code",
        "watch-off",
        "watch-delay 2",
    ] {
        assert_eq!(gate_of(line), Gate::Always, "{line}");
    }
    for line in ["draw 1", "tap 3", "life 20", "token Goblin", "always-look", "end"] {
        assert_eq!(gate_of(line), Gate::SetUp, "{line}");
    }
    // Cards named in the library, or taken from its top, once the peeks under way are answered; `done` outside
    // limited play closes what is browsed.
    for line in ["search", "scry 2", "take 3", "top 3", "done", "reveal hand", "reveal top", "mill 2"] {
        assert_eq!(gate_of(line), Gate::Settled, "{line}");
    }
    // One entry, two kinds: a card revealed by id waits for the set-up only.
    assert_eq!(gate_of("reveal 3"), Gate::SetUp);
    assert_eq!(gate_of("wait"), Gate::Idle);
    assert_eq!(gate_of("undo"), Gate::Idle);
    assert_eq!(gate_of("quit"), Gate::Acknowledged);
}

#[test]
fn refusals_say_what_scripts_have_always_read() {
    let opponent = "Bea".to_string();
    assert_eq!(
        ForfeitRefused::NotToldYet { opponent: opponent.clone() }.to_string(),
        "the relay has not said yet whether Bea is here: forfeit once it has"
    );
    assert_eq!(
        ForfeitRefused::MayComeBack { opponent, away: 12, left: 48 }.to_string(),
        "Bea left 12 s ago and may be coming back: forfeit is possible in 48 s"
    );
    assert_eq!(
        SideboardRefused::Limited.to_string(),
        "in limited play, change your deck with add and remove, then done"
    );
    assert_eq!(
        DoneRefused::DeckIsIn.to_string(),
        "your deck for this game is in: sideboard once the game is over (`end`)"
    );
    assert_eq!(NewCodeRefused::NoCode.to_string(), "only the host has a code, and only until the opponent proved it");
}
