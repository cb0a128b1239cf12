//! The run's settings from `SKINPROOF_*` variables; a typo or an unknown value is an error, not a default.

use std::path::{Path, PathBuf};
use std::time::Duration;

/// Which adapters must be present, from `SKINPROOF_REQUIRE_ADAPTER`.
#[derive(Clone, Debug, PartialEq)]
pub enum Require {
    /// No adapter: GPU trials are ignored with a reason.
    Nothing,
    /// `1`: at least one adapter.
    Any,
    /// `vulkan,gl`: at least one adapter on each backend named.
    Backends(Vec<String>),
}

#[derive(Clone, Debug)]
pub struct Config {
    /// The project root: `cases/`, `golden/` and `reports/` live here.
    pub root: PathBuf,
    pub shader: PathBuf,
    pub cases: PathBuf,
    /// Where the report and the actual/diff images of mismatches go.
    pub reports: PathBuf,
    pub bless: bool,
    pub require: Require,
    pub timeout: Duration,
    /// Generated cases added to the ones on disk, to measure how the suite's cost grows.
    pub extra_cases: usize,
    /// The benchmark mode, as `SKINPROOF_BENCH` gives it (off, quick, full).
    pub bench: String,
}

/// Every variable the harness reads; any other `SKINPROOF_*` name is a typo.
pub const KNOWN: [&str; 7] = [
    "SKINPROOF_SHADER",
    "SKINPROOF_CASES",
    "SKINPROOF_BLESS",
    "SKINPROOF_REQUIRE_ADAPTER",
    "SKINPROOF_TIMEOUT_S",
    "SKINPROOF_BENCH",
    "SKINPROOF_EXTRA_CASES",
];

impl Config {
    pub fn from_env(root: &Path) -> Result<Config, String> {
        Self::from_vars(root, std::env::vars().collect())
    }

    /// Reads the settings from `(name, value)` pairs.
    pub fn from_vars(root: &Path, vars: Vec<(String, String)>) -> Result<Config, String> {
        let get = |k: &str| {
            vars.iter()
                .find(|(n, _)| n == k)
                .map(|(_, v)| v.trim().to_string())
        };
        for (name, _) in &vars {
            if name.starts_with("SKINPROOF_") && !KNOWN.contains(&name.as_str()) {
                return Err(format!(
                    "unknown variable {name} (known: {})",
                    KNOWN.join(", ")
                ));
            }
        }
        let path = |k: &str, default: &str| {
            get(k)
                .filter(|v| !v.is_empty())
                .map(|v| root.join(v))
                .unwrap_or_else(|| root.join(default))
        };
        let ci = get("CI").is_some_and(|v| !v.is_empty() && v != "0" && v != "false");
        let bless = match get("SKINPROOF_BLESS").as_deref() {
            None | Some("") | Some("0") => false,
            Some("1") => true,
            Some(other) => {
                return Err(format!(
                    "SKINPROOF_BLESS: unknown value `{other}` (expected 0 or 1)"
                ))
            }
        };
        if bless && ci {
            return Err("SKINPROOF_BLESS is refused when CI is set: goldens are blessed on a developer's machine and reviewed in the pull request".into());
        }
        let require = match get("SKINPROOF_REQUIRE_ADAPTER").as_deref() {
            None | Some("") | Some("0") => Require::Nothing,
            Some("1") => Require::Any,
            Some(list) => {
                crate::gpu::adapter::parse_backends(list)
                    .map_err(|e| format!("SKINPROOF_REQUIRE_ADAPTER: {e}"))?;
                Require::Backends(
                    list.split(',')
                        .map(|s| s.trim().to_ascii_lowercase())
                        .filter(|s| !s.is_empty())
                        .collect(),
                )
            }
        };
        let timeout = match get("SKINPROOF_TIMEOUT_S") {
            None => Duration::from_secs(30),
            Some(v) => match v.parse::<f64>() {
                Ok(s) if s.is_finite() && s > 0.0 => Duration::from_secs_f64(s),
                _ => {
                    return Err(format!(
                        "SKINPROOF_TIMEOUT_S: `{v}` is not a positive number of seconds"
                    ))
                }
            },
        };
        let extra_cases = match get("SKINPROOF_EXTRA_CASES").filter(|v| !v.is_empty()) {
            None => 0,
            Some(v) => v
                .parse::<usize>()
                .map_err(|_| format!("SKINPROOF_EXTRA_CASES: `{v}` is not a case count"))?,
        };
        let bench = get("SKINPROOF_BENCH")
            .unwrap_or_default()
            .to_ascii_lowercase();
        if !["", "off", "quick", "full"].contains(&bench.as_str()) {
            return Err(format!(
                "SKINPROOF_BENCH: unknown value `{bench}` (expected off, quick or full)"
            ));
        }
        Ok(Config {
            extra_cases,
            bench: if bench.is_empty() {
                "quick".into()
            } else {
                bench
            },
            root: root.to_path_buf(),
            shader: path("SKINPROOF_SHADER", "shaders/skinning.wgsl"),
            cases: path("SKINPROOF_CASES", "cases"),
            reports: root.join("reports"),
            bless,
            require,
            timeout,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(v: &[(&str, &str)]) -> Vec<(String, String)> {
        v.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    #[test]
    fn defaults() {
        let c = Config::from_vars(Path::new("/p"), vec![]).unwrap();
        assert_eq!(c.shader, Path::new("/p/shaders/skinning.wgsl"));
        assert!(!c.bless);
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
            let e = Config::from_vars(Path::new("/p"), vars(&[v])).unwrap_err();
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
            Require::Backends(vec!["vulkan".into(), "gl".into()])
        );
    }
}
