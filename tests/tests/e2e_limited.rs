//! Limited play end to end: two `fairdeck --script` processes deal sealed pools (from a cube, from a set's boosters)
//! or draft them (a grid draft, a Winston draft) over a real relay, build their decks from them and play a game;
//! both tables are compared after every step, no alert is raised, and both journals verify clean.

use std::path::{Path, PathBuf};

use fairdeck_e2e::{Player, Relay, end_and_verify, example, pool_cards, settle, zone_cards};
use serde_json::Value;

fn cube() -> String {
    example("pools/cube-90.txt").to_str().unwrap().to_string()
}

/// Where `who` (`host` or `guest`) records its journal in `dir`.
fn journal(dir: &Path, who: &str) -> PathBuf {
    dir.join(format!("{who}.journal"))
}

/// The host offers limited play from `pool` in `format` (the words after `--limited`) and the guest joins with the
/// same pool file; each records its journal in `dir`.
fn pair(relay: &Relay, dir: &Path, pool: &str, format: &[&str]) -> (Player, Player) {
    let record = |who| journal(dir, who).to_str().unwrap().to_string();
    let (host_record, guest_record) = (record("host"), record("guest"));
    let mut host_args = vec!["host", "--pool", pool, "--limited"];
    host_args.extend(format);
    host_args.extend(["--record", &host_record]);
    let mut host = Player::spawn_bringing("host", &relay.url(), &host_args);
    let code = host.expect_event("code")["code"].as_str().unwrap().to_string();
    let guest_args = ["join", &code, "--pool", pool, "--record", &guest_record];
    (host, Player::spawn_bringing("guest", &relay.url(), &guest_args))
}

/// Brings a killed player back with `fairdeck resume`, recording its journal where it did.
fn resume(name: &'static str, killed: &Player, dir: &Path) -> Player {
    Player::resume(name, killed.data(), &["--record", journal(dir, name).to_str().unwrap()])
}

/// A deck file in `dir`: the first `spells` cards of the pool and `lands` Mountains; the rest of the pool is left
/// out (it becomes the sideboard).
fn deck_file(dir: &Path, who: &str, pool: &[String], spells: usize, lands: usize) -> PathBuf {
    let mut text = String::new();
    for name in &pool[..spells] {
        text.push_str(&format!("1 {name}\n"));
    }
    text.push_str(&format!("{lands} Mountain\n"));
    let file = dir.join(format!("{who}-sealed.txt"));
    std::fs::write(&file, text).unwrap();
    file
}

/// Each player writes a deck of `spells` cards of its pool and `lands` Mountains into `dir`, builds it, and the game
/// is set up.
fn build_both(dir: &Path, players: [&mut Player; 2], pools: [&[String]; 2], spells: usize, lands: usize) {
    let [host, guest] = players;
    for (player, (who, pool)) in [&mut *host, &mut *guest].into_iter().zip([("host", pools[0]), ("guest", pools[1])]) {
        let file = deck_file(dir, who, pool, spells, lands);
        player.send(&format!("build {}", file.display()));
    }
    for player in [host, guest] {
        player.expect_event("ready");
    }
}

/// The first steps of a game, both tables compared after every one: each player draws seven, the host plays a card
/// of its hand, the guest shuffles its library and reveals a card of its hand. The host's last table.
fn play(host: &mut Player, guest: &mut Player) -> Value {
    let library = zone_cards(&settle(host, guest), "host library").len();
    host.send("draw 7");
    let table = settle(host, guest);
    let hand = zone_cards(&table, "host hand");
    assert_eq!((hand.len(), zone_cards(&table, "host library").len()), (7, library - 7));
    guest.send("draw 7");
    let guest_hand = zone_cards(&settle(host, guest), "guest hand");
    assert_eq!(guest_hand.len(), 7);

    // Played, a card is public: the guest learns what it is.
    let played = hand[0];
    assert!(guest.learned_name(played).is_none(), "the guest does not see the host's hand");
    host.send(&format!("play {played} at 0,0"));
    let table = settle(host, guest);
    assert_eq!(zone_cards(&table, "host play"), [played]);
    assert_eq!(guest.learned_name(played), Some(host.learned_name(played).expect("the host knows its hand")));

    guest.send("shuffle");
    settle(host, guest);
    assert!(host.seen.iter().any(|e| e["event"] == "shuffled" && e["library"] == "guest"), "the host is told");

    let shown = guest_hand[0];
    guest.send(&format!("reveal {shown}"));
    let table = settle(host, guest);
    assert_eq!(host.learned_name(shown), Some(guest.learned_name(shown).expect("the guest knows its hand")));
    table
}

