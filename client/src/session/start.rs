//! Starting a session: hosting or joining with a deck (the first connection, the room, the code), or going
//! on with a saved game; and ending it, the journal written to `--record`'s file.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use fairdeck_shared::Seat;
use fairdeck_shared::crypto::{Group, Modp2048, Ristretto255, Suite};
use fairdeck_shared::engine::{Engine, EngineConfig, Event, LimitedConfig, PoolList, PoolSource};
use fairdeck_shared::journal::{self, Journal};
use fairdeck_shared::pool::set::MAX_SET_FILE_BYTES;
use fairdeck_shared::wire::{LimitedFormat, PoolHash};
use rand::Rng;
use sha2::{Digest, Sha256};

use super::core::SessionCore;
use super::disk::{deck_warnings, read_checked_deck};
use super::error::SessionError;
use super::event_loop::Driver;
use super::frontend::{Frontend, Output};
use super::link::Link;
use super::reconnect::{LONGEST_RETRY, RECONNECT_FOR};
use super::relay::{Opened, SOFTWARE, Ws, create_room, join_room, open_relay};
use super::saving::Saver;
use super::state::Meeting;
use super::uplink::{LinkState, Uplink};
use super::wait_clock::{FORFEIT_GRACE, FORFEIT_GRACE_VARIABLE};
use super::watch_link::WatchLink;
use crate::channel::{Channel, Side};
use crate::code::{self, Code};
use crate::command::{self, Command};
use crate::deck::{cockatrice_hash, parse_deck};
use crate::save::{self, RelayPlace, SaveFile, Saved};
use crate::serve::Served;
use crate::tls::client_config;

/// The relay a session uses unless told otherwise.
pub const DEFAULT_RELAY: &str = "ws://127.0.0.1:7171/v1";

/// What a player brings to a new match.
#[derive(Clone, Debug)]
pub enum Brought {
    /// A deck file: constructed play.
    Deck(PathBuf),
    /// A pool file (a cube list, or an MTGJSON set file) for limited play: the host's with the format it offers.
    Pool { file: PathBuf, offer: Option<Offer> },
}

/// The limited format a host offers, as its command line asks for it: what it deals depends on the pool file.
#[derive(Clone, Copy, Debug)]
pub enum Offer {
    /// Sealed: `cards` cards of a cube each, or `boosters` boosters of a set each.
    Sealed { cards: u32, boosters: u32 },
    /// Uniform: both build from the whole cube list.
    Uniform,
    /// Grid draft of `grids` grids from a cube.
    Grid { grids: u32 },
    /// Winston draft of `cards` cards of a cube (the whole cube, at most 90, when none is given).
    Winston { cards: Option<u32> },
    /// Booster draft of `packs` packs each: of `cards` cards of a cube (15 when none is given), or a set's boosters.
    Draft { packs: u32, cards: Option<u32> },
}

/// A cube's pack in a booster draft, unless the host says otherwise: a booster's size.
const PACK_SIZE: u32 = 15;

impl Offer {
    /// The format offered from the pool file read; refused when the file cannot give what was asked.
    fn format(self, source: &PoolSource) -> Result<LimitedFormat, String> {
        Ok(match (self, source) {
            (Offer::Sealed { boosters, .. }, PoolSource::Set(_)) => LimitedFormat::SealedBoosters { boosters },
            (Offer::Sealed { cards, .. }, PoolSource::Cube(_)) => LimitedFormat::Sealed { cards },
            (Offer::Uniform, _) => LimitedFormat::Uniform,
            (Offer::Grid { grids }, _) => LimitedFormat::Grid { grids },
            (Offer::Winston { cards }, source) => {
                let listed = match source {
                    PoolSource::Cube(cards) => cards.len() as u32,
                    PoolSource::Set(_) => 0,
                };
                LimitedFormat::Winston { cards: cards.unwrap_or(listed.min(90)) }
            }
            (Offer::Draft { packs, cards }, PoolSource::Cube(_)) => {
                LimitedFormat::Draft { packs, cards: cards.unwrap_or(PACK_SIZE) }
            }
            (Offer::Draft { packs, cards: None }, PoolSource::Set(_)) => LimitedFormat::BoosterDraft { packs },
            (Offer::Draft { cards: Some(_), .. }, PoolSource::Set(_)) => {
                return Err("--pack-size is for a cube: a set's boosters hold what the set file says".into());
            }
        })
    }
}

