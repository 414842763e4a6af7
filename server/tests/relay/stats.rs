//! One statistics row per room with the right result, on SQLite and on a PostgreSQL started for the test.

use std::collections::BTreeMap;
use std::time::Duration;

use crate::postgres::TestPostgres;
use fairdeck_relay::protocol::{GoneReason, ServerMessage, close};
use fairdeck_relay::{Limits, Relay, RelayBuilder, RoomRecord, RoomResult};
use serde_json::json;

use crate::common::{Client, Received, TestRelay, metric, metrics, test_limits};

fn limits() -> Limits {
    Limits { hold: Duration::from_millis(300), max_message_bytes: 8192, ..test_limits() }
}

async fn expect_gone(client: &mut Client, reason: GoneReason) {
    client.expect(|m| *m == ServerMessage::PeerGone { reason }).await;
    assert_eq!(client.recv().await, Received::Closed(Some(close::NORMAL)));
}

/// Plays one room for each result, stops the relay, and returns the rows by result.
async fn play_every_result(builder: RelayBuilder) -> BTreeMap<RoomResult, RoomRecord> {
    let relay = TestRelay::start_with(builder.limits(limits())).await;
    let url = relay.url();

    // happy: frames both ways, then a leave.
    let (mut creator, mut joiner, _, _, _) = Client::pair(&url).await;
    for size in [10, 200, 3000] {
        creator.send_data(&vec![1; size]).await;
        joiner.expect_data(0, &vec![1; size]).await;
    }
    joiner.send_data(&[2; 50]).await;
    creator.expect_data(1, &[2; 50]).await;
    creator.send(json!({"type": "leave"})).await;
    expect_gone(&mut joiner, GoneReason::Left).await;

    // lonely: the creator leaves before anyone joins.
    let (mut lonely, _, _) = Client::create(&url).await;
    lonely.close_normally().await;
    assert_eq!(lonely.recv().await, Received::Closed(Some(close::NORMAL)));

    // pruned: a dropped seat is never resumed.
    let (creator, mut joiner, _, _, _) = Client::pair(&url).await;
    drop(creator);
    expect_gone(&mut joiner, GoneReason::Timeout).await;

    // crowded: no longer happens (a paired room has released its nameplate, so a third player gets
    // `unknown_nameplate` and the room is not involved).

    // scary: a guest with a wrong code reports it and drops; the creator reopens and plays with the right guest.
    let (mut creator, mut wrong, nameplate, _, _) = Client::pair(&url).await;
    wrong.send(json!({"type": "report", "result": "scary"})).await;
    drop(wrong);
    creator.expect(|m| matches!(m, ServerMessage::PeerAway { .. })).await;
    creator.send(json!({"type": "reopen"})).await;
    creator.expect(|m| *m == ServerMessage::Reopened { nameplate: nameplate.clone() }).await;
    let (mut right, _) = Client::join(&url, &nameplate).await;
    creator.expect(|m| matches!(m, ServerMessage::Paired { .. })).await;
    right.send(json!({"type": "leave"})).await;
    expect_gone(&mut creator, GoneReason::Left).await;

    // errored: a client breaks the size limit and never comes back.
    let (mut creator, mut joiner, _, _, _) = Client::pair(&url).await;
    creator.send_binary(vec![0; 8193]).await;
    creator.expect_error_and_close("too_big", close::TOO_BIG).await;
    expect_gone(&mut joiner, GoneReason::Timeout).await;

    let store = relay.stop().await;
    let rows = store.recent(100).await.expect("read rows");
    assert_eq!(rows.len(), 5, "one row per room: {rows:#?}");
    rows.into_iter().map(|row| (row.result, row)).collect()
}

fn check_rows(rows: &BTreeMap<RoomResult, RoomRecord>) {
    let played: Vec<RoomResult> = RoomResult::ALL.into_iter().filter(|r| *r != RoomResult::Crowded).collect();
    assert_eq!(rows.keys().copied().collect::<Vec<_>>(), played);
    let happy = &rows[&RoomResult::Happy];
    assert_eq!((happy.frames_a_to_b, happy.bytes_a_to_b), (3, 3210));
    assert_eq!((happy.frames_b_to_a, happy.bytes_b_to_a), (1, 50));
    assert_eq!(happy.client_a.as_deref(), Some("test/creator"));
    assert_eq!(happy.client_b.as_deref(), Some("test/joiner"));
    assert!(happy.waiting_ms.is_some() && happy.total_ms >= happy.waiting_ms.unwrap());
    let lonely = &rows[&RoomResult::Lonely];
    assert_eq!((lonely.waiting_ms, lonely.client_b.as_deref()), (None, None));
    assert!(rows[&RoomResult::Pruned].total_ms >= 300, "held for the hold time");
    let now_ms = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64;
    assert!(rows.values().all(|row| (now_ms - 60_000..=now_ms).contains(&row.created_ms)));
}

#[tokio::test]
async fn rooms_are_recorded_with_their_result_in_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let rows = play_every_result(Relay::builder("127.0.0.1:0".parse().unwrap(), dir.path())).await;
    check_rows(&rows);
    assert!(dir.path().join("stats.sqlite").exists());

    // The same file, read by the command-line summary.
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_fairdeck-relay"))
        .arg("stats")
        .arg("--data-dir")
        .arg(dir.path())
        .output()
        .expect("run fairdeck-relay stats");
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{text}{}", String::from_utf8_lossy(&output.stderr));
    assert!(text.contains("Rooms ended in the last 24 h: 5"), "{text}");
    for result in RoomResult::ALL {
        let count = if result == RoomResult::Crowded { 0 } else { 1 };
        assert!(text.contains(&format!("  {:<8}        {count}", result.as_str())), "{result:?} in {text}");
    }
}

