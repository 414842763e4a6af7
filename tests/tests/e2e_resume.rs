//! A game is never lost: real `fairdeck` processes and a real `fairdeck-relay` process, killed with SIGKILL at
//! random moments and brought back (`fairdeck resume`, or the relay started again with none of its rooms).
//! The game goes on, both final tables are equal, and `fairdeck verify` finds both journals clean.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Stdio;

use fairdeck_e2e::{
    FORFEIT_GRACE_SECS, Player, RelayProcess, card_total, deck, fairdeck_command, public, verify_clean, zone_cards,
};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use serde_json::Value;

/// Starts a game between two players at `url`, each recording its journal into `dir`, and waits until both
/// libraries are shuffled.
fn start_game(url: &str, dir: &Path) -> (Player, Player) {
    let (mut host, mut guest) = start_setup(url, dir);
    for player in [&mut host, &mut guest] {
        player.expect_event("ready");
    }
    (host, guest)
}

/// Starts a game and waits until both players saved it: the set-up (locking and shuffling both libraries under
/// proof) has just begun.
fn start_setup(url: &str, dir: &Path) -> (Player, Player) {
    let record = |who: &str| dir.join(format!("{who}.journal")).display().to_string();
    let mut host = Player::spawn_at("host", url, &deck("burn.txt"), &["host", "--record", &record("host")]);
    let code = host.expect_event("code")["code"].as_str().unwrap().to_string();
    let mut guest = Player::spawn_at("guest", url, &deck("burn.txt"), &["join", &code, "--record", &record("guest")]);
    for player in [&mut host, &mut guest] {
        player.expect_event("saved");
    }
    (host, guest)
}

/// Brings a killed player back with `fairdeck resume`, recording its journal as before.
fn resume(name: &'static str, killed: &Player, dir: &Path) -> Player {
    let record = dir.join(format!("{name}.journal")).display().to_string();
    let mut player = Player::resume(name, killed.data(), &["--record", &record]);
    player.expect_event("restored");
    player
}

/// Ends the game (both audit the other's deck), quits both, and checks that the final tables are equal and
/// that both journals verify clean.
fn finish(mut host: Player, mut guest: Player, dir: &Path) {
    host.wait_idle();
    guest.wait_idle();
    host.wait_idle();
    let (host_table, guest_table) = (host.table(), guest.table());
    assert_eq!(public(&host_table), public(&guest_table), "both tables are equal");
    host.send("end");
    guest.send("end");
    host.expect_event("audited");
    guest.expect_event("audited");
    host.send("quit");
    guest.send("quit");
    assert!(host.wait_exit().success(), "host exit");
    assert!(guest.wait_exit().success(), "guest exit");
    for who in ["host", "guest"] {
        verify_clean(&dir.join(format!("{who}.journal")));
    }
}

#[test]
fn the_relay_killed_mid_game_and_started_again_without_its_rooms_the_game_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let mut relay = RelayProcess::start();
    let (mut host, mut guest) = start_game(&relay.url(), dir.path());
    host.send("draw 7");
    guest.send("draw 7");
    host.wait_idle();
    guest.wait_idle();

    relay.kill();
    host.expect_event("relay_lost");
    guest.expect_event("relay_lost");
    // The host moves while the relay is down: the draw applies on its table at once (reconnecting holds no
    // command up), and its messages wait in the channel for the opponent.
    host.send("draw 1");
    host.expect("the host's draw", |v| v["event"] == "applied" && v["by"] == "host" && v["action"]["action"] == "draw");
    relay.start_again();
    host.expect_event("rendezvous");
    guest.expect_event("rendezvous");

    guest.send("draw 1");
    guest.wait_idle();
    host.wait_idle();
    let table = host.table();
    assert_eq!(zone_cards(&table, "host hand").len(), 8);
    assert_eq!(zone_cards(&table, "guest hand").len(), 8);
    finish(host, guest, dir.path());
}

