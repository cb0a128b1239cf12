//! Self-tests of the harness on real adapters: broken shaders and broken case files must fail the
//! right trials, with messages that say what broke and by how much.

use std::path::{Path, PathBuf};

use skinproof::check::Status;
use skinproof::config::Config;
use skinproof::report::Report;
use skinproof::suite::Suite;

fn root() -> &'static Path {
    static ROOT: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    ROOT.get_or_init(skinproof::config::project_root)
}

/// A scratch folder under the target directory, fresh for each test.
fn scratch(name: &str) -> PathBuf {
    let dir = root().join("target").join("selftest").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The default shader with one edit; the edit must apply, so a reworded shader fails loudly here.
fn mutant(dir: &Path, from: &str, to: &str) -> PathBuf {
    let source = std::fs::read_to_string(root().join("shaders/skinning.wgsl")).unwrap();
    assert!(
        source.contains(from),
        "the default shader no longer contains `{from}`"
    );
    let path = dir.join("mutant.wgsl");
    std::fs::write(&path, source.replacen(from, to, 1)).unwrap();
    path
}

/// Runs the whole suite with these settings and returns what it reported.
fn run_suite(dir: &Path, vars: &[(&str, &str)]) -> Option<Report> {
    run_suite_with(dir, vars, |_| {})
}

/// Like `run_suite`, with a last word on the settings (e.g. a scratch golden folder).
fn run_suite_with(
    dir: &Path,
    vars: &[(&str, &str)],
    adjust: impl FnOnce(&mut Config),
) -> Option<Report> {
    let mut all: Vec<(String, String)> = vars
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    all.retain(|(k, _)| k != "CI");
    let mut config = Config::from_vars(root(), all).unwrap();
    config.reports = dir.join("reports");
    adjust(&mut config);
    let suite = Suite::discover(config);
    if let Some(reason) = &suite.no_adapter {
        assert!(
            !skinproof::config::Require::from_env().map_or(true, |r| r.is_required()),
            "{reason}"
        );
        eprintln!("self-test skipped: {reason}");
        return None;
    }
    suite.run_all();
    let report = suite.report.lock().unwrap().clone();
    Some(report)
}

/// A TIMEOUT found while the readback waits for work the driver queued without running it.
const READBACK_HUNG: &str = "GPU work did not finish within";

/// A row the default shader passes: PASS, or a normal or tangent check that SKIPs because the
/// shader writes no normals or tangents (the built-in contract has none).
fn passes(r: &skinproof::report::Row) -> bool {
    r.outcome.status == Status::Pass
        || (r.outcome.status == Status::Skip
            && ["normals_match_cpu", "tangents_match_cpu"].contains(&r.check.as_str())
            && r.outcome.message.contains("its profile names no"))
}
/// Every failing row of a report, as `case::check [adapter]: message`.
fn failed_rows(report: &Report) -> Vec<String> {
    (report.rows.iter())
        .filter(|r| r.outcome.status.fails())
        .map(|r| {
            format!(
                "{}::{} [{}]: {}",
                r.case, r.check, r.adapter, r.outcome.message
            )
        })
        .collect()
}

fn failing<'a>(report: &'a Report, check: &str) -> Vec<&'a skinproof::report::Row> {
    report
        .rows
        .iter()
        .filter(|r| r.check == check && r.outcome.status == Status::Fail)
        .collect()
}

#[test]
fn weights_on_the_wrong_joints_fail_the_posed_comparison() {
    let dir = scratch("wrong_joints");
    let shader = mutant(&dir, "palette[j[k]]", "palette[j[(k + 1u) % 4u]]");
    let Some(report) = run_suite(&dir, &[("SKINPROOF_SHADER", shader.to_str().unwrap())]) else {
        return;
    };
    let bad = failing(&report, "posed_matches_cpu");
    assert!(
        !bad.is_empty(),
        "no posed_matches_cpu failure: {:#?}",
        report.rows
    );
    let bend = bad
        .iter()
        .find(|r| r.case == "bend_two_joints")
        .expect("bend_two_joints must catch it");
    // The shader keeps its contract: no failure blames it.
    assert!(
        bend.outcome.message.contains("exceeds the tolerance")
            && !bend.outcome.message.contains("breaks its contract"),
        "{}",
        bend.outcome.message
    );
    assert!(
        bend.outcome.figure.parse::<f64>().unwrap() > 1e-3,
        "{}",
        bend.outcome.figure
    );
}

#[test]
fn dropped_translation_fails_the_posed_comparison() {
    let dir = scratch("dropped_translation");
    let shader = mutant(
        &dir,
        "let h = vec4<f32>(p, 1.0);",
        "let h = vec4<f32>(p, 0.0);",
    );
    let Some(report) = run_suite(&dir, &[("SKINPROOF_SHADER", shader.to_str().unwrap())]) else {
        return;
    };
    let bad = failing(&report, "posed_matches_cpu");
    assert!(!bad.is_empty(), "no posed_matches_cpu failure");
    assert!(
        bad.iter().all(|r| r.outcome.message.contains("at vertex")),
        "{bad:#?}"
    );
    // The palette at the bind pose is the identity, so dropping translation there changes nothing:
    // the posed comparison is what catches it, and the report must say so per adapter.
    let adapters: std::collections::BTreeSet<&str> =
        bad.iter().map(|r| r.adapter.as_str()).collect();
    assert_eq!(adapters.len(), report.adapters.len());
}

#[test]
fn an_output_w_other_than_0_fails_the_compute_comparisons() {
    let dir = scratch("output_w");
    let shader = mutant(&dir, "weights[i]), 0.0);", "weights[i]), 1.0);");
    let Some(report) = run_suite(&dir, &[("SKINPROOF_SHADER", shader.to_str().unwrap())]) else {
        return;
    };
    let bad = failing(&report, "compute_matches_cpu");
    assert!(bad.iter().any(|r| r.case == "bend_two_joints"), "{bad:#?}");
    assert!(
        bad.iter().all(
            |r| r.outcome.figure == "w not 0" && r.outcome.message.contains("vec4(skinned, 0)")
        ),
        "{bad:#?}"
    );
}

#[test]
fn a_shader_that_takes_the_source_w_as_1_fails_the_posed_comparison() {
    let dir = scratch("source_w");
    // The stored w is unused by the contract; using it as the homogeneous coordinate is a bug.
    let shader = mutant(
        &dir,
        "skin(positions[i].xyz, joints[i], weights[i])",
        "skin_h(positions[i], joints[i], weights[i])",
    );
    // skin_h: the default skinning of the stored vec4 as it is.
    let source = std::fs::read_to_string(&shader).unwrap().replacen(
        "@compute",
        "fn skin_h(h: vec4<f32>, j: vec4<u32>, w: vec4<f32>) -> vec3<f32> {\n    var acc = vec3<f32>(0.0);\n    for (var k = 0u; k < 4u; k = k + 1u) {\n        acc = acc + w[k] * (palette[j[k]] * h).xyz;\n    }\n    return acc;\n}\n\n@compute",
        1,
    );
    std::fs::write(&shader, source).unwrap();
    let Some(report) = run_suite(&dir, &[("SKINPROOF_SHADER", shader.to_str().unwrap())]) else {
        return;
    };
    let bad = failing(&report, "posed_matches_cpu");
    assert!(bad.iter().any(|r| r.case == "bend_two_joints"), "{bad:#?}");
}

#[test]
fn syntax_error_fails_validation_with_line_and_column() {
    let dir = scratch("syntax");
    let shader = mutant(&dir, "let i = id.x;", "let i = id.x");
    let Some(report) = run_suite(&dir, &[("SKINPROOF_SHADER", shader.to_str().unwrap())]) else {
        return;
    };
    let v = report.validation.clone().expect("the validation trial ran");
    assert_eq!(v.status, Status::Fail);
    // naga's located diagnostic: `mutant.wgsl:LINE:COL`.
    let line = v
        .message
        .lines()
        .find(|l| l.contains("mutant.wgsl:"))
        .unwrap_or_default()
        .to_string();
    let mut parts = line
        .rsplit("mutant.wgsl:")
        .next()
        .unwrap_or_default()
        .split(':');
    assert!(
        parts
            .next()
            .is_some_and(|n| n.trim().parse::<u32>().is_ok()),
        "{}",
        v.message
    );
    assert!(
        parts
            .next()
            .is_some_and(|n| n.trim().parse::<u32>().is_ok()),
        "{}",
        v.message
    );
    // Every adapter reports the build failure too.
    assert!(!failing(&report, "shader_builds").is_empty());
}

/// Runs only the suite's compiler trials (`shader::translates`) and returns the report.
fn run_compilers(shader: &Path) -> Report {
    let mut vars = vec![("SKINPROOF_SHADER".to_string(), shader.display().to_string())];
    // Where CI requires the validators, a missing one must fail here too, not skip.
    if let Ok(v) = std::env::var("SKINPROOF_REQUIRE_TOOLS") {
        vars.push(("SKINPROOF_REQUIRE_TOOLS".into(), v));
    }
    let suite = Suite::discover(Config::from_vars(root(), vars).unwrap());
    for job in suite.jobs().into_iter().filter(|j| j.compiler) {
        let _ = (job.body)();
    }
    let report = suite.report.lock().unwrap().clone();
    report
}

#[test]
fn spirv_that_spirv_val_rejects_fails_its_translation_trial() {
    let dir = scratch("spirv_val");
    // naga accepts a function of 300 parameters and writes it; SPIR-V allows at most 255.
    let params: Vec<String> = (0..300).map(|i| format!("p{i}: f32")).collect();
    let args = vec!["1.0"; 300].join(", ");
    let source = std::fs::read_to_string(root().join("shaders/skinning.wgsl")).unwrap();
    let shader = dir.join("wide.wgsl");
    std::fs::write(
        &shader,
        format!(
            "{source}\nvar<private> sink: f32;\nfn wide({}) -> f32 {{ return p0 + p299; }}\n@compute @workgroup_size(1)\nfn many_parameters() {{ sink = wide({args}); }}\n",
            params.join(", ")
        ),
    )
    .unwrap();
    let report = run_compilers(&shader);
    let row = |entry: &str, compiler: &str| {
        report
            .compilers
            .iter()
            .find(|c| c.entry == entry && c.compiler == compiler)
            .unwrap_or_else(|| panic!("no `{compiler}` row for `{entry}`"))
            .outcome
            .clone()
    };
    let wide = row("many_parameters", "spirv");
    if wide.status == Status::Skip {
        // Only where spirv-val is not installed and not required; the reason names the package.
        assert!(wide.message.contains("spirv-tools"), "{}", wide.message);
        return;
    }
    assert_eq!(wide.status, Status::Fail, "{}", wide.message);
    assert!(
        wide.message
            .contains("spirv-val rejects naga's spirv of entry point `many_parameters`")
            && wide.message.contains("255"),
        "{}",
        wide.message
    );
    // The shader's own entry points still pass: only the broken one fails.
    assert_eq!(row("skin_compute", "spirv").status, Status::Pass);
    assert_eq!(row("vs_skin", "glsl-450").status, Status::Pass);
}

/// The `tint` rows of a run of the compiler trials, by entry point; `None` where Tint is not
/// installed and not required (the reason then says how to install it).
fn tint_rows(report: &Report) -> Option<Vec<(String, skinproof::check::Outcome)>> {
    let rows: Vec<_> = report
        .compilers
        .iter()
        .filter(|c| c.compiler == "tint")
        .map(|c| (c.entry.clone(), c.outcome.clone()))
        .collect();
    assert!(!rows.is_empty(), "no tint rows");
    if rows[0].1.status == Status::Skip {
        assert!(
            rows[0].1.message.contains("npm ci"),
            "{}",
            rows[0].1.message
        );
        return None;
    }
    Some(rows)
}

#[test]
fn a_barrier_naga_accepts_and_tint_rejects_fails_tint_accepts() {
    let dir = scratch("tint");
    let source = std::fs::read_to_string(root().join("shaders/skinning.wgsl")).unwrap();
    // Past the early return of the threads beyond `count`, control flow depends on a per-thread
    // value: naga 30 accepts a barrier there, WGSL's uniformity analysis (Tint) does not.
    let store = "    skinned[i] = vec4<f32>(skin(";
    assert!(source.contains(store));
    let broken = source.replacen(store, &format!("    workgroupBarrier();\n{store}"), 1);
    let line = broken
        .lines()
        .position(|l| l.contains("workgroupBarrier"))
        .unwrap()
        + 1;
    let shader = dir.join("barrier.wgsl");
    std::fs::write(&shader, &broken).unwrap();
    let loaded = skinproof::shader::Shader::load(&shader, None).unwrap();
    if let Err(e) = loaded.validate() {
        panic!("naga accepts it: {e}");
    }
    let Some(rows) = tint_rows(&run_compilers(&shader)) else {
        return;
    };
    // The module fails, so both pipelines do (compute; vertex and fragment), with Tint's message
    // at the shader file's line.
    assert_eq!(rows.len(), 3);
    for (entry, o) in &rows {
        assert_eq!(o.status, Status::Fail, "{entry}: {}", o.message);
        let at = format!("barrier.wgsl:{line}:5: error: 'workgroupBarrier' must only be called from uniform control flow");
        assert!(o.message.contains(&at), "{entry}: {}", o.message);
    }
    // The project's shader passes.
    let Some(rows) = tint_rows(&run_compilers(&root().join("shaders/skinning.wgsl"))) else {
        return;
    };
    for (entry, o) in &rows {
        assert_eq!(o.status, Status::Pass, "{entry}: {}", o.message);
    }
}

/// A scratch cases folder holding copies of these project cases.
fn copy_cases(dir: &Path, names: &[&str]) -> PathBuf {
    let cases = dir.join("cases");
    std::fs::create_dir_all(&cases).unwrap();
    for name in names {
        let file = format!("{name}.yaml");
        std::fs::copy(root().join("cases").join(&file), cases.join(&file)).unwrap();
    }
    cases
}

#[test]
fn a_malformed_case_fails_only_its_own_trials() {
    let dir = scratch("malformed_case");
    let cases = copy_cases(&dir, &["bend_two_joints"]);
    std::fs::write(
        cases.join("broken.yaml"),
        "skeleton:\n  joints: 3\nmesh:\n  vertices: 10\n  colour: red\n",
    )
    .unwrap();
    let Some(report) = run_suite(&dir, &[("SKINPROOF_CASES", cases.to_str().unwrap())]) else {
        return;
    };
    assert_eq!(report.case_problems.len(), 1);
    let msg = &report.case_problems[0].message;
    assert!(msg.contains("broken.yaml:5:"), "{msg}");
    assert!(msg.contains("unknown field `colour`"), "{msg}");
    assert!(report
        .rows
        .iter()
        .all(|r| r.case == "bend_two_joints" || r.case == skinproof::suite::PROPERTIES));
    assert!(!report.rows.is_empty());
    assert!(report.rows.iter().all(passes), "{:#?}", report.rows);
}

#[test]
fn two_cases_sharing_a_golden_are_both_named_and_still_run() {
    let dir = scratch("shared_golden");
    let cases = copy_cases(&dir, &["bend_two_joints"]);
    let text = std::fs::read_to_string(root().join("cases/four_influences.yaml")).unwrap();
    assert!(
        !text.contains("\ngolden:"),
        "four_influences sets a golden already"
    );
    std::fs::write(
        cases.join("four_influences.yaml"),
        text + "golden:\n  name: bend_two_joints\n",
    )
    .unwrap();
    let Some(report) = run_suite(&dir, &[("SKINPROOF_CASES", cases.to_str().unwrap())]) else {
        return;
    };
    let problems: Vec<&str> = report
        .case_problems
        .iter()
        .map(|p| p.message.as_str())
        .collect();
    assert_eq!(problems.len(), 2, "{problems:#?}");
    assert!(problems.iter().any(|m| m.contains("four_influences.yaml:")
        && m.contains("field `golden.name`: golden/bend_two_joints.png is also the golden of `bend_two_joints`")));
    assert!(problems
        .iter()
        .any(|m| m.contains("is also the golden of `four_influences`")));
    // Neither golden check compares or blesses while the golden is shared.
    for r in failing(&report, "render_matches_golden") {
        assert!(
            r.outcome.message.contains("is also the golden of")
                && !r.outcome.message.contains("SKINPROOF_BLESS"),
            "{}",
            r.outcome.message
        );
    }
    assert_eq!(
        failing(&report, "render_matches_golden").len(),
        2 * report.adapters.len()
    );
    // Both cases' other checks still ran.
    for case in ["bend_two_joints", "four_influences"] {
        assert!(report.rows.iter().any(|r| r.case == case
            && r.check == "posed_matches_cpu"
            && r.outcome.status == Status::Pass));
    }
}

/// A scratch copy of the project's goldens.
fn copy_goldens(dir: &Path) -> PathBuf {
    let goldens = dir.join("golden");
    std::fs::create_dir_all(&goldens).unwrap();
    for e in std::fs::read_dir(root().join("golden")).unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, goldens.join(p.file_name().unwrap())).unwrap();
    }
    goldens
}

/// Draws a bar across a golden, so it no longer matches what the shader renders.
fn deface(png: &Path) {
    let mut img = image::open(png).unwrap().to_rgba8();
    let y = img.height() / 2;
    for x in 0..img.width() {
        img.put_pixel(x, y, image::Rgba([255, 255, 255, 255]));
    }
    img.save(png).unwrap();
}

#[test]
fn bless_new_writes_only_missing_goldens() {
    let dir = scratch("bless_new");
    let goldens = copy_goldens(&dir);
    deface(&goldens.join("bend_two_joints.png"));
    std::fs::remove_file(goldens.join("padded_rows.png")).unwrap();
    std::fs::remove_file(goldens.join("padded_rows.json")).unwrap();
    let before: Vec<(PathBuf, Vec<u8>)> = std::fs::read_dir(&goldens)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| (p.clone(), std::fs::read(&p).unwrap()))
        .collect();
    let Some(report) = run_suite_with(&dir, &[("SKINPROOF_BLESS", "new")], |c| {
        c.goldens = goldens.clone()
    }) else {
        return;
    };
    for (p, bytes) in &before {
        assert_eq!(
            &std::fs::read(p).unwrap(),
            bytes,
            "{} changed under SKINPROOF_BLESS=new",
            p.display()
        );
    }
    assert!(goldens.join("padded_rows.png").exists() && goldens.join("padded_rows.json").exists());
    // The defaced golden was left alone, so it still fails.
    assert!(failing(&report, "render_matches_golden")
        .iter()
        .all(|r| r.case == "bend_two_joints"));
    assert_eq!(
        failing(&report, "render_matches_golden").len(),
        report.adapters.len()
    );
}

#[test]
fn bless_all_clears_a_stale_flag_without_touching_a_matching_image() {
    let dir = scratch("stale");
    let goldens = copy_goldens(&dir);
    let cases = copy_cases(&dir, &["bend_two_joints"]);
    // A sidecar from another version of the case: the image still matches.
    let sidecar = goldens.join("bend_two_joints.json");
    let text = std::fs::read_to_string(&sidecar).unwrap();
    let old_sha = text.split("\"case_sha256\": \"").nth(1).unwrap()[..64].to_string();
    std::fs::write(&sidecar, text.replace(&old_sha, &"0".repeat(64))).unwrap();
    let png = std::fs::read(goldens.join("bend_two_joints.png")).unwrap();
    let run = |bless: &str| {
        run_suite_with(&dir, &[("SKINPROOF_BLESS", bless)], |c| {
            c.goldens = goldens.clone();
            c.cases = cases.clone();
        })
    };
    let rows = |bless: &str| {
        Some(
            run(bless)?
                .rows
                .into_iter()
                .filter(|r| r.check == "render_matches_golden")
                .collect::<Vec<_>>(),
        )
    };
    let Some(first) = run("") else {
        return;
    };
    let review = first.review_markdown();
    assert!(
        review.contains("## Stale goldens") && review.contains("SKINPROOF_BLESS=all"),
        "{review}"
    );
    let judged: Vec<_> = first
        .rows
        .iter()
        .filter(|r| r.check == "render_matches_golden")
        .collect();
    for r in &judged {
        assert_eq!(r.outcome.status, Status::Pass, "{}", r.outcome.message);
        assert!(
            r.outcome
                .message
                .contains("stale golden: the case file changed")
                && r.outcome.message.contains("SKINPROOF_BLESS=all"),
            "{}",
            r.outcome.message
        );
    }
    assert!(std::fs::read_to_string(&sidecar)
        .unwrap()
        .contains(&"0".repeat(64)));
    let blessed = rows("all").unwrap();
    assert!(blessed.iter().all(|r| r.outcome.status == Status::Pass));
    assert_eq!(
        std::fs::read(goldens.join("bend_two_joints.png")).unwrap(),
        png
    );
    assert!(std::fs::read_to_string(&sidecar)
        .unwrap()
        .contains(&old_sha));
    for r in rows("").unwrap() {
        assert_eq!(r.outcome.status, Status::Pass);
        assert!(
            !r.outcome.message.contains("stale"),
            "{}",
            r.outcome.message
        );
    }
}

#[test]
fn a_corrupt_sidecar_is_reported_with_the_command_that_rewrites_it() {
    let dir = scratch("corrupt_sidecar");
    let goldens = copy_goldens(&dir);
    let cases = copy_cases(&dir, &["bend_two_joints"]);
    let sidecar = goldens.join("bend_two_joints.json");
    std::fs::write(&sidecar, "{ not json").unwrap();
    let run = |bless: &str| {
        run_suite_with(&dir, &[("SKINPROOF_BLESS", bless)], |c| {
            c.goldens = goldens.clone();
            c.cases = cases.clone();
        })
    };
    let Some(report) = run("") else {
        return;
    };
    let judged: Vec<_> = report
        .rows
        .iter()
        .filter(|r| r.check == "render_matches_golden")
        .collect();
    assert!(!judged.is_empty());
    for r in judged {
        let m = &r.outcome.message;
        assert!(
            m.contains("bend_two_joints.json is corrupt") && m.contains("SKINPROOF_BLESS=all"),
            "{m}"
        );
    }
    // The command it names rewrites the sidecar.
    run("all").unwrap();
    let text = std::fs::read_to_string(&sidecar).unwrap();
    assert!(
        serde_json::from_str::<serde_json::Value>(&text).is_ok(),
        "{text}"
    );
}

#[test]
fn a_run_with_no_case_fails_saying_where_it_looked() {
    let dir = scratch("no_case");
    let cases = dir.join("cases");
    std::fs::create_dir_all(&cases).unwrap();
    // Only files the run does not take for cases.
    std::fs::write(cases.join("README.md"), "").unwrap();
    let Some(report) = run_suite(&dir, &[("SKINPROOF_CASES", cases.to_str().unwrap())]) else {
        return;
    };
    let msg = &report.case_problems[0].message;
    assert!(
        msg.contains(cases.to_str().unwrap()) && msg.contains("no case files"),
        "{msg}"
    );
}

#[test]
fn a_golden_of_another_size_names_both_sizes() {
    let dir = scratch("golden_size");
    let goldens = copy_goldens(&dir);
    let png = goldens.join("wide_view.png");
    let img = image::open(&png).unwrap().to_rgba8();
    let (w, h) = img.dimensions();
    image::imageops::crop_imm(&img, 0, 0, w / 2, h)
        .to_image()
        .save(&png)
        .unwrap();
    let Some(report) = run_suite_with(&dir, &[], |c| c.goldens = goldens.clone()) else {
        return;
    };
    let bad = failing(&report, "render_matches_golden");
    assert_eq!(bad.len(), report.adapters.len(), "{bad:#?}");
    for r in bad {
        assert_eq!(r.case, "wide_view");
        let want = format!(
            "golden/wide_view.png is {}x{h} pixels, the render {w}x{h}",
            w / 2
        );
        assert!(r.outcome.message.contains(&want), "{}", r.outcome.message);
    }
}

#[test]
fn a_golden_in_other_colours_says_only_the_colours_differ() {
    // The golden recoloured where it is covered: a render in the contract's colours then differs
    // from it as a shader drawing its own colours differs from the goldens.
    let dir = scratch("golden_colours");
    let goldens = copy_goldens(&dir);
    let png = goldens.join("wide_view.png");
    let mut img = image::open(&png).unwrap().to_rgba8();
    for p in img.pixels_mut().filter(|p| p.0[3] > 0) {
        p.0 = [255 - p.0[0], 255 - p.0[1], 255 - p.0[2], p.0[3]];
    }
    img.save(&png).unwrap();
    deface(&goldens.join("bend_two_joints.png"));
    let Some(report) = run_suite_with(&dir, &[], |c| c.goldens = goldens.clone()) else {
        return;
    };
    let bad = failing(&report, "render_matches_golden");
    assert_eq!(bad.len(), 2 * report.adapters.len(), "{bad:#?}");
    for r in bad {
        let m = &r.outcome.message;
        let said = m.contains("only the colours differ") && m.contains("`vertex.colour: any`");
        // A golden with a line drawn across it differs in coverage too: nothing said.
        assert_eq!(said, r.case == "wide_view", "{}: {m}", r.case);
    }
}

#[test]
fn a_changed_golden_gets_a_side_by_side_review() {
    let dir = scratch("review");
    let goldens = copy_goldens(&dir);
    deface(&goldens.join("wide_view.png"));
    let Some(report) = run_suite_with(&dir, &[], |c| c.goldens = goldens.clone()) else {
        return;
    };
    let bad = failing(&report, "render_matches_golden");
    assert_eq!(bad.len(), report.adapters.len(), "{bad:#?}");
    let md = report.review_markdown();
    assert!(md.contains("## Golden images to review"), "{md}");
    assert!(md.contains("### `wide_view` on"), "{md}");
    assert!(
        md.contains("| ![expected](../")
            && md.contains("![actual](diff/wide_view--")
            && md.contains("![diff](diff/wide_view--"),
        "{md}"
    );
    for r in &bad {
        let v = r.outcome.review.as_ref().unwrap();
        assert!(v.differing_pixels > 0 && v.flip_mean > 0.0);
        assert!(dir
            .join("reports")
            .join(v.actual.as_ref().unwrap())
            .exists());
        assert!(dir.join("reports").join(v.diff.as_ref().unwrap()).exists());
        let command = format!(
            "SKINPROOF_BLESS=all cargo test --release --test conformance -- --exact 'wide_view::render_matches_golden [{}]'",
            r.adapter
        );
        assert!(
            r.outcome.message.contains(&command),
            "{}\nwanted: {command}",
            r.outcome.message
        );
    }
    // Once the golden matches again, the images of the old failure go.
    let artifacts: Vec<PathBuf> = bad
        .iter()
        .flat_map(|r| {
            let v = r.outcome.review.as_ref().unwrap();
            [v.actual.clone().unwrap(), v.diff.clone().unwrap()]
        })
        .map(|p| dir.join("reports").join(p))
        .collect();
    std::fs::copy(
        root().join("golden/wide_view.png"),
        goldens.join("wide_view.png"),
    )
    .unwrap();
    let again = run_suite_with(&dir, &[], |c| c.goldens = goldens.clone()).unwrap();
    assert!(failing(&again, "render_matches_golden").is_empty());
    for p in artifacts {
        assert!(!p.exists(), "{} outlived its failure", p.display());
    }
}

#[test]
fn an_expected_failure_that_passes_fails_the_run() {
    let dir = scratch("unexpected_pass");
    let cases = dir.join("cases");
    std::fs::create_dir_all(&cases).unwrap();
    let text = std::fs::read_to_string(root().join("cases/bend_two_joints.yaml")).unwrap()
        + "expect:\n  - check: compute_matches_cpu\n    status: fail\n    reason: a driver bug that has since been fixed\n  - backend: gl\n    check: render_covers_bind_pose\n    status: skip\n    reason: skipped on GL for the test\n";
    std::fs::write(cases.join("bend_two_joints.yaml"), text).unwrap();
    let Some(report) = run_suite(&dir, &[("SKINPROOF_CASES", cases.to_str().unwrap())]) else {
        return;
    };
    let xpass: Vec<_> = report
        .rows
        .iter()
        .filter(|r| r.outcome.status == Status::UnexpectedPass)
        .collect();
    assert_eq!(xpass.len(), report.adapters.len());
    assert!(xpass
        .iter()
        .all(|r| r.check == "compute_matches_cpu"
            && r.outcome.message.starts_with("unexpected pass")));
    assert!(Status::UnexpectedPass.fails());
    let skipped: Vec<_> = report
        .rows
        .iter()
        .filter(|r| r.check == "render_covers_bind_pose" && r.outcome.status == Status::Skip)
        .collect();
    assert!(skipped.iter().all(|r| r.adapter.starts_with("gl/")));
}

