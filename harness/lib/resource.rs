//! A texture or sampler among a shader's other bindings, bound by the harness: read from naga's type, its layout entry and WGSL, and the texture made for it (one texel, zeros or the profile's values).
//!
//! Engines read textures beside the palette in the stages under test (morph targets in a
//! `texture_2d_array`, a displacement map) and sample material textures in their fragment stage.
//! The harness cannot know what an engine puts there, so it binds the neutral value: a texture of
//! one texel a layer holding zeros, or the values a profile's `floats` give, and a clamped,
//! linear sampler. A load outside a texture reads zeros or one of its texels (WGSL), so a zero
//! texture read by vertex index reads zeros for every vertex; `floats` are read where a load
//! stays in bounds and wherever a sampler samples.

use naga::{ImageClass, ImageDimension, ScalarKind, TypeInner};

/// What a texture's texels hold, as the shader samples them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sample {
    Float,
    Sint,
    Uint,
    Depth,
}

/// A texture or sampler binding as the shader declares it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resource {
    Texture {
        dim: ImageDimension,
        arrayed: bool,
        sample: Sample,
        multisampled: bool,
    },
    /// `comparison`: a `sampler_comparison`; `filtering`: false where the shader samples a
    /// texture through it that a filtering sampler may not sample ([`non_filtering`]).
    Sampler { comparison: bool, filtering: bool },
}

impl Resource {
    /// The resource a variable of type `ty` takes, or why the harness cannot bind one (a storage
    /// or external texture, an array of bindings).
    pub fn of(
        types: &naga::UniqueArena<naga::Type>,
        ty: naga::Handle<naga::Type>,
    ) -> Result<Resource, String> {
        match &types[ty].inner {
            TypeInner::Image {
                dim,
                arrayed,
                class,
            } => {
                let (sample, multisampled) =
                    match *class {
                        ImageClass::Sampled { kind, multi } => (
                            match kind {
                                ScalarKind::Sint => Sample::Sint,
                                ScalarKind::Uint => Sample::Uint,
                                _ => Sample::Float,
                            },
                            multi,
                        ),
                        ImageClass::Depth { multi } => (Sample::Depth, multi),
                        ImageClass::Storage { .. } => return Err(
                            "a storage texture (the harness binds sampled textures and samplers)"
                                .into(),
                        ),
                        ImageClass::External => return Err(
                            "an external texture (the harness binds sampled textures and samplers)"
                                .into(),
                        ),
                    };
                Ok(Resource::Texture {
                    dim: *dim,
                    arrayed: *arrayed,
                    sample,
                    multisampled,
                })
            }
            TypeInner::Sampler { comparison } => Ok(Resource::Sampler {
                comparison: *comparison,
                filtering: true,
            }),
            TypeInner::BindingArray { .. } => Err(
                "an array of bindings (the harness binds one texture or sampler a binding)".into(),
            ),
            _ => Err("neither a buffer, a sampled texture nor a sampler".into()),
        }
    }

    /// Whether a sampler: the texture's values (`floats`) mean nothing there.
    pub fn is_sampler(self) -> bool {
        matches!(self, Resource::Sampler { .. })
    }

    /// The resource, a non-comparison sampler filtering as `on` says ([`non_filtering`]).
    pub fn filtering(self, on: bool) -> Resource {
        match self {
            Resource::Sampler {
                comparison: false, ..
            } => Resource::Sampler {
                comparison: false,
                filtering: on,
            },
            other => other,
        }
    }

    /// As WGSL declares it, for messages: `texture_2d_array<f32>`, `sampler_comparison`.
    pub fn wgsl(self) -> String {
        match self {
            Resource::Sampler {
                comparison: true, ..
            } => "sampler_comparison".into(),
            Resource::Sampler { .. } => "sampler".into(),
            Resource::Texture {
                dim,
                arrayed,
                sample,
                multisampled,
            } => {
                let dim = match dim {
                    ImageDimension::D1 => "1d",
                    ImageDimension::D2 => "2d",
                    ImageDimension::D3 => "3d",
                    ImageDimension::Cube => "cube",
                };
                let array = if arrayed { "_array" } else { "" };
                let multi = if multisampled { "multisampled_" } else { "" };
                match sample {
                    Sample::Depth => format!("texture_depth_{multi}{dim}{array}"),
                    s => {
                        let scalar = match s {
                            Sample::Sint => "i32",
                            Sample::Uint => "u32",
                            _ => "f32",
                        };
                        format!("texture_{multi}{dim}{array}<{scalar}>")
                    }
                }
            }
        }
    }

