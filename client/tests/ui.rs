//! The terminal table as a player sees it: views built from two real engines playing in memory, drawn to
//! ratatui's `TestBackend`, and read back cell by cell.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use fairdeck::command::{self, COMMANDS, Command, Key, Shortcut, shortcuts};
use fairdeck::session::{FORFEIT_HINT_AFTER, Output, Waiting};
use fairdeck::ui::View;
use fairdeck::ui::keys::{OTHER_KEYS, handle_key};
use fairdeck::ui::log::LogKind;
use fairdeck::ui::render::render;
use fairdeck::ui::table_view::Side;
use fairdeck::ui::view::{Overlay, Pile, Stage};
use fairdeck_shared::Seat;
use fairdeck_shared::crypto::{CardInstance, Ristretto255};
use fairdeck_shared::engine::{DeckCard, DeckList, Event, Intent, LimitedConfig, PoolList, PoolSource};
use fairdeck_shared::pair::{Pair, numbered_deck};
use fairdeck_shared::table::{CardId, ZoneId, ZoneKind};
use fairdeck_shared::wire::{Action, LimitedFormat, PoolHash};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};

#[path = "ui/board.rs"]
mod board;
#[path = "ui/commander.rs"]
mod commander;

const WIDTH: u16 = 160;
const HEIGHT: u16 = 50;

/// Two engines (decks of ten cards and two in the sideboard), set up with both libraries shuffled.
fn ready_pair() -> Pair<Ristretto255> {
    let mut pair = Pair::new(numbered_deck("Host", 10, 2), numbered_deck("Guest", 10, 2), 7);
    pair.drive();
    assert!(pair.host.is_ready() && pair.guest.is_ready(), "set-up did not finish");
    pair
}

/// Runs a scripted-mode command line for `seat`, as the command line would.
fn act(pair: &mut Pair<Ristretto255>, seat: Seat, line: &str) {
    let action = match command::parse(line, seat) {
        Ok(Command::Act(action)) => action,
        Ok(Command::OnCard(card, act)) => {
            let engine = pair.engine(seat);
            act.action(engine, act.find(engine, &card).expect(line)).expect(line)
        }
        // As the session does: a change is from the value on the table now.
        Ok(Command::PlayerValue { key, amount }) => {
            let current = pair.engine(seat).table().player(seat).values.get(&key).copied().unwrap_or(0);
            Action::SetPlayerValue { value: amount.apply(current), key }
        }
        Ok(Command::Token { name, power_toughness, placement }) => {
            // Each token its own card: the nonce counts the cards made so far.
            let mut nonce = [0; 16];
            nonce[..8].copy_from_slice(&pair.engine(seat).table().cards().count().to_le_bytes());
            let card = CardInstance { owner: seat, nonce, name, back: 0 };
            Action::AddCard { card, to: ZoneId::new(seat, ZoneKind::Play), placement, power_toughness }
        }
        other => panic!("{line} is not an action: {other:?}"),
    };
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
    act(&mut pair, Seat::HOST, "draw 3");
    act(&mut pair, Seat::GUEST, "draw 2");
    let host_hand = hand(&pair, Seat::HOST);
    let (up, down) = (host_hand[0], host_hand[1]);
    act(&mut pair, Seat::HOST, &format!("play {} at 4,2", up.0));
    act(&mut pair, Seat::HOST, &format!("tap {}", up.0));
    act(&mut pair, Seat::HOST, &format!("counter {} +1/+1 2", up.0));
    act(&mut pair, Seat::HOST, &format!("play {} at 1,1 facedown", down.0));
    let theirs = hand(&pair, Seat::GUEST)[0];
    act(&mut pair, Seat::GUEST, &format!("play {} at 0,0", theirs.0));
    (pair, up, down, theirs)
}

