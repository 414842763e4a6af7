//! The session core's spectators: watch codes, the watch link and what a spectator is fed.

use super::*;
use crate::session::spectators::{Feed, OpeningFailure};

/// A spectator's end of the host's watch channel, moved by hand: frames each way until nothing moves; what it
/// was fed.
fn watch_exchange(table: &mut Table, spectator: &mut Channel) -> Vec<Feed> {
    let mut fed = Vec::new();
    loop {
        let mut moved = false;
        while let Some(frame) = table.core(Seat::HOST).poll_watch_frame() {
            assert_eq!(frame[0], 0, "spectator 0's frames");
            spectator.handle_frame(&frame[1..]).unwrap();
            moved = true;
        }
        while let Some(payload) = spectator.poll_frame() {
            table.input(Seat::HOST, Input::Watch(WatchInput::Frame([&[0][..], &payload].concat())));
            moved = true;
        }
        while let Some(message) = spectator.poll_message() {
            fed.push(Feed::decode(&message).unwrap());
        }
        if !moved {
            return fed;
        }
    }
}

fn envelopes(fed: &[Feed]) -> Vec<(Seat, Vec<u8>)> {
    let envelopes = fed.iter().filter_map(|feed| match feed {
        Feed::Envelope { from, bytes } => Some((*from, bytes.clone())),
        _ => None,
    });
    envelopes.collect()
}

