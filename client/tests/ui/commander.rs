//! A Commander board at 80×24, 120×40 and 200×50, built by commands on two real engines: both command zones
//! (one commander of the host's cast), 40 life and changes, poison and energy, commander damage both ways,
//! tokens with power and toughness, a card attached to another, arrows, tapped cards, counters and piles.
//! Every card is on the screen or counted, and every value a player must see is there at every size.

use std::collections::BTreeMap;

use fairdeck::ui::view::Panel;

use super::*;

const HOST_COMMANDERS: [&str; 2] = ["Tymna the Weaver", "Thrasios, Triton Hero"];
const GUEST_COMMANDER: &str = "Atraxa, Praetors' Voice";
const SIZES: [(u16, u16); 3] = [(80, 24), (120, 40), (200, 50)];

/// A Commander deck: a library of `count` cards and the `commanders` set apart.
fn commander_deck(count: usize, commanders: &[&str]) -> DeckList {
    let commander = commanders.iter().map(|name| DeckCard { name: name.to_string(), back: 0 }).collect();
    DeckList { commander, ..burn_deck(count, 0) }
}

/// The card named `name` in `seat`'s `kind` zone.
fn named(pair: &Pair<Ristretto255>, seat: Seat, kind: ZoneKind, name: &str) -> CardId {
    let zone = pair.host.table().zone(ZoneId::new(seat, kind));
    *zone.iter().find(|card| pair.host.identity(**card).is_some_and(|i| i.name == name)).expect(name)
}

/// The board, and what the screens must show of it that the engine's table does not keep: the arrows, each
/// from a card to the words for what it points at (as the host sees them).
struct Board {
    pair: Pair<Ristretto255>,
    arrows: Vec<(CardId, String)>,
}

/// Both players at 40 life (as the session sets it for a Commander game), the turns begun; each drew 14,
/// played 8 (some tapped, some with counters), put 2 into the graveyard and 1 into exile. The host made two
/// Goblin tokens, cast Thrasios, attached a card to another, pointed arrows, and has poison, energy and
/// commander damage from Atraxa; the guest made a Treasure, took commander damage from Thrasios, pointed an
/// arrow and attached a card of its own to one of the host's.
fn commander_board() -> Board {
    let mut pair = Pair::new(commander_deck(40, &HOST_COMMANDERS), commander_deck(40, &[GUEST_COMMANDER]), 11);
    pair.drive();
    assert!(pair.host.is_ready() && pair.guest.is_ready(), "set-up did not finish");
    let mut played = BTreeMap::new();
    for seat in Seat::BOTH {
        act(&mut pair, seat, "life 40");
        act(&mut pair, seat, "draw 14");
        let hand = hand(&pair, seat);
        for (i, card) in hand[..8].iter().enumerate() {
            act(&mut pair, seat, &format!("play {} at {},{}", card.0, i % 4, i / 4));
            if i % 3 == 0 {
                act(&mut pair, seat, &format!("tap {}", card.0));
            }
            if i % 4 == 1 {
                act(&mut pair, seat, &format!("counter {} +1/+1 2", card.0));
            }
        }
        for (card, pile) in hand[8..11].iter().zip(["graveyard", "graveyard", "exile"]) {
            act(&mut pair, seat, &format!("move {} {pile}", card.0));
        }
        played.insert(seat, hand[..8].to_vec());
    }
    let chooser = pair.host.chooser().expect("a coin decided who chooses");
    act(&mut pair, chooser, "play-first");

    let (mine, theirs) = (&played[&Seat::HOST], &played[&Seat::GUEST]);
    act(&mut pair, Seat::HOST, "token \"Goblin\" 1/1 at 0,2");
    act(&mut pair, Seat::HOST, "token Goblin 1/1 at 1,2");
    let thrasios = named(&pair, Seat::HOST, ZoneKind::Command, HOST_COMMANDERS[1]);
    act(&mut pair, Seat::HOST, &format!("play {} at 3,2", thrasios.0));
    act(&mut pair, Seat::HOST, &format!("attach {} to {}", mine[1].0, mine[0].0));
    act(&mut pair, Seat::HOST, &format!("arrow {} to {}", mine[2].0, theirs[0].0));
    let goblin = named(&pair, Seat::HOST, ZoneKind::Play, "Goblin");
    act(&mut pair, Seat::HOST, &format!("arrow {} to opponent", goblin.0));
    act(&mut pair, Seat::HOST, "life -3");
    act(&mut pair, Seat::HOST, "player-counter poison 3");
    act(&mut pair, Seat::HOST, "player-counter energy +2");
    act(&mut pair, Seat::HOST, "commander-damage atraxa +7");
    act(&mut pair, Seat::GUEST, "token Treasure at 3,2");
    act(&mut pair, Seat::GUEST, "life -12");
    act(&mut pair, Seat::GUEST, "commander-damage thrasios 5");
    act(&mut pair, Seat::GUEST, &format!("arrow {} to {}", theirs[1].0, thrasios.0));
    // An aura of the guest's on the host's creature: it stays in the guest's play area, saying on what.
    act(&mut pair, Seat::GUEST, &format!("attach {} to {}", theirs[2].0, mine[3].0));

    let label = |card: CardId| format!("{card} {}", name(&pair, Seat::HOST, card));
    let arrows = vec![
        (mine[2], format!("→ {}", label(theirs[0]))),
        (goblin, "→ Guest".to_string()),
        (theirs[1], format!("→ {}", label(thrasios))),
    ];
    Board { pair, arrows }
}

