//! Golden images: paths, atomic writes, bless modes, provenance sidecars, the comparison figures, and (in `workflow`) the verdict and what a bless writes.

use std::path::{Path, PathBuf};

use image::RgbaImage;
use serde::{Deserialize, Serialize};

use crate::compare::{self, Metric};
use crate::file::{read_limited, write_atomic, MAX_MODEL_BYTES, MAX_SMALL_BYTES};

mod accept;
mod workflow;

pub use accept::{accept, AcceptError, Accepted, Candidate};
pub use workflow::{Adapter, Goldens, Judgement, Settings, Subject, Tolerance};

#[derive(Debug, thiserror::Error)]
pub enum GoldenError {
    #[error("{path}: cannot read golden: {message}")]
    Read { path: String, message: String },
    #[error("{path}: cannot write: {message}")]
    Write { path: String, message: String },
}

/// What `SKINPROOF_BLESS` asks for, like insta's modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bless {
    /// Compare only; a missing or differing golden fails.
    Off,
    /// Write goldens that do not exist yet; existing ones are compared, never touched.
    New,
    /// Also rewrite goldens that differ; matching ones stay byte-identical.
    All,
}

/// A `SKINPROOF_BLESS` value that names no mode.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("SKINPROOF_BLESS: unknown value `{0}` (expected new, all, or 1 for all)")]
pub struct UnknownBless(pub String);

impl Bless {
    pub fn parse(value: &str) -> Result<Bless, UnknownBless> {
        match value {
            "" | "0" => Ok(Bless::Off),
            "new" => Ok(Bless::New),
            "all" | "1" => Ok(Bless::All),
            other => Err(UnknownBless(other.to_string())),
        }
    }
}

/// `<goldens>/<name>.png`.
pub fn path(goldens: &Path, name: &str) -> PathBuf {
    goldens.join(format!("{name}.png"))
}

/// The provenance sidecar of a golden: `golden/<name>.json`.
pub fn sidecar_path(png: &Path) -> PathBuf {
    png.with_extension("json")
}

/// The golden image, `None` when there is none yet; a corrupt file, or one that is not a regular
/// file, is an error.
pub fn load(path: &Path) -> Result<Option<RgbaImage>, GoldenError> {
    let read_error = |message: String| GoldenError::Read {
        path: path.display().to_string(),
        message,
    };
    let bytes = match read_limited(path, MAX_MODEL_BYTES) {
        Ok(bytes) => bytes,
        Err(e) if e.is_not_found() => return Ok(None),
        Err(e) => return Err(read_error(e.to_string())),
    };
    image::load_from_memory_with_format(&bytes, image::ImageFormat::Png)
        .map(|img| Some(img.to_rgba8()))
        .map_err(|e| read_error(e.to_string()))
}

/// Encodes `img` as PNG and writes it atomically.
pub fn write_png(path: &Path, img: &RgbaImage) -> Result<(), GoldenError> {
    let mut png = Vec::new();
    img.write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .map_err(|e| write_error(path, e))?;
    write_atomic(path, &png).map_err(|e| write_error(path, e))
}

fn write_error(path: &Path, e: impl std::fmt::Display) -> GoldenError {
    GoldenError::Write {
        path: path.display().to_string(),
        message: e.to_string(),
    }
}

/// Where a golden came from: written beside it at bless, read back to flag stale goldens.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Provenance {
    pub adapter: String,
    pub adapter_name: String,
    pub backend: String,
    pub driver: String,
    pub driver_info: String,
    pub wgpu: String,
    pub naga: String,
    /// SHA-256 of the shader source and of the case file text at bless.
    pub shader_sha256: String,
    pub case_sha256: String,
}

impl Provenance {
    /// The sidecar of the golden `png`: `Ok(None)` when there is none, an error (what is wrong
    /// with it) when it cannot be read or is not a provenance record.
    pub fn load(png: &Path) -> Result<Option<Provenance>, String> {
        let bytes = match read_limited(&sidecar_path(png), MAX_SMALL_BYTES) {
            Ok(bytes) => bytes,
            Err(e) if e.is_not_found() => return Ok(None),
            Err(e) => return Err(e.to_string()),
        };
        serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|e| e.to_string())
    }

    /// Why the golden may be stale: the shader or the case changed since it was blessed.
    pub fn staleness(&self, shader_sha256: &str, case_sha256: &str) -> Option<String> {
        let mut why = Vec::new();
        if self.shader_sha256 != shader_sha256 {
            why.push("the shader");
        }
        if self.case_sha256 != case_sha256 {
            why.push("the case file");
        }
        (!why.is_empty()).then(|| {
            format!(
                "{} changed since the golden was blessed on {}",
                why.join(" and "),
                self.adapter
            )
        })
    }
}

