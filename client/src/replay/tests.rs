//! The replay of a game two engines played in memory: the table and log it rebuilds, its steps, its keys, and its
//! screens at 80×24 drawn to ratatui's `TestBackend`.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use fairdeck_shared::Seat;
use fairdeck_shared::crypto::Ristretto255;
use fairdeck_shared::engine::{DeckCard, DeckList, Intent};
use fairdeck_shared::pair::Pair;
use fairdeck_shared::wire::{Action, MessageKind};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

use super::viewer::{Flow, Viewer, draw, opened};
use super::*;
use crate::ui::table_view::TableView;

/// A deck of ten cards named `name`.
fn deck(name: &str) -> DeckList {
    DeckList { library: vec![DeckCard { name: name.into(), back: 0 }; 10], ..DeckList::default() }
}

/// Two engines set up; the host draws three (Embers), the guest two (Secrets, hidden from the host), and the turn
/// passes twice.
fn played() -> Pair<Ristretto255> {
    let mut pair = Pair::new(deck("Ember"), deck("Secret"), 5);
    pair.drive();
    let moves = [
        (Seat::HOST, Action::Draw { count: 3 }),
        (Seat::GUEST, Action::Draw { count: 2 }),
        (Seat::HOST, Action::NextTurn),
        (Seat::GUEST, Action::NextTurn),
    ];
    for (seat, action) in moves {
        pair.intent(seat, Intent::Act(action)).expect("a legal action");
        pair.drive();
    }
    pair
}

fn host_replay(pair: &Pair<Ristretto255>) -> Replay<Ristretto255> {
    Replay::new(pair.host.journal().clone()).expect("a journal of a game played")
}

fn log(replay: &Replay<Ristretto255>) -> Vec<String> {
    replay.view().log.lines().iter().map(|line| line.text.clone()).collect()
}

fn screen(viewer: &Viewer<Ristretto255>) -> String {
    let mut terminal = Terminal::new(TestBackend::new(80, 24)).expect("test terminal");
    terminal.draw(|frame| draw(frame, viewer)).expect("draw");
    let buffer = terminal.backend().buffer();
    let row = |y| (0..80).map(|x| buffer[(x, y)].symbol()).collect::<String>().replace('\u{a0}', " ");
    (0..24).map(row).collect::<Vec<_>>().join("\n")
}

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

#[test]
fn the_replay_ends_on_the_table_the_owner_had_and_goes_back_to_the_same_tables() {
    let pair = played();
    let mut replay = host_replay(&pair);
    assert_eq!(replay.position(), 0);
    assert_eq!(replay.len(), pair.host.journal().inputs.len());
    assert_eq!(replay.view().table.me.hand.len(), 0, "the start: nothing drawn");

    replay.seek(replay.len()).unwrap();
    assert_eq!(replay.view().table, TableView::from_engine(&pair.host));
    assert_eq!(replay.view().table.me.hand.len(), 3);
    assert_eq!(replay.turn(), 2);
    let end_log = log(&replay);
    assert!(end_log.iter().any(|line| line == "You drew 3 cards"), "{end_log:?}");
    assert!(end_log.iter().any(|line| line == "Guest drew 2 cards"), "{end_log:?}");

    // Back to the middle (made again from the start), then on to the end: the same table and the same log.
    let middle = replay.start_of_turn(1).expect("turn 1 was reached");
    replay.seek(middle).unwrap();
    assert_eq!(replay.position(), middle);
    assert_eq!(replay.turn(), 1);
    assert_eq!(replay.turns[middle - 1], 0, "the step before starts no turn");
    replay.seek(usize::MAX).unwrap();
    assert_eq!(replay.view().table, TableView::from_engine(&pair.host));
    assert_eq!(log(&replay), end_log);
    assert_eq!(replay.start_of_turn(3), None, "the game never reached turn 3");
}

#[test]
fn each_step_names_its_input_and_the_turn_after_it() {
    let pair = played();
    let replay = host_replay(&pair);
    let hello = replay.step(1).expect("a first step");
    assert_eq!(hello.kind, StepKind::Message { message: Some(MessageKind::Hello) });
    assert_eq!((hello.step, hello.of, hello.turn), (1, replay.len(), 0));
    let steps: Vec<Step> = (1..=replay.len()).filter_map(|n| replay.step(n)).collect();
    let draw = steps
        .iter()
        .find(|step| matches!(step.kind, StepKind::Intent { action: Some("draw"), .. }))
        .expect("the host's draw");
    assert_eq!(draw.kind, StepKind::Intent { intent: "act", action: Some("draw") });
    let last = steps.last().expect("steps");
    assert_eq!(last.turn, 2);
    assert_eq!(replay.step(0), None);
    assert_eq!(replay.step(replay.len() + 1), None);
    let json = serde_json::to_value(draw).unwrap();
    assert_eq!(json["kind"], "intent");
    assert_eq!(json["action"], "draw");
}

