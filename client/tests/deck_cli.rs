//! `fairdeck deck FILE [--json] [--limited]`, run as a user would: the deck as read, its checks' warnings with and
//! without a card database, and bad files refused.

use std::path::Path;
use std::process::Output;

use support::fairdeck_in;

mod support;

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/AtomicCards.json");

/// fairdeck with an empty data folder: no card database.
fn fairdeck(args: &[&str]) -> Output {
    let data = tempfile::tempdir().unwrap();
    fairdeck_in(data.path(), args)
}

fn example(file: &str) -> String {
    format!("{}/../examples/{file}", env!("CARGO_MANIFEST_DIR"))
}

fn stdout(output: &Output) -> String {
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout.clone()).unwrap()
}

#[test]
fn json_of_a_constructed_deck() {
    let text = stdout(&fairdeck(&["deck", &example("burn-arena.txt"), "--json"]));
    assert!(text.starts_with(r#"{"main":[[4,"Goblin Guide"],[4,"Monastery Swiftspear"],"#), "{text}");
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let keys: Vec<&str> = json.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys.len(), 5);
    for key in ["main", "side", "commander", "hash", "warnings"] {
        assert!(keys.contains(&key), "{key} in {text}");
    }
    let total = |key: &str| json[key].as_array().unwrap().iter().map(|row| row[0].as_u64().unwrap()).sum::<u64>();
    assert_eq!((total("main"), total("side"), total("commander")), (60, 15, 0));
    assert_eq!(json["side"][5], serde_json::json!([2, "Wear // Tear"]));
    assert_eq!(json["hash"], "isr8i2a5");
    assert_eq!(json["warnings"], serde_json::json!([]));
}

#[test]
fn json_of_a_commander_deck() {
    let text = stdout(&fairdeck(&["deck", &example("krenko-commander.txt"), "--json"]));
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(json["commander"], serde_json::json!([[1, "Krenko, Mob Boss"]]));
    let main: u64 = json["main"].as_array().unwrap().iter().map(|row| row[0].as_u64().unwrap()).sum();
    assert_eq!(main, 99);
    assert_eq!(json["side"], serde_json::json!([]));
    assert_eq!(json["hash"].as_str().unwrap().len(), 8);
}

#[test]
fn text_lists_sections_counts_and_hash() {
    let text = stdout(&fairdeck(&["deck", &example("burn.txt")]));
    assert!(text.starts_with("plain-text deck list: 60 cards in the main deck, 15 in the sideboard\n"), "{text}");
    assert!(text.contains("\nMain deck (60)\n   4 Goblin Guide\n"), "{text}");
    assert!(text.contains("\nSideboard (15)\n   2 Path to Exile\n"), "{text}");
    assert!(text.trim_end().ends_with("Deck hash (as Cockatrice shows it): isr8i2a5"), "{text}");
    let text = stdout(&fairdeck(&["deck", &example("krenko-commander.txt")]));
    assert!(text.contains("99 cards in the main deck and 1 commander, 0 in the sideboard"), "{text}");
    assert!(text.contains("\nCommander (1)\n   1 Krenko, Mob Boss\n"), "{text}");
    assert!(!text.contains("Sideboard ("), "{text}");
}

#[test]
fn bad_files_are_refused_with_their_line() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, bytes: &[u8]| {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        path.display().to_string()
    };
    let cases = [
        (write("zero.txt", b"4 Lightning Bolt\n0 Mountain\n"), "line 2, column 1: a count of 0"),
        (write("empty.txt", b"// nothing here\n"), "the main deck is empty"),
        (write("binary.dec", b"4 Lightning Bolt\n\xff\xfe\n"), "not UTF-8 text"),
        (write("broken.cod", b"<cockatrice_deck>\n<zone name=\"main\">\n"), "ends inside `<zone>`"),
        (dir.path().join("missing.txt").display().to_string(), "cannot read the deck file"),
        // A wrong path: nothing to read it to its end.
        ("/dev/zero".to_string(), "the file is larger than 4 MiB, the most fairdeck reads of such a file"),
        (sparse(dir.path(), (4 << 20) + 1), "the file is larger than 4 MiB"),
    ];
    for (path, needle) in cases {
        for json in [false, true] {
            let mut args = vec!["deck", path.as_str()];
            if json {
                args.push("--json");
            }
            let output = fairdeck(&args);
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert_eq!(output.status.code(), Some(1), "{path}: {stderr}");
            assert!(output.stdout.is_empty(), "{path}");
            assert!(stderr.contains(needle) && stderr.contains(&path), "{path}: `{stderr}` should mention `{needle}`");
        }
    }
}

