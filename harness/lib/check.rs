//! The checks run per case and adapter: each is one function from a run to an outcome row.

use serde::{Deserialize, Serialize};

use crate::case::Case;
use crate::compare;
use crate::contract::Role;
use crate::golden::{self, Goldens, Review};
use crate::gpu::compute::{Fault, Skinned};
use crate::gpu::{Context, GpuError};
use crate::run::Run;

mod frames;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Status {
    Pass,
    Fail,
    Skip,
    /// The GPU did not answer in time: a hang, not a wrong answer.
    Timeout,
    /// Failed as the case expects on this adapter (an `expect` entry with its reason).
    #[serde(rename = "XFAIL")]
    ExpectedFail,
    /// Passed although the case expects it to fail: the expectation is stale, and the run fails.
    #[serde(rename = "XPASS")]
    UnexpectedPass,
}

impl Status {
    /// Whether this status fails the trial.
    pub fn fails(self) -> bool {
        matches!(
            self,
            Status::Fail | Status::Timeout | Status::UnexpectedPass
        )
    }
}

impl Status {
    /// How bad the status is, for keeping the worse of two results of one trial: a failure of any
    /// kind, then an expected failure, a skip, a pass.
    pub fn severity(self) -> u8 {
        match self {
            Status::Pass => 0,
            Status::Skip => 1,
            Status::ExpectedFail => 2,
            Status::UnexpectedPass | Status::Timeout | Status::Fail => 3,
        }
    }
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Status::Pass => "PASS",
            Status::Fail => "FAIL",
            Status::Skip => "SKIP",
            Status::Timeout => "TIMEOUT",
            Status::ExpectedFail => "XFAIL",
            Status::UnexpectedPass => "XPASS",
        })
    }
}

/// What a check found: its status, the figure it measured, and for anything but a pass, why.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    pub status: Status,
    pub figure: String,
    pub message: String,
    /// The golden comparison's figures and files, for the review section.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review: Option<Review>,
}

impl Outcome {
    pub fn new(status: Status, figure: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            status,
            figure: figure.into(),
            message: message.into(),
            review: None,
        }
    }
    pub fn pass(figure: impl Into<String>) -> Self {
        Self::new(Status::Pass, figure, "")
    }
    pub fn fail(figure: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(Status::Fail, figure, message)
    }
    pub fn skip(message: impl Into<String>) -> Self {
        Self::new(Status::Skip, "-", message)
    }
    pub fn gpu(e: &GpuError) -> Self {
        if let GpuError::Absent(why) = e {
            return Self::skip(why.clone());
        }
        let status = if e.is_timeout() {
            Status::Timeout
        } else {
            Status::Fail
        };
        Self::new(status, "-", e.to_string())
    }

    /// Applies a layout profile's expectation (see `profile::ShaderExpect`): a failure whose message
    /// contains `matches` is XFAIL; another failure stays FAIL, saying what was expected; a pass is
    /// XPASS, which fails the run. `at` is the entry's `file:line`.
    pub fn expected_by_layout(mut self, matches: &str, reason: &str, at: &str) -> Self {
        match self.status {
            Status::Fail | Status::Timeout if self.message.contains(matches) => {
                self.message = format!("expected failure ({reason}; {at}): {}", self.message);
                self.status = Status::ExpectedFail;
            }
            Status::Fail | Status::Timeout => {
                self.message = format!(
                    "{}\n  (the layout profile expects a failure matching `{matches}` here, {at}; this is another)",
                    self.message
                );
            }
            Status::Pass => {
                self.message = format!(
                    "unexpected pass: the layout profile expects a failure here ({reason}), but it passed; remove that `expect` entry at {at}"
                );
                self.status = Status::UnexpectedPass;
            }
            _ => {}
        }
        self
    }

    /// Applies the case's expectation for this check and adapter: an expected failure becomes
    /// XFAIL, an expected failure that passed becomes XPASS (which fails the run).
    pub fn expecting(mut self, expect: Option<&crate::case::Expect>, file: &str) -> Self {
        let Some(e) = expect else { return self };
        match (e.status, self.status) {
            (crate::case::Expected::Fail, Status::Fail | Status::Timeout) => {
                self.message = format!("expected failure ({}): {}", e.reason, self.message);
                self.status = Status::ExpectedFail;
            }
            (crate::case::Expected::Fail, Status::Pass) => {
                self.message = format!(
                    "unexpected pass: the case expects `{}` to fail here ({}), but it passed; remove that `expect` entry from {file}",
                    e.check, e.reason
                );
                self.status = Status::UnexpectedPass;
            }
            // A skip says nothing about the expected failure: stays SKIP, and says so, so an
            // expectation that no run tests does not go unseen.
            (crate::case::Expected::Fail, Status::Skip) => {
                self.message = format!(
                    "{}; the `expect` entry for `{}` in {file} ({}) is not tested while it skips",
                    self.message, e.check, e.reason
                );
            }
            _ => {}
        }
        self
    }
    /// A pass if `ok`, else a failure with `message`.
    fn expect(ok: bool, figure: String, message: impl FnOnce() -> String) -> Self {
        if ok {
            Self::pass(figure)
        } else {
            Self::fail(figure, message())
        }
    }
}

