//! The player's side of watching, sans-IO: a [`WatchHub`] holds one end-to-end channel per spectator (this
//! side the host of each, the watch code's words its password, the watch nameplate its identity) and the
//! envelopes of the engine's record, each with the turn it was seen in. Every spectator gets, from the game's
//! first message on, every envelope both players exchanged, in the order this player's engine handled them,
//! once the delay has passed: with a delay of D turns, nothing seen in turn N leaves before D more turns have
//! started (D = 0: at once). The delay is kept here, on the player's side: a spectator never has what it may
//! not see yet.
//!
//! Frames on the watch link are `[K] ++ payload` both ways, K the spectator's watch seat (docs/RELAY.md).
//!
//! Each spectator's HELLO answered is one guess of the watch code's words: the player's CONFIRM lets the
//! spectator check its words offline. An opening that ends without proving the code (a wrong CONFIRM, another
//! HELLO at its seat, the spectator gone) is counted; after [`WRONG_WATCH_CODES_PER_CODE`] the watch code takes
//! no more openings, on any seat, until the player makes new words ([`WatchHub::renew`]).

use std::collections::{BTreeMap, VecDeque};

use fairdeck_shared::Seat;
use fairdeck_shared::crypto::{Group, Modp2048, Ristretto255, Suite};
use fairdeck_shared::observer::Observer;
use fairdeck_shared::wire::{Envelope, encode_envelope};
use rand_chacha::ChaCha20Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};
use serde::Serialize;

use super::feed::{Feed, MAX_DELAY};
use crate::channel::{Channel, ChannelError, Side};
use crate::code::Code;

/// Openings of one watch code that may fail before it takes no more. Each is one guess of two words of 256, one
/// chance in 65,536: a guesser's odds against one watch code are at most 3 in 65,536, as against a game code.
pub const WRONG_WATCH_CODES_PER_CODE: u32 = 3;

/// How an opening ended without proving the watch code, once the player's CONFIRM had gone to the spectator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OpeningFailure {
    /// The spectator's CONFIRM was not the player's: other words.
    WrongCode,
    /// Another HELLO came at its seat: another spectator there, or the same one guessing again.
    Replaced,
    /// The spectator left its seat.
    Left,
    /// The spectator broke the channel (a malformed or altered frame).
    Broken,
}

/// An opening of the watch code that failed (from [`WatchHub::poll_failed_opening`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FailedOpening {
    /// The spectator's watch seat.
    pub watcher: u8,
    pub failure: OpeningFailure,
    /// Failed openings of this watch code so far, this one included.
    pub attempts: u32,
    /// The watch code takes no more openings.
    pub closed: bool,
}

/// The player's side of every spectator's channel. See the module documentation.
pub struct WatchHub {
    /// The seat of this hub's player, told to spectators.
    seat: Seat,
    suite: Suite,
    /// The watch code, once the relay gave the nameplate: spectators' channels are made with it.
    code: Option<Code>,
    /// The largest frame the watch link takes.
    max_frame: usize,
    /// The record's envelopes, encoded, each with the turn they were seen in (counted in turn starts).
    seen: Vec<(Seat, Vec<u8>, u64)>,
    /// Turn starts seen: the delay's clock.
    turns: u64,
    /// The engine's turn number when last told, to see a turn start (a new game starts again at 1).
    last_turn: Option<u32>,
    /// Every envelope may go: the game is over, the delay has no more use.
    ended: bool,
    delay: u8,
    spectators: BTreeMap<u8, Spectator>,
    /// Openings of this watch code that failed.
    wrong_codes: u32,
    /// Failed openings not yet polled.
    failed_openings: VecDeque<FailedOpening>,
    rng: ChaCha20Rng,
}

/// One spectator: its channel, and how much of the feed is in it.
struct Spectator {
    channel: Channel,
    /// Envelopes given to the channel.
    sent: usize,
    /// The delay the spectator was last told.
    told_delay: u8,
    /// Its channel failed: nothing more goes to it until it leaves and comes again.
    failed: bool,
}

