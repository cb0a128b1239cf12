//! The external validators the harness runs on translated shaders: found on `PATH`, run with a
//! deadline on stdin and nothing written, required or not by `SKINPROOF_REQUIRE_TOOLS`.

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
}

/// Every tool, in the order `SKINPROOF_REQUIRE_TOOLS=1` lists them.
pub const ALL: [Tool; 2] = [Tool::SpirvVal, Tool::Glslang];

impl Tool {
    /// The command's name, as on `PATH` and in `SKINPROOF_REQUIRE_TOOLS`.
    pub fn name(self) -> &'static str {
        match self {
            Tool::SpirvVal => "spirv-val",
            Tool::Glslang => "glslangValidator",
        }
    }

    /// The Debian package that installs it (`scripts/setup-adapters` does).
    pub fn package(self) -> &'static str {
        match self {
            Tool::SpirvVal => "spirv-tools",
            Tool::Glslang => "glslang-tools",
        }
    }

    /// The tool's path on `PATH`, or why it is not there.
    pub fn find(self) -> Result<PathBuf, String> {
        self.find_in(&std::env::var_os("PATH").unwrap_or_default())
    }

    /// The tool's path in the folders of a `PATH` value.
    fn find_in(self, path: &std::ffi::OsStr) -> Result<PathBuf, String> {
        std::env::split_paths(path)
            .map(|dir| dir.join(self.name()))
            .find(|p| is_executable(p))
            .ok_or_else(|| {
                format!(
                    "{} is not on PATH (Debian package {}; scripts/setup-adapters installs it)",
                    self.name(),
                    self.package()
                )
            })
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
        let e = Required::parse(Some("spirv-val,spirv-vall")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "SKINPROOF_REQUIRE_TOOLS: `spirv-vall` names no tool (expected 0, 1, or a comma list of spirv-val, glslangValidator)"
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
        let why = Tool::Glslang.find_in(std::ffi::OsStr::new("")).unwrap_err();
        assert_eq!(why, "glslangValidator is not on PATH (Debian package glslang-tools; scripts/setup-adapters installs it)");
    }
}
