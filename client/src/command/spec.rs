//! The vocabulary of the command table: what a command line asks for ([`Command`]), one entry of the table
//! ([`Spec`]), its single-key shortcuts ([`Key`]), what an entry's parser reads ([`Args`]), a line read once
//! ([`Entered`]), and the terminal's own commands, which never reach a session ([`Local`]).

use std::path::PathBuf;

use fairdeck_shared::Seat;
use fairdeck_shared::crypto::Group;
use fairdeck_shared::engine::Engine;
use fairdeck_shared::table::{Card, CardId, Placement, Position, PowerToughness, Table, ZoneId, ZoneKind};
use fairdeck_shared::wire::{Action, ArrowTarget, BasicLand, GridLine, PeekPurpose, PileChoice};

use super::resolve::{CardError, CardRef, Reach, resolve_in};

/// What one command line asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    Act(Action),
    /// An action on one card, named by id or by name: the session finds the card on its table first.
    OnCard(CardRef, CardAct),
    Chat(String),
    /// A number of the player's own (`life`, `poison`, any name), set or changed by the table's current value.
    PlayerValue {
        key: String,
        amount: Amount,
    },
    /// A token of the player's, named as typed, into its play area.
    Token {
        name: String,
        power_toughness: Option<PowerToughness>,
        placement: Placement,
    },
    /// Actions worked out from the table as it stands when the command runs.
    OnTable(TableAct),
    /// End the game: reveal this player's deck key for the opponent's audit.
    End,
    /// Ask for the next game of the match, with another deck file (after sideboarding) or the
    /// same deck.
    NewGame(Option<PathBuf>),
    /// Trade cards between the main deck and the sideboard for the next game (`new-game` without a file takes it).
    Sideboard(crate::deck::Swap),
    /// Limited play: this player's first deck, from the deck file's cards of its pool and basic lands.
    Build(PathBuf),
    /// Grid draft: take this row or column of the grid shown.
    Pick(GridLine),
    /// Winston draft: take or pass the pile looked at.
    Pile(PileChoice),
    /// Booster draft: take this card of the pack shown.
    TakeCard(PackCard),
    /// Limited play: the deck built at the table from the pool changed, or the pool shown (`done` sends it).
    Building(BuildStep),
    /// End the game on the opponent's silence: it forfeits.
    Forfeit,
    /// Ask the opponent to show its zone (the top N cards, or all).
    Ask(ZoneId, Option<u32>),
    /// Decline the opponent's request to see one of this player's zones.
    Refuse(ZoneId),
    /// Undo by consent: ask to undo this player's last action, or answer the opponent's request.
    Undo(UndoStep),
    /// Look at the top N cards of the library (all of it for a search) for `purpose`, in a view that stays open
    /// until `done`.
    Browse(PeekPurpose, Option<u32>),
    /// While a search is open: one of the searched cards into a zone of this player's.
    Take(CardRef, ZoneKind),
    /// While a scry or surveil is open: the named cards, in the order given, to the top, the bottom or the
    /// graveyard.
    Place(Placing, Vec<CardRef>),
    /// Close the open search (shuffling the library), scry or surveil.
    Done,
    /// Reveal every card of this player's hand to the opponent.
    RevealHand,
    /// Look at the top card of this player's library and reveal it to both.
    RevealTop,
    /// Keep the top card of this player's library looked at or revealed to both whenever it changes, or
    /// (`None`) stop.
    WatchTop(Option<TopWatch>),
    /// Hosting, before the opponent proved the code: new words, and the seat to the next guest.
    NewCode,
    /// Spectators: this seat's watch code shown (watching opened first), watching turned off, or the delay chosen.
    Watch(WatchStep),
    Table,
    Wait,
    Quit,
}