/// Hex SHA-256 of some bytes.
pub fn sha256(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The version of a dependency as Cargo.lock pins it (for provenance), or "unknown".
pub fn locked_version(root: &Path, package: &str) -> String {
    let Ok(lock) = std::fs::read_to_string(root.join("Cargo.lock")) else {
        return "unknown".into();
    };
    let needle = format!("name = \"{package}\"\nversion = \"");
    lock.find(&needle)
        .and_then(|i| lock[i + needle.len()..].split('"').next())
        .unwrap_or("unknown")
        .to_string()
}

fn write_sidecar(png: &Path, provenance: &Provenance) -> Result<(), GoldenError> {
    let json = serde_json::to_string_pretty(provenance).unwrap_or_default() + "\n";
    let sidecar = sidecar_path(png);
    write_atomic(&sidecar, json.as_bytes()).map_err(|e| write_error(&sidecar, e))
}

/// Where the actual and diff images of a mismatch go: `<reports>/diff/<case>--<adapter>.{actual,diff}.png`.
pub fn artifact_paths(reports: &Path, case: &str, adapter_tag: &str) -> (PathBuf, PathBuf) {
    let stem = artifact_stem(reports, case, adapter_tag);
    (
        stem.with_extension("actual.png"),
        stem.with_extension("diff.png"),
    )
}

/// Where the FLIP heat map of a mismatch goes: `<reports>/diff/<case>--<adapter>.flip.png`.
pub fn flip_map_path(reports: &Path, case: &str, adapter_tag: &str) -> PathBuf {
    artifact_stem(reports, case, adapter_tag).with_extension("flip.png")
}

/// `<reports>/diff/<case>--<adapter>` (an adapter's `/` as `-`), to which each artifact adds its
/// extension; a `.` in the case name stays in the stem.
fn artifact_stem(reports: &Path, case: &str, adapter_tag: &str) -> PathBuf {
    reports
        .join("diff")
        .join(format!("{case}--{}.x", adapter_tag.replace('/', "-")))
}

/// Removes the actual, diff and FLIP images of one case and adapter, if there are any.
pub fn clear_artifacts(reports: &Path, case: &str, adapter_tag: &str) {
    let (actual, diff) = artifact_paths(reports, case, adapter_tag);
    for p in [actual, diff, flip_map_path(reports, case, adapter_tag)] {
        // Absent is the usual case; a file that cannot go is left for the next run.
        let _ = std::fs::remove_file(p);
    }
}

/// The exact command that blesses the golden of one case from one adapter (`tag`) with
/// `SKINPROOF_BLESS=<mode>` (`all` or `new`); `env` repeats the settings of this run that choose
/// the shader and the cases (`Config::rerun_env`). `--exact` with the whole trial name: a bare
/// filter is a substring, and `two_joints` would bless `bend_two_joints` too.
pub fn bless_command(env: &str, mode: &str, case: &str, tag: &str) -> String {
    let trial = shell_quote(&trial_name(case, tag));
    format!(
        "{env}SKINPROOF_BLESS={mode} cargo test --release --test conformance -- --exact {trial}"
    )
}

/// The trial name of the golden comparison of one case on one adapter, as the runner names it.
pub fn trial_name(case: &str, tag: &str) -> String {
    format!("{case}::render_matches_golden [{tag}]")
}

/// The `skinproof accept` command that writes this trial's actual image as its golden.
pub fn accept_command(case: &str, tag: &str) -> String {
    format!(
        "cargo run --release --bin skinproof -- accept --exact {}",
        shell_quote(&trial_name(case, tag))
    )
}

/// `text` in single quotes for a POSIX shell.
pub fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// The figures of one comparison, for the report's review section.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Review {
    pub golden: String,
    pub actual: Option<String>,
    pub diff: Option<String>,
    pub metric: Metric,
    pub differing_pixels: u64,
    /// Pixels beyond the channel tolerance that a sub-pixel shift explains (not in
    /// `differing_pixels`).
    #[serde(default)]
    pub shifted_pixels: u64,
    pub max_channel: u8,
    pub flip_mean: f64,
    /// The FLIP value at `flip_percentile`.
    pub flip_percentile_value: f64,
    pub flip_percentile: f64,
    /// Why the golden may be stale, if it may.
    pub stale: Option<String>,
    /// The FLIP error map as a heat map (magma ramp), relative to the reports folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flip_map: Option<String>,
    /// The case file, relative to the project root, for `skinproof accept`'s staleness check.
    #[serde(default)]
    pub case_file: String,
    /// What a golden blessed from this render records: the shader's and the case's SHA-256 at
    /// run time, the adapter and the versions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provenance: Option<Provenance>,
    /// The golden's sidecar as it was at run time, to show what changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous: Option<Provenance>,
    /// Whether only coverage was compared (a shader of its own colour): its actual image is a
    /// mask, never a golden.
    #[serde(default)]
    pub coverage_only: bool,
    /// The command that blesses this golden by running the trial again.
    #[serde(default)]
    pub bless: String,
}

