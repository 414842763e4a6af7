//! The terminal table as a player sees it: views built from two real engines playing in memory, drawn to
//! ratatui's `TestBackend`, and read back cell by cell.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use fairdeck::command::{self, COMMANDS, Command, Key, Shortcut, shortcuts};
use fairdeck::session::{FORFEIT_HINT_AFTER, Output, Waiting};
use fairdeck::ui::View;
use fairdeck::ui::keys::{OTHER_KEYS, handle_key};
use fairdeck::ui::log::LogKind;
use fairdeck::ui::render::render;
use fairdeck::ui::view::Overlay;
use fairdeck_shared::Seat;
use fairdeck_shared::crypto::Ristretto255;
use fairdeck_shared::engine::{Event, Intent};
use fairdeck_shared::pair::{Pair, numbered_deck};
use fairdeck_shared::table::{CardId, ZoneId};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};

const WIDTH: u16 = 130;
const HEIGHT: u16 = 40;

/// Two engines (decks of ten cards and two in the sideboard), set up with both libraries shuffled.
fn ready_pair() -> Pair<Ristretto255> {
    let mut pair = Pair::new(numbered_deck("Host", 10, 2), numbered_deck("Guest", 10, 2), 7);
    pair.drive();
    assert!(pair.host.is_ready() && pair.guest.is_ready(), "set-up did not finish");
    pair
}

/// Runs a scripted-mode command line for `seat`, as the command line would.
fn act(pair: &mut Pair<Ristretto255>, seat: Seat, line: &str) {
    let Ok(Command::Act(action)) = command::parse(line, seat) else { panic!("{line} is not an action") };
    pair.intent(seat, Intent::Act(action)).unwrap_or_else(|e| panic!("{line}: {e}"));
    pair.drive();
}

fn hand(pair: &Pair<Ristretto255>, seat: Seat) -> Vec<CardId> {
    pair.engine(seat).table().zone(ZoneId::hand(seat)).to_vec()
}

/// The view of `seat`'s player after a paired, connected session and every engine event so far.
fn view_of(pair: &Pair<Ristretto255>, seat: Seat) -> View {
    let engine = pair.engine(seat);
    let mut view = View::new("ws://127.0.0.1:7171/v1");
    for output in [Output::Paired, Output::ChannelEstablished] {
        view.apply(&output, engine);
    }
    for event in pair.events(seat) {
        view.apply(&Output::Engine(event.clone()), engine);
    }
    view
}

fn draw(view: &View, width: u16, height: u16) -> Buffer {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("test terminal");
    terminal.draw(|frame| render(frame, view)).expect("draw");
    terminal.backend().buffer().clone()
}

/// The screen's rows as text; the no-break spaces that hold a card's name together read as spaces.
fn rows(buffer: &Buffer) -> Vec<String> {
    let area = buffer.area;
    let row = |y| (0..area.width).map(|x| buffer[(x, y)].symbol()).collect::<String>().replace('\u{a0}', " ");
    (0..area.height).map(row).collect()
}

fn screen(buffer: &Buffer) -> String {
    rows(buffer).join("\n")
}

/// Where `needle` starts on the screen (column, row), cell by cell.
fn find(buffer: &Buffer, needle: &str) -> Option<(u16, u16)> {
    let needle: Vec<String> = needle.chars().map(String::from).collect();
    let area = buffer.area;
    for y in 0..area.height {
        let cells: Vec<&str> =
            (0..area.width).map(|x| buffer[(x, y)].symbol()).map(|s| if s == "\u{a0}" { " " } else { s }).collect();
        if let Some(x) = cells.windows(needle.len()).position(|w| w.iter().zip(&needle).all(|(a, b)| *a == b)) {
            return Some((x as u16, y));
        }
    }
    None
}

/// The screen row holding `needle`.
fn row_with(buffer: &Buffer, needle: &str) -> String {
    let (_, y) = find(buffer, needle).unwrap_or_else(|| panic!("{needle:?} is not on the screen:\n{}", screen(buffer)));
    rows(buffer)[usize::from(y)].clone()
}

