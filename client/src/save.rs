//! A game saved as it goes, so that no crash ends it: `fairdeck resume` reads it back.
//!
//! The engine is deterministic (see [`fairdeck_shared::journal`]): its journal (seed, deck, the player's intents
//! and the messages received, in order) rebuilds it exactly. With the journal, a save holds what the channel needs
//! to go on: its keys, its counters, the data frames it sealed and the peer has not acknowledged, and the part of a
//! message it has received; and the relay the game uses, with the seat's token.
//!
//! # Format
//!
//! Lines of JSON, each preceded by a chain value and a space: `<64 hex> <json>\n`, where the chain value of line
//! *i* is `SHA-256(chain value of line i−1 ‖ json of line i)` (32 zero bytes before the first line). The first
//! line is the [`Header`]; each later line a [`Record`] of what changed since the line before it. A record is
//! appended and synced to disk before any frame it describes leaves, so a save is never behind what the opponent
//! has seen. A file that is cut short or altered fails its chain (or its counters) and is refused, naming the
//! file and the line; nothing is overwritten. Files and their folder are readable by their owner only: they hold
//! every secret of the game.
//!
//! While a game is open, its file may go on past the last line in zero bytes, which the reader ignores: room
//! made ahead ([`SaveFile::make_room`]), so that a record is written over bytes the file already has. Syncing
//! such a write leaves the file's size, so the inode, as it was: on ext4 it takes about two thirds of the time
//! of an append's (docs/PERFORMANCE.md). The room goes when the save is closed.
//!
//! # One process at a time
//!
//! The process that writes a save holds an exclusive advisory lock on it ([`File::try_lock`]) for as long as it
//! runs, and writes its process id beside it (`<save>.pid`). Another process that opens the save is refused at
//! once ([`SaveError::InUse`], naming that pid), before it reads or writes anything: two processes playing one
//! seat would send two different futures of the same game. The system drops the lock with the process however
//! it ends, so a `kill -9` leaves a stale pid file, never a game that cannot be resumed.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::fmt;
use std::fs::{File, OpenOptions, TryLockError};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use fairdeck_shared::journal::{Input, Journal};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::channel::{Channel, MAX_MESSAGE_BYTES, MAX_PEER_RUNS, Progress, RunStart, SavedKeys, SavedState};

/// The version of the save layout. Another version is refused with its number.
/// 3: protocol 5's messages (a shuffle step carries its proof). 2: envelopes in their binary encoding, inputs
/// externally tagged (protocol 4).
pub const SAVE_FORMAT: u32 = 4;
/// The extension of save files.
pub const EXTENSION: &str = "fairdeck";

/// Where saved games go: `$XDG_DATA_HOME/fairdeck/games`, else `$HOME/.local/share/fairdeck/games`; `None` when
/// neither is set. Empty or relative values are ignored, as the XDG base directory specification asks.
pub fn games_dir(get: impl Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    data_dir(get).map(|dir| dir.join("games"))
}

/// fairdeck's data folder: `$XDG_DATA_HOME/fairdeck`, else `$HOME/.local/share/fairdeck`; `None` when neither is
/// set (empty or relative values ignored).
pub fn data_dir(get: impl Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    let absolute = |name: &str| get(name).map(PathBuf::from).filter(|path| path.is_absolute());
    let base = absolute("XDG_DATA_HOME").or_else(|| absolute("HOME").map(|home| home.join(".local").join("share")))?;
    Some(base.join("fairdeck"))
}

/// The games folder of this process's environment.
pub fn games_dir_from_env() -> Result<PathBuf, SaveError> {
    games_dir(|name| std::env::var_os(name)).ok_or(SaveError::NoDataDir)
}

/// Why a save could not be written or read. Each names the file.
#[derive(Debug, thiserror::Error)]
pub enum SaveError {
    #[error("cannot tell where to save games: neither XDG_DATA_HOME nor HOME is set")]
    NoDataDir,
    #[error("cannot write the saved game {path}: {reason}")]
    Write { path: String, reason: String },
    #[error("cannot read the saved game {path}: {reason}")]
    Read { path: String, reason: String },
    #[error("the saved game {path} is format {found}; this fairdeck reads format {SAVE_FORMAT}")]
    Format { path: String, found: u32 },
    #[error("the saved game {path} is damaged at line {line}: {reason} (it was left as it is)")]
    Damaged { path: String, line: usize, reason: String },
    #[error("no unfinished game is saved in {0}")]
    NoneToResume(String),
    #[error("this game is open in another fairdeck{}; close it first ({path})", pid_words(.pid))]
    InUse { path: String, pid: Option<u32> },
}

