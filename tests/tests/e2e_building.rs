//! Building a limited deck at the table end to end: two `fairdeck --script` processes are dealt sealed pools from a
//! cube, build their decks with `add`, `remove`, `basics` and `done`, play, and sideboard from the pool between
//! games; each deck built is a deck file `fairdeck deck` reads back. Both tables are compared once each game is set
//! up, and both journals verify clean.

use std::path::Path;

use fairdeck_e2e::{Player, Relay, end_and_verify, example, fairdeck_command, settle, zone_cards};
use serde_json::{Value, json};

/// Each player brings this many cards of the pool into the deck, and this many Mountains and Islands.
const SPELLS: usize = 12;
const MOUNTAINS: u32 = 5;
const ISLANDS: u32 = 4;
/// Cards dealt to each player.
const DEAL: u32 = 20;

/// Sealed pools of `DEAL` cards from the cube; each player records its journal in `dir`.
fn sealed_pair(relay: &Relay, dir: &Path) -> (Player, Player) {
    let cube = example("pools/cube-90.txt");
    let cube = cube.to_str().unwrap();
    let deal = DEAL.to_string();
    let record = |who: &str| dir.join(format!("{who}.journal")).to_str().unwrap().to_string();
    let (host_record, guest_record) = (record("host"), record("guest"));
    let mut host = Player::spawn_bringing(
        "host",
        &relay.url(),
        &["host", "--pool", cube, "--limited", "sealed", "--cards", &deal, "--record", &host_record],
    );
    let code = host.expect_event("code")["code"].as_str().unwrap().to_string();
    let guest =
        Player::spawn_bringing("guest", &relay.url(), &["join", &code, "--pool", cube, "--record", &guest_record]);
    (host, guest)
}

/// The pool's names (a singleton cube: one copy each).
fn pool_names(player: &mut Player) -> Vec<String> {
    let pool = player.expect_event("pool");
    pool["cards"].as_array().unwrap().iter().map(|pair| pair[1].as_str().unwrap().to_string()).collect()
}

/// A section of a deck as `fairdeck deck --json` prints it: `[count, name]` rows.
type Rows = Vec<(u64, String)>;

/// `fairdeck deck FILE --json`: the main deck's and the sideboard's rows.
fn read_back(file: &Path) -> (Rows, Rows) {
    let output = fairdeck_command().arg("deck").arg(file).arg("--json").output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let deck: Value = serde_json::from_slice(&output.stdout).unwrap();
    let rows = |section: &str| -> Rows {
        let row = |pair: &Value| (pair[0].as_u64().unwrap(), pair[1].as_str().unwrap().to_string());
        deck[section].as_array().unwrap().iter().map(row).collect()
    };
    (rows("main"), rows("side"))
}

fn total(rows: &[(u64, String)]) -> u64 {
    rows.iter().map(|(count, _)| count).sum()
}

/// Builds a deck of the first `SPELLS + 1` pool cards less one, and the basic lands, checking each answer.
fn build(player: &mut Player, pool: &[String]) {
    for name in &pool[..=SPELLS] {
        player.send(&format!("add {}", name.to_lowercase()));
    }
    let mut last = Value::Null;
    for _ in 0..=SPELLS {
        last = player.expect_event("building");
    }
    assert_eq!(last, json!({"event": "building", "cards": SPELLS + 1, "lands": 0, "left": DEAL as usize - SPELLS - 1}));
    player.send(&format!("remove 1 {}", pool[SPELLS]));
    assert_eq!(player.expect_event("building")["cards"], SPELLS);
    player.send(&format!("basics {MOUNTAINS} Mountain {ISLANDS} island"));
    let lands = player.expect_event("building");
    assert_eq!(lands["lands"], MOUNTAINS + ISLANDS);
    assert_eq!(lands["left"], DEAL as usize - SPELLS);
}

