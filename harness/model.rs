//! glTF 2.0 skinned models as harness scenes: skeleton (joints plus their ancestors), mesh, animation clips.
//!
//! [`load`] reads `.gltf` (buffers as `data:` URIs or side files) and `.glb` files with the `gltf`
//! crate, without its image decoding: textures are irrelevant to skinning.
//!
//! What the loader builds, and why:
//! * The skeleton's nodes are the skin's joint nodes plus all their ancestors up to the scene root
//!   (`Z_UP`, `Armature`, ... above the skeleton root), re-indexed parent-before-child, so that
//!   [`Skeleton::palette`] computes `skin[j] = global[joint j] * inverseBind[j]` with the global from
//!   the scene root, as the glTF spec says. The transform of the node carrying the skinned mesh is
//!   not part of skinning (glTF spec); it is reported as [`Model::mesh_global`] for tests.
//! * Node transforms given as a matrix are decomposed into translation, rotation and scale; a matrix
//!   with shear is an error (a [`Transform`] cannot hold it).
//! * `JOINTS_0` (u8 or u16) index the skin's joints, i.e. palette entries; every index must be below
//!   the joint count, zero-weighted slots included (a GPU reads them all).
//! * `WEIGHTS_0` (f32, or normalized u8/u16) must be finite and non-negative, and each vertex's sum
//!   must be within [`WEIGHT_SUM_TOLERANCE`] (1e-2) of 1, or loading fails naming the vertex. Sums
//!   within 1e-6 of 1 are kept exactly as stored; sums between 1e-6 and 1e-2 away from 1 (exporter
//!   rounding, 8-bit weights) are rescaled to sum to 1, so that the affine LBS identities hold.
//! * Animations: channels on skeleton nodes are kept, channels on other nodes (and morph-target
//!   weights) are ignored. Samplers: LINEAR (slerp for rotations), STEP, CUBICSPLINE (Hermite, with
//!   tangents scaled by the keyframe interval, rotation results normalized). Times outside a
//!   channel's keyframes hold its first or last value.

use std::path::{Path, PathBuf};

use glam::{DMat4, DQuat, DVec3, DVec4};
use gltf::accessor::{DataType, Dimensions};
use gltf::mesh::{Mode, Semantic};

use crate::reference;
use crate::scene::{Mesh, Pose, Skeleton, Transform};

/// A vertex whose weights sum further than this from 1 is an error.
pub const WEIGHT_SUM_TOLERANCE: f64 = 1e-2;

/// Weight sums within this of 1 are kept exactly as stored; others (up to the tolerance) are rescaled.
const WEIGHT_SUM_EXACT: f64 = 1e-6;

/// Why a model could not be loaded; every variant names the file.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    #[error("{}: cannot read the file: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: not a valid glTF 2.0 file: {source}", path.display())]
    Gltf { path: PathBuf, source: gltf::Error },
    /// `field` names the glTF object or accessor, e.g. `meshes[0].primitives[0].attributes.JOINTS_0`.
    #[error("{}: {field}: {message}", path.display())]
    Invalid {
        path: PathBuf,
        field: String,
        message: String,
    },
}

impl ModelError {
    /// The model file the error is about.
    pub fn path(&self) -> &Path {
        match self {
            ModelError::Io { path, .. }
            | ModelError::Gltf { path, .. }
            | ModelError::Invalid { path, .. } => path,
        }
    }
}

/// A skinned mesh primitive, its skeleton and its animations.
#[derive(Clone, Debug)]
pub struct Model {
    /// The skin's joints plus their ancestors, parent-before-child; palette entry j = skin joint j.
    pub skeleton: Skeleton,
    /// The skinned primitive: POSITION, JOINTS_0, WEIGHTS_0 and triangle indices.
    pub mesh: Mesh,
    /// Global matrix of the node carrying the skinned mesh (not used for skinning; for tests).
    pub mesh_global: DMat4,
    /// Animations, in file order.
    pub clips: Vec<Clip>,
    /// The file it was loaded from.
    pub path: PathBuf,
    /// Per skeleton node, the index of the glTF node it came from.
    pub gltf_nodes: Vec<usize>,
    /// Per skeleton node, the glTF node's name (if any).
    pub node_names: Vec<Option<String>>,
}

/// One glTF animation, reduced to the channels that target skeleton nodes.
#[derive(Clone, Debug)]
pub struct Clip {
    /// The animation's name, or `animation<i>` when it has none.
    pub name: String,
    /// The clip runs from time 0 to its latest keyframe (over the kept channels), in seconds.
    pub duration: f64,
    pub channels: Vec<Channel>,
}

/// Which local property a channel drives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Property {
    Translation,
    Rotation,
    Scale,
}

/// How a channel interpolates between keyframes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interpolation {
    Linear,
    Step,
    CubicSpline,
}

/// One animation channel on a skeleton node.
#[derive(Clone, Debug)]
pub struct Channel {
    /// Skeleton node index (not the glTF node index).
    pub node: usize,
    pub property: Property,
    pub interpolation: Interpolation,
    /// Keyframe times, non-decreasing, at least one.
    pub times: Vec<f64>,
    /// Per keyframe one value (LINEAR, STEP) or three (CUBICSPLINE: in-tangent, value, out-tangent).
    /// Translations and scales use xyz (w = 0); rotations are quaternions (x, y, z, w).
    pub values: Vec<DVec4>,
}

impl Channel {
    /// The keyframe value k (the middle element of a CUBICSPLINE triple).
    fn value(&self, k: usize) -> DVec4 {
        match self.interpolation {
            Interpolation::CubicSpline => self.values[3 * k + 1],
            _ => self.values[k],
        }
    }

    /// The channel's value at time `t`; before the first keyframe it holds the first value, after the
    /// last one the last value. Rotations come out as unit quaternions.
    pub fn sample(&self, t: f64) -> DVec4 {
        let n = self.times.len();
        let v = if n == 1 || t.is_nan() || t <= self.times[0] {
            self.value(0)
        } else if t >= self.times[n - 1] {
            self.value(n - 1)
        } else {
            // k is the last keyframe at or before t; times[k + 1] > t, so the interval is not empty.
            let k = self.times.partition_point(|&x| x <= t) - 1;
            let (t0, t1) = (self.times[k], self.times[k + 1]);
            let dt = t1 - t0;
            let s = (t - t0) / dt;
            match self.interpolation {
                Interpolation::Step => self.value(k),
                Interpolation::Linear => match self.property {
                    Property::Rotation => slerp(self.value(k), self.value(k + 1), s),
                    _ => self.value(k).lerp(self.value(k + 1), s),
                },
                Interpolation::CubicSpline => {
                    let p0 = self.values[3 * k + 1];
                    let m0 = self.values[3 * k + 2] * dt;
                    let p1 = self.values[3 * (k + 1) + 1];
                    let m1 = self.values[3 * (k + 1)] * dt;
                    let (s2, s3) = (s * s, s * s * s);
                    p0 * (2.0 * s3 - 3.0 * s2 + 1.0)
                        + m0 * (s3 - 2.0 * s2 + s)
                        + p1 * (-2.0 * s3 + 3.0 * s2)
                        + m1 * (s3 - s2)
                }
            }
        };
        match self.property {
            Property::Rotation => v.normalize_or(DVec4::W),
            _ => v,
        }
    }
}

/// Spherical linear interpolation of two quaternions along the shorter arc, normalized.
/// The angle comes from atan2 of the chord lengths, which stays accurate for tiny angles.
fn slerp(a: DVec4, b: DVec4, s: f64) -> DVec4 {
    let a = a.normalize_or(DVec4::W);
    let mut b = b.normalize_or(DVec4::W);
    if a.dot(b) < 0.0 {
        b = -b;
    }
    let half_angle = 2.0 * (a - b).length().atan2((a + b).length());
    let sin = half_angle.sin();
    let r = if sin < 1e-12 {
        a.lerp(b, s)
    } else {
        a * (((1.0 - s) * half_angle).sin() / sin) + b * ((s * half_angle).sin() / sin)
    };
    r.normalize_or(DVec4::W)
}

