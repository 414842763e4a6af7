//! The log's sentences, from two real engines playing in memory: Ada hosts, Bea joins. Each player's view
//! takes every event as the session would hand it over, after each message delivered.

use std::collections::VecDeque;

use fairdeck_shared::Seat;
use fairdeck_shared::crypto::{CardInstance, Ristretto255};
use fairdeck_shared::engine::{Alert, AlertKind, DeckCard, DeckList, Engine, EngineConfig, Event, Intent};
use fairdeck_shared::pair::Pair;
use fairdeck_shared::table::{CardId, Placement, Position, ZoneId, ZoneKind};
use fairdeck_shared::wire::{Action, PeekPurpose};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

use super::{LogKind, LogLine};
use crate::session::Output;
use crate::ui::View;
use crate::ui::render::render;

const NAMES: [&str; 5] = ["Goblin Guide", "Lightning Bolt", "Mountain", "Monastery Swiftspear", "Lava Spike"];

fn deck() -> DeckList {
    let card = |name: &str| DeckCard { name: name.into(), back: 0 };
    DeckList {
        library: NAMES.iter().cycle().take(10).map(|n| card(n)).collect(),
        sideboard: vec![card("Smash")],
        ..DeckList::default()
    }
}

/// Ada and Bea at a ready table, and the view each one's terminal shows.
struct Game {
    pair: Pair<Ristretto255>,
    views: [View; 2],
    /// How many of each player's events their view took.
    told: [usize; 2],
}

fn index(seat: Seat) -> usize {
    match seat {
        Seat::HOST => 0,
        _ => 1,
    }
}

impl Game {
    fn new() -> Self {
        let engine = |seat, name: &str, seed| {
            let config = EngineConfig { name: name.into(), software: "fairdeck-test".into() };
            Engine::new(seat, config, deck(), [seed; 32]).expect("valid deck")
        };
        let mut pair = Pair {
            host: engine(Seat::HOST, "Ada", 3),
            guest: engine(Seat::GUEST, "Bea", 4),
            host_events: Vec::new(),
            guest_events: Vec::new(),
            queue: VecDeque::new(),
        };
        pair.collect();
        let mut game = Game { pair, views: [View::new("ws://relay"), View::new("ws://relay")], told: [0, 0] };
        game.settle();
        assert!(game.pair.host.is_ready() && game.pair.guest.is_ready(), "set-up did not finish");
        game
    }

    /// Delivers every message, one at a time, each view taking the events that message gave.
    fn settle(&mut self) {
        self.tell();
        while self.pair.step() {
            self.tell();
        }
    }

    fn tell(&mut self) {
        for seat in Seat::BOTH {
            let i = index(seat);
            let events = &self.pair.events(seat)[self.told[i]..];
            for event in events {
                self.views[i].apply(&Output::Engine(event.clone()), self.pair.engine(seat));
            }
            self.told[i] += events.len();
        }
    }

    /// `seat`'s intent, as the session hands it over: the engine takes it, the view hears so, then the
    /// events come.
    fn intent(&mut self, seat: Seat, intent: Intent) {
        self.pair.intent(seat, intent.clone()).unwrap_or_else(|e| panic!("{intent:?}: {e}"));
        self.views[index(seat)].apply(&Output::Taken(intent), self.pair.engine(seat));
        self.settle();
    }

    fn act(&mut self, seat: Seat, action: Action) {
        self.intent(seat, Intent::Act(action));
    }

    /// Runs `step` and returns the log lines it added to each player's view.
    fn lines(&mut self, step: impl FnOnce(&mut Game)) -> [Vec<LogLine>; 2] {
        let before = self.views.each_ref().map(|view| view.log.lines().len());
        step(self);
        [0, 1].map(|i| self.views[i].log.lines().iter().skip(before[i]).cloned().collect())
    }

    fn draw(&mut self, seat: Seat, count: u32) -> Vec<CardId> {
        self.act(seat, Action::Draw { count });
        self.pair.engine(seat).table().zone(ZoneId::hand(seat)).to_vec()
    }

    /// "#12 Goblin Guide", as `seat` knows it.
    fn card(&self, seat: Seat, card: CardId) -> String {
        format!("{card} {}", self.pair.engine(seat).identity(card).expect("a known card").name)
    }
}

