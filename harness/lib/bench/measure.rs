//! How the benchmarks sample: warm-up, samples of enough calls to last a minimum time, jobs taken
//! in turn, median, min and max per call.

use std::time::{Duration, Instant};

use super::evict::Evict;
use super::Mode;

/// Sampling effort per mode.
pub(super) struct Plan {
    pub samples: usize,
    /// Each sample repeats the call until it lasts at least this long.
    pub min_sample: Duration,
    /// Whether the (slow, allocating) reference oracle runs at the largest tier.
    pub oracle_at_largest: bool,
    /// Whether each supported SIMD kernel gets its own 4-influence row at 200k.
    pub per_kernel: bool,
}

impl Plan {
    pub fn of(mode: Mode) -> Plan {
        match mode {
            Mode::Off | Mode::Quick => Plan {
                samples: 5,
                min_sample: Duration::from_micros(500),
                oracle_at_largest: false,
                per_kernel: true,
            },
            Mode::Full => Plan {
                samples: 25,
                min_sample: Duration::from_millis(3),
                oracle_at_largest: true,
                per_kernel: true,
            },
        }
    }
}

/// Per-call seconds: median, min, max, samples, and each sample in the order taken (sample i of
/// every job of one measurement was taken in the same round).
#[derive(Clone, Debug)]
pub(super) struct Stats {
    pub median: f64,
    pub min: f64,
    pub max: f64,
    pub samples: usize,
    pub per_call: Vec<f64>,
}

/// The median of `values` (NaN when empty).
pub(super) fn median(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n {
        0 => f64::NAN,
        _ if n % 2 == 1 => v[n / 2],
        _ => 0.5 * (v[n / 2 - 1] + v[n / 2]),
    }
}

/// Warms `f` up, then times `plan.samples` samples of enough calls to last `plan.min_sample` each.
pub(super) fn measure(plan: &Plan, mut f: impl FnMut()) -> Stats {
    measure_interleaved(plan, &[Start::Warm], |_| f()).remove(0)
}

/// How each sample of a job starts.
#[derive(Clone, Copy)]
pub(super) enum Start<'a> {
    /// One untimed call, then enough timed calls to last `min_sample`: the job's data back in
    /// cache, as when it runs alone.
    Warm,
    /// Each timed call after the caches are evicted (untimed): the job's data from memory,
    /// whatever ran before it. For jobs larger than the caches, whose first calls after other
    /// work are slower than later ones (part of the data stays in L3 from one call to the next):
    /// timed warm, a job sampled right after another on the same data found more of it there.
    Cold(&'a Evict),
}

/// [`measure`] for one job per entry of `starts`, run by `f(job)`, sampled round-robin (sample 1
/// of every job, then sample 2, ...): a change in the machine's load during the run then reaches
/// every job alike, and the ratios between them (threads, floors) stay meaningful on a shared
/// machine.
pub(super) fn measure_interleaved(
    plan: &Plan,
    starts: &[Start],
    mut f: impl FnMut(usize),
) -> Vec<Stats> {
    let calls: Vec<usize> = starts
        .iter()
        .enumerate()
        .map(|(job, start)| {
            let t = Instant::now();
            f(job);
            let once = t.elapsed().as_secs_f64().max(1e-9);
            let calls = (plan.min_sample.as_secs_f64() / once)
                .ceil()
                .clamp(1.0, 1e6) as usize;
            // A second warm-up at the sampling rate settles caches, page mappings and clocks.
            if let Start::Warm = start {
                for _ in 0..calls {
                    f(job);
                }
            }
            calls
        })
        .collect();
    let mut per_call = vec![Vec::with_capacity(plan.samples); starts.len()];
    for _ in 0..plan.samples.max(1) {
        for (job, (&calls, start)) in calls.iter().zip(starts).enumerate() {
            let secs = match start {
                Start::Warm => {
                    // One untimed call first: each job's data is back in cache, as when it ran
                    // alone.
                    f(job);
                    let t = Instant::now();
                    for _ in 0..calls {
                        f(job);
                    }
                    t.elapsed().as_secs_f64()
                }
                Start::Cold(evict) => (0..calls)
                    .map(|_| {
                        evict.run();
                        let t = Instant::now();
                        f(job);
                        t.elapsed().as_secs_f64()
                    })
                    .sum(),
            };
            per_call[job].push(secs / calls as f64);
        }
    }
    per_call.into_iter().map(stats).collect()
}

/// Median, min and max of per-call seconds.
fn stats(per_call: Vec<f64>) -> Stats {
    Stats {
        median: median(&per_call),
        min: per_call.iter().copied().fold(f64::INFINITY, f64::min),
        max: per_call.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        samples: per_call.len(),
        per_call,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interleaved_samples_take_turns_and_time_each_job() {
        let plan = Plan {
            samples: 3,
            min_sample: Duration::ZERO,
            oracle_at_largest: false,
            per_kernel: false,
        };
        let mut order = Vec::new();
        let stats = measure_interleaved(&plan, &[Start::Warm; 2], |job| {
            order.push(job);
            // Job 1 takes measurably longer than job 0.
            std::thread::sleep(Duration::from_millis(1 + 19 * job as u64));
        });
        // Per job: a first call, one warm-up call; then per sample: an untimed and a timed call.
        assert_eq!(order, [0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1]);
        assert_eq!(stats.len(), 2);
        assert!(stats.iter().all(|s| s.samples == 3));
        assert!(stats[1].median > stats[0].median + 10e-3, "{stats:?}");
    }

    #[test]
    fn cold_jobs_skip_the_warm_up_and_are_timed_call_by_call() {
        let plan = Plan {
            samples: 3,
            min_sample: Duration::ZERO,
            oracle_at_largest: false,
            per_kernel: false,
        };
        let evict = Evict::new();
        let mut order = Vec::new();
        let stats = measure_interleaved(&plan, &[Start::Warm, Start::Cold(&evict)], |job| {
            order.push(job);
        });
        // The warm job: a first call and one warm-up call, then per sample an untimed call and a
        // timed one; the cold job a first call, then per sample a timed call after an eviction.
        assert_eq!(order, [0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1]);
        assert!(stats.iter().all(|s| s.samples == 3));
    }

    #[test]
    fn measure_reports_ordered_statistics() {
        let plan = Plan {
            samples: 3,
            min_sample: Duration::from_micros(10),
            oracle_at_largest: false,
            per_kernel: false,
        };
        let mut calls = 0u64;
        let s = measure(&plan, || calls += 1);
        assert!(s.min <= s.median && s.median <= s.max && s.samples == 3);
        assert!(calls >= 5);
    }
}