    /// Its bind group layout entry's type.
    pub fn binding_type(self) -> wgpu::BindingType {
        match self {
            Resource::Sampler {
                comparison,
                filtering,
            } => wgpu::BindingType::Sampler(match (comparison, filtering) {
                (true, _) => wgpu::SamplerBindingType::Comparison,
                (false, true) => wgpu::SamplerBindingType::Filtering,
                (false, false) => wgpu::SamplerBindingType::NonFiltering,
            }),
            Resource::Texture {
                sample,
                multisampled,
                ..
            } => wgpu::BindingType::Texture {
                sample_type: match sample {
                    // Multisampled float textures are never filterable (WebGPU).
                    Sample::Float => wgpu::TextureSampleType::Float {
                        filterable: !multisampled,
                    },
                    Sample::Sint => wgpu::TextureSampleType::Sint,
                    Sample::Uint => wgpu::TextureSampleType::Uint,
                    Sample::Depth => wgpu::TextureSampleType::Depth,
                },
                view_dimension: self.view_dimension(),
                multisampled,
            },
        }
    }

    fn view_dimension(self) -> wgpu::TextureViewDimension {
        use wgpu::TextureViewDimension as V;
        match self {
            Resource::Texture { dim, arrayed, .. } => match (dim, arrayed) {
                (ImageDimension::D1, _) => V::D1,
                (ImageDimension::D2, false) => V::D2,
                (ImageDimension::D2, true) => V::D2Array,
                (ImageDimension::D3, _) => V::D3,
                (ImageDimension::Cube, false) => V::Cube,
                (ImageDimension::Cube, true) => V::CubeArray,
            },
            Resource::Sampler { .. } => V::D2,
        }
    }

    /// The texture made for it: one texel a layer (one layer; two for an array, six for a cube,
    /// twelve for an array of cubes), in a
    /// format of its sample type that a shader may filter (f16 floats) and, multisampled, four
    /// samples; `None` for a sampler.
    pub fn texture(self) -> Option<Texture> {
        let Resource::Texture {
            sample,
            multisampled,
            ..
        } = self
        else {
            return None;
        };
        use wgpu::TextureFormat as F;
        // Multisampled integer textures: the 16-bit formats every device multisamples.
        let format = match (sample, multisampled) {
            (Sample::Float, _) => F::Rgba16Float,
            (Sample::Sint, false) => F::Rgba32Sint,
            (Sample::Uint, false) => F::Rgba32Uint,
            (Sample::Sint, true) => F::Rgba16Sint,
            (Sample::Uint, true) => F::Rgba16Uint,
            (Sample::Depth, _) => F::Depth32Float,
        };
        // wgpu's GL backend takes a view's dimension from the layer count (one: 2D, more: an
        // array, six: a cube, more sixes: a cube array), so an array has two.
        use wgpu::{TextureDimension as D, TextureViewDimension as V};
        let view = self.view_dimension();
        let (dimension, layers) = match view {
            V::D1 => (D::D1, 1),
            V::D3 => (D::D3, 1),
            V::D2 => (D::D2, 1),
            V::D2Array => (D::D2, 2),
            V::Cube => (D::D2, 6),
            V::CubeArray => (D::D2, 12),
        };
        Some(Texture {
            format,
            dimension,
            view,
            layers,
            samples: if multisampled { 4 } else { 1 },
        })
    }
}

/// The texture the harness makes for a texture binding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Texture {
    pub format: wgpu::TextureFormat,
    pub dimension: wgpu::TextureDimension,
    pub view: wgpu::TextureViewDimension,
    /// Array layers of one texel each.
    pub layers: u32,
    pub samples: u32,
}

impl Texture {
    /// Whether the harness can write its texels: a multisampled or depth texture holds zeros
    /// (WebGPU writes neither from the host).
    pub fn writable(self) -> bool {
        self.samples == 1 && self.format != wgpu::TextureFormat::Depth32Float
    }

