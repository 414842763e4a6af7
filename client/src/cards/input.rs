//! Opening the file a player imports: MTGJSON publishes AtomicCards as `.json`, `.json.gz`, `.json.bz2`,
//! `.json.xz` and `.json.zip`. The compression is told by the file's first bytes, not its name, and every
//! size is bounded where the bytes enter: the file on disk, and the JSON once decompressed (a small file can
//! expand without end).

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

use super::CardsError;

/// The largest file read from disk. MTGJSON's AtomicCards is about 130 MB as JSON and 20 MB compressed.
pub const MAX_INPUT_BYTES: u64 = 512 << 20;
/// The largest JSON read once decompressed.
pub const MAX_JSON_BYTES: u64 = 512 << 20;
/// The most memory the xz decoder may take for its dictionary, in KiB (xz -9 uses 64 MiB).
const XZ_MEMORY_KIB: u32 = 256 << 10;

/// How a file is compressed, as its first bytes say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Compression {
    Plain,
    Gzip,
    Bzip2,
    Xz,
    Zip,
    Zstd,
}

impl Compression {
    fn of(start: &[u8]) -> Self {
        if start.starts_with(&[0x1f, 0x8b]) {
            Self::Gzip
        } else if start.starts_with(b"BZh") {
            Self::Bzip2
        } else if start.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0]) {
            Self::Xz
        } else if start.starts_with(b"PK\x03\x04") {
            Self::Zip
        } else if start.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
            Self::Zstd
        } else {
            Self::Plain
        }
    }

    fn name(self) -> &'static str {
        match self {
            Self::Plain => "plain",
            Self::Gzip => "gzip",
            Self::Bzip2 => "bzip2",
            Self::Xz => "xz",
            Self::Zip => "zip",
            Self::Zstd => "zstd",
        }
    }
}

/// The JSON of `path`, decompressed, at most [`MAX_JSON_BYTES`] long.
pub(super) fn read(path: &Path) -> Result<Vec<u8>, CardsError> {
    let fail = |reason: String| CardsError::Read { path: path.display().to_string(), reason };
    let file = File::open(path).map_err(|e| fail(e.to_string()))?;
    let size = file.metadata().map_err(|e| fail(e.to_string()))?.len();
    if size > MAX_INPUT_BYTES {
        return Err(fail(format!("the file is {size} bytes long: at most {MAX_INPUT_BYTES}")));
    }
    let mut file = BufReader::new(file.take(MAX_INPUT_BYTES));
    let mut start = [0u8; 6];
    let n_start = read_start(&mut file, &mut start).map_err(|e| fail(e.to_string()))?;
    let whole = std::io::Cursor::new(start[..n_start].to_vec()).chain(file);
    let compression = Compression::of(&start[..n_start]);
    let reader: Box<dyn Read> = match compression {
        Compression::Plain => Box::new(whole),
        Compression::Gzip => Box::new(flate2::read::MultiGzDecoder::new(whole)),
        Compression::Bzip2 => Box::new(bzip2::read::MultiBzDecoder::new(whole)),
        Compression::Xz => Box::new(lzma_rust2::XzReader::new_mem_limit(whole, true, XZ_MEMORY_KIB)),
        Compression::Zip | Compression::Zstd => {
            let name = compression.name();
            return Err(fail(format!(
                "the file is {name}-compressed: unpack it, or import the .json, .gz, .bz2 or .xz file"
            )));
        }
    };
    read_bounded(reader, compression, MAX_JSON_BYTES).map_err(fail)
}

/// Fills `start` as far as the file goes: a file shorter than a magic number is still read (and refused as JSON).
fn read_start(file: &mut impl Read, start: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < start.len() {
        match file.read(&mut start[filled..])? {
            0 => break,
            n => filled += n,
        }
    }
    Ok(filled)
}

/// Reads `reader` to its end, refusing more than `limit` bytes.
fn read_bounded(reader: impl Read, compression: Compression, limit: u64) -> Result<Vec<u8>, String> {
    let mut json = Vec::new();
    reader.take(limit + 1).read_to_end(&mut json).map_err(|e| match compression {
        Compression::Plain => e.to_string(),
        _ => format!("cannot decompress it ({}): {e}", compression.name()),
    })?;
    if json.len() as u64 > limit {
        return Err(format!("its JSON is longer than {limit} bytes"));
    }
    Ok(json)
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    const JSON: &[u8] = br#"{"meta":{"date":"2026-11-20","version":"5"},"data":{}}"#;

    fn written(bytes: &[u8]) -> tempfile::NamedTempFile {
        let mut file = tempfile::NamedTempFile::new().unwrap();
        file.write_all(bytes).unwrap();
        file
    }

    #[test]
    fn every_published_compression_reads_back_the_json() {
        let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gzip.write_all(JSON).unwrap();
        let mut bzip = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::default());
        bzip.write_all(JSON).unwrap();
        let mut xz = lzma_rust2::XzWriter::new(Vec::new(), lzma_rust2::XzOptions::with_preset(6)).unwrap();
        xz.write_all(JSON).unwrap();
        for bytes in [JSON.to_vec(), gzip.finish().unwrap(), bzip.finish().unwrap(), xz.finish().unwrap()] {
            assert_eq!(read(written(&bytes).path()).unwrap(), JSON);
        }
    }

    #[test]
    fn broken_and_unsupported_files_are_refused_with_the_reason() {
        let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gzip.write_all(JSON).unwrap();
        let mut cut = gzip.finish().unwrap();
        cut.truncate(cut.len() / 2);
        let cases: [(&[u8], &str); 3] = [
            (&cut, "cannot decompress it (gzip)"),
            (b"PK\x03\x04rest", "the file is zip-compressed: unpack it"),
            (&[0x28, 0xb5, 0x2f, 0xfd], "zstd"),
        ];
        for (bytes, needle) in cases {
            let error = read(written(bytes).path()).unwrap_err().to_string();
            assert!(error.contains(needle), "{error}");
        }
        let missing = read(Path::new("/nonexistent/AtomicCards.json")).unwrap_err().to_string();
        assert!(missing.starts_with("cannot read /nonexistent/AtomicCards.json: "), "{missing}");
    }

    #[test]
    fn a_file_that_expands_past_the_limit_is_refused() {
        let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        gzip.write_all(&vec![b' '; 1 << 20]).unwrap();
        let small = gzip.finish().unwrap();
        assert!(small.len() < 5_000, "{}", small.len());
        let expanded = |limit| read_bounded(flate2::read::GzDecoder::new(small.as_slice()), Compression::Gzip, limit);
        assert_eq!(expanded(1 << 20).unwrap().len(), 1 << 20);
        assert_eq!(expanded((1 << 20) - 1).unwrap_err(), "its JSON is longer than 1048575 bytes");
    }

    #[test]
    fn a_short_file_is_read_as_it_is() {
        assert_eq!(read(written(b"{}").path()).unwrap(), b"{}");
        assert_eq!(read(written(b"").path()).unwrap(), b"");
    }
}