/// Which seat to take.
#[derive(Clone, Debug)]
pub enum Role {
    /// Open a room and print the code to share; the game is played in `suite`.
    Host { brought: Brought, suite: Suite },
    /// Join the room of this code.
    Join { code: String, brought: Brought },
    /// Go on with a saved game: this file, or the most recently played unfinished one.
    Resume { file: Option<PathBuf> },
}

/// What a session needs from the command line.
#[derive(Clone, Debug)]
pub struct Options {
    pub role: Role,
    /// The relay. A resumed game uses its own unless this is set.
    pub relay: Option<String>,
    /// Hosting with no relay to reach (`--serve`): serve one in this program, listening here.
    pub serve: Option<SocketAddr>,
    /// Where games are saved as they go ([`save::games_dir`]).
    pub games: PathBuf,
    /// The player's name shown to the opponent.
    pub name: String,
    /// Where to write the game's journal when the session ends (`fairdeck verify` reads it).
    pub record: Option<PathBuf>,
    /// Untap and draw for the player when the opponent passes the turn to it (the configuration's `untap_draw`).
    pub untap_draw: bool,
    /// A PEM file of CA certificates to trust for a `wss://` relay, besides the public roots.
    pub ca: Option<PathBuf>,
}

/// 32 bytes of the operating system's randomness: the seed of an engine or of a key exchange.
pub(crate) fn os_seed() -> [u8; 32] {
    let mut seed = [0u8; 32];
    rand::rng().fill_bytes(&mut seed);
    seed
}

/// The grace of this process: [`FORFEIT_GRACE`], unless [`FORFEIT_GRACE_VARIABLE`] holds a number of seconds.
fn forfeit_grace() -> Duration {
    std::env::var(FORFEIT_GRACE_VARIABLE)
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .map_or(FORFEIT_GRACE, Duration::from_secs)
}

/// Reads a pool file: an MTGJSON set file (JSON, which the engine reads), or any deck file, each copy a card of the
/// pool (main deck, sideboard and commanders alike); and the hash of its bytes, which both players' files must share.
pub(super) fn read_pool(path: &Path) -> Result<PoolList, SessionError> {
    let pool_error = |reason: String| SessionError::PoolFile { path: path.display().to_string(), reason };
    let bytes = crate::file::read_at_most(path, MAX_SET_FILE_BYTES as u64).map_err(|e| pool_error(e.to_string()))?;
    let hash = PoolHash(Sha256::digest(&bytes).into());
    if bytes.trim_ascii_start().starts_with(b"{") {
        return Ok(PoolList { hash, source: PoolSource::Set(bytes) });
    }
    let text = String::from_utf8(bytes).map_err(|_| pool_error("the file is not UTF-8 text".into()))?;
    let file_name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let deck = parse_deck(&file_name, &text).map_err(|e| pool_error(e.to_string()))?;
    let list = deck.to_deck_list();
    let cards: Vec<String> =
        list.library.into_iter().chain(list.sideboard).chain(list.commander).map(|card| card.name).collect();
    if cards.is_empty() {
        return Err(pool_error("the pool file holds no card".into()));
    }
    Ok(PoolList { hash, source: PoolSource::Cube(cards) })
}

