//! The table of commands: one entry per command, in the order the help lists them. The parser, `--help`, the
//! terminal table's keys and its `?` overlay all read it. A new command is one entry here (with a function in
//! `arguments.rs` if it takes arguments).

use fairdeck_shared::wire::{Action, PeekPurpose};

use super::arguments as read;
use super::spec::{BuildStep, Command, Key, Local, Placing, Spec, TopWatch, WatchStep};

/// The terminal table's own command: a pile on the screen. Scripted mode does not take it.
pub static VIEW: Local = Local { name: "view", about: "a pile with ids: graveyard, exile, command, sideboard" };

/// Every command, in the order the help lists them.
pub static COMMANDS: &[&Spec] = &[
    &DRAW,
    &PLAY,
    &MOVE,
    &SHUFFLE,
    &PEEK,
    &MILL,
    &SEARCH,
    &SCRY,
    &SURVEIL,
    &TAKE,
    &TOP,
    &BOTTOM,
    &GRAVE,
    &DONE,
    &REVEAL,
    &ALWAYS_LOOK,
    &ALWAYS_REVEAL,
    &ROLL,
    &FLIP,
    &SAY,
    &LIFE,
    &MULLIGAN,
    &ASK,
    &REFUSE,
    &UNDO,
    &TAKE_FROM_LIBRARY,
    &NEXT_TURN,
    &TAP,
    &UNTAP,
    &COUNTER,
    &PLAYER_COUNTER,
    &UNTAP_ALL,
    &TOKEN,
    &ATTACH,
    &DETACH,
    &ARROW,
    &PHASE,
    &SHOW_RANDOM,
    &COMMANDER_DAMAGE,
    &COMMAND,
    &PLAY_FIRST,
    &DRAW_FIRST,
    &CONCEDE,
    &END,
    &FORFEIT,
    &NEW_GAME,
    &SIDEBOARD,
    &BUILD,
    &PICK,
    &PILE,
    &ADD,
    &REMOVE,
    &BASICS,
    &POOL,
    &NEW_CODE,
    &WATCH_CODE,
    &NEW_WATCH_CODE,
    &WATCH_OFF,
    &WATCH_DELAY,
    &TABLE,
    &WAIT,
    &QUIT,
];

pub static DRAW: Spec = Spec {
    name: "draw",
    args: "N",
    about: "draw N cards",
    example: "draw 7",
    keys: &[Key::RunsLine { key: 'd', line: "draw 1", about: "draw a card" }, Key::Prefills('D')],
    parse: read::draw,
};

pub static PLAY: Spec = Spec {
    name: "play",
    args: "CARD [at X,Y] [facedown]",
    about: "put a card into your play area (next free spot unless `at`); by name, from hand or command zone, else graveyard, exile, library, sideboard",
    example: "play #3 at 10,-2 facedown",
    keys: &[Key::Prefills('p')],
    parse: read::play,
};

pub static MOVE: Spec = Spec {
    name: "move",
    args: "CARD [opponent] ZONE [top|bottom]",
    about: "move a card to a zone of yours (or of the opponent); by name, from your hand or play area, else anywhere, sideboards last",
    example: "move 4 opponent graveyard bottom",
    keys: &[Key::Prefills('v')],
    parse: read::move_card,
};

pub static SHUFFLE: Spec = Spec {
    name: "shuffle",
    args: "",
    about: "shuffle your library",
    example: "shuffle",
    keys: &[Key::Runs('s')],
    parse: |a| a.none(Command::Act(Action::Shuffle { permutation: None })),
};

pub static PEEK: Spec = Spec {
    name: "peek",
    args: "N",
    about: "look at the top N cards of your library",
    example: "peek 3",
    keys: &[Key::RunsLine { key: 'k', line: "peek 1", about: "look at the top card of your library" }],
    parse: read::peek,
};

