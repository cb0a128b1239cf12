//! Discovery -> trials (naga, case loads, checks per case and adapter, properties) -> the report they fill.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use libtest_mimic::{Failed, Trial};

use crate::case::{Case, CaseError, Expected};
use crate::check::{Check, Input, Outcome, Status};
use crate::config::{Config, Require};
use crate::golden::{Goldens, Settings as GoldenSettings};
use crate::gpu::worker::on_device;
use crate::gpu::{self, Context, Found, GpuError};
use crate::profile::{ShaderExpect, SHADER_CHECKS, SHADER_TRIALS};
use crate::report::{CaseProblem, CompilerRow, Report, Row, Timing};
use crate::run::{Devices, Run};
use crate::scene::{Counts, Scene, SceneError};
use crate::shader::{Shader, ShaderError};

/// A trial's body: Ok, or the message that explains the failure.
pub type Body = Box<dyn FnOnce() -> Result<(), String> + Send>;

/// One named trial, runnable by libtest-mimic or directly.
pub struct Job {
    pub name: String,
    pub ignored: bool,
    /// A compiler trial (`shader::translates`): no row of the PASS table depends on it.
    pub compiler: bool,
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
            compiler: false,
            body: Box::new(body),
        }
    }

    fn ignored(mut self, ignored: bool) -> Job {
        self.ignored = ignored;
        self
    }
}

/// A case's scene, built by the first trial that needs it and shared by every adapter's, and its
/// counts for the layout's `expect` entries, counted once.
#[derive(Default)]
struct SceneSlot {
    scene: OnceLock<Result<Arc<Scene>, SceneError>>,
    counts: OnceLock<Counts>,
}

impl SceneSlot {
    /// The case's scene as a shader that `reads` sees it.
    fn get(&self, case: &Case, reads: &crate::format::Reads) -> &Result<Arc<Scene>, SceneError> {
        (self.scene).get_or_init(|| Scene::for_shader(case, reads).map(Arc::new))
    }

    /// The case's counts: its scene's where it was built, else its skeleton's or model's alone
    /// (a 4-influence model under a shader that reads 3 is refused, and still counted; a trial
    /// that never reached its scene, as one on an adapter without a device, builds none here).
    fn counts(&self, case: &Case, reads: &crate::format::Reads) -> Counts {
        *self.counts.get_or_init(|| match self.scene.get() {
            Some(Ok(scene)) => scene.counts(),
            _ => Scene::counts_alone(case, reads.most()),
        })
    }
}

/// What the trials of one (case, adapter) share.
struct Shared {
    case: Arc<Case>,
    scene: Arc<SceneSlot>,
    slot: Arc<Slot>,
    run: Arc<OnceLock<Run>>,
}

/// An adapter and its context, created on first use and then shared by every trial on it.
struct Slot {
    found: Found,
    /// The adapter's context; replaced when its device is lost or abandoned, so later trials get
    /// a fresh one.
    ctx: Mutex<Option<Result<Arc<Context>, GpuError>>>,
    /// Why each device of this adapter was abandoned; none of them is ever released.
    abandoned: Mutex<Vec<String>>,
}

/// How many devices of one adapter may be abandoned before its remaining work is not run: each
/// leaves a thread in the driver (on a software adapter, one that keeps a core busy).
const MAX_ABANDONED: usize = 3;

impl Slot {
    fn new(found: Found, ctx: Option<Result<Arc<Context>, GpuError>>) -> Slot {
        Slot {
            found,
            ctx: Mutex::new(ctx),
            abandoned: Mutex::new(Vec::new()),
        }
    }

    /// The adapter's device and pipelines, created by the first caller (and again after a device
    /// loss or abandonment); the setup time is reported.
    fn context(
        &self,
        shader: &Result<Shader, String>,
        timeout: Duration,
        report: &Mutex<Report>,
    ) -> Result<Arc<Context>, GpuError> {
        let mut slot = lock(&self.ctx);
        if let Some(Ok(ctx)) = slot.as_ref() {
            if ctx.is_lost() {
                eprintln!(
                    "skinproof: the device of {} was lost; creating a new one",
                    self.found.info.tag
                );
                *slot = None;
            } else if let Some(why) = ctx.abandoned() {
                *slot = self.give_up(slot.take(), why);
            }
        }
        slot.get_or_insert_with(|| {
            let shader = shader.clone().map_err(|e| not_loaded(&e))?;
            let start = Instant::now();
            let replaces = lock(&self.abandoned).len();
            let ctx = self.adapter().and_then(|adapter| {
                Context::new(&adapter, self.found.info.clone(), &shader, timeout)
            });
            let ctx = ctx.map(|mut ctx| {
                ctx.replaces = replaces;
                ctx
            });
            lock(report).timings.push(Timing {
                what: "device and pipelines".into(),
                adapter: self.found.info.tag.clone(),
                ms: start.elapsed().as_secs_f64() * 1e3,
            });
            ctx.map(Arc::new)
        })
        .clone()
    }

