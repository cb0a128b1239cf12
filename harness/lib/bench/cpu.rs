//! The CPU tiers: copy floors, static transform, 1- and 4-influence skinning on the fast path and
//! the reference oracle at 10k, 200k and 2M vertices, with steadiness and the core clock.

use std::hint::black_box;
use std::time::Instant;

use glam::{Mat4, Quat, Vec3};
use serde::{Deserialize, Serialize};

use super::fast::{self, AlignedPalette, Isa};
use super::measure::{measure_interleaved, Plan, Stats};
use super::{bent_chain, clock, cpu_model, Mode};
use crate::reference;
use crate::rig::strip;

/// One timed row of the CPU tiers.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct CpuRow {
    pub tier: String,
    pub vertices: usize,
    pub threads: usize,
    /// Timed samples behind the median.
    pub samples: usize,
    pub median_ms: f64,
    pub min_ms: f64,
    pub max_ms: f64,
    pub ns_per_vertex: f64,
    /// Median over the static transform's median at the same vertex count.
    pub vs_static: Option<f64>,
    /// Median over the row's copy floor at the same vertex count (static: 24 B, skinning: 48 B).
    pub vs_floor: Option<f64>,
}

/// The CPU tiers of one run.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct CpuBench {
    pub mode: Mode,
    /// /proc/cpuinfo's model name, or "unknown CPU".
    pub cpu: String,
    /// The SIMD kernel the fast rows ran (`fast::Isa::best`).
    pub isa: String,
    /// Hardware threads available to this process.
    pub available_threads: usize,
    /// The thread counts the rows use.
    pub thread_counts: Vec<usize>,
    pub rows: Vec<CpuRow>,
    /// Per tier, how steady the machine was while its rows were sampled.
    #[serde(default)]
    pub steadiness: Vec<Steadiness>,
    /// The core clock during the run, GHz ([`clock`]): the fastest timing of a chain of
    /// dependent adds sampled with every tier's rows. None where no chain is written.
    #[serde(default)]
    pub clock_ghz: Option<f64>,
    /// Wall time of the whole CPU tier benchmark (data building included), ms.
    pub wall_ms: f64,
}

/// How steady the machine was during one tier: a fixed in-cache job, sampled in turn with the
/// tier's rows, against the fastest sample it had in the whole run. A quiet machine stays near 1.0;
/// time taken by other load on the host (a shared or virtual machine) raises it, and the tier's
/// medians with it. (A machine slow for the whole run is not seen: there is nothing to compare.)
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Steadiness {
    /// The tier's vertex count.
    pub vertices: usize,
    /// The in-cache job's median during this tier, ns per vertex.
    pub median_ns_per_vertex: f64,
    /// That median over the job's fastest sample in the whole run.
    pub vs_fastest: f64,
}

impl CpuBench {
    /// Single-thread over two-thread median of `tier` at `vertices`, if both were run.
    pub(super) fn speedup(&self, tier: &str, vertices: usize) -> Option<f64> {
        let median = |threads: usize| {
            self.rows
                .iter()
                .find(|r| r.tier == tier && r.vertices == vertices && r.threads == threads)
                .map(|r| r.median_ms)
        };
        Some(median(1)? / median(2)?)
    }
}

/// The vertex counts of the CPU tiers.
pub const TIERS: [usize; 3] = [10_000, 200_000, 2_000_000];
pub(super) const FLOOR24: &str = "copy floor 24 B";
pub(super) const FLOOR48: &str = "copy floor 48 B";
pub(super) const STATIC: &str = "static transform";
pub(super) const SKIN1: &str = "skinning, 1 influence";
pub(super) const SKIN4: &str = "skinning, 4 influences";
pub(super) const ORACLE: &str = "reference oracle, 4 influences";

const CHAIN_JOINTS: usize = 64;

/// Vertices of the steadiness job: 4-influence skinning small enough to stay in the L1/L2 caches,
/// so that its time depends on the core alone, not on memory.
pub(super) const STEADY_VERTICES: usize = 4096;