/// Limited play: one step of building the deck from the pool at the table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BuildStep {
    /// This many more copies of the card named (a pool card's name, any case, or the one it begins; or a basic
    /// land).
    Add(u32, String),
    /// This many copies of the card named out of the deck.
    Remove(u32, String),
    /// `add all`: every card of the pool into the deck.
    AddPool,
    /// `remove all`: the deck emptied, its basic lands too.
    RemoveAll,
    /// The deck's basic lands are these, no others.
    Basics(Vec<(u32, BasicLand)>),
    /// The pool by name, with how many of each are in the deck.
    ShowPool,
}

/// What a player does about its spectators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WatchStep {
    /// Open watching if it is not open, and show the watch code.
    Code,
    /// New words for the watch code (after guesses closed it, or if it was overheard), and show it.
    NewCode,
    /// Close every watch seat of the game for good (both players' spectators).
    Off,
    /// This player's choice of delay, in turns: spectators see a turn's messages that many turns later.
    Delay(u8),
}

/// A step of an undo by consent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UndoStep {
    /// Ask the opponent to undo this player's last action.
    Ask,
    /// Undo the opponent's last action, which it asked to undo.
    Accept,
    /// Refuse the opponent's request.
    Refuse,
}

/// Booster draft: a card of the pack shown, as `pick` names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PackCard {
    /// Its number in the pack as shown, from 1.
    Number(u32),
    /// Its name, any case.
    Name(String),
}

/// A command whose actions depend on the table as it stands when it runs, not when it was typed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TableAct {
    /// The top N cards of the player's library into its graveyard, one by one (fewer if the library holds fewer).
    Mill(u32),
    /// The top N cards of the player's library (all of it for `None`) shown to the opponent: the answer to its
    /// `ask library N`. Cards the player does not know yet it looks at first; the command then runs again,
    /// `looked`, once the look is answered.
    RevealLibrary { count: Option<u32>, looked: bool },
    /// The turn passed and the phase set back to the first; with `untap_draw`, the turn begun is the player's own
    /// and its cards untap and it draws a card.
    NextTurn { untap_draw: bool },
}

/// The phase a turn begins with: the first of those `phase` names.
pub const FIRST_PHASE: &str = "untap";

impl TableAct {
    /// The actions, from `engine`'s table now; or why there are none.
    pub fn actions<G: Group>(&self, engine: &Engine<G>) -> Result<Vec<Action>, String> {
        let seat = engine.seat();
        match *self {
            TableAct::Mill(count) => {
                let library = engine.table().zone(ZoneId::library(seat));
                if library.is_empty() {
                    return Err("your library is empty".into());
                }
                let to = ZoneId::new(seat, ZoneKind::Graveyard);
                let moved = library.iter().take(count as usize);
                let action =
                    |&card| Action::Move { card, to, position: Position::Top, placement: Placement::default() };
                Ok(moved.map(action).collect())
            }
            TableAct::RevealLibrary { count, looked } => {
                let library = engine.table().zone(ZoneId::library(seat));
                if library.is_empty() {
                    return Err("your library is empty".into());
                }
                let count = count.map_or(library.len(), |count| library.len().min(count as usize));
                let cards = library[..count].to_vec();
                let known = |card: &CardId| engine.table().card(*card).is_some_and(|card| card.known_to.knows(seat));
                match (cards.iter().all(known), looked) {
                    (true, _) => Ok(vec![Action::Reveal { cards, to: Some(seat.opponent()) }]),
                    // Nobody shows a card it has not seen.
                    (false, false) => {
                        let count = u32::try_from(count).unwrap_or(u32::MAX);
                        Ok(vec![Action::Peek { count, purpose: PeekPurpose::Look }])
                    }
                    (false, true) => Err("your look at your library was not answered: nothing shown".into()),
                }
            }
            TableAct::NextTurn { untap_draw } => {
                let mut actions = vec![Action::NextTurn, Action::SetPhase { phase: FIRST_PHASE.into() }];
                if untap_draw {
                    // As the engine passes it: to the other of the player whose turn it is (at the first, of the
                    // player passing it).
                    let next = engine.table().active.map_or(seat.opponent(), Seat::opponent);
                    if next != seat {
                        return Err("this passes the turn to the opponent: untapping and drawing are for the start \
                                    of your own turn"
                            .into());
                    }
                    actions.extend([Action::UntapAll, Action::Draw { count: 1 }]);
                }
                Ok(actions)
            }
        }
    }

