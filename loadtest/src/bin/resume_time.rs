//! `fairdeck-resume-time`: how long `fairdeck resume` takes to bring a game back, as a player sees it.
//!
//! A real relay on loopback and two real `fairdeck --script` processes with 60-card decks play half a game (each
//! draws `--draws` cards one at a time). Then, `--runs` times, the guest is killed with SIGKILL and started again
//! with `fairdeck resume`; a run is timed from starting the process until the game is ready again: the guest
//! answers a `wait` with `idle`, which needs its engine rebuilt from the saved journal (every proof of the game
//! verified again), its seat back at the relay, and both channels settled. The save file's size is printed too.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::bail;
use clap::Parser;
use fairdeck_e2e::{Player, Relay, deck, fairdeck_binary};
use fairdeck_relay_load::percentile;

/// Time from `fairdeck resume` to the table being ready again, for a 60-card game halfway through.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Args {
    /// Cards each player draws before the crashes (half a 60-card library by default).
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u32).range(0..=60))]
    draws: u32,
    /// Crashes and resumes timed.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..))]
    runs: u32,
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("fairdeck-resume-time: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &Args) -> anyhow::Result<()> {
    fairdeck_binary();
    let relay = Relay::start();
    let burn = deck("burn.txt");
    let mut host = Player::spawn_with_deck("host", &relay, &burn, &["host"]);
    let code = host.expect_event("code")["code"].as_str().unwrap_or_default().to_string();
    let mut guest = Player::spawn_with_deck("guest", &relay, &burn, &["join", &code]);
    for player in [&mut host, &mut guest] {
        player.expect_event("ready");
    }
    for _ in 0..args.draws {
        for player in [&mut host, &mut guest] {
            player.send("draw 1");
            player.wait_idle();
        }
    }
    host.wait_idle();

    let mut times = Vec::new();
    for _ in 0..args.runs {
        guest.kill();
        let started = Instant::now();
        let mut back = Player::resume("guest", guest.data(), &[]);
        back.wait_idle();
        times.push(started.elapsed());
        guest = back;
        host.wait_idle();
    }
    let Some(save) = guest.saves().into_iter().next() else { bail!("the guest saved no game") };
    let bytes = std::fs::metadata(&save)?.len();
    for player in [&mut host, &mut guest] {
        player.send("quit");
    }
    for player in [&mut host, &mut guest] {
        if !player.wait_exit().success() {
            bail!("a player did not exit cleanly");
        }
    }
    times.sort();
    let ms = |d: Duration| format!("{:.0}", d.as_secs_f64() * 1e3);
    println!(
        "resume of a 60-card game after {} draws each: save file {} KiB; {} runs",
        args.draws,
        bytes / 1024,
        args.runs
    );
    println!("| min | p50 | max (ms) |");
    println!("|---:|---:|---:|");
    println!("| {} | {} | {} |", ms(times[0]), ms(percentile(&times, 0.5)), ms(times[times.len() - 1]));
    Ok(())
}
