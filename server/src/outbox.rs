//! A connection's outbound queue, bounded in bytes and in time, and the task that writes it to the socket.
//!
//! Every sender (the room, the connection itself) only ever pushes without waiting: the relay never waits on a
//! slow reader. The queue is not bounded in frames: a burst of many small frames to a reader that keeps up is
//! absorbed. A reader is cut off as too slow when its queue holds more than its byte budget (each item counts
//! its size plus a fixed overhead, so memory stays bounded however small the frames), or when the oldest item
//! not yet written (queued, or stuck writing to a full socket) is older than the age limit. The queue is then
//! abandoned and the writer tries, for a short while, to deliver a `slow_reader` close frame.

use std::borrow::Cow;
use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::task::Poll;
use std::time::{Duration, Instant};

use axum::extract::ws::{CloseFrame, Message, WebSocket};
use bytes::Bytes;
use futures_util::SinkExt;
use futures_util::stream::SplitSink;
use tokio::sync::{mpsc, oneshot};

use crate::metrics::{Metrics, SlowReason};
use crate::protocol::{ErrorCode, ServerMessage, close};

/// How long the writer keeps trying to deliver a final close frame to a peer that does not read.
const CLOSE_WRITE_TIMEOUT: Duration = Duration::from_secs(5);

/// Rough per-entry cost counted against the byte budget, so that many empty frames also fill it.
const ENTRY_OVERHEAD: usize = 64;

/// Set in a queue's byte count once its writer is done: nothing more is counted or accepted.
const ABANDONED: usize = 1 << (usize::BITS - 1);

/// One item of the queue.
#[derive(Debug)]
pub(crate) enum Outgoing {
    /// A peer's binary frame.
    Frame(Bytes),
    /// A control message, already serialized.
    Text(String),
    /// A liveness ping.
    Ping,
    /// A close frame; the writer stops after it.
    Close { code: u16, reason: Cow<'static, str> },
}

impl Outgoing {
    fn cost(&self) -> usize {
        ENTRY_OVERHEAD
            + match self {
                Outgoing::Frame(data) => data.len(),
                Outgoing::Text(text) => text.len(),
                Outgoing::Ping | Outgoing::Close { .. } => 0,
            }
    }
}

/// An item with the instant it entered the queue (for a frame: when the relay read it).
#[derive(Debug)]
pub(crate) struct Queued {
    pub(crate) item: Outgoing,
    at: Instant,
}

/// The queue was over its budget: the reader is being cut off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Overflow;

/// The sending side of a connection's queue. Cheap to clone; the room keeps one per seated connection.
#[derive(Debug, Clone)]
pub(crate) struct Outbox {
    tx: mpsc::UnboundedSender<Queued>,
    shared: Arc<Shared>,
}

#[derive(Debug)]
struct Shared {
    /// Bytes queued, plus the `ABANDONED` bit once the writer is done.
    queued_bytes: AtomicUsize,
    max_bytes: usize,
    max_age: Duration,
    killed: AtomicBool,
    /// Wakes the writer even while it is stuck writing to a full socket. A oneshot rather than a `Notify`: the
    /// writer polls it around every frame, and a oneshot poll costs a few atomics instead of a waiter-list lock.
    kill: Mutex<Option<oneshot::Sender<SlowReason>>>,
}

/// The receiving side of a connection's queue, owned by its writer.
#[derive(Debug)]
pub(crate) struct Queue {
    pub(crate) items: mpsc::UnboundedReceiver<Queued>,
    kill: oneshot::Receiver<SlowReason>,
}

/// How the writer ended, as reported to the connection task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WriterEnd {
    /// The queue asked for a close frame, or every sender is gone.
    Closed,
    /// The reader was cut off as too slow (its `slow_reader` close frame may still be on its way).
    SlowReader(SlowReason),
    /// The socket failed.
    SocketError,
}

