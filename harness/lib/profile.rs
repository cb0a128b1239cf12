//! The layout profile: where a shader reads and writes each role, in which format, from a YAML file.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::case::CaseError;
use crate::compose::Define;
use crate::contract::{Contract, Elem, Fill, Origin, Pipeline, Role, Space, Want};
use crate::format::{AttributePosition, JointFormat, PositionFormat, TangentFormat, WeightFormat};
use crate::yaml_line;

/// A shader's own layout: which stages it has and, per role, its group and binding or vertex
/// location and format. The default profile is the harness's built-in contract.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    /// The shader file this profile describes (its file name), so that a profile is not used for
    /// another shader by mistake.
    #[serde(default)]
    pub shader: Option<String>,
    /// The shader is split into modules, composed before anything reads it.
    #[serde(default)]
    pub modules: Option<Modules>,
    pub palette: Palette,
    /// The compute pre-skinning pass, if the shader has one.
    #[serde(default)]
    pub compute: Option<Compute>,
    /// The vertex stage that skins, if the shader has one.
    #[serde(default)]
    pub vertex: Option<Vertex>,
    /// How many influence sets of 4 joints and 4 weights the shader reads per vertex (default 1).
    #[serde(default)]
    pub influence_sets: Option<usize>,
    /// The matrix the shader skins normals by: the blended matrix's inverse transpose (default)
    /// or the blended matrix itself; the CPU reference follows it.
    #[serde(default)]
    pub normal_matrix: Option<crate::format::NormalMatrix>,
    /// Values for the shader's pipeline-overridable constants (WGSL `override`), keyed by name,
    /// or by number where the declaration has an `@id`: every pipeline and translation of the
    /// shader gets them. An override without a default needs one.
    #[serde(default)]
    pub constants: BTreeMap<String, Constant>,
    /// The shader's other buffers that its stages read (a model matrix, a material's or a
    /// light's uniform), which the harness fills.
    #[serde(default)]
    pub bindings: Vec<FilledBinding>,
    /// Cases this layout cannot hold, and the failure each is known to give.
    #[serde(default)]
    pub expect: Vec<ShaderExpect>,
    #[serde(skip)]
    pub path: PathBuf,
    /// The file's text, for the lines messages point to.
    #[serde(skip)]
    pub source: String,
}

/// A pipeline-overridable constant's value: a number, or `true` / `false` for a `bool` override
/// (WebGPU passes every value as a double).
#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum Constant {
    Bool(bool),
    Number(f64),
}

impl Constant {
    /// The value as WebGPU passes it.
    pub fn value(self) -> f64 {
        match self {
            Constant::Bool(b) => f64::from(u8::from(b)),
            Constant::Number(x) => x,
        }
    }
}

/// A buffer outside the skinning roles that the harness binds, sized from the shader's type, for
/// both pipelines.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FilledBinding {
    pub group: u32,
    pub binding: u32,
    /// `zero` (default) or `identity`: ones on the diagonal of every float matrix of its type.
    #[serde(default)]
    pub fill: Fill,
    /// f32 values written from byte 0, over the fill.
    #[serde(default)]
    pub floats: Vec<f32>,
    /// Values by member name of the binding's struct (or of element 0 of an array of structs),
    /// each written as the member's type holds it (f32, u32, i32; a vector or matrix a list):
    /// after the floats.
    #[serde(default)]
    pub members: BTreeMap<String, Numbers>,
    /// The u32 or i32 member (of the struct, or of element 0 of an array of structs) that holds
    /// where the case's joint 0 starts in the palette, as an engine's per-instance skin index:
    /// the harness puts other matrices first and writes their count here.
    #[serde(default)]
    pub palette_offset: Option<String>,
    /// The u32 or i32 member (as `palette_offset`'s) that holds the case's vertex count, as an
    /// engine's skinning parameters do: written for each compute dispatch, in place of
    /// `compute.count`.
    #[serde(default)]
    pub count: Option<String>,
}

/// One number, or a list of them (a vector's components, a matrix's column by column).
#[derive(Clone, Debug, PartialEq)]
pub struct Numbers(pub Vec<f64>);

impl<'de> Deserialize<'de> for Numbers {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Numbers, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Numbers;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a number, or a list of numbers (a vector's or a matrix's)")
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Numbers, E> {
                Ok(Numbers(vec![v as f64]))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Numbers, E> {
                Ok(Numbers(vec![v as f64]))
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Numbers, E> {
                Ok(Numbers(vec![v]))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Numbers, A::Error> {
                let mut out = Vec::new();
                while let Some(v) = seq.next_element::<f64>()? {
                    out.push(v);
                }
                Ok(Numbers(out))
            }
        }
        d.deserialize_any(Visit)
    }
}

/// A case the shader's layout cannot hold (300 joints for `u8` joints, or for a palette of 256
/// matrices), as wgpu's tests state expected failures: which checks, why, and a matcher for the
/// failure expected. A matching failure is XFAIL; another failure stays FAIL; a pass is XPASS,
/// which fails the run, so a stale entry is seen.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ShaderExpect {
    /// The case's name (its file stem), or a pattern where `*` stands for any run of characters
    /// (`gltf_*`: every case made from a glTF model).
    pub case: String,
    /// The checks (and `case_loads`) expected to fail; empty: all of them.
    #[serde(default)]
    pub checks: Vec<String>,
    /// Text the failure's message must contain.
    pub matches: String,
    /// Why: required, so that expectations can be reviewed and retired.
    pub reason: String,
    /// Where the entry is, `file:line`, for messages.
    #[serde(skip)]
    pub at: String,
}

impl ShaderExpect {
    /// Whether this entry covers `check` of `case`.
    pub fn covers(&self, case: &str, check: &str) -> bool {
        names(&self.case, case)
            && (self.checks.is_empty() || self.checks.iter().any(|c| c == check))
    }
}

/// Whether `pattern` names `name`: equal, with each `*` standing for any run of characters.
fn names(pattern: &str, name: &str) -> bool {
    let mut parts = pattern.split('*');
    let first = parts.next().unwrap_or_default();
    let Some(mut rest) = name.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else {
        return rest.is_empty();
    };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

/// A shader split into modules (naga_oil's `#import`, `#ifdef`, `#define_import_path`).
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Modules {
    /// The entry module, relative to the profile's folder: the shader under test.
    pub entry: String,
    /// The folders its imports are found in, relative to the profile's folder.
    #[serde(default)]
    pub folders: Vec<String>,
    /// The defines, name -> `true`, `false` (left undefined) or an integer.
    #[serde(default)]
    pub defines: BTreeMap<String, Define>,
}

/// A resource binding.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq, PartialOrd, Ord)]
#[serde(deny_unknown_fields)]
pub struct Slot {
    pub group: u32,
    pub binding: u32,
}

/// The joint matrices, shared by both stages.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Palette {
    pub group: u32,
    pub binding: u32,
    /// `storage` (a runtime-sized array) or `uniform` (a fixed-length array).
    #[serde(default)]
    pub form: PaletteForm,
    /// A split palette: `binding` holds the joints' global matrices and this binding their
    /// inverse binds, multiplied in the shader.
    #[serde(default)]
    pub inverse_binds: Option<Slot>,
    /// A uniform whose first u32 is the index of the case's joint 0 in the palette buffer (a
    /// per-draw base offset); the harness puts other matrices before it.
    #[serde(default)]
    pub offset: Option<Slot>,
    /// The member of a larger struct that holds the palette (an engine's mesh uniform with a
    /// world matrix before its bones); the harness fills the struct's other bytes as `fill` says.
    #[serde(default)]
    pub member: Option<String>,
    #[serde(default)]
    pub fill: Fill,
    /// With `form: texture`: texels a joint, 4 (its columns, default) or 3 (the rows of its
    /// affine 3x4).
    #[serde(default)]
    pub texels: Option<u32>,
    /// With `form: texture`: the texture's width in texels, `row` or `square`.
    #[serde(default)]
    pub width: Option<Width>,
    /// With `form: texture`: the sampler the shader reads it through, if it takes one.
    #[serde(default)]
    pub sampler: Option<Slot>,
    /// Each element's matrix: `columns` (default, a column-major `mat4x4<f32>`) or `rows` (a
    /// `mat3x4<f32>` holding the affine's three rows).
    #[serde(default)]
    pub matrix: MatrixForm,
    /// Elements are structs, and this member holds each one's matrix.
    #[serde(default)]
    pub element_member: Option<String>,
}

#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum MatrixForm {
    #[default]
    Columns,
    Rows,
}

#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum PaletteForm {
    #[default]
    Storage,
    Uniform,
    /// A `texture_2d<f32>` of RGBA f32 texels (an engine's bone texture).
    Texture,
}

/// A palette texture's width: a number of texels, `row` (all in one row) or `square` (the
/// smallest power-of-two square, at least 4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Width(pub crate::contract::TextureWidth);

impl<'de> Deserialize<'de> for Width {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Width, D::Error> {
        use crate::contract::TextureWidth;
        struct Visit;
        impl serde::de::Visitor<'_> for Visit {
            type Value = Width;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a number of texels from 1 up, `row` or `square`")
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Width, E> {
                match u32::try_from(v) {
                    Ok(w) if w > 0 => Ok(Width(TextureWidth::Fixed(w))),
                    _ => Err(E::invalid_value(serde::de::Unexpected::Unsigned(v), &self)),
                }
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Width, E> {
                match v {
                    "row" => Ok(Width(TextureWidth::Row)),
                    "square" => Ok(Width(TextureWidth::Square)),
                    _ => Err(E::invalid_value(serde::de::Unexpected::Str(v), &self)),
                }
            }
        }
        d.deserialize_any(Visit)
    }
}

/// A storage buffer holding one value per vertex.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Buffer<F> {
    pub group: u32,
    pub binding: u32,
    #[serde(default)]
    pub format: F,
}

impl<F> Buffer<F> {
    pub fn slot(&self) -> Slot {
        Slot {
            group: self.group,
            binding: self.binding,
        }
    }
}

/// The compute stage's entry point and bindings: positions, joints and weights each in its own
/// buffer, or all in one byte-addressed `vertices` buffer; the output in `skinned`, or
/// byte-addressed in `output`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Compute {
    pub entry: String,
    #[serde(default)]
    pub positions: Option<Buffer<PositionFormat>>,
    #[serde(default)]
    pub joints: Option<Buffer<JointFormat>>,
    #[serde(default)]
    pub weights: Option<Buffer<WeightFormat>>,
    #[serde(default)]
    pub vertices: Option<Vertices>,
    /// The joints and weights in a byte-addressed buffer of their own, beside the positions.
    #[serde(default)]
    pub influences: Option<Influences>,
    #[serde(default)]
    pub skinned: Option<Buffer<PositionFormat>>,
    #[serde(default)]
    pub output: Option<Output>,
    /// A uniform whose first u32 is the vertex count; left out, the shader bounds its invocations
    /// itself (by `arrayLength` of an input, each bound to exactly the case's vertices).
    #[serde(default)]
    pub count: Option<Slot>,
    /// Source normals, `vec4` or `vec3` (typed: a 16-byte stride either way; w is 0), if the
    /// shader skins normals.
    #[serde(default)]
    pub normals: Option<Frames<PositionFormat>>,
    /// Source tangents, `vec4` (w = handedness) or `vec3` (the direction alone), if the shader
    /// skins tangents.
    #[serde(default)]
    pub tangents: Option<Frames<TangentFormat>>,
    /// Where the shader writes skinned normals, compared with the CPU reference's by angle; at
    /// `normals`' binding, over them.
    #[serde(default)]
    pub skinned_normals: Option<Frames<PositionFormat>>,
    /// Where the shader writes skinned tangents (a vec4's w the source's); at `tangents`'
    /// binding, over them.
    #[serde(default)]
    pub skinned_tangents: Option<Frames<TangentFormat>>,
}

/// A buffer of one normal or tangent a vertex: a typed array (`array<vec4<f32>>`, or
/// `array<vec3<f32>>` at the same 16-byte stride), or with `stride` a byte-addressed one
/// (`array<f32>`, `array<u32>` or an array of a struct of 32-bit members), each vertex `stride`
/// bytes and its direction at byte `offset` of them, as engines keep tightly packed streams.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Frames<F> {
    pub group: u32,
    pub binding: u32,
    /// Left out: a skinned one's source's; else a vec4 tangent, and a normal as a vec4 in a typed
    /// array, a vec3 byte-addressed.
    #[serde(default)]
    pub format: Option<F>,
    #[serde(default)]
    pub stride: Option<u32>,
    #[serde(default)]
    pub offset: Option<u32>,
}

impl<F: Copy> Frames<F> {
    /// These skinned directions with their source's format where they give none.
    fn inherit(self, source: Option<Frames<F>>) -> Frames<F> {
        Frames {
            format: self.format.or(source.and_then(|s| s.format)),
            ..self
        }
    }
}

impl Compute {
    /// The skinned normals and tangents, each in its source's format unless it gives its own.
    fn skinned_frames(
        &self,
    ) -> (
        Option<Frames<PositionFormat>>,
        Option<Frames<TangentFormat>>,
    ) {
        (
            self.skinned_normals.map(|f| f.inherit(self.normals)),
            self.skinned_tangents.map(|f| f.inherit(self.tangents)),
        )
    }
}

impl<F> Frames<F> {
    pub fn slot(&self) -> Slot {
        Slot {
            group: self.group,
            binding: self.binding,
        }
    }

    /// Where each vertex's direction of `words` floats lies.
    fn stream(&self, words: u32) -> crate::format::Stream {
        match self.stride {
            Some(stride) => crate::format::Stream {
                stride,
                offset: self.offset.unwrap_or(0),
                words,
                byte_addressed: true,
            },
            None => crate::format::Stream::typed(words),
        }
    }
}

impl Frames<PositionFormat> {
    /// A normal's stream: a vec4's w (0) is a word of it only where byte-addressed.
    fn normal_stream(&self) -> crate::format::Stream {
        let words = match (self.stride, self.format) {
            (Some(_), Some(PositionFormat::Vec4)) => 4,
            _ => 3,
        };
        self.stream(words)
    }
}

