//! The board of an ordinary midgame at 80×24: copies grouped, creatures first, lands in a compact row, the
//! opponent's board whole without scrolling; card text at the table; single keys that ask first.

use fairdeck::ui::card_book::CardBook;
use fairdeck::ui::view::Panel;
use fairdeck_shared::engine::DeckList;

use super::*;

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/AtomicCards.json");

/// The permanents each player puts into play, then the spells kept in hand.
const PERMANENTS: [&str; 10] = [
    "Mountain",
    "Mountain",
    "Mountain",
    "Sacred Foundry",
    "Inspiring Vantage",
    "Goblin Guide",
    "Goblin Guide",
    "Monastery Swiftspear",
    "Eidolon of the Great Revel",
    "Relic of Progenitus",
];
const SPELLS: [&str; 4] = ["Lightning Bolt", "Lava Spike", "Skullcrack", "Rift Bolt"];

/// A card database imported from the test fixture (MTGJSON's shape), in `dir`.
fn database(dir: &tempfile::TempDir) -> std::path::PathBuf {
    let path = dir.path().join("cards.db");
    fairdeck::cards::import_file(std::path::Path::new(FIXTURE), &path).expect("the fixture imports");
    path
}

/// Both players with 12 permanents in play (ten cards, two Goblin tokens; some tapped, one with a counter, one
/// attached) and four spells in hand.
fn midgame() -> Pair<Ristretto255> {
    let card = |name: &&str| DeckCard { name: name.to_string(), back: 0 };
    let deck = || DeckList { library: PERMANENTS.iter().chain(&SPELLS).map(card).collect(), ..DeckList::default() };
    let mut pair = Pair::new(deck(), deck(), 11);
    pair.drive();
    for seat in Seat::BOTH {
        act(&mut pair, seat, &format!("draw {}", PERMANENTS.len() + SPELLS.len()));
        for (i, name) in PERMANENTS.iter().enumerate() {
            act(&mut pair, seat, &format!("play {name} at {},{}", i % 5, i / 5));
        }
        for line in [
            "tap mountain",
            "tap inspiring vantage",
            "tap goblin guide",
            "counter monastery swiftspear +1/+1 1",
            "token Goblin 1/1 at 0,2",
            "token Goblin 1/1 at 1,2",
            "attach relic of progenitus to eidolon of the great revel",
        ] {
            act(&mut pair, seat, line);
        }
    }
    pair
}

/// The host's view, with the card database at `book` (none: a path where there is no database).
fn view_with(pair: &Pair<Ristretto255>, book: std::path::PathBuf) -> View {
    let engine = pair.engine(Seat::HOST);
    let mut view = View::new("ws://127.0.0.1:7171/v1");
    view.book = CardBook::new(Some(book));
    for output in [Output::Paired, Output::ChannelEstablished] {
        view.apply(&output, engine);
    }
    for event in pair.events(Seat::HOST) {
        view.apply(&Output::Engine(event.clone()), engine);
    }
    view
}

/// The rows of the panel titled `title`, inside its borders.
fn panel_text(buffer: &Buffer, title: &str) -> Vec<String> {
    let rows = panel_rows(buffer, &panel(buffer, title));
    rows[1..rows.len() - 1].iter().map(|row| row.replace('\u{a0}', " ")).collect()
}

#[test]
fn an_ordinary_midgame_fits_80_by_24_grouped_with_the_opponents_board_whole() {
    let pair = midgame();
    let dir = tempfile::tempdir().unwrap();
    for book in [database(&dir), dir.path().join("none.db")] {
        let known = book.exists();
        let view = view_with(&pair, book);
        let buffer = draw(&view, 80, 24);
        let more = every_card_accounted(&buffer, &pair);
        assert_eq!(more[2], 0, "the opponent's board whole, database {known}:\n{}", screen(&buffer));
        let theirs = panel_text(&buffer, "Guest's play area");
        let text = theirs.join("\n");
        // Copies grouped, the tapped ones counted; the lands last, in a compact row.
        assert!(text.contains("Goblin Guide ×2 (1 tapped)"), "{text}");
        assert!(text.contains("Goblin ×2 1/1"), "{text}");
        assert!(text.contains("Mountain ×3 (1 tapped)"), "{text}");
        let row = |needle: &str| theirs.iter().position(|row| row.contains(needle)).expect(needle);
        assert!(row("Goblin Guide") < row("lands:"), "{text}");
        // The counter and the attachment stand alone, the aura right under its host.
        assert!(text.contains("Monastery Swiftspear [+1/+1: 1]"), "{text}");
        assert_eq!(row("Eidolon of the Great Revel") + 1, row("└ on #"), "{text}");
        // Known lands (not only basic ones) join the row, and creatures come before other cards, with a database.
        assert_eq!(row("Sacred Foundry") >= row("lands:"), known, "{text}");
        if known {
            assert!(row("Monastery Swiftspear") < row("Eidolon") && row("Eidolon") < row("lands:"), "{text}");
        }
        // A large screen shows everything whole.
        let large = draw(&view, 200, 60);
        assert_eq!(every_card_accounted(&large, &pair), [0; 4], "{}", screen(&large));
    }
}

