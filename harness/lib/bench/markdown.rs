//! The benchmark tables in Markdown for the report: CPU tiers with their speedup, steadiness and
//! cycles lines, and the palette builds.

use std::fmt::Write as _;

use super::cpu::{CpuBench, FLOOR48, SKIN4, STATIC, STEADY_VERTICES, TIERS};
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
    use crate::bench::{CpuRow, Mode, Steadiness};

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
}
