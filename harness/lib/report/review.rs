//! The last run's goldens to review: the rows (`reports/review.json`, which `skinproof accept` and `skinproof review` read), the page (`reports/review.html`) and the pull request's step summary line.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{page, LoadError, Report, Row};
use crate::check::Status;
use crate::file::write_atomic;

/// The review page's file name in the reports folder.
pub const PAGE: &str = "review.html";
/// The rows it shows, for `skinproof accept`.
pub const ROWS: &str = "review.json";

/// The golden comparisons of one run that someone should look at: the shader it judged and each
/// row with its review (a golden that differs or is missing, or a stale one).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ReviewSet {
    pub headline: String,
    /// The shader, relative to the project root, and its SHA-256 at run time.
    pub shader: String,
    pub shader_sha256: String,
    pub rows: Vec<Row>,
}

impl ReviewSet {
    /// Reads `<reports>/review.json`.
    pub fn load(reports: &Path) -> Result<ReviewSet, LoadError> {
        super::load_json(&reports.join(ROWS))
    }

    /// The page for these rows; images are read from under `root` (goldens) and `reports`.
    pub fn html(&self, root: &Path, reports: &Path) -> String {
        let rows: Vec<&Row> = self.rows.iter().collect();
        let run = page::Run {
            headline: &self.headline,
            shader: &self.shader,
        };
        page::html(&run, &rows, root, reports)
    }
}

impl Report {
    /// The rows to review: golden comparisons that did not pass, and stale goldens.
    pub fn review_set(&self) -> ReviewSet {
        let rows = self
            .rows
            .iter()
            .filter(|r| {
                r.outcome
                    .review
                    .as_ref()
                    .is_some_and(|v| r.outcome.status != Status::Pass || v.stale.is_some())
            })
            .cloned()
            .collect();
        ReviewSet {
            headline: self.headline(),
            shader: self.shader.clone(),
            shader_sha256: self.shader_sha256.clone(),
            rows,
        }
    }

    /// Writes `review.html` and `review.json` into `reports` when there is something to review,
    /// and returns the page's path; otherwise removes an earlier run's, so that neither outlives
    /// its run.
    pub fn write_review(&self, root: &Path, reports: &Path) -> std::io::Result<Option<PathBuf>> {
        let set = self.review_set();
        let (page, rows) = (reports.join(PAGE), reports.join(ROWS));
        if set.rows.is_empty() {
            for p in [&page, &rows] {
                match std::fs::remove_file(p) {
                    Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
                    _ => {}
                }
            }
            return Ok(None);
        }
        let json = serde_json::to_string_pretty(&set).map_err(std::io::Error::other)?;
        write_atomic(&rows, json.as_bytes())?;
        write_atomic(&page, set.html(root, reports).as_bytes())?;
        Ok(Some(page))
    }
}