#[test]
fn zones_hand_and_play_areas_as_each_player_sees_them() {
    let (pair, up, down, theirs) = played_game();
    let buffer = draw(&view_of(&pair, Seat::HOST), WIDTH, HEIGHT);
    let text = screen(&buffer);

    // Counts of both sides, in one line each.
    assert!(text.contains("library 7 · hand 1 · sideboard 2"), "{text}");
    assert!(text.contains("library 8 · hand 1 · sideboard 2"), "{text}");
    // The play areas count their cards in their titles.
    assert!(find(&buffer, "┌ Your play area · 2 cards ").is_some(), "{text}");
    assert!(find(&buffer, "┌ Guest's play area · 1 card ").is_some(), "{text}");
    // The host's own hand, face up with its id; the guest's hand as one back.
    let mine = hand(&pair, Seat::HOST)[0];
    assert!(row_with(&buffer, "You (Host)").contains("life 20"));
    assert!(text.contains(&format!("{mine} {}", name(&pair, Seat::HOST, mine))), "{text}");
    assert_eq!(text.matches("[▒▒]").count(), 1, "{text}");
    // Play areas: the tapped card with its counter and position, the face-down card (the host knows it).
    let tapped = play_row(&buffer, &pair, Seat::HOST, up);
    assert!(tapped.contains(&name(&pair, Seat::HOST, up)) && tapped.contains("at 4,2"), "{tapped}");
    assert!(tapped.contains("TAPPED") && tapped.contains("[+1/+1: 2]"), "{tapped}");
    let face_down = play_row(&buffer, &pair, Seat::HOST, down);
    assert!(face_down.contains("at 1,1") && face_down.contains("FACE DOWN"), "{face_down}");
    assert!(face_down.contains(&name(&pair, Seat::HOST, down)), "{face_down}");
    assert!(play_row(&buffer, &pair, Seat::HOST, theirs).contains("at 0,0"));
    assert!(text.contains("You drew 3 cards"), "{text}");
    assert!(text.contains("Guest drew 2 cards"), "{text}");

    // The guest sees the host's face-down card as a face-down card, not its name.
    let buffer = draw(&view_of(&pair, Seat::GUEST), WIDTH, HEIGHT);
    let face_down = row_with(&buffer, &format!("{:<8}face-down card", down.to_string()));
    assert!(face_down.contains("at 1,1") && !face_down.contains(&name(&pair, Seat::HOST, down)));
    assert_eq!(screen(&buffer).matches("[▒▒]").count(), 1, "the host's one card in hand is a back");
}

#[test]
fn an_alert_is_red_bold_and_marked() {
    let (mut pair, up, ..) = played_game();
    // The guest untaps the host's card: the host's engine tells the host.
    act(&mut pair, Seat::GUEST, &format!("untap {}", up.0));
    assert!(pair.events(Seat::HOST).iter().any(|e| matches!(e, Event::Alert(_))), "no alert raised");
    let buffer = draw(&view_of(&pair, Seat::HOST), WIDTH, HEIGHT);
    let (x, y) = find(&buffer, "!! ").unwrap_or_else(|| panic!("no alert mark:\n{}", screen(&buffer)));
    let cell = &buffer[(x, y)];
    assert_eq!(cell.fg, Color::Red);
    assert!(cell.modifier.contains(Modifier::BOLD));
    let alert = &rows(&buffer)[usize::from(y)];
    assert!(alert.contains(&format!("Guest untapped your {up} {}", name(&pair, Seat::HOST, up))), "{alert}");
    // An ordinary action line is not styled as an alert.
    let (x, y) = find(&buffer, "You drew 3 cards").expect("action line");
    assert_ne!(buffer[(x, y)].fg, Color::Red);
}

