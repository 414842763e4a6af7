//! The player's commands: one table ([`COMMANDS`], in `table.rs`) says for each its name, arguments, what it
//! does, an example, its keys and how it is read. From it come the parser ([`read`]), the `--help` text
//! ([`help`]), the terminal table's keys ([`shortcuts`]) and its `?` overlay (`ui/overlay.rs`). When each kind
//! of parsed [`Command`] may run (a [`Gate`]) and what it does are its module's in the session (`session/cmd/`).
//!
//! Adding a command: an entry in `table.rs` (its parser in `arguments.rs` if it takes arguments). If it asks for
//! actions worked out from the table as it stands when it runs, a [`TableAct`] (`spec.rs`: its actions); if for
//! something no [`Command`] does yet, a variant, and its module in `session/cmd/` (its gate and its effect). A
//! command on one card names it by id or by name ([`CardRef`]); it is found with [`CardAct::find`] right before
//! acting.

mod arguments;
mod browsing;
mod error;
mod gate;
pub mod help;
mod mulligan;
pub(crate) mod resolve;
mod spec;
pub(crate) mod table;

use fairdeck_shared::Seat;

pub(crate) use browsing::{Browsing, purpose_name};
pub use error::ErrorKind;
pub(crate) use gate::Gate;
pub(crate) use mulligan::hand_to_bottom;
pub(crate) use resolve::CardRef;
pub(crate) use spec::{
    Amount, Args, BuildStep, CardAct, Entered, Local, PackCard, Parsed, Placing, Spec, TableAct, TopWatch, UndoStep,
    WatchStep, commander_damage_from,
};
pub use spec::{Command, Key};
pub use table::COMMANDS;

/// Reads a command line for the player in `seat`, once: its command and entry, or what was expected.
pub(crate) fn read(line: &str, seat: Seat) -> Entered {
    let line = line.trim();
    Entered { line: line.to_string(), parsed: parse_entry(line, seat) }
}

/// Parses a command line for the player in `seat`. The error says what was expected.
pub fn parse(line: &str, seat: Seat) -> Result<Command, String> {
    parse_entry(line.trim(), seat).map(|parsed| parsed.command)
}

