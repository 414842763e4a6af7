//! A save used twice, or an older copy of it: every restore seals in a run of its own, so no key and nonce ever
//! seal two plaintexts, and the opponent stops on the fork with a clear error instead of taking either side.

use std::collections::HashMap;
use std::path::Path;

use fairdeck::channel::{Channel, ChannelError, RUN_ID_LEN, Side};
use fairdeck::save::{RelayPlace, SaveFile, Standing, Status};
use fairdeck_shared::Seat;
use fairdeck_shared::crypto::Ristretto255;
use fairdeck_shared::engine::{Engine, EngineConfig};
use fairdeck_shared::journal::Journal;
use proptest::prelude::*;

const WORDS: &str = "purple-sausage";

fn drain(channel: &mut Channel) -> Vec<Vec<u8>> {
    std::iter::from_fn(|| channel.poll_frame()).collect()
}

fn messages(channel: &mut Channel) -> Vec<Vec<u8>> {
    std::iter::from_fn(|| channel.poll_message()).collect()
}

fn deliver(to: &mut Channel, frames: &[Vec<u8>]) -> Result<(), ChannelError> {
    frames.iter().try_for_each(|frame| to.handle_frame(frame))
}

fn established() -> (Channel, Channel) {
    let mut host = Channel::new(Side::Host, WORDS, "7", [1; 32]);
    let mut guest = Channel::new(Side::Guest, WORDS, "7", [2; 32]);
    for _ in 0..10 {
        let (to_guest, to_host) = (drain(&mut host), drain(&mut guest));
        deliver(&mut guest, &to_guest).unwrap();
        deliver(&mut host, &to_host).unwrap();
    }
    assert!(host.is_established() && guest.is_established());
    (host, guest)
}

/// A fresh journal of `seat`, as the engine starts it.
fn journal_of(seat: Seat) -> Journal {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/decks/burn.txt")).unwrap();
    let deck = fairdeck::deck::parse_deck("burn.txt", &text).unwrap().to_deck_list();
    let config = EngineConfig { name: "Bea".into(), software: "test".into() };
    Engine::<Ristretto255>::new(seat, config, deck, [9; 32]).unwrap().journal().clone()
}

fn journal() -> Journal {
    journal_of(Seat::GUEST)
}

fn standing() -> Standing {
    Standing {
        relay: RelayPlace { url: "ws://127.0.0.1:7171/v1".into(), ca: None, token: None, serve: None },
        status: Status::Playing,
        opponent: Some("Ada".into()),
        moves: 0,
        record: None,
    }
}

/// Every (key, nonce) a sender used: data and ack frames by run, type and number. Panics if one sealed two
/// different frames.
#[derive(Default)]
struct Nonces(HashMap<(u8, [u8; RUN_ID_LEN], u64), Vec<u8>>);

impl Nonces {
    fn record(&mut self, frames: &[Vec<u8>]) {
        for frame in frames.iter().filter(|f| matches!(f[0], 3 | 4)) {
            let run: [u8; RUN_ID_LEN] = frame[1..1 + RUN_ID_LEN].try_into().unwrap();
            let number = u64::from_be_bytes(frame[1 + RUN_ID_LEN..9 + RUN_ID_LEN].try_into().unwrap());
            let used = self.0.entry((frame[0], run, number)).or_insert_with(|| frame.clone());
            assert_eq!(used, frame, "a key and nonce sealed two different frames");
        }
    }
}

/// The guest sends `text`, saved before it leaves, and the frames it gave the relay.
fn send(guest: &mut Channel, save: &mut SaveFile, text: &str, nonces: &mut Nonces) -> Vec<Vec<u8>> {
    guest.send(text.as_bytes().to_vec()).unwrap();
    let frames = drain(guest);
    save.commit(&journal(), guest, standing()).unwrap();
    nonces.record(&frames);
    frames
}

/// A process resuming the save at `path`, its run drawn from `seed`.
fn resumed(path: &Path, seed: u8) -> (Channel, SaveFile) {
    let (save, saved) = SaveFile::open(path).unwrap();
    let mut channel = saved.restore_channel([seed; 32]);
    channel.resend_unacked();
    (channel, save)
}

/// A game whose guest saves in `dir` has sent `first` to the host: the host, the guest, its save and the nonces
/// used so far.
fn game_with_a_saved_guest(dir: &Path, first: &str) -> (Channel, Channel, SaveFile, Nonces) {
    let (mut host, mut guest) = established();
    let mut save = SaveFile::create(dir, &journal(), &guest, standing()).unwrap();
    let mut nonces = Nonces::default();
    let frames = send(&mut guest, &mut save, first, &mut nonces);
    deliver(&mut host, &frames).unwrap();
    assert_eq!(messages(&mut host), [first.as_bytes().to_vec()]);
    (host, guest, save, nonces)
}

