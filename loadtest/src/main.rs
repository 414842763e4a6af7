//! `fairdeck-relay-load`: runs the same load against `fairdeck-relay` and a minimal baseline relay, each in its
//! own child process on loopback, and reports messages per second, round-trip latency percentiles, relay CPU per
//! message and relay memory per idle connection. Every loop is bounded in count, and the whole run in time.
//! `fairdeck-relay-load cluster` measures `fairdeck-relay` processes sharing a `redis-server`, and
//! `fairdeck-relay-load soak` plays games through them while instances and Redis are killed. Idle connections are
//! held by child processes of the tool (`idle`), from several loopback addresses (`system::Sources`), so that
//! neither the tool's open-file limit nor the ephemeral ports bound their count: the relay's own limit does.

mod baseline;
mod cluster_figures;
mod idle;
mod soak;

use std::net::SocketAddr;
use std::ops::Range;
use std::process::{Child, ChildStdout, Command as Process, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use clap::{Parser, Subcommand, ValueEnum};
use fairdeck_relay::{Limits, Relay, descriptors};
use fairdeck_relay_load::ws::{Ws, connect_from, field, next_binary, next_text, to_all, until_paired};
use fairdeck_relay_load::{percentile, system};
use futures_util::{SinkExt, StreamExt, TryStreamExt};
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
    /// Idle connections held to measure memory (half as many pairs). One relay process holds at most what its
    /// open-file limit allows (the tool says so before it starts).
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
    /// Holds idle pairs for the tool (used by the tool itself for its child processes).
    #[command(hide = true)]
    Hold(idle::Hold),
    /// fairdeck-relay processes sharing a redis-server: the extra latency of a frame between two instances,
    /// ping-pong through both against one, and idle connections held by all of them.
    Cluster(cluster_figures::ClusterLoad),
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

impl Kind {
    /// Its `--kind` value, for the child processes.
    fn arg(self) -> &'static str {
        match self {
            Kind::Baseline => "baseline",
            Kind::Fairdeck => "fairdeck",
        }
    }
}

/// Unacknowledged messages a streaming sender may have in flight, and how often the receiver acknowledges.
const WINDOW: usize = 128;
const ACK_EVERY: usize = 32;
/// Connections opened at once.
const CONNECT_CONCURRENCY: usize = 64;
/// The longest a pair may take to open, however loaded the relay.
const PAIR_PATIENCE: Duration = Duration::from_secs(60);

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
        Some(Command::Hold(hold)) => runtime.block_on(idle::hold(hold)),
        Some(Command::Soak(soak)) => runtime.block_on(soak::run(soak)),
        Some(Command::Cluster(cluster)) => {
            runtime.block_on(within_time_limit(&cluster.load, cluster_figures::run(cluster)))
        }
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
    let open_files = system::raise_open_files(0);
    std::thread::spawn(|| {
        let _ = std::io::copy(&mut std::io::stdin(), &mut std::io::sink());
        std::process::exit(0);
    });
    let announce = |addr: SocketAddr| println!("LISTENING {addr}");
    match kind {
        Kind::Baseline => baseline::serve(announce).await,
        Kind::Fairdeck => {
            let dir = tempfile::tempdir()?;
            let mut relay = loaded_relay(dir.path(), open_files).await?;
            announce(relay.bind().await?);
            relay.serve().await?;
            Ok(())
        }
    }
}

/// `fairdeck-relay`'s production limits, except those that would refuse a load generator opening tens of
/// thousands of connections from a few addresses: the per-address rate limits and connection cap, and the room
/// and connection counts (which the open-file limit bounds instead, as in production).
fn loaded_limits() -> Limits {
    Limits {
        rooms_per_minute: 0,
        joins_per_minute: 0,
        max_rooms: 100_000,
        max_connections: 200_000,
        connections_per_address: 0,
        ..Limits::default()
    }
}

