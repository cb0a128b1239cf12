//! The CPU benchmark suite: copy floors, static transform, fast and reference skinning, palette builds (plain functions, not tests).
//!
//! "Copy floor N B" is a memcpy of N bytes per vertex (N bytes read, N bytes written): 24 B is the
//! floor of the static transform (12 B read, 12 B written per vertex), 48 B the floor of skinning
//! (44 B read: position, 4 joints, 4 weights; 12 B written). Every row is warmed up first, then timed
//! in samples of enough calls to last a minimum time; median, min and max are per call.

use std::fmt::Write as _;
use std::hint::black_box;
use std::time::{Duration, Instant};

use glam::{DQuat, DVec3, Mat4, Quat, Vec3};
use serde::{Deserialize, Serialize};

use crate::clock;
use crate::fast::{self, AlignedPalette, Isa, PaletteBuilder};
use crate::reference;
use crate::rig::{strip, Pose, Skeleton};

/// The environment variable that selects the benchmark mode.
pub const ENV: &str = "SKINPROOF_BENCH";

/// How much benchmarking to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    Off,
    /// The default: a couple of seconds of CPU benchmarks, few repetitions.
    Quick,
    /// More repetitions, tighter medians, the reference oracle at every size.
    Full,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::Off => "off",
            Mode::Quick => "quick",
            Mode::Full => "full",
        }
    }

    /// The mode `SKINPROOF_BENCH` asks for.
    pub fn from_env() -> Result<Mode, String> {
        match std::env::var_os(ENV) {
            None => mode_from(None),
            Some(v) => match v.to_str() {
                Some(s) => mode_from(Some(s)),
                None => Err(format!(
                    "{ENV}: value {v:?} is not UTF-8 (expected off, quick or full)"
                )),
            },
        }
    }
}

/// Parses a value of `SKINPROOF_BENCH`: `off`, `quick` (also when unset or empty) or `full`, in any case.
pub fn mode_from(value: Option<&str>) -> Result<Mode, String> {
    let v = value.unwrap_or("").trim();
    match v.to_ascii_lowercase().as_str() {
        "" | "quick" => Ok(Mode::Quick),
        "off" => Ok(Mode::Off),
        "full" => Ok(Mode::Full),
        _ => Err(format!(
            "{ENV}: unknown value `{v}` (expected off, quick or full)"
        )),
    }
}

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
    /// Single-thread over two-thread median of 4-influence skinning at `vertices`, if both were run.
    pub fn two_thread_speedup(&self, vertices: usize) -> Option<f64> {
        self.speedup(SKIN4, vertices)
    }

    /// Single-thread over two-thread median of `tier` at `vertices`, if both were run.
    fn speedup(&self, tier: &str, vertices: usize) -> Option<f64> {
        let median = |threads: usize| {
            self.rows
                .iter()
                .find(|r| r.tier == tier && r.vertices == vertices && r.threads == threads)
                .map(|r| r.median_ms)
        };
        Some(median(1)? / median(2)?)
    }
}

/// One timed palette build.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct PaletteRow {
    /// Which builder: the fast f32 one or the f64 reference (`Skeleton::palette`).
    pub builder: String,
    pub joints: usize,
    pub samples: usize,
    pub median_us: f64,
    pub min_us: f64,
    pub max_us: f64,
    /// 64 per joint.
    pub palette_bytes: usize,
}

/// The vertex counts of the CPU tiers.
pub const TIERS: [usize; 3] = [10_000, 200_000, 2_000_000];
/// The joint counts of the palette build.
pub const PALETTE_JOINTS: [usize; 4] = [16, 64, 256, 1024];

const FLOOR24: &str = "copy floor 24 B";
const FLOOR48: &str = "copy floor 48 B";
const STATIC: &str = "static transform";
const SKIN1: &str = "skinning, 1 influence";
const SKIN4: &str = "skinning, 4 influences";
const ORACLE: &str = "reference oracle, 4 influences";

