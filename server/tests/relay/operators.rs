//! What operators see: health, Prometheus metrics, the statistics API and page behind the operator token.

use base64::Engine;
use fairdeck_relay::Relay;
use serde_json::{Value, json};

use crate::common::{Client, Received, TestRelay, http_get, metric, test_limits};

const TOKEN: &str = "operator-secret-token";

async fn relay_with_token(dir: &std::path::Path) -> TestRelay {
    TestRelay::start_with(
        Relay::builder("127.0.0.1:0".parse().unwrap(), dir).limits(test_limits()).operator_token(TOKEN),
    )
    .await
}

#[tokio::test]
async fn health_and_metrics_reflect_the_rooms() {
    let dir = tempfile::tempdir().unwrap();
    let relay = relay_with_token(dir.path()).await;
    assert_eq!(http_get(relay.addr, "/healthz", &[]).await, (200, "ok\n".into()));

    let (mut creator, mut joiner, _, _, _) = Client::pair(&relay.url()).await;
    let (_waiting, _, _) = Client::create(&relay.url()).await;
    for _ in 0..3 {
        creator.send_data(&[9; 100]).await;
        joiner.expect_data(0, &[9; 100]).await;
    }
    let mut third = Client::connect(&relay.url()).await;
    third.send(json!({"type": "join", "nameplate": "99"})).await;
    third.expect_error_and_close("unknown_nameplate", fairdeck_relay::protocol::close::UNKNOWN_NAMEPLATE).await;

    let (status, text) = http_get(relay.addr, "/metrics", &[]).await;
    assert_eq!(status, 200);
    assert_eq!(metric(&text, "fairdeck_relay_rooms_open"), 2.0);
    assert_eq!(metric(&text, "fairdeck_relay_rooms_waiting"), 1.0);
    assert_eq!(metric(&text, "fairdeck_relay_seats{state=\"connected\"}"), 3.0);
    assert_eq!(metric(&text, "fairdeck_relay_frames_total"), 3.0);
    assert_eq!(metric(&text, "fairdeck_relay_bytes_total"), 300.0);
    assert_eq!(metric(&text, "fairdeck_relay_rejections_total{reason=\"unknown_nameplate\"}"), 1.0);
    assert!(text.contains("fairdeck_relay_forward_latency_seconds_bucket"), "latency histogram in\n{text}");
    assert!(metric(&text, "fairdeck_relay_connections") >= 3.0);
    relay.stop().await;
}

#[tokio::test]
async fn the_statistics_need_the_operator_token() {
    let dir = tempfile::tempdir().unwrap();
    let relay = relay_with_token(dir.path()).await;
    let (mut lonely, _, _) = Client::create(&relay.url()).await;
    lonely.send(json!({"type": "leave"})).await;
    assert!(matches!(lonely.recv().await, Received::Closed(_)));

    for path in ["/api/stats", "/stats"] {
        assert_eq!(http_get(relay.addr, path, &[]).await.0, 401);
        assert_eq!(http_get(relay.addr, path, &[("Authorization", "Bearer wrong")]).await.0, 401);
    }
    let bearer = format!("Bearer {TOKEN}");
    // The record is written asynchronously; poll the API until it shows up.
    let deadline = std::time::Instant::now() + crate::common::PATIENCE;
    let document: Value = loop {
        let (status, body) = http_get(relay.addr, "/api/stats?hours=24", &[("Authorization", &bearer)]).await;
        assert_eq!(status, 200);
        let document: Value = serde_json::from_str(&body).unwrap();
        if document["summary"]["rooms"] == 1 || std::time::Instant::now() > deadline {
            break document;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    };
    assert_eq!(document["hours"], 24);
    assert_eq!(document["summary"]["results"]["lonely"], 1);
    assert_eq!(document["summary"]["hourly"].as_array().unwrap().len(), 24);
    assert_eq!(document["recent"][0]["result"], "lonely");
    assert!(!document.to_string().contains("127.0.0.1"), "no addresses in the statistics");

    let basic = format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(format!("operator:{TOKEN}")));
    let (status, page) = http_get(relay.addr, "/stats", &[("Authorization", &basic)]).await;
    assert_eq!(status, 200);
    assert!(page.contains("<svg") && page.contains("Rooms per hour") && page.contains("lonely"), "{page}");
    relay.stop().await;
}

#[tokio::test]
async fn the_statistics_are_off_without_a_token() {
    let dir = tempfile::tempdir().unwrap();
    let relay = crate::common::TestRelay::start(dir.path(), test_limits()).await;
    assert_eq!(http_get(relay.addr, "/stats", &[("Authorization", "Bearer anything")]).await.0, 404);
    assert_eq!(http_get(relay.addr, "/api/stats", &[]).await.0, 404);
    relay.stop().await;
}
