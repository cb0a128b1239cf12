//! The binding contract between the harness and the shader under test (entry points, bindings, vertex inputs), held as data.
//!
//! Every other module takes the contract from a [`Contract`] value rather than from numbers of its
//! own, so that a contract read from elsewhere (a layout profile beside the shader) replaces the
//! built-in one of SPEC.md everywhere at once.

use naga::{AddressSpace, ArraySize, Handle, ShaderStage, StorageAccess, TypeInner};

pub use crate::format::{
    FrameLength, JointFormat, NormalMatrix, PositionFormat, Stream, TangentFrame, WeightFormat,
};

/// What a binding holds, one per binding of the contract.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Role {
    Palette,
    Positions,
    Joints,
    Weights,
    Skinned,
    Count,
    View,
    /// The inverse binds of a split palette (the palette then holds the joints' globals).
    InverseBinds,
    /// A uniform whose first u32 is where the case's joint 0 starts in the palette buffer.
    PaletteOffset,
    /// Source normals (vec3) and tangents (vec4, w = handedness), where the shader reads them.
    Normals,
    Tangents,
    /// The skinned normals and tangents the shader writes, where the harness can read them.
    SkinnedNormals,
    SkinnedTangents,
    /// Another buffer the shader's stages read (a model matrix, a material's uniform), which the
    /// harness fills as the profile's `bindings[i]` says.
    Filled(u32),
    /// A vertex attribute the profile does not name (a texture coordinate, a colour): zeros.
    Zeros,
    /// The sampler a palette texture is read through, where the shader takes one.
    PaletteSampler,
}

/// The pipelines the harness builds from the shader, apart from each other.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Pipeline {
    Compute,
    Render,
}

impl Pipeline {
    /// As messages name it: "the compute pipeline".
    pub fn name(self) -> &'static str {
        match self {
            Pipeline::Compute => "compute",
            Pipeline::Render => "render",
        }
    }

    /// The stages that see the pipeline's bindings: the render pipeline's are readable from
    /// either of its stages.
    pub fn visibility(self) -> wgpu::ShaderStages {
        match self {
            Pipeline::Compute => wgpu::ShaderStages::COMPUTE,
            Pipeline::Render => wgpu::ShaderStages::VERTEX_FRAGMENT,
        }
    }
}

/// The address space and access of a binding: a buffer's, or a texture's or sampler's (WGSL's
/// handle space, declared without one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    Storage { writable: bool },
    Uniform,
    Texture,
    Sampler,
}

impl Space {
    /// As WGSL writes it between `var<` and `>` (a texture or sampler: nothing).
    pub fn wgsl(self) -> &'static str {
        match self {
            Space::Storage { writable: false } => "storage, read",
            Space::Storage { writable: true } => "storage, read_write",
            Space::Uniform => "uniform",
            Space::Texture | Space::Sampler => "handle",
        }
    }

    /// The usage of a buffer bound in this space (none for a texture or sampler).
    pub fn usage(self) -> wgpu::BufferUsages {
        match self {
            Space::Storage { .. } => wgpu::BufferUsages::STORAGE,
            Space::Uniform => wgpu::BufferUsages::UNIFORM,
            Space::Texture | Space::Sampler => wgpu::BufferUsages::empty(),
        }
    }

    pub fn matches(self, space: AddressSpace) -> bool {
        match (self, space) {
            (Space::Storage { writable }, AddressSpace::Storage { access }) => {
                access.contains(StorageAccess::STORE) == writable
            }
            (Space::Uniform, AddressSpace::Uniform) => true,
            (Space::Texture | Space::Sampler, AddressSpace::Handle) => true,
            _ => false,
        }
    }

    /// Whether a buffer is bound in it.
    pub fn is_buffer(self) -> bool {
        matches!(self, Space::Storage { .. } | Space::Uniform)
    }
}

/// The element types the contract uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Elem {
    Mat4F32,
    Vec4F32,
    Vec4U32,
    Vec4I32,
    Vec3F32,
    /// A 32-bit scalar or vector attribute as its vertex format reads it (a [`Role::Zeros`] input).
    Attribute(wgpu::VertexFormat),
}

/// The 32-bit vertex formats by WGSL type: the attributes the harness can feed zeros.
const ATTRIBUTES: [(wgpu::VertexFormat, &str, naga::Scalar, u8); 12] = {
    use naga::Scalar;
    use wgpu::VertexFormat as F;
    [
        (F::Float32, "f32", Scalar::F32, 1),
        (F::Float32x2, "vec2<f32>", Scalar::F32, 2),
        (F::Float32x3, "vec3<f32>", Scalar::F32, 3),
        (F::Float32x4, "vec4<f32>", Scalar::F32, 4),
        (F::Uint32, "u32", Scalar::U32, 1),
        (F::Uint32x2, "vec2<u32>", Scalar::U32, 2),
        (F::Uint32x3, "vec3<u32>", Scalar::U32, 3),
        (F::Uint32x4, "vec4<u32>", Scalar::U32, 4),
        (F::Sint32, "i32", Scalar::I32, 1),
        (F::Sint32x2, "vec2<i32>", Scalar::I32, 2),
        (F::Sint32x3, "vec3<i32>", Scalar::I32, 3),
        (F::Sint32x4, "vec4<i32>", Scalar::I32, 4),
    ]
};

impl JointFormat {
    /// The type a vertex stage reads joints of this format as: `vec4<f32>` for f32x4,
    /// `vec4<i32>` for i32x4, else `vec4<u32>`.
    pub fn elem(self) -> Elem {
        match self {
            JointFormat::F32x4 => Elem::Vec4F32,
            JointFormat::I32x4 => Elem::Vec4I32,
            _ => Elem::Vec4U32,
        }
    }
}

impl Elem {
    /// A vec4's first `n` components alone, for `n` 2 or 3 (the vec2 or vec3 a shader that reads
    /// fewer influences takes, an attribute of that type); itself for another `n` or element.
    pub fn lanes(self, n: usize) -> Elem {
        let scalar = match self {
            Elem::Vec4F32 => naga::Scalar::F32,
            Elem::Vec4U32 => naga::Scalar::U32,
            Elem::Vec4I32 => naga::Scalar::I32,
            _ => return self,
        };
        (ATTRIBUTES.iter())
            .find(|a| a.2 == scalar && usize::from(a.3) == n && (2..4).contains(&n))
            .map_or(self, |a| Elem::Attribute(a.0))
    }
}

/// The scalar and component count of a scalar or vector type.
fn components(inner: &TypeInner) -> Option<(naga::Scalar, u8)> {
    match *inner {
        TypeInner::Scalar(s) => Some((s, 1)),
        TypeInner::Vector { size, scalar } => Some((scalar, size as u8)),
        _ => None,
    }
}

/// The vertex format that feeds an attribute of type `inner`, if it is a 32-bit one.
pub fn attribute_format(inner: &TypeInner) -> Option<wgpu::VertexFormat> {
    let c = components(inner)?;
    ATTRIBUTES.iter().find(|a| (a.2, a.3) == c).map(|a| a.0)
}

impl Elem {
    /// A storage element's 32-bit words (byte offset, whether a float) and stride, for elements
    /// of other types that hold the same (`crate::vertex_struct::same_words`); None for a
    /// matrix or a vertex attribute.
    fn words(self) -> Option<(Vec<(u32, naga::ScalarKind)>, u32)> {
        use naga::ScalarKind::{Float, Sint, Uint};
        let (n, kind) = match self {
            Elem::Vec4F32 => (4, Float),
            Elem::Vec4U32 => (4, Uint),
            Elem::Vec4I32 => (4, Sint),
            Elem::Vec3F32 => (3, Float),
            Elem::Mat4F32 | Elem::Attribute(_) => return None,
        };
        Some(((0..n).map(|i| (4 * i, kind)).collect(), 16))
    }

    /// The scalar a flat array of this element's words holds, and how many an element takes,
    /// where the element has no padding (None for a vec3, whose array pads).
    fn flat(self) -> Option<(FlatScalar, u32)> {
        match self {
            Elem::Vec4F32 => Some((FlatScalar::F32, 4)),
            Elem::Vec4U32 => Some((FlatScalar::U32, 4)),
            Elem::Vec4I32 => Some((FlatScalar::I32, 4)),
            Elem::Mat4F32 => Some((FlatScalar::F32, 16)),
            Elem::Vec3F32 | Elem::Attribute(_) => None,
        }
    }

    /// Whether an array element of type `base` at `stride` holds this element's words.
    fn same_words(
        self,
        types: &naga::UniqueArena<naga::Type>,
        base: Handle<naga::Type>,
        stride: u32,
    ) -> bool {
        let same = |(words, at): (Vec<(u32, naga::ScalarKind)>, u32)| {
            crate::vertex_struct::same_words(types, base, stride, &words, at)
        };
        self.words().is_some_and(same)
    }

    pub fn wgsl(self) -> &'static str {
        match self {
            Elem::Mat4F32 => "mat4x4<f32>",
            Elem::Vec4F32 => "vec4<f32>",
            Elem::Vec4U32 => "vec4<u32>",
            Elem::Vec4I32 => "vec4<i32>",
            Elem::Vec3F32 => "vec3<f32>",
            Elem::Attribute(f) => ATTRIBUTES.iter().find(|a| a.0 == f).map_or("?", |a| a.1),
        }
    }

    pub fn matches(self, inner: &TypeInner) -> bool {
        use naga::{Scalar, VectorSize::*};
        match (self, inner) {
            (Elem::Attribute(f), inner) => attribute_format(inner) == Some(f),
            (
                Elem::Mat4F32,
                TypeInner::Matrix {
                    columns: Quad,
                    rows: Quad,
                    scalar,
                },
            ) => *scalar == Scalar::F32,
            (Elem::Vec4F32, TypeInner::Vector { size: Quad, scalar }) => *scalar == Scalar::F32,
            (Elem::Vec4U32, TypeInner::Vector { size: Quad, scalar }) => *scalar == Scalar::U32,
            (Elem::Vec4I32, TypeInner::Vector { size: Quad, scalar }) => *scalar == Scalar::I32,
            (Elem::Vec3F32, TypeInner::Vector { size: Tri, scalar }) => *scalar == Scalar::F32,
            _ => false,
        }
    }
}

/// The type a binding must have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Want {
    /// A runtime-sized array of this element.
    Array(Elem),
    /// A runtime-sized array of this element, or a flat one of its 32-bit scalars (the same
    /// bytes: burrow's `inWeights: array<f32>`, read at `i * 4 + k`); for elements without
    /// padding.
    Flat(Elem),
    /// `array<vec4<f32>>`, or `array<vec3<f32>>`: the same 16-byte stride, w unused (SPEC.md).
    Positions,
    /// struct { count: u32, 3 x u32 padding }: the count, a u32, in the first 4 bytes (padding
    /// written another way within 16 bytes, e.g. `u32, vec2<u32>`, or a bare `vec4<u32>`, reads
    /// the same buffer).
    Count,
    /// struct { scale: f32, offset_y: f32, half_width: f32, pad: f32 }: three f32 in the first 12
    /// bytes (or a `vec4<f32>`).
    View,
    /// A fixed-length `array<mat4x4<f32>, N>`: a uniform palette of N matrices.
    FixedMatrices,
    /// Joint indices as u16 pairs in u32 words: `array<u32>` (two words per vertex) or
    /// `array<vec2<u32>>`.
    PackedJoints,
    /// A column-major view-projection `mat4x4<f32>`, alone or as a struct's first member.
    Matrix,
    /// A u32 at byte 0: alone, or a struct's first member, or a `vec4<u32>`.
    FirstU32,
    /// Byte-addressed words: `array<u32>` (a vertex buffer the shader pulls fields from).
    Words,
    /// Byte-addressed output words: `array<u32>` or `array<f32>`.
    OutputWords,
    /// Any buffer type: the harness fills it with the profile's bytes, whatever the shader reads.
    Filled,
    /// A `texture_2d<f32>` holding the palette as texels (see [`PaletteTexture`]).
    Texture,
    /// A `sampler` (not a comparison one) the shader reads the palette texture through.
    Sampler,
    /// Another texture or sampler the stages read, which the harness binds as the shader
    /// declares it (`bindings`).
    Resource(crate::resource::Resource),
}

/// The 32-bit scalar a flat array holds ([`Want::Flat`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlatScalar {
    F32,
    U32,
    I32,
}

impl FlatScalar {
    fn scalar(self) -> naga::Scalar {
        match self {
            FlatScalar::F32 => naga::Scalar::F32,
            FlatScalar::U32 => naga::Scalar::U32,
            FlatScalar::I32 => naga::Scalar::I32,
        }
    }
}

impl std::fmt::Display for FlatScalar {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            FlatScalar::F32 => "f32",
            FlatScalar::U32 => "u32",
            FlatScalar::I32 => "i32",
        })
    }
}

impl Want {
    /// What a binding of this type must be, for messages.
    pub fn wgsl(self) -> String {
        match self {
            Want::Array(e) => format!("array<{}>", e.wgsl()),
            Want::Flat(e) => match e.flat() {
                Some((scalar, n)) => format!("array<{}> (or array<{scalar}>, {n} an element)", e.wgsl()),
                None => format!("array<{}>", e.wgsl()),
            },
            Want::Positions => "array<vec4<f32>> (or array<vec3<f32>>)".into(),
            Want::Count => {
                "a u32 or i32 vertex count (alone, a vector's x, or a struct's first member)".into()
            }
            Want::View => "struct { scale: f32, offset_y: f32, half_width: f32, pad: f32 }".into(),
            Want::FixedMatrices => "array<mat4x4<f32>, N>".into(),
            Want::PackedJoints => "array<u32> or array<vec2<u32>> (u16 pairs)".into(),
            Want::Matrix => "mat4x4<f32> (or a struct whose first member is one)".into(),
            Want::FirstU32 => "a u32 (or a struct whose first member is a u32)".into(),
            Want::Words => {
                "array<u32> or array<f32> (byte-addressed), an array of vec2 or vec4 of 32-bit scalars, or an array of a struct of 32-bit members".into()
            }
            Want::OutputWords => {
                "array<u32> or array<f32> (byte-addressed), an array of vec2 or vec4 of 32-bit scalars, or an array of a struct of 32-bit members"
                    .into()
            }
            Want::Filled => "a buffer (uniform or storage)".into(),
            Want::Texture => "texture_2d<f32>".into(),
            Want::Sampler => "sampler".into(),
            Want::Resource(r) => r.wgsl(),
        }
    }

