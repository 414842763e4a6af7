//! Text laid out for the table's panels: pieces flowed into rows at a width, rows grouped into chunks
//! that show or hide whole cards, the window of chunks a panel of some height shows, and the rows
//! shared among panels. A panel's height is measured on the rows [`flow`] gives, and those same rows
//! are drawn: what is measured is what is shown.

use fairdeck_shared::table::CardId;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

/// Text that stays on one row when it fits (a card in hand, a counter), and the cards it stands for.
#[derive(Clone, Debug)]
pub struct Piece {
    spans: Vec<Span<'static>>,
    cards: usize,
    /// The card it names first: the one selected when it starts the panel's window.
    first: Option<CardId>,
    /// One space after it rather than the gap: a label and what it labels.
    label: bool,
}

impl Piece {
    /// A piece that shows the card `id`.
    pub fn card(id: CardId, spans: Vec<Span<'static>>) -> Self {
        Piece::cards(id, 1, spans)
    }

    /// A piece that stands for `cards` cards, `first` the one it names (copies grouped: `Mountain ×3`).
    pub fn cards(first: CardId, cards: usize, spans: Vec<Span<'static>>) -> Self {
        Piece { spans, cards, first: Some(first), label: false }
    }

    /// A piece that shows no card (a label, a word of a name).
    pub fn text(span: Span<'static>) -> Self {
        Piece { spans: vec![span], cards: 0, first: None, label: false }
    }

    /// A piece that names what follows it, one space on.
    pub fn label(span: Span<'static>) -> Self {
        Piece { spans: vec![span], cards: 0, first: None, label: true }
    }

    fn width(&self) -> usize {
        self.spans.iter().map(Span::width).sum()
    }
}

/// Rows that show or hide together, and how many cards they show.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Chunk {
    pub rows: Vec<Line<'static>>,
    pub cards: usize,
    /// The first card it names.
    pub first: Option<CardId>,
}

impl Chunk {
    /// One chunk of all of `chunks`' rows: a card in play shows whole or not at all.
    pub fn joined(chunks: Vec<Chunk>) -> Chunk {
        chunks.into_iter().fold(Chunk::default(), |mut all, chunk| {
            all.rows.extend(chunk.rows);
            all.cards += chunk.cards;
            all.first = all.first.or(chunk.first);
            all
        })
    }
}

/// All the rows of `chunks`, in order.
pub fn rows_of(chunks: Vec<Chunk>) -> Vec<Line<'static>> {
    chunks.into_iter().flat_map(|chunk| chunk.rows).collect()
}

/// Lays `pieces` out in rows of at most `width` columns, with `gap` between pieces on a row; rows after
/// the first start `indent` columns in. Each row is a chunk, except that a piece wider than a row is cut
/// across rows, and those rows make one chunk.
pub fn flow(pieces: Vec<Piece>, gap: &Span<'static>, width: usize, indent: usize) -> Vec<Chunk> {
    let width = width.max(1);
    // An indent that would leave less room than it takes is dropped.
    let indent = if indent * 2 <= width { indent } else { 0 };
    let mut rows = Rows {
        width,
        indent,
        chunks: Vec::new(),
        spans: Vec::new(),
        used: 0,
        empty: true,
        cards: 0,
        first: None,
        joins: false,
    };
    let space = Span::raw(" ");
    let mut after_label = false;
    for piece in pieces {
        let gap = if after_label { &space } else { gap };
        after_label = piece.label;
        let piece_width = piece.width();
        // A piece too wide for any row is cut from where the row is, rather than from a new row.
        let fits_a_row = rows.indent + piece_width <= width;
        let after_gap = rows.used + gap.width();
        if !rows.empty && width < after_gap + piece_width && (fits_a_row || width <= after_gap) {
            rows.next_row(false);
        }
        if !rows.empty {
            rows.push(gap.clone());
        }
        rows.cards += piece.cards;
        rows.first = rows.first.or(piece.first);
        if rows.used + piece_width <= width {
            piece.spans.into_iter().for_each(|span| rows.push(span));
        } else {
            for span in piece.spans {
                rows.cut(&span);
            }
        }
    }
    if !rows.empty || rows.chunks.is_empty() {
        rows.next_row(false);
    }
    rows.chunks
}

