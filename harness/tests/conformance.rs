//! The conformance runner (`cargo test --release`): discovery -> trials -> benchmarks and the mutation check -> report.

use std::path::Path;
use std::time::Instant;

use libtest_mimic::{Arguments, Failed, Trial};
use skinproof::config::Config;
use skinproof::layer::LayerLog;
use skinproof::report::{Benchmarks, Report};
use skinproof::suite::Suite;

fn main() {
    let start = Instant::now();
    skinproof::config::install_logger();
    let args = Arguments::from_args();
    let root = &skinproof::config::project_root();
    // Case files and models are named relative to the root, as cargo and nextest run a test from
    // it; a binary started elsewhere with CARGO_MANIFEST_DIR set runs the same way.
    if let Err(e) = std::env::set_current_dir(root) {
        eprintln!(
            "skinproof: cannot enter the project root {}: {e}",
            root.display()
        );
    }
    // The adapter selection is a setting too: a typo in WGPU_BACKEND must not select nothing.
    // The validation layer's log is a setting too: asked for and unusable, it must not pass.
    let config = Config::from_env(root)
        .map_err(|e| e.to_string())
        .and_then(|c| {
            skinproof::gpu::Selection::from_env().map_err(|e| e.to_string())?;
            Ok((c, LayerLog::configured()?))
        });
    let (config, layer) = match config {
        Ok(c) => c,
        Err(e) => {
            // A broken setting must not run the suite with a silent default, and no filter may
            // hide it: `-- bend` with a bad setting would otherwise pass with 0 tests run.
            let mut args = args;
            if !args.list {
                (args.filter, args.exact) = (None, false);
                args.skip.clear();
            }
            let trial = Trial::test("harness::environment", move || Err(Failed::from(e.clone())));
            libtest_mimic::run(&args, vec![trial]).exit();
        }
    };
    let reports = config.reports.clone();
    let suite = Suite::discover(config);
    if let Some(reason) = &suite.no_adapter {
        eprintln!("skinproof: {reason}");
    }
    // Benchmarks, the mutation check and the report's own files belong to a whole run, not to a
    // filtered one.
    let whole_run = args.filter.is_none() && args.skip.is_empty();
    if whole_run && !args.list {
        // Actual and diff images of cases that are gone or renamed would outlive them.
        let _ = std::fs::remove_dir_all(reports.join("diff"));
    }
    let conclusion = libtest_mimic::run(&args, suite.trials());
    let mut failure = None;
    if !args.list {
        let benchmarks = if whole_run { benchmark(&suite) } else { None };
        let mut report = suite.report();
        report.wall_s = start.elapsed().as_secs_f64();
        if let Some(mut b) = benchmarks {
            b.shader_cache = skinproof::gpu::timing::describe_cache(suite.cache_before());
            report.benchmarks = Some(b);
        }
        if let Some(layer) = &layer {
            failure = report.add_layer(layer, root);
        }
        if suite.config().mutate && whole_run {
            failure = failure.or(mutation(suite.config(), &mut report));
        }
        if !whole_run {
            report.filter = Some(selection(&args));
            if suite.config().mutate {
                eprintln!(
                    "skinproof: SKINPROOF_MUTATE runs only with the whole suite, not with a filter"
                );
            }
        }
        publish(&report, root, &reports, &args);
    }
    // The suite's devices are never dropped: `worker::exit` ends the process without driver
    // teardown, which has crashed processes whose trials all passed.
    if let Some(why) = failure {
        eprintln!("skinproof: {why}");
        skinproof::gpu::worker::exit(101);
    }
    skinproof::gpu::worker::exit(if conclusion.has_failed() { 101 } else { 0 });
}

/// The benchmarks (never pass/fail) on the CPU and on every adapter; `None` when they are off.
fn benchmark(suite: &Suite) -> Option<Benchmarks> {
    use skinproof::bench::{self, Mode};
    let mode = suite.config().bench;
    if mode == Mode::Off {
        return None;
    }
    let (sizes, reps): (&'static [usize], usize) = if mode == Mode::Full {
        (&[10_000, 200_000, 2_000_000], 15)
    } else {
        (&[10_000, 200_000], 5)
    };
    let mut benchmarks = Benchmarks {
        mode: mode.name().into(),
        cpu: Some(bench::cpu_tiers(mode)),
        palette: bench::palette_build(mode),
        ..Default::default()
    };
    for (tag, ctx) in suite.contexts() {
        // On the device's thread, each step under the deadline: a shader that hangs there does
        // not hold up the report.
        let bench = ctx.and_then(|ctx| {
            ctx.job("the GPU benchmarks", move |ctx| {
                skinproof::gpu::timing::run(ctx, sizes, reps)
            })
        });
        match bench.and_then(|b| b) {
            Ok(g) => benchmarks.gpu.push(g),
            Err(e) => benchmarks.gpu_errors.push(format!("{tag}: {e}")),
        }
    }
    Some(benchmarks)
}