fn parse_entry(line: &str, seat: Seat) -> Result<Parsed, String> {
    let (name, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
    let Some(&spec) = COMMANDS.iter().find(|spec| spec.name == name) else {
        return Err(format!("unknown command {name:?} (see `fairdeck --help`)"));
    };
    let rest = rest.trim();
    let command = (spec.parse)(&Args { spec, rest, words: rest.split_whitespace().collect(), seat })?;
    Ok(Parsed { spec, command })
}

/// A single key and what it does, with the command it belongs to.
#[derive(Clone, Debug)]
pub struct Shortcut {
    pub key: char,
    /// The line it runs, or with `prefill` the start of one it types for the player to complete.
    pub line: String,
    pub prefill: bool,
    /// What it does, in one line.
    pub about: &'static str,
    pub spec: &'static Spec,
}

/// Every single-key shortcut, in the table's order.
pub fn shortcuts() -> impl Iterator<Item = Shortcut> {
    COMMANDS.iter().flat_map(|&spec| {
        spec.keys.iter().map(move |key| match *key {
            Key::Runs(key) => Shortcut { key, line: spec.name.to_string(), prefill: false, about: spec.about, spec },
            Key::RunsLine { key, line, about } => Shortcut { key, line: line.to_string(), prefill: false, about, spec },
            Key::Prefills(key) => {
                Shortcut { key, line: format!("{} ", spec.name), prefill: true, about: spec.about, spec }
            }
        })
    })
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use fairdeck_shared::crypto::Dice;
    use fairdeck_shared::table::{CardId, Placement, Position, PowerToughness, ZoneId, ZoneKind};
    use fairdeck_shared::wire::Action;

    use super::spec::{ArrowTo, CardAct, Spot, TableAct};
    use super::*;

    #[test]
    fn every_entry_parses_from_its_own_example() {
        for spec in COMMANDS {
            assert_eq!(spec.example.split_whitespace().next(), Some(spec.name), "{}", spec.example);
            for seat in Seat::BOTH {
                assert!(parse(spec.example, seat).is_ok(), "{}: {:?}", spec.example, parse(spec.example, seat));
            }
        }
    }

    #[test]
    fn names_and_keys_are_each_taken_once() {
        let mut names: Vec<&str> = COMMANDS.iter().map(|spec| spec.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), COMMANDS.len(), "a command name is in the table twice");
        let mut keys: Vec<char> = shortcuts().map(|s| s.key).collect();
        let count = keys.len();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), count, "a key runs two commands");
        // A key that runs a line runs a line of its own command that parses.
        for shortcut in shortcuts().filter(|s| !s.prefill) {
            assert_eq!(shortcut.line.split_whitespace().next(), Some(shortcut.spec.name));
            assert!(parse(&shortcut.line, Seat::HOST).is_ok(), "{}", shortcut.line);
        }
    }

    #[test]
    fn pick_reads_a_grid_line_or_a_card_of_the_pack_by_number_or_name() {
        use fairdeck_shared::wire::GridLine;
        let host = Seat::HOST;
        assert_eq!(parse("pick row 2", host), Ok(Command::Pick(GridLine::Row(1))));
        assert_eq!(parse("pick column 3", host), Ok(Command::Pick(GridLine::Column(2))));
        assert_eq!(parse("pick 12", host), Ok(Command::TakeCard(PackCard::Number(12))));
        assert_eq!(parse("pick lightning bolt", host), Ok(Command::TakeCard(PackCard::Name("lightning bolt".into()))));
        assert_eq!(parse("pick \"Fire // Ice\"", host), Ok(Command::TakeCard(PackCard::Name("Fire // Ice".into()))));
        for wrong in ["pick", "pick 0", "pick row 4", "pick column x"] {
            assert!(parse(wrong, host).is_err(), "{wrong}");
        }
    }

    #[test]
    fn browsing_commands_parse() {
        use fairdeck_shared::wire::PeekPurpose;
        let host = Seat::HOST;
        assert_eq!(parse("search", host), Ok(Command::Browse(PeekPurpose::Search, None)));
        assert_eq!(parse("surveil 2", host), Ok(Command::Browse(PeekPurpose::Surveil, Some(2))));
        assert_eq!(parse("take 4", host), Ok(Command::Take(CardRef::Id(CardId(4)), ZoneKind::Hand)));
        assert_eq!(
            parse("take lightning bolt exile", host),
            Ok(Command::Take(CardRef::Name("lightning bolt".into()), ZoneKind::Exile))
        );
        assert_eq!(
            parse("top 12 \"Lightning Bolt\" #3", host),
            Ok(Command::Place(
                Placing::Top,
                vec![CardRef::Id(CardId(12)), CardRef::Name("Lightning Bolt".into()), CardRef::Id(CardId(3))]
            ))
        );
        assert!(parse("bottom \"Bolt", host).is_err());
        assert!(parse("grave", host).is_err());
        assert_eq!(parse("reveal hand", host), Ok(Command::RevealHand));
        assert_eq!(parse("reveal top", host), Ok(Command::RevealTop));
    }

    #[test]
    fn table_actions_parse() {
        let host = Seat::HOST;
        assert_eq!(parse("draw 7", host), Ok(Command::Act(Action::Draw { count: 7 })));
        assert_eq!(parse("roll 2d6", host), Ok(Command::Act(Action::Roll { dice: Dice::new(2, 6).unwrap() })));
        assert_eq!(parse("end", host), Ok(Command::End));
        assert_eq!(parse("forfeit", host), Ok(Command::Forfeit));
        assert_eq!(parse("mulligan", host), Ok(Command::Act(Action::Mulligan { draw: 7 })));
        assert_eq!(parse("phase main1", host), Ok(Command::Act(Action::SetPhase { phase: "main1".into() })));
        assert_eq!(parse("play-first", host), Ok(Command::Act(Action::PlayOrDraw { play: true })));
        assert_eq!(parse("concede", host), Ok(Command::Act(Action::Concede)));
        assert_eq!(parse("new-game", host), Ok(Command::NewGame(None)));
        assert_eq!(parse("new-game side.txt", host), Ok(Command::NewGame(Some(PathBuf::from("side.txt")))));
    }

    #[test]
    fn building_reads_a_count_and_a_name_or_all() {
        let host = Seat::HOST;
        let step = |line| match parse(line, host) {
            Ok(Command::Building(step)) => Ok(step),
            other => Err(other),
        };
        assert_eq!(step("add 2 lightning bolt"), Ok(BuildStep::Add(2, "lightning bolt".into())));
        assert_eq!(step("add \"Goblin Guide\""), Ok(BuildStep::Add(1, "Goblin Guide".into())));
        assert_eq!(step("add ALL"), Ok(BuildStep::AddPool));
        assert_eq!(step("remove all"), Ok(BuildStep::RemoveAll));
        assert_eq!(step("add all is dust"), Ok(BuildStep::Add(1, "all is dust".into())), "a card's name");
        assert_eq!(step("remove 1 all is dust"), Ok(BuildStep::Remove(1, "all is dust".into())));
        assert!(step("add 0 all").is_err());
    }

    #[test]
    fn mill_parses_a_count_of_one_or_more() {
        let host = Seat::HOST;
        assert_eq!(parse("mill 3", host), Ok(Command::OnTable(TableAct::Mill(3))));
        assert_eq!(parse("mill", host), Err("usage: mill N".into()));
        assert_eq!(parse("mill x", host), Err("usage: mill N (a whole number)".into()));
        assert_eq!(parse("mill 0", host), Err("usage: mill N (N of 1 or more)".into()));
        assert_eq!(parse("mill 1 2", host), Err("usage: mill N".into()));
    }

    #[test]
    fn card_commands_parse() {
        let host = Seat::HOST;
        assert_eq!(
            parse("play #3 at 10,-2 facedown", host),
            Ok(Command::OnCard(
                CardRef::Id(CardId(3)),
                CardAct::Play {
                    area: ZoneId::new(host, ZoneKind::Play),
                    spot: Spot::At { x: 10, y: -2 },
                    face_down: true
                }
            ))
        );
        assert_eq!(
            parse("move 4 opponent graveyard bottom", Seat::GUEST),
            Ok(Command::OnCard(
                CardRef::Id(CardId(4)),
                CardAct::Move { to: ZoneId::new(Seat::HOST, ZoneKind::Graveyard), position: Position::Bottom }
            ))
        );
        assert_eq!(
            parse("reveal 5 to opponent", host),
            Ok(Command::OnCard(CardRef::Id(CardId(5)), CardAct::Reveal { to: Some(Seat::GUEST) }))
        );
        assert_eq!(parse("tap #12", host), Ok(Command::OnCard(CardRef::Id(CardId(12)), CardAct::Tap(true))));
        assert_eq!(
            parse("counter 12 +1/+1 2", host),
            Ok(Command::OnCard(CardRef::Id(CardId(12)), CardAct::Counter { key: "+1/+1".into(), value: Some(2) }))
        );
        assert_eq!(
            parse("commander-damage #7 +3", host),
            Ok(Command::OnCard(CardRef::Id(CardId(7)), CardAct::CommanderDamage(Amount::Add(3))))
        );
        assert_eq!(
            parse("command 7", host),
            Ok(Command::OnCard(
                CardRef::Id(CardId(7)),
                CardAct::Move { to: ZoneId::new(host, ZoneKind::Command), position: Position::Top }
            ))
        );
    }

    #[test]
    fn play_takes_the_next_free_spot_unless_told_where() {
        let host = Seat::HOST;
        let area = ZoneId::new(host, ZoneKind::Play);
        let play = |card: &str, spot, face_down| {
            Ok(Command::OnCard(CardRef::Name(card.into()), CardAct::Play { area, spot, face_down }))
        };
        assert_eq!(parse("play goblin guide", host), play("goblin guide", Spot::Next, false));
        assert_eq!(parse("play goblin guide facedown", host), play("goblin guide", Spot::Next, true));
        assert_eq!(parse("play Hit at Dawn", host), play("Hit at Dawn", Spot::Next, false));
        assert_eq!(parse("play Hit at Dawn at -1,2", host), play("Hit at Dawn", Spot::At { x: -1, y: 2 }, false));
        assert_eq!(parse("play bolt at 3,x", host), Err("usage: play CARD [at X,Y] [facedown]".into()));
        assert_eq!(parse("play facedown", host), Err("usage: play CARD [at X,Y] [facedown]".into()));
    }

    #[test]
    fn reveal_library_next_turn_and_bottom_of_the_hand_parse() {
        let host = Seat::HOST;
        let reveal = |count| Ok(Command::OnTable(TableAct::RevealLibrary { count, looked: false }));
        assert_eq!(parse("reveal library 3", host), reveal(Some(3)));
        assert_eq!(parse("reveal library", host), reveal(None));
        assert!(parse("reveal library 0", host).is_err());
        // A card of that name, in quotes or with more words.
        assert_eq!(
            parse("reveal \"library\"", host),
            Ok(Command::OnCard(CardRef::Name("library".into()), CardAct::Reveal { to: None }))
        );
        assert_eq!(
            parse("reveal library of alexandria", host),
            Ok(Command::OnCard(CardRef::Name("library of alexandria".into()), CardAct::Reveal { to: None }))
        );
        assert_eq!(parse("next-turn", host), Ok(Command::OnTable(TableAct::NextTurn { untap_draw: false })));
        assert_eq!(parse("next-turn untap-draw", host), Ok(Command::OnTable(TableAct::NextTurn { untap_draw: true })));
        assert_eq!(parse("next-turn now", host), Err("usage: next-turn [untap-draw]".into()));
        let name = |text: &str| CardRef::Name(text.into());
        assert_eq!(
            parse("bottom Mountain, Lava Spike", host),
            Ok(Command::Place(Placing::Bottom, vec![name("Mountain"), name("Lava Spike")]))
        );
        assert_eq!(
            parse("bottom \"Krenko, Mob Boss\" , #12", host),
            Ok(Command::Place(Placing::Bottom, vec![name("Krenko, Mob Boss"), CardRef::Id(CardId(12))]))
        );
        assert_eq!(parse("bottom Mountain,", host), Err("usage: bottom CARD...".into()));
        // Without a comma, as before: each word or quoted name one card.
        assert_eq!(
            parse("bottom Mountain \"Lava Spike\"", host),
            Ok(Command::Place(Placing::Bottom, vec![name("Mountain"), name("Lava Spike")]))
        );
    }

    #[test]
    fn attachments_and_arrows_parse() {
        let host = Seat::HOST;
        assert_eq!(
            parse("attach 3 to goblin guide", host),
            Ok(Command::OnCard(
                CardRef::Id(CardId(3)),
                CardAct::Attach { to: Some(CardRef::Name("goblin guide".into())) }
            ))
        );
        assert_eq!(parse("detach 3", host), Ok(Command::OnCard(CardRef::Id(CardId(3)), CardAct::Attach { to: None })));
        assert_eq!(
            parse("arrow 3 to opponent", host),
            Ok(Command::OnCard(CardRef::Id(CardId(3)), CardAct::Arrow { to: ArrowTo::Player(Seat::GUEST) }))
        );
        assert_eq!(
            parse("arrow 3 to me", host),
            Ok(Command::OnCard(CardRef::Id(CardId(3)), CardAct::Arrow { to: ArrowTo::Player(host) }))
        );
    }

    #[test]
    fn players_talk_values_and_tokens_parse() {
        let host = Seat::HOST;
        assert_eq!(parse("say hello there", host), Ok(Command::Chat("hello there".into())));
        assert_eq!(parse("ask hand", host), Ok(Command::Ask(ZoneId::hand(Seat::GUEST), None)));
        assert_eq!(parse("ask library 3", host), Ok(Command::Ask(ZoneId::library(Seat::GUEST), Some(3))));
        assert_eq!(parse("refuse hand", host), Ok(Command::Refuse(ZoneId::hand(host))));
        assert_eq!(parse("life -3", host), Ok(Command::PlayerValue { key: "life".into(), amount: Amount::Add(-3) }));
        assert_eq!(parse("life 40", host), Ok(Command::PlayerValue { key: "life".into(), amount: Amount::Set(40) }));
        assert_eq!(
            parse("player-counter poison +1", host),
            Ok(Command::PlayerValue { key: "poison".into(), amount: Amount::Add(1) })
        );
        assert_eq!(
            parse("token \"Goblin\" 1/1", host),
            Ok(Command::Token {
                name: "Goblin".into(),
                power_toughness: Some(PowerToughness { power: 1, toughness: 1 }),
                placement: Placement::default()
            })
        );
        assert_eq!(
            parse("token Goblin Warrior at 2,-1", host),
            Ok(Command::Token {
                name: "Goblin Warrior".into(),
                power_toughness: None,
                placement: Placement { x: 2, y: -1, face_down: false }
            })
        );
    }

    #[test]
    fn incomplete_arguments_are_refused() {
        for line in [
            "counter 12 poison",
            "life",
            "life x",
            "life +",
            "player-counter poison",
            "player-counter poison x",
            "token",
            "token 1/1",
            "token Goblin x/1",
            "token Goblin at 1",
            "attach 3",
            "attach to 4",
            "attach 3 to",
            "detach",
            "arrow 3",
            "arrow 3 to",
            "commander-damage +3",
            "commander-damage krenko x",
            "command",
            "phase",
            "concede now",
            "untap-all 3",
        ] {
            assert!(parse(line, Seat::HOST).is_err(), "{line} should be refused");
        }
    }

    #[test]
    fn a_line_is_read_once_with_its_entry_or_its_error() {
        let entered = read("  draw 2 ", Seat::HOST);
        assert_eq!(entered.line, "draw 2");
        let parsed = entered.parsed.expect("draw parses");
        assert_eq!(parsed.spec.name, table::DRAW.name);
        assert_eq!(parsed.command, Command::Act(Action::Draw { count: 2 }));
        assert_eq!(read("dance", Seat::HOST).parsed, Err("unknown command \"dance\" (see `fairdeck --help`)".into()));
        // `view` is the terminal's alone.
        assert!(read("view graveyard", Seat::HOST).parsed.is_err());
        assert_eq!(table::VIEW.arguments("view opponent exile"), Some(" opponent exile"));
        assert_eq!(table::VIEW.arguments("viewer"), None);
    }

    #[test]
    fn cards_are_named_by_id_or_by_name() {
        let host = Seat::HOST;
        let card = |line: &str| match parse(line, host) {
            Ok(Command::OnCard(card, _)) => card,
            other => panic!("{line}: {other:?}"),
        };
        let name = |text: &str| CardRef::Name(text.into());
        assert_eq!(card("tap 12"), CardRef::Id(CardId(12)));
        assert_eq!(card("tap #12"), CardRef::Id(CardId(12)));
        assert_eq!(card("tap guide"), name("guide"));
        assert_eq!(card("play bolt at 1,0"), name("bolt"));
        // Unquoted, every word before the grammar's own: ` at ` for play, the zone for move.
        assert_eq!(card("play Lightning Bolt at 1,0 facedown"), name("Lightning Bolt"));
        assert_eq!(card("play Hit at Dawn at 1,0"), name("Hit at Dawn"));
        assert_eq!(card("move Library of Alexandria opponent exile bottom"), name("Library of Alexandria"));
        assert_eq!(card("reveal goblin guide to opponent"), name("goblin guide"));
        assert_eq!(card("counter llanowar elves +1/+1 2"), name("llanowar elves"));
        // Quoted, the name as written, spaces and all; a quoted number is a name.
        assert_eq!(card("move \"Lightning Bolt\" graveyard"), name("Lightning Bolt"));
        assert_eq!(card("untap \"12\""), name("12"));
        assert_eq!(
            parse("move \"Lightning Bolt\" opponent graveyard top", host),
            Ok(Command::OnCard(
                name("Lightning Bolt"),
                CardAct::Move { to: ZoneId::new(Seat::GUEST, ZoneKind::Graveyard), position: Position::Top }
            ))
        );
        assert_eq!(parse("tap \"Lightning Bolt", host), Err("\"Lightning Bolt lacks its closing quote".into()));
        assert_eq!(parse("tap #bolt", host), Err("\"#bolt\" is not a card id".into()));
        assert_eq!(parse("tap \"\"", host), Err("usage: tap CARD".into()));
        assert_eq!(parse("move graveyard", host), Err("usage: move CARD [opponent] ZONE [top|bottom]".into()));
        assert_eq!(parse("play at 1,0", host), Err("usage: play CARD [at X,Y] [facedown]".into()));
        assert_eq!(parse("reveal to opponent", host), Err("usage: reveal CARD [to opponent] | hand | top".into()));
    }

    #[test]
    fn bad_commands_say_why() {
        for line in [
            "draw",
            "draw x",
            "play 3 at 1",
            "move 3 swamp",
            "roll 0d6",
            "roll 2d",
            "say",
            "dance",
            "wait 3",
            "forfeit now",
            "ask",
            "ask deck",
            "ask hand x",
        ] {
            assert!(parse(line, Seat::HOST).is_err(), "{line} should be refused");
        }
        // The messages name what was expected, as they always have.
        assert_eq!(parse("draw", Seat::HOST), Err("usage: draw N".into()));
        assert_eq!(parse("draw x", Seat::HOST), Err("usage: draw N (a whole number)".into()));
        assert_eq!(parse("roll 2d", Seat::HOST), Err("usage: roll NdM (such as 2d6)".into()));
        assert_eq!(parse("untap", Seat::HOST), Err("usage: untap CARD".into()));
        assert_eq!(parse("wait 3", Seat::HOST), Err("`wait` takes no argument".into()));
        assert_eq!(parse("dance", Seat::HOST), Err("unknown command \"dance\" (see `fairdeck --help`)".into()));
    }
}
