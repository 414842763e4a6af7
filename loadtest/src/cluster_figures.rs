//! `fairdeck-relay-load cluster`: `fairdeck-relay` processes sharing a `redis-server`, all on loopback. The
//! extra latency of a frame between instances (one pair with both players on instance 1, then with the host on
//! instance 1 and the guest on instance 2), ping-pong of many pairs split across those two instances against the
//! same pairs on one, and idle connections held by every instance (on a fresh cluster, each pair's players on two
//! neighbouring instances, memory per connection on each): more than one process can hold.

use std::net::SocketAddr;
use std::time::Duration;

use fairdeck_relay_load::cluster::Cluster;
use fairdeck_relay_load::{percentile, system};

use crate::{Capacity, Kind, Load, bounds, capacity, idle, micros, millis, open_pairs, ping_pong};

/// The cluster's load: the ping-pong and idle figures', and how many instances hold the idle connections.
#[derive(Debug, clap::Args)]
pub struct ClusterLoad {
    #[command(flatten)]
    pub load: Load,
    /// Instances in the cluster (at least 2); the idle connections are spread over all of them.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u16).range(2..))]
    instances: u16,
}

/// The metric counting the connections an instance forwards to another one.
const LINKS: &str = "fairdeck_relay_cluster_links_total";

/// One way of placing the players: its round trips and what the instances did meanwhile.
#[derive(Default)]
struct Placement {
    latency: Vec<Duration>,
    rate: f64,
    load_latency: Vec<Duration>,
    cpu_us_per_message: f64,
    /// Connections the instances forwarded to each other during the ping-pong runs.
    links: f64,
}

/// The figures of the idle connections on one instance.
struct Idle {
    connections: usize,
    kib_per_connection: f64,
    rss_kib: u64,
}

pub async fn run(cluster_load: &ClusterLoad) -> anyhow::Result<()> {
    let (load, instances) = (&cluster_load.load, usize::from(cluster_load.instances));
    // Each instance holds its share of the idle players and as many ends of links: a guest on another instance
    // than its room's is forwarded there, a descriptor on each. Or all of the ping-pong's players on instance 1.
    let busiest = (2 * load.idle_connections).div_ceil(instances).max(2 * load.pairs);
    let capacity = capacity(Cluster::instance_limits(), busiest)?;
    eprintln!("starting redis-server and two fairdeck-relay instances…");
    let cluster = Cluster::start(2).await?;
    let (one, two) = (cluster.instances[0].addr(), cluster.instances[1].addr());
    eprintln!("both players on instance 1…");
    let alone = measure(&cluster, &[one], load).await?;
    eprintln!("host on one instance, guest on the other…");
    let split = measure(&cluster, &[one, two], load).await?;
    drop(cluster);

    eprintln!("holding {} idle connections on a fresh cluster of {instances}…", load.idle_connections);
    let cluster = Cluster::start(instances).await?;
    let addrs: Vec<SocketAddr> = cluster.instances.iter().map(|instance| instance.addr()).collect();
    let pids = pids(&cluster)?;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let before: Vec<u64> = pids.iter().map(|&pid| system::rss_kib(pid)).collect::<Result<_, _>>()?;
    // Pair i's host on instance i mod n, its guest on the next: each instance holds as many connections.
    let held = idle::open_idle(Kind::Fairdeck, &addrs, load.idle_connections).await?;
    let mut idle = Vec::new();
    for (number, (&pid, before)) in pids.iter().zip(before).enumerate() {
        let after = system::rss_kib(pid)?;
        let connections =
            (0..held.connections / 2).filter(|&i| [i % instances, (i + 1) % instances].contains(&number)).count();
        let kib_per_connection = after.saturating_sub(before) as f64 / connections.max(1) as f64;
        idle.push(Idle { connections, kib_per_connection, rss_kib: after });
    }
    let opened = held.opened;
    drop(held);
    print_report(load, &alone, &split, &idle, opened, capacity);
    Ok(())
}

fn pids(cluster: &Cluster) -> anyhow::Result<Vec<u32>> {
    cluster
        .instances
        .iter()
        .map(|instance| instance.pid().ok_or_else(|| anyhow::anyhow!("an instance is down")))
        .collect()
}

/// Sum of the forwarded connections counted by every instance.
async fn links(cluster: &Cluster) -> anyhow::Result<f64> {
    let mut total = 0.0;
    for instance in &cluster.instances {
        total += instance.metric(LINKS).await?.unwrap_or(0.0);
    }
    Ok(total)
}

