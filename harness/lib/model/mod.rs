//! glTF 2.0 skinned models as harness scenes: skeleton (joints plus their ancestors), mesh, animation clips.
//!
//! [`load`] reads `.gltf` (buffers as `data:` URIs or side files) and `.glb` files with the `gltf`
//! crate, without its image decoding: textures are irrelevant to skinning.
//!
//! What the loader builds, and why:
//! * The skeleton's nodes are the skin's joint nodes plus all their ancestors up to the scene root
//!   (`Z_UP`, `Armature`, ... above the skeleton root), re-indexed parent-before-child, so that
//!   `Skeleton::palette` computes `skin[j] = global[joint j] * inverseBind[j]` with the global from
//!   the scene root, as the glTF spec says. The transform of the node carrying the skinned mesh is
//!   not part of skinning (glTF spec); it is reported as [`Model::mesh_global`] for tests.
//! * Node transforms given as a matrix are decomposed into translation, rotation and scale; a matrix
//!   with shear is an error (a `Transform` cannot hold it).
//! * The mesh is every primitive of the skinned node's mesh that has `JOINTS_0` and `WEIGHTS_0`
//!   (a character split into one primitive a material), joined: each one's vertices after the
//!   one before's, its indices offset to match, triangle strips and fans turned into triangle
//!   lists. Normals and tangents are kept where every joined primitive has them.
//! * Positions, normals, tangents and morph targets' positions are f32, or, where the file uses
//!   KHR_mesh_quantization (gltfpack's output), any integer type it allows, normalized or not
//!   (`quantized.rs`); a quantized normal or tangent is normalised like any other.
//! * Buffer views compressed by EXT_meshopt_compression (gltfpack's `-c`) or its ratified twin
//!   KHR_meshopt_compression are decoded by meshoptimizer's own decoders, filters included, before
//!   any accessor reads them (`meshopt.rs`); Draco is refused.
//! * `JOINTS_0` (u8 or u16) index the skin's joints, i.e. palette entries; every index must be below
//!   the joint count, zero-weighted slots included (a GPU reads them all).
//! * Further influence sets (`JOINTS_1`/`WEIGHTS_1` and on) are read too: each vertex keeps its
//!   nonzero influences in order, 4 to a set, in as many sets as the vertex with the most needs
//!   (influences spread over two sets that number at most 4 load into one). Whether the shader
//!   reads that many is the scene's to check.
//! * `WEIGHTS_0` (f32, or normalized u8/u16) must be finite and non-negative, and each vertex's sum
//!   must be within [`WEIGHT_SUM_TOLERANCE`] (1e-2) of 1, or loading fails naming the vertex. Sums
//!   within 1e-6 of 1 are kept exactly as stored; sums between 1e-6 and 1e-2 away from 1 (exporter
//!   rounding, 8-bit weights) are rescaled to sum to 1, so that the affine LBS identities hold.
//! * Morph targets of the skinned primitives are applied to POSITION at their default weights (the
//!   node's, else the mesh's), before skinning; a clip that animates those weights is refused where
//!   a case uses it, since the harness does not sample them.
//! * Animations: channels on skeleton nodes are kept, channels on other nodes are ignored. Samplers: LINEAR (slerp for rotations), STEP, CUBICSPLINE (Hermite, with
//!   tangents scaled by the keyframe interval, rotation results normalized). Times outside a
//!   channel's keyframes hold its first or last value.

use std::path::{Path, PathBuf};

use glam::{DMat4, DQuat, DVec3, DVec4};
use gltf::accessor::{DataType, Dimensions};
use gltf::mesh::{Mode, Semantic};

use crate::reference;
use crate::rig::{Mesh, Pose, Skeleton, Transform};

mod buffer;
mod frames;
mod meshopt;
mod quantized;
#[cfg(test)]
mod tests;
mod write;

use buffer::resolve_buffers;
pub use buffer::{base64_decode, base64_encode};
use frames::frames;
pub use write::{write_chain_gltf, CHAIN_LINEAR_DEGREES};

