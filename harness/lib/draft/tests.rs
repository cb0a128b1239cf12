//! The draft's unit tests: the default shader, an engine's vertex stage, pass-through normals,
//! the shipped shapes, refusals.

use super::read::{CAMERA_WORDS, JOINT_WORDS, WEIGHT_WORDS};
use super::*;
use std::path::Path;

/// The draft parsed as a profile, and the contract it describes.
fn contract(yaml: &str) -> crate::contract::Contract {
    crate::profile::Profile::parse(Path::new("draft.profile.yaml"), yaml)
        .unwrap_or_else(|e| panic!("{e}\n{yaml}"))
        .contract()
}

/// Whether the draft `yaml` of shader `source` passes `shader::validates`, or why not.
fn validates(name: &str, source: &str, yaml: &str) -> Result<(), String> {
    let path = Path::new(name);
    let profile = path.with_extension("profile.yaml");
    crate::shader::Shader::with_profile_text(path, source.to_string(), &profile, yaml)
        .and_then(|s| s.validate().map(|_| ()))
        .map_err(|e| e.to_string())
}

/// The default shader's draft puts every role where the built-in contract has it.
#[test]
fn the_default_shader_drafts_to_its_own_contract() {
    let source = include_str!("../../../shaders/skinning.wgsl");
    let d = draft("skinning.wgsl", source).unwrap();
    assert_eq!(d.todos, 0, "{}", d.yaml);
    let place = |c: &crate::contract::Contract| {
        let mut v: Vec<(String, u32, u32)> = (c.slots.iter())
            .map(|s| (format!("{:?}", s.role), s.group, s.binding))
            .collect();
        v.sort();
        v
    };
    assert_eq!(
        place(&contract(&d.yaml)),
        place(&crate::contract::Contract::builtin()),
        "{}",
        d.yaml
    );
}

/// An engine's vertex stage: attributes named as bones, a camera struct of two matrices, a
/// palette by name, a material's texture in the fragment stage (left out), a second set of
/// influences and an override without a default.
#[test]
fn an_engine_vertex_stage_is_drafted_from_names_and_types() {
    let source = r#"
@id(3) override USE_SECOND: bool;
struct Camera { view: mat4x4<f32>, proj: mat4x4<f32> }
struct Light { dir: vec4<f32> }
@group(0) @binding(0) var<uniform> camera: Camera;
@group(0) @binding(1) var<uniform> light: Light;
@group(1) @binding(0) var<storage, read> bone_matrices: array<mat4x4<f32>>;
@group(2) @binding(0) var albedo: texture_2d<f32>;
@group(2) @binding(1) var albedo_sampler: sampler;
struct In {
@location(0) pos: vec3<f32>,
@location(1) uv: vec2<f32>,
@location(4) bone_ids: vec4<u32>,
@location(5) bone_weights: vec4<f32>,
@location(6) bone_ids_1: vec4<u32>,
@location(7) bone_weights_1: vec4<f32>,
}
struct Out { @builtin(position) clip: vec4<f32>, @location(0) uv: vec2<f32> }
@vertex fn vs(v: In) -> Out {
var m = bone_matrices[v.bone_ids.x] * v.bone_weights.x;
if (USE_SECOND) { m = m + bone_matrices[v.bone_ids_1.x] * v.bone_weights_1.x; }
let p = camera.proj * camera.view * m * vec4<f32>(v.pos, 1.0) * light.dir.w;
return Out(p, v.uv);
}
@fragment fn fs(o: Out) -> @location(0) vec4<f32> {
return textureSample(albedo, albedo_sampler, o.uv);
}
"#;
    let d = draft("engine.wgsl", source).unwrap();
    let y = &d.yaml;
    for want in [
        "palette: { group: 1, binding: 0, form: storage }",
        "joints: { location: [4, 6], format: u16x4 }",
        "weights: { location: [5, 7], format: f32x4 }",
        "camera: { group: 0, binding: 0, form: matrix, fill: identity }",
        "# fragment stage `fs` left out: it returns a colour whose alpha is no constant above 0",
        "  - { group: 0, binding: 1 }   # `light`",
        "influence_sets: 2",
        "  3: false   # `USE_SECOND`",
    ] {
        assert!(y.contains(want), "no `{want}` in:\n{y}");
    }
    assert_eq!(d.todos, 1, "{y}");
    let c = contract(y);
    assert_eq!(c.influence_sets, 2);
    assert!(c.fragment.is_none() && !c.tint);
}

/// Textures beside the palette: a morph target array the vertex stage reads is bound (zeros), an
/// opaque fragment stage that samples a material is kept with its texture and sampler bound, one
/// that may discard is left out, and a storage texture is a TODO.
#[test]
fn textures_the_stages_read_are_bound() {
    let source = r#"
struct Camera { view_proj: mat4x4<f32> }
@group(0) @binding(0) var<uniform> camera: Camera;
@group(1) @binding(0) var<storage, read> bones: array<mat4x4<f32>>;
@group(1) @binding(1) var morph_targets: texture_2d_array<f32>;
@group(2) @binding(0) var albedo: texture_2d<f32>;
@group(2) @binding(1) var albedo_sampler: sampler;
struct In {
@builtin(vertex_index) index: u32,
@location(0) pos: vec3<f32>,
@location(1) joints: vec4<u32>,
@location(2) weights: vec4<f32>,
}
struct Out { @builtin(position) clip: vec4<f32>, @location(0) uv: vec2<f32> }
@vertex fn vs(v: In) -> Out {
let m = bones[v.joints.x] * v.weights.x + bones[v.joints.y] * v.weights.y;
let p = v.pos + textureLoad(morph_targets, vec2(i32(v.index), 0), 0, 0).xyz;
return Out(camera.view_proj * m * vec4<f32>(p, 1.0), p.xy);
}
@fragment fn fs(o: Out) -> @location(0) vec4<f32> {
return vec4(textureSample(albedo, albedo_sampler, o.uv).rgb, 1.0);
}
"#;
    let d = draft("morph.wgsl", source).unwrap();
    let y = &d.yaml;
    for want in [
        "  fragment: fs",
        "  - { group: 1, binding: 1 }   # `morph_targets`, a texture_2d_array<f32>",
        "  - { group: 2, binding: 0 }   # `albedo`, a texture_2d<f32>",
        "  - { group: 2, binding: 1 }   # `albedo_sampler`, a sampler",
    ] {
        assert!(y.contains(want), "no `{want}` in:\n{y}");
    }
    assert_eq!(d.todos, 0, "{y}");
    validates("morph.wgsl", source, &d.yaml).unwrap();
    // An alpha test: zeros would discard every fragment.
    let discarding = source.replace(
        "return vec4(textureSample",
        "if (textureSample(albedo, albedo_sampler, o.uv).a < 0.5) { discard; }\nreturn vec4(textureSample",
    );
    let y = draft("morph.wgsl", &discarding).unwrap().yaml;
    assert!(
        y.contains("# fragment stage `fs` left out: it may discard fragments"),
        "{y}"
    );
    assert!(!y.contains("`albedo`"), "{y}");
    let storage = source
        .replace(
            "var morph_targets: texture_2d_array<f32>;",
            "var morph_targets: texture_storage_2d_array<rgba32float, read>;",
        )
        .replace(
            "textureLoad(morph_targets, vec2(i32(v.index), 0), 0, 0)",
            "textureLoad(morph_targets, vec2(i32(v.index), 0), 0)",
        );
    let y = draft("morph.wgsl", &storage).unwrap().yaml;
    let todo = "TODO: `morph_targets` (@group(1) @binding(1)) is a storage texture";
    assert!(y.contains(todo), "{y}");
}

/// A bone texture sampled through a sampler (three.js's `texture2D(boneTexture, uv)`): the
/// palette's sampler.
#[test]
fn a_sampled_bone_texture_takes_its_sampler() {
    let source = r#"
struct Camera { view_proj: mat4x4<f32> }
@group(0) @binding(0) var<uniform> camera: Camera;
@group(0) @binding(1) var bone_texture: texture_2d<f32>;
@group(0) @binding(2) var bone_sampler: sampler;
fn bone(j: f32) -> mat4x4<f32> {
let x = j * 4.0;
return mat4x4<f32>(
    textureSampleLevel(bone_texture, bone_sampler, vec2((x + 0.5) / 64.0, 0.5), 0.0),
    textureSampleLevel(bone_texture, bone_sampler, vec2((x + 1.5) / 64.0, 0.5), 0.0),
    textureSampleLevel(bone_texture, bone_sampler, vec2((x + 2.5) / 64.0, 0.5), 0.0),
    textureSampleLevel(bone_texture, bone_sampler, vec2((x + 3.5) / 64.0, 0.5), 0.0));
}
@vertex fn vs(@location(0) pos: vec3<f32>, @location(1) joints: vec4<f32>, @location(2) weights: vec4<f32>) -> @builtin(position) vec4<f32> {
let m = bone(joints.x) * weights.x + bone(joints.y) * weights.y;
return camera.view_proj * m * vec4<f32>(pos, 1.0);
}
"#;
    let y = draft("sampled.wgsl", source).unwrap().yaml;
    assert!(y.contains("sampler: { group: 0, binding: 2 } }"), "{y}");
    assert!(!y.contains("`bone_sampler`, a sampler"), "{y}");
    // Named as poses and matrices (Defold's `pose_matrix_cache`): a bone texture too; named as
    // neither, the texture is left to the user.
    for (name, palette) in [
        ("pose_matrix_cache", true),
        ("cache", false),
        ("transposed_cache", false),
    ] {
        let y = draft("named.wgsl", &source.replace("bone_texture", name))
            .unwrap()
            .yaml;
        let found = y.contains("palette: { group: 0, binding: 1, form: texture");
        assert_eq!(found, palette, "{name}: {y}");
    }
}

/// A compute skinner's vertex structs with abbreviated members (Unity's `pos`, `norm`, `tang`):
/// the normal and the tangent fields are drafted by them.
#[test]
fn abbreviated_vertex_members_are_normals_and_tangents() {
    let source = r#"
struct VertIn { pos: vec3<f32>, norm: vec3<f32>, tang: vec4<f32> }
struct VertOut { pos: vec3<f32>, norm: vec3<f32>, tang: vec4<f32> }
struct Skin { weight0_: f32, weight1_: f32, weight2_: f32, weight3_: f32, index0_: i32, index1_: i32, index2_: i32, index3_: i32 }
@group(0) @binding(0) var<uniform> g_VertCount: u32;
@group(0) @binding(1) var<storage> g_SourceVBO: array<VertIn>;
@group(0) @binding(2) var<storage> g_SourceSkin: array<Skin>;
@group(0) @binding(3) var<storage, read_write> g_MeshVertsOut: array<VertOut>;
@group(0) @binding(4) var<storage> g_mBones: array<mat4x4<f32>>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x >= g_VertCount) { return; }
    let v = g_SourceVBO[id.x];
    let s = g_SourceSkin[id.x];
    let m = g_mBones[s.index0_] * s.weight0_ + g_mBones[s.index1_] * s.weight1_
        + g_mBones[s.index2_] * s.weight2_ + g_mBones[s.index3_] * s.weight3_;
    g_MeshVertsOut[id.x].pos = (m * vec4<f32>(v.pos, 1.0)).xyz;
    g_MeshVertsOut[id.x].norm = (m * vec4<f32>(v.norm, 0.0)).xyz;
    g_MeshVertsOut[id.x].tang = vec4<f32>((m * vec4<f32>(v.tang.xyz, 0.0)).xyz, v.tang.w);
}
"#;
    let d = draft("unity.wgsl", source).unwrap();
    let y = &d.yaml;
    for want in [
        "vertices: { group: 0, binding: 1, position: pos, normal: norm, tangent: tang }",
        "output: { group: 0, binding: 3, position: pos, normal: norm, tangent: tang }",
    ] {
        assert!(y.contains(want), "no `{want}` in:\n{y}");
    }
    validates("unity.wgsl", source, y).unwrap();
}

/// A camera one struct deeper (DiligentFX's `cbuffer cbCameraAttribs { CameraAttribs
/// g_CameraAttribs; }`): drafted as the dotted path to the view-projection.
#[test]
fn a_camera_in_a_nested_struct_is_drafted_by_its_path() {
    let source = r#"
struct CameraAttribs { f4Position: vec4<f32>, mView: mat4x4<f32>, mProj: mat4x4<f32>, mViewProj: mat4x4<f32> }
struct cbCameraAttribs { g_CameraAttribs: CameraAttribs }
@group(0) @binding(0) var<uniform> cb: cbCameraAttribs;
@group(0) @binding(1) var<storage, read> bones: array<mat4x4<f32>>;
@vertex fn vs(@location(0) pos: vec3<f32>, @location(1) joints: vec4<u32>, @location(2) weights: vec4<f32>) -> @builtin(position) vec4<f32> {
    let m = bones[joints.x] * weights.x + bones[joints.y] * weights.y;
    return cb.g_CameraAttribs.mViewProj * m * vec4<f32>(pos, 1.0);
}
"#;
    let d = draft("nested.wgsl", source).unwrap();
    let want = "camera: { group: 0, binding: 0, form: matrix, member: g_CameraAttribs.mViewProj, fill: identity }";
    assert!(d.yaml.contains(want), "no `{want}` in:\n{}", d.yaml);
    validates("nested.wgsl", source, &d.yaml).unwrap();
}

/// Directions packed biased into unorm bytes (`pack4x8unorm(n * 0.5 + 0.5)`): `unorm8`, where
/// the module packs and unpacks with `pack4x8unorm` (`compute_packed_frames` rewritten so).
#[test]
fn biased_unorm_directions_draft_as_unorm8() {
    let source = include_str!("../../../shaders/examples/compute_packed_frames.wgsl")
        .replace(
            "unpack4x8snorm(v.normal).xyz",
            "(unpack4x8unorm(v.normal) * 2.0 - 1.0).xyz",
        )
        .replace(
            "unpack4x8snorm(v.tangent)",
            "(unpack4x8unorm(v.tangent) * 2.0 - 1.0)",
        )
        .replace(
            "pack4x8snorm(vec4<f32>(n, 0.0))",
            "pack4x8unorm(vec4<f32>(n, 0.0) * 0.5 + 0.5)",
        )
        .replace(
            "pack4x8snorm(skinned_t)",
            "pack4x8unorm(skinned_t * 0.5 + 0.5)",
        );
    assert!(
        !source.contains("4x8snorm("),
        "compute_packed_frames has changed"
    );
    let y = draft("unorm.wgsl", &source).unwrap().yaml;
    assert_eq!(y.matches("normal_encoding: unorm8").count(), 2, "{y}");
    assert_eq!(y.matches("tangent_encoding: unorm8").count(), 2, "{y}");
    validates("unorm.wgsl", &source, &y).unwrap();
}

/// Every example shape's draft passes `shader::validates` as drafted, the byte-addressed ones
/// included (the README's count).
#[test]
fn every_example_draft_validates() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut shaders = vec![root.join("shaders/skinning.wgsl")];
    for e in std::fs::read_dir(root.join("shaders/examples")).unwrap() {
        let path = e.unwrap().path();
        if path.extension().is_some_and(|x| x == "wgsl") {
            shaders.push(path);
        }
    }
    let mut valid = Vec::new();
    for path in &shaders {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let source = std::fs::read_to_string(path).unwrap();
        // A shader split into modules is drafted from its composition, its defines left off.
        let drafted = match crate::compose::is_split(&source) {
            true => super::compose(path, &source, &[], &Default::default())
                .map_err(|e| e.to_string())
                .and_then(|(c, how)| {
                    super::draft_composed(&name, &c, &how).map_err(|e| e.to_string())
                }),
            false => draft(&name, &source).map_err(|e| e.to_string()),
        };
        let Ok(d) = drafted else {
            continue;
        };
        let at = path.with_file_name("draft.profile.yaml");
        let shader = crate::shader::Shader::with_profile_text(path, source, &at, &d.yaml);
        if shader.and_then(|s| s.validate().map(|_| ())).is_ok() {
            valid.push(name);
        }
    }
    valid.sort();
    assert_eq!((shaders.len(), valid.len()), (34, 34), "{valid:?}");
}

/// A normal output is a skinned normal unless the entry point returns its input unchanged
/// (stored into the output's member, or composed into it).
#[test]
fn a_normal_passed_through_is_no_skinned_normal() {
    let shader = |body: &str| {
        format!(
            "@group(0) @binding(0) var<storage, read> bones: array<mat4x4<f32>>;
@group(0) @binding(1) var<uniform> view_proj: mat4x4<f32>;
struct Out {{ @builtin(position) clip: vec4<f32>, @location(0) normal: vec3<f32> }}
@vertex fn vs(@location(0) position: vec3<f32>, @location(1) normal: vec3<f32>,
@location(2) joints: vec4<u32>, @location(3) weights: vec4<f32>) -> Out {{
let m = bones[joints.x] * weights.x;
var out: Out;
out.clip = view_proj * m * vec4<f32>(position, 1.0);
{body}
return out;
}}"
        )
    };
    let through = draft("t.wgsl", &shader("out.normal = normal;"))
        .unwrap()
        .yaml;
    assert!(
        through.contains("the output `normal` is the input `normal` passed through unskinned")
            && !through.contains("skinned_normal:"),
        "{through}"
    );
    let skinned = shader("out.normal = normalize((m * vec4<f32>(normal, 0.0)).xyz);");
    let skinned = draft("t.wgsl", &skinned).unwrap().yaml;
    assert!(
        skinned.contains("  skinned_normal: { location: 0 }"),
        "{skinned}"
    );
}

/// A vertex-only stage that returns its skinned normal, computed in the entry point: a skinning
/// function beside it would compare positions alone, so the draft leaves it out and the entry
/// point's copy compares the normal too; where a function skins the normal by the influences, the
/// skinning function stays and that function is drafted as `normal_function`.
#[test]
fn a_skin_function_is_left_out_where_no_function_skins_the_returned_normal() {
    let shader = |normal_fn: &str| {
        format!(
            "@group(0) @binding(0) var<storage, read> bones: array<mat4x4<f32>>;
@group(0) @binding(1) var<uniform> view_proj: mat4x4<f32>;
struct Out {{ @builtin(position) clip: vec4<f32>, @location(0) normal: vec3<f32> }}
fn skin_matrix(j: vec4<u32>, w: vec4<f32>) -> mat4x4<f32> {{
    return bones[j.x] * w.x + bones[j.y] * w.y + bones[j.z] * w.z + bones[j.w] * w.w;
}}
fn tint(c: vec3<f32>) -> vec3<f32> {{ return c * 0.5; }}
{normal_fn}
@vertex fn vs(@location(0) position: vec3<f32>, @location(1) normal: vec3<f32>,
@location(2) joints: vec4<u32>, @location(3) weights: vec4<f32>) -> Out {{
let m = skin_matrix(joints, weights);
var out: Out;
out.clip = view_proj * m * vec4<f32>(position, 1.0);
out.normal = normalize((m * vec4<f32>(normal, 0.0)).xyz);
return out;
}}"
        )
    };
    let inline = draft("t.wgsl", &shader("")).unwrap().yaml;
    assert!(
        inline.contains("  skinned_normal: { location: 0 }")
            && !inline.contains("  skin_function:")
            && inline.contains(
                "`skin_matrix` has a skinning function's signature, but no function skins a normal"
            ),
        "{inline}"
    );
    let by_fn = "fn skin_normal(n: vec3<f32>, j: vec4<u32>, w: vec4<f32>) -> vec3<f32> {
    return (skin_matrix(j, w) * vec4<f32>(n, 0.0)).xyz;
}";
    let with_fn = draft("t.wgsl", &shader(by_fn)).unwrap().yaml;
    assert!(
        with_fn.contains("  skin_function: skin_matrix")
            && with_fn.contains("  normal_function: skin_normal   #"),
        "{with_fn}"
    );
    // A matrix and a normal to a normal: a shape other helpers share, named in a comment.
    let by_matrix = "fn move_normal(m: mat4x4<f32>, n: vec3<f32>) -> vec3<f32> {
    return (m * vec4<f32>(n, 0.0)).xyz;
}";
    let hinted = draft("t.wgsl", &shader(by_matrix)).unwrap().yaml;
    assert!(
        hinted.contains("  skin_function: skin_matrix")
            && hinted.contains("# `move_normal` may skin the normal")
            && !hinted.contains("normal_function:"),
        "{hinted}"
    );
}

#[test]
fn a_shader_without_a_skinning_stage_or_unreadable_is_refused() {
    let only_fragment = "@fragment fn fs() -> @location(0) vec4<f32> { return vec4<f32>(1.0); }";
    assert!(matches!(
        draft("f.wgsl", only_fragment),
        Err(DraftError::NoStage)
    ));
    let err = draft("broken.wgsl", "fn (").unwrap_err().to_string();
    assert!(
        err.contains("broken.wgsl") && err.contains("naga cannot read"),
        "{err}"
    );
}

#[test]
fn names_match_in_any_case_and_separators() {
    assert!(named("JOINT_INDICES", JOINT_WORDS));
    assert!(named("skinIndex", JOINT_WORDS));
    assert!(named("a_Weights", WEIGHT_WORDS));
    assert!(!named("uv", WEIGHT_WORDS));
    assert!(named("view_proj", CAMERA_WORDS));
}

/// Normals and tangents in buffers of their own, by name and element: a typed array, a struct of
/// floats (its span the stride), bare words (a skinned stream takes its source's stride; one
/// read and written alone is skinned in place, its stride guessed from the floats a direction has).
#[test]
fn frame_streams_are_drafted_from_their_elements() {
    let shader = |decls: &str, body: &str| {
        format!(
            "@group(0) @binding(0) var<storage, read> palette: array<mat4x4<f32>>;
@group(0) @binding(1) var<storage, read> positions: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> joints: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read> weights: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read_write> skinned: array<vec4<f32>>;
struct Dir {{ d: vec3<f32> }}
{decls}
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3<u32>) {{
let i = id.x;
let m = palette[joints[i].x] * weights[i].x;
skinned[i] = m * positions[i];
{body}
}}"
        )
    };
    let yaml = |decls: &str, body: &str| draft("s.wgsl", &shader(decls, body)).unwrap().yaml;
    let typed_to_words = yaml(
        "@group(0) @binding(5) var<storage, read> normals_in: array<vec3<f32>>;
@group(0) @binding(6) var<storage, read_write> skinned_normals: array<f32>;",
        "let n = m * vec4<f32>(normals_in[i], 0.0); skinned_normals[3u * i] = n.x;",
    );
    assert!(
        typed_to_words.contains("  normals: { group: 0, binding: 5, format: vec3 }\n")
            && typed_to_words.contains("  skinned_normals: { group: 0, binding: 6, stride: 12 }\n"),
        "{typed_to_words}"
    );
    let structs = yaml(
        "@group(0) @binding(5) var<storage, read> tangents: array<Dir>;
@group(0) @binding(6) var<storage, read_write> out_tangents: array<u32>;",
        "let t = m * vec4<f32>(tangents[i].d, 0.0); out_tangents[4u * i] = bitcast<u32>(t.x);",
    );
    assert!(
        structs.contains("  tangents: { group: 0, binding: 5, format: vec3, stride: 16 }\n")
            && structs.contains("  skinned_tangents: { group: 0, binding: 6, stride: 16 }\n"),
        "{structs}"
    );
    let in_place = yaml(
        "@group(0) @binding(5) var<storage, read_write> tangent_words: array<f32>;",
        "tangent_words[4u * i] = (m * vec4<f32>(tangent_words[4u * i], 0.0, 0.0, 0.0)).x;",
    );
    assert!(
        in_place.contains("  tangents: { group: 0, binding: 5, stride: 16 }\n")
            && in_place.contains("  skinned_tangents: { group: 0, binding: 5, stride: 16 }\n")
            && in_place.contains("check the stride; read and written: skinned in place"),
        "{in_place}"
    );
}

/// A camera uniform's matrix is the one named as the view-projection, not its first or an
/// inverse; a per-instance struct's integer member named as a skin offset is the palette offset.
#[test]
fn an_engine_view_and_skin_index_are_read_by_their_names() {
    use super::read::camera_score;
    for (name, score) in [
        ("clip_from_world", 3),
        ("view_proj", 3),
        ("u_mvp", 3),
        ("projection", 1),
        ("clip_from_view", 1),
        ("view_from_world", 1),
        ("world_from_view", 0),
        ("world_from_clip", 0),
        ("inv_view_proj", 0),
        ("model", 0),
        // A light's, a shadow's or the previous frame's view-projection beside the camera's.
        ("cameraViewProjMatrix", 3),
        ("lightViewProjMatrix", 2),
        ("shadow_view_proj", 2),
        ("prev_view_proj", 2),
    ] {
        assert_eq!(camera_score(name), score, "{name}");
    }
    let source = "struct View { world_from_clip: mat4x4<f32>, world_from_view: mat4x4<f32>, clip_from_world: mat4x4<f32> }
struct Mesh { world_from_local: mat3x4<f32>, flags: u32, current_skin_index: u32 }
@group(0) @binding(0) var<uniform> view: View;
@group(1) @binding(0) var<storage> mesh: array<Mesh>;
@group(1) @binding(1) var<storage> joint_matrices: array<mat4x4<f32>>;
@vertex fn vs(@builtin(instance_index) i: u32, @location(0) position: vec3<f32>,
@location(1) joints: vec4<u32>, @location(2) weights: vec4<f32>) -> @builtin(position) vec4<f32> {
let s = mesh[i].current_skin_index;
let m = weights.x * joint_matrices[s + joints.x] + weights.y * joint_matrices[s + joints.y];
return view.clip_from_world * m * vec4<f32>(position, 1.0);
}";
    let yaml = draft("s.wgsl", source).unwrap().yaml;
    assert!(
        yaml.contains("camera: { group: 0, binding: 0, form: matrix, member: clip_from_world, fill: identity }")
            && yaml.contains("- { group: 1, binding: 0, fill: identity, palette_offset: current_skin_index }"),
        "{yaml}"
    );
    // Beside a palette that is a member of a struct, no binding says where joint 0 lies.
    let member = source
        .replace(
            "var<storage> joint_matrices: array<mat4x4<f32>>",
            "var<storage> skin: Skin",
        )
        .replace("joint_matrices[", "skin.joints[")
        .replace(
            "struct View",
            "struct Skin { joints: array<mat4x4<f32>> }\nstruct View",
        );
    let yaml = draft("s.wgsl", &member).unwrap().yaml;
    assert!(!yaml.contains("palette_offset"), "{yaml}");
}