impl Frames<TangentFormat> {
    fn tangent_format(&self) -> TangentFormat {
        self.format.unwrap_or_default()
    }

    fn tangent_stream(&self) -> crate::format::Stream {
        self.stream(self.tangent_format().words())
    }
}

/// A vertex attribute or stage output given by its location alone (its type is the role's).
#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Location {
    pub location: u32,
}

/// A byte-addressed vertex buffer: one `array<u32>` (or an array of the shader's vertex struct),
/// each vertex `stride` bytes, its fields at byte offsets or, in a struct, at named members.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Vertices {
    pub group: u32,
    pub binding: u32,
    /// Bytes a vertex; left out, the stride of the shader's array of structs.
    #[serde(default)]
    pub stride: Option<u32>,
    /// The `vec3<f32>` position's offset (12 bytes).
    pub position: Place,
    /// Left out where another buffer holds the joints and weights (`compute.influences`).
    #[serde(default)]
    pub joints: Option<Field<JointFormat>>,
    #[serde(default)]
    pub weights: Option<Field<WeightFormat>>,
    /// The source `vec3<f32>` normal's offset (12 bytes), if the shader reads it here.
    #[serde(default)]
    pub normal: Option<Place>,
    /// The source `vec4<f32>` tangent's offset (16 bytes, w = handedness), if it reads it here.
    #[serde(default)]
    pub tangent: Option<Place>,
}

/// A byte-addressed buffer of each vertex's joints and weights alone, beside the vertices' own
/// buffer (an engine's skin stream): `array<u32>`, or an array of the shader's struct.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Influences {
    pub group: u32,
    pub binding: u32,
    /// Bytes a vertex; left out, the stride of the shader's array of structs.
    #[serde(default)]
    pub stride: Option<u32>,
    pub joints: Field<JointFormat>,
    pub weights: Field<WeightFormat>,
}

/// `slot()` for the byte-addressed buffers, which give their group and binding beside their fields.
macro_rules! slotted {
    ($($t:ty),*) => {$(
        impl $t {
            pub fn slot(&self) -> Slot {
                Slot {
                    group: self.group,
                    binding: self.binding,
                }
            }
        }
    )*};
}
slotted!(Vertices, Influences, Output);

/// A field of a byte-addressed vertex: its offset, one per influence set, and format.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Field<F> {
    pub offset: Offsets,
    #[serde(default)]
    pub format: F,
}

/// A byte-addressed output: one `array<u32>` or `array<f32>`, vertex i's skinned `vec3<f32>` at
/// `i * stride + position` bytes (12 bytes: tightly packed), its skinned normal and tangent at
/// their offsets where the shader writes them here.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Output {
    pub group: u32,
    pub binding: u32,
    /// Bytes a vertex; left out, the stride of the shader's array of structs.
    #[serde(default)]
    pub stride: Option<u32>,
    pub position: Place,
    /// The skinned `vec3<f32>` normal's offset (12 bytes).
    #[serde(default)]
    pub normal: Option<Place>,
    /// The skinned `vec4<f32>` tangent's offset (16 bytes, w the source's).
    #[serde(default)]
    pub tangent: Option<Place>,
}

impl Output {
    /// The layout the harness reads the output in (a named member at byte 0 until the shader
    /// places it).
    pub fn layout(&self) -> crate::format::Packed {
        let mut named = Named::default();
        crate::format::Packed {
            stride: named.stride(self.stride),
            position: named.byte("position", &self.position),
            frames: crate::format::FrameFields {
                normal: named.maybe("normal", &self.normal),
                tangent: named.maybe("tangent", &self.tangent),
            },
            others: Vec::new(),
            members: named.0,
        }
    }
}

/// A field's place in a vertex: a byte offset, or the name of the member of the shader's vertex
/// struct that holds it (its offset read from the shader).
#[derive(Clone, Debug, PartialEq)]
pub enum Place {
    Byte(u32),
    Member(String),
}

impl Place {
    fn from_u64<E: serde::de::Error>(v: u64, exp: &dyn serde::de::Expected) -> Result<Place, E> {
        u32::try_from(v)
            .map(Place::Byte)
            .map_err(|_| E::invalid_value(serde::de::Unexpected::Unsigned(v), exp))
    }
}

impl<'de> Deserialize<'de> for Place {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Place, D::Error> {
        struct Visit;
        impl serde::de::Visitor<'_> for Visit {
            type Value = Place;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a byte offset, or the name of a member of the shader's vertex struct")
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Place, E> {
                Place::from_u64(v, &self)
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Place, E> {
                Ok(Place::Member(v.to_string()))
            }
        }
        d.deserialize_any(Visit)
    }
}

/// The member names a layout's fields give, gathered as its numbers are read: (the field's name as
/// [`crate::format::Pulled::fields`] gives it, or `stride`; the member, empty for the stride).
#[derive(Default)]
struct Named(Vec<(String, String)>);

impl Named {
    /// A field's byte offset; a named member's is 0 until the shader places it.
    fn byte(&mut self, field: &str, place: &Place) -> u32 {
        match place {
            Place::Byte(b) => *b,
            Place::Member(m) => {
                self.0.push((field.to_string(), m.clone()));
                0
            }
        }
    }

    fn maybe(&mut self, field: &str, place: &Option<Place>) -> Option<u32> {
        place.as_ref().map(|p| self.byte(field, p))
    }

    /// The stride; left out, 0 until the shader's array gives it.
    fn stride(&mut self, stride: Option<u32>) -> u32 {
        stride.unwrap_or_else(|| {
            self.0.push(("stride".into(), String::new()));
            0
        })
    }
}

/// One number, or a list of them: one per influence set.
#[derive(Clone, Debug, PartialEq)]
pub struct Places(pub Vec<u32>);

impl<'de> Deserialize<'de> for Places {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Places, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Places;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a number, or a list of numbers (one per influence set)")
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Places, E> {
                u32::try_from(v)
                    .map(|v| Places(vec![v]))
                    .map_err(|_| E::invalid_value(serde::de::Unexpected::Unsigned(v), &self))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Places, A::Error> {
                let mut out = Vec::new();
                while let Some(v) = seq.next_element::<u32>()? {
                    out.push(v);
                }
                Ok(Places(out))
            }
        }
        d.deserialize_any(Visit)
    }
}

/// A field's place, or a list of them: one per influence set.
#[derive(Clone, Debug, PartialEq)]
pub struct Offsets(pub Vec<Place>);

impl<'de> Deserialize<'de> for Offsets {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Offsets, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Offsets;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str(
                    "a byte offset or a member name, or a list of them (one per influence set)",
                )
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Offsets, E> {
                Place::from_u64(v, &self).map(|p| Offsets(vec![p]))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Offsets, E> {
                Ok(Offsets(vec![Place::Member(v.to_string())]))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Offsets, A::Error> {
                let mut out = Vec::new();
                while let Some(v) = seq.next_element::<Place>()? {
                    out.push(v);
                }
                Ok(Offsets(out))
            }
        }
        d.deserialize_any(Visit)
    }
}

/// A vertex attribute.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Attribute<F> {
    pub location: u32,
    #[serde(default)]
    pub format: F,
}

/// A per-set vertex attribute (joints, weights): one location per influence set.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Influence<F> {
    pub location: Places,
    #[serde(default)]
    pub format: F,
}

/// The vertex stage's entry points, attributes and camera.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Vertex {
    pub entry: String,
    /// The fragment entry point; without one the harness draws the shape in one colour.
    #[serde(default)]
    pub fragment: Option<String>,
    /// `tint`: the fragment stage draws the contract's colour, so images compare with the goldens
    /// channel by channel; `any`: they compare by coverage.
    #[serde(default)]
    pub colour: Colour,
    /// The attributes the stage skins; or, instead, `vertices`.
    #[serde(default)]
    pub position: Option<Attribute<AttributePosition>>,
    #[serde(default)]
    pub joints: Option<Influence<JointFormat>>,
    #[serde(default)]
    pub weights: Option<Influence<WeightFormat>>,
    /// Instead of the attributes: one byte-addressed storage buffer the stage pulls each vertex's
    /// fields from by `@builtin(vertex_index)`, laid out as `compute.vertices` is.
    #[serde(default)]
    pub vertices: Option<Vertices>,
    pub camera: Camera,
    /// The source normal attribute (`vec3<f32>`, Float32x3), if the stage reads one.
    #[serde(default)]
    pub normal: Option<Location>,
    /// The source tangent attribute (`vec4<f32>`, Float32x4, w = handedness), if it reads one.
    #[serde(default)]
    pub tangent: Option<Location>,
    /// The location the stage returns its skinned normal at (`vec3<f32>`), if it does.
    #[serde(default)]
    pub skinned_normal: Option<Location>,
    /// The location the stage returns its skinned tangent at (`vec4<f32>`), if it does.
    #[serde(default)]
    pub skinned_tangent: Option<Location>,
    /// The shader's skinning function, called by a compute entry point the harness adds, so that
    /// a vertex-only shader's skinned positions can be compared number by number. It takes
    /// (position, joints, weights) and returns the skinned position, or (joints, weights) and
    /// returns the blended matrix.
    #[serde(default)]
    pub skin_function: Option<String>,
    /// The shader's function that skins a normal, `(normal: vec3<f32>, joints, weights) ->
    /// vec3<f32>`, called beside `skin_function` so a vertex-only shader's normals compare too.
    #[serde(default)]
    pub normal_function: Option<String>,
    /// Its function that skins a tangent, `(tangent: vec4<f32>, joints, weights) -> vec4<f32>`.
    #[serde(default)]
    pub tangent_function: Option<String>,
}

#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Colour {
    #[default]
    Tint,
    Any,
}

/// The uniform the vertex stage turns skinned positions into clip space with.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Camera {
    pub group: u32,
    pub binding: u32,
    /// `view`: the contract's struct { scale, offset_y, half_width, pad }; `matrix`: a
    /// column-major `mat4x4<f32>` view-projection at offset 0.
    #[serde(default)]
    pub form: CameraForm,
    /// With `matrix`, what the rest of a larger struct around it holds: `zero` (default) or
    /// `identity` (an identity matrix every 64 bytes: a view and a model matrix after a
    /// projection, multiplied in the shader).
    #[serde(default)]
    pub fill: Fill,
    /// With `matrix`, the struct member that holds it, where it is not the first; at the
    /// palette's group and binding, a member of the palette's struct.
    #[serde(default)]
    pub member: Option<String>,
}

impl Camera {
    /// Whether it is a member of the palette's struct (at the palette's binding, both members).
    fn in_palette(&self, palette: &Palette) -> bool {
        (self.group, self.binding) == (palette.group, palette.binding)
            && self.member.is_some()
            && palette.member.is_some()
    }
}

#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum CameraForm {
    #[default]
    View,
    Matrix,
}

impl Modules {
    /// Paths that stay inside the profile's folder, defines named as WGSL names with values naga_oil
    /// can hold.
    fn validate(&self) -> Result<(), (String, String)> {
        let paths = std::iter::once(("modules.entry".to_string(), &self.entry)).chain(
            self.folders
                .iter()
                .enumerate()
                .map(|(i, f)| (format!("modules.folders[{i}]"), f)),
        );
        for (field, path) in paths {
            if !crate::compose::stays_inside(path) {
                return Err((
                    field,
                    format!("`{path}` leaves the profile's folder: module paths are relative to the profile and stay inside it (no absolute path, no `..` past it)"),
                ));
            }
        }
        for (name, value) in &self.defines {
            let field = format!("modules.defines.{name}");
            if !is_identifier(name) {
                return Err((
                    field,
                    format!("`{name}` is not a define name (letters, digits, `_`)"),
                ));
            }
            if let Define::Int(i) = value {
                if i32::try_from(*i).is_err() {
                    return Err((field, format!("{i} does not fit a define's 32-bit integer")));
                }
            }
        }
        Ok(())
    }
}

/// The file name a shader's profile has beside it: `skinning.wgsl` -> `skinning.profile.yaml`.
pub fn beside(shader: &Path) -> PathBuf {
    let stem = shader
        .file_stem()
        .map_or("shader".into(), |s| s.to_string_lossy().into_owned());
    shader.with_file_name(format!("{stem}.profile.yaml"))
}

impl Profile {
    /// Reads and validates a profile file.
    pub fn load(path: &Path) -> Result<Profile, CaseError> {
        let text = crate::case::read_text(path)?;
        Self::parse(path, &text)
    }

    /// Parses and validates profile text; `path` names the file in errors.
    pub fn parse(path: &Path, text: &str) -> Result<Profile, CaseError> {
        let file = path.display().to_string();
        let mut profile: Profile = crate::case::from_yaml(&file, text)?;
        let body = text.strip_prefix('\u{feff}').unwrap_or(text);
        // Messages name it as the user would: relative to the folder the run started in.
        let here = std::env::current_dir().unwrap_or_default();
        profile.path = path.strip_prefix(&here).unwrap_or(path).to_path_buf();
        profile.source = body.to_string();
        if let Err((field, message)) = profile.validate() {
            return Err(CaseError::invalid(&file, body, &field, message));
        }
        let shown = profile.path.display().to_string();
        for (i, e) in profile.expect.iter_mut().enumerate() {
            let line = crate::yaml_line::line_near(body, &format!("expect[{i}]")).unwrap_or(1);
            e.at = format!("{shown}:{line}");
        }
        Ok(profile)
    }

