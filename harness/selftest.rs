//! Self-tests of the harness on real adapters: broken shaders and broken case files must fail the
//! right trials, with messages that say what broke and by how much.

use std::path::{Path, PathBuf};

use skinproof::check::Status;
use skinproof::config::Config;
use skinproof::report::Report;
use skinproof::suite::Suite;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A scratch folder under the target directory, fresh for each test.
fn scratch(name: &str) -> PathBuf {
    let dir = root().join("target").join("selftest").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The default shader with one edit; the edit must apply, so a reworded shader fails loudly here.
fn mutant(dir: &Path, from: &str, to: &str) -> PathBuf {
    let source = std::fs::read_to_string(root().join("shaders/skinning.wgsl")).unwrap();
    assert!(
        source.contains(from),
        "the default shader no longer contains `{from}`"
    );
    let path = dir.join("mutant.wgsl");
    std::fs::write(&path, source.replacen(from, to, 1)).unwrap();
    path
}

/// Runs the whole suite with these settings and returns what it reported.
fn run_suite(dir: &Path, vars: &[(&str, &str)]) -> Option<Report> {
    let mut all: Vec<(String, String)> = vars
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    all.retain(|(k, _)| k != "CI");
    let mut config = Config::from_vars(root(), all).unwrap();
    config.reports = dir.join("reports");
    let suite = Suite::discover(config);
    if let Some(reason) = &suite.no_adapter {
        assert!(
            std::env::var("SKINPROOF_REQUIRE_ADAPTER").map_or(true, |v| v.is_empty() || v == "0"),
            "{reason}"
        );
        eprintln!("self-test skipped: {reason}");
        return None;
    }
    suite.run_all();
    let report = suite.report.lock().unwrap().clone();
    Some(report)
}

fn failing<'a>(report: &'a Report, check: &str) -> Vec<&'a skinproof::report::Row> {
    report
        .rows
        .iter()
        .filter(|r| r.check == check && r.outcome.status == Status::Fail)
        .collect()
}

#[test]
fn weights_on_the_wrong_joints_fail_the_posed_comparison() {
    let dir = scratch("wrong_joints");
    let shader = mutant(&dir, "palette[j[k]]", "palette[j[(k + 1u) % 4u]]");
    let Some(report) = run_suite(&dir, &[("SKINPROOF_SHADER", shader.to_str().unwrap())]) else {
        return;
    };
    let bad = failing(&report, "posed_matches_cpu");
    assert!(
        !bad.is_empty(),
        "no posed_matches_cpu failure: {:#?}",
        report.rows
    );
    let bend = bad
        .iter()
        .find(|r| r.case == "bend_two_joints")
        .expect("bend_two_joints must catch it");
    assert!(
        bend.outcome.message.contains("exceeds the tolerance"),
        "{}",
        bend.outcome.message
    );
    assert!(
        bend.outcome.figure.parse::<f64>().unwrap() > 1e-3,
        "{}",
        bend.outcome.figure
    );
}

#[test]
fn dropped_translation_fails_the_posed_comparison() {
    let dir = scratch("dropped_translation");
    let shader = mutant(
        &dir,
        "let h = vec4<f32>(p, 1.0);",
        "let h = vec4<f32>(p, 0.0);",
    );
    let Some(report) = run_suite(&dir, &[("SKINPROOF_SHADER", shader.to_str().unwrap())]) else {
        return;
    };
    let bad = failing(&report, "posed_matches_cpu");
    assert!(!bad.is_empty(), "no posed_matches_cpu failure");
    assert!(
        bad.iter().all(|r| r.outcome.message.contains("at vertex")),
        "{bad:#?}"
    );
    // The palette at the bind pose is the identity, so dropping translation there changes nothing:
    // the posed comparison is what catches it, and the report must say so per adapter.
    let adapters: std::collections::BTreeSet<&str> =
        bad.iter().map(|r| r.adapter.as_str()).collect();
    assert_eq!(adapters.len(), report.adapters.len());
}

#[test]
fn syntax_error_fails_validation_with_line_and_column() {
    let dir = scratch("syntax");
    let shader = mutant(&dir, "let i = id.x;", "let i = id.x");
    let Some(report) = run_suite(&dir, &[("SKINPROOF_SHADER", shader.to_str().unwrap())]) else {
        return;
    };
    let v = report.validation.clone().expect("the validation trial ran");
    assert_eq!(v.status, Status::Fail);
    // naga's located diagnostic: `mutant.wgsl:LINE:COL`.
    let line = v
        .message
        .lines()
        .find(|l| l.contains("mutant.wgsl:"))
        .unwrap_or_default()
        .to_string();
    let mut parts = line
        .rsplit("mutant.wgsl:")
        .next()
        .unwrap_or_default()
        .split(':');
    assert!(
        parts
            .next()
            .is_some_and(|n| n.trim().parse::<u32>().is_ok()),
        "{}",
        v.message
    );
    assert!(
        parts
            .next()
            .is_some_and(|n| n.trim().parse::<u32>().is_ok()),
        "{}",
        v.message
    );
    // Every adapter reports the build failure too.
    assert!(!failing(&report, "shader_builds").is_empty());
}

#[test]
fn a_malformed_case_fails_only_its_own_trials() {
    let dir = scratch("malformed_case");
    let cases = dir.join("cases");
    std::fs::create_dir_all(&cases).unwrap();
    std::fs::copy(
        root().join("cases/bend_two_joints.yaml"),
        cases.join("bend_two_joints.yaml"),
    )
    .unwrap();
    std::fs::write(
        cases.join("broken.yaml"),
        "skeleton:\n  joints: 3\nmesh:\n  vertices: 10\n  colour: red\n",
    )
    .unwrap();
    let Some(report) = run_suite(&dir, &[("SKINPROOF_CASES", cases.to_str().unwrap())]) else {
        return;
    };
    assert_eq!(report.case_problems.len(), 1);
    let msg = &report.case_problems[0].message;
    assert!(msg.contains("broken.yaml:5:"), "{msg}");
    assert!(msg.contains("unknown field `colour`"), "{msg}");
    assert!(report.rows.iter().all(|r| r.case == "bend_two_joints"));
    assert!(!report.rows.is_empty());
    assert!(
        report.rows.iter().all(|r| r.outcome.status == Status::Pass),
        "{:#?}",
        report.rows
    );
}
