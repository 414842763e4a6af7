//! What covers the table: the `?` help (every command of the table with its keys, the other keys, in columns
//! and pages that fit the terminal), a card's text, and the questions before quitting and before a single key
//! acts.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Style, Stylize};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};

use super::keys::OTHER_KEYS;
use super::panels::centered;
use crate::command::{COMMANDS, Key, Spec};
use crate::text::wrap;

/// The widest a column of the help is.
const COLUMN_WIDTH: u16 = 76;
/// The narrowest a column gets when the help is shown in several side by side.
const MIN_COLUMN_WIDTH: u16 = 50;
/// The most columns side by side.
const MAX_COLUMNS: u16 = 3;
/// The width of the usage column (a longer usage pushes its description along): narrow enough that the whole
/// help fits one page of a 200×60 terminal.
const USAGE_WIDTH: usize = 22;
/// Where a command's description starts: after the key column (4) and the usage column with its space.
const ABOUT_COLUMN: usize = 4 + 1 + USAGE_WIDTH + 1;
/// The fewest columns a help entry's text gets beside its head: narrower, the head takes a row of its own.
const HELP_MIN_TEXT: usize = 20;

/// A page of the help: its columns of lines.
type Page = Vec<Vec<Line<'static>>>;

/// The help's page `page` (counted on: it wraps around). One column when it holds everything, else two
/// side by side on a wide terminal, and pages when that is not enough either (80×24 takes two).
pub fn render_help(frame: &mut Frame, area: Rect, page: usize) {
    let (width, columns, pages) = layout(area);
    let count = pages.len().max(1);
    let index = page % count;
    let shown = pages.into_iter().nth(index).unwrap_or_default();
    let title = if count > 1 {
        format!(" Keys and commands {}/{count} (Space: next page; any other key closes) ", index + 1)
    } else {
        " Keys and commands (any key closes) ".to_string()
    };
    let tallest = shown.iter().map(Vec::len).max().unwrap_or(0);
    let popup = centered(area, width, u16::try_from(tallest).unwrap_or(u16::MAX).saturating_add(2));
    let block = Block::bordered().title(title).border_style(Style::new().fg(Color::Yellow));
    frame.render_widget(Clear, popup);
    let inner = block.inner(popup);
    frame.render_widget(block, popup);
    let areas = Layout::horizontal(vec![Constraint::Ratio(1, columns); columns as usize]).split(inner);
    for (lines, column) in shown.into_iter().zip(areas.iter()) {
        frame.render_widget(Paragraph::new(lines), *column);
    }
}

/// The help laid out for `area`: the popup's width, its number of columns, its pages. More columns side by side
/// as the terminal's width allows, the fewest that hold it all on one page.
fn layout(area: Rect) -> (u16, u32, Vec<Page>) {
    let rows = usize::from(area.height.saturating_sub(2).max(1));
    let one = COLUMN_WIDTH.min(area.width);
    let mut best = (one, 1, paginate(help_blocks(usize::from(one.saturating_sub(2))), rows, 1));
    for columns in 2..=MAX_COLUMNS {
        if best.2.len() <= 1 || area.width < columns * MIN_COLUMN_WIDTH + columns + 1 {
            break;
        }
        let width = area.width.min(columns * COLUMN_WIDTH);
        // One column of each part is left blank, to separate the parts.
        let column = (width.saturating_sub(2) / columns).saturating_sub(1);
        best = (width, u32::from(columns), paginate(help_blocks(usize::from(column)), rows, usize::from(columns)));
    }
    best
}

/// Pages of `columns` columns of at most `rows` rows, each block kept whole when it can be; a column starts
/// with no blank row.
fn paginate(blocks: Vec<Vec<Line<'static>>>, rows: usize, columns: usize) -> Vec<Page> {
    let mut pages = Vec::new();
    let mut page = Vec::new();
    let mut column: Vec<Line<'static>> = Vec::new();
    for block in blocks {
        let blank = block.iter().all(|line| line.width() == 0);
        if !column.is_empty() && rows < column.len() + block.len() {
            page.push(std::mem::take(&mut column));
            if page.len() == columns {
                pages.push(std::mem::take(&mut page));
            }
        }
        if !(blank && column.is_empty()) {
            column.extend(block);
        }
    }
    if !column.is_empty() {
        page.push(column);
    }
    if !page.is_empty() {
        pages.push(page);
    }
    pages
}

