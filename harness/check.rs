//! The checks run per case and adapter: each is one function from a run to an outcome row.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::case::Case;
use crate::compare;
use crate::golden;
use crate::gpu::{Context, GpuError};
use crate::run::Run;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Status {
    Pass,
    Fail,
    Skip,
    /// The GPU did not answer in time: a hang, not a wrong answer.
    Timeout,
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Status::Pass => "PASS",
            Status::Fail => "FAIL",
            Status::Skip => "SKIP",
            Status::Timeout => "TIMEOUT",
        })
    }
}

/// What a check found: its status, the figure it measured, and for anything but a pass, why.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    pub status: Status,
    pub figure: String,
    pub message: String,
}

impl Outcome {
    fn pass(figure: impl Into<String>) -> Self {
        Self {
            status: Status::Pass,
            figure: figure.into(),
            message: String::new(),
        }
    }
    fn fail(figure: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            status: Status::Fail,
            figure: figure.into(),
            message: message.into(),
        }
    }
    fn skip(message: impl Into<String>) -> Self {
        Self {
            status: Status::Skip,
            figure: "-".into(),
            message: message.into(),
        }
    }
    fn gpu(e: &GpuError) -> Self {
        Self {
            status: if e.is_timeout() {
                Status::Timeout
            } else {
                Status::Fail
            },
            figure: "-".into(),
            message: e.to_string(),
        }
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

/// The checks, in report order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Check {
    ShaderBuilds,
    ComputeMatchesCpu,
    BindReproducesSource,
    PosedMatchesCpu,
    PoseMovesVertices,
    RenderCoversBindPose,
    RenderChangesAfterPose,
    RenderMatchesGolden,
}

/// What a check reads.
pub struct Input<'a> {
    pub root: &'a Path,
    /// The reports folder, for actual/diff images.
    pub reports: &'a Path,
    pub case: &'a Case,
    pub ctx: &'a Context,
    pub run: &'a Run,
    /// Whether the user asked to bless goldens.
    pub bless: bool,
}

impl Check {
    pub const ALL: [Check; 8] = [
        Check::ShaderBuilds,
        Check::ComputeMatchesCpu,
        Check::BindReproducesSource,
        Check::PosedMatchesCpu,
        Check::PoseMovesVertices,
        Check::RenderCoversBindPose,
        Check::RenderChangesAfterPose,
        Check::RenderMatchesGolden,
    ];

    /// The trial name part, e.g. `compute_matches_cpu`.
    pub fn name(self) -> &'static str {
        match self {
            Check::ShaderBuilds => "shader_builds",
            Check::ComputeMatchesCpu => "compute_matches_cpu",
            Check::BindReproducesSource => "bind_pose_reproduces_source",
            Check::PosedMatchesCpu => "posed_matches_cpu",
            Check::PoseMovesVertices => "pose_moves_vertices",
            Check::RenderCoversBindPose => "render_covers_bind_pose",
            Check::RenderChangesAfterPose => "render_changes_after_pose",
            Check::RenderMatchesGolden => "render_matches_golden",
        }
    }

    /// What the check proves, as the report's column heading says it.
    pub fn title(self) -> &'static str {
        match self {
            Check::ShaderBuilds => "the shader validates and builds on the adapter (errors)",
            Check::ComputeMatchesCpu => "GPU compute skinning equals CPU LBS (max abs error)",
            Check::BindReproducesSource => {
                "at the bind pose, GPU skinning reproduces the source vertices (max abs error)"
            }
            Check::PosedMatchesCpu => {
                "after posing the joints, GPU still equals CPU (max abs error)"
            }
            Check::PoseMovesVertices => "posing really moved the vertices (max displacement)",
            Check::RenderCoversBindPose => {
                "the render path drew geometry at the bind pose (covered pixels)"
            }
            Check::RenderChangesAfterPose => {
                "the rendered image changed after posing (changed pixels)"
            }
            Check::RenderMatchesGolden => {
                "the posed render matches its golden image (differing pixels)"
            }
        }
    }

    pub fn run(self, input: &Input) -> Outcome {
        match self {
            Check::ShaderBuilds => shader_builds(input),
            Check::ComputeMatchesCpu => positions_match(
                &input.run.gpu_bind,
                &input.run.cpu_bind,
                input.case.tolerance.max_abs_error,
                "GPU (bind pose)",
                "CPU LBS",
            ),
            Check::BindReproducesSource => positions_match(
                &input.run.gpu_bind,
                &input.run.scene.mesh.positions,
                input.case.tolerance.max_abs_error,
                "GPU (bind pose)",
                "source position",
            ),
            Check::PosedMatchesCpu => positions_match(
                &input.run.gpu_posed,
                &input.run.cpu_posed,
                input.case.tolerance.max_abs_error,
                "GPU (posed)",
                "CPU LBS",
            ),
            Check::PoseMovesVertices => pose_moves_vertices(input),
            Check::RenderCoversBindPose => render_covers_bind_pose(input),
            Check::RenderChangesAfterPose => render_changes_after_pose(input),
            Check::RenderMatchesGolden => render_matches_golden(input),
        }
    }
}

fn shader_builds(input: &Input) -> Outcome {
    match &input.ctx.pipelines {
        Ok(_) => Outcome::pass("0 errors"),
        Err(m) => Outcome::fail(
            "1 error",
            format!("the shader did not build into pipelines: {m}"),
        ),
    }
}

