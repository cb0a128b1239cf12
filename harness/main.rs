//! The conformance runner (`cargo test --release`): discovery -> trials -> run -> report.

use std::path::Path;
use std::time::Instant;

use libtest_mimic::{Arguments, Failed, Trial};
use skinproof::config::Config;
use skinproof::suite::Suite;

fn main() {
    let start = Instant::now();
    let args = Arguments::from_args();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = match Config::from_env(root) {
        Ok(c) => c,
        Err(e) => {
            // A broken setting must not run the suite with a silent default.
            let trial = Trial::test("harness::environment", move || Err(Failed::from(e.clone())));
            libtest_mimic::run(&args, vec![trial]).exit();
        }
    };
    let reports = config.reports.clone();
    let (mutate, shader) = (config.mutate, config.shader.clone());
    let suite = Suite::discover(config);
    if let Some(reason) = &suite.no_adapter {
        eprintln!("skinproof: {reason}");
    }
    let cache_before = skinproof::gpu::timing::mesa_cache_bytes();
    let conclusion = libtest_mimic::run(&args, suite.trials());
    let mut mutation_failed = false;
    if !args.list {
        // Benchmarks belong to a whole run, not to a filtered one.
        if args.filter.is_none() && args.skip.is_empty() {
            suite.benchmark();
        }
        let mut report = suite.report();
        report.wall_s = start.elapsed().as_secs_f64();
        if let Some(b) = report.benchmarks.as_mut() {
            b.shader_cache = skinproof::gpu::timing::describe_cache(cache_before);
        }
        if mutate && args.filter.is_none() {
            let m = skinproof::mutate::run(root, &shader, 2);
            match skinproof::mutate::min_kill_rate(root) {
                Ok(min) if m.passes(min) => eprintln!(
                    "skinproof: mutation kill rate {:.1}% (threshold {:.1}%)",
                    m.kill_rate() * 100.0,
                    min * 100.0
                ),
                Ok(min) => {
                    eprintln!("skinproof: mutation kill rate {:.1}% is below the threshold {:.1}% in mutation.toml; see the report", m.kill_rate() * 100.0, min * 100.0);
                    mutation_failed = true;
                }
                Err(e) => {
                    eprintln!("skinproof: {e}");
                    mutation_failed = true;
                }
            }
            report.mutation = Some(m);
        }
        // Under cargo-nextest every trial is its own process: each keeps its rows, and
        // `skinproof merge` rebuilds the report from them.
        if let Ok(run_id) = std::env::var("NEXTEST_RUN_ID") {
            let name: String = args
                .filter
                .as_deref()
                .unwrap_or("all")
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                        c
                    } else {
                        '.'
                    }
                })
                .collect();
            let path = reports
                .join("rows")
                .join(run_id)
                .join(format!("{name}.json"));
            if let Err(e) = report.write_json(&path) {
                eprintln!("skinproof: cannot write {}: {e}", path.display());
            }
            shut_down(suite);
            conclusion.exit();
        }
        if let Err(e) = report.append_step_summary() {
            eprintln!("skinproof: cannot append to GITHUB_STEP_SUMMARY: {e}");
        }
        match report.write(&reports) {
            Ok(()) => eprintln!(
                "skinproof: report written to {}",
                reports.join("REPORT.md").display()
            ),
            Err(e) => eprintln!(
                "skinproof: cannot write the report in {}: {e}",
                reports.display()
            ),
        }
    }
    shut_down(suite);
    if mutation_failed {
        std::process::exit(101);
    }
    conclusion.exit();
}

/// Releases every device, adapter and the instance before the process exits: leaving them to the
/// drivers' exit handlers has crashed Mesa's EGL teardown (a double free after all trials passed).
fn shut_down(suite: Suite) {
    drop(suite);
}