impl WatchHub {
    /// A hub for the player in `seat` of a game in `suite`; its channels' randomness comes from `seed`.
    pub fn new(seat: Seat, suite: Suite, seed: [u8; 32]) -> WatchHub {
        WatchHub {
            seat,
            suite,
            code: None,
            max_frame: crate::channel::DEFAULT_MAX_FRAME_BYTES,
            seen: Vec::new(),
            turns: 0,
            last_turn: None,
            ended: false,
            delay: 0,
            spectators: BTreeMap::new(),
            wrong_codes: 0,
            failed_openings: VecDeque::new(),
            rng: ChaCha20Rng::from_seed(seed),
        }
    }

    /// The watch link is up with `code` (the relay's watch nameplate and this seat's words), taking frames of
    /// up to `max_frame` bytes. Spectators already known keep their channels: each resends what it lacks.
    pub fn opened(&mut self, code: Code, max_frame: usize) {
        // Under another nameplate the watch seats are another room's: its spectators are all new.
        if self.code.as_ref().is_some_and(|known| known.nameplate() != code.nameplate()) {
            self.spectators.clear();
        }
        self.code = Some(code);
        // The link's byte names the spectator.
        self.max_frame = max_frame.saturating_sub(1);
        for spectator in self.spectators.values_mut() {
            spectator.channel.resend_unacked();
        }
    }

    /// The watch code, once the watch link was opened.
    pub fn code(&self) -> Option<&Code> {
        self.code.as_ref()
    }

    /// New words for the watch code (the player's `new-watch-code`), under the same nameplate: openings are
    /// counted afresh. Spectators who proved the old words watch on; the others' channels are of the old words,
    /// and they come again with the new ones.
    pub fn renew(&mut self, code: Code) {
        self.spectators.retain(|_, spectator| spectator.channel.is_established() && !spectator.failed);
        self.code = Some(code);
        self.wrong_codes = 0;
    }

    /// Whether the watch code takes no more openings: [`WRONG_WATCH_CODES_PER_CODE`] failed.
    pub fn is_closed(&self) -> bool {
        self.wrong_codes >= WRONG_WATCH_CODES_PER_CODE
    }

    /// Takes in the engine's record as it stands and its turn number; `ended`: the game is over.
    pub fn follow(&mut self, record: &[(Seat, Envelope)], turn: u32, ended: bool) {
        if self.last_turn.is_none() {
            // The first record is the game's whole so far (watching wanted only now, or a game resumed): each
            // envelope is put in the turn it was played in, the public table's then, as a spectator's engine finds it.
            let mut seed = [0u8; 32];
            self.rng.fill_bytes(&mut seed);
            let played_turns = match self.suite {
                Suite::Ristretto255 => played_turns::<Ristretto255>(record, seed),
                Suite::Modp2048 => played_turns::<Modp2048>(record, seed),
            };
            for ((from, envelope), played) in record.iter().zip(played_turns) {
                // Past what the observer can follow, the envelope is put in the turn now: held the longest.
                let played = played.unwrap_or(turn);
                if self.last_turn.is_some_and(|last| last != played) {
                    self.turns += 1;
                }
                self.last_turn = Some(played);
                self.seen.push((*from, encode_envelope(envelope), self.turns));
            }
        }
        if self.last_turn.is_some_and(|last| last != turn) {
            self.turns += 1;
        }
        self.last_turn = Some(turn);
        for (from, envelope) in record.iter().skip(self.seen.len()) {
            self.seen.push((*from, encode_envelope(envelope), self.turns));
        }
        self.ended = ended;
        self.feed();
    }

    /// The delay the players chose (the larger of the two choices), in turns.
    pub fn set_delay(&mut self, turns: u8) {
        self.delay = turns.min(MAX_DELAY);
        self.feed();
    }

