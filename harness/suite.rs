//! Discovery -> trials: one naga trial, one load trial per case file, the checks per (case, adapter).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use libtest_mimic::{Failed, Trial};

/// A trial's body: Ok, or the message that explains the failure.
pub type Body = Box<dyn FnOnce() -> Result<(), String> + Send>;

/// One named trial, runnable by libtest-mimic or directly.
pub struct Job {
    pub name: String,
    pub ignored: bool,
    pub body: Body,
}

impl Job {
    fn new(
        name: impl Into<String>,
        body: impl FnOnce() -> Result<(), String> + Send + 'static,
    ) -> Job {
        Job {
            name: name.into(),
            ignored: false,
            body: Box::new(body),
        }
    }

    fn ignored(mut self, ignored: bool) -> Job {
        self.ignored = ignored;
        self
    }
}

use crate::case::{Case, CaseError};
use crate::check::{Check, Input, Outcome, Status};
use crate::config::{Config, Require};
use crate::gpu::{self, Context, Found, GpuError};
use crate::report::{Benchmarks, CaseProblem, Report, Row, Timing};
use crate::run::Run;
use crate::shader::Shader;

/// An adapter and its context, created on first use and then shared by every trial on it.
struct Slot {
    found: Found,
    ctx: OnceLock<Result<Context, GpuError>>,
}

impl Slot {
    /// The adapter's device and pipelines, created by the first caller; the setup time is reported.
    fn context(
        &self,
        shader: &Result<Shader, String>,
        timeout: Duration,
        report: &Mutex<Report>,
    ) -> &Result<Context, GpuError> {
        self.ctx.get_or_init(|| {
            let shader = shader.clone().map_err(GpuError::Pipeline)?;
            let start = Instant::now();
            let ctx = Context::new(
                &self.found.adapter,
                self.found.info.clone(),
                &shader,
                timeout,
            );
            lock(report).timings.push(Timing {
                what: "device and pipelines".into(),
                adapter: self.found.info.tag.clone(),
                ms: start.elapsed().as_secs_f64() * 1e3,
            });
            ctx
        })
    }
}

/// Everything discovered before the trials run, and the report they fill.
pub struct Suite {
    config: Config,
    shader: Result<Shader, String>,
    cases: Vec<(PathBuf, Result<Arc<Case>, String>)>,
    slots: Vec<Arc<Slot>>,
    pub report: Arc<Mutex<Report>>,
    // Keeps the adapters' instance alive for the whole run.
    _instance: Option<wgpu::Instance>,
    /// Why there is no adapter, when there is none.
    pub no_adapter: Option<String>,
}

/// Every `*.yaml` in `dir`, sorted by name.
pub fn case_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("{}: cannot list cases: {e}", dir.display()))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "yaml" || x == "yml"))
        .collect();
    files.sort();
    Ok(files)
}

const INSTALL_HINT: &str = "no GPU adapter found: GPU trials are ignored. On Debian/Ubuntu `sudo apt-get install mesa-vulkan-drivers libegl-mesa0 libgl1-mesa-dri` gives the software adapters (lavapipe, llvmpipe); set SKINPROOF_REQUIRE_ADAPTER=1 to make a missing adapter fail";

