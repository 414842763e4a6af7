//! The configuration file, as the real `fairdeck` binary reads it: `FAIRDECK_CONFIG` names a scratch file,
//! and the relays named are ports nothing listens on, so the error event says which relay was tried.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

const DECK: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/decks/burn.txt");

/// A relay URL nothing answers: bind a loopback port, note it, free it.
fn unreachable_relay() -> String {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    format!("ws://127.0.0.1:{port}/v1")
}

/// Runs `fairdeck ARGS` with this configuration file and no `FAIRDECK_RELAY` unless given.
fn fairdeck(config: &Path, relay_variable: Option<&str>, args: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_fairdeck"));
    command.args(args).env("FAIRDECK_CONFIG", config).env_remove("FAIRDECK_RELAY").stdin(Stdio::null());
    if let Some(relay) = relay_variable {
        command.env("FAIRDECK_RELAY", relay);
    }
    command.output().expect("run fairdeck")
}

/// The relay URL of the `unreachable` error event that ends a host's output.
fn tried_relay(output: &Output) -> String {
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    let last: Value = serde_json::from_str(stdout.lines().last().expect("an event")).unwrap();
    assert_eq!(last["kind"], "unreachable", "{stdout}");
    let message = last["message"].as_str().unwrap();
    let url = message.split_whitespace().find(|word| word.starts_with("ws://")).expect("a URL");
    url.trim_end_matches(':').to_string()
}

#[test]
fn the_file_names_the_relay_unless_the_variable_or_flag_does() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    let (from_file, from_variable, from_flag) = (unreachable_relay(), unreachable_relay(), unreachable_relay());
    std::fs::write(&config, format!("# my relay\nrelay = \"{from_file}\"\nname = \"Ada\"\n")).unwrap();
    let host = ["host", "--deck", DECK, "--script"];

    assert_eq!(tried_relay(&fairdeck(&config, None, &host)), from_file);
    assert_eq!(tried_relay(&fairdeck(&config, Some(&from_variable), &host)), from_variable);
    let with_flag = [&host[..], &["--relay", &from_flag]].concat();
    assert_eq!(tried_relay(&fairdeck(&config, Some(&from_variable), &with_flag)), from_flag);
}

#[test]
fn a_bad_file_is_an_error_naming_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    let host = ["host", "--deck", DECK, "--script", "--relay", "ws://127.0.0.1:9/v1"];
    for (text, says) in [
        ("relay = \"ws://127.0.0.1:9/v1\"\nrelya = \"ws://127.0.0.1:9/v1\"\n", "unknown field `relya`"),
        ("name = \"Ada\"\nrelay = ws://127.0.0.1:9/v1\n", "must be quoted"),
        ("name = \"Ada\"\nrelay = \"http://127.0.0.1:9/v1\"\n", "not a WebSocket URL"),
    ] {
        std::fs::write(&config, text).unwrap();
        // Even with --relay given: a broken file is reported, not skipped.
        let output = fairdeck(&config, None, &host);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{text}: {stderr}");
        assert!(stderr.contains(&format!("configuration file {}, line 2: ", config.display())), "{stderr}");
        assert!(stderr.contains(says), "{stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert!(output.stdout.is_empty(), "no game started");
    }

    let absent = dir.path().join("absent.toml");
    let output = fairdeck(&absent, None, &host);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains(&format!("{} (named by FAIRDECK_CONFIG) does not exist", absent.display())), "{stderr}");

    // A file without an end (a wrong variable) is refused once it passes the limit, not read to its end.
    let output = fairdeck(Path::new("/dev/zero"), None, &host);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("cannot read the configuration file /dev/zero: the file is larger than 1 MiB"), "{stderr}");
}

#[test]
fn help_says_where_the_file_is_read_from() {
    let config = Path::new("/nowhere/fairdeck-test.toml");
    let output = fairdeck(config, None, &["--help"]);
    assert!(output.status.success());
    let help = String::from_utf8(output.stdout).unwrap();
    assert!(help.contains("Configuration file, read by host and join: /nowhere/fairdeck-test.toml"), "{help}");
    assert!(help.contains("$XDG_CONFIG_HOME/fairdeck/config.toml"), "{help}");
}
