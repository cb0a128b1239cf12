//! The profile's unit tests: parsing, each rule's located message, and (`examples`) every example
//! profile with its shader.

use super::*;

fn parse(text: &str) -> Result<Profile, String> {
    Profile::parse(Path::new("p.profile.yaml"), text).map_err(|e| e.to_string())
}

const DEFAULT: &str = include_str!("../../../shaders/skinning.profile.yaml");

#[test]
fn the_default_profile_parses() {
    let p = parse(DEFAULT).unwrap();
    assert_eq!(p.compute.as_ref().unwrap().entry, "skin_compute");
    assert_eq!(p.vertex.as_ref().unwrap().entry, "vs_skin");
    assert_eq!(p.slots().len(), 7);
}

#[test]
fn errors_are_located() {
    let text = DEFAULT.replacen("binding: 3", "binding: 2", 1);
    let msg = parse(&text).unwrap_err();
    assert!(
        msg.contains(
            "field `compute.weights.binding`: @group(0) @binding(2) is already `compute.joints`"
        ),
        "{msg}"
    );
    let text = DEFAULT.replacen("format: u32x4", "format: u12x4", 1);
    let msg = parse(&text).unwrap_err();
    assert!(
        msg.starts_with("p.profile.yaml:") && msg.contains("u12x4"),
        "{msg}"
    );
    let msg = parse("palette: { group: 0, binding: 0 }\n").unwrap_err();
    assert!(
        msg.contains("field `compute`: the profile names no stage"),
        "{msg}"
    );
    let msg = parse(&DEFAULT.replacen("entry: vs_skin", "entry: vs-skin", 1)).unwrap_err();
    assert!(
        msg.contains("field `vertex.entry`: `vs-skin` is not a WGSL identifier"),
        "{msg}"
    );
    // A fill for the rest of a camera struct needs a camera matrix.
    let camera = "camera: { group: 0, binding: 6, form: view }";
    assert!(
        DEFAULT.contains(camera),
        "the default profile's camera changed"
    );
    let text = DEFAULT.replacen(
        camera,
        "camera: { group: 0, binding: 6, form: view, fill: identity }",
        1,
    );
    let msg = parse(&text).unwrap_err();
    assert!(
        msg.contains(
            "field `vertex.camera.fill`: is for a camera given as a matrix: give `form: matrix`"
        ),
        "{msg}"
    );
    // A clip z of the stage's own where the numbers come from the compute stage, not a copy.
    let text = DEFAULT.replacen(
        camera,
        "camera: { group: 0, binding: 6, form: matrix, clip_z: stage }",
        1,
    );
    let msg = parse(&text).unwrap_err();
    assert!(
        msg.contains("field `vertex.camera.clip_z`: `stage` reads the skinned z through a copy of the entry point, which the harness calls only for a vertex-only profile"),
        "{msg}"
    );
    let text = DEFAULT.replacen(
        camera,
        "camera: { group: 0, binding: 6, form: matrix, fill: identity }",
        1,
    );
    assert_eq!(parse(&text).unwrap().contract().camera_fill, Fill::Identity);
}

#[test]
fn a_palette_normal_member_sits_beside_the_joints_matrix_and_means_per_joint_normals() {
    let vertex = "vertex:\n  entry: vs\n  position: { location: 0 }\n  joints: { location: 1 }\n  weights: { location: 2 }\n  camera: { group: 0, binding: 1 }\n";
    let profile = |palette: &str, top: &str| parse(&format!("{top}palette: {palette}\n{vertex}"));
    let both = "{ group: 0, binding: 0, element_member: m, normal_member: n }";
    let c = profile(both, "").unwrap().contract();
    let e = &c.palette_element;
    assert_eq!(e.member.as_ref().unwrap().name, "m");
    assert_eq!(e.normal.as_ref().unwrap().name, "n");
    assert_eq!(c.normal_matrix, crate::format::NormalMatrix::PerJoint);
    // The member alone asks for no skinned normals (a declared normal matrix does); without the
    // member the default stays.
    let c = profile(both, "normal_matrix: blended\n").map(|p| p.contract());
    assert!(c.is_err_and(|e| e.contains("names no skinned normals")));
    let plain = profile("{ group: 0, binding: 0, element_member: m }", "").unwrap();
    assert_eq!(
        plain.contract().normal_matrix,
        crate::format::NormalMatrix::InverseTranspose
    );
    let err = |palette: &str, says: &str| {
        let msg = profile(palette, "").unwrap_err();
        assert!(
            msg.contains(&format!("field `palette.normal_member`: {says}")),
            "{msg}"
        );
    };
    err(
        "{ group: 0, binding: 0, normal_member: n }",
        "is a member of each element's struct",
    );
    err(
        "{ group: 0, binding: 0, element_member: m, normal_member: m }",
        "`m` is also `palette.element_member`",
    );
    err(
        "{ group: 0, binding: 0, element_member: m, normal_member: n, inverse_binds: { group: 0, binding: 2 } }",
        "a split palette",
    );
    err(
        "{ group: 0, binding: 0, element_member: m, normal_member: 2n }",
        "",
    );
    // Beside a palette that is a member of its struct: a parallel array member of that struct.
    let beside = "{ group: 0, binding: 0, form: uniform, member: t, normal_member: n }";
    let c = profile(beside, "").unwrap().contract();
    assert_eq!(c.palette_normals.as_ref().unwrap().member.name, "n");
    assert_eq!(c.palette_element.normal, None);
    assert_eq!(c.normal_matrix, crate::format::NormalMatrix::PerJoint);
    err(
        "{ group: 0, binding: 0, form: uniform, member: t, normal_member: t }",
        "`t` is also `palette.member`",
    );
}

