//! `fairdeck-relay-load soak`: games through `fairdeck-relay` instances sharing a `redis-server`, while the
//! instances are killed with SIGKILL and started again at random, and Redis is killed and started again once.
//! Each game is two protocol-level players (`fairdeck_relay_load::player`) that connect to instances picked at
//! random, send numbered frames both ways and take their seats back as the client does. At the end the games
//! stop sending, finish what is in flight, and the tool counts games lost and false alerts; it keeps the relays'
//! logs when there is any.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::Context;
use fairdeck_relay_load::cluster::Cluster;
use fairdeck_relay_load::player::{Alerts, Clock, Counts, Ending, Game, Report, between, open_game};
use futures_util::StreamExt;

/// Games set up at once.
const SETUP_CONCURRENCY: usize = 16;
/// How long the players get, once the games stop, to finish what is in flight: an instance's lease (6 s) and
/// the client's longest backoff, many times over.
const DRAIN: Duration = Duration::from_secs(120);
/// Time for starting the cluster and setting up the games, beyond `--minutes` and [`DRAIN`].
const SETUP_TIME: Duration = Duration::from_secs(180);

#[derive(Debug, clap::Args)]
pub struct Soak {
    /// Concurrent games.
    #[arg(long, default_value_t = 100)]
    games: u32,
    /// How long the games play while instances and Redis are killed, in minutes.
    #[arg(long, default_value_t = 10.0)]
    minutes: f64,
    /// Relay instances sharing Redis.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u16).range(2..))]
    instances: u16,
    /// Mean time between two frames of one player, in milliseconds.
    #[arg(long, default_value_t = 500)]
    interval_ms: u64,
    /// Mean time between two kills of an instance, in seconds (each kill is at a random moment around it).
    #[arg(long, default_value_t = 30)]
    kill_every: u64,
}

/// What was done to the cluster, and when, from the start of the games.
type Timeline = Arc<Mutex<Vec<(Duration, String)>>>;

pub async fn run(args: &Soak) -> anyhow::Result<()> {
    fairdeck_relay_load::system::raise_open_files(0);
    let playing = Duration::from_secs_f64(args.minutes * 60.0);
    eprintln!("starting redis-server and {} fairdeck-relay instances…", args.instances);
    let cluster = Arc::new(tokio::sync::Mutex::new(Cluster::start(usize::from(args.instances)).await?));
    let timeline = Timeline::default();
    let bound = SETUP_TIME + playing + DRAIN;
    let outcome = tokio::time::timeout(bound, soak(args, &cluster, &timeline, playing)).await;
    if !matches!(outcome, Ok(Ok(_))) {
        print_timeline(&timeline);
    }
    let mut cluster = cluster.lock().await;
    let metrics = instance_metrics(&cluster).await;
    let result = match outcome {
        Ok(Ok(reports)) => summary(args, &reports, &timeline, &metrics),
        Ok(Err(error)) => Err(error),
        Err(_) => Err(anyhow::anyhow!("the soak did not end within {bound:?}")),
    };
    if result.is_err() {
        let dir = cluster.keep_dir()?;
        println!("\nThe relays' and Redis's logs are kept in {}", dir.display());
    }
    result
}

