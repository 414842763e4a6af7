//! A match of two games, with sideboarding between them, saved by both players and checked
//! afterwards with `fairdeck verify`.

use fairdeck_e2e::{Player, Relay, fairdeck_command, sideboarded_burn};
use fairdeck_shared::Seat;
use fairdeck_shared::crypto::{Ristretto255, Suite};
use fairdeck_shared::engine::Intent;
use fairdeck_shared::journal::{self, Input, Journal};
use fairdeck_shared::wire::{self, Action, Envelope, Message};

/// `fairdeck verify FILE`: its exit code and what it printed.
fn verify(file: &std::path::Path) -> (i32, String) {
    let output = fairdeck_command().arg("verify").arg(file).output().expect("run fairdeck verify");
    (output.status.code().expect("an exit code"), String::from_utf8_lossy(&output.stdout).into_owned())
}

#[test]
fn a_match_with_sideboarding_is_recorded_and_verified() {
    let dir = tempfile::tempdir().unwrap();
    let records = [dir.path().join("host.journal"), dir.path().join("guest.journal")];
    // After game 1 the guest swaps two Skullcracks for two Deflecting Palms.
    let sideboarded_file = sideboarded_burn(dir.path());

    let relay = Relay::start();
    let host_record = records[0].to_str().unwrap();
    let mut host = Player::spawn("host", &relay, &["host", "--record", host_record]);
    let code = host.expect_event("code")["code"].as_str().unwrap().to_string();
    let mut guest = Player::spawn("guest", &relay, &["join", &code, "--record", records[1].to_str().unwrap()]);
    for player in [&mut host, &mut guest] {
        player.expect_event("ready");
    }
    host.send("draw 7");
    guest.send("draw 7");
    host.wait_idle();
    guest.wait_idle();

    guest.send(&format!("new-game {}", sideboarded_file.display()));
    host.expect_event("new_game_requested");
    host.send("new-game");
    for player in [&mut host, &mut guest] {
        assert_eq!(player.expect_event("new_game")["number"], 2);
        player.expect_event("ready");
    }
    let table = host.table();
    assert_eq!(fairdeck_e2e::zone_cards(&table, "host hand").len(), 0, "a fresh table");
    host.send("draw 7");
    guest.send("end");
    host.expect_event("audited");
    for player in [&mut host, &mut guest] {
        player.wait_idle();
        player.send("quit");
        assert!(player.wait_exit().success());
    }

    for record in &records {
        let (code, text) = verify(record);
        assert_eq!(code, 0, "{text}");
        assert!(text.contains("no breach") && text.contains("2 game(s)"), "{text}");
    }
    let (_, text) = verify(&records[0]);
    assert!(text.contains("opponent's deck audit (last game): passed"), "{text}");

    // A journal whose past was rewritten proves nothing, and says so.
    let genuine = journal::decode(&std::fs::read(&records[0]).unwrap()).unwrap();
    let mut rewritten_journal = genuine.clone();
    let draw = rewritten_journal
        .inputs
        .iter_mut()
        .find_map(|input| match input {
            Input::Intent { intent: Intent::Act(Action::Draw { count }) } => Some(count),
            _ => None,
        })
        .expect("the host's first draw");
    *draw = 6;
    let rewritten = dir.path().join("rewritten.journal");
    std::fs::write(&rewritten, journal::encode(&rewritten_journal)).unwrap();
    let (code, text) = verify(&rewritten);
    assert_eq!(code, 4, "{text}");
    assert!(text.contains("does not hold together"), "{text}");

    // Fields the opponent never signed, edited, and a message of the opponent's changed: each
    // journal proves nothing (exit 4), and none convicts the opponent (exit 3).
    let first_message =
        |journal: &Journal| journal.inputs.iter().position(|input| matches!(input, Input::Message { .. })).unwrap();
    let invented = wire::encode_envelope(&Envelope {
        seq: 0,
        ack: 0,
        chain: [0; 32],
        body: wire::encode_body::<Ristretto255>(&Message::Act {
            action: Action::Draw { count: 1 },
            seen: 0,
            digest: None,
        }),
        signature: vec![0; 64],
    });
    type Edit = Box<dyn Fn(&mut Journal)>;
    let edits: [(&str, Edit); 4] = [
        ("suite", Box::new(|j| j.suite = Suite::Modp2048)),
        ("seat", Box::new(|j| j.seat = Seat::GUEST)),
        (
            "an invented first message",
            Box::new(move |j| {
                let at = first_message(j);
                j.inputs.insert(at, Input::Message { bytes: invented.clone() });
            }),
        ),
        (
            "the opponent's hello",
            Box::new(move |j| {
                let at = first_message(j);
                let Input::Message { bytes } = &mut j.inputs[at] else { unreachable!("found as a message") };
                let mut envelope = wire::decode_envelope(bytes).unwrap();
                let mut hello = wire::decode_body::<Ristretto255>(&envelope.body).unwrap();
                let Message::Hello { software, .. } = &mut hello else { panic!("the first message is a hello") };
                *software = "edited".into();
                envelope.body = wire::encode_body(&hello);
                *bytes = wire::encode_envelope(&envelope);
            }),
        ),
    ];
    for (what, edit) in edits {
        let mut edited_journal = genuine.clone();
        edit(&mut edited_journal);
        let edited = dir.path().join("edited.journal");
        std::fs::write(&edited, journal::encode(&edited_journal)).unwrap();
        let (code, text) = verify(&edited);
        assert_eq!(code, 4, "{what}: {text}");
        assert!(text.contains("proves nothing"), "{what}: {text}");
    }

    let (code, _) = verify(&dir.path().join("missing.journal"));
    assert_eq!(code, 1);
}