/// Skinned normals are drafted as moved by the blended matrix itself where no function could
/// invert it (no `inverse`, cross product of a matrix's columns, division by a determinant or by a
/// column's squared length: a transpose alone, or a determinant's sign, inverts nothing); else the
/// default stands.
#[test]
fn normals_no_function_inverts_move_by_the_blended_matrix() {
    let shader = |normal: &str| {
        format!(
            "@group(0) @binding(0) var<storage, read> bones: array<mat4x4<f32>>;
@group(0) @binding(1) var<uniform> view_proj: mat4x4<f32>;
struct Out {{ @builtin(position) clip: vec4<f32>, @location(0) normal: vec3<f32> }}
fn cofactor(m: mat3x3<f32>) -> mat3x3<f32> {{
return mat3x3<f32>(cross(m[1], m[2]), cross(m[2], m[0]), cross(m[0], m[1]));
}}
@vertex fn vs(@location(0) position: vec3<f32>, @location(1) normal: vec3<f32>,
@location(2) joints: vec4<u32>, @location(3) weights: vec4<f32>) -> Out {{
let m = bones[joints.x] * weights.x + bones[joints.y] * weights.y;
var out: Out;
out.clip = view_proj * m * vec4<f32>(position, 1.0);
out.normal = normalize({normal});
return out;
}}"
        )
    };
    let blended = draft("s.wgsl", &shader("(m * vec4<f32>(normal, 0.0)).xyz")).unwrap();
    assert!(
        blended.yaml.contains("\nnormal_matrix: blended\n"),
        "{}",
        blended.yaml
    );
    let m3 = "mat3x3<f32>(m[0].xyz, m[1].xyz, m[2].xyz)";
    // Blade's row palette: a transpose turns rows to columns, a determinant's sign flips the
    // bitangent; neither inverts.
    let signed = format!("transpose(transpose({m3})) * normal * sign(determinant({m3}))");
    let signed = draft("s.wgsl", &shader(&signed)).unwrap();
    assert!(
        signed.yaml.contains("\nnormal_matrix: blended\n"),
        "{}",
        signed.yaml
    );
    for inverts in [
        format!("cofactor({m3}) * normal"),
        format!("transpose({m3}) * normal / determinant({m3})"),
        format!("(1.0 / determinant({m3})) * transpose({m3}) * normal"),
        // rend3's inverse scale: each column's squared length divided out.
        format!("{m3} * (normal / vec3<f32>(dot(m[0].xyz, m[0].xyz), dot(m[1].xyz, m[1].xyz), dot(m[2].xyz, m[2].xyz)))"),
    ] {
        let inverted = draft("s.wgsl", &shader(&inverts)).unwrap();
        assert!(
            inverted.yaml.contains("skinned_normal") && !inverted.yaml.contains("normal_matrix"),
            "{inverts}: {}",
            inverted.yaml
        );
    }
}

/// A palette of bare vec4 slots named as bones is drafted by the factor its reads multiply a
/// joint's index by: three a joint, its affine's rows (`matrix: rows`); four, its columns; a
/// factor of neither (two: a dual quaternion's halves) is no palette of matrices.
#[test]
fn a_palette_of_vec4_slots_is_drafted_by_its_index_factor() {
    let shader = |k: u32| {
        format!(
            "@group(0) @binding(0) var<uniform> view_proj: mat4x4<f32>;
struct Bones {{ slots: array<vec4<f32>, 240> }}
@group(1) @binding(0) var<uniform> u_bones: Bones;
@vertex fn vs(@location(0) position: vec3<f32>, @location(1) joints: vec4<u32>, @location(2) weights: vec4<f32>) -> @builtin(position) vec4<f32> {{
let b = joints.x * {k}u;
let p = vec4<f32>(position, 1.0);
let s = vec3<f32>(dot(u_bones.slots[b], p), dot(u_bones.slots[b + 1u], p), dot(u_bones.slots[b + 2u], p)) * weights.x;
return view_proj * vec4<f32>(s, 1.0);
}}"
        )
    };
    let rows = draft("s.wgsl", &shader(3)).unwrap();
    for line in [
        "palette: { group: 1, binding: 0, form: uniform, matrix: rows }",
        "`u_bones` is an array of vec4<f32> read at a joint's index times 3: each joint's affine rows",
        "joints_above: 80",
    ] {
        assert!(rows.yaml.contains(line), "{line}: {}", rows.yaml);
    }
    let c = contract(&rows.yaml);
    assert!(c.palette_element.rows);
    let columns = draft("s.wgsl", &shader(4)).unwrap();
    assert!(
        columns
            .yaml
            .contains("palette: { group: 1, binding: 0, form: uniform }")
            && columns.yaml.contains("joints_above: 60"),
        "{}",
        columns.yaml
    );
    let halves = draft("s.wgsl", &shader(2)).unwrap();
    assert!(
        halves.yaml.contains("# TODO: no binding holds"),
        "{}",
        halves.yaml
    );
    // Four slots a joint read down the rows of a matrix built from scalars, the factor kept in a
    // local variable, in an array named as nothing in particular.
    let scalars = "@group(0) @binding(0) var<uniform> u_matrix: mat4x4f;
@group(0) @binding(2) var<uniform> u_uniformArray: array<vec4f, 96>;
fn getBoneMatrix(jointNdx: i32) -> mat4x4f {
var v: i32 = jointNdx * 4;
return mat4x4f(u_uniformArray[v].x, u_uniformArray[v + 1].x, u_uniformArray[v + 2].x, u_uniformArray[v + 3].x,
u_uniformArray[v].y, u_uniformArray[v + 1].y, u_uniformArray[v + 2].y, u_uniformArray[v + 3].y,
u_uniformArray[v].z, u_uniformArray[v + 1].z, u_uniformArray[v + 2].z, u_uniformArray[v + 3].z,
u_uniformArray[v].w, u_uniformArray[v + 1].w, u_uniformArray[v + 2].w, u_uniformArray[v + 3].w);
}
@vertex fn vs(@location(0) position: vec3f, @location(1) joints: vec4f, @location(2) weights: vec4f) -> @builtin(position) vec4f {
return u_matrix * (weights.x * (getBoneMatrix(i32(joints.x)) * vec4f(position, 1.0)));
}";
    let rows = draft("s.wgsl", scalars).unwrap();
    for line in [
        "palette: { group: 0, binding: 2, form: uniform, matrix: rows }",
        "read at a joint's index times 4: each joint's rows",
        "joints_above: 24",
    ] {
        assert!(rows.yaml.contains(line), "{line}: {}", rows.yaml);
    }
}

/// A read-only array of integers named as indices, read on the way to a joint's matrix, is drafted
/// as an index table the harness fills as a sequence; one named otherwise keeps the zero fill.
#[test]
fn an_array_of_indices_is_filled_as_a_sequence() {
    let shader = |name: &str| {
        format!(
            "@group(0) @binding(0) var<storage, read> bones: array<mat4x4<f32>>;
@group(0) @binding(1) var<uniform> view_proj: mat4x4<f32>;
@group(0) @binding(2) var<storage, read> {name}: array<u32>;
@vertex fn vs(@location(0) position: vec3<f32>, @location(1) joints: vec4<u32>, @location(2) weights: vec4<f32>) -> @builtin(position) vec4<f32> {{
return view_proj * (bones[{name}[joints.x]] * weights.x) * vec4<f32>(position, 1.0);
}}"
        )
    };
    let d = draft("s.wgsl", &shader("joint_index_table")).unwrap();
    assert!(
        d.yaml
            .contains("- { group: 0, binding: 2, fill: sequence }"),
        "{}",
        d.yaml
    );
    let d = draft("s.wgsl", &shader("flags")).unwrap();
    assert!(d.yaml.contains("- { group: 0, binding: 2 }"), "{}", d.yaml);
}

/// A vertex stage that makes its skinned tangent perpendicular to its skinned normal (a
/// Gram-Schmidt step, either way round) drafts `tangent_frame: orthogonal`; a fragment stage that
/// builds its own frame from the interpolated ones (crafty's) does not.
#[test]
fn a_tangent_made_perpendicular_to_the_normal_is_an_orthogonal_frame() {
    let shader = |vertex: &str, fragment: &str| {
        format!(
            "@group(0) @binding(0) var<storage, read> bones: array<mat4x4<f32>>;
@group(0) @binding(1) var<uniform> view_proj: mat4x4<f32>;
struct Out {{ @builtin(position) clip: vec4<f32>, @location(0) normal: vec3<f32>, @location(1) tangent: vec4<f32> }}
@vertex fn vs(@location(0) position: vec3<f32>, @location(1) normal: vec3<f32>, @location(4) tangent: vec4<f32>,
@location(2) joints: vec4<u32>, @location(3) weights: vec4<f32>) -> Out {{
let m = bones[joints.x] * weights.x + bones[joints.y] * weights.y;
var out: Out;
out.clip = view_proj * m * vec4<f32>(position, 1.0);
let n = normalize((m * vec4<f32>(normal, 0.0)).xyz);
var t = normalize((m * vec4<f32>(tangent.xyz, 0.0)).xyz);
{vertex}
out.normal = n;
out.tangent = vec4<f32>(t, tangent.w);
return out;
}}
@fragment fn fs(in: Out) -> @location(0) vec4<f32> {{
let n = normalize(in.normal);
var t = normalize(in.tangent.xyz);
{fragment}
return vec4<f32>(t, 1.0);
}}"
        )
    };
    for step in [
        "t = normalize(t - dot(t, n) * n);",
        "t = normalize(t - n * dot(n, t));",
    ] {
        let d = draft("s.wgsl", &shader(step, "")).unwrap();
        assert!(
            d.yaml.contains("\ntangent_frame: orthogonal\n"),
            "{step}: {}",
            d.yaml
        );
        contract(&d.yaml);
    }
    let d = draft("s.wgsl", &shader("", "t = normalize(t - dot(t, n) * n);")).unwrap();
    assert!(
        d.yaml.contains("skinned_tangent") && !d.yaml.contains("tangent_frame"),
        "{}",
        d.yaml
    );
}

/// A function that divides out a matrix's column scales (rend3's `get_inv_scale_squared`), called
/// with each joint's matrix as a helper returns it, blends per-joint normal matrices; called with
/// the blended matrix, the default inverse transpose stands.
#[test]
fn an_inverse_scale_of_each_joint_s_matrix_is_per_joint() {
    let shader = |blend_first: bool| {
        let (m, sum) = if blend_first {
            ("m", "nm = m3;")
        } else {
            (
                "joint(joints[i])",
                "nm = nm + inv_scale_sq(m3) * weights[i];",
            )
        };
        format!(
            "@group(0) @binding(0) var<storage, read> bones: array<mat4x4<f32>>;
@group(0) @binding(1) var<uniform> view_proj: mat4x4<f32>;
struct Out {{ @builtin(position) clip: vec4<f32>, @location(0) normal: vec3<f32> }}
fn joint(j: u32) -> mat4x4<f32> {{ return bones[j]; }}
fn inv_scale_sq(m: mat3x3<f32>) -> mat3x3<f32> {{
return mat3x3<f32>(m[0] / dot(m[0], m[0]), m[1] / dot(m[1], m[1]), m[2] / dot(m[2], m[2]));
}}
@vertex fn vs(@location(0) position: vec3<f32>, @location(1) normal: vec3<f32>,
@location(2) joints: vec4<u32>, @location(3) weights: vec4<f32>) -> Out {{
var m = mat4x4<f32>();
var nm = mat3x3<f32>();
for (var i = 0u; i < 4u; i++) {{
m = m + joint(joints[i]) * weights[i];
let j = {m};
let m3 = mat3x3<f32>(j[0].xyz, j[1].xyz, j[2].xyz);
{sum}
}}
if {blend_first} {{ nm = inv_scale_sq(nm); }}
var out: Out;
out.clip = view_proj * m * vec4<f32>(position, 1.0);
out.normal = normalize(nm * normal);
return out;
}}"
        )
    };
    let per_joint = draft("s.wgsl", &shader(false)).unwrap();
    assert!(
        per_joint.yaml.contains("\nnormal_matrix: per_joint\n"),
        "{}",
        per_joint.yaml
    );
    let blended = draft("s.wgsl", &shader(true)).unwrap();
    assert!(
        blended.yaml.contains("skinned_normal") && !blended.yaml.contains("normal_matrix"),
        "{}",
        blended.yaml
    );
}

/// A bone texture not named as joints, read texel by texel: the palette, its texels a joint and
/// its width as the loads read them; a weights attribute named after bones stays the weights.
#[test]
fn a_bone_texture_is_read_from_its_loads() {
    let source = r#"
struct View { view_projection: mat4x4<f32> }
@group(0) @binding(0) var<uniform> view: View;
@group(0) @binding(1) var material: texture_2d<f32>;
@group(0) @binding(2) var material_sampler: sampler;
@group(1) @binding(0) var pose_map: texture_2d<f32>;
struct In { @location(0) position: vec3<f32>, @location(1) bone_weights: vec4<f32>, @location(2) bone_indices: vec4<u32> }
struct Out { @builtin(position) clip: vec4<f32>, @location(0) uv: vec2<f32> }
fn row(width: i32, index: i32, k: i32) -> vec4<f32> {
    return textureLoad(pose_map, vec2<i32>(index % width + k, index / width), 0);
}
@vertex fn vs(v: In) -> Out {
    let width = i32(textureDimensions(pose_map).x);
    let i = i32(v.bone_indices.x) * 3;
    let w = textureLoad(pose_map, vec2<i32>(i % width, i / width), 0) * v.bone_weights.x
        + textureLoad(pose_map, vec2<i32>(i % width + 1, i / width), 0)
        + textureLoad(pose_map, vec2<i32>(i % width + 2, i / width), 0);
    var o: Out;
    o.clip = view.view_projection * vec4<f32>(v.position + w.xyz, 1.0);
    o.uv = textureSampleLevel(material, material_sampler, w.xy, 0.0).xy;
    return o;
}
"#;
    let d = draft("pose.wgsl", source).unwrap();
    assert!(
        d.yaml
            .contains("palette: { group: 1, binding: 0, form: texture, texels: 3, width: row }"),
        "{}",
        d.yaml
    );
    assert!(d.yaml.contains("joints: { location: 2,"), "{}", d.yaml);
    assert!(d.yaml.contains("weights: { location: 1,"), "{}", d.yaml);
    // The width fixed by the shader: its number.
    let fixed = source.replace("i32(textureDimensions(pose_map).x)", "96");
    let d = draft("pose.wgsl", &fixed).unwrap();
    assert!(d.yaml.contains("texels: 3, width: 96 }"), "{}", d.yaml);
}

/// A factor in a filled uniform (Babylon's `yFactor_`, flipping clip y) is filled with 1.
#[test]
fn a_factor_in_a_filled_binding_is_one() {
    let source = r#"
struct Internals { yFactor_: f32, textureOutputHeight_: f32 }
@group(0) @binding(0) var<storage, read> bones: array<mat4x4<f32>>;
@group(0) @binding(1) var<uniform> internals: Internals;
@vertex fn vs(@location(0) position: vec3<f32>, @location(1) joints: vec4<u32>, @location(2) weights: vec4<f32>) -> @builtin(position) vec4<f32> {
    var clip = bones[joints.x] * vec4<f32>(position, 1.0) * weights.x;
    clip.y = clip.y * internals.yFactor_ + internals.textureOutputHeight_;
    return clip;
}
"#;
    let d = draft("factor.wgsl", source).unwrap();
    assert!(
        d.yaml
            .contains("- { group: 0, binding: 1, members: { yFactor_: 1 } }"),
        "{}",
        d.yaml
    );
    let c = contract(&d.yaml);
    assert_eq!(c.filled.len(), 1);
}

/// A skinned output of vec4 slots, two a vertex, beside a side output the shader also writes:
/// a byte-addressed output by slot, the side output filled.
#[test]
fn an_output_of_vec4_slots_is_drafted_byte_addressed() {
    let source = r#"
struct Params { count: u32, pad0: u32, pad1: u32, pad2: u32 }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> positions: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> normals: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> joints: array<vec4<u32>>;
@group(0) @binding(4) var<storage, read> weights: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read> palette: array<mat4x4<f32>>;
@group(0) @binding(6) var<storage, read_write> skinned: array<vec4<f32>>;
@group(0) @binding(7) var<storage, read_write> roots: array<vec4<f32>>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= params.count) { return; }
    let m = palette[joints[i].x] * weights[i].x;
    skinned[i * 2u] = m * positions[i];
    skinned[i * 2u + 1u] = vec4<f32>(normalize((m * normals[i]).xyz), 0.0);
    roots[i] = m * positions[i];
}
"#;
    let d = draft("slots.wgsl", source).unwrap();
    assert!(
        d.yaml
            .contains("output: { group: 0, binding: 6, stride: 32, position: 0, normal: 16 }"),
        "{}",
        d.yaml
    );
    assert!(d.yaml.contains("- { group: 0, binding: 7 }"), "{}", d.yaml);
    assert_eq!(d.todos, 0, "{}", d.yaml);
    contract(&d.yaml);
}

/// Streams of their own named short (`src_n`, `dst_n`), normals by each joint's own inverse
/// transpose through a helper, and a dispatch uniform larger than a count: the draft names the
/// streams, `per_joint`, the count as the uniform's member and its flags as a switch to set.
#[test]
fn short_stream_names_per_joint_normals_and_a_dispatch_uniform() {
    let source = r#"
struct Dispatch { vertex_count: u32, base: u32, flags: u32, pad: u32, more: vec4<u32> }
@group(0) @binding(0) var<storage, read> bone_matrices: array<mat4x4<f32>>;
@group(0) @binding(1) var<storage, read> src_pos: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> bone_idx: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read> bone_weights: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read_write> dst_pos: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read> src_n: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read_write> dst_n: array<vec4<f32>>;
@group(0) @binding(7) var<uniform> dispatch: Dispatch;
fn cof(m: mat3x3<f32>) -> mat3x3<f32> { return mat3x3<f32>(cross(m[1], m[2]), cross(m[2], m[0]), cross(m[0], m[1])); }
fn normal_matrix(m: mat4x4<f32>) -> mat3x3<f32> { return cof(mat3x3<f32>(m[0].xyz, m[1].xyz, m[2].xyz)); }
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= dispatch.vertex_count) { return; }
    let j = bone_idx[i];
    let w = bone_weights[i];
    dst_pos[i] = w.x * (bone_matrices[j.x] * vec4<f32>(src_pos[i].xyz, 1.0));
    let n = w.x * (normal_matrix(bone_matrices[j.x]) * src_n[i].xyz);
    dst_n[i] = vec4<f32>(normalize(n), 0.0);
}
"#;
    let d = draft("short.wgsl", source).unwrap();
    for line in [
        "normals: { group: 0, binding: 5, format: vec4 }",
        "skinned_normals: { group: 0, binding: 6, format: vec4 }",
        "- { group: 0, binding: 7, count: vertex_count }",
        "`dispatch`'s `flags` may switch paths",
        "normal_matrix: per_joint",
    ] {
        assert!(d.yaml.contains(line), "{line}\n{}", d.yaml);
    }
    assert_eq!(d.todos, 0, "{}", d.yaml);
    contract(&d.yaml);
}

/// Signed joint indices, as attributes and in storage: `i32x4`.
#[test]
fn signed_joints_draft_as_i32x4() {
    let vertex = r#"
@group(0) @binding(0) var<uniform> bones: array<mat4x4<f32>, 100>;
@vertex fn vs(@location(0) position: vec3<f32>, @location(5) bone_ids: vec4<i32>, @location(6) bone_weights: vec4<f32>) -> @builtin(position) vec4<f32> {
    return bones[bone_ids.x] * vec4<f32>(position, 1.0) * bone_weights.x;
}
"#;
    let d = draft("signed.wgsl", vertex).unwrap();
    assert!(
        d.yaml.contains("joints: { location: 5, format: i32x4 }"),
        "{}",
        d.yaml
    );
    contract(&d.yaml);
}

/// A weights attribute named short (`bone_w`) beside joints is the weights; a camera struct whose
/// projection is its first member beats a material's matrices bound before it.
#[test]
fn short_weights_and_a_projection_first_in_its_struct() {
    let source = r#"
struct Material { modelMatrix: mat4x4<f32>, normalMatrix: mat4x4<f32> }
struct System { projectionMatrix: mat4x4<f32>, viewMatrix: mat4x4<f32>, inverseViewMatrix: mat4x4<f32> }
@group(0) @binding(0) var<uniform> material: Material;
@group(1) @binding(0) var<uniform> system: System;
@group(1) @binding(1) var<uniform> bones: array<mat4x4<f32>, 64>;
@vertex fn vs(@location(0) position: vec3<f32>, @location(4) bone_idx: vec4<u32>, @location(5) bone_w: vec4<f32>) -> @builtin(position) vec4<f32> {
    let skin = bones[bone_idx.x] * bone_w.x;
    return system.projectionMatrix * system.viewMatrix * material.modelMatrix * skin * vec4<f32>(position, 1.0);
}
"#;
    let d = draft("short.wgsl", source).unwrap();
    assert!(d.yaml.contains("weights: { location: 5,"), "{}", d.yaml);
    assert!(
        d.yaml
            .contains("camera: { group: 1, binding: 0, form: matrix, fill: identity }"),
        "{}",
        d.yaml
    );
    assert_eq!(
        super::vertex::words("boneW_idx2Max"),
        ["bone", "w", "idx2", "max"]
    );
}

/// war3's layout: the camera beside the joints in one uniform (its first member), the normal
/// stored unskinned then overwritten with the skinned one, moved by the blend's 3x3 beside a
/// binormal's cross product, and a vec3 tangent out of a vec4 source (its direction alone:
/// `format: vec3`).
#[test]
fn a_camera_beside_the_joints_and_normals_overwritten_by_the_skinned_ones() {
    let source = r#"
struct VS { mvMatrix: mat4x4f, pMatrix: mat4x4f, nodesMatrices: array<mat4x4f, 64> }
@group(0) @binding(0) var<uniform> vsUniforms: VS;
struct In { @location(0) position: vec3f, @location(1) normal: vec3f, @location(3) tangent: vec4f, @location(4) skin: vec4<u32>, @location(5) boneWeight: vec4f }
struct Out { @builtin(position) clip: vec4f, @location(0) normal: vec3f, @location(1) tangent: vec3f, @location(2) binormal: vec3f }
@vertex fn vs(v: In) -> Out {
    let sum = vsUniforms.nodesMatrices[v.skin.x] * v.boneWeight.x + vsUniforms.nodesMatrices[v.skin.y] * v.boneWeight.y;
    let rotation = mat3x3f(sum[0].xyz, sum[1].xyz, sum[2].xyz);
    var out: Out;
    out.clip = vsUniforms.pMatrix * vsUniforms.mvMatrix * sum * vec4f(v.position, 1.0);
    out.normal = v.normal;
    let binormal = cross(v.normal, v.tangent.xyz) * v.tangent.w;
    out.normal = normalize(rotation * v.normal);
    out.tangent = normalize(rotation * v.tangent.xyz);
    out.binormal = normalize(rotation * binormal);
    return out;
}
"#;
    let d = draft("war3.wgsl", source).unwrap();
    for line in [
        "camera: { group: 0, binding: 0, form: matrix, member: mvMatrix }",
        "skinned_normal: { location: 0 }",
        "skinned_tangent: { location: 1, format: vec3 }   # the output `tangent` (a vec3, its direction alone",
        "normal_matrix: blended",
    ] {
        assert!(d.yaml.contains(line), "{line}\n{}", d.yaml);
    }
    let c = contract(&d.yaml);
    assert!(c.vec3_tangent_output() && !c.tangent_handedness());
    // A bitangent before it, a vec3 moved by the palette too, is no tangent.
    let bitangent_first = (source.replace(
        "@location(1) tangent: vec3f, @location(2) binormal: vec3f",
        "@location(1) bitangent: vec3f, @location(2) tangent: vec3f",
    ))
    .replace("out.binormal =", "out.bitangent =");
    assert_ne!(bitangent_first, source);
    let d = draft("war3.wgsl", &bitangent_first).unwrap();
    assert!(
        d.yaml
            .contains("skinned_tangent: { location: 2, format: vec3 }"),
        "{}",
        d.yaml
    );
}

/// A member named as enabling skinning is filled on; a mode (the WebGPU samples' `skin_mode`, 0
/// for the skinned path) stays 0, named in a comment.
#[test]
fn skinning_switched_on_where_named_so_and_modes_left_alone() {
    let source = r#"
struct General { render_mode: u32, skin_mode: u32 }
struct Settings { enable_parenting: vec4<u32>, enable_skinning: vec4<u32> }
@group(0) @binding(0) var<storage, read> bones: array<mat4x4<f32>>;
@group(0) @binding(1) var<uniform> general: General;
@group(0) @binding(2) var<uniform> settings: Settings;
@vertex fn vs(@location(0) position: vec3<f32>, @location(1) joints: vec4<u32>, @location(2) weights: vec4<f32>) -> @builtin(position) vec4<f32> {
    var m = bones[joints.x] * weights.x;
    if (general.skin_mode != 0u || settings.enable_skinning.x != 1u) { m = mat4x4<f32>(); }
    return m * vec4<f32>(position, 1.0) + vec4<f32>(f32(general.render_mode + settings.enable_parenting.x));
}
"#;
    let d = draft("switches.wgsl", source).unwrap();
    assert!(
        d.yaml
            .contains("- { group: 0, binding: 2, members: { enable_skinning: [1, 1, 1, 1] } }"),
        "{}",
        d.yaml
    );
    assert!(d.yaml.contains("- { group: 0, binding: 1 }"), "{}", d.yaml);
    assert!(
        d.yaml
            .contains("`render_mode`, `skin_mode` may switch paths"),
        "{}",
        d.yaml
    );
    contract(&d.yaml);
}

