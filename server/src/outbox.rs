//! A connection's bounded outbound queue and the task that writes it to the socket.
//!
//! Every sender (the room, the connection itself) only ever `try_send`s: the relay never waits on a slow reader.
//! When the queue overflows (in frames or in bytes) the reader is cut off: the queue is abandoned and the writer
//! tries, for a short while, to deliver a `slow_reader` close frame.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::ws::{CloseFrame, Message, WebSocket};
use bytes::Bytes;
use futures_util::SinkExt;
use futures_util::stream::SplitSink;
use tokio::sync::{mpsc, oneshot};

use crate::metrics::Metrics;
use crate::protocol::{ErrorCode, ServerMessage, close};

/// How long the writer keeps trying to deliver a final close frame to a peer that does not read.
const CLOSE_WRITE_TIMEOUT: Duration = Duration::from_secs(5);

/// Rough per-entry cost counted against the byte budget, so that many empty frames also fill it.
const ENTRY_OVERHEAD: usize = 64;

/// One item of the queue.
#[derive(Debug)]
pub(crate) enum Outgoing {
    /// A peer's binary frame, with the instant the relay read it (for the latency histogram).
    Frame { data: Bytes, received: Instant },
    /// A control message, already serialized.
    Text(String),
    /// A liveness ping.
    Ping,
    /// A close frame; the writer stops after it.
    Close { code: u16, reason: &'static str },
}

/// The queue was full: the reader is being cut off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Overflow;

/// The sending side of a connection's queue. Cheap to clone; the room keeps one per seated connection.
#[derive(Debug, Clone)]
pub(crate) struct Outbox {
    tx: mpsc::Sender<Outgoing>,
    shared: Arc<Shared>,
}

#[derive(Debug)]
struct Shared {
    queued_bytes: AtomicUsize,
    max_bytes: usize,
    killed: AtomicBool,
    /// Wakes the writer even while it is stuck writing to a full socket. A oneshot rather than a `Notify`: the
    /// writer polls it around every frame, and a oneshot poll costs a few atomics instead of a waiter-list lock.
    kill: Mutex<Option<oneshot::Sender<()>>>,
}

/// The receiving side of a connection's queue, owned by its writer.
#[derive(Debug)]
pub(crate) struct Queue {
    pub(crate) items: mpsc::Receiver<Outgoing>,
    kill: oneshot::Receiver<()>,
}

/// How the writer ended, as reported to the connection task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WriterEnd {
    /// The queue asked for a close frame, or every sender is gone.
    Closed,
    /// The queue overflowed and the reader was cut off (its `slow_reader` close frame may still be on its way).
    SlowReader,
    /// The socket failed.
    SocketError,
}

impl Outbox {
    /// A new queue bounded by `max_frames` entries and `max_bytes` bytes.
    pub(crate) fn new(max_frames: usize, max_bytes: usize) -> (Outbox, Queue) {
        let (tx, items) = mpsc::channel(max_frames);
        let (kill_tx, kill) = oneshot::channel();
        let shared = Arc::new(Shared {
            queued_bytes: AtomicUsize::new(0),
            max_bytes,
            killed: AtomicBool::new(false),
            kill: Mutex::new(Some(kill_tx)),
        });
        (Outbox { tx, shared }, Queue { items, kill })
    }

    /// Queues a peer's frame.
    pub(crate) fn frame(&self, data: Bytes, received: Instant) -> Result<(), Overflow> {
        let cost = data.len() + ENTRY_OVERHEAD;
        self.push(Outgoing::Frame { data, received }, cost)
    }

    /// Queues a control message.
    pub(crate) fn control(&self, message: &ServerMessage) -> Result<(), Overflow> {
        // Serializing our own enum to a String cannot fail; an empty frame would be dropped by clients anyway.
        let text = serde_json::to_string(message).unwrap_or_default();
        let cost = text.len() + ENTRY_OVERHEAD;
        self.push(Outgoing::Text(text), cost)
    }

    /// Queues a ping.
    pub(crate) fn ping(&self) -> Result<(), Overflow> {
        self.push(Outgoing::Ping, ENTRY_OVERHEAD)
    }

    /// Queues an error message; if the code is fatal, a close frame follows it.
    pub(crate) fn error(&self, code: ErrorCode, message: impl Into<String>) -> Result<(), Overflow> {
        self.control(&ServerMessage::Error { code, message: message.into() })?;
        match code.close_code() {
            Some(close_code) => self.close(close_code, code.as_str()),
            None => Ok(()),
        }
    }

    /// Queues a close frame after whatever is already queued.
    pub(crate) fn close(&self, code: u16, reason: &'static str) -> Result<(), Overflow> {
        self.push(Outgoing::Close { code, reason }, ENTRY_OVERHEAD)
    }

