//! Property checks on one adapter: GPU results compared with other GPU results that must agree by construction (identity pose, influence order, rigid motion, compute vs render, pose locality).
//!
//! Unlike the case checks, which compare the GPU against the CPU oracle, each property compares
//! the shader under test against itself under a transformation that must not change (or must
//! change in a known way) its answer, so it also catches bugs the oracle shares with the shader.

use glam::{DQuat, DVec3, Mat4};
use image::RgbaImage;

use crate::check::Outcome;
use crate::compare;
use crate::contract::{Contract, Role};
use crate::gpu::{self, Context, GpuError};
use crate::rig::{strip, Mesh, Pose, Skeleton, View};

/// A property: one function from an adapter's context to an outcome.
pub type Property = fn(&Context) -> Outcome;

/// The pseudo-case under which property rows are reported.
pub const PROPERTIES: &str = "properties";

/// Every property, by name, in report order.
pub const ALL: [(&str, Property); 5] = [
    ("identity_pose", identity_pose),
    ("influence_order", influence_order),
    ("rigid_invariance", rigid_invariance),
    ("compute_render_agree", compute_render_agree),
    ("pose_locality", pose_locality),
];

/// The property called `name`, if there is one.
pub fn by_name(name: &str) -> Option<Property> {
    ALL.iter().find(|(n, _)| *n == name).map(|(_, p)| *p)
}

/// The value of a GPU step, or the outcome that reports its error.
macro_rules! gpu_try {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(e) => return Outcome::gpu(&e),
        }
    };
}

/// `skeleton`'s bind pose with each (joint, axis, degrees, translation) applied to the locals.
fn posed(skeleton: &Skeleton, bends: &[(usize, [f64; 3], f64, [f64; 3])]) -> Pose {
    let mut pose = skeleton.bind_pose();
    for &(joint, axis, degrees, translation) in bends {
        let local = &mut pose.locals[joint];
        local.rotation =
            DQuat::from_axis_angle(DVec3::from(axis).normalize(), degrees.to_radians())
                * local.rotation;
        local.translation += DVec3::from(translation);
    }
    pose
}

/// Largest absolute coordinate, at least 1: the scale that tolerances are relative to.
fn extent(points: &[[f32; 3]]) -> f64 {
    points
        .iter()
        .flatten()
        .fold(1.0f64, |m, v| m.max(v.abs() as f64))
}

/// The bind pose palette (the identity) reproduces the bind positions, on a strip whose vertices
/// blend as many joints as the shader reads (4 in each influence set, or its `max_influences`):
/// within 1e-6 x extent.
pub fn identity_pose(ctx: &Context) -> Outcome {
    let influences = read(ctx.contract()).0;
    let (skeleton, mesh) = identity_scene(influences);
    let full = (0..mesh.len())
        .filter(|&v| mesh.influences(v).len() == influences)
        .count();
    if full == 0 {
        return Outcome::fail(
            "-",
            format!("vacuous: no vertex of the strip has {influences} nonzero influences"),
        );
    }
    let palette = skeleton.palette(&skeleton.bind_pose());
    let got = gpu_try!(gpu::compute::skin(ctx, &palette, &mesh));
    let worst = compare::max_abs_error(&got, &mesh.positions);
    let tolerance = 1e-6 * mesh.extent() as f64;
    let figure = format!("{:.2e}", worst.error);
    if worst.error <= tolerance {
        Outcome::pass(figure)
    } else {
        Outcome::fail(
            figure,
            format!(
                "the bind pose palette (identity) moved vertex {} of {} ({full} with {influences} influences): source {:?}, GPU {:?}; max abs error {:.3e} > {tolerance:.1e} (1e-6 x extent)",
                worst.vertex,
                mesh.len(),
                mesh.positions.get(worst.vertex),
                got.get(worst.vertex),
                worst.error
            ),
        )
    }
}

/// The orders of the first `lanes` of 4 slots, the others kept in place: 24 for 4.
fn permutations(lanes: usize) -> Vec<[usize; 4]> {
    let mut out = Vec::with_capacity(24);
    for a in 0..4 {
        for b in 0..4 {
            for c in 0..4 {
                // The fourth slot is the one left: 0 + 1 + 2 + 3 = 6.
                let Some(d) = 6usize.checked_sub(a + b + c) else {
                    continue;
                };
                let p = [a, b, c, d];
                let distinct = a != b && a != c && b != c && d < 4 && d != a && d != b && d != c;
                if distinct && (lanes..4).all(|i| p[i] == i) {
                    out.push(p);
                }
            }
        }
    }
    out
}

