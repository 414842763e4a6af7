//! The public table as this player sees it: each side's zones, cards and numbers, with the names this player
//! knows, built from the engine's table. Pure data, which the log's words and the drawing read.

use fairdeck_shared::Seat;
use fairdeck_shared::crypto::{CardInstance, Group};
use fairdeck_shared::engine::Engine;
use fairdeck_shared::table::{CardId, PowerToughness, Table, ZoneId, ZoneKind};

use crate::text::clean;

/// Zones in the order the screen lists their counts.
pub const ZONE_ORDER: [ZoneKind; 6] =
    [ZoneKind::Library, ZoneKind::Hand, ZoneKind::Graveyard, ZoneKind::Exile, ZoneKind::Sideboard, ZoneKind::Play];

/// What a table is drawn from: a player's engine, or the observer a spectator runs. The table view, the log's
/// words and scripted mode's `table` read it alike.
pub trait TableSource {
    /// The seat whose side is at the bottom of the table.
    fn seat(&self) -> Seat;
    /// Whether that seat is this program's player, "you"; a spectator's table names both players.
    fn plays(&self) -> bool;
    fn table(&self) -> &Table;
    /// What card `card` is, where this side knows it.
    fn identity(&self, card: CardId) -> Option<&CardInstance>;
    /// Who chooses to play or draw, once decided.
    fn chooser(&self) -> Option<Seat>;
    /// Who lost the game, once a player did.
    fn loser(&self) -> Option<Seat>;
    /// Whether the game is over (its decks audited, or a forfeit claimed).
    fn is_ended(&self) -> bool;
    /// How many actions of the game's order were applied.
    fn actions_applied(&self) -> u64;
}

impl<G: Group> TableSource for Engine<G> {
    fn seat(&self) -> Seat {
        Engine::seat(self)
    }

    fn plays(&self) -> bool {
        true
    }

    fn table(&self) -> &Table {
        Engine::table(self)
    }

    fn identity(&self, card: CardId) -> Option<&CardInstance> {
        Engine::identity(self, card)
    }

    fn chooser(&self) -> Option<Seat> {
        Engine::chooser(self)
    }

    fn loser(&self) -> Option<Seat> {
        Engine::loser(self)
    }

    fn is_ended(&self) -> bool {
        Engine::is_ended(self)
    }

    fn actions_applied(&self) -> u64 {
        Engine::actions_applied(self)
    }
}

/// The public table as this player sees it, with the names this player knows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TableView {
    pub me: SideView,
    pub opponent: SideView,
    pub turn: u32,
    /// Whether it is this player's turn; `None` before the first turn.
    pub my_turn: Option<bool>,
    pub phase: String,
    /// Who chooses to play or draw, while they have not chosen yet.
    pub chooser: Option<Side>,
    /// Who lost the game, once it is over.
    pub loser: Option<Side>,
    /// The game is over: a player lost it (conceded, forfeited), or this player ended it.
    pub over: bool,
    /// Whether "mine" is this program's player's side; a spectator's table names both players.
    pub plays: bool,
}

/// Whose side of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Mine,
    Opponent,
}

/// One player's side of the table.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SideView {
    pub name: String,
    pub life: Option<i64>,
    /// The player's other numbers (poison, energy…), by name.
    pub values: Vec<(String, i64)>,
    /// Card counts in [`ZONE_ORDER`].
    pub counts: Vec<(ZoneKind, usize)>,
    /// The hand, with names where this player knows them (all of its own, none of the opponent's
    /// unless revealed).
    pub hand: Vec<CardView>,
    pub play: Vec<PlayedCard>,
    /// The public piles, top first.
    pub graveyard: Vec<CardView>,
    pub exile: Vec<CardView>,
    /// The sideboard, with names for this player's own.
    pub sideboard: Vec<CardView>,
    /// The command zone: commanders, face up, known to both.
    pub command: Vec<CardView>,
}

/// A card by id, and its name if this player knows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CardView {
    pub id: CardId,
    pub name: Option<String>,
}

/// A card in a play area.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayedCard {
    pub card: CardView,
    pub x: i32,
    pub y: i32,
    pub face_down: bool,
    pub tapped: bool,
    pub counters: Vec<(String, i64)>,
    /// The card in play this one is attached to.
    pub attached_to: Option<CardId>,
    /// A token's power and toughness.
    pub power_toughness: Option<PowerToughness>,
}

