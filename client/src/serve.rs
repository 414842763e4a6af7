//! A relay inside this program: the real `fairdeck-relay`, its data (statistics database, hand-over file) in a
//! folder that goes with it. `fairdeck practice` serves one on loopback for its goldfish ([`LocalRelay`]);
//! `fairdeck host --serve ADDR:PORT` serves one where the guest can reach it with no internet at all (a LAN, a
//! phone hotspot), and a resumed game of it serves there again ([`Served`]). Same protocol, same end-to-end
//! encryption: the relay only forwards frames sealed with the code's key.

use std::future::Future;
use std::io::ErrorKind;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, UdpSocket};
use std::path::Path;
use std::time::Duration;

use fairdeck_relay::{Limits, Relay, RelayError, ShutdownHandle};
use tokio::task::JoinHandle;

/// How long the relay takes to say goodbye to connections still open when it stops: the players have left by
/// then, or are told `closing` and come back when the game is resumed.
const SHUTDOWN_GRACE: Duration = Duration::from_millis(500);
/// How long an item may wait in a reader's queue before the relay drops the reader as too slow. The public
/// relay's 20 seconds guard against stuck readers; here one reader at least is this process, which may be busy
/// for longer computing a large deck's shuffle proofs in a debug build.
const QUEUE_AGE: Duration = Duration::from_secs(10 * 60);
/// Threads of a served relay's runtime: it forwards the guest's frames while this program computes proofs.
const SERVE_THREADS: usize = 1;

/// A relay serving in this process.
pub(crate) struct LocalRelay {
    /// Where it listens, its port bound.
    addr: SocketAddr,
    /// Where this program connects to it.
    url: String,
    shutdown: ShutdownHandle,
    served: JoinHandle<Result<(), RelayError>>,
}

impl LocalRelay {
    /// Starts a relay listening on `listen` (port 0: one the system chooses), keeping its files in `data_dir`.
    /// Must run within the Tokio runtime that is to serve it.
    pub(crate) async fn start(listen: SocketAddr, data_dir: &Path) -> Result<LocalRelay, RelayError> {
        let limits = Limits { shutdown_grace: SHUTDOWN_GRACE, queue_age: QUEUE_AGE, ..Limits::default() };
        let mut relay = Relay::builder(listen, data_dir).limits(limits).build().await?;
        let addr = relay.bind().await?;
        let shutdown = relay.shutdown_handle();
        let served = tokio::spawn(relay.serve());
        // Listening on every address: this program reaches it on loopback.
        let here = match addr.ip() {
            IpAddr::V4(ip) if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
            IpAddr::V6(ip) if ip.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
            ip => ip,
        };
        Ok(LocalRelay { addr, url: ws_url(SocketAddr::new(here, addr.port())), shutdown, served })
    }

    /// The URL this program connects to.
    pub(crate) fn url(&self) -> &str {
        &self.url
    }

    /// Stops the relay and waits (a bounded time) until its statistics are written, so that nothing writes
    /// into its folder once it is removed.
    pub(crate) async fn stop(self) {
        self.shutdown.shutdown();
        // Past the bound, the runtime serving it is shut down next, which ends it.
        let _stopped_or_late = tokio::time::timeout(SHUTDOWN_GRACE * 4, self.served).await;
    }
}

/// The relay's WebSocket URL at `addr`.
fn ws_url(addr: SocketAddr) -> String {
    format!("ws://{addr}/v1")
}

/// A runtime of the program's own, shut down without waiting when dropped: it may be dropped in an asynchronous
/// context (the player's), where a runtime must not block.
pub(crate) struct Background(Option<tokio::runtime::Runtime>);

impl Background {
    /// A runtime of `threads` threads named `name`.
    pub(crate) fn new(threads: usize, name: &str) -> std::io::Result<Background> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(threads)
            .thread_name(name)
            .enable_all()
            .build()?;
        Ok(Background(Some(runtime)))
    }

    /// Runs `task` to its end on this runtime; not from within an asynchronous context.
    pub(crate) fn block_on<F: Future>(&self, task: F) -> F::Output {
        self.0.as_ref().expect("the runtime lives until dropped").block_on(task)
    }

    pub(crate) fn spawn<T: Send + 'static>(&self, task: impl Future<Output = T> + Send + 'static) -> JoinHandle<T> {
        self.0.as_ref().expect("the runtime lives until dropped").spawn(task)
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        if let Some(runtime) = self.0.take() {
            runtime.shutdown_background();
        }
    }
}

/// Why the relay could not be served. Each message says what to do about it.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("{0} is in use (another program, or another fairdeck, listens there): choose another port")]
    InUse(SocketAddr),
    #[error("this machine has no address {}: give one of its own, or 0.0.0.0 for all of them", .0.ip())]
    NotHere(SocketAddr),
    #[error("this system lets only privileged programs listen on port {}: choose a port above 1023", .0.port())]
    Privileged(SocketAddr),
    #[error("cannot listen on {0}: {1}")]
    Listen(SocketAddr, std::io::Error),
    #[error("cannot make a temporary folder for the relay: {0}")]
    Folder(std::io::Error),
    #[error("cannot start the relay's thread: {0}")]
    Runtime(std::io::Error),
    #[error("cannot start the relay: {0}")]
    Relay(String),
}