impl Model {
    /// The rest pose: every skeleton node at its node transform.
    pub fn rest_pose(&self) -> Pose {
        self.skeleton.bind_pose()
    }

    /// The locals of every skeleton node at `time` seconds into clip `clip` (clamped to each
    /// channel's keyframes). Panics if `clip >= self.clips.len()`.
    pub fn pose_at(&self, clip: usize, time: f64) -> Pose {
        assert!(
            clip < self.clips.len(),
            "{}: clip {clip} out of range ({} clips)",
            self.path.display(),
            self.clips.len()
        );
        let mut pose = self.rest_pose();
        for ch in &self.clips[clip].channels {
            let v = ch.sample(time);
            let local = &mut pose.locals[ch.node];
            match ch.property {
                Property::Translation => local.translation = v.truncate(),
                Property::Rotation => local.rotation = DQuat::from_vec4(v),
                Property::Scale => local.scale = v.truncate(),
            }
        }
        pose
    }

    /// A clip by exact name, or else by its index written as a number.
    pub fn clip_index(&self, name_or_index: &str) -> Option<usize> {
        self.clips
            .iter()
            .position(|c| c.name == name_or_index)
            .or_else(|| {
                name_or_index
                    .trim()
                    .parse::<usize>()
                    .ok()
                    .filter(|&i| i < self.clips.len())
            })
    }

    /// The largest absolute coordinate of the rest-pose skinned positions (of POSITION if those are
    /// not finite), at least 1e-9: a scale for relative tolerances.
    pub fn extent(&self) -> f64 {
        let max_abs = |points: &[[f32; 3]]| {
            points
                .iter()
                .flatten()
                .map(|v| v.abs() as f64)
                .fold(0.0f64, f64::max)
        };
        let skinned = reference::skin(&self.skeleton.palette(&self.rest_pose()), &self.mesh);
        let e = max_abs(&skinned);
        let e = if e.is_finite() && e > 0.0 {
            e
        } else {
            max_abs(&self.mesh.positions)
        };
        if e.is_finite() {
            e.max(1e-9)
        } else {
            1e-9
        }
    }
}

/// The file being loaded, to make errors that name it.
struct Cx<'p> {
    path: &'p Path,
}

impl Cx<'_> {
    fn bad(&self, field: impl Into<String>, message: impl Into<String>) -> ModelError {
        ModelError::Invalid {
            path: self.path.to_path_buf(),
            field: field.into(),
            message: message.into(),
        }
    }

    /// Checks an accessor's shape before a reader touches it (the readers assume it).
    fn check_accessor(
        &self,
        field: &str,
        acc: &gltf::Accessor,
        dims: Dimensions,
        types: &[DataType],
        need_normalized: Option<bool>,
    ) -> Result<(), ModelError> {
        let field = format!("{field} (accessor {})", acc.index());
        if acc.dimensions() != dims || !types.contains(&acc.data_type()) {
            return Err(self.bad(
                field,
                format!(
                    "is {:?} {:?}, expected {dims:?} of {types:?}",
                    acc.dimensions(),
                    acc.data_type()
                ),
            ));
        }
        if let Some(n) = need_normalized {
            // Floats are never normalized; integer weights and rotations must be.
            if acc.data_type() != DataType::F32 && acc.normalized() != n {
                return Err(self.bad(
                    field,
                    format!("{:?} must have normalized = {n}", acc.data_type()),
                ));
            }
        }
        if acc.count() == 0 {
            return Err(self.bad(field, "has count 0"));
        }
        if acc.view().is_none() && acc.sparse().is_none() {
            return Err(self.bad(
                field,
                "has no bufferView (all-zero accessors are not supported)",
            ));
        }
        Ok(())
    }
}

