use super::*;

/// The check names an `expect` entry may use.
fn checks() -> Vec<&'static str> {
    crate::check::Check::ALL
        .map(crate::check::Check::name)
        .to_vec()
}

fn parse(text: &str) -> Result<Case, CaseError> {
    Case::parse(Path::new("cases/example.yaml"), text, &checks())
}

const MINIMAL: &str = "skeleton:\n  joints: 3\nmesh:\n  vertices: 10\n";

#[test]
fn minimal_case_takes_defaults() {
    let c = parse(MINIMAL).unwrap();
    assert_eq!(c.name, "example");
    assert_eq!(c.skeleton.as_ref().unwrap().segment_length, 1.0);
    assert_eq!(c.mesh.as_ref().unwrap().influences, Influences::Count(2));
    assert_eq!(c.tolerance.max_abs_error, None);
    assert_eq!((c.render.width, c.render.height), (128, 128));
    assert_eq!(c.golden_name(), "example");
}

#[test]
fn unknown_field_is_located() {
    let err = parse("skeleton:\n  joints: 3\n  colour: red\nmesh:\n  vertices: 10\n").unwrap_err();
    let msg = err.to_string();
    assert!(msg.starts_with("cases/example.yaml:3:"), "{msg}");
    assert!(msg.contains("unknown field `colour`"), "{msg}");
}

#[test]
fn wrong_type_is_located() {
    let msg = parse("skeleton:\n  joints: many\nmesh:\n  vertices: 10\n")
        .unwrap_err()
        .to_string();
    assert!(msg.starts_with("cases/example.yaml:2:"), "{msg}");
}

#[test]
fn out_of_range_joint_names_field_and_line() {
    let text =
        format!("{MINIMAL}pose:\n  - joint: 1\n    degrees: 10\n  - joint: 7\n    degrees: 5\n");
    let msg = parse(&text).unwrap_err().to_string();
    assert_eq!(
        msg,
        "cases/example.yaml:8:5: field `pose[1].joint`: joint 7 is out of range: the skeleton has 3 joints"
    );
}

#[test]
fn nan_tolerance_rejected() {
    let text = format!("{MINIMAL}tolerance:\n  max_abs_error: .nan\n");
    let msg = parse(&text).unwrap_err().to_string();
    assert!(msg.contains("tolerance.max_abs_error"), "{msg}");
    assert!(msg.contains(":6:"), "{msg}");
}

#[test]
fn generated_cases_are_valid_and_varied() {
    let cases: Vec<Case> = (0..50).map(Case::generated).collect();
    assert_eq!(cases[7].name, "generated_007");
    assert!(cases
        .iter()
        .any(|c| c.mesh.as_ref().unwrap().influences == Influences::Count(4)));
    assert!(cases.iter().all(|c| !c.golden.compare));
}

#[test]
fn expectations_need_a_known_check_and_a_reason() {
    let text = format!("{MINIMAL}expect:\n  - backend: gl\n    check: posed_matches\n    status: fail\n    reason: x\n");
    let msg = parse(&text).unwrap_err().to_string();
    assert!(
        msg.contains("expect[0].check") && msg.contains("unknown check `posed_matches`"),
        "{msg}"
    );
    let text = format!("{MINIMAL}expect:\n  - check: posed_matches_cpu\n    status: fail\n");
    let msg = parse(&text).unwrap_err().to_string();
    assert!(msg.contains("missing field `reason`"), "{msg}");
    let text = format!("{MINIMAL}golden:\n  overrides:\n    - backend: vulkan\n      name: other\n      reason: \" \"\n");
    let msg = parse(&text).unwrap_err().to_string();
    assert!(msg.contains("golden.overrides[0].reason"), "{msg}");
}

#[test]
fn expectations_match_adapters() {
    let text = format!("{MINIMAL}expect:\n  - backend: gl\n    adapter: LLVMpipe\n    check: posed_matches_cpu\n    status: fail\n    reason: known driver bug\n");
    let c = parse(&text).unwrap();
    let mut info = crate::gpu::AdapterInfo {
        tag: "gl/llvmpipe".into(),
        name: "llvmpipe (LLVM 15)".into(),
        backend: "gl".into(),
        device_type: "Cpu".into(),
        driver: String::new(),
        driver_info: "Mesa".into(),
    };
    assert!(c.expectation("posed_matches_cpu", &info).is_some());
    assert!(c.expectation("compute_matches_cpu", &info).is_none());
    info.backend = "vulkan".into();
    assert!(c.expectation("posed_matches_cpu", &info).is_none());
    // A backend alias is read as `WGPU_BACKEND` reads it; a list or a typo is refused.
    let alias = format!("{MINIMAL}expect:\n  - backend: VK\n    check: posed_matches_cpu\n    status: fail\n    reason: x\n");
    assert!(parse(&alias)
        .unwrap()
        .expectation("posed_matches_cpu", &info)
        .is_some());
    for bad in ["vulkan,gl", "vulcan"] {
        let msg = parse(&alias.replace("VK", bad)).unwrap_err().to_string();
        assert!(msg.contains(&format!("unknown backend `{bad}`")), "{msg}");
    }
}

