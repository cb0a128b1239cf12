//! Unit tests of the glTF loader, on chains written by `write` and on the shared sample models.

use super::buffer::{base64_decode, base64_encode, percent_decode};
use super::write::{chain_armature, write_chain, ChainOptions, Container};
use super::*;
use crate::rig::strip;
use glam::{Mat4, Vec3};

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
    // The chain writer writes no NORMAL or TANGENT.
    let mut strip = strip(J, f64::from(SEG), V, f64::from(W), 2);
    (strip.normals, strip.tangents) = (Vec::new(), Vec::new());
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
    // The chain writer writes no NORMAL or TANGENT.
    let mut strip = strip(J, f64::from(SEG), V, f64::from(W), 2);
    (strip.normals, strip.tangents) = (Vec::new(), Vec::new());
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
    // The chain writer writes no NORMAL or TANGENT.
    let mut strip = strip(J, f64::from(SEG), V, f64::from(W), 2);
    (strip.normals, strip.tangents) = (Vec::new(), Vec::new());
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
            let q =
                arm.matrix()
                    .transform_point3(DVec3::new(p[0].into(), p[1].into(), p[2].into()));
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

    // Influences spread over two sets, at most 4 per vertex: they fold into one set, the same
    // deformation as the model written with one.
    let path = dir.file("spread.gltf");
    write_chain_gltf(&path, J, SEG, V, W).unwrap();
    let plain = load(&path, None).unwrap();
    let (first, second): (Vec<_>, Vec<_>) = plain
        .mesh
        .joints
        .iter()
        .zip(&plain.mesh.weights)
        .map(|(j, w)| {
            // The first influence stays; the others move to the second set.
            (
                ([j[0] as u16, 0, 0, 0], [w[0], 0.0, 0.0, 0.0]),
                (
                    [j[1] as u16, j[2] as u16, j[3] as u16, 0],
                    [w[1], w[2], w[3], 0.0],
                ),
            )
        })
        .unzip();
    with_sets(&path, &first, Some(&second));
    let spread = load(&path, None).unwrap_or_else(|e| panic!("{e}"));
    let used = |m: &crate::rig::Mesh| -> Vec<Vec<(u32, f32)>> {
        m.joints
            .iter()
            .zip(&m.weights)
            .map(|(j, w)| {
                j.iter()
                    .zip(w)
                    .filter(|(_, w)| **w != 0.0)
                    .map(|(j, w)| (*j, *w))
                    .collect()
            })
            .collect()
    };
    assert_eq!(used(&spread.mesh), used(&plain.mesh));

    // More than 4 in both sets together: two sets, every influence kept in order (the scene
    // refuses it for a shader that reads fewer).
    let path = dir.file("eight.gltf");
    write_chain_gltf(&path, J, SEG, V, W).unwrap();
    let first: Vec<_> = plain
        .mesh
        .joints
        .iter()
        .zip(&plain.mesh.weights)
        .map(|(j, w)| (j.map(|j| j as u16), w.map(|w| w * 0.6)))
        .collect();
    let second = vec![([0u16, 1, 2, 3], [0.1f32, 0.1, 0.1, 0.1]); plain.mesh.len()];
    with_sets(&path, &first, Some(&second));
    let eight = load(&path, None).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(eight.mesh.sets(), 2);
    let want: Vec<(u32, f32)> = first[0]
        .0
        .iter()
        .zip(first[0].1)
        .filter(|p| p.1 != 0.0)
        .map(|(j, w)| (*j as u32, w))
        .chain([(0, 0.1), (1, 0.1), (2, 0.1), (3, 0.1)])
        .collect();
    let got = eight.mesh.influences(0);
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(g.0, w.0);
        assert!((g.1 - w.1).abs() < 1e-6, "{got:?} vs {want:?}");
    }

    // A second set of zeros changes nothing: the model loads as without it.
    let path = dir.file("eight_zero.gltf");
    write_chain_gltf(&path, J, SEG, V, W).unwrap();
    let plain = load(&path, None).unwrap();
    let mut doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let uri = doc["buffers"][0]["uri"].as_str().unwrap().to_string();
    let (head, data) = uri.split_once(',').unwrap();
    let mut bytes = base64_decode(data).unwrap();
    let (offset, count) = (bytes.len(), plain.mesh.len());
    bytes.resize(offset + 16 * count, 0);
    doc["buffers"][0]["uri"] = format!("{head},{}", base64_encode(&bytes)).into();
    doc["buffers"][0]["byteLength"] = bytes.len().into();
    let views = doc["bufferViews"].as_array_mut().unwrap();
    views.push(serde_json::json!({"buffer": 0, "byteOffset": offset, "byteLength": 16 * count}));
    let view = views.len() - 1;
    let accessors = doc["accessors"].as_array_mut().unwrap();
    accessors.push(serde_json::json!({
        "bufferView": view, "componentType": 5126, "count": count, "type": "VEC4"
    }));
    let zeros = accessors.len() - 1;
    let attrs = &mut doc["meshes"][0]["primitives"][0]["attributes"];
    attrs["JOINTS_1"] = attrs["JOINTS_0"].clone();
    attrs["WEIGHTS_1"] = zeros.into();
    std::fs::write(&path, doc.to_string()).unwrap();
    let zero_set = load(&path, None).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(zero_set.mesh.weights, plain.mesh.weights);
    assert_eq!(zero_set.mesh.joints, plain.mesh.joints);

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