/// Sampling effort per mode.
struct Plan {
    samples: usize,
    /// Each sample repeats the call until it lasts at least this long.
    min_sample: Duration,
    /// Whether the (slow, allocating) reference oracle runs at the largest tier.
    oracle_at_largest: bool,
    /// Whether each supported SIMD kernel gets its own 4-influence row at 200k.
    per_kernel: bool,
}

impl Plan {
    fn of(mode: Mode) -> Plan {
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

/// Per-call seconds: median, min, max, samples.
#[derive(Clone, Copy, Debug)]
struct Stats {
    median: f64,
    min: f64,
    max: f64,
    samples: usize,
}

/// Warms `f` up, then times `plan.samples` samples of enough calls to last `plan.min_sample` each.
fn measure(plan: &Plan, mut f: impl FnMut()) -> Stats {
    measure_interleaved(plan, 1, |_| f()).remove(0)
}

/// [`measure`] for `jobs` jobs run by `f(job)`, sampled round-robin (sample 1 of every job, then
/// sample 2, ...): a change in the machine's load during the run then reaches every job alike,
/// and the ratios between them (threads, floors) stay meaningful on a shared machine.
fn measure_interleaved(plan: &Plan, jobs: usize, mut f: impl FnMut(usize)) -> Vec<Stats> {
    let calls: Vec<usize> = (0..jobs)
        .map(|job| {
            let t = Instant::now();
            f(job);
            let once = t.elapsed().as_secs_f64().max(1e-9);
            let calls = (plan.min_sample.as_secs_f64() / once)
                .ceil()
                .clamp(1.0, 1e6) as usize;
            // A second warm-up at the sampling rate settles caches, page mappings and clocks.
            for _ in 0..calls {
                f(job);
            }
            calls
        })
        .collect();
    let mut per_call = vec![Vec::with_capacity(plan.samples); jobs];
    for _ in 0..plan.samples.max(1) {
        for (job, &calls) in calls.iter().enumerate() {
            // One untimed call first: each job's data is back in cache, as when it ran alone.
            f(job);
            let t = Instant::now();
            for _ in 0..calls {
                f(job);
            }
            per_call[job].push(t.elapsed().as_secs_f64() / calls as f64);
        }
    }
    per_call.into_iter().map(stats).collect()
}

/// Median, min and max of per-call seconds.
fn stats(mut per_call: Vec<f64>) -> Stats {
    per_call.sort_by(f64::total_cmp);
    let n = per_call.len();
    let median = if n % 2 == 1 {
        per_call[n / 2]
    } else {
        0.5 * (per_call[n / 2 - 1] + per_call[n / 2])
    };
    Stats {
        median,
        min: per_call[0],
        max: per_call[n - 1],
        samples: n,
    }
}

/// The chain the tiers skin: 64 joints, 1 apart, each bent a little about Z and X.
fn bent_chain(joints: usize, segment: f64) -> (Skeleton, Pose) {
    let skeleton = Skeleton::chain(joints, segment);
    let mut pose = skeleton.bind_pose();
    for (j, local) in pose.locals.iter_mut().enumerate() {
        let axis = DVec3::new(0.2, 0.0, 1.0).normalize();
        local.rotation = DQuat::from_axis_angle(axis, (3.0 + (j % 5) as f64).to_radians());
    }
    (skeleton, pose)
}

const CHAIN_JOINTS: usize = 64;

/// Vertices of the steadiness job: 4-influence skinning small enough to stay in the L1/L2 caches,
/// so that its time depends on the core alone, not on memory.
const STEADY_VERTICES: usize = 4096;

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

/// Palette builds for 16, 64, 256 and 1024 joints of a bent chain: the fast f32 builder (into a
/// preallocated aligned palette, from f32 locals) and the f64 reference `Skeleton::palette`.
/// `Mode::Off` returns no rows.
pub fn palette_build(mode: Mode) -> Vec<PaletteRow> {
    if mode == Mode::Off {
        return Vec::new();
    }
    let plan = Plan::of(mode);
    let mut rows = Vec::new();
    for &joints in &PALETTE_JOINTS {
        let (skeleton, pose) = bent_chain(joints, 0.1);
        let locals = fast::locals_f32(&pose);
        let mut builder = PaletteBuilder::new(&skeleton);
        let mut out = builder.palette();
        let fast = measure(&plan, || {
            builder.build(black_box(&locals), &mut out);
            black_box(&mut out);
        });
        let oracle = measure(&plan, || {
            black_box(skeleton.palette(black_box(&pose)));
        });
        for (name, s) in [("fast f32", fast), ("reference f64", oracle)] {
            rows.push(PaletteRow {
                builder: name.to_string(),
                joints,
                samples: s.samples,
                median_us: s.median * 1e6,
                min_us: s.min * 1e6,
                max_us: s.max * 1e6,
                palette_bytes: joints * std::mem::size_of::<Mat4>(),
            });
        }
    }
    rows
}

/// The CPU's model name from /proc/cpuinfo, or "unknown CPU".
pub fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "unknown CPU".to_string())
}

