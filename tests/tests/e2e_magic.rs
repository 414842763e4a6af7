//! Games of Magic as players play them, over a real relay with real scripted clients: a Commander game and a
//! constructed match of two games with sideboarding. After every step both players' tables are compared
//! (zones, every card's public state, the players' values) and neither may have raised an alert.

use std::path::Path;

use fairdeck_e2e::{Player, Relay, deck, example, settle, zone_cards};
use serde_json::Value;

/// Two players at one table, each a `fairdeck --script` process.
struct Table {
    host: Player,
    guest: Player,
}

impl Table {
    /// Hosts and joins with these decks, and waits until both tables are ready and settled.
    fn open(relay: &Relay, host_deck: &Path, guest_deck: &Path) -> Table {
        let mut host = Player::spawn_with_deck("host", relay, host_deck, &["host"]);
        let code = host.expect_event("code")["code"].as_str().unwrap().to_string();
        let mut guest = Player::spawn_with_deck("guest", relay, guest_deck, &["join", &code]);
        host.expect_event("ready");
        guest.expect_event("ready");
        let mut table = Table { host, guest };
        table.settle();
        table
    }

    fn player(&mut self, seat: &str) -> &mut Player {
        match seat {
            "host" => &mut self.host,
            _ => &mut self.guest,
        }
    }

    /// `seat` types `line`; then both settle and are compared.
    fn step(&mut self, seat: &str, line: &str) -> Value {
        self.player(seat).send(line);
        self.settle()
    }

    /// Waits until nothing is in flight either way, then checks that both tables are equal and that no alert
    /// was raised. The host's table.
    fn settle(&mut self) -> Value {
        let host = settle(&mut self.host, &mut self.guest);
        for player in [&self.host, &self.guest] {
            let refused: Vec<&Value> = player.seen.iter().filter(|e| e["event"] == "error").collect();
            assert!(refused.is_empty(), "no refused command: {refused:#?}");
        }
        host
    }

    /// Quits both; each exits cleanly.
    fn close(mut self) {
        for player in [&mut self.host, &mut self.guest] {
            player.send("quit");
            assert!(player.wait_exit().success());
        }
    }
}

/// The card of `zone` (such as `host command`) named `name` in a table event, by its public state.
fn named(table: &Value, zone: &str, name: &str) -> u64 {
    zone_cards(table, zone)
        .into_iter()
        .find(|id| table["cards"][id.to_string()]["name"] == name)
        .unwrap_or_else(|| panic!("no {name} in {zone}: {table:#}"))
}

/// A card's public state in a table event.
fn card(table: &Value, id: u64) -> &Value {
    &table["cards"][id.to_string()]
}

