//! `fairdeck replay` and `fairdeck journal show --text`, run as a user would, on a journal two engines played in
//! memory, and on files that are no journal.

mod support;

use std::path::Path;

use fairdeck_shared::Seat;
use fairdeck_shared::crypto::Ristretto255;
use fairdeck_shared::engine::{DeckCard, DeckList, Intent};
use fairdeck_shared::journal;
use fairdeck_shared::pair::Pair;
use fairdeck_shared::wire::Action;
use serde_json::Value;
use support::fairdeck_in;

/// The host's journal of a game where it drew two Embers, as `--record` writes it.
fn journal_bytes() -> Vec<u8> {
    let deck =
        |name: &str| DeckList { library: vec![DeckCard { name: name.into(), back: 0 }; 8], ..DeckList::default() };
    let mut pair = Pair::<Ristretto255>::new(deck("Ember"), deck("Secret"), 9);
    pair.drive();
    pair.intent(Seat::HOST, Intent::Act(Action::Draw { count: 2 })).expect("a legal draw");
    pair.drive();
    journal::encode(pair.host.journal())
}

fn run(dir: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let output = fairdeck_in(dir, args);
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    (output.status.code(), text(&output.stdout), text(&output.stderr))
}

#[test]
fn replay_script_prints_a_step_and_a_table_per_input_and_ends_on_the_last_table() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("game.journal");
    std::fs::write(&file, journal_bytes()).unwrap();
    let (code, out, err) = run(dir.path(), &["replay", file.to_str().unwrap(), "--script"]);
    assert_eq!(code, Some(0), "{err}");
    let events: Vec<Value> = out.lines().map(|line| serde_json::from_str(line).expect("JSON lines")).collect();
    let steps = events.iter().filter(|event| event["event"] == "step").count();
    assert_eq!(events.len(), 2 * steps, "a table after each step");
    for (n, pair) in events.chunks(2).enumerate() {
        assert_eq!(pair[0]["step"], n + 1);
        assert_eq!(pair[0]["of"], steps);
        assert_eq!(pair[1]["event"], "table");
    }
    let last = events.last().unwrap();
    assert_eq!(last["me"], "host");
    assert_eq!(last["zones"]["host hand"]["count"], 2);

    let (code, out, _) = run(dir.path(), &["replay", file.to_str().unwrap(), "--script", "--steps", "1"]);
    assert_eq!(code, Some(0));
    assert_eq!(out.lines().count(), 2, "{out}");
}

#[test]
fn journal_show_text_tells_the_game_in_the_tables_words() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("game.journal");
    std::fs::write(&file, journal_bytes()).unwrap();
    let (code, out, err) = run(dir.path(), &["journal", "show", file.to_str().unwrap(), "--text"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("turn 0   Connected to Guest (fairdeck-test)"), "{out}");
    assert!(out.contains("Both libraries are shuffled and verified: the table is ready"), "{out}");
    assert!(out.lines().any(|line| line.ends_with("You drew 2 cards")), "{out}");
    assert!(!out.contains("Secret"), "the opponent's hidden cards are not named: {out}");
    let (_, json, _) = run(dir.path(), &["journal", "show", file.to_str().unwrap()]);
    assert!(json.trim_start().starts_with('{'), "JSON stays the default: {json}");
}

#[test]
fn a_file_that_is_no_journal_is_a_clear_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = journal_bytes();
    let truncated = dir.path().join("truncated.journal");
    std::fs::write(&truncated, &bytes[..bytes.len() / 2]).unwrap();
    let random = dir.path().join("random.bin");
    let noise: Vec<u8> = (0..4096u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
    std::fs::write(&random, noise).unwrap();
    let missing = dir.path().join("missing.journal");
    let cases =
        [(&truncated, "the journal is damaged"), (&random, "not a fairdeck journal"), (&missing, "cannot read")];
    for (file, said) in cases {
        let file = file.to_str().unwrap();
        for args in [
            vec!["replay", file],
            vec!["replay", file, "--script"],
            vec!["journal", "show", file, "--text"],
            vec!["journal", "show", file],
        ] {
            let (code, out, err) = run(dir.path(), &args);
            assert_eq!(code, Some(1), "{args:?}: {err}");
            assert!(out.is_empty(), "{args:?}: {out}");
            assert!(err.starts_with("fairdeck: ") && err.contains(file) && err.contains(said), "{args:?}: {err}");
            assert!(!err.contains("panicked"), "{args:?}: {err}");
        }
    }
}