/// Position fields split by coordinate are read by their stem, whatever letters start a name.
#[test]
fn split_fields_by_coordinate_and_unicode_names() {
    let source = r#"
struct V { éx: f32, éy: f32, éz: f32, px: f32, py: f32, pz: f32 }
@group(0) @binding(0) var<storage, read_write> verts: array<V>;
@group(0) @binding(1) var<storage, read> joints: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> weights: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> bones: array<mat4x4<f32>>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let v = verts[id.x];
    let p = bones[joints[id.x].x] * vec4<f32>(v.px, v.py, v.pz, 1.0) * weights[id.x].x;
    verts[id.x].px = p.x + v.éx;
}
"#;
    let d = draft("split.wgsl", source).unwrap();
    assert!(
        d.yaml
            .contains("vertices: { group: 0, binding: 0, position: 12 }"),
        "{}",
        d.yaml
    );
    assert!(
        d.yaml
            .contains("output: { group: 0, binding: 0, position: 12 }"),
        "{}",
        d.yaml
    );
}

/// Each joint's normal matrix beside its matrix is drafted as `normal_member` (the normals'
/// reference then per joint): a parallel array of the palette's struct, named as inverse
/// transposes, even declared first; a second member of each element's struct, named as normals.
#[test]
fn normal_matrices_beside_the_joints_are_the_normal_member() {
    let parallel = r#"
struct Transforms { transforms_inv_transpose: array<mat4x4<f32>, 512>, transforms: array<mat4x4<f32>, 512> }
@group(1) @binding(0) var<uniform> transforms: Transforms;
@vertex fn vs(@location(0) position: vec3<f32>, @location(1) normal: vec3<f32>, @location(4) joints: vec4<u32>, @location(5) weights: vec4<f32>) -> @builtin(position) vec4<f32> {
    let n = transforms.transforms_inv_transpose[joints.x] * vec4<f32>(normal, 0.0) * weights.x;
    return transforms.transforms[joints.x] * vec4<f32>(position, 1.0) * weights.x + n * 0.0;
}
"#;
    let d = draft("parallel.wgsl", parallel).unwrap();
    assert!(
        d.yaml.contains(
            "form: uniform, member: transforms, normal_member: transforms_inv_transpose }"
        ),
        "{}",
        d.yaml
    );
    let c = contract(&d.yaml);
    assert_eq!(
        c.palette_normals.unwrap().member.name,
        "transforms_inv_transpose"
    );
    let element = r#"
struct Joint { normal_matrix: mat3x3<f32>, world: mat4x4<f32> }
@group(0) @binding(0) var<storage, read> joints_data: array<Joint>;
@vertex fn vs(@location(0) position: vec3<f32>, @location(4) joints: vec4<u32>, @location(5) weights: vec4<f32>) -> @builtin(position) vec4<f32> {
    return joints_data[joints.x].world * vec4<f32>(position, 1.0) * weights.x;
}
"#;
    let d = draft("element.wgsl", element).unwrap();
    assert!(
        d.yaml
            .contains("element_member: world, normal_member: normal_matrix }"),
        "{}",
        d.yaml
    );
    let c = contract(&d.yaml);
    assert_eq!(c.palette_element.normal.unwrap().name, "normal_matrix");
    // A second matrix not named so is no normal matrix.
    let other = element.replace("normal_matrix", "previous");
    let d = draft("other.wgsl", &other).unwrap();
    assert!(!d.yaml.contains("normal_member"), "{}", d.yaml);
}

/// Per-instance attributes that hold a matrix's columns (learn-wgpu's `model_matrix_0` to `_3`
/// and `normal_matrix_0` to `_2`) are drafted as the identity's columns; an input named with a
/// digit alone (`uv0`, no `uv1`) stays zeros.
#[test]
fn a_matrix_in_per_instance_attributes_is_the_identity() {
    let source = r#"
@group(0) @binding(0) var<storage, read> bones: array<mat4x4<f32>>;
@group(1) @binding(0) var<uniform> view_proj: mat4x4<f32>;
struct Instance { @location(8) model_matrix_0: vec4<f32>, @location(9) model_matrix_1: vec4<f32>, @location(10) model_matrix_2: vec4<f32>, @location(11) model_matrix_3: vec4<f32>, @location(12) normal_matrix_0: vec3<f32>, @location(13) normal_matrix_1: vec3<f32>, @location(14) normal_matrix_2: vec3<f32> }
struct In { @location(0) position: vec3<f32>, @location(1) uv0: vec2<f32>, @location(3) weights: vec4<f32>, @location(4) joints: vec4<u32> }
@vertex fn vs(v: In, i: Instance) -> @builtin(position) vec4<f32> {
    let model = mat4x4<f32>(i.model_matrix_0, i.model_matrix_1, i.model_matrix_2, i.model_matrix_3);
    let n = mat3x3<f32>(i.normal_matrix_0, i.normal_matrix_1, i.normal_matrix_2);
    return view_proj * model * (bones[v.joints.x] * v.weights.x) * vec4<f32>(v.position + n[0] * 0.0 + vec3<f32>(v.uv0, 0.0) * 0.0, 1.0);
}
"#;
    let d = draft("instance.wgsl", source).unwrap();
    let want = "  inputs: { 8: [1, 0, 0, 0], 9: [0, 1, 0, 0], 10: [0, 0, 1, 0], 11: [0, 0, 0, 1], 12: [1, 0, 0], 13: [0, 1, 0], 14: [0, 0, 1] }";
    assert!(d.yaml.contains(want), "{}", d.yaml);
    let c = contract(&d.yaml);
    let at = |l: u32| {
        c.input_values
            .iter()
            .find(|v| v.location == l)
            .map(|v| v.values.clone())
    };
    assert_eq!(at(11), Some(vec![0.0, 0.0, 0.0, 1.0]));
    assert_eq!(at(1), None);
}

/// A normal attribute read as a vec4 (sokol's `in vec4 normal`): drafted with `format: vec4`, its
/// skinned normal found.
#[test]
fn a_vec4_normal_attribute_is_drafted_with_its_format() {
    let source = r#"
@group(0) @binding(0) var<uniform> view_proj: mat4x4<f32>;
@group(1) @binding(0) var<storage, read> joint_matrices: array<mat4x4<f32>>;
struct Out { @builtin(position) clip: vec4<f32>, @location(0) normal: vec3<f32> }
@vertex fn vs(@location(0) position: vec3<f32>, @location(1) normal: vec4<f32>, @location(2) joints: vec4<u32>, @location(3) weights: vec4<f32>) -> Out {
    let skin = joint_matrices[joints.x] * weights.x + joint_matrices[joints.y] * weights.y;
    var out: Out;
    out.clip = view_proj * skin * vec4<f32>(position, 1.0);
    out.normal = normalize((skin * normal).xyz);
    return out;
}
"#;
    let d = draft("sokol.wgsl", source).unwrap();
    for want in [
        "normal: { location: 1, format: vec4 }",
        "skinned_normal: { location: 0 }",
    ] {
        assert!(d.yaml.contains(want), "{want}\n{}", d.yaml);
    }
    let c = contract(&d.yaml);
    let normal = (c.vertex_inputs.iter()).find(|v| v.role == crate::contract::Role::Normals);
    assert_eq!(
        normal.map(|v| v.attribute.format),
        Some(wgpu::VertexFormat::Float32x4)
    );
    // Shown as a colour (sokol's `(n + 1) * 0.5`): no direction to compare.
    let colour = (source.replace(
        "@location(0) normal: vec3<f32>",
        "@location(0) color: vec3<f32>",
    ))
    .replace(
        "out.normal = normalize((skin * normal).xyz);",
        "out.color = (normalize((skin * normal).xyz) + 1.0) * 0.5;",
    );
    assert_ne!(colour, source);
    let d = draft("sokol.wgsl", &colour).unwrap();
    assert!(!d.yaml.contains("skinned_normal:"), "{}", d.yaml);
}

/// A stage that renormalises its skinned normal and not its tangent (Qt Quick 3D's): the
/// tangents' length alone is drafted as any.
#[test]
fn a_tangent_left_unnormalised_beside_a_unit_normal_is_drafted_apart() {
    let source = r#"
@group(0) @binding(0) var<uniform> view_proj: mat4x4<f32>;
@group(1) @binding(0) var<storage, read> joint_matrices: array<mat4x4<f32>>;
struct Out { @builtin(position) clip: vec4<f32>, @location(0) normal: vec3<f32>, @location(1) tangent: vec3<f32> }
@vertex fn vs(@location(0) position: vec3<f32>, @location(1) normal: vec3<f32>, @location(2) tangent: vec3<f32>, @location(3) joints: vec4<u32>, @location(4) weights: vec4<f32>) -> Out {
    let skin = joint_matrices[joints.x] * weights.x + joint_matrices[joints.y] * weights.y;
    var out: Out;
    out.clip = view_proj * skin * vec4<f32>(position, 1.0);
    out.normal = normalize((skin * vec4<f32>(normal, 0.0)).xyz);
    out.tangent = (skin * vec4<f32>(tangent, 0.0)).xyz;
    return out;
}
"#;
    let d = draft("qt.wgsl", source).unwrap();
    assert!(d.yaml.contains("\ntangent_length: any"), "{}", d.yaml);
    assert!(!d.yaml.contains("frame_length"), "{}", d.yaml);
    let c = contract(&d.yaml);
    use crate::contract::FrameLength;
    assert_eq!(
        (c.frame_length, c.tangent_length),
        (FrameLength::Unit, FrameLength::Any)
    );
    // Both left so: the frame's length, as before.
    let both = source.replace(
        "normalize((skin * vec4<f32>(normal, 0.0)).xyz)",
        "(skin * vec4<f32>(normal, 0.0)).xyz",
    );
    let d = draft("qt.wgsl", &both).unwrap();
    assert!(d.yaml.contains("\nframe_length: any"), "{}", d.yaml);
    assert!(!d.yaml.contains("tangent_length"), "{}", d.yaml);
}

/// A bone texture passed to the helper that reads it (Babylon.js's
/// `readMatrixFromRawSampler(smp, index)`): the blend its results make moves the normal, which is
/// then the skinned normal.
#[test]
fn a_palette_texture_passed_to_its_reader_still_moves_the_normal() {
    let source = r#"
@group(0) @binding(0) var<uniform> view_proj: mat4x4<f32>;
@group(1) @binding(0) var bone_sampler: texture_2d<f32>;
fn read_matrix(smp: texture_2d<f32>, index: f32) -> mat4x4<f32> {
    let o = i32(index) * 4;
    return mat4x4<f32>(textureLoad(smp, vec2<i32>(o, 0), 0), textureLoad(smp, vec2<i32>(o + 1, 0), 0), textureLoad(smp, vec2<i32>(o + 2, 0), 0), textureLoad(smp, vec2<i32>(o + 3, 0), 0));
}
struct Out { @builtin(position) clip: vec4<f32>, @location(0) normal: vec3<f32> }
@vertex fn vs(@location(0) position: vec3<f32>, @location(1) normal: vec3<f32>, @location(2) matrices_indices: vec4<f32>, @location(3) matrices_weights: vec4<f32>) -> Out {
    var influence = read_matrix(bone_sampler, matrices_indices.x) * matrices_weights.x;
    influence += read_matrix(bone_sampler, matrices_indices.y) * matrices_weights.y;
    var out: Out;
    out.clip = view_proj * influence * vec4<f32>(position, 1.0);
    out.normal = normalize((influence * vec4<f32>(normal, 0.0)).xyz);
    return out;
}
"#;
    let d = draft("babylon.wgsl", source).unwrap();
    for want in [
        "form: texture, texels: 4, width: row",
        "skinned_normal: { location: 0 }",
        "normal_matrix: blended",
    ] {
        assert!(d.yaml.contains(want), "{want}\n{}", d.yaml);
    }
    contract(&d.yaml);
}

/// A normal renormalised into the leading components of a wider variable, component by
/// component (GLSL's `norm.xyz = normalize(..)`, as naga writes it: Second Life's skinned stage),
/// is renormalised: its whole store before is overwritten. One component left from the whole
/// store, a component taken from another place or another unit vector, a whole store that may
/// come after them, or the leading components of a wider vector renormalised whole, are not.
#[test]
fn a_normal_renormalised_through_a_swizzle_is_unit() {
    let stage = r#"
@group(0) @binding(0) var<storage, read> joints: array<mat4x4<f32>>;
struct In { @location(0) position: vec3<f32>, @location(1) normal: vec3<f32>, @location(2) joint: vec4<u32>, @location(3) weight: vec4<f32> }
struct Out { @builtin(position) clip: vec4<f32>, @location(0) vary_normal: vec3<f32> }
@vertex fn vs(v: In) -> Out {
    let m = joints[v.joint.x] * v.weight.x + joints[v.joint.y] * v.weight.y;
    var norm = vec4<f32>(v.position, 1.0);
    let n = normalize((m * vec4<f32>(v.normal, 0.0)).xyz);
    norm.x = n.x;
    norm.y = n.y;
    norm.z = n.z;
    var out: Out;
    out.clip = m * vec4<f32>(v.position, 1.0);
    out.vary_normal = norm.xyz;
    return out;
}
"#;
    let d = draft("swizzled.wgsl", stage).unwrap();
    assert!(
        d.yaml.contains("skinned_normal: { location: 0 }"),
        "{}",
        d.yaml
    );
    assert!(!d.yaml.contains("frame_length"), "{}", d.yaml);
    contract(&d.yaml);
    for (edit, into) in [
        ("    norm.z = n.z;\n", ""),
        ("norm.z = n.z;", "norm.z = n.y;"),
        ("let n = normalize(", "let n = ("),
        // Components of two unit vectors are none.
        ("norm.y = n.y;", "norm.y = normalize(v.normal).y;"),
        // A whole store after them on one path.
        (
            "    norm.z = n.z;\n",
            "    norm.z = n.z;\n    if (v.weight.z > 0.5) { norm = m * vec4<f32>(v.normal, 0.0); }\n",
        ),
        // A wider vector renormalised whole: its leading components are not unit.
        (
            "out.vary_normal = norm.xyz;",
            "out.vary_normal = normalize(m * vec4<f32>(v.normal, 1.0)).xyz;",
        ),
    ] {
        let blended = stage.replace(edit, into);
        let d = draft("blended.wgsl", &blended).unwrap();
        assert!(
            d.yaml.contains("\nframe_length: any\n"),
            "{edit}\n{}",
            d.yaml
        );
    }
}

/// An output named as the normal that the palette never reaches is not the skinned normal: one
/// never written (libsgd's `normal`, its skinned normal in `tanMatrix2`, found as the one vec3
/// output that carries the source normal moved by the palette and not the tangent), or one moved
/// by a per-instance matrix alone (m2rs's `world_normal`). An output not renormalised in the
/// stage drafts `frame_length: any`.
#[test]
fn the_skinned_normal_is_the_output_the_palette_moves_the_normal_into() {
    let libsgd = r#"
@group(0) @binding(0) var<storage, read> joint_matrices: array<mat4x4<f32>>;
@group(1) @binding(0) var<uniform> view_proj: mat4x4<f32>;
struct In { @location(0) position: vec3<f32>, @location(1) normal: vec3<f32>, @location(2) tangent: vec4<f32>, @location(5) joints: vec4<u32>, @location(6) weights: vec4<f32> }
struct Out { @builtin(position) clip: vec4<f32>, @location(1) normal: vec3<f32>, @location(2) tanMatrix0: vec3<f32>, @location(3) tanMatrix1: vec3<f32>, @location(4) tanMatrix2: vec3<f32> }
@vertex fn vs(v: In) -> Out {
    let m = joint_matrices[v.joints.x] * v.weights.x + joint_matrices[v.joints.y] * v.weights.y;
    let normal = (m * vec4<f32>(v.normal, 0.0)).xyz;
    let tangent = (m * vec4<f32>(v.tangent.xyz, 0.0)).xyz;
    var out: Out;
    out.clip = view_proj * m * vec4<f32>(v.position, 1.0);
    out.tanMatrix2 = normal;
    out.tanMatrix0 = tangent;
    out.tanMatrix1 = cross(out.tanMatrix0, out.tanMatrix2) * v.tangent.w;
    return out;
}
"#;
    let d = draft("libsgd.wgsl", libsgd).unwrap();
    for want in [
        "# the output `normal` is never written from the source normal moved by the palette",
        "  skinned_normal: { location: 4 }   # the output `tanMatrix2` carries the source normal",
        "  skinned_tangent: { location: 2, format: vec3 }   # the output `tanMatrix0` carries the source tangent",
        "frame_length: any",
    ] {
        assert!(d.yaml.contains(want), "{want}\n{}", d.yaml);
    }
    contract(&d.yaml);
    // Renormalised in the stage: unit length stays the default.
    let unit = (libsgd.replace(
        "out.tanMatrix2 = normal;",
        "out.tanMatrix2 = normalize(normal);",
    ))
    .replace(
        "out.tanMatrix0 = tangent;",
        "out.tanMatrix0 = normalize(tangent);",
    );
    let d = draft("unit.wgsl", &unit).unwrap();
    assert!(
        d.yaml.contains("skinned_normal: { location: 4 }"),
        "{}",
        d.yaml
    );
    assert!(!d.yaml.contains("frame_length"), "{}", d.yaml);
    let m2rs = r#"
@group(0) @binding(0) var<storage, read> bones: array<mat4x4<f32>>;
@group(1) @binding(0) var<uniform> view_proj: mat4x4<f32>;
struct In { @location(0) position: vec3<f32>, @location(2) normal: vec3<f32>, @location(3) weights: vec4<f32>, @location(4) joints: vec4<u32>, @location(12) normal_matrix_0: vec3<f32>, @location(13) normal_matrix_1: vec3<f32>, @location(14) normal_matrix_2: vec3<f32> }
struct Out { @builtin(position) clip: vec4<f32>, @location(1) world_normal: vec3<f32> }
@vertex fn vs(v: In) -> Out {
    let n = mat3x3<f32>(v.normal_matrix_0, v.normal_matrix_1, v.normal_matrix_2);
    var out: Out;
    out.clip = view_proj * (bones[v.joints.x] * v.weights.x) * vec4<f32>(v.position, 1.0);
    out.world_normal = normalize(n * v.normal);
    return out;
}
"#;
    let d = draft("m2rs.wgsl", m2rs).unwrap();
    assert!(!d.yaml.contains("skinned_normal:"), "{}", d.yaml);
    assert!(
        d.yaml.contains("# the output `world_normal` is never written from the source normal moved by the palette"),
        "{}",
        d.yaml
    );
}

/// Values kept in private globals, as three.js's generated stages keep every intermediate and
/// their outputs (`normalLocal`, `varyings`), are traced as locals are: the output the palette
/// moves the normal into is the skinned normal, and one written from the unskinned normal is not.
#[test]
fn outputs_written_through_private_globals_are_traced() {
    let three = r#"
struct Bones { value: array<mat4x4<f32>, 4> }
@group(1) @binding(3) var<uniform> nodeUniform1: Bones;
struct Render { cameraProjectionMatrix: mat4x4<f32>, cameraViewMatrix: mat4x4<f32> }
@group(0) @binding(0) var<uniform> render: Render;
struct VaryingsStruct { @location(0) v_normalViewGeometry: vec3<f32>, @builtin(position) builtinClipSpace: vec4<f32> }
var<private> varyings: VaryingsStruct;
var<private> normalLocal: vec3<f32>;
var<private> positionLocal: vec3<f32>;
@vertex fn main(@location(0) position: vec3<f32>, @location(1) skinIndex: vec4<u32>, @location(2) skinWeight: vec4<f32>, @location(3) normal: vec3<f32>) -> VaryingsStruct {
    positionLocal = position;
    let m = skinWeight.x * nodeUniform1.value[skinIndex.x] + skinWeight.y * nodeUniform1.value[skinIndex.y];
    positionLocal = (m * vec4<f32>(positionLocal, 1.0)).xyz;
    normalLocal = normal;
    normalLocal = mat3x3<f32>(m[0].xyz, m[1].xyz, m[2].xyz) * normalLocal;
    varyings.v_normalViewGeometry = normalize((render.cameraViewMatrix * vec4<f32>(normalLocal, 0.0)).xyz);
    varyings.builtinClipSpace = render.cameraProjectionMatrix * render.cameraViewMatrix * vec4<f32>(positionLocal, 1.0);
    return varyings;
}
"#;
    let d = draft("three.wgsl", three).unwrap();
    assert!(
        d.yaml.contains("  skinned_normal: { location: 0 }"),
        "{}",
        d.yaml
    );
    contract(&d.yaml);
    // The same output written from the normal before the palette moves it.
    let unskinned = three.replace(
        "normalLocal = mat3x3<f32>(m[0].xyz, m[1].xyz, m[2].xyz) * normalLocal;",
        "positionLocal = positionLocal + normalLocal;",
    );
    let d = draft("three.wgsl", &unskinned).unwrap();
    assert!(!d.yaml.contains("skinned_normal:"), "{}", d.yaml);
}

/// A branch on a member of a filled struct that skins on one side only is a switch, set to the
/// value that takes that side: in the palette's own struct (`palette.members`), after an early
/// return, and as bits under a mask in another binding (`bindings[].members`). A branch on a
/// member beside the palette that does not gate reading it (an alpha test) is no switch.
#[test]
fn a_branch_that_gates_the_palette_is_a_switch_set_on() {
    let shader = |test: &str| {
        format!(
            r#"
struct Uniforms {{ view_proj: mat4x4<f32>, bones: array<mat4x4<f32>, 48>, is_animated: u32, alpha_test: f32 }}
@group(0) @binding(0) var<uniform> uniforms: Uniforms;
struct Draw {{ flags: u32, first: u32 }}
@group(0) @binding(1) var<uniform> draw: Draw;
@vertex fn vs(@location(0) position: vec3<f32>, @location(1) joints: vec4<u32>, @location(2) weights: vec4<f32>) -> @builtin(position) vec4<f32> {{
    var p = vec4<f32>(position, 1.0);
    if (uniforms.alpha_test > 0.5) {{ p.w = uniforms.alpha_test; }}
    {test}
    return uniforms.view_proj * p;
}}
"#
        )
    };
    let skin =
        "p = (uniforms.bones[joints.x] * weights.x + uniforms.bones[joints.y] * weights.y) * p;";
    let equal = shader(&format!("if (uniforms.is_animated == u32(1)) {{ {skin} }}"));
    let d = draft("gated.wgsl", &equal).unwrap();
    assert!(
        d.yaml
            .contains("member: bones, fill: identity, members: { is_animated: 1 } }")
            && !d.yaml.contains("alpha_test:"),
        "{}",
        d.yaml
    );
    contract(&d.yaml);
    let early = shader(&format!(
        "if (2 > uniforms.is_animated) {{ return uniforms.view_proj * p; }}\n    {skin}"
    ));
    let d = draft("early.wgsl", &early).unwrap();
    assert!(
        d.yaml.contains("members: { is_animated: 2 } }"),
        "{}",
        d.yaml
    );
    let masked = shader(&format!("if ((draw.flags & 4u) != 0u) {{ {skin} }}"));
    let d = draft("masked.wgsl", &masked).unwrap();
    assert!(
        d.yaml
            .contains("# `draw`: the shader skins only where `(flags & 4) != 0` holds")
            && d.yaml.contains("members: { flags: 4 }")
            && !d.yaml.contains("is_animated"),
        "{}",
        d.yaml
    );
    // Both sides skin: a mode, not a switch.
    let both = shader(&format!(
        "if (uniforms.is_animated == 1u) {{ {skin} }} else {{ {skin} }}"
    ));
    let d = draft("both.wgsl", &both).unwrap();
    assert!(!d.yaml.contains("members:"), "{}", d.yaml);
}

/// A compute pre-skin of vertex structs whose fields are split by coordinate (starframe's): a
/// tangent of three floats is `tangent_format: vec3` in the vertices and the output, weights
/// split over two `vec2<f32>` members are one `f32x4` field of the skin struct, and a stage that
/// calls no `normalize` drafts `frame_length: any`. The draft validates against the shader.
#[test]
fn split_struct_fields_a_vec3_tangent_and_blended_frames() {
    let starframe = r#"
struct Vertex { pos_x: f32, pos_y: f32, pos_z: f32, uv_u: f32, uv_v: f32, normal_x: f32, normal_y: f32, normal_z: f32, tangent_x: f32, tangent_y: f32, tangent_z: f32 }
struct VertexJoints { joints: vec2<u32>, weights_0: vec2<f32>, weights_1: vec2<f32> }
@group(0) @binding(0) var<storage> joint_mats: array<mat4x4<f32>>;
@group(0) @binding(1) var<storage> vertices: array<Vertex>;
@group(0) @binding(2) var<storage> joints: array<VertexJoints>;
@group(0) @binding(3) var<storage, read_write> out_buf: array<Vertex>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if i >= arrayLength(&vertices) { return; }
    let v = vertices[i];
    let j = joints[i].joints;
    let w = vec4<f32>(joints[i].weights_0, joints[i].weights_1);
    let k = vec4<u32>(j[0] & 0xFFFFu, j[0] >> 16u, j[1] & 0xFFFFu, j[1] >> 16u);
    var m = mat4x4<f32>();
    for (var n = 0; n < 4; n++) { m += joint_mats[k[n]] * w[n]; }
    let p = (m * vec4<f32>(v.pos_x, v.pos_y, v.pos_z, 1.0)).xyz;
    let nrm = (m * vec4<f32>(v.normal_x, v.normal_y, v.normal_z, 0.0)).xyz;
    let tan = (m * vec4<f32>(v.tangent_x, v.tangent_y, v.tangent_z, 0.0)).xyz;
    out_buf[i] = Vertex(p.x, p.y, p.z, v.uv_u, v.uv_v, nrm.x, nrm.y, nrm.z, tan.x, tan.y, tan.z);
}
"#;
    let d = draft("starframe.wgsl", starframe).unwrap();
    for want in [
        "  vertices: { group: 0, binding: 1, position: pos_x, normal: normal_x, tangent: tangent_x, tangent_format: vec3 }",
        "  influences: { group: 0, binding: 2, joints: { offset: joints, format: u16x4 }, weights: { offset: weights_0, format: f32x4 } }",
        "  output: { group: 0, binding: 3, position: pos_x, normal: normal_x, tangent: tangent_x, tangent_format: vec3 }",
        "\nframe_length: any\n",
    ] {
        assert!(d.yaml.contains(want), "{want}\n{}", d.yaml);
    }
    let valid = validates("starframe.wgsl", starframe, &d.yaml);
    assert!(valid.is_ok(), "{valid:?}\n{}", d.yaml);
    // Renormalised, the lengths are compared again; a w after the tangent's z makes it a vec4.
    let unit = starframe.replace(
        "(m * vec4<f32>(v.normal_x",
        "normalize(m * vec4<f32>(v.normal_x",
    );
    let d = draft("unit.wgsl", &unit).unwrap();
    assert!(!d.yaml.contains("frame_length"), "{}", d.yaml);
    let four = starframe
        .replace("tangent_z: f32 }", "tangent_z: f32, tangent_w: f32 }")
        .replace("tan.z);", "tan.z, 1.0);");
    let d = draft("four.wgsl", &four).unwrap();
    assert!(
        d.yaml.contains("tangent: tangent_x }") && !d.yaml.contains("tangent_format"),
        "{}",
        d.yaml
    );
}