/// Every connection's queue, for the `fairdeck_relay_queued_bytes` gauge. Summed when scraped, so that queuing
/// a frame touches no counter shared between connections.
#[derive(Debug, Default)]
pub(crate) struct Queues {
    list: Mutex<QueueList>,
}

#[derive(Debug, Default)]
struct QueueList {
    queues: Vec<Weak<Shared>>,
    /// Length at which closed queues are next swept out, so the list stays within twice the open ones.
    sweep_at: usize,
}

impl Queues {
    fn register(&self, shared: &Arc<Shared>) {
        let mut list = self.list.lock().unwrap_or_else(PoisonError::into_inner);
        list.queues.push(Arc::downgrade(shared));
        if list.queues.len() >= list.sweep_at {
            list.queues.retain(|queue| queue.strong_count() > 0);
            list.sweep_at = (2 * list.queues.len()).max(64);
        }
    }

    /// Bytes waiting in every open queue.
    pub(crate) fn queued_bytes(&self) -> usize {
        let mut list = self.list.lock().unwrap_or_else(PoisonError::into_inner);
        let mut total = 0;
        list.queues.retain(|queue| match queue.upgrade() {
            Some(shared) => {
                let queued = shared.queued_bytes.load(Ordering::Relaxed);
                if queued & ABANDONED == 0 {
                    total += queued;
                }
                true
            }
            None => false,
        });
        list.sweep_at = (2 * list.queues.len()).max(64);
        total
    }
}

impl Outbox {
    /// A new queue bounded by `max_bytes` and `max_age`, listed in `queues`.
    pub(crate) fn new(max_bytes: usize, max_age: Duration, queues: &Queues) -> (Outbox, Queue) {
        let (tx, items) = mpsc::unbounded_channel();
        let (kill_tx, kill) = oneshot::channel();
        let shared = Arc::new(Shared {
            queued_bytes: AtomicUsize::new(0),
            max_bytes,
            max_age,
            killed: AtomicBool::new(false),
            kill: Mutex::new(Some(kill_tx)),
        });
        queues.register(&shared);
        (Outbox { tx, shared }, Queue { items, kill })
    }

    /// Queues a peer's frame, read at `received`.
    pub(crate) fn frame(&self, data: Bytes, received: Instant) -> Result<(), Overflow> {
        self.push(Outgoing::Frame(data), received)
    }

    /// Queues a control message.
    pub(crate) fn control(&self, message: &ServerMessage) -> Result<(), Overflow> {
        // Serializing our own enum to a String cannot fail; an empty frame would be dropped by clients anyway.
        let text = serde_json::to_string(message).unwrap_or_default();
        self.push(Outgoing::Text(text), Instant::now())
    }

    /// Queues a ping.
    pub(crate) fn ping(&self) -> Result<(), Overflow> {
        self.push(Outgoing::Ping, Instant::now())
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
    pub(crate) fn close(&self, code: u16, reason: impl Into<Cow<'static, str>>) -> Result<(), Overflow> {
        self.push(Outgoing::Close { code, reason: reason.into() }, Instant::now())
    }

    /// Queues a control message as another instance of the relay wrote it (see `cluster`).
    pub(crate) fn text(&self, text: String) -> Result<(), Overflow> {
        self.push(Outgoing::Text(text), Instant::now())
    }

    /// Whether both outboxes feed the same connection.
    pub(crate) fn same_connection(&self, other: &Outbox) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }

    fn push(&self, item: Outgoing, at: Instant) -> Result<(), Overflow> {
        if self.shared.killed.load(Ordering::SeqCst) {
            return Err(Overflow);
        }
        self.shared.reserve(item.cost())?;
        // The receiver is gone only after the writer abandoned the queue, whose count no longer matters.
        self.tx.send(Queued { item, at }).map_err(|_| Overflow)
    }
}