fn texts(lines: &[LogLine]) -> Vec<&str> {
    lines.iter().map(|line| line.text.as_str()).collect()
}

fn play(seat: Seat, card: CardId, x: i32, y: i32, face_down: bool) -> Action {
    let to = ZoneId::new(seat, ZoneKind::Play);
    Action::Move { card, to, position: Position::Top, placement: Placement { x, y, face_down } }
}

fn move_to(card: CardId, to: ZoneId, position: Position) -> Action {
    Action::Move { card, to, position, placement: Placement::default() }
}

#[test]
fn a_card_put_from_hand_into_play_says_from_where_to_where() {
    let mut game = Game::new();
    let card = game.draw(Seat::HOST, 1)[0];
    let [ada, bea] = game.lines(|game| game.act(Seat::HOST, play(Seat::HOST, card, 0, 0, false)));
    let named = game.card(Seat::HOST, card);
    assert_eq!(texts(&ada), [format!("You put {named} from your hand into your play area at 0,0")]);
    assert_eq!(ada[0].kind, LogKind::Action);
    // Bea learns the card once Ada's key for it arrives, after the move.
    assert_eq!(
        texts(&bea),
        [
            "Ada put a card from their hand into their play area at 0,0".to_string(),
            format!("You see {named} (Ada's play area)")
        ]
    );
}

#[test]
fn the_opponent_moving_your_card_is_one_alert_in_the_tables_words() {
    let mut game = Game::new();
    let card = game.draw(Seat::HOST, 1)[0];
    game.act(Seat::HOST, play(Seat::HOST, card, 0, 0, false));
    let named = game.card(Seat::HOST, card);
    let graveyard = ZoneId::new(Seat::HOST, ZoneKind::Graveyard);
    let [ada, bea] = game.lines(|game| game.act(Seat::GUEST, move_to(card, graveyard, Position::Top)));
    assert_eq!(
        ada,
        [LogLine {
            kind: LogKind::Alert,
            text: format!("Bea moved your {named} from your play area to your graveyard")
        }]
    );
    assert!(game.pair.host_events.iter().any(|e| matches!(e, Event::Alert(_))), "the engine raised the alert");
    assert_eq!(texts(&bea), [format!("You moved Ada's {named} from Ada's play area to Ada's graveyard")]);
}

#[test]
fn a_card_put_into_a_library_says_top_or_bottom() {
    let mut game = Game::new();
    let hand = game.draw(Seat::HOST, 2);
    let library = ZoneId::library(Seat::HOST);
    let [ada, bea] = game.lines(|game| {
        game.act(Seat::HOST, move_to(hand[0], library, Position::Top));
        game.act(Seat::HOST, move_to(hand[1], library, Position::Bottom));
    });
    // Back in the library, Ada knows the cards she put there.
    let (top, bottom) = (game.card(Seat::HOST, hand[0]), game.card(Seat::HOST, hand[1]));
    assert_eq!(
        texts(&ada),
        [
            format!("You put {top} from your hand on top of your library"),
            format!("You put {bottom} from your hand on the bottom of your library"),
        ]
    );
    assert_eq!(
        texts(&bea),
        [
            "Ada put a card from their hand on top of their library",
            "Ada put a card from their hand on the bottom of their library",
        ]
    );
}

#[test]
fn a_face_down_card_is_put_face_down_and_named_only_for_its_owner() {
    let mut game = Game::new();
    let card = game.draw(Seat::HOST, 1)[0];
    let [ada, bea] = game.lines(|game| {
        game.act(Seat::HOST, play(Seat::HOST, card, 1, 1, true));
        game.act(Seat::HOST, Action::Tap { card, tapped: true });
    });
    let named = game.card(Seat::HOST, card);
    assert_eq!(
        texts(&ada),
        [format!("You put {named} from your hand into your play area at 1,1 face down"), format!("You tapped {named}")]
    );
    assert_eq!(
        texts(&bea),
        [
            "Ada put a card from their hand into their play area at 1,1 face down".to_string(),
            format!("Ada tapped a face-down card {card}"),
        ]
    );
}