/// How many influences a vertex the shader reads, and of those how many in each set.
fn read(c: &crate::contract::Contract) -> (usize, usize) {
    let r = c.reads();
    (r.most(), r.lanes)
}

/// The chain and strip of `identity_pose`: `influences` a vertex, 4 a set.
fn identity_scene(influences: usize) -> (Skeleton, Mesh) {
    // The chain of 4 influences for fewer too: one scene whatever the shader reads.
    let joints = 2 + influences.max(4);
    (
        Skeleton::chain(joints, 0.5),
        strip(joints, 0.5, 202, 0.3, influences),
    )
}

/// A posed chain and a strip whose vertices each take `influences` joints, 4 a set.
fn influence_scene(influences: usize) -> (Skeleton, Mesh, Vec<Mat4>) {
    // The chain of 4 influences for fewer too: the pose bends joint 6.
    let joints = 4 + influences.max(4);
    let skeleton = Skeleton::chain(joints, 0.5);
    let mesh = strip(joints, 0.5, 256, 0.3, influences);
    let pose = posed(
        &skeleton,
        &[
            (2, [0.0, 0.0, 1.0], 25.0, [0.0; 3]),
            (4, [1.0, 0.0, 1.0], -40.0, [0.05, 0.0, 0.0]),
            (6, [0.0, 0.0, 1.0], 35.0, [0.0, 0.02, 0.0]),
        ],
    );
    let palette = skeleton.palette(&pose);
    (skeleton, mesh, palette)
}

/// Each vertex's (joint, weight) slots reordered: within each set by one of the orders of the
/// `lanes` slots the shader reads, and, where it reads more than one set, the sets rotated by the
/// vertex index, so that influences change sets.
fn reordered(mesh: &Mesh, lanes: usize) -> Mesh {
    let perms = permutations(lanes);
    let sets = mesh.sets();
    let mut shuffled = mesh.clone();
    for v in 0..mesh.len() {
        for k in 0..sets {
            let (j, w) = mesh.set(v, (k + v) % sets);
            let p = perms[(v * 7 + 3 + 5 * k) % perms.len()];
            let slot = [j[p[0]], j[p[1]], j[p[2]], j[p[3]]];
            shuffled.put_set(v, k, (slot, [w[p[0]], w[p[1]], w[p[2]], w[p[3]]]));
        }
    }
    shuffled
}

/// Permuting the order of each vertex's (joint, weight) slots changes nothing: per vertex within
/// 4 ulps x extent (the sum's order may round differently). With more than one influence set
/// (the shader's `influence_sets`), each vertex takes 4 joints in every set and the slots also
/// move between sets; a shader that reads fewer than 4 (`max_influences`) has its slots
/// reordered among those.
pub fn influence_order(ctx: &Context) -> Outcome {
    let (influences, lanes) = read(ctx.contract());
    let (_, mesh, palette) = influence_scene(influences);
    let shuffled = reordered(&mesh, lanes);
    let sets = mesh.sets();
    let all = |m: &Mesh, v: usize| (0..sets).map(|k| m.set(v, k)).collect::<Vec<_>>();
    let changed = (0..mesh.len())
        .filter(|&v| (0..sets).any(|k| mesh.set(v, k).1 != shuffled.set(v, k).1))
        .count();
    // Vertices whose weights in a set past the first moved to another set.
    let crossed = (0..mesh.len())
        .filter(|&v| {
            (1..sets).any(|k| {
                let w = mesh.set(v, k).1;
                w.iter().any(|&x| x != 0.0) && w != shuffled.set(v, k).1
            })
        })
        .count();
    let a = gpu_try!(gpu::compute::skin(ctx, &palette, &mesh));
    let b = gpu_try!(gpu::compute::skin(ctx, &palette, &shuffled));
    let moved = compare::max_abs_error(&a, &mesh.positions).error;
    if changed == 0 || moved < 0.05 || (sets > 1 && crossed == 0) {
        return Outcome::fail(
            "-",
            format!(
                "vacuous: {changed} vertices reordered ({crossed} across influence sets), the pose moved vertices by {moved:.3}"
            ),
        );
    }
    let scale = extent(&a);
    let ulp = f32::EPSILON as f64 * scale;
    let worst = compare::max_abs_error(&a, &b);
    let figure = format!("{:.1} ulp", worst.error / ulp);
    if worst.error <= 4.0 * ulp {
        Outcome::pass(figure)
    } else {
        let v = worst.vertex.min(mesh.len().saturating_sub(1));
        Outcome::fail(
            figure,
            format!(
                "reordering the influence slots changed vertex {v} of {} by {:.3e} (> 4 ulps x extent {scale:.2} = {:.1e}): (joints, weights) {:?} give {:?}, reordered {:?} give {:?}",
                mesh.len(),
                worst.error,
                4.0 * ulp,
                all(&mesh, v),
                a.get(v),
                all(&shuffled, v),
                b.get(v)
            ),
        )
    }
}

