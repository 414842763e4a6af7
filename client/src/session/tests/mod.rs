//! The table without sockets: two session cores wired in memory, the relay played by the harness (frames handed
//! across while both links are up and both seats taken), time a value the tests move. As quinn's `Pair`: each
//! step drains both cores as their driver would, and a dropped link, a failed attempt or a grace that runs out is
//! an input like any other.

use std::collections::{BTreeMap, VecDeque};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use fairdeck_relay_protocol::{ClientMessage, PeerState, ReportedResult};
use fairdeck_shared::Seat;
use fairdeck_shared::crypto::{Group, Modp2048, Ristretto255, Suite};
use fairdeck_shared::engine::{DeckCard, DeckList, Engine, EngineConfig, Event, Intent};
use fairdeck_shared::table::ZoneId;
use fairdeck_shared::wire::{Action, decode_envelope, encode_envelope, peek_suite};

use super::claim::{Claim, LinkAction, Seated, WatchAction};
use super::core::{Input, SessionCore, WatchInput};
use super::error::SessionError;
use super::files::{DeckRead, FileAnswer, FileRequest};
use super::frontend::Output;
use super::outbox::{SavePoint, ToRelay};
use super::state::Meeting;
use super::uplink::{LinkState, Uplink};
use super::wait_clock::FORFEIT_GRACE;
use crate::channel::{Channel, Side};
use crate::code::Code;
use crate::command::ErrorKind;
use crate::save::RelayPlace;

/// What one side's driver did with its core's requests.
#[derive(Default)]
struct Seen {
    shown: Vec<Output>,
    controls: Vec<ClientMessage>,
    links: Vec<LinkAction>,
    end: Option<Result<(), SessionError>>,
    /// The cards in this player's hand as each `table` was shown: what the front end drew it from.
    tables: Vec<usize>,
    /// The save points asked for, in order.
    saves: Vec<SavePoint>,
    /// Channel frames sent.
    frames: usize,
    /// The files this side's driver holds, by path: the deck files given it, and those it wrote.
    files: BTreeMap<PathBuf, String>,
}

impl Seen {
    /// Does what the core asked with a file, in memory; the answer to hand it, if the request has one.
    fn file(&mut self, request: FileRequest) -> Option<FileAnswer> {
        match request {
            FileRequest::ReadDeck { path, .. } => {
                let deck_error = |reason: String| SessionError::Deck { path: path.display().to_string(), reason };
                let read = match self.files.get(&path) {
                    Some(text) => crate::deck::parse_deck("deck.txt", text).map_err(|e| deck_error(e.to_string())),
                    None => Err(deck_error("no such file".into())),
                };
                Some(FileAnswer::Deck(read.map(|deck| DeckRead { deck, warnings: Vec::new() })))
            }
            FileRequest::WriteDeck { text, .. } => {
                let path = PathBuf::from(format!("decks/{}.txt", self.files.len() + 1));
                self.files.insert(path.clone(), text);
                Some(FileAnswer::Written(Ok(path)))
            }
            FileRequest::Remove(path) => {
                self.files.remove(&path);
                None
            }
        }
    }
}

/// Two cores, host first, and the relay between them.
struct Table {
    cores: [SessionCore<Ristretto255>; 2],
    seen: [Seen; 2],
    /// Frames on their way to each side.
    wire: [VecDeque<Vec<u8>>; 2],
    /// Whether the relay holds each side's connection: frames to a side that is away are lost, as the relay
    /// drops them.
    here: [bool; 2],
    now: Instant,
}

fn side(seat: Seat) -> usize {
    usize::from(seat == Seat::GUEST)
}

fn deck() -> DeckList {
    let library = (0..8).map(|i| DeckCard { name: format!("Card {i}"), back: 0 }).collect();
    DeckList { library, ..DeckList::default() }
}

fn core(seat: Seat, words: &Code, now: Instant) -> SessionCore<Ristretto255> {
    core_in(seat, words, now, deck())
}

/// The core of `seat` in suite `G`, seated on the relay, with `deck`.
fn core_in<G: Group>(seat: Seat, words: &Code, now: Instant, deck: DeckList) -> SessionCore<G> {
    let config = EngineConfig { name: format!("{seat:?}"), software: "test".into() };
    let engine = Engine::<G>::new(seat, config, deck, [side(seat) as u8 + 1; 32]).unwrap();
    let channel_side = if seat == Seat::HOST { Side::Host } else { Side::Guest };
    let channel = Channel::new(channel_side, &words.password(), words.nameplate(), [side(seat) as u8 + 9; 32]);
    let relay =
        RelayPlace { url: "ws://relay.test/v1".into(), ca: None, token: Some(format!("token-{seat}")), serve: None };
    let uplink = Uplink::new(LinkState::Up, relay);
    let seed = [side(seat) as u8 + 17; 32];
    let mut core = SessionCore::new(engine, channel, uplink, seed, FORFEIT_GRACE, now).with_code(words.clone());
    if seat == Seat::GUEST {
        // As `fairdeck join` starts it: its engine held back until the host's hello names the suite.
        core.meeting = Meeting::Awaiting;
    }
    core
}