/// Sets up the games, plays them while the chaos runs, stops them and waits for every player's report.
async fn soak(
    args: &Soak,
    cluster: &Arc<tokio::sync::Mutex<Cluster>>,
    timeline: &Timeline,
    playing: Duration,
) -> anyhow::Result<Vec<[Report; 2]>> {
    let urls = Arc::new(cluster.lock().await.instances.iter().map(|instance| instance.url()).collect::<Vec<_>>());
    eprintln!("setting up {} games…", args.games);
    let games: Vec<_> = futures_util::stream::iter(0..args.games)
        .map(|number| open_game(Game::new(number), urls.clone()))
        .buffer_unordered(SETUP_CONCURRENCY)
        .collect()
        .await;
    let clock = Clock::new();
    let interval = Duration::from_millis(args.interval_ms);
    let mut players = Vec::new();
    for game in games {
        let [(host, host_ws), (guest, guest_ws)] = game.context("setting up a game (before any kill)")?;
        players.push((
            tokio::spawn(host.play(host_ws, clock.clone(), interval)),
            tokio::spawn(guest.play(guest_ws, clock.clone(), interval)),
        ));
    }
    eprintln!("playing for {playing:?} while instances and Redis are killed…");
    let start = Instant::now();
    chaos(args, cluster, timeline, start, start + playing).await?;
    {
        // Every process runs again (the chaos restarts what it kills); the games finish once all say Redis is up.
        let cluster = cluster.lock().await;
        cluster.wait_joined().await?;
    }
    note(timeline, start, "the games stop sending new frames and finish what is in flight".into());
    eprintln!("finishing what is in flight…");
    clock.stop(DRAIN);
    let mut reports = Vec::new();
    for (host, guest) in players {
        reports.push([host.await?, guest.await?]);
    }
    note(timeline, start, "every game ended".into());
    Ok(reports)
}

fn note(timeline: &Timeline, start: Instant, what: String) {
    timeline.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push((start.elapsed(), what));
}

/// Until `until`: kills an instance picked at random about every `--kill-every` seconds and starts it again
/// 1 to 5 s later; once, at a random moment of the middle of the run, kills Redis and starts it again 1 to 4 s
/// later (empty: it keeps nothing on disk).
async fn chaos(
    args: &Soak,
    cluster: &tokio::sync::Mutex<Cluster>,
    timeline: &Timeline,
    start: Instant,
    until: Instant,
) -> anyhow::Result<()> {
    let playing = until - start;
    let mut redis_at = Some(start + between(playing * 3 / 10, playing * 6 / 10));
    let mean = Duration::from_secs(args.kill_every);
    let mut next_kill = Instant::now() + between(mean / 2, mean * 3 / 2);
    loop {
        let next = redis_at.map_or(next_kill, |at| at.min(next_kill));
        if next >= until {
            tokio::time::sleep_until(until.into()).await;
            return Ok(());
        }
        tokio::time::sleep_until(next.into()).await;
        let mut cluster = cluster.lock().await;
        if redis_at.take_if(|at| *at <= next_kill).is_some() {
            cluster.redis.kill()?;
            note(timeline, start, "SIGKILL redis-server".into());
            tokio::time::sleep(between(Duration::from_secs(1), Duration::from_secs(4))).await;
            cluster.redis.start_again().await?;
            note(timeline, start, "redis-server started again, empty".into());
            continue;
        }
        let instance = &mut cluster.instances[rand::random::<u64>() as usize % usize::from(args.instances)];
        instance.kill()?;
        note(timeline, start, format!("SIGKILL instance {}", instance.number));
        tokio::time::sleep(between(Duration::from_secs(1), Duration::from_secs(5))).await;
        instance.start_again().await?;
        note(timeline, start, format!("instance {} started again", instance.number));
        next_kill = Instant::now() + between(mean / 2, mean * 3 / 2);
    }
}

/// Each instance's cluster counters, since its last start.
async fn instance_metrics(cluster: &Cluster) -> Vec<String> {
    let mut lines = Vec::new();
    for instance in &cluster.instances {
        let mut line = format!("instance {}:", instance.number);
        for name in ["redis_up", "links_total", "unlocated_total", "adoptions_total"] {
            let value = match instance.metric(&format!("fairdeck_relay_cluster_{name}")).await {
                Ok(Some(value)) => format!("{value}"),
                Ok(None) => "absent".into(),
                Err(error) => format!("unreadable ({error})"),
            };
            line.push_str(&format!(" {name} {value}"));
        }
        lines.push(line);
    }
    lines
}