#[test]
fn an_expected_failure_that_fails_is_xfail() {
    let dir = scratch("expected_fail");
    let cases = dir.join("cases");
    std::fs::create_dir_all(&cases).unwrap();
    let text = std::fs::read_to_string(root().join("cases/bend_two_joints.yaml")).unwrap()
        + "expect:\n  - check: posed_matches_cpu\n    status: fail\n    reason: this shader swaps joints\n";
    std::fs::write(cases.join("bend_two_joints.yaml"), text).unwrap();
    let shader = mutant(&dir, "palette[j[k]]", "palette[j[(k + 1u) % 4u]]");
    let vars = [
        ("SKINPROOF_CASES", cases.to_str().unwrap()),
        ("SKINPROOF_SHADER", shader.to_str().unwrap()),
    ];
    let Some(report) = run_suite(&dir, &vars) else {
        return;
    };
    let posed: Vec<_> = report
        .rows
        .iter()
        .filter(|r| r.check == "posed_matches_cpu")
        .collect();
    assert!(
        !posed.is_empty()
            && posed
                .iter()
                .all(|r| r.outcome.status == Status::ExpectedFail),
        "{posed:#?}"
    );
    assert!(!Status::ExpectedFail.fails());
}

/// The bytes of every file in the project's golden folder.
fn golden_snapshot() -> Vec<(PathBuf, Vec<u8>)> {
    let mut files: Vec<(PathBuf, Vec<u8>)> = std::fs::read_dir(root().join("golden"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| (p.clone(), std::fs::read(&p).unwrap()))
        .collect();
    files.sort();
    files
}

/// Every case reported all its checks on every adapter (nothing aborted the run), and the
/// project's goldens are byte for byte what they were before it.
fn assert_run_completed_and_goldens_untouched(report: &Report, before: &[(PathBuf, Vec<u8>)]) {
    let checks = report
        .rows
        .iter()
        .filter(|r| r.case != skinproof::suite::PROPERTIES)
        .count();
    assert_eq!(
        checks,
        report.cases.len() * report.adapters.len() * skinproof::check::Check::ALL.len()
    );
    assert_eq!(
        golden_snapshot(),
        before,
        "a failing run touched the goldens"
    );
}

#[test]
fn a_readback_timeout_is_reported_as_timeout_and_the_run_goes_on() {
    let dir = scratch("timeout");
    let before = golden_snapshot();
    // A deadline no GPU meets: steps that do not finish at once become TIMEOUT rows (here
    // already the device's creation, which the deadline bounds too).
    let Some(report) = run_suite(&dir, &[("SKINPROOF_TIMEOUT_S", "0.000001")]) else {
        return;
    };
    let timeouts = report
        .rows
        .iter()
        .filter(|r| r.outcome.status == Status::Timeout)
        .count();
    assert!(timeouts > 0, "no wait timed out");
    // Each TIMEOUT says which: a wait past the deadline, a driver call past it, or work queued on
    // a device that was given up meanwhile (whether any was queued then is a race).
    let said = [
        "did not finish within",
        "took longer than the deadline of 0.000001 s",
        "not run: the device was abandoned after a hung step",
    ];
    for r in report
        .rows
        .iter()
        .filter(|r| r.outcome.status == Status::Timeout)
    {
        assert!(
            said.iter().any(|s| r.outcome.message.contains(s)),
            "{} {} on {}: {}",
            r.case,
            r.check,
            r.adapter,
            r.outcome.message
        );
    }
    assert_run_completed_and_goldens_untouched(&report, &before);
    // A device and pipelines built in time, then readbacks under that deadline.
    let Some(mut ctx) = first_context() else {
        return;
    };
    ctx.timeout = std::time::Duration::from_nanos(1000);
    let case =
        skinproof::case::Case::load(&root().join("cases/bend_two_joints.yaml"), &[]).unwrap();
    let scene = skinproof::scene::Scene::from_case(&case).unwrap();
    // Tries until a wait misses it: a readback that beats even this deadline (the work done
    // before the first poll) is no failure of the deadline.
    let errors: Vec<_> = (0..50)
        .filter_map(|_| {
            skinproof::gpu::compute::skin(&ctx, &scene.posed_palette, &scene.mesh).err()
        })
        .collect();
    assert!(!errors.is_empty(), "no readback timed out");
    // The first wait past the deadline gives the device up; work after it is not run there.
    assert!(
        errors[0].to_string().contains("did not finish within"),
        "{errors:?}"
    );
    assert!(
        errors[1..].iter().all(|e| e.is_timeout()
            && e.to_string()
                .contains("not run: the device was abandoned after a hung step")),
        "{errors:?}"
    );
}

#[test]
fn a_wgpu_validation_error_fails_its_trials_and_the_run_goes_on() {
    let dir = scratch("validation_error");
    let before = golden_snapshot();
    // naga accepts this module, but it no longer fits the contract's bind group layout, so wgpu
    // rejects the pipelines with a validation error on every adapter.
    let shader = mutant(
        &dir,
        "@group(0) @binding(0) var<storage, read> palette",
        "@group(0) @binding(0) var<storage, read_write> palette",
    );
    let Some(report) = run_suite(&dir, &[("SKINPROOF_SHADER", shader.to_str().unwrap())]) else {
        return;
    };
    let builds = failing(&report, "shader_builds");
    // Every case that ran (cases over absent optional models are SKIP) fails to build.
    let ran = report
        .rows
        .iter()
        .filter(|r| r.check == "shader_builds" && r.outcome.status != Status::Skip)
        .count();
    assert!(ran > 0);
    assert_eq!(builds.len(), ran);
    assert!(
        builds
            .iter()
            .all(|r| r.outcome.message.to_lowercase().contains("valid")),
        "{builds:#?}"
    );
    assert_run_completed_and_goldens_untouched(&report, &before);
}

#[test]
fn a_broken_render_stage_leaves_the_compute_checks_standing() {
    let dir = scratch("render_stage_only");
    // The vertex stage reads binding 1, which the render pipeline does not have.
    let shader = mutant(
        &dir,
        "let p = skin(position, joint, weight);",
        "let p = skin(positions[0].xyz * 0.0 + position, joint, weight);",
    );
    let vars = [
        ("SKINPROOF_SHADER", shader.to_str().unwrap()),
        ("SKINPROOF_CASES", "cases"),
    ];
    let Some(report) = run_suite(&dir, &vars) else {
        return;
    };
    let validation = report.validation.as_ref().unwrap();
    assert!(
        validation
            .message
            .contains("entry point `vs_skin` uses binding 1 (`positions`)"),
        "{}",
        validation.message
    );
    let rows = |check: &'static str| {
        report
            .rows
            .iter()
            .filter(move |r| r.case == "bend_two_joints" && r.check == check)
    };
    for r in rows("shader_builds") {
        assert_eq!(r.outcome.status, Status::Fail);
        assert!(
            r.outcome
                .message
                .contains("the render pipeline (vs_skin, fs_skin)")
                && !r.outcome.message.contains("the compute pipeline"),
            "{}",
            r.outcome.message
        );
    }
    for check in ["compute_matches_cpu", "posed_matches_cpu"] {
        assert!(rows(check).all(|r| r.outcome.status == Status::Pass));
    }
    assert!(rows("render_covers_bind_pose").all(|r| r.outcome.status == Status::Fail));
}

#[test]
fn a_fragment_stage_may_read_the_view() {
    let dir = scratch("fragment_view");
    let shader = mutant(
        &dir,
        "return vec4<f32>(tint, 1.0 - tint, 0.5, 1.0);",
        "return vec4<f32>(tint, 1.0 - tint, 0.5 + 0.0 * view.scale, 1.0);",
    );
    let cases = copy_cases(&dir, &["bend_two_joints"]);
    let vars = [
        ("SKINPROOF_SHADER", shader.to_str().unwrap()),
        ("SKINPROOF_CASES", cases.to_str().unwrap()),
    ];
    let Some(report) = run_suite(&dir, &vars) else {
        return;
    };
    assert_eq!(report.validation.as_ref().unwrap().status, Status::Pass);
    assert!(
        report.rows.iter().all(passes),
        "{:#?}",
        report
            .rows
            .iter()
            .filter(|r| !passes(r))
            .collect::<Vec<_>>()
    );
}

#[test]
fn a_missing_optional_model_is_skip_with_the_reason() {
    let dir = scratch("missing_model");
    let cases = dir.join("cases");
    std::fs::create_dir_all(&cases).unwrap();
    std::fs::write(
        cases.join("gone.yaml"),
        "description: a model that is not there\nmodel:\n  path: nowhere/Gone.glb\n  time: 0.5\n  if_missing: skip\n",
    )
    .unwrap();
    let Some(report) = run_suite(&dir, &[("SKINPROOF_CASES", cases.to_str().unwrap())]) else {
        return;
    };
    let rows: Vec<_> = report.rows.iter().filter(|r| r.case == "gone").collect();
    assert_eq!(
        rows.len(),
        skinproof::check::Check::ALL.len() * report.adapters.len()
    );
    assert!(
        rows.iter()
            .all(|r| r.outcome.status == Status::Skip && r.outcome.message.contains("Gone.glb")),
        "{rows:#?}"
    );
}

/// A context on the first adapter found, with the default shader.
fn first_context() -> Option<skinproof::gpu::Context> {
    let selection = skinproof::gpu::Selection::from_env().unwrap();
    let instance = skinproof::gpu::adapter::instance(&selection);
    let found = skinproof::gpu::discover(&instance, &selection)
        .into_iter()
        .next()?;
    let shader =
        skinproof::shader::Shader::load(&root().join("shaders/skinning.wgsl"), None).unwrap();
    let timeout = std::time::Duration::from_secs(30);
    Some(
        skinproof::gpu::Context::new(&found.adapter, found.info.clone(), &shader, timeout).unwrap(),
    )
}

#[test]
fn a_lost_device_fails_its_work_without_a_panic() {
    let Some(ctx) = first_context() else {
        eprintln!("self-test skipped: no adapter");
        return;
    };
    let case =
        skinproof::case::Case::load(&root().join("cases/bend_two_joints.yaml"), &[]).unwrap();
    let scene = skinproof::scene::Scene::from_case(&case).unwrap();
    assert!(skinproof::gpu::compute::skin(&ctx, &scene.posed_palette, &scene.mesh).is_ok());
    ctx.device.destroy();
    let _ = ctx.device.poll(wgpu::PollType::Poll);
    let lost = skinproof::gpu::compute::skin(&ctx, &scene.posed_palette, &scene.mesh);
    assert!(lost.is_err(), "work on a destroyed device succeeded");
    assert!(ctx.is_lost(), "the device-lost callback did not fire");
}

#[test]
fn trials_after_a_device_loss_run_on_a_new_device() {
    let dir = scratch("device_loss");
    let mut config = Config::from_vars(root(), Vec::new()).unwrap();
    config.reports = dir.join("reports");
    config.cases = dir.join("cases");
    std::fs::create_dir_all(&config.cases).unwrap();
    std::fs::copy(
        root().join("cases/bend_two_joints.yaml"),
        config.cases.join("bend_two_joints.yaml"),
    )
    .unwrap();
    let suite = Suite::discover(config);
    if suite.no_adapter.is_some() {
        return;
    }
    // Trials on the first devices, then every device lost, then the same trials again.
    suite.run_all();
    let first = suite.report.lock().unwrap().rows.len();
    suite.lose_devices();
    suite.run_all();
    let report = suite.report();
    let after: Vec<_> = report.rows[first..].iter().collect();
    assert_eq!(after.len(), first);
    assert!(
        after.iter().all(|r| !r.outcome.status.fails()),
        "{after:#?}"
    );
    // Two device setups per adapter: the first, and the one after the loss.
    let setups = report
        .timings
        .iter()
        .filter(|t| t.what == "device and pipelines")
        .count();
    assert_eq!(setups, 2 * report.adapters.len());
}

#[test]
fn work_beyond_the_device_limits_is_refused_before_submission() {
    let Some(ctx) = first_context() else {
        eprintln!("self-test skipped: no adapter");
        return;
    };
    let limits = ctx.device.limits();
    // One vertex more than the storage binding holds, and far more workgroups than a dispatch may have.
    let vertices = (limits.max_storage_buffer_binding_size / 16 + 1) as usize;
    let err = skinproof::gpu::compute::check_limits(&ctx, 4, vertices)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("the vertex buffers (bytes) needs") && err.contains("which allows"),
        "{err}"
    );
    assert!(skinproof::gpu::compute::check_limits(&ctx, 4, 1000).is_ok());
    // The render path has no dispatch: a mesh past the workgroup count is not refused for it.
    let past_dispatch = (limits.max_compute_workgroups_per_dimension as usize + 1) * 64;
    let compute = skinproof::gpu::compute::check_limits(&ctx, 4, past_dispatch);
    let render = skinproof::gpu::compute::check_render_limits(&ctx, 4, past_dispatch, 3);
    if (past_dispatch as u64) * 16 <= limits.max_storage_buffer_binding_size {
        let err = compute.unwrap_err().to_string();
        assert!(err.contains("the dispatch (workgroups of 64)"), "{err}");
    }
    if (past_dispatch as u64) * 16 <= limits.max_buffer_size {
        assert!(render.is_ok(), "{render:?}");
    }
    let err = skinproof::gpu::compute::check_render_limits(
        &ctx,
        4,
        1000,
        (limits.max_buffer_size / 4 + 1) as usize,
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("the index buffer (bytes)"), "{err}");
}

/// Where the child run of the build-deadline test works; set only in that child process.
const DEADLINE_CHILD: &str = "SELFTEST_BUILD_DEADLINE_DIR";

/// The deadline the child run gives each step, in seconds: shorter than the setup's steps, so the
/// worker is still inside the driver (creating the device, or the shader module where a GL device
/// came before the waiter's first look) when the trials, the report and the process end.
const BUILD_DEADLINE_S: &str = "0.000001";