/// Loads the first skinned mesh primitive of a glTF 2.0 file (`.gltf` or `.glb`): that of the first
/// node (in node order) that has both a mesh and a skin, or, with `mesh`, of the first such node
/// whose mesh (or, failing that, node) has that name. The primitive is the mesh's first one with
/// JOINTS_0 and WEIGHTS_0.
pub fn load(path: &Path, mesh: Option<&str>) -> Result<Model, ModelError> {
    let cx = Cx { path };
    let bytes = std::fs::read(path).map_err(|source| ModelError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let gltf = gltf::Gltf::from_slice(&bytes).map_err(|source| ModelError::Gltf {
        path: path.to_path_buf(),
        source,
    })?;
    let buffers = resolve_buffers(&cx, &gltf)?;
    let doc = &gltf.document;
    let get = |b: gltf::Buffer<'_>| buffers.get(b.index()).map(Vec::as_slice);

    // The node forest: one parent per node, no cycles.
    let nodes: Vec<gltf::Node> = doc.nodes().collect();
    let node_count = nodes.len();
    let mut parent: Vec<Option<usize>> = vec![None; node_count];
    for node in doc.nodes() {
        for child in node.children() {
            if let Some(other) = parent[child.index()].replace(node.index()) {
                return Err(cx.bad(
                    format!("nodes[{}]", child.index()),
                    format!(
                        "is a child of both nodes[{other}] and nodes[{}]",
                        node.index()
                    ),
                ));
            }
        }
    }
    for start in 0..node_count {
        let (mut n, mut steps) = (start, 0);
        while let Some(p) = parent[n] {
            n = p;
            steps += 1;
            if steps > node_count {
                return Err(cx.bad(format!("nodes[{start}]"), "the node hierarchy has a cycle"));
            }
        }
    }
    let locals: Vec<Transform> = doc
        .nodes()
        .map(|n| node_local(&cx, &n))
        .collect::<Result<_, _>>()?;
    let global_of = |mut n: usize| {
        let mut g = locals[n].matrix();
        while let Some(p) = parent[n] {
            g = locals[p].matrix() * g;
            n = p;
        }
        g
    };

    // The skinned mesh node.
    let wanted = |node: &gltf::Node| match mesh {
        None => true,
        Some(name) => node.mesh().and_then(|m| m.name().map(|n| n == name)) == Some(true),
    };
    let by_node_name = |node: &gltf::Node| mesh.is_some() && node.name() == mesh;
    let skinned = |node: &gltf::Node| node.mesh().is_some() && node.skin().is_some();
    let node = doc
        .nodes()
        .find(|n| skinned(n) && wanted(n))
        .or_else(|| doc.nodes().find(|n| skinned(n) && by_node_name(n)))
        .ok_or_else(|| match mesh {
            None => cx.bad("nodes", "no node has both a mesh and a skin"),
            Some(name) => cx.bad(
                "nodes",
                format!("no node with a skin carries a mesh (or is a node) named {name:?}"),
            ),
        })?;
    let (gmesh, skin) = (node.mesh().unwrap(), node.skin().unwrap());
    let mesh_field = format!("meshes[{}]", gmesh.index());
    let skin_field = format!("skins[{}]", skin.index());

    // Skeleton nodes: the joints and all their ancestors, in depth-first order from the roots.
    let joint_nodes: Vec<usize> = skin.joints().map(|j| j.index()).collect();
    if joint_nodes.is_empty() {
        return Err(cx.bad(format!("{skin_field}.joints"), "is empty"));
    }
    let mut in_skeleton = vec![false; node_count];
    for &j in &joint_nodes {
        let mut n = Some(j);
        while let Some(i) = n {
            if in_skeleton[i] {
                break;
            }
            in_skeleton[i] = true;
            n = parent[i];
        }
    }
    let mut order: Vec<usize> = Vec::new();
    let mut stack: Vec<usize> = (0..node_count)
        .rev()
        .filter(|&i| in_skeleton[i] && parent[i].is_none())
        .collect();
    while let Some(i) = stack.pop() {
        order.push(i);
        let children: Vec<usize> = nodes[i]
            .children()
            .map(|c| c.index())
            .filter(|&c| in_skeleton[c])
            .collect();
        stack.extend(children.into_iter().rev());
    }
    let mut skeleton_index: Vec<Option<usize>> = vec![None; node_count];
    for (k, &i) in order.iter().enumerate() {
        skeleton_index[i] = Some(k);
    }

    let joint_count = joint_nodes.len();
    let inverse_bind: Vec<DMat4> = match skin.inverse_bind_matrices() {
        None => vec![DMat4::IDENTITY; joint_count],
        Some(acc) => {
            let field = format!("{skin_field}.inverseBindMatrices");
            cx.check_accessor(&field, &acc, Dimensions::Mat4, &[DataType::F32], None)?;
            if acc.count() < joint_count {
                return Err(cx.bad(
                    field,
                    format!("has {} matrices for {joint_count} joints", acc.count()),
                ));
            }
            let mats: Vec<DMat4> = skin
                .reader(get)
                .read_inverse_bind_matrices()
                .ok_or_else(|| cx.bad(&field, "data lies outside its buffer"))?
                .take(joint_count)
                .map(|m| DMat4::from_cols_array_2d(&m.map(|c| c.map(f64::from))))
                .collect();
            if let Some(j) = mats.iter().position(|m| !m.is_finite()) {
                return Err(cx.bad(field, format!("matrix {j} is not finite")));
            }
            mats
        }
    };
    let skeleton = Skeleton {
        parents: order
            .iter()
            .map(|&i| parent[i].map(|p| skeleton_index[p].unwrap()))
            .collect(),
        bind: order.iter().map(|&i| locals[i]).collect(),
        joints: joint_nodes
            .iter()
            .map(|&j| skeleton_index[j].unwrap())
            .collect(),
        inverse_bind,
    };

    let mesh = read_primitive(&cx, &gmesh, &mesh_field, joint_count, get)?;

    // Animations.
    let mut clips = Vec::new();
    for anim in doc.animations() {
        let mut channels = Vec::new();
        for ch in anim.channels() {
            let field = format!("animations[{}].channels[{}]", anim.index(), ch.index());
            let Some(node) = skeleton_index[ch.target().node().index()] else {
                continue;
            };
            let property = match ch.target().property() {
                gltf::animation::Property::Translation => Property::Translation,
                gltf::animation::Property::Rotation => Property::Rotation,
                gltf::animation::Property::Scale => Property::Scale,
                gltf::animation::Property::MorphTargetWeights => continue,
            };
            let sampler = ch.sampler();
            let interpolation = match sampler.interpolation() {
                gltf::animation::Interpolation::Linear => Interpolation::Linear,
                gltf::animation::Interpolation::Step => Interpolation::Step,
                gltf::animation::Interpolation::CubicSpline => Interpolation::CubicSpline,
            };
            let input = sampler.input();
            cx.check_accessor(
                &format!("{field} sampler input"),
                &input,
                Dimensions::Scalar,
                &[DataType::F32],
                None,
            )?;
            let output = sampler.output();
            let out_field = format!("{field} sampler output");
            match property {
                Property::Rotation => cx.check_accessor(
                    &out_field,
                    &output,
                    Dimensions::Vec4,
                    &[
                        DataType::F32,
                        DataType::I8,
                        DataType::U8,
                        DataType::I16,
                        DataType::U16,
                    ],
                    Some(true),
                )?,
                _ => cx.check_accessor(
                    &out_field,
                    &output,
                    Dimensions::Vec3,
                    &[DataType::F32],
                    None,
                )?,
            }
            let reader = ch.reader(get);
            let times: Vec<f64> = reader
                .read_inputs()
                .ok_or_else(|| {
                    cx.bad(
                        format!("{field} sampler input"),
                        "data lies outside its buffer",
                    )
                })?
                .map(f64::from)
                .collect();
            if times.iter().any(|t| !t.is_finite()) || times.windows(2).any(|w| w[1] < w[0]) {
                return Err(cx.bad(
                    format!("{field} sampler input"),
                    "keyframe times must be finite and non-decreasing",
                ));
            }
            let outside = || cx.bad(&out_field, "data lies outside its buffer");
            let values: Vec<DVec4> = match reader.read_outputs().ok_or_else(outside)? {
                gltf::animation::util::ReadOutputs::Translations(it)
                | gltf::animation::util::ReadOutputs::Scales(it) => it
                    .map(|v| DVec4::new(v[0].into(), v[1].into(), v[2].into(), 0.0))
                    .collect(),
                gltf::animation::util::ReadOutputs::Rotations(r) => r
                    .into_f32()
                    .map(|q| DVec4::new(q[0].into(), q[1].into(), q[2].into(), q[3].into()))
                    .collect(),
                gltf::animation::util::ReadOutputs::MorphTargetWeights(_) => continue,
            };
            let per_key = if interpolation == Interpolation::CubicSpline {
                3
            } else {
                1
            };
            if values.len() != times.len() * per_key {
                return Err(cx.bad(
                    out_field,
                    format!(
                        "has {} values for {} keyframes ({interpolation:?})",
                        values.len(),
                        times.len()
                    ),
                ));
            }
            if values.iter().any(|v| !v.is_finite()) {
                return Err(cx.bad(out_field, "has non-finite values"));
            }
            channels.push(Channel {
                node,
                property,
                interpolation,
                times,
                values,
            });
        }
        let duration = channels
            .iter()
            .filter_map(|c| c.times.last().copied())
            .fold(0.0f64, f64::max);
        clips.push(Clip {
            name: anim
                .name()
                .map(str::to_owned)
                .unwrap_or_else(|| format!("animation{}", anim.index())),
            duration,
            channels,
        });
    }

    let names: Vec<Option<String>> = doc.nodes().map(|n| n.name().map(str::to_owned)).collect();
    Ok(Model {
        skeleton,
        mesh,
        mesh_global: global_of(node.index()),
        clips,
        path: path.to_path_buf(),
        node_names: order.iter().map(|&i| names[i].clone()).collect(),
        gltf_nodes: order,
    })
}

/// The node's local transform; a matrix is decomposed (and must have no shear).
fn node_local(cx: &Cx, node: &gltf::Node) -> Result<Transform, ModelError> {
    let field = || format!("nodes[{}]", node.index());
    let t = match node.transform() {
        gltf::scene::Transform::Matrix { matrix } => {
            let m = DMat4::from_cols_array_2d(&matrix.map(|c| c.map(f64::from)));
            if !m.is_finite() || m.determinant() == 0.0 {
                return Err(cx.bad(
                    format!("{}.matrix", field()),
                    "is not finite or not invertible",
                ));
            }
            let (scale, rotation, translation) = m.to_scale_rotation_translation();
            let t = Transform {
                translation,
                rotation: rotation.normalize(),
                scale,
            };
            let back = t.matrix();
            let size = m.to_cols_array().iter().fold(1.0f64, |a, v| a.max(v.abs()));
            if !back.abs_diff_eq(m, 1e-5 * size) {
                return Err(cx.bad(
                    format!("{}.matrix", field()),
                    "is not a translation * rotation * scale matrix (it has shear)",
                ));
            }
            t
        }
        gltf::scene::Transform::Decomposed {
            translation,
            rotation,
            scale,
        } => {
            let q = DVec4::from(rotation.map(f64::from));
            if !q.is_finite() || q.length() < 1e-6 {
                return Err(cx.bad(format!("{}.rotation", field()), "is not a unit quaternion"));
            }
            Transform {
                translation: DVec3::from(translation.map(f64::from)),
                rotation: DQuat::from_vec4(q.normalize()),
                scale: DVec3::from(scale.map(f64::from)),
            }
        }
    };
    if !(t.translation.is_finite() && t.scale.is_finite()) {
        return Err(cx.bad(field(), "transform is not finite"));
    }
    Ok(t)
}

/// POSITION, JOINTS_0, WEIGHTS_0 and indices of the mesh's first primitive with a skin's attributes.
fn read_primitive<'s, F>(
    cx: &Cx,
    gmesh: &gltf::Mesh,
    mesh_field: &str,
    joint_count: usize,
    get: F,
) -> Result<Mesh, ModelError>
where
    F: Clone + for<'b> Fn(gltf::Buffer<'b>) -> Option<&'s [u8]>,
{
    let (pi, prim) = gmesh
        .primitives()
        .enumerate()
        .find(|(_, p)| {
            p.get(&Semantic::Joints(0)).is_some() && p.get(&Semantic::Weights(0)).is_some()
        })
        .ok_or_else(|| cx.bad(mesh_field, "no primitive has JOINTS_0 and WEIGHTS_0"))?;
    let pf = format!("{mesh_field}.primitives[{pi}]");
    if prim.mode() != Mode::Triangles {
        return Err(cx.bad(
            format!("{pf}.mode"),
            format!("is {:?}; only triangles are supported", prim.mode()),
        ));
    }
    let attr = |name: &str| format!("{pf}.attributes.{name}");
    let pos_acc = prim
        .get(&Semantic::Positions)
        .ok_or_else(|| cx.bad(attr("POSITION"), "is missing"))?;
    cx.check_accessor(
        &attr("POSITION"),
        &pos_acc,
        Dimensions::Vec3,
        &[DataType::F32],
        None,
    )?;
    let joints_acc = prim.get(&Semantic::Joints(0)).unwrap();
    cx.check_accessor(
        &attr("JOINTS_0"),
        &joints_acc,
        Dimensions::Vec4,
        &[DataType::U8, DataType::U16],
        Some(false),
    )?;
    let weights_acc = prim.get(&Semantic::Weights(0)).unwrap();
    cx.check_accessor(
        &attr("WEIGHTS_0"),
        &weights_acc,
        Dimensions::Vec4,
        &[DataType::F32, DataType::U8, DataType::U16],
        Some(true),
    )?;

    let reader = prim.reader(get);
    let outside = |name: &str| cx.bad(attr(name), "data lies outside its buffer");
    let positions: Vec<[f32; 3]> = reader
        .read_positions()
        .ok_or_else(|| outside("POSITION"))?
        .collect();
    let n = positions.len();
    if n == 0 {
        return Err(cx.bad(attr("POSITION"), "has no vertices"));
    }
    if let Some(v) = positions
        .iter()
        .position(|p| p.iter().any(|c| !c.is_finite()))
    {
        return Err(cx.bad(attr("POSITION"), format!("vertex {v} is not finite")));
    }
    let joints: Vec<[u32; 4]> = reader
        .read_joints(0)
        .ok_or_else(|| outside("JOINTS_0"))?
        .into_u16()
        .map(|j| j.map(u32::from))
        .collect();
    let mut weights: Vec<[f32; 4]> = reader
        .read_weights(0)
        .ok_or_else(|| outside("WEIGHTS_0"))?
        .into_f32()
        .collect();
    for (name, len) in [("JOINTS_0", joints.len()), ("WEIGHTS_0", weights.len())] {
        if len != n {
            return Err(cx.bad(attr(name), format!("has {len} elements for {n} vertices")));
        }
    }
    for (v, j) in joints.iter().enumerate() {
        if let Some(k) = j.iter().position(|&x| x as usize >= joint_count) {
            return Err(cx.bad(
                attr("JOINTS_0"),
                format!(
                    "vertex {v} influence {k} is joint {} but the skin has {joint_count} joints",
                    j[k]
                ),
            ));
        }
    }
    for (v, w) in weights.iter_mut().enumerate() {
        if w.iter().any(|x| !x.is_finite() || *x < 0.0) {
            return Err(cx.bad(
                attr("WEIGHTS_0"),
                format!("vertex {v} has a negative or non-finite weight {w:?}"),
            ));
        }
        let sum: f64 = w.iter().map(|&x| f64::from(x)).sum();
        if (sum - 1.0).abs() > WEIGHT_SUM_TOLERANCE {
            return Err(cx.bad(
                attr("WEIGHTS_0"),
                format!("vertex {v} weights {w:?} sum to {sum}, not 1 (tolerance {WEIGHT_SUM_TOLERANCE})"),
            ));
        }
        if (sum - 1.0).abs() > WEIGHT_SUM_EXACT {
            *w = w.map(|x| (f64::from(x) / sum) as f32);
        }
    }

    let indices: Vec<u32> = match prim.indices() {
        None => (0..n as u32).collect(),
        Some(acc) => {
            let field = format!("{pf}.indices");
            cx.check_accessor(
                &field,
                &acc,
                Dimensions::Scalar,
                &[DataType::U8, DataType::U16, DataType::U32],
                Some(false),
            )?;
            let idx: Vec<u32> = reader
                .read_indices()
                .ok_or_else(|| cx.bad(&field, "data lies outside its buffer"))?
                .into_u32()
                .collect();
            if let Some(i) = idx.iter().find(|&&i| i as usize >= n) {
                return Err(cx.bad(field, format!("index {i} is out of range ({n} vertices)")));
            }
            idx
        }
    };
    Ok(Mesh {
        positions,
        joints,
        weights,
        indices,
    })
}