/// The CPU tiers at 10k, 200k and 2M vertices: copy floors, static transform, 1- and 4-influence
/// skinning (fast path, 1 and 2 threads) and the reference oracle. `Mode::Off` returns no rows.
pub fn cpu_tiers(mode: Mode) -> CpuBench {
    let start = Instant::now();
    let plan = Plan::of(mode);
    let isa = Isa::best();
    let mut bench = CpuBench {
        mode,
        cpu: cpu_model(),
        isa: isa.name().to_string(),
        available_threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
        thread_counts: vec![1, 2],
        rows: Vec::new(),
        steadiness: Vec::new(),
        clock_ghz: None,
        wall_ms: 0.0,
    };
    if mode == Mode::Off {
        return bench;
    }
    let (skeleton, pose) = bent_chain(CHAIN_JOINTS, 1.0);
    let palette = skeleton.palette(&pose);
    let aligned = AlignedPalette::from(palette.as_slice());
    let m = Mat4::from_scale_rotation_translation(
        Vec3::splat(1.5),
        Quat::from_rotation_y(0.6),
        Vec3::new(1.0, -2.0, 3.0),
    );
    let steady_mesh = strip(CHAIN_JOINTS, 1.0, STEADY_VERTICES, 0.5, 4);
    let mut steady_out = vec![[0f32; 3]; STEADY_VERTICES];
    let mut steady: Vec<(usize, Stats)> = Vec::new();
    let mut chain_fastest = f64::INFINITY;
    for (t, &n) in TIERS.iter().enumerate() {
        let largest = t == TIERS.len() - 1;
        // 4 influences: a tent of radius 2 over the nearest joints, so nearly every vertex has 4 nonzero weights.
        let mesh = strip(CHAIN_JOINTS, 1.0, n, 0.5, 4);
        let mut out = vec![[0f32; 3]; n];
        // Every row of a tier is one job of one interleaved measurement.
        let two = n >= 2 * fast::MIN_VERTICES_PER_THREAD;
        let mut jobs = vec![Job::Copy(24, 1), Job::Copy(48, 1)];
        if two {
            // The same copy on two threads, halves each: the machine's own two-thread memory scaling.
            jobs.push(Job::Copy(48, 2));
        }
        jobs.extend([Job::Static, Job::Skin1, Job::Skin4(1)]);
        // fast::skin runs small meshes on one thread whatever it is asked: no 2-thread row there.
        if two {
            jobs.push(Job::Skin4(2));
        }
        if plan.per_kernel && n == TIERS[1] {
            jobs.extend(Isa::supported().into_iter().map(Job::Kernel));
        }
        if !largest || plan.oracle_at_largest {
            jobs.push(Job::Oracle);
        }
        jobs.push(Job::Steady);
        if clock::MEASURED {
            jobs.push(Job::Clock);
        }
        let src24 = vec![1u8; 24 * n];
        let mut dst24 = vec![0u8; 24 * n];
        let src48 = vec![1u8; 48 * n];
        let mut dst48 = vec![0u8; 48 * n];
        let stats = measure_interleaved(&plan, jobs.len(), |job| match jobs[job] {
            Job::Copy(bytes, threads) => {
                let (src, dst) = if bytes == 24 {
                    (&src24, &mut dst24)
                } else {
                    (&src48, &mut dst48)
                };
                if threads == 1 {
                    dst.copy_from_slice(black_box(src));
                } else {
                    let half = dst.len() / 2;
                    let (d1, d2) = dst.split_at_mut(half);
                    let (s1, s2) = src.split_at(half);
                    std::thread::scope(|scope| {
                        scope.spawn(|| d1.copy_from_slice(black_box(s1)));
                        d2.copy_from_slice(black_box(s2));
                    });
                }
                black_box(dst);
            }
            Job::Static => {
                fast::transform(&m, black_box(&mesh.positions), &mut out, 1);
                black_box(&mut out);
            }
            // The 1-influence kernel reads joints[i][0] only: the strip's first joint serves.
            Job::Skin1 => {
                fast::skin1(
                    &aligned,
                    black_box(&mesh.positions),
                    &mesh.joints,
                    &mut out,
                    1,
                );
                black_box(&mut out);
            }
            Job::Skin4(threads) => {
                fast::skin_mesh(&aligned, black_box(&mesh), &mut out, threads);
                black_box(&mut out);
            }
            Job::Kernel(k) => {
                fast::skin_with(
                    k,
                    &aligned,
                    black_box(&mesh.positions),
                    &mesh.joints,
                    &mesh.weights,
                    &mut out,
                    1,
                );
                black_box(&mut out);
            }
            Job::Oracle => {
                black_box(reference::skin(&palette, black_box(&mesh)));
            }
            Job::Steady => {
                fast::skin_mesh(&aligned, black_box(&steady_mesh), &mut steady_out, 1);
                black_box(&mut steady_out);
            }
            Job::Clock => clock::add_chain(clock::CHAIN_ADDS),
        });
        let mut rows: Vec<(&str, usize, Stats)> = Vec::new();
        for (job, s) in jobs.iter().zip(stats) {
            match job {
                Job::Steady => steady.push((n, s)),
                Job::Clock => chain_fastest = chain_fastest.min(s.min),
                _ => rows.extend(job.tier().map(|tier| (tier, job.threads(), s))),
            }
        }
        // A row's floor is the copy on as many threads, where the tier has one.
        let median_of = |name: &str, threads: usize| {
            let on = |t: usize| rows.iter().find(|r| r.0 == name && r.1 == t);
            on(threads).or_else(|| on(1)).map(|r| r.2.median)
        };
        let stat = median_of(STATIC, 1);
        for (name, threads, s) in &rows {
            let floor = match *name {
                FLOOR24 | FLOOR48 => None,
                STATIC => median_of(FLOOR24, *threads),
                _ => median_of(FLOOR48, *threads),
            };
            bench.rows.push(CpuRow {
                tier: name.to_string(),
                vertices: n,
                threads: *threads,
                samples: s.samples,
                median_ms: s.median * 1e3,
                min_ms: s.min * 1e3,
                max_ms: s.max * 1e3,
                ns_per_vertex: s.median * 1e9 / n as f64,
                vs_static: stat.map(|st| s.median / st),
                vs_floor: floor.map(|f| s.median / f),
            });
        }
    }
    bench.steadiness = steadiness(&steady);
    bench.clock_ghz = clock::ghz(chain_fastest);
    bench.wall_ms = start.elapsed().as_secs_f64() * 1e3;
    bench
}

