//! The constraints of a case that serde cannot express, each failure naming the field path.

use crate::identity::{parse_backend, BACKEND_NAMES};

use super::{
    AdapterMatch, Case, GoldenSpec, IfMissing, Influences, JointPose, MeshSpec, ModelSpec,
    RenderSpec, SkeletonSpec, Tolerance, MAX_INFLUENCES, MAX_JOINTS, MAX_TARGET, MAX_VERTICES,
};

/// A constraint a case breaks: the field path and the problem.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Invalid {
    pub field: String,
    pub message: String,
}

type Checked<T = ()> = Result<T, Invalid>;

/// The failure for `field`.
fn bad<T>(field: &str, message: String) -> Checked<T> {
    Err(Invalid {
        field: field.to_string(),
        message,
    })
}

/// Whether `s` is usable as a file name stem everywhere: letters, digits, `_` and `-` only.
fn is_file_stem(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// A backend named in a match must be one backend by name or alias (as `WGPU_BACKEND` reads it):
/// a typo or a list such as `vulkan,gl` would silently never match.
fn check_match(m: &AdapterMatch) -> Result<(), String> {
    match &m.backend {
        Some(b) if parse_backend(b).is_err() => Err(format!(
            "unknown backend `{b}` (expected one of {BACKEND_NAMES})"
        )),
        _ => Ok(()),
    }
}

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

impl Case {
    /// Checks every constraint serde cannot express, `expect` entries against the known `checks`;
    /// on failure names the field path and the problem. The first problem in field order wins.
    pub(super) fn validate(&self, checks: &[&str]) -> Checked {
        if !is_file_stem(&self.name) {
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
                self.check_model(m)?;
                // The model's joint count is only known once it is loaded.
                usize::MAX
            }
            (None, Some(s), Some(m)) => {
                check_chain(s, m)?;
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
            check_joint_pose(i, p, joints)?;
        }
        check_tolerance(&self.tolerance)?;
        check_render(&self.render)?;
        check_golden(&self.golden)?;
        self.check_expectations(checks)?;
        if let Some(name) = &self.golden.name {
            if !is_file_stem(name) {
                return bad(
                    "golden.name",
                    format!("`{name}` must use only letters, digits, `_` and `-`"),
                );
            }
        }
        Ok(())
    }

    /// A model instead of the built-in chain: its file, clip and time.
    fn check_model(&self, m: &ModelSpec) -> Checked {
        if self.skeleton.is_some() || self.mesh.is_some() {
            let field = if self.skeleton.is_some() {
                "skeleton"
            } else {
                "mesh"
            };
            return bad(
                field,
                "not allowed with `model`: the model brings its own skeleton and mesh".into(),
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
        if m.animation.is_some() && m.time.is_none() {
            return bad(
                "model.animation",
                "names a clip, but `model.time` is absent, so the rest pose would be \
                 used and the clip ignored: give `time` (seconds into the clip)"
                    .into(),
            );
        }
        Ok(())
    }

    /// Each `expect` entry: a known check, a reason, a backend that can match.
    fn check_expectations(&self, checks: &[&str]) -> Checked {
        for (i, e) in self.expect.iter().enumerate() {
            if !checks.contains(&e.check.as_str()) {
                return bad(
                    &format!("expect[{i}].check"),
                    format!("unknown check `{}` (one of {})", e.check, checks.join(", ")),
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
        Ok(())
    }
}

/// The built-in chain and strip: sizes within the limits, lengths that stay finite as f32.
fn check_chain(s: &SkeletonSpec, m: &MeshSpec) -> Checked {
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
            format!("must be at most {MAX_VERTICES} (4 Mi), got {}", m.vertices),
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
    if let Influences::Count(n) = m.influences {
        if !(1..=MAX_INFLUENCES).contains(&n) {
            return bad(
                "mesh.influences",
                format!("must be 1 to {MAX_INFLUENCES} (4 to an influence set), or `max` (4 for each set the shader reads), got {n}"),
            );
        }
    }
    Ok(())
}

/// Pose entry `i`: a joint below `joints`, and numbers the GPU can take.
fn check_joint_pose(i: usize, p: &JointPose, joints: usize) -> Checked {
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
    if p.axis.iter().any(|v| !finite_f32(*v)) || p.axis.iter().map(|v| v * v).sum::<f64>() < 1e-24 {
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
    Ok(())
}

/// Every tolerance finite and above 0.
fn check_tolerance(t: &Tolerance) -> Checked {
    if let Some(r) = t.max_relative_error {
        if !(r.is_finite() && r > 0.0) {
            return bad(
                "tolerance.max_relative_error",
                format!("must be finite and > 0, got {r}"),
            );
        }
    }
    if let Some(a) = t.max_abs_error {
        if !(a.is_finite() && a > 0.0) {
            return bad(
                "tolerance.max_abs_error",
                format!("must be finite and > 0, got {a}"),
            );
        }
    }
    if !(t.min_displacement.is_finite() && t.min_displacement > 0.0) {
        return bad(
            "tolerance.min_displacement",
            format!("must be finite and > 0, got {}", t.min_displacement),
        );
    }
    let a = t.max_angle_degrees;
    if !(a.is_finite() && a > 0.0 && a < 90.0) {
        return bad(
            "tolerance.max_angle_degrees",
            format!("must be an angle in degrees above 0 and below 90, got {a}"),
        );
    }
    Ok(())
}

/// The target's size, the view and the coverage range.
fn check_render(r: &RenderSpec) -> Checked {
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
    Ok(())
}

/// The FLIP thresholds and the per-adapter overrides (the golden's own name is checked last).
fn check_golden(g: &GoldenSpec) -> Checked {
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
    Ok(())
}
