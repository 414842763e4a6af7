//! The database file, `cards.db`: written whole to a temporary file beside it and renamed over it, so a
//! crash or a bad import never leaves half a database; read back one card at a time.
//!
//! Layout: the magic line `fairdeck-cards\n`; the [`Header`] (postcard), preceded by its length (u32, little
//! endian); the index (`index.rs`: every name a card is found by, its full name and each face's name for a card
//! of several faces, sorted by lowercase form, then where each card starts), preceded by its length; and the
//! cards (postcard), one after the other. A lookup reads the header and index (about a megabyte for all of
//! MTGJSON), binary-searches the names in place and decodes one card.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use super::atomic::Meta;
use super::index::Index;
use super::{Card, CardsError, MAX_CARDS, MAX_FACES};

const MAGIC: &[u8] = b"fairdeck-cards\n";
/// The layout's version, in the header; another is refused, and importing again rewrites the file.
pub const FORMAT: u32 = 1;
/// The longest header or index read (the index of 100,000 cards is a few megabytes).
const MAX_PART_BYTES: u32 = 64 << 20;
/// The last second a header may name (9999-12-31), so a damaged one cannot overflow a date.
const MAX_UNIX_SECONDS: u64 = 253_402_300_799;

/// What the database is: its MTGJSON build, where it was imported from, and when.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    pub format: u32,
    /// MTGJSON's `meta.date`: the day its data was built.
    pub date: String,
    /// MTGJSON's `meta.version`.
    pub version: String,
    /// The file it was imported from, as an absolute path.
    pub source: String,
    /// When it was imported (Unix seconds).
    pub imported: u64,
    /// How many cards it holds.
    pub cards: u32,
}

/// An import done: the header written, and where.
#[derive(Debug, Clone)]
pub struct Imported {
    pub header: Header,
    pub path: PathBuf,
    pub file_bytes: u64,
}

/// The database, opened: its header and index read, its cards read when asked for.
pub struct Database {
    path: PathBuf,
    file: File,
    header: Header,
    index: Vec<u8>,
    cards_at: u64,
    file_bytes: u64,
}

/// Writes `cards` as the database at `path`, replacing any database there only once the new one is whole.
pub(super) fn write(path: &Path, meta: Meta, source: String, cards: &[Card]) -> Result<Imported, CardsError> {
    let fail = |reason: String| CardsError::Write { path: path.display().to_string(), reason };
    let imported = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let count = u32::try_from(cards.len()).map_err(|_| fail("too many cards".into()))?;
    let header = Header { format: FORMAT, date: meta.date, version: meta.version, source, imported, cards: count };
    let bytes = encode(&header, cards).map_err(fail)?;
    let dir = path.parent().ok_or_else(|| fail("it has no folder".into()))?;
    std::fs::create_dir_all(dir).map_err(|e| fail(e.to_string()))?;
    let mut temporary = tempfile::NamedTempFile::new_in(dir).map_err(|e| fail(e.to_string()))?;
    temporary.write_all(&bytes).map_err(|e| fail(e.to_string()))?;
    temporary.as_file().sync_all().map_err(|e| fail(e.to_string()))?;
    temporary.persist(path).map_err(|e| fail(e.error.to_string()))?;
    Ok(Imported { header, path: path.to_path_buf(), file_bytes: bytes.len() as u64 })
}

