//! The `fairdeck watch` command as the program runs it: the configuration's relay and CA, a terminal for the
//! table (unless scripted), the runtime, and the exit code.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use super::error::WatchError;
use super::run::WatchOptions;
use crate::config;
use crate::session::{DEFAULT_RELAY, SessionError};

/// Runs `fairdeck watch CODE [--relay URL] [--ca FILE] [--script]` to its end: the exit code.
pub fn command(code: String, relay: Option<String>, ca: Option<PathBuf>, script: bool) -> ExitCode {
    match run(code, relay, ca, script) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("fairdeck: {error}");
            ExitCode::from(error.exit_code())
        }
    }
}

fn run(code: String, relay: Option<String>, ca: Option<PathBuf>, script: bool) -> Result<(), WatchError> {
    if !script {
        // A code that can never work is said before the screen is taken.
        crate::code::parse(&code).map_err(SessionError::BadCode)?;
        if !std::io::stdout().is_terminal() {
            let message = "standard output is not a terminal; use --script for JSON events";
            return Err(WatchError::Start(message.into()));
        }
    }
    let config = config::load_from_env().map_err(|error| WatchError::Start(error.to_string()))?;
    let relay = config::choose(relay, config.relay.as_deref(), DEFAULT_RELAY);
    let options = WatchOptions { code, relay, ca: ca.or(config.ca) };
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let result = if script {
        let input = tokio::io::BufReader::new(tokio::io::stdin());
        runtime.block_on(super::watch_script(options, input, std::io::stdout()))
    } else {
        runtime.block_on(super::screen::watch_screen(options))
    };
    // A read of standard input may still be blocked in tokio's thread pool: do not wait for it.
    runtime.shutdown_background();
    result
}