/// The rows being laid out by [`flow`].
struct Rows {
    width: usize,
    indent: usize,
    chunks: Vec<Chunk>,
    /// The row being filled.
    spans: Vec<Span<'static>>,
    used: usize,
    /// The row holds nothing yet but its indent.
    empty: bool,
    /// Cards whose piece starts on the row being filled.
    cards: usize,
    /// The first card named on the row being filled.
    first: Option<CardId>,
    /// The row being filled goes on with a piece cut on the row before.
    joins: bool,
}

impl Rows {
    fn push(&mut self, span: Span<'static>) {
        self.used += span.width();
        self.empty = false;
        self.spans.push(span);
    }

    /// Writes `span` a character at a time, going on to the next row at the edge.
    fn cut(&mut self, span: &Span<'static>) {
        let mut part = String::new();
        for c in span.content.chars() {
            let c_width = Span::raw(c.to_string()).width();
            if self.used + part_width(&part) + c_width > self.width && !(self.empty && part.is_empty()) {
                self.push(Span::styled(std::mem::take(&mut part), span.style));
                self.next_row(true);
            }
            part.push(c);
        }
        if !part.is_empty() {
            self.push(Span::styled(part, span.style));
        }
    }

    /// Ends the row; `joins` says whether the next row shows with it.
    fn next_row(&mut self, joins: bool) {
        let line = Line::from(std::mem::take(&mut self.spans));
        let cards = std::mem::take(&mut self.cards);
        let first = self.first.take();
        match self.chunks.last_mut() {
            Some(chunk) if self.joins => {
                chunk.rows.push(line);
                chunk.cards += cards;
                chunk.first = chunk.first.or(first);
            }
            _ => self.chunks.push(Chunk { rows: vec![line], cards, first }),
        }
        self.joins = joins;
        self.empty = true;
        self.used = self.indent;
        if 0 < self.indent {
            self.spans.push(Span::styled(" ".repeat(self.indent), Style::new()));
        }
    }
}

fn part_width(part: &str) -> usize {
    Span::raw(part).width()
}

/// The chunks a panel shows from `offset` on, in `height` rows, and the cards it leaves out.
#[derive(Clone, Debug, PartialEq)]
pub struct Window {
    pub rows: Vec<Line<'static>>,
    /// Cards in the chunks before the window.
    pub above: usize,
    /// Cards in the chunks after the window.
    pub below: usize,
    /// The furthest offset worth scrolling to: from there on, every chunk shows.
    pub max_offset: usize,
    /// The first card named in the window: the panel's selected card.
    pub first: Option<CardId>,
}

impl Window {
    /// The chunks from `offset` (at most [`Window::max_offset`]) that fit in `height` rows; the first
    /// shows even when it is taller, cut at the bottom.
    pub fn of(chunks: &[Chunk], offset: usize, height: usize) -> Window {
        let max_offset = max_offset(chunks, height);
        let offset = offset.min(max_offset);
        let mut rows: Vec<Line<'static>> = Vec::new();
        let mut end = offset;
        for chunk in &chunks[offset..] {
            if height <= rows.len() || (!rows.is_empty() && height < rows.len() + chunk.rows.len()) {
                break;
            }
            rows.extend(chunk.rows.iter().take(height - rows.len()).cloned());
            end += 1;
        }
        let cards = |chunks: &[Chunk]| chunks.iter().map(|c| c.cards).sum();
        let first = chunks[offset..end].iter().find_map(|chunk| chunk.first);
        Window { rows, above: cards(&chunks[..offset]), below: cards(&chunks[end..]), max_offset, first }
    }

    /// Cards not shown.
    pub fn hidden(&self) -> usize {
        self.above + self.below
    }

    /// "+N more" and which way they are, when cards are not shown.
    pub fn more(&self) -> Option<String> {
        let way = match (0 < self.above, 0 < self.below) {
            (false, false) => return None,
            (true, false) => "↑",
            (false, true) => "↓",
            (true, true) => "↕",
        };
        Some(format!("+{} more {way}", self.hidden()))
    }
}

