//! The baseline: the smallest relay that does the same job (pair two sockets by room, forward binary frames),
//! with the same WebSocket buffers and message limit, and nothing else: no protocol, limits, resume or stats.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, State};
use axum::response::Response;
use axum::routing::get;
use axum::serve::ListenerExt;
use futures_util::{SinkExt, StreamExt};
use tokio::net::TcpListener;
use tokio::sync::{mpsc, oneshot};

type Waiting = Arc<Mutex<HashMap<String, (mpsc::Sender<Message>, oneshot::Sender<mpsc::Sender<Message>>)>>>;

/// Binds and serves the baseline relay forever; calls `ready` with the address once listening.
pub async fn serve(ready: impl FnOnce(SocketAddr)) -> anyhow::Result<()> {
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    ready(listener.local_addr()?);
    let app = Router::new().route("/ws/{room}", get(upgrade)).with_state(Waiting::default());
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    axum::serve(listener, app).await?;
    Ok(())
}

async fn upgrade(State(waiting): State<Waiting>, Path(room): Path<String>, ws: WebSocketUpgrade) -> Response {
    ws.read_buffer_size(4096)
        .write_buffer_size(4096)
        .max_message_size(64 * 1024)
        .max_frame_size(64 * 1024)
        .on_upgrade(move |socket| connection(socket, room, waiting))
}

async fn connection(socket: WebSocket, room: String, waiting: Waiting) {
    let (mut sink, mut stream) = socket.split();
    let (tx, mut rx) = mpsc::channel::<Message>(64);
    tokio::spawn(async move {
        while let Some(message) = rx.recv().await {
            if sink.send(message).await.is_err() {
                break;
            }
        }
    });
    let first = waiting.lock().unwrap_or_else(std::sync::PoisonError::into_inner).remove(&room);
    let peer = match first {
        Some((first_tx, give)) => {
            let _ = give.send(tx.clone());
            first_tx
        }
        None => {
            let (give, take) = oneshot::channel();
            waiting.lock().unwrap_or_else(std::sync::PoisonError::into_inner).insert(room, (tx.clone(), give));
            match take.await {
                Ok(peer) => peer,
                Err(_) => return,
            }
        }
    };
    // Tell both sides they are paired, so clients know when frames will be delivered.
    let _ = tx.send(Message::Text("paired".into())).await;
    while let Some(Ok(message)) = stream.next().await {
        if matches!(message, Message::Binary(_)) && peer.send(message).await.is_err() {
            break;
        }
    }
}