/// Every buffer's bytes: the GLB binary chunk, a `data:` URI, or a file beside the model.
fn resolve_buffers(cx: &Cx, gltf: &gltf::Gltf) -> Result<Vec<Vec<u8>>, ModelError> {
    let mut out = Vec::new();
    for buffer in gltf.document.buffers() {
        let field = format!("buffers[{}]", buffer.index());
        let mut data = match buffer.source() {
            gltf::buffer::Source::Bin => gltf
                .blob
                .clone()
                .ok_or_else(|| cx.bad(&field, "refers to a GLB binary chunk, but there is none"))?,
            gltf::buffer::Source::Uri(uri) if uri.starts_with("data:") => {
                let (head, payload) = uri
                    .split_once(',')
                    .ok_or_else(|| cx.bad(format!("{field}.uri"), "malformed data: URI"))?;
                if !head.ends_with(";base64") {
                    return Err(cx.bad(format!("{field}.uri"), "data: URI is not base64"));
                }
                base64_decode(payload)
                    .ok_or_else(|| cx.bad(format!("{field}.uri"), "invalid base64 in data: URI"))?
            }
            gltf::buffer::Source::Uri(uri) => {
                if uri.contains("://") {
                    return Err(cx.bad(
                        format!("{field}.uri"),
                        format!("{uri:?}: only data: URIs and relative file paths are supported"),
                    ));
                }
                let rel = percent_decode(uri).ok_or_else(|| {
                    cx.bad(format!("{field}.uri"), format!("{uri:?}: bad % escape"))
                })?;
                let file = cx.path.parent().unwrap_or(Path::new("")).join(rel);
                std::fs::read(&file).map_err(|e| {
                    cx.bad(
                        format!("{field}.uri"),
                        format!("cannot read {}: {e}", file.display()),
                    )
                })?
            }
        };
        if data.len() < buffer.length() {
            return Err(cx.bad(
                field,
                format!(
                    "byteLength is {} but only {} bytes are there",
                    buffer.length(),
                    data.len()
                ),
            ));
        }
        data.truncate(buffer.length());
        out.push(data);
    }
    Ok(out)
}