pub static MILL: Spec = Spec {
    name: "mill",
    args: "N",
    about: "put the top N cards of your library into your graveyard, the top one first",
    example: "mill 3",
    keys: &[],
    parse: read::mill,
};

pub static SEARCH: Spec = Spec {
    name: "search",
    args: "",
    about: "look through your whole library; `take` cards, then `done` shuffles it",
    example: "search",
    keys: &[Key::Runs('/')],
    parse: |a| a.none(Command::Browse(PeekPurpose::Search, None)),
};

pub static SCRY: Spec = Spec {
    name: "scry",
    args: "N",
    about: "look at the top N cards of your library; `top`, `bottom`, then `done`",
    example: "scry 2",
    keys: &[],
    parse: |a| read::browse(a, PeekPurpose::Scry),
};

pub static SURVEIL: Spec = Spec {
    name: "surveil",
    args: "N",
    about: "look at the top N cards of your library; `top`, `grave`, then `done`",
    example: "surveil 2",
    keys: &[],
    parse: |a| read::browse(a, PeekPurpose::Surveil),
};

pub static TAKE: Spec = Spec {
    name: "take",
    args: "CARD [hand|graveyard|exile|play]",
    about: "during a search: a card of the library into a zone (default your hand)",
    example: "take \"Lightning Bolt\" hand",
    keys: &[],
    parse: read::take,
};

pub static TOP: Spec = Spec {
    name: "top",
    args: "CARD...",
    about: "during a scry or surveil: these cards on top of the library, the first topmost",
    example: "top 12 \"Lightning Bolt\"",
    keys: &[],
    parse: |a| read::place(a, Placing::Top),
};

pub static BOTTOM: Spec = Spec {
    name: "bottom",
    args: "CARD...",
    about: "scried cards, or your hand's with no scry (London mulligan), to your library's bottom, the last lowest",
    example: "bottom Mountain, Lava Spike",
    keys: &[],
    parse: |a| read::place(a, Placing::Bottom),
};

pub static GRAVE: Spec = Spec {
    name: "grave",
    args: "CARD...",
    about: "during a surveil: these cards into your graveyard",
    example: "grave 12",
    keys: &[],
    parse: |a| read::place(a, Placing::Graveyard),
};

pub static DONE: Spec = Spec {
    name: "done",
    args: "",
    about: "close the search (shuffling), scry or surveil; limited play: send your deck",
    example: "done",
    keys: &[],
    parse: |a| a.none(Command::Done),
};

pub static REVEAL: Spec = Spec {
    name: "reveal",
    args: "CARD [to opponent] | hand | top",
    about: "show a card to both (or the opponent only); by name, from hand, else play area, library, sideboard; `hand`, `library N` (its top N): to the opponent; `top`: your top card to both",
    example: "reveal \"Lightning Bolt\" to opponent",
    keys: &[Key::Prefills('r')],
    parse: read::reveal,
};

pub static ALWAYS_LOOK: Spec = Spec {
    name: "always-look",
    args: "[off]",
    about: "look at your library's top card whenever it changes (the opponent is told each time); `off` stops",
    example: "always-look",
    keys: &[],
    parse: |a| read::watch_top(a, TopWatch::Look),
};

pub static ALWAYS_REVEAL: Spec = Spec {
    name: "always-reveal",
    args: "[off]",
    about: "reveal your library's top card to both players whenever it changes; `off` stops",
    example: "always-reveal off",
    keys: &[],
    parse: |a| read::watch_top(a, TopWatch::Reveal),
};

pub static ROLL: Spec = Spec {
    name: "roll",
    args: "NdM",
    about: "roll N dice of M sides, fairly",
    example: "roll 2d6",
    keys: &[Key::RunsLine { key: 'i', line: "roll 1d6", about: "roll a six-sided die" }],
    parse: read::roll,
};

pub static FLIP: Spec = Spec {
    name: "flip",
    args: "",
    about: "flip a coin, fairly",
    example: "flip",
    keys: &[Key::Runs('f')],
    parse: |a| a.none(Command::Act(Action::Flip)),
};

