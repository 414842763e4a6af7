//! fairdeck engine.