#[test]
#[ignore = "the child run of a_setup_past_the_deadline_is_timeout_and_the_process_ends"]
fn build_deadline_child() {
    let Some(dir) = std::env::var_os(DEADLINE_CHILD).map(PathBuf::from) else {
        return;
    };
    let start = std::time::Instant::now();
    let vars = [
        ("SKINPROOF_CASES", dir.join("cases").display().to_string()),
        ("SKINPROOF_TIMEOUT_S", BUILD_DEADLINE_S.into()),
        ("SKINPROOF_BENCH", "off".into()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    let mut config = Config::from_vars(root(), vars).unwrap();
    config.reports = dir.join("reports");
    let reports = config.reports.clone();
    let suite = Suite::discover(config);
    suite.run_all();
    let mut report = suite.report();
    report.wall_s = start.elapsed().as_secs_f64();
    report.write(&reports).unwrap();
    // As the conformance runner does before it exits: this must not wait for a stuck build.
    drop(suite);
    eprintln!(
        "build_deadline_child: trials done and suite dropped after {:.1} s",
        start.elapsed().as_secs_f64()
    );
    // As the runner ends: not through the drivers' exit handlers while an abandoned build is
    // still inside one (they aborted this process with a heap corruption in 2 of 40 runs).
    skinproof::gpu::worker::exit(0);
}

#[test]
fn a_setup_past_the_deadline_is_timeout_and_the_process_ends() {
    let dir = scratch("build_deadline");
    copy_cases(&dir, &["bend_two_joints"]);
    // Its own process: the build the deadline gave up on goes on in a thread that cannot be
    // stopped, and must not outlive this test or hold up the end of that process.
    let start = std::time::Instant::now();
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "build_deadline_child",
            "--ignored",
            "--nocapture",
        ])
        .env(DEADLINE_CHILD, &dir)
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let bound = std::time::Duration::from_secs(30);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > bound {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the run did not end within {bound:?} of a {BUILD_DEADLINE_S} s deadline");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let took = start.elapsed();
    eprintln!("the run with every setup past the deadline ended after {took:.1?}");
    assert!(status.success(), "the child run failed: {status}");
    let report = Report::load(&dir.join("reports/report.json")).expect("the report was written");
    if report.adapters.is_empty() {
        eprintln!("self-test skipped: no adapter");
        return;
    }
    for adapter in &report.adapters {
        // Every trial on it, the properties too, with what outlasted the deadline.
        let rows: Vec<_> = report
            .rows
            .iter()
            .filter(|r| r.adapter == adapter.tag)
            .collect();
        let checks = skinproof::check::Check::ALL.len();
        assert_eq!(
            rows.len(),
            checks + skinproof::property::ALL.len(),
            "{rows:#?}"
        );
        // The first setup step past the deadline: the device, or (where the device came within
        // the waiter's first look: GL makes one in well under a millisecond) the shader module or
        // a pipeline. Every trial of the adapter says the same.
        let setup = [
            "creating the device",
            "creating the shader module",
            "building the",
        ];
        let first = &rows[0].outcome.message;
        assert!(
            setup.iter().any(|s| first.starts_with(s))
                && first.contains("took longer than the deadline of 0.000001 s"),
            "{} on {}: {first}",
            rows[0].check,
            adapter.tag
        );
        assert!(
            rows.iter()
                .all(|r| r.outcome.status == Status::Timeout && &r.outcome.message == first),
            "{rows:#?}"
        );
        // One wait for the adapter, not one per trial.
        let setups = report
            .timings
            .iter()
            .filter(|t| t.adapter == adapter.tag && t.what == "device and pipelines")
            .count();
        assert_eq!(setups, 1);
    }
}

/// Where the child run of the hung-step tests works; set only in that child process.
const HANG_CHILD: &str = "SELFTEST_HANG_DIR";

/// The deadline the hung-step runs give each GPU step, in seconds.
const HANG_DEADLINE_S: f64 = 2.0;

/// The margin README states: a hung step is a TIMEOUT row this long after its deadline at most.
const HANG_MARGIN_S: f64 = 1.0;

/// A shader whose GPU work does not end on a case with 7 joints (as no other case and no property
/// has): the loop's exit depends on a padding word the harness leaves 0, so no compiler can drop
/// it, and Vulkan's loop bounding (2^64 iterations) does not end it in practice. llvmpipe's GL
/// ends any invocation after 65535 loop iterations, so each iteration is made long enough that
/// the step still lasts minutes there. The vertex loop's value is used through the padding too
/// (`spin * 0.0` would be folded, and the loop dropped with it).
fn hanging_shader(dir: &Path, stage: &str) -> PathBuf {
    let body = |x: &str| -> String {
        (0..64)
            .map(|_| format!("            {x} = sin({x}) * 0.5 + cos({x}) * 0.5;\n"))
            .collect()
    };
    match stage {
        "compute" => mutant(
            dir,
            "    skinned[i] = vec4<f32>(skin(",
            &format!(
                "    if (arrayLength(&palette) == 7u) {{\n        var x = positions[i].x;\n        loop {{\n            if (params._pad0 == 7u) {{\n                break;\n            }}\n{}            skinned[i].w = x;\n        }}\n    }}\n    skinned[i] = vec4<f32>(skin(",
                body("x")
            ),
        ),
        _ => mutant(
            dir,
            "    out.tint = f32(joint.x) / 8.0;",
            &format!(
                "    var spin = position.x;\n    if (arrayLength(&palette) == 7u) {{\n        loop {{\n            if (view._pad == 7.0) {{\n                break;\n            }}\n{}        }}\n    }}\n    out.tint = f32(joint.x) / 8.0 + spin * view._pad;",
                body("spin")
            ),
        ),
    }
}

#[test]
#[ignore = "the child run of the hung-step tests"]
fn hang_child() {
    let Some(dir) = std::env::var_os(HANG_CHILD).map(PathBuf::from) else {
        return;
    };
    let start = std::time::Instant::now();
    let vars = [
        ("SKINPROOF_CASES", dir.join("cases").display().to_string()),
        (
            "SKINPROOF_SHADER",
            dir.join("mutant.wgsl").display().to_string(),
        ),
        ("SKINPROOF_TIMEOUT_S", HANG_DEADLINE_S.to_string()),
        ("SKINPROOF_BENCH", "off".into()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    let mut config = Config::from_vars(root(), vars).unwrap();
    config.reports = dir.join("reports");
    let reports = config.reports.clone();
    let suite = Suite::discover(config);
    // Each trial timed from its start to its row.
    let mut times = String::new();
    for job in suite.jobs() {
        if !job.ignored {
            let trial = std::time::Instant::now();
            let _ = (job.body)();
            times.push_str(&format!(
                "{}\t{}\n",
                job.name,
                trial.elapsed().as_secs_f64()
            ));
        }
    }
    std::fs::write(dir.join("times.tsv"), times).unwrap();
    let mut report = suite.report();
    report.wall_s = start.elapsed().as_secs_f64();
    report.write(&reports).unwrap();
    // As the conformance runner does before it exits: this must not wait for the hung device.
    drop(suite);
    eprintln!(
        "hang_child: trials done and suite dropped after {:.1} s",
        start.elapsed().as_secs_f64()
    );
    // As the runner ends: not through the drivers' exit handlers while a thread is inside one.
    skinproof::gpu::worker::exit(0);
}

/// Runs the suite over a case the shader hangs on (`a_hang`, first) and one it passes
/// (`bend_two_joints`) in a child process with an outer bound, and checks that the hung step is
/// TIMEOUT within the deadline and margin, its device is reported abandoned, and every later
/// trial of the adapter ran on a fresh device and passed.
fn a_hung_step_is_timeout_and_the_adapter_goes_on(stage: &str, step: &str, hung: &[&str]) {
    let dir = scratch(&format!("hang_{stage}"));
    let cases = copy_cases(&dir, &["bend_two_joints"]);
    let bend = std::fs::read_to_string(cases.join("bend_two_joints.yaml")).unwrap();
    // Many vertices, so that the GL step lasts long after the deadline too.
    let hang = bend
        .replace("joints: 4", "joints: 7")
        .replace("vertices: 128", "vertices: 8192");
    std::fs::write(cases.join("a_hang.yaml"), hang).unwrap();
    hanging_shader(&dir, stage);
    let start = std::time::Instant::now();
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "hang_child", "--ignored", "--nocapture"])
        .env(HANG_CHILD, &dir)
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let bound = std::time::Duration::from_secs(240);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > bound {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the run with a hung {stage} step did not end within {bound:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    eprintln!(
        "the run with a hung {stage} step ended after {:.1?}",
        start.elapsed()
    );
    assert!(status.success(), "the child run failed: {status}");
    let report = Report::load(&dir.join("reports/report.json")).expect("the report was written");
    if report.adapters.is_empty() {
        eprintln!("self-test skipped: no adapter");
        return;
    }
    let times = std::fs::read_to_string(dir.join("times.tsv")).unwrap();
    let took = |trial: &str| -> f64 {
        let line = times.lines().find(|l| l.starts_with(&format!("{trial}\t")));
        line.and_then(|l| l.split('\t').nth(1)?.parse().ok())
            .unwrap_or_else(|| panic!("no time for {trial}:\n{times}"))
    };
    let deadline = format!("took longer than the deadline of {HANG_DEADLINE_S} s");
    for adapter in &report.adapters {
        let tag = &adapter.tag;
        let rows = |case: &'static str| {
            report
                .rows
                .iter()
                .filter(move |r| &r.adapter == tag && r.case == case)
        };
        for r in rows("a_hang").filter(|r| hung.contains(&r.check.as_str())) {
            assert!(
                r.outcome.status == Status::Timeout
                    && (r.outcome.message.contains(step) && r.outcome.message.contains(&deadline)
                        || r.outcome.message.contains(READBACK_HUNG)
                        || r.outcome.message.contains("waiting for the GPU outlasted")),
                "{r:#?}"
            );
        }
        // The first trial that needed the hung step: its row came within the deadline and margin.
        let first = took(&format!("a_hang::{} [{tag}]", hung[0]));
        eprintln!("{tag}: a_hang::{} was TIMEOUT after {first:.2} s", hung[0]);
        assert!(
            first <= HANG_DEADLINE_S + HANG_MARGIN_S,
            "{tag}: the TIMEOUT row came after {first:.2} s"
        );
        // The case's other path, and every later trial, ran on a fresh device.
        let ran: Vec<_> = rows("a_hang")
            .filter(|r| !hung.contains(&r.check.as_str()))
            .filter(|r| r.outcome.status == Status::Timeout)
            .collect();
        assert!(ran.is_empty(), "{ran:#?}");
        let later: Vec<_> = rows("bend_two_joints")
            .chain(rows(skinproof::suite::PROPERTIES))
            .collect();
        assert_eq!(
            later.len(),
            skinproof::check::Check::ALL.len() + skinproof::property::ALL.len()
        );
        let abandoned: Vec<_> = report
            .abandoned
            .iter()
            .filter(|a| &a.adapter == tag)
            .collect();
        // The hung work is found at its submit, or (where the driver queues it and returns) while
        // the readback waits for it.
        assert!(
            abandoned[0].why.contains(step) || abandoned[0].why.contains("waiting for the GPU"),
            "{abandoned:#?}"
        );
        // A driver that shares its shader threads between devices (llvmpipe's GL compute) keeps
        // a fresh device waiting behind the abandoned work: its rows say so, and are not PASS.
        let waited = abandoned.len() - 1;
        let passed = later.iter().filter(|r| passes(r)).count();
        eprintln!(
            "{tag}: {} devices abandoned; {passed} of the {} later trials PASS",
            abandoned.len(),
            later.len()
        );
        assert!(
            abandoned[1..]
                .iter()
                .all(|a| a.why.contains("on a fresh device after")),
            "{abandoned:#?}"
        );
        if waited == 0 {
            assert_eq!(passed, later.len(), "{later:#?}");
        }
        assert!(
            later.iter().all(|r| passes(r)
                || r.outcome.status == Status::Timeout
                    && (r.outcome.message.contains("on a fresh device after")
                        || r.outcome.message.contains("no more are made on it"))),
            "{later:#?}"
        );
    }
    // One adapter at least shows the whole way: hang, fresh device, every later trial PASS.
    assert!(
        report.adapters.iter().any(|a| report
            .abandoned
            .iter()
            .filter(|b| b.adapter == a.tag)
            .count()
            == 1),
        "{:#?}",
        report.abandoned
    );
    let md = std::fs::read_to_string(dir.join("reports/REPORT.md")).unwrap();
    assert!(md.contains("**Device abandoned:**"), "{md}");
}

#[test]
fn an_endless_compute_loop_is_timeout_and_the_adapter_goes_on() {
    a_hung_step_is_timeout_and_the_adapter_goes_on(
        "compute",
        "the compute dispatch (skin_compute)",
        &[
            "compute_matches_cpu",
            "bind_pose_reproduces_source",
            "posed_matches_cpu",
        ],
    );
}

#[test]
fn an_endless_vertex_loop_is_timeout_and_the_adapter_goes_on() {
    a_hung_step_is_timeout_and_the_adapter_goes_on(
        "vertex",
        "the draw (vs_skin)",
        &[
            "render_covers_bind_pose",
            "render_changes_after_pose",
            "render_matches_golden",
        ],
    );
}

/// The example shaders that skin normals and tangents where the harness reads them: their own
/// buffers, fields of a byte-addressed output, a vertex-only shader's functions.
const SKIN_NORMALS: [&str; 7] = [
    "skinning_normals",
    "compute_pulled",
    "vertex_normals",
    "vertex_tangent_direction",
    "compute_frame_streams",
    "compute_regions",
    "compute_packed_frames",
];
/// The examples that write skinned normals but no tangents.
const SKIN_NORMALS_ONLY: [&str; 12] = [
    "vertex_glsl.vert",
    "vertex_column_joints",
    "vertex_bone_pairs",
    "vertex_three_influences",
    "vertex_mesh_bindings",
    "vertex_from_spirv",
    "vertex_skin_stream",
    "vertex_streams",
    "compute_vertex_structs",
    "compute_skin_streams",
    "compute_in_place",
    "vertex_joint_texture",
];

/// The normal and tangent checks of an example: where it writes them (`SKIN_NORMALS`, and the
/// normals of `SKIN_NORMALS_ONLY`) they pass on every mesh that has them (the strip, the models
/// with NORMAL) and skip naming what the mesh lacks; elsewhere they skip, naming the profile
/// fields. `narrow`: whether the example fails a case by design, every check of it.
fn normal_rows(name: &str, report: &Report, narrow: &dyn Fn(&str) -> bool) {
    for (check, attribute) in [
        ("normals_match_cpu", "NORMAL"),
        ("tangents_match_cpu", "TANGENT"),
    ] {
        let rows: Vec<_> = report
            .rows
            .iter()
            .filter(|r| r.check == check && !narrow(&r.case))
            .collect();
        assert!(!rows.is_empty(), "{name}: no {check} rows");
        for r in rows {
            let o = &r.outcome;
            let skins = SKIN_NORMALS.contains(&name)
                || (check == "normals_match_cpu" && SKIN_NORMALS_ONLY.contains(&name));
            let ok = match (skins, r.case.starts_with("gltf_")) {
                (true, false) => o.status == Status::Pass,
                (true, true) => {
                    o.status == Status::Pass
                        || (o.status == Status::Skip
                            && o.message.contains(&format!("the model has no {attribute}")))
                }
                // The case a narrow layout cannot load fails every check, this one included, as
                // the profile expects.
                _ if r.case == "wide_indices" && o.message.contains("the profile's") => {
                    o.status == Status::ExpectedFail
                }
                _ => o.status == Status::Skip && o.message.contains("its profile names no"),
            };
            assert!(
                ok,
                "{name}: {}::{check} [{}]: {:?} {}",
                r.case, r.adapter, o.status, o.message
            );
        }
    }
}

/// Each example shader of `shaders/examples/` passes the whole suite through its layout profile:
/// numbers compared on every shape (a vertex-only shader through the compute entry point the
/// harness adds), a stage the shader lacks SKIP with its reason, and the cases that do not fit a
/// narrow layout (300 joints: past u8 joints, past a 256-matrix palette; 3D models: past planar
/// positions) failing as its profile expects, with a message that names the layout.
#[test]
fn example_shaders_pass_through_their_profiles() {
    // (shader, a check that must PASS, the check that SKIPs for a missing stage and why, the
    // cases the layout cannot hold (names starting so) and what they fail with).
    type Example = (
        &'static str,
        &'static str,
        Option<(&'static str, &'static str)>,
        &'static [(&'static [&'static str], &'static str)],
    );
    const WIDE: &[&str] = &["wide_indices"];
    // The cases with a vertex of four influences (`wide_indices` has four too, but fails on a
    // fixed palette first: `WIDE`).
    const FOUR_INFLUENCES: &[&str] = &[
        "four_influences",
        "gltf_cesiumman_",
        "gltf_fox_",
        "gltf_riggedfigure_",
    ];
    // SimpleSkin lies in the plane z = 0 and is tested; the other models are 3D.
    const MODELS_3D: &[&str] = &[
        "gltf_cesiumman_",
        "gltf_fox_",
        "gltf_riggedfigure_",
        "gltf_riggedsimple_",
    ];
    let examples: [Example; 35] = [
        ("vertex_offset_palette", "posed_matches_cpu", None, &[]),
        (
            "compute_packed_frames",
            "posed_matches_cpu",
            Some(("render_matches_golden", "the shader has no vertex stage")),
            &[],
        ),
        ("skinning_normals", "posed_matches_cpu", None, &[]),
        ("composed_skinning", "posed_matches_cpu", None, &[]),
        (
            "compute_u16_pairs",
            "posed_matches_cpu",
            Some(("render_matches_golden", "the shader has no vertex stage")),
            &[],
        ),
        (
            "vertex_split_palette",
            "posed_matches_cpu",
            None,
            &[(
                WIDE,
                "does not fit the profile's joint format u8x4 (at most 255)",
            )],
        ),
        (
            "uniform_palette",
            "render_matches_golden",
            None,
            &[(
                WIDE,
                "the shader's palette is a fixed array of 256 matrices",
            )],
        ),
        (
            "compute_pulled",
            "posed_matches_cpu",
            Some(("render_matches_golden", "the shader has no vertex stage")),
            &[],
        ),
        ("vertex_eight_influences", "posed_matches_cpu", None, &[]),
        ("vertex_normals", "posed_matches_cpu", None, &[]),
        ("vertex_mesh_bindings", "render_covers_bind_pose", None, &[]),
        (
            "vertex_one_uniform",
            "posed_matches_cpu",
            None,
            &[(
                WIDE,
                "the shader's palette is a fixed array of 256 matrices",
            )],
        ),
        ("vertex_bone_texture", "posed_matches_cpu", None, &[]),
        ("vertex_bone_texture_width", "posed_matches_cpu", None, &[]),
        ("vertex_morph_texture", "posed_matches_cpu", None, &[]),
        ("vertex_joint_texture", "posed_matches_cpu", None, &[]),
        ("vertex_float_joints", "posed_matches_cpu", None, &[]),
        ("vertex_affine_joints", "posed_matches_cpu", None, &[]),
        (
            "vertex_bone_pairs",
            "posed_matches_cpu",
            None,
            &[(
                WIDE,
                "the shader's palette is a fixed array of 256 matrices",
            )],
        ),
        (
            "vertex_column_joints",
            "posed_matches_cpu",
            None,
            &[(
                WIDE,
                "the shader's palette is a fixed array of 256 matrices (3 vec4<f32> each)",
            )],
        ),
        ("vertex_pulled", "posed_matches_cpu", None, &[]),
        ("vertex_tangent_direction", "posed_matches_cpu", None, &[]),
        ("vertex_skin_stream", "posed_matches_cpu", None, &[]),
        ("vertex_from_spirv", "render_matches_golden", None, &[]),
        (
            "vertex_streams",
            "posed_matches_cpu",
            None,
            &[(
                WIDE,
                "does not fit the profile's joint format u8x4 (at most 255)",
            )],
        ),
        (
            "vertex_instance_palette",
            "posed_matches_cpu",
            None,
            &[(
                WIDE,
                "the shader's palette is a fixed array of 256 matrices",
            )],
        ),
        (
            "vertex_planar",
            "posed_matches_cpu",
            None,
            &[(MODELS_3D, "the shader takes planar positions")],
        ),
        (
            "compute_vertex_structs",
            "posed_matches_cpu",
            Some(("render_matches_golden", "the shader has no vertex stage")),
            &[],
        ),
        (
            "compute_skin_streams",
            "posed_matches_cpu",
            Some(("render_matches_golden", "the shader has no vertex stage")),
            &[],
        ),
        (
            "compute_in_place",
            "posed_matches_cpu",
            Some(("render_matches_golden", "the shader has no vertex stage")),
            &[],
        ),
        (
            "compute_frame_streams",
            "posed_matches_cpu",
            Some(("render_matches_golden", "the shader has no vertex stage")),
            &[],
        ),
        (
            "compute_regions",
            "posed_matches_cpu",
            Some(("render_matches_golden", "the shader has no vertex stage")),
            &[],
        ),
        // Shipped as GLSL and as SPIR-V (compiled from HLSL), named with their extensions.
        (
            "vertex_glsl.vert",
            "render_matches_golden",
            None,
            &[(
                WIDE,
                "the shader's palette is a fixed array of 256 matrices",
            )],
        ),
        (
            "compute_hlsl.spv",
            "posed_matches_cpu",
            Some(("render_matches_golden", "the shader has no vertex stage")),
            &[],
        ),
        // Three influences a vertex: the cases with a vertex of four, and the 300 joints past its
        // palette of 256 (which its profile expects after the influences' entry: the entry whose
        // matcher the failure meets applies).
        (
            "vertex_three_influences",
            "posed_matches_cpu",
            None,
            &[
                (
                    FOUR_INFLUENCES,
                    "more than the shader reads (3 influences a vertex",
                ),
                (
                    WIDE,
                    "the shader's palette is a fixed array of 256 matrices",
                ),
            ],
        ),
    ];
    for (name, passes, skips, narrow) in examples {
        let dir = scratch(&format!("example_{name}"));
        let shader = match name.contains('.') {
            true => format!("shaders/examples/{name}"),
            false => format!("shaders/examples/{name}.wgsl"),
        };
        let Some(report) = run_suite(&dir, &[("SKINPROOF_SHADER", &shader)]) else {
            return;
        };
        let bad = failed_rows(&report);
        assert!(bad.is_empty(), "{name}:\n{}", bad.join("\n"));
        let rows = |check: &'static str| report.rows.iter().filter(move |r| r.check == check);
        let narrowed =
            |case: &str| (narrow.iter()).any(|(n, _)| n.iter().any(|p| case.starts_with(p)));
        normal_rows(name, &report, &narrowed);
        // A case that turns its golden comparison off (`many_influences`: its shape depends on the
        // shader) skips the golden check for that reason first.
        let own = |r: &&skinproof::report::Row| {
            r.outcome.status == Status::Skip && r.outcome.message.contains("golden.compare: false")
        };
        assert!(
            rows(passes).count() > 0
                && rows(passes).all(|r| narrowed(&r.case)
                    || r.case == "single_vertex"
                    || own(&r)
                    || r.outcome.status == Status::Pass),
            "{name}: {passes} did not pass everywhere"
        );
        if let Some((check, why)) = skips {
            let wrong: Vec<String> = rows(check)
                .filter(|r| r.case != "single_vertex" && !own(r))
                .filter(|r| r.outcome.status != Status::Skip || !r.outcome.message.contains(why))
                .map(|r| format!("{}: {:?} {}", r.case, r.outcome.status, r.outcome.message))
                .collect();
            assert!(
                wrong.is_empty(),
                "{name}: {check} should SKIP ({why}):\n{}",
                wrong.join("\n")
            );
        }
        for &(cases, why) in narrow {
            let wide: Vec<_> = report
                .rows
                .iter()
                .filter(|r| {
                    cases.iter().any(|p| r.case.starts_with(p)) && r.check == "posed_matches_cpu"
                })
                .collect();
            assert!(
                !wide.is_empty(),
                "{name}: no rows of the cases it cannot hold"
            );
            // The failure the example's profile expects, with its matcher: XFAIL.
            for r in wide {
                assert_eq!(
                    r.outcome.status,
                    Status::ExpectedFail,
                    "{name}: {}",
                    r.outcome.message
                );
                assert!(
                    r.outcome.message.contains(why),
                    "{name}: {}",
                    r.outcome.message
                );
            }
        }
    }
}

/// Example `name`'s shader and profile, as texts (`shaders/examples/`).
fn example_texts(name: &str) -> (String, String) {
    let read = |ext: &str| {
        std::fs::read_to_string(root().join(format!("shaders/examples/{name}.{ext}"))).unwrap()
    };
    (read("wgsl"), read("profile.yaml"))
}

/// The suite's report over example `name` with these shader and profile texts (an edit of its
/// own), written into the scratch folder `label`; `None` without an adapter, where that may skip.
fn run_example_as(name: &str, label: &str, shader: &str, profile: &str) -> Option<Report> {
    let (dir, path) = example_copy(name, label, shader, profile);
    run_suite(&dir, &[("SKINPROOF_SHADER", path.to_str().unwrap())])
}

/// The suite's report over example `name` with these texts (as [`run_example_as`]), which must
/// pass: its validation row, and no failed row. `None` without an adapter, where that may skip.
fn passing_run(name: &str, label: &str, shader: &str, profile: &str) -> Option<Report> {
    let report = run_example_as(name, label, shader, profile)?;
    let v = report.validation.as_ref().expect("a validation row");
    assert!(!v.status.fails(), "{label}: {v:?}");
    assert!(
        failed_rows(&report).is_empty(),
        "{label}: {:#?}",
        failed_rows(&report)
    );
    Some(report)
}

/// The suite's report over example `name` with these texts (as [`run_example_as`]) has a failed
/// row of `check`; nothing without an adapter, where that may skip.
fn fails_check(name: &str, label: &str, (shader, profile): (&str, &str), check: &str) {
    let Some(report) = run_example_as(name, label, shader, profile) else {
        return;
    };
    assert!(
        !failing(&report, check).is_empty(),
        "{label}, {check}: {:#?}",
        failed_rows(&report)
    );
}

/// Example `name`'s edited `shader` run twice: under profile `with`, where every row passes (an
/// expected failure is not a failed row), and under `without` (scratch folder `{label}_left_out`),
/// where each of `checks` fails on some row. False without an adapter, where that may skip.
fn passes_only_with(
    name: &str,
    label: &str,
    shader: &str,
    (with, without): (&str, &str),
    checks: &[&str],
) -> bool {
    if passing_run(name, label, shader, with).is_none() {
        return false;
    }
    let left_out = format!("{label}_left_out");
    let Some(report) = run_example_as(name, &left_out, shader, without) else {
        return false;
    };
    for check in checks {
        assert!(
            !failing(&report, check).is_empty(),
            "{left_out}, {check}: {:#?}",
            failed_rows(&report)
        );
    }
    true
}

/// Example `name` with these shader and profile texts written into the scratch folder `label`:
/// (the folder, the shader's path).
fn example_copy(name: &str, label: &str, shader: &str, profile: &str) -> (PathBuf, PathBuf) {
    let dir = scratch(label);
    let path = dir.join(format!("{name}.wgsl"));
    std::fs::write(&path, shader).unwrap();
    std::fs::write(dir.join(format!("{name}.profile.yaml")), profile).unwrap();
    (dir, path)
}

/// A vertex-only shader left without a compute stage (its skinning function refused, so nothing
/// captures it) still has its render benchmarked on every adapter; the compute tiers, which need
/// the positions' bindings the compute stage would have, are left out.
#[test]
fn the_gpu_benchmark_of_an_uncaptured_vertex_stage_leaves_out_the_compute_tiers() {
    let name = "vertex_offset_palette";
    let (source, profile) = example_texts(name);
    let line = "  skin_function: skin_matrix\n";
    assert!(
        profile.contains(line),
        "{name}'s profile no longer has `{line}`"
    );
    let edited = profile.replacen(line, "  skin_function: skin_missing\n", 1);
    let (dir, path) = example_copy(name, "bench_uncaptured", &source, &edited);
    let vars = vec![("SKINPROOF_SHADER".to_string(), path.display().to_string())];
    let mut config = Config::from_vars(root(), vars).unwrap();
    config.reports = dir.join("reports");
    let suite = Suite::discover(config);
    if suite.no_adapter.is_some() {
        return;
    }
    for (tag, ctx) in suite.contexts() {
        let ctx = ctx.unwrap_or_else(|e| panic!("{tag}: {e}"));
        let bench = ctx
            .job("the GPU benchmarks", |ctx| {
                skinproof::gpu::timing::run(ctx, &[1000], 1)
            })
            .and_then(|b| b)
            .unwrap_or_else(|e| panic!("{tag}: {e}"));
        let tiers: Vec<&str> = bench.rows.iter().map(|r| r.tier.as_str()).collect();
        assert!(
            tiers.iter().all(|t| !t.starts_with("compute"))
                && tiers.iter().any(|t| t.starts_with("render")),
            "{tag}: {tiers:?}"
        );
    }
}

/// The profile's `bindings` reach the shader: the world matrix `vertex_normals` reads, filled with a
/// half scale instead of the identity, shrinks every drawn shape (the render checks fail), while
/// the numbers, which come through its skinning function, still pass.
#[test]
fn filled_bindings_reach_the_shader() {
    let name = "vertex_normals";
    let (source, profile) = example_texts(name);
    let (from, to) = (
        "{ group: 2, binding: 0, fill: identity }",
        "{ group: 2, binding: 0, floats: [0.5, 0, 0, 0, 0, 0.5, 0, 0, 0, 0, 0.5, 0, 0, 0, 0, 1] }",
    );
    assert!(
        profile.contains(from),
        "{name}'s profile no longer has `{from}`"
    );
    let edited = profile.replacen(from, to, 1);
    let Some(report) = run_example_as(name, "filled_bindings", &source, &edited) else {
        return;
    };
    let shrunk = failing(&report, "render_covers_bind_pose");
    assert!(
        shrunk.len() >= 2,
        "a half-scale world matrix should change the drawn coverage: {} failures",
        shrunk.len()
    );
    let numbers = failing(&report, "posed_matches_cpu");
    assert!(
        numbers.is_empty(),
        "the numbers do not go through the world matrix: {:?}",
        numbers
            .iter()
            .map(|r| &r.outcome.message)
            .collect::<Vec<_>>()
    );
}

/// A camera that is a member of the palette's struct is the render's camera: `vertex_one_uniform`
/// without its projection draws the shapes unprojected (the render checks fail), while its
/// numbers, read through an identity camera, still pass.
#[test]
fn a_camera_in_the_palettes_struct_is_the_renders_camera() {
    let name = "vertex_one_uniform";
    let (source, profile) = example_texts(name);
    let (from, to) = (
        "uniforms.projection * uniforms.view * model",
        "uniforms.view * model",
    );
    assert!(source.contains(from), "{name} no longer has `{from}`");
    let edited = source.replacen(from, to, 1);
    let Some(report) = run_example_as(name, "camera_in_palette", &edited, &profile) else {
        return;
    };
    let unprojected = failing(&report, "render_matches_golden");
    assert!(
        unprojected.len() >= 4,
        "without the projection the images should differ: {} failures",
        unprojected.len()
    );
    let numbers = failing(&report, "posed_matches_cpu");
    assert!(
        numbers.iter().all(|r| r.case == "wide_indices"),
        "the numbers do not go through the camera: {:?}",
        numbers
            .iter()
            .map(|r| &r.outcome.message)
            .collect::<Vec<_>>()
    );
}

/// A palette texture holds the texels the profile lays out: `vertex_bone_texture` rewritten to read
/// each bone as the three rows of its affine 3x4 passes with `texels: 3`, and fails with the
/// columns its profile gives.
#[test]
fn a_palette_texture_is_laid_out_as_the_profile_says() {
    let name = "vertex_bone_texture";
    let (source, profile) = example_texts(name);
    let start = source.find("fn bone_matrix").expect("bone_matrix");
    let end = start + source[start..].find("\n}\n").expect("its end") + 3;
    let rows = "fn bone_matrix(bone: u32) -> mat4x4<f32> {
    let size = textureDimensions(bone_texture).x;
    var row: array<vec4<f32>, 3>;
    for (var k = 0u; k < 3u; k++) {
        let t = bone * 3u + k;
        row[k] = textureLoad(bone_texture, vec2<u32>(t % size, t / size), 0);
    }
    return transpose(mat4x4<f32>(row[0], row[1], row[2], vec4<f32>(0.0, 0.0, 0.0, 1.0)));
}
";
    let shader_text = format!("{}{rows}{}", &source[..start], &source[end..]);
    let columns = "texels: 4";
    assert!(
        profile.contains(columns),
        "{name}'s profile no longer has `{columns}`"
    );
    for (label, texels, passes) in [
        ("rows", "texels: 3", true),
        ("rows_as_columns", columns, false),
    ] {
        let edited = profile.replacen(columns, texels, 1);
        let scratch = format!("bone_texture_{label}");
        let Some(report) = run_example_as(name, &scratch, &shader_text, &edited) else {
            return;
        };
        let posed: Vec<_> = (report.rows.iter())
            .filter(|r| r.check == "posed_matches_cpu")
            .collect();
        assert!(posed.len() >= 4, "{label}: {} posed rows", posed.len());
        let failed = posed
            .iter()
            .filter(|r| r.outcome.status == Status::Fail)
            .count();
        if passes {
            let bad: Vec<_> = (report.rows.iter())
                .filter(|r| r.outcome.status.fails())
                .map(|r| format!("{}::{}: {}", r.case, r.check, r.outcome.message))
                .collect();
            assert!(bad.is_empty(), "{label}:\n{}", bad.join("\n"));
        } else {
            assert!(failed >= 4, "{label}: only {failed} posed rows failed");
        }
    }
}

/// The textures a profile's `bindings` bind reach the stages: `vertex_morph_texture`, whose morph
/// texture of zeros adds nothing, fails the position checks where its texel holds a delta (a load
/// inside the texture reads it: vertex 0's at least), and its fragment stage, which samples the
/// base colour texture, draws nothing where that texture's texel is transparent and the stage
/// discards it.
#[test]
fn bound_textures_reach_the_stages() {
    let name = "vertex_morph_texture";
    let (source, profile) = example_texts(name);
    let delta = edited(
        name,
        &profile,
        &[(
            "  - { group: 1, binding: 2 }",
            "  - { group: 1, binding: 2, floats: [0.25, 0, 0, 0] }",
        )],
    );
    let Some(report) = run_example_as(name, "morph_delta", &source, &delta) else {
        return;
    };
    for check in ["posed_matches_cpu", "compute_matches_cpu"] {
        let rows: Vec<_> = (report.rows.iter()).filter(|r| r.check == check).collect();
        // Failed by the numbers they compared, not by a pipeline that did not build.
        let failed = (rows.iter())
            .filter(|r| {
                r.outcome.status.fails() && r.outcome.message.contains("exceeds the tolerance")
            })
            .count();
        assert!(
            failed >= 8,
            "{check}: only {failed} rows failed by their positions"
        );
        let passed: Vec<_> = (rows.iter())
            .filter(|r| r.outcome.status == Status::Pass)
            .map(|r| format!("{} [{}]", r.case, r.adapter))
            .collect();
        assert!(
            passed.is_empty(),
            "{check} passed with a morph delta: {passed:?}"
        );
    }
    // An alpha test on the base colour: a transparent texel discards every fragment.
    let keep =
        "return vec4<f32>(textureSample(base_colour, base_sampler, uv).rgb + vec3<f32>(0.1), 1.0);";
    let test = format!(
        "if (textureSample(base_colour, base_sampler, uv).a < 0.5) {{ discard; }}\n    {keep}"
    );
    let tested = edited(name, &source, &[(keep, &test)]);
    let clear = edited(
        name,
        &profile,
        &[("floats: [0.5, 0.5, 0.5, 1]", "floats: [0.5, 0.5, 0.5, 0]")],
    );
    if passing_run(name, "base_opaque", &tested, &profile).is_none() {
        return;
    }
    let Some(report) = run_example_as(name, "base_clear", &tested, &clear) else {
        return;
    };
    let covers: Vec<_> = (report.rows.iter())
        .filter(|r| r.check == "render_covers_bind_pose")
        .collect();
    // A one-vertex mesh draws nothing either way: skipped.
    let failed = covers.iter().filter(|r| r.outcome.status.fails()).count();
    let passed: Vec<_> = (covers.iter())
        .filter(|r| r.outcome.status == Status::Pass)
        .map(|r| format!("{} [{}]", r.case, r.adapter))
        .collect();
    assert!(failed >= 8, "only {failed} coverage rows failed");
    assert!(
        passed.is_empty(),
        "a transparent texel left coverage: {passed:?}"
    );
}

/// Every kind of texture and sampler a `bindings` entry can bind, read in the vertex stage of
/// `vertex_morph_texture` (3D, cube, cube array, depth and depth cube compared, multisampled,
/// unsigned and signed integer, gathered through a sampler that must not filter): each binds, on
/// every adapter and in Tint, and its zeros add nothing.
#[test]
fn every_texture_kind_binds() {
    let name = "vertex_morph_texture";
    let (source, profile) = example_texts(name);
    let kinds = "
@group(3) @binding(0) var t3: texture_3d<f32>;
@group(3) @binding(1) var tcube: texture_cube<f32>;
@group(3) @binding(2) var tcube_array: texture_cube_array<f32>;
@group(3) @binding(3) var tdepth: texture_depth_2d;
@group(3) @binding(4) var tdepth_cube: texture_depth_cube;
@group(3) @binding(5) var tms: texture_multisampled_2d<f32>;
@group(3) @binding(6) var tu: texture_2d<u32>;
@group(3) @binding(7) var ti: texture_2d_array<i32>;
@group(3) @binding(8) var s_linear: sampler;
@group(3) @binding(9) var s_compare: sampler_comparison;
@group(3) @binding(10) var s_gather: sampler;

fn every_kind() -> f32 {
    let d = vec3<f32>(0.0, 0.0, 1.0);
    let v = textureSampleLevel(t3, s_linear, d, 0.0) + textureSampleLevel(tcube, s_linear, d, 0.0)
        + textureSampleLevel(tcube_array, s_linear, d, 1, 0.0) + textureLoad(tms, vec2<i32>(0, 0), 0)
        + vec4<f32>(textureLoad(tu, vec2<i32>(0, 0), 0)) + vec4<f32>(textureLoad(ti, vec2<i32>(0, 0), 1, 0))
        + vec4<f32>(textureGather(0, tu, s_gather, vec2<f32>(0.5)));
    let depth = textureSampleCompareLevel(tdepth, s_compare, vec2<f32>(0.5), 0.5)
        + textureSampleCompareLevel(tdepth_cube, s_compare, d, 0.5);
    return v.x + v.y + v.z + v.w + depth;
}
";
    let at = "// The position plus each target's delta";
    let shader_text = edited(
        name,
        &source,
        &[
            (at, &format!("{kinds}\n{at}")),
            (
                "    return p;\n}",
                "    return p + vec3<f32>(every_kind());\n}",
            ),
        ],
    );
    let bindings: String = (0..11)
        .map(|b| format!("  - {{ group: 3, binding: {b} }}\n"))
        .collect();
    let edited = format!("{profile}{bindings}");
    passing_run(name, "every_texture_kind", &shader_text, &edited);
}

/// Directions packed biased into unorm bytes (`pack4x8unorm(n * 0.5 + 0.5)`, as a UNORM vertex
/// format keeps them): `compute_packed_frames` rewritten so passes with `unorm8` and fails its
/// normal and tangent checks with the `snorm8` its profile gives.
#[test]
fn biased_unorm8_directions_pass_only_as_unorm8() {
    let name = "compute_packed_frames";
    let (source, profile) = example_texts(name);
    let edits: [(&str, &str); 4] = [
        (
            "unpack4x8snorm(v.normal).xyz",
            "(unpack4x8unorm(v.normal) * 2.0 - 1.0).xyz",
        ),
        (
            "unpack4x8snorm(v.tangent)",
            "(unpack4x8unorm(v.tangent) * 2.0 - 1.0)",
        ),
        (
            "pack4x8snorm(vec4<f32>(n, 0.0))",
            "pack4x8unorm(vec4<f32>(n, 0.0) * 0.5 + 0.5)",
        ),
        (
            "pack4x8snorm(skinned_t)",
            "pack4x8unorm(skinned_t * 0.5 + 0.5)",
        ),
    ];
    let shader_text = edited(name, &source, &edits);
    assert!(
        profile.contains("_encoding: snorm8"),
        "{name}'s profile has changed"
    );
    let unorm = profile.replace("_encoding: snorm8", "_encoding: unorm8");
    passes_only_with(
        name,
        "unorm8_frames",
        &shader_text,
        (&unorm, &profile),
        &["normals_match_cpu", "tangents_match_cpu"],
    );
}

/// Four joints beside three weights, the fourth one minus the others (`last_weight: implied`, as
/// engines that keep `float3` weights read them): the three-influence example so edited passes
/// every case of up to four influences on every adapter, its weights stored as floats and as
/// unorm8 (four bytes read as a vec3); the same stage looping over three of the four influences
/// fails the posed numbers.
#[test]
fn an_implied_last_weight_is_one_minus_the_others() {
    let name = "vertex_three_influences";
    let (source, profile) = example_texts(name);
    let implied = edited(
        name,
        &source,
        &[
            ("joint_indices: vec3<i32>", "joint_indices: vec4<i32>"),
            (
                "for (var i = 0; i < MAX_WEIGHTS; i++) {",
                "let w = vec4<f32>(in.weights, 1.0 - in.weights.x - in.weights.y - in.weights.z);\n    for (var i = 0; i < 4; i++) {",
            ),
            ("* in.weights[i];", "* w[i];"),
            ("* in.weights[i];", "* w[i];"),
        ],
    );
    // The expect entry for cases of 4 influences goes: the edited stage reads them.
    let entry = "  - case: \"*\"\n    influences_above: 3\n";
    let at = profile.find(entry).expect("its influences entry");
    let end = at + entry.len() + profile[at + entry.len()..].find("  - case:").unwrap();
    let with = edited(
        name,
        &format!("{}{}", &profile[..at], &profile[end..]),
        &[("max_influences: 3", "last_weight: implied")],
    );
    let Some(report) = passing_run(name, "implied_weight", &implied, &with) else {
        return;
    };
    let four = (report.rows.iter()).any(|r| r.case == "four_influences" && passes(r));
    assert!(four, "no passing row of four_influences");
    let unorm8 = edited(name, &with, &[("format: f32x4", "format: unorm8x4")]);
    passing_run(name, "implied_weight_unorm8", &implied, &unorm8);
    let three = edited(name, &implied, &[("i < 4;", "i < 3;")]);
    fails_check(
        name,
        "implied_weight_three",
        (&three, &with),
        "posed_matches_cpu",
    );
}