#[test]
fn one_save_resumed_twice_seals_in_two_runs_and_the_opponent_stops_on_the_fork() {
    let dir = tempfile::tempdir().unwrap();
    let (mut host, guest, save, mut nonces) = game_with_a_saved_guest(dir.path(), "before the crash");
    let path = save.path().to_path_buf();
    drop((guest, save));

    // Two processes resume the same save (a copy of it: the save itself is locked by the first) and each says
    // something else.
    let copy = dir.path().join("copy.fairdeck");
    std::fs::copy(&path, &copy).unwrap();
    let (mut first, mut first_save) = resumed(&path, 5);
    let (mut second, mut second_save) = resumed(&copy, 6);
    assert_ne!(first.run(), second.run());
    let from_first = send(&mut first, &mut first_save, "from the first", &mut nonces);
    let from_second = send(&mut second, &mut second_save, "from the second", &mut nonces);

    deliver(&mut host, &from_first).unwrap();
    assert_eq!(messages(&mut host), [b"from the first".to_vec()]);
    // The second's frame bears the number the first used: a fork, fatal, and nothing of it is delivered.
    let fork = deliver(&mut host, &from_second).unwrap_err();
    assert!(matches!(fork, ChannelError::Forked { .. }), "{fork:?}");
    assert!(messages(&mut host).is_empty());
    assert!(fork.to_string().contains("used twice"), "{fork}");
}

#[test]
fn an_older_copy_of_a_save_never_reuses_a_nonce_and_is_caught() {
    let dir = tempfile::tempdir().unwrap();
    let (mut host, mut guest, mut save, mut nonces) = game_with_a_saved_guest(dir.path(), "one");
    let path = save.path().to_path_buf();
    let backup = dir.path().join("backup.fairdeck");
    std::fs::copy(&path, &backup).unwrap();

    // The game goes on past the backup, through a crash and an honest resume.
    let frames = send(&mut guest, &mut save, "two", &mut nonces);
    deliver(&mut host, &frames).unwrap();
    drop((guest, save));
    let (mut guest, mut save) = resumed(&path, 7);
    let frames = send(&mut guest, &mut save, "three", &mut nonces);
    deliver(&mut host, &frames).unwrap();
    assert_eq!(messages(&mut host), [b"two".to_vec(), b"three".to_vec()]);
    drop((guest, save));

    // The backup is restored and resumed.
    let (mut old, mut old_save) = resumed(&backup, 8);
    let frames = send(&mut old, &mut old_save, "a different two", &mut nonces);
    let fork = deliver(&mut host, &frames).unwrap_err();
    assert!(matches!(fork, ChannelError::Forked { seq: 1 }), "{fork:?}");
    assert!(messages(&mut host).is_empty());
}

#[test]
fn acknowledgements_must_grow() {
    let (mut host, mut guest) = established();
    for text in ["a", "b"] {
        host.send(text.as_bytes().to_vec()).unwrap();
    }
    let frames = drain(&mut host);
    deliver(&mut guest, &frames[..1]).unwrap();
    let first_ack = drain(&mut guest);
    deliver(&mut guest, &frames[1..]).unwrap();
    let second_ack = drain(&mut guest);
    assert_eq!((first_ack.len(), second_ack.len()), (1, 1));
    // In order, then a replay of the older one: it moves nothing and is no error.
    deliver(&mut host, &second_ack).unwrap();
    assert_eq!(host.unacked_frames(), 0);
    deliver(&mut host, &first_ack).unwrap();
    assert_eq!(host.error(), None);

    // A guest that forgot the second message (an older copy of its save) acknowledges less under a newer
    // number: fatal.
    let dir = tempfile::tempdir().unwrap();
    let (mut host, mut guest) = established();
    let mut save = SaveFile::create(dir.path(), &journal(), &guest, standing()).unwrap();
    let path = save.path().to_path_buf();
    host.send(b"a".to_vec()).unwrap();
    deliver(&mut guest, &drain(&mut host)).unwrap();
    let old = dir.path().join("old.fairdeck");
    save.commit(&journal(), &guest, standing()).unwrap();
    std::fs::copy(&path, &old).unwrap();
    let ack = drain(&mut guest);
    save.commit(&journal(), &guest, standing()).unwrap();
    deliver(&mut host, &ack).unwrap();
    host.send(b"b".to_vec()).unwrap();
    deliver(&mut guest, &drain(&mut host)).unwrap();
    let ack = drain(&mut guest);
    save.commit(&journal(), &guest, standing()).unwrap();
    deliver(&mut host, &ack).unwrap();
    // The old copy's ack frames are numbered from where it stood: the first two bear the real ones' numbers
    // and are taken for old ones; the third is newer and acknowledges less than the real second did.
    let (mut stale, _stale_save) = resumed(&old, 9);
    let mut stale_acks = drain(&mut stale);
    stale.resend_unacked();
    stale_acks.extend(drain(&mut stale));
    stale.resend_unacked();
    stale_acks.extend(drain(&mut stale));
    let went_back = deliver(&mut host, &stale_acks).unwrap_err();
    assert!(matches!(went_back, ChannelError::AckWentBack { ack: 1, before: 2 }), "{went_back:?}");
}