fn zone(pair: &Pair<Ristretto255>, seat: Seat, kind: ZoneKind) -> Vec<CardId> {
    pair.host.table().zone(ZoneId::new(seat, kind)).to_vec()
}

/// A panel's inside as text, row by row, without its borders.
fn inside(buffer: &Buffer, title: &str) -> Vec<String> {
    let rect = panel(buffer, title);
    let rows = panel_rows(buffer, &rect);
    let inner = |row: &String| {
        let cells: Vec<char> = row.chars().collect();
        cells[1..cells.len() - 1].iter().collect::<String>().replace('\u{a0}', " ")
    };
    rows[1..rows.len() - 1].iter().map(inner).collect()
}

/// The values, command zone and piles of `seat`'s side, in its panel: each whole, on one row.
fn side_shows(buffer: &Buffer, board: &Board, seat: Seat, title: &str, values: &[String]) {
    let pair = &board.pair;
    let rows = inside(buffer, title);
    let text = rows.join("\n");
    let on_a_row = |needle: &str| rows.iter().any(|row| row.contains(needle));
    for value in values {
        assert!(on_a_row(value), "{title}: no {value:?}:\n{}", screen(buffer));
    }
    for card in zone(pair, seat, ZoneKind::Command) {
        let commander = format!("{card} {}", name(pair, seat, card));
        assert!(on_a_row(&commander), "{title}: no commander {commander}:\n{text}");
    }
    for (kind, pile) in [(ZoneKind::Graveyard, "graveyard"), (ZoneKind::Exile, "exile")] {
        let cards = zone(pair, seat, kind);
        assert!(on_a_row(&format!("{pile} {}", cards.len())), "{title}: no {pile} count:\n{}", screen(buffer));
    }
}