/// The layout a trace reads from a buffer of bare words in a compute stage: `(stride, position,
/// normal, tangent, joints, weights)` in words, and the output's `(stride, position, normal,
/// tangent)`.
fn traced(src: &str) -> Option<super::words::Layout> {
    let module = naga::front::wgsl::parse_str(src).unwrap();
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(&module)
    .unwrap();
    let var = |name: &str| {
        (module.global_variables.iter())
            .find(|(_, g)| g.name.as_deref() == Some(name))
            .map(|(h, _)| h)
    };
    let targets = super::words::Targets {
        buffer: var("buf")?,
        palette: var("bones").map(|b| (b, None)),
        output: var("out"),
    };
    super::words::layout(&module, &info, 0, &targets)
}

/// Fields of a byte-addressed vertex, each found by what the stage does with the words it loads
/// (worked by hand: 24 words a vertex, the position at 0, the normal at 5, the tangent at 8,
/// joints as u32 bits at 12, weights at 16): through lets named as the fields, helper functions
/// and locals; a point's w 1 names the position where no name does; packed joints and weights
/// take the formats their unpacking reads; loads at an index that is not `i * k + c` give none.
#[test]
fn a_byte_addressed_vertex_is_read_by_what_its_words_become() {
    use super::words::Run;
    let head = "@group(0) @binding(0) var<storage, read> bones: array<mat4x4<f32>>;
@group(0) @binding(1) var<storage, read> buf: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
fn word(i: u32) -> f32 { return buf[i]; }
fn vec(i: u32) -> vec3<f32> { return vec3<f32>(word(i), word(i + 1u), word(i + 2u)); }
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let v = id.x * 24u;
";
    let dream = format!(
        "{head}    let px = buf[v]; let py = buf[v + 1u]; let pz = buf[v + 2u];
    let nrm = vec(v + 5u);
    var tn = vec(v + 8u);
    let ids = vec4<u32>(bitcast<u32>(buf[v + 12u]), bitcast<u32>(buf[v + 13u]), bitcast<u32>(buf[v + 14u]), bitcast<u32>(buf[v + 15u]));
    let w = vec4<f32>(buf[v + 16u], buf[v + 17u], buf[v + 18u], buf[v + 19u]);
    var acc = vec4<f32>(0.0); var n = vec3<f32>(0.0); var t = vec3<f32>(0.0);
    for (var k = 0u; k < 4u; k++) {{
        let m = bones[ids[k]];
        acc += m * vec4<f32>(px, py, pz, 1.0) * w[k];
        n += (m * vec4<f32>(nrm, 0.0)).xyz * w[k];
        t += (m * vec4<f32>(tn, 0.0)).xyz * w[k];
    }}
    out[v] = acc.x; out[v + 1u] = acc.y; out[v + 2u] = acc.z;
    out[v + 5u] = n.x; out[v + 6u] = n.y; out[v + 7u] = n.z;
    out[v + 8u] = t.x; out[v + 9u] = t.y; out[v + 10u] = t.z;
}}"
    );
    let l = traced(&dream).unwrap();
    let run = |first, len| Some(Run { first, len });
    assert_eq!(
        (l.stride, l.position, l.normal, l.tangent),
        (24, run(0, 3), run(5, 3), run(8, 3))
    );
    assert_eq!(l.joints, Some((vec![12], "u32x4")));
    assert_eq!(l.weights, Some((vec![16], "f32x4")));
    let stored = |stride, position, normal, tangent| {
        Some(super::words::Stored {
            stride,
            position,
            normal,
            tangent,
        })
    };
    assert_eq!(l.output, stored(24, run(0, 3), run(5, 3), run(8, 3)));
    assert_eq!(
        l.vertex_fields(),
        "stride: 96, position: 0, normal: 20, tangent: 32, joints: { offset: 48, format: u32x4 }, weights: { offset: 64, format: f32x4 }"
    );
    assert_eq!(
        l.output_fields().unwrap(),
        "stride: 96, position: 0, normal: 20, tangent: 32, tangent_format: vec3"
    );
    // No names: the point is the position though the directions come first, the rest in order.
    let unnamed = dream
        .replace("px", "a0")
        .replace("py", "a1")
        .replace("pz", "a2")
        .replace("nrm", "b")
        .replace("tn", "c")
        .replace("buf[v]", "buf[v + 20u]")
        .replace("buf[v + 1u]", "buf[v + 21u]")
        .replace("buf[v + 2u]", "buf[v + 22u]");
    let l = traced(&unnamed).unwrap();
    assert_eq!(
        (l.position, l.normal, l.tangent),
        (run(20, 3), run(5, 3), run(8, 3))
    );
    // u8 joints and unorm8 weights, one word each, unpacked.
    let packed = format!(
        "{head}    let p = vec(v);
    let j = buf[v + 3u];
    let ji = bitcast<u32>(j);
    let idx = vec4<u32>(ji & 0xffu, (ji >> 8u) & 0xffu, (ji >> 16u) & 0xffu, ji >> 24u);
    let w = unpack4x8unorm(bitcast<u32>(buf[v + 4u]));
    let m = bones[idx.x] * w.x + bones[idx.y] * w.y + bones[idx.z] * w.z + bones[idx.w] * w.w;
    let s = (m * vec4<f32>(p, 1.0)).xyz;
    out[id.x * 3u] = s.x; out[id.x * 3u + 1u] = s.y; out[id.x * 3u + 2u] = s.z;
}}"
    );
    let l = traced(&packed).unwrap();
    assert_eq!(l.joints, Some((vec![3], "u8x4")));
    assert_eq!(l.weights, Some((vec![4], "unorm8x4")));
    assert_eq!(l.output, stored(3, run(0, 3), None, None));
    // An index from elsewhere (a uniform's offset) is no `i * k + c`.
    let offset = dream.replace("let v = id.x * 24u;", "let v = id.x * 24u + u32(buf[0]);");
    assert!(traced(&offset).is_none());
}

/// Streams of their own as toji's burrow keeps them: positions as bare floats read at
/// `i * positionStride + offsets.position` (an override's default, a uniform's offset the harness
/// fills with 0) are `compute.vertices` with their 12-byte stride; weights declared flat are
/// `compute.weights`; the output struct's normal and tangent are drafted where streams named so
/// are read. The draft validates against the shader.
#[test]
fn a_position_stream_of_bare_floats_is_traced_to_its_stride() {
    let burrow = r#"
struct Out { position: vec4f, normal: vec4f, tangent: vec4f }
@group(0) @binding(0) var<storage, read_write> outVerts: array<Out>;
override positionStride: u32 = 3;
struct Offsets { vertexCount: u32, joint: u32, weight: u32, position: u32, normal: u32, tangent: u32 }
@group(0) @binding(1) var<uniform> offsets: Offsets;
@group(0) @binding(2) var<storage> inJoints: array<u32>;
@group(0) @binding(3) var<storage> inWeights: array<f32>;
@group(0) @binding(4) var<storage> inPosition: array<f32>;
@group(0) @binding(5) var<storage> inNormal: array<f32>;
@group(0) @binding(6) var<storage> inTangent: array<f32>;
@group(1) @binding(0) var<storage> jointMat: array<mat4x4f>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3u) {
    let i = id.x;
    if (i >= offsets.vertexCount) { return; }
    let j0 = inJoints[i * 2 + offsets.joint];
    let j1 = inJoints[i * 2 + offsets.joint + 1];
    let joints = vec4u(j0 & 0xFFFF, j0 >> 16, j1 & 0xFFFF, j1 >> 16);
    let wo = i * 4 + offsets.weight;
    let m = jointMat[joints.x] * inWeights[wo] + jointMat[joints.y] * inWeights[wo + 1];
    let po = i * positionStride + offsets.position;
    let pos = vec4f(inPosition[po], inPosition[po + 1], inPosition[po + 2], 1);
    outVerts[i].position = vec4f((m * pos).xyz, 1);
    let no = i * 3 + offsets.normal;
    outVerts[i].normal = vec4f(normalize((m * vec4f(inNormal[no], inNormal[no + 1], inNormal[no + 2], 0)).xyz), 0);
    let to = i * 4 + offsets.tangent;
    outVerts[i].tangent = vec4f(normalize((m * vec4f(inTangent[to], inTangent[to + 1], inTangent[to + 2], 0)).xyz), inTangent[to + 3]);
}
"#;
    let d = draft("burrow.wgsl", burrow).unwrap();
    for want in [
        "  vertices: { group: 0, binding: 4, stride: 12, position: 0 }",
        "  weights: { group: 0, binding: 3, format: f32x4 }",
        "  output: { group: 0, binding: 0, position: position, normal: normal, tangent: tangent }",
    ] {
        assert!(d.yaml.contains(want), "{want}\n{}", d.yaml);
    }
    let valid = validates("burrow.wgsl", burrow, &d.yaml);
    assert!(valid.is_ok(), "{valid:?}\n{}", d.yaml);
}

/// Where the palette is one member of a struct, only that member is the palette: a normal moved by
/// the model matrix beside it alone is no skinned normal, one moved by the joints is.
#[test]
fn a_matrix_beside_the_palette_in_its_struct_is_not_the_palette() {
    let shader = |normal: &str| {
        format!(
            "struct U {{ model: mat4x4<f32>, view_proj: mat4x4<f32>, bones: array<mat4x4<f32>, 64> }}
@group(0) @binding(0) var<uniform> u: U;
struct Out {{ @builtin(position) clip: vec4<f32>, @location(0) normal: vec3<f32> }}
@vertex fn vs(@location(0) position: vec3<f32>, @location(1) normal: vec3<f32>, @location(2) joints: vec4<u32>, @location(3) weights: vec4<f32>) -> Out {{
    let skin = u.bones[joints.x] * weights.x + u.bones[joints.y] * weights.y;
    var out: Out;
    out.clip = u.view_proj * u.model * skin * vec4<f32>(position, 1.0);
    out.normal = normalize(({normal} * vec4<f32>(normal, 0.0)).xyz);
    return out;
}}"
        )
    };
    let d = draft("model.wgsl", &shader("u.model")).unwrap();
    assert!(!d.yaml.contains("skinned_normal:"), "{}", d.yaml);
    let d = draft("skin.wgsl", &shader("u.model * skin")).unwrap();
    assert!(
        d.yaml.contains("skinned_normal: { location: 0 }"),
        "{}",
        d.yaml
    );
}

/// Blocks without an instance name as naga writes them from GLSL (`global_2`, `global_3`), one
/// holding a draw's transforms (Magnum's `transformationMatrices[DRAW_COUNT]`, its one draw),
/// the other the joints (`jointMatrices`): the palette is the joints' block, named by its one
/// member; of two named alike, not the fixed array of one matrix; alone, that one still.
#[test]
fn the_palette_is_not_a_draws_one_matrix_and_glsl_blocks_are_named_by_their_member() {
    let shader = |draws: &str, joints: &str| {
        format!(
            "struct Transformation {{ {draws}: array<mat4x4<f32>, 1> }}
struct Joint {{ {joints}: array<mat4x4<f32>, 64> }}
@group(0) @binding(0) var<uniform> view_proj: mat4x4<f32>;
@group(0) @binding(1) var<uniform> global_2: Transformation;
@group(0) @binding(6) var<uniform> global_3: Joint;
@vertex fn vs(@location(0) position: vec3<f32>, @location(1) joints: vec4<u32>, @location(2) weights: vec4<f32>) -> @builtin(position) vec4<f32> {{
    let skin = global_3.{joints}[joints.x] * weights.x + global_3.{joints}[joints.y] * weights.y;
    return view_proj * global_2.{draws}[0] * skin * vec4<f32>(position, 1.0);
}}"
        )
    };
    for (draws, joints) in [
        ("transformationMatrices", "jointMatrices"),
        ("drawMatrices", "matrices"),
    ] {
        let d = draft("blocks.wgsl", &shader(draws, joints)).unwrap();
        assert!(
            d.yaml.contains("palette: { group: 0, binding: 6,"),
            "{draws} {joints}\n{}",
            d.yaml
        );
    }
    // Named by its member: the joints' block wins where neither is one matrix.
    let d = draft(
        "named.wgsl",
        &shader("transformationMatrices", "jointMatrices")
            .replace("array<mat4x4<f32>, 1>", "array<mat4x4<f32>, 16>"),
    )
    .unwrap();
    assert!(
        d.yaml.contains("palette: { group: 0, binding: 6,"),
        "{}",
        d.yaml
    );
    // A lone fixed array of one matrix is still the palette (a one-joint attachment).
    let lone = "@group(0) @binding(0) var<uniform> view_proj: mat4x4<f32>;
@group(0) @binding(1) var<uniform> bones: array<mat4x4<f32>, 1>;
@vertex fn vs(@location(0) position: vec3<f32>, @location(1) joints: vec4<u32>, @location(2) weights: vec4<f32>) -> @builtin(position) vec4<f32> {
    return view_proj * (bones[joints.x] * weights.x) * vec4<f32>(position, 1.0);
}";
    let d = draft("lone.wgsl", lone).unwrap();
    assert!(
        d.yaml.contains("palette: { group: 0, binding: 1,"),
        "{}",
        d.yaml
    );
}

/// A stage with a position attribute that reads its joints and weights from a buffer by
/// `vertex_index` interleaved in pairs (awsm-renderer's: a joint's word, then its weight's),
/// which no byte-addressed layout describes: the missing attributes are left to do, not passed
/// over as a stage that pulls every field, nor drafted as overlapping fields.
#[test]
fn attributes_beside_pulled_influences_leave_the_influences_to_do() {
    let awsm = "@group(0) @binding(0) var<storage, read> bones: array<mat4x4<f32>>;
@group(0) @binding(1) var<storage, read> skin: array<f32>;
@group(0) @binding(2) var<uniform> view_proj: mat4x4<f32>;
@vertex fn vs(@builtin(vertex_index) v: u32, @location(0) position: vec3<f32>) -> @builtin(position) vec4<f32> {
    let j = bitcast<u32>(skin[v * 2u]);
    return view_proj * (bones[j] * skin[v * 2u + 1u]) * vec4<f32>(position, 1.0);
}";
    let d = draft("awsm.wgsl", awsm).unwrap();
    assert!(
        d.yaml
            .contains("# TODO: no integer vec4 input or one named as joints")
            && d.yaml
                .contains("# TODO: no vec4<f32> input named as weights"),
        "{}",
        d.yaml
    );
}

/// A compute stage that does its work inside `if (i < X)` rather than returning early: X, a lane
/// of a parameter vector here, is the vertex count all the same.
#[test]
fn a_guard_around_the_work_bounds_the_invocations() {
    let src = "struct P { model: mat4x4<f32>, sizes: vec4<u32> }
@group(0) @binding(0) var<storage, read> bones: array<mat4x4<f32>>;
@group(0) @binding(1) var<storage, read> positions: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> joints: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read> weights: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read_write> skinned: array<vec4<f32>>;
@group(0) @binding(5) var<uniform> p: P;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x < p.sizes.z) {
        let j = joints[gid.x];
        let w = weights[gid.x];
        let m = bones[j.x] * w.x + bones[j.y] * w.y + bones[j.z] * w.z + bones[j.w] * w.w;
        skinned[gid.x] = vec4<f32>((p.model * m * vec4<f32>(positions[gid.x].xyz, 1.0)).xyz, 0.0);
    }
}";
    let d = draft("around.wgsl", src).unwrap();
    assert!(
        d.yaml.contains("fill: identity, count: sizes.z }"),
        "{}",
        d.yaml
    );
    validates("around.wgsl", src, &d.yaml).unwrap();
}

/// A compute stage that reads its positions from bare floats (whatever the buffer's name) beside
/// a skin stream of structs, writes the whole vertex, and stops at the skin stream's
/// `arrayLength`: the floats are `vertices` laid out by what the stage does with them, and the
/// parameters' joint count is no vertex count.
#[test]
fn bare_positions_beside_a_skin_stream_and_an_array_length_bound() {
    let src = "struct SkinIn { joints: vec4<u32>, weights: vec4<f32> }
struct Params { joint_count: u32, _a: u32, _b: u32, _c: u32 }
@group(0) @binding(0) var<storage, read> rest: array<f32>;
@group(0) @binding(1) var<storage, read> skins: array<SkinIn>;
@group(0) @binding(2) var<storage, read> palette: array<mat4x4<f32>>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;
@group(0) @binding(4) var<uniform> params: Params;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= arrayLength(&skins)) { return; }
    let b = i * 5u;
    let p = vec3<f32>(rest[b], rest[b + 1u], rest[b + 2u]);
    let s = skins[i];
    var pos = vec3<f32>(0.0);
    for (var k = 0u; k < 4u; k = k + 1u) {
        if (s.joints[k] >= params.joint_count) { continue; }
        pos = pos + s.weights[k] * (palette[s.joints[k]] * vec4<f32>(p, 1.0)).xyz;
    }
    out[b] = pos.x;
    out[b + 1u] = pos.y;
    out[b + 2u] = pos.z;
    out[b + 3u] = rest[b + 3u];
    out[b + 4u] = rest[b + 4u];
}";
    let d = draft("bare.wgsl", src).unwrap();
    for line in [
        "  vertices: { group: 0, binding: 0, stride: 20, position: 0 }",
        "  output: { group: 0, binding: 3, stride: 20, position: 0 }",
        "  # the stage bounds its invocations by an input's `arrayLength`: no count",
    ] {
        assert!(d.yaml.contains(line), "{line}\n{}", d.yaml);
    }
    assert!(!d.yaml.contains("count: {"), "{}", d.yaml);
    validates("bare.wgsl", src, &d.yaml).unwrap();
}

/// A palette of affine rows kept as three vec4 members (`BoneMat34 { r0, r1, r2 }`) in a buffer
/// named as bones is drafted `matrix: rows`; an instance's model matrix kept as four vec4
/// members of a loaded struct and composed into a matrix is the identity's columns.
#[test]
fn row_structs_and_matrices_composed_from_members_are_drafted() {
    let src = "struct BoneMat34 { r0: vec4<f32>, r1: vec4<f32>, r2: vec4<f32> }
struct Instance { m_1: vec4<f32>, m_2: vec4<f32>, m_3: vec4<f32>, m_4: vec4<f32>, offsets: vec4<u32> }
@group(0) @binding(0) var<uniform> view_proj: mat4x4<f32>;
@group(1) @binding(0) var<storage, read> bones: array<BoneMat34>;
@group(1) @binding(1) var<storage, read> instances: array<Instance>;
fn apply(m: BoneMat34, p: vec4<f32>) -> vec3<f32> { return vec3<f32>(dot(m.r0, p), dot(m.r1, p), dot(m.r2, p)); }
@vertex fn vs(@builtin(instance_index) ii: u32, @location(0) position: vec3<f32>, @location(1) joints: vec4<u32>, @location(2) weights: vec4<f32>) -> @builtin(position) vec4<f32> {
    let instance = instances[ii];
    let model = mat4x4<f32>(instance.m_1, instance.m_2, instance.m_3, instance.m_4);
    let p = vec4<f32>(position, 1.0);
    let skinned = weights.x * apply(bones[joints.x], p) + weights.y * apply(bones[joints.y], p);
    return view_proj * model * vec4<f32>(skinned, 1.0);
}";
    let d = draft("rows.wgsl", src).unwrap();
    for line in [
        "palette: { group: 1, binding: 0, form: storage, matrix: rows }",
        "  - { group: 1, binding: 1, members: { m_1: [1, 0, 0, 0], m_2: [0, 1, 0, 0], m_3: [0, 0, 1, 0], m_4: [0, 0, 0, 1] } }",
    ] {
        assert!(d.yaml.contains(line), "{line}\n{}", d.yaml);
    }
    validates("rows.wgsl", src, &d.yaml).unwrap();
}

/// Four instance inputs the entry point composes into a matrix are its columns, whatever their
/// names (`mm0` to `mm3`): the identity's, so the model matrix they make is not singular.
#[test]
fn inputs_composed_into_a_matrix_are_the_identitys_columns() {
    let src = "@group(0) @binding(0) var<uniform> light_view_proj: mat4x4<f32>;
@group(1) @binding(0) var<uniform> bones: array<mat4x4<f32>, 64>;
struct V { @location(0) position: vec3<f32>, @location(3) joints: vec4<u32>, @location(4) weights: vec4<f32> }
struct I { @location(5) mm0: vec4<f32>, @location(6) mm1: vec4<f32>, @location(7) mm2: vec4<f32>, @location(8) mm3: vec4<f32> }
@vertex fn vs(v: V, inst: I) -> @builtin(position) vec4<f32> {
    let model = mat4x4<f32>(inst.mm0, inst.mm1, inst.mm2, inst.mm3);
    let m = bones[v.joints.x] * v.weights.x + bones[v.joints.y] * v.weights.y;
    return light_view_proj * model * m * vec4<f32>(v.position, 1.0);
}";
    let d = draft("shadow.wgsl", src).unwrap();
    let line = "  inputs: { 5: [1, 0, 0, 0], 6: [0, 1, 0, 0], 7: [0, 0, 1, 0], 8: [0, 0, 0, 1] }";
    assert!(d.yaml.contains(line), "{}", d.yaml);
    validates("shadow.wgsl", src, &d.yaml).unwrap();
}

/// A stage with attributes that reads its joints and weights by vertex index from bare words (u16
/// joint pairs in two words, four float weights after them): `vertex.influences` laid out by
/// what the stage does with the words, and no attribute left to do.
#[test]
fn influences_in_bare_words_beside_attributes_are_drafted() {
    let src = "@group(0) @binding(0) var<storage, read> bones: array<mat4x4<f32>>;
@group(0) @binding(1) var<storage, read> skin: array<u32>;
@group(0) @binding(2) var<uniform> view_proj: mat4x4<f32>;
@vertex fn vs(@builtin(vertex_index) v: u32, @location(0) position: vec3<f32>) -> @builtin(position) vec4<f32> {
    let b = v * 6u;
    let j = vec4<u32>(skin[b] & 0xffffu, skin[b] >> 16u, skin[b + 1u] & 0xffffu, skin[b + 1u] >> 16u);
    let w = vec4<f32>(bitcast<f32>(skin[b + 2u]), bitcast<f32>(skin[b + 3u]), bitcast<f32>(skin[b + 4u]), bitcast<f32>(skin[b + 5u]));
    let m = bones[j.x] * w.x + bones[j.y] * w.y + bones[j.z] * w.z + bones[j.w] * w.w;
    return view_proj * m * vec4<f32>(position, 1.0);
}";
    let d = draft("stream.wgsl", src).unwrap();
    let line = "  influences: { group: 0, binding: 1, stride: 24, joints: { offset: 0, format: u16x4 }, weights: { offset: 8, format: f32x4 } }";
    assert!(d.yaml.contains(line), "{}", d.yaml);
    assert_eq!(d.todos, 0, "{}", d.yaml);
    validates("stream.wgsl", src, &d.yaml).unwrap();
}

/// A vertex held in vec4 slots, several a vertex (`array<vec4<f32>>` read at `i * 4u + c`): each
/// slot's lanes are words `4c` to `4c + 3` of the vertex, laid out as bare words are, and the
/// draft validates; a vec4 array read one element a vertex stays a typed stream.
#[test]
fn vec4_slots_are_words_four_at_a_time() {
    let slots = "@group(0) @binding(0) var<storage, read> joint_matrices: array<mat4x4<f32>>;
@group(0) @binding(1) var<storage, read> vertices: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> skinned: array<f32>;
struct Params { count: u32, _a: u32, _b: u32, _c: u32 }
@group(0) @binding(3) var<uniform> params: Params;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= params.count) { return; }
    let position = vertices[i * 4u];
    let normal = vertices[i * 4u + 1u].xyz;
    let joints = vec4<u32>(vertices[i * 4u + 2u]);
    let weights = vertices[i * 4u + 3u];
    var m = mat4x4<f32>();
    for (var k = 0u; k < 4u; k++) { m += joint_matrices[joints[k]] * weights[k]; }
    let p = m * vec4<f32>(position.xyz, 1.0);
    let n = normalize((m * vec4<f32>(normal, 0.0)).xyz);
    skinned[i * 6u] = p.x; skinned[i * 6u + 1u] = p.y; skinned[i * 6u + 2u] = p.z;
    skinned[i * 6u + 3u] = n.x; skinned[i * 6u + 4u] = n.y; skinned[i * 6u + 5u] = n.z;
}";
    let d = draft("slots.wgsl", slots).unwrap();
    for want in [
        "  vertices: { group: 0, binding: 1, stride: 64, position: 0, normal: 16, joints: { offset: 32, format: f32x4 }, weights: { offset: 48, format: f32x4 } }",
        "  output: { group: 0, binding: 2, stride: 24, position: 0, normal: 12 }",
    ] {
        assert!(d.yaml.contains(want), "{want}\n{}", d.yaml);
    }
    let valid = validates("slots.wgsl", slots, &d.yaml);
    assert!(valid.is_ok(), "{valid:?}\n{}", d.yaml);
    // One element a vertex (the default shader's positions): a typed stream, as the names tell.
    let default = include_str!("../../../shaders/skinning.wgsl");
    let d = draft("skinning.wgsl", default).unwrap();
    assert!(
        !d.yaml.contains("  vertices:") && d.yaml.contains("  positions: { group: 0, binding: 1"),
        "{}",
        d.yaml
    );
}