/// The help as blocks that stay together, `width` columns wide: every command (with its keys), then the
/// keys that are not commands, then what CARD and ZONE are.
fn help_blocks(width: usize) -> Vec<Vec<Line<'static>>> {
    let mut blocks = Vec::new();
    for spec in COMMANDS {
        blocks.push(command_help(spec, width));
        for key in spec.keys {
            if let Key::RunsLine { key, line, about } = *key {
                blocks.push(help_entry(head(&key.to_string(), line), about, ABOUT_COLUMN, width));
            }
        }
    }
    blocks.push(vec![Line::from("")]);
    for (keys, what) in OTHER_KEYS {
        let head = Line::from(Span::from(format!(" {keys:<12}")).fg(Color::Yellow).bold());
        blocks.push(help_entry(head, what, 14, width));
    }
    blocks.push(vec![Line::from("")]);
    for (word, what) in [("CARD", "is a card's id: #12 or 12"), ("ZONE", "library hand graveyard exile play sideboard")]
    {
        blocks.push(help_entry(Line::from(format!(" {word}")).fg(Color::Cyan), what, 6, width));
    }
    blocks
}

/// A command's row: the keys that run it as it is or type its name, its usage, what it does.
fn command_help(spec: &Spec, width: usize) -> Vec<Line<'static>> {
    let keys: Vec<String> = spec
        .keys
        .iter()
        .filter_map(|key| match *key {
            Key::Runs(key) | Key::Prefills(key) => Some(key.to_string()),
            Key::RunsLine { .. } => None,
        })
        .collect();
    help_entry(head(&keys.join(" "), &spec.usage()), spec.about, ABOUT_COLUMN, width)
}

/// ` k  usage`: the key (or keys) in yellow, the command in cyan.
fn head(keys: &str, usage: &str) -> Line<'static> {
    Line::from(vec![
        Span::from(format!(" {keys:<3}")).fg(Color::Yellow).bold(),
        Span::from(format!(" {usage:<USAGE_WIDTH$}")).fg(Color::Cyan),
    ])
}

/// A help entry `width` columns wide: `head`, then `text` wrapped with its further rows indented by
/// `hanging`. When the text would get fewer than [`HELP_MIN_TEXT`] columns beside the head, the head takes a
/// row of its own and the text follows, indented a little.
fn help_entry(head: Line<'static>, text: &str, hanging: usize, width: usize) -> Vec<Line<'static>> {
    let room = width.saturating_sub(head.width() + 1);
    let mut first = head;
    let mut rest = text.to_string();
    let mut indent = hanging.min(4);
    if HELP_MIN_TEXT <= room {
        let row = wrap(text, room).swap_remove(0);
        rest = text.chars().skip(row.chars().count()).collect::<String>().trim_start().to_string();
        first.push_span(format!(" {row}"));
        indent = hanging;
    }
    let mut lines = vec![first];
    if !rest.is_empty() {
        let room = width.saturating_sub(indent).max(1);
        lines.extend(wrap(&rest, room).into_iter().map(|row| Line::from(format!("{}{row}", " ".repeat(indent)))));
    }
    lines
}

pub fn render_confirm_quit(frame: &mut Frame, area: Rect) {
    let popup = centered(area, 44, 3);
    frame.render_widget(Clear, popup);
    let block = Block::bordered().border_style(Style::new().fg(Color::Yellow));
    frame.render_widget(Paragraph::new(" Leave the game? y: leave · n: stay").block(block), popup);
}

/// "Run `draw 1`? y: yes · any other key: no", before a single key changes the game.
pub fn render_confirm(frame: &mut Frame, area: Rect, line: &str) {
    let text = format!(" Run `{line}`? y: yes · any other key: no");
    let width = u16::try_from(text.chars().count() + 3).unwrap_or(u16::MAX);
    let popup = centered(area, width, 3);
    frame.render_widget(Clear, popup);
    let block = Block::bordered().border_style(Style::new().fg(Color::Yellow));
    frame.render_widget(Paragraph::new(text).block(block), popup);
}

/// The widest a card's text shows.
const CARD_WIDTH: u16 = 60;

/// A card's text (`card NAME`), its first line the title, wrapped to fit; any key closes it.
pub fn render_card(frame: &mut Frame, area: Rect, text: &[String]) {
    let width = CARD_WIDTH.min(area.width);
    let inner = usize::from(width.saturating_sub(2)).max(1);
    let (title, body) = text.split_first().map_or(("", text), |(title, body)| (title.as_str(), body));
    let rows: Vec<Line> = body.iter().flat_map(|line| wrap(line, inner)).map(Line::from).collect();
    let height = u16::try_from(rows.len()).unwrap_or(u16::MAX).saturating_add(2);
    let popup = centered(area, width, height);
    frame.render_widget(Clear, popup);
    let block = Block::bordered()
        .title(format!(" {title} "))
        .title_bottom(Line::from(" any key closes ").right_aligned())
        .border_style(Style::new().fg(Color::Yellow));
    frame.render_widget(Paragraph::new(rows).block(block), popup);
}