/// The three-influence example as Ogre's two-weight programs lay theirs out: its joints and
/// weights vec4 attributes of which it reads the first three (`max_influences: 3` kept), its
/// palette `mat4x3<f32>`s (an affine's columns, laid out as a mat4x4's): every case of up to
/// three influences passes on every adapter; the same stage looping over two of them fails the
/// posed numbers.
#[test]
fn fewer_influences_from_vec4s_and_a_mat4x3_palette_pass() {
    let name = "vertex_three_influences";
    let (source, profile) = example_texts(name);
    let wide = edited(
        name,
        &source,
        &[
            (
                "joint_transforms: array<mat4x4<f32>, 256>",
                "joint_transforms: array<mat4x3<f32>, 256>",
            ),
            ("joint_indices: vec3<i32>", "joint_indices: vec4<i32>"),
            ("weights: vec3<f32>", "weights: vec4<f32>"),
            (
                "joint_transform * vec4<f32>(in.position, 1.0) * in.weights[i]",
                "vec4<f32>(joint_transform * vec4<f32>(in.position, 1.0), 1.0) * in.weights[i]",
            ),
            (
                "joint_transform * vec4<f32>(in.normal, 0.0) * in.weights[i]",
                "vec4<f32>(joint_transform * vec4<f32>(in.normal, 0.0), 0.0) * in.weights[i]",
            ),
        ],
    );
    if passing_run(name, "wide_mat4x3", &wide, &profile).is_none() {
        return;
    }
    let two = edited(name, &wide, &[("i < MAX_WEIGHTS;", "i < MAX_WEIGHTS - 1;")]);
    fails_check(
        name,
        "wide_mat4x3_two",
        (&two, &profile),
        "posed_matches_cpu",
    );
}

/// A palette texture's width in a uniform the shader divides by (Babylon.js's
/// `boneTextureWidth`): written per case as the member's type holds it, an f32 or a u32; left out
/// of the profile, the zero there sends every vertex to infinity and the numbers fail.
#[test]
fn a_palette_textures_width_is_written_into_its_member() {
    let name = "vertex_bone_texture_width";
    let (source, profile) = example_texts(name);
    let written = "  - { group: 1, binding: 2, texture_width: bone_texture_width }";
    assert!(profile.contains(written), "{name}'s profile has changed");
    let left_out = profile.replace(written, "  - { group: 1, binding: 2 }");
    passes_only_with(
        name,
        "texture_width_f32",
        &source,
        (&profile, &left_out),
        &["posed_matches_cpu"],
    );
    // As an integer, older three.js's `boneTextureSize`.
    let integer = edited(
        name,
        &source,
        &[
            ("bone_texture_width: f32,", "bone_texture_width: u32,"),
            (
                "1.0 / bone_info.bone_texture_width;",
                "1.0 / f32(bone_info.bone_texture_width);",
            ),
        ],
    );
    passes_only_with(
        name,
        "texture_width_u32",
        &integer,
        (&profile, &left_out),
        &["posed_matches_cpu"],
    );
}

/// A per-instance world matrix's rows as attributes the profile gives no role (sokol's
/// `inst_xxxx`, dotted with the skinned position): fed zeros they collapse every vertex, and the
/// failure names their locations and `vertex.inputs`; given the identity's rows there, it passes.
#[test]
fn attributes_left_at_zero_are_named_where_positions_fail() {
    let name = "vertex_bone_texture";
    let (source, profile) = example_texts(name);
    let rows = edited(
        name,
        &source,
        &[
            (
                "    @location(2) skin_weight: vec4<f32>,\n",
                "    @location(2) skin_weight: vec4<f32>,\n    @location(3) inst_xxxx: vec4<f32>,\n    @location(4) inst_yyyy: vec4<f32>,\n    @location(5) inst_zzzz: vec4<f32>,\n",
            ),
            (
                "out.clip = view_projection * skin * vec4<f32>(position, 1.0);",
                "let p = skin * vec4<f32>(position, 1.0);\n    out.clip = view_projection * vec4<f32>(dot(p, inst_xxxx), dot(p, inst_yyyy), dot(p, inst_zzzz), 1.0);",
            ),
        ],
    );
    let Some(report) = run_example_as(name, "instance_rows_zero", &rows, &profile) else {
        return;
    };
    fails_only_as(&report, "posed_matches_cpu", |r| {
        r.outcome.message.contains("every vertex lands at one point, and the stage reads the attributes at locations 3 to 5 that the profile gives no role, fed zeros")
            && r.outcome.message.contains("`vertex.inputs` (`{ 3: [1, 0, 0, 0] }`)")
    });
    let camera = "  camera: { group: 0, binding: 0, form: matrix }\n";
    assert!(profile.contains(camera), "{name}'s profile has changed");
    let given = profile.replace(
        camera,
        &format!("{camera}  inputs: {{ 3: [1, 0, 0, 0], 4: [0, 1, 0, 0], 5: [0, 0, 1, 0] }}\n"),
    );
    passing_run(name, "instance_rows_given", &rows, &given);
}

/// A camera one struct deeper (DiligentFX's constant buffer around its `CameraAttribs`):
/// `vertex_normals` rewritten so passes with the dotted `member` and draws nothing where the
/// profile names the nested struct's other matrix.
#[test]
fn a_nested_camera_is_written_at_its_path() {
    let name = "vertex_normals";
    let (source, profile) = example_texts(name);
    let shader_text = edited(
        name,
        &source,
        &[
            (
                "struct Camera {\n    view_proj: mat4x4<f32>,\n}",
                "struct Attribs {\n    view: mat4x4<f32>,\n    view_proj: mat4x4<f32>,\n}\nstruct Camera {\n    pad: vec4<f32>,\n    attribs: Attribs,\n}",
            ),
            ("camera.view_proj *", "camera.attribs.view_proj *"),
        ],
    );
    let camera = "camera: { group: 0, binding: 0, form: matrix }";
    let nested = edited(
        name,
        &profile,
        &[(
            camera,
            "camera: { group: 0, binding: 0, form: matrix, member: attribs.view_proj }",
        )],
    );
    // The matrix before it: the camera written there, the one the stage reads left zeros.
    let other = edited(
        name,
        &profile,
        &[(
            camera,
            "camera: { group: 0, binding: 0, form: matrix, member: attribs.view }",
        )],
    );
    passes_only_with(
        name,
        "nested_camera",
        &shader_text,
        (&nested, &other),
        &["render_covers_bind_pose"],
    );
}

/// A palette texture read through a sampler: `vertex_bone_texture` rewritten to sample each texel
/// at its centre with `textureSampleLevel` passes with the profile's `sampler`.
#[test]
fn a_palette_texture_read_through_a_sampler_passes() {
    let name = "vertex_bone_texture";
    let (source, profile) = example_texts(name);
    let load = "textureLoad(bone_texture, vec2<u32>(x + 1u, y), 0)";
    assert!(source.contains(load), "{name} no longer has `{load}`");
    let sampled = source
        .replace(
            "@group(0) @binding(1) var bone_texture: texture_2d<f32>;",
            "@group(0) @binding(1) var bone_texture: texture_2d<f32>;\n@group(0) @binding(2) var bone_sampler: sampler;\n\nfn texel(x: u32, y: u32) -> vec4<f32> {\n    let size = vec2<f32>(textureDimensions(bone_texture));\n    let uv = (vec2<f32>(f32(x), f32(y)) + 0.5) / size;\n    return textureSampleLevel(bone_texture, bone_sampler, uv, 0.0);\n}",
        )
        .replace("textureLoad(bone_texture, vec2<u32>(x, y), 0)", "texel(x, y)")
        .replace("textureLoad(bone_texture, vec2<u32>(x + 1u, y), 0)", "texel(x + 1u, y)")
        .replace("textureLoad(bone_texture, vec2<u32>(x + 2u, y), 0)", "texel(x + 2u, y)")
        .replace("textureLoad(bone_texture, vec2<u32>(x + 3u, y), 0)", "texel(x + 3u, y)");
    assert!(!sampled.contains("textureLoad"), "{sampled}");
    let texture = "form: texture, texels: 4, width: square";
    assert!(
        profile.contains(texture),
        "{name}'s profile no longer has `{texture}`"
    );
    let sampler = format!("{texture}, sampler: {{ group: 0, binding: 2 }}");
    let edited = profile.replacen(texture, &sampler, 1);
    let Some(report) = run_example_as(name, "bone_texture_sampled", &sampled, &edited) else {
        return;
    };
    let bad = failed_rows(&report);
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    let posed = (report.rows.iter())
        .filter(|r| r.check == "posed_matches_cpu" && r.outcome.status == Status::Pass)
        .count();
    assert!(posed >= 4, "{posed} posed rows passed");
}

/// A vertex-only shader that skins inline, with no skinning function named, is still compared
/// number by number: the harness calls a copy of its vertex stage and reads the clip position
/// through an identity camera. `vertex_mesh_bindings` without its `skin_function` passes so, and
/// fails with the second influence read from the first's joint.
#[test]
fn a_vertex_stage_without_a_skinning_function_is_captured_whole() {
    let name = "vertex_mesh_bindings";
    let (source, profile) = example_texts(name);
    // Without the skinning function, the normal function that takes its matrix goes too.
    let line = "  skin_function: skin_model\n  normal_function: skin_normals";
    assert!(
        profile.contains(line),
        "{name}'s profile no longer has `{line}`"
    );
    let (right, wrong) = (
        "weights.y * joint_matrices[skin_index + indexes.y]",
        "weights.y * joint_matrices[skin_index + indexes.x]",
    );
    assert!(source.contains(right), "{name} no longer has `{right}`");
    for (label, text, passes) in [
        ("whole", source.clone(), true),
        ("whole_bug", source.replacen(right, wrong, 1), false),
    ] {
        let edited = (profile.lines())
            .filter(|l| !l.contains("skin_function:") && !l.contains("normal_function:"))
            .map(|l| format!("{l}\n"))
            .collect::<String>();
        let scratch = format!("captured_{label}");
        let Some(report) = run_example_as(name, &scratch, &text, &edited) else {
            return;
        };
        let rows: Vec<_> = (report.rows.iter())
            .filter(|r| r.check == "posed_matches_cpu")
            .collect();
        assert!(rows.len() >= 4, "{label}: {} posed rows", rows.len());
        if passes {
            for r in rows {
                assert!(
                    r.outcome.status == Status::Pass
                        && r.outcome.figure.contains("through an identity camera"),
                    "{label} {}: {:?} {} {}",
                    r.case,
                    r.outcome.status,
                    r.outcome.figure,
                    r.outcome.message
                );
            }
        } else {
            let failed = failing(&report, "posed_matches_cpu");
            assert!(
                failed.len() >= 2,
                "{label}: the bug should fail posed_matches_cpu, {} failures",
                failed.len()
            );
        }
    }
}

/// A skinning function that returns an affine blend, its three rows (`mat3x4<f32>`) or its four
/// columns (`mat4x3<f32>`), is compared through it: the vertex-only example whose joints are
/// affine rows passes with either, and applying the rows as columns fails.
#[test]
fn affine_blends_are_compared_through_the_skinning_function() {
    let (source, profile) = example_texts("vertex_affine_joints");
    let blend = "\nfn skin_rows(i: vec4<u32>, w: vec4<f32>) -> mat3x4<f32> {\n    return joint_data[i.x].rows * w.x + joint_data[i.y].rows * w.y + joint_data[i.z].rows * w.z + joint_data[i.w].rows * w.w;\n}\nfn skin_columns(i: vec4<u32>, w: vec4<f32>) -> mat4x3<f32> {\n    return transpose(skin_rows(i, w));\n}\nfn skin_rows_as_columns(i: vec4<u32>, w: vec4<f32>) -> mat4x3<f32> {\n    let r = skin_rows(i, w);\n    return mat4x3<f32>(r[0].xyz, r[1].xyz, r[2].xyz, vec3<f32>(r[0].w, r[1].w, r[2].w));\n}\n";
    let shader = source + blend;
    for (function, passes) in [
        ("skin_rows", true),
        ("skin_columns", true),
        ("skin_rows_as_columns", false),
    ] {
        let edited = profile.replacen(
            "skin_function: skin_position",
            &format!("skin_function: {function}"),
            1,
        );
        assert_ne!(
            edited, profile,
            "vertex_affine_joints names skin_position no more"
        );
        let label = format!("affine_{function}");
        let Some(report) = run_example_as("vertex_affine_joints", &label, &shader, &edited) else {
            return;
        };
        let rows: Vec<_> = report
            .rows
            .iter()
            .filter(|r| r.check == "posed_matches_cpu" && r.case != "single_vertex")
            .collect();
        assert!(!rows.is_empty(), "{function}: no posed_matches_cpu rows");
        let through = rows
            .iter()
            .all(|r| r.outcome.figure.contains(&format!("via `{function}`")));
        let pass = rows.iter().all(|r| r.outcome.status == Status::Pass);
        let fail = rows.iter().any(|r| r.outcome.status == Status::Fail);
        assert!(!passes || through, "{function}: not compared through it");
        assert!(
            if passes { pass } else { fail },
            "{function}: {:?}",
            rows.iter()
                .map(|r| (&r.case, r.outcome.status, &r.outcome.message))
                .collect::<Vec<_>>()
        );
    }
}

/// `text` (example `name`'s shader or profile) with each `from` replaced once by its `to`; each
/// must still be there.
fn edited(name: &str, text: &str, edits: &[(&str, &str)]) -> String {
    let mut out = text.to_string();
    for (from, to) in edits {
        assert!(out.contains(from), "{name} no longer has `{from}`");
        out = out.replacen(from, to, 1);
    }
    out
}

/// The failing rows of `check`: at least one, and each as `expected` says.
fn fails_only_as(report: &Report, check: &str, expected: impl Fn(&skinproof::report::Row) -> bool) {
    let failed = failing(report, check);
    assert!(
        !failed.is_empty() && failed.iter().all(|r| expected(r)),
        "{check}: {:?}",
        failed
            .iter()
            .map(|r| &r.outcome.message)
            .collect::<Vec<_>>()
    );
}

/// An example's numeric checks: each row of `compute_matches_cpu` and `posed_matches_cpu` passes
/// (`single_vertex`, which some examples fail by design, aside).
fn numeric_rows_pass(report: &Report, what: &str) {
    for check in ["compute_matches_cpu", "posed_matches_cpu"] {
        let rows: Vec<_> = report.rows.iter().filter(|r| r.check == check).collect();
        assert!(!rows.is_empty(), "{what}: no {check} rows");
        for r in rows {
            assert!(
                r.outcome.status == Status::Pass || r.case == "single_vertex",
                "{what}: {}::{check} [{}]: {:?} {}",
                r.case,
                r.adapter,
                r.outcome.status,
                r.outcome.message
            );
        }
    }
}

/// Joints and weights in a byte-addressed buffer of their own beside separate positions: the
/// u16-pairs example reading both from one array of structs (the weights at byte 16, after
/// padding) passes; with the weights placed on the joints it fails validation, naming the field,
/// and so does every numeric row it fails.
#[test]
fn influences_in_their_own_buffer_beside_positions_pass() {
    let (source, profile) = example_texts("compute_u16_pairs");
    let shader = edited(
        "compute_u16_pairs",
        &source,
        &[
            (
                "@group(1) @binding(2) var<storage, read> src_joints: array<vec2<u32>>;\n@group(1) @binding(3) var<storage, read> src_weights: array<vec4<f32>>;",
                "struct Skin { joints: vec2<u32>, weights: vec4<f32> }\n@group(1) @binding(2) var<storage, read> skins: array<Skin>;",
            ),
            ("unpack_joints(src_joints[v])", "unpack_joints(skins[v].joints)"),
            ("let w = src_weights[v];", "let w = skins[v].weights;"),
        ],
    );
    let from = "  joints: { group: 1, binding: 2, format: u16x4 }\n  weights: { group: 1, binding: 3, format: f32x4 }\n";
    let own = "  influences: { group: 1, binding: 2, joints: { offset: joints, format: u16x4 }, weights: { offset: weights, format: f32x4 } }\n";
    let own = edited("compute_u16_pairs' profile", &profile, &[(from, own)]);
    let Some(report) = run_example_as("compute_u16_pairs", "influences", &shader, &own) else {
        return;
    };
    numeric_rows_pass(&report, "influences beside positions");
    // The weights placed at byte 0 of the second buffer, on the joints' words.
    let wrong = edited(
        "the influences profile",
        &own,
        &[
            ("offset: weights, format: f32x4", "offset: 0, format: f32x4"),
            ("offset: joints, format: u16x4", "offset: 8, format: u16x4"),
        ],
    );
    let Some(report) = run_example_as("compute_u16_pairs", "influences_off", &shader, &wrong)
    else {
        return;
    };
    let v = report.validation.as_ref().expect("a validation row");
    assert!(
        v.status.fails()
            && v.message
                .contains("`compute.influences.weights`: bytes 0 to 15 overlap `joints`"),
        "{}",
        v.message
    );
    // Each failing row points at the violation, which its numbers follow from.
    fails_only_as(&report, "posed_matches_cpu", |r| {
        r.outcome.message.contains(
            "the shader breaks its contract (shader::validates), which this failure may follow from: ",
        ) && r.outcome.message.contains("`compute.influences.weights`: bytes 0 to 15 overlap `joints`")
    });
}

/// A shader with no count uniform bounds its invocations by its inputs' length: the example
/// `compute_skin_streams` so bounded passes (as every example does), and with the bound 64
/// vertices too far its extra invocations write into the guard past the case's vertices, which
/// fails the compute check naming the element. Bounded by its output's length instead (as an
/// engine's skin cache is), it is given an output of exactly the case's vertices, and passes.
#[test]
fn a_shader_without_a_count_is_held_to_the_cases_vertices() {
    let (source, profile) = example_texts("compute_skin_streams");
    let from = "if (i >= arrayLength(&vertices)) {";
    assert!(
        source.contains(from),
        "compute_skin_streams no longer has `{from}`"
    );
    let by_output = source.replacen(from, "if (i >= arrayLength(&skinned)) {", 1);
    let Some(report) = run_example_as("compute_skin_streams", "by_output", &by_output, &profile)
    else {
        return;
    };
    numeric_rows_pass(&report, "bounded by the output's length");
    let edited = source.replacen(from, "if (i >= arrayLength(&vertices) + 64u) {", 1);
    let Some(report) = run_example_as("compute_skin_streams", "uncounted", &edited, &profile)
    else {
        return;
    };
    fails_only_as(&report, "compute_matches_cpu", |r| {
        r.outcome.figure == "wrote past count"
            && r.outcome.message.contains("past the case's vertices")
    });
}

/// `compute_vertex_structs` with its count in the second member of its parameters, beside the
/// palette's offset, as an engine's skinning parameters hold them: a filled binding's `count` and
/// `palette_offset` name the members, and every numeric check passes; named on a padding member
/// instead, the count the shader reads is 0 and it writes no vertex.
#[test]
fn a_count_member_of_a_filled_binding_is_the_cases() {
    let (source, profile) = example_texts("compute_vertex_structs");
    let shader = edited(
        "compute_vertex_structs",
        &source,
        &[
            (
                "    vertex_count: u32,\n    _pad0: u32,",
                "    joint_offset: u32,\n    vertex_count: u32,",
            ),
            (
                "let j = unpack_joints(v.joints);",
                "let j = unpack_joints(v.joints) + vec4<u32>(params.joint_offset);",
            ),
        ],
    );
    let from = "  count: { group: 0, binding: 3 }";
    // The count's line is the profile's last: the binding follows it at the top level.
    let member = |count: &str| {
        let binding = format!("bindings:\n  - {{ group: 0, binding: 3, palette_offset: joint_offset, count: {count} }}");
        edited(
            "compute_vertex_structs' profile",
            &profile,
            &[(from, &binding)],
        )
    };
    let Some(report) = run_example_as(
        "compute_vertex_structs",
        "count_member",
        &shader,
        &member("vertex_count"),
    ) else {
        return;
    };
    numeric_rows_pass(&report, "a count member");
    let Some(report) = run_example_as(
        "compute_vertex_structs",
        "count_padding",
        &shader,
        &member("_pad1"),
    ) else {
        return;
    };
    fails_only_as(&report, "compute_matches_cpu", |r| {
        r.outcome.figure == "vertex unwritten" || r.case == "single_vertex"
    });
}

/// Storage elements declared as other types of the same 32-bit words (rend3's joint pairs as a
/// struct of two u32s, weights as a struct holding `array<f32, 4>`, positions as a struct of a
/// vec3 and a padding float) are the same data: the example passes every numeric check with them.
#[test]
fn storage_elements_of_the_same_words_pass() {
    let (source, profile) = example_texts("compute_u16_pairs");
    let shader = edited(
        "compute_u16_pairs",
        &source,
        &[
            (
                "@group(1) @binding(1) var<storage, read> src_positions: array<vec4<f32>>;",
                "struct Position { xyz: vec3<f32>, w: f32 }\nstruct JointPair { indices_0_1: u32, indices_2_3: u32 }\nstruct Weights { ws: array<f32, 4> }\n@group(1) @binding(1) var<storage, read> src_positions: array<Position>;",
            ),
            (
                "var<storage, read> src_joints: array<vec2<u32>>;",
                "var<storage, read> src_joints: array<JointPair>;",
            ),
            (
                "var<storage, read> src_weights: array<vec4<f32>>;",
                "var<storage, read> src_weights: array<Weights>;",
            ),
            (
                "let j = unpack_joints(src_joints[v]);",
                "let pair = src_joints[v];\n    let j = unpack_joints(vec2<u32>(pair.indices_0_1, pair.indices_2_3));",
            ),
            (
                "let w = src_weights[v];",
                "let ws = src_weights[v].ws;\n    let w = vec4<f32>(ws[0], ws[1], ws[2], ws[3]);",
            ),
        ],
    );
    let Some(report) = run_example_as("compute_u16_pairs", "same_words", &shader, &profile) else {
        return;
    };
    numeric_rows_pass(&report, "elements of the same words");
}

