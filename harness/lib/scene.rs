//! Skeletons, poses, palettes and meshes: the scene that the CPU reference and the GPU paths share.

use std::sync::OnceLock;

use glam::{DQuat, DVec3, Mat4};

use crate::case::{Case, CaseError, IfMissing};
use crate::format::{NormalMatrix, Reads, TangentFrame};
use crate::rig::{strip, Mesh, Pose, Skeleton, View};

/// What one case describes: skeleton, mesh, palettes at the bind pose and the pose, the CPU
/// reference's results for both, and how the case is drawn and judged. Built once per case.
#[derive(Clone, Debug)]
pub struct Scene {
    pub skeleton: Skeleton,
    pub mesh: Mesh,
    pub pose: Pose,
    pub bind_palette: Vec<Mat4>,
    pub posed_palette: Vec<Mat4>,
    /// The CPU oracle at the bind pose and at the pose.
    pub cpu_bind: Vec<[f32; 3]>,
    pub cpu_posed: Vec<[f32; 3]>,
    /// The CPU oracle's normals and tangents at the bind pose and at the pose (empty where the
    /// mesh has none).
    pub frames: Frames,
    /// The 2D view both images are drawn through.
    pub view: View,
    /// Allowed covered pixels at the bind pose.
    pub coverage: [u64; 2],
    /// Where the view puts the built-in strip in clip space, ([x0, x1], [y0, y1]), when that is
    /// wholly outside the image and the case gives no `render.bind_coverage`: nothing can cover.
    pub off_view: Option<([f64; 2], [f64; 2])>,
    /// Largest allowed |GPU - CPU| per coordinate, absolute.
    pub tolerance: f64,
    /// The largest distance the pose moves a vertex from the bind pose (CPU oracle), per
    /// coordinate; computed once for every adapter's checks.
    pub displacement: f64,
    /// Whether the pose is not the bind pose (see [`Scene::is_posed`]).
    posed: bool,
    /// [`Scene::normals_by`] per [`NormalMatrix::ALL`], each computed at its first use (by a
    /// failing normal trial, on whichever adapter fails first).
    normals_by: [OnceLock<[Vec<[f32; 3]>; 2]>; 3],
    /// [`Scene::tangents_by`] per [`TangentFrame::ALL`], as `normals_by`.
    tangents_by: [OnceLock<[Vec<[f32; 4]>; 2]>; 2],
}

/// Skinned normals and tangents, by the CPU reference.
#[derive(Clone, Debug, Default)]
pub struct Frames {
    pub bind_normals: Vec<[f32; 3]>,
    pub posed_normals: Vec<[f32; 3]>,
    pub bind_tangents: Vec<[f32; 4]>,
    pub posed_tangents: Vec<[f32; 4]>,
}

impl Frames {
    fn skin(bind: &[Mat4], posed: &[Mat4], mesh: &Mesh, reads: &Reads) -> Frames {
        use crate::reference::skin_normals;
        let (bind_normals, posed_normals) = (
            skin_normals(bind, mesh, reads.normals),
            skin_normals(posed, mesh, reads.normals),
        );
        Frames {
            bind_tangents: tangents(bind, mesh, &bind_normals, reads.tangents),
            posed_tangents: tangents(posed, mesh, &posed_normals, reads.tangents),
            bind_normals,
            posed_normals,
        }
    }
}

/// The CPU reference's tangents as a shader makes them `by`, beside its skinned `normals`.
fn tangents(
    palette: &[Mat4],
    mesh: &Mesh,
    normals: &[[f32; 3]],
    by: TangentFrame,
) -> Vec<[f32; 4]> {
    use crate::reference::{orthogonalise, skin_tangents};
    let skinned = skin_tangents(palette, mesh);
    match by {
        // A mesh without normals has nothing to make its tangents perpendicular to.
        TangentFrame::Orthogonal if normals.len() == skinned.len() => {
            orthogonalise(&skinned, normals)
        }
        _ => skinned,
    }
}