/// The engine of a constructed match with the deck of the file at `path`, the deck and its checks' warnings shown
/// to the player (a warning never stops the game: the table enforces no format).
fn deck_engine<G: Group, F: Frontend>(
    path: &Path,
    seat: Seat,
    config: EngineConfig,
    front: &mut F,
) -> Result<Engine<G>, SessionError> {
    let read = read_checked_deck(path)?;
    let deck = &read.deck;
    let engine = Engine::<G>::new(seat, config, deck.to_deck_list(), os_seed())
        .map_err(|e| SessionError::Deck { path: path.display().to_string(), reason: e.to_string() })?;
    let deck_output = Output::Deck {
        hash: cockatrice_hash(deck),
        main: deck.main_count(),
        sideboard: deck.sideboard_count(),
        commander: deck.commander.iter().map(|entry| entry.name.clone()).collect(),
    };
    front.show(deck_output, &engine)?;
    for warning in deck_warnings(path, &read) {
        front.show(warning, &engine)?;
    }
    Ok(engine)
}

/// Runs a session to its end: `Ok` after `quit` (or the end of input), else the fatal error.
pub async fn run<F: Frontend>(options: Options, front: &mut F) -> Result<(), SessionError> {
    let (seat, brought, code, suite) = match &options.role {
        Role::Host { brought, suite } => (Seat::HOST, brought, None, *suite),
        // A guest plays the host's suite, which the host's hello names: it starts in the default one, and goes on in
        // the host's once it knows it (`meeting.rs`).
        Role::Join { code, brought } => (Seat::GUEST, brought, Some(code), Suite::Ristretto255),
        Role::Resume { file } => return resume(file.clone(), &options, front).await,
    };
    // The relay this program serves comes first: a port in use is said before anything else is read or shown.
    let served = serve(options.serve).await?;
    let opening = (seat, brought, code);
    let outcome = match suite {
        Suite::Ristretto255 => open::<Ristretto255, F>(&options, opening, served.as_ref(), front).await,
        Suite::Modp2048 => open::<Modp2048, F>(&options, opening, served.as_ref(), front).await,
    };
    stop(served).await;
    outcome
}

/// Serves a relay in this program on `listen`, if given.
async fn serve(listen: Option<SocketAddr>) -> Result<Option<Served>, SessionError> {
    match listen {
        Some(listen) => Served::start(listen).await.map(Some).map_err(SessionError::Serve),
        None => Ok(None),
    }
}

/// Stops the relay this program served, if any: the game's players are told `closing`.
async fn stop(served: Option<Served>) {
    if let Some(served) = served {
        served.stop().await;
    }
}

/// Tells the player where the relay this program serves is reached.
fn show_served<G: Group, F: Frontend>(served: &Served, engine: &Engine<G>, front: &mut F) -> Result<(), SessionError> {
    Ok(front.show(Output::Serving { listen: served.listen(), relay: served.guest_url() }, engine)?)
}

