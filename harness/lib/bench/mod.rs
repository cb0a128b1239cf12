//! The benchmark tables of the report (never pass/fail tests): the CPU tiers against their own
//! bounds, the palette builds, and the fast SIMD skinning path and core clock that only they use.
//!
//! Each fast row of the CPU tiers is timed beside its bounds (`bound.rs`): the memory bound, a
//! streaming loop moving exactly the row's bytes (the skinning's 44 B read: position 12, joints
//! 16, weights 16; 12 B written; the static transform's 12 and 12) with the same kernel family,
//! stores and threads; and the arithmetic bound, the row's flops per vertex (counted from the
//! kernel, `fast::flops_per_vertex`) at the core's FMA peak measured in the run. Every row is
//! warmed up first, then timed in samples of enough calls to last a minimum time, the largest
//! tier's each from cold caches (`evict.rs`); median, min and max are per call (`measure.rs`).

use glam::{DQuat, DVec3};
use serde::{Deserialize, Serialize};

use crate::rig::{Pose, Skeleton};

mod bound;
pub mod clock;
mod cpu;
mod evict;
pub mod fast;
mod markdown;
mod measure;
mod palette_build;

pub use bound::{Binding, FmaPeak};
pub use cpu::{cpu_tiers, CpuBench, CpuRow, KernelTrial, Steadiness, TIERS};
pub use markdown::{bounds_markdown, markdown};
pub use palette_build::{palette_build, PaletteRow, PALETTE_JOINTS};

/// The environment variable that selects the benchmark mode.
pub const ENV: &str = "SKINPROOF_BENCH";

/// How much benchmarking to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    Off,
    /// The default: a couple of seconds of CPU benchmarks, few repetitions.
    Quick,
    /// More repetitions, tighter medians, the reference oracle at every size.
    Full,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::Off => "off",
            Mode::Quick => "quick",
            Mode::Full => "full",
        }
    }

    /// The mode `SKINPROOF_BENCH` asks for.
    pub fn from_env() -> Result<Mode, ModeError> {
        match std::env::var_os(ENV) {
            None => mode_from(None),
            Some(v) => match v.to_str() {
                Some(s) => mode_from(Some(s)),
                None => Err(ModeError::NotUtf8(v)),
            },
        }
    }
}

/// Parses a value of `SKINPROOF_BENCH`: `off`, `quick` (also when unset or empty) or `full`, in any case.
pub fn mode_from(value: Option<&str>) -> Result<Mode, ModeError> {
    let v = value.unwrap_or("").trim();
    match v.to_ascii_lowercase().as_str() {
        "" | "quick" => Ok(Mode::Quick),
        "off" => Ok(Mode::Off),
        "full" => Ok(Mode::Full),
        _ => Err(ModeError::Unknown(v.to_string())),
    }
}

/// A value of `SKINPROOF_BENCH` that names no mode.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ModeError {
    #[error("{ENV}: unknown value `{0}` (expected off, quick or full)")]
    Unknown(String),
    #[error("{ENV}: value {0:?} is not UTF-8 (expected off, quick or full)")]
    NotUtf8(std::ffi::OsString),
}

/// The chain the tiers skin: 64 joints, 1 apart, each bent a little about Z and X.
pub(crate) fn bent_chain(joints: usize, segment: f64) -> (Skeleton, Pose) {
    let skeleton = Skeleton::chain(joints, segment);
    let mut pose = skeleton.bind_pose();
    for (j, local) in pose.locals.iter_mut().enumerate() {
        let axis = DVec3::new(0.2, 0.0, 1.0).normalize();
        local.rotation = DQuat::from_axis_angle(axis, (3.0 + (j % 5) as f64).to_radians());
    }
    (skeleton, pose)
}

/// The CPU's model name from /proc/cpuinfo with its family, model and stepping, or "unknown CPU".
pub fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .map_or_else(|_| cpu_model_from(""), |s| cpu_model_from(&s))
}

/// The first processor's model name in `cpuinfo`, then its family, model and stepping: a virtual
/// machine often names only the brand ("AMD EPYC"), and the three numbers still tell one core
/// generation from another (family 23 model 49 is a Zen 2 EPYC, family 25 model 1 a Zen 3).
fn cpu_model_from(cpuinfo: &str) -> String {
    let field = |key: &str| {
        cpuinfo
            .lines()
            .take_while(|l| !l.trim().is_empty())
            .filter_map(|l| l.split_once(':'))
            .find(|(k, _)| k.trim() == key)
            .map(|(_, v)| v.trim().to_string())
            .filter(|v| !v.is_empty())
    };
    let name = field("model name").unwrap_or_else(|| "unknown CPU".to_string());
    let ids: Vec<String> = [
        ("family", "cpu family"),
        ("model", "model"),
        ("stepping", "stepping"),
    ]
    .into_iter()
    .filter_map(|(label, key)| Some(format!("{label} {}", field(key)?)))
    .collect();
    if ids.is_empty() {
        name
    } else {
        format!("{name} ({})", ids.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cpu_is_named_with_its_family_model_and_stepping() {
        let info = "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 23\nmodel\t\t: 49\n\
                    model name\t: AMD EPYC\nstepping\t: 0\n\nprocessor\t: 1\nmodel\t\t: 7\n";
        assert_eq!(
            cpu_model_from(info),
            "AMD EPYC (family 23, model 49, stepping 0)"
        );
        // Only the first processor counts; missing numbers are left out; no name at all is said.
        assert_eq!(
            cpu_model_from("model name : Neoverse\n\nmodel : 7\n"),
            "Neoverse"
        );
        assert_eq!(cpu_model_from(""), "unknown CPU");
        assert_eq!(cpu_model_from("cpu family : 6\n"), "unknown CPU (family 6)");
    }

    #[test]
    fn mode_parses_the_allowed_values_and_defaults_to_quick() {
        assert_eq!(mode_from(None), Ok(Mode::Quick));
        assert_eq!(mode_from(Some("")), Ok(Mode::Quick));
        assert_eq!(mode_from(Some("quick")), Ok(Mode::Quick));
        assert_eq!(mode_from(Some("off")), Ok(Mode::Off));
        assert_eq!(mode_from(Some("FULL")), Ok(Mode::Full));
        let e = mode_from(Some("fast")).unwrap_err().to_string();
        assert!(e.contains(ENV) && e.contains("fast"), "{e}");
        assert!(
            e.contains("off") && e.contains("quick") && e.contains("full"),
            "{e}"
        );
    }

    #[test]
    fn off_runs_nothing() {
        assert!(cpu_tiers(Mode::Off).rows.is_empty());
        assert!(palette_build(Mode::Off).is_empty());
    }

    /// Prints the benchmark tables; run with `cargo test --release --lib -- --ignored --nocapture bench`.
    /// Never a pass/fail test on timings.
    #[test]
    #[ignore]
    fn bench_print_markdown() {
        let mode = Mode::from_env().unwrap();
        let t = std::time::Instant::now();
        let cpu = cpu_tiers(mode);
        let pal = palette_build(mode);
        println!("{}", markdown(&cpu, &pal));
        println!("total {:.0} ms", t.elapsed().as_secs_f64() * 1e3);
    }
}
