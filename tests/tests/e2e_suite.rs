//! A game in the modp2048 suite, played from the client: the host chooses it (`host --suite modp2048`), the guest's
//! program learns it from the host's hello and says so, both draw and learn their cards while a spectator checks the
//! game (`fairdeck watch`), a killed guest resumes its save in that suite and draws again, and both journals verify
//! clean, show and replay. Ten-card decks: modp2048 is
//! about a hundred times slower than ristretto255 in a debug build.

use std::path::{Path, PathBuf};

use fairdeck_e2e::{Player, Relay, end_and_verify, fairdeck_command, public, settle, zone_cards};
use serde_json::Value;

/// A deck of ten cards, each named once, written into `dir`; their names.
fn ten_cards(dir: &Path) -> (PathBuf, Vec<String>) {
    let names: Vec<String> = (0..10).map(|i| format!("Card {i}")).collect();
    let file = dir.join("ten.txt");
    let text: String = names.iter().map(|name| format!("1 {name}\n")).collect();
    std::fs::write(&file, text).unwrap();
    (file, names)
}

/// `fairdeck ARGS`: what it printed, once it exited with success.
fn fairdeck(args: &[&str]) -> String {
    let output = fairdeck_command().args(args).output().expect("run fairdeck");
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{args:?}: {err}");
    String::from_utf8(output.stdout).expect("UTF-8 output")
}

/// `player` (in `seat`) draws a card: the card (the last of its hand, once nothing is in flight) and what it learned
/// that card to be.
fn draw(player: &mut Player, seat: &str) -> (u64, String) {
    player.send("draw 1");
    player.wait_idle();
    let hand = zone_cards(&player.table(), &format!("{seat} hand"));
    let drawn = *hand.last().expect("a card in hand");
    let learned = player.learned_name(drawn).unwrap_or_else(|| panic!("{seat} learned card {drawn}"));
    (drawn, learned)
}

#[test]
fn a_modp2048_game_hosted_joined_drawn_killed_resumed_and_verified() {
    let dir = tempfile::tempdir().unwrap();
    let (deck, names) = ten_cards(dir.path());
    let journals = [dir.path().join("host.journal"), dir.path().join("guest.journal")];
    let record = |i: usize| journals[i].to_str().unwrap().to_string();
    let relay = Relay::start();
    let mut host =
        Player::spawn_with_deck("host", &relay, &deck, &["host", "--suite", "modp2048", "--record", &record(0)]);
    let code = host.expect_event("code")["code"].as_str().unwrap().to_string();
    let mut guest = Player::spawn_with_deck("guest", &relay, &deck, &["join", &code, "--record", &record(1)]);
    // The guest was given no suite: it is told the host's, as the host is told the guest's hello agrees.
    for player in [&mut host, &mut guest] {
        let connected = player.expect_event("connected");
        assert_eq!(connected["suite"], "modp2048", "{connected}");
        player.expect_event("ready");
    }
    // A spectator of the host's seat: the host's program places the record so far in its turns with an observer of
    // the game's suite, the spectator checks every step with one.
    host.send("watch-code");
    let watch_code = host.expect_event("watch_code")["code"].as_str().unwrap().to_string();
    let mut spectator = Player::spawn_bringing("spectator", &relay.url(), &["watch", &watch_code]);
    spectator.expect_event("watching");

    let (_, host_card) = draw(&mut host, "host");
    let (_, guest_card) = draw(&mut guest, "guest");
    for card in [&host_card, &guest_card] {
        assert!(names.contains(card), "{card} is a card of the deck");
    }
    let table = settle(&mut host, &mut guest);
    spectator
        .expect("the spectator's table at the players' own", |v| v["event"] == "table" && public(v) == public(&table));
    assert!(spectator.seen.iter().all(|v| v["event"] != "alert"), "an honest game raises no alert");

    // The guest crashes; its save is of the game's suite, and the game goes on from it.
    guest.kill();
    let mut guest = Player::resume("guest", guest.data(), &["--record", &record(1)]);
    guest.expect_event("restored");
    host.expect_event("peer_back");
    let (drawn, again) = draw(&mut guest, "guest");
    assert!(names.contains(&again) && again != guest_card, "a second card of the deck: {again}");
    let (_, host_again) = draw(&mut host, "host");
    assert!(names.contains(&host_again) && host_again != host_card, "{host_again}");
    let table = settle(&mut host, &mut guest);
    assert_eq!(zone_cards(&table, "guest hand").len(), 2);
    assert!(zone_cards(&table, "guest hand").contains(&drawn));

    end_and_verify(host, guest, [&journals[0], &journals[1]]);
    for journal in &journals {
        let file = journal.to_str().unwrap();
        let shown: Value = serde_json::from_str(&fairdeck(&["journal", "show", file])).unwrap();
        assert_eq!(shown["suite"], "modp2048", "{file}");
        let replayed = fairdeck(&["replay", file, "--script"]);
        let last: Value = serde_json::from_str(replayed.lines().last().unwrap()).unwrap();
        assert_eq!(last["event"], "table", "{file}");
        assert_eq!(zone_cards(&last, "guest hand").len(), 2, "{file}");
    }
}
