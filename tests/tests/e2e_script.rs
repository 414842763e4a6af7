//! End-to-end tests of fairdeck.
//! Two real `fairdeck --script` processes playing through an in-process relay over loopback
//! (the harness is this crate's library).

use fairdeck::session::WRONG_CODES_PER_CODE;
use fairdeck_e2e::{Player, Relay, public, run_once, zone_cards};

#[test]
fn mill_puts_the_library_top_cards_into_the_graveyard_for_both_to_see() {
    let relay = Relay::start();
    let (mut host, mut guest) = Player::ready_pair(&relay);
    host.wait_idle();
    let top = zone_cards(&host.table(), "host library")[..3].to_vec();
    host.send("mill 3");
    host.wait_idle();
    let table = host.table();
    // One by one from the top: the third card lies on top of the graveyard.
    assert_eq!(zone_cards(&table, "host graveyard"), [top[2], top[1], top[0]]);
    assert_eq!(zone_cards(&table, "host library").len(), 57);
    guest.wait_idle();
    for card in top {
        assert!(guest.learned_name(card).is_some(), "the guest saw {card} milled");
    }
    host.send("mill x");
    assert_eq!(host.expect_event("error")["kind"], "bad_command");
}

#[test]
fn two_players_play_a_scripted_game() {
    let relay = Relay::start();
    let mut host = Player::spawn("host", &relay, &["host"]);
    let deck = host.expect_event("deck");
    assert_eq!(deck["main"], 60);
    let code = host.expect_event("code")["code"].as_str().unwrap().to_string();
    let mut guest = Player::spawn("guest", &relay, &["join", &code]);

    for player in [&mut host, &mut guest] {
        player.expect_event("connected");
        player.expect_event("ready");
    }

    host.send("draw 7");
    host.wait_idle();
    let table = host.table();
    let hand = zone_cards(&table, "host hand");
    assert_eq!(hand.len(), 7);
    assert!(hand.iter().all(|&id| host.learned_name(id).is_some()), "the host knows its hand");
    assert!(hand.iter().all(|&id| guest.learned_name(id).is_none()), "the guest does not");

    guest.send("draw 7");
    guest.wait_idle();

    // A bad command is reported and the program goes on.
    host.send("dance a jig");
    let error = host.expect_event("error");
    assert_eq!(error["kind"], "bad_command");

    // The played card becomes public: both know its name.
    let played = hand[0];
    host.send(&format!("play {played} at 3,4"));
    let applied = host.expect(&format!("host applied move of {played}"), |v| {
        v["event"] == "applied" && v["action"]["card"] == played
    });
    let host_name = host.learned_name(played).unwrap();
    assert_eq!(applied["name"], host_name.as_str());
    let learned = guest.expect(&format!("guest learned {played}"), |v| v["event"] == "learned" && v["card"] == played);
    assert_eq!(learned["name"], host_name.as_str());

    // The guest shuffles its library (a guest proposal, then the shuffle under proof).
    guest.send("shuffle");
    host.expect("guest library shuffled", |v| v["event"] == "shuffled" && v["library"] == "guest");
    guest.wait_idle();

    // The guest reveals a card of its hand to both.
    let guest_hand = zone_cards(&guest.table(), "guest hand");
    let shown = guest_hand[0];
    let guest_name = guest.learned_name(shown).expect("the guest knows its hand");
    guest.send(&format!("reveal {shown}"));
    let learned = host.expect(&format!("host learned {shown}"), |v| v["event"] == "learned" && v["card"] == shown);
    assert_eq!(learned["name"], guest_name.as_str());

    // A fair roll: both see the same faces.
    host.send("roll 3d20");
    let host_roll = host.expect_event("rolled");
    let guest_roll = guest.expect_event("rolled");
    assert_eq!(host_roll, guest_roll);
    assert_eq!(host_roll["dice"], "3d20");
    assert_eq!(host_roll["faces"].as_array().unwrap().len(), 3);

    host.send("say good luck, have fun");
    let chat = guest.expect_event("chat");
    assert_eq!((chat["from"].as_str(), chat["text"].as_str()), (Some("host"), Some("good luck, have fun")));
    guest.send("say you too");
    let chat = host.expect_event("chat");
    assert_eq!((chat["from"].as_str(), chat["text"].as_str()), (Some("guest"), Some("you too")));

    host.send("life 17");
    host.wait_idle();
    guest.wait_idle();
    host.wait_idle();

    let host_table = host.table();
    let guest_table = guest.table();
    assert_eq!(public(&host_table), public(&guest_table));
    assert_eq!(host_table["players"]["host"]["life"], 17);
    assert_eq!(zone_cards(&host_table, "host play"), vec![played]);
    assert_eq!(zone_cards(&host_table, "host hand").len(), 6);
    assert_eq!(zone_cards(&host_table, "guest hand").len(), 7);
    assert_eq!(zone_cards(&host_table, "host library").len() + zone_cards(&host_table, "guest library").len(), 106);

    // The end: each reveals its deck key, and each audits the other's whole deck.
    host.send("end");
    guest.send("end");
    host.expect_event("audited");
    guest.expect_event("audited");

    host.send("quit");
    guest.send("quit");
    let host_final = host.expect_event("table");
    let guest_final = guest.expect_event("table");
    assert_eq!(public(&host_final), public(&guest_final));
    assert!(host.wait_exit().success(), "host exit");
    assert!(guest.wait_exit().success(), "guest exit");
}