    /// The adapter for a new device: the one found, or after an abandonment the same adapter
    /// from a new instance, which shares nothing with the abandoned device.
    fn adapter(&self) -> Result<wgpu::Adapter, GpuError> {
        if lock(&self.abandoned).is_empty() {
            return Ok(self.found.adapter.clone());
        }
        gpu::adapter::again(&self.found.adapter).ok_or_else(|| {
            GpuError::Device(format!(
                "{} was not found again for a fresh device after its device was abandoned",
                self.found.info.tag
            ))
        })
    }

    /// Records the abandoned device `old` and leaves it unreleased (its thread may be inside the
    /// driver for good); past `MAX_ABANDONED` the adapter's remaining work is not run.
    fn give_up(
        &self,
        old: Option<Result<Arc<Context>, GpuError>>,
        why: String,
    ) -> Option<Result<Arc<Context>, GpuError>> {
        std::mem::forget(old);
        let tag = &self.found.info.tag;
        let mut gone = lock(&self.abandoned);
        gone.push(why.clone());
        eprintln!("skinproof: the device of {tag} was abandoned: {why}; its thread is left in the driver and later trials get a new device");
        (gone.len() >= MAX_ABANDONED).then(|| {
            Err(GpuError::Abandoned(format!(
                "{} devices of {tag} were abandoned, the last as {why}; no more are made on it, since a fresh device that hangs too says the driver is still busy with the abandoned work",
                gone.len()
            )))
        })
    }

    /// Every device of this adapter abandoned so far, with why.
    fn abandoned(&self) -> Vec<crate::report::Abandoned> {
        let mut why = lock(&self.abandoned).clone();
        if let Some(Ok(ctx)) = lock(&self.ctx).as_ref() {
            why.extend(ctx.abandoned());
        }
        why.into_iter()
            .map(|why| crate::report::Abandoned {
                adapter: self.found.info.tag.clone(),
                why,
            })
            .collect()
    }
}

impl Drop for Slot {
    /// An abandoned device is not released: its queue would wait for work that may never end.
    fn drop(&mut self) {
        let ctx = self.ctx.get_mut().unwrap_or_else(|p| p.into_inner()).take();
        if matches!(&ctx, Some(Ok(c)) if c.abandoned().is_some()) {
            std::mem::forget(ctx);
        }
    }
}

pub use crate::property::PROPERTIES;

/// Everything discovered before the trials run, and the report they fill.
pub struct Suite {
    config: Config,
    shader: Result<Shader, String>,
    cases: Vec<(PathBuf, Result<Arc<Case>, String>)>,
    slots: Vec<Arc<Slot>>,
    pub report: Arc<Mutex<Report>>,
    /// The golden folder and what this run may write there, shared by the golden checks.
    goldens: Arc<Goldens>,
    // Keeps the adapters' instance alive for the whole run.
    instance: Option<wgpu::Instance>,
    /// Why there is no adapter, when there is none.
    pub no_adapter: Option<String>,
    /// Bytes in Mesa's shader cache before any pipeline was built, to tell a cold cache.
    cache_before: Option<u64>,
    /// Case name -> why its golden clashes with another case's (fails its `case_loads`).
    shared_goldens: std::collections::BTreeMap<String, String>,
    /// `shader::validates`, run once by the first trial that needs it.
    validated: Arc<OnceLock<Validated>>,
}

/// The shader's validation: `Ok`, or naga's or the contract's message, and where the contract is
/// what the shader breaks, those violations alone (the trials that then fail point at them).
#[derive(Clone)]
struct Validated {
    result: Result<(), String>,
    broken: Option<String>,
}

impl Validated {
    fn of(shader: &Result<Shader, String>) -> Validated {
        let shader = match shader {
            Ok(shader) => shader,
            Err(e) => return Validated::failed(e.clone(), None),
        };
        match shader.validate() {
            Ok(_) => Validated {
                result: Ok(()),
                broken: None,
            },
            Err(e) => {
                // The contract's message's first line: its violations, without naga's diagnostic.
                let broken = match &e {
                    ShaderError::Contract { message, .. } => {
                        message.lines().next().map(str::to_string)
                    }
                    _ => None,
                };
                Validated::failed(e.to_string(), broken)
            }
        }
    }

    fn failed(message: String, broken: Option<String>) -> Validated {
        Validated {
            result: Err(message),
            broken,
        }
    }

