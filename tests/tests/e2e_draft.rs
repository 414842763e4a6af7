//! The booster draft for two end to end: two `fairdeck --script` processes draft packs of a cube, or a set's
//! boosters, over a real relay, pick through `pick N` and `pick NAME` until their pools come, build, play, and both
//! journals verify clean.

use std::path::{Path, PathBuf};

use fairdeck_e2e::{Player, Relay, end_and_verify, example, pool_cards, settle, verify_clean};
use serde_json::Value;

fn pool_file(name: &str) -> String {
    example(name).to_str().unwrap().to_string()
}

/// The host drafting `pool` with `draft_args`, and the guest that joins it with the same file, each recording its
/// journal into `dir`.
fn draft_pair(relay: &Relay, dir: &Path, pool: &str, draft_args: &[&str]) -> (Player, Player) {
    let (host_record, guest_record) = (dir.join("host.journal"), dir.join("guest.journal"));
    let mut host_args = vec!["host", "--pool", pool, "--limited", "draft"];
    host_args.extend(draft_args);
    host_args.extend(["--record", host_record.to_str().unwrap()]);
    let mut host = Player::spawn_bringing("host", &relay.url(), &host_args);
    let code = host.expect_event("code")["code"].as_str().unwrap().to_string();
    let guest_args = ["join", &code, "--pool", pool, "--record", guest_record.to_str().unwrap()];
    let guest = Player::spawn_bringing("guest", &relay.url(), &guest_args);
    (host, guest)
}

/// The pack `player` has yet to pick from: its last `pack` event, unless it took a card since.
fn pack_to_pick(player: &Player, seat: &str) -> Option<Value> {
    let at = player.seen.iter().rposition(|v| v["event"] == "pack")?;
    let taken = player.seen[at..].iter().any(|v| v["event"] == "card_taken" && v["by"] == seat);
    (!taken).then(|| player.seen[at].clone())
}

/// The `card_taken` event of `player`'s own pick (the other's may come before it).
fn took(player: &mut Player, seat: &str) -> Value {
    player.expect("its card_taken", |v| v["event"] == "card_taken" && v["by"] == seat)
}

/// Drives the draft until both pools come: once both programs are idle (each waits on a pick, or is done), each
/// player with a pack to pick from takes a card of it, by its number or by its name in turn. The pools.
fn draft(host: &mut Player, guest: &mut Player) -> [Vec<String>; 2] {
    let pool = |player: &Player| player.seen.iter().find(|v| v["event"] == "pool").map(pool_cards);
    for step in 0..200 {
        host.wait_idle();
        guest.wait_idle();
        host.wait_idle();
        if let (Some(host_pool), Some(guest_pool)) = (pool(host), pool(guest)) {
            return [host_pool, guest_pool];
        }
        for (player, seat) in [(&mut *host, "host"), (&mut *guest, "guest")] {
            let Some(pack) = pack_to_pick(player, seat) else { continue };
            let cards = pack["cards"].as_array().unwrap();
            let pick = if step % 2 == 0 {
                format!("pick {}", cards.len())
            } else {
                format!("pick {}", cards[0].as_str().unwrap().to_uppercase())
            };
            player.send(&pick);
            let taken = took(player, seat);
            let wanted = if step % 2 == 0 { &cards[cards.len() - 1] } else { &cards[0] };
            assert_eq!(&taken["card"], wanted, "{pick} took the card it names");
        }
    }
    panic!("the draft did not end; the host saw {:#?}", host.seen)
}

