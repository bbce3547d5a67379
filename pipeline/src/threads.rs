//! rayon's pool, one worker bound to each CPU when the pool has the
//! process's CPUs to itself.
//!
//! Left to the kernel, the two workers of a two-thread run sometimes share
//! one CPU while the other sits idle: when the partition's reading and
//! writing threads stop, the CPU they ran on goes idle without taking one
//! of the two workers queued on the other, and nothing moved one over for
//! 25–45 ms (`perf record -a -e sched:sched_switch` of big9 runs, in two
//! runs of three): up to a third of a 140 ms run. Bound one to a CPU,
//! two-thread runs took 1–3 % less wall time at the median and lost most of
//! their slow tail (docs/performance.md, "Threads").
//!
//! Binding only happens when there are as many workers as CPUs the process
//! may run on (`--threads 0`, one per core, or a `taskset`/cpuset that
//! gives it exactly that many): then each CPU is the pool's anyway. With
//! fewer workers than CPUs, which CPUs are free is the kernel's to judge;
//! with more, workers would have to share.

use anyhow::Context;

/// Worker threads per CPU at most (`--threads`, `run.threads`). Canopy's
/// workers compute (parse, cluster, extract) and wait on nothing, so past
/// one per CPU they only queue for the CPUs, while each holds a site in
/// progress and the read-ahead grows with their number
/// (`extract.rs`, `AHEAD_RECORDS_PER_THREAD`): `--threads 100000` spent
/// minutes starting threads. Eight per CPU leaves room to oversubscribe
/// on purpose (the determinism tests run 7 workers, on machines of one
/// CPU too) and bounds a typo. Outputs are the same for any number.
pub const MAX_THREADS_PER_CPU: usize = 8;

/// `requested` workers (0: one per CPU), lowered to
/// [`MAX_THREADS_PER_CPU`] per CPU this process may use (its affinity and
/// cgroup quota, as `available_parallelism` sees them), with a note on
/// stderr when lowered.
pub fn bounded(requested: usize) -> usize {
    let cpus = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    let most = bound_for(cpus);
    if requested > most {
        eprintln!(
            "canopy: {requested} threads is more than {MAX_THREADS_PER_CPU} per CPU \
             ({cpus} CPUs): using {most}"
        );
        return most;
    }
    requested
}

/// The most workers for `cpus` CPUs.
pub fn bound_for(cpus: usize) -> usize {
    cpus.max(1).saturating_mul(MAX_THREADS_PER_CPU)
}

/// Starts rayon's global pool with `threads` workers (0: one per core;
/// at most [`bounded`]), bound one to a CPU if `pin` and the CPUs allow
/// it ([`cpu_of`]).
pub fn start(threads: usize, pin: bool) -> anyhow::Result<()> {
    let threads = bounded(threads);
    let allowed = if pin { allowed_cpus() } else { Vec::new() };
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .start_handler(move |worker| {
            // The pool's size as rayon settled it (`threads`, or one per
            // core, or RAYON_NUM_THREADS).
            if let Some(cpu) = cpu_of(worker, &allowed, rayon::current_num_threads()) {
                // Not bound is as the kernel would have it: go on.
                let _ = bind_current_thread(cpu);
            }
        })
        .build_global()
        .context("cannot start threads")
}

/// The CPU of worker `worker` of `workers`, or `None` to leave it to the
/// kernel: the workers take the CPUs of `allowed` in turn when they are as
/// many.
pub fn cpu_of(worker: usize, allowed: &[usize], workers: usize) -> Option<usize> {
    (workers > 1 && allowed.len() == workers).then(|| allowed[worker])
}

/// The CPUs this thread may run on, in order; empty if unknown.
#[cfg(target_os = "linux")]
pub fn allowed_cpus() -> Vec<usize> {
    use nix::sched::{sched_getaffinity, CpuSet};
    use nix::unistd::Pid;
    let Ok(set) = sched_getaffinity(Pid::from_raw(0)) else {
        return Vec::new();
    };
    (0..CpuSet::count())
        .filter(|&cpu| set.is_set(cpu).unwrap_or(false))
        .collect()
}

#[cfg(not(target_os = "linux"))]
pub fn allowed_cpus() -> Vec<usize> {
    Vec::new()
}

#[cfg(target_os = "linux")]
fn bind_current_thread(cpu: usize) -> nix::Result<()> {
    use nix::sched::{sched_setaffinity, CpuSet};
    use nix::unistd::Pid;
    let mut set = CpuSet::new();
    set.set(cpu)?;
    sched_setaffinity(Pid::from_raw(0), &set)
}

#[cfg(not(target_os = "linux"))]
fn bind_current_thread(_cpu: usize) -> Result<(), ()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workers_are_bound_only_when_they_match_the_cpus() {
        let cpus = |allowed: &[usize], workers| -> Vec<Option<usize>> {
            (0..workers).map(|w| cpu_of(w, allowed, workers)).collect()
        };
        assert_eq!(cpus(&[0, 1], 2), [Some(0), Some(1)]);
        assert_eq!(cpus(&[2, 5, 7], 3), [Some(2), Some(5), Some(7)]);
        // Fewer workers than CPUs: which are free is the kernel's call.
        assert_eq!(cpus(&[0, 1, 2, 3], 2), [None, None]);
        // More workers than CPUs: they would share.
        assert_eq!(cpus(&[0], 2), [None, None]);
        // One worker has nowhere to be moved from; unknown CPUs.
        assert_eq!(cpus(&[3], 1), [None]);
        assert_eq!(cpus(&[], 2), [None, None]);
    }

    #[test]
    fn threads_are_bounded_by_the_cpus() {
        assert_eq!(bound_for(2), 16);
        assert_eq!(bound_for(0), MAX_THREADS_PER_CPU);
        assert_eq!(bound_for(usize::MAX), usize::MAX);
        let most = bound_for(std::thread::available_parallelism().unwrap().get());
        assert_eq!(bounded(0), 0);
        assert_eq!(bounded(7.min(most)), 7.min(most));
        assert_eq!(bounded(100_000), most.min(100_000));
        assert_eq!(bounded(usize::MAX), most);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_bound_worker_runs_on_its_cpu_alone() {
        let allowed = allowed_cpus();
        assert!(
            !allowed.is_empty(),
            "the affinity of this thread is readable"
        );
        // Every worker bound, as `start` binds them (one CPU included).
        let cpus = allowed.clone();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(cpus.len())
            .start_handler({
                let cpus = cpus.clone();
                move |worker| bind_current_thread(cpus[worker]).unwrap()
            })
            .build()
            .unwrap();
        let seen: Vec<Vec<usize>> = pool.broadcast(|_| allowed_cpus());
        let expected: Vec<Vec<usize>> = cpus.iter().map(|&c| vec![c]).collect();
        let mut seen = seen;
        seen.sort();
        assert_eq!(seen, expected);
        // This thread is not one of the pool's: its CPUs are unchanged.
        assert_eq!(allowed_cpus(), allowed);
    }
}
