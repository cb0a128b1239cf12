// A renderer's per-instance storage: each instance's world matrix, tint and its own palette of
// 256 joint matrices in one struct, the draw's element taken by @builtin(instance_index) through
// a pointer; the skinning blends the positions each joint transforms, not the matrices.

struct Instance {
    world: mat4x4<f32>,
    tint: vec4<f32>,
    joints: array<mat4x4<f32>, 256>,
}

struct Camera {
    view: mat4x4<f32>,
    view_proj: mat4x4<f32>,
    near: f32,
    far: f32,
}

struct VertexIn {
    @location(0) position: vec3<f32>,
    @location(1) uv: vec2<f32>,
    @location(2) joints: vec4<u32>,
    @location(3) weights: vec4<f32>,
}

struct VertexOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) tint: vec4<f32>,
    @location(1) uv: vec2<f32>,
}

@group(0) @binding(0) var<uniform> camera: Camera;
@group(1) @binding(0) var<storage, read> instances: array<Instance>;

@vertex
fn vs_main(v: VertexIn, @builtin(instance_index) instance: u32) -> VertexOut {
    let inst = &instances[instance];
    let p = vec4<f32>(v.position, 1.0);
    var skinned = vec4<f32>(0.0);
    for (var k = 0u; k < 4u; k++) {
        skinned += ((*inst).joints[v.joints[k]] * p) * v.weights[k];
    }
    var out: VertexOut;
    out.clip = camera.view_proj * vec4<f32>(skinned.xyz, 1.0);
    out.tint = (*inst).tint;
    out.uv = v.uv;
    return out;
}

@fragment
fn fs_main(i: VertexOut) -> @location(0) vec4<f32> {
    return i.tint * vec4<f32>(i.uv, 1.0, 1.0);
}
