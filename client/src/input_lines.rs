//! The lines of a scripted player's or spectator's input, each at most [`MAX_LINE_BYTES`]: a program that writes
//! without line ends (or `/dev/zero` as the input) gets its overlong line refused, not held in memory to its end.

use tokio::io::{AsyncBufRead, AsyncBufReadExt};

/// The longest line taken: far above any command (a chat line, a deck file's path).
pub const MAX_LINE_BYTES: usize = 64 * 1024;
/// How much of a refused line its refusal quotes.
const QUOTED_CHARS: usize = 40;

/// One line of the input.
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    /// A line, without its line end.
    Text(String),
    /// A line longer than [`MAX_LINE_BYTES`] (its start, then `…`), skipped to its end.
    TooLong(String),
    /// A line that is not UTF-8 text (its start, the bytes that are not text replaced).
    NotText(String),
}

/// A line refused: its start, and why, for the player.
#[derive(Debug, PartialEq, Eq)]
pub struct Refused {
    pub start: String,
    pub reason: String,
}

impl Line {
    /// The line's text, or why it was refused.
    pub fn taken(self) -> Result<String, Refused> {
        match self {
            Line::Text(text) => Ok(text),
            Line::TooLong(start) => {
                Err(Refused { start, reason: format!("the line is longer than {} KiB", MAX_LINE_BYTES / 1024) })
            }
            Line::NotText(start) => Err(Refused { start, reason: "the line is not UTF-8 text".into() }),
        }
    }
}

/// Lines read from `input` one at a time. [`next`](Self::next) is cancel-safe: what was read of a line is kept here.
pub struct InputLines<R> {
    input: R,
    line: Vec<u8>,
    /// The line under way passed the limit: the rest of it is skipped.
    skipping: bool,
}

impl<R: AsyncBufRead + Unpin> InputLines<R> {
    pub fn new(input: R) -> Self {
        InputLines { input, line: Vec::new(), skipping: false }
    }

    /// The next line, or `None` at the end of the input (or on an error reading it: the input ends there too).
    pub async fn next(&mut self) -> Option<Line> {
        loop {
            let available = self.input.fill_buf().await.ok()?;
            if available.is_empty() {
                // A last line without its line end is still a line.
                return (self.skipping || !self.line.is_empty()).then(|| self.finish());
            }
            let (taken, ended) = match available.iter().position(|&b| b == b'\n') {
                Some(end) => (end, true),
                None => (available.len(), false),
            };
            let keep = if self.skipping { 0 } else { taken.min(MAX_LINE_BYTES + 1 - self.line.len()) };
            self.line.extend_from_slice(&available[..keep]);
            self.input.consume(taken + usize::from(ended));
            if self.line.len() > MAX_LINE_BYTES {
                self.skipping = true;
            }
            if ended {
                return Some(self.finish());
            }
        }
    }

    fn finish(&mut self) -> Line {
        let mut bytes = std::mem::take(&mut self.line);
        let start = |bytes: &[u8]| String::from_utf8_lossy(bytes).chars().take(QUOTED_CHARS).collect::<String>();
        if std::mem::take(&mut self.skipping) {
            return Line::TooLong(format!("{}…", start(&bytes)));
        }
        if bytes.last() == Some(&b'\r') {
            bytes.pop();
        }
        match String::from_utf8(bytes) {
            Ok(text) => Line::Text(text),
            Err(error) => Line::NotText(start(error.as_bytes())),
        }
    }
}

#[cfg(test)]
mod tests {
    use tokio::io::{AsyncReadExt, BufReader};

    use super::*;

    async fn all(input: &[u8], capacity: usize) -> Vec<Line> {
        let mut lines = InputLines::new(BufReader::with_capacity(capacity, input));
        let mut read = Vec::new();
        while let Some(line) = lines.next().await {
            read.push(line);
        }
        read
    }

    #[tokio::test]
    async fn lines_are_taken_whole_whatever_the_reads() {
        for capacity in [1, 3, 64, 8192] {
            let lines = all(b"draw 1\r\nsay hi\n\nquit", capacity).await;
            let text = |s: &str| Line::Text(s.into());
            assert_eq!(lines, [text("draw 1"), text("say hi"), text(""), text("quit")], "capacity {capacity}");
        }
    }

    #[tokio::test]
    async fn an_overlong_line_is_refused_and_the_next_taken() {
        let mut input = vec![b'x'; MAX_LINE_BYTES + 1];
        input.extend_from_slice(b"\ndraw 1\n");
        input.extend_from_slice(&[b'y'; MAX_LINE_BYTES]);
        input.extend_from_slice(b"\n\xff\xfe\n");
        let lines = all(&input, 8192).await;
        assert_eq!(lines.len(), 4, "{lines:?}");
        let start = format!("{}…", "x".repeat(QUOTED_CHARS));
        assert_eq!(lines[0], Line::TooLong(start.clone()));
        assert_eq!(lines[1], Line::Text("draw 1".into()));
        assert_eq!(lines[2], Line::Text("y".repeat(MAX_LINE_BYTES)), "the limit itself is taken");
        assert_eq!(lines[3], Line::NotText("\u{fffd}\u{fffd}".into()));
        let reasons: Vec<Result<String, Refused>> = lines.into_iter().map(Line::taken).collect();
        assert_eq!(reasons[0], Err(Refused { start, reason: "the line is longer than 64 KiB".into() }));
        assert_eq!(reasons[1], Ok("draw 1".into()));
        assert_eq!(reasons[3].as_ref().unwrap_err().reason, "the line is not UTF-8 text");
    }

    #[tokio::test]
    async fn an_input_without_line_ends_is_read_in_bounded_memory() {
        // Four megabytes of zeros: read through, one refusal at the end, never held whole.
        let zeros = tokio::io::repeat(0).take(4 << 20);
        let mut lines = InputLines::new(BufReader::new(zeros));
        let line = lines.next().await.expect("the line, at the end");
        assert!(matches!(line, Line::TooLong(_)), "{line:?}");
        assert!(lines.line.capacity() <= 2 * MAX_LINE_BYTES + 8192, "{}", lines.line.capacity());
        assert_eq!(lines.next().await, None);
    }
}
