//! The case file schema (one serde struct with defaults) and its validation, with located errors.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::compare::Metric;
use crate::identity::{backend_name, parse_backend, AdapterInfo};
use crate::rig::View;

mod error;
#[cfg(test)]
mod tests;
mod validate;

pub(crate) use error::from_yaml;
pub use error::{CaseError, MAX_DEPTH};

/// One conformance case, read from `cases/<name>.yaml`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    /// What the case is about, printed beside its failures.
    #[serde(default)]
    pub description: String,
    /// The built-in chain skeleton; required unless `model` is given.
    #[serde(default)]
    pub skeleton: Option<SkeletonSpec>,
    /// The built-in strip mesh; required unless `model` is given.
    #[serde(default)]
    pub mesh: Option<MeshSpec>,
    /// A skinned glTF 2.0 model instead of the built-in chain and strip.
    #[serde(default)]
    pub model: Option<ModelSpec>,
    /// Joint rotations (and optional translations and scales) applied on top of the bind pose.
    #[serde(default)]
    pub pose: Vec<JointPose>,
    #[serde(default)]
    pub tolerance: Tolerance,
    #[serde(default)]
    pub render: RenderSpec,
    #[serde(default)]
    pub golden: GoldenSpec,
    /// Known per-adapter failures and skips, each with its reason.
    #[serde(default)]
    pub expect: Vec<Expect>,
    /// The file stem; not part of the YAML.
    #[serde(skip)]
    pub name: String,
    #[serde(skip)]
    pub path: PathBuf,
    /// The file's text, hashed into golden provenance.
    #[serde(skip)]
    pub source: String,
}

/// Which adapters an expectation or override applies to: every given field must match.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AdapterMatch {
    /// vulkan, gl, metal or dx12, or an alias (`vk`, `gles`, ...).
    #[serde(default)]
    pub backend: Option<String>,
    /// Case-insensitive substring of the adapter name.
    #[serde(default)]
    pub adapter: Option<String>,
    /// Case-insensitive substring of the driver or driver info.
    #[serde(default)]
    pub driver: Option<String>,
}

impl AdapterMatch {
    pub fn matches(&self, info: &AdapterInfo) -> bool {
        let has = |hay: &str, needle: &Option<String>| {
            needle
                .as_ref()
                .is_none_or(|n| hay.to_lowercase().contains(&n.to_lowercase()))
        };
        self.backend
            .as_ref()
            .is_none_or(|b| parse_backend(b).is_ok_and(|b| backend_name(b) == info.backend))
            && has(&info.name, &self.adapter)
            && has(
                &format!("{} {}", info.driver, info.driver_info),
                &self.driver,
            )
    }
}

/// A check known to fail, or to be skipped, on some adapters.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    #[serde(flatten)]
    pub on: AdapterMatch,
    /// The check name, e.g. `render_matches_golden`.
    pub check: String,
    pub status: Expected,
    /// Why: required, so expectations can be reviewed and retired.
    pub reason: String,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Expected {
    Fail,
    Skip,
}

