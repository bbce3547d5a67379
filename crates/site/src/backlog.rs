//! Whether a site's loops spread over the rayon pool or stay on its thread.
//!
//! An idle rayon worker steals from the other workers' queues before it
//! takes a task handed in from outside the pool. `extract` hands in one
//! task per site, and a site's parallel loops (parsing, signatures,
//! clusters, learning, extraction) push their pieces on the queue of the
//! worker running the site. Left to rayon, a worker done with its site
//! would take pieces of the other worker's site rather than the next site:
//! pages parsed on one core learned from on the other, and loops split
//! that need not be. So while sites wait, a site's loops run on its own
//! thread; what is left of a loop spreads over the pool as soon as no site
//! waits (the end of a bucket, or a site larger than the window). This
//! takes 1–8 % off two-thread runs on the dev corpora, and a worker never
//! holds a second site's pages while it waits in a split loop
//! (docs/performance.md, "Threads").

use std::sync::atomic::{AtomicUsize, Ordering};

use rayon::prelude::*;

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

    /// Whether tasks handed to the pool wait to begin.
    pub fn others_wait(&self) -> bool {
        self.0.load(Ordering::Relaxed) > 0
    }

    /// `f` of every item, in item order: one item after another on this
    /// thread while other tasks wait to begin, then the items left in
    /// parallel as soon as none waits, for idle workers to take pieces of.
    /// (Read item by item, not once for the loop: a large site that began
    /// while others waited would otherwise run its whole loop alone after
    /// they have all been taken.) Items are taken by value, so that `f` can
    /// consume what it needs once (a page's HTML, freed once parsed).
    pub fn map<T: Send, R: Send>(
        &self,
        items: impl IntoIterator<Item = T>,
        f: impl Fn(T) -> R + Sync,
    ) -> Vec<R> {
        let mut items = items.into_iter();
        let mut out = Vec::with_capacity(items.size_hint().0);
        while self.others_wait() {
            let Some(item) = items.next() else { break };
            out.push(f(item));
        }
        let rest: Vec<T> = items.collect();
        out.par_extend(rest.into_par_iter().map(&f));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::Backlog;

    /// The pool threads that ran each of `n` items of `backlog.map`, each
    /// item long enough for an idle worker to take a piece; `during` runs
    /// on the calling thread before item `i`.
    fn threads_of_items(backlog: &Backlog, n: usize, during: impl Fn(usize) + Sync) -> Vec<usize> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let items: Vec<usize> = (0..n).collect();
        pool.install(|| {
            backlog.map(&items, |&i| {
                during(i);
                std::thread::sleep(std::time::Duration::from_millis(1));
                rayon::current_thread_index().unwrap()
            })
        })
    }

    fn distinct(threads: &[usize]) -> usize {
        let mut threads = threads.to_vec();
        threads.sort_unstable();
        threads.dedup();
        threads.len()
    }

    #[test]
    fn a_loop_stays_on_its_thread_while_tasks_wait() {
        let backlog = Backlog::default();
        backlog.queued();
        assert_eq!(distinct(&threads_of_items(&backlog, 256, |_| {})), 1);
        backlog.started();
        assert_eq!(distinct(&threads_of_items(&backlog, 256, |_| {})), 2);
    }

    #[test]
    fn the_rest_of_a_loop_spreads_once_no_task_waits() {
        let backlog = Backlog::default();
        backlog.queued();
        // The waiting task begins while item 10 is being worked on.
        let threads = threads_of_items(&backlog, 256, |i| {
            if i == 10 {
                backlog.started();
            }
        });
        assert_eq!(distinct(&threads[..11]), 1);
        assert_eq!(distinct(&threads[11..]), 2);
    }

    #[test]
    fn results_keep_the_items_order() {
        let backlog = Backlog::default();
        backlog.queued();
        let items: Vec<u32> = (0..1000).collect();
        let doubled = backlog.map(&items, |&i| {
            if i == 300 {
                backlog.started();
            }
            i * 2
        });
        assert_eq!(doubled, items.iter().map(|i| i * 2).collect::<Vec<_>>());
    }
}
