//! The run's settings from `SKINPROOF_*` variables; a typo or an unknown value is an error, not a default.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::bench::{self, ModeError};
use crate::golden::{Bless, UnknownBless};
use crate::identity::{backend_name, parse_backend, BackendError, BACKEND_NAMES};

/// Which adapters must be present, from `SKINPROOF_REQUIRE_ADAPTER`.
#[derive(Clone, Debug, PartialEq)]
pub enum Require {
    /// No adapter: GPU trials are ignored with a reason.
    Nothing,
    /// `1`: at least one adapter.
    Any,
    /// `vulkan,gl`: at least one adapter on each backend named, in the order named.
    Backends(Vec<wgpu::Backend>),
}

/// A `SKINPROOF_REQUIRE_ADAPTER` value that is not 0, 1 or a list of backends.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RequireError {
    #[error("SKINPROOF_REQUIRE_ADAPTER: {0}, or 1 for any adapter, or 0")]
    Backend(#[from] BackendError),
    #[error("SKINPROOF_REQUIRE_ADAPTER: `{0}` names no backend (expected 0, 1, or a comma list of {BACKEND_NAMES})")]
    Empty(String),
    #[error("SKINPROOF_REQUIRE_ADAPTER: value {0} is not UTF-8")]
    NotUtf8(String),
}

impl Require {
    /// Reads `SKINPROOF_REQUIRE_ADAPTER` from the environment, for the targets that do not run the
    /// suite; the suite gets it in its [`Config`].
    pub fn from_env() -> Result<Require, RequireError> {
        match std::env::var("SKINPROOF_REQUIRE_ADAPTER") {
            Ok(v) => Require::parse(Some(&v)),
            Err(std::env::VarError::NotPresent) => Ok(Require::Nothing),
            Err(std::env::VarError::NotUnicode(v)) => Err(RequireError::NotUtf8(format!("{v:?}"))),
        }
    }

    /// Parses the value (absent, empty and `0` require nothing); backends by name or alias.
    pub fn parse(value: Option<&str>) -> Result<Require, RequireError> {
        match value.map(str::trim) {
            None | Some("") | Some("0") => Ok(Require::Nothing),
            Some("1") => Ok(Require::Any),
            Some(list) => {
                let mut want = Vec::new();
                for word in list.split(',').map(str::trim).filter(|w| !w.is_empty()) {
                    let b = parse_backend(word)?;
                    if !want.contains(&b) {
                        want.push(b);
                    }
                }
                if want.is_empty() {
                    return Err(RequireError::Empty(list.to_string()));
                }
                Ok(Require::Backends(want))
            }
        }
    }

    /// The required backends, by name, that no adapter in `found` (backend names) is on.
    pub fn missing(&self, found: &[String]) -> Vec<&'static str> {
        match self {
            Require::Backends(want) => want
                .iter()
                .map(|b| backend_name(*b))
                .filter(|b| !found.iter().any(|f| f == b))
                .collect(),
            Require::Nothing | Require::Any => Vec::new(),
        }
    }

    /// Whether a missing adapter fails rather than skips.
    pub fn is_required(&self) -> bool {
        *self != Require::Nothing
    }
}