/// A rigid transform (rotation + translation) applied to the root of a posed skeleton preserves
/// the distances between skinned vertices, and moves every vertex by exactly that transform.
pub fn rigid_invariance(ctx: &Context) -> Outcome {
    let skeleton = Skeleton::chain(5, 0.6);
    let mesh = strip(5, 0.6, 160, 0.35, 2);
    let pose = posed(
        &skeleton,
        &[
            (1, [0.0, 0.0, 1.0], 35.0, [0.0; 3]),
            (3, [0.3, 0.0, 1.0], -50.0, [0.0; 3]),
        ],
    );
    let rotation = DQuat::from_axis_angle(DVec3::new(0.4, -1.0, 0.7).normalize(), 1.1);
    let translation = DVec3::new(1.5, -0.7, 2.0);
    let mut moved_pose = pose.clone();
    let root = &mut moved_pose.locals[0];
    root.translation = rotation * root.translation + translation;
    root.rotation = rotation * root.rotation;
    let a = gpu_try!(gpu::compute::skin(ctx, &skeleton.palette(&pose), &mesh));
    let b = gpu_try!(gpu::compute::skin(
        ctx,
        &skeleton.palette(&moved_pose),
        &mesh
    ));
    let moved = compare::max_abs_error(&a, &b).error;
    if moved < 0.5 {
        return Outcome::fail(
            "-",
            format!("vacuous: the rigid transform moved no vertex by more than {moved:.3}"),
        );
    }
    let scale = extent(&a).max(extent(&b));
    let tolerance = 32.0 * f32::EPSILON as f64 * scale;
    let d = |p: &[[f32; 3]], i: usize, j: usize| {
        let (p, q) = (p[i], p[j]);
        (0..3)
            .map(|k| (p[k] as f64 - q[k] as f64).powi(2))
            .sum::<f64>()
            .sqrt()
    };
    let mut worst = (0.0f64, 0, 0);
    for i in 0..a.len() {
        for j in i + 1..a.len() {
            let e = (d(&a, i, j) - d(&b, i, j)).abs();
            if e > worst.0 || e.is_nan() {
                worst = (if e.is_nan() { f64::INFINITY } else { e }, i, j);
            }
        }
    }
    // Every vertex moves by the same rigid transform (an affine blend with weights summing to 1).
    let expected: Vec<[f32; 3]> = a
        .iter()
        .map(|p| {
            let q = rotation * DVec3::new(p[0] as f64, p[1] as f64, p[2] as f64) + translation;
            [q.x as f32, q.y as f32, q.z as f32]
        })
        .collect();
    let off = compare::max_abs_error(&b, &expected);
    let figure = format!("{:.2e}", worst.0);
    if worst.0 > tolerance {
        return Outcome::fail(
            figure,
            format!(
                "moving the root rigidly changed the distance between vertices {} and {} by {:.3e} (> {tolerance:.1e} = 32 ulps x extent {scale:.2}): {:.6} before, {:.6} after",
                worst.1,
                worst.2,
                worst.0,
                d(&a, worst.1, worst.2),
                d(&b, worst.1, worst.2)
            ),
        );
    }
    if off.error > tolerance {
        return Outcome::fail(
            format!("{:.2e}", off.error),
            format!(
                "moving the root rigidly moved vertex {} to {:?}, but the transform takes it to {:?} (off by {:.3e} > {tolerance:.1e})",
                off.vertex,
                b.get(off.vertex),
                expected.get(off.vertex),
                off.error
            ),
        );
    }
    Outcome::pass(figure)
}

