//! The benchmark tables in Markdown for the report: CPU tiers with their bounds, speedup,
//! steadiness and cycles lines, the bounds of several machines, and the palette builds.

use std::fmt::Write as _;

use super::cpu::{
    memory_bound_tier, CpuBench, CpuRow, KernelTrial, MOVES4, SKIN4, STATIC, STEADY_VERTICES, TIERS,
};
use super::fast;
use super::palette_build::PaletteRow;

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

/// Cycles per vertex of the one-thread 4-influence rows (the kernel, and its loads and stores
/// alone) and the static rows at the run's clock, if measured.
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
    let tiers: Vec<String> = [SKIN4, MOVES4, STATIC]
        .into_iter()
        .filter_map(tier)
        .collect();
    (!tiers.is_empty()).then(|| {
        format!(
            "Cycles per vertex (median, min) at the run's core clock, {ghz:.2} GHz (the fastest timing \
             of a chain of dependent adds, one per cycle, sampled in turn with every tier's rows), \
             which compare across machines where nanoseconds do not: {}.",
            tiers.join("; ")
        )
    })
}

/// How the fast kernels were chosen, where trials chose them: " (the fastest ...: a 5.10, b
/// 6.30); static transform: c (...)".
fn trial_note(cpu: &CpuBench) -> String {
    let times = |t: &KernelTrial| {
        (t.timed.iter())
            .map(|(isa, ns)| format!("{isa} {ns:.2}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut note = match &cpu.trial {
        Some(t) => format!(
            " (the fastest of the SIMD forms in a timed trial, 4-influence skinning of {} in-cache \
             vertices on one thread, fastest of its rounds in ns a vertex: {}; its family also runs \
             the 1-influence rows)",
            t.vertices,
            times(t)
        ),
        None => String::new(),
    };
    if !cpu.prefetch_trials.is_empty() {
        let forms: Vec<String> = (cpu.prefetch_trials.iter())
            .map(|(form, t)| {
                format!(
                    "{form} at {} vertices {} ({})",
                    t.vertices,
                    t.chosen,
                    times(t)
                )
            })
            .collect();
        note.push_str(&format!(
            "; from 65536 vertices (the 200k and 2M tiers) each form's inputs are prefetched or not \
             as a trial of its own at the tier's size found faster (one thread, ns a vertex): {}",
            forms.join("; ")
        ));
    } else if let Some(t) = &cpu.prefetch_trial {
        // A report made before the trials per size.
        note.push_str(&format!(
            "; beyond the caches its inputs are {} (the faster in a trial of its own, {} vertices \
             on one thread: {})",
            t.chosen,
            t.vertices,
            times(t)
        ));
    }
    if !cpu.static_isa.is_empty() {
        note.push_str(&format!("; static transform: {}", cpu.static_isa));
        if let Some(t) = &cpu.static_trial {
            note.push_str(&format!(
                " (the fastest in a trial of its own, {} vertices on one thread: {})",
                t.vertices,
                times(t)
            ));
        }
    }
    note
}

/// The family of the fast rows' bounding loops (`isa` itself in reports that predate the field).
fn bound_isa(cpu: &CpuBench) -> &str {
    if cpu.bound_isa.is_empty() {
        &cpu.isa
    } else {
        &cpu.bound_isa
    }
}

/// A bound in ms, or "-".
fn ms(v: Option<f64>) -> String {
    v.map_or("-".to_string(), sig)
}

/// The bound columns of a row: memory bound, arithmetic bound, vs bound, which binds.
fn bound_cells(r: &CpuRow) -> String {
    format!(
        "{} | {} | {} | {}",
        ms(r.memory_bound_ms),
        ms(r.arithmetic_bound_ms),
        ratio(r.vs_bound),
        r.binds.map_or("-", |b| b.name())
    )
}

/// How the bounds are made, with this run's FMA peaks and flop counts.
fn bounds_line(cpu: &CpuBench) -> String {
    let peaks: Vec<String> = cpu
        .fma_peaks
        .iter()
        .map(|p| {
            let per_cycle = p
                .flops_per_cycle
                .map_or(String::new(), |c| format!(", {c:.1} per cycle"));
            format!("{} {:.1} GFLOP/s{per_cycle}", p.isa, p.gflops)
        })
        .collect();
    let mut flops: Vec<String> = Vec::new();
    for r in &cpu.rows {
        if let Some(f) = r.flops_per_vertex {
            let s = format!("{} {f}", r.tier);
            if !flops.contains(&s) {
                flops.push(s);
            }
        }
    }
    format!(
        "Bounds: memory = a streaming loop moving exactly the row's bytes per vertex (its own input and \
         output slices, so the same alignment; the same kernel family and threads; streaming stores above \
         8 MB of output{}), sampled in \
         turn with the row; arithmetic = the row's flops per vertex, counted from its kernel ({}), at one \
         core's FMA peak per thread (independent FMAs, fastest sample: {}). vs bound = the median over \
         the sampling rounds of the row's time over the larger bound's in the same round (binds names it: \
         the larger median); 1.00x would be the bound itself.\n",
        ahead_note(cpu),
        if flops.is_empty() { "none counted".to_string() } else { flops.join(", ") },
        if peaks.is_empty() { "not measured".to_string() } else { peaks.join("; ") },
    )
}

/// How the bounds' loops read their inputs, where trials decided it: "; ...: avx512f loop, 44 B
/// read + 12 B written, at 200000 vertices prefetched (T0) (a 1.00, b 2.00); ...".
fn ahead_note(cpu: &CpuBench) -> String {
    if cpu.bound_trials.is_empty() {
        return String::new();
    }
    let loops: Vec<String> = (cpu.bound_trials.iter())
        .map(|(family, t)| {
            let times: Vec<String> = (t.timed.iter())
                .map(|(name, ns)| format!("{name} {ns:.2}"))
                .collect();
            let chosen = &t.chosen;
            format!(
                "{family}, at {} vertices {chosen} ({})",
                t.vertices,
                times.join(", ")
            )
        })
        .collect();
    format!(
        "; from 65536 vertices (the 200k and 2M tiers) its inputs read the way a trial of its own \
         found fastest for the row's traffic at the tier's size (one thread, fastest of its rounds \
         in ns a vertex: {}), and the static transform reads its positions as its bound's loop does",
        loops.join("; ")
    )
}

/// The rows of `cpu` that have bounds, one table (for one machine among several).
pub fn bounds_markdown(cpu: &CpuBench) -> String {
    let mut md = String::new();
    let clock = cpu
        .clock_ghz
        .map_or(String::new(), |c| format!(", {c:.2} GHz"));
    let _ = writeln!(
        md,
        "### {} ({} kernel{clock}, {} mode)\n",
        cpu.cpu,
        cpu.isa,
        cpu.mode.name()
    );
    if let Some(line) = cold_line(cpu) {
        let _ = writeln!(md, "{line}");
    }
    let _ = writeln!(md, "{}", bounds_line(cpu));
    let _ = writeln!(
        md,
        "| tier | vertices | threads | median (ms) | memory bound (ms) | arithmetic bound (ms) | vs bound | binds |\n| --- | --- | --- | --- | --- | --- | --- | --- |"
    );
    for r in cpu.rows.iter().filter(|r| r.binds.is_some()) {
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} |",
            r.tier,
            count(r.vertices),
            r.threads,
            sig(r.median_ms),
            bound_cells(r)
        );
    }
    md
}