/// The extensions a file may require that this loader reads (the `gltf` crate refuses every
/// required extension it does not parse itself).
const READ_EXTENSIONS: [&str; 3] = [
    quantized::EXTENSION,
    meshopt::EXTENSIONS[0],
    meshopt::EXTENSIONS[1],
];

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
        source: crate::file::ReadError,
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

/// Most elements one accessor may have (a model of more vertices is refused before a reader
/// allocates: 4 Mi elements of the widest kind, an f32 4x4 matrix, are 256 MiB).
pub const MAX_ELEMENTS: usize = 1 << 22;

/// A skinned mesh primitive, its skeleton and its animations.
#[derive(Clone, Debug)]
pub struct Model {
    /// The skin's joints plus their ancestors, parent-before-child; palette entry j = skin joint j.
    pub skeleton: Skeleton,
    /// The skinned primitives joined: POSITION, JOINTS_0, WEIGHTS_0, triangle indices, and NORMAL
    /// and TANGENT where every one has them.
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
    /// Whether it animates the morph target weights of the skinned mesh's node, which the
    /// harness does not sample (positions take the default weights).
    pub morph_animated: bool,
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
    /// Whether the file uses KHR_mesh_quantization: positions, normals and tangents may then be
    /// integers (`quantized::read`).
    quantized: bool,
}

impl Cx<'_> {
    /// The component types POSITION may have: f32, and under KHR_mesh_quantization any 8- or
    /// 16-bit integer, normalized or not.
    fn position_types(&self) -> &'static [DataType] {
        if self.quantized {
            &[
                DataType::F32,
                DataType::I8,
                DataType::U8,
                DataType::I16,
                DataType::U16,
            ]
        } else {
            &[DataType::F32]
        }
    }

    /// The component types a NORMAL, a TANGENT or a morph target's displacement may have: f32,
    /// and under KHR_mesh_quantization signed 8- or 16-bit integers (normalized ones for a normal
    /// or tangent, as the caller asks).
    fn signed_types(&self) -> &'static [DataType] {
        if self.quantized {
            &[DataType::F32, DataType::I8, DataType::I16]
        } else {
            &[DataType::F32]
        }
    }

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
        self.check_shape(field, acc, dims, types)?;
        let field = format!("{field} (accessor {})", acc.index());
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
        self.check_accessor_bytes(&field, acc)
    }

    /// Checks an accessor's dimensions and component type.
    fn check_shape(
        &self,
        field: &str,
        acc: &gltf::Accessor,
        dims: Dimensions,
        types: &[DataType],
    ) -> Result<(), ModelError> {
        if acc.dimensions() == dims && types.contains(&acc.data_type()) {
            return Ok(());
        }
        Err(self.bad(
            format!("{field} (accessor {})", acc.index()),
            format!(
                "is {:?} {:?}, expected {dims:?} of {types:?}",
                acc.dimensions(),
                acc.data_type()
            ),
        ))
    }

    /// Checks an accessor's count against the bytes its views really hold (and, without a view,
    /// against [`MAX_ELEMENTS`]) before any reader allocates for it.
    fn check_accessor_bytes(&self, field: &str, acc: &gltf::Accessor) -> Result<(), ModelError> {
        let count = acc.count();
        if count > MAX_ELEMENTS {
            return Err(self.bad(
                field,
                format!("count {count} is more than the {MAX_ELEMENTS} elements a model may have"),
            ));
        }
        let size = acc.size();
        if let Some(view) = acc.view() {
            let stride = view.stride().unwrap_or(size).max(size);
            let need = acc.offset() + stride * (count - 1) + size;
            self.check_view(field, &view, "the accessor", count, need)?;
        }
        if let Some(sparse) = acc.sparse() {
            let n = sparse.count();
            if n > count {
                return Err(self.bad(
                    format!("{field}.sparse"),
                    format!("count {n} is more than the accessor's count {count}"),
                ));
            }
            let (idx, values) = (sparse.indices(), sparse.values());
            let index_size = match idx.index_type() {
                gltf::accessor::sparse::IndexType::U8 => 1,
                gltf::accessor::sparse::IndexType::U16 => 2,
                gltf::accessor::sparse::IndexType::U32 => 4,
            };
            let f = format!("{field}.sparse");
            self.check_view(
                &f,
                &idx.view(),
                "its indices",
                n,
                idx.offset() + n * index_size,
            )?;
            self.check_view(
                &f,
                &values.view(),
                "its values",
                n,
                values.offset() + n * size,
            )?;
        }
        Ok(())
    }

    /// Checks that `what` (`count` elements, `need` bytes into `view`) lies inside the view, and the
    /// view inside its buffer.
    fn check_view(
        &self,
        field: &str,
        view: &gltf::buffer::View,
        what: &str,
        count: usize,
        need: usize,
    ) -> Result<(), ModelError> {
        let buffer = view.buffer();
        if view.offset() + view.length() > buffer.length() {
            return Err(self.bad(
                format!("bufferViews[{}]", view.index()),
                format!(
                    "bytes {}..{} lie past the end of buffers[{}] ({} bytes)",
                    view.offset(),
                    view.offset() + view.length(),
                    buffer.index(),
                    buffer.length()
                ),
            ));
        }
        if need > view.length() {
            return Err(self.bad(
                field,
                format!(
                    "{what}: {count} elements need {need} bytes of bufferViews[{}], which holds {}",
                    view.index(),
                    view.length()
                ),
            ));
        }
        Ok(())
    }
}