#[test]
fn a_token_is_told_with_its_id_where_it_was_created() {
    let mut game = Game::new();
    let goblin = CardInstance { owner: Seat::HOST, nonce: [7; 16], name: "Goblin".into(), back: 0 };
    let to = ZoneId::new(Seat::HOST, ZoneKind::Play);
    let placement = Placement { x: 2, y: 0, face_down: false };
    let [ada, bea] =
        game.lines(|game| game.act(Seat::HOST, Action::AddCard { card: goblin, to, placement, power_toughness: None }));
    let token = *game.pair.host.table().zone(to).last().expect("the token");
    assert_eq!(texts(&ada), [format!("You created token {token} Goblin in your play area at 2,0")]);
    // Bea's engine tells her the token's name as it is created.
    assert_eq!(
        texts(&bea),
        [
            format!("You see {token} Goblin (Ada's play area)"),
            format!("Ada created token {token} Goblin in their play area at 2,0"),
        ]
    );

    // Two more of that name whose events come together: each is told with its own id.
    for nonce in [8, 9] {
        let card = CardInstance { owner: Seat::HOST, nonce: [nonce; 16], name: "Goblin".into(), back: 0 };
        game.pair
            .intent(Seat::HOST, Intent::Act(Action::AddCard { card, to, placement, power_toughness: None }))
            .expect("token");
    }
    let [ada, _] = game.lines(Game::settle);
    let mut tokens = game.pair.host.table().zone(to).to_vec();
    tokens.sort();
    assert_eq!(
        texts(&ada),
        [
            format!("You created token {} Goblin in your play area at 2,0", tokens[1]),
            format!("You created token {} Goblin in your play area at 2,0", tokens[2]),
        ]
    );
}

#[test]
fn asking_to_see_a_hand_is_told_as_a_request_and_a_refusal_as_one() {
    let mut game = Game::new();
    game.draw(Seat::HOST, 2);
    let ask = Intent::RequestReveal { zone: ZoneId::hand(Seat::HOST), count: None };
    let [ada, bea] = game.lines(|game| game.intent(Seat::GUEST, ask));
    // One line that stands out, and it claims no more than the request: nothing was shown, so the engine
    // raises no alert.
    assert_eq!(
        ada,
        [LogLine {
            kind: LogKind::Alert,
            text: "Bea asks to see your hand: reveal cards to them, or refuse hand".into()
        }]
    );
    assert!(!game.pair.host_events.iter().any(|e| matches!(e, Event::Alert(_))), "no alert for a request");
    assert_eq!(texts(&bea), ["You asked Ada to show their hand"]);

    let refuse = Intent::RefuseReveal { zone: ZoneId::hand(Seat::HOST) };
    let [ada, bea] = game.lines(|game| game.intent(Seat::HOST, refuse));
    assert_eq!(texts(&ada), ["You refused to show your hand"]);
    assert_eq!(texts(&bea), ["Ada refused to show their hand"]);
}

#[test]
fn asking_for_the_top_of_a_library_counts_the_cards() {
    let mut game = Game::new();
    let ask = Intent::RequestReveal { zone: ZoneId::library(Seat::GUEST), count: Some(3) };
    let [ada, bea] = game.lines(|game| game.intent(Seat::HOST, ask));
    assert_eq!(texts(&ada), ["You asked Bea to show the top 3 cards of their library"]);
    assert_eq!(
        texts(&bea),
        ["Ada asks to see the top 3 cards of your library: reveal cards to them, or refuse library"]
    );
}

#[test]
fn events_told_after_the_engine_moved_on_name_no_wrong_origin() {
    let mut game = Game::new();
    let card = game.draw(Seat::HOST, 1)[0];
    let named = game.card(Seat::HOST, card);
    // Two moves of one card whose events come together, as from messages that arrived at once: the
    // engine's table is already past both.
    game.pair.intent(Seat::HOST, Intent::Act(play(Seat::HOST, card, 0, 0, false))).expect("play");
    let graveyard = ZoneId::new(Seat::HOST, ZoneKind::Graveyard);
    game.pair.intent(Seat::HOST, Intent::Act(move_to(card, graveyard, Position::Top))).expect("move");
    let [ada, _] = game.lines(Game::settle);
    assert_eq!(
        texts(&ada),
        [
            format!("You put {named} from your hand into your play area at 0,0"),
            format!("You moved {named} from your play area to your graveyard"),
        ]
    );

    // A card drawn and played in one batch: the table is past both, and the play's event says where the card
    // came from (no name: the card is not unlocked yet).
    game.pair.intent(Seat::HOST, Intent::Act(Action::Draw { count: 1 })).expect("draw");
    let drawn = *game.pair.host.table().zone(ZoneId::hand(Seat::HOST)).last().expect("drawn");
    game.pair.intent(Seat::HOST, Intent::Act(play(Seat::HOST, drawn, 1, 0, false))).expect("play");
    let [ada, _] = game.lines(Game::settle);
    assert_eq!(texts(&ada), ["You drew 1 card", "You put a card from your hand into your play area at 1,0"]);
}