/// The FLIP error map between two same-size images; `None` for sizes that differ.
fn flip_error(expected: &RgbaImage, actual: &RgbaImage) -> Option<nv_flip::FlipImageFloat> {
    if expected.dimensions() != actual.dimensions() {
        return None;
    }
    let rgb =
        |img: &RgbaImage| -> Vec<u8> { img.pixels().flat_map(|p| [p[0], p[1], p[2]]).collect() };
    let (w, h) = expected.dimensions();
    let reference = nv_flip::FlipImageRgb8::with_data(w, h, &rgb(expected));
    let test = nv_flip::FlipImageRgb8::with_data(w, h, &rgb(actual));
    Some(nv_flip::flip(
        reference,
        test,
        nv_flip::DEFAULT_PIXELS_PER_DEGREE,
    ))
}

/// The FLIP error map of two same-size images as a heat map, FLIP's own magma ramp (black for
/// no error, through purple and orange, to pale yellow for the largest); `None` for sizes that
/// differ.
pub fn flip_heat_map(expected: &RgbaImage, actual: &RgbaImage) -> Option<RgbaImage> {
    let error = flip_error(expected, actual)?;
    let rgb = error.apply_color_lut(&nv_flip::magma_lut());
    let (w, h) = (rgb.width(), rgb.height());
    let rgba: Vec<u8> = rgb
        .to_vec()
        .chunks_exact(3)
        .flat_map(|p| [p[0], p[1], p[2], 255])
        .collect();
    RgbaImage::from_raw(w, h, rgba)
}

/// FLIP mean and the value at `percentile` (0-1) of the error map between two same-size images.
pub fn flip(expected: &RgbaImage, actual: &RgbaImage, percentile: f64) -> (f64, f64) {
    let Some(error) = flip_error(expected, actual) else {
        return (1.0, 1.0);
    };
    let mut pool = nv_flip::FlipPool::from_image(&error);
    (
        pool.mean() as f64,
        pool.get_percentile(percentile as f32, false) as f64,
    )
}

/// Compares an image with its golden by every metric; `diff` is the per-channel diff image.
pub fn measure(
    expected: &RgbaImage,
    actual: &RgbaImage,
    threshold: u8,
    subpixel: bool,
    percentile: f64,
) -> (compare::ImageDiff, f64, f64) {
    let d = compare::diff_images_with(expected, actual, threshold, subpixel);
    let (mean, p) = if d.max_channel == 0 {
        (0.0, 0.0)
    } else {
        flip(expected, actual, percentile)
    };
    (d, mean, p)
}

/// The coverage of an image: every pixel something was drawn on (alpha above 0) white, the rest
/// transparent black. Renders of a shader whose colour is its own compare with the goldens so.
pub fn coverage(image: &RgbaImage) -> RgbaImage {
    let mut out = image.clone();
    for p in out.pixels_mut() {
        p.0 = if p.0[3] > 0 { [255; 4] } else { [0; 4] };
    }
    out
}