    /// Spectator `watcher` is at its watch seat: a new one gets a new channel and the feed from the start; one
    /// known (the watch link came back) resends what it lacks.
    pub fn joined(&mut self, watcher: u8) {
        if let Some(spectator) = self.spectators.get_mut(&watcher) {
            spectator.channel.resend_unacked();
            return;
        }
        if let Some(spectator) = self.new_spectator() {
            self.spectators.insert(watcher, spectator);
            self.feed();
        }
    }

    /// Spectator `watcher` left: one at its seat later starts afresh. One that had the player's CONFIRM and had
    /// not proved the code had its guess: counted.
    pub fn left(&mut self, watcher: u8) {
        let Some(spectator) = self.spectators.remove(&watcher) else { return };
        if !spectator.failed && spectator.is_unproven() {
            self.count_failure(watcher, OpeningFailure::Left);
        }
    }

    /// How many spectators have a channel with this side.
    pub fn spectators(&self) -> usize {
        self.spectators.values().filter(|s| !s.failed).count()
    }

    /// A frame of the watch link: `[K] ++ payload` from spectator K. A spectator whose channel fails (a wrong
    /// code, tampering) gets nothing more; one whose first frame does not fit an older channel of its seat (a
    /// new spectator there while the link was down) gets a new channel, while the watch code takes openings.
    pub fn handle_frame(&mut self, frame: &[u8]) {
        let Some((&watcher, payload)) = frame.split_first() else { return };
        let closed = self.is_closed();
        let Some(spectator) = self.spectators.get_mut(&watcher).filter(|s| !s.failed) else { return };
        // A closed code answers no HELLO: its CONFIRM would be one more guess.
        if closed && !spectator.channel.has_peer_hello() {
            return;
        }
        let Err(error) = spectator.channel.handle_frame(payload) else { return };
        spectator.failed = true;
        let replaced = matches!(error, ChannelError::HandshakeChanged(_));
        if spectator.is_unproven() {
            let failure = match error {
                ChannelError::WrongCode => OpeningFailure::WrongCode,
                _ if replaced => OpeningFailure::Replaced,
                _ => OpeningFailure::Broken,
            };
            self.count_failure(watcher, failure);
        }
        // Another HELLO: another spectator at that seat (only then: a frame altered on the way ends the channel).
        if replaced
            && !self.is_closed()
            && let Some(mut fresh) = self.new_spectator()
        {
            if fresh.channel.handle_frame(payload).is_ok() {
                self.spectators.insert(watcher, fresh);
            } else {
                fresh.failed = true;
            }
        }
        self.feed();
    }

    /// The next opening that failed, since the last call.
    #[must_use]
    pub fn poll_failed_opening(&mut self) -> Option<FailedOpening> {
        self.failed_openings.pop_front()
    }

    /// The next frame for the watch link, `[K] ++ payload`.
    pub fn poll_frame(&mut self) -> Option<Vec<u8>> {
        self.code.as_ref()?;
        // A failed channel still gives its CONFIRM after a wrong code, so that the spectator learns it too.
        self.spectators.iter_mut().find_map(|(watcher, spectator)| {
            let payload = spectator.channel.poll_frame()?;
            let mut frame = Vec::with_capacity(1 + payload.len());
            frame.push(*watcher);
            frame.extend_from_slice(&payload);
            Some(frame)
        })
    }

    /// Counts a failed opening at seat `watcher`, and tells it.
    fn count_failure(&mut self, watcher: u8, failure: OpeningFailure) {
        self.wrong_codes += 1;
        let opening = FailedOpening { watcher, failure, attempts: self.wrong_codes, closed: self.is_closed() };
        self.failed_openings.push_back(opening);
    }

    /// A channel for a new spectator, its feed starting; none before the code is known, or once it is closed.
    fn new_spectator(&mut self) -> Option<Spectator> {
        if self.is_closed() {
            return None;
        }
        let code = self.code.as_ref()?;
        let mut seed = [0u8; 32];
        self.rng.fill_bytes(&mut seed);
        let mut channel = Channel::new(Side::Host, &code.password(), code.nameplate(), seed);
        channel.set_max_frame_bytes(self.max_frame);
        let start = Feed::Start { suite: self.suite, seat: self.seat, delay: self.delay };
        // Nothing is sealed before the spectator proved the code; a fresh channel takes any message.
        let _ = channel.send(start.encode());
        Some(Spectator { channel, sent: 0, told_delay: self.delay, failed: false })
    }

