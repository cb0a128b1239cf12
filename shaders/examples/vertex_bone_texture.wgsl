// A vertex stage that reads its bones from a float texture, laid out as WebGL-era renderers lay
// their bone texture out: four texels a bone (its matrix's columns), bone after bone, row by row
// in a power-of-two square texture whose size the shader reads from the texture itself. The
// skinning is inline in the entry point.

@group(0) @binding(0) var<uniform> view_projection: mat4x4<f32>;
@group(0) @binding(1) var bone_texture: texture_2d<f32>;

fn bone_matrix(bone: u32) -> mat4x4<f32> {
    let size = textureDimensions(bone_texture).x;
    let first = bone * 4u;
    let x = first % size;
    let y = first / size;
    return mat4x4<f32>(
        textureLoad(bone_texture, vec2<u32>(x, y), 0),
        textureLoad(bone_texture, vec2<u32>(x + 1u, y), 0),
        textureLoad(bone_texture, vec2<u32>(x + 2u, y), 0),
        textureLoad(bone_texture, vec2<u32>(x + 3u, y), 0),
    );
}

struct VertexOutput {
    @builtin(position) clip: vec4<f32>,
    @location(0) weight: f32,
}

@vertex
fn vs_main(
    @location(0) position: vec3<f32>,
    @location(1) skin_index: vec4<u32>,
    @location(2) skin_weight: vec4<f32>,
) -> VertexOutput {
    var skin = skin_weight.x * bone_matrix(skin_index.x);
    skin += skin_weight.y * bone_matrix(skin_index.y);
    skin += skin_weight.z * bone_matrix(skin_index.z);
    skin += skin_weight.w * bone_matrix(skin_index.w);
    var out: VertexOutput;
    out.clip = view_projection * skin * vec4<f32>(position, 1.0);
    out.weight = skin_weight.x;
    return out;
}

@fragment
fn fs_main(in: VertexOutput) -> @location(0) vec4<f32> {
    let shade = 0.5 + 0.5 * in.weight;
    return vec4<f32>(shade, shade, shade, 1.0);
}