fn positions_match(
    gpu: &Result<Vec<[f32; 3]>, GpuError>,
    expected: &[[f32; 3]],
    tolerance: f64,
    gpu_label: &str,
    expected_label: &str,
) -> Outcome {
    let gpu = match gpu {
        Ok(g) => g,
        Err(e) => return Outcome::gpu(e),
    };
    let w = compare::max_abs_error(gpu, expected);
    Outcome::expect(w.error <= tolerance, format!("{:.2e}", w.error), || {
        let (g, e) = (gpu.get(w.vertex), expected.get(w.vertex));
        format!(
            "max abs error {:.3e} exceeds the tolerance {tolerance:.1e} by {:.3e}, at vertex {} of {}: {gpu_label} {g:?} vs {expected_label} {e:?}",
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
        return Outcome::skip("the case's pose is the bind pose");
    }
    let moved = compare::max_abs_error(&run.cpu_posed, &run.scene.mesh.positions);
    let min = input.case.tolerance.min_displacement;
    Outcome::expect(moved.error >= min, format!("{:.3}", moved.error), || {
        format!(
            "the pose moves no vertex by more than {:.3e} (tolerance.min_displacement is {min:.1e}): the posed comparison would prove nothing",
            moved.error
        )
    })
}

/// A reason to skip the render checks, if the mesh draws no triangle.
fn no_triangles(input: &Input) -> Option<Outcome> {
    let mesh = &input.run.scene.mesh;
    mesh.indices.is_empty().then(|| {
        Outcome::skip(format!(
            "the mesh has no triangle to draw ({} vertices)",
            mesh.len()
        ))
    })
}

fn render_covers_bind_pose(input: &Input) -> Outcome {
    if let Some(skip) = no_triangles(input) {
        return skip;
    }
    let img = match &input.run.image_bind {
        Ok(i) => i,
        Err(e) => return Outcome::gpu(e),
    };
    let covered = compare::coverage(img);
    let [lo, hi] = input.case.bind_coverage();
    Outcome::expect((lo..=hi).contains(&covered), covered.to_string(), || {
        format!("{covered} pixels covered at the bind pose, expected {lo} to {hi} (render.bind_coverage)")
    })
}

fn render_changes_after_pose(input: &Input) -> Outcome {
    if let Some(skip) = no_triangles(input) {
        return skip;
    }
    if !input.run.scene.is_posed() {
        return Outcome::skip("the case's pose is the bind pose");
    }
    let (bind, posed) = match (&input.run.image_bind, &input.run.image_posed) {
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
    if let Some(skip) = no_triangles(input) {
        return skip;
    }
    if !input.case.golden.compare {
        return Outcome::skip("the case turns the golden comparison off (golden.compare: false)");
    }
    let actual = match &input.run.image_posed {
        Ok(i) => i,
        Err(e) => return Outcome::gpu(e),
    };
    let case = input.case;
    let tag = &input.ctx.info.tag;
    let path = golden::path(input.root, case.golden_name());
    let shown = path
        .strip_prefix(input.root)
        .unwrap_or(&path)
        .display()
        .to_string();
    let bless = input.bless;
    let threshold = case.golden.channel_tolerance;
    let allowed = case.golden.max_differing_pixels;
    let expected = match golden::load(&path) {
        Ok(e) => e,
        Err(e) if !bless => {
            return Outcome::fail(
                "-",
                format!(
                    "{e}\n  to replace it: {}",
                    golden::bless_command(&case.name)
                ),
            )
        }
        Err(_) => None,
    };
    let problem = match &expected {
        Some(e) => {
            let d = compare::diff_images(e, actual, threshold);
            if d.differing <= allowed {
                return Outcome::pass(format!("{} px", d.differing));
            }
            let (a_path, d_path) = golden::artifact_paths(input.reports, &case.name, tag);
            let saved = golden::write_png(&a_path, actual)
                .and_then(|_| golden::write_png(&d_path, &d.image));
            let files = match saved {
                Ok(()) => format!(
                    "actual: {}\n  diff:   {}",
                    a_path.display(),
                    d_path.display()
                ),
                Err(e) => format!("(could not save the actual/diff images: {e})"),
            };
            (
                format!("{} px", d.differing),
                format!(
                    "{} pixels differ from {shown} by more than {threshold} per channel (allowed: {allowed}; largest channel difference {})\n  {files}",
                    d.differing, d.max_channel
                ),
            )
        }
        None => ("missing".to_string(), format!("no golden image {shown}")),
    };
    if bless {
        return match golden::bless(&path, actual, tag) {
            Ok(None) => Outcome::pass(format!("blessed {shown}")),
            Ok(Some(by)) => Outcome::fail(
                problem.0,
                format!("{}\n  the golden was blessed in this run from {by}, and this adapter renders differently", problem.1),
            ),
            Err(e) => Outcome::fail("-", e.to_string()),
        };
    }
    if expected.is_none() {
        let (a_path, _) = golden::artifact_paths(input.reports, &case.name, tag);
        let _ = golden::write_png(&a_path, actual);
    }
    Outcome::fail(
        problem.0,
        format!(
            "{}\n  to accept the new image: {}",
            problem.1,
            golden::bless_command(&case.name)
        ),
    )
}