/// The layouts' traps spring: an example shader with the bug each layout exists to catch fails
/// the numeric checks (a base offset ignored, in a uniform or in per-instance data, the inverse
/// binds of a split palette left out, the joints of a u16 pair unpacked in the wrong order, an
/// override's value taken the wrong way, a bone texture's stride, float joint indices rounded
/// wrong, a third influence left out).
#[test]
fn layout_bugs_in_example_shaders_fail() {
    for (n, (name, from, to)) in [
        (
            "vertex_offset_palette",
            "let o = draw.palette_offset;",
            "let o = 0u;",
        ),
        (
            "vertex_split_palette",
            "(joint_globals[j] * (inverse_binds[j] * p))",
            "(joint_globals[j] * p)",
        ),
        (
            "compute_u16_pairs",
            "packed.x & 0xffffu, packed.x >> 16u",
            "packed.x >> 16u, packed.x & 0xffffu",
        ),
        // The second influence set behind a bool override that the profile turns on: read only
        // when it is off, the eight-influence vertices skin wrong.
        (
            "vertex_eight_influences",
            "if SECOND_SET {",
            "if !SECOND_SET {",
        ),
        // A bone texture read with a stride of 3 texels where the layout has 4.
        (
            "vertex_bone_texture",
            "let first = bone * 4u;",
            "let first = bone * 3u;",
        ),
        // An affine joint's rows applied out of order: y and z swapped.
        (
            "vertex_affine_joints",
            "dot(m[0], p), dot(m[1], p), dot(m[2], p)",
            "dot(m[0], p), dot(m[2], p), dot(m[1], p)",
        ),
        // Pulled u16 joint pairs unpacked high half first.
        (
            "vertex_pulled",
            "vec4<u32>(j01 & 0xffffu, j01 >> 16u, j23 & 0xffffu, j23 >> 16u)",
            "vec4<u32>(j01 >> 16u, j01 & 0xffffu, j23 >> 16u, j23 & 0xffffu)",
        ),
        // Its skin stream's u16 joint pairs unpacked high half first.
        (
            "vertex_skin_stream",
            "(word >> (16u * (k & 1u))) & 0xffffu",
            "(word >> (16u * (1u - (k & 1u)))) & 0xffffu",
        ),
        // The per-instance skin index left out: the palette read from its first matrix, where
        // the harness put others before the case's joint 0.
        (
            "vertex_mesh_bindings",
            "let skin_index = meshes[instance_index].current_skin_index;",
            "let skin_index = 0u;",
        ),
        // Float joint indices rounded down from half a joint below: joint 1 reads joint 0.
        (
            "vertex_float_joints",
            "let offset = i32(index) * 4;",
            "let offset = i32(index - 0.5) * 4;",
        ),
        // A planar position's x and y swapped, as a layout that stores them the other way round.
        (
            "vertex_planar",
            "let local = vec4<f32>(v.position, 0.0, 1.0);",
            "let local = vec4<f32>(v.position.yx, 0.0, 1.0);",
        ),
        // Its u16 joint pairs unpacked high half first.
        (
            "vertex_planar",
            "vec4<u32>(p.x & 0xffffu, p.x >> 16u, p.y & 0xffffu, p.y >> 16u)",
            "vec4<u32>(p.x >> 16u, p.x & 0xffffu, p.y >> 16u, p.y & 0xffffu)",
        ),
        // The skinned position and normal written to each other's members of the output struct.
        (
            "compute_vertex_structs",
            "skinned[i] = SkinnedVertex(p, n, v.uv);",
            "skinned[i] = SkinnedVertex(n, p, v.uv);",
        ),
        // Its second stream's unorm16 weight pairs read in the wrong order.
        (
            "compute_skin_streams",
            "vec4<f32>(unpack2x16unorm(s.weights.x), unpack2x16unorm(s.weights.y))",
            "vec4<f32>(unpack2x16unorm(s.weights.y), unpack2x16unorm(s.weights.x))",
        ),
        // Skinned in place with the mesh's joint offset left out: its joints read the matrices
        // the harness puts before joint 0.
        (
            "compute_in_place",
            "joint_matrices[params.joint_offset + j[k]]",
            "joint_matrices[j[k]]",
        ),
        // Three influences read as two: each vertex's third left out.
        (
            "vertex_three_influences",
            "i < MAX_WEIGHTS;",
            "i < MAX_WEIGHTS - 1;",
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let (source, profile) = example_texts(name);
        assert!(source.contains(from), "{name} no longer has `{from}`");
        let edited = source.replacen(from, to, 1);
        let scratch = format!("layout_bug_{n}_{name}");
        let Some(report) = run_example_as(name, &scratch, &edited, &profile) else {
            return;
        };
        if name == "vertex_three_influences" {
            // Its influences reordered among the three slots it reads: the third then matters.
            assert!(
                !failing(&report, "influence_order").is_empty(),
                "{name} with `{to}`: influence_order should fail"
            );
        }
        if name == "vertex_eight_influences" {
            // The properties fill both sets (identity_pose) and move influences between them
            // (influence_order): the set the shader skips then holds some of them.
            for property in ["identity_pose", "influence_order"] {
                assert!(
                    !failing(&report, property).is_empty(),
                    "{name} with `{to}`: {property} should fail"
                );
            }
        }
        let mut failed = failing(&report, "posed_matches_cpu");
        // wide_indices does not fit u8 joints at all: its own message.
        failed.retain(|r| r.case != "wide_indices");
        // Wrong joints give a wrong position, or, through a vertex stage captured whole, a clip
        // w near 0 and so an infinite one.
        let wrong = |m: &str| m.contains("max abs error") || m.contains("are not finite");
        assert!(
            failed.len() >= 2 && failed.iter().all(|r| wrong(&r.outcome.message)),
            "{name} with `{to}`: posed_matches_cpu should fail with the error: {:?}",
            failed
                .iter()
                .map(|r| &r.outcome.message)
                .collect::<Vec<_>>()
        );
    }
}

#[path = "selftest/browser.rs"]
mod browser;

/// A scratch project part whose wide_view golden no longer matches: the goldens, the wide_view
/// case and a copy of the default shader, and the suite's report over them (`None` without an
/// adapter, where that may skip).
fn differing_golden(name: &str) -> Option<(PathBuf, Report)> {
    let dir = scratch(name);
    let goldens = copy_goldens(&dir);
    deface(&goldens.join("wide_view.png"));
    let cases = copy_cases(&dir, &["wide_view"]);
    let shader = dir.join("skinning.wgsl");
    std::fs::copy(root().join("shaders/skinning.wgsl"), &shader).unwrap();
    let report = run_suite_with(
        &dir,
        &[("SKINPROOF_SHADER", shader.to_str().unwrap())],
        |c| {
            c.goldens = goldens;
            c.cases = cases;
        },
    )?;
    let bad = failing(&report, "render_matches_golden");
    assert_eq!(bad.len(), report.adapters.len(), "{bad:#?}");
    Some((dir, report))
}

/// The largest review page for 20 failing cases of the project's renders (up to 128x128, each
/// with four embedded PNGs), as README states.
const PAGE_BOUND_20_CASES: usize = 1 << 20;

#[test]
fn a_differing_golden_gets_a_review_page_a_browser_draws() {
    let Some((dir, report)) = differing_golden("review_page") else {
        return;
    };
    let reports = dir.join("reports");
    let page = report.write_review(root(), &reports).unwrap().unwrap();
    let html = std::fs::read_to_string(&page).unwrap();
    assert_eq!(browser::external_urls(&html), Vec::<String>::new());
    // From a copied folder, alone: everything it shows is in the file.
    let copied = dir.join("copied");
    std::fs::create_dir_all(&copied).unwrap();
    let page = copied.join("review.html");
    std::fs::copy(dir.join("reports/review.html"), &page).unwrap();
    // Its size for 20 failing cases: the same images under 20 names.
    let mut set = report.review_set();
    let one = set.rows[0].clone();
    set.rows = (0..20)
        .map(|i| {
            let mut r = one.clone();
            r.case = format!("{}_{i}", one.case);
            r
        })
        .collect();
    let twenty = set.html(root(), &reports);
    assert!(
        twenty.len() < PAGE_BOUND_20_CASES,
        "{} bytes for 20 cases",
        twenty.len()
    );
    eprintln!("review page: {} bytes for 20 failing cases", twenty.len());

    let Some(chromium) = browser::find() else {
        assert!(
            !browser::required(),
            "no Chromium on PATH (scripts/setup-adapters installs it)"
        );
        eprintln!("skipped: no Chromium on PATH (scripts/setup-adapters installs it)");
        return;
    };
    let v = one.outcome.review.as_ref().unwrap();
    let open = |p: PathBuf| image::open(p).unwrap().to_rgba8();
    let images = [
        ("expected", open(dir.join("golden/wide_view.png"))),
        ("actual", open(reports.join(v.actual.as_ref().unwrap()))),
        ("diff", open(reports.join(v.diff.as_ref().unwrap()))),
        ("flip", open(reports.join(v.flip_map.as_ref().unwrap()))),
    ];
    let window = (1600, 2400);
    let dom = browser::dom(&chromium, &page, "zoom=1&swipe=0", window);
    let shot = browser::screenshot(&chromium, &page, "zoom=1&swipe=0", window);
    for (role, img) in &images {
        let at = browser::drawn(&dom, role);
        assert_eq!(at.len(), report.adapters.len(), "{role}: {at:?}");
        let share = browser::agreement(&shot, at[0], img);
        assert!(share > 0.99, "{role} drawn at {:?}: {share}", at[0]);
    }
    // At 2x each image is drawn twice as wide and high.
    let dom2 = browser::dom(&chromium, &page, "zoom=2", window);
    let (w, h) = images[0].1.dimensions();
    assert_eq!(browser::drawn(&dom2, "expected")[0][2..], [w * 2, h * 2]);
    // The swipe slider: all expected at 0, all actual at 100.
    let swipe = browser::drawn(&dom, "swipe")[0];
    let shot100 = browser::screenshot(&chromium, &page, "zoom=1&swipe=100", window);
    assert!(browser::agreement(&shot, swipe, &images[0].1) > 0.99);
    assert!(browser::agreement(&shot100, swipe, &images[1].1) > 0.99);
    let moved = browser::changed(&shot, &shot100, swipe);
    assert!(moved >= v.differing_pixels, "{moved} pixels changed");
}

/// The `skinproof` command with `CI` removed and these variables added.
fn skinproof(args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_skinproof"));
    command.env_remove("CI");
    for (k, v) in env {
        command.env(k, v);
    }
    command.args(args).current_dir(root()).output().unwrap()
}

#[test]
fn accept_after_a_failing_run_makes_the_next_run_pass() {
    let Some((dir, report)) = differing_golden("accept") else {
        return;
    };
    let reports = dir.join("reports");
    report.write_review(root(), &reports).unwrap().unwrap();
    let reports_arg = reports.to_str().unwrap();
    let accept = |extra: &[&str], env: &[(&str, &str)]| {
        let mut args = vec!["accept", "--reports", reports_arg];
        args.extend(extra);
        let o = skinproof(&args, env);
        (
            o.status.success(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let png = dir.join("golden/wide_view.png");
    let defaced = std::fs::read(&png).unwrap();
    let (ok, text) = accept(&[], &[("CI", "true")]);
    assert!(
        !ok && text.contains("accept is refused when CI is set"),
        "{text}"
    );
    // A shader or case file edited after the run: its images were not judged.
    for (file, what) in [
        ("skinning.wgsl", "the shader"),
        ("cases/wide_view.yaml", "the case file"),
    ] {
        let path = dir.join(file);
        let source = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, format!("{source}\n# edited\n")).unwrap();
        let (ok, text) = accept(&[], &[]);
        let shown = path.strip_prefix(root()).unwrap().display().to_string();
        assert!(
            !ok && text.contains(&format!("{what} {shown} changed since the last run")),
            "{text}"
        );
        std::fs::write(&path, source).unwrap();
    }
    let (ok, text) = accept(&["no_such_case"], &[]);
    assert!(
        !ok && text.contains("nothing to accept matching `no_such_case`"),
        "{text}"
    );
    assert_eq!(
        std::fs::read(&png).unwrap(),
        defaced,
        "a refusal wrote the golden"
    );
    let (ok, text) = accept(&["wide_view"], &[]);
    assert!(
        ok && text.contains("accepted ")
            && text.contains("golden/wide_view.png from wide_view::render_matches_golden ["),
        "{text}"
    );
    let sidecar = skinproof::golden::Provenance::load(&png).unwrap().unwrap();
    let shader = std::fs::read(dir.join("skinning.wgsl")).unwrap();
    assert_eq!(sidecar.shader_sha256, skinproof::golden::sha256(&shader));
    // The next run passes, with no GPU run in between.
    let again = run_suite_with(
        &dir,
        &[(
            "SKINPROOF_SHADER",
            dir.join("skinning.wgsl").to_str().unwrap(),
        )],
        |c| {
            c.goldens = dir.join("golden");
            c.cases = dir.join("cases");
        },
    )
    .unwrap();
    let golden_rows: Vec<_> = again
        .rows
        .iter()
        .filter(|r| r.check == "render_matches_golden")
        .collect();
    assert_eq!(golden_rows.len(), again.adapters.len());
    for r in golden_rows {
        assert_eq!(r.outcome.status, Status::Pass, "{}", r.outcome.message);
        assert!(r.outcome.message.is_empty(), "{}", r.outcome.message);
    }
    assert!(again.write_review(root(), &reports).unwrap().is_none());
    let o = skinproof(&["review", "--reports", reports_arg], &[]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("no review page"));
}

/// A copy of the composed example (entry module, profile, `composed/` modules) in `dir`, with one
/// edit in `file`; the edit must apply. Returns the entry module's path.
fn composed_copy(dir: &Path, file: &str, from: &str, to: &str) -> PathBuf {
    let examples = root().join("shaders/examples");
    std::fs::create_dir_all(dir.join("composed")).unwrap();
    let mut files = vec![
        "composed_skinning.wgsl".to_string(),
        "composed_skinning.profile.yaml".to_string(),
    ];
    for m in std::fs::read_dir(examples.join("composed")).unwrap() {
        let name = m.unwrap().file_name().to_string_lossy().into_owned();
        files.push(format!("composed/{name}"));
    }
    assert!(files.iter().any(|f| f == file), "no {file} in the example");
    for f in &files {
        let mut text = std::fs::read_to_string(examples.join(f)).unwrap();
        if f == file {
            assert!(text.contains(from), "{f} no longer has `{from}`");
            text = text.replacen(from, to, 1);
        }
        std::fs::write(dir.join(f), text).unwrap();
    }
    dir.join("composed_skinning.wgsl")
}

/// The define that switches skinning on is what the numbers hang on: the composed example with
/// `SKINNING: false` binds each vertex rigidly to its first joint and fails posed_matches_cpu.
#[test]
fn a_composed_shader_with_skinning_defined_off_fails_the_posed_comparison() {
    let dir = scratch("composed_skinning_off");
    let shader = composed_copy(
        &dir,
        "composed_skinning.profile.yaml",
        "SKINNING: true",
        "SKINNING: false",
    );
    let Some(report) = run_suite(&dir, &[("SKINPROOF_SHADER", shader.to_str().unwrap())]) else {
        return;
    };
    assert!(
        report
            .validation
            .as_ref()
            .is_some_and(|v| !v.status.fails()),
        "{:?}",
        report.validation
    );
    let failed = failing(&report, "posed_matches_cpu");
    assert!(
        failed.len() >= 2
            && failed
                .iter()
                .all(|r| r.outcome.message.contains("max abs error")),
        "posed_matches_cpu should fail with the error: {:?}",
        failed
            .iter()
            .map(|r| &r.outcome.message)
            .collect::<Vec<_>>()
    );
}

/// A composition error fails `shader::validates` with the module file, line and column, not a
/// place in the composed text: a missing import, an unknown define, a parse error in a module.
#[test]
fn composition_errors_fail_validation_naming_the_module() {
    for (name, file, from, to, names) in [
        (
            "missing_import",
            "composed/blend.wgsl",
            "#import skin::palette::joint_matrix",
            "#import skin::palettes::joint_matrix",
            "blend.wgsl:3:1",
        ),
        (
            "unknown_define",
            "composed/blend.wgsl",
            "#ifdef SKINNING",
            "#ifdef SKINING",
            "blend.wgsl:7:8",
        ),
        (
            "module_parse_error",
            "composed/palette.wgsl",
            "return joint_matrices[j];",
            "return joint_matrices[j]",
            "palette.wgsl:8:1",
        ),
    ] {
        let dir = scratch(&format!("composition_{name}"));
        let shader = composed_copy(&dir, file, from, to);
        let Some(report) = run_suite(&dir, &[("SKINPROOF_SHADER", shader.to_str().unwrap())])
        else {
            return;
        };
        let v = report.validation.clone().expect("a validation row");
        assert!(v.status.fails(), "{name}: validated");
        assert!(
            v.message.contains(&format!("composed/{names}")),
            "{name}: the message does not name composed/{names}: {}",
            v.message
        );
        // The shader did not load: each GPU trial says so in one line that points at
        // `shader::validates`, which alone gives the whole error.
        let builds = failing(&report, "shader_builds");
        assert!(!builds.is_empty(), "{name}: no adapter failed to build");
        for row in failing(&report, "compute_matches_cpu")
            .into_iter()
            .chain(builds)
        {
            let m = &row.outcome.message;
            assert!(
                m.contains("not run: the shader did not load: ")
                    && m.contains("(`shader::validates` gives the whole error)")
                    && m.lines().count() == 1,
                "{name}: {m}"
            );
        }
    }
}

/// Where the child run of the validation-layer test works; set only in that child process.
const LAYER_CHILD: &str = "SELFTEST_LAYER_MISUSE";

/// The child of `a_validation_layer_message_fails_the_run`: on the Vulkan adapter, with the
/// layer on, builds a render pipeline; with `SELFTEST_LAYER_MISUSE=1` one whose vertex buffer
/// has an attribute (location 1) that the vertex stage does not take, which wgpu allows and the
/// layer reports.
#[test]
fn layer_child() {
    let Ok(misuse) = std::env::var(LAYER_CHILD) else {
        return;
    };
    let ctx = first_context().expect("a Vulkan adapter");
    let module = ctx
        .device
        .create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("layer misuse"),
        source: wgpu::ShaderSource::Wgsl(
            "@vertex fn vs(@location(0) p: vec4<f32>) -> @builtin(position) vec4<f32> { return p; }
                 @fragment fn fs() -> @location(0) vec4<f32> { return vec4<f32>(1.0); }"
                .into(),
        ),
    });
    let attributes: &[wgpu::VertexAttribute] = match misuse.as_str() {
        "1" => &wgpu::vertex_attr_array![0 => Float32x4, 1 => Float32x4],
        _ => &wgpu::vertex_attr_array![0 => Float32x4],
    };
    let _pipeline = ctx
        .device
        .create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("layer misuse"),
            layout: None,
            vertex: wgpu::VertexState {
                module: &module,
                entry_point: Some("vs"),
                compilation_options: Default::default(),
                buffers: &[Some(wgpu::VertexBufferLayout {
                    array_stride: 32,
                    step_mode: wgpu::VertexStepMode::Vertex,
                    attributes,
                })],
            },
            primitive: Default::default(),
            depth_stencil: None,
            multisample: Default::default(),
            fragment: Some(wgpu::FragmentState {
                module: &module,
                entry_point: Some("fs"),
                compilation_options: Default::default(),
                targets: &[Some(wgpu::TextureFormat::Rgba8Unorm.into())],
            }),
            multiview_mask: None,
            cache: None,
        });
    ctx.device
        .poll(wgpu::PollType::wait_indefinitely())
        .unwrap();
}

/// Runs `layer_child` in its own process with the layer logging to `dir`, and returns what the
/// run's report makes of the log; `None` where there is no Vulkan adapter or layer.
fn layer_verdict(dir: &Path, misuse: bool) -> Option<(Report, Option<String>)> {
    let settings = dir.join("vk_layer_settings.txt");
    let log = dir.join("layer.log");
    std::fs::write(
        &settings,
        format!(
            "khronos_validation.debug_action = VK_DBG_LAYER_ACTION_LOG_MSG\nkhronos_validation.log_filename = {}\nkhronos_validation.report_flags = error,warn,perf\n",
            log.display()
        ),
    )
    .unwrap();
    let layer = match skinproof::layer::LayerLog::at(&settings) {
        Ok(l) => l,
        Err(why) => {
            // Only where the layer is not installed and no adapter is required (CI installs it).
            assert!(why.contains("vulkan-validationlayers"), "{why}");
            assert!(
                !skinproof::config::Require::from_env()
                    .unwrap()
                    .is_required(),
                "{why}"
            );
            eprintln!("self-test skipped: {why}");
            return None;
        }
    };
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "layer_child", "--nocapture"])
        .env(LAYER_CHILD, if misuse { "1" } else { "0" })
        .env("WGPU_BACKEND", "vulkan")
        .env("WGPU_VALIDATION", "1")
        .env("VK_LAYER_SETTINGS_PATH", &settings)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The child ran on Vulkan, so the layer must have opened its log.
    let vulkan = skinproof::gpu::AdapterInfo {
        tag: "vulkan/child".into(),
        name: "the child's adapter".into(),
        backend: "vulkan".into(),
        device_type: String::new(),
        driver: String::new(),
        driver_info: String::new(),
    };
    let mut report = Report {
        adapters: vec![vulkan],
        ..Default::default()
    };
    let failure = report.add_layer(&layer, root());
    Some((report, failure))
}

#[test]
fn a_validation_layer_message_fails_the_run() {
    let dir = scratch("layer");
    let Some((clean, none)) = layer_verdict(&dir, false) else {
        return;
    };
    assert_eq!(none, None, "{:?}", clean.layer);
    assert_eq!(clean.layer.as_ref().unwrap().messages, Vec::<String>::new());
    let (report, failure) = layer_verdict(&dir, true).unwrap();
    let failure = failure.expect("the layer's message fails the run");
    assert!(
        failure.contains("Vertex attribute at location 1 not consumed by vertex shader"),
        "{failure}"
    );
    assert!(report.problems.contains(&failure));
    assert!(report
        .markdown()
        .contains("Khronos validation layer: on for the Vulkan adapters"));
}

/// Normals and tangents in streams of their own (`compute_frame_streams`: normals skinned in
/// place, vec3 tangents into a float stream): a stream read and written at the wrong stride
/// writes into the guard, which both checks name; a skipped normal keeps its source, which the
/// posed comparison tells and the bind pose cannot; the tangents' w is not compared, for they
/// have none.
#[test]
fn normal_and_tangent_streams_tell_each_fault() {
    let name = "compute_frame_streams";
    let (source, profile) = example_texts(name);
    let wide = edited(name, &source, &[("let at = 3u * i;", "let at = 4u * i;")]);
    let Some(report) = run_example_as(name, "streams_wide", &wide, &profile) else {
        return;
    };
    for check in ["normals_match_cpu", "tangents_match_cpu"] {
        fails_only_as(&report, check, |r| {
            r.outcome.message.contains("past the case's vertices")
        });
    }
    let skips = edited(
        name,
        &source,
        &[(
            "    normals[at] = n.x;",
            "    if (i == 5u) { return; }\n    normals[at] = n.x;",
        )],
    );
    let Some(report) = run_example_as(name, "streams_skip", &skips, &profile) else {
        return;
    };
    let message = |check: &str| {
        (report.rows.iter())
            .find(|r| r.case == "bend_two_joints" && r.check == check)
            .map(|r| (r.outcome.status, r.outcome.message.clone()))
            .unwrap_or_else(|| panic!("no bend_two_joints::{check} row"))
    };
    let (status, why) = message("normals_match_cpu");
    assert!(
        status == Status::Fail
            && why.contains("the normal of vertex 5 is")
            && why.contains("(posed,"),
        "{why}"
    );
    // The tangents of that vertex are never written: their own stream starts as the sentinel.
    let (status, why) = message("tangents_match_cpu");
    assert!(
        status == Status::Fail && why.contains("never wrote the output of vertex 5"),
        "{why}"
    );
    let posed: Vec<_> = (report.rows.iter())
        .filter(|r| r.check == "posed_matches_cpu")
        .collect();
    assert!(!posed.is_empty() && posed.iter().all(|r| r.outcome.status == Status::Pass));
}

/// A vertex stage's vec3 tangent out of a vec4 source (`format: vec3`): left unskinned, it fails
/// the tangent rows alone, naming a vertex; without the format, validation says to give it.
#[test]
fn a_vec3_tangent_out_of_a_vec4_source_is_compared_by_direction() {
    let name = "vertex_tangent_direction";
    let (source, profile) = example_texts(name);
    let unskinned = edited(
        name,
        &source,
        &[(
            "out.tangent = normalize(linear * in.tangent.xyz);",
            "out.tangent = normalize(in.tangent.xyz);",
        )],
    );
    let Some(report) = run_example_as(name, "tangent_unskinned", &unskinned, &profile) else {
        return;
    };
    fails_only_as(&report, "tangents_match_cpu", |r| {
        r.outcome.message.contains("the tangent of vertex")
    });
    let others: Vec<_> = (failed_rows(&report).into_iter())
        .filter(|r| !r.contains("::tangents_match_cpu "))
        .collect();
    assert!(others.is_empty(), "{}", others.join("\n"));
    let handed = profile.replace(
        "skinned_tangent: { location: 1, format: vec3 }",
        "skinned_tangent: { location: 1 }",
    );
    assert_ne!(handed, profile);
    let Some(report) = run_example_as(name, "tangent_handed", &source, &handed) else {
        return;
    };
    let v = report.validation.clone().expect("a validation row");
    assert!(
        v.status.fails()
            && v.message
                .contains("output @location(1) must be vec4<f32>, is vec3<f32>")
            && v.message
                .contains("give `vertex.skinned_tangent`'s `format: vec3`"),
        "{}",
        v.message
    );
}

/// A normal attribute read as a vec4 (w 0, sokol's `in vec4 normal`): `format: vec4` feeds it and
/// its skinned normal compares; left out, validation says to give it.
#[test]
fn a_vec4_normal_attribute_is_fed_with_w_0() {
    let name = "vertex_tangent_direction";
    let (source, profile) = example_texts(name);
    let wide = edited(
        name,
        &source,
        &[
            (
                "@location(1) normal: vec3<f32>,",
                "@location(1) normal: vec4<f32>,",
            ),
            (
                "out.normal = normalize(linear * in.normal);",
                "out.normal = normalize((skin * in.normal).xyz);",
            ),
        ],
    );
    let four = profile.replace(
        "normal: { location: 1 }",
        "normal: { location: 1, format: vec4 }",
    );
    assert_ne!(four, profile);
    let Some(report) = passing_run(name, "normal_vec4", &wide, &four) else {
        return;
    };
    let compared = (report.rows.iter())
        .filter(|r| r.check == "normals_match_cpu" && r.outcome.status == Status::Pass)
        .count();
    assert!(compared > 0, "no normal compared");
    let Some(report) = run_example_as(name, "normal_vec4_left_out", &wide, &profile) else {
        return;
    };
    let v = report.validation.clone().expect("a validation row");
    assert!(
        v.status.fails()
            && v.message
                .contains("input @location(1) must be vec3<f32>, is vec4<f32>")
            && v.message.contains("`vertex.normal`'s `format: vec4`"),
        "{}",
        v.message
    );
}

/// A stage that renormalises its normal and leaves its tangent to a later stage (Qt Quick 3D's):
/// passes with `tangent_length: any`, and without it fails the tangent rows for their length.
#[test]
fn the_tangents_length_may_be_left_to_a_later_stage_alone() {
    let name = "vertex_tangent_direction";
    let (source, profile) = example_texts(name);
    let unnormalised = edited(
        name,
        &source,
        &[(
            "out.tangent = normalize(linear * in.tangent.xyz);",
            "out.tangent = linear * in.tangent.xyz;",
        )],
    );
    let any = format!("{profile}tangent_length: any\n");
    passes_only_with(
        name,
        "tangent_length_any",
        &unnormalised,
        (&any, &profile),
        &["tangents_match_cpu"],
    );
}

/// A profile that says its shader skins normals by the blended matrix itself
/// (`normal_matrix: blended`): the example edited so passes every normal row, and the unedited
/// example (the inverse transpose) then fails where joints bend, naming the vertex.
#[test]
fn a_declared_normal_matrix_is_the_reference() {
    let name = "compute_frame_streams";
    let (source, profile) = example_texts(name);
    let blended = edited(
        name,
        &profile,
        &[(
            "shader: compute_frame_streams.wgsl",
            "shader: compute_frame_streams.wgsl\nnormal_matrix: blended",
        )],
    );
    let plain = edited(
        name,
        &source,
        &[(
            "normalize(normal_matrix(linear) * source)",
            "normalize(linear * source)",
        )],
    );
    let Some(report) = run_example_as(name, "normals_blended", &plain, &blended) else {
        return;
    };
    let normals: Vec<_> = (report.rows.iter())
        .filter(|r| r.check == "normals_match_cpu")
        .collect();
    assert!(
        normals.iter().any(|r| r.outcome.status == Status::Pass)
            && normals.iter().all(|r| !r.outcome.status.fails()),
        "{:?}",
        normals
            .iter()
            .map(|r| &r.outcome.message)
            .collect::<Vec<_>>()
    );
    let Some(report) = run_example_as(name, "normals_declared_wrong", &source, &blended) else {
        return;
    };
    let bent = (report.rows.iter())
        .find(|r| r.case == "bend_two_joints" && r.check == "normals_match_cpu")
        .expect("a bend_two_joints normals row");
    assert!(
        bent.outcome.status == Status::Fail
            && bent
                .outcome
                .message
                .contains("the normal of vertex 2 is 0.38"),
        "{:?}",
        bent.outcome
    );
}

/// The report's `normals_match_cpu` rows: (case, status, message).
fn normals_checked(report: &Report) -> Vec<(String, Status, String)> {
    (report.rows.iter())
        .filter(|r| r.check == "normals_match_cpu")
        .map(|r| (r.case.clone(), r.outcome.status, r.outcome.message.clone()))
        .collect()
}

/// The normal rows of `report` fail in `four_influences` alone (its joint 6 scales unevenly, where
/// the kinds of normal matrix part), naming the vertex.
fn normals_fail_only_in_four_influences(report: &Report) {
    let rows = normals_checked(report);
    let failed: Vec<_> = rows.iter().filter(|r| r.1.fails()).collect();
    assert!(
        !failed.is_empty()
            && failed.iter().all(|r| r.0 == "four_influences")
            && failed.iter().any(|r| r.2.contains("the normal of vertex")),
        "{rows:?}"
    );
}

/// A shader that blends each joint's own normal matrix passes every normal row under
/// `normal_matrix: per_joint`; under `blended` (the same where joints only turn) it fails where a
/// joint scales unevenly (`four_influences`), naming the vertex and the matrix it does follow.
#[test]
fn per_joint_normal_matrices_are_their_own_reference() {
    let name = "compute_frame_streams";
    let (source, profile) = example_texts(name);
    let declared = |kind: &str| {
        let line = format!("shader: {name}.wgsl\nnormal_matrix: {kind}");
        edited(name, &profile, &[(&format!("shader: {name}.wgsl"), &line)])
    };
    let per_joint_fn = "// Each joint's own normal matrix, blended by the weights.
fn per_joint(j: vec4<u32>, w: vec4<f32>) -> mat3x3<f32> {
    var m = mat3x3<f32>(vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0));
    for (var k = 0u; k < 4u; k = k + 1u) {
        if (w[k] != 0.0) {
            let p = palette[j[k]];
            m = m + normal_matrix(mat3x3<f32>(p[0].xyz, p[1].xyz, p[2].xyz)) * w[k];
        }
    }
    return m;
}

@compute @workgroup_size(64)";
    let shader = edited(
        name,
        &source,
        &[
            (
                "normalize(normal_matrix(linear) * source)",
                "normalize(per_joint(joints[i], weights[i]) * source)",
            ),
            ("@compute @workgroup_size(64)", per_joint_fn),
        ],
    );
    let Some(report) = run_example_as(name, "per_joint", &shader, &declared("per_joint")) else {
        return;
    };
    let rows = normals_checked(&report);
    assert!(
        rows.iter().any(|r| r.1 == Status::Pass) && rows.iter().all(|r| !r.1.fails()),
        "{rows:?}"
    );
    let Some(report) = run_example_as(name, "per_joint_as_blended", &shader, &declared("blended"))
    else {
        return;
    };
    normals_fail_only_in_four_influences(&report);
    // The failure names the matrix the normals do follow.
    let hint = "they match the reference under `normal_matrix: per_joint` (the profile says `blended`): if the shader skins normals so, say it there";
    assert!(
        failing(&report, "normals_match_cpu")
            .iter()
            .all(|r| r.outcome.message.contains(hint)),
        "{:?}",
        normals_checked(&report)
    );
}

/// How a palette holds each joint's normal matrix, for [`normal_matrices_filled`].
struct NormalHolder<'a> {
    label: &'a str,
    /// The palette's declaration, replacing `array<mat4x4<f32>>`, with its struct.
    declaration: &'a str,
    /// Joint `j[k]`'s matrix, and its normal matrix.
    matrix: &'a str,
    normal: &'a str,
    /// The profile's palette fields naming them; without the normal member; with a member
    /// the struct lacks (`normal`... renamed), and what validation then says.
    fields: &'a str,
    unfilled: &'a str,
    missing: &'a str,
    says: &'a str,
}

/// compute_frame_streams with its normals moved by each joint's own normal matrix, held as `h`
/// says: with the profile's fields the harness fills them and every normal row passes; without
/// the normal member they stay zero and the normal rows fail; a member the struct lacks fails
/// validation, named.
fn normal_matrices_filled(h: NormalHolder) {
    let name = "compute_frame_streams";
    let (source, profile) = example_texts(name);
    let joint_normals = format!(
        "// Each joint's normal matrix from the palette, blended by the weights.
fn joint_normals(j: vec4<u32>, w: vec4<f32>) -> mat3x3<f32> {{
    var m = mat3x3<f32>(vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0));
    for (var k = 0u; k < 4u; k = k + 1u) {{
        if (w[k] != 0.0) {{
            m = m + {} * w[k];
        }}
    }}
    return m;
}}

@compute @workgroup_size(64)",
        h.normal
    );
    let shader = edited(
        name,
        &source,
        &[
            (
                "var<storage, read> palette: array<mat4x4<f32>>;",
                h.declaration,
            ),
            (
                "a = a + palette[j[k]] * w[k];",
                &format!("a = a + {} * w[k];", h.matrix),
            ),
            (
                "normalize(normal_matrix(linear) * source)",
                "normalize(joint_normals(joints[i], weights[i]) * source)",
            ),
            ("@compute @workgroup_size(64)", &joint_normals),
        ],
    );
    let palette = "palette: { group: 0, binding: 0, form: storage }";
    let with = |members: &str| {
        let line = format!("palette: {{ group: 0, binding: 0, form: storage, {members} }}");
        edited(name, &profile, &[(palette, &line)])
    };
    let run = |suffix: &str, fields: &str| {
        let label = format!("{}{suffix}", h.label);
        run_example_as(name, &label, &shader, &with(fields))
    };
    let Some(report) = run("", h.fields) else {
        return;
    };
    let rows = normals_checked(&report);
    assert!(
        rows.iter().any(|r| r.1 == Status::Pass) && rows.iter().all(|r| !r.1.fails()),
        "{rows:?}"
    );
    let Some(report) = run("_left_out", h.unfilled) else {
        return;
    };
    let rows = normals_checked(&report);
    assert!(rows.iter().any(|r| r.1.fails()), "{rows:?}");
    let Some(report) = run("_missing", h.missing) else {
        return;
    };
    let v = report.validation.as_ref().expect("a validation row");
    assert!(v.status.fails() && v.message.contains(h.says), "{v:?}");
}

