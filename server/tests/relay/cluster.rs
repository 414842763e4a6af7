//! Instances sharing rooms through a real `redis-server` on loopback: players on different instances pair, resume
//! and meet; a stopped instance's rooms are taken over; a relay whose Redis is down serves alone until it is back.

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fairdeck_relay::Relay;
use fairdeck_relay::protocol::{PeerState, SeatKey, ServerMessage, rendezvous_room};
use serde_json::json;

use crate::common::{Client, PATIENCE, Received, TestRelay, http_get, metric, metrics, other, test_limits};

/// A throwaway `redis-server` on a free loopback port, without persistence.
struct TestRedis {
    port: u16,
    dir: tempfile::TempDir,
    child: Option<Child>,
}

impl TestRedis {
    fn start() -> TestRedis {
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let mut redis = TestRedis { port, dir: tempfile::tempdir().unwrap(), child: None };
        redis.start_again();
        redis
    }

    /// A URL for the port, whether or not Redis runs there.
    fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    fn start_again(&mut self) {
        let child = Command::new("redis-server")
            .args(["--port", &self.port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
            .arg("--dir")
            .arg(self.dir.path())
            .stdout(Stdio::null())
            .spawn()
            .expect("redis-server runs (scripts/ensure-test-tools.sh installs it)");
        self.child = Some(child);
        let deadline = Instant::now() + PATIENCE;
        while std::net::TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            assert!(Instant::now() < deadline, "redis-server did not listen in time");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for TestRedis {
    fn drop(&mut self) {
        self.kill();
    }
}

async fn instance(redis: &TestRedis, dir: &std::path::Path) -> TestRelay {
    let builder = Relay::builder("127.0.0.1:0".parse().unwrap(), dir).limits(test_limits()).redis_url(redis.url());
    let relay = TestRelay::start_with(builder).await;
    wait_for_metric(&relay, "fairdeck_relay_cluster_redis_up", 1.0).await;
    relay
}

async fn wait_for_metric(relay: &TestRelay, name: &str, value: f64) {
    let deadline = Instant::now() + PATIENCE;
    while metric(&metrics(relay.addr).await, name) != value {
        assert!(Instant::now() < deadline, "{name} did not reach {value}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Two instances of one cluster with these limits, each with its own data directory.
async fn instances_with(redis: &TestRedis, limits: fairdeck_relay::Limits) -> (Vec<TestRelay>, [tempfile::TempDir; 2]) {
    let dirs = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
    let mut instances = Vec::new();
    for dir in &dirs {
        let builder = Relay::builder("127.0.0.1:0".parse().unwrap(), dir.path()).limits(limits.clone());
        let relay = TestRelay::start_with(builder.redis_url(redis.url())).await;
        wait_for_metric(&relay, "fairdeck_relay_cluster_redis_up", 1.0).await;
        instances.push(relay);
    }
    (instances, dirs)
}

/// Two instances of one cluster, each with its own data directory.
async fn two_instances(redis: &TestRedis) -> (TestRelay, TestRelay, [tempfile::TempDir; 2]) {
    let dirs = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
    let a = instance(redis, dirs[0].path()).await;
    let b = instance(redis, dirs[1].path()).await;
    // Each instance has taken its lease (and read the cluster's secret) once Redis answered it.
    tokio::time::sleep(Duration::from_millis(100)).await;
    (a, b, dirs)
}

async fn exchange(a: &mut Client, b: &mut Client, tag: &str) {
    a.send_data(&format!("{tag} to b").into_bytes()).await;
    b.expect_data(0, format!("{tag} to b").as_bytes()).await;
    b.send_data(&format!("{tag} to a").into_bytes()).await;
    a.expect_data(1, format!("{tag} to a").as_bytes()).await;
}

#[tokio::test]
async fn players_on_different_instances_pair_resume_and_leave() {
    let redis = TestRedis::start();
    let (a, b, _dirs) = two_instances(&redis).await;
    let (mut host, nameplate, host_token) = Client::create(&a.url()).await;
    // Nameplates are unique across the cluster: the second instance hands out the next one.
    let (_other, other_nameplate, _) = Client::create(&b.url()).await;
    assert_ne!(nameplate, other_nameplate);
    let (mut guest, guest_token) = Client::join(&b.url(), &nameplate).await;
    host.expect(|m| matches!(m, ServerMessage::Paired { .. })).await;
    exchange(&mut host, &mut guest, "first").await;
    assert_eq!(metric(&metrics(b.addr).await, "fairdeck_relay_cluster_links_total"), 1.0);

    // The guest drops and comes back through the other instance with its token; the host sees it go and return.
    drop(guest);
    host.expect(|m| matches!(m, ServerMessage::PeerAway { .. })).await;
    let mut guest = Client::connect(&a.url()).await;
    guest.send(json!({"type": "resume", "token": guest_token})).await;
    guest
        .expect(
            |m| matches!(m, ServerMessage::Resumed { seat: 1, others, .. } if *others == other(1, PeerState::Present)),
        )
        .await;
    host.expect(|m| matches!(m, ServerMessage::PeerBack { .. })).await;
    // And the host moves to the other instance too.
    drop(host);
    let mut host = Client::connect(&b.url()).await;
    host.send(json!({"type": "resume", "token": host_token})).await;
    host.expect(|m| matches!(m, ServerMessage::Resumed { seat: 0, .. })).await;
    guest.expect(|m| matches!(m, ServerMessage::PeerBack { .. })).await;
    exchange(&mut host, &mut guest, "moved").await;

    // A leave through a forwarded connection ends the room at its instance.
    host.send(json!({"type": "leave"})).await;
    guest.expect(|m| matches!(m, ServerMessage::PeerGone { .. })).await;
    assert_eq!(guest.recv().await, Received::Closed(Some(1000)));
    let mut late = Client::connect(&b.url()).await;
    late.send(json!({"type": "resume", "token": host_token})).await;
    late.expect_error_and_close("bad_token", 4003).await;
}

#[tokio::test]
async fn two_players_meet_at_one_rendezvous_through_different_instances() {
    let redis = TestRedis::start();
    let (a, b, _dirs) = two_instances(&redis).await;
    let keys = [SeatKey::from_secret(&[7; 32]), SeatKey::from_secret(&[8; 32])];
    let room = rendezvous_room(&keys[0].public(), &keys[1].public());
    let mut players = Vec::new();
    for (seat, url) in [(0u8, a.url()), (1, b.url())] {
        let mut client = Client::connect(&url).await;
        let (key, peer) = (&keys[usize::from(seat)], &keys[usize::from(1 - seat)]);
        client.send(serde_json::to_value(key.rendezvous(seat, &peer.public(), &client.challenge, None)).unwrap()).await;
        client.expect(|m| matches!(m, ServerMessage::Met { .. })).await;
        players.push(client);
    }
    let [mut first, mut second] = <[Client; 2]>::try_from(players).ok().unwrap();
    first.expect(|m| matches!(m, ServerMessage::Paired { .. })).await;
    second.expect(|m| matches!(m, ServerMessage::Paired { .. })).await;
    exchange(&mut first, &mut second, "met").await;
    assert_ne!(room, [0; 32]);
}

#[tokio::test]
async fn a_stopped_instance_hands_its_rooms_to_the_cluster() {
    let redis = TestRedis::start();
    let (a, b, _dirs) = two_instances(&redis).await;
    let (host, guest, _, host_token, guest_token) = Client::pair(&a.url()).await;
    a.stop().await;
    drop((host, guest));
    let mut host = Client::connect(&b.url()).await;
    host.send(json!({"type": "resume", "token": host_token})).await;
    host.expect(
        |m| matches!(m, ServerMessage::Resumed { seat: 0, others, .. } if *others == other(0, PeerState::Away)),
    )
    .await;
    let mut guest = Client::connect(&b.url()).await;
    guest.send(json!({"type": "resume", "token": guest_token})).await;
    guest
        .expect(
            |m| matches!(m, ServerMessage::Resumed { seat: 1, others, .. } if *others == other(1, PeerState::Present)),
        )
        .await;
    host.expect(|m| matches!(m, ServerMessage::PeerBack { .. })).await;
    exchange(&mut host, &mut guest, "taken over").await;
    assert_eq!(metric(&metrics(b.addr).await, "fairdeck_relay_cluster_adoptions_total"), 1.0);
}

#[tokio::test]
async fn a_relay_whose_redis_is_down_serves_alone_and_joins_when_it_is_back() {
    let mut redis = TestRedis::start();
    redis.kill();
    let dirs = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
    let builder = |dir: &std::path::Path| {
        Relay::builder("127.0.0.1:0".parse().unwrap(), dir).limits(test_limits()).redis_url(redis.url())
    };
    let a = TestRelay::start_with(builder(dirs[0].path())).await;
    let b = TestRelay::start_with(builder(dirs[1].path())).await;
    assert_eq!(metric(&metrics(a.addr).await, "fairdeck_relay_cluster_redis_up"), 0.0);
    // Alone, each instance pairs its own players.
    let (mut host, mut guest, ..) = Client::pair(&a.url()).await;
    exchange(&mut host, &mut guest, "alone").await;

    redis.start_again();
    wait_for_metric(&a, "fairdeck_relay_cluster_redis_up", 1.0).await;
    wait_for_metric(&b, "fairdeck_relay_cluster_redis_up", 1.0).await;
    // Once back, the instances publish their rooms and players pair across them again.
    let deadline = Instant::now() + PATIENCE;
    let (mut host, nameplate, _) = loop {
        let created = Client::create(&a.url()).await;
        let mut probe = Client::connect(&b.url()).await;
        probe.send(json!({"type": "join", "nameplate": created.1})).await;
        match probe.recv().await {
            Received::Control(ServerMessage::Joined { .. }) => {
                drop(probe);
                break created;
            }
            _ => assert!(Instant::now() < deadline, "the instances did not join the cluster in time"),
        }
    };
    host.expect(|m| matches!(m, ServerMessage::Paired { .. })).await;
    assert!(!nameplate.is_empty());
}

#[tokio::test]
async fn the_instances_endpoint_is_closed_to_anyone_without_the_secret() {
    let redis = TestRedis::start();
    let (a, _b, _dirs) = two_instances(&redis).await;
    let (status, _) = http_get(a.addr, "/cluster/v1", &[("x-fairdeck-cluster-secret", "guess")]).await;
    assert_eq!(status, 404);
    let dir = tempfile::tempdir().unwrap();
    let alone = TestRelay::start(dir.path(), test_limits()).await;
    let (status, _) = http_get(alone.addr, "/cluster/v1", &[]).await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn a_link_naming_a_room_is_taken_only_by_the_instance_holding_it() {
    let redis = TestRedis::start();
    let (a, _b, _dirs) = two_instances(&redis).await;
    let (_host, nameplate, _) = Client::create(&a.url()).await;
    let mut connection = redis::Client::open(redis.url()).unwrap().get_multiplexed_async_connection().await.unwrap();
    let secret: String = redis::cmd("GET").arg("fairdeck:secret").query_async(&mut connection).await.unwrap();
    let instances: Vec<String> =
        redis::cmd("SMEMBERS").arg("fairdeck:instances").query_async(&mut connection).await.unwrap();
    let mut owner = None;
    for instance in instances {
        let key = format!("fairdeck:instance:{instance}");
        let url: String = redis::cmd("GET").arg(key).query_async(&mut connection).await.unwrap();
        if url == format!("ws://{}", a.addr) {
            owner = Some(instance);
        }
    }
    let owner = owner.expect("the instance is in the cluster's set");
    let challenge = "00".repeat(32);
    let link = |held: String| {
        let (secret, owner, challenge) = (secret.clone(), owner.clone(), challenge.clone());
        async move {
            let headers = [
                ("x-fairdeck-cluster-secret", secret.as_str()),
                ("x-fairdeck-client", "127.0.0.1"),
                ("x-fairdeck-challenge", challenge.as_str()),
                ("x-fairdeck-instance", owner.as_str()),
                ("x-fairdeck-held", held.as_str()),
            ];
            http_get(a.addr, "/cluster/v1", &headers).await.0
        }
    };
    let other = nameplate.parse::<u32>().unwrap() + 1;
    assert_eq!(link(format!("nameplate:{other}")).await, 421, "a room it does not hold");
    assert_eq!(link(format!("token:{}", "ab".repeat(32))).await, 421, "a token it does not hold");
    // Held: the request goes on to the upgrade, which a plain GET lacks.
    assert_eq!(link(format!("nameplate:{nameplate}")).await, 404);
    for malformed in ["nameplate:+1", "nameplate:", "token:zz", "room:1", ""] {
        assert_eq!(link(malformed.to_string()).await, 404, "{malformed}");
    }
}

#[tokio::test]
async fn operators_see_every_instances_rooms_and_whether_the_cluster_is_ready() {
    let mut redis = TestRedis::start();
    let dirs = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
    let mut instances = Vec::new();
    for dir in &dirs {
        let builder = Relay::builder("127.0.0.1:0".parse().unwrap(), dir.path())
            .limits(test_limits())
            .redis_url(redis.url())
            .operator_token("op");
        let relay = TestRelay::start_with(builder).await;
        wait_for_metric(&relay, "fairdeck_relay_cluster_redis_up", 1.0).await;
        instances.push(relay);
    }
    let (a, b) = (&instances[0], &instances[1]);
    let (_host, _guest, ..) = Client::pair(&a.url()).await;
    let (_waiting, ..) = Client::create(&b.url()).await;
    let deadline = Instant::now() + PATIENCE;
    let rooms = loop {
        let (status, body) = http_get(b.addr, "/api/rooms", &[("authorization", "Bearer op")]).await;
        assert_eq!(status, 200);
        let rooms: Vec<serde_json::Value> = serde_json::from_str(&body).unwrap();
        if rooms.len() == 2 && rooms.iter().any(|room| room["seats_connected"] == 2) {
            break rooms;
        }
        assert!(Instant::now() < deadline, "the cluster's rooms were not listed in time: {body}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let instances_named: std::collections::BTreeSet<&str> =
        rooms.iter().map(|room| room["instance"].as_str().expect("an instance")).collect();
    assert_eq!(instances_named.len(), 2, "each room names its own instance: {rooms:?}");
    assert!(rooms.iter().all(|room| room.get("nameplate").is_none() && room.get("token").is_none()));

    let (status, body) = http_get(a.addr, "/readyz", &[]).await;
    assert_eq!((status, body.as_str()), (200, r#"{"ready":true,"cluster":{"instances":2,"unreachable":0}}"#));
    redis.kill();
    let (status, body) = http_get(a.addr, "/readyz", &[]).await;
    assert_eq!((status, body.as_str()), (503, r#"{"ready":false,"reason":"redis_down"}"#));
}

/// Resumes `token` at `url` as a client does: told `closing`, it comes back shortly; never refused.
async fn resume_until_seated(url: &str, token: &str) -> Client {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let mut client = Client::connect(url).await;
        client.send(json!({"type": "resume", "token": token})).await;
        match client.recv().await {
            Received::Control(ServerMessage::Resumed { .. }) => return client,
            Received::Control(ServerMessage::Closing { .. }) => {
                assert!(Instant::now() < deadline, "the seat was not resumed in time");
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            other => panic!("a resume got {other:?}"),
        }
    }
}

#[tokio::test]
async fn games_go_on_across_a_redis_restart_that_lost_everything() {
    let mut redis = TestRedis::start();
    let (a, b, _dirs) = two_instances(&redis).await;
    let (mut host, nameplate, host_token) = Client::create(&a.url()).await;
    let (mut guest, _) = Client::join(&b.url(), &nameplate).await;
    host.expect(|m| matches!(m, ServerMessage::Paired { .. })).await;
    redis.kill();
    // The link between the instances does not go through Redis.
    exchange(&mut host, &mut guest, "redis down").await;
    redis.start_again();
    exchange(&mut host, &mut guest, "redis back").await;
    // Straight after the restart the host's token is unknown to Redis until instance a publishes its room again:
    // a host coming back through instance b is asked to come back, then finds its seat.
    drop(host);
    guest.expect(|m| matches!(m, ServerMessage::PeerAway { .. })).await;
    let mut host = resume_until_seated(&b.url(), &host_token).await;
    guest.expect(|m| matches!(m, ServerMessage::PeerBack { .. })).await;
    exchange(&mut host, &mut guest, "after").await;
}

#[tokio::test]
async fn a_player_over_its_rate_limit_claims_no_nameplate() {
    let redis = TestRedis::start();
    let (instances, _dirs) =
        instances_with(&redis, fairdeck_relay::Limits { rooms_per_minute: 1, ..test_limits() }).await;
    let (_first, nameplate, _) = Client::create(&instances[0].url()).await;
    assert_eq!(nameplate, "1");
    let mut refused = Client::connect(&instances[0].url()).await;
    refused.send(json!({"type": "create"})).await;
    refused.expect_error_and_close("rate_limited", 4004).await;
    // From another address, through the other instance: the next nameplate is 2, none was spent on the refusal.
    let other = "127.0.0.2".parse().unwrap();
    let mut second = crate::common::Client::connect_from(other, &instances[1].url()).await;
    second.send(json!({"type": "create"})).await;
    let created = second.expect(|m| matches!(m, ServerMessage::Created { .. })).await;
    assert!(matches!(created, ServerMessage::Created { nameplate, .. } if nameplate == "2"));
}

#[tokio::test]
async fn two_relays_cannot_share_a_data_directory() {
    let dir = tempfile::tempdir().unwrap();
    let first = TestRelay::start(dir.path(), test_limits()).await;
    let second = Relay::builder("127.0.0.1:0".parse().unwrap(), dir.path()).limits(test_limits()).build().await;
    let error = second.expect_err("the second relay is refused");
    assert!(format!("{error:#}").contains("cannot take the data directory"), "{error:#}");
    let chain = std::error::Error::source(&error).map(ToString::to_string).unwrap_or_default();
    assert!(chain.contains("another relay uses the data directory"), "{chain}");
    first.stop().await;
    // Once the first has stopped, the directory is free again.
    TestRelay::start(dir.path(), test_limits()).await.stop().await;
}

/// A `fairdeck-relay` process of the cluster on `port`, killed when dropped.
struct InstanceProcess(Child);

impl InstanceProcess {
    fn start(redis: &TestRedis, port: u16, dir: &std::path::Path) -> InstanceProcess {
        let child = Command::new(env!("CARGO_BIN_EXE_fairdeck-relay"))
            .args(["--listen", &format!("127.0.0.1:{port}"), "--redis-url", &redis.url(), "--data-dir"])
            .arg(dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start fairdeck-relay");
        let deadline = Instant::now() + PATIENCE;
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "the relay did not listen in time");
            std::thread::sleep(Duration::from_millis(20));
        }
        InstanceProcess(child)
    }

    fn kill(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Drop for InstanceProcess {
    fn drop(&mut self) {
        self.kill();
    }
}

#[tokio::test]
async fn a_killed_instance_restarted_at_its_address_gives_its_rooms_up_at_once() {
    let redis = TestRedis::start();
    let dirs = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
    let b = instance(&redis, dirs[1].path()).await;
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let mut a = InstanceProcess::start(&redis, port, dirs[0].path());
    let a_url = format!("ws://127.0.0.1:{port}/v1");
    // The room opens on a (once it published its lease and secret, b forwards to it).
    let deadline = Instant::now() + PATIENCE;
    let (mut host, mut guest, _, host_token, guest_token) = loop {
        let (host, nameplate, host_token) = Client::create(&a_url).await;
        let mut guest = Client::connect(&b.url()).await;
        guest.send(json!({"type": "join", "nameplate": nameplate})).await;
        if let Received::Control(ServerMessage::Joined { token, .. }) = guest.recv().await {
            break (host, guest, nameplate, host_token, token);
        }
        assert!(Instant::now() < deadline, "instance a did not join the cluster in time");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    host.expect(|m| matches!(m, ServerMessage::Paired { .. })).await;
    guest.expect(|m| matches!(m, ServerMessage::Paired { .. })).await;
    exchange(&mut host, &mut guest, "before").await;

    // Killed, and started again at once on its address: the new process is another instance, and its
    // predecessor's lease still runs. A player coming back through b finds its seat at b, not `bad_token`.
    a.kill();
    drop((host, guest));
    let _a_again = InstanceProcess::start(&redis, port, dirs[0].path());
    let mut host = resume_until_seated(&b.url(), &host_token).await;
    let mut guest = resume_until_seated(&a_url, &guest_token).await;
    host.expect(|m| matches!(m, ServerMessage::PeerBack { .. })).await;
    exchange(&mut host, &mut guest, "after").await;
    assert_eq!(metric(&metrics(b.addr).await, "fairdeck_relay_cluster_adoptions_total"), 1.0);
}

#[tokio::test]
async fn spectators_reach_a_room_held_by_another_instance() {
    let redis = TestRedis::start();
    let (a, b, _dirs) = two_instances(&redis).await;
    let (_host, _guest, _, host_token, _) = Client::pair(&a.url()).await;
    // The player's host_watch and its spectators come through the other instance, which forwards them.
    let mut watch_host = Client::connect(&b.url()).await;
    watch_host.send(json!({"type": "host_watch", "token": host_token})).await;
    let nameplate = match watch_host.recv().await {
        Received::Control(ServerMessage::WatchOpened { nameplate, .. }) => nameplate,
        other => panic!("expected watch_opened, got {other:?}"),
    };
    // Claimed in the cluster: a room opened at the other instance takes another number.
    let (_waiting, waiting_nameplate, _) = Client::create(&b.url()).await;
    assert_ne!(nameplate, waiting_nameplate);
    let mut spectators = Vec::new();
    for (url, watcher) in [(b.url(), 0), (a.url(), 1)] {
        let mut spectator = Client::connect(&url).await;
        spectator.send(json!({"type": "watch", "nameplate": nameplate})).await;
        assert_eq!(spectator.recv().await, Received::Control(ServerMessage::Watching { watcher }));
        assert_eq!(watch_host.recv().await, Received::Control(ServerMessage::WatcherJoined { watcher }));
        watch_host.send_binary(vec![watcher, 42]).await;
        spectator.expect_binary(&[42]).await;
        spectator.send_binary(b"seen".to_vec()).await;
        watch_host.expect_binary(&[watcher, b's', b'e', b'e', b'n']).await;
        spectators.push(spectator);
    }
    assert_eq!(metric(&metrics(b.addr).await, "fairdeck_relay_cluster_links_total"), 2.0);
}

/// How many times Redis ran `command` so far, the commands of scripts included (`INFO commandstats`).
async fn redis_calls(redis: &TestRedis, command: &str) -> u64 {
    let mut connection = redis::Client::open(redis.url()).unwrap().get_multiplexed_async_connection().await.unwrap();
    let stats: String = redis::cmd("INFO").arg("commandstats").query_async(&mut connection).await.unwrap();
    let prefix = format!("cmdstat_{command}:calls=");
    let line = stats.lines().find_map(|line| line.strip_prefix(prefix.as_str())).unwrap_or("0,");
    line.split(',').next().and_then(|calls| calls.parse().ok()).unwrap_or(0)
}

/// Waits until the cluster has the nameplates `given_back` to hand out again.
async fn wait_given_back(redis: &TestRedis, given_back: &[&str]) {
    let mut connection = redis::Client::open(redis.url()).unwrap().get_multiplexed_async_connection().await.unwrap();
    let deadline = Instant::now() + PATIENCE;
    loop {
        let holes: Vec<String> = redis::cmd("ZRANGE")
            .arg("fairdeck:nameplate-holes")
            .arg(0)
            .arg(-1)
            .query_async(&mut connection)
            .await
            .unwrap();
        if given_back.iter().all(|plate| holes.iter().any(|hole| hole == plate)) {
            return;
        }
        assert!(Instant::now() < deadline, "nameplates {given_back:?} not given back; holes: {holes:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn a_nameplate_claim_costs_a_few_reads_however_many_rooms_and_given_back_nameplates_come_first() {
    let redis = TestRedis::start();
    let limits = fairdeck_relay::Limits {
        rooms_per_minute: 10_000,
        joins_per_minute: 10_000,
        connections_per_address: 1_000,
        ..test_limits()
    };
    let (instances, _dirs) = instances_with(&redis, limits).await;
    let url = |i: usize| instances[i % 2].url();
    const ROOMS: usize = 300;
    let mut hosts = Vec::new();
    for i in 0..ROOMS {
        let (host, nameplate, _) = Client::create(&url(i)).await;
        hosts.push((host, nameplate));
    }
    let mut nameplates: Vec<u32> = hosts.iter().map(|(_, nameplate)| nameplate.parse().unwrap()).collect();
    nameplates.sort_unstable();
    assert_eq!(nameplates, (1..=ROOMS as u32).collect::<Vec<_>>(), "each instance hands out the next nameplate");

    // One more room: its claim reads a few keys, not the 300 taken ones (which looking for the smallest free
    // number from 1 read, and which made Redis too slow to answer with thousands of rooms).
    let before = redis_calls(&redis, "get").await;
    let (_next, nameplate, _) = Client::create(&url(1)).await;
    let reads = redis_calls(&redis, "get").await - before;
    assert_eq!(nameplate, (ROOMS + 1).to_string());
    assert!(reads < 30, "{reads} keys read by Redis to claim a nameplate and publish its room");

    // Nameplates given back (a guest joined room 7; the host of room 3 left) are handed out again, smallest first.
    let (mut host, _) = hosts.remove(6);
    let (_guest, _) = Client::join(&url(0), "7").await;
    host.expect(|m| matches!(m, ServerMessage::Paired { .. })).await;
    let (mut leaving, _) = hosts.remove(2);
    leaving.send(json!({"type": "leave"})).await;
    wait_given_back(&redis, &["3", "7"]).await;
    for expected in ["3", "7", &(ROOMS + 2).to_string()] {
        let (client, nameplate, _) = Client::create(&url(0)).await;
        assert_eq!(nameplate, expected);
        hosts.push((client, nameplate));
    }
}

/// Sends `seat`'s rendezvous of the game of `keys` at `url`; the relay's first answer.
async fn rendezvous_at(url: &str, keys: &[SeatKey; 2], seat: u8) -> (Client, Received) {
    let mut client = Client::connect(url).await;
    let (key, peer) = (&keys[usize::from(seat)], &keys[usize::from(1 - seat)]);
    client.send(serde_json::to_value(key.rendezvous(seat, &peer.public(), &client.challenge, None)).unwrap()).await;
    let answer = client.recv().await;
    (client, answer)
}

/// Waits until each instance has read the other from Redis: whom it asks for a room while Redis is down.
async fn wait_for_peers(instances: [&TestRelay; 2]) {
    for instance in instances {
        wait_for_metric(instance, "fairdeck_relay_cluster_peers", 1.0).await;
    }
}

#[tokio::test]
async fn while_redis_is_down_players_not_held_here_reach_their_room_or_come_back_but_never_meet_apart() {
    let mut redis = TestRedis::start();
    let (a, b, _dirs) = two_instances(&redis).await;
    let (host, mut guest, _, host_token, _) = Client::pair(&a.url()).await;
    wait_for_peers([&a, &b]).await;
    redis.kill();
    drop(host);
    // The host, cut off, comes back through the instance that does not hold its room: that instance cannot ask
    // Redis where it is, so it asks the instances Redis last named, and the one holding the room takes the host
    // (not told that its token is unknown, which would send it to a rendezvous of its own).
    guest.expect(|m| matches!(m, ServerMessage::PeerAway { .. })).await;
    let mut host = Client::connect(&b.url()).await;
    host.send(json!({"type": "resume", "token": host_token})).await;
    host.expect(
        |m| matches!(m, ServerMessage::Resumed { seat: 0, others, .. } if *others == other(0, PeerState::Present)),
    )
    .await;
    guest.expect(|m| matches!(m, ServerMessage::PeerBack { .. })).await;
    exchange(&mut host, &mut guest, "forwarded to its instance").await;
    assert_eq!(metric(&metrics(b.addr).await, "fairdeck_relay_cluster_links_total"), 1.0);
    // A token no instance answers for may be a room of an instance Redis did not name: come back shortly.
    let mut unknown = Client::connect(&b.url()).await;
    unknown.send(json!({"type": "resume", "token": "ab".repeat(host_token.len() / 2)})).await;
    assert!(matches!(unknown.recv().await, Received::Control(ServerMessage::Closing { .. })), "told to come back");

    // Two players meeting at their rendezvous through different instances: neither opens a room alone, where
    // each would wait for the other for ever.
    let keys = [SeatKey::from_secret(&[3; 32]), SeatKey::from_secret(&[4; 32])];
    for (seat, url) in [(0, a.url()), (1, b.url())] {
        let (_, answer) = rendezvous_at(&url, &keys, seat).await;
        assert!(matches!(answer, Received::Control(ServerMessage::Closing { .. })), "seat {seat}: {answer:?}");
    }
    redis.start_again();
    let deadline = Instant::now() + PATIENCE;
    let mut players = Vec::new();
    for (seat, url) in [(0, a.url()), (1, b.url())] {
        loop {
            match rendezvous_at(&url, &keys, seat).await {
                (client, Received::Control(ServerMessage::Met { .. })) => break players.push(client),
                (_, Received::Control(ServerMessage::Closing { .. })) => {
                    assert!(Instant::now() < deadline, "seat {seat} did not meet in time");
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
                (_, other) => panic!("seat {seat}'s rendezvous got {other:?}"),
            }
        }
    }
    let [mut first, mut second] = <[Client; 2]>::try_from(players).ok().unwrap();
    for player in [&mut first, &mut second] {
        player.expect(|m| matches!(m, ServerMessage::Paired { .. })).await;
    }
    exchange(&mut first, &mut second, "met once redis is back").await;
}

#[tokio::test]
async fn while_redis_is_down_instances_that_do_not_answer_do_not_keep_a_player_waiting() {
    let mut redis = TestRedis::start();
    let (_a, b, _dirs) = two_instances(&redis).await;
    // Six instances Redis names whose address takes connections and never answers (a machine gone silent).
    let silent = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("ws://{}", silent.local_addr().unwrap());
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((stream, _)) = silent.accept().await {
            held.push(stream);
        }
    });
    let mut connection = redis::Client::open(redis.url()).unwrap().get_multiplexed_async_connection().await.unwrap();
    for i in 0..6 {
        let instance = format!("silent{i}");
        let _: () =
            redis::cmd("SADD").arg("fairdeck:instances").arg(&instance).query_async(&mut connection).await.unwrap();
        let key = format!("fairdeck:instance:{instance}");
        let _: () =
            redis::cmd("SET").arg(key).arg(&url).arg("PX").arg(600_000).query_async(&mut connection).await.unwrap();
    }
    wait_for_metric(&b, "fairdeck_relay_cluster_peers", 7.0).await;
    redis.kill();
    // Each would take its link's patience (2 s) to fail, 12 s in all: the player, which waits 10 s for an answer
    // (as `recv` here does), is told to come back before then.
    let mut lost = Client::connect(&b.url()).await;
    lost.send(json!({"type": "resume", "token": "cd".repeat(16)})).await;
    assert!(matches!(lost.recv().await, Received::Control(ServerMessage::Closing { .. })), "told to come back");
}

#[tokio::test]
async fn while_redis_is_down_a_new_room_takes_a_far_nameplate_and_a_join_elsewhere_is_forwarded_to_it() {
    let mut redis = TestRedis::start();
    let (a, b, _dirs) = two_instances(&redis).await;
    let (_early, claimed, _) = Client::create(&a.url()).await;
    wait_for_peers([&a, &b]).await;
    redis.kill();
    // Each instance's smallest free nameplate is likely another's too: an unclaimed room takes one far above.
    let (mut host, nameplate, host_token) = Client::create(&a.url()).await;
    let number: u32 = nameplate.parse().unwrap();
    assert!((100_000..1_000_000).contains(&number), "{nameplate} (claimed before: {claimed})");
    // So does the room's watch nameplate.
    let mut watch_side = Client::connect(&a.url()).await;
    watch_side.send(json!({"type": "host_watch", "token": host_token})).await;
    let watch = match watch_side.recv().await {
        Received::Control(ServerMessage::WatchOpened { nameplate: watch, .. }) => {
            let number: u32 = watch.parse().unwrap();
            assert!((100_000..1_000_000).contains(&number) && watch != nameplate, "{watch}");
            watch
        }
        other => panic!("host_watch got {other:?}"),
    };
    // A spectator reaching the other instance is taken to the room too.
    let mut spectator = Client::connect(&b.url()).await;
    spectator.send(json!({"type": "watch", "nameplate": watch})).await;
    spectator.expect(|m| matches!(m, ServerMessage::Watching { watcher: 0 })).await;
    watch_side.expect(|m| matches!(m, ServerMessage::WatcherJoined { watcher: 0 })).await;
    // The other instance cannot ask Redis where that room is: it asks the instance Redis last named, which holds
    // it, and the guest joins there.
    let (mut guest, _) = Client::join(&b.url(), &nameplate).await;
    host.expect(|m| matches!(m, ServerMessage::Paired { .. })).await;
    exchange(&mut host, &mut guest, "joined through the other instance").await;
    // A nameplate no instance answers for: come back shortly, not that no game has it.
    let mut lost = Client::connect(&b.url()).await;
    lost.send(json!({"type": "join", "nameplate": "999999"})).await;
    assert!(matches!(lost.recv().await, Received::Control(ServerMessage::Closing { .. })), "told to come back");
}