/// Loads the first skinned mesh of a glTF 2.0 file (`.gltf` or `.glb`): that of the first node (in
/// node order) that has both a mesh and a skin, or, with `mesh`, of the first such node whose mesh
/// (or, failing that, node) has that name. The mesh is its primitives with JOINTS_0 and WEIGHTS_0,
/// joined (`read_mesh`).
pub fn load(path: &Path, mesh: Option<&str>) -> Result<Model, ModelError> {
    let bytes =
        crate::file::read_limited(path, crate::file::MAX_MODEL_BYTES).map_err(|source| {
            ModelError::Io {
                path: path.to_path_buf(),
                source,
            }
        })?;
    let gltf = gltf::Gltf::from_slice_without_validation(&bytes)
        .and_then(|g| quantized::validate(&g.document, &READ_EXTENSIONS).map(|()| g))
        .map_err(|source| ModelError::Gltf {
            path: path.to_path_buf(),
            source,
        })?;
    let cx = Cx {
        path,
        quantized: (gltf.document.extensions_used()).any(|e| e == quantized::EXTENSION),
    };
    let mut buffers = resolve_buffers(&cx, &gltf)?;
    meshopt::decompress(&cx, &gltf.document, &mut buffers)?;
    let doc = &gltf.document;
    let get = |b: gltf::Buffer<'_>| buffers.get(b.index()).map(Vec::as_slice);

    let forest = Forest::read(&cx, doc)?;
    let node = skinned_node(&cx, doc, mesh)?;
    let (gmesh, skin) = (node.mesh().unwrap(), node.skin().unwrap());
    let SkinNodes {
        skeleton,
        order,
        skeleton_index,
    } = read_skeleton(&cx, &forest, &skin, get)?;

    // Morph targets take their default weights: the node's, else the mesh's (glTF 2.0 3.7.2.2).
    let morph_weights: Vec<f32> = node
        .weights()
        .or_else(|| gmesh.weights())
        .map(<[f32]>::to_vec)
        .unwrap_or_default();
    let mesh_field = format!("meshes[{}]", gmesh.index());
    let joint_count = skeleton.joints.len();
    let mesh = read_mesh(&cx, &gmesh, &mesh_field, joint_count, &morph_weights, get)?;

    let clips = doc
        .animations()
        .map(|anim| read_clip(&cx, &anim, &skeleton_index, node.index(), get))
        .collect::<Result<_, _>>()?;

    let names: Vec<Option<String>> = doc.nodes().map(|n| n.name().map(str::to_owned)).collect();
    Ok(Model {
        skeleton,
        mesh,
        mesh_global: forest.global(node.index()),
        clips,
        path: path.to_path_buf(),
        node_names: order.iter().map(|&i| names[i].clone()).collect(),
        gltf_nodes: order,
    })
}