/// A palette whose elements hold each joint's normal matrix beside its matrix
/// (`palette.normal_member` with `palette.element_member`).
#[test]
fn a_palette_normal_member_is_filled_with_each_joints_normal_matrix() {
    normal_matrices_filled(NormalHolder {
        label: "normal_member",
        declaration: "var<storage, read> palette: array<Joint>;\n\nstruct Joint {\n    matrix: mat4x4<f32>,\n    normal: mat3x3<f32>,\n}",
        matrix: "palette[j[k]].matrix",
        normal: "palette[j[k]].normal",
        fields: "element_member: matrix, normal_member: normal",
        unfilled: "element_member: matrix",
        missing: "element_member: matrix, normal_member: normals",
        says: "`normals: mat3x3<f32>` (or mat4x4<f32>)",
    });
}

/// A palette struct that holds each joint's normal matrix in an array beside the joints' matrices
/// (ssbh_wgpu's `transforms_inv_transpose`; `palette.normal_member` with `palette.member`),
/// declared first, so that the palette's own member lies past it (24 KiB in).
#[test]
fn a_normal_array_beside_the_palette_is_filled_parallel_to_it() {
    normal_matrices_filled(NormalHolder {
        label: "normal_array",
        declaration: "var<storage, read> palette: Palette;\n\nstruct Palette {\n    normals: array<mat3x3<f32>, 512>,\n    matrices: array<mat4x4<f32>>,\n}",
        matrix: "palette.matrices[j[k]]",
        normal: "palette.normals[j[k]]",
        fields: "member: matrices, normal_member: normals",
        unfilled: "member: matrices",
        missing: "member: matrices, normal_member: normal",
        says: "has no member `normal` for the joints' normal matrices",
    });
}

/// A vertex stage that takes a per-instance model matrix as four attributes (`model_0` to
/// `model_3`, as engines after learn-wgpu do): with `vertex.inputs` giving the identity's columns
/// every row passes, through the render path and through the copy of the entry point that the
/// positions are compared by; left as zeros, the matrix collapses every vertex and both fail; a
/// value of the wrong length, or at an input with a role, fails validation, named.
#[test]
fn per_instance_inputs_take_the_profiles_values() {
    let name = "vertex_normals";
    let (source, profile) = example_texts(name);
    let shader = edited(
        name,
        &source,
        &[
            (
                "@location(4) tangent: vec4<f32>,",
                "@location(4) tangent: vec4<f32>,\n    @location(8) model_0: vec4<f32>,\n    @location(9) model_1: vec4<f32>,\n    @location(10) model_2: vec4<f32>,\n    @location(11) model_3: vec4<f32>,",
            ),
            (
                "out.clip = camera.view_proj * (mesh.world_from_local * local);",
                "let model = mat4x4<f32>(in.model_0, in.model_1, in.model_2, in.model_3);\n    out.clip = camera.view_proj * (model * local);",
            ),
        ],
    );
    // Without a skinning function the positions are compared through a copy of the entry point.
    let functions = "  skin_function: skin_matrix\n  normal_function: skin_normal\n  tangent_function: skin_tangent\n";
    let profile = edited(name, &profile, &[(functions, "")]);
    let with = |inputs: &str| {
        let line = format!("  colour: any\n  inputs: {{ {inputs} }}");
        edited(name, &profile, &[("  colour: any", &line)])
    };
    let identity = "8: [1, 0, 0, 0], 9: [0, 1, 0, 0], 10: [0, 0, 1, 0], 11: [0, 0, 0, 1]";
    let given = with(identity);
    let profiles = (given.as_str(), profile.as_str());
    if !passes_only_with(
        name,
        "inputs",
        &shader,
        profiles,
        &["render_covers_bind_pose", "posed_matches_cpu"],
    ) {
        return;
    }
    for (label, inputs, says) in [
        (
            "inputs_short",
            "8: [1, 0, 0], 9: [0, 1, 0, 0], 10: [0, 0, 1, 0], 11: [0, 0, 0, 1]",
            "input @location(8) is vec4<f32>, 4 numbers, and the profile gives 3",
        ),
        (
            "inputs_role",
            "3: [0, 0, 1]",
            "input @location(3) has a role",
        ),
    ] {
        let Some(report) = run_example_as(name, label, &shader, &with(inputs)) else {
            return;
        };
        let v = report.validation.as_ref().expect("a validation row");
        assert!(
            v.status.fails() && v.message.contains(says),
            "{label}: {v:?}"
        );
    }
}

/// A per-draw struct whose joint count turns skinning on and bounds the indices (an engine's
/// `jointCount`, zero for an unskinned mesh): with `bindings[].joint_count` the harness writes
/// each case's count, in both pipelines, and every row passes (one less would clamp away the
/// last joint); without it the count is zero, the mesh unskinned, and the posed rows fail.
#[test]
fn a_joint_count_member_is_written_for_each_case() {
    let name = "vertex_normals";
    let (source, profile) = example_texts(name);
    let shader = edited(
        name,
        &source,
        &[
            (
                "    world_from_local: mat4x4<f32>,\n}",
                "    world_from_local: mat4x4<f32>,\n    joint_count: u32,\n}",
            ),
            (
                "fn skin_matrix(joints: vec4<u32>, weights: vec4<f32>) -> mat4x4<f32> {\n    return bones.matrices[joints.x] * weights.x",
                "fn skin_matrix(joints_in: vec4<u32>, weights: vec4<f32>) -> mat4x4<f32> {\n    if (mesh.joint_count == 0u) {\n        return mat4x4<f32>(vec4<f32>(1.0, 0.0, 0.0, 0.0), vec4<f32>(0.0, 1.0, 0.0, 0.0), vec4<f32>(0.0, 0.0, 1.0, 0.0), vec4<f32>(0.0, 0.0, 0.0, 1.0));\n    }\n    let joints = min(joints_in, vec4<u32>(mesh.joint_count - 1u));\n    return bones.matrices[joints.x] * weights.x",
            ),
        ],
    );
    let filled = "  - { group: 2, binding: 0, fill: identity }";
    let counted = "  - { group: 2, binding: 0, fill: identity, joint_count: joint_count }";
    let with = edited(name, &profile, &[(filled, counted)]);
    let profiles = (with.as_str(), profile.as_str());
    passes_only_with(
        name,
        "joint_count",
        &shader,
        profiles,
        &["posed_matches_cpu", "render_changes_after_pose"],
    );
}

/// A skinning switch beside the joints in the palette's own struct (an engine's `is_animated`,
/// skinning only where it is 1): with `palette.members` giving it 1 every row passes (but for the
/// case the uniform's 256 bones cannot hold, expected); left at the fill's 0 the mesh is drawn
/// unskinned and the posed rows fail.
#[test]
fn a_switch_in_the_palettes_struct_takes_the_profiles_value() {
    let name = "vertex_one_uniform";
    let (source, profile) = example_texts(name);
    let shader = edited(
        name,
        &source,
        &[
            (
                "    alpha_cutoff: f32,\n}",
                "    alpha_cutoff: f32,\n    is_animated: u32,\n}",
            ),
            (
                "    let skin = in.weights.x",
                "    var skin = uniforms.model;\n    if (uniforms.is_animated == 1u) {\n    skin = in.weights.x",
            ),
            (
                "uniforms.bones[in.joints.w];\n",
                "uniforms.bones[in.joints.w];\n    }\n",
            ),
        ],
    );
    let palette = "member: bones, fill: identity }";
    let with = edited(
        name,
        &profile,
        &[(
            palette,
            "member: bones, fill: identity, members: { is_animated: 1 } }",
        )],
    );
    let profiles = (with.as_str(), profile.as_str());
    passes_only_with(
        name,
        "palette_members",
        &shader,
        profiles,
        &["posed_matches_cpu", "render_changes_after_pose"],
    );
}

/// A point's w, told by the profile: the default shader's compute stage edited to take its stored
/// vec4 position as a point (`palette * positions[i]`), and to write `vec4(skinned, 1.0)`. Under
/// the defaults each fails (the stored w 0 loses the palette's translation, the posed comparisons
/// see it; the output w 1 is named); `position_w: 1` and `compute.skinned.w: 1` pass every row;
/// a w of 2 is refused, naming the field.
#[test]
fn a_points_w_is_the_profiles() {
    let read = |file: &str| std::fs::read_to_string(root().join("shaders").join(file)).unwrap();
    let store = "skinned[i] = vec4<f32>(skin(positions[i].xyz, joints[i], weights[i]), 0.0);";
    let skinned = "  skinned: { group: 0, binding: 4, format: vec4 }";
    let camera = "  camera: { group: 0, binding: 6, form: view }";
    // (label, the compute stage's new store, the check that fails and what it says by default,
    // the profile's edit (from, to) that passes, with `{w}` the w given, and the field named).
    let stored = "var acc = vec3<f32>(0.0);\n    for (var k = 0u; k < 4u; k = k + 1u) {\n        acc = acc + weights[i][k] * (palette[joints[i][k]] * positions[i]).xyz;\n    }\n    skinned[i] = vec4<f32>(acc, 0.0);";
    let output = "skinned[i] = vec4<f32>(skin(positions[i].xyz, joints[i], weights[i]), 1.0);";
    let table = [
        (
            "position_w",
            stored,
            ("posed_matches_cpu", "exceeds the tolerance"),
            (
                camera,
                "  camera: { group: 0, binding: 6, form: view }\nposition_w: {w}",
            ),
            "position_w",
        ),
        (
            "output_w",
            output,
            ("compute_matches_cpu", "the output w of vertex 0 is 1.0"),
            (
                skinned,
                "  skinned: { group: 0, binding: 4, format: vec4, w: {w} }",
            ),
            "compute.skinned.w",
        ),
    ];
    for (label, new, (check, says), (from, to), field) in table {
        let shader = edited("skinning", &read("skinning.wgsl"), &[(store, new)]);
        let profile = read("skinning.profile.yaml");
        let run = |w: &str| {
            let with = edited("skinning", &profile, &[(from, &to.replace("{w}", w))]);
            let text = if w == "0" { profile.clone() } else { with };
            run_example_as("skinning", &format!("{label}_{w}"), &shader, &text)
        };
        let Some(report) = run("0") else {
            return;
        };
        let bad = failing(&report, check);
        assert!(
            bad.first()
                .is_some_and(|r| r.outcome.message.contains(says)),
            "{label}: {:#?}",
            failed_rows(&report)
        );
        let Some(report) = run("1") else {
            return;
        };
        assert!(
            failed_rows(&report).is_empty(),
            "{label}: {:#?}",
            failed_rows(&report)
        );
        let Some(report) = run("2") else {
            return;
        };
        let v = report.validation.as_ref().expect("a validation row");
        assert!(
            v.status.fails() && v.message.contains(field) && v.message.contains("got 2"),
            "{label}: {v:?}"
        );
    }
}

/// Weights and joints declared flat, four scalars a vertex (toji's burrow's `inWeights:
/// array<f32>`, read at `i * 4u + k`): the same bytes as their vec4 arrays, so the default shader
/// so edited passes every row under its own profile.
#[test]
fn flat_weights_and_joints_hold_their_vec4_arrays_bytes() {
    let read = |file: &str| std::fs::read_to_string(root().join("shaders").join(file)).unwrap();
    let shader = edited(
        "skinning",
        &read("skinning.wgsl"),
        &[
            (
                "var<storage, read> weights: array<vec4<f32>>;",
                "var<storage, read> weights: array<f32>;",
            ),
            (
                "var<storage, read> joints: array<vec4<u32>>;",
                "var<storage, read> joints: array<u32>;",
            ),
            (
                "skin(positions[i].xyz, joints[i], weights[i])",
                "skin(positions[i].xyz, vec4<u32>(joints[4u * i], joints[4u * i + 1u], joints[4u * i + 2u], joints[4u * i + 3u]), vec4<f32>(weights[4u * i], weights[4u * i + 1u], weights[4u * i + 2u], weights[4u * i + 3u]))",
            ),
        ],
    );
    let profile = read("skinning.profile.yaml");
    let Some(report) = passing_run("skinning", "flat_influences", &shader, &profile) else {
        return;
    };
    assert!(report.rows.len() > 600, "{}", report.rows.len());
}

/// A byte-addressed vertex buffer declared as `array<f32>`, its integer fields read through
/// `bitcast<u32>` (dream-engine's bone ids): the same words as `array<u32>`, so compute_pulled
/// so edited passes every row under its own profile.
#[test]
fn float_words_are_a_byte_addressed_vertex_buffer() {
    let name = "compute_pulled";
    let (source, profile) = example_texts(name);
    let shader = edited(
        name,
        &source,
        &[
            (
                "var<storage, read> vertices: array<u32>;",
                "var<storage, read> vertices: array<f32>;",
            ),
            (
                "return bitcast<f32>(vertices[word]);",
                "return vertices[word];",
            ),
            (
                "let j01 = vertices[base + JOINTS_WORD];",
                "let j01 = bitcast<u32>(vertices[base + JOINTS_WORD]);",
            ),
            (
                "let j23 = vertices[base + JOINTS_WORD + 1u];",
                "let j23 = bitcast<u32>(vertices[base + JOINTS_WORD + 1u]);",
            ),
        ],
    );
    let Some(report) = run_example_as(name, "float_words", &shader, &profile) else {
        return;
    };
    assert!(report
        .validation
        .as_ref()
        .is_some_and(|v| !v.status.fails()));
    assert!(
        failed_rows(&report).is_empty(),
        "{:#?}",
        failed_rows(&report)
    );
}

/// A byte-addressed output whose tangent is its direction alone, three floats with no handedness
/// (dream-engine writes xyz only): compute_pulled so edited fails its compute checks under a vec4
/// tangent field (the w never written), and passes every row with `tangent_format: vec3`.
#[test]
fn a_vec3_tangent_in_a_byte_addressed_output() {
    let name = "compute_pulled";
    let (source, profile) = example_texts(name);
    let shader = edited(name, &source, &[("    skinned[ot + 3u] = st.w;\n", "")]);
    let output = "tangent: 24 }";
    let Some(report) = run_example_as(name, "tangent_vec4", &shader, &profile) else {
        return;
    };
    assert!(
        !failing(&report, "tangents_match_cpu").is_empty(),
        "{:#?}",
        failed_rows(&report)
    );
    let vec3 = edited(
        name,
        &profile,
        &[(output, "tangent: 24, tangent_format: vec3 }")],
    );
    let Some(report) = run_example_as(name, "tangent_vec3", &shader, &vec3) else {
        return;
    };
    assert!(
        failed_rows(&report).is_empty(),
        "{:#?}",
        failed_rows(&report)
    );
}

/// Byte-addressed vertices whose tangent is its direction alone, three floats with no handedness
/// (starframe's and dream-engine's vertices), the joints right after it: with
/// `tangent_format: vec3` the tangent takes 12 bytes and every row passes, the tangents compared;
/// without it the 16-byte tangent overlaps the joints and the profile is refused, saying so.
#[test]
fn a_vec3_tangent_in_byte_addressed_vertices() {
    let name = "compute_pulled";
    let (source, profile) = example_texts(name);
    let shader = edited(
        name,
        &source,
        &[
            ("VERTEX_WORDS: u32 = 16u;", "VERTEX_WORDS: u32 = 15u;"),
            ("JOINTS_WORD: u32 = 10u;", "JOINTS_WORD: u32 = 9u;"),
            ("WEIGHTS_WORD: u32 = 12u;", "WEIGHTS_WORD: u32 = 11u;"),
            ("load_f32(base + TANGENT_WORD + 3u));", "1.0);"),
            ("    skinned[ot + 3u] = st.w;\n", ""),
        ],
    );
    let vec3 = edited(
        name,
        &profile,
        &[
            ("stride: 64", "stride: 60"),
            (
                "    tangent: 24\n",
                "    tangent: 24\n    tangent_format: vec3\n",
            ),
            ("offset: 40,", "offset: 36,"),
            ("offset: 48,", "offset: 44,"),
            ("tangent: 24 }", "tangent: 24, tangent_format: vec3 }"),
        ],
    );
    let Some(report) = passing_run(name, "vertices_tangent_vec3", &shader, &vec3) else {
        return;
    };
    let compared = (report.rows.iter())
        .filter(|r| r.check == "tangents_match_cpu" && r.outcome.status == Status::Pass);
    assert!(compared.count() > 0);
    let vec4 = edited(name, &vec3, &[("    tangent_format: vec3\n", "")]);
    let (dir, _) = example_copy(name, "vertices_tangent_vec4", &shader, &vec4);
    let refused = skinproof::profile::Profile::load(&dir.join(format!("{name}.profile.yaml")));
    let message = format!("{:?}", refused.err());
    assert!(message.contains("overlap `tangent`"), "{message}");
}

/// A vertex-only shader whose palette elements hold each joint's normal matrix, blended by a
/// function that returns the normal matrix (`vertex.normal_function` of the influences, as
/// fifth-light writes it): through its renormalising normal function every normal row passes
/// (the per-joint reference); through the matrix function, which the added entry point applies
/// as the vertex stage does, the unrenormalised normals fail where joints bend, with the advice.
#[test]
fn a_normal_matrix_function_is_applied_and_compared_per_joint() {
    let name = "vertex_normals";
    let (source, profile) = example_texts(name);
    let mut edits: Vec<(String, String)> = ["x", "y", "z", "w"]
        .iter()
        .map(|c| {
            let from = format!("bones.matrices[joints.{c}] * weights.{c}");
            let to = format!("bones.matrices[joints.{c}].matrix * weights.{c}");
            (from, to)
        })
        .collect();
    edits.push((
        "    matrices: array<mat4x4<f32>>,\n}".into(),
        "    matrices: array<Joint>,\n}\n\nstruct Joint {\n    matrix: mat4x4<f32>,\n    normal: mat3x3<f32>,\n}\n\nfn joint_normals(joints: vec4<u32>, weights: vec4<f32>) -> mat3x3<f32> {\n    return bones.matrices[joints.x].normal * weights.x\n        + bones.matrices[joints.y].normal * weights.y\n        + bones.matrices[joints.z].normal * weights.z\n        + bones.matrices[joints.w].normal * weights.w;\n}".into(),
    ));
    edits.push((
        "normalize(normal_matrix(upper3(skin_matrix(joints, weights))) * normal)".into(),
        "normalize(joint_normals(joints, weights) * normal)".into(),
    ));
    let edits: Vec<(&str, &str)> = edits
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let shader = edited(name, &source, &edits);
    let palette = "palette: { group: 1, binding: 0 }";
    let members =
        "palette: { group: 1, binding: 0, element_member: matrix, normal_member: normal }";
    let renormalised = edited(name, &profile, &[(palette, members)]);
    let Some(report) = run_example_as(name, "joint_normals", &shader, &renormalised) else {
        return;
    };
    let rows = normals_checked(&report);
    assert!(
        rows.iter().any(|r| r.1 == Status::Pass) && rows.iter().all(|r| !r.1.fails()),
        "{rows:?}"
    );
    let matrix = edited(
        name,
        &profile,
        &[
            (palette, members),
            (
                "normal_function: skin_normal",
                "normal_function: joint_normals",
            ),
        ],
    );
    let Some(report) = run_example_as(name, "joint_normal_matrix", &shader, &matrix) else {
        return;
    };
    let rows = normals_checked(&report);
    let bent = rows
        .iter()
        .find(|r| r.0 == "bend_two_joints")
        .expect("a bend_two_joints normals row");
    assert!(
        bent.1 == Status::Fail && bent.2.contains("renormalise after skinning"),
        "{rows:?}"
    );
    assert!(rows.iter().any(|r| r.1 == Status::Pass), "{rows:?}");
}

/// Skinned in place (`compute_in_place`: the output at the vertices' binding): a vertex the
/// shader skips still holds its source, so the bind pose cannot tell it and the posed comparison
/// fails at it; invocations past the count write into the guard and fail the compute check; an
/// output whose fields are not over their sources fails validation naming the field, and each
/// numeric failure points at that.
#[test]
fn skinning_in_place_tells_each_fault() {
    let (source, profile) = example_texts("compute_in_place");
    let bound = "let i = params.vertices.start + gid.x;";
    let skips = edited(
        "compute_in_place",
        &source,
        &[(
            bound,
            &format!("{bound}\n    if (gid.x == 5u) {{ return; }}"),
        )],
    );
    let Some(report) = run_example_as("compute_in_place", "in_place_skip", &skips, &profile) else {
        return;
    };
    let row = |check: &str| {
        (report.rows.iter())
            .find(|r| r.case == "bend_two_joints" && r.check == check)
            .unwrap_or_else(|| panic!("no bend_two_joints::{check} row"))
    };
    assert_eq!(
        row("bind_pose_reproduces_source").outcome.status,
        Status::Pass
    );
    let posed = &row("posed_matches_cpu").outcome;
    assert!(
        posed.status == Status::Fail && posed.message.contains("at vertex 5 of 128"),
        "{posed:?}"
    );
    let past = edited(
        "compute_in_place",
        &source,
        &[(
            "params.vertices.end - params.vertices.start)",
            "params.vertices.end - params.vertices.start + 64u)",
        )],
    );
    let Some(report) = run_example_as("compute_in_place", "in_place_past", &past, &profile) else {
        return;
    };
    fails_only_as(&report, "compute_matches_cpu", |r| {
        r.outcome.message.contains("past the case's vertices")
    });
    // The output's position and normal swapped: each written over the other's source.
    let swapped = edited(
        "compute_in_place's profile",
        &profile,
        &[(
            "output: { group: 0, binding: 0, stride: 24, position: 0, normal: 12 }",
            "output: { group: 0, binding: 0, stride: 24, position: 12, normal: 0 }",
        )],
    );
    let Some(report) = run_example_as("compute_in_place", "in_place_swapped", &source, &swapped)
    else {
        return;
    };
    let v = report.validation.as_ref().expect("a validation row");
    let told = "`compute.output.position` is skinned in place, so it must be written over the vertices' position: it is at byte 12, the source position at byte 0";
    assert!(
        v.status.fails() && v.message.contains(told),
        "{}",
        v.message
    );
    fails_only_as(&report, "posed_matches_cpu", |r| {
        r.outcome.message.contains(told)
    });
}

/// An output of vec4 slots, as engines interleave them (`array<vec4<f32>>`, three a vertex): the
/// byte-addressed example writing `vec4(position, 1)`, `vec4(normal, 0)` and the tangent passes
/// every check, the w words being a vec4's; a w of another value is a write outside the fields,
/// and fails the compute checks naming the byte.
#[test]
fn an_output_of_vec4_slots_with_homogeneous_w_passes() {
    let (source, profile) = example_texts("compute_pulled");
    // The example's stores, word by word, from its output index to the tangent's w.
    let from = source
        .find("let o = v * OUTPUT_WORDS;")
        .expect("the output index");
    let to = source
        .find("skinned[ot + 3u] = st.w;")
        .expect("the last store");
    let stores = source[from..to + "skinned[ot + 3u] = st.w;".len()].to_string();
    let slots = |w: &str| {
        edited(
            "compute_pulled",
            &source,
            &[
                (
                    "var<storage, read_write> skinned: array<f32>;",
                    "var<storage, read_write> skinned: array<vec4<f32>>;",
                ),
                (&stores, &format!("let o = v * 3u;\n    skinned[o] = vec4<f32>(acc, {w});\n    skinned[o + 1u] = vec4<f32>(sn, 0.0);\n    skinned[o + 2u] = st;\n")),
            ],
        )
    };
    let profile = edited(
        "compute_pulled's profile",
        &profile,
        &[(
            "output: { group: 0, binding: 2, stride: 40, position: 0, normal: 12, tangent: 24 }",
            "output: { group: 0, binding: 2, stride: 48, position: 0, normal: 16, tangent: 32 }",
        )],
    );
    let Some(report) = run_example_as("compute_pulled", "vec4_slots", &slots("1.0"), &profile)
    else {
        return;
    };
    let v = report.validation.as_ref().expect("a validation row");
    assert!(!v.status.fails(), "{}", v.message);
    numeric_rows_pass(&report, "vec4 slots");
    normal_rows("compute_pulled", &report, &|_| false);
    let Some(report) = run_example_as("compute_pulled", "vec4_slots_w", &slots("0.5"), &profile)
    else {
        return;
    };
    fails_only_as(&report, "compute_matches_cpu", |r| {
        r.outcome
            .message
            .contains("the shader wrote byte 12 of vertex 0's output, which is none of its fields")
    });
}

/// Signed joint indices (`vec4<i32>`, as engines that mark an unused influence -1 read them):
/// the uniform-palette example reading them so in storage, as attributes (`Sint32x4`) and in its
/// skinning function passes every check on both stages; the profile still saying `u32x4` fails
/// validation naming the format to give.
#[test]
fn signed_joint_indices_pass_as_i32x4() {
    let (source, profile) = example_texts("uniform_palette");
    let signed = source.replace("vec4<u32>", "vec4<i32>");
    let i32_profile = profile.replace("format: u32x4", "format: i32x4");
    assert_ne!(signed, source);
    assert_eq!(i32_profile.matches("i32x4").count(), 2);
    let Some(report) = run_example_as("uniform_palette", "i32_joints", &signed, &i32_profile)
    else {
        return;
    };
    let v = report.validation.as_ref().expect("a validation row");
    assert!(!v.status.fails(), "{}", v.message);
    let bad = failed_rows(&report);
    assert!(
        bad.is_empty() && report.rows.len() > 600,
        "{}",
        bad.join("\n")
    );
    let Some(report) = run_example_as("uniform_palette", "i32_as_u32", &signed, &profile) else {
        return;
    };
    let v = report.validation.as_ref().expect("a validation row");
    assert!(
        v.status.fails()
            && v.message
                .contains("joints read as signed integers are `format: i32x4`"),
        "{}",
        v.message
    );
}

/// Typed positions skinned in place: the u16-pairs example writing each `vec4` back over its
/// source (`compute.skinned` at `compute.positions`' binding) passes every numeric check; still
/// writing to its own output buffer, which the profile no longer names, it fails validation.
#[test]
fn typed_positions_skinned_in_place_pass() {
    let (source, profile) = example_texts("compute_u16_pairs");
    let shader = edited(
        "compute_u16_pairs",
        &source,
        &[
            (
                "var<storage, read> src_positions",
                "var<storage, read_write> src_positions",
            ),
            (
                "@group(1) @binding(4) var<storage, read_write> dst_positions: array<vec4<f32>>;\n",
                "",
            ),
            ("dst_positions[v] =", "src_positions[v] ="),
        ],
    );
    let in_place = edited(
        "compute_u16_pairs' profile",
        &profile,
        &[(
            "skinned: { group: 1, binding: 4, format: vec4 }",
            "skinned: { group: 1, binding: 1, format: vec4 }",
        )],
    );
    let Some(report) = run_example_as("compute_u16_pairs", "typed_in_place", &shader, &in_place)
    else {
        return;
    };
    numeric_rows_pass(&report, "typed positions skinned in place");
    let Some(report) = run_example_as("compute_u16_pairs", "typed_apart", &source, &in_place)
    else {
        return;
    };
    let v = report.validation.as_ref().expect("a validation row");
    assert!(
        v.status.fails() && v.message.contains("binding 4"),
        "{}",
        v.message
    );
}