pub static SAY: Spec = Spec {
    name: "say",
    args: "TEXT",
    about: "chat",
    example: "say hello there",
    keys: &[Key::Prefills('c')],
    parse: read::say,
};

pub static LIFE: Spec = Spec {
    name: "life",
    args: "N|+N|-N",
    about: "set your life total (N) or change it (+N, -N)",
    example: "life -3",
    keys: &[Key::Prefills('l')],
    parse: read::life,
};

pub static MULLIGAN: Spec = Spec {
    name: "mulligan",
    args: "[N]",
    about: "shuffle your hand into your library and draw N (default 7)",
    example: "mulligan 6",
    keys: &[Key::Prefills('m')],
    parse: read::mulligan,
};

pub static ASK: Spec = Spec {
    name: "ask",
    args: "ZONE [N]",
    about: "ask the opponent to show its ZONE (or its top N cards)",
    example: "ask library 3",
    keys: &[],
    parse: read::ask,
};

pub static REFUSE: Spec = Spec {
    name: "refuse",
    args: "ZONE",
    about: "decline the opponent's request to see your ZONE",
    example: "refuse hand",
    keys: &[],
    parse: read::refuse,
};

pub static UNDO: Spec = Spec {
    name: "undo",
    args: "[accept|refuse]",
    about: "ask the opponent to undo your last action (not a draw, shuffle, reveal or roll), or answer its request",
    example: "undo accept",
    keys: &[],
    parse: read::undo,
};

pub static TAKE_FROM_LIBRARY: Spec = Spec {
    name: "take-from-library",
    args: "",
    about: "take the top card of the opponent's library, face down",
    example: "take-from-library",
    keys: &[],
    parse: |a| a.none(Command::Act(Action::TakeFromLibrary { count: 1 })),
};

pub static NEXT_TURN: Spec = Spec {
    name: "next-turn",
    args: "[untap-draw]",
    about: "pass the turn, phase: untap; `untap-draw` taking it: untap, draw 1",
    example: "next-turn untap-draw",
    keys: &[Key::Runs('n')],
    parse: read::next_turn,
};

pub static TAP: Spec = Spec {
    name: "tap",
    args: "CARD",
    about: "turn a card in play sideways; by name, yours before the opponent's, an untapped copy first",
    example: "tap goblin guide",
    keys: &[Key::Prefills('t')],
    parse: |a| read::tap(a, true),
};

pub static UNTAP: Spec = Spec {
    name: "untap",
    args: "CARD",
    about: "turn a card in play back; by name, yours before the opponent's, a tapped copy first",
    example: "untap 12",
    keys: &[Key::Prefills('u')],
    parse: |a| read::tap(a, false),
};

pub static COUNTER: Spec = Spec {
    name: "counter",
    args: "CARD NAME N",
    about: "set a counter on a card in play (0 removes it); by name, yours before the opponent's",
    example: "counter 12 +1/+1 2",
    keys: &[Key::Prefills('+')],
    parse: read::counter,
};

pub static PLAYER_COUNTER: Spec = Spec {
    name: "player-counter",
    args: "NAME N|+N|-N",
    about: "set (N) or change (+N, -N) a counter of yours: poison, energy, any name",
    example: "player-counter poison +1",
    keys: &[],
    parse: read::player_counter,
};

pub static UNTAP_ALL: Spec = Spec {
    name: "untap-all",
    args: "",
    about: "untap every card in your play area",
    example: "untap-all",
    keys: &[Key::Runs('U')],
    parse: |a| a.none(Command::Act(Action::UntapAll)),
};

pub static TOKEN: Spec = Spec {
    name: "token",
    args: "NAME [P/T] [at X,Y]",
    about: "create a token in your play area, its name quoted or bare",
    example: "token \"Goblin\" 1/1 at 2,0",
    keys: &[Key::Prefills('T')],
    parse: read::token,
};