/// The file's node hierarchy: one parent per node, no cycles, and each node's local transform.
struct Forest<'a> {
    nodes: Vec<gltf::Node<'a>>,
    parent: Vec<Option<usize>>,
    locals: Vec<Transform>,
}

impl<'a> Forest<'a> {
    fn read(cx: &Cx, doc: &'a gltf::Document) -> Result<Forest<'a>, ModelError> {
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
            .map(|n| node_local(cx, &n))
            .collect::<Result<_, _>>()?;
        Ok(Forest {
            nodes,
            parent,
            locals,
        })
    }

    /// The node's global matrix from the scene root.
    fn global(&self, mut n: usize) -> DMat4 {
        let mut g = self.locals[n].matrix();
        while let Some(p) = self.parent[n] {
            g = self.locals[p].matrix() * g;
            n = p;
        }
        g
    }
}

/// The node that carries the skinned mesh: the first with a mesh and a skin (whose mesh, or else
/// whose node, has the wanted name).
fn skinned_node<'a>(
    cx: &Cx,
    doc: &'a gltf::Document,
    mesh: Option<&str>,
) -> Result<gltf::Node<'a>, ModelError> {
    let wanted = |node: &gltf::Node| match mesh {
        None => true,
        Some(name) => node.mesh().and_then(|m| m.name().map(|n| n == name)) == Some(true),
    };
    let by_node_name = |node: &gltf::Node| mesh.is_some() && node.name() == mesh;
    let skinned = |node: &gltf::Node| node.mesh().is_some() && node.skin().is_some();
    doc.nodes()
        .find(|n| skinned(n) && wanted(n))
        .or_else(|| doc.nodes().find(|n| skinned(n) && by_node_name(n)))
        .ok_or_else(|| match mesh {
            None => cx.bad("nodes", "no node has both a mesh and a skin"),
            Some(name) => cx.bad(
                "nodes",
                format!("no node with a skin carries a mesh (or is a node) named {name:?}"),
            ),
        })
}

/// A skin's skeleton and how its nodes map to the file's.
struct SkinNodes {
    skeleton: Skeleton,
    /// Per skeleton node, its glTF node.
    order: Vec<usize>,
    /// Per glTF node, its skeleton node, if it is one.
    skeleton_index: Vec<Option<usize>>,
}

/// The skin's skeleton: its joints and all their ancestors, in depth-first order from the roots.
fn read_skeleton<'s, F>(
    cx: &Cx,
    forest: &Forest,
    skin: &gltf::Skin,
    get: F,
) -> Result<SkinNodes, ModelError>
where
    F: Clone + for<'b> Fn(gltf::Buffer<'b>) -> Option<&'s [u8]>,
{
    let skin_field = format!("skins[{}]", skin.index());
    let joint_nodes: Vec<usize> = skin.joints().map(|j| j.index()).collect();
    if joint_nodes.is_empty() {
        return Err(cx.bad(format!("{skin_field}.joints"), "is empty"));
    }
    let (parent, node_count) = (&forest.parent, forest.nodes.len());
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
        let children: Vec<usize> = forest.nodes[i]
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
    let inverse_bind = read_inverse_bind(cx, skin, &skin_field, joint_nodes.len(), get)?;
    let skeleton = Skeleton {
        parents: order
            .iter()
            .map(|&i| parent[i].map(|p| skeleton_index[p].unwrap()))
            .collect(),
        bind: order.iter().map(|&i| forest.locals[i]).collect(),
        joints: joint_nodes
            .iter()
            .map(|&j| skeleton_index[j].unwrap())
            .collect(),
        inverse_bind,
    };
    Ok(SkinNodes {
        skeleton,
        order,
        skeleton_index,
    })
}

