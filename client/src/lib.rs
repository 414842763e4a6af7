//! The fairdeck client: the command-line program's library.

pub mod rng;
