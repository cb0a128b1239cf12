// A vertex-only skinning shader laid out as engines lay theirs out: the four joint matrices are
// blended first and the position is transformed once; the palette is one storage buffer in the
// material's group shared by many draws, each reading from its own base offset.

struct Camera {
    view_proj: mat4x4<f32>,
}

struct Draw {
    palette_offset: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<uniform> camera: Camera;
@group(2) @binding(0) var<storage, read> bones: array<mat4x4<f32>>;
@group(2) @binding(1) var<uniform> draw: Draw;

struct VertexIn {
    @location(0) position: vec3<f32>,
    @location(3) joints: vec4<u32>,
    @location(4) weights: vec4<f32>,
}

struct VertexOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) shade: f32,
}

fn skin_matrix(joints: vec4<u32>, weights: vec4<f32>) -> mat4x4<f32> {
    let o = draw.palette_offset;
    return bones[o + joints.x] * weights.x
        + bones[o + joints.y] * weights.y
        + bones[o + joints.z] * weights.z
        + bones[o + joints.w] * weights.w;
}

@vertex
fn vs_main(in: VertexIn) -> VertexOut {
    let world = skin_matrix(in.joints, in.weights) * vec4<f32>(in.position, 1.0);
    var out: VertexOut;
    out.clip = camera.view_proj * world;
    out.shade = 0.8;
    return out;
}

@fragment
fn fs_main(@location(0) shade: f32) -> @location(0) vec4<f32> {
    return vec4<f32>(shade, shade, shade, 1.0);
}
