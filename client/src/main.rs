//! The `fairdeck` command: thin wiring over the library.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use clap::error::ErrorKind;
use clap::parser::ValueSource;
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use fairdeck::command::help::script_help;
use fairdeck::config;
use fairdeck::play::Play;
use fairdeck::practice::Practice;
use fairdeck::session::{Brought, DEFAULT_RELAY, Offer, Options, Role, SessionError};
use fairdeck_shared::crypto::Suite;

/// fairdeck: a two-player card table where neither player has to trust the other, nor the server.
/// `host` and `join` open the terminal table (`fairdeck host --help` lists its keys), or with --script
/// read commands on standard input and print JSON events; `practice` does the same against a built-in opponent.
#[derive(Parser)]
#[command(name = "fairdeck", version, about, long_about = None, after_help = format!("{}\n\n{}", script_help(), config::help()))]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Open a game: the table shows the code to give the other player (--script prints it as JSON).
    #[command(after_help = game_help())]
    Host {
        #[command(flatten)]
        game: GameArgs,
        /// No relay to reach (no internet at all: a LAN, a phone hotspot)? Serve one in this program, listening on
        /// ADDR:PORT (0.0.0.0:7171: every address of this machine). The table shows the URL to give the guest with
        /// the code (`fairdeck join CODE --relay URL`); the relay stops when you quit, and `fairdeck resume` serves
        /// it again at the same address.
        #[arg(long, value_name = "ADDR:PORT")]
        serve: Option<std::net::SocketAddr>,
        /// The suite the cards are locked in, for both players: the guest's program learns it from your hello and
        /// shows it (`connected`) [default: the configuration file's suite, else ristretto255].
        #[arg(long, value_name = "SUITE")]
        suite: Option<SuiteChoice>,
    },
    /// Join the game of a code such as 7-crossbow-guitar.
    #[command(after_help = game_help())]
    Join {
        /// The code the host gave you; case and separators do not matter (`7 Crossbow Guitar`). Without
        /// it, the terminal asks for it, and Tab completes its words.
        code: Option<String>,
        #[command(flatten)]
        game: GameArgs,
    },
    /// Go on with a saved game after a crash, a quit or another day: the most recently played unfinished
    /// one that no other fairdeck has open, or FILE. Every game is saved as it goes (`fairdeck games` lists
    /// them); both players resume and meet again on the game's relay with no new code.
    #[command(after_help = game_help())]
    Resume {
        /// A saved game (a .fairdeck file of `fairdeck games`).
        file: Option<std::path::PathBuf>,
        #[command(flatten)]
        session: SessionArgs,
    },
    /// Practice alone: the table against a built-in opponent, the goldfish, which plays the protocol honestly
    /// (locks, shuffles, strips, proofs) with a copy of your deck and does nothing else, over a relay inside
    /// this program. In limited play (--pool FILE --limited FORMAT) it is dealt or drafts a pool of its own and
    /// builds its deck from it by itself. Nothing is saved: a practice game ends with the program.
    #[command(after_help = game_help())]
    Practice(PracticeArgs),
    /// List the saved games: opponent, start, last move, whether each goes on, and whether a fairdeck has it
    /// open now (with its process id).
    Games,
    /// Recompute fairdeck's public random numbers, so anyone can check a shuffle.
    #[command(subcommand)]
    Rng(RngCommand),
    /// Replay a game's journal (saved with --record, or the game's save) and say whether the
    /// opponent broke the protocol, with the evidence. Exit code 0: no breach; 3: a breach,
    /// proven; 4: the journal does not hold together.
    Verify {
        /// The journal file, or a save (`fairdeck games` lists them).
        file: std::path::PathBuf,
    },
    /// Watch a game as a spectator, with the watch code a player gave (`watch-code` at its table): a read-only
    /// table of what both players see (hidden cards as counts), every step checked (signatures, shuffles,
    /// reveals); an alert if a player cheats. --script prints JSON events instead.
    Watch {
        /// The watch code, such as 12-violin-ember.
        code: String,
        /// The relay's WebSocket URL [default: the configuration file's relay, else ws://127.0.0.1:7171/v1].
        #[arg(long, value_name = "URL", env = "FAIRDECK_RELAY")]
        relay: Option<String>,
        /// Also trust the CA certificates of this PEM file for a wss:// relay [default: the configuration file's ca].
        #[arg(long, value_name = "FILE")]
        ca: Option<std::path::PathBuf>,
        /// Print JSON events (watching, step, table, alert, relay_lost, ended) instead of opening the table.
        #[arg(long)]
        script: bool,
    },
    /// Read a game's journal (saved with --record).
    #[command(subcommand)]
    Journal(JournalCommand),
    /// Play a game back on the terminal table from its owner's seat, as the owner saw it (their hidden cards
    /// too), input by input: → and ← step, Space plays at a speed (+ and - change it), t jumps to a turn, Home and
    /// End, q quits. With --script, a `step` event per input and the `table` event after it.
    Replay(fairdeck::replay::Args),
    /// Print a deck file as fairdeck reads it: its sections (commander, main deck, sideboard), counts, names
    /// and the deck hash Cockatrice shows for it, then warnings: its size for its format and, with a card
    /// database, unknown names (with the nearest real ones) and too many copies. A file that is not a deck is an
    /// error naming its line.
    Deck {
        /// The deck file (plain text, Arena, .dec, .mwDeck, .dck, Cockatrice .cod, MTGO .dek).
        file: std::path::PathBuf,
        /// Print {"main": [[count, name], ...], "side": [...], "commander": [...], "hash": "...", "warnings":
        /// [{"kind", "line", "message"}, ...]} instead.
        #[arg(long)]
        json: bool,
        /// Check it as a limited deck (at least 40 cards, any number of copies) rather than a constructed one.
        #[arg(long)]
        limited: bool,
    },
    /// The card database (MTGJSON's AtomicCards, kept in $XDG_DATA_HOME/fairdeck/cards): without a subcommand,
    /// what it holds (MTGJSON's build and date, where it was imported from, how many cards, its size).
    Cards {
        #[command(subcommand)]
        action: Option<CardsCommand>,
    },
    /// Print a card's oracle text from the card database: name, mana cost, type line, text, power/toughness or
    /// loyalty, and every face of a double-faced card. NAME is the full name (`Fire // Ice`) or a face's, in
    /// any case; an unknown name is an error naming the nearest real ones.
    Card {
        /// The card's name (quotes are not needed: the words are joined).
        #[arg(required = true, num_args = 1..)]
        name: Vec<String>,
        /// Print {"name", "mana_cost", "type", "text", "power", "toughness", "loyalty", "faces": [...]} instead,
        /// null where absent.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Subcommand)]
enum CardsCommand {
    /// Replace the card database with MTGJSON's AtomicCards file: plain .json, or .json.gz, .json.bz2 or
    /// .json.xz as MTGJSON publishes it. A file that is not AtomicCards is refused with the place of the fault,
    /// and the database stays as it was.
    Import {
        /// The AtomicCards file.
        file: std::path::PathBuf,
    },
    /// Download MTGJSON's AtomicCards over HTTPS (a progress bar on a terminal), check it against the SHA-256
    /// published beside it (URL.sha256), and replace the card database with it. A wrong checksum or a broken
    /// download is refused, and the database stays as it was.
    Update {
        /// Where to download it from: https:// only (plain http:// could not vouch for the file).
        #[arg(long, default_value = fairdeck::cards::MTGJSON_URL)]
        url: String,
        /// Also trust this PEM file's CA certificates (a mirror with a private CA), besides the public ones.
        #[arg(long, value_name = "FILE")]
        ca: Option<std::path::PathBuf>,
    },
}

#[derive(Subcommand)]
enum JournalCommand {
    /// Print the journal as JSON: the player's deck and intents, and every message received, decoded (the
    /// engine's seed, every secret of the game, is left out).
    Show {
        /// The journal file, or a save (`fairdeck games` lists them).
        file: std::path::PathBuf,
        /// Print the game as the table's log told it instead: a line per sentence, with its step and turn.
        #[arg(long)]
        text: bool,
    },
}

#[derive(Subcommand)]
enum RngCommand {
    /// Print the basic shuffle (seed 000, Appendix B, errata fixed) of the numbers 0 to N−1
    /// as a JSON array.
    Shuffle {
        /// The shared seed, in hex: Player 1's 32 bytes, then Player 2's.
        #[arg(long, value_name = "HEX")]
        shared_seed: String,
        /// The generator's state, in hex (32 bytes).
        #[arg(long, value_name = "HEX")]
        state: String,
        /// How many numbers to shuffle.
        #[arg(long, value_name = "N")]
        count: usize,
    },
}

#[derive(clap::Args)]
struct GameArgs {
    /// Your deck file (plain text, Arena, .dec, .mwDeck, .dck, Cockatrice .cod, MTGO .dek).
    #[arg(long, value_name = "FILE", required_unless_present = "pool", conflicts_with = "pool")]
    deck: Option<std::path::PathBuf>,
    /// Limited play: the pool file both players hold, a cube list in any deck format (each copy a card of
    /// the pool). The pools are dealt from it; `build DECKFILE` then takes your deck from your pool.
    #[arg(long, value_name = "FILE")]
    pool: Option<std::path::PathBuf>,
    /// Hosting limited play: the format.
    #[arg(long, value_name = "FORMAT", requires = "pool")]
    limited: Option<LimitedKind>,
    #[command(flatten)]
    counts: Counts,
    /// Your name, shown to the opponent [default: the configuration file's name, else host or guest].
    #[arg(long, value_name = "NAME")]
    name: Option<String>,
    #[command(flatten)]
    session: SessionArgs,
}

/// How much a limited format deals, as `host` and `practice` take it.
#[derive(clap::Args)]
struct Counts {
    /// Sealed from a cube: how many cards of the pool each player is dealt [default: 45]; Winston draft: how many
    /// cards of the cube are drafted [default: the whole cube, at most 90].
    #[arg(long, value_name = "N", requires = "limited")]
    cards: Option<u32>,
    /// Sealed from an MTGJSON set file: how many boosters each player opens.
    #[arg(long, value_name = "N", default_value_t = 6, requires = "limited")]
    boosters: u32,
    /// Grid draft: how many grids of nine cards (a cube of at least nine times as many cards).
    #[arg(long, value_name = "N", default_value_t = 10, requires = "limited")]
    grids: u32,
    /// Booster draft: how many packs each player opens, one a round.
    #[arg(long, value_name = "N", default_value_t = 3, requires = "limited")]
    packs: u32,
    /// Booster draft from a cube: how many cards a pack holds [default: 15]. A set's booster holds what the set
    /// says: not with a set file.
    #[arg(long, value_name = "N", requires = "limited")]
    pack_size: Option<u32>,
}

/// The limited formats `--limited` offers.
#[derive(Clone, Copy, clap::ValueEnum)]
enum LimitedKind {
    /// Sealed deck: each player is dealt `--cards` cards of a cube, or opens `--boosters` boosters of a set,
    /// unseen by the other.
    Sealed,
    /// Uniform deck: both build from the whole pool file, each choice hidden from the other.
    Uniform,
    /// Grid draft: `--grids` grids of nine cards shown to both, each player taking a row or a column in turn.
    Grid,
    /// Winston draft: three piles of the cube's cards, each player in turn taking a pile or passing it.
    Winston,
    /// Booster draft: each player opens `--packs` packs, one a round, of `--pack-size` cards of a cube or a
    /// set's boosters; each takes a card and passes the rest to the other, until the packs are empty.
    Draft,
}

/// The suites `--suite` offers (the engine's [`Suite`], with a word on each for `--help`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum SuiteChoice {
    /// ristretto255 over Curve25519: a lock in tens of microseconds, decks of up to 1000 cards.
    Ristretto255,
    /// The 2048-bit MODP group of RFC 3526, the seed's commutative encryption modulo a prime: about 200 times slower
    /// (a 60-card game's set-up takes seconds), decks of up to 300 cards.
    Modp2048,
}