/// Every card of `seat`'s play area, as its panel shows it when it has the focus and is scrolled from top
/// to bottom: each card's rows by its id.
fn play_entries(view: &mut View, size: (u16, u16), seat: Seat, count: usize) -> BTreeMap<CardId, String> {
    let (title, tabs) = match seat {
        Seat::HOST => ("Your play area", 1),
        Seat::GUEST => ("Guest's play area", 2),
    };
    for _ in 0..tabs {
        handle_key(view, special(KeyCode::Tab));
    }
    let mut entries = BTreeMap::new();
    for _ in 0..=count {
        let buffer = draw(view, size.0, size.1);
        let mut current: Option<CardId> = None;
        let mut lands = false;
        for row in inside(&buffer, title) {
            // The compact row of lands, last: each group on it is an entry of its own.
            lands |= row.starts_with("lands:");
            if lands {
                let groups = row.trim_start_matches("lands:").split('#').filter(|group| !group.trim().is_empty());
                for group in groups {
                    let group = format!("#{}", group.trim());
                    entries.insert(ids_in(&group)[0], group);
                }
                continue;
            }
            let starts = row.starts_with('#') || row.starts_with('└');
            if starts {
                current = ids_in(&row).first().copied();
                // A card cut at the panel's top shows again whole when scrolled to.
                if let Some(card) = current {
                    entries.insert(card, String::new());
                }
            }
            if let Some(entry) = current.and_then(|card| entries.get_mut(&card)) {
                entry.push_str(row.trim());
                entry.push(' ');
            }
        }
        let bottom = rows(&buffer)[usize::from(panel(&buffer, title).bottom)].clone();
        if !bottom.contains('↓') && !bottom.contains('↕') {
            break;
        }
        handle_key(view, key(']'));
    }
    // Back to the hand, as the player left it.
    for _ in tabs..Panel::CYCLE.len() {
        handle_key(view, special(KeyCode::Tab));
    }
    entries
}

/// Each card in `seat`'s play area shows its name and state when scrolled to: tapped, counters, power and
/// toughness, the card it is attached to, and the arrows from it. Copies of a card with no state of their own
/// show as one group (`#4 Skewer the Critics ×2 (all tapped)`), under the first one's id.
fn play_shows(view: &mut View, size: (u16, u16), board: &Board, seat: Seat) {
    let table = board.pair.host.table();
    let cards = zone(&board.pair, seat, ZoneKind::Play);
    let entries = play_entries(view, size, seat, cards.len());
    let copies: usize = entries.values().map(|entry| counted_in(entry).first().map_or(1, |(_, n)| *n)).sum();
    assert_eq!(copies, cards.len(), "{size:?}: {entries:#?}");
    for card in cards {
        let state = table.card(card).expect("a card in play");
        let card_name = name(&board.pair, Seat::HOST, card);
        let Some(entry) = entries.get(&card) else {
            let group = format!("{card_name} ×");
            let entry = entries.values().find(|entry| entry.contains(&group));
            let entry = entry.unwrap_or_else(|| panic!("{size:?}: {card} in no group: {entries:#?}"));
            assert!(state.counters.is_empty() && state.attached_to.is_none(), "{size:?}: {card} in {entry}");
            assert!(!state.tapped || entry.contains("tapped)"), "{size:?}: {card} tapped, {entry}");
            continue;
        };
        assert!(entry.contains(&card_name), "{size:?}: {card_name} in {entry}");
        if entry.contains(" ×") {
            assert!(!state.tapped || entry.contains("tapped)"), "{size:?}: {card} tapped, {entry}");
        } else {
            assert_eq!(entry.contains("TAPPED"), state.tapped, "{size:?}: {entry}");
        }
        for (key, value) in &state.counters {
            assert!(entry.contains(&format!("[{key}: {value}]")), "{size:?}: {entry}");
        }
        if let Some(pt) = state.power_toughness {
            assert!(entry.contains(&format!(" {pt} ")), "{size:?}: {pt} in {entry}");
        }
        if let Some(host) = state.attached_to {
            // Right under its host, or, on a card of the other play area, by the host's name.
            let owner = table.card(host).expect("the host").owner;
            let on = if owner == state.owner {
                format!("└ on {host}:")
            } else {
                format!("└ on {host} {}:", name(&board.pair, Seat::HOST, host))
            };
            assert!(entry.starts_with(&on), "{size:?}: {on} in {entry}");
        }
        let arrows: Vec<&String> = board.arrows.iter().filter(|(from, _)| *from == card).map(|(_, to)| to).collect();
        for to in &arrows {
            assert!(entry.contains(to.as_str()), "{size:?}: {to} in {entry}");
        }
        assert_eq!(entry.matches('→').count(), arrows.len(), "{size:?}: {entry}");
    }
}