#[test]
fn both_players_quit_the_relay_restarts_and_both_resume_the_game_goes_on_recorded_as_it_began() {
    let dir = tempfile::tempdir().unwrap();
    let mut relay = RelayProcess::start();
    let (mut host, mut guest) = start_game(&relay.url(), dir.path());
    host.send("draw 7");
    host.wait_idle();
    guest.wait_idle();
    let before = host.table();

    guest.send("quit");
    assert!(guest.wait_exit().success());
    // The host learns the guest left, and waits for it at the game's rendezvous.
    host.expect("guest left", |v| v["event"] == "peer_gone");
    host.expect_event("rendezvous");
    host.send("quit");
    assert!(host.wait_exit().success());
    relay.kill();
    relay.start_again();

    // The guest resumes without --record: its game keeps the journal file it was started with, written anew at the
    // end (the one its quit wrote is gone).
    std::fs::remove_file(dir.path().join("guest.journal")).unwrap();
    let mut guest = Player::resume("guest", guest.data(), &[]);
    guest.expect_event("restored");
    let mut host = resume("host", &host, dir.path());
    guest.expect_event("rendezvous");
    host.expect_event("rendezvous");
    assert_eq!(public(&host.table()), public(&before), "the table stands where it stood");
    guest.send("draw 7");
    guest.wait_idle();
    host.wait_idle();
    finish(host, guest, dir.path());
}

#[test]
fn a_third_process_that_knows_the_code_cannot_take_a_seat() {
    let dir = tempfile::tempdir().unwrap();
    let relay = RelayProcess::start();
    let (mut host, mut guest) = start_game(&relay.url(), dir.path());
    let code = host.seen.iter().find(|v| v["event"] == "code").and_then(|v| v["code"].as_str()).unwrap().to_string();
    // The nameplate was released at pairing: the code leads nowhere now.
    let (status, last) = fairdeck_e2e::run_once(&["join", &code], &relay.url());
    assert_eq!(status, Some(2), "{last}");
    assert_eq!(last["kind"], "unknown_code");
    host.send("draw 1");
    host.wait_idle();
    guest.wait_idle();
    finish(host, guest, dir.path());
}

#[test]
fn an_opponent_who_never_returns_forfeits_after_the_grace_and_the_claim_is_kept_in_the_record() {
    let dir = tempfile::tempdir().unwrap();
    let relay = RelayProcess::start();
    let (mut host, mut guest) = start_game(&relay.url(), dir.path());
    host.send("draw 7");
    host.wait_idle();
    guest.wait_idle();
    guest.kill();
    host.expect_event("peer_away");
    // Too early: the guest may be coming back. The refusal says how long is left.
    host.send("forfeit");
    let refused = host.expect("the early forfeit refused", |v| v["event"] == "error" && v["command"] == "forfeit");
    let message = refused["message"].as_str().unwrap();
    assert!(message.contains("forfeit is possible in"), "{message}");
    let open = host.expect_event("forfeit_possible");
    assert!(open["seconds"].as_u64().unwrap() >= FORFEIT_GRACE_SECS, "{open}");
    host.send("forfeit");
    let claim = host.expect_event("forfeit_claimed");
    assert_eq!(claim["by"], "host");
    assert_eq!(claim["awaited"], "its return to the game");

    // The guest comes back after all: it learns that the game ended by the host's claim, and nothing goes on.
    let mut back = resume("guest", &guest, dir.path());
    let told = back.expect("the host's claim", |v| v["event"] == "forfeit_claimed");
    assert_eq!(told["by"], "host");
    let over = back.expect_event("game_over");
    assert_eq!((&over["loser"], &over["how"]), (&Value::from("guest"), &Value::from("forfeited")));
    back.send("quit");
    host.send("quit");
    assert!(back.wait_exit().success());
    assert!(host.wait_exit().success());
    for who in ["host", "guest"] {
        let output = fairdeck_command()
            .arg("verify")
            .arg(dir.path().join(format!("{who}.journal")))
            .output()
            .expect("run fairdeck verify");
        let text = String::from_utf8_lossy(&output.stdout);
        assert!(output.status.success(), "{who}: {text}");
        assert!(text.contains("forfeit"), "{who}: the record names the forfeit: {text}");
    }
    // Both saves are over: `fairdeck resume` has nothing to go on with.
    for player in [&host, &back] {
        assert_eq!(player.saves().len(), 1);
        let mut again = Player::resume("again", player.data(), &[]);
        again.expect("no game to resume", |v| v["event"] == "error" && v["kind"] == "save");
    }
}