    /// What runs once `actions`, this command's, are answered, if it has more to do: the reveal of library cards
    /// its player first had to look at.
    pub fn then(&self, actions: &[Action]) -> Option<TableAct> {
        match (self, actions) {
            (&TableAct::RevealLibrary { count, looked: false }, [Action::Peek { .. }]) => {
                Some(TableAct::RevealLibrary { count, looked: true })
            }
            _ => None,
        }
    }
}

/// Where on its play area a card goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spot {
    /// Where the command says (`at X,Y`).
    At { x: i32, y: i32 },
    /// The first free spot, row by row.
    Next,
}

/// Spots in a row of a play area, for cards placed for the player: the board lists a play area by row, then
/// column.
const ROW: i32 = 8;

impl Spot {
    /// The placement on `area` of `table`; for `Next` a spot no card holds there but `moving` (a card already in
    /// the area leaves its own spot free).
    pub fn placement(self, table: &Table, area: ZoneId, moving: CardId, face_down: bool) -> Placement {
        let (x, y) = match self {
            Spot::At { x, y } => (x, y),
            Spot::Next => {
                let taken: Vec<(i32, i32)> = (table.zone(area).iter())
                    .filter(|&&id| id != moving)
                    .filter_map(|&id| table.card(id))
                    .map(|card| (card.placement.x, card.placement.y))
                    .collect();
                // One more spot than the cards there: one of them is free.
                (0..).map(|i| (i % ROW, i / ROW)).find(|spot| !taken.contains(spot)).unwrap_or_default()
            }
        };
        Placement { x, y, face_down }
    }
}

/// What the player keeps doing with its library's top card.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TopWatch {
    /// Look at it: known to its owner.
    Look,
    /// Reveal it: known to both players.
    Reveal,
}

/// Where a scry or surveil puts the cards it names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placing {
    /// On top of the library, the first named topmost.
    Top,
    /// At the bottom of the library, the last named bottommost.
    Bottom,
    /// Into the graveyard (surveil only).
    Graveyard,
}

/// A number as a command gives it: `3` sets it, `+3` and `-3` change the current value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Amount {
    Set(i64),
    Add(i64),
}

impl Amount {
    /// The new value, from `current`.
    pub fn apply(self, current: i64) -> i64 {
        match self {
            Amount::Set(value) => value,
            Amount::Add(change) => current.saturating_add(change),
        }
    }
}

/// What an arrow points at, as a command line names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArrowTo {
    Card(CardRef),
    Player(Seat),
}

/// What a command does to the one card it names, once found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CardAct {
    /// Into `area`, the player's own play area, at `spot`, face down or not.
    Play {
        area: ZoneId,
        spot: Spot,
        face_down: bool,
    },
    Move {
        to: ZoneId,
        position: Position,
    },
    /// To both players, or to the one seat.
    Reveal {
        to: Option<Seat>,
    },
    /// Tapped (`true`) or untapped.
    Tap(bool),
    /// A counter's new value; `None` removes it.
    Counter {
        key: String,
        value: Option<i64>,
    },
    /// Attached to the card named (found in either play area), or detached.
    Attach {
        to: Option<CardRef>,
    },
    Arrow {
        to: ArrowTo,
    },
    /// The damage this player took from the opposing commander named: a value of the player's, keyed by the
    /// commander (`commander:#ID`), so each commander counts apart.
    CommanderDamage(Amount),
}

