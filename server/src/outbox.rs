//! A connection's outbound queue, bounded in bytes and in time; the task that writes it to the socket; and what
//! the connection's reader is told from outside: its writer stopped, the relay is restarting, or the client went
//! silent.
//!
//! Every sender (the room, the connection itself) only ever pushes without waiting: the relay never waits on a
//! slow reader. The queue is not bounded in frames: a burst of many small frames to a reader that keeps up is
//! absorbed. A reader is cut off as too slow when its queue holds more than its byte budget (each item counts
//! its size plus a fixed overhead, so memory stays bounded however small the frames), or when the oldest item
//! not yet written (queued, or stuck writing to a full socket) is older than the age limit. The queue is then
//! abandoned and the writer tries, for a short while, to deliver a `slow_reader` close frame. The writer flushes
//! once a burst: an item with others queued behind it is only buffered, and the last one flushes them together.
//!
//! Every connection is listed in [`Queues`], which sums the queued bytes for the metrics, pings every connection
//! once per ping interval and tells the silent ones, and tells every connection when the relay restarts: so a
//! connection keeps no timer and no shutdown watch of its own, and its reader looks at one flag word per message.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::future::{Future, poll_fn};
use std::sync::atomic::{AtomicU8, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::extract::ws::{CloseFrame, Message, WebSocket};
use bytes::Bytes;
use futures_util::SinkExt;
use futures_util::stream::SplitSink;
use futures_util::task::AtomicWaker;

use crate::metrics::{Metrics, SlowReason};
use crate::protocol::{ErrorCode, ServerMessage, close};

/// How long the writer keeps trying to deliver a final close frame to a peer that does not read.
const CLOSE_WRITE_TIMEOUT: Duration = Duration::from_secs(5);

/// Rough per-entry cost counted against the byte budget, so that many empty frames also fill it.
const ENTRY_OVERHEAD: usize = 64;

/// Set in a queue's byte count once its writer is done: nothing more is counted or accepted.
const ABANDONED: usize = 1 << (usize::BITS - 1);

/// Entries an empty queue keeps room for; a burst beyond it is given back once written, so that an idle
/// connection holds little.
const KEPT_ENTRIES: usize = 16;

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

/// How the writer ended, as reported to the connection's reader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WriterEnd {
    /// The queue asked for a close frame, or every sender is gone.
    Closed,
    /// The reader was cut off as too slow (its `slow_reader` close frame may still be on its way).
    SlowReader(SlowReason),
    /// The socket failed.
    SocketError,
}

/// What the connection's reader is told, most pressing first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum News {
    /// The writer stopped.
    WriterEnded(WriterEnd),
    /// The relay is shutting down.
    Restarting,
    /// Nothing came from the client (not even a pong) for a ping interval and the ping timeout.
    Silent,
}

/// The bits of [`Shared::news`]: the writer's end in the low three (0 while it runs), then one bit each.
mod news {
    pub(super) const WRITER_END: u8 = 0b0111;
    pub(super) const RESTARTING: u8 = 0b1000;
    pub(super) const SILENT: u8 = 0b1_0000;
}

impl WriterEnd {
    fn bits(self) -> u8 {
        match self {
            WriterEnd::Closed => 1,
            WriterEnd::SlowReader(SlowReason::Bytes) => 2,
            WriterEnd::SlowReader(SlowReason::Age) => 3,
            WriterEnd::SocketError => 4,
        }
    }

    fn from_bits(bits: u8) -> Option<WriterEnd> {
        match bits & news::WRITER_END {
            1 => Some(WriterEnd::Closed),
            2 => Some(WriterEnd::SlowReader(SlowReason::Bytes)),
            3 => Some(WriterEnd::SlowReader(SlowReason::Age)),
            4 => Some(WriterEnd::SocketError),
            _ => None,
        }
    }
}

/// Why a queue's reader was cut off, in [`Shared::cut`] (0: it was not).
fn cut_bits(reason: SlowReason) -> u8 {
    match reason {
        SlowReason::Bytes => 1,
        SlowReason::Age => 2,
    }
}

fn cut_reason(bits: u8) -> Option<SlowReason> {
    match bits {
        1 => Some(SlowReason::Bytes),
        2 => Some(SlowReason::Age),
        _ => None,
    }
}