/// A check: one function from what it reads to an outcome.
pub type CheckFn = fn(&Input) -> Outcome;

/// One check: the trial name part, what it proves, its report column heading, and its function.
/// A new check is one entry in `Check::ALL`.
#[derive(Clone, Copy)]
pub struct Check {
    name: &'static str,
    title: &'static str,
    heading: &'static str,
    run: CheckFn,
}

/// What a check reads.
pub struct Input<'a> {
    pub case: &'a Case,
    pub ctx: &'a Context,
    pub run: &'a Run,
    /// The run's golden folder and what it may write there.
    pub goldens: &'a Goldens,
}

/// The trial name part of the golden comparison, which printed bless commands name.
const GOLDEN: &str = "render_matches_golden";

impl Check {
    /// The checks, in report order.
    pub const ALL: [Check; 10] = [
        Check {
            name: "shader_builds",
            title: "the shader validates and builds on the adapter (errors)",
            heading: "builds",
            run: shader_builds,
        },
        Check {
            name: "compute_matches_cpu",
            title: "GPU compute skinning equals CPU LBS (max abs error)",
            heading: "compute = CPU",
            run: compute_matches_cpu,
        },
        Check {
            name: "bind_pose_reproduces_source",
            title: "at the bind pose, GPU skinning reproduces the source vertices (max abs error)",
            heading: "bind = source",
            run: bind_reproduces_source,
        },
        Check {
            name: "posed_matches_cpu",
            title: "after posing the joints, GPU still equals CPU (max abs error)",
            heading: "posed = CPU",
            run: posed_matches_cpu,
        },
        Check {
            name: "normals_match_cpu",
            title: "GPU-skinned normals point as the CPU's (the blended matrix's inverse transpose, itself, or the blend of each joint's own, as the profile says), unit length (max angle)",
            heading: "normals",
            run: frames::normals_match_cpu,
        },
        Check {
            name: "tangents_match_cpu",
            title: "GPU-skinned tangents point as the CPU's, unit length, handedness kept (max angle)",
            heading: "tangents",
            run: frames::tangents_match_cpu,
        },
        Check {
            name: "pose_moves_vertices",
            title: "posing really moved the vertices (max displacement)",
            heading: "moved",
            run: pose_moves_vertices,
        },
        Check {
            name: "render_covers_bind_pose",
            title: "the render path drew geometry at the bind pose (covered pixels)",
            heading: "coverage",
            run: render_covers_bind_pose,
        },
        Check {
            name: "render_changes_after_pose",
            title: "the rendered image changed after posing (changed pixels)",
            heading: "changed px",
            run: render_changes_after_pose,
        },
        Check {
            name: GOLDEN,
            title: "the posed render matches its golden image (differing pixels)",
            heading: "golden",
            run: render_matches_golden,
        },
    ];