/// The contract's view transform and tint, in a vertex stage that takes already skinned positions
/// (bindings and vertex layout as the contract's render path; the palette is not read).
fn pass_through_wgsl(contract: &Contract) -> String {
    let view = contract.declarations(&[(Role::View, "view")]);
    let location = |role| contract.input(role).map_or(0, |v| v.location());
    let (p, joint) = (location(Role::Positions), location(Role::Joints));
    // The joints as the stage reads them (u32, i32 or f32 lanes): its attribute's format.
    let joint_ty = contract
        .input(Role::Joints)
        .map_or("vec4<u32>", |v| v.ty.wgsl());
    // The render path's other inputs too, unread: an attribute no vertex stage takes is a
    // validation-layer warning (and wasted fetches).
    let others: String = contract
        .vertex_inputs
        .iter()
        .filter(|v| ![p, joint].contains(&v.location()))
        .map(|v| {
            format!(
                ", @location({0}) unread_{0}: {1}",
                v.location(),
                v.ty.wgsl()
            )
        })
        .collect();
    format!(
        r#"{view}
struct VertexOut {{
    @builtin(position) clip: vec4<f32>,
    @location(0) tint: f32,
}}

@vertex
fn vs_pass(@location({p}) p: vec3<f32>, @location({joint}) joint: {joint_ty}{others}) -> VertexOut {{
    var out: VertexOut;
    out.clip = vec4<f32>(p.x / view.half_width, p.y * view.scale + view.offset_y, 0.0, 1.0);
    out.tint = f32(joint.x) / 8.0;
    return out;
}}

@fragment
fn fs_pass(@location(0) tint: f32) -> @location(0) vec4<f32> {{
    return vec4<f32>(tint, 1.0 - tint, 0.5, 1.0);
}}
"#
    )
}

/// Draws `positions` (already skinned) with the pass-through pipeline, tinted by `mesh.joints`.
fn draw_skinned(
    ctx: &Context,
    positions: &[[f32; 3]],
    mesh: &Mesh,
    view: View,
    width: u32,
    height: u32,
) -> Result<RgbaImage, GpuError> {
    let render = ctx.render()?;
    ctx.scoped(|| {
        let module = ctx
            .device
            .create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some("pass-through"),
                source: wgpu::ShaderSource::Wgsl(pass_through_wgsl(ctx.contract()).into()),
            });
        let pipeline = gpu::context::render_pipeline(
            &ctx.device,
            ctx.contract(),
            &render.layouts,
            &module,
            "vs_pass",
            "fs_pass",
        );
        // The render path's own draw, with the compute result as the source positions.
        let skinned = Mesh {
            positions: positions.to_vec(),
            ..mesh.clone()
        };
        let identity = [glam::Mat4::IDENTITY];
        let draw = gpu::render::Draw::new(
            ctx,
            &render.layouts,
            &identity,
            &skinned,
            view,
            width,
            height,
        )?;
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        draw.encode(&mut encoder, &pipeline, None);
        ctx.queue.submit([encoder.finish()]);
        draw.read(ctx)
    })
}

/// Pixels allowed to differ (beyond 1 per channel) between the two paths: edge pixels where the
/// compute and vertex stages round a position differently.
const EDGE_PIXELS: u64 = 8;

/// The compute result drawn by a pass-through vertex stage (the contract's view transform and
/// tint) matches the `vs_skin` render of the same pose, on a target taller than wide.
pub fn compute_render_agree(ctx: &Context) -> Outcome {
    // The compute result is drawn through the contract's view and tint: a shader with its own
    // colour or camera draws another image by design.
    let c = ctx.contract();
    let view = c.try_slot(crate::contract::Role::View).map(|s| s.ty);
    if c.vertex.is_some() && (!c.tint || view != Some(crate::contract::Want::View)) {
        return Outcome::skip(format!(
            "the shader draws its own colour or uses its own camera ({}), so the compute result cannot be drawn as it draws",
            c.name()
        ));
    }
    let skeleton = Skeleton::chain(5, 0.5);
    let mesh = strip(5, 0.5, 120, 0.4, 2);
    let pose = posed(
        &skeleton,
        &[
            (1, [0.0, 0.0, 1.0], 30.0, [0.0; 3]),
            (3, [0.0, 0.0, 1.0], -55.0, [0.0; 3]),
        ],
    );
    let palette = skeleton.palette(&pose);
    let view = View {
        scale: 0.33,
        offset_y: -0.75,
        half_width: 1.7,
    };
    let (width, height) = (72, 120);
    let skinned = gpu_try!(gpu::compute::skin(ctx, &palette, &mesh));
    let rendered = gpu_try!(gpu::render::render(
        ctx, &palette, &mesh, view, width, height
    ));
    let drawn = gpu_try!(draw_skinned(ctx, &skinned, &mesh, view, width, height));
    let covered = compare::coverage(&drawn);
    if covered < 200 {
        return Outcome::fail(
            "-",
            format!("vacuous: the pass-through draw covers only {covered} pixels"),
        );
    }
    let diff = compare::diff_images(&drawn, &rendered, 1);
    let figure = format!("{} px", diff.differing);
    if diff.differing <= EDGE_PIXELS {
        Outcome::pass(figure)
    } else {
        Outcome::fail(
            figure,
            format!(
                "the vs_skin render differs from the compute result drawn through the contract's view and tint in {} of {covered} covered pixels (allowed {EDGE_PIXELS} edge pixels; largest channel difference {}; coverage {} vs {})",
                diff.differing,
                diff.max_channel,
                compare::coverage(&rendered),
                covered
            ),
        )
    }
}

