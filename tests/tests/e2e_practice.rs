//! `fairdeck practice` end to end: a real `fairdeck practice --script` process, whose built-in opponent (the
//! goldfish) and relay run inside it.

use std::process::Stdio;

use fairdeck_e2e::{Player, deck, fairdeck_command, zone_cards};
use serde_json::Value;

/// The card `id`'s name, as the last `learned` event at or after event `from` of `seen` gives it.
fn learned_since(player: &Player, from: usize, id: u64) -> Option<String> {
    player.seen[from..]
        .iter()
        .rev()
        .find(|v| v["event"] == "learned" && v["card"] == id)
        .and_then(|v| v["name"].as_str().map(str::to_string))
}

#[test]
fn a_practice_game_sets_up_draws_searches_shuffles_and_quits() {
    let temp = tempfile::tempdir().expect("temp dir");
    let mut player = Player::practice("player", &deck("burn.txt"), temp.path());
    assert_eq!(player.expect_event("deck")["main"], 60);
    let connected = player.expect_event("connected");
    assert_eq!(connected["name"], "Goldfish");
    player.expect_event("ready");

    // Draws: the player learns each card's name.
    player.send("draw 7");
    player.wait_idle();
    let table = player.table();
    let hand = zone_cards(&table, "host hand");
    assert_eq!(hand.len(), 7);
    assert!(hand.iter().all(|&id| player.learned_name(id).is_some()), "the player knows its hand");
    assert_eq!(zone_cards(&table, "guest library").len(), 60, "the goldfish plays a copy of the deck");
    assert!(zone_cards(&table, "guest hand").is_empty(), "the goldfish draws nothing");

    // A search of the library: the whole library listed in order, the deepest card taken by name, and `done`
    // shuffles it.
    let library = zone_cards(&table, "host library");
    assert_eq!(library.len(), 53);
    player.send("search");
    let open = player.expect("the search's view", |v| v["event"] == "browsing" && v["purpose"] == "search");
    let listed: Vec<(u64, String)> = open["cards"]
        .as_array()
        .expect("the searched cards")
        .iter()
        .map(|c| (c["card"].as_u64().unwrap(), c["name"].as_str().expect("a named card").to_string()))
        .collect();
    assert_eq!(listed.iter().map(|(id, _)| *id).collect::<Vec<_>>(), library, "top first, every card");
    let (wanted, wanted_name) = listed.last().expect("a library");
    player.send(&format!("take {wanted} hand"));
    let left = player.expect("the view after the take", |v| v["event"] == "browsing");
    assert_eq!(left["cards"].as_array().unwrap().len(), 52);
    let moved = player.expect("the take", |v| v["event"] == "applied" && v["action"]["card"] == *wanted);
    assert_eq!(moved["name"], wanted_name.as_str());
    player.send("done");
    player.expect_event("browsing_closed");
    player.expect("the searched library shuffled", |v| v["event"] == "shuffled" && v["library"] == "host");
    player.wait_idle();
    let table = player.table();
    assert!(zone_cards(&table, "host hand").contains(wanted));
    assert_eq!(zone_cards(&table, "host library").len(), 52);

    // Another shuffle, then a draw: the card drawn from the shuffled library is learned afresh.
    player.send("shuffle");
    player.expect("the library shuffled again", |v| v["event"] == "shuffled" && v["library"] == "host");
    let drawn_from = player.seen.len();
    player.send("draw 1");
    player.wait_idle();
    let before = zone_cards(&table, "host hand");
    let hand = zone_cards(&player.table(), "host hand");
    let drawn: Vec<u64> = hand.iter().copied().filter(|id| !before.contains(id)).collect();
    assert_eq!(drawn.len(), 1, "{hand:?} after {before:?}");
    assert!(learned_since(&player, drawn_from, drawn[0]).is_some(), "the drawn card is learned");

    // The goldfish's answers: it refuses to show its hand, ends the game when the player does (its deck is
    // audited in turn), and agrees to the next game.
    player.send("ask hand");
    let refused = player.expect_event("reveal_refused");
    assert_eq!(refused["zone"], "guest hand");
    player.send("end");
    let audited = player.expect_event("audited");
    assert_eq!((audited["seat"].as_str(), audited["cards"].as_u64()), (Some("guest"), Some(75)));
    player.send("new-game");
    player.expect_event("new_game");
    player.expect_event("ready");
    player.send("draw 1");
    player.wait_idle();
    assert_eq!(zone_cards(&player.table(), "host hand").len(), 1);
    // A scry of more cards than the library holds looks at all of them.
    player.send("scry 100");
    let scry = player.expect("the scry's view", |v| v["event"] == "browsing" && v["purpose"] == "scry");
    assert_eq!(scry["cards"].as_array().unwrap().len(), 59);
    player.send("done");
    player.expect_event("browsing_closed");

    player.send("quit");
    assert_eq!(zone_cards(&player.expect_event("table"), "host hand").len(), 1, "the final table");
    assert!(player.wait_exit().success(), "exit 0; saw {:#?}", player.seen);
    let unwanted: Vec<&Value> = player
        .seen
        .iter()
        .filter(|v| ["alert", "error", "code", "saved"].contains(&v["event"].as_str().unwrap()))
        .collect();
    assert!(unwanted.is_empty(), "no alert, no error, no code to give, nothing saved: {unwanted:#?}");
    assert!(player.saves().is_empty(), "a practice game is not in the saved games");
    let left: Vec<_> = std::fs::read_dir(temp.path()).expect("temp dir").collect();
    assert!(left.is_empty(), "the practice game's temporary folder is removed: {left:?}");
}

