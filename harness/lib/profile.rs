//! The layout profile: where a shader reads and writes each role, in which format, from a YAML file.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::case::CaseError;
use crate::compose::Define;
use crate::contract::{Contract, Elem, Fill, Origin, Pipeline, Role, Space, Want};
use crate::format::{AttributePosition, JointFormat, PositionFormat, TangentFormat, WeightFormat};
use crate::yaml_line;
use rules::is_identifier;

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
    /// A GLSL shader's `#define`s (`true`, `false` for undefined, or an integer), as wgpu's
    /// `ShaderSource::Glsl` takes them.
    #[serde(default)]
    pub defines: BTreeMap<String, crate::compose::Define>,
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
    /// The most influences a vertex has that the shader reads: 2 or 3 for a shader that reads the
    /// first 2 or 3 of its one set's joints and weights (ThinMatrix's `ivec3` and `vec3`), its
    /// vertex attributes then vec2 or vec3; 4 a set by default.
    #[serde(default)]
    pub max_influences: Option<usize>,
    /// `implied` for a shader that reads one weight fewer than joints and takes the last as one
    /// minus the others (three weights beside four joints, its weights attribute a vec3);
    /// `given` (default) where it reads every weight. The CPU reference takes it so too.
    #[serde(default)]
    pub last_weight: Option<crate::format::LastWeight>,
    /// The matrix the shader skins normals by: the blended matrix's inverse transpose (default)
    /// or the blended matrix itself; the CPU reference follows it.
    #[serde(default)]
    pub normal_matrix: Option<crate::format::NormalMatrix>,
    /// How the shader makes its skinned tangents: moved by the blended matrix (`skinned`,
    /// default), or then made perpendicular to the skinned normal (`orthogonal`).
    #[serde(default)]
    pub tangent_frame: Option<crate::format::TangentFrame>,
    /// The length of the skinned normals and tangents the harness reads: `unit` (default) or
    /// `any`, for a shader that renormalises them in a later stage (compared by direction).
    #[serde(default)]
    pub frame_length: Option<crate::format::FrameLength>,
    /// The skinned tangents' length alone, where it differs from the normals' (`any`: a shader
    /// that renormalises its normals and leaves its tangents to a later stage, as Qt Quick 3D's
    /// does); `frame_length`'s unless given.
    #[serde(default)]
    pub tangent_length: Option<crate::format::FrameLength>,
    /// The w stored after each source position held in four floats: 0 (default) or 1, a
    /// point's, for a shader that multiplies the stored vec4 as it is.
    #[serde(default)]
    pub position_w: Option<crate::format::PositionW>,
    /// Values for the shader's pipeline-overridable constants (WGSL `override`), keyed by name,
    /// or by number where the declaration has an `@id`: every pipeline and translation of the
    /// shader gets them. An override without a default needs one.
    #[serde(default)]
    pub constants: BTreeMap<String, Constant>,
    /// The shader's other buffers that its stages read (a model matrix, a material's or a
    /// light's uniform), which the harness fills.
    #[serde(default)]
    pub bindings: Vec<FilledBinding>,
    /// What the shader's immediate data (`var<immediate>`, an engine's push constants) holds,
    /// which the harness sets before each draw and dispatch: filled as a binding's struct is.
    #[serde(default)]
    pub immediates: Option<Immediates>,
    /// Cases this layout cannot hold, and the failure each is known to give; `case: shader` for
    /// the shader's own trials (a native engine's stages past what Dawn binds).
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
    /// The u32 or i32 member (as `palette_offset`'s) that holds the case's number of joints, as
    /// an engine's per-instance `jointCount` does (zero there may mean an unskinned mesh):
    /// written for each case, in both pipelines.
    #[serde(default)]
    pub joint_count: Option<String>,
    /// The u32, i32 or f32 member (as `palette_offset`'s) that holds the width in texels of the
    /// palette's texture, as a renderer passes it beside its bone texture (Babylon.js's
    /// `boneTextureWidth`, older three.js's `boneTextureSize`): written for each case, in both
    /// pipelines.
    #[serde(default)]
    pub texture_width: Option<String>,
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
    /// Only cases with more joints than this (a fixed palette's length): a case with fewer is
    /// not covered, so it must pass, and a new case past the palette is covered unnamed.
    #[serde(default)]
    pub joints_above: Option<usize>,
    /// Only cases with a vertex of more influences than this (the shader's `max_influences`): a
    /// case whose vertices all have as many or fewer must pass.
    #[serde(default)]
    pub influences_above: Option<usize>,
    /// Text the failure's message must contain.
    pub matches: String,
    /// Why: required, so that expectations can be reviewed and retired.
    pub reason: String,
    /// Where the entry is, `file:line`, for messages.
    #[serde(skip)]
    pub at: String,
}

