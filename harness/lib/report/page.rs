//! The review page, `review.html`: one self-contained file (images as data URIs, inline CSS and JS, no URL outside it) from the rows to review and their image files.

use std::fmt::Write as _;
use std::path::Path;

use super::Row;
use crate::check::Status;
use crate::golden::{self, Provenance, Review};

/// The page's own CSS and JS, inlined.
const CSS: &str = include_str!("review.css");
const JS: &str = include_str!("review.js");

/// FLIP's magma ramp, a few of its stops, for the heat map's legend.
const MAGMA: &str = "#000004, #3b0f70, #8c2981, #de4968, #fe9f6d, #fcfdbf";

/// What the page shows about the run as a whole.
pub struct Run<'a> {
    pub headline: &'a str,
    pub shader: &'a str,
}

/// An image file read for the page: its data URI and size, or why it is not there.
enum Image {
    Png { uri: String, w: u32, h: u32 },
    Missing(String),
}

impl Image {
    fn read(path: &Path) -> Image {
        let shown = path.display();
        match std::fs::read(path) {
            Ok(bytes) => match png_size(&bytes) {
                Some((w, h)) => Image::Png {
                    uri: format!("data:image/png;base64,{}", base64(&bytes)),
                    w,
                    h,
                },
                None => Image::Missing(format!("{shown} is not a PNG")),
            },
            Err(e) => Image::Missing(format!("{shown}: {e}")),
        }
    }

    fn size(&self) -> Option<(u32, u32)> {
        match self {
            Image::Png { w, h, .. } => Some((*w, *h)),
            Image::Missing(_) => None,
        }
    }
}

/// The width and height in a PNG's header.
fn png_size(bytes: &[u8]) -> Option<(u32, u32)> {
    const SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";
    if bytes.len() < 24 || &bytes[..8] != SIGNATURE || &bytes[12..16] != b"IHDR" {
        return None;
    }
    let word = |i: usize| u32::from_be_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
    Some((word(16), word(20)))
}

