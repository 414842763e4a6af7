//! A journal replays its engine exactly, and its check names a breach only when the
//! opponent provably committed one.

use fairdeck_shared::Seat;
use fairdeck_shared::crypto::{Group, Ristretto255};
use fairdeck_shared::engine::{AlertKind, Intent};
use fairdeck_shared::journal::{Input, Journal, Verdict, check};
use fairdeck_shared::pair::{Pair, numbered_deck};
use fairdeck_shared::wire::{self, Action, Message};

fn played() -> Pair<Ristretto255> {
    let mut pair = Pair::<Ristretto255>::new(numbered_deck("Host", 10, 2), numbered_deck("Guest", 10, 2), 5);
    pair.drive();
    for (seat, action) in [
        (Seat::Host, Action::Draw { count: 3 }),
        (Seat::Guest, Action::Draw { count: 2 }),
        (Seat::Guest, Action::Roll { dice: fairdeck_shared::crypto::Dice::new(2, 6).unwrap() }),
        (Seat::Host, Action::Mulligan { draw: 2 }),
    ] {
        pair.intent(seat, Intent::Act(action)).unwrap();
        pair.drive();
    }
    for seat in Seat::BOTH {
        pair.intent(seat, Intent::NewGame(None)).unwrap();
    }
    pair.drive();
    pair.intent(Seat::Guest, Intent::Act(Action::Draw { count: 1 })).unwrap();
    pair.intent(Seat::Guest, Intent::EndGame).unwrap();
    pair.drive();
    pair
}

/// Through JSON, as `fairdeck` saves it.
fn saved<G: Group>(pair: &Pair<G>, seat: Seat) -> Journal {
    serde_json::from_str(&serde_json::to_string(pair.engine(seat).journal()).unwrap()).unwrap()
}

#[test]
fn an_honest_match_checks_clean_from_either_side() {
    let pair = played();
    for seat in Seat::BOTH {
        let Verdict::Clean(summary) = check::<Ristretto255>(&saved(&pair, seat)).unwrap() else {
            panic!("{seat:?}: an honest journal is not clean")
        };
        assert_eq!(summary.games, 2);
        assert_eq!(summary.opponent_audited, seat == Seat::Host, "only the guest ended game 2");
        assert_eq!(summary.sent + summary.received, pair.engine(seat).record().len());
        let (name, _) = summary.opponent.expect("the opponent's hello");
        let printed = format!("{:?}", pair.engine(seat).journal());
        assert!(!printed.contains(&format!("{:?}", saved(&pair, seat).rng_seed)), "the seed in {printed}");
        assert_eq!(name, if seat == Seat::Host { "Guest" } else { "Host" });
    }
}

#[test]
fn a_breach_is_named_with_its_signed_evidence() {
    let mut pair = played();
    // The guest reveals a deck key that is not the one it committed to.
    let seq = pair.guest.record().iter().filter(|(from, _)| *from == Seat::Guest).count() as u64;
    let body = wire::encode_body(&Message::<Ristretto255>::Audit { deck_key: Ristretto255::scalar_from_u128(7) });
    let ack = pair.ack_of(Seat::Guest, seq);
    pair.guest.send_unchecked(body, ack);
    pair.collect();
    pair.drive();
    let live = pair.host_events.iter().rev().find_map(|e| match e {
        fairdeck_shared::engine::Event::Alert(alert) => Some(alert.clone()),
        _ => None,
    });
    match check::<Ristretto255>(&saved(&pair, Seat::Host)).unwrap() {
        Verdict::Breach { by, alert, .. } => {
            assert_eq!(by, Seat::Guest);
            assert_eq!(alert.kind, AlertKind::BadProof);
            assert_eq!(Some(&alert), live.as_ref(), "the check sees what the host saw");
            assert_eq!(alert.evidence.unwrap().seq, seq);
        }
        other => panic!("not a breach: {other:?}"),
    }
    // The cheater's own journal shows nothing against the host.
    assert!(matches!(check::<Ristretto255>(&saved(&pair, Seat::Guest)).unwrap(), Verdict::Clean(_)));
}

#[test]
fn a_journal_with_a_rewritten_past_proves_nothing() {
    // The host rewrites one of its own intents: its replayed messages differ from the ones the
    // guest answered, so the guest's messages no longer fit. That must not read as the
    // guest's breach.
    let pair = played();
    let mut journal = saved(&pair, Seat::Host);
    let first_draw = journal
        .inputs
        .iter_mut()
        .find_map(|input| match input {
            Input::Intent { intent: Intent::Act(Action::Draw { count }) } => Some(count),
            _ => None,
        })
        .unwrap();
    *first_draw = 4;
    match check::<Ristretto255>(&journal).unwrap() {
        Verdict::Inconsistent { reason, .. } => assert!(reason.starts_with("Sequence"), "{reason}"),
        other => panic!("a rewritten journal gave {other:?}"),
    }
}

#[test]
fn a_forfeit_claim_is_in_the_verdict_of_both_journals() {
    let mut pair = Pair::<Ristretto255>::new(numbered_deck("Host", 6, 0), numbered_deck("Guest", 6, 0), 8);
    pair.drive();
    pair.intent(Seat::Host, Intent::Act(Action::Draw { count: 1 })).unwrap();
    pair.step();
    pair.queue.clear(); // the guest's strip never arrives
    pair.intent(Seat::Host, Intent::ClaimForfeit).unwrap();
    pair.drive();
    for seat in Seat::BOTH {
        let Verdict::Clean(summary) = check::<Ristretto255>(&saved(&pair, seat)).unwrap() else {
            panic!("{seat:?}: a silence is no breach")
        };
        let (by, awaited) = summary.forfeit.expect("the claim");
        assert_eq!(by, Seat::Host);
        assert!(awaited.contains("strip"), "{awaited}");
    }
}
