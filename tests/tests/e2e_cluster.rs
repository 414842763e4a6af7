//! Relay instances sharing their rooms through Redis, as operators run them behind one domain: a real
//! `redis-server`, two `fairdeck-relay` processes pointed at it, and Caddy (TLS, the test's CA) taking the two in
//! turn, with real `fairdeck --script` players. Host and guest of a game land on different instances and play to
//! the end; an instance killed with SIGKILL, Redis killed and started again empty, and a rolling restart of both
//! instances lose no game, apply nothing twice, and raise no alert.

use std::path::PathBuf;

use fairdeck_e2e::cluster::{ADOPTIONS, Cluster, LINKS};
use fairdeck_e2e::tls::{Caddy, TestCa};
use fairdeck_e2e::{Player, card_total, deck, end_and_verify, settle, zone_cards};
use serde_json::Value;

/// Games of the first test, played `BATCH` at a time so that a slow machine keeps up.
const GAMES: usize = 20;
const BATCH: usize = 5;
/// Games under way while instances and Redis fail.
const UNDER_WAY: usize = 4;
/// Both instances, by index into [`Cluster::relays`].
const BOTH: [usize; 2] = [0, 1];

/// Redis, two instances and Caddy in front of them, with the CA the players trust.
struct Front {
    cluster: Cluster,
    ca: TestCa,
    caddy: Caddy,
}

impl Front {
    fn start() -> Front {
        let cluster = Cluster::start(2);
        let ca = TestCa::new();
        let caddy = cluster.caddy(&ca);
        Front { cluster, ca, caddy }
    }

    /// `fairdeck ARGS --ca CA --record dir/WHO.journal` through Caddy.
    fn player(&self, who: &'static str, args: &[&str], dir: &tempfile::TempDir) -> Player {
        let ca = self.ca.ca_file();
        let journal = dir.path().join(format!("{who}.journal"));
        let mut args = args.to_vec();
        args.extend(["--ca", ca.to_str().unwrap(), "--record", journal.to_str().unwrap()]);
        Player::spawn_at(who, &self.caddy.url(), &deck("burn.txt"), &args)
    }

    /// Forwarded connections counted by the instances of `running`.
    fn links(&self, running: &[usize]) -> f64 {
        self.cluster.metric_sum(running, LINKS)
    }

    /// Whatever the relays and Caddy logged, for failure messages.
    fn logs(&self) -> String {
        format!("{}\n--- caddy:\n{}", self.cluster.logs(), self.caddy.log())
    }
}

/// One game through Caddy, its two journals in a directory of its own.
struct Game {
    host: Player,
    guest: Player,
    dir: tempfile::TempDir,
    /// Cards each player has drawn so far, to count the hands against.
    drawn: [usize; 2],
}

impl Game {
    /// Opens a game and seats the guest: the two connections follow each other, so Caddy sends them to
    /// different instances, and the guest's is forwarded to the instance holding the room.
    fn start(front: &Front) -> Game {
        let before = front.links(&BOTH);
        let dir = tempfile::tempdir().unwrap();
        let mut host = front.player("host", &["host"], &dir);
        let code = host.expect_event("code")["code"].as_str().unwrap().to_string();
        let mut guest = front.player("guest", &["join", &code], &dir);
        for player in [&mut host, &mut guest] {
            player.expect_event("saved");
        }
        let after = front.links(&BOTH);
        assert!(after > before, "host and guest on different instances: links {before} -> {after}\n{}", front.logs());
        Game { host, guest, dir, drawn: [0, 0] }
    }

    /// Both libraries shuffled: the game is on.
    fn wait_ready(&mut self) {
        self.host.expect_event("ready");
        self.guest.expect_event("ready");
    }

    fn draw(&mut self, seat: usize, cards: usize) {
        let player = if seat == 0 { &mut self.host } else { &mut self.guest };
        player.send(&format!("draw {cards}"));
        self.drawn[seat] += cards;
    }

    /// A few moves of each kind: draws, a card moved to the graveyard, a library shuffled.
    fn play(&mut self) {
        self.draw(0, 2);
        self.draw(1, 2);
        self.guest.send("shuffle");
        let table = settle(&mut self.host, &mut self.guest);
        let card = zone_cards(&table, "host hand")[0];
        self.host.send(&format!("move {card} graveyard"));
        self.drawn[0] -= 1;
        self.draw(1, 1);
    }

    /// Waits until both tables are equal and checks that every card is where the moves put it, once.
    fn check(&mut self) -> Value {
        let table = settle(&mut self.host, &mut self.guest);
        assert_eq!(zone_cards(&table, "host hand").len(), self.drawn[0], "{table}");
        assert_eq!(zone_cards(&table, "guest hand").len(), self.drawn[1], "{table}");
        assert_eq!(card_total(&table), 120, "every card of both decks is somewhere, once: {table}");
        table
    }

    /// How many times either player lost its connection to the relay, or was told the relay restarts.
    fn interruptions(&self) -> usize {
        let events = self.host.seen.iter().chain(&self.guest.seen);
        events.filter(|event| event["event"] == "relay_lost" || event["event"] == "relay_restarting").count()
    }

    /// Ends the game: equal tables, no alert, both exit cleanly, both journals verify clean.
    fn finish(mut self) {
        self.check();
        let journals: [PathBuf; 2] = ["host", "guest"].map(|who| self.dir.path().join(format!("{who}.journal")));
        end_and_verify(self.host, self.guest, [&journals[0], &journals[1]]);
    }
}