/// The cards of the `browsing` event that opened, top first: (id, name).
fn browsed(player: &mut Player, purpose: &str) -> Vec<(u64, String)> {
    let open = player.expect(purpose, |e| e["event"] == "browsing" && e["purpose"] == purpose);
    open["cards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["card"].as_u64().unwrap(), c["name"].as_str().expect("a browsed card is known").to_string()))
        .collect()
}

#[test]
fn a_commander_game_from_the_command_zone_to_a_concession() {
    let relay = Relay::start();
    let krenko = example("krenko-commander.txt");
    let mut game = Table::open(&relay, &krenko, &krenko);

    let table = game.settle();
    for seat in ["host", "guest"] {
        assert_eq!(table["players"][seat]["life"], 40, "a Commander game starts at 40: {table:#}");
        assert_eq!(zone_cards(&table, &format!("{seat} library")).len(), 99, "the commander is not in the library");
        let commander = named(&table, &format!("{seat} command"), "Krenko, Mob Boss");
        assert!(!card(&table, commander)["face_down"].as_bool().unwrap());
    }

    game.step("host", "draw 7");
    game.step("guest", "draw 7");

    // A search: the host sees its library in order, takes a card, and `done` shuffles it with fresh locks.
    game.host.send("search");
    let library = browsed(&mut game.host, "search");
    assert_eq!(library.len(), 92);
    let (wanted, wanted_name) = library.iter().find(|(_, name)| name != "Mountain").cloned().unwrap();
    game.host.send(&format!("take \"{wanted_name}\" hand"));
    game.host.send("done");
    game.host.expect_event("browsing_closed");
    game.host.expect("shuffled", |e| e["event"] == "shuffled" && e["library"] == "host");
    let table = game.settle();
    assert!(zone_cards(&table, "host hand").contains(&wanted));
    assert_eq!(zone_cards(&table, "host library").len(), 91);
    let told = |e: &Value| e["event"] == "applied" && e["action"]["action"] == "peek" && e["by"] == "host";
    let peek = game.guest.seen.iter().find(|e| told(e)).expect("the guest is told of the search").clone();
    assert_eq!(peek["action"]["purpose"], "search");
    assert!(game.guest.seen.iter().any(|e| e["event"] == "shuffled" && e["library"] == "host"));

    // A scry 2: one card kept on top, one to the bottom.
    game.guest.send("scry 2");
    let scried = browsed(&mut game.guest, "scry");
    assert_eq!(scried.len(), 2);
    game.guest.send(&format!("bottom {}", scried[0].0));
    game.guest.send(&format!("top {}", scried[1].0));
    game.guest.send("done");
    game.guest.expect_event("browsing_closed");
    let table = game.settle();
    let library = zone_cards(&table, "guest library");
    assert_eq!((library[0], *library.last().unwrap()), (scried[1].0, scried[0].0));

    // A surveil 1 into the graveyard: the card is public there.
    game.host.send("surveil 1");
    let surveilled = browsed(&mut game.host, "surveil");
    game.host.send(&format!("grave {}", surveilled[0].0));
    game.host.send("done");
    let table = game.settle();
    let graveyard = named(&table, "host graveyard", &surveilled[0].1);
    assert_eq!(graveyard, surveilled[0].0);

    // Tokens, poison, life.
    game.step("host", "token Goblin 1/1");
    let table = game.step("host", "token \"Goblin Shaman\" 2/1 at 3,0");
    let goblin = named(&table, "host play", "Goblin");
    assert_eq!(card(&table, goblin)["power_toughness"], "1/1");
    let shaman = named(&table, "host play", "Goblin Shaman");
    assert_eq!(card(&table, shaman)["x"], 3);
    game.step("guest", "player-counter poison +3");
    let table = game.step("host", "life -3");
    assert_eq!(table["players"]["guest"]["poison"], 3);
    assert_eq!(table["players"]["host"]["life"], 37);

    // The guest plays with its library's top card revealed: the host learns each new top card.
    let table = game.step("guest", "always-reveal");
    let top = zone_cards(&table, "guest library")[0];
    assert!(game.host.learned_name(top).is_some(), "the host sees the guest's top card");
    let table = game.step("guest", "draw 1");
    let next = zone_cards(&table, "guest library")[0];
    assert!(game.host.learned_name(next).is_some(), "and the next one once the first is drawn");
    let table = game.step("guest", "always-reveal off");
    game.step("guest", "draw 1");
    let hidden = zone_cards(&table, "guest library")[1];
    assert!(game.host.learned_name(hidden).is_none(), "off: the next top card stays hidden");

    // Names are whole where a random hand could hold another Krenko (Krenko's Command, Krenko, Tin Street
    // Kingpin), which a prefix would rightly find ambiguous.
    // The guest casts its commander from the command zone; Krenko hits the host, who records the damage.
    let table = game.step("guest", "play \"Krenko, Mob Boss\" at 0,0");
    let guest_krenko = named(&table, "guest play", "Krenko, Mob Boss");
    let table = game.step("host", "commander-damage \"Krenko, Mob Boss\" +5");
    assert_eq!(table["players"]["host"][format!("commander:#{guest_krenko}")], 5, "{table:#}");
    let table = game.step("guest", "command \"Krenko, Mob Boss\"");
    assert_eq!(named(&table, "guest command", "Krenko, Mob Boss"), guest_krenko);

    // An equipment-like attachment, an arrow, tapping and untapping.
    let table = game.step("host", "play \"krenko, mob boss\" at 1,0");
    let host_krenko = named(&table, "host play", "Krenko, Mob Boss");
    let table = game.step("host", &format!("attach {shaman} to {host_krenko}"));
    assert_eq!(card(&table, shaman)["attached_to"], host_krenko);
    game.step("host", &format!("arrow {goblin} to opponent"));
    let table = game.step("host", &format!("tap {host_krenko}"));
    assert_eq!(card(&table, host_krenko)["tapped"], true);
    let table = game.step("host", "untap-all");
    assert_eq!(card(&table, host_krenko)["tapped"], false);
    let table = game.step("host", &format!("counter {host_krenko} +1/+1 2"));
    assert_eq!(card(&table, host_krenko)["counters"]["+1/+1"], 2);

    // The guest concedes: both see the game end, with the guest the loser.
    game.guest.send("concede");
    for player in [&mut game.host, &mut game.guest] {
        let over = player.expect_event("game_over");
        assert_eq!((over["loser"].as_str(), over["how"].as_str()), (Some("guest"), Some("conceded")));
    }
    game.settle();
    game.close();
}

/// The events `player` has seen since the last `new_game` (or since it started) named `event`.
fn seen_in_this_game<'a>(player: &'a Player, event: &str) -> Vec<&'a Value> {
    let start = player.seen.iter().rposition(|e| e["event"] == "new_game").unwrap_or(0);
    player.seen[start..].iter().filter(|e| e["event"] == event).collect()
}