/// Bending joint k moves no vertex whose weights are all on joints below k, and moves some vertex
/// weighted on joint k or above; for k = 1, 3 and 5 of a 6-joint chain.
pub fn pose_locality(ctx: &Context) -> Outcome {
    let skeleton = Skeleton::chain(6, 0.5);
    let mesh = strip(6, 0.5, 240, 0.3, 2);
    let bind = gpu_try!(gpu::compute::skin(
        ctx,
        &skeleton.palette(&skeleton.bind_pose()),
        &mesh
    ));
    let tolerance = f32::EPSILON as f64 * extent(&bind);
    let mut figures = Vec::new();
    for k in [1usize, 3, 5] {
        let pose = posed(&skeleton, &[(k, [0.0, 0.0, 1.0], 40.0, [0.0; 3])]);
        let bent = gpu_try!(gpu::compute::skin(ctx, &skeleton.palette(&pose), &mesh));
        let (mut fixed, mut fixed_max, mut fixed_at) = (0usize, 0.0f64, 0usize);
        let (mut loose, mut loose_max) = (0usize, 0.0f64);
        for v in 0..mesh.len() {
            let d = (0..3)
                .map(|c| (bent[v][c] as f64 - bind[v][c] as f64).abs())
                .fold(
                    0.0f64,
                    |m, x| if x.is_nan() { f64::INFINITY } else { m.max(x) },
                );
            let below = mesh.influences(v).iter().all(|&(j, _)| (j as usize) < k);
            if below {
                fixed += 1;
                if d > fixed_max {
                    (fixed_max, fixed_at) = (d, v);
                }
            } else {
                loose += 1;
                loose_max = loose_max.max(d);
            }
        }
        if fixed == 0 || loose == 0 {
            return Outcome::fail(
                "-",
                format!("vacuous at joint {k}: {fixed} vertices below it, {loose} on or above it"),
            );
        }
        if fixed_max > tolerance {
            return Outcome::fail(
                format!("{fixed_max:.2e}"),
                format!(
                    "bending joint {k} moved vertex {fixed_at} by {fixed_max:.3e} (> {tolerance:.1e}), though its weights {:?} are all on joints {:?} below {k}",
                    mesh.weights[fixed_at], mesh.joints[fixed_at]
                ),
            );
        }
        if loose_max < 0.05 {
            return Outcome::fail(
                format!("{loose_max:.2e}"),
                format!(
                    "bending joint {k} by 40 degrees moved none of the {loose} vertices weighted on joints {k} and above by more than {loose_max:.3e}"
                ),
            );
        }
        figures.push(format!("{fixed_max:.0e}/{loose_max:.2}"));
    }
    Outcome::pass(figures.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_found() {
        let names: std::collections::BTreeSet<&str> = ALL.iter().map(|(n, _)| *n).collect();
        assert_eq!(names.len(), ALL.len());
        for n in [
            "identity_pose",
            "influence_order",
            "rigid_invariance",
            "compute_render_agree",
            "pose_locality",
        ] {
            assert!(by_name(n).is_some(), "{n}");
        }
        assert!(by_name("nope").is_none());
    }

    #[test]
    fn permutations_are_the_orders_of_the_slots_read() {
        let p = permutations(4);
        assert_eq!(p.len(), 24);
        let unique: std::collections::BTreeSet<[usize; 4]> = p.iter().copied().collect();
        assert_eq!(unique.len(), 24);
        assert!(p.iter().all(|q| {
            let mut s = *q;
            s.sort();
            s == [0, 1, 2, 3]
        }));
        // Three slots read: their 6 orders, the fourth slot kept; two: 2.
        let three = permutations(3);
        assert_eq!(three.len(), 6);
        assert!(three.iter().all(|q| q[3] == 3));
        assert_eq!(permutations(2), [[0, 1, 2, 3], [1, 0, 2, 3]]);
    }

    /// A shader that reads 3 influences: the scene's vertices take 3, reordered among the first 3
    /// slots alone, and the oracle agrees.
    #[test]
    fn three_influences_reorder_within_the_slots_read() {
        assert_eq!(influence_scene(2).0.joints.len(), 8);
        let (_, mesh, palette) = influence_scene(3);
        assert!((0..mesh.len()).any(|v| mesh.influences(v).len() == 3));
        assert!((0..mesh.len()).all(|v| mesh.weights[v][3] == 0.0));
        let shuffled = reordered(&mesh, 3);
        assert!((0..mesh.len()).all(|v| shuffled.weights[v][3] == 0.0));
        assert!((0..mesh.len()).any(|v| mesh.weights[v] != shuffled.weights[v]));
        let (a, b) = (
            crate::reference::skin(&palette, &mesh),
            crate::reference::skin(&palette, &shuffled),
        );
        assert!(compare::max_abs_error(&a, &b).error < 1e-5);
    }

    #[test]
    fn two_sets_reorder_across_sets_and_the_oracle_agrees() {
        let (_, mesh, palette) = influence_scene(8);
        assert_eq!(mesh.sets(), 2);
        // Vertices with more than 4 influences: the second set is not empty.
        assert!((0..mesh.len()).any(|v| mesh.influences(v).len() > 4));
        let shuffled = reordered(&mesh, 4);
        // Some influences of the second set now sit in the first, and the oracle does not mind.
        assert!(
            (0..mesh.len()).any(|v| mesh.set(v, 1).1.iter().any(|&w| w != 0.0)
                && mesh.set(v, 1).1 != shuffled.set(v, 1).1)
        );
        for v in 0..mesh.len() {
            let mut a = mesh.influences(v);
            let mut b = shuffled.influences(v);
            a.sort_by(|x, y| x.0.cmp(&y.0).then(x.1.total_cmp(&y.1)));
            b.sort_by(|x, y| x.0.cmp(&y.0).then(x.1.total_cmp(&y.1)));
            assert_eq!(a, b, "vertex {v}: the same influences");
        }
        let (a, b) = (
            crate::reference::skin(&palette, &mesh),
            crate::reference::skin(&palette, &shuffled),
        );
        assert!(compare::max_abs_error(&a, &mesh.positions).error > 0.05);
        assert!(compare::max_abs_error(&a, &b).error < 1e-5);
        // The identity scene's vertices fill both sets.
        let (skeleton, two) = identity_scene(8);
        assert_eq!(two.sets(), 2);
        assert!((0..two.len()).any(|v| two.influences(v).len() == 8));
        let bind = skeleton.palette(&skeleton.bind_pose());
        let back = crate::reference::skin(&bind, &two);
        assert!(compare::max_abs_error(&back, &two.positions).error < 1e-5);
        // One set: the orders within the set alone, as before.
        let (_, one, _) = influence_scene(4);
        let r = reordered(&one, 4);
        assert_eq!(r.sets(), 1);
        assert!((0..one.len()).any(|v| one.weights[v] != r.weights[v]));
    }

    #[test]
    fn the_scenes_are_not_vacuous_on_the_cpu() {
        // The CPU oracle satisfies the properties the GPU is held to, on the same scenes.
        let (_, mesh, palette) = influence_scene(4);
        let a = crate::reference::skin(&palette, &mesh);
        assert!(compare::max_abs_error(&a, &mesh.positions).error > 0.05);
        assert!(mesh
            .weights
            .iter()
            .any(|w| w.iter().filter(|&&x| x > 0.0).count() == 4));
        let naga = naga::front::wgsl::parse_str(&pass_through_wgsl(&Contract::builtin())).unwrap();
        crate::validator::strict().validate(&naga).unwrap();
    }
}