/// A vertex stage that skins its normal inline, with no function the profile names
/// (`vertex_joint_texture`: each joint's normal matrix in the texels after its matrix): the copy
/// of its entry point is fed the case's normals and the normal it returns at
/// `vertex.skinned_normal` is compared, its figure naming that output. Moved by the blended matrix
/// itself instead of the joints' normal matrices, it fails where a joint scales unevenly
/// (`four_influences`) and nowhere else.
#[test]
fn a_copied_vertex_stage_returns_its_normal_for_comparison() {
    let name = "vertex_joint_texture";
    let (source, profile) = example_texts(name);
    let Some(report) = run_example_as(name, "entry_normals", &source, &profile) else {
        return;
    };
    let passed: Vec<_> = (report.rows.iter())
        .filter(|r| r.check == "normals_match_cpu" && r.outcome.status == Status::Pass)
        .collect();
    assert!(
        passed.len() > 4
            && passed.iter().all(|r| r
                .outcome
                .figure
                .ends_with("deg (vertex stage `vs_main`, its output at location 0)")),
        "{:?}",
        normals_checked(&report)
    );
    let blended = edited(
        name,
        &source,
        &[("normalize((normal_skin * vec4", "normalize((skin * vec4")],
    );
    let Some(report) = run_example_as(name, "entry_normals_blended", &blended, &profile) else {
        return;
    };
    normals_fail_only_in_four_influences(&report);
}

/// A vertex stage whose tangents are vec3s, without handedness (`vertex.tangent.format: vec3`,
/// as fifth-light's): `vertex_normals` edited so passes every tangent row through its vec3
/// `skin_tangent`, compared by direction and length alone; the same function without its
/// `normalize` fails them where the joints bend.
#[test]
fn vec3_tangent_attributes_are_compared_without_handedness() {
    let name = "vertex_normals";
    let (source, profile) = example_texts(name);
    let shader = edited(
        name,
        &source,
        &[
            ("@location(4) tangent: vec4<f32>,", "@location(4) tangent: vec3<f32>,"),
            ("@location(1) tangent: vec4<f32>,", "@location(1) tangent: vec3<f32>,"),
            (
                "fn skin_tangent(tangent: vec4<f32>, joints: vec4<u32>, weights: vec4<f32>) -> vec4<f32> {\n    return vec4<f32>(normalize(upper3(skin_matrix(joints, weights)) * tangent.xyz), tangent.w);",
                "fn skin_tangent(tangent: vec3<f32>, joints: vec4<u32>, weights: vec4<f32>) -> vec3<f32> {\n    return normalize(upper3(skin_matrix(joints, weights)) * tangent);",
            ),
            ("@location(1) tangent: vec4<f32>) -> @location(0)", "@location(1) tangent: vec3<f32>) -> @location(0)"),
            ("0.1 * tangent.w * tangent.x", "0.1 * tangent.x"),
        ],
    );
    let vec3 = edited(
        name,
        &profile,
        &[(
            "tangent: { location: 4 }",
            "tangent: { location: 4, format: vec3 }",
        )],
    );
    let Some(report) = run_example_as(name, "vec3_tangents", &shader, &vec3) else {
        return;
    };
    let tangents = |report: &Report| -> Vec<(String, Status, String)> {
        (report.rows.iter())
            .filter(|r| r.check == "tangents_match_cpu")
            .map(|r| (r.case.clone(), r.outcome.status, r.outcome.message.clone()))
            .collect()
    };
    let rows = tangents(&report);
    assert!(
        rows.iter().filter(|r| r.1 == Status::Pass).count() > 4
            && rows.iter().all(|r| !r.1.fails()),
        "{rows:?}"
    );
    let unnormalised = edited(
        name,
        &shader,
        &[(
            "return normalize(upper3(skin_matrix(joints, weights)) * tangent);",
            "return upper3(skin_matrix(joints, weights)) * tangent;",
        )],
    );
    let Some(report) = run_example_as(name, "vec3_tangents_unnormalised", &unnormalised, &vec3)
    else {
        return;
    };
    let rows = tangents(&report);
    assert!(
        rows.iter()
            .any(|r| r.1.fails() && r.2.contains("renormalise")),
        "{rows:?}"
    );
}

/// A vertex stage that pulls its normals with its vertices (`vertex.vertices.normal`) and returns
/// them skinned: the harness packs the mesh's normals into the pulled buffer and compares what
/// the copy of the stage returns at `vertex.skinned_normal`. Moved by the blended matrix, they
/// pass every row as `normal_matrix: blended` and fail where joints bend under the default (the
/// inverse transpose).
#[test]
fn a_pulled_vertex_stage_returns_its_normal_for_comparison() {
    let name = "vertex_pulled";
    let (source, profile) = example_texts(name);
    let shader = edited(
        name,
        &source,
        &[
            ("const WORDS_PER_VERTEX: u32 = 8u;", "const WORDS_PER_VERTEX: u32 = 12u;"),
            (
                "@vertex\nfn vs_main(@builtin(vertex_index) index: u32) -> @builtin(position) vec4<f32> {",
                "struct Out {\n    @builtin(position) clip: vec4<f32>,\n    @location(0) normal: vec3<f32>,\n}\n\n@vertex\nfn vs_main(@builtin(vertex_index) index: u32) -> Out {",
            ),
            (
                "    return camera.view_projection * skin * vec4<f32>(position, 1.0);",
                "    let normal = vec3<f32>(\n        bitcast<f32>(vertex_words[base + 8u]),\n        bitcast<f32>(vertex_words[base + 9u]),\n        bitcast<f32>(vertex_words[base + 10u]),\n    );\n    var out: Out;\n    out.clip = camera.view_projection * skin * vec4<f32>(position, 1.0);\n    out.normal = normalize((skin * vec4<f32>(normal, 0.0)).xyz);\n    return out;",
            ),
        ],
    );
    let layout = |kind: &str| {
        edited(
            name,
            &profile,
            &[
                ("shader: vertex_pulled.wgsl", &format!("shader: vertex_pulled.wgsl\nnormal_matrix: {kind}")),
                ("stride: 32 ", "stride: 48 "),
                (
                    "    weights: { offset: 20, format: unorm16x4 }  # bytes 20 to 27",
                    "    weights: { offset: 20, format: unorm16x4 }  # bytes 20 to 27\n    normal: 32",
                ),
                ("  camera: {", "  skinned_normal: { location: 0 }\n  camera: {"),
            ],
        )
    };
    let Some(report) = run_example_as(name, "pulled_normals", &shader, &layout("blended")) else {
        return;
    };
    let rows = normals_checked(&report);
    let passed = (report.rows.iter())
        .filter(|r| r.check == "normals_match_cpu" && r.outcome.status == Status::Pass)
        .filter(|r| {
            r.outcome
                .figure
                .ends_with("(vertex stage `vs_main`, its output at location 0)")
        })
        .count();
    assert!(passed > 4 && rows.iter().all(|r| !r.1.fails()), "{rows:?}");
    let Some(report) = run_example_as(
        name,
        "pulled_normals_inverse_transpose",
        &shader,
        &layout("inverse_transpose"),
    ) else {
        return;
    };
    let rows = normals_checked(&report);
    assert!(
        rows.iter().any(|r| r.0 == "bend_two_joints" && r.1.fails()),
        "{rows:?}"
    );
}

/// A vertex pool (`compute.regions`) is read at the starts the harness writes: `compute_regions`
/// edited to take its starts as word indices passes every compute row under `unit: words`, and
/// fails them under the default bytes (it then reads four times too far); a shader that writes
/// its skinned positions over the source region fails, the message naming that region.
#[test]
fn a_vertex_pool_is_read_at_the_starts_the_harness_writes() {
    let name = "compute_regions";
    let (source, profile) = example_texts(name);
    let in_words = edited(
        name,
        &source,
        &[(
            "return region / 4u + i * words;",
            "return region + i * words;",
        )],
    );
    let words = edited(
        name,
        &profile,
        &[("    position: {", "    unit: words\n    position: {")],
    );
    let Some(report) = run_example_as(name, "pool_words", &in_words, &words) else {
        return;
    };
    let compute = [
        "compute_matches_cpu",
        "posed_matches_cpu",
        "normals_match_cpu",
    ];
    let rows = |report: &Report| -> Vec<(String, Status)> {
        (report.rows.iter())
            .filter(|r| compute.contains(&r.check.as_str()) && r.case == "four_influences")
            .map(|r| (format!("{}::{}", r.check, r.adapter), r.outcome.status))
            .collect()
    };
    let passed = rows(&report);
    assert!(
        passed.len() == 6 && passed.iter().all(|(_, s)| *s == Status::Pass),
        "{passed:?}"
    );
    let Some(report) = run_example_as(name, "pool_words_as_bytes", &in_words, &profile) else {
        return;
    };
    let failed = rows(&report);
    assert!(
        failed.len() == 6 && failed.iter().all(|(_, s)| s.fails()),
        "{failed:?}"
    );
    let over_source = edited(
        name,
        &source,
        &[(
            "store_vec3(mesh.skinned_position, i, p);",
            "store_vec3(mesh.source_position, i, p);",
        )],
    );
    let Some(report) = run_example_as(name, "pool_over_source", &over_source, &profile) else {
        return;
    };
    let row = (report.rows.iter())
        // Posed: at the bind pose a skinned position rewrites its source's bits unchanged.
        .find(|r| r.check == "posed_matches_cpu" && r.case == "bend_two_joints")
        .expect("a compute row");
    assert!(
        row.outcome.status.fails()
            && row
                .outcome
                .message
                .contains("of the vertex pool, in the `position` region (vertex "),
        "{:?}",
        row.outcome
    );
}

/// A vertex stage that leaves renormalising its normals to the fragment stage (fifth-light's):
/// `vertex_joint_texture` without its vertex-stage `normalize` fails the normal rows where joints
/// bend, naming the profile field that says so; with `frame_length: any` every normal row passes,
/// compared by direction alone.
#[test]
fn normals_renormalised_later_are_compared_by_direction() {
    let name = "vertex_joint_texture";
    let (source, profile) = example_texts(name);
    let later = edited(
        name,
        &source,
        &[(
            "out.normal = normalize((normal_skin * vec4<f32>(in.normal, 0.0)).xyz);",
            "out.normal = (normal_skin * vec4<f32>(in.normal, 0.0)).xyz;",
        )],
    );
    let Some(report) = run_example_as(name, "normals_later", &later, &profile) else {
        return;
    };
    let failed = failing(&report, "normals_match_cpu");
    assert!(
        failed.iter().any(|r| r.case == "bend_two_joints")
            && failed.iter().all(|r| r
                .outcome
                .message
                .contains("renormalise after skinning, or, where a later stage renormalises, say so with the profile's `frame_length: any`")),
        "{:?}",
        normals_checked(&report)
    );
    let any = format!("{profile}frame_length: any\n");
    let Some(report) = run_example_as(name, "normals_later_any", &later, &any) else {
        return;
    };
    let rows: Vec<_> = (report.rows.iter())
        .filter(|r| r.check == "normals_match_cpu" && !r.case.starts_with("gltf_"))
        .collect();
    assert!(
        rows.len() > 10 && rows.iter().all(|r| r.outcome.status == Status::Pass),
        "{:?}",
        normals_checked(&report)
    );
}

/// A vertex stage that moves normals by the blended matrix and then makes its tangent
/// perpendicular to that normal (`vertex_normals` edited, as engines build a tangent frame),
/// compared through a copy of its entry point: every row passes with `tangent_frame:
/// orthogonal`; without it the tangents fail where a joint scales unevenly, the failure naming
/// the field they match under.
#[test]
fn tangents_made_perpendicular_to_the_normal_follow_the_tangent_frame() {
    let name = "vertex_normals";
    let (source, profile) = example_texts(name);
    let shader = edited(
        name,
        &source,
        &[
            (
                "out.normal = skin_normal(in.normal, in.joints, in.weights);",
                "out.normal = normalize(upper3(skin_matrix(in.joints, in.weights)) * in.normal);",
            ),
            (
                "out.tangent = skin_tangent(in.tangent, in.joints, in.weights);",
                "let t = skin_tangent(in.tangent, in.joints, in.weights).xyz;\n    out.tangent = vec4<f32>(normalize(t - dot(t, out.normal) * out.normal), in.tangent.w);",
            ),
        ],
    );
    let copied = edited(
        name,
        &profile,
        &[(
            "  skin_function: skin_matrix\n  normal_function: skin_normal\n  tangent_function: skin_tangent\n",
            "",
        )],
    );
    let plain = format!("{copied}normal_matrix: blended\n");
    let orthogonal = format!("{plain}tangent_frame: orthogonal\n");
    if passing_run(name, "tangent_frame", &shader, &orthogonal).is_none() {
        return;
    }
    let Some(report) = run_example_as(name, "tangent_frame_left_out", &shader, &plain) else {
        return;
    };
    fails_only_as(&report, "tangents_match_cpu", |r| {
        r.outcome.message.contains(
            "they match the reference under `tangent_frame: orthogonal` (the profile says `skinned`)",
        )
    });
}

/// A vertex stage that clamps its clip z to the near plane after the camera, as shadow passes do
/// (`vertex_pulled` edited), compared through a copy of its entry point: every row passes with
/// `clip_z: stage` (the capture reads the skinned z from clip w); without it the clamp flattens
/// every negative z and the posed numbers fail, each failure naming the field.
#[test]
fn a_stage_that_writes_its_clip_z_is_captured_through_clip_w() {
    let name = "vertex_pulled";
    let (source, profile) = example_texts(name);
    let shader = edited(
        name,
        &source,
        &[(
            "    return camera.view_projection * skin * vec4<f32>(position, 1.0);",
            "    var clip = camera.view_projection * skin * vec4<f32>(position, 1.0);\n    clip.z = clamp(clip.z, 0.0, clip.w);\n    return clip;",
        )],
    );
    let camera = "  camera: { group: 0, binding: 0, form: matrix }\n";
    let with = edited(
        name,
        &profile,
        &[(
            camera,
            "  camera: { group: 0, binding: 0, form: matrix, clip_z: stage }\n",
        )],
    );
    if passing_run(name, "clip_z", &shader, &with).is_none() {
        return;
    }
    let Some(report) = run_example_as(name, "clip_z_left_out", &shader, &profile) else {
        return;
    };
    fails_only_as(&report, "posed_matches_cpu", |r| {
        r.outcome.message.contains(
            "x and y match at every vertex, only z is off: where the stage writes its clip z itself",
        ) && r.outcome.message.contains("`vertex.camera.clip_z: stage`")
    });
}

/// A vertex stage written for row vectors (`v * skin * view_projection`, as shaders ported from
/// HLSL multiply), its bones and camera stored row by row (`vertex_pulled` edited): every row
/// passes with `palette.matrix: rows` over its mat4x4s and `camera.matrix: rows`; with the
/// matrices as columns the numbers and the images fail.
#[test]
fn row_vectors_take_their_matrices_row_by_row() {
    let name = "vertex_pulled";
    let (source, profile) = example_texts(name);
    let shader = edited(
        name,
        &source,
        &[(
            "return camera.view_projection * skin * vec4<f32>(position, 1.0);",
            "return vec4<f32>(position, 1.0) * skin * camera.view_projection;",
        )],
    );
    let with = edited(
        name,
        &profile,
        &[
            (
                "palette: { group: 0, binding: 1 }",
                "palette: { group: 0, binding: 1, matrix: rows }",
            ),
            (
                "  camera: { group: 0, binding: 0, form: matrix }",
                "  camera: { group: 0, binding: 0, form: matrix, matrix: rows }",
            ),
        ],
    );
    passes_only_with(
        name,
        "row_vectors",
        &shader,
        (&with, &profile),
        &["posed_matches_cpu", "render_matches_golden"],
    );
}

/// A vertex stage that negates its clip y after the camera, as naga writes one it reads from
/// SPIR-V (`vertex_from_spirv`): without `clip_y: flipped` its numbers and its images fail, the
/// numbers' failures naming the field (the example itself passes every row with it); a stage
/// that does not negate it, given the field, fails saying to leave it out.
#[test]
fn a_stage_that_negates_its_clip_y_names_clip_y() {
    let name = "vertex_from_spirv";
    let (source, profile) = example_texts(name);
    let without = edited(name, &profile, &[(", clip_y: flipped", "")]);
    let Some(report) = run_example_as(name, "clip_y_left_out", &source, &without) else {
        return;
    };
    fails_only_as(&report, "posed_matches_cpu", |r| {
        r.outcome.message.contains(
            "every vertex matches with its y negated: where the stage negates its clip y after the camera",
        ) && r.outcome.message.contains("`vertex.camera.clip_y: flipped`")
    });
    assert!(!failing(&report, "render_matches_golden").is_empty());
    let name = "vertex_pulled";
    let (source, profile) = example_texts(name);
    let flipped = edited(
        name,
        &profile,
        &[(
            "  camera: { group: 0, binding: 0, form: matrix }",
            "  camera: { group: 0, binding: 0, form: matrix, clip_y: flipped }",
        )],
    );
    let Some(report) = run_example_as(name, "clip_y_unneeded", &source, &flipped) else {
        return;
    };
    fails_only_as(&report, "posed_matches_cpu", |r| {
        r.outcome
            .message
            .contains("which this one does not: leave it out")
    });
}

/// A vertex stage that pulls each field from a buffer of its own through an index table, as
/// pygfx's generated stages do (`vertex_pulled` edited: positions as bare floats, three a vertex,
/// joints and weights as typed vec4 arrays, `s_indices[vertex_index]` the vertex): every row
/// passes with its `streams` and the table a `sequence`; zero-filled, the table sends every
/// vertex to vertex 0 and the numbers fail.
#[test]
fn vertex_streams_of_their_own_through_an_index_table_pass() {
    let name = "vertex_pulled";
    let (source, profile) = example_texts(name);
    let start = source.find("@group(0) @binding(2)").unwrap();
    let shader = format!(
        "{}{}",
        &source[..start],
        "@group(0) @binding(2) var<storage, read> s_positions: array<f32>;
@group(0) @binding(3) var<storage, read> s_skin_indices: array<vec4<u32>>;
@group(0) @binding(4) var<storage, read> s_skin_weights: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read> s_indices: array<i32>;

fn load_s_positions(i: i32) -> vec3<f32> {
    return vec3<f32>(s_positions[i * 3], s_positions[i * 3 + 1], s_positions[i * 3 + 2]);
}

@vertex
fn vs_main(@builtin(vertex_index) index: u32) -> @builtin(position) vec4<f32> {
    let i0 = s_indices[index];
    let joints = s_skin_indices[i0];
    let weights = s_skin_weights[i0];
    let skin = weights.x * joint_matrices[joints.x]
        + weights.y * joint_matrices[joints.y]
        + weights.z * joint_matrices[joints.z]
        + weights.w * joint_matrices[joints.w];
    return camera.view_projection * skin * vec4<f32>(load_s_positions(i0), 1.0);
}
"
    );
    let start = profile.find("  vertices:").unwrap();
    let end = profile.find("  camera:").unwrap();
    let streams = |fill: &str| {
        format!(
            "{}{}{}bindings:\n  - {{ group: 0, binding: 5{fill} }}\n",
            &profile[..start],
            "  streams:
    - { group: 0, binding: 2, stride: 12, position: 0 }
    - { group: 0, binding: 3, stride: 16, joints: { offset: 0, format: u32x4 } }
    - { group: 0, binding: 4, stride: 16, weights: { offset: 0, format: f32x4 } }
",
            &profile[end..]
        )
    };
    passes_only_with(
        name,
        "vertex_streams",
        &shader,
        (&streams(", fill: sequence"), &streams("")),
        &["posed_matches_cpu", "bind_pose_reproduces_source"],
    );
}

/// A palette of bare vec4 slots (`vertex_affine_joints` edited, as engines with a WebGL past keep
/// their bones): three a joint, its affine's rows, under `matrix: rows`, and four a joint, its
/// columns, each pass every row; the rows read as columns fail the posed comparison.
#[test]
fn a_palette_of_vec4_slots_holds_rows_or_columns() {
    let name = "vertex_affine_joints";
    let (source, profile) = example_texts(name);
    let slots = |k: u32, read: &str| {
        edited(
            name,
            &source,
            &[
                (
                    "@group(0) @binding(1) var<storage, read> joint_data: array<Joint>;",
                    "@group(0) @binding(1) var<storage, read> joint_data: array<vec4<f32>>;",
                ),
                ("let m = joint_data[indices[k]].rows;", read),
            ],
        )
        .replace("{k}", &k.to_string())
    };
    let rows = slots(
        3,
        "let j = indices[k] * {k}u;\n        let m = mat3x4<f32>(joint_data[j], joint_data[j + 1u], joint_data[j + 2u]);",
    );
    let columns = slots(
        4,
        "let j = indices[k] * {k}u;\n        let c = mat4x4<f32>(joint_data[j], joint_data[j + 1u], joint_data[j + 2u], joint_data[j + 3u]);\n        let m = transpose(c);",
    );
    let as_rows = edited(
        name,
        &profile,
        &[("matrix: rows, element_member: rows }", "matrix: rows }")],
    );
    let as_columns = edited(
        name,
        &profile,
        &[("matrix: rows, element_member: rows }", "}")],
    );
    let _ = passing_run(name, "vec4_rows", &rows, &as_rows);
    // All four rows a joint, the matrix built from their scalars down each column.
    let lanes: Vec<String> = ["x", "y", "z", "w"]
        .iter()
        .map(|l| {
            (0..4)
                .map(|r| format!("joint_data[j + {r}u].{l}"))
                .collect::<Vec<_>>()
                .join(", ")
        })
        .collect();
    let four_rows = slots(
        4,
        &format!(
            "let j = indices[k] * {{k}}u;\n        let m = transpose(mat4x4<f32>({}));",
            lanes.join(", ")
        ),
    );
    let _ = passing_run(name, "vec4_four_rows", &four_rows, &as_rows);
    passes_only_with(
        name,
        "vec4_columns",
        &columns,
        (&as_columns, &as_rows),
        &["posed_matches_cpu"],
    );
}

/// A stage that reaches each joint's matrix through an index table in storage (`vertex_normals`
/// edited, as Orillusion maps a joint to its matrix): every row passes with the table filled as
/// a `sequence`, each index leading to itself; zero-filled, every joint reads joint 0's matrix and
/// the posed comparison fails.
#[test]
fn an_index_table_filled_as_a_sequence_leaves_each_index() {
    let name = "vertex_normals";
    let (source, profile) = example_texts(name);
    let mut shader = edited(
        name,
        &source,
        &[(
            "@group(2) @binding(1) var<uniform> light_dir: vec4<f32>;",
            "@group(2) @binding(1) var<uniform> light_dir: vec4<f32>;\n@group(2) @binding(2) var<storage, read> joint_table: array<i32>;",
        )],
    );
    for lane in ["x", "y", "z", "w"] {
        shader = edited(
            name,
            &shader,
            &[(
                &format!("bones.matrices[joints.{lane}]"),
                &format!("bones.matrices[joint_table[joints.{lane}]]"),
            )],
        );
    }
    let table = |fill: &str| {
        edited(
            name,
            &profile,
            &[(
                "  - { group: 2, binding: 1, floats: [0, 0, 1, 0] } # light_dir\n",
                &format!("  - {{ group: 2, binding: 1, floats: [0, 0, 1, 0] }} # light_dir\n  - {{ group: 2, binding: 2{fill} }}\n"),
            )],
        )
    };
    passes_only_with(
        name,
        "index_table",
        &shader,
        (&table(", fill: sequence"), &table("")),
        &["posed_matches_cpu"],
    );
}

/// Normal and tangent streams of their own, packed (`compute_frame_streams` edited): the normals
/// one snorm8 word each, skinned in place, the tangents two snorm16 words each with their
/// handedness in w. Every row passes, the directions compared within the packings' rounding; a
/// shader that writes the handedness as 1 fails the tangents.
#[test]
fn packed_streams_of_their_own_are_decoded_and_compared() {
    let (source, profile) = example_texts("compute_frame_streams");
    let start = source.find("    let at = 3u * i;").unwrap();
    let end = source.rfind('}').unwrap();
    let shader = [
        &source[..start],
        "    let n = normalize(normal_matrix(linear) * unpack4x8snorm(normals[i]).xyz);\n",
        "    normals[i] = pack4x8snorm(vec4<f32>(n, 0.0));\n",
        "    let s = vec4<f32>(unpack2x16snorm(tangents[i].x), unpack2x16snorm(tangents[i].y));\n",
        "    let t = normalize(linear * s.xyz);\n",
        "    skinned_tangents[i] = vec2<u32>(pack2x16snorm(t.xy), pack2x16snorm(vec2<f32>(t.z, s.w)));\n",
        &source[end..],
    ]
    .concat()
    .replace("normals: array<f32>", "normals: array<u32>")
    .replace("tangents: array<Direction>", "tangents: array<vec2<u32>>")
    .replace("skinned_tangents: array<f32>", "skinned_tangents: array<vec2<u32>>");
    let profile = profile
        .replace(
            "normals: { group: 0, binding: 6, stride: 12 }",
            "normals: { group: 0, binding: 6, stride: 4, encoding: snorm8 }",
        )
        .replace(
            "skinned_normals: { group: 0, binding: 6, stride: 12 }",
            "skinned_normals: { group: 0, binding: 6, stride: 4 }",
        )
        .replace(
            "tangents: { group: 0, binding: 7, stride: 12, format: vec3 }",
            "tangents: { group: 0, binding: 7, stride: 8, encoding: snorm16 }",
        )
        .replace(
            "skinned_tangents: { group: 0, binding: 8, stride: 12 }",
            "skinned_tangents: { group: 0, binding: 8, stride: 8 }",
        );
    let name = "compute_frame_streams";
    let Some(report) = passing_run(name, "packed_streams", &shader, &profile) else {
        return;
    };
    for check in ["normals_match_cpu", "tangents_match_cpu"] {
        let rows: Vec<_> = (report.rows.iter())
            .filter(|r| r.check == check && r.case == "bend_two_joints")
            .collect();
        let compared = !rows.is_empty() && rows.iter().all(|r| r.outcome.status == Status::Pass);
        assert!(compared, "{check}: not compared on the strip: {rows:#?}");
    }
    let unhanded = shader.replace("vec2<f32>(t.z, s.w)", "vec2<f32>(t.z, 1.0)");
    let Some(report) = run_example_as(name, "packed_streams_unhanded", &unhanded, &profile) else {
        return;
    };
    let bad = failing(&report, "tangents_match_cpu");
    assert!(
        bad.iter()
            .any(|r| r.outcome.message.contains("handedness w = 1")),
        "{:#?}",
        failed_rows(&report)
    );
}

/// A skinning switch in a lane of the camera's struct (`scene.flags.y == 2u`, as a glTF viewer's
/// `flags.x` turns its skinning on): the draft gives it in `vertex.camera.members`, and the suite
/// passes only with it; zero-filled, the shader draws the unposed mesh.
#[test]
fn a_skinning_switch_beside_the_camera_is_written_by_camera_members() {
    let name = "vertex_float_joints";
    let (source, profile) = example_texts(name);
    // The bones read only where the switch is on; else the identity.
    let start = source.find("    var influence = ").unwrap();
    let end = source.find("    let final_world").unwrap();
    let blend = source[start..end].replace("    var influence = ", "    influence = ");
    let shader = [
        &source[..start],
        "    var influence = mat4x4<f32>(vec4<f32>(1.0, 0.0, 0.0, 0.0), vec4<f32>(0.0, 1.0, 0.0, 0.0), vec4<f32>(0.0, 0.0, 1.0, 0.0), vec4<f32>(0.0, 0.0, 0.0, 1.0));\n",
        "    if (scene.flags.y == 2u) {\n",
        &blend,
        "    }\n",
        &source[end..],
    ]
    .concat()
    .replace("    eye: vec4<f32>,\n", "    eye: vec4<f32>,\n    flags: vec4<u32>,\n");
    let camera = "camera: { group: 0, binding: 0, form: matrix }";
    let with = profile.replace(
        camera,
        "camera: { group: 0, binding: 0, form: matrix, members: { flags: [0, 2, 0, 0] } }",
    );
    let draft = skinproof::draft::draft(&format!("{name}.wgsl"), &shader).unwrap();
    assert!(
        draft.yaml.contains("members: { flags: [0, 2, 0, 0] } }"),
        "{}",
        draft.yaml
    );
    passes_only_with(
        name,
        "camera_members",
        &shader,
        (&with, &profile),
        &["posed_matches_cpu"],
    );
}

