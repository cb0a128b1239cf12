//! Meshopt compression (`EXT_meshopt_compression`, gltfpack's `-c`, and its ratified twin
//! `KHR_meshopt_compression`): each compressed buffer view decoded by meshoptimizer's own decoders
//! into the bytes it stands for, before any accessor reads them.
//!
//! A compressed view keeps its plain fields (`buffer`, `byteOffset`, `byteLength`), which name
//! where its decoded bytes go (usually a *fallback* buffer that has no bytes of its own), and its
//! extension object names where the compressed bytes are and how they decode: `mode` `ATTRIBUTES`
//! (the vertex codec, `count` elements of `byteStride` bytes, then the `filter`: `OCTAHEDRAL`,
//! `QUATERNION`, `EXPONENTIAL` or `COLOR`), `TRIANGLES` (the index codec) or `INDICES` (the index
//! sequence codec), 2- or 4-byte indices. meshoptimizer's decoders take untrusted bytes safely but
//! assert their sizes; those are checked here first, so a malformed file is refused by name.

use serde::Deserialize;
use serde_json::Value;

use super::{Cx, ModelError};

/// The extension's names, as `extensionsUsed` and `extensionsRequired` list them and as buffers
/// and buffer views hold them: gltfpack's, and the Khronos one ratified from it.
pub(super) const EXTENSIONS: [&str; 2] = ["EXT_meshopt_compression", "KHR_meshopt_compression"];

/// A compressed view's extension object.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Compressed {
    buffer: usize,
    #[serde(default)]
    byte_offset: usize,
    byte_length: usize,
    byte_stride: usize,
    count: usize,
    mode: Mode,
    #[serde(default)]
    filter: Filter,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
enum Mode {
    Attributes,
    Triangles,
    Indices,
}

impl Mode {
    /// As the file spells it.
    fn name(self) -> &'static str {
        match self {
            Mode::Attributes => "ATTRIBUTES",
            Mode::Triangles => "TRIANGLES",
            Mode::Indices => "INDICES",
        }
    }
}

#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
enum Filter {
    #[default]
    None,
    Octahedral,
    Quaternion,
    Exponential,
    Color,
}

impl Filter {
    /// As the file spells it.
    fn name(self) -> &'static str {
        match self {
            Filter::None => "NONE",
            Filter::Octahedral => "OCTAHEDRAL",
            Filter::Quaternion => "QUATERNION",
            Filter::Exponential => "EXPONENTIAL",
            Filter::Color => "COLOR",
        }
    }
}

/// The buffer's or view's extension object, under whichever of the two names it uses.
fn extension<'a>(value: impl Fn(&str) -> Option<&'a Value>) -> Option<(&'static str, &'a Value)> {
    EXTENSIONS
        .iter()
        .find_map(|&name| value(name).map(|v| (name, v)))
}

/// Whether the buffer is a fallback: it only stands for the views decoded into it, so its own
/// bytes (a `uri`, or none) are not read; they are zeros until [`decompress`] fills them.
pub(super) fn is_fallback(buffer: &gltf::Buffer) -> bool {
    extension(|name| buffer.extension_value(name))
        .and_then(|(_, e)| e.get("fallback"))
        .and_then(Value::as_bool)
        == Some(true)
}

