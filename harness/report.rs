//! Outcome rows -> `reports/REPORT.md` and `reports/report.json`.

use std::fmt::Write as _;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::check::{Check, Outcome, Status};
use crate::gpu::AdapterInfo;

/// One check of one case on one adapter.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Row {
    pub case: String,
    pub adapter: String,
    pub check: String,
    #[serde(flatten)]
    pub outcome: Outcome,
}

/// A case file that did not load.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CaseProblem {
    pub file: String,
    pub message: String,
}

/// How long one piece of the run took on one adapter.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Timing {
    /// A case name, or a setup step.
    pub what: String,
    pub adapter: String,
    pub ms: f64,
}

/// Everything one run found.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Report {
    pub shader: String,
    /// naga's verdict on the shader, adapter-independent.
    pub validation: Option<Outcome>,
    pub adapters: Vec<AdapterInfo>,
    /// Case name -> description, for the failures section.
    pub cases: Vec<(String, String)>,
    pub rows: Vec<Row>,
    pub case_problems: Vec<CaseProblem>,
    /// Wall time of the whole run, seconds.
    pub wall_s: f64,
    /// Device setup per adapter and the CPU + GPU work per case and adapter.
    pub timings: Vec<Timing>,
    /// The benchmark section; `None` when benchmarks were off or not run.
    pub benchmarks: Option<Benchmarks>,
}

/// The benchmark figures of one run.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Benchmarks {
    /// quick or full.
    pub mode: String,
    pub gpu: Vec<crate::gpu::timing::GpuBench>,
    /// Adapters whose GPU benchmark could not run, with why.
    pub gpu_errors: Vec<String>,
    /// Whether the Mesa shader cache was cold, as measured by its growth during the run.
    pub shader_cache: String,
}

/// Short column headings for the checks, in `Check::ALL` order.
fn heading(check: Check) -> &'static str {
    match check {
        Check::ShaderBuilds => "builds",
        Check::ComputeMatchesCpu => "compute = CPU",
        Check::BindReproducesSource => "bind = source",
        Check::PosedMatchesCpu => "posed = CPU",
        Check::PoseMovesVertices => "moved",
        Check::RenderCoversBindPose => "coverage",
        Check::RenderChangesAfterPose => "changed px",
        Check::RenderMatchesGolden => "golden",
    }
}

impl Report {
    pub fn markdown(&self) -> String {
        let mut md = String::new();
        let count = |s: Status| self.rows.iter().filter(|r| r.outcome.status == s).count();
        let _ = writeln!(md, "# skinproof report\n");
        let _ = writeln!(
            md,
            "{} checks: {} PASS, {} FAIL, {} TIMEOUT, {} SKIP; {} case files unreadable; wall time {:.2} s.\n",
            self.rows.len(),
            count(Status::Pass),
            count(Status::Fail),
            count(Status::Timeout),
            count(Status::Skip),
            self.case_problems.len(),
            self.wall_s
        );
        let validation = self.validation.as_ref().map_or("not run".to_string(), |o| {
            format!("{} ({})", o.status, o.figure)
        });
        let _ = writeln!(
            md,
            "Shader `{}`: naga validation {validation}.\n",
            self.shader
        );
        let _ = writeln!(md, "## Adapters\n");
        let _ = writeln!(md, "| tag | name | backend | type | driver | driver info |\n| --- | --- | --- | --- | --- | --- |");
        for a in &self.adapters {
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} | {} |",
                a.tag, a.name, a.backend, a.device_type, a.driver, a.driver_info
            );
        }
        if self.adapters.is_empty() {
            let _ = writeln!(md, "| - | no adapter | | | | |");
        }
        let _ = writeln!(md, "\n## Checks\n");
        for c in Check::ALL {
            let _ = writeln!(md, "- **{}** (`{}`): {}", heading(c), c.name(), c.title());
        }
        for a in &self.adapters {
            let rows: Vec<&Row> = self.rows.iter().filter(|r| r.adapter == a.tag).collect();
            if rows.is_empty() {
                continue;
            }
            let _ = writeln!(md, "\n### {} ({})\n", a.tag, a.name);
            let _ = write!(md, "| case |");
            for c in Check::ALL {
                let _ = write!(md, " {} |", heading(c));
            }
            let _ = write!(md, "\n| --- |");
            for _ in Check::ALL {
                let _ = write!(md, " --- |");
            }
            let _ = writeln!(md);
            let mut cases: Vec<&str> = rows.iter().map(|r| r.case.as_str()).collect();
            cases.dedup();
            for case in cases {
                let _ = write!(md, "| {case} |");
                for c in Check::ALL {
                    match rows.iter().find(|r| r.case == case && r.check == c.name()) {
                        Some(r) => {
                            let _ = write!(md, " {} {} |", r.outcome.status, r.outcome.figure);
                        }
                        None => {
                            let _ = write!(md, " not run |");
                        }
                    }
                }
                let _ = writeln!(md);
            }
        }
        let bad: Vec<&Row> = self
            .rows
            .iter()
            .filter(|r| r.outcome.status != Status::Pass)
            .collect();
        if !bad.is_empty() {
            let _ = writeln!(md, "\n## Not passing\n");
            for r in bad {
                let about = self
                    .cases
                    .iter()
                    .find(|(n, _)| *n == r.case)
                    .map(|(_, d)| d.as_str())
                    .unwrap_or("");
                let _ = writeln!(
                    md,
                    "- **{}** `{}::{}` [{}] ({about}): {}",
                    r.outcome.status,
                    r.case,
                    r.check,
                    r.adapter,
                    r.outcome.message.replace('\n', " ")
                );
            }
        }
        self.cost_markdown(&mut md);
        if let Some(b) = &self.benchmarks {
            b.markdown(&mut md);
        }
        if !self.case_problems.is_empty() {
            let _ = writeln!(md, "\n## Case files with errors\n");
            for p in &self.case_problems {
                let _ = writeln!(md, "- `{}`: {}", p.file, p.message.replace('\n', " "));
            }
        }
        md
    }

    /// The cost of the suite: device setup per adapter and the time per case per adapter.
    fn cost_markdown(&self, md: &mut String) {
        if self.timings.is_empty() {
            return;
        }
        let _ = writeln!(md, "\n## Cost of the suite\n");
        let _ = writeln!(
            md,
            "Whole run: {:.2} s wall, trials and benchmarks included.\n",
            self.wall_s
        );
        let _ = writeln!(md, "| adapter | device + pipelines (ms) | cases | per case: median (ms) | max (ms) | all cases (ms) |\n| --- | --- | --- | --- | --- | --- |");
        for a in &self.adapters {
            let setup: f64 = self
                .timings
                .iter()
                .filter(|t| t.adapter == a.tag && t.what == "device and pipelines")
                .map(|t| t.ms)
                .sum();
            let mut cases: Vec<f64> = self
                .timings
                .iter()
                .filter(|t| t.adapter == a.tag && t.what != "device and pipelines")
                .map(|t| t.ms)
                .collect();
            let total: f64 = cases.iter().sum();
            let n = cases.len();
            let median = crate::gpu::timing::median(&mut cases);
            let max = cases.last().copied().unwrap_or(0.0);
            let _ = writeln!(
                md,
                "| {} | {setup:.1} | {n} | {median:.2} | {max:.2} | {total:.1} |",
                a.tag
            );
        }
    }

    /// Writes REPORT.md and report.json into `dir`, each through a temporary file and a rename.
    pub fn write(&self, dir: &Path) -> std::io::Result<()> {
        std::fs::create_dir_all(dir)?;
        let json = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        write_atomic(&dir.join("report.json"), json.as_bytes())?;
        write_atomic(&dir.join("REPORT.md"), self.markdown().as_bytes())
    }
}

