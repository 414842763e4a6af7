//! The table's panels: the opponent's side, both play areas and this player's side, each sized from the
//! rows its cards take at its width (the rows that are then drawn), scrolled as the player chose, with
//! "+N more" on the border of a panel that cannot show all its cards; and the view of one pile.

use fairdeck_shared::table::{CardId, ZoneKind};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Style, Stylize};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};

use super::arrows::Target;
use super::groups::{Entry, group, in_land_row};
use super::panels::{Chunk, Piece, Want, Window, centered, flow, rows_of, share};
use super::table_view::{CardView, PlayedCard, Side, SideView, TableView};
use super::view::{DeckLabel, Panel, Pile, View};
use crate::command::commander_damage_from;

/// How the opponent's hidden cards look.
const CARD_BACK: &str = "[▒▒]";
/// Rows after a card's first in a play area or a pile start under its name.
const NAME_COLUMN: usize = 8;
/// The narrowest play area that shows where its cards lie (`at 2,1`).
const POSITIONS_FROM: usize = 60;
/// The pile view's widest.
const PILE_WIDTH: u16 = 64;

/// A panel's text at its width: rows that always show, then the chunks that scroll.
struct Content {
    head: Vec<Line<'static>>,
    chunks: Vec<Chunk>,
}

impl Content {
    fn want(&self) -> Want {
        let head = self.head.len();
        let body: usize = self.chunks.iter().map(|c| c.rows.len()).sum();
        let rows = |n: usize| u16::try_from(n).unwrap_or(u16::MAX).saturating_add(2);
        Want { min: rows(head + body.min(1)), all: rows(head + body) }
    }
}

/// The opponent's side, their play area, this player's play area and side, top to bottom.
pub fn render_table(frame: &mut Frame, area: Rect, view: &View) {
    let table = &view.table;
    let width = usize::from(area.width.saturating_sub(2));
    // A spectator's table names the bottom player as it names the other.
    let (my_play, my_side) = match table.plays {
        true => ("Your".to_string(), format!("You ({})", table.me.name)),
        false => (format!("{}'s", table.me.name), table.me.name.clone()),
    };
    let panels = [
        (
            Panel::TheirHand,
            side_title(&table.opponent, &table.opponent.name, view.deck_labels[1].as_ref()),
            side(table, &table.opponent, view.deck_labels[1].as_ref(), false, width),
        ),
        (
            Panel::TheirPlay,
            play_title(&format!("{}'s", table.opponent.name), &table.opponent.play),
            play(view, &table.opponent.play, width),
        ),
        (Panel::MyPlay, play_title(&my_play, &table.me.play), play(view, &table.me.play, width)),
        (
            Panel::MyHand,
            side_title(&table.me, &my_side, view.deck_labels[0].as_ref()),
            // A spectator's bottom player keeps its hidden cards as the other does: backs.
            side(table, &table.me, view.deck_labels[0].as_ref(), table.plays, width),
        ),
    ];
    let at = |panel: Panel| panels.iter().position(|(p, ..)| *p == panel).unwrap_or_default();
    let wants: Vec<Want> = panels.iter().map(|(.., content)| content.want()).collect();
    // The focused panel is served first, then the opponent's play area (what may attack you is seen without
    // scrolling); rows no panel needs go to the play areas.
    let focus = view.scrolls.focus();
    let mut first = vec![focus];
    if focus != Panel::TheirPlay {
        first.push(Panel::TheirPlay);
    }
    let others = Panel::CYCLE.into_iter().filter(|panel| !first.contains(panel));
    let order: Vec<usize> = first.iter().copied().chain(others).map(at).collect();
    let heights = share(area.height, &wants, (&order, first.len()), &[at(Panel::TheirPlay), at(Panel::MyPlay)]);
    let areas = Layout::vertical(heights.iter().map(|h| Constraint::Length(*h))).split(area);
    for ((panel, title, content), area) in panels.into_iter().zip(areas.iter()) {
        let mut block = Block::bordered().title(title);
        if panel == Panel::MyHand {
            block = block.bold();
        }
        let hint = if panel == focus {
            block = block.border_style(Style::new().fg(Color::Yellow));
            "[ ] scroll"
        } else {
            "Tab"
        };
        render_panel(frame, *area, view, (panel, hint), content, block);
    }
}

