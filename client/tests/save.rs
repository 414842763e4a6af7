//! Saved games: a channel saved mid-conversation and restored goes on exactly where it stood, a damaged
//! save is refused with its file and line, untouched, and a save open in one process is refused to another.

use std::path::Path;

use fairdeck::channel::{Channel, SavedState, Side};
use fairdeck::save::{self, RelayPlace, SaveError, SaveFile, Standing, Status};
use fairdeck_shared::Seat;
use fairdeck_shared::crypto::Ristretto255;
use fairdeck_shared::engine::{Engine, EngineConfig, Input, Intent};
use fairdeck_shared::journal::Journal;

const WORDS: &str = "purple-sausage";

fn drain(channel: &mut Channel) -> Vec<Vec<u8>> {
    std::iter::from_fn(|| channel.poll_frame()).collect()
}

fn messages(channel: &mut Channel) -> Vec<Vec<u8>> {
    std::iter::from_fn(|| channel.poll_message()).collect()
}

/// Delivers everything both ways until both are quiet.
fn pump(a: &mut Channel, b: &mut Channel) {
    for _ in 0..10_000 {
        let (to_b, to_a) = (drain(a), drain(b));
        if to_a.is_empty() && to_b.is_empty() {
            return;
        }
        to_b.iter().for_each(|f| b.handle_frame(f).unwrap());
        to_a.iter().for_each(|f| a.handle_frame(f).unwrap());
    }
    panic!("the channels never went quiet");
}

fn established() -> (Channel, Channel) {
    let mut host = Channel::new(Side::Host, WORDS, "7", [1; 32]);
    let mut guest = Channel::new(Side::Guest, WORDS, "7", [2; 32]);
    pump(&mut host, &mut guest);
    assert!(host.is_established() && guest.is_established());
    (host, guest)
}

/// A guest's journal with a few intents, as the engine keeps it.
fn journal(chats: usize) -> Journal {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/decks/burn.txt")).unwrap();
    let deck = fairdeck::deck::parse_deck("burn.txt", &text).unwrap().to_deck_list();
    let config = EngineConfig { name: "Bea".into(), software: "test".into() };
    let mut engine = Engine::<Ristretto255>::new(Seat::GUEST, config, deck, [9; 32]).unwrap();
    for i in 0..chats {
        let _ = engine.handle(Input::Intent { intent: Intent::Chat(format!("hello {i}")) });
    }
    engine.journal().clone()
}

fn standing(moves: u64) -> Standing {
    Standing {
        relay: RelayPlace { url: "ws://127.0.0.1:7171/v1".into(), ca: None, token: Some("ab".repeat(16)), serve: None },
        status: Status::Playing,
        opponent: Some("Ada".into()),
        moves,
        record: None,
    }
}

#[test]
fn a_restored_channel_goes_on_where_it_stood_with_every_message_exactly_once() {
    let dir = tempfile::tempdir().unwrap();
    let (mut host, mut guest) = established();
    host.set_max_frame_bytes(256);
    guest.set_max_frame_bytes(256);
    let mut save = SaveFile::create(dir.path(), &journal(1), &guest, standing(0)).unwrap();

    // The host sends three messages; the guest gets the first whole and part of the second, a long one.
    host.send(b"first".to_vec()).unwrap();
    let long: Vec<u8> = (0..2000u32).map(|i| i as u8).collect();
    host.send(long.clone()).unwrap();
    host.send(b"third".to_vec()).unwrap();
    let frames = drain(&mut host);
    assert!(frames.len() > 6, "the long message spans several frames");
    for frame in &frames[..4] {
        guest.handle_frame(frame).unwrap();
    }
    assert_eq!(messages(&mut guest), vec![b"first".to_vec()]);
    // The guest sends a message of its own, and acknowledges what it got: saved before anything leaves.
    guest.send(b"from the guest".to_vec()).unwrap();
    let guest_frames = drain(&mut guest);
    save.commit(&journal(2), &guest, standing(1)).unwrap();
    host.handle_frame(&guest_frames[0]).unwrap();
    assert_eq!(messages(&mut host), vec![b"from the guest".to_vec()]);
    // Its ack reached the host: the first frames are gone from the host's resend queue.
    for frame in &guest_frames[1..] {
        host.handle_frame(frame).unwrap();
    }
    drop(guest);

    // The guest's process died. Its save brings it back.
    let path = save.path().to_path_buf();
    let saved = save::load(&path).unwrap();
    assert_eq!(saved.journal.inputs.len(), journal(2).inputs.len());
    assert_eq!(saved.standing, standing(1));
    let mut guest = saved.restore_channel([5; 32]);
    guest.set_max_frame_bytes(256);
    host.resend_unacked();
    guest.resend_unacked();
    pump(&mut host, &mut guest);
    // The rest of the long message, then the third: nothing twice, nothing lost.
    assert_eq!(messages(&mut guest), vec![long, b"third".to_vec()]);
    assert_eq!(messages(&mut host), Vec::<Vec<u8>>::new(), "the guest's message is not delivered twice");

    // New messages go on under fresh sequence numbers, both ways.
    guest.send(b"after".to_vec()).unwrap();
    host.send(b"welcome back".to_vec()).unwrap();
    pump(&mut host, &mut guest);
    assert_eq!(messages(&mut host), vec![b"after".to_vec()]);
    assert_eq!(messages(&mut guest), vec![b"welcome back".to_vec()]);
}

