//! The golden workflow of one run: which bless mode writes what, corrupt and stale goldens, the artifacts of a mismatch, and the printed bless command.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use image::RgbaImage;

use super::{
    artifact_paths, bless_command, flip_heat_map, flip_map_path, load, measure, path, sha256,
    write_png, write_sidecar, Bless, GoldenError, Metric, Provenance, Review,
};
use crate::compare::ImageDiff;

/// The golden folder and what this run may do to it. The suite holds one and hands it to every
/// golden check, so "written at most once per run" means once per suite.
pub struct Goldens {
    root: PathBuf,
    dir: PathBuf,
    reports: PathBuf,
    bless: Bless,
    shader_sha256: String,
    rerun_env: String,
    /// The wgpu and naga versions a blessed golden records, read from Cargo.lock when first needed.
    versions: OnceLock<(String, String)>,
    /// Which adapter wrote each golden in this run: two adapters that disagree fail instead of
    /// overwriting each other.
    blessed: Mutex<HashMap<PathBuf, String>>,
}

/// Where a run's goldens live and what it asks of them.
pub struct Settings {
    /// The project root: shown paths are relative to it, and its Cargo.lock gives the versions.
    pub root: PathBuf,
    /// The golden images folder.
    pub dir: PathBuf,
    /// The reports folder, for actual and diff images.
    pub reports: PathBuf,
    pub bless: Bless,
    /// SHA-256 of the shader source, for provenance and staleness.
    pub shader_sha256: String,
    /// The settings a printed command repeats (`Config::rerun_env`).
    pub rerun_env: String,
}

/// The adapter that rendered, as a blessed golden's provenance records it.
#[derive(Clone, Copy, Debug)]
pub struct Adapter<'a> {
    pub tag: &'a str,
    pub name: &'a str,
    pub backend: &'a str,
    pub driver: &'a str,
    pub driver_info: &'a str,
}

/// How close a render must be to its golden (a case's `golden` settings).
#[derive(Clone, Copy, Debug)]
pub struct Tolerance {
    pub metric: Metric,
    pub channel_tolerance: u8,
    /// Forgive pixels that a sub-pixel shift explains (`compare::shift_explains`).
    pub subpixel: bool,
    pub max_differing_pixels: u64,
    pub flip_max_mean: f64,
    pub flip_percentile: f64,
    pub flip_max_percentile: f64,
}

/// One render to judge against its golden.
pub struct Subject<'a> {
    /// The case's name, for the artifact files and the printed command.
    pub case: &'a str,
    /// The golden's file stem: the case's, or the adapter's override.
    pub stem: &'a str,
    /// The case file's text, whose SHA-256 the provenance records.
    pub case_source: &'a str,
    /// The case file, relative to the project root, as the review records it.
    pub case_file: &'a Path,
    pub adapter: Adapter<'a>,
    pub tolerance: Tolerance,
    /// The render; for a shader whose colour is its own, its coverage (see [`super::coverage`]).
    pub actual: &'a RgbaImage,
    /// Whether to compare coverage only: the golden is then masked as the actual is, and never
    /// written, since goldens hold the contract's colours.
    pub coverage_only: bool,
}

/// What the workflow decided: pass or fail, the figure, why, and the review figures.
#[derive(Clone, Debug)]
pub struct Judgement {
    pub passed: bool,
    pub figure: String,
    pub message: String,
    pub review: Option<Review>,
}

impl Judgement {
    fn pass(figure: impl Into<String>) -> Self {
        Self {
            passed: true,
            figure: figure.into(),
            message: String::new(),
            review: None,
        }
    }
    fn fail(figure: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            passed: false,
            figure: figure.into(),
            message: message.into(),
            review: None,
        }
    }
    fn with_review(mut self, review: Review) -> Self {
        self.review = Some(review);
        self
    }
}

/// The images a mismatch with an existing golden leaves for review: the per-channel diff and the
/// FLIP heat map (none where the sizes differ).
struct Evidence {
    diff: RgbaImage,
    flip: Option<RgbaImage>,
}

/// The figures of a comparison with an existing golden.
struct Measured {
    diff: ImageDiff,
    mean: f64,
    percentile: f64,
}

impl Tolerance {
    fn accepts(&self, m: &Measured) -> bool {
        match self.metric {
            Metric::Channel => m.diff.differing <= self.max_differing_pixels,
            Metric::Flip => {
                m.mean <= self.flip_max_mean && m.percentile <= self.flip_max_percentile
            }
        }
    }