impl Scene {
    /// The CPU reference's normals at the bind pose and at the pose had the shader skinned them
    /// `by` another matrix: what a failing normal comparison checks the GPU's against, to say
    /// which `normal_matrix` the shader follows.
    pub fn normals_by(&self, by: NormalMatrix) -> &[Vec<[f32; 3]>; 2] {
        use crate::reference::skin_normals;
        let i = NormalMatrix::ALL.iter().position(|&n| n == by).unwrap_or(0);
        self.normals_by[i].get_or_init(|| {
            [
                skin_normals(&self.bind_palette, &self.mesh, by),
                skin_normals(&self.posed_palette, &self.mesh, by),
            ]
        })
    }

    /// The CPU reference's tangents at the bind pose and at the pose had the shader made them
    /// `by` another frame (beside the normals the profile says): what a failing tangent
    /// comparison checks the GPU's against, to say which `tangent_frame` the shader follows.
    pub fn tangents_by(&self, by: TangentFrame) -> &[Vec<[f32; 4]>; 2] {
        let i = TangentFrame::ALL.iter().position(|&t| t == by).unwrap_or(0);
        self.tangents_by[i].get_or_init(|| {
            let f = &self.frames;
            [
                tangents(&self.bind_palette, &self.mesh, &f.bind_normals, by),
                tangents(&self.posed_palette, &self.mesh, &f.posed_normals, by),
            ]
        })
    }
}

/// Why a case has no scene: a skip (an optional asset is absent) or a failure.
#[derive(Clone, Debug, PartialEq)]
pub enum SceneError {
    Skip(String),
    Fail(String),
}

/// What a layout's `expect` entries cover a case by (`joints_above`, `influences_above`): its
/// joints and the most influences one of its vertices has.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub joints: Option<usize>,
    pub influences: Option<usize>,
}

impl Scene {
    /// The case's chain and strip, or its glTF model, posed as the case says.
    pub fn from_case(case: &Case) -> Result<Scene, SceneError> {
        Scene::for_shader(case, &Reads::default())
    }

    /// The case's counts without building its scene (one that failed to build): the chain's
    /// joints and the strip's influences, or its model's, loaded once (a strip of `influences:
    /// max` takes the `most` a shader reads); each None where the case names neither or its
    /// model does not load.
    pub fn counts_alone(case: &Case, most: usize) -> Counts {
        if let Some(spec) = &case.model {
            let path = case.model_path();
            let model = path.and_then(|p| crate::model::load(&p, spec.mesh.as_deref()).ok());
            return Counts {
                joints: model.as_ref().map(|m| m.skeleton.joints.len()),
                influences: model.as_ref().map(|m| m.mesh.most_influences()),
            };
        }
        Counts {
            joints: case.skeleton.as_ref().map(|s| s.joints),
            influences: case.mesh.as_ref().map(|m| m.influences.count(most)),
        }
    }

    /// The scene's counts.
    pub fn counts(&self) -> Counts {
        Counts {
            joints: Some(self.skeleton.joints.len()),
            influences: Some(self.most_influences()),
        }
    }

    /// The most influences one of the scene's vertices has.
    pub fn most_influences(&self) -> usize {
        self.mesh.most_influences()
    }

