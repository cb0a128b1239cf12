//! The shipped (shader, profile) pairs, and edits of a profile's values that keep it YAML: a
//! number changed to a small one, a word changed to another word the profiles use.

use std::path::PathBuf;
use std::sync::OnceLock;

use crate::root;

/// One shipped pair: the shader's path, its text, its profile's path and text.
pub(crate) struct Pair {
    pub shader: PathBuf,
    pub source: String,
    pub profile: PathBuf,
    pub text: String,
}

/// Every shipped shader that has a profile beside it, the default one included.
pub(crate) fn pairs() -> &'static [Pair] {
    static PAIRS: OnceLock<Vec<Pair>> = OnceLock::new();
    PAIRS.get_or_init(|| {
        shader_paths()
            .into_iter()
            .filter_map(|shader| {
                let profile = skinproof::profile::beside(&shader);
                let text = std::fs::read_to_string(&profile).ok()?;
                let source = std::fs::read_to_string(&shader).unwrap();
                Some(Pair {
                    shader,
                    source,
                    profile,
                    text,
                })
            })
            .collect()
    })
}

/// The default shader and every shipped example shader written as text (WGSL, GLSL), sorted.
pub(crate) fn shader_paths() -> Vec<PathBuf> {
    use skinproof::foreign::Form;
    let mut paths = vec![root().join("shaders/skinning.wgsl")];
    let examples = std::fs::read_dir(root().join("shaders/examples")).unwrap();
    paths.extend(examples.map(|e| e.unwrap().path()).filter(|p| {
        p.extension().is_some_and(|x| x == "wgsl") || matches!(Form::of(p), Ok(Form::Glsl(_)))
    }));
    paths.sort();
    paths
}

/// The words the shipped profiles use as values (after `: `), so that a swap gives a value some
/// other field takes: `storage`, `u16x4`, `rows`, `vec3`, an entry point's or member's name.
fn words() -> &'static [String] {
    static WORDS: OnceLock<Vec<String>> = OnceLock::new();
    WORDS.get_or_init(|| {
        let mut all: Vec<String> = pairs()
            .iter()
            .flat_map(|p| value_words(&p.text).map(|(a, b)| p.text[a..b].to_string()))
            .collect();
        all.sort();
        all.dedup();
        all
    })
}

/// Byte spans of the word values in `text`: an identifier right after `: `, outside comments.
fn value_words(text: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    let bytes = text.as_bytes();
    let mut at = 0;
    std::iter::from_fn(move || {
        while let Some(found) = text[at..].find(": ") {
            let start = at + found + 2;
            at = start;
            let line_start = text[..start].rfind('\n').map_or(0, |n| n + 1);
            if text[line_start..start].contains('#') {
                continue;
            }
            let end = (start..bytes.len())
                .find(|&i| !(bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_'))
                .unwrap_or(bytes.len());
            if end > start && bytes[start].is_ascii_alphabetic() {
                return Some((start, end));
            }
        }
        None
    })
}

/// `text` with each edit applied: (0, i, v) sets the i-th number to v (0..=300, past the ranges
/// as often as in them), (1, i, w) sets the i-th word value to the w-th known word.
pub(crate) fn edit_values(text: &str, edits: &[(u8, usize, usize)]) -> String {
    let mut out = text.to_string();
    for &(kind, i, v) in edits {
        let spans: Vec<(usize, usize)> = if kind % 2 == 0 {
            numbers(&out).collect()
        } else {
            value_words(&out).collect()
        };
        let Some(&(a, b)) = spans.get(i % spans.len().max(1)) else {
            continue;
        };
        let with = if kind % 2 == 0 {
            (v % 301).to_string()
        } else {
            words()[v % words().len()].clone()
        };
        out.replace_range(a..b, &with);
    }
    out
}

/// Byte spans of the decimal integers in `text` outside comments, not part of a word.
fn numbers(text: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    let bytes = text.as_bytes();
    let mut i = 0;
    let mut comment = false;
    std::iter::from_fn(move || {
        while i < bytes.len() {
            let c = bytes[i];
            if c == b'\n' {
                comment = false;
            } else if c == b'#' {
                comment = true;
            }
            let word_start =
                i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
            if !comment && c.is_ascii_digit() && word_start {
                let start = i;
                while i < bytes.len() && bytes[i].is_ascii_digit() {
                    i += 1;
                }
                return Some((start, i));
            }
            i += 1;
        }
        None
    })
}

/// WGSL types a binding, member or attribute may have.
const TYPES: &[&str] = &[
    "f32",
    "u32",
    "i32",
    "vec2<f32>",
    "vec3<f32>",
    "vec4<f32>",
    "vec2<u32>",
    "vec4<u32>",
    "vec4<i32>",
    "mat4x4<f32>",
    "mat3x4<f32>",
    "mat4x3<f32>",
    "mat3x3<f32>",
    "array<f32>",
    "array<u32>",
    "array<vec4<f32>>",
    "array<mat4x4<f32>>",
    "array<mat4x4<f32>, 4>",
];

/// `text` with each edit applied: (i, t) replaces the i-th type (one of [`TYPES`] as written
/// there) by the t-th.
pub(crate) fn retype(text: &str, edits: &[(usize, usize)]) -> String {
    let mut out = text.to_string();
    for &(i, t) in edits {
        let mut spans: Vec<(usize, usize)> = TYPES
            .iter()
            .flat_map(|ty| {
                out.match_indices(ty).filter_map(|(a, m)| {
                    let before = out[..a].chars().next_back();
                    let after = out[a + m.len()..].chars().next();
                    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
                    (!word(before) && !word(after)).then_some((a, a + m.len()))
                })
            })
            .collect();
        if spans.is_empty() {
            break;
        }
        spans.sort();
        let (a, b) = spans[i % spans.len()];
        out.replace_range(a..b, TYPES[t % TYPES.len()]);
    }
    out
}