/// Three significant digits, without exponent notation.
fn sig(v: f64) -> String {
    let a = v.abs();
    let decimals = if a >= 100.0 {
        1
    } else if a >= 1.0 {
        2
    } else if a >= 0.1 {
        3
    } else if a >= 0.01 {
        4
    } else {
        5
    };
    format!("{v:.decimals$}")
}

fn ratio(r: Option<f64>) -> String {
    r.map_or("-".to_string(), |r| format!("{r:.2}x"))
}

fn count(n: usize) -> String {
    match n {
        n if n >= 1_000_000 && n % 1_000_000 == 0 => format!("{}M", n / 1_000_000),
        n if n >= 1_000 && n % 1_000 == 0 => format!("{}k", n / 1_000),
        n => n.to_string(),
    }
}

/// Cycles per vertex of the one-thread 4-influence and static rows at the run's clock, if measured.
fn cycles_line(cpu: &CpuBench) -> Option<String> {
    let ghz = cpu.clock_ghz?;
    let tier = |name: &str| {
        let per: Vec<String> = cpu
            .rows
            .iter()
            .filter(|r| r.tier == name && r.threads == 1)
            .map(|r| {
                let min_ns = r.min_ms * 1e6 / r.vertices as f64;
                format!(
                    "{} {:.1} (min {:.1})",
                    count(r.vertices),
                    r.ns_per_vertex * ghz,
                    min_ns * ghz
                )
            })
            .collect();
        (!per.is_empty()).then(|| format!("{name}, one thread: {}", per.join(", ")))
    };
    let tiers: Vec<String> = [SKIN4, STATIC].into_iter().filter_map(tier).collect();
    (!tiers.is_empty()).then(|| {
        format!(
            "Cycles per vertex (median, min) at the run's core clock, {ghz:.2} GHz (the fastest timing \
             of a chain of dependent adds, one per cycle, sampled in turn with every tier's rows), \
             which compare across machines where nanoseconds do not: {}.",
            tiers.join("; ")
        )
    })
}