impl CardAct {
    /// The card `card` names for this action, on `engine`'s table. An id is taken as it is.
    pub fn find<G: Group>(&self, engine: &Engine<G>, card: &CardRef) -> Result<CardId, CardError> {
        resolve_in(engine, card, self.reach(), |card| self.prefers(card))
    }

    /// The action on `card`; a second card named by name is found on `engine`'s table, and a change of
    /// commander damage reads the current value there.
    pub fn action<G: Group>(&self, engine: &Engine<G>, card: CardId) -> Result<Action, CardError> {
        let in_play = |card: &CardRef| resolve_in(engine, card, Reach::InPlay, |_| true);
        Ok(match self {
            CardAct::Play { area, spot, face_down } => {
                let placement = spot.placement(engine.table(), *area, card, *face_down);
                Action::Move { card, to: *area, position: Position::Top, placement }
            }
            CardAct::Move { to, position } => {
                Action::Move { card, to: *to, position: *position, placement: Placement::default() }
            }
            CardAct::Reveal { to } => Action::Reveal { cards: vec![card], to: *to },
            CardAct::Tap(tapped) => Action::Tap { card, tapped: *tapped },
            CardAct::Counter { key, value } => Action::SetCardValue { card, key: key.clone(), value: *value },
            CardAct::Attach { to } => Action::Attach { card, to: to.as_ref().map(in_play).transpose()? },
            CardAct::Arrow { to } => {
                let to = match to {
                    ArrowTo::Card(target) => ArrowTarget::Card(in_play(target)?),
                    ArrowTo::Player(seat) => ArrowTarget::Player(*seat),
                };
                Action::Arrow { from: card, to }
            }
            CardAct::CommanderDamage(amount) => {
                let key = commander_damage_key(card);
                let current = engine.table().player(engine.seat()).values.get(&key).copied().unwrap_or(0);
                Action::SetPlayerValue { value: amount.apply(current), key }
            }
        })
    }

    /// Where a card named by name is looked for.
    pub fn reach(&self) -> Reach {
        match self {
            CardAct::Play { .. } => Reach::ToPlay,
            CardAct::Move { to, .. } => Reach::Anywhere { but: *to },
            CardAct::Reveal { .. } => Reach::Unseen,
            CardAct::Tap(_) | CardAct::Counter { .. } | CardAct::Attach { .. } | CardAct::Arrow { .. } => Reach::InPlay,
            CardAct::CommanderDamage(_) => Reach::Commander,
        }
    }

    /// Among copies of one card in one zone, whether this one is the better pick: the one the action changes
    /// (an untapped copy for `tap`, a tapped one for `untap`).
    pub fn prefers(&self, card: &Card) -> bool {
        match self {
            CardAct::Tap(tap) => card.tapped != *tap,
            _ => true,
        }
    }
}

/// The player value that counts the damage taken from the commander `card`.
pub fn commander_damage_key(card: CardId) -> String {
    format!("commander:{card}")
}

/// The opposing commander whose damage the player value `key` counts: the reverse of [`commander_damage_key`].
pub fn commander_damage_from(key: &str) -> Option<CardId> {
    key.strip_prefix("commander:#").and_then(|id| id.parse().ok()).map(CardId)
}

/// One command: everything the parser, `--help`, the keys and the `?` overlay say about it.
#[derive(Debug)]
pub struct Spec {
    /// The first word of the line.
    pub name: &'static str,
    /// The arguments as the help shows them (`CARD at X,Y [facedown]`); empty when there are none.
    pub args: &'static str,
    /// What it does, in one line.
    pub about: &'static str,
    /// A line that runs it, arguments and all (the tests parse every one).
    pub example: &'static str,
    /// Its single keys on the terminal table, if any.
    pub keys: &'static [Key],
    /// Reads the line into a [`Command`], or says what was expected.
    pub parse: fn(&Args) -> Result<Command, String>,
}

impl Spec {
    /// The name and its arguments: `draw N`.
    pub fn usage(&self) -> String {
        if self.args.is_empty() { self.name.to_string() } else { format!("{} {}", self.name, self.args) }
    }
}

