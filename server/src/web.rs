//! HTTP routes: the WebSocket endpoint, health, Prometheus metrics, and the operator's statistics.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::ws::WebSocketUpgrade;
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::{ConnectInfo, Extension, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Json, Response};
use axum::routing::get;
use base64::Engine;
use futures_util::StreamExt;
use serde::{Deserialize, Serialize};
use subtle::ConstantTimeEq;

use crate::admission::AddressTicket;
use crate::cluster::{Canary, link};
use crate::config::WS_BUFFER_BYTES;
use crate::metrics::{Live, Refusal};
use crate::protocol::{ENDPOINT_PATH, ErrorCode};
use crate::rooms::Stamp;
use crate::session::Origin;
use crate::state::AppState;
use crate::stats::{RoomRecord, StatsError, Summary, error_chain};
use crate::tally::LiveCounts;
use crate::{session, statspage};

/// Longest statistics window, in hours (31 days).
const MAX_HOURS: u32 = 744;

/// How long `/readyz` and the statistics pages wait for the database before answering without it.
const DATABASE_PATIENCE: Duration = Duration::from_secs(2);

/// The relay's routes. Used by [`crate::Relay::serve`]; tests reach it through a real relay.
pub(crate) fn app(state: Arc<AppState>) -> Router {
    Router::new()
        .route(ENDPOINT_PATH, get(websocket))
        .route(link::PATH, get(forwarded_websocket))
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .route("/metrics", get(metrics))
        .route("/api/stats", get(stats_json))
        .route("/api/rooms", get(rooms_json))
        .route("/stats", get(stats_page))
        .with_state(state)
}

async fn websocket(
    State(state): State<Arc<AppState>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    ticket: Option<Extension<AddressTicket>>,
    headers: HeaderMap,
    upgrade: WebSocketUpgrade,
) -> Response {
    if *state.shutdown.borrow() {
        return (StatusCode::SERVICE_UNAVAILABLE, "restarting: try again shortly\n").into_response();
    }
    let addr = client_addr(peer, &headers, state.trust_forwarded_for);
    // The accept loop counted the connection against its address, unless a trusted proxy stands in between: then
    // the forwarded address is counted here.
    let ticket = match ticket {
        Some(Extension(ticket)) => ticket,
        None => match state.admission.try_address(addr) {
            Ok(guard) => AddressTicket::new(guard),
            Err(refusal) => {
                state.metrics.refused(refusal);
                return refusal_response(refusal);
            }
        },
    };
    serve_websocket(state, upgrade, Origin::Player { addr, ticket })
}

/// A player another instance of the cluster forwards, presenting the cluster's secret; anything else is 404.
async fn forwarded_websocket(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Response {
    let forwarded = match &state.cluster {
        Some(cluster) => link::Forwarded::from_headers(&headers, cluster, &state.rooms),
        None => Err(link::Refusal::Unknown),
    };
    let (forwarded, upgrade) = match (forwarded, upgrade) {
        (Ok(forwarded), Ok(upgrade)) => (forwarded, upgrade),
        (Err(link::Refusal::NotThisInstance), _) => {
            return (StatusCode::CONFLICT, "another instance answers here now\n").into_response();
        }
        (Err(link::Refusal::NotHeld), _) => {
            return (StatusCode::MISDIRECTED_REQUEST, "this instance does not hold the room\n").into_response();
        }
        _ => return (StatusCode::NOT_FOUND, "not found\n").into_response(),
    };
    if *state.shutdown.borrow() {
        return (StatusCode::SERVICE_UNAVAILABLE, "restarting: try again shortly\n").into_response();
    }
    serve_websocket(state, upgrade, Origin::Instance(forwarded))
}

fn serve_websocket(state: Arc<AppState>, upgrade: WebSocketUpgrade, origin: Origin) -> Response {
    let Some(guard) = state.connections.try_take(state.limits.max_connections) else {
        state.metrics.rejected(ErrorCode::ServerFull);
        return (StatusCode::SERVICE_UNAVAILABLE, "server_full: too many connections\n").into_response();
    };
    let max = state.limits.max_message_bytes;
    upgrade
        .read_buffer_size(WS_BUFFER_BYTES)
        .write_buffer_size(WS_BUFFER_BYTES)
        // Room for the buffer, one largest frame and a close frame; the outbox bounds everything queued before.
        .max_write_buffer_size(2 * max + 2 * WS_BUFFER_BYTES)
        .max_message_size(max)
        .max_frame_size(max)
        .on_upgrade(move |socket| session::run(state, socket.split(), origin, guard))
}

fn refusal_response(refusal: Refusal) -> Response {
    match refusal {
        Refusal::Listed => (StatusCode::FORBIDDEN, "refused\n").into_response(),
        _ => (StatusCode::TOO_MANY_REQUESTS, "too many connections from your address\n").into_response(),
    }
}

/// The client's address: the socket peer, or behind a trusted proxy the last `X-Forwarded-For` entry (the one the
/// proxy added). Used only for rate limits; never stored or logged.
fn client_addr(peer: SocketAddr, headers: &HeaderMap, trust_forwarded_for: bool) -> IpAddr {
    if !trust_forwarded_for {
        return peer.ip();
    }
    let last = headers.get_all("x-forwarded-for").iter().next_back().and_then(|value| value.to_str().ok());
    last.and_then(|value| value.rsplit(',').next())
        .and_then(|entry| entry.trim().parse::<IpAddr>().ok())
        .unwrap_or(peer.ip())
}

async fn healthz() -> &'static str {
    "ok\n"
}

