//! The statistics database as operators meet it: a wrong URL stops the relay at start, a database that is down
//! shows in `/readyz` and on `/stats`, a write error does not leave a broken connection behind, and records
//! waiting at shutdown go to the next process.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use fairdeck_relay::protocol::{GoneReason, ServerMessage};
use fairdeck_relay::{Relay, RelayBuilder, RoomResult, StatsStore};
use serde_json::{Value, json};

use crate::common::{Client, PATIENCE, TestRelay, http_get, metric, metrics, test_limits, wait_for_exit};

/// Nothing listens on port 1: a PostgreSQL that is down for the whole test.
const DOWN: &str = "postgres://postgres@127.0.0.1:1/postgres";

const TOKEN: &str = "operator-secret";

fn builder(dir: &Path) -> RelayBuilder {
    Relay::builder("127.0.0.1:0".parse().unwrap(), dir).limits(test_limits()).operator_token(TOKEN)
}

async fn play_a_short_game(url: &str) {
    let (mut creator, mut joiner, _, _, _) = Client::pair(url).await;
    creator.send_data(&[7; 100]).await;
    joiner.expect_data(0, &[7; 100]).await;
    creator.send(json!({"type": "leave"})).await;
    joiner.expect(|m| *m == ServerMessage::PeerGone { reason: GoneReason::Left }).await;
}

/// Polls the relay's metrics until `done` holds for them.
async fn wait_for_metrics(relay: &TestRelay, what: &str, done: impl Fn(&str) -> bool) -> String {
    let deadline = Instant::now() + 3 * PATIENCE;
    loop {
        let text = metrics(relay.addr).await;
        if done(&text) {
            return text;
        }
        assert!(Instant::now() < deadline, "{what} did not happen:\n{text}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn a_database_url_the_relay_cannot_use_stops_it_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let missing = format!("sqlite://{}", dir.path().join("no-such-dir/stats.sqlite").display());
    let not_created = format!("sqlite://{}", dir.path().join("stats-without-mode.sqlite").display());
    for (url, says) in [
        ("mysql://relay@localhost/relay", "mysql"),
        ("postgres://relay@localhost/relay?sslmode=sometimes", "database URL"),
        ("not a url", "database URL"),
        (missing.as_str(), "cannot open"),
        (not_created.as_str(), "mode=rwc"),
    ] {
        let started = Instant::now();
        let error = match builder(dir.path()).database_url(url).build().await {
            Ok(_) => panic!("a relay started with {url}"),
            Err(error) => error_chain(&error),
        };
        assert!(error.contains(says), "{url}: {error}");
        assert!(started.elapsed() < Duration::from_secs(3), "{url} was retried");
    }
}

fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text = format!("{text}: {cause}");
        source = cause.source();
    }
    text
}

#[test]
fn the_program_exits_with_an_error_on_an_unsupported_database() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_fairdeck-relay"))
        .args(["--listen", "127.0.0.1:0", "--database-url", "mysql://relay:hunter2@localhost/relay", "--data-dir"])
        .arg(dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start fairdeck-relay");
    let status = wait_for_exit(&mut child, "the relay kept running with a MySQL URL");
    let stderr = std::io::read_to_string(child.stderr.take().unwrap()).unwrap();
    assert!(!status.success());
    assert!(stderr.contains("unsupported database `mysql`"), "{stderr}");
    assert!(!stderr.contains("hunter2"), "the password is not printed: {stderr}");
}

#[tokio::test]
async fn readiness_follows_the_database_and_liveness_does_not() {
    let dir = tempfile::tempdir().unwrap();
    let relay = TestRelay::start_with(builder(dir.path())).await;
    assert_eq!(http_get(relay.addr, "/readyz", &[]).await, (200, "{\"ready\":true}".into()));
    relay.stop().await;

    let relay = TestRelay::start_with(builder(dir.path()).database_url(DOWN)).await;
    let (status, body) = http_get(relay.addr, "/readyz", &[]).await;
    assert_eq!(status, 503);
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body, json!({"ready": false, "reason": "database_down"}));
    assert_eq!(http_get(relay.addr, "/healthz", &[]).await, (200, "ok\n".into()));
    relay.stop().await;
}