/// Ends the game and quits both (`end_and_verify`), both journals in `dir` verified.
fn finish(host: Player, guest: Player, dir: &Path) {
    end_and_verify(host, guest, [&journal(dir, "host"), &journal(dir, "guest")]);
}

#[test]
fn a_sealed_match_from_a_cube_is_dealt_built_played_and_verified() {
    let dir = tempfile::tempdir().unwrap();
    let relay = Relay::start();
    let (mut host, mut guest) = pair(&relay, dir.path(), &cube(), &["sealed", "--cards", "30"]);
    let mut pools = Vec::new();
    for player in [&mut host, &mut guest] {
        let limited = player.expect_event("limited");
        assert_eq!(limited["format"], serde_json::json!({"sealed": {"cards": 30}}));
        let pool = pool_cards(&player.expect_event("pool"));
        assert_eq!(pool.len(), 30);
        pools.push(pool);
    }
    // A singleton cube: the two pools share no card.
    assert!(pools[0].iter().all(|card| !pools[1].contains(card)), "{pools:?}");

    // A card outside the pool is refused, naming it; nothing is sent.
    let cheat = dir.path().join("cheat.txt");
    std::fs::write(&cheat, format!("1 {}\n2 Black Lotus\n16 Mountain\n", pools[1][0])).unwrap();
    host.send(&format!("build {}", cheat.display()));
    let refused = host.expect_event("error");
    assert_eq!(refused["kind"], "not_in_pool");
    let message = refused["message"].as_str().unwrap();
    assert!(message.contains("2 Black Lotus") && message.contains(&pools[1][0]), "{message}");

    build_both(dir.path(), [&mut host, &mut guest], [&pools[0], &pools[1]], 23, 17);
    let table = play(&mut host, &mut guest);
    assert_eq!(zone_cards(&table, "host library").len(), 40 - 7);
    assert_eq!(zone_cards(&table, "host sideboard").len(), 30 - 23);
    for id in zone_cards(&table, "host hand").into_iter().chain(zone_cards(&table, "host play")) {
        let name = host.learned_name(id).expect("the host knows its cards");
        assert!(pools[0].contains(&name) || name == "Mountain", "{name} is no card of the host's pool");
    }
    finish(host, guest, dir.path());
}

#[test]
fn a_guest_with_another_pool_file_is_told_both_hashes_before_anything_is_dealt() {
    let dir = tempfile::tempdir().unwrap();
    let relay = Relay::start();
    let other = dir.path().join("other-cube.txt");
    std::fs::write(&other, std::fs::read_to_string(cube()).unwrap() + "1 Black Lotus\n").unwrap();
    let mut host = Player::spawn_bringing(
        "host",
        &relay.url(),
        &["host", "--pool", &cube(), "--limited", "sealed", "--cards", "20"],
    );
    let code = host.expect_event("code")["code"].as_str().unwrap().to_string();
    let mut guest = Player::spawn_bringing("guest", &relay.url(), &["join", &code, "--pool", other.to_str().unwrap()]);
    for player in [&mut host, &mut guest] {
        let alert = player.expect_event("alert");
        assert_eq!(alert["kind"], "incompatible");
        assert_eq!(alert["misbehaviour"], true);
        assert!(alert["detail"].as_str().unwrap().contains("same file"), "{alert}");
    }
    assert!(host.seen.iter().chain(&guest.seen).all(|event| event["event"] != "pool"));
}

#[test]
fn a_guest_killed_while_building_resumes_with_its_pool_and_the_match_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let relay = Relay::start();
    let (mut host, mut guest) = pair(&relay, dir.path(), &cube(), &["sealed", "--cards", "20"]);
    let guest_pool = pool_cards(&guest.expect_event("pool"));
    let host_pool = pool_cards(&host.expect_event("pool"));
    guest.wait_idle();
    guest.kill();
    let mut guest = resume("guest", &guest, dir.path());
    let resumed = pool_cards(&guest.expect_event("pool"));
    assert_eq!(resumed, guest_pool, "the resumed guest is shown the same pool");
    build_both(dir.path(), [&mut host, &mut guest], [&host_pool, &guest_pool], 15, 10);
    play(&mut host, &mut guest);
    finish(host, guest, dir.path());
}