/// " (pid 1234)", or nothing when the holder did not say.
fn pid_words(pid: &Option<u32>) -> String {
    pid.map(|pid| format!(" (pid {pid})")).unwrap_or_default()
}

/// Where a game stands, as `fairdeck games` lists it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// The game goes on: `fairdeck resume` continues it.
    Playing,
    /// It ended (both decks audited, or a forfeit).
    Ended,
    /// The engine stopped on a breach of the protocol.
    Halted,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Playing => "playing",
            Status::Ended => "ended",
            Status::Halted => "halted",
        }
    }
}

/// The relay a game uses, and the seat's token there.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RelayPlace {
    pub url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ca: Option<PathBuf>,
    /// The seat's token at this relay, while the relay may still know it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
    /// Where this program served the relay (`host --serve`, its port bound): a resumed game serves there again,
    /// so that the guest comes back to the URL it joined with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub serve: Option<std::net::SocketAddr>,
}

impl fmt::Debug for RelayPlace {
    // The token takes the seat: never printed.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RelayPlace")
            .field("url", &self.url)
            .field("ca", &self.ca)
            .field("serve", &self.serve)
            .finish_non_exhaustive()
    }
}

/// The first line of a save: what never changes.
#[derive(Serialize, Deserialize)]
struct Header {
    fairdeck_save: u32,
    /// Unix seconds.
    started: u64,
    /// The engine's journal, without inputs (they come in the records).
    journal: Journal,
    keys: SavedKeys,
}

/// What changed since the line before.
#[derive(Serialize, Deserialize)]
struct Record {
    /// Unix seconds.
    at: u64,
    /// The engine's new inputs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    inputs: Vec<Input>,
    /// Data frames sealed since, numbered on from the previous record's `next_seq`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    frames: Vec<HexBytes>,
    /// The message being received: the first `keep` bytes of the previous one, then `add`.
    partial_keep: u64,
    #[serde(default, skip_serializing_if = "HexBytes::is_empty")]
    partial_add: HexBytes,
    /// Where the peer's runs began, from the previous record's `recv_next` on.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    peer_runs: Vec<RunStart>,
    progress: Progress,
    relay: RelayPlace,
    status: Status,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    opponent: Option<String>,
    /// Actions applied to the table so far.
    moves: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    record: Option<PathBuf>,
}

