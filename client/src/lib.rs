//! The fairdeck client: the command-line program's library.

pub mod deck;
pub mod rng;