    /// `outcome`, where it failed and the shader breaks its contract, with a line saying so: a
    /// binding or field laid out off the shader's own makes every number wrong, and the
    /// violation, not the numbers, says what broke.
    fn explain(&self, outcome: Outcome) -> Outcome {
        match &self.broken {
            Some(broken) if outcome.status == Status::Fail => Outcome {
                message: format!(
                    "{}\n  the shader breaks its contract (shader::validates), which this failure may follow from: {broken}",
                    outcome.message
                ),
                ..outcome
            },
            _ => outcome,
        }
    }
}

/// Every `*.yaml` or `*.yml` in `dir` (the extension in any case: `bend.YAML` is a case too),
/// sorted by name; a folder with none is an error, since a run of no case tests nothing.
pub fn case_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("{}: cannot list cases: {e}", dir.display()))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension()
                .is_some_and(|x| x.eq_ignore_ascii_case("yaml") || x.eq_ignore_ascii_case("yml"))
        })
        .collect();
    if files.is_empty() {
        return Err(format!(
            "{}: no case files (*.yaml or *.yml) in this folder: a run with no case tests nothing",
            dir.display()
        ));
    }
    files.sort();
    Ok(files)
}

/// The name each case file's trials go by: its stem, or, for a later file whose stem an earlier
/// one took (`bend.yml` after `bend.yaml`), its whole file name, so that trial names stay unique.
fn trial_names<'a>(paths: impl IntoIterator<Item = &'a Path>) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    paths
        .into_iter()
        .map(|p| {
            let stem = p
                .file_stem()
                .map_or("cases".into(), |s| s.to_string_lossy().into_owned());
            if seen.insert(stem.clone()) {
                stem
            } else {
                p.file_name()
                    .map_or(stem, |s| s.to_string_lossy().into_owned())
            }
        })
        .collect()
}

/// Case files whose names collide (`bend.yaml` and `bend.yml`): the first keeps the name, each
/// later one becomes an error naming both, since the name also picks trials and the golden.
fn refuse_duplicate_names(
    mut cases: Vec<(PathBuf, Result<Arc<Case>, String>)>,
    root: &Path,
) -> Vec<(PathBuf, Result<Arc<Case>, String>)> {
    let names = trial_names(cases.iter().map(|(p, _)| p.as_path()));
    for (i, name) in names.iter().enumerate() {
        let (p, _) = &cases[i];
        let stem = p.file_stem().map(|s| s.to_string_lossy().into_owned());
        if stem.as_deref().is_none_or(|s| s == name) {
            continue;
        }
        let Some((taken, _)) = cases[..i]
            .iter()
            .find(|(q, _)| q.file_stem() == p.file_stem())
        else {
            continue;
        };
        let message = format!(
            "{}: the case name `{}` is taken by {}; a case's name is its file name, so rename one of them",
            relative(root, p).display(),
            stem.unwrap_or_default(),
            relative(root, taken).display()
        );
        cases[i].1 = Err(message);
    }
    cases
}

const INSTALL_HINT: &str = "no GPU adapter found: GPU trials are ignored. On Debian/Ubuntu `sudo apt-get install mesa-vulkan-drivers libegl-mesa0 libgl1-mesa-dri` gives the software adapters (lavapipe, llvmpipe); set SKINPROOF_REQUIRE_ADAPTER=1 to make a missing adapter fail";

impl Suite {
    /// Reads the shader, the case files and the adapters. Nothing touches a device yet.
    pub fn discover(config: Config) -> Suite {
        let (instance, slots, no_adapter) = match gpu::Selection::from_env() {
            Ok(selection) => {
                let instance = gpu::adapter::instance(&selection);
                let slots: Vec<Arc<Slot>> = gpu::discover(&instance, &selection)
                    .into_iter()
                    .map(|found| Arc::new(Slot::new(found, None)))
                    .collect();
                let none = slots.is_empty().then(|| INSTALL_HINT.to_string());
                (Some(instance), slots, none)
            }
            Err(e) => (None, Vec::new(), Some(e.to_string())),
        };
        let shader =
            Shader::load(&config.shader, config.profile.as_deref()).map_err(|e| e.to_string());
        Suite {
            // Read before any pipeline exists, so a cold cache shows as growth.
            cache_before: crate::gpu::timing::mesa_cache_bytes(),
            ..Self::assemble(config, shader, instance, slots, no_adapter)
        }
    }

