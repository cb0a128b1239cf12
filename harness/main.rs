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
    let suite = Suite::discover(config);
    if let Some(reason) = &suite.no_adapter {
        eprintln!("skinproof: {reason}");
    }
    let cache_before = skinproof::gpu::timing::mesa_cache_bytes();
    let conclusion = libtest_mimic::run(&args, suite.trials());
    if !args.list {
        // Benchmarks belong to a whole run, not to a filtered one.
        if args.filter.is_none() && args.skip.is_empty() {
            suite.benchmark();
        }
        let mut report = suite
            .report
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        report.wall_s = start.elapsed().as_secs_f64();
        if let Some(b) = report.benchmarks.as_mut() {
            b.shader_cache = skinproof::gpu::timing::describe_cache(cache_before);
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
    conclusion.exit();
}