/// The five models in cases/models, with vertex and joint counts and the first clip's duration
/// from its README, and whether the rest pose is the bind pose.
const REAL: [(&str, usize, usize, f64, bool); 5] = [
    ("SimpleSkin/SimpleSkin.gltf", 10, 2, 5.5, true),
    ("RiggedSimple/RiggedSimple.glb", 160, 2, 2.083, false),
    ("RiggedFigure/RiggedFigure.glb", 370, 19, 1.25, true),
    ("CesiumMan/CesiumMan.glb", 3273, 19, 2.0, true),
    ("Fox/Fox.glb", 1728, 24, 3.417, true),
];

/// The project's own copy of the models: a clone has them, so they are never skipped.
fn assets() -> PathBuf {
    crate::config::project_root().join("cases/models")
}

#[test]
fn real_models_load_with_their_counts() {
    let dir = assets();
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
    let dir = assets();
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
    let dir = assets();
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

/// The chain as glTF JSON with one morph target on its skinned primitive (displacement of vertex v:
/// (0.01 v, 0, -0.02)), `mesh_weights` on the mesh and `node_weights` on its node; `animate` adds
/// a channel on the mesh node's weights to the first clip.
fn morphed_chain(
    dir: &Scratch,
    mesh_weights: Option<f32>,
    node_weights: Option<f32>,
    animate: bool,
) -> PathBuf {
    let path = dir.file("chain.gltf");
    write_chain(&path, J, SEG, V, W, ChainOptions::default()).unwrap();
    let mut doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let mut bytes: Vec<u8> = (0..V)
        .flat_map(|v| [0.01 * v as f32, 0.0, -0.02])
        .flat_map(f32::to_le_bytes)
        .collect();
    // The animation's one key: time 0, weight 1.
    bytes.extend([0.0f32, 1.0].iter().flat_map(|f| f.to_le_bytes()));
    let buffers = doc["buffers"].as_array_mut().unwrap();
    buffers.push(serde_json::json!({
        "byteLength": bytes.len(),
        "uri": format!("data:application/octet-stream;base64,{}", base64_encode(&bytes)),
    }));
    let buffer = buffers.len() - 1;
    let views = doc["bufferViews"].as_array_mut().unwrap();
    views.push(serde_json::json!({ "buffer": buffer, "byteOffset": 0, "byteLength": V * 12 }));
    views.push(serde_json::json!({ "buffer": buffer, "byteOffset": V * 12, "byteLength": 4 }));
    views.push(serde_json::json!({ "buffer": buffer, "byteOffset": V * 12 + 4, "byteLength": 4 }));
    let view = views.len() - 3;
    let accessors = doc["accessors"].as_array_mut().unwrap();
    let first = accessors.len();
    accessors.push(serde_json::json!({ "bufferView": view, "componentType": 5126, "type": "VEC3", "count": V }));
    accessors.push(serde_json::json!({ "bufferView": view + 1, "componentType": 5126, "type": "SCALAR", "count": 1, "min": [0.0], "max": [0.0] }));
    accessors.push(serde_json::json!({ "bufferView": view + 2, "componentType": 5126, "type": "SCALAR", "count": 1 }));
    doc["meshes"][0]["primitives"][0]["targets"] = serde_json::json!([{ "POSITION": first }]);
    if let Some(w) = mesh_weights {
        doc["meshes"][0]["weights"] = serde_json::json!([w]);
    }
    if let Some(w) = node_weights {
        doc["nodes"][J]["weights"] = serde_json::json!([w]);
    }
    if animate {
        let anim = &mut doc["animations"][0];
        let sampler = anim["samplers"].as_array().unwrap().len();
        anim["samplers"].as_array_mut().unwrap().push(
            serde_json::json!({ "input": first + 1, "output": first + 2, "interpolation": "STEP" }),
        );
        anim["channels"].as_array_mut().unwrap().push(
            serde_json::json!({ "sampler": sampler, "target": { "node": J, "path": "weights" } }),
        );
    }
    std::fs::write(&path, serde_json::to_string(&doc).unwrap()).unwrap();
    path
}

#[test]
fn morph_targets_apply_at_their_default_weights() {
    let dir = Scratch::new("morph");
    let plain = load(&morphed_chain(&dir, None, None, false), None).unwrap();
    let expect = |w: f32| -> Vec<[f32; 3]> {
        plain
            .mesh
            .positions
            .iter()
            .enumerate()
            .map(|(v, p)| [p[0] + w * 0.01 * v as f32, p[1], p[2] - w * 0.02])
            .collect()
    };
    // No weights: the target is at 0, the mesh as written.
    assert!(plain.mesh.positions.iter().all(|p| p[2] == 0.0));
    let mesh_half = load(&morphed_chain(&dir, Some(0.5), None, false), None).unwrap();
    assert!(max_diff(&mesh_half.mesh.positions, &expect(0.5)) < 1e-6);
    // The node's weights win over the mesh's.
    let node = load(&morphed_chain(&dir, Some(0.5), Some(0.25), false), None).unwrap();
    assert!(max_diff(&node.mesh.positions, &expect(0.25)) < 1e-6);
    assert!(!node.clips[0].morph_animated);
    let animated = load(&morphed_chain(&dir, Some(0.5), None, true), None).unwrap();
    assert!(animated.clips[0].morph_animated);
}

#[test]
fn a_case_cannot_sample_what_the_harness_does_not() {
    use crate::scene::{Scene, SceneError};
    let dir = Scratch::new("morph_case");
    let fail = |model: &Path, extra: &str| {
        let text = format!("model: {{ path: {}{extra} }}\n", model.display());
        let case = crate::case::Case::parse(&dir.file("c.yaml"), &text, &[]).unwrap();
        match Scene::from_case(&case) {
            Err(SceneError::Fail(why)) => why,
            Err(SceneError::Skip(why)) => panic!("skip: {why}"),
            Ok(_) => panic!("{text} loaded"),
        }
    };
    let animated = morphed_chain(&dir, Some(0.5), None, true);
    let why = fail(&animated, ", time: 0.5");
    assert!(
        why.contains("field `model.animation`")
            && why.contains("animates the morph target weights"),
        "{why}"
    );
    // Without animations, a time has nothing to sample: the message names `time`.
    let mut doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&animated).unwrap()).unwrap();
    doc.as_object_mut().unwrap().remove("animations");
    let still = dir.file("still.gltf");
    std::fs::write(&still, serde_json::to_string(&doc).unwrap()).unwrap();
    let why = fail(&still, ", time: 0.5");
    assert!(
        why.contains("field `model.time`") && why.contains("has no animations"),
        "{why}"
    );
}