#[test]
fn the_palette_and_the_camera_may_be_members_of_one_struct() {
    let vertex = "vertex:\n  entry: vs\n  position: { location: 0 }\n  joints: { location: 1 }\n  weights: { location: 2 }\n";
    let profile = |palette: &str, camera: &str| {
        parse(&format!("palette: {palette}\n{vertex}  camera: {camera}\n"))
    };
    let shared = profile(
        "{ group: 0, binding: 0, form: uniform, member: bones, fill: identity }",
        "{ group: 0, binding: 0, form: matrix, member: projection }",
    )
    .unwrap()
    .contract();
    assert!(shared.camera_in_palette && shared.try_slot(Role::View).is_none());
    assert_eq!(shared.palette_member.as_ref().unwrap().name, "bones");
    assert_eq!(shared.camera_member.as_ref().unwrap().name, "projection");
    assert_eq!(shared.palette_fill, Fill::Identity);
    // A camera member in a binding of its own.
    let own = profile(
        "{ group: 0, binding: 0 }",
        "{ group: 0, binding: 1, form: matrix, member: view_proj }",
    )
    .unwrap()
    .contract();
    assert!(!own.camera_in_palette && own.slot(Role::View).ty == Want::Matrix);
    let err = |palette: &str, camera: &str, field: &str, says: &str| {
        let msg = profile(palette, camera).unwrap_err();
        assert!(msg.contains(&format!("field `{field}`: {says}")), "{msg}");
    };
    let camera = "{ group: 0, binding: 1, form: matrix }";
    err(
        "{ group: 0, binding: 0, member: bones }",
        "{ group: 0, binding: 0, form: matrix }",
        "vertex.camera.binding",
        "@group(0) @binding(0) is already `palette`; each role has its own binding (a camera matrix inside the palette's struct is a `member` of it, as the palette is)",
    );
    err(
        "{ group: 0, binding: 0 }",
        "{ group: 0, binding: 0, form: matrix, member: m }",
        "palette.member",
        "the camera is a member of the palette's binding: name the palette's member too",
    );
    err(
        "{ group: 0, binding: 0, fill: identity }",
        camera,
        "palette.fill",
        "fills the rest of a struct around the palette: give the palette's `member`",
    );
    err(
        "{ group: 0, binding: 0, member: bones, offset: { group: 0, binding: 2 } }",
        camera,
        "palette.member",
        "a palette member of a larger struct is not split (`inverse_binds`) or offset (`offset`)",
    );
    err(
        "{ group: 0, binding: 0, member: bones }",
        "{ group: 0, binding: 0, form: matrix, member: bones }",
        "vertex.camera.member",
        "`bones` is the palette's member",
    );
    err(
        "{ group: 0, binding: 0, member: bones }",
        "{ group: 0, binding: 0, form: matrix, member: m, fill: identity }",
        "vertex.camera.fill",
        "the camera is a member of the palette's struct, which the palette's `fill` fills",
    );
    err(
        "{ group: 0, binding: 0 }",
        "{ group: 0, binding: 1, member: m }",
        "vertex.camera.member",
        "is for a camera given as a matrix: give `form: matrix`",
    );
    err(
        "{ group: 0, binding: 0, member: 2bones }",
        camera,
        "palette.member",
        "`2bones` is not a WGSL identifier",
    );
    err(
        "{ group: 0, binding: 0, member: bones }",
        "{ group: 0, binding: 0, form: matrix, member: bones.m }",
        "vertex.camera.member",
        "`bones` is the palette's member",
    );
    err(
        "{ group: 0, binding: 0 }",
        "{ group: 0, binding: 1, form: matrix, member: camera..view_proj }",
        "vertex.camera.member",
        "`camera..view_proj` is not a WGSL identifier or a dotted path of them",
    );
}

#[test]
fn a_vertex_stage_pulls_its_vertices_or_takes_attributes() {
    let pulled = "  vertices: { group: 0, binding: 2, stride: 32, position: 0, joints: { offset: 12, format: u16x4 }, weights: { offset: 20, format: unorm16x4 } }\n";
    let profile = |extra: &str| {
        parse(&format!("palette: {{ group: 0, binding: 1 }}\nvertex:\n  entry: vs\n  camera: {{ group: 0, binding: 0, form: matrix }}\n{extra}"))
    };
    let c = profile(pulled).unwrap().contract();
    assert!(c.vertex_inputs.is_empty());
    assert_eq!(c.slot(Role::Positions).ty, Want::Words);
    assert_eq!(c.pulled.as_ref().unwrap().stride, 32);
    assert_eq!(c.formats.vertex_joints, JointFormat::U16x4);
    let err = |extra: &str, says: &str| {
        let msg = profile(extra).unwrap_err();
        assert!(msg.contains(says), "{msg}");
    };
    err(
        "",
        "field `vertex`: `position` is missing: give `position`, `joints` and `weights`, `position` beside a byte-addressed `influences` buffer, or one byte-addressed `vertices` buffer",
    );
    err(
        &format!("{pulled}  skin_function: skin\n"),
        "field `vertex.skin_function`: a vertex stage that pulls its vertices is compared through a copy of its entry point",
    );
    err(
        &pulled.replace("binding: 2", "binding: 1"),
        "field `vertex.vertices.binding`: @group(0) @binding(1) is already `palette`",
    );
    let both = "compute:\n  entry: main\n  positions: { group: 1, binding: 1 }\n  joints: { group: 1, binding: 2 }\n  weights: { group: 1, binding: 3 }\n  skinned: { group: 1, binding: 4 }\n  count: { group: 1, binding: 5 }\n";
    err(
        &format!("{pulled}{both}"),
        "field `vertex.vertices`: a vertex stage pulls its vertices in a vertex-only profile",
    );
    // A skin stream beside the position attribute: bound to the render pipeline as the joints.
    let position = "  position: { location: 0, format: vec3 }\n";
    let stream = "  influences: { group: 0, binding: 2, stride: 24, joints: { offset: 16, format: u16x4 }, weights: { offset: 0, format: f32x4 } }\n";
    let c = profile(&format!("{position}{stream}")).unwrap().contract();
    assert_eq!(c.vertex_inputs.len(), 1);
    let slot = c.slot(Role::Joints);
    assert_eq!(slot.ty, Want::Words);
    assert_eq!(slot.pipelines, vec![Pipeline::Render]);
    assert_eq!(c.influences.as_ref().unwrap().stride, 24);
    assert_eq!(c.formats.vertex_joints, JointFormat::U16x4);
    assert!(c.try_slot(Role::Weights).is_none());
    err(
        &format!(
            "{position}{stream}{}",
            pulled.replace("binding: 2", "binding: 3")
        ),
        "field `vertex.influences`: give the joints and weights of pulled vertices in `vertices`",
    );
    err(
        &format!("{position}{stream}{both}"),
        "field `vertex.influences`: a vertex stage reads its influences from storage in a vertex-only profile",
    );
    err(
        &format!("{position}{}", stream.replace("offset: 16", "offset: 20")),
        "vertex.influences.joints",
    );
}

