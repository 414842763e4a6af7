//! What the command-line tests share: fairdeck run as a user would, with its own data folder.

use std::path::Path;
use std::process::{Command, Output};

/// fairdeck run with the data folder `data` (its card database, saves and configuration live there, and nowhere
/// else: `HOME` too).
pub fn fairdeck_in(data: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fairdeck"))
        .args(args)
        .env("XDG_DATA_HOME", data)
        .env("HOME", data)
        .output()
        .expect("run fairdeck")
}
