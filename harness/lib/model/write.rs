//! Writes a skinned chain as `.gltf` or `.glb`: the models that the loader's tests and the self-tests read.

use std::path::Path;

use glam::{DMat4, DQuat, DVec3};

use super::buffer::base64_encode;
use crate::rig::{Skeleton, Transform};

/// Where [`write_chain`] puts the binary data.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum Container {
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
pub(super) struct ChainOptions {
    pub(super) container: Container,
    /// JOINTS_0 as u16 with byteStride 16 (8-byte elements, padded) instead of packed u8.
    pub(super) strided_u16_joints: bool,
    /// WEIGHTS_0 as normalized u8 instead of f32.
    pub(super) u8_weights: bool,
    /// Vertex 0's first joint index is the joint count (out of range).
    pub(super) bad_joint: bool,
    /// Vertex 0's weights sum to 0.5.
    pub(super) bad_weights: bool,
    /// A non-joint `Armature` root (rotated, scaled, translated) above the joints and the mesh node;
    /// positions and inverse bind matrices include its transform.
    pub(super) armature: bool,
    /// Node transforms written as matrices instead of TRS.
    pub(super) matrix_nodes: bool,
}

/// The armature transform of [`ChainOptions::armature`].
pub(super) fn chain_armature() -> Transform {
    Transform {
        translation: DVec3::new(1.0, 2.0, 3.0),
        rotation: DQuat::from_rotation_x(-90f64.to_radians()),
        scale: DVec3::splat(2.0),
    }
}

/// The angles (degrees about +Z) of the chain model's LINEAR rotation channel on joint 1 at t = 0 and 1.
pub const CHAIN_LINEAR_DEGREES: (f64, f64) = (20.0, 100.0);

/// Writes the built-in chain skeleton (`Skeleton::chain`) and strip mesh (`crate::rig::strip`,
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

pub(super) fn write_chain(
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
    let mut mesh = crate::rig::strip(joints, seg, vertices, f64::from(width), 2);
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
                crate::rig::rigid_inverse(g)
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
