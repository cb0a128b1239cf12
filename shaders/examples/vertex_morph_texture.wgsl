// A vertex stage that morphs before it skins, as web engines lay it out: each morph target's
// position deltas in a layer of a `texture_2d_array`, read by vertex index at the texture's
// width, their weights and count in a uniform, and the shader's own fragment stage sampling a
// base colour texture. The harness binds the texture array as the shader declares it (zeros, so
// every morph adds nothing and the skinning is what is compared) and the base colour texture and
// its sampler beside it.

struct Camera {
    view_proj: mat4x4<f32>,
}

struct Morph {
    // Up to 8 targets' weights, four a vector, and how many there are.
    weights: array<vec4<f32>, 2>,
    count: u32,
}

@group(0) @binding(0) var<uniform> camera: Camera;
@group(1) @binding(0) var<storage, read> bones: array<mat4x4<f32>>;
@group(1) @binding(1) var<uniform> morph: Morph;
@group(1) @binding(2) var morph_targets: texture_2d_array<f32>;
@group(2) @binding(0) var base_colour: texture_2d<f32>;
@group(2) @binding(1) var base_sampler: sampler;

struct VertexIn {
    @builtin(vertex_index) index: u32,
    @location(0) position: vec3<f32>,
    @location(1) joints: vec4<u32>,
    @location(2) weights: vec4<f32>,
    @location(3) uv: vec2<f32>,
}

struct VertexOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) uv: vec2<f32>,
}

// The position plus each target's delta for this vertex, times its weight.
fn morphed(position: vec3<f32>, index: u32) -> vec3<f32> {
    let width = textureDimensions(morph_targets).x;
    let at = vec2<u32>(index % width, index / width);
    var p = position;
    for (var i = 0u; i < morph.count; i++) {
        p += morph.weights[i / 4u][i % 4u] * textureLoad(morph_targets, at, i, 0).xyz;
    }
    return p;
}

@vertex
fn vs_main(in: VertexIn) -> VertexOut {
    let skin = bones[in.joints.x] * in.weights.x + bones[in.joints.y] * in.weights.y
        + bones[in.joints.z] * in.weights.z + bones[in.joints.w] * in.weights.w;
    var out: VertexOut;
    out.clip = camera.view_proj * (skin * vec4<f32>(morphed(in.position, in.index), 1.0));
    out.uv = in.uv;
    return out;
}

// Opaque whatever the texture holds: coverage is what the harness compares.
@fragment
fn fs_main(@location(0) uv: vec2<f32>) -> @location(0) vec4<f32> {
    return vec4<f32>(textureSample(base_colour, base_sampler, uv).rgb + vec3<f32>(0.1), 1.0);
}