#[test]
fn model_and_chain_exclude_each_other() {
    let text = format!("{MINIMAL}model:\n  path: missing.glb\n  if_missing: skip\n");
    let msg = parse(&text).unwrap_err().to_string();
    assert!(
        msg.contains("field `skeleton`: not allowed with `model`"),
        "{msg}"
    );
    let msg = parse("model:\n  path: nowhere/missing.glb\n")
        .unwrap_err()
        .to_string();
    assert!(
        msg.contains("field `model.path`") && msg.contains("does not exist"),
        "{msg}"
    );
    assert!(parse("model:\n  path: nowhere/missing.glb\n  if_missing: skip\n").is_ok());
    let msg = parse("mesh:\n  vertices: 3\n").unwrap_err().to_string();
    assert!(msg.contains("field `skeleton`: missing"), "{msg}");
}
/// The error for `text`, which must start with the file and `line` and name `field`.
fn located(text: &str, line: usize, field: &str) -> String {
    let msg = parse(text).unwrap_err().to_string();
    assert!(
        msg.starts_with(&format!("cases/example.yaml:{line}:")),
        "wanted line {line}: {msg}"
    );
    assert!(msg.contains(field), "wanted field {field}: {msg}");
    msg
}

#[test]
fn malformed_yaml_is_located() {
    let msg = located("skeleton:\n  joints: 3\n mesh: [\n", 3, "mapping");
    assert!(!msg.is_empty());
    located(
        "skeleton: {joints: 3\nmesh: {vertices: 1}\n",
        1,
        "skeleton.joints: invalid type: string \"3 mesh\"",
    );
    // Tabs are not indentation in YAML.
    located("skeleton:\n\tjoints: 3\n", 2, "tab");
}

#[test]
fn missing_and_duplicate_fields_are_located() {
    let msg = located(
        "skeleton:\n  segment_length: 2\nmesh:\n  vertices: 3\n",
        2,
        "skeleton",
    );
    assert!(msg.contains("missing field `joints`"), "{msg}");
    assert!(
        !msg.ends_with("column 3"),
        "the location is not repeated: {msg}"
    );
    let msg = located(
        "skeleton:\n  joints: 3\nmesh:\n  vertices: 3\nskeleton:\n  joints: 4\n",
        5,
        "duplicate field `skeleton`",
    );
    assert!(!msg.is_empty());
    located(
        &format!("{MINIMAL}---\nskeleton: {{ joints: 2 }}\n"),
        5,
        "more than one document",
    );
    // An unknown field in a list item names the item.
    located(
        &format!("{MINIMAL}pose:\n  - joint: 1\n    angle: 3\n"),
        7,
        "pose[0]: unknown field `angle`",
    );
}

#[test]
fn wrong_types_name_the_field() {
    located(
        &format!("{MINIMAL}render:\n  width: 1e3\n"),
        6,
        "render.width: invalid type",
    );
    located(
        &format!("{MINIMAL}pose:\n  - joint: -1\n"),
        6,
        "pose[0].joint: invalid type: integer `-1`, expected usize",
    );
    located(
        &format!("{MINIMAL}pose:\n  - joint: 1\n    axis: [1, 2]\n"),
        7,
        "pose[0].axis: invalid length 2",
    );
    located(
        &format!("{MINIMAL}golden:\n  channel_tolerance: 300\n"),
        6,
        "golden.channel_tolerance",
    );
    located(
        &format!("{MINIMAL}golden:\n  metric: ssim\n"),
        6,
        "golden.metric: unknown variant `ssim`",
    );
    located("- 1\n- 2\n", 1, "expected struct Case");
}

#[test]
fn a_byte_order_mark_and_crlf_are_plain_text() {
    let text = format!("\u{feff}{}", MINIMAL.replace('\n', "\r\n"));
    assert!(parse(&text).is_ok());
    let text = format!("\u{feff}{MINIMAL}  colour: red\r\n");
    located(&text, 5, "unknown field `colour`");
}