/// Rewrites the skinned primitive of the glTF at `path` with `first` as JOINTS_0/WEIGHTS_0 and,
/// when given, `second` as JOINTS_1/WEIGHTS_1 (u16 joints, f32 weights, appended to its buffer).
fn with_sets(path: &Path, first: &[([u16; 4], [f32; 4])], second: Option<&[([u16; 4], [f32; 4])]>) {
    let mut doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let uri = doc["buffers"][0]["uri"].as_str().unwrap().to_string();
    let (head, data) = uri.split_once(',').unwrap();
    let mut bytes = base64_decode(data).unwrap();
    let mut add = |doc: &mut serde_json::Value, data: Vec<u8>, component: u32, count: usize| {
        while !bytes.len().is_multiple_of(4) {
            bytes.push(0);
        }
        let offset = bytes.len();
        bytes.extend_from_slice(&data);
        let views = doc["bufferViews"].as_array_mut().unwrap();
        views
            .push(serde_json::json!({"buffer": 0, "byteOffset": offset, "byteLength": data.len()}));
        let view = views.len() - 1;
        let accessors = doc["accessors"].as_array_mut().unwrap();
        accessors.push(serde_json::json!({
            "bufferView": view, "componentType": component, "count": count, "type": "VEC4"
        }));
        accessors.len() - 1
    };
    let mut sets = vec![("0", first)];
    sets.extend(second.map(|s| ("1", s)));
    for (set, data) in sets {
        let joints: Vec<u8> = data
            .iter()
            .flat_map(|(j, _)| bytemuck::cast_slice::<u16, u8>(j).to_vec())
            .collect();
        let weights: Vec<u8> = data
            .iter()
            .flat_map(|(_, w)| bytemuck::cast_slice::<f32, u8>(w).to_vec())
            .collect();
        let j = add(&mut doc, joints, 5123, data.len());
        let w = add(&mut doc, weights, 5126, data.len());
        let attrs = &mut doc["meshes"][0]["primitives"][0]["attributes"];
        attrs[format!("JOINTS_{set}")] = j.into();
        attrs[format!("WEIGHTS_{set}")] = w.into();
    }
    doc["buffers"][0]["uri"] = format!("{head},{}", base64_encode(&bytes)).into();
    doc["buffers"][0]["byteLength"] = bytes.len().into();
    std::fs::write(path, doc.to_string()).unwrap();
}