impl From<SuiteChoice> for Suite {
    fn from(choice: SuiteChoice) -> Suite {
        match choice {
            SuiteChoice::Ristretto255 => Suite::Ristretto255,
            SuiteChoice::Modp2048 => Suite::Modp2048,
        }
    }
}

/// The host's suite: `--suite`, else the configuration file's, else ristretto255.
fn host_suite(given: Option<SuiteChoice>, config: &config::Config) -> Suite {
    given.map(Suite::from).or(config.suite).unwrap_or(Suite::Ristretto255)
}

impl LimitedKind {
    fn offer(self, counts: &Counts) -> Offer {
        match self {
            LimitedKind::Sealed => Offer::Sealed { cards: counts.cards.unwrap_or(45), boosters: counts.boosters },
            LimitedKind::Winston => Offer::Winston { cards: counts.cards },
            LimitedKind::Uniform => Offer::Uniform,
            LimitedKind::Grid => Offer::Grid { grids: counts.grids },
            LimitedKind::Draft => Offer::Draft { packs: counts.packs, cards: counts.pack_size },
        }
    }
}

impl GameArgs {
    /// What the player brings: a deck, or a pool (the host's with its format); `None` if `host` lacks the format.
    fn brought(&self, host: bool) -> Result<Brought, String> {
        match (&self.deck, &self.pool, self.limited) {
            (Some(deck), _, _) => Ok(Brought::Deck(deck.clone())),
            (None, Some(file), Some(kind)) if host => {
                Ok(Brought::Pool { file: file.clone(), offer: Some(kind.offer(&self.counts)) })
            }
            (None, Some(_), None) if host => {
                Err("hosting with --pool needs --limited FORMAT (sealed, uniform, grid, winston, draft)".into())
            }
            (None, Some(_), Some(_)) => Err("the host chooses the format: join with --pool FILE alone".into()),
            (None, Some(file), None) => Ok(Brought::Pool { file: file.clone(), offer: None }),
            (None, None, _) => Err("a deck (--deck FILE) or a pool (--pool FILE) is needed".into()),
        }
    }
}