/// A bad setting: its message names the variable and, where there is one, the value.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ConfigError {
    /// A `SKINPROOF_*` or `CI` value that is not UTF-8 (others are not ours to judge).
    #[error("{name}: value {value:?} is not UTF-8")]
    NotUtf8 { name: String, value: OsString },
    /// A `SKINPROOF_*` name that is not in [`KNOWN`]: a typo.
    #[error("unknown variable {name} (known: {})", KNOWN.join(", "))]
    UnknownVariable { name: String },
    #[error(
        "SKINPROOF_SHADER: `{value}` is not a file ({} {what})",
        path.display()
    )]
    ShaderNotFile {
        value: String,
        path: PathBuf,
        /// What is at the path instead: `does not exist`, `is a folder`, `is a FIFO (named pipe)`...
        what: String,
    },
    #[error(
        "SKINPROOF_PROFILE: `{value}` is not a file ({} {what})",
        path.display()
    )]
    ProfileNotFile {
        value: String,
        path: PathBuf,
        what: String,
    },
    #[error(
        "SKINPROOF_CASES: `{value}` is not a folder ({} {what})",
        path.display()
    )]
    CasesNotFolder {
        value: String,
        path: PathBuf,
        /// What is at the path instead: `does not exist`, `is a file`, `is a FIFO (named pipe)`...
        what: String,
    },
    #[error("SKINPROOF_FUZZ_CASES: `{0}` is not a count of fuzz inputs (1 to {MAX_FUZZ_CASES})")]
    FuzzCases(String),
    #[error(transparent)]
    Bless(#[from] UnknownBless),
    #[error("SKINPROOF_BLESS is refused when CI is set: goldens are blessed on a developer's machine and reviewed in the pull request")]
    BlessInCi,
    #[error(transparent)]
    Require(#[from] RequireError),
    #[error(
        "SKINPROOF_TIMEOUT_S: `{0}` is not a number of seconds above 0 and at most {MAX_TIMEOUT_S}"
    )]
    Timeout(String),
    #[error("SKINPROOF_EXTRA_CASES: `{0}` is not a case count (0 to {MAX_EXTRA_CASES})")]
    ExtraCases(String),
    #[error(transparent)]
    Bench(#[from] ModeError),
    #[error(transparent)]
    Tools(#[from] crate::tools::UnknownTool),
    #[error("SKINPROOF_MUTATE: unknown value `{0}` (expected 0 or 1)")]
    Mutate(String),
}

/// Whether a `CI` value says the run is in CI: set, and neither empty, `0` nor `false`.
pub fn is_ci(value: Option<&str>) -> bool {
    value.is_some_and(|v| {
        let v = v.trim();
        !v.is_empty() && v != "0" && v != "false"
    })
}

/// Why `path` is not a regular file (`does not exist`, `is a folder`, `is a FIFO (named pipe)`), or
/// `None` when it is one; nothing is opened.
fn not_regular(path: &Path) -> Option<String> {
    match crate::file::check_regular(path) {
        Ok(()) => None,
        Err(e) if e.is_not_found() => Some("does not exist".into()),
        Err(crate::file::ReadError::NotRegular(kind)) => Some(format!("is {kind}")),
        Err(e) => Some(format!("cannot be read: {e}")),
    }
}

/// The project root (`cases/`, `golden/`, `reports/`) of this run: `CARGO_MANIFEST_DIR` as the
/// run's environment gives it (cargo and nextest set it, and nextest remaps it for an archive run
/// elsewhere), else the current folder. Never the path compiled in: a binary built in one checkout
/// and run in another must read and write only the one it runs in.
pub fn project_root() -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_else(|| PathBuf::from("."))
}

/// Prints what wgpu, naga and the drivers log (validation-layer messages among them) on stderr,
/// filtered by `RUST_LOG` as usual, warnings and errors when it is unset. Once per process.
pub fn install_logger() {
    let env = env_logger::Env::default().default_filter_or("warn");
    let _ = env_logger::Builder::from_env(env).try_init();
}

#[derive(Clone, Debug)]
pub struct Config {
    /// The project root: `cases/`, `golden/` and `reports/` live here.
    pub root: PathBuf,
    pub shader: PathBuf,
    /// The shader's layout profile, if `SKINPROOF_PROFILE` names one; otherwise the one beside
    /// the shader, if any, or the built-in contract.
    pub profile: Option<PathBuf>,
    pub cases: PathBuf,
    /// The golden images folder, `golden/`.
    pub goldens: PathBuf,
    /// Where the report and the actual/diff images of mismatches go.
    pub reports: PathBuf,
    pub bless: Bless,
    pub require: Require,
    /// Which shader validators must be installed (`SKINPROOF_REQUIRE_TOOLS`); others SKIP.
    pub tools: crate::tools::Required,
    pub timeout: Duration,
    /// Generated cases added to the ones on disk, to measure how the suite's cost grows.
    pub extra_cases: usize,
    /// The benchmark mode, from `SKINPROOF_BENCH`.
    pub bench: bench::Mode,
    /// Run the mutation check after the suite (`SKINPROOF_MUTATE=1`).
    pub mutate: bool,
}

/// Every variable the harness reads; any other `SKINPROOF_*` name is a typo.
pub const KNOWN: [&str; 11] = [
    "SKINPROOF_SHADER",
    "SKINPROOF_PROFILE",
    "SKINPROOF_CASES",
    "SKINPROOF_BLESS",
    "SKINPROOF_REQUIRE_ADAPTER",
    "SKINPROOF_REQUIRE_TOOLS",
    "SKINPROOF_TIMEOUT_S",
    "SKINPROOF_BENCH",
    "SKINPROOF_EXTRA_CASES",
    "SKINPROOF_FUZZ_CASES",
    "SKINPROOF_MUTATE",
];

