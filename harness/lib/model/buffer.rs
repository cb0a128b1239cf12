//! glTF buffer bytes: the GLB binary chunk, `data:` URIs (base64, percent-encoded) or files beside the model.

use std::path::{Component, Path};

use crate::file::{read_limited, MAX_MODEL_BYTES};

use super::{Cx, ModelError};

/// Every buffer's bytes: the GLB binary chunk, a `data:` URI, or a file beside the model; a meshopt
/// fallback buffer's are zeros of its `byteLength`, which its compressed views fill.
pub(super) fn resolve_buffers(cx: &Cx, gltf: &gltf::Gltf) -> Result<Vec<Vec<u8>>, ModelError> {
    let mut out = Vec::new();
    for buffer in gltf.document.buffers() {
        let field = format!("buffers[{}]", buffer.index());
        if super::meshopt::is_fallback(&buffer) {
            out.push(fallback(cx, &field, buffer.length())?);
            continue;
        }
        let mut data = match buffer.source() {
            gltf::buffer::Source::Bin => gltf
                .blob
                .clone()
                .ok_or_else(|| cx.bad(&field, "refers to a GLB binary chunk, but there is none"))?,
            gltf::buffer::Source::Uri(uri) if uri.starts_with("data:") => {
                let (head, payload) = uri
                    .split_once(',')
                    .ok_or_else(|| cx.bad(format!("{field}.uri"), "malformed data: URI"))?;
                if !head.ends_with(";base64") {
                    return Err(cx.bad(format!("{field}.uri"), "data: URI is not base64"));
                }
                base64_decode(payload)
                    .ok_or_else(|| cx.bad(format!("{field}.uri"), "invalid base64 in data: URI"))?
            }
            gltf::buffer::Source::Uri(uri) => read_beside(cx, &format!("{field}.uri"), uri)?,
        };
        if data.len() < buffer.length() {
            return Err(cx.bad(
                field,
                format!(
                    "byteLength is {} but only {} bytes are there",
                    buffer.length(),
                    data.len()
                ),
            ));
        }
        data.truncate(buffer.length());
        out.push(data);
    }
    Ok(out)
}

/// A meshopt fallback buffer's bytes: zeros, until its compressed views are decoded into them; at
/// most as many as a model file may hold.
fn fallback(cx: &Cx, field: &str, length: usize) -> Result<Vec<u8>, ModelError> {
    if length as u64 > MAX_MODEL_BYTES {
        return Err(cx.bad(
            format!("{field}.byteLength"),
            format!(
                "is {length}: a fallback buffer's decoded bytes may be at most {} MiB",
                MAX_MODEL_BYTES >> 20
            ),
        ));
    }
    Ok(vec![0; length])
}

/// A buffer file named by a relative URI, read only where it stays inside the model's folder: a
/// scheme (`http:`, `file:`), an absolute path, a `..` past the folder or a symlink out of it is
/// refused, naming the buffer and the URI.
fn read_beside(cx: &Cx, field: &str, uri: &str) -> Result<Vec<u8>, ModelError> {
    let refuse = |why: &str| {
        cx.bad(
            field,
            format!("{uri:?}: {why}; only data: URIs and relative paths inside the model's folder are read"),
        )
    };
    if let Some(scheme) = uri_scheme(uri) {
        return Err(refuse(&format!("is a {scheme}: URI")));
    }
    let rel = percent_decode(uri).ok_or_else(|| cx.bad(field, format!("{uri:?}: bad % escape")))?;
    let rel = Path::new(&rel);
    if rel.has_root() || rel.is_absolute() || rel.starts_with("\\") {
        return Err(refuse("is an absolute path"));
    }
    let mut depth = 0usize;
    for c in rel.components() {
        match c {
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
            Component::ParentDir if depth > 0 => depth -= 1,
            _ => return Err(refuse("leaves the model's folder")),
        }
    }
    // Beside the model file itself: a symlinked model's buffers are those beside its target.
    let cannot = |what: &Path, e: &dyn std::fmt::Display| {
        cx.bad(field, format!("cannot read {}: {e}", what.display()))
    };
    let model = std::fs::canonicalize(cx.path).map_err(|e| cannot(cx.path, &e))?;
    let dir = model.parent().unwrap_or(Path::new("/"));
    let file = dir.join(rel);
    let real = std::fs::canonicalize(&file).map_err(|e| cannot(&file, &e))?;
    if !real.starts_with(dir) {
        return Err(refuse(&format!(
            "resolves to {}, outside the model's folder",
            real.display()
        )));
    }
    read_limited(&file, MAX_MODEL_BYTES).map_err(|e| cannot(&file, &e))
}

/// The scheme of a URI (`http` of `http://…`), as RFC 3986 spells one: a letter, then letters,
/// digits, `+`, `-` or `.`, then a colon.
fn uri_scheme(uri: &str) -> Option<&str> {
    let (scheme, _) = uri.split_once(':')?;
    let mut chars = scheme.chars();
    (chars.next()?.is_ascii_alphabetic()
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
    .then_some(scheme)
}

/// Decodes `%XX` escapes of a relative URI into a path string.
pub(super) fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 with `=` padding.
pub fn base64_encode(data: &[u8]) -> String {
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(BASE64[(n >> (18 - 6 * k) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Base64 (standard or URL-safe alphabet, padding optional); `None` on any other character.
pub fn base64_decode(s: &str) -> Option<Vec<u8>> {
    let s = s.trim_end_matches('=');
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in s.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}