    /// Cuts the connection off now: the queue is abandoned.
    fn kill(&self) {
        if !self.shared.killed.swap(true, Ordering::Relaxed) {
            let sender = self.shared.kill.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take();
            if let Some(sender) = sender {
                let _ = sender.send(());
            }
        }
    }

    /// Whether both outboxes feed the same connection.
    pub(crate) fn same_connection(&self, other: &Outbox) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }

    fn push(&self, item: Outgoing, cost: usize) -> Result<(), Overflow> {
        if self.shared.killed.load(Ordering::Relaxed) {
            return Err(Overflow);
        }
        let queued = self.shared.queued_bytes.fetch_add(cost, Ordering::Relaxed) + cost;
        if queued > self.shared.max_bytes || self.tx.try_send(item).is_err() {
            self.kill();
            return Err(Overflow);
        }
        Ok(())
    }
}

/// Writes the queue to the socket until a close, a kill or a socket error; reports the end on `done` as soon as
/// it is known (a killed connection reports before its close frame is delivered, so the room learns at once).
pub(crate) async fn write_loop(
    mut sink: SplitSink<WebSocket, Message>,
    queue: Queue,
    outbox: Outbox,
    metrics: Arc<Metrics>,
    done: oneshot::Sender<WriterEnd>,
) {
    let shared = outbox.shared;
    drop(outbox.tx);
    let Queue { items: mut rx, kill: mut killed } = queue;
    let end = loop {
        let item = tokio::select! {
            biased;
            _ = &mut killed => break None,
            item = rx.recv() => item,
        };
        let Some(item) = item else {
            // Every sender is gone: finish the close handshake (or echo the client's close frame).
            let _ = done.send(WriterEnd::Closed);
            let _ = tokio::time::timeout(CLOSE_WRITE_TIMEOUT, sink.close()).await;
            return;
        };
        let (message, received) = match item {
            Outgoing::Frame { data, received } => {
                shared.queued_bytes.fetch_sub(data.len() + ENTRY_OVERHEAD, Ordering::Relaxed);
                (Message::Binary(data), Some(received))
            }
            Outgoing::Text(text) => {
                shared.queued_bytes.fetch_sub(text.len() + ENTRY_OVERHEAD, Ordering::Relaxed);
                (Message::Text(text.into()), None)
            }
            Outgoing::Ping => {
                shared.queued_bytes.fetch_sub(ENTRY_OVERHEAD, Ordering::Relaxed);
                (Message::Ping(Bytes::new()), None)
            }
            Outgoing::Close { code, reason } => {
                let _ = done.send(WriterEnd::Closed);
                send_close(&mut sink, code, reason).await;
                return;
            }
        };
        let sent = tokio::select! {
            biased;
            _ = &mut killed => break None,
            sent = sink.send(message) => sent,
        };
        if sent.is_err() {
            break Some(WriterEnd::SocketError);
        }
        if let Some(received) = received {
            metrics.forward_latency.record(received.elapsed().as_secs_f64());
        }
    };
    match end {
        Some(end) => {
            let _ = done.send(end);
        }
        None => {
            let _ = done.send(WriterEnd::SlowReader);
            drop(rx);
            send_close(&mut sink, close::SLOW_READER, ErrorCode::SlowReader.as_str()).await;
        }
    }
}

async fn send_close(sink: &mut SplitSink<WebSocket, Message>, code: u16, reason: &'static str) {
    let frame = CloseFrame { code, reason: reason.into() };
    let _ = tokio::time::timeout(CLOSE_WRITE_TIMEOUT, async {
        if sink.send(Message::Close(Some(frame))).await.is_err() {
            // The client closed first; what is left to send is tungstenite's echo of its close frame.
            let _ = sink.flush().await;
        }
    })
    .await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overflowing_the_byte_budget_kills_the_connection() {
        let (outbox, mut queue) = Outbox::new(100, 1000);
        assert_eq!(outbox.frame(Bytes::from(vec![0; 500]), Instant::now()), Ok(()));
        assert_eq!(outbox.frame(Bytes::from(vec![0; 500]), Instant::now()), Err(Overflow));
        assert!(outbox.shared.killed.load(Ordering::Relaxed));
        // Nothing more is accepted once killed, even if it would fit.
        assert_eq!(outbox.ping(), Err(Overflow));
        assert!(matches!(queue.items.try_recv(), Ok(Outgoing::Frame { .. })));
        assert!(queue.items.try_recv().is_err());
        assert_eq!(queue.kill.try_recv(), Ok(()), "the writer is woken");
    }

    #[test]
    fn overflowing_the_frame_count_kills_the_connection() {
        let (outbox, _rx) = Outbox::new(4, 1 << 20);
        for _ in 0..4 {
            assert_eq!(outbox.ping(), Ok(()));
        }
        assert_eq!(outbox.ping(), Err(Overflow));
        assert!(outbox.shared.killed.load(Ordering::Relaxed));
    }
}