/// Draws `content` in `block`: as much of its head as fits, then the chunks from the panel's scroll that fit,
/// and on the bottom border how many cards did not and how many rows of the head, with `hint` on the key
/// that brings them into sight.
fn render_panel(
    frame: &mut Frame,
    area: Rect,
    view: &View,
    (panel, hint): (Panel, &str),
    mut content: Content,
    block: Block,
) {
    let inner = usize::from(block.inner(area).height);
    // A head taller than the panel loses its last rows (the least needed), and says so.
    let cut = content.head.len().saturating_sub(inner);
    content.head.truncate(inner);
    let room = inner - content.head.len();
    let offset = view.scrolls.offset(panel);
    let mut window = Window::of(&content.chunks, offset, room);
    // In a play area [ ] move the selection an entry at a time, the window following it; elsewhere they
    // scroll, and the first card shown is the selected one.
    let selected = if matches!(panel, Panel::MyPlay | Panel::TheirPlay) {
        view.scrolls.set_limit(panel, content.chunks.len().saturating_sub(1));
        content.chunks.get(offset).and_then(|chunk| chunk.first)
    } else {
        view.scrolls.set_limit(panel, window.max_offset);
        window.first
    };
    view.scrolls.set_selected(panel, selected);
    if panel == view.scrolls.focus()
        && let Some(selected) = selected
    {
        mark_selected(&mut window.rows, selected);
    }
    let hidden_rows = (0 < cut).then(|| format!("{cut} {} hidden", if cut == 1 { "line" } else { "lines" }));
    let signs: Vec<String> = window.more().into_iter().chain(hidden_rows).collect();
    let block =
        if signs.is_empty() { block } else { block.title_bottom(format!(" {} · {hint} ", signs.join(" · "))) };
    let mut rows = content.head;
    rows.extend(window.rows);
    frame.render_widget(Paragraph::new(rows).block(block), area);
}

