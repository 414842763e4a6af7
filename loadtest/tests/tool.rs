//! The load tool as its users run it: both relays in child processes, idle connections held by its own child
//! processes, and the report.

use std::process::Command;

#[test]
fn a_small_run_reports_both_relays_and_what_bounds_the_idle_connections() {
    let output = Command::new(env!("CARGO_BIN_EXE_fairdeck-relay-load"))
        .args(["--pairs", "4", "--round-trips", "3", "--latency-round-trips", "5"])
        .args(["--stream-pairs", "2", "--stream-messages", "40", "--idle-connections", "60", "--time-limit", "120"])
        .output()
        .expect("run fairdeck-relay-load");
    let report = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{report}\n{}", String::from_utf8_lossy(&output.stderr));
    assert!(report.contains("| figure | baseline | fairdeck-relay |"), "{report}");
    assert!(report.contains("- concurrent ping-pong ≥ 95 % of the baseline in the same run:"), "{report}");
    assert!(
        report.contains("Idle connections: 60 from 1 loopback address(es), held by 1 process(es) of the tool"),
        "{report}"
    );
}

#[test]
fn more_connections_than_a_relay_process_may_hold_are_refused_before_anything_starts() {
    let output = Command::new(env!("CARGO_BIN_EXE_fairdeck-relay-load"))
        .args(["--relay", "fairdeck", "--idle-connections", "2000000000"])
        .output()
        .expect("run fairdeck-relay-load");
    let error = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(error.contains("connections on one relay process asked, but it holds at most"), "{error}");
    assert!(!error.contains("loading the"), "nothing was started: {error}");
}
