//! What a run found (outcome rows, adapters, costs, benchmarks, the mutation section) and its JSON form, `reports/report.json`; the Markdown and merging live in the submodules.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::check::{Check, Outcome};
use crate::file::write_atomic;
use crate::gpu::AdapterInfo;

mod markdown;
mod merge;
pub mod mutation;
mod page;
pub mod review;

pub use mutation::MutationSection;
pub use review::ReviewSet;

/// One check of one case on one adapter.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Row {
    pub case: String,
    pub adapter: String,
    pub check: String,
    #[serde(flatten)]
    pub outcome: Outcome,
}

/// A shader compiler's verdict on one entry point of the shader: a naga back-end and the tool
/// that validates its output (`spirv`, `glsl-450`, ...).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CompilerRow {
    pub compiler: String,
    pub entry: String,
    #[serde(flatten)]
    pub outcome: Outcome,
}

/// The Khronos validation layer's part in a run (`WGPU_VALIDATION` with a settings file that
/// logs to a file): every message it logged, each a failure of the run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LayerSection {
    /// The settings file and the log it names.
    pub settings: String,
    pub log: String,
    pub messages: Vec<String>,
}

impl Report {
    /// The validation layer's messages of the run (`vulkan`: whether it had a Vulkan adapter),
    /// into the report; any message, or a log the layer never opened, is why the run fails.
    pub fn add_layer(&mut self, layer: &crate::layer::LayerLog, root: &Path) -> Option<String> {
        let vulkan = self.adapters.iter().any(|a| a.backend == "vulkan");
        // A log that cannot be judged fails the run too, said as what it is, not as a message.
        let (messages, failure) = match layer.messages(vulkan) {
            Ok(m) if m.is_empty() => (m, None),
            Ok(m) => {
                let why = format!(
                    "the Khronos validation layer logged {} messages (in {}); the first:\n{}",
                    m.len(),
                    layer.log.display(),
                    m[0]
                );
                (m, Some(why))
            }
            Err(why) => (
                Vec::new(),
                Some(format!("the Khronos validation layer: {why}")),
            ),
        };
        if let Some(why) = &failure {
            self.problems.push(why.clone());
        }
        let shown = |p: &Path| p.strip_prefix(root).unwrap_or(p).display().to_string();
        self.layer = Some(LayerSection {
            settings: shown(&layer.settings),
            log: shown(&layer.log),
            messages,
        });
        failure
    }
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

/// How an adapter's buffer pool served the run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PoolUse {
    pub adapter: String,
    pub created: u64,
    pub reused: u64,
}

/// A device given up after a GPU step outlasted the deadline: its thread was left in the driver,
/// and the adapter's later trials ran on a fresh device.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Abandoned {
    pub adapter: String,
    /// The step that hung and the deadline it outlasted.
    pub why: String,
}

/// Everything one run found.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Report {
    pub shader: String,
    /// SHA-256 of the shader source, so that merged reports are known to judge one shader.
    #[serde(default)]
    pub shader_sha256: String,
    /// naga's verdict on the shader, adapter-independent.
    pub validation: Option<Outcome>,
    /// The validation layer's messages, when the run had it on.
    #[serde(default)]
    pub layer: Option<LayerSection>,
    /// Each entry point through each shader compiler, adapter-independent.
    #[serde(default)]
    pub compilers: Vec<CompilerRow>,
    pub adapters: Vec<AdapterInfo>,
    /// Case name -> description, for the failures section.
    pub cases: Vec<(String, String)>,
    pub rows: Vec<Row>,
    pub case_problems: Vec<CaseProblem>,
    /// Wall time of the whole run, seconds.
    pub wall_s: f64,
    /// Device setup per adapter and the CPU + GPU work per case and adapter.
    pub timings: Vec<Timing>,
    /// Per adapter: GPU buffers and targets created, and handed out again from its pool.
    #[serde(default)]
    pub pools: Vec<PoolUse>,
    /// The benchmark section; `None` when benchmarks were off or not run.
    pub benchmarks: Option<Benchmarks>,
    /// A merged report's CPU tiers, one per machine (each part's), with every row's bounds.
    #[serde(default)]
    pub cpu_per_machine: Vec<crate::bench::CpuBench>,
    /// The mutation check (`SKINPROOF_MUTATE=1`), when it ran.
    #[serde(default)]
    pub mutation: Option<MutationSection>,
    /// The trial selection of a filtered run (`-- bend`), which writes its own files.
    #[serde(default)]
    pub filter: Option<String>,
    /// Files in the golden folder that no case uses (a removed or renamed case's).
    #[serde(default)]
    pub unused_goldens: Vec<String>,
    /// Failures of the run that are no case's row (a required adapter missing).
    #[serde(default)]
    pub problems: Vec<String>,
    /// Devices abandoned after a hung GPU step, in the order it happened.
    #[serde(default)]
    pub abandoned: Vec<Abandoned>,
}