/// The sending side of a connection's queue, and the connection's reader's view of its news and liveness.
/// Cheap to clone; the room keeps one per seated connection. The writer finishes once every clone is gone.
#[derive(Debug)]
pub(crate) struct Outbox {
    shared: Arc<Shared>,
}

#[derive(Debug)]
struct Shared {
    items: Mutex<VecDeque<Queued>>,
    /// Bytes queued, plus the `ABANDONED` bit once the writer is done.
    queued_bytes: AtomicUsize,
    /// `Outbox` handles alive.
    senders: AtomicUsize,
    max_bytes: usize,
    max_age: Duration,
    /// Why the reader was cut off as too slow (`cut_bits`), 0 while it was not.
    cut: AtomicU8,
    /// Wakes the writer for a new item, a cut-off, or the last sender gone, even while it is stuck writing to a
    /// full socket.
    writer: AtomicWaker,
    /// What the reader is told (`news` bits).
    news: AtomicU8,
    reader: AtomicWaker,
    /// When the client was last heard from, and last pinged, in milliseconds since [`Queues`]' epoch.
    heard_ms: AtomicU64,
    pinged_ms: AtomicU64,
}

/// The receiving side of a connection's queue, owned by its writer.
#[derive(Debug)]
pub(crate) struct Queue {
    shared: Arc<Shared>,
}

/// What the writer takes next.
enum Next {
    /// An item, and whether more wait behind it.
    Item(Queued, bool),
    /// The reader was cut off as too slow.
    Cut(SlowReason),
    /// Every sender is gone and the queue is empty.
    Closed,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Every connection's queue: summed for the `fairdeck_relay_queued_bytes` gauge when scraped (so that queuing a
/// frame touches no counter shared between connections), swept for liveness, told when the relay restarts.
#[derive(Debug)]
pub(crate) struct Queues {
    /// The origin of every connection's liveness times.
    epoch: Instant,
    list: Mutex<QueueList>,
}

#[derive(Debug, Default)]
struct QueueList {
    queues: Vec<Weak<Shared>>,
    /// Length at which closed queues are next swept out, so the list stays within twice the open ones.
    sweep_at: usize,
    /// The relay is restarting: a connection listed from now on is told at once.
    restarting: bool,
}

impl Default for Queues {
    fn default() -> Queues {
        Queues { epoch: Instant::now(), list: Mutex::default() }
    }
}

impl Queues {
    fn register(&self, shared: &Arc<Shared>) {
        let mut list = lock(&self.list);
        if list.restarting {
            shared.tell(news::RESTARTING);
        }
        list.queues.push(Arc::downgrade(shared));
        if list.queues.len() >= list.sweep_at {
            list.queues.retain(|queue| queue.strong_count() > 0);
            list.sweep_at = (2 * list.queues.len()).max(64);
        }
    }

    fn millis(&self, at: Instant) -> u64 {
        at.saturating_duration_since(self.epoch).as_millis() as u64
    }

    /// Runs `f` on every open queue, forgetting the closed ones.
    fn each(&self, mut f: impl FnMut(&Shared)) {
        let mut list = lock(&self.list);
        list.queues.retain(|queue| match queue.upgrade() {
            Some(shared) => {
                f(&shared);
                true
            }
            None => false,
        });
        list.sweep_at = (2 * list.queues.len()).max(64);
    }

    /// Bytes waiting in every open queue.
    pub(crate) fn queued_bytes(&self) -> usize {
        let mut total = 0;
        self.each(|shared| {
            let queued = shared.queued_bytes.load(Ordering::Relaxed);
            if queued & ABANDONED == 0 {
                total += queued;
            }
        });
        total
    }