/// A stage that pulls each field from a buffer of its own, every read through an index table
/// (pygfx's): `vertex.streams`, one line a buffer, each laid out by what the stage does with its
/// words, the index table's element taken as the index it is read at (a triangle's corner picked
/// by `vertex_index % 3`, or the vertex index itself), and the skinned normal the output that
/// carries the normal stream's words. Unnamed buffers are told apart by what they become (a
/// direction's w 0 is no position); a field in two buffers leaves the vertices to do.
#[test]
fn fields_in_buffers_of_their_own_are_drafted_as_streams() {
    let name = "vertex_streams.wgsl";
    let example = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("shaders/examples")
            .join(name),
    )
    .unwrap();
    let d = draft(name, &example).unwrap();
    for want in [
        "    - { group: 0, binding: 3, stride: 12, position: 0 }   # `positions`",
        "    - { group: 0, binding: 4, stride: 12, normal: 0 }   # `normals`",
        "    - { group: 0, binding: 5, stride: 4, joints: { offset: 0, format: u8x4 } }   # `skin_joints`",
        "    - { group: 0, binding: 6, stride: 16, weights: { offset: 0, format: f32x4 } }   # `skin_weights`",
        "  skinned_normal: { location: 0 }",
        "  - { group: 0, binding: 2, fill: sequence }",
        "\nnormal_matrix: blended\n",
    ] {
        assert!(d.yaml.contains(want), "{want}\n{}", d.yaml);
    }
    assert_eq!(d.todos, 0, "{}", d.yaml);
    validates(name, &example, &d.yaml).unwrap();
    // Unnamed buffers, the table read at the vertex index, and the direction first.
    let unnamed = |w: &str| {
        format!(
            "@group(0) @binding(0) var<storage, read> bones: array<mat4x4<f32>>;
@group(0) @binding(1) var<uniform> view_proj: mat4x4<f32>;
@group(0) @binding(2) var<storage, read> indices: array<u32>;
@group(0) @binding(3) var<storage, read> a: array<f32>;
@group(0) @binding(4) var<storage, read> b: array<f32>;
@group(0) @binding(5) var<storage, read> c: array<vec4<u32>>;
@group(0) @binding(6) var<storage, read> d: array<vec4<f32>>;
struct Out {{ @builtin(position) clip: vec4<f32>, @location(0) o: vec3<f32> }}
@vertex fn vs(@builtin(vertex_index) v: u32) -> Out {{
    let i = indices[v];
    let m = bones[c[i].x] * d[i].x + bones[c[i].y] * d[i].y;
    var out: Out;
    out.o = normalize((m * vec4<f32>(a[i * 4u], a[i * 4u + 1u], a[i * 4u + 2u], {w})).xyz);
    out.clip = view_proj * m * vec4<f32>(b[i * 3u], b[i * 3u + 1u], b[i * 3u + 2u], 1.0);
    return out;
}}"
        )
    };
    let src = unnamed("0.0");
    let d = draft("unnamed.wgsl", &src).unwrap();
    for want in [
        "    - { group: 0, binding: 3, stride: 16, normal: 0 }   # `a`",
        "    - { group: 0, binding: 4, stride: 12, position: 0 }   # `b`",
        "    - { group: 0, binding: 5, stride: 16, joints: { offset: 0, format: u32x4 } }   # `c`",
        "    - { group: 0, binding: 6, stride: 16, weights: { offset: 0, format: f32x4 } }   # `d`",
        "  skinned_normal: { location: 0 }",
    ] {
        assert!(d.yaml.contains(want), "{want}\n{}", d.yaml);
    }
    validates("unnamed.wgsl", &src, &d.yaml).unwrap();
    // Both moved as points: the position in two buffers, which no profile says.
    let src = unnamed("1.0");
    let d = draft("two.wgsl", &src).unwrap();
    assert!(!d.yaml.contains("streams:") && d.todos == 1, "{}", d.yaml);
}

/// A stage that writes its clip z after the camera (a shadow pass's clamp into the returned
/// struct's position, or a log depth into a variable then returned there) drafts `clip_z: stage`
/// on its camera, one that negates its clip y `clip_y: flipped`; one that sets a z before the
/// camera moves it, scales its y, or neither, drafts no `clip_z` or `clip_y`.
#[test]
fn a_stage_that_writes_its_clip_z_drafts_clip_z_stage() {
    let shader = |body: &str| {
        format!(
            "@group(0) @binding(0) var<storage, read> bones: array<mat4x4<f32>>;
@group(0) @binding(1) var<uniform> view_proj: mat4x4<f32>;
struct Out {{ @location(0) uv: vec2<f32>, @builtin(position) pos: vec4<f32> }}
@vertex fn vs(@location(0) position: vec3<f32>, @location(1) joints: vec4<u32>, @location(2) weights: vec4<f32>) -> Out {{
    let m = bones[joints.x] * weights.x + bones[joints.y] * weights.y;
    var out: Out;
    out.uv = vec2<f32>(0.0);
    {body}
    return out;
}}"
        )
    };
    let camera = "  camera: { group: 0, binding: 1, form: matrix";
    for body in [
        "out.pos = view_proj * m * vec4<f32>(position, 1.0);\n    out.pos.z = clamp(out.pos.z, 0.0, out.pos.w);",
        "var clip = view_proj * m * vec4<f32>(position, 1.0);\n    clip.z = log2(max(1e-6, 1.0 + clip.w)) * 0.1;\n    out.pos = clip;",
    ] {
        let src = shader(body);
        let d = draft("clamp.wgsl", &src).unwrap();
        assert!(
            d.yaml.contains(&format!("{camera}, clip_z: stage }}")),
            "{}",
            d.yaml
        );
        validates("clamp.wgsl", &src, &d.yaml).unwrap();
    }
    // Its y negated: `clip_y: flipped`, beside a z of its own.
    let src = shader("out.pos = view_proj * m * vec4<f32>(position, 1.0);\n    out.pos.y = -out.pos.y;\n    out.pos.z = (out.pos.z + out.pos.w) * 0.5;");
    let d = draft("flip.wgsl", &src).unwrap();
    assert!(
        d.yaml
            .contains(&format!("{camera}, clip_y: flipped, clip_z: stage }}")),
        "{}",
        d.yaml
    );
    validates("flip.wgsl", &src, &d.yaml).unwrap();
    for body in [
        "out.pos = view_proj * m * vec4<f32>(position, 1.0);",
        "var p = m * vec4<f32>(position, 1.0);\n    p.z = -p.z;\n    out.pos = view_proj * p;",
        "out.pos = view_proj * m * vec4<f32>(position, 1.0);\n    out.pos.y = out.pos.y * 0.5;",
    ] {
        let d = draft("plain.wgsl", &shader(body)).unwrap();
        assert!(
            d.yaml.contains(&format!("{camera} }}")) && !d.yaml.contains("clip_"),
            "{}",
            d.yaml
        );
    }
}

/// A stage as naga writes it from SPIR-V (`vertex_from_spirv`): its normal skinned in a `main_1`
/// into a private global the entry point returns at its unnamed `member` output, which the draft
/// finds through the private global and knows renormalised there; its clip y negated after the
/// camera. The draft is the shipped profile's contract.
#[test]
fn a_stage_naga_read_from_spirv_is_drafted_through_its_private_globals() {
    let name = "vertex_from_spirv";
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders/examples");
    let source = std::fs::read_to_string(dir.join(format!("{name}.wgsl"))).unwrap();
    let d = draft(&format!("{name}.wgsl"), &source).unwrap();
    for want in [
        "  skinned_normal: { location: 0 }   # the output `member` carries the source normal moved by the palette",
        "  camera: { group: 0, binding: 0, form: matrix, fill: identity, clip_y: flipped }",
        "\nnormal_matrix: blended\n",
    ] {
        assert!(d.yaml.contains(want), "{want}\n{}", d.yaml);
    }
    assert!(!d.yaml.contains("frame_length"), "{}", d.yaml);
    validates(&format!("{name}.wgsl"), &source, &d.yaml).unwrap();
}

/// Normals and tangents named by short words, as GLSL's attributes often are (`a_norm`, `nrm`,
/// `in_tan`), are the source normal and tangent, and never the position; a binormal is neither.
#[test]
fn normals_and_tangents_named_by_short_words_are_picked() {
    let shader = |normal: &str, tangent: &str| {
        format!(
            "@group(0) @binding(0) var<storage, read> bones: array<mat4x4<f32>>;
@group(0) @binding(1) var<uniform> view_proj: mat4x4<f32>;
@vertex fn vs(@location(0) {normal}: vec3<f32>, @location(1) a_binormal: vec3<f32>, @location(2) {tangent}: vec4<f32>, @location(3) vertex: vec3<f32>,
@location(4) joints: vec4<u32>, @location(5) weights: vec4<f32>) -> @builtin(position) vec4<f32> {{
    let m = bones[joints.x] * weights.x;
    return view_proj * m * vec4<f32>(vertex + {normal} * 0.0 + a_binormal * 0.0 + {tangent}.xyz * 0.0, 1.0);
}}"
        )
    };
    for (normal, tangent) in [("a_norm", "a_tan"), ("nrm", "in_tgt"), ("vNormal", "tng")] {
        let d = draft("short.wgsl", &shader(normal, tangent)).unwrap();
        for want in [
            "  position: { location: 3, format: vec3 }".to_string(),
            format!("  normal: {{ location: 0 }}   # `{normal}`"),
            format!("  tangent: {{ location: 2 }}   # `{tangent}`"),
        ] {
            assert!(d.yaml.contains(&want), "{want}\n{}", d.yaml);
        }
    }
}

/// A vec4 named the vertex by a word of its own (Panda3D's `p3d_Vertex`) is the position, not
/// another stream of it (`vertex_color`, first here).
#[test]
fn an_input_named_the_vertex_is_the_position() {
    let src = "@group(0) @binding(0) var<uniform> view_proj: mat4x4<f32>;
@group(0) @binding(1) var<storage, read> bones: array<mat4x4<f32>>;
struct Out { @builtin(position) clip: vec4<f32>, @location(0) color: vec4<f32> }
@vertex fn vs(@location(0) vertex_color: vec4<f32>, @location(1) p3d_Vertex: vec4<f32>,
@location(2) joints: vec4<u32>, @location(3) weights: vec4<f32>) -> Out {
  let m = weights.x * bones[joints.x] + weights.y * bones[joints.y];
  var out: Out;
  out.clip = view_proj * m * p3d_Vertex;
  out.color = vertex_color;
  return out;
}
";
    let d = draft("p3d.wgsl", src).unwrap();
    assert!(
        d.yaml.contains("  position: { location: 1, format: vec3 }"),
        "{}",
        d.yaml
    );
    validates("p3d.wgsl", src, &d.yaml).unwrap();
}

/// Influences as `vec2<f32>` (joint, weight) attributes named as bones or weights are drafted as
/// `vertex.pairs`, in the order of the numbers their names end in (naga's `_` after a GLSL name's
/// digit aside), whatever their locations; no `max_influences` beside, though three are read.
#[test]
fn joint_and_weight_pairs_are_drafted_in_their_names_order() {
    let src = "@group(0) @binding(0) var<uniform> view_proj: mat4x4<f32>;
@group(0) @binding(1) var<storage, read> bones: array<mat4x4<f32>>;
struct In {
  @location(0) position: vec3<f32>,
  @location(5) bone_weight0_: vec2<f32>,
  @location(2) bone_weight2_: vec2<f32>,
  @location(3) bone_weight1_: vec2<f32>,
}
fn bone(p: vec2<f32>) -> mat4x4<f32> { return p.y * bones[u32(p.x)]; }
@vertex fn vs(v: In) -> @builtin(position) vec4<f32> {
  let m = bone(v.bone_weight0_) + bone(v.bone_weight1_) + bone(v.bone_weight2_);
  return view_proj * m * vec4<f32>(v.position, 1.0);
}
";
    let d = draft("pairs.wgsl", src).unwrap();
    assert!(
        d.yaml.contains("  pairs: { location: [5, 3, 2] }"),
        "{}",
        d.yaml
    );
    assert!(!d.yaml.contains("max_influences"), "{}", d.yaml);
    assert!(!d.yaml.contains("TODO"), "{}", d.yaml);
    validates("pairs.wgsl", src, &d.yaml).unwrap();
}

/// Without joints, `vec4<f32>` attributes named as weights are two influences each (joint,
/// weight, joint, weight: OpenSceneGraph's `boneWeight0` to `boneWeight3`), drafted as
/// `vertex.pairs` of `format: vec4`; a count tested as more than 0, then more than 2, takes the
/// greater bound, 3, so that every attribute is read.
#[test]
fn two_pairs_a_vec4_are_drafted_as_wide_pairs() {
    let src = "struct Skin { nbBonesPerVertex: i32, matrixPalette: array<mat4x4<f32>, 64> }
@group(0) @binding(0) var<uniform> skin: Skin;
@group(0) @binding(1) var<uniform> view_proj: mat4x4<f32>;
struct In { @location(0) vertex: vec4<f32>, @location(2) boneWeight1: vec4<f32>, @location(1) boneWeight0: vec4<f32> }
fn accumulate(p: ptr<function, vec4<f32>>, w: vec4<f32>, v: vec4<f32>) {
    var b = w;
    for (var i = 0; i < 2; i++) {
        *p += b.y * (skin.matrixPalette[i32(b.x)] * v);
        b = b.zwxy;
    }
}
@vertex fn main(v: In) -> @builtin(position) vec4<f32> {
    var p = vec4<f32>();
    if (skin.nbBonesPerVertex > 0) { accumulate(&p, v.boneWeight0, v.vertex); }
    if (skin.nbBonesPerVertex > 2) { accumulate(&p, v.boneWeight1, v.vertex); }
    return view_proj * p;
}
";
    let d = draft("osg.wgsl", src).unwrap();
    for want in [
        "  pairs: { location: [1, 2], format: vec4 }   # `boneWeight0` to `boneWeight1`: one vec4<f32> two influences",
        "members: { nbBonesPerVertex: 3 }",
    ] {
        assert!(d.yaml.contains(want), "{want}\n{}", d.yaml);
    }
    assert!(!d.yaml.contains("TODO"), "{}", d.yaml);
    validates("osg.wgsl", src, &d.yaml).unwrap();
    // Named as weights alone, they are weights, whose joints are to find.
    let weights = src.replace("boneWeight", "weight");
    let d = draft("weights.wgsl", &weights).unwrap();
    assert!(!d.yaml.contains("pairs:"), "{}", d.yaml);
    // With joints beside them, such vec4s are the weights.
    let joints = src.replace(
        "@location(0) vertex: vec4<f32>,",
        "@location(0) vertex: vec4<f32>, @location(3) joints: vec4<u32>,",
    );
    let d = draft("weights.wgsl", &joints).unwrap();
    assert!(!d.yaml.contains("pairs:"), "{}", d.yaml);
}

/// A compute skinner as naga reads it from glslang's SPIR-V (LÖVR's `animator.comp`): vertex
/// structs of single floats (`x, y, z, nx, ny, nz`, ..., `tx, ty, tz`) in and out, the position
/// by its bare coordinates; the invocation's id kept in a private global and the guard in the
/// function the entry point calls, against the immediate data's `vertexCount`; the output's
/// tangent, which the stage never writes, left out of the output.
#[test]
fn a_skinner_of_float_fields_read_from_spirv() {
    let lovr = r#"
struct Constants { baseVertex: u32, vertexCount: u32 }
struct SkinVertex { indices: u32, weights: u32 }
struct VertexWeights { skin: array<SkinVertex> }
struct JointTransforms { joints: array<mat4x4<f32>, 256> }
struct ModelVertex { x: f32, y: f32, z: f32, nx: f32, ny: f32, nz: f32, u: f32, v: f32, color: u32, tx: f32, ty: f32, tz: f32 }
struct VertexIn { vertexIn: array<ModelVertex> }
struct VertexOut { vertexOut: array<ModelVertex> }
var<private> gl_GlobalInvocationID_1: vec3<u32>;
var<immediate> unnamed: Constants;
@group(0) @binding(2) var<storage> unnamed_1: VertexWeights;
@group(0) @binding(3) var<uniform> unnamed_2: JointTransforms;
@group(0) @binding(0) var<storage> unnamed_3: VertexIn;
@group(0) @binding(1) var<storage, read_write> unnamed_4: VertexOut;
fn main_1() {
    var skinned: vec3<f32>;
    var skinnedNormal: vec3<f32>;
    let _e40 = gl_GlobalInvocationID_1[0u];
    let _e42 = unnamed.vertexCount;
    if (_e40 >= _e42) {
        return;
    }
    let i = unnamed.baseVertex + gl_GlobalInvocationID_1[0u];
    let indices = unnamed_1.skin[i].indices;
    let weights = unpack4x8unorm(unnamed_1.skin[i].weights);
    var matrix = unnamed_2.joints[indices & 255u] * weights[0u];
    matrix += unnamed_2.joints[(indices >> 8u) & 255u] * weights[1u];
    matrix += unnamed_2.joints[(indices >> 16u) & 255u] * weights[2u];
    matrix += unnamed_2.joints[(indices >> 24u) & 255u] * weights[3u];
    let v = unnamed_3.vertexIn[i];
    skinned = (matrix * vec4<f32>(v.x, v.y, v.z, 1f)).xyz;
    unnamed_4.vertexOut[i].x = skinned[0u];
    unnamed_4.vertexOut[i].y = skinned[1u];
    unnamed_4.vertexOut[i].z = skinned[2u];
    skinnedNormal = mat3x3<f32>(matrix[0].xyz, matrix[1].xyz, matrix[2].xyz) * vec3<f32>(v.nx, v.ny, v.nz);
    unnamed_4.vertexOut[i].nx = skinnedNormal[0u];
    unnamed_4.vertexOut[i].ny = skinnedNormal[1u];
    unnamed_4.vertexOut[i].nz = skinnedNormal[2u];
}
@compute @workgroup_size(32, 1, 1)
fn main(@builtin(global_invocation_id) gl_GlobalInvocationID: vec3<u32>) {
    gl_GlobalInvocationID_1 = gl_GlobalInvocationID;
    main_1();
}
"#;
    let d = draft("lovr.wgsl", lovr).unwrap();
    for want in [
        "  vertices: { group: 0, binding: 0, position: 0, normal: 12, tangent: 36, tangent_format: vec3 }",
        "  output: { group: 0, binding: 1, position: 0, normal: 12 }\n",
        "immediates: { count: vertexCount }",
        "\nframe_length: any\n",
    ] {
        assert!(d.yaml.contains(want), "{want}\n{}", d.yaml);
    }
    assert!(!d.yaml.contains("TODO"), "{}", d.yaml);
    validates("lovr.wgsl", lovr, &d.yaml).unwrap();
    // The tangent written too: skinned into the output.
    let tangent = lovr.replace(
        "    unnamed_4.vertexOut[i].nz = skinnedNormal[2u];\n",
        "    unnamed_4.vertexOut[i].nz = skinnedNormal[2u];\n    unnamed_4.vertexOut[i].tx = (matrix * vec4<f32>(v.tx, v.ty, v.tz, 0f)).x;\n",
    );
    let d = draft("tangent.wgsl", &tangent).unwrap();
    assert!(
        d.yaml.contains("  output: { group: 0, binding: 1, position: 0, normal: 12, tangent: 36, tangent_format: vec3 }"),
        "{}",
        d.yaml
    );
    // A vector member written lane by lane (`dst[i].normal.x = ..`) is written.
    let lanes = r#"
struct V { position: vec4<f32>, normal: vec4<f32> }
@group(0) @binding(0) var<storage> src: array<V>;
@group(0) @binding(1) var<storage, read_write> dst: array<V>;
@group(0) @binding(2) var<storage> joints: array<vec4<u32>>;
@group(0) @binding(3) var<storage> weights: array<vec4<f32>>;
@group(0) @binding(4) var<storage> bones: array<mat4x4<f32>>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= arrayLength(&src)) { return; }
    let m = bones[joints[i].x] * weights[i].x + bones[joints[i].y] * weights[i].y;
    dst[i].position = m * vec4<f32>(src[i].position.xyz, 1.0);
    let n = normalize((m * vec4<f32>(src[i].normal.xyz, 0.0)).xyz);
    dst[i].normal.x = n.x;
    dst[i].normal.y = n.y;
    dst[i].normal.z = n.z;
}
"#;
    let d = draft("lanes.wgsl", lanes).unwrap();
    assert!(
        d.yaml
            .contains("  output: { group: 0, binding: 1, position: position, normal: normal }"),
        "{}",
        d.yaml
    );
}

/// A vertex stage as naga reads it from glslang's SPIR-V (Urho3D's `LitSolid` with `SKINNED`):
/// its palette three `vec4<f32>` rows a joint in a block's member beside the model matrix, read
/// at a lane of a vector of indices times a vector of 3 (`ivec4 idx = ivec4(indices) * 3`); its
/// inputs kept in private globals that the functions it calls read, and the matrix passed to
/// them by pointer (`&param`): the skinned normal is the output those carry, though naga names
/// it `member`.
#[test]
fn a_slot_palette_in_a_blocks_member_read_from_spirv() {
    let urho = r#"
struct ObjectVS { cModel: mat4x4<f32>, cSkinMatrices: array<vec4<f32>, 192> }
struct CameraVS { cViewProj: mat4x4<f32> }
struct VertexOutput { @builtin(position) gl_Position: vec4<f32>, @location(1) member: vec3<f32> }
@group(0) @binding(2) var<uniform> unnamed: ObjectVS;
@group(0) @binding(0) var<uniform> unnamed_2: CameraVS;
var<private> iPos_1: vec4<f32>;
var<private> iNormal_1: vec3<f32>;
var<private> iBlendWeights_1: vec4<f32>;
var<private> iBlendIndices_1: vec4<f32>;
var<private> gl_Position: vec4<f32>;
var<private> vNormal: vec3<f32>;
fn GetSkinMatrix(blendWeights: ptr<function, vec4<f32>>, blendIndices: ptr<function, vec4<f32>>) -> mat4x4<f32> {
    var idx: vec4<i32>;
    idx = vec4<i32>(*blendIndices) * vec4(3i);
    let last = vec4<f32>(0f, 0f, 0f, 1f);
    var m = mat4x4<f32>();
    for (var k = 0u; k < 4u; k++) {
        let j = idx[k];
        m += mat4x4<f32>(unnamed.cSkinMatrices[j], unnamed.cSkinMatrices[j + 1i], unnamed.cSkinMatrices[j + 2i], last) * (*blendWeights)[k];
    }
    return m;
}
fn GetWorldNormal(modelMatrix: ptr<function, mat4x4<f32>>) -> vec3<f32> {
    let m = *modelMatrix;
    return normalize(iNormal_1 * mat3x3<f32>(m[0].xyz, m[1].xyz, m[2].xyz));
}
fn main_1() {
    var param_1: vec4<f32>;
    var param_2: vec4<f32>;
    var param_5: mat4x4<f32>;
    param_1 = iBlendWeights_1;
    param_2 = iBlendIndices_1;
    let model = GetSkinMatrix(&param_1, &param_2);
    gl_Position = unnamed_2.cViewProj * vec4<f32>((iPos_1 * model).xyz, 1f);
    param_5 = model;
    vNormal = GetWorldNormal(&param_5);
}
@vertex
fn main(@location(0) iPos: vec4<f32>, @location(1) iNormal: vec3<f32>, @location(3) iBlendWeights: vec4<f32>, @location(4) iBlendIndices: vec4<f32>) -> VertexOutput {
    iPos_1 = iPos;
    iNormal_1 = iNormal;
    iBlendWeights_1 = iBlendWeights;
    iBlendIndices_1 = iBlendIndices;
    main_1();
    return VertexOutput(gl_Position, vNormal);
}
"#;
    let d = draft("urho.wgsl", urho).unwrap();
    for want in [
        "palette: { group: 0, binding: 2, form: uniform, member: cSkinMatrices, fill: identity, matrix: rows }",
        "vec4<f32> slots read at a joint's index times 3",
        "  skinned_normal: { location: 1 }   # the output `member` carries the source normal moved by the palette",
        "normal_matrix: blended",
    ] {
        assert!(d.yaml.contains(want), "{want}\n{}", d.yaml);
    }
    assert!(!d.yaml.contains("TODO"), "{}", d.yaml);
    validates("urho.wgsl", urho, &d.yaml).unwrap();
}