/// The screen's text, drawn at 120×40.
fn screen(view: &View) -> String {
    let mut terminal = Terminal::new(TestBackend::new(120, 40)).expect("test terminal");
    terminal.draw(|frame| render(frame, view)).expect("draw");
    crate::ui::render::screen_text(terminal.backend().buffer())
}

#[test]
fn table_end_and_refuse_show_on_the_screen() {
    let mut game = Game::new();
    game.draw(Seat::HOST, 3);
    game.act(Seat::HOST, Action::SetPlayerValue { key: "life".into(), value: 18 });
    game.act(Seat::GUEST, Action::SetPlayerValue { key: "poison".into(), value: 2 });
    let [ada, _] = game.lines(|game| game.views[0].apply(&Output::Table, &game.pair.host));
    assert_eq!(
        texts(&ada),
        [
            "The table: before the first turn",
            "You: life 18 · library 7 · hand 3 · graveyard 0 · exile 0 · sideboard 1 · play area 0",
            "Bea: life 20 · poison 2 · library 10 · hand 0 · graveyard 0 · exile 0 · sideboard 1 · play area 0",
        ]
    );
    let text = screen(&game.views[0]);
    assert!(text.contains("You: life 18 · library 7 · hand 3"), "{text}");

    let refuse = Intent::RefuseReveal { zone: ZoneId::library(Seat::HOST) };
    game.intent(Seat::HOST, refuse);
    let text = screen(&game.views[0]);
    assert!(text.contains("You refused to show your library"), "{text}");

    let [ada, bea] = game.lines(|game| game.intent(Seat::HOST, Intent::EndGame));
    assert_eq!(
        texts(&ada),
        ["You ended the game and sent your deck key: Bea can check your whole deck against its sealed list"]
    );
    assert_eq!(texts(&bea), ["Ada's deck checked out against its sealed list (11 cards)"]);
    let text = screen(&game.views[0]);
    assert!(text.contains("You ended the game and sent your deck key"), "{text}");
}

#[test]
fn taking_from_your_library_is_one_alert_in_the_tables_words() {
    let mut game = Game::new();
    let [ada, bea] = game.lines(|game| game.act(Seat::GUEST, Action::TakeFromLibrary { count: 1 }));
    assert_eq!(
        ada,
        [LogLine {
            kind: LogKind::Alert,
            text: "Bea took the top card of your library into their hand, unseen by you".into()
        }]
    );
    let taken = game.pair.guest.table().zone(ZoneId::hand(Seat::GUEST))[0];
    assert_eq!(
        texts(&bea),
        [
            "You took the top card of Ada's library into your hand, unseen by Ada".to_string(),
            format!("You see {} (your hand)", game.card(Seat::GUEST, taken)),
        ]
    );
}

#[test]
fn a_caught_cheat_is_a_sentence_with_the_engines_evidence() {
    let mut game = Game::new();
    let alert = Alert { kind: AlertKind::BadProof, detail: "strip proof of #3".into(), evidence: None };
    let [ada, _] = game.lines(|game| game.views[0].apply(&Output::Engine(Event::Alert(alert)), &game.pair.host));
    assert_eq!(
        ada,
        [LogLine {
            kind: LogKind::Alert,
            text: "A proof from Bea did not verify (strip proof of #3) — the game is stopped".into()
        }]
    );
}