    /// Liveness, run every fraction of the ping interval: pings each connection not pinged for `interval`, and
    /// tells each one not heard from for longer than `silence` that it is silent.
    pub(crate) fn keep_alive(&self, now: Instant, interval: Duration, silence: Duration) {
        let now_ms = self.millis(now);
        let (interval, silence) = (interval.as_millis() as u64, silence.as_millis() as u64);
        self.each(|shared| {
            if shared.queued_bytes.load(Ordering::Relaxed) & ABANDONED != 0 {
                return;
            }
            if now_ms.saturating_sub(shared.heard_ms.load(Ordering::Relaxed)) > silence {
                shared.tell(news::SILENT);
            } else if now_ms.saturating_sub(shared.pinged_ms.load(Ordering::Relaxed)) >= interval {
                shared.pinged_ms.store(now_ms, Ordering::Relaxed);
                let _ = shared.push(Outgoing::Ping, now);
            }
        });
    }

    /// Tells every connection, and every one listed from now on, that the relay is restarting.
    pub(crate) fn restart_all(&self) {
        let mut list = lock(&self.list);
        list.restarting = true;
        for shared in list.queues.iter().filter_map(Weak::upgrade) {
            shared.tell(news::RESTARTING);
        }
    }
}

impl Outbox {
    /// A new queue bounded by `max_bytes` and `max_age`, listed in `queues`; its client counts as heard now.
    pub(crate) fn new(max_bytes: usize, max_age: Duration, queues: &Queues) -> (Outbox, Queue) {
        let now = queues.millis(Instant::now());
        let shared = Arc::new(Shared {
            items: Mutex::new(VecDeque::new()),
            queued_bytes: AtomicUsize::new(0),
            senders: AtomicUsize::new(1),
            max_bytes,
            max_age,
            cut: AtomicU8::new(0),
            writer: AtomicWaker::new(),
            news: AtomicU8::new(0),
            reader: AtomicWaker::new(),
            heard_ms: AtomicU64::new(now),
            pinged_ms: AtomicU64::new(now),
        });
        queues.register(&shared);
        (Outbox { shared: shared.clone() }, Queue { shared })
    }

    /// Queues a peer's frame, read at `received`.
    pub(crate) fn frame(&self, data: Bytes, received: Instant) -> Result<(), Overflow> {
        self.shared.push(Outgoing::Frame(data), received)
    }

    /// Queues a control message.
    pub(crate) fn control(&self, message: &ServerMessage) -> Result<(), Overflow> {
        // Serializing our own enum to a String cannot fail; an empty frame would be dropped by clients anyway.
        let text = serde_json::to_string(message).unwrap_or_default();
        self.shared.push(Outgoing::Text(text), Instant::now())
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
        self.shared.push(Outgoing::Close { code, reason: reason.into() }, Instant::now())
    }

    /// Queues a control message as another instance of the relay wrote it (see `cluster`).
    pub(crate) fn text(&self, text: String) -> Result<(), Overflow> {
        self.shared.push(Outgoing::Text(text), Instant::now())
    }

    /// Whether both outboxes feed the same connection.
    pub(crate) fn same_connection(&self, other: &Outbox) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }

    /// The client was heard from at `at` (any message, a pong included), in the time of `queues`.
    pub(crate) fn heard(&self, queues: &Queues, at: Instant) {
        self.shared.heard_ms.store(queues.millis(at), Ordering::Relaxed);
    }

    /// The connection's next news, for its reader (the one task that waits on it).
    pub(crate) fn news(&self) -> impl Future<Output = News> + '_ {
        poll_fn(|cx| {
            let shared = &self.shared;
            if let Some(news) = shared.read_news() {
                return Poll::Ready(news);
            }
            shared.reader.register(cx.waker());
            shared.read_news().map_or(Poll::Pending, Poll::Ready)
        })
    }
}

impl Clone for Outbox {
    fn clone(&self) -> Outbox {
        self.shared.senders.fetch_add(1, Ordering::Relaxed);
        Outbox { shared: self.shared.clone() }
    }
}

impl Drop for Outbox {
    fn drop(&mut self) {
        if self.shared.senders.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.shared.writer.wake();
        }
    }
}

impl Shared {
    fn push(&self, item: Outgoing, at: Instant) -> Result<(), Overflow> {
        if self.cut.load(Ordering::Acquire) != 0 {
            return Err(Overflow);
        }
        self.reserve(item.cost())?;
        lock(&self.items).push_back(Queued { item, at });
        self.writer.wake();
        Ok(())
    }

