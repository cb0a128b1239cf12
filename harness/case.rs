//! The case file schema (one serde struct with defaults) and its validation, with located errors.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::locate;

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
    /// vulkan, gl, metal or dx12.
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
    pub fn matches(&self, info: &crate::gpu::AdapterInfo) -> bool {
        let has = |hay: &str, needle: &Option<String>| {
            needle
                .as_ref()
                .is_none_or(|n| hay.to_lowercase().contains(&n.to_lowercase()))
        };
        self.backend
            .as_ref()
            .is_none_or(|b| b.eq_ignore_ascii_case(&info.backend))
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
    #[serde(default = "two")]
    pub influences: usize,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelSpec {
    /// A .gltf or .glb file, relative to the case file's folder.
    pub path: PathBuf,
    /// The mesh (or node) name; default: the first skinned mesh primitive.
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
    /// Largest allowed |GPU - CPU| per coordinate.
    #[serde(default = "default_max_abs_error")]
    pub max_abs_error: f64,
    /// When given, the allowed error is this times the model's extent (its largest coordinate),
    /// instead of `max_abs_error`.
    #[serde(default)]
    pub max_relative_error: Option<f64>,
    /// The pose must move some vertex at least this far, or the posed comparison proves nothing.
    #[serde(default = "default_min_displacement")]
    pub min_displacement: f64,
}

impl Default for Tolerance {
    fn default() -> Self {
        Self {
            max_abs_error: default_max_abs_error(),
            max_relative_error: None,
            min_displacement: default_min_displacement(),
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

/// clip = (x / half_width, y * scale + offset_y).
#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct View {
    pub scale: f64,
    pub offset_y: f64,
    pub half_width: f64,
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
    /// How many pixels may exceed the channel tolerance.
    #[serde(default)]
    pub max_differing_pixels: u64,
    /// Compare against a golden at all (false: the golden check is SKIP).
    #[serde(default = "yes")]
    pub compare: bool,
    /// What decides: `channel` (pixels beyond channel_tolerance) or `flip` (perceptual).
    #[serde(default = "channel")]
    pub metric: crate::golden::Metric,
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

fn channel() -> crate::golden::Metric {
    crate::golden::Metric::Channel
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
fn two() -> usize {
    2
}
fn z_axis() -> [f64; 3] {
    [0.0, 0.0, 1.0]
}
fn ones() -> [f64; 3] {
    [1.0; 3]
}
fn default_max_abs_error() -> f64 {
    1e-5
}
fn default_min_displacement() -> f64 {
    1e-3
}
fn default_size() -> u32 {
    128
}
fn default_channel_tolerance() -> u8 {
    1
}

fn is_file_stem(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// A backend named in a match must be exactly one the harness names adapters by (`matches` compares
/// the whole name): `vk` or `vulkan,gl` would silently never match.
fn check_match(m: &AdapterMatch) -> Result<(), String> {
    match &m.backend {
        Some(b)
            if ["vulkan", "gl", "metal", "dx12"]
                .iter()
                .any(|k| k.eq_ignore_ascii_case(b)) =>
        {
            Ok(())
        }
        Some(b) => Err(format!(
            "unknown backend `{b}` (expected one of vulkan, gl, metal, dx12)"
        )),
        None => Ok(()),
    }
}

/// Largest joint count a case may ask for (the palette of 64 B per joint stays under 4 MiB).
pub const MAX_JOINTS: usize = 65_536;
/// Largest render target side.
pub const MAX_TARGET: u32 = 8_192;
/// Largest strip mesh (16 Mi vertices: 256 MiB of skinned output; the device's own buffer and
/// dispatch limits are checked again when the work is submitted).
pub const MAX_VERTICES: usize = 16 * 1024 * 1024;

/// Whether `v` survives the trip to the GPU: finite as an f32, not only as an f64.
fn finite_f32(v: f64) -> bool {
    v.is_finite() && (v as f32).is_finite()
}

/// Whether `v` is a length the GPU sees as > 0: finite, and positive after rounding to f32.
fn positive_f32(v: f64) -> bool {
    finite_f32(v) && (v as f32) > 0.0
}

/// The range message for numbers that go to the GPU.
const F32_RANGE: &str = "within f32 range (|x| <= 3.4e38)";

/// A case file that could not be read or is not a valid case.
#[derive(Debug, thiserror::Error)]
pub enum CaseError {
    #[error("{file}: cannot read: {source}")]
    Io {
        file: String,
        source: std::io::Error,
    },
    #[error("{file}:{line}:{column}: {message}")]
    Parse {
        file: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{file}:{line}: field `{field}`: {message}")]
    Invalid {
        file: String,
        line: usize,
        field: String,
        message: String,
    },
}

/// A serde_yaml_ng error as a located `CaseError::Parse`: line and column counted as editors count
/// them (from the error's byte offset), the location not repeated at the end of the message, and a
/// line found for the errors that come without one (a duplicate key, a second document).
fn parse_error(file: &str, text: &str, e: &serde_yaml_ng::Error) -> CaseError {
    let mut message = e.to_string();
    let (mut line, mut column) = (1, 1);
    if let Some(loc) = e.location() {
        let suffix = format!(" at line {} column {}", loc.line(), loc.column());
        if let Some(m) = message.strip_suffix(&suffix) {
            message = m.to_string();
        }
        match text.get(..loc.index()) {
            Some(before) => {
                line = before.matches('\n').count() + 1;
                column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            }
            None => (line, column) = (loc.line(), loc.column()),
        }
    }
    if let Some(key) = message
        .split_once("duplicate field `")
        .and_then(|(_, r)| r.split_once('`'))
        .map(|(k, _)| k)
    {
        if let Some(l) = locate::duplicate_key_line(text, key) {
            (line, column) = (l, 1);
        }
    }
    if message.contains("more than one document") {
        if let Some(l) = second_document_line(text) {
            (line, column) = (l, 1);
        }
    }
    let lines = locate::line_count(text);
    let at = text.lines().nth(line.saturating_sub(1)).unwrap_or("");
    if at.len() > at.trim_start().len() && at[..at.len() - at.trim_start().len()].contains('\t') {
        message.push_str(" (this line is indented with a tab: YAML indents with spaces only)");
    }
    if line > lines {
        (line, column) = (lines, column.max(1));
    }
    CaseError::Parse {
        file: file.to_string(),
        line: line.max(1),
        column: column.max(1),
        message,
    }
}

/// The 1-based line where a second YAML document starts: a `---` after some content.
fn second_document_line(text: &str) -> Option<usize> {
    let mut content = false;
    for (n, line) in text.lines().enumerate() {
        let t = line.trim_end();
        if t == "---" || t.starts_with("--- ") {
            if content {
                return Some(n + 1);
            }
            content = t.len() > 3;
        } else if !(t.trim_start().is_empty() || t.trim_start().starts_with('#') || t == "...") {
            content = true;
        }
    }
    None
}

impl Case {
    /// Reads and validates one case file.
    pub fn load(path: &Path) -> Result<Case, CaseError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| CaseError::Io {
            file: file.clone(),
            source,
        })?;
        Self::parse(path, &text)
    }

    /// Parses and validates case text; `path` names the file in errors and gives the case its name.
    ///
    /// Never panics: every problem is a `CaseError` whose text starts with the file, and for
    /// `Parse` and `Invalid` a line (1-based) that exists in `text`.
    pub fn parse(path: &Path, text: &str) -> Result<Case, CaseError> {
        let file = path.display().to_string();
        // A byte order mark is not part of the YAML (libyaml would read it as a second document).
        let body = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut case: Case =
            serde_yaml_ng::from_str(body).map_err(|e| parse_error(&file, body, &e))?;
        case.name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        case.path = path.to_path_buf();
        case.source = text.to_string();
        if let Err((field, message)) = case.validate() {
            return Err(CaseError::Invalid {
                line: locate::line_near(body, &field).unwrap_or(1),
                file,
                field,
                message,
            });
        }
        Ok(case)
    }

    /// Checks every constraint serde cannot express; on failure names the field path and the problem.
    fn validate(&self) -> Result<(), (String, String)> {
        let bad = |field: &str, message: String| Err((field.to_string(), message));
        if !self
            .name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            || self.name.is_empty()
        {
            return bad(
                "name",
                format!(
                    "case file name `{}` must use only letters, digits, `_` and `-`",
                    self.name
                ),
            );
        }
        let joints = match (&self.model, &self.skeleton, &self.mesh) {
            (Some(m), _, _) => {
                if self.skeleton.is_some() || self.mesh.is_some() {
                    let field = if self.skeleton.is_some() {
                        "skeleton"
                    } else {
                        "mesh"
                    };
                    return bad(
                        field,
                        "not allowed with `model`: the model brings its own skeleton and mesh"
                            .into(),
                    );
                }
                if let Some(t) = m.time {
                    if !t.is_finite() || t < 0.0 {
                        return bad("model.time", format!("must be finite and >= 0, got {t}"));
                    }
                }
                let ext = m
                    .path
                    .extension()
                    .map(|x| x.to_string_lossy().to_ascii_lowercase());
                if !matches!(ext.as_deref(), Some("gltf" | "glb")) {
                    return bad(
                        "model.path",
                        format!("`{}` must name a .gltf or .glb file", m.path.display()),
                    );
                }
                let file = self.model_path().unwrap_or_default();
                if file.is_dir() {
                    return bad(
                        "model.path",
                        format!("{} is a folder, not a glTF file", file.display()),
                    );
                }
                if m.if_missing == IfMissing::Fail && !file.exists() {
                    return bad(
                        "model.path",
                        format!(
                            "{} does not exist (add `if_missing: skip` if the asset is optional)",
                            file.display()
                        ),
                    );
                }
                for (field, v) in [("model.mesh", &m.mesh), ("model.animation", &m.animation)] {
                    if v.as_ref().is_some_and(|v| v.trim().is_empty()) {
                        return bad(
                            field,
                            "must not be empty (leave it out for the first)".into(),
                        );
                    }
                }
                // The model's joint count is only known once it is loaded.
                usize::MAX
            }
            (None, Some(s), Some(m)) => {
                if s.joints == 0 || s.joints > MAX_JOINTS {
                    return bad(
                        "skeleton.joints",
                        format!("must be 1 to {MAX_JOINTS}, got {}", s.joints),
                    );
                }
                if !positive_f32(s.segment_length) {
                    return bad(
                        "skeleton.segment_length",
                        format!("must be > 0 and {F32_RANGE}, got {}", s.segment_length),
                    );
                }
                if !finite_f32(s.segment_length * s.joints as f64) {
                    return bad(
                        "skeleton.segment_length",
                        format!(
                            "the chain's length {} x {} joints is beyond f32 range",
                            s.segment_length, s.joints
                        ),
                    );
                }
                if m.vertices == 0 {
                    return bad("mesh.vertices", "must be at least 1, got 0".into());
                }
                if m.vertices > MAX_VERTICES {
                    return bad(
                        "mesh.vertices",
                        format!("must be at most {MAX_VERTICES} (16 Mi), got {}", m.vertices),
                    );
                }
                if let Some(w) = m.width {
                    if !positive_f32(w) {
                        return bad(
                            "mesh.width",
                            format!("must be > 0 and {F32_RANGE}, got {w}"),
                        );
                    }
                }
                if !(1..=4).contains(&m.influences) {
                    return bad(
                        "mesh.influences",
                        format!("must be 1 to 4, got {}", m.influences),
                    );
                }
                s.joints
            }
            (None, None, _) => {
                return bad(
                    "skeleton",
                    "missing: give `skeleton` and `mesh`, or `model`".into(),
                )
            }
            (None, Some(_), None) => {
                return bad(
                    "mesh",
                    "missing: a built-in skeleton needs its `mesh`".into(),
                )
            }
        };
        for (i, p) in self.pose.iter().enumerate() {
            let at = |f: &str| format!("pose[{i}].{f}");
            if p.joint >= joints {
                return bad(
                    &at("joint"),
                    format!(
                        "joint {} is out of range: the skeleton has {joints} joints",
                        p.joint
                    ),
                );
            }
            if p.axis.iter().any(|v| !finite_f32(*v))
                || p.axis.iter().map(|v| v * v).sum::<f64>() < 1e-24
            {
                return bad(
                    &at("axis"),
                    format!("must be a nonzero vector {F32_RANGE}, got {:?}", p.axis),
                );
            }
            if !p.degrees.is_finite() {
                return bad(&at("degrees"), format!("must be finite, got {}", p.degrees));
            }
            if p.translation.iter().any(|v| !finite_f32(*v)) {
                return bad(
                    &at("translation"),
                    format!("must be finite and {F32_RANGE}, got {:?}", p.translation),
                );
            }
            if p.scale
                .iter()
                .any(|v| !finite_f32(*v) || (*v as f32) == 0.0)
            {
                return bad(
                    &at("scale"),
                    format!("must be nonzero and {F32_RANGE}, got {:?}", p.scale),
                );
            }
        }
        let t = &self.tolerance;
        if let Some(r) = t.max_relative_error {
            if !(r.is_finite() && r > 0.0) {
                return bad(
                    "tolerance.max_relative_error",
                    format!("must be finite and > 0, got {r}"),
                );
            }
        }
        if !(t.max_abs_error.is_finite() && t.max_abs_error > 0.0) {
            return bad(
                "tolerance.max_abs_error",
                format!("must be finite and > 0, got {}", t.max_abs_error),
            );
        }
        if !(t.min_displacement.is_finite() && t.min_displacement > 0.0) {
            return bad(
                "tolerance.min_displacement",
                format!("must be finite and > 0, got {}", t.min_displacement),
            );
        }
        let r = &self.render;
        for (field, v) in [("render.width", r.width), ("render.height", r.height)] {
            if v == 0 || v > MAX_TARGET {
                return bad(field, format!("must be 1 to {MAX_TARGET}, got {v}"));
            }
        }
        if let Some(v) = r.view {
            for (field, x) in [
                ("render.view.scale", v.scale),
                ("render.view.offset_y", v.offset_y),
                ("render.view.half_width", v.half_width),
            ] {
                if !finite_f32(x) {
                    return bad(field, format!("must be finite and {F32_RANGE}, got {x}"));
                }
            }
            if v.scale as f32 == 0.0 {
                return bad(
                    "render.view.scale",
                    format!("must be nonzero, got {}", v.scale),
                );
            }
            if v.half_width as f32 <= 0.0 {
                return bad(
                    "render.view.half_width",
                    format!("must be > 0, got {}", v.half_width),
                );
            }
        }
        if let Some([lo, hi]) = r.bind_coverage {
            if lo > hi {
                return bad(
                    "render.bind_coverage",
                    format!("min {lo} is above max {hi}"),
                );
            }
        }
        let g = &self.golden;
        for (field, v) in [
            ("golden.flip_max_mean", g.flip_max_mean),
            ("golden.flip_max_percentile", g.flip_max_percentile),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return bad(field, format!("must be finite and >= 0, got {v}"));
            }
        }
        if !(g.flip_percentile.is_finite() && (0.0..=1.0).contains(&g.flip_percentile)) {
            return bad(
                "golden.flip_percentile",
                format!("must be 0 to 1, got {}", g.flip_percentile),
            );
        }
        for (i, o) in g.overrides.iter().enumerate() {
            if o.reason.trim().is_empty() {
                return bad(
                    &format!("golden.overrides[{i}].reason"),
                    "a per-adapter golden needs a reason".into(),
                );
            }
            if let Err(m) = check_match(&o.on) {
                return bad(&format!("golden.overrides[{i}].backend"), m);
            }
            if !is_file_stem(&o.name) {
                return bad(
                    &format!("golden.overrides[{i}].name"),
                    format!("`{}` must use only letters, digits, `_` and `-`", o.name),
                );
            }
        }
        for (i, e) in self.expect.iter().enumerate() {
            if !crate::check::Check::ALL.iter().any(|c| c.name() == e.check) {
                let names: Vec<&str> = crate::check::Check::ALL.iter().map(|c| c.name()).collect();
                return bad(
                    &format!("expect[{i}].check"),
                    format!("unknown check `{}` (one of {})", e.check, names.join(", ")),
                );
            }
            if e.reason.trim().is_empty() {
                return bad(
                    &format!("expect[{i}].reason"),
                    "an expectation needs a reason".into(),
                );
            }
            if let Err(m) = check_match(&e.on) {
                return bad(&format!("expect[{i}].backend"), m);
            }
        }
        if let Some(name) = &self.golden.name {
            if name.is_empty()
                || !name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            {
                return bad(
                    "golden.name",
                    format!("`{name}` must use only letters, digits, `_` and `-`"),
                );
            }
        }
        Ok(())
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
        Case::parse(&path, &text).expect("generated cases are valid")
    }

    /// The expectation for `check` on this adapter, if any.
    pub fn expectation(&self, check: &str, info: &crate::gpu::AdapterInfo) -> Option<&Expect> {
        self.expect
            .iter()
            .find(|e| e.check == check && e.on.matches(info))
    }

    /// The golden file stem for this adapter: an override's, or the case's.
    pub fn golden_for(&self, info: &crate::gpu::AdapterInfo) -> &str {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Case, CaseError> {
        Case::parse(Path::new("cases/example.yaml"), text)
    }

    const MINIMAL: &str = "skeleton:\n  joints: 3\nmesh:\n  vertices: 10\n";

    #[test]
    fn minimal_case_takes_defaults() {
        let c = parse(MINIMAL).unwrap();
        assert_eq!(c.name, "example");
        assert_eq!(c.skeleton.as_ref().unwrap().segment_length, 1.0);
        assert_eq!(c.mesh.as_ref().unwrap().influences, 2);
        assert_eq!(c.tolerance.max_abs_error, 1e-5);
        assert_eq!((c.render.width, c.render.height), (128, 128));
        assert_eq!(c.golden_name(), "example");
    }

    #[test]
    fn unknown_field_is_located() {
        let err =
            parse("skeleton:\n  joints: 3\n  colour: red\nmesh:\n  vertices: 10\n").unwrap_err();
        let msg = err.to_string();
        assert!(msg.starts_with("cases/example.yaml:3:"), "{msg}");
        assert!(msg.contains("unknown field `colour`"), "{msg}");
    }

    #[test]
    fn wrong_type_is_located() {
        let msg = parse("skeleton:\n  joints: many\nmesh:\n  vertices: 10\n")
            .unwrap_err()
            .to_string();
        assert!(msg.starts_with("cases/example.yaml:2:"), "{msg}");
    }

    #[test]
    fn out_of_range_joint_names_field_and_line() {
        let text = format!(
            "{MINIMAL}pose:\n  - joint: 1\n    degrees: 10\n  - joint: 7\n    degrees: 5\n"
        );
        let msg = parse(&text).unwrap_err().to_string();
        assert_eq!(
            msg,
            "cases/example.yaml:8: field `pose[1].joint`: joint 7 is out of range: the skeleton has 3 joints"
        );
    }

    #[test]
    fn nan_tolerance_rejected() {
        let text = format!("{MINIMAL}tolerance:\n  max_abs_error: .nan\n");
        let msg = parse(&text).unwrap_err().to_string();
        assert!(msg.contains("tolerance.max_abs_error"), "{msg}");
        assert!(msg.contains(":6:"), "{msg}");
    }

    #[test]
    fn generated_cases_are_valid_and_varied() {
        let cases: Vec<Case> = (0..50).map(Case::generated).collect();
        assert_eq!(cases[7].name, "generated_007");
        assert!(cases
            .iter()
            .any(|c| c.mesh.as_ref().unwrap().influences == 4));
        assert!(cases.iter().all(|c| !c.golden.compare));
    }

    #[test]
    fn expectations_need_a_known_check_and_a_reason() {
        let text = format!("{MINIMAL}expect:\n  - backend: gl\n    check: posed_matches\n    status: fail\n    reason: x\n");
        let msg = parse(&text).unwrap_err().to_string();
        assert!(
            msg.contains("expect[0].check") && msg.contains("unknown check `posed_matches`"),
            "{msg}"
        );
        let text = format!("{MINIMAL}expect:\n  - check: posed_matches_cpu\n    status: fail\n");
        let msg = parse(&text).unwrap_err().to_string();
        assert!(msg.contains("missing field `reason`"), "{msg}");
        let text = format!("{MINIMAL}golden:\n  overrides:\n    - backend: vulkan\n      name: other\n      reason: \" \"\n");
        let msg = parse(&text).unwrap_err().to_string();
        assert!(msg.contains("golden.overrides[0].reason"), "{msg}");
    }

    #[test]
    fn expectations_match_adapters() {
        let text = format!("{MINIMAL}expect:\n  - backend: gl\n    adapter: LLVMpipe\n    check: posed_matches_cpu\n    status: fail\n    reason: known driver bug\n");
        let c = parse(&text).unwrap();
        let mut info = crate::gpu::AdapterInfo {
            tag: "gl/llvmpipe".into(),
            name: "llvmpipe (LLVM 15)".into(),
            backend: "gl".into(),
            device_type: "Cpu".into(),
            driver: String::new(),
            driver_info: "Mesa".into(),
        };
        assert!(c.expectation("posed_matches_cpu", &info).is_some());
        assert!(c.expectation("compute_matches_cpu", &info).is_none());
        info.backend = "vulkan".into();
        assert!(c.expectation("posed_matches_cpu", &info).is_none());
    }

    #[test]
    fn model_and_chain_exclude_each_other() {
        let text = format!("{MINIMAL}model:\n  path: missing.glb\n  if_missing: skip\n");
        let msg = parse(&text).unwrap_err().to_string();
        assert!(
            msg.contains("field `skeleton`: not allowed with `model`"),
            "{msg}"
        );
        let msg = parse("model:\n  path: nowhere/missing.glb\n")
            .unwrap_err()
            .to_string();
        assert!(
            msg.contains("field `model.path`") && msg.contains("does not exist"),
            "{msg}"
        );
        assert!(parse("model:\n  path: nowhere/missing.glb\n  if_missing: skip\n").is_ok());
        let msg = parse("mesh:\n  vertices: 3\n").unwrap_err().to_string();
        assert!(msg.contains("field `skeleton`: missing"), "{msg}");
    }
    /// The error for `text`, which must start with the file and `line` and name `field`.
    fn located(text: &str, line: usize, field: &str) -> String {
        let msg = parse(text).unwrap_err().to_string();
        assert!(
            msg.starts_with(&format!("cases/example.yaml:{line}:")),
            "wanted line {line}: {msg}"
        );
        assert!(msg.contains(field), "wanted field {field}: {msg}");
        msg
    }

    #[test]
    fn malformed_yaml_is_located() {
        let msg = located("skeleton:\n  joints: 3\n mesh: [\n", 3, "mapping");
        assert!(!msg.is_empty());
        located(
            "skeleton: {joints: 3\nmesh: {vertices: 1}\n",
            1,
            "skeleton.joints: invalid type: string \"3 mesh\"",
        );
        // Tabs are not indentation in YAML.
        located("skeleton:\n\tjoints: 3\n", 2, "tab");
    }

    #[test]
    fn missing_and_duplicate_fields_are_located() {
        let msg = located(
            "skeleton:\n  segment_length: 2\nmesh:\n  vertices: 3\n",
            2,
            "skeleton",
        );
        assert!(msg.contains("missing field `joints`"), "{msg}");
        assert!(
            !msg.ends_with("column 3"),
            "the location is not repeated: {msg}"
        );
        let msg = located(
            "skeleton:\n  joints: 3\nmesh:\n  vertices: 3\nskeleton:\n  joints: 4\n",
            5,
            "duplicate field `skeleton`",
        );
        assert!(!msg.is_empty());
        located(
            &format!("{MINIMAL}---\nskeleton: {{ joints: 2 }}\n"),
            5,
            "more than one document",
        );
        // An unknown field in a list item names the item.
        located(
            &format!("{MINIMAL}pose:\n  - joint: 1\n    angle: 3\n"),
            7,
            "pose[0]: unknown field `angle`",
        );
    }

    #[test]
    fn wrong_types_name_the_field() {
        located(
            &format!("{MINIMAL}render:\n  width: 1e3\n"),
            6,
            "render.width: invalid type",
        );
        located(
            &format!("{MINIMAL}pose:\n  - joint: -1\n"),
            6,
            "pose[0].joint: invalid type: integer `-1`, expected usize",
        );
        located(
            &format!("{MINIMAL}pose:\n  - joint: 1\n    axis: [1, 2]\n"),
            7,
            "pose[0].axis: invalid length 2",
        );
        located(
            &format!("{MINIMAL}golden:\n  channel_tolerance: 300\n"),
            6,
            "golden.channel_tolerance",
        );
        located(
            &format!("{MINIMAL}golden:\n  metric: ssim\n"),
            6,
            "golden.metric: unknown variant `ssim`",
        );
        located("- 1\n- 2\n", 1, "expected struct Case");
    }

    #[test]
    fn a_byte_order_mark_and_crlf_are_plain_text() {
        let text = format!("\u{feff}{}", MINIMAL.replace('\n', "\r\n"));
        assert!(parse(&text).is_ok());
        let text = format!("\u{feff}{MINIMAL}  colour: red\r\n");
        located(&text, 5, "unknown field `colour`");
    }

    #[test]
    fn joint_counts_and_indices_out_of_range() {
        located(
            "skeleton:\n  joints: 0\nmesh:\n  vertices: 3\n",
            2,
            "field `skeleton.joints`: must be 1 to 65536, got 0",
        );
        located(
            "skeleton:\n  joints: 70000\nmesh:\n  vertices: 3\n",
            2,
            "field `skeleton.joints`: must be 1 to 65536, got 70000",
        );
        located(&format!("{MINIMAL}mesh:\n"), 5, "duplicate field `mesh`");
        located(
            "skeleton:\n  joints: 3\nmesh:\n  vertices: 3\n  influences: 5\n",
            5,
            "field `mesh.influences`: must be 1 to 4, got 5",
        );
        located(
            &format!("{MINIMAL}pose:\n- joint: 3\n"),
            6,
            "field `pose[0].joint`: joint 3 is out of range",
        );
    }

    #[test]
    fn nan_and_infinity_in_a_pose_or_tolerance() {
        for (text, line, field) in [
            (
                "pose:\n  - joint: 1\n    degrees: .nan\n",
                7,
                "field `pose[0].degrees`: must be finite, got NaN",
            ),
            (
                "pose:\n  - joint: 1\n    axis: [0, .inf, 0]\n",
                7,
                "field `pose[0].axis`",
            ),
            (
                "pose:\n  - joint: 1\n    translation: [0, -.inf, 0]\n",
                7,
                "field `pose[0].translation`: must be finite",
            ),
            (
                "pose:\n  - joint: 1\n    scale: [1, .NaN, 1]\n",
                7,
                "field `pose[0].scale`",
            ),
            (
                "pose:\n  - joint: 1\n    scale: [1, 0, 1]\n",
                7,
                "field `pose[0].scale`: must be nonzero",
            ),
            (
                "pose:\n  - joint: 1\n    translation: [1e39, 0, 0]\n",
                7,
                "f32 range",
            ),
            (
                "pose:\n  - joint: 1\n    axis: [0, 0, 0]\n",
                7,
                "field `pose[0].axis`: must be a nonzero vector",
            ),
            (
                "tolerance:\n  max_abs_error: .inf\n",
                6,
                "field `tolerance.max_abs_error`: must be finite and > 0, got inf",
            ),
            (
                "tolerance:\n  min_displacement: -.Inf\n",
                6,
                "field `tolerance.min_displacement`",
            ),
            (
                "tolerance:\n  max_relative_error: .NAN\n",
                6,
                "field `tolerance.max_relative_error`",
            ),
            (
                "golden:\n  flip_percentile: 1.5\n",
                6,
                "field `golden.flip_percentile`: must be 0 to 1",
            ),
            (
                "render:\n  view:\n    scale: .nan\n    offset_y: 0\n    half_width: 1\n",
                7,
                "field `render.view.scale`",
            ),
        ] {
            located(&format!("{MINIMAL}{text}"), line, field);
        }
    }

    #[test]
    fn zero_and_negative_sizes() {
        for (text, line, field) in [
            (
                "render:\n  width: 0\n",
                6,
                "field `render.width`: must be 1 to 8192, got 0",
            ),
            (
                "render:\n  height: 9000\n",
                6,
                "field `render.height`: must be 1 to 8192, got 9000",
            ),
            (
                "render:\n  width: -4\n",
                6,
                "render.width: invalid type: integer `-4`, expected u32",
            ),
            (
                "render:\n  view: { scale: 1, offset_y: 0, half_width: -1 }\n",
                6,
                "field `render.view.half_width`: must be > 0",
            ),
            (
                "render:\n  bind_coverage: [10, 5]\n",
                6,
                "field `render.bind_coverage`: min 10 is above max 5",
            ),
        ] {
            located(&format!("{MINIMAL}{text}"), line, field);
        }
        located(
            "skeleton:\n  joints: 3\n  segment_length: 0\nmesh:\n  vertices: 3\n",
            3,
            "field `skeleton.segment_length`: must be > 0",
        );
        located(
            "skeleton:\n  joints: 3\n  segment_length: -1\nmesh:\n  vertices: 3\n",
            3,
            "field `skeleton.segment_length`",
        );
        located(
            "skeleton:\n  joints: 3\n  segment_length: 1e-50\nmesh:\n  vertices: 3\n",
            3,
            "f32 range",
        );
        located(
            "skeleton:\n  joints: 3\nmesh:\n  vertices: 3\n  width: -0.5\n",
            5,
            "field `mesh.width`: must be > 0",
        );
        located(
            "skeleton:\n  joints: 65536\n  segment_length: 1e35\nmesh:\n  vertices: 3\n",
            3,
            "beyond f32 range",
        );
    }

    #[test]
    fn vertex_counts() {
        located(
            "skeleton:\n  joints: 3\nmesh:\n  vertices: 0\n",
            4,
            "field `mesh.vertices`: must be at least 1, got 0",
        );
        located(
            "skeleton:\n  joints: 3\nmesh:\n  vertices: 20000000\n",
            4,
            "field `mesh.vertices`: must be at most 16777216 (16 Mi), got 20000000",
        );
        located(
            "skeleton:\n  joints: 3\nmesh:\n  vertices: 99999999999999999999999\n",
            4,
            "mesh.vertices: invalid",
        );
        let text = format!("skeleton:\n  joints: 3\nmesh:\n  vertices: {MAX_VERTICES}\n");
        assert!(parse(&text).is_ok());
        // Flow style: the line of the mapping that holds the field.
        located(
            "skeleton: { joints: 3 }\nmesh: { vertices: 0 }\n",
            2,
            "field `mesh.vertices`",
        );
    }

    #[test]
    fn model_files() {
        let msg = located(
            "model:\n  path: nowhere/missing.glb\n",
            2,
            "field `model.path`",
        );
        assert!(
            msg.contains("cases/nowhere/missing.glb does not exist (add `if_missing: skip`"),
            "{msg}"
        );
        located(
            "model:\n  path: model.obj\n  if_missing: skip\n",
            2,
            "field `model.path`: `model.obj` must name a .gltf or .glb file",
        );
        located(
            "model:\n  path: ''\n  if_missing: skip\n",
            2,
            "field `model.path`",
        );
        located(
            "model:\n  path: x.gltf\n  if_missing: maybe\n",
            3,
            "model.if_missing: unknown variant `maybe`",
        );
        located(
            "model:\n  path: x.gltf\n  if_missing: skip\n  time: -1\n",
            4,
            "field `model.time`: must be finite and >= 0, got -1",
        );
        located(
            "model:\n  path: x.gltf\n  if_missing: skip\n  time: .nan\n",
            4,
            "field `model.time`",
        );
        located(
            "model:\n  path: x.gltf\n  if_missing: skip\n  animation: ''\n",
            4,
            "field `model.animation`: must not be empty",
        );
        // A folder named like a model.
        let dir = std::env::temp_dir().join(format!("skinproof-case-{}.gltf", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let text = format!("model:\n  path: {}\n", dir.display());
        let msg = located(&text, 2, "field `model.path`");
        assert!(msg.contains("is a folder"), "{msg}");
        let _ = std::fs::remove_dir(&dir);
    }

    #[test]
    fn the_default_cases_load() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("cases");
        for file in crate::suite::case_files(&dir).unwrap() {
            // Relative like the runner's, so model paths resolve the same way.
            let rel = file.strip_prefix(env!("CARGO_MANIFEST_DIR")).unwrap();
            let text = std::fs::read_to_string(&file).unwrap();
            let c = Case::parse(&file, &text);
            assert!(c.is_ok(), "{}: {}", rel.display(), c.unwrap_err());
        }
    }
}