#[tokio::test]
async fn rooms_are_recorded_with_their_result_in_postgresql() {
    let postgres = tokio::task::spawn_blocking(TestPostgres::start).await.unwrap().expect("start PostgreSQL");
    let dir = tempfile::tempdir().unwrap();
    let builder = Relay::builder("127.0.0.1:0".parse().unwrap(), dir.path()).database_url(postgres.url());
    let rows = play_every_result(builder).await;
    check_rows(&rows);
    assert!(!dir.path().join("stats.sqlite").exists(), "nothing written to SQLite");

    // The summary query runs on PostgreSQL too.
    let store = fairdeck_relay::StatsStore::connect(&postgres.url()).await.unwrap();
    let now_ms = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64;
    let summary = store.summary(now_ms, 24).await.unwrap();
    assert_eq!(summary.rooms, 5);
    assert_eq!(summary.results["happy"], 1);
    assert_eq!(summary.hourly.iter().map(|(_, n)| n).sum::<i64>(), 5);
    assert_eq!(summary.durations.iter().map(|(_, n)| n).sum::<i64>(), 5);
    assert_eq!(summary.waiting.iter().map(|(_, n)| n).sum::<i64>(), 4, "the lonely room never paired");
    assert_eq!(summary.frames, 4, "only the happy room relayed frames");
    drop(postgres);
}

/// Polls the relay's metrics until `done` holds for them; fails after `limit`.
async fn wait_for_metrics(relay: &TestRelay, limit: Duration, what: &str, done: impl Fn(&str) -> bool) -> String {
    let deadline = std::time::Instant::now() + limit;
    loop {
        let text = metrics(relay.addr).await;
        if done(&text) {
            return text;
        }
        assert!(std::time::Instant::now() < deadline, "{what} did not happen within {limit:?}:\n{text}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn play_a_short_game(url: &str) {
    let (mut creator, mut joiner, _, _, _) = Client::pair(url).await;
    creator.send_data(&[7; 100]).await;
    joiner.expect_data(0, &[7; 100]).await;
    creator.send(json!({"type": "leave"})).await;
    expect_gone(&mut joiner, GoneReason::Left).await;
}

#[tokio::test]
async fn with_the_database_down_games_go_on_and_their_records_wait_until_it_is_back() {
    let postgres = tokio::task::spawn_blocking(TestPostgres::start).await.unwrap().expect("start PostgreSQL");
    let postgres = std::sync::Arc::new(postgres);
    let stopping = postgres.clone();
    tokio::task::spawn_blocking(move || stopping.stop()).await.unwrap().expect("stop PostgreSQL");

    // The relay starts although its database is down, and serves games.
    let dir = tempfile::tempdir().unwrap();
    let builder = Relay::builder("127.0.0.1:0".parse().unwrap(), dir.path()).database_url(postgres.url());
    let relay = TestRelay::start_with(builder.limits(limits())).await;
    play_a_short_game(&relay.url()).await;
    play_a_short_game(&relay.url()).await;
    let text = wait_for_metrics(&relay, crate::common::PATIENCE, "a failed write", |text| {
        metric(text, "fairdeck_relay_stats_write_errors_total") >= 1.0
    })
    .await;
    assert_eq!(metric(&text, "fairdeck_relay_stats_queued"), 2.0, "both records are kept");
    assert_eq!(metric(&text, "fairdeck_relay_stats_dropped_total"), 0.0);

    // Back up: the kept records are written, in order, without a restart of the relay.
    let starting = postgres.clone();
    tokio::task::spawn_blocking(move || starting.restart()).await.unwrap().expect("restart PostgreSQL");
    let text = wait_for_metrics(&relay, 6 * crate::common::PATIENCE, "writing the kept records", |text| {
        metric(text, "fairdeck_relay_stats_queued") == 0.0
    })
    .await;
    assert_eq!(metric(&text, "fairdeck_relay_stats_dropped_total"), 0.0);
    let store = relay.stop().await;
    let rows = store.recent(10).await.unwrap();
    assert_eq!(rows.len(), 2, "{rows:#?}");
    assert!(rows.iter().all(|row| row.result == RoomResult::Happy && row.bytes_a_to_b == 100));
}

#[tokio::test]
async fn handed_over_rooms_are_taken_back_before_and_without_the_database() {
    let dir = tempfile::tempdir().unwrap();
    let relay = TestRelay::start(dir.path(), limits()).await;
    let (_creator, _joiner, _, creator_token, joiner_token) = Client::pair(&relay.url()).await;
    relay.stop().await;

    // Nothing listens on port 1: the database is unreachable for the whole life of this relay.
    let builder = Relay::builder("127.0.0.1:0".parse().unwrap(), dir.path())
        .database_url("postgres://postgres@127.0.0.1:1/postgres")
        .limits(limits());
    let relay = TestRelay::start_with(builder).await;
    let mut seats = Vec::new();
    for token in [creator_token, joiner_token] {
        let mut client = Client::connect(&relay.url()).await;
        client.send(json!({"type": "resume", "token": token})).await;
        client.expect(|m| matches!(m, ServerMessage::Resumed { .. })).await;
        seats.push(client);
    }
    seats[0].expect(|m| matches!(m, ServerMessage::PeerBack { .. })).await;
    seats[1].send_data(b"still playing").await;
    seats[0].expect_data(1, b"still playing").await;
    relay.stop().await;
}
