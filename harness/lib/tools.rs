//! The external validators and compilers the harness runs on shaders: found on `PATH` (Tint: Node
//! and the project's pinned Dawn package), run with a deadline on stdin and nothing written,
//! required or not by `SKINPROOF_REQUIRE_TOOLS`.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A validator the harness can run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tool {
    /// `spirv-val` (SPIRV-Tools): the SPIR-V naga writes.
    SpirvVal,
    /// `glslangValidator` (the Khronos reference compiler): the GLSL naga writes.
    Glslang,
    /// Tint, the WGSL compiler of Chromium-based browsers: Dawn's Node bindings (the npm package
    /// `webgpu`, pinned in `tools/tint/package.json`) run by `node` on `tools/tint/check.mjs`.
    Tint,
}

/// Every tool, in the order `SKINPROOF_REQUIRE_TOOLS=1` lists them.
pub const ALL: [Tool; 3] = [Tool::SpirvVal, Tool::Glslang, Tool::Tint];

/// The folder of Tint's package and script, under the project root.
pub const TINT_DIR: &str = "tools/tint";

/// How to run a tool: its program and the arguments that come before the caller's.
#[derive(Clone, Debug, PartialEq)]
pub struct Invocation {
    pub program: PathBuf,
    pub args: Vec<String>,
}

impl Invocation {
    /// Runs the tool with `args` after its own, `input` on stdin, within `deadline` (see [`run`]).
    pub fn run(&self, args: &[&str], input: &[u8], deadline: Duration) -> Result<Said, String> {
        let mut all: Vec<&str> = self.args.iter().map(String::as_str).collect();
        all.extend_from_slice(args);
        run(&self.program, &all, input, deadline)
    }
}

impl Tool {
    /// The tool's name in `SKINPROOF_REQUIRE_TOOLS` (the command's, for those on `PATH`).
    pub fn name(self) -> &'static str {
        match self {
            Tool::SpirvVal => "spirv-val",
            Tool::Glslang => "glslangValidator",
            Tool::Tint => "tint",
        }
    }

    /// The Debian packages that install its program (`scripts/setup-adapters` does).
    pub fn package(self) -> &'static str {
        match self {
            Tool::SpirvVal => "spirv-tools",
            Tool::Glslang => "glslang-tools",
            Tool::Tint => "nodejs, with npm for the package",
        }
    }

    /// The program on `PATH` that runs it.
    fn program(self) -> &'static str {
        match self {
            Tool::Tint => "node",
            other => other.name(),
        }
    }

    /// How to run the tool in the project at `root`, or why it cannot run there.
    pub fn find(self, root: &Path) -> Result<Invocation, String> {
        self.find_in(&std::env::var_os("PATH").unwrap_or_default(), root)
    }

    /// How to run the tool with the folders of a `PATH` value, in the project at `root`.
    fn find_in(self, path: &std::ffi::OsStr, root: &Path) -> Result<Invocation, String> {
        let program = std::env::split_paths(path)
            .map(|dir| dir.join(self.program()))
            .find(|p| is_executable(p))
            .ok_or_else(|| {
                format!(
                    "{} is not on PATH (Debian package {}; scripts/setup-adapters installs it)",
                    self.program(),
                    self.package()
                )
            })?;
        let args = match self {
            Tool::Tint => vec![tint_script(root)?],
            _ => Vec::new(),
        };
        Ok(Invocation { program, args })
    }
}

