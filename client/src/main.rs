//! The `fairdeck` command: thin wiring over the library.

use std::io::Write;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// fairdeck: a two-player card table where neither player has to trust the other, nor the server.
#[derive(Parser)]
#[command(name = "fairdeck", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Recompute fairdeck's public random numbers, so anyone can check a shuffle.
    #[command(subcommand)]
    Rng(RngCommand),
}

#[derive(Subcommand)]
enum RngCommand {
    /// Print the basic shuffle (seed 000, Appendix B, errata fixed) of the numbers 0 to N−1
    /// as a JSON array.
    Shuffle {
        /// The shared seed, in hex: Player 1's 32 bytes, then Player 2's.
        #[arg(long, value_name = "HEX")]
        shared_seed: String,
        /// The generator's state, in hex (32 bytes).
        #[arg(long, value_name = "HEX")]
        state: String,
        /// How many numbers to shuffle.
        #[arg(long, value_name = "N")]
        count: usize,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Rng(RngCommand::Shuffle { shared_seed, state, count }) => {
            fairdeck::rng::shuffle_json(&shared_seed, &state, count).and_then(|json| {
                let mut stdout = std::io::stdout().lock();
                writeln!(stdout, "{json}").map_err(anyhow::Error::from)
            })
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) if is_broken_pipe(&error) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("fairdeck: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.downcast_ref::<std::io::Error>().is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
}