#[derive(clap::Args)]
struct PracticeArgs {
    /// Your deck file (plain text, Arena, .dec, .mwDeck, .dck, Cockatrice .cod, MTGO .dek); the goldfish plays a
    /// copy of it.
    #[arg(long, value_name = "FILE", required_unless_present = "pool", conflicts_with = "pool")]
    deck: Option<std::path::PathBuf>,
    /// Limited play: the pool file (a cube list in any deck format). You and the goldfish are each dealt a pool
    /// from it; `build DECKFILE` takes your deck from yours, and the goldfish builds its own.
    #[arg(long, value_name = "FILE", requires = "limited")]
    pool: Option<std::path::PathBuf>,
    /// Limited play: the format.
    #[arg(long, value_name = "FORMAT", requires = "pool")]
    limited: Option<LimitedKind>,
    #[command(flatten)]
    counts: Counts,
    /// Your name [default: the configuration file's name, else host].
    #[arg(long, value_name = "NAME")]
    name: Option<String>,
    /// Read commands from standard input and print JSON events, instead of opening the terminal table.
    #[arg(long)]
    script: bool,
    /// When the game ends, write its journal to FILE, for `fairdeck verify`.
    #[arg(long, value_name = "FILE")]
    record: Option<std::path::PathBuf>,
}