    /// Counts `cost` bytes in, or refuses: over budget (which cuts the reader off) or abandoned.
    fn reserve(&self, cost: usize) -> Result<(), Overflow> {
        let mut queued = self.queued_bytes.load(Ordering::Acquire);
        loop {
            if queued & ABANDONED != 0 {
                return Err(Overflow);
            }
            if queued + cost > self.max_bytes {
                self.cut_off(SlowReason::Bytes);
                return Err(Overflow);
            }
            match self.queued_bytes.compare_exchange_weak(queued, queued + cost, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => return Ok(()),
                Err(now) => queued = now,
            }
        }
    }

    /// Cuts the reader off: nothing more is accepted, and the writer is woken.
    fn cut_off(&self, reason: SlowReason) {
        if self.cut.compare_exchange(0, cut_bits(reason), Ordering::AcqRel, Ordering::Acquire).is_ok() {
            self.writer.wake();
        }
    }

    fn cut_reason(&self) -> Option<SlowReason> {
        cut_reason(self.cut.load(Ordering::Acquire))
    }

    /// The writer's next item, if there is one or the queue is over.
    fn try_next(&self) -> Option<Next> {
        if let Some(reason) = self.cut_reason() {
            return Some(Next::Cut(reason));
        }
        // Read before the items: once no sender is left, everything they pushed is in the queue.
        let senders_gone = self.senders.load(Ordering::Acquire) == 0;
        let mut items = lock(&self.items);
        if let Some(queued) = items.pop_front() {
            self.queued_bytes.fetch_sub(queued.item.cost(), Ordering::AcqRel);
            if items.is_empty() && items.capacity() > KEPT_ENTRIES {
                items.shrink_to(KEPT_ENTRIES);
            }
            return Some(Next::Item(queued, !items.is_empty()));
        }
        senders_gone.then_some(Next::Closed)
    }

    fn poll_next(&self, cx: &mut Context<'_>) -> Poll<Next> {
        if let Some(next) = self.try_next() {
            return Poll::Ready(next);
        }
        self.writer.register(cx.waker());
        self.try_next().map_or(Poll::Pending, Poll::Ready)
    }

    fn poll_cut(&self, cx: &mut Context<'_>) -> Poll<SlowReason> {
        if let Some(reason) = self.cut_reason() {
            return Poll::Ready(reason);
        }
        self.writer.register(cx.waker());
        self.cut_reason().map_or(Poll::Pending, Poll::Ready)
    }

    /// The writer is done: nothing more is accepted, what is left is dropped and no longer counts as queued.
    fn abandon(&self) {
        self.queued_bytes.fetch_or(ABANDONED, Ordering::AcqRel);
        *lock(&self.items) = VecDeque::new();
    }

    /// Sets news bits for the reader and wakes it.
    fn tell(&self, bits: u8) {
        self.news.fetch_or(bits, Ordering::AcqRel);
        self.reader.wake();
    }

    fn read_news(&self) -> Option<News> {
        let bits = self.news.load(Ordering::Acquire);
        if let Some(end) = WriterEnd::from_bits(bits) {
            Some(News::WriterEnded(end))
        } else if bits & news::RESTARTING != 0 {
            Some(News::Restarting)
        } else if bits & news::SILENT != 0 {
            Some(News::Silent)
        } else {
            None
        }
    }
}

impl Queue {
    /// The next item queued, if any (for tests, which read a queue without a socket).
    #[cfg(test)]
    pub(crate) fn try_pop(&self) -> Option<Queued> {
        match self.shared.try_next() {
            Some(Next::Item(queued, _)) => Some(queued),
            _ => None,
        }
    }
}

/// Writes the queue to the socket until a close, a cut-off or a socket error; tells the reader how it ended as
/// soon as it is known (a cut-off before its close frame is delivered, so the room learns at once).
pub(crate) async fn write_loop(mut sink: SplitSink<WebSocket, Message>, queue: Queue, metrics: Arc<Metrics>) {
    let shared = queue.shared;
    let end = write_items(&mut sink, &shared, &metrics).await;
    shared.tell(end.bits());
    shared.abandon();
    match end {
        WriterEnd::SlowReader(_) => {
            send_close(&mut sink, close::SLOW_READER, ErrorCode::SlowReader.as_str().into()).await
        }
        WriterEnd::Closed | WriterEnd::SocketError => {}
    }
}