/// The whole file's bytes.
fn encode(header: &Header, cards: &[Card]) -> Result<Vec<u8>, String> {
    // (lowercase name, whether a face's, name, card number)
    let mut names: Vec<(String, bool, &str, u32)> = Vec::new();
    let mut blob = Vec::new();
    let mut starts = Vec::with_capacity(cards.len() + 1);
    for (number, card) in (0u32..).zip(cards) {
        starts.push(u32::try_from(blob.len()).map_err(|_| "the cards take more than 4 GiB")?);
        blob.extend(postcard::to_stdvec(card).map_err(|e| e.to_string())?);
        names.push((card.name.to_lowercase(), false, &card.name, number));
        if card.faces.len() > 1 {
            names.extend(card.faces.iter().map(|face| (face.name.to_lowercase(), true, face.name.as_str(), number)));
        }
    }
    starts.push(u32::try_from(blob.len()).map_err(|_| "the cards take more than 4 GiB")?);
    // A card's full name wins over another card's face of the same name: full names come first.
    names.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
    names.dedup_by(|later, first| later.0 == first.0);
    let names: Vec<(&str, u32)> = names.iter().map(|&(_, _, name, number)| (name, number)).collect();
    let mut bytes = MAGIC.to_vec();
    for part in [postcard::to_stdvec(header).map_err(|e| e.to_string())?, super::index::encode(&names, &starts)?] {
        bytes.extend(u32::try_from(part.len()).map_err(|_| "the index is too large")?.to_le_bytes());
        bytes.extend(part);
    }
    bytes.extend(blob);
    Ok(bytes)
}

impl Database {
    /// Opens the database at `path`: [`CardsError::NoDatabase`] when there is none.
    pub fn open(path: &Path) -> Result<Self, CardsError> {
        let mut file = match File::open(path) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(CardsError::NoDatabase(path.display().to_string()));
            }
            Err(e) => return Err(CardsError::Read { path: path.display().to_string(), reason: e.to_string() }),
        };
        let damaged = |reason: String| CardsError::Damaged { path: path.display().to_string(), reason };
        let file_bytes = file.metadata().map_err(|e| damaged(e.to_string()))?.len();
        let mut magic = [0u8; MAGIC.len()];
        file.read_exact(&mut magic).map_err(|e| damaged(e.to_string()))?;
        if magic != MAGIC {
            return Err(damaged("it is not a fairdeck card database".into()));
        }
        let header_bytes = read_part(&mut file, file_bytes).map_err(damaged)?;
        let header: Header = postcard::from_bytes(&header_bytes).map_err(|e| damaged(format!("its header: {e}")))?;
        if header.format != FORMAT {
            return Err(damaged(format!("it is format {}; this fairdeck reads format {FORMAT}", header.format)));
        }
        if header.imported > MAX_UNIX_SECONDS || header.cards as usize > MAX_CARDS {
            return Err(damaged("its header is out of range".into()));
        }
        let index = read_part(&mut file, file_bytes).map_err(damaged)?;
        let cards_at = file.stream_position().map_err(|e| damaged(e.to_string()))?;
        Index::parse(&index, header.cards).map_err(damaged)?;
        Ok(Self { path: path.to_path_buf(), file, header, index, cards_at, file_bytes })
    }

    /// What the database is.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The file's size on disk, in bytes.
    pub fn file_bytes(&self) -> u64 {
        self.file_bytes
    }

    /// The card named `name`, by its full name or a face's name, in any case; else the nearest names.
    pub fn find(&mut self, name: &str) -> Result<Card, CardsError> {
        let key = name.trim().to_lowercase();
        let damaged = |reason: String| CardsError::Damaged { path: self.path.display().to_string(), reason };
        let index = Index::parse(&self.index, self.header.cards).map_err(damaged)?;
        let Some(number) = index.find(&key).map_err(damaged)? else {
            let suggestions = super::nearest(&key, index.names().map_err(damaged)?.into_iter());
            return Err(CardsError::Unknown { name: name.trim().to_string(), suggestions });
        };
        let (start, end) = index.card_range(number).map_err(damaged)?;
        self.card(start, end)
    }

    fn card(&mut self, start: u32, end: u32) -> Result<Card, CardsError> {
        let damaged = |reason: String| CardsError::Damaged { path: self.path.display().to_string(), reason };
        if self.cards_at + u64::from(end) > self.file_bytes {
            return Err(damaged("a card lies past its end".into()));
        }
        let mut bytes = vec![0u8; (end - start) as usize];
        self.file.seek(SeekFrom::Start(self.cards_at + u64::from(start))).map_err(|e| damaged(e.to_string()))?;
        self.file.read_exact(&mut bytes).map_err(|e| damaged(e.to_string()))?;
        let card: Card = postcard::from_bytes(&bytes).map_err(|e| damaged(format!("a card: {e}")))?;
        if card.faces.is_empty() || card.faces.len() > MAX_FACES {
            return Err(damaged(format!("the card {:?} has {} faces", card.name, card.faces.len())));
        }
        Ok(card)
    }
}