#[test]
fn a_game_open_in_one_fairdeck_is_refused_to_another_until_that_one_is_killed() {
    let dir = tempfile::tempdir().unwrap();
    // The guest records over a file others may read: once written, the journal is its owner's only.
    let journal = dir.path().join("guest.journal");
    std::fs::write(&journal, b"").unwrap();
    std::fs::set_permissions(&journal, std::fs::Permissions::from_mode(0o644)).unwrap();
    let relay = RelayProcess::start();
    let (mut host, mut guest) = start_game(&relay.url(), dir.path());
    host.send("draw 1");
    host.wait_idle();
    guest.wait_idle();

    // The guest's process goes on (it could hang in another terminal): its game is refused to a second one.
    let save = guest.saves().pop().expect("the guest's game is saved");
    let bytes = std::fs::read(&save).unwrap();
    let modified = std::fs::metadata(&save).unwrap().modified().unwrap();
    let held = format!("this game is open in another fairdeck (pid {}); close it first", guest.pid());
    for file in [Some(&save), None] {
        let output = fairdeck_command()
            .args(["resume", "--script"])
            .args(file)
            .env("XDG_DATA_HOME", guest.data().path())
            .env_remove("FAIRDECK_RELAY")
            .stdin(Stdio::null())
            .output()
            .expect("run fairdeck resume");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains(&held), "{stderr}");
        let events: Vec<Value> =
            String::from_utf8_lossy(&output.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(events.len(), 1, "nothing but the error: {events:?}");
        assert_eq!(events[0]["kind"], "in_use");
    }
    assert_eq!(std::fs::read(&save).unwrap(), bytes, "the save is untouched");
    assert_eq!(std::fs::metadata(&save).unwrap().modified().unwrap(), modified, "the save is untouched");
    let output = fairdeck_command().arg("games").env("XDG_DATA_HOME", guest.data().path()).output().unwrap();
    let listing = String::from_utf8_lossy(&output.stdout);
    assert!(listing.contains(&format!("(open in fairdeck, pid {})", guest.pid())), "{listing}");
    // The refused process never reached the relay: the guest's seat is still its own.
    host.send("draw 1");
    host.wait_idle();
    guest.wait_idle();
    assert!(!guest.seen.iter().any(|v| v["event"] == "relay_lost"), "{:#?}", guest.seen);

    // Killed with -9, the first process leaves its pid file but takes its lock along: the game resumes.
    guest.kill();
    let guest = resume("guest", &guest, dir.path());
    finish(host, guest, dir.path());
    assert_eq!(std::fs::metadata(&journal).unwrap().permissions().mode() & 0o777, 0o600);
}

/// Where a player is killed: each kind of moment the issue names.
#[derive(Clone, Copy, Debug)]
enum Moment {
    /// During the first game's set-up, or just after `new-game`, while both libraries are locked and shuffled
    /// under proof.
    SetUp,
    /// Just after asking to shuffle the library.
    Shuffle,
    /// Just after asking to draw.
    Draw,
    /// With no exchange pending.
    BetweenMoves,
}

