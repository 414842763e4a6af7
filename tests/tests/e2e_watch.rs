//! End-to-end: a spectator watches a game between two scripted players over a real relay, with
//! `fairdeck watch --script`, and ends on the players' public table.

use fairdeck_e2e::{Player, Relay, public, settle, zone_cards};
use serde_json::Value;

/// The public table without what a spectator cannot know: the names of cards only one player knows are
/// already left out of a player's `table` event (it names cards both players know).
fn counts(table: &Value) -> Vec<(String, u64)> {
    let zones = table["zones"].as_object().expect("zones");
    zones.iter().map(|(zone, view)| (zone.clone(), view["count"].as_u64().unwrap())).collect()
}

#[test]
fn a_spectator_with_the_watch_code_ends_on_the_players_public_table() {
    let relay = Relay::start();
    let mut host = Player::spawn("host", &relay, &["host"]);
    let code = host.expect_event("code")["code"].as_str().unwrap().to_string();
    let mut guest = Player::spawn("guest", &relay, &["join", &code]);
    for player in [&mut host, &mut guest] {
        player.expect_event("ready");
    }
    host.send("watch-code");
    let watch_code = host.expect_event("watch_code")["code"].as_str().unwrap().to_string();
    assert_ne!(watch_code, code, "a watch code of its own");
    let mut spectator = Player::spawn_bringing("spectator", &relay.url(), &["watch", &watch_code]);
    spectator.expect_event("watching");
    let watchers = host.expect("one spectator counted", |v| v["event"] == "watchers" && v["host"] == 1);
    assert_eq!((watchers["guest"].as_u64(), watchers["open"].as_bool()), (Some(0), Some(true)));
    guest.expect("the guest counts it too", |v| v["event"] == "watchers" && v["host"] == 1);

    // A few turns: hands drawn, a card played, the turn passed.
    host.send("draw 7");
    guest.send("draw 7");
    settle(&mut host, &mut guest);
    let chooser = host.seen.iter().find(|v| v["event"] == "chooser").expect("a chooser")["seat"].clone();
    let (first, second) = if chooser == "host" { (&mut host, &mut guest) } else { (&mut guest, &mut host) };
    first.send("play-first");
    first.wait_idle();
    let seat = chooser.as_str().unwrap();
    let hand = zone_cards(&first.table(), &format!("{seat} hand"));
    first.send(&format!("play {} at 0,0", hand[0]));
    first.send("next-turn");
    first.wait_idle();
    second.send("draw 1");
    second.wait_idle();
    let table = settle(&mut host, &mut guest);

    let watched = spectator
        .expect("the spectator's table at the players' own", |v| v["event"] == "table" && public(v) == public(&table));
    assert_eq!(counts(&watched), counts(&table));
    let played = hand[0].to_string();
    assert!(watched["cards"][&played]["name"].is_string(), "the played card is named: {watched:#}");
    let steps = spectator.seen.iter().filter(|v| v["event"] == "step").count();
    assert!(steps > 10, "every envelope is a step: {steps}");
    assert!(spectator.seen.iter().any(|v| v["event"] == "step" && v["kind"] == "hello"));
    assert!(spectator.seen.iter().all(|v| v["event"] != "alert"), "an honest game raises no alert");
    // Nothing hidden reaches the spectator: no card of a hand is named.
    for seat in ["host", "guest"] {
        for card in zone_cards(&table, &format!("{seat} hand")) {
            assert!(watched["cards"][&card.to_string()].get("name").is_none(), "{seat}'s card {card} is named");
        }
    }

    // Watching off: the spectator is told, and ends.
    guest.send("watch-off");
    let ended = spectator.expect_event("ended");
    assert_eq!(ended["reason"], "watching_off");
    assert!(spectator.wait_exit().success());
    host.expect("watching is off", |v| v["event"] == "watchers" && v["open"] == false);
    host.send("watch-code");
    assert_eq!(host.expect_event("error")["kind"], "refused");
}

#[test]
fn a_mistyped_or_unknown_watch_code_is_a_clear_error() {
    let relay = Relay::start();
    let mut spectator = Player::spawn_bringing("spectator", &relay.url(), &["watch", "12-violin-embr"]);
    let error = spectator.expect_event("error");
    assert_eq!(error["kind"], "bad_code");
    assert!(error["message"].as_str().unwrap().contains("did you mean ember"), "{error}");
    assert_eq!(spectator.wait_exit().code(), Some(2));
    let mut spectator = Player::spawn_bringing("spectator", &relay.url(), &["watch", "12345-violin-ember"]);
    assert_eq!(spectator.expect_event("error")["kind"], "unknown_code");
    assert_eq!(spectator.wait_exit().code(), Some(2));
}

