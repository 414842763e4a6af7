//! `fairdeck-relay-load`: runs the same load against `fairdeck-relay` and a minimal baseline relay, each in its
//! own child process on loopback, and reports messages per second, round-trip latency percentiles, relay CPU per
//! message and relay memory per idle connection. Every loop is bounded in count, and the whole run in time.
//! `fairdeck-relay-load cluster` measures two `fairdeck-relay` processes sharing a `redis-server`, and
//! `fairdeck-relay-load soak` plays games through them while instances and Redis are killed.

mod baseline;
mod cluster_figures;
mod soak;

use std::net::SocketAddr;
use std::process::{Child, ChildStdout, Command as Process, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use clap::{Parser, Subcommand, ValueEnum};
use fairdeck_relay::{Limits, Relay};
use fairdeck_relay_load::ws::{Ws, connect, field, next_binary, next_text, until_paired};
use fairdeck_relay_load::{percentile, system};
use futures_util::{SinkExt, StreamExt};
use tokio_tungstenite::tungstenite::Message;

/// Load tool for fairdeck-relay: N concurrent pairs over loopback, against the relay and a minimal baseline.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Args {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    load: Load,
    /// Pairs streaming (sender windowed by acknowledgements, as real clients are).
    #[arg(long, default_value_t = 100)]
    stream_pairs: usize,
    /// Messages each streaming pair sends.
    #[arg(long, default_value_t = 2000)]
    stream_messages: usize,
    /// Which relays to load.
    #[arg(long, value_enum, default_value_t = Which::Both)]
    relay: Which,
}