impl Suite {
    /// Reads the shader, the case files and the adapters. Nothing touches a device yet.
    pub fn discover(config: Config) -> Suite {
        let shader = Shader::load(&config.shader).map_err(|e| e.to_string());
        let cases = match case_files(&config.cases) {
            Ok(files) => files
                .into_iter()
                .map(|p| {
                    let case = Case::load(&relative(&config.root, &p))
                        .map(Arc::new)
                        .map_err(|e: CaseError| e.to_string());
                    (p, case)
                })
                .collect(),
            Err(e) => vec![(config.cases.clone(), Err(e))],
        };
        let generated = (0..config.extra_cases).map(|i| {
            let case = Case::generated(i);
            (
                PathBuf::from(format!("{}.yaml", case.name)),
                Ok(Arc::new(case)),
            )
        });
        let cases: Vec<_> = cases.into_iter().chain(generated).collect();
        let (instance, slots, no_adapter) = match gpu::Selection::from_env() {
            Ok(selection) => {
                let instance = gpu::adapter::instance(&selection);
                let slots: Vec<Arc<Slot>> = gpu::discover(&instance, &selection)
                    .into_iter()
                    .map(|found| {
                        Arc::new(Slot {
                            found,
                            ctx: OnceLock::new(),
                        })
                    })
                    .collect();
                let none = slots.is_empty().then(|| INSTALL_HINT.to_string());
                (Some(instance), slots, none)
            }
            Err(e) => (None, Vec::new(), Some(e)),
        };
        let report = Report {
            shader: relative(&config.root, &config.shader).display().to_string(),
            adapters: slots.iter().map(|s| s.found.info.clone()).collect(),
            cases: cases
                .iter()
                .filter_map(|(_, c)| {
                    c.as_ref()
                        .ok()
                        .map(|c| (c.name.clone(), c.description.clone()))
                })
                .collect(),
            case_problems: cases
                .iter()
                .filter_map(|(p, c)| {
                    c.as_ref().err().map(|m| CaseProblem {
                        file: relative(&config.root, p).display().to_string(),
                        message: m.clone(),
                    })
                })
                .collect(),
            ..Default::default()
        };
        Suite {
            config,
            shader,
            cases,
            slots,
            report: Arc::new(Mutex::new(report)),
            _instance: instance,
            no_adapter,
        }
    }

    /// All trials, named `<case>::<check> [<backend>/<adapter>]` so libtest filters select them.
    pub fn trials(&self) -> Vec<Trial> {
        self.jobs()
            .into_iter()
            .map(|job| {
                let body = job.body;
                Trial::test(job.name, move || body().map_err(Failed::from))
                    .with_ignored_flag(job.ignored)
            })
            .collect()
    }

    /// Runs every job that is not ignored on this thread, one after another.
    pub fn run_all(&self) {
        for job in self.jobs() {
            if !job.ignored {
                let _ = (job.body)();
            }
        }
    }

    /// The trials' names and bodies.
    pub fn jobs(&self) -> Vec<Job> {
        let mut trials = vec![self.validation_trial(), self.adapter_trial()];
        for (path, case) in &self.cases {
            let stem = path
                .file_stem()
                .map_or("cases".into(), |s| s.to_string_lossy().into_owned());
            let loaded = case.clone().map(|_| ());
            trials.push(Job::new(format!("{stem}::case_loads"), move || loaded));
            let Ok(case) = case else { continue };
            if self.slots.is_empty() {
                // Required adapters make these fail; otherwise they are listed as ignored.
                let reason = self.no_adapter.clone().unwrap_or_default();
                let required = self.config.require != Require::Nothing;
                trials.push(
                    Job::new(format!("{stem}::gpu_checks [no adapter]"), move || {
                        Err(reason)
                    })
                    .ignored(!required),
                );
            }
            for slot in &self.slots {
                let run: Arc<OnceLock<Run>> = Arc::new(OnceLock::new());
                for check in Check::ALL {
                    trials.push(self.check_trial(case.clone(), slot.clone(), run.clone(), check));
                }
            }
        }
        trials
    }

    fn validation_trial(&self) -> Job {
        let shader = self.shader.clone();
        let report = self.report.clone();
        Job::new("shader::validates", move || {
            let result = shader.and_then(|s| s.validate().map(|_| ()).map_err(|e| e.to_string()));
            let outcome = match &result {
                Ok(()) => Outcome {
                    status: Status::Pass,
                    figure: "0 errors".into(),
                    message: String::new(),
                },
                Err(m) => Outcome {
                    status: Status::Fail,
                    figure: "1 error".into(),
                    message: m.clone(),
                },
            };
            lock(&report).validation = Some(outcome);
            result
        })
    }