pub static ATTACH: Spec = Spec {
    name: "attach",
    args: "CARD to CARD",
    about: "attach a card in play (an aura, an equipment) to another; by name, yours before the opponent's",
    example: "attach bonesplitter to goblin guide",
    keys: &[],
    parse: read::attach,
};

pub static DETACH: Spec = Spec {
    name: "detach",
    args: "CARD",
    about: "detach a card in play from the card it is attached to",
    example: "detach bonesplitter",
    keys: &[],
    parse: read::detach,
};

pub static ARROW: Spec = Spec {
    name: "arrow",
    args: "CARD to CARD|opponent|me",
    about: "point from a card in play to a card in play or a player",
    example: "arrow goblin guide to opponent",
    keys: &[],
    parse: read::arrow,
};

pub static PHASE: Spec = Spec {
    name: "phase",
    args: "NAME",
    about: "announce the phase: untap, upkeep, draw, main1, combat, main2, end (any name is taken)",
    example: "phase combat",
    keys: &[],
    parse: read::phase,
};

pub static SHOW_RANDOM: Spec = Spec {
    name: "show-random",
    args: "",
    about: "show both players a random card from your hand",
    example: "show-random",
    keys: &[],
    parse: |a| a.none(Command::Act(Action::ShowRandom)),
};

pub static COMMANDER_DAMAGE: Spec = Spec {
    name: "commander-damage",
    args: "CARD N|+N|-N",
    about: "set or change the damage you took from an opposing commander; by name, its command zone, else its play area",
    example: "commander-damage krenko +3",
    keys: &[],
    parse: read::commander_damage,
};

pub static COMMAND: Spec = Spec {
    name: "command",
    args: "CARD",
    about: "put your commander into your command zone; by name, yours first, from your hand or play area, else anywhere",
    example: "command krenko",
    keys: &[],
    parse: read::command_zone,
};

pub static PLAY_FIRST: Spec = Spec {
    name: "play-first",
    args: "",
    about: "chosen to start: you play first",
    example: "play-first",
    keys: &[],
    parse: |a| a.none(Command::Act(Action::PlayOrDraw { play: true })),
};

pub static DRAW_FIRST: Spec = Spec {
    name: "draw-first",
    args: "",
    about: "chosen to start: you draw, the opponent plays first",
    example: "draw-first",
    keys: &[],
    parse: |a| a.none(Command::Act(Action::PlayOrDraw { play: false })),
};

pub static CONCEDE: Spec = Spec {
    name: "concede",
    args: "",
    about: "concede the game: you lose it; then `end` for the deck audit",
    example: "concede",
    keys: &[],
    parse: |a| a.none(Command::Act(Action::Concede)),
};

pub static END: Spec = Spec {
    name: "end",
    args: "",
    about: "end the game: reveal your deck key so the opponent audits your deck",
    example: "end",
    keys: &[],
    parse: |a| a.none(Command::End),
};

pub static FORFEIT: Spec = Spec {
    name: "forfeit",
    args: "",
    about: "end the game when the opponent has stopped answering (or left a minute ago and not come back): it forfeits",
    example: "forfeit",
    keys: &[],
    parse: |a| a.none(Command::Forfeit),
};

pub static NEW_GAME: Spec = Spec {
    name: "new-game",
    args: "[DECKFILE]",
    about: "ask for the next game, with another deck (after sideboarding) or the same; it starts once both ask",
    example: "new-game side.txt",
    keys: &[],
    parse: read::new_game,
};

pub static SIDEBOARD: Spec = Spec {
    name: "sideboard",
    args: "in CARD out CARD",
    about: "swap cards with your sideboard for the next game",
    example: "sideboard in 2 Kor Firewalker out 2 Lava Spike",
    keys: &[],
    parse: |a| crate::deck::parse_swap(a.rest).map(Command::Sideboard).map_err(|e| a.usage_with(&e)),
};