#[derive(clap::Args)]
struct SessionArgs {
    /// The relay's WebSocket URL [default: a resumed game's own relay; else the configuration file's relay,
    /// else ws://127.0.0.1:7171/v1].
    #[arg(long, value_name = "URL", env = "FAIRDECK_RELAY")]
    relay: Option<String>,
    /// Also trust the CA certificates of this PEM file for a wss:// relay (a private relay's CA)
    /// [default: the configuration file's ca].
    #[arg(long, value_name = "FILE")]
    ca: Option<std::path::PathBuf>,
    /// Read commands from standard input and print JSON events, instead of opening the terminal table.
    #[arg(long)]
    script: bool,
    /// When the session ends, write the game's journal to FILE, for `fairdeck verify`. It holds
    /// every secret of your game: show it to others only once the game is over.
    #[arg(long, value_name = "FILE")]
    record: Option<std::path::PathBuf>,
}

/// The help of `host` and `join`: the terminal table's keys, then scripted mode.
fn game_help() -> String {
    format!("{}\n\n{}", fairdeck::ui::keys::help_text(), script_help())
}

/// Runs a game of the `role` the configuration file completes (the host's suite).
fn play(
    role: impl FnOnce(&config::Config) -> Role,
    name: Option<String>,
    args: SessionArgs,
    serve: Option<std::net::SocketAddr>,
) -> ExitCode {
    let script = args.script;
    let config = match prepare(script) {
        Ok(config) => config,
        Err(exit) => return exit,
    };
    let role = role(&config);
    let default_name = if matches!(role, Role::Host { .. }) { "host" } else { "guest" };
    let games = match fairdeck::save::games_dir_from_env() {
        Ok(games) => games,
        Err(error) => {
            eprintln!("fairdeck: {error}");
            return ExitCode::FAILURE;
        }
    };
    let relay = match role {
        // A saved game has its own relay: only --relay (or FAIRDECK_RELAY) says otherwise.
        Role::Resume { .. } => args.relay,
        // The relay is this program's own.
        _ if serve.is_some() => None,
        _ => Some(config::choose(args.relay, config.relay.as_deref(), DEFAULT_RELAY)),
    };
    let name = config::choose(name, config.name.as_deref(), default_name);
    let ca = args.ca.or(config.ca);
    let options = Options { role, relay, serve, games, name, record: args.record, ca, untap_draw: config.untap_draw };
    open_table(options, script)
}

