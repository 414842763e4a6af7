//! What the command-line tests share: fairdeck run as a user would, with its own data folder.

// Each test crate compiles this module and uses a part of it.
#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Output};

/// fairdeck with the data folder `data`: its card database, saves and configuration live there, and nowhere
/// else (`HOME` too; the variables that would name the user's configuration instead are removed).
pub fn command_in(data: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_fairdeck"));
    command
        .env("XDG_DATA_HOME", data)
        .env("HOME", data)
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("FAIRDECK_CONFIG")
        .env_remove("FAIRDECK_RELAY");
    command
}

/// fairdeck run to its end with `args`, in the data folder `data` ([`command_in`]).
pub fn fairdeck_in(data: &Path, args: &[&str]) -> Output {
    command_in(data).args(args).output().expect("run fairdeck")
}
