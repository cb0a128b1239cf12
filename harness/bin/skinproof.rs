//! The `skinproof` command: merge reports into one cross-vendor matrix; write skinned positions.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use skinproof::case::Case;
use skinproof::gpu::Context;
use skinproof::report::Report;
use skinproof::scene::{Scene, SceneError};
use skinproof::shader::Shader;

const USAGE: &str = "usage:
  skinproof merge [--out DIR] REPORT.json...   merge report.json files (CI jobs, backends, nextest
                                               shards or rows) into one case x check x adapter matrix;
                                               prints the matrix, or with --out writes DIR/REPORT.md,
                                               DIR/report.json and DIR/MATRIX.md
  skinproof skin (--model FILE [--mesh NAME] [--clip NAME|INDEX] (--time SECONDS | --rest)
                  | --case CASE.yaml) [--path cpu|gpu] --out FILE.bin|FILE.obj
                                               write the skinned positions (glTF skinned space, POSITION
                                               order) as little-endian f32 xyz, or as .obj with faces;
                                               --path gpu uses the first adapter (WGPU_BACKEND and
                                               WGPU_ADAPTER_NAME narrow it) and SKINPROOF_SHADER";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("merge") => merge(&args[1..]),
        Some("skin") => skin(&args[1..]),
        Some("-h" | "--help" | "help") => {
            print_out(&format!("{USAGE}\n"));
            Ok(())
        }
        _ => Err(USAGE.to_string()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("skinproof: {e}");
            ExitCode::FAILURE
        }
    }
}

fn merge(args: &[String]) -> Result<(), String> {
    let mut out: Option<PathBuf> = None;
    let mut files = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--out" => out = Some(it.next().ok_or("--out needs a folder")?.into()),
            "-h" | "--help" => {
                print_out(&format!("{USAGE}\n"));
                return Ok(());
            }
            f if f.starts_with('-') => return Err(format!("merge: unknown option `{f}`\n{USAGE}")),
            f => files.push(PathBuf::from(f)),
        }
    }
    if files.is_empty() {
        return Err(format!("merge: no report files given\n{USAGE}"));
    }
    let mut parts: Vec<(&PathBuf, Report)> = Vec::new();
    let mut seen: Vec<(&PathBuf, String)> = Vec::new();
    for f in &files {
        let report = Report::load(f)?;
        // The same report twice (a glob that matches a copy) would count its costs twice.
        let text = serde_json::to_string(&report).unwrap_or_default();
        if let Some((first, _)) = seen.iter().find(|(_, t)| *t == text) {
            eprintln!(
                "skinproof: {} is the same report as {}; merged once",
                f.display(),
                first.display()
            );
            continue;
        }
        seen.push((f, text));
        parts.push((f, report));
    }
    check_one_shader(&parts)?;
    check_adapters(&parts)?;
    let merged = Report::merge(parts.into_iter().map(|(_, r)| r).collect());
    for p in &merged.problems {
        eprintln!("skinproof: {p}");
    }
    let matrix = merged.matrix_markdown();
    match out {
        None => print_out(&matrix),
        Some(dir) => {
            merged
                .write(&dir)
                .map_err(|e| format!("{}: {e}", dir.display()))?;
            skinproof::file::write_atomic(&dir.join("MATRIX.md"), matrix.as_bytes())
                .map_err(|e| format!("{}: {e}", dir.display()))?;
            eprintln!(
                "skinproof: merged {} reports ({} rows, {} adapters) into {}",
                files.len(),
                merged.rows.len(),
                merged.adapters.len(),
                dir.display()
            );
        }
    }
    Ok(())
}

/// Reports that judged different shader sources cannot share a matrix.
fn check_one_shader(parts: &[(&PathBuf, Report)]) -> Result<(), String> {
    let known: Vec<&(&PathBuf, Report)> = parts
        .iter()
        .filter(|(_, r)| !r.shader_sha256.is_empty())
        .collect();
    let Some((first, base)) = known.first() else {
        return Ok(());
    };
    match known
        .iter()
        .find(|(_, r)| r.shader_sha256 != base.shader_sha256)
    {
        None => Ok(()),
        Some((other, r)) => Err(format!(
            "merge: {} judged {} (sha256 {}), {} judged {} (sha256 {}): one matrix is for one shader",
            first.display(),
            base.shader,
            &base.shader_sha256[..12.min(base.shader_sha256.len())],
            other.display(),
            r.shader,
            &r.shader_sha256[..12.min(r.shader_sha256.len())]
        )),
    }
}