    /// One texel's bytes holding `values` (up to four channels, the rest zero), as its format
    /// stores them: f16 floats (rounded to the nearest), 32-bit integers; or why they do not fit
    /// (an integer format given a value that is not an integer it holds, a float past f16's
    /// range).
    pub fn texel(self, values: &[f64]) -> Result<Vec<u8>, String> {
        let mut channels = [0f64; 4];
        let n = values.len().min(4);
        channels[..n].copy_from_slice(&values[..n]);
        let integers = |lo: f64, hi: f64, ty: &str| match (channels.iter())
            .position(|v| v.fract() != 0.0 || !(lo..=hi).contains(v))
        {
            None => Ok(()),
            Some(i) => Err(format!(
                "its texels hold {ty}, and `floats` value {i} ({}) is not one",
                channels[i]
            )),
        };
        match self.format {
            wgpu::TextureFormat::Rgba16Float => {
                let max = f64::from(half::f16::MAX);
                match channels.iter().position(|v| v.abs() > max) {
                    Some(i) => Err(format!(
                        "its texels hold f16 floats, and `floats` value {i} ({}) is past their range (±{max})",
                        channels[i]
                    )),
                    None => Ok((channels.iter())
                        .flat_map(|&v| half::f16::from_f64(v).to_le_bytes())
                        .collect()),
                }
            }
            wgpu::TextureFormat::Rgba32Sint => integers(i32::MIN.into(), i32::MAX.into(), "i32")
                .map(|()| {
                    channels
                        .iter()
                        .flat_map(|&v| (v as i32).to_le_bytes())
                        .collect()
                }),
            wgpu::TextureFormat::Rgba32Uint => integers(0.0, u32::MAX.into(), "u32").map(|()| {
                channels
                    .iter()
                    .flat_map(|&v| (v as u32).to_le_bytes())
                    .collect()
            }),
            other => Err(format!("the harness writes no {other:?} texel")),
        }
    }
}

