//! The operator's `/stats` page: plain HTML with inline SVG charts drawn here, so it needs no script, no CDN
//! and works behind any proxy.

use std::fmt::Write;

use crate::stats::Summary;
use crate::tally::{LiveCounts, RoomResult};

const CHART_WIDTH: f64 = 760.0;
const CHART_HEIGHT: f64 = 180.0;

/// Colour of each result on the page.
fn result_colour(result: &str) -> &'static str {
    match result {
        "happy" => "#2f9e44",
        "lonely" => "#868e96",
        "pruned" => "#f59f00",
        "crowded" => "#7048e8",
        "scary" => "#e03131",
        _ => "#c2255c",
    }
}

/// Renders the page; without a summary (the database is down), only the live counts, under a banner.
pub(crate) fn render(
    summary: Option<&Summary>,
    live: LiveCounts,
    connections: usize,
    now_ms: i64,
    hours: u32,
) -> String {
    let mut page = String::with_capacity(16 * 1024);
    let _ = write!(
        page,
        r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>fairdeck relay — statistics</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body {{ font-family: system-ui, sans-serif; margin: 24px auto; max-width: 820px; color: #212529; background: #f8f9fa; }}
h1 {{ font-size: 22px; margin: 0 0 4px; }} h2 {{ font-size: 16px; margin: 24px 0 8px; }}
.sub {{ color: #868e96; font-size: 13px; }}
.banner {{ background: #fff3bf; border: 1px solid #f59f00; border-radius: 8px; padding: 10px 14px; margin-top: 16px; }}
.cards {{ display: flex; flex-wrap: wrap; gap: 10px; margin-top: 16px; }}
.card {{ background: #fff; border: 1px solid #dee2e6; border-radius: 8px; padding: 10px 14px; min-width: 110px; }}
.card b {{ display: block; font-size: 22px; }} .card span {{ color: #868e96; font-size: 12px; }}
svg {{ background: #fff; border: 1px solid #dee2e6; border-radius: 8px; }}
svg text {{ font-size: 11px; fill: #495057; }}
</style></head><body>
<h1>fairdeck relay</h1>
<div class="sub">Last {hours} hours · generated {generated} UTC</div>
<div class="cards">
<div class="card"><b>{rooms_open}</b><span>rooms open</span></div>
<div class="card"><b>{waiting}</b><span>waiting for a player</span></div>
<div class="card"><b>{connected}</b><span>seats connected</span></div>
<div class="card"><b>{held}</b><span>seats held</span></div>
<div class="card"><b>{watchers}</b><span>spectators</span></div>
<div class="card"><b>{connections}</b><span>connections</span></div>
</div>
"#,
        generated = format_utc(now_ms),
        rooms_open = live.rooms,
        waiting = live.waiting,
        connected = live.seats_connected,
        held = live.seats_held,
        watchers = live.watchers,
    );
    match summary {
        Some(summary) => stored_sections(&mut page, summary),
        None => page.push_str("<div class=\"banner\">The database is down: live counts only.</div>\n"),
    }
    page.push_str("</body></html>\n");
    page
}

/// The cards and charts of the rooms that ended, from the database.
fn stored_sections(page: &mut String, summary: &Summary) {
    let happy = summary.results.get("happy").copied().unwrap_or(0);
    let happy_share =
        if summary.rooms > 0 { format!("{:.0} %", 100.0 * happy as f64 / summary.rooms as f64) } else { "–".into() };
    let _ = write!(
        page,
        r#"<div class="cards">
<div class="card"><b>{rooms}</b><span>rooms ended</span></div>
<div class="card"><b>{happy_share}</b><span>happy</span></div>
<div class="card"><b>{frames}</b><span>frames relayed</span></div>
<div class="card"><b>{bytes}</b><span>relayed</span></div>
<div class="card"><b>{watched}</b><span>rooms watched (most at once: {most})</span></div>
</div>
"#,
        rooms = summary.rooms,
        frames = summary.frames,
        bytes = format_bytes(summary.bytes),
        watched = summary.watched,
        most = summary.most_watchers,
    );
    page.push_str("<h2>Rooms per hour</h2>\n");
    page.push_str(&hourly_chart(&summary.hourly));
    page.push_str("<h2>Results</h2>\n");
    // In order of severity, not of name.
    let results: Vec<(&str, i64, &str)> = RoomResult::ALL
        .iter()
        .map(|result| {
            let name = result.as_str();
            (name, summary.results.get(name).copied().unwrap_or(0), result_colour(name))
        })
        .collect();
    page.push_str(&horizontal_bars(&results));
    page.push_str("<h2>Room durations</h2>\n");
    page.push_str(&column_chart(&summary.durations, "#1c7ed6"));
    page.push_str("<h2>Waiting time until the second player joined</h2>\n");
    page.push_str(&column_chart(&summary.waiting, "#0ca678"));
}

/// Bars of rooms created per hour, labelled every six hours (UTC).
fn hourly_chart(hourly: &[(i64, i64)]) -> String {
    let max = hourly.iter().map(|(_, n)| *n).max().unwrap_or(0).max(1);
    let (left, bottom, top) = (36.0, 22.0, 12.0);
    let plot_height = CHART_HEIGHT - bottom - top;
    let slot = (CHART_WIDTH - left - 8.0) / hourly.len().max(1) as f64;
    let mut svg = svg_open();
    axis(&mut svg, left, top, plot_height, max);
    for (index, (hour_ms, rooms)) in hourly.iter().enumerate() {
        let x = left + index as f64 * slot;
        let height = plot_height * *rooms as f64 / max as f64;
        let _ = write!(
            svg,
            r##"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="#1c7ed6"><title>{} rooms</title></rect>"##,
            x + 1.0,
            top + plot_height - height,
            (slot - 2.0).max(1.0),
            height,
            rooms
        );
        let hour_of_day = hour_ms.div_euclid(3_600_000).rem_euclid(24);
        if hour_of_day % 6 == 0 {
            let _ = write!(svg, r#"<text x="{:.1}" y="{:.1}">{:02}:00</text>"#, x, CHART_HEIGHT - 6.0, hour_of_day);
        }
    }
    svg.push_str("</svg>\n");
    svg
}

/// Vertical bars for labelled buckets.
fn column_chart(buckets: &[(&str, i64)], colour: &str) -> String {
    let max = buckets.iter().map(|(_, n)| *n).max().unwrap_or(0).max(1);
    let (left, bottom, top) = (36.0, 22.0, 12.0);
    let plot_height = CHART_HEIGHT - bottom - top;
    let slot = (CHART_WIDTH - left - 8.0) / buckets.len().max(1) as f64;
    let mut svg = svg_open();
    axis(&mut svg, left, top, plot_height, max);
    for (index, (label, rooms)) in buckets.iter().enumerate() {
        let x = left + index as f64 * slot;
        let height = plot_height * *rooms as f64 / max as f64;
        let _ = write!(
            svg,
            r#"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{colour}"></rect>"#,
            x + 8.0,
            top + plot_height - height,
            slot - 16.0,
            height
        );
        if *rooms > 0 {
            let _ = write!(
                svg,
                r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{rooms}</text>"#,
                x + slot / 2.0,
                top + plot_height - height - 3.0
            );
        }
        let _ = write!(
            svg,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{label}</text>"#,
            x + slot / 2.0,
            CHART_HEIGHT - 6.0
        );
    }
    svg.push_str("</svg>\n");
    svg
}

/// One labelled horizontal bar per entry.
fn horizontal_bars(entries: &[(&str, i64, &str)]) -> String {
    let max = entries.iter().map(|(_, n, _)| *n).max().unwrap_or(0).max(1);
    let row = 24.0;
    let height = row * entries.len() as f64 + 12.0;
    let mut svg = format!(
        r#"<svg width="{CHART_WIDTH}" height="{height}" viewBox="0 0 {CHART_WIDTH} {height}" xmlns="http://www.w3.org/2000/svg">"#
    );
    for (index, (name, count, colour)) in entries.iter().enumerate() {
        let y = 8.0 + index as f64 * row;
        let width = (CHART_WIDTH - 160.0) * *count as f64 / max as f64;
        let _ = write!(
            svg,
            r#"<text x="10" y="{:.1}">{name}</text><rect x="80" y="{:.1}" width="{:.1}" height="16" fill="{colour}"></rect><text x="{:.1}" y="{:.1}">{count}</text>"#,
            y + 12.0,
            y,
            width,
            86.0 + width,
            y + 12.0
        );
    }
    svg.push_str("</svg>\n");
    svg
}

fn svg_open() -> String {
    format!(
        r#"<svg width="{CHART_WIDTH}" height="{CHART_HEIGHT}" viewBox="0 0 {CHART_WIDTH} {CHART_HEIGHT}" xmlns="http://www.w3.org/2000/svg">"#
    )
}

/// A baseline and the maximum on the y axis.
fn axis(svg: &mut String, left: f64, top: f64, plot_height: f64, max: i64) {
    let _ = write!(
        svg,
        r##"<line x1="{left}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#adb5bd"/><text x="4" y="{:.1}">{max}</text><text x="4" y="{:.1}">0</text>"##,
        top + plot_height,
        CHART_WIDTH - 8.0,
        top + plot_height,
        top + 8.0,
        top + plot_height
    );
}

fn format_bytes(bytes: i64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 { format!("{bytes} B") } else { format!("{value:.1} {}", UNITS[unit]) }
}

/// `YYYY-MM-DD HH:MM` for unix milliseconds (UTC), without a date library.
pub(crate) fn format_utc(unix_ms: i64) -> String {
    let seconds = unix_ms.div_euclid(1000);
    let (days, of_day) = (seconds.div_euclid(86_400), seconds.rem_euclid(86_400));
    // Civil date from days since 1970-01-01 (H. Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02} {:02}:{:02}", of_day / 3600, of_day % 3600 / 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_dates_are_right() {
        assert_eq!(format_utc(0), "1970-01-01 00:00");
        assert_eq!(format_utc(951_782_400_000), "2000-02-29 00:00");
        assert_eq!(format_utc(1_795_000_000_000), "2026-11-18 11:06");
    }

    #[test]
    fn byte_counts_are_readable() {
        assert_eq!(format_bytes(512), "512 B");
        assert_eq!(format_bytes(1536), "1.5 KiB");
        assert_eq!(format_bytes(3 * 1024 * 1024), "3.0 MiB");
    }
}