/// The last offset from which all the remaining chunks fit in `height` rows.
fn max_offset(chunks: &[Chunk], height: usize) -> usize {
    let mut rows = 0;
    for (i, chunk) in chunks.iter().enumerate().rev() {
        rows += chunk.rows.len();
        if height < rows {
            return (i + 1).min(chunks.len() - 1);
        }
    }
    0
}

/// A panel's rows: the fewest it makes do with, and all it can use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Want {
    pub min: u16,
    pub all: u16,
}

/// The rows every panel gets first, while rows last: its title, one row, and its bottom border (where it says
/// what it does not show).
const FLOOR: u16 = 3;

/// Shares `height` rows among panels. Each gets its floor first (at most [`FLOOR`] of its fewest), in `order`
/// while rows last; then the first in `order` (the focus) gets all it can use; then the others their fewest,
/// in order; then the next `served - 1` in order (the opponent's board) all they can use; then rows go one at
/// a time round the panels, to those that can use more; what is left goes to the `spare` panels, evenly.
pub fn share(height: u16, wants: &[Want], (order, served): (&[usize], usize), spare: &[usize]) -> Vec<u16> {
    let mut rows = Shared { heights: vec![0; wants.len()], left: height };
    for &i in order {
        rows.give(i, wants[i].min.min(FLOOR));
    }
    if let Some((&first, others)) = order.split_first() {
        rows.give(first, wants[first].all);
        for &i in others {
            rows.give(i, wants[i].min);
        }
        for &i in others.iter().take(served.saturating_sub(1)) {
            rows.give(i, wants[i].all);
        }
    }
    loop {
        let before = rows.left;
        for &i in order {
            rows.give(i, (rows.heights[i] + 1).min(wants[i].all));
        }
        if rows.left == before {
            break;
        }
    }
    for (n, &i) in spare.iter().enumerate() {
        let count = u16::try_from(spare.len() - n).unwrap_or(u16::MAX);
        rows.give(i, rows.heights[i].saturating_add(rows.left.div_ceil(count)));
    }
    rows.heights
}

/// The rows shared so far, and those left.
struct Shared {
    heights: Vec<u16>,
    left: u16,
}

impl Shared {
    /// Gives panel `i` rows until it has `up_to`, while rows last.
    fn give(&mut self, i: usize, up_to: u16) {
        let more = up_to.saturating_sub(self.heights[i]).min(self.left);
        self.heights[i] += more;
        self.left -= more;
    }
}

