//! The open-file limit: raised to its hard ceiling at start, and the connection caps fitted under it.
//!
//! Every connection is a file descriptor. A relay whose caps add up to more than its limit runs out of
//! descriptors under a flood of idle connections, and then cannot accept anyone: players are locked out. So the
//! caps are kept below the limit, with a reserve for the process itself. Handshakes get at most a quarter of what
//! is left (and may briefly hold twice their cap while the oldest close to make room, see `admission`): the other
//! half stays for WebSocket connections, the seated players. The relay program fits its caps at start; the load
//! tools fit the relays they start the same way, and so know how many connections one process may hold.

use crate::Limits;

/// Descriptors kept for the process itself: standard streams, the runtime, the listener, the statistics
/// database (a few connections, each with its journal), the hand-over and refusal files, a `/proc` read.
const RESERVED: u64 = 64;

/// The fewest descriptors left for connections that the relay runs with.
const MIN_FOR_CONNECTIONS: u64 = 16;

/// Raises the soft open-file limit to the hard one. Returns the soft limit now in force (`None`: unlimited), and
/// the error if raising it failed (the shipped unit's system-call filter forbids it; its `LimitNOFILE` sets both
/// to the same value anyway).
pub fn raise_open_file_limit() -> (Option<u64>, Option<std::io::Error>) {
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit only writes the struct it is given.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
        return (None, Some(std::io::Error::last_os_error()));
    }
    let mut error = None;
    if limit.rlim_cur < limit.rlim_max {
        let raised = libc::rlimit { rlim_cur: limit.rlim_max, rlim_max: limit.rlim_max };
        // SAFETY: setrlimit only reads the struct it is given.
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } == 0 {
            limit = raised;
        } else {
            error = Some(std::io::Error::last_os_error());
        }
    }
    let soft = (limit.rlim_cur != libc::RLIM_INFINITY).then_some(limit.rlim_cur);
    (soft, error)
}

/// `limits` with `max_handshakes` and `max_connections` lowered, where needed, to fit `open_files` descriptors.
/// An error if the limit leaves too few for connections at all.
pub fn fit(mut limits: Limits, open_files: u64) -> anyhow::Result<Limits> {
    let available = open_files.saturating_sub(RESERVED);
    anyhow::ensure!(
        available >= MIN_FOR_CONNECTIONS,
        "the open-file limit ({open_files}) is too low: the relay needs at least {}",
        RESERVED + MIN_FOR_CONNECTIONS
    );
    let available = usize::try_from(available).unwrap_or(usize::MAX);
    limits.max_handshakes = limits.max_handshakes.min(available / 4);
    limits.max_connections = limits.max_connections.min(available - 2 * limits.max_handshakes);
    Ok(limits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caps_fit_under_the_limit_with_room_for_the_process_and_the_seated() {
        let fitted = fit(Limits::default(), 256).unwrap();
        assert_eq!((fitted.max_handshakes, fitted.max_connections), (48, 96));
        assert!(2 * fitted.max_handshakes + fitted.max_connections + RESERVED as usize <= 256);
        let roomy = fit(Limits::default(), 1 << 20).unwrap();
        assert_eq!(roomy, Limits::default(), "caps already below a large limit are kept");
        assert!(fit(Limits::default(), 70).is_err());
    }
}