impl Shared {
    /// Counts `cost` bytes in, or refuses: over budget (which kills the connection) or abandoned.
    fn reserve(&self, cost: usize) -> Result<(), Overflow> {
        let mut queued = self.queued_bytes.load(Ordering::Acquire);
        loop {
            if queued & ABANDONED != 0 {
                return Err(Overflow);
            }
            if queued + cost > self.max_bytes {
                self.kill(SlowReason::Bytes);
                return Err(Overflow);
            }
            match self.queued_bytes.compare_exchange_weak(queued, queued + cost, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => return Ok(()),
                Err(now) => queued = now,
            }
        }
    }

    /// An item left the queue (the writer took it).
    fn sub(&self, cost: usize) {
        self.queued_bytes.fetch_sub(cost, Ordering::AcqRel);
    }

    /// Cuts the connection off: the queue is abandoned and the writer woken.
    fn kill(&self, reason: SlowReason) {
        if !self.killed.swap(true, Ordering::SeqCst) {
            let sender = self.kill.lock().unwrap_or_else(PoisonError::into_inner).take();
            if let Some(sender) = sender {
                let _ = sender.send(reason);
            }
        }
    }

    /// The writer is done: nothing more is accepted, and what is left no longer counts as queued.
    fn abandon(&self) {
        self.killed.store(true, Ordering::SeqCst);
        self.queued_bytes.fetch_or(ABANDONED, Ordering::AcqRel);
    }
}

/// Writes the queue to the socket until a close, a cut-off or a socket error; reports the end on `done` as soon
/// as it is known (a cut-off reports before its close frame is delivered, so the room learns at once).
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
    let end = write_items(&mut sink, &mut rx, &mut killed, &shared, &metrics).await;
    let _ = done.send(end);
    shared.abandon();
    drop(rx);
    match end {
        WriterEnd::SlowReader(_) => {
            send_close(&mut sink, close::SLOW_READER, ErrorCode::SlowReader.as_str().into()).await
        }
        WriterEnd::Closed | WriterEnd::SocketError => {}
    }
}

/// The writer's loop proper; returns how it ended. A close item is written here before returning `Closed`.
async fn write_items(
    sink: &mut SplitSink<WebSocket, Message>,
    rx: &mut mpsc::UnboundedReceiver<Queued>,
    killed: &mut oneshot::Receiver<SlowReason>,
    shared: &Shared,
    metrics: &Metrics,
) -> WriterEnd {
    loop {
        let queued = tokio::select! {
            biased;
            reason = &mut *killed => return WriterEnd::SlowReader(reason.unwrap_or(SlowReason::Bytes)),
            queued = rx.recv() => queued,
        };
        let Some(Queued { item, at }) = queued else {
            // Every sender is gone: finish the close handshake (or echo the client's close frame).
            let _ = tokio::time::timeout(CLOSE_WRITE_TIMEOUT, sink.close()).await;
            return WriterEnd::Closed;
        };
        shared.sub(item.cost());
        // The oldest item not yet written has waited too long: this reader does not keep up.
        let deadline = at + shared.max_age;
        if Instant::now() >= deadline {
            shared.kill(SlowReason::Age);
            return WriterEnd::SlowReader(SlowReason::Age);
        }
        let (message, frame) = match item {
            Outgoing::Frame(data) => (Message::Binary(data), true),
            Outgoing::Text(text) => (Message::Text(text.into()), false),
            Outgoing::Ping => (Message::Ping(Bytes::new()), false),
            Outgoing::Close { code, reason } => {
                send_close(sink, code, reason).await;
                return WriterEnd::Closed;
            }
        };
        // The send usually completes at once; only if it does not is a timer set up for the age limit.
        let mut send = std::pin::pin!(sink.send(message));
        let sent = match std::future::poll_fn(|cx| Poll::Ready(send.as_mut().poll(cx))).await {
            Poll::Ready(sent) => sent,
            Poll::Pending => tokio::select! {
                biased;
                sent = &mut send => sent,
                reason = &mut *killed => return WriterEnd::SlowReader(reason.unwrap_or(SlowReason::Bytes)),
                () = tokio::time::sleep_until(deadline.into()) => {
                    shared.kill(SlowReason::Age);
                    return WriterEnd::SlowReader(SlowReason::Age);
                }
            },
        };
        if sent.is_err() {
            return WriterEnd::SocketError;
        }
        if frame {
            metrics.forward_latency.record(at.elapsed().as_secs_f64());
        }
    }
}

