//! The seats around a table: each player's seat, how many, in which order, and one value per seat.

use std::ops::{Index, IndexMut};

use serde::{Deserialize, Serialize};

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
        (index < usize::from(Seats::MAX)).then_some(Seat(index as u8))
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

/// The seats of one table: how many players sit at it. Seats are numbered from the host in join order, which is
/// also the order around the table; the host sequences the table's actions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Seats {
    count: u8,
}

impl Seats {
    /// The most players a table seats.
    pub const MAX: u8 = 8;
    /// How many seats the wire's messages may name: two until the protocol seats pods. A seat past them is refused
    /// where a message is decoded, so no peer can name a seat the table lacks.
    pub const SPOKEN: usize = 2;
    /// A table of two: the host and the guest.
    pub const TWO: Seats = Seats { count: 2 };

    /// A table of `count` seats, if a table can seat that many (two to [`Seats::MAX`]).
    pub fn new(count: usize) -> Option<Seats> {
        (2..=usize::from(Seats::MAX)).contains(&count).then_some(Seats { count: count as u8 })
    }

    /// How many seats there are.
    pub fn count(self) -> usize {
        usize::from(self.count)
    }

    /// Whether `seat` is one of this table's.
    pub fn contains(self, seat: Seat) -> bool {
        seat.index() < self.count()
    }

    /// Every seat, host first, in the order around the table.
    pub fn iter(self) -> impl Iterator<Item = Seat> + Clone {
        (0..self.count()).filter_map(Seat::new)
    }

    /// Every seat but `seat`, in the order around the table from the host.
    pub fn others(self, seat: Seat) -> impl Iterator<Item = Seat> + Clone {
        self.iter().filter(move |other| *other != seat)
    }

    /// The seat after `seat` around the table, the host after the last.
    pub fn next_after(self, seat: Seat) -> Seat {
        Seat::new((seat.index() + 1) % self.count()).unwrap_or(Seat::HOST)
    }

    /// The seat whose order of actions is the table's: the host.
    pub fn sequencer(self) -> Seat {
        Seat::HOST
    }
}

/// One value for each seat of a table, reached by seat.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct SeatMap<T> {
    values: Vec<T>,
}

impl<T> SeatMap<T> {
    /// The value of each seat of `seats`, made by `value`.
    pub fn from_fn(seats: Seats, value: impl FnMut(Seat) -> T) -> SeatMap<T> {
        SeatMap { values: seats.iter().map(value).collect() }
    }

    /// The seats this map has a value for.
    pub fn seats(&self) -> Seats {
        Seats { count: self.values.len() as u8 }
    }

    /// Each seat with its value, host first.
    pub fn iter(&self) -> impl Iterator<Item = (Seat, &T)> {
        self.seats().iter().zip(&self.values)
    }

    /// Each seat with its value to change, host first.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (Seat, &mut T)> {
        self.seats().iter().zip(&mut self.values)
    }

    /// The values, host first.
    pub fn values(&self) -> impl Iterator<Item = &T> {
        self.values.iter()
    }

    /// Each seat's value made from its value here.
    pub fn map<U>(&self, mut value: impl FnMut(&T) -> U) -> SeatMap<U> {
        SeatMap { values: self.values.iter().map(&mut value).collect() }
    }

    /// The values in a slice, host first, for a pattern over every seat.
    pub fn as_slice(&self) -> &[T] {
        &self.values
    }

    /// The value of `seat`, if the table has that seat.
    pub fn get(&self, seat: Seat) -> Option<&T> {
        self.values.get(seat.index())
    }
}

impl<T: Default> SeatMap<T> {
    /// A default value for each seat of `seats`.
    pub fn new(seats: Seats) -> SeatMap<T> {
        SeatMap::from_fn(seats, |_| T::default())
    }
}

/// A map for the two-seat table, the only one the engine plays yet.
impl<T: Default> Default for SeatMap<T> {
    fn default() -> SeatMap<T> {
        SeatMap::new(Seats::TWO)
    }
}

/// The host's and the guest's values: a map of a two-seat table.
impl<T> From<[T; 2]> for SeatMap<T> {
    fn from(values: [T; 2]) -> SeatMap<T> {
        SeatMap { values: values.into() }
    }
}

impl<T> Index<Seat> for SeatMap<T> {
    type Output = T;

    /// Panics for a seat the table does not have: every seat is checked against the table where it enters.
    fn index(&self, seat: Seat) -> &T {
        &self.values[seat.index()]
    }
}

impl<T> IndexMut<Seat> for SeatMap<T> {
    fn index_mut(&mut self, seat: Seat) -> &mut T {
        &mut self.values[seat.index()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_seats_go_round_the_table_and_each_has_its_value() {
        let seats = Seats::new(3).expect("three seats");
        let third = Seat::new(2).expect("a third seat");
        assert_eq!(seats.iter().collect::<Vec<_>>(), [Seat::HOST, Seat::GUEST, third]);
        assert_eq!(seats.others(Seat::GUEST).collect::<Vec<_>>(), [Seat::HOST, third]);
        assert_eq!(seats.next_after(third), Seat::HOST);
        assert!(seats.contains(third) && !Seats::TWO.contains(third));
        let mut told = SeatMap::<u32>::new(seats);
        told[third] += 3;
        assert_eq!(
            told.iter().map(|(seat, n)| (seat.name(), *n)).collect::<Vec<_>>(),
            [("host", 0), ("guest", 0), ("seat3", 3)]
        );
        assert_eq!(Seats::new(1), None);
        assert_eq!(Seats::new(9), None);
    }

    #[test]
    fn a_seat_is_the_same_byte_and_name_as_before_and_a_seat_past_two_is_refused_from_a_peer() {
        assert_eq!(postcard::to_allocvec(&Seat::GUEST).expect("encode"), [1]);
        assert_eq!(serde_json::to_string(&Seat::HOST).expect("encode"), "\"host\"");
        assert_eq!(crate::codec::decode_exact::<Seat>(&[1]).ok(), Some(Seat::GUEST));
        assert!(crate::codec::decode_exact::<Seat>(&[2]).is_err());
        assert!(serde_json::from_str::<Seat>("\"seat3\"").is_err());
        assert_eq!(Seat::from_name("seat3").map(Seat::id_byte), Some(3));
    }
}
