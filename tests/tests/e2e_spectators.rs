//! Issue 28's acceptance, end to end: a game between two scripted players over a real relay, watched by two
//! scripted spectators (one with each player's watch code). Every card name a spectator is shown is one both players
//! know; no card name that stayed hidden ever appears in a spectator's output; the spectators' public tables equal the
//! players' after every settled step; with a delay of one turn nothing of a turn reaches a spectator before the next
//! turn starts; and a player whose program forwards an envelope changed raises an alert at a real `fairdeck watch`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use fairdeck::code::Code;
use fairdeck::session::spectators::WatchHub;
use fairdeck_e2e::{Player, Relay, public, settle, zone_cards};
use fairdeck_shared::Seat;
use fairdeck_shared::crypto::{Ristretto255, Suite};
use fairdeck_shared::engine::Intent;
use fairdeck_shared::pair::{Pair, numbered_deck};
use fairdeck_shared::wire::{Action, Envelope};
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

/// A deck of `cards` cards, each with a name of its own, so that a name seen means one card.
fn unique_deck(dir: &Path, seat: &str, cards: usize) -> PathBuf {
    let path = dir.join(format!("{seat}.txt"));
    let lines: String = (1..=cards).map(|i| format!("1 Secret {seat} Card {i:02}\n")).collect();
    std::fs::write(&path, lines).unwrap();
    path
}

fn deck_names(seat: &str, cards: usize) -> Vec<String> {
    (1..=cards).map(|i| format!("Secret {seat} Card {i:02}")).collect()
}

/// Host and guest at a table set up over `relay`, each with a deck of 40 cards named once (the folder holding them).
fn game(relay: &Relay) -> (Player, Player, tempfile::TempDir) {
    let decks = tempfile::tempdir().unwrap();
    let mut host = Player::spawn_with_deck("host", relay, &unique_deck(decks.path(), "Host", 40), &["host"]);
    let code = host.expect_event("code")["code"].as_str().unwrap().to_string();
    let mut guest = Player::spawn_with_deck("guest", relay, &unique_deck(decks.path(), "Guest", 40), &["join", &code]);
    for player in [&mut host, &mut guest] {
        player.expect_event("ready");
    }
    (host, guest, decks)
}

/// A player's watch code, from `watch-code`.
fn watch_code(player: &mut Player) -> String {
    player.send("watch-code");
    player.expect_event("watch_code")["code"].as_str().unwrap().to_string()
}

/// The card ids both players have learned, with their names.
fn known_to_both(host: &Player, guest: &Player) -> BTreeSet<(u64, String)> {
    let learned = |player: &Player| -> BTreeSet<(u64, String)> {
        player
            .seen
            .iter()
            .filter(|v| v["event"] == "learned")
            .map(|v| (v["card"].as_u64().unwrap(), v["name"].as_str().unwrap().to_string()))
            .collect()
    };
    learned(host).intersection(&learned(guest)).cloned().collect()
}

/// Every (card, name) a spectator's output names so far.
fn named(spectator: &Player) -> BTreeSet<(u64, String)> {
    let mut named = BTreeSet::new();
    for table in spectator.seen.iter().filter(|v| v["event"] == "table") {
        for (id, card) in table["cards"].as_object().into_iter().flatten() {
            if let Some(name) = card["name"].as_str() {
                named.insert((id.parse().unwrap(), name.to_string()));
            }
        }
    }
    named
}

/// Waits until the spectator shows the players' public table, and checks what it names.
fn caught_up(spectator: &mut Player, table: &Value, host: &Player, guest: &Player) {
    spectator.expect("the players' public table", |v| v["event"] == "table" && public(v) == public(table));
    let both = known_to_both(host, guest);
    for card in named(spectator) {
        assert!(both.contains(&card), "the spectator was shown {card:?}, which not both players know");
    }
    assert!(spectator.seen.iter().all(|v| v["event"] != "alert"), "an honest game raises no alert at the spectator");
}