impl TableView {
    /// `side`'s side of the table.
    pub fn side(&self, side: Side) -> &SideView {
        match side {
            Side::Mine => &self.me,
            Side::Opponent => &self.opponent,
        }
    }

    /// The name of the card `id`, where this player may see it: in play (face up, or its own face down), in a
    /// hand, a pile or the command zone.
    pub fn name_of(&self, id: CardId) -> Option<String> {
        let sides = [&self.me, &self.opponent];
        let played = sides.iter().flat_map(|side| side.play.iter().map(|played| &played.card));
        let piles = sides.into_iter().flat_map(|side| {
            side.hand.iter().chain(&side.graveyard).chain(&side.exile).chain(&side.sideboard).chain(&side.command)
        });
        played.chain(piles).find(|card| card.id == id).and_then(|card| card.name.clone())
    }

    /// The table as `engine`'s player sees it (or a spectator, its bottom seat's side as "mine").
    pub fn from_engine(engine: &impl TableSource) -> Self {
        let table = engine.table();
        let me = engine.seat();
        let active = table.active;
        let over = engine.is_ended() || engine.loser().is_some();
        let side = |seat: Seat| if seat == me { Side::Mine } else { Side::Opponent };
        // A spectator's players, before their hellos, by their seats.
        let unnamed = |seat: Seat, mine: &'static str, theirs: &'static str| match (engine.plays(), seat == me) {
            (true, true) => mine,
            (true, false) => theirs,
            (false, _) if seat == Seat::HOST => "Host",
            (false, _) => "Guest",
        };
        TableView {
            me: SideView::of(engine, table, me, unnamed(me, "You", "Opponent")),
            opponent: SideView::of(engine, table, me.opponent(), unnamed(me.opponent(), "You", "Opponent")),
            turn: table.turn,
            my_turn: active.map(|seat| seat == me),
            phase: clean(&table.phase),
            // The chooser has chosen once the first turn is on; nobody chooses in a game that is over.
            chooser: engine.chooser().filter(|_| table.turn == 0 && !over).map(side),
            // A concession is the end: the deck audit (`is_ended`) may follow or not.
            loser: engine.loser().map(side),
            over,
            plays: engine.plays(),
        }
    }
}

impl SideView {
    /// `seat`'s side; `unnamed` stands for a player whose name is not known yet.
    fn of(engine: &impl TableSource, table: &Table, seat: Seat, unnamed: &str) -> Self {
        let player = table.player(seat);
        let card = |id: &CardId| CardView { id: *id, name: engine.identity(*id).map(|i| clean(&i.name)) };
        let zone = |kind| table.zone(ZoneId::new(seat, kind));
        let mut play: Vec<PlayedCard> = zone(ZoneKind::Play)
            .iter()
            .filter_map(|id| table.card(*id))
            .map(|c| PlayedCard {
                card: card(&c.id),
                x: c.placement.x,
                y: c.placement.y,
                face_down: c.placement.face_down,
                tapped: c.tapped,
                counters: c.counters.iter().map(|(k, v)| (clean(k), *v)).collect(),
                attached_to: c.attached_to,
                power_toughness: c.power_toughness,
            })
            .collect();
        // Rows, then columns, as the cards lie on the table.
        play.sort_by_key(|p| (p.y, p.x, p.card.id));
        SideView {
            name: if player.name.is_empty() { unnamed.to_string() } else { clean(&player.name) },
            life: player.values.get("life").copied(),
            values: player.values.iter().filter(|(k, _)| *k != "life").map(|(k, v)| (clean(k), *v)).collect(),
            counts: ZONE_ORDER.iter().map(|&kind| (kind, zone(kind).len())).collect(),
            hand: zone(ZoneKind::Hand).iter().map(card).collect(),
            play,
            graveyard: zone(ZoneKind::Graveyard).iter().map(card).collect(),
            exile: zone(ZoneKind::Exile).iter().map(card).collect(),
            sideboard: zone(ZoneKind::Sideboard).iter().map(card).collect(),
            command: zone(ZoneKind::Command).iter().map(card).collect(),
        }
    }

    /// How many cards a zone holds.
    pub fn count(&self, kind: ZoneKind) -> usize {
        self.counts.iter().find(|(k, _)| *k == kind).map_or(0, |(_, n)| *n)
    }
}