#[test]
fn a_search_is_one_line_each_side_while_a_look_names_each_card() {
    let mut game = Game::new();
    let search = Action::Peek { count: 10, purpose: PeekPurpose::Search };
    let [ada, bea] = game.lines(|game| game.act(Seat::HOST, search));
    assert_eq!(texts(&ada), ["You searched your library"], "the view lists the cards, not the log");
    assert_eq!(texts(&bea), ["Ada searched their library"]);
    let [ada, _] = game.lines(|game| game.act(Seat::HOST, Action::Shuffle { permutation: None }));
    assert!(!texts(&ada).iter().any(|text| text.starts_with("You see")), "{ada:?}");
    let look = Action::Peek { count: 2, purpose: PeekPurpose::Look };
    let [ada, _] = game.lines(|game| game.act(Seat::HOST, look));
    let seen = texts(&ada).into_iter().filter(|text| text.starts_with("You see")).count();
    assert_eq!(seen, 2, "{ada:?}");
}

#[test]
fn a_scried_card_goes_on_top_or_at_the_bottom_in_words() {
    let mut game = Game::new();
    game.act(Seat::HOST, Action::Peek { count: 2, purpose: PeekPurpose::Scry });
    let library = game.pair.host.table().zone(ZoneId::library(Seat::HOST)).to_vec();
    let (first, second) = (library[0], library[1]);
    let bottom = u32::try_from(library.len() - 1).unwrap();
    let [ada, bea] = game.lines(|game| game.act(Seat::HOST, Action::Rearrange { card: first, index: bottom }));
    assert_eq!(texts(&ada), [format!("You put {} at the bottom of your library", game.card(Seat::HOST, first))]);
    assert_eq!(texts(&bea), ["Ada put a card at the bottom of their library"]);
    let [ada, _] = game.lines(|game| game.act(Seat::HOST, Action::Rearrange { card: second, index: 0 }));
    assert_eq!(texts(&ada), [format!("You put {} on top of your library", game.card(Seat::HOST, second))]);
}

#[test]
fn a_concession_says_who_wins_to_each_player() {
    let mut game = Game::new();
    let [ada, bea] = game.lines(|game| game.act(Seat::GUEST, Action::Concede));
    assert!(texts(&ada).contains(&"Game over: Bea conceded, you win"), "{ada:?}");
    assert!(texts(&bea).contains(&"Game over: You conceded, Ada wins"), "{bea:?}");
}

#[test]
fn a_player_back_after_a_forfeit_claimed_against_their_absence_is_told_the_game_ended_meanwhile() {
    let mut game = Game::new();
    // Bea left; Ada claims the game against her absence. The claim waits for Bea's return.
    let [ada, _] = game.lines(|game| {
        game.pair.intent(Seat::HOST, Intent::ClaimAbandoned).unwrap();
        game.tell();
    });
    assert_eq!(texts(&ada), ["You ended the game: Bea forfeits, having left it", "Game over: Bea forfeited, you win"]);
    // Bea resumes and meets Ada at the rendezvous: nothing says the game goes on, then the claim comes.
    let [_, bea] = game.lines(|game| {
        game.views[1].apply(&Output::Rendezvous { peer_here: true }, &game.pair.guest);
        game.settle();
    });
    assert_eq!(
        texts(&bea),
        [
            "Ada is here",
            "Ada ended the game while you were away: you forfeit, having left it",
            "Game over: You forfeited, Ada wins",
        ]
    );
}

#[test]
fn a_forfeit_over_a_silence_says_who_forfeits_in_each_player_s_words() {
    let mut game = Game::new();
    // Ada draws, which waits on Bea's strip; Ada claims before it comes.
    let [ada, bea] = game.lines(|game| {
        game.pair.intent(Seat::HOST, Intent::Act(Action::Draw { count: 1 })).unwrap();
        game.pair.intent(Seat::HOST, Intent::ClaimForfeit).unwrap();
        game.settle();
    });
    let claimed = |lines: &[LogLine], text: &str| lines.iter().any(|line| line.text.starts_with(text));
    assert!(claimed(&ada, "You ended the game: Bea forfeits, having not sent "), "{ada:?}");
    assert!(claimed(&bea, "Ada ended the game: you forfeit, having not sent "), "{bea:?}");
    assert!(!bea.iter().any(|line| line.text.contains("forfeits")), "{bea:?}");
}