/// A golden image of its own for some adapters (e.g. a vendor that rounds edges differently).
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct GoldenOverride {
    #[serde(flatten)]
    pub on: AdapterMatch,
    /// File stem under `golden/`.
    pub name: String,
    /// Why this adapter may not share the common golden: required.
    pub reason: String,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SkeletonSpec {
    pub joints: usize,
    #[serde(default = "one")]
    pub segment_length: f64,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeshSpec {
    pub vertices: usize,
    /// Strip width in model units; defaults to a fifth of a segment.
    #[serde(default)]
    pub width: Option<f64>,
    #[serde(default)]
    pub influences: Influences,
}

/// How many joints weigh each strip vertex: a number (4 to an influence set, so more than 4 fill
/// further sets), or `max`: 4 for each influence set the shader under test reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Influences {
    Count(usize),
    Max,
}

impl Default for Influences {
    fn default() -> Influences {
        Influences::Count(2)
    }
}

impl Influences {
    /// The count for a shader that reads `most` influences a vertex.
    pub fn count(self, most: usize) -> usize {
        match self {
            Influences::Count(n) => n,
            Influences::Max => most,
        }
    }
}

impl<'de> Deserialize<'de> for Influences {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Influences, D::Error> {
        struct Visit;
        impl serde::de::Visitor<'_> for Visit {
            type Value = Influences;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a number of influences (1 to 16) or `max`")
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Influences, E> {
                Ok(Influences::Count(usize::try_from(v).unwrap_or(usize::MAX)))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Influences, E> {
                // A negative count is out of range, as 0 is; validation says so with the range.
                Ok(Influences::Count(usize::try_from(v).unwrap_or(0)))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Influences, E> {
                match v {
                    "max" => Ok(Influences::Max),
                    _ => Err(E::invalid_value(serde::de::Unexpected::Str(v), &self)),
                }
            }
        }
        d.deserialize_any(Visit)
    }
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelSpec {
    /// A .gltf or .glb file, relative to the case file's folder.
    pub path: PathBuf,
    /// The mesh (or node) name; default: the first skinned mesh (all its skinned primitives).
    #[serde(default)]
    pub mesh: Option<String>,
    /// The animation clip, by name or index; default: the first.
    #[serde(default)]
    pub animation: Option<String>,
    /// Seconds into the clip; absent: the rest pose (the nodes' own transforms).
    #[serde(default)]
    pub time: Option<f64>,
    /// What a missing file means: `fail` (default) or `skip` (optional assets, reported as SKIP).
    #[serde(default)]
    pub if_missing: IfMissing,
}

#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum IfMissing {
    #[default]
    Fail,
    Skip,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JointPose {
    pub joint: usize,
    #[serde(default = "z_axis")]
    pub axis: [f64; 3],
    #[serde(default)]
    pub degrees: f64,
    /// Added to the joint's bind translation.
    #[serde(default)]
    pub translation: [f64; 3],
    #[serde(default = "ones")]
    pub scale: [f64; 3],
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tolerance {
    /// Largest allowed |GPU - CPU| per coordinate. When neither this nor `max_relative_error` is
    /// given: 1e-5, or 8 f32 ulps of the extent where that is larger (`Scene::from_case`).
    #[serde(default)]
    pub max_abs_error: Option<f64>,
    /// When given, the allowed error is this times the model's extent (its largest coordinate),
    /// instead of `max_abs_error`.
    #[serde(default)]
    pub max_relative_error: Option<f64>,
    /// The pose must move some vertex at least this far, or the posed comparison proves nothing.
    #[serde(default = "default_min_displacement")]
    pub min_displacement: f64,
    /// Largest allowed angle, in degrees, between a GPU-skinned normal or tangent and the CPU's
    /// (also how far from unit length one may be: the sine of this angle).
    #[serde(default = "default_max_angle_degrees")]
    pub max_angle_degrees: f64,
}

impl Default for Tolerance {
    fn default() -> Self {
        Self {
            max_abs_error: None,
            max_relative_error: None,
            min_displacement: default_min_displacement(),
            max_angle_degrees: default_max_angle_degrees(),
        }
    }
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RenderSpec {
    #[serde(default = "default_size")]
    pub width: u32,
    #[serde(default = "default_size")]
    pub height: u32,
    /// The 2D view; defaults to one that fits the chain's reach.
    #[serde(default)]
    pub view: Option<View>,
    /// Allowed [min, max] covered pixels at the bind pose; defaults to the strip's area in pixels
    /// give or take its perimeter, at least 1.
    #[serde(default)]
    pub bind_coverage: Option<[u64; 2]>,
    /// At least this many pixels must differ between the bind-pose and posed images.
    #[serde(default = "one_u64")]
    pub min_changed_pixels: u64,
}

impl Default for RenderSpec {
    fn default() -> Self {
        Self {
            width: default_size(),
            height: default_size(),
            view: None,
            bind_coverage: None,
            min_changed_pixels: 1,
        }
    }
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GoldenSpec {
    /// File stem under `golden/`; defaults to the case name.
    #[serde(default)]
    pub name: Option<String>,
    /// Largest per-channel difference (0-255) that still counts as equal.
    #[serde(default = "default_channel_tolerance")]
    pub channel_tolerance: u8,
    /// Whether a pixel beyond the channel tolerance that a sub-pixel shift of the golden explains
    /// still counts as equal (how conformant GPUs differ); false compares pixel by pixel.
    #[serde(default = "yes")]
    pub subpixel: bool,
    /// How many pixels may exceed the channel tolerance.
    #[serde(default)]
    pub max_differing_pixels: u64,
    /// Compare against a golden at all (false: the golden check is SKIP).
    #[serde(default = "yes")]
    pub compare: bool,
    /// What decides: `channel` (pixels beyond channel_tolerance) or `flip` (perceptual).
    #[serde(default = "channel")]
    pub metric: Metric,
    /// FLIP: largest allowed mean error (0-1).
    #[serde(default = "default_flip_mean")]
    pub flip_max_mean: f64,
    /// FLIP: the percentile (0-1) of the error map that is checked ...
    #[serde(default = "default_flip_percentile")]
    pub flip_percentile: f64,
    /// ... and its largest allowed value.
    #[serde(default = "default_flip_max")]
    pub flip_max_percentile: f64,
    /// Per-adapter goldens, each with its reason.
    #[serde(default)]
    pub overrides: Vec<GoldenOverride>,
}

impl Default for GoldenSpec {
    fn default() -> Self {
        Self {
            name: None,
            channel_tolerance: default_channel_tolerance(),
            subpixel: true,
            max_differing_pixels: 0,
            compare: true,
            metric: channel(),
            flip_max_mean: default_flip_mean(),
            flip_percentile: default_flip_percentile(),
            flip_max_percentile: default_flip_max(),
            overrides: Vec::new(),
        }
    }
}

fn channel() -> Metric {
    Metric::Channel
}
fn default_flip_mean() -> f64 {
    0.005
}
fn default_flip_percentile() -> f64 {
    0.99
}
fn default_flip_max() -> f64 {
    0.1
}
fn yes() -> bool {
    true
}
fn one() -> f64 {
    1.0
}
fn one_u64() -> u64 {
    1
}
fn z_axis() -> [f64; 3] {
    [0.0, 0.0, 1.0]
}
fn ones() -> [f64; 3] {
    [1.0; 3]
}
fn default_min_displacement() -> f64 {
    1e-3
}
fn default_max_angle_degrees() -> f64 {
    0.05
}
fn default_size() -> u32 {
    128
}
fn default_channel_tolerance() -> u8 {
    1
}

/// A YAML file's text, or an error that names the file and, for text that is not UTF-8, the line
/// and column of its first bad byte.
pub(crate) fn read_text(path: &Path) -> Result<String, CaseError> {
    let file = path.display().to_string();
    let bytes = crate::file::read_limited(path, crate::file::MAX_CASE_BYTES).map_err(|source| {
        CaseError::Io {
            file: file.clone(),
            source,
        }
    })?;
    String::from_utf8(bytes).map_err(|e| {
        // Where the first bad byte is, as an editor counts lines and columns.
        let good = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let line = good.iter().filter(|&&b| b == b'\n').count() + 1;
        let start = good.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let column = String::from_utf8_lossy(&good[start..]).chars().count() + 1;
        CaseError::Parse {
            file,
            line,
            column,
            message: format!(
                "not UTF-8 text (byte 0x{:02x}): case files are UTF-8",
                e.as_bytes()[good.len()]
            ),
        }
    })
}

/// Largest joint count a case may ask for (the palette of 64 B per joint stays under 4 MiB).
pub const MAX_JOINTS: usize = 65_536;
/// Largest render target side: a 4096x4096 render with its readback, golden, diff and FLIP images
/// keeps a run under 2 GB; an 8192 side would not (each image is 4x larger).
pub const MAX_TARGET: u32 = 4_096;
/// The most influences a strip vertex may ask for: four influence sets.
pub const MAX_INFLUENCES: usize = 16;
/// Largest strip mesh (4 Mi vertices: 64 MiB of skinned output, inside wgpu's default buffer
/// limits on every adapter, and under 2 GB for the CPU reference and both GPU paths together; the
/// device's own limits are checked again when the work is submitted). Models are held to the same
/// count per accessor (`model::MAX_ELEMENTS`).
pub const MAX_VERTICES: usize = 4 * 1024 * 1024;

impl Case {
    /// Reads and validates one case file; `checks` are the check names an `expect` entry may use.
    pub fn load(path: &Path, checks: &[&str]) -> Result<Case, CaseError> {
        Self::parse(path, &read_text(path)?, checks)
    }

    /// Parses and validates case text; `path` names the file in errors and gives the case its name,
    /// `checks` are the check names an `expect` entry may use.
    ///
    /// Never panics: every problem is a `CaseError` whose text starts with the file, and for
    /// `Parse` and `Invalid` a line (1-based) that exists in `text`.
    pub fn parse(path: &Path, text: &str, checks: &[&str]) -> Result<Case, CaseError> {
        let file = path.display().to_string();
        let mut case: Case = error::from_yaml(&file, text)?;
        case.name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        case.path = path.to_path_buf();
        case.source = text.to_string();
        if let Err(validate::Invalid { field, message }) = case.validate(checks) {
            return Err(CaseError::invalid(&file, text, &field, message));
        }
        Ok(case)
    }

    /// The `i`-th generated case (`generated_NNN`): varied joints, vertices, influences and pose,
    /// no golden. Used to measure how the suite's cost grows with the number of cases.
    pub fn generated(i: usize) -> Case {
        let joints = 2 + i % 31;
        let text = format!(
            "description: generated case {i}\n\
             skeleton: {{ joints: {joints}, segment_length: {seg} }}\n\
             mesh: {{ vertices: {vertices}, width: 0.3, influences: {influences} }}\n\
             pose:\n  - {{ joint: {j1}, degrees: {d1} }}\n  - {{ joint: {j2}, axis: [1, 0, 1], degrees: {d2} }}\n\
             render: {{ width: 64, height: 64 }}\n\
             golden: {{ compare: false }}\n",
            seg = 2.0 / joints as f64,
            vertices = 2 + (i * 37) % 1000,
            influences = 1 + i % 4,
            // Bend in the lower half of the chain, so the pose moves many pixels.
            j1 = (i % joints) / 2,
            d1 = 10 + (i * 7) % 60,
            j2 = (i / 3) % joints.div_ceil(2),
            d2 = -20 - ((i * 11) % 50) as i64,
        );
        let path = PathBuf::from(format!("generated_{i:03}.yaml"));
        // No `expect` entries, so no check names to know.
        Case::parse(&path, &text, &[]).expect("generated cases are valid")
    }

    /// The expectation for `check` on this adapter, if any.
    pub fn expectation(&self, check: &str, info: &AdapterInfo) -> Option<&Expect> {
        self.expect
            .iter()
            .find(|e| e.check == check && e.on.matches(info))
    }

    /// The golden file stem for this adapter: an override's, or the case's.
    pub fn golden_for(&self, info: &AdapterInfo) -> &str {
        self.golden
            .overrides
            .iter()
            .find(|o| o.on.matches(info))
            .map_or(self.golden_name(), |o| o.name.as_str())
    }

    /// The model file, resolved against the case file's folder.
    pub fn model_path(&self) -> Option<PathBuf> {
        let m = self.model.as_ref()?;
        let dir = self.path.parent().unwrap_or(Path::new(""));
        Some(dir.join(&m.path))
    }

    /// The golden file stem.
    pub fn golden_name(&self) -> &str {
        self.golden.name.as_deref().unwrap_or(&self.name)
    }
}
