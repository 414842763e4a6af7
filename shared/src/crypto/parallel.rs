//! Batches of independent group operations spread over the machine's cores: a deck's locks and strips, a
//! shuffle's commitments, the terms of a long multi-exponentiation. The items keep their order and the result
//! is the one a single thread computes; only the wall-clock time changes. The cores counted are those this
//! process may use (`std::thread::available_parallelism` follows CPU affinity and cgroup quotas), so
//! `taskset -c 0` gives the one-core figures.

use std::ops::Range;
use std::sync::LazyLock;

static THREADS: LazyLock<usize> = LazyLock::new(|| std::thread::available_parallelism().map_or(1, usize::from));

/// `work` over `0..len` cut into consecutive ranges of at least `min_chunk` items, one per core at most, the
/// first on this thread; the outputs concatenated in order. A batch too small to share runs here alone.
pub(crate) fn map_ranges<U: Send>(
    len: usize,
    min_chunk: usize,
    work: impl Fn(Range<usize>) -> Vec<U> + Sync,
) -> Vec<U> {
    let chunks = ranges(len, min_chunk, *THREADS);
    let [first, rest @ ..] = chunks.as_slice() else { return Vec::new() };
    if rest.is_empty() {
        return work(first.clone());
    }
    std::thread::scope(|scope| {
        let work = &work;
        let others: Vec<_> = rest
            .iter()
            .map(|range| {
                let share = range.clone();
                std::thread::Builder::new().spawn_scoped(scope, move || work(share)).map_err(|_| range.clone())
            })
            .collect();
        let mut out = work(first.clone());
        for other in others {
            match other {
                // A panic in a share is a bug of this crate's arithmetic: it goes on as this thread's.
                Ok(thread) => out.extend(thread.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))),
                // No thread to be had (the process is at its limit): this thread does that share too.
                Err(range) => out.extend(work(range)),
            }
        }
        out
    })
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
}