#[test]
fn the_compute_stage_reads_each_input_from_one_source() {
    let profile = |inputs: &str| {
        parse(&format!("palette: {{ group: 0, binding: 0 }}\ncompute:\n  entry: main\n{inputs}  skinned: {{ group: 0, binding: 4 }}\n"))
    };
    let vertices = "  vertices: { group: 0, binding: 1, stride: 16, position: 0 }\n";
    let own = "  influences: { group: 0, binding: 2, stride: 24, joints: { offset: 0, format: u16x4 }, weights: { offset: 8, format: f32x4 } }\n";
    // Two byte-addressed streams, and no count uniform.
    let c = profile(&format!("{vertices}{own}")).unwrap().contract();
    assert_eq!(c.slot(Role::Joints).ty, Want::Words);
    assert_eq!(
        (c.slot(Role::Joints).binding, c.try_slot(Role::Weights)),
        (2, None)
    );
    assert!(c.try_slot(Role::Count).is_none());
    let influences = c.influences.as_ref().unwrap();
    assert_eq!((influences.stride, influences.position), (24, None));
    assert_eq!(c.formats.joints, JointFormat::U16x4);
    assert!(c.pulled.as_ref().unwrap().joints.is_empty());
    // Separate positions beside them; the vertices beside separate joints and weights.
    let positions = "  positions: { group: 0, binding: 1 }\n";
    let typed = "  joints: { group: 0, binding: 2 }\n  weights: { group: 0, binding: 3 }\n";
    assert!(profile(&format!("{positions}{own}")).is_ok());
    assert!(profile(&format!("{vertices}{typed}")).is_ok());
    let err = |inputs: String, says: &str| {
        let msg = profile(&inputs).unwrap_err();
        assert!(msg.contains(says), "{msg}");
    };
    let pulled_influences = vertices.replace(
        " }\n",
        ", joints: { offset: 4, format: u16x4 }, weights: { offset: 12, format: unorm8x4 } }\n",
    );
    err(
        format!("{pulled_influences}{own}"),
        "field `compute.influences`: the joints and weights are given twice, here and in `vertices`",
    );
    err(
        format!("{positions}{typed}{}", own.replace("binding: 2", "binding: 5")),
        "field `compute.influences`: the joints and weights are given twice, here and in `joints` and `weights`",
    );
    err(
        format!("{positions}  weights: {{ group: 0, binding: 3 }}\n{own}"),
        "field `compute.influences`: the joints and weights are given twice, here and in `weights`:",
    );
    err(
        vertices.to_string(),
        "field `compute.vertices`: the joints and weights are missing: give them in `vertices` (`joints` and `weights`) or in a byte-addressed `influences` buffer",
    );
    err(
        vertices.replace(" }\n", ", joints: { offset: 4, format: u16x4 } }\n"),
        "field `compute.vertices`: gives `joints` without `weights`: give both",
    );
    err(
        format!("{positions}  joints: {{ group: 0, binding: 2 }}\n"),
        "field `compute`: `weights` is missing",
    );
    err(own.to_string(), "field `compute`: `positions` is missing");
    err(
        format!("{vertices}{}", own.replace("offset: 8", "offset: 4")),
        "field `compute.influences.weights.offset`: `weights`: bytes 4 to 19 overlap `joints`",
    );
}

/// The members the harness writes into the immediate data: the vertex count once in all, for a
/// compute stage without `compute.count`, and the joint count, each a member of its own.
#[test]
fn immediate_counts_are_checked() {
    let compute = "compute:\n  entry: main\n  positions: { group: 0, binding: 1 }\n  joints: { group: 0, binding: 2 }\n  weights: { group: 0, binding: 3 }\n  skinned: { group: 0, binding: 4 }\n";
    let profile = |rest: &str| {
        parse(&format!(
            "palette: {{ group: 0, binding: 0 }}\n{compute}{rest}"
        ))
    };
    let c = profile("immediates: { count: p.y, joint_count: p.z }\n")
        .unwrap()
        .contract();
    let (count, joints) = (c.immediates.count.unwrap(), c.immediates.joints.unwrap());
    assert_eq!((count.name.as_str(), joints.name.as_str()), ("p.y", "p.z"));
    assert!(
        count.origin.contains("immediates.count"),
        "{}",
        count.origin
    );
    let err = |rest: &str, says: &str| {
        let msg = profile(rest).unwrap_err();
        assert!(msg.contains(says), "{msg}");
    };
    err(
        "immediates: { count: n, joint_count: n }\n",
        "field `immediates.joint_count`: `n` is also `immediates.count`",
    );
    err(
        "immediates: { joint_count: n, members: { n: 2 } }\n",
        "field `immediates.joint_count`: `n` is also given a value in `immediates.members`",
    );
    err(
        "immediates: { count: n }\nbindings:\n  - { group: 0, binding: 5, count: m }\n",
        "field `immediates.count`: `bindings[0].count` already holds the vertex count",
    );
    err(
        "immediates: { count: 2n }\n",
        "field `immediates.count`: `2n` is not a WGSL identifier",
    );
    let counted = compute.replace(
        "skinned: { group: 0, binding: 4 }\n",
        "skinned: { group: 0, binding: 4 }\n  count: { group: 0, binding: 5 }\n",
    );
    let msg = parse(&format!(
        "palette: {{ group: 0, binding: 0 }}\n{counted}immediates: {{ count: n }}\n"
    ))
    .unwrap_err();
    assert!(
        msg.contains("the vertex count is already `compute.count`"),
        "{msg}"
    );
}

#[test]
fn a_filled_members_count_is_checked() {
    let compute = "compute:\n  entry: main\n  positions: { group: 0, binding: 1 }\n  joints: { group: 0, binding: 2 }\n  weights: { group: 0, binding: 3 }\n  skinned: { group: 0, binding: 4 }\n";
    let profile = |bindings: &str| {
        parse(&format!(
            "palette: {{ group: 0, binding: 0 }}\n{compute}bindings:\n{bindings}"
        ))
    };
    let c = profile("  - { group: 0, binding: 5, count: vertex_count }\n")
        .unwrap()
        .contract();
    let count = c.filled[0].count.as_ref().unwrap();
    assert_eq!((count.name.as_str(), count.offset), ("vertex_count", None));
    assert!(
        count.origin.contains("bindings[0].count"),
        "{}",
        count.origin
    );
    assert!(c.try_slot(Role::Count).is_none());
    let err = |bindings: &str, says: &str| {
        let msg = profile(bindings).unwrap_err();
        assert!(msg.contains(says), "{msg}");
    };
    err(
        "  - { group: 0, binding: 5, count: vertex-count }\n",
        "field `bindings[0].count`: `vertex-count` is not a WGSL identifier",
    );
    err(
        "  - { group: 0, binding: 5, count: n, members: { n: 3 } }\n",
        "`n` is also given a value in `bindings[0].members`",
    );
    err(
        "  - { group: 0, binding: 5, count: n, palette_offset: n }\n",
        "field `bindings[0].palette_offset`: `n` is also `bindings[0].count`",
    );
    err(
        "  - { group: 0, binding: 5, count: n }\n  - { group: 0, binding: 6, count: m }\n",
        "field `bindings[1].count`: another binding already holds the vertex count",
    );
    // The joint count: a member of its own.
    let c = profile("  - { group: 0, binding: 5, joint_count: info.joints }\n")
        .unwrap()
        .contract();
    let joints = c.filled[0].joints.as_ref().unwrap();
    assert_eq!(joints.name, "info.joints");
    assert!(c.filled[0].per_case());
    err(
        "  - { group: 0, binding: 5, count: n, joint_count: n }\n",
        "field `bindings[0].count`: `n` is also `bindings[0].joint_count`",
    );
    err(
        "  - { group: 0, binding: 5, joint_count: n, members: { n: 3 } }\n",
        "field `bindings[0].joint_count`: `n` is also given a value in `bindings[0].members`",
    );
    let vertex_only = "palette: { group: 0, binding: 0 }\nvertex:\n  entry: vs\n  position: { location: 0 }\n  joints: { location: 1 }\n  weights: { location: 2 }\n  camera: { group: 0, binding: 6, form: matrix }\nbindings:\n  - { group: 0, binding: 5, count: n }\n";
    let msg = parse(vertex_only).unwrap_err();
    assert!(
        msg.contains("the vertex count is the compute stage's"),
        "{msg}"
    );
}

