//! A save being written: the file created or opened, one line per change, room made ahead.

use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use fairdeck_shared::journal::Journal;

use super::format::{Cursor, Header, HexBytes, Record, line};
use super::load::{Saved, load};
use super::lock::{create_private_dir, lock, pid_file};
use super::{EXTENSION, SAVE_FORMAT, SaveError, Standing};
use crate::channel::{Channel, Progress};

/// A save being written: one line, synced, per change. It holds the save's lock until it is dropped.
pub struct SaveFile {
    path: PathBuf,
    /// Opened for writing, at the end of the lines, and locked.
    file: File,
    cursor: Cursor,
    /// The file's length: past `cursor.end`, zeros.
    len: u64,
    /// Making room failed once (a full disk, say): lines are appended from then on, and the next line's write
    /// tells what is wrong, if anything still is.
    room_refused: bool,
}

/// The room [`SaveFile::make_room`] keeps ahead: made when less than `ROOM_LOW` is left, up to `ROOM_MADE` (a draw
/// writes about 1.5 kB; a 60-card deck's shuffle with its proof, about 20 kB).
pub(super) const ROOM_LOW: u64 = 256 << 10;
pub(super) const ROOM_MADE: u64 = 1 << 20;

impl Drop for SaveFile {
    // The room made ahead goes: a closed save ends with its last line. Then the pid file goes, before the lock
    // goes with the file: a process that takes the lock next writes its own pid file.
    fn drop(&mut self) {
        if self.len > self.cursor.end {
            let _ = self.file.set_len(self.cursor.end);
        }
        let _ = std::fs::remove_file(pid_file(&self.path));
    }
}

impl fmt::Debug for SaveFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SaveFile").field("path", &self.path).finish_non_exhaustive()
    }
}

fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

impl SaveFile {
    /// Starts the save of a game whose channel was just established, in `dir` (created, owner-only). The file's
    /// name is the start time and the seat, so `ls` sorts games by age.
    pub fn create(dir: &Path, journal: &Journal, channel: &Channel, standing: Standing) -> Result<SaveFile, SaveError> {
        let keys = channel.saved_keys().expect("a game is saved once its channel is established");
        create_private_dir(dir)
            .map_err(|e| SaveError::Write { path: dir.display().to_string(), reason: e.to_string() })?;
        let started = now();
        let stamp = humantime::format_rfc3339_seconds(UNIX_EPOCH + std::time::Duration::from_secs(started))
            .to_string()
            .replace(':', "-");
        let seat = journal.seat.name();
        let mut header_journal = journal.clone();
        header_journal.inputs = Vec::new();
        let header = Header { fairdeck_save: SAVE_FORMAT, started, journal: header_journal, keys };
        let json = serde_json::to_vec(&header).expect("a save header serializes");
        let (chain, first) = line(&[0; 32], &json);
        // A second game started in the same second gets the next free name.
        let mut n = 0;
        let (path, mut file) = loop {
            let suffix = if n == 0 { String::new() } else { format!("-{n}") };
            let path = dir.join(format!("{stamp}-{seat}{suffix}.{EXTENSION}"));
            let mut options = OpenOptions::new();
            options.write(true).create_new(true);
            #[cfg(unix)]
            std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
            match options.open(&path) {
                Ok(file) => break (path, file),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && n < 100 => n += 1,
                Err(e) => return Err(SaveError::Write { path: path.display().to_string(), reason: e.to_string() }),
            }
        };
        let failed = |e: std::io::Error| SaveError::Write { path: path.display().to_string(), reason: e.to_string() };
        lock(&path, &file)?;
        file.write_all(&first).map_err(failed)?;
        file.sync_all().map_err(failed)?;
        // The new name must survive a crash too.
        File::open(dir).and_then(|d| d.sync_all()).map_err(failed)?;
        let end = first.len() as u64;
        let cursor = Cursor { chain, end, inputs: 0, progress: Progress::default(), partial_len: 0, standing };
        let mut save = SaveFile { path, file, cursor, len: end, room_refused: false };
        // The first record: what the game did before its channel was up (the frames sealed at establishment).
        save.force_commit(journal, channel)?;
        Ok(save)
    }

