//! The CPU tiers: static transform, 1- and 4-influence skinning on the fast path and the reference
//! oracle at 10k, 200k and 2M vertices, each fast row beside its own bounds (`bound`), with memcpy
//! for context, steadiness, the core clock and the FMA peak.

use std::hint::black_box;
use std::time::Instant;

use glam::{Mat4, Quat, Vec3};
use serde::{Deserialize, Serialize};

use super::bound::{arithmetic_ms, binding, Binding, FmaPeak};
use super::evict::Evict;
use super::fast::{self, AlignedPalette, Isa, Kernel, Reach};
use super::measure::{measure_interleaved, Plan, Start, Stats};
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
    /// Bytes the row's kernel reads per vertex (its input slices), where it has a memory bound.
    #[serde(default)]
    pub read_bytes: Option<usize>,
    /// Bytes it writes per vertex.
    #[serde(default)]
    pub written_bytes: Option<usize>,
    /// Its floating-point operations per vertex, counted from its code (`fast::flops_per_vertex`).
    #[serde(default)]
    pub flops_per_vertex: Option<u32>,
    /// Median of the streaming loop with the row's traffic, alignment, stores and threads, sampled
    /// in turn with it (`fast::stream_with`).
    #[serde(default)]
    pub memory_bound_ms: Option<f64>,
    /// Its flops at the core's measured FMA peak, on as many cores as threads.
    #[serde(default)]
    pub arithmetic_bound_ms: Option<f64>,
    /// The larger bound, the one that binds.
    #[serde(default)]
    pub binds: Option<Binding>,
    /// The row over its binding bound: the median over the sampling rounds of the row's sample
    /// over the larger bound in the same round (`bound::binding`).
    #[serde(default)]
    pub vs_bound: Option<f64>,
}

/// The CPU tiers of one run.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct CpuBench {
    pub mode: Mode,
    /// /proc/cpuinfo's model name with its family, model and stepping, or "unknown CPU".
    pub cpu: String,
    /// The SIMD kernel the fast rows ran (`fast::Isa::best`).
    pub isa: String,
    /// The family of the loops that bound them (`fast::Isa::bound_family`); empty in reports made
    /// before it was recorded, where it was `isa`.
    #[serde(default)]
    pub bound_isa: String,
    /// The timed trial that chose between the SIMD forms, where one ran (`fast::kernel_trial`);
    /// in reports made before AVX-512 took part, between the AVX2 forms only.
    #[serde(default)]
    pub trial: Option<KernelTrial>,
    /// The SIMD kernel the static transform's rows ran (`fast::Isa::best_static`), and the
    /// family of its bound's loop; empty in reports made before it had its own, where it was
    /// `isa`.
    #[serde(default)]
    pub static_isa: String,
    /// The static transform's own timed trial, where one ran (`fast::static_trial`).
    #[serde(default)]
    pub static_trial: Option<KernelTrial>,
    /// Whether the fast kernel prefetches its inputs beyond the caches, decided by a timed trial
    /// of its own (`fast::prefetch_trial`: `prefetched` against `not prefetched`), where the
    /// kernel is a SIMD form (an AVX2 one only, in reports made before the AVX-512 kernels could).
    #[serde(default)]
    pub prefetch_trial: Option<KernelTrial>,
    /// Every prefetch trial the rows followed, per kernel form (the name) and reach (the trial's
    /// vertices: the shared cache's 200k, or 2M beyond the caches); empty in reports made before,
    /// where only `prefetch_trial` was run and no kernel prefetched from the shared cache.
    #[serde(default)]
    pub prefetch_trials: Vec<(String, KernelTrial)>,
    /// How the memory bounds' loops read their inputs (the static transform reads as its bound's
    /// loop), per loop family and traffic (the name: "avx512f loop, 44 B read + 12 B written")
    /// and reach (the trial's vertices), each decided by a timed trial of its own
    /// (`fast::bound_trial`); empty in reports made before, where the AVX2 loop prefetched
    /// non-temporally beyond the caches and no loop prefetched otherwise.
    #[serde(default)]
    pub bound_trials: Vec<(String, KernelTrial)>,
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
    /// The core's FMA throughput per SIMD kernel family, sampled with every tier's rows.
    #[serde(default)]
    pub fma_peaks: Vec<FmaPeak>,
    /// The vertex count from which rows and bounds were timed from cold caches, each call after
    /// a read of [`CpuBench::evict_bytes`] (`measure::Start::Cold`); None in reports made before,
    /// where every sample followed an untimed call.
    #[serde(default)]
    pub cold_from: Option<usize>,
    /// The bytes read to evict the caches before each cold sample: twice the last-level cache.
    #[serde(default)]
    pub evict_bytes: Option<usize>,
    /// Wall time of the whole CPU tier benchmark (data building included), ms.
    pub wall_ms: f64,
}

