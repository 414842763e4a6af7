//! fairdeck client.