/// Another code on the host's number: the same number, other words of the list.
fn wrong_code_for(code: &str, round: usize) -> String {
    let (nameplate, words) = code.split_once('-').unwrap();
    let first = ["violin", "ember", "tiger"][round % 3];
    let other = if words.starts_with(first) { "zebra" } else { first };
    format!("{nameplate}-{other}-{}", if words.ends_with("-apple") { "anchor" } else { "apple" })
}

#[test]
fn a_wrong_code_ends_the_guests_attempt_only_and_the_host_pairs_with_the_right_code() {
    let relay = Relay::start();
    let mut host = Player::spawn("host", &relay, &["host"]);
    let mut code = host.expect_event("code")["code"].as_str().unwrap().to_string();

    // Each wrong guest fails alone; the host's game stays open (perhaps under another number), until the
    // code has had its share of wrong guesses.
    for attempt in 1..=WRONG_CODES_PER_CODE {
        let mut guest = Player::spawn("wrong guest", &relay, &["join", &wrong_code_for(&code, attempt as usize)]);
        let error = guest.expect_event("error");
        assert_eq!(error["kind"], "wrong_code", "{error}");
        assert!(error["message"].as_str().unwrap().contains("join again"), "says what to do: {error}");
        assert_eq!(guest.wait_exit().code(), Some(2));
        let tried = host.expect_event("wrong_code_tried");
        assert_eq!(tried["attempts"], attempt);
        assert_eq!(tried["reopened"], attempt < WRONG_CODES_PER_CODE);
        if attempt < WRONG_CODES_PER_CODE {
            code = host.expect_event("code")["code"].as_str().unwrap().to_string();
        }
    }

    // Closed after the last wrong guess: the host asks for new words and gives them out.
    host.send("new-code");
    let fresh = host.expect_event("code")["code"].as_str().unwrap().to_string();
    assert_ne!(fresh.split_once('-').unwrap().1, code.split_once('-').unwrap().1, "new words");
    let mut guest = Player::spawn("guest", &relay, &["join", &fresh.to_uppercase().replace('-', " ")]);
    for player in [&mut host, &mut guest] {
        player.expect_event("connected");
        player.expect_event("ready");
    }
    assert!(host.seen.iter().all(|v| v["event"] != "error"), "the host saw no error: {:#?}", host.seen);
    host.send("draw 1");
    host.wait_idle();
    assert_eq!(zone_cards(&guest.table(), "host hand").len(), 1);
    host.send("quit");
    guest.send("quit");
    assert!(host.wait_exit().success());
    assert!(guest.wait_exit().success());
}

#[test]
fn an_unreachable_relay_and_an_unknown_code_fail_with_advice() {
    let relay = Relay::start();
    let mut guest = Player::spawn("guest", &relay, &["join", "999-apple-zebra"]);
    let error = guest.expect_event("error");
    assert_eq!(error["kind"], "unknown_code", "{error}");
    assert_eq!(guest.wait_exit().code(), Some(2));

    // A port nothing listens on: bind, note the port, free it.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let (code, last) = run_once(&["host"], &format!("ws://127.0.0.1:{port}/v1"));
    assert_eq!(code, Some(1));
    assert_eq!(last["kind"], "unreachable", "{last}");
    assert!(last["message"].as_str().unwrap().contains("--relay"), "{last}");
}

#[test]
fn a_relay_restart_is_resumed_and_play_goes_on() {
    let mut relay = Relay::start();
    let (mut host, mut guest) = Player::ready_pair(&relay);
    // Frames in flight as the relay stops (a draw): each player still reads the relay's
    // notice, which the relay keeps the socket open to deliver.
    guest.send("draw 1");
    relay.restart();
    for player in [&mut host, &mut guest] {
        player.expect_event("relay_restarting");
        player.expect_event("resumed");
    }

    // Frames sent while the other side was away are resent: both still agree.
    guest.send("draw 2");
    host.send("roll 1d100");
    let host_roll = host.expect_event("rolled");
    assert_eq!(guest.expect_event("rolled"), host_roll);
    guest.wait_idle();
    host.wait_idle();
    guest.wait_idle();
    assert_eq!(public(&host.table()), public(&guest.table()));
    assert_eq!(zone_cards(&host.table(), "guest hand").len(), 3);
    host.send("quit");
    guest.send("quit");
    assert!(host.wait_exit().success());
    assert!(guest.wait_exit().success());
}