/// A chain model whose JSON `edit` changes, written as `name` in `dir`.
fn edited(dir: &Scratch, name: &str, edit: impl FnOnce(&mut serde_json::Value)) -> PathBuf {
    let path = dir.file(name);
    write_chain_gltf(&path, J, SEG, V, W).unwrap();
    let mut doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    edit(&mut doc);
    std::fs::write(&path, doc.to_string()).unwrap();
    path
}

#[test]
fn counts_past_the_bytes_there_are_refused_before_allocating() {
    let dir = Scratch::new("sparse");
    let position = |doc: &serde_json::Value| {
        doc["meshes"][0]["primitives"][0]["attributes"]["POSITION"]
            .as_u64()
            .unwrap() as usize
    };
    // POSITION as a sparse accessor with no view claiming `count` elements.
    let viewless = |doc: &mut serde_json::Value, count: u64| {
        let p = position(doc);
        let acc = &mut doc["accessors"][p];
        acc.as_object_mut().unwrap().remove("bufferView");
        acc["count"] = count.into();
        acc["sparse"] = serde_json::json!({
            "count": 1,
            "indices": {"bufferView": 0, "componentType": 5125},
            "values": {"bufferView": 0}
        });
    };
    // 2^31 elements: 24 GiB were allocated for it.
    let path = edited(&dir, "sparse.gltf", |doc| viewless(doc, 1 << 31));
    let e = load(&path, None).unwrap_err().to_string();
    assert!(
        e.contains("attributes.POSITION") && e.contains("count 2147483648 is more than"),
        "{e}"
    );
    // Three primitives sharing one accessor of 2^21 elements: each within the limit, joined past
    // it, refused before any is read.
    let path = edited(&dir, "shared.gltf", |doc| {
        viewless(doc, 1 << 21);
        let prim = doc["meshes"][0]["primitives"][0].clone();
        let prims = doc["meshes"][0]["primitives"].as_array_mut().unwrap();
        prims.extend([prim.clone(), prim]);
    });
    let e = load(&path, None).unwrap_err().to_string();
    assert!(
        e.contains("meshes[0].primitives: the skinned primitives have 6291456 vertices together"),
        "{e}"
    );
    // A view-backed accessor claiming more elements than its view holds.
    let path = edited(&dir, "long.gltf", |doc| {
        let p = position(doc);
        doc["accessors"][p]["count"] = 1_000_000.into();
    });
    let e = load(&path, None).unwrap_err().to_string();
    assert!(
        e.contains("attributes.POSITION") && e.contains("1000000 elements need"),
        "{e}"
    );
}

#[test]
fn buffers_outside_the_models_folder_are_refused_naming_buffer_and_uri() {
    let dir = Scratch::new("uris");
    std::fs::write(dir.file("outside.bin"), [0u8; 64]).unwrap();
    std::fs::create_dir_all(dir.file("model")).unwrap();
    std::os::unix::fs::symlink(dir.file("outside.bin"), dir.file("model/link.bin")).unwrap();
    for (uri, why) in [
        ("../outside.bin", "leaves the model's folder"),
        ("sub/../../outside.bin", "leaves the model's folder"),
        ("/etc/passwd", "is an absolute path"),
        ("http://example.com/a.bin", "is a http: URI"),
        ("file:///etc/passwd", "is a file: URI"),
        ("link.bin", "outside the model's folder"),
    ] {
        let path = edited(&dir, "model/m.gltf", |doc| {
            doc["buffers"][0]["uri"] = uri.into();
        });
        let e = load(&path, None).unwrap_err().to_string();
        assert!(
            e.contains("buffers[0].uri") && e.contains(&format!("{uri:?}")) && e.contains(why),
            "{uri}: {e}"
        );
    }
}