/// The `case` of an entry about the shader's own trials (`shader::tint_accepts`,
/// `shader::translates::<entry> [<target>]`): only this name covers them, not a pattern, so
/// `case: "*"` keeps to the cases.
pub const SHADER_TRIALS: &str = "shader";

/// The shader's own trials an entry with `case: shader` may name: Tint's, and each naga
/// translation by its name after `shader::` (`translates::fs_main [glsl-450]`, or a pattern,
/// `translates::fs_* [glsl-*]`).
pub const SHADER_CHECKS: [&str; 2] = ["tint_accepts", "translates::<entry> [<target>]"];

impl ShaderExpect {
    /// Whether this entry covers `check` of `case`.
    pub fn covers(&self, case: &str, check: &str) -> bool {
        self.case != SHADER_TRIALS
            && names(&self.case, case)
            && (self.checks.is_empty() || self.checks.iter().any(|c| c == check))
    }

    /// Whether this entry covers a case of `joints` joints whose vertices have at most
    /// `influences` influences (each unknown where its file did not load, and asked for only
    /// where the entry gives `joints_above` or `influences_above`): every case, unless it gives
    /// them.
    pub fn admits(
        &self,
        joints: impl FnOnce() -> Option<usize>,
        influences: impl FnOnce() -> Option<usize>,
    ) -> bool {
        self.joints_above
            .is_none_or(|n| joints().is_some_and(|j| j > n))
            && (self.influences_above).is_none_or(|n| influences().is_some_and(|i| i > n))
    }

    /// Whether this entry covers the shader's own trial `check` (`tint_accepts`,
    /// `translates::vs_main [spirv]`): named, or by a pattern of its checks.
    pub fn covers_shader(&self, check: &str) -> bool {
        self.case == SHADER_TRIALS
            && (self.checks.is_empty() || self.checks.iter().any(|c| names(c, check)))
    }
}

