//! The `skinproof` command as a user runs it: its errors name flags and files, not internals.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use skinproof::check::{Outcome, Status};
use skinproof::report::{Report, Row, Timing};

fn root() -> &'static Path {
    static ROOT: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    ROOT.get_or_init(skinproof::config::project_root)
}

fn scratch(name: &str) -> PathBuf {
    let dir = root().join("target").join("cli").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn skinproof(args: &[&str]) -> Output {
    skinproof_with(args, &[])
}

/// The command run from the project root with these environment variables added.
fn skinproof_with(args: &[&str], env: &[(&str, &Path)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_skinproof"));
    for (k, v) in env {
        command.env(k, v);
    }
    command.args(args).current_dir(root()).output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

const MODEL: &str = "cases/models/SimpleSkin/SimpleSkin.gltf";

#[test]
fn a_bad_flag_value_is_named_by_its_flag() {
    let out = "target/cli-unused.bin";
    for (args, want) in [
        (
            vec!["--clip", "nope", "--time", "1"],
            "skinproof: --clip: no clip `nope` in ",
        ),
        (vec!["--mesh", "nope", "--rest"], "skinproof: --mesh: "),
        (
            vec!["--time", "-1"],
            "skinproof: --time: must be finite and >= 0, got -1",
        ),
        // clap's wording for a value its parser refused.
        (
            vec!["--time", "nan"],
            "error: invalid value 'nan' for '--time <SECONDS>': `nan` is not a finite number of seconds",
        ),
    ] {
        let mut all = vec!["skin", "--model", MODEL, "--out", out];
        all.extend(args);
        let o = skinproof(&all);
        assert!(!o.status.success());
        let text = stderr(&o);
        assert!(text.starts_with(want), "{all:?}: {text}");
        assert!(!text.contains("command-line.yaml"), "{text}");
    }
}

#[test]
fn model_flags_with_a_case_are_refused() {
    let o = skinproof(&[
        "skin",
        "--case",
        "cases/bend_two_joints.yaml",
        "--time",
        "3",
        "--out",
        "target/cli-unused.bin",
    ]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("--time go with --model"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn flags_that_do_not_go_together_are_refused_by_name() {
    let out = "target/cli-unused.bin";
    let case = "cases/bend_two_joints.yaml";
    for (args, want) in [
        (
            vec!["--model", MODEL],
            "the following required arguments were not provided:\n  <--time <SECONDS>|--rest>",
        ),
        (
            vec!["--model", MODEL, "--time", "1", "--rest"],
            "the argument '--time <SECONDS>' cannot be used with '--rest'",
        ),
        (
            vec!["--model", MODEL, "--case", case, "--rest"],
            "the argument '--model <FILE>' cannot be used with '--case <CASE.yaml>'",
        ),
        (
            vec![],
            "the following required arguments were not provided:\n  <--model <FILE>|--case <CASE.yaml>>",
        ),
        (
            vec!["--case", case, "--path", "fpga"],
            "invalid value 'fpga' for '--path <PATH>'\n  [possible values: cpu, gpu]",
        ),
        (
            vec!["--case", case, "--mesh", "a", "--rest"],
            "skinproof: skin: --mesh, --rest go with --model; a case file sets its model, clip and time itself",
        ),
    ] {
        let mut all = vec!["skin", "--out", out];
        all.extend(args);
        let o = skinproof(&all);
        assert!(!o.status.success(), "{all:?}");
        assert!(stderr(&o).contains(want), "{all:?}: {}", stderr(&o));
    }
    let o = skinproof(&["skin", "--case", case, "--out", "target/cli-unused.txt"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains(
            "'--out <FILE.bin|FILE.obj>': target/cli-unused.txt must end in .bin or .obj"
        ),
        "{}",
        stderr(&o)
    );
    let o = skinproof(&["merge", "--outt", "x", "a.json"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("unexpected argument '--outt'"),
        "{}",
        stderr(&o)
    );
    let o = skinproof(&["merge"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("<REPORT.json>..."), "{}", stderr(&o));
}

#[test]
fn help_works_for_each_command() {
    for (args, usage) in [
        (&["--help"][..], "Usage: skinproof <COMMAND>"),
        (&["help", "skin"], "Usage: skinproof skin "),
        (
            &["merge", "--help"],
            "Usage: skinproof merge [OPTIONS] <REPORT.json>...",
        ),
        (&["skin", "-h"], "Usage: skinproof skin "),
        (
            &["profile", "--help"],
            "Usage: skinproof profile [OPTIONS] <SHADER>",
        ),
        (
            &["wgsl", "--help"],
            "Usage: skinproof wgsl [OPTIONS] <SHADER>",
        ),
    ] {
        let o = skinproof(args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(text.contains(usage), "{args:?}: {text}");
    }
}

/// A one-row report of `shader` (its source) with one timing.
fn report(dir: &Path, file: &str, shader_source: &str, adapter: &str) -> PathBuf {
    report_with(dir, file, shader_source, adapter, Status::Pass, "Mesa 1")
}

/// The same, with the row's status and the adapter's driver info.
fn report_with(
    dir: &Path,
    file: &str,
    shader_source: &str,
    adapter: &str,
    status: Status,
    driver_info: &str,
) -> PathBuf {
    let r = Report {
        adapters: vec![skinproof::gpu::AdapterInfo {
            tag: adapter.into(),
            name: "llvmpipe".into(),
            backend: adapter.split('/').next().unwrap_or("").into(),
            device_type: "Cpu".into(),
            driver: "llvmpipe".into(),
            driver_info: driver_info.into(),
        }],
        shader: "shaders/skinning.wgsl".into(),
        shader_sha256: skinproof::golden::sha256(shader_source.as_bytes()),
        rows: vec![Row {
            case: "bend".into(),
            adapter: adapter.into(),
            check: "posed_matches_cpu".into(),
            outcome: Outcome::new(status, "0", ""),
        }],
        timings: vec![Timing {
            what: "bend".into(),
            adapter: adapter.into(),
            ms: 1.0,
        }],
        ..Default::default()
    };
    let path = dir.join(file);
    r.write_json(&path).unwrap();
    path
}

#[test]
fn merge_refuses_reports_of_different_shaders() {
    let dir = scratch("shaders");
    let a = report(&dir, "a.json", "one shader", "vulkan/x");
    let b = report(&dir, "b.json", "another shader", "gl/y");
    let o = skinproof(&["merge", a.to_str().unwrap(), b.to_str().unwrap()]);
    assert!(!o.status.success());
    let text = stderr(&o);
    assert!(
        text.contains("a.json judged") && text.contains("b.json judged"),
        "{text}"
    );
    let c = report(&dir, "c.json", "one shader", "gl/y");
    let o = skinproof(&["merge", a.to_str().unwrap(), c.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn merging_one_report_twice_counts_it_once() {
    let dir = scratch("twice");
    let a = report(&dir, "a.json", "one shader", "vulkan/x");
    let copy = dir.join("copy.json");
    std::fs::copy(&a, &copy).unwrap();
    let out = dir.join("out");
    let o = skinproof(&[
        "merge",
        "--out",
        out.to_str().unwrap(),
        a.to_str().unwrap(),
        copy.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("is the same report as"),
        "{}",
        stderr(&o)
    );
    let merged = Report::load(&out.join("report.json")).unwrap();
    assert_eq!(merged.timings.len(), 1);
}

#[test]
fn gpu_skinning_needs_only_the_compute_stage() {
    let dir = scratch("compute_only");
    let source = std::fs::read_to_string(root().join("shaders/skinning.wgsl")).unwrap();
    let from = "let p = skin(position, joint, weight);";
    assert!(source.contains(from));
    // The vertex stage reads a binding the render pipeline does not have.
    let broken = source.replacen(
        from,
        "let p = skin(positions[0].xyz * 0.0 + position, joint, weight);",
        1,
    );
    let shader = dir.join("vertex_broken.wgsl");
    std::fs::write(&shader, broken).unwrap();
    let out = dir.join("bend.bin");
    let o = skinproof_with(
        &[
            "skin",
            "--case",
            "cases/bend_two_joints.yaml",
            "--path",
            "gpu",
            "--out",
            out.to_str().unwrap(),
        ],
        &[("SKINPROOF_SHADER", &shader)],
    );
    let text = stderr(&o);
    if text.contains("no GPU adapter found")
        && !skinproof::config::Require::from_env().map_or(true, |r| r.is_required())
    {
        eprintln!("skipped: {text}");
        return;
    }
    assert!(o.status.success(), "{text}");
    assert!(
        text.contains("warning:") && text.contains("vs_skin"),
        "{text}"
    );
    let cpu = dir.join("bend_cpu.bin");
    let o = skinproof(&[
        "skin",
        "--case",
        "cases/bend_two_joints.yaml",
        "--out",
        cpu.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let floats = |p: &Path| -> Vec<f32> {
        std::fs::read(p)
            .unwrap()
            .chunks(4)
            .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
            .collect()
    };
    let (g, c) = (floats(&out), floats(&cpu));
    assert_eq!(g.len(), c.len());
    let worst = g
        .iter()
        .zip(&c)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f32::max);
    assert!(worst < 1e-4, "GPU and CPU differ by {worst}");
}

#[test]
fn merge_keeps_the_worse_of_two_results_in_any_order() {
    let dir = scratch("conflict");
    let pass = report_with(&dir, "pass.json", "s", "vulkan/x", Status::Pass, "Mesa 1");
    let fail = report_with(&dir, "fail.json", "s", "vulkan/x", Status::Fail, "Mesa 1");
    for (i, order) in [[&pass, &fail], [&fail, &pass]].iter().enumerate() {
        let out = dir.join(format!("out{i}"));
        let o = skinproof(&[
            "merge",
            "--out",
            out.to_str().unwrap(),
            order[0].to_str().unwrap(),
            order[1].to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(
            stderr(&o).contains("is PASS in one report and FAIL in another")
                || stderr(&o).contains("is FAIL in one report and PASS in another"),
            "{}",
            stderr(&o)
        );
        let merged = Report::load(&out.join("report.json")).unwrap();
        assert_eq!(merged.rows.len(), 1);
        assert_eq!(merged.rows[0].outcome.status, Status::Fail, "order {i}");
    }
}

#[test]
fn merge_refuses_one_tag_for_two_different_adapters() {
    let dir = scratch("two_machines");
    let a = report_with(&dir, "a.json", "s", "vulkan/x", Status::Pass, "Mesa 22");
    let b = report_with(&dir, "b.json", "s", "vulkan/x", Status::Pass, "Mesa 24");
    let o = skinproof(&["merge", a.to_str().unwrap(), b.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("both have an adapter tagged `vulkan/x` but they differ"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn no_adapter_names_the_filter_that_left_none() {
    let o = skinproof_with(
        &[
            "skin",
            "--case",
            "cases/bend_two_joints.yaml",
            "--path",
            "gpu",
            "--out",
            "target/cli-unused.bin",
        ],
        &[("WGPU_ADAPTER_NAME", Path::new("no-such-adapter-anywhere"))],
    );
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("no GPU adapter found with WGPU_ADAPTER_NAME=no-such-adapter-anywhere"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn review_and_accept_without_a_run_say_so() {
    let dir = scratch("no_review");
    let reports = dir.to_str().unwrap();
    let o = skinproof(&["review", "--reports", reports]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("no review page") && stderr(&o).contains("review.html"),
        "{}",
        stderr(&o)
    );
    let o = skinproof(&["accept", "--reports", reports]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).starts_with("skinproof: accept: ")
            && stderr(&o).contains("review.json")
            && stderr(&o).contains("a run with goldens to review writes it"),
        "{}",
        stderr(&o)
    );
    let page = dir.join("review.html");
    std::fs::write(&page, "<!doctype html>").unwrap();
    let o = skinproof(&["review", "--reports", reports]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout).trim_end(),
        page.display().to_string()
    );
    let o = skinproof(&["accept", "--exact"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("<FILTER>"), "{}", stderr(&o));
}

/// The command, killed if it runs past `secs`: a regression to a hang fails the test instead of
/// hanging it. `None` when it had to be killed.
fn skinproof_within(args: &[&str], secs: u64) -> Option<Output> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_skinproof"))
        .args(args)
        .current_dir(root())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed().as_secs() >= secs {
            child.kill().unwrap();
            child.wait().unwrap();
            return None;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    Some(child.wait_with_output().unwrap())
}

/// Runs `skin` on `flag file` and returns its error, failing if it hangs or succeeds.
fn skin_error(flag: &str, file: &Path, extra: &[&str]) -> String {
    let out = file.with_extension("bin");
    let mut args = vec![
        "skin",
        flag,
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend(extra);
    let o = skinproof_within(&args, 20).unwrap_or_else(|| panic!("{args:?} ran past 20 s"));
    assert!(!o.status.success(), "{args:?}");
    stderr(&o)
}

#[test]
fn special_files_are_refused_by_name_without_reading_them() {
    let dir = scratch("special");
    let fifo = dir.join("fifo.yaml");
    let made = Command::new("mkfifo").arg(&fifo).status();
    let zero = dir.join("zero.yaml");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    let mut files = vec![(zero, "is a character device, not a regular file")];
    if made.is_ok_and(|s| s.success()) {
        files.push((fifo, "is a FIFO (named pipe), not a regular file"));
    }
    for (file, want) in files {
        for (flag, extra) in [("--case", &[][..]), ("--model", &["--rest"][..])] {
            let e = skin_error(flag, &file, extra);
            assert!(
                e.contains(file.to_str().unwrap()) && e.contains(want),
                "{flag}: {e}"
            );
        }
    }
    // A folder is called a folder, and only a folder.
    let e = skin_error("--case", &dir, &[]);
    assert!(e.contains("is a folder, not a regular file"), "{e}");
}

#[test]
fn hostile_case_files_are_refused_within_seconds() {
    let dir = scratch("hostile");
    // Flow sequences nested 200000 deep (400 KB): 95 s to refuse when the parser saw them.
    let deep = dir.join("deep.yaml");
    let n = 200_000;
    std::fs::write(&deep, format!("pose: {}{}\n", "[".repeat(n), "]".repeat(n))).unwrap();
    let e = skin_error("--case", &deep, &[]);
    assert!(
        e.contains("deep.yaml:1:") && e.contains("nested deeper than 64"),
        "{e}"
    );
    // A duplicate key after 5 MB: refused by size before it is parsed.
    let big = dir.join("big.yaml");
    let items = "  - joint: 1\n    degrees: 5\n".repeat(200_000);
    let text = format!("skeleton:\n  joints: 3\nmesh:\n  vertices: 10\npose:\n{items}mesh: 1\n");
    std::fs::write(&big, text).unwrap();
    let e = skin_error("--case", &big, &[]);
    assert!(
        e.contains("big.yaml") && e.contains("is larger than 1048576 bytes"),
        "{e}"
    );
    // Under the size limit, a duplicate key at the end is located in linear time.
    let dup = dir.join("dup.yaml");
    let items = "  - joint: 1\n    joint: 1\n";
    let many = "  - joint: 1\n    degrees: 5\n".repeat(30_000);
    let text = format!("skeleton:\n  joints: 3\nmesh:\n  vertices: 10\npose:\n{many}{items}");
    std::fs::write(&dup, &text).unwrap();
    let start = std::time::Instant::now();
    let e = skin_error("--case", &dup, &[]);
    let line = text.lines().count();
    assert!(
        e.contains(&format!("dup.yaml:{line}:")) && e.contains("duplicate field `joint`"),
        "{e}"
    );
    assert!(start.elapsed().as_secs() < 10, "{:?}", start.elapsed());
}

/// `profile` drafts a profile from the shader alone and checks it: printed, or written beside the
/// shader once, never over a profile that is there.
#[test]
fn a_drafted_profile_is_printed_checked_and_written_once() {
    let o = skinproof(&["profile", "shaders/examples/vertex_offset_palette.wgsl"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("palette: { group: 2, binding: 0, form: storage }")
            && text.contains("skin_function: skin_matrix"),
        "{text}"
    );
    assert!(
        stderr(&o).contains("0 field(s) left as TODO")
            && stderr(&o).contains("the draft passes shader::validates"),
        "{}",
        stderr(&o)
    );
    let dir = scratch("profile_draft");
    let shader = dir.join("pulled.wgsl");
    // Its vertices start at an offset its first word holds, which no trace of the loads places.
    let source = std::fs::read_to_string(root().join("shaders/examples/compute_pulled.wgsl"))
        .unwrap()
        .replace(
            "let base = v * VERTEX_WORDS;",
            "let base = v * VERTEX_WORDS + vertices[0];",
        );
    std::fs::write(&shader, source).unwrap();
    let at = shader.to_str().unwrap();
    let o = skinproof(&["profile", at, "--write"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let written = dir.join("pulled.profile.yaml");
    let draft = std::fs::read_to_string(&written).unwrap();
    // A byte-addressed buffer's offsets the trace cannot place: left to do, and the check says so.
    assert!(
        draft.contains("# TODO: `vertices` (@group(0) @binding(1))")
            && stderr(&o).contains("the draft does not pass shader::validates yet")
            && stderr(&o).contains(&format!("wrote {}", written.display())),
        "{}\n{draft}",
        stderr(&o)
    );
    assert!(o.stdout.is_empty());
    let o = skinproof(&["profile", at, "--write"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains(&format!(
            "{} is already there: the draft would replace it",
            written.display()
        )),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read_to_string(&written).unwrap(), draft);
    // A shader split into modules is composed first, with the defines given.
    let composed = "shaders/examples/composed_skinning.wgsl";
    let o = skinproof(&[
        "profile",
        composed,
        "--define",
        "SKINNING",
        "--define",
        "INFLUENCES=4",
    ]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success()
            && text.contains("modules:\n  entry: composed_skinning.wgsl\n  folders: [composed]\n")
            && stderr(&o).contains("the draft passes shader::validates"),
        "{text}\n{}",
        stderr(&o)
    );
    let o = skinproof(&["profile", composed, "--define", "SKINING"]);
    assert!(
        !o.status.success()
            && stderr(&o).contains("cannot compose its modules for a draft")
            && stderr(&o).contains("no module reads the define `SKINING`"),
        "{}",
        stderr(&o)
    );
}

/// A GLSL or SPIR-V shader is drafted from the WGSL naga writes from it, which `wgsl` prints
/// (alone, with the profile's error, where its profile does not load): a GLSL shader's defines
/// come from `--define` (one it reads and was not given is left undefined and to do), and the
/// drafted profile is the shipped one's layout; a SPIR-V module takes none.
#[test]
fn glsl_and_spirv_shaders_are_drafted_and_printed_as_wgsl() {
    let glsl = "shaders/examples/vertex_glsl.vert";
    let o = skinproof(&["wgsl", glsl]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", stderr(&o));
    // naga's WGSL of the stage (GLSL's `inverse` a helper of its own), and the harness's stages.
    assert!(
        text.contains("@vertex")
            && text.contains("fn _naga_inverse_3x3_f32")
            && text.contains("fn skinproof_fragment"),
        "{text}"
    );
    let o = skinproof(&["profile", glsl, "--define", "SKINNED"]);
    let draft = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success()
            && draft.contains("\ndefines:\n  SKINNED: true\n")
            && draft.contains(
                "camera: { group: 0, binding: 0, form: matrix, fill: identity, clip_y: flipped }"
            )
            && stderr(&o).contains("0 field(s) left as TODO")
            && stderr(&o).contains("the draft passes shader::validates"),
        "{draft}\n{}",
        stderr(&o)
    );
    let o = skinproof(&["profile", glsl]);
    let draft = String::from_utf8_lossy(&o.stdout);
    assert!(
        draft.contains("# TODO: `SKINNED` is read by the shader and was not given")
            && draft.contains("\n  SKINNED: false\n"),
        "{draft}"
    );
    let spirv = "shaders/examples/compute_hlsl.spv";
    let o = skinproof(&["profile", spirv]);
    let draft = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success()
            && draft.contains("# Shipped as SPIR-V")
            && !draft.contains("defines:")
            && stderr(&o).contains("the draft passes shader::validates"),
        "{draft}\n{}",
        stderr(&o)
    );
    let o = skinproof(&["profile", spirv, "--define", "X"]);
    assert!(
        !o.status.success() && stderr(&o).contains("--define is for a GLSL shader"),
        "{}",
        stderr(&o)
    );
    // A profile beside it that does not load (a draft with its TODOs left): the shader alone is
    // printed, and the profile's error says why not more.
    let dir = scratch("glsl_todo");
    let copy = dir.join("vertex_glsl.vert");
    std::fs::copy(root().join(glsl), &copy).unwrap();
    std::fs::write(
        dir.join("vertex_glsl.profile.yaml"),
        "palette: { group: TODO }\n",
    )
    .unwrap();
    let o = skinproof(&["wgsl", copy.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        !o.status.success()
            && text.contains("@vertex")
            && !text.contains("fn skinproof_fragment")
            && stderr(&o).contains("printed the shader alone")
            && stderr(&o).contains("vertex_glsl.profile.yaml:1:"),
        "{text}\n{}",
        stderr(&o)
    );
    // A GLSL file whose name does not say its stage.
    let dir = scratch("glsl_named");
    let bare = dir.join("skin.glsl");
    std::fs::copy(root().join(glsl), &bare).unwrap();
    let o = skinproof(&["wgsl", bare.to_str().unwrap()]);
    assert!(
        !o.status.success() && stderr(&o).contains("skin.glsl: a GLSL file's name says its stage"),
        "{}",
        stderr(&o)
    );
}