    /// Refuses a profile whose `shader` names another file than `shader`.
    pub fn describes(&self, shader: &Path) -> Result<(), CaseError> {
        if let Some(m) = &self.modules {
            let entry = self.folder().join(&m.entry);
            let same = |p: &Path| std::fs::canonicalize(p).ok();
            if same(&entry).is_none() || same(&entry) != same(shader) {
                return Err(self.located(
                    "modules.entry",
                    format!(
                        "the entry module `{}` is not the shader under test `{}`: SKINPROOF_SHADER names the entry module",
                        entry.display(),
                        shader.display()
                    ),
                ));
            }
        }
        let Some(named) = &self.shader else {
            return Ok(());
        };
        // The file name decides: a profile may write `examples/a.wgsl` or `a.wgsl`.
        if shader.file_name().is_some() && shader.file_name() == Path::new(named).file_name() {
            return Ok(());
        }
        Err(CaseError::invalid(
            &self.path.display().to_string(),
            &self.source,
            "shader",
            format!(
                "this profile describes `{named}`, not the shader under test `{}`: give the profile of that shader (SKINPROOF_PROFILE) or put `{}` beside it",
                shader.display(),
                beside(shader).display()
            ),
        ))
    }

    /// The folder the profile's paths are relative to.
    pub fn folder(&self) -> PathBuf {
        self.path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default()
    }

    /// An error at `field` of this profile.
    pub fn located(&self, field: &str, message: String) -> CaseError {
        CaseError::invalid(
            &self.path.display().to_string(),
            &self.source,
            field,
            message,
        )
    }

    /// The profile's text without its `modules` section: the profile of the composed shader as
    /// one file (how a mutant of a composed shader is held to the same layout).
    pub fn without_modules(&self) -> String {
        let mut out = String::new();
        let mut skipping = false;
        for line in self.source.lines() {
            let top_level = !line.starts_with([' ', '\t', '#']) && !line.trim().is_empty();
            if top_level {
                skipping = line.starts_with("modules:");
            }
            if !skipping {
                out.push_str(line);
                out.push('\n');
            }
        }
        out
    }

    /// The roles and the slot each takes, with the field that names it.
    pub fn slots(&self) -> Vec<(String, Slot)> {
        let mut out: Vec<(String, Slot)> = (self.role_slots().into_iter())
            .map(|(field, slot)| (field.to_string(), slot))
            .collect();
        for (i, b) in self.bindings.iter().enumerate() {
            let slot = Slot {
                group: b.group,
                binding: b.binding,
            };
            out.push((format!("bindings[{i}]"), slot));
        }
        out
    }

    /// The bindings of the skinning roles, with their fields.
    fn role_slots(&self) -> Vec<(&'static str, Slot)> {
        let p = &self.palette;
        let mut out = vec![(
            "palette",
            Slot {
                group: p.group,
                binding: p.binding,
            },
        )];
        out.extend(p.inverse_binds.map(|s| ("palette.inverse_binds", s)));
        out.extend(p.offset.map(|s| ("palette.offset", s)));
        out.extend(p.sampler.map(|s| ("palette.sampler", s)));
        if let Some(v) = self.vertex.as_ref().and_then(|v| v.vertices.as_ref()) {
            out.push(("vertex.vertices", v.slot()));
        }
        if let Some(c) = &self.compute {
            out.extend(c.positions.map(|b| ("compute.positions", b.slot())));
            out.extend(c.joints.map(|b| ("compute.joints", b.slot())));
            out.extend(c.weights.map(|b| ("compute.weights", b.slot())));
            out.extend(c.vertices.as_ref().map(|v| ("compute.vertices", v.slot())));
            out.extend(
                c.influences
                    .as_ref()
                    .map(|i| ("compute.influences", i.slot())),
            );
            out.extend(c.skinned.map(|b| ("compute.skinned", b.slot())));
            out.extend(c.output.as_ref().map(|o| ("compute.output", o.slot())));
            out.extend(c.count.map(|s| ("compute.count", s)));
            out.extend(c.normals.map(|b| ("compute.normals", b.slot())));
            out.extend(c.tangents.map(|b| ("compute.tangents", b.slot())));
            out.extend(
                c.skinned_normals
                    .map(|b| ("compute.skinned_normals", b.slot())),
            );
            out.extend(
                c.skinned_tangents
                    .map(|b| ("compute.skinned_tangents", b.slot())),
            );
        }
        if let Some(v) = self.vertex.as_ref().filter(|v| !v.camera.in_palette(p)) {
            out.push((
                "vertex.camera",
                Slot {
                    group: v.camera.group,
                    binding: v.camera.binding,
                },
            ));
        }
        out
    }

    /// The rules of a palette texture's fields: only with `form: texture`, and nothing a
    /// texture cannot hold (a split palette, an offset, a struct).
    fn check_texture(&self) -> Result<(), (String, String)> {
        let p = &self.palette;
        let texture = p.form == PaletteForm::Texture;
        let fields = [
            ("texels", p.texels.is_some()),
            ("width", p.width.is_some()),
            ("sampler", p.sampler.is_some()),
        ];
        for (field, given) in fields {
            if given && !texture {
                return Err((
                    format!("palette.{field}"),
                    "is for a palette texture: give `form: texture`".into(),
                ));
            }
        }
        if texture && p.width.is_none() {
            return Err((
                "palette.width".into(),
                "a palette texture needs its `width`: a number of texels, `row` or `square`".into(),
            ));
        }
        if let Some(n) = p.texels.filter(|n| ![3, 4].contains(n)) {
            return Err((
                "palette.texels".into(),
                format!("must be 4 (a joint's columns) or 3 (the rows of its affine 3x4), got {n}"),
            ));
        }
        let others = [
            ("inverse_binds", p.inverse_binds.is_some()),
            ("offset", p.offset.is_some()),
            ("member", p.member.is_some()),
            ("matrix", p.matrix != MatrixForm::Columns),
            ("element_member", p.element_member.is_some()),
        ];
        for (field, given) in others {
            if given && texture {
                return Err((
                    format!("palette.{field}"),
                    "a palette texture holds the palette alone, from joint 0".into(),
                ));
            }
        }
        Ok(())
    }

    /// The rules of a filled binding's `palette_offset` (binding `i`, member `name`): an
    /// identifier the binding's `members` do not also set, one such member in all, and a palette
    /// that can start past other matrices (not with `palette.offset`, in a texture or a struct).
    fn check_offset_member(&self, i: usize, name: &str) -> Result<(), (String, String)> {
        let field = format!("bindings[{i}].palette_offset");
        let p = &self.palette;
        let why = if !is_member_path(name) {
            format!("`{name}` is not a WGSL identifier or a dotted path of them")
        } else if self.bindings[i].members.contains_key(name) {
            format!("`{name}` is also given a value in `bindings[{i}].members`: the harness writes the offset there")
        } else if self.bindings[..i]
            .iter()
            .any(|b| b.palette_offset.is_some())
        {
            "another binding already holds the palette's offset".into()
        } else if p.offset.is_some() {
            "the palette's offset is already `palette.offset`".into()
        } else if p.form == PaletteForm::Texture || p.member.is_some() {
            "a palette texture, or a palette member of a larger struct, holds the palette from joint 0".into()
        } else {
            return Ok(());
        };
        Err((field, why))
    }

    /// The rules of a filled binding's `count` (binding `i`, member `name`): an identifier no
    /// other value of the binding sets, one such member in all, for a compute stage that has no
    /// `compute.count`.
    fn check_count_member(&self, i: usize, name: &str) -> Result<(), (String, String)> {
        let b = &self.bindings[i];
        let why = if !is_member_path(name) {
            format!("`{name}` is not a WGSL identifier or a dotted path of them")
        } else if b.members.contains_key(name) || b.palette_offset.as_deref() == Some(name) {
            format!("`{name}` is also given a value in `bindings[{i}]`: the harness writes the vertex count there")
        } else if self.bindings[..i].iter().any(|b| b.count.is_some()) {
            "another binding already holds the vertex count".into()
        } else {
            match &self.compute {
                None => {
                    "the vertex count is the compute stage's, and the profile gives none".into()
                }
                Some(k) if k.count.is_some() => {
                    "the vertex count is already `compute.count`".into()
                }
                Some(_) => return Ok(()),
            }
        };
        Err((format!("bindings[{i}].count"), why))
    }

    /// The rules of the palette's and the camera's struct members and fills.
    fn check_members(&self) -> Result<(), (String, String)> {
        let p = &self.palette;
        if p.fill != Fill::Zero && p.member.is_none() {
            return Err((
                "palette.fill".into(),
                "fills the rest of a struct around the palette: give the palette's `member`".into(),
            ));
        }
        if p.member.is_some() && (p.inverse_binds.is_some() || p.offset.is_some()) {
            return Err((
                "palette.member".into(),
                "a palette member of a larger struct is not split (`inverse_binds`) or offset (`offset`)".into(),
            ));
        }
        let Some(v) = &self.vertex else {
            return Ok(());
        };
        let c = &v.camera;
        if c.form != CameraForm::Matrix {
            for (field, given) in [
                ("fill", c.fill != Fill::Zero),
                ("member", c.member.is_some()),
            ] {
                if given {
                    return Err((
                        format!("vertex.camera.{field}"),
                        "is for a camera matrix in a larger struct: give `form: matrix`".into(),
                    ));
                }
            }
        }
        let shared = (c.group, c.binding) == (p.group, p.binding);
        if shared && c.member.is_some() && p.member.is_none() {
            return Err((
                "palette.member".into(),
                "the camera is a member of the palette's binding: name the palette's member too"
                    .into(),
            ));
        }
        if c.in_palette(p) && c.fill != Fill::Zero {
            return Err((
                "vertex.camera.fill".into(),
                "the camera is a member of the palette's struct, which the palette's `fill` fills"
                    .into(),
            ));
        }
        if c.in_palette(p) && c.member == p.member {
            return Err((
                "vertex.camera.member".into(),
                format!(
                    "`{}` is the palette's member",
                    p.member.as_deref().unwrap_or_default()
                ),
            ));
        }
        Ok(())
    }

    /// The first field that breaks a rule no serde type can state, and why.
    fn validate(&self) -> Result<(), (String, String)> {
        if self.compute.is_none() && self.vertex.is_none() {
            return Err((
                "compute".into(),
                "the profile names no stage: give `compute`, `vertex` or both".into(),
            ));
        }
        self.check_texture()?;
        self.check_members()?;
        // A bind group index past 3 needs a device limit beyond WebGPU's default of 4 groups.
        let mut seen: BTreeMap<Slot, String> = BTreeMap::new();
        for (field, slot) in self.slots() {
            if slot.group > 3 {
                return Err((
                    format!("{field}.group"),
                    format!(
                        "group {} is past the 4 bind groups WebGPU guarantees (0 to 3)",
                        slot.group
                    ),
                ));
            }
            if let Some(other) = seen.insert(slot, field.clone()) {
                // Skinned in place: the output is written over the vertices it reads.
                if matches!(
                    (other.as_str(), field.as_str()),
                    ("compute.vertices", "compute.output")
                        | ("compute.positions", "compute.skinned")
                        | ("compute.normals", "compute.skinned_normals")
                        | ("compute.tangents", "compute.skinned_tangents")
                ) {
                    continue;
                }
                let hint = match (other.as_str(), field.as_str()) {
                    ("palette", "vertex.camera") => " (a camera matrix inside the palette's struct is a `member` of it, as the palette is)",
                    ("compute.positions", "compute.output") | ("compute.vertices", "compute.skinned") => " (skinned in place, the output takes its input's form: `compute.output` over `compute.vertices`, or `compute.skinned` over `compute.positions`)",
                    _ => "",
                };
                return Err((
                    format!("{field}.binding"),
                    format!(
                        "@group({}) @binding({}) is already `{other}`; each role has its own binding{hint}",
                        slot.group, slot.binding
                    ),
                ));
            }
        }
        for (i, b) in self.bindings.iter().enumerate() {
            if let Some(k) = b.floats.iter().position(|x| !x.is_finite()) {
                return Err((
                    format!("bindings[{i}].floats"),
                    format!("value {k} is not a finite number"),
                ));
            }
            if let Some(name) = &b.palette_offset {
                self.check_offset_member(i, name)?;
            }
            if let Some(name) = &b.count {
                self.check_count_member(i, name)?;
            }
            for (name, v) in &b.members {
                if !is_member_path(name) {
                    return Err((
                        format!("bindings[{i}].members.{name}"),
                        format!("`{name}` is not a WGSL identifier or a dotted path of them"),
                    ));
                }
                if let Some(k) = v.0.iter().position(|x| !x.is_finite()) {
                    return Err((
                        format!("bindings[{i}].members.{name}"),
                        format!("value {k} is not a finite number"),
                    ));
                }
            }
        }
        if let Some(m) = &self.modules {
            m.validate()?;
        }
        for (field, name) in self.entries() {
            if !is_identifier(name) {
                return Err((field.into(), format!("`{name}` is not a WGSL identifier")));
            }
        }
        check_constants(&self.constants)?;
        let sets = self.sets();
        if !(1..=4).contains(&sets) {
            return Err((
                "influence_sets".into(),
                format!("must be 1 to 4 influence sets of 4 influences, got {sets}"),
            ));
        }
        for (i, e) in self.expect.iter().enumerate() {
            for (what, text) in [
                ("case", &e.case),
                ("matches", &e.matches),
                ("reason", &e.reason),
            ] {
                if text.trim().is_empty() {
                    return Err((format!("expect[{i}].{what}"), "must not be empty".into()));
                }
            }
        }
        self.frames_have_sources()?;
        self.check_streams()?;
        self.check_normal_matrix()?;
        if let Some(v) = &self.vertex {
            self.check_pulling(v, sets)?;
            self.check_locations(v, sets)?;
        }
        if let Some(c) = &self.compute {
            check_compute(c, sets)?;
        }
        Ok(())
    }

    /// How many influence sets the shader reads.
    pub fn sets(&self) -> usize {
        self.influence_sets.unwrap_or(1)
    }

