//! Splits a call's output into chunks run on scoped threads.

use std::ops::Range;
use std::sync::{Mutex, PoisonError};

/// Chunk boundaries fall on multiples of this many vertices (16 x 12 B = 3 cache lines).
const CHUNK_ALIGN: usize = 16;
/// Chunks per thread when a call is split, so that work moves to whichever thread is running.
const CHUNKS_PER_THREAD: usize = 8;
/// The largest chunk: 64k vertices, about 3.5 MB of input and output.
const MAX_CHUNK: usize = 1 << 16;
/// A call uses at most one thread per this many vertices: starting a thread costs tens of
/// microseconds, the time to skin some 20k vertices.
pub const MIN_VERTICES_PER_THREAD: usize = 1 << 15;

/// Runs `f` over `out` split into contiguous chunks on up to `threads` scoped threads (the calling
/// thread is one of them), at most one per [`MIN_VERTICES_PER_THREAD`] vertices.
pub(super) fn par_chunks<F>(out: &mut [[f32; 3]], threads: usize, f: F)
where
    F: Fn(Range<usize>, &mut [[f32; 3]]) + Sync,
{
    par_chunks_min(out, threads, MIN_VERTICES_PER_THREAD, f);
}

/// [`par_chunks`] with a chosen minimum of vertices per thread. `threads` 0 or 1 runs everything
/// on the calling thread. The chunks are handed out on demand, several per thread: a thread that
/// starts late (its core busy) takes fewer of them instead of holding the others up.
fn par_chunks_min<F>(out: &mut [[f32; 3]], threads: usize, min_per_thread: usize, f: F)
where
    F: Fn(Range<usize>, &mut [[f32; 3]]) + Sync,
{
    let n = out.len();
    let threads = threads.min(n / min_per_thread.max(1));
    if threads <= 1 || n <= CHUNK_ALIGN {
        f(0..n, out);
        return;
    }
    let chunk = n
        .div_ceil(threads * CHUNKS_PER_THREAD)
        .clamp(CHUNK_ALIGN, MAX_CHUNK)
        .next_multiple_of(CHUNK_ALIGN);
    let helpers = (threads - 1).min(n.div_ceil(chunk) - 1);
    let queue = Mutex::new(out.chunks_mut(chunk).enumerate());
    let work = || loop {
        // A panic in another thread (a bad joint index) poisons the queue; the chunks are still valid.
        let next = queue.lock().unwrap_or_else(PoisonError::into_inner).next();
        let Some((i, part)) = next else { break };
        let start = i * chunk;
        f(start..start + part.len(), part);
    };
    std::thread::scope(|s| {
        for _ in 0..helpers {
            s.spawn(work);
        }
        work();
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_cover_the_output_once_on_any_thread_count() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        for n in [0usize, 1, 15, 16, 17, 63, 64, 65, 1001, 5000] {
            for threads in [0usize, 1, 2, 3, 8] {
                let mut out = vec![[-1.0f32; 3]; n];
                let seen = AtomicUsize::new(0);
                par_chunks_min(&mut out, threads, 1, |r, part| {
                    assert_eq!(r.len(), part.len());
                    assert!(r.start % CHUNK_ALIGN == 0);
                    seen.fetch_add(part.len(), Ordering::Relaxed);
                    for (v, o) in r.zip(part) {
                        assert_eq!(*o, [-1.0; 3], "vertex {v} written twice");
                        *o = [v as f32, 0.0, 0.0];
                    }
                });
                assert_eq!(seen.load(Ordering::Relaxed), n);
                assert!(out.iter().enumerate().all(|(v, o)| o[0] == v as f32));
            }
        }
    }
}