#[test]
fn a_palette_texture_has_its_own_fields() {
    let vertex = "vertex:\n  entry: vs\n  position: { location: 0 }\n  joints: { location: 1 }\n  weights: { location: 2 }\n  camera: { group: 0, binding: 0, form: matrix }\n";
    let profile = |palette: &str| parse(&format!("palette: {palette}\n{vertex}"));
    let c = profile("{ group: 0, binding: 1, form: texture, texels: 3, width: 16, sampler: { group: 0, binding: 2 } }")
        .unwrap()
        .contract();
    let t = c.palette_texture.unwrap();
    assert_eq!(
        (t.texels, t.width),
        (3, crate::contract::TextureWidth::Fixed(16))
    );
    assert_eq!(c.slot(Role::Palette).space, Space::Texture);
    assert_eq!(c.slot(Role::PaletteSampler).ty, Want::Sampler);
    let t = profile("{ group: 0, binding: 1, form: texture, width: row }")
        .unwrap()
        .contract();
    assert_eq!(t.palette_texture.unwrap().texels, 4);
    assert_eq!(t.palette_texture.unwrap().normal_texels, 0);
    assert_eq!(
        t.normal_matrix,
        crate::format::NormalMatrix::InverseTranspose
    );
    // Normal matrices after each joint's matrix: per-joint normals unless the profile says.
    let c = profile("{ group: 0, binding: 1, form: texture, normal_texels: 4, width: square }")
        .unwrap()
        .contract();
    assert_eq!(c.palette_texture.unwrap().normal_texels, 4);
    assert_eq!(c.normal_matrix, crate::format::NormalMatrix::PerJoint);
    let err = |palette: &str, says: &str| {
        let msg = profile(palette).unwrap_err();
        assert!(msg.contains(says), "{msg}");
    };
    err(
        "{ group: 0, binding: 1, width: 4 }",
        "field `palette.width`: is for a palette texture: give `form: texture`",
    );
    err(
        "{ group: 0, binding: 1, form: texture }",
        "field `palette.width`: a palette texture needs its `width`: a number of texels, `row` or `square`",
    );
    err(
        "{ group: 0, binding: 1, form: texture, width: 4, texels: 2 }",
        "field `palette.texels`: must be 4 (a joint's columns) or 3 (the rows of its affine 3x4), got 2",
    );
    err(
        "{ group: 0, binding: 1, form: texture, width: 4, normal_texels: 1 }",
        "field `palette.normal_texels`: must be 4 (a mat4x4's columns) or 3 (a 3x3's), got 1",
    );
    err(
        "{ group: 0, binding: 1, normal_texels: 4 }",
        "field `palette.normal_texels`: is for a palette texture: give `form: texture`",
    );
    err(
        "{ group: 0, binding: 1, form: texture, width: wide }",
        "a number of texels from 1 up, `row` or `square`",
    );
    err(
        "{ group: 0, binding: 1, form: texture, width: 0 }",
        "a number of texels from 1 up, `row` or `square`",
    );
    err(
        "{ group: 0, binding: 1, form: texture, width: row, member: bones }",
        "field `palette.member`: a palette texture holds the palette alone, from joint 0",
    );
    err(
        "{ group: 0, binding: 1, form: texture, width: row, sampler: { group: 0, binding: 1 } }",
        "field `palette.sampler.binding`: @group(0) @binding(1) is already `palette`",
    );
}

#[test]
fn an_expected_case_may_be_a_pattern() {
    for (pattern, name, hit) in [
        ("gltf_*", "gltf_fox_t0_5", true),
        ("gltf_*", "gltf_", true),
        ("gltf_*", "long_chain_256", false),
        ("*_t0_5", "gltf_fox_t0_5", true),
        ("*_t0_5", "gltf_fox_t0_50", false),
        ("gltf_*_t1_*", "gltf_fox_t1_5", true),
        ("gltf_*_t1_*", "gltf_fox_t2_5", false),
        ("a*a", "a", false),
        ("a*a", "aa", true),
        ("*", "anything", true),
        ("wide", "wide_indices", false),
    ] {
        assert_eq!(names(pattern, name), hit, "{pattern} vs {name}");
    }
}

#[test]
fn expectations_are_located_and_need_a_matcher_and_a_reason() {
    let entry =
        "expect:\n  - case: wide\n    matches: 256 matrices\n    reason: a uniform palette\n";
    let p = Profile::parse(Path::new("p.profile.yaml"), &format!("{DEFAULT}{entry}")).unwrap();
    let lines = DEFAULT.lines().count();
    assert_eq!(p.expect[0].at, format!("p.profile.yaml:{}", lines + 2));
    assert!(p.expect[0].covers("wide", "case_loads") && !p.expect[0].covers("other", "x"));
    assert!(!p.expect[0].covers("wide_indices", "case_loads"));
    let msg = parse(&format!("{DEFAULT}{}", entry.replace("256 matrices", "''"))).unwrap_err();
    assert!(
        msg.contains("field `expect[0].matches`: must not be empty"),
        "{msg}"
    );
    let msg = parse(&format!("{DEFAULT}{entry}    status: fail\n")).unwrap_err();
    assert!(msg.contains("status"), "{msg}");
}

/// `influences_above` narrows an entry to cases with a vertex of more influences than a shader
/// reads (`max_influences`), alone or with `joints_above` (both must then hold); `case: shader`
/// may not give it.
#[test]
fn an_expectation_may_cover_cases_by_their_influences() {
    let entry = "max_influences: 3\nexpect:\n  - case: \"*\"\n    influences_above: 3\n    matches: more than the shader reads\n    reason: three influences\n";
    let p = Profile::parse(Path::new("p.profile.yaml"), &format!("{DEFAULT}{entry}")).unwrap();
    assert_eq!(p.lanes(), 3);
    let e = &p.expect[0];
    let most = |i: Option<usize>| e.admits(|| unreachable!("no joints_above"), || i);
    assert!(most(Some(4)) && !most(Some(3)) && !most(None));
    let both = entry.replace("    matches", "    joints_above: 10\n    matches");
    let p = Profile::parse(Path::new("p.profile.yaml"), &format!("{DEFAULT}{both}")).unwrap();
    let e = &p.expect[0];
    assert!(e.admits(|| Some(11), || Some(4)));
    assert!(!e.admits(|| Some(10), || Some(4)) && !e.admits(|| Some(11), || Some(3)));
    let shader = entry.replace("\"*\"", "shader");
    let msg = parse(&format!("{DEFAULT}{shader}")).unwrap_err();
    assert!(
        msg.contains("field `expect[0].influences_above`") && msg.contains("have no vertices"),
        "{msg}"
    );
}