/// `fairdeck practice`: the player hosts a game that the goldfish joins, over a relay of the game's own.
fn practice(args: PracticeArgs) -> ExitCode {
    // clap requires a deck, or a pool with its format.
    let brought = match (args.deck, args.pool, args.limited) {
        (Some(deck), _, _) => Brought::Deck(deck),
        (None, Some(file), Some(kind)) => Brought::Pool { file, offer: Some(kind.offer(&args.counts)) },
        (None, _, _) => {
            return usage_error("practice needs a deck (--deck FILE) or a pool (--pool FILE --limited FORMAT)");
        }
    };
    let config = match prepare(args.script) {
        Ok(config) => config,
        Err(exit) => return exit,
    };
    let name = config::choose(args.name, config.name.as_deref(), "host");
    match Practice::start(brought, name, args.record) {
        Ok(practice) => open_table(practice, args.script),
        Err(error) => {
            eprintln!("fairdeck: {:#}", anyhow::Error::from(error));
            ExitCode::FAILURE
        }
    }
}

/// What every game checks first: a terminal for the table (unless scripted), and the configuration file.
fn prepare(script: bool) -> Result<config::Config, ExitCode> {
    // The table draws with escape sequences: into a file or a pipe they would only be garbage.
    if !script && !std::io::stdout().is_terminal() {
        eprintln!("fairdeck: standard output is not a terminal; use --script for JSON events (see fairdeck --help)");
        return Err(ExitCode::FAILURE);
    }
    config::load_from_env().map_err(|error| {
        eprintln!("fairdeck: {error}");
        ExitCode::FAILURE
    })
}

/// Runs `game` in the terminal table, or in scripted mode, to its end.
fn open_table(game: impl Play, script: bool) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("fairdeck: cannot start: {error}");
            return ExitCode::FAILURE;
        }
    };
    let result = if script {
        let input = tokio::io::BufReader::new(tokio::io::stdin());
        runtime.block_on(fairdeck::script::run_script(game, input, std::io::stdout()))
    } else {
        runtime.block_on(fairdeck::ui::run(game))
    };
    // A read of standard input may still be blocked in tokio's thread pool: do not wait for it.
    runtime.shutdown_background();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("fairdeck: {error}");
            ExitCode::from(error.exit_code())
        }
    }
}