/// Decodes every compressed view of `doc` into the buffer its plain fields name, at its offset.
/// A view whose extension object the extension does not allow, whose compressed bytes lie outside
/// their buffer or do not decode, or whose decoded bytes do not fit its `byteLength`, is refused,
/// naming the field; so is an uncompressed view of a fallback buffer (it would read zeros).
pub(super) fn decompress(
    cx: &Cx,
    doc: &gltf::Document,
    buffers: &mut [Vec<u8>],
) -> Result<(), ModelError> {
    for view in doc.views() {
        let Some((name, value)) = extension(|name| view.extension_value(name)) else {
            // A fallback buffer holds only what compressed views decode into it.
            if is_fallback(&view.buffer()) {
                return Err(cx.bad(
                    format!("bufferViews[{}].buffer", view.index()),
                    format!(
                        "is buffers[{}], a meshopt fallback buffer, but the view is not compressed: a fallback buffer holds only what its compressed views decode",
                        view.buffer().index()
                    ),
                ));
            }
            continue;
        };
        let field = format!("bufferViews[{}].extensions.{name}", view.index());
        let c = Compressed::deserialize(value).map_err(|e| cx.bad(&field, e.to_string()))?;
        let plain = format!("bufferViews[{}]", view.index());
        let decoded = c.decode(cx, &field, buffers)?;
        if c.mode == Mode::Attributes && view.stride().is_some_and(|s| s != c.byte_stride) {
            return Err(cx.bad(
                format!("{plain}.byteStride"),
                format!(
                    "is {}, but its compressed elements are {} bytes apart (`{field}.byteStride`)",
                    view.stride().unwrap_or_default(),
                    c.byte_stride
                ),
            ));
        }
        let (at, len) = (view.offset(), decoded.len());
        let place = at.checked_add(len).map(|end| at..end);
        let target = (buffers.get_mut(view.buffer().index()))
            .zip(place)
            .and_then(|(b, place)| b.get_mut(place));
        match target {
            Some(bytes) if len <= view.length() => bytes.copy_from_slice(&decoded),
            _ => {
                return Err(cx.bad(
                    format!("{plain}.byteLength"),
                    format!(
                        "is {}, but its {} elements of {} bytes decode to {len} bytes, more than \
                         it or its buffer holds from byteOffset {at}",
                        view.length(),
                        c.count,
                        c.byte_stride,
                    ),
                ))
            }
        }
    }
    Ok(())
}

impl Compressed {
    /// The view's decoded bytes: `count` elements of `byteStride` bytes.
    fn decode(&self, cx: &Cx, field: &str, buffers: &[Vec<u8>]) -> Result<Vec<u8>, ModelError> {
        let bad = |what: &str, why: String| cx.bad(format!("{field}.{what}"), why);
        self.check_sizes(&bad)?;
        let source = (buffers.get(self.buffer)).ok_or_else(|| {
            bad(
                "buffer",
                format!("is {}, but there is no such buffer", self.buffer),
            )
        })?;
        let end = self.byte_offset.checked_add(self.byte_length);
        let src = end
            .and_then(|end| source.get(self.byte_offset..end))
            .ok_or_else(|| {
                bad(
                    "byteLength",
                    format!(
                        "{} bytes from byteOffset {} lie past the end of buffers[{}] ({} bytes)",
                        self.byte_length,
                        self.byte_offset,
                        self.buffer,
                        source.len()
                    ),
                )
            })?;
        let size = (self.count)
            .checked_mul(self.byte_stride)
            .filter(|&n| n as u64 <= crate::file::MAX_MODEL_BYTES)
            .ok_or_else(|| {
                bad(
                    "count",
                    format!(
                        "{} elements of {} bytes are more than the {} MiB a model's buffer may hold",
                        self.count,
                        self.byte_stride,
                        crate::file::MAX_MODEL_BYTES >> 20
                    ),
                )
            })?;
        // In u32 words: the filters read 16- and 32-bit lanes in place, which need their alignment.
        let mut words = vec![0u32; size.div_ceil(4)];
        let dst = words.as_mut_ptr().cast::<std::ffi::c_void>();
        let (n, stride) = (self.count, self.byte_stride);
        // SAFETY: `dst` holds `size` = n * stride bytes (rounded up to words), as many as each
        // decoder writes; `src` is a live slice of its length, apart from `dst` (a fresh
        // allocation); the decoders keep neither pointer. meshoptimizer asserts the sizes it
        // relies on only in debug builds (the `meshopt` crate builds it with NDEBUG in release),
        // so `check_sizes` is what holds them: a stride a multiple of 4 up to 256 for the vertex
        // codec, 2 or 4 for the index codecs, a triangle list's count a multiple of 3. The
        // decoders take untrusted bytes (meshoptimizer's contract): malformed data return an
        // error code, never a read past `src`.
        let code = unsafe {
            match self.mode {
                Mode::Attributes => ::meshopt::ffi::meshopt_decodeVertexBuffer(
                    dst,
                    n,
                    stride,
                    src.as_ptr(),
                    src.len(),
                ),
                Mode::Triangles => ::meshopt::ffi::meshopt_decodeIndexBuffer(
                    dst,
                    n,
                    stride,
                    src.as_ptr(),
                    src.len(),
                ),
                Mode::Indices => ::meshopt::ffi::meshopt_decodeIndexSequence(
                    dst,
                    n,
                    stride,
                    src.as_ptr(),
                    src.len(),
                ),
            }
        };
        if code != 0 {
            return Err(cx.bad(
                field,
                format!(
                    "its {} bytes from buffers[{}] do not decode as {} (meshoptimizer's decoder \
                     returned {code}: malformed or truncated data, or a count or byteStride other \
                     than it was encoded with)",
                    self.byte_length,
                    self.buffer,
                    self.mode.name()
                ),
            ));
        }
        let filter = match self.filter {
            Filter::None => None,
            Filter::Octahedral => Some(::meshopt::ffi::meshopt_decodeFilterOct as Decode),
            Filter::Quaternion => Some(::meshopt::ffi::meshopt_decodeFilterQuat as Decode),
            Filter::Exponential => Some(::meshopt::ffi::meshopt_decodeFilterExp as Decode),
            Filter::Color => Some(::meshopt::ffi::meshopt_decodeFilterColor as Decode),
        };
        if let Some(filter) = filter {
            // SAFETY: `dst` holds n elements of `stride` bytes, 4-byte aligned (u32 words) for
            // the 16- and 32-bit lanes the filters read and write in place; `check_sizes` checked
            // the stride each filter asserts (in debug builds only, as above).
            unsafe { filter(dst, n, stride) };
        }
        let mut bytes: Vec<u8> = bytemuck::cast_slice(&words).to_vec();
        bytes.truncate(size);
        Ok(bytes)
    }

