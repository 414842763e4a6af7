//! A panic inside the engine (made here by `FAILING_CHAT`, as a real fault would be: by the content of a message)
//! is held where it happened: an `Internal` alert naming the message, the engine halted, nobody accused, the
//! journal kept; replaying that journal, as a resume or `fairdeck verify` does, meets it again and stops the same
//! way instead of panicking.

use fairdeck_shared::Seat;
use fairdeck_shared::crypto::Ristretto255;
use fairdeck_shared::engine::{AlertKind, Event, FAILING_CHAT, Intent, IntentError};
use fairdeck_shared::journal::{self, Verdict, check};
use fairdeck_shared::pair::{Pair, numbered_deck};
use fairdeck_shared::wire::Action;

fn internal(events: &[Event]) -> Vec<String> {
    let alerts = events.iter().filter_map(|event| match event {
        Event::Alert(alert) if alert.kind == AlertKind::Internal => Some(alert.detail.clone()),
        _ => None,
    });
    alerts.collect()
}

#[test]
fn a_panic_on_a_message_is_an_alert_naming_it_and_a_replay_of_the_journal_stops_there_again() {
    let mut pair = Pair::<Ristretto255>::new(numbered_deck("Host", 20, 0), numbered_deck("Guest", 20, 0), 5);
    pair.drive();
    pair.intent(Seat::HOST, Intent::Act(Action::Draw { count: 2 })).unwrap();
    pair.drive();
    pair.intent(Seat::HOST, Intent::Chat(FAILING_CHAT.into())).unwrap();
    pair.drive();

    let alerts = internal(pair.events(Seat::GUEST));
    assert_eq!(alerts.len(), 1, "{alerts:?}");
    assert!(alerts[0].contains("the opponent's message") && alerts[0].contains("(chat)"), "{}", alerts[0]);
    assert!(alerts[0].contains("a chat made to fail"), "{}", alerts[0]);
    let guest = pair.engine(Seat::GUEST);
    assert!(guest.halted().is_some_and(|why| why.starts_with("internal")), "{:?}", guest.halted());
    let refused = pair.intent(Seat::GUEST, Intent::Act(Action::Draw { count: 1 }));
    assert!(matches!(refused, Err(IntentError::Halted(_))), "{refused:?}");
    assert!(internal(pair.events(Seat::HOST)).is_empty(), "the sender's program is not at fault");

    // The journal holds the message; a replay meets the same fault and halts on it, with the same alert.
    let journal = pair.engine(Seat::GUEST).journal().clone();
    let mut replayed = Vec::new();
    let engine = journal::replay::<Ristretto255>(&journal, |event| replayed.push(event)).expect("the journal replays");
    assert_eq!(engine.halted(), pair.engine(Seat::GUEST).halted());
    assert_eq!(internal(&replayed), alerts);
    // A fault of this program convicts nobody.
    let verdict = check::<Ristretto255>(&journal).expect("the journal reads");
    assert!(matches!(verdict, Verdict::Inconsistent { .. }), "{verdict:?}");
}