fn name(pair: &Pair<Ristretto255>, seat: Seat, card: CardId) -> String {
    pair.engine(seat).identity(card).expect("known card").name.clone()
}

/// The row of a play area that lists `card` (its id padded to a column, then its name), not a log line.
fn play_row(buffer: &Buffer, pair: &Pair<Ristretto255>, seat: Seat, card: CardId) -> String {
    row_with(buffer, &format!("{:<8}{}", card.to_string(), name(pair, seat, card)))
}

/// The host drew three cards, played one face up (tapped, with a counter) and one face down; the guest
/// drew two and played one.
fn played_game() -> (Pair<Ristretto255>, CardId, CardId, CardId) {
    let mut pair = ready_pair();
    act(&mut pair, Seat::Host, "draw 3");
    act(&mut pair, Seat::Guest, "draw 2");
    let host_hand = hand(&pair, Seat::Host);
    let (up, down) = (host_hand[0], host_hand[1]);
    act(&mut pair, Seat::Host, &format!("play {} at 4,2", up.0));
    act(&mut pair, Seat::Host, &format!("tap {}", up.0));
    act(&mut pair, Seat::Host, &format!("counter {} +1/+1 2", up.0));
    act(&mut pair, Seat::Host, &format!("play {} at 1,1 facedown", down.0));
    let theirs = hand(&pair, Seat::Guest)[0];
    act(&mut pair, Seat::Guest, &format!("play {} at 0,0", theirs.0));
    (pair, up, down, theirs)
}

#[test]
fn zones_hand_and_play_areas_as_each_player_sees_them() {
    let (pair, up, down, theirs) = played_game();
    let buffer = draw(&view_of(&pair, Seat::Host), WIDTH, HEIGHT);
    let text = screen(&buffer);

    // Counts of both sides, in one line each.
    assert!(text.contains("library 7 · hand 1 · graveyard 0 · exile 0 · sideboard 2 · play 2"), "{text}");
    assert!(text.contains("library 8 · hand 1 · graveyard 0 · exile 0 · sideboard 2 · play 1"), "{text}");
    // The host's own hand, face up with its id; the guest's hand as one back.
    let mine = hand(&pair, Seat::Host)[0];
    assert!(row_with(&buffer, "You (Host)").contains("life —"));
    assert!(text.contains(&format!("{mine} {}", name(&pair, Seat::Host, mine))), "{text}");
    assert_eq!(text.matches("[▒▒]").count(), 1, "{text}");
    // Play areas: the tapped card with its counter and position, the face-down card (the host knows it).
    let tapped = play_row(&buffer, &pair, Seat::Host, up);
    assert!(tapped.contains(&name(&pair, Seat::Host, up)) && tapped.contains("at 4,2"), "{tapped}");
    assert!(tapped.contains("TAPPED") && tapped.contains("[+1/+1: 2]"), "{tapped}");
    let face_down = play_row(&buffer, &pair, Seat::Host, down);
    assert!(face_down.contains("at 1,1") && face_down.contains("FACE DOWN"), "{face_down}");
    assert!(face_down.contains(&name(&pair, Seat::Host, down)), "{face_down}");
    assert!(play_row(&buffer, &pair, Seat::Host, theirs).contains("at 0,0"));
    assert!(text.contains("You drew 3 cards"), "{text}");
    assert!(text.contains("Guest drew 2 cards"), "{text}");

    // The guest sees the host's face-down card as a face-down card, not its name.
    let buffer = draw(&view_of(&pair, Seat::Guest), WIDTH, HEIGHT);
    let face_down = row_with(&buffer, &format!("{:<8}face-down card", down.to_string()));
    assert!(face_down.contains("at 1,1") && !face_down.contains(&name(&pair, Seat::Host, down)));
    assert_eq!(screen(&buffer).matches("[▒▒]").count(), 1, "the host's one card in hand is a back");
}