/// Whether `pattern` names `name`: equal, with each `*` standing for any run of characters.
pub fn names(pattern: &str, name: &str) -> bool {
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

/// The bind groups wgpu binds at all (its `MAX_BIND_GROUPS`): a profile's groups are below it, and
/// those past WebGPU's guaranteed 4 run where the adapter's `max_bind_groups` reaches them.
pub const MAX_BIND_GROUPS: u32 = 8;

/// The immediate data's contents: a fill and values by member name, as a filled binding's.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Immediates {
    /// `zero` (default) or `identity`: ones on the diagonal of every float matrix of its type.
    #[serde(default)]
    pub fill: Fill,
    /// Values by member name of its struct, each written as the member's type holds it.
    #[serde(default)]
    pub members: BTreeMap<String, Numbers>,
    /// The u32 or i32 member (or a lane of a vector of them, `params.y`) that holds the case's
    /// vertex count, as an engine's push constants do (LÖVR's `vertexCount`, Godot's
    /// `vertex_count`): written for each dispatch (and draw), in place of `compute.count`.
    #[serde(default)]
    pub count: Option<String>,
    /// The u32 or i32 member (as `count`'s) that holds the case's number of joints: written for
    /// each case, in both pipelines.
    #[serde(default)]
    pub joint_count: Option<String>,
    /// The u32, i32 or f32 member (as `count`'s) that holds the width in texels of the palette's
    /// texture, as `bindings`' `texture_width`: written for each case, in both pipelines.
    #[serde(default)]
    pub texture_width: Option<String>,
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
    /// With `form: texture`: each joint's normal matrix in the texels after its matrix, 4 (a
    /// `mat4x4<f32>`'s columns) or 3 (a 3x3's), filled with the inverse transpose of the joint's
    /// 3x3; the normals' reference is then `normal_matrix: per_joint` unless the profile says
    /// otherwise.
    #[serde(default)]
    pub normal_texels: Option<u32>,
    /// With `form: texture`: the texture's width in texels, `row` or `square`.
    #[serde(default)]
    pub width: Option<Width>,
    /// With `form: texture`: the sampler the shader reads it through, if it takes one.
    #[serde(default)]
    pub sampler: Option<Slot>,
    /// Each element's matrix: `columns` (default, a column-major `mat4x4<f32>`), `rows` (a
    /// `mat3x4<f32>` holding the affine's three rows, or a `mat4x4<f32>` holding all four: the
    /// matrix transposed) or `columns_translation` (three vec4 a joint, each a column's xyz with
    /// the translation's component in w; in a texture, with `texels: 3`).
    #[serde(default)]
    pub matrix: MatrixForm,
    /// Elements are structs, and this member holds each one's matrix.
    #[serde(default)]
    pub element_member: Option<String>,
    /// The member that holds each joint's own normal matrix (`mat3x3<f32>` or `mat4x4<f32>`),
    /// which the harness fills with the inverse transpose of the joint's 3x3: with
    /// `element_member`, a member of each element's struct; with `member` alone, an array
    /// member of the palette's struct beside it, element i joint i's. The normals' reference is
    /// then `normal_matrix: per_joint` unless the profile says otherwise.
    #[serde(default)]
    pub normal_member: Option<String>,
    /// With `member`: the u32 or i32 member of the palette's struct (or a lane of a vector
    /// member) that holds the case's number of joints, as an engine's skin struct keeps it beside
    /// its joints: written for each case.
    #[serde(default)]
    pub joint_count: Option<String>,
    /// With `member`: values by name of the palette's struct's other members, written over the
    /// fill as `bindings[].members` are (an engine's `is_animated` beside its joints, which a zero
    /// fill would leave switched off).
    #[serde(default)]
    pub members: BTreeMap<String, Numbers>,
}

impl Palette {
    /// Whether `normal_member` is an array beside the palette's member, not a member of each
    /// element.
    pub fn parallel_normals(&self) -> bool {
        self.element_member.is_none() && self.member.is_some()
    }
}

#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum MatrixForm {
    #[default]
    Columns,
    Rows,
    /// Three vec4 a joint, each a column's xyz with one translation component in w (Cocos
    /// Creator's joints): the palette's only (`contract::Affine::ColumnsTranslation`).
    #[serde(rename = "columns_translation")]
    ColumnsTranslation,
}

impl MatrixForm {
    /// What each of a joint's three vec4 holds, where the palette packs a joint so.
    pub fn affine(self) -> crate::contract::Affine {
        match self {
            MatrixForm::ColumnsTranslation => crate::contract::Affine::ColumnsTranslation,
            _ => crate::contract::Affine::Rows,
        }
    }
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

/// The compute stage's typed output: `Buffer`'s fields, and the w a `vec4` output holds.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SkinnedBuffer {
    pub group: u32,
    pub binding: u32,
    #[serde(default)]
    pub format: PositionFormat,
    /// The w the shader writes after each skinned position of a `vec4` output: 0 (default, as
    /// SPEC.md's contract writes it) or 1, a point's (`vec4(p, 1.0)`).
    #[serde(default)]
    pub w: Option<u8>,
}

impl SkinnedBuffer {
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
    pub skinned: Option<SkinnedBuffer>,
    #[serde(default)]
    pub output: Option<Output>,
    /// A uniform that is the vertex count (a u32 or i32, alone, a vector's x or a struct's first member); left out, the shader bounds its invocations
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
    /// Instead of every buffer above: one vertex pool holding each stream in a region of its
    /// own, whose start a member of a filled binding holds.
    #[serde(default)]
    pub regions: Option<Regions>,
}

