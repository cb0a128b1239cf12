// A vertex-only skinning shader whose joints and weights are not vertex attributes: a skin stream
// in storage, one struct a vertex read by `@builtin(vertex_index)` (as engines keep a mesh's skin
// apart from the vertex buffers its other passes share), the joints as u16 pairs in two words,
// low half first. The position and normal are attributes; the skinned normal is an inter-stage
// value the harness compares through a copy of the entry point.

struct Camera {
    view_proj: mat4x4<f32>,
}

@group(0) @binding(0) var<uniform> camera: Camera;
@group(0) @binding(1) var<storage, read> joint_matrices: array<mat4x4<f32>>;

struct SkinVertex {
    weights: vec4<f32>,
    joints_01: u32,
    joints_23: u32,
}

@group(0) @binding(2) var<storage, read> skin: array<SkinVertex>;

struct VertexIn {
    @builtin(vertex_index) index: u32,
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
}

struct VertexOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) normal: vec3<f32>,
}

fn joint(s: SkinVertex, k: u32) -> u32 {
    let word = select(s.joints_01, s.joints_23, k >= 2u);
    return (word >> (16u * (k & 1u))) & 0xffffu;
}

@vertex
fn vs_main(in: VertexIn) -> VertexOut {
    let s = skin[in.index];
    let m = joint_matrices[joint(s, 0u)] * s.weights.x
        + joint_matrices[joint(s, 1u)] * s.weights.y
        + joint_matrices[joint(s, 2u)] * s.weights.z
        + joint_matrices[joint(s, 3u)] * s.weights.w;
    var out: VertexOut;
    out.clip = camera.view_proj * (m * vec4<f32>(in.position, 1.0));
    // The palette's joints keep their scale uniform: the blended 3x3 moves normals, renormalised.
    out.normal = normalize((m * vec4<f32>(in.normal, 0.0)).xyz);
    return out;
}

// Shaded by the normal, never black: coverage is what the harness compares.
@fragment
fn fs_main(@location(0) normal: vec3<f32>) -> @location(0) vec4<f32> {
    return vec4<f32>(0.5 + 0.5 * normalize(normal), 1.0);
}