/// One matrix column is one adapter: two reports whose adapters share a tag but not a name and
/// driver (two machines, two Mesa versions) would mix their rows in one column.
fn check_adapters(parts: &[(&PathBuf, Report)]) -> Result<(), String> {
    let mut seen: Vec<(&PathBuf, &skinproof::gpu::AdapterInfo)> = Vec::new();
    for (file, report) in parts {
        for a in &report.adapters {
            let same = |b: &skinproof::gpu::AdapterInfo| {
                (&a.name, &a.driver, &a.driver_info) == (&b.name, &b.driver, &b.driver_info)
            };
            match seen.iter().find(|(_, b)| b.tag == a.tag) {
                Some((first, b)) if !same(b) => {
                    return Err(format!(
                        "merge: {} and {} both have an adapter tagged `{}` but they differ ({}, {} {} against {}, {} {}): one matrix column cannot hold both",
                        first.display(),
                        file.display(),
                        a.tag,
                        b.name,
                        b.driver,
                        b.driver_info,
                        a.name,
                        a.driver,
                        a.driver_info
                    ))
                }
                Some(_) => {}
                None => seen.push((file, a)),
            }
        }
    }
    Ok(())
}

fn skin(args: &[String]) -> Result<(), String> {
    let mut opts = std::collections::HashMap::new();
    let mut rest = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-h" | "--help" => {
                print_out(&format!("{USAGE}\n"));
                return Ok(());
            }
            "--rest" => rest = true,
            "--model" | "--mesh" | "--clip" | "--time" | "--case" | "--path" | "--out" => {
                let v = it.next().ok_or_else(|| format!("{a} needs a value"))?;
                opts.insert(a.trim_start_matches('-').to_string(), v.clone());
            }
            other => return Err(format!("skin: unknown argument `{other}`\n{USAGE}")),
        }
    }
    let out = PathBuf::from(opts.get("out").ok_or("skin: --out FILE is required")?);
    let case = match (opts.get("case"), opts.get("model")) {
        (Some(c), None) => {
            let model_flags: Vec<String> = ["mesh", "clip", "time"]
                .into_iter()
                .filter(|k| opts.contains_key(*k))
                .map(|k| format!("--{k}"))
                .chain(rest.then(|| "--rest".to_string()))
                .collect();
            if !model_flags.is_empty() {
                return Err(format!(
                    "skin: {} go with --model; a case file sets its model, clip and time itself",
                    model_flags.join(", ")
                ));
            }
            Case::load(
                Path::new(c),
                &skinproof::check::Check::ALL.map(skinproof::check::Check::name),
            )
            .map_err(|e| e.to_string())?
        }
        (None, Some(m)) => {
            if rest == opts.contains_key("time") {
                return Err("skin: give exactly one of --time SECONDS and --rest".into());
            }
            // A one-off case over the model, so the same loader and pose code serve the command.
            let model = std::fs::canonicalize(m).map_err(|e| format!("{m}: {e}"))?;
            let mut yaml = format!(
                "model:\n  path: {}\n",
                serde_json::to_string(&model).unwrap_or_default()
            );
            for (key, field) in [("mesh", "mesh"), ("clip", "animation")] {
                if let Some(v) = opts.get(key) {
                    yaml += &format!(
                        "  {field}: {}\n",
                        serde_json::to_string(v).unwrap_or_default()
                    );
                }
            }
            if let Some(t) = opts.get("time") {
                let t: f64 = t
                    .parse()
                    .ok()
                    .filter(|t: &f64| t.is_finite())
                    .ok_or_else(|| format!("--time: `{t}` is not a finite number of seconds"))?;
                yaml += &format!("  time: {t}\n");
            }
            // A one-off case has no `expect` entries.
            Case::parse(Path::new(COMMAND_LINE), &yaml, &[])
                .map_err(|e| flag_error(&e.to_string()))?
        }
        _ => {
            return Err(format!(
                "skin: give exactly one of --model FILE and --case FILE\n{USAGE}"
            ))
        }
    };
    let scene = Scene::from_case(&case).map_err(|e| match e {
        SceneError::Skip(m) | SceneError::Fail(m) => flag_error(&m),
    })?;
    let positions = match opts.get("path").map(String::as_str).unwrap_or("cpu") {
        "cpu" => scene.cpu_posed.clone(),
        "gpu" => gpu_skin(&scene)?,
        other => return Err(format!("--path: `{other}` is not cpu or gpu")),
    };
    let bytes = match out.extension().and_then(|e| e.to_str()) {
        Some("obj") => obj(&positions, &scene.mesh.indices).into_bytes(),
        Some("bin") => positions
            .iter()
            .flatten()
            .flat_map(|v| v.to_le_bytes())
            .collect(),
        _ => return Err(format!("--out: {} must end in .bin or .obj", out.display())),
    };
    skinproof::file::write_atomic(&out, &bytes).map_err(|e| format!("{}: {e}", out.display()))?;
    eprintln!(
        "skinproof: wrote {} skinned positions to {}",
        positions.len(),
        out.display()
    );
    Ok(())
}

