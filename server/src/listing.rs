//! `fairdeck-relay rooms`: asks a running relay for its open rooms (`/api/rooms`, behind the operator token) and
//! prints them. Nothing secret is listed: the relay sends no nameplate, token or client name.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::time::Duration;

use anyhow::Context;
use fairdeck_relay::RoomListing;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Longest the relay may take to answer.
const PATIENCE: Duration = Duration::from_secs(10);

/// Largest answer read (about 100 bytes a room).
const MAX_ANSWER: u64 = 64 << 20;

/// Fetches the open rooms of the relay listening on `listen` (a wildcard address is asked on loopback).
pub async fn fetch(listen: SocketAddr, token: &str) -> anyhow::Result<(SocketAddr, Vec<RoomListing>)> {
    let mut addr = listen;
    if addr.ip().is_unspecified() {
        addr.set_ip(if addr.is_ipv4() { IpAddr::V4(Ipv4Addr::LOCALHOST) } else { IpAddr::V6(Ipv6Addr::LOCALHOST) });
    }
    let answer = tokio::time::timeout(PATIENCE, get(addr, token))
        .await
        .with_context(|| format!("the relay at {addr} did not answer within {PATIENCE:?}"))??;
    let (head, body) = answer.split_once("\r\n\r\n").context("the relay's answer is not HTTP")?;
    let status = head.split(' ').nth(1).unwrap_or("");
    anyhow::ensure!(status == "200", "the relay at {addr} answered {}: {}", status, body.trim());
    let rooms = serde_json::from_str(body).context("the relay's list of rooms cannot be read")?;
    Ok((addr, rooms))
}

async fn get(addr: SocketAddr, token: &str) -> anyhow::Result<String> {
    let mut stream = TcpStream::connect(addr).await.with_context(|| format!("cannot reach the relay at {addr}"))?;
    let request = format!(
        "GET /api/rooms HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {token}\r\nConnection: close\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).await?;
    let mut answer = Vec::new();
    stream.take(MAX_ANSWER).read_to_end(&mut answer).await?;
    Ok(String::from_utf8_lossy(&answer).into_owned())
}

/// The rooms as a table, one line each, oldest first; each with its instance in a cluster, else the address asked.
pub fn format(instance: SocketAddr, rooms: &[RoomListing]) -> String {
    let mut text = format!("{:<10} {:>10} {:>6} {:>10}  instance\n", "room", "age", "seats", "connected");
    for room in rooms {
        let age = format!("{}s", room.age_seconds);
        text.push_str(&format!(
            "{:<10} {:>10} {:>6} {:>10}  {}\n",
            room.room,
            age,
            room.seats_taken,
            room.seats_connected,
            room.instance.as_deref().map_or_else(|| instance.to_string(), str::to_owned),
        ));
    }
    text.push_str(&format!("{} rooms\n", rooms.len()));
    text
}