/// Standard base64 with padding.
pub fn base64(bytes: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(ABC[(n >> (18 - 6 * k) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Text for HTML content and attribute values.
fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The page for `rows` (each with a review): the golden from under `root`, the actual, diff and
/// FLIP images from under `reports`.
pub fn html(run: &Run, rows: &[&Row], root: &Path, reports: &Path) -> String {
    let mut sections = String::new();
    let mut widest = 0;
    for (i, row) in rows.iter().enumerate() {
        if let Some(review) = &row.outcome.review {
            widest = widest.max(section(&mut sections, i, row, review, root, reports));
        }
    }
    // Small renders are shown larger at first; the zoom menu or `#zoom=N` changes it.
    let zoom = (320 / widest.max(1)).clamp(1, 4);
    let mut page = String::new();
    let _ = write!(
        page,
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width\">\
         <title>skinproof review: {n} golden{s}</title><style>{CSS}</style></head>\n\
         <body data-zoom=\"{zoom}\"><header><h1>skinproof: golden images to review</h1>\
         <p>{headline}</p><p>Shader <code>{shader}</code>.</p>\
         <p class=\"keys\">Keys: <kbd>j</kbd>/<kbd>→</kbd> next, <kbd>k</kbd>/<kbd>←</kbd> previous, \
         <kbd>f</kbd> flicker. Move the pointer over an image to read a pixel in both images. \
         Zoom <select class=\"zoom\">{options}</select></p></header>\n<nav><ol>{nav}</ol></nav>\n\
         {sections}<script>{JS}</script></body></html>\n",
        n = rows.len(),
        s = if rows.len() == 1 { "" } else { "s" },
        headline = esc(run.headline),
        shader = esc(run.shader),
        options = [1, 2, 4, 8, 16]
            .map(|z| format!("<option value=\"{z}\">{z}×</option>"))
            .concat(),
        nav = rows
            .iter()
            .enumerate()
            .map(|(i, r)| format!(
                "<li><a href=\"#c{i}\">{} on {}</a>: {} {}</li>",
                esc(&r.case),
                esc(&r.adapter),
                r.outcome.status,
                esc(&r.outcome.figure)
            ))
            .collect::<String>(),
    );
    page
}

/// One case on one adapter; returns the widest image's width.
fn section(
    out: &mut String,
    i: usize,
    row: &Row,
    review: &Review,
    root: &Path,
    reports: &Path,
) -> u32 {
    let status = row.outcome.status;
    let bad = if status == Status::Pass { "" } else { " bad" };
    let _ = write!(
        out,
        "<section class=\"case\" id=\"c{i}\"><h2>{} on {}: <span class=\"status{bad}\">{status}</span> {}</h2>",
        esc(&row.case),
        esc(&row.adapter),
        esc(&row.outcome.figure)
    );
    if !row.outcome.message.is_empty() {
        let _ = write!(
            out,
            "<div class=\"why\">{}</div>",
            esc(&row.outcome.message)
        );
    }
    figures(out, review);
    provenance(out, review);
    command(out, "bless by running the trial again", &review.bless);
    if review.actual.is_some() && !review.coverage_only {
        let accept = golden::accept_command(&row.case, &row.adapter);
        command(out, "or accept this run's image", &accept);
    }
    let images = [
        ("expected", Some(root.join(&review.golden)), &review.golden),
        (
            "actual",
            review.actual.as_ref().map(|p| reports.join(p)),
            &String::new(),
        ),
        (
            "diff",
            review.diff.as_ref().map(|p| reports.join(p)),
            &String::new(),
        ),
        (
            "flip",
            review.flip_map.as_ref().map(|p| reports.join(p)),
            &String::new(),
        ),
    ];
    let mut widest = 0;
    let mut sizes = Vec::new();
    out.push_str("<div class=\"row\">");
    for (role, path, shown) in images {
        let Some(path) = path else { continue };
        let image = Image::read(&path);
        if let Some((w, h)) = image.size() {
            widest = widest.max(w);
            sizes.push((role, w, h));
        }
        figure(out, role, shown, &image, review.coverage_only);
    }
    out.push_str("</div>");
    let size = |role: &str| sizes.iter().find(|(r, ..)| *r == role).map(|s| (s.1, s.2));
    if let (Some(e), Some(a)) = (size("expected"), size("actual")) {
        tools(out, e, a);
    }
    out.push_str("</section>\n");
    widest
}

/// The comparison's figures, as the report has them.
fn figures(out: &mut String, v: &Review) {
    let _ = write!(
        out,
        "<table class=\"figures\"><tr><th>decided by</th><th>pixels beyond the channel tolerance</th>\
         <th>more within a sub-pixel shift (yellow)</th><th>largest channel difference</th>\
         <th>FLIP mean</th><th>FLIP {:.0}th percentile</th></tr>\
         <tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.4}</td><td>{:.4}</td></tr></table>",
        v.flip_percentile * 100.0,
        v.metric.name(),
        v.differing_pixels,
        v.shifted_pixels,
        v.max_channel,
        v.flip_mean,
        v.flip_percentile_value
    );
}

/// The golden's sidecar against what a bless now would record, changed fields marked.
fn provenance(out: &mut String, v: &Review) {
    let fields = |p: &Option<Provenance>| -> Vec<(String, String)> {
        match p.as_ref().map(serde_json::to_value) {
            Some(Ok(serde_json::Value::Object(map))) => map
                .into_iter()
                .map(|(k, v)| (k, v.as_str().unwrap_or_default().to_string()))
                .collect(),
            _ => Vec::new(),
        }
    };
    let (then, now) = (fields(&v.previous), fields(&v.provenance));
    if then.is_empty() && now.is_empty() {
        return;
    }
    if let Some(why) = &v.stale {
        let _ = write!(out, "<p><b>Stale golden:</b> {}.</p>", esc(why));
    }
    out.push_str("<table class=\"provenance\"><tr><th>provenance</th><th>the golden's sidecar</th><th>this run</th></tr>");
    let names = if now.is_empty() { &then } else { &now };
    for (name, _) in names {
        let get = |list: &[(String, String)]| {
            list.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
        };
        let (a, b) = (get(&then), get(&now));
        let changed = if a != b { " class=\"changed\"" } else { "" };
        let show = |x: Option<String>| esc(&x.unwrap_or_else(|| "-".into()));
        let _ = write!(
            out,
            "<tr{changed}><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(name),
            show(a),
            show(b)
        );
    }
    out.push_str("</table>");
}

/// A command with a button that copies it.
fn command(out: &mut String, what: &str, cmd: &str) {
    if cmd.is_empty() {
        return;
    }
    let _ = write!(
        out,
        "<div class=\"cmd\"><span>{}:</span><code>{}</code><button class=\"copy\" type=\"button\">copy</button></div>",
        esc(what),
        esc(cmd)
    );
}

/// One image at its size (times the zoom), nearest neighbour, or why it is not there.
fn figure(out: &mut String, role: &str, shown: &str, image: &Image, coverage: bool) {
    let caption = match role {
        "flip" => format!(
            "FLIP error map <span class=\"ramp\" style=\"background:linear-gradient(to right, {MAGMA})\"></span> 0 to 1"
        ),
        "expected" if coverage => format!("expected ({}), coverage compared", esc(shown)),
        "expected" => format!("expected ({})", esc(shown)),
        "diff" => "diff (red: beyond the tolerance)".into(),
        other => other.into(),
    };
    match image {
        Image::Png { uri, w, h } => {
            let _ = write!(
                out,
                "<figure><figcaption>{caption}, {w}×{h}</figcaption><img class=\"px\" data-role=\"{role}\" data-probe data-w=\"{w}\" data-h=\"{h}\" alt=\"{role}\" src=\"{uri}\"></figure>"
            );
        }
        Image::Missing(why) => {
            let _ = write!(
                out,
                "<figure><figcaption>{caption}: not there ({})</figcaption></figure>",
                esc(why)
            );
        }
    }
}

/// Swipe, onion skin, flicker and the loupe, over a box the size of the larger image; `e` and
/// `a` are the sizes of the expected and actual images.
fn tools(out: &mut String, e: (u32, u32), a: (u32, u32)) {
    let (w, h) = (e.0.max(a.0), e.1.max(a.1));
    let bx = |class: &str, inner: &str| {
        format!(
            "<div class=\"box {class}\" data-role=\"{class}\" data-probe data-w=\"{w}\" data-h=\"{h}\">{inner}</div>"
        )
    };
    let img = |role: &str, (w, h): (u32, u32), class: &str| {
        format!("<img{class} data-src=\"{role}\" data-w=\"{w}\" data-h=\"{h}\" alt=\"{role}\">")
    };
    let expected = img("expected", e, "");
    let swipe = bx(
        "swipe",
        &format!(
            "{expected}<div class=\"top\">{}</div><div class=\"handle\"></div>",
            img("actual", a, "")
        ),
    );
    let onion = bx(
        "onion",
        &format!("{expected}{}", img("actual", a, " class=\"top\"")),
    );
    let flicker = bx("flicker", &expected);
    let _ = write!(
        out,
        "<div class=\"row tools\">\
         <div class=\"tool\"><figcaption>swipe: actual left of the line, expected right</figcaption>{swipe}\
         <input class=\"swipe\" type=\"range\" min=\"0\" max=\"100\" value=\"50\"></div>\
         <div class=\"tool\"><figcaption>onion skin: actual over expected</figcaption>{onion}\
         <input class=\"onion\" type=\"range\" min=\"0\" max=\"100\" value=\"50\"></div>\
         <div class=\"tool\"><figcaption>flicker: <span class=\"flicker-label\">expected</span></figcaption>{flicker}\
         <button class=\"flicker\" type=\"button\">flicker (f)</button></div>\
         <div class=\"tool\"><figcaption>pixel under the pointer (expected | actual)</figcaption>\
         <canvas class=\"loupe px\" width=\"184\" height=\"88\"></canvas><div class=\"probe\">-</div></div>\
         </div>"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_the_standard() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
        assert_eq!(base64(&[255, 254, 253]), "//79");
    }

    #[test]
    fn text_is_escaped() {
        assert_eq!(
            esc("<a href=\"x\">'&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
    }
}