/// Hosts or joins a new match in `seat` in suite `G` (a guest's until it meets the host's), with what it brought (and
/// the code it joins with), at the relay this program serves if any.
async fn open<G: Group, F: Frontend>(
    options: &Options,
    (seat, brought, code): (Seat, &Brought, Option<&String>),
    served: Option<&Served>,
    front: &mut F,
) -> Result<(), SessionError> {
    let config = EngineConfig { name: options.name.clone(), software: SOFTWARE.to_string() };
    let engine = match brought {
        Brought::Deck(path) => deck_engine(path, seat, config, front)?,
        Brought::Pool { file, offer } => {
            let pool = read_pool(file)?;
            let pool_error = |reason: String| SessionError::Pool { path: file.display().to_string(), reason };
            let format = offer.map(|offer| offer.format(&pool.source)).transpose().map_err(pool_error)?;
            let limited = LimitedConfig { pool, format };
            Engine::<G>::new_limited(seat, config, limited, os_seed()).map_err(|e| pool_error(e.to_string()))?
        }
    };

    // Check the code before touching the network: a mistyped one can never work, and would spend an attempt.
    let joining = code.map(|code| code::parse(code).map_err(SessionError::BadCode)).transpose()?;

    let relay_url = match served {
        Some(served) => {
            show_served(served, &engine, front)?;
            served.url().to_string()
        }
        None => options.relay.clone().unwrap_or_else(|| DEFAULT_RELAY.to_string()),
    };
    let tls = client_config(options.ca.as_deref())?;
    // Until the room is had there is no game to play, but the player is not ignored meanwhile: `quit` (Ctrl-C at
    // the terminal) leaves at once, and other commands wait for the game.
    let reach = reach_room(&relay_url, &tls, joining.as_ref());
    let Some((early, (ws, max_frame, (code, token)))) = while_typing(reach, seat, front).await? else {
        return Ok(());
    };
    if joining.is_none() {
        // The code is the secret the players share; it goes to the player only, never to a log.
        front.show(Output::Code(code.to_string()), &engine)?;
    }
    let side = if seat == Seat::HOST { Side::Host } else { Side::Guest };
    let mut channel = Channel::new(side, &code.password(), code.nameplate(), os_seed());
    channel.set_max_frame_bytes(max_frame);
    let ca = absolute(options.ca.as_deref());
    let relay = RelayPlace { url: relay_url, ca, token: Some(token), serve: served.map(Served::listen) };
    let uplink = Uplink::new(LinkState::Up, relay);
    let mut core =
        SessionCore::new(engine, channel, uplink, os_seed(), forfeit_grace(), Instant::now()).with_code(code);
    if seat == Seat::GUEST {
        core.meeting = Meeting::Awaiting;
    }
    core.record = absolute(options.record.as_deref());
    core.untap_draw = options.untap_draw;
    for line in early {
        core.take_line(line);
    }
    let driver = Driver {
        link: Link::Up(Box::new(ws)),
        watch: WatchLink::Closed,
        tls,
        saver: Saver::new(options.games.clone(), None),
    };
    play(driver, core, front).await
}

/// Opens a room at the relay (`joining` none) or joins the one of `joining`: the connection, its largest frame, the
/// game's code and the seat's token. A relay that asks to come back (one of several sharing Redis, while Redis
/// cannot say where the room is) is asked again when it says, for a minute.
async fn reach_room(
    relay_url: &str,
    tls: &Arc<rustls::ClientConfig>,
    joining: Option<&Code>,
) -> Result<(Ws, usize, (Code, String)), SessionError> {
    let deadline = Instant::now() + RECONNECT_FOR;
    loop {
        let attempt = async {
            let Opened { mut ws, max_frame, .. } = open_relay(relay_url, tls).await?;
            let room = match joining {
                None => create_room(&mut ws).await.map(|(nameplate, token)| (Code::random(&nameplate), token))?,
                Some(code) => (code.clone(), join_room(&mut ws, code).await?),
            };
            Ok::<_, SessionError>((ws, max_frame, room))
        };
        match attempt.await {
            Err(SessionError::ComeBack { after }) if Instant::now() < deadline => {
                tokio::time::sleep(after.min(LONGEST_RETRY)).await;
            }
            reached => return reached,
        }
    }
}

/// Runs `core` to the end of the session and writes its journal. A guest whose host plays another suite goes on in
/// it (`meeting.rs`), with the same driver: the link, the watch link and the save file (none yet) are kept.
async fn play<G: Group, F: Frontend>(
    mut driver: Driver,
    mut core: SessionCore<G>,
    front: &mut F,
) -> Result<(), SessionError> {
    let outcome = driver.run(&mut core, front).await;
    match core.elsewhere().filter(|_| outcome.is_ok()) {
        Some(Suite::Ristretto255) => go_on_in::<G, Ristretto255, F>(driver, core, front).await,
        Some(Suite::Modp2048) => go_on_in::<G, Modp2048, F>(driver, core, front).await,
        None => finish(outcome, &core),
    }
}