/// A native engine's stages may bind groups past WebGPU's 4 where the adapter has more:
/// `vertex_normals` with its light in group 5 runs every row on both adapters. Dawn, as browsers,
/// refuses its pipeline layouts: the draft expects that of `shader::tint_accepts` (XFAIL), and
/// without the entry the trial fails with Dawn's message.
#[test]
fn stages_past_four_bind_groups_run_and_dawn_refusing_them_is_expected() {
    let name = "vertex_normals";
    let (source, profile) = example_texts(name);
    let shader = edited(
        name,
        &source,
        &[(
            "@group(2) @binding(1) var<uniform> light_dir",
            "@group(5) @binding(1) var<uniform> light_dir",
        )],
    );
    let without = edited(
        name,
        &profile,
        &[(
            "{ group: 2, binding: 1, floats",
            "{ group: 5, binding: 1, floats",
        )],
    );
    let draft = skinproof::draft::draft(&format!("{name}.wgsl"), &shader).unwrap();
    let entry = "expect:\n  - case: shader\n    checks: [tint_accepts]\n    matches: bindGroupLayoutCount\n";
    assert!(draft.yaml.contains(entry), "{}", draft.yaml);
    // Not where the stages keep to groups 0 to 3.
    let four = skinproof::draft::draft(&format!("{name}.wgsl"), &source).unwrap();
    assert!(!four.yaml.contains("case: shader"), "{}", four.yaml);
    let expectation = &draft.yaml[draft.yaml.find("expect:").unwrap()..];
    let with = format!("{without}{expectation}");
    if passing_run(name, "bind_groups", &shader, &with).is_none() {
        return;
    }
    let dawn = "bindGroupLayoutCount (6) is larger than the maximum allowed (4)";
    for (label, profile, status) in [
        ("bind_groups_tint", &with, Status::ExpectedFail),
        ("bind_groups_tint_left_out", &without, Status::Fail),
    ] {
        example_tint_rows_are(name, label, (&shader, profile), status, dawn);
    }
}

/// Every `tint` row of example `name` edited as `shader` under `profile` (scratch folder
/// `label`) has `status` and says `says`; nothing to check where Tint is not installed and not
/// required.
fn example_tint_rows_are(
    name: &str,
    label: &str,
    (shader, profile): (&str, &str),
    status: Status,
    says: &str,
) {
    let (_, path) = example_copy(name, label, shader, profile);
    let Some(rows) = tint_rows(&run_compilers(&path)) else {
        return;
    };
    for (entry, o) in &rows {
        assert_eq!(o.status, status, "{label} {entry}: {}", o.message);
        assert!(o.message.contains(says), "{label} {entry}: {}", o.message);
    }
}

/// `shader::expectations` names each check an entry misspells, against the case checks for a
/// case and against the shader's own trials for `case: shader` (where a case check is no trial).
#[test]
fn expectations_name_the_checks_they_do_not_know() {
    let name = "uniform_palette";
    let (source, profile) = example_texts(name);
    let profile = format!(
        "{profile}  - case: bend_two_joints\n    checks: [posed_matches]\n    matches: x\n    reason: y\n  - case: shader\n    checks: [posed_matches_cpu, tint_accepts, \"translates::vs_skin [*]\", \"translates::vs_skni [*]\"]\n    matches: x\n    reason: y\n"
    );
    let (_, path) = example_copy(name, "expectations_unknown", &source, &profile);
    let vars = vec![("SKINPROOF_SHADER".to_string(), path.display().to_string())];
    let suite = Suite::discover(Config::from_vars(root(), vars).unwrap());
    let job = (suite.jobs().into_iter())
        .find(|j| j.name == "shader::expectations")
        .expect("an expectations trial");
    let err = (job.body)().unwrap_err();
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 3, "{err}");
    assert!(
        lines[0].contains("unknown check `posed_matches` (expected one of case_loads,"),
        "{err}"
    );
    let own = "(with `case: shader`, one of the shader's trials or a pattern naming some: tint_accepts, translates::<entry> [<target>])";
    assert!(
        lines[1].ends_with(&format!("unknown check `posed_matches_cpu` {own}")),
        "{err}"
    );
    assert!(
        lines[2].ends_with(&format!("unknown check `translates::vs_skni [*]` {own}")),
        "{err}"
    );
}

/// A naga back-end the engine never targets may be expected to fail: an extra fragment stage
/// loading a depth texel, which naga cannot write as GLSL, fails its two GLSL translation trials;
/// an entry naming them by a pattern makes them XFAIL; one naming every target of the entry
/// point XPASSes on the targets that pass, which fails the run.
#[test]
fn a_translation_a_profile_expects_to_fail_is_xfail() {
    let name = "vertex_offset_palette";
    let (source, profile) = example_texts(name);
    let shader = format!("{source}\n@group(3) @binding(0) var depth_tex: texture_depth_2d;\n\n@fragment\nfn fs_depth(@builtin(position) p: vec4<f32>) -> @location(0) vec4<f32> {{\n    let d = textureLoad(depth_tex, vec2<i32>(p.xy), 0);\n    return vec4<f32>(d, d, d, 1.0);\n}}\n");
    let rows = |label: &str, targets: &str| {
        let entry = format!("expect:\n  - case: shader\n    checks: [\"translates::fs_depth [{targets}]\"]\n    matches: from depth textures is not supported in GLSL\n    reason: the engine targets Vulkan and Metal alone\n");
        let with = match targets {
            "" => profile.clone(),
            _ => format!("{profile}{entry}"),
        };
        let (_, path) = example_copy(name, label, &shader, &with);
        let report = run_compilers(&path);
        let mut out: Vec<(String, Status)> = (report.compilers.iter())
            .filter(|r| r.entry == "fs_depth")
            .map(|r| (r.compiler.clone(), r.outcome.status))
            .collect();
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    };
    let glsl = |rows: &[(String, Status)], status: Status| {
        (rows.iter())
            .filter(|(c, _)| c.starts_with("glsl"))
            .all(|(_, s)| *s == status)
    };
    let plain = rows("translation_plain", "");
    assert!(glsl(&plain, Status::Fail), "{plain:?}");
    let expected = rows("translation_glsl", "glsl-*");
    assert!(glsl(&expected, Status::ExpectedFail), "{expected:?}");
    assert!(expected.iter().all(|(_, s)| !s.fails()), "{expected:?}");
    let broad = rows("translation_all", "*");
    assert!(
        broad
            .iter()
            .any(|(c, s)| c == "spirv" && *s == Status::UnexpectedPass),
        "{broad:?}"
    );
}

/// A compute stage whose guard reads the vertex count from a lane of a vector member beside a
/// matrix (`if (v >= params.p.y) { return; }`, as an engine packs its dispatch parameters): the
/// draft finds it by the guard, not by a name, writes it as the filled binding's `count: p.y`,
/// and the suite passes only with it (the count left 0, nothing is skinned).
#[test]
fn a_vertex_count_in_a_lane_of_a_member_is_found_by_the_guard() {
    let name = "compute_u16_pairs";
    let (source, profile) = example_texts(name);
    let shader = edited(
        name,
        &source,
        &[
            (
                "    vertex_count: u32,\n    _pad0: u32,\n    _pad1: u32,\n    _pad2: u32,\n",
                "    model: mat4x4<f32>,\n    p: vec4<u32>,\n",
            ),
            ("if (v >= params.vertex_count)", "if (v >= params.p.y)"),
        ],
    );
    let line = "  count: { group: 1, binding: 5 }\n";
    let without = edited(name, &profile, &[(line, "")])
        + "bindings:\n  - { group: 1, binding: 5, fill: identity }\n";
    let with = without.replace("fill: identity }", "fill: identity, count: p.y }");
    let draft = skinproof::draft::draft(&format!("{name}.wgsl"), &shader).unwrap();
    assert!(
        draft
            .yaml
            .contains("  - { group: 1, binding: 5, fill: identity, count: p.y }"),
        "{}",
        draft.yaml
    );
    passes_only_with(
        name,
        "count_lane",
        &shader,
        (&with, &without),
        &["posed_matches_cpu"],
    );
}

/// A stage whose normals skip the skinning (panda3d-simplepbr's `p3d_NormalMatrix * p3d_Normal`,
/// `vertex_normals` with its normal function returning the source normal): `normals_match_cpu`
/// fails and says the GPU's posed normals are the mesh's own, unmoved by the pose.
#[test]
fn normals_left_unmoved_are_named_so() {
    let name = "vertex_normals";
    let (source, profile) = example_texts(name);
    let shader = edited(
        name,
        &source,
        &[(
            "    return normalize(normal_matrix(upper3(skin_matrix(joints, weights))) * normal);",
            "    return normalize(normal);",
        )],
    );
    let Some(report) = run_example_as(name, "unmoved_normals", &shader, &profile) else {
        return;
    };
    let rows = failing(&report, "normals_match_cpu");
    assert!(!rows.is_empty(), "{:#?}", failed_rows(&report));
    assert!(
        rows.iter().all(|r| r
            .outcome
            .message
            .contains("the GPU's posed normals are the mesh's own, unmoved by the pose")),
        "{:#?}",
        rows.iter().map(|r| &r.outcome.message).collect::<Vec<_>>()
    );
}

/// The vertex count in immediate data (push constants, as LÖVR's and Godot's compute skinners
/// keep `vertexCount` beside their strides): `compute_u16_pairs` with its parameters pushed
/// instead of bound, the count a lane of a vector member. The draft finds it by the guard and
/// writes `immediates: { count: p.y }`; the suite passes only with it (left 0, nothing is
/// skinned). A count the profile names in two places is refused by field.
#[test]
fn a_vertex_count_in_immediate_data_is_written_per_dispatch() {
    let name = "compute_u16_pairs";
    let (source, profile) = example_texts(name);
    let shader = edited(
        name,
        &source,
        &[
            (
                "    vertex_count: u32,\n    _pad0: u32,\n    _pad1: u32,\n    _pad2: u32,\n",
                "    offset: vec4<f32>,\n    p: vec4<u32>,\n",
            ),
            (
                "@group(1) @binding(5) var<uniform> params: Params;",
                "var<immediate> params: Params;",
            ),
            ("if (v >= params.vertex_count)", "if (v >= params.p.y)"),
        ],
    );
    let without = edited(
        name,
        &profile,
        &[("  count: { group: 1, binding: 5 }\n", "")],
    );
    let with = format!("{without}immediates: {{ count: p.y }}\n");
    let draft = skinproof::draft::draft(&format!("{name}.wgsl"), &shader).unwrap();
    assert!(
        draft.yaml.contains("\nimmediates: { count: p.y }\n") && !draft.yaml.contains("  count: {"),
        "{}",
        draft.yaml
    );
    let twice = format!("{with}bindings:\n  - {{ group: 3, binding: 0, count: n }}\n");
    let e = skinproof::shader::Shader::with_profile_text(
        Path::new("s.wgsl"),
        shader.as_bytes(),
        Path::new("s.profile.yaml"),
        &twice,
    )
    .err()
    .map(|e| e.to_string())
    .unwrap_or_default();
    assert!(
        e.contains("field `immediates.count`")
            && e.contains("`bindings[0].count` already holds the vertex count"),
        "{e}"
    );
    passes_only_with(
        name,
        "immediate_count",
        &shader,
        (&with, &without),
        &["posed_matches_cpu"],
    );
}

/// Immediate data (`var<immediate>`, an engine's push constants): `vertex_normals` with its world
/// matrix pushed per draw instead of bound. The harness sets it before each draw and dispatch as
/// the profile's `immediates` fills it (the identity, as the draft says); zeros there collapse
/// every drawn vertex, so the suite passes only with it (its numbers come through its skinning
/// function, which does not read it). Tint and Dawn build the pipelines with it too.
#[test]
fn immediate_data_is_set_before_each_draw_and_dispatch() {
    let name = "vertex_normals";
    let (source, profile) = example_texts(name);
    let shader = edited(
        name,
        &source,
        &[(
            "@group(2) @binding(0) var<uniform> mesh: Mesh;",
            "var<immediate> mesh: Mesh;",
        )],
    );
    let without = edited(
        name,
        &profile,
        &[(
            "  - { group: 2, binding: 0, fill: identity } # mesh.world_from_local\n",
            "",
        )],
    );
    let with = format!("{without}immediates: {{ fill: identity }}\n");
    let draft = skinproof::draft::draft(&format!("{name}.wgsl"), &shader).unwrap();
    assert!(
        draft.yaml.contains("\nimmediates: { fill: identity }\n"),
        "{}",
        draft.yaml
    );
    if !passes_only_with(
        name,
        "immediates",
        &shader,
        (&with, &without),
        &["render_covers_bind_pose"],
    ) {
        return;
    }
    example_tint_rows_are(name, "immediates_tint", (&shader, &with), Status::Pass, "");
}

/// A palette texture's width pushed as immediate data (`immediates.texture_width`): written for
/// each case as for a binding; left out, every vertex is infinite.
#[test]
fn a_palette_textures_width_may_be_immediate_data() {
    let name = "vertex_bone_texture_width";
    let (source, profile) = example_texts(name);
    let shader = edited(
        name,
        &source,
        &[(
            "@group(1) @binding(2) var<uniform> bone_info: BoneInfo;",
            "var<immediate> bone_info: BoneInfo;",
        )],
    );
    let without = edited(
        name,
        &profile,
        &[(
            "bindings:\n  - { group: 1, binding: 2, texture_width: bone_texture_width }\n",
            "",
        )],
    );
    let with = format!("{without}immediates: {{ texture_width: bone_texture_width }}\n");
    passes_only_with(
        name,
        "texture_width_immediate",
        &shader,
        (&with, &without),
        &["posed_matches_cpu"],
    );
}

/// A drafted profile is a working start: the drafts of `vertex_split_palette` (a split palette
/// named as inverse binds, u8 joints read as vec4<u32>), `skinning_normals` (both stages, typed
/// normal and tangent buffers), `compute_regions` (a vertex pool, its starts, count and palette
/// offset members by name), `compute_skin_streams` (vertex and skin structs by member) and
/// `compute_in_place` (a struct of split float members read and written in place, its count the
/// end of a range), `vertex_eight_influences` (its second set behind a bool override named so,
/// drafted on), `vertex_float_joints` (a mesh uniform's `visibility`, drafted 1) and
/// `vertex_joint_texture` (a joint index times 8: each joint's normal matrix in the texels after
/// its matrix), `compute_pulled` and `vertex_pulled` (bare words, each field found by what the
/// stage does with the words it loads), `compute_packed_frames` (a normal and a tangent packed
/// in u32 members, their encoding the pack builtins the shader calls) and `vertex_skin_stream`
/// (a skin stream of structs read by vertex index beside the attributes, its joints u16 pairs in
/// two members), `vertex_streams` (a stream a field, read through an index table) and
/// `vertex_from_spirv` (naga's reading of SPIR-V: private globals, its clip y negated) and
/// `vertex_three_influences` (vec3 joints and weights: `max_influences: 3` and its `expect`
/// entries) pass every row on both adapters as drafted.
#[test]
fn drafted_profiles_pass_the_suite_where_the_names_tell_the_layout() {
    for name in [
        "vertex_split_palette",
        "skinning_normals",
        "compute_regions",
        "compute_skin_streams",
        "compute_frame_streams",
        "vertex_mesh_bindings",
        "compute_in_place",
        "vertex_eight_influences",
        "vertex_float_joints",
        "vertex_joint_texture",
        "compute_pulled",
        "vertex_pulled",
        "compute_packed_frames",
        "vertex_skin_stream",
        "vertex_streams",
        "vertex_from_spirv",
        "vertex_three_influences",
    ] {
        let (source, _) = example_texts(name);
        let draft = skinproof::draft::draft(&format!("{name}.wgsl"), &source).unwrap();
        let Some(report) = run_example_as(name, "drafted", &source, &draft.yaml) else {
            return;
        };
        let bad = failed_rows(&report);
        assert!(
            bad.is_empty() && report.rows.len() > 600,
            "{name}:\n{}\n{}",
            bad.join("\n"),
            draft.yaml
        );
    }
}

/// A shader split into modules is drafted from its composition: the folders its imports came
/// from and the defines its modules read are written as the profile's `modules` (those not given
/// left off, each a TODO), and the draft, given the defines it ships with, passes the suite.
#[test]
fn a_shader_split_into_modules_is_drafted_from_its_composition() {
    let name = "composed_skinning";
    let dir = scratch("drafted_composed");
    let examples = root().join("shaders/examples");
    std::fs::create_dir_all(dir.join("composed")).unwrap();
    for e in std::fs::read_dir(examples.join("composed")).unwrap() {
        let from = e.unwrap().path();
        std::fs::copy(&from, dir.join("composed").join(from.file_name().unwrap())).unwrap();
    }
    let (source, _) = example_texts(name);
    let path = dir.join(format!("{name}.wgsl"));
    std::fs::write(&path, &source).unwrap();
    let draft_with = |defines: &[(&str, skinproof::compose::Define)]| {
        let given = defines.iter().map(|(n, v)| (n.to_string(), *v)).collect();
        let (composed, how) = skinproof::draft::compose(&path, &source, &[], &given).unwrap();
        skinproof::draft::draft_composed(&format!("{name}.wgsl"), &composed, &how).unwrap()
    };
    let unset = draft_with(&[]);
    assert!(
        unset.todos == 2
            && unset.yaml.contains("  folders: [composed]\n")
            && unset.yaml.contains("    SKINNING: false\n"),
        "{}",
        unset.yaml
    );
    use skinproof::compose::Define;
    let draft = draft_with(&[
        ("SKINNING", Define::Bool(true)),
        ("INFLUENCES", Define::Int(4)),
    ]);
    assert!(
        draft.todos == 0
            && draft
                .yaml
                .contains("    INFLUENCES: 4\n    SKINNING: true\n"),
        "{}",
        draft.yaml
    );
    // Imported items are named as their modules write them in comments.
    assert!(
        draft.yaml.contains("`skin::palette::joint_matrices`") && !draft.yaml.contains("naga_oil"),
        "{}",
        draft.yaml
    );
    std::fs::write(dir.join(format!("{name}.profile.yaml")), &draft.yaml).unwrap();
    let Some(report) = run_suite(&dir, &[("SKINPROOF_SHADER", path.to_str().unwrap())]) else {
        return;
    };
    let bad = failed_rows(&report);
    assert!(
        bad.is_empty() && report.rows.len() > 600,
        "{}\n{}",
        bad.join("\n"),
        draft.yaml
    );
}

/// `joints_above` covers a case by its joint count: the uniform-palette example cut to 8 matrices
/// runs a 4-joint, an 8-joint and a 12-joint chain. Covering cases past 8 passes (the 12 XFAIL,
/// failing to load with both counts); covering past 12 leaves the 12 uncovered, so FAIL; covering
/// past 4 makes the 8, which fits, XPASS.
#[test]
fn a_layout_expectation_covers_cases_by_joint_count() {
    let (source, profile) = example_texts("uniform_palette");
    let shader = edited(
        "uniform_palette",
        &source,
        &[("array<mat4x4<f32>, 256u>", "array<mat4x4<f32>, 8u>")],
    );
    let dir = scratch("joints_above");
    let cases = copy_cases(&dir, &["bend_two_joints"]);
    let chain = std::fs::read_to_string(cases.join("bend_two_joints.yaml")).unwrap();
    for n in [8, 12] {
        // No golden: the image is not what this test is about.
        let text =
            chain.replace("joints: 4", &format!("joints: {n}")) + "golden:\n  compare: false\n";
        std::fs::write(cases.join(format!("chain_{n}.yaml")), text).unwrap();
    }
    let run = |above: usize| {
        let entry = format!("expect:\n  - case: \"*\"\n    joints_above: {above}\n    matches: \"the shader's palette is a fixed array of 8 matrices\"\n    reason: eight matrices\n");
        let profile = format!("{}{entry}", &profile[..profile.find("expect:").unwrap()]);
        let (_, path) = example_copy(
            "uniform_palette",
            &format!("joints_above_{above}"),
            &shader,
            &profile,
        );
        run_suite(
            &dir,
            &[
                ("SKINPROOF_SHADER", path.to_str().unwrap()),
                ("SKINPROOF_CASES", cases.to_str().unwrap()),
            ],
        )
    };
    let Some(report) = run(8) else { return };
    let rows = |report: &Report, case: &str, status: Status| {
        (report.rows.iter())
            .filter(|r| r.case == case && r.outcome.status == status)
            .count()
    };
    assert!(
        failed_rows(&report).is_empty(),
        "{:#?}",
        failed_rows(&report)
    );
    let xfail = (report.rows.iter()).find(|r| r.outcome.status == Status::ExpectedFail);
    assert!(
        xfail.is_some_and(|r| r.case == "chain_12"
            && r.outcome
                .message
                .contains("the case has 12 joints and the layout holds 8")),
        "{xfail:#?}"
    );
    assert!(rows(&report, "chain_8", Status::Pass) > 0);
    let Some(report) = run(12) else { return };
    let failed = (report.rows.iter()).filter(|r| r.outcome.status == Status::Fail);
    assert!(failed.clone().count() > 0);
    for r in failed {
        assert!(
            r.case == "chain_12" && r.outcome.message.contains("the layout holds 8"),
            "{r:#?}"
        );
    }
    let Some(report) = run(4) else { return };
    assert!(rows(&report, "chain_8", Status::UnexpectedPass) > 0);
    assert_eq!(rows(&report, "bend_two_joints", Status::UnexpectedPass), 0);
}

/// A joint count kept in the palette's own struct beside the bones (`palette.joint_count`) is the
/// case's: the one-uniform example skinning only joints below its `bone_count` passes with the
/// member named, and left at the fill's zero, skins nothing and fails the posed comparison.
#[test]
fn a_joint_count_beside_the_palette_is_the_cases() {
    let name = "vertex_one_uniform";
    let (source, profile) = example_texts(name);
    let shader = edited(
        name,
        &source,
        &[
            (
                "    alpha_cutoff: f32,\n",
                "    alpha_cutoff: f32,\n    bone_count: u32,\n",
            ),
            (
                "let model = uniforms.model * skin;",
                "let model = uniforms.model * (skin * f32(in.joints.x < uniforms.bone_count));",
            ),
        ],
    );
    let with = profile.replace("member: bones,", "member: bones, joint_count: bone_count,");
    assert_ne!(with, profile);
    passes_only_with(
        name,
        "palette_joint_count",
        &shader,
        (&with, &profile),
        &["posed_matches_cpu"],
    );
}

/// A camera kept as a read-only storage array of a view-projection per instance (a shadow pass's
/// `mvps[instance_index]`) is bound as storage, the camera in element 0: the offset-palette
/// example reading it so passes every row, Tint's included; declared read-write, it is refused
/// naming the space to give.
#[test]
fn a_camera_per_instance_in_storage_is_element_0() {
    let name = "vertex_offset_palette";
    let (source, profile) = example_texts(name);
    let edits = |space: &'static str| {
        [
            ("@group(0) @binding(0) var<uniform> camera: Camera;", space),
            (
                "fn vs_main(in: VertexIn) -> VertexOut {",
                "fn vs_main(in: VertexIn, @builtin(instance_index) instance: u32) -> VertexOut {",
            ),
            ("camera.view_proj * world", "mvps[instance] * world"),
        ]
    };
    let read = "@group(0) @binding(0) var<storage, read> mvps: array<mat4x4<f32>>;";
    let shader = edited(name, &source, &edits(read));
    let Some(report) = passing_run(name, "camera_storage", &shader, &profile) else {
        return;
    };
    assert!(report
        .rows
        .iter()
        .any(|r| r.check == "render_matches_golden" && r.outcome.status == Status::Pass));
    example_tint_rows_are(
        name,
        "camera_storage_tint",
        (&shader, &profile),
        Status::Pass,
        "",
    );
    let write = "@group(0) @binding(0) var<storage, read_write> mvps: array<mat4x4<f32>>;";
    let shader = edited(name, &source, &edits(write));
    let Some(report) = run_example_as(name, "camera_storage_rw", &shader, &profile) else {
        return;
    };
    let v = report.validation.as_ref().expect("a validation row");
    assert!(
        v.status.fails() && v.message.contains("(`mvps`) must be var<uniform>"),
        "{}",
        v.message
    );
}

/// The SPIR-V example is what glslang writes from its HLSL source (`shaders/examples/spirv/`),
/// compared as the WGSL naga writes from each: the binary under test is the source shown. Where
/// glslang is missing this fails under `SKINPROOF_REQUIRE_TOOLS` and is skipped otherwise.
#[test]
fn the_spirv_example_is_what_glslang_writes_from_its_hlsl() {
    use skinproof::foreign::{translate, Form};
    use skinproof::tools::{Required, Tool};
    let required = Required::parse(std::env::var("SKINPROOF_REQUIRE_TOOLS").ok().as_deref())
        .unwrap()
        .contains(Tool::Glslang);
    let glslang = match Tool::Glslang.find(root()) {
        Ok(g) => g,
        Err(why) if required => panic!("SKINPROOF_REQUIRE_TOOLS wants glslangValidator: {why}"),
        Err(why) => return eprintln!("skipped: {why}"),
    };
    let dir = scratch("spirv_example");
    let compiled = dir.join("compute_hlsl.spv");
    let source = root().join("shaders/examples/spirv/compute_hlsl.hlsl");
    let out = std::process::Command::new(&glslang.program)
        .args(&glslang.args)
        .args(["-D", "-V", "-S", "comp", "-e", "main"])
        .arg(&source)
        .arg("-o")
        .arg(&compiled)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let shipped = root().join("shaders/examples/compute_hlsl.spv");
    let wgsl = |path: &Path| {
        let bytes = std::fs::read(path).unwrap();
        translate(path, &bytes, Form::SpirV, &Default::default())
            .unwrap()
            .wgsl
    };
    assert_eq!(wgsl(&compiled), wgsl(&shipped));
}

/// Two influences a `vec4<f32>`, (joint, weight, joint, weight), as OpenSceneGraph keeps its
/// `boneWeightN`: the example `vertex_bone_pairs` reading its four pairs from two vec4s passes
/// on every adapter under `pairs` of `format: vec4`, both of each vec4's pairs fed; reading the
/// first pair of each alone, it fails the posed comparison.
#[test]
fn two_pairs_a_vec4_are_fed_as_two_influences() {
    let (source, profile) = example_texts("vertex_bone_pairs");
    let wide = edited(
        "vertex_bone_pairs",
        &source,
        &[
            ("a_boneWeight0: vec2<f32>", "a_boneWeight0: vec4<f32>"),
            ("a_boneWeight1: vec2<f32>", "a_boneWeight1: vec4<f32>"),
            ("    @location(4) a_boneWeight2: vec2<f32>,\n", ""),
            ("    @location(5) a_boneWeight3: vec2<f32>,\n", ""),
            ("bone(in.a_boneWeight0)", "bone(in.a_boneWeight0.xy)"),
            ("bone(in.a_boneWeight1)", "bone(in.a_boneWeight0.zw)"),
            ("bone(in.a_boneWeight2)", "bone(in.a_boneWeight1.xy)"),
            ("bone(in.a_boneWeight3)", "bone(in.a_boneWeight1.zw)"),
        ],
    );
    let profile = edited(
        "vertex_bone_pairs' profile",
        &profile,
        &[(
            "pairs: { location: [2, 3, 4, 5] }",
            "pairs: { location: [2, 3], format: vec4 }",
        )],
    );
    if passing_run("vertex_bone_pairs", "wide_pairs", &wide, &profile).is_none() {
        return;
    }
    let first = wide
        .replace(
            "bone(in.a_boneWeight0.zw)",
            "bone(in.a_boneWeight0.xy) * 0.0",
        )
        .replace(
            "bone(in.a_boneWeight1.zw)",
            "bone(in.a_boneWeight1.xy) * 0.0",
        );
    let texts = (first.as_str(), profile.as_str());
    fails_check(
        "vertex_bone_pairs",
        "wide_pairs_first",
        texts,
        "posed_matches_cpu",
    );
    // The example's own vec2 pairs held to this profile break its contract, and the stage the
    // harness appends (passing vec4s) makes wgpu refuse the module: each trial says so in a
    // line, and the violation, where every trial would repeat wgpu's error.
    let Some(report) = run_example_as("vertex_bone_pairs", "wide_pairs_broken", &source, &profile)
    else {
        return;
    };
    let v = report.validation.as_ref().expect("a validation row");
    assert!(
        v.status.fails()
            && v.message
                .contains("input @location(2) must be vec4<f32>, is vec2<f32>"),
        "{}",
        v.message
    );
    fails_only_as(&report, "shader_builds", |r| {
        let m = &r.outcome.message;
        m.contains("wgpu refuses the module, as naga does: the shader breaks its contract")
            && m.contains(
                "which this failure may follow from: entry point `vs_main`: input @location(2)",
            )
            && !m.contains("Shader validation error")
    });
}