    /// A suite for another shader (`config.shader`) on the devices of `base`: new pipelines, the
    /// same adapters, devices and buffer pools. How the mutation check runs many shaders cheaply.
    pub fn sharing(config: Config, base: &Suite) -> Suite {
        let shader =
            Shader::load(&config.shader, config.profile.as_deref()).map_err(|e| e.to_string());
        let slots = base
            .slots
            .iter()
            .map(|slot| {
                let ctx = slot
                    .context(&base.shader, base.config.timeout, &base.report)
                    .and_then(|ctx| match &shader {
                        Ok(s) => ctx.with_shader(s).map(Arc::new),
                        Err(e) => Err(not_loaded(e)),
                    });
                Arc::new(Slot::new(
                    Found {
                        info: slot.found.info.clone(),
                        adapter: slot.found.adapter.clone(),
                    },
                    Some(ctx),
                ))
            })
            .collect();
        Self::assemble(
            config,
            shader,
            base.instance.clone(),
            slots,
            base.no_adapter.clone(),
        )
    }

    fn assemble(
        config: Config,
        shader: Result<Shader, String>,
        instance: Option<wgpu::Instance>,
        slots: Vec<Arc<Slot>>,
        no_adapter: Option<String>,
    ) -> Suite {
        let checks = Check::ALL.map(Check::name);
        let cases = match case_files(&config.cases) {
            Ok(files) => files
                .into_iter()
                .map(|p| {
                    let case = Case::load(&relative(&config.root, &p), &checks)
                        .map(Arc::new)
                        .map_err(|e: CaseError| e.to_string());
                    (p, case)
                })
                .collect(),
            Err(e) => vec![(config.cases.clone(), Err(e))],
        };
        let cases = refuse_duplicate_names(cases, &config.root);
        let generated = (0..config.extra_cases).map(|i| {
            let case = Case::generated(i);
            (
                PathBuf::from(format!("{}.yaml", case.name)),
                Ok(Arc::new(case)),
            )
        });
        let cases: Vec<_> = cases.into_iter().chain(generated).collect();
        let loaded: Vec<&Case> = cases
            .iter()
            .filter_map(|(_, c)| c.as_ref().ok().map(|c| c.as_ref()))
            .collect();
        let shared_goldens = crate::usage::shared(&loaded);
        // Only the default cases folder speaks for the golden folder as a whole.
        let unused_goldens = if config.cases == config.root.join("cases") {
            let unreadable: Vec<String> = cases
                .iter()
                .filter(|(_, c)| c.is_err())
                .filter_map(|(p, _)| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
                .collect();
            crate::usage::unused(&config.goldens, &loaded, &unreadable)
        } else {
            Vec::new()
        };
        let shader_sha256 = shader
            .as_ref()
            .map(|s| crate::golden::sha256(s.provenance().as_bytes()))
            .unwrap_or_default();
        let report = Report {
            unused_goldens,
            shader_sha256: shader_sha256.clone(),
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
                .chain(shared_goldens.iter().map(|(name, why)| {
                    CaseProblem {
                        file: loaded
                            .iter()
                            .find(|c| &c.name == name)
                            .map_or(name.clone(), |c| c.path.display().to_string()),
                        message: why.clone(),
                    }
                }))
                .collect(),
            ..Default::default()
        };
        Suite {
            shared_goldens,
            validated: Arc::new(OnceLock::new()),
            goldens: Arc::new(Goldens::new(GoldenSettings {
                root: config.root.clone(),
                dir: config.goldens.clone(),
                reports: config.reports.clone(),
                bless: config.bless,
                shader_sha256,
                rerun_env: config.rerun_env(),
            })),
            config,
            shader,
            cases,
            slots,
            report: Arc::new(Mutex::new(report)),
            instance,
            no_adapter,
            cache_before: None,
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

    /// Runs every job that is not ignored on this thread, one after another; the compiler trials
    /// are left out, since the mutation check that runs suites this way judges only the rows.
    pub fn run_all(&self) {
        for job in self.jobs() {
            if !job.ignored && !job.compiler {
                let _ = (job.body)();
            }
        }
    }

    /// What the shader reads of each vertex, which each case's scene is built for.
    fn reads(&self) -> crate::format::Reads {
        self.shader
            .as_ref()
            .map(|s| s.contract.reads())
            .unwrap_or_default()
    }

    /// The trials' names and bodies.
    pub fn jobs(&self) -> Vec<Job> {
        let mut trials = vec![self.validation_trial(), self.adapter_trial()];
        trials.extend(self.compiler_trials());
        trials.extend(self.expectation_trial());
        let names = trial_names(self.cases.iter().map(|(p, _)| p.as_path()));
        for ((_, case), stem) in self.cases.iter().zip(names) {
            // The scene (CPU side) is built once per case and shared by every adapter.
            let scene: Arc<SceneSlot> = Arc::default();
            let loads = {
                let (case, scene, reads) = (case.clone(), scene.clone(), self.reads());
                let shared = case
                    .as_ref()
                    .ok()
                    .and_then(|c| self.shared_goldens.get(&c.name).cloned());
                let layout = case
                    .as_ref()
                    .map(|c| self.layout_expectations(&c.name, "case_loads"))
                    .unwrap_or_default();
                // Building the scene is part of loading: a broken model, and the case fields only
                // checkable against it (a clip, a joint, a pose that overflows f32), fail here too.
                move || {
                    let case = case?;
                    let verdict = match scene.get(&case, &reads) {
                        Err(SceneError::Fail(why)) => Err(why.clone()),
                        _ => shared.map_or(Ok(()), Err),
                    };
                    let failure = verdict.as_ref().err().map(String::as_str);
                    let Some(e) = applying(&layout, &case, &scene, (&reads, failure)) else {
                        return verdict;
                    };
                    let outcome = match verdict {
                        Ok(()) => Outcome::pass("-"),
                        Err(why) => Outcome::fail("-", why),
                    };
                    let outcome = outcome.expected_by_layout(&e.matches, &e.reason, &e.at);
                    match outcome.status.fails() {
                        true => Err(outcome.message),
                        false => Ok(()),
                    }
                }
            };
            trials.push(Job::new(format!("{stem}::case_loads"), loads));
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
                    let shared = Shared {
                        case: case.clone(),
                        scene: scene.clone(),
                        slot: slot.clone(),
                        run: run.clone(),
                    };
                    trials.push(self.check_trial(shared, check));
                }
            }
        }
        for slot in &self.slots {
            for (name, property) in crate::property::ALL {
                trials.push(self.property_trial(slot.clone(), name, property));
            }
        }
        trials
    }

    /// A property of the shader on one adapter (see `property.rs`), reported as case `properties`.
    fn property_trial(
        &self,
        slot: Arc<Slot>,
        name: &'static str,
        property: crate::property::Property,
    ) -> Job {
        let report = self.report.clone();
        let shader = self.shader.clone();
        let validated = self.validated.clone();
        let timeout = self.config.timeout;
        Job::new(
            format!("properties::{name} [{}]", slot.found.info.tag),
            move || {
                let devices = || slot.context(&shader, timeout, &report);
                let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    match on_device(&devices, &format!("the property {name}"), property) {
                        Ok(outcome) => outcome,
                        Err(e) if e.is_timeout() => Outcome::gpu(&e),
                        Err(e) => Outcome::fail("-", format!("harness: {e}")),
                    }
                }))
                .unwrap_or_else(|p| {
                    Outcome::fail("-", format!("harness panicked: {}", panic_text(&p)))
                });
                let outcome = validated
                    .get_or_init(|| Validated::of(&shader))
                    .explain(outcome);
                let failed = outcome.status.fails();
                let message = format!(
                    "property `{name}`: {} on {}\n  {}",
                    outcome.status, slot.found.info.tag, outcome.message
                );
                lock(&report).rows.push(Row {
                    case: PROPERTIES.into(),
                    adapter: slot.found.info.tag.clone(),
                    check: name.into(),
                    outcome,
                });
                if failed {
                    Err(message)
                } else {
                    Ok(())
                }
            },
        )
    }

    fn validation_trial(&self) -> Job {
        let (shader, validated) = (self.shader.clone(), self.validated.clone());
        let report = self.report.clone();
        Job::new("shader::validates", move || {
            let result = validated
                .get_or_init(|| Validated::of(&shader))
                .result
                .clone();
            let outcome = match &result {
                Ok(()) => Outcome::pass("0 errors"),
                Err(m) => Outcome::fail("1 error", m.clone()),
            };
            lock(&report).validation = Some(outcome);
            result
        })
    }

    /// The layout profile's entries naming `check` (or `case_loads`) of `case`; the one that
    /// applies waits for the case's joint count ([`applying`]).
    fn layout_expectations(&self, case: &str, check: &str) -> Vec<ShaderExpect> {
        let Ok(shader) = self.shader.as_ref() else {
            return Vec::new();
        };
        (shader.expect.iter())
            .filter(|e| e.covers(case, check))
            .cloned()
            .collect()
    }

    /// `shader::expectations`, where the layout profile states any: each entry names checks that
    /// exist, so that a misspelt one does not silently expect nothing.
    fn expectation_trial(&self) -> Option<Job> {
        let shader = self.shader.as_ref().ok()?;
        if shader.expect.is_empty() {
            return None;
        }
        let cases: Vec<&str> = std::iter::once("case_loads")
            .chain(Check::ALL.iter().map(|c| c.name()))
            .collect();
        // The shader's own trials as `case: shader` names them, after `shader::`.
        let own: Vec<String> = std::iter::once("tint_accepts".to_string())
            .chain(
                crate::translate::entries(&shader.source)
                    .iter()
                    .flat_map(|e| (crate::translate::TARGETS.iter()).map(move |t| e.check(*t))),
            )
            .collect();
        let unknown: Vec<String> = shader
            .expect
            .iter()
            .flat_map(|e| e.checks.iter().map(move |c| (e, c)))
            .filter_map(|(e, c)| {
                let known = match e.case == SHADER_TRIALS {
                    true => own.iter().any(|t| crate::profile::names(c, t)),
                    false => cases.contains(&c.as_str()),
                };
                let of = match e.case == SHADER_TRIALS {
                    true => format!(
                        "with `case: shader`, one of the shader's trials or a pattern naming some: {}",
                        SHADER_CHECKS.join(", ")
                    ),
                    false => format!("expected one of {}", cases.join(", ")),
                };
                (!known).then(|| format!("{}: expect: unknown check `{c}` ({of})", e.at))
            })
            .collect();
        Some(Job::new("shader::expectations", move || {
            match unknown.is_empty() {
                true => Ok(()),
                false => Err(unknown.join("\n")),
            }
        }))
    }

    /// `shader::translates::<entry> [<target>]`: each entry point of the shader (as its team wrote
    /// it, without what the harness adds) through each naga back-end and its validator.
    fn compiler_trials(&self) -> Vec<Job> {
        let Ok(shader) = &self.shader else {
            return Vec::new();
        };
        let validated = Arc::new(crate::translate::Validated::new(
            &shader.source,
            shader.contract.naga_constants(),
        ));
        let mut jobs = Vec::new();
        for entry in crate::translate::entries(&shader.source) {
            for target in crate::translate::TARGETS {
                let (validated, entry) = (validated.clone(), entry.clone());
                let (report, tools) = (self.report.clone(), self.tools());
                let check = entry.check(target);
                // A back-end the engine never targets may be expected to fail (`case: shader`).
                let expect = (shader.expect.iter())
                    .find(|e| e.covers_shader(&check))
                    .cloned();
                let mut job = Job::new(format!("shader::{check}"), move || {
                    let outcome = crate::translate::outcome(&validated, &entry, target, &tools);
                    let outcome = match &expect {
                        Some(e) => outcome.expected_by_layout(&e.matches, &e.reason, &e.at),
                        None => outcome,
                    };
                    let verdict = match outcome.status.fails() {
                        true => Err(outcome.message.clone()),
                        false => Ok(()),
                    };
                    lock(&report).compilers.push(CompilerRow {
                        compiler: target.name().into(),
                        entry: entry.name.clone(),
                        outcome,
                    });
                    verdict
                });
                job.compiler = true;
                jobs.push(job);
            }
        }
        jobs.push(self.tint_trial(shader));
        jobs
    }

    /// What the compiler trials need to run their tools.
    fn tools(&self) -> crate::tools::Tools {
        crate::tools::Tools {
            root: self.config.root.clone(),
            required: self.config.tools.clone(),
            deadline: self.config.timeout,
        }
    }

    /// `shader::tint_accepts`: Tint compiles the module the pipelines are built from (with what
    /// the harness adds) and Dawn builds both pipelines; a row per entry point of the shader.
    fn tint_trial(&self, shader: &Shader) -> Job {
        let (shader, report, tools) = (shader.clone(), self.report.clone(), self.tools());
        let expect = (shader.expect.iter())
            .find(|e| e.covers_shader("tint_accepts"))
            .cloned();
        let mut job = Job::new("shader::tint_accepts", move || {
            let outcomes = crate::tint::outcomes(&shader, &tools);
            let mut failures: Vec<String> = Vec::new();
            for (entry, outcome) in outcomes {
                let outcome = match &expect {
                    Some(e) => outcome.expected_by_layout(&e.matches, &e.reason, &e.at),
                    None => outcome,
                };
                // The module's errors fail both pipelines alike: said once.
                if outcome.status.fails() && !failures.contains(&outcome.message) {
                    failures.push(outcome.message.clone());
                }
                lock(&report).compilers.push(CompilerRow {
                    compiler: "tint".into(),
                    entry,
                    outcome,
                });
            }
            match failures.is_empty() {
                true => Ok(()),
                false => Err(failures.join("\n")),
            }
        });
        job.compiler = true;
        job
    }

    fn adapter_trial(&self) -> Job {
        let found: Vec<String> = self
            .slots
            .iter()
            .map(|s| s.found.info.backend.clone())
            .collect();
        let require = self.config.require.clone();
        let reason = self.no_adapter.clone();
        let report = self.report.clone();
        let trial = Job::new("adapters::present", move || {
            let verdict = match require {
                Require::Nothing | Require::Any if !found.is_empty() => Ok(()),
                Require::Backends(_) => {
                    let missing = require.missing(&found);
                    if missing.is_empty() {
                        Ok(())
                    } else {
                        Err(format!("SKINPROOF_REQUIRE_ADAPTER wants an adapter on {missing:?}; found only {found:?}. {}", reason.unwrap_or_default()))
                    }
                }
                _ => Err(reason.unwrap_or_else(|| "no adapter".into())),
            };
            // In the report too: its rows alone would read green without the missing adapter's.
            if let Err(why) = &verdict {
                lock(&report)
                    .problems
                    .push(format!("adapters::present: {why}"));
            }
            verdict
        });
        trial.ignored(self.slots.is_empty() && self.config.require == Require::Nothing)
    }

    fn check_trial(&self, shared: Shared, check: Check) -> Job {
        let Shared {
            case,
            scene,
            slot,
            run,
        } = shared;
        let name = format!("{}::{} [{}]", case.name, check.name(), slot.found.info.tag);
        let report = self.report.clone();
        let shader = self.shader.clone();
        let reads = self.reads();
        let goldens = self.goldens.clone();
        let timeout = self.config.timeout;
        // A golden two cases share is neither compared nor written: a bless from one case would
        // overwrite the other's.
        let clash = check
            .compares_golden()
            .then(|| self.shared_goldens.get(&case.name).cloned())
            .flatten();
        let layout = self.layout_expectations(&case.name, check.name());
        let validated = self.validated.clone();
        Job::new(name, move || {
            let tag = slot.found.info.tag.clone();
            let expect = case.expectation(check.name(), &slot.found.info);
            let file = case.path.display().to_string();
            // Any panic on the way (device setup, GPU paths, the check) is a harness bug: it must
            // still become a row, and must not take other trials down.
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                match slot.context(&shader, timeout, &report) {
                    _ if clash.is_some() => Outcome::fail(
                        "shared golden",
                        format!(
                            "{}\n  no golden is compared or written until each case has its own",
                            clash.as_deref().unwrap_or_default()
                        ),
                    ),
                    _ if expect.is_some_and(|e| e.status == Expected::Skip) => {
                        Outcome::skip(format!(
                            "expected skip on this adapter: {}",
                            expect.map_or("", |e| e.reason.as_str())
                        ))
                    }
                    Err(e) if e.is_timeout() => Outcome::gpu(&e).expecting(expect, &file),
                    Err(e) => Outcome::fail("-", format!("harness: {e}")),
                    Ok(ctx) => {
                        match scene.get(&case, &reads) {
                            Err(SceneError::Skip(why)) => Outcome::skip(why.clone()),
                            Err(SceneError::Fail(why)) => Outcome::fail("-", why.clone()),
                            Ok(scene) => {
                                let run = run.get_or_init(|| {
                                    let (slot, shader) = (slot.clone(), shader.clone());
                                    let report = report.clone();
                                    let devices: Devices =
                                        Box::new(move || slot.context(&shader, timeout, &report));
                                    Run::new(devices, &case, scene.clone())
                                });
                                let input = Input {
                                    case: &case,
                                    ctx: &ctx,
                                    run,
                                    goldens: &goldens,
                                };
                                let outcome = check.run(&input).expecting(expect, &file);
                                // Once per case and adapter, by the check after both paths ran.
                                if let Some(ms) = run.take_ms() {
                                    lock(&report).timings.push(Timing {
                                        what: case.name.clone(),
                                        adapter: tag.clone(),
                                        ms,
                                    });
                                }
                                outcome
                            }
                        }
                    }
                }
            }))
            .unwrap_or_else(|p| {
                Outcome::fail("-", format!("harness panicked: {}", panic_text(&p)))
            });
            // The shader's own expectation, where the case states none for this check.
            let failure = Some(outcome.message.as_str()).filter(|_| outcome.status.fails());
            let outcome = match applying(&layout, &case, &scene, (&reads, failure)) {
                Some(e) if expect.is_none() => {
                    outcome.expected_by_layout(&e.matches, &e.reason, &e.at)
                }
                _ => outcome,
            };
            let outcome = validated
                .get_or_init(|| Validated::of(&shader))
                .explain(outcome);
            let failed = outcome.status.fails();
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

