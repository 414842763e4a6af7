//! The practice game's relay: the real `fairdeck-relay`, in this process, on a free loopback port, its data
//! (statistics database, hand-over file) in the practice game's temporary folder.

use std::net::{Ipv4Addr, SocketAddr};
use std::path::Path;
use std::time::Duration;

use fairdeck_relay::{Limits, Relay, RelayError, ShutdownHandle};
use tokio::task::JoinHandle;

/// How long the relay takes to say goodbye to connections still open when it stops: both players are in this
/// process and have left by then.
const SHUTDOWN_GRACE: Duration = Duration::from_millis(500);
/// How long an item may wait in a reader's queue before the relay drops the reader as too slow. The public
/// relay's 20 seconds guard against stuck readers; here both readers are this process, which may be busy for
/// longer computing a large deck's shuffle proofs in a debug build.
const QUEUE_AGE: Duration = Duration::from_secs(10 * 60);

/// A relay serving on loopback.
pub(super) struct LocalRelay {
    url: String,
    shutdown: ShutdownHandle,
    served: JoinHandle<Result<(), RelayError>>,
}

impl LocalRelay {
    /// Starts a relay on 127.0.0.1, on a port the system chooses, keeping its files in `data_dir`. Must run
    /// within the Tokio runtime that is to serve it.
    pub(super) async fn start(data_dir: &Path) -> Result<LocalRelay, RelayError> {
        let limits = Limits { shutdown_grace: SHUTDOWN_GRACE, queue_age: QUEUE_AGE, ..Limits::default() };
        let listen = SocketAddr::from((Ipv4Addr::LOCALHOST, 0));
        let mut relay = Relay::builder(listen, data_dir).limits(limits).build().await?;
        let addr = relay.bind().await?;
        let shutdown = relay.shutdown_handle();
        let served = tokio::spawn(relay.serve());
        Ok(LocalRelay { url: format!("ws://{addr}/v1"), shutdown, served })
    }

    /// The URL the players connect to.
    pub(super) fn url(&self) -> &str {
        &self.url
    }

    /// Stops the relay and waits (a bounded time) until its statistics are written, so that nothing writes
    /// into the temporary folder once it is removed.
    pub(super) async fn stop(self) {
        self.shutdown.shutdown();
        // Past the bound, the runtime serving it is shut down next, which ends it.
        let _stopped_or_late = tokio::time::timeout(SHUTDOWN_GRACE * 4, self.served).await;
    }
}
