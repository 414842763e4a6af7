//! The accept loop: admission limits on every TCP connection, then HTTP/1.1 with a request-head timeout and an
//! upgrade deadline, handing requests to the axum router.
//!
//! `axum::serve` has neither a head timeout nor admission limits, so the relay drives hyper itself. Each
//! connection is counted as a handshake (against `max_handshakes`) until it is upgraded to a WebSocket or done,
//! and against its address (`connections_per_address`) for as long as it stays open, WebSocket included. Each
//! connection carries one request (its response says `Connection: close`) or one upgrade, so a connection that sends nothing, or its
//! head a byte at a time, or keeps asking, is closed by the head timeout or the upgrade deadline.

use std::convert::Infallible;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::ConnectInfo;
use axum::http::{HeaderValue, StatusCode, header};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpStream};
use tower_service::Service;

use crate::admission::{AddressTicket, Handshake};
use crate::metrics::Refusal;
use crate::state::AppState;
use crate::web;

/// Pause after an accept error that is not about one connection (usually the open-file limit), so the loop does
/// not spin while it lasts.
const ACCEPT_ERROR_PAUSE: Duration = Duration::from_millis(100);

/// Accepts connections until the relay shuts down; each is served on its own task.
pub(crate) async fn serve(listener: TcpListener, state: Arc<AppState>) {
    let router = web::app(state.clone());
    let mut shutdown = state.shutdown.clone();
    let stopping = shutdown.wait_for(|stopping| *stopping);
    tokio::pin!(stopping);
    loop {
        // Past twice the handshake cap (while the oldest handshakes close to make room), connections wait in the
        // kernel's backlog rather than take descriptors.
        let accepted = tokio::select! {
            accepted = async {
                state.admission.handshake_room().await;
                listener.accept().await
            } => accepted,
            _ = &mut stopping => return,
        };
        let (tcp, peer) = match accepted {
            Ok(accepted) => accepted,
            Err(error) if is_connection_error(&error) => continue,
            Err(_) => {
                state.metrics.refused(Refusal::AcceptError);
                tokio::time::sleep(ACCEPT_ERROR_PAUSE).await;
                continue;
            }
        };
        // A refused address is closed here, before any handshake work. Behind a trusted proxy every connection
        // comes from the proxy: the WebSocket handler checks and counts the forwarded address instead.
        let ticket = if state.trust_forwarded_for {
            None
        } else {
            match state.admission.try_address(peer.ip()) {
                Ok(guard) => Some(AddressTicket::new(guard)),
                Err(refusal) => {
                    state.metrics.refused(refusal);
                    continue;
                }
            }
        };
        let Some(handshake) = state.admission.try_handshake() else {
            state.metrics.refused(Refusal::HandshakeLimit);
            continue;
        };
        // Frames are small and interactive: send them at once.
        let _ = tcp.set_nodelay(true);
        tokio::spawn(connection(state.clone(), router.clone(), tcp, peer, ticket, handshake));
    }
}

/// Serves one connection's request (or upgrade) within the head timeout and the upgrade deadline.
async fn connection(
    state: Arc<AppState>,
    router: Router,
    tcp: TcpStream,
    peer: SocketAddr,
    ticket: Option<AddressTicket>,
    handshake: Handshake,
) {
    let limits = &state.limits;
    let service = hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
        request.extensions_mut().insert(ConnectInfo(peer));
        if let Some(ticket) = &ticket {
            request.extensions_mut().insert(ticket.clone());
        }
        // A Router is always ready (its `poll_ready` returns `Ready` at once), so it is called directly.
        let response = router.clone().call(request);
        async move {
            let mut response = response.await?;
            // One request per connection. (hyper's own `keep_alive(false)` would add `close` to the `Connection`
            // header of a 101 response too, which breaks the WebSocket handshake.)
            if response.status() != StatusCode::SWITCHING_PROTOCOLS {
                response.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
            }
            Ok::<_, Infallible>(response)
        }
    });
    let mut builder = http1::Builder::new();
    builder.timer(TokioTimer::new()).header_read_timeout(limits.request_head_timeout);
    let connection = builder.serve_connection(TokioIo::new(tcp), service).with_upgrades();
    tokio::pin!(connection);
    let deadline = tokio::time::sleep(limits.upgrade_timeout);
    tokio::pin!(deadline);
    let mut shutdown = state.shutdown.clone();
    let served = tokio::select! {
        served = connection.as_mut() => served,
        () = &mut deadline => {
            state.metrics.refused(Refusal::UpgradeTimeout);
            return;
        }
        () = handshake.evicted() => {
            state.metrics.refused(Refusal::HandshakeLimit);
            return;
        }
        () = async { drop(shutdown.wait_for(|stopping| *stopping).await) } => {
            // A request under way gets the grace period; an idle or slow one is closed.
            connection.as_mut().graceful_shutdown();
            match tokio::time::timeout(limits.shutdown_grace, connection.as_mut()).await {
                Ok(served) => served,
                Err(_) => return,
            }
        }
    };
    if served.is_err_and(|error| error.is_timeout()) {
        state.metrics.refused(Refusal::HeadTimeout);
    }
    drop(handshake);
}

/// Errors about one connection that vanished before it was accepted, not about the listener.
fn is_connection_error(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::ConnectionRefused | io::ErrorKind::ConnectionAborted | io::ErrorKind::ConnectionReset
    )
}