    /// Whether a uniform struct: those are bound as exactly the contract's uniform size.
    pub fn is_uniform_struct(self) -> bool {
        matches!(self, Want::Count | Want::View)
    }

    /// The fields of a uniform struct by name and byte offset; none for an array.
    pub fn fields(self) -> &'static [(&'static str, u32)] {
        match self {
            Want::Count => &[("count", 0), ("pad0", 4), ("pad1", 8), ("pad2", 12)],
            Want::View => &[
                ("scale", 0),
                ("offset_y", 4),
                ("half_width", 8),
                ("pad", 12),
            ],
            Want::FirstU32 => &[("value", 0)],
            _ => &[],
        }
    }

    /// The byte offset of field `name` of a uniform struct.
    pub fn field(self, name: &str) -> Option<u32> {
        self.fields()
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, offset)| *offset)
    }

    /// The type the harness's own WGSL declares a binding of this type with, and the struct that
    /// type needs, if any.
    fn declared(self) -> (String, Option<&'static str>) {
        match self {
            Want::Array(e) | Want::Flat(e) => (format!("array<{}>", e.wgsl()), None),
            Want::Positions => ("array<vec4<f32>>".into(), None),
            Want::Count => (
                "Count".into(),
                Some("struct Count { count: u32, _pad0: u32, _pad1: u32, _pad2: u32 }"),
            ),
            Want::View => (
                "View".into(),
                Some("struct View { scale: f32, offset_y: f32, half_width: f32, _pad: f32 }"),
            ),
            Want::FixedMatrices => ("array<mat4x4<f32>, 256>".into(), None),
            Want::PackedJoints => ("array<vec2<u32>>".into(), None),
            Want::Matrix => ("mat4x4<f32>".into(), None),
            Want::FirstU32 => ("vec4<u32>".into(), None),
            Want::Words | Want::OutputWords | Want::Filled => ("array<u32>".into(), None),
            Want::Texture => ("texture_2d<f32>".into(), None),
            Want::Sampler => ("sampler".into(), None),
            Want::Resource(r) => (r.wgsl(), None),
        }
    }

    pub fn matches(self, types: &naga::UniqueArena<naga::Type>, ty: Handle<naga::Type>) -> bool {
        let is = |h: Handle<naga::Type>, s: naga::Scalar| matches!(types[h].inner, TypeInner::Scalar(x) if x == s);
        match (self, &types[ty].inner) {
            (
                Want::Array(e),
                TypeInner::Array {
                    base,
                    size: ArraySize::Dynamic,
                    stride,
                },
            ) => e.matches(&types[*base].inner) || e.same_words(types, *base, *stride),
            (
                Want::Flat(e),
                TypeInner::Array {
                    base,
                    size: ArraySize::Dynamic,
                    ..
                },
            ) if e
                .flat()
                .is_some_and(|(s, _)| types[*base].inner == TypeInner::Scalar(s.scalar())) =>
            {
                true
            }
            (Want::Flat(e), _) => Want::Array(e).matches(types, ty),
            (
                Want::Positions,
                TypeInner::Array {
                    base,
                    size: ArraySize::Dynamic,
                    stride,
                },
            ) => [Elem::Vec4F32, Elem::Vec3F32]
                .iter()
                .any(|e| e.matches(&types[*base].inner) || e.same_words(types, *base, *stride)),
            // The count is written as a u32; an i32 holds the same bits for any count.
            (Want::Count, TypeInner::Struct { members, .. }) => members.first().is_some_and(|m| {
                m.offset == 0 && (is(m.ty, naga::Scalar::U32) || is(m.ty, naga::Scalar::I32))
            }),
            (Want::Count, TypeInner::Scalar(s) | TypeInner::Vector { scalar: s, .. }) => {
                *s == naga::Scalar::U32 || *s == naga::Scalar::I32
            }
            (Want::View, TypeInner::Struct { members, .. }) => {
                members.len() >= 3
                    && members
                        .iter()
                        .take(3)
                        .enumerate()
                        .all(|(i, m)| m.offset == 4 * i as u32 && is(m.ty, naga::Scalar::F32))
            }
            (Want::View, inner) => Elem::Vec4F32.matches(inner),
            (
                Want::FixedMatrices,
                TypeInner::Array {
                    base,
                    size: ArraySize::Constant(_),
                    ..
                },
            ) => Elem::Mat4F32.matches(&types[*base].inner),
            (
                Want::PackedJoints,
                TypeInner::Array {
                    base,
                    size: ArraySize::Dynamic,
                    stride,
                },
            ) => {
                matches!(
                    types[*base].inner,
                    TypeInner::Scalar(naga::Scalar::U32)
                        | TypeInner::Vector {
                            size: naga::VectorSize::Bi,
                            scalar: naga::Scalar::U32
                        }
                ) || crate::vertex_struct::same_words(
                    types,
                    *base,
                    *stride,
                    &[(0, naga::ScalarKind::Uint), (4, naga::ScalarKind::Uint)],
                    8,
                )
            }
            (
                Want::Words | Want::OutputWords,
                TypeInner::Array {
                    base,
                    size: ArraySize::Dynamic,
                    ..
                },
            ) => match types[*base].inner {
                // Any 32-bit scalar: floats too, for an engine that reads its integer fields with
                // `bitcast<u32>` (dream-engine's bone ids); whether the device keeps those bits
                // is its test.
                TypeInner::Scalar(s) => s.width == 4,
                // Words two or four at a time (`array<vec4<f32>>`, two a vertex: an engine's
                // interleaved position and normal): the same bytes, with no padding between.
                TypeInner::Vector {
                    size: naga::VectorSize::Bi | naga::VectorSize::Quad,
                    scalar,
                } => scalar.width == 4,
                // An engine's vertex struct: its bytes, laid out by the profile's offsets
                // (`vertex_struct` checks them against its members).
                TypeInner::Struct { .. } => crate::vertex_struct::all_words(types, *base),
                _ => false,
            },
            (Want::Matrix | Want::FirstU32, TypeInner::Struct { members, .. }) => members
                .first()
                .is_some_and(|m| m.offset == 0 && self.matches(types, m.ty)),
            // An array of them in read-only storage (a matrix per instance, Ignis's
            // `shadowMvps`): element 0 the drawn instance's.
            (Want::Matrix, TypeInner::Array { base, .. }) => {
                Elem::Mat4F32.matches(&types[*base].inner)
            }
            (Want::Matrix, inner) => Elem::Mat4F32.matches(inner),
            (Want::FirstU32, inner) => {
                matches!(inner, TypeInner::Scalar(naga::Scalar::U32))
                    || Elem::Vec4U32.matches(inner)
            }
            (Want::Filled, _) => true,
            (
                Want::Texture,
                TypeInner::Image {
                    dim: naga::ImageDimension::D2,
                    arrayed: false,
                    class:
                        naga::ImageClass::Sampled {
                            kind: naga::ScalarKind::Float,
                            multi: false,
                        },
                },
            ) => true,
            (Want::Sampler, TypeInner::Sampler { comparison: false }) => true,
            // Whether its sampler filters is the module's reading, not the type's.
            (Want::Resource(r), _) => {
                crate::resource::Resource::of(types, ty).is_ok_and(|of| of.wgsl() == r.wgsl())
            }
            (_, TypeInner::Struct { .. }) if self.is_array() => {
                let inner = unwrapped(types, ty);
                inner != ty && self.matches(types, inner)
            }
            _ => false,
        }
    }

    /// Whether a binding of this type is an array of elements (bare, or wrapped in a struct).
    fn is_array(self) -> bool {
        !matches!(
            self,
            Want::Count
                | Want::View
                | Want::Matrix
                | Want::FirstU32
                | Want::Texture
                | Want::Sampler
                | Want::Resource(_)
        )
    }
}

/// The array a struct wraps as its only member (`struct Bones { m: array<mat4x4<f32>> }`, as WGSL
/// once required of a runtime-sized array and engines still write): the same bytes at the same
/// offsets, so a binding of the struct holds what one of the array would. Any other type: itself.
pub fn unwrapped(
    types: &naga::UniqueArena<naga::Type>,
    ty: Handle<naga::Type>,
) -> Handle<naga::Type> {
    match &types[ty].inner {
        TypeInner::Struct { members, .. } if members.len() == 1 && members[0].offset == 0 => {
            let m = members[0].ty;
            match types[m].inner {
                TypeInner::Array { .. } => m,
                _ => ty,
            }
        }
        _ => ty,
    }
}

/// One binding of the contract: where a role is bound, how, and which pipelines have it.
#[derive(Clone, Debug, PartialEq)]
pub struct Slot {
    pub role: Role,
    pub group: u32,
    pub binding: u32,
    pub space: Space,
    pub ty: Want,
    /// What it holds, as messages name it ("the palette", "source positions").
    pub holds: String,
    pub pipelines: Vec<Pipeline>,
    /// Where a profile gave this binding (`file:line, field `x``), for messages.
    pub origin: Option<String>,
}

impl Slot {
    pub fn used_by(&self, pipeline: Pipeline) -> bool {
        self.pipelines.contains(&pipeline)
    }

    /// What a message says after the binding: where a profile gave it, if one did.
    pub fn whence(&self) -> String {
        self.origin
            .as_ref()
            .map_or(String::new(), |o| format!(" (the profile's {o})"))
    }

    fn layout_entry(&self, pipeline: Pipeline, uniform_bytes: u32) -> wgpu::BindGroupLayoutEntry {
        let handle = match (self.space, self.ty) {
            (Space::Texture | Space::Sampler, Want::Resource(r)) => Some(r.binding_type()),
            // rgba32float: not filterable without a feature, so read by `textureLoad` or through a
            // non-filtering sampler.
            (Space::Texture, _) => Some(wgpu::BindingType::Texture {
                sample_type: wgpu::TextureSampleType::Float { filterable: false },
                view_dimension: wgpu::TextureViewDimension::D2,
                multisampled: false,
            }),
            (Space::Sampler, _) => Some(wgpu::BindingType::Sampler(
                wgpu::SamplerBindingType::NonFiltering,
            )),
            _ => None,
        };
        if let Some(ty) = handle {
            return wgpu::BindGroupLayoutEntry {
                binding: self.binding,
                visibility: pipeline.visibility(),
                ty,
                count: None,
            };
        }
        let (ty, min_binding_size) = match self.space {
            Space::Storage { writable } => (
                wgpu::BufferBindingType::Storage {
                    read_only: !writable,
                },
                None,
            ),
            // Pipeline creation then refuses a shader whose uniform needs more than the contract's.
            Space::Uniform => (
                wgpu::BufferBindingType::Uniform,
                wgpu::BufferSize::new(match self.ty {
                    // As large as the shader's struct around it: bound as that (camera_struct).
                    Want::Matrix => 0,
                    // A fixed-length palette is as long as the shader declares it, and a filled
                    // buffer is sized from the shader too.
                    Want::FixedMatrices | Want::Filled => 0,
                    _ => uniform_bytes as u64,
                }),
            ),
            Space::Texture | Space::Sampler => unreachable!("bound above"),
        };
        wgpu::BindGroupLayoutEntry {
            binding: self.binding,
            visibility: pipeline.visibility(),
            ty: wgpu::BindingType::Buffer {
                ty,
                has_dynamic_offset: false,
                min_binding_size,
            },
            count: None,
        }
    }
}

/// One vertex attribute of the render path, in its own vertex buffer.
#[derive(Clone, Debug, PartialEq)]
pub struct VertexInput {
    pub role: Role,
    /// Which influence set of 4 it holds (joints and weights); 0 for positions.
    pub set: usize,
    /// Where one attribute holds one influence of its set, (joint index, weight) as two floats
    /// (`vertex.pairs`, libGDX's `a_boneWeight0`): the influence's lane in the set.
    pub pair: Option<usize>,
    /// The type the vertex stage takes it as, and another it may take instead.
    pub ty: Elem,
    pub also: Option<Elem>,
    /// Its location and the format of its buffer's elements (at offset 0).
    pub attribute: wgpu::VertexAttribute,
    pub stride: u64,
    /// Where a profile gave this attribute, for messages.
    pub origin: Option<String>,
}

/// The value every vertex gets at an input the profile gives no role (`vertex.inputs`).
#[derive(Clone, Debug, PartialEq)]
pub struct InputValue {
    pub location: u32,
    /// One a component, converted to the attribute's scalar.
    pub values: Vec<f64>,
    /// Where the profile gives it (`file:line, field `vertex.inputs.8``).
    pub origin: String,
}

impl InputValue {
    /// One vertex's bytes in `format` (a 32-bit float, uint or sint scalar or vector); None where
    /// the values are not one a component.
    pub fn bytes(&self, format: wgpu::VertexFormat) -> Option<Vec<u8>> {
        let (kind, n) = format_scalars(format)?;
        (self.values.len() == n).then(|| {
            (self.values.iter())
                .flat_map(|&v| match kind {
                    naga::ScalarKind::Float => (v as f32).to_le_bytes(),
                    naga::ScalarKind::Uint => (v as u32).to_le_bytes(),
                    _ => (v as i32).to_le_bytes(),
                })
                .collect()
        })
    }

    /// The value as a WGSL constructor of `ty` (`vec4<f32>(1f, 0f, 0f, 0f)`), for `format`.
    pub fn wgsl(&self, ty: &str, format: wgpu::VertexFormat) -> Option<String> {
        let (kind, n) = format_scalars(format)?;
        (self.values.len() == n).then(|| {
            let each: Vec<String> = (self.values.iter())
                .map(|&v| match kind {
                    naga::ScalarKind::Float => format!("{:?}f", v as f32),
                    naga::ScalarKind::Uint => format!("{}u", v as u32),
                    _ => format!("{}i", v as i32),
                })
                .collect();
            format!("{ty}({})", each.join(", "))
        })
    }
}

/// The scalar kind and component count of a 32-bit vertex format ([`attribute_format`]'s).
fn format_scalars(format: wgpu::VertexFormat) -> Option<(naga::ScalarKind, usize)> {
    let a = ATTRIBUTES.iter().find(|a| a.0 == format)?;
    Some((a.2.kind, a.3 as usize))
}

impl VertexInput {
    /// The influences a `vertex.pairs` attribute holds, (joint, weight) each: one in a
    /// `vec2<f32>`, two in a `vec4<f32>`.
    pub fn pair_influences(&self) -> usize {
        (self.attribute.format.size() / 8) as usize
    }