/// The mutation check, into the report; why the run fails after all, if it does.
fn mutation(config: &Config, report: &mut Report) -> Option<String> {
    let m = skinproof::mutate::run(&config.root, &config.shader, config.profile.as_deref(), 2);
    let failure = match skinproof::mutate::min_kill_rate(&config.root) {
        Ok(min) if m.passes(min) => None,
        // Rows the original already fails cannot kill a mutant: the check cannot judge them.
        Ok(_) if !m.baseline_failures.is_empty() => Some(format!(
            "the mutation check cannot pass while the original shader fails {} rows (listed in the report); kill rate {:.1}%",
            m.baseline_failures.len(),
            m.kill_rate() * 100.0
        )),
        Ok(min) => Some(format!(
            "mutation kill rate {:.1}% is below the threshold {:.1}% in mutation.toml; see the report",
            m.kill_rate() * 100.0,
            min * 100.0
        )),
        Err(e) => Some(e.to_string()),
    };
    eprintln!(
        "skinproof: mutation kill rate {:.1}%",
        m.kill_rate() * 100.0
    );
    report.mutation = Some(m);
    failure
}

/// Writes the report: under cargo-nextest (one process per trial) this process's rows, which
/// `skinproof merge` turns back into a report; otherwise REPORT.md, report.json and the summary.
fn publish(report: &Report, root: &Path, reports: &Path, args: &Arguments) {
    if let Ok(run_id) = std::env::var("NEXTEST_RUN_ID") {
        let trial: String = args
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
            .join(format!("{trial}.json"));
        if let Err(e) = report.write_json(&path) {
            eprintln!("skinproof: cannot write {}: {e}", path.display());
        }
        return;
    }
    let review = match report.write_review(root, reports) {
        Ok(page) => page,
        Err(e) => {
            eprintln!(
                "skinproof: cannot write the review page in {}: {e}",
                reports.display()
            );
            None
        }
    };
    let to_review = review
        .as_ref()
        .map_or(0, |_| report.review_set().rows.len());
    if let Err(e) = report.append_step_summary(to_review) {
        eprintln!("skinproof: cannot append to GITHUB_STEP_SUMMARY: {e}");
    }
    match report.write(reports) {
        Ok(md) => {
            print_skips(report);
            if !report.unused_goldens.is_empty() {
                eprintln!(
                    "skinproof: golden files no case uses: {} (listed in the report)",
                    report.unused_goldens.join(", ")
                );
            }
            eprintln!("skinproof: report written to {}", md.display());
            if let Some(page) = &review {
                eprintln!(
                    "skinproof: {to_review} goldens to review: {} (`skinproof accept` takes this run's images)",
                    page.display()
                );
            }
        }
        Err(e) => eprintln!(
            "skinproof: cannot write the report in {}: {e}",
            reports.display()
        ),
    }
}

/// The trial selection of a filtered run, as the command line gave it.
fn selection(args: &Arguments) -> String {
    let mut parts = Vec::new();
    if let Some(f) = &args.filter {
        parts.push(format!(
            "{} `{f}`",
            if args.exact { "exactly" } else { "filter" }
        ));
    }
    for s in &args.skip {
        parts.push(format!("skip `{s}`"));
    }
    parts.join(", ")
}

/// The SKIPs with their reasons: libtest shows a skipped trial as `ok`.
fn print_skips(report: &Report) {
    use skinproof::check::Status;
    let skips: Vec<_> = report
        .rows
        .iter()
        .filter(|r| r.outcome.status == Status::Skip)
        .collect();
    if skips.is_empty() {
        return;
    }
    eprintln!(
        "skinproof: {} trials ran as SKIP (shown as ok above):",
        skips.len()
    );
    const SHOWN: usize = 10;
    for r in skips.iter().take(SHOWN) {
        eprintln!(
            "  {}::{} [{}]: {}",
            r.case,
            r.check,
            r.adapter,
            r.outcome.message.lines().next().unwrap_or("")
        );
    }
    if skips.len() > SHOWN {
        eprintln!("  and {} more, listed in the report", skips.len() - SHOWN);
    }
}