#[test]
fn commander_damage_names_the_commander_for_each_player() {
    let mut game = Game::new();
    let commander = game.draw(Seat::GUEST, 1)[0];
    game.act(Seat::GUEST, play(Seat::GUEST, commander, 0, 0, false));
    let name = game.card(Seat::GUEST, commander);
    let damage = Action::SetPlayerValue { key: format!("commander:{commander}"), value: 5 };
    let [ada, bea] = game.lines(|game| game.act(Seat::HOST, damage));
    assert_eq!(texts(&ada), [format!("You set your commander damage from Bea's {name} to 5")]);
    assert_eq!(texts(&bea), [format!("Ada set their commander damage from your {name} to 5")]);
    // Any other value keeps its name.
    let poison = Action::SetPlayerValue { key: "poison".into(), value: 1 };
    let [ada, _] = game.lines(|game| game.act(Seat::HOST, poison));
    assert_eq!(texts(&ada), ["You set your poison to 1"]);
}

#[test]
fn who_chooses_to_play_or_draw_is_told_with_how_it_was_decided() {
    let mut game = Game::new();
    let coin = game.pair.host.chooser().expect("the coin decided in game 1");
    let told = |view: &View| view.log.lines().iter().filter(|l| l.text.contains("to play or draw")).count();
    let ada_says = match coin {
        Seat::HOST => "You choose to play or draw (a fair coin decided)",
        _ => "Bea chooses to play or draw (a fair coin decided)",
    };
    assert!(game.views[0].log.lines().iter().any(|l| l.text == ada_says), "{:?}", game.views[0].log.lines());
    assert_eq!(told(&game.views[1]), 1);

    game.act(Seat::GUEST, Action::Concede);
    let [ada, bea] = game.lines(|game| {
        game.intent(Seat::HOST, Intent::NewGame(None));
        game.intent(Seat::GUEST, Intent::NewGame(None));
    });
    let chooser = |lines: &[LogLine]| -> Vec<String> {
        lines.iter().filter(|l| l.text.contains("to play or draw")).map(|l| l.text.clone()).collect()
    };
    assert_eq!(chooser(&ada), ["Bea lost the last game and chooses to play or draw"]);
    assert_eq!(chooser(&bea), ["You lost the last game and choose to play or draw"]);
}

#[test]
fn a_deck_off_the_matchs_75_is_told_to_both_with_what_differs() {
    let mut game = Game::new();
    game.intent(Seat::HOST, Intent::NewGame(None));
    // Bea sideboards (a Mountain out, the Smash in) and plays a Shock in place of a Lightning Bolt.
    let mut deck = deck();
    std::mem::swap(&mut deck.library[2], &mut deck.sideboard[0]);
    let bolt = deck.library.iter_mut().find(|card| card.name == "Lightning Bolt").expect("a bolt");
    bolt.name = "Shock".into();
    let [ada, bea] = game.lines(|game| game.intent(Seat::GUEST, Intent::NewGame(Some(deck))));
    let warning = |lines: &[LogLine]| -> Vec<LogLine> {
        lines.iter().filter(|l| l.text.contains("is not the match's 75")).cloned().collect()
    };
    // Nobody ended game 1, so Bea's first deck was never audited: her account is only her word.
    let unverifiable = " (unverifiable: the game 1 deck was never audited)";
    assert_eq!(
        warning(&ada),
        [LogLine {
            kind: LogKind::Alert,
            text: format!("Bea's deck for game 2 is not the match's 75: +1 Shock, −1 Lightning Bolt{unverifiable}")
        }]
    );
    assert_eq!(
        texts(&warning(&bea)),
        [format!("Your deck for game 2 is not the match's 75: +1 Shock, −1 Lightning Bolt{unverifiable}")]
    );
}

#[test]
fn a_deck_left_unaudited_is_told_to_both() {
    let mut game = Game::new();
    // Ada ends game 1 with her audit; Bea never does.
    game.intent(Seat::HOST, Intent::EndGame);
    let [ada, bea] = game.lines(|game| {
        game.intent(Seat::HOST, Intent::NewGame(None));
        game.intent(Seat::GUEST, Intent::NewGame(None));
    });
    let missing = |lines: &[LogLine]| -> Vec<LogLine> {
        lines.iter().filter(|l| l.text.contains("never audited")).cloned().collect()
    };
    let unchecked = "was never audited: nobody checked it against its sealed list, and";
    assert_eq!(
        missing(&ada),
        [LogLine {
            kind: LogKind::Alert,
            text: format!(
                "Bea's deck of game 1 {unchecked} Bea's later differences from the match's 75 are unverifiable"
            )
        }]
    );
    assert_eq!(
        missing(&bea),
        [LogLine {
            kind: LogKind::Notice,
            text: format!(
                "Your deck of game 1 {unchecked} your later differences from the match's 75 are unverifiable"
            )
        }]
    );
}