    /// The scene as a shader that `reads` so sees it: refused when the case has more joints than
    /// its palette holds, a vertex of more influences than it reads, or a joint index that does
    /// not fit its joint format; each vertex's influences in its first slots where it reads fewer
    /// than 4; weights, normals and tangents quantised as it reads them, so the CPU reference
    /// sees the same.
    pub fn for_shader(case: &Case, reads: &Reads) -> Result<Scene, SceneError> {
        let (skeleton, mut mesh, mut pose, bind_palette) = match (
            &case.model,
            &case.skeleton,
            &case.mesh,
        ) {
            (Some(spec), _, _) => {
                let path = case.model_path().unwrap_or_default();
                if !path.exists() {
                    let why = format!(
                        "{}: model file {} is not there",
                        case.path.display(),
                        path.display()
                    );
                    return Err(match spec.if_missing {
                        IfMissing::Skip => SceneError::Skip(why),
                        IfMissing::Fail => SceneError::Fail(why),
                    });
                }
                let model = crate::model::load(&path, spec.mesh.as_deref()).map_err(|e| {
                    // A model that loads without the mesh name: the name is what is wrong.
                    if spec.mesh.is_some() && crate::model::load(&path, None).is_ok() {
                        case_error(case, "model.mesh", e.to_string())
                    } else {
                        SceneError::Fail(format!("{}: model: {e}", case.path.display()))
                    }
                })?;
                let pose = match spec.time {
                        None => model.rest_pose(),
                        Some(_) if model.clips.is_empty() && spec.animation.is_none() => {
                            return Err(case_error(
                                case,
                                "model.time",
                                format!(
                                    "{} has no animations, so there is nothing to sample at a time; leave `time` out for its rest pose",
                                    path.display()
                                ),
                            ))
                        }
                        Some(t) => {
                            let wanted = spec.animation.as_deref().unwrap_or("0");
                            let clip = model.clip_index(wanted).ok_or_else(|| {
                                let names: Vec<&str> =
                                    model.clips.iter().map(|c| c.name.as_str()).collect();
                                case_error(
                                    case,
                                    "model.animation",
                                    format!(
                                        "no clip `{wanted}` in {}; it has {}",
                                        path.display(),
                                        if names.is_empty() {
                                            "none".to_string()
                                        } else {
                                            format!("{} (or their index from 0)", names.join(", "))
                                        }
                                    ),
                                )
                            })?;
                            if model.clips[clip].morph_animated {
                                return Err(case_error(
                                    case,
                                    "model.animation",
                                    format!(
                                        "clip `{}` animates the morph target weights of the skinned mesh, which the harness does not sample (it skins the mesh at its default weights); choose another clip or the rest pose",
                                        model.clips[clip].name
                                    ),
                                ));
                            }
                            model.pose_at(clip, t)
                        }
                    };
                // The bind pose is where every joint's global is the inverse of its inverse bind
                // matrix: the identity palette, by definition.
                let bind = vec![Mat4::IDENTITY; model.skeleton.joints.len()];
                (model.skeleton, model.mesh, pose, bind)
            }
            (None, Some(s), Some(m)) => {
                let skeleton = Skeleton::chain(s.joints, s.segment_length);
                let width = m.width.unwrap_or(0.2 * s.segment_length);
                let influences = m.influences.count(reads.most());
                let mesh = strip(s.joints, s.segment_length, m.vertices, width, influences);
                let pose = skeleton.bind_pose();
                let bind = skeleton.palette(&pose);
                (skeleton, mesh, pose, bind)
            }
            _ => {
                return Err(SceneError::Fail(format!(
                    "{}: neither a model nor a skeleton and mesh",
                    case.path.display()
                )))
            }
        };
        let unposed = pose.clone();
        for (i, jp) in case.pose.iter().enumerate() {
            if jp.joint >= skeleton.joints.len() {
                // Only now is a model's joint count known, so this is checked here, not at load.
                return Err(case_error(
                    case,
                    &format!("pose[{i}].joint"),
                    format!(
                        "joint {} is out of range: the model has {} joints",
                        jp.joint,
                        skeleton.joints.len()
                    ),
                ));
            }
            apply(&skeleton, &mut pose, jp);
        }
        if let Some(c) = (reads.capacity.as_ref()).filter(|c| skeleton.joints.len() > c.joints) {
            return Err(SceneError::Fail(format!(
                "{}: the case has {} joints and the layout holds {}: {}{}",
                case.path.display(),
                skeleton.joints.len(),
                c.joints,
                c.fixed,
                c.whence
            )));
        }
        if let Some(v) = (0..mesh.len()).find(|&v| mesh.influences(v).len() > reads.most()) {
            let read = match reads.lanes {
                4 => format!(
                    "{} influence set{} of 4{}{}",
                    reads.sets,
                    if reads.sets == 1 { "" } else { "s" },
                    reads.sets_whence,
                    reads.lanes_whence
                ),
                n => format!("{n} influences a vertex{}", reads.lanes_whence),
            };
            return Err(SceneError::Fail(format!(
                "{}: vertex {v} has {} influences, {} ({read}); dropping any would test another deformation than the case's",
                case.path.display(),
                mesh.influences(v).len(),
                crate::format::MORE_THAN_READ,
            )));
        }
        if reads.lanes < 4 {
            mesh.gather_influences();
        }
        if let Some(whence) = &reads.planar {
            if let Some(v) = mesh.positions.iter().position(|p| p[2] != 0.0) {
                return Err(SceneError::Fail(format!(
                    "{}: vertex {v} is at z = {}, and the shader takes planar positions, x and y alone{whence}; dropping z would test another mesh than the case's (a profile states such cases in `expect`, matching \"the shader takes planar positions\")",
                    case.path.display(),
                    mesh.positions[v][2],
                )));
            }
        }
        for k in 0..mesh.sets() {
            if let Err(e) = reads.joints.pack(&mesh.set_data(k).0) {
                return Err(SceneError::Fail(format!(
                    "{}: {e}{}",
                    case.path.display(),
                    reads.joints_whence
                )));
            }
        }
        quantise_weights(&mut mesh, reads);
        for n in &mut mesh.normals {
            *n = reads.normal_encoding.quantise(*n);
        }
        for t in &mut mesh.tangents {
            *t = reads.tangent_encoding.quantise(*t);
        }
        let posed_palette = skeleton.palette(&pose);
        let cpu_bind = crate::reference::skin(&bind_palette, &mesh);
        let cpu_posed = crate::reference::skin(&posed_palette, &mesh);
        if !finite(&posed_palette, &cpu_posed) {
            return Err(overflow(case, &skeleton, &mesh, unposed));
        }
        let extent = cpu_bind
            .iter()
            .chain(&cpu_posed)
            .flatten()
            .fold(0.0f64, |m, v| m.max(v.abs() as f64));
        let tolerance = match (
            case.tolerance.max_relative_error,
            case.tolerance.max_abs_error,
        ) {
            (Some(r), _) => r * extent.max(f64::MIN_POSITIVE),
            (None, Some(a)) => a,
            (None, None) => default_tolerance(extent),
        };
        let view = case
            .render
            .view
            .unwrap_or_else(|| fit_view(&cpu_bind, &cpu_posed, case));
        let coverage = case
            .render
            .bind_coverage
            .unwrap_or_else(|| default_coverage(case, view));
        // Posed by what the pose does, not how it is written: 0 and 360 degrees, or a model's rest
        // pose that is its bind pose up to rounding, move no vertex beyond the tolerance and are
        // the bind pose alike. A pose that moves a little more is posed, and pose_moves_vertices
        // holds it to min_displacement.
        let displacement = crate::compare::max_abs_error(&cpu_posed, &cpu_bind).error;
        let posed = posed_palette != bind_palette && displacement > tolerance;
        let frames = Frames::skin(&bind_palette, &posed_palette, &mesh, reads);
        Ok(Scene {
            frames,
            skeleton,
            mesh,
            pose,
            bind_palette,
            posed_palette,
            cpu_bind,
            cpu_posed,
            view,
            coverage,
            off_view: strip_in_clip(case, view)
                .filter(|([x0, x1], [y0, y1])| {
                    *x0 >= 1.0 || *x1 <= -1.0 || *y0 >= 1.0 || *y1 <= -1.0
                })
                .filter(|_| case.render.bind_coverage.is_none()),
            tolerance,
            displacement,
            posed,
            normals_by: Default::default(),
            tangents_by: Default::default(),
        })
    }