/// A bad value of every `SKINPROOF_*` variable, and misspelt names: each is rejected with an error
/// that names the variable and the value. The unit tests and `docs/bad-inputs.md` both use it.
pub const BAD_VALUES: [(&str, &str); 19] = [
    ("SKINPROOF_SHADER", "shaders/missing.wgsl"),
    ("SKINPROOF_PROFILE", "shaders/missing.profile.yaml"),
    ("SKINPROOF_SHADER", "shaders"),
    ("SKINPROOF_CASES", "no-such-cases"),
    ("SKINPROOF_BLESS", "yes"),
    ("SKINPROOF_REQUIRE_ADAPTER", "vulcan"),
    ("SKINPROOF_REQUIRE_ADAPTER", ","),
    ("SKINPROOF_REQUIRE_TOOLS", "spirv-vall"),
    ("SKINPROOF_TIMEOUT_S", "-1"),
    ("SKINPROOF_TIMEOUT_S", "1e30"),
    ("SKINPROOF_TIMEOUT_S", "NaN"),
    ("SKINPROOF_BENCH", "fast"),
    ("SKINPROOF_EXTRA_CASES", "many"),
    ("SKINPROOF_EXTRA_CASES", "1000000000"),
    ("SKINPROOF_FUZZ_CASES", "0"),
    ("SKINPROOF_FUZZ_CASES", "lots"),
    ("SKINPROOF_MUTATE", "yes"),
    ("SKINPROOF_BLES", "1"),
    ("skinproof_bless", "all"),
];

/// Longest GPU deadline `SKINPROOF_TIMEOUT_S` may set (a day): beyond it a hang is never reported.
pub const MAX_TIMEOUT_S: f64 = 86_400.0;
/// Most generated cases `SKINPROOF_EXTRA_CASES` may add.
pub const MAX_EXTRA_CASES: usize = 100_000;
/// Inputs per fuzz property when `SKINPROOF_FUZZ_CASES` is unset: a few seconds in all.
pub const DEFAULT_FUZZ_CASES: u32 = 5_000;
/// Most inputs per fuzz property `SKINPROOF_FUZZ_CASES` may ask for.
pub const MAX_FUZZ_CASES: u32 = 100_000_000;

/// Parses `SKINPROOF_FUZZ_CASES` (the fuzz test's input count): unset or empty is the default, else
/// a whole number from 1 to `MAX_FUZZ_CASES` (`_` separators allowed: `1_000_000`).
pub fn fuzz_cases(value: Option<&str>) -> Result<u32, ConfigError> {
    let v = value.unwrap_or("").trim();
    if v.is_empty() {
        return Ok(DEFAULT_FUZZ_CASES);
    }
    match v.replace('_', "").parse::<u32>() {
        Ok(n) if (1..=MAX_FUZZ_CASES).contains(&n) => Ok(n),
        _ => Err(ConfigError::FuzzCases(v.to_string())),
    }
}

impl Config {
    pub fn from_env(root: &Path) -> Result<Config, ConfigError> {
        // `std::env::vars` panics on a variable that is not UTF-8; only ours must be UTF-8.
        let mut vars = Vec::new();
        for (name, value) in std::env::vars_os() {
            let name = name.to_string_lossy().into_owned();
            match value.into_string() {
                Ok(v) => vars.push((name, v)),
                Err(v) if name.to_ascii_uppercase().starts_with("SKINPROOF_") || name == "CI" => {
                    return Err(ConfigError::NotUtf8 { name, value: v })
                }
                Err(_) => {}
            }
        }
        Self::from_vars(root, vars)
    }