#[test]
fn a_chat_line_reads_the_same_on_both_sides() {
    let mut game = Game::new();
    let [ada, bea] = game.lines(|game| game.intent(Seat::HOST, Intent::Chat("good luck".into())));
    assert_eq!(ada, [LogLine { kind: LogKind::Chat, text: "<Ada> good luck".into() }]);
    assert_eq!(bea, [LogLine { kind: LogKind::Chat, text: "<Ada> good luck".into() }]);
}

#[test]
fn the_deck_built_from_the_pool_is_counted_and_the_pool_listed_with_what_is_in_the_deck() {
    use crate::session::{PoolLine, Tally};
    use crate::ui::log::{building_words, pool_lines};

    assert_eq!(building_words(Tally { cards: 23, lands: 17, left: 22 }), "Deck: 23 cards + 17 lands (pool: 22 left)");
    assert_eq!(building_words(Tally { cards: 1, lands: 1, left: 0 }), "Deck: 1 card + 1 land (pool: 0 left)");
    let line = |name: &str, copies, in_deck| PoolLine { name: name.into(), copies, in_deck };
    let small = [line("Counterspell", 2, 1), line("Duress", 1, 0)];
    assert_eq!(pool_lines(&small), ["Your pool: 3 cards, 1 in your deck", "2 Counterspell (1 in deck)", "1 Duress"]);
    // Past what the log shows at 80×24, the names go one after another, wrapped by the log.
    let many: Vec<PoolLine> = (0..20).map(|i| line(&format!("Card {i:02}"), 1, u32::from(i == 0))).collect();
    let lines = pool_lines(&many);
    assert_eq!(lines.len(), 1);
    assert!(
        lines[0].starts_with("Your pool: 20 cards, 1 in your deck: 1 Card 00 (1 in deck), 1 Card 01, "),
        "{lines:?}"
    );
}

#[test]
fn a_booster_draft_tells_the_standing_the_pack_numbered_and_who_took_a_card() {
    let mut game = Game::new();
    let cards: Vec<String> = ["Lightning Bolt", "Counterspell", "Giant Growth"].map(String::from).into();
    let events = [
        Event::Packs { round: 1, rounds: 3, waiting: [1, 2].into(), picks: [16, 15].into() },
        Event::Pack { pack: 3, cards },
        Event::CardTaken { by: Seat::HOST, pack: 3, card: Some("Counterspell".into()) },
        Event::CardTaken { by: Seat::GUEST, pack: 2, card: None },
    ];
    let [ada, _] = game.lines(|game| {
        for event in events {
            game.views[0].apply(&Output::Engine(event), game.pair.engine(Seat::HOST));
        }
    });
    assert_eq!(
        texts(&ada),
        [
            "Booster draft, round 2 of 3: you 16 taken, 1 pack waiting; Bea 15 taken, 2 packs waiting",
            "Pack 4, 3 cards (pick N or pick NAME): 1 Lightning Bolt · 2 Counterspell · 3 Giant Growth",
            "You took Counterspell from pack 4",
            "Bea took a card from pack 3",
        ]
    );
}

#[test]
fn a_card_shown_at_random_is_told_in_the_past_to_both() {
    let mut game = Game::new();
    game.draw(Seat::HOST, 3);
    let [ada, bea] = game.lines(|game| game.act(Seat::HOST, Action::ShowRandom));
    let shown = |lines: &[LogLine], who: &str| {
        lines.iter().any(|line| line.text.starts_with(&format!("{who} showed ")) && line.text.ends_with(" at random"))
    };
    assert!(shown(&ada, "You"), "{:?}", texts(&ada));
    assert!(shown(&bea, "Ada"), "{:?}", texts(&bea));
}