#[test]
fn a_practice_game_refuses_a_bad_deck_file() {
    let temp = tempfile::tempdir().expect("temp dir");
    let bad = temp.path().join("bad.txt");
    std::fs::write(&bad, "0 Lightning Bolt\n").unwrap();
    let missing = temp.path().join("missing.txt");
    for (file, reason) in [(&bad, "a count of 0"), (&missing, "No such file")] {
        let output = fairdeck_command()
            .args(["practice", "--script", "--deck"])
            .arg(file)
            .env("TMPDIR", temp.path())
            .stdin(Stdio::null())
            .output()
            .expect("run fairdeck practice");
        assert_eq!(output.status.code(), Some(1), "{output:?}");
        let stdout = String::from_utf8(output.stdout).expect("UTF-8 events");
        let events: Vec<Value> = stdout.lines().map(|line| serde_json::from_str(line).expect("JSON")).collect();
        let [error] = &events[..] else { panic!("one error event: {events:?}") };
        assert_eq!(error["event"], "error");
        assert_eq!(error["kind"], "deck");
        let message = error["message"].as_str().unwrap();
        assert!(message.contains(&file.display().to_string()) && message.contains(reason), "{message}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.starts_with("fairdeck: cannot read the deck file"), "{stderr}");
    }
    let left: Vec<_> =
        std::fs::read_dir(temp.path()).expect("temp dir").filter_map(Result::ok).map(|e| e.file_name()).collect();
    assert_eq!(left, ["bad.txt"], "nothing but the test's own file is left");
}

#[test]
fn an_overlong_line_is_refused_and_the_script_goes_on() {
    let temp = tempfile::tempdir().expect("temp dir");
    let mut player = Player::practice("player", &deck("burn.txt"), temp.path());
    player.expect_event("ready");
    // A program that forgot its line ends for a while: 100 KiB in one line.
    player.send(&format!("say {}", "x".repeat(100 * 1024)));
    let refused = player.expect_event("error");
    assert_eq!(refused["kind"], "bad_command", "{refused}");
    assert_eq!(refused["message"], "the line is longer than 64 KiB", "{refused}");
    assert_eq!(refused["command"], format!("say {}…", "x".repeat(36)), "{refused}");
    player.send("draw 1");
    player.wait_idle();
    assert_eq!(zone_cards(&player.table(), "host hand").len(), 1, "the next line is taken");
    player.send("quit");
    assert!(player.wait_exit().success(), "exit 0; saw {:#?}", player.seen);
}

#[test]
fn a_script_typed_all_at_once_runs_in_order_before_its_quit() {
    let temp = tempfile::tempdir().expect("temp dir");
    let mut player = Player::practice("player", &deck("burn.txt"), temp.path());
    // Everything before the first connection is even made: the quit waits its turn.
    for line in ["draw 7", "wait", "quit"] {
        player.send(line);
    }
    let last = player.expect_event("table");
    assert_eq!(zone_cards(&last, "host hand").len(), 7, "the draw ran before the quit");
    assert!(player.wait_exit().success(), "exit 0; saw {:#?}", player.seen);
}

#[test]
fn a_practice_game_mulligans_plays_without_a_spot_reveals_its_library_and_passes_turns() {
    let temp = tempfile::tempdir().expect("temp dir");
    let mut player = Player::practice("player", &deck("burn.txt"), temp.path());
    player.expect_event("ready");

    // The London mulligan: seven new cards, then two of them to the bottom, by name and by id, the last bottommost.
    player.send("draw 7");
    player.send("mulligan");
    player.wait_idle();
    let hand = zone_cards(&player.table(), "host hand");
    assert_eq!(hand.len(), 7);
    let name = player.learned_name(hand[0]).expect("the player knows its hand");
    player.send(&format!("bottom {name}, #{}", hand[1]));
    player.wait_idle();
    let table = player.table();
    let library = zone_cards(&table, "host library");
    assert_eq!(library.len(), 55);
    assert_eq!(player.learned_name(library[53]), Some(name));
    assert_eq!(library[54], hand[1]);
    let hand = zone_cards(&table, "host hand");
    assert_eq!(hand.len(), 5);

    // Played with no spot: the next free ones, in a row.
    player.send(&format!("play {}", hand[0]));
    player.send(&format!("play {} at 1,0", hand[1]));
    player.send(&format!("play {}", hand[2]));
    player.wait_idle();
    let table = player.table();
    let spot = |id: u64| {
        let card = &table["cards"][id.to_string()];
        (card["x"].as_i64().unwrap(), card["y"].as_i64().unwrap())
    };
    assert_eq!([spot(hand[0]), spot(hand[1]), spot(hand[2])], [(0, 0), (1, 0), (2, 0)]);

    // `reveal library 3`: the three top cards, unseen yet, looked at and then shown to the goldfish in one reveal.
    let top = zone_cards(&table, "host library")[..3].to_vec();
    player.send("reveal library 3");
    let shown = player.expect("the reveal", |v| v["event"] == "applied" && v["action"]["action"] == "reveal");
    assert_eq!(shown["action"]["cards"], serde_json::json!(top));
    assert_eq!(shown["action"]["to"], "guest");

    // `next-turn` passes the turn with the phase back at untap; taking it back, `untap-draw` untaps and draws.
    let turn = player.table()["turn"].as_u64().unwrap();
    player.send(&format!("tap {}", hand[0]));
    player.send("phase end");
    player.send("next-turn untap-draw");
    let refused = player.expect_event("error");
    assert!(refused["message"].as_str().unwrap().contains("own turn"), "{refused}");
    player.send("next-turn");
    player.expect("the phase reset", |v| v["event"] == "applied" && v["action"]["phase"] == "untap");
    player.send("next-turn untap-draw");
    player.wait_idle();
    let table = player.table();
    assert_eq!(table["turn"].as_u64(), Some(turn + 2));
    assert_eq!(table["cards"][hand[0].to_string()]["tapped"], false);
    assert_eq!(zone_cards(&table, "host hand").len(), 3, "three played of five, one drawn");
    player.send("quit");
    assert!(player.wait_exit().success(), "exit 0; saw {:#?}", player.seen);
}