#[test]
fn every_skinned_primitive_is_joined_and_strips_and_fans_are_triangles() {
    let dir = Scratch::new("primitives");
    let (_d, one) = chain_model("one_primitive", ChainOptions::default());
    let n = one.mesh.len() as u32;
    // The same primitive twice: its vertices twice, the second copy's indices offset by n.
    let path = edited(&dir, "two.gltf", |doc| {
        let prim = doc["meshes"][0]["primitives"][0].clone();
        doc["meshes"][0]["primitives"]
            .as_array_mut()
            .unwrap()
            .push(prim);
    });
    let two = load(&path, None).unwrap_or_else(|e| panic!("{e}")).mesh;
    assert_eq!(two.len(), 2 * one.mesh.len());
    assert_eq!(two.positions[..n as usize], one.mesh.positions[..]);
    assert_eq!(two.positions[n as usize..], one.mesh.positions[..]);
    assert_eq!(two.joints[n as usize..], one.mesh.joints[..]);
    assert_eq!(two.weights[n as usize..], one.mesh.weights[..]);
    let shifted: Vec<u32> = one.mesh.indices.iter().map(|i| i + n).collect();
    assert_eq!(two.indices, [one.mesh.indices.clone(), shifted].concat());
    // Without indices, as a strip (TRIANGLE_STRIP, 5) and a fan (TRIANGLE_FAN, 6): glTF 2.0's
    // triangles {i, i+1, i+2} with the odd ones' last two swapped, and {i+1, i+2, 0}.
    for (mode, first) in [
        (5, [0, 1, 2, 1, 3, 2, 2, 3, 4]),
        (6, [1, 2, 0, 2, 3, 0, 3, 4, 0]),
    ] {
        let path = edited(&dir, &format!("mode{mode}.gltf"), |doc| {
            let prim = &mut doc["meshes"][0]["primitives"][0];
            prim.as_object_mut().unwrap().remove("indices");
            prim["mode"] = mode.into();
        });
        let mesh = load(&path, None).unwrap_or_else(|e| panic!("{e}")).mesh;
        assert_eq!(mesh.indices.len(), 3 * (n as usize - 2), "mode {mode}");
        assert_eq!(mesh.indices[..9], first, "mode {mode}");
    }
    // A list whose last triangle is cut short would shift the triangles joined after it.
    let path = edited(&dir, "short.gltf", |doc| {
        let i = doc["meshes"][0]["primitives"][0]["indices"]
            .as_u64()
            .unwrap() as usize;
        let count = doc["accessors"][i]["count"].as_u64().unwrap();
        doc["accessors"][i]["count"] = (count - 1).into();
    });
    let e = load(&path, None).unwrap_err().to_string();
    assert!(
        e.contains("meshes[0].primitives[0].indices") && e.contains("a multiple of 3"),
        "{e}"
    );
    let path = edited(&dir, "lines.gltf", |doc| {
        doc["meshes"][0]["primitives"][0]["mode"] = 1.into();
    });
    let e = load(&path, None).unwrap_err().to_string();
    assert!(
        e.contains("meshes[0].primitives[0].mode") && e.contains("is Lines; only triangles"),
        "{e}"
    );
}

/// `doc` with `data` appended to its (data: URI) buffer as a view of `stride` bytes an element,
/// and an accessor of it; the accessor's index.
fn append_accessor(
    doc: &mut serde_json::Value,
    data: &[u8],
    accessor: serde_json::Value,
    stride: usize,
) -> usize {
    let uri = doc["buffers"][0]["uri"].as_str().unwrap().to_string();
    let (head, base64) = uri.split_once(',').unwrap();
    let mut bytes = base64_decode(base64).unwrap();
    while !bytes.len().is_multiple_of(4) {
        bytes.push(0);
    }
    let offset = bytes.len();
    bytes.extend_from_slice(data);
    doc["buffers"][0]["uri"] = format!("{head},{}", base64_encode(&bytes)).into();
    doc["buffers"][0]["byteLength"] = bytes.len().into();
    let views = doc["bufferViews"].as_array_mut().unwrap();
    views.push(serde_json::json!({
        "buffer": 0, "byteOffset": offset, "byteLength": data.len(), "byteStride": stride
    }));
    let mut accessor = accessor;
    accessor["bufferView"] = (views.len() - 1).into();
    let accessors = doc["accessors"].as_array_mut().unwrap();
    accessors.push(accessor);
    accessors.len() - 1
}

#[test]
fn quantized_positions_and_normals_are_read_as_the_extension_says() {
    let dir = Scratch::new("quantized");
    let (_d, plain) = chain_model("unquantized", ChainOptions::default());
    let n = plain.mesh.len();
    // Positions in centimetres as i16, not normalized (8 bytes a vertex: 4-byte aligned); normals
    // +z as normalized i8 (127), 4 bytes a vertex.
    let cm: Vec<[i16; 3]> = (plain.mesh.positions.iter())
        .map(|p| p.map(|c| (c * 100.0).round() as i16))
        .collect();
    let quantize = |doc: &mut serde_json::Value, declare: bool| {
        let data: Vec<u8> = (cm.iter())
            .flat_map(|p| [bytemuck::cast_slice::<i16, u8>(p), &[0, 0]].concat())
            .collect();
        let (lo, hi) = (cm.iter()).fold(([i16::MAX; 3], [i16::MIN; 3]), |(lo, hi), p| {
            (
                std::array::from_fn(|k| lo[k].min(p[k])),
                std::array::from_fn(|k| hi[k].max(p[k])),
            )
        });
        let accessor = serde_json::json!({"componentType": 5122, "count": n, "type": "VEC3", "min": lo, "max": hi});
        let pos = append_accessor(doc, &data, accessor, 8);
        let normals: Vec<u8> = (0..n).flat_map(|_| [0u8, 0, 127, 0]).collect();
        let nrm = append_accessor(
            doc,
            &normals,
            serde_json::json!({"componentType": 5120, "normalized": true, "count": n, "type": "VEC3"}),
            4,
        );
        let attrs = &mut doc["meshes"][0]["primitives"][0]["attributes"];
        attrs["POSITION"] = pos.into();
        attrs["NORMAL"] = nrm.into();
        if declare {
            doc["extensionsUsed"] = serde_json::json!(["KHR_mesh_quantization"]);
            doc["extensionsRequired"] = serde_json::json!(["KHR_mesh_quantization"]);
        }
    };
    let path = edited(&dir, "quantized.gltf", |doc| quantize(doc, true));
    let mesh = load(&path, None).unwrap_or_else(|e| panic!("{e}")).mesh;
    let want: Vec<[f32; 3]> = cm.iter().map(|p| p.map(f32::from)).collect();
    assert_eq!(mesh.positions, want);
    assert!(
        mesh.normals.iter().all(|v| *v == [0.0, 0.0, 1.0]),
        "{:?}",
        &mesh.normals[..2]
    );
    // Without the extension, integer positions are not glTF: refused, naming the types.
    let path = edited(&dir, "undeclared.gltf", |doc| quantize(doc, false));
    let e = load(&path, None).unwrap_err().to_string();
    assert!(
        e.contains("attributes.POSITION") && e.contains("expected Vec3 of [F32]"),
        "{e}"
    );
    // Another required extension is still refused.
    let path = edited(&dir, "draco.gltf", |doc| {
        doc["extensionsRequired"] = serde_json::json!(["KHR_draco_mesh_compression"]);
    });
    let e = load(&path, None).unwrap_err().to_string();
    assert!(e.contains("KHR_draco_mesh_compression"), "{e}");
}