#[test]
fn a_save_lists_its_game_and_goes_on_being_written_after_a_resume() {
    let dir = tempfile::tempdir().unwrap();
    let (mut host, mut guest) = established();
    let mut save = SaveFile::create(dir.path(), &journal(1), &guest, standing(0)).unwrap();
    let path = save.path().to_path_buf();
    guest.send(b"one".to_vec()).unwrap();
    drain(&mut guest);
    save.commit(&journal(1), &guest, standing(0)).unwrap();
    drop(save);

    let (mut save, saved) = SaveFile::open(&path).unwrap();
    let mut guest = saved.restore_channel([5; 32]);
    guest.send(b"two".to_vec()).unwrap();
    save.commit(&journal(3), &guest, standing(4)).unwrap();
    guest.resend_unacked();
    pump(&mut host, &mut guest);
    assert_eq!(messages(&mut host), vec![b"one".to_vec(), b"two".to_vec()]);

    let listed = save::list(dir.path()).unwrap();
    assert_eq!(listed.len(), 1);
    let game = listed[0].summary.as_ref().unwrap();
    assert_eq!(
        (game.seat, game.opponent.as_deref(), game.moves, game.status),
        (Seat::GUEST, Some("Ada"), 4, Status::Playing)
    );
    assert_eq!(save::latest_unfinished(dir.path()).unwrap(), path);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        assert_eq!(std::fs::metadata(dir.path()).unwrap().permissions().mode() & 0o077, 0, "{:?}", dir.path());
    }
}

#[test]
fn a_save_is_open_in_one_process_at_a_time_and_a_refused_one_touches_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (_host, guest) = established();
    let save = SaveFile::create(dir.path(), &journal(1), &guest, standing(0)).unwrap();
    let path = save.path().to_path_buf();
    let pid_file = dir.path().join(format!("{}.pid", path.file_name().unwrap().to_string_lossy()));
    let bytes = std::fs::read(&path).unwrap();
    let modified = std::fs::metadata(&path).unwrap().modified().unwrap();
    let me = std::process::id();

    // The writer holds it: another open is refused at once, naming the writer's process, and writes nothing.
    let error = SaveFile::open(&path).map(|_| ()).unwrap_err();
    assert!(matches!(error, SaveError::InUse { pid: Some(pid), .. } if pid == me), "{error:?}");
    let text = error.to_string();
    assert!(text.contains(&format!("open in another fairdeck (pid {me}); close it first")), "{text}");
    assert_eq!(std::fs::read(&path).unwrap(), bytes);
    assert_eq!(std::fs::metadata(&path).unwrap().modified().unwrap(), modified);
    let listed = save::list(dir.path()).unwrap();
    assert_eq!(listed[0].in_use, Some(save::InUse { pid: Some(me) }), "`fairdeck games` shows it open");

    // The writer gone, the game opens again; its pid file went with it.
    drop(save);
    assert!(!pid_file.exists());
    assert_eq!(save::list(dir.path()).unwrap()[0].in_use, None);
    let (reopened, _) = SaveFile::open(&path).unwrap();
    assert_eq!(std::fs::read_to_string(&pid_file).unwrap().trim(), me.to_string());
    drop(reopened);

    // A writer killed with -9 leaves its pid file but no lock: the game opens, and the file names the new writer.
    std::fs::write(&pid_file, "4000000\n").unwrap();
    assert_eq!(save::list(dir.path()).unwrap()[0].in_use, None, "a stale pid file is no lock");
    let (_reopened, saved) = SaveFile::open(&path).unwrap();
    assert_eq!(saved.standing, standing(0));
    assert_eq!(std::fs::read_to_string(&pid_file).unwrap().trim(), me.to_string());
}

