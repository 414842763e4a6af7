//! A journal replays its engine exactly, and its check names a breach only when the
//! opponent provably committed one.

use fairdeck_shared::Seat;
use fairdeck_shared::crypto::{Group, Modp2048, Ristretto255, Suite};
use fairdeck_shared::engine::{AlertKind, Intent};
use fairdeck_shared::journal::{Input, Journal, Verdict, check};
use fairdeck_shared::pair::{Pair, numbered_deck};
use fairdeck_shared::wire::{self, Action, Awaited, Envelope, Message};
use proptest::prelude::*;

fn played() -> Pair<Ristretto255> {
    let mut pair = Pair::<Ristretto255>::new(numbered_deck("Host", 10, 2), numbered_deck("Guest", 10, 2), 5);
    pair.drive();
    for (seat, action) in [
        (Seat::HOST, Action::Draw { count: 3 }),
        (Seat::GUEST, Action::Draw { count: 2 }),
        (Seat::GUEST, Action::Roll { dice: fairdeck_shared::crypto::Dice::new(2, 6).unwrap() }),
        (Seat::HOST, Action::Mulligan { draw: 2 }),
    ] {
        pair.intent(seat, Intent::Act(action)).unwrap();
        pair.drive();
    }
    for seat in Seat::BOTH {
        pair.intent(seat, Intent::NewGame(None)).unwrap();
    }
    pair.drive();
    pair.intent(Seat::GUEST, Intent::Act(Action::Draw { count: 1 })).unwrap();
    pair.intent(Seat::GUEST, Intent::EndGame).unwrap();
    pair.drive();
    pair
}

/// Through its file encoding, as `fairdeck` writes it.
fn saved<G: Group>(pair: &Pair<G>, seat: Seat) -> Journal {
    fairdeck_shared::journal::decode(&fairdeck_shared::journal::encode(pair.engine(seat).journal())).unwrap()
}

#[test]
fn an_honest_match_checks_clean_from_either_side() {
    let pair = played();
    for seat in Seat::BOTH {
        let Verdict::Clean(summary) = check::<Ristretto255>(&saved(&pair, seat)).unwrap() else {
            panic!("{seat:?}: an honest journal is not clean")
        };
        assert_eq!(summary.games, 2);
        assert_eq!(summary.opponent_audited, seat == Seat::HOST, "only the guest ended game 2");
        assert_eq!(summary.sent + summary.received, pair.engine(seat).record().len());
        let (name, _) = summary.opponent.expect("the opponent's hello");
        let printed = format!("{:?}", pair.engine(seat).journal());
        assert!(!printed.contains(&format!("{:?}", saved(&pair, seat).rng_seed)), "the seed in {printed}");
        assert_eq!(name, if seat == Seat::HOST { "Guest" } else { "Host" });
    }
}

#[test]
fn a_breach_is_named_with_its_signed_evidence() {
    let mut pair = played();
    // The host ends the game revealing a deck key that is not the one it committed to.
    let seq = pair.host.record().iter().filter(|(from, _)| *from == Seat::HOST).count() as u64;
    let body = wire::encode_body(&Message::<Ristretto255>::Audit { deck_key: Ristretto255::scalar_from_u128(7) });
    let ack = pair.ack_of(Seat::HOST, seq);
    pair.host.send_unchecked(body, ack);
    pair.collect();
    pair.drive();
    let live = pair.guest_events.iter().rev().find_map(|e| match e {
        fairdeck_shared::engine::Event::Alert(alert) => Some(alert.clone()),
        _ => None,
    });
    match check::<Ristretto255>(&saved(&pair, Seat::GUEST)).unwrap() {
        Verdict::Breach { by, alert, .. } => {
            assert_eq!(by, Seat::HOST);
            assert_eq!(alert.kind, AlertKind::BadProof);
            assert_eq!(Some(&alert), live.as_ref(), "the check sees what the guest saw");
            assert_eq!(alert.evidence.unwrap().seq, seq);
        }
        other => panic!("not a breach: {other:?}"),
    }
    // The cheater's own journal shows nothing against the guest.
    assert!(matches!(check::<Ristretto255>(&saved(&pair, Seat::HOST)).unwrap(), Verdict::Clean(_)));
}