/// The two benchmark tables (CPU tiers, palette build) in Markdown, with the thread counts and the CPU.
pub fn markdown(cpu: &CpuBench, palette: &[PaletteRow]) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "### CPU ({} mode)\n", cpu.mode.name());
    let threads: Vec<String> = cpu.thread_counts.iter().map(|t| t.to_string()).collect();
    let _ = writeln!(
        md,
        "CPU: {}; {} hardware threads available; rows run on {} thread(s) as the threads column says \
         (2 threads only from {} vertices: below that the fast path keeps one thread); fast kernel: {}. \
         Copy floor N B = memcpy of N bytes per vertex; vs floor: static against 24 B, skinning against 48 B, each on as many threads as the row. \
         The rows of a tier are sampled in turn (one sample of each row, then the next), so the ratios compare like with like.\n",
        cpu.cpu,
        cpu.available_threads,
        threads.join(" or "),
        2 * fast::MIN_VERTICES_PER_THREAD,
        cpu.isa
    );
    let _ = writeln!(
        md,
        "| tier | vertices | threads | median (ms) | min-max | per vertex (ns) | vs static | vs floor |\n| --- | --- | --- | --- | --- | --- | --- | --- |"
    );
    for r in &cpu.rows {
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {}-{} | {:.2} | {} | {} |",
            r.tier,
            count(r.vertices),
            r.threads,
            sig(r.median_ms),
            sig(r.min_ms),
            sig(r.max_ms),
            r.ns_per_vertex,
            ratio(r.vs_static),
            ratio(r.vs_floor)
        );
    }
    // Two threads against one: for skinning, and for the 48 B copy in the same run, which shows
    // what this machine's memory allows at all.
    let lines = [
        ("\n2 threads vs 1, 4 influences", SKIN4),
        (
            "2 threads vs 1, the 48 B copy in the same run (what this machine's memory allows)",
            FLOOR48,
        ),
    ];
    for (label, tier) in lines {
        let speedups: Vec<String> = TIERS
            .iter()
            .filter_map(|&n| {
                cpu.speedup(tier, n)
                    .map(|s| format!("{} {s:.2}x", count(n)))
            })
            .collect();
        if !speedups.is_empty() {
            let _ = writeln!(md, "{label}: {}.", speedups.join(", "));
        }
    }
    if !cpu.steadiness.is_empty() {
        let tiers: Vec<String> = cpu
            .steadiness
            .iter()
            .map(|s| {
                format!(
                    "{} {:.2}x ({:.2} ns)",
                    count(s.vertices),
                    s.vs_fastest,
                    s.median_ns_per_vertex
                )
            })
            .collect();
        let _ = writeln!(
            md,
            "Steadiness: a fixed in-cache job (4-influence skinning of {STEADY_VERTICES} vertices, one \
             thread) is sampled in turn with each tier's rows; its median per tier against its fastest \
             sample of the run: {}. A quiet machine stays near 1.0x; above that, other load on the host \
             (a shared or virtual machine) took time from this run, and the tier's medians include it.",
            tiers.join(", ")
        );
    }
    if let Some(line) = cycles_line(cpu) {
        let _ = writeln!(md, "{line}");
    }
    let _ = writeln!(md, "\nCPU tiers wall time: {:.0} ms.\n", cpu.wall_ms);
    let _ = writeln!(md, "### Palette build ({} mode)\n", cpu.mode.name());
    let _ = writeln!(
        md,
        "Globals from the local pose, then skin = global * inverseBind; one thread. fast f32: into a preallocated 64-byte aligned palette; reference f64: `Skeleton::palette`.\n"
    );
    let _ = writeln!(
        md,
        "| builder | joints | median (us) | min-max (us) | palette bytes |\n| --- | --- | --- | --- | --- |"
    );
    for r in palette {
        let _ = writeln!(
            md,
            "| {} | {} | {} | {}-{} | {} |",
            r.builder,
            r.joints,
            sig(r.median_us),
            sig(r.min_us),
            sig(r.max_us),
            r.palette_bytes
        );
    }
    md
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mode_parses_the_allowed_values_and_defaults_to_quick() {
        assert_eq!(mode_from(None), Ok(Mode::Quick));
        assert_eq!(mode_from(Some("")), Ok(Mode::Quick));
        assert_eq!(mode_from(Some("quick")), Ok(Mode::Quick));
        assert_eq!(mode_from(Some("off")), Ok(Mode::Off));
        assert_eq!(mode_from(Some("FULL")), Ok(Mode::Full));
        let e = mode_from(Some("fast")).unwrap_err();
        assert!(e.contains(ENV) && e.contains("fast"), "{e}");
        assert!(
            e.contains("off") && e.contains("quick") && e.contains("full"),
            "{e}"
        );
    }

    #[test]
    fn interleaved_samples_take_turns_and_time_each_job() {
        let plan = Plan {
            samples: 3,
            min_sample: Duration::ZERO,
            oracle_at_largest: false,
            per_kernel: false,
        };
        let mut order = Vec::new();
        let stats = measure_interleaved(&plan, 2, |job| {
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
    fn off_runs_nothing() {
        assert!(cpu_tiers(Mode::Off).rows.is_empty());
        assert!(palette_build(Mode::Off).is_empty());
    }

    fn row(tier: &str, vertices: usize, threads: usize, median_ms: f64) -> CpuRow {
        CpuRow {
            tier: tier.to_string(),
            vertices,
            threads,
            samples: 5,
            median_ms,
            min_ms: median_ms * 0.9,
            max_ms: median_ms * 1.2,
            ns_per_vertex: median_ms * 1e6 / vertices as f64,
            vs_static: Some(2.0),
            vs_floor: None,
        }
    }

    #[test]
    fn markdown_renders_both_tables_with_cpu_and_threads() {
        let cpu = CpuBench {
            mode: Mode::Quick,
            cpu: "Test CPU 9000".into(),
            isa: "portable".into(),
            available_threads: 2,
            thread_counts: vec![1, 2],
            rows: vec![row(SKIN4, 2_000_000, 1, 4.0), row(SKIN4, 2_000_000, 2, 2.5)],
            steadiness: vec![Steadiness {
                vertices: 2_000_000,
                median_ns_per_vertex: 3.21,
                vs_fastest: 1.36,
            }],
            clock_ghz: Some(3.0),
            wall_ms: 1234.0,
        };
        let pal = vec![PaletteRow {
            builder: "fast f32".into(),
            joints: 256,
            samples: 5,
            median_us: 2.5,
            min_us: 2.4,
            max_us: 3.1,
            palette_bytes: 16384,
        }];
        let md = markdown(&cpu, &pal);
        assert!(md.contains("| tier | vertices | threads | median (ms) | min-max | per vertex (ns) | vs static | vs floor |"));
        assert!(
            md.contains(
                "| skinning, 4 influences | 2M | 2 | 2.50 | 2.25-3.00 | 1.25 | 2.00x | - |"
            ),
            "{md}"
        );
        assert!(md.contains("Test CPU 9000") && md.contains("1 or 2 thread"));
        assert!(md.contains("2M 1.60x"), "{md}");
        assert!(
            md.contains("Steadiness") && md.contains("2M 1.36x (3.21 ns)"),
            "{md}"
        );
        assert!(
            md.contains("| fast f32 | 256 | 2.50 | 2.40-3.10 | 16384 |"),
            "{md}"
        );
        // 2.0 ns and 1.8 ns per vertex at 3 GHz; the line ends there: the 2-thread row is not in it.
        assert!(
            md.contains("3.00 GHz")
                && md.contains("skinning, 4 influences, one thread: 2M 6.0 (min 5.4)."),
            "{md}"
        );
        let no_clock = CpuBench {
            clock_ghz: None,
            ..cpu.clone()
        };
        assert!(!markdown(&no_clock, &pal).contains("Cycles per vertex"));
        let json = serde_json::to_string(&cpu).unwrap();
        let back: CpuBench = serde_json::from_str(&json).unwrap();
        assert_eq!(back, cpu);
        assert!(json.contains("\"mode\":\"quick\""));
    }

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

    /// Prints the benchmark tables; run with `cargo test --release --lib -- --ignored --nocapture bench`.
    /// Never a pass/fail test on timings.
    #[test]
    #[ignore]
    fn bench_print_markdown() {
        let mode = Mode::from_env().unwrap();
        let t = Instant::now();
        let cpu = cpu_tiers(mode);
        let pal = palette_build(mode);
        println!("{}", markdown(&cpu, &pal));
        println!("total {:.0} ms", t.elapsed().as_secs_f64() * 1e3);
    }
}