/// Shows the card `id` as selected: its id reversed, in the column of ids (cyan), not where another card's
/// arrow names it.
fn mark_selected(rows: &mut [Line<'static>], id: CardId) {
    let id = id.to_string();
    let span = rows
        .iter_mut()
        .flat_map(|row| row.spans.iter_mut())
        .find(|span| span.style.fg == Some(Color::Cyan) && span.content.trim() == id);
    if let Some(span) = span {
        span.style = span.style.reversed();
    }
}

/// A play area's title: whose, and how many cards, which its bottom border may count out of sight.
fn play_title(whose: &str, cards: &[PlayedCard]) -> String {
    format!(" {whose} play area · {} ", crate::text::counted(cards.len(), "card"))
}

/// The side's name, life and deck label (last, the first to be cut): the other values go in the side's rows, which
/// wrap where a title would be cut.
fn side_title(side: &SideView, name: &str, deck: Option<&DeckLabel>) -> String {
    let life = side.life.map_or_else(|| "—".to_string(), |life| life.to_string());
    let deck = deck.filter(|deck| !deck.label.is_empty()).map(|deck| format!(" · deck {}", deck.label));
    format!(" {name} · life {life}{} ", deck.unwrap_or_default())
}

/// A player value in words: damage from a commander (`commander:#101`) as `cmdr #101 Krenko, Mob Boss: 7`.
fn value_text(table: &TableView, key: &str, value: i64) -> String {
    match commander_damage_from(key) {
        Some(card) => format!("cmdr {}: {value}", known(table, card)),
        None => format!("{key} {value}"),
    }
}

/// A side's values (and CHANGED DECK), its command zone, zone counts and the tops of its public piles, in the order a
/// short panel keeps them, then its hand: names for this player's own, backs for the opponent's (with the
/// names this player was shown). The play area's count is in its own panel's title, and an empty sideboard
/// (a Commander deck's) is not counted.
fn side(table: &TableView, side: &SideView, deck: Option<&DeckLabel>, mine: bool, width: usize) -> Content {
    let dot = Span::raw(" · ");
    let value = |(key, value): &(String, i64)| Piece::text(Span::raw(value_text(table, key, *value)).bold());
    let mut facts: Vec<Piece> = side.values.iter().map(value).collect();
    // The label is in the title; a changed deck is said where it cannot be cut.
    if deck.is_some_and(|deck| deck.changed) {
        facts.push(Piece::text(Span::raw("CHANGED DECK").fg(Color::Yellow).bold()));
    }
    // No values and no deck: no row for them.
    let mut head = if facts.is_empty() { Vec::new() } else { rows_of(flow(facts, &dot, width, 0)) };
    if !side.command.is_empty() {
        let mut command = vec![Piece::label(Span::raw("command:").bold())];
        command.extend(
            side.command.iter().map(|card| Piece::card(card.id, vec![Span::raw(label(card)).fg(Color::Magenta)])),
        );
        head.extend(rows_of(flow(command, &Span::raw("  "), width, 0)));
    }
    head.extend(counts(side, &dot, width));
    let tops: Vec<Piece> = [("graveyard", &side.graveyard), ("exile", &side.exile)]
        .into_iter()
        .filter_map(|(pile, cards)| cards.first().map(|card| (pile, card)))
        .map(|(pile, card)| Piece::text(Span::raw(format!("{pile} top: {}", label(card))).italic()))
        .collect();
    if !tops.is_empty() {
        head.extend(rows_of(flow(tops, &dot, width, 0)));
    }
    let mut hand = vec![Piece::label(Span::raw("hand:").bold())];
    for card in &side.hand {
        hand.push(match (&card.name, mine) {
            (Some(name), _) => Piece::card(
                card.id,
                vec![Span::raw(card.id.to_string()).fg(Color::Cyan), Span::raw(format!(" {name}"))],
            ),
            (None, true) => Piece::card(card.id, vec![Span::raw(card.id.to_string())]),
            (None, false) => Piece::card(card.id, vec![Span::raw(CARD_BACK).fg(Color::Blue)]),
        });
    }
    if side.hand.is_empty() {
        hand.push(Piece::text(Span::raw("empty").italic()));
    }
    let gap = Span::raw(if mine { "  " } else { " " });
    Content { head, chunks: flow(hand, &gap, width, 0) }
}

/// A side's zone counts on one row where they fit: the library and hand always, the other piles when they
/// hold cards (the play area's count is in its own panel's title); in short words on a narrow panel.
fn counts(side: &SideView, dot: &Span<'static>, width: usize) -> Vec<Line<'static>> {
    let shown: Vec<(ZoneKind, usize)> = side
        .counts
        .iter()
        .copied()
        .filter(|(kind, n)| matches!(kind, ZoneKind::Library | ZoneKind::Hand) || (*kind != ZoneKind::Play && 0 < *n))
        .collect();
    let row = |short: bool| {
        let word = |kind: ZoneKind| match (kind, short) {
            (ZoneKind::Library, true) => "lib",
            (ZoneKind::Graveyard, true) => "grave",
            (ZoneKind::Sideboard, true) => "side",
            _ => kind.name(),
        };
        let pieces = shown.iter().map(|(kind, n)| Piece::text(Span::raw(format!("{} {n}", word(*kind)))));
        rows_of(flow(pieces.collect(), dot, width, 0))
    };
    let long = row(false);
    if long.len() <= 1 { long } else { row(true) }
}

/// A card on the table by id, and by name where this player knows it.
fn known(table: &TableView, id: CardId) -> String {
    let played = table.me.play.iter().chain(&table.opponent.play).find(|played| played.card.id == id);
    if let Some(PlayedCard { card, face_down: true, .. }) = played
        && card.name.is_none()
    {
        return format!("{id} face-down card");
    }
    let public = [&table.me, &table.opponent]
        .into_iter()
        .flat_map(|side| side.command.iter().chain(&side.graveyard).chain(&side.exile).chain(&side.hand));
    played
        .map(|played| &played.card)
        .or_else(|| public.into_iter().find(|card| card.id == id))
        .map_or_else(|| id.to_string(), label)
}

fn label(card: &CardView) -> String {
    match &card.name {
        Some(name) => format!("{} {name}", card.id),
        None => card.id.to_string(),
    }
}

/// A play area in groups ([`group`]): each entry a chunk, wrapped whole under its name, then the lands in a
/// compact row.
fn play(view: &View, cards: &[PlayedCard], width: usize) -> Content {
    if cards.is_empty() {
        return Content { head: vec![Line::from("no cards").italic()], chunks: Vec::new() };
    }
    let here = |id| cards.iter().any(|c| c.card.id == id);
    let entries = group(cards, &view.book, |id| view.arrows.from(id).next().is_some());
    let (lands, others): (Vec<Entry>, Vec<Entry>) = entries.into_iter().partition(in_land_row);
    let mut chunks: Vec<Chunk> = others
        .iter()
        .map(|entry| match entry.cards.as_slice() {
            [card] => played(view, card, card.attached_to.is_some_and(here), width),
            _ => Chunk::joined(flow(grouped(entry), &Span::raw(" "), width, NAME_COLUMN)),
        })
        .collect();
    if !lands.is_empty() {
        let mut row = vec![Piece::label(Span::raw("lands:").bold())];
        row.extend(lands.iter().map(land));
        chunks.extend(flow(row, &Span::raw("  "), width, 0));
    }
    Content { head: Vec::new(), chunks }
}

/// A card in play; `host_here`: the card it is attached to, if any, is in the same play area (right above it).
fn played(view: &View, played: &PlayedCard, host_here: bool, width: usize) -> Chunk {
    let name = match (&played.card.name, played.face_down) {
        (Some(name), _) => name.as_str(),
        (None, true) => "face-down card",
        (None, false) => "unknown card",
    };
    let mut pieces = Vec::new();
    if let Some(host) = played.attached_to {
        // A host in the other play area is named: it is not right above.
        let host = if host_here { host.to_string() } else { known(&view.table, host) };
        pieces.push(Piece::text(Span::raw(format!("└ on {host}:")).fg(Color::Magenta)));
    }
    pieces.extend(card_pieces(&played.card, name, 1));
    if let Some(pt) = played.power_toughness {
        pieces.push(Piece::text(Span::raw(pt.to_string()).bold()));
    }
    // A narrow panel leaves the positions out: the rows are worth more.
    if POSITIONS_FROM <= width {
        pieces.push(Piece::text(Span::raw(format!("at {},{}", played.x, played.y)).fg(Color::Gray)));
    }
    if played.tapped {
        pieces.push(Piece::text(Span::raw("TAPPED").fg(Color::Yellow).bold()));
    }
    if played.face_down {
        pieces.push(Piece::text(Span::raw("FACE DOWN").fg(Color::Magenta).bold()));
    }
    for (key, value) in &played.counters {
        pieces.push(Piece::text(Span::raw(format!("[{key}: {value}]")).fg(Color::Green)));
    }
    for to in view.arrows.from(played.card.id) {
        pieces.push(Piece::label(Span::raw("→").fg(Color::Red).bold()));
        let to = match to {
            Target::Player(Side::Mine) => "you".to_string(),
            Target::Player(Side::Opponent) => view.table.opponent.name.clone(),
            Target::Card(card) => known(&view.table, card),
        };
        pieces.extend(to.split(' ').map(|word| Piece::text(Span::raw(word.to_string()))));
    }
    Chunk::joined(flow(pieces, &Span::raw(" "), width, NAME_COLUMN))
}

/// Copies of a card: the first one's id, the name, how many and how many of them are tapped.
fn grouped(entry: &Entry) -> Vec<Piece> {
    let first = &entry.cards[0];
    let name = first.card.name.as_deref().unwrap_or("unknown card");
    let mut pieces = card_pieces(&first.card, name, entry.cards.len());
    pieces.push(Piece::text(Span::raw(format!("×{}", entry.cards.len())).bold()));
    if let Some(pt) = first.power_toughness {
        pieces.push(Piece::text(Span::raw(pt.to_string()).bold()));
    }
    if let Some(tapped) = tapped_words(entry) {
        pieces.push(Piece::text(Span::raw(tapped).fg(Color::Yellow)));
    }
    pieces
}

/// `(1 tapped)`, `(all tapped)`, or nothing when none is.
fn tapped_words(entry: &Entry) -> Option<String> {
    match entry.tapped() {
        0 => None,
        n if n == entry.cards.len() => Some("(all tapped)".to_string()),
        n => Some(format!("({n} tapped)")),
    }
}

/// A group of lands in the compact row, one piece: `#12 Mountain ×3 (1 tapped)`; one land alone has no count.
fn land(entry: &Entry) -> Piece {
    let first = &entry.cards[0];
    let name = first.card.name.clone().unwrap_or_default();
    let mut spans = vec![Span::raw(entry.first().to_string()).fg(Color::Cyan), Span::raw(format!(" {name}"))];
    if 1 < entry.cards.len() {
        spans.push(Span::raw(format!(" ×{}", entry.cards.len())).bold());
    }
    match tapped_words(entry) {
        Some(_) if entry.cards.len() == 1 => spans.push(Span::raw(" TAPPED").fg(Color::Yellow).bold()),
        Some(words) => spans.push(Span::raw(format!(" {words}")).fg(Color::Yellow)),
        None => {}
    }
    Piece::cards(entry.first(), entry.cards.len(), spans)
}

/// A card's id in a column of its own, then its name a word at a time; `count`: the cards it stands for
/// (copies grouped under the first one's id).
fn card_pieces(card: &CardView, name: &str, count: usize) -> Vec<Piece> {
    let id = format!("{:<width$}", card.id.to_string(), width = NAME_COLUMN - 1);
    let mut pieces = vec![Piece::cards(card.id, count, vec![Span::raw(id).fg(Color::Cyan)])];
    pieces.extend(name.split(' ').map(|word| Piece::text(Span::raw(word.to_string()))));
    pieces
}

/// The view of a pile over the table: its cards top first, each with its id, scrolled as the player
/// chose.
pub fn render_pile(frame: &mut Frame, area: Rect, view: &View, pile: Pile) {
    let cards = pile.cards(&view.table);
    let width = PILE_WIDTH.min(area.width);
    let inner = usize::from(width.saturating_sub(2));
    let chunks: Vec<Chunk> = cards
        .iter()
        .enumerate()
        .map(|(i, card)| {
            let mut pieces = card_pieces(card, card.name.as_deref().unwrap_or("unknown card"), 1);
            if i == 0 {
                pieces.push(Piece::text(Span::raw("(top)").fg(Color::Gray)));
            }
            Chunk::joined(flow(pieces, &Span::raw(" "), inner, NAME_COLUMN))
        })
        .collect();
    let content = if cards.is_empty() {
        Content { head: vec![Line::from("empty").italic()], chunks }
    } else {
        Content { head: Vec::new(), chunks }
    };
    let popup = centered(area, width, content.want().all);
    frame.render_widget(Clear, popup);
    let title = format!(" {} · {} ", pile.name(&view.table), crate::text::counted(cards.len(), "card"));
    let block = Block::bordered()
        .title(title)
        .title_bottom(Line::from(" Esc closes ").right_aligned())
        .border_style(Style::new().fg(Color::Yellow));
    render_panel(frame, popup, view, (Panel::Pile, "↑↓ scroll"), content, block);
}