/// Starts `count` games one after the other, then waits until all are on and each has played a first hand.
fn start_games(front: &Front, count: usize) -> Vec<Game> {
    let mut games: Vec<Game> = (0..count).map(|_| Game::start(front)).collect();
    for game in &mut games {
        game.wait_ready();
        game.draw(0, 7);
        game.draw(1, 7);
    }
    for game in &mut games {
        game.check();
    }
    games
}

#[test]
fn twenty_games_with_host_and_guest_on_different_instances_end_with_equal_tables() {
    let front = Front::start();
    front.cluster.wait_redis(&BOTH, true);
    for _ in 0..GAMES / BATCH {
        let mut games = start_games(&front, BATCH);
        for game in &mut games {
            game.play();
        }
        games.into_iter().for_each(Game::finish);
    }
    let links = front.links(&BOTH);
    assert!(links >= GAMES as f64, "a forwarded connection for each game: {links}\n{}", front.logs());
}

/// Checks that every game was cut off since `before` (its interruptions then, game by game): each has a
/// player on the instance that went away.
fn every_game_cut_off(games: &[Game], before: &[usize], front: &Front) {
    for (game, before) in games.iter().zip(before) {
        assert!(game.interruptions() > *before, "the game was cut off\n{}", front.logs());
    }
}

/// The instance of `running` that holds the most rooms.
fn busiest(front: &Front, running: &[usize]) -> usize {
    let rooms = |i: &usize| front.cluster.relays[*i].metric("fairdeck_relay_rooms_open");
    *running.iter().max_by(|a, b| rooms(a).total_cmp(&rooms(b))).unwrap()
}

#[test]
fn an_instance_killed_then_redis_restarted_mid_games_every_game_goes_on() {
    let mut front = Front::start();
    front.cluster.wait_redis(&BOTH, true);
    let mut games = start_games(&front, UNDER_WAY);

    // The instance holding the rooms dies: its players come back through Caddy to the other one, which takes the
    // rooms over once the dead one's lease expired; the other instance's players lose their forwarded links.
    let victim = busiest(&front, &BOTH);
    let survivor = 1 - victim;
    let before: Vec<usize> = games.iter().map(Game::interruptions).collect();
    front.cluster.relays[victim].kill();
    for game in &mut games {
        game.draw(0, 1);
        game.draw(1, 1);
    }
    for game in &mut games {
        game.check();
    }
    every_game_cut_off(&games, &before, &front);
    let adoptions = front.cluster.metric_sum(&[survivor], ADOPTIONS);
    assert!(adoptions >= 1.0, "the survivor took the rooms over: {adoptions}\n{}", front.logs());

    // Redis dies and comes back empty: the games go on, while it is down and after.
    front.cluster.redis.kill();
    for game in &mut games {
        game.play();
    }
    front.cluster.wait_redis(&[survivor], false);
    for game in &mut games {
        game.check();
    }
    front.cluster.redis.start_again();
    front.cluster.wait_redis(&[survivor], true);
    for game in &mut games {
        game.draw(1, 1);
        game.host.send("shuffle");
    }
    games.into_iter().for_each(Game::finish);
}

#[test]
fn a_rolling_restart_of_both_instances_loses_no_game() {
    let mut front = Front::start();
    front.cluster.wait_redis(&BOTH, true);
    let mut games = start_games(&front, UNDER_WAY);
    for instance in BOTH {
        // As a deploy does, one instance at a time: SIGTERM, the players go on through the other instance (every
        // game has a player on the stopped one, the first time by Caddy's turns, the second because the other was
        // the only one up), then the new process on the same port and data directory.
        let before: Vec<usize> = games.iter().map(Game::interruptions).collect();
        front.cluster.relays[instance].terminate();
        for game in &mut games {
            game.play();
        }
        for game in &mut games {
            game.check();
        }
        every_game_cut_off(&games, &before, &front);
        front.cluster.relays[instance].start_again();
        front.cluster.wait_redis(&BOTH, true);
        for game in &mut games {
            game.draw(0, 1);
        }
    }
    games.into_iter().for_each(Game::finish);
}

#[test]
fn a_game_opened_while_redis_is_down_is_joined_whichever_instance_the_guest_reaches_first() {
    let mut front = Front::start();
    front.cluster.wait_redis(&BOTH, true);
    front.cluster.wait_peers(&BOTH);
    front.cluster.redis.kill();
    front.cluster.wait_redis(&BOTH, false);
    // Caddy takes turns between the instances: the guest's first connection reaches the one without the room,
    // which cannot ask Redis where it is and asks the other instance, which holds it.
    let dir = tempfile::tempdir().unwrap();
    let mut host = front.player("host", &["host"], &dir);
    let code = host.expect_event("code")["code"].as_str().unwrap().to_string();
    let nameplate: u32 = code.split('-').next().unwrap().parse().unwrap();
    assert!(nameplate >= 100_000, "an unclaimed room's nameplate is drawn far above the others: {code}");
    let mut guest = front.player("guest", &["join", &code], &dir);
    for player in [&mut host, &mut guest] {
        player.expect_event("ready");
    }
    host.send("draw 2");
    guest.send("draw 1");
    let table = settle(&mut host, &mut guest);
    assert_eq!(zone_cards(&table, "host hand").len(), 2);
    assert!(host.seen.iter().chain(&guest.seen).all(|v| v["event"] != "alert"), "{}", front.logs());
    let linked = front.cluster.metric_sum(&BOTH, "fairdeck_relay_cluster_links_total");
    assert!(linked >= 1.0, "the guest was forwarded to the room's instance: {linked}\n{}", front.logs());
    for player in [&mut host, &mut guest] {
        player.send("quit");
    }
    assert!(host.wait_exit().success() && guest.wait_exit().success());
}
