//! `skinproof accept`: the actual images of the last run written as goldens with their sidecars, only when the shader and the case files are still what that run judged.

use std::path::Path;

use image::RgbaImage;

use super::{load, sha256, write_png, write_sidecar, GoldenError, Review};

/// A golden comparison of the last run that left an actual image: its trial name and review.
pub struct Candidate<'a> {
    pub trial: String,
    pub review: &'a Review,
}

/// A golden that `accept` wrote, and the trials whose render it now is.
#[derive(Debug, PartialEq)]
pub struct Accepted {
    /// Relative to the project root, as the review records it.
    pub golden: String,
    pub trials: Vec<String>,
}

/// Why `accept` wrote nothing. It checks everything before it writes, so a refusal leaves every
/// golden as it was.
#[derive(Debug, thiserror::Error)]
pub enum AcceptError {
    #[error("accept is refused when CI is set: goldens are accepted on a developer's machine, by someone who looked at the images, and reviewed in the pull request")]
    InCi,
    #[error("nothing to accept{}: the last run left no actual image of a differing or missing golden{}", matching(.filter), matching_hint(.filter))]
    Nothing { filter: Option<String> },
    #[error("{what} {file} changed since the last run (SHA-256 {} then, {} now): its images were judged against the old one, so nothing is accepted; run the suite again and review its page first", short(.then), short(.now))]
    Changed {
        what: &'static str,
        file: String,
        then: String,
        now: String,
    },
    #[error("{what} {file} of the last run cannot be read ({message}), so it cannot be known to be unchanged; run the suite again")]
    Unreadable {
        what: &'static str,
        file: String,
        message: String,
    },
    #[error("{trial}: the last run compared coverage only (the shader draws its own colours); goldens hold the built-in contract's colours, so they are blessed from the default shader")]
    CoverageOnly { trial: String },
    #[error("{trial}: the last run's report records no provenance (an older skinproof wrote it); run the suite again")]
    NoProvenance { trial: String },
    #[error("{golden}: `{a}` and `{b}` rendered it differently and it is one file; accept one of them, with a filter naming its adapter")]
    Disagree {
        golden: String,
        a: String,
        b: String,
    },
    #[error("{path}: cannot read the last run's actual image: {message}; run the suite again")]
    Actual { path: String, message: String },
    #[error(transparent)]
    Write(#[from] GoldenError),
}

fn matching(filter: &Option<String>) -> String {
    filter
        .as_ref()
        .map_or(String::new(), |f| format!(" matching `{f}`"))
}

fn matching_hint(filter: &Option<String>) -> &'static str {
    if filter.is_some() {
        " with that name (run `skinproof review` to see the trials of the last run)"
    } else {
        ""
    }
}

/// The first 12 hex digits of a SHA-256, enough to tell two apart in a message.
fn short(hash: &str) -> &str {
    &hash[..12.min(hash.len())]
}

/// One golden to write: the image, the review that judged it, and its trials.
struct Write<'a> {
    review: &'a Review,
    image: RgbaImage,
    trials: Vec<String>,
}

/// Writes the actual image of each candidate whose trial name contains `filter` (or equals it,
/// with `exact`) as its golden, with the provenance the last run recorded, after checking that it
/// may: not under CI, every candidate's shader (`shader`, relative to `root`) and case file
/// unchanged since, no coverage-only render, and adapters that share a golden agreeing on it.
pub fn accept(
    root: &Path,
    reports: &Path,
    shader: &str,
    candidates: &[Candidate],
    (filter, exact): (Option<&str>, bool),
    ci: bool,
) -> Result<Vec<Accepted>, AcceptError> {
    if ci {
        return Err(AcceptError::InCi);
    }
    let chosen: Vec<&Candidate> = candidates
        .iter()
        .filter(|c| c.review.actual.is_some())
        .filter(|c| match filter {
            None => true,
            Some(f) if exact => c.trial == f,
            Some(f) => c.trial.contains(f),
        })
        .collect();
    if chosen.is_empty() {
        return Err(AcceptError::Nothing {
            filter: filter.map(str::to_string),
        });
    }
    let mut writes: Vec<Write> = Vec::new();
    for c in chosen {
        let review = c.review;
        if review.coverage_only {
            return Err(AcceptError::CoverageOnly {
                trial: c.trial.clone(),
            });
        }
        let Some(provenance) = &review.provenance else {
            return Err(AcceptError::NoProvenance {
                trial: c.trial.clone(),
            });
        };
        unchanged(root, "the shader", shader, &provenance.shader_sha256)?;
        unchanged(
            root,
            "the case file",
            &review.case_file,
            &provenance.case_sha256,
        )?;
        let image = actual_image(reports, review)?;
        match writes.iter_mut().find(|w| w.review.golden == review.golden) {
            Some(w) if w.image == image => w.trials.push(c.trial.clone()),
            Some(w) => {
                return Err(AcceptError::Disagree {
                    golden: review.golden.clone(),
                    a: w.trials[0].clone(),
                    b: c.trial.clone(),
                })
            }
            None => writes.push(Write {
                review,
                image,
                trials: vec![c.trial.clone()],
            }),
        }
    }
    let mut done = Vec::new();
    for w in writes {
        let png = root.join(&w.review.golden);
        write_png(&png, &w.image)?;
        if let Some(p) = &w.review.provenance {
            write_sidecar(&png, p)?;
        }
        done.push(Accepted {
            golden: w.review.golden.clone(),
            trials: w.trials,
        });
    }
    Ok(done)
}

/// The file (relative to `root`) still has the SHA-256 the last run recorded.
fn unchanged(root: &Path, what: &'static str, file: &str, then: &str) -> Result<(), AcceptError> {
    let bytes = std::fs::read(root.join(file)).map_err(|e| AcceptError::Unreadable {
        what,
        file: file.to_string(),
        message: e.to_string(),
    })?;
    let now = sha256(&bytes);
    if now == then {
        return Ok(());
    }
    Err(AcceptError::Changed {
        what,
        file: file.to_string(),
        then: then.to_string(),
        now,
    })
}

/// The actual image the last run saved for a review.
fn actual_image(reports: &Path, review: &Review) -> Result<RgbaImage, AcceptError> {
    let path = reports.join(review.actual.as_deref().unwrap_or_default());
    let shown = path.display().to_string();
    match load(&path) {
        Ok(Some(image)) => Ok(image),
        Ok(None) => Err(AcceptError::Actual {
            path: shown,
            message: "it is gone".into(),
        }),
        Err(e) => Err(AcceptError::Actual {
            path: shown,
            message: e.to_string(),
        }),
    }
}