/// Goes on with a guest's session in the host's suite `H` to its end, or ends it if its deck or pool cannot be played
/// there. The host's suite is met then: the session does not change suites again.
async fn go_on_in<G: Group, H: Group, F: Frontend>(
    driver: Driver,
    mut core: SessionCore<G>,
    front: &mut F,
) -> Result<(), SessionError> {
    match core.engine_in::<H>(os_seed()) {
        Ok(engine) => run_to_end(driver, core.into_suite(engine), front).await,
        Err(error) => {
            core.refuse_suite(error);
            run_to_end(driver, core, front).await
        }
    }
}

/// Runs `core` to the end of the session and writes its journal.
async fn run_to_end<G: Group, F: Frontend>(
    mut driver: Driver,
    mut core: SessionCore<G>,
    front: &mut F,
) -> Result<(), SessionError> {
    let outcome = driver.run(&mut core, front).await;
    finish(outcome, &core)
}

/// Runs `work` while reading the player's lines: `None` if the player's first line was `quit`, else the lines read
/// meanwhile (`None` last for the end of input) and what `work` gave.
async fn while_typing<F: Frontend, T>(
    work: impl Future<Output = Result<T, SessionError>>,
    seat: Seat,
    front: &mut F,
) -> Result<Option<(Vec<Option<String>>, T)>, SessionError> {
    tokio::pin!(work);
    let mut early = Vec::new();
    loop {
        let input_done = early.last().is_some_and(Option::is_none);
        tokio::select! {
            done = &mut work => return done.map(|done| Some((early, done))),
            line = front.next_line(), if !input_done => {
                // A `quit` behind other commands waits its turn, as it always does: a script may type
                // everything at once.
                let quit = line.as_deref().is_some_and(|line| command::parse(line, seat) == Ok(Command::Quit));
                if quit && early.is_empty() {
                    return Ok(None);
                }
                early.push(line);
            }
        }
    }
}

/// Goes on with a saved game: the engine replays its journal, the channel takes up its keys and counters, and
/// the seat is taken back (by its token, else at the game's rendezvous) while the player's commands go on.
async fn resume<F: Frontend>(file: Option<PathBuf>, options: &Options, front: &mut F) -> Result<(), SessionError> {
    let path = match file {
        Some(path) => path,
        None => save::latest_unfinished(&options.games)?,
    };
    // The lock first: a game another process plays is refused before anything is read, shown or sent.
    let (save, saved) = SaveFile::open(&path)?;
    // The engine of the game's suite, which its journal says (the guest's is the host's, met before the first save).
    match saved.journal.suite {
        Suite::Ristretto255 => resume_in::<Ristretto255, F>(path, (save, saved), options, front).await,
        Suite::Modp2048 => resume_in::<Modp2048, F>(path, (save, saved), options, front).await,
    }
}