/// A command line as it was read, once: what it asks for with the entry that read it, or what was expected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entered {
    /// The line, trimmed: refusals and the terminal's log quote it.
    pub line: String,
    pub parsed: Result<Parsed, String>,
}

/// A command line that parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parsed {
    pub spec: &'static Spec,
    pub command: Command,
}

impl PartialEq for Spec {
    /// Entries are told apart by name: the table takes each once.
    fn eq(&self, other: &Spec) -> bool {
        self.name == other.name
    }
}

impl Eq for Spec {}

/// A command of the terminal table alone (`view`): it changes what the screen shows, so the session never sees
/// it and scripted mode does not take it.
#[derive(Debug)]
pub struct Local {
    pub name: &'static str,
    pub about: &'static str,
}

impl Local {
    /// The words after the name, if `line` is this command.
    pub fn arguments<'l>(&self, line: &'l str) -> Option<&'l str> {
        line.strip_prefix(self.name).filter(|rest| rest.is_empty() || rest.starts_with(' '))
    }
}

/// A single-key shortcut of the terminal table, while the command line is closed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Key {
    /// Runs the command, which takes no argument.
    Runs(char),
    /// Runs `line` at once (`draw 1`): `about` says what that does.
    RunsLine { key: char, line: &'static str, about: &'static str },
    /// Opens the command line with the command's name typed, for the player to complete.
    Prefills(char),
}

/// A command line as an entry's parser reads it.
pub struct Args<'a> {
    pub spec: &'a Spec,
    /// Everything after the name, trimmed (`say` takes it whole).
    pub rest: &'a str,
    /// `rest` in words.
    pub words: Vec<&'a str>,
    /// Whose command it is: `opponent` and zone names are read from this seat.
    pub seat: Seat,
}

impl Args<'_> {
    /// `usage: draw N`.
    pub fn usage(&self) -> String {
        format!("usage: {}", self.spec.usage())
    }

    /// `usage: draw N (note)`.
    pub fn usage_with(&self, note: &str) -> String {
        format!("{} ({note})", self.usage())
    }

    /// `command`, if the line has no argument.
    pub fn none(&self, command: Command) -> Result<Command, String> {
        if self.words.is_empty() { Ok(command) } else { Err(format!("`{}` takes no argument", self.spec.name)) }
    }
}

#[cfg(test)]
mod tests {
    use fairdeck_shared::crypto::Ristretto255;
    use fairdeck_shared::engine::Intent;
    use fairdeck_shared::pair::{Pair, numbered_deck};
    use fairdeck_shared::table::Knowledge;

    use super::*;

    fn ready_pair() -> Pair<Ristretto255> {
        let mut pair = Pair::new(numbered_deck("Host", 5, 0), numbered_deck("Guest", 5, 0), 9);
        pair.drive();
        assert!(pair.host.is_ready() && pair.guest.is_ready(), "set-up did not finish");
        pair
    }

    #[test]
    fn mill_moves_the_library_top_cards_into_the_graveyard_known_to_both() {
        let mut pair = ready_pair();
        let library = pair.host.table().zone(ZoneId::library(Seat::HOST)).to_vec();
        for action in TableAct::Mill(2).actions(&pair.host).unwrap() {
            pair.intent(Seat::HOST, Intent::Act(action)).unwrap();
        }
        pair.drive();
        let graveyard = ZoneId::new(Seat::HOST, ZoneKind::Graveyard);
        // The top card went first: the second one lies on it.
        assert_eq!(pair.host.table().zone(graveyard), [library[1], library[0]]);
        assert_eq!(pair.guest.table().zone(graveyard), [library[1], library[0]]);
        assert_eq!(pair.host.table().zone(ZoneId::library(Seat::HOST)), &library[2..]);
        for card in &library[..2] {
            assert_eq!(pair.host.table().card(*card).unwrap().known_to, Knowledge::BOTH);
            assert!(pair.guest.identity(*card).is_some(), "the guest knows the milled {card}");
        }
    }

