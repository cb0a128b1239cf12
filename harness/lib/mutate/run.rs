//! Runs the suite against the original shader and each mutant, sharing devices, and judges the kills.

use super::*;

/// What one suite run (the original or a mutant) found.
pub(super) struct SuiteRun {
    pub(super) adapters: Vec<String>,
    pub(super) no_adapter: Option<String>,
    /// Failing rows, in report order; validation failure as `shader::validates [all adapters]`.
    pub(super) failures: Vec<Kill>,
    /// The validation (or configuration) failed: every adapter counts as killing.
    pub(super) invalid: bool,
    pub(super) seconds: f64,
}

/// Only settings that change what a mutant is judged on pass through; bless is always off.
pub(super) const PASSED_THROUGH: [&str; 2] = ["SKINPROOF_CASES", "SKINPROOF_TIMEOUT_S"];

/// Runs every case against `shader`: on fresh devices, or on `base`'s devices when given.
/// Returns what it found and the suite, whose devices later runs may share.
pub(super) fn run_suite(
    root: &Path,
    shader: &Path,
    profile: Option<&Path>,
    reports: &Path,
    base: Option<&Suite>,
) -> (SuiteRun, Option<Suite>) {
    use crate::config::{Config, Require};
    let start = Instant::now();
    let vars: Vec<(String, String)> = std::env::vars()
        .filter(|(k, _)| PASSED_THROUGH.contains(&k.as_str()))
        .collect();
    let mut config = match Config::from_vars(root, vars) {
        Ok(c) => c,
        Err(e) => {
            let e = e.to_string();
            let run = SuiteRun {
                adapters: Vec::new(),
                no_adapter: Some(e.clone()),
                failures: vec![Kill {
                    case: "harness".into(),
                    check: format!("config ({e})"),
                    adapter: "all adapters".into(),
                }],
                invalid: true,
                seconds: 0.0,
            };
            return (run, None);
        }
    };
    config.shader = shader.to_path_buf();
    config.profile = profile.map(Path::to_path_buf);
    config.reports = reports.to_path_buf();
    config.goldens = root.join("golden");
    config.bless = crate::golden::Bless::Off;
    config.require = Require::Nothing;
    config.extra_cases = 0;
    config.bench = crate::bench::Mode::Off;
    let suite = match base {
        Some(base) => Suite::sharing(config, base),
        None => Suite::discover(config),
    };
    suite.run_all();
    let report = suite
        .report
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .clone();
    let mut failures = Vec::new();
    let invalid = report.validation.as_ref().is_some_and(|v| v.status.fails());
    if invalid {
        failures.push(Kill {
            case: "shader".into(),
            check: "validates".into(),
            adapter: "all adapters".into(),
        });
    }
    failures.extend(
        report
            .rows
            .iter()
            .filter(|r| r.outcome.status.fails())
            .map(|r| Kill {
                case: r.case.clone(),
                check: r.check.clone(),
                adapter: r.adapter.clone(),
            }),
    );
    let run = SuiteRun {
        adapters: report.adapters.iter().map(|a| a.tag.clone()).collect(),
        no_adapter: suite.no_adapter.clone(),
        failures,
        invalid,
        seconds: start.elapsed().as_secs_f64(),
    };
    (run, Some(suite))
}

/// How many killing rows to keep per adapter.
pub(super) const KILLS_KEPT: usize = 3;