/// The skin's inverse bind matrices (the identity where it has none), finite, one per joint.
fn read_inverse_bind<'s, F>(
    cx: &Cx,
    skin: &gltf::Skin,
    skin_field: &str,
    joint_count: usize,
    get: F,
) -> Result<Vec<DMat4>, ModelError>
where
    F: Clone + for<'b> Fn(gltf::Buffer<'b>) -> Option<&'s [u8]>,
{
    let Some(acc) = skin.inverse_bind_matrices() else {
        return Ok(vec![DMat4::IDENTITY; joint_count]);
    };
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
    Ok(mats)
}

/// One animation as a clip: its channels on skeleton nodes (others are ignored), and whether it
/// animates the morph target weights of the skinned mesh's node.
fn read_clip<'s, F>(
    cx: &Cx,
    anim: &gltf::Animation,
    skeleton_index: &[Option<usize>],
    mesh_node: usize,
    get: F,
) -> Result<Clip, ModelError>
where
    F: Clone + for<'b> Fn(gltf::Buffer<'b>) -> Option<&'s [u8]>,
{
    let mut channels = Vec::new();
    let mut morph_animated = false;
    for ch in anim.channels() {
        if ch.target().property() == gltf::animation::Property::MorphTargetWeights
            && ch.target().node().index() == mesh_node
        {
            morph_animated = true;
        }
        let Some(node) = skeleton_index[ch.target().node().index()] else {
            continue;
        };
        if let Some(channel) = read_channel(cx, anim, &ch, node, get.clone())? {
            channels.push(channel);
        }
    }
    let duration = channels
        .iter()
        .filter_map(|c| c.times.last().copied())
        .fold(0.0f64, f64::max);
    Ok(Clip {
        name: anim
            .name()
            .map(str::to_owned)
            .unwrap_or_else(|| format!("animation{}", anim.index())),
        duration,
        channels,
        morph_animated,
    })
}

/// One channel on skeleton node `node`, its keyframes checked; `None` for morph target weights.
fn read_channel<'s, F>(
    cx: &Cx,
    anim: &gltf::Animation,
    ch: &gltf::animation::Channel,
    node: usize,
    get: F,
) -> Result<Option<Channel>, ModelError>
where
    F: Clone + for<'b> Fn(gltf::Buffer<'b>) -> Option<&'s [u8]>,
{
    let field = format!("animations[{}].channels[{}]", anim.index(), ch.index());
    let property = match ch.target().property() {
        gltf::animation::Property::Translation => Property::Translation,
        gltf::animation::Property::Rotation => Property::Rotation,
        gltf::animation::Property::Scale => Property::Scale,
        gltf::animation::Property::MorphTargetWeights => return Ok(None),
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
        gltf::animation::util::ReadOutputs::MorphTargetWeights(_) => return Ok(None),
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
    Ok(Some(Channel {
        node,
        property,
        interpolation,
        times,
        values,
    }))
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

/// Adds a skinned primitive's morph targets' POSITION displacements at their default weights to
/// its `positions`; the skinned positions are those of the morphed mesh.
fn morph<'s, F>(
    cx: &Cx,
    pf: &str,
    prim: &gltf::Primitive,
    get: F,
    weights: &[f32],
    positions: &mut [[f32; 3]],
) -> Result<(), ModelError>
where
    F: Clone + for<'b> Fn(gltf::Buffer<'b>) -> Option<&'s [u8]>,
{
    for (t, target) in prim.morph_targets().enumerate() {
        let w = weights.get(t).copied().unwrap_or(0.0);
        if w == 0.0 {
            continue;
        }
        if !w.is_finite() {
            return Err(cx.bad(
                format!("{pf}.targets[{t}]"),
                format!("has a default weight of {w}"),
            ));
        }
        let Some(acc) = target.positions() else {
            continue;
        };
        let field = format!("{pf}.targets[{t}].POSITION");
        // Its bytes were checked with the primitive's; an accessor of neither view nor sparse
        // values is all zeros, which moves nothing.
        cx.check_shape(&field, &acc, Dimensions::Vec3, cx.signed_types())?;
        if acc.view().is_none() && acc.sparse().is_none() {
            continue;
        }
        let displacements: Vec<[f32; 3]> = quantized::read(acc, get.clone())
            .ok_or_else(|| cx.bad(&field, "data lies outside its buffer"))?;
        if displacements.len() != positions.len() {
            return Err(cx.bad(
                field,
                format!(
                    "has {} elements for {} vertices",
                    displacements.len(),
                    positions.len()
                ),
            ));
        }
        for (p, d) in positions.iter_mut().zip(&displacements) {
            for k in 0..3 {
                p[k] += w * d[k];
            }
        }
        if positions.iter().flatten().any(|c| !c.is_finite()) {
            return Err(cx.bad(field, "makes a position non-finite"));
        }
    }
    Ok(())
}