#[derive(Clone, Debug)]
enum Step {
    /// A side sends a message of this length.
    Send(bool, u8),
    /// A frame in flight to a side is delivered, duplicated or dropped.
    Deliver(bool, usize),
    Duplicate(bool, usize),
    Drop(bool, usize),
    /// A side's process dies and its latest save is resumed.
    Crash(bool),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        3 => (any::<bool>(), 0u8..200).prop_map(|(host, len)| Step::Send(host, len)),
        6 => (any::<bool>(), any::<usize>()).prop_map(|(host, i)| Step::Deliver(host, i)),
        1 => (any::<bool>(), any::<usize>()).prop_map(|(host, i)| Step::Duplicate(host, i)),
        1 => (any::<bool>(), any::<usize>()).prop_map(|(host, i)| Step::Drop(host, i)),
        1 => any::<bool>().prop_map(Step::Crash),
    ]
}

/// One player: its channel, its save, what it sent.
struct Player {
    channel: Channel,
    /// None only while its process is down.
    save: Option<SaveFile>,
    sent: Vec<Vec<u8>>,
    seed: u8,
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Honest players who crash and resume their latest save, over a relay that reorders, duplicates and drops,
    /// are never taken for a fork; no nonce is used twice; every message arrives once, in order.
    #[test]
    fn honest_resumes_in_any_delivery_order_are_never_a_fork(steps in proptest::collection::vec(step(), 1..120)) {
        let dir = tempfile::tempdir().unwrap();
        let (host, guest) = established();
        let journals = [journal_of(Seat::HOST), journal_of(Seat::GUEST)];
        // Each restore's seed is new: the host's from 10 on, the guest's from 100 on.
        let mut players = [(host, &journals[0], 10), (guest, &journals[1], 100)].map(|(channel, journal, seed)| {
            let save = SaveFile::create(dir.path(), journal, &channel, standing()).unwrap();
            Player { channel, save: Some(save), sent: Vec::new(), seed }
        });
        // Frames in flight to each side: to the host first.
        let mut flight: [Vec<Vec<u8>>; 2] = [Vec::new(), Vec::new()];
        let mut nonces = [Nonces::default(), Nonces::default()];
        let mut received: [Vec<Vec<u8>>; 2] = [Vec::new(), Vec::new()];
        for step in steps {
            match step {
                Step::Send(host, len) => {
                    let p = &mut players[usize::from(!host)];
                    let message = vec![len; usize::from(len)];
                    p.channel.send(message.clone()).unwrap();
                    p.sent.push(message);
                }
                Step::Deliver(host, i) | Step::Duplicate(host, i) | Step::Drop(host, i) => {
                    let to = usize::from(!host);
                    if flight[to].is_empty() {
                        continue;
                    }
                    let i = i % flight[to].len();
                    let frame = if matches!(step, Step::Duplicate(..)) { flight[to][i].clone() } else { flight[to].remove(i) };
                    if !matches!(step, Step::Drop(..)) {
                        prop_assert_eq!(players[to].channel.handle_frame(&frame), Ok(()));
                    }
                }
                Step::Crash(host) => {
                    let p = &mut players[usize::from(!host)];
                    p.seed += 1;
                    let path = p.save.take().unwrap().path().to_path_buf();
                    let (save, saved) = SaveFile::open(&path).unwrap();
                    p.channel = saved.restore_channel([p.seed; 32]);
                    p.save = Some(save);
                    p.channel.resend_unacked();
                    players[usize::from(host)].channel.resend_unacked();
                }
            }
            for (from, to) in [(0, 1), (1, 0)] {
                let p = &mut players[from];
                received[from].extend(messages(&mut p.channel));
                let frames = drain(&mut p.channel);
                // Saved before anything leaves, as the session does.
                p.save.as_mut().unwrap().commit(&journals[from], &p.channel, standing()).unwrap();
                nonces[from].record(&frames);
                flight[to].extend(frames);
            }
        }
        // The relay settles: everything in flight arrives, and each side resends what is unacknowledged.
        for _ in 0..50 {
            for side in 0..2 {
                for frame in std::mem::take(&mut flight[side]) {
                    prop_assert_eq!(players[side].channel.handle_frame(&frame), Ok(()));
                }
            }
            for (from, to) in [(0, 1), (1, 0)] {
                let p = &mut players[from];
                p.channel.resend_unacked();
                received[from].extend(messages(&mut p.channel));
                let frames = drain(&mut p.channel);
                p.save.as_mut().unwrap().commit(&journals[from], &p.channel, standing()).unwrap();
                nonces[from].record(&frames);
                flight[to].extend(frames);
            }
        }
        prop_assert_eq!(&received[0], &players[1].sent);
        prop_assert_eq!(&received[1], &players[0].sent);
    }
}
