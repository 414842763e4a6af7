//! `fairdeck deck FILE [--json]`, run as a user would: the deck as read, and bad files refused.

use std::process::{Command, Output};

fn fairdeck(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fairdeck")).args(args).output().expect("run fairdeck")
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
    assert_eq!(keys.len(), 4);
    for key in ["main", "side", "commander", "hash"] {
        assert!(keys.contains(&key), "{key} in {text}");
    }
    let total = |key: &str| json[key].as_array().unwrap().iter().map(|row| row[0].as_u64().unwrap()).sum::<u64>();
    assert_eq!((total("main"), total("side"), total("commander")), (60, 15, 0));
    assert_eq!(json["side"][5], serde_json::json!([2, "Wear // Tear"]));
    assert_eq!(json["hash"], "isr8i2a5");
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
