//! `docs/bad-inputs.md`: every class of bad input with the message the code really prints.

use std::path::{Path, PathBuf};

use skinproof::case::Case;

use crate::root;

/// One row of the table: the class, the input (as written), what the message must name, the message.
struct Tried {
    class: String,
    input: String,
    names: String,
    message: String,
}

fn row(rows: &mut Vec<Tried>, class: &str, input: &str, names: &str, message: String) {
    let message = message.replace(&format!("{}/", root().display()), "<root>/");
    assert!(
        message.contains(names),
        "{class}: the message does not name {names}: {message}"
    );
    rows.push(Tried {
        class: class.into(),
        input: input.into(),
        names: names.into(),
        message,
    });
}

fn cell(s: &str) -> String {
    let html = s
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('|', "&#124;")
        .replace('`', "&#96;");
    format!("<code>{}</code>", html.trim_end().replace('\n', "<br>"))
}

fn table(out: &mut String, rows: &[Tried]) {
    out.push_str("| bad input | example | names | message |\n| --- | --- | --- | --- |\n");
    for r in rows {
        out.push_str(&format!(
            "| {} | {} | {} | {} |\n",
            r.class,
            cell(&r.input),
            cell(&r.names),
            cell(&r.message)
        ));
    }
    out.push('\n');
}

/// RiggedFigure's meshopt-compressed copy (`gltfpack -c`) with the header byte of its first
/// compressed vertex view (in the GLB's binary chunk) overwritten.
fn garbled_meshopt(path: &Path) {
    let from = root().join("cases/models/RiggedFigure/gltfpack/meshopt.glb");
    let mut glb = std::fs::read(from).unwrap();
    let json_len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    let doc: serde_json::Value = serde_json::from_slice(&glb[20..20 + json_len]).unwrap();
    let first = (doc["bufferViews"].as_array().unwrap().iter())
        .map(|v| &v["extensions"]["EXT_meshopt_compression"])
        .find(|c| c["mode"] == "ATTRIBUTES")
        .unwrap();
    // The binary chunk's bytes start after its 8-byte header.
    let at = 20 + json_len + 8 + first["byteOffset"].as_u64().unwrap_or(0) as usize;
    glb[at] = 0x55;
    std::fs::write(path, glb).unwrap();
}

/// The built-in chain as a .gltf, with the first element of `attribute` of vertex 0 overwritten.
fn broken_gltf(path: &Path, attribute: &str, value: f32) {
    skinproof::model::write_chain_gltf(path, 3, 1.0, 8, 0.2).unwrap();
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let uri = json["buffers"][0]["uri"].as_str().unwrap().to_string();
    let (head, data) = uri.split_once(',').unwrap();
    let mut bytes = skinproof::model::base64_decode(data).expect("the writer's base64");
    let acc = json["meshes"][0]["primitives"][0]["attributes"][attribute]
        .as_u64()
        .unwrap() as usize;
    let a = &json["accessors"][acc];
    let view = &json["bufferViews"][a["bufferView"].as_u64().unwrap() as usize];
    let at =
        (view["byteOffset"].as_u64().unwrap_or(0) + a["byteOffset"].as_u64().unwrap_or(0)) as usize;
    match a["componentType"].as_u64().unwrap() {
        5126 => bytes[at..at + 4].copy_from_slice(&value.to_le_bytes()),
        5121 => bytes[at] = value as u8,
        5123 => bytes[at..at + 2].copy_from_slice(&(value as u16).to_le_bytes()),
        t => panic!("component type {t}"),
    }
    json["buffers"][0]["uri"] =
        format!("{head},{}", skinproof::model::base64_encode(&bytes)).into();
    std::fs::write(path, serde_json::to_string(&json).unwrap()).unwrap();
}

/// The case-file table: (class, YAML, what the message must name).
const CASE_INPUTS: &[(&str, &str, &str)] = &[
    ("malformed YAML", "skeleton:\n  joints: 3\n mesh: [\n", "cases/example.yaml:3:"),
    ("tab indentation", "skeleton:\n\tjoints: 3\nmesh:\n  vertices: 3\n", "cases/example.yaml:2:"),
    ("wrong type", "skeleton:\n  joints: many\nmesh:\n  vertices: 3\n", "skeleton.joints"),
    ("wrong type (float for an integer)", "skeleton: { joints: 3 }\nmesh: { vertices: 3 }\nrender: { width: 1e3 }\n", "render.width"),
    ("negative size", "skeleton: { joints: 3 }\nmesh: { vertices: -1 }\n", "mesh.vertices"),
    ("unknown field", "skeleton:\n  joints: 3\n  colour: red\nmesh:\n  vertices: 3\n", "colour"),
    ("unknown field in a list item", "skeleton: { joints: 3 }\nmesh: { vertices: 3 }\npose:\n  - joint: 1\n    angle: 30\n", "pose[0]"),
    ("unknown enum value", "skeleton: { joints: 3 }\nmesh: { vertices: 3 }\ngolden: { metric: ssim }\n", "golden.metric"),
    ("missing field", "skeleton:\n  segment_length: 1\nmesh:\n  vertices: 3\n", "joints"),
    ("missing section", "skeleton:\n  joints: 3\n", "mesh"),
    ("missing sections", "description: nothing else\n", "skeleton"),
    ("duplicate key", "skeleton: { joints: 3 }\nmesh: { vertices: 3 }\nskeleton: { joints: 4 }\n", "cases/example.yaml:3:"),
    ("two documents", "skeleton: { joints: 3 }\nmesh: { vertices: 3 }\n---\nmesh: { vertices: 4 }\n", "cases/example.yaml:3:"),
    ("empty file", "", "skeleton"),
    ("not a mapping", "- skeleton\n- mesh\n", "cases/example.yaml:1:"),
    ("joint count 0", "skeleton:\n  joints: 0\nmesh:\n  vertices: 3\n", "skeleton.joints"),
    ("joint count too large", "skeleton:\n  joints: 70000\nmesh:\n  vertices: 3\n", "skeleton.joints"),
    ("joint index out of range", "skeleton: { joints: 3 }\nmesh: { vertices: 3 }\npose:\n  - joint: 1\n  - joint: 7\n", "pose[1].joint"),
    ("negative joint index", "skeleton: { joints: 3 }\nmesh: { vertices: 3 }\npose:\n  - joint: -1\n", "pose[0].joint"),
    ("influences out of range", "skeleton:\n  joints: 3\nmesh:\n  vertices: 3\n  influences: 17\n", "mesh.influences"),
    ("NaN in a pose", "skeleton: { joints: 3 }\nmesh: { vertices: 3 }\npose:\n  - joint: 1\n    degrees: .nan\n", "pose[0].degrees"),
    ("infinity in a pose", "skeleton: { joints: 3 }\nmesh: { vertices: 3 }\npose:\n  - joint: 1\n    translation: [0, .inf, 0]\n", "pose[0].translation"),
    ("beyond f32 in a pose", "skeleton: { joints: 3 }\nmesh: { vertices: 3 }\npose:\n  - joint: 1\n    translation: [1e39, 0, 0]\n", "pose[0].translation"),
    ("zero axis", "skeleton: { joints: 3 }\nmesh: { vertices: 3 }\npose:\n  - joint: 1\n    axis: [0, 0, 0]\n", "pose[0].axis"),
    ("zero scale", "skeleton: { joints: 3 }\nmesh: { vertices: 3 }\npose:\n  - joint: 1\n    scale: [1, 0, 1]\n", "pose[0].scale"),
    ("NaN tolerance", "skeleton: { joints: 3 }\nmesh: { vertices: 3 }\ntolerance:\n  max_abs_error: .nan\n", "tolerance.max_abs_error"),
    ("infinite tolerance", "skeleton: { joints: 3 }\nmesh: { vertices: 3 }\ntolerance:\n  min_displacement: .inf\n", "tolerance.min_displacement"),
    ("zero tolerance", "skeleton: { joints: 3 }\nmesh: { vertices: 3 }\ntolerance:\n  max_relative_error: 0\n", "tolerance.max_relative_error"),
    ("zero segment length", "skeleton:\n  joints: 3\n  segment_length: 0\nmesh:\n  vertices: 3\n", "skeleton.segment_length"),
    ("segment length below f32", "skeleton:\n  joints: 3\n  segment_length: 1e-50\nmesh:\n  vertices: 3\n", "skeleton.segment_length"),
    ("chain longer than f32", "skeleton:\n  joints: 65536\n  segment_length: 1e35\nmesh:\n  vertices: 3\n", "skeleton.segment_length"),
    ("negative strip width", "skeleton:\n  joints: 3\nmesh:\n  vertices: 3\n  width: -0.5\n", "mesh.width"),
    ("zero render size", "skeleton: { joints: 3 }\nmesh: { vertices: 3 }\nrender:\n  width: 0\n", "render.width"),
    ("render size too large", "skeleton: { joints: 3 }\nmesh: { vertices: 3 }\nrender:\n  height: 9000\n", "render.height"),
    ("negative view", "skeleton: { joints: 3 }\nmesh: { vertices: 3 }\nrender:\n  view: { scale: 1, offset_y: 0, half_width: -1 }\n", "render.view.half_width"),
    ("NaN view", "skeleton: { joints: 3 }\nmesh: { vertices: 3 }\nrender:\n  view: { scale: .nan, offset_y: 0, half_width: 1 }\n", "render.view.scale"),
    ("coverage range reversed", "skeleton: { joints: 3 }\nmesh: { vertices: 3 }\nrender:\n  bind_coverage: [900, 700]\n", "render.bind_coverage"),
    ("vertex count 0", "skeleton:\n  joints: 3\nmesh:\n  vertices: 0\n", "mesh.vertices"),
    ("absurd vertex count", "skeleton:\n  joints: 3\nmesh:\n  vertices: 20000000\n", "mesh.vertices"),
    ("vertex count beyond u64", "skeleton:\n  joints: 3\nmesh:\n  vertices: 99999999999999999999999\n", "mesh.vertices"),
    ("missing glTF file", "model:\n  path: assets/missing.glb\n", "model.path"),
    ("not a glTF file", "model:\n  path: assets/robot.obj\n  if_missing: skip\n", "model.path"),
    ("glTF path is a folder", "model:\n  path: ../target/model.gltf\n", "model.path"),
    ("model and chain together", "model:\n  path: a.glb\n  if_missing: skip\nskeleton: { joints: 3 }\n", "skeleton"),
    ("a clip without a time", "model:\n  path: a.glb\n  if_missing: skip\n  animation: Walk\n", "model.animation"),
    ("negative animation time", "model:\n  path: a.glb\n  if_missing: skip\n  time: -1\n", "model.time"),
    ("unknown if_missing", "model:\n  path: a.glb\n  if_missing: ignore\n", "model.if_missing"),
    ("unknown check in expect", "skeleton: { joints: 3 }\nmesh: { vertices: 3 }\nexpect:\n  - check: posed_matches\n    status: fail\n    reason: x\n", "expect[0].check"),
    ("expectation without reason", "skeleton: { joints: 3 }\nmesh: { vertices: 3 }\nexpect:\n  - check: posed_matches_cpu\n    status: fail\n", "reason"),
    ("backend list that never matches", "skeleton: { joints: 3 }\nmesh: { vertices: 3 }\nexpect:\n  - backend: vulkan,gl\n    check: posed_matches_cpu\n    status: fail\n    reason: x\n", "expect[0].backend"),
    ("golden name with a path", "skeleton: { joints: 3 }\nmesh: { vertices: 3 }\ngolden:\n  name: ../other\n", "golden.name"),
    ("channel tolerance beyond u8", "skeleton: { joints: 3 }\nmesh: { vertices: 3 }\ngolden:\n  channel_tolerance: 300\n", "golden.channel_tolerance"),
    ("sub-pixel switch as a word", "skeleton: { joints: 3 }\nmesh: { vertices: 3 }\ngolden:\n  subpixel: yes\n", "golden.subpixel"),
    ("percentile beyond 1", "skeleton: { joints: 3 }\nmesh: { vertices: 3 }\ngolden:\n  flip_percentile: 1.5\n", "golden.flip_percentile"),
];