#[derive(Clone, Default, Serialize, Deserialize)]
#[serde(transparent)]
struct HexBytes(#[serde(with = "fairdeck_shared::serde_hex::vec")] Vec<u8>);

impl HexBytes {
    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Where a game stands, for the records and for `fairdeck games`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Standing {
    pub relay: RelayPlace,
    pub status: Status,
    pub opponent: Option<String>,
    pub moves: u64,
    /// Where the game's journal goes when a session of it ends (`--record`), kept for `fairdeck resume`.
    pub record: Option<PathBuf>,
}

/// A save read back: everything to rebuild the engine and the channel.
pub struct Saved {
    pub path: PathBuf,
    pub started: u64,
    /// When the last record was written (unix seconds).
    pub last: u64,
    /// The full journal: the engine replays it.
    pub journal: Journal,
    pub keys: SavedKeys,
    /// The channel's counters, frames and runs.
    pub channel: SavedState,
    pub standing: Standing,
    /// Where the writer goes on from.
    cursor: Cursor,
}

impl fmt::Debug for Saved {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Saved")
            .field("path", &self.path)
            .field("inputs", &self.journal.inputs.len())
            .field("progress", &self.channel.progress)
            .field("standing", &self.standing)
            .finish_non_exhaustive()
    }
}

impl Saved {
    /// The channel as it stood, going on in a new run drawn from `rng_seed` (fresh secret randomness).
    pub fn restore_channel(&self, rng_seed: [u8; 32]) -> Channel {
        Channel::restore(&self.keys, self.channel.clone(), rng_seed)
    }
}

/// What the last line written says, to write only what changed, and where it ends.
#[derive(Clone)]
struct Cursor {
    chain: [u8; 32],
    /// The length of the lines: where the next one goes.
    end: u64,
    inputs: usize,
    progress: Progress,
    partial_len: usize,
    standing: Standing,
}

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
const ROOM_LOW: u64 = 256 << 10;
const ROOM_MADE: u64 = 1 << 20;

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

fn line(chain: &[u8; 32], json: &[u8]) -> ([u8; 32], Vec<u8>) {
    let next: [u8; 32] = Sha256::new().chain_update(chain).chain_update(json).finalize().into();
    let mut line = Vec::with_capacity(65 + json.len() + 1);
    line.extend_from_slice(hex::encode(next).as_bytes());
    line.push(b' ');
    line.extend_from_slice(json);
    line.push(b'\n');
    (next, line)
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

/// Takes the exclusive lock on the save `file` at `path` for this process, and says so in its pid file; if
/// another process holds it, [`SaveError::InUse`] with that process's pid, and nothing written.
fn lock(path: &Path, file: &File) -> Result<(), SaveError> {
    let failed = |e: std::io::Error| SaveError::Write { path: path.display().to_string(), reason: e.to_string() };
    match file.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => {
            return Err(SaveError::InUse { path: path.display().to_string(), pid: holder(path) });
        }
        Err(TryLockError::Error(e)) => return Err(failed(e)),
    }
    let mut options = OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut pid = options.open(pid_file(path)).map_err(failed)?;
    pid.write_all(format!("{}\n", std::process::id()).as_bytes()).map_err(failed)
}

/// The file beside a save that names the process holding it.
fn pid_file(save: &Path) -> PathBuf {
    let mut name = save.as_os_str().to_owned();
    name.push(".pid");
    PathBuf::from(name)
}

/// The process the pid file of a save names, if it can be read: only a hint for the message, since the lock,
/// not this file, says whether a process holds the save.
fn holder(save: &Path) -> Option<u32> {
    crate::file::read_text_at_most(&pid_file(save), 64).ok()?.trim().parse().ok()
}

/// Whether another process holds the save at `path`, as `fairdeck games` shows it: `Some` with its pid (if it
/// said), else `None`. Only a save with a pid file is tried, so a free save is not locked even for a moment.
pub fn in_use(path: &Path) -> Option<InUse> {
    if !pid_file(path).exists() {
        return None;
    }
    let file = File::open(path).ok()?;
    match file.try_lock_shared() {
        Err(TryLockError::WouldBlock) => Some(InUse { pid: holder(path) }),
        // Free (the lock goes with `file`), or not lockable here: nothing to show.
        _ => None,
    }
}

/// Another process holds a save.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InUse {
    /// Its process id, as its pid file says.
    pub pid: Option<u32>,
}

fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)?;
    // A folder that existed before keeps no wider access than its files.
    #[cfg(unix)]
    std::fs::set_permissions(dir, std::os::unix::fs::PermissionsExt::from_mode(0o700))?;
    Ok(())
}