#[cfg(unix)]
#[test]
fn resuming_without_a_file_takes_the_newest_game_no_other_fairdeck_has_open() {
    let dir = tempfile::tempdir().unwrap();
    let (_, guest) = established();
    let paths: Vec<std::path::PathBuf> = (0..2)
        .map(|_| SaveFile::create(dir.path(), &journal(1), &guest, standing(0)).unwrap().path().to_path_buf())
        .collect();
    let newest = save::latest_unfinished(dir.path()).unwrap();
    let other = paths.iter().find(|path| **path != newest).unwrap().clone();
    // Both players of a game on one computer: the newest is the other player's, open in its fairdeck.
    let (held, _) = SaveFile::open(&newest).unwrap();
    assert_eq!(save::latest_unfinished(dir.path()).unwrap(), other);
    // With every game open elsewhere, the newest is named, and opening it says which process has it.
    let (also_held, _) = SaveFile::open(&other).unwrap();
    let chosen = save::latest_unfinished(dir.path()).unwrap();
    assert_eq!(chosen, newest);
    assert!(matches!(SaveFile::open(&chosen), Err(SaveError::InUse { .. })));
    drop((held, also_held));
}

#[test]
fn a_save_made_readable_by_others_is_owner_only_again_once_opened() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = some_save(dir.path());
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    let (_save, _) = SaveFile::open(&path).unwrap();
    assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
}

/// A save of a few lines, and its bytes.
fn some_save(dir: &Path) -> (std::path::PathBuf, Vec<u8>) {
    let (_host, mut guest) = established();
    let mut save = SaveFile::create(dir, &journal(1), &guest, standing(0)).unwrap();
    for i in 0..3u8 {
        guest.send(vec![i; 100]).unwrap();
        drain(&mut guest);
        save.commit(&journal(2 + usize::from(i)), &guest, standing(u64::from(i))).unwrap();
    }
    let path = save.path().to_path_buf();
    let bytes = std::fs::read(&path).unwrap();
    (path, bytes)
}

fn damaged_line(error: SaveError, path: &Path) -> usize {
    let text = error.to_string();
    assert!(text.contains(&path.display().to_string()), "the error names the file: {text}");
    match error {
        SaveError::Damaged { line, .. } => line,
        other => panic!("expected a damaged save, got {other:?}"),
    }
}

#[test]
fn a_truncated_or_altered_save_is_refused_with_its_file_and_line_and_left_as_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let (path, bytes) = some_save(dir.path());
    let lines = bytes.iter().filter(|&&b| b == b'\n').count();
    assert_eq!(lines, 5, "a header and four records");

    // Cut anywhere inside the last line, or in the middle of the file.
    for cut in [bytes.len() - 1, bytes.len() - 40, bytes.len() / 2, 10] {
        std::fs::write(&path, &bytes[..cut]).unwrap();
        let line = damaged_line(save::load(&path).unwrap_err(), &path);
        assert!(line >= 1 && line <= lines, "line {line}");
        assert_eq!(std::fs::read(&path).unwrap(), &bytes[..cut], "the file is left as it was");
    }
    // One byte changed in a record's JSON.
    let mut altered = bytes.clone();
    let at = altered.iter().rposition(|&b| b == b'"').unwrap() - 1;
    altered[at] ^= 1;
    std::fs::write(&path, &altered).unwrap();
    assert_eq!(damaged_line(save::load(&path).unwrap_err(), &path), lines);
    // A line left out in the middle.
    let kept: Vec<&[u8]> =
        bytes.split_inclusive(|&b| b == b'\n').enumerate().filter(|(i, _)| *i != 2).map(|(_, l)| l).collect();
    std::fs::write(&path, kept.concat()).unwrap();
    assert_eq!(damaged_line(save::load(&path).unwrap_err(), &path), 3);
    // Not a save at all.
    std::fs::write(&path, b"{\"format\":1}\n").unwrap();
    assert_eq!(damaged_line(save::load(&path).unwrap_err(), &path), 1);
    // Damaged saves are listed as unreadable, and never chosen to resume.
    assert!(save::list(dir.path()).unwrap()[0].summary.is_err());
    assert!(matches!(save::latest_unfinished(dir.path()), Err(SaveError::NoneToResume(_))));
}

#[test]
fn a_save_of_another_format_is_refused_with_its_version() {
    let dir = tempfile::tempdir().unwrap();
    let (path, bytes) = some_save(dir.path());
    let other = save::SAVE_FORMAT + 1;
    let text = String::from_utf8(bytes).unwrap().replacen(
        &format!("\"fairdeck_save\":{}", save::SAVE_FORMAT),
        &format!("\"fairdeck_save\":{other}"),
        1,
    );
    std::fs::write(&path, text).unwrap();
    let error = save::load(&path).unwrap_err();
    assert!(matches!(error, SaveError::Format { found, .. } if found == other), "{error:?}");
    assert!(error.to_string().contains(&format!("format {other}")), "{error}");
}

/// The guest as the session runs it: every frame it gives the network leaves only after a snapshot (the save)
/// that covers it; a crash brings back the last snapshot.
struct Guest {
    channel: Channel,
    keys: fairdeck::channel::SavedKeys,
    snapshot: (SavedState, usize, usize),
    /// Each crash's restore draws a run of its own: its seed, never one the channels were made with.
    run_seed: u8,
    /// Messages the application took from the channel, and how many of its own it has handed to it.
    received: Vec<Vec<u8>>,
    sent: usize,
}