/// Writes to stdout; a closed pipe (`| head`) ends the output quietly instead of panicking.
fn print_out(text: &str) {
    use std::io::Write;
    let _ = std::io::stdout().write_all(text.as_bytes());
}

/// The name of the one-off case that `skin --model` builds from its flags.
const COMMAND_LINE: &str = "command-line.yaml";

/// An error about the one-off case, told in terms of the flag that set the field (`--clip`, not
/// `command-line.yaml:3: field model.animation`); other messages pass through.
fn flag_error(message: &str) -> String {
    let Some(rest) = message.strip_prefix(COMMAND_LINE) else {
        return message.to_string();
    };
    if let Some(model) = rest.strip_prefix(": model: ") {
        return format!("--model: {model}");
    }
    // `:<line>: field `<field>`: <text>`
    let located = rest
        .trim_start_matches(|c: char| c == ':' || c.is_ascii_digit())
        .trim_start()
        .strip_prefix("field `")
        .and_then(|r| r.split_once("`: "));
    match located {
        Some((field, text)) => {
            let flag = match field {
                "model.path" | "model" => "--model",
                "model.mesh" => "--mesh",
                "model.animation" => "--clip",
                "model.time" => "--time",
                other => other,
            };
            format!("{flag}: {text}")
        }
        None => format!("skin: {}", rest.trim_start_matches([':', ' '])),
    }
}

/// The scene's posed positions from the GPU compute path on the first selected adapter.
fn gpu_skin(scene: &Scene) -> Result<Vec<[f32; 3]>, String> {
    let selection = skinproof::gpu::Selection::from_env().map_err(|e| e.to_string())?;
    let instance = skinproof::gpu::adapter::instance(&selection);
    let found = skinproof::gpu::discover(&instance, &selection)
        .into_iter()
        .next()
        .ok_or_else(|| {
            let narrowed: Vec<String> = ["WGPU_BACKEND", "WGPU_ADAPTER_NAME"]
                .into_iter()
                .filter_map(|k| std::env::var(k).ok().map(|v| format!("{k}={v}")))
                .filter(|kv| !kv.ends_with('='))
                .collect();
            format!(
                "no GPU adapter found{} (see README: scripts/setup-adapters installs the software ones)",
                if narrowed.is_empty() {
                    String::new()
                } else {
                    format!(" with {}", narrowed.join(" "))
                }
            )
        })?;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    // A command resolves SKINPROOF_SHADER against the folder it runs in, as its other paths.
    let vars = std::env::vars().map(|(k, v)| {
        if k == "SKINPROOF_SHADER" && !v.is_empty() {
            let absolute = std::path::absolute(&v).map_or(v, |p| p.display().to_string());
            (k, absolute)
        } else {
            (k, v)
        }
    });
    let config = skinproof::config::Config::from_vars(root, vars.collect())?;
    let shader = Shader::load(&config.shader).map_err(|e| e.to_string())?;
    // Only skin_compute runs here: a contract broken elsewhere (the render stage) is worth a word,
    // not a refusal; a compute stage that does not build fails below.
    if let Err(e) = shader.validate() {
        eprintln!("skinproof: warning: {e}");
    }
    let ctx = Context::new(&found.adapter, found.info.clone(), &shader, config.timeout)
        .map_err(|e| e.to_string())?;
    eprintln!("skinproof: skinning on {}", found.info.tag);
    ctx.compute().map_err(|e| e.to_string())?;
    let skinned = skinproof::gpu::compute::skin_guarded(&ctx, &scene.posed_palette, &scene.mesh)
        .map_err(|e| e.to_string())?;
    if let Some(fault) = &skinned.fault {
        eprintln!("skinproof: warning: the compute output breaks the contract: {fault}");
    }
    Ok(skinned.positions)
}

/// Wavefront OBJ: one `v` per vertex, one `f` per triangle (1-based).
fn obj(positions: &[[f32; 3]], indices: &[u32]) -> String {
    let mut s = String::from("# skinned positions written by skinproof\n");
    for p in positions {
        s += &format!("v {} {} {}\n", p[0], p[1], p[2]);
    }
    for t in indices.chunks_exact(3) {
        s += &format!("f {} {} {}\n", t[0] + 1, t[1] + 1, t[2] + 1);
    }
    s
}