/// Goes on with the saved game of `path`, held open, in its suite `G`.
async fn resume_in<G: Group, F: Frontend>(
    path: PathBuf,
    (save, saved): (SaveFile, Saved),
    options: &Options,
    front: &mut F,
) -> Result<(), SessionError> {
    let restore_error = |reason: String| SessionError::Restore { path: path.display().to_string(), reason };
    let (mut limited, mut history) = (Vec::new(), Vec::new());
    let keep = |event: Event| {
        let drafting = matches!(
            event,
            Event::Grid { .. }
                | Event::Winston { .. }
                | Event::PileShown { .. }
                | Event::Packs { .. }
                | Event::Pack { .. }
                | Event::CardTaken { .. }
        );
        if drafting || matches!(event, Event::LimitedAgreed { .. } | Event::Pool { .. }) {
            limited.push(event);
        } else {
            history.push(event);
        }
    };
    let engine = journal::replay::<G>(&saved.journal, keep).map_err(|e| restore_error(e.to_string()))?;
    let limited = limited_standing(limited, engine.seat());
    let mut relay = saved.standing.relay.clone();
    if let Some(url) = options.relay.clone().filter(|url| *url != relay.url) {
        // Another relay knows no token of this game: the players meet at the rendezvous there.
        relay = RelayPlace { url, ca: absolute(options.ca.as_deref()), token: None, serve: None };
    } else if options.ca.is_some() {
        relay.ca = absolute(options.ca.as_deref());
    }
    let tls = client_config(relay.ca.as_deref())?;
    let moves = engine.actions_applied();
    front.show(Output::Restored { path: path.clone(), moves, relay: relay.url.clone(), history }, &engine)?;
    // A game this program served is served again where it was, for the guest to come back to the URL it joined
    // with; the new relay knows no token of it, and the players meet at its rendezvous there.
    let served = serve(relay.serve).await?;
    if let Some(served) = &served {
        show_served(served, &engine, front)?;
    }
    let channel = saved.restore_channel(os_seed());
    let mut core = SessionCore::new(
        engine,
        channel,
        Uplink::new(LinkState::Closed, relay),
        os_seed(),
        forfeit_grace(),
        Instant::now(),
    );
    core.announced = true;
    core.saved(save.path().to_path_buf());
    core.opponent = saved.standing.opponent.clone();
    // A game recorded with --record is recorded still, unless this session names another file.
    core.record = absolute(options.record.as_deref()).or(saved.standing.record.clone());
    core.untap_draw = options.untap_draw;
    // Through the session, so that its deck building starts from the pool again.
    for event in limited {
        core.show(Output::Engine(event));
    }
    let driver = Driver {
        link: Link::Closed,
        watch: WatchLink::Closed,
        tls,
        saver: Saver::new(options.games.clone(), Some(save)),
    };
    let outcome = match core.reach_seat() {
        Ok(()) => run_to_end(driver, core, front).await,
        Err(error) => finish(Err(error), &core),
    };
    stop(served).await;
    outcome
}

/// What a resumed limited match tells again, of its events replayed: the format and the pool (the player builds and
/// sideboards from them) and, in a draft, where it stands: the last grid, the last state of the Winston piles and
/// the pile this player looks at, if it was shown after that state; the last standing of a booster draft and the
/// pack `seat` picks from, if it took no card since it was shown.
fn limited_standing(events: Vec<Event>, seat: Seat) -> Vec<Event> {
    let last = |wanted: &dyn Fn(&Event) -> bool| events.iter().rposition(wanted);
    let grid = last(&|e| matches!(e, Event::Grid { .. }));
    let piles = last(&|e| matches!(e, Event::Winston { .. }));
    let shown =
        last(&|e| matches!(e, Event::PileShown { .. })).filter(|&shown| piles.is_some_and(|piles| piles < shown));
    let standing = last(&|e| matches!(e, Event::Packs { .. }));
    let taken = last(&|e| matches!(e, Event::CardTaken { by, .. } if *by == seat));
    let pack = last(&|e| matches!(e, Event::Pack { .. })).filter(|&pack| taken.is_none_or(|taken| taken < pack));
    let kept = |at: usize, event: &Event| match event {
        Event::LimitedAgreed { .. } | Event::Pool { .. } => true,
        _ => [grid, piles, shown, standing, pack].contains(&Some(at)),
    };
    events.iter().enumerate().filter(|(at, event)| kept(*at, event)).map(|(_, event)| event.clone()).collect()
}

/// Ends a session: the journal goes to `--record`'s file, whatever the outcome.
fn finish<G: Group>(outcome: Result<(), SessionError>, core: &SessionCore<G>) -> Result<(), SessionError> {
    if let Some(path) = &core.record {
        write_journal(path, core.engine().journal())?;
    }
    outcome
}

/// A path made absolute, so that a resumed game finds it from any folder.
fn absolute(path: Option<&Path>) -> Option<PathBuf> {
    path.map(|path| std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()))
}