/// Shader edits: (class, the default shader's text, its replacement, what the message must name).
const SHADER_EDITS: &[(&str, &str, &str, &str)] = &[
    (
        "does not parse",
        "let i = id.x;",
        "let i = id.x",
        "shaders/broken.wgsl:",
    ),
    (
        "split into modules, without a profile",
        "struct Count {",
        "#import engine::skinning\n\nstruct Count {",
        "--define NAME",
    ),
    (
        "lacks an entry point",
        "fn fs_skin(",
        "fn fs_other(",
        "`fs_skin`",
    ),
    (
        "wrong stage",
        "@compute @workgroup_size(64)\nfn skin_compute",
        "@vertex\nfn skin_compute",
        "`skin_compute`",
    ),
    (
        "workgroup size from an override without a default",
        "@compute @workgroup_size(64)",
        "override WG: u32;\n@compute @workgroup_size(WG)",
        "`skin_compute`",
    ),
    (
        "binding 0: wrong type",
        "palette: array<mat4x4<f32>>",
        "palette: array<mat3x3<f32>>",
        "binding 0",
    ),
    (
        "binding 1: wrong type",
        "positions: array<vec4<f32>>",
        "positions: array<vec4<f32>, 4>",
        "binding 1",
    ),
    (
        "render stage reads a compute binding",
        "let p = skin(position, joint, weight);",
        "let p = skin(positions[0].xyz * 0.0 + position, joint, weight);",
        "binding 1",
    ),
    (
        "binding 2: wrong type",
        "joints: array<vec4<u32>>",
        "joints: array<vec4<i32>>",
        "binding 2",
    ),
    (
        "binding 3: fixed-size array",
        "weights: array<vec4<f32>>",
        "weights: array<vec4<f32>, 4>",
        "binding 3",
    ),
    (
        "binding 3: writable",
        "var<storage, read> weights",
        "var<storage, read_write> weights",
        "binding 3",
    ),
    (
        "binding 4: wrong type",
        "skinned: array<vec4<f32>>",
        "skinned: array<vec4<f32>, 64>",
        "binding 4",
    ),
    (
        "binding 5: count not u32",
        "    count: u32,\n",
        "    count: f32,\n",
        "binding 5",
    ),
    (
        "binding 6: a field of the wrong type",
        "    offset_y: f32,\n",
        "    offset_y: u32,\n",
        "binding 6",
    ),
    (
        "binding 6: storage",
        "var<uniform> view",
        "var<storage, read> view",
        "binding 6",
    ),
    (
        "binding missing",
        "@group(0) @binding(5)",
        "@group(0) @binding(7)",
        "binding 5",
    ),
    (
        "vs_skin input wrong type",
        "@location(1) joint: vec4<u32>",
        "@location(1) joint: vec4<f32>",
        "@location(1)",
    ),
    (
        "vs_skin input missing",
        "@location(2) weight: vec4<f32>",
        "@location(3) weight: vec4<f32>",
        "@location(2)",
    ),
    (
        "fs_skin output wrong type",
        "-> @location(0) vec4<f32> {\n    return vec4<f32>(tint, 1.0 - tint, 0.5, 1.0);",
        "-> @location(0) vec4<u32> {\n    return vec4<u32>(1u);",
        "`fs_skin`",
    ),
];

/// The command that rewrites the committed file.
const REFRESH: &str = "cargo test --release --test fuzz -- --ignored bad_inputs_doc";

/// Where the committed doc lives, relative to the project folder.
const DOC: &str = "docs/bad-inputs.md";

/// The heading of the one section that needs an adapter.
const RUN_TIME: &str = "## Goldens and models at run time\n";

/// Both tests write the same scratch folder, whose paths appear in the messages.
static SCRATCH: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
#[ignore = "writes docs/bad-inputs.md: cargo test --release --test fuzz -- --ignored bad_inputs_doc"]
fn bad_inputs_doc() {
    let doc = generate().unwrap_or_else(|reason| panic!("{DOC} needs an adapter: {reason}"));
    std::fs::create_dir_all(root().join("docs")).unwrap();
    std::fs::write(root().join(DOC), doc).unwrap();
}

