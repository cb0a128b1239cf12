//! One report from several: CI jobs on different GPUs or backends, nextest shards and processes.

use super::{check_order, Report, Row};

impl Report {
    /// One report from several (CI jobs on different GPUs, backends, or nextest shards and
    /// processes): adapters, cases and rows are united. A row seen twice keeps its worse status
    /// (its later copy when they are alike), and two statuses that differ are named in
    /// `problems`, so that no order of the files hides a failure. The benchmark section is the
    /// first part's; every part's CPU tiers are kept in `cpu_per_machine`.
    pub fn merge(parts: Vec<Report>) -> Report {
        let mut out = Report::default();
        for p in parts {
            if out.shader.is_empty() {
                out.shader = p.shader.clone();
                out.shader_sha256 = p.shader_sha256.clone();
            }
            if out.validation.is_none() {
                out.validation = p.validation.clone();
            }
            if let Some(layer) = p.layer {
                let into = out.layer.get_or_insert_with(|| super::LayerSection {
                    messages: Vec::new(),
                    ..layer.clone()
                });
                for m in layer.messages {
                    if !into.messages.contains(&m) {
                        into.messages.push(m);
                    }
                }
            }
            for c in p.compilers {
                let same =
                    |d: &&mut super::CompilerRow| d.compiler == c.compiler && d.entry == c.entry;
                match out.compilers.iter_mut().find(same) {
                    Some(d) if c.outcome.status.severity() > d.outcome.status.severity() => *d = c,
                    Some(_) => {}
                    None => out.compilers.push(c),
                }
            }
            for a in p.adapters {
                if !out.adapters.iter().any(|b| b.tag == a.tag) {
                    out.adapters.push(a);
                }
            }
            for c in p.cases {
                if !out.cases.iter().any(|d| d.0 == c.0) {
                    out.cases.push(c);
                }
            }
            for r in p.rows {
                let key = |s: &Row| (s.case.clone(), s.adapter.clone(), s.check.clone());
                match out.rows.iter().position(|s| key(s) == key(&r)) {
                    None => out.rows.push(r),
                    Some(i) => {
                        let old = out.rows[i].outcome.status;
                        let new = r.outcome.status;
                        if old != new {
                            out.problems.push(format!(
                                "merge: `{}::{} [{}]` is {old} in one report and {new} in another; the worse is kept",
                                r.case, r.check, r.adapter
                            ));
                        }
                        if new.severity() >= old.severity() {
                            out.rows[i] = r;
                        }
                    }
                }
            }
            for c in p.case_problems {
                if !out.case_problems.iter().any(|d| d.file == c.file) {
                    out.case_problems.push(c);
                }
            }
            for f in p.problems {
                if !out.problems.contains(&f) {
                    out.problems.push(f);
                }
            }
            for f in p.unused_goldens {
                if !out.unused_goldens.contains(&f) {
                    out.unused_goldens.push(f);
                }
            }
            for a in p.abandoned {
                if !out.abandoned.contains(&a) {
                    out.abandoned.push(a);
                }
            }
            out.timings.extend(p.timings);
            out.pools.extend(p.pools);
            out.wall_s = out.wall_s.max(p.wall_s);
            // Every machine's CPU tiers, with their bounds: a part merged before brings its own.
            let cpus = p.cpu_per_machine.into_iter();
            for cpu in cpus.chain(p.benchmarks.as_ref().and_then(|b| b.cpu.clone())) {
                if !out.cpu_per_machine.contains(&cpu) {
                    out.cpu_per_machine.push(cpu);
                }
            }
            if out.benchmarks.is_none() {
                out.benchmarks = p.benchmarks;
            }
        }
        let order = check_order;
        out.rows.sort_by(|a, b| {
            (&a.case, order(&a.check), &a.check, &a.adapter).cmp(&(
                &b.case,
                order(&b.check),
                &b.check,
                &b.adapter,
            ))
        });
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::{Binding, CpuBench, CpuRow, Mode};
    use crate::report::Benchmarks;

    /// A report whose CPU tiers ran on `cpu`, one 4-influence row `vs_bound` over its memory bound.
    fn on(cpu: &str, vs_bound: f64) -> Report {
        let row = CpuRow {
            tier: "skinning, 4 influences".into(),
            vertices: 2_000_000,
            threads: 2,
            samples: 5,
            median_ms: 2.0 * vs_bound,
            min_ms: 1.9,
            max_ms: 2.5,
            ns_per_vertex: 1.0,
            vs_static: None,
            read_bytes: Some(44),
            written_bytes: Some(12),
            flops_per_vertex: Some(105),
            memory_bound_ms: Some(2.0),
            arithmetic_bound_ms: Some(0.5),
            binds: Some(Binding::Memory),
            vs_bound: Some(vs_bound),
        };
        let cpu = CpuBench {
            mode: Mode::Quick,
            cpu: cpu.into(),
            isa: "avx2+fma".into(),
            bound_isa: "avx2+fma".into(),
            trial: None,
            static_isa: String::new(),
            static_trial: None,
            prefetch_trial: None,
            prefetch_trials: Vec::new(),
            bound_trials: Vec::new(),
            available_threads: 2,
            thread_counts: vec![1, 2],
            rows: vec![row],
            steadiness: Vec::new(),
            clock_ghz: Some(3.0),
            fma_peaks: Vec::new(),
            cold_from: None,
            evict_bytes: None,
            wall_ms: 1.0,
        };
        Report {
            benchmarks: Some(Benchmarks {
                cpu: Some(cpu),
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    #[test]
    fn merge_keeps_every_machines_bounds() {
        let a = on("Machine A", 1.10);
        let merged = Report::merge(vec![a.clone(), on("Machine B", 1.25), a]);
        assert_eq!(
            merged.cpu_per_machine.len(),
            2,
            "a machine seen twice is kept once"
        );
        // Merging a merged report keeps its machines.
        let again = Report::merge(vec![merged, on("Machine C", 1.2)]);
        let names: Vec<&str> = again
            .cpu_per_machine
            .iter()
            .map(|c| c.cpu.as_str())
            .collect();
        assert_eq!(names, ["Machine A", "Machine B", "Machine C"]);
        let md = again.markdown();
        assert!(md.contains("## CPU bounds per machine"), "{md}");
        let rows = [
            ("Machine A", "| 2.20 | 2.00 | 0.500 | 1.10x | memory |"),
            ("Machine B", "| 2.50 | 2.00 | 0.500 | 1.25x | memory |"),
        ];
        for (machine, cells) in rows {
            let table = md
                .split(&format!("### {machine}"))
                .nth(1)
                .unwrap_or_default();
            let row = format!("| skinning, 4 influences | 2M | 2 {cells}");
            assert!(table.contains(&row), "{machine}: {md}");
        }
    }
}