#[test]
fn a_mistyped_word_fails_locally_with_suggestions_and_the_relay_is_never_contacted() {
    // A listener that would see any connection: the client must not even open one.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let url = format!("ws://{}/v1", listener.local_addr().unwrap());
    let (code, last) = run_once(&["join", "1 Violn Ember"], &url);
    assert_eq!(code, Some(2));
    assert_eq!(last["kind"], "bad_code", "{last}");
    let message = last["message"].as_str().unwrap();
    assert!(message.contains("did you mean violin?"), "{message}");
    assert!(message.contains("not contacted"), "{message}");
    assert_eq!(listener.accept().unwrap_err().kind(), std::io::ErrorKind::WouldBlock, "the relay saw a connection");
}

#[test]
fn a_guest_who_leaves_before_proving_the_code_does_not_end_the_hosts_game() {
    let relay = Relay::start();
    let mut host = Player::spawn("host", &relay, &["host"]);
    let code = host.expect_event("code")["code"].as_str().unwrap().to_string();
    // Its input is empty, so it quits at once: whether it leaves before or after the wrong code shows, the
    // host's game opens again, in the same room or a new one.
    run_once(&["join", &wrong_code_for(&code, 0)], &relay.url());
    let code = host.expect_event("code")["code"].as_str().unwrap().to_string();
    let mut guest = Player::spawn("guest", &relay, &["join", &code]);
    for player in [&mut host, &mut guest] {
        player.expect_event("ready");
    }
    host.send("quit");
    guest.send("quit");
    assert!(host.wait_exit().success());
    assert!(guest.wait_exit().success());
}

#[test]
fn cards_are_played_and_tapped_by_name_and_an_ambiguous_name_lists_the_candidates() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("names.txt");
    std::fs::write(&file, "2 Goblin Guide\n1 Lightning Bolt\n1 Lightning Helix\n").expect("write deck");
    let relay = Relay::start();
    let mut host = Player::spawn_with_deck("host", &relay, &file, &["host"]);
    let code = host.expect_event("code")["code"].as_str().unwrap().to_string();
    let mut guest = Player::spawn("guest", &relay, &["join", &code]);
    for player in [&mut host, &mut guest] {
        player.expect_event("connected");
        player.expect_event("ready");
    }

    // The whole library in hand: every name known, in the hand's order.
    host.send("draw 4");
    host.wait_idle();
    let hand = zone_cards(&host.table(), "host hand");
    let named = |host: &Player, name: &str| -> Vec<u64> {
        hand.iter().copied().filter(|&id| host.learned_name(id).as_deref() == Some(name)).collect()
    };
    let guides = named(&host, "Goblin Guide");
    let (bolt, helix) = (named(&host, "Lightning Bolt")[0], named(&host, "Lightning Helix")[0]);
    assert_eq!(guides.len(), 2);

    // Two copies in the hand are one choice: the first.
    host.send("play Goblin Guide at 1,0");
    host.expect("the first Guide played", |v| v["event"] == "applied" && v["action"]["card"] == guides[0]);
    host.send("tap gob");
    host.expect("the Guide tapped", |v| {
        v["event"] == "applied" && v["action"]["card"] == guides[0] && v["action"]["tapped"] == true
    });

    // "light" starts both Lightning cards: refused, with their ids.
    host.send("play light at 0,0");
    let error = host.expect_event("error");
    assert_eq!(error["kind"], "ambiguous_card", "{error}");
    assert_eq!(error["command"], "play light at 0,0");
    let message = error["message"].as_str().unwrap();
    assert!(message.contains(&format!("#{bolt} Lightning Bolt (hand)")), "{message}");
    assert!(message.contains(&format!("#{helix} Lightning Helix (hand)")), "{message}");
    host.send("untap nothing like it");
    assert_eq!(host.expect_event("error")["kind"], "unknown_card");

    host.wait_idle();
    guest.wait_idle();
    let host_table = host.table();
    assert_eq!(public(&host_table), public(&guest.table()));
    assert_eq!(zone_cards(&host_table, "host play"), vec![guides[0]]);
    assert_eq!(zone_cards(&host_table, "host hand").len(), 3);
    host.send("quit");
    guest.send("quit");
    assert!(host.wait_exit().success(), "host exit");
    assert!(guest.wait_exit().success(), "guest exit");
}
