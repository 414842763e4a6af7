//! Batches of independent group operations spread over the machine's cores: a deck's locks and strips, a
//! shuffle's commitments, the terms of a long multi-exponentiation. The items keep their order and the result
//! is the one a single thread computes; only the wall-clock time changes. The cores counted are those this
//! process may use (`std::thread::available_parallelism` follows CPU affinity and cgroup quotas), so
//! `taskset -c 0` gives the one-core figures.
//!
//! The shares beyond the first run on a pool of threads kept for the process (rayon's), started with the first
//! batch that is shared: starting a thread for each share costs about 50 µs here, a pool's task a few.

use std::ops::Range;
use std::sync::LazyLock;

static THREADS: LazyLock<usize> = LazyLock::new(|| std::thread::available_parallelism().map_or(1, usize::from));

/// The threads that take the shares beyond the first, one fewer than the cores; none where no thread could be
/// started (the process is at its limit), and then every share runs on the calling thread.
static POOL: LazyLock<Option<rayon::ThreadPool>> = LazyLock::new(|| {
    rayon::ThreadPoolBuilder::new()
        .num_threads(THREADS.saturating_sub(1).max(1))
        .thread_name(|i| format!("fairdeck-crypto-{i}"))
        .build()
        .ok()
});

/// `work` over `0..len` cut into consecutive ranges of at least `min_chunk` items, one per core at most, the
/// first on this thread; the outputs concatenated in order. A batch too small to share runs here alone.
pub(crate) fn map_ranges<U: Send>(
    len: usize,
    min_chunk: usize,
    work: impl Fn(Range<usize>) -> Vec<U> + Sync,
) -> Vec<U> {
    let chunks = ranges(len, min_chunk, *THREADS);
    let [first, rest @ ..] = chunks.as_slice() else { return Vec::new() };
    // The pool is started only by the first batch that is shared.
    let pool = if rest.is_empty() { None } else { POOL.as_ref() };
    let Some(pool) = pool else { return chunks.into_iter().flat_map(&work).collect() };
    let mut shares: Vec<Vec<U>> = rest.iter().map(|_| Vec::new()).collect();
    // A panic in a share is a bug of this crate's arithmetic: the scope raises it again on this thread.
    let mut out = pool.in_place_scope(|scope| {
        let work = &work;
        for (range, share) in rest.iter().zip(&mut shares) {
            scope.spawn(move |_| *share = work(range.clone()));
        }
        work(first.clone())
    });
    out.extend(shares.into_iter().flatten());
    out
}

/// `a` on this thread and `b` on the pool at once, where there is a second core; one after the other where there
/// is not. For independent work each too short to share out alone (a shuffle proof's `t_3`, and its `t_4` with the
/// sum that `t_4` needs).
pub(crate) fn join<A: Send, B: Send>(a: impl FnOnce() -> A, b: impl FnOnce() -> B + Send) -> (A, B) {
    let Some(pool) = POOL.as_ref().filter(|_| *THREADS > 1) else { return (a(), b()) };
    let mut second = None;
    // As in `map_ranges`, a panic in `b` is raised again here.
    let first = pool.in_place_scope(|scope| {
        let second = &mut second;
        scope.spawn(move |_| *second = Some(b()));
        a()
    });
    (first, second.expect("the scope ends once its spawned work has run"))
}

/// `0..len` in at most `threads` consecutive ranges of at least `min_chunk` items (one range if `len` is small),
/// as even as they can be.
fn ranges(len: usize, min_chunk: usize, threads: usize) -> Vec<Range<usize>> {
    let count = (len / min_chunk.max(1)).clamp(1, threads.max(1));
    (0..count).map(|i| len * i / count..len * (i + 1) / count).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ranges_cover_every_item_once_in_order() {
        for len in 0..50 {
            for min_chunk in [0, 1, 2, 7, 16] {
                for threads in [1, 2, 3, 8] {
                    let cut = ranges(len, min_chunk, threads);
                    assert!(cut.len() <= threads.max(1));
                    let items: Vec<usize> = cut.iter().cloned().flatten().collect();
                    assert_eq!(items, (0..len).collect::<Vec<_>>(), "{len} {min_chunk} {threads}");
                    if cut.len() > 1 {
                        assert!(cut.iter().all(|range| range.len() >= min_chunk), "{cut:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn the_work_of_every_range_comes_back_in_order() {
        let squares = map_ranges(1000, 3, |range| range.map(|i| i * i).collect());
        assert_eq!(squares, (0..1000).map(|i| i * i).collect::<Vec<_>>());
        assert!(map_ranges(0, 3, |range| range.collect::<Vec<_>>()).is_empty());
    }

    #[test]
    fn both_halves_of_a_join_run_and_come_back_in_place() {
        let (left, right) = join(|| (0..100).sum::<u32>(), || (0..100).map(|i| i * 2).collect::<Vec<u32>>());
        assert_eq!(left, 4950);
        assert_eq!(right, (0..100).map(|i| i * 2).collect::<Vec<_>>());
        // A join inside a share of a batch, as a proof made on the pool would do.
        let nested = map_ranges(4, 1, |range| range.map(|i| join(|| i, || i * 10)).collect());
        assert_eq!(nested, vec![(0, 0), (1, 10), (2, 20), (3, 30)]);
    }

    #[test]
    fn a_batch_shared_from_within_a_share_finishes_in_order() {
        // modp2048's fixed-base products fall back to a multi-exponentiation, itself shared, inside a share.
        let sums = map_ranges(64, 1, |outer| {
            outer
                .map(|i| map_ranges(64, 1, |inner| inner.map(|j| i * j).collect()).into_iter().sum::<usize>())
                .collect()
        });
        assert_eq!(sums, (0..64).map(|i| i * (0..64).sum::<usize>()).collect::<Vec<_>>());
    }
}
