//! Who is who, and which game: the identifiers every hash and proof is bound to.

use serde::{Deserialize, Serialize};

use crate::seats::Seats;

/// A player's seat: its number around the table, from 0. The host (who created the room) sits at 0 and the
/// guest at 1, as seed 000 names Player 1 and Player 2; a table of more players seats them on in join order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Seat(u8);

/// How seats are spelled on the wire's text forms and in scripts: the two first keep the names two-player tables
/// have always used.
const SEAT_NAMES: [&str; Seats::MAX as usize] = ["host", "guest", "seat3", "seat4", "seat5", "seat6", "seat7", "seat8"];

impl Seat {
    /// The player who created the room; seat 1 of seed 000, who acts first and sequences the table.
    pub const HOST: Seat = Seat(0);
    /// The player who joined it first; seat 2 of seed 000.
    pub const GUEST: Seat = Seat(1);
    /// Both seats of a two-player table, host first: the order every seat-by-seat loop follows.
    pub const BOTH: [Seat; 2] = [Seat::HOST, Seat::GUEST];

    /// The seat at `index` around the table, if a table can have it.
    pub fn new(index: usize) -> Option<Seat> {
        (index < usize::from(Seats::MAX)).then(|| Seat(index as u8))
    }

    /// Where this seat's entry is in a list of every seat's, host first.
    pub fn index(self) -> usize {
        usize::from(self.0)
    }

    /// The byte that stands for this seat inside hashes: its number from 1, as seed 000 counts players.
    pub fn id_byte(self) -> u8 {
        self.0 + 1
    }

    /// The other player of a two-player table (the only table the engine seats yet).
    pub fn opponent(self) -> Seat {
        debug_assert!(self.0 < 2, "a seat past two has no single opponent");
        Seat(1 - self.0.min(1))
    }

    /// The seat's name, as the wire and scripts spell it: never renamed with the code.
    pub fn name(self) -> &'static str {
        SEAT_NAMES[self.index()]
    }

    /// The seat a name from [`Seat::name`] stands for.
    pub fn from_name(name: &str) -> Option<Seat> {
        SEAT_NAMES.iter().position(|known| *known == name).and_then(Seat::new)
    }
}

impl std::fmt::Display for Seat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Text forms (JSON) spell a seat by name, as they did when there were two; binary forms (the wire, postcard)
/// by its number, the same byte a two-variant enum gave.
impl Serialize for Seat {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if serializer.is_human_readable() {
            serializer.serialize_str(self.name())
        } else {
            serializer.serialize_u8(self.0)
        }
    }
}

impl<'de> Deserialize<'de> for Seat {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        if deserializer.is_human_readable() {
            let name = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
            Seat::from_name(&name)
                .filter(|seat| seat.index() < Seats::SPOKEN)
                .ok_or_else(|| D::Error::custom(format!("no seat is named {name:?}")))
        } else {
            let index = u8::deserialize(deserializer)?;
            Seat::new(usize::from(index))
                .filter(|seat| seat.index() < Seats::SPOKEN)
                .ok_or_else(|| D::Error::custom(format!("no seat {index}")))
        }
    }
}

/// A game's identity: 32 bytes both players contribute to, bound into every card point,
/// proof and commitment so nothing can be replayed from another game.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct GameId(#[serde(with = "crate::serde_hex::array")] pub [u8; 32]);

impl std::fmt::Debug for GameId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "GameId({})", hex::encode(&self.0[..8]))
    }
}
