//! fairdeck relay.
