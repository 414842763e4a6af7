//! `fairdeck-relay-abuse`: what the relay's abuse defences cost and how fast they act, with production limits.
//!
//! Starts `fairdeck-relay` (the library, with `Limits::default()`) in a child process of this tool on loopback,
//! keeps an honest pair playing through it, and runs one attack after the other from other loopback addresses
//! (127.0.0.0/8 is all loopback on Linux, so each source address counts as another client):
//!
//! 1. silent TCP connections and slowloris request heads (a byte a second), from many addresses: how long each
//!    stays open, and the relay's resident memory meanwhile;
//! 2. one address opening more connections than `--connections-per-address` allows, and more handshakes than
//!    `--max-handshakes` allows: how many are refused at once;
//! 3. pairs whose reader never reads while the sender streams: how long until each reader is cut off, the largest
//!    outbound queue and the relay's resident memory;
//! 4. a burst of 2,000 small frames to a reader that reads: whether anyone is cut off.
//!
//! Throughout, the honest pair exchanges frames and checks them byte for byte; the tool reports its round trips.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::process::{Child, Command, ExitCode, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::{Parser, Subcommand};
use fairdeck_relay::{Limits, Relay};
use fairdeck_relay_load::ws::{Ws, field, next_binary, next_text, to_all, until_paired};
use fairdeck_relay_load::{percentile, system};
use futures_util::{SinkExt, StreamExt};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};
use tokio_tungstenite::MaybeTlsStream;
use tokio_tungstenite::tungstenite::Message;

/// Abuse figures for fairdeck-relay with production limits.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Args {
    #[command(subcommand)]
    command: Option<Mode>,
    /// Silent TCP connections, spread over 16 source addresses. With the slowloris ones, keep them under the
    /// handshake limit (1,024), or the relay refuses the rest at once (the tool's metric scrapes included).
    #[arg(long, default_value_t = 600)]
    silent: usize,
    /// Slowloris connections (a byte of request head per second), spread over 8 source addresses.
    #[arg(long, default_value_t = 360)]
    slowloris: usize,
    /// Pairs whose reader never reads.
    #[arg(long, default_value_t = 50)]
    slow_readers: usize,
}

#[derive(Debug, Subcommand)]
enum Mode {
    /// Child mode: serve a relay with production limits until standard input closes.
    Serve,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("fairdeck-relay-abuse: {error}");
            return ExitCode::FAILURE;
        }
    };
    let result = match args.command {
        Some(Mode::Serve) => runtime.block_on(serve()),
        None => runtime.block_on(async {
            tokio::time::timeout(Duration::from_secs(300), run(&args)).await.context("the run took over 5 minutes")?
        }),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("fairdeck-relay-abuse: {error:#}");
            ExitCode::FAILURE
        }
    }
}

async fn serve() -> anyhow::Result<()> {
    system::raise_open_files(0);
    std::thread::spawn(|| {
        let _ = std::io::copy(&mut std::io::stdin(), &mut std::io::sink());
        std::process::exit(0);
    });
    let dir = tempfile::tempdir()?;
    let mut relay = Relay::builder("127.0.0.1:0".parse()?, dir.path()).limits(Limits::default()).build().await?;
    println!("LISTENING {}", relay.bind().await?);
    relay.serve().await?;
    Ok(())
}

/// The relay child process; closing its standard input stops it.
struct Server {
    child: Child,
    addr: SocketAddr,
}

impl Server {
    fn start() -> anyhow::Result<Server> {
        let mut child = Command::new(std::env::current_exe()?)
            .arg("serve")
            .env("RUST_LOG", "warn")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .context("cannot start the relay child process")?;
        let stdout = child.stdout.take().context("child stdout")?;
        let mut line = String::new();
        std::io::BufRead::read_line(&mut std::io::BufReader::new(stdout), &mut line)?;
        let addr = line.trim().strip_prefix("LISTENING ").context("the child did not announce its address")?;
        Ok(Server { addr: addr.parse()?, child })
    }

    fn rss_mib(&self) -> f64 {
        system::rss_kib(self.child.id()).unwrap_or(0) as f64 / 1024.0
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        drop(self.child.stdin.take());
        let _ = self.child.wait();
    }
}

fn source(c: u8, d: u8) -> IpAddr {
    IpAddr::V4(Ipv4Addr::new(127, 0, c, d))
}