    /// Whether the pose is not the bind pose: it moves some vertex beyond the tolerance.
    pub fn is_posed(&self) -> bool {
        self.posed
    }

    /// Why the posed checks skip a case at its bind pose.
    pub fn unposed_reason(&self) -> String {
        format!(
            "the case's pose is the bind pose: it moves no vertex beyond the tolerance (largest displacement {:.3e}, tolerance {:.1e})",
            self.displacement, self.tolerance
        )
    }
}

/// Applies one pose entry (rotation about the axis, translation, scale) to its joint's local TRS.
/// Each vertex's weights as the shader reads them: quantised by its format over all its sets at
/// once (the integers summing as the case's weights do), the last implied where it is.
fn quantise_weights(mesh: &mut Mesh, reads: &crate::format::Reads) {
    let sets = mesh.sets_data(mesh.sets(), |w| reads.weights.quantise_sets(w));
    for (k, (_, weights)) in sets.into_iter().enumerate() {
        match k {
            0 => {
                let implied = |w| reads.last_weight.apply(w, reads.lanes);
                mesh.weights = weights.into_iter().map(implied).collect();
            }
            _ => mesh.more[k - 1].weights = weights,
        }
    }
}

fn apply(skeleton: &Skeleton, pose: &mut Pose, jp: &crate::case::JointPose) {
    let local = &mut pose.locals[skeleton.joints[jp.joint]];
    let axis = DVec3::from(jp.axis).normalize();
    local.rotation = DQuat::from_axis_angle(axis, jp.degrees.to_radians()) * local.rotation;
    local.translation += DVec3::from(jp.translation);
    local.scale *= DVec3::from(jp.scale);
}