/// Reads a save back, checking every line.
pub fn load(path: &Path) -> Result<Saved, SaveError> {
    let name = path.display().to_string();
    let bytes = crate::file::read_at_most(path, crate::file::GAME_BYTES)
        .map_err(|e| SaveError::Read { path: name.clone(), reason: e.to_string() })?;
    let damaged = |line: usize, reason: &str| SaveError::Damaged { path: name.clone(), line, reason: reason.into() };
    // The room made ahead is not the save's (no line holds a zero byte).
    let end = bytes.iter().rposition(|&b| b != 0).map_or(0, |last| last + 1);
    let mut lines = bytes[..end].split_inclusive(|&b| b == b'\n').enumerate().map(|(i, l)| (i + 1, l));
    let mut chain = [0u8; 32];

    let Some((number, first)) = lines.next() else { return Err(damaged(1, "the file is empty")) };
    check_format(first, &name)?;
    let json = next_line(&mut chain, first).map_err(|reason| damaged(number, reason))?;
    let header: Header =
        serde_json::from_slice(json).map_err(|e| damaged(number, &format!("unreadable header: {e}")))?;
    if (header.keys.side() == crate::channel::Side::Host) != (header.journal.seat == fairdeck_shared::Seat::HOST) {
        return Err(damaged(number, "its channel and its journal are of different seats"));
    }

    let mut journal = header.journal;
    let mut channel = ChannelSoFar::default();
    let mut last = None;
    for (number, raw) in lines {
        let json = next_line(&mut chain, raw).map_err(|reason| damaged(number, reason))?;
        let record: Record =
            serde_json::from_slice(json).map_err(|e| damaged(number, &format!("unreadable record: {e}")))?;
        let Record {
            at,
            inputs,
            frames,
            partial_keep,
            partial_add,
            peer_runs,
            progress,
            relay,
            status,
            opponent,
            moves,
            record,
        } = record;
        channel
            .follow(progress, frames, (partial_keep, partial_add), peer_runs)
            .map_err(|reason| damaged(number, reason))?;
        journal.inputs.extend(inputs);
        last = Some((at, Standing { relay, status, opponent, moves, record }));
    }
    let Some((at, standing)) = last else {
        return Err(damaged(2, "the file ends after its header (the game never got going)"));
    };
    let ChannelSoFar { progress, unacked, partial, peer_runs } = channel;
    let cursor = Cursor {
        chain,
        end: end as u64,
        inputs: journal.inputs.len(),
        progress,
        partial_len: partial.len(),
        standing: standing.clone(),
    };
    Ok(Saved {
        path: path.to_path_buf(),
        started: header.started,
        last: at,
        journal,
        keys: header.keys,
        channel: SavedState { progress, unacked: unacked.into(), partial, peer_runs },
        standing,
        cursor,
    })
}

/// Refuses a save of another format by its number, read from the first line before anything else, so that another
/// version is named rather than misread.
fn check_format(first: &[u8], name: &str) -> Result<(), SaveError> {
    #[derive(Deserialize)]
    struct Version {
        fairdeck_save: u32,
    }
    let json_start = first.iter().position(|&b| b == b' ').map_or(0, |i| i + 1);
    match serde_json::from_slice::<Version>(first[json_start..].trim_ascii_end()) {
        Ok(Version { fairdeck_save }) if fairdeck_save != SAVE_FORMAT => {
            Err(SaveError::Format { path: name.to_string(), found: fairdeck_save })
        }
        _ => Ok(()),
    }
}

/// The JSON of one save line, whose chain value must follow from `chain`, which moves on to it; else why the line
/// is damaged.
fn next_line<'a>(chain: &mut [u8; 32], raw: &'a [u8]) -> Result<&'a [u8], &'static str> {
    let raw = raw.strip_suffix(b"\n").ok_or("the line is cut short (the file was truncated)")?;
    if raw.len() < 65 || raw[64] != b' ' {
        return Err("not a save line");
    }
    let (given, json) = (&raw[..64], &raw[65..]);
    let (expected, _) = line(chain, json);
    if !given.eq_ignore_ascii_case(hex::encode(expected).as_bytes()) {
        return Err("its checksum does not match (the file was altered or cut)");
    }
    *chain = expected;
    Ok(json)
}

/// The channel's state as the records read so far rebuild it.
#[derive(Default)]
struct ChannelSoFar {
    progress: Progress,
    /// Sealed frames from `progress.acked` on.
    unacked: VecDeque<Vec<u8>>,
    partial: Vec<u8>,
    peer_runs: Vec<RunStart>,
}

impl ChannelSoFar {
    /// Takes in one record's part of the channel: its counters, the frames sealed since, the message being received
    /// (`keep` bytes of the one before, then `add`) and where the peer's runs began; else why the record does not
    /// follow from the one before.
    fn follow(
        &mut self,
        progress: Progress,
        frames: Vec<HexBytes>,
        (keep, add): (u64, HexBytes),
        peer_runs: Vec<RunStart>,
    ) -> Result<(), &'static str> {
        let (before, p) = (self.progress, progress);
        let sealed = before.next_seq + frames.len() as u64;
        if p.next_seq != sealed || p.acked < before.acked || p.acked > p.next_seq || p.delivered < before.delivered {
            return Err("its counters do not follow from the line before");
        }
        self.unacked.extend(frames.into_iter().map(|f| f.0));
        for _ in before.acked..p.acked {
            self.unacked.pop_front();
        }
        let keep = usize::try_from(keep).unwrap_or(usize::MAX);
        if keep > self.partial.len() || keep + add.0.len() > MAX_MESSAGE_BYTES {
            return Err("its part of a message does not follow from the line before");
        }
        self.partial.truncate(keep);
        self.partial.extend_from_slice(&add.0);
        // Each run began at a frame taken since the line before, in order.
        let mut from = before.recv_next;
        for start in peer_runs {
            if start.seq < from || start.seq >= p.recv_next || self.peer_runs.len() >= MAX_PEER_RUNS {
                return Err("its record of the opponent's runs does not follow");
            }
            from = start.seq + 1;
            self.peer_runs.push(start);
        }
        self.progress = progress;
        Ok(())
    }
}

