//! `--help` as the real binary prints it: every command of the table, and on `host --help` every key.

use fairdeck::command::{COMMANDS, shortcuts};

mod support;

fn help(args: &[&str]) -> String {
    let data = tempfile::tempdir().unwrap();
    let output = support::fairdeck_in(data.path(), args);
    assert!(output.status.success(), "{output:?}");
    String::from_utf8(output.stdout).expect("UTF-8 help")
}

#[test]
fn the_help_lists_every_command_and_host_help_every_key() {
    for args in [&["--help"][..], &["host", "--help"], &["join", "--help"]] {
        let text = help(args);
        for spec in COMMANDS {
            assert!(text.contains(&format!("\n  {}", spec.usage())), "{args:?} lacks {}:\n{text}", spec.usage());
        }
    }
    let host = help(&["host", "--help"]);
    for shortcut in shortcuts() {
        let line = format!("  {}  {}", shortcut.key, shortcut.line);
        assert!(host.contains(&line), "host --help lacks {line:?}:\n{host}");
    }
}