pub static PICK: Spec = Spec {
    name: "pick",
    args: "N | NAME | row N | column N",
    about: "draft: take a card of the pack, or a grid line",
    example: "pick 3",
    keys: &[],
    parse: read::pick,
};

pub static PILE: Spec = Spec {
    name: "pile",
    args: "take | pass",
    about: "Winston draft: take or pass the pile",
    example: "pile take",
    keys: &[],
    parse: read::pile,
};

pub static BUILD: Spec = Spec {
    name: "build",
    args: "DECKFILE",
    about: "your deck from a file of pool cards",
    example: "build sealed.txt",
    keys: &[],
    parse: read::build,
};

pub static ADD: Spec = Spec {
    name: "add",
    args: "[N] NAME | all",
    about: "limited play: N copies into your deck, or the whole pool",
    example: "add 2 lightning bolt",
    keys: &[Key::Prefills('a')],
    parse: |a| read::build_card(a, BuildStep::Add, BuildStep::AddPool),
};

pub static REMOVE: Spec = Spec {
    name: "remove",
    args: "[N] NAME | all",
    about: "limited play: N copies out of your deck, or all it holds",
    example: "remove 1 lightning bolt",
    keys: &[Key::Prefills('x')],
    parse: |a| read::build_card(a, BuildStep::Remove, BuildStep::RemoveAll),
};

pub static BASICS: Spec = Spec {
    name: "basics",
    args: "N LAND...",
    about: "limited play: your basic lands",
    example: "basics 8 Mountain 9 Island",
    keys: &[],
    parse: read::basics,
};

pub static POOL: Spec = Spec {
    name: "pool",
    args: "",
    about: "limited play: your pool and deck",
    example: "pool",
    keys: &[],
    parse: |a| a.none(Command::Building(BuildStep::ShowPool)),
};

pub static NEW_CODE: Spec = Spec {
    name: "new-code",
    args: "",
    about: "hosting, until the opponent proved the code: new words for the code",
    example: "new-code",
    keys: &[],
    parse: |a| a.none(Command::NewCode),
};

pub static WATCH_CODE: Spec = Spec {
    name: "watch-code",
    args: "",
    about: "open watching and show the code to give spectators (`fairdeck watch CODE`)",
    example: "watch-code",
    keys: &[],
    parse: |a| a.none(Command::Watch(WatchStep::Code)),
};

pub static NEW_WATCH_CODE: Spec = Spec {
    name: "new-watch-code",
    args: "",
    about: "new words for the watch code (spectators watching go on; the others need the new code)",
    example: "new-watch-code",
    keys: &[],
    parse: |a| a.none(Command::Watch(WatchStep::NewCode)),
};

pub static WATCH_OFF: Spec = Spec {
    name: "watch-off",
    args: "",
    about: "close watching for good, both players' spectators",
    example: "watch-off",
    keys: &[],
    parse: |a| a.none(Command::Watch(WatchStep::Off)),
};

pub static WATCH_DELAY: Spec = Spec {
    name: "watch-delay",
    args: "N",
    about: "spectators see each turn N turns later (0 to 20; the larger of both players' choices holds)",
    example: "watch-delay 1",
    keys: &[],
    parse: read::watch_delay,
};

pub static TABLE: Spec = Spec {
    name: "table",
    args: "",
    about: "print the table (zones, card ids, counts)",
    example: "table",
    keys: &[],
    parse: |a| a.none(Command::Table),
};

pub static WAIT: Spec = Spec {
    name: "wait",
    args: "",
    about: "block until no exchange is pending (prints {\"event\":\"idle\"})",
    example: "wait",
    keys: &[],
    parse: |a| a.none(Command::Wait),
};

pub static QUIT: Spec = Spec {
    name: "quit",
    args: "",
    about: "print the table, leave the game, exit 0 (also at the end of input)",
    example: "quit",
    keys: &[],
    parse: |a| a.none(Command::Quit),
};