/// The skinned mesh: every primitive of it that has `JOINTS_0` and `WEIGHTS_0` (engines split a
/// character into one primitive a material), joined into one mesh, each primitive's vertices after
/// the one before's and its indices offset to match. Normals and tangents are kept where every
/// joined primitive has them.
fn read_mesh<'s, F>(
    cx: &Cx,
    gmesh: &gltf::Mesh,
    mesh_field: &str,
    joint_count: usize,
    morph_weights: &[f32],
    get: F,
) -> Result<Mesh, ModelError>
where
    F: Clone + for<'b> Fn(gltf::Buffer<'b>) -> Option<&'s [u8]>,
{
    let skinned: Vec<(usize, gltf::Primitive)> = (gmesh.primitives().enumerate())
        .filter(|(_, p)| {
            p.get(&Semantic::Joints(0)).is_some() && p.get(&Semantic::Weights(0)).is_some()
        })
        .collect();
    // Joined, the primitives may not pass what one accessor may hold: many can share one
    // accessor, so each within the limit says nothing of their sum. (One past it alone is
    // refused by its own accessor's check, which names it.)
    let counts = |f: fn(&gltf::Primitive) -> usize| -> Vec<usize> {
        skinned.iter().map(|(_, p)| f(p)).collect()
    };
    for (what, counts) in [
        (
            "vertices",
            counts(|p| p.get(&Semantic::Positions).map_or(0, |a| a.count())),
        ),
        ("indices", counts(|p| p.indices().map_or(0, |a| a.count()))),
    ] {
        let count: usize = counts.iter().sum();
        if count > MAX_ELEMENTS && counts.iter().all(|&c| c <= MAX_ELEMENTS) {
            return Err(cx.bad(
                format!("{mesh_field}.primitives"),
                format!("the skinned primitives have {count} {what} together, more than the {MAX_ELEMENTS} a model may have"),
            ));
        }
    }
    let parts = (skinned.into_iter())
        .map(|(pi, prim)| {
            let pf = format!("{mesh_field}.primitives[{pi}]");
            read_primitive(cx, &prim, &pf, joint_count, morph_weights, get.clone())
        })
        .collect::<Result<Vec<Part>, _>>()?;
    if parts.is_empty() {
        return Err(cx.bad(mesh_field, "no primitive has JOINTS_0 and WEIGHTS_0"));
    }
    let every = |f: fn(&Part) -> bool| parts.iter().all(f);
    let (normals, tangents) = (
        every(|p| !p.normals.is_empty()),
        every(|p| !p.tangents.is_empty()),
    );
    let mut mesh = Mesh::default();
    let mut used = Vec::new();
    for part in parts {
        let base = mesh.positions.len() as u32;
        mesh.indices.extend(part.indices.iter().map(|i| i + base));
        mesh.positions.extend(part.positions);
        if normals {
            mesh.normals.extend(part.normals);
        }
        if tangents {
            mesh.tangents.extend(part.tangents);
        }
        used.extend(part.used);
    }
    mesh.set_influences(&used);
    Ok(mesh)
}