    fn figure(&self, m: &Measured) -> String {
        match self.metric {
            Metric::Channel if m.diff.shifted > 0 => format!(
                "{} px ({} more within a sub-pixel shift)",
                m.diff.differing, m.diff.shifted
            ),
            Metric::Channel => format!("{} px", m.diff.differing),
            Metric::Flip => format!("FLIP {:.4}", m.mean),
        }
    }

    /// Why `actual` does not match `expected` (shown as `shown`).
    fn why(&self, m: &Measured, expected: &RgbaImage, actual: &RgbaImage, shown: &str) -> String {
        let (ew, eh) = expected.dimensions();
        let (aw, ah) = actual.dimensions();
        let (d, mean, p) = (&m.diff, m.mean, m.percentile);
        match self.metric {
            // Sizes that differ say more than a count of "differing" pixels.
            _ if (ew, eh) != (aw, ah) => format!(
                "{shown} is {ew}x{eh} pixels, the render {aw}x{ah} (render.width and render.height): every pixel counts as differing"
            ),
            Metric::Channel => format!(
                "{} pixels differ from {shown} by more than {} per channel{} (allowed: {}; largest channel difference {}; FLIP mean {mean:.4})",
                d.differing,
                self.channel_tolerance,
                match (self.subpixel, d.shift_searched, d.shifted) {
                    (false, _, _) => String::new(),
                    (true, false, _) => format!(
                        " (more than 1 pixel in {}: no sub-pixel shift was looked for)",
                        crate::compare::SHIFT_SEARCH_SHARE
                    ),
                    (true, true, 0) => " where no sub-pixel shift explains them".into(),
                    (true, true, n) => format!(
                        " where no sub-pixel shift explains them ({n} more are explained)"
                    ),
                },
                self.max_differing_pixels,
                d.max_channel
            ),
            Metric::Flip => format!(
                "FLIP against {shown}: mean {mean:.4} (allowed {}), {:.0}th percentile {p:.4} (allowed {}); {} pixels differ",
                self.flip_max_mean,
                self.flip_percentile * 100.0,
                self.flip_max_percentile,
                d.differing
            ),
        }
    }
}

/// Said of a render that covers the golden's pixels in other colours: a wrong tint, or a fragment
/// stage drawing colours of its own, which blessing would write into the shared golden.
const COLOURS_ALONE: &str = "\n  the render covers the golden's pixels (give or take the silhouette's edge): only the colours differ. Either the contract's colour is computed wrongly (the tint the vertex stage derives from each vertex's first joint), or a fragment stage draws colours of its own (lighting, textures, vertex colours), which a layout profile's `vertex.colour: any` compares by coverage; bless only if the contract's colours themselves changed";

/// The golden a subject is judged against, and what the judgement needs about it.
struct Golden<'a> {
    subject: &'a Subject<'a>,
    png: PathBuf,
    /// `png` relative to the project root, for messages and the report.
    shown: String,
    case_sha256: String,
}

impl Goldens {
    pub fn new(settings: Settings) -> Goldens {
        let Settings {
            root,
            dir,
            reports,
            bless,
            shader_sha256,
            rerun_env,
        } = settings;
        Goldens {
            root,
            dir,
            reports,
            bless,
            shader_sha256,
            rerun_env,
            versions: OnceLock::new(),
            blessed: Mutex::new(HashMap::new()),
        }
    }

    /// Removes the actual and diff images of an earlier failure of one case on one adapter: they
    /// would outlive the cause, and a failure now writes them again.
    pub fn clear_artifacts(&self, case: &str, adapter_tag: &str) {
        super::clear_artifacts(&self.reports, case, adapter_tag);
    }