#[test]
fn joint_counts_and_indices_out_of_range() {
    located(
        "skeleton:\n  joints: 0\nmesh:\n  vertices: 3\n",
        2,
        "field `skeleton.joints`: must be 1 to 65536, got 0",
    );
    located(
        "skeleton:\n  joints: 70000\nmesh:\n  vertices: 3\n",
        2,
        "field `skeleton.joints`: must be 1 to 65536, got 70000",
    );
    located(&format!("{MINIMAL}mesh:\n"), 5, "duplicate field `mesh`");
    located(
        "skeleton:\n  joints: 3\nmesh:\n  vertices: 3\n  influences: 17\n",
        5,
        "field `mesh.influences`: must be 1 to 16 (4 to an influence set), or `max` (4 for each set the shader reads), got 17",
    );
    located(
        &format!("{MINIMAL}pose:\n- joint: 3\n"),
        6,
        "field `pose[0].joint`: joint 3 is out of range",
    );
}

#[test]
fn nan_and_infinity_in_a_pose_or_tolerance() {
    for (text, line, field) in [
        (
            "pose:\n  - joint: 1\n    degrees: .nan\n",
            7,
            "field `pose[0].degrees`: must be finite, got NaN",
        ),
        (
            "pose:\n  - joint: 1\n    axis: [0, .inf, 0]\n",
            7,
            "field `pose[0].axis`",
        ),
        (
            "pose:\n  - joint: 1\n    translation: [0, -.inf, 0]\n",
            7,
            "field `pose[0].translation`: must be finite",
        ),
        (
            "pose:\n  - joint: 1\n    scale: [1, .NaN, 1]\n",
            7,
            "field `pose[0].scale`",
        ),
        (
            "pose:\n  - joint: 1\n    scale: [1, 0, 1]\n",
            7,
            "field `pose[0].scale`: must be nonzero",
        ),
        (
            "pose:\n  - joint: 1\n    translation: [1e39, 0, 0]\n",
            7,
            "f32 range",
        ),
        (
            "pose:\n  - joint: 1\n    axis: [0, 0, 0]\n",
            7,
            "field `pose[0].axis`: must be a nonzero vector",
        ),
        (
            "tolerance:\n  max_abs_error: .inf\n",
            6,
            "field `tolerance.max_abs_error`: must be finite and > 0, got inf",
        ),
        (
            "tolerance:\n  min_displacement: -.Inf\n",
            6,
            "field `tolerance.min_displacement`",
        ),
        (
            "tolerance:\n  max_relative_error: .NAN\n",
            6,
            "field `tolerance.max_relative_error`",
        ),
        (
            "golden:\n  flip_percentile: 1.5\n",
            6,
            "field `golden.flip_percentile`: must be 0 to 1",
        ),
        (
            "render:\n  view:\n    scale: .nan\n    offset_y: 0\n    half_width: 1\n",
            7,
            "field `render.view.scale`",
        ),
    ] {
        located(&format!("{MINIMAL}{text}"), line, field);
    }
}

#[test]
fn zero_and_negative_sizes() {
    for (text, line, field) in [
        (
            "render:\n  width: 0\n",
            6,
            "field `render.width`: must be 1 to 4096, got 0",
        ),
        (
            "render:\n  height: 9000\n",
            6,
            "field `render.height`: must be 1 to 4096, got 9000",
        ),
        (
            "render:\n  width: -4\n",
            6,
            "render.width: invalid type: integer `-4`, expected u32",
        ),
        (
            "render:\n  view: { scale: 1, offset_y: 0, half_width: -1 }\n",
            6,
            "field `render.view.half_width`: must be > 0",
        ),
        (
            "render:\n  bind_coverage: [10, 5]\n",
            6,
            "field `render.bind_coverage`: min 10 is above max 5",
        ),
    ] {
        located(&format!("{MINIMAL}{text}"), line, field);
    }
    located(
        "skeleton:\n  joints: 3\n  segment_length: 0\nmesh:\n  vertices: 3\n",
        3,
        "field `skeleton.segment_length`: must be > 0",
    );
    located(
        "skeleton:\n  joints: 3\n  segment_length: -1\nmesh:\n  vertices: 3\n",
        3,
        "field `skeleton.segment_length`",
    );
    located(
        "skeleton:\n  joints: 3\n  segment_length: 1e-50\nmesh:\n  vertices: 3\n",
        3,
        "f32 range",
    );
    located(
        "skeleton:\n  joints: 3\nmesh:\n  vertices: 3\n  width: -0.5\n",
        5,
        "field `mesh.width`: must be > 0",
    );
    located(
        "skeleton:\n  joints: 65536\n  segment_length: 1e35\nmesh:\n  vertices: 3\n",
        3,
        "beyond f32 range",
    );
}

