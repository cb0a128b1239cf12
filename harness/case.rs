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
    pub skeleton: SkeletonSpec,
    pub mesh: MeshSpec,
    /// Joint rotations (and optional translations and scales) applied on top of the bind pose.
    #[serde(default)]
    pub pose: Vec<JointPose>,
    #[serde(default)]
    pub tolerance: Tolerance,
    #[serde(default)]
    pub render: RenderSpec,
    #[serde(default)]
    pub golden: GoldenSpec,
    /// The file stem; not part of the YAML.
    #[serde(skip)]
    pub name: String,
    #[serde(skip)]
    pub path: PathBuf,
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
    /// The pose must move some vertex at least this far, or the posed comparison proves nothing.
    #[serde(default = "default_min_displacement")]
    pub min_displacement: f64,
}

impl Default for Tolerance {
    fn default() -> Self {
        Self {
            max_abs_error: default_max_abs_error(),
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
    /// give or take its perimeter.
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
}

impl Default for GoldenSpec {
    fn default() -> Self {
        Self {
            name: None,
            channel_tolerance: default_channel_tolerance(),
            max_differing_pixels: 0,
            compare: true,
        }
    }
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

/// Largest joint count a case may ask for (the palette of 64 B per joint stays under 4 MiB).
pub const MAX_JOINTS: usize = 65_536;
/// Largest render target side.
pub const MAX_TARGET: u32 = 8_192;

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
    pub fn parse(path: &Path, text: &str) -> Result<Case, CaseError> {
        let file = path.display().to_string();
        let mut case: Case = serde_yaml_ng::from_str(text).map_err(|e| {
            let (line, column) = e.location().map_or((1, 1), |l| (l.line(), l.column()));
            CaseError::Parse {
                file: file.clone(),
                line,
                column,
                message: e.to_string(),
            }
        })?;
        case.name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        case.path = path.to_path_buf();
        if let Err((field, message)) = case.validate() {
            return Err(CaseError::Invalid {
                line: locate::line_of(text, &field).unwrap_or(1),
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
        let s = &self.skeleton;
        if s.joints == 0 || s.joints > MAX_JOINTS {
            return bad(
                "skeleton.joints",
                format!("must be 1 to {MAX_JOINTS}, got {}", s.joints),
            );
        }
        if !(s.segment_length.is_finite() && s.segment_length > 0.0) {
            return bad(
                "skeleton.segment_length",
                format!("must be finite and > 0, got {}", s.segment_length),
            );
        }
        let m = &self.mesh;
        if m.vertices == 0 {
            return bad("mesh.vertices", "must be at least 1".into());
        }
        if let Some(w) = m.width {
            if !(w.is_finite() && w > 0.0) {
                return bad("mesh.width", format!("must be finite and > 0, got {w}"));
            }
        }
        if !(1..=4).contains(&m.influences) {
            return bad(
                "mesh.influences",
                format!("must be 1 to 4, got {}", m.influences),
            );
        }
        for (i, p) in self.pose.iter().enumerate() {
            let at = |f: &str| format!("pose[{i}].{f}");
            if p.joint >= s.joints {
                return bad(
                    &at("joint"),
                    format!(
                        "joint {} is out of range: the skeleton has {} joints",
                        p.joint, s.joints
                    ),
                );
            }
            if p.axis.iter().any(|v| !v.is_finite())
                || p.axis.iter().map(|v| v * v).sum::<f64>() < 1e-24
            {
                return bad(
                    &at("axis"),
                    format!("must be a finite, nonzero vector, got {:?}", p.axis),
                );
            }
            if !p.degrees.is_finite() {
                return bad(&at("degrees"), format!("must be finite, got {}", p.degrees));
            }
            if p.translation.iter().any(|v| !v.is_finite()) {
                return bad(
                    &at("translation"),
                    format!("must be finite, got {:?}", p.translation),
                );
            }
            if p.scale.iter().any(|v| !v.is_finite() || *v == 0.0) {
                return bad(
                    &at("scale"),
                    format!("must be finite and nonzero, got {:?}", p.scale),
                );
            }
        }
        let t = &self.tolerance;
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
                if !x.is_finite() {
                    return bad(field, format!("must be finite, got {x}"));
                }
            }
            if v.scale == 0.0 {
                return bad("render.view.scale", "must be nonzero".into());
            }
            if v.half_width <= 0.0 {
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

    /// The strip width actually used.
    pub fn width(&self) -> f64 {
        self.mesh
            .width
            .unwrap_or(0.2 * self.skeleton.segment_length)
    }

    /// The chain's length from the root to the tip of the last segment.
    pub fn length(&self) -> f64 {
        self.skeleton.joints as f64 * self.skeleton.segment_length
    }

    /// The case's view, or one that keeps the whole reach of the chain inside the target.
    pub fn view(&self) -> View {
        self.render.view.unwrap_or_else(|| {
            let reach = self.length() + self.width();
            View {
                scale: 0.9 / reach,
                offset_y: 0.0,
                half_width: reach / 0.9,
            }
        })
    }

    /// The golden file stem.
    pub fn golden_name(&self) -> &str {
        self.golden.name.as_deref().unwrap_or(&self.name)
    }

    /// The allowed bind-pose coverage: the case's range, or the strip's pixel area give or take
    /// its perimeter in pixels (edge pixels are where rasterisers may round either way).
    pub fn bind_coverage(&self) -> [u64; 2] {
        if let Some(range) = self.render.bind_coverage {
            return range;
        }
        let v = self.view();
        let (w, h) = (self.render.width as f64, self.render.height as f64);
        // Clip x spans half_width per unit of NDC; NDC spans 2 per target side.
        let px_w = self.width() / v.half_width * w / 2.0;
        let px_h = self.length() * v.scale.abs() * h / 2.0;
        // Clamp to the part inside the target.
        let px_w = px_w.min(w);
        let px_h = px_h.min(h);
        let area = px_w * px_h;
        let slack = 2.0 * (px_w + px_h) + 2.0;
        [
            (area - slack).max(0.0).floor() as u64,
            (area + slack).ceil() as u64,
        ]
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
        assert_eq!(c.skeleton.segment_length, 1.0);
        assert_eq!(c.mesh.influences, 2);
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
        assert!(cases.iter().any(|c| c.mesh.influences == 4));
        assert!(cases.iter().all(|c| !c.golden.compare));
    }

    #[test]
    fn default_view_covers_the_chain() {
        let c = parse(MINIMAL).unwrap();
        let v = c.view();
        assert!(c.length() * v.scale + v.offset_y < 1.0);
        let [lo, hi] = c.bind_coverage();
        assert!(lo > 0 && hi > lo);
    }
}
