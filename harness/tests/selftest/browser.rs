//! Headless Chromium for the review page's self-test: where the page draws each image (`--dump-dom`
//! after its script ran) and what it draws there (`--screenshot`).

use std::path::{Path, PathBuf};
use std::process::Command;

use image::RgbaImage;

/// The names Chromium is installed under (Debian's `chromium`, Ubuntu's, Google's).
const NAMES: [&str; 3] = ["chromium", "chromium-browser", "google-chrome"];

/// Whether a missing browser fails the test: under CI or `SKINPROOF_REQUIRE_ADAPTER`, as a
/// missing adapter does.
pub fn required() -> bool {
    skinproof::config::is_ci(std::env::var("CI").ok().as_deref())
        || skinproof::config::Require::from_env().map_or(true, |r| r.is_required())
}

/// The first Chromium on `PATH`.
pub fn find() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| NAMES.map(|n| dir.join(n)))
        .find(|p| p.is_file())
}

/// One headless browser run over `page` with the URL fragment `fragment`, in a window of `size`
/// at one device pixel per CSS pixel; returns its stdout.
fn run(browser: &Path, page: &Path, fragment: &str, size: (u32, u32), what: &[String]) -> String {
    let profile = page.with_extension("profile");
    let url = format!("file://{}#{fragment}", page.display());
    let out = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--no-first-run",
            "--force-device-scale-factor=1",
            "--virtual-time-budget=3000",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--window-size={},{}", size.0, size.1))
        .args(what)
        .arg(&url)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}: {}",
        browser.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The page's DOM after its script ran.
pub fn dom(browser: &Path, page: &Path, fragment: &str, size: (u32, u32)) -> String {
    run(browser, page, fragment, size, &["--dump-dom".to_string()])
}

/// A screenshot of the window.
pub fn screenshot(browser: &Path, page: &Path, fragment: &str, size: (u32, u32)) -> RgbaImage {
    let shot = page.with_extension(format!("{}.png", fragment.replace(['=', '&'], "-")));
    let _ = std::fs::remove_file(&shot);
    run(
        browser,
        page,
        fragment,
        size,
        &[format!("--screenshot={}", shot.display())],
    );
    image::open(&shot).unwrap().to_rgba8()
}

/// Where the page drew each element of `role` (`data-drawn`: x, y, width, height in page pixels).
pub fn drawn(dom: &str, role: &str) -> Vec<[u32; 4]> {
    let mut found = Vec::new();
    let tag = format!("data-role=\"{role}\"");
    for piece in dom.split('<').filter(|p| p.contains(&tag)) {
        let Some(value) = piece.split("data-drawn=\"").nth(1) else {
            continue;
        };
        let numbers: Vec<u32> = value
            .split('"')
            .next()
            .unwrap_or_default()
            .split(',')
            .filter_map(|n| n.parse().ok())
            .collect();
        if let [x, y, w, h] = numbers[..] {
            found.push([x, y, w, h]);
        }
    }
    found
}

/// The share of `image`'s pixels, composited over black as the page shows them, that the
/// screenshot has at `at` (within 3 per channel).
pub fn agreement(shot: &RgbaImage, at: [u32; 4], image: &RgbaImage) -> f64 {
    let (w, h) = image.dimensions();
    assert_eq!([at[2], at[3]], [w, h], "drawn at another size");
    let mut same = 0u64;
    for (x, y, p) in image.enumerate_pixels() {
        let over_black = |c: u8| (c as u32 * p[3] as u32 + 127) / 255;
        let s = shot.get_pixel(at[0] + x, at[1] + y);
        if (0..3).all(|c| s[c].abs_diff(over_black(p[c]) as u8) <= 3) {
            same += 1;
        }
    }
    same as f64 / (w as f64 * h as f64)
}

/// Pixels that differ between two screenshots within `at`.
pub fn changed(a: &RgbaImage, b: &RgbaImage, at: [u32; 4]) -> u64 {
    let mut n = 0;
    for y in at[1]..at[1] + at[3] {
        for x in at[0]..at[0] + at[2] {
            n += u64::from(a.get_pixel(x, y) != b.get_pixel(x, y));
        }
    }
    n
}

/// Why the page is not self-contained: a URL it would fetch or follow outside the file.
pub fn external_urls(html: &str) -> Vec<String> {
    let mut found = Vec::new();
    for needle in ["http:", "https:", "ftp:", "//", "url("] {
        for (i, _) in html.match_indices(needle) {
            let around = snippet(html, i);
            // `//` starts a JS comment too; a protocol-relative URL follows a quote or `(`.
            let quoted = needle != "//"
                || matches!(
                    html.as_bytes()[i.saturating_sub(1)],
                    b'"' | b'\'' | b'(' | b'='
                );
            let data = needle == "url("
                && html[i + 4..]
                    .trim_start_matches(['"', '\''])
                    .starts_with("data:");
            if quoted && !data {
                found.push(around);
            }
        }
    }
    for attr in [" src=\"", " href=\""] {
        for (i, _) in html.match_indices(attr) {
            let value = &html[i + attr.len()..];
            if !(value.starts_with("data:") || value.starts_with('#')) {
                found.push(snippet(html, i));
            }
        }
    }
    found
}

/// The text around byte `i`, on character boundaries.
fn snippet(html: &str, i: usize) -> String {
    let mut a = i.saturating_sub(12);
    while !html.is_char_boundary(a) {
        a -= 1;
    }
    let mut b = (i + 40).min(html.len());
    while !html.is_char_boundary(b) {
        b += 1;
    }
    html[a..b].to_string()
}
