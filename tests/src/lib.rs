//! End-to-end tests of fairdeck.
