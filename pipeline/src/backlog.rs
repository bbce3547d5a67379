//! Whether a site's loops spread over the rayon pool or stay on its thread.
//!
//! An idle rayon worker steals from the other workers' queues before it
//! takes a task handed in from outside the pool. `extract` hands in one
//! task per site, and a site's parallel loops (parsing, signatures,
//! clusters, learning, extraction) push their pieces on the queue of the
//! worker running the site. So a worker done with its site took pieces of
//! the other worker's site rather than the next site: pages parsed on one
//! core were learned from on the other, and loops were split that did not
//! need to be. While sites wait, a site's loops now run on its own thread;
//! they spread over the pool only when no site waits (the end of a bucket,
//! or a site larger than the window). Two-thread runs took 1–8 % less wall
//! time on the dev corpora, and a worker no longer holds a second site's
//! pages while it waits in a split loop (docs/performance.md, "Twelfth
//! session").

use std::sync::atomic::{AtomicUsize, Ordering};

/// The number of tasks handed to the pool and not yet started.
#[derive(Debug, Default)]
pub struct Backlog(AtomicUsize);

impl Backlog {
    /// A task was handed to the pool.
    pub fn queued(&self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }

    /// A task handed to the pool has started.
    pub fn started(&self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }

    /// The `with_min_len` of a running task's parallel loops, read as each
    /// loop starts: the whole loop as one piece, run by this thread, while
    /// other tasks wait; else pieces of one item, for idle workers to take.
    pub fn min_len(&self) -> usize {
        if self.0.load(Ordering::Relaxed) == 0 {
            1
        } else {
            usize::MAX
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Backlog;
    use rayon::prelude::*;

    #[test]
    fn loops_stay_on_their_thread_while_tasks_wait() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let threads_used = |backlog: &Backlog| {
            pool.install(|| {
                let mut threads: Vec<usize> = (0..256)
                    .into_par_iter()
                    .with_min_len(backlog.min_len())
                    .map(|_| {
                        // Long enough for the other worker to take a piece.
                        std::thread::sleep(std::time::Duration::from_millis(1));
                        rayon::current_thread_index().unwrap()
                    })
                    .collect();
                threads.sort_unstable();
                threads.dedup();
                threads.len()
            })
        };
        let backlog = Backlog::default();
        backlog.queued();
        assert_eq!(threads_used(&backlog), 1);
        backlog.started();
        assert_eq!(threads_used(&backlog), 2);
    }
}