/// Three vec4 a joint the stage rebuilds as columns (`vec4(v1.xyz, 0)`), the last gathered from
/// their w, are its columns with the translation in w (Cocos Creator's); rows turned into
/// columns down their x lanes, whose w give the translation too, stay `rows`. Through local
/// variables (naga's reading of GLSL keeps them so) as through `let`s.
#[test]
fn slots_with_a_translation_in_w_are_drafted_as_columns() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let cocos =
        std::fs::read_to_string(root.join("shaders/examples/vertex_column_joints.wgsl")).unwrap();
    let matrix = |src: &str| {
        let y = draft("slots.wgsl", src).unwrap().yaml;
        let line = y
            .lines()
            .find(|l| l.starts_with("palette:"))
            .unwrap()
            .to_string();
        ["columns_translation", "rows"]
            .into_iter()
            .find(|m| line.contains(&format!("matrix: {m}")))
            .unwrap_or("columns")
    };
    assert_eq!(matrix(&cocos), "columns_translation");
    let locals = cocos
        .replace("let v1 =", "var v1 =")
        .replace("let v2 =", "var v2 =")
        .replace("let v3 =", "var v3 =");
    assert_eq!(matrix(&locals), "columns_translation");
    // Each column's lanes one by one, as naga's reading of GLSL spells `vec4(v1.xyz, 0.0)`.
    let lanes = cocos.replace("vec4<f32>(v1.xyz, 0.0)", "vec4<f32>(v1.x, v1.y, v1.z, 0.0)");
    assert_ne!(lanes, cocos);
    assert_eq!(matrix(&lanes), "columns_translation");
    let rows = cocos.replace(
        "vec4<f32>(v1.xyz, 0.0),\n        vec4<f32>(v2.xyz, 0.0),\n        vec4<f32>(v3.xyz, 0.0),",
        "vec4<f32>(v1.x, v2.x, v3.x, 0.0),\n        vec4<f32>(v1.y, v2.y, v3.y, 0.0),\n        vec4<f32>(v1.z, v2.z, v3.z, 0.0),",
    );
    assert_ne!(rows, cocos);
    assert_eq!(matrix(&rows), "rows");
}

/// A stage that applies its matrices transposed drafts them stored by rows: row vectors (`p * m`)
/// or `transpose(m) * p` give `matrix: rows` to the palette and the camera each; a transpose and a
/// row vector together (glslang's reading of HLSL) cancel, and `m * p` gives none.
#[test]
fn matrices_applied_transposed_are_drafted_by_rows() {
    let shader = |blend: &str, apply: &str| {
        format!(
            "@group(0) @binding(0) var<uniform> view_proj: mat4x4<f32>;
@group(0) @binding(1) var<storage, read> bones: array<mat4x4<f32>>;
@vertex fn vs(@location(0) position: vec3<f32>, @location(1) j: vec4<u32>, @location(2) w: vec4<f32>) -> @builtin(position) vec4<f32> {{
    let skin = {blend};
    let p = vec4<f32>(position, 1.0);
    return {apply};
}}"
        )
    };
    let plain = "bones[j.x] * w.x + bones[j.y] * w.y";
    let transposed = "transpose(bones[j.x]) * w.x + transpose(bones[j.y]) * w.y";
    let rows = |palette: bool, camera: bool| {
        (
            format!(
                "palette: {{ group: 0, binding: 1, form: storage{} }}",
                if palette { ", matrix: rows" } else { "" }
            ),
            format!(
                "  camera: {{ group: 0, binding: 0, form: matrix{} }}",
                if camera { ", matrix: rows" } else { "" }
            ),
        )
    };
    for (blend, apply, (palette, camera)) in [
        (plain, "p * skin * view_proj", rows(true, true)),
        (transposed, "view_proj * (skin * p)", rows(true, false)),
        (
            transposed,
            "(p * skin) * transpose(view_proj)",
            rows(false, false),
        ),
        (plain, "view_proj * skin * p", rows(false, false)),
    ] {
        let src = shader(blend, apply);
        let d = draft("rows.wgsl", &src).unwrap();
        assert!(
            d.yaml.contains(&format!("{palette}\n")) && d.yaml.contains(&format!("{camera}\n")),
            "{apply}: {palette} / {camera}\n{}",
            d.yaml
        );
        validates("rows.wgsl", &src, &d.yaml).unwrap();
    }
}

/// Blocks naga leaves unnamed when it reads SPIR-V (`unnamed`, `unnamed_3`) are named by their
/// struct's one member (`dst_pos`), and a skinned output stored as the blended matrix times a
/// point (`m * vec4(p, 1.0)`) is drafted `w: 1`; a named block keeps its own name.
#[test]
fn unnamed_blocks_are_named_by_their_member() {
    let source = |output: &str| {
        format!(
            "struct Bones {{ bones: array<mat4x4<f32>> }}
struct Positions {{ positions: array<vec4<f32>> }}
struct Joints {{ joints: array<vec4<u32>> }}
struct Weights {{ weights: array<vec4<f32>> }}
struct Dst {{ dst_pos: array<vec4<f32>> }}
struct Params {{ vertex_count: u32 }}
@group(0) @binding(0) var<storage> unnamed: Bones;
@group(0) @binding(1) var<storage> unnamed_1: Positions;
@group(0) @binding(2) var<storage> unnamed_2: Joints;
@group(0) @binding(3) var<storage> unnamed_4: Weights;
@group(0) @binding(4) var<storage, read_write> {output}: Dst;
@group(0) @binding(5) var<uniform> unnamed_5: Params;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3<u32>) {{
    let i = id.x;
    if (i >= unnamed_5.vertex_count) {{ return; }}
    let j = unnamed_2.joints[i];
    let w = unnamed_4.weights[i];
    let m = unnamed.bones[j.x] * w.x + unnamed.bones[j.y] * w.y;
    {output}.dst_pos[i] = m * vec4<f32>(unnamed_1.positions[i].xyz, 1.0);
}}"
        )
    };
    let d = draft("blocks.wgsl", &source("unnamed_3")).unwrap();
    for want in [
        "  # `dst_pos` is stored as a point, w 1 (`vec4(skinned, 1.0)`, or a matrix times a stored point of w 1)",
        "  skinned: { group: 0, binding: 4, format: vec4, w: 1 }",
        "  count: { group: 0, binding: 5 }",
    ] {
        assert!(d.yaml.contains(want), "{want}\n{}", d.yaml);
    }
    assert_eq!(d.todos, 0, "{}", d.yaml);
    validates("blocks.wgsl", &source("unnamed_3"), &d.yaml).unwrap();
    // A block named by the shader: its own name, which says nothing here.
    let d = draft("named.wgsl", &source("mesh_block")).unwrap();
    assert!(!d.yaml.contains("  skinned: {"), "{}", d.yaml);
}

/// A stored vec4 position multiplied as it is (three-rs's `matrix * v.position`) drafts
/// `position_w: 1`, and an output stored as `vec4(p, 1.0)` its `w: 1`; a position whose w the
/// shader composes itself drafts no `position_w`.
#[test]
fn a_stored_position_multiplied_whole_is_a_point() {
    let source = r#"
struct Vertex { position: vec4<f32>, joints: vec4<f32>, weights: vec4<f32> }
@group(0) @binding(0) var<storage, read> vertices: array<Vertex>;
@group(0) @binding(1) var<storage, read> palette: array<mat4x4<f32>>;
@group(0) @binding(2) var<storage, read_write> positions: array<vec4<f32>>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if i >= arrayLength(&vertices) { return; }
    let v = vertices[i];
    let j = vec4<u32>(v.joints);
    let matrix = palette[j.x] * v.weights.x + palette[j.y] * v.weights.y;
    positions[i] = vec4(POINT.xyz, 1.0);
}
"#;
    let whole = source.replace("POINT", "(matrix * v.position)");
    let d = draft("whole.wgsl", &whole).unwrap();
    assert!(d.yaml.contains("\nposition_w: 1\n"), "{}", d.yaml);
    // Its output stored as vec4(p, 1.0): a point's w.
    assert!(
        d.yaml
            .contains("  skinned: { group: 0, binding: 2, format: vec4, w: 1 }"),
        "{}",
        d.yaml
    );
    assert_eq!(contract(&d.yaml).position_w, crate::format::PositionW::One);
    let own = source.replace("POINT", "(matrix * vec4<f32>(v.position.xyz, 1.0))");
    let d = draft("own.wgsl", &own).unwrap();
    assert!(!d.yaml.contains("position_w"), "{}", d.yaml);
    // A typed array of positions, through a local variable.
    let typed = r#"
@group(0) @binding(0) var<storage, read> positions: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> joints: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> weights: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> bones: array<mat4x4<f32>>;
@group(0) @binding(4) var<storage, read_write> skinned: array<vec4<f32>>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if i >= arrayLength(&positions) { return; }
    var p = positions[i];
    skinned[i] = bones[joints[i].x] * p * weights[i].x;
}
"#;
    let d = draft("typed.wgsl", typed).unwrap();
    assert!(d.yaml.contains("\nposition_w: 1\n"), "{}", d.yaml);
}

/// An output of bare floats stored at `i * k + c` (dream-engine's 24 floats a vertex): a slot is
/// a word, so the stride is 4k bytes and each field a run of consecutive words; a run of 3 words
/// is no byte-addressed tangent (4 floats), said so and left out.
#[test]
fn an_output_of_float_words_is_drafted_by_runs() {
    let source = r#"
struct Params { count: u32, pad0: u32, pad1: u32, pad2: u32 }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> positions: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> normals: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> tangents: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read> joints: array<vec4<u32>>;
@group(0) @binding(5) var<storage, read> weights: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read> palette: array<mat4x4<f32>>;
@group(0) @binding(7) var<storage, read_write> skinned: array<f32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= params.count) { return; }
    let m = palette[joints[i].x] * weights[i].x;
    let p = m * vec4<f32>(positions[i].xyz, 1.0);
    let n = normalize((m * vec4<f32>(normals[i].xyz, 0.0)).xyz);
    let t = normalize((m * vec4<f32>(tangents[i].xyz, 0.0)).xyz);
    skinned[i * 24u] = p.x;
    skinned[i * 24u + 1u] = p.y;
    skinned[i * 24u + 2u] = p.z;
    skinned[i * 24u + 5u] = n.x;
    skinned[i * 24u + 6u] = n.y;
    skinned[i * 24u + 7u] = n.z;
    skinned[i * 24u + 8u] = t.x;
    skinned[i * 24u + 9u] = t.y;
    skinned[i * 24u + 10u] = t.z;
}
"#;
    let d = draft("words.wgsl", source).unwrap();
    for want in [
        "output: { group: 0, binding: 7, stride: 96, position: 0, normal: 20 }",
        "24 words a vertex",
        "# the 3 words from slot 8 are not drafted as the tangent: a byte-addressed tangent is 4 floats",
    ] {
        assert!(d.yaml.contains(want), "{want}\n{}", d.yaml);
    }
    contract(&d.yaml);
}

/// The fragment stage is kept where it returns a constant alpha above 0, and left out, said so,
/// where its alpha comes from data the harness fills (a per-instance tint), which zeros would
/// make transparent, so no pixel would count as covered.
#[test]
fn a_fragment_whose_alpha_the_fills_reach_is_left_out() {
    let source = r#"
@group(0) @binding(0) var<storage, read> bones: array<mat4x4<f32>>;
@group(1) @binding(0) var<uniform> view_proj: mat4x4<f32>;
@group(1) @binding(1) var<uniform> tint: vec4<f32>;
struct Out { @builtin(position) clip: vec4<f32>, @location(0) shade: f32 }
@vertex fn vs(@location(0) position: vec3<f32>, @location(1) joints: vec4<u32>, @location(2) weights: vec4<f32>) -> Out {
    var out: Out;
    out.clip = view_proj * (bones[joints.x] * weights.x) * vec4<f32>(position, 1.0);
    out.shade = 0.5;
    return out;
}
@fragment fn fs(i: Out) -> @location(0) vec4<f32> { return ALPHA; }
"#;
    let opaque = source.replace("ALPHA", "vec4<f32>(i.shade, i.shade, i.shade, 1.0)");
    let d = draft("opaque.wgsl", &opaque).unwrap();
    assert!(
        d.yaml.contains("  fragment: fs   # its own colours"),
        "{}",
        d.yaml
    );
    let tinted = source.replace("ALPHA", "tint * i.shade");
    let d = draft("tinted.wgsl", &tinted).unwrap();
    assert!(
        d.yaml.contains("# fragment stage `fs` left out: it returns a colour whose alpha is no constant above 0"),
        "{}",
        d.yaml
    );
    assert!(!d.yaml.contains("  fragment: fs"), "{}", d.yaml);
    contract(&d.yaml);
}

/// A bone texture whose joint indices are multiplied by twice a joint's matrix texels (the glTF
/// Sample Viewer's: 4 texels of matrix, then 4 of normal matrix) drafts `normal_texels`, and
/// so the per-joint normals; one multiplied by its matrix's texels alone does not.
#[test]
fn a_joint_stride_of_two_matrices_is_the_normal_texels() {
    let source = r#"
@group(0) @binding(0) var<uniform> view_proj: mat4x4<f32>;
@group(1) @binding(0) var joint_texture: texture_2d<f32>;
fn texture_matrix(first: u32) -> mat4x4<f32> {
    let width = textureDimensions(joint_texture).x;
    var m: mat4x4<f32>;
    for (var c = 0u; c < 4u; c++) {
        let t = first + c;
        m[c] = textureLoad(joint_texture, vec2<u32>(t % width, t / width), 0);
    }
    return m;
}
struct In { @location(0) position: vec3<f32>, @location(1) normal: vec3<f32>, @location(3) joints: vec4<u32>, @location(4) weights: vec4<f32> }
struct Out { @builtin(position) clip: vec4<f32>, @location(0) normal: vec3<f32> }
@vertex fn vs(v: In) -> Out {
    let first = v.joints.x * STRIDEu;
    var out: Out;
    out.clip = view_proj * texture_matrix(first) * vec4<f32>(v.position, 1.0);
    out.normal = normalize((texture_matrix(first + 4u) * vec4<f32>(v.normal, 0.0)).xyz);
    return out;
}
"#;
    let d = draft("joint_texture.wgsl", &source.replace("STRIDE", "8")).unwrap();
    assert!(
        d.yaml.contains("texels: 4, normal_texels: 4,"),
        "{}",
        d.yaml
    );
    assert_eq!(
        contract(&d.yaml).normal_matrix,
        crate::format::NormalMatrix::PerJoint
    );
    let d = draft("plain.wgsl", &source.replace("STRIDE", "4")).unwrap();
    assert!(!d.yaml.contains("normal_texels"), "{}", d.yaml);
    // Twice the index, a matrix's texels on from it in the reader (Qt Quick 3D's).
    let qt = source
        .replace(
            "fn texture_matrix(first: u32)",
            "fn texture_matrix(index: u32)",
        )
        .replace("let t = first + c;", "let t = index * 4u + c;")
        .replace(
            "let first = v.joints.x * STRIDEu;",
            "let first = v.joints.x * 2u;",
        )
        .replace("texture_matrix(first + 4u)", "texture_matrix(first + 1u)");
    let d = draft("qt.wgsl", &qt).unwrap();
    assert!(
        d.yaml.contains("texels: 4, normal_texels: 4,"),
        "{}",
        d.yaml
    );
}

/// Directions packed into integer members (blade's vertex: `normal: u32`, `tangent: u32`, read
/// by `unpack4x8snorm`) are drafted in the packing the shader calls, a tangent whose unpacked w
/// nothing reads as `tangent_format: vec3`; the member named `tangent` is the tangent, not the
/// `bitangent_sign` before it. The draft validates against the shader.
#[test]
fn packed_directions_take_the_encoding_the_shader_unpacks() {
    let blade = r#"
struct Vertex { position: vec3<f32>, bitangent_sign: f32, uv: vec2<f32>, normal: u32, tangent: u32 }
struct Skin { joints: u32, weights: u32 }
@group(0) @binding(0) var<storage> bones: array<mat4x4<f32>>;
@group(0) @binding(1) var<storage> source: array<Vertex>;
@group(0) @binding(2) var<storage> skins: array<Skin>;
@group(0) @binding(3) var<storage, read_write> destination: array<Vertex>;
fn decode(raw: u32) -> vec3<f32> { return unpack4x8snorm(raw).xyz; }
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if i >= arrayLength(&source) { return; }
    var v = source[i];
    let j = (vec4<u32>(skins[i].joints) >> vec4<u32>(0u, 8u, 16u, 24u)) & vec4<u32>(0xffu);
    let w = unpack4x8unorm(skins[i].weights);
    let m = bones[j.x] * w.x + bones[j.y] * w.y + bones[j.z] * w.z + bones[j.w] * w.w;
    v.position = (m * vec4<f32>(v.position, 1.0)).xyz;
    v.normal = pack4x8snorm(vec4<f32>(normalize((m * vec4<f32>(decode(v.normal), 0.0)).xyz), 0.0));
    v.tangent = pack4x8snorm(vec4<f32>(normalize((m * vec4<f32>(decode(v.tangent), 0.0)).xyz), 0.0));
    destination[i] = v;
}
"#;
    let d = draft("blade.wgsl", blade).unwrap();
    let fields = "position: position, normal: normal, normal_encoding: snorm8, tangent: tangent, tangent_encoding: snorm8, tangent_format: vec3 }";
    for want in [
        format!("  vertices: {{ group: 0, binding: 1, {fields}"),
        format!("  output: {{ group: 0, binding: 3, {fields}"),
    ] {
        assert!(d.yaml.contains(&want), "{want}\n{}", d.yaml);
    }
    let valid = validates("blade.wgsl", blade, &d.yaml);
    assert!(valid.is_ok(), "{valid:?}\n{}", d.yaml);
    // The tangent's w read back (its handedness kept): a vec4 tangent.
    let handed = blade.replace(
        "normalize((m * vec4<f32>(decode(v.tangent), 0.0)).xyz), 0.0)",
        "normalize((m * vec4<f32>(decode(v.tangent), 0.0)).xyz), unpack4x8snorm(v.tangent).w)",
    );
    let d = draft("handed.wgsl", &handed).unwrap();
    assert!(
        d.yaml
            .contains("tangent: tangent, tangent_encoding: snorm8 }"),
        "{}",
        d.yaml
    );
    // Biased unorm bytes (`unpack4x8unorm(raw) * 2.0 - 1.0`), the tangent's w unread: unorm8,
    // a vec3 tangent; the weights' unbiased unorm bytes, read lane by lane, change nothing.
    let unorm = blade
        .replace(
            "unpack4x8snorm(raw).xyz",
            "(unpack4x8unorm(raw) * 2.0 - 1.0).xyz",
        )
        .replace(".xyz), 0.0));", ".xyz), 0.0) * 0.5 + 0.5);")
        .replace("pack4x8snorm(", "pack4x8unorm(");
    assert_eq!(unorm.matches("* 0.5 + 0.5").count(), 2, "{unorm}");
    let y = draft("unorm.wgsl", &unorm).unwrap().yaml;
    let fields = fields.replace("snorm8", "unorm8");
    assert_eq!(y.matches(&fields).count(), 2, "{fields}\n{y}");
    // Two words a direction, as `pack2x16float` writes them: f16.
    let half = blade
        .replace("normal: u32, tangent: u32", "normal: vec2<u32>, tangent: vec2<u32>")
        .replace(
            "fn decode(raw: u32) -> vec3<f32> { return unpack4x8snorm(raw).xyz; }",
            "fn decode(raw: vec2<u32>) -> vec3<f32> { return vec3<f32>(unpack2x16float(raw.x), unpack2x16float(raw.y).x); }\nfn encode(n: vec3<f32>) -> vec2<u32> { return vec2<u32>(pack2x16float(n.xy), pack2x16float(vec2<f32>(n.z, 0.0))); }",
        )
        .replace("pack4x8snorm(vec4<f32>(normalize", "encode((normalize")
        .replace(".xyz), 0.0));", ".xyz)));");
    let d = draft("half.wgsl", &half).unwrap();
    assert!(
        d.yaml.contains(
            "normal: normal, normal_encoding: f16, tangent: tangent, tangent_encoding: f16 }"
        ),
        "{}",
        d.yaml
    );
    let valid = validates("half.wgsl", &half, &d.yaml);
    assert!(valid.is_ok(), "{valid:?}\n{}", d.yaml);
}

/// Normal and tangent streams of their own in integer words the shader unpacks: each a stream of
/// one packed direction an element, its stride the element's and its encoding the unpacking
/// builtin's; a snorm8 normal stream read and written is skinned in place. The draft validates.
#[test]
fn packed_frame_streams_take_their_elements_and_encodings() {
    let source = r#"
@group(0) @binding(0) var<storage, read> bones: array<mat4x4<f32>>;
@group(0) @binding(1) var<storage, read> positions: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> joints: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read> weights: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read_write> skinned: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read_write> normals: array<u32>;
@group(0) @binding(6) var<storage, read> tangents: array<vec2<u32>>;
@group(0) @binding(7) var<storage, read_write> skinned_tangents: array<vec2<u32>>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if i >= arrayLength(&positions) { return; }
    let j = joints[i];
    let w = weights[i];
    let m = bones[j.x] * w.x + bones[j.y] * w.y + bones[j.z] * w.z + bones[j.w] * w.w;
    skinned[i] = vec4<f32>((m * vec4<f32>(positions[i].xyz, 1.0)).xyz, 0.0);
    let n = normalize((m * vec4<f32>(unpack4x8snorm(normals[i]).xyz, 0.0)).xyz);
    normals[i] = pack4x8snorm(vec4<f32>(n, 0.0));
    let t = vec4<f32>(unpack2x16snorm(tangents[i].x), unpack2x16snorm(tangents[i].y));
    let s = normalize((m * vec4<f32>(t.xyz, 0.0)).xyz);
    skinned_tangents[i] = vec2<u32>(pack2x16snorm(s.xy), pack2x16snorm(vec2<f32>(s.z, t.w)));
}
"#;
    let d = draft("streams.wgsl", source).unwrap();
    for want in [
        "  normals: { group: 0, binding: 5, stride: 4, encoding: snorm8 }",
        "  skinned_normals: { group: 0, binding: 5, stride: 4, encoding: snorm8 }",
        "  tangents: { group: 0, binding: 6, stride: 8, encoding: snorm16 }",
        "  skinned_tangents: { group: 0, binding: 7, stride: 8, encoding: snorm16 }",
    ] {
        assert!(d.yaml.contains(want), "{want}\n{}", d.yaml);
    }
    let valid = validates("streams.wgsl", source, &d.yaml);
    assert!(valid.is_ok(), "{valid:?}\n{}", d.yaml);
}

/// A vertex struct whose joints and weights are four scalars each in a row (`j0`..`j3` u32s,
/// `w0`..`w3` f32s), and a `vec4<u32>` uniform of parameters whose x bounds the invocations: the
/// split runs are `u32x4` joints and `f32x4` weights at their first members, the vector the
/// count. The draft validates.
#[test]
fn joints_and_weights_split_into_scalars_and_a_vector_count() {
    let source = r#"
struct Rest { px: f32, py: f32, pz: f32, w0: f32, w1: f32, w2: f32, w3: f32, j0: u32, j1: u32, j2: u32, j3: u32 }
struct Out { px: f32, py: f32, pz: f32 }
@group(0) @binding(0) var<storage, read> rest: array<Rest>;
@group(0) @binding(1) var<storage, read> bones: array<mat4x4<f32>>;
@group(0) @binding(2) var<storage, read_write> skinned: array<Out>;
@group(0) @binding(3) var<uniform> params: vec4<u32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if i >= params.x { return; }
    let v = rest[i];
    let m = bones[v.j0] * v.w0 + bones[v.j1] * v.w1 + bones[v.j2] * v.w2 + bones[v.j3] * v.w3;
    let p = (m * vec4<f32>(v.px, v.py, v.pz, 1.0)).xyz;
    skinned[i] = Out(p.x, p.y, p.z);
}
"#;
    let d = draft("split.wgsl", source).unwrap();
    for want in [
        "joints: { offset: j0, format: u32x4 }, weights: { offset: w0, format: f32x4 } }",
        "  count: { group: 0, binding: 3 }",
    ] {
        assert!(d.yaml.contains(want), "{want}\n{}", d.yaml);
    }
    let valid = validates("split.wgsl", source, &d.yaml);
    assert!(valid.is_ok(), "{valid:?}\n{}", d.yaml);
}

/// Directions rebuilt from vector members of a filled buffer (a normal matrix's rows kept as
/// vec4s and dotted into each lane; a basis's columns scaled by each lane, dead-signal's
/// `to_world_x`): each member drafted as the identity's basis vector, where a zero fill would
/// collapse the direction.
#[test]
fn basis_vectors_in_filled_buffers_are_the_identitys() {
    let source = r#"
struct Frame { r0: vec4<f32>, r1: vec4<f32>, r2: vec4<f32>, cx: vec4<f32>, cy: vec4<f32>, cz: vec4<f32>, tint: vec4<f32> }
@group(0) @binding(0) var<storage, read> bones: array<mat4x4<f32>>;
@group(0) @binding(1) var<uniform> view_proj: mat4x4<f32>;
@group(0) @binding(2) var<uniform> frame: Frame;
struct Out { @builtin(position) clip: vec4<f32>, @location(0) normal: vec3<f32>, @location(1) tangent: vec3<f32> }
@vertex fn vs(@location(0) position: vec3<f32>, @location(1) normal: vec3<f32>, @location(2) tangent: vec3<f32>,
@location(3) joints: vec4<u32>, @location(4) weights: vec4<f32>) -> Out {
    let m = bones[joints.x] * weights.x + bones[joints.y] * weights.y;
    let n = normalize((m * vec4<f32>(normal, 0.0)).xyz);
    let t = normalize((m * vec4<f32>(tangent, 0.0)).xyz);
    var out: Out;
    out.clip = view_proj * m * vec4<f32>(position, 1.0);
    out.normal = vec3<f32>(dot(frame.r0.xyz, n), dot(frame.r1.xyz, n), dot(frame.r2.xyz, n));
    out.tangent = frame.cx.xyz * t.x + frame.cy.xyz * t.y + frame.cz.xyz * t.z + frame.tint.xyz * 0.0;
    return out;
}
"#;
    let d = draft("basis.wgsl", source).unwrap();
    let want = "members: { r0: [1, 0, 0, 0], r1: [0, 1, 0, 0], r2: [0, 0, 1, 0], cx: [1, 0, 0, 0], cy: [0, 1, 0, 0], cz: [0, 0, 1, 0] } }";
    assert!(d.yaml.contains(want), "{}", d.yaml);
    assert!(!d.yaml.contains("tint:"), "{}", d.yaml);
    let valid = validates("basis.wgsl", source, &d.yaml);
    assert!(valid.is_ok(), "{valid:?}\n{}", d.yaml);
}