#[test]
fn vertex_counts() {
    located(
        "skeleton:\n  joints: 3\nmesh:\n  vertices: 0\n",
        4,
        "field `mesh.vertices`: must be at least 1, got 0",
    );
    located(
        "skeleton:\n  joints: 3\nmesh:\n  vertices: 20000000\n",
        4,
        "field `mesh.vertices`: must be at most 4194304 (4 Mi), got 20000000",
    );
    located(
        "skeleton:\n  joints: 3\nmesh:\n  vertices: 99999999999999999999999\n",
        4,
        "mesh.vertices: invalid",
    );
    let text = format!("skeleton:\n  joints: 3\nmesh:\n  vertices: {MAX_VERTICES}\n");
    assert!(parse(&text).is_ok());
    // Flow style: the line of the mapping that holds the field.
    located(
        "skeleton: { joints: 3 }\nmesh: { vertices: 0 }\n",
        2,
        "field `mesh.vertices`",
    );
}

#[test]
fn model_files() {
    let msg = located(
        "model:\n  path: nowhere/missing.glb\n",
        2,
        "field `model.path`",
    );
    assert!(
        msg.contains("cases/nowhere/missing.glb does not exist (add `if_missing: skip`"),
        "{msg}"
    );
    located(
        "model:\n  path: model.obj\n  if_missing: skip\n",
        2,
        "field `model.path`: `model.obj` must name a .gltf or .glb file",
    );
    located(
        "model:\n  path: ''\n  if_missing: skip\n",
        2,
        "field `model.path`",
    );
    located(
        "model:\n  path: x.gltf\n  if_missing: maybe\n",
        3,
        "model.if_missing: unknown variant `maybe`",
    );
    located(
        "model:\n  path: x.gltf\n  if_missing: skip\n  time: -1\n",
        4,
        "field `model.time`: must be finite and >= 0, got -1",
    );
    located(
        "model:\n  path: x.gltf\n  if_missing: skip\n  time: .nan\n",
        4,
        "field `model.time`",
    );
    located(
        "model:\n  path: x.gltf\n  if_missing: skip\n  animation: ''\n",
        4,
        "field `model.animation`: must not be empty",
    );
    located(
        "model:\n  path: x.gltf\n  if_missing: skip\n  animation: Walk\n",
        4,
        "field `model.animation`: names a clip, but `model.time` is absent",
    );
    // A folder named like a model.
    let dir = std::env::temp_dir().join(format!("skinproof-case-{}.gltf", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let text = format!("model:\n  path: {}\n", dir.display());
    let msg = located(&text, 2, "field `model.path`");
    assert!(msg.contains("is a folder"), "{msg}");
    let _ = std::fs::remove_dir(&dir);
}

#[test]
fn the_default_cases_load() {
    let root = crate::config::project_root();
    let dir = root.join("cases");
    for file in crate::suite::case_files(&dir).unwrap() {
        // Relative like the runner's, so model paths resolve the same way.
        let rel = file.strip_prefix(&root).unwrap();
        let text = std::fs::read_to_string(&file).unwrap();
        let c = Case::parse(&file, &text, &checks());
        assert!(c.is_ok(), "{}: {}", rel.display(), c.unwrap_err());
    }
}

#[test]
fn a_file_that_is_not_utf8_is_located_at_its_first_bad_byte() {
    let dir = std::env::temp_dir().join(format!("skinproof-utf8-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("latin1.yaml");
    std::fs::write(&path, b"skeleton: { joints: 2 }\ndescription: caf\xe9\n").unwrap();
    let msg = Case::load(&path, &checks()).unwrap_err().to_string();
    assert!(
        msg.ends_with("latin1.yaml:2:17: not UTF-8 text (byte 0xe9): case files are UTF-8"),
        "{msg}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_number_past_f64_says_so() {
    let msg = parse(
        "skeleton: { joints: 2 }\nmesh: { vertices: 8 }\npose:\n  - { joint: 1, degrees: 1e400 }\n",
    )
    .unwrap_err()
    .to_string();
    assert!(
        msg.contains(":4:") && msg.contains("beyond the largest f64"),
        "{msg}"
    );
}