/// Why the relay is not ready to take players.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
// The names are what `/readyz` says.
#[allow(clippy::enum_variant_names)]
enum NotReady {
    ShuttingDown,
    DatabaseDown,
    /// The relay has a cluster, and Redis does not answer: it serves its own rooms alone.
    RedisDown,
}

#[derive(Debug, Serialize)]
struct Readiness {
    ready: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<NotReady>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cluster: Option<Canary>,
}

/// Ready when not shutting down, the statistics database answers (a load balancer can prefer an instance whose
/// records are kept), and in a cluster Redis answers a canary; `/healthz` only says that the process serves.
async fn readyz(State(state): State<Arc<AppState>>) -> Response {
    let canary = match &state.cluster {
        Some(cluster) => Some(cluster.canary().await),
        None => None,
    };
    let reason = if *state.shutdown.borrow() {
        Some(NotReady::ShuttingDown)
    } else if !database_answers(&state).await {
        Some(NotReady::DatabaseDown)
    } else if canary == Some(None) {
        Some(NotReady::RedisDown)
    } else {
        None
    };
    let status = if reason.is_some() { StatusCode::SERVICE_UNAVAILABLE } else { StatusCode::OK };
    (status, Json(Readiness { ready: reason.is_none(), reason, cluster: canary.flatten() })).into_response()
}

/// Whether the database answers within [`DATABASE_PATIENCE`].
async fn database_answers(state: &AppState) -> bool {
    matches!(tokio::time::timeout(DATABASE_PATIENCE, state.stats.check()).await, Ok(Ok(())))
}

async fn metrics(State(state): State<Arc<AppState>>) -> Response {
    let text = state.metrics.render(Live {
        rooms: state.rooms.live_counts(),
        connections: state.connections.open(),
        handshakes: state.admission.handshakes(),
        addresses: state.admission.addresses(),
        queued_bytes: state.queues.queued_bytes(),
    });
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], text).into_response()
}

#[derive(Debug, Deserialize)]
struct StatsQuery {
    hours: Option<u32>,
}

/// The JSON statistics document. While the database is down, only the live counts: `summary` and `recent` are
/// null.
#[derive(Debug, Serialize)]
struct StatsDocument {
    generated_ms: i64,
    hours: u32,
    database: Database,
    live: LiveCounts,
    connections: usize,
    summary: Option<Summary>,
    recent: Option<Vec<RoomRecord>>,
}

/// Whether the statistics database answered the request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
enum Database {
    Up,
    Down,
}