    /// Reads the settings from `(name, value)` pairs.
    pub fn from_vars(root: &Path, vars: Vec<(String, String)>) -> Result<Config, ConfigError> {
        let get = |k: &str| {
            vars.iter()
                .find(|(n, _)| n == k)
                .map(|(_, v)| v.trim().to_string())
        };
        for (name, _) in &vars {
            // `skinproof_bless` is as much a typo as `SKINPROOF_BLES`.
            if name.to_ascii_uppercase().starts_with("SKINPROOF_")
                && !KNOWN.contains(&name.as_str())
            {
                return Err(ConfigError::UnknownVariable { name: name.clone() });
            }
        }
        let path = |k: &str, default: &str| {
            get(k)
                .filter(|v| !v.is_empty())
                .map(|v| root.join(v))
                .unwrap_or_else(|| root.join(default))
        };
        // A path that is given must be there: a typo must not test nothing, or the wrong thing.
        if let Some(v) = get("SKINPROOF_SHADER").filter(|v| !v.is_empty()) {
            let p = root.join(&v);
            if let Some(what) = not_regular(&p) {
                return Err(ConfigError::ShaderNotFile {
                    value: v,
                    path: p,
                    what,
                });
            }
        }
        if let Some(v) = get("SKINPROOF_PROFILE").filter(|v| !v.is_empty()) {
            let p = root.join(&v);
            if let Some(what) = not_regular(&p) {
                return Err(ConfigError::ProfileNotFile {
                    value: v,
                    path: p,
                    what,
                });
            }
        }
        if let Some(v) = get("SKINPROOF_CASES").filter(|v| !v.is_empty()) {
            let p = root.join(&v);
            if !p.is_dir() {
                let what = match not_regular(&p) {
                    None => "is a file".to_string(),
                    Some(what) => what,
                };
                return Err(ConfigError::CasesNotFolder {
                    value: v,
                    path: p,
                    what,
                });
            }
        }
        fuzz_cases(get("SKINPROOF_FUZZ_CASES").as_deref())?;
        let ci = is_ci(get("CI").as_deref());
        let bless = Bless::parse(&get("SKINPROOF_BLESS").unwrap_or_default())?;
        if bless != Bless::Off && ci {
            return Err(ConfigError::BlessInCi);
        }
        let require = Require::parse(get("SKINPROOF_REQUIRE_ADAPTER").as_deref())?;
        let tools = crate::tools::Required::parse(get("SKINPROOF_REQUIRE_TOOLS").as_deref())?;
        let timeout = match get("SKINPROOF_TIMEOUT_S") {
            None => Duration::from_secs(30),
            Some(v) => match v.parse::<f64>() {
                Ok(s) if s.is_finite() && s > 0.0 && s <= MAX_TIMEOUT_S => {
                    Duration::from_secs_f64(s)
                }
                _ => return Err(ConfigError::Timeout(v)),
            },
        };
        let extra_cases = match get("SKINPROOF_EXTRA_CASES").filter(|v| !v.is_empty()) {
            None => 0,
            Some(v) => match v.parse::<usize>() {
                Ok(n) if n <= MAX_EXTRA_CASES => n,
                _ => return Err(ConfigError::ExtraCases(v)),
            },
        };
        let bench = bench::mode_from(get("SKINPROOF_BENCH").as_deref())?;
        let mutate = match get("SKINPROOF_MUTATE").as_deref() {
            None | Some("") | Some("0") => false,
            Some("1") => true,
            Some(other) => return Err(ConfigError::Mutate(other.to_string())),
        };
        Ok(Config {
            mutate,
            extra_cases,
            bench,
            root: root.to_path_buf(),
            shader: path("SKINPROOF_SHADER", "shaders/skinning.wgsl"),
            profile: get("SKINPROOF_PROFILE")
                .filter(|v| !v.is_empty())
                .map(|v| root.join(v)),
            cases: path("SKINPROOF_CASES", "cases"),
            reports: root.join("reports"),
            goldens: root.join("golden"),
            bless,
            require,
            tools,
            timeout,
        })
    }

    /// The settings a printed command must repeat to judge the same thing: `SKINPROOF_SHADER` and
    /// `SKINPROOF_CASES` where they are not the defaults, as shell words followed by a space (empty
    /// with the defaults).
    pub fn rerun_env(&self) -> String {
        let mut env = String::new();
        for (name, path, default) in [
            ("SKINPROOF_SHADER", &self.shader, "shaders/skinning.wgsl"),
            ("SKINPROOF_CASES", &self.cases, "cases"),
        ] {
            if *path != self.root.join(default) {
                let shown = path.strip_prefix(&self.root).unwrap_or(path);
                env.push_str(&format!(
                    "{name}={} ",
                    shell_word(&shown.display().to_string())
                ));
            }
        }
        if let Some(p) = &self.profile {
            let shown = p.strip_prefix(&self.root).unwrap_or(p);
            env.push_str(&format!(
                "SKINPROOF_PROFILE={} ",
                shell_word(&shown.display().to_string())
            ));
        }
        env
    }
}