    /// An input in its own vertex buffer of tightly packed `format` elements.
    pub fn new(
        role: Role,
        (ty, also): (Elem, Option<Elem>),
        format: wgpu::VertexFormat,
        location: u32,
        origin: Option<String>,
    ) -> VertexInput {
        VertexInput {
            role,
            set: 0,
            pair: None,
            ty,
            also,
            attribute: wgpu::VertexAttribute {
                format,
                offset: 0,
                shader_location: location,
            },
            stride: format.size(),
            origin,
        }
    }

    pub fn location(&self) -> u32 {
        self.attribute.shader_location
    }
}

/// A value the vertex stage returns at a location (a skinned normal or tangent), checked by type.
#[derive(Clone, Debug, PartialEq)]
pub struct VertexOutput {
    pub role: Role,
    pub location: u32,
    pub ty: Elem,
    /// Where a profile gave it, for messages.
    pub origin: Option<String>,
}

/// The whole contract: entry points, workgroup size, bindings, vertex inputs, output guard.
#[derive(Clone, Debug, PartialEq)]
pub struct Contract {
    /// Entry-point names of the compute, vertex and fragment stages; a shader may lack a stage
    /// (its profile says so), and without a fragment stage the harness adds one.
    pub compute: Option<String>,
    pub vertex: Option<String>,
    pub fragment: Option<String>,
    /// The compute stage's workgroup size, as naga reads it from the shader.
    pub workgroup_size: [u32; 3],
    /// One slot per role.
    pub slots: Vec<Slot>,
    /// The size of each uniform struct, as the harness binds it.
    pub uniform_bytes: u32,
    /// In vertex-buffer order.
    pub vertex_inputs: Vec<VertexInput>,
    /// The values of [`Role::Zeros`] inputs the profile gives (others are zeros).
    pub input_values: Vec<InputValue>,
    /// Located values the vertex stage must return besides its clip position.
    pub vertex_outputs: Vec<VertexOutput>,
    /// The type the fragment stage returns at location 0 (the RGBA target).
    pub fragment_output: Elem,
    /// Output elements past `count` that the compute path guards: they must stay untouched (none
    /// where the shader takes its count from an output's `arrayLength`).
    pub output_guard: usize,
    /// How the data are stored for the shader.
    pub formats: Formats,
    /// The length of a fixed-length (uniform) palette, as the shader declares it.
    pub palette_len: Option<u32>,
    /// Whether the fragment stage draws the contract's tint (images then compare with the goldens
    /// channel by channel); otherwise by coverage.
    pub tint: bool,
    /// A vertex-only shader's skinning function, which a compute entry point the harness adds
    /// calls, so that its skinned positions compare number by number.
    pub skin_function: Option<String>,
    /// A vertex-only shader's functions that skin a normal `(normal, joints, weights) -> normal`
    /// and a tangent `(tangent, joints, weights) -> tangent`, which the added compute entry point
    /// calls too, so that its normals and tangents compare number by number.
    pub frame_functions: FrameFunctions,
    /// Set when the compute stage is the harness's, calling the vertex stage's skinning function:
    /// the figures of the compute checks then come from that function, and say so.
    pub captured: bool,
    /// Why a copy of the vertex stage cannot be called where the harness would capture it that
    /// way (no skinning function named, a camera matrix): what a numeric check's SKIP says.
    pub uncaptured: Option<String>,
    /// The layout profile this contract was read from, and where it names each entry point;
    /// `None` for the built-in contract.
    pub profile: Option<Origin>,
    /// How many influence sets of 4 joints and 4 weights the shader reads per vertex: in storage,
    /// that many elements per vertex one after another; as vertex attributes, one attribute each.
    pub influence_sets: usize,
    /// How many of each set's 4 joints and weights the shader reads (2 or 3 where a profile's
    /// `max_influences` says so, its attributes then vec2 or vec3; else 4): the harness stores 4
    /// and puts a vertex's influences in the first slots.
    pub lanes: usize,
    /// Whether the last of those weights is one minus the others (`last_weight: implied`): then
    /// the shader reads one weight fewer than joints ([`Contract::weight_lanes`]).
    pub last_weight: crate::format::LastWeight,
    /// A byte-addressed vertex buffer, bound as [`Role::Positions`] (no joints or weights binding
    /// where it holds them, nor where other byte-addressed buffers do).
    pub pulled: Option<Pulled>,
    /// The joints (and the weights, unless a stream of their own holds them) in a byte-addressed
    /// buffer of their own, bound as [`Role::Joints`].
    pub influences: Option<Pulled>,
    /// A pulling vertex stage's other byte-addressed buffers (`vertex.streams`), each bound as
    /// the role of the first field it holds: [`Role::Weights`], [`Role::Normals`] or
    /// [`Role::Tangents`] (the positions' buffer is `pulled`, the joints' `influences`).
    pub pulled_more: Vec<(Role, Pulled)>,
    /// A byte-addressed output, bound as [`Role::Skinned`].
    pub packed: Option<Packed>,
    /// A vertex pool holding every stream of the compute stage, sources and outputs, bound as
    /// [`Role::Positions`] (no other per-vertex binding).
    pub regions: Option<crate::regions::Regions>,
    /// The values of the shader's pipeline-overridable constants (WGSL `override`), keyed as
    /// WebGPU keys them (the `@id` number where the declaration has one, else the name); every
    /// pipeline and translation of the shader gets them.
    pub constants: Vec<(String, f64)>,
    /// The buffers the harness fills for the shader's other bindings ([`Role::Filled`]).
    pub filled: Vec<Filled>,
    /// What a camera given as a matrix is bound with before the harness writes the matrix: 64
    /// zero bytes, or the shader's struct around it where that is larger (an engine's view
    /// uniform), filled as `camera_fill` says.
    pub camera_struct: Vec<u8>,
    pub camera_fill: Fill,
    /// The palette as one member of a larger struct (an engine's mesh uniform), and what the
    /// struct's other bytes hold.
    pub palette_member: Option<Member>,
    pub palette_fill: Fill,
    /// Values the profile gives the palette's struct's other members, written over the fill.
    pub palette_members: Vec<MemberValue>,
    /// The member of the palette's struct that holds the case's number of joints, written for
    /// each case (`palette.joint_count`).
    pub palette_joint_count: Option<CaseMember>,
    /// Why a member value does not fit the shader's type (found when it is read).
    pub palette_problems: Vec<String>,
    /// Values by name of the camera struct's other members (`vertex.camera.members`), written
    /// over its fill, and why any could not be.
    pub camera_members: Vec<MemberValue>,
    pub camera_problems: Vec<String>,
    /// The shader's immediate data (`var<immediate>`), set before each draw and dispatch.
    pub immediates: Immediates,
    /// That struct as the shader declares it, filled (empty until read; a struct ending in a
    /// runtime-sized palette grows to hold the case's palette).
    pub palette_struct: Vec<u8>,
    /// The palette binding's bytes as the shader declares it, where its array is fixed (0 until
    /// read, and for a runtime-sized one): its buffer is padded to them, since a fixed array of
    /// vec4 slots may end in slots no whole joint fills (`array<vec4<f32>, 100>`, 3 a joint).
    pub palette_declared: u32,
    /// The palette as texels of a texture (an engine's bone texture), and how they lie.
    pub palette_texture: Option<PaletteTexture>,
    /// What each element of the palette's array is: its matrix form, and the member that holds
    /// it where elements are structs.
    pub palette_element: PaletteElement,
    /// Each joint's normal matrix in an array member of the palette's struct beside the
    /// palette's own ([`Contract::palette_member`]), element i joint i's (ssbh_wgpu's
    /// `transforms_inv_transpose`).
    pub palette_normals: Option<ParallelNormals>,
    /// The camera matrix as one member of its struct, where it is not the first.
    pub camera_member: Option<Member>,
    /// The camera matrix is a member of the palette's struct: the harness writes both into the
    /// one buffer, and the camera has no binding of its own.
    pub camera_in_palette: bool,
    /// Where a copied vertex stage's clip z comes from (`vertex.camera.clip_z`).
    pub clip_z: crate::format::ClipZ,
    /// Whether the vertex stage negates its clip y after the camera (`vertex.camera.clip_y`).
    pub clip_y: crate::format::ClipY,
    /// Whether the camera matrix is stored transposed (`vertex.camera.matrix: rows`).
    pub camera_rows: bool,
    /// A member of a buffer the harness fills holds the index of the case's joint 0 in the
    /// palette (`bindings[].palette_offset`, as Bevy's per-instance `current_skin_index`): the
    /// palette then starts with [`PALETTE_OFFSET`] other matrices, as with [`Role::PaletteOffset`].
    pub offset_in_filled: bool,
    /// Where the compute stage's own normal and tangent buffers hold each vertex's direction:
    /// typed arrays, or byte-addressed ones.
    pub streams: Streams,
    /// The matrix the shader skins normals by, which the CPU reference follows.
    pub normal_matrix: NormalMatrix,
    /// How the shader makes its skinned tangents, which the CPU reference follows.
    pub tangent_frame: crate::format::TangentFrame,
    /// Whether the skinned normals and tangents must be unit length where the harness reads
    /// them, or are compared by direction alone.
    pub frame_length: crate::format::FrameLength,
    /// The skinned tangents' length, where the profile gives it apart (`tangent_length`); else
    /// `frame_length`.
    pub tangent_length: crate::format::FrameLength,
    /// The w stored after each source position held in four floats (`position_w`).
    pub position_w: crate::format::PositionW,
    /// Whether the typed vec4 output's w is a point's 1 (`compute.skinned.w: 1`), not 0.
    pub point_output: bool,
}

/// The places of the compute stage's source and skinned normals and tangents in buffers of their
/// own (those of [`Role::Normals`], [`Role::Tangents`], [`Role::SkinnedNormals`] and
/// [`Role::SkinnedTangents`]), where the contract has them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Streams {
    pub normals: Stream,
    pub tangents: Stream,
    pub skinned_normals: Stream,
    pub skinned_tangents: Stream,
}

impl Default for Streams {
    /// Typed arrays: normals as vec4 (w 0), tangents as vec4 (w the handedness).
    fn default() -> Streams {
        Streams {
            normals: Stream::typed(3),
            tangents: Stream::typed(4),
            skinned_normals: Stream::typed(3),
            skinned_tangents: Stream::typed(4),
        }
    }
}

impl Streams {
    /// The stream bound as `role`; none for a role that is no normal or tangent buffer.
    pub fn of(&self, role: Role) -> Option<Stream> {
        match role {
            Role::Normals => Some(self.normals),
            Role::Tangents => Some(self.tangents),
            Role::SkinnedNormals => Some(self.skinned_normals),
            Role::SkinnedTangents => Some(self.skinned_tangents),
            _ => None,
        }
    }
}

/// How many other matrices come before the case's joint 0 in a palette with a base offset: a
/// shader that ignores the offset skins with them.
pub const PALETTE_OFFSET: usize = 3;

/// Whether `inner` is a struct of exactly three `vec4<f32>` members one after another (`r0`,
/// `r1`, `r2`): an affine's rows laid out byte for byte as a `mat3x4<f32>` holds them.
pub fn is_row_struct(types: &naga::UniqueArena<naga::Type>, inner: &TypeInner) -> bool {
    let TypeInner::Struct { members, span } = inner else {
        return false;
    };
    let vec4 = |t: naga::Handle<naga::Type>| matches!(types[t].inner, TypeInner::Vector { size: naga::VectorSize::Quad, scalar } if scalar == naga::Scalar::F32);
    *span == 48
        && members.len() == 3
        && (members.iter().enumerate()).all(|(k, m)| m.offset == 16 * k as u32 && vec4(m.ty))
}

/// One element of a palette array: a column-major `mat4x4<f32>` (default), or a `mat3x4<f32>`
/// holding the affine's three rows (the transposed upper 3x4), or a struct of those rows as three
/// `vec4<f32>` members, or a `mat4x4<f32>` of all four rows (the matrix transposed); alone, or a
/// member of a struct.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PaletteElement {
    /// Three (or four) vec4 a joint rather than a column-major matrix: its rows, or its columns
    /// with the translation in w, as `affine` says (`matrix: rows` or `columns_translation`).
    pub rows: bool,
    /// The struct member that holds the matrix, where elements are structs (its offset read
    /// from the shader).
    pub member: Option<Member>,
    /// Bytes from one element to the next, read from the shader (64 until read).
    pub stride: u32,
    /// The struct member that holds each joint's normal matrix, which the harness fills with the
    /// inverse transpose of the joint's 3x3 (its offset read from the shader).
    pub normal: Option<Member>,
    /// The normal matrix's columns: 3 (`mat3x3<f32>`) or 4 (`mat4x4<f32>`, the 3x3 in its upper
    /// left, 0 0 0 1 around it), read from the shader (3 until read).
    pub normal_columns: u32,
    /// Where the palette is a bare array of `vec4<f32>`, as engines with a WebGL past keep their
    /// bones (`bones[j * 3u + r]`), the slots a joint takes, read from the shader's reads: 3 (its
    /// affine's rows, `rows`) or 4 (its columns, or under `rows` its four rows); 0 for an array of
    /// matrices (and until read).
    pub slots: u32,
    /// Under `rows`, whether each joint's matrix is a `mat4x4<f32>` holding its four rows (the
    /// matrix transposed, as a shader written for row vectors or cross-compiled from HLSL
    /// transposes it back), read from the shader; else an affine's three rows, `mat3x4<f32>`.
    pub four_rows: bool,
    /// Under `rows`, what each of a joint's first three vec4 holds ([`Affine`]).
    pub affine: Affine,
}

impl Default for PaletteElement {
    fn default() -> PaletteElement {
        PaletteElement {
            rows: false,
            member: None,
            stride: 64,
            normal: None,
            normal_columns: 3,
            slots: 0,
            four_rows: false,
            affine: Affine::Rows,
        }
    }
}

impl PaletteElement {
    /// Whether a bare column-major `mat4x4<f32>`: the contract's own form.
    pub fn is_plain(&self) -> bool {
        !self.rows && self.member.is_none() && self.slots == 0
    }