/// Asks for the code at the terminal, when `join` was given none.
fn ask_code(script: bool) -> Result<String, ExitCode> {
    if script || !std::io::stdin().is_terminal() {
        eprintln!(
            "fairdeck: join needs the host's code, such as `fairdeck join 7-violin-ember` (asked for only at a terminal)"
        );
        return Err(ExitCode::from(2));
    }
    match fairdeck::ui::code_prompt::read_code() {
        Ok(Some(code)) => Ok(code.to_string()),
        Ok(None) => Err(ExitCode::FAILURE),
        Err(error) => {
            eprintln!("fairdeck: cannot read the code from the terminal: {error}");
            Err(ExitCode::FAILURE)
        }
    }
}

/// A command line that parses but cannot run: said as clap says its own errors.
fn usage_error(error: &str) -> ExitCode {
    eprintln!("fairdeck: {error}");
    ExitCode::from(2)
}

/// The command line. `--relay` typed beside `host --serve` is refused; FAIRDECK_RELAY and the configuration file's
/// relay are not (they name the usual relay): serving, the relay is this program's own.
fn parse_cli() -> Cli {
    let matches = Cli::command().get_matches();
    if let Some(host) = matches.subcommand_matches("host")
        && host.contains_id("serve")
        && host.value_source("relay") == Some(ValueSource::CommandLine)
    {
        let message = "--serve runs the relay in this program: --relay cannot be given with it";
        Cli::command().error(ErrorKind::ArgumentConflict, message).exit();
    }
    Cli::from_arg_matches(&matches).unwrap_or_else(|error| error.exit())
}

fn main() -> ExitCode {
    let cli = parse_cli();
    let result = match cli.command {
        Command::Host { game, serve, suite } => {
            return match game.brought(true) {
                Ok(brought) => {
                    let role = |config: &config::Config| Role::Host { brought, suite: host_suite(suite, config) };
                    play(role, game.name, game.session, serve)
                }
                Err(error) => usage_error(&error),
            };
        }
        Command::Watch { code, relay, ca, script } => return fairdeck::watch::command(code, relay, ca, script),
        Command::Join { code, game } => {
            let brought = match game.brought(false) {
                Ok(brought) => brought,
                Err(error) => return usage_error(&error),
            };
            let code = match code {
                // A code that can never work is said before anything else is checked (the terminal among them);
                // scripted mode says it as its `error` event, from the session.
                Some(code) if game.session.script => code,
                Some(code) => match fairdeck::code::parse(&code) {
                    Ok(_) => code,
                    Err(error) => return usage_error(&SessionError::BadCode(error).to_string()),
                },
                None => match ask_code(game.session.script) {
                    Ok(code) => code,
                    Err(exit) => return exit,
                },
            };
            return play(|_| Role::Join { code, brought }, game.name, game.session, None);
        }
        Command::Resume { file, session } => return play(|_| Role::Resume { file }, None, session, None),
        Command::Practice(args) => return practice(args),
        Command::Games => {
            fairdeck::save::games_dir_from_env().map_err(anyhow::Error::from).and_then(|dir| print_games(&dir))
        }
        Command::Verify { file } => {
            return match fairdeck::verify::verify_file(&file) {
                Ok((finding, text)) => {
                    println!("{text}");
                    ExitCode::from(finding.exit_code())
                }
                Err(error) => {
                    eprintln!("fairdeck: {error:#}");
                    ExitCode::FAILURE
                }
            };
        }
        Command::Journal(JournalCommand::Show { file, text: false }) => {
            fairdeck::journal::show_file(&file).and_then(print_line)
        }
        Command::Journal(JournalCommand::Show { file, text: true }) => {
            fairdeck::replay::text::show_file(&file).and_then(print_line)
        }
        Command::Replay(args) => return fairdeck::replay::run(args),
        Command::Deck { file, json, limited } => fairdeck::deck::show_file(&file, json, limited).and_then(print_line),
        Command::Rng(RngCommand::Shuffle { shared_seed, state, count }) => {
            fairdeck::rng::shuffle_json(&shared_seed, &state, count).and_then(print_line)
        }
        Command::Cards { action } => cards(action).and_then(print_line),
        Command::Card { name, json } => fairdeck::cards::database_path_from_env()
            .map_err(anyhow::Error::from)
            .and_then(|database| fairdeck::cards::show_card(&database, &name.join(" "), json))
            .and_then(print_line),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) if is_broken_pipe(&error) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("fairdeck: {error:#}");
            ExitCode::FAILURE
        }
    }
}