/// The load of the ping-pong and idle figures, for one relay and for a cluster alike.
#[derive(Debug, clap::Args)]
struct Load {
    /// Pairs exchanging ping-pong messages concurrently.
    #[arg(long, default_value_t = 1000)]
    pairs: usize,
    /// Round trips per pair in the concurrent ping-pong.
    #[arg(long, default_value_t = 50)]
    round_trips: usize,
    /// Round trips of the single-pair latency run.
    #[arg(long, default_value_t = 2000)]
    latency_round_trips: usize,
    /// Payload size in bytes.
    #[arg(long, default_value_t = 200)]
    size: usize,
    /// Idle connections held to measure memory (half as many pairs).
    #[arg(long, default_value_t = 10_000)]
    idle_connections: usize,
    /// Upper bound on the whole run, in seconds.
    #[arg(long, default_value_t = 600)]
    time_limit: u64,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serves one relay in this process (used by the tool itself for its child processes).
    #[command(hide = true)]
    Serve {
        #[arg(long, value_enum)]
        kind: Kind,
    },
    /// Two fairdeck-relay processes sharing a redis-server: the extra latency of a frame between instances,
    /// ping-pong through both against one, and idle connections held by both.
    Cluster(Load),
    /// Games through fairdeck-relay instances sharing a redis-server, while instances are killed (SIGKILL) and
    /// started again at random and Redis once: games lost and false alerts. Exits non-zero if there is any.
    Soak(soak::Soak),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Which {
    Both,
    Fairdeck,
    Baseline,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Kind {
    Baseline,
    Fairdeck,
}

/// Unacknowledged messages a streaming sender may have in flight, and how often the receiver acknowledges.
const WINDOW: usize = 128;
const ACK_EVERY: usize = 32;
/// Connections opened at once.
const CONNECT_CONCURRENCY: usize = 64;

fn main() -> std::process::ExitCode {
    let args = Args::parse();
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("fairdeck-relay-load: {error}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let result = match &args.command {
        Some(Command::Serve { kind }) => runtime.block_on(serve(*kind)),
        Some(Command::Soak(soak)) => runtime.block_on(soak::run(soak)),
        Some(Command::Cluster(load)) => runtime.block_on(within_time_limit(load, cluster_figures::run(load))),
        None => runtime.block_on(within_time_limit(&args.load, run(&args))),
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("fairdeck-relay-load: {error:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn within_time_limit(load: &Load, run: impl Future<Output = anyhow::Result<()>>) -> anyhow::Result<()> {
    let limit = Duration::from_secs(load.time_limit);
    tokio::time::timeout(limit, run).await.context("the run exceeded --time-limit")?
}

/// Child mode: serve one relay until standard input closes.
async fn serve(kind: Kind) -> anyhow::Result<()> {
    system::raise_fd_limit()?;
    std::thread::spawn(|| {
        let _ = std::io::copy(&mut std::io::stdin(), &mut std::io::sink());
        std::process::exit(0);
    });
    let announce = |addr: SocketAddr| println!("LISTENING {addr}");
    match kind {
        Kind::Baseline => baseline::serve(announce).await,
        Kind::Fairdeck => {
            let dir = tempfile::tempdir()?;
            let mut relay = loaded_relay(dir.path()).await?;
            announce(relay.bind().await?);
            relay.serve().await?;
            Ok(())
        }
    }
}

/// `fairdeck-relay` on a loopback port with production limits, except those that would refuse a load generator
/// on one address opening thousands of connections at once.
async fn loaded_relay(data_dir: &std::path::Path) -> anyhow::Result<Relay> {
    let limits = Limits {
        rooms_per_minute: 0,
        joins_per_minute: 0,
        max_rooms: 50_000,
        max_connections: 50_000,
        connections_per_address: 0,
        max_handshakes: 50_000,
        ..Limits::default()
    };
    Ok(Relay::builder("127.0.0.1:0".parse()?, data_dir).limits(limits).build().await?)
}

/// A relay child process.
struct Server {
    kind: Kind,
    child: Child,
    addr: SocketAddr,
}

impl Server {
    fn start(kind: Kind) -> anyhow::Result<Server> {
        let kind_arg = match kind {
            Kind::Baseline => "baseline",
            Kind::Fairdeck => "fairdeck",
        };
        let mut child = Process::new(std::env::current_exe()?)
            .args(["serve", "--kind", kind_arg])
            .env("RUST_LOG", "warn")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .context("cannot start the relay child process")?;
        let stdout: ChildStdout = child.stdout.take().context("child stdout")?;
        let mut line = String::new();
        std::io::BufRead::read_line(&mut std::io::BufReader::new(stdout), &mut line)?;
        let addr = line.trim().strip_prefix("LISTENING ").context("the child did not announce its address")?;
        Ok(Server { kind, addr: addr.parse()?, child })
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        drop(self.child.stdin.take());
        let _ = self.child.wait();
    }
}

/// Where a pair's two players connect: the host (who creates the room) and the guest. The baseline takes both
/// players at the host's address.
type Place<'a> = &'a (dyn Fn(usize) -> (SocketAddr, SocketAddr) + Sync);

/// Opens one pair of connections through the relay and waits until both are paired.
async fn open_pair(kind: Kind, (host, guest): (SocketAddr, SocketAddr), index: usize) -> anyhow::Result<(Ws, Ws)> {
    match kind {
        Kind::Baseline => {
            let url = format!("ws://{host}/ws/room{index}");
            let mut a = connect(&url).await?;
            let mut b = connect(&url).await?;
            next_text(&mut a).await?;
            next_text(&mut b).await?;
            Ok((a, b))
        }
        Kind::Fairdeck => {
            let mut a = connect(&format!("ws://{host}/v1")).await?;
            next_text(&mut a).await?; // welcome
            a.send(Message::Text(r#"{"type":"create","client":"load"}"#.into())).await?;
            let nameplate = field(&next_text(&mut a).await?, "nameplate")?;
            let mut b = connect(&format!("ws://{guest}/v1")).await?;
            next_text(&mut b).await?; // welcome
            let join = format!(r#"{{"type":"join","nameplate":"{nameplate}","client":"load"}}"#);
            b.send(Message::Text(join.into())).await?;
            until_paired(&mut b).await?;
            until_paired(&mut a).await?;
            Ok((a, b))
        }
    }
}

async fn open_pairs(kind: Kind, place: Place<'_>, count: usize) -> anyhow::Result<Vec<(Ws, Ws)>> {
    futures_util::stream::iter(0..count)
        .map(|index| open_pair(kind, place(index), index))
        .buffer_unordered(CONNECT_CONCURRENCY)
        .collect::<Vec<_>>()
        .await
        .into_iter()
        .collect()
}

/// Every pair does `round_trips` ping-pongs (A → relay → B → relay → A), all pairs at once.
/// Returns the relayed messages per second and the sorted round-trip times.
async fn ping_pong(pairs: Vec<(Ws, Ws)>, round_trips: usize, size: usize) -> anyhow::Result<(f64, Vec<Duration>)> {
    let started = Instant::now();
    let tasks: Vec<_> = pairs
        .into_iter()
        .map(|(mut a, mut b)| {
            tokio::spawn(async move {
                let payload = vec![0xab; size];
                let mut times = Vec::with_capacity(round_trips);
                for _ in 0..round_trips {
                    let sent = Instant::now();
                    a.send(Message::Binary(payload.clone().into())).await?;
                    let echo = next_binary(&mut b).await?;
                    b.send(Message::Binary(echo)).await?;
                    let back = next_binary(&mut a).await?;
                    anyhow::ensure!(back.len() == size, "a frame changed size");
                    times.push(sent.elapsed());
                }
                Ok::<_, anyhow::Error>(times)
            })
        })
        .collect();
    let mut times = Vec::new();
    for task in tasks {
        times.extend(task.await??);
    }
    let elapsed = started.elapsed().as_secs_f64();
    times.sort();
    Ok((times.len() as f64 * 2.0 / elapsed, times))
}

/// Every pair streams `messages` from A to B; B acknowledges every `ACK_EVERY`, and A keeps at most `WINDOW`
/// unacknowledged, as the fairdeck channel does. Returns data messages per second.
async fn stream(pairs: Vec<(Ws, Ws)>, messages: usize, size: usize) -> anyhow::Result<f64> {
    let started = Instant::now();
    let tasks: Vec<_> = pairs
        .into_iter()
        .map(|(a, b)| {
            tokio::spawn(async move {
                let (mut a_tx, mut a_rx) = a.split();
                let (mut b_tx, mut b_rx) = b.split();
                let receiver = async move {
                    for received in 1..=messages {
                        match b_rx.next().await {
                            Some(Ok(Message::Binary(_))) => {}
                            other => bail!("stream receiver got {other:?}"),
                        }
                        if received % ACK_EVERY == 0 || received == messages {
                            b_tx.send(Message::Binary((received as u64).to_le_bytes().to_vec().into())).await?;
                        }
                    }
                    Ok(())
                };
                let sender = async move {
                    let payload = vec![0xcd; size];
                    let mut acked = 0usize;
                    // Send while the window allows; finish only when everything is acknowledged, so that
                    // closing does not race the last frames.
                    for sent in 0..=messages {
                        while acked < messages && (sent == messages || sent - acked >= WINDOW) {
                            match a_rx.next().await {
                                Some(Ok(Message::Binary(ack))) if ack.len() == 8 => {
                                    acked = u64::from_le_bytes(ack[..].try_into()?) as usize;
                                }
                                Some(Ok(Message::Ping(_) | Message::Pong(_))) => {}
                                other => bail!("stream sender got {other:?}"),
                            }
                        }
                        if sent < messages {
                            a_tx.send(Message::Binary(payload.clone().into())).await?;
                        }
                    }
                    Ok(())
                };
                tokio::try_join!(receiver, sender).map(|_| ())
            })
        })
        .collect();
    let count = tasks.len();
    for task in tasks {
        task.await??;
    }
    Ok((count * messages) as f64 / started.elapsed().as_secs_f64())
}

/// Opens `connections / 2` pairs placed by `place`, sends one message each way in each, and lets the relay
/// settle for a second: the pairs, for the caller to hold open, and how long opening them took.
async fn open_idle(kind: Kind, place: Place<'_>, connections: usize) -> anyhow::Result<(Vec<(Ws, Ws)>, Duration)> {
    let started = Instant::now();
    let mut pairs = open_pairs(kind, place, connections / 2).await?;
    let opened = started.elapsed();
    for (a, b) in &mut pairs {
        a.send(Message::Binary(vec![1; 200].into())).await?;
        next_binary(b).await?;
        b.send(Message::Binary(vec![2; 200].into())).await?;
        next_binary(a).await?;
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    Ok((pairs, opened))
}

/// Holds `connections` idle connections (paired, one message each way) and returns the relay's resident memory
/// growth per connection in KiB, and how long opening them took.
async fn idle_memory(server: &Server, connections: usize) -> anyhow::Result<(f64, Duration, u64)> {
    tokio::time::sleep(Duration::from_millis(300)).await;
    let before = system::rss_kib(server.pid())?;
    let (pairs, opened) = open_idle(server.kind, &|_| (server.addr, server.addr), connections).await?;
    let after = system::rss_kib(server.pid())?;
    let per_connection = after.saturating_sub(before) as f64 / (pairs.len() * 2) as f64;
    drop(pairs);
    Ok((per_connection, opened, after))
}

/// Figures for one relay.
#[derive(Debug, Default, Clone)]
struct Figures {
    latency_rate: f64,
    latency: Vec<Duration>,
    load_rate: f64,
    load_latency: Vec<Duration>,
    load_cpu_us_per_message: f64,
    stream_rate: f64,
    stream_cpu_us_per_message: f64,
    idle_kib_per_connection: f64,
    idle_open_time: Duration,
    idle_rss_kib: u64,
    other_cpu_seconds: f64,
}

async fn measure(kind: Kind, args: &Args) -> anyhow::Result<Figures> {
    let mut figures = Figures::default();
    let machine_before = system::machine_cpu_seconds()?;
    let own_before = system::cpu_seconds(std::process::id())?;
    let server = Server::start(kind)?;
    let relay_before = system::cpu_seconds(server.pid())?;

    let pairs = open_pairs(kind, &|_| (server.addr, server.addr), 1).await?;
    (figures.latency_rate, figures.latency) = ping_pong(pairs, args.load.latency_round_trips, args.load.size).await?;

    let pairs = open_pairs(kind, &|_| (server.addr, server.addr), args.load.pairs).await?;
    let cpu = system::cpu_seconds(server.pid())?;
    (figures.load_rate, figures.load_latency) = ping_pong(pairs, args.load.round_trips, args.load.size).await?;
    let messages = (args.load.pairs * args.load.round_trips * 2) as f64;
    figures.load_cpu_us_per_message = (system::cpu_seconds(server.pid())? - cpu) * 1e6 / messages;

    let pairs = open_pairs(kind, &|_| (server.addr, server.addr), args.stream_pairs).await?;
    let cpu = system::cpu_seconds(server.pid())?;
    figures.stream_rate = stream(pairs, args.stream_messages, args.load.size).await?;
    let messages = (args.stream_pairs * args.stream_messages) as f64;
    figures.stream_cpu_us_per_message = (system::cpu_seconds(server.pid())? - cpu) * 1e6 / messages;

    let relay_cpu = system::cpu_seconds(server.pid())? - relay_before;
    drop(server);
    let own_cpu = system::cpu_seconds(std::process::id())? - own_before;
    // Machine busy time not spent by the relay or this tool: other load that would skew the figures.
    figures.other_cpu_seconds = (system::machine_cpu_seconds()? - machine_before - relay_cpu - own_cpu).max(0.0);

    // Memory on a fresh process, so that allocations kept from the runs above do not hide the growth.
    let server = Server::start(kind)?;
    (figures.idle_kib_per_connection, figures.idle_open_time, figures.idle_rss_kib) =
        idle_memory(&server, args.load.idle_connections).await?;
    Ok(figures)
}

fn micros(d: Duration) -> String {
    format!("{:.0}", d.as_secs_f64() * 1e6)
}

fn millis(d: Duration) -> String {
    format!("{:.1}", d.as_secs_f64() * 1e3)
}

/// Raises the open-file limit for the idle connections (both ends are in this process) and a margin.
fn ensure_fd_limit(load: &Load) -> anyhow::Result<()> {
    let limit = system::raise_fd_limit()?;
    let needed = load.idle_connections as u64 + 1000;
    anyhow::ensure!(limit >= needed, "the open-file limit is {limit}; {needed} are needed (raise `ulimit -Hn`)");
    Ok(())
}

async fn run(args: &Args) -> anyhow::Result<()> {
    ensure_fd_limit(&args.load)?;
    let kinds: &[Kind] = match args.relay {
        Which::Both => &[Kind::Baseline, Kind::Fairdeck],
        Which::Fairdeck => &[Kind::Fairdeck],
        Which::Baseline => &[Kind::Baseline],
    };
    let mut results = Vec::new();
    for &kind in kinds {
        eprintln!("loading the {kind:?} relay…");
        results.push((kind, measure(kind, args).await.with_context(|| format!("{kind:?} relay"))?));
    }
    print_report(args, &results);
    Ok(())
}

/// A line of the report: its label and how to compute it from a relay's figures.
type ReportRow = (&'static str, Box<dyn Fn(&Figures) -> String>);

fn print_report(args: &Args, results: &[(Kind, Figures)]) {
    let name = |kind: Kind| match kind {
        Kind::Baseline => "baseline",
        Kind::Fairdeck => "fairdeck-relay",
    };
    println!(
        "Load: {size}-byte messages over loopback; 1 pair × {lat} round trips; {pairs} pairs × {rt} round trips; \
         {sp} streaming pairs × {sm} messages (window {WINDOW}); {idle} idle connections.\n",
        size = args.load.size,
        lat = args.load.latency_round_trips,
        pairs = args.load.pairs,
        rt = args.load.round_trips,
        sp = args.stream_pairs,
        sm = args.stream_messages,
        idle = args.load.idle_connections,
    );
    print!("| figure |");
    for (kind, _) in results {
        print!(" {} |", name(*kind));
    }
    println!("\n|---|{}", "---|".repeat(results.len()));
    let rows: Vec<ReportRow> = vec![
        ("1 pair ping-pong, relayed msg/s", Box::new(|f| format!("{:.0}", f.latency_rate))),
        (
            "1 pair round trip p50 / p90 / p99 (µs)",
            Box::new(|f| {
                format!(
                    "{} / {} / {}",
                    micros(percentile(&f.latency, 0.5)),
                    micros(percentile(&f.latency, 0.9)),
                    micros(percentile(&f.latency, 0.99))
                )
            }),
        ),
        ("concurrent ping-pong, relayed msg/s", Box::new(|f| format!("{:.0}", f.load_rate))),
        (
            "concurrent round trip p50 / p90 / p99 (ms)",
            Box::new(|f| {
                format!(
                    "{} / {} / {}",
                    millis(percentile(&f.load_latency, 0.5)),
                    millis(percentile(&f.load_latency, 0.9)),
                    millis(percentile(&f.load_latency, 0.99))
                )
            }),
        ),
        ("concurrent ping-pong, relay CPU µs/msg", Box::new(|f| format!("{:.1}", f.load_cpu_us_per_message))),
        ("streaming, relayed msg/s", Box::new(|f| format!("{:.0}", f.stream_rate))),
        ("streaming, relay CPU µs/msg", Box::new(|f| format!("{:.1}", f.stream_cpu_us_per_message))),
        (
            "idle connections: relay memory per connection (KiB)",
            Box::new(|f| format!("{:.1}", f.idle_kib_per_connection)),
        ),
        ("idle connections: relay RSS (MiB)", Box::new(|f| format!("{:.0}", f.idle_rss_kib as f64 / 1024.0))),
        ("idle connections: time to open them (s)", Box::new(|f| format!("{:.1}", f.idle_open_time.as_secs_f64()))),
        (
            "machine CPU outside relay and tool: kernel networking, other load (s)",
            Box::new(|f| format!("{:.1}", f.other_cpu_seconds)),
        ),
    ];
    for (label, value) in rows {
        print!("| {label} |");
        for (_, figures) in results {
            print!(" {} |", value(figures));
        }
        println!();
    }
    let baseline = results.iter().find(|(k, _)| *k == Kind::Baseline).map(|(_, f)| f);
    let ours = results.iter().find(|(k, _)| *k == Kind::Fairdeck).map(|(_, f)| f);
    if let (Some(base), Some(ours)) = (baseline, ours) {
        let ratio = |a: f64, b: f64| if b > 0.0 { 100.0 * a / b } else { 0.0 };
        let load = ratio(ours.load_rate, base.load_rate);
        let streamed = ratio(ours.stream_rate, base.stream_rate);
        println!();
        println!("Goals:");
        println!(
            "- throughput ≥ 80 % of the baseline: concurrent ping-pong {load:.0} %, streaming {streamed:.0} % — {}",
            if load >= 80.0 && streamed >= 80.0 { "met" } else { "NOT met" }
        );
        println!(
            "- ≤ 16 KiB of relay memory per idle connection: {:.1} KiB — {}",
            ours.idle_kib_per_connection,
            if ours.idle_kib_per_connection <= 16.0 { "met" } else { "NOT met" }
        );
        println!(
            "- {} concurrent connections: held — {}",
            args.load.idle_connections,
            if args.load.idle_connections >= 10_000 { "met" } else { "not tried at 10,000" }
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Serves `kind` in this process; its address.
    async fn relay_here(kind: Kind, data_dir: &std::path::Path) -> SocketAddr {
        match kind {
            Kind::Fairdeck => {
                let mut relay = loaded_relay(data_dir).await.unwrap();
                let addr = relay.bind().await.unwrap();
                tokio::spawn(relay.serve());
                addr
            }
            Kind::Baseline => {
                let (tx, rx) = tokio::sync::oneshot::channel();
                tokio::spawn(baseline::serve(move |addr| {
                    let _ = tx.send(addr);
                }));
                rx.await.unwrap()
            }
        }
    }

    #[tokio::test]
    async fn pairs_opened_through_either_relay_ping_pong_and_stream() {
        for kind in [Kind::Baseline, Kind::Fairdeck] {
            let dir = tempfile::tempdir().unwrap();
            let addr = relay_here(kind, dir.path()).await;
            let pairs = open_pairs(kind, &|_| (addr, addr), 3).await.unwrap();
            let (_, times) = ping_pong(pairs, 4, 100).await.unwrap();
            assert_eq!(times.len(), 3 * 4, "{kind:?}");
            let pairs = open_pairs(kind, &|_| (addr, addr), 2).await.unwrap();
            assert!(stream(pairs, 300, 100).await.unwrap() > 0.0, "{kind:?}");
        }
    }
}