/// The benchmark figures of one run.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Benchmarks {
    /// quick or full.
    pub mode: String,
    /// The CPU tiers (reference and fast path) and palette builds.
    pub cpu: Option<crate::bench::CpuBench>,
    pub palette: Vec<crate::bench::PaletteRow>,
    pub gpu: Vec<crate::gpu::timing::GpuBench>,
    /// Adapters whose GPU benchmark could not run, with why.
    pub gpu_errors: Vec<String>,
    /// Whether the Mesa shader cache was cold, as measured by its growth during the run.
    pub shader_cache: String,
}

/// Why a `report.json` could not be read.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("{path}: {source}")]
    Read {
        path: String,
        source: crate::file::ReadError,
    },
    #[error("{path}:{line}:{column}: {source}")]
    Parse {
        path: String,
        line: usize,
        column: usize,
        source: serde_json::Error,
    },
}

impl Report {
    /// Writes the JSON form alone to `path` (creating its folder).
    pub fn write_json(&self, path: &Path) -> std::io::Result<()> {
        let json = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        write_atomic(path, json.as_bytes())
    }

    /// Writes REPORT.md and report.json into `dir` (a filtered run: REPORT.filtered.md and
    /// report.filtered.json, so the whole run's report stays), each through a temporary file and a
    /// rename; returns the Markdown file's path.
    pub fn write(&self, dir: &Path) -> std::io::Result<std::path::PathBuf> {
        let (md_name, json_name) = if self.filter.is_some() {
            ("REPORT.filtered.md", "report.filtered.json")
        } else {
            ("REPORT.md", "report.json")
        };
        let json = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        write_atomic(&dir.join(json_name), json.as_bytes())?;
        let md = dir.join(md_name);
        write_atomic(&md, self.markdown().as_bytes())?;
        Ok(md)
    }

    /// Reads a `report.json`.
    pub fn load(path: &Path) -> Result<Report, LoadError> {
        load_json(path)
    }

    /// Appends the headline and the line about the review page when there is one (`review`: the
    /// count of goldens on it) to `$GITHUB_STEP_SUMMARY`, when it is set. The images are on the
    /// page: the summary cannot show files of the run.
    pub fn append_step_summary(&self, review: usize) -> std::io::Result<()> {
        let Some(path) = std::env::var_os("GITHUB_STEP_SUMMARY") else {
            return Ok(());
        };
        let md = self.markdown();
        // The headline is everything up to the adapters table.
        let mut text = md
            .split("## Adapters")
            .next()
            .unwrap_or_default()
            .to_string();
        if review > 0 {
            text += &review::summary_line(review, |k| std::env::var(k).ok());
        }
        use std::io::Write as _;
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)?
            .write_all(text.as_bytes())
    }
}

/// Reads a JSON file the run wrote (a report, the review's rows); errors name the file and where.
fn load_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, LoadError> {
    let shown = path.display().to_string();
    let read = crate::file::read_text_limited(path, crate::file::MAX_REPORT_BYTES);
    let text = read.map_err(|source| LoadError::Read {
        path: shown.clone(),
        source,
    })?;
    serde_json::from_str(&text).map_err(|source| LoadError::Parse {
        line: source.line(),
        column: source.column(),
        path: shown,
        source,
    })
}

/// Where a check comes in report order; properties (not in that order) after every check.
fn check_order(name: &str) -> usize {
    Check::ALL
        .iter()
        .position(|k| k.name() == name)
        .unwrap_or(usize::MAX)
}