/// One line of `fairdeck games`: a save, or why it cannot be read.
pub struct Listed {
    pub path: PathBuf,
    pub summary: Result<Summary, SaveError>,
    /// Whether a `fairdeck` process has it open now.
    pub in_use: Option<InUse>,
}

/// What `fairdeck games` shows of a save.
#[derive(Clone, Debug)]
pub struct Summary {
    pub seat: fairdeck_shared::Seat,
    pub opponent: Option<String>,
    pub started: u64,
    pub last: u64,
    pub moves: u64,
    pub status: Status,
}

/// Every save in `dir`, the most recently played first. A missing folder has none.
pub fn list(dir: &Path) -> Result<Vec<Listed>, SaveError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(SaveError::Read { path: dir.display().to_string(), reason: e.to_string() }),
    };
    let mut listed: Vec<Listed> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == EXTENSION))
        .map(|path| {
            let summary = load(&path).map(|saved| Summary {
                seat: saved.journal.seat,
                opponent: saved.standing.opponent.clone(),
                started: saved.started,
                last: saved.last,
                moves: saved.standing.moves,
                status: saved.standing.status,
            });
            let in_use = in_use(&path);
            Listed { path, summary, in_use }
        })
        .collect();
    listed.sort_by_key(|l| std::cmp::Reverse(l.summary.as_ref().map_or(0, |s| s.last)));
    Ok(listed)
}

/// The most recently played unfinished game in `dir` that no other fairdeck has open (the player's own, where both
/// players of a game share the folder); else the most recent one, which opening then refuses naming its process.
pub fn latest_unfinished(dir: &Path) -> Result<PathBuf, SaveError> {
    let playing: Vec<Listed> =
        list(dir)?.into_iter().filter(|l| l.summary.as_ref().is_ok_and(|s| s.status == Status::Playing)).collect();
    let chosen = playing.iter().find(|l| l.in_use.is_none()).or(playing.first());
    chosen.map(|l| l.path.clone()).ok_or_else(|| SaveError::NoneToResume(dir.display().to_string()))
}

/// A unix time as `2026-11-23 10:15` (UTC).
pub fn format_time(unix: u64) -> String {
    let text = humantime::format_rfc3339_seconds(UNIX_EPOCH + std::time::Duration::from_secs(unix)).to_string();
    // 2026-11-23T10:15:03Z
    format!("{} {} UTC", &text[..10], &text[11..16])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn games_go_to_the_data_directory() {
        let at = |vars: &[(&str, &str)]| {
            let vars: Vec<(String, OsString)> = vars.iter().map(|(k, v)| (k.to_string(), OsString::from(v))).collect();
            games_dir(|name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()))
        };
        assert_eq!(at(&[("HOME", "/home/ada")]), Some(PathBuf::from("/home/ada/.local/share/fairdeck/games")));
        assert_eq!(at(&[("HOME", "/home/ada"), ("XDG_DATA_HOME", "/xdg")]), Some(PathBuf::from("/xdg/fairdeck/games")));
        assert_eq!(
            at(&[("HOME", "/home/ada"), ("XDG_DATA_HOME", "relative")]),
            Some(PathBuf::from("/home/ada/.local/share/fairdeck/games"))
        );
        assert_eq!(at(&[]), None);
    }

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

    #[test]
    fn times_read_as_utc() {
        assert_eq!(format_time(0), "1970-01-01 00:00 UTC");
        assert_eq!(format_time(1_795_000_000), "2026-11-18 11:06 UTC");
    }
}
