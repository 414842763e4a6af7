//! `fairdeck-relay`: parses flags, sets up logging, and runs the library's relay (or prints statistics).

mod args;
mod listing;

use std::io::IsTerminal;
use std::process::ExitCode;

use anyhow::Context;
use clap::Parser;
use fairdeck_relay::{Limits, Relay, RoomResult, StatsStore, Summary, descriptors, note_process_start};

use args::{Args, Command, LogFormat};

fn main() -> ExitCode {
    note_process_start();
    let args = Args::parse();
    init_tracing(args.log_format);
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("fairdeck-relay: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(async {
        match args.command {
            Some(Command::Stats { hours }) => print_stats(&args, hours).await,
            Some(Command::Rooms) => print_rooms(&args).await,
            Some(Command::Serve) | None => serve(&args).await,
        }
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("fairdeck-relay: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn init_tracing(format: LogFormat) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    // Colours only on a terminal: a journal or a log file gets plain lines.
    let ansi = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    // A log line that cannot be written is dropped. (The default reports it with `eprintln!`, which panics when
    // standard error is gone, e.g. a closed pipe: the task that logged, such as the one handling SIGTERM, dies.)
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(ansi)
        .log_internal_errors(false);
    match format {
        LogFormat::Text => builder.init(),
        LogFormat::Json => builder.json().init(),
    }
}

async fn serve(args: &Args) -> anyhow::Result<()> {
    let data_dir = args.data_dir();
    let mut builder =
        Relay::builder(args.listen, &data_dir).limits(limits(args)?).trust_forwarded_for(args.trust_forwarded_for);
    if let Some(url) = &args.database_url {
        builder = builder.database_url(url);
    }
    if let Some(file) = &args.refusal_list {
        builder = builder.refusal_list(file);
    }
    if let Some(url) = &args.redis_url {
        builder = builder.redis_url(url);
    }
    if let Some(url) = &args.advertise {
        builder = builder.advertise(url);
    }
    if let Some(token) = &args.operator_token {
        builder = builder.operator_token(token);
    }
    let mut relay = builder.build().await.context("cannot start the relay")?;
    let addr = relay.bind().await?;
    // Listen for SIGTERM before announcing the address, so that a stop right after the start is graceful too.
    let terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
    tracing::info!(%addr, data_dir = %data_dir.display(), stats_page = args.operator_token.is_some(), "relay listening");
    let shutdown = relay.shutdown_handle();
    tokio::spawn(async move {
        wait_for_signal(terminate).await;
        tracing::info!("shutting down: telling clients, handing rooms over");
        shutdown.shutdown();
    });
    relay.serve().await?;
    tracing::info!("stopped");
    Ok(())
}

/// The limits given, with the soft open-file limit raised to the hard one and the connection caps fitted under it.
fn limits(args: &Args) -> anyhow::Result<Limits> {
    let given = args.limits();
    let (open_files, error) = descriptors::raise_open_file_limit();
    if let Some(error) = error {
        tracing::info!(%error, "cannot raise the open-file limit to its hard ceiling");
    }
    let Some(open_files) = open_files else { return Ok(given) };
    let fitted = descriptors::fit(given.clone(), open_files)?;
    if fitted != given {
        tracing::warn!(
            open_files,
            max_handshakes = fitted.max_handshakes,
            max_connections = fitted.max_connections,
            "connection caps lowered to fit the open-file limit"
        );
    }
    Ok(fitted)
}

async fn wait_for_signal(terminate: Option<tokio::signal::unix::Signal>) {
    match terminate {
        Some(mut terminate) => {
            tokio::select! {
                _ = terminate.recv() => {}
                _ = tokio::signal::ctrl_c() => {}
            }
        }
        None => {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}

async fn print_rooms(args: &Args) -> anyhow::Result<()> {
    let token = args.operator_token.as_deref().context(
        "listing rooms needs the relay's operator token (FAIRDECK_RELAY_OPERATOR_TOKEN, as in /etc/fairdeck-relay/env)",
    )?;
    let (instance, rooms) = listing::fetch(args.listen, token).await?;
    print!("{}", listing::format(instance, &rooms));
    Ok(())
}

async fn print_stats(args: &Args, hours: u32) -> anyhow::Result<()> {
    let url = match &args.database_url {
        Some(url) => url.clone(),
        None => {
            let dir = args.data_dir();
            anyhow::ensure!(dir.join("stats.sqlite").exists(), "no statistics in {} yet", dir.display());
            StatsStore::sqlite_url(&dir)
        }
    };
    let store = StatsStore::connect(&url).await.context("cannot open the statistics database")?;
    let now_ms = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH)?.as_millis() as i64;
    let summary = store.summary(now_ms, hours).await?;
    print!("{}", format_summary(&summary, hours));
    Ok(())
}

fn format_summary(summary: &Summary, hours: u32) -> String {
    let mut text = format!("Rooms ended in the last {hours} h: {}\n", summary.rooms);
    text.push_str(&format!("Frames relayed: {}  Bytes relayed: {}\n\nBy result:\n", summary.frames, summary.bytes));
    for result in RoomResult::ALL {
        let count = summary.results.get(result.as_str()).copied().unwrap_or(0);
        let result = result.as_str();
        let share = if summary.rooms > 0 { 100.0 * count as f64 / summary.rooms as f64 } else { 0.0 };
        text.push_str(&format!("  {result:<8} {count:>8}  {share:5.1} %\n"));
    }
    text.push_str("\nRoom durations:\n");
    for (label, count) in &summary.durations {
        text.push_str(&format!("  {label:<10} {count:>8}\n"));
    }
    text.push_str("\nWaiting time until the second player:\n");
    for (label, count) in &summary.waiting {
        text.push_str(&format!("  {label:<10} {count:>8}\n"));
    }
    text
}