    /// The matrix type, as WGSL writes it.
    pub fn matrix_wgsl(&self) -> &'static str {
        match (self.rows, self.four_rows) {
            (true, false) => "mat3x4<f32>",
            _ => "mat4x4<f32>",
        }
    }

    /// The other matrix a joint may be, for messages: a columns form's `mat4x3<f32>`.
    fn matrix_alternative(&self) -> &'static str {
        if self.rows {
            ""
        } else {
            " (or mat4x3<f32>, its affine's columns)"
        }
    }

    /// Whether `inner` is the element type: the matrix, or a struct with the member holding it.
    pub fn matches(&self, types: &naga::UniqueArena<naga::Type>, inner: &TypeInner) -> bool {
        let matrix = |t: &TypeInner| {
            // Rows: an affine's three, or all four (a mat4x4 the shader transposes), as the
            // palette's own binding has them where it has been read.
            let want = match (self.rows, self.four_rows) {
                (true, false) => naga::VectorSize::Tri,
                _ => naga::VectorSize::Quad,
            };
            // Columns: a mat4x3 holds an affine's four, each in 16 bytes as a mat4x4's (HLSL's
            // `float4x3`, Ogre's `mat4x3` palette), so the same bytes serve.
            let affine_columns = !self.rows
                && matches!(*t, TypeInner::Matrix { columns: naga::VectorSize::Quad, rows: naga::VectorSize::Tri, scalar } if scalar == naga::Scalar::F32);
            affine_columns
                || matches!(*t, TypeInner::Matrix { columns, rows: naga::VectorSize::Quad, scalar }
                if scalar == naga::Scalar::F32 && columns == want)
        };
        match (&self.member, inner) {
            (None, t) if self.rows && is_row_struct(types, t) => true,
            (None, t) if crate::slots::is_vec4f(t) => self.slots > 0,
            (None, t) => matrix(t),
            (Some(m), TypeInner::Struct { members, .. }) => {
                let has = |name: &str, ok: &dyn Fn(&TypeInner) -> bool| {
                    (members.iter())
                        .any(|x| x.name.as_deref() == Some(name) && ok(&types[x.ty].inner))
                };
                has(&m.name, &matrix)
                    && (self.normal.as_ref()).is_none_or(|n| has(&n.name, &is_normal_matrix))
            }
            _ => false,
        }
    }

    /// What an element must be, for messages.
    pub fn wgsl(&self) -> String {
        match &self.member {
            None => format!(
                "{}{}{} (or {} vec4<f32> a joint)",
                self.matrix_wgsl(),
                self.matrix_alternative(),
                if self.rows && !self.four_rows && self.affine == Affine::Rows {
                    " or mat4x4<f32> (its four rows)"
                } else {
                    ""
                },
                match (self.slots, self.rows) {
                    (0, true) => "3 or 4".to_string(),
                    (0, false) => "4".to_string(),
                    (k, _) => k.to_string(),
                }
            ),
            Some(m) => {
                let normal = (self.normal.as_ref())
                    .map(|n| format!(" and `{}: mat3x3<f32>` (or mat4x4<f32>)", n.name))
                    .unwrap_or_default();
                let members = if normal.is_empty() {
                    "member"
                } else {
                    "members"
                };
                format!(
                    "a struct with the {members} `{}: {}`{}{normal}",
                    m.name,
                    self.matrix_wgsl(),
                    self.matrix_alternative()
                )
            }
        }
    }

    /// The bytes of `matrices` as elements of this form, each `stride` bytes, the rest zeros.
    pub fn bytes(&self, matrices: &[glam::Mat4]) -> Vec<u8> {
        let stride = self.stride as usize;
        let at = self.member.as_ref().map_or(0, |m| m.offset as usize);
        let mut out = vec![0u8; stride * matrices.len()];
        for (i, m) in matrices.iter().enumerate() {
            let floats: Vec<f32> = if self.rows {
                // Three vec4 a joint (rows 0 to 2, or its columns with the translation in w);
                // four slots a joint, or a mat4x4 of rows, take row 3 too.
                let rows = if self.slots == 4 || self.four_rows {
                    4
                } else {
                    3
                };
                let columns = m.to_cols_array();
                (0..rows)
                    .flat_map(|r| self.affine.vec4(&columns, r))
                    .collect()
            } else {
                m.to_cols_array().to_vec()
            };
            let start = i * stride + at;
            out[start..start + 4 * floats.len()].copy_from_slice(bytemuck::cast_slice(&floats));
            if let Some(n) = &self.normal {
                let floats = self.normal_floats(m);
                let start = i * stride + n.offset as usize;
                out[start..start + 4 * floats.len()].copy_from_slice(bytemuck::cast_slice(&floats));
            }
        }
        out
    }

    /// Joint matrix `m`'s normal matrix as the normal member holds it ([`normal_floats`]).
    fn normal_floats(&self, m: &glam::Mat4) -> Vec<f32> {
        normal_floats(m, self.normal_columns)
    }
}

/// An array of the joints' normal matrices beside the palette in its struct, which the harness
/// fills with the inverse transpose of each joint's 3x3 (offset, stride, columns and length read
/// from the shader).
#[derive(Clone, Debug, PartialEq)]
pub struct ParallelNormals {
    pub member: Member,
    /// Bytes from one element to the next (48 until read: a `mat3x3<f32>`'s).
    pub stride: u32,
    /// 3 (`mat3x3<f32>`) or 4 (`mat4x4<f32>`), as [`normal_floats`] writes them.
    pub columns: u32,
    /// The array's length (0 until read).
    pub len: u32,
}

impl ParallelNormals {
    /// A member named in a profile, placed once the shader is read.
    pub fn new(member: Member) -> ParallelNormals {
        ParallelNormals {
            member,
            stride: 48,
            columns: 3,
            len: 0,
        }
    }

    /// The array's bytes for `matrices` (the palette as the harness writes it, element i joint
    /// i's): each one's normal matrix, `stride` bytes apart.
    pub fn bytes(&self, matrices: &[glam::Mat4]) -> Vec<u8> {
        let stride = self.stride as usize;
        let mut out = vec![0u8; stride * matrices.len()];
        for (i, m) in matrices.iter().enumerate() {
            let floats = normal_floats(m, self.columns);
            out[i * stride..i * stride + 4 * floats.len()]
                .copy_from_slice(bytemuck::cast_slice(&floats));
        }
        out
    }

    /// Whether a member's type is such an array: of `mat3x3<f32>` or `mat4x4<f32>`, fixed-length.
    pub fn matches(types: &naga::UniqueArena<naga::Type>, inner: &TypeInner) -> bool {
        match *inner {
            TypeInner::Array {
                base,
                size: naga::ArraySize::Constant(_),
                ..
            } => is_normal_matrix(&types[base].inner),
            _ => false,
        }
    }
}

/// Whether a type can hold a joint's normal matrix: a square `mat3x3<f32>` or `mat4x4<f32>`.
pub fn is_normal_matrix(inner: &TypeInner) -> bool {
    matches!(*inner, TypeInner::Matrix { columns, rows, scalar }
        if scalar == naga::Scalar::F32 && columns == rows
            && matches!(columns, naga::VectorSize::Tri | naga::VectorSize::Quad))
}

/// Joint matrix `m`'s normal matrix in `columns` (3 or 4) columns of 4 floats, as a
/// `mat3x3<f32>` or a `mat4x4<f32>` holds it (or as many RGBA texels): the inverse transpose of
/// its 3x3 (cof / det, non-finite for a singular one, as a shader's own would be), each column
/// padded with 0; with 4, the last column 0 0 0 1.
fn normal_floats(m: &glam::Mat4, columns: u32) -> Vec<f32> {
    let a = glam::Mat3::from_mat4(*m);
    let it = glam::Mat3::from_cols(
        a.y_axis.cross(a.z_axis),
        a.z_axis.cross(a.x_axis),
        a.x_axis.cross(a.y_axis),
    ) * (1.0 / a.determinant());
    let mut floats: Vec<f32> = (it.to_cols_array_2d().iter())
        .flat_map(|c| [c[0], c[1], c[2], 0.0])
        .collect();
    if columns == 4 {
        floats.extend([0.0, 0.0, 0.0, 1.0]);
    }
    floats
}

/// What each of the three vec4 a joint's affine 3x4 takes holds (in a buffer's `mat3x4<f32>` or
/// slots, or a texture's texels).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Affine {
    /// vec4 r is row r: element r of each column, the translation's in w (`matrix: rows`).
    #[default]
    Rows,
    /// vec4 k is column k's xyz with the translation's component k in w, as Cocos Creator packs
    /// its joints and rebuilds them (`mat4(vec4(v1.xyz, 0), vec4(v2.xyz, 0), vec4(v3.xyz, 0),
    /// vec4(v1.w, v2.w, v3.w, 1))`): `matrix: columns_translation`.
    ColumnsTranslation,
}

impl Affine {
    /// vec4 `k` (0 to 2; 3 is row 3 in either form) of the column-major matrix `m`.
    pub fn vec4(self, m: &[f32; 16], k: usize) -> [f32; 4] {
        match self {
            Affine::ColumnsTranslation if k < 3 => {
                [m[4 * k], m[4 * k + 1], m[4 * k + 2], m[12 + k]]
            }
            _ => [m[k], m[4 + k], m[8 + k], m[12 + k]],
        }
    }
}

/// How a palette lies in a texture of RGBA f32 texels: each joint's run of texels in a row (its
/// matrix's `texels`, then its normal matrix's `normal_texels`), joint 0 first, wrapped at the
/// texture's width (texel t at x = t % width, y = t / width).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PaletteTexture {
    /// 4: a joint's matrix columns (column-major, as the buffers hold it); 3: its affine 3x4, as
    /// `affine` says (the transposed upper three rows by default).
    pub texels: u32,
    /// What each of 3 texels a joint holds (`palette.matrix: columns_translation`, or rows).
    pub affine: Affine,
    /// 0: no normal matrix; 3 or 4: the columns of the joint's normal matrix after its matrix,
    /// as [`normal_floats`] gives them (the glTF Sample Viewer's joint texture: a joint's matrix
    /// and its normal matrix as 8 texels).
    pub normal_texels: u32,
    pub width: TextureWidth,
}

/// The width of a palette texture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextureWidth {
    /// A fixed number of texels.
    Fixed(u32),
    /// Every texel in one row.
    Row,
    /// The smallest power-of-two square (at least 4 x 4) that holds them.
    Square,
}

impl PaletteTexture {
    /// The texture's (width, height) for `joints` joints.
    pub fn size(self, joints: usize) -> (u32, u32) {
        let texels = (self.run() * joints.max(1)) as u32;
        let width = match self.width {
            TextureWidth::Fixed(w) => w.max(1),
            TextureWidth::Row => texels,
            TextureWidth::Square => {
                let side = (texels as f64).sqrt().ceil() as u32;
                let side = side.next_power_of_two().max(4);
                return (side, side);
            }
        };
        (width, texels.div_ceil(width))
    }

    /// The texels of `palette` (column-major matrices) in the texture's `width`, row by row,
    /// past the last joint NaN (a shader reading a joint the case lacks shows it).
    pub fn texels_of(self, palette: &[[f32; 16]], width: u32, height: u32) -> Vec<f32> {
        let mut out = vec![f32::NAN; (width * height * 4) as usize];
        for (j, m) in palette.iter().enumerate() {
            let first = j * self.run();
            for k in 0..self.texels as usize {
                let texel: [f32; 4] = if self.texels == 4 {
                    [m[4 * k], m[4 * k + 1], m[4 * k + 2], m[4 * k + 3]]
                } else {
                    self.affine.vec4(m, k)
                };
                let t = first + k;
                out[4 * t..4 * t + 4].copy_from_slice(&texel);
            }
            if self.normal_texels > 0 {
                let normal = normal_floats(&glam::Mat4::from_cols_array(m), self.normal_texels);
                let t = first + self.texels as usize;
                out[4 * t..4 * t + normal.len()].copy_from_slice(&normal);
            }
        }
        out
    }

    /// Texels a joint: its matrix's and its normal matrix's.
    fn run(self) -> usize {
        (self.texels + self.normal_texels) as usize
    }
}

/// A role's data as one named member of a larger struct the harness fills around it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    pub name: String,
    /// Its byte offset in the struct, read from the shader (0 until read).
    pub offset: u32,
    /// Where a profile names it, for messages.
    pub origin: Option<String>,
}

impl Member {
    /// What a message says after the member: where a profile named it.
    pub fn whence(&self) -> String {
        self.origin
            .as_ref()
            .map_or(String::new(), |o| format!(" (the profile's {o})"))
    }
}

/// What a buffer the harness fills holds before the profile's floats.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Fill {
    #[default]
    Zero,
    /// An identity `mat4x4<f32>` every 64 bytes (a model matrix, an array of them).
    Identity,
    /// Element k of the binding's array of scalars (the binding itself, or its struct's last
    /// member) holds k in its type: an index table the shader reads through, which then leaves
    /// every index as it was (pygfx's index buffer in storage, Orillusion's joint tables). Only
    /// for a binding the harness fills (`bindings`); written there, zeros here.
    Sequence,
}

/// The immediate data (push constants) the harness sets before each draw and dispatch, filled as
/// a binding's struct is: empty where the shader declares none.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Immediates {
    pub fill: Fill,
    pub members: Vec<MemberValue>,
    /// The member that holds the case's vertex count, written for each dispatch and draw.
    pub count: Option<CaseMember>,
    /// The member that holds the case's number of joints, written for each case.
    pub joints: Option<CaseMember>,
    /// The member that holds the width in texels of the case's palette texture, written for
    /// each case.
    pub texture_width: Option<CaseMember>,
    /// Its contents, the shader's type's size rounded up to whole words (empty until read).
    pub bytes: Vec<u8>,
    /// Why a member value does not fit the shader's type.
    pub problems: Vec<String>,
    /// Where the profile gives it (`file:line:column, field `immediates``); empty where it does
    /// not.
    pub origin: String,
}

/// A buffer the harness fills: its slot's role, how, and (once the shader's type is read) its
/// bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct Filled {
    pub role: Role,
    pub fill: Fill,
    /// f32 values written from byte 0, over the fill.
    pub floats: Vec<f32>,
    /// Values by member name, written after the floats as each member's type holds them.
    pub members: Vec<MemberValue>,
    /// The member that holds the case's vertex count, written for each compute dispatch.
    pub count: Option<CaseMember>,
    /// The member that holds the case's number of joints, written for each case.
    pub joints: Option<CaseMember>,
    /// The member that holds the width in texels of the case's palette texture, written for
    /// each case.
    pub texture_width: Option<CaseMember>,
    /// The members that hold where each region of a vertex pool starts, written for each
    /// compute dispatch (`compute.regions`).
    pub starts: Vec<(crate::regions::Stream, CaseMember)>,
    /// The buffer's contents, as long as the shader's type needs (empty until it is read).
    pub bytes: Vec<u8>,
    /// Why a member value does not fit the shader's type (found when it is read), for the
    /// contract's messages.
    pub problems: Vec<String>,
}