/// Each tier's steadiness from the in-cache job's statistics per tier (vertex count, per call).
fn steadiness(per_tier: &[(usize, Stats)]) -> Vec<Steadiness> {
    let fastest = per_tier
        .iter()
        .map(|(_, s)| s.min)
        .fold(f64::INFINITY, f64::min);
    per_tier
        .iter()
        .map(|&(vertices, s)| Steadiness {
            vertices,
            median_ns_per_vertex: s.median * 1e9 / STEADY_VERTICES as f64,
            vs_fastest: s.median / fastest,
        })
        .collect()
}

/// One row of a CPU tier, as timed.
#[derive(Clone, Copy)]
enum Job {
    /// A memcpy of this many bytes per vertex, on 1 or 2 threads.
    Copy(usize, usize),
    Static,
    Skin1,
    /// 4-influence skinning with the best kernel, on this many threads.
    Skin4(usize),
    /// 4-influence skinning with this kernel, one thread.
    Kernel(Isa),
    Oracle,
    /// The in-cache job behind [`Steadiness`]: not a row of the table.
    Steady,
    /// The add chain behind [`CpuBench::clock_ghz`]: not a row of the table.
    Clock,
}

impl Job {
    /// The job's row in the table; None for the jobs that only inform a line below it.
    fn tier(self) -> Option<&'static str> {
        Some(match self {
            Job::Copy(24, _) => FLOOR24,
            Job::Copy(_, _) => FLOOR48,
            Job::Static => STATIC,
            Job::Skin1 => SKIN1,
            Job::Skin4(_) => SKIN4,
            Job::Kernel(k) => kernel_tier(k),
            Job::Oracle => ORACLE,
            Job::Steady | Job::Clock => return None,
        })
    }

    fn threads(self) -> usize {
        match self {
            Job::Copy(_, t) | Job::Skin4(t) => t,
            _ => 1,
        }
    }
}

/// The tier name of a per-kernel 4-influence row.
fn kernel_tier(isa: Isa) -> &'static str {
    match isa {
        Isa::Portable => "skinning, 4 influences, portable kernel",
        Isa::Avx2Fma => "skinning, 4 influences, avx2+fma kernel",
        Isa::Avx512F => "skinning, 4 influences, avx512f kernel",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steadiness_compares_each_tier_with_the_fastest_sample_of_the_run() {
        let st = |median: f64, min: f64| Stats {
            median,
            min,
            max: median * 2.0,
            samples: 5,
        };
        // The 2M tier was slow throughout: its own min says nothing, the run's fastest sample does.
        let per_tier = [
            (10_000, st(2.0e-5, 1.9e-5)),
            (2_000_000, st(3.0e-5, 2.9e-5)),
        ];
        let s = steadiness(&per_tier);
        assert_eq!(s.len(), 2);
        assert_eq!((s[0].vertices, s[1].vertices), (10_000, 2_000_000));
        assert!((s[0].vs_fastest - 2.0 / 1.9).abs() < 1e-9, "{s:?}");
        assert!((s[1].vs_fastest - 3.0 / 1.9).abs() < 1e-9, "{s:?}");
        let ns = 2.0e-5 * 1e9 / STEADY_VERTICES as f64;
        assert!((s[0].median_ns_per_vertex - ns).abs() < 1e-9, "{s:?}");
    }
}