#[test]
fn an_alert_is_red_bold_and_marked() {
    let (mut pair, up, ..) = played_game();
    // The guest untaps the host's card: the host's engine tells the host.
    act(&mut pair, Seat::Guest, &format!("untap {}", up.0));
    assert!(pair.events(Seat::Host).iter().any(|e| matches!(e, Event::Alert(_))), "no alert raised");
    let buffer = draw(&view_of(&pair, Seat::Host), WIDTH, HEIGHT);
    let (x, y) = find(&buffer, "!! ").unwrap_or_else(|| panic!("no alert mark:\n{}", screen(&buffer)));
    let cell = &buffer[(x, y)];
    assert_eq!(cell.fg, Color::Red);
    assert!(cell.modifier.contains(Modifier::BOLD));
    assert!(rows(&buffer)[usize::from(y)].contains("Moved your cards"));
    // An ordinary action line is not styled as an alert.
    let (x, y) = find(&buffer, "You drew 3 cards").expect("action line");
    assert_ne!(buffer[(x, y)].fg, Color::Red);
}

/// How the `?` help shows a key: the key, then the line it runs or the usage of the command it types.
fn shown(shortcut: &Shortcut) -> String {
    let command = if shortcut.line.starts_with(&shortcut.spec.usage()) || shortcut.prefill {
        shortcut.spec.usage()
    } else {
        shortcut.line.clone()
    };
    format!(" {:<3} {command}", shortcut.key)
}

#[test]
fn the_help_overlay_lists_every_shortcut_after_a_question_mark() {
    let pair = ready_pair();
    let mut view = view_of(&pair, Seat::Host);
    assert!(find(&draw(&view, WIDTH, HEIGHT), "Keys and commands").is_none());
    assert_eq!(handle_key(&mut view, key('?')), None);
    let buffer = draw(&view, WIDTH, HEIGHT);
    assert!(find(&buffer, "Keys and commands (any key closes)").is_some(), "{}", screen(&buffer));
    for shortcut in shortcuts() {
        let row = row_with(&buffer, &shown(&shortcut));
        assert!(row.contains(shortcut.about.split(' ').next().unwrap()), "{row}");
    }
    // Any key closes it, and does nothing else.
    assert_eq!(handle_key(&mut view, key('d')), None);
    assert!(find(&draw(&view, WIDTH, HEIGHT), "Keys and commands").is_none());
}

/// Every page of the `?` help at `width` × `height`, as screens, turning pages with Space until the first
/// comes back.
fn help_pages(view: &mut View, width: u16, height: u16) -> Vec<Buffer> {
    handle_key(view, key('?'));
    let mut pages = vec![draw(view, width, height)];
    for _ in 0..10 {
        handle_key(view, key(' '));
        let page = draw(view, width, height);
        if screen(&page) == screen(&pages[0]) {
            break;
        }
        pages.push(page);
    }
    handle_key(view, special(KeyCode::Esc));
    pages
}

#[test]
fn the_help_lists_every_command_and_key_and_fits_80_by_24_in_pages() {
    let pair = ready_pair();
    let mut view = view_of(&pair, Seat::Host);
    let pages = help_pages(&mut view, 80, 24);
    assert!(pages.len() > 1, "the table's commands take more than one 80×24 page");
    assert_eq!(view.overlay, Overlay::None, "Esc closes the help");
    let texts: Vec<String> = pages.iter().map(screen).collect();
    let everything = texts.join("\n");
    for (number, page) in pages.iter().enumerate() {
        let text = &texts[number];
        // The whole popup is on screen: its title with the page, and its bottom border.
        let title = format!("Keys and commands {}/{}", number + 1, pages.len());
        assert!(find(page, &title).is_some(), "{title}:\n{text}");
        assert!(rows(page).iter().any(|row| row.contains("└──")), "{text}");
    }
    let on_a_page = |needle: &str| pages.iter().any(|page| find(page, needle).is_some());
    for spec in COMMANDS {
        assert!(on_a_page(&format!(" {}", spec.usage())), "{}:\n{everything}", spec.usage());
        let first_words: String = spec.about.split(' ').take(3).collect::<Vec<_>>().join(" ");
        assert!(everything.contains(&first_words), "{first_words}:\n{everything}");
    }
    for shortcut in shortcuts() {
        assert!(on_a_page(&shown(&shortcut)), "{}:\n{everything}", shortcut.key);
    }
    for (keys, what) in OTHER_KEYS {
        let first_word = what.split(' ').next().unwrap_or_default();
        assert!(on_a_page(&format!(" {keys:<12} {first_word}")), "{keys}:\n{everything}");
    }
    assert!(everything.contains("CARD is a card's id"), "{everything}");
    // A larger terminal shows it all on one page.
    assert_eq!(help_pages(&mut view, WIDTH, HEIGHT).len(), 1);
}