/// A vertex pool (rend3's): one `array<u32>` holding each stream tightly packed in a region of
/// its own, the region's start (in bytes, or u32 words) in a member of a buffer the harness fills
/// (`bindings`), which the harness writes for each case.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Regions {
    pub group: u32,
    pub binding: u32,
    /// The filled binding (`bindings`) whose members hold the starts.
    pub starts: Slot,
    #[serde(default)]
    pub unit: StartUnit,
    pub position: Region<PositionFormat>,
    pub joints: Region<JointFormat>,
    pub weights: Region<WeightFormat>,
    pub skinned_position: Region<PositionFormat>,
    #[serde(default)]
    pub normal: Option<Region<PositionFormat>>,
    #[serde(default)]
    pub tangent: Option<Region<TangentFormat>>,
    #[serde(default)]
    pub skinned_normal: Option<Region<PositionFormat>>,
    #[serde(default)]
    pub skinned_tangent: Option<Region<TangentFormat>>,
}

/// What a region's start counts: bytes (default) or u32 words.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum StartUnit {
    #[default]
    Bytes,
    Words,
}

/// One stream of a vertex pool: the member that holds its start, and its format (left out: a
/// vec3 position or normal, a vec4 tangent, a skinned stream its source's; joints u32x4, weights
/// f32x4).
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Region<F> {
    pub start: String,
    #[serde(default)]
    pub format: Option<F>,
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
    /// How each direction is stored in a byte-addressed stream: `f32` (default), or packed
    /// (`snorm8`, `unorm8`, `snorm16`, `f16`; see [`crate::format::Encoding`]). Left out, a
    /// skinned one's
    /// source's.
    #[serde(default)]
    pub encoding: Option<crate::format::Encoding>,
}