/// gltfpack's copies of RiggedFigure (`cases/models/RiggedFigure/gltfpack/`).
fn gltfpack(name: &str) -> PathBuf {
    crate::config::project_root()
        .join("cases/models/RiggedFigure/gltfpack")
        .join(name)
}

/// Each triangle started at its least index, its winding kept.
fn turned(indices: &[u32]) -> Vec<u32> {
    (indices.chunks(3))
        .flat_map(|t| {
            let k = (0..3).min_by_key(|&k| t[k]).unwrap_or(0);
            [t[k], t[(k + 1) % 3], t[(k + 2) % 3]]
        })
        .collect()
}

/// The model's skinned positions and normals at `t` seconds into its first clip.
fn skinned_at(m: &Model, t: f64) -> (Vec<[f32; 3]>, Vec<[f32; 3]>) {
    let palette = m.skeleton.palette(&m.pose_at(0, t));
    let by = crate::format::NormalMatrix::default();
    let normals = reference::skin_normals(&palette, &m.mesh, by);
    (reference::skin(&palette, &m.mesh), normals)
}

/// Meshopt-compressed models load as their uncompressed twin (gltfpack's output of the same
/// model without `-c`): with no filter (`-c`) exactly; with octahedral normals, quaternion
/// rotations and exponential positions (`-cc -vpf`), and through KHR_meshopt_compression's newer
/// codec (`-cz -ce khr`), within their own quantization, skinned at several times of the clip.
#[test]
fn meshopt_compressed_models_load_as_their_uncompressed_twin() {
    let twin = load(&gltfpack("quantized.glb"), None).unwrap_or_else(|e| panic!("{e}"));
    let exact = load(&gltfpack("meshopt.glb"), None).unwrap_or_else(|e| panic!("{e}"));
    // The index codec may start a triangle at another of its corners (its winding kept).
    let rotated = |m: &Model| Mesh {
        indices: turned(&m.mesh.indices),
        ..m.mesh.clone()
    };
    assert_eq!(rotated(&exact), rotated(&twin));
    assert_ne!(exact.mesh.indices, twin.mesh.indices);
    assert_eq!(exact.mesh.len(), 312);
    for t in [0.0, 0.4, 1.1] {
        assert_eq!(exact.pose_at(0, t), twin.pose_at(0, t), "t = {t}");
    }
    // gltfpack orders the vertices of these two otherwise: each is matched to the twin's whose
    // skinned position and normal at the clip's start are nearest.
    let (rest, rest_normals) = skinned_at(&twin, 0.0);
    for name in ["meshopt_filters.glb", "khr_meshopt.glb"] {
        let m = load(&gltfpack(name), None).unwrap_or_else(|e| panic!("{name}: {e}"));
        let (p, n) = skinned_at(&m, 0.0);
        let to: Vec<usize> = (p.iter().zip(&n))
            .map(|(p, n)| {
                let off = |k: usize| {
                    Vec3::from(*p).distance(Vec3::from(rest[k]))
                        + 1e-2 * Vec3::from(*n).distance(Vec3::from(rest_normals[k]))
                };
                (0..twin.mesh.len())
                    .min_by(|&a, &b| off(a).total_cmp(&off(b)))
                    .unwrap()
            })
            .collect();
        let triangles = |m: &Model, to: &dyn Fn(u32) -> u32| {
            let mut t: Vec<[u32; 3]> = (turned(&m.mesh.indices).chunks(3))
                .map(|t| [to(t[0]), to(t[1]), to(t[2])])
                .collect();
            t.iter_mut()
                .for_each(|t| *t = turned(t).try_into().unwrap());
            t.sort();
            t
        };
        assert_eq!(
            triangles(&m, &|i| to[i as usize] as u32),
            triangles(&twin, &|i| i),
            "{name}"
        );
        for (v, &k) in to.iter().enumerate() {
            assert_eq!(m.mesh.joints[v], twin.mesh.joints[k], "{name} vertex {v}");
            assert_eq!(m.mesh.weights[v], twin.mesh.weights[k], "{name} vertex {v}");
        }
        for t in [0.0, 0.4, 1.1] {
            let ((p, n), (tp, tn)) = (skinned_at(&m, t), skinned_at(&twin, t));
            let far = (p.iter().zip(&to))
                .map(|(a, &k)| Vec3::from(*a).distance(Vec3::from(tp[k])))
                .fold(0.0, f32::max);
            // RiggedFigure is about 2.5 units tall: its 14-bit positions lie 1.5e-4 apart.
            assert!(
                far > 0.0 && far < 2e-3,
                "{name} at {t}: positions {far} apart"
            );
            let turned = (n.iter().zip(&to))
                .map(|(a, &k)| Vec3::from(*a).angle_between(Vec3::from(tn[k])).to_degrees())
                .fold(0.0, f32::max);
            assert!(
                turned < 2.0,
                "{name} at {t}: normals {turned} degrees apart"
            );
        }
    }
}