    /// Judges a render against its golden, writing what the bless mode asks for: a missing golden
    /// under `new` or `all`, a differing or corrupt one under `all`, and a stale one's sidecar
    /// under `all` when its image still matches; otherwise the actual and diff images.
    pub fn judge(&self, subject: &Subject) -> Judgement {
        let png = path(&self.dir, subject.stem);
        let golden = Golden {
            shown: png
                .strip_prefix(&self.root)
                .unwrap_or(&png)
                .display()
                .to_string(),
            case_sha256: sha256(subject.case_source.as_bytes()),
            png,
            subject,
        };
        let expected = match load(&golden.png) {
            Ok(e) if subject.coverage_only => e.map(|e| super::coverage(&e)),
            Ok(e) => e,
            // A corrupt golden is only replaced when the user asked for every golden to be rewritten.
            Err(e) if self.bless != Bless::All => return self.corrupt(&golden, &e),
            Err(_) => None,
        };
        let t = &subject.tolerance;
        let previous = Provenance::load(&golden.png);
        let mut review = Review {
            golden: golden.shown.clone(),
            actual: None,
            diff: None,
            metric: t.metric,
            differing_pixels: 0,
            shifted_pixels: 0,
            max_channel: 0,
            flip_mean: 0.0,
            flip_percentile_value: 0.0,
            flip_percentile: t.flip_percentile,
            stale: match &previous {
                Ok(p) => p
                    .as_ref()
                    .and_then(|p| p.staleness(&self.shader_sha256, &golden.case_sha256)),
                // A corrupt record proves nothing about where the golden came from.
                Err(why) => Some(format!(
                    "its provenance sidecar {} is corrupt ({why})",
                    Path::new(&golden.shown).with_extension("json").display()
                )),
            },
            flip_map: None,
            case_file: subject.case_file.display().to_string(),
            provenance: Some(self.provenance(&golden)),
            previous: previous.ok().flatten(),
            coverage_only: subject.coverage_only,
            bless: String::new(),
        };
        let forgiven;
        let actual = match &expected {
            Some(e) if subject.coverage_only => {
                forgiven = super::forgive_edges(e, subject.actual);
                &forgiven
            }
            _ => subject.actual,
        };
        let (verdict, diff_image) = match &expected {
            Some(e) => {
                let (diff, mean, percentile) = measure(
                    e,
                    actual,
                    t.channel_tolerance,
                    t.subpixel,
                    t.flip_percentile,
                );
                let m = Measured {
                    diff,
                    mean,
                    percentile,
                };
                review.differing_pixels = m.diff.differing;
                review.shifted_pixels = m.diff.shifted;
                review.max_channel = m.diff.max_channel;
                review.flip_mean = m.mean;
                review.flip_percentile_value = m.percentile;
                if t.accepts(&m) {
                    return self.matched(&golden, t.figure(&m), review);
                }
                let mut why = t.why(&m, e, actual, &golden.shown);
                if !subject.coverage_only && super::colours_alone(e, actual, t.channel_tolerance) {
                    why.push_str(COLOURS_ALONE);
                }
                let figure = t.figure(&m);
                let images = Evidence {
                    diff: m.diff.image,
                    flip: flip_heat_map(e, actual),
                };
                ((figure, why), Some(images))
            }
            None => (
                (
                    "missing".to_string(),
                    format!("no golden image {}", golden.shown),
                ),
                None,
            ),
        };
        let may_write = match self.bless {
            _ if subject.coverage_only => false,
            Bless::Off => false,
            Bless::New => expected.is_none(),
            Bless::All => true,
        };
        if may_write {
            return self.write(&golden, verdict);
        }
        let mode = if expected.is_some() { "all" } else { "new" };
        review.bless = self.command(mode, subject);
        self.mismatch(&golden, verdict, diff_image, review, mode)
    }

    /// A golden that cannot be read, not to be replaced in this mode: the render that would
    /// replace it is saved, to look at before blessing.
    fn corrupt(&self, golden: &Golden, error: &GoldenError) -> Judgement {
        let s = golden.subject;
        let (a_path, _) = artifact_paths(&self.reports, s.case, s.adapter.tag);
        let saved = match write_png(&a_path, s.actual) {
            Ok(()) => format!("actual: {}", a_path.display()),
            Err(e) => format!("(could not save the actual image: {e})"),
        };
        Judgement::fail(
            "corrupt",
            format!(
                "{error}\n  {saved}\n  to replace it: {}",
                self.command("all", s)
            ),
        )
    }

    /// The image matches. A stale golden says so; under `all` only its sidecar is rewritten, so
    /// the PNG stays byte-identical and the stale flag clears.
    fn matched(&self, golden: &Golden, figure: String, mut review: Review) -> Judgement {
        let mut judgement = Judgement::pass(figure);
        if review.stale.is_some() {
            review.bless = self.command("all", golden.subject);
        }
        judgement.message = match (review.stale.clone(), self.bless) {
            (None, _) => String::new(),
            (Some(s), Bless::All) => {
                match self.refresh(golden) {
                    Ok(()) => {
                        review.stale = None;
                        format!("stale golden: {s}; the image still matches, its provenance is rewritten")
                    }
                    Err(e) => format!("stale golden: {s}; {e}"),
                }
            }
            (Some(s), _) => format!(
                "stale golden: {s}; the image still matches: to record that, {}",
                self.command("all", golden.subject)
            ),
        };
        judgement.with_review(review)
    }

