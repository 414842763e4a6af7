//! A game between two scripted players, recorded, then played back with `fairdeck replay --script`: it ends on the
//! table each player had when the game ended, from its journal and from its save; and `fairdeck journal show
//! --text` tells the game in the table's words.

use std::path::Path;

use fairdeck_e2e::{Player, Relay, fairdeck_command, zone_cards};
use serde_json::Value;

/// `fairdeck ARGS`: what it printed, once it exited with success.
fn fairdeck(args: &[&str]) -> String {
    let output = fairdeck_command().args(args).output().expect("run fairdeck");
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{args:?}: {err}");
    String::from_utf8(output.stdout).expect("UTF-8 output")
}

/// The events `fairdeck replay FILE --script` printed.
fn replayed(file: &Path) -> Vec<Value> {
    let out = fairdeck(&["replay", file.to_str().unwrap(), "--script"]);
    out.lines().map(|line| serde_json::from_str(line).expect("JSON lines")).collect()
}

/// The last `table` event of a replay, checking on the way that a table follows every step.
fn last_table(events: &[Value]) -> &Value {
    assert!(events.len() > 2, "a game has steps: {events:?}");
    for pair in events.chunks(2) {
        assert_eq!((&pair[0]["event"], &pair[1]["event"]), (&"step".into(), &"table".into()));
    }
    events.last().unwrap()
}

#[test]
fn a_recorded_game_replays_to_the_table_each_player_had_at_its_end() {
    let dir = tempfile::tempdir().unwrap();
    let records = [dir.path().join("host.journal"), dir.path().join("guest.journal")];
    let relay = Relay::start();
    let mut host = Player::spawn("host", &relay, &["host", "--record", records[0].to_str().unwrap()]);
    let code = host.expect_event("code")["code"].as_str().unwrap().to_string();
    let mut guest = Player::spawn("guest", &relay, &["join", &code, "--record", records[1].to_str().unwrap()]);
    for player in [&mut host, &mut guest] {
        player.expect_event("ready");
    }
    host.send("draw 7");
    host.wait_idle();
    let played = zone_cards(&host.table(), "host hand")[0];
    host.send(&format!("play {played} at 1,0"));
    guest.send("draw 7");
    guest.wait_idle();
    host.send("next-turn");
    host.send("roll 1d6");
    host.expect_event("rolled");
    guest.send("say good game");
    host.expect_event("chat");
    host.send("life 18");
    for player in [&mut host, &mut guest] {
        player.wait_idle();
    }
    let mut finals = Vec::new();
    for player in [&mut host, &mut guest] {
        player.send("quit");
        finals.push(player.expect_event("table"));
        assert!(player.wait_exit().success());
    }
    assert_eq!(finals[0]["turn"], 1);
    assert_eq!(zone_cards(&finals[0], "host play"), vec![played]);

    for (record, game_final) in records.iter().zip(&finals) {
        let events = replayed(record);
        assert_eq!(last_table(&events), game_final, "{}", record.display());
    }
    let saves = host.saves();
    assert_eq!(saves.len(), 1, "{saves:?}");
    let events = replayed(&saves[0]);
    assert_eq!(last_table(&events), &finals[0], "the host's save");

    // The steps say what each input was; the text tells the game as the host's log did.
    let intents: Vec<&str> =
        events.iter().filter(|e| e["kind"] == "intent").filter_map(|e| e["action"].as_str()).collect();
    // Passing the turn also moves to its untap phase.
    assert_eq!(intents, ["draw", "move", "next-turn", "set-phase", "roll", "set-player-value"]);
    let text = fairdeck(&["journal", "show", records[0].to_str().unwrap(), "--text"]);
    for sentence in [
        "You drew 7 cards",
        "guest drew 7 cards",
        "You rolled 1d6: ",
        "<guest> good game",
        "You passed the turn (turn 1)",
    ] {
        assert!(text.contains(sentence), "{sentence:?} in:\n{text}");
    }
}