/// `max_influences`: 2 to 4 with one influence set, or 4 a set; anything else is refused naming
/// the field.
#[test]
fn max_influences_is_two_to_four_or_four_a_set() {
    for (text, ok) in [
        ("max_influences: 2\n", true),
        ("max_influences: 4\n", true),
        ("max_influences: 1\n", false),
        ("max_influences: 5\n", false),
        ("influence_sets: 2\nmax_influences: 8\n", true),
        ("influence_sets: 2\nmax_influences: 3\n", false),
    ] {
        // Two sets fail on the default profile's one joints location: not on this field.
        let msg = parse(&format!("{DEFAULT}{text}")).err().unwrap_or_default();
        assert_eq!(msg.contains("field `max_influences`"), !ok, "{text}: {msg}");
    }
}

/// `last_weight: implied`: with 3 or 4 influences of one set, the weights attribute one lane
/// narrower than the joints; with 2 influences, two sets or pairs it is refused naming the field.
#[test]
fn an_implied_last_weight_narrows_the_weights_alone() {
    for (text, ok) in [
        ("last_weight: implied\n", true),
        ("last_weight: given\n", true),
        ("max_influences: 3\nlast_weight: implied\n", true),
        ("max_influences: 2\nlast_weight: implied\n", false),
        ("influence_sets: 2\nlast_weight: implied\n", false),
    ] {
        let msg = parse(&format!("{DEFAULT}{text}")).err().unwrap_or_default();
        assert_eq!(msg.contains("field `last_weight`"), !ok, "{text}: {msg}");
    }
    let c = parse(&format!("{DEFAULT}last_weight: implied\n"))
        .unwrap()
        .contract();
    let ty = |role: Role| {
        (c.vertex_inputs.iter())
            .find(|v| v.role == role)
            .unwrap()
            .ty
    };
    assert_eq!(ty(Role::Joints), Elem::Vec4U32);
    assert_eq!(ty(Role::Weights), Elem::Vec4F32.lanes(3));
    assert_eq!((c.lanes, c.weight_lanes()), (4, 3));
    let pairs = DEFAULT
        .replace(
            "joints: { location: 1, format: u32x4 }",
            "pairs: { location: [1, 2] }",
        )
        .replace("  weights: { location: 2, format: f32x4 }\n", "");
    let msg = parse(&format!("{pairs}last_weight: implied\n")).unwrap_err();
    assert!(msg.contains("field `last_weight`"), "{msg}");
}

/// `vertex.pairs` says how many influences the shader reads: as many sets of 4 as it fills, and
/// the lanes of one where fewer than 4; each pair an input of two floats at its set and lane.
#[test]
fn pairs_set_the_influences_read() {
    let with = |locations: &str| {
        let text = DEFAULT
            .replace(
                "joints: { location: 1, format: u32x4 }",
                &format!("pairs: {{ location: {locations} }}"),
            )
            .replace("  weights: { location: 2, format: f32x4 }\n", "");
        assert_ne!(text, DEFAULT);
        parse(&text)
    };
    for (locations, sets, lanes) in [
        ("[1, 2]", 1, 2),
        ("[1, 2, 3]", 1, 3),
        ("[1, 2, 3, 4]", 1, 4),
        ("[1, 2, 3, 4, 5, 6, 7, 8]", 2, 4),
    ] {
        let p = with(locations).unwrap();
        assert_eq!((p.sets(), p.lanes()), (sets, lanes), "{locations}");
        let c = p.contract();
        let pairs: Vec<_> = (c.vertex_inputs.iter())
            .filter(|v| v.role == Role::Joints)
            .map(|v| (v.location(), v.set, v.pair, v.attribute.format))
            .collect();
        let n = pairs.len();
        assert_eq!(n, sets * 4 - (4 - lanes));
        for (i, (location, set, pair, format)) in pairs.into_iter().enumerate() {
            assert_eq!(location, i as u32 + 1);
            assert_eq!((set, pair), (i / 4, Some(i % 4)));
            assert_eq!(format, wgpu::VertexFormat::Float32x2);
        }
        assert!(c.vertex_inputs.iter().all(|v| v.role != Role::Weights));
    }
    for bad in ["[]", "[1]", "[1, 2, 3, 4, 5]"] {
        let msg = with(bad).unwrap_err();
        assert!(
            msg.contains("field `vertex.pairs.location`"),
            "{bad}: {msg}"
        );
    }
    // Two influences a vec4: lanes 0 and 2 of each set, from one location each.
    for (locations, sets, lanes, at) in [
        ("[1]", 1, 2, vec![(0, 0)]),
        ("[1, 2]", 1, 4, vec![(0, 0), (0, 2)]),
        ("[1, 2, 3, 4]", 2, 4, vec![(0, 0), (0, 2), (1, 0), (1, 2)]),
    ] {
        let p = with(&format!("{locations}, format: vec4")).unwrap();
        assert_eq!((p.sets(), p.lanes()), (sets, lanes), "{locations}");
        let c = p.contract();
        let pairs: Vec<_> = (c.vertex_inputs.iter())
            .filter(|v| v.role == Role::Joints)
            .map(|v| {
                (
                    v.set,
                    v.pair.unwrap(),
                    v.attribute.format,
                    v.pair_influences(),
                )
            })
            .collect();
        let want: Vec<_> = (at.into_iter())
            .map(|(set, lane)| (set, lane, wgpu::VertexFormat::Float32x4, 2))
            .collect();
        assert_eq!(pairs, want, "{locations}");
    }
    for bad in ["[1, 2, 3]", "[1, 2, 3, 4, 5]"] {
        let msg = with(&format!("{bad}, format: vec4")).unwrap_err();
        assert!(
            msg.contains("field `vertex.pairs.location`: must list 1, 2 or 4 locations"),
            "{bad}: {msg}"
        );
    }
}

