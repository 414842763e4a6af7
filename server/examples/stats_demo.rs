//! A relay with two days of made-up room history and a few live rooms, for looking at `/stats`
//! (`scripts/stats-screenshot.sh` renders it to `docs/stats.png`).
//!
//! Prints `STATS <url>` (with the operator token as HTTP Basic credentials) and serves until standard input
//! closes. The history is synthetic but goes through the real statistics store; the live rooms are real
//! WebSocket connections.

use std::time::{SystemTime, UNIX_EPOCH};

use fairdeck_relay::{Relay, RoomRecord, RoomResult};
use futures_util::{SinkExt, StreamExt};
use tokio_tungstenite::tungstenite::Message;

const TOKEN: &str = "demo-operator-token";

/// A small deterministic generator, so every run draws the same history.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, below: u64) -> u64 {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % below.max(1)
    }
}

fn synthetic_history(now_ms: i64) -> Vec<RoomRecord> {
    let mut rng = Lcg(7);
    let mut records = Vec::new();
    for hour in 0..48i64 {
        // More games in the evening (UTC), fewer at night.
        let hour_of_day = ((now_ms / 3_600_000 - hour) % 24 + 24) % 24;
        let busy = if (17..23).contains(&hour_of_day) {
            14
        } else if (8..17).contains(&hour_of_day) {
            7
        } else {
            2
        };
        for _ in 0..busy + rng.next(4) {
            let roll = rng.next(100);
            let result = match roll {
                0..=71 => RoomResult::Happy,
                72..=83 => RoomResult::Lonely,
                84..=92 => RoomResult::Pruned,
                93..=95 => RoomResult::Crowded,
                96..=97 => RoomResult::Scary,
                _ => RoomResult::Errored,
            };
            let paired = result != RoomResult::Lonely;
            let waiting_ms = paired.then(|| 5_000 + rng.next(240_000) as i64);
            let total_ms = match result {
                RoomResult::Happy | RoomResult::Crowded => 300_000 + rng.next(5_400_000) as i64,
                _ => 30_000 + rng.next(1_200_000) as i64,
            };
            let frames = if paired { 200 + rng.next(3_000) as i64 } else { 0 };
            records.push(RoomRecord {
                created_ms: now_ms - hour * 3_600_000 - rng.next(3_600_000) as i64,
                waiting_ms,
                total_ms,
                result,
                frames_a_to_b: frames,
                bytes_a_to_b: frames * 310,
                frames_b_to_a: frames,
                bytes_b_to_a: frames * 290,
                resumes: rng.next(3) as i64,
                client_a: Some("fairdeck/0.1.0".into()),
                client_b: paired.then(|| "fairdeck/0.1.0".into()),
                watchers: if paired { rng.next(4) as i64 } else { 0 },
            });
        }
    }
    records
}

type Ws = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// The next control message.
async fn control(ws: &mut Ws) -> anyhow::Result<serde_json::Value> {
    loop {
        if let Some(Message::Text(text)) = ws.next().await.transpose()? {
            return Ok(serde_json::from_str(text.as_str())?);
        }
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let mut relay = Relay::builder("127.0.0.1:0".parse()?, dir.path()).operator_token(TOKEN).build().await?;
    let now_ms = SystemTime::now().duration_since(UNIX_EPOCH)?.as_millis() as i64;
    for record in synthetic_history(now_ms) {
        relay.stats().insert(&record).await?;
    }
    let addr = relay.bind().await?;
    let shutdown = relay.shutdown_handle();
    let served = tokio::spawn(relay.serve());

    // Live rooms: two paired, one waiting.
    let url = format!("ws://{addr}/v1");
    let mut live = Vec::new();
    for paired in [true, true, false] {
        let (mut creator, _) = tokio_tungstenite::connect_async(&url).await?;
        control(&mut creator).await?;
        creator.send(Message::Text(r#"{"type":"create","client":"demo"}"#.into())).await?;
        let created = control(&mut creator).await?;
        if paired {
            let (mut joiner, _) = tokio_tungstenite::connect_async(&url).await?;
            control(&mut joiner).await?;
            let join = serde_json::json!({"type": "join", "nameplate": created["nameplate"], "client": "demo"});
            joiner.send(Message::Text(join.to_string().into())).await?;
            live.push(joiner);
        }
        live.push(creator);
    }

    println!("STATS http://operator:{TOKEN}@{addr}/stats");
    tokio::task::spawn_blocking(|| std::io::copy(&mut std::io::stdin(), &mut std::io::sink())).await??;
    drop(live);
    shutdown.shutdown();
    served.await??;
    Ok(())
}