/// Whether every palette entry and skinned coordinate is a finite f32.
fn finite(palette: &[Mat4], skinned: &[[f32; 3]]) -> bool {
    palette.iter().all(|m| m.is_finite()) && skinned.iter().flatten().all(|v| v.is_finite())
}

/// The error for a pose that overflows f32, naming the first pose entry after which it does (its
/// scale or translation, multiplied down the chain), or the model's time when none does.
fn overflow(case: &Case, skeleton: &Skeleton, mesh: &Mesh, mut pose: Pose) -> SceneError {
    const WHY: &str =
        "the pose overflows f32: a skinning matrix or a skinned position is not finite \
                       (scales and translations multiply down the chain)";
    for (i, jp) in case.pose.iter().enumerate() {
        apply(skeleton, &mut pose, jp);
        let palette = skeleton.palette(&pose);
        if !finite(&palette, &crate::reference::skin(&palette, mesh)) {
            return case_error(case, &format!("pose[{i}]"), WHY.to_string());
        }
    }
    case_error(case, "model.time", WHY.to_string())
}

/// A case-file error found only when the scene is built: file, line and field, as at load.
fn case_error(case: &Case, field: &str, message: String) -> SceneError {
    let file = case.path.display().to_string();
    SceneError::Fail(CaseError::invalid(&file, &case.source, field, message).to_string())
}

/// The tolerance a case gets when it sets none: 1e-5, or 8 f32 ulps of the extent (the largest
/// coordinate) where that is larger. A correct f32 shader is a few ulps off the f64 oracle, so a
/// fixed 1e-5 would fail one on a model a few hundred units across.
pub fn default_tolerance(extent: f64) -> f64 {
    const ABSOLUTE: f64 = 1e-5;
    if !(extent.is_finite() && extent > 0.0) {
        return ABSOLUTE;
    }
    // ulp(x) = 2^(exponent(x) - 23) for an f32 x.
    let ulp = (extent.log2().floor() - 23.0).exp2();
    ABSOLUTE.max(8.0 * ulp)
}

/// A view that keeps the chain's whole reach (built-in cases) or both the bind and the posed
/// positions (models) inside the target.
fn fit_view(bind: &[[f32; 3]], posed: &[[f32; 3]], case: &Case) -> View {
    if let (Some(s), Some(m)) = (&case.skeleton, &case.mesh) {
        let reach = s.joints as f64 * s.segment_length + m.width.unwrap_or(0.2 * s.segment_length);
        return View {
            scale: 0.9 / reach,
            offset_y: 0.0,
            half_width: reach / 0.9,
        };
    }
    let (mut lo, mut hi, mut x) = (f64::MAX, f64::MIN, 0.0f64);
    for p in bind.iter().chain(posed) {
        lo = lo.min(p[1] as f64);
        hi = hi.max(p[1] as f64);
        x = x.max((p[0] as f64).abs());
    }
    let height = (hi - lo).max(1e-9);
    let scale = 1.8 / height;
    View {
        scale,
        offset_y: -0.9 - lo * scale,
        half_width: x.max(1e-9) / 0.9,
    }
}