/// One skinned primitive as read: its vertices, its triangles' indices, its normals and tangents
/// (empty where it has none) and each vertex's nonzero influences.
struct Part {
    positions: Vec<[f32; 3]>,
    indices: Vec<u32>,
    normals: Vec<[f32; 3]>,
    tangents: Vec<[f32; 4]>,
    used: Vec<Vec<(u32, f32)>>,
}

/// The triangles of a primitive drawn as `mode`, as a list of three indices each (glTF 2.0
/// 3.7.2.1: a strip's odd triangles keep their winding by swapping their last two vertices).
fn triangles(
    cx: &Cx,
    field: String,
    mode: Mode,
    indices: Vec<u32>,
) -> Result<Vec<u32>, ModelError> {
    let n = indices.len();
    let corners = |f: &dyn Fn(usize) -> [usize; 3]| -> Vec<u32> {
        (0..n.saturating_sub(2))
            .flat_map(|i| f(i).map(|k| indices[k]))
            .collect()
    };
    match mode {
        Mode::Triangles => Ok(indices),
        Mode::TriangleStrip => Ok(corners(&|i| [i, i + 1 + i % 2, i + 2 - i % 2])),
        Mode::TriangleFan => Ok(corners(&|i| [i + 1, i + 2, 0])),
        other => Err(cx.bad(
            field,
            format!(
                "is {other:?}; only triangles, triangle strips and triangle fans are supported"
            ),
        )),
    }
}

