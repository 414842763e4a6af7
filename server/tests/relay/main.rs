//! Integration tests of the relay over real WebSockets on loopback.

mod abuse;
mod binary;
mod cluster;
mod common;
mod database;
mod forwarding;
mod limits;
mod operators;
mod postgres;
mod program;
mod refusals;
mod rendezvous;
mod resume;
mod stats;
mod watch;