/// The case's layout entry: of the `entries` that cover its joint count (`joints_above`) and the
/// most influences of one of its vertices (`influences_above`), the first whose `matches` the
/// trial's `failure` contains (a case past both a fixed palette and the influences read fails on
/// the palette, whichever entry comes first), else the first.
fn applying<'a>(
    entries: &'a [ShaderExpect],
    case: &Case,
    scene: &SceneSlot,
    (reads, failure): (&crate::format::Reads, Option<&str>),
) -> Option<&'a ShaderExpect> {
    let counts = || scene.counts(case, reads);
    let admitted: Vec<&ShaderExpect> = (entries.iter())
        .filter(|e| e.admits(|| counts().joints, || counts().influences))
        .collect();
    (admitted.iter())
        .find(|e| failure.is_some_and(|f| f.contains(&e.matches)))
        .or(admitted.first())
        .copied()
}

impl Suite {
    /// Destroys every adapter's device, as a driver reset or a GPU fault does, so self-tests can
    /// show that the trials after it get a new device.
    pub fn lose_devices(&self) {
        for slot in &self.slots {
            if let Some(Ok(ctx)) = lock(&slot.ctx).as_ref() {
                ctx.device.destroy();
                // The lost callback runs from the device's poll.
                let _ = ctx.device.poll(wgpu::PollType::Poll);
            }
        }
    }