    /// One location per influence set for joints and weights, and every attribute at its own.
    /// A vertex stage skins its attributes, or pulls its vertices from one byte-addressed buffer
    /// (vertex-only, compared through a copy of its entry point), not both.
    fn check_pulling(&self, v: &Vertex, sets: usize) -> Result<(), (String, String)> {
        let attributes = [
            ("vertex.position", v.position.is_some()),
            ("vertex.joints", v.joints.is_some()),
            ("vertex.weights", v.weights.is_some()),
        ];
        let Some(pulled) = &v.vertices else {
            if let Some((field, _)) = attributes.iter().find(|a| !a.1) {
                return Err((
                    "vertex".into(),
                    format!("`{}` is missing: give `position`, `joints` and `weights`, or one byte-addressed `vertices` buffer", field.trim_start_matches("vertex.")),
                ));
            }
            return Ok(());
        };
        if let Some((field, _)) = attributes.iter().find(|a| a.1) {
            return Err((
                field.to_string(),
                "give either `vertices` (one byte-addressed buffer) or `position`, `joints` and `weights`, not both".into(),
            ));
        }
        let refuse = |field: &str, why: &str| Err((field.to_string(), why.to_string()));
        if self.compute.is_some() {
            return refuse("vertex.vertices", "a vertex stage pulls its vertices in a vertex-only profile: with a compute stage, the compute stage pulls them (`compute.vertices`)");
        }
        if v.skin_function.is_some() {
            return refuse("vertex.skin_function", "a vertex stage that pulls its vertices is compared through a copy of its entry point: leave out `skin_function`");
        }
        if pulled.normal.is_some() || pulled.tangent.is_some() {
            return refuse("vertex.vertices", "the vertex stage's pulled vertices hold a position, joints and weights; its normals and tangents are not compared");
        }
        if pulled.joints.is_none() || pulled.weights.is_none() {
            return refuse("vertex.vertices", "the vertex stage's pulled vertices hold a position, joints and weights: give `joints` and `weights` here");
        }
        check_vertices(pulled, sets, "vertex.vertices")
    }

