//! Unit tests of mutant generation, judging and the report.

use super::report::parse_min_kill_rate;
use super::site::perturb;
use super::*;
use crate::contract::Contract;
use crate::shader::tests::default_source;

/// The kinds that need skinned normal or tangent outputs, which the built-in contract has not.
const FRAMES: [Kind; 3] = [
    Kind::NormalPlainMatrix,
    Kind::RenormalisationDropped,
    Kind::TangentWLost,
];

/// Every kind but those of normals and tangents and those of the layouts the built-in contract
/// has not (influence sets past the first, byte-addressed buffers).
fn positional() -> impl Iterator<Item = Kind> {
    Kind::ALL
        .into_iter()
        .filter(|k| !FRAMES.contains(k) && !k.needs_layout())
}

#[test]
fn every_kind_is_generated_for_the_default_shader() {
    let mutants = generate(&default_source(), &Contract::builtin());
    for kind in positional() {
        assert!(
            mutants.iter().any(|m| m.kind == kind),
            "no {kind} mutant: {:#?}",
            mutants.iter().map(|m| &m.id).collect::<Vec<_>>()
        );
    }
}

/// The contract written another way: the blend in a helper of the skinning helper, vertex inputs
/// as a struct, short type names, a `const` workgroup size.
const OTHER_STYLE: &str = r#"
const WG: u32 = 64u;
struct Count { count: u32 }
struct View { scale: f32, offset_y: f32, half_width: f32 }
@group(0) @binding(0) var<storage> palette: array<mat4x4f>;
@group(0) @binding(1) var<storage> positions: array<vec4f>;
@group(0) @binding(2) var<storage> joints: array<vec4u>;
@group(0) @binding(3) var<storage> weights: array<vec4f>;
@group(0) @binding(4) var<storage, read_write> skinned: array<vec4f>;
@group(0) @binding(5) var<uniform> params: Count;
@group(0) @binding(6) var<uniform> view: View;

fn blend(j: vec4u, w: vec4f) -> mat4x4f {
    var m = mat4x4f();
    for (var k = 0u; k < 4u; k++) {
        if (w[k] != 0.0) {
            m = m + palette[j[k]] * w[k];
        }
    }
    return m;
}

fn skin(p: vec3f, j: vec4u, w: vec4f) -> vec3f {
    return (blend(j, w) * vec4f(p, 1.0)).xyz;
}

@compute @workgroup_size(WG)
fn skin_compute(@builtin(global_invocation_id) id: vec3u) {
    if (id.x < params.count) {
        skinned[id.x] = vec4f(skin(positions[id.x].xyz, joints[id.x], weights[id.x]), 0.0);
    }
}

struct VIn {
    @location(0) position: vec3f,
    @location(1) joint: vec4u,
    @location(2) weight: vec4f,
}
struct VOut {
    @builtin(position) clip: vec4f,
    @location(0) tint: f32,
}

@vertex
fn vs_skin(v: VIn) -> VOut {
    let p = skin(v.position, v.joint, v.weight);
    return VOut(vec4f(p.x / view.half_width, p.y * view.scale + view.offset_y, 0.0, 1.0), f32(v.joint.x) / 8.0);
}

@fragment
fn fs_skin(@location(0) tint: f32) -> @location(0) vec4f {
    return vec4f(tint, 1.0 - tint, 0.5, 1.0);
}
"#;

#[test]
fn every_kind_is_generated_for_a_shader_written_another_way() {
    assert!(crate::shader::contract_violations(
        &crate::contract::Contract::builtin(),
        &parse_and_validate(OTHER_STYLE).unwrap(),
        None,
    )
    .is_empty());
    let mutants = generate(OTHER_STYLE, &Contract::builtin());
    for kind in positional() {
        assert!(
            mutants.iter().any(|m| m.kind == kind),
            "no {kind} mutant: {:#?}",
            mutants.iter().map(|m| &m.id).collect::<Vec<_>>()
        );
    }
    for m in &mutants {
        assert_eq!(m.verdict, Verdict::Valid, "{}: {:?}", m.id, m.verdict);
    }
    // The weights are swapped where the blend reads them, once: not again in the caller.
    let swap = mutants.iter().find(|m| m.kind == Kind::WeightSwap).unwrap();
    assert!(
        swap.source.contains("fn blend(j: vec4u, w_mutant: vec4f)"),
        "{}",
        swap.source
    );
    assert!(
        swap.source
            .contains("fn skin(p: vec3f, j: vec4u, w: vec4f)"),
        "{}",
        swap.source
    );
    let skipped = mutants
        .iter()
        .find(|m| m.kind == Kind::SkinningSkipped)
        .unwrap();
    assert!(
        skipped.source.contains("let p = v.position;"),
        "{}",
        skipped.source
    );
}