async fn send_close(sink: &mut SplitSink<WebSocket, Message>, code: u16, reason: Cow<'static, str>) {
    let frame = CloseFrame { code, reason: reason.as_ref().into() };
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

    fn outbox(max_bytes: usize) -> (Outbox, Queue, Queues) {
        let queues = Queues::default();
        let (outbox, queue) = Outbox::new(max_bytes, Duration::from_secs(10), &queues);
        (outbox, queue, queues)
    }

    #[test]
    fn overflowing_the_byte_budget_kills_the_connection() {
        let (outbox, mut queue, queues) = outbox(1000);
        assert_eq!(outbox.frame(Bytes::from(vec![0; 500]), Instant::now()), Ok(()));
        assert_eq!(queues.queued_bytes(), 500 + ENTRY_OVERHEAD);
        assert_eq!(outbox.frame(Bytes::from(vec![0; 500]), Instant::now()), Err(Overflow));
        assert!(outbox.shared.killed.load(Ordering::SeqCst));
        // Nothing more is accepted once killed, even if it would fit.
        assert_eq!(outbox.ping(), Err(Overflow));
        assert!(matches!(queue.items.try_recv(), Ok(Queued { item: Outgoing::Frame(_), .. })));
        assert!(queue.items.try_recv().is_err());
        assert_eq!(queue.kill.try_recv(), Ok(SlowReason::Bytes), "the writer is woken");
        assert_eq!(queues.queued_bytes(), 500 + ENTRY_OVERHEAD, "refused items are not counted");
        outbox.shared.abandon();
        assert_eq!(queues.queued_bytes(), 0);
    }

    #[test]
    fn many_small_frames_fit_and_are_not_counted_by_number() {
        let (outbox, _queue, queues) = outbox(512 * 1024);
        for _ in 0..2000 {
            assert_eq!(outbox.frame(Bytes::from_static(&[7; 100]), Instant::now()), Ok(()));
        }
        assert_eq!(queues.queued_bytes(), 2000 * (100 + ENTRY_OVERHEAD));
        // Yet empty frames cannot pile up without bound: each counts its overhead.
        let (outbox, _queue, _) = self::outbox(64 * 1024);
        let accepted = (0..10_000).take_while(|_| outbox.frame(Bytes::new(), Instant::now()).is_ok()).count();
        assert_eq!(accepted, 64 * 1024 / ENTRY_OVERHEAD);
    }

    #[test]
    fn the_gauge_sums_open_queues_and_forgets_closed_ones() {
        let queues = Queues::default();
        let mut open = Vec::new();
        for _ in 0..200 {
            let (outbox, queue) = Outbox::new(1 << 20, Duration::from_secs(10), &queues);
            outbox.ping().unwrap();
            open.push((outbox, queue));
        }
        assert_eq!(queues.queued_bytes(), 200 * ENTRY_OVERHEAD);
        open[0].0.shared.abandon();
        assert_eq!(open[0].0.ping(), Err(Overflow));
        assert_eq!(queues.queued_bytes(), 199 * ENTRY_OVERHEAD, "an abandoned queue counts nothing");
        open.truncate(10);
        // Registering sweeps closed queues out from time to time, so the list does not grow with churn.
        for _ in 0..1000 {
            drop(Outbox::new(1 << 20, Duration::from_secs(10), &queues));
        }
        assert!(queues.list.lock().unwrap().queues.len() < 200);
        assert_eq!(queues.queued_bytes(), 9 * ENTRY_OVERHEAD);
    }
}
