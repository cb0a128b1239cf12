//! One report from several: CI jobs on different GPUs or backends, nextest shards and processes.

use super::{check_order, Report, Row};

impl Report {
    /// One report from several (CI jobs on different GPUs, backends, or nextest shards and
    /// processes): adapters, cases and rows are united. A row seen twice keeps its worse status
    /// (its later copy when they are alike), and two statuses that differ are named in
    /// `problems`, so that no order of the files hides a failure.
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