#[test]
fn set_up_shows_the_code_then_a_progress_bar() {
    let mut pair = Pair::<Ristretto255>::new(numbered_deck("Host", 10, 2), numbered_deck("Guest", 10, 2), 7);
    let mut view = View::new("ws://127.0.0.1:7171/v1");
    view.apply(&Output::Code("7-crossbow-guitar".into()), &pair.host);
    let buffer = draw(&view, WIDTH, HEIGHT);
    assert!(row_with(&buffer, "Give the other player this code:").contains("7-crossbow-guitar"));
    // At 80×24 the longest code fits whole, with a shorter label.
    let longest = "123456789-crossbow-mountain";
    view.apply(&Output::Code(longest.into()), &pair.host);
    assert!(row_with(&draw(&view, 80, 24), "Code: ").contains(longest));
    view.apply(&Output::Code("7-crossbow-guitar".into()), &pair.host);
    assert!(rows(&buffer).last().unwrap().contains("waiting for the opponent"));
    assert!(screen(&buffer).contains("0%"), "an empty bar:\n{}", screen(&buffer));

    // Deliver messages until the host's first library is shuffled and verified.
    view.apply(&Output::Paired, &pair.host);
    view.apply(&Output::ChannelEstablished, &pair.host);
    let mut seen = 0;
    while !view.setup.ready && view.setup.shuffled == 0 {
        assert!(pair.step(), "set-up stalled");
        for event in &pair.host_events[seen..] {
            view.apply(&Output::Engine(event.clone()), &pair.host);
        }
        seen = pair.host_events.len();
    }
    let buffer = draw(&view, WIDTH, HEIGHT);
    let text = screen(&buffer);
    assert!(text.contains("Locking, shuffling and verifying the libraries: 1 of 2 done"), "{text}");
    assert!(!text.contains("7-crossbow-guitar"), "the code is gone once the opponent proved it");
    // The bar: key exchange, hello and one library of four steps; its filled cells are green.
    let (x, y) = find(&buffer, "75%").unwrap_or_else(|| panic!("no 75% bar:\n{text}"));
    assert_eq!(buffer[(1, y)].fg, Color::Green, "bar at row {y}, label at {x}");

    pair.drive();
    for event in &pair.host_events[seen..] {
        view.apply(&Output::Engine(event.clone()), &pair.host);
    }
    assert!(!screen(&draw(&view, WIDTH, HEIGHT)).contains("Setting up the table"));
}