/// `fairdeck cards [import FILE | update]`.
fn cards(action: Option<CardsCommand>) -> anyhow::Result<String> {
    let database = fairdeck::cards::database_path_from_env()?;
    let text = match action {
        None => fairdeck::cards::status_text(&database)?,
        Some(CardsCommand::Import { file }) => {
            fairdeck::cards::imported_text(&fairdeck::cards::import_file(&file, &database)?)
        }
        Some(CardsCommand::Update { url, ca }) => {
            let progress = std::io::stderr().is_terminal();
            fairdeck::cards::updated_text(&fairdeck::cards::update(&url, ca.as_deref(), &database, progress)?)
        }
    };
    Ok(text)
}

fn print_line(text: String) -> anyhow::Result<()> {
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{text}").map_err(anyhow::Error::from)
}

/// `fairdeck games`: one line per saved game, the most recently played first.
fn print_games(dir: &std::path::Path) -> anyhow::Result<()> {
    let listed = fairdeck::save::list(dir)?;
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{}", fairdeck::games::table(dir, &listed))?;
    Ok(())
}

fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.downcast_ref::<std::io::Error>().is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
}

#[cfg(test)]
mod tests {
    use clap::ValueEnum;

    use super::*;

    /// `host --deck d.txt ARGS` parsed: its `--suite`.
    fn host_suite_given(args: &[&str]) -> Result<Option<SuiteChoice>, clap::Error> {
        let line = ["fairdeck", "host", "--deck", "d.txt"].into_iter().chain(args.iter().copied());
        match Cli::try_parse_from(line)?.command {
            Command::Host { suite, .. } => Ok(suite),
            _ => panic!("not host"),
        }
    }

    #[test]
    fn host_takes_a_suite_by_its_name_and_join_none() {
        assert_eq!(host_suite_given(&["--suite", "modp2048"]).unwrap(), Some(SuiteChoice::Modp2048));
        assert_eq!(host_suite_given(&["--suite", "ristretto255"]).unwrap(), Some(SuiteChoice::Ristretto255));
        assert_eq!(host_suite_given(&[]).unwrap(), None);
        let error = host_suite_given(&["--suite", "rsa"]).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::InvalidValue);
        assert!(error.to_string().contains("ristretto255, modp2048"), "{error}");
        // The guest plays the host's suite: it has no choice to make.
        let join = Cli::try_parse_from(["fairdeck", "join", "7-a-b", "--deck", "d.txt", "--suite", "modp2048"]);
        assert_eq!(join.err().map(|e| e.kind()), Some(ErrorKind::UnknownArgument));
    }

    #[test]
    fn the_hosts_suite_is_the_flags_then_the_configuration_files_then_ristretto255() {
        let config = config::Config { suite: Some(Suite::Modp2048), ..config::Config::default() };
        assert_eq!(host_suite(Some(SuiteChoice::Ristretto255), &config), Suite::Ristretto255);
        assert_eq!(host_suite(None, &config), Suite::Modp2048);
        assert_eq!(host_suite(None, &config::Config::default()), Suite::Ristretto255);
    }

    #[test]
    fn every_suite_is_offered_under_the_name_the_hello_gives_it() {
        let offered: Vec<Suite> = SuiteChoice::value_variants().iter().map(|&choice| Suite::from(choice)).collect();
        assert_eq!(offered, Suite::ALL);
        for &choice in SuiteChoice::value_variants() {
            assert_eq!(choice.to_possible_value().unwrap().get_name(), Suite::from(choice).name());
        }
    }
}
