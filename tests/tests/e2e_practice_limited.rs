//! `fairdeck practice` in limited play, end to end: a real `fairdeck practice --script --pool FILE --limited sealed`
//! process, whose goldfish is dealt its own pool from the same file and builds its deck from it by itself; and
//! `--limited draft`, where the goldfish drafts the packs passed to it.

use std::ffi::OsStr;
use std::process::Stdio;

use fairdeck_e2e::{Player, example, fairdeck_command, pool_cards, zone_cards};
use serde_json::Value;

#[test]
fn a_sealed_practice_deals_both_pools_and_the_goldfish_builds_its_own_deck() {
    let temp = tempfile::tempdir().expect("temp dir");
    let cube = example("pools/cube-90.txt");
    let args = ["--pool".as_ref(), cube.as_os_str(), "--limited".as_ref(), "sealed".as_ref(), "--cards".as_ref()];
    let mut player = Player::practice_bringing("player", &[&args[..], &["30".as_ref()]].concat(), temp.path());
    let limited = player.expect_event("limited");
    assert_eq!(limited["format"], serde_json::json!({"sealed": {"cards": 30}}));
    let pool = pool_cards(&player.expect_event("pool"));
    assert_eq!(pool.len(), 30);

    // The player builds as in any sealed match: 23 cards of its pool and 17 Mountains.
    let decks = tempfile::tempdir().expect("temp dir");
    let deck = decks.path().join("sealed.txt");
    let mut text: String = pool[..23].iter().map(|name| format!("1 {name}\n")).collect();
    text.push_str("17 Mountain\n");
    std::fs::write(&deck, text).unwrap();
    player.send(&format!("build {}", deck.display()));
    let connected = player.seen.iter().find(|v| v["event"] == "connected").cloned();
    assert_eq!(connected.expect("the goldfish came")["name"], "Goldfish");
    player.expect_event("ready");

    player.send("draw 7");
    player.wait_idle();
    let table = player.table();
    assert_eq!(zone_cards(&table, "host library").len(), 40 - 7);
    assert_eq!(zone_cards(&table, "host sideboard").len(), 30 - 23);
    for id in zone_cards(&table, "host hand") {
        let name = player.learned_name(id).expect("the player knows its hand");
        assert!(pool.contains(&name) || name == "Mountain", "{name} is no card of the player's pool");
    }
    assert_eq!(zone_cards(&table, "guest library").len(), 40, "the goldfish built a 40-card deck");
    assert_eq!(zone_cards(&table, "guest sideboard").len(), 30 - 23, "the rest of its pool");

    // The goldfish ends the game when the player does: its whole deck, its pool and its lands, is audited.
    player.send("end");
    let audited = player.expect("the goldfish's audit", |v| v["event"] == "audited" && v["seat"] == "guest");
    assert_eq!(audited["cards"], 40 + 30 - 23);
    player.send("quit");
    player.expect_event("table");
    assert!(player.wait_exit().success(), "exit 0; saw {:#?}", player.seen);
    let unwanted: Vec<&Value> =
        player.seen.iter().filter(|v| ["alert", "error", "code"].contains(&v["event"].as_str().unwrap())).collect();
    assert!(unwanted.is_empty(), "no alert, no error, no code to give: {unwanted:#?}");
    let left: Vec<_> = std::fs::read_dir(temp.path()).expect("temp dir").collect();
    assert!(left.is_empty(), "the practice game's temporary folder is removed: {left:?}");
}

#[test]
fn the_goldfish_drafts_boosters_beside_the_player_until_the_pools_come() {
    let temp = tempfile::tempdir().expect("temp dir");
    let cube = example("pools/cube-90.txt");
    let args: [&OsStr; 8] = [
        "--pool".as_ref(),
        cube.as_os_str(),
        "--limited".as_ref(),
        "draft".as_ref(),
        "--packs".as_ref(),
        "2".as_ref(),
        "--pack-size".as_ref(),
        "3".as_ref(),
    ];
    let mut player = Player::practice_bringing("player", &args, temp.path());
    assert_eq!(player.expect_event("limited")["format"], serde_json::json!({"draft": {"packs": 2, "cards": 3}}));
    // Each pack shown is picked from; the goldfish picks from those passed to it by itself.
    let mut picks = 0;
    let pool = loop {
        let shown = player.expect("a pack or the pool", |v| v["event"] == "pack" || v["event"] == "pool");
        if shown["event"] == "pool" {
            break pool_cards(&shown);
        }
        player.send("pick 1");
        picks += 1;
    };
    // A pack of 3 opened by each, round after round: 2 of one's own and 1 of the goldfish's.
    assert_eq!((picks, pool.len()), (6, 6), "{pool:?}");
    let goldfish_picks = player.seen.iter().filter(|v| v["event"] == "card_taken" && v["by"] == "guest").count();
    assert_eq!(goldfish_picks, 6);
    player.send("quit");
    assert!(player.wait_exit().success(), "exit 0; saw {:#?}", player.seen);
    let unwanted: Vec<&Value> =
        player.seen.iter().filter(|v| ["alert", "error"].contains(&v["event"].as_str().unwrap())).collect();
    assert!(unwanted.is_empty(), "no alert, no error: {unwanted:#?}");
}

#[test]
fn a_practice_needs_a_deck_or_a_pool_with_its_format() {
    let cube = example("pools/cube-90.txt");
    let cube = cube.to_str().unwrap();
    for (args, said) in [
        (&[][..], "--deck <FILE>"),
        (&["--pool", cube][..], "--limited <FORMAT>"),
        (&["--deck", cube, "--pool", cube, "--limited", "sealed"][..], "cannot be used with"),
        (&["--pool", cube, "--limited", "rochester"][..], "invalid value 'rochester'"),
    ] {
        let output = fairdeck_command()
            .args(["practice", "--script"])
            .args(args)
            .stdin(Stdio::null())
            .output()
            .expect("run fairdeck practice");
        assert_eq!(output.status.code(), Some(2), "{args:?}: {output:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(said), "{args:?}: {stderr}");
    }
}

#[test]
fn a_pool_file_that_cannot_be_read_is_named_as_the_pool() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing-pool.txt");
    let output = fairdeck_command()
        .args(["practice", "--script", "--limited", "sealed", "--pool"])
        .arg(&missing)
        .stdin(Stdio::null())
        .output()
        .expect("run fairdeck practice");
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let event: Value = serde_json::from_slice(&output.stdout).expect("one error event");
    assert_eq!(event["kind"], "pool", "{event}");
    let message = event["message"].as_str().unwrap();
    assert!(message.starts_with(&format!("cannot read the pool file {}", missing.display())), "{message}");
}