    /// Opens a save to go on with it: takes its lock first ([`SaveError::InUse`] if another process holds it,
    /// the file untouched), then reads it back. The file is made owner-only again, whatever was done to it since.
    pub fn open(path: &Path) -> Result<(SaveFile, Saved), SaveError> {
        let failed = |e: std::io::Error| SaveError::Write { path: path.display().to_string(), reason: e.to_string() };
        // Opening to write writes nothing: a refused process leaves the file's bytes and time as they were.
        let file = OpenOptions::new().write(true).open(path).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => SaveError::Read {
                path: path.display().to_string(),
                reason: "there is no such file (`fairdeck games` lists the saved games)".into(),
            },
            _ => failed(e),
        })?;
        lock(path, &file)?;
        let opened = load(path).and_then(|saved| {
            #[cfg(unix)]
            file.set_permissions(std::os::unix::fs::PermissionsExt::from_mode(0o600)).map_err(failed)?;
            let len = file.metadata().map_err(failed)?.len();
            Ok((saved, len))
        });
        match opened {
            Ok((saved, len)) => {
                let cursor = saved.cursor.clone();
                Ok((SaveFile { path: path.to_path_buf(), file, cursor, len, room_refused: false }, saved))
            }
            Err(error) => {
                // Not taken after all: the pid file goes, then the lock with `file`.
                let _ = std::fs::remove_file(pid_file(path));
                Err(error)
            }
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the last line says the game stands at `standing`, but for its count of moves (which only the
    /// list of saves shows): nothing a resume needs at once changed.
    pub fn stands_at(&self, standing: &Standing) -> bool {
        let last = &self.cursor.standing;
        last.relay == standing.relay
            && last.status == standing.status
            && last.opponent == standing.opponent
            && last.record == standing.record
    }

    /// Appends what changed since the last line, and syncs it, if anything did. Call it before any frame the
    /// channel sealed leaves.
    pub fn commit(&mut self, journal: &Journal, channel: &Channel, standing: Standing) -> Result<(), SaveError> {
        let progress = channel.progress();
        let cursor = &self.cursor;
        if cursor.inputs == journal.inputs.len()
            && cursor.progress == progress
            && cursor.partial_len == channel.partial_message().len()
            && cursor.standing == standing
        {
            return Ok(());
        }
        self.cursor.standing = standing;
        self.force_commit(journal, channel)
    }

    fn force_commit(&mut self, journal: &Journal, channel: &Channel) -> Result<(), SaveError> {
        let progress = channel.progress();
        let partial = channel.partial_message();
        // The message under way is the one of the last line, grown, unless a message was delivered since.
        let same_message = progress.delivered == self.cursor.progress.delivered;
        let partial_keep = if same_message { self.cursor.partial_len.min(partial.len()) } else { 0 };
        let standing = self.cursor.standing.clone();
        let record = Record {
            at: now(),
            inputs: journal.inputs[self.cursor.inputs..].to_vec(),
            frames: channel.sealed_from(self.cursor.progress.next_seq).map(|f| HexBytes(f.to_vec())).collect(),
            partial_keep: partial_keep as u64,
            partial_add: HexBytes(partial[partial_keep..].to_vec()),
            peer_runs: channel.peer_runs_from(self.cursor.progress.recv_next).copied().collect(),
            progress,
            relay: standing.relay.clone(),
            status: standing.status,
            opponent: standing.opponent.clone(),
            moves: standing.moves,
            record: standing.record.clone(),
        };
        let json = serde_json::to_vec(&record).expect("a save record serializes");
        let (chain, bytes) = line(&self.cursor.chain, &json);
        let failed =
            |e: std::io::Error| SaveError::Write { path: self.path.display().to_string(), reason: e.to_string() };
        // One write of the whole line, at the end of the lines (over the room made, if any): a process killed
        // meanwhile leaves the line whole or absent.
        write_at(&self.file, self.cursor.end, &bytes).map_err(failed)?;
        self.file.sync_data().map_err(failed)?;
        let end = self.cursor.end + bytes.len() as u64;
        self.len = self.len.max(end);
        let partial_len = partial.len();
        self.cursor = Cursor { chain, end, inputs: journal.inputs.len(), progress, partial_len, standing };
        Ok(())
    }

    /// Whether little room is left ahead of the lines, and making more may work.
    pub fn wants_room(&self) -> bool {
        !self.room_refused && self.len - self.cursor.end < ROOM_LOW
    }

    /// Makes room ahead for the next lines: zeros written past the end and synced, so that the next records are
    /// written over them. A megabyte takes a few milliseconds: call it when nothing waits on the save (the driver
    /// does once the game was quiet for a moment). Without room a line is appended, only more slowly, so a
    /// failure here costs time, not data.
    pub fn make_room(&mut self) {
        let target = self.cursor.end + ROOM_MADE;
        let zeros = vec![0; target.saturating_sub(self.len) as usize];
        match write_at(&self.file, self.len, &zeros).and_then(|()| self.file.sync_data()) {
            Ok(()) => self.len = self.len.max(target),
            Err(_) => self.room_refused = true,
        }
    }
}

/// Writes `bytes` at `offset` of `file` in one positioned write (`pwrite`), not a seek then a write: a save line
/// costs one system call fewer on the path of the frames it holds.
#[cfg(unix)]
fn write_at(file: &File, offset: u64, bytes: &[u8]) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::write_all_at(file, bytes, offset)
}