/// A glTF of gltfpack's `-c` RiggedFigure, its GLB chunk as a `data:` URI, whose JSON `edit`
/// changes (given the binary chunk, which it may also change), written as `name` in `dir`.
fn meshopt_edited(
    dir: &Scratch,
    name: &str,
    edit: impl FnOnce(&mut serde_json::Value, &mut Vec<u8>),
) -> PathBuf {
    let glb = std::fs::read(gltfpack("meshopt.glb")).unwrap();
    let chunk = |at: usize| {
        let len = u32::from_le_bytes(glb[at..at + 4].try_into().unwrap()) as usize;
        (&glb[at + 8..at + 8 + len], at + 8 + len)
    };
    let (json, next) = chunk(12);
    let (bin, _) = chunk(next);
    let mut doc: serde_json::Value = serde_json::from_slice(json).unwrap();
    let mut bin = bin.to_vec();
    edit(&mut doc, &mut bin);
    doc["buffers"][0]["uri"] = format!(
        "data:application/octet-stream;base64,{}",
        base64_encode(&bin)
    )
    .into();
    let path = dir.file(name);
    std::fs::write(&path, doc.to_string()).unwrap();
    path
}

/// The first compressed view of `mode` in the document, and its extension object.
fn compressed<'a>(doc: &'a mut serde_json::Value, mode: &str) -> &'a mut serde_json::Value {
    let views = doc["bufferViews"].as_array_mut().unwrap();
    let view = (views.iter_mut())
        .find(|v| v["extensions"]["EXT_meshopt_compression"]["mode"] == mode)
        .unwrap();
    &mut view["extensions"]["EXT_meshopt_compression"]
}

/// An index sequence (mode `INDICES`, which gltfpack writes for other primitives than triangle
/// lists) decodes too, into a view of a buffer that has bytes of its own (not a fallback).
#[test]
fn a_meshopt_index_sequence_decodes_into_a_buffer_of_its_own() {
    let dir = Scratch::new("meshopt-indices");
    let twin = load(&gltfpack("meshopt.glb"), None).unwrap();
    let path = meshopt_edited(&dir, "indices.gltf", |doc, bin| {
        let acc = doc["meshes"][0]["primitives"][0]["indices"]
            .as_u64()
            .unwrap() as usize;
        let view = doc["accessors"][acc]["bufferView"].as_u64().unwrap() as usize;
        // The indices as 32-bit words in a view of buffer 0 holding zeros, compressed after it.
        let words: Vec<u32> = twin.mesh.indices.clone();
        let encoded = ::meshopt::encoding::encode_index_sequence(&words, twin.mesh.len()).unwrap();
        let at = bin.len().next_multiple_of(4);
        bin.resize(at + 4 * words.len(), 0);
        let from = bin.len();
        bin.extend_from_slice(&encoded);
        doc["buffers"][0]["byteLength"] = bin.len().into();
        doc["accessors"][acc]["componentType"] = 5125.into();
        doc["accessors"][acc]["byteOffset"] = 0.into();
        doc["bufferViews"][view] = serde_json::json!({
            "buffer": 0, "byteOffset": at, "byteLength": 4 * words.len(),
            "extensions": {"EXT_meshopt_compression": {
                "buffer": 0, "byteOffset": from, "byteLength": encoded.len(),
                "byteStride": 4, "count": words.len(), "mode": "INDICES"
            }}
        });
    });
    let m = load(&path, None).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(m.mesh.indices, twin.mesh.indices);
}