    /// Blesses the render, unless another adapter already did in this run.
    fn write(&self, golden: &Golden, (figure, why): (String, String)) -> Judgement {
        match self.bless_once(golden) {
            Ok(None) => Judgement::pass(format!("blessed {}", golden.shown)),
            Ok(Some(by)) => Judgement::fail(
                figure,
                format!("{why}\n  the golden was blessed in this run from {by}, and this adapter renders differently"),
            ),
            Err(e) => Judgement::fail("-", e.to_string()),
        }
    }

    /// A missing or differing golden, not to be written in this mode: saves the actual (and diff)
    /// image and prints the command that blesses with `mode`.
    fn mismatch(
        &self,
        golden: &Golden,
        (figure, why): (String, String),
        evidence: Option<Evidence>,
        mut review: Review,
        mode: &str,
    ) -> Judgement {
        let s = golden.subject;
        let (a_path, d_path) = artifact_paths(&self.reports, s.case, s.adapter.tag);
        let diff_image = evidence.as_ref().map(|e| &e.diff);
        let mut saved = write_png(&a_path, s.actual);
        let in_reports = |p: &Path| {
            p.strip_prefix(&self.reports)
                .unwrap_or(p)
                .display()
                .to_string()
        };
        review.actual = Some(in_reports(&a_path));
        if let Some(d) = diff_image {
            saved = saved.and_then(|_| write_png(&d_path, d));
            review.diff = Some(in_reports(&d_path));
        }
        if let Some(heat) = evidence.as_ref().and_then(|e| e.flip.as_ref()) {
            let f_path = flip_map_path(&self.reports, s.case, s.adapter.tag);
            saved = saved.and_then(|_| write_png(&f_path, heat));
            review.flip_map = Some(in_reports(&f_path));
        }
        let files = match saved {
            Ok(()) => format!(
                "actual: {}{}",
                a_path.display(),
                diff_image.map_or(String::new(), |_| format!(
                    "\n  diff:   {}",
                    d_path.display()
                ))
            ),
            Err(e) => format!("(could not save the actual/diff images: {e})"),
        };
        Judgement::fail(
            figure,
            format!(
                "{why}\n  {files}\n  to accept the new image: {}",
                self.command(mode, s)
            ),
        )
        .with_review(review)
    }

    /// The command that blesses this subject's golden from its adapter with `mode`.
    fn command(&self, mode: &str, s: &Subject) -> String {
        bless_command(&self.rerun_env, mode, s.case, s.adapter.tag)
    }

    /// Writes the golden and its sidecar unless another adapter already blessed it in this run;
    /// returns that adapter when it did.
    fn bless_once(&self, golden: &Golden) -> Result<Option<String>, GoldenError> {
        let mut map = self.blessed.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(by) = map.get(&golden.png) {
            return Ok(Some(by.clone()));
        }
        let provenance = self.provenance(golden);
        write_png(&golden.png, golden.subject.actual)?;
        write_sidecar(&golden.png, &provenance)?;
        map.insert(golden.png.clone(), provenance.adapter);
        Ok(None)
    }

    /// Rewrites only the sidecar of a golden that still matches, unless this run already blessed it.
    fn refresh(&self, golden: &Golden) -> Result<(), GoldenError> {
        let mut map = self.blessed.lock().unwrap_or_else(|p| p.into_inner());
        if map.contains_key(&golden.png) {
            return Ok(());
        }
        let provenance = self.provenance(golden);
        write_sidecar(&golden.png, &provenance)?;
        map.insert(golden.png.clone(), provenance.adapter);
        Ok(())
    }

    /// What a golden blessed now from the subject's adapter records about where it came from.
    fn provenance(&self, golden: &Golden) -> Provenance {
        let a = golden.subject.adapter;
        let (wgpu, naga) = self.versions.get_or_init(|| {
            (
                super::locked_version(&self.root, "wgpu"),
                super::locked_version(&self.root, "naga"),
            )
        });
        Provenance {
            adapter: a.tag.to_string(),
            adapter_name: a.name.to_string(),
            backend: a.backend.to_string(),
            driver: a.driver.to_string(),
            driver_info: a.driver_info.to_string(),
            wgpu: wgpu.clone(),
            naga: naga.clone(),
            shader_sha256: self.shader_sha256.clone(),
            case_sha256: golden.case_sha256.clone(),
        }
    }
}