/// `joints_above` narrows an entry to cases with more joints than a fixed palette holds (a case
/// whose count is unknown, its file not loading, is not covered); the shader's own trials have no
/// joints, so an entry about them may not give it.
#[test]
fn an_expectation_may_cover_cases_by_their_joint_count() {
    let entry = "expect:\n  - case: \"*\"\n    joints_above: 128\n    matches: 128 matrices\n    reason: a uniform palette\n";
    let p = Profile::parse(Path::new("p.profile.yaml"), &format!("{DEFAULT}{entry}")).unwrap();
    let e = &p.expect[0];
    assert!(e.covers("long_chain_256", "posed_matches_cpu"));
    let joints = |j: Option<usize>| e.admits(|| j, || unreachable!("no influences_above"));
    assert!(joints(Some(129)) && !joints(Some(128)) && !joints(None));
    let plain = parse(&format!(
        "{DEFAULT}{}",
        entry.replace("    joints_above: 128\n", "")
    ));
    assert!(plain.unwrap().expect[0].admits(|| None, || None));
    let shader = entry.replace("\"*\"", "shader");
    let msg = parse(&format!("{DEFAULT}{shader}")).unwrap_err();
    assert!(
        msg.contains("field `expect[0].joints_above`") && msg.contains("have no joints"),
        "{msg}"
    );
}

/// An entry about the shader's own trials names them after `shader::`, or by a pattern.
#[test]
fn a_shader_entry_covers_its_trials_by_name_or_pattern() {
    let entry = "expect:\n  - case: shader\n    checks: [tint_accepts, \"translates::fs_* [glsl-*]\"]\n    matches: x\n    reason: y\n";
    let p = parse(&format!("{DEFAULT}{entry}")).unwrap();
    let e = &p.expect[0];
    assert!(e.covers_shader("tint_accepts"));
    assert!(e.covers_shader("translates::fs_main [glsl-450]"));
    assert!(!e.covers_shader("translates::fs_main [spirv]"));
    assert!(!e.covers_shader("translates::vs_main [glsl-450]"));
    assert!(!e.covers("shader", "tint_accepts"));
}

#[test]
fn the_default_profile_is_the_builtin_contract() {
    let mut c = parse(DEFAULT).unwrap().contract();
    let builtin = Contract::builtin();
    assert!(c.profile.is_some());
    c.profile = None;
    for s in &mut c.slots {
        assert!(s
            .origin
            .as_deref()
            .is_some_and(|o| o.starts_with("p.profile.yaml:")));
        s.origin = None;
    }
    for v in &mut c.vertex_inputs {
        v.origin = None;
    }
    c.slots.sort_by_key(|s| s.role);
    assert_eq!(c, builtin);
}

#[test]
fn a_profile_sits_beside_its_shader() {
    assert_eq!(
        beside(Path::new("shaders/examples/a.wgsl")),
        Path::new("shaders/examples/a.profile.yaml")
    );
}

#[test]
fn a_filled_members_palette_offset_is_checked() {
    let root = &crate::config::project_root();
    let good =
        std::fs::read_to_string(root.join("shaders/examples/vertex_mesh_bindings.profile.yaml"))
            .unwrap();
    let at = "palette_offset: current_skin_index";
    assert!(good.contains(at), "the example no longer has `{at}`");
    let c = parse(&good).unwrap().contract();
    assert!(c.offset_in_filled);
    let m = (c.filled[0].members.iter())
        .find(|m| m.name == "current_skin_index")
        .unwrap();
    assert_eq!(m.values, [crate::contract::PALETTE_OFFSET as f64]);
    assert!(
        m.origin.contains("bindings[0].palette_offset"),
        "{}",
        m.origin
    );
    let wrong = |edit: &str, want: &str| {
        let msg = parse(&good.replacen(at, edit, 1)).unwrap_err();
        assert!(msg.contains(want), "{edit}: {msg}");
    };
    wrong(
        "palette_offset: skin-index",
        "field `bindings[0].palette_offset`: `skin-index` is not a WGSL identifier",
    );
    wrong(
        "palette_offset: flags",
        "`flags` is also given a value in `bindings[0].members`",
    );
    let offset = "palette: { group: 1, binding: 1, offset: { group: 2, binding: 0 } }";
    let both = good.replacen("palette: { group: 1, binding: 1 }", offset, 1);
    assert!(both.contains(offset));
    let msg = parse(&both).unwrap_err();
    assert!(
        msg.contains("the palette's offset is already `palette.offset`"),
        "{msg}"
    );
}

mod examples {
    use super::*;

    /// Every example shader (composed from its modules where its profile says so, written as WGSL
    /// where it is GLSL or SPIR-V) validates with naga and its profile parses.
    #[test]
    fn examples_validate_and_their_profiles_parse() {
        let dir = crate::config::project_root().join("shaders/examples");
        let mut n = 0;
        for e in std::fs::read_dir(&dir).unwrap() {
            let path = e.unwrap().path();
            // WGSL, GLSL and SPIR-V shaders, not their profiles or a SPIR-V module's source.
            let shader = !path.to_string_lossy().ends_with(".yaml")
                && path.is_file()
                && (crate::foreign::Form::of(&path) != Ok(crate::foreign::Form::Wgsl)
                    || path.extension().is_some_and(|x| x == "wgsl"));
            if shader {
                Profile::load(&beside(&path)).unwrap();
                let shader = crate::shader::Shader::load(&path, None).unwrap();
                let src = &shader.source;
                let module = naga::front::wgsl::parse_str(src)
                    .map_err(|e| e.emit_to_string_with_path(src, &path.display().to_string()))
                    .unwrap();
                crate::validator::strict()
                    .validate(&module)
                    .map_err(|e| e.emit_to_string_with_path(src, &path.display().to_string()))
                    .unwrap();
                n += 1;
            }
        }
        assert_eq!(n, 35);
    }