/// Generates the mutants of `shader`, runs the original and every valid mutant through the whole
/// suite (`parallel` suites at a time, sharing the original's devices), and scores them.
pub fn run(root: &Path, shader: &Path, profile: Option<&Path>, parallel: usize) -> MutationReport {
    let start = Instant::now();
    let shown = shader
        .strip_prefix(root)
        .unwrap_or(shader)
        .display()
        .to_string();
    let mut report = MutationReport {
        shader: shown,
        kinds: report::kind_names(),
        skinning_kinds: report::skinning_kinds(),
        ..Default::default()
    };
    // Loaded as the suite loads it, so the mutants are held to the same contract.
    let original = match crate::shader::Shader::load(shader, profile) {
        Ok(s) => s,
        Err(e) => {
            let why = match e {
                crate::shader::ShaderError::Io { source, .. } => source.to_string(),
                other => other.to_string(),
            };
            report
                .baseline_failures
                .push(format!("cannot read {}: {why}", shader.display()));
            return report;
        }
    };
    let mutants = generate(&original.source, &original.contract);
    // A composed shader's mutant is its composed text as one file, a GLSL or SPIR-V shader's the
    // WGSL naga writes from it (what the GPU runs, so every edit lands on code that runs), held
    // to the profile of that text.
    let mutant_profile = match original
        .profile
        .as_deref()
        .map(crate::profile::Profile::load)
    {
        Some(Ok(p)) => Some(p.of_its_wgsl()),
        Some(Err(e)) => {
            report.baseline_failures.push(e.to_string());
            return report;
        }
        None => None,
    };
    // One folder per shader: two campaigns at once (the sensitivity tests run side by side) share
    // mutant ids such as `view_transform-2` and would remove each other's files.
    let stem = shader.file_stem().unwrap_or("shader".as_ref());
    let scratch = root.join("target").join("mutants").join(stem);
    // Job 0 is the original shader; then each valid mutant.
    let mut jobs: Vec<(String, PathBuf)> = vec![("original".into(), shader.to_path_buf())];
    for m in &mutants {
        if m.verdict == Verdict::Valid {
            let dir = scratch.join(&m.id);
            let _ = std::fs::remove_dir_all(&dir);
            // The original's file name (as WGSL: `.wgsl` for a GLSL or SPIR-V shader), with its
            // profile beside it: the mutant is held to the original's layout.
            let path = dir.join(shader.file_name().unwrap_or("mutant.wgsl".as_ref()));
            let path = match crate::foreign::Form::of(&path) {
                Ok(crate::foreign::Form::Wgsl) => path,
                _ => path.with_extension("wgsl"),
            };
            let written = std::fs::create_dir_all(&dir)
                .and_then(|_| std::fs::write(&path, &m.source))
                .and_then(|_| match &mutant_profile {
                    Some(text) => std::fs::write(crate::profile::beside(&path), text),
                    None => Ok(()),
                });
            if let Err(e) = written {
                report
                    .baseline_failures
                    .push(format!("cannot write {}: {e}", path.display()));
                return report;
            }
            jobs.push((m.id.clone(), path));
        }
    }
    let results: Mutex<Vec<Option<SuiteRun>>> = Mutex::new((0..jobs.len()).map(|_| None).collect());
    // The original first, on fresh devices; the mutants then share those devices.
    let (original, base) = run_suite(
        root,
        &jobs[0].1,
        profile,
        &scratch.join("original").join("reports"),
        None,
    );
    results.lock().unwrap_or_else(|p| p.into_inner())[0] = Some(original);
    let next = AtomicUsize::new(1);
    std::thread::scope(|s| {
        for _ in 0..parallel.clamp(1, jobs.len().max(1)) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some((id, path)) = jobs.get(i) else {
                    break;
                };
                let (run, _) = run_suite(
                    root,
                    path,
                    None,
                    &scratch.join(id).join("reports"),
                    base.as_ref(),
                );
                results.lock().unwrap_or_else(|p| p.into_inner())[i] = Some(run);
            });
        }
    });
    let mut runs: HashMap<String, SuiteRun> = jobs
        .iter()
        .map(|(id, _)| id.clone())
        .zip(results.into_inner().unwrap_or_else(|p| p.into_inner()))
        .filter_map(|(id, r)| r.map(|r| (id, r)))
        .collect();
    let baseline = runs.remove("original");
    let baseline_failed: BTreeSet<String> = baseline
        .as_ref()
        .map(|b| b.failures.iter().map(|k| k.to_string()).collect())
        .unwrap_or_default();
    if let Some(b) = &baseline {
        report.adapters = b.adapters.clone();
        report.no_adapter = b.no_adapter.clone();
        report.baseline_failures = baseline_failed.iter().cloned().collect();
    }
    for m in mutants {
        let mut result = MutantResult {
            status: match m.verdict {
                Verdict::Valid => Status::NotRun,
                Verdict::Invalid(_) => Status::Invalid,
                Verdict::Equivalent(_) => Status::Equivalent,
            },
            killed_on: Vec::new(),
            killed_by: Vec::new(),
            seconds: 0.0,
            mutant: m.into(),
        };
        if let Some(run) = runs.remove(&result.mutant.id) {
            result.seconds = run.seconds;
            let new: Vec<&Kill> = run
                .failures
                .iter()
                .filter(|k| !baseline_failed.contains(&k.to_string()))
                .collect();
            let mut kept: HashMap<&str, usize> = HashMap::new();
            for k in &new {
                let n = kept.entry(k.adapter.as_str()).or_default();
                if *n < KILLS_KEPT {
                    *n += 1;
                    result.killed_by.push((*k).clone());
                }
            }
            result.killed_on = report
                .adapters
                .iter()
                .filter(|a| run.invalid || new.iter().any(|k| &k.adapter == *a))
                .cloned()
                .collect();
            let killed = run.invalid || !new.is_empty();
            if report.adapters.is_empty() && !killed {
                // Nothing could judge it.
                result.status = Status::NotRun;
            } else {
                result.status = if killed {
                    Status::Killed
                } else {
                    Status::Survived
                };
            }
        }
        report.mutants.push(result);
    }
    report.wall_s = start.elapsed().as_secs_f64();
    report
}