#[test]
fn a_journal_with_a_rewritten_past_proves_nothing() {
    // The host rewrites one of its own intents: its replayed messages differ from the ones the
    // guest answered, so the guest's messages no longer fit. That must not read as the
    // guest's breach.
    let pair = played();
    let mut journal = saved(&pair, Seat::HOST);
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
        Verdict::Inconsistent { reason, .. } => assert!(reason.starts_with("sequence"), "{reason}"),
        other => panic!("a rewritten journal gave {other:?}"),
    }
}

#[test]
fn a_forfeit_claim_is_in_the_verdict_of_both_journals() {
    let mut pair = Pair::<Ristretto255>::new(numbered_deck("Host", 6, 0), numbered_deck("Guest", 6, 0), 8);
    pair.drive();
    pair.intent(Seat::HOST, Intent::Act(Action::Draw { count: 1 })).unwrap();
    pair.step();
    pair.queue.clear(); // the guest's strip never arrives
    pair.intent(Seat::HOST, Intent::ClaimForfeit).unwrap();
    pair.drive();
    for seat in Seat::BOTH {
        let Verdict::Clean(summary) = check::<Ristretto255>(&saved(&pair, seat)).unwrap() else {
            panic!("{seat:?}: a silence is no breach")
        };
        let (by, awaited) = summary.forfeit.expect("the claim");
        assert_eq!(by, Seat::HOST);
        assert!(matches!(awaited, Awaited::Strip { .. }), "{awaited}");
    }
}

/// What an edited journal may show: never a breach by the opponent, who signed none of it.
fn never_convicts(journal: &Journal) -> Option<Verdict> {
    let verdict = match journal.suite {
        Suite::Ristretto255 => check::<Ristretto255>(journal),
        Suite::Modp2048 => check::<Modp2048>(journal),
    }
    .ok()?;
    assert!(!matches!(verdict, Verdict::Breach { .. }), "an edited journal convicts the opponent: {verdict:?}");
    Some(verdict)
}

fn proves_nothing(journal: &Journal) {
    let verdict = never_convicts(journal);
    assert!(matches!(verdict, None | Some(Verdict::Inconsistent { .. })), "{verdict:?}");
}

/// The fields of a journal that the opponent never signed, changed: the opponent's genuine
/// hello and deck then look wrong, which must read as a journal that proves nothing.
#[test]
fn an_edited_suite_or_seat_proves_nothing() {
    let pair = played();
    for seat in Seat::BOTH {
        let mut journal = saved(&pair, seat);
        journal.suite = Suite::Modp2048;
        proves_nothing(&journal);
        let mut journal = saved(&pair, seat);
        journal.seat = seat.opponent();
        proves_nothing(&journal);
    }
}

/// A first message nobody signed, put before the opponent's hello: it is refused, and it is
/// evidence of nothing.
#[test]
fn an_invented_unsigned_first_message_proves_nothing() {
    let pair = played();
    let act =
        wire::encode_body(&Message::<Ristretto255>::Act { action: Action::Draw { count: 1 }, seen: 0, digest: None });
    let chain = wire::chain_hash(&[0; 32], 0, &wire::Ack { count: 0, head: [0; 32] }, &act);
    let invented = Envelope { seq: 0, ack: 0, chain, body: act, signature: vec![0; 64] };
    for seat in Seat::BOTH {
        let mut journal = saved(&pair, seat);
        let first = journal.inputs.iter().position(|input| matches!(input, Input::Message { .. })).unwrap();
        journal.inputs.insert(first, Input::Message { bytes: wire::encode_envelope(&invented) });
        proves_nothing(&journal);
    }
}