/// The built-in strip's length (its joints' segments) and width; None for a model.
fn strip_size(case: &Case) -> Option<(f64, f64)> {
    let (s, m) = (case.skeleton.as_ref()?, case.mesh.as_ref()?);
    let length = s.joints as f64 * s.segment_length;
    Some((length, m.width.unwrap_or(0.2 * s.segment_length)))
}

/// Where `view` puts the built-in strip at the bind pose in clip space: ([x0, x1], [y0, y1]), the
/// rectangle x in [-width/2, width/2], y in [0, length] scaled and offset; None for a model.
fn strip_in_clip(case: &Case, v: View) -> Option<([f64; 2], [f64; 2])> {
    let (length, width) = strip_size(case)?;
    let x = 0.5 * width / v.half_width;
    let y = [v.offset_y, length * v.scale + v.offset_y];
    Some(([-x, x], [y[0].min(y[1]), y[0].max(y[1])]))
}

/// The built-in strip's pixel area at the bind pose, give or take its perimeter in pixels (edge
/// pixels are where rasterisers may round either way), and at least one pixel: a render that drew
/// nothing proves nothing, so it never passes; for a model, anything drawn that does not fill the
/// whole target.
fn default_coverage(case: &Case, v: View) -> [u64; 2] {
    let (w, h) = (case.render.width as f64, case.render.height as f64);
    let pixels = (w * h) as u64;
    let (Some((length, width)), Some(m)) = (strip_size(case), &case.mesh) else {
        return [1, pixels.saturating_sub(1).max(1)];
    };
    // The bind-pose strip (`strip_in_clip`), cut to the visible [-1, 1] square, then measured in
    // pixels.
    let span = |a: f64, b: f64| (a.min(b).max(-1.0), a.max(b).min(1.0));
    let (x0, x1) = span(-0.5 * width / v.half_width, 0.5 * width / v.half_width);
    let px_w = (x1 - x0).max(0.0) * w / 2.0;
    // Pixel height of the visible part of the strip between heights a and b.
    let px_h_between = |a: f64, b: f64| {
        let (y0, y1) = span(a * v.scale + v.offset_y, b * v.scale + v.offset_y);
        (y1 - y0).max(0.0) * h / 2.0
    };
    let px_h = px_h_between(0.0, length);
    let mut area = px_w * px_h;
    // An odd vertex count leaves the last row one vertex, so the last cell is one triangle: half of
    // it is not drawn.
    let rows = m.vertices.div_ceil(2);
    if m.vertices % 2 == 1 && rows >= 2 {
        let last = length * (rows - 2) as f64 / (rows - 1) as f64;
        area -= 0.5 * px_w * px_h_between(last, length);
    }
    // Edge pixels are where rasterisers may round either way.
    let slack = 2.0 * (px_w + px_h) + 2.0;
    // No more pixels than the target has.
    [
        ((area - slack).max(1.0).floor() as u64).min(pixels),
        ((area + slack).ceil().max(1.0) as u64).min(pixels),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_coverage_never_allows_an_empty_image() {
        let case = |width: f64| {
            let text = format!(
                "skeleton: {{ joints: 4, segment_length: 1.0 }}\nmesh: {{ vertices: 8, width: {width} }}\n"
            );
            Case::parse(std::path::Path::new("thin.yaml"), &text, &[]).unwrap()
        };
        let view = View {
            scale: 0.4,
            offset_y: -0.9,
            half_width: 3.0,
        };
        // A strip far thinner than a pixel: the range starts at 1, not 0.
        let [lo, hi] = default_coverage(&case(1e-6), view);
        assert_eq!(lo, 1, "{lo}..{hi}");
        assert!(hi >= 1);
        // A visible strip keeps its area give or take its perimeter.
        let [lo, hi] = default_coverage(&case(1.0), view);
        assert!(lo > 1 && hi > lo, "{lo}..{hi}");
        // Never more pixels than the target has.
        let mut tiny = case(1.0);
        (tiny.render.width, tiny.render.height) = (1, 1);
        assert_eq!(default_coverage(&tiny, view), [1, 1]);
    }

    #[test]
    fn the_default_coverage_of_an_odd_strip_leaves_out_the_last_half_cell() {
        let cover = |vertices: usize| {
            let text = format!(
                "skeleton: {{ joints: 2 }}\nmesh: {{ vertices: {vertices}, width: 1.0 }}\nrender: {{ width: 200, height: 200 }}\n"
            );
            let case = Case::parse(std::path::Path::new("odd.yaml"), &text, &[]).unwrap();
            let view = View {
                scale: 0.5,
                offset_y: -0.5,
                half_width: 2.0,
            };
            default_coverage(&case, view)
        };
        // 4 vertices: one 1 x 2 cell, 50 x 100 pixels; 3 vertices: half of it, one triangle.
        let mid = |[lo, hi]: [u64; 2]| (lo + hi) / 2;
        assert_eq!(mid(cover(4)), 5000);
        assert_eq!(mid(cover(3)), 2500);
    }

    fn scene(text: &str) -> Result<Scene, SceneError> {
        let path = crate::config::project_root().join("cases/posed.yaml");
        Scene::from_case(&Case::parse(&path, text, &[]).unwrap())
    }

    #[test]
    fn a_pose_is_posed_when_asked_for_or_when_it_moves_vertices() {
        let chain = "skeleton: { joints: 3 }\nmesh: { vertices: 8 }\n";
        assert!(!scene(chain).unwrap().is_posed());
        assert!(
            scene(&format!("{chain}pose: [{{ joint: 1, degrees: 30 }}]\n"))
                .unwrap()
                .is_posed()
        );
        // A full turn moves nothing, as 0 degrees: the bind pose, whatever rounding did to it.
        for degrees in [0, 360, 720] {
            let s = scene(&format!(
                "{chain}pose: [{{ joint: 1, degrees: {degrees} }}]\n"
            ))
            .unwrap();
            assert!(!s.is_posed(), "{degrees}");
            assert!(s
                .unposed_reason()
                .contains("moves no vertex beyond the tolerance"));
        }
        assert!(
            scene(&format!("{chain}pose: [{{ joint: 1, degrees: 0.5 }}]\n"))
                .unwrap()
                .is_posed()
        );
        // A model at its rest pose, not asked to pose: the Fox's rest palette is the identity up to
        // rounding, so it is the bind pose.
        let fox = scene("model: { path: models/Fox/Fox.glb }\n").unwrap();
        assert!(
            fox.posed_palette != fox.bind_palette,
            "rounding is what this tests"
        );
        assert!(!fox.is_posed());
        let timed = "model: { path: models/Fox/Fox.glb, time: 0.5 }\n";
        assert!(scene(timed).unwrap().is_posed());
    }

    #[test]
    fn a_shader_of_planar_positions_refuses_a_mesh_off_the_plane_and_takes_one_in_it() {
        let planar = Reads {
            planar: Some(" (the profile's p.profile.yaml:6:3)".into()),
            ..Reads::default()
        };
        let path = crate::config::project_root().join("cases/planar.yaml");
        let load = |text: &str| Scene::for_shader(&Case::parse(&path, text, &[]).unwrap(), &planar);
        // The built-in strip lies in z = 0; the Fox does not.
        assert!(load("skeleton: { joints: 3 }\nmesh: { vertices: 8 }\n").is_ok());
        let Err(SceneError::Fail(why)) = load("model: { path: models/Fox/Fox.glb }\n") else {
            panic!("a 3D model was taken for planar positions")
        };
        assert!(
            why.contains("planar.yaml: vertex 0 is at z = ")
                && why.contains("the shader takes planar positions, x and y alone (the profile's p.profile.yaml:6:3)"),
            "{why}"
        );
    }

    /// A shader that reads 3 influences a vertex: a mesh of at most 3 is taken (its 4th slots
    /// empty), `max` strips take 3, and a mesh with a vertex of 4 is refused naming the vertex,
    /// the count and the profile's field; the counts for `influences_above` agree with the scenes.
    /// (Gathering a file's influences into the first slots: `rig`'s tests.)
    #[test]
    fn a_shader_of_three_influences_takes_meshes_of_three_and_refuses_four() {
        let three = Reads {
            lanes: 3,
            lanes_whence: ": the profile's p.profile.yaml:9:1, field `max_influences`".into(),
            ..Reads::default()
        };
        let path = crate::config::project_root().join("cases/three.yaml");
        let case = |text: &str| Case::parse(&path, text, &[]).unwrap();
        let load = |text: &str| Scene::for_shader(&case(text), &three);
        let max = "skeleton: { joints: 6 }
mesh: { vertices: 40, influences: max }
pose: [{ joint: 2, degrees: 30 }]
";
        let s = load(max).unwrap();
        assert_eq!(s.most_influences(), 3);
        assert_eq!(
            Scene::counts_alone(&case(max), three.most()).influences,
            Some(3)
        );
        assert_eq!(s.counts(), Scene::counts_alone(&case(max), three.most()));
        assert!(s.mesh.weights.iter().all(|w| w[3] == 0.0));
        let four = max.replace("max", "4");
        assert_eq!(
            Scene::counts_alone(&case(&four), three.most()).influences,
            Some(4)
        );
        let refused = |text: &str| match load(text) {
            Err(SceneError::Fail(why)) => why.contains(crate::format::MORE_THAN_READ),
            _ => false,
        };
        assert!(refused(&four) && refused("model: { path: models/Fox/Fox.glb }\n"));
        let Err(SceneError::Fail(why)) = load(&four) else {
            panic!("a vertex of 4 influences was taken for a shader that reads 3")
        };
        assert!(
            why.contains("three.yaml: vertex ")
                && why.contains(" has 4 influences, more than the shader reads (3 influences a vertex: the profile's p.profile.yaml:9:1, field `max_influences`)"),
            "{why}"
        );
        // The models: SimpleSkin's vertices have 2, the Fox's 4.
        let simple = "model: { path: models/SimpleSkin/SimpleSkin.gltf }
";
        assert_eq!(load(simple).unwrap().most_influences(), 2);
        let fox = "model: { path: models/Fox/Fox.glb }
";
        assert_eq!(
            Scene::counts_alone(&case(fox), 3),
            Counts {
                joints: Some(24),
                influences: Some(4)
            }
        );
        assert!(load(fox).is_err());
    }

    #[test]
    fn the_default_tolerance_is_1e_5_or_8_ulps_of_the_extent() {
        assert_eq!(default_tolerance(2.0), 1e-5);
        assert_eq!(default_tolerance(0.0), 1e-5);
        assert_eq!(default_tolerance(f64::NAN), 1e-5);
        // 283 lies in [256, 512): ulp 2^-15, 8 ulps 2^-12.
        assert_eq!(default_tolerance(283.0), 2f64.powi(-12));
        // Below 16 the absolute 1e-5 is the larger; from 16 on, 8 ulps (2^-16 = 1.5e-5) are.
        assert_eq!(default_tolerance(15.9), 1e-5);
        assert_eq!(default_tolerance(16.0), 2f64.powi(-16));
    }

    #[test]
    fn a_pose_that_overflows_f32_names_the_entry_that_does_it() {
        let text = "skeleton: { joints: 3 }\nmesh: { vertices: 8 }\npose:\n  - { joint: 2, degrees: 10 }\n  - { joint: 0, scale: [1e30, 1e30, 1e30] }\n  - { joint: 1, scale: [1e30, 1e30, 1e30] }\n";
        let Err(SceneError::Fail(why)) = scene(text) else {
            panic!("an overflowing pose was accepted")
        };
        assert!(
            why.contains("posed.yaml:6:3: field `pose[2]`") && why.contains("overflows f32"),
            "{why}"
        );
        // One such scale alone stays finite.
        let one = "skeleton: { joints: 3 }\nmesh: { vertices: 8 }\npose: [{ joint: 1, scale: [1e30, 1e30, 1e30] }]\n";
        assert!(scene(one).is_ok());
    }
}