fn read_primitive<'s, F>(
    cx: &Cx,
    prim: &gltf::Primitive,
    pf: &str,
    joint_count: usize,
    morph_weights: &[f32],
    get: F,
) -> Result<Part, ModelError>
where
    F: Clone + for<'b> Fn(gltf::Buffer<'b>) -> Option<&'s [u8]>,
{
    let attr = |name: &str| format!("{pf}.attributes.{name}");
    let pos_acc = prim
        .get(&Semantic::Positions)
        .ok_or_else(|| cx.bad(attr("POSITION"), "is missing"))?;
    cx.check_accessor(
        &attr("POSITION"),
        &pos_acc,
        Dimensions::Vec3,
        cx.position_types(),
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

    // Accessors read without a shape check of their own: their counts, too, before any reader.
    for (t, target) in prim.morph_targets().enumerate() {
        if let Some(acc) = target.positions() {
            let field = format!("{pf}.targets[{t}].POSITION (accessor {})", acc.index());
            cx.check_accessor_bytes(&field, &acc)?;
        }
    }
    if let Some(acc) = prim.get(&Semantic::Joints(1)) {
        cx.check_accessor_bytes(
            &format!("{} (accessor {})", attr("JOINTS_1"), acc.index()),
            &acc,
        )?;
    }
    let reader = prim.reader(get.clone());
    let outside = |name: &str| cx.bad(attr(name), "data lies outside its buffer");
    let positions: Vec<[f32; 3]> =
        quantized::read(pos_acc.clone(), get.clone()).ok_or_else(|| outside("POSITION"))?;
    let mut positions = positions;
    let n = positions.len();
    if n == 0 {
        return Err(cx.bad(attr("POSITION"), "has no vertices"));
    }
    morph(cx, pf, prim, get.clone(), morph_weights, &mut positions)?;
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
    let weights: Vec<[f32; 4]> = reader
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
    // Further influence sets (JOINTS_1 / WEIGHTS_1 and on: influences 5 to 8, ...). A vertex with
    // influences past its first set keeps its nonzero ones in order, 4 to a set, in as many sets
    // as the vertex with the most needs: influences spread over two sets that number at most 4
    // load into one set. Other vertices keep their first set as stored.
    let mut used: Vec<Vec<(u32, f32)>> = joints
        .iter()
        .zip(&weights)
        .map(|(j, w)| j.iter().copied().zip(w.iter().copied()).collect())
        .collect();
    let mut set = 1;
    while let Some(acc) = prim.get(&Semantic::Weights(set)) {
        let (wname, jname) = (format!("WEIGHTS_{set}"), format!("JOINTS_{set}"));
        cx.check_accessor(
            &attr(&wname),
            &acc,
            Dimensions::Vec4,
            &[DataType::F32, DataType::U8, DataType::U16],
            Some(true),
        )?;
        let extra_w: Vec<[f32; 4]> = reader
            .read_weights(set)
            .ok_or_else(|| outside(&wname))?
            .into_f32()
            .collect();
        let extra_j: Option<Vec<[u32; 4]>> = reader
            .read_joints(set)
            .map(|j| j.into_u16().map(|j| j.map(u32::from)).collect());
        for (name, len) in [
            (&jname, extra_j.as_ref().map_or(n, Vec::len)),
            (&wname, extra_w.len()),
        ] {
            if len != n {
                return Err(cx.bad(attr(name), format!("has {len} elements for {n} vertices")));
            }
        }
        more_influences(
            cx,
            &attr,
            set,
            joint_count,
            (extra_j.as_deref(), &extra_w),
            &mut used,
        )?;
        set += 1;
    }
    for (v, influences) in used.iter_mut().enumerate() {
        let w: Vec<f32> = influences.iter().map(|p| p.1).collect();
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
            for p in influences.iter_mut() {
                p.1 = (f64::from(p.1) / sum) as f32;
            }
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
    // A list's last partial triangle would shift the triangles of the primitives joined after it.
    if prim.mode() == Mode::Triangles && !indices.len().is_multiple_of(3) {
        let field = match prim.indices() {
            Some(_) => format!("{pf}.indices"),
            None => attr("POSITION"),
        };
        return Err(cx.bad(
            field,
            format!(
                "has {} elements: a triangle list needs a multiple of 3",
                indices.len()
            ),
        ));
    }
    let indices = triangles(cx, format!("{pf}.mode"), prim.mode(), indices)?;
    let (normals, tangents) = frames(cx, &attr, prim, get.clone(), n)?;
    Ok(Part {
        positions,
        indices,
        normals,
        tangents,
        used,
    })
}

/// Appends influence set `set` (JOINTS_`set` / WEIGHTS_`set`) to each vertex's nonzero influences;
/// a weight without joints, or a joint past the skin, is refused naming the vertex.
fn more_influences(
    cx: &Cx,
    attr: &dyn Fn(&str) -> String,
    set: u32,
    joint_count: usize,
    (extra_j, extra_w): (Option<&[[u32; 4]]>, &[[f32; 4]]),
    used: &mut [Vec<(u32, f32)>],
) -> Result<(), ModelError> {
    for (v, influences) in used.iter_mut().enumerate() {
        for k in (0..4).filter(|&k| extra_w[v][k] != 0.0) {
            let Some(j) = extra_j.map(|j| j[v][k]) else {
                return Err(cx.bad(
                    attr(&format!("WEIGHTS_{set}")),
                    format!(
                        "vertex {v} has weights {:?} in influence set {set} without JOINTS_{set}",
                        extra_w[v]
                    ),
                ));
            };
            if j as usize >= joint_count {
                return Err(cx.bad(
                    attr(&format!("JOINTS_{set}")),
                    format!("vertex {v} uses joint {j} but the skin has {joint_count} joints"),
                ));
            }
            influences.retain(|p| p.1 != 0.0);
            influences.push((j, extra_w[v][k]));
        }
    }
    Ok(())
}
