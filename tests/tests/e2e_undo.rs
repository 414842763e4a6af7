//! Undo by consent between two real `fairdeck --script` processes over a relay: a player asks to undo its last
//! action, the other accepts (both tables go back) or refuses (nothing changes); a draw cannot be undone and says
//! so. Both tables are compared after every step, and both journals verify clean at the end.

use fairdeck_e2e::{Player, Relay, end_and_verify, settle, zone_cards};
use serde_json::Value;

/// The card's entry in a table event.
fn card(table: &Value, id: u64) -> Value {
    table["cards"].get(id.to_string()).unwrap_or_else(|| panic!("no card {id} in {}", table["cards"])).clone()
}

/// `asker` asks to undo its last action: the other player is told what it would undo.
fn ask(asker: &mut Player, other: &mut Player, action: &str) {
    asker.send("undo");
    asker.expect("own undo asked", |v| v["event"] == "undo_asked" || v["event"] == "error");
    let asked = other.expect("undo asked", |v| v["event"] == "undo_asked");
    assert_eq!(asked["undone"]["action"], action, "{asked}");
}

#[test]
fn an_undo_accepted_puts_both_tables_back_and_one_refused_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let record = |who: &str| dir.path().join(format!("{who}.journal"));
    let (host_record, guest_record) = (record("host"), record("guest"));
    let relay = Relay::start();
    let mut host = Player::spawn("host", &relay, &["host", "--record", host_record.to_str().unwrap()]);
    let code = host.expect_event("code")["code"].as_str().unwrap().to_string();
    let mut guest = Player::spawn("guest", &relay, &["join", &code, "--record", guest_record.to_str().unwrap()]);
    for player in [&mut host, &mut guest] {
        player.expect_event("ready");
    }
    guest.send("draw 7");
    let table = settle(&mut host, &mut guest);
    let played = zone_cards(&table, "guest hand")[0];
    guest.send(&format!("play {played} at 2,1"));
    settle(&mut host, &mut guest);
    guest.send(&format!("tap {played}"));
    let tapped = settle(&mut host, &mut guest);
    assert_eq!(card(&tapped, played)["tapped"], true);

    // Accepted: the card is untapped on both tables, and both are told.
    ask(&mut guest, &mut host, "tap");
    host.send("undo accept");
    for player in [&mut host, &mut guest] {
        player.expect("undone", |v| v["event"] == "undone" && v["actor"] == "guest");
    }
    let table = settle(&mut host, &mut guest);
    assert_eq!(card(&table, played)["tapped"], false);

    // An undo is not undone: the last action is now the host's.
    guest.send("undo");
    let error = guest.expect("not yours", |v| v["event"] == "error");
    assert!(error["message"].as_str().unwrap().contains("opponent's"), "{error}");

    // A card played from the hand goes back to the hand, where it was.
    let hand = zone_cards(&table, "guest hand");
    guest.send(&format!("play {} at 3,1", hand[2]));
    settle(&mut host, &mut guest);
    ask(&mut guest, &mut host, "move");
    host.send("undo accept");
    guest.expect("undone", |v| v["event"] == "undone" && v["undone"]["action"] == "move");
    let table = settle(&mut host, &mut guest);
    assert_eq!(zone_cards(&table, "guest hand"), hand);
    assert_eq!(zone_cards(&table, "guest play"), [played]);

    // Refused: the host's life stays as it set it.
    host.send("life 15");
    let before = settle(&mut host, &mut guest);
    ask(&mut host, &mut guest, "set-player-value");
    guest.send("undo refuse");
    host.expect("refused", |v| v["event"] == "undo_refused" && v["by"] == "guest");
    let table = settle(&mut host, &mut guest);
    assert_eq!(table["players"], before["players"]);
    guest.send("undo accept");
    guest.expect("nothing to accept", |v| v["event"] == "error");

    // A draw is not undoable, and the player is told why; nothing is sent.
    host.send("draw 1");
    settle(&mut host, &mut guest);
    host.send("undo");
    let error = host.expect("not undoable", |v| v["event"] == "error");
    assert!(error["message"].as_str().unwrap().contains("cannot be unseen"), "{error}");
    settle(&mut host, &mut guest);
    assert!(
        !guest.seen.iter().any(|e| e["event"] == "undo_asked" && e["by"] == "host" && e["undone"]["action"] == "draw")
    );

    end_and_verify(host, guest, [&host_record, &guest_record]);
}