/// The step summary's line about the review page: how many to review and where the page is. In a
/// GitHub Actions run (`GITHUB_SERVER_URL`, `GITHUB_REPOSITORY`, `GITHUB_RUN_ID`) it links the
/// run's artifacts, where the workflow uploads the page.
pub fn summary_line(count: usize, env: impl Fn(&str) -> Option<String>) -> String {
    let run = match (
        env("GITHUB_SERVER_URL"),
        env("GITHUB_REPOSITORY"),
        env("GITHUB_RUN_ID"),
    ) {
        (Some(server), Some(repo), Some(id)) => Some(format!(
            "{}/{repo}/actions/runs/{id}#artifacts",
            server.trim_end_matches('/')
        )),
        _ => None,
    };
    let goldens = if count == 1 { "golden" } else { "goldens" };
    match run {
        Some(url) => format!(
            "**{count} {goldens} to review:** download the review page (`{PAGE}`, expected, actual, diff, swipe and FLIP heat map) from [this run's artifacts]({url}).\n"
        ),
        None => format!("**{count} {goldens} to review:** open `reports/{PAGE}`.\n"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::Outcome;
    use crate::compare::Metric;
    use crate::golden::{write_png, Review};
    use image::{Rgba, RgbaImage};

    #[test]
    fn the_summary_links_the_run_artifacts_when_in_actions() {
        let env = |k: &str| {
            Some(match k {
                "GITHUB_SERVER_URL" => "https://github.com/".to_string(),
                "GITHUB_REPOSITORY" => "o/r".to_string(),
                "GITHUB_RUN_ID" => "42".to_string(),
                _ => return None,
            })
        };
        let line = summary_line(3, env);
        assert!(
            line.contains("**3 goldens to review:**")
                && line.contains("(https://github.com/o/r/actions/runs/42#artifacts)"),
            "{line}"
        );
        assert_eq!(
            summary_line(1, |_| None),
            "**1 golden to review:** open `reports/review.html`.\n"
        );
    }

    /// A report with one failing golden row (images in `dir`), one passing and one stale.
    fn report(dir: &Path) -> Report {
        let img = RgbaImage::from_pixel(8, 6, Rgba([10, 200, 30, 255]));
        write_png(&dir.join("golden/x.png"), &img).unwrap();
        write_png(&dir.join("reports/diff/x.actual.png"), &img).unwrap();
        let review = |actual: Option<&str>, stale: Option<&str>| Review {
            golden: "golden/x.png".into(),
            actual: actual.map(str::to_string),
            diff: None,
            metric: Metric::Channel,
            differing_pixels: 1,
            shifted_pixels: 2,
            max_channel: 9,
            flip_mean: 0.1,
            flip_percentile_value: 0.2,
            flip_percentile: 0.99,
            stale: stale.map(str::to_string),
            flip_map: None,
            case_file: "cases/x.yaml".into(),
            provenance: None,
            previous: None,
            coverage_only: false,
            bless: "SKINPROOF_BLESS=all cargo test <x>".into(),
        };
        let row = |case: &str, status, review| Row {
            case: case.into(),
            adapter: "vulkan/x".into(),
            check: "render_matches_golden".into(),
            outcome: Outcome {
                review: Some(review),
                ..Outcome::new(status, "1 px", "why")
            },
        };
        Report {
            shader: "shaders/s.wgsl".into(),
            rows: vec![
                row("bad", Status::Fail, review(Some("diff/x.actual.png"), None)),
                row("fine", Status::Pass, review(None, None)),
                row(
                    "old",
                    Status::Pass,
                    review(None, Some("the shader changed")),
                ),
            ],
            ..Default::default()
        }
    }

    #[test]
    fn the_page_shows_failing_and_stale_goldens_from_its_own_file_only() {
        let dir = std::env::temp_dir().join(format!("skinproof-review-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let report = report(&dir);
        let reports = dir.join("reports");
        let page = report.write_review(&dir, &reports).unwrap().unwrap();
        let html = std::fs::read_to_string(&page).unwrap();
        let set = ReviewSet::load(&reports).unwrap();
        let cases: Vec<&str> = set.rows.iter().map(|r| r.case.as_str()).collect();
        assert_eq!(cases, ["bad", "old"]);
        assert!(
            html.contains("id=\"c0\"") && html.contains("id=\"c1\"") && !html.contains("id=\"c2\"")
        );
        assert_eq!(
            html.matches("data:image/png;base64,").count(),
            3,
            "two goldens and one actual"
        );
        assert!(html.contains("SKINPROOF_BLESS=all cargo test &lt;x&gt;"));
        assert!(html.contains("accept --exact &#39;bad::render_matches_golden [vulkan/x]&#39;"));
        for outside in ["http:", "https:", "src=\"/", "src=\"file", "href=\"http"] {
            assert!(!html.contains(outside), "{outside}");
        }
        // The page's own weight, images aside: CSS and script once, a few KiB a case.
        let images: usize = html
            .split("data:image/png;base64,")
            .skip(1)
            .map(|s| s.find('"').unwrap())
            .sum();
        assert!(
            html.len() - images < 16 * 1024 + 2 * 4 * 1024,
            "{}",
            html.len() - images
        );
        // Nothing to review: both files go.
        let passing = Report::default();
        assert!(passing.write_review(&dir, &reports).unwrap().is_none());
        assert!(!page.exists() && !reports.join(ROWS).exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