/// Bare words holding a direction packed in one word each (`unpack4x8snorm(src[b + 3u])`): the
/// words trace places them as one-word fields in snorm8, in the vertices and, where the stage
/// packs them again, in the output; a tangent whose unpacked w is read keeps its handedness; in
/// the 16-bit packings, two-word fields. The drafts validate.
#[test]
fn words_of_packed_directions_are_fields_in_their_encoding() {
    let source = r#"
@group(0) @binding(0) var<storage, read> bones: array<mat4x4<f32>>;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;
@group(0) @binding(3) var<uniform> count: vec4<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= count.x) {
        return;
    }
    let b = i * 11u;
    let position = vec3<f32>(bitcast<f32>(src[b]), bitcast<f32>(src[b + 1u]), bitcast<f32>(src[b + 2u]));
    let normal = unpack4x8snorm(src[b + 3u]).xyz;
    let tangent = unpack4x8snorm(src[b + 4u]);
    let j01 = src[b + 5u];
    let j23 = src[b + 6u];
    let joints = vec4<u32>(j01 & 0xffffu, j01 >> 16u, j23 & 0xffffu, j23 >> 16u);
    let weights = vec4<f32>(bitcast<f32>(src[b + 7u]), bitcast<f32>(src[b + 8u]), bitcast<f32>(src[b + 9u]), bitcast<f32>(src[b + 10u]));
    let m = bones[joints.x] * weights.x + bones[joints.y] * weights.y + bones[joints.z] * weights.z + bones[joints.w] * weights.w;
    let p = (m * vec4<f32>(position, 1.0)).xyz;
    let n = normalize((m * vec4<f32>(normal, 0.0)).xyz);
    let t = normalize((m * vec4<f32>(tangent.xyz, 0.0)).xyz);
    let o = i * 5u;
    dst[o] = bitcast<u32>(p.x);
    dst[o + 1u] = bitcast<u32>(p.y);
    dst[o + 2u] = bitcast<u32>(p.z);
    dst[o + 3u] = pack4x8snorm(vec4<f32>(n, 0.0));
    dst[o + 4u] = pack4x8snorm(vec4<f32>(t, tangent.w));
}
"#;
    let d = draft("words.wgsl", source).unwrap();
    for want in [
        "  vertices: { group: 0, binding: 1, stride: 44, position: 0, normal: 12, normal_encoding: snorm8, tangent: 16, tangent_encoding: snorm8, joints: { offset: 20, format: u16x4 }, weights: { offset: 28, format: f32x4 } }",
        "  output: { group: 0, binding: 2, stride: 20, position: 0, normal: 12, normal_encoding: snorm8, tangent: 16, tangent_encoding: snorm8 }",
    ] {
        assert!(d.yaml.contains(want), "{want}\n{}", d.yaml);
    }
    let valid = validates("words.wgsl", source, &d.yaml);
    assert!(valid.is_ok(), "{valid:?}\n{}", d.yaml);
    // The 16-bit packings, two words a direction (`unpack2x16float` for the normal,
    // `unpack2x16snorm` for the tangent): two-word f16 and snorm16 fields, 13 words a vertex.
    let half = source
        .replace("i * 11u", "i * 13u")
        .replace(
            "unpack4x8snorm(src[b + 3u]).xyz",
            "vec4<f32>(unpack2x16float(src[b + 3u]), unpack2x16float(src[b + 4u])).xyz",
        )
        .replace(
            "unpack4x8snorm(src[b + 4u])",
            "vec4<f32>(unpack2x16snorm(src[b + 5u]), unpack2x16snorm(src[b + 6u]))",
        )
        .replace("src[b + 6u];", "src[b + 8u];")
        .replace("src[b + 5u];", "src[b + 7u];")
        .replace("src[b + 10u]", "src[b + 12u]")
        .replace("src[b + 9u]", "src[b + 11u]")
        .replace("src[b + 8u])", "src[b + 10u])")
        .replace("src[b + 7u])", "src[b + 9u])")
        .replace("i * 5u", "i * 7u")
        .replace(
            "pack4x8snorm(vec4<f32>(n, 0.0));",
            "pack2x16float(n.xy);\n    dst[o + 4u] = pack2x16float(vec2<f32>(n.z, 0.0));",
        )
        .replace(
            "dst[o + 4u] = pack4x8snorm(vec4<f32>(t, tangent.w));",
            "dst[o + 5u] = pack2x16snorm(t.xy);\n    dst[o + 6u] = pack2x16snorm(vec2<f32>(t.z, tangent.w));",
        );
    let d = draft("half.wgsl", &half).unwrap();
    for want in [
        "  vertices: { group: 0, binding: 1, stride: 52, position: 0, normal: 12, normal_encoding: f16, tangent: 20, tangent_encoding: snorm16, joints: { offset: 28, format: u16x4 }, weights: { offset: 36, format: f32x4 } }",
        "  output: { group: 0, binding: 2, stride: 28, position: 0, normal: 12, normal_encoding: f16, tangent: 20, tangent_encoding: snorm16 }",
    ] {
        assert!(d.yaml.contains(want), "{want}\n{}\n{half}", d.yaml);
    }
    let valid = validates("half.wgsl", &half, &d.yaml);
    assert!(valid.is_ok(), "{valid:?}\n{}", d.yaml);
}

/// A palette of fixed length drafts an `expect` entry covering the cases past it by their joint
/// count, with the text their failure gives; a runtime-sized one drafts none.
#[test]
fn a_fixed_palette_drafts_the_cases_past_it() {
    let src = |palette: &str| {
        format!("@group(0) @binding(0) var<uniform> view_proj: mat4x4<f32>;\n@group(0) @binding(1) var<{palette};\nstruct In {{ @location(0) position: vec3<f32>, @location(1) joints: vec4<u32>, @location(2) weights: vec4<f32> }}\n@vertex fn vs(v: In) -> @builtin(position) vec4<f32> {{\n  let m = v.weights.x * bones[v.joints.x] + v.weights.y * bones[v.joints.y];\n  return view_proj * m * vec4<f32>(v.position, 1.0);\n}}\n")
    };
    let fixed = src("uniform> bones: array<mat4x4<f32>, 64>");
    let d = draft("fixed.wgsl", &fixed).unwrap();
    let entry = "expect:\n  - case: \"*\"\n    joints_above: 64\n    matches: \"the shader's palette is a fixed array of 64 matrices\"\n";
    assert!(d.yaml.contains(entry), "{}", d.yaml);
    validates("fixed.wgsl", &fixed, &d.yaml).unwrap();
    let p = crate::profile::Profile::parse(Path::new("d.profile.yaml"), &d.yaml).unwrap();
    let admits = |j: usize| p.expect[0].admits(|| Some(j), || None);
    assert!(admits(65) && !admits(64));
    let runtime = src("storage, read> bones: array<mat4x4<f32>>");
    let d = draft("runtime.wgsl", &runtime).unwrap();
    assert!(!d.yaml.contains("expect:"), "{}", d.yaml);
}

/// A `select` between the unskinned and the skinned value switches the skinning as a branch
/// does: `bool(u.apply_skinning)` set 1 where the skinned value is accepted; a test whose failing
/// side skins is written as it must come out (`unskinned == 0`). A branch on the joint count the
/// harness writes is left to that count, not given a value of its own.
#[test]
fn a_select_on_a_member_switches_the_skinning() {
    let src = |choose: &str| {
        format!("struct Mesh {{ model: mat4x4<f32>, joints: array<mat4x4<f32>, 64>, apply_skinning: u32, unskinned: u32 }}\n@group(0) @binding(0) var<uniform> view_proj: mat4x4<f32>;\n@group(1) @binding(0) var<uniform> mesh: Mesh;\nstruct In {{ @location(0) position: vec4<f32>, @location(1) joints: vec4<u32>, @location(2) weights: vec4<f32> }}\n@vertex fn vs(v: In) -> @builtin(position) vec4<f32> {{\n  let skin = v.weights.x * mesh.joints[v.joints.x] + v.weights.y * mesh.joints[v.joints.y];\n  let skinned = skin * v.position;\n  let p = {choose};\n  return view_proj * mesh.model * p;\n}}\n")
    };
    let on = src("select(v.position, skinned, bool(mesh.apply_skinning))");
    let d = draft("on.wgsl", &on).unwrap();
    assert!(
        d.yaml.contains("members: { apply_skinning: 1 }"),
        "{}",
        d.yaml
    );
    assert!(d.yaml.contains("`apply_skinning != 0` holds"), "{}", d.yaml);
    validates("on.wgsl", &on, &d.yaml).unwrap();
    let off = src("select(skinned, v.position, mesh.unskinned != 0u)");
    let d = draft("off.wgsl", &off).unwrap();
    assert!(d.yaml.contains("members: { unskinned: 0 }"), "{}", d.yaml);
    assert!(d.yaml.contains("`unskinned == 0` holds"), "{}", d.yaml);
    let counted = "struct Skin { jointCount: u32, pad: vec3<u32> }\n@group(0) @binding(0) var<uniform> view_proj: mat4x4<f32>;\n@group(1) @binding(0) var<storage, read> joints: array<mat4x4<f32>>;\n@group(1) @binding(1) var<uniform> skin: Skin;\nstruct In { @location(0) position: vec3<f32>, @location(1) joints: vec4<u32>, @location(2) weights: vec4<f32> }\n@vertex fn vs(v: In) -> @builtin(position) vec4<f32> {\n  var p = vec4<f32>(v.position, 1.0);\n  if (skin.jointCount > 0u) { p = (v.weights.x * joints[v.joints.x]) * p; }\n  return view_proj * p;\n}\n";
    let d = draft("counted.wgsl", counted).unwrap();
    assert!(
        d.yaml
            .contains("{ group: 1, binding: 1, joint_count: jointCount }")
            && d.yaml
                .contains("which takes the skinning path its branch tests"),
        "{}",
        d.yaml
    );
    validates("counted.wgsl", counted, &d.yaml).unwrap();
}

/// Streams declared read-write that the stage only stores to are skinned streams, not sources
/// skinned in place, where the vertices' words hold the source directions; their stride is read
/// from the stores (`i * 3 + c`: 12 bytes, a tangent of 3 words its direction alone).
#[test]
fn written_streams_beside_word_vertices_take_their_stride_from_the_stores() {
    let src = "@group(0) @binding(0) var<uniform> bones: array<mat4x4<f32>, 64>;\n@group(0) @binding(1) var<uniform> params: vec4<u32>;\n@group(0) @binding(2) var<storage, read> src_words: array<u32>;\n@group(0) @binding(3) var<storage, read_write> dst_position_words: array<u32>;\n@group(0) @binding(4) var<storage, read_write> dst_normal_words: array<u32>;\n@group(0) @binding(5) var<storage, read_write> dst_tangent_words: array<u32>;\nfn f(k: u32) -> f32 { return bitcast<f32>(src_words[k]); }\nfn v3(k: u32) -> vec3<f32> { return vec3<f32>(f(k), f(k + 1u), f(k + 2u)); }\n@compute @workgroup_size(64) fn cs(@builtin(global_invocation_id) gid: vec3<u32>) {\n  let i = gid.x;\n  if (i >= params.x) { return; }\n  let b = i * 17u;\n  let j = vec4<u32>(src_words[b + 9u], src_words[b + 10u], src_words[b + 11u], src_words[b + 12u]);\n  let w = vec4<f32>(f(b + 13u), f(b + 14u), f(b + 15u), f(b + 16u));\n  let m = w.x * bones[j.x] + w.y * bones[j.y] + w.z * bones[j.z] + w.w * bones[j.w];\n  let p = (m * vec4<f32>(v3(b), 1.0)).xyz;\n  let n = normalize((m * vec4<f32>(v3(b + 3u), 0.0)).xyz);\n  let t = normalize((m * vec4<f32>(v3(b + 6u), 0.0)).xyz);\n  let o = i * 3u;\n  dst_position_words[o] = bitcast<u32>(p.x); dst_position_words[o + 1u] = bitcast<u32>(p.y); dst_position_words[o + 2u] = bitcast<u32>(p.z);\n  dst_normal_words[o] = bitcast<u32>(n.x); dst_normal_words[o + 1u] = bitcast<u32>(n.y); dst_normal_words[o + 2u] = bitcast<u32>(n.z);\n  dst_tangent_words[o] = bitcast<u32>(t.x); dst_tangent_words[o + 1u] = bitcast<u32>(t.y); dst_tangent_words[o + 2u] = bitcast<u32>(t.z);\n}\n";
    let d = draft("words.wgsl", src).unwrap();
    assert!(
        d.yaml
            .contains("skinned_normals: { group: 0, binding: 4, stride: 12 }")
            && d.yaml
                .contains("skinned_tangents: { group: 0, binding: 5, format: vec3, stride: 12 }")
            && !d.yaml.contains("skinned in place"),
        "{}",
        d.yaml
    );
    validates("words.wgsl", src, &d.yaml).unwrap();
}

/// A palette that is a struct's member holding an array of structs, each a joint's matrix, with
/// the joint count beside it (astraweave's `JointPalette`): drafted as the member and the
/// element's member, the count written for each case.
#[test]
fn a_palette_struct_of_joint_structs_and_its_count_is_drafted() {
    let src = "struct JointMatrix { matrix: mat4x4<f32> }\nstruct JointPalette { joints: array<JointMatrix, 256>, joint_count: u32 }\n@group(0) @binding(0) var<uniform> view_proj: mat4x4<f32>;\n@group(1) @binding(0) var<storage, read> joint_palette: JointPalette;\nstruct In { @location(0) position: vec3<f32>, @location(1) joints: vec4<u32>, @location(2) weights: vec4<f32> }\n@vertex fn vs(v: In) -> @builtin(position) vec4<f32> {\n  var m = v.weights.x * joint_palette.joints[v.joints.x].matrix;\n  if (joint_palette.joint_count == 0u) { m = mat4x4<f32>(vec4<f32>(1.0, 0.0, 0.0, 0.0), vec4<f32>(0.0, 1.0, 0.0, 0.0), vec4<f32>(0.0, 0.0, 1.0, 0.0), vec4<f32>(0.0, 0.0, 0.0, 1.0)); }\n  return view_proj * m * vec4<f32>(v.position, 1.0);\n}\n";
    let d = draft("astra.wgsl", src).unwrap();
    assert!(
        d.yaml.contains("palette: { group: 1, binding: 0, form: storage, member: joints, element_member: matrix, joint_count: joint_count }"),
        "{}",
        d.yaml
    );
    validates("astra.wgsl", src, &d.yaml).unwrap();
    let c = crate::shader::contract_of(src, &d.yaml).unwrap();
    assert_eq!(c.palette_joint_count.and_then(|m| m.offset), Some(256 * 64));
}

/// A read-only storage array of matrices named as a camera's (a view-projection per instance,
/// indexed by `instance_index`) is drafted as the camera where no uniform holds one.
#[test]
fn a_per_instance_camera_in_storage_is_drafted() {
    let src = "@group(0) @binding(0) var<storage, read> shadow_mvps: array<mat4x4<f32>>;\n@group(1) @binding(0) var<storage, read> joints: array<mat4x4<f32>>;\nstruct In { @location(0) position: vec3<f32>, @location(1) joints: vec4<u32>, @location(2) weights: vec4<f32> }\n@vertex fn vs(v: In, @builtin(instance_index) k: u32) -> @builtin(position) vec4<f32> {\n  return shadow_mvps[k] * (v.weights.x * joints[v.joints.x]) * vec4<f32>(v.position, 1.0);\n}\n";
    let d = draft("shadow.wgsl", src).unwrap();
    assert!(
        d.yaml
            .contains("camera: { group: 0, binding: 0, form: matrix }")
            && !d.yaml.contains("TODO"),
        "{}",
        d.yaml
    );
    validates("shadow.wgsl", src, &d.yaml).unwrap();
}

/// Positions as an array of a tightly packed struct of three floats (rend3's `Vec3`, 12 bytes a
/// vertex), read and written: byte-addressed vertices skinned in place.
#[test]
fn packed_vec3_positions_read_and_written_are_skinned_in_place() {
    let src = "struct Vec3 { x: f32, y: f32, z: f32 }\nstruct Params { count: u32 }\n@group(0) @binding(0) var<storage, read_write> positions: array<Vec3>;\n@group(0) @binding(1) var<storage, read> joints: array<vec4<u32>>;\n@group(0) @binding(2) var<storage, read> weights: array<vec4<f32>>;\n@group(0) @binding(3) var<storage, read> bones: array<mat4x4<f32>>;\n@group(0) @binding(4) var<uniform> params: Params;\n@compute @workgroup_size(64) fn cs(@builtin(global_invocation_id) gid: vec3<u32>) {\n  let i = gid.x;\n  if (i >= params.count) { return; }\n  let v = positions[i];\n  let m = weights[i].x * bones[joints[i].x] + weights[i].y * bones[joints[i].y];\n  let p = (m * vec4<f32>(v.x, v.y, v.z, 1.0)).xyz;\n  positions[i] = Vec3(p.x, p.y, p.z);\n}\n";
    let d = draft("packed.wgsl", src).unwrap();
    assert!(
        d.yaml
            .contains("vertices: { group: 0, binding: 0, stride: 12, position: 0 }")
            && d.yaml
                .contains("output: { group: 0, binding: 0, stride: 12, position: 0 }"),
        "{}",
        d.yaml
    );
    validates("packed.wgsl", src, &d.yaml).unwrap();
}

/// A compute stage as Three.V8 and Renderide write theirs: the count a bare `i32` uniform its
/// guard compares the invocation with (`count`), each output a matrix times the stored point (of
/// w 1, so the output's w is 1), and a normal stream that takes the blend as it is while the
/// stage renormalises its tangents (`frame_length: any`, the stream's stores read, not the
/// module's calls). Renormalised there too, the lengths are compared again.
#[test]
fn a_bare_count_a_carried_w_and_an_unnormalised_stream_are_drafted() {
    let src = "@group(0) @binding(0) var<storage, read> rela_mats: array<mat4x4f>;
@group(0) @binding(1) var<storage, read> joints: array<vec4u>;
@group(0) @binding(2) var<storage, read> weights: array<vec4f>;
@group(0) @binding(3) var<storage, read> pos_rests: array<vec4f>;
@group(0) @binding(4) var<storage, read_write> pos_out: array<vec4f>;
@group(0) @binding(5) var<storage, read> norm_rests: array<vec4f>;
@group(0) @binding(6) var<storage, read_write> norm_out: array<vec4f>;
@group(0) @binding(7) var<uniform> num_verts: i32;
@group(0) @binding(8) var<storage, read> tangents: array<vec4f>;
@group(0) @binding(9) var<storage, read_write> skinned_tangents: array<vec4f>;
fn unit(v: vec3f) -> vec3f { return v * inverseSqrt(dot(v, v)); }
@compute @workgroup_size(128) fn main(@builtin(global_invocation_id) id: vec3u) {
    let idx = i32(id.x);
    if (idx >= num_verts) { return; }
    let j = joints[idx];
    let w = weights[idx];
    let mat = w.x * rela_mats[j.x] + w.y * rela_mats[j.y] + w.z * rela_mats[j.z] + w.w * rela_mats[j.w];
    pos_out[idx] = mat * pos_rests[idx];
    norm_out[idx] = NORMAL;
    skinned_tangents[idx] = vec4f(unit((mat * vec4f(tangents[idx].xyz, 0.0)).xyz), tangents[idx].w);
}
";
    let blended = src.replace("NORMAL", "mat * norm_rests[idx]");
    let d = draft("three_v8.wgsl", &blended).unwrap();
    for want in [
        "  count: { group: 0, binding: 7 }",
        "  skinned: { group: 0, binding: 4, format: vec4, w: 1 }",
        "\nposition_w: 1\n",
        "# The compute stage stores a skinned normal or tangent computed with no `normalize`",
        "\nframe_length: any\n",
    ] {
        assert!(d.yaml.contains(want), "{want}\n{}", d.yaml);
    }
    validates("three_v8.wgsl", &blended, &d.yaml).unwrap();
    let unit = src.replace("NORMAL", "vec4f(unit((mat * norm_rests[idx]).xyz), 0.0)");
    let d = draft("unit.wgsl", &unit).unwrap();
    assert!(!d.yaml.contains("frame_length"), "{}", d.yaml);
    // A bare count in storage is no `compute.count`, which binds a uniform.
    let stored = blended.replace("var<uniform> num_verts", "var<storage, read> num_verts");
    let d = draft("stored.wgsl", &stored).unwrap();
    assert!(
        !d.yaml.contains("  count: { group: 0, binding: 7 }"),
        "{}",
        d.yaml
    );
    // Renormalised before a function that only repacks it (rend3's `from_v(normalize(n))`).
    let passed_on = src.replace("NORMAL", "wrap(normalize((mat * norm_rests[idx]).xyz))")
        + "fn wrap(v: vec3f) -> vec4f { return vec4f(v, 0.0); }\n";
    let d = draft("passed_on.wgsl", &passed_on).unwrap();
    assert!(!d.yaml.contains("frame_length"), "{}", d.yaml);
}

/// A vertex stage as JaronLiang's and webgpu-learning's: skinning switched on by a float member
/// tested beside the weights' sum (`model.isSkinned > 0.5 && wSum > 0.001`, which naga lowers
/// into a local variable and a branch), and the stored position multiplied in a function it is
/// passed to (`position_w: 1`).
#[test]
fn a_switch_beside_another_test_and_a_position_passed_on_are_drafted() {
    let src = "struct Model { model: mat4x4f, isSkinned: f32, scale: f32 }
@group(0) @binding(0) var<uniform> view_proj: mat4x4f;
@group(1) @binding(0) var<uniform> model: Model;
@group(1) @binding(1) var<storage, read> jointMatrices: array<mat4x4f>;
@group(1) @binding(2) var<storage, read> positions: array<vec4f>;
@group(1) @binding(3) var<storage, read> jointIds: array<vec4u>;
@group(1) @binding(4) var<storage, read> weights: array<vec4f>;
fn world(i: u32, pos: vec4f) -> vec4f {
    let w = weights[i];
    let j = jointIds[i];
    let wSum = w.x + w.y + w.z + w.w;
    var m = mat4x4f(vec4f(1.0, 0.0, 0.0, 0.0), vec4f(0.0, 1.0, 0.0, 0.0), vec4f(0.0, 0.0, 1.0, 0.0), vec4f(0.0, 0.0, 0.0, 1.0));
    if (model.isSkinned > 0.5 && wSum > 0.001) {
        m = w.x * jointMatrices[j.x] + w.y * jointMatrices[j.y] + w.z * jointMatrices[j.z] + w.w * jointMatrices[j.w];
    }
    return model.model * m * pos;
}
@vertex fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4f {
    return view_proj * world(i, positions[i]);
}
";
    let d = draft("gated.wgsl", src).unwrap();
    for want in [
        "the shader skins only where `isSkinned > 0.5` holds",
        "isSkinned: 1",
        "\nposition_w: 1\n",
    ] {
        assert!(d.yaml.contains(want), "{want}\n{}", d.yaml);
    }
    validates("gated.wgsl", src, &d.yaml).unwrap();
    // `||` around an early return: each side must fail to skin.
    let or = src.replace(
        "    if (model.isSkinned > 0.5 && wSum > 0.001) {\n        m =",
        "    if (model.isSkinned < 0.5 || wSum < 0.001) { return model.model * pos; }\n    {\n        m =",
    );
    let d = draft("gated_or.wgsl", &or).unwrap();
    assert!(d.yaml.contains("isSkinned: 1"), "{}", d.yaml);
    // A variable of the shader's own, branched on and stored in its own branch, is no lowering
    // of `&&`: read as no switch, and no endless reading.
    let own = src.replace(
        "    if (model.isSkinned > 0.5 && wSum > 0.001) {",
        "    var on = model.isSkinned > 0.5;\n    if (on) { on = wSum > 0.001; } else { on = false; }\n    if (on) {",
    );
    assert!(draft("own.wgsl", &own).is_ok());
}

/// A camera kept as a short array of matrices multiplied element by element (`proj_view[0] *
/// proj_view[1]`): the camera in element 0, identities after it; and a compute stage whose
/// buffers are indexed past offsets a read-only struct of parameters holds (an engine's arenas:
/// `(constants.positionsOffset + idx) * 3`), which the harness fills with 0: its vertices are
/// byte-addressed at 3 words a vertex. Both drafts validate.
#[test]
fn a_camera_array_and_offsets_in_a_storage_struct_are_drafted() {
    let vertex = "@group(0) @binding(0) var<uniform> proj_view: array<mat4x4f, 2>;
@group(1) @binding(0) var<storage, read> jointMatrices: array<mat4x4f>;
@vertex fn vs(@location(0) p: vec3f, @location(1) j: vec4u, @location(2) w: vec4f) -> @builtin(position) vec4f {
    let m = w.x * jointMatrices[j.x] + w.y * jointMatrices[j.y] + w.z * jointMatrices[j.z] + w.w * jointMatrices[j.w];
    return proj_view[0] * proj_view[1] * m * vec4f(p, 1.0);
}
";
    let d = draft("camera_array.wgsl", vertex).unwrap();
    let want = "  camera: { group: 0, binding: 0, form: matrix, fill: identity }";
    assert!(d.yaml.contains(want), "{}", d.yaml);
    validates("camera_array.wgsl", vertex, &d.yaml).unwrap();
    let compute = "struct SkinningConstants { positionsOffset: u32, skinnedOffset: u32, vertexCount: u32 }
struct BoneInfluence { indices: vec4u, weights: vec4f }
@group(0) @binding(0) var<storage> constants: SkinningConstants;
@group(0) @binding(1) var<storage> positions: array<f32>;
@group(0) @binding(2) var<storage> boneInfluences: array<BoneInfluence>;
@group(0) @binding(3) var<storage> boneTransforms: array<mat4x4f>;
@group(0) @binding(4) var<storage, read_write> skinnedPositions: array<f32>;
@compute @workgroup_size(64) fn cs(@builtin(global_invocation_id) id: vec3u) {
    let idx = id.x;
    if (idx < constants.vertexCount) {
        let src = (constants.positionsOffset + idx) * 3;
        let dst = (constants.skinnedOffset + idx) * 3;
        let b = boneInfluences[idx];
        let m = boneTransforms[b.indices.x] * b.weights.x + boneTransforms[b.indices.y] * b.weights.y;
        let p = m * vec4f(positions[src], positions[src + 1], positions[src + 2], 1.0);
        skinnedPositions[dst] = p.x;
        skinnedPositions[dst + 1] = p.y;
        skinnedPositions[dst + 2] = p.z;
    }
}
";
    let d = draft("arenas.wgsl", compute).unwrap();
    for want in [
        "  vertices: { group: 0, binding: 1, stride: 12, position: 0 }",
        "  output: { group: 0, binding: 4, stride: 12, position: 0 }",
        "  - { group: 0, binding: 0, count: vertexCount }",
    ] {
        assert!(d.yaml.contains(want), "{want}\n{}", d.yaml);
    }
    validates("arenas.wgsl", compute, &d.yaml).unwrap();
}