/// An edit of a meshopt model's JSON and binary chunk.
type Edit<'a> = &'a dyn Fn(&mut serde_json::Value, &mut Vec<u8>);

/// A compressed view the extension does not allow, or whose bytes do not decode, is refused
/// naming the field, before meshoptimizer's decoders (which assert their sizes) see it.
#[test]
fn malformed_meshopt_views_are_refused_by_field() {
    let dir = Scratch::new("meshopt-bad");
    let refused = |name: &str, edit: Edit| {
        let path = meshopt_edited(&dir, name, |doc, bin| edit(doc, bin));
        load(&path, None).map(|_| ()).unwrap_err().to_string()
    };
    let ext = ".extensions.EXT_meshopt_compression";
    let cases: [(&str, Edit, &str); 15] = [
        (
            "stride",
            &|d, _| compressed(d, "ATTRIBUTES")["byteStride"] = 6.into(),
            "byteStride: is 6; with mode ATTRIBUTES it must be a multiple of 4 from 4 to 256",
        ),
        (
            "triangles",
            &|d, _| {
                let c = compressed(d, "TRIANGLES");
                c["count"] = (c["count"].as_u64().unwrap() - 1).into();
            },
            "count: is ",
        ),
        (
            "filter",
            &|d, _| compressed(d, "TRIANGLES")["filter"] = "OCTAHEDRAL".into(),
            "filter: OCTAHEDRAL does not apply to mode TRIANGLES",
        ),
        (
            "mode",
            &|d, _| compressed(d, "TRIANGLES")["mode"] = "STRIPS".into(),
            "unknown variant `STRIPS`",
        ),
        (
            "past",
            &|d, _| compressed(d, "ATTRIBUTES")["byteOffset"] = 1_000_000.into(),
            "lie past the end of buffers[0]",
        ),
        (
            "garbled",
            &|d, bin| {
                let c = compressed(d, "ATTRIBUTES");
                let at = c["byteOffset"].as_u64().unwrap() as usize;
                bin[at] = 0x55;
            },
            "do not decode as ATTRIBUTES (meshoptimizer's decoder returned",
        ),
        (
            "short",
            &|d, _| d["bufferViews"][0]["byteLength"] = 8.into(),
            "bufferViews[0].byteLength: is 8, but its 312 elements of 4 bytes decode to 1248 bytes",
        ),
        (
            "overflow",
            &|d, _| d["bufferViews"][0]["byteOffset"] = u64::MAX.into(),
            "from byteOffset 18446744073709551615",
        ),
        (
            "strided",
            &|d, _| d["bufferViews"][0]["byteStride"] = 8.into(),
            "bufferViews[0].byteStride: is 8, but its compressed elements are 4 bytes apart",
        ),
        (
            "quaternion",
            &|d, _| compressed(d, "ATTRIBUTES")["filter"] = "QUATERNION".into(),
            "filter: QUATERNION does not apply to mode ATTRIBUTES with byteStride 4",
        ),
        (
            "zero",
            &|d, _| compressed(d, "ATTRIBUTES")["byteStride"] = 0.into(),
            "byteStride: is 0; with mode ATTRIBUTES it must be a multiple of 4",
        ),
        (
            "huge",
            &|d, _| compressed(d, "ATTRIBUTES")["count"] = (1u64 << 40).into(),
            "count: 1099511627776 elements of 4 bytes are more than the 256 MiB",
        ),
        (
            "plain",
            &|d, _| {
                let views = d["bufferViews"].as_array_mut().unwrap();
                views.push(serde_json::json!({"buffer": 1, "byteLength": 4}));
            },
            "a meshopt fallback buffer, but the view is not compressed",
        ),
        (
            "khr",
            &|d, _| {
                let view = &mut d["bufferViews"][0]["extensions"];
                let mut c = view["EXT_meshopt_compression"].take();
                c["byteStride"] = 6.into();
                *view = serde_json::json!({ "KHR_meshopt_compression": c });
            },
            "bufferViews[0].extensions.KHR_meshopt_compression.byteStride: is 6",
        ),
        (
            "fallback",
            &|d, _| d["buffers"][1]["byteLength"] = (1u64 << 40).into(),
            "buffers[1].byteLength: is 1099511627776: a fallback buffer's decoded bytes",
        ),
    ];
    for (name, edit, want) in cases {
        let e = refused(&format!("{name}.gltf"), edit);
        assert!(
            e.contains(&format!("{name}.gltf: ")) && e.contains(want),
            "{name}: {e}"
        );
        let plain = ["fallback", "short", "overflow", "strided", "khr", "plain"];
        if !plain.contains(&name) {
            assert!(e.contains(&format!("]{ext}")), "{name}: {e}");
        }
    }
}