#[test]
fn sealed_boosters_of_a_set_file_are_opened_built_and_played() {
    let dir = tempfile::tempdir().unwrap();
    let relay = Relay::start();
    let set = example("pools/small-set.json").to_str().unwrap().to_string();
    let (mut host, mut guest) = pair(&relay, dir.path(), &set, &["sealed", "--boosters", "3"]);
    let mut pools = Vec::new();
    for player in [&mut host, &mut guest] {
        assert_eq!(player.expect_event("limited")["format"], serde_json::json!({"sealed-boosters": {"boosters": 3}}));
        let pool = pool_cards(&player.expect_event("pool"));
        assert!(pool.len() >= 3 * 10, "three boosters: {pool:?}");
        pools.push(pool);
    }
    build_both(dir.path(), [&mut host, &mut guest], [&pools[0], &pools[1]], 20, 10);
    play(&mut host, &mut guest);
    finish(host, guest, dir.path());
}

/// A `{"row":N}` or `{"column":N}` line of a grid event's cells with a card left, as a `pick` command.
fn open_line(cells: &[Value]) -> String {
    let lines = (0..3).map(|n| ("row", n)).chain((0..3).map(|n| ("column", n)));
    for (kind, n) in lines {
        let cell = |i: usize| if kind == "row" { 3 * n + i } else { 3 * i + n };
        if (0..3).any(|i| !cells[cell(i)].is_null()) {
            return format!("pick {kind} {}", n + 1);
        }
    }
    panic!("an empty grid: {cells:?}")
}

#[test]
fn a_grid_draft_from_a_cube_is_picked_built_and_played() {
    let dir = tempfile::tempdir().unwrap();
    let relay = Relay::start();
    let (mut host, mut guest) = pair(&relay, dir.path(), &cube(), &["grid", "--grids", "4"]);
    for player in [&mut host, &mut guest] {
        assert_eq!(player.expect_event("limited")["format"], serde_json::json!({"grid": {"grids": 4}}));
    }
    let mut picks = 0;
    while picks < 8 {
        let grid = host.expect_event("grid");
        let shown = guest.expect_event("grid");
        assert_eq!(grid, shown, "both see the same grid");
        let Some(picker) = grid["picker"].as_str() else { continue };
        let line = open_line(grid["cells"].as_array().unwrap());
        let (picking, waiting) = if picker == "host" { (&mut host, &mut guest) } else { (&mut guest, &mut host) };
        // Out of turn is refused.
        waiting.send(&line);
        assert_eq!(waiting.expect_event("error")["kind"], "refused");
        picking.send(&line);
        let taken = picking.expect_event("picked");
        assert_eq!(waiting.expect_event("picked"), taken);
        picks += 1;
    }
    let mut pools = Vec::new();
    for player in [&mut host, &mut guest] {
        pools.push(pool_cards(&player.expect_event("pool")));
    }
    assert!(pools.iter().all(|pool| (8..=12).contains(&pool.len())), "{pools:?}");
    build_both(dir.path(), [&mut host, &mut guest], [&pools[0], &pools[1]], 5, 10);
    play(&mut host, &mut guest);
    finish(host, guest, dir.path());
}

/// Drives a Winston draft for at most `looks` choices: once both programs are idle (each waits on a player's choice,
/// or the draft is over), the host's last `winston` event is where the draft stands, and the player who looks passes
/// the first pile of every other look while the stack has cards and takes the rest. Whether the pools came.
fn draft_winston(host: &mut Player, guest: &mut Player, looks: usize) -> bool {
    for look in 0..looks {
        host.wait_idle();
        guest.wait_idle();
        host.wait_idle();
        if host.seen.iter().any(|v| v["event"] == "pool") {
            return true;
        }
        let state = host.seen.iter().rev().find(|v| v["event"] == "winston").unwrap().clone();
        let looker = state["looking"].as_str().expect("someone looks until the pool is told");
        let pile = state["pile"].as_u64().unwrap();
        let player = if looker == "host" { &mut *host } else { &mut *guest };
        assert_eq!(player.seen.iter().rev().find(|v| v["event"] == "pile_shown").unwrap()["pile"], pile);
        let stack = state["stack"].as_u64().unwrap();
        let choice = if look % 2 == 0 && pile == 0 && stack > 0 { "pile pass" } else { "pile take" };
        player.send(choice);
    }
    false
}

/// Both players' pools, which hold `cards` cards between them, once neither was shown an alert or an error.
fn drafted_without_alert(host: &Player, guest: &Player, cards: usize) -> [Vec<String>; 2] {
    let pools = [host, guest].map(|player| pool_cards(player.seen.iter().find(|v| v["event"] == "pool").unwrap()));
    assert_eq!(pools[0].len() + pools[1].len(), cards, "{pools:?}");
    let wrong: Vec<&Value> =
        host.seen.iter().chain(&guest.seen).filter(|v| v["event"] == "alert" || v["event"] == "error").collect();
    assert!(wrong.is_empty(), "{wrong:?}");
    pools
}

