//! The Markdown of a report: `REPORT.md`, its golden review section, and the merged matrix.

use std::fmt::Write as _;

use super::{Benchmarks, Report, Row};
use crate::check::{Check, Status};
use crate::property::PROPERTIES;

impl Report {
    /// The report's first line: the counts of each status, case files with errors, wall time, and
    /// whether the shader fails validation.
    pub fn headline(&self) -> String {
        let count = |s: Status| self.rows.iter().filter(|r| r.outcome.status == s).count();
        // The checks run even when validation fails (each pipeline builds or not on its own), so the
        // headline says so rather than reading "0 FAIL".
        let invalid = self
            .validation
            .as_ref()
            .is_some_and(|o| o.status == Status::Fail);
        // Expected outcomes only where there are any: most runs have none.
        let expected = [Status::ExpectedFail, Status::UnexpectedPass]
            .into_iter()
            .filter(|&s| count(s) > 0)
            .map(|s| format!(", {} {s}", count(s)))
            .collect::<String>();
        format!(
            "{} checks: {} PASS, {} FAIL, {} TIMEOUT, {} SKIP{expected}; {} case files with errors; wall time {:.2} s.{}",
            self.rows.len(),
            count(Status::Pass),
            count(Status::Fail),
            count(Status::Timeout),
            count(Status::Skip),
            self.case_problems.len(),
            self.wall_s,
            if invalid {
                " The shader FAILS validation (below)."
            } else {
                ""
            }
        )
    }

    /// The validation layer's line, and its messages when it logged any.
    fn layer_markdown(&self) -> String {
        let Some(layer) = &self.layer else {
            return String::new();
        };
        let mut md = format!(
            "Khronos validation layer: on for the Vulkan adapters (settings `{}`, log `{}`): {} messages.\n\n",
            layer.settings,
            layer.log,
            layer.messages.len()
        );
        if !layer.messages.is_empty() {
            let _ = writeln!(md, "```text\n{}\n```\n", layer.messages.join("\n"));
        }
        md
    }

    /// The section of the shader compilers: entry points by compiler, then every failure and
    /// skip with its message. Empty when no compiler trial ran.
    fn compilers_markdown(&self) -> String {
        let mut md = String::new();
        if self.compilers.is_empty() {
            return md;
        }
        let mut compilers: Vec<&str> = self.compilers.iter().map(|c| c.compiler.as_str()).collect();
        let mut entries: Vec<&str> = self.compilers.iter().map(|c| c.entry.as_str()).collect();
        for list in [&mut compilers, &mut entries] {
            list.sort_unstable();
            list.dedup();
        }
        let _ = writeln!(md, "## Shader compilers\n");
        let _ = writeln!(
            md,
            "Each entry point as each compiler sees it (naga's back-ends with `spirv-val` and `glslangValidator` on their output; HLSL and MSL are only written, with no validator on this platform; `tint`: Tint compiles the module and Dawn builds the pipeline the entry point is in).\n"
        );
        let _ = writeln!(md, "| entry point | {} |", compilers.join(" | "));
        let _ = writeln!(md, "| --- |{}", " --- |".repeat(compilers.len()));
        for entry in &entries {
            let _ = write!(md, "| {entry} |");
            for compiler in &compilers {
                match self
                    .compilers
                    .iter()
                    .find(|c| c.entry == *entry && c.compiler == *compiler)
                {
                    Some(c) => {
                        let _ = write!(md, " {} {} |", c.outcome.status, c.outcome.figure);
                    }
                    None => md.push_str(" not run |"),
                }
            }
            md.push('\n');
        }
        let mut noted: Vec<_> = self
            .compilers
            .iter()
            .filter(|c| c.outcome.status != Status::Pass)
            .collect();
        noted.sort_by(|a, b| (&a.entry, &a.compiler).cmp(&(&b.entry, &b.compiler)));
        for c in noted {
            let _ = writeln!(
                md,
                "\n{} `{}` [{}]:\n\n```text\n{}\n```",
                c.outcome.status,
                c.entry,
                c.compiler,
                c.outcome.message.trim_end()
            );
        }
        md.push('\n');
        md
    }