    fn adapter_trial(&self) -> Job {
        let found: Vec<String> = self
            .slots
            .iter()
            .map(|s| s.found.info.backend.clone())
            .collect();
        let require = self.config.require.clone();
        let reason = self.no_adapter.clone();
        let trial = Job::new("adapters::present", move || match require {
            Require::Nothing | Require::Any if !found.is_empty() => Ok(()),
            Require::Backends(want) => {
                let missing: Vec<&String> = want.iter().filter(|b| !found.contains(b)).collect();
                if missing.is_empty() {
                    Ok(())
                } else {
                    Err(format!("SKINPROOF_REQUIRE_ADAPTER wants an adapter on {missing:?}; found only {found:?}. {}", reason.unwrap_or_default()))
                }
            }
            _ => Err(reason.unwrap_or_else(|| "no adapter".into())),
        });
        trial.ignored(self.slots.is_empty() && self.config.require == Require::Nothing)
    }

    fn check_trial(
        &self,
        case: Arc<Case>,
        slot: Arc<Slot>,
        run: Arc<OnceLock<Run>>,
        check: Check,
    ) -> Job {
        let name = format!("{}::{} [{}]", case.name, check.name(), slot.found.info.tag);
        let report = self.report.clone();
        let shader = self.shader.clone();
        let root = self.config.root.clone();
        let reports = self.config.reports.clone();
        let (timeout, bless) = (self.config.timeout, self.config.bless);
        Job::new(name, move || {
            let tag = slot.found.info.tag.clone();
            let ctx = slot.context(&shader, timeout, &report);
            let outcome = match ctx {
                Err(e) => Outcome {
                    status: Status::Fail,
                    figure: "-".into(),
                    message: format!("harness: {e}"),
                },
                Ok(ctx) => {
                    let run = run.get_or_init(|| {
                        let start = Instant::now();
                        let run = Run::execute(ctx, &case);
                        lock(&report).timings.push(Timing {
                            what: case.name.clone(),
                            adapter: tag.clone(),
                            ms: start.elapsed().as_secs_f64() * 1e3,
                        });
                        run
                    });
                    let input = Input {
                        root: &root,
                        reports: &reports,
                        case: &case,
                        ctx,
                        run,
                        bless,
                    };
                    // A panic in a check is a harness bug; it must still become a row.
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check.run(&input)))
                        .unwrap_or_else(|p| Outcome {
                            status: Status::Fail,
                            figure: "-".into(),
                            message: format!("harness panicked: {}", panic_text(&p)),
                        })
                }
            };
            let failed = matches!(outcome.status, Status::Fail | Status::Timeout);
            let message = format!(
                "case `{}` ({}): {} on {tag}\n  check: {}\n  {}",
                case.name,
                if case.description.is_empty() {
                    "no description"
                } else {
                    case.description.trim()
                },
                outcome.status,
                check.title(),
                outcome.message
            );
            lock(&report).rows.push(Row {
                case: case.name.clone(),
                adapter: tag,
                check: check.name().into(),
                outcome,
            });
            if failed {
                Err(message)
            } else {
                Ok(())
            }
        })
    }
}

impl Suite {
    /// Runs the benchmarks (never pass/fail) on the CPU and on every adapter, into the report.
    pub fn benchmark(&self) {
        let mode = self.config.bench.clone();
        if mode == "off" {
            return;
        }
        let (sizes, reps): (&[usize], usize) = if mode == "full" {
            (&[10_000, 200_000, 2_000_000], 15)
        } else {
            (&[10_000, 200_000], 5)
        };
        let mut bench = Benchmarks {
            mode,
            ..Default::default()
        };
        for slot in &self.slots {
            let tag = &slot.found.info.tag;
            match slot.context(&self.shader, self.config.timeout, &self.report) {
                Ok(ctx) => match crate::gpu::timing::run(ctx, sizes, reps) {
                    Ok(g) => bench.gpu.push(g),
                    Err(e) => bench.gpu_errors.push(format!("{tag}: {e}")),
                },
                Err(e) => bench.gpu_errors.push(format!("{tag}: {e}")),
            }
        }
        lock(&self.report).benchmarks = Some(bench);
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn panic_text(p: &Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "unknown panic".into())
}

/// `path` relative to `root` when it lies below it, for shorter messages.
fn relative(root: &Path, path: &Path) -> PathBuf {
    path.strip_prefix(root)
        .map(Path::to_path_buf)
        .unwrap_or_else(|_| path.to_path_buf())
}