impl ServeError {
    fn of(error: RelayError) -> ServeError {
        match error {
            RelayError::Bind { addr, source } => match source.kind() {
                ErrorKind::AddrInUse => ServeError::InUse(addr),
                ErrorKind::AddrNotAvailable => ServeError::NotHere(addr),
                ErrorKind::PermissionDenied => ServeError::Privileged(addr),
                _ => ServeError::Listen(addr, source),
            },
            error => ServeError::Relay(format!("{:#}", anyhow::Error::from(error))),
        }
    }
}

/// A hosted game's relay (`--serve`): on a thread of its own, so that it forwards while this program computes; its
/// files in a temporary folder, removed when it stops (a resumed game meets at its rendezvous on the new relay).
pub struct Served {
    relay: LocalRelay,
    runtime: Background,
    /// Declared last: removed once the relay is gone.
    folder: tempfile::TempDir,
}

impl Served {
    /// Serves a relay on `listen`: a port in use, or an address not this machine's, is an error.
    pub async fn start(listen: SocketAddr) -> Result<Served, ServeError> {
        let folder = tempfile::Builder::new().prefix("fairdeck-relay-").tempdir().map_err(ServeError::Folder)?;
        let runtime = Background::new(SERVE_THREADS, "fairdeck-relay").map_err(ServeError::Runtime)?;
        let data_dir = folder.path().to_path_buf();
        let started = runtime.spawn(async move { LocalRelay::start(listen, &data_dir).await });
        let relay = match started.await {
            Ok(started) => started.map_err(ServeError::of)?,
            Err(failed) => return Err(ServeError::Relay(failed.to_string())),
        };
        Ok(Served { relay, runtime, folder })
    }

    /// Where it listens, its port bound: a resumed game serves here again.
    pub fn listen(&self) -> SocketAddr {
        self.relay.addr
    }

    /// The URL this program connects to.
    pub fn url(&self) -> &str {
        self.relay.url()
    }

    /// The URL to give the guest: at the address given, or, listening on every address, at one this machine was
    /// found to have; `None` when none was (the player gives the guest its LAN address).
    pub fn guest_url(&self) -> Option<String> {
        let addr = self.listen();
        let ip = if addr.ip().is_unspecified() { this_machine(addr.ip())? } else { addr.ip() };
        Some(ws_url(SocketAddr::new(ip, addr.port())))
    }

    /// Stops the relay: its players are told `closing`, its folder removed.
    pub async fn stop(self) {
        let Served { relay, runtime, folder } = self;
        relay.stop().await;
        drop(runtime);
        drop(folder);
    }
}

/// An address of this machine others may reach, of the family of `any` (IPv6 listens on IPv4 too): the one the
/// system would send from toward an outside address. Connecting a UDP socket sends nothing; with no route out at
/// all (no gateway), none is found.
fn this_machine(any: IpAddr) -> Option<IpAddr> {
    let outside_v4 = SocketAddr::from((Ipv4Addr::new(192, 0, 2, 1), 9));
    let outside_v6 = SocketAddr::from((Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 1), 9));
    let probes: &[SocketAddr] = if any.is_ipv4() { &[outside_v4] } else { &[outside_v4, outside_v6] };
    probes.iter().find_map(|&outside| {
        let unspecified =
            if outside.is_ipv4() { IpAddr::V4(Ipv4Addr::UNSPECIFIED) } else { IpAddr::V6(Ipv6Addr::UNSPECIFIED) };
        let socket = UdpSocket::bind(SocketAddr::new(unspecified, 0)).ok()?;
        socket.connect(outside).ok()?;
        let ip = socket.local_addr().ok()?.ip();
        (!ip.is_loopback() && !ip.is_unspecified()).then_some(ip)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_port_in_use_is_refused_by_name() {
        let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = taken.local_addr().unwrap();
        let Err(error) = Served::start(addr).await else { panic!("served on a port in use") };
        assert!(matches!(error, ServeError::InUse(at) if at == addr), "{error:?}");
        assert!(error.to_string().contains("choose another port"), "{error}");
    }

    #[tokio::test]
    async fn every_address_is_reached_on_loopback_and_given_as_one_of_this_machine() {
        let served = Served::start("0.0.0.0:0".parse().unwrap()).await.unwrap();
        let port = served.listen().port();
        assert_ne!(port, 0, "the port bound");
        assert_eq!(served.url(), format!("ws://127.0.0.1:{port}/v1"));
        // A machine with no route out has none to give; one that has gives a real address, never 0.0.0.0.
        if let Some(url) = served.guest_url() {
            assert!(
                url.ends_with(&format!(":{port}/v1")) && !url.contains("0.0.0.0") && !url.contains("127."),
                "{url}"
            );
        }
        served.stop().await;
    }

    #[tokio::test]
    async fn an_address_given_is_the_guests() {
        let served = Served::start("127.0.0.1:0".parse().unwrap()).await.unwrap();
        assert_eq!(served.guest_url().as_deref(), Some(served.url()));
        let folder = served.folder.path().to_path_buf();
        served.stop().await;
        assert!(!folder.exists(), "the relay's files go with it");
    }
}