/// `fairdeck-relay` on a loopback port with [`loaded_limits`], its connection caps fitted under `open_files`
/// descriptors as the relay program fits them.
async fn loaded_relay(data_dir: &std::path::Path, open_files: u64) -> anyhow::Result<Relay> {
    let limits = descriptors::fit(loaded_limits(), open_files)?;
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
        let mut child = Process::new(std::env::current_exe()?)
            .args(["serve", "--kind", kind.arg()])
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

/// Where pair `index`'s two players connect: the host (who creates the room) at relay `index mod n`, the guest at
/// the next one. So with one relay both are there; with two, every pair has a player on each, half of the rooms
/// on either. The baseline takes both players at the host's address.
fn place(relays: &[SocketAddr], index: usize) -> (SocketAddr, SocketAddr) {
    (relays[index % relays.len()], relays[(index + 1) % relays.len()])
}

/// Opens pair `index` through the relays and waits until both players are paired. Its connections come from the
/// pair's source address.
async fn open_pair(kind: Kind, relays: &[SocketAddr], index: usize) -> anyhow::Result<(Ws, Ws)> {
    let (host, guest) = place(relays, index);
    let source = system::Sources::of_machine().of_pair(index);
    match kind {
        Kind::Baseline => {
            let path = format!("/ws/room{index}");
            let mut a = connect_from(source, host, &path).await?;
            let mut b = connect_from(source, host, &path).await?;
            next_text(&mut a).await?;
            next_text(&mut b).await?;
            Ok((a, b))
        }
        Kind::Fairdeck => {
            let mut a = connect_from(source, host, "/v1").await?;
            next_text(&mut a).await?; // welcome
            a.send(Message::Text(r#"{"type":"create","client":"load"}"#.into())).await?;
            let nameplate = field(&next_text(&mut a).await?, "nameplate")?;
            let mut b = connect_from(source, guest, "/v1").await?;
            next_text(&mut b).await?; // welcome
            let join = format!(r#"{{"type":"join","nameplate":"{nameplate}","client":"load"}}"#);
            b.send(Message::Text(join.into())).await?;
            until_paired(&mut b).await?;
            until_paired(&mut a).await?;
            Ok((a, b))
        }
    }
}

/// Opens the pairs numbered `indices`, [`CONNECT_CONCURRENCY`] at a time; stops at the first that fails or is not
/// paired within [`PAIR_PATIENCE`] (a relay out of descriptors leaves connections unanswered in its backlog).
async fn open_pairs(kind: Kind, relays: &[SocketAddr], indices: Range<usize>) -> anyhow::Result<Vec<(Ws, Ws)>> {
    futures_util::stream::iter(indices)
        .map(|index| async move {
            tokio::time::timeout(PAIR_PATIENCE, open_pair(kind, relays, index))
                .await
                .with_context(|| format!("pair {index} was not paired within {PAIR_PATIENCE:?}"))?
                .with_context(|| format!("pair {index}"))
        })
        .buffer_unordered(CONNECT_CONCURRENCY)
        .try_collect()
        .await
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
                    a.send(to_all(&payload)).await?;
                    let echo = next_binary(&mut b).await?;
                    b.send(to_all(&echo)).await?;
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
                            b_tx.send(to_all(&(received as u64).to_le_bytes())).await?;
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
                                // The sender's seat, then the count.
                                Some(Ok(Message::Binary(ack))) if ack.len() == 9 => {
                                    acked = u64::from_le_bytes(ack[1..].try_into()?) as usize;
                                }
                                Some(Ok(Message::Ping(_) | Message::Pong(_))) => {}
                                other => bail!("stream sender got {other:?}"),
                            }
                        }
                        if sent < messages {
                            a_tx.send(to_all(&payload)).await?;
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

/// Holds `connections` idle connections (paired, one message each way) and returns the relay's resident memory
/// growth per connection in KiB, how long opening them took, and the relay's resident memory with them.
async fn idle_memory(server: &Server, connections: usize) -> anyhow::Result<(f64, Duration, u64)> {
    tokio::time::sleep(Duration::from_millis(300)).await;
    let before = system::rss_kib(server.pid())?;
    let held = idle::open_idle(server.kind, &[server.addr], connections).await?;
    let after = system::rss_kib(server.pid())?;
    let per_connection = after.saturating_sub(before) as f64 / held.connections as f64;
    Ok((per_connection, held.opened, after))
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

    let relays = [server.addr];
    let pairs = open_pairs(kind, &relays, 0..1).await?;
    (figures.latency_rate, figures.latency) = ping_pong(pairs, args.load.latency_round_trips, args.load.size).await?;

    let pairs = open_pairs(kind, &relays, 0..args.load.pairs).await?;
    let cpu = system::cpu_seconds(server.pid())?;
    (figures.load_rate, figures.load_latency) = ping_pong(pairs, args.load.round_trips, args.load.size).await?;
    let messages = (args.load.pairs * args.load.round_trips * 2) as f64;
    figures.load_cpu_us_per_message = (system::cpu_seconds(server.pid())? - cpu) * 1e6 / messages;

    let pairs = open_pairs(kind, &relays, 0..args.stream_pairs).await?;
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

/// What bounds the connections of a run: the open-file limit every process of it gets (the tool raises it for
/// itself and its children), and so the connections one relay process may hold, its caps fitted under that limit
/// as the relay program fits them.
#[derive(Debug, Clone, Copy)]
struct Capacity {
    open_files: u64,
    per_relay: usize,
}

/// Raises the open-file limit as far as a relay with `limits` holding `per_relay` connections needs (past the
/// hard limit only where the tool may), and checks that one can.
fn capacity(limits: Limits, per_relay: usize) -> anyhow::Result<Capacity> {
    // Enough for the connections, the handshakes and the process itself, generously.
    let wanted = (2 * per_relay as u64).max(per_relay as u64 + 4096);
    let open_files = system::raise_open_files(wanted);
    let capacity = Capacity { open_files, per_relay: descriptors::fit(limits, open_files)?.max_connections };
    anyhow::ensure!(
        capacity.per_relay >= per_relay,
        "{per_relay} connections on one relay process asked, but it holds at most {} here: under an open-file \
         limit of {open_files} (the hard limit, which this process may not raise without CAP_SYS_RESOURCE), less \
         what the relay keeps for itself and for handshakes. Ask for fewer, raise the hard limit (`ulimit -Hn` as \
         root, or systemd's LimitNOFILE), or spread them over instances (`fairdeck-relay-load cluster --instances \
         N`)",
        capacity.per_relay,
    );
    Ok(capacity)
}

async fn run(args: &Args) -> anyhow::Result<()> {
    let busiest = args.load.idle_connections.max(2 * args.load.pairs).max(2 * args.stream_pairs);
    let capacity = capacity(loaded_limits(), busiest)?;
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
    print_report(args, &results, capacity);
    Ok(())
}

/// What bounds the idle connections, as the report says it.
fn bounds(connections: usize, capacity: Capacity, relays: usize) -> String {
    let holders = idle::holders(connections);
    format!(
        "Idle connections: {connections} from {sources} loopback address(es), held by {holders} process(es) of the \
         tool; open-file limit {open_files} per process, so at most {per_relay} connections per relay process \
         ({relays} here).",
        sources = idle::source_addresses(connections),
        open_files = capacity.open_files,
        per_relay = capacity.per_relay,
    )
}

/// A line of the report: its label and how to compute it from a relay's figures.
type ReportRow = (&'static str, Box<dyn Fn(&Figures) -> String>);

fn print_report(args: &Args, results: &[(Kind, Figures)], capacity: Capacity) {
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
            "- concurrent ping-pong ≥ 95 % of the baseline in the same run: {load:.0} % (streaming {streamed:.0} %) \
             — {}",
            if load >= 95.0 { "met" } else { "NOT met" }
        );
        println!(
            "- ≤ 10 KiB of relay memory per idle connection: {:.1} KiB — {}",
            ours.idle_kib_per_connection,
            if ours.idle_kib_per_connection <= 10.0 { "met" } else { "NOT met" }
        );
        println!(
            "- 50,000 idle connections: {} held — {}",
            args.load.idle_connections,
            if args.load.idle_connections >= 50_000 { "met" } else { "not tried at 50,000" }
        );
    }
    println!("\n{}", bounds(args.load.idle_connections, capacity, 1));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Serves `kind` in this process; its address.
    async fn relay_here(kind: Kind, data_dir: &std::path::Path) -> SocketAddr {
        match kind {
            Kind::Fairdeck => {
                let mut relay = loaded_relay(data_dir, system::raise_open_files(0)).await.unwrap();
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
            let pairs = open_pairs(kind, &[addr], 0..3).await.unwrap();
            let (_, times) = ping_pong(pairs, 4, 100).await.unwrap();
            assert_eq!(times.len(), 3 * 4, "{kind:?}");
            let pairs = open_pairs(kind, &[addr], 0..2).await.unwrap();
            assert!(stream(pairs, 300, 100).await.unwrap() > 0.0, "{kind:?}");
        }
    }

    #[test]
    fn pairs_are_placed_on_one_relay_or_across_neighbours() {
        let relays: Vec<SocketAddr> = (1..=3).map(|port| SocketAddr::from(([127, 0, 0, 1], port))).collect();
        assert_eq!(place(&relays[..1], 5), (relays[0], relays[0]));
        assert_eq!(place(&relays[..2], 0), (relays[0], relays[1]));
        assert_eq!(place(&relays[..2], 1), (relays[1], relays[0]));
        assert_eq!(place(&relays, 2), (relays[2], relays[0]));
    }

    #[test]
    fn a_relay_process_is_asked_no_more_connections_than_its_open_file_limit_allows() {
        // Past the kernel's ceiling on any process's limit (`fs.nr_open`, at most 2^30), privileged or not.
        let error = capacity(loaded_limits(), 1 << 31).unwrap_err().to_string();
        assert!(error.contains("holds at most") && error.contains("--instances"), "{error}");
        let fits = capacity(loaded_limits(), 100).unwrap();
        assert!(fits.per_relay >= 100 && fits.open_files > 100);
    }
}