async fn tcp_from(from: IpAddr, addr: SocketAddr) -> anyhow::Result<TcpStream> {
    let socket = TcpSocket::new_v4()?;
    socket.bind(SocketAddr::new(from, 0))?;
    Ok(socket.connect(addr).await?)
}

async fn ws_from(from: IpAddr, addr: SocketAddr) -> anyhow::Result<Ws> {
    let tcp = tcp_from(from, addr).await?;
    let (mut ws, _) = tokio_tungstenite::client_async(format!("ws://{addr}/v1"), MaybeTlsStream::Plain(tcp)).await?;
    next_text(&mut ws).await?; // welcome
    Ok(ws)
}

/// A paired room: (creator, joiner), both past `paired`.
async fn pair(from: IpAddr, addr: SocketAddr) -> anyhow::Result<(Ws, Ws)> {
    let mut a = ws_from(from, addr).await?;
    a.send(Message::Text(r#"{"type":"create","client":"abuse"}"#.into())).await?;
    let nameplate = field(&next_text(&mut a).await?, "nameplate")?;
    let mut b = ws_from(from, addr).await?;
    b.send(Message::Text(format!(r#"{{"type":"join","nameplate":"{nameplate}"}}"#).into())).await?;
    until_paired(&mut b).await?;
    until_paired(&mut a).await?;
    Ok((a, b))
}

/// The relay's metrics, as (name with labels, value) lines.
async fn scrape(addr: SocketAddr) -> anyhow::Result<String> {
    let mut stream = TcpStream::connect(addr).await?;
    stream.write_all(b"GET /metrics HTTP/1.1\r\nHost: relay\r\n\r\n").await?;
    let mut response = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut response)).await??;
    Ok(String::from_utf8_lossy(&response).into_owned())
}

fn metric(text: &str, name: &str) -> f64 {
    text.lines().find_map(|line| line.strip_prefix(name)?.strip_prefix(' ')?.trim().parse().ok()).unwrap_or(f64::NAN)
}

/// Waits until the relay closes `stream`; returns how long after `since` that was (None: still open after 60 s).
async fn closed_after(mut stream: impl tokio::io::AsyncRead + Unpin, since: Instant) -> Option<Duration> {
    let mut buffer = [0; 256];
    loop {
        match tokio::time::timeout_at((since + Duration::from_secs(60)).into(), stream.read(&mut buffer)).await {
            Ok(Ok(0) | Err(_)) => return Some(since.elapsed()),
            Ok(Ok(_)) => continue,
            Err(_) => return None,
        }
    }
}

/// How many of `streams` the relay closes within half a second (the others are then closed here).
async fn closed_at_once(streams: Vec<TcpStream>) -> usize {
    let now = Instant::now();
    let closed = futures_util::future::join_all(streams.into_iter().map(|stream| async move {
        tokio::time::timeout(Duration::from_millis(500), closed_after(stream, now)).await.is_ok()
    }))
    .await;
    closed.into_iter().filter(|closed| *closed).count()
}

fn summary(mut times: Vec<Duration>) -> String {
    times.sort();
    format!(
        "min {:.2} s, median {:.2} s, max {:.2} s",
        percentile(&times, 0.0).as_secs_f64(),
        percentile(&times, 0.5).as_secs_f64(),
        percentile(&times, 1.0).as_secs_f64()
    )
}

/// The honest pair: ping-pong with byte-exact checks until told to stop; counts round trips and failures.
struct Honest {
    stop: Arc<AtomicBool>,
    round_trips: Arc<AtomicU64>,
    task: tokio::task::JoinHandle<anyhow::Result<Vec<Duration>>>,
}

impl Honest {
    async fn start(addr: SocketAddr) -> anyhow::Result<Honest> {
        let (mut a, mut b) = pair(source(0, 1), addr).await?;
        let stop = Arc::new(AtomicBool::new(false));
        let round_trips = Arc::new(AtomicU64::new(0));
        let (stopping, counting) = (stop.clone(), round_trips.clone());
        let task = tokio::spawn(async move {
            let mut latencies = Vec::new();
            let mut n: u64 = 0;
            while !stopping.load(Ordering::Relaxed) {
                n += 1;
                let frame: Vec<u8> = (0..200u64).map(|i| (i * 31 + n) as u8).collect();
                let started = Instant::now();
                a.send(to_all(&frame)).await?;
                let got = next_binary(&mut b).await?;
                anyhow::ensure!(got == frame, "round trip {n}: the frame changed on the way");
                b.send(to_all(&got)).await?;
                anyhow::ensure!(next_binary(&mut a).await? == frame, "round trip {n}: the echo changed on the way");
                latencies.push(started.elapsed());
                counting.fetch_add(1, Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            Ok(latencies)
        });
        Ok(Honest { stop, round_trips, task })
    }

    async fn finish(self) -> anyhow::Result<(u64, Vec<Duration>)> {
        self.stop.store(true, Ordering::Relaxed);
        let latencies = self.task.await??;
        Ok((self.round_trips.load(Ordering::Relaxed), latencies))
    }
}

async fn run(args: &Args) -> anyhow::Result<()> {
    system::raise_open_files(0);
    let server = Server::start()?;
    let addr = server.addr;
    let limits = Limits::default();
    println!(
        "fairdeck-relay with production limits: request head {:?}, upgrade {:?}, {} handshakes, {} connections per \
         address, queue {} KiB / {:?}",
        limits.request_head_timeout,
        limits.upgrade_timeout,
        limits.max_handshakes,
        limits.connections_per_address,
        limits.queue_bytes / 1024,
        limits.queue_age
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    let idle_rss = server.rss_mib();
    println!("relay resident memory at rest: {idle_rss:.1} MiB");
    let honest = Honest::start(addr).await?;

    // 1. Silent connections and slowloris heads.
    let started = Instant::now();
    let mut silent = Vec::new();
    for i in 0..args.silent {
        silent.push(tcp_from(source(1, 1 + (i % 16) as u8), addr).await?);
    }
    let mut slow = Vec::new();
    for i in 0..args.slowloris {
        let (reading, mut writing) = tcp_from(source(2, 1 + (i % 8) as u8), addr).await?.into_split();
        slow.push(tokio::spawn(async move {
            let began = Instant::now();
            let trickle = tokio::spawn(async move {
                let head = b"GET /v1 HTTP/1.1\r\nHost: relay\r\nUpgrade: websocket\r\nX-Padding: ";
                for byte in head.iter().chain(std::iter::repeat(&b'a')) {
                    if writing.write_all(&[*byte]).await.is_err() {
                        break;
                    }
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
            });
            let closed = closed_after(reading, began).await;
            trickle.abort();
            closed
        }));
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    let flood_rss = server.rss_mib();
    let flood_metrics = scrape(addr).await?;
    let silent_closed: Vec<Option<Duration>> =
        futures_util::future::join_all(silent.into_iter().map(|s| closed_after(s, started))).await;
    let mut slow_closed = Vec::new();
    for task in slow {
        slow_closed.push(task.await?);
    }
    let still_open = silent_closed.iter().chain(&slow_closed).filter(|c| c.is_none()).count();
    println!(
        "\n1. {} silent + {} slowloris connections from 24 addresses: relay resident memory {flood_rss:.1} MiB \
         ({} handshakes open); {still_open} still open after 60 s",
        args.silent,
        args.slowloris,
        metric(&flood_metrics, "fairdeck_relay_handshakes")
    );
    println!("   silent closed after: {}", summary(silent_closed.into_iter().flatten().collect()));
    println!("   slowloris closed after: {}", summary(slow_closed.into_iter().flatten().collect()));

    // 2. The per-address cap and the handshake cap.
    let mut held = Vec::new();
    for _ in 0..limits.connections_per_address + 36 {
        held.push(tcp_from(source(3, 1), addr).await?);
    }
    let refused_at_once = closed_at_once(held).await;
    println!(
        "\n2. {} connections from one address: {refused_at_once} closed at once",
        limits.connections_per_address + 36
    );
    let mut handshakes = Vec::new();
    for i in 0..limits.max_handshakes + 76 {
        handshakes.push(tcp_from(source(4, 1 + (i % 20) as u8), addr).await?);
    }
    println!(
        "   {} silent connections from 20 addresses: {} closed at once (handshake limit {})",
        limits.max_handshakes + 76,
        closed_at_once(handshakes).await,
        limits.max_handshakes
    );
    // Let the head timeout clear them before the next attack.
    tokio::time::sleep(limits.request_head_timeout + Duration::from_secs(1)).await;

    // 3. Readers that never read.
    let mut largest_queue: f64 = 0.0;
    let mut largest_rss = server.rss_mib();
    let started = Instant::now();
    let mut cut = Vec::new();
    let mut readers = Vec::new();
    for i in 0..args.slow_readers {
        let (mut sender, reader) = pair(source(5, 1 + (i % 50) as u8), addr).await?;
        readers.push(reader);
        cut.push(tokio::spawn(async move {
            let began = Instant::now();
            let frame = vec![0x5a; 16 * 1024];
            loop {
                if began.elapsed() > Duration::from_secs(60) {
                    return None;
                }
                if sender.send(to_all(&frame)).await.is_err() {
                    return None;
                }
                // The relay says `peer_away` once it has cut the reader off.
                if let Ok(Some(Ok(Message::Text(text)))) =
                    tokio::time::timeout(Duration::from_micros(1), sender.next()).await
                    && text.contains("peer_away")
                {
                    return Some(began.elapsed());
                }
            }
        }));
    }
    while cut.iter().any(|task| !task.is_finished()) && started.elapsed() < Duration::from_secs(60) {
        let text = scrape(addr).await?;
        largest_queue = largest_queue.max(metric(&text, "fairdeck_relay_queued_bytes"));
        largest_rss = largest_rss.max(server.rss_mib());
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let mut cut_after = Vec::new();
    for task in cut {
        cut_after.extend(task.await?);
    }
    let after = scrape(addr).await?;
    println!(
        "\n3. {} readers that never read, each sender streaming 16 KiB frames: {} cut off ({}); largest queue of \
         all connections {:.0} KiB; relay resident memory at most {largest_rss:.1} MiB; slow_readers_total bytes {} \
         / age {}",
        args.slow_readers,
        cut_after.len(),
        summary(cut_after.clone()),
        largest_queue / 1024.0,
        metric(&after, r#"fairdeck_relay_slow_readers_total{reason="bytes"}"#),
        metric(&after, r#"fairdeck_relay_slow_readers_total{reason="age"}"#),
    );
    drop(readers);

    // 4. A burst of small frames to a reader that reads.
    let cut_before = metric(&after, r#"fairdeck_relay_rejections_total{reason="slow_reader"}"#);
    let (mut sender, mut reader) = pair(source(6, 1), addr).await?;
    let frames: Vec<Vec<u8>> = (0..2000u32).map(|i| [&i.to_be_bytes()[..], &[0xa5; 96]].concat()).collect();
    let started = Instant::now();
    for frame in &frames {
        sender.feed(to_all(frame)).await?;
    }
    sender.flush().await?;
    for frame in &frames {
        anyhow::ensure!(next_binary(&mut reader).await? == *frame, "a burst frame changed on the way");
    }
    let burst = started.elapsed();
    let after = scrape(addr).await?;
    println!(
        "\n4. a burst of 2,000 frames of 100 bytes to a reader that reads: all delivered in {:.1} ms; readers cut \
         off meanwhile: {}",
        burst.as_secs_f64() * 1000.0,
        metric(&after, r#"fairdeck_relay_rejections_total{reason="slow_reader"}"#) - cut_before
    );

    let (round_trips, mut latencies) = honest.finish().await?;
    latencies.sort();
    println!(
        "\nThe honest pair, throughout: {round_trips} round trips of 200 bytes, every frame byte-exact; round trip \
         p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        percentile(&latencies, 0.5).as_secs_f64() * 1000.0,
        percentile(&latencies, 0.99).as_secs_f64() * 1000.0,
        percentile(&latencies, 1.0).as_secs_f64() * 1000.0
    );
    let end = scrape(addr).await?;
    println!(
        "relay at the end: {:.1} MiB resident, {} open file descriptors; refused: head_timeout {}, upgrade_timeout \
         {}, address_limit {}, handshake_limit {}",
        server.rss_mib(),
        metric(&end, "process_open_fds"),
        metric(&end, r#"fairdeck_relay_connections_refused_total{reason="head_timeout"}"#),
        metric(&end, r#"fairdeck_relay_connections_refused_total{reason="upgrade_timeout"}"#),
        metric(&end, r#"fairdeck_relay_connections_refused_total{reason="address_limit"}"#),
        metric(&end, r#"fairdeck_relay_connections_refused_total{reason="handshake_limit"}"#),
    );
    Ok(())
}