#[test]
fn two_spectators_see_only_what_both_players_know_and_the_players_public_table() {
    let relay = Relay::start();
    let (mut host, mut guest, _decks) = game(&relay);
    let url = relay.url();
    let mut spectators = [
        Player::spawn_bringing("host's spectator", &url, &["watch", &watch_code(&mut host)]),
        Player::spawn_bringing("guest's spectator", &url, &["watch", &watch_code(&mut guest)]),
    ];
    for spectator in &mut spectators {
        spectator.expect_event("watching");
    }
    host.expect("both counted", |v| v["event"] == "watchers" && v["host"] == 1 && v["guest"] == 1);

    host.send("draw 7");
    guest.send("draw 7");
    let table = settle(&mut host, &mut guest);
    for spectator in &mut spectators {
        caught_up(spectator, &table, &host, &guest);
    }
    let host_hand = zone_cards(&table, "host hand");
    let guest_hand = zone_cards(&table, "guest hand");

    // Played face up: public. Revealed to the opponent alone: known to both players, so a spectator may name it.
    // Looked at by its owner alone (the library's top): never shown.
    host.send(&format!("play {} at 0,0", host_hand[0]));
    guest.send(&format!("reveal {} to opponent", guest_hand[0]));
    guest.send(&format!("play {} at 1,0", guest_hand[1]));
    host.send("peek 2");
    let table = settle(&mut host, &mut guest);
    for spectator in &mut spectators {
        caught_up(spectator, &table, &host, &guest);
    }
    for spectator in &spectators {
        let named = named(spectator);
        for card in [host_hand[0], guest_hand[1]] {
            assert!(named.iter().any(|(id, _)| *id == card), "{card} was played face up: {named:?}");
        }
    }

    // A turn passes and the hands are shuffled back: what was known to one player stays unknown to spectators.
    host.send("next-turn");
    guest.send("draw 1");
    guest.send("shuffle");
    let table = settle(&mut host, &mut guest);
    for spectator in &mut spectators {
        caught_up(spectator, &table, &host, &guest);
    }

    // No name both players never knew ever reached a spectator's output.
    let both: BTreeSet<String> = known_to_both(&host, &guest).into_iter().map(|(_, name)| name).collect();
    let hidden: Vec<String> =
        deck_names("Host", 40).into_iter().chain(deck_names("Guest", 40)).filter(|n| !both.contains(n)).collect();
    assert!(hidden.len() > 60, "most cards stayed hidden: {}", hidden.len());
    for spectator in &spectators {
        let output: String = spectator.seen.iter().map(|v| v.to_string()).collect();
        for name in &hidden {
            assert!(!output.contains(name.as_str()), "{name} reached a spectator");
        }
    }
}