#[test]
fn a_spectator_takes_a_watch_seat_again_after_a_relay_restart() {
    let mut relay = Relay::start();
    let (mut host, mut guest) = Player::ready_pair(&relay);
    host.send("watch-code");
    let watch_code = host.expect_event("watch_code")["code"].as_str().unwrap().to_string();
    let mut spectator = Player::spawn_bringing("spectator", &relay.url(), &["watch", &watch_code]);
    spectator.expect_event("watching");
    host.send("draw 7");
    let table = settle(&mut host, &mut guest);
    spectator.expect("the table before the restart", |v| v["event"] == "table" && public(v) == public(&table));

    relay.restart();
    for player in [&mut host, &mut guest] {
        player.expect_event("resumed");
    }
    assert!(spectator.expect_event("relay_lost")["reason"].is_string());
    spectator.expect_event("watching");
    // The feed starts afresh on the new seat and goes on with what is played after the restart.
    spectator.expect_event("started");
    guest.send("draw 7");
    let table = settle(&mut host, &mut guest);
    let watched =
        spectator.expect("the table after the restart", |v| v["event"] == "table" && public(v) == public(&table));
    assert_eq!(counts(&watched), counts(&table));
    assert!(spectator.seen.iter().all(|v| v["event"] != "alert" && v["event"] != "ended"), "watching went on");
    spectator.send("quit");
    assert_eq!(spectator.expect_event("ended")["reason"], "quit");
    assert!(spectator.wait_exit().success());
}

#[test]
fn three_wrong_watch_codes_close_it_even_to_the_right_one_until_new_watch_code() {
    let relay = Relay::start();
    let (mut host, mut guest) = Player::ready_pair(&relay);
    host.send("watch-code");
    let watch_code = host.expect_event("watch_code")["code"].as_str().unwrap().to_string();
    let (nameplate, words) = watch_code.split_once('-').unwrap();
    let guesses = ["acorn-anchor", "anchor-button", "button-actor", "actor-agent"];
    let mut guesses = guesses.iter().filter(|guess| **guess != words);
    for attempt in 1..=3 {
        let wrong = format!("{nameplate}-{}", guesses.next().unwrap());
        let mut guesser = Player::spawn_bringing("guesser", &relay.url(), &["watch", &wrong]);
        assert_eq!(guesser.expect_event("error")["kind"], "wrong_code");
        assert_eq!(guesser.wait_exit().code(), Some(2));
        let tried = host.expect_event("wrong_watch_code_tried");
        assert_eq!((tried["attempts"].as_u64(), tried["closed"].as_bool()), (Some(attempt), Some(attempt == 3)));
    }
    // The right words get no answer now: the player's program answers no opening of a closed code.
    let mut late = Player::spawn_bringing("late", &relay.url(), &["watch", &watch_code]);
    late.expect_event("watching");
    host.expect("the late spectator counted", |v| v["event"] == "watchers" && v["host"] == 1);
    // It sends its HELLO again every second: three of them go unanswered.
    std::thread::sleep(std::time::Duration::from_secs(3));
    late.send("quit");
    assert_eq!(late.expect_event("ended")["reason"], "quit");
    assert!(late.seen.iter().all(|v| v["event"] != "started"), "refused: {:#?}", late.seen);

    // New words: a spectator with them watches the game, which went on meanwhile.
    host.send("new-watch-code");
    let renewed = host.expect_event("watch_code")["code"].as_str().unwrap().to_string();
    assert_ne!(renewed, watch_code);
    assert!(renewed.starts_with(&format!("{nameplate}-")), "the same number: {renewed}");
    let mut spectator = Player::spawn_bringing("spectator", &relay.url(), &["watch", &renewed]);
    spectator.expect_event("started");
    host.send("draw 7");
    guest.send("draw 7");
    let table = settle(&mut host, &mut guest);
    let watched = spectator.expect("the players' table", |v| v["event"] == "table" && public(v) == public(&table));
    assert_eq!(counts(&watched), counts(&table));
    assert!(host.seen.iter().all(|v| v["event"] != "alert"), "the game went on untroubled");
}