#[test]
fn the_set_up_panel_shows_again_for_the_next_game() {
    let mut pair = ready_pair();
    act(&mut pair, Seat::Host, "draw 2");
    let mut view = view_of(&pair, Seat::Host);
    assert!(!screen(&draw(&view, WIDTH, HEIGHT)).contains("Setting up the table"));
    let mut seen = pair.host_events.len();

    // The guest asks first: the host is told how to agree, and the game goes on meanwhile.
    pair.intent(Seat::Guest, Intent::NewGame(None)).expect("the guest asks");
    pair.drive();
    for event in &pair.host_events[seen..] {
        view.apply(&Output::Engine(event.clone()), &pair.host);
    }
    seen = pair.host_events.len();
    let logged = |view: &View, text: &str| view.log.lines().iter().any(|line| line.text.contains(text));
    assert!(logged(&view, "Guest asks for a new game (type new-game [DECKFILE] to agree)"));
    let text = screen(&draw(&view, WIDTH, HEIGHT));
    assert!(!text.contains("Setting up the table"), "{text}");

    // The host agrees: game 2 starts its set-up, and the panel is back until both libraries are shuffled.
    pair.intent(Seat::Host, Intent::NewGame(None)).expect("the host agrees");
    while pair.host.is_ready() {
        assert!(pair.step(), "game 2 never started");
    }
    for event in &pair.host_events[seen..] {
        view.apply(&Output::Engine(event.clone()), &pair.host);
    }
    seen = pair.host_events.len();
    assert!(logged(&view, "Game 2 starts"));
    let text = screen(&draw(&view, WIDTH, HEIGHT));
    assert!(text.contains("Setting up the table"), "{text}");
    assert!(text.contains("Game 2 of the match"), "{text}");
    assert!(text.contains("Locking, shuffling and verifying the libraries: 0 of 2 done"), "{text}");

    pair.drive();
    for event in &pair.host_events[seen..] {
        view.apply(&Output::Engine(event.clone()), &pair.host);
    }
    assert!(pair.host.is_ready(), "game 2 set-up did not finish");
    let text = screen(&draw(&view, WIDTH, HEIGHT));
    assert!(!text.contains("Setting up the table"), "{text}");
    assert!(text.contains("library 10 · hand 0"), "game 2 starts with full libraries:\n{text}");
}

#[test]
fn the_status_line_shows_connection_opponent_turn_and_life() {
    let mut pair = ready_pair();
    act(&mut pair, Seat::Host, "life 17");
    act(&mut pair, Seat::Guest, "life 20");
    act(&mut pair, Seat::Host, "next-turn");
    let mut view = view_of(&pair, Seat::Host);
    let status = rows(&draw(&view, WIDTH, HEIGHT)).last().unwrap().clone();
    assert!(status.contains("● connected"), "{status}");
    assert!(status.contains("vs Guest"), "{status}");
    let turn = pair.host.table().turn;
    let whose = if pair.host.table().active == Some(Seat::Host) { "yours" } else { "Guest's" };
    assert!(status.contains(&format!("turn {turn} ({whose})")), "{status}");
    assert!(status.contains("life: you 17 · Guest 20"), "{status}");

    // The peer's socket is gone: the status says so until it is back.
    view.apply(&Output::PeerAway { hold_ms: 60_000 }, &pair.host);
    let buffer = draw(&view, WIDTH, HEIGHT);
    assert!(rows(&buffer).last().unwrap().contains("● opponent away"));
    assert!(screen(&buffer).contains("Guest is away: the relay holds their seat"), "{}", screen(&buffer));
    view.apply(&Output::PeerBack, &pair.host);
    assert!(rows(&draw(&view, WIDTH, HEIGHT)).last().unwrap().contains("● connected"));
    view.apply(&Output::RelayLost("reset".into()), &pair.host);
    assert!(rows(&draw(&view, WIDTH, HEIGHT)).last().unwrap().contains("● reconnecting"));
}

#[test]
fn the_status_line_shows_a_long_wait_on_the_opponent_and_then_forfeit() {
    let mut pair = ready_pair();
    // The host draws, and the guest's strip never comes.
    let Ok(Command::Act(draw_one)) = command::parse("draw 1", Seat::Host) else { panic!("draw is an action") };
    pair.intent(Seat::Host, Intent::Act(draw_one)).expect("draw");
    let awaited = pair.host.awaiting_opponent().expect("the host waits on the guest's strip");
    assert!(awaited.to_string().starts_with("its strip of #"), "{awaited}");
    let mut view = view_of(&pair, Seat::Host);
    let status = |view: &View| rows(&draw(view, 80, 24)).last().unwrap().clone();
    assert!(!status(&view).contains("waiting for"), "{}", status(&view));

    // The session counts the seconds; the view shows them, first after the connection.
    let waited = |seconds| Output::Waiting(Some(Waiting { awaited: awaited.clone(), seconds }));
    view.apply(&waited(45), &pair.host);
    let line = status(&view);
    assert!(line.contains(&format!("● connected │ waiting for Guest: {awaited} (45 s)")), "{line}");
    assert!(!line.contains("forfeit"), "{line}");
    let buffer = draw(&view, 80, 24);
    let (x, y) = find(&buffer, "waiting for Guest").expect("the wait is on screen");
    assert_eq!(buffer[(x, y)].fg, Color::Yellow);

    // Past the threshold, the line says how to end the game, and the log says it once.
    view.apply(&waited(FORFEIT_HINT_AFTER.as_secs()), &pair.host);
    view.apply(&Output::Overdue(Waiting { awaited: awaited.clone(), seconds: 60 }), &pair.host);
    let buffer = draw(&view, WIDTH, HEIGHT);
    let line = rows(&buffer).last().unwrap().clone();
    assert!(line.contains(&format!("waiting for Guest: {awaited} (60 s) — forfeit ends the game")), "{line}");
    assert!(screen(&buffer).contains("Guest has not sent its strip of #"), "{}", screen(&buffer));

    // The strip came (or the game ended): the wait is gone.
    view.apply(&Output::Waiting(None), &pair.host);
    assert!(!status(&view).contains("waiting for"), "{}", status(&view));
}