    pub fn markdown(&self) -> String {
        let mut md = String::new();
        let _ = writeln!(md, "# skinproof report\n");
        if let Some(f) = &self.filter {
            let _ = writeln!(
                md,
                "A filtered run ({f}): only the selected trials, no benchmarks and no mutation check. The whole run's report, `REPORT.md`, is left as it was.\n"
            );
        }
        let _ = writeln!(md, "{}\n", self.headline());
        for p in &self.problems {
            let _ = writeln!(md, "**The run fails:** {}\n", p.replace('\n', " "));
        }
        for a in &self.abandoned {
            let _ = writeln!(
                md,
                "**Device abandoned:** `{}`: {}; its thread was left in the driver and the adapter's later trials ran on a fresh device.\n",
                a.adapter, a.why
            );
        }
        let validation = self.validation.as_ref().map_or("not run".to_string(), |o| {
            format!("{} ({})", o.status, o.figure)
        });
        let _ = writeln!(
            md,
            "Shader `{}`: naga validation and the binding contract {validation}.\n",
            self.shader
        );
        // Why it failed, here too: the trials that need the shader all fail with it.
        if let Some(o) = self
            .validation
            .as_ref()
            .filter(|o| o.status == Status::Fail)
        {
            let _ = writeln!(md, "```text\n{}\n```\n", o.message.trim_end());
        }
        md.push_str(&self.layer_markdown());
        md.push_str(&self.compilers_markdown());
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
        // Said once here, rather than only in each of the adapter's failing trials.
        for a in &self.adapters {
            if let Some(why) = crate::gpu::adapter::gl_context_limit(&a.backend, &a.driver_info) {
                let _ = writeln!(md, "\n`{}`: {why}.", a.tag);
            }
        }
        let _ = writeln!(md, "\n## Checks\n");
        for c in Check::ALL {
            let _ = writeln!(md, "- **{}** (`{}`): {}", c.heading(), c.name(), c.title());
        }
        for a in &self.adapters {
            let rows: Vec<&Row> = self
                .rows
                .iter()
                .filter(|r| r.adapter == a.tag && r.case != PROPERTIES)
                .collect();
            if rows.is_empty() {
                continue;
            }
            let _ = writeln!(md, "\n### {} ({})\n", a.tag, a.name);
            let _ = write!(md, "| case |");
            for c in Check::ALL {
                let _ = write!(md, " {} |", c.heading());
            }
            let _ = write!(md, "\n| --- |");
            for _ in Check::ALL {
                let _ = write!(md, " --- |");
            }
            let _ = writeln!(md);
            // Trials finish in any order: list each case once, by name.
            let mut cases: Vec<&str> = rows.iter().map(|r| r.case.as_str()).collect();
            cases.sort_unstable();
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
        self.properties_markdown(&mut md);
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
        md.push_str(&self.review_markdown());
        if let Some(m) = &self.mutation {
            // One heading level down, to sit under this report's title.
            let section: Vec<String> = m
                .markdown()
                .lines()
                .map(|l| {
                    if l.starts_with('#') {
                        format!("#{l}")
                    } else {
                        l.to_string()
                    }
                })
                .collect();
            let _ = writeln!(md, "\n{}", section.join("\n"));
        }
        self.cost_markdown(&mut md);
        if let Some(b) = &self.benchmarks {
            b.markdown(&mut md);
        }
        if !self.cpu_per_machine.is_empty() {
            let _ = writeln!(
                md,
                "\n## CPU bounds per machine\n\nEach merged report's CPU tiers: every fast row against its own memory and arithmetic bounds, measured in that run.\n"
            );
            for cpu in &self.cpu_per_machine {
                let _ = writeln!(md, "{}", crate::bench::bounds_markdown(cpu));
            }
        }
        if !self.case_problems.is_empty() {
            let _ = writeln!(md, "\n## Case files with errors\n");
            for p in &self.case_problems {
                let _ = writeln!(md, "- `{}`: {}", p.file, p.message.replace('\n', " "));
            }
        }
        md
    }

    /// Golden mismatches with expected / actual / diff side by side (links relative to the
    /// reports folder, so GitHub renders them), and goldens that may be stale.
    pub fn review_markdown(&self) -> String {
        let mut md = String::new();
        let reviews: Vec<(&Row, &crate::golden::Review)> = self
            .rows
            .iter()
            .filter_map(|r| r.outcome.review.as_ref().map(|v| (r, v)))
            .collect();
        let mismatches: Vec<_> = reviews
            .iter()
            .filter(|(r, _)| r.outcome.status != Status::Pass)
            .collect();
        if !mismatches.is_empty() {
            let _ = writeln!(md, "\n## Golden images to review\n");
            for (r, v) in mismatches {
                let _ = writeln!(
                    md,
                    "### `{}` on {} ({})\n",
                    r.case, r.adapter, r.outcome.status
                );
                let _ = writeln!(
                    md,
                    "{} pixels beyond the channel tolerance ({} more within a sub-pixel shift), largest channel difference {}; FLIP mean {:.4}, {:.0}th percentile {:.4}; decided by {}.\n",
                    v.differing_pixels,
                    v.shifted_pixels,
                    v.max_channel,
                    v.flip_mean,
                    v.flip_percentile * 100.0,
                    v.flip_percentile_value,
                    v.metric.name()
                );
                let img = |p: &Option<String>, alt: &str| {
                    p.as_ref()
                        .map_or("-".to_string(), |p| format!("![{alt}]({p})"))
                };
                let _ = writeln!(md, "| expected | actual | diff |\n| --- | --- | --- |");
                let _ = writeln!(
                    md,
                    "| ![expected](../{}) | {} | {} |\n",
                    v.golden,
                    img(&v.actual, "actual"),
                    img(&v.diff, "diff")
                );
            }
        }
        if !self.unused_goldens.is_empty() {
            let _ = writeln!(
                md,
                "\n## Goldens no case uses\n\nNo case file names these (a case removed or renamed, or its golden.name changed); `git rm` them unless a case is missing:\n"
            );
            for f in &self.unused_goldens {
                let _ = writeln!(md, "- `golden/{f}`");
            }
        }
        let stale: Vec<_> = reviews.iter().filter(|(_, v)| v.stale.is_some()).collect();
        if !stale.is_empty() {
            let _ = writeln!(md, "\n## Stale goldens\n");
            for (r, v) in stale {
                // The trial's message also says how to record that the image still matches.
                let why = if r.outcome.message.is_empty() {
                    v.stale.clone().unwrap_or_default()
                } else {
                    r.outcome.message.replace('\n', " ")
                };
                let _ = writeln!(
                    md,
                    "- `{}` for `{}` on {}: {why}",
                    v.golden, r.case, r.adapter
                );
            }
        }
        md
    }

    /// The property checks: one row per property, one column per adapter.
    fn properties_markdown(&self, md: &mut String) {
        let rows: Vec<&Row> = self.rows.iter().filter(|r| r.case == PROPERTIES).collect();
        if rows.is_empty() {
            return;
        }
        let _ = writeln!(md, "\n### Properties\n");
        let _ = write!(md, "| property |");
        for a in &self.adapters {
            let _ = write!(md, " {} |", a.tag);
        }
        let _ = write!(md, "\n| --- |");
        for _ in &self.adapters {
            md.push_str(" --- |");
        }
        md.push('\n');
        let mut names: Vec<&str> = rows.iter().map(|r| r.check.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        for name in names {
            let _ = write!(md, "| {name} |");
            for a in &self.adapters {
                match rows.iter().find(|r| r.check == name && r.adapter == a.tag) {
                    Some(r) => {
                        let _ = write!(md, " {} {} |", r.outcome.status, r.outcome.figure);
                    }
                    None => md.push_str(" not run |"),
                }
            }
            md.push('\n');
        }
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
        let _ = writeln!(md, "| adapter | device + pipelines (ms) | cases | per case: median (ms) | max (ms) | all cases (ms) | GPU buffers created / reused |\n| --- | --- | --- | --- | --- | --- | --- |");
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
            let pool = self
                .pools
                .iter()
                .find(|p| p.adapter == a.tag)
                .map_or("-".to_string(), |p| format!("{} / {}", p.created, p.reused));
            let _ = writeln!(
                md,
                "| {} | {setup:.1} | {n} | {median:.2} | {max:.2} | {total:.1} | {pool} |",
                a.tag
            );
        }
    }

    /// The cross-vendor matrix: one row per case and check, one column per adapter.
    pub fn matrix_markdown(&self) -> String {
        let mut md = String::from("# skinproof matrix\n\n| case | check |");
        for a in &self.adapters {
            let _ = write!(md, " {} |", a.tag);
        }
        md.push_str("\n| --- | --- |");
        for _ in &self.adapters {
            md.push_str(" --- |");
        }
        md.push('\n');
        let mut keys: Vec<(&str, &str)> = self
            .rows
            .iter()
            .map(|r| (r.case.as_str(), r.check.as_str()))
            .collect();
        let order = super::check_order;
        // Checks in report order; properties (not in that order) by name.
        keys.sort_by(|a, b| (a.0, order(a.1), a.1).cmp(&(b.0, order(b.1), b.1)));
        keys.dedup();
        for (case, check) in keys {
            let _ = write!(md, "| {case} | {check} |");
            for a in &self.adapters {
                match self
                    .rows
                    .iter()
                    .find(|r| r.case == case && r.check == check && r.adapter == a.tag)
                {
                    Some(r) => {
                        let _ = write!(md, " {} {} |", r.outcome.status, r.outcome.figure);
                    }
                    None => md.push_str(" - |"),
                }
            }
            md.push('\n');
        }
        md
    }
}

impl Benchmarks {
    fn markdown(&self, md: &mut String) {
        let _ = writeln!(md, "\n## Benchmarks ({})\n", self.mode);
        if let Some(cpu) = &self.cpu {
            let _ = writeln!(md, "{}", crate::bench::markdown(cpu, &self.palette));
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::Outcome;
    use crate::gpu::AdapterInfo;

    #[test]
    fn markdown_has_a_row_per_case_and_the_failures() {
        let outcome = |status, figure: &str, message: &str| Outcome::new(status, figure, message);
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
        assert!(!md.contains("desktop OpenGL"), "{md}");
        let gl = Report {
            adapters: vec![AdapterInfo {
                tag: "gl/nvidia-h200".into(),
                backend: "gl".into(),
                driver_info: "3.3.0 NVIDIA 580.159.04".into(),
                ..report.adapters[0].clone()
            }],
            ..Default::default()
        };
        assert!(
            gl.markdown()
                .contains("`gl/nvidia-h200`: this adapter's context is desktop OpenGL 3.3"),
            "{}",
            gl.markdown()
        );
        assert!(
            md.contains("`bend::posed_matches_cpu` [vulkan/llvmpipe] (a bent chain): too far"),
            "{md}"
        );
        assert!(
            md.contains("naga validation and the binding contract PASS")
                || md.contains("naga validation and the binding contract not run"),
            "{md}"
        );
        let json = serde_json::to_string(&report).unwrap();
        let back: Report = serde_json::from_str(&json).unwrap();
        assert_eq!(back.rows.len(), 2);
    }

    #[test]
    fn a_failed_validation_says_why_in_the_report() {
        let report = Report {
            shader: "bad.wgsl".into(),
            validation: Some(Outcome::new(
                Status::Fail,
                "1 error",
                "bad.wgsl: breaks the shader contract (see SPEC.md): binding 4 is missing",
            )),
            ..Default::default()
        };
        let md = report.markdown();
        assert!(
            md.lines()
                .nth(2)
                .is_some_and(|l| l.ends_with("The shader FAILS validation (below).")),
            "{md}"
        );
        assert!(
            md.contains("Shader `bad.wgsl`: naga validation and the binding contract FAIL (1 error).\n\n```text\nbad.wgsl: breaks the shader contract (see SPEC.md): binding 4 is missing\n```"),
            "{md}"
        );
        let ok = Report {
            validation: Some(Outcome::new(Status::Pass, "0 errors", "")),
            ..Default::default()
        };
        assert!(!ok.markdown().contains("```text"), "{}", ok.markdown());
        assert!(
            !ok.markdown().contains("FAILS validation"),
            "{}",
            ok.markdown()
        );
    }
}