/// No `pack` event of `player` lists the first card `other` took of a pack it opened (`other_index` 0 for the
/// host, 1 for the guest: pack `2r + other_index` is the one it opens in round `r`).
fn never_shown_first_picks(player: &Player, other: &Player, other_seat: &str, other_index: u64) {
    let mut firsts = Vec::new();
    for taken in other.seen.iter().filter(|v| v["event"] == "card_taken" && v["by"] == other_seat) {
        let pack = taken["pack"].as_u64().unwrap();
        if pack % 2 == other_index && !firsts.iter().any(|(p, _)| *p == pack) {
            firsts.push((pack, taken["card"].as_str().expect("named to its taker").to_string()));
        }
    }
    assert!(!firsts.is_empty(), "{other_seat} opened packs");
    for shown in player.seen.iter().filter(|v| v["event"] == "pack") {
        for (pack, card) in &firsts {
            assert!(!shown["cards"].as_array().unwrap().iter().any(|c| c == card), "{card} of pack {pack}: {shown}");
        }
    }
    // The other's picks are told to this player, the card unnamed.
    let told = player.seen.iter().filter(|v| v["event"] == "card_taken" && v["by"] == other_seat);
    assert!(told.clone().count() > 0 && told.clone().all(|v| v["card"].is_null()));
}

/// A deck file in `dir`: the first `spells` cards of the pool and `lands` Mountains (the rest is the sideboard).
fn deck_file(dir: &Path, who: &str, pool: &[String], spells: usize, lands: usize) -> String {
    let mut text: String = pool[..spells].iter().map(|name| format!("1 {name}\n")).collect();
    text.push_str(&format!("{lands} Mountain\n"));
    let file = dir.join(format!("{who}-draft.txt"));
    std::fs::write(&file, text).unwrap();
    file.to_str().unwrap().to_string()
}