/// One random edit of an honest journal.
#[derive(Clone, Debug)]
enum Edit {
    Remove(prop::sample::Index),
    Duplicate(prop::sample::Index),
    SwapWithNext(prop::sample::Index),
    FlipMessageByte(prop::sample::Index, prop::sample::Index, u8),
    RenameDeckCard(prop::sample::Index),
    DropDeckCard(prop::sample::Index),
    Seed(prop::sample::Index),
    Name,
}

fn edit() -> impl Strategy<Value = Edit> {
    use prop::sample::Index;
    prop_oneof![
        any::<Index>().prop_map(Edit::Remove),
        any::<Index>().prop_map(Edit::Duplicate),
        any::<Index>().prop_map(Edit::SwapWithNext),
        (any::<Index>(), any::<Index>(), 1u8..=255).prop_map(|(i, at, bits)| Edit::FlipMessageByte(i, at, bits)),
        any::<Index>().prop_map(Edit::RenameDeckCard),
        any::<Index>().prop_map(Edit::DropDeckCard),
        any::<Index>().prop_map(Edit::Seed),
        Just(Edit::Name),
    ]
}

/// Applies `edit`.
fn apply(journal: &mut Journal, edit: &Edit) {
    let inputs = journal.inputs.len();
    match edit {
        Edit::Remove(i) => {
            journal.inputs.remove(i.index(inputs));
        }
        Edit::Duplicate(i) => {
            let input = journal.inputs[i.index(inputs)].clone();
            journal.inputs.insert(i.index(inputs), input);
        }
        Edit::SwapWithNext(i) => {
            let i = i.index(inputs - 1);
            journal.inputs.swap(i, i + 1);
        }
        Edit::FlipMessageByte(i, at, bits) => {
            let messages: Vec<usize> =
                (0..inputs).filter(|&n| matches!(journal.inputs[n], Input::Message { .. })).collect();
            let Input::Message { bytes } = &mut journal.inputs[messages[i.index(messages.len())]] else {
                unreachable!()
            };
            let at = at.index(bytes.len());
            bytes[at] ^= bits;
        }
        Edit::RenameDeckCard(i) => {
            let len = journal.deck.library.len();
            journal.deck.library[i.index(len)].name.push_str(" (foil)");
        }
        Edit::DropDeckCard(i) => {
            let len = journal.deck.library.len();
            journal.deck.library.remove(i.index(len));
        }
        Edit::Seed(i) => journal.rng_seed[i.index(32)] ^= 1,
        Edit::Name => journal.config.name.push('!'),
    }
}

/// Whether `journal` holds a message that is not one of `original`'s, as signed: a later edit may have removed a
/// changed message, or changed it back.
fn signed_changed(journal: &Journal, original: &Journal) -> bool {
    let envelopes = |journal: &Journal| -> Vec<Option<Envelope>> {
        let messages = journal.inputs.iter().filter_map(|input| match input {
            Input::Message { bytes } => Some(wire::decode_envelope(bytes).ok()),
            _ => None,
        });
        messages.collect()
    };
    let genuine = envelopes(original);
    envelopes(journal).into_iter().any(|envelope| envelope.is_none() || !genuine.contains(&envelope))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    /// Any edit of an honest journal, by either player: the opponent is never convicted; a
    /// changed message of the opponent's makes the journal prove nothing.
    #[test]
    fn no_edit_of_a_journal_convicts_an_honest_opponent(host in any::<bool>(), edits in prop::collection::vec(edit(), 1..3)) {
        let seat = if host { Seat::HOST } else { Seat::GUEST };
        let original = saved(played_once(), seat);
        let mut journal = original.clone();
        for edit in &edits {
            apply(&mut journal, edit);
        }
        let verdict = never_convicts(&journal);
        if signed_changed(&journal, &original) {
            prop_assert!(matches!(verdict, None | Some(Verdict::Inconsistent { .. })), "{:?}", verdict);
        }
    }
}

/// The honest match, played once for every case.
fn played_once() -> &'static Pair<Ristretto255> {
    static PLAYED: std::sync::OnceLock<Pair<Ristretto255>> = std::sync::OnceLock::new();
    PLAYED.get_or_init(played)
}