    /// The report so far, with each adapter's pool use and abandoned devices.
    pub fn report(&self) -> Report {
        let mut report = lock(&self.report).clone();
        for slot in &self.slots {
            report.abandoned.extend(slot.abandoned());
            if let Some(Ok(ctx)) = lock(&slot.ctx).as_ref() {
                let (created, reused) = ctx.pool.counts();
                report.pools.push(crate::report::PoolUse {
                    adapter: slot.found.info.tag.clone(),
                    created,
                    reused,
                });
            }
        }
        report
    }

    /// The settings the suite runs with.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Bytes in Mesa's shader cache before any pipeline was built (`None`: no cache found).
    pub fn cache_before(&self) -> Option<u64> {
        self.cache_before
    }

    /// Every adapter's tag and context (created now where no trial created it), for work after
    /// the trials such as the GPU benchmarks.
    pub fn contexts(&self) -> Vec<(String, Result<Arc<Context>, GpuError>)> {
        self.slots
            .iter()
            .map(|slot| {
                let ctx = slot.context(&self.shader, self.config.timeout, &self.report);
                (slot.found.info.tag.clone(), ctx)
            })
            .collect()
    }
}

/// A trial's error where the shader did not load: the first line of why.
fn not_loaded(why: &str) -> GpuError {
    GpuError::NotLoaded(why.lines().next().unwrap_or_default().to_string())
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_failure_of_a_shader_that_breaks_its_contract_points_at_the_violation() {
        let broken = Validated::failed("s.wgsl: breaks ...".into(), Some("`x`: off".into()));
        let failed = broken.explain(Outcome::fail("0.5", "GPU [0.0, 0.0, 0.0]"));
        assert_eq!(
            failed.message,
            "GPU [0.0, 0.0, 0.0]\n  the shader breaks its contract (shader::validates), which this failure may follow from: `x`: off"
        );
        assert_eq!(
            (failed.status, failed.figure.as_str()),
            (Status::Fail, "0.5")
        );
        // A pass, a skip, and any failure of a shader naga alone rejects stay as they were.
        assert_eq!(broken.explain(Outcome::pass("0")).message, "");
        assert_eq!(broken.explain(Outcome::skip("why")).message, "why");
        let invalid = Validated::failed("naga: ...".into(), None);
        assert_eq!(invalid.explain(Outcome::fail("-", "m")).message, "m");
    }

    #[test]
    fn a_folder_with_no_case_is_an_error_and_extensions_match_in_any_case() {
        let dir = std::env::temp_dir().join(format!("skinproof-cases-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let e = case_files(&dir).unwrap_err();
        assert!(
            e.starts_with(&dir.display().to_string()) && e.contains("no case files"),
            "{e}"
        );
        std::fs::write(dir.join("notes.txt"), "").unwrap();
        assert!(case_files(&dir).is_err());
        std::fs::write(dir.join("case.YAML"), "").unwrap();
        assert_eq!(case_files(&dir).unwrap(), vec![dir.join("case.YAML")]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_second_case_file_of_the_same_name_is_refused_naming_both() {
        let root = Path::new("/p");
        let case = |name: &str| {
            let text = "skeleton: { joints: 2 }\nmesh: { vertices: 4 }\n";
            Ok(Arc::new(
                Case::parse(&Path::new("/p/cases").join(name), text, &[]).unwrap(),
            ))
        };
        let files = ["bend.yaml", "bend.yml", "tint.yaml"];
        let cases: Vec<_> = files
            .iter()
            .map(|f| (Path::new("/p/cases").join(f), case(f)))
            .collect();
        let out = refuse_duplicate_names(cases, root);
        assert!(out[0].1.is_ok() && out[2].1.is_ok());
        let e = out[1].1.as_ref().unwrap_err();
        assert_eq!(
            e,
            "cases/bend.yml: the case name `bend` is taken by cases/bend.yaml; a case's name is its file name, so rename one of them"
        );
    }
}
