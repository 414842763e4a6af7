//! `fairdeck rng shuffle`, run as a user would, against the published vectors.

use serde::Deserialize;

mod support;

#[derive(Deserialize)]
struct Vectors {
    basic_shuffle: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    shared_seed: String,
    state: String,
    count: usize,
    shuffled: Vec<usize>,
}

fn fairdeck(args: &[&str]) -> std::process::Output {
    let data = tempfile::tempdir().unwrap();
    support::fairdeck_in(data.path(), args)
}

#[test]
fn rng_shuffle_prints_the_published_shuffles() {
    let vectors: Vectors = serde_json::from_str(include_str!("../../shared/tests/vectors/hash_rng.json")).unwrap();
    for case in vectors.basic_shuffle {
        let count = case.count.to_string();
        let output = fairdeck(&[
            "rng",
            "shuffle",
            "--shared-seed",
            &case.shared_seed,
            "--state",
            &case.state,
            "--count",
            &count,
        ]);
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        // Standard output holds the JSON array and nothing else.
        let printed: Vec<usize> = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(printed, case.shuffled, "count {}", case.count);
        assert!(output.stderr.is_empty());
    }
}

#[test]
fn rng_shuffle_explains_bad_input() {
    let output = fairdeck(&["rng", "shuffle", "--shared-seed", "zz", "--state", "00", "--count", "3"]);
    assert!(!output.status.success());
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--shared-seed must be hexadecimal"), "{stderr}");

    let output = fairdeck(&["rng", "shuffle", "--shared-seed", "00", "--state", "00", "--count", "99999999"]);
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("more than"));

    let output = fairdeck(&["rng", "shuffle", "--shared-seed", "00", "--state", "00"]);
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("--count"));
}