#[test]
fn a_commander_board_shows_every_card_and_value_at_every_size() {
    let board = commander_board();
    let pair = &board.pair;
    let atraxa = named(pair, Seat::GUEST, ZoneKind::Command, GUEST_COMMANDER);
    let thrasios = named(pair, Seat::HOST, ZoneKind::Play, HOST_COMMANDERS[1]);
    let beside = |seat| [ZoneKind::Command, ZoneKind::Graveyard, ZoneKind::Exile].map(|kind| zone(pair, seat, kind));
    let mut view = view_of(pair, Seat::HOST);
    for size in SIZES {
        let buffer = draw(&view, size.0, size.1);
        // Every card of both hands and play areas is shown or counted.
        accounted_beside(&buffer, "You (Host)", &hand(pair, Seat::HOST), 0, &beside(Seat::HOST).concat());
        let their_hand = hand(pair, Seat::GUEST);
        accounted_beside(&buffer, "Guest · life", &their_hand, their_hand.len(), &beside(Seat::GUEST).concat());
        accounted(&buffer, "Your play area", &zone(pair, Seat::HOST, ZoneKind::Play), 0);
        accounted(&buffer, "Guest's play area", &zone(pair, Seat::GUEST, ZoneKind::Play), 0);

        // Life in each side's title and on the status line; values, commanders and piles in the sides.
        assert!(find(&buffer, "┌ You (Host) · life 37 ").is_some(), "{size:?}:\n{}", screen(&buffer));
        assert!(find(&buffer, "┌ Guest · life 28 ").is_some(), "{size:?}:\n{}", screen(&buffer));
        let status = rows(&buffer).last().unwrap().clone();
        assert!(status.contains("life: you 37 · Guest 28"), "{status}");
        assert!(!status.contains("chooses"), "the first turn is on: {status}");
        let from_atraxa = format!("cmdr {atraxa} {GUEST_COMMANDER}: 7");
        let mine = [from_atraxa, "poison 3".to_string(), "energy 2".to_string()];
        side_shows(&buffer, &board, Seat::HOST, "You (Host)", &mine);
        let theirs = [format!("cmdr {thrasios} {}: 5", HOST_COMMANDERS[1])];
        side_shows(&buffer, &board, Seat::GUEST, "Guest · life", &theirs);
        // The tops of the piles come last, and a side too short for them says so.
        let guest = inside(&buffer, "Guest · life").join("\n");
        let bottom = rows(&buffer)[usize::from(panel(&buffer, "Guest · life").bottom)].clone();
        assert_eq!(guest.contains("exile top: "), !bottom.contains("hidden"), "{size:?}:\n{}", screen(&buffer));
        if size == (80, 24) {
            assert!(bottom.contains("+3 more ↓ · 1 line hidden · Tab"), "{}", screen(&buffer));
        }

        // Each card in play, scrolled to, shows all of its state.
        play_shows(&mut view, size, &board, Seat::HOST);
        play_shows(&mut view, size, &board, Seat::GUEST);
        assert_eq!(view.scrolls.focus(), Panel::MyHand);
    }
    // Both command zones open as piles, with each commander by id and name; the host's cast one is not there.
    let tymna = named(pair, Seat::HOST, ZoneKind::Command, HOST_COMMANDERS[0]);
    for (words, title, card, name) in [
        ("command", "Your command zone · 1 card", tymna, HOST_COMMANDERS[0]),
        ("opponent command", "Guest's command zone · 1 card", atraxa, GUEST_COMMANDER),
    ] {
        assert_eq!(open(&mut view, words), None);
        let buffer = draw(&view, 80, 24);
        let pile = inside(&buffer, title).join("\n");
        assert!(pile.contains(&format!("{:<8}{name} (top)", card.to_string())), "{}", screen(&buffer));
        assert!(!pile.contains(HOST_COMMANDERS[1]), "{pile}");
        handle_key(&mut view, special(KeyCode::Esc));
    }
    // The largest screen shows both play areas whole.
    let buffer = draw(&view_of(pair, Seat::HOST), 200, 50);
    for title in ["Your play area", "Guest's play area"] {
        let bottom = rows(&buffer)[usize::from(panel(&buffer, title).bottom)].clone();
        assert!(!bottom.contains("more"), "{title}:\n{}", screen(&buffer));
    }
}