impl Benchmarks {
    fn markdown(&self, md: &mut String) {
        let _ = writeln!(md, "\n## Benchmarks ({})\n", self.mode);
        let _ = writeln!(md, "Shader cache: {}.\n", self.shader_cache);
        for g in &self.gpu {
            let _ = writeln!(
                md,
                "### GPU: {}\n\nTimestamp queries: {}. Warm-up (first use of each pipeline, not in the medians): {:.1} ms. An empty submission and wait: {:.3} ms. Per vertex uses the GPU time where credible, else the wall clock.\n",
                g.adapter,
                if g.timestamps { "yes" } else { "no (wall clock only)" },
                g.warmup_ms,
                g.empty_submit_ms
            );
            let _ = writeln!(md, "| tier | vertices | reps | wall median (ms) | wall min-max (ms) | GPU median (ms) | per vertex (ns) | note |\n| --- | --- | --- | --- | --- | --- | --- | --- |");
            for r in &g.rows {
                let gpu = r
                    .gpu_median_ms
                    .map_or("-".to_string(), |v| format!("{v:.3}"));
                let _ = writeln!(
                    md,
                    "| {} | {} | {} | {:.3} | {:.3}-{:.3} | {gpu} | {:.2} | {} |",
                    r.tier,
                    r.vertices,
                    r.repetitions,
                    r.wall_median_ms,
                    r.wall_min_ms,
                    r.wall_max_ms,
                    r.ns_per_vertex,
                    r.note
                );
            }
            let _ = writeln!(md);
        }
        for e in &self.gpu_errors {
            let _ = writeln!(md, "- GPU benchmark not run: {e}");
        }
    }
}

/// Write to a temporary sibling, then rename over the target.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_has_a_row_per_case_and_the_failures() {
        let outcome = |status, figure: &str, message: &str| Outcome {
            status,
            figure: figure.into(),
            message: message.into(),
        };
        let report = Report {
            shader: "shaders/skinning.wgsl".into(),
            adapters: vec![AdapterInfo {
                tag: "vulkan/llvmpipe".into(),
                name: "llvmpipe".into(),
                backend: "vulkan".into(),
                device_type: "Cpu".into(),
                driver: "llvmpipe".into(),
                driver_info: "Mesa".into(),
            }],
            cases: vec![("bend".into(), "a bent chain".into())],
            rows: vec![
                Row {
                    case: "bend".into(),
                    adapter: "vulkan/llvmpipe".into(),
                    check: "compute_matches_cpu".into(),
                    outcome: outcome(Status::Pass, "4.77e-7", ""),
                },
                Row {
                    case: "bend".into(),
                    adapter: "vulkan/llvmpipe".into(),
                    check: "posed_matches_cpu".into(),
                    outcome: outcome(Status::Fail, "3.00e-1", "too far"),
                },
            ],
            ..Default::default()
        };
        let md = report.markdown();
        assert!(
            md.contains("| bend | not run | PASS 4.77e-7 | not run | FAIL 3.00e-1 |"),
            "{md}"
        );
        assert!(
            md.contains("`bend::posed_matches_cpu` [vulkan/llvmpipe] (a bent chain): too far"),
            "{md}"
        );
        let json = serde_json::to_string(&report).unwrap();
        let back: Report = serde_json::from_str(&json).unwrap();
        assert_eq!(back.rows.len(), 2);
    }
}