fn print_timeline(timeline: &Timeline) {
    println!("\nWhat was done to the cluster (seconds from the start of the games):");
    for (at, what) in timeline.lock().unwrap_or_else(std::sync::PoisonError::into_inner).iter() {
        println!("- {:7.1} s: {what}", at.as_secs_f64());
    }
}

/// The link events of both players of every game lost or alerted, to read beside the relays' logs.
fn print_journals(reports: &[[Report; 2]]) {
    let troubled = |game: &[Report; 2]| {
        game.iter().any(|report| matches!(report.ending, Ending::Lost(_)) || report.alerts.total() > 0)
    };
    for (number, game) in reports.iter().enumerate().filter(|(_, game)| troubled(game)) {
        for report in game {
            println!("\nGame {number}, seat {}: its latest link events", report.seat);
            for (at, event) in &report.journal {
                println!("- {}: {event}", humantime::format_rfc3339_millis(*at));
            }
        }
    }
}

/// Prints the summary; `Err` if any game was lost or any alert raised.
fn summary(args: &Soak, reports: &[[Report; 2]], timeline: &Timeline, metrics: &[String]) -> anyhow::Result<()> {
    let (mut alerts, mut counts) = (Alerts::default(), Counts::default());
    let mut lost = Vec::new();
    let mut alerted = Vec::new();
    for (number, game) in reports.iter().enumerate() {
        for report in game {
            alerts.add(&report.alerts);
            counts.add(&report.counts);
            if report.alerts.total() > 0 {
                alerted.push(format!("game {number}, seat {}: {:?}; {:?}", report.seat, report.alerts, report.counts));
            }
        }
        let reasons: Vec<String> = game
            .iter()
            .filter_map(|report| match &report.ending {
                Ending::Lost(reason) => Some(format!("seat {}: {reason}", report.seat)),
                Ending::Finished => None,
            })
            .collect();
        if !reasons.is_empty() {
            lost.push(format!("game {number}: {}", reasons.join("; ")));
        }
    }
    let kills = timeline
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .iter()
        .filter(|(_, what)| what.starts_with("SIGKILL instance"))
        .count();
    println!(
        "Soak: {} games through {} fairdeck-relay instances sharing one redis-server, {} min of play (a frame every \
         {} ms on average from each player), {kills} instance kills (about one every {} s), Redis killed once.\n",
        reports.len(),
        args.instances,
        args.minutes,
        args.interval_ms,
        args.kill_every,
    );
    println!("| games | finished | lost | false alerts | frames delivered |");
    println!("|---:|---:|---:|---:|---:|");
    println!(
        "| {} | {} | {} | {} | {} |",
        reports.len(),
        reports.len() - lost.len(),
        lost.len(),
        alerts.total(),
        counts.delivered
    );
    println!("\nFalse alerts by kind: {alerts:?}");
    println!(
        "What the players went through (both seats of every game): {} dropped connections, {} resumed by token, \
         {} bad_token then rendezvous ({} met), {} peer_back or paired again, {} peer_gone, {} frames dropped as \
         not_paired, {} frames resent, {} repeats dropped by number, {} frames held ahead of their turn; the longest \
         time without a seat {:.1} s.",
        counts.drops,
        counts.resumes,
        counts.bad_tokens,
        counts.rendezvous,
        counts.peer_backs,
        counts.peer_gone,
        counts.not_paired,
        counts.resent,
        counts.repeats,
        counts.ahead,
        counts.longest_outage.as_secs_f64(),
    );
    println!("Counters at the end, since each instance's last start: {}", metrics.join("; "));
    print_timeline(timeline);
    for line in lost.iter().chain(&alerted) {
        println!("- {line}");
    }
    print_journals(reports);
    anyhow::ensure!(
        lost.is_empty() && alerts.total() == 0,
        "{} games lost, {} false alerts",
        lost.len(),
        alerts.total()
    );
    Ok(())
}
