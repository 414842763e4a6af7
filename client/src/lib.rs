//! The fairdeck client: the command-line program's library.

pub mod cards;
pub mod channel;
pub mod code;
pub mod command;
pub mod config;
pub mod deck;
mod file;
pub mod games;
mod input_lines;
pub mod journal;
pub mod play;
pub mod practice;
pub mod replay;
pub mod rng;
pub mod save;
pub mod script;
mod serve;
pub mod session;
mod text;
pub mod tls;
pub mod ui;
pub mod verify;
pub mod watch;