async fn stats_document(state: &AppState, query: &StatsQuery) -> StatsDocument {
    let hours = query.hours.unwrap_or(48).clamp(1, MAX_HOURS);
    let now = Stamp::now();
    let stored = async {
        let summary = state.stats.summary(now.unix_ms, hours).await?;
        Ok::<_, StatsError>((summary, state.stats.recent(20).await?))
    };
    let (database, summary, recent) = match tokio::time::timeout(DATABASE_PATIENCE, stored).await {
        Ok(Ok((summary, recent))) => (Database::Up, Some(summary), Some(recent)),
        Ok(Err(error)) => {
            tracing::warn!(error = %error_chain(&error), "cannot read the statistics: serving live counts only");
            (Database::Down, None, None)
        }
        Err(_) => {
            tracing::warn!("the statistics database did not answer in time: serving live counts only");
            (Database::Down, None, None)
        }
    };
    StatsDocument {
        generated_ms: now.unix_ms,
        hours,
        database,
        live: state.rooms.live_counts(),
        connections: state.connections.open(),
        summary,
        recent,
    }
}

async fn stats_json(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    Query(query): Query<StatsQuery>,
) -> Response {
    if let Some(refusal) = refuse_unless_operator(&state, &headers) {
        return refusal;
    }
    Json(stats_document(&state, &query).await).into_response()
}

/// The open rooms, for `fairdeck-relay rooms`; behind the operator token like the statistics.
async fn rooms_json(State(state): State<Arc<AppState>>, headers: HeaderMap) -> Response {
    match refuse_unless_operator(&state, &headers) {
        Some(refusal) => refusal,
        None => Json(rooms_listing(&state).await).into_response(),
    }
}

/// The open rooms: in a cluster, every instance's as published in Redis (this instance's alone while Redis is down).
async fn rooms_listing(state: &AppState) -> Vec<crate::RoomListing> {
    let Some(cluster) = &state.cluster else { return state.rooms.list(std::time::Instant::now()) };
    if let Some(rooms) = cluster.list(Stamp::now().unix_ms).await {
        return rooms;
    }
    let mut rooms = state.rooms.list(std::time::Instant::now());
    for room in &mut rooms {
        room.instance = Some(cluster.instance().to_owned());
    }
    rooms
}

async fn stats_page(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    Query(query): Query<StatsQuery>,
) -> Response {
    if let Some(refusal) = refuse_unless_operator(&state, &headers) {
        return refusal;
    }
    let doc = stats_document(&state, &query).await;
    Html(statspage::render(doc.summary.as_ref(), doc.live, doc.connections, doc.generated_ms, doc.hours))
        .into_response()
}

/// Lets through requests carrying the operator token, as `Authorization: Bearer <token>` or as the password of
/// HTTP Basic authentication (what a browser prompts for).
fn refuse_unless_operator(state: &AppState, headers: &HeaderMap) -> Option<Response> {
    let Some(expected) = &state.operator_token else {
        return Some(
            (StatusCode::NOT_FOUND, "statistics are disabled: start the relay with an operator token\n")
                .into_response(),
        );
    };
    let presented = headers.get(header::AUTHORIZATION).and_then(|value| value.to_str().ok()).and_then(|value| {
        if let Some(token) = value.strip_prefix("Bearer ") {
            return Some(token.trim().as_bytes().to_vec());
        }
        let decoded = base64::engine::general_purpose::STANDARD.decode(value.strip_prefix("Basic ")?.trim()).ok()?;
        let colon = decoded.iter().position(|b| *b == b':')?;
        Some(decoded[colon + 1..].to_vec())
    });
    if presented.is_some_and(|token| bool::from(token.ct_eq(expected.as_bytes()))) {
        return None;
    }
    let mut response = (StatusCode::UNAUTHORIZED, "operator token required\n").into_response();
    response
        .headers_mut()
        .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Basic realm=\"fairdeck-relay stats\""));
    Some(response)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forwarded_for_is_used_only_when_trusted_and_takes_the_last_entry() {
        let peer: SocketAddr = "127.0.0.1:5000".parse().unwrap();
        let mut headers = HeaderMap::new();
        headers.append("x-forwarded-for", HeaderValue::from_static("203.0.113.9, 198.51.100.7"));
        assert_eq!(client_addr(peer, &headers, false), peer.ip());
        assert_eq!(client_addr(peer, &headers, true), "198.51.100.7".parse::<IpAddr>().unwrap());
        headers.insert("x-forwarded-for", HeaderValue::from_static("garbage"));
        assert_eq!(client_addr(peer, &headers, true), peer.ip());
    }
}