/// Decodes `%XX` escapes of a relative URI into a path string.
fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 with `=` padding.
fn base64_encode(data: &[u8]) -> String {
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(BASE64[(n >> (18 - 6 * k) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Base64 (standard or URL-safe alphabet, padding optional); `None` on any other character.
fn base64_decode(s: &str) -> Option<Vec<u8>> {
    let s = s.trim_end_matches('=');
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in s.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

/// Where [`write_chain`] puts the binary data.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Container {
    /// `.gltf` with the buffer as a base64 `data:` URI.
    #[default]
    DataUri,
    /// `.gltf` with the buffer in a `.bin` file beside it (only the tests ask for it).
    #[cfg_attr(not(test), allow(dead_code))]
    SideBin,
    /// Binary `.glb`.
    Glb,
}

/// Variants of the written chain model, for the loader's tests.
#[derive(Clone, Copy, Debug, Default)]
struct ChainOptions {
    container: Container,
    /// JOINTS_0 as u16 with byteStride 16 (8-byte elements, padded) instead of packed u8.
    strided_u16_joints: bool,
    /// WEIGHTS_0 as normalized u8 instead of f32.
    u8_weights: bool,
    /// Vertex 0's first joint index is the joint count (out of range).
    bad_joint: bool,
    /// Vertex 0's weights sum to 0.5.
    bad_weights: bool,
    /// A non-joint `Armature` root (rotated, scaled, translated) above the joints and the mesh node;
    /// positions and inverse bind matrices include its transform.
    armature: bool,
    /// Node transforms written as matrices instead of TRS.
    matrix_nodes: bool,
}

/// The armature transform of [`ChainOptions::armature`].
fn chain_armature() -> Transform {
    Transform {
        translation: DVec3::new(1.0, 2.0, 3.0),
        rotation: DQuat::from_rotation_x(-90f64.to_radians()),
        scale: DVec3::splat(2.0),
    }
}

/// The angles (degrees about +Z) of the chain model's LINEAR rotation channel on joint 1 at t = 0 and 1.
pub const CHAIN_LINEAR_DEGREES: (f64, f64) = (20.0, 100.0);

/// Writes the built-in chain skeleton ([`Skeleton::chain`]) and strip mesh ([`crate::scene::strip`],
/// 2 influences) as a glTF 2.0 file: `.glb` when `path` ends in `.glb`, otherwise `.gltf` JSON with
/// the buffer as a base64 `data:` URI. Nodes 0..joints are the joints (node j+1 a child of node j),
/// node `joints` carries the mesh "strip" and the skin. One animation, "bend":
/// * joint 1 rotation, LINEAR: about +Z by [`CHAIN_LINEAR_DEGREES`] at t = 0 and 1;
/// * joint 2 translation, STEP: (0, segment, 0) at t = 0, (0.25, segment, 0) at t = 1;
/// * joint 3 rotation, CUBICSPLINE, zero tangents: identity at t = 0, 90 degrees about +X at t = 2;
/// * joint 0 translation, CUBICSPLINE: 0 at t = 0 and 2, out-tangent (1, 0, 0) at t = 0;
/// * the mesh node's translation, LINEAR (not a skeleton node: loaders ignore it).
///
/// Channels on joints that do not exist (fewer than 4 joints) are left out.
pub fn write_chain_gltf(
    path: &Path,
    joints: usize,
    segment: f32,
    vertices: usize,
    width: f32,
) -> std::io::Result<()> {
    let glb = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("glb"));
    let options = ChainOptions {
        container: if glb {
            Container::Glb
        } else {
            Container::DataUri
        },
        ..ChainOptions::default()
    };
    write_chain(path, joints, segment, vertices, width, options)
}

/// Binary data and the bufferViews and accessors that describe it.
#[derive(Default)]
struct BinBuilder {
    data: Vec<u8>,
    views: Vec<serde_json::Value>,
    accessors: Vec<serde_json::Value>,
}

impl BinBuilder {
    /// Appends a bufferView (4-byte aligned) and the accessor `acc` (its bufferView set to the new
    /// view) over it; returns the accessor index.
    fn add(&mut self, bytes: &[u8], stride: Option<usize>, mut acc: serde_json::Value) -> usize {
        while !self.data.len().is_multiple_of(4) {
            self.data.push(0);
        }
        let mut view = serde_json::json!({
            "buffer": 0, "byteOffset": self.data.len(), "byteLength": bytes.len()
        });
        if let Some(s) = stride {
            view["byteStride"] = s.into();
        }
        self.data.extend_from_slice(bytes);
        self.views.push(view);
        acc["bufferView"] = (self.views.len() - 1).into();
        self.accessors.push(acc);
        self.accessors.len() - 1
    }

    fn floats(&mut self, values: &[f32], kind: &str, min_max: bool) -> usize {
        let width = match kind {
            "SCALAR" => 1,
            "VEC3" => 3,
            "VEC4" => 4,
            "MAT4" => 16,
            _ => unreachable!("{kind}"),
        };
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let mut acc = integers(5126, values.len() / width, kind, false);
        if min_max {
            let mut min = vec![f32::INFINITY; width];
            let mut max = vec![f32::NEG_INFINITY; width];
            for (i, &v) in values.iter().enumerate() {
                min[i % width] = min[i % width].min(v);
                max[i % width] = max[i % width].max(v);
            }
            acc["min"] = min.into();
            acc["max"] = max.into();
        }
        self.add(&bytes, None, acc)
    }
}

/// An accessor's JSON without its bufferView (componentType 5121 u8, 5123 u16, 5125 u32, 5126 f32).
fn integers(component: u32, count: usize, kind: &str, normalized: bool) -> serde_json::Value {
    let mut acc = serde_json::json!({"componentType": component, "count": count, "type": kind});
    if normalized {
        acc["normalized"] = true.into();
    }
    acc
}

fn write_chain(
    path: &Path,
    joints: usize,
    segment: f32,
    vertices: usize,
    width: f32,
    o: ChainOptions,
) -> std::io::Result<()> {
    use serde_json::json;
    if joints == 0 || vertices == 0 || joints > 255 {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "the chain needs 1..=255 joints and at least one vertex",
        ));
    }
    let seg = f64::from(segment);
    let chain = Skeleton::chain(joints, seg);
    let mut mesh = crate::scene::strip(joints, seg, vertices, f64::from(width), 2);
    let arm = chain_armature();
    let arm_m = if o.armature {
        arm.matrix()
    } else {
        DMat4::IDENTITY
    };
    if o.armature {
        for p in &mut mesh.positions {
            let q = arm_m.transform_point3(DVec3::new(p[0].into(), p[1].into(), p[2].into()));
            *p = q.as_vec3().to_array();
        }
    }
    if o.bad_joint {
        mesh.joints[0][0] = joints as u32;
    }
    if o.bad_weights {
        mesh.weights[0] = [0.5, 0.0, 0.0, 0.0];
    }
    let base = usize::from(o.armature);
    let mesh_node = base + joints;

    let mut bin = BinBuilder::default();
    let flat: Vec<f32> = mesh.positions.iter().flatten().copied().collect();
    let position = bin.floats(&flat, "VEC3", true);
    let joints_acc = if o.strided_u16_joints {
        let bytes: Vec<u8> = mesh
            .joints
            .iter()
            .flat_map(|j| {
                let mut e = [0u8; 16];
                for k in 0..4 {
                    e[2 * k..2 * k + 2].copy_from_slice(&(j[k] as u16).to_le_bytes());
                }
                e
            })
            .collect();
        bin.add(&bytes, Some(16), integers(5123, vertices, "VEC4", false))
    } else {
        let bytes: Vec<u8> = mesh
            .joints
            .iter()
            .flat_map(|j| j.map(|x| x as u8))
            .collect();
        bin.add(&bytes, None, integers(5121, vertices, "VEC4", false))
    };
    let weights_acc = if o.u8_weights {
        let bytes: Vec<u8> = mesh
            .weights
            .iter()
            .flat_map(|w| w.map(|x| (x * 255.0).round() as u8))
            .collect();
        bin.add(&bytes, None, integers(5121, vertices, "VEC4", true))
    } else {
        let flat: Vec<f32> = mesh.weights.iter().flatten().copied().collect();
        bin.floats(&flat, "VEC4", false)
    };
    let count = mesh.indices.len();
    let indices_acc = if count == 0 {
        None
    } else if vertices <= 65536 {
        let bytes: Vec<u8> = mesh
            .indices
            .iter()
            .flat_map(|&i| (i as u16).to_le_bytes())
            .collect();
        Some(bin.add(&bytes, None, integers(5123, count, "SCALAR", false)))
    } else {
        let bytes: Vec<u8> = mesh.indices.iter().flat_map(|i| i.to_le_bytes()).collect();
        Some(bin.add(&bytes, None, integers(5125, count, "SCALAR", false)))
    };
    let bind_globals = chain.globals(&chain.bind_pose());
    let ibm: Vec<f32> = bind_globals
        .iter()
        .flat_map(|g| {
            let m = if o.armature {
                (arm_m * *g).inverse()
            } else {
                crate::scene::rigid_inverse(g)
            };
            m.as_mat4().to_cols_array()
        })
        .collect();
    let ibm_acc = bin.floats(&ibm, "MAT4", false);

    // The animation "bend".
    let quat = |q: DQuat| q.as_quat().to_array();
    let mut samplers = Vec::new();
    let mut channels = Vec::new();
    let mut channel = |bin: &mut BinBuilder,
                       node: usize,
                       path: &str,
                       interp: &str,
                       times: &[f32],
                       values: &[f32],
                       kind: &str| {
        let input = bin.floats(times, "SCALAR", true);
        let output = bin.floats(values, kind, false);
        samplers.push(json!({"input": input, "output": output, "interpolation": interp}));
        channels
            .push(json!({"sampler": samplers.len() - 1, "target": {"node": node, "path": path}}));
    };
    if joints >= 2 {
        let (a, b) = CHAIN_LINEAR_DEGREES;
        let v: Vec<f32> = [a, b]
            .iter()
            .flat_map(|d| quat(DQuat::from_rotation_z(d.to_radians())))
            .collect();
        channel(
            &mut bin,
            base + 1,
            "rotation",
            "LINEAR",
            &[0.0, 1.0],
            &v,
            "VEC4",
        );
    }
    if joints >= 3 {
        let v = [0.0, segment, 0.0, 0.25, segment, 0.0];
        channel(
            &mut bin,
            base + 2,
            "translation",
            "STEP",
            &[0.0, 1.0],
            &v,
            "VEC3",
        );
    }
    if joints >= 4 {
        let zero = [0.0f32; 4];
        let q0 = quat(DQuat::IDENTITY);
        let q1 = quat(DQuat::from_rotation_x(90f64.to_radians()));
        let v: Vec<f32> = [zero, q0, zero, zero, q1, zero].concat();
        channel(
            &mut bin,
            base + 3,
            "rotation",
            "CUBICSPLINE",
            &[0.0, 2.0],
            &v,
            "VEC4",
        );
    }
    {
        let z = [0.0f32; 3];
        let v: Vec<f32> = [z, z, [1.0, 0.0, 0.0], z, z, z].concat();
        channel(
            &mut bin,
            base,
            "translation",
            "CUBICSPLINE",
            &[0.0, 2.0],
            &v,
            "VEC3",
        );
        let v = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0];
        channel(
            &mut bin,
            mesh_node,
            "translation",
            "LINEAR",
            &[0.0, 1.0],
            &v,
            "VEC3",
        );
    }

    // Nodes.
    let trs_json = |t: &Transform, name: String| {
        if o.matrix_nodes {
            json!({"name": name, "matrix": t.matrix().as_mat4().to_cols_array()})
        } else {
            json!({
                "name": name,
                "translation": t.translation.as_vec3().to_array(),
                "rotation": t.rotation.as_quat().to_array(),
                "scale": t.scale.as_vec3().to_array(),
            })
        }
    };
    let mut nodes = Vec::new();
    if o.armature {
        let mut a = trs_json(&arm, "Armature".into());
        a["children"] = json!([base, mesh_node]);
        nodes.push(a);
    }
    for (j, local) in chain.bind.iter().enumerate() {
        let mut n = trs_json(local, format!("joint{j}"));
        if j + 1 < joints {
            n["children"] = json!([base + j + 1]);
        }
        nodes.push(n);
    }
    let mut mesh_node_json = json!({"name": "strip", "mesh": 0, "skin": 0});
    if o.armature {
        // Not part of skinning: a loader must ignore the mesh node's own transform.
        mesh_node_json["translation"] = json!([5.0, 0.0, 0.0]);
    }
    nodes.push(mesh_node_json);
    let roots = if o.armature {
        json!([0])
    } else {
        json!([0, mesh_node])
    };

    let mut primitive = json!({
        "attributes": {"POSITION": position, "JOINTS_0": joints_acc, "WEIGHTS_0": weights_acc},
        "mode": 4
    });
    if let Some(i) = indices_acc {
        primitive["indices"] = i.into();
    }
    while !bin.data.len().is_multiple_of(4) {
        bin.data.push(0);
    }
    let mut buffer = json!({"byteLength": bin.data.len()});
    match o.container {
        Container::DataUri => {
            buffer["uri"] = format!(
                "data:application/octet-stream;base64,{}",
                base64_encode(&bin.data)
            )
            .into();
        }
        Container::SideBin => {
            let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("chain");
            let name = format!("{stem}.bin");
            std::fs::write(path.with_file_name(&name), &bin.data)?;
            buffer["uri"] = name.into();
        }
        Container::Glb => {}
    }
    let doc = json!({
        "asset": {"version": "2.0", "generator": "skinproof write_chain_gltf"},
        "scene": 0,
        "scenes": [{"nodes": roots}],
        "nodes": nodes,
        "meshes": [{"name": "strip", "primitives": [primitive]}],
        "skins": [{
            "name": "chain",
            "joints": (0..joints).map(|j| base + j).collect::<Vec<_>>(),
            "inverseBindMatrices": ibm_acc,
            "skeleton": base,
        }],
        "animations": [{"name": "bend", "samplers": samplers, "channels": channels}],
        "buffers": [buffer],
        "bufferViews": bin.views,
        "accessors": bin.accessors,
    });
    let mut text = serde_json::to_string_pretty(&doc).map_err(std::io::Error::other)?;
    if o.container != Container::Glb {
        text.push('\n');
        return std::fs::write(path, text);
    }
    let mut json_chunk = text.into_bytes();
    while !json_chunk.len().is_multiple_of(4) {
        json_chunk.push(b' ');
    }
    let total = 12 + 8 + json_chunk.len() + 8 + bin.data.len();
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(json_chunk.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&json_chunk);
    out.extend_from_slice(&(bin.data.len() as u32).to_le_bytes());
    out.extend_from_slice(b"BIN\0");
    out.extend_from_slice(&bin.data);
    std::fs::write(path, out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::strip;
    use glam::Mat4;

    /// A fresh scratch folder for one test, removed when dropped.
    struct Scratch(PathBuf);

    impl Scratch {
        fn new(name: &str) -> Self {
            let dir =
                std::env::temp_dir().join(format!("skinproof-model-{}-{name}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            Scratch(dir)
        }
        fn file(&self, name: &str) -> PathBuf {
            self.0.join(name)
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    const J: usize = 4;
    const SEG: f32 = 0.75;
    const V: usize = 18;
    const W: f32 = 0.4;

    fn chain_model(name: &str, o: ChainOptions) -> (Scratch, Model) {
        let dir = Scratch::new(name);
        let ext = if o.container == Container::Glb {
            "glb"
        } else {
            "gltf"
        };
        let path = dir.file(&format!("chain.{ext}"));
        write_chain(&path, J, SEG, V, W, o).unwrap();
        let model = load(&path, None).unwrap_or_else(|e| panic!("{e}"));
        (dir, model)
    }

    fn max_diff(a: &[[f32; 3]], b: &[[f32; 3]]) -> f64 {
        assert_eq!(a.len(), b.len());
        a.iter()
            .zip(b)
            .flat_map(|(p, q)| (0..3).map(move |k| (f64::from(p[k]) - f64::from(q[k])).abs()))
            .fold(0.0, f64::max)
    }

    fn max_palette_diff(a: &[Mat4], b: &[Mat4]) -> f32 {
        assert_eq!(a.len(), b.len());
        a.iter()
            .zip(b)
            .flat_map(|(m, n)| {
                let (m, n) = (m.to_cols_array(), n.to_cols_array());
                (0..16).map(move |k| (m[k] - n[k]).abs())
            })
            .fold(0.0, f32::max)
    }

    /// A pose of the built-in chain that bends every joint a little.
    fn bend(skeleton: &Skeleton) -> Pose {
        let mut pose = skeleton.bind_pose();
        for (j, local) in pose.locals.iter_mut().enumerate() {
            local.rotation = DQuat::from_rotation_z((15.0 + 10.0 * j as f64).to_radians());
        }
        pose
    }

    fn quat_close(a: DQuat, b: DQuat, tol: f64) -> bool {
        // q and -q are the same rotation.
        (a.dot(b).abs() - 1.0).abs() < tol
    }

    #[test]
    fn base64_round_trips() {
        assert_eq!(base64_encode(b"Man"), "TWFu");
        assert_eq!(base64_encode(b"Ma"), "TWE=");
        assert_eq!(base64_encode(b"M"), "TQ==");
        assert_eq!(base64_encode(b""), "");
        for n in 0..70 {
            let data: Vec<u8> = (0..n).map(|i| (i * 37 + 11) as u8).collect();
            assert_eq!(base64_decode(&base64_encode(&data)).unwrap(), data, "{n}");
        }
        assert!(base64_decode("TW!u").is_none());
        assert_eq!(percent_decode("a%20b.bin").unwrap(), "a b.bin");
        assert!(percent_decode("a%2").is_none());
    }

    #[test]
    fn chain_gltf_matches_the_builtin_chain_and_strip() {
        let (_dir, model) = chain_model("builtin", ChainOptions::default());
        let chain = Skeleton::chain(J, f64::from(SEG));
        let strip = strip(J, f64::from(SEG), V, f64::from(W), 2);
        assert_eq!(model.skeleton.parents, chain.parents);
        assert_eq!(model.skeleton.joints, chain.joints);
        assert_eq!(model.mesh, strip);
        let d = max_palette_diff(
            &model.skeleton.palette(&model.rest_pose()),
            &chain.palette(&chain.bind_pose()),
        );
        assert!(d < 1e-6, "rest palette differs by {d}");
        // The same pose applied to both gives the same palette and the same skinned strip.
        let pose = bend(&chain);
        let (pa, pb) = (model.skeleton.palette(&pose), chain.palette(&pose));
        assert!(max_palette_diff(&pa, &pb) < 1e-6);
        for (a, b) in [
            (
                model.skeleton.palette(&model.rest_pose()),
                chain.palette(&chain.bind_pose()),
            ),
            (pa, pb),
        ] {
            let e = max_diff(
                &reference::skin(&a, &model.mesh),
                &reference::skin(&b, &strip),
            );
            assert!(e < 1e-6, "LBS differs by {e}");
        }
        assert_eq!(model.mesh_global, DMat4::IDENTITY);
        assert!((model.extent() - f64::from(SEG) * J as f64).abs() < 1e-6);
        assert_eq!(model.node_names[0].as_deref(), Some("joint0"));
    }

    #[test]
    fn glb_side_bin_and_pub_writer_load_the_same_model() {
        let (_d0, reference_model) = chain_model("ref", ChainOptions::default());
        for container in [Container::Glb, Container::SideBin] {
            let o = ChainOptions {
                container,
                ..ChainOptions::default()
            };
            let (_d, m) = chain_model(&format!("{container:?}"), o);
            assert_eq!(m.mesh, reference_model.mesh, "{container:?}");
            assert_eq!(
                m.skeleton.inverse_bind,
                reference_model.skeleton.inverse_bind
            );
            assert_eq!(m.clips.len(), 1);
        }
        let dir = Scratch::new("pub");
        for name in ["pub.gltf", "pub.glb"] {
            let path = dir.file(name);
            write_chain_gltf(&path, J, SEG, V, W).unwrap();
            let m = load(&path, Some("strip")).unwrap();
            assert_eq!(m.mesh, reference_model.mesh, "{name}");
        }
        let glb = std::fs::read(dir.file("pub.glb")).unwrap();
        assert!(glb.starts_with(b"glTF"));
    }

    #[test]
    fn chain_animation_samples_by_hand() {
        let (_dir, m) = chain_model("anim", ChainOptions::default());
        assert_eq!(m.clips.len(), 1);
        let clip = &m.clips[0];
        assert_eq!(clip.name, "bend");
        assert_eq!(clip.duration, 2.0);
        // The mesh node's channel is not a skeleton channel.
        assert_eq!(clip.channels.len(), 4);
        assert_eq!(m.clip_index("bend"), Some(0));
        assert_eq!(m.clip_index("0"), Some(0));
        assert_eq!(m.clip_index("1"), None);
        assert_eq!(m.clip_index("walk"), None);

        let z = |deg: f64| DQuat::from_rotation_z(deg.to_radians());
        let x = |deg: f64| DQuat::from_rotation_x(deg.to_radians());
        let seg = f64::from(SEG);
        // LINEAR slerp from 20 to 100 degrees about Z: a quarter of the way is 40 degrees (nlerp
        // would give about 37.9), halfway 60; clamped before 0 and after 1.
        for (t, deg) in [
            (-1.0, 20.0),
            (0.0, 20.0),
            (0.25, 40.0),
            (0.5, 60.0),
            (1.0, 100.0),
            (9.0, 100.0),
        ] {
            let r = m.pose_at(0, t).locals[1].rotation;
            assert!(quat_close(r, z(deg), 1e-12), "t={t}: {r:?}");
        }
        // STEP holds the earlier value until the next keyframe.
        for (t, tx) in [
            (0.0, 0.0),
            (0.5, 0.0),
            (0.999, 0.0),
            (1.0, 0.25),
            (1.5, 0.25),
        ] {
            let tr = m.pose_at(0, t).locals[2].translation;
            assert!(
                (tr - DVec3::new(tx, seg, 0.0)).length() < 1e-7,
                "t={t}: {tr}"
            );
        }
        // CUBICSPLINE with zero tangents passes through the keyframes; halfway between two rotations
        // about one axis with zero tangents, the normalized Hermite blend is the middle rotation.
        for (t, deg) in [(0.0, 0.0), (1.0, 45.0), (2.0, 90.0)] {
            let r = m.pose_at(0, t).locals[3].rotation;
            assert!(quat_close(r, x(deg), 1e-12), "t={t}: {r:?}");
        }
        // CUBICSPLINE translation: values 0, out-tangent (1,0,0) at t=0, interval 2: at the middle
        // h10(0.5) * 2 * 1 = 0.125 * 2 = 0.25.
        for (t, tx) in [(0.0, 0.0), (1.0, 0.25), (2.0, 0.0)] {
            let tr = m.pose_at(0, t).locals[0].translation;
            assert!(
                (tr - DVec3::new(tx, 0.0, 0.0)).length() < 1e-12,
                "t={t}: {tr}"
            );
        }
        // Untouched properties keep the rest values.
        let p = m.pose_at(0, 0.5);
        assert_eq!(p.locals[1].translation, m.rest_pose().locals[1].translation);
        assert_eq!(p.locals.len(), m.skeleton.len());
    }

    #[test]
    fn strided_u16_joints_and_u8_weights_load() {
        let strip = strip(J, f64::from(SEG), V, f64::from(W), 2);
        let o = ChainOptions {
            strided_u16_joints: true,
            ..ChainOptions::default()
        };
        let (_d, m) = chain_model("strided", o);
        assert_eq!(m.mesh.joints, strip.joints);
        assert_eq!(m.mesh, strip);

        let o = ChainOptions {
            u8_weights: true,
            ..ChainOptions::default()
        };
        let (_d, m) = chain_model("u8w", o);
        assert_eq!(m.mesh.joints, strip.joints);
        for (w, s) in m.mesh.weights.iter().zip(&strip.weights) {
            let sum: f64 = w.iter().map(|&x| f64::from(x)).sum();
            assert!((sum - 1.0).abs() < 1e-6, "{w:?}");
            for k in 0..4 {
                assert!((w[k] - s[k]).abs() < 1.0 / 255.0, "{w:?} vs {s:?}");
            }
        }
    }

    #[test]
    fn armature_and_matrix_nodes_reach_the_joint_globals() {
        let o = ChainOptions {
            armature: true,
            matrix_nodes: true,
            ..ChainOptions::default()
        };
        let (_d, m) = chain_model("armature", o);
        let chain = Skeleton::chain(J, f64::from(SEG));
        let strip = strip(J, f64::from(SEG), V, f64::from(W), 2);
        assert_eq!(m.skeleton.len(), J + 1);
        assert_eq!(m.skeleton.parents[0], None);
        assert_eq!(m.skeleton.joints, (1..=J).collect::<Vec<_>>());
        assert_eq!(m.node_names[0].as_deref(), Some("Armature"));
        let arm = chain_armature();
        let back = m.skeleton.bind[0];
        assert!((back.translation - arm.translation).length() < 1e-6);
        assert!((back.scale - arm.scale).length() < 1e-6);
        assert!(quat_close(back.rotation, arm.rotation, 1e-6));
        for p in m.skeleton.palette(&m.rest_pose()) {
            assert!(p.abs_diff_eq(Mat4::IDENTITY, 1e-5), "{p}");
        }
        // The mesh node's own translation (5,0,0) is not in the palette but is in mesh_global.
        let expect = arm.matrix() * DMat4::from_translation(DVec3::new(5.0, 0.0, 0.0));
        assert!(m.mesh_global.abs_diff_eq(expect, 1e-6));
        // Posed: the model's LBS is the armature transform of the built-in strip's LBS.
        let mut pose = bend(&chain);
        pose.locals.insert(0, m.skeleton.bind[0]);
        let got = reference::skin(&m.skeleton.palette(&pose), &m.mesh);
        let want: Vec<[f32; 3]> = reference::skin(&chain.palette(&bend(&chain)), &strip)
            .iter()
            .map(|p| {
                let q = arm.matrix().transform_point3(DVec3::new(
                    p[0].into(),
                    p[1].into(),
                    p[2].into(),
                ));
                q.as_vec3().to_array()
            })
            .collect();
        let e = max_diff(&got, &want);
        assert!(e < 1e-5 * m.extent(), "{e}");
    }

    #[test]
    fn bad_files_give_errors_naming_the_file() {
        let o = ChainOptions {
            bad_joint: true,
            ..ChainOptions::default()
        };
        let dir = Scratch::new("bad");
        let path = dir.file("badjoint.gltf");
        write_chain(&path, J, SEG, V, W, o).unwrap();
        let e = load(&path, None).unwrap_err().to_string();
        assert!(
            e.contains("badjoint.gltf") && e.contains("JOINTS_0") && e.contains("vertex 0"),
            "{e}"
        );

        let path = dir.file("badweights.gltf");
        let o = ChainOptions {
            bad_weights: true,
            ..ChainOptions::default()
        };
        write_chain(&path, J, SEG, V, W, o).unwrap();
        let e = load(&path, None).unwrap_err().to_string();
        assert!(
            e.contains("badweights.gltf") && e.contains("WEIGHTS_0"),
            "{e}"
        );

        let path = dir.file("missing.gltf");
        let err = load(&path, None).unwrap_err();
        assert!(matches!(err, ModelError::Io { .. }));
        assert_eq!(err.path(), path);
        assert!(err.to_string().contains("missing.gltf"), "{err}");

        let path = dir.file("ok.gltf");
        write_chain_gltf(&path, J, SEG, V, W).unwrap();
        let e = load(&path, Some("nope")).unwrap_err().to_string();
        assert!(e.contains("ok.gltf") && e.contains("nope"), "{e}");

        // A side buffer that is not there.
        let path = dir.file("side.gltf");
        let o = ChainOptions {
            container: Container::SideBin,
            ..ChainOptions::default()
        };
        write_chain(&path, J, SEG, V, W, o).unwrap();
        std::fs::remove_file(dir.file("side.bin")).unwrap();
        let e = load(&path, None).unwrap_err().to_string();
        assert!(e.contains("side.gltf") && e.contains("side.bin"), "{e}");

        let path = dir.file("garbage.gltf");
        std::fs::write(&path, "{ not json").unwrap();
        let e = load(&path, None).unwrap_err().to_string();
        assert!(e.contains("garbage.gltf"), "{e}");
    }

    /// The five models in ../shared/assets/gltf, with vertex and joint counts and the first clip's
    /// duration from its README, and whether the rest pose is the bind pose.
    const REAL: [(&str, usize, usize, f64, bool); 5] = [
        ("SimpleSkin/SimpleSkin.gltf", 10, 2, 5.5, true),
        ("RiggedSimple/RiggedSimple.glb", 160, 2, 2.083, false),
        ("RiggedFigure/RiggedFigure.glb", 370, 19, 1.25, true),
        ("CesiumMan/CesiumMan.glb", 3273, 19, 2.0, true),
        ("Fox/Fox.glb", 1728, 24, 3.417, true),
    ];

    fn assets() -> Option<PathBuf> {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/assets/gltf");
        if dir.is_dir() {
            Some(dir)
        } else {
            println!(
                "skipped: {} is absent (the real glTF models live there)",
                dir.display()
            );
            None
        }
    }

    #[test]
    fn real_models_load_with_their_counts() {
        let Some(dir) = assets() else { return };
        for (file, vertices, joints, duration, _) in REAL {
            let m = load(&dir.join(file), None).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(m.mesh.len(), vertices, "{file}");
            assert_eq!(m.skeleton.joints.len(), joints, "{file}");
            assert_eq!(m.skeleton.inverse_bind.len(), joints, "{file}");
            assert!(
                !m.mesh.indices.is_empty() && m.mesh.indices.len().is_multiple_of(3),
                "{file}"
            );
            assert!(!m.clips.is_empty(), "{file}");
            assert!(
                (m.clips[0].duration - duration).abs() < 1e-3,
                "{file}: {}",
                m.clips[0].duration
            );
            for (j, p) in m.skeleton.parents.iter().enumerate() {
                assert!(
                    p.is_none_or(|p| p < j),
                    "{file}: node {j} before its parent"
                );
            }
            println!(
                "{file}: {} vertices, {} joints, {} skeleton nodes, {} clips, extent {:.4}",
                m.mesh.len(),
                m.skeleton.joints.len(),
                m.skeleton.len(),
                m.clips.len(),
                m.extent()
            );
        }
        let fox = load(&dir.join("Fox/Fox.glb"), None).unwrap();
        assert_eq!(fox.clips.len(), 3);
        assert_eq!(fox.clip_index("Survey"), Some(0));
        assert_eq!(fox.clip_index("Walk"), Some(1));
        assert_eq!(fox.clip_index("Run"), Some(2));
    }

    #[test]
    fn real_models_at_rest_reproduce_their_positions() {
        let Some(dir) = assets() else { return };
        for (file, .., bind_at_rest) in REAL {
            let m = load(&dir.join(file), None).unwrap();
            let skinned = reference::skin(&m.skeleton.palette(&m.rest_pose()), &m.mesh);
            let placed: Vec<[f32; 3]> = m
                .mesh
                .positions
                .iter()
                .map(|p| {
                    let q = m.mesh_global.transform_point3(DVec3::new(
                        p[0].into(),
                        p[1].into(),
                        p[2].into(),
                    ));
                    q.as_vec3().to_array()
                })
                .collect();
            let e = max_diff(&skinned, &placed);
            let rel = e / m.extent();
            println!("{file}: rest-pose reproduction max error {e:.3e} ({rel:.3e} of extent)");
            if bind_at_rest {
                assert!(rel < 1e-4, "{file}: {e} vs extent {}", m.extent());
            }
        }
    }

    #[test]
    fn real_models_animate_to_finite_poses() {
        let Some(dir) = assets() else { return };
        for (file, ..) in REAL {
            let m = load(&dir.join(file), None).unwrap();
            let clip = &m.clips[0];
            let mut moved = 0.0f64;
            let rest = reference::skin(&m.skeleton.palette(&m.rest_pose()), &m.mesh);
            for k in 0..=5 {
                let t = clip.duration * k as f64 / 5.0;
                let pose = m.pose_at(0, t);
                for l in &pose.locals {
                    assert!(
                        l.translation.is_finite() && l.rotation.is_finite() && l.scale.is_finite(),
                        "{file} t={t}"
                    );
                    assert!((l.rotation.length() - 1.0).abs() < 1e-9, "{file} t={t}");
                }
                let skinned = reference::skin(&m.skeleton.palette(&pose), &m.mesh);
                assert!(
                    skinned.iter().flatten().all(|v| v.is_finite()),
                    "{file} t={t}"
                );
                moved = moved.max(max_diff(&skinned, &rest));
            }
            println!(
                "{file}: clip {:?} moves vertices by up to {moved:.4}",
                clip.name
            );
            assert!(
                moved > 1e-3 * m.extent(),
                "{file}: the animation moved nothing"
            );
        }
    }
}