    /// Normal and tangent streams of their own: typed or byte-addressed, a skinned one in its
    /// source's format unless it gives its own, and in place laid out as its source.
    #[test]
    fn normal_and_tangent_streams_are_placed_and_checked() {
        const STREAMS: &str =
            include_str!("../../../shaders/examples/compute_frame_streams.profile.yaml");
        let c = Profile::parse(Path::new("p.profile.yaml"), STREAMS)
            .unwrap()
            .contract();
        let packed = |words| crate::format::Stream {
            stride: 12,
            offset: 0,
            words,
            byte_addressed: true,
            encoding: Default::default(),
        };
        assert_eq!(c.streams.normals, packed(3));
        assert_eq!(c.streams.skinned_normals, packed(3));
        assert_eq!(c.streams.skinned_tangents, packed(3));
        assert!(
            c.frames_in_place(Role::SkinnedNormals) && !c.frames_in_place(Role::SkinnedTangents)
        );
        assert!(!c.tangent_handedness());
        assert_eq!(c.slot(Role::Normals).ty, Want::OutputWords);
        // Typed, as before: a 16-byte stride, a tangent's w kept.
        let typed = include_str!("../../../shaders/examples/skinning_normals.profile.yaml");
        let c = Profile::parse(Path::new("p.profile.yaml"), typed)
            .unwrap()
            .contract();
        assert_eq!(c.streams.normals, crate::format::Stream::typed(3));
        assert!(c.tangent_handedness());
        assert_eq!(
            c.reads().normals,
            crate::format::NormalMatrix::InverseTranspose
        );
        let blended = format!("{typed}normal_matrix: blended\n");
        let c = Profile::parse(Path::new("p.profile.yaml"), &blended)
            .unwrap()
            .contract();
        assert_eq!(c.reads().normals, crate::format::NormalMatrix::Blended);
        let normals = "normals: { group: 0, binding: 6, stride: 12 }";
        let tangents = "tangents: { group: 0, binding: 7, stride: 12, format: vec3 }";
        let skinned = "skinned_normals: { group: 0, binding: 6, stride: 12 }";
        let wrong = |edits: &[(&str, &str)]| {
            let mut text = STREAMS.to_string();
            for (from, to) in edits {
                assert!(text.contains(from), "the example has no `{from}`");
                text = text.replacen(from, to, 1);
            }
            Profile::parse(Path::new("p.profile.yaml"), &text)
                .unwrap_err()
                .to_string()
        };
        let cases: [(&[(&str, &str)], &str); 7] = [
            (
                &[(skinned, "skinned_normals: { group: 0, binding: 6 }")],
                "field `compute.skinned_normals.stride`: `compute.skinned_normals` is written in place, at `compute.normals`' binding, so its form must be the source's (byte-addressed: give both `stride` or neither)",
            ),
            (
                &[(normals, "normals: { group: 0, binding: 6, offset: 4 }")],
                "field `compute.normals.offset`: is for a byte-addressed buffer: give `stride` too",
            ),
            (
                &[(normals, "normals: { group: 0, binding: 6, stride: 14 }")],
                "field `compute.normals.stride`: is 14 bytes: a byte-addressed stride is a positive multiple of 4",
            ),
            (
                &[(tangents, "tangents: { group: 0, binding: 7, stride: 12, offset: 4, format: vec3 }")],
                "field `compute.tangents.offset`: is byte 4: the 12-byte tangent must start on a 4-byte boundary and lie inside the stride (12 bytes)",
            ),
            (
                &[(skinned, "skinned_normals: { group: 0, binding: 6, stride: 16 }")],
                "field `compute.skinned_normals.stride`: `compute.skinned_normals` is written in place, at `compute.normals`' binding, so its stride must be the source's (12 bytes)",
            ),
            (
                &[
                    (normals, "normals: { group: 0, binding: 6, stride: 16, format: vec4 }"),
                    (skinned, "skinned_normals: { group: 0, binding: 6, stride: 16, format: vec3 }"),
                ],
                "field `compute.skinned_normals.format`: `compute.skinned_normals` is written in place, at `compute.normals`' binding, so its format must be the source's (vec4)",
            ),
            (
                &[(
                    "skinned_tangents: { group: 0, binding: 8, stride: 12 }",
                    "skinned_tangents: { group: 0, binding: 8, stride: 16, format: vec4 }",
                )],
                "field `compute.skinned_tangents.format`: is vec4, a tangent with the source's handedness in w, but the source tangents are vec3",
            ),
        ];
        for (edits, want) in cases {
            let msg = wrong(edits);
            assert!(msg.contains(want), "{edits:?}: {msg}");
        }
    }

    /// A vertex stage's skinned tangent in its source's type, or a vec3 beside a vec4 source
    /// (`format: vec3`): compared then by direction alone; a vec4 beside a vec3 source is refused.
    #[test]
    fn a_vertex_stages_skinned_tangent_may_drop_the_handedness() {
        const DIRECTION: &str =
            include_str!("../../../shaders/examples/vertex_tangent_direction.profile.yaml");
        let contract = |text: &str| {
            Profile::parse(Path::new("p.profile.yaml"), text)
                .unwrap()
                .contract()
        };
        let output = |c: &Contract| {
            (c.vertex_outputs.iter())
                .find(|o| o.role == Role::SkinnedTangents)
                .map(|o| (o.location, o.ty))
        };
        let c = contract(DIRECTION);
        assert_eq!(output(&c), Some((1, Elem::Vec3F32)));
        assert!(c.vec3_tangent_output() && !c.tangent_handedness());
        // Compared through a tangent function, which returns a vec4: its w is still checked.
        const FUNCTIONS: &str =
            include_str!("../../../shaders/examples/vertex_normals.profile.yaml");
        let through = contract(&FUNCTIONS.replace(
            "skinned_tangent: { location: 1 }",
            "skinned_tangent: { location: 1, format: vec3 }",
        ));
        assert_eq!(output(&through), Some((1, Elem::Vec3F32)));
        assert!(through.tangent_handedness());
        // Left out, the format is the source's: a vec4 and its handedness.
        let source = contract(&DIRECTION.replace(
            "skinned_tangent: { location: 1, format: vec3 }",
            "skinned_tangent: { location: 1 }",
        ));
        assert_eq!(output(&source), Some((1, Elem::Vec4F32)));
        assert!(source.tangent_handedness());
        let three = DIRECTION.replace(
            "tangent: { location: 2 }",
            "tangent: { location: 2, format: vec3 }",
        );
        let c = contract(&three);
        assert_eq!(output(&c), Some((1, Elem::Vec3F32)));
        let wrong = three.replace("format: vec3 }\n  camera", "format: vec4 }\n  camera");
        let msg = Profile::parse(Path::new("p.profile.yaml"), &wrong)
            .unwrap_err()
            .to_string();
        assert!(
            msg.contains("p.profile.yaml:17:")
                && msg.contains("field `vertex.skinned_tangent.format`: is vec4, a tangent with the source's handedness in w, but the source tangent is vec3 (`vertex.tangent.format`)"),
            "{msg}"
        );
    }