/// No alert, nor refused command, in either player's events.
fn nothing_wrong(host: &Player, guest: &Player) {
    let wrong: Vec<&Value> =
        host.seen.iter().chain(&guest.seen).filter(|v| v["event"] == "alert" || v["event"] == "error").collect();
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
fn a_booster_draft_from_a_cube_is_picked_built_played_and_verified() {
    let dir = tempfile::tempdir().unwrap();
    let relay = Relay::start();
    let cube = pool_file("pools/cube-90.txt");
    let (mut host, mut guest) = draft_pair(&relay, dir.path(), &cube, &["--packs", "2", "--pack-size", "5"]);
    for player in [&mut host, &mut guest] {
        let limited = player.expect_event("limited");
        assert_eq!(limited["format"], serde_json::json!({"draft": {"packs": 2, "cards": 5}}));
        let pack = player.expect_event("pack");
        assert_eq!(pack["cards"].as_array().unwrap().len(), 5, "{pack}");
    }
    // Past the pack's end, and out of the names it holds: refused, saying what it holds.
    host.send("pick 6");
    let refused = host.expect_event("error");
    assert_eq!(refused["kind"], "unknown_card");
    assert!(refused["message"].as_str().unwrap().contains("5 "), "{refused}");
    host.send("pick Black Lotus");
    assert_eq!(host.expect_event("error")["kind"], "unknown_card");
    host.seen.retain(|v| v["event"] != "error");

    let pools = draft(&mut host, &mut guest);
    // Each takes 3 cards of the pack it opens and 2 of the other's, round after round.
    assert!(pools.iter().all(|pool| pool.len() == 10), "{pools:?}");
    // A singleton cube: the pools share no card, and neither player saw the card the other took first of its pack.
    assert!(pools[0].iter().all(|card| !pools[1].contains(card)), "{pools:?}");
    never_shown_first_picks(&host, &guest, "guest", 1);
    never_shown_first_picks(&guest, &host, "host", 0);
    let last = host.seen.iter().rev().find(|v| v["event"] == "packs").unwrap();
    assert_eq!(last["picks"], serde_json::json!([10, 10]), "{last}");

    for (player, (who, pool)) in [&mut host, &mut guest].into_iter().zip([("host", &pools[0]), ("guest", &pools[1])]) {
        player.send(&format!("build {}", deck_file(dir.path(), who, pool, 8, 12)));
    }
    for player in [&mut host, &mut guest] {
        player.expect_event("ready");
        player.send("draw 7");
    }
    settle(&mut host, &mut guest);
    nothing_wrong(&host, &guest);
    let saves: Vec<PathBuf> = host.saves().into_iter().chain(guest.saves()).collect();
    assert_eq!(saves.len(), 2, "{saves:?}");
    // The saves' folders outlive the players.
    let _folders = [host.data(), guest.data()];
    end_and_verify(host, guest, [&dir.path().join("host.journal"), &dir.path().join("guest.journal")]);
    // A game's save holds its journal: `verify` reads it as well.
    for save in saves {
        verify_clean(&save);
    }
}

/// How many cards a booster of the set file holds: the same for each of its draft boosters' layouts.
fn booster_size(set: &str) -> usize {
    let file: Value = serde_json::from_str(&std::fs::read_to_string(set).unwrap()).unwrap();
    let file = if file["data"].is_object() { &file["data"] } else { &file };
    let sizes: Vec<u64> = file["booster"]["draft"]["boosters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|booster| booster["contents"].as_object().unwrap().values().map(|n| n.as_u64().unwrap()).sum())
        .collect();
    assert!(sizes.windows(2).all(|pair| pair[0] == pair[1]), "{sizes:?}");
    sizes[0] as usize
}

#[test]
fn a_booster_draft_of_a_set_opens_a_booster_each_and_each_pool_is_a_booster_of_cards() {
    let dir = tempfile::tempdir().unwrap();
    let relay = Relay::start();
    let set = pool_file("pools/small-set.json");
    let (mut host, mut guest) = draft_pair(&relay, dir.path(), &set, &["--packs", "1"]);
    let size = booster_size(&set);
    for player in [&mut host, &mut guest] {
        assert_eq!(player.expect_event("limited")["format"], serde_json::json!({"booster-draft": {"packs": 1}}));
        assert_eq!(player.expect_event("pack")["cards"].as_array().unwrap().len(), size);
    }
    let pools = draft(&mut host, &mut guest);
    assert!(pools.iter().all(|pool| pool.len() == size), "{size}: {pools:?}");
    nothing_wrong(&host, &guest);
}

#[test]
fn a_draft_the_pool_file_cannot_give_is_refused_before_the_relay_is_reached() {
    let relay = Relay::start();
    let (set, cube) = (pool_file("pools/small-set.json"), pool_file("pools/cube-90.txt"));
    for (pool, draft_args, said) in [
        (&set, &["--pack-size", "10"][..], "--pack-size is for a cube"),
        (&cube, &["--packs", "4"][..], "the pool has 90 cards, and booster draft, 4 packs of 15 cards each deals 120"),
    ] {
        let mut args = vec!["host", "--pool", pool, "--limited", "draft"];
        args.extend(draft_args);
        let mut host = Player::spawn_bringing("host", &relay.url(), &args);
        assert!(!host.wait_exit().success());
        let [error] = &host.seen[..] else { panic!("one error event: {:#?}", host.seen) };
        assert_eq!((&error["event"], &error["kind"]), (&"error".into(), &"pool".into()), "{error}");
        let message = error["message"].as_str().unwrap();
        assert!(message.contains("cannot give this match") && message.contains(said), "{message}");
    }
}

#[test]
fn a_host_killed_in_a_booster_draft_resumes_with_its_pack_and_the_draft_ends() {
    let dir = tempfile::tempdir().unwrap();
    let relay = Relay::start();
    let cube = pool_file("pools/cube-90.txt");
    let (mut host, mut guest) = draft_pair(&relay, dir.path(), &cube, &["--packs", "1", "--pack-size", "6"]);
    // Both take the first card of the pack they opened: each then holds the other's.
    for (player, seat) in [(&mut host, "host"), (&mut guest, "guest")] {
        player.expect_event("pack");
        player.send("pick 1");
        took(player, seat);
    }
    let passed = host.expect_event("pack");
    assert_eq!(passed["pack"], 1, "{passed}");
    host.wait_idle();
    host.kill();
    let mut host = Player::resume("host", host.data(), &[]);
    // Told again where the draft stands and the pack it has yet to pick from.
    assert_eq!(host.expect_event("pack"), passed);
    assert!(host.seen.iter().any(|v| v["event"] == "packs"), "{:#?}", host.seen);
    let pools = draft(&mut host, &mut guest);
    assert!(pools.iter().all(|pool| pool.len() == 6), "{pools:?}");
    nothing_wrong(&host, &guest);
}