/// How the tiers from [`CpuBench::cold_from`] were timed, where a tier was.
fn cold_line(cpu: &CpuBench) -> Option<String> {
    let from = cpu.cold_from?;
    let mb = cpu.evict_bytes.map_or(String::new(), |b| {
        format!(" of {} MB (twice the last-level cache)", b >> 20)
    });
    Some(format!(
        "From {} vertices, rows and bounds are timed from cold caches: every timed call follows a read{mb}, \
         so each starts from memory whatever ran before it (timed warm, a job right after another on the \
         same data found part of it still in the L3, and its ratio to the other depended on which came first).\n",
        count(from)
    ))
}

/// The two benchmark tables (CPU tiers, palette build) in Markdown, with the thread counts and the CPU.
pub fn markdown(cpu: &CpuBench, palette: &[PaletteRow]) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "### CPU ({} mode)\n", cpu.mode.name());
    let threads: Vec<String> = cpu.thread_counts.iter().map(|t| t.to_string()).collect();
    let _ = writeln!(
        md,
        "CPU: {}; {} hardware threads available; rows run on {} thread(s) as the threads column says \
         (2 threads only from {} vertices: below that the fast path keeps one thread); fast kernel: {}{}. \
         The rows of a tier are sampled in turn (one sample of each row, then the next), so the ratios compare like with like. \
         The memcpy rows (N bytes read and N written per vertex) are context only, no row's bound. \
         So is \"{MOVES4}\" (AVX2 only): the fast kernel's 4-influence loop with every index check, load and store \
         it makes (per vertex 4 joint indices, 4 weight broadcasts, the palette: 8 registers of 256 bits by columns, \
         12 of 128 bits by rows; the position) \
         and xor in place of its arithmetic, which shows how much of the row's time moving its data \
         through the core takes, whatever the bounds allow.\n",
        cpu.cpu,
        cpu.available_threads,
        threads.join(" or "),
        2 * fast::MIN_VERTICES_PER_THREAD,
        cpu.isa,
        trial_note(cpu)
    );
    if let Some(line) = cold_line(cpu) {
        let _ = writeln!(md, "{line}");
    }
    let _ = writeln!(md, "{}", bounds_line(cpu));
    let _ = writeln!(
        md,
        "| tier | vertices | threads | median (ms) | min-max | per vertex (ns) | vs static | memory bound (ms) | arithmetic bound (ms) | vs bound | binds |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
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
            bound_cells(r)
        );
    }
    // Two threads against one: for skinning, and for its memory bound in the same run, which
    // shows what this machine's memory allows at all.
    let bound4 = format!(
        "{}, {} kernel",
        {
            let (r, w) = fast::traffic(2);
            memory_bound_tier(r, w)
        },
        bound_isa(cpu)
    );
    let lines = [
        (
            "\n2 threads vs 1, 4 influences".to_string(),
            SKIN4.to_string(),
        ),
        (
            "2 threads vs 1, its memory bound in the same run (what this machine's memory allows)"
                .to_string(),
            bound4,
        ),
    ];
    for (label, tier) in lines {
        let speedups: Vec<String> = TIERS
            .iter()
            .filter_map(|&n| {
                cpu.speedup(&tier, n)
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
    use crate::bench::{Binding, CpuRow, FmaPeak, KernelTrial, Mode, Steadiness};

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
            read_bytes: Some(44),
            written_bytes: Some(12),
            flops_per_vertex: Some(105),
            memory_bound_ms: Some(median_ms / 1.25),
            arithmetic_bound_ms: Some(median_ms / 4.0),
            binds: Some(Binding::Memory),
            vs_bound: Some(1.25),
        }
    }

    #[test]
    fn markdown_renders_both_tables_with_cpu_and_threads() {
        let cpu = CpuBench {
            mode: Mode::Quick,
            cpu: "Test CPU 9000".into(),
            isa: "portable".into(),
            bound_isa: "portable".into(),
            trial: None,
            static_isa: String::new(),
            static_trial: None,
            prefetch_trial: None,
            prefetch_trials: Vec::new(),
            bound_trials: Vec::new(),
            available_threads: 2,
            thread_counts: vec![1, 2],
            rows: vec![row(SKIN4, 2_000_000, 1, 4.0), row(SKIN4, 2_000_000, 2, 2.5)],
            steadiness: vec![Steadiness {
                vertices: 2_000_000,
                median_ns_per_vertex: 3.21,
                vs_fastest: 1.36,
            }],
            clock_ghz: Some(3.0),
            fma_peaks: vec![FmaPeak {
                isa: "avx2+fma".into(),
                gflops: 96.0,
                flops_per_cycle: Some(32.0),
            }],
            cold_from: Some(2_000_000),
            evict_bytes: Some(64 << 20),
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
        assert!(md.contains("| tier | vertices | threads | median (ms) | min-max | per vertex (ns) | vs static | memory bound (ms) | arithmetic bound (ms) | vs bound | binds |"));
        assert!(
            md.contains(
                "| skinning, 4 influences | 2M | 2 | 2.50 | 2.25-3.00 | 1.25 | 2.00x | 2.00 | 0.625 | 1.25x | memory |"
            ),
            "{md}"
        );
        assert!(
            md.contains("avx2+fma 96.0 GFLOP/s, 32.0 per cycle")
                && md.contains("skinning, 4 influences 105"),
            "{md}"
        );
        let one = bounds_markdown(&cpu);
        assert!(
            one.contains("### Test CPU 9000 (portable kernel, 3.00 GHz, quick mode)")
                && one.contains(
                    "| skinning, 4 influences | 2M | 1 | 4.00 | 3.20 | 1.00 | 1.25x | memory |"
                ),
            "{one}"
        );
        assert!(md.contains("Test CPU 9000") && md.contains("1 or 2 thread"));
        assert!(md.contains("2M 1.60x"), "{md}");
        assert!(
            md.contains("From 2M vertices, rows and bounds are timed from cold caches: every timed call follows a read of 64 MB"),
            "{md}"
        );
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
        // A kernel chosen by a trial says so, with each form's time; its rows' memory bound is
        // the bound family's loop, found by that name.
        let bound = format!("{}, avx2+fma kernel", memory_bound_tier(44, 12));
        let mut rows = cpu.rows.clone();
        rows.extend([
            row(&bound, 2_000_000, 1, 2.0),
            row(&bound, 2_000_000, 2, 1.6),
        ]);
        let tried = CpuBench {
            rows,
            isa: "avx2+fma rows".into(),
            bound_isa: "avx2+fma".into(),
            trial: Some(KernelTrial {
                vertices: 2048,
                timed: vec![("avx2+fma".into(), 7.049), ("avx2+fma rows".into(), 5.5)],
                chosen: "avx2+fma rows".into(),
            }),
            static_isa: "avx512f".into(),
            static_trial: Some(KernelTrial {
                vertices: 131072,
                timed: vec![("avx2+fma".into(), 0.41), ("avx512f".into(), 0.3)],
                chosen: "avx512f".into(),
            }),
            prefetch_trial: Some(KernelTrial {
                vertices: 2_000_000,
                timed: vec![("prefetched".into(), 3.4), ("not prefetched".into(), 2.9)],
                chosen: "not prefetched".into(),
            }),
            prefetch_trials: vec![(
                "avx2+fma rows".into(),
                KernelTrial {
                    vertices: 200_000,
                    timed: vec![("prefetched".into(), 2.1), ("not prefetched".into(), 2.4)],
                    chosen: "prefetched".into(),
                },
            )],
            bound_trials: vec![(
                "avx2+fma loop, 44 B read + 12 B written".into(),
                KernelTrial {
                    vertices: 2_000_000,
                    timed: vec![
                        ("hardware prefetcher alone".into(), 3.7),
                        ("prefetched (T0)".into(), 3.3),
                        ("prefetched non-temporally (NTA)".into(), 8.3),
                    ],
                    chosen: "prefetched (T0)".into(),
                },
            )],
            ..cpu.clone()
        };
        let md = markdown(&tried, &pal);
        assert!(
            md.contains("fast kernel: avx2+fma rows (the fastest of the SIMD forms")
                && md.contains("ns a vertex: avx2+fma 7.05, avx2+fma rows 5.50; its family also runs the 1-influence rows); from 65536 vertices (the 200k and 2M tiers) each form's inputs are prefetched or not as a trial of its own at the tier's size found faster (one thread, ns a vertex): avx2+fma rows at 200000 vertices prefetched (prefetched 2.10, not prefetched 2.40); static transform: avx512f (the fastest in a trial of its own, 131072 vertices on one thread: avx2+fma 0.41, avx512f 0.30)")
                && md.contains("its memory bound in the same run (what this machine's memory allows): 2M 1.25x")
                && md.contains("streaming stores above 8 MB of output; from 65536 vertices (the 200k and 2M tiers) its inputs read the way a trial of its own found fastest for the row's traffic at the tier's size (one thread, fastest of its rounds in ns a vertex: avx2+fma loop, 44 B read + 12 B written, at 2000000 vertices prefetched (T0) (hardware prefetcher alone 3.70, prefetched (T0) 3.30, prefetched non-temporally (NTA) 8.30)), and the static transform reads its positions as its bound's loop does), sampled in turn"),
            "{md}"
        );
        assert!(!markdown(&cpu, &pal).contains("found fastest"));
        assert!(!markdown(&cpu, &pal).contains("timed trial"));
        // An old report's trials (`prefetch_trial` alone) still say how its kernel read.
        let old = CpuBench {
            prefetch_trials: Vec::new(),
            bound_trials: Vec::new(),
            ..tried.clone()
        };
        assert!(markdown(&old, &pal).contains("; beyond the caches its inputs are not prefetched (the faster in a trial of its own, 2000000 vertices on one thread: prefetched 3.40, not prefetched 2.90); static transform"));
        for bench in [&cpu, &tried] {
            let json = serde_json::to_string(bench).unwrap();
            let back: CpuBench = serde_json::from_str(&json).unwrap();
            assert_eq!(&back, bench);
        }
        let json = serde_json::to_string(&cpu).unwrap();
        assert!(json.contains("\"mode\":\"quick\""));
        // A report.json made before the trials per size and traffic loads, with none.
        let mut value = serde_json::to_value(&tried).unwrap();
        let fields = value.as_object_mut().unwrap();
        assert!(
            fields.remove("prefetch_trials").is_some() && fields.remove("bound_trials").is_some()
        );
        let back: CpuBench = serde_json::from_value(value).unwrap();
        assert!(back.prefetch_trials.is_empty() && back.bound_trials.is_empty());
        assert_eq!(back.prefetch_trial, tried.prefetch_trial);
    }
}