#[test]
fn command_errors_show_in_the_log() {
    let pair = ready_pair();
    let mut view = view_of(&pair, Seat::Host);
    let message = command::parse("draw x", Seat::Host).unwrap_err();
    view.apply(&Output::CommandError { kind: "bad_command", command: "draw x".into(), message }, &pair.host);
    let buffer = draw(&view, WIDTH, HEIGHT);
    let (x, y) = find(&buffer, "✗ draw x: usage: draw N").unwrap_or_else(|| panic!("{}", screen(&buffer)));
    assert_eq!(buffer[(x, y)].fg, Color::Yellow);
}

#[test]
fn opponent_text_cannot_write_escape_sequences() {
    let pair = ready_pair();
    let mut view = view_of(&pair, Seat::Host);
    let chat = Event::Chat { from: Seat::Guest, text: "hi\u{1b}[2J\u{7}there".into() };
    view.apply(&Output::Engine(chat), &pair.host);
    let line = view.log.lines().back().unwrap();
    assert_eq!(line.kind, LogKind::Chat);
    assert!(!line.text.chars().any(char::is_control), "{:?}", line.text);
}

#[test]
fn any_size_draws_without_panicking() {
    let (pair, ..) = played_game();
    let mut view = view_of(&pair, Seat::Host);
    for overlay in [Overlay::None, Overlay::Help, Overlay::ConfirmQuit] {
        view.overlay = overlay;
        view.prompt.focused = true;
        view.prompt.text = "play 123456 at 1,1 facedown and a long tail".into();
        for (width, height) in [(0, 0), (1, 1), (3, 2), (20, 6), (40, 12), (80, 24)] {
            draw(&view, width, height);
        }
    }
}

fn key(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)
}