/// A u32 or i32 member of a filled buffer that the harness writes for each case (the vertex count,
/// where a region of a vertex pool starts): its name, where the profile names it, and its byte
/// offset once the shader is read.
#[derive(Clone, Debug, PartialEq)]
pub struct CaseMember {
    pub name: String,
    pub origin: String,
    pub offset: Option<u32>,
    /// Whether the member is an f32 (the value written as a float), not a u32 or i32.
    pub float: bool,
}

impl CaseMember {
    /// Member `name`, named by the profile at `origin`, not yet placed.
    pub fn named(name: String, origin: String) -> CaseMember {
        CaseMember {
            name,
            origin,
            offset: None,
            float: false,
        }
    }
}

/// The case's values for the members a buffer or the immediate data holds them in (`count`,
/// `joints`, `texture_width`), where it does: (vertices, joints, the palette texture's width).
fn case_counts(
    [count, joints, width]: [&Option<CaseMember>; 3],
    (vertices, joint_count, texture_width): (usize, usize, u32),
) -> impl Iterator<Item = (&CaseMember, u32)> {
    [count, joints, width]
        .into_iter()
        .zip([vertices as u32, joint_count as u32, texture_width])
        .filter_map(|(m, value)| Some((m.as_ref()?, value)))
}

/// `bytes` with each member's value written at its offset (where the shader was read), as a u32
/// (an i32 has the same bytes), or as an f32 where the member is one.
fn with_case_values<'a>(
    bytes: &[u8],
    values: impl Iterator<Item = (&'a CaseMember, u32)>,
) -> Vec<u8> {
    let mut bytes = bytes.to_vec();
    for (member, value) in values {
        let Some(o) = member.offset else { continue };
        let o = o as usize;
        let word = match member.float {
            true => (value as f32).to_le_bytes(),
            false => value.to_le_bytes(),
        };
        if let Some(at) = bytes.get_mut(o..o + 4) {
            at.copy_from_slice(&word);
        }
    }
    bytes
}

impl Immediates {
    /// The immediate data for a case of `vertices` vertices and `joints` joints whose palette
    /// texture is `texture_width` texels wide: each written where the profile says.
    pub fn for_case(&self, case: (usize, usize, u32)) -> Vec<u8> {
        let members = [&self.count, &self.joints, &self.texture_width];
        let values = case_counts(members, case);
        with_case_values(&self.bytes, values)
    }
}

impl Filled {
    /// The buffer's contents for a case of `vertices` vertices and `joints` joints whose palette
    /// texture is `texture_width` texels wide (0 for none) and whose vertex pool's regions start
    /// at `starts` (the values the shader reads): each written where the profile says, as a u32
    /// (an i32 has the same bytes) or an f32.
    pub fn for_case(
        &self,
        case: (usize, usize, u32),
        starts: &[(crate::regions::Stream, u32)],
    ) -> Vec<u8> {
        let count = case_counts([&self.count, &self.joints, &self.texture_width], case);
        let starts = (self.starts.iter()).filter_map(|(stream, m)| {
            let value = starts.iter().find(|(s, _)| s == stream)?.1;
            Some((m, value))
        });
        with_case_values(&self.bytes, count.chain(starts))
    }

    /// Whether the harness writes this buffer for each case (a count, a vertex pool's starts)
    /// rather than once for every case.
    pub fn per_case(&self) -> bool {
        self.count.is_some()
            || self.joints.is_some()
            || self.texture_width.is_some()
            || !self.starts.is_empty()
    }
}

/// A value the profile gives a member of a buffer the harness fills.
#[derive(Clone, Debug, PartialEq)]
pub struct MemberValue {
    pub name: String,
    /// One number per scalar: a vector's components, a matrix's column by column.
    pub values: Vec<f64>,
    /// Where the profile gives it (`file:line, field `x``).
    pub origin: String,
}

impl Filled {
    /// The contents of a binding: `fill` (the fill over the shader's type, see
    /// [`Fill::over`]), then the floats from byte 0 over it; as long as the longer of the two,
    /// rounded up to 16 bytes.
    pub fn contents(fill: &[u8], floats: &[f32]) -> Vec<u8> {
        let len = fill
            .len()
            .max(4 * floats.len())
            .max(16)
            .next_multiple_of(16);
        let mut bytes = fill.to_vec();
        bytes.resize(len, 0);
        bytes[..4 * floats.len()].copy_from_slice(bytemuck::cast_slice(floats));
        bytes
    }
}

/// A float matrix inside a buffer: where it starts, its columns and rows, and the bytes from one
/// column to the next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatrixAt {
    pub offset: u64,
    pub columns: u8,
    pub rows: u8,
    pub column_stride: u64,
}

impl Fill {
    /// `size` bytes (at least 16, rounded up to 16) of this fill over a type whose float matrices
    /// are `matrices`: zeros, with 1 on each matrix's diagonal for `identity` (the identity of a
    /// square matrix; of an affine `mat3x4` or `mat4x3`, its identity transform); a `sequence`'s
    /// indices are written over the zeros where the shader's type puts its array (and the
    /// profile's floats over them).
    pub fn over(self, matrices: &[MatrixAt], size: u64) -> Vec<u8> {
        let len = (size as usize).max(16).next_multiple_of(16);
        let mut words = vec![0f32; len / 4];
        if self == Fill::Identity {
            for m in matrices {
                for c in 0..m.columns.min(m.rows) as u64 {
                    let at = ((m.offset + c * m.column_stride) / 4 + c) as usize;
                    if let Some(w) = words.get_mut(at) {
                        *w = 1.0;
                    }
                }
            }
        }
        bytemuck::cast_slice(&words).to_vec()
    }
}

pub use crate::format::{Packed, Pulled};

impl Contract {
    /// [`Contract::constants`] as wgpu's pipeline descriptors take them.
    pub fn pipeline_constants(&self) -> Vec<(&str, f64)> {
        self.constants
            .iter()
            .map(|(k, v)| (k.as_str(), *v))
            .collect()
    }

    /// [`Contract::constants`] as naga resolves overrides with them.
    pub fn naga_constants(&self) -> naga::back::PipelineConstants {
        self.constants.iter().cloned().collect()
    }
}

/// The functions a vertex-only shader skins normals and tangents with, those its profile names.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct FrameFunctions {
    pub normal: Option<String>,
    pub tangent: Option<String>,
}

/// Where a contract came from: a profile file, and the places in it messages point to.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Origin {
    pub path: String,
    /// (entry point name, `file:line, field `x``).
    pub entries: Vec<(String, String)>,
    /// Where it gives `influence_sets`, if it does.
    pub sets: Option<String>,
    /// Where it gives `max_influences`, if it does.
    pub lanes: Option<String>,
    /// (key, where it gives that constant's value).
    pub constants: Vec<(String, String)>,
    /// (`compute.vertices.normal` and the like, where it gives that byte-addressed field).
    pub fields: Vec<(String, String)>,
}

/// The storage and vertex formats of the per-vertex data.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Formats {
    /// Joints in storage (compute): u32x4, or u16x4 as u16 pairs in u32 words.
    pub joints: JointFormat,
    /// Source positions and skinned output in storage: vec3 or vec4 (both a 16-byte stride).
    pub positions: PositionFormat,
    pub skinned: PositionFormat,
    /// The vertex attributes' formats.
    pub vertex_joints: JointFormat,
    pub vertex_weights: WeightFormat,
}

impl Contract {
    /// The contract of SPEC.md.
    pub fn builtin() -> Contract {
        use Pipeline::{Compute, Render};
        let read = Space::Storage { writable: false };
        let slot = |role, binding, space, ty, holds: &str, pipelines: &[Pipeline]| Slot {
            role,
            group: 0,
            binding,
            space,
            ty,
            holds: holds.into(),
            pipelines: pipelines.to_vec(),
            origin: None,
        };
        let input = |role, ty, also, format, location| {
            VertexInput::new(role, (ty, also), format, location, None)
        };
        Contract {
            compute: Some("skin_compute".into()),
            vertex: Some("vs_skin".into()),
            fragment: Some("fs_skin".into()),
            workgroup_size: [64, 1, 1],
            slots: vec![
                slot(
                    Role::Palette,
                    0,
                    read,
                    Want::Array(Elem::Mat4F32),
                    "the palette",
                    &[Compute, Render],
                ),
                slot(
                    Role::Positions,
                    1,
                    read,
                    Want::Positions,
                    "source positions",
                    &[Compute],
                ),
                slot(
                    Role::Joints,
                    2,
                    read,
                    Want::Flat(Elem::Vec4U32),
                    "joint indices",
                    &[Compute],
                ),
                slot(
                    Role::Weights,
                    3,
                    read,
                    Want::Flat(Elem::Vec4F32),
                    "weights",
                    &[Compute],
                ),
                slot(
                    Role::Skinned,
                    4,
                    Space::Storage { writable: true },
                    Want::Array(Elem::Vec4F32),
                    "skinned positions",
                    &[Compute],
                ),
                slot(
                    Role::Count,
                    5,
                    Space::Uniform,
                    Want::Count,
                    "the vertex count",
                    &[Compute],
                ),
                slot(
                    Role::View,
                    6,
                    Space::Uniform,
                    Want::View,
                    "the 2D view",
                    &[Render],
                ),
            ],
            uniform_bytes: 16,
            input_values: Vec::new(),
            vertex_inputs: vec![
                // A vec4 position reads the vec3 attribute with w = 1, as WebGPU fills it.
                input(
                    Role::Positions,
                    Elem::Vec3F32,
                    Some(Elem::Vec4F32),
                    wgpu::VertexFormat::Float32x3,
                    0,
                ),
                input(
                    Role::Joints,
                    Elem::Vec4U32,
                    None,
                    wgpu::VertexFormat::Uint32x4,
                    1,
                ),
                input(
                    Role::Weights,
                    Elem::Vec4F32,
                    None,
                    wgpu::VertexFormat::Float32x4,
                    2,
                ),
            ],
            vertex_outputs: Vec::new(),
            fragment_output: Elem::Vec4F32,
            output_guard: 64,
            formats: Formats {
                joints: JointFormat::U32x4,
                positions: PositionFormat::Vec4,
                skinned: PositionFormat::Vec4,
                vertex_joints: JointFormat::U32x4,
                vertex_weights: WeightFormat::F32x4,
            },
            palette_len: None,
            tint: true,
            skin_function: None,
            frame_functions: FrameFunctions::default(),
            captured: false,
            uncaptured: None,
            profile: None,
            influence_sets: 1,
            lanes: 4,
            last_weight: crate::format::LastWeight::Given,
            pulled: None,
            pulled_more: Vec::new(),
            influences: None,
            packed: None,
            regions: None,
            constants: Vec::new(),
            filled: Vec::new(),
            camera_struct: vec![0; 64],
            camera_fill: Fill::Zero,
            palette_member: None,
            palette_fill: Fill::Zero,
            palette_members: Vec::new(),
            palette_joint_count: None,
            palette_problems: Vec::new(),
            camera_members: Vec::new(),
            camera_problems: Vec::new(),
            immediates: Immediates::default(),
            palette_struct: Vec::new(),
            palette_declared: 0,
            camera_member: None,
            camera_in_palette: false,
            clip_z: Default::default(),
            clip_y: Default::default(),
            camera_rows: false,
            offset_in_filled: false,
            streams: Streams::default(),
            normal_matrix: Default::default(),
            frame_length: Default::default(),
            tangent_length: Default::default(),
            tangent_frame: Default::default(),
            position_w: Default::default(),
            point_output: false,
            palette_texture: None,
            palette_element: PaletteElement::default(),
            palette_normals: None,
        }
    }

    /// The camera matrix the harness writes where it means `m`: with the stage's clip y flip
    /// undone beforehand ([`crate::format::ClipY::written`]), transposed where the camera is
    /// stored so.
    pub fn written_camera(&self, m: glam::Mat4) -> glam::Mat4 {
        let m = self.clip_y.written(m);
        if self.camera_rows {
            m.transpose()
        } else {
            m
        }
    }

    /// The vertex entry point the harness's compute stage calls a copy of, where it does: captured,
    /// with no skinning function to call instead.
    pub fn copied_entry(&self) -> Option<&str> {
        (self.captured && self.skin_function.is_none())
            .then_some(self.vertex.as_deref())
            .flatten()
    }

    /// Whether the vertex stage's camera is a matrix: its own binding's, or a member of the
    /// palette's struct.
    pub fn matrix_camera(&self) -> bool {
        self.camera_in_palette
            || self
                .try_slot(Role::View)
                .is_some_and(|s| s.ty == Want::Matrix)
    }

    /// The member of its binding's struct a role's data lies in, where the profile names one.
    pub fn member(&self, role: Role) -> Option<&Member> {
        match role {
            Role::Palette => self.palette_member.as_ref(),
            Role::View => self.camera_member.as_ref(),
            _ => None,
        }
    }

    /// What messages call it: "the shader contract (see SPEC.md)", or the profile file.
    pub fn name(&self) -> String {
        match &self.profile {
            None => "the shader contract (see SPEC.md)".into(),
            Some(o) => format!("its layout profile {}", o.path),
        }
    }

    /// Where the profile gives constant `key`, as a message's parenthesis; empty when it does not.
    pub fn constant_whence(&self, key: &str) -> String {
        self.whence(key, |o| &o.constants)
    }

    /// Where the profile names entry point `name`, for messages; empty for the built-in contract.
    pub fn entry_whence(&self, name: &str) -> String {
        self.whence(name, |o| &o.entries)
    }

    /// The place `list` of the profile's [`Origin`] gives for `key`, as a message's parenthesis.
    /// ` (the profile's file:line:column, field `compute.vertices.normal`)`: where the profile
    /// gives a field of a byte-addressed buffer; empty where it does not.
    pub fn field_whence(&self, field: &str) -> String {
        self.whence(field, |o| &o.fields)
    }

    fn whence(&self, key: &str, list: impl Fn(&Origin) -> &Vec<(String, String)>) -> String {
        self.profile
            .iter()
            .flat_map(list)
            .find(|(k, _)| k == key)
            .map_or(String::new(), |(_, w)| format!(" (the profile's {w})"))
    }