#[test]
fn the_guest_sees_the_same_board_from_its_side() {
    let board = commander_board();
    let pair = &board.pair;
    let view = view_of(pair, Seat::GUEST);
    for (width, height) in SIZES {
        let buffer = draw(&view, width, height);
        let beside =
            |seat| [ZoneKind::Command, ZoneKind::Graveyard, ZoneKind::Exile].map(|kind| zone(pair, seat, kind));
        let host_hand = hand(pair, Seat::HOST);
        accounted_beside(&buffer, "You (Guest)", &hand(pair, Seat::GUEST), 0, &beside(Seat::GUEST).concat());
        accounted_beside(&buffer, "Host · life", &host_hand, host_hand.len(), &beside(Seat::HOST).concat());
        accounted(&buffer, "Your play area", &zone(pair, Seat::GUEST, ZoneKind::Play), 0);
        accounted(&buffer, "Host's play area", &zone(pair, Seat::HOST, ZoneKind::Play), 0);
        let host = inside(&buffer, "Host · life").join("\n");
        // The host's commander still in its command zone, by name.
        let tymna = named(pair, Seat::HOST, ZoneKind::Command, HOST_COMMANDERS[0]);
        assert!(host.contains(&format!("{tymna} {}", HOST_COMMANDERS[0])), "{}", screen(&buffer));
        assert!(host.contains("poison 3") && host.contains("energy 2"), "{}", screen(&buffer));
        assert!(rows(&buffer).last().unwrap().contains("life: you 28 · Host 37"), "{}", screen(&buffer));
    }
    // The host's arrows, as the guest sees them: to the guest's card, and to the guest.
    let buffer = draw(&view, 200, 50);
    let host_play = inside(&buffer, "Host's play area");
    let host_cards = zone(pair, Seat::HOST, ZoneKind::Play);
    for (from, to) in board.arrows.iter().filter(|(from, _)| host_cards.contains(from)) {
        let to = to.replace("→ Guest", "→ you");
        let row = host_play.iter().find(|row| row.starts_with(&format!("{from} "))).expect("the card's row");
        assert!(row.contains(&to), "{to} in {row}");
    }
}

#[test]
fn after_a_concession_the_status_line_says_the_game_is_over_and_who_lost() {
    let mut pair = ready_pair();
    assert!(pair.host.chooser().is_some(), "a coin decided who chooses");
    let status = |pair: &Pair<Ristretto255>, seat| rows(&draw(&view_of(pair, seat), 80, 24)).last().unwrap().clone();
    assert!(status(&pair, Seat::HOST).contains("choose"), "{}", status(&pair, Seat::HOST));
    act(&mut pair, Seat::GUEST, "concede");
    for (seat, over) in [(Seat::HOST, "GAME OVER: Guest conceded · you win"), (Seat::GUEST, "GAME OVER: you conceded")]
    {
        let line = status(&pair, seat);
        assert!(line.contains(over), "{line}");
        assert!(!line.contains("choose"), "the game is over: {line}");
    }
    // The deck audit that follows changes nothing of it.
    for seat in Seat::BOTH {
        pair.intent(seat, Intent::EndGame).expect("end");
        pair.drive();
    }
    assert!(status(&pair, Seat::HOST).contains("GAME OVER: Guest conceded · you win"), "{}", status(&pair, Seat::HOST));
}