/// The committed doc is what the generator writes now; without an adapter, up to the run-time
/// section (unless `SKINPROOF_REQUIRE_ADAPTER` asks for one).
#[test]
fn bad_inputs_doc_is_current() {
    let committed = std::fs::read_to_string(root().join(DOC)).unwrap_or_default();
    let (now, committed) = match generate() {
        Ok(now) => (now, committed),
        Err(reason) => {
            let required =
                std::env::var("SKINPROOF_REQUIRE_ADAPTER").is_ok_and(|v| !v.is_empty() && v != "0");
            assert!(
                !required,
                "no adapter to check {DOC}'s run-time section: {reason}"
            );
            eprintln!("{DOC}: the run-time section is not checked: {reason}");
            let head = |s: &str| s.split(RUN_TIME).next().unwrap_or_default().to_string();
            let now = generate_head();
            (head(&now), head(&committed))
        }
    };
    if now != committed {
        let fresh = root().join("target/bad-inputs.md");
        std::fs::write(&fresh, &now).unwrap();
        let line = now
            .lines()
            .zip(committed.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(now.lines().count().min(committed.lines().count()));
        panic!(
            "{DOC} is stale (first difference at line {}; what the code prints now is in {}): \
             refresh it with `{REFRESH}` and commit it",
            line + 1,
            fresh.display()
        );
    }
}

/// Edits of `shaders/examples/compute_u16_pairs.profile.yaml`: (class, the edits, what the message
/// must name).
type ProfileEdit = (
    &'static str,
    &'static [(&'static str, &'static str)],
    &'static str,
);

const PROFILE_EDITS: &[ProfileEdit] = &[
    (
        "a palette joint count without a struct around the palette",
        &[(
            "palette: { group: 1, binding: 0 }",
            "palette: { group: 1, binding: 0, joint_count: count }",
        )],
        "palette.joint_count",
    ),
    (
        "a joint count for the shader's own trials",
        &[(
            "shader: compute_u16_pairs.wgsl",
            "shader: compute_u16_pairs.wgsl\nexpect:\n  - case: shader\n    joints_above: 64\n    matches: x\n    reason: y",
        )],
        "expect[0].joints_above",
    ),
    (
        "an index table's fill on the palette",
        &[(
            "palette: { group: 1, binding: 0 }",
            "palette: { group: 1, binding: 0, fill: sequence }",
        )],
        "`sequence` fills an index table the shader reads through, a buffer of its own the harness fills: give it in `bindings`",
    ),
    (
        "a normal matrix for a shader without skinned normals",
        &[(
            "shader: compute_u16_pairs.wgsl",
            "shader: compute_u16_pairs.wgsl\nnormal_matrix: blended",
        )],
        "the profile names no skinned normals",
    ),
    (
        "a frame length for a shader without skinned normals or tangents",
        &[(
            "shader: compute_u16_pairs.wgsl",
            "shader: compute_u16_pairs.wgsl\nframe_length: any",
        )],
        "says how long the shader's skinned normals and tangents are, and the profile names none",
    ),
    (
        "an orthogonal tangent frame for a shader without skinned tangents",
        &[(
            "shader: compute_u16_pairs.wgsl",
            "shader: compute_u16_pairs.wgsl\ntangent_frame: orthogonal",
        )],
        "the profile names no skinned tangents beside a source normal",
    ),
    (
        "a frame length of no kind the harness knows",
        &[(
            "shader: compute_u16_pairs.wgsl",
            "shader: compute_u16_pairs.wgsl\nframe_length: short",
        )],
        "unknown variant `short`, expected `unit` or `any`",
    ),
    (
        "a palette normal matrix member without the joint's matrix member",
        &[(
            "palette: { group: 1, binding: 0 }",
            "palette: { group: 1, binding: 0, normal_member: normal }",
        )],
        "palette.element_member",
    ),
    (
        "an output w other than 0 or 1",
        &[(
            "skinned: { group: 1, binding: 4, format: vec4 }",
            "skinned: { group: 1, binding: 4, format: vec4, w: 2 }",
        )],
        "compute.skinned.w",
    ),
    (
        "a vertex count in immediate data and in `compute.count` too",
        &[(
            "shader: compute_u16_pairs.wgsl",
            "shader: compute_u16_pairs.wgsl\nimmediates: { count: vertex_count }",
        )],
        "immediates.count",
    ),
    (
        "a stored position w other than 0 or 1",
        &[("shader: compute_u16_pairs.wgsl", "shader: compute_u16_pairs.wgsl\nposition_w: 2")],
        "0 or 1",
    ),
    (
        "a joint count member that is also the vertex count",
        &[(
            "palette: { group: 1, binding: 0 }",
            "palette: { group: 1, binding: 0 }\nbindings:\n  - { group: 2, binding: 0, count: n, joint_count: n }",
        )],
        "bindings[0].joint_count",
    ),
    (
        "a palette normal matrix array that is the palette's own member",
        &[(
            "palette: { group: 1, binding: 0 }",
            "palette: { group: 1, binding: 0, member: bones, normal_member: bones }",
        )],
        "palette.member",
    ),
    (
        "a palette normal matrix member in a split palette",
        &[(
            "palette: { group: 1, binding: 0 }",
            "palette: { group: 1, binding: 0, element_member: matrix, normal_member: normal, inverse_binds: { group: 1, binding: 7 } }",
        )],
        "palette.inverse_binds",
    ),
    (
        "a role on a binding of another type",
        &[
            (
                "joints: { group: 1, binding: 2",
                "joints: { group: 1, binding: 3",
            ),
            (
                "weights: { group: 1, binding: 3",
                "weights: { group: 1, binding: 2",
            ),
        ],
        "`src_joints`",
    ),
    (
        "a format the shader cannot read",
        &[("format: u16x4", "format: u32x4")],
        "field `compute.joints`",
    ),
    (
        "a missing entry point",
        &[("entry: main", "entry: skin_main")],
        "`skin_main`",
    ),
    (
        "a profile for another shader",
        &[("shader: compute_u16_pairs.wgsl", "shader: skinning.wgsl")],
        "field `shader`",
    ),
    (
        "two roles on one binding",
        &[(
            "weights: { group: 1, binding: 3",
            "weights: { group: 1, binding: 2",
        )],
        "compute.weights.binding",
    ),
    (
        "an unknown format",
        &[("format: u16x4", "format: u12x4")],
        "u12x4",
    ),
    (
        "a group past the 8 wgpu binds",
        &[(
            "palette: { group: 1, binding: 0 }",
            "palette: { group: 8, binding: 0 }",
        )],
        "palette.group",
    ),
    (
        "skinned normals without the source normals",
        &[(
            "count: { group: 1, binding: 5 }",
            "count: { group: 1, binding: 5 }\n  skinned_normals: { group: 1, binding: 7 }",
        )],
        "compute.skinned_normals",
    ),
    (
        "normals the shader does not have",
        &[(
            "count: { group: 1, binding: 5 }",
            "count: { group: 1, binding: 5 }\n  normals: { group: 1, binding: 6 }\n  skinned_normals: { group: 1, binding: 7 }",
        )],
        "binding 7 (skinned normals) is missing",
    ),
];

/// Edits of `shaders/examples/compute_pulled.profile.yaml` (byte-addressed) and
/// `shaders/examples/vertex_eight_influences.profile.yaml` (two influence sets).
const LAYOUT_EDITS: &[ProfileEdit] = &[
    (
        "a byte offset not aligned to 4",
        &[("joints: { offset: 40", "joints: { offset: 42")],
        "compute.vertices.joints.offset",
    ),
    (
        "two fields overlapping",
        &[("weights: { offset: 48", "weights: { offset: 44")],
        "compute.vertices.weights.offset",
    ),
    (
        "a field past the stride",
        &[("stride: 64", "stride: 60")],
        "compute.vertices.weights.offset",
    ),
    (
        "a stride not a multiple of 4",
        &[("stride: 40", "stride: 42")],
        "compute.output.stride",
    ),
    (
        "a normal overlapping the position",
        &[("    normal: 12\n", "    normal: 8\n")],
        "compute.vertices.normal",
    ),
    (
        "a member name in an array of words",
        &[("    position: 0\n", "    position: position\n")],
        "names member `position`, but the binding is array<u32>",
    ),
    (
        "a stride left out of an array of words",
        &[("    stride: 64\n", "")],
        "`compute.vertices.stride` is left to the shader's array of structs",
    ),
    (
        "a tangent not aligned to 4",
        &[("    tangent: 24\n", "    tangent: 26\n")],
        "compute.vertices.tangent",
    ),
    (
        "a tangent format without a tangent",
        &[
            ("    tangent: 24\n", "    tangent_format: vec3\n"),
            (", tangent: 24 }", " }"),
        ],
        "compute.vertices.tangent_format",
    ),
    (
        "vec3 source tangents written as a vec4 with handedness",
        &[(
            "    tangent: 24\n",
            "    tangent: 24\n    tangent_format: vec3\n",
        )],
        "compute.output.tangent",
    ),
    (
        "an output tangent past the stride",
        &[("tangent: 24 }", "tangent: 28 }")],
        "compute.output.tangent",
    ),
    (
        "source normals both apart and in the vertices",
        &[(
            "  count:",
            "  normals: { group: 0, binding: 5, format: vec4 }\n  count:",
        )],
        "compute.normals",
    ),
    (
        "a skinned tangent field without a source tangent",
        &[("    tangent: 24\n", "")],
        "compute.output.tangent",
    ),
    (
        "one offset for two influence sets",
        &[(
            "shader: compute_pulled.wgsl",
            "shader: compute_pulled.wgsl\ninfluence_sets: 2",
        )],
        "compute.vertices.joints.offset",
    ),
    (
        "a constant that names no override",
        &[("WORKGROUP_SIZE: 128", "WORKGROUP: 128")],
        "constants.WORKGROUP",
    ),
    (
        "an override without a default and no constant",
        &[("constants:\n  WORKGROUP_SIZE: 128\n", "")],
        "override `WORKGROUP_SIZE` has no default",
    ),
    (
        "a constant that does not fit its override's type",
        &[("WORKGROUP_SIZE: 128", "WORKGROUP_SIZE: -128")],
        "constants.WORKGROUP_SIZE",
    ),
    (
        "a constant that is not finite",
        &[("WORKGROUP_SIZE: 128", "WORKGROUP_SIZE: .nan")],
        "constants.WORKGROUP_SIZE",
    ),
    (
        "a constant key that is neither a name nor an @id",
        &[("WORKGROUP_SIZE: 128", "work-group: 128")],
        "constants.work-group",
    ),
    (
        "immediate data the shader does not declare",
        &[(
            "shader: compute_pulled.wgsl",
            "shader: compute_pulled.wgsl\nimmediates: { fill: identity }",
        )],
        "immediates",
    ),
    (
        "both separate and byte-addressed inputs",
        &[(
            "  count:",
            "  positions: { group: 0, binding: 5, format: vec4 }\n  count:",
        )],
        "compute.positions",
    ),
];

const SETS_EDITS: &[ProfileEdit] = &[
    (
        "one location for two influence sets",
        &[("location: [2, 4]", "location: 2")],
        "vertex.weights.location",
    ),
    (
        "a second set's attribute on another's location",
        &[("location: [2, 4]", "location: [2, 3]")],
        "vertex.weights.location",
    ),
    (
        "an override with an @id keyed by its name",
        &[("  8: true", "  SECOND_SET: true")],
        "constants.SECOND_SET",
    ),
];

/// Edits of `shaders/examples/vertex_normals.profile.yaml` (buffers the harness fills).
const FILLED_EDITS: &[ProfileEdit] = &[
    (
        "an index table's fill on a struct of matrices",
        &[("{ group: 2, binding: 0, fill: identity }", "{ group: 2, binding: 0, fill: sequence }")],
        "`fill: sequence` writes each element's index into an array of i32, u32 or f32, and `mesh` is",
    ),
    (
        "a stage's own clip z beside a skinning function",
        &[(
            "  camera: { group: 0, binding: 0, form: matrix }",
            "  camera: { group: 0, binding: 0, form: matrix, clip_z: stage }",
        )],
        "(`skin_matrix` returns the skinned position before any camera): leave `clip_z` out",
    ),
    (
        "an orthogonal tangent frame beside a tangent function",
        &[(
            "tangent_function: skin_tangent",
            "tangent_function: skin_tangent\ntangent_frame: orthogonal",
        )],
        "`vertex.tangent_function` takes no normal to do it with",
    ),
    (
        "a filled buffer on a role's binding",
        &[("{ group: 2, binding: 1,", "{ group: 1, binding: 0,")],
        "bindings[1].binding",
    ),
    (
        "a filled buffer the shader does not declare",
        &[("{ group: 2, binding: 1,", "{ group: 2, binding: 2,")],
        "bindings[1]",
    ),
    (
        "a filled buffer past the bind groups",
        &[("{ group: 2, binding: 1,", "{ group: 8, binding: 1,")],
        "bindings[1].group",
    ),
    (
        "a filled buffer with a value that is not finite",
        &[("floats: [0, 0, 1, 0]", "floats: [0, 0, .inf, 0]")],
        "bindings[1].floats",
    ),
    (
        "an unknown fill",
        &[("fill: identity", "fill: ones")],
        "bindings[0].fill",
    ),
    (
        "a vec3 tangent attribute where the shader reads a vec4",
        &[(
            "tangent: { location: 4 }",
            "tangent: { location: 4, format: vec3 }",
        )],
        "vertex.tangent",
    ),
    (
        "a tangent attribute of an unknown format",
        &[(
            "tangent: { location: 4 }",
            "tangent: { location: 4, format: vec2 }",
        )],
        "vertex.tangent.format",
    ),
];

/// Edits of `shaders/examples/vertex_one_uniform.profile.yaml` (the palette and the camera as
/// members of one struct).
const MEMBER_EDITS: &[ProfileEdit] = &[
    (
        "a palette member the struct does not have",
        &[("member: bones", "member: joints")],
        "palette",
    ),
    (
        "a camera member that is not a mat4x4<f32>",
        &[("member: projection", "member: alpha_cutoff")],
        "vertex.camera",
    ),
    (
        "a camera at the palette's binding without a member",
        &[(", member: projection", "")],
        "vertex.camera.binding",
    ),
    (
        "a palette fill without a member",
        &[("form: uniform, member: bones,", "form: uniform,")],
        "palette.fill",
    ),
    (
        "a value for the palette's own member",
        &[(
            "fill: identity }",
            "fill: identity, members: { bones: 1 } }",
        )],
        "palette.members.bones",
    ),
    (
        "a value for a member of the palette's struct that is not a number's",
        &[(
            "fill: identity }",
            "fill: identity, members: { alpha_cutoff: [1, 2] } }",
        )],
        "palette.members.alpha_cutoff",
    ),
    (
        "palette member values without the palette's member",
        &[(
            "form: uniform, member: bones, fill: identity }",
            "form: uniform, members: { alpha_cutoff: 1 } }",
        )],
        "palette.members.alpha_cutoff",
    ),
];

/// Edits of `shaders/examples/vertex_morph_texture.profile.yaml` (textures and a sampler the
/// harness binds).
const BOUND_EDITS: &[ProfileEdit] = &[
    (
        "a fill on a texture",
        &[(
            "{ group: 1, binding: 2 }",
            "{ group: 1, binding: 2, fill: identity }",
        )],
        "a fill is a buffer's",
    ),
    (
        "member values for a texture",
        &[(
            "{ group: 1, binding: 2 }",
            "{ group: 1, binding: 2, members: { count: 1 } }",
        )],
        "bindings[1].members.count",
    ),
    (
        "a joint count member in a texture",
        &[(
            "{ group: 1, binding: 2 }",
            "{ group: 1, binding: 2, joint_count: joints }",
        )],
        "bindings[1].joint_count",
    ),
    (
        "texel values for a sampler",
        &[(
            "{ group: 2, binding: 1 }",
            "{ group: 2, binding: 1, floats: [1] }",
        )],
        "`base_sampler` is a sampler: `floats` give a texel's values",
    ),
    (
        "a texel of five values",
        &[(
            "floats: [0.5, 0.5, 0.5, 1]",
            "floats: [0.5, 0.5, 0.5, 1, 1]",
        )],
        "4 at most, got 5",
    ),
];

/// Edits of `shaders/examples/vertex_bone_texture_width.profile.yaml` (the palette texture's
/// width in a member the harness writes).
const TEXTURE_WIDTH_EDITS: &[ProfileEdit] = &[
    (
        "a texture width for a palette in a buffer",
        &[(
            "palette: { group: 1, binding: 0, form: texture, texels: 4, width: row, sampler: { group: 1, binding: 1 } }",
            "palette: { group: 1, binding: 0 }",
        )],
        "bindings[0].texture_width",
    ),
    (
        "a texture width member also given a value",
        &[(
            "texture_width: bone_texture_width }",
            "texture_width: bone_texture_width, members: { bone_texture_width: 4 } }",
        )],
        "bindings[0].texture_width",
    ),
    (
        "a texture width in the immediate data and in a binding",
        &[(
            "texture_width: bone_texture_width }\n",
            "texture_width: bone_texture_width }\nimmediates: { texture_width: bone_texture_width }\n",
        )],
        "immediates.texture_width",
    ),
    (
        "a texture width member the struct lacks",
        &[("texture_width: bone_texture_width }", "texture_width: bone_width }")],
        "bindings[0].texture_width",
    ),
];

/// Edits of `shaders/examples/vertex_tangent_direction.profile.yaml` (a vec3 tangent out of a
/// vec4 source, a vec3 normal).
const TANGENT_DIRECTION_EDITS: &[ProfileEdit] = &[
    (
        "a vec4 skinned tangent beside a vec3 source",
        &[
            (
                "tangent: { location: 2 }",
                "tangent: { location: 2, format: vec3 }",
            ),
            (
                "skinned_tangent: { location: 1, format: vec3 }",
                "skinned_tangent: { location: 1, format: vec4 }",
            ),
        ],
        "vertex.skinned_tangent.format",
    ),
    (
        "a vec3 skinned tangent given as the source's vec4",
        &[(
            "skinned_tangent: { location: 1, format: vec3 }",
            "skinned_tangent: { location: 1 }",
        )],
        "vertex.skinned_tangent",
    ),
    (
        "a vec3 normal given `format: vec4`",
        &[(
            "normal: { location: 1 }",
            "normal: { location: 1, format: vec4 }",
        )],
        "vertex.normal",
    ),
    (
        "a skinned tangent format misspelt",
        &[("location: 1, format: vec3 }", "location: 1, format: vec2 }")],
        "vertex.skinned_tangent.format",
    ),
];

/// Edits of `shaders/examples/vertex_bone_pairs.profile.yaml` (one (joint, weight) attribute an
/// influence).
const PAIR_EDITS: &[ProfileEdit] = &[
    (
        "pairs beside a joints attribute",
        &[(
            "  pairs: { location: [2, 3, 4, 5] }",
            "  pairs: { location: [2, 3, 4, 5] }\n  joints: { location: 6 }",
        )],
        "vertex.joints",
    ),
    (
        "pairs beside `max_influences`",
        &[(
            "normal_matrix: blended",
            "normal_matrix: blended\nmax_influences: 3",
        )],
        "max_influences",
    ),
    (
        "a tangent length for a shader that returns no tangent",
        &[(
            "normal_matrix: blended",
            "normal_matrix: blended\ntangent_length: any",
        )],
        "tangent_length",
    ),
    (
        "five pairs",
        &[("[2, 3, 4, 5]", "[2, 3, 4, 5, 6]")],
        "vertex.pairs.location",
    ),
    (
        "a pair at the normal's location",
        &[("[2, 3, 4, 5]", "[2, 3, 4, 1]")],
        "vertex.normal.location",
    ),
    (
        "sixteen pairs",
        &[(
            "[2, 3, 4, 5]",
            "[2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17]",
        )],
        "vertex.pairs.location",
    ),
    (
        "a pair where the shader reads a vec3",
        &[
            ("[2, 3, 4, 5]", "[2, 3, 4, 1]"),
            ("normal: { location: 1 }", "normal: { location: 5 }"),
        ],
        "each of `vertex.pairs` is a vec2<f32>",
    ),
    (
        "three vec4 pairs",
        &[("[2, 3, 4, 5] }", "[2, 3, 4], format: vec4 }")],
        "vertex.pairs.location",
    ),
    (
        "vec4 pairs where the shader reads vec2s",
        &[("[2, 3, 4, 5] }", "[2, 3], format: vec4 }")],
        "with `format: vec4`, each of `vertex.pairs` is a vec4<f32>",
    ),
    (
        "columns with their translation in w in a palette of mat4x4",
        &[(
            "form: uniform }",
            "form: uniform, matrix: columns_translation }",
        )],
        "`matrix: columns_translation` packs three",
    ),
];

/// Edits of `shaders/examples/vertex_bone_texture.profile.yaml` (a palette texture).
const TEXTURE_EDITS: &[ProfileEdit] = &[
    (
        "a palette texture without its width",
        &[(", width: square", "")],
        "palette.width",
    ),
    (
        "a palette texture of 2 texels a joint",
        &[("texels: 4", "texels: 2")],
        "palette.texels",
    ),
    (
        "texture fields on a storage palette",
        &[("form: texture", "form: storage")],
        "palette.texels",
    ),
    (
        "a palette texture's rows given as `matrix`",
        &[("texels: 4", "texels: 3, matrix: rows")],
        "palette.matrix",
    ),
    (
        "columns with their translation in w, four texels a joint",
        &[("texels: 4", "texels: 4, matrix: columns_translation")],
        "palette.matrix",
    ),
    (
        "a palette texture's normal matrices of 2 texels a joint",
        &[("texels: 4", "texels: 4, normal_texels: 2")],
        "palette.normal_texels",
    ),
    (
        "normal matrix texels on a storage palette",
        &[(
            "form: texture, texels: 4, width: square",
            "normal_texels: 4",
        )],
        "palette.normal_texels",
    ),
    (
        "a palette texture where the shader has a uniform",
        &[
            ("binding: 1, form: texture", "binding: 0, form: texture"),
            ("binding: 0, form: matrix", "binding: 1, form: matrix"),
        ],
        "palette",
    ),
];

/// Edits of `shaders/examples/vertex_float_joints.profile.yaml` (float joint indices, a mesh
/// uniform filled by member).
const FLOAT_JOINT_EDITS: &[ProfileEdit] = &[
    (
        "a camera stored as a joint's columns with their translation",
        &[(
            "camera: { group: 0, binding: 0, form: matrix }",
            "camera: { group: 0, binding: 0, form: matrix, matrix: columns_translation }",
        )],
        "vertex.camera.matrix",
    ),
    (
        "a camera member value for a member the camera's struct lacks",
        &[(
            "camera: { group: 0, binding: 0, form: matrix }",
            "camera: { group: 0, binding: 0, form: matrix, members: { flags: [1, 0, 0, 0] } }",
        )],
        "vertex.camera.members.flags",
    ),
    (
        "a camera member value over the camera's own matrix",
        &[(
            "camera: { group: 0, binding: 0, form: matrix }",
            "camera: { group: 0, binding: 0, form: matrix, member: view, members: { view: [1] } }",
        )],
        "`view` holds the camera's matrix, which the harness writes",
    ),
    (
        "a member value for a member the struct lacks",
        &[("members: { visibility: 1 }", "members: { alpha: 1 }")],
        "bindings[0].members.alpha",
    ),
    (
        "a list for a scalar member",
        &[(
            "members: { visibility: 1 }",
            "members: { visibility: [1, 1] }",
        )],
        "bindings[0].members.visibility",
    ),
    (
        "integer joints for a shader that reads them as floats",
        &[(
            "joints: { location: 1, format: f32x4 }",
            "joints: { location: 1, format: u16x4 }",
        )],
        "vertex.joints",
    ),
];

/// Edits of `shaders/examples/vertex_three_influences.profile.yaml` (three influences a vertex).
const THREE_INFLUENCE_EDITS: &[ProfileEdit] = &[
    (
        "four influences for a stage whose joints and weights are vec3s",
        &[("max_influences: 3\n", "")],
        "says `max_influences: 3`",
    ),
    (
        "fewer influences than the stage's vectors hold",
        &[("max_influences: 3", "max_influences: 2")],
        "must be vec2<f32>, is vec3<f32>",
    ),
    (
        "one influence a vertex",
        &[("max_influences: 3", "max_influences: 1")],
        "max_influences",
    ),
    (
        "fewer than 4 influences with two influence sets",
        &[("max_influences: 3", "max_influences: 3\ninfluence_sets: 2")],
        "max_influences",
    ),
    (
        "an implied last weight where the stage reads every weight",
        &[(
            "max_influences: 3",
            "max_influences: 3\nlast_weight: implied",
        )],
        "leave out `last_weight: implied`",
    ),
    (
        "an implied last weight of two influences",
        &[(
            "max_influences: 3",
            "max_influences: 2\nlast_weight: implied",
        )],
        "last_weight",
    ),
    (
        "an influence bound on the shader's own trials",
        &[(
            "  - case: \"*\"\n    influences_above: 3",
            "  - case: shader\n    influences_above: 3",
        )],
        "expect[0].influences_above",
    ),
];

/// Edits of `shaders/examples/vertex_affine_joints.profile.yaml` (struct elements of affine rows).
const ELEMENT_EDITS: &[ProfileEdit] = &[
    (
        "a palette of rows read as columns",
        &[("matrix: rows, ", "")],
        "palette",
    ),
    (
        "an element member the struct does not have",
        &[("element_member: rows", "element_member: transform")],
        "palette",
    ),
    (
        "an unknown matrix form",
        &[("matrix: rows", "matrix: transposed")],
        "palette.matrix",
    ),
];

/// Edits of `shaders/examples/vertex_pulled.profile.yaml` (a vertex stage that pulls).
const PULLED_EDITS: &[ProfileEdit] = &[
    (
        "a pulling stage's skinned normal without a normal to pull",
        &[(
            "  camera: {",
            "  skinned_normal: { location: 0 }\n  camera: {",
        )],
        "vertex.skinned_normal",
    ),
    (
        "pulled vertices beside a position attribute",
        &[(
            "  colour: any\n",
            "  colour: any\n  position: { location: 0 }\n",
        )],
        "vertex.position",
    ),
    (
        "pulled fields that overlap",
        &[("weights: { offset: 20,", "weights: { offset: 16,")],
        "vertex.vertices.weights.offset",
    ),
    (
        "a normal attribute beside pulled vertices",
        &[("  colour: any\n", "  colour: any\n  normal: { location: 3 }\n")],
        "a stage that pulls its vertices (`vertex.vertices`) pulls this too: give it as a field there, not an attribute",
    ),
    (
        "vertex streams beside the one buffer of pulled vertices",
        &[("  vertices:\n", "  streams:\n    - { group: 0, binding: 3, stride: 12, position: 0 }\n  vertices:\n")],
        "give either `streams` (the stage's buffers it pulls its vertices from) or this, not both",
    ),
    (
        "a position in two vertex streams",
        &[(STREAMS_FROM, "  streams:\n    - { group: 0, binding: 2, stride: 32, position: 0, joints: { offset: 12, format: u16x4 }, weights: { offset: 20, format: unorm16x4 } }\n    - { group: 0, binding: 3, stride: 12, position: 0 }\n")],
        "the position is already in `vertex.streams[0]`: give each field in one buffer",
    ),
    (
        "vertex streams without the weights",
        &[(STREAMS_FROM, "  streams:\n    - { group: 0, binding: 2, stride: 32, position: 0, joints: { offset: 12, format: u16x4 } }\n")],
        "no buffer holds the weights: give it in one of them",
    ),
    (
        "a vertex stream that holds no field",
        &[(STREAMS_FROM, "  streams:\n    - { group: 0, binding: 2, stride: 32, position: 0, joints: { offset: 12, format: u16x4 }, weights: { offset: 20, format: unorm16x4 } }\n    - { group: 0, binding: 3, stride: 16 }\n")],
        "holds none of the position, joints, weights, normal and tangent",
    ),
];

/// `vertex_pulled`'s one buffer of pulled vertices, which the stream edits replace.
const STREAMS_FROM: &str = "  vertices:\n    group: 0\n    binding: 2\n    stride: 32                                  # bytes per vertex\n    position: 0                                 # vec3<f32>, bytes 0 to 11\n    joints: { offset: 12, format: u16x4 }       # bytes 12 to 19\n    weights: { offset: 20, format: unorm16x4 }  # bytes 20 to 27\n";

/// Edits of `shaders/examples/vertex_mesh_bindings.profile.yaml` (the palette's offset in
/// per-instance data the harness fills).
const OFFSET_MEMBER_EDITS: &[ProfileEdit] = &[
    (
        "a palette offset member the struct lacks",
        &[(
            "palette_offset: current_skin_index",
            "palette_offset: skin_index",
        )],
        "bindings[0].palette_offset",
    ),
    (
        "a palette offset member also given a value",
        &[(
            "members: { flags: 0 }",
            "members: { flags: 0, current_skin_index: 0 }",
        )],
        "bindings[0].palette_offset",
    ),
];

/// Edits of `shaders/examples/vertex_planar.profile.yaml` (planar positions).
const PLANAR_EDITS: &[ProfileEdit] = &[
    (
        "three-float positions for a shader that takes x and y",
        &[(
            "position: { location: 0, format: vec2 }",
            "position: { location: 0, format: vec3 }",
        )],
        "vertex.position",
    ),
    (
        "u16 joint pairs given another joint format",
        &[(
            "joints: { location: 1, format: u16x4 }",
            "joints: { location: 1, format: u32x4 }",
        )],
        "vertex.joints",
    ),
];

/// Edits of `shaders/examples/compute_vertex_structs.profile.yaml` (typed vertex structs).
const STRUCT_EDITS: &[ProfileEdit] = &[
    (
        "a member the vertex struct lacks",
        &[("normal: normal\n", "normal: nrm\n")],
        "names member `nrm`, which struct Vertex lacks",
    ),
    (
        "a field on another member of the vertex struct",
        &[("normal: normal\n", "normal: uv\n")],
        "`compute.vertices.normal` is at byte 24, on `uv: vec2<f32>`",
    ),
    (
        "a field on the vertex struct's padding",
        &[(
            "offset: weights, format: f32x4",
            "offset: 44, format: f32x4",
        )],
        "padding in struct Vertex",
    ),
    (
        "joints on a float member of the vertex struct",
        &[("offset: joints, format: u16x4", "offset: uv, format: u16x4")],
        "lies on Vertex's `uv: vec2<f32>`",
    ),
    (
        "a stride other than the output struct's",
        &[("binding: 2, position", "binding: 2, stride: 32, position")],
        "has a stride of 48",
    ),
    (
        "a count member the parameters lack",
        &[(
            "  count: { group: 0, binding: 3 }",
            "bindings:\n  - { group: 0, binding: 3, count: vertex_total }",
        )],
        "has no member `vertex_total` to hold the vertex count",
    ),
    (
        "a count member beside compute.count",
        &[(
            "  count: { group: 0, binding: 3 }",
            "  count: { group: 0, binding: 3 }\nbindings:\n  - { group: 0, binding: 4, count: vertex_count }",
        )],
        "the vertex count is already `compute.count`",
    ),
];

/// Edits of `shaders/examples/compute_packed_frames.profile.yaml` (snorm8 normals and tangents).
const PACKED_EDITS: &[ProfileEdit] = &[
    (
        "a packed normal read as f32",
        &[("    normal: normal\n    tangent: tangent\n    normal_encoding: snorm8\n", "    normal: normal\n    tangent: tangent\n")],
        "lies on PackedVertex's `normal: u32` (bytes 12 to 15); a direction packed into integer words takes its encoding, `normal_encoding: snorm8`",
    ),
    (
        "an encoding without its field",
        &[("    normal: normal\n    tangent: tangent\n    normal_encoding: snorm8\n    tangent_encoding: snorm8\n  count", "    normal: normal\n    normal_encoding: snorm8\n    tangent_encoding: snorm8\n  count")],
        "says how the tangent is stored (snorm8), and `compute.output` gives no `tangent`",
    ),
    (
        "an unknown encoding",
        &[("normal_encoding: snorm8", "normal_encoding: snorm10")],
        "expected one of `f32`, `snorm8`, `unorm8`, `snorm16`, `f16`",
    ),
];

/// Edits of `shaders/examples/compute_skin_streams.profile.yaml` (joints and weights in a stream of
/// their own, no count uniform).
const STREAM_EDITS: &[ProfileEdit] = &[
    (
        "joints and weights in both streams",
        &[(
            "position: position, normal: normal }",
            "position: position, normal: normal, joints: { offset: 12, format: u16x4 }, weights: { offset: 28, format: unorm8x4 } }",
        )],
        "the joints and weights are given twice, here and in `vertices`",
    ),
    (
        "neither stream holding the joints and weights",
        &[(
            "  influences:\n    group: 0\n    binding: 2\n    joints: { offset: joints, format: u16x4 }\n    weights: { offset: weights, format: unorm16x4 }\n",
            "",
        )],
        "the joints and weights are missing",
    ),
    (
        "the influences' weights named on the joints' member",
        &[("offset: weights, format: unorm16x4", "offset: joints, format: unorm16x4")],
        "overlap `joints`",
    ),
    (
        "the influences' stride other than the shader's struct",
        &[("    binding: 2\n", "    binding: 2\n    stride: 32\n")],
        "has a stride of 16",
    ),
];

/// Edits of `shaders/examples/skinning_normals.profile.yaml` (typed normal and tangent arrays).
const TYPED_FRAME_EDITS: &[ProfileEdit] = &[
    (
        "a camera stored by rows under the 2D view camera",
        &[(
            "camera: { group: 0, binding: 6, form: view }",
            "camera: { group: 0, binding: 6, form: view, matrix: rows }",
        )],
        "is for a camera given as a matrix: give `form: matrix`",
    ),
    (
        "a flipped clip y under the 2D view camera",
        &[(
            "camera: { group: 0, binding: 6, form: view }",
            "camera: { group: 0, binding: 6, form: view, clip_y: flipped }",
        )],
        "`flipped` and `flipped_before` negate y in a camera matrix the harness writes: give `form: matrix`",
    ),
    (
        "a stage's own clip z under the 2D view camera",
        &[(
            "camera: { group: 0, binding: 6, form: view }",
            "camera: { group: 0, binding: 6, form: view, clip_z: stage }",
        )],
        "`stage` reads the skinned z from a camera matrix: give `form: matrix`",
    ),
    (
        "a normal array of vec4s given a stride inside an element",
        &[(
            "normals: { group: 0, binding: 7, format: vec4 }",
            "normals: { group: 0, binding: 7, format: vec4, stride: 20 }",
        )],
        "a vertex of 20 bytes starts inside an element of array<vec4<f32>> (16 bytes), which the shader indexes whole: the stride is a multiple of 16",
    ),
    (
        "a normal matrix of no kind the harness knows",
        &[(
            "shader: skinning_normals.wgsl",
            "shader: skinning_normals.wgsl\nnormal_matrix: cofactor",
        )],
        "normal_matrix",
    ),
];

/// Edits of `shaders/examples/compute_frame_streams.profile.yaml` (normals in a float stream of
/// their own skinned in place, vec3 tangents in a struct array skinned into a float stream).
const FRAME_STREAM_EDITS: &[ProfileEdit] = &[
    (
        "a packed normal stream without a stride",
        &[(
            "normals: { group: 0, binding: 6, stride: 12 }",
            "normals: { group: 0, binding: 6, encoding: snorm8 }",
        )],
        "a packed normal is read from words, so its buffer is byte-addressed: give `stride` too",
    ),
    (
        "normals in place in another encoding than their source's",
        &[(
            "skinned_normals: { group: 0, binding: 6, stride: 12 }",
            "skinned_normals: { group: 0, binding: 6, stride: 12, encoding: f16 }",
        )],
        "is written in place, at `compute.normals`' binding, so its encoding must be the source's (f32)",
    ),
    (
        "a normal stream's offset without a stride",
        &[(
            "normals: { group: 0, binding: 6, stride: 12 }",
            "normals: { group: 0, binding: 6, offset: 0 }",
        )],
        "is for a byte-addressed buffer: give `stride` too",
    ),
    (
        "a normal stream's stride not a multiple of 4",
        &[(
            "normals: { group: 0, binding: 6, stride: 12 }",
            "normals: { group: 0, binding: 6, stride: 13 }",
        )],
        "a byte-addressed stride is a positive multiple of 4",
    ),
    (
        "a tangent stream off its struct's stride",
        &[(
            "tangents: { group: 0, binding: 7, stride: 12, format: vec3 }",
            "tangents: { group: 0, binding: 7, stride: 16, format: vec3 }",
        )],
        "`compute.tangents.stride` is 16 bytes, but the shader's array<Direction> has a stride of 12",
    ),
    (
        "a tangent stream given as typed over the shader's struct array",
        &[(
            "tangents: { group: 0, binding: 7, stride: 12, format: vec3 }",
            "tangents: { group: 0, binding: 7, format: vec3 }",
        )],
        "is array<Direction>: a byte-addressed buffer gives `stride`, the bytes of a vertex (12 for tightly packed vec3s)",
    ),
    (
        "normals in place off their source's stride",
        &[(
            "skinned_normals: { group: 0, binding: 6, stride: 12 }",
            "skinned_normals: { group: 0, binding: 6, stride: 24 }",
        )],
        "is written in place, at `compute.normals`' binding, so its stride must be the source's (12 bytes)",
    ),
    (
        "vec4 skinned tangents from vec3 sources",
        &[(
            "skinned_tangents: { group: 0, binding: 8, stride: 12 }",
            "skinned_tangents: { group: 0, binding: 8, stride: 16, format: vec4 }",
        )],
        "but the source tangents are vec3 (`compute.tangents.format`), with none: give `format: vec3`",
    ),
];

/// Edits of `shaders/examples/compute_in_place.profile.yaml` (skinned in place, the count a
/// nested member).
const IN_PLACE_EDITS: &[ProfileEdit] = &[
    (
        "an output in place off the vertices' stride",
        &[(
            "output: { group: 0, binding: 0, stride: 24,",
            "output: { group: 0, binding: 0, stride: 28,",
        )],
        "so its stride (28 bytes) must be the vertices' (24)",
    ),
    (
        "an output in place with its position over the source normal",
        &[(
            "stride: 24, position: 0, normal: 12 }\nbindings",
            "stride: 24, position: 12, normal: 0 }\nbindings",
        )],
        "it is at byte 12, the source position at byte 0",
    ),
    (
        "typed positions in place under a byte-addressed output",
        &[(
            "  vertices: { group: 0, binding: 0, stride: 24, position: 0, normal: 12 }",
            "  positions: { group: 0, binding: 0, format: vec3 }",
        )],
        "the output takes its input's form: `compute.output` over `compute.vertices`, or `compute.skinned` over `compute.positions`",
    ),
    (
        "a count path to a member the nested struct lacks",
        &[("count: vertices.end", "count: vertices.stop")],
        "has no member `stop` to hold the vertex count: its members are start, end",
    ),
    (
        "a count path through a scalar",
        &[("count: vertices.end", "count: joint_offset.end")],
        "`joint_offset.end` names a member, and `joint_offset` is u32, not a struct",
    ),
    (
        "a count path with an empty step",
        &[("count: vertices.end", "count: vertices..end")],
        "is not a WGSL identifier or a dotted path of them",
    ),
];

/// Edits of `shaders/examples/compute_regions.profile.yaml` (every stream in regions of one
/// vertex pool, their starts members of a filled struct).
/// Edits of `shaders/examples/vertex_skin_stream.profile.yaml` (joints and weights in storage
/// beside the attributes).
const SKIN_STREAM_EDITS: &[ProfileEdit] = &[
    (
        "a skin stream beside joint attributes",
        &[(
            "  position: { location: 0, format: vec3 }\n",
            "  position: { location: 0, format: vec3 }\n  joints: { location: 5, format: u16x4 }\n",
        )],
        "vertex.joints",
    ),
    (
        "a skin stream without a position attribute",
        &[("  position: { location: 0, format: vec3 }\n", "")],
        "vertex",
    ),
    (
        "a skin stream with a skinning function",
        &[("  camera:", "  skin_function: joint\n  camera:")],
        "vertex.skin_function",
    ),
    (
        "a skin stream's member the struct lacks",
        &[("offset: joints_01,", "offset: joints,")],
        "vertex.influences.joints",
    ),
    (
        "a skin stream at a binding the shader does not declare",
        &[(
            "influences: { group: 0, binding: 2,",
            "influences: { group: 0, binding: 3,",
        )],
        "vertex.influences",
    ),
];

const REGION_EDITS: &[ProfileEdit] = &[
    (
        "a stream in a buffer of its own beside a vertex pool",
        &[(
            "  regions:\n",
            "  weights: { group: 1, binding: 0 }\n  regions:\n",
        )],
        "`compute.regions` holds every stream of the compute stage: give this as its region `compute.regions.weights`",
    ),
    (
        "a pool's starts in a binding the harness does not fill",
        &[("starts: { group: 0, binding: 1 }", "starts: { group: 1, binding: 0 }")],
        "@group(1) @binding(0) is no buffer the harness fills: add `- { group: 1, binding: 0 }` to `bindings`",
    ),
    (
        "two regions starting at one member",
        &[(
            "normal: { start: source_normal }",
            "normal: { start: source_position }",
        )],
        "`source_position` is also where `position` starts: each region has a member of its own",
    ),
    (
        "a region's start that the filled binding also sets",
        &[(
            "skinned_tangent: { start: skinned_tangent }",
            "skinned_tangent: { start: vertex_count }",
        )],
        "`vertex_count` is also `bindings[0].count`: the harness writes the region's start there",
    ),
    (
        "a pool without a vertex count",
        &[(
            "count: vertex_count, palette_offset",
            "palette_offset",
        )],
        "a vertex pool holds more than the case's vertices, so the shader must bound its invocations by a count",
    ),
    (
        "skinned normals in a pool with no source normals",
        &[("    normal: { start: source_normal }\n", "")],
        "`compute.regions.skinned_normal` needs `compute.regions.normal` too",
    ),
    (
        "a region's start at a member the struct lacks",
        &[(
            "joints: { start: joint_indices,",
            "joints: { start: joint_index,",
        )],
        "has no member `joint_index` to hold where the vertex pool's `joints` starts",
    ),
    (
        "a start unit of no kind the harness knows",
        &[(
            "    position: { start: source_position }",
            "    unit: pages\n    position: { start: source_position }",
        )],
        "unknown variant `pages`, expected `bytes` or `words`",
    ),
];

/// The layout profile section: each class of wrong profile, loaded with its shader and validated.
fn profiles(out: &mut String) {
    out.push_str("## Layout profiles (`SKINPROOF_PROFILE`, or `<shader>.profile.yaml`)\n\nEach example is one edit of a profile of `shaders/examples/` (`compute_u16_pairs`, then the byte-addressed `compute_pulled`, then `vertex_eight_influences` with two influence sets, then `vertex_normals` with buffers the harness fills, then `vertex_one_uniform` with the palette and the camera members of one struct, then `vertex_bone_texture` with a palette texture, then `vertex_float_joints` with float joint indices, then `vertex_three_influences` reading three influences a vertex, then `vertex_affine_joints` with struct elements of affine rows, then `vertex_pulled` pulling its vertices, then `vertex_mesh_bindings` with the palette's offset in per-instance data, then `vertex_planar` with planar positions and u16 joint pairs, then `compute_vertex_structs` with typed vertex structs, then `compute_skin_streams` with joints and weights in a stream of their own, then `compute_in_place` skinning in place, then `skinning_normals` with typed normal and tangent arrays, then `compute_frame_streams` with normal and tangent streams of their own, then `compute_regions` with every stream in regions of one vertex pool, then `compute_packed_frames` with packed normals and tangents, then `vertex_skin_stream` with joints and weights in storage read by vertex index, then `vertex_morph_texture` with textures and a sampler the harness binds, then `vertex_bone_pairs` with one (joint, weight) attribute an influence), written as `target/bad-inputs/example.profile.yaml` and used with its shader.\n\n");
    let dir = root().join("target/bad-inputs");
    std::fs::create_dir_all(&dir).unwrap();
    let mut rows = Vec::new();
    for (example, edits) in [
        ("compute_u16_pairs", PROFILE_EDITS),
        ("compute_pulled", LAYOUT_EDITS),
        ("vertex_eight_influences", SETS_EDITS),
        ("vertex_normals", FILLED_EDITS),
        ("vertex_one_uniform", MEMBER_EDITS),
        ("vertex_bone_texture", TEXTURE_EDITS),
        ("vertex_float_joints", FLOAT_JOINT_EDITS),
        ("vertex_three_influences", THREE_INFLUENCE_EDITS),
        ("vertex_affine_joints", ELEMENT_EDITS),
        ("vertex_pulled", PULLED_EDITS),
        ("vertex_mesh_bindings", OFFSET_MEMBER_EDITS),
        ("vertex_planar", PLANAR_EDITS),
        ("compute_vertex_structs", STRUCT_EDITS),
        ("compute_skin_streams", STREAM_EDITS),
        ("compute_in_place", IN_PLACE_EDITS),
        ("skinning_normals", TYPED_FRAME_EDITS),
        ("compute_frame_streams", FRAME_STREAM_EDITS),
        ("compute_regions", REGION_EDITS),
        ("compute_packed_frames", PACKED_EDITS),
        ("vertex_skin_stream", SKIN_STREAM_EDITS),
        ("vertex_morph_texture", BOUND_EDITS),
        ("vertex_bone_pairs", PAIR_EDITS),
        ("vertex_tangent_direction", TANGENT_DIRECTION_EDITS),
        ("vertex_bone_texture_width", TEXTURE_WIDTH_EDITS),
    ] {
        profile_rows(&mut rows, example, edits);
    }
    table(out, &rows);
}

/// One row per edit of example `example`'s profile.
fn profile_rows(rows: &mut Vec<Tried>, example: &str, all: &[ProfileEdit]) {
    let shader = PathBuf::from(format!("shaders/examples/{example}.wgsl"));
    let shader = shader.as_path();
    let good =
        std::fs::read_to_string(root().join(format!("shaders/examples/{example}.profile.yaml")))
            .unwrap();
    let path = Path::new("target/bad-inputs/example.profile.yaml");
    for (class, edits, names) in all {
        let mut text = good.clone();
        for (from, to) in *edits {
            assert!(
                text.contains(from),
                "{class}: the profile no longer has `{from}`"
            );
            text = text.replacen(from, to, 1);
        }
        std::fs::write(root().join(path), &text).unwrap();
        let msg = refusal(shader, Some(path), class);
        let shown: Vec<String> = edits.iter().map(|(f, t)| format!("{f} -> {t}")).collect();
        row(rows, class, &shown.join("; "), names, msg);
    }
}

/// Edits of the composed example (`shaders/examples/composed_skinning.*` and `composed/`): (class,
/// the file edited, from, to, what the message must name).
const COMPOSED_EDITS: &[(&str, &str, &str, &str, &str)] = &[
    (
        "a missing import",
        "composed/blend.wgsl",
        "#import skin::palette::joint_matrix",
        "#import skin::palettes::joint_matrix",
        "composed/blend.wgsl:3:1",
    ),
    (
        "an unknown define",
        "composed/blend.wgsl",
        "#ifdef SKINNING",
        "#ifdef SKINING",
        "composed/blend.wgsl:7:8",
    ),
    (
        "a parse error in a module",
        "composed/palette.wgsl",
        "return joint_matrices[j];",
        "return joint_matrices[j]",
        "composed/palette.wgsl:8:1",
    ),
    (
        "a type error in a module",
        "composed/camera.wgsl",
        "vec4<f32>(world, 1.0)",
        "vec4<f32>(world, 1u)",
        "composed/camera.wgsl:9:",
    ),
    (
        "a define no module reads",
        "composed_skinning.profile.yaml",
        "    INFLUENCES: 4",
        "    INFLUENCES: 4\n    SKINNNG: true",
        "field `modules.defines.SKINNNG`",
    ),
    (
        "an import of the entry module that no module declares",
        "composed_skinning.wgsl",
        "#import view::camera::to_clip",
        "#import view::lens::to_clip",
        "composed_skinning.wgsl:7:1",
    ),
    (
        "a module folder outside the profile's folder",
        "composed_skinning.profile.yaml",
        "folders: [composed]",
        "folders: [../../shaders/examples/composed]",
        "field `modules.folders[0]`",
    ),
    (
        "a module folder that is not there",
        "composed_skinning.profile.yaml",
        "folders: [composed]",
        "folders: [composd]",
        "composed_skinning.profile.yaml:7:3: field `modules.folders[0]`",
    ),
    (
        "an entry module that is not the shader",
        "composed_skinning.profile.yaml",
        "entry: composed_skinning.wgsl",
        "entry: composed/blend.wgsl",
        "field `modules.entry`",
    ),
];

/// Why the shader at `path` (with `profile`, or the one beside it) is refused: loading it, or
/// validating it.
fn refusal(path: &Path, profile: Option<&Path>, class: &str) -> String {
    match skinproof::shader::Shader::load(path, profile) {
        Err(e) => e.to_string(),
        Ok(s) => s
            .validate()
            .err()
            .unwrap_or_else(|| panic!("{class}: accepted"))
            .to_string(),
    }
}

/// The composed shaders section: each class of broken module tree or module profile, on a copy
/// of the composed example under `target/bad-inputs/composed/`.
fn composed(out: &mut String) {
    out.push_str("## Shaders composed from modules (`modules` in the profile)\n\nEach example is one edit of a copy of `shaders/examples/composed_skinning.wgsl`, its profile and its `composed/` modules, under `target/bad-inputs/composed/`; the message fails `shader::validates`.\n\n");
    let from = root().join("shaders/examples");
    let dir = Path::new("target/bad-inputs/composed");
    let mut rows = Vec::new();
    for (class, file, was, to, names) in COMPOSED_EDITS {
        let _ = std::fs::remove_dir_all(root().join(dir));
        std::fs::create_dir_all(root().join(dir).join("composed")).unwrap();
        let mut files = vec![
            "composed_skinning.wgsl".to_string(),
            "composed_skinning.profile.yaml".to_string(),
        ];
        for m in std::fs::read_dir(from.join("composed")).unwrap() {
            let name = m.unwrap().file_name().to_string_lossy().into_owned();
            files.push(format!("composed/{name}"));
        }
        for f in &files {
            let mut text = std::fs::read_to_string(from.join(f)).unwrap();
            if f == file {
                assert!(text.contains(was), "{class}: {f} no longer has `{was}`");
                text = text.replacen(was, to, 1);
            }
            std::fs::write(root().join(dir).join(f), text).unwrap();
        }
        let msg = refusal(&dir.join("composed_skinning.wgsl"), None, class);
        let input = format!("{file}: {was} -> {to}").replace('\n', " ");
        row(&mut rows, class, &input, names, msg);
    }
    table(out, &rows);
}

/// One edit of the GLSL or SPIR-V example or its profile, a file under `target/bad-inputs/foreign/`
/// named so: (bad input, file written, the example it is copied from, text replaced and its
/// replacement (in a binary, its first `cut` bytes only, the text unused), what the message names).
type ForeignEdit = (
    &'static str,
    &'static str,
    &'static str,
    Option<(&'static str, &'static str)>,
    Option<usize>,
    &'static str,
);

const FOREIGN_EDITS: &[ForeignEdit] = &[
    (
        "a GLSL file whose name does not say its stage",
        "skin.glsl",
        "vertex_glsl.vert",
        None,
        None,
        "skin.glsl",
    ),
    (
        "a source wgpu takes in no form",
        "skin.hlsl",
        "vertex_glsl.vert",
        None,
        None,
        "skin.hlsl: wgpu takes no `.hlsl` shader",
    ),
    (
        "a GLSL parse error",
        "vertex_glsl.vert",
        "vertex_glsl.vert",
        Some(("in vec4 in_weights;", "in vec4 in_weights")),
        None,
        "vertex_glsl.vert:23:",
    ),
    (
        "a define the GLSL shader never reads",
        "vertex_glsl.profile.yaml",
        "vertex_glsl.profile.yaml",
        Some(("  SKINNED: true", "  SKINNING: true")),
        None,
        "defines.SKINNING",
    ),
    (
        "`defines` for a SPIR-V module",
        "compute_hlsl.profile.yaml",
        "compute_hlsl.profile.yaml",
        Some(("palette:", "defines: { SKINNED: true }\npalette:")),
        None,
        "defines.SKINNED",
    ),
    (
        "`modules` for a GLSL shader",
        "vertex_glsl.profile.yaml",
        "vertex_glsl.profile.yaml",
        Some(("defines:", "modules: { entry: vertex_glsl.vert }\ndefines:")),
        None,
        "field `modules`",
    ),
    (
        "SPIR-V naga cannot read (cut short)",
        "compute_hlsl.spv",
        "compute_hlsl.spv",
        None,
        Some(200),
        "compute_hlsl.spv: naga cannot read this SPIR-V",
    ),
];

/// The GLSL and SPIR-V shaders section: each class of broken file or profile, on copies of the
/// examples under `target/bad-inputs/foreign/`.
fn foreign(out: &mut String) {
    out.push_str("## GLSL and SPIR-V shaders\n\nEach example is one edit of a copy of `shaders/examples/vertex_glsl.vert` or `compute_hlsl.spv` and their profiles, under `target/bad-inputs/foreign/`; the message fails `shader::validates`.\n\n");
    let from = root().join("shaders/examples");
    let dir = Path::new("target/bad-inputs/foreign");
    let mut rows = Vec::new();
    for &(class, file, copied, edit, cut, names) in FOREIGN_EDITS {
        let _ = std::fs::remove_dir_all(root().join(dir));
        std::fs::create_dir_all(root().join(dir)).unwrap();
        for f in [
            "vertex_glsl.vert",
            "vertex_glsl.profile.yaml",
            "compute_hlsl.spv",
            "compute_hlsl.profile.yaml",
        ] {
            std::fs::copy(from.join(f), root().join(dir).join(f)).unwrap();
        }
        let mut bytes = std::fs::read(from.join(copied)).unwrap();
        if let Some((was, to)) = edit {
            let text = String::from_utf8(bytes).unwrap();
            assert!(
                text.contains(was),
                "{class}: {copied} no longer has `{was}`"
            );
            bytes = text.replacen(was, to, 1).into_bytes();
        }
        if let Some(n) = cut {
            bytes.truncate(n);
        }
        std::fs::write(root().join(dir).join(file), &bytes).unwrap();
        let shader = match file {
            "skin.glsl" | "skin.hlsl" | "vertex_glsl.vert" | "vertex_glsl.profile.yaml" => {
                file.replace(".profile.yaml", ".vert")
            }
            _ => "compute_hlsl.spv".to_string(),
        };
        let msg = refusal(&dir.join(&shader), None, class);
        let input = match (edit, cut) {
            (Some((was, to)), _) => format!("{file}: {was} -> {to}").replace('\n', " "),
            (None, Some(n)) => format!("{file}: its first {n} bytes"),
            (None, None) => format!("{copied} copied as {file}"),
        };
        row(&mut rows, class, &input, names, msg);
    }
    table(out, &rows);
}

/// The whole doc, or why the run-time section cannot be written (no adapter).
fn generate() -> Result<String, String> {
    let _scratch = SCRATCH.lock().unwrap_or_else(|e| e.into_inner());
    let mut out = generate_sections();
    run_time(&mut out)?;
    Ok(out)
}

/// The sections that need no adapter.
fn generate_head() -> String {
    let _scratch = SCRATCH.lock().unwrap_or_else(|e| e.into_inner());
    generate_sections()
}

/// Case files, glTF models, shaders and settings: every section but the run-time one.
fn generate_sections() -> String {
    let mut out = String::from(
        "# Bad inputs and the messages they get\n\n\
         Generated by `cargo test --release --test fuzz -- --ignored bad_inputs_doc` from the messages \
         the code prints; do not edit by hand (`bad_inputs_doc_is_current`, in the same test target, fails \
         while it is stale). `<root>/` stands for the project folder. A bad case file \
         fails only its own `case_loads` trial, a bad model or golden only that case's trials, a bad \
         shader the `shader::validates` and `shader_builds` trials, and a bad `SKINPROOF_*` setting \
         the single `harness::environment` trial (nothing else runs on a silent default).\n\n\
         The same classes are unit-tested in `harness/lib/case/`, `harness/lib/shader.rs` and \
         `harness/lib/config.rs`; `harness/tests/fuzz/` fuzzes the case parser and validator.\n\n\
         ## Case files (`cases/*.yaml`)\n\n\
         Each example is the whole file `cases/example.yaml` (`\\n` is a line break).\n\n",
    );
    let mut rows = Vec::new();
    let file = Path::new("cases/example.yaml");
    // A folder named like a model, for the "is a folder" row.
    std::fs::create_dir_all(root().join("target/model.gltf")).unwrap();
    for (class, yaml, names) in CASE_INPUTS {
        let msg = Case::parse(file, yaml, &crate::checks())
            .err()
            .unwrap_or_else(|| panic!("{class}: accepted"))
            .to_string();
        assert!(msg.starts_with("cases/example.yaml:"), "{msg}");
        row(
            &mut rows,
            class,
            &yaml.escape_debug().to_string(),
            names,
            msg,
        );
    }
    let msg = Case::parse(
        Path::new("cases/my case.yaml"),
        "skeleton: { joints: 3 }\nmesh: { vertices: 3 }\n",
        &crate::checks(),
    )
    .unwrap_err()
    .to_string();
    row(
        &mut rows,
        "bad file name",
        "cases/my case.yaml",
        "name",
        msg,
    );
    table(&mut out, &rows);

    out.push_str("## glTF models\n\nThe built-in chain written as glTF (`skinproof::model::write_chain_gltf`), then one value of vertex 0 overwritten; the message comes from `skinproof::model::load`.\n\n");
    let scratch = root().join("target").join("bad-inputs");
    let _ = std::fs::remove_dir_all(&scratch);
    let cases = scratch.join("cases");
    std::fs::create_dir_all(&cases).unwrap();
    let mut rows = Vec::new();
    let weights = cases.join("bad_weights.gltf");
    broken_gltf(&weights, "WEIGHTS_0", 0.25);
    let msg = skinproof::model::load(&weights, None)
        .unwrap_err()
        .to_string();
    row(
        &mut rows,
        "weights that do not sum to 1",
        "WEIGHTS_0 of vertex 0: [0.25, 0, 0, 0]",
        "WEIGHTS_0",
        msg,
    );
    let joints = cases.join("bad_joints.gltf");
    broken_gltf(&joints, "JOINTS_0", 200.0);
    let msg = skinproof::model::load(&joints, None)
        .unwrap_err()
        .to_string();
    row(
        &mut rows,
        "joint index out of range",
        "JOINTS_0 of vertex 0: [200, ...] (3 joints)",
        "JOINTS_0",
        msg,
    );
    let garbled = cases.join("garbled_meshopt.glb");
    garbled_meshopt(&garbled);
    let msg = skinproof::model::load(&garbled, None)
        .unwrap_err()
        .to_string();
    row(
        &mut rows,
        "meshopt-compressed data that do not decode",
        "RiggedFigure's `gltfpack -c` copy, the first byte of its first compressed vertex view set to 0x55",
        "EXT_meshopt_compression",
        msg,
    );
    let garbage = cases.join("garbage.glb");
    std::fs::write(&garbage, b"not a glb").unwrap();
    let msg = skinproof::model::load(&garbage, None)
        .unwrap_err()
        .to_string();
    row(
        &mut rows,
        "not a glTF file",
        "garbage.glb: `not a glb`",
        "garbage.glb",
        msg,
    );
    table(&mut out, &rows);
    special_files(&mut out, &scratch);

    out.push_str("## Shaders (`SKINPROOF_SHADER`)\n\nEach example is one edit of `shaders/skinning.wgsl`, validated as `shaders/broken.wgsl`.\n\n");
    let source = std::fs::read_to_string(root().join("shaders/skinning.wgsl")).unwrap();
    let mut rows = Vec::new();
    for (class, from, to, names) in SHADER_EDITS {
        assert!(
            source.contains(from),
            "{class}: the shader no longer has `{from}`"
        );
        let shader =
            skinproof::shader::Shader::new("shaders/broken.wgsl", source.replacen(from, to, 1));
        let msg = shader
            .validate()
            .err()
            .unwrap_or_else(|| panic!("{class}: accepted"))
            .to_string();
        assert!(msg.contains("shaders/broken.wgsl"), "{msg}");
        row(
            &mut rows,
            class,
            &format!("{from} -> {to}").escape_debug().to_string(),
            names,
            msg,
        );
    }
    let msg = skinproof::shader::Shader::load(Path::new("shaders/missing.wgsl"), None)
        .unwrap_err()
        .to_string();
    row(
        &mut rows,
        "missing file",
        "shaders/missing.wgsl",
        "shaders/missing.wgsl",
        msg,
    );
    table(&mut out, &rows);

    profiles(&mut out);
    composed(&mut out);
    foreign(&mut out);

    out.push_str("## Settings (`SKINPROOF_*`)\n\nEach example is one variable set for `cargo test --release`; the message fails the `harness::environment` trial.\n\n");
    let mut rows = Vec::new();
    // config's unit tests check that every known variable has a bad value here.
    for (k, v) in skinproof::config::BAD_VALUES {
        let vars = vec![(k.to_string(), v.to_string())];
        let msg = skinproof::config::Config::from_vars(root(), vars)
            .unwrap_err()
            .to_string();
        row(&mut rows, k, &format!("{k}={v}"), k, msg);
    }
    let vars = vec![
        ("SKINPROOF_BLESS".to_string(), "new".to_string()),
        ("CI".to_string(), "true".to_string()),
    ];
    let msg = skinproof::config::Config::from_vars(root(), vars)
        .unwrap_err()
        .to_string();
    row(
        &mut rows,
        "blessing in CI",
        "SKINPROOF_BLESS=new CI=true",
        "SKINPROOF_BLESS",
        msg,
    );
    table(&mut out, &rows);
    out
}

/// A chain glTF in `dir` whose JSON `edit` changes.
fn edited_gltf(path: &Path, edit: impl FnOnce(&mut serde_json::Value)) {
    skinproof::model::write_chain_gltf(path, 3, 1.0, 8, 0.2).unwrap();
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    edit(&mut json);
    std::fs::write(path, json.to_string()).unwrap();
}

/// Special files, sizes past the stated bounds, files outside the model, runs of nothing: refused
/// by name before anything is read or allocated.
fn special_files(out: &mut String, scratch: &Path) {
    out.push_str("## Special files, sizes and places

Files are read only when they are regular files (a FIFO would block, a device read forever) and only up to a stated size (`skinproof::file::MAX_*_BYTES`: 1 MiB for case and profile files, 4 MiB for shaders, 256 MiB for models, buffers and golden PNGs); glTF counts are checked against the bytes their views hold, and buffers are read only from data URIs and relative paths inside the model's folder. The same hold for `model.path`, `SKINPROOF_SHADER`, `SKINPROOF_PROFILE`, goldens, sidecars and `skinproof skin --model`.\n\n");
    let dir = scratch.join("special");
    std::fs::create_dir_all(&dir).unwrap();
    let mut rows = Vec::new();
    let checks = crate::checks();
    let load = |p: &Path| Case::load(p, &checks).unwrap_err().to_string();
    let fifo = dir.join("fifo.yaml");
    if std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success())
    {
        row(
            &mut rows,
            "a FIFO as a case file",
            "mkfifo fifo.yaml",
            "fifo.yaml",
            load(&fifo),
        );
    }
    let zero = dir.join("zero.yaml");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    row(
        &mut rows,
        "an endless file as a case file",
        "zero.yaml -> /dev/zero",
        "zero.yaml",
        load(&zero),
    );
    let folder = dir.join("folder.yaml");
    std::fs::create_dir_all(&folder).unwrap();
    row(
        &mut rows,
        "a folder as a case file",
        "folder.yaml/",
        "folder.yaml",
        load(&folder),
    );
    let big = dir.join("big.yaml");
    std::fs::write(&big, format!("description: {}\n", "x".repeat(2 << 20))).unwrap();
    row(
        &mut rows,
        "a case file over 1 MiB",
        "big.yaml: 2 MiB",
        "big.yaml",
        load(&big),
    );
    let n = 200_000;
    let deep = format!("pose: {}{}\n", "[".repeat(n), "]".repeat(n));
    let msg = Case::parse(Path::new("cases/deep.yaml"), &deep, &checks)
        .unwrap_err()
        .to_string();
    row(
        &mut rows,
        "flow sequences nested 200000 deep",
        "pose: [[[[...]]]] (400 KB)",
        "deep.yaml:1:",
        msg,
    );
    let sparse = dir.join("sparse.gltf");
    edited_gltf(&sparse, |doc| {
        let p = doc["meshes"][0]["primitives"][0]["attributes"]["POSITION"].clone();
        let acc = &mut doc["accessors"][p.as_u64().unwrap() as usize];
        acc.as_object_mut().unwrap().remove("bufferView");
        acc["count"] = (1u64 << 31).into();
        acc["sparse"] = serde_json::json!({"count": 1, "indices": {"bufferView": 0, "componentType": 5125}, "values": {"bufferView": 0}});
    });
    let msg = skinproof::model::load(&sparse, None)
        .unwrap_err()
        .to_string();
    row(
        &mut rows,
        "a sparse accessor claiming 2^31 elements",
        "POSITION accessor: no bufferView, count 2147483648, sparse",
        "POSITION",
        msg,
    );
    for uri in [
        "../../../../etc/passwd",
        "/etc/passwd",
        "https://example.com/chain.bin",
    ] {
        let path = dir.join("uri.gltf");
        edited_gltf(&path, |doc| doc["buffers"][0]["uri"] = uri.into());
        let msg = skinproof::model::load(&path, None).unwrap_err().to_string();
        row(
            &mut rows,
            "a buffer outside the model's folder",
            &format!("buffers[0].uri: {uri}"),
            uri,
            msg,
        );
    }
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    std::fs::write(empty.join("notes.txt"), "").unwrap();
    let msg = skinproof::suite::case_files(&empty).unwrap_err();
    row(
        &mut rows,
        "a cases folder with no case",
        "SKINPROOF_CASES=empty/ (notes.txt only)",
        "empty",
        msg,
    );
    table(out, &rows);
}

/// Goldens and models at run time: a whole run on the adapters, to show which trials fail. The
/// adapter's tag is written `<adapter>`, so the doc reads the same whichever adapter ran it.
fn run_time(out: &mut String) -> Result<(), String> {
    out.push_str(RUN_TIME);
    out.push('\n');
    let scratch = root().join("target").join("bad-inputs");
    let cases = scratch.join("cases");
    let goldens = scratch.join("golden");
    std::fs::create_dir_all(&goldens).unwrap();
    let bend = std::fs::read_to_string(root().join("cases/bend_two_joints.yaml")).unwrap();
    std::fs::write(cases.join("no_golden.yaml"), &bend).unwrap();
    std::fs::write(cases.join("corrupt_golden.yaml"), &bend).unwrap();
    std::fs::write(
        goldens.join("corrupt_golden.png"),
        b"\x89PNG\r\n\x1a\nnot really",
    )
    .unwrap();
    std::fs::write(
        cases.join("weights_model.yaml"),
        "model:\n  path: bad_weights.gltf\n",
    )
    .unwrap();
    std::fs::write(
        cases.join("optional_model.yaml"),
        "model:\n  path: missing.glb\n  if_missing: skip\n",
    )
    .unwrap();
    std::fs::write(cases.join("corrupt_sidecar.yaml"), &bend).unwrap();
    let off_view = bend.replace("offset_y: -0.9", "offset_y: 1.2");
    assert_ne!(
        off_view, bend,
        "bend_two_joints.yaml no longer has `offset_y: -0.9`"
    );
    std::fs::write(cases.join("strip_off_view.yaml"), off_view).unwrap();
    std::fs::copy(
        root().join("golden/bend_two_joints.png"),
        goldens.join("corrupt_sidecar.png"),
    )
    .unwrap();
    std::fs::write(goldens.join("corrupt_sidecar.json"), "{ not json").unwrap();
    let mut rows = Vec::new();
    let msg = skinproof::golden::load(&goldens.join("corrupt_golden.png"))
        .unwrap_err()
        .to_string();
    row(
        &mut rows,
        "corrupt PNG golden (loading it)",
        "golden/corrupt_golden.png: `\\x89PNG\\r\\n\\x1a\\nnot really`",
        "corrupt_golden.png",
        msg,
    );
    let vars = vec![("SKINPROOF_CASES".to_string(), cases.display().to_string())];
    let mut config = skinproof::config::Config::from_vars(root(), vars).unwrap();
    config.goldens = goldens.clone();
    config.reports = scratch.join("reports");
    let suite = skinproof::suite::Suite::discover(config);
    if let Some(reason) = &suite.no_adapter {
        return Err(reason.clone());
    }
    suite.run_all();
    let report = suite.report.lock().unwrap().clone();
    let adapter = report
        .rows
        .first()
        .map(|r| r.adapter.clone())
        .unwrap_or_default();
    out.push_str(
        "A run with `SKINPROOF_CASES` set to a folder of these cases (and the glTF files above), on one \
         adapter (`<adapter>` in the messages): each case's own rows, the other cases unaffected.\n\n",
    );
    let find = |case: &str, check: &str| {
        report
            .rows
            .iter()
            .find(|r| r.case == case && r.check == check && r.adapter == adapter)
            .map(|r| format!("{}: {}", r.outcome.status, r.outcome.message))
            .unwrap_or_else(|| panic!("no row {case}::{check}"))
            // The tag, and its form in file names (skinproof::golden::artifact_paths).
            .replace(&adapter, "<adapter>")
            .replace(&adapter.replace('/', "-"), "<adapter>")
    };
    row(
        &mut rows,
        "missing golden",
        "no_golden.yaml (bend_two_joints), no golden/no_golden.png",
        "no_golden.png",
        find("no_golden", "render_matches_golden"),
    );
    row(
        &mut rows,
        "corrupt PNG golden (in a run)",
        "corrupt_golden.yaml (bend_two_joints)",
        "corrupt_golden.png",
        find("corrupt_golden", "render_matches_golden"),
    );
    row(
        &mut rows,
        "corrupt golden sidecar",
        "corrupt_sidecar.yaml (bend_two_joints), golden/corrupt_sidecar.json: `{ not json`",
        "corrupt_sidecar.json is corrupt",
        find("corrupt_sidecar", "render_matches_golden"),
    );
    row(
        &mut rows,
        "model weights that do not sum to 1",
        "weights_model.yaml: `model: { path: bad_weights.gltf }`",
        "bad_weights.gltf",
        find("weights_model", "compute_matches_cpu"),
    );
    row(
        &mut rows,
        "optional model missing",
        "optional_model.yaml: `model: { path: missing.glb, if_missing: skip }`",
        "missing.glb",
        find("optional_model", "compute_matches_cpu"),
    );
    row(
        &mut rows,
        "a view that puts the strip outside the image",
        "strip_off_view.yaml (bend_two_joints): `offset_y: -0.9` -> `offset_y: 1.2`",
        "render.view",
        find("strip_off_view", "render_covers_bind_pose"),
    );
    let others_pass = report
        .rows
        .iter()
        .filter(|r| r.case == "no_golden" || r.case == "corrupt_golden")
        .filter(|r| r.check != "render_matches_golden")
        .all(|r| !r.outcome.status.fails());
    assert!(others_pass, "{:#?}", report.rows);
    table(out, &rows);
    Ok(())
}