#[test]
fn a_host_killed_in_a_winston_draft_resumes_where_it_stood_and_the_match_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let relay = Relay::start();
    let (mut host, mut guest) = pair(&relay, dir.path(), &cube(), &["winston", "--cards", "15"]);
    assert!(!draft_winston(&mut host, &mut guest, 5), "the draft goes on");
    host.wait_idle();
    host.kill();
    let mut host = resume("host", &host, dir.path());
    // Told again where the draft stands, and the pile it looks at if it is its turn.
    let state = host.expect_event("winston");
    if state["looking"] == "host" {
        host.expect_event("pile_shown");
    }
    assert!(draft_winston(&mut host, &mut guest, 100), "the draft ends after the resume");
    let pools = drafted_without_alert(&host, &guest, 15);
    // Every look takes at least one card and the looks alternate: each pool holds one card at least.
    build_both(dir.path(), [&mut host, &mut guest], [&pools[0], &pools[1]], 1, 12);
    play(&mut host, &mut guest);
    finish(host, guest, dir.path());
}

#[test]
fn a_winston_draft_from_a_cube_is_drafted_built_and_played() {
    let dir = tempfile::tempdir().unwrap();
    let relay = Relay::start();
    let (mut host, mut guest) = pair(&relay, dir.path(), &cube(), &["winston", "--cards", "18"]);
    for player in [&mut host, &mut guest] {
        assert_eq!(player.expect_event("limited")["format"], serde_json::json!({"winston": {"cards": 18}}));
    }
    assert!(draft_winston(&mut host, &mut guest, 100), "the draft ends");
    let host_pool = pool_cards(host.seen.iter().find(|v| v["event"] == "pool").unwrap());
    // The guest's pool came before its last `idle`.
    let guest_pool = pool_cards(guest.seen.iter().find(|v| v["event"] == "pool").unwrap());
    assert_eq!(host_pool.len() + guest_pool.len(), 18, "{host_pool:?} {guest_pool:?}");
    // The guest was told the host took cards, never which ones it had not looked at.
    for taken in guest.seen.iter().filter(|v| v["event"] == "pile_taken" && v["by"] == "host") {
        for card in taken["cards"].as_array().unwrap() {
            assert!(host_pool.contains(&card.as_str().unwrap().to_string()));
        }
    }
    let wrong: Vec<&Value> =
        host.seen.iter().chain(&guest.seen).filter(|v| v["event"] == "alert" || v["event"] == "error").collect();
    assert!(wrong.is_empty(), "{wrong:?}");
    build_both(dir.path(), [&mut host, &mut guest], [&host_pool, &guest_pool], 3, 10);
    play(&mut host, &mut guest);
    finish(host, guest, dir.path());
}

#[test]
fn passing_every_pile_with_one_card_left_takes_it_unseen_and_a_resume_goes_on_from_there() {
    let dir = tempfile::tempdir().unwrap();
    let relay = Relay::start();
    // Six cards: three piles and three in the stack. The host passes all three piles: the last pass finds one card
    // left in the stack, which it takes unseen (this once crashed both programs).
    let (mut host, mut guest) = pair(&relay, dir.path(), &cube(), &["winston", "--cards", "6"]);
    for pile in 0..3 {
        host.wait_idle();
        guest.wait_idle();
        host.wait_idle();
        let state = host.seen.iter().rev().find(|v| v["event"] == "winston").unwrap().clone();
        assert_eq!((state["looking"].as_str(), state["pile"].as_u64()), (Some("host"), Some(pile)), "{state}");
        host.send("pile pass");
    }
    host.wait_idle();
    guest.wait_idle();
    host.wait_idle();
    let unseen = |v: &&Value| v["event"] == "pile_taken" && v["by"] == "host" && v["pile"].is_null();
    let taken = host.seen.iter().find(unseen).expect("the host is told the card it took unseen");
    assert_eq!(taken["cards"].as_array().map(Vec::len), Some(1), "{taken}");
    assert!(guest.seen.iter().any(|v| unseen(&v)), "the guest is told the host took a card, not which");
    // The guest's program, killed and resumed, replays that pass from its save and goes on.
    guest.kill();
    let mut guest = resume("guest", &guest, dir.path());
    guest.expect_event("winston");
    assert!(draft_winston(&mut host, &mut guest, 20), "the draft ends");
    let pools = drafted_without_alert(&host, &guest, 6);
    build_both(dir.path(), [&mut host, &mut guest], [&pools[0], &pools[1]], 1, 12);
    play(&mut host, &mut guest);
    finish(host, guest, dir.path());
}