    /// The trial name part, e.g. `compute_matches_cpu`.
    pub fn name(self) -> &'static str {
        self.name
    }

    /// What the check proves, as the report's column heading says it.
    pub fn title(self) -> &'static str {
        self.title
    }

    /// The report's short column heading.
    pub fn heading(self) -> &'static str {
        self.heading
    }

    /// Whether this is the golden comparison, which a golden two cases share cannot judge.
    pub fn compares_golden(self) -> bool {
        self.name == GOLDEN
    }

    pub fn run(self, input: &Input) -> Outcome {
        (self.run)(input)
    }
}

impl std::fmt::Debug for Check {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

/// A numeric check's outcome, its figure marked with the path that produced it when that is the
/// vertex stage's skinning function called from the harness's compute entry point.
fn by_path(input: &Input, mut outcome: Outcome) -> Outcome {
    let c = input.ctx.contract();
    match (c.captured, &c.skin_function, c.copied_entry()) {
        (true, Some(f), _) => {
            outcome.figure = format!("{} (vertex stage, via `{f}`)", outcome.figure)
        }
        (_, _, Some(vs)) => {
            let camera = match c.clip_z {
                crate::format::ClipZ::Camera => "an identity camera",
                crate::format::ClipZ::Stage => "a camera that moves z to w (`clip_z: stage`)",
            };
            outcome.figure = format!(
                "{} (vertex stage `{vs}`, its clip position through {camera})",
                outcome.figure
            )
        }
        _ => {}
    }
    outcome
}

/// [`by_path`] for the skinned normals or tangents (`role`): the vertex stage's function that
/// gave them, or its output at the profile's location where a copy of the stage ran.
fn by_frame_path(input: &Input, role: Role, mut outcome: Outcome) -> Outcome {
    let c = input.ctx.contract();
    let f = &c.frame_functions;
    let function = if role == Role::SkinnedNormals {
        &f.normal
    } else {
        &f.tangent
    };
    let output = c.vertex_outputs.iter().find(|o| o.role == role);
    match (c.captured, function, &c.skin_function, &c.vertex, output) {
        (true, Some(f), _, _, _) => {
            outcome.figure = format!("{} (vertex stage, via `{f}`)", outcome.figure)
        }
        (true, None, None, Some(vs), Some(o)) => {
            outcome.figure = format!(
                "{} (vertex stage `{vs}`, its output at location {})",
                outcome.figure, o.location
            )
        }
        _ => return by_path(input, outcome),
    }
    outcome
}

fn compute_matches_cpu(input: &Input) -> Outcome {
    let scene = &input.run.scene;
    let labels = ("GPU (bind pose)", "CPU LBS");
    positions_by_path(input, input.run.gpu_bind(), &scene.cpu_bind, labels)
}

fn bind_reproduces_source(input: &Input) -> Outcome {
    let scene = &input.run.scene;
    let labels = ("GPU (bind pose)", "source position");
    positions_by_path(input, input.run.gpu_bind(), &scene.mesh.positions, labels)
}

fn posed_matches_cpu(input: &Input) -> Outcome {
    let scene = &input.run.scene;
    let labels = ("GPU (posed)", "CPU LBS");
    positions_by_path(input, input.run.gpu_posed(), &scene.cpu_posed, labels)
}

/// [`positions_match`] within the case's tolerance, marked [`by_path`]; a copied vertex stage
/// whose x and y match at every vertex and z does not is said to write its own clip z, one whose
/// y is the reference's negated to negate its clip y.
fn positions_by_path(
    input: &Input,
    gpu: &Result<Skinned, GpuError>,
    expected: &[[f32; 3]],
    (gpu_label, expected_label): (&str, &str),
) -> Outcome {
    use crate::format::{ClipY, ClipZ};
    let tolerance = input.run.scene.tolerance;
    let mut outcome = positions_match(gpu, expected, tolerance, gpu_label, expected_label);
    let c = input.ctx.contract();
    let copied = c.copied_entry().is_some();
    // Whether every vertex matches in lanes `k`, its y negated where `flip`.
    let lanes = |k: &[usize], flip: bool| {
        let near = |a: &[f32; 3], b: &[f32; 3], k: usize| {
            let b = if flip && k == 1 { -b[k] } else { b[k] };
            f64::from((a[k] - b).abs()) <= tolerance
        };
        matches!(gpu, Ok(g) if g.fault.is_none() && g.positions.len() == expected.len()
            && (g.positions.iter().zip(expected)).all(|(a, b)| k.iter().all(|&k| near(a, b, k))))
    };
    let hint = match (c.clip_z, c.clip_y) {
        _ if !outcome.status.fails() || !copied => None,
        (ClipZ::Camera, _) if lanes(&[0, 1], false) => Some("x and y match at every vertex, only z is off: where the stage writes its clip z itself after the camera (a clamp to the near plane, a depth of its own), say so with `vertex.camera.clip_z: stage`"),
        (_, ClipY::Camera) if lanes(&[0, 1, 2], true) => Some("every vertex matches with its y negated: where the stage negates its clip y after the camera (as naga writes a stage read from SPIR-V made for Vulkan), say so with `vertex.camera.clip_y: flipped`, where it negates a position's y before the camera (a world position's), with `flipped_before`"),
        (_, ClipY::Flipped | ClipY::FlippedBefore) if lanes(&[0, 1, 2], true) => Some("every vertex matches with its y negated: the profile's `vertex.camera.clip_y` says the stage negates y around the camera, which this one does not: leave it out"),
        _ => None,
    };
    // Every vertex at one point, through a copy of the stage: what attributes it needs and is
    // fed zeros do.
    let collapsed = matches!(gpu, Ok(g) if g.fault.is_none() && !g.positions.is_empty()
        && g.positions.iter().all(|p| (0..3).all(|k| f64::from((p[k] - g.positions[0][k]).abs()) <= tolerance)));
    let hint = hint.map(str::to_string).or_else(|| {
        (outcome.status == Status::Fail && copied && collapsed)
            .then(|| zeros_hint(c))
            .flatten()
    });
    if let Some(hint) = hint {
        outcome.message.push_str("; ");
        outcome.message.push_str(&hint);
    }
    by_path(input, outcome)
}

/// Where the vertex stage reads float vectors the profile gives no role and no value, fed zeros:
/// a cause of collapsed positions to name (a per-instance world matrix's rows left at zero,
/// sokol's `inst_xxxx`).
fn zeros_hint(c: &crate::contract::Contract) -> Option<String> {
    use wgpu::VertexFormat as F;
    let zeros: Vec<(u32, usize)> = (c.vertex_inputs.iter())
        .filter(|v| v.role == Role::Zeros)
        .filter_map(|v| match v.attribute.format {
            F::Float32x2 => Some((v.attribute.shader_location, 2)),
            F::Float32x3 => Some((v.attribute.shader_location, 3)),
            F::Float32x4 => Some((v.attribute.shader_location, 4)),
            _ => None,
        })
        .filter(|(l, _)| c.input_values.iter().all(|i| i.location != *l))
        .collect();
    let &(first, n) = zeros.first()?;
    let example: Vec<&str> = (0..n).map(|k| if k == 0 { "1" } else { "0" }).collect();
    let example = format!("[{}]", example.join(", "));
    let zeros: Vec<u32> = zeros.iter().map(|z| z.0).collect();
    let (what, them) = match zeros.len() {
        1 => ("the attribute at location", "it moves the vertex (a per-instance world matrix's row or column), give its value"),
        _ => ("the attributes at locations", "they move the vertex (a per-instance world matrix's rows or columns), give each its value"),
    };
    Some(format!(
        "every vertex lands at one point, and the stage reads {what} {} that the profile gives no role, fed zeros: where {them} in `vertex.inputs` (`{{ {first}: {example} }}`)",
        crate::contract::list(&zeros),
    ))
}

fn shader_builds(input: &Input) -> Outcome {
    let p = &input.ctx.pipelines;
    match p.errors() {
        None => Outcome::pass("0 errors"),
        Some(m) => {
            let failed = |b: Option<bool>| usize::from(b == Some(true));
            let n = failed(p.compute.as_ref().map(Result::is_err))
                + failed(p.render.as_ref().map(Result::is_err));
            Outcome::fail(
                format!("{n} error{}", if n == 1 { "" } else { "s" }),
                format!("the shader did not build into pipelines:\n{m}"),
            )
        }
    }
}

fn positions_match(
    gpu: &Result<Skinned, GpuError>,
    expected: &[[f32; 3]],
    tolerance: f64,
    gpu_label: &str,
    expected_label: &str,
) -> Outcome {
    let gpu = match gpu {
        Ok(Skinned {
            fault: Some(fault),
            positions,
            ..
        }) => {
            let figure = match fault {
                Fault::WrotePastCount(_) => "wrote past count",
                Fault::Unwritten(_) => "vertex unwritten",
                Fault::NonZeroW { .. } => "w not 0",
                Fault::OutsideFields { .. } => "wrote outside its fields",
                Fault::OutsideRegions { .. } => "wrote outside its regions",
            };
            return Outcome::fail(
                figure,
                format!("{fault} (the case has {} vertices)", positions.len()),
            );
        }
        Ok(g) => &g.positions,
        Err(e) => return Outcome::gpu(e),
    };
    let w = compare::max_abs_error(gpu, expected);
    let shown = |p: Option<&[f32; 3]>| p.map_or("-".to_string(), |p| format!("{p:?}"));
    // A NaN or an infinity is not "off by" anything: say what it is.
    let bad = |p: &[f32; 3]| p.iter().any(|c| !c.is_finite());
    if let Some(v) = gpu.iter().position(bad) {
        let count = gpu.iter().filter(|p| bad(p)).count();
        return Outcome::fail(
            "not finite",
            format!(
                "{count} of {} vertices are not finite (NaN or infinite), the first vertex {v}: {gpu_label} {} vs {expected_label} {}",
                expected.len(),
                shown(gpu.get(v)),
                shown(expected.get(v))
            ),
        );
    }
    Outcome::expect(w.error <= tolerance, format!("{:.2e}", w.error), || {
        let (g, e) = (shown(gpu.get(w.vertex)), shown(expected.get(w.vertex)));
        format!(
            "max abs error {:.3e} exceeds the tolerance {tolerance:.1e} by {:.3e}, at vertex {} of {}: {gpu_label} {g} vs {expected_label} {e}",
            w.error,
            w.error - tolerance,
            w.vertex,
            expected.len()
        )
    })
}

fn pose_moves_vertices(input: &Input) -> Outcome {
    let run = input.run;
    if !run.scene.is_posed() {
        return Outcome::skip(run.scene.unposed_reason());
    }
    let moved = run.scene.displacement;
    let min = input.case.tolerance.min_displacement;
    Outcome::expect(moved >= min, format!("{moved:.3}"), || {
        format!(
            "the pose moves no vertex by more than {moved:.3e} (tolerance.min_displacement is {min:.1e}): the posed comparison would prove nothing"
        )
    })
}

/// A reason to skip the render checks, if the mesh draws no triangle.
fn no_triangles(input: &Input) -> Option<Outcome> {
    let mesh = &input.run.scene.mesh;
    mesh.indices.is_empty().then(|| {
        let n = mesh.len();
        Outcome::skip(format!(
            "the mesh has no triangle to draw ({n} vert{})",
            if n == 1 { "ex" } else { "ices" }
        ))
    })
}

fn render_covers_bind_pose(input: &Input) -> Outcome {
    if let Some(skip) = no_triangles(input) {
        return skip;
    }
    let img = match input.run.image_bind() {
        Ok(i) => i,
        Err(e) => return Outcome::gpu(e),
    };
    let covered = compare::coverage(img);
    let [lo, hi] = input.run.scene.coverage;
    Outcome::expect((lo..=hi).contains(&covered), covered.to_string(), || {
        let scene = &input.run.scene;
        if let Some(([x0, x1], [y0, y1])) = scene.off_view {
            let v = scene.view;
            return format!(
                "{covered} pixels covered at the bind pose: render.view (scale {}, offset_y {}, half_width {}) puts the bind-pose strip at clip x {x0:.3} to {x1:.3}, y {y0:.3} to {y1:.3}, wholly outside the image's -1 to 1: change render.view, or leave it out to fit the view to the strip",
                v.scale, v.offset_y, v.half_width
            );
        }
        let source = if input.case.render.bind_coverage.is_some() {
            "render.bind_coverage"
        } else if input.case.model.is_some() {
            "the default for a model: anything drawn short of the whole target; set render.bind_coverage to narrow it"
        } else {
            "the default: the bind-pose strip's area in pixels, give or take its edge, and at least 1, \
             since an empty render proves nothing; widen mesh.width or change render.view if the strip \
             is thinner than a pixel, or set render.bind_coverage"
        };
        format!("{covered} pixels covered at the bind pose, expected {lo} to {hi} ({source})")
    })
}

fn render_changes_after_pose(input: &Input) -> Outcome {
    if let Some(skip) = no_triangles(input) {
        return skip;
    }
    if !input.run.scene.is_posed() {
        return Outcome::skip(input.run.scene.unposed_reason());
    }
    let (bind, posed) = match (input.run.image_bind(), input.run.image_posed()) {
        (Ok(b), Ok(p)) => (b, p),
        (Err(e), _) | (_, Err(e)) => return Outcome::gpu(e),
    };
    let changed = compare::changed_pixels(bind, posed);
    let min = input.case.render.min_changed_pixels;
    Outcome::expect(changed >= min, changed.to_string(), || {
        format!("only {changed} pixels changed after posing, expected at least {min} (render.min_changed_pixels)")
    })
}

fn render_matches_golden(input: &Input) -> Outcome {
    let (case, info) = (input.case, &input.ctx.info);
    input.goldens.clear_artifacts(&case.name, &info.tag);
    if let Some(skip) = no_triangles(input) {
        return skip;
    }
    if !case.golden.compare {
        return Outcome::skip("the case turns the golden comparison off (golden.compare: false)");
    }
    let actual = match (input.run.image_posed(), input.run.image_posed_again()) {
        (Ok(i), Ok(again)) => {
            let differ = compare::changed_pixels(i, again);
            if differ > 0 {
                return Outcome::fail(
                    format!("{differ} px nondeterministic"),
                    format!("nondeterminism: two renders of the same posed frame differ in {differ} pixels, so no golden comparison can be trusted"),
                );
            }
            i
        }
        (Err(e), _) | (_, Err(e)) => return Outcome::gpu(e),
    };
    // A shader that draws its own colour is held to the goldens' coverage, not their colours.
    let coverage_only = !input.ctx.contract().tint;
    let masked;
    let actual = if coverage_only {
        masked = golden::coverage(actual);
        &masked
    } else {
        actual
    };
    let g = &case.golden;
    let subject = golden::Subject {
        case: &case.name,
        stem: case.golden_for(info),
        case_source: &case.source,
        case_file: &case.path,
        adapter: golden::Adapter {
            tag: &info.tag,
            name: &info.name,
            backend: &info.backend,
            driver: &info.driver,
            driver_info: &info.driver_info,
        },
        tolerance: golden::Tolerance {
            metric: g.metric,
            channel_tolerance: g.channel_tolerance,
            subpixel: g.subpixel,
            max_differing_pixels: g.max_differing_pixels,
            flip_max_mean: g.flip_max_mean,
            flip_percentile: g.flip_percentile,
            flip_max_percentile: g.flip_max_percentile,
        },
        actual,
        coverage_only,
    };
    input.goldens.judge(&subject).into()
}

impl From<golden::Judgement> for Outcome {
    fn from(j: golden::Judgement) -> Self {
        let status = if j.passed { Status::Pass } else { Status::Fail };
        Outcome {
            review: j.review,
            ..Outcome::new(status, j.figure, j.message)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::{Expect, Expected};

    fn expect_fail() -> Expect {
        Expect {
            on: Default::default(),
            check: "render_matches_golden".into(),
            status: Expected::Fail,
            reason: "a driver bug".into(),
        }
    }

    #[test]
    fn a_position_that_is_not_finite_is_named_as_such() {
        let expected = vec![[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]];
        let gpu = |p: Vec<[f32; 3]>| {
            Ok(Skinned {
                positions: p,
                fault: None,
                normals: None,
                tangents: None,
            })
        };
        let nan = positions_match(
            &gpu(vec![[0.0, 1.0, 2.0], [f32::NAN, 4.0, 5.0]]),
            &expected,
            1e-5,
            "GPU",
            "CPU",
        );
        assert_eq!(nan.status, Status::Fail);
        assert!(
            nan.message.starts_with("1 of 2 vertices are not finite (NaN or infinite), the first vertex 1: GPU [NaN, 4.0, 5.0] vs CPU [3.0, 4.0, 5.0]"),
            "{}",
            nan.message
        );
        let off = positions_match(
            &gpu(vec![[0.0, 1.0, 2.0], [3.5, 4.0, 5.0]]),
            &expected,
            1e-5,
            "GPU",
            "CPU",
        );
        assert!(
            off.message
                .contains("at vertex 1 of 2: GPU [3.5, 4.0, 5.0] vs CPU [3.0, 4.0, 5.0]"),
            "{}",
            off.message
        );
        assert_eq!(
            positions_match(&gpu(expected.clone()), &expected, 1e-5, "GPU", "CPU").status,
            Status::Pass
        );
    }

    #[test]
    fn a_layout_expectation_matches_only_the_failure_it_names() {
        let at = "p.profile.yaml:9";
        let e = |o: Outcome| o.expected_by_layout("fixed array of 256", "256 matrices", at);
        let matched = e(Outcome::fail(
            "-",
            "the palette is a fixed array of 256 matrices",
        ));
        assert_eq!(matched.status, Status::ExpectedFail);
        assert!(matched
            .message
            .starts_with("expected failure (256 matrices; p.profile.yaml:9): "));
        let other = e(Outcome::fail("-", "max error 0.5"));
        assert_eq!(other.status, Status::Fail);
        assert!(other
            .message
            .contains("expects a failure matching `fixed array of 256`"));
        let passed = e(Outcome::pass("0"));
        assert_eq!(passed.status, Status::UnexpectedPass);
        assert!(passed
            .message
            .contains("remove that `expect` entry at p.profile.yaml:9"));
        assert_eq!(e(Outcome::skip("no stage")).status, Status::Skip);
    }

    #[test]
    fn an_expected_failure_meets_each_outcome() {
        let e = expect_fail();
        let f = "cases/x.yaml";
        let failed = Outcome::fail("3 px", "differs").expecting(Some(&e), f);
        assert_eq!(failed.status, Status::ExpectedFail);
        let passed = Outcome::pass("0 px").expecting(Some(&e), f);
        assert_eq!(passed.status, Status::UnexpectedPass);
        assert!(passed
            .message
            .contains("remove that `expect` entry from cases/x.yaml"));
        let skipped = Outcome::skip("the golden comparison is off").expecting(Some(&e), f);
        assert_eq!(skipped.status, Status::Skip);
        assert!(
            skipped.message.starts_with("the golden comparison is off; the `expect` entry for `render_matches_golden` in cases/x.yaml (a driver bug) is not tested"),
            "{}",
            skipped.message
        );
        assert_eq!(Outcome::skip("why").expecting(None, f).message, "why");
    }
}