    fn check_locations(&self, v: &Vertex, sets: usize) -> Result<(), (String, String)> {
        let mut locations = Vec::new();
        locations.extend(
            (v.position.as_ref()).map(|p| ("vertex.position.location".to_string(), p.location)),
        );
        let joints = v.joints.as_ref().map(|j| &j.location);
        let weights = v.weights.as_ref().map(|w| &w.location);
        for (what, places) in [("joints", joints), ("weights", weights)] {
            let Some(places) = places else { continue };
            let field = format!("vertex.{what}.location");
            per_set(&field, places.0.len(), sets)?;
            locations.extend(places.0.iter().map(|&l| (field.clone(), l)));
        }
        locations.extend(
            v.normal
                .map(|l| ("vertex.normal.location".into(), l.location)),
        );
        locations.extend(
            v.tangent
                .map(|l| ("vertex.tangent.location".into(), l.location)),
        );
        if let (Some(n), Some(t)) = (v.skinned_normal, v.skinned_tangent) {
            if n.location == t.location {
                return Err((
                    "vertex.skinned_tangent.location".into(),
                    format!(
                        "@location({}) is already `vertex.skinned_normal`; each output has its own location",
                        t.location
                    ),
                ));
            }
        }
        for (i, (field, l)) in locations.iter().enumerate() {
            if let Some((other, _)) = locations[..i].iter().find(|(_, m)| m == l) {
                return Err((
                    field.to_string(),
                    format!(
                        "@location({l}) is already `{}`; each attribute has its own location",
                        other.trim_end_matches(".location")
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// A list with one entry per influence set.
/// Constant keys as WebGPU takes them (a WGSL name, or an `@id` number from 0 to 65535) with
/// finite values (naga refuses NaN and infinities for a pipeline constant).
fn check_constants(constants: &BTreeMap<String, Constant>) -> Result<(), (String, String)> {
    for (key, value) in constants {
        let field = format!("constants.{key}");
        let id = key.bytes().all(|b| b.is_ascii_digit());
        if id && key.parse::<u16>().is_err() {
            return Err((
                field,
                format!("`{key}` is past the largest override @id, 65535"),
            ));
        }
        if !id && !is_identifier(key) {
            return Err((
                field,
                format!("`{key}` is neither an override's name nor its @id number"),
            ));
        }
        if !value.value().is_finite() {
            return Err((field, "must be a finite number".into()));
        }
    }
    Ok(())
}

fn per_set(field: &str, given: usize, sets: usize) -> Result<(), (String, String)> {
    if given == sets {
        return Ok(());
    }
    Err((
        field.into(),
        format!(
            "gives {} for {sets} influence set{} (`influence_sets`): give one per set, e.g. [{}]",
            match given {
                1 => "1 place".to_string(),
                n => format!("{n} places"),
            },
            if sets == 1 { "" } else { "s" },
            (0..sets)
                .map(|k| (k * 2).to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    ))
}

/// The compute stage's buffers: the positions and the influences each from one source, and one
/// output, each whole; formats storage can hold; byte-addressed fields aligned, inside the
/// stride, apart.
fn check_compute(c: &Compute, sets: usize) -> Result<(), (String, String)> {
    check_sources(c)?;
    if let Some(v) = &c.vertices {
        check_vertices(v, sets, "compute.vertices")?;
    }
    if let Some(i) = &c.influences {
        check_pulled(
            i.layout(),
            [("joints", &i.joints.offset), ("weights", &i.weights.offset)],
            sets,
            "compute.influences",
        )?;
    }
    match (&c.skinned, &c.output) {
        (Some(_), Some(_)) => {
            return Err((
                "compute.output".into(),
                "give either `skinned` or a byte-addressed `output`, not both".into(),
            ))
        }
        (None, None) => {
            return Err((
                "compute".into(),
                "the output is missing: give `skinned` or a byte-addressed `output`".into(),
            ))
        }
        (None, Some(o)) => {
            let layout = o.layout();
            if layout.members.is_empty() {
                crate::format::check_fields(layout.stride, &layout.fields())
                    .map_err(|(f, m)| (format!("compute.output.{f}"), m))?
            }
        }
        (Some(_), None) => {}
    }
    if let Some(w) = c.weights.filter(|w| w.format != WeightFormat::F32x4) {
        return Err((
            "compute.weights.format".into(),
            format!(
                "storage weights are f32x4 (`array<vec4<f32>>`); {} is a vertex format",
                w.format.name()
            ),
        ));
    }
    if c.joints.is_some_and(|j| j.format == JointFormat::U8x4) {
        return Err((
            "compute.joints.format".into(),
            "storage joints are u32x4, u16x4 (u16 pairs in u32 words) or f32x4; u8x4 is a vertex format"
                .into(),
        ));
    }
    Ok(())
}

/// Where the compute stage reads the positions (`positions`, or `vertices`) and the joints and
/// weights (`joints` and `weights`, `vertices`, or `influences`): each from exactly one, whole.
fn check_sources(c: &Compute) -> Result<(), (String, String)> {
    let ways = "give `positions`, `joints` and `weights`, or one byte-addressed `vertices` buffer";
    let v = c.vertices.as_ref();
    match (v, c.positions.is_some()) {
        (Some(_), true) => return Err((
            "compute.positions".into(),
            "give either `vertices` (one byte-addressed buffer) or `positions`, `joints` and `weights`, not both".into(),
        )),
        (None, false) => return Err(("compute".into(), format!("`positions` is missing: {ways}"))),
        _ => {}
    }
    // Each source of the joints and weights: (its field, joints given, weights given).
    let typed = ("compute", c.joints.is_some(), c.weights.is_some());
    let pulled = v.map(|v| ("compute.vertices", v.joints.is_some(), v.weights.is_some()));
    let own = c
        .influences
        .as_ref()
        .map(|_| ("compute.influences", true, true));
    let sources: Vec<_> = [Some(typed), pulled, own]
        .into_iter()
        .flatten()
        .filter(|(_, j, w)| *j || *w)
        .collect();
    match sources.as_slice() {
        [] if v.is_some() => Err((
            "compute.vertices".into(),
            "the joints and weights are missing: give them in `vertices` (`joints` and `weights`) or in a byte-addressed `influences` buffer".into(),
        )),
        [] => Err(("compute".into(), format!("`joints` is missing: {ways}"))),
        [(field, j, w)] if !(j & w) => {
            let (given, missing) = if *j { ("joints", "weights") } else { ("weights", "joints") };
            Err(match *field {
                "compute" => (field.to_string(), format!("`{missing}` is missing: {ways}")),
                _ => (
                    field.to_string(),
                    format!("gives `{given}` without `{missing}`: give both, or neither where a byte-addressed `influences` buffer holds them"),
                ),
            })
        }
        [_] => Ok(()),
        [(first, fj, fw), (second, j, _), ..] => {
            let at = match *second {
                "compute.influences" => second.to_string(),
                _ => format!("{second}.{}", if *j { "joints" } else { "weights" }),
            };
            // The typed buffers as given: both, or the one.
            let first = match (*first, fj, fw) {
                ("compute", true, true) => "`joints` and `weights`".to_string(),
                ("compute", true, false) => "`joints`".to_string(),
                ("compute", _, _) => "`weights`".to_string(),
                (f, ..) => format!("`{}`", f.trim_start_matches("compute.")),
            };
            Err((
                at,
                format!("the joints and weights are given twice, here and in {first}: give them once, in `joints` and `weights`, in `vertices`, or in a byte-addressed `influences` buffer"),
            ))
        }
    }
}

/// A byte-addressed vertex buffer's offsets: one per set, each field aligned, inside the stride,
/// apart from the others.
fn check_vertices(v: &Vertices, sets: usize, at: &str) -> Result<(), (String, String)> {
    let mut per_set = Vec::new();
    if let Some(j) = &v.joints {
        per_set.push(("joints", &j.offset));
    }
    if let Some(w) = &v.weights {
        per_set.push(("weights", &w.offset));
    }
    check_pulled(v.layout(), per_set, sets, at)
}

/// A byte-addressed buffer's layout: `per_set` fields (joints, weights) one place per set, each
/// field aligned, inside the stride, apart from the others (once the shader places named ones).
fn check_pulled<'a>(
    layout: crate::format::Pulled,
    per_set: impl IntoIterator<Item = (&'a str, &'a Offsets)>,
    sets: usize,
    at: &str,
) -> Result<(), (String, String)> {
    for (what, offsets) in per_set {
        self::per_set(&format!("{at}.{what}.offset"), offsets.0.len(), sets)?;
    }
    if !layout.members.is_empty() {
        // Checked once the shader's struct places them.
        return Ok(());
    }
    crate::format::check_fields(layout.stride, &layout.fields()).map_err(|(name, message)| {
        let field = match name.split('[').next().unwrap_or_default() {
            what @ ("position" | "stride" | "normal" | "tangent") => format!("{at}.{what}"),
            what => format!("{at}.{what}.offset"),
        };
        let message = if name == "stride" {
            message
        } else {
            format!("`{name}`: {message}")
        };
        (field, message)
    })
}

/// A layout's joints and weights, one offset per influence set, each named `joints` (or
/// `joints[k]` of several sets) as [`crate::format::Pulled::fields`] names them.
fn influence_offsets(named: &mut Named, what: &str, places: &Offsets) -> Vec<u32> {
    let many = places.0.len() > 1;
    (places.0.iter().enumerate())
        .map(|(k, p)| match many {
            true => named.byte(&format!("{what}[{k}]"), p),
            false => named.byte(what, p),
        })
        .collect()
}

impl Vertices {
    /// The layout the harness packs the buffer in (a named member at byte 0 until the shader
    /// places it).
    pub fn layout(&self) -> crate::format::Pulled {
        let mut named = Named::default();
        let offsets = |named: &mut Named, what: &str, field: Option<&Offsets>| {
            field.map_or_else(Vec::new, |o| influence_offsets(named, what, o))
        };
        crate::format::Pulled {
            stride: named.stride(self.stride),
            position: Some(named.byte("position", &self.position)),
            frames: crate::format::FrameFields {
                normal: named.maybe("normal", &self.normal),
                tangent: named.maybe("tangent", &self.tangent),
            },
            joints: offsets(
                &mut named,
                "joints",
                self.joints.as_ref().map(|j| &j.offset),
            ),
            joint_format: self.joints.as_ref().map(|j| j.format).unwrap_or_default(),
            weight_offsets: offsets(
                &mut named,
                "weights",
                self.weights.as_ref().map(|w| &w.offset),
            ),
            weights: self.weights.as_ref().map(|w| w.format).unwrap_or_default(),
            members: named.0,
        }
    }
}

impl Influences {
    /// The layout the harness packs the buffer in: joints and weights alone.
    pub fn layout(&self) -> crate::format::Pulled {
        let mut named = Named::default();
        crate::format::Pulled {
            stride: named.stride(self.stride),
            position: None,
            frames: crate::format::FrameFields::default(),
            joints: influence_offsets(&mut named, "joints", &self.joints.offset),
            joint_format: self.joints.format,
            weight_offsets: influence_offsets(&mut named, "weights", &self.weights.offset),
            weights: self.weights.format,
            members: named.0,
        }
    }
}

impl Profile {
    /// The rules of the compute stage's own normal and tangent buffers: a byte-addressed one's
    /// stride and offset, one written over its source (at its binding) laid out as the source
    /// is, and a vec3 tangent's skinned form.
    fn check_streams(&self) -> Result<(), (String, String)> {
        let Some(c) = &self.compute else {
            return Ok(());
        };
        let given = |f: &Frames<PositionFormat>| (f.slot(), f.stride, f.offset, f.normal_stream());
        let tangent =
            |f: &Frames<TangentFormat>| (f.slot(), f.stride, f.offset, f.tangent_stream());
        let (skinned_normals, skinned_tangents) = c.skinned_frames();
        let all: [Given; 4] = [
            ("compute.normals", "normal", c.normals.as_ref().map(given)),
            (
                "compute.tangents",
                "tangent",
                c.tangents.as_ref().map(tangent),
            ),
            (
                "compute.skinned_normals",
                "normal",
                skinned_normals.as_ref().map(given),
            ),
            (
                "compute.skinned_tangents",
                "tangent",
                skinned_tangents.as_ref().map(tangent),
            ),
        ];
        for one in &all {
            check_stream_place(one)?;
        }
        for (source, skinned) in [(&all[0], &all[2]), (&all[1], &all[3])] {
            check_in_place_stream(source, skinned)?;
        }
        let vec3_tangents = (c.tangents).is_some_and(|t| t.tangent_format() == TangentFormat::Vec3);
        if !vec3_tangents {
            return Ok(());
        }
        if skinned_tangents.is_some_and(|t| t.tangent_format() == TangentFormat::Vec4) {
            return Err((
                "compute.skinned_tangents.format".into(),
                "is vec4, a tangent with the source's handedness in w, but the source tangents are vec3 (`compute.tangents.format`), with none: give `format: vec3`".into(),
            ));
        }
        if c.output.as_ref().is_some_and(|o| o.tangent.is_some()) {
            return Err((
                "compute.output.tangent".into(),
                "is a vec4 tangent with the source's handedness in w, but the source tangents are vec3 (`compute.tangents.format`), with none: write them to `compute.skinned_tangents` with `format: vec3`".into(),
            ));
        }
        Ok(())
    }

    /// A normal matrix is declared for a shader whose skinned normals the harness reads.
    fn check_normal_matrix(&self) -> Result<(), (String, String)> {
        if self.normal_matrix.is_none() {
            return Ok(());
        }
        let compute = self.compute.as_ref().is_some_and(|c| {
            c.skinned_normals.is_some() || c.output.as_ref().is_some_and(|o| o.normal.is_some())
        });
        let vertex = (self.vertex.as_ref())
            .is_some_and(|v| v.normal_function.is_some() || v.skinned_normal.is_some());
        if compute || vertex {
            return Ok(());
        }
        Err((
            "normal_matrix".into(),
            "says how the shader skins normals, and the profile names no skinned normals: give `compute.skinned_normals`, `compute.output.normal`, `vertex.skinned_normal` or `vertex.normal_function`, or leave it out".into(),
        ))
    }

    /// A skinned normal or tangent output needs the source it skins, in the same stage.
    fn frames_have_sources(&self) -> Result<(), (String, String)> {
        let need = |output: bool, source: bool, field: &str, wants: &str| {
            if output && !source {
                Err((field.to_string(), format!("`{field}` needs `{wants}` too")))
            } else {
                Ok(())
            }
        };
        if let Some(c) = &self.compute {
            let vertices = c.vertices.as_ref();
            let output = c.output.as_ref();
            // (source apart, source in `vertices`, output apart, output in `output`, their fields)
            let frames = [
                (
                    c.normals.is_some(),
                    vertices.is_some_and(|v| v.normal.is_some()),
                    c.skinned_normals.is_some(),
                    output.is_some_and(|o| o.normal.is_some()),
                    ["compute.normals", "compute.vertices.normal"],
                    ["compute.skinned_normals", "compute.output.normal"],
                ),
                (
                    c.tangents.is_some(),
                    vertices.is_some_and(|v| v.tangent.is_some()),
                    c.skinned_tangents.is_some(),
                    output.is_some_and(|o| o.tangent.is_some()),
                    ["compute.tangents", "compute.vertices.tangent"],
                    ["compute.skinned_tangents", "compute.output.tangent"],
                ),
            ];
            for (apart, within, out_apart, out_within, sources, outputs) in frames {
                for (both, fields) in [
                    (apart && within, sources),
                    (out_apart && out_within, outputs),
                ] {
                    if both {
                        return Err((
                            fields[0].to_string(),
                            format!("give either `{}` or `{}`, not both", fields[0], fields[1]),
                        ));
                    }
                }
                let field = if out_within { outputs[1] } else { outputs[0] };
                need(
                    out_apart || out_within,
                    apart || within,
                    field,
                    &format!("{}` or `{}", sources[0], sources[1]),
                )?;
            }
        }
        if let Some(v) = &self.vertex {
            for (given, field) in [
                (v.normal_function.is_some(), "vertex.normal_function"),
                (v.tangent_function.is_some(), "vertex.tangent_function"),
            ] {
                need(
                    given,
                    v.skin_function.is_some(),
                    field,
                    "vertex.skin_function",
                )?;
            }
            need(
                v.skinned_normal.is_some(),
                v.normal.is_some(),
                "vertex.skinned_normal",
                "vertex.normal",
            )?;
            need(
                v.skinned_tangent.is_some(),
                v.tangent.is_some(),
                "vertex.skinned_tangent",
                "vertex.tangent",
            )?;
        }
        Ok(())
    }

    /// Every entry point and function name the profile gives, with its field.
    fn entries(&self) -> Vec<(&'static str, &str)> {
        let mut out = Vec::new();
        if let Some(c) = &self.compute {
            out.push(("compute.entry", c.entry.as_str()));
        }
        if let Some(v) = &self.vertex {
            out.push(("vertex.entry", v.entry.as_str()));
            out.extend(v.fragment.as_deref().map(|f| ("vertex.fragment", f)));
            out.extend(
                v.skin_function
                    .as_deref()
                    .map(|f| ("vertex.skin_function", f)),
            );
            out.extend(
                v.normal_function
                    .as_deref()
                    .map(|f| ("vertex.normal_function", f)),
            );
            out.extend(
                v.tangent_function
                    .as_deref()
                    .map(|f| ("vertex.tangent_function", f)),
            );
            out.extend(
                v.camera
                    .member
                    .as_deref()
                    .map(|m| ("vertex.camera.member", m)),
            );
        }
        out.extend(
            self.palette
                .member
                .as_deref()
                .map(|m| ("palette.member", m)),
        );
        out.extend((self.palette.element_member.as_deref()).map(|m| ("palette.element_member", m)));
        out
    }
}

impl Profile {
    /// Where the profile gives each field of its byte-addressed buffers, by its full name.
    fn field_places(&self) -> Vec<(String, String)> {
        // Each buffer: (its name, whether it holds a position, a normal, a tangent, joints and
        // weights).
        let mut given = Vec::new();
        let compute = self.compute.as_ref();
        let vertices = |v: &Vertices| {
            (
                true,
                v.normal.is_some(),
                v.tangent.is_some(),
                v.joints.is_some(),
            )
        };
        if let Some(v) = compute.and_then(|k| k.vertices.as_ref()) {
            given.push(("compute.vertices", vertices(v)));
        }
        if compute.is_some_and(|k| k.influences.is_some()) {
            given.push(("compute.influences", (false, false, false, true)));
        }
        if let Some(v) = self.vertex.as_ref().and_then(|v| v.vertices.as_ref()) {
            given.push(("vertex.vertices", vertices(v)));
        }
        if let Some(o) = compute.and_then(|k| k.output.as_ref()) {
            let frames = (o.normal.is_some(), o.tangent.is_some());
            given.push(("compute.output", (true, frames.0, frames.1, false)));
        }
        let mut out = Vec::new();
        for (what, (position, normal, tangent, influences)) in given {
            let keys = [
                ("stride", true),
                ("position", position),
                ("normal", normal),
                ("tangent", tangent),
                ("joints", influences),
                ("weights", influences),
            ];
            for (key, _) in keys.into_iter().filter(|k| k.1) {
                let field = format!("{what}.{key}");
                out.push((field.clone(), self.whence(&field)));
            }
        }
        out
    }

    /// `file:line:column, field `path``: where the profile writes `field`, for messages.
    fn whence(&self, field: &str) -> String {
        let (line, column) = yaml_line::place_near(&self.source, field).unwrap_or((1, 1));
        format!("{}:{line}:{column}, field `{field}`", self.path.display())
    }

    /// The compute stage's bindings: (role, slot, space, type, what it holds, field).
    fn compute_slots(
        &self,
        k: &Compute,
    ) -> Vec<(Role, Slot, Space, Want, &'static str, &'static str)> {
        let read = Space::Storage { writable: false };
        let mut out = Vec::new();
        if let Some(p) = k.positions {
            // Either element type reads them (the same 16-byte stride, w unused).
            out.push((
                Role::Positions,
                p.slot(),
                read,
                Want::Positions,
                "source positions",
                "compute.positions",
            ));
        }
        if let Some(j) = k.joints {
            let ty = match j.format {
                JointFormat::U16x4 => Want::PackedJoints,
                JointFormat::F32x4 => Want::Array(Elem::Vec4F32),
                _ => Want::Array(Elem::Vec4U32),
            };
            out.push((
                Role::Joints,
                j.slot(),
                read,
                ty,
                "joint indices",
                "compute.joints",
            ));
        }
        if let Some(w) = k.weights {
            out.push((
                Role::Weights,
                w.slot(),
                read,
                Want::Array(Elem::Vec4F32),
                "weights",
                "compute.weights",
            ));
        }
        if let Some(v) = &k.vertices {
            out.push((
                Role::Positions,
                v.slot(),
                read,
                Want::Words,
                "the byte-addressed vertices",
                "compute.vertices",
            ));
        }
        if let Some(i) = &k.influences {
            out.push((
                Role::Joints,
                i.slot(),
                read,
                Want::Words,
                "the byte-addressed joints and weights",
                "compute.influences",
            ));
        }
        let write = Space::Storage { writable: true };
        if let Some(o) = k.skinned {
            // The output is what the profile says, since the harness checks its w.
            let ty = Want::Array(match o.format {
                PositionFormat::Vec3 => Elem::Vec3F32,
                PositionFormat::Vec4 => Elem::Vec4F32,
            });
            out.push((
                Role::Skinned,
                o.slot(),
                write,
                ty,
                "skinned positions",
                "compute.skinned",
            ));
        }
        if let Some(o) = &k.output {
            out.push((
                Role::Skinned,
                o.slot(),
                write,
                Want::OutputWords,
                "the byte-addressed output",
                "compute.output",
            ));
        }
        if let Some(count) = k.count {
            out.push((
                Role::Count,
                count,
                Space::Uniform,
                Want::Count,
                "the vertex count",
                "compute.count",
            ));
        }
        out
    }

    /// The contract this profile describes: the built-in one with each role moved where the
    /// profile puts it. The workgroup size and a uniform palette's length are the shader's, read
    /// by naga when the shader is loaded.
    pub fn contract(&self) -> Contract {
        use Pipeline::{Compute, Render};
        let mut c = Contract::builtin();
        let (compute, vertex) = (self.compute.as_ref(), self.vertex.as_ref());
        let pipelines = |compute_too: bool, render_too: bool| {
            let mut p = Vec::new();
            if compute_too && compute.is_some() {
                p.push(Compute);
            }
            if render_too && vertex.is_some() {
                p.push(Render);
            }
            p
        };
        let slot =
            |role, group, binding, space, ty, holds: &str, on: Vec<Pipeline>, field: &str| {
                crate::contract::Slot {
                    role,
                    group,
                    binding,
                    space,
                    ty,
                    holds: holds.into(),
                    pipelines: on,
                    origin: Some(self.whence(field)),
                }
            };
        let read = Space::Storage { writable: false };
        let p = &self.palette;
        let (palette_space, palette_ty) = match p.form {
            PaletteForm::Storage => (read, Want::Array(Elem::Mat4F32)),
            PaletteForm::Uniform => (Space::Uniform, Want::FixedMatrices),
            PaletteForm::Texture => (Space::Texture, Want::Texture),
        };
        c.palette_texture =
            (p.form == PaletteForm::Texture).then(|| crate::contract::PaletteTexture {
                texels: p.texels.unwrap_or(4),
                width: p
                    .width
                    .map_or(crate::contract::TextureWidth::Square, |w| w.0),
            });
        let member = |name: String, field: &str| crate::contract::Member {
            name,
            offset: 0,
            origin: Some(self.whence(field)),
        };
        c.palette_member = p.member.clone().map(|m| member(m, "palette.member"));
        c.palette_element = crate::contract::PaletteElement {
            rows: p.matrix == MatrixForm::Rows,
            member: (p.element_member.clone()).map(|m| member(m, "palette.element_member")),
            stride: if p.matrix == MatrixForm::Rows { 48 } else { 64 },
        };
        c.palette_fill = p.fill;
        let mut slots = vec![slot(
            Role::Palette,
            p.group,
            p.binding,
            palette_space,
            palette_ty,
            if p.inverse_binds.is_some() {
                "the joints' global matrices"
            } else {
                "the palette"
            },
            pipelines(true, true),
            "palette",
        )];
        if let Some(s) = p.inverse_binds {
            slots.push(slot(
                Role::InverseBinds,
                s.group,
                s.binding,
                palette_space,
                palette_ty,
                "the inverse binds",
                pipelines(true, true),
                "palette.inverse_binds",
            ));
        }
        if let Some(s) = p.sampler {
            slots.push(slot(
                Role::PaletteSampler,
                s.group,
                s.binding,
                Space::Sampler,
                Want::Sampler,
                "the palette texture's sampler",
                pipelines(true, true),
                "palette.sampler",
            ));
        }
        if let Some(s) = p.offset {
            slots.push(slot(
                Role::PaletteOffset,
                s.group,
                s.binding,
                Space::Uniform,
                Want::FirstU32,
                "the palette's base offset",
                pipelines(true, true),
                "palette.offset",
            ));
        }
        if let Some(k) = compute {
            for (role, b, space, ty, holds, field) in self.compute_slots(k) {
                slots.push(slot(
                    role,
                    b.group,
                    b.binding,
                    space,
                    ty,
                    holds,
                    vec![Compute],
                    field,
                ));
            }
            slots.extend(self.compute_frames(k));
            let streams = &mut c.streams;
            if let Some(f) = &k.normals {
                streams.normals = f.normal_stream();
            }
            if let Some(f) = &k.tangents {
                streams.tangents = f.tangent_stream();
            }
            let (skinned_normals, skinned_tangents) = k.skinned_frames();
            if let Some(f) = &skinned_normals {
                streams.skinned_normals = f.normal_stream();
            }
            if let Some(f) = &skinned_tangents {
                streams.skinned_tangents = f.tangent_stream();
            }
            if let Some(j) = k.joints {
                c.formats.joints = j.format;
            }
            if let Some(p) = k.positions {
                c.formats.positions = p.format;
            }
            if let Some(p) = k.skinned {
                c.formats.skinned = p.format;
            }
            if let Some(j) = k.vertices.as_ref().and_then(|v| v.joints.as_ref()) {
                c.formats.joints = j.format;
            }
            if let Some(i) = &k.influences {
                c.formats.joints = i.joints.format;
                c.influences = Some(i.layout());
            }
            c.pulled = k.vertices.as_ref().map(Vertices::layout);
            c.packed = k.output.as_ref().map(Output::layout);
        }
        c.vertex_inputs.clear();
        if let Some(v) = vertex {
            let (camera, holds) = match v.camera.form {
                CameraForm::View => (Want::View, "the 2D view"),
                CameraForm::Matrix => (Want::Matrix, "the camera's view-projection"),
            };
            // A camera in the palette's struct is written with the palette, into its buffer.
            if !v.camera.in_palette(p) {
                slots.push(slot(
                    Role::View,
                    v.camera.group,
                    v.camera.binding,
                    Space::Uniform,
                    camera,
                    holds,
                    vec![Render],
                    "vertex.camera",
                ));
            }
            c.camera_fill = v.camera.fill;
            c.camera_in_palette = v.camera.in_palette(p);
            c.camera_member = (v.camera.member.clone()).map(|m| member(m, "vertex.camera.member"));
            let input = |role, ty, also, format, location, field: &str| {
                crate::contract::VertexInput::new(
                    role,
                    (ty, also),
                    format,
                    location,
                    Some(self.whence(field)),
                )
            };
            if let (Some(p), Some(j), Some(w)) = (&v.position, &v.joints, &v.weights) {
                // A planar position is taken as its two floats alone.
                let (ty, also) = match p.format {
                    AttributePosition::Vec2 => (Elem::Attribute(p.format.vertex_format()), None),
                    _ => (Elem::Vec3F32, Some(Elem::Vec4F32)),
                };
                c.vertex_inputs = vec![input(
                    Role::Positions,
                    ty,
                    also,
                    p.format.vertex_format(),
                    p.location,
                    "vertex.position",
                )];
                let per_set = [
                    (
                        Role::Joints,
                        j.format.elem(),
                        j.format.vertex_format(),
                        &j.location,
                        "vertex.joints",
                    ),
                    (
                        Role::Weights,
                        Elem::Vec4F32,
                        w.format.vertex_format(),
                        &w.location,
                        "vertex.weights",
                    ),
                ];
                for set in 0..self.sets() {
                    for (role, ty, format, places, field) in per_set {
                        let mut i = input(role, ty, None, format, places.0[set], field);
                        i.set = set;
                        c.vertex_inputs.push(i);
                    }
                }
                c.formats.vertex_joints = j.format;
                c.formats.vertex_weights = w.format;
            }
            if let Some(pulled) = &v.vertices {
                // The stage's vertices in one storage buffer, as a compute stage pulls them.
                slots.push(slot(
                    Role::Positions,
                    pulled.group,
                    pulled.binding,
                    Space::Storage { writable: false },
                    Want::Words,
                    "the byte-addressed vertices",
                    vec![Render],
                    "vertex.vertices",
                ));
                c.pulled = Some(pulled.layout());
                let layout = pulled.layout();
                c.formats.vertex_joints = layout.joint_format;
                c.formats.vertex_weights = layout.weights;
            }
            let (inputs, outputs) = self.vertex_frames(v);
            c.vertex_inputs.extend(inputs);
            c.vertex_outputs = outputs;
            c.tint = v.colour == Colour::Tint;
            c.skin_function = v.skin_function.clone();
            c.frame_functions = crate::contract::FrameFunctions {
                normal: v.normal_function.clone(),
                tangent: v.tangent_function.clone(),
            };
        }
        for (i, b) in self.bindings.iter().enumerate() {
            let role = Role::Filled(i as u32);
            // The space and size come from the shader, once it is read.
            slots.push(slot(
                role,
                b.group,
                b.binding,
                Space::Uniform,
                Want::Filled,
                "a buffer the harness fills",
                vec![Compute, Render],
                &format!("bindings[{i}]"),
            ));
            let mut members: Vec<_> = (b.members.iter())
                .map(|(name, v)| crate::contract::MemberValue {
                    name: name.clone(),
                    values: v.0.clone(),
                    origin: self.whence(&format!("bindings[{i}].members.{name}")),
                })
                .collect();
            if let Some(name) = &b.palette_offset {
                members.push(crate::contract::MemberValue {
                    name: name.clone(),
                    values: vec![crate::contract::PALETTE_OFFSET as f64],
                    origin: self.whence(&format!("bindings[{i}].palette_offset")),
                });
                c.offset_in_filled = true;
            }
            c.filled.push(crate::contract::Filled {
                role,
                fill: b.fill,
                floats: b.floats.clone(),
                members,
                count: b.count.clone().map(|name| crate::contract::CountMember {
                    name,
                    origin: self.whence(&format!("bindings[{i}].count")),
                    offset: None,
                }),
                bytes: Vec::new(),
                problems: Vec::new(),
            });
        }
        c.slots = slots;
        c.compute = compute.map(|k| k.entry.clone());
        c.vertex = vertex.map(|v| v.entry.clone());
        c.fragment = vertex.and_then(|v| v.fragment.clone());
        let mut entries = Vec::new();
        if let Some(k) = compute {
            entries.push((k.entry.clone(), self.whence("compute.entry")));
        }
        if let Some(v) = vertex {
            entries.push((v.entry.clone(), self.whence("vertex.entry")));
            if let Some(f) = &v.fragment {
                entries.push((f.clone(), self.whence("vertex.fragment")));
            }
        }
        c.influence_sets = self.sets();
        c.normal_matrix = self.normal_matrix.unwrap_or_default();
        c.constants = (self.constants.iter())
            .map(|(k, v)| (k.clone(), v.value()))
            .collect();
        c.profile = Some(Origin {
            path: self.path.display().to_string(),
            entries,
            sets: self.influence_sets.map(|_| self.whence("influence_sets")),
            constants: (self.constants.keys())
                .map(|k| (k.clone(), self.whence(&format!("constants.{k}"))))
                .collect(),
            fields: self.field_places(),
        });
        c
    }
}

impl Profile {
    /// The compute stage's normal and tangent bindings, those the profile gives.
    fn compute_frames(&self, k: &Compute) -> Vec<crate::contract::Slot> {
        let read = Space::Storage { writable: false };
        let write = Space::Storage { writable: true };
        // A typed array's type, or byte-addressed words.
        let ty = |stride: Option<u32>, typed: Want| match stride {
            Some(_) => Want::OutputWords,
            None => typed,
        };
        let tangents = |f: &Frames<TangentFormat>| match f.tangent_format() {
            TangentFormat::Vec4 => ty(f.stride, Want::Array(Elem::Vec4F32)),
            TangentFormat::Vec3 => ty(f.stride, Want::Positions),
        };
        let at = |f: Option<&Frames<PositionFormat>>| {
            f.map(|f| (f.slot(), ty(f.stride, Want::Positions)))
        };
        let at_tangents = |f: Option<&Frames<TangentFormat>>| f.map(|f| (f.slot(), tangents(f)));
        let (skinned_normals, skinned_tangents) = k.skinned_frames();
        let given = [
            (
                Role::Normals,
                at(k.normals.as_ref()),
                read,
                "source normals",
                "compute.normals",
            ),
            (
                Role::Tangents,
                at_tangents(k.tangents.as_ref()),
                read,
                "source tangents",
                "compute.tangents",
            ),
            (
                Role::SkinnedNormals,
                at(skinned_normals.as_ref()),
                write,
                "skinned normals",
                "compute.skinned_normals",
            ),
            (
                Role::SkinnedTangents,
                at_tangents(skinned_tangents.as_ref()),
                write,
                "skinned tangents",
                "compute.skinned_tangents",
            ),
        ];
        given
            .into_iter()
            .filter_map(|(role, given, space, holds, field)| {
                let (s, ty) = given?;
                Some(crate::contract::Slot {
                    role,
                    group: s.group,
                    binding: s.binding,
                    space,
                    ty,
                    holds: holds.into(),
                    pipelines: vec![Pipeline::Compute],
                    origin: Some(self.whence(field)),
                })
            })
            .collect()
    }

    /// The vertex stage's normal and tangent attributes and outputs, those the profile gives.
    fn vertex_frames(
        &self,
        v: &Vertex,
    ) -> (
        Vec<crate::contract::VertexInput>,
        Vec<crate::contract::VertexOutput>,
    ) {
        use crate::contract::{VertexInput, VertexOutput};
        let mut inputs = Vec::new();
        for (role, at, ty, format, field) in [
            (
                Role::Normals,
                v.normal,
                Elem::Vec3F32,
                wgpu::VertexFormat::Float32x3,
                "vertex.normal",
            ),
            (
                Role::Tangents,
                v.tangent,
                Elem::Vec4F32,
                wgpu::VertexFormat::Float32x4,
                "vertex.tangent",
            ),
        ] {
            if let Some(l) = at {
                let whence = Some(self.whence(field));
                inputs.push(VertexInput::new(
                    role,
                    (ty, None),
                    format,
                    l.location,
                    whence,
                ));
            }
        }
        let mut outputs = Vec::new();
        for (role, at, ty, field) in [
            (
                Role::SkinnedNormals,
                v.skinned_normal,
                Elem::Vec3F32,
                "vertex.skinned_normal",
            ),
            (
                Role::SkinnedTangents,
                v.skinned_tangent,
                Elem::Vec4F32,
                "vertex.skinned_tangent",
            ),
        ] {
            if let Some(l) = at {
                outputs.push(VertexOutput {
                    role,
                    location: l.location,
                    ty,
                    origin: Some(self.whence(field)),
                });
            }
        }
        (inputs, outputs)
    }
}

/// A WGSL identifier: a letter or `_`, then letters, digits or `_` (not `_` alone).
/// A member or a dotted path into nested structs' members (`vertices.end`).
fn is_member_path(name: &str) -> bool {
    name.split('.').all(is_identifier)
}

fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_')
        && name != "_"
}

/// A normal or tangent buffer as the profile gives it: (its field, what it holds, and where
/// given: its slot, stride, offset and stream).
type Given = (
    &'static str,
    &'static str,
    Option<(Slot, Option<u32>, Option<u32>, crate::format::Stream)>,
);

/// A byte-addressed normal or tangent buffer's stride and offset: a positive multiple of 4, and
/// the direction inside the stride on a word.
fn check_stream_place((field, what, given): &Given) -> Result<(), (String, String)> {
    let Some((_, stride, offset, stream)) = given else {
        return Ok(());
    };
    let Some(s) = stride else {
        return match offset {
            Some(_) => Err((
                format!("{field}.offset"),
                "is for a byte-addressed buffer: give `stride` too, the bytes of a vertex (12 for tightly packed vec3s)".into(),
            )),
            None => Ok(()),
        };
    };
    if *s == 0 || s % 4 != 0 {
        return Err((
            format!("{field}.stride"),
            format!("is {s} bytes: a byte-addressed stride is a positive multiple of 4"),
        ));
    }
    let (o, bytes) = (offset.unwrap_or(0), 4 * stream.words);
    if o % 4 != 0 || o + bytes > *s {
        return Err((
            format!("{field}.offset"),
            format!("is byte {o}: the {bytes}-byte {what} must start on a 4-byte boundary and lie inside the stride ({s} bytes)"),
        ));
    }
    Ok(())
}

/// Skinned directions at their source's binding are written over it: the same form, stride,
/// offset and format.
fn check_in_place_stream(source: &Given, skinned: &Given) -> Result<(), (String, String)> {
    let (Some(a), Some(b)) = (&source.2, &skinned.2) else {
        return Ok(());
    };
    if a.0 != b.0 {
        return Ok(());
    }
    let (a, b) = (a.3, b.3);
    let form = match a.byte_addressed {
        true => "byte-addressed: give both `stride` or neither",
        false => "typed: give both `stride` or neither",
    };
    let format = if a.words == 4 { "vec4" } else { "vec3" };
    // (field, what must match, whether it differs, the source's)
    let differs = [
        (
            "stride",
            "form",
            a.byte_addressed != b.byte_addressed,
            form.to_string(),
        ),
        (
            "stride",
            "stride",
            a.stride != b.stride,
            format!("{} bytes", a.stride),
        ),
        (
            "offset",
            "offset",
            a.offset != b.offset,
            format!("byte {}", a.offset),
        ),
        ("format", "format", a.words != b.words, format.to_string()),
    ];
    match differs.into_iter().find(|d| d.2) {
        Some((field, what, _, source_is)) => Err((
            format!("{}.{field}", skinned.0),
            format!(
                "`{}` is written in place, at `{}`' binding, so its {what} must be the source's ({source_is})",
                skinned.0, source.0
            ),
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Profile, String> {
        Profile::parse(Path::new("p.profile.yaml"), text).map_err(|e| e.to_string())
    }

    const DEFAULT: &str = include_str!("../../shaders/skinning.profile.yaml");

    #[test]
    fn the_default_profile_parses() {
        let p = parse(DEFAULT).unwrap();
        assert_eq!(p.compute.as_ref().unwrap().entry, "skin_compute");
        assert_eq!(p.vertex.as_ref().unwrap().entry, "vs_skin");
        assert_eq!(p.slots().len(), 7);
    }

    #[test]
    fn errors_are_located() {
        let text = DEFAULT.replacen("binding: 3", "binding: 2", 1);
        let msg = parse(&text).unwrap_err();
        assert!(
            msg.contains("field `compute.weights.binding`: @group(0) @binding(2) is already `compute.joints`"),
            "{msg}"
        );
        let text = DEFAULT.replacen("format: u32x4", "format: u12x4", 1);
        let msg = parse(&text).unwrap_err();
        assert!(
            msg.starts_with("p.profile.yaml:") && msg.contains("u12x4"),
            "{msg}"
        );
        let msg = parse("palette: { group: 0, binding: 0 }\n").unwrap_err();
        assert!(
            msg.contains("field `compute`: the profile names no stage"),
            "{msg}"
        );
        let msg = parse(&DEFAULT.replacen("entry: vs_skin", "entry: vs-skin", 1)).unwrap_err();
        assert!(
            msg.contains("field `vertex.entry`: `vs-skin` is not a WGSL identifier"),
            "{msg}"
        );
        // A fill for the rest of a camera struct needs a camera matrix.
        let camera = "camera: { group: 0, binding: 6, form: view }";
        assert!(
            DEFAULT.contains(camera),
            "the default profile's camera changed"
        );
        let text = DEFAULT.replacen(
            camera,
            "camera: { group: 0, binding: 6, form: view, fill: identity }",
            1,
        );
        let msg = parse(&text).unwrap_err();
        assert!(
            msg.contains("field `vertex.camera.fill`: is for a camera matrix in a larger struct: give `form: matrix`"),
            "{msg}"
        );
        let text = DEFAULT.replacen(
            camera,
            "camera: { group: 0, binding: 6, form: matrix, fill: identity }",
            1,
        );
        assert_eq!(parse(&text).unwrap().contract().camera_fill, Fill::Identity);
    }

    #[test]
    fn the_palette_and_the_camera_may_be_members_of_one_struct() {
        let vertex = "vertex:\n  entry: vs\n  position: { location: 0 }\n  joints: { location: 1 }\n  weights: { location: 2 }\n";
        let profile = |palette: &str, camera: &str| {
            parse(&format!("palette: {palette}\n{vertex}  camera: {camera}\n"))
        };
        let shared = profile(
            "{ group: 0, binding: 0, form: uniform, member: bones, fill: identity }",
            "{ group: 0, binding: 0, form: matrix, member: projection }",
        )
        .unwrap()
        .contract();
        assert!(shared.camera_in_palette && shared.try_slot(Role::View).is_none());
        assert_eq!(shared.palette_member.as_ref().unwrap().name, "bones");
        assert_eq!(shared.camera_member.as_ref().unwrap().name, "projection");
        assert_eq!(shared.palette_fill, Fill::Identity);
        // A camera member in a binding of its own.
        let own = profile(
            "{ group: 0, binding: 0 }",
            "{ group: 0, binding: 1, form: matrix, member: view_proj }",
        )
        .unwrap()
        .contract();
        assert!(!own.camera_in_palette && own.slot(Role::View).ty == Want::Matrix);
        let err = |palette: &str, camera: &str, field: &str, says: &str| {
            let msg = profile(palette, camera).unwrap_err();
            assert!(msg.contains(&format!("field `{field}`: {says}")), "{msg}");
        };
        let camera = "{ group: 0, binding: 1, form: matrix }";
        err(
            "{ group: 0, binding: 0, member: bones }",
            "{ group: 0, binding: 0, form: matrix }",
            "vertex.camera.binding",
            "@group(0) @binding(0) is already `palette`; each role has its own binding (a camera matrix inside the palette's struct is a `member` of it, as the palette is)",
        );
        err(
            "{ group: 0, binding: 0 }",
            "{ group: 0, binding: 0, form: matrix, member: m }",
            "palette.member",
            "the camera is a member of the palette's binding: name the palette's member too",
        );
        err(
            "{ group: 0, binding: 0, fill: identity }",
            camera,
            "palette.fill",
            "fills the rest of a struct around the palette: give the palette's `member`",
        );
        err(
            "{ group: 0, binding: 0, member: bones, offset: { group: 0, binding: 2 } }",
            camera,
            "palette.member",
            "a palette member of a larger struct is not split (`inverse_binds`) or offset (`offset`)",
        );
        err(
            "{ group: 0, binding: 0, member: bones }",
            "{ group: 0, binding: 0, form: matrix, member: bones }",
            "vertex.camera.member",
            "`bones` is the palette's member",
        );
        err(
            "{ group: 0, binding: 0, member: bones }",
            "{ group: 0, binding: 0, form: matrix, member: m, fill: identity }",
            "vertex.camera.fill",
            "the camera is a member of the palette's struct, which the palette's `fill` fills",
        );
        err(
            "{ group: 0, binding: 0 }",
            "{ group: 0, binding: 1, member: m }",
            "vertex.camera.member",
            "is for a camera matrix in a larger struct: give `form: matrix`",
        );
        err(
            "{ group: 0, binding: 0, member: 2bones }",
            camera,
            "palette.member",
            "`2bones` is not a WGSL identifier",
        );
    }

    #[test]
    fn a_vertex_stage_pulls_its_vertices_or_takes_attributes() {
        let pulled = "  vertices: { group: 0, binding: 2, stride: 32, position: 0, joints: { offset: 12, format: u16x4 }, weights: { offset: 20, format: unorm16x4 } }\n";
        let profile = |extra: &str| {
            parse(&format!("palette: {{ group: 0, binding: 1 }}\nvertex:\n  entry: vs\n  camera: {{ group: 0, binding: 0, form: matrix }}\n{extra}"))
        };
        let c = profile(pulled).unwrap().contract();
        assert!(c.vertex_inputs.is_empty());
        assert_eq!(c.slot(Role::Positions).ty, Want::Words);
        assert_eq!(c.pulled.as_ref().unwrap().stride, 32);
        assert_eq!(c.formats.vertex_joints, JointFormat::U16x4);
        let err = |extra: &str, says: &str| {
            let msg = profile(extra).unwrap_err();
            assert!(msg.contains(says), "{msg}");
        };
        err(
            "",
            "field `vertex`: `position` is missing: give `position`, `joints` and `weights`, or one byte-addressed `vertices` buffer",
        );
        err(
            &format!("{pulled}  skin_function: skin\n"),
            "field `vertex.skin_function`: a vertex stage that pulls its vertices is compared through a copy of its entry point",
        );
        err(
            &pulled.replace("binding: 2", "binding: 1"),
            "field `vertex.vertices.binding`: @group(0) @binding(1) is already `palette`",
        );
        let both = "compute:\n  entry: main\n  positions: { group: 1, binding: 1 }\n  joints: { group: 1, binding: 2 }\n  weights: { group: 1, binding: 3 }\n  skinned: { group: 1, binding: 4 }\n  count: { group: 1, binding: 5 }\n";
        err(
            &format!("{pulled}{both}"),
            "field `vertex.vertices`: a vertex stage pulls its vertices in a vertex-only profile",
        );
    }

    #[test]
    fn the_compute_stage_reads_each_input_from_one_source() {
        let profile = |inputs: &str| {
            parse(&format!("palette: {{ group: 0, binding: 0 }}\ncompute:\n  entry: main\n{inputs}  skinned: {{ group: 0, binding: 4 }}\n"))
        };
        let vertices = "  vertices: { group: 0, binding: 1, stride: 16, position: 0 }\n";
        let own = "  influences: { group: 0, binding: 2, stride: 24, joints: { offset: 0, format: u16x4 }, weights: { offset: 8, format: f32x4 } }\n";
        // Two byte-addressed streams, and no count uniform.
        let c = profile(&format!("{vertices}{own}")).unwrap().contract();
        assert_eq!(c.slot(Role::Joints).ty, Want::Words);
        assert_eq!(
            (c.slot(Role::Joints).binding, c.try_slot(Role::Weights)),
            (2, None)
        );
        assert!(c.try_slot(Role::Count).is_none());
        let influences = c.influences.as_ref().unwrap();
        assert_eq!((influences.stride, influences.position), (24, None));
        assert_eq!(c.formats.joints, JointFormat::U16x4);
        assert!(c.pulled.as_ref().unwrap().joints.is_empty());
        // Separate positions beside them; the vertices beside separate joints and weights.
        let positions = "  positions: { group: 0, binding: 1 }\n";
        let typed = "  joints: { group: 0, binding: 2 }\n  weights: { group: 0, binding: 3 }\n";
        assert!(profile(&format!("{positions}{own}")).is_ok());
        assert!(profile(&format!("{vertices}{typed}")).is_ok());
        let err = |inputs: String, says: &str| {
            let msg = profile(&inputs).unwrap_err();
            assert!(msg.contains(says), "{msg}");
        };
        let pulled_influences = vertices.replace(
            " }\n",
            ", joints: { offset: 4, format: u16x4 }, weights: { offset: 12, format: unorm8x4 } }\n",
        );
        err(
            format!("{pulled_influences}{own}"),
            "field `compute.influences`: the joints and weights are given twice, here and in `vertices`",
        );
        err(
            format!("{positions}{typed}{}", own.replace("binding: 2", "binding: 5")),
            "field `compute.influences`: the joints and weights are given twice, here and in `joints` and `weights`",
        );
        err(
            format!("{positions}  weights: {{ group: 0, binding: 3 }}\n{own}"),
            "field `compute.influences`: the joints and weights are given twice, here and in `weights`:",
        );
        err(
            vertices.to_string(),
            "field `compute.vertices`: the joints and weights are missing: give them in `vertices` (`joints` and `weights`) or in a byte-addressed `influences` buffer",
        );
        err(
            vertices.replace(" }\n", ", joints: { offset: 4, format: u16x4 } }\n"),
            "field `compute.vertices`: gives `joints` without `weights`: give both",
        );
        err(
            format!("{positions}  joints: {{ group: 0, binding: 2 }}\n"),
            "field `compute`: `weights` is missing",
        );
        err(own.to_string(), "field `compute`: `positions` is missing");
        err(
            format!("{vertices}{}", own.replace("offset: 8", "offset: 4")),
            "field `compute.influences.weights.offset`: `weights`: bytes 4 to 19 overlap `joints`",
        );
    }

    #[test]
    fn a_filled_members_count_is_checked() {
        let compute = "compute:\n  entry: main\n  positions: { group: 0, binding: 1 }\n  joints: { group: 0, binding: 2 }\n  weights: { group: 0, binding: 3 }\n  skinned: { group: 0, binding: 4 }\n";
        let profile = |bindings: &str| {
            parse(&format!(
                "palette: {{ group: 0, binding: 0 }}\n{compute}bindings:\n{bindings}"
            ))
        };
        let c = profile("  - { group: 0, binding: 5, count: vertex_count }\n")
            .unwrap()
            .contract();
        let count = c.filled[0].count.as_ref().unwrap();
        assert_eq!((count.name.as_str(), count.offset), ("vertex_count", None));
        assert!(
            count.origin.contains("bindings[0].count"),
            "{}",
            count.origin
        );
        assert!(c.try_slot(Role::Count).is_none());
        let err = |bindings: &str, says: &str| {
            let msg = profile(bindings).unwrap_err();
            assert!(msg.contains(says), "{msg}");
        };
        err(
            "  - { group: 0, binding: 5, count: vertex-count }\n",
            "field `bindings[0].count`: `vertex-count` is not a WGSL identifier",
        );
        err(
            "  - { group: 0, binding: 5, count: n, members: { n: 3 } }\n",
            "`n` is also given a value in `bindings[0]`",
        );
        err(
            "  - { group: 0, binding: 5, count: n }\n  - { group: 0, binding: 6, count: m }\n",
            "field `bindings[1].count`: another binding already holds the vertex count",
        );
        let vertex_only = "palette: { group: 0, binding: 0 }\nvertex:\n  entry: vs\n  position: { location: 0 }\n  joints: { location: 1 }\n  weights: { location: 2 }\n  camera: { group: 0, binding: 6, form: matrix }\nbindings:\n  - { group: 0, binding: 5, count: n }\n";
        let msg = parse(vertex_only).unwrap_err();
        assert!(
            msg.contains("the vertex count is the compute stage's"),
            "{msg}"
        );
    }

    #[test]
    fn a_palette_texture_has_its_own_fields() {
        let vertex = "vertex:\n  entry: vs\n  position: { location: 0 }\n  joints: { location: 1 }\n  weights: { location: 2 }\n  camera: { group: 0, binding: 0, form: matrix }\n";
        let profile = |palette: &str| parse(&format!("palette: {palette}\n{vertex}"));
        let c = profile("{ group: 0, binding: 1, form: texture, texels: 3, width: 16, sampler: { group: 0, binding: 2 } }")
            .unwrap()
            .contract();
        let t = c.palette_texture.unwrap();
        assert_eq!(
            (t.texels, t.width),
            (3, crate::contract::TextureWidth::Fixed(16))
        );
        assert_eq!(c.slot(Role::Palette).space, Space::Texture);
        assert_eq!(c.slot(Role::PaletteSampler).ty, Want::Sampler);
        let t = profile("{ group: 0, binding: 1, form: texture, width: row }")
            .unwrap()
            .contract();
        assert_eq!(t.palette_texture.unwrap().texels, 4);
        let err = |palette: &str, says: &str| {
            let msg = profile(palette).unwrap_err();
            assert!(msg.contains(says), "{msg}");
        };
        err(
            "{ group: 0, binding: 1, width: 4 }",
            "field `palette.width`: is for a palette texture: give `form: texture`",
        );
        err(
            "{ group: 0, binding: 1, form: texture }",
            "field `palette.width`: a palette texture needs its `width`: a number of texels, `row` or `square`",
        );
        err(
            "{ group: 0, binding: 1, form: texture, width: 4, texels: 2 }",
            "field `palette.texels`: must be 4 (a joint's columns) or 3 (the rows of its affine 3x4), got 2",
        );
        err(
            "{ group: 0, binding: 1, form: texture, width: wide }",
            "a number of texels from 1 up, `row` or `square`",
        );
        err(
            "{ group: 0, binding: 1, form: texture, width: 0 }",
            "a number of texels from 1 up, `row` or `square`",
        );
        err(
            "{ group: 0, binding: 1, form: texture, width: row, member: bones }",
            "field `palette.member`: a palette texture holds the palette alone, from joint 0",
        );
        err(
            "{ group: 0, binding: 1, form: texture, width: row, sampler: { group: 0, binding: 1 } }",
            "field `palette.sampler.binding`: @group(0) @binding(1) is already `palette`",
        );
    }

    #[test]
    fn an_expected_case_may_be_a_pattern() {
        for (pattern, name, hit) in [
            ("gltf_*", "gltf_fox_t0_5", true),
            ("gltf_*", "gltf_", true),
            ("gltf_*", "long_chain_256", false),
            ("*_t0_5", "gltf_fox_t0_5", true),
            ("*_t0_5", "gltf_fox_t0_50", false),
            ("gltf_*_t1_*", "gltf_fox_t1_5", true),
            ("gltf_*_t1_*", "gltf_fox_t2_5", false),
            ("a*a", "a", false),
            ("a*a", "aa", true),
            ("*", "anything", true),
            ("wide", "wide_indices", false),
        ] {
            assert_eq!(names(pattern, name), hit, "{pattern} vs {name}");
        }
    }

    #[test]
    fn expectations_are_located_and_need_a_matcher_and_a_reason() {
        let entry =
            "expect:\n  - case: wide\n    matches: 256 matrices\n    reason: a uniform palette\n";
        let p = Profile::parse(Path::new("p.profile.yaml"), &format!("{DEFAULT}{entry}")).unwrap();
        let lines = DEFAULT.lines().count();
        assert_eq!(p.expect[0].at, format!("p.profile.yaml:{}", lines + 2));
        assert!(p.expect[0].covers("wide", "case_loads") && !p.expect[0].covers("other", "x"));
        assert!(!p.expect[0].covers("wide_indices", "case_loads"));
        let msg = parse(&format!("{DEFAULT}{}", entry.replace("256 matrices", "''"))).unwrap_err();
        assert!(
            msg.contains("field `expect[0].matches`: must not be empty"),
            "{msg}"
        );
        let msg = parse(&format!("{DEFAULT}{entry}    status: fail\n")).unwrap_err();
        assert!(msg.contains("status"), "{msg}");
    }

    #[test]
    fn the_default_profile_is_the_builtin_contract() {
        let mut c = parse(DEFAULT).unwrap().contract();
        let builtin = Contract::builtin();
        assert!(c.profile.is_some());
        c.profile = None;
        for s in &mut c.slots {
            assert!(s
                .origin
                .as_deref()
                .is_some_and(|o| o.starts_with("p.profile.yaml:")));
            s.origin = None;
        }
        for v in &mut c.vertex_inputs {
            v.origin = None;
        }
        c.slots.sort_by_key(|s| s.role);
        assert_eq!(c, builtin);
    }

    #[test]
    fn a_profile_sits_beside_its_shader() {
        assert_eq!(
            beside(Path::new("shaders/examples/a.wgsl")),
            Path::new("shaders/examples/a.profile.yaml")
        );
    }

    #[test]
    fn a_filled_members_palette_offset_is_checked() {
        let root = &crate::config::project_root();
        let good = std::fs::read_to_string(
            root.join("shaders/examples/vertex_mesh_bindings.profile.yaml"),
        )
        .unwrap();
        let at = "palette_offset: current_skin_index";
        assert!(good.contains(at), "the example no longer has `{at}`");
        let c = parse(&good).unwrap().contract();
        assert!(c.offset_in_filled);
        let m = (c.filled[0].members.iter())
            .find(|m| m.name == "current_skin_index")
            .unwrap();
        assert_eq!(m.values, [crate::contract::PALETTE_OFFSET as f64]);
        assert!(
            m.origin.contains("bindings[0].palette_offset"),
            "{}",
            m.origin
        );
        let wrong = |edit: &str, want: &str| {
            let msg = parse(&good.replacen(at, edit, 1)).unwrap_err();
            assert!(msg.contains(want), "{edit}: {msg}");
        };
        wrong(
            "palette_offset: skin-index",
            "field `bindings[0].palette_offset`: `skin-index` is not a WGSL identifier",
        );
        wrong(
            "palette_offset: flags",
            "`flags` is also given a value in `bindings[0].members`",
        );
        let offset = "palette: { group: 1, binding: 1, offset: { group: 2, binding: 0 } }";
        let both = good.replacen("palette: { group: 1, binding: 1 }", offset, 1);
        assert!(both.contains(offset));
        let msg = parse(&both).unwrap_err();
        assert!(
            msg.contains("the palette's offset is already `palette.offset`"),
            "{msg}"
        );
    }
}

#[cfg(test)]
mod examples {
    use super::*;

    /// Every example shader (composed from its modules where its profile says so) validates with
    /// naga and its profile parses.
    #[test]
    fn examples_validate_and_their_profiles_parse() {
        let dir = crate::config::project_root().join("shaders/examples");
        let mut n = 0;
        for e in std::fs::read_dir(&dir).unwrap() {
            let path = e.unwrap().path();
            if path.extension().is_some_and(|x| x == "wgsl") {
                Profile::load(&beside(&path)).unwrap();
                let shader = crate::shader::Shader::load(&path, None).unwrap();
                let src = &shader.source;
                let module = naga::front::wgsl::parse_str(src)
                    .map_err(|e| e.emit_to_string_with_path(src, &path.display().to_string()))
                    .unwrap();
                naga::valid::Validator::new(
                    naga::valid::ValidationFlags::all(),
                    naga::valid::Capabilities::default(),
                )
                .validate(&module)
                .map_err(|e| e.emit_to_string_with_path(src, &path.display().to_string()))
                .unwrap();
                n += 1;
            }
        }
        assert_eq!(n, 21);
    }

    /// Normal and tangent streams of their own: typed or byte-addressed, a skinned one in its
    /// source's format unless it gives its own, and in place laid out as its source.
    #[test]
    fn normal_and_tangent_streams_are_placed_and_checked() {
        const STREAMS: &str =
            include_str!("../../shaders/examples/compute_frame_streams.profile.yaml");
        let c = Profile::parse(Path::new("p.profile.yaml"), STREAMS)
            .unwrap()
            .contract();
        let packed = |words| crate::format::Stream {
            stride: 12,
            offset: 0,
            words,
            byte_addressed: true,
        };
        assert_eq!(c.streams.normals, packed(3));
        assert_eq!(c.streams.skinned_normals, packed(3));
        assert_eq!(c.streams.skinned_tangents, packed(3));
        assert!(
            c.frames_in_place(Role::SkinnedNormals) && !c.frames_in_place(Role::SkinnedTangents)
        );
        assert!(!c.tangent_handedness());
        assert_eq!(c.slot(Role::Normals).ty, Want::OutputWords);
        // Typed, as before: a 16-byte stride, a tangent's w kept.
        let typed = include_str!("../../shaders/examples/skinning_normals.profile.yaml");
        let c = Profile::parse(Path::new("p.profile.yaml"), typed)
            .unwrap()
            .contract();
        assert_eq!(c.streams.normals, crate::format::Stream::typed(3));
        assert!(c.tangent_handedness());
        assert_eq!(
            c.reads().normals,
            crate::format::NormalMatrix::InverseTranspose
        );
        let blended = format!("{typed}normal_matrix: blended\n");
        let c = Profile::parse(Path::new("p.profile.yaml"), &blended)
            .unwrap()
            .contract();
        assert_eq!(c.reads().normals, crate::format::NormalMatrix::Blended);
        let normals = "normals: { group: 0, binding: 6, stride: 12 }";
        let tangents = "tangents: { group: 0, binding: 7, stride: 12, format: vec3 }";
        let skinned = "skinned_normals: { group: 0, binding: 6, stride: 12 }";
        let wrong = |edits: &[(&str, &str)]| {
            let mut text = STREAMS.to_string();
            for (from, to) in edits {
                assert!(text.contains(from), "the example has no `{from}`");
                text = text.replacen(from, to, 1);
            }
            Profile::parse(Path::new("p.profile.yaml"), &text)
                .unwrap_err()
                .to_string()
        };
        let cases: [(&[(&str, &str)], &str); 7] = [
            (
                &[(skinned, "skinned_normals: { group: 0, binding: 6 }")],
                "field `compute.skinned_normals.stride`: `compute.skinned_normals` is written in place, at `compute.normals`' binding, so its form must be the source's (byte-addressed: give both `stride` or neither)",
            ),
            (
                &[(normals, "normals: { group: 0, binding: 6, offset: 4 }")],
                "field `compute.normals.offset`: is for a byte-addressed buffer: give `stride` too",
            ),
            (
                &[(normals, "normals: { group: 0, binding: 6, stride: 14 }")],
                "field `compute.normals.stride`: is 14 bytes: a byte-addressed stride is a positive multiple of 4",
            ),
            (
                &[(tangents, "tangents: { group: 0, binding: 7, stride: 12, offset: 4, format: vec3 }")],
                "field `compute.tangents.offset`: is byte 4: the 12-byte tangent must start on a 4-byte boundary and lie inside the stride (12 bytes)",
            ),
            (
                &[(skinned, "skinned_normals: { group: 0, binding: 6, stride: 16 }")],
                "field `compute.skinned_normals.stride`: `compute.skinned_normals` is written in place, at `compute.normals`' binding, so its stride must be the source's (12 bytes)",
            ),
            (
                &[
                    (normals, "normals: { group: 0, binding: 6, stride: 16, format: vec4 }"),
                    (skinned, "skinned_normals: { group: 0, binding: 6, stride: 16, format: vec3 }"),
                ],
                "field `compute.skinned_normals.format`: `compute.skinned_normals` is written in place, at `compute.normals`' binding, so its format must be the source's (vec4)",
            ),
            (
                &[(
                    "skinned_tangents: { group: 0, binding: 8, stride: 12 }",
                    "skinned_tangents: { group: 0, binding: 8, stride: 16, format: vec4 }",
                )],
                "field `compute.skinned_tangents.format`: is vec4, a tangent with the source's handedness in w, but the source tangents are vec3",
            ),
        ];
        for (edits, want) in cases {
            let msg = wrong(edits);
            assert!(msg.contains(want), "{edits:?}: {msg}");
        }
    }

    /// Each wrong-profile class: the message names the profile file, line and field, and the
    /// shader's binding or entry point.
    #[test]
    fn wrong_profiles_are_located() {
        let root = &crate::config::project_root();
        let shader = root.join("shaders/examples/compute_u16_pairs.wgsl");
        let good = std::fs::read_to_string(beside(&shader)).unwrap();
        let dir = root.join("target/profile-tests");
        std::fs::create_dir_all(&dir).unwrap();
        let check = |name: &str, edits: &[(&str, &str)], wants: &[&str]| {
            let mut text = good.clone();
            for (from, to) in edits {
                assert!(text.contains(from), "{name}: the profile has no `{from}`");
                text = text.replacen(from, to, 1);
            }
            let path = dir.join(format!("{name}.profile.yaml"));
            std::fs::write(&path, text).unwrap();
            let msg = match crate::shader::Shader::load(&shader, Some(&path)) {
                Err(e) => e.to_string(),
                Ok(s) => s.validate().map(|_| ()).unwrap_err().to_string(),
            };
            for want in wants {
                assert!(msg.contains(want), "{name}: {msg}\nwanted: {want}");
            }
        };
        check(
            "another_type",
            &[
                (
                    "weights: { group: 1, binding: 3",
                    "weights: { group: 1, binding: 9",
                ),
                (
                    "joints: { group: 1, binding: 2",
                    "joints: { group: 1, binding: 3",
                ),
                (
                    "weights: { group: 1, binding: 9",
                    "weights: { group: 1, binding: 2",
                ),
            ],
            &[
                "binding 2 (`src_joints`) must be array<vec4<f32>>, is array<vec2<u32>>",
                "another_type.profile.yaml:",
            ],
        );
        check(
            "format",
            &[(
                "joints: { group: 1, binding: 2, format: u16x4 }",
                "joints: { group: 1, binding: 2, format: u32x4 }",
            )],
            &["binding 2 (`src_joints`) must be array<vec4<u32>>, is array<vec2<u32>> (the profile's", "format.profile.yaml:7:3, field `compute.joints`"],
        );
        check(
            "entry",
            &[("entry: main", "entry: skin_main")],
            &[
                "entry point `skin_main` is missing (the profile's",
                "entry.profile.yaml:5:3, field `compute.entry`",
            ],
        );
        check(
            "other_shader",
            &[("shader: compute_u16_pairs.wgsl", "shader: skinning.wgsl")],
            &["other_shader.profile.yaml:2:1: field `shader`: this profile describes `skinning.wgsl`, not the shader under test"],
        );
    }

    #[test]
    fn a_profile_without_its_modules_keeps_the_rest() {
        let text = "shader: a.wgsl\nmodules:\n  entry: a.wgsl\n  # note\n  defines:\n    X: true\npalette: { group: 0, binding: 0 }\nvertex:\n  entry: vs\n";
        let p = Profile {
            source: text.into(),
            ..Profile::parse(Path::new("p.profile.yaml"), "palette: { group: 0, binding: 0 }\ncompute:\n  entry: main\n  positions: { group: 0, binding: 1 }\n  joints: { group: 0, binding: 2 }\n  weights: { group: 0, binding: 3 }\n  skinned: { group: 0, binding: 4 }\n  count: { group: 0, binding: 5 }\n").unwrap()
        };
        assert_eq!(
            p.without_modules(),
            "shader: a.wgsl\npalette: { group: 0, binding: 0 }\nvertex:\n  entry: vs\n"
        );
    }

    #[test]
    fn module_paths_and_defines_are_located() {
        let base = "palette: { group: 0, binding: 0 }\ncompute:\n  entry: main\n  positions: { group: 0, binding: 1 }\n  joints: { group: 0, binding: 2 }\n  weights: { group: 0, binding: 3 }\n  skinned: { group: 0, binding: 4 }\n  count: { group: 0, binding: 5 }\n";
        for (modules, field) in [
            ("modules:\n  entry: /tmp/a.wgsl\n", "modules.entry"),
            (
                "modules:\n  entry: a.wgsl\n  folders: [x, ../../y]\n",
                "modules.folders[1]",
            ),
            (
                "modules:\n  entry: a.wgsl\n  defines:\n    N: 9999999999\n",
                "modules.defines.N",
            ),
            (
                "modules:\n  entry: a.wgsl\n  defines:\n    a-b: true\n",
                "modules.defines.a-b",
            ),
        ] {
            let text = format!("{modules}{base}");
            let e = Profile::parse(Path::new("p.profile.yaml"), &text)
                .unwrap_err()
                .to_string();
            assert!(e.contains(&format!("field `{field}`")), "{e}");
        }
    }
}
