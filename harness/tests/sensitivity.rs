//! The harness's sensitivity on real adapters: the default cases must kill the shader's mutants
//! (at the rate `mutation.toml` asks, on every adapter), and every property must hold.

use std::path::Path;
use std::time::{Duration, Instant};

use skinproof::check::Status;
use skinproof::config::Require;
use skinproof::gpu::{self, Context};
use skinproof::mutate;
use skinproof::property;
use skinproof::shader::Shader;

fn root() -> &'static Path {
    static ROOT: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    ROOT.get_or_init(skinproof::config::project_root)
}

/// Whether a missing adapter must fail rather than skip (a bad setting counts as required).
fn adapter_required() -> bool {
    Require::from_env().map_or(true, |r| r.is_required())
}

/// Skips (or, when adapters are required, fails) with `reason`.
fn no_adapter(reason: &str) {
    assert!(!adapter_required(), "no adapter: {reason}");
    eprintln!("sensitivity test skipped: {reason}");
}

#[test]
fn the_default_cases_kill_the_shader_mutants_on_every_adapter() {
    assert_kills("shaders/skinning.wgsl", "mutants");
}

/// The kinds of normal and tangent skinning (the plain blended matrix, the renormalisation
/// dropped, the handedness lost) on the example that skins both: the default cases kill them.
#[test]
fn the_default_cases_kill_the_normal_mutants_on_every_adapter() {
    assert_kills("shaders/examples/skinning_normals.wgsl", "mutants-normals");
}

/// The same kinds, and the byte offsets of the normal and tangent fields, on the example that
/// pulls them from one byte-addressed buffer and packs them into one output.
#[test]
fn the_default_cases_kill_the_pulled_mutants_on_every_adapter() {
    assert_kills("shaders/examples/compute_pulled.wgsl", "mutants-pulled");
}

/// Runs the mutation check on `shader` with the default cases and asserts the kill rate of
/// `mutation.toml` on every adapter; the report goes to `target/<folder>/`.
fn assert_kills(shader: &str, folder: &str) {
    let start = Instant::now();
    let min = mutate::min_kill_rate(root()).unwrap();
    let report = mutate::run(root(), &root().join(shader), None, 2);
    let dir = root().join("target").join(folder);
    let _ = std::fs::create_dir_all(&dir);
    let md = report.markdown();
    let _ = std::fs::write(dir.join("REPORT.md"), &md);
    if let Ok(json) = serde_json::to_string_pretty(&report) {
        let _ = std::fs::write(dir.join("report.json"), json);
    }
    if report.adapters.is_empty() {
        no_adapter(report.no_adapter.as_deref().unwrap_or("none found"));
        return;
    }
    eprintln!(
        "{}\n(full report: {}; {:.1} s)",
        md.split("\n## Diffs").next().unwrap_or_default(),
        dir.join("REPORT.md").display(),
        start.elapsed().as_secs_f64()
    );
    assert!(
        report.baseline_failures.is_empty(),
        "the original shader fails rows, so mutants cannot be judged: {:?}",
        report.baseline_failures
    );
    let survivors: Vec<String> = report
        .mutants
        .iter()
        .filter(|m| m.killed_on.len() < report.adapters.len())
        .filter(|m| matches!(m.status, mutate::Status::Killed | mutate::Status::Survived))
        .map(|m| {
            format!(
                "{} ({}: {}) survives on {:?}; a case that would catch it: {}",
                m.mutant.id,
                m.mutant.kind,
                m.mutant.description,
                report
                    .adapters
                    .iter()
                    .filter(|a| !m.killed_on.contains(a))
                    .collect::<Vec<_>>(),
                m.mutant.hint
            )
        })
        .collect();
    for r in report.rates() {
        assert!(
            r.killed + r.survived > 0,
            "{}: no mutant was scored",
            r.adapter
        );
        assert!(
            r.rate + 1e-12 >= min,
            "{}: kill rate {:.1}% is below mutation.toml's min_kill_rate {:.1}%:\n  {}",
            r.adapter,
            r.rate * 100.0,
            min * 100.0,
            survivors.join("\n  ")
        );
    }
    assert!(report.passes(min));
}

#[test]
fn every_property_holds_on_every_adapter() {
    let selection = match gpu::Selection::from_env() {
        Ok(s) => s,
        Err(e) => panic!("{e}"),
    };
    let instance = gpu::adapter::instance(&selection);
    let found = gpu::discover(&instance, &selection);
    if found.is_empty() {
        no_adapter("no GPU adapter found");
        return;
    }
    let shader = Shader::load(&root().join("shaders/skinning.wgsl"), None).unwrap();
    let mut failures = Vec::new();
    for f in &found {
        let ctx = Context::new(&f.adapter, f.info.clone(), &shader, Duration::from_secs(30))
            .unwrap_or_else(|e| panic!("{}: {e}", f.info.tag));
        for (name, check) in property::ALL {
            let start = Instant::now();
            let outcome = check(&ctx);
            eprintln!(
                "properties::{name} [{}]: {} {} ({:.0} ms) {}",
                f.info.tag,
                outcome.status,
                outcome.figure,
                start.elapsed().as_secs_f64() * 1e3,
                outcome.message
            );
            if outcome.status != Status::Pass {
                failures.push(format!(
                    "properties::{name} [{}]: {} {}: {}",
                    f.info.tag, outcome.status, outcome.figure, outcome.message
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