/// The seed of a random test: `FAIRDECK_TEST_SEED` replays a failed run (every run prints its seed).
fn seed() -> u64 {
    std::env::var("FAIRDECK_TEST_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(|| rand::rng().random())
}

/// Kills `victim` (0 host, 1 guest) at 20 random moments of one game and brings it back each time.
fn twenty_crashes(victim: usize, seed: u64) {
    let mut rng = StdRng::seed_from_u64(seed);
    let dir = tempfile::tempdir().unwrap();
    let relay = RelayProcess::start();
    let (host, guest) = start_setup(&relay.url(), dir.path());
    let mut players = [host, guest];
    let names = ["host", "guest"];
    // The first crash: somewhere in the first game's set-up.
    std::thread::sleep(std::time::Duration::from_millis(rng.random_range(0..300)));
    players[victim].kill();
    eprintln!("seed {seed}: {} killed during the first set-up", names[victim]);
    players[victim] = resume(names[victim], &players[victim], dir.path());
    let mut crashes = 1;
    let mut turn = 0;
    while crashes < 20 {
        turn += 1;
        let actor = rng.random_range(0..2);
        let moment = match rng.random_range(0..10) {
            0 => Moment::SetUp,
            1..=3 => Moment::Shuffle,
            4..=7 => Moment::Draw,
            _ => Moment::BetweenMoves,
        };
        let command = match moment {
            Moment::SetUp => "new-game",
            Moment::Shuffle => "shuffle",
            Moment::Draw | Moment::BetweenMoves => "draw 1",
        };
        if let Moment::SetUp = moment {
            // A new game of the match starts when both ask for it.
            players[0].send(command);
            players[1].send(command);
        } else {
            players[actor].send(command);
        }
        if let Moment::BetweenMoves = moment {
            players[0].wait_idle();
            players[1].wait_idle();
        } else if rng.random_bool(0.5) {
            // A moment later, somewhere inside the exchange.
            std::thread::sleep(std::time::Duration::from_millis(rng.random_range(0..40)));
        }
        let killed = &mut players[victim];
        killed.kill();
        eprintln!("seed {seed}: turn {turn}, {} killed at {moment:?}", names[victim]);
        let back = resume(names[victim], killed, dir.path());
        players[victim] = back;
        crashes += 1;
        // Both go on to the end of what is under way before the next move.
        players[1 - victim].wait_idle();
        players[victim].wait_idle();
        players[1 - victim].wait_idle();
    }
    let [host, guest] = players;
    let mut host = host;
    let table = host.table();
    let total = card_total(&table);
    assert_eq!(total, 120, "every card of both 60-card decks is somewhere, once: {table}");
    finish(host, guest, dir.path());
}

#[test]
fn the_guest_killed_at_twenty_random_moments_resumes_and_the_game_goes_on() {
    twenty_crashes(1, seed());
}

#[test]
fn the_host_killed_at_twenty_random_moments_resumes_and_the_game_goes_on() {
    twenty_crashes(0, seed());
}

#[test]
fn a_damaged_save_is_refused_by_name_and_left_as_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let relay = RelayProcess::start();
    let (mut host, mut guest) = start_game(&relay.url(), dir.path());
    host.send("draw 2");
    host.wait_idle();
    guest.kill();
    let save = guest.saves().pop().expect("the guest's game is saved");
    let bytes = std::fs::read(&save).unwrap();
    // Cut within the lines, not in the zeros of the room made ahead after them.
    let lines = bytes.iter().rposition(|&b| b != 0).unwrap() + 1;
    let bytes = &bytes[..lines];
    std::fs::write(&save, &bytes[..bytes.len() * 2 / 3]).unwrap();
    let output = fairdeck_command()
        .args(["resume", "--script"])
        .arg(&save)
        .env("XDG_DATA_HOME", guest.data().path())
        .output()
        .expect("run fairdeck resume");
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains(&save.display().to_string()) && stderr.contains("damaged"), "{stderr}");
    assert_eq!(std::fs::read(&save).unwrap(), &bytes[..bytes.len() * 2 / 3], "nothing is overwritten");
    // Without a file, the damaged save is not taken for the latest game either.
    let output = fairdeck_command()
        .args(["resume", "--script"])
        .env("XDG_DATA_HOME", guest.data().path())
        .output()
        .expect("run fairdeck resume");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("no unfinished game"), "{stderr}");
    let output = fairdeck_command().arg("games").env("XDG_DATA_HOME", guest.data().path()).output().unwrap();
    let listing = String::from_utf8_lossy(&output.stdout);
    assert!(listing.contains("unreadable") && listing.contains("damaged"), "{listing}");
    host.send("quit");
    assert!(host.wait_exit().success());
}