/// Tint's script, once the package it imports is installed at the version `package.json` pins.
fn tint_script(root: &Path) -> Result<String, String> {
    let dir = root.join(TINT_DIR);
    let install = format!("run `npm ci --ignore-scripts` in {TINT_DIR}, or scripts/setup-adapters");
    let version = |file: &Path, pointer: &str| -> Option<String> {
        let text = std::fs::read_to_string(file).ok()?;
        let json: serde_json::Value = serde_json::from_str(&text).ok()?;
        json.pointer(pointer)?.as_str().map(str::to_string)
    };
    let pinned = version(&dir.join("package.json"), "/dependencies/webgpu")
        .ok_or_else(|| format!("{TINT_DIR}/package.json pins no `webgpu` version"))?;
    match version(&dir.join("node_modules/webgpu/package.json"), "/version") {
        None => Err(format!(
            "Dawn's Node bindings (npm package webgpu {pinned}) are not installed in {TINT_DIR}/node_modules: {install}"
        )),
        Some(found) if found != pinned => Err(format!(
            "{TINT_DIR}/node_modules holds webgpu {found}, package.json pins {pinned}: {install}"
        )),
        Some(_) => Ok(dir.join("check.mjs").display().to_string()),
    }
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Which tools must be present, from `SKINPROOF_REQUIRE_TOOLS`: `0` or unset (none: a missing
/// tool SKIPs its trials), `1` (all), or a comma list of names.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Required(Vec<Tool>);

/// A `SKINPROOF_REQUIRE_TOOLS` value that names no tool.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("SKINPROOF_REQUIRE_TOOLS: `{0}` names no tool (expected 0, 1, or a comma list of {names})", names = names())]
pub struct UnknownTool(pub String);

fn names() -> String {
    ALL.map(Tool::name).join(", ")
}

impl Required {
    pub fn parse(value: Option<&str>) -> Result<Required, UnknownTool> {
        match value.map(str::trim).unwrap_or("") {
            "" | "0" => Ok(Required::default()),
            "1" => Ok(Required(ALL.to_vec())),
            list => list
                .split(',')
                .map(|n| {
                    let n = n.trim();
                    ALL.into_iter()
                        .find(|t| t.name() == n)
                        .ok_or_else(|| UnknownTool(n.to_string()))
                })
                .collect::<Result<Vec<_>, _>>()
                .map(Required),
        }
    }

    pub fn contains(&self, tool: Tool) -> bool {
        self.0.contains(&tool)
    }
}

/// What the trials that run tools need: the project they run in, which tools must be there, and
/// how long one run may take.
#[derive(Clone, Debug)]
pub struct Tools {
    pub root: PathBuf,
    pub required: Required,
    pub deadline: Duration,
}

/// Why a tool cannot run: it is required (`SKINPROOF_REQUIRE_TOOLS`), so its trials fail with
/// the message; or it is not, so they skip saying why.
#[derive(Debug)]
pub enum Missing {
    Required(String),
    Optional(String),
}

impl Tools {
    /// How to run `tool` here, or why not, and whether that fails or skips its trials.
    pub fn locate(&self, tool: Tool) -> Result<Invocation, Missing> {
        tool.find(&self.root)
            .map_err(|why| match self.required.contains(tool) {
                true => Missing::Required(format!(
                    "SKINPROOF_REQUIRE_TOOLS wants {}: {why}",
                    tool.name()
                )),
                false => Missing::Optional(why),
            })
    }
}

/// What a tool said: its exit status and its stdout and stderr together.
#[derive(Debug)]
pub struct Said {
    pub success: bool,
    pub text: String,
}

/// Runs `program args` with `input` on stdin and waits at most `deadline`; a tool still running
/// then is killed and reported, so that a validator that hangs cannot hold the run.
pub fn run(
    program: &Path,
    args: &[&str],
    input: &[u8],
    deadline: Duration,
) -> Result<Said, String> {
    let shown = format!("{} {}", program.display(), args.join(" "));
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("`{shown}` did not start: {e}"))?;
    // Readers and the writer on their own threads: a tool that fills its pipe before reading all
    // its input would otherwise wait on us while we wait on it.
    let drain = |r: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut out = Vec::new();
            if let Some(mut r) = r {
                let _ = r.read_to_end(&mut out);
            }
            out
        })
    };
    let stdout = drain(
        child
            .stdout
            .take()
            .map(|s| Box::new(s) as Box<dyn Read + Send>),
    );
    let stderr = drain(
        child
            .stderr
            .take()
            .map(|s| Box::new(s) as Box<dyn Read + Send>),
    );
    let mut stdin = child.stdin.take();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        if let Some(s) = stdin.as_mut() {
            let _ = s.write_all(&input);
        }
    });
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if start.elapsed() < deadline => std::thread::sleep(Duration::from_millis(5)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "`{shown}` ran past the deadline of {:.1} s and was killed",
                    deadline.as_secs_f64()
                ));
            }
            Err(e) => return Err(format!("`{shown}`: {e}")),
        }
    };
    let _ = writer.join();
    let text = [stdout, stderr]
        .map(|t| {
            String::from_utf8_lossy(&t.join().unwrap_or_default())
                .trim_end()
                .to_string()
        })
        .into_iter()
        .filter(|t| !t.is_empty())
        .collect::<Vec<_>>()
        .join("\n");
    Ok(Said {
        success: status.success(),
        text,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requirement_values() {
        assert_eq!(Required::parse(None).unwrap(), Required::default());
        assert_eq!(Required::parse(Some("0")).unwrap(), Required::default());
        assert_eq!(Required::parse(Some("1")).unwrap(), Required(ALL.to_vec()));
        let one = Required::parse(Some(" glslangValidator ")).unwrap();
        assert!(one.contains(Tool::Glslang) && !one.contains(Tool::SpirvVal));
        assert!(Required::parse(Some("1")).unwrap().contains(Tool::Tint));
        let e = Required::parse(Some("spirv-val,spirv-vall")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "SKINPROOF_REQUIRE_TOOLS: `spirv-vall` names no tool (expected 0, 1, or a comma list of spirv-val, glslangValidator, tint)"
        );
    }

    #[test]
    fn a_tool_runs_with_stdin_and_a_hung_one_is_killed() {
        let sh = Path::new("/bin/sh");
        let said = run(
            sh,
            &["-c", "cat; echo oops >&2; exit 3"],
            b"in",
            Duration::from_secs(10),
        )
        .unwrap();
        assert!(!said.success);
        assert_eq!(said.text, "in\noops");
        let started = Instant::now();
        let hung = run(sh, &["-c", "sleep 30"], b"", Duration::from_millis(200)).unwrap_err();
        assert!(hung.contains("ran past the deadline of 0.2 s"), "{hung}");
        assert!(started.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn a_missing_tool_names_its_package() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let why = Tool::Glslang
            .find_in(std::ffi::OsStr::new(""), root)
            .unwrap_err();
        assert_eq!(why, "glslangValidator is not on PATH (Debian package glslang-tools; scripts/setup-adapters installs it)");
        let why = Tool::Tint
            .find_in(std::ffi::OsStr::new(""), root)
            .unwrap_err();
        assert_eq!(why, "node is not on PATH (Debian package nodejs, with npm for the package; scripts/setup-adapters installs it)");
    }

    #[test]
    fn tint_wants_the_pinned_package_installed() {
        let dir = std::env::temp_dir().join(format!("skinproof-tint-pin-{}", std::process::id()));
        let tint = dir.join(TINT_DIR);
        std::fs::create_dir_all(tint.join("node_modules/webgpu")).unwrap();
        std::fs::write(
            tint.join("package.json"),
            r#"{"dependencies":{"webgpu":"1.2.3"}}"#,
        )
        .unwrap();
        let why = tint_script(&dir).unwrap_err();
        assert!(
            why.contains("webgpu 1.2.3) are not installed") && why.contains("npm ci"),
            "{why}"
        );
        let installed = tint.join("node_modules/webgpu/package.json");
        std::fs::write(&installed, r#"{"version":"1.2.2"}"#).unwrap();
        let why = tint_script(&dir).unwrap_err();
        assert!(
            why.contains("holds webgpu 1.2.2, package.json pins 1.2.3"),
            "{why}"
        );
        std::fs::write(&installed, r#"{"version":"1.2.3"}"#).unwrap();
        assert!(tint_script(&dir).unwrap().ends_with("tools/tint/check.mjs"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