    /// The sizes the extension allows (and meshoptimizer's decoders assert): refused by name.
    fn check_sizes(&self, bad: &impl Fn(&str, String) -> ModelError) -> Result<(), ModelError> {
        let s = self.byte_stride;
        let stride_ok = match self.mode {
            Mode::Attributes => s > 0 && s.is_multiple_of(4) && s <= 256,
            Mode::Triangles | Mode::Indices => s == 2 || s == 4,
        };
        if !stride_ok {
            let allowed = match self.mode {
                Mode::Attributes => "a multiple of 4 from 4 to 256",
                _ => "2 or 4",
            };
            return Err(bad(
                "byteStride",
                format!(
                    "is {s}; with mode {} it must be {allowed}",
                    self.mode.name()
                ),
            ));
        }
        if self.mode == Mode::Triangles && !self.count.is_multiple_of(3) {
            return Err(bad(
                "count",
                format!("is {}; a triangle list's is a multiple of 3", self.count),
            ));
        }
        let filter_ok = match self.filter {
            Filter::None => true,
            _ if self.mode != Mode::Attributes => false,
            Filter::Octahedral | Filter::Color => s == 4 || s == 8,
            Filter::Quaternion => s == 8,
            Filter::Exponential => true,
        };
        if !filter_ok {
            return Err(bad(
                "filter",
                format!(
                    "{} does not apply to mode {} with byteStride {s} (OCTAHEDRAL and COLOR take \
                     4 or 8 bytes, QUATERNION 8, and every filter mode ATTRIBUTES only)",
                    self.filter.name(),
                    self.mode.name()
                ),
            ));
        }
        Ok(())
    }
}

/// A meshoptimizer filter's decoder: in place, over `count` elements of `stride` bytes.
type Decode = unsafe extern "C" fn(*mut std::ffi::c_void, usize, usize);