#[cfg(not(unix))]
fn write_at(mut file: &File, offset: u64, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::{Seek, SeekFrom};
    file.seek(SeekFrom::Start(offset))?;
    file.write_all(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::save::{RelayPlace, Status, load};

    /// A host's save of a new game, its channel established, in `dir`.
    fn new_save(dir: &Path) -> (SaveFile, Journal, Channel) {
        use fairdeck_shared::Seat;
        use fairdeck_shared::crypto::Ristretto255;
        use fairdeck_shared::engine::{Engine, EngineConfig};
        let config = EngineConfig { name: "Ada".into(), software: "fairdeck-test".into() };
        let deck = fairdeck_shared::pair::numbered_deck("Ada", 3, 0);
        let journal = Engine::<Ristretto255>::new(Seat::HOST, config, deck, [3; 32]).unwrap().journal().clone();
        let mut host = Channel::new(crate::channel::Side::Host, "tests-words", "7", [1; 32]);
        let mut guest = Channel::new(crate::channel::Side::Guest, "tests-words", "7", [2; 32]);
        for _ in 0..10 {
            while let Some(frame) = host.poll_frame() {
                guest.handle_frame(&frame).unwrap();
            }
            while let Some(frame) = guest.poll_frame() {
                host.handle_frame(&frame).unwrap();
            }
        }
        assert!(host.is_established());
        let save = SaveFile::create(dir, &journal, &host, standing(0)).unwrap();
        (save, journal, host)
    }

    /// A new save with room made, then a record of one move written over it.
    fn one_record_and_room(dir: &Path) -> (SaveFile, Journal, Channel) {
        let (mut save, journal, channel) = new_save(dir);
        save.make_room();
        save.commit(&journal, &channel, standing(1)).unwrap();
        (save, journal, channel)
    }

    fn standing(moves: u64) -> Standing {
        let relay = RelayPlace { url: "ws://127.0.0.1:1/v1".into(), ca: None, token: None, serve: None };
        Standing { relay, status: Status::Playing, opponent: Some("Bea".into()), moves, record: None }
    }

    fn file_len(path: &Path) -> u64 {
        std::fs::metadata(path).unwrap().len()
    }

    #[test]
    fn records_go_over_the_room_made_ahead_and_the_room_goes_with_the_save() {
        let dir = tempfile::tempdir().unwrap();
        let (mut save, journal, channel) = new_save(dir.path());
        let path = save.path().to_path_buf();
        let lines = file_len(&path);
        save.make_room();
        assert_eq!(file_len(&path), lines + ROOM_MADE, "room made past the lines");
        for moves in 1..=20 {
            save.commit(&journal, &channel, standing(moves)).unwrap();
        }
        assert_eq!(file_len(&path), lines + ROOM_MADE, "the records were written over the room");
        let end = save.cursor.end;
        assert!(end > lines + 20 * 100, "twenty records were written");
        let bytes = std::fs::read(&path).unwrap();
        assert!(bytes[end as usize..].iter().all(|&b| b == 0) && bytes[end as usize - 1] == b'\n');
        assert_eq!(load(&path).unwrap().standing.moves, 20, "the reader stops at the room");
        // Little room left: more is wanted, and made from where the zeros end.
        assert!(!save.wants_room());
        save.len = end + ROOM_LOW - 1;
        assert!(save.wants_room());
        save.make_room();
        assert_eq!(file_len(&path), end + ROOM_MADE);
        assert!(!save.wants_room());
        drop(save);
        assert_eq!(file_len(&path), end, "a closed save ends with its last line");
        assert_eq!(load(&path).unwrap().standing.moves, 20);
    }

    #[test]
    fn a_save_left_with_its_room_goes_on_at_the_end_of_its_lines() {
        let dir = tempfile::tempdir().unwrap();
        let (save, journal, channel) = one_record_and_room(dir.path());
        // The file as a process killed now leaves it: room and all.
        let left = dir.path().join("left.fairdeck");
        std::fs::copy(save.path(), &left).unwrap();
        let (mut reopened, saved) = SaveFile::open(&left).unwrap();
        assert_eq!((saved.standing.moves, reopened.len), (1, file_len(save.path())));
        reopened.commit(&journal, &channel, standing(2)).unwrap();
        reopened.make_room();
        assert_eq!(load(&left).unwrap().standing.moves, 2, "the new line follows the last, its chain unbroken");
        drop(reopened);
        assert_eq!(load(&left).unwrap().standing.moves, 2);
    }

    #[test]
    fn a_save_that_is_not_there_is_named_as_missing_not_as_unwritable() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("gone.fairdeck");
        match SaveFile::open(&missing) {
            Err(SaveError::Read { reason, .. }) => assert!(reason.contains("no such file"), "{reason}"),
            other => panic!("{:?}", other.map(|_| ())),
        }
        assert!(!missing.exists() && !pid_file(&missing).exists(), "nothing is made");
    }

    #[test]
    fn a_line_cut_before_the_room_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let (save, ..) = one_record_and_room(dir.path());
        let mut bytes = std::fs::read(save.path()).unwrap();
        let end = save.cursor.end as usize;
        // The last line's end lost, as a write cut short by a crash may leave it: zeros where it was.
        bytes[end - 10..end].fill(0);
        let cut = dir.path().join("cut.fairdeck");
        std::fs::write(&cut, &bytes).unwrap();
        match load(&cut) {
            Err(SaveError::Damaged { reason, .. }) => assert!(reason.contains("cut short"), "{reason}"),
            other => panic!("a cut line is refused, not {other:?}"),
        }
        std::fs::write(&cut, vec![0; 100]).unwrap();
        assert!(matches!(load(&cut), Err(SaveError::Damaged { line: 1, .. })), "zeros only are an empty file");
    }
}