/// One pair's round trips, then many pairs' ping-pong, with the players placed over `relays` (see `place`).
async fn measure(cluster: &Cluster, relays: &[SocketAddr], load: &Load) -> anyhow::Result<Placement> {
    let mut figures = Placement::default();
    let links_before = links(cluster).await?;
    let pairs = open_pairs(Kind::Fairdeck, relays, 0..1).await?;
    (_, figures.latency) = ping_pong(pairs, load.latency_round_trips, load.size).await?;

    let pairs = open_pairs(Kind::Fairdeck, relays, 0..load.pairs).await?;
    let pids = pids(cluster)?;
    let cpu = |pids: &[u32]| pids.iter().map(|&pid| system::cpu_seconds(pid)).sum::<Result<f64, _>>();
    let cpu_before = cpu(&pids)?;
    (figures.rate, figures.load_latency) = ping_pong(pairs, load.round_trips, load.size).await?;
    let messages = (load.pairs * load.round_trips * 2) as f64;
    figures.cpu_us_per_message = (cpu(&pids)? - cpu_before) * 1e6 / messages;
    figures.links = links(cluster).await? - links_before;
    Ok(figures)
}

fn print_report(
    load: &Load,
    alone: &Placement,
    split: &Placement,
    idle: &[Idle],
    opened: Duration,
    capacity: Capacity,
) {
    println!(
        "Cluster: fairdeck-relay instances sharing one redis-server on loopback; {size}-byte messages; 1 pair × \
         {lat} round trips; {pairs} pairs × {rt} round trips; {idle} idle connections.\n",
        size = load.size,
        lat = load.latency_round_trips,
        pairs = load.pairs,
        rt = load.round_trips,
        idle = load.idle_connections,
    );
    let round_trips = |times: &[Duration], unit: fn(Duration) -> String| {
        let at = |p| unit(percentile(times, p));
        format!("{} / {} / {}", at(0.5), at(0.9), at(0.99))
    };
    println!("| figure | both players on instance 1 | players on instances 1 and 2 |");
    println!("|---|---|---|");
    let row = |label: &str, value: &dyn Fn(&Placement) -> String| {
        println!("| {label} | {} | {} |", value(alone), value(split));
    };
    row("1 pair round trip p50 / p90 / p99 (µs)", &|f| round_trips(&f.latency, micros));
    row(&format!("{} pairs ping-pong, relayed msg/s", load.pairs), &|f| format!("{:.0}", f.rate));
    row("concurrent round trip p50 / p90 / p99 (ms)", &|f| round_trips(&f.load_latency, millis));
    row("relay CPU per message, both instances (µs)", &|f| format!("{:.1}", f.cpu_us_per_message));
    row("connections forwarded between instances", &|f| format!("{:.0}", f.links));
    println!();
    let numbers: String = (1..=idle.len()).map(|n| format!(" instance {n} |")).collect();
    println!("| idle connections |{numbers}");
    println!("|---|{}", "---|".repeat(idle.len()));
    let idle_row = |label: &str, value: &dyn Fn(&Idle) -> String| {
        println!("| {label} |{}", idle.iter().map(|i| format!(" {} |", value(i))).collect::<String>());
    };
    idle_row("players connected", &|i| i.connections.to_string());
    idle_row("relay memory per connection (KiB)", &|i| format!("{:.1}", i.kib_per_connection));
    idle_row("relay RSS (MiB)", &|i| format!("{:.0}", i.rss_kib as f64 / 1024.0));
    println!("\nOpening the {} idle connections took {:.1} s.", load.idle_connections, opened.as_secs_f64());
    println!("{}", bounds(load.idle_connections, capacity, idle.len()));

    let extra = |p| percentile(&split.latency, p).saturating_sub(percentile(&alone.latency, p));
    let ratio = if alone.rate > 0.0 { 100.0 * split.rate / alone.rate } else { 0.0 };
    println!("\nGoals:");
    println!(
        "- extra latency of a frame between instances, p99 under 1 ms: p50 +{} µs, p99 +{} µs — {}",
        micros(extra(0.5)),
        micros(extra(0.99)),
        if extra(0.99) < Duration::from_millis(1) { "met" } else { "NOT met" }
    );
    println!(
        "- ping-pong through two instances ≥ 80 % of one: {ratio:.0} % — {}",
        if ratio >= 80.0 { "met" } else { "NOT met" }
    );
}