/// A file of `len` zero bytes in `dir`, made without writing them.
fn sparse(dir: &Path, len: u64) -> String {
    let path = dir.join("sparse.txt");
    std::fs::File::create(&path).unwrap().set_len(len).unwrap();
    path.display().to_string()
}

/// A deck with mistakes a database catches, its file, and a data folder with the fixture database imported.
fn mistaken_deck(dir: &Path) -> (String, std::path::PathBuf) {
    let data = dir.join("data");
    let imported = fairdeck_in(&data, &["cards", "import", FIXTURE]);
    assert!(imported.status.success(), "{}", String::from_utf8_lossy(&imported.stderr));
    let file = dir.join("burn.txt");
    std::fs::write(&file, "4 Goblin Gide\n5 Lightning Bolt\n20 Mountain\n").unwrap();
    (file.display().to_string(), data)
}

#[test]
fn with_a_card_database_unknown_names_and_copies_are_warned_of() {
    let dir = tempfile::tempdir().unwrap();
    let (file, data) = mistaken_deck(dir.path());
    let text = stdout(&fairdeck_in(&data, &["deck", &file]));
    let warnings: Vec<&str> = text.lines().filter(|l| l.starts_with("warning: ")).collect();
    assert_eq!(
        warnings,
        [
            format!("warning: {file}: the main deck has 29 cards: a constructed deck has at least 60"),
            format!(
                "warning: {file}: line 1: no card named \"Goblin Gide\" in the card database; did you mean Goblin Guide?"
            ),
            format!("warning: {file}: line 2: 5 copies of Lightning Bolt: at most 4 in this format"),
        ],
        "{text}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&stdout(&fairdeck_in(&data, &["deck", &file, "--json"]))).unwrap();
    let kinds: Vec<(&str, &serde_json::Value)> =
        json["warnings"].as_array().unwrap().iter().map(|w| (w["kind"].as_str().unwrap(), &w["line"])).collect();
    assert_eq!(kinds, [("deck_size", &serde_json::Value::Null), ("unknown_card", &1.into()), ("copies", &2.into())]);
}

#[test]
fn without_a_database_only_the_size_is_warned_of_and_limited_decks_are_smaller() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("eight.txt");
    std::fs::write(&file, "4 Goblin Guide\n4 Lava Spike\n").unwrap();
    let file = file.display().to_string();
    let text = stdout(&fairdeck(&["deck", &file]));
    assert!(
        text.trim_end()
            .ends_with(&format!("\nwarning: {file}: the main deck has 8 cards: a constructed deck has at least 60"))
    );
    let text = stdout(&fairdeck(&["deck", &file, "--limited"]));
    assert!(text.trim_end().ends_with("a limited deck has at least 40"), "{text}");
    let forty = dir.path().join("forty.txt");
    std::fs::write(&forty, "17 Mountain\n23 Goblin Guide\n").unwrap();
    let text = stdout(&fairdeck(&["deck", &forty.display().to_string(), "--limited"]));
    assert!(!text.contains("warning"), "{text}");
}

#[test]
fn count_mistakes_are_refused_with_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("typo.txt");
    std::fs::write(&file, "4 Goblin Guide\nfour Lava Spike\n").unwrap();
    let output = fairdeck(&["deck", &file.display().to_string()]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains(&file.display().to_string()), "{stderr}");
    assert!(stderr.contains("line 2, column 1: `four` is a count in words: write `4 Lava Spike`"), "{stderr}");
}

/// The reported bug: an 8-card deck hosted without a word. `practice` (as `host` and `join`) shows the checks'
/// warnings as events before the game, and goes on.
#[test]
fn a_game_starts_with_the_decks_warnings_and_goes_on() {
    use std::io::Write as _;
    use std::process::Stdio;

    let dir = tempfile::tempdir().unwrap();
    let (file, data) = mistaken_deck(dir.path());
    let mut child = support::command_in(data.as_ref())
        .args(["practice", "--deck", &file, "--script"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run fairdeck");
    child.stdin.take().unwrap().write_all(b"quit\n").unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let events: Vec<serde_json::Value> =
        String::from_utf8(output.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(events[0]["event"], "deck");
    let warnings: Vec<(&str, &str)> = events
        .iter()
        .filter(|e| e["event"] == "deck_warning")
        .map(|e| (e["kind"].as_str().unwrap(), e["file"].as_str().unwrap()))
        .collect();
    assert_eq!(warnings, [("deck_size", file.as_str()), ("unknown_card", &file), ("copies", &file)]);
}