/// `s` as one shell word: as it is when it is plain, else in single quotes.
fn shell_word(s: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_-./:@%+=,".contains(c);
    if !s.is_empty() && s.chars().all(plain) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rerun_env_repeats_only_settings_that_differ_from_the_defaults() {
        let root = &crate::config::project_root();
        let config = |v: &[(&str, &str)]| Config::from_vars(root, vars(v)).unwrap();
        assert_eq!(config(&[]).rerun_env(), "");
        assert_eq!(config(&[("SKINPROOF_CASES", "cases")]).rerun_env(), "");
        assert_eq!(
            config(&[("SKINPROOF_CASES", "golden")]).rerun_env(),
            "SKINPROOF_CASES=golden "
        );
        let outside = std::env::temp_dir().join("skinproof rerun env");
        std::fs::create_dir_all(&outside).unwrap();
        let shown = config(&[
            ("SKINPROOF_SHADER", "shaders/skinning.wgsl"),
            ("SKINPROOF_CASES", outside.to_str().unwrap()),
        ])
        .rerun_env();
        assert_eq!(
            shown,
            format!("SKINPROOF_CASES='{}' ", outside.display()),
            "{shown}"
        );
        assert_eq!(shell_word("it's"), "'it'\\''s'");
    }

    fn vars(v: &[(&str, &str)]) -> Vec<(String, String)> {
        v.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    #[test]
    fn defaults() {
        let c = Config::from_vars(Path::new("/p"), vec![]).unwrap();
        assert_eq!(c.shader, Path::new("/p/shaders/skinning.wgsl"));
        assert_eq!(c.bless, Bless::Off);
        assert_eq!(c.require, Require::Nothing);
        assert_eq!(c.timeout, Duration::from_secs(30));
    }

    #[test]
    fn bless_refused_in_ci() {
        let e = Config::from_vars(
            Path::new("/p"),
            vars(&[("SKINPROOF_BLESS", "1"), ("CI", "true")]),
        )
        .unwrap_err();
        assert_eq!(e, ConfigError::BlessInCi);
        let e = e.to_string();
        assert!(e.contains("refused"), "{e}");
    }

    #[test]
    fn unknown_values_and_names_are_errors() {
        for v in [
            ("SKINPROOF_BLESS", "yes"),
            ("SKINPROOF_REQUIRE_ADAPTER", "vulcan"),
            ("SKINPROOF_TIMEOUT_S", "-1"),
            ("SKINPROOF_BLES", "1"),
        ] {
            let e = Config::from_vars(Path::new("/p"), vars(&[v]))
                .unwrap_err()
                .to_string();
            assert!(e.contains(v.0) || e.contains(v.1), "{e}");
        }
    }

    #[test]
    fn require_backends() {
        let c = Config::from_vars(
            Path::new("/p"),
            vars(&[("SKINPROOF_REQUIRE_ADAPTER", "vulkan, gl")]),
        )
        .unwrap();
        assert_eq!(
            c.require,
            Require::Backends(vec![wgpu::Backend::Vulkan, wgpu::Backend::Gl])
        );
    }

    #[test]
    fn every_variable_rejects_a_bad_value_by_name() {
        let root = &crate::config::project_root();
        for (name, value) in BAD_VALUES {
            let e = Config::from_vars(root, vars(&[(name, value)]))
                .unwrap_err()
                .to_string();
            assert!(
                e.starts_with(name) || e.starts_with("unknown variable"),
                "{e}"
            );
            let unknown = e.starts_with("unknown variable");
            assert!(
                e.contains(name) && (unknown || e.contains(value)),
                "{name}={value}: {e}"
            );
        }
        // Every known variable has a bad value in the table (the fuzz count is checked here too).
        for k in KNOWN {
            assert!(
                BAD_VALUES.iter().any(|(n, _)| *n == k),
                "{k} has no bad-value test"
            );
        }
    }

    #[test]
    fn good_values_of_every_variable() {
        let root = &crate::config::project_root();
        let c = Config::from_vars(
            root,
            vars(&[
                ("SKINPROOF_SHADER", "shaders/skinning.wgsl"),
                ("SKINPROOF_CASES", "cases"),
                ("SKINPROOF_BLESS", "new"),
                ("SKINPROOF_REQUIRE_ADAPTER", "vk, GLES,vulkan"),
                ("SKINPROOF_TIMEOUT_S", "2.5"),
                ("SKINPROOF_BENCH", "Full"),
                ("SKINPROOF_EXTRA_CASES", "3"),
                ("SKINPROOF_FUZZ_CASES", "1_000_000"),
            ]),
        )
        .unwrap();
        assert_eq!(
            c.require,
            Require::Backends(vec![wgpu::Backend::Vulkan, wgpu::Backend::Gl])
        );
        assert_eq!(c.timeout, Duration::from_millis(2500));
        assert_eq!((c.bench, c.extra_cases), (bench::Mode::Full, 3));
        assert_eq!(fuzz_cases(Some("1_000_000")), Ok(1_000_000));
        assert_eq!(fuzz_cases(None), Ok(DEFAULT_FUZZ_CASES));
    }
}