#[tokio::test]
async fn the_stats_page_shows_live_counts_while_the_database_is_down() {
    let dir = tempfile::tempdir().unwrap();
    let relay = TestRelay::start_with(builder(dir.path()).database_url(DOWN)).await;
    let (_creator, _, _) = Client::create(&relay.url()).await;
    let bearer = format!("Bearer {TOKEN}");
    let started = Instant::now();
    let (status, page) = http_get(relay.addr, "/stats", &[("Authorization", &bearer)]).await;
    assert_eq!(status, 200, "{page}");
    assert!(page.contains("The database is down: live counts only."), "{page}");
    assert!(page.contains("<b>1</b><span>rooms open</span>"), "{page}");
    assert!(started.elapsed() < Duration::from_secs(3), "answered in {:?}", started.elapsed());
    let started = Instant::now();
    let (status, document) = http_get(relay.addr, "/api/stats", &[("Authorization", &bearer)]).await;
    assert_eq!(status, 200);
    let document: Value = serde_json::from_str(&document).unwrap();
    assert_eq!((&document["database"], &document["live"]["rooms"]), (&json!("down"), &json!(1)));
    assert!(document["summary"].is_null() && document["recent"].is_null(), "{document}");
    assert!(started.elapsed() < Duration::from_secs(3), "answered in {:?}", started.elapsed());
    relay.stop().await;
}

#[tokio::test]
async fn records_waiting_at_shutdown_are_written_by_the_next_process() {
    let dir = tempfile::tempdir().unwrap();
    let relay = TestRelay::start_with(builder(dir.path()).database_url(DOWN)).await;
    play_a_short_game(&relay.url()).await;
    play_a_short_game(&relay.url()).await;
    wait_for_metrics(&relay, "a failed write", |text| metric(text, "fairdeck_relay_stats_queued") == 2.0).await;
    relay.stop().await;

    // The next process has its database: it writes what the previous one could not.
    let relay = TestRelay::start_with(builder(dir.path())).await;
    wait_for_metrics(&relay, "the records written", |text| metric(text, "fairdeck_relay_stats_queued") == 0.0).await;
    let store = relay.stop().await;
    let rows = store.recent(10).await.unwrap();
    assert_eq!(rows.len(), 2, "{rows:#?}");
    assert!(rows.iter().all(|row| row.result == RoomResult::Happy && row.bytes_a_to_b == 100));
}

/// Makes `path` unwritable, even for root (who ignores permission bits): with `chattr +i` then.
fn set_writable(path: &Path, writable: bool) {
    // SAFETY: geteuid has no preconditions and cannot fail.
    let status = if unsafe { libc::geteuid() } == 0 {
        Command::new("chattr").arg(if writable { "-i" } else { "+i" }).arg(path).status()
    } else {
        Command::new("chmod").arg(if writable { "u+w" } else { "a-w" }).arg(path).status()
    };
    assert!(status.expect("chattr or chmod").success(), "cannot change {}", path.display());
}

/// Keeps a file unwritable until dropped (also when the test fails, so that its directory can be removed).
struct ReadOnly(std::path::PathBuf);

impl ReadOnly {
    fn new(path: std::path::PathBuf) -> ReadOnly {
        set_writable(&path, false);
        ReadOnly(path)
    }
}

impl Drop for ReadOnly {
    fn drop(&mut self) {
        set_writable(&self.0, true);
    }
}

#[tokio::test]
async fn a_read_only_stats_file_is_written_again_once_its_owner_fixes_it() {
    let dir = tempfile::tempdir().unwrap();
    TestRelay::start_with(builder(dir.path())).await.stop().await;
    let file = dir.path().join("stats.sqlite");
    let read_only = ReadOnly::new(file.clone());

    let relay = TestRelay::start_with(builder(dir.path())).await;
    play_a_short_game(&relay.url()).await;
    wait_for_metrics(&relay, "a failed write", |text| metric(text, "fairdeck_relay_stats_write_errors_total") >= 1.0)
        .await;
    drop(read_only);
    // Without a restart, the record is written once the file is writable.
    wait_for_metrics(&relay, "the record written", |text| metric(text, "fairdeck_relay_stats_queued") == 0.0).await;
    relay.stop().await;
    let store = StatsStore::connect(&StatsStore::sqlite_url(dir.path())).await.unwrap();
    assert_eq!(store.recent(10).await.unwrap().len(), 1);
}
