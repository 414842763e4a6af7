//! `fairdeck-draw-latency`: how long one draw takes through a local relay, as a player sees it.
//!
//! A real relay on loopback (in this process, on its own runtime) and two real `fairdeck --script` processes,
//! each with a deck of `--cards` cards. Once both libraries are shuffled, each player in turn, after a pause of
//! 100 ms, draws one card at a time; a draw is timed from writing `draw 1` to the drawer's standard input until
//! the drawer prints the `learned` event that names the card. That covers both engines' CPU (the request, the
//! opponent's strip and its proof, its verification, the drawer's own strip and its catalogue lookup), the
//! end-to-end encryption, two hops through the relay per message and the pipes to this tool. The guest's draw is
//! a proposal the host accepts first, so it is reported apart. CPU per draw is read from /proc for both players
//! and for this process (the relay and the tool's reader threads).

use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::bail;
use clap::Parser;
use fairdeck_e2e::{Player, Relay, fairdeck_binary};
use fairdeck_relay_load::{percentile, system};

/// Draw latency through a local relay: two real fairdeck processes, one card at a time.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Args {
    /// Cards in each player's deck (library only; at most 1000).
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..=1000))]
    cards: u32,
    /// Timed draws for each player.
    #[arg(long, default_value_t = 500)]
    draws: u32,
    /// Untimed draws for each player before the timed ones.
    #[arg(long, default_value_t = 10)]
    warmup: u32,
}

/// How long the players pause before each one's draws.
const PAUSE: Duration = Duration::from_millis(100);

/// One player's timed draws and what they cost in CPU.
struct Figures {
    drawer: &'static str,
    latencies: Vec<Duration>,
    /// CPU seconds spent during the timed draws by the host, the guest, and this process.
    cpu: [f64; 3],
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("fairdeck-draw-latency: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &Args) -> anyhow::Result<()> {
    if args.cards < args.warmup + args.draws {
        bail!("{} warm-up and {} timed draws need at least as many cards, not {}", args.warmup, args.draws, args.cards);
    }
    let dir = tempfile::tempdir()?;
    let deck = dir.path().join("draw-latency.txt");
    let lines: Vec<String> = (1..=args.cards).map(|n| format!("1 Latency Card {n:04}")).collect();
    std::fs::write(&deck, lines.join("\n"))?;

    // Built (or found fresh) before the clock starts: the set-up time is the game's alone.
    fairdeck_binary();
    let relay = Relay::start();
    let started = Instant::now();
    let mut host = Player::spawn_with_deck("host", &relay, &deck, &["host"]);
    let code = host.expect_event("code")["code"].as_str().unwrap_or_default().to_string();
    let mut guest = Player::spawn_with_deck("guest", &relay, &deck, &["join", &code]);
    for player in [&mut host, &mut guest] {
        player.expect_event("ready");
    }
    let setup = started.elapsed();

    let mut figures = Vec::new();
    for drawer in ["host", "guest"] {
        for player in [&mut host, &mut guest] {
            player.wait_idle();
        }
        // A pause, as players make between turns: the clients make room ahead in their saves once the game has
        // been quiet for 20 ms (docs/CLIENT.md, "Saved games"), enough for the draws that follow.
        std::thread::sleep(PAUSE);
        let pids = [host.pid(), guest.pid(), std::process::id()];
        let player = if drawer == "host" { &mut host } else { &mut guest };
        draws(player, args.warmup);
        let cpu_before = pids.map(|pid| system::cpu_seconds(pid).unwrap_or(0.0));
        let mut latencies = draws(player, args.draws);
        let cpu_after = pids.map(|pid| system::cpu_seconds(pid).unwrap_or(0.0));
        latencies.sort();
        let cpu = [0, 1, 2].map(|i| cpu_after[i] - cpu_before[i]);
        figures.push(Figures { drawer, latencies, cpu });
    }
    for player in [&mut host, &mut guest] {
        player.send("quit");
    }
    for player in [&mut host, &mut guest] {
        if !player.wait_exit().success() {
            bail!("a player did not exit cleanly");
        }
    }

    println!(
        "draw latency through a local relay: two {}-card decks, {} timed draws each after {} untimed; set-up {:.1} s",
        args.cards,
        args.draws,
        args.warmup,
        setup.as_secs_f64()
    );
    println!("| drawer | min | p50 | p90 | p99 | max (ms) | CPU per draw: host / guest / relay and tool (ms) |");
    println!("|---|---:|---:|---:|---:|---:|---|");
    for f in &figures {
        let at = |p: f64| millis(percentile(&f.latencies, p));
        let per_draw = f.cpu.map(|seconds| format!("{:.2}", seconds * 1e3 / f64::from(args.draws)));
        println!(
            "| {} | {} | {} | {} | {} | {} | {} |",
            f.drawer,
            at(0.0),
            at(0.5),
            at(0.9),
            at(0.99),
            at(1.0),
            per_draw.join(" / ")
        );
    }
    Ok(())
}

/// Draws `count` cards one at a time; each latency runs from the command to the drawer's `learned` event.
fn draws(drawer: &mut Player, count: u32) -> Vec<Duration> {
    (0..count)
        .map(|_| {
            let sent = Instant::now();
            drawer.send("draw 1");
            drawer.expect("the drawn card", |event| event["event"] == "learned");
            sent.elapsed()
        })
        .collect()
}

fn millis(duration: Duration) -> String {
    format!("{:.3}", duration.as_secs_f64() * 1e3)
}