#[test]
fn every_mutant_parses_validates_and_differs() {
    let source = default_source();
    let mutants = generate(&source, &Contract::builtin());
    assert!(mutants.len() >= 15, "{}", mutants.len());
    for m in &mutants {
        assert_eq!(m.verdict, Verdict::Valid, "{}: {:?}", m.id, m.verdict);
        parse_and_validate(&m.source).unwrap_or_else(|e| panic!("{}: {e}", m.id));
        assert_ne!(m.source, source, "{}", m.id);
        assert!(!m.diff.is_empty(), "{}", m.id);
        assert!(!m.hint.is_empty() && !m.description.is_empty(), "{}", m.id);
    }
    let ids: BTreeSet<&str> = mutants.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(ids.len(), mutants.len(), "ids must be unique");
}

#[test]
fn mutants_make_the_intended_edits() {
    let mutants = generate(&default_source(), &Contract::builtin());
    let after = |id: &str| -> String {
        let m = mutants.iter().find(|m| m.id == id).unwrap();
        m.diff
            .iter()
            .map(|c| c.after.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert!(after("weight_swap-1").contains("let w = w_mutant.yxzw;"));
    assert!(after("homogeneous_dropped-1").contains("vec4<f32>(p, 0.0)"));
    assert!(after("palette_transposed-1").contains("transpose(palette[j[k]])"));
    assert!(after("influence_dropped-1").contains("k < 3u"));
    assert!(after("skinning_skipped-1").contains("let p = position;"));
    assert!(after("count_guard-1").contains("i > params.count"));
    assert!(after("view_transform-1").contains("p.x * view.half_width"));
    assert!(after("view_transform-2").contains("+ (-view.offset_y)"));
    let constants: Vec<String> = mutants
        .iter()
        .filter(|m| m.kind == Kind::ConstantPerturbed)
        .map(|m| m.description.clone())
        .collect();
    assert!(
        constants.iter().any(|d| d.ends_with("1.0 -> 1.000125"))
            && constants.iter().any(|d| d.ends_with("8.0 -> 8.001")),
        "{constants:?}"
    );
    let fields: Vec<String> = mutants
        .iter()
        .filter(|m| m.kind == Kind::UniformField)
        .map(|m| after(&m.id))
        .collect();
    assert!(
        fields.iter().any(|a| a.contains("p.y * view.half_width")),
        "{fields:?}"
    );
    assert!(
        fields.iter().any(|a| a.contains("i >= params._pad0")),
        "{fields:?}"
    );
}

#[test]
fn located_by_naga_not_by_our_names() {
    // The same shader with every name changed and the skinning loop unrolled by hand: the
    // mutants are still found from bindings, locations and member offsets.
    let source = default_source()
        .replace("palette", "bones")
        .replace("weights", "wts")
        .replace("half_width", "hw")
        .replace("offset_y", "oy")
        .replace("fn skin(", "fn deform(")
        .replace("= skin(", "= deform(")
        .replace("skin(positions", "deform(positions")
        .replace("(p: vec3<f32>, j: vec4<u32>, w: vec4<f32>)", "(pos: vec3<f32>, ji: vec4<u32>, wi: vec4<f32>)")
        .replace("vec4<f32>(p, 1.0)", "vec4<f32>(pos, 1.0)")
        .replace(
            "for (var k = 0u; k < 4u; k = k + 1u) {\n        if (w[k] != 0.0) {\n            acc = acc + w[k] * (bones[j[k]] * h).xyz;\n        }\n    }",
            "acc = wi.x * (bones[ji.x] * h).xyz + wi.y * (bones[ji.y] * h).xyz + wi.z * (bones[ji.z] * h).xyz + wi.w * (bones[ji.w] * h).xyz;",
        );
    assert!(source.contains("wi.w * (bones[ji.w]"), "{source}");
    parse_and_validate(&source).unwrap();
    let mutants = generate(&source, &Contract::builtin());
    for kind in positional() {
        assert!(mutants.iter().any(|m| m.kind == kind), "no {kind} mutant");
    }
    for m in &mutants {
        assert_eq!(m.verdict, Verdict::Valid, "{}: {:?}", m.id, m.verdict);
    }
    let dropped = mutants
        .iter()
        .find(|m| m.kind == Kind::InfluenceDropped)
        .unwrap();
    assert!(
        dropped.diff[0]
            .after
            .contains("let wi = vec4<f32>(wi_mutant.xyz, 0.0);"),
        "{:?}",
        dropped.diff
    );
}

#[test]
fn identical_ir_is_equivalent() {
    let source = default_source();
    let original = fingerprint(&naga::front::wgsl::parse_str(&source).unwrap());
    // A constant that rounds to the same f32, and formatting: the same IR.
    let same = source
        .replace("/ 8.0;", "/ 8.0000000001;")
        .replace("let i = id.x;", "let i  =  id.x;");
    assert_eq!(
        fingerprint(&naga::front::wgsl::parse_str(&same).unwrap()),
        original
    );
    let different = source.replace("/ 8.0;", "/ 8.001;");
    assert_ne!(
        fingerprint(&naga::front::wgsl::parse_str(&different).unwrap()),
        original
    );
}

#[test]
fn edits_apply_and_refuse_overlaps() {
    let e = |a: usize, b: usize, t: &str| Edit {
        range: a..b,
        text: t.into(),
    };
    assert_eq!(
        apply("abcdef", &[e(4, 5, "E"), e(0, 1, "A"), e(2, 2, "+")]).unwrap(),
        "Ab+cdEf"
    );
    assert!(apply("abcdef", &[e(0, 3, "x"), e(2, 4, "y")]).is_err());
    assert_eq!(perturb(8.0), "8.001");
    assert_eq!(perturb(1.0), "1.000125");
    assert_eq!(perturb(0.0), "0.000125");
}

#[test]
fn config_file_parser() {
    assert_eq!(
        parse_min_kill_rate("# comment\nmin_kill_rate = 0.9  # trailing\n").unwrap(),
        0.9
    );
    assert_eq!(parse_min_kill_rate("min_kill_rate=1").unwrap(), 1.0);
    for bad in [
        "",
        "# only a comment",
        "min_kill_rate = 1.5",
        "min_kill_rate = much",
        "min_kill_rates = 1.0",
        "min_kill_rate 1.0",
        "min_kill_rate = 1.0\nmin_kill_rate = 0.5",
    ] {
        assert!(parse_min_kill_rate(bad).is_err(), "{bad:?}");
    }
    // The messages `mutation.toml`'s errors print.
    let said = |text: &str| parse_min_kill_rate(text).unwrap_err().to_string();
    assert_eq!(said(""), "no min_kill_rate line");
    assert_eq!(
        said("\nmin_kill_rate 1.0"),
        "line 2: expected `key = value`, got `min_kill_rate 1.0`"
    );
    assert_eq!(
        said("min_kill_rates = 1"),
        "line 1: unknown key `min_kill_rates` (known: min_kill_rate)"
    );
    assert_eq!(
        said("min_kill_rate = 1\nmin_kill_rate = 1"),
        "line 2: min_kill_rate given twice"
    );
    assert_eq!(
        said("min_kill_rate = much"),
        "line 1: min_kill_rate: `much` is not a number"
    );
    assert_eq!(
        said("min_kill_rate = 1.5"),
        "line 1: min_kill_rate must be between 0 and 1, got 1.5"
    );
    let root = &crate::config::project_root();
    let min = min_kill_rate(root).unwrap();
    assert!((0.0..=1.0).contains(&min));
    assert!(min_kill_rate(&root.join("no-such-dir")).is_err());
}

#[test]
fn rates_per_adapter_and_markdown() {
    let mutant = |id: &str| Mutant {
        id: id.into(),
        kind: Kind::WeightSwap,
        description: "d".into(),
        diff: vec![LineChange {
            line: 1,
            before: "a".into(),
            after: "b".into(),
        }],
        hint: "a hint".into(),
        verdict: Verdict::Valid,
        source: String::new(),
    };
    let result = |id: &str, status: Status, on: &[&str]| MutantResult {
        mutant: mutant(id).into(),
        status,
        killed_on: on.iter().map(|s| s.to_string()).collect(),
        killed_by: on
            .iter()
            .map(|a| Kill {
                case: "c".into(),
                check: "k".into(),
                adapter: a.to_string(),
            })
            .collect(),
        seconds: 0.1,
    };
    let report = MutationReport {
        shader: "s.wgsl".into(),
        adapters: vec!["vulkan/x".into(), "gl/x".into()],
        kinds: super::report::kind_names(),
        skinning_kinds: super::report::skinning_kinds(),
        mutants: vec![
            result("a", Status::Killed, &["vulkan/x", "gl/x"]),
            result("b", Status::Killed, &["vulkan/x"]),
            result("c", Status::Equivalent, &[]),
            result("d", Status::Survived, &[]),
        ],
        ..Default::default()
    };
    let rates = report.rates();
    assert_eq!((rates[0].killed, rates[0].survived), (2, 1));
    assert_eq!((rates[1].killed, rates[1].survived), (1, 2));
    assert_eq!(rates[0].equivalent, 1);
    assert!((report.kill_rate() - 1.0 / 3.0).abs() < 1e-12);
    assert!(report.passes(0.3) && !report.passes(0.5));
    let md = report.markdown();
    assert!(md.contains("| gl/x | 1 | 2 | 1 | 0 | 33.3% |"), "{md}");
    // Only weight swaps here: every other kind is named as absent.
    assert!(
        md.contains("Kinds with no site in this shader, so no mutant and no say in the kill rate: homogeneous_dropped, "),
        "{md}"
    );
    assert!(!md.contains("kill rate: weight_swap"), "{md}");
    assert!(
        md.contains("`c::k [vulkan/x]`; survived on gl/x: a hint"),
        "{md}"
    );
    assert!(
        md.contains("| `d` | weight_swap | d | SURVIVED | hint: a hint |"),
        "{md}"
    );
    let json = serde_json::to_string(&report).unwrap();
    let back: MutationReport = serde_json::from_str(&json).unwrap();
    assert_eq!(back.mutants.len(), 4);
    assert!(!MutationReport::default().passes(0.0));
}

#[test]
fn each_kind_is_registered_once_under_its_serialized_name() {
    let names: BTreeSet<&str> = Kind::ALL.iter().map(|k| k.name()).collect();
    assert_eq!(names.len(), Kind::ALL.len());
    for kind in Kind::ALL {
        let serialized = serde_json::to_string(&kind).unwrap();
        assert_eq!(serialized, format!("\"{}\"", kind.name()));
    }
}

/// The layout kinds find their sites in the examples that have them: the second influence set of
/// `vertex_eight_influences`, the offset constants of `compute_pulled`.
#[test]
fn layout_kinds_are_generated_for_the_examples() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders/examples");
    for (name, kind, want) in [
        (
            "vertex_eight_influences",
            Kind::InfluenceSetDropped,
            "weights1",
        ),
        ("compute_pulled", Kind::ByteOffset, "WEIGHTS_WORD"),
    ] {
        let source = std::fs::read_to_string(root.join(format!("{name}.wgsl"))).unwrap();
        let contract = crate::profile::Profile::load(&root.join(format!("{name}.profile.yaml")))
            .unwrap()
            .contract();
        let mutants = generate(&source, &contract);
        let found: Vec<&Mutant> = mutants.iter().filter(|m| m.kind == kind).collect();
        assert!(!found.is_empty(), "{name}: no {kind} mutant");
        for m in &found {
            assert_eq!(m.verdict, Verdict::Valid, "{}: {:?}", m.id, m.verdict);
        }
        assert!(
            found
                .iter()
                .any(|m| m.description.contains(want)
                    || m.diff.iter().any(|d| d.before.contains(want))),
            "{name}: {:#?}",
            found
                .iter()
                .map(|m| (&m.description, &m.diff))
                .collect::<Vec<_>>()
        );
    }
}

/// The mutants of example `name` of `shaders/examples/` (composed where it has modules; a GLSL
/// or SPIR-V one named with its extension), each checked valid.
fn example_mutants(name: &str) -> Vec<Mutant> {
    let file = match name.contains('.') {
        true => name.to_string(),
        false => format!("{name}.wgsl"),
    };
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("shaders/examples")
        .join(file);
    let shader = crate::shader::Shader::load(&path, None).unwrap();
    let mutants = generate(&shader.source, &shader.contract);
    for m in &mutants {
        assert_eq!(m.verdict, Verdict::Valid, "{}: {:?}", m.id, m.verdict);
    }
    mutants
}

/// The changed lines of the first mutant of `kind`, trimmed.
fn after(mutants: &[Mutant], kind: Kind) -> Vec<String> {
    let m = mutants.iter().find(|m| m.kind == kind);
    let m = m.unwrap_or_else(|| panic!("no {kind} mutant"));
    m.diff.iter().map(|d| d.after.trim().to_string()).collect()
}

#[test]
fn every_kind_is_generated_for_the_shader_that_skins_normals() {
    let mutants = example_mutants("skinning_normals");
    for kind in Kind::ALL.into_iter().filter(|k| !k.needs_layout()) {
        assert!(mutants.iter().any(|m| m.kind == kind), "no {kind} mutant");
    }
    let after = |kind: Kind| after(&mutants, kind);
    assert_eq!(
        after(Kind::NormalPlainMatrix),
        ["return normalize((blend(j, w)) * n);"]
    );
    assert_eq!(
        after(Kind::RenormalisationDropped),
        [
            "return (normal_matrix(blend(j, w)) * n);",
            "return vec4<f32>((blend(j, w) * t.xyz), t.w);"
        ]
    );
    assert_eq!(
        after(Kind::TangentWLost),
        ["skinned_tangents[i] = vec4<f32>((skin_tangent(tangents[i], joints[i], weights[i])).xyz, 1.0);"]
    );
}

/// The example that pulls its normal and tangent from a byte-addressed buffer and packs the
/// skinned ones beside the position: the normal kinds land on its entry point's own code.
#[test]
fn the_normal_kinds_land_in_a_byte_addressed_output() {
    let mutants = example_mutants("compute_pulled");
    assert_eq!(
        after(&mutants, Kind::NormalPlainMatrix),
        ["let sn = normalize((blend) * n);"]
    );
    assert_eq!(
        after(&mutants, Kind::TangentWLost),
        ["skinned[ot + 3u] = 1.0f;"]
    );
    assert_eq!(after(&mutants, Kind::RenormalisationDropped).len(), 2);
}

/// The example's normal and tangent streams (a float stream in place, vec3 tangents): the normal
/// kinds land on its entry point; the tangent's w kind has no w to move; and where the profile says
/// the shader skins normals by the blended matrix itself, the plain-matrix kind does not apply.
#[test]
fn the_normal_kinds_follow_the_streams_and_the_declared_normal_matrix() {
    let mutants = example_mutants("compute_frame_streams");
    assert_eq!(
        after(&mutants, Kind::NormalPlainMatrix),
        ["let n = normalize((linear) * source);"]
    );
    assert!(!mutants.iter().any(|m| m.kind == Kind::TangentWLost));
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("shaders/examples/compute_frame_streams.wgsl");
    let shader = crate::shader::Shader::load(&path, None).unwrap();
    let mut contract = (*shader.contract).clone();
    contract.normal_matrix = crate::contract::NormalMatrix::Blended;
    let mutants = generate(&shader.source, &contract);
    assert!(!mutants.iter().any(|m| m.kind == Kind::NormalPlainMatrix));
    assert!(mutants
        .iter()
        .any(|m| m.kind == Kind::RenormalisationDropped));
    // A `var` normalised: naga spans that argument as the declaration, and the call is found
    // from its own span instead.
    let from = "let n = normalize(normal_matrix(linear) * source);";
    assert!(
        shader.source.contains(from),
        "the example no longer has `{from}`"
    );
    let var = "var m = normal_matrix(linear) * source;\n    let n = normalize(m);";
    let dropped = after(
        &generate(&shader.source.replacen(from, var, 1), &contract),
        Kind::RenormalisationDropped,
    );
    assert!(dropped.contains(&"let n = (m);".to_string()), "{dropped:?}");
}

/// A shader with no count uniform bounds its invocations by an input's `arrayLength`: the count
/// guard kind moves that bound.
#[test]
fn the_count_guard_lands_on_an_array_length_bound() {
    let mutants = example_mutants("compute_skin_streams");
    assert_eq!(
        after(&mutants, Kind::CountGuard),
        ["if (i > arrayLength(&vertices)) {"]
    );
}

/// A count member reached through a nested struct and read as a range's length (`end - start`)
/// in a storage binding: the count guard kind moves that bound.
#[test]
fn the_count_guard_lands_on_a_ranges_length() {
    let mutants = example_mutants("compute_in_place");
    assert_eq!(
        after(&mutants, Kind::CountGuard),
        ["if (gid.x > params.vertices.end - params.vertices.start) {"]
    );
}

/// `compute_in_place` with `edits` made to its WGSL (each `from` checked present first) and
/// `profile_edits` to its profile, written as `name` under `target/mutate-tests` and loaded.
fn in_place_variant(
    name: &str,
    edits: &[(&str, &str)],
    profile_edits: &[(&str, &str)],
) -> crate::shader::Shader {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let example = |ext: &str| {
        std::fs::read_to_string(root.join(format!("shaders/examples/compute_in_place.{ext}")))
            .unwrap()
    };
    let mut source = example("wgsl");
    for (from, to) in edits {
        assert!(
            source.contains(from),
            "compute_in_place no longer has `{from}`"
        );
        source = source.replace(from, to);
    }
    let mut profile = example("profile.yaml").replace(
        "shader: compute_in_place.wgsl",
        &format!("shader: {name}.wgsl"),
    );
    for (from, to) in profile_edits {
        profile = profile.replace(from, to);
    }
    let dir = root.join("target/mutate-tests");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.wgsl"));
    std::fs::write(&path, source).unwrap();
    std::fs::write(dir.join(format!("{name}.profile.yaml")), profile).unwrap();
    crate::shader::Shader::load(&path, None).unwrap()
}

/// The count member is a lane of a vector (`counts.y`, `params.counts.y`): the count guard kind
/// moves that bound too.
#[test]
fn the_count_guard_lands_on_a_count_in_a_vectors_lane() {
    let shader = in_place_variant(
        "in_place_lane",
        &[
            (
                "    joint_offset: u32,",
                "    joint_offset: u32,\n    counts: vec4<u32>,",
            ),
            (
                "gid.x >= params.vertices.end - params.vertices.start",
                "gid.x >= params.counts.y",
            ),
        ],
        &[("count: vertices.end", "count: counts.y")],
    );
    let mutants = generate(&shader.source, &shader.contract);
    assert_eq!(
        after(&mutants, Kind::CountGuard),
        ["if (gid.x > params.counts.y) {"]
    );
}

/// The count member's path steps through an array of structs to its element 0 (`vertices.end`
/// naming `params.vertices[0].end`): the count guard kind moves that bound too.
#[test]
fn the_count_guard_lands_on_a_count_inside_an_array_of_structs() {
    let shader = in_place_variant(
        "in_place_ranges",
        &[
            ("    vertices: Range,", "    vertices: array<Range, 2>,"),
            ("params.vertices.", "params.vertices[0]."),
        ],
        &[],
    );
    let mutants = generate(&shader.source, &shader.contract);
    assert_eq!(
        after(&mutants, Kind::CountGuard),
        ["if (gid.x > params.vertices[0].end - params.vertices[0].start) {"]
    );
}

/// Skinned in place and bounded by the length of the one buffer it reads and writes: that is the
/// output's length, which the harness binds as exactly the case's vertices, so the count guard
/// kind finds no site (an extra invocation's write would be dropped, and no case could see it).
#[test]
fn the_count_guard_leaves_an_in_place_buffers_length_alone() {
    let shader = in_place_variant(
        "in_place_by_length",
        &[(
            "gid.x >= params.vertices.end - params.vertices.start",
            "gid.x >= arrayLength(&vertices.data)",
        )],
        &[(", count: vertices.end", "")],
    );
    assert!(shader.contract.in_place());
    let mutants = generate(&shader.source, &shader.contract);
    assert!(!mutants.iter().any(|m| m.kind == Kind::CountGuard));
    assert!(mutants.iter().any(|m| m.kind == Kind::InfluenceDropped));
}

/// The composed example indexes its palette in `joint_matrix(j: u32)`, which reads no joints or
/// weights of its own: the influence kinds land in its caller's blend, and no swizzle lands on
/// the scalar `j`.
#[test]
fn influence_kinds_land_where_the_blend_reads_them() {
    let mutants = example_mutants("composed_skinning");
    for kind in [
        Kind::WeightSwap,
        Kind::JointIndexSwapped,
        Kind::InfluenceDropped,
    ] {
        assert!(mutants.iter().any(|m| m.kind == kind), "no {kind} mutant");
    }
}

/// The mutants of vertex-only shader `src` under the built-in contract, each valid, the three
/// influence kinds among them.
fn vertex_only_influence_mutants(src: &str) -> Vec<Mutant> {
    let mut contract = Contract::builtin();
    contract.compute = None;
    let mutants = generate(src, &contract);
    for m in &mutants {
        assert_eq!(m.verdict, Verdict::Valid, "{}: {:?}", m.id, m.verdict);
    }
    for kind in [
        Kind::WeightSwap,
        Kind::JointIndexSwapped,
        Kind::InfluenceDropped,
    ] {
        assert!(mutants.iter().any(|m| m.kind == kind), "no {kind} mutant");
    }
    mutants
}

/// A vertex stage that skins inline from a struct input (`input.w[0]`, as published samples
/// write it): the influence kinds wrap each read of the struct's joints and weights members.
#[test]
fn influence_kinds_land_on_the_members_of_a_struct_input() {
    let src = "@group(0) @binding(0) var<storage> palette: array<mat4x4f>;
@group(0) @binding(6) var<uniform> cam: mat4x4f;
struct In { @location(0) p: vec3f, @location(1) j: vec4u, @location(2) w: vec4f }
@vertex fn vs_skin(input: In) -> @builtin(position) vec4f {
    let m = palette[input.j[0]] * input.w[0] + palette[input.j[1]] * input.w[1]
        + palette[input.j[2]] * input.w[2] + palette[input.j[3]] * input.w[3];
    return cam * m * vec4f(input.p, 1.0);
}
@fragment fn fs_skin() -> @location(0) vec4f { return vec4f(1.0); }
";
    let mutants = vertex_only_influence_mutants(src);
    let swapped = after(&mutants, Kind::WeightSwap).join("\n");
    assert!(swapped.contains("(input.w).yxzw[0]"), "{swapped}");
}

/// A helper that takes the vertex stage's input struct whole (`blend_of(input: In)`, as the glTF
/// Sample Viewer's WGSL ports write `getPosition(in)`): its reads of the struct's joints and
/// weights are the inputs, so the influence kinds land there. An identity built in the skinning
/// path (a matrix's last column 0 0 0 1) is no homogeneous 1; the point's is.
#[test]
fn a_helper_taking_the_input_struct_reads_the_influences() {
    let src = "@group(0) @binding(0) var<storage> palette: array<mat4x4f>;
@group(0) @binding(6) var<uniform> cam: mat4x4f;
struct In { @location(0) p: vec3f, @location(1) j: vec4u, @location(2) w: vec4f }
fn blend(j: vec4u, w: vec4f) -> mat4x4f {
    var m = mat4x4f(1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0);
    m = palette[j.x] * w.x + palette[j.y] * w.y + palette[j.z] * w.z + palette[j.w] * w.w;
    return m;
}
fn position_of(input: In) -> vec4f {
    return blend(input.j, input.w) * vec4f(input.p, 1.0);
}
@vertex fn vs_skin(input: In) -> @builtin(position) vec4f {
    return cam * position_of(input);
}
@fragment fn fs_skin() -> @location(0) vec4f { return vec4f(1.0); }
";
    let mutants = vertex_only_influence_mutants(src);
    let ones: Vec<_> = (mutants.iter())
        .filter(|m| m.kind == Kind::HomogeneousDropped)
        .flat_map(|m| m.diff.iter().map(|d| d.after.trim().to_string()))
        .collect();
    assert_eq!(
        ones,
        ["return blend(input.j, input.w) * vec4f(input.p, 0.0);"],
        "{ones:?}"
    );
}

/// A vertex pool's starts, each read at the next region's: one mutant a region of
/// `compute_regions`, every read of the member renamed (the source normal's start read as the
/// source tangent's, the last, the skinned tangent's, as the first, the source position's).
#[test]
fn region_swapped_reads_each_start_at_the_next() {
    let mutants = example_mutants("compute_regions");
    let swapped: Vec<&Mutant> = (mutants.iter())
        .filter(|m| m.kind == Kind::RegionSwapped)
        .collect();
    assert_eq!(swapped.len(), 8, "{swapped:#?}");
    let normal = (swapped.iter())
        .find(|m| {
            m.description
                .contains("`normal` region taken at `tangent`'s start")
        })
        .expect("the normal's mutant");
    assert_eq!(
        after(std::slice::from_ref(*normal), Kind::RegionSwapped),
        vec!["let n = normalize(inverse_transpose(linear) * load_vec3(mesh.source_tangent, i));"]
    );
    let last = swapped.last().unwrap();
    assert!(
        last.description
            .contains("(`skinned_tangent` read as `source_position`)"),
        "{}",
        last.description
    );
}

/// A compute-only stage as naga writes it from SPIR-V (`compute_hlsl.spv`: its body in a
/// `main_1` without parameters, each buffer an array in a block struct, `bone_weights.data[i]`)
/// has its joints' and weights' whole loads rebound, four to an element: the influences' swaps
/// are generated, and valid.
#[test]
fn a_compute_stage_read_from_spirv_has_its_influences_swapped() {
    let mutants = example_mutants("compute_hlsl.spv");
    assert_eq!(
        after(&mutants, Kind::WeightSwap),
        ["let _e21 = (bone_weights_1.u0040_data[_e10.x]).yxzw;"]
    );
    assert_eq!(
        after(&mutants, Kind::JointIndexSwapped),
        ["let _e18 = (bone_indices_1.u0040_data[_e10.x]).xxzw;"]
    );
}

/// A shader that reads three influences a vertex (`max_influences: 3`): the influence mutants
/// swizzle three lanes (all valid WGSL), the loop bound `< 3` becomes `< 2`, and the last two
/// of the three are the ones swapped.
#[test]
fn three_influences_are_mutated_in_the_lanes_read() {
    let mutants = example_mutants("vertex_three_influences");
    let of = |kind: Kind| -> Vec<&Mutant> { mutants.iter().filter(|m| m.kind == kind).collect() };
    let swaps: Vec<&str> = (of(Kind::WeightSwap).iter())
        .map(|m| m.description.as_str())
        .collect();
    assert_eq!(
        swaps,
        [
            "the weights of influences 1 and 2 swapped (w.yxz)",
            "the weights of influences 2 and 3 swapped (w.xzy)"
        ]
    );
    let joints: Vec<&str> = (of(Kind::JointIndexSwapped).iter())
        .map(|m| m.description.as_str())
        .collect();
    assert_eq!(
        joints,
        [
            "influence 2 uses the joint index of influence 1 (j.xxz)",
            "influence 3 uses the joint index of influence 2 (j.xyy)"
        ]
    );
    let dropped = of(Kind::InfluenceDropped);
    assert_eq!(dropped.len(), 1);
    assert_eq!(
        dropped[0].description,
        "the 3rd influence dropped: the influence loop runs to 2"
    );
    assert!(
        (dropped[0].diff.iter()).any(|d| d.after.contains("i < 2;")),
        "{:?}",
        dropped[0].diff
    );
}

/// A shader that reads three of the four influences its storage holds (`max_influences: 3` on
/// vec4 arrays): the mutants swizzle each value as wide as it is, the 4th lane kept, and all are
/// valid WGSL.
#[test]
fn three_influences_of_vec4_storage_keep_the_fourth_lane() {
    let mut contract = Contract::builtin();
    contract.lanes = 3;
    let mutants = generate(&default_source(), &contract);
    let of = |kind: Kind| -> Vec<&Mutant> { mutants.iter().filter(|m| m.kind == kind).collect() };
    let changed = |m: &Mutant| m.diff.iter().map(|d| d.after.clone()).collect::<String>();
    for kind in [
        Kind::WeightSwap,
        Kind::JointIndexSwapped,
        Kind::InfluenceDropped,
    ] {
        assert!(!of(kind).is_empty(), "no {kind} mutant");
        for m in of(kind) {
            assert_eq!(m.verdict, Verdict::Valid, "{}: {:?}", m.id, m.verdict);
        }
    }
    assert!(changed(of(Kind::WeightSwap)[1]).contains(".xzyw"));
    assert!(of(Kind::WeightSwap)[1].description.ends_with("(w.xzy)"));
    assert!(changed(of(Kind::JointIndexSwapped)[1]).contains(".xyyw"));
    let dropped = changed(of(Kind::InfluenceDropped)[0]);
    assert!(
        dropped.contains(".y, 0.0, ") && dropped.contains(".w)"),
        "{dropped}"
    );
}

/// A loop bounded by a named constant or an override (by the profile's value where it gives
/// one, else its default) is a bound `influence_dropped` lowers, as a literal is.
#[test]
fn a_named_influence_bound_is_lowered() {
    let src = default_source();
    assert!(src.contains("k < 4u"), "the default shader's loop changed");
    for (decl, bound) in [
        ("const INFLUENCES: u32 = 4u;", "INFLUENCES"),
        ("override INFLUENCES: u32 = 4u;", "INFLUENCES"),
    ] {
        let edited = format!("{decl}\n{}", src.replace("k < 4u", &format!("k < {bound}")));
        let mutants = generate(&edited, &Contract::builtin());
        let m = (mutants.iter())
            .find(|m| m.kind == Kind::InfluenceDropped)
            .unwrap();
        assert_eq!(m.verdict, Verdict::Valid, "{decl}");
        assert!(
            m.description.ends_with("the influence loop runs to 3")
                && m.diff.iter().any(|d| d.after.contains("k < 3")),
            "{decl}: {} {:?}",
            m.description,
            m.diff
        );
    }
    // An override the profile sets to 2 bounds no loop of 4: its 4th weight is zeroed instead.
    let edited = format!(
        "override INFLUENCES: u32 = 4u;\n{}",
        src.replace("k < 4u", "k < INFLUENCES")
    );
    let mut contract = Contract::builtin();
    contract.constants = vec![("INFLUENCES".into(), 2.0)];
    let mutants = generate(&edited, &contract);
    let m = (mutants.iter())
        .find(|m| m.kind == Kind::InfluenceDropped)
        .unwrap();
    assert!(
        m.description.ends_with("its weight read as 0"),
        "{}",
        m.description
    );
}

/// A shader of (joint, weight) pairs (`vertex.pairs`) gets only mutants that type: no swizzle of
/// a pair's two lanes as a set's four joints, and its pairs read the other way round instead,
/// through its helper's parameter.
#[test]
fn pairs_are_mutated_as_pairs() {
    let mutants = example_mutants("vertex_bone_pairs");
    let swapped = after(&mutants, Kind::JointIndexSwapped);
    assert_eq!(
        swapped,
        ["fn bone(pair_mutant: vec2<f32>) -> mat4x4<f32> { let pair = pair_mutant.yx;"]
    );
    assert_eq!(
        (mutants.iter())
            .filter(|m| m.kind == Kind::JointIndexSwapped)
            .count(),
        1
    );
}

/// The example read as two pairs a `vec4<f32>` (OpenSceneGraph's `boneWeightN`): held to its
/// profile with `format: vec4` (without it, the type error names the format), each pair read
/// the other way round where it enters its helper, a vec2 (`.yx`); where the helper takes the
/// vec4 whole, its two pairs (`.yxwz`). Each a mutant that types.
#[test]
fn wide_pairs_are_mutated_as_pairs() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders/examples");
    let read = |ext: &str| std::fs::read_to_string(root.join(format!("vertex_bone_pairs.{ext}")));
    let (mut source, profile) = (read("wgsl").unwrap(), read("profile.yaml").unwrap());
    for (from, to) in [
        ("a_boneWeight0: vec2<f32>", "a_boneWeight0: vec4<f32>"),
        ("a_boneWeight1: vec2<f32>", "a_boneWeight1: vec4<f32>"),
        ("    @location(4) a_boneWeight2: vec2<f32>,\n", ""),
        ("    @location(5) a_boneWeight3: vec2<f32>,\n", ""),
        ("bone(in.a_boneWeight0)", "bone(in.a_boneWeight0.xy)"),
        ("bone(in.a_boneWeight1)", "bone(in.a_boneWeight0.zw)"),
        ("bone(in.a_boneWeight2)", "bone(in.a_boneWeight1.xy)"),
        ("bone(in.a_boneWeight3)", "bone(in.a_boneWeight1.zw)"),
    ] {
        assert!(
            source.contains(from),
            "vertex_bone_pairs no longer has `{from}`"
        );
        source = source.replacen(from, to, 1);
    }
    let from = "pairs: { location: [2, 3, 4, 5] }";
    assert!(profile.contains(from));
    let load = |source: &str, profile: &str| {
        let (path, at) = (
            root.join("vertex_bone_pairs.wgsl"),
            root.join("wide.profile.yaml"),
        );
        crate::shader::Shader::with_profile_text(&path, source, &at, profile)
    };
    let narrow = load(
        &source,
        &profile.replace(from, "pairs: { location: [2, 3] }"),
    )
    .unwrap();
    let msg = narrow.validate().unwrap_err().to_string();
    assert!(
        msg.contains("input @location(2) must be vec2<f32>, is vec4<f32>")
            && msg.contains("holding two influences, (joint, weight, joint, weight), is `vertex.pairs`' `format: vec4`"),
        "{msg}"
    );
    let wide = profile.replace(from, "pairs: { location: [2, 3], format: vec4 }");
    let whole = source
        .replace(
            "fn bone(pair: vec2<f32>) -> mat4x4<f32> {\n    return pair.y * u_bones.bones[i32(pair.x)];",
            "fn bone(pairs: vec4<f32>) -> mat4x4<f32> {\n    return pairs.y * u_bones.bones[i32(pairs.x)] + pairs.w * u_bones.bones[i32(pairs.z)];",
        )
        .replace("    skinning += bone(in.a_boneWeight0.zw);\n", "")
        .replace("    skinning += bone(in.a_boneWeight1.zw);\n", "")
        .replace(".xy)", ")");
    assert_ne!(whole, source);
    for (text, swizzle) in [(&source, ".yx;"), (&whole, ".yxwz;")] {
        let shader = load(text, &wide).unwrap();
        shader.validate().unwrap();
        let mutants = generate(&shader.source, &shader.contract);
        let swapped: Vec<&Mutant> = (mutants.iter())
            .filter(|m| m.kind == Kind::JointIndexSwapped)
            .collect();
        assert_eq!(swapped.len(), 1);
        assert_eq!(swapped[0].verdict, Verdict::Valid, "{swizzle}");
        assert!(
            (swapped[0].diff.iter()).any(|d| d.after.contains(swizzle)),
            "{:?}",
            swapped[0].diff
        );
    }
}