impl Guest {
    /// What the session does after each event: messages to the application, a snapshot, then the frames.
    fn poll_frames(&mut self) -> Vec<Vec<u8>> {
        let frames = drain(&mut self.channel);
        self.received.extend(messages(&mut self.channel));
        let progress = self.channel.progress();
        let state = SavedState {
            progress,
            unacked: self.channel.sealed_from(progress.acked).map(<[u8]>::to_vec).collect(),
            partial: self.channel.partial_message().to_vec(),
            peer_runs: self.channel.peer_runs_from(0).copied().collect(),
        };
        self.snapshot = (state, self.received.len(), self.sent);
        frames
    }

    fn crash(&mut self) {
        let (state, received, sent) = self.snapshot.clone();
        self.run_seed += 1;
        self.channel = Channel::restore(&self.keys, state, [self.run_seed; 32]);
        self.channel.set_max_frame_bytes(256);
        self.received.truncate(received);
        self.sent = sent;
        self.channel.resend_unacked();
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(128))]
    /// Whatever each direction of the network does on its own (delay, reorder, drop, duplicate) and wherever the
    /// guest crashes, both sides get every message of the other exactly once, in order.
    #[test]
    fn crashes_and_any_delivery_order_lose_and_repeat_nothing(
        steps in proptest::collection::vec((0u8..9, 0usize..64), 1..160),
    ) {
        let (mut host, guest) = established();
        host.set_max_frame_bytes(256);
        let keys = guest.saved_keys().unwrap();
        let mut guest = Guest {
            snapshot: (SavedState { progress: guest.progress(), ..SavedState::default() }, 0, 0),
            run_seed: 100,
            channel: guest,
            keys,
            received: Vec::new(),
            sent: 0,
        };
        guest.channel.set_max_frame_bytes(256);
        let to_host_message = |i: usize| vec![i as u8; 1 + i * 37 % 700];
        let to_guest_message = |i: usize| vec![(i as u8) ^ 0x5a; 1 + i * 53 % 900];
        let (mut host_sent, mut host_received) = (0usize, Vec::new());
        // Frames on the wire, each direction its own.
        let (mut to_guest, mut to_host): (Vec<Vec<u8>>, Vec<Vec<u8>>) = (Vec::new(), Vec::new());
        for (op, pick) in steps {
            match op {
                0 => {
                    host.send(to_guest_message(host_sent)).unwrap();
                    host_sent += 1;
                }
                1 => {
                    guest.channel.send(to_host_message(guest.sent)).unwrap();
                    guest.sent += 1;
                }
                2 => to_guest.extend(drain(&mut host)),
                3 => to_host.extend(guest.poll_frames()),
                4 | 5 if !to_guest.is_empty() => {
                    let frame = to_guest.remove(pick % to_guest.len());
                    guest.channel.handle_frame(&frame).unwrap();
                    to_host.extend(guest.poll_frames());
                }
                6 if !to_host.is_empty() => {
                    let frame = to_host.remove(pick % to_host.len());
                    host.handle_frame(&frame).unwrap();
                    host_received.extend(messages(&mut host));
                }
                7 if !to_host.is_empty() => {
                    // Duplicated, or dropped, on the way.
                    let frame = to_host[pick % to_host.len()].clone();
                    if pick % 2 == 0 { to_host.push(frame) } else { to_host.retain(|f| *f != frame) }
                }
                8 => {
                    guest.crash();
                    host.resend_unacked();
                }
                _ => {}
            }
        }
        // The network settles: everything in flight arrives, then both resend until quiet.
        for frame in std::mem::take(&mut to_guest) {
            guest.channel.handle_frame(&frame).unwrap();
        }
        for frame in std::mem::take(&mut to_host) {
            host.handle_frame(&frame).unwrap();
        }
        host.resend_unacked();
        guest.channel.resend_unacked();
        for _ in 0..1000 {
            let (a, b) = (drain(&mut host), guest.poll_frames());
            if a.is_empty() && b.is_empty() {
                break;
            }
            a.iter().for_each(|f| guest.channel.handle_frame(f).unwrap());
            b.iter().for_each(|f| host.handle_frame(f).unwrap());
            host_received.extend(messages(&mut host));
        }
        guest.received.extend(messages(&mut guest.channel));
        let expected_guest: Vec<Vec<u8>> = (0..host_sent).map(to_guest_message).collect();
        let expected_host: Vec<Vec<u8>> = (0..guest.sent).map(to_host_message).collect();
        proptest::prop_assert_eq!(guest.received, expected_guest);
        proptest::prop_assert_eq!(host_received, expected_host);
    }
}