/// A joint count kept in a lane of a per-instance vector member and read into a `let` named as
/// one (`let bone_count = model.flags.z`, the skinning switched on where it is above 0, each joint
/// index checked against it): drafted as the binding's `joint_count: flags.z`, not a switch's
/// value of 1 (which would leave every joint past 0 unskinned). The draft validates.
#[test]
fn a_joint_count_read_into_a_named_let_is_the_bindings_joint_count() {
    let src = "struct Model { transform: mat4x4<f32>, flags: vec4<u32> }
@group(0) @binding(0) var<uniform> view_proj: mat4x4<f32>;
@group(1) @binding(0) var<storage, read> models: array<Model>;
@group(1) @binding(1) var<storage, read> bones: array<mat4x4<f32>>;
fn bone_at(index: u32, offset: u32, count: u32) -> mat4x4<f32> {
    if (index < count) { return bones[offset + index]; }
    return mat4x4<f32>(vec4<f32>(1.0, 0.0, 0.0, 0.0), vec4<f32>(0.0, 1.0, 0.0, 0.0), vec4<f32>(0.0, 0.0, 1.0, 0.0), vec4<f32>(0.0, 0.0, 0.0, 1.0));
}
fn skin_position(p: vec3<f32>, joints: vec4<u32>, weights: vec4<f32>, offset: u32, count: u32) -> vec3<f32> {
    let q = vec4<f32>(p, 1.0);
    return ((bone_at(joints.x, offset, count) * q) * weights.x + (bone_at(joints.y, offset, count) * q) * weights.y).xyz;
}
@vertex fn vs(@location(0) position: vec3<f32>, @location(1) joints: vec4<u32>, @location(2) weights: vec4<f32>, @builtin(instance_index) instance_id: u32) -> @builtin(position) vec4<f32> {
    let model = models[instance_id];
    let bone_offset = model.flags.y;
    let bone_count = model.flags.z;
    var p = position;
    if (bone_count > 0u) { p = skin_position(position, joints, weights, bone_offset, bone_count); }
    return view_proj * model.transform * vec4<f32>(p, 1.0);
}
";
    let d = draft("instances.wgsl", src).unwrap();
    for want in [
        "`models`'s integer member `flags.z` is read as `bone_count`, named as the number of joints",
        "joint_count: flags.z }",
        "  skin_function: skin_position",
    ] {
        assert!(d.yaml.contains(want), "{want}\n{}", d.yaml);
    }
    assert!(!d.yaml.contains("flags: ["), "{}", d.yaml);
    validates("instances.wgsl", src, &d.yaml).unwrap();
    // A float read into a `let` named so is no joint count a profile can give: a switch's value.
    let float = src
        .replace(
            "flags: vec4<u32> }",
            "flags: vec4<u32>, params: vec4<f32> }",
        )
        .replace(
            "let bone_count = model.flags.z;",
            "let bone_count = model.flags.z;\n    let boneCount = model.params.w;",
        )
        .replace("if (bone_count > 0u)", "if (boneCount > 0.0)");
    let d = draft("float.wgsl", &float).unwrap();
    assert!(
        d.yaml.contains("params: [0, 0, 0, 1]") && !d.yaml.contains("joint_count"),
        "{}",
        d.yaml
    );
}

/// A module whose first compute entry point is a pass of its own (an MMD deformer resets its
/// vertices first): the draft takes the one that reads the joint matrices.
#[test]
fn the_compute_entry_point_that_reads_the_palette_is_drafted() {
    let src = "@group(0) @binding(0) var<storage, read> positions: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> joints: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> weights: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> bone_matrices: array<mat4x4<f32>>;
@group(0) @binding(4) var<storage, read_write> skinned: array<vec4<f32>>;
@compute @workgroup_size(64) fn reset(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x >= arrayLength(&positions)) { return; }
    skinned[id.x] = positions[id.x];
}
@compute @workgroup_size(64) fn deform(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= arrayLength(&positions)) { return; }
    let m = weights[i].x * bone_matrices[joints[i].x] + weights[i].y * bone_matrices[joints[i].y];
    skinned[i] = vec4<f32>((m * vec4<f32>(positions[i].xyz, 1.0)).xyz, 0.0);
}
";
    let d = draft("passes.wgsl", src).unwrap();
    assert!(d.yaml.contains("  entry: deform\n"), "{}", d.yaml);
    validates("passes.wgsl", src, &d.yaml).unwrap();
    // A pass that builds the palette reads matrices too, and writes them: not the skinning one.
    let builds = src.replace(
        "@compute @workgroup_size(64) fn reset(",
        "@group(1) @binding(0) var<storage, read> world: array<mat4x4<f32>>;\n@group(1) @binding(1) var<storage, read_write> palette: array<mat4x4<f32>>;\n@compute @workgroup_size(64) fn compute_skin_matrices(@builtin(global_invocation_id) id: vec3<u32>) { palette[id.x] = world[id.x]; }\n@compute @workgroup_size(64) fn reset(",
    );
    let d = draft("builds.wgsl", &builds).unwrap();
    assert!(d.yaml.contains("  entry: deform\n"), "{}", d.yaml);
}

/// The camera among a struct's matrices is one the clip position is computed from (here the view,
/// the projection beside it an identity), not a light's view-projection that only a shadow
/// coordinate reads, however its name scores; and of two bindings that both declare a palette
/// offset, the one the shader reads gives it.
#[test]
fn the_clip_positions_matrix_is_the_camera_and_the_read_offset_the_palettes() {
    let src = "struct Globals { time: f32, view: mat4x4<f32>, projection: mat4x4<f32>, light_view_proj: mat4x4<f32> }
struct Entity { model: mat4x4<f32>, bone_offset: u32 }
struct Instance { model: mat4x4<f32>, bone_offset: u32 }
@group(0) @binding(0) var<uniform> g_uniforms: Globals;
@group(0) @binding(1) var<storage, read> entities: array<Entity>;
@group(0) @binding(2) var<storage, read> instances: array<Instance>;
@group(0) @binding(3) var<storage, read> bones: array<mat4x4<f32>>;
struct Out { @builtin(position) pos: vec4<f32>, @location(0) shadow: vec4<f32> }
@vertex fn vs(@location(0) p: vec3<f32>, @location(1) j: vec4<u32>, @location(2) w: vec4<f32>, @builtin(instance_index) k: u32) -> Out {
    let ins = instances[k];
    let m = w.x * bones[ins.bone_offset + j.x] + w.y * bones[ins.bone_offset + j.y];
    let world = m * vec4<f32>(p, 1.0);
    var out: Out;
    let view_space = g_uniforms.view * world;
    out.pos = g_uniforms.projection * view_space;
    out.shadow = g_uniforms.light_view_proj * world;
    return out;
}
";
    let d = draft("clip.wgsl", src).unwrap();
    for want in [
        "  camera: { group: 0, binding: 0, form: matrix, member: view, fill: identity }",
        "  - { group: 0, binding: 2, fill: identity, palette_offset: bone_offset }",
    ] {
        assert!(d.yaml.contains(want), "{want}\n{}", d.yaml);
    }
    validates("clip.wgsl", src, &d.yaml).unwrap();
    // The light's matrix in a uniform of its own, named as a view-projection, and the camera's
    // read in a helper a helper calls: the camera's uniform, the one the clip position reads.
    let apart = src
        .replace(
            "struct Globals { time: f32, view: mat4x4<f32>, projection: mat4x4<f32>, light_view_proj: mat4x4<f32> }",
            "struct Globals { time: f32, view: mat4x4<f32>, projection: mat4x4<f32> }\nstruct Light { view_proj: mat4x4<f32> }\n@group(1) @binding(0) var<uniform> light: Light;\nfn proj() -> mat4x4<f32> { return g_uniforms.projection; }\nfn to_clip(v: vec4<f32>) -> vec4<f32> { return proj() * v; }",
        )
        .replace("out.pos = g_uniforms.projection * view_space;", "out.pos = to_clip(view_space);")
        .replace("out.shadow = g_uniforms.light_view_proj * world;", "out.shadow = light.view_proj * world;");
    let d = draft("apart.wgsl", &apart).unwrap();
    assert!(
        d.yaml
            .contains("  camera: { group: 0, binding: 0, form: matrix"),
        "{}",
        d.yaml
    );
    validates("apart.wgsl", &apart, &d.yaml).unwrap();
}

/// What GLSL and SPIR-V shaders bring, as naga writes them in WGSL (inputs and outputs in private
/// globals, the stage's body in `main_1`): a position's y negated
/// before the camera (`clip_y: flipped_before`), the clip position's after it in a function the
/// entry point calls, through a private global (`clip_y: flipped`), normals moved by an inverse
/// written out (naga's `_naga_inverse_3x3_f32` for GLSL's `inverse`: no `normal_matrix:
/// blended`), a camera in a read-only storage struct the clip position reads, and a switch read
/// into a local variable stored once (`float enable = enables[gl_InstanceIndex];`).
#[test]
fn shapes_naga_writes_from_glsl_and_spirv_are_drafted() {
    let shader = |globals: &str, body: &str| {
        format!(
            "@group(0) @binding(0) var<storage, read> bones: array<mat4x4<f32>>;
{globals}
var<private> clip: vec4<f32>;
var<private> n_out: vec3<f32>;
var<private> position: vec3<f32>;
var<private> normal: vec3<f32>;
var<private> joints: vec4<u32>;
var<private> weights: vec4<f32>;
fn inv3(m: mat3x3<f32>) -> mat3x3<f32> {{
    var adj: mat3x3<f32>;
    adj[0][0] = (m[1][1] * m[2][2] - m[2][1] * m[1][2]);
    adj[1][1] = (m[0][0] * m[2][2] - m[2][0] * m[0][2]);
    adj[2][2] = (m[0][0] * m[1][1] - m[1][0] * m[0][1]);
    let det: f32 = (m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]));
    return adj * (1 / det);
}}
fn main_1() {{
    let m = bones[joints.x] * weights.x + bones[joints.y] * weights.y;
    {body}
}}
struct Out {{ @location(0) normal: vec3<f32>, @builtin(position) pos: vec4<f32> }}
@vertex fn main(@location(0) p: vec3<f32>, @location(1) n: vec3<f32>, @location(2) j: vec4<u32>, @location(3) w: vec4<f32>) -> Out {{
    position = p;
    normal = n;
    joints = j;
    weights = w;
    main_1();
    return Out(n_out, clip);
}}"
        )
    };
    let uniform = "@group(0) @binding(1) var<uniform> view_proj: mat4x4<f32>;";
    let blended = "n_out = normalize(mat3x3<f32>(m[0].xyz, m[1].xyz, m[2].xyz) * normal);";
    let inverted =
        "n_out = normalize(transpose(inv3(mat3x3<f32>(m[0].xyz, m[1].xyz, m[2].xyz))) * normal);";
    let cases = [
        // Before the camera, a position's y; after it, the clip position's, kept in a local
        // stored whole into the private global the entry point returns.
        (uniform, format!("var p = m * vec4<f32>(position, 1.0);\n    p.y = -p.y;\n    clip = view_proj * p;\n    {blended}"), vec!["  camera: { group: 0, binding: 1, form: matrix, clip_y: flipped_before }", "\nnormal_matrix: blended\n"]),
        (uniform, format!("var p = view_proj * m * vec4<f32>(position, 1.0);\n    p.y = -p.y;\n    clip = p;\n    {inverted}"), vec!["  camera: { group: 0, binding: 1, form: matrix, clip_y: flipped }"]),
        (
            "struct Frame { proj_view: mat4x4<f32>, light: mat4x4<f32> }\n@group(0) @binding(1) var<storage, read> frame: Frame;",
            format!("clip = frame.proj_view * m * vec4<f32>(position, 1.0);\n    {inverted}"),
            vec!["  camera: { group: 0, binding: 1, form: matrix, fill: identity }"],
        ),
        (
            "struct Draw { enables: array<f32, 64> }\n@group(0) @binding(1) var<uniform> view_proj: mat4x4<f32>;\n@group(0) @binding(2) var<storage, read> draw: Draw;",
            ("var on: f32;\n    on = draw.enables[0];\n    var s = mat4x4<f32>(vec4(1.0, 0.0, 0.0, 0.0), vec4(0.0, 1.0, 0.0, 0.0), vec4(0.0, 0.0, 1.0, 0.0), vec4(0.0, 0.0, 0.0, 1.0));\n    if (on > 0.0) {{ s = bones[joints.x] * weights.x + bones[joints.y] * weights.y; }}\n    clip = view_proj * s * vec4<f32>(position, 1.0);\n    n_out = normalize(transpose(inv3(mat3x3<f32>(s[0].xyz, s[1].xyz, s[2].xyz))) * normal);").to_string(),
            vec!["  - { group: 0, binding: 2, members: { enables: 1 } }"],
        ),
    ];
    for (globals, body, wants) in cases {
        let src = shader(globals, &body);
        let d = draft("read.wgsl", &src).unwrap_or_else(|e| panic!("{e}\n{src}"));
        for want in wants {
            assert!(d.yaml.contains(want), "{want}\n{}\n{src}", d.yaml);
        }
        // Inverted normals move by the inverse transpose, the default.
        assert_eq!(
            d.yaml.contains("normal_matrix"),
            body.contains(blended),
            "{}",
            d.yaml
        );
        validates("read.wgsl", &src, &d.yaml).unwrap_or_else(|e| panic!("{e}\n{}", d.yaml));
    }
    // A flip after the camera reached through a chain of locals; a source position's y negated
    // before skinning, no product of a matrix, is no camera's flip (nor is a normal's).
    let plain = "  camera: { group: 0, binding: 1, form: matrix }";
    for (body, want) in [
        (format!("var p = view_proj * m * vec4<f32>(position, 1.0);\n    p.y = -p.y;\n    var q = p;\n    clip = q;\n    {inverted}"), "  camera: { group: 0, binding: 1, form: matrix, clip_y: flipped }"),
        (format!("var q = position;\n    q.y = -q.y;\n    clip = view_proj * m * vec4<f32>(q, 1.0);\n    {inverted}"), plain),
        ("var n = normal;\n    n.y = -n.y;\n    clip = view_proj * m * vec4<f32>(position, 1.0);\n    n_out = normalize(transpose(inv3(mat3x3<f32>(m[0].xyz, m[1].xyz, m[2].xyz))) * n);".to_string(), plain),
    ] {
        let d = draft("read.wgsl", &shader(uniform, &body)).unwrap();
        assert!(d.yaml.contains(want), "{want}\n{}", d.yaml);
    }
    // A switch read from a local stored from itself ends.
    let src = shader(
        uniform,
        &format!("var on: f32;\n    on = on;\n    var s = m;\n    if (on > 0.0) {{ s = bones[joints.x] * weights.x; }}\n    clip = view_proj * s * vec4<f32>(position, 1.0);\n    {inverted}"),
    );
    draft("read.wgsl", &src).unwrap();
}

/// Joint indices as one-word members one after another: two are u16 pairs over both, four a
/// joint a word (Unity's compute skinner: `weight0` to `weight3`, then `index0` to `index3`,
/// signed); the draft validates against the shader.
#[test]
fn joints_a_word_each_are_four_indices() {
    let shader = |members: &str, read: &str| {
        format!(
            "struct Skin {{ weight0: f32, weight1: f32, weight2: f32, weight3: f32, {members} }}
@group(0) @binding(0) var<storage> bones: array<mat4x4<f32>>;
@group(0) @binding(1) var<storage> positions: array<vec4<f32>>;
@group(0) @binding(2) var<storage> skin: array<Skin>;
@group(0) @binding(3) var<storage, read_write> skinned: array<vec4<f32>>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3<u32>) {{
    let i = id.x;
    if i >= arrayLength(&positions) {{ return; }}
    let s = skin[i];
    {read}
    let m = bones[j.x] * s.weight0 + bones[j.y] * s.weight1 + bones[j.z] * s.weight2 + bones[j.w] * s.weight3;
    skinned[i] = vec4<f32>((m * vec4<f32>(positions[i].xyz, 1.0)).xyz, 1.0);
}}"
        )
    };
    for (members, read, format) in [
        ("index0: i32, index1: i32, index2: i32, index3: i32", "let j = vec4<i32>(s.index0, s.index1, s.index2, s.index3);", "i32x4"),
        ("index0: u32, index1: u32, index2: u32, index3: u32", "let j = vec4<u32>(s.index0, s.index1, s.index2, s.index3);", "u32x4"),
        ("index01: u32, index23: u32", "let j = vec4<u32>(s.index01 & 0xFFFFu, s.index01 >> 16u, s.index23 & 0xFFFFu, s.index23 >> 16u);", "u16x4"),
        // Four one-word members named as joints, but two a count and an offset: u16 pairs.
        ("joints01: u32, joints23: u32, joint_count: u32, joint_offset: u32", "let j = vec4<u32>(s.joints01 & 0xFFFFu, s.joints01 >> 16u, s.joints23 & 0xFFFFu, s.joints23 >> 16u);", "u16x4"),
    ] {
        let src = shader(members, read);
        let d = draft("unity.wgsl", &src).unwrap_or_else(|e| panic!("{e}\n{src}"));
        let want = format!("joints: {{ offset: {}, format: {format} }}, weights: {{ offset: weight0, format: f32x4 }}", members.split(':').next().unwrap());
        assert!(d.yaml.contains(&want), "{want}\n{}", d.yaml);
        validates("unity.wgsl", &src, &d.yaml).unwrap_or_else(|e| panic!("{e}\n{}", d.yaml));
    }
}

/// A stage that reads fewer than 4 influences a vertex: vec3 (or vec2) joints beside weights of
/// as many are drafted as `max_influences` with the `expect` entry for the cases past it, a
/// skinning function taking them is found, and the draft validates; two `u32` joints beside two
/// weights are two joints, not four u16 ones; a vec4 of weights keeps 4.
#[test]
fn fewer_influences_a_vertex_are_drafted_as_max_influences() {
    let shader = |n: u8, joints: &str| {
        format!(
            "@group(0) @binding(0) var<storage, read> bones: array<mat4x4<f32>>;
@group(0) @binding(1) var<uniform> view_proj: mat4x4<f32>;
fn skin(p: vec3<f32>, j: vec{n}<{joints}>, w: vec{n}<f32>) -> vec3<f32> {{
    var o = vec3<f32>(0.0);
    for (var k = 0u; k < {n}u; k++) {{ o += (bones[u32(j[k])] * vec4<f32>(p, 1.0)).xyz * w[k]; }}
    return o;
}}
@vertex fn vs(@location(0) position: vec3<f32>, @location(1) bone_ids: vec{n}<{joints}>, @location(2) bone_weights: vec{n}<f32>) -> @builtin(position) vec4<f32> {{
    return view_proj * vec4<f32>(skin(position, bone_ids, bone_weights), 1.0);
}}"
        )
    };
    for (n, joints, format) in [
        (3, "i32", "i32x4"),
        (2, "u32", "u16x4"),
        (3, "f32", "f32x4"),
    ] {
        let src = shader(n, joints);
        let d = draft("few.wgsl", &src).unwrap();
        let has = |s: &str| d.yaml.contains(s);
        assert!(
            has(&format!("max_influences: {n}\n"))
                && has(&format!("joints: {{ location: 1, format: {format} }}"))
                && has(&format!("    influences_above: {n}\n"))
                && has("  skin_function: skin ")
                && !has("two u16 indices"),
            "{}",
            d.yaml
        );
        validates("few.wgsl", &src, &d.yaml).unwrap();
        let c = contract(&d.yaml);
        assert_eq!((c.lanes, c.reads().most()), (n as usize, n as usize));
    }
    // A second vec3 pair: no set of 4, left to do.
    let six = shader(3, "i32").replace(
        "@location(2) bone_weights: vec3<f32>)",
        "@location(2) bone_weights: vec3<f32>, @location(3) bone_ids_1: vec3<i32>, @location(4) bone_weights_1: vec3<f32>)",
    );
    let d = draft("six.wgsl", &six).unwrap();
    assert!(
        d.yaml
            .contains("# TODO: a second pair of vec3 joints and weights follows")
            && !d.yaml.contains("influence_sets"),
        "{}",
        d.yaml
    );
    // Four weights read beside them: no fewer influences.
    let four = shader(4, "u32");
    let d = draft("four.wgsl", &four).unwrap();
    assert!(
        !d.yaml.contains("max_influences") && !d.yaml.contains("influences_above"),
        "{}",
        d.yaml
    );
}

/// Three weights named so beside four joints: drafted as the weights with `last_weight: implied`,
/// the skinning function taking them found, and the draft validates and reads 3 weights of 4
/// influences; three weights beside three joints stay `max_influences: 3`.
#[test]
fn three_weights_beside_four_joints_draft_an_implied_last_weight() {
    let src = "@group(0) @binding(0) var<storage, read> bones: array<mat4x4<f32>>;
@group(0) @binding(1) var<uniform> view_proj: mat4x4<f32>;
fn skin(p: vec3<f32>, j: vec4<u32>, w: vec3<f32>) -> vec3<f32> {
    let w4 = vec4<f32>(w, 1.0 - w.x - w.y - w.z);
    var o = vec3<f32>(0.0);
    for (var k = 0u; k < 4u; k++) { o += (bones[j[k]] * vec4<f32>(p, 1.0)).xyz * w4[k]; }
    return o;
}
@vertex fn vs(@location(0) position: vec3<f32>, @location(1) bone_ids: vec4<u32>, @location(2) bone_weights: vec3<f32>) -> @builtin(position) vec4<f32> {
    return view_proj * vec4<f32>(skin(position, bone_ids, bone_weights), 1.0);
}";
    let d = draft("implied.wgsl", src).unwrap();
    let has = |s: &str| d.yaml.contains(s);
    assert!(
        d.todos == 0
            && has("\nlast_weight: implied\n")
            && has("  weights: { location: 2, format: f32x4 }")
            && has("  skin_function: skin ")
            && !has("max_influences")
            && !has("influences_above"),
        "{}",
        d.yaml
    );
    validates("implied.wgsl", src, &d.yaml).unwrap();
    let c = contract(&d.yaml);
    assert_eq!((c.lanes, c.weight_lanes(), c.reads().most()), (4, 3, 4));
    let three = (src.replace("vec4<u32>", "vec3<u32>"))
        .replace("k < 4u", "k < 3u")
        .replace("w4[k]", "w[k]");
    let d = draft("three.wgsl", &three).unwrap();
    assert!(
        !d.yaml.contains("last_weight") && d.yaml.contains("max_influences: 3\n"),
        "{}",
        d.yaml
    );
}

/// A uniform array of `mat4x3<f32>` (an affine's columns, Ogre's palette) is drafted as the
/// palette, and the draft validates with its length as the joints' bound.
#[test]
fn a_mat4x3_palette_is_drafted() {
    let src = "struct U { view_proj: mat4x4<f32>, bones: array<mat4x3<f32>, 24> }
@group(0) @binding(0) var<uniform> u: U;
@vertex fn vs(@location(0) position: vec3<f32>, @location(1) bone_ids: vec4<u32>, @location(2) bone_weights: vec4<f32>) -> @builtin(position) vec4<f32> {
    let p = (u.bones[bone_ids.x] * vec4<f32>(position, 1.0)) * bone_weights.x;
    return u.view_proj * vec4<f32>(p, 1.0);
}";
    let d = draft("affine.wgsl", src).unwrap();
    assert!(
        d.todos == 0 && d.yaml.contains("member: bones") && d.yaml.contains("joints_above: 24\n"),
        "{}",
        d.yaml
    );
    validates("affine.wgsl", src, &d.yaml).unwrap();
}

/// A camera kept as a short array of matrices in a block beside others (Filament's
/// `clipFromWorldMatrix[4]`, an eye each, after `viewFromWorldMatrix`): drafted as that member,
/// element 0, not the block's first matrix.
#[test]
fn a_camera_array_member_is_drafted_by_its_name() {
    let src = "struct Frame { viewFromWorldMatrix: mat4x4<f32>, worldFromViewMatrix: mat4x4<f32>, clipFromWorldMatrix: array<mat4x4<f32>, 4> }
@group(0) @binding(0) var<uniform> frame: Frame;
@group(1) @binding(0) var<storage, read> bones: array<mat4x4<f32>>;
@vertex fn vs(@location(0) position: vec3<f32>, @location(1) bone_ids: vec4<u32>, @location(2) bone_weights: vec4<f32>) -> @builtin(position) vec4<f32> {
    let world = (bones[bone_ids.x] * vec4<f32>(position, 1.0)) * bone_weights.x;
    return frame.clipFromWorldMatrix[0] * world;
}";
    let d = draft("eyes.wgsl", src).unwrap();
    assert!(
        d.todos == 0
            && d.yaml.contains(
                "camera: { group: 0, binding: 0, form: matrix, member: clipFromWorldMatrix"
            ),
        "{}",
        d.yaml
    );
    validates("eyes.wgsl", src, &d.yaml).unwrap();
}