/// A rectangle of at most `width` × `height` in the middle of `area`.
pub fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let width = width.min(area.width);
    let height = height.min(area.height);
    Rect::new(area.x + (area.width - width) / 2, area.y + (area.height - height) / 2, width, height)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(line: &Line) -> String {
        line.spans.iter().map(|s| s.content.as_ref()).collect()
    }

    fn words(text: &str) -> Vec<Piece> {
        text.split(' ').map(|w| Piece::card(CardId(1), vec![Span::raw(w.to_string())])).collect()
    }

    #[test]
    fn flow_keeps_pieces_whole_and_rows_within_the_width() {
        let gap = Span::raw("  ");
        let chunks = flow(words("#1 aa #22 bbbb #333 c"), &gap, 10, 0);
        let rows: Vec<String> = chunks.iter().map(|c| text(&c.rows[0])).collect();
        assert_eq!(rows, ["#1  aa", "#22  bbbb", "#333  c"]);
        assert!(chunks.iter().all(|c| c.rows.len() == 1 && c.cards == 2));
    }

    #[test]
    fn a_piece_wider_than_a_row_is_cut_into_one_chunk() {
        let pieces = vec![
            Piece::label(Span::raw("hand:")),
            Piece::card(CardId(7), vec![Span::raw("#7 "), Span::raw("Asmoranomardicadaistinaculdacar")]),
            Piece::card(CardId(8), vec![Span::raw("#8 ok")]),
        ];
        // A label is one space from what it labels; cards are the gap apart.
        let chunks = flow(pieces, &Span::raw("  "), 12, 0);
        let rows: Vec<Vec<String>> = chunks.iter().map(|c| c.rows.iter().map(text).collect()).collect();
        assert_eq!(rows[0], ["hand: #7 Asm", "oranomardica", "daistinaculd", "acar  #8 ok"]);
        assert_eq!((rows.len(), chunks[0].cards), (1, 2));
        for width in 1..20 {
            for chunk in flow(words("a bb ccc dddd eeeee"), &Span::raw(" "), width, 2) {
                assert!(chunk.rows.iter().all(|r| r.width() <= width.max(1)), "{width}: {chunk:?}");
            }
        }
    }

    #[test]
    fn rows_after_the_first_are_indented() {
        let chunks = flow(words("#1 Goblin Guide at 0,0"), &Span::raw(" "), 14, 3);
        let rows: Vec<String> = rows_of(chunks).iter().map(text).collect();
        assert_eq!(rows, ["#1 Goblin", "   Guide at", "   0,0"]);
    }

    #[test]
    fn a_window_counts_the_cards_it_leaves_out() {
        let chunk = |rows: usize, cards| Chunk { rows: vec![Line::from("x"); rows], cards, first: None };
        let chunks = [chunk(1, 2), chunk(2, 1), chunk(1, 2), chunk(1, 2)];
        let top = Window::of(&chunks, 0, 3);
        assert_eq!((top.rows.len(), top.above, top.below, top.max_offset), (3, 0, 4, 2));
        assert_eq!(top.more().as_deref(), Some("+4 more ↓"));
        let middle = Window::of(&chunks, 1, 3);
        assert_eq!((middle.above, middle.below), (2, 2));
        assert_eq!(middle.more().as_deref(), Some("+4 more ↕"));
        // Past the end, the window stops where every last chunk shows.
        let end = Window::of(&chunks, 9, 3);
        assert_eq!((end.rows.len(), end.above, end.below), (2, 3, 0));
        assert_eq!(Window::of(&chunks, 0, 5).more(), None);
        // A chunk taller than the panel shows cut rather than not at all.
        let cut = Window::of(&chunks, 1, 1);
        assert_eq!((cut.rows.len(), cut.above, cut.below), (1, 2, 4));
        assert_eq!(Window::of(&chunks, 0, 0).hidden(), 7);
    }

    #[test]
    fn rows_are_shared_floors_first_then_the_focus_then_round_the_panels() {
        let want = |min, all| Want { min, all };
        let wants = [want(3, 4), want(3, 20), want(3, 20), want(5, 19)];
        // Too few rows: the first in order get their floors.
        assert_eq!(share(8, &wants, (&[3, 2, 1, 0], 1), &[1, 2]), [0, 2, 3, 3]);
        // The focus is served before the others' fewest: a focused play area grows while tall sides shrink
        // to their floors.
        let tall_sides = [want(10, 12), want(3, 20), want(3, 20), want(8, 12)];
        assert_eq!(share(22, &tall_sides, (&[1, 0, 2, 3], 1), &[1, 2]), [3, 13, 3, 3]);
        assert_eq!(share(40, &tall_sides, (&[1, 0, 2, 3], 1), &[1, 2]), [10, 20, 3, 7]);
        // Then the first in order gets all it can use, and the others one row each round.
        assert_eq!(share(22, &wants, (&[3, 2, 1, 0], 1), &[1, 2]), [3, 3, 3, 13]);
        assert_eq!(share(30, &wants, (&[3, 2, 1, 0], 1), &[1, 2]), [3, 4, 4, 19]);
        assert_eq!(share(40, &wants, (&[3, 2, 1, 0], 1), &[1, 2]), [4, 8, 9, 19]);
        // Every want met: the rest goes to the spare panels.
        assert_eq!(share(70, &wants, (&[3, 2, 1, 0], 1), &[1, 2]), [4, 24, 23, 19]);
        // Two served: the second gets all it can use once the others have their fewest.
        let tall = [want(4, 4), want(3, 20), want(3, 20), want(5, 19)];
        assert_eq!(share(30, &tall, (&[3, 1, 2, 0], 1), &[1, 2]), [4, 4, 3, 19]);
        assert_eq!(share(32, &tall, (&[3, 1, 2, 0], 2), &[1, 2]), [4, 6, 3, 19]);
    }
}