impl Table {
    /// Host and guest, seated and paired by the relay; the guest typed `guest_code`.
    fn new(host_code: &Code, guest_code: &Code) -> Table {
        let now = Instant::now();
        let cores = [core(Seat::HOST, host_code, now), core(Seat::GUEST, guest_code, now)];
        let mut table = Table { cores, seen: Default::default(), wire: Default::default(), here: [true, true], now };
        for seat in [Seat::HOST, Seat::GUEST] {
            table.input(seat, Input::Control(r#"{"type":"paired"}"#.into()));
        }
        table
    }

    /// A table whose game is set up: the channel's key exchange done, both libraries shuffled.
    fn ready() -> Table {
        let code = Code::random("7");
        let mut table = Table::new(&code, &code);
        table.run();
        for seat in [Seat::HOST, Seat::GUEST] {
            assert!(table.saw(seat, |o| matches!(o, Output::Engine(Event::Ready))), "{seat:?} is not ready");
        }
        table
    }

    fn core(&mut self, seat: Seat) -> &mut SessionCore<Ristretto255> {
        &mut self.cores[side(seat)]
    }

    fn input(&mut self, seat: Seat, input: Input) {
        let now = self.now;
        self.core(seat).handle(input, now);
        self.turn(seat);
    }

    fn line(&mut self, seat: Seat, line: &str) {
        self.input(seat, Input::Line(Some(line.into())));
    }

    /// The time moves on by `by`; each core whose deadline came is woken.
    fn wait(&mut self, by: Duration) {
        self.now += by;
        for seat in [Seat::HOST, Seat::GUEST] {
            if self.core(seat).poll_timeout().is_some_and(|deadline| deadline <= self.now) {
                let now = self.now;
                self.core(seat).handle_timeout(now);
                self.turn(seat);
            }
        }
    }

    /// Runs the turn of `seat`'s core as its driver would; its frames go to the other side while the relay holds it.
    fn turn(&mut self, seat: Seat) {
        let i = side(seat);
        let wire = self.here[1 - i].then_some(&mut self.wire[1 - i]);
        turn(&mut self.cores[i], &mut self.seen[i], wire);
    }

    /// Hands frames across until neither side has anything more to say.
    fn run(&mut self) {
        for _ in 0..10_000 {
            let Some(i) = (0..2).find(|&i| !self.wire[i].is_empty()) else { return };
            let frame = self.wire[i].pop_front().unwrap();
            let seat = if i == 0 { Seat::HOST } else { Seat::GUEST };
            self.input(seat, Input::Frame(frame));
        }
        panic!("the table never settled");
    }

    fn saw(&self, seat: Seat, wanted: impl Fn(&Output) -> bool) -> bool {
        self.seen[side(seat)].shown.iter().any(wanted)
    }

    fn forget(&mut self) {
        self.seen = Default::default();
    }
}

/// Runs the turn of `core` as its driver would, draining everything it asks after each step; its frames onto `wire`
/// (none: lost, as the relay drops frames for a side that is away).
fn turn<G: Group>(core: &mut SessionCore<G>, seen: &mut Seen, mut wire: Option<&mut VecDeque<Vec<u8>>>) {
    loop {
        drain(core, seen, wire.as_deref_mut());
        if !core.advance() {
            drain(core, seen, wire);
            return;
        }
    }
}

fn drain<G: Group>(core: &mut SessionCore<G>, seen: &mut Seen, mut wire: Option<&mut VecDeque<Vec<u8>>>) {
    seen.saves.extend(core.poll_save());
    while let Some(transmit) = core.poll_transmit() {
        match transmit {
            ToRelay::Frame(frame) => {
                seen.frames += 1;
                if let Some(wire) = wire.as_deref_mut() {
                    wire.push_back(frame);
                }
            }
            ToRelay::Control(message) => seen.controls.push(message),
        }
    }
    while let Some(output) = core.poll_output() {
        if output == Output::Table {
            let engine = core.engine();
            seen.tables.push(engine.table().zone(ZoneId::hand(engine.seat())).len());
        }
        seen.shown.push(output);
    }
    while let Some(request) = core.poll_file() {
        if let Some(answer) = seen.file(request) {
            core.handle(Input::File(answer), Instant::now());
        }
    }
    while let Some(action) = core.poll_link() {
        seen.links.push(action);
    }
    if let Some(end) = core.poll_end() {
        seen.end = Some(end);
    }
}

fn drew(by: Seat) -> impl Fn(&Output) -> bool {
    move |output| matches!(output, Output::Engine(Event::Applied { by: b, action: Action::Draw { count: 1 }, .. }) if *b == by)
}

fn learned(output: &Output) -> bool {
    matches!(output, Output::Engine(Event::Learned { .. }))
}

#[test]
fn a_draw_reaches_the_other_side_and_its_card_comes_back_known() {
    let mut table = Table::ready();
    table.forget();
    table.line(Seat::HOST, "draw 1");
    assert!(table.saw(Seat::HOST, drew(Seat::HOST)));
    assert!(!table.saw(Seat::GUEST, drew(Seat::HOST)), "nothing crossed yet");
    table.run();
    assert!(table.saw(Seat::GUEST, drew(Seat::HOST)), "the guest's table shows the draw");
    assert!(table.saw(Seat::HOST, learned), "the guest's strip came back: the host knows its card");
    assert!(!table.saw(Seat::GUEST, learned), "the guest learns nothing of the host's hand");
    let hand = |core: &SessionCore<Ristretto255>| core.engine().table().zone(ZoneId::hand(Seat::HOST)).len();
    assert_eq!((hand(&table.cores[0]), hand(&table.cores[1])), (1, 1));
}

#[test]
fn the_answer_is_saved_and_sent_in_the_drain_that_shows_what_it_answers() {
    let mut table = Table::ready();
    table.line(Seat::HOST, "draw 1");
    let now = table.now;
    let frames: Vec<Vec<u8>> = table.wire[1].drain(..).collect();
    let guest = &mut table.cores[1];
    for frame in frames {
        guest.handle(Input::Frame(frame), now);
    }
    // Drain by drain, as the driver runs the turn: the strip does not wait for a step after the draw is shown.
    let mut drains = Vec::new();
    loop {
        drains.push(Seen::default());
        drain(guest, drains.last_mut().unwrap(), None);
        if !guest.advance() {
            break;
        }
    }
    let shown = drains.iter().position(|seen| seen.shown.iter().any(drew(Seat::HOST))).expect("the draw is shown");
    assert_eq!(drains[shown].saves, [SavePoint::Sending], "saved before the strip leaves");
    assert!(drains[shown].frames > 0, "the strip leaves in the same drain");
    assert_eq!(drains.iter().map(|seen| seen.frames).sum::<usize>(), drains[shown].frames);
}

#[test]
fn the_ack_of_a_message_not_answered_waits_for_the_next_message_and_no_save_is_written_for_it() {
    let mut table = Table::ready();
    table.wait(Duration::from_secs(1));
    table.run();
    table.forget();
    table.line(Seat::HOST, "draw 1");
    table.run();
    assert!(table.saw(Seat::HOST, learned));
    assert_eq!(table.seen[0].frames, 1, "the draw went; the guest's strip is not acknowledged yet");
    assert_eq!(table.seen[0].saves.last(), Some(&SavePoint::Settled), "the strip taken in, nothing to send");
    let ack_at = table.core(Seat::HOST).poll_timeout().expect("the held ack has a deadline");
    assert!(ack_at > table.now);

    // The next draw carries the ack: the guest takes it in and answers at once.
    table.line(Seat::HOST, "draw 1");
    table.run();
    assert_eq!(table.seen[0].frames, 2, "no ack frame of its own");
    assert!(table.saw(Seat::GUEST, drew(Seat::HOST)));
    let guest_sent = table.seen[1].frames;

    // Unanswered, the last strip is acknowledged once the delay passed: saved first, then the ack; the guest
    // writes nothing for an ack alone.
    table.forget();
    table.wait(ack_at - table.now);
    assert_eq!(table.seen[0].frames, 1, "the ack left");
    assert_eq!(table.seen[0].saves.first(), Some(&SavePoint::Sending));
    table.run();
    assert!(table.seen[1].saves.iter().all(|point| *point == SavePoint::Settled), "the ack taken in, nothing to send");
    assert_eq!(table.seen[1].frames, 0);
    assert!(guest_sent > 0);
    assert_eq!(table.core(Seat::HOST).poll_timeout(), None, "nothing owed, nothing due");
}

#[test]
fn a_player_who_quits_sends_the_ack_it_held_back_saved_first() {
    let mut table = Table::ready();
    table.wait(Duration::from_secs(1));
    table.run();
    table.line(Seat::HOST, "draw 1");
    table.run();
    assert!(table.core(Seat::HOST).poll_timeout().is_some(), "the strip's ack is held back");
    table.forget();
    table.line(Seat::HOST, "quit");
    assert_eq!(table.seen[0].frames, 1, "the ack left with the player");
    assert_eq!(table.seen[0].saves.last(), Some(&SavePoint::Sending));
    assert!(matches!(table.seen[0].end, Some(Ok(()))));
    table.run();
    assert_eq!(table.core(Seat::GUEST).channel().unacked_frames(), 0, "the guest keeps nothing for the host");
}

#[test]
fn the_session_s_last_line_goes_to_its_save_and_makes_none() {
    let mut table = Table::ready();
    let games = tempfile::tempdir().unwrap();
    let mut saver = super::saving::Saver::new(games.path().to_path_buf(), None);
    saver.keep(table.core(Seat::HOST)).unwrap();
    assert_eq!(std::fs::read_dir(games.path()).unwrap().count(), 0, "a game never saved leaves no save behind");
    saver.save(table.core(Seat::HOST), SavePoint::Sending).unwrap();
    let path = table.core(Seat::HOST).saved_at.clone().expect("the save is made");
    let before = std::fs::metadata(&path).unwrap().len();
    table.line(Seat::HOST, "draw 1");
    table.run();
    saver.keep(table.core(Seat::HOST)).unwrap();
    assert!(std::fs::metadata(&path).unwrap().len() > before, "what came since is kept");
}

/// `sideboard` trades cards for the next game, which `new-game` takes: the same cards, so not a changed deck, though
/// its hash changed; a deck file with other cards is one.
#[test]
fn a_sideboarded_deck_is_not_a_changed_one_and_a_deck_off_the_75_is() {
    let mut table = Table::ready();
    table.forget();
    table.line(Seat::GUEST, "sideboard out card 1 in card 7");
    assert!(table.saw(Seat::GUEST, |o| matches!(o, Output::CommandError { .. })), "Card 7 is not in the sideboard");
    table.line(Seat::GUEST, "sideboard out card 1 out card 2");
    let sideboarded = |o: &Output| matches!(o, Output::Sideboarded { main: 6, sideboard: 2, .. });
    assert!(table.saw(Seat::GUEST, sideboarded));
    table.seen[0].files.insert("other.txt".into(), "8 Other Card\n".into());
    table.line(Seat::HOST, "new-game other.txt");
    table.line(Seat::GUEST, "new-game");
    table.run();
    let changed = |seat: Seat| move |o: &Output| matches!(o, Output::Engine(Event::DeckLabel { seat: s, changed: true, .. }) if *s == seat);
    for seat in [Seat::HOST, Seat::GUEST] {
        assert!(table.saw(seat, |o| matches!(o, Output::Engine(Event::NewGame { number: 2 }))), "{seat:?}");
        assert!(table.saw(seat, changed(Seat::HOST)), "{seat:?} sees the host's deck off the 75");
        assert!(!table.saw(seat, changed(Seat::GUEST)), "{seat:?} sees the guest's sideboarded deck unchanged");
    }
    let guest = table.core(Seat::GUEST).engine().deck();
    assert_eq!((guest.library.len(), guest.sideboard.len()), (6, 2));
}

/// A deck file is read by the driver, not the core: `new-game` waits for the answer, and a file that cannot be read
/// refuses it, the commands after it going on in order.
#[test]
fn new_game_asks_the_driver_for_its_deck_file_and_a_file_it_cannot_read_is_refused() {
    let mut table = Table::ready();
    table.forget();
    let now = table.now;
    table.core(Seat::HOST).handle(Input::Line(Some("new-game missing.txt".into())), now);
    table.core(Seat::HOST).handle(Input::Line(Some("table".into())), now);
    while table.core(Seat::HOST).advance() {}
    let asked = table.core(Seat::HOST).poll_file();
    assert_eq!(asked, Some(FileRequest::ReadDeck { path: "missing.txt".into(), checked: true }));
    assert!(table.core(Seat::HOST).poll_output().is_none(), "nothing runs before the answer");
    let answer = table.seen[0].file(asked.unwrap()).unwrap();
    table.input(Seat::HOST, Input::File(answer));
    let shown = &table.seen[0].shown;
    let refused = matches!(&shown[0], Output::CommandError { kind: ErrorKind::BadDeck, command, .. }
        if command == "new-game missing.txt");
    assert!(refused, "{shown:?}");
    assert_eq!(shown[1], Output::Table, "the next command runs after it");
}

#[test]
fn commands_queued_together_are_each_shown_with_the_table_as_they_left_it() {
    let code = Code::random("7");
    let mut table = Table::new(&code, &code);
    // Typed before the game is set up: they wait, then run in one turn once it is.
    for line in ["draw 1", "table", "draw 1", "table"] {
        table.line(Seat::HOST, line);
    }
    assert!(table.seen[0].tables.is_empty(), "draws wait for the set-up, and the table behind them");
    table.run();
    assert_eq!(table.seen[0].tables, [1, 2], "each `table` shows the hand after the draws before it only");
}

#[test]
fn a_dropped_link_is_taken_back_on_its_backoff_and_the_draw_made_meanwhile_arrives() {
    let mut table = Table::ready();
    table.forget();
    table.here[0] = false;
    table.input(Seat::HOST, Input::Lost("the connection was cut".into()));
    assert!(table.saw(Seat::HOST, |o| matches!(o, Output::RelayLost(_))));
    assert!(
        matches!(&table.seen[0].links[..], [LinkAction::Close, LinkAction::Claim(Claim::Token(t))] if t == "token-host")
    );
    // Commands go on while the link is down: the draw waits in the channel.
    table.line(Seat::HOST, "draw 1");
    assert!(table.saw(Seat::HOST, drew(Seat::HOST)));
    assert!(table.wire[1].is_empty(), "no frame leaves while the link is down");

    // The attempt fails: the next one waits 200 ms, then 400 ms.
    table.seen[0].links.clear();
    table.input(Seat::HOST, Input::Unseated(SessionError::Lost("refused".into())));
    assert!(table.seen[0].links.is_empty(), "no attempt before its moment");
    assert_eq!(table.core(Seat::HOST).poll_timeout(), Some(table.now + Duration::from_millis(200)));
    table.wait(Duration::from_millis(199));
    assert!(table.seen[0].links.is_empty());
    table.wait(Duration::from_millis(1));
    assert!(matches!(&table.seen[0].links[..], [LinkAction::Claim(Claim::Token(_))]));
    table.input(Seat::HOST, Input::Unseated(SessionError::Lost("refused".into())));
    assert_eq!(table.core(Seat::HOST).poll_timeout(), Some(table.now + Duration::from_millis(400)));
    table.wait(Duration::from_millis(400));

    // Seated again: the channel resends what the guest lacks.
    table.here[0] = true;
    let seated = Seated::Resumed { peer: PeerState::Present, waiting_as: None };
    table.input(Seat::HOST, Input::Seated { seated, max_frame: 1 << 20 });
    assert!(table.saw(Seat::HOST, |o| *o == Output::Resumed { peer_here: true }));
    table.run();
    assert!(table.saw(Seat::GUEST, drew(Seat::HOST)), "the draw made while away reached the guest");
    assert!(table.saw(Seat::HOST, learned));
}

#[test]
fn taking_the_seat_back_gives_up_after_a_minute_naming_the_save() {
    let mut table = Table::ready();
    table.core(Seat::HOST).saved("/games/ada.fairdeck".into());
    table.input(Seat::HOST, Input::Lost("the connection was cut".into()));
    let mut attempts = 0;
    while table.seen[0].end.is_none() {
        assert!(attempts < 100, "it never gave up");
        attempts += 1;
        table.input(Seat::HOST, Input::Unseated(SessionError::Lost("refused".into())));
        if let Some(deadline) = table.core(Seat::HOST).poll_timeout() {
            table.wait(deadline - table.now);
        }
    }
    let Some(Err(SessionError::Lost(message))) = &table.seen[0].end else { panic!("{:?}", table.seen[0].end) };
    assert!(message.contains("could not reconnect") && message.contains("/games/ada.fairdeck"), "{message}");
    // 200 ms doubling up to 5 s, for 60 s: a handful of quick attempts, then one each 5 s.
    assert!((14..=18).contains(&attempts), "{attempts} attempts");
}

#[test]
fn a_relay_that_says_come_back_is_tried_again_when_it_says_until_the_minute_is_out() {
    let mut table = Table::ready();
    table.core(Seat::HOST).saved("/games/ada.fairdeck".into());
    table.input(Seat::HOST, Input::Lost("the connection was cut".into()));
    let come_back = || SessionError::ComeBack { after: Duration::from_millis(700) };
    table.input(Seat::HOST, Input::Unseated(come_back()));
    assert_eq!(table.core(Seat::HOST).poll_timeout(), Some(table.now + Duration::from_millis(700)), "when it says");
    let mut attempts = 1;
    while table.seen[0].end.is_none() {
        assert!(attempts < 200, "it never gave up");
        if let Some(deadline) = table.core(Seat::HOST).poll_timeout() {
            table.wait(deadline - table.now);
        }
        attempts += 1;
        table.input(Seat::HOST, Input::Unseated(come_back()));
    }
    let Some(Err(SessionError::Lost(message))) = &table.seen[0].end else { panic!("{:?}", table.seen[0].end) };
    assert!(message.contains("asked to come back") && message.contains("/games/ada.fairdeck"), "{message}");
    // Every 700 ms for the minute (no longer: a relay that always says so would hold the game for ever).
    assert!((85..=88).contains(&attempts), "{attempts} attempts");
}

#[test]
fn a_seat_taken_by_another_copy_of_the_game_stops_this_one_without_taking_it_back() {
    let mut table = Table::ready();
    table.forget();
    let replaced = r#"{"type":"error","code":"replaced","message":"another connection resumed this seat"}"#;
    table.input(Seat::GUEST, Input::Control(replaced.into()));
    let Some(Err(SessionError::Lost(message))) = &table.seen[1].end else { panic!("{:?}", table.seen[1].end) };
    assert!(message.contains("another fairdeck took this game's seat"), "{message}");
    // Taking the seat back would unseat the other copy, which would do the same: no claim, ever.
    assert!(!table.seen[1].links.iter().any(|action| matches!(action, LinkAction::Claim(_))));
    table.wait(Duration::from_secs(5));
    assert!(!table.seen[1].links.iter().any(|action| matches!(action, LinkAction::Claim(_))));
}

#[test]
fn quit_waits_for_the_acknowledgements_until_its_grace_runs_out() {
    let mut table = Table::ready();
    table.forget();
    // The guest is away: what the host sends is never acknowledged.
    table.here[1] = false;
    table.line(Seat::HOST, "draw 1");
    table.line(Seat::HOST, "quit");
    assert!(table.seen[0].end.is_none(), "quit waits for the guest's acknowledgement");
    assert_eq!(table.core(Seat::HOST).poll_timeout(), Some(table.now + Duration::from_secs(5)));
    table.wait(Duration::from_millis(4_999));
    assert!(table.seen[0].end.is_none());
    table.wait(Duration::from_millis(1));
    assert!(matches!(table.seen[0].end, Some(Ok(()))));
    assert!(table.saw(Seat::HOST, |o| *o == Output::Table), "quit shows the table");
    assert!(matches!(table.seen[0].links.last(), Some(LinkAction::Leave(None))));
}

#[test]
fn quit_leaves_once_the_opponent_acknowledged() {
    let mut table = Table::ready();
    table.line(Seat::HOST, "draw 1");
    table.line(Seat::HOST, "quit");
    assert!(table.seen[0].end.is_none());
    table.run();
    assert!(matches!(table.seen[0].end, Some(Ok(()))), "acknowledged, it leaves before the grace");
}

#[test]
fn a_guest_with_another_code_is_sent_away_and_the_seat_given_to_the_next() {
    let host_code = Code::random("7");
    let mut table = Table::new(&host_code, &Code::random("7"));
    table.run();
    let attempts = Output::WrongCodeTried { attempts: 1, reopened: true };
    assert!(table.saw(Seat::HOST, |o| *o == attempts));
    assert_eq!(
        table.seen[0].controls,
        [ClientMessage::Report { result: ReportedResult::Scary }, ClientMessage::Reopen],
        "the host reports the guess and reopens its room"
    );
    assert!(table.seen[0].end.is_none(), "the host's game stays open");
    assert!(matches!(table.seen[1].end, Some(Err(SessionError::WrongCode))));
    assert!(matches!(table.seen[1].links[..], [LinkAction::Abandon(ReportedResult::Scary)]), "not `leave`");
}

/// With the configuration's `untap_draw`, the turn the opponent passes to the player begins with its cards untapped
/// and a card drawn; without it, nothing is done for the player.
#[test]
fn untap_draw_untaps_and_draws_when_the_opponent_passes_the_turn() {
    let mut table = Table::ready();
    table.core(Seat::GUEST).untap_draw = true;
    table.line(Seat::HOST, "play-first");
    table.line(Seat::GUEST, "draw 1");
    table.run();
    let card = table.cores[1].engine().table().zone(ZoneId::hand(Seat::GUEST))[0];
    table.line(Seat::GUEST, &format!("play {card}"));
    table.run();
    table.line(Seat::GUEST, &format!("tap {card}"));
    table.run();
    // `seat`'s hand as each table has it: host's, guest's.
    let hand = |table: &Table, seat: Seat| {
        table.cores.each_ref().map(|core| core.engine().table().zone(ZoneId::hand(seat)).len())
    };
    let tapped = |table: &Table| table.cores[0].engine().table().card(card).is_some_and(|c| c.tapped);
    assert!(tapped(&table));
    // The host passes its turn: the guest's turn begins untapped, with a card more, on both tables.
    table.line(Seat::HOST, "next-turn");
    table.run();
    assert!(!tapped(&table), "the guest's card is untapped");
    assert_eq!(hand(&table, Seat::GUEST), [1, 1]);
    // The guest passes it back: the host, without the setting, draws nothing.
    table.line(Seat::GUEST, "next-turn");
    table.run();
    assert_eq!(hand(&table, Seat::HOST), [0, 0]);
    assert_eq!(hand(&table, Seat::GUEST), [1, 1]);
}

/// A deck of one card: the meeting tests look at hellos, not at a shuffle.
fn one_card() -> DeckList {
    DeckList { library: vec![DeckCard { name: "Card 0".into(), back: 0 }], ..DeckList::default() }
}

/// Hands one frame across between a host and a guest of any suites, the host's first; whether there was one.
fn hand_one<A: Group, B: Group>(
    (host, guest): (&mut SessionCore<A>, &mut SessionCore<B>),
    seen: &mut [Seen; 2],
    wire: &mut [VecDeque<Vec<u8>>; 2],
    now: Instant,
) -> bool {
    let [host_seen, guest_seen] = seen;
    let [to_host, to_guest] = wire;
    if let Some(frame) = to_host.pop_front() {
        host.handle(Input::Frame(frame), now);
        turn(host, host_seen, Some(to_guest));
    } else if let Some(frame) = to_guest.pop_front() {
        guest.handle(Input::Frame(frame), now);
        turn(guest, guest_seen, Some(to_host));
    } else {
        return false;
    }
    true
}

/// `seat`'s core of any suite takes `input` and runs its turn, its frames onto `wire`.
fn give<G: Group>(
    core: &mut SessionCore<G>,
    input: Input,
    seen: &mut Seen,
    wire: &mut VecDeque<Vec<u8>>,
    now: Instant,
) {
    core.handle(input, now);
    turn(core, seen, Some(wire));
}

fn connected_in(suite: Suite) -> impl Fn(&Output) -> bool {
    move |output| matches!(output, Output::Engine(Event::Connected { suite: s, .. }) if *s == suite)
}

#[test]
fn a_guest_goes_on_in_the_suite_of_the_hosts_hello_having_played_no_part_before() {
    let (now, code) = (Instant::now(), Code::random("7"));
    let mut host = core_in::<Modp2048>(Seat::HOST, &code, now, one_card());
    let mut guest = core_in::<Ristretto255>(Seat::GUEST, &code, now, one_card());
    let (mut seen, mut wire) = (<[Seen; 2]>::default(), <[VecDeque<Vec<u8>>; 2]>::default());
    let paired = || Input::Control(r#"{"type":"paired"}"#.into());
    give(&mut host, paired(), &mut seen[0], &mut wire[1], now);
    give(&mut guest, paired(), &mut seen[1], &mut wire[0], now);
    // Typed before the host's hello: `table` runs, `say` waits for the suite (the engine that would take it may not
    // be the game's), and the commands behind it too.
    for line in ["table", "say hello", "table"] {
        give(&mut guest, Input::Line(Some(line.into())), &mut seen[1], &mut wire[0], now);
    }
    assert_eq!(seen[1].tables, [0]);
    while guest.elsewhere().is_none() && hand_one((&mut host, &mut guest), &mut seen, &mut wire, now) {}
    assert_eq!(guest.elsewhere(), Some(Suite::Modp2048));
    assert!(!seen[1].shown.iter().any(|o| matches!(o, Output::Taken(_))), "nothing went to the engine");
    // Nothing of the guest's own engine (its hello of another suite) reached the host, which would refuse it.
    while hand_one((&mut host, &mut guest), &mut seen, &mut wire, now) {}
    assert!(!seen[0].shown.iter().any(|o| matches!(o, Output::Engine(_))), "{:?}", seen[0].shown);

    let engine = guest.engine_in::<Modp2048>([5; 32]).unwrap();
    let mut guest = guest.into_suite(engine);
    turn(&mut guest, &mut seen[1], Some(&mut wire[0]));
    assert!(seen[1].shown.iter().any(connected_in(Suite::Modp2048)), "the guest is told the host's suite");
    assert!(seen[1].shown.contains(&Output::Taken(Intent::Chat("hello".into()))), "the queued command ran");
    while !seen[0].shown.iter().any(connected_in(Suite::Modp2048))
        && hand_one((&mut host, &mut guest), &mut seen, &mut wire, now)
    {}
    assert!(seen[0].shown.iter().any(connected_in(Suite::Modp2048)), "the host took the guest's hello");
    for (core_halted, side) in [(host.engine().halted(), "host"), (guest.engine().halted(), "guest")] {
        assert_eq!(core_halted, None, "{side}");
    }
    assert_eq!(guest.engine().journal().suite, Suite::Modp2048, "the guest's save and journal are of the game's suite");
}

#[test]
fn a_first_message_naming_no_suite_goes_to_the_guests_engine_which_refuses_it() {
    // A hello whose suite is one no program knows: its tag made 7 (the body: kind, protocol, software, suite).
    let config = EngineConfig { name: "Host".into(), software: "test".into() };
    let mut source = Engine::<Ristretto255>::new(Seat::HOST, config, one_card(), [9; 32]).unwrap();
    let mut envelope = decode_envelope(&source.poll_transmit().unwrap()).unwrap();
    let at = 1 + 1 + 1 + "test".len();
    assert_eq!(envelope.body[at], 0, "ristretto255's tag");
    envelope.body[at] = 7;
    let unknown_suite = encode_envelope(&envelope);
    assert!(peek_suite(&unknown_suite).is_err());
    for first in [unknown_suite, b"not an envelope".to_vec(), Vec::new()] {
        let (now, code) = (Instant::now(), Code::random("7"));
        let mut host = core_in::<Modp2048>(Seat::HOST, &code, now, one_card());
        // The host's first message, before its engine's hello.
        host.channel.send(first.clone()).unwrap();
        let mut guest = core_in::<Ristretto255>(Seat::GUEST, &code, now, one_card());
        let (mut seen, mut wire) = (<[Seen; 2]>::default(), <[VecDeque<Vec<u8>>; 2]>::default());
        let paired = || Input::Control(r#"{"type":"paired"}"#.into());
        give(&mut host, paired(), &mut seen[0], &mut wire[1], now);
        give(&mut guest, paired(), &mut seen[1], &mut wire[0], now);
        while guest.engine().halted().is_none() && hand_one((&mut host, &mut guest), &mut seen, &mut wire, now) {}
        assert_eq!(guest.elsewhere(), None, "{first:?}");
        assert!(guest.engine().halted().is_some(), "{first:?}: the guest's engine refused it");
        assert!(seen[1].shown.iter().any(|o| matches!(o, Output::Engine(Event::Alert(_)))), "{first:?}");
    }
}

#[test]
fn a_deck_the_hosts_suite_cannot_take_ends_the_guests_session_before_the_game_leaving_the_room() {
    let library = (0..301).map(|i| DeckCard { name: format!("Card {i}"), back: 0 }).collect();
    let deck = DeckList { library, ..DeckList::default() };
    let mut guest = core_in::<Ristretto255>(Seat::GUEST, &Code::random("7"), Instant::now(), deck);
    let error = guest.engine_in::<Modp2048>([5; 32]).err().expect("301 cards are too many for modp2048");
    assert!(matches!(error, SessionError::Suite { suite: Suite::Modp2048, .. }), "{error:?}");
    assert!(error.to_string().contains("at most 300 cards"), "{error}");
    assert!(guest.engine_in::<Ristretto255>([5; 32]).is_ok());
    guest.refuse_suite(error);
    let mut seen = Seen::default();
    drain(&mut guest, &mut seen, None);
    assert!(matches!(seen.links[..], [LinkAction::Leave(Some(ReportedResult::Errored))]), "{:?}", seen.links);
    assert!(matches!(seen.end, Some(Err(SessionError::Suite { .. }))));
}

#[test]
fn a_relay_that_asks_to_come_back_after_ages_is_tried_again_within_bounds() {
    let mut table = Table::ready();
    table.forget();
    let closing = r#"{"type":"closing","reason":"restart","reconnect_after_ms":18446744073709551615,"try_for_ms":18446744073709551615}"#;
    table.input(Seat::HOST, Input::Control(closing.into()));
    table.input(Seat::HOST, Input::Lost("the connection was cut".into()));
    let next = table.core(Seat::HOST).poll_timeout().expect("an attempt is scheduled");
    assert!(next <= table.now + Duration::from_secs(30), "{:?} from now", next - table.now);
}

mod watching;