#[test]
fn a_spectator_gets_every_envelope_of_the_game_as_the_host_handled_them_after_the_delay() {
    let mut table = Table::ready();
    table.forget();
    table.line(Seat::HOST, "watch-code");
    assert_eq!(table.core(Seat::HOST).poll_watch_link(), Some(WatchAction::Open("token-host".into())));
    let opened = WatchInput::Opened { nameplate: "5".into(), max_frame: 64 * 1024 };
    table.input(Seat::HOST, Input::Watch(opened));
    let Some(Output::WatchCode(code)) = table.seen[0].shown.iter().find(|o| matches!(o, Output::WatchCode(_))) else {
        panic!("no watch code shown")
    };
    let code = crate::code::parse(code).unwrap();
    assert_eq!(code.nameplate(), "5");
    // The players chose a delay of one turn; the spectator comes in after the set-up.
    let watchers = r#"{"type":"watchers","host":1,"guest":0,"open":true,"delay":1}"#;
    table.input(Seat::HOST, Input::Control(watchers.into()));
    assert_eq!(table.core(Seat::HOST).poll_watch_link(), None, "open already: not opened twice");
    table.input(Seat::HOST, Input::Watch(WatchInput::Control(r#"{"type":"watcher_joined","watcher":0}"#.into())));
    let mut spectator = Channel::new(Side::Guest, &code.password(), code.nameplate(), [40; 32]);
    let fed = watch_exchange(&mut table, &mut spectator);
    assert_eq!(fed[0], Feed::Start { suite: Suite::Ristretto255, seat: Seat::HOST, delay: 1 });
    assert!(envelopes(&fed).is_empty(), "the set-up's turn is held until the next starts");

    let record = |table: &mut Table| -> Vec<(Seat, Vec<u8>)> {
        table.core(Seat::HOST).engine().record().iter().map(|(from, e)| (*from, encode_envelope(e))).collect()
    };
    let set_up = record(&mut table);
    let chooser = table.core(Seat::HOST).engine().chooser().unwrap();
    table.line(chooser, "play-first");
    table.run();
    let mut fed = watch_exchange(&mut table, &mut spectator);
    // Compared whole, shown by their count: the envelopes are long.
    let same = |fed: &[Feed], record: &[(Seat, Vec<u8>)]| envelopes(fed) == record;
    assert!(same(&fed, &set_up), "turn 1 started: the set-up went, byte for byte, in the host's order");
    table.line(chooser, "draw 1");
    table.run();
    let turn_one = record(&mut table);
    assert!(turn_one.len() > set_up.len());
    fed.extend(watch_exchange(&mut table, &mut spectator));
    assert!(same(&fed, &set_up), "turn 1's draw waits for turn 2");
    table.line(chooser, "next-turn");
    table.run();
    fed.extend(watch_exchange(&mut table, &mut spectator));
    assert!(same(&fed, &turn_one), "turn 2 started: turn 1 went, and nothing of turn 2");
    table.line(chooser.opponent(), "draw 1");
    table.run();
    table.line(chooser.opponent(), "concede");
    table.run();
    fed.extend(watch_exchange(&mut table, &mut spectator));
    let whole = record(&mut table);
    assert!(whole.len() > turn_one.len() && same(&fed, &whole), "the game is over: everything went");
}

#[test]
fn watching_opens_only_once_the_code_is_proved_and_watch_off_closes_it_for_good() {
    let code = Code::random("7");
    let mut table = Table::new(&code, &code);
    table.line(Seat::HOST, "watch-code");
    let refused = |table: &Table| {
        table.seen[0]
            .shown
            .iter()
            .filter(|o| matches!(o, Output::CommandError { kind, .. } if *kind == crate::command::ErrorKind::Refused))
            .count()
    };
    assert_eq!(refused(&table), 1, "no watch code before the opponent proved the game's code");
    assert_eq!(table.core(Seat::HOST).poll_watch_link(), None);
    table.run();
    table.line(Seat::HOST, "watch-delay 3");
    assert!(table.seen[0].controls.contains(&ClientMessage::WatchDelay { turns: 3 }));
    table.line(Seat::HOST, "watch-delay 21");
    assert!(
        table.saw(Seat::HOST, |o| matches!(o, Output::CommandError { message, .. } if message.contains("0 to 20")))
    );
    table.line(Seat::GUEST, "watch-off");
    assert!(table.seen[1].controls.contains(&ClientMessage::WatchOff));
    // The relay tells both: watching is off; the host's watch-code is refused from then on.
    let off = r#"{"type":"watchers","host":0,"guest":0,"open":false,"delay":3}"#;
    table.input(Seat::HOST, Input::Control(off.into()));
    assert!(table.saw(Seat::HOST, |o| *o == Output::Watchers { host: 0, guest: 0, open: false, delay: 3 }));
    table.line(Seat::HOST, "watch-code");
    assert_eq!(refused(&table), 2);
    assert_eq!(table.core(Seat::HOST).poll_watch_link(), Some(WatchAction::Close));
    assert_eq!(table.core(Seat::HOST).poll_watch_link(), None, "never opened again");
}

#[test]
fn a_resumed_game_whose_spectators_wait_at_the_relay_opens_watching_again_by_itself() {
    let mut table = Table::ready();
    // This program never typed watch-code (it is a new process on a resumed game): the relay counts one
    // spectator of the guest's seat.
    let watchers = r#"{"type":"watchers","host":0,"guest":1,"open":true,"delay":0}"#;
    table.input(Seat::HOST, Input::Control(watchers.into()));
    assert_eq!(table.core(Seat::HOST).poll_watch_link(), None, "the host's seat has none");
    table.input(Seat::GUEST, Input::Control(watchers.into()));
    assert_eq!(table.core(Seat::GUEST).poll_watch_link(), Some(WatchAction::Open("token-guest".into())));
}

#[test]
fn a_dropped_watch_link_is_opened_again_after_a_second_or_with_the_seat() {
    let mut table = Table::ready();
    table.line(Seat::HOST, "watch-code");
    assert_eq!(table.core(Seat::HOST).poll_watch_link(), Some(WatchAction::Open("token-host".into())));
    table.input(Seat::HOST, Input::Watch(WatchInput::Opened { nameplate: "5".into(), max_frame: 1 << 16 }));
    table.input(Seat::HOST, Input::Watch(WatchInput::Lost));
    assert_eq!(table.core(Seat::HOST).poll_watch_link(), None, "not at once");
    table.wait(Duration::from_secs(1));
    assert_eq!(table.core(Seat::HOST).poll_watch_link(), Some(WatchAction::Open("token-host".into())));
    // Dropped again while the game's seat is being taken back: no deadline spins, the seat's return opens it.
    table.input(Seat::HOST, Input::Watch(WatchInput::Opened { nameplate: "5".into(), max_frame: 1 << 16 }));
    table.input(Seat::HOST, Input::Watch(WatchInput::Lost));
    table.here[0] = false;
    table.input(Seat::HOST, Input::Lost("the connection was cut".into()));
    table.wait(Duration::from_secs(1));
    assert_eq!(table.core(Seat::HOST).poll_watch_link(), None);
    let seat_attempt = table.core(Seat::HOST).poll_timeout();
    assert!(seat_attempt.is_none_or(|at| at > table.now), "nothing due now");
    table.here[0] = true;
    let seated = Seated::Resumed { peer: PeerState::Present, waiting_as: None };
    table.input(Seat::HOST, Input::Seated { seated, max_frame: 1 << 20 });
    assert_eq!(table.core(Seat::HOST).poll_watch_link(), Some(WatchAction::Open("token-host".into())));
}

#[test]
fn a_watch_link_that_cannot_open_yet_is_tried_again_and_a_refusal_of_watching_is_not() {
    let mut table = Table::ready();
    table.line(Seat::HOST, "watch-code");
    assert_eq!(table.core(Seat::HOST).poll_watch_link(), Some(WatchAction::Open("token-host".into())));
    let transient = [
        SessionError::ComeBack { after: Duration::from_millis(500) },
        SessionError::Lost("the relay closed the connection".into()),
        SessionError::Unreachable { url: "ws://relay".into(), reason: "refused".into() },
    ];
    for error in transient {
        table.input(Seat::HOST, Input::Watch(WatchInput::Refused(error)));
        assert_eq!(table.core(Seat::HOST).poll_watch_link(), None, "not at once");
        table.wait(Duration::from_secs(1));
        assert_eq!(table.core(Seat::HOST).poll_watch_link(), Some(WatchAction::Open("token-host".into())));
    }
    let off = SessionError::Relay { code: "watching_off", message: "watching is off for this game".into() };
    table.input(Seat::HOST, Input::Watch(WatchInput::Refused(off)));
    assert!(table.saw(Seat::HOST, |o| matches!(o, Output::RelayAlert(_))));
    table.wait(Duration::from_secs(5));
    assert_eq!(table.core(Seat::HOST).poll_watch_link(), None, "never opened again");
}

#[test]
fn guesses_at_the_watch_code_are_told_and_close_it_until_new_watch_code_whose_words_outlive_a_dropped_link() {
    let mut table = Table::ready();
    table.line(Seat::HOST, "new-watch-code");
    assert!(
        table.saw(Seat::HOST, |o| matches!(o, Output::CommandError { message, .. } if message.contains("watch-code")))
    );
    table.line(Seat::HOST, "watch-code");
    assert_eq!(table.core(Seat::HOST).poll_watch_link(), Some(WatchAction::Open("token-host".into())));
    table.input(Seat::HOST, Input::Watch(WatchInput::Opened { nameplate: "5".into(), max_frame: 1 << 16 }));
    table.input(Seat::HOST, Input::Watch(WatchInput::Control(r#"{"type":"watcher_joined","watcher":0}"#.into())));
    // A guesser at seat 0 sends HELLO after HELLO, each of other words.
    for n in 0..5u8 {
        let guess = Code::from_secret("5", &[n; 32]);
        let mut guesser = Channel::new(Side::Guest, &guess.password(), guess.nameplate(), [n; 32]);
        let hello = guesser.poll_frame().unwrap();
        table.input(Seat::HOST, Input::Watch(WatchInput::Frame([&[0][..], &hello].concat())));
        while table.core(Seat::HOST).poll_watch_frame().is_some() {}
    }
    let told: Vec<_> = table.seen[0]
        .shown
        .iter()
        .filter_map(|o| match o {
            Output::WrongWatchCodeTried { watcher: 0, failure: OpeningFailure::Replaced, attempts, closed } => {
                Some((*attempts, *closed))
            }
            _ => None,
        })
        .collect();
    assert_eq!(told, [(1, false), (2, false), (3, true)]);
    let shown_codes = |table: &Table| -> Vec<String> {
        let codes = table.seen[0].shown.iter().filter_map(|o| match o {
            Output::WatchCode(code) => Some(code.clone()),
            _ => None,
        });
        codes.collect()
    };
    table.line(Seat::HOST, "new-watch-code");
    let codes = shown_codes(&table);
    let [first, renewed] = codes.as_slice() else { panic!("two watch codes: {codes:?}") };
    assert_ne!(first, renewed);
    let renewed = crate::code::parse(renewed).unwrap();
    assert_eq!(renewed.nameplate(), "5");
    // The link drops and comes back under another number: the new words stay.
    table.input(Seat::HOST, Input::Watch(WatchInput::Lost));
    table.wait(Duration::from_secs(1));
    assert_eq!(table.core(Seat::HOST).poll_watch_link(), Some(WatchAction::Open("token-host".into())));
    table.input(Seat::HOST, Input::Watch(WatchInput::Opened { nameplate: "6".into(), max_frame: 1 << 16 }));
    assert_eq!(shown_codes(&table).last(), Some(&renewed.with_nameplate("6").to_string()));
    table.input(Seat::HOST, Input::Watch(WatchInput::Control(r#"{"type":"watcher_joined","watcher":0}"#.into())));
    let renewed = renewed.with_nameplate("6");
    let mut spectator = Channel::new(Side::Guest, &renewed.password(), renewed.nameplate(), [40; 32]);
    let fed = watch_exchange(&mut table, &mut spectator);
    assert!(matches!(fed.first(), Some(Feed::Start { .. })), "the spectator with the new words watches: {fed:?}");
}