    /// How many envelopes may go: those seen `delay` turn starts ago or more, all of them once the game is over.
    fn released(&self) -> usize {
        if self.ended {
            return self.seen.len();
        }
        let now = self.turns;
        let delay = u64::from(self.delay);
        self.seen.partition_point(|(_, _, turn)| turn + delay <= now)
    }

    /// Gives every spectator's channel what it may have now: the delay if it changed, the envelopes released.
    fn feed(&mut self) {
        let released = self.released();
        for spectator in self.spectators.values_mut().filter(|s| !s.failed) {
            if spectator.told_delay != self.delay {
                spectator.told_delay = self.delay;
                let _ = spectator.channel.send(Feed::Delay { turns: self.delay }.encode());
            }
            // A longer delay holds back what comes next; what went is gone.
            for (from, bytes, _) in self.seen.get(spectator.sent..released).unwrap_or_default() {
                let message = Feed::Envelope { from: *from, bytes: bytes.clone() }.encode();
                if spectator.channel.send(message).is_err() {
                    spectator.failed = true;
                    break;
                }
                spectator.sent += 1;
            }
        }
    }
}

impl Spectator {
    /// It had the player's CONFIRM, and so its guess, without proving the code.
    fn is_unproven(&self) -> bool {
        self.channel.has_peer_hello() && !self.channel.is_established()
    }
}