    /// What the shader reads of each vertex, for the scene: the narrowest joint format of its
    /// stages, and the weights as the numeric path reads them (a vertex-only shader's numbers come
    /// from its vertex formats; a compute stage reads f32).
    pub fn reads(&self) -> crate::format::Reads {
        let mut reads = crate::format::Reads::default();
        let stages = [
            (
                self.has(Pipeline::Compute),
                self.formats.joints,
                Role::Joints,
                false,
            ),
            (
                self.has(Pipeline::Render),
                self.formats.vertex_joints,
                Role::Joints,
                true,
            ),
        ];
        for (present, format, role, vertex) in stages {
            if present && format.max_index() < reads.joints.max_index() {
                reads.joints = format;
                let origin = if vertex {
                    self.input(role).and_then(|i| i.origin.clone())
                } else {
                    self.try_slot(role).and_then(|s| s.origin.clone())
                };
                reads.joints_whence =
                    origin.map_or(String::new(), |o| format!(" (the profile's {o})"));
            }
        }
        if self.skin_function.is_some() {
            reads.weights = self.formats.vertex_weights;
        }
        let held = self.pulled_all();
        let held = (held.into_iter())
            .map(|(_, p)| p)
            .find(|p| !p.weight_offsets.is_empty());
        if let (true, Some(p)) = (self.has(Pipeline::Compute), held) {
            reads.weights = p.weights;
        }
        if let (true, Some(r)) = (self.has(Pipeline::Compute), &self.regions) {
            reads.weights = r.weights;
        }
        let planar = (self.input(Role::Positions))
            .filter(|p| p.attribute.format == wgpu::VertexFormat::Float32x2);
        if let (true, Some(p)) = (self.has(Pipeline::Render), planar) {
            let whence = p.origin.as_ref();
            reads.planar = Some(whence.map_or(String::new(), |o| format!(" (the profile's {o})")));
        }
        reads.normals = self.normal_matrix;
        reads.tangents = self.tangent_frame;
        // The source directions' encodings: a byte-addressed vertex's fields, or streams of
        // their own.
        let stream = |role| self.try_slot(role).and(self.streams.of(role));
        if let Some(s) = stream(Role::Normals) {
            reads.normal_encoding = s.encoding;
        }
        if let Some(s) = stream(Role::Tangents) {
            reads.tangent_encoding = s.encoding;
        }
        for f in self.pulled_all().into_iter().map(|(_, p)| p.frames) {
            if f.normal.is_some() {
                reads.normal_encoding = f.normal_encoding;
            }
            if f.tangent.is_some() {
                reads.tangent_encoding = f.tangent_encoding;
            }
        }
        reads.capacity = self.capacity();
        reads.sets = self.influence_sets;
        reads.sets_whence = self
            .profile
            .as_ref()
            .and_then(|o| o.sets.clone())
            .map_or(String::new(), |w| format!(": the profile's {w}"));
        reads.lanes = self.lanes;
        reads.last_weight = self.last_weight;
        reads.lanes_whence = (self.profile.as_ref())
            .and_then(|o| o.lanes.clone())
            .map_or(String::new(), |w| format!(": the profile's {w}"));
        reads
    }

    /// How many other matrices the harness puts before joint 0 in the palette: a base offset's
    /// ([`PALETTE_OFFSET`]), else none.
    pub fn palette_start(&self) -> usize {
        if self.try_slot(Role::PaletteOffset).is_some() || self.offset_in_filled {
            PALETTE_OFFSET
        } else {
            0
        }
    }

    /// The palette's length where the shader fixes one: a uniform's array, or a fixed-length
    /// one in a storage struct (per-instance data).
    pub fn fixed_palette_len(&self) -> Option<usize> {
        let fixed =
            self.slot(Role::Palette).ty == Want::FixedMatrices || self.palette_len.is_some();
        fixed.then(|| self.palette_len.unwrap_or(0) as usize)
    }

    /// The most joints a case may have for this layout to hold them: a fixed palette's matrices
    /// less the other matrices before a base offset, or fewer where each joint's normal matrix
    /// beside it is in a shorter fixed array; none where the palette grows with the case.
    pub fn capacity(&self) -> Option<crate::format::Capacity> {
        let len = self.fixed_palette_len()?;
        let start = self.palette_start();
        let offset = match start {
            0 => String::new(),
            _ => format!(
                ", {start} of them the other matrices the harness puts before the palette offset"
            ),
        };
        let capacity = |n: usize, fixed: String| crate::format::Capacity {
            joints: n.saturating_sub(start),
            fixed,
            whence: format!(" ({}){offset}", self.name()),
        };
        let slots = match self.palette_element.slots {
            0 => String::new(),
            k => format!(" ({k} vec4<f32> each)"),
        };
        let palette = capacity(
            len,
            format!("the shader's palette is a fixed array of {len} matrices{slots}"),
        );
        let normals = self.palette_normals.as_ref().map(|n| {
            capacity(
                n.len as usize,
                format!(
                    "the shader's normal matrices (member `{}`) are a fixed array of {}",
                    n.member.name, n.len
                ),
            )
        });
        match normals {
            Some(n) if n.joints < palette.joints => Some(n),
            _ => Some(palette),
        }
    }

    /// Whether the shader writes skinned normals ([`Role::SkinnedNormals`]) or tangents
    /// ([`Role::SkinnedTangents`]) where the harness reads them back: a binding of their own, or
    /// a field of the byte-addressed output.
    pub fn writes(&self, role: Role) -> bool {
        use crate::regions::Stream;
        let packed = self.packed.as_ref().map(|p| p.frames);
        let pooled = |s: Stream| (self.regions.as_ref()).is_some_and(|r| r.size_of(s).is_some());
        self.try_slot(role).is_some()
            || match role {
                Role::SkinnedNormals => {
                    packed.is_some_and(|f| f.normal.is_some()) || pooled(Stream::SkinnedNormal)
                }
                Role::SkinnedTangents => {
                    packed.is_some_and(|f| f.tangent.is_some()) || pooled(Stream::SkinnedTangent)
                }
                _ => false,
            }
    }

    /// The slot of `role`, if the contract has one (a split palette's inverse binds, an offset).
    pub fn try_slot(&self, role: Role) -> Option<&Slot> {
        self.slots.iter().find(|s| s.role == role)
    }

    /// The byte-addressed layout bound as `role`: the vertices' ([`Role::Positions`]), the
    /// influences' ([`Role::Joints`]) or a vertex stream's bound as its first field's role, where
    /// the contract has one.
    pub fn pulled_as(&self, role: Role) -> Option<&Pulled> {
        match role {
            Role::Positions => self.pulled.as_ref(),
            Role::Joints => self.influences.as_ref(),
            _ => (self.pulled_more.iter())
                .find(|(r, _)| *r == role)
                .map(|(_, p)| p),
        }
    }

    /// As [`Contract::pulled_as`], to place its named fields.
    pub fn pulled_as_mut(&mut self, role: Role) -> Option<&mut Pulled> {
        match role {
            Role::Positions => self.pulled.as_mut(),
            Role::Joints => self.influences.as_mut(),
            _ => (self.pulled_more.iter_mut())
                .find(|(r, _)| *r == role)
                .map(|(_, p)| p),
        }
    }

    /// Every byte-addressed vertex buffer the stages read, with the role it is bound as.
    pub fn pulled_all(&self) -> Vec<(Role, &Pulled)> {
        let first = [
            (Role::Positions, self.pulled.as_ref()),
            (Role::Joints, self.influences.as_ref()),
        ];
        (first.into_iter())
            .filter_map(|(r, p)| Some((r, p?)))
            .chain(self.pulled_more.iter().map(|(r, p)| (*r, p)))
            .collect()
    }

    /// The filled buffers the harness writes for each case (a count, a vertex pool's starts); a
    /// texture among the filled bindings takes none (validation refuses them there).
    pub fn filled_per_case(&self) -> impl Iterator<Item = &Filled> {
        (self.filled.iter()).filter(|f| f.per_case() && self.slot(f.role).space.is_buffer())
    }

    /// Bytes of immediate data the pipelines take: the shader's `var<immediate>`, or 0.
    pub fn immediate_size(&self) -> u32 {
        self.immediates.bytes.len() as u32
    }

    /// The entry points the shader has, by name and stage.
    pub fn entry_points(&self) -> Vec<(&str, ShaderStage)> {
        [
            (&self.compute, ShaderStage::Compute),
            (&self.vertex, ShaderStage::Vertex),
            (&self.fragment, ShaderStage::Fragment),
        ]
        .into_iter()
        .filter_map(|(name, stage)| name.as_deref().map(|n| (n, stage)))
        .collect()
    }

    /// The pipeline an entry point of the contract belongs to.
    pub fn pipeline_of(&self, entry_point: &str) -> Option<Pipeline> {
        let is = |e: &Option<String>| e.as_deref() == Some(entry_point);
        if is(&self.compute) {
            Some(Pipeline::Compute)
        } else if is(&self.vertex) || is(&self.fragment) {
            Some(Pipeline::Render)
        } else {
            None
        }
    }

    /// Whether the shader has the stages `pipeline` needs (a render pipeline needs a vertex
    /// stage; the harness adds a fragment stage where there is none).
    pub fn has(&self, pipeline: Pipeline) -> bool {
        match pipeline {
            Pipeline::Compute => self.compute.is_some(),
            Pipeline::Render => self.vertex.is_some(),
        }
    }

    /// The slot of `role`; every role has one.
    pub fn slot(&self, role: Role) -> &Slot {
        self.slots
            .iter()
            .find(|s| s.role == role)
            .unwrap_or_else(|| panic!("the contract has no binding for {role:?}"))
    }

    /// The binding number of `role` (in its group).
    pub fn binding(&self, role: Role) -> u32 {
        self.slot(role).binding
    }

    /// The slot at (group, binding), if the contract has one there.
    pub fn slot_at(&self, group: u32, binding: u32) -> Option<&Slot> {
        self.slots
            .iter()
            .find(|s| s.group == group && s.binding == binding)
    }

    /// The vertex input of `role`, if it is one.
    pub fn input(&self, role: Role) -> Option<&VertexInput> {
        self.vertex_inputs.iter().find(|v| v.role == role)
    }

    /// The weights a set the shader reads: its lanes, one fewer where the last is implied.
    pub fn weight_lanes(&self) -> usize {
        self.last_weight.read(self.lanes)
    }

    /// Whether each influence is an attribute of its own, (joint, weight) (`vertex.pairs`).
    pub fn paired(&self) -> bool {
        self.vertex_inputs.iter().any(|v| v.pair.is_some())
    }

    /// One vertex's bytes of a [`Role::Zeros`] input whose value the profile gives; None for
    /// zeros (or a value of the wrong length, which validation names).
    pub fn input_value(&self, input: &VertexInput) -> Option<Vec<u8>> {
        let v = (self.input_values.iter()).find(|v| v.location == input.location())?;
        v.bytes(input.attribute.format)
    }

    /// The vertex input at `location`, if the contract has one there.
    pub fn input_at(&self, location: u32) -> Option<&VertexInput> {
        self.vertex_inputs.iter().find(|v| v.location() == location)
    }

    /// The slots `pipeline` binds, in binding order.
    pub fn slots_of(&self, pipeline: Pipeline) -> Vec<&Slot> {
        let mut slots: Vec<&Slot> = self.slots.iter().filter(|s| s.used_by(pipeline)).collect();
        // One binding for two roles where the shader skins in place: the writable one's.
        let read_only = |s: &Slot| !matches!(s.space, Space::Storage { writable: true });
        slots.sort_by_key(|s| (s.group, s.binding, read_only(s)));
        slots.dedup_by_key(|s| (s.group, s.binding));
        slots
    }

    /// The source role of skinned normals or tangents (`role`): [`Role::Normals`] or
    /// [`Role::Tangents`].
    pub fn source_of(role: Role) -> Role {
        match role {
            Role::SkinnedNormals => Role::Normals,
            _ => Role::Tangents,
        }
    }

    /// Whether the skinned normals or tangents (`role`) are written over their sources: at the
    /// binding of [`Role::Normals`] or [`Role::Tangents`], one buffer holding both.
    pub fn frames_in_place(&self, role: Role) -> bool {
        match (
            self.try_slot(Contract::source_of(role)),
            self.try_slot(role),
        ) {
            (Some(a), Some(b)) => (a.group, a.binding) == (b.group, b.binding),
            _ => false,
        }
    }

    /// Whether the skinned tangents the harness reads keep a handedness: not where the shader
    /// writes them to a buffer of vec3 tangents, nor where its vertex stage reads or returns vec3
    /// ones.
    pub fn tangent_handedness(&self) -> bool {
        let pooled =
            (self.regions.as_ref()).and_then(|r| r.size_of(crate::regions::Stream::SkinnedTangent));
        (self.try_slot(Role::SkinnedTangents).is_none() || self.streams.skinned_tangents.words == 4)
            && pooled.is_none_or(|bytes| bytes == 16)
            && !self.vec3_tangent_attribute()
            // The stage's own vec3 output is what the harness reads where no tangent function is
            // named; one returns its vec4, w and all.
            && !(self.frame_functions.tangent.is_none() && self.vec3_tangent_output())
            && (self.packed.as_ref())
                .is_none_or(|p| p.frames.tangent_format == crate::format::TangentFormat::Vec4)
            && (self.pulled_all().iter())
                .all(|(_, p)| p.frames.tangent_format == crate::format::TangentFormat::Vec4)
    }

    /// Whether the vertex stage's tangent attribute is a `vec3<f32>` (no handedness).
    pub fn vec3_tangent_attribute(&self) -> bool {
        self.input(Role::Tangents)
            .is_some_and(|v| v.ty == Elem::Vec3F32)
    }

    /// The width in texels of the palette texture of a case of `joints` joints; 0 where the
    /// palette is no texture.
    pub fn palette_texture_width(&self, joints: usize) -> u32 {
        self.palette_texture.map_or(0, |t| t.size(joints).0)
    }

    /// Whether the vertex stage returns its skinned tangent as a `vec3<f32>` (no handedness).
    pub fn vec3_tangent_output(&self) -> bool {
        (self.vertex_outputs.iter())
            .any(|o| o.role == Role::SkinnedTangents && o.ty == Elem::Vec3F32)
    }

    /// Whether the compute output is written over the vertices it reads: `compute.output` at
    /// `compute.vertices`' binding, one buffer holding both.
    pub fn in_place(&self) -> bool {
        match (self.try_slot(Role::Positions), self.try_slot(Role::Skinned)) {
            (Some(a), Some(b)) => (a.group, a.binding) == (b.group, b.binding),
            _ => false,
        }
    }

