//! The one naga validator every reading of a shader goes through, so that the harness accepts
//! exactly what it builds pipelines from.

/// What a shader is validated under: naga's defaults, the core WGSL builtins wgpu gates behind a
/// downlevel flag (`pack2x16float` and `unpack2x16float`, `SHADER_F16_IN_F32`: engines pack
/// half-float normals with them), and immediate data (`var<immediate>`, native engines' push
/// constants, wgpu's `IMMEDIATES` feature); an adapter without them then refuses the shader in
/// its own trials.
pub const CAPABILITIES: naga::valid::Capabilities = naga::valid::Capabilities::MULTISAMPLED_SHADING
    .union(naga::valid::Capabilities::CUBE_ARRAY_TEXTURES)
    .union(naga::valid::Capabilities::SHADER_FLOAT16_IN_FLOAT32)
    .union(naga::valid::Capabilities::IMMEDIATES);

/// A validator of every rule under [`CAPABILITIES`].
pub fn strict() -> naga::valid::Validator {
    naga::valid::Validator::new(naga::valid::ValidationFlags::all(), CAPABILITIES)
}