/// The samplers the shader samples a texture through that a filtering sampler may not sample
/// (WebGPU): any texture but a single-sample float one in `bound` (the textures the harness makes
/// filterable), so a depth or integer texture, or a palette texture of unfilterable texels. From
/// naga's sampling sets, which follow a texture and a sampler passed to a function.
pub fn non_filtering(
    module: &naga::Module,
    info: &naga::valid::ModuleInfo,
    bound: &[naga::Handle<naga::GlobalVariable>],
) -> Vec<naga::Handle<naga::GlobalVariable>> {
    let filterable = |image: naga::Handle<naga::GlobalVariable>| {
        bound.contains(&image)
            && matches!(
                module.types[module.global_variables[image].ty].inner,
                TypeInner::Image {
                    class: ImageClass::Sampled {
                        kind: ScalarKind::Float,
                        multi: false,
                    },
                    ..
                }
            )
    };
    let sets = (0..module.entry_points.len()).map(|i| &info.get_entry_point(i).sampling_set);
    let mut out: Vec<_> = sets
        .flatten()
        .filter(|key| !filterable(key.image))
        .map(|key| key.sampler)
        .collect();
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(wgsl: &str) -> Result<Resource, String> {
        let module = naga::front::wgsl::parse_str(wgsl).unwrap();
        let (_, var) = module.global_variables.iter().next().unwrap();
        Resource::of(&module.types, var.ty)
    }

    #[test]
    fn textures_are_read_as_declared() {
        let morph = of("@group(0) @binding(0) var t: texture_2d_array<f32>;").unwrap();
        assert_eq!(morph.wgsl(), "texture_2d_array<f32>");
        assert_eq!(
            morph.binding_type(),
            wgpu::BindingType::Texture {
                sample_type: wgpu::TextureSampleType::Float { filterable: true },
                view_dimension: wgpu::TextureViewDimension::D2Array,
                multisampled: false,
            }
        );
        let t = morph.texture().unwrap();
        assert_eq!(
            (t.format, t.layers, t.samples),
            (wgpu::TextureFormat::Rgba16Float, 2, 1)
        );
        let cube = of("@group(0) @binding(0) var t: texture_depth_cube;").unwrap();
        assert_eq!(cube.wgsl(), "texture_depth_cube");
        assert_eq!(cube.texture().unwrap().layers, 6);
        assert!(!cube.texture().unwrap().writable());
        let ms = of("@group(0) @binding(0) var t: texture_multisampled_2d<u32>;").unwrap();
        assert_eq!(ms.wgsl(), "texture_multisampled_2d<u32>");
        assert_eq!(
            ms.texture().unwrap().format,
            wgpu::TextureFormat::Rgba16Uint
        );
        assert_eq!(
            of("@group(0) @binding(0) var t: texture_3d<i32>;")
                .unwrap()
                .wgsl(),
            "texture_3d<i32>"
        );
    }

    #[test]
    fn what_cannot_be_bound_says_why() {
        let storage = of("@group(0) @binding(0) var t: texture_storage_2d<rgba8unorm, write>;");
        assert_eq!(
            storage.unwrap_err(),
            "a storage texture (the harness binds sampled textures and samplers)"
        );
    }

    /// A sampler that samples a depth texture, an integer one or one the harness does not bind
    /// (the palette's), through a function too, does not filter; one that samples only bound
    /// float textures does.
    #[test]
    fn samplers_filter_only_bound_float_textures() {
        let src = "@group(0) @binding(0) var s_depth: sampler;
            @group(0) @binding(1) var depth: texture_depth_2d;
            @group(0) @binding(2) var s_uint: sampler;
            @group(0) @binding(3) var ids: texture_2d<u32>;
            @group(0) @binding(4) var s_bones: sampler;
            @group(0) @binding(5) var bones: texture_2d<f32>;
            @group(0) @binding(6) var s_colour: sampler;
            @group(0) @binding(7) var colour: texture_2d<f32>;
            fn read(t: texture_2d<f32>, s: sampler) -> vec4<f32> { return textureSampleLevel(t, s, vec2(0.5), 0.0); }
            @vertex fn vs() -> @builtin(position) vec4<f32> {
                return vec4(textureSampleLevel(depth, s_depth, vec2(0.5), 0)) + vec4<f32>(textureGather(0, ids, s_uint, vec2(0.5)))
                    + read(bones, s_bones) + read(colour, s_colour);
            }";
        let module = naga::front::wgsl::parse_str(src).unwrap();
        let info = crate::validator::strict().validate(&module).unwrap();
        let named = |n: &str| {
            (module.global_variables.iter())
                .find(|(_, v)| v.name.as_deref() == Some(n))
                .unwrap()
                .0
        };
        // Every binding but the palette texture is the harness's to bind.
        let bound: Vec<_> = [
            "s_depth", "depth", "s_uint", "ids", "s_bones", "s_colour", "colour",
        ]
        .map(named)
        .to_vec();
        let names: Vec<_> = (non_filtering(&module, &info, &bound).into_iter())
            .map(|g| module.global_variables[g].name.clone().unwrap())
            .collect();
        assert_eq!(names, ["s_depth", "s_uint", "s_bones"]);
        let sampler = of("@group(0) @binding(0) var s: sampler;").unwrap();
        assert_eq!(
            sampler.filtering(false).binding_type(),
            wgpu::BindingType::Sampler(wgpu::SamplerBindingType::NonFiltering)
        );
        assert_eq!(
            sampler.binding_type(),
            wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering)
        );
    }

    #[test]
    fn texels_hold_the_values_in_the_format() {
        let float = of("@group(0) @binding(0) var t: texture_2d<f32>;")
            .unwrap()
            .texture()
            .unwrap();
        let texel = float.texel(&[1.0, 0.5]).unwrap();
        let halves: Vec<f32> = texel
            .chunks(2)
            .map(|b| half::f16::from_le_bytes([b[0], b[1]]).to_f32())
            .collect();
        assert_eq!(halves, [1.0, 0.5, 0.0, 0.0]);
        let uint = of("@group(0) @binding(0) var t: texture_2d<u32>;")
            .unwrap()
            .texture()
            .unwrap();
        assert_eq!(uint.texel(&[3.0]).unwrap()[..4], 3u32.to_le_bytes());
        let why = uint.texel(&[1.0, -1.0]).unwrap_err();
        assert_eq!(
            why,
            "its texels hold u32, and `floats` value 1 (-1) is not one"
        );
        assert!(uint.texel(&[0.5]).is_err());
        let why = float.texel(&[1e5]).unwrap_err();
        assert!(
            why.contains("value 0 (100000) is past their range (±65504)"),
            "{why}"
        );
    }
}
