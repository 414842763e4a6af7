//! No nonce is ever used twice, end to end: real `fairdeck` processes reach a real relay through a tap that
//! records every frame they send. A save resumed a second time while the first process runs (from a copy, since
//! the save itself is locked) and an older copy of a save resumed after a crash each seal in runs of their own:
//! no key and nonce ever seal two different frames, and the opponent stops on the fork with an error saying so.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use fairdeck::channel::RUN_ID_LEN;
use fairdeck_e2e::{Player, Relay, deck};
use futures_util::{SinkExt, StreamExt};
use tokio_tungstenite::tungstenite::Message;

/// A WebSocket tap between the players and the relay: forwards everything both ways and keeps every binary frame
/// a player sends.
struct Tap {
    url: String,
    frames: Arc<Mutex<Vec<Vec<u8>>>>,
    _runtime: tokio::runtime::Runtime,
}

impl Tap {
    fn start(relay: &str) -> Tap {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
        let url = format!("ws://{}/v1", listener.local_addr().unwrap());
        let frames = Arc::new(Mutex::new(Vec::new()));
        let (relay, kept) = (relay.to_string(), frames.clone());
        runtime.spawn(async move {
            while let Ok((tcp, _)) = listener.accept().await {
                tokio::spawn(forward(tcp, relay.clone(), kept.clone()));
            }
        });
        Tap { url, frames, _runtime: runtime }
    }

    /// Panics if one key and nonce (a run, a frame type and a number) sealed two different frames.
    fn assert_no_nonce_reused(&self) -> usize {
        let frames = self.frames.lock().unwrap();
        let mut used: HashMap<(u8, &[u8], u64), &[u8]> = HashMap::new();
        for frame in frames.iter().filter(|f| matches!(f.first(), Some(3 | 4))) {
            let run = &frame[1..1 + RUN_ID_LEN];
            let number = u64::from_be_bytes(frame[1 + RUN_ID_LEN..9 + RUN_ID_LEN].try_into().unwrap());
            let first = *used.entry((frame[0], run, number)).or_insert(frame);
            assert_eq!(first, frame.as_slice(), "frame type {} number {number} sealed twice, differently", frame[0]);
        }
        used.len()
    }
}

async fn forward(tcp: tokio::net::TcpStream, relay: String, frames: Arc<Mutex<Vec<Vec<u8>>>>) {
    let Ok(player) = tokio_tungstenite::accept_async(tcp).await else { return };
    let Ok((relay, _)) = tokio_tungstenite::connect_async(relay.as_str()).await else { return };
    let (mut to_player, mut from_player) = player.split();
    let (mut to_relay, mut from_relay) = relay.split();
    let up = async {
        while let Some(Ok(message)) = from_player.next().await {
            // The relay's address byte comes first; the channel's frame is the rest.
            if let Message::Binary(bytes) = &message
                && let Some(frame) = bytes.get(1..)
            {
                frames.lock().unwrap().push(frame.to_vec());
            }
            if to_relay.send(message).await.is_err() {
                break;
            }
        }
        let _ = to_relay.close().await;
    };
    let down = async {
        while let Some(Ok(message)) = from_relay.next().await {
            if to_player.send(message).await.is_err() {
                break;
            }
        }
        let _ = to_player.close().await;
    };
    tokio::join!(up, down);
}

/// Host and guest through the tap, both libraries shuffled, a few cards drawn.
fn game(tap: &Tap) -> (Player, Player) {
    let mut host = Player::spawn_at("host", &tap.url, &deck("burn.txt"), &["host"]);
    let code = host.expect_event("code")["code"].as_str().unwrap().to_string();
    let mut guest = Player::spawn_at("guest", &tap.url, &deck("burn.txt"), &["join", &code]);
    for player in [&mut host, &mut guest] {
        player.expect_event("ready");
        player.send("draw 3");
        player.wait_idle();
    }
    (host, guest)
}

/// A copy of `player`'s only save in a data folder of its own, as a second computer or a backup holds it.
fn copy_of_save(player: &Player) -> Arc<tempfile::TempDir> {
    let saves = player.saves();
    let [save] = saves.as_slice() else { panic!("one save: {saves:?}") };
    let copy = tempfile::tempdir().unwrap();
    let games = copy.path().join("fairdeck/games");
    std::fs::create_dir_all(&games).unwrap();
    std::fs::copy(save, games.join(save.file_name().unwrap())).unwrap();
    Arc::new(copy)
}

/// The host stops on the guest's fork with a channel error that says what happened.
fn host_stops_on_the_fork(host: &mut Player) {
    let error = host.expect("the channel error", |v| v["event"] == "error" && v["kind"] == "channel");
    let message = error["message"].as_str().unwrap();
    assert!(message.contains("saved game is being used twice, or an older copy of it was resumed"), "{message}");
    assert_eq!(host.wait_exit().code(), Some(1));
}

fn restored(name: &'static str, data: Arc<tempfile::TempDir>) -> Player {
    let mut player = Player::resume(name, data, &[]);
    player.expect_event("restored");
    player
}

#[test]
fn a_save_resumed_again_while_its_first_process_runs_never_reuses_a_nonce() {
    let relay = Relay::start();
    let tap = Tap::start(&relay.url());
    let (mut host, mut guest) = game(&tap);

    // The guest's program is killed and its save resumed twice: the second time from a copy, since the save
    // itself is locked by the first process.
    guest.kill();
    let copy = copy_of_save(&guest);
    let mut first = restored("first", guest.data());
    first.send("say from the first");
    first.wait_idle();
    host.expect("the first's chat", |v| v["event"] == "chat" && v["text"] == "from the first");
    let mut second = restored("second", copy);
    second.send("say from the second");

    host_stops_on_the_fork(&mut host);
    assert!(
        !host.seen.iter().any(|v| v["event"] == "chat" && v["text"] == "from the second"),
        "nothing of the fork is delivered"
    );
    assert!(tap.assert_no_nonce_reused() > 10);
    drop((first, second));
}

#[test]
fn an_older_copy_of_a_save_resumed_after_a_crash_never_reuses_a_nonce() {
    let relay = Relay::start();
    let tap = Tap::start(&relay.url());
    let (mut host, mut guest) = game(&tap);
    let backup = copy_of_save(&guest);

    // The game goes on past the backup, then the guest's computer dies and the backup is what is left.
    guest.send("draw 2");
    guest.send("say after the backup");
    guest.wait_idle();
    host.expect("the chat after the backup", |v| v["event"] == "chat" && v["text"] == "after the backup");
    guest.kill();
    let mut old = restored("old", backup);
    old.send("say from the backup");

    host_stops_on_the_fork(&mut host);
    assert!(tap.assert_no_nonce_reused() > 10);
    drop(old);
}

#[test]
fn the_tap_sees_a_game_and_checks_it() {
    // The check itself: an honest game through the tap passes it, with data and ack frames of both players.
    let relay = Relay::start();
    let tap = Tap::start(&relay.url());
    let (mut host, mut guest) = game(&tap);
    for player in [&mut host, &mut guest] {
        player.send("quit");
        assert!(player.wait_exit().success());
    }
    let frames = tap.frames.lock().unwrap().clone();
    assert!(frames.iter().any(|f| f[0] == 3) && frames.iter().any(|f| f[0] == 4), "data and ack frames");
    tap.assert_no_nonce_reused();
}