/// `actual`'s coverage with each pixel that differs from `expected`'s on `expected`'s silhouette
/// edge (a pixel with a neighbour of the other kind) set as expected: a shader that reads
/// quantised weights or computes the camera another way may move the silhouette by a pixel, never
/// more. Coverage comparisons only.
pub fn forgive_edges(expected: &RgbaImage, actual: &RgbaImage) -> RgbaImage {
    let mut out = actual.clone();
    if expected.dimensions() != actual.dimensions() {
        return out;
    }
    let (w, h) = expected.dimensions();
    let covered = |x: u32, y: u32| expected.get_pixel(x, y).0[3] > 0;
    for y in 0..h {
        for x in 0..w {
            if expected.get_pixel(x, y) == actual.get_pixel(x, y) {
                continue;
            }
            let here = covered(x, y);
            let edge = (y.saturating_sub(1)..=(y + 1).min(h - 1)).any(|ny| {
                (x.saturating_sub(1)..=(x + 1).min(w - 1)).any(|nx| covered(nx, ny) != here)
            });
            if edge {
                out.put_pixel(x, y, *expected.get_pixel(x, y));
            }
        }
    }
    out
}

/// Whether `actual` differs from `expected` in colour alone: it covers the pixels `expected`
/// covers, give or take `expected`'s silhouette edge ([`forgive_edges`]), and more of the pixels
/// that differ by more than `tolerance` are covered in both than in one (a thin line is all edge,
/// so a line drawn across a golden is still a change of coverage).
pub fn colours_alone(expected: &RgbaImage, actual: &RgbaImage, tolerance: u8) -> bool {
    if expected.dimensions() != actual.dimensions() {
        return false;
    }
    let e = coverage(expected);
    if forgive_edges(&e, &coverage(actual)) != e {
        return false;
    }
    let (mut both, mut one) = (0u64, 0u64);
    for (x, a) in expected.pixels().zip(actual.pixels()) {
        let far = x.0.iter().zip(a.0).any(|(&p, q)| p.abs_diff(q) > tolerance);
        match (far, x.0[3] > 0, a.0[3] > 0) {
            (false, _, _) | (true, false, false) => {}
            (true, true, true) => both += 1,
            (true, _, _) => one += 1,
        }
    }
    both > one
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Rgba;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("skinproof-golden-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn png_round_trip_and_missing_is_none() {
        let dir = scratch("png");
        let p = dir.join("g.png");
        assert!(load(&p).unwrap().is_none());
        let img = RgbaImage::from_pixel(3, 2, Rgba([1, 2, 3, 255]));
        write_png(&p, &img).unwrap();
        assert_eq!(load(&p).unwrap().unwrap(), img);
        std::fs::write(&p, b"not a png").unwrap();
        assert!(load(&p).unwrap_err().to_string().contains("g.png"));
        // No temporary file is left behind.
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn bless_modes_parse_strictly() {
        assert_eq!(Bless::parse("new").unwrap(), Bless::New);
        assert_eq!(Bless::parse("1").unwrap(), Bless::All);
        assert!(Bless::parse("yes")
            .unwrap_err()
            .to_string()
            .contains("`yes`"));
    }

    /// The arguments after `--` of a printed command, as a POSIX shell splits them (single
    /// quotes and the `'\''` escape only: all `bless_command` writes).
    fn args_after_dashes(command: &str) -> Vec<String> {
        let tail = command.split_once(" -- ").unwrap().1;
        let (mut args, mut cur, mut quoted, mut any) = (Vec::new(), String::new(), false, false);
        let mut chars = tail.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\'' => (quoted, any) = (!quoted, true),
                '\\' if !quoted => cur.extend(chars.next()),
                ' ' if !quoted => {
                    if any || !cur.is_empty() {
                        args.push(std::mem::take(&mut cur));
                    }
                    any = false;
                }
                c => cur.push(c),
            }
        }
        if any || !cur.is_empty() {
            args.push(cur);
        }
        args
    }

    #[test]
    fn a_bless_command_selects_its_own_trial_only() {
        // Cases whose names contain each other, and two adapters: libtest-mimic itself decides
        // which trials the printed command runs.
        let names = [
            "two_joints::render_matches_golden [vulkan/llvmpipe]",
            "two_joints::render_matches_golden [gl/it's (quoted)]",
            "bend_two_joints::render_matches_golden [vulkan/llvmpipe]",
            "two_joints::render_covers_bind_pose [vulkan/llvmpipe]",
        ];
        for (case, tag) in [
            ("two_joints", "vulkan/llvmpipe"),
            ("two_joints", "gl/it's (quoted)"),
            ("bend_two_joints", "vulkan/llvmpipe"),
        ] {
            let cmd = bless_command("SKINPROOF_SHADER=x.wgsl ", "all", case, tag);
            assert!(
                cmd.starts_with("SKINPROOF_SHADER=x.wgsl SKINPROOF_BLESS=all cargo test --release --test conformance -- --exact "),
                "{cmd}"
            );
            let mut args = vec!["conformance".to_string()];
            args.extend(args_after_dashes(&cmd));
            let mut parsed = libtest_mimic::Arguments::from_iter(args);
            parsed.test_threads = Some(1);
            // Its summary goes to a file, not into this test's output.
            let log = scratch("bless-filter");
            std::fs::create_dir_all(&log).unwrap();
            parsed.logfile = Some(log.join("log").display().to_string());
            let trials = names
                .iter()
                .map(|n| libtest_mimic::Trial::test(*n, || Ok(())))
                .collect();
            let ran = libtest_mimic::run(&parsed, trials);
            assert_eq!(ran.num_passed, 1, "{cmd}");
            assert_eq!(ran.num_filtered_out, names.len() as u64 - 1, "{cmd}");
            std::fs::remove_dir_all(&log).unwrap();
        }
    }

    #[test]
    fn staleness_names_what_changed() {
        let p = Provenance {
            adapter: "vulkan/llvmpipe".into(),
            adapter_name: String::new(),
            backend: String::new(),
            driver: String::new(),
            driver_info: String::new(),
            wgpu: String::new(),
            naga: String::new(),
            shader_sha256: "a".into(),
            case_sha256: "b".into(),
        };
        assert_eq!(p.staleness("a", "b"), None);
        assert!(p
            .staleness("x", "b")
            .unwrap()
            .starts_with("the shader changed"));
        assert!(p
            .staleness("x", "y")
            .unwrap()
            .starts_with("the shader and the case file"));
    }

    #[test]
    fn flip_sees_a_changed_image_and_not_an_equal_one() {
        let a = RgbaImage::from_pixel(32, 32, Rgba([40, 200, 128, 255]));
        let mut b = a.clone();
        for x in 0..32 {
            b.put_pixel(x, 16, Rgba([255, 0, 128, 255]));
        }
        assert_eq!(measure(&a, &a, 0, false, 0.99).1, 0.0);
        let (d, mean, p) = measure(&a, &b, 0, false, 0.99);
        assert_eq!(d.differing, 32);
        assert!(mean > 0.0 && p > mean, "{mean} {p}");
    }

    #[test]
    fn colours_alone_is_the_same_silhouette_give_or_take_its_edge() {
        // A 4x4 square drawn at (x0, 2) on a transparent 8x8 image.
        let square = |x0: u32, colour: [u8; 4]| {
            let mut i = RgbaImage::new(8, 8);
            for y in 2..6 {
                for x in x0..x0 + 4 {
                    i.put_pixel(x, y, Rgba(colour));
                }
            }
            i
        };
        let red = square(2, [255, 0, 0, 255]);
        let blue = [0, 0, 255, 255];
        assert!(colours_alone(&red, &square(2, blue), 1));
        // Within the tolerance, nothing differs: not a change of colour.
        assert!(!colours_alone(&red, &square(2, [254, 0, 0, 255]), 1));
        // Moved by one pixel: every changed pixel is on the golden's edge, and most of those
        // that differ are covered in both.
        assert!(colours_alone(&red, &square(3, blue), 1));
        assert!(!colours_alone(&red, &square(3, [255, 0, 0, 255]), 1));
        // Moved by two: a pixel inside the golden's square is no longer covered.
        assert!(!colours_alone(&red, &square(4, blue), 1));
        let mut speck = square(2, blue);
        speck.put_pixel(0, 7, Rgba(blue));
        assert!(!colours_alone(&red, &speck, 1));
        // A line across the golden is all edge, but mostly where the render drew nothing.
        let mut line = red.clone();
        for x in 0..8 {
            line.put_pixel(x, 4, Rgba([255; 4]));
        }
        assert!(!colours_alone(&line, &red, 1));
        assert!(!colours_alone(&red, &RgbaImage::new(8, 9), 1));
    }

    #[test]
    fn versions_come_from_the_lockfile() {
        let root = &crate::config::project_root();
        assert!(locked_version(root, "wgpu").starts_with("30."));
    }
}