/// Writes the journal readable by its owner only: it holds every secret of the game. A file that was there
/// before is made owner-only too, before a byte of the journal goes into it.
fn write_journal(path: &Path, journal: &Journal) -> Result<(), SessionError> {
    let failed = |e: std::io::Error| SessionError::Record { path: path.display().to_string(), reason: e.to_string() };
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(path).map_err(failed)?;
    #[cfg(unix)]
    file.set_permissions(std::os::unix::fs::PermissionsExt::from_mode(0o600)).map_err(failed)?;
    std::io::Write::write_all(&mut file, &journal::encode(journal)).map_err(failed)
}

#[cfg(test)]
mod tests {
    use fairdeck_shared::engine::{DeckCard, DeckList};

    use super::*;

    #[test]
    fn a_resumed_booster_draft_shows_its_standing_and_the_pack_this_player_has_yet_to_pick_from() {
        let standing =
            |picks: u32| Event::Packs { round: 0, rounds: 1, waiting: [1, 1].into(), picks: [picks, picks].into() };
        let pack = |pack: u32| Event::Pack { pack, cards: vec!["Opt".into()] };
        let taken = |by: Seat, pack: u32| Event::CardTaken { by, pack, card: None };
        let host = Seat::HOST;
        // Taken from: only the standing is told again.
        let events = vec![standing(0), pack(0), taken(host, 0), standing(1)];
        assert_eq!(limited_standing(events, host), vec![standing(1)]);
        // The opponent's pick leaves this player's pack to pick from.
        let events = vec![standing(0), pack(0), taken(Seat::GUEST, 1), standing(1)];
        assert_eq!(limited_standing(events, host), vec![pack(0), standing(1)]);
        // A pack shown after this player's last pick.
        let events = vec![standing(0), pack(0), taken(host, 0), pack(1), standing(1)];
        assert_eq!(limited_standing(events, host), vec![pack(1), standing(1)]);
    }

    /// A front end that keeps what it is shown.
    struct Shown(Vec<Output>);

    impl Frontend for Shown {
        async fn next_line(&mut self) -> Option<String> {
            None
        }

        fn show<G: Group>(&mut self, output: Output, _: &Engine<G>) -> std::io::Result<()> {
            self.0.push(output);
            Ok(())
        }
    }

    #[test]
    fn a_deck_too_large_for_the_hosts_suite_is_refused_when_it_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.txt");
        std::fs::write(&path, (0..301).map(|i| format!("1 Card {i}\n")).collect::<String>()).unwrap();
        let config = || EngineConfig { name: "Ada".into(), software: "test".into() };
        let mut shown = Shown(Vec::new());
        match deck_engine::<Modp2048, _>(&path, Seat::HOST, config(), &mut shown) {
            Err(SessionError::Deck { reason, .. }) => assert!(reason.contains("at most 300 cards"), "{reason}"),
            other => panic!("refused as a deck: {:?}", other.err()),
        }
        assert!(shown.0.is_empty(), "nothing shown of a refused deck");
        assert!(deck_engine::<Ristretto255, _>(&path, Seat::HOST, config(), &mut shown).is_ok());
    }

    #[cfg(unix)]
    #[test]
    fn a_journal_written_over_a_file_readable_by_others_is_owner_only() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("game.journal");
        std::fs::write(&path, b"an older file").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let deck = DeckList { library: vec![DeckCard { name: "Mountain".into(), back: 0 }], ..DeckList::default() };
        let config = EngineConfig { name: "Ada".into(), software: "test".into() };
        let engine = Engine::<Ristretto255>::new(Seat::HOST, config, deck, [7; 32]).unwrap();
        write_journal(&path, engine.journal()).unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        assert_eq!(journal::decode(&std::fs::read(&path).unwrap()).unwrap().seat, Seat::HOST);
    }
}
