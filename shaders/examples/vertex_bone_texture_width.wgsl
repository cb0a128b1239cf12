// A vertex stage that reads its bones from a float texture one row high, four texels a bone, at
// texel centres through a sampler, by a width the renderer passes in a uniform beside it and never
// asks the texture for, as Babylon.js reads its bone sampler (`boneTextureWidth`) and older
// three.js its `boneTextureSize`. Its joint indices are floats, as Babylon's `matricesIndices`.
// The profile names the width's member (`bindings`' `texture_width`): the harness writes each
// case's texture width there.

@group(0) @binding(0) var<uniform> view_projection: mat4x4<f32>;

struct BoneInfo {
    bone_texture_width: f32,
}

@group(1) @binding(0) var bone_sampler: texture_2d<f32>;
@group(1) @binding(1) var bone_sampler_sampler: sampler;
@group(1) @binding(2) var<uniform> bone_info: BoneInfo;

fn read_matrix(index: f32) -> mat4x4<f32> {
    let offset = index * 4.0;
    let dx = 1.0 / bone_info.bone_texture_width;
    return mat4x4<f32>(
        textureSampleLevel(bone_sampler, bone_sampler_sampler, vec2<f32>(dx * (offset + 0.5), 0.5), 0.0),
        textureSampleLevel(bone_sampler, bone_sampler_sampler, vec2<f32>(dx * (offset + 1.5), 0.5), 0.0),
        textureSampleLevel(bone_sampler, bone_sampler_sampler, vec2<f32>(dx * (offset + 2.5), 0.5), 0.0),
        textureSampleLevel(bone_sampler, bone_sampler_sampler, vec2<f32>(dx * (offset + 3.5), 0.5), 0.0),
    );
}

struct VertexOutput {
    @builtin(position) clip: vec4<f32>,
    @location(0) weight: f32,
}

@vertex
fn vs_main(
    @location(0) position: vec3<f32>,
    @location(1) matrices_indices: vec4<f32>,
    @location(2) matrices_weights: vec4<f32>,
) -> VertexOutput {
    var influence = read_matrix(matrices_indices.x) * matrices_weights.x;
    influence += read_matrix(matrices_indices.y) * matrices_weights.y;
    influence += read_matrix(matrices_indices.z) * matrices_weights.z;
    influence += read_matrix(matrices_indices.w) * matrices_weights.w;
    var out: VertexOutput;
    out.clip = view_projection * influence * vec4<f32>(position, 1.0);
    out.weight = matrices_weights.x;
    return out;
}

@fragment
fn fs_main(in: VertexOutput) -> @location(0) vec4<f32> {
    let shade = 0.5 + 0.5 * in.weight;
    return vec4<f32>(shade, shade, shade, 1.0);
}