/// The `deck_label` event `player` saw in this game for `seat`'s deck.
fn deck_label<'a>(player: &'a Player, seat: &str) -> &'a Value {
    let labels = seen_in_this_game(player, "deck_label");
    labels.into_iter().find(|e| e["seat"] == seat).unwrap_or_else(|| panic!("no deck label of {seat}"))
}

#[test]
fn a_constructed_match_of_two_games_with_sideboarding() {
    let dir = tempfile::tempdir().unwrap();

    let relay = Relay::start();
    let mut game = Table::open(&relay, &deck("burn.txt"), &deck("burn.txt"));
    for player in [&game.host, &game.guest] {
        let chooser = seen_in_this_game(player, "chooser");
        assert_eq!(chooser.len(), 1);
        assert_eq!(chooser[0]["by"], "coin", "the match's first game: a fair coin");
        assert_eq!(deck_label(player, "host")["changed"], false);
    }
    let table = game.settle();
    assert_eq!(table["players"]["host"]["life"], 20);

    // Game 1: a few turns' worth of plays, then the host concedes.
    game.step("host", "draw 7");
    game.step("guest", "draw 7");
    let table = game.step("host", "next-turn");
    assert_eq!(table["turn"], 1);
    let hand = zone_cards(&table, "host hand");
    game.step("host", &format!("play {} at 0,0", hand[0]));
    game.step("host", &format!("move {} graveyard", hand[1]));
    game.step("guest", "draw 1");
    game.step("guest", "life -4");
    game.host.send("concede");
    for player in [&mut game.host, &mut game.guest] {
        assert_eq!(player.expect_event("game_over")["loser"], "host");
    }
    game.settle();

    // Game 2: the guest sideboards at the table, two Skullcracks out for two Deflecting Palms (the same 75 cards);
    // the host plays a Shock it did not have in game 1, in place of a Lightning Bolt.
    let burn = std::fs::read_to_string(deck("burn.txt")).unwrap();
    let off_the_75 = dir.path().join("burn-shock.txt");
    std::fs::write(&off_the_75, burn.replace("4x Lightning Bolt", "3x Lightning Bolt\n1 Shock")).unwrap();
    game.guest.send("sideboard in 2 deflecting palm out 2 Skullcrack");
    let sideboarded = game.guest.expect_event("sideboarded");
    assert_eq!(sideboarded["cards_in"], serde_json::json!([[2, "Deflecting Palm"]]));
    assert_eq!((&sideboarded["main"], &sideboarded["sideboard"]), (&60.into(), &15.into()));
    game.guest.send("new-game");
    game.host.expect_event("new_game_requested");
    game.host.send(&format!("new-game {}", off_the_75.display()));
    for player in [&mut game.host, &mut game.guest] {
        assert_eq!(player.expect_event("new_game")["number"], 2);
        player.expect_event("ready");
    }
    let table = game.settle();
    for player in [&game.host, &game.guest] {
        assert_eq!(deck_label(player, "guest")["changed"], false, "a sideboarded deck is the same 75");
        assert_eq!(deck_label(player, "host")["changed"], true);
        let differs = seen_in_this_game(player, "deck_differs");
        assert_eq!(differs.len(), 1, "only the host's deck is off the 75: {differs:#?}");
        assert_eq!(differs[0]["seat"], "host");
        assert_eq!(differs[0]["added"], serde_json::json!([[1, "Shock"]]));
        assert_eq!(differs[0]["removed"], serde_json::json!([[1, "Lightning Bolt"]]));
        // Nobody ended game 1 with an audit: both players are told, and the host's account can never be checked.
        assert_eq!(differs[0]["check"], "unverifiable");
        let mut missing: Vec<(Option<&str>, Option<u64>)> = player
            .seen
            .iter()
            .filter(|e| e["event"] == "audit_missing")
            .map(|e| (e["seat"].as_str(), e["game"].as_u64()))
            .collect();
        missing.sort();
        assert_eq!(missing, [(Some("guest"), Some(1)), (Some("host"), Some(1))]);
        let chooser = seen_in_this_game(player, "chooser");
        assert_eq!(chooser.len(), 1);
        assert_eq!((&chooser[0]["seat"], &chooser[0]["by"]), (&"host".into(), &"previous-loser".into()));
    }
    assert!(zone_cards(&table, "host hand").is_empty() && zone_cards(&table, "host play").is_empty());
    assert_eq!(table["players"]["guest"]["life"], 20, "a fresh table");
    assert_eq!(zone_cards(&table, "guest library").len(), 60);
    assert_eq!(zone_cards(&table, "guest sideboard").len(), 15);

    game.step("host", "draw-first");
    game.step("guest", "draw 7");
    let table = game.step("host", "mulligan 6");
    assert_eq!(zone_cards(&table, "host hand").len(), 6);
    game.step("guest", "end");
    game.close();
}