    fn run(pair: &mut Pair<Ristretto255>, seat: Seat, actions: Vec<Action>) {
        for action in actions {
            pair.intent(seat, Intent::Act(action)).unwrap();
        }
        pair.drive();
    }

    /// Plays `card` of the host's hand at `spot`, its card found and its action made as the session does.
    fn play(pair: &mut Pair<Ristretto255>, card: CardId, spot: Spot) {
        let act = CardAct::Play { area: ZoneId::new(Seat::HOST, ZoneKind::Play), spot, face_down: false };
        let action = act.action(&pair.host, act.find(&pair.host, &CardRef::Id(card)).unwrap()).unwrap();
        run(pair, Seat::HOST, vec![action]);
    }

    fn spot_of(pair: &Pair<Ristretto255>, card: CardId) -> (i32, i32) {
        let placement = pair.guest.table().card(card).unwrap().placement;
        (placement.x, placement.y)
    }

    #[test]
    fn a_card_played_without_a_spot_takes_the_next_free_one_row_by_row() {
        let mut pair = Pair::new(numbered_deck("Host", 12, 0), numbered_deck("Guest", 5, 0), 4);
        pair.drive();
        run(&mut pair, Seat::HOST, vec![Action::Draw { count: 12 }]);
        let hand = pair.host.table().zone(ZoneId::hand(Seat::HOST)).to_vec();
        play(&mut pair, hand[0], Spot::Next);
        play(&mut pair, hand[1], Spot::At { x: 2, y: 0 });
        play(&mut pair, hand[2], Spot::Next);
        assert_eq!(
            [spot_of(&pair, hand[0]), spot_of(&pair, hand[1]), spot_of(&pair, hand[2])],
            [(0, 0), (2, 0), (1, 0)]
        );
        // A spot left free is taken again; a card already there keeps a spot of its own.
        let to = ZoneId::new(Seat::HOST, ZoneKind::Graveyard);
        run(
            &mut pair,
            Seat::HOST,
            vec![Action::Move { card: hand[0], to, position: Position::Top, placement: Placement::default() }],
        );
        play(&mut pair, hand[3], Spot::Next);
        assert_eq!(spot_of(&pair, hand[3]), (0, 0));
        play(&mut pair, hand[3], Spot::Next);
        assert_eq!(spot_of(&pair, hand[3]), (0, 0), "its own spot");
        for &card in &hand[4..10] {
            play(&mut pair, card, Spot::Next);
        }
        // A row holds eight: the ninth card starts the next.
        assert_eq!(spot_of(&pair, hand[8]), (7, 0));
        assert_eq!(spot_of(&pair, hand[9]), (0, 1));
    }

    /// Runs `act` for `seat` as the session does: its actions, then what it runs once they are answered.
    fn run_table_act(pair: &mut Pair<Ristretto255>, seat: Seat, act: TableAct) {
        let mut next = Some(act);
        while let Some(act) = next {
            let actions = act.actions(pair.engine(seat)).unwrap();
            next = act.then(&actions);
            run(pair, seat, actions);
        }
    }