#[test]
fn with_a_delay_of_one_turn_nothing_of_a_turn_reaches_a_spectator_before_the_next_turn_starts() {
    let relay = Relay::start();
    let (mut host, mut guest, _decks) = game(&relay);
    guest.send("watch-delay 1");
    host.expect("the guest's delay", |v| v["event"] == "watchers" && v["delay"] == 1);
    let mut spectator = Player::spawn_bringing("spectator", &relay.url(), &["watch", &watch_code(&mut host)]);
    spectator.expect_event("watching");
    host.send("draw 7");
    guest.send("draw 7");
    settle(&mut host, &mut guest);
    host.send("play-first");
    host.wait_idle();
    let before = settle(&mut host, &mut guest);
    let turn = before["turn"].as_u64().unwrap();
    let hand = zone_cards(&before, "host hand");
    host.send(&format!("play {} at 0,0", hand[0]));
    let played = settle(&mut host, &mut guest);
    assert_eq!(played["turn"].as_u64().unwrap(), turn, "still the same turn");

    // The spectator has everything before this turn began, and nothing of it: its table is never the one with the
    // card played, however long it is asked.
    for _ in 0..5 {
        spectator.send("table");
        let shown = spectator.expect_event("table");
        assert_ne!(public(&shown), public(&played), "turn {turn} reached the spectator before the next turn");
        assert!(shown["cards"][hand[0].to_string()].is_null(), "the card played in turn {turn} is not on its table");
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    host.send("next-turn");
    settle(&mut host, &mut guest);
    spectator.expect("the card of the turn before", |v| {
        v["event"] == "table" && v["cards"][hand[0].to_string()]["name"].is_string()
    });
}

type Link = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// The next control message of a relay connection.
async fn control(link: &mut Link) -> Value {
    loop {
        match link.next().await.expect("the relay answers").expect("a message") {
            Message::Text(text) => return serde_json::from_str(&text).unwrap(),
            Message::Binary(_) | Message::Ping(_) | Message::Pong(_) | Message::Frame(_) => {}
            Message::Close(close) => panic!("closed: {close:?}"),
        }
    }
}

/// A cheating player's watch side, over the real relay: it opens a room and its watch seats, sends the watch code
/// on `code`, and feeds every spectator `record` through the player's own hub, as `fairdeck` does.
async fn cheating_feed(url: String, record: Vec<(Seat, Envelope)>, code: mpsc::Sender<String>) {
    let (mut seat, _) = tokio_tungstenite::connect_async(url.as_str()).await.unwrap();
    control(&mut seat).await;
    seat.send(Message::Text(json!({"type": "create"}).to_string().into())).await.unwrap();
    let token = control(&mut seat).await["token"].as_str().unwrap().to_string();
    let (mut link, _) = tokio_tungstenite::connect_async(url.as_str()).await.unwrap();
    let welcome = control(&mut link).await;
    link.send(Message::Text(json!({"type": "host_watch", "token": token}).to_string().into())).await.unwrap();
    let opened = control(&mut link).await;
    let watch_code = Code::random(opened["nameplate"].as_str().unwrap());
    let mut hub = WatchHub::new(Seat::HOST, Suite::Ristretto255, [8; 32]);
    hub.opened(watch_code.clone(), welcome["max_message_bytes"].as_u64().unwrap() as usize);
    hub.follow(&record, 0, true);
    code.send(watch_code.to_string()).unwrap();
    loop {
        while let Some(frame) = hub.poll_frame() {
            link.send(Message::Binary(frame.into())).await.unwrap();
        }
        match link.next().await {
            Some(Ok(Message::Binary(frame))) => hub.handle_frame(&frame),
            Some(Ok(Message::Text(text))) => {
                let message: Value = serde_json::from_str(&text).unwrap();
                if message["type"] == "watcher_joined" {
                    hub.joined(message["watcher"].as_u64().unwrap() as u8);
                }
            }
            Some(Ok(_)) => {}
            _ => return,
        }
    }
}

#[test]
fn a_forwarded_envelope_its_player_changed_raises_an_alert_at_the_spectator() {
    // A game two engines played, as the host's engine recorded it; the host's program forwards one of the
    // guest's envelopes with its body changed.
    let mut pair = Pair::<Ristretto255>::new(numbered_deck("Host", 10, 1), numbered_deck("Guest", 10, 1), 7);
    pair.drive();
    pair.intent(Seat::GUEST, Intent::Act(Action::Draw { count: 2 })).unwrap();
    pair.drive();
    let mut record = pair.host.record().to_vec();
    let (_, changed) = record.iter_mut().rev().find(|(from, _)| *from == Seat::GUEST).unwrap();
    changed.body[0] ^= 1;
    let changed_seq = changed.seq;

    let relay = Relay::start();
    let (code_tx, code_rx) = mpsc::channel();
    let url = relay.url();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.spawn(cheating_feed(url.clone(), record, code_tx));
    let code = code_rx.recv_timeout(Duration::from_secs(30)).expect("the cheater's watch code");
    let mut spectator = Player::spawn_bringing("spectator", &url, &["watch", &code]);
    spectator.expect_event("watching");
    let alert = spectator.expect_event("alert");
    // Its signature no longer holds: evidence against nobody, since anyone on the way could have changed it.
    assert_eq!(alert["kind"], "sequence", "{alert}");
    assert_eq!(alert["misbehaviour"], true);
    let steps: Vec<&Value> = spectator.seen.iter().filter(|v| v["event"] == "step").collect();
    let last = steps.last().expect("steps before the alert");
    assert_eq!((last["from"].as_str(), last["seq"].as_u64()), (Some("guest"), Some(changed_seq)), "{last}");
    // The honest envelopes before it were taken: the spectator's table is the game's as far as it went.
    assert!(steps.len() > 10);
}