/// The writer's loop proper; returns how it ended. A close item is written here before returning `Closed`.
async fn write_items(sink: &mut SplitSink<WebSocket, Message>, shared: &Shared, metrics: &Metrics) -> WriterEnd {
    loop {
        let (Queued { item, at }, more) = match poll_fn(|cx| shared.poll_next(cx)).await {
            Next::Item(queued, more) => (queued, more),
            Next::Cut(reason) => return WriterEnd::SlowReader(reason),
            Next::Closed => {
                // Every sender is gone: finish the close handshake (or echo the client's close frame).
                let _ = tokio::time::timeout(CLOSE_WRITE_TIMEOUT, sink.close()).await;
                return WriterEnd::Closed;
            }
        };
        // The oldest item not yet written has waited too long: this reader does not keep up.
        let deadline = at + shared.max_age;
        if Instant::now() >= deadline {
            shared.cut_off(SlowReason::Age);
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
        // With more queued behind it, the item is only handed to the socket's buffer: the last of a burst (a strip
        // and its acceptance, a stream) flushes them all in one write, so the client reads them at one wake-up.
        // Only this writer takes items, so those behind come at once, or the cut that ends the connection.
        // The send usually completes at once; only if it does not is a timer set up for the age limit.
        let mut send = std::pin::pin!(async { if more { sink.feed(message).await } else { sink.send(message).await } });
        let sent = match poll_fn(|cx| Poll::Ready(send.as_mut().poll(cx))).await {
            Poll::Ready(sent) => sent,
            Poll::Pending => tokio::select! {
                biased;
                sent = &mut send => sent,
                reason = poll_fn(|cx| shared.poll_cut(cx)) => return WriterEnd::SlowReader(reason),
                () = tokio::time::sleep_until(deadline.into()) => {
                    shared.cut_off(SlowReason::Age);
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
    use std::task::Waker;

    use super::*;

    fn outbox(max_bytes: usize) -> (Outbox, Queue, Queues) {
        let queues = Queues::default();
        let (outbox, queue) = Outbox::new(max_bytes, Duration::from_secs(10), &queues);
        (outbox, queue, queues)
    }

    /// What the writer would take next, without waiting.
    fn next(queue: &Queue) -> Poll<Next> {
        queue.shared.poll_next(&mut Context::from_waker(Waker::noop()))
    }

    fn news(outbox: &Outbox) -> Poll<News> {
        std::pin::pin!(outbox.news()).poll(&mut Context::from_waker(Waker::noop()))
    }

    #[test]
    fn overflowing_the_byte_budget_cuts_the_reader_off() {
        let (outbox, queue, queues) = outbox(1000);
        assert_eq!(outbox.frame(Bytes::from(vec![0; 500]), Instant::now()), Ok(()));
        assert_eq!(queues.queued_bytes(), 500 + ENTRY_OVERHEAD);
        assert_eq!(outbox.frame(Bytes::from(vec![0; 500]), Instant::now()), Err(Overflow));
        // Nothing more is accepted once cut off, even if it would fit.
        assert_eq!(outbox.close(close::NORMAL, "x"), Err(Overflow));
        assert!(matches!(next(&queue), Poll::Ready(Next::Cut(SlowReason::Bytes))), "the writer stops at once");
        assert_eq!(queues.queued_bytes(), 500 + ENTRY_OVERHEAD, "refused items are not counted");
        queue.shared.abandon();
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
    fn the_writer_takes_everything_queued_before_the_last_sender_went_then_closes() {
        let (outbox, queue, _queues) = outbox(1 << 20);
        let room = outbox.clone();
        assert!(matches!(next(&queue), Poll::Pending), "nothing queued, senders left");
        room.frame(Bytes::from_static(b"a"), Instant::now()).unwrap();
        outbox.close(close::NORMAL, "left").unwrap();
        drop(room);
        drop(outbox);
        assert!(matches!(next(&queue), Poll::Ready(Next::Item(Queued { item: Outgoing::Frame(_), .. }, true))));
        assert!(matches!(next(&queue), Poll::Ready(Next::Item(Queued { item: Outgoing::Close { .. }, .. }, false))));
        assert!(matches!(next(&queue), Poll::Ready(Next::Closed)));
    }

    #[test]
    fn a_drained_queue_gives_back_the_room_of_a_burst() {
        let (outbox, queue, _queues) = outbox(1 << 20);
        for _ in 0..1000 {
            outbox.frame(Bytes::from_static(b"burst"), Instant::now()).unwrap();
        }
        assert!(queue.shared.items.lock().unwrap().capacity() >= 1000);
        while let Poll::Ready(Next::Item(..)) = next(&queue) {}
        assert!(queue.shared.items.lock().unwrap().capacity() <= KEPT_ENTRIES);
    }

    #[test]
    fn the_reader_hears_the_writers_end_before_a_restart_and_a_restart_before_silence() {
        let (outbox, queue, queues) = outbox(1 << 20);
        assert_eq!(news(&outbox), Poll::Pending);
        queue.shared.tell(news::SILENT);
        assert_eq!(news(&outbox), Poll::Ready(News::Silent));
        queues.restart_all();
        assert_eq!(news(&outbox), Poll::Ready(News::Restarting));
        queue.shared.tell(WriterEnd::SlowReader(SlowReason::Age).bits());
        assert_eq!(news(&outbox), Poll::Ready(News::WriterEnded(WriterEnd::SlowReader(SlowReason::Age))));
        for end in [WriterEnd::Closed, WriterEnd::SocketError, WriterEnd::SlowReader(SlowReason::Bytes)] {
            assert_eq!(WriterEnd::from_bits(end.bits()), Some(end));
        }
    }

    #[test]
    fn a_connection_opened_during_a_restart_is_told_at_once() {
        let queues = Queues::default();
        let (before, _queue) = Outbox::new(1 << 20, Duration::from_secs(10), &queues);
        queues.restart_all();
        assert_eq!(news(&before), Poll::Ready(News::Restarting));
        let (after, _queue) = Outbox::new(1 << 20, Duration::from_secs(10), &queues);
        assert_eq!(news(&after), Poll::Ready(News::Restarting));
    }

    #[test]
    fn liveness_pings_once_per_interval_and_tells_the_silent() {
        let queues = Queues::default();
        let (quiet, quiet_queue) = Outbox::new(1 << 20, Duration::from_secs(10), &queues);
        let (chatty, chatty_queue) = Outbox::new(1 << 20, Duration::from_secs(10), &queues);
        let (interval, silence) = (Duration::from_secs(30), Duration::from_secs(60));
        let at = |seconds| queues.epoch + Duration::from_secs(seconds);
        let pings =
            |queue: &Queue| std::iter::from_fn(|| queue.try_pop()).filter(|q| matches!(q.item, Outgoing::Ping)).count();
        queues.keep_alive(at(29), interval, silence);
        assert_eq!((pings(&quiet_queue), pings(&chatty_queue)), (0, 0), "not due yet");
        queues.keep_alive(at(30), interval, silence);
        queues.keep_alive(at(33), interval, silence);
        assert_eq!((pings(&quiet_queue), pings(&chatty_queue)), (1, 1), "one each, once");
        chatty.heard(&queues, at(50));
        queues.keep_alive(at(60), interval, silence);
        assert_eq!((pings(&quiet_queue), pings(&chatty_queue)), (1, 1));
        assert_eq!((news(&quiet), news(&chatty)), (Poll::Pending, Poll::Pending), "60 s of silence is allowed");
        queues.keep_alive(at(61), interval, silence);
        assert_eq!((news(&quiet), news(&chatty)), (Poll::Ready(News::Silent), Poll::Pending));
    }

    #[test]
    fn the_gauge_sums_open_queues_and_forgets_closed_ones() {
        let queues = Queues::default();
        let mut open = Vec::new();
        for _ in 0..200 {
            let (outbox, queue) = Outbox::new(1 << 20, Duration::from_secs(10), &queues);
            outbox.close(close::NORMAL, "").unwrap();
            open.push((outbox, queue));
        }
        assert_eq!(queues.queued_bytes(), 200 * ENTRY_OVERHEAD);
        open[0].1.shared.abandon();
        assert_eq!(open[0].0.close(close::NORMAL, ""), Err(Overflow));
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