#[test]
fn both_players_build_at_the_table_play_and_sideboard_from_the_pool() {
    let dir = tempfile::tempdir().unwrap();
    let relay = Relay::start();
    let (mut host, mut guest) = sealed_pair(&relay, dir.path());
    let pools = [pool_names(&mut host), pool_names(&mut guest)];

    // The cube is a singleton: a second copy is refused saying how many the pool holds; nothing changed.
    host.send(&format!("add 2 {}", pools[0][0]));
    let refused = host.expect_event("error");
    assert_eq!(refused["kind"], "not_in_pool");
    assert!(refused["message"].as_str().unwrap().contains("holds 1 copy"), "{refused}");
    host.send("add Black Lotus");
    assert_eq!(host.expect_event("error")["kind"], "unknown_card");
    // Spectators would see an empty table: the observer does not follow limited play yet.
    host.send("watch-code");
    let refused = host.expect_event("error");
    assert_eq!(refused["kind"], "refused");
    assert!(refused["message"].as_str().unwrap().contains("cannot follow limited play"), "{refused}");
    // The whole pool in at once, then everything out again, the basic land with it.
    host.send("add 1 island");
    host.send("add all");
    host.expect_event("building");
    let deal = DEAL as usize;
    assert_eq!(host.expect_event("building"), json!({"event": "building", "cards": deal, "lands": 1, "left": 0}));
    host.send("remove all");
    assert_eq!(host.expect_event("building"), json!({"event": "building", "cards": 0, "lands": 0, "left": deal}));

    for (player, pool) in [&mut host, &mut guest].into_iter().zip(&pools) {
        build(player, pool);
        player.send("pool");
        let listed = player.expect_event("pool_listed");
        let cards = listed["cards"].as_array().unwrap();
        assert_eq!(cards.len(), DEAL as usize);
        let in_deck: u64 = cards.iter().map(|line| line["in_deck"].as_u64().unwrap()).sum();
        assert_eq!(in_deck, SPELLS as u64);
        player.send("done");
    }
    let mut files = Vec::new();
    for player in [&mut host, &mut guest] {
        let written = player.expect_event("deck_written");
        files.push(std::path::PathBuf::from(written["file"].as_str().unwrap()));
        player.expect_event("ready");
    }
    for (file, pool) in files.iter().zip(&pools) {
        assert!(file.parent().unwrap().ends_with("fairdeck/decks"), "{}", file.display());
        let (main, side) = read_back(file);
        assert_eq!(total(&main), SPELLS as u64 + u64::from(MOUNTAINS + ISLANDS));
        assert!(main.contains(&(u64::from(MOUNTAINS), "Mountain".to_string())), "{main:?}");
        assert!(main.contains(&(u64::from(ISLANDS), "Island".to_string())), "{main:?}");
        assert_eq!(total(&side), u64::from(DEAL) - SPELLS as u64);
        assert!(side.contains(&(1, pool[SPELLS].clone())), "the card removed is in the sideboard: {side:?}");
    }
    let table = settle(&mut host, &mut guest);
    assert_eq!(zone_cards(&table, "host library").len(), SPELLS + (MOUNTAINS + ISLANDS) as usize);
    assert_eq!(zone_cards(&table, "host sideboard").len(), DEAL as usize - SPELLS);

    // Between games: the host sideboards from the deck it sent, the guest keeps its deck.
    host.send("done");
    assert_eq!(host.expect_event("error")["kind"], "refused", "the deck is in for this game");
    for player in [&mut host, &mut guest] {
        player.send("end");
    }
    for player in [&mut host, &mut guest] {
        player.expect_event("audited");
        player.wait_idle();
    }
    host.send(&format!("remove 1 {}", pools[0][0]));
    assert_eq!(host.expect_event("building")["cards"], SPELLS - 1);
    host.send(&format!("add 1 {}", pools[0][SPELLS + 1]));
    host.send("basics 10 Mountain");
    assert_eq!(host.expect_event("building")["cards"], SPELLS);
    assert_eq!(host.expect_event("building")["lands"], 10);
    host.send("done");
    let second = std::path::PathBuf::from(host.expect_event("deck_written")["file"].as_str().unwrap().to_string());
    assert_ne!(second, files[0], "each deck built keeps its own file");
    guest.send("new-game");
    for player in [&mut host, &mut guest] {
        player.expect_event("ready");
    }
    let table = settle(&mut host, &mut guest);
    assert_eq!(zone_cards(&table, "host library").len(), SPELLS + 10);
    assert_eq!(zone_cards(&table, "host sideboard").len(), DEAL as usize - SPELLS);
    let (main, side) = read_back(&second);
    assert!(main.contains(&(10, "Mountain".to_string())) && !main.iter().any(|(_, name)| name == "Island"), "{main:?}");
    assert!(side.contains(&(1, pools[0][0].clone())), "{side:?}");
    end_and_verify(host, guest, [&dir.path().join("host.journal"), &dir.path().join("guest.journal")]);
}