#[test]
fn the_keys_step_go_back_jump_to_a_turn_and_change_the_speed() {
    let pair = played();
    let mut viewer = Viewer::new(host_replay(&pair));
    assert_eq!(viewer.handle_key(key(KeyCode::Right)).unwrap(), Flow::Stay);
    viewer.handle_key(key(KeyCode::Right)).unwrap();
    assert_eq!(viewer.replay.position(), 2);
    viewer.handle_key(key(KeyCode::Left)).unwrap();
    assert_eq!(viewer.replay.position(), 1);
    for code in [KeyCode::Char('t'), KeyCode::Char('2'), KeyCode::Enter] {
        viewer.handle_key(key(code)).unwrap();
    }
    assert_eq!(viewer.replay.position(), viewer.replay.start_of_turn(2).unwrap());
    assert_eq!(viewer.replay.turn(), 2);
    for code in [KeyCode::Char('t'), KeyCode::Char('9'), KeyCode::Enter] {
        viewer.handle_key(key(code)).unwrap();
    }
    assert_eq!(viewer.said.as_deref(), Some("the game never reached turn 9: its last is 2"));
    viewer.handle_key(key(KeyCode::Home)).unwrap();
    assert_eq!(viewer.replay.position(), 0);
    viewer.handle_key(key(KeyCode::Char('+'))).unwrap();
    viewer.handle_key(key(KeyCode::Char('+'))).unwrap();
    viewer.handle_key(key(KeyCode::Char(' '))).unwrap();
    assert_eq!(viewer.interval(), Some(std::time::Duration::from_millis(250)), "4 steps a second");
    viewer.tick();
    assert_eq!(viewer.replay.position(), 1);
    viewer.handle_key(key(KeyCode::End)).unwrap();
    viewer.tick();
    assert!(!viewer.playing, "a play stops at the end");
    assert_eq!(viewer.handle_key(key(KeyCode::Char('q'))).unwrap(), Flow::Quit);
}

#[test]
fn the_viewer_at_80_by_24_shows_the_first_step_the_owners_hand_and_the_end() {
    let pair = played();
    let mut viewer = Viewer::new(host_replay(&pair));
    let steps = viewer.replay.len();
    viewer.handle_key(key(KeyCode::Right)).unwrap();
    let first = screen(&viewer);
    assert!(first.contains("Setting up the table"), "{first}");
    assert!(first.contains(&format!("REPLAY │ step 1 of {steps} │ turn 0 of 2 │ ⏸ 1/s")), "{first}");
    assert!(first.contains("→ step · ← back"), "{first}");

    viewer.open_at(Until::Turn(1));
    let middle = screen(&viewer);
    assert!(middle.contains("Ember"), "the owner's own hand is shown:\n{middle}");
    assert!(!middle.contains("Secret"), "the opponent's hand stays hidden:\n{middle}");
    assert!(middle.contains("You drew 3 cards"), "{middle}");
    assert!(middle.contains(" of 2 │"), "{middle}");

    viewer.handle_key(key(KeyCode::End)).unwrap();
    let end = screen(&viewer);
    assert!(end.contains(&format!("step {steps} of {steps} │ turn 2 of 2")), "{end}");
    assert!(!end.contains("Secret"), "{end}");
}

#[test]
fn the_text_log_says_each_sentence_with_its_step_and_turn() {
    let pair = played();
    let text = text::log_text::<Ristretto255>(pair.host.journal().clone()).unwrap();
    let drew = text.lines().find(|line| line.ends_with("You drew 3 cards")).unwrap_or_else(|| panic!("{text}"));
    let mut replay = host_replay(&pair);
    let step: usize = drew.split_whitespace().next().unwrap().parse().unwrap();
    replay.seek(step).unwrap();
    assert_eq!(replay.view().table.me.hand.len(), 3, "the step that drew: {drew}");
    assert!(text.contains("turn 0   Guest drew 2 cards"), "{text}");
    assert!(text.contains("turn 2   Guest passed the turn"), "{text}");
    assert_eq!(text.lines().filter(|line| line.ends_with("You drew 3 cards")).count(), 1, "told once: {text}");
}

#[test]
fn the_script_stops_at_the_turn_or_step_asked_and_ends_on_a_table() {
    let pair = played();
    let lines = |until| {
        let mut out = Vec::new();
        script::print(host_replay(&pair), until, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        text.lines().map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap()).collect::<Vec<_>>()
    };
    let to_turn = lines(Until::Turn(1));
    let start = host_replay(&pair).start_of_turn(1).unwrap();
    assert_eq!(to_turn.len(), 2 * start, "a step and a table for each step up to turn 1's");
    assert_eq!(to_turn[to_turn.len() - 2]["turn"], 1);
    assert_eq!(to_turn.last().unwrap()["event"], "table");
    assert_eq!(to_turn.last().unwrap()["turn"], 1);
    let none = lines(Until::Steps(0));
    assert_eq!(none.len(), 1);
    assert_eq!(none[0]["event"], "table");
    assert_eq!(none[0]["zones"]["host hand"]["count"], 0);
    let all = lines(Until::End);
    assert_eq!(all.len(), 2 * pair.host.journal().inputs.len());
    assert_eq!(all.last().unwrap()["zones"]["host hand"]["count"], 3);
}

#[test]
fn the_viewer_opens_at_the_first_step_unless_told_where() {
    let pair = played();
    assert_eq!(opened(host_replay(&pair), None).replay.position(), 0);
    assert_eq!(opened(host_replay(&pair), Some(Until::Steps(3))).replay.position(), 3);
    let at_turn = opened(host_replay(&pair), Some(Until::Turn(2)));
    assert_eq!(at_turn.replay.turn(), 2);
}