#[test]
fn tab_and_scroll_select_each_entry_and_o_shows_its_text() {
    let pair = midgame();
    let dir = tempfile::tempdir().unwrap();
    let mut view = view_with(&pair, database(&dir));
    // To the opponent's play area: its first entry is selected, its id reversed.
    handle_key(&mut view, special(KeyCode::Tab));
    handle_key(&mut view, special(KeyCode::Tab));
    assert_eq!(view.scrolls.focus(), Panel::TheirPlay);
    let mut seen = Vec::new();
    for _ in 0..12 {
        let buffer = draw(&view, 80, 24);
        let selected = view.scrolls.selected(Panel::TheirPlay).expect("a card selected");
        let rect = panel(&buffer, "Guest's play area");
        let rows = panel_rows(&buffer, &rect);
        let (y, x) = rows
            .iter()
            .enumerate()
            .find_map(|(y, row)| row.find(&format!("{selected} ")).map(|at| (y, row[..at].chars().count())))
            .unwrap_or_else(|| panic!("{selected} is not shown:\n{}", screen(&buffer)));
        let cell = &buffer[(rect.left + x as u16, rect.top + y as u16)];
        assert!(cell.modifier.contains(Modifier::REVERSED), "{selected}:\n{}", screen(&buffer));
        seen.push(selected);
        handle_key(&mut view, key(']'));
    }
    seen.dedup();
    // Every entry (the groups by their first card, the lands row by its first group) is reached.
    assert!(8 <= seen.len(), "{seen:?}");
    assert_eq!(handle_key(&mut view, key('o')), None);
    assert_eq!(view.overlay, Overlay::Card);
    let name = view.table.name_of(*seen.last().unwrap()).expect("a card the host sees");
    assert!(view.card_text.iter().any(|line| line.contains(&name)), "{:?}", view.card_text);
    let buffer = draw(&view, 80, 24);
    assert!(find(&buffer, "any key closes").is_some(), "{}", screen(&buffer));
    // Any key closes it, and does nothing else.
    assert_eq!(handle_key(&mut view, key('d')), None);
    assert_eq!(view.overlay, Overlay::None);

    // The opponent's hand is hidden: its cards have no text to show.
    handle_key(&mut view, special(KeyCode::Tab));
    draw(&view, 80, 24);
    handle_key(&mut view, key('o'));
    assert_eq!(view.overlay, Overlay::None);
    assert!(view.log.lines().back().unwrap().text.contains("you cannot see that card"));
}

#[test]
fn card_shows_both_faces_and_says_why_when_it_cannot() {
    let pair = ready_pair();
    let dir = tempfile::tempdir().unwrap();
    let mut view = view_with(&pair, database(&dir));
    let card = |view: &mut View, name: &str| {
        handle_key(view, key(':'));
        typed(view, &format!("card {name}"));
        handle_key(view, special(KeyCode::Enter))
    };
    // Found by a face's name: both faces shown, over the table.
    assert_eq!(card(&mut view, "insectile aberration"), None, "the session never sees it");
    assert_eq!(view.overlay, Overlay::Card);
    let buffer = draw(&view, 80, 24);
    for line in ["Delver of Secrets // Insectile Aberration", "Delver of Secrets  {U}", "Insectile Aberration", "3/2"] {
        assert!(find(&buffer, line).is_some(), "{line}:\n{}", screen(&buffer));
    }
    handle_key(&mut view, special(KeyCode::Esc));

    // A typo: the nearest names, in the log.
    card(&mut view, "goblin giude");
    assert_eq!(view.overlay, Overlay::None);
    let last = |view: &View| view.log.lines().back().unwrap().clone();
    assert_eq!(last(&view).kind, LogKind::Error);
    assert!(last(&view).text.contains("did you mean Goblin Guide?"), "{}", last(&view).text);

    // No database: how to get one.
    view.book = CardBook::new(Some(dir.path().join("none.db")));
    card(&mut view, "goblin guide");
    assert!(last(&view).text.contains("fairdeck cards import FILE"), "{}", last(&view).text);
}

#[test]
fn stray_keys_change_nothing_on_the_table() {
    let pair = ready_pair();
    let mut view = view_of(&pair, Seat::HOST);
    // `end` typed with the command line closed: n asks, d answers no and is not passed on.
    for c in ['e', 'n', 'd'] {
        assert_eq!(handle_key(&mut view, key(c)), None, "{c}");
    }
    assert_eq!((view.overlay, view.asked.as_deref()), (Overlay::None, None));
    assert!(!view.prompt.focused && view.prompt.history.is_empty());

    // The question shows the command; y runs it.
    handle_key(&mut view, key('s'));
    let buffer = draw(&view, 80, 24);
    assert!(find(&buffer, "Run `shuffle`? y: yes · any other key: no").is_some(), "{}", screen(&buffer));
    assert_eq!(handle_key(&mut view, key('y')), Some("shuffle".into()));
    // A public action the engine can undo runs at once.
    assert_eq!(handle_key(&mut view, key('U')), Some("untap-all".into()));
}

#[test]
fn the_status_line_keeps_the_opponents_name_and_the_phase_at_80_columns() {
    let mut pair = ready_pair();
    // `next-turn` runs several actions; the turn's action alone will do here.
    pair.intent(Seat::HOST, Intent::Act(Action::NextTurn)).unwrap();
    pair.drive();
    act(&mut pair, Seat::HOST, "phase combat");
    let mut view = view_of(&pair, Seat::HOST);
    view.table.opponent.name = "Maximiliana of the Long Name".into();
    let status = |view: &View, width| rows(&draw(view, width, 24)).last().unwrap().clone();
    let narrow = status(&view, 80);
    assert!(narrow.contains("Maximiliana of the Long Name 20"), "{narrow}");
    assert!(narrow.trim_end().ends_with("│ combat"), "{narrow}");
    // A wide screen keeps every word.
    let wide = status(&view, 200);
    assert!(wide.contains("● connected │ life: you 20 · Maximiliana of the Long Name 20 │ vs Maximiliana"), "{wide}");
    assert!(wide.contains("│ phase combat"), "{wide}");
}
