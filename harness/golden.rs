//! Golden image paths, loading, blessing (atomic writes) and the actual/diff files of a mismatch.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use image::RgbaImage;

#[derive(Debug, thiserror::Error)]
pub enum GoldenError {
    #[error("{path}: cannot read golden: {message}")]
    Read { path: String, message: String },
    #[error("{path}: cannot write: {message}")]
    Write { path: String, message: String },
}

/// `golden/<name>.png`.
pub fn path(root: &Path, name: &str) -> PathBuf {
    root.join("golden").join(format!("{name}.png"))
}

/// The golden image, `None` when there is none yet; a corrupt file is an error.
pub fn load(path: &Path) -> Result<Option<RgbaImage>, GoldenError> {
    if !path.exists() {
        return Ok(None);
    }
    image::open(path)
        .map(|img| Some(img.to_rgba8()))
        .map_err(|e| GoldenError::Read {
            path: path.display().to_string(),
            message: e.to_string(),
        })
}

/// Writes a PNG through a temporary file and a rename, so no reader ever sees half a file.
pub fn write_png(path: &Path, img: &RgbaImage) -> Result<(), GoldenError> {
    let err = |e: &dyn std::fmt::Display| GoldenError::Write {
        path: path.display().to_string(),
        message: e.to_string(),
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| err(&e))?;
    }
    let tmp = path.with_extension(format!("png.tmp{}", std::process::id()));
    img.save_with_format(&tmp, image::ImageFormat::Png)
        .map_err(|e| err(&e))?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        err(&e)
    })
}

/// Which adapter wrote each golden in this run: a golden is blessed at most once per run, so two
/// adapters that disagree fail instead of overwriting each other.
fn blessed() -> &'static Mutex<HashMap<String, String>> {
    static BLESSED: OnceLock<Mutex<HashMap<String, String>>> = OnceLock::new();
    BLESSED.get_or_init(Default::default)
}

/// Writes the golden unless another adapter already blessed it in this run; returns that adapter.
pub fn bless(path: &Path, img: &RgbaImage, adapter: &str) -> Result<Option<String>, GoldenError> {
    let mut map = blessed().lock().unwrap_or_else(|p| p.into_inner());
    let key = path.display().to_string();
    if let Some(by) = map.get(&key) {
        return Ok(Some(by.clone()));
    }
    write_png(path, img)?;
    map.insert(key, adapter.to_string());
    Ok(None)
}

/// Where the actual and diff images of a mismatch go: `<reports>/diff/<case>--<adapter>.{actual,diff}.png`.
pub fn artifact_paths(reports: &Path, case: &str, adapter_tag: &str) -> (PathBuf, PathBuf) {
    let stem = format!("{case}--{}", adapter_tag.replace('/', "-"));
    let dir = reports.join("diff");
    (
        dir.join(format!("{stem}.actual.png")),
        dir.join(format!("{stem}.diff.png")),
    )
}

/// The exact command that blesses the golden of one case.
pub fn bless_command(case: &str) -> String {
    format!("SKINPROOF_BLESS=1 cargo test --release -- '{case}::render_matches_golden'")
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Rgba;

    #[test]
    fn png_round_trip_and_missing_is_none() {
        let dir = std::env::temp_dir().join(format!("skinproof-golden-{}", std::process::id()));
        let p = dir.join("g.png");
        assert!(load(&p).unwrap().is_none());
        let img = RgbaImage::from_pixel(3, 2, Rgba([1, 2, 3, 255]));
        write_png(&p, &img).unwrap();
        assert_eq!(load(&p).unwrap().unwrap(), img);
        std::fs::write(&p, b"not a png").unwrap();
        assert!(load(&p).unwrap_err().to_string().contains("g.png"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