/// The turn number of the public table after each envelope of `record`, as an observer of the game's suite `G` finds
/// it (fed with `seed`); none once it cannot follow (a game it stopped on).
fn played_turns<G: Group>(record: &[(Seat, Envelope)], seed: [u8; 32]) -> Vec<Option<u32>> {
    let mut observer = Observer::<G>::new(seed);
    record
        .iter()
        .map(|(from, envelope)| {
            observer.observe(*from, &encode_envelope(envelope));
            while observer.poll_event().is_some() {}
            let following = observer.halted().is_none() && observer.unsupported().is_none();
            following.then(|| observer.table().turn)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAX_FRAME: usize = 64 * 1024;

    /// A spectator's end of the watch channel, as `fairdeck watch` runs it, with what it was fed.
    struct Watcher {
        seat: u8,
        channel: Channel,
        fed: Vec<Feed>,
    }

    impl Watcher {
        fn new(seat: u8, code: &Code) -> Watcher {
            Watcher {
                seat,
                channel: Channel::new(Side::Guest, &code.password(), code.nameplate(), [seat; 32]),
                fed: Vec::new(),
            }
        }

        /// The envelopes fed so far, by their first byte (the tests' envelopes' numbers).
        fn envelopes(&self) -> Vec<u8> {
            let bodies = self.fed.iter().filter_map(|feed| match feed {
                Feed::Envelope { bytes, .. } => Some(fairdeck_shared::wire::decode_envelope(bytes).unwrap().body[0]),
                _ => None,
            });
            bodies.collect()
        }
    }

    /// Moves frames both ways until nothing moves.
    fn exchange(hub: &mut WatchHub, watchers: &mut [&mut Watcher]) {
        loop {
            let mut moved = false;
            while let Some(frame) = hub.poll_frame() {
                moved = true;
                if let Some(watcher) = watchers.iter_mut().find(|w| w.seat == frame[0]) {
                    watcher.channel.handle_frame(&frame[1..]).unwrap();
                }
            }
            for watcher in watchers.iter_mut() {
                while let Some(payload) = watcher.channel.poll_frame() {
                    moved = true;
                    hub.handle_frame(&[&[watcher.seat][..], &payload].concat());
                }
                while let Some(message) = watcher.channel.poll_message() {
                    watcher.fed.push(Feed::decode(&message).unwrap());
                }
            }
            if !moved {
                return;
            }
        }
    }

    fn envelope(number: u8) -> Envelope {
        Envelope { seq: u64::from(number), ack: 0, chain: [number; 32], body: vec![number], signature: vec![0; 64] }
    }

    fn record(numbers: std::ops::Range<u8>) -> Vec<(Seat, Envelope)> {
        numbers.map(|n| (if n % 2 == 0 { Seat::HOST } else { Seat::GUEST }, envelope(n))).collect()
    }

    #[test]
    fn a_modp2048_record_given_whole_is_placed_by_an_observer_of_its_suite() {
        let record = crate::session::spectators::hellos::<Modp2048>();
        let turns = played_turns::<Modp2048>(&record, [7; 32]);
        assert!(turns.iter().all(Option::is_some), "followed: {turns:?}");
        // An observer of the other suite stops at the first hello: every envelope would go in the turn now.
        assert!(played_turns::<Ristretto255>(&record, [7; 32]).iter().all(Option::is_none));
    }

    fn opened_hub() -> (WatchHub, Code) {
        let mut hub = WatchHub::new(Seat::GUEST, Suite::Ristretto255, [7; 32]);
        let code = Code::from_secret("42", &[3; 32]);
        hub.opened(code.clone(), MAX_FRAME);
        (hub, code)
    }

    #[test]
    fn with_a_delay_of_one_turn_nothing_of_a_turn_goes_before_the_next_turn_starts() {
        let (mut hub, code) = opened_hub();
        hub.set_delay(1);
        hub.joined(0);
        let mut watcher = Watcher::new(0, &code);
        hub.follow(&record(0..3), 1, false);
        exchange(&mut hub, &mut [&mut watcher]);
        assert_eq!(watcher.fed, [Feed::Start { suite: Suite::Ristretto255, seat: Seat::GUEST, delay: 1 }]);
        // More of turn 1: still nothing.
        hub.follow(&record(0..5), 1, false);
        exchange(&mut hub, &mut [&mut watcher]);
        assert_eq!(watcher.envelopes(), Vec::<u8>::new());
        // Turn 2 starts with two more: turn 1's go, turn 2's wait for turn 3.
        hub.follow(&record(0..7), 2, false);
        exchange(&mut hub, &mut [&mut watcher]);
        assert_eq!(watcher.envelopes(), [0, 1, 2, 3, 4]);
        hub.follow(&record(0..7), 3, false);
        exchange(&mut hub, &mut [&mut watcher]);
        assert_eq!(watcher.envelopes(), [0, 1, 2, 3, 4, 5, 6]);
    }

    #[test]
    fn a_record_given_whole_as_a_resumed_game_gives_it_holds_back_only_the_turns_the_delay_covers() {
        use fairdeck_shared::engine::Intent;
        use fairdeck_shared::pair::{Pair, numbered_deck};
        use fairdeck_shared::wire::Action;
        let mut pair = Pair::<Ristretto255>::new(numbered_deck("Host", 10, 0), numbered_deck("Guest", 10, 0), 3);
        pair.drive();
        let chooser = pair.host.chooser().expect("the coin chose");
        let act = |pair: &mut Pair<Ristretto255>, action| {
            pair.intent(chooser, Intent::Act(action)).unwrap();
            pair.drive();
            pair.guest.record().len()
        };
        act(&mut pair, Action::PlayOrDraw { play: true });
        let turn_one = act(&mut pair, Action::Draw { count: 1 });
        let turn_two = act(&mut pair, Action::NextTurn);
        assert_eq!(pair.guest.table().turn, 2);
        let (mut hub, code) = opened_hub();
        hub.set_delay(1);
        hub.joined(0);
        let mut watcher = Watcher::new(0, &code);
        hub.follow(pair.guest.record(), 2, false);
        exchange(&mut hub, &mut [&mut watcher]);
        // Everything before turn 2 began goes; the next-turn and what followed it wait for turn 3.
        let sent = watcher.fed.iter().filter(|feed| matches!(feed, Feed::Envelope { .. })).count();
        assert!(sent >= turn_one && sent < turn_two, "{sent} of {turn_two}, turn 1 ending at {turn_one}");
    }

    #[test]
    fn without_a_delay_every_envelope_goes_at_once_and_the_end_of_the_game_lets_all_go() {
        let (mut hub, code) = opened_hub();
        hub.joined(3);
        let mut watcher = Watcher::new(3, &code);
        hub.follow(&record(0..2), 0, false);
        exchange(&mut hub, &mut [&mut watcher]);
        assert_eq!(watcher.envelopes(), [0, 1]);
        hub.set_delay(2);
        hub.follow(&record(0..4), 0, false);
        exchange(&mut hub, &mut [&mut watcher]);
        assert_eq!(watcher.envelopes(), [0, 1]);
        assert!(watcher.fed.contains(&Feed::Delay { turns: 2 }));
        hub.follow(&record(0..4), 0, true);
        exchange(&mut hub, &mut [&mut watcher]);
        assert_eq!(watcher.envelopes(), [0, 1, 2, 3]);
    }

    #[test]
    fn a_late_spectator_gets_everything_from_the_start_and_one_that_comes_back_starts_afresh() {
        let (mut hub, code) = opened_hub();
        hub.follow(&record(0..6), 4, false);
        hub.joined(1);
        let mut late = Watcher::new(1, &code);
        exchange(&mut hub, &mut [&mut late]);
        assert_eq!(late.envelopes(), [0, 1, 2, 3, 4, 5]);
        assert_eq!(hub.spectators(), 1);
        hub.left(1);
        hub.joined(1);
        let mut again = Watcher::new(1, &code);
        exchange(&mut hub, &mut [&mut again]);
        assert_eq!(again.envelopes(), [0, 1, 2, 3, 4, 5]);
    }

    #[test]
    fn another_spectator_at_a_known_seat_after_the_link_came_back_gets_a_channel_of_its_own() {
        let (mut hub, code) = opened_hub();
        hub.follow(&record(0..3), 1, false);
        hub.joined(2);
        let mut first = Watcher::new(2, &code);
        exchange(&mut hub, &mut [&mut first]);
        assert_eq!(first.envelopes(), [0, 1, 2]);
        // The watch link dropped; the first spectator left meanwhile and another took its seat: the relay tells
        // the link that came back of spectator 2, whose HELLO is not the one its channel knows.
        hub.opened(code.clone(), MAX_FRAME);
        hub.joined(2);
        let mut second =
            Watcher { seat: 2, channel: Channel::new(Side::Guest, &code.password(), "42", [9; 32]), fed: Vec::new() };
        exchange(&mut hub, &mut [&mut second]);
        assert_eq!(second.envelopes(), [0, 1, 2], "the feed from the start");
        assert_eq!(hub.spectators(), 1);
    }

    #[test]
    fn a_spectator_with_another_code_gets_nothing_and_the_others_go_on() {
        let (mut hub, code) = opened_hub();
        hub.follow(&record(0..2), 1, false);
        hub.joined(0);
        hub.joined(1);
        let mut honest = Watcher::new(0, &code);
        let mut guesser = Watcher::new(1, &Code::from_secret("42", &[4; 32]));
        // The guesser's channel fails too (`handle_frame` errors): moved by hand.
        for _ in 0..4 {
            while let Some(frame) = hub.poll_frame() {
                let watcher = if frame[0] == 0 { &mut honest } else { &mut guesser };
                let _ = watcher.channel.handle_frame(&frame[1..]);
            }
            for watcher in [&mut honest, &mut guesser] {
                while let Some(payload) = watcher.channel.poll_frame() {
                    hub.handle_frame(&[&[watcher.seat][..], &payload].concat());
                }
            }
        }
        assert!(guesser.channel.poll_message().is_none());
        assert_eq!(hub.spectators(), 1);
        exchange(&mut hub, &mut [&mut honest]);
        assert_eq!(honest.envelopes(), [0, 1]);
    }

    /// One guess of the words at seat `seat`, as the proof of concept of issue 47 made them: only the guesser's
    /// HELLO goes to the hub, and the guess is checked offline against the hub's CONFIRM. Whether it could be.
    fn guess(hub: &mut WatchHub, seat: u8, words: &Code, seed: u8) -> bool {
        let mut guesser = Channel::new(Side::Guest, &words.password(), words.nameplate(), [seed; 32]);
        let hello = guesser.poll_frame().expect("the guesser's HELLO");
        hub.handle_frame(&[&[seat][..], &hello].concat());
        let mut checked = false;
        while let Some(frame) = hub.poll_frame().filter(|frame| frame[0] == seat) {
            // The hub's CONFIRM tells a wrong guess (`WrongCode`) from a right one (the channel established).
            checked |= match guesser.handle_frame(&frame[1..]) {
                Err(error) => error == ChannelError::WrongCode,
                Ok(()) => guesser.is_established(),
            };
        }
        checked
    }

    #[test]
    fn a_guesser_at_one_seat_checks_three_words_and_then_none_even_the_right_ones() {
        let (mut hub, code) = opened_hub();
        hub.follow(&record(0..2), 1, false);
        hub.joined(0);
        let mut honest = Watcher::new(0, &code);
        exchange(&mut hub, &mut [&mut honest]);
        hub.joined(1);
        let wrong = |n: u8| Code::from_secret("42", &[n; 32]);
        let checked = (10..110).filter(|&n| guess(&mut hub, 1, &wrong(n), n)).count();
        assert_eq!(checked, 3, "one guess per CONFIRM, three CONFIRMs per watch code");
        assert!(!guess(&mut hub, 1, &code, 200), "the right words are refused too, once the code is closed");
        // Another seat too: no channel, no HELLO answered.
        hub.joined(2);
        assert!(!guess(&mut hub, 2, &code, 201));
        // The spectator who proved the code watches on.
        hub.follow(&record(0..4), 1, false);
        exchange(&mut hub, &mut [&mut honest]);
        assert_eq!(honest.envelopes(), [0, 1, 2, 3]);
        assert_eq!(hub.spectators(), 1);
    }

    #[test]
    fn failed_openings_are_told_with_their_seat_and_the_code_closes_at_the_third() {
        let (mut hub, _) = opened_hub();
        let wrong = Code::from_secret("42", &[4; 32]);
        // A wrong CONFIRM; a HELLO replaced by another; a spectator gone with its guess.
        hub.joined(0);
        let mut typo = Watcher::new(0, &wrong);
        for _ in 0..3 {
            while let Some(frame) = hub.poll_frame() {
                let _ = typo.channel.handle_frame(&frame[1..]);
            }
            while let Some(payload) = typo.channel.poll_frame() {
                hub.handle_frame(&[&[0][..], &payload].concat());
            }
        }
        hub.joined(1);
        assert!(guess(&mut hub, 1, &wrong, 10));
        assert!(guess(&mut hub, 1, &wrong, 11));
        hub.left(1);
        let failed: Vec<_> = std::iter::from_fn(|| hub.poll_failed_opening()).collect();
        let told = |watcher, failure, attempts, closed| FailedOpening { watcher, failure, attempts, closed };
        assert_eq!(
            failed,
            [
                told(0, OpeningFailure::WrongCode, 1, false),
                told(1, OpeningFailure::Replaced, 2, false),
                told(1, OpeningFailure::Left, 3, true),
            ]
        );
        assert!(hub.is_closed());
        // New words: the count starts again, and a spectator with them watches.
        let renewed = Code::from_secret("42", &[5; 32]);
        hub.renew(renewed.clone());
        assert!(!hub.is_closed());
        hub.left(0);
        hub.joined(0);
        let mut spectator = Watcher::new(0, &renewed);
        exchange(&mut hub, &mut [&mut spectator]);
        assert!(spectator.channel.is_established());
        assert_eq!(hub.poll_failed_opening(), None);
    }
}
