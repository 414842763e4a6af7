//! The seats around a table: how many, in which order, and one value per seat.

use std::ops::{Index, IndexMut};

use serde::{Deserialize, Serialize};

use crate::ids::Seat;

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
        (2..=usize::from(Seats::MAX)).contains(&count).then(|| Seats { count: count as u8 })
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