    /// The bind groups a pipeline's bindings are in, ascending.
    pub fn groups_of(&self, pipeline: Pipeline) -> Vec<u32> {
        let mut groups: Vec<u32> = self.slots_of(pipeline).iter().map(|s| s.group).collect();
        groups.dedup();
        groups
    }

    /// The groups the contract uses, ascending.
    pub fn groups(&self) -> Vec<u32> {
        let mut groups: Vec<u32> = self.slots.iter().map(|s| s.group).collect();
        groups.sort_unstable();
        groups.dedup();
        groups
    }

    /// The binding numbers the contract has in `group`, ascending.
    pub fn bindings_in(&self, group: u32) -> Vec<u32> {
        let mut b: Vec<u32> = self
            .slots
            .iter()
            .filter(|s| s.group == group)
            .map(|s| s.binding)
            .collect();
        b.sort_unstable();
        b
    }

    /// The bind group layout entries of `pipeline` in `group`.
    pub fn layout_entries(
        &self,
        pipeline: Pipeline,
        group: u32,
    ) -> Vec<wgpu::BindGroupLayoutEntry> {
        self.slots_of(pipeline)
            .into_iter()
            .filter(|s| s.group == group)
            .map(|s| s.layout_entry(pipeline, self.uniform_bytes))
            .collect()
    }

    /// The binding numbers `pipeline` binds, ascending.
    pub fn bindings_of(&self, pipeline: Pipeline) -> Vec<u32> {
        self.slots_of(pipeline).iter().map(|s| s.binding).collect()
    }

    /// The label of `pipeline`'s bind group layout: "compute bindings 0-5".
    pub fn layout_label(&self, pipeline: Pipeline) -> String {
        let bindings = list(&self.bindings_of(pipeline)).replace(" to ", "-");
        format!("{} bindings {bindings}", pipeline.name())
    }

    /// The vertex input of `role` for influence set `set`.
    pub fn input_of_set(&self, role: Role, set: usize) -> Option<&VertexInput> {
        self.vertex_inputs
            .iter()
            .find(|v| v.role == role && v.set == set)
    }

    /// The vertex buffer layouts of the render path, one buffer per input.
    pub fn vertex_buffers(&self) -> Vec<wgpu::VertexBufferLayout<'_>> {
        self.vertex_inputs
            .iter()
            .map(|v| wgpu::VertexBufferLayout {
                array_stride: v.stride,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: std::slice::from_ref(&v.attribute),
            })
            .collect()
    }

    /// Invocations per workgroup.
    pub fn workgroup_threads(&self) -> u32 {
        self.workgroup_size.iter().product()
    }

    /// The workgroup size as `@workgroup_size(..)` takes it: "64", or "8, 8".
    pub fn workgroup_wgsl(&self) -> String {
        let mut size = self.workgroup_size.to_vec();
        while size.len() > 1 && size.last() == Some(&1) {
            size.pop();
        }
        size.iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The WGSL declaration of `role` under the variable `name`:
    /// `@group(0) @binding(5) var<uniform> params: Count;` (the struct it names is declared by
    /// [`Contract::declarations`]).
    pub fn declaration(&self, role: Role, name: &str) -> String {
        let s = self.slot(role);
        // A fixed-length palette is declared as long as the shader's, which is how it is bound.
        let ty = match (s.ty, self.palette_len) {
            (Want::FixedMatrices, Some(n)) => format!("array<mat4x4<f32>, {n}>"),
            (ty, _) => ty.declared().0,
        };
        if !s.space.is_buffer() {
            return format!(
                "@group({}) @binding({}) var {name}: {ty};",
                s.group, s.binding
            );
        }
        format!(
            "@group({}) @binding({}) var<{}> {name}: {ty};",
            s.group,
            s.binding,
            s.space.wgsl(),
        )
    }

    /// WGSL declaring each (role, variable name), after the structs they need: the bindings of
    /// the harness's own shaders, written from the contract.
    pub fn declarations(&self, roles: &[(Role, &str)]) -> String {
        let mut out = String::new();
        for &(role, _) in roles {
            if let Some(decl) = self.slot(role).ty.declared().1 {
                out.push_str(decl);
                out.push('\n');
            }
        }
        for &(role, name) in roles {
            out.push_str(&self.declaration(role, name));
            out.push('\n');
        }
        out
    }
}