    /// Each wrong-profile class: the message names the profile file, line and field, and the
    /// shader's binding or entry point.
    #[test]
    fn wrong_profiles_are_located() {
        let root = &crate::config::project_root();
        let shader = root.join("shaders/examples/compute_u16_pairs.wgsl");
        let good = std::fs::read_to_string(beside(&shader)).unwrap();
        let dir = root.join("target/profile-tests");
        std::fs::create_dir_all(&dir).unwrap();
        let check = |name: &str, edits: &[(&str, &str)], wants: &[&str]| {
            let mut text = good.clone();
            for (from, to) in edits {
                assert!(text.contains(from), "{name}: the profile has no `{from}`");
                text = text.replacen(from, to, 1);
            }
            let path = dir.join(format!("{name}.profile.yaml"));
            std::fs::write(&path, text).unwrap();
            let msg = match crate::shader::Shader::load(&shader, Some(&path)) {
                Err(e) => e.to_string(),
                Ok(s) => s.validate().map(|_| ()).unwrap_err().to_string(),
            };
            for want in wants {
                assert!(msg.contains(want), "{name}: {msg}\nwanted: {want}");
            }
        };
        check(
            "another_type",
            &[
                (
                    "weights: { group: 1, binding: 3",
                    "weights: { group: 1, binding: 9",
                ),
                (
                    "joints: { group: 1, binding: 2",
                    "joints: { group: 1, binding: 3",
                ),
                (
                    "weights: { group: 1, binding: 9",
                    "weights: { group: 1, binding: 2",
                ),
            ],
            &[
                "binding 2 (`src_joints`) must be array<vec4<f32>> (or array<f32>, 4 an element), is array<vec2<u32>>",
                "another_type.profile.yaml:",
            ],
        );
        check(
            "format",
            &[(
                "joints: { group: 1, binding: 2, format: u16x4 }",
                "joints: { group: 1, binding: 2, format: u32x4 }",
            )],
            &["binding 2 (`src_joints`) must be array<vec4<u32>> (or array<u32>, 4 an element), is array<vec2<u32>> (the profile's", "format.profile.yaml:7:3, field `compute.joints`"],
        );
        check(
            "entry",
            &[("entry: main", "entry: skin_main")],
            &[
                "entry point `skin_main` is missing (the profile's",
                "entry.profile.yaml:5:3, field `compute.entry`",
            ],
        );
        check(
            "other_shader",
            &[("shader: compute_u16_pairs.wgsl", "shader: skinning.wgsl")],
            &["other_shader.profile.yaml:2:1: field `shader`: this profile describes `skinning.wgsl`, not the shader under test"],
        );
    }

    #[test]
    fn a_profile_of_its_wgsl_keeps_the_layout() {
        let text = "shader: a.wgsl\nmodules:\n  entry: a.wgsl\n  # note\n  defines:\n    X: true\ndefines: { Y: 1 }\npalette: { group: 0, binding: 0 }\nvertex:\n  entry: vs\n";
        let p = Profile {
            source: text.into(),
            ..Profile::parse(Path::new("p.profile.yaml"), "palette: { group: 0, binding: 0 }\ncompute:\n  entry: main\n  positions: { group: 0, binding: 1 }\n  joints: { group: 0, binding: 2 }\n  weights: { group: 0, binding: 3 }\n  skinned: { group: 0, binding: 4 }\n  count: { group: 0, binding: 5 }\n").unwrap()
        };
        assert_eq!(
            p.of_its_wgsl(),
            "palette: { group: 0, binding: 0 }\nvertex:\n  entry: vs\n"
        );
    }

    #[test]
    fn module_paths_and_defines_are_located() {
        let base = "palette: { group: 0, binding: 0 }\ncompute:\n  entry: main\n  positions: { group: 0, binding: 1 }\n  joints: { group: 0, binding: 2 }\n  weights: { group: 0, binding: 3 }\n  skinned: { group: 0, binding: 4 }\n  count: { group: 0, binding: 5 }\n";
        for (modules, field) in [
            ("modules:\n  entry: /tmp/a.wgsl\n", "modules.entry"),
            (
                "modules:\n  entry: a.wgsl\n  folders: [x, ../../y]\n",
                "modules.folders[1]",
            ),
            (
                "modules:\n  entry: a.wgsl\n  defines:\n    N: 9999999999\n",
                "modules.defines.N",
            ),
            (
                "modules:\n  entry: a.wgsl\n  defines:\n    a-b: true\n",
                "modules.defines.a-b",
            ),
        ] {
            let text = format!("{modules}{base}");
            let e = Profile::parse(Path::new("p.profile.yaml"), &text)
                .unwrap_err()
                .to_string();
            assert!(e.contains(&format!("field `{field}`")), "{e}");
        }
    }
}

#[test]
fn a_vertex_pool_lays_out_its_regions_and_their_starts() {
    use crate::regions::Stream;
    let text = "palette: { group: 0, binding: 2 }\ninfluence_sets: 2\ncompute:\n  entry: main\n  regions:\n    group: 0\n    binding: 0\n    starts: { group: 0, binding: 1 }\n    unit: words\n    position: { start: p, format: vec4 }\n    tangent: { start: t, format: vec3 }\n    joints: { start: j, format: u16x4 }\n    weights: { start: w, format: unorm8x4 }\n    skinned_position: { start: sp, format: vec3 }\n    skinned_tangent: { start: st }\nbindings:\n  - { group: 0, binding: 1, count: n }\n";
    let c = parse(text).unwrap().contract();
    let pool = c.regions.as_ref().unwrap();
    // A vec4 position 16 bytes, a vec3 tangent 12 (its skinned one too, inherited), two sets of
    // u16 joints 2 * 8, two sets of unorm8 weights 2 * 4, a vec3 skinned position 12.
    assert_eq!(
        pool.streams,
        vec![
            (Stream::Position, 16),
            (Stream::Tangent, 12),
            (Stream::Joints, 16),
            (Stream::Weights, 8),
            (Stream::SkinnedPosition, 12),
            (Stream::SkinnedTangent, 12),
        ]
    );
    assert!(pool.in_words && !c.tangent_handedness());
    assert!(c.writes(Role::SkinnedTangents) && !c.writes(Role::SkinnedNormals));
    // One binding holds the pool, read and written; the starts are the filled struct's members.
    let slot = c.slot(Role::Positions);
    assert_eq!((slot.group, slot.binding), (0, 0));
    assert!(c.try_slot(Role::Skinned).is_none() && c.try_slot(Role::Joints).is_none());
    let starts: Vec<(Stream, &str)> = (c.filled[0].starts.iter())
        .map(|(s, m)| (*s, m.name.as_str()))
        .collect();
    assert_eq!(starts.len(), 6);
    assert_eq!(starts[2], (Stream::Joints, "j"));
    assert!(
        (c.filled[0].starts[2].1.origin).contains("field `compute.regions.joints.start`"),
        "{}",
        c.filled[0].starts[2].1.origin
    );
}

#[test]
fn a_stored_position_w_is_for_positions_in_a_buffer() {
    let vertex = "palette: { group: 0, binding: 0 }\nvertex:\n  entry: vs\n  position: { location: 0 }\n  joints: { location: 1 }\n  weights: { location: 2 }\n  camera: { group: 0, binding: 1 }\n";
    let msg = parse(&format!("{vertex}position_w: 1\n")).unwrap_err();
    assert!(
        msg.contains("field `position_w`: is the w of positions stored in a buffer"),
        "{msg}"
    );
    // 0 says what the default says; a compute stage's positions take either.
    assert!(parse(&format!("{vertex}position_w: 0\n")).is_ok());
    let compute = "palette: { group: 0, binding: 0 }\ncompute:\n  entry: main\n  positions: { group: 0, binding: 1 }\n  joints: { group: 0, binding: 2 }\n  weights: { group: 0, binding: 3 }\n  skinned: { group: 0, binding: 4 }\nposition_w: 1\n";
    let c = parse(compute).unwrap().contract();
    assert_eq!(c.position_w, crate::format::PositionW::One);
}