fn special(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn typed(view: &mut View, text: &str) -> Option<String> {
    text.chars().map(|c| handle_key(view, key(c))).fold(None, |_, out| out)
}

#[test]
fn shortcuts_are_commands() {
    let mut view = View::new("ws://relay");
    for shortcut in shortcuts() {
        let out = handle_key(&mut view, key(shortcut.key));
        if shortcut.prefill {
            // The command line opens with the command's name, for the player to complete.
            assert_eq!(out, None);
            assert!(view.prompt.focused);
            assert_eq!(view.prompt.text, format!("{} ", shortcut.spec.name));
            let verb = shortcut.line.trim();
            let error = command::parse(verb, Seat::Host).err().unwrap_or_default();
            assert!(!error.contains("unknown command"), "{verb}: {error}");
            handle_key(&mut view, special(KeyCode::Esc));
            assert!(!view.prompt.focused && view.prompt.text.is_empty());
        } else {
            assert_eq!(out.as_deref(), Some(shortcut.line.as_str()), "key {}", shortcut.key);
            assert!(command::parse(&shortcut.line, Seat::Host).is_ok(), "{}", shortcut.line);
        }
    }
    // Every key of the table is one of them.
    let keys = COMMANDS.iter().flat_map(|spec| spec.keys).count();
    assert_eq!(shortcuts().count(), keys);
    assert!(COMMANDS.iter().flat_map(|spec| spec.keys).any(|key| matches!(key, Key::Prefills('D'))));
    assert_eq!(handle_key(&mut view, key('d')), Some("draw 1".into()));
    assert_eq!(handle_key(&mut view, key('s')), Some("shuffle".into()));
    assert_eq!(handle_key(&mut view, key('f')), Some("flip".into()));
    // Ctrl-D is not d.
    assert_eq!(handle_key(&mut view, KeyEvent::new(KeyCode::Char('d'), KeyModifiers::CONTROL)), None);
}

#[test]
fn the_command_line_takes_scripted_commands() {
    let mut view = View::new("ws://relay");
    assert_eq!(handle_key(&mut view, key(':')), None);
    // Letters are text now, not shortcuts.
    assert_eq!(typed(&mut view, "draw 2"), None);
    assert_eq!(handle_key(&mut view, special(KeyCode::Enter)), Some("draw 2".into()));
    assert!(!view.prompt.focused);
    // A prefilled command is completed and sent; Up brings back the last one.
    handle_key(&mut view, key('p'));
    typed(&mut view, "3 at 4,2 facedown");
    assert_eq!(handle_key(&mut view, special(KeyCode::Enter)), Some("play 3 at 4,2 facedown".into()));
    handle_key(&mut view, special(KeyCode::Up));
    assert_eq!(view.prompt.text, "play 3 at 4,2 facedown");
    handle_key(&mut view, special(KeyCode::Up));
    assert_eq!(view.prompt.text, "draw 2");
    handle_key(&mut view, special(KeyCode::Backspace));
    typed(&mut view, "7");
    assert_eq!(handle_key(&mut view, special(KeyCode::Enter)), Some("draw 7".into()));
    // Each command is echoed in the log.
    assert!(view.log.lines().iter().any(|l| l.kind == LogKind::Command && l.text == "> draw 7"));
}

#[test]
fn quitting_asks_first_and_ctrl_c_does_not() {
    let mut view = View::new("ws://relay");
    assert_eq!(handle_key(&mut view, key('q')), None);
    assert_eq!(view.overlay, Overlay::ConfirmQuit);
    assert_eq!(handle_key(&mut view, key('n')), None);
    assert_eq!(view.overlay, Overlay::None);
    handle_key(&mut view, key('q'));
    assert_eq!(handle_key(&mut view, key('y')), Some("quit".into()));
    assert!(view.leaving);
    let mut view = View::new("ws://relay");
    handle_key(&mut view, key(':'));
    let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
    assert_eq!(handle_key(&mut view, ctrl_c), Some("quit".into()));
}

#[test]
fn a_wrong_code_is_shown_to_the_host_and_the_game_waits_again() {
    let pair = Pair::<Ristretto255>::new(numbered_deck("Host", 10, 2), numbered_deck("Guest", 10, 2), 7);
    let mut view = View::new("ws://127.0.0.1:7171/v1");
    view.apply(&Output::Code("7-crossbow-guitar".into()), &pair.host);
    view.apply(&Output::Paired, &pair.host);
    assert!(rows(&draw(&view, 80, 24)).last().unwrap().contains("checking the code"));
    view.apply(&Output::WrongCodeTried { attempts: 1, reopened: true }, &pair.host);
    view.apply(&Output::Code("8-crossbow-guitar".into()), &pair.host);
    let buffer = draw(&view, WIDTH, HEIGHT);
    assert!(rows(&buffer).last().unwrap().contains("waiting for the opponent"));
    assert!(row_with(&buffer, "Give the other player this code:").contains("8-crossbow-guitar"));
    assert!(screen(&buffer).contains("Someone tried a wrong code (1 of 3)"), "{}", screen(&buffer));
    view.apply(&Output::WrongCodeTried { attempts: 3, reopened: false }, &pair.host);
    assert!(screen(&draw(&view, WIDTH, HEIGHT)).contains("3 wrong codes: someone may be"));
}
