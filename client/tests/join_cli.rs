//! `fairdeck join` with a mistyped code: it says what is wrong with the code, whether or not its output is a
//! terminal, and before anything else is looked at.

mod support;

#[test]
fn a_mistyped_code_is_named_even_with_output_redirected() {
    let deck = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/burn.txt");
    // The test's standard output is a pipe, not a terminal: the code is still what the player hears about.
    let data = tempfile::tempdir().unwrap();
    let output = support::fairdeck_in(data.path(), &["join", "7-violn-ember", "--deck", deck]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("\"violn\" is not one of the code words; did you mean violin?"), "{stderr}");
    assert!(stderr.contains("the relay was not contacted"), "{stderr}");
    assert!(!stderr.contains("not a terminal"), "{stderr}");
}