#[test]
fn the_opponents_words_reach_the_screen_without_their_control_characters() {
    let mut pair = ready_pair();
    // The opponent names a phase and a player value of its own: a window title and a screen clear in each.
    act(&mut pair, Seat::GUEST, "phase \u{1b}]2;PWNED\u{7}\u{1b}[2Jmain");
    act(&mut pair, Seat::GUEST, "player-counter \u{1b}]2;X\u{7}poison +1");
    let view = view_of(&pair, Seat::HOST);
    assert_eq!(view.table.phase, "\u{fffd}]2;PWNED\u{fffd}\u{fffd}[2Jmain");
    let values: Vec<&String> = view.table.opponent.values.iter().map(|(key, _)| key).collect();
    assert_eq!(values, ["\u{fffd}]2;X\u{fffd}poison"]);
    let text = screen(&draw(&view, WIDTH, HEIGHT));
    assert!(text.chars().all(|c| c == '\n' || !c.is_control()), "{text:?}");
    assert!(text.contains("\u{fffd}]2;PWNED"), "{text}");
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
    let mut view = view_of(&pair, Seat::HOST);
    assert!(find(&draw(&view, 200, 60), "Keys and commands").is_none());
    assert_eq!(handle_key(&mut view, key('?')), None);
    let buffer = draw(&view, 200, 60);
    assert!(find(&buffer, "Keys and commands (any key closes)").is_some(), "{}", screen(&buffer));
    for shortcut in shortcuts() {
        let row = row_with(&buffer, &shown(&shortcut));
        assert!(row.contains(shortcut.about.split(' ').next().unwrap()), "{row}");
    }
    // Any key closes it, and does nothing else.
    assert_eq!(handle_key(&mut view, key('d')), None);
    assert!(find(&draw(&view, 200, 60), "Keys and commands").is_none());
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
    let mut view = view_of(&pair, Seat::HOST);
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
    assert_eq!(help_pages(&mut view, 200, 60).len(), 1);
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
fn a_draft_shows_its_stage_and_no_gauge_standing_still() {
    let cube =
        PoolList { hash: PoolHash([3; 32]), source: PoolSource::Cube((0..30).map(|i| format!("Card {i}")).collect()) };
    let host = LimitedConfig { pool: cube.clone(), format: Some(LimitedFormat::Draft { packs: 1, cards: 5 }) };
    let mut pair = Pair::<Ristretto255>::limited(host, LimitedConfig { pool: cube, format: None }, 7);
    pair.drive();
    let text = screen(&draw(&view_of(&pair, Seat::HOST), 80, 24));
    assert!(text.contains("Drafting: the log shows what you may pick"), "{text}");
    assert!(!text.contains('%'), "no progress bar while drafting:\n{text}");
}

#[test]
fn the_set_up_panel_shows_again_for_the_next_game() {
    let mut pair = ready_pair();
    act(&mut pair, Seat::HOST, "draw 2");
    let mut view = view_of(&pair, Seat::HOST);
    assert!(!screen(&draw(&view, WIDTH, HEIGHT)).contains("Setting up the table"));
    let mut seen = pair.host_events.len();

    // The guest asks first: the host is told how to agree, and the game goes on meanwhile.
    pair.intent(Seat::GUEST, Intent::NewGame(None)).expect("the guest asks");
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
    pair.intent(Seat::HOST, Intent::NewGame(None)).expect("the host agrees");
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
    act(&mut pair, Seat::HOST, "life 17");
    act(&mut pair, Seat::GUEST, "life 20");
    pair.intent(Seat::HOST, Intent::Act(Action::NextTurn)).unwrap();
    pair.drive();
    let mut view = view_of(&pair, Seat::HOST);
    let status = rows(&draw(&view, WIDTH, HEIGHT)).last().unwrap().clone();
    assert!(status.contains("● connected"), "{status}");
    assert!(status.contains("vs Guest"), "{status}");
    let turn = pair.host.table().turn;
    let whose = if pair.host.table().active == Some(Seat::HOST) { "yours" } else { "Guest's" };
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
    let Ok(Command::Act(draw_one)) = command::parse("draw 1", Seat::HOST) else { panic!("draw is an action") };
    pair.intent(Seat::HOST, Intent::Act(draw_one)).expect("draw");
    let awaited = pair.host.awaiting_opponent().expect("the host waits on the guest's strip");
    assert!(awaited.to_string().starts_with("its strip of #"), "{awaited}");
    let mut view = view_of(&pair, Seat::HOST);
    let status = |view: &View| rows(&draw(view, 80, 24)).last().unwrap().clone();
    assert!(!status(&view).contains("waiting for"), "{}", status(&view));

    // The session counts the seconds; the view shows them, first after the connection on a wide screen, and
    // at 80 columns right after the game's state, which stays whole.
    let waited = |seconds| Output::Waiting(Some(Waiting { awaited: awaited.clone(), seconds }));
    view.apply(&waited(45), &pair.host);
    let wide = rows(&draw(&view, WIDTH, HEIGHT)).last().unwrap().clone();
    assert!(wide.contains(&format!("● connected │ waiting for Guest: {awaited} (45 s)")), "{wide}");
    let line = status(&view);
    assert!(line.contains("● │ you 20 · Guest 20 │ no turn yet │ — │ waiting for Guest: its strip"), "{line}");
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
    let mut view = view_of(&pair, Seat::HOST);
    let message = command::parse("draw x", Seat::HOST).unwrap_err();
    view.apply(
        &Output::CommandError { kind: command::ErrorKind::BadCommand, command: "draw x".into(), message },
        &pair.host,
    );
    let buffer = draw(&view, WIDTH, HEIGHT);
    let (x, y) = find(&buffer, "✗ draw x: usage: draw N").unwrap_or_else(|| panic!("{}", screen(&buffer)));
    assert_eq!(buffer[(x, y)].fg, Color::Yellow);
}

#[test]
fn opponent_text_cannot_write_escape_sequences() {
    let pair = ready_pair();
    let mut view = view_of(&pair, Seat::HOST);
    let chat = Event::Chat { from: Seat::GUEST, text: "hi\u{1b}[2J\u{7}there".into() };
    view.apply(&Output::Engine(chat), &pair.host);
    let line = view.log.lines().back().unwrap();
    assert_eq!(line.kind, LogKind::Chat);
    assert!(!line.text.chars().any(char::is_control), "{:?}", line.text);
}

#[test]
fn any_size_draws_without_panicking() {
    let (pair, ..) = played_game();
    let mut view = view_of(&pair, Seat::HOST);
    let piles = [Pile::Graveyard(Side::Mine), Pile::Exile(Side::Opponent), Pile::Sideboard].map(Overlay::Pile);
    for overlay in [Overlay::None, Overlay::Help, Overlay::ConfirmQuit].into_iter().chain(piles) {
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
        let building = ["add", "remove"].contains(&shortcut.spec.name);
        view.stage = if building { Stage::Building } else { Stage::Playing };
        let out = handle_key(&mut view, key(shortcut.key));
        if shortcut.prefill {
            // The command line opens with the command's name, for the player to complete.
            assert_eq!(out, None);
            assert!(view.prompt.focused);
            assert_eq!(view.prompt.text, format!("{} ", shortcut.spec.name));
            let verb = shortcut.line.trim();
            let error = command::parse(verb, Seat::HOST).err().unwrap_or_default();
            assert!(!error.contains("unknown command"), "{verb}: {error}");
            handle_key(&mut view, special(KeyCode::Esc));
            assert!(!view.prompt.focused && view.prompt.text.is_empty());
        } else {
            // A key that runs its command at once asks first, but for untap-all (public, and undone by untapping).
            let out = if shortcut.key == 'U' { out } else { handle_key(&mut view, key('y')) };
            assert_eq!(out.as_deref(), Some(shortcut.line.as_str()), "key {}", shortcut.key);
            assert!(command::parse(&shortcut.line, Seat::HOST).is_ok(), "{}", shortcut.line);
        }
    }
    // Every key of the table is one of them.
    let keys = COMMANDS.iter().flat_map(|spec| spec.keys).count();
    assert_eq!(shortcuts().count(), keys);
    assert!(COMMANDS.iter().flat_map(|spec| spec.keys).any(|key| matches!(key, Key::Prefills('D'))));
    for (k, line) in [('d', "draw 1"), ('s', "shuffle"), ('f', "flip")] {
        assert_eq!(handle_key(&mut view, key(k)), None, "{k} asks first");
        assert_eq!(handle_key(&mut view, special(KeyCode::Enter)), Some(line.into()));
    }
    // Ctrl-D is not d.
    assert_eq!(handle_key(&mut view, KeyEvent::new(KeyCode::Char('d'), KeyModifiers::CONTROL)), None);
    // Building keys are for building: in a game they say so and open nothing.
    view.stage = Stage::Playing;
    assert_eq!(handle_key(&mut view, key('a')), None);
    assert!(!view.prompt.focused && view.overlay == Overlay::None);
    assert_eq!(view.log.lines().back().unwrap().text, "a: `add` is for building a limited deck");
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
fn an_opponent_away_is_counted_down_as_away_not_as_gone() {
    let (pair, ..) = played_game();
    let mut view = view_of(&pair, Seat::HOST);
    view.apply(&Output::ForfeitGrace(Some(56)), &pair.host);
    let status = rows(&draw(&view, 200, 24)).last().unwrap().clone();
    assert!(status.contains("Guest away: forfeit possible in 56 s"), "{status}");
    assert!(view.log.lines().iter().any(|line| line.text == "Guest is away: forfeit possible in 56 s"));
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

/// Card names of a real burn deck, of several lengths, so hands and play areas wrap as in a game.
const BURN: [&str; 8] = [
    "Lightning Bolt",
    "Goblin Guide",
    "Mountain",
    "Eidolon of the Great Revel",
    "Skewer the Critics",
    "Lava Spike",
    "Monastery Swiftspear",
    "Searing Blaze",
];

fn burn_deck(count: usize, sideboard: usize) -> DeckList {
    let card = |i: usize| DeckCard { name: BURN[i % BURN.len()].to_string(), back: 0 };
    DeckList {
        library: (0..count).map(card).collect(),
        sideboard: (0..sideboard).map(card).collect(),
        ..DeckList::default()
    }
}

/// Both players, with 45-card decks and 15 in the sideboard, put 12 cards each into play (some tapped, some
/// with counters whose names are long), and hold `hand` cards.
fn busy_table() -> Pair<Ristretto255> {
    let mut pair = Pair::new(burn_deck(45, 15), burn_deck(45, 15), 9);
    pair.drive();
    assert!(pair.host.is_ready() && pair.guest.is_ready(), "set-up did not finish");
    for seat in Seat::BOTH {
        act(&mut pair, seat, "draw 12");
        for (i, card) in hand(&pair, seat).into_iter().enumerate() {
            act(&mut pair, seat, &format!("play {} at {},{}", card.0, i % 4, i / 4));
            if i % 3 == 0 {
                act(&mut pair, seat, &format!("tap {}", card.0));
            }
            if i % 4 == 1 {
                act(&mut pair, seat, &format!("counter {} +1/+1 {i}", card.0));
                act(&mut pair, seat, &format!("counter {} time-counters-from-suspend 3", card.0));
            }
        }
    }
    pair
}

/// Draws cards for both players until each holds `count`.
fn fill_hands(pair: &mut Pair<Ristretto255>, count: usize) {
    for seat in Seat::BOTH {
        let more = count - hand(pair, seat).len();
        if 0 < more {
            act(pair, seat, &format!("draw {more}"));
        }
    }
}

/// A bordered panel on the screen: its columns and rows, borders included.
struct PanelRect {
    left: u16,
    right: u16,
    top: u16,
    bottom: u16,
}

/// The panel whose title starts with `title`: on its top border, where the log's lines may use the same words.
fn panel(buffer: &Buffer, title: &str) -> PanelRect {
    let corner = format!("┌ {title}");
    let (left, top) = find(buffer, &corner).unwrap_or_else(|| panic!("no panel {title:?}:\n{}", screen(buffer)));
    let at = |x: u16, y: u16| buffer[(x, y)].symbol();
    let right = (left..buffer.area.width).find(|&c| at(c, top) == "┐").expect("top-right corner");
    let bottom = (top + 1..buffer.area.height).find(|&y| at(left, y) == "└").expect("bottom-left corner");
    PanelRect { left, right, top, bottom }
}

/// A panel's rows as text.
fn panel_rows(buffer: &Buffer, rect: &PanelRect) -> Vec<String> {
    (rect.top..=rect.bottom)
        .map(|y| (rect.left..=rect.right).map(|x| buffer[(x, y)].symbol()).collect::<String>())
        .collect()
}

/// The card ids (#N) in `text`, but for ids that only point at a card shown elsewhere: the host of an attached
/// card (`on #N:`), an arrow's target (`→ #N`), a commander that dealt damage (`cmdr #N`).
fn ids_in(text: &str) -> Vec<CardId> {
    counted_in(text).into_iter().map(|(id, _)| id).collect()
}

/// As [`ids_in`], with the cards each id stands for: `#12 Mountain ×3` stands for three.
fn counted_in(text: &str) -> Vec<(CardId, usize)> {
    let parts: Vec<&str> = text.split('#').collect();
    parts
        .windows(2)
        .filter(|pair| !["on ", "→ ", "cmdr "].iter().any(|reference| pair[0].ends_with(reference)))
        .filter_map(|pair| {
            let digits: String = pair[1].chars().take_while(char::is_ascii_digit).collect();
            let copies = pair[1].split_once('×').map_or(Some(1), |(_, tail)| {
                tail.chars().take_while(char::is_ascii_digit).collect::<String>().parse().ok()
            });
            Some((digits.parse().ok().map(CardId)?, copies?))
        })
        .collect()
}

/// The N of "+N more" on a panel's bottom border, 0 when it has none.
fn more_in(bottom: &str) -> usize {
    bottom.split_once('+').map_or(0, |(_, tail)| {
        let (n, rest) = tail.split_once(' ').expect("+N more");
        assert!(rest.starts_with("more"), "{bottom}");
        n.parse().expect("a count")
    })
}

/// Checks that every card of `cards` in the panel titled `title` is shown by id (or, for the opponent's
/// unknown cards, as a back) or counted in its "+N more". Returns the ids shown and the N.
fn accounted(buffer: &Buffer, title: &str, cards: &[CardId], backs: usize) -> (Vec<CardId>, usize) {
    accounted_beside(buffer, title, cards, backs, &[])
}

/// As [`accounted`], in a panel that also shows the cards `beside` (a command zone, the tops of piles).
fn accounted_beside(
    buffer: &Buffer,
    title: &str,
    cards: &[CardId],
    backs: usize,
    beside: &[CardId],
) -> (Vec<CardId>, usize) {
    let rect = panel(buffer, title);
    let rows = panel_rows(buffer, &rect);
    let text = rows.join("\n");
    let mut counted = counted_in(&rows[1..rows.len() - 1].join(" "));
    counted.retain(|(id, _)| !beside.contains(id));
    let shown: Vec<CardId> = counted.iter().map(|(id, _)| *id).collect();
    assert!(shown.iter().all(|id| cards.contains(id)), "{title}: {shown:?} not all of {cards:?}\n{text}");
    let backs_shown = text.matches("[▒▒]").count();
    let more = more_in(&rows[rows.len() - 1]);
    let grouped: usize = counted.iter().map(|(_, copies)| copies).sum();
    assert_eq!(grouped + backs_shown + more, cards.len(), "{title}, {backs} backs:\n{}", screen(buffer));
    assert!(backs_shown <= backs, "{title}: {backs_shown} backs of {backs}");
    (shown, more)
}

/// Every card of both hands and both play areas is on `buffer` or counted in its panel's "+N more".
fn every_card_accounted(buffer: &Buffer, pair: &Pair<Ristretto255>) -> [usize; 4] {
    let play = |seat| pair.host.table().zone(ZoneId::new(seat, ZoneKind::Play)).to_vec();
    let (their_hand, mine) = (hand(pair, Seat::GUEST), hand(pair, Seat::HOST));
    let unknown = their_hand.iter().filter(|&&c| pair.host.identity(c).is_none()).count();
    [
        accounted(buffer, "You (Host)", &mine, 0).1,
        accounted(buffer, "Your play area", &play(Seat::HOST), 0).1,
        accounted(buffer, "Guest's play area", &play(Seat::GUEST), 0).1,
        accounted(buffer, "Guest · life", &their_hand, unknown).1,
    ]
}

#[test]
fn every_card_is_shown_or_counted_at_every_size() {
    let mut pair = busy_table();
    for count in [0, 7, 14, 30] {
        fill_hands(&mut pair, count);
        let view = view_of(&pair, Seat::HOST);
        for (width, height) in [(80, 24), (120, 40), (160, 45), (200, 50)] {
            let buffer = draw(&view, width, height);
            let more = every_card_accounted(&buffer, &pair);
            // A hand of 7 shows whole at every size, as it did not when heights were guessed.
            if count <= 7 {
                assert_eq!(more[0], 0, "{width}×{height}, hand of {count}:\n{}", screen(&buffer));
            }
            if 50 <= height {
                assert_eq!(more[1..3], [0, 0], "{width}×{height}: both play areas whole:\n{}", screen(&buffer));
            }
        }
    }
}

/// The ids a panel shows, in order.
fn shown_in(buffer: &Buffer, title: &str) -> Vec<CardId> {
    let rows = panel_rows(buffer, &panel(buffer, title));
    ids_in(&rows[1..rows.len() - 1].join(" "))
}

#[test]
fn scrolling_a_hand_and_a_play_area_brings_the_hidden_cards_into_sight() {
    let mut pair = busy_table();
    fill_hands(&mut pair, 30);
    let mine = hand(&pair, Seat::HOST);
    let mut view = view_of(&pair, Seat::HOST);
    let buffer = draw(&view, 80, 24);
    let (first, more) = accounted(&buffer, "You (Host)", &mine, 0);
    assert!(0 < more && first[0] == mine[0], "{}", screen(&buffer));
    assert!(
        row_with(&buffer, &format!("+{more} more ↓")).contains("[ ] scroll"),
        "the hand has the focus:\n{}",
        screen(&buffer)
    );

    // ] scrolls the hand a row at a time: the first row goes, hidden cards come, and the count follows.
    handle_key(&mut view, key(']'));
    let buffer = draw(&view, 80, 24);
    let (second, second_more) = accounted(&buffer, "You (Host)", &mine, 0);
    assert!(!second.contains(&mine[0]), "{}", screen(&buffer));
    assert!(second.iter().any(|id| !first.contains(id)), "no hidden card came into sight:\n{}", screen(&buffer));
    assert!(find(&buffer, &format!("+{second_more} more ↕")).is_some(), "{}", screen(&buffer));

    // To the end: the last card shows, and what is left out is all above; further keys change nothing.
    for _ in 0..mine.len() {
        handle_key(&mut view, key(']'));
    }
    let bottom = draw(&view, 80, 24);
    let (last, above) = accounted(&bottom, "You (Host)", &mine, 0);
    assert_eq!(last.last(), mine.last(), "{}", screen(&bottom));
    assert_eq!(above, mine.len() - last.len());
    assert!(find(&bottom, &format!("+{above} more ↑")).is_some(), "{}", screen(&bottom));
    // One [ at the end scrolls back at once: the keys stop where the screen does.
    handle_key(&mut view, key('['));
    let (back, _) = accounted(&draw(&view, 80, 24), "You (Host)", &mine, 0);
    assert!(back.len() != last.len() || back[0] != last[0], "[ did nothing after scrolling past the end");

    // Tab gives the focus (and the room) to your play area, whole at 80×24 once grouped; ] moves its selection
    // to the next entry (a card, or copies grouped).
    let play: Vec<CardId> = view.table.me.play.iter().map(|played| played.card.id).collect();
    let before = shown_in(&draw(&view, 80, 24), "Your play area");
    handle_key(&mut view, special(KeyCode::Tab));
    let buffer = draw(&view, 80, 24);
    let (focused, more) = accounted(&buffer, "Your play area", &play, 0);
    assert!(before.len() < focused.len() && more == 0, "{before:?} then {focused:?}:\n{}", screen(&buffer));
    let (x, y) = find(&buffer, "Your play area").expect("title");
    assert_eq!(buffer[(x - 2, y)].fg, Color::Yellow, "the focused panel's border");
    handle_key(&mut view, key(']'));
    draw(&view, 80, 24);
    assert_eq!(view.scrolls.selected(fairdeck::ui::view::Panel::MyPlay), Some(focused[1]));
    // On a screen too short for it, the window follows the selection: a hidden card comes into sight.
    let short = |view: &View| draw(view, 80, 16);
    let (top, _) = accounted(&short(&view), "Your play area", &play, 0);
    let mut buffer = short(&view);
    for _ in 0..focused.len() {
        if accounted(&buffer, "Your play area", &play, 0).0.iter().any(|id| !top.contains(id)) {
            break;
        }
        handle_key(&mut view, key(']'));
        buffer = short(&view);
    }
    let (scrolled, _) = accounted(&buffer, "Your play area", &play, 0);
    assert!(scrolled.iter().any(|id| !top.contains(id)), "{top:?} then {scrolled:?}:\n{}", screen(&buffer));
    // The hand keeps its place, and every panel still counts every card.
    every_card_accounted(&buffer, &pair);
    // Shift-Tab goes back to the hand.
    handle_key(&mut view, KeyEvent::new(KeyCode::BackTab, KeyModifiers::SHIFT));
    assert!(row_with(&draw(&view, 80, 24), "You (Host)").contains("life"));
    assert_eq!(view.scrolls.focus(), fairdeck::ui::view::Panel::MyHand);
}

/// Opens a pile view by typing its command, as a player would.
fn open(view: &mut View, words: &str) -> Option<String> {
    handle_key(view, key(':'));
    typed(view, &format!("view {words}"));
    handle_key(view, special(KeyCode::Enter))
}

#[test]
fn the_piles_and_your_sideboard_show_card_by_card_with_ids() {
    let mut pair = Pair::new(burn_deck(20, 30), burn_deck(20, 2), 5);
    pair.drive();
    act(&mut pair, Seat::HOST, "draw 4");
    act(&mut pair, Seat::GUEST, "draw 4");
    let (mine, theirs) = (hand(&pair, Seat::HOST), hand(&pair, Seat::GUEST));
    for card in &mine[..3] {
        act(&mut pair, Seat::HOST, &format!("move {} graveyard", card.0));
    }
    act(&mut pair, Seat::GUEST, &format!("move {} exile", theirs[0].0));
    act(&mut pair, Seat::GUEST, &format!("move {} exile", theirs[1].0));
    let mut view = view_of(&pair, Seat::HOST);

    // The command opens the view on the screen; the session never sees it.
    assert_eq!(open(&mut view, "graveyard"), None);
    assert_eq!(view.overlay, Overlay::Pile(Pile::Graveyard(Side::Mine)));
    let buffer = draw(&view, 80, 24);
    assert!(find(&buffer, "Your graveyard · 3 cards").is_some(), "{}", screen(&buffer));
    // Top first: the last card moved there.
    assert!(row_with(&buffer, &format!("{:<8}", mine[2].to_string())).contains("(top)"), "{}", screen(&buffer));
    for card in &mine[..3] {
        assert!(row_with(&buffer, &format!("{:<8}", card.to_string())).contains(&name(&pair, Seat::HOST, *card)));
    }
    handle_key(&mut view, special(KeyCode::Esc));
    assert_eq!(view.overlay, Overlay::None);

    // The opponent's exile, with the names it shows.
    open(&mut view, "opponent exile");
    let buffer = draw(&view, 80, 24);
    assert!(find(&buffer, "Guest's exile · 2 cards").is_some(), "{}", screen(&buffer));
    for card in &theirs[..2] {
        // The overlay's row, at its border: the log beside it may name the card too.
        let row = row_with(&buffer, &format!("│{:<8}", card.to_string()));
        assert!(row.contains(&name(&pair, Seat::GUEST, *card)), "{row}");
    }
    handle_key(&mut view, special(KeyCode::Esc));

    // Your sideboard of 30 at 80×24: what does not fit is counted, and scrolling brings it in sight.
    let sideboard = pair.host.table().zone(ZoneId::new(Seat::HOST, ZoneKind::Sideboard)).to_vec();
    open(&mut view, "sideboard");
    let buffer = draw(&view, 80, 24);
    let (shown, more) = accounted(&buffer, "Your sideboard · 30 cards", &sideboard, 0);
    assert!(0 < more && shown[0] == sideboard[0], "{}", screen(&buffer));
    assert!(row_with(&buffer, &format!("+{more} more ↓")).contains("Esc closes"));
    handle_key(&mut view, special(KeyCode::Down));
    let buffer = draw(&view, 80, 24);
    let (scrolled, scrolled_more) = accounted(&buffer, "Your sideboard · 30 cards", &sideboard, 0);
    assert_eq!(scrolled[0], sideboard[1], "{}", screen(&buffer));
    assert!(scrolled.contains(&sideboard[shown.len()]), "the first hidden card came into sight");
    assert_eq!(scrolled_more, more);
    assert!(find(&buffer, &format!("+{more} more ↕")).is_some(), "{}", screen(&buffer));
    handle_key(&mut view, special(KeyCode::PageDown));
    let buffer = draw(&view, 80, 24);
    let (end, above) = accounted(&buffer, "Your sideboard · 30 cards", &sideboard, 0);
    assert_eq!((end.last(), above), (sideboard.last(), more), "{}", screen(&buffer));
    handle_key(&mut view, special(KeyCode::Up));
    assert_eq!(shown_in(&draw(&view, 80, 24), "Your sideboard")[0], sideboard[above - 1]);
    handle_key(&mut view, special(KeyCode::Esc));
    assert_eq!(view.overlay, Overlay::None);

    // Reopened, a pile starts from its top; an empty pile says so.
    open(&mut view, "sideboard");
    assert_eq!(shown_in(&draw(&view, 80, 24), "Your sideboard")[0], sideboard[0]);
    handle_key(&mut view, special(KeyCode::Esc));
    open(&mut view, "opponent graveyard");
    let buffer = draw(&view, 80, 24);
    assert!(row_with(&buffer, "Guest's graveyard · 0 cards").contains("Guest's graveyard"));
    assert!(find(&buffer, "empty").is_some(), "{}", screen(&buffer));
    handle_key(&mut view, special(KeyCode::Esc));

    // The opponent's sideboard stays hidden, and a wrong pile is a usage error in the log.
    for (words, error) in [
        ("opponent sideboard", "view opponent sideboard: the opponent's sideboard is hidden"),
        ("library", "view library: usage: view [opponent] graveyard|exile|command, or view sideboard"),
    ] {
        assert_eq!(open(&mut view, words), None);
        assert_eq!(view.overlay, Overlay::None);
        let line = view.log.lines().back().expect("a log line");
        assert_eq!((line.kind, line.text.as_str()), (LogKind::Error, error));
    }
}

#[test]
fn a_restored_game_shows_both_decks_labels() {
    let labelled = |prefix: &str, label: &str| DeckList { label: label.into(), ..numbered_deck(prefix, 10, 2) };
    let mut pair = Pair::<Ristretto255>::new(labelled("Host", "hostdeck"), labelled("Guest", "guestdek"), 7);
    pair.drive();
    // A resumed program's view: the events that told the labels were replayed before it existed.
    let mut view = View::new("ws://127.0.0.1:7171/v1");
    let relay = "ws://127.0.0.1:7171/v1".to_string();
    let restored = Output::Restored { path: "game.fairdeck".into(), moves: 3, relay: relay.clone(), history: vec![] };
    view.apply(&restored, &pair.host);
    let buffer = draw(&view, WIDTH, HEIGHT);
    assert!(find(&buffer, "deck hostdeck").is_some(), "{}", screen(&buffer));
    assert!(find(&buffer, "deck guestdek").is_some(), "{}", screen(&buffer));
}

#[test]
fn a_restored_game_tells_its_log_again_from_the_saved_events() {
    let mut pair = Pair::<Ristretto255>::new(numbered_deck("Host", 10, 2), numbered_deck("Guest", 10, 2), 8);
    pair.drive();
    pair.intent(Seat::HOST, Intent::Act(Action::Draw { count: 2 })).unwrap();
    pair.intent(Seat::GUEST, Intent::Chat("good luck".into())).unwrap();
    pair.drive();
    let history = pair.events(Seat::HOST).to_vec();
    let mut view = View::new("ws://127.0.0.1:7171/v1");
    let relay = "ws://127.0.0.1:7171/v1".to_string();
    view.apply(&Output::Restored { path: "game.fairdeck".into(), moves: 1, relay, history }, &pair.host);
    let lines: Vec<&str> = view.log.lines().iter().map(|line| line.text.as_str()).collect();
    for said in ["the table is ready", "You drew 2 cards", "<Guest> good luck", "Game restored from game.fairdeck"] {
        assert!(lines.iter().any(|line| line.contains(said)), "{said:?} not in {lines:#?}");
    }
    assert!(lines.last().unwrap().starts_with("Game restored"), "{lines:#?}");
}