/// The timed trial between kernel families that chose the fast rows' kernel.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct KernelTrial {
    /// The vertices of each timed call (one thread).
    pub vertices: usize,
    /// Each family timed and its fastest time, ns per vertex.
    pub timed: Vec<(String, f64)>,
    /// The family chosen: the fastest.
    pub chosen: String,
}

impl KernelTrial {
    fn of(trial: &fast::Trial) -> Self {
        KernelTrial::named(trial, |isa| isa.name())
    }

    /// The trial with each candidate under its `name`.
    fn named<T: Copy>(trial: &fast::Trial<T>, name: impl Fn(T) -> &'static str) -> Self {
        KernelTrial {
            vertices: trial.vertices,
            timed: (trial.timed.iter())
                .map(|(c, ns)| (name(*c).to_string(), *ns))
                .collect(),
            chosen: name(trial.chosen).to_string(),
        }
    }
}

/// What the prefetch trial calls its candidates.
fn prefetch_name(prefetched: bool) -> &'static str {
    if prefetched {
        "prefetched"
    } else {
        "not prefetched"
    }
}

/// The trials that decide how the rows read their inputs, each run here, before any row is timed
/// (run lazily in a row's first call, a trial would set how many calls that row's samples make),
/// at each reach where rows run: per kernel form, whether it prefetches (the 4-influence rows,
/// and at the shared cache's reach each form's own row where the plan has them), and per bound
/// loop family and traffic, how its loop reads (the static transform's, the 1- and 4-influence
/// rows').
#[allow(clippy::type_complexity)] // two lists of named trials
fn read_trials(
    plan: &Plan,
    families: Families,
) -> (Vec<(String, KernelTrial)>, Vec<(String, KernelTrial)>) {
    let mut forms: Vec<(Isa, Reach)> = Reach::ALL.map(|r| (families.skin, r)).to_vec();
    let mut loops: Vec<(Isa, usize, Reach)> = Vec::new();
    for r in Reach::ALL {
        loops.extend([
            (families.transform, 0, r),
            (families.skin, 1, r),
            (families.skin, 2, r),
        ]);
    }
    if plan.per_kernel {
        for k in Isa::SIMD.into_iter().filter(|k| k.is_supported()) {
            forms.push((k, Reach::Shared));
            loops.push((k, 2, Reach::Shared));
        }
    }
    let mut prefetch = Vec::new();
    for (k, r) in forms {
        if let Some(t) = fast::prefetch_trial(k, r) {
            let named = (k.name().to_string(), KernelTrial::named(t, prefetch_name));
            if !prefetch.contains(&named) {
                prefetch.push(named);
            }
        }
    }
    let mut bound = Vec::new();
    for (k, wide, r) in loops {
        if let Some(t) = fast::bound_trial(k, r, wide) {
            let (read, written) = fast::traffic(wide);
            let name = format!(
                "{} loop, {read} B read + {written} B written",
                k.bound_family().name()
            );
            let named = (name, KernelTrial::named(t, fast::Ahead::name));
            if !bound.contains(&named) {
                bound.push(named);
            }
        }
    }
    (prefetch, bound)
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
pub(super) const COPY24: &str = "memcpy 24 B (context)";
pub(super) const COPY48: &str = "memcpy 48 B (context)";
pub(super) const STATIC: &str = "static transform";
pub(super) const SKIN1: &str = "skinning, 1 influence";
pub(super) const SKIN4: &str = "skinning, 4 influences";
pub(super) const ORACLE: &str = "reference oracle, 4 influences";
pub(super) const MOVES4: &str = "skinning, 4 influences, loads and stores alone (context)";

const CHAIN_JOINTS: usize = 64;

/// Vertices of the steadiness job: 4-influence skinning small enough to stay in the L1/L2 caches,
/// so that its time depends on the core alone, not on memory.
pub(super) const STEADY_VERTICES: usize = 4096;

/// The CPU tiers at 10k, 200k and 2M vertices: static transform, 1- and 4-influence skinning
/// (fast path, 1 and 2 threads) and the reference oracle, each fast row with its memory and
/// arithmetic bounds, and memcpy rows for context. `Mode::Off` returns no rows.
pub fn cpu_tiers(mode: Mode) -> CpuBench {
    let start = Instant::now();
    let plan = Plan::of(mode);
    let families = Families::best();
    let isa = families.skin;
    let simd: Vec<Isa> = Isa::supported()
        .into_iter()
        .filter(|i| fast::peak_flops(*i).is_some())
        .collect();
    let mut bench = CpuBench {
        mode,
        cpu: cpu_model(),
        isa: isa.name().to_string(),
        bound_isa: isa.bound_family().name().to_string(),
        // Only where a SIMD form runs: elsewhere no trial chose the kernel.
        trial: (isa != Isa::Portable)
            .then(fast::kernel_trial)
            .flatten()
            .map(KernelTrial::of),
        static_isa: families.transform.name().to_string(),
        static_trial: (families.transform != Isa::Portable)
            .then(fast::static_trial)
            .flatten()
            .map(KernelTrial::of),
        prefetch_trial: (mode != Mode::Off)
            .then(|| fast::prefetch_trial(isa, Reach::Memory))
            .flatten()
            .map(|t| KernelTrial::named(t, prefetch_name)),
        prefetch_trials: Vec::new(),
        bound_trials: Vec::new(),
        available_threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
        thread_counts: vec![1, 2],
        rows: Vec::new(),
        steadiness: Vec::new(),
        clock_ghz: None,
        fma_peaks: Vec::new(),
        cold_from: None,
        evict_bytes: None,
        wall_ms: 0.0,
    };
    if mode == Mode::Off {
        return bench;
    }
    (bench.prefetch_trials, bench.bound_trials) = read_trials(&plan, families);
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
    let mut peak_fastest = vec![f64::INFINITY; simd.len()];
    let mut timed: Vec<(usize, Job, Stats)> = Vec::new();
    let evict = Evict::new();
    bench.cold_from = TIERS.last().copied();
    bench.evict_bytes = Some(evict.bytes());
    for (t, &n) in TIERS.iter().enumerate() {
        let largest = t == TIERS.len() - 1;
        // 4 influences: a tent of radius 2 over the nearest joints, so nearly every vertex has 4 nonzero weights.
        let mesh = strip(CHAIN_JOINTS, 1.0, n, 0.5, 4);
        let weights: &[[u32; 4]] = bytemuck::cast_slice(&mesh.weights);
        let wide: [&[[u32; 4]]; 2] = [&mesh.joints, weights];
        let mut out = vec![[0f32; 3]; n];
        let jobs = tier_jobs(&plan, n, largest, families, &simd);
        let src24 = vec![1u8; 24 * n];
        let mut dst24 = vec![0u8; 24 * n];
        let src48 = vec![1u8; 48 * n];
        let mut dst48 = vec![0u8; 48 * n];
        // The largest tier's rows and bounds start cold: `Start::Cold` says why.
        let starts: Vec<Start> = jobs
            .iter()
            .map(|job| match job {
                Job::Steady | Job::Clock | Job::Peak(_) => Start::Warm,
                _ if largest => Start::Cold(&evict),
                _ => Start::Warm,
            })
            .collect();
        let stats = measure_interleaved(&plan, &starts, |job| match jobs[job] {
            Job::Copy(bytes) => {
                let (src, dst) = if bytes == 24 {
                    (&src24, &mut dst24)
                } else {
                    (&src48, &mut dst48)
                };
                dst.copy_from_slice(black_box(src));
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
            Job::Moves => {
                fast::skin4_moves(
                    isa,
                    &aligned,
                    black_box(&mesh.positions),
                    &mesh.joints,
                    &mesh.weights,
                    &mut out,
                );
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
            Job::Stream(b) => {
                let w = &wide[..b.wide];
                fast::stream_with(b.isa, black_box(&mesh.positions), w, &mut out, b.threads);
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
            Job::Peak(k) => fast::fma_peak(k),
        });
        for (&job, s) in jobs.iter().zip(stats) {
            match job {
                Job::Steady => steady.push((n, s)),
                Job::Clock => chain_fastest = chain_fastest.min(s.min),
                Job::Peak(k) => {
                    let i = simd.iter().position(|i| *i == k).unwrap_or(0);
                    peak_fastest[i] = peak_fastest[i].min(s.min);
                }
                _ => timed.push((n, job, s)),
            }
        }
    }
    bench.clock_ghz = clock::ghz(chain_fastest);
    bench.fma_peaks = simd
        .iter()
        .zip(&peak_fastest)
        .filter_map(|(&k, &secs)| {
            let gflops = fast::peak_flops(k)? / secs / 1e9;
            gflops.is_finite().then(|| FmaPeak {
                isa: k.name().to_string(),
                gflops,
                flops_per_cycle: bench.clock_ghz.map(|c| gflops / c),
            })
        })
        .collect();
    bench.rows = rows(&timed, &bench.fma_peaks, families);
    bench.steadiness = steadiness(&steady);
    bench.wall_ms = start.elapsed().as_secs_f64() * 1e3;
    bench
}

/// The jobs of one tier, all sampled in turn: its rows, the memory bound of each fast row
/// (the streaming loop with its traffic, kernel family and threads), and the jobs behind the
/// lines under the table (steadiness, clock, FMA peaks).
fn tier_jobs(plan: &Plan, n: usize, largest: bool, families: Families, simd: &[Isa]) -> Vec<Job> {
    let mut rows = vec![Job::Copy(24), Job::Copy(48), Job::Static, Job::Skin1];
    rows.push(Job::Skin4(1));
    // An AVX2 kernel's data movement alone shows how much of the row its loads take.
    if matches!(families.skin, Isa::Avx2Fma | Isa::Avx2Rows) {
        rows.push(Job::Moves);
    }
    // fast::skin runs small meshes on one thread whatever it is asked: no 2-thread row there.
    if n >= 2 * fast::MIN_VERTICES_PER_THREAD {
        rows.push(Job::Skin4(2));
    }
    if plan.per_kernel && n == TIERS[1] {
        rows.extend(Isa::supported().into_iter().map(Job::Kernel));
    }
    if !largest || plan.oracle_at_largest {
        rows.push(Job::Oracle);
    }
    // Each bound is sampled right after the first row it bounds, so that the two samples of a
    // round are taken close together.
    let mut jobs: Vec<Job> = Vec::new();
    for row in rows {
        jobs.push(row);
        if let Some(b) = row.bound(families) {
            if !jobs.contains(&Job::Stream(b)) {
                jobs.push(Job::Stream(b));
            }
        }
    }
    jobs.push(Job::Steady);
    if clock::MEASURED {
        jobs.push(Job::Clock);
    }
    jobs.extend(simd.iter().map(|&k| Job::Peak(k)));
    jobs
}

/// The table's rows from the timed jobs (vertex count, job, statistics): each fast row with its
/// bounds, the memory bounds as rows of their own.
fn rows(timed: &[(usize, Job, Stats)], peaks: &[FmaPeak], families: Families) -> Vec<CpuRow> {
    let stats = |n: usize, want: Job| {
        timed
            .iter()
            .find(|(m, job, _)| *m == n && *job == want)
            .map(|(_, _, s)| s)
    };
    let median = |n: usize, want: Job| stats(n, want).map(|s| s.median * 1e3);
    timed
        .iter()
        .map(|(n, job, s)| {
            let (n, job) = (*n, *job);
            let median_ms = s.median * 1e3;
            let bound = job.bound(families);
            let traffic = bound
                .or(match job {
                    Job::Stream(b) => Some(b),
                    _ => None,
                })
                .map(|b| fast::traffic(b.wide));
            let flops = job
                .kernel(families)
                .and_then(|(k, i)| fast::flops_per_vertex(k, i));
            let memory = bound.and_then(|b| stats(n, Job::Stream(b)));
            let memory_bound_ms = memory.map(|m| m.median * 1e3);
            let arithmetic_bound_ms = job.kernel(families).and_then(|(k, i)| {
                let peak = peaks.iter().find(|p| p.isa == i.bound_family().name())?;
                let flops = fast::flops_per_vertex(k, i)?;
                Some(arithmetic_ms(flops, n, job.threads(), peak.gflops))
            });
            let memory = memory.map(|m| m.per_call.as_slice());
            let arithmetic = arithmetic_bound_ms.map(|a| a * 1e-3);
            let bind = bound.and(binding(&s.per_call, memory, arithmetic));
            CpuRow {
                tier: job.tier(),
                vertices: n,
                threads: job.threads(),
                samples: s.samples,
                median_ms,
                min_ms: s.min * 1e3,
                max_ms: s.max * 1e3,
                ns_per_vertex: s.median * 1e9 / n as f64,
                vs_static: median(n, Job::Static).map(|st| median_ms / st),
                read_bytes: traffic.map(|t| t.0),
                written_bytes: traffic.map(|t| t.1),
                flops_per_vertex: flops,
                memory_bound_ms,
                arithmetic_bound_ms,
                binds: bind.map(|b| b.0),
                vs_bound: bind.map(|b| b.1),
            }
        })
        .collect()
}

/// Each tier's steadiness from the in-cache job's statistics per tier (vertex count, per call).
fn steadiness(per_tier: &[(usize, Stats)]) -> Vec<Steadiness> {
    let fastest = per_tier
        .iter()
        .map(|(_, s)| s.min)
        .fold(f64::INFINITY, f64::min);
    per_tier
        .iter()
        .map(|(vertices, s)| Steadiness {
            vertices: *vertices,
            median_ns_per_vertex: s.median * 1e9 / STEADY_VERTICES as f64,
            vs_fastest: s.median / fastest,
        })
        .collect()
}

/// The kernel families the fast rows run: the skinning trial's, and the static transform's own.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Families {
    skin: Isa,
    transform: Isa,
}

impl Families {
    fn best() -> Families {
        Families {
            skin: Isa::best(),
            transform: Isa::best_static(),
        }
    }
}

/// The streaming loop that bounds a row: its 16-byte input streams beside the positions (0: the
/// static transform's traffic, 1: joints too, 2: joints and weights), kernel family and threads.
#[derive(Clone, Copy, Debug, PartialEq)]
struct StreamJob {
    wide: usize,
    isa: Isa,
    threads: usize,
}

/// One row of a CPU tier, as timed.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Job {
    /// A memcpy of this many bytes per vertex: context only.
    Copy(usize),
    Static,
    Skin1,
    /// 4-influence skinning with the best kernel, on this many threads.
    Skin4(usize),
    /// 4-influence skinning with this kernel, one thread.
    Kernel(Isa),
    /// The best AVX2 form's 4-influence loads and stores alone, one thread: context only.
    Moves,
    /// The memory bound of the rows with this traffic, kernel family and threads.
    Stream(StreamJob),
    Oracle,
    /// The in-cache job behind [`Steadiness`]: not a row of the table.
    Steady,
    /// The add chain behind [`CpuBench::clock_ghz`]: not a row of the table.
    Clock,
    /// The FMA loop behind [`CpuBench::fma_peaks`]: not a row of the table.
    Peak(Isa),
}

impl Job {
    /// The job's row in the table.
    fn tier(self) -> String {
        match self {
            Job::Copy(24) => COPY24.into(),
            Job::Copy(_) => COPY48.into(),
            Job::Static => STATIC.into(),
            Job::Skin1 => SKIN1.into(),
            Job::Skin4(_) => SKIN4.into(),
            Job::Kernel(k) => format!("{SKIN4}, {} kernel", k.name()),
            Job::Moves => MOVES4.into(),
            Job::Stream(b) => {
                let (read, written) = fast::traffic(b.wide);
                format!(
                    "{}, {} kernel",
                    memory_bound_tier(read, written),
                    b.isa.name()
                )
            }
            Job::Oracle => ORACLE.into(),
            Job::Steady => "steadiness".into(),
            Job::Clock => "clock".into(),
            Job::Peak(k) => format!("FMA peak, {}", k.name()),
        }
    }

    fn threads(self) -> usize {
        match self {
            Job::Skin4(t) => t,
            Job::Stream(b) => b.threads,
            _ => 1,
        }
    }

    /// The streaming loop that bounds the row, for the fast rows (the family of the row's kernel;
    /// the loop is its [`Isa::bound_family`]'s).
    fn bound(self, families: Families) -> Option<StreamJob> {
        let isa = families.skin;
        let (wide, isa, threads) = match self {
            Job::Static => (0, families.transform, 1),
            Job::Skin1 => (1, isa, 1),
            Job::Skin4(t) => (2, isa, t),
            Job::Kernel(k) => (2, k, 1),
            _ => return None,
        };
        let isa = isa.bound_family();
        Some(StreamJob { wide, isa, threads })
    }

    /// The kernel and family whose flops the row runs.
    fn kernel(self, families: Families) -> Option<(Kernel, Isa)> {
        let isa = families.skin;
        match self {
            Job::Static => Some((Kernel::Static, families.transform)),
            Job::Skin1 => Some((Kernel::Skin1, isa)),
            Job::Skin4(_) => Some((Kernel::Skin4, isa)),
            Job::Kernel(k) => Some((Kernel::Skin4, k)),
            _ => None,
        }
    }
}

/// The tier name of a memory bound row with this traffic per vertex.
pub(super) fn memory_bound_tier(read: usize, written: usize) -> String {
    format!("memory bound, {read} B read + {written} B written")
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
            per_call: vec![min, median, median * 2.0],
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