/// One length-prefixed part, its length checked against the file before anything is allocated.
fn read_part(file: &mut File, file_bytes: u64) -> Result<Vec<u8>, String> {
    let mut length = [0u8; 4];
    file.read_exact(&mut length).map_err(|e| format!("it ends early: {e}"))?;
    let length = u32::from_le_bytes(length);
    if length > MAX_PART_BYTES || u64::from(length) > file_bytes {
        return Err(format!("a part of {length} bytes in a file of {file_bytes}"));
    }
    let mut part = vec![0u8; length as usize];
    file.read_exact(&mut part).map_err(|e| format!("it ends early: {e}"))?;
    Ok(part)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn imported(dir: &Path) -> PathBuf {
        let json = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/AtomicCards.json")).unwrap();
        let (meta, cards) = super::super::atomic::parse(&json).unwrap();
        let path = dir.join("cards").join("cards.db");
        write(&path, meta, "/fixtures/AtomicCards.json".into(), &cards).unwrap();
        path
    }

    #[test]
    fn cards_are_found_by_full_name_or_either_face_in_any_case() {
        let dir = tempfile::tempdir().unwrap();
        let mut db = Database::open(&imported(dir.path())).unwrap();
        assert_eq!(db.header().cards, 37);
        assert_eq!(
            (db.header().date.as_str(), db.header().source.as_str()),
            ("2026-11-20", "/fixtures/AtomicCards.json")
        );
        for name in ["Delver of Secrets // Insectile Aberration", "delver of secrets", "INSECTILE ABERRATION  "] {
            assert_eq!(db.find(name).unwrap().name(), "Delver of Secrets // Insectile Aberration", "{name}");
        }
        assert_eq!(db.find("petty theft").unwrap().name(), "Brazen Borrower // Petty Theft");
        assert_eq!(db.find("goblin guide").unwrap().faces()[0].power.as_deref(), Some("2"));
        assert_eq!(db.find("Krenko, Mob Boss").unwrap().faces().len(), 1);
    }

    #[test]
    fn an_unknown_name_comes_with_the_nearest_real_ones() {
        let dir = tempfile::tempdir().unwrap();
        let mut db = Database::open(&imported(dir.path())).unwrap();
        match db.find("Goblin Gide") {
            Err(CardsError::Unknown { name, suggestions }) => {
                assert_eq!(name, "Goblin Gide");
                assert_eq!(suggestions, ["Goblin Guide"]);
            }
            other => panic!("{other:?}"),
        }
        let error = db.find("Lightning Blot").unwrap_err().to_string();
        assert_eq!(error, "no card named \"Lightning Blot\" in the card database; did you mean Lightning Bolt?");
    }

    #[test]
    fn a_missing_or_damaged_database_is_told_apart() {
        let dir = tempfile::tempdir().unwrap();
        let missing = Database::open(&dir.path().join("cards.db")).err().unwrap();
        assert!(matches!(missing, CardsError::NoDatabase(_)), "{missing}");
        let path = imported(dir.path());
        let whole = std::fs::read(&path).unwrap();
        for cut in [3, MAGIC.len() + 2, whole.len() / 2] {
            std::fs::write(&path, &whole[..cut]).unwrap();
            let error = Database::open(&path).and_then(|mut db| db.find("Wear // Tear")).unwrap_err();
            assert!(matches!(error, CardsError::Damaged { .. }), "{cut}: {error}");
        }
        let mut other_format = whole.clone();
        other_format[MAGIC.len() + 4] = 9;
        std::fs::write(&path, &other_format).unwrap();
        let error = Database::open(&path).err().unwrap().to_string();
        assert!(error.contains("it is format 9; this fairdeck reads format 1"), "{error}");
    }
}