impl<F: Copy> Frames<F> {
    /// These skinned directions with their source's format and encoding where they give none.
    fn inherit(self, source: Option<Frames<F>>) -> Frames<F> {
        Frames {
            format: self.format.or(source.and_then(|s| s.format)),
            encoding: self.encoding.or(source.and_then(|s| s.encoding)),
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

    /// Where each vertex's direction of `words` components lies, in its encoding.
    fn stream(&self, words: u32) -> crate::format::Stream {
        match self.stride {
            Some(stride) => crate::format::Stream {
                stride,
                offset: self.offset.unwrap_or(0),
                words,
                byte_addressed: true,
                encoding: self.encoding.unwrap_or_default(),
            },
            // (A packed typed array is refused: `rules::check_stream_place`.)
            None => crate::format::Stream {
                encoding: self.encoding.unwrap_or_default(),
                ..crate::format::Stream::typed(words)
            },
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

/// Where a vertex stage returns its skinned tangent, and how many floats it holds there (the
/// source's, unless given).
#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SkinnedTangent {
    pub location: u32,
    #[serde(default)]
    pub format: Option<crate::format::TangentFormat>,
}

/// A vertex stage's normal attribute: its location and how many floats it holds.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct NormalAttribute {
    pub location: u32,
    #[serde(default)]
    pub format: Option<PositionFormat>,
}

/// A vertex stage's tangent attribute: its location and how many floats it holds.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TangentAttribute {
    pub location: u32,
    #[serde(default)]
    pub format: crate::format::TangentFormat,
}

impl Vertex {
    /// How the source tangent the stage pulls from its vertices is stored, where it pulls one.
    pub fn pulled_tangent_format(&self) -> Option<crate::format::TangentFormat> {
        (self.pulled())
            .find(|p| p.tangent.is_some())
            .map(|p| p.tangent_format)
    }

    /// The byte-addressed buffers the stage pulls its vertices from: `vertices`, or `streams`.
    pub fn pulled(&self) -> impl Iterator<Item = &Vertices> {
        self.vertices.iter().chain(&self.streams)
    }
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
    /// The `vec3<f32>` position's offset (12 bytes): in `compute.vertices` and `vertex.vertices`
    /// always, in one of `vertex.streams`.
    #[serde(default)]
    pub position: Option<Place>,
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
    /// The source tangent's components: `vec4` (default: xyz, then the handedness w) or `vec3`
    /// (the direction alone, as engines store it that keep no handedness).
    #[serde(default)]
    pub tangent_format: crate::format::TangentFormat,
    /// How the normal and the tangent are stored: `f32` (default), or packed (`snorm8`, one word
    /// as `pack4x8snorm` writes it; `unorm8`, one word as `pack4x8unorm` writes it biased;
    /// `snorm16`, `f16`: two words).
    #[serde(default)]
    pub normal_encoding: crate::format::Encoding,
    #[serde(default)]
    pub tangent_encoding: crate::format::Encoding,
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
    /// The skinned tangent's components: `vec4` (default, w the source's handedness) or `vec3`
    /// (the direction alone, as an engine that writes xyz only keeps it: no handedness compared).
    #[serde(default)]
    pub tangent_format: crate::format::TangentFormat,
    /// How the skinned normal and tangent are written, as `compute.vertices`' (a packed one is
    /// compared within the case's angle plus its rounding).
    #[serde(default)]
    pub normal_encoding: crate::format::Encoding,
    #[serde(default)]
    pub tangent_encoding: crate::format::Encoding,
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
                tangent_format: self.tangent_format,
                normal_encoding: self.normal_encoding,
                tangent_encoding: self.tangent_encoding,
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

/// Influences as attributes of two floats each, (joint index, weight), or of four holding two.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Pairs {
    /// One location an influence: 2 to 4, or 8 (two sets of 4, libGDX's most; 16 of them beside
    /// a position would pass WebGPU's 16 attributes); with `format: vec4`, two influences a
    /// location: 1, 2 or 4 locations.
    pub location: Places,
    #[serde(default)]
    pub format: crate::format::PairFormat,
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
    /// Instead of `joints` and `weights`, beside `position`: one `vec2<f32>` attribute an
    /// influence holding its joint index (as a float) and its weight, as libGDX keeps its
    /// `a_boneWeight0`, `a_boneWeight1`, ...: a location per influence, in order (or, with
    /// `format: vec4`, one `vec4<f32>` for two, as OpenSceneGraph keeps its `boneWeightN`).
    #[serde(default)]
    pub pairs: Option<Pairs>,
    /// Instead of the attributes: one byte-addressed storage buffer the stage pulls each vertex's
    /// fields from by `@builtin(vertex_index)`, laid out as `compute.vertices` is.
    #[serde(default)]
    pub vertices: Option<Vertices>,
    /// Instead of the `joints` and `weights` attributes, beside `position`: a byte-addressed
    /// storage buffer of each vertex's joints and weights the stage reads by
    /// `@builtin(vertex_index)`, laid out as `compute.influences` (an engine's skin stream).
    #[serde(default)]
    pub influences: Option<Influences>,
    /// Instead of the attributes: byte-addressed storage buffers the stage pulls its vertices'
    /// fields from by `@builtin(vertex_index)`, each laid out as `compute.vertices` is and holding
    /// some of them (an engine's streams apart: pygfx's positions, normals, skin indices and
    /// weights each in a buffer of its own).
    #[serde(default)]
    pub streams: Vec<Vertices>,
    pub camera: Camera,
    /// The source normal attribute, if the stage reads one: `vec3<f32>` (Float32x3, the default)
    /// or `format: vec4` (`vec4<f32>`, w 0: a normal packed four components wide, as sokol's and
    /// bgfx's vertices hold it).
    #[serde(default)]
    pub normal: Option<NormalAttribute>,
    /// The source tangent attribute, if it reads one: `vec4<f32>` (Float32x4, w the handedness,
    /// the default) or `format: vec3` (`vec3<f32>`, the direction alone).
    #[serde(default)]
    pub tangent: Option<TangentAttribute>,
    /// The location the stage returns its skinned normal at (`vec3<f32>`), if it does.
    #[serde(default)]
    pub skinned_normal: Option<Location>,
    /// The location the stage returns its skinned tangent at, if it does: in the source's type,
    /// or `format: vec3` for the direction alone beside a `vec4` source (CesiumJS and Fyrox drop
    /// the handedness there).
    #[serde(default)]
    pub skinned_tangent: Option<SkinnedTangent>,
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
    /// The stage's other inputs, by location: the value every vertex gets (an engine's
    /// per-instance attributes, a model matrix's columns: `{ 8: [1, 0, 0, 0] }`), one number a
    /// component. Any other input the profile gives no role is zeros.
    #[serde(default)]
    pub inputs: BTreeMap<u32, Numbers>,
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
    /// With `matrix`, values by name of the struct's other members, written over its fill as
    /// `bindings[].members` are (a skinning switch in an engine's view uniform,
    /// `flags: [1, 0, 0, 0]`); not the camera's own member.
    #[serde(default)]
    pub members: BTreeMap<String, Numbers>,
    /// With `matrix`, where the clip position's z comes from: `camera` (default), or `stage`
    /// where the stage writes it itself after the camera (a shadow pass's clamp).
    #[serde(default)]
    pub clip_z: crate::format::ClipZ,
    /// With `matrix`, whether the stage negates its clip y after the camera: `camera`
    /// (default), or `flipped` (a stage naga read from SPIR-V made for Vulkan).
    #[serde(default)]
    pub clip_y: crate::format::ClipY,
    /// With `matrix`: `columns` (default, column-major as WGSL keeps it) or `rows`, the matrix
    /// stored transposed, which the shader transposes back (`v * m`, row vectors; HLSL's
    /// matrices as cross-compilers write them).
    #[serde(default)]
    pub matrix: MatrixForm,
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

    /// Refuses a profile whose `shader` names another file than `shader`, or that composes or
    /// defines what the shader's language does not (`modules` WGSL's, `defines` GLSL's).
    pub fn describes(&self, shader: &Path) -> Result<(), CaseError> {
        use crate::foreign::Form;
        // A name that says no form is refused as the shader is read.
        let form = Form::of(shader).unwrap_or(Form::Wgsl);
        if form != Form::Wgsl && self.modules.is_some() {
            return Err(self.located(
                "modules",
                format!(
                    "`modules` composes a WGSL shader split into modules; `{}` is {}{}",
                    shader.display(),
                    form.name(),
                    match form {
                        Form::Glsl(_) => ", whose `#define`s go in `defines`",
                        _ => ", one module compiled already",
                    }
                ),
            ));
        }
        if let (false, Some(name)) = (matches!(form, Form::Glsl(_)), self.defines.keys().next()) {
            return Err(self.located(
                &format!("defines.{name}"),
                format!(
                    "`defines` are a GLSL shader's `#define`s; `{}` is {}{}",
                    shader.display(),
                    form.name(),
                    match form {
                        Form::Wgsl => " (a WGSL shader split into modules takes its defines in `modules.defines`)",
                        _ => ", compiled already",
                    }
                ),
            ));
        }
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

    /// The profile's text without what makes the shader's one WGSL text (`modules`, a GLSL
    /// shader's `defines`) or names its file (`shader`): the profile of that text as a file of
    /// its own (how a mutant of a composed, GLSL or SPIR-V shader is held to the same layout).
    pub fn of_its_wgsl(&self) -> String {
        let mut out = String::new();
        let mut skipping = false;
        for line in self.source.lines() {
            let top_level = !line.starts_with([' ', '\t', '#']) && !line.trim().is_empty();
            if top_level {
                skipping = ["modules:", "defines:", "shader:"]
                    .iter()
                    .any(|k| line.starts_with(k));
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
        let streams = self
            .vertex
            .iter()
            .flat_map(|v| v.streams.iter().enumerate());
        out.extend(streams.map(|(i, s)| (format!("vertex.streams[{i}]"), s.slot())));
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
        if let Some(i) = self.vertex.as_ref().and_then(|v| v.influences.as_ref()) {
            out.push(("vertex.influences", i.slot()));
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
            out.extend(c.regions.as_ref().map(|r| {
                let slot = Slot {
                    group: r.group,
                    binding: r.binding,
                };
                ("compute.regions", slot)
            }));
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

    /// How many influence sets the shader reads: `influence_sets`, or as many sets of 4 as
    /// `vertex.pairs` fills.
    pub fn sets(&self) -> usize {
        (self.influence_sets).unwrap_or_else(|| self.pair_count().map_or(1, |n| n.div_ceil(4)))
    }

    /// How many of each set's 4 joints and weights the shader reads: `max_influences`, or as
    /// many as `vertex.pairs` gives where fewer than 4.
    pub fn lanes(&self) -> usize {
        (self.max_influences.or(self.pair_count()))
            .filter(|&n| n < 4)
            .unwrap_or(4)
    }

    /// The influences `vertex.pairs` gives, if it is given.
    pub(crate) fn pair_count(&self) -> Option<usize> {
        let pairs = self.vertex.as_ref()?.pairs.as_ref()?;
        Some(pairs.location.0.len() * pairs.format.influences())
    }
}

mod build;
mod rules;
#[cfg(test)]
mod tests;