/// Numbers as messages list them: "0 to 6" when consecutive, else "0 and 6", "0, 2 and 5".
pub fn list(numbers: &[u32]) -> String {
    let strings: Vec<String> = numbers.iter().map(u32::to_string).collect();
    let consecutive = numbers.windows(2).all(|w| w[1] == w[0] + 1);
    match strings.as_slice() {
        [] => "none".into(),
        [one] => one.clone(),
        [first, .., last] if consecutive && numbers.len() > 2 => format!("{first} to {last}"),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The written camera, worked by hand for a camera the stage flips and stores by rows: the
    /// stage reads `S` and computes `v * S` (row vectors, `S^T v`), then negates y; with `S`
    /// written as `(F M)^T` that is `F F M v = M v`, the camera meant. The other order,
    /// `F M^T`, would not give it back for this `M`, which is not symmetric.
    #[test]
    fn a_flipped_camera_stored_by_rows_is_flipped_then_transposed() {
        let mut c = Contract::builtin();
        c.clip_y = crate::format::ClipY::Flipped;
        c.camera_rows = true;
        let m = glam::Mat4::from_cols_array(&[
            1.0, 2.0, 3.0, 0.0, 4.0, 5.0, 6.0, 0.0, 7.0, 8.0, 9.0, 0.0, 0.5, 0.25, 2.0, 1.0,
        ]);
        let v = glam::Vec4::new(1.0, -2.0, 0.5, 1.0);
        let s = c.written_camera(m);
        let flip = glam::Vec4::new(1.0, -1.0, 1.0, 1.0);
        assert_eq!((s.transpose() * v) * flip, m * v);
        let f = glam::Mat4::from_diagonal(flip);
        assert_ne!(((f * m.transpose()).transpose() * v) * flip, m * v);
        c.camera_rows = false;
        assert_eq!((c.written_camera(m) * v) * flip, m * v);
    }

    #[test]
    fn lists_read_as_the_messages_write_them() {
        assert_eq!(list(&[0, 1, 2, 3, 4, 5, 6]), "0 to 6");
        assert_eq!(list(&[0, 6]), "0 and 6");
        assert_eq!(list(&[0, 1]), "0 and 1");
        assert_eq!(list(&[0, 2, 5]), "0, 2 and 5");
        assert_eq!(list(&[3]), "3");
    }

    #[test]
    fn a_filled_count_is_written_for_each_case() {
        let mut f = Filled {
            role: Role::Filled(0),
            fill: Fill::Zero,
            floats: Vec::new(),
            members: Vec::new(),
            count: None,
            joints: None,
            texture_width: None,
            starts: Vec::new(),
            bytes: vec![7; 12],
            problems: Vec::new(),
        };
        assert_eq!(f.for_case((300, 0, 0), &[]), [7; 12]);
        assert!(!f.per_case());
        let member = |offset| CaseMember {
            offset: Some(offset),
            ..CaseMember::named("m".into(), String::new())
        };
        f.count = Some(member(4));
        assert_eq!(
            f.for_case((300, 0, 0), &[]),
            [7, 7, 7, 7, 44, 1, 0, 0, 7, 7, 7, 7]
        );
        assert_eq!(f.bytes, [7; 12], "each case gets a copy");
        // A vertex pool's starts, each at its member: 256 (0x100) for the positions at byte 0,
        // 513 (0x201) for the joints at byte 8; a start the case does not place is left.
        use crate::regions::Stream;
        f.starts = vec![
            (Stream::Position, member(0)),
            (Stream::Joints, member(8)),
            (Stream::Weights, member(8)),
        ];
        assert!(f.per_case());
        let starts = [(Stream::Joints, 513), (Stream::Position, 256)];
        assert_eq!(
            f.for_case((300, 0, 0), &starts),
            [0, 1, 0, 0, 44, 1, 0, 0, 1, 2, 0, 0]
        );
        // The joint count: 258 (0x102) joints at byte 0, with the count alone.
        f.starts.clear();
        f.joints = Some(member(0));
        assert_eq!(
            f.for_case((300, 258, 0), &[]),
            [2, 1, 0, 0, 44, 1, 0, 0, 7, 7, 7, 7]
        );
        f.count = None;
        assert!(f.per_case(), "the joint count alone is per case");
        // A palette texture's width, 1032 (0x408) texels, into an f32 at byte 8 (0x44810000).
        f.joints = None;
        f.texture_width = Some(CaseMember {
            float: true,
            ..member(8)
        });
        assert!(f.per_case(), "the texture's width alone is per case");
        assert_eq!(
            f.for_case((300, 258, 1032), &[]),
            [7, 7, 7, 7, 7, 7, 7, 7, 0x00, 0x00, 0x81, 0x44]
        );
    }

    #[test]
    fn the_builtin_contract_is_spec_md() {
        let c = Contract::builtin();
        let bindings: Vec<u32> = c.slots.iter().map(|s| s.binding).collect();
        assert_eq!(bindings, [0, 1, 2, 3, 4, 5, 6]);
        assert_eq!(c.layout_label(Pipeline::Compute), "compute bindings 0-5");
        assert_eq!(c.layout_label(Pipeline::Render), "render bindings 0 and 6");
        assert_eq!(c.workgroup_wgsl(), "64");
        assert_eq!(
            c.declaration(Role::Count, "params"),
            "@group(0) @binding(5) var<uniform> params: Count;"
        );
        assert_eq!(
            c.declaration(Role::Skinned, "skinned"),
            "@group(0) @binding(4) var<storage, read_write> skinned: array<vec4<f32>>;"
        );
        assert_eq!(c.input(Role::Joints).unwrap().location(), 1);
        assert_eq!(c.slot(Role::View).ty.field("half_width"), Some(8));
    }

    #[test]
    fn declarations_validate_with_naga() {
        let c = Contract::builtin();
        let roles: Vec<(Role, &str)> = [
            (Role::Palette, "palette"),
            (Role::Positions, "positions"),
            (Role::Joints, "joints"),
            (Role::Weights, "weights"),
            (Role::Skinned, "skinned"),
            (Role::Count, "params"),
            (Role::View, "view"),
        ]
        .to_vec();
        let src = c.declarations(&roles);
        let module = naga::front::wgsl::parse_str(&src).unwrap();
        assert_eq!(module.global_variables.len(), 7);
        for (_, var) in module.global_variables.iter() {
            let b = var.binding.as_ref().unwrap();
            let slot = c.slot_at(b.group, b.binding).unwrap();
            assert!(slot.space.matches(var.space), "{slot:?}");
            assert!(slot.ty.matches(&module.types, var.ty), "{slot:?}");
            if slot.space == Space::Uniform {
                let size = module.types[var.ty].inner.size(module.to_ctx());
                assert_eq!(size, c.uniform_bytes, "{slot:?}");
            }
        }
    }

    #[test]
    fn a_filled_buffer_holds_its_fill_then_its_floats() {
        let floats = |bytes: Vec<u8>| bytemuck::cast_slice::<u8, f32>(&bytes).to_vec();
        // Zeros, at least 16 bytes, rounded up to 16.
        assert_eq!(floats(Fill::Zero.over(&[], 4)), [0.0; 4]);
        assert_eq!(Fill::Zero.over(&[], 20).len(), 32);
        // A mat4x4 at 0 and an affine mat4x3 (vec3 columns, 16 bytes apart) at 80: ones on their
        // diagonals only, the vec4 between them left zero.
        let m = |offset, columns, rows| MatrixAt {
            offset,
            columns,
            rows,
            column_stride: 16,
        };
        let id = floats(Fill::Identity.over(&[m(0, 4, 4), m(80, 4, 3)], 144));
        let ones: Vec<usize> = (0..36).filter(|&i| id[i] == 1.0).collect();
        assert_eq!(ones, [0, 5, 10, 15, 20, 25, 30]);
        assert!(id.iter().all(|&x| x == 0.0 || x == 1.0));
        // Zero ignores the matrices.
        assert!(floats(Fill::Zero.over(&[m(0, 4, 4)], 64))
            .iter()
            .all(|&x| x == 0.0));
        // The floats over the fill, and longer than the type when they are.
        let fill = Fill::Identity.over(&[m(0, 4, 4)], 64);
        let over = floats(Filled::contents(&fill, &[2.0, 3.0]));
        assert_eq!(&over[..6], &[2.0, 3.0, 0.0, 0.0, 0.0, 1.0]);
        assert_eq!(
            Filled::contents(&Fill::Zero.over(&[], 16), &[1.0; 9]).len(),
            48
        );
    }

    #[test]
    fn palette_elements_hold_columns_or_rows_at_their_member() {
        // m[i] = i, column-major: column c is (4c, 4c + 1, 4c + 2, 4c + 3).
        let m = glam::Mat4::from_cols_array(&std::array::from_fn(|i| i as f32));
        let floats = |e: &PaletteElement| {
            let bytes = e.bytes(&[m, m]);
            bytemuck::cast_slice::<u8, f32>(&bytes).to_vec()
        };
        let plain = floats(&PaletteElement::default());
        assert_eq!(plain.len(), 32);
        assert_eq!(&plain[16..20], &[0.0, 1.0, 2.0, 3.0]);
        // Rows at member offset 16 of a 64-byte struct: row 0 is (0, 4, 8, 12), row 2 (2, 6, 10,
        // 14); the struct's first 16 bytes and its last 0.
        let rows = PaletteElement {
            rows: true,
            member: Some(Member {
                name: "rows".into(),
                offset: 16,
                origin: None,
            }),
            stride: 64,
            ..Default::default()
        };
        let r = floats(&rows);
        assert_eq!(r.len(), 32);
        assert_eq!(&r[..4], &[0.0; 4]);
        assert_eq!(&r[4..8], &[0.0, 4.0, 8.0, 12.0]);
        assert_eq!(&r[12..16], &[2.0, 6.0, 10.0, 14.0]);
        assert_eq!(&r[20..24], &[0.0, 4.0, 8.0, 12.0]);
        // Bare slots, three a joint, by columns with the translation in w: (0, 1, 2, 12),
        // (4, 5, 6, 13), (8, 9, 10, 14); the next joint's 48 bytes on.
        let cocos = PaletteElement {
            rows: true,
            slots: 3,
            stride: 48,
            affine: Affine::ColumnsTranslation,
            ..Default::default()
        };
        let c = floats(&cocos);
        assert_eq!(c.len(), 24);
        assert_eq!(&c[..4], &[0.0, 1.0, 2.0, 12.0]);
        assert_eq!(&c[4..8], &[4.0, 5.0, 6.0, 13.0]);
        assert_eq!(&c[8..12], &[8.0, 9.0, 10.0, 14.0]);
        assert_eq!(&c[12..16], &[0.0, 1.0, 2.0, 12.0]);
    }

    #[test]
    fn a_normal_array_beside_the_palette_holds_each_joints_inverse_transpose() {
        // Joint 0 the identity, joint 1 a scale by (2, 4, 8) moved by (1, 1, 1): its inverse
        // transpose is the scale by (1/2, 1/4, 1/8). As mat4x4<f32> elements (64 bytes apart),
        // each column padded with 0, the last 0 0 0 1.
        let s = glam::Mat4::from_translation(glam::Vec3::ONE)
            * glam::Mat4::from_scale(glam::Vec3::new(2.0, 4.0, 8.0));
        let mut n = ParallelNormals::new(Member {
            name: "normals".into(),
            offset: 0,
            origin: None,
        });
        n.stride = 64;
        n.columns = 4;
        let bytes = n.bytes(&[glam::Mat4::IDENTITY, s]);
        let f: &[f32] = bytemuck::cast_slice(&bytes);
        assert_eq!(f.len(), 32);
        assert_eq!(&f[..16], &glam::Mat4::IDENTITY.to_cols_array());
        let want = [
            0.5, 0.0, 0.0, 0.0, 0.0, 0.25, 0.0, 0.0, 0.0, 0.0, 0.125, 0.0, 0.0, 0.0, 0.0, 1.0,
        ];
        assert!(
            f[16..].iter().zip(want).all(|(g, w)| (g - w).abs() < 1e-6),
            "{:?}",
            &f[16..]
        );
        // As mat3x3<f32> (48 bytes apart): the first three columns only.
        n.stride = 48;
        n.columns = 3;
        let f: Vec<f32> = bytemuck::cast_slice(&n.bytes(&[s])).to_vec();
        assert_eq!(f.len(), 12);
        assert!(
            f.iter().zip(&want[..12]).all(|(g, w)| (g - w).abs() < 1e-6),
            "{f:?}"
        );
    }

    #[test]
    fn a_palette_elements_normal_member_holds_the_joints_inverse_transpose() {
        // struct { matrix: mat4x4<f32>, normal: mat3x3<f32> }: 64 + 48 bytes. Scale X by 2 and
        // turn 90 degrees about Z: A = R S, columns (0, 2, 0), (-1, 0, 0), (0, 0, 1); its inverse
        // transpose R S^-1 has columns (0, 1/2, 0), (-1, 0, 0), (0, 0, 1), each padded to 16 bytes.
        let a = glam::Mat4::from_rotation_translation(
            glam::Quat::from_rotation_z(std::f32::consts::FRAC_PI_2),
            glam::Vec3::new(5.0, 6.0, 7.0),
        ) * glam::Mat4::from_scale(glam::Vec3::new(2.0, 1.0, 1.0));
        let member = |name: &str, offset| {
            Some(Member {
                name: name.into(),
                offset,
                origin: None,
            })
        };
        let mut e = PaletteElement {
            member: member("matrix", 0),
            stride: 112,
            normal: member("normal", 64),
            ..Default::default()
        };
        let floats =
            |e: &PaletteElement| bytemuck::cast_slice::<u8, f32>(&e.bytes(&[a, a])).to_vec();
        let f = floats(&e);
        assert_eq!(f.len(), 56);
        assert_eq!(&f[..16], &a.to_cols_array());
        let want = [0.0, 0.5, 0.0, 0.0, -1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0];
        for (got, want) in [(&f[16..28], &want), (&f[44..56], &want)] {
            assert!(
                got.iter().zip(want).all(|(g, w)| (g - w).abs() < 1e-6),
                "{got:?}"
            );
        }
        // As a mat4x4<f32> (64 + 64 bytes): the same columns, then 0 0 0 1.
        e.stride = 128;
        e.normal_columns = 4;
        let f = floats(&e);
        assert_eq!(&f[28..32], &[0.0, 0.0, 0.0, 1.0]);
        assert!((f[17] - 0.5).abs() < 1e-6 && (f[20] + 1.0).abs() < 1e-6);
    }

    #[test]
    fn a_palette_texture_lays_texels_out_row_by_row() {
        let t = |texels, width| PaletteTexture {
            texels,
            affine: Affine::Rows,
            normal_texels: 0,
            width,
        };
        // 3 joints x 4 texels = 12: square -> 4 x 4 (at least 4), row -> 12 x 1, fixed 5 -> 5 x 3.
        assert_eq!(t(4, TextureWidth::Square).size(3), (4, 4));
        // The width a `texture_width` member is given: the texture's, 0 with none.
        let mut c = Contract::builtin();
        assert_eq!(c.palette_texture_width(3), 0);
        c.palette_texture = Some(t(4, TextureWidth::Square));
        assert_eq!(c.palette_texture_width(300), 64);
        c.palette_texture = Some(t(4, TextureWidth::Fixed(5)));
        assert_eq!(c.palette_texture_width(300), 5);
        c.palette_texture = Some(t(3, TextureWidth::Row));
        assert_eq!(c.palette_texture_width(7), 21);
        assert_eq!(t(4, TextureWidth::Row).size(3), (12, 1));
        assert_eq!(t(4, TextureWidth::Fixed(5)).size(3), (5, 3));
        // 300 joints x 4 = 1200 texels: sqrt 34.6 -> 64 x 64; x 3 = 900: 30 -> 32 x 32.
        assert_eq!(t(4, TextureWidth::Square).size(300), (64, 64));
        assert_eq!(t(3, TextureWidth::Square).size(300), (32, 32));
        // Joint 1 of a 2-joint palette: m[i] = 100 j + i (column-major). Columns: its texel 0 is
        // elements 0-3 (column 0); rows: its texel 0 is elements 0, 4, 8, 12 (row 0).
        let m = |j: f32| std::array::from_fn::<f32, 16, _>(|i| 100.0 * j + i as f32);
        let palette = [m(0.0), m(1.0)];
        let columns = t(4, TextureWidth::Fixed(3)).texels_of(&palette, 3, 3);
        // Texel 4 (joint 1's first) is at x = 1, y = 1: floats 16 to 19.
        assert_eq!(&columns[16..20], &[100.0, 101.0, 102.0, 103.0]);
        assert_eq!(&columns[28..32], &[112.0, 113.0, 114.0, 115.0]);
        // Texel 8 is past the palette: NaN.
        assert!(columns[32..36].iter().all(|x| x.is_nan()));
        let rows = t(3, TextureWidth::Row).texels_of(&palette, 6, 1);
        assert_eq!(&rows[12..16], &[100.0, 104.0, 108.0, 112.0]);
        assert_eq!(&rows[20..24], &[102.0, 106.0, 110.0, 114.0]);
        // Columns with the translation in w: texel k is column k's xyz, then element 12 + k.
        let cocos = PaletteTexture {
            affine: Affine::ColumnsTranslation,
            ..t(3, TextureWidth::Row)
        };
        let texels = cocos.texels_of(&palette, 6, 1);
        assert_eq!(&texels[12..16], &[100.0, 101.0, 102.0, 112.0]);
        assert_eq!(&texels[16..20], &[104.0, 105.0, 106.0, 113.0]);
        assert_eq!(&texels[20..24], &[108.0, 109.0, 110.0, 114.0]);
    }

    #[test]
    fn a_palette_texture_puts_each_joints_normal_matrix_after_its_matrix() {
        let t = |normal_texels| PaletteTexture {
            texels: 4,
            affine: Affine::Rows,
            normal_texels,
            width: TextureWidth::Fixed(3),
        };
        // Joint 0 scales X by 2 and moves by (1, 2, 3): its normal matrix (the inverse transpose
        // of diag(2, 1, 1)) is diag(1/2, 1, 1). Joint 1 turns a quarter about Z: a rotation is its
        // own inverse transpose, columns (0, 1, 0) and (-1, 0, 0).
        let scale = glam::Mat4::from_scale_rotation_translation(
            glam::Vec3::new(2.0, 1.0, 1.0),
            glam::Quat::IDENTITY,
            glam::Vec3::new(1.0, 2.0, 3.0),
        );
        let turn = glam::Mat4::from_rotation_z(std::f32::consts::FRAC_PI_2);
        let palette = [scale.to_cols_array(), turn.to_cols_array()];
        // 2 joints x 8 texels = 16 at width 3: 3 x 6.
        assert_eq!(t(4).size(2), (3, 6));
        let texels = t(4).texels_of(&palette, 3, 6);
        let texel = |i: usize| &texels[4 * i..4 * i + 4];
        // Joint 0: its columns in texels 0-3, its normal matrix in 4-7 (x = 1, y = 1 onward).
        assert_eq!(texel(3), &[1.0, 2.0, 3.0, 1.0]);
        assert_eq!(texel(4), &[0.5, 0.0, 0.0, 0.0]);
        assert_eq!(texel(5), &[0.0, 1.0, 0.0, 0.0]);
        assert_eq!(texel(7), &[0.0, 0.0, 0.0, 1.0]);
        // Joint 1 from texel 8 (x = 2, y = 2): its matrix, then the same rotation again.
        let close = |a: &[f32], b: [f32; 4]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-6);
        assert!(close(texel(8), [0.0, 1.0, 0.0, 0.0]), "{:?}", texel(8));
        assert!(close(texel(12), [0.0, 1.0, 0.0, 0.0]), "{:?}", texel(12));
        assert!(close(texel(13), [-1.0, 0.0, 0.0, 0.0]), "{:?}", texel(13));
        // Past the palette, NaN.
        assert!(texel(16).iter().all(|x| x.is_nan()));
        // A 3x3 normal matrix: 7 texels a joint, joint 1 from texel 7.
        let texels = t(3).texels_of(&palette, 3, 5);
        assert_eq!(&texels[24..28], &[0.0, 0.0, 1.0, 0.0]);
        assert!(close(&texels[28..32], [0.0, 1.0, 0.0, 0.0]));
    }

    /// Whether `want` takes the type of `var` declared in `src`.
    fn takes(want: Want, src: &str) -> bool {
        let module = naga::front::wgsl::parse_str(src).unwrap();
        let (_, var) = module.global_variables.iter().next().unwrap();
        want.matches(&module.types, var.ty)
    }

    #[test]
    fn a_flat_array_holds_an_unpadded_elements_scalars() {
        let of = |t: &str| format!("@group(0) @binding(0) var<storage, read> w: array<{t}>;");
        assert!(takes(Want::Flat(Elem::Vec4F32), &of("f32")));
        assert!(takes(Want::Flat(Elem::Vec4F32), &of("vec4<f32>")));
        assert!(takes(Want::Flat(Elem::Vec4U32), &of("u32")));
        assert!(!takes(Want::Flat(Elem::Vec4U32), &of("f32")));
        assert!(!takes(Want::Flat(Elem::Vec4F32), &of("u32")));
        // A vec3 array pads each element: its floats are not its bytes.
        assert!(!takes(Want::Flat(Elem::Vec3F32), &of("f32")));
        assert!(!takes(Want::Array(Elem::Vec4F32), &of("f32")));
        assert_eq!(
            Want::Flat(Elem::Vec4F32).wgsl(),
            "array<vec4<f32>> (or array<f32>, 4 an element)"
        );
    }

    #[test]
    fn words_come_one_two_or_four_to_an_element_never_three() {
        let of = |t: &str| format!("@group(0) @binding(0) var<storage, read_write> o: array<{t}>;");
        for t in ["vec4<f32>", "vec2<u32>", "vec4<i32>"] {
            assert!(takes(Want::OutputWords, &of(t)), "{t}");
            assert!(takes(Want::Words, &of(t)), "{t}");
        }
        // A vec3's fourth word is padding, no word of the vertex; f16 halves are no words.
        assert!(!takes(Want::OutputWords, &of("vec3<f32>")));
        assert!(!takes(Want::OutputWords, &of("mat4x4<f32>")));
        assert!(takes(Want::OutputWords, &of("f32")) && takes(Want::Words, &of("f32")));
        assert!(takes(Want::Words, &of("i32")));
    }

    #[test]
    fn an_array_wrapped_alone_in_a_struct_is_the_array() {
        let wrapped =
            "struct B { m: array<mat4x4<f32>> }\n@group(0) @binding(0) var<storage> b: B;";
        assert!(takes(Want::Array(Elem::Mat4F32), wrapped));
        assert!(!takes(Want::Array(Elem::Vec4F32), wrapped));
        // Bevy's uniform palette.
        let bevy = "struct SkinnedMesh { data: array<mat4x4<f32>, 256u> }\n@group(0) @binding(0) var<uniform> j: SkinnedMesh;";
        assert!(takes(Want::FixedMatrices, bevy));
        assert!(!takes(Want::Array(Elem::Mat4F32), bevy));
        let positions =
            "struct P { p: array<vec3<f32>> }\n@group(0) @binding(0) var<storage> p: P;";
        assert!(takes(Want::Positions, positions));
        let words = "struct W { w: array<u32> }\n@group(0) @binding(0) var<storage> w: W;";
        assert!(takes(Want::Words, words) && takes(Want::PackedJoints, words));
        // Another member first moves the array off byte 0: not the same bytes.
        let after =
            "struct B { n: u32, m: array<mat4x4<f32>> }\n@group(0) @binding(0) var<storage> b: B;";
        assert!(!takes(Want::Array(Elem::Mat4F32), after));
        // A struct is no array of structs, nor does a count or view unwrap.
        let nested = "struct M { m: mat4x4<f32> }\nstruct B { m: M }\n@group(0) @binding(0) var<storage> b: B;";
        assert!(!takes(Want::Array(Elem::Mat4F32), nested));
        let count = "struct C { c: array<u32, 4> }\n@group(0) @binding(0) var<uniform> c: C;";
        assert!(!takes(Want::Count, count));
        // A count alone, or first, as a u32 or an i32 (written as a u32: the same bits).
        for count in [
            "@group(0) @binding(0) var<uniform> n: i32;",
            "@group(0) @binding(0) var<uniform> n: vec4<u32>;",
            "struct C { n: i32, scale: f32 }\n@group(0) @binding(0) var<uniform> c: C;",
        ] {
            assert!(takes(Want::Count, count), "{count}");
        }
        let float = "@group(0) @binding(0) var<uniform> n: f32;";
        assert!(!takes(Want::Count, float));
    }
}
