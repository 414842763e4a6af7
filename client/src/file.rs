//! Files the player names (decks, pools, saves, journals, the configuration, a CA), read whole within a limit: a
//! wrong path (a film, `/dev/zero`) is refused once the limit is passed, not read into memory to its end.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// A deck file: at most 1,000 cards on lines of at most 1,000 bytes, with room for comments and XML's words.
pub const DECK_BYTES: u64 = 4 << 20;
/// A save or a journal: a long match of 1,000-card decks is tens of megabytes.
pub const GAME_BYTES: u64 = 256 << 20;
/// The configuration file or a CA's certificates.
pub const SETTINGS_BYTES: u64 = 1 << 20;

/// The bytes of the file at `path`, which must be at most `limit` bytes long; else an error of kind
/// `FileTooLarge` saying so. Only `limit + 1` bytes are ever read.
pub fn read_at_most(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    File::open(path)?.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        let message = format!("the file is larger than {}, the most fairdeck reads of such a file", size(limit));
        return Err(io::Error::new(io::ErrorKind::FileTooLarge, message));
    }
    Ok(bytes)
}

/// The text of the file at `path` (UTF-8), at most `limit` bytes long ([`read_at_most`]).
pub fn read_text_at_most(path: &Path, limit: u64) -> io::Result<String> {
    String::from_utf8(read_at_most(path, limit)?)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "the file is not UTF-8 text"))
}

/// `limit` in the largest binary unit that divides it.
fn size(limit: u64) -> String {
    if limit.is_multiple_of(1 << 20) {
        format!("{} MiB", limit >> 20)
    } else if limit.is_multiple_of(1 << 10) {
        format!("{} KiB", limit >> 10)
    } else {
        format!("{limit} bytes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_over_its_limit_is_refused_after_reading_one_byte_more() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("deck.txt");
        std::fs::write(&path, b"4 Lava Spike\n").unwrap();
        assert_eq!(read_at_most(&path, 13).unwrap(), b"4 Lava Spike\n");
        let error = read_at_most(&path, 12).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::FileTooLarge);
        assert_eq!(error.to_string(), "the file is larger than 12 bytes, the most fairdeck reads of such a file");
        // A file without an end is refused as soon as the limit is passed.
        let error = read_at_most(Path::new("/dev/zero"), DECK_BYTES).unwrap_err();
        assert_eq!(error.to_string(), "the file is larger than 4 MiB, the most fairdeck reads of such a file");
        assert_eq!(read_text_at_most(&path, 13).unwrap(), "4 Lava Spike\n");
        std::fs::write(&path, b"\xff").unwrap();
        assert_eq!(read_text_at_most(&path, 13).unwrap_err().to_string(), "the file is not UTF-8 text");
        assert_eq!(size(2 << 10), "2 KiB");
    }
}