    #[test]
    fn reveal_library_shows_the_top_cards_to_the_opponent_only_once_looked_at() {
        let mut pair = ready_pair();
        let library = pair.guest.table().zone(ZoneId::library(Seat::GUEST)).to_vec();
        let reveal = |count| TableAct::RevealLibrary { count, looked: false };
        // Unknown cards are looked at first, then shown.
        let look = reveal(Some(3)).actions(&pair.guest).unwrap();
        assert_eq!(look, [Action::Peek { count: 3, purpose: PeekPurpose::Look }]);
        assert_eq!(reveal(Some(3)).then(&look), Some(TableAct::RevealLibrary { count: Some(3), looked: true }));
        run_table_act(&mut pair, Seat::GUEST, reveal(Some(3)));
        for (i, card) in library.iter().enumerate() {
            let known = pair.host.table().card(*card).unwrap().known_to;
            assert_eq!(known, if i < 3 { Knowledge::BOTH } else { Knowledge::NOBODY }, "card {i}");
            assert_eq!(pair.host.identity(*card).is_some(), i < 3, "card {i}");
        }
        assert_eq!(pair.guest.table().zone(ZoneId::library(Seat::GUEST)), library, "the library keeps its order");
        // Known cards are shown at once, and that is all.
        let shown = reveal(Some(2)).actions(&pair.guest).unwrap();
        assert_eq!(shown, [Action::Reveal { cards: library[..2].to_vec(), to: Some(Seat::HOST) }]);
        assert_eq!(reveal(Some(2)).then(&shown), None);
        // More than the library holds, or no count: all of it. Looked at, a card still unknown stops it.
        let all = [Action::Peek { count: 5, purpose: PeekPurpose::Look }];
        assert_eq!(reveal(Some(9)).actions(&pair.guest).unwrap(), all);
        assert_eq!(reveal(None).actions(&pair.guest).unwrap(), all);
        let looked = TableAct::RevealLibrary { count: None, looked: true };
        assert!(looked.actions(&pair.guest).is_err_and(|e| e.contains("not answered")));
        run(&mut pair, Seat::GUEST, vec![Action::Draw { count: 5 }]);
        assert_eq!(reveal(Some(1)).actions(&pair.guest), Err("your library is empty".to_string()));
    }

    #[test]
    fn next_turn_sets_the_first_phase_and_taking_the_turn_back_untaps_and_draws() {
        let mut pair = ready_pair();
        run(&mut pair, Seat::HOST, vec![Action::Draw { count: 1 }]);
        let card = pair.host.table().zone(ZoneId::hand(Seat::HOST))[0];
        play(&mut pair, card, Spot::Next);
        run(&mut pair, Seat::HOST, vec![Action::Tap { card, tapped: true }, Action::SetPhase { phase: "end".into() }]);
        // Passing the turn (the first: its own), the host cannot untap and draw: that is the guest's turn beginning.
        let refused = TableAct::NextTurn { untap_draw: true }.actions(&pair.host);
        assert!(refused.is_err_and(|e| e.contains("own turn")));
        let actions = TableAct::NextTurn { untap_draw: false }.actions(&pair.host).unwrap();
        run(&mut pair, Seat::HOST, actions);
        let table = pair.guest.table();
        assert_eq!((table.turn, table.active, table.phase.as_str()), (1, Some(Seat::GUEST), FIRST_PHASE));
        run(&mut pair, Seat::GUEST, vec![Action::SetPhase { phase: "main2".into() }]);
        // The guest forgets to pass: the host takes the turn back, untaps and draws.
        let actions = TableAct::NextTurn { untap_draw: true }.actions(&pair.host).unwrap();
        run(&mut pair, Seat::HOST, actions);
        let table = pair.guest.table();
        assert_eq!((table.turn, table.active, table.phase.as_str()), (2, Some(Seat::HOST), FIRST_PHASE));
        assert!(!table.card(card).unwrap().tapped);
        assert_eq!(table.zone(ZoneId::hand(Seat::HOST)).len(), 1);
    }

    #[test]
    fn mill_takes_what_the_library_holds_and_refuses_an_empty_one() {
        let mut pair = ready_pair();
        let actions = TableAct::Mill(9).actions(&pair.host).unwrap();
        assert_eq!(actions.len(), 5, "the whole library, no more");
        for action in actions {
            pair.intent(Seat::HOST, Intent::Act(action)).unwrap();
        }
        pair.drive();
        assert_eq!(TableAct::Mill(1).actions(&pair.host), Err("your library is empty".to_string()));
    }
}
