// A vertex-only skinning shader that also skins normals and tangents, as a lit material does: the
// joint matrices are blended once, the position goes through the blend, the normal through the
// inverse transpose of its upper-left 3x3 (the cofactor over the determinant), the tangent through
// the 3x3 itself, both renormalised, the tangent's handedness w kept. The skinned normal and
// tangent are inter-stage values; the harness compares them through `skin_normal` and
// `skin_tangent`, which the vertex stage calls.

struct Camera {
    view_proj: mat4x4<f32>,
}

@group(0) @binding(0) var<uniform> camera: Camera;
// A runtime-sized array as a struct's only member, as WGSL once required.
struct Bones {
    matrices: array<mat4x4<f32>>,
}

@group(1) @binding(0) var<storage, read> bones: Bones;

// The mesh's world matrix and the light, as a renderer binds them per draw; the profile has the
// harness fill them (`bindings`): the identity, and a light along +z.
struct Mesh {
    world_from_local: mat4x4<f32>,
}

@group(2) @binding(0) var<uniform> mesh: Mesh;
@group(2) @binding(1) var<uniform> light_dir: vec4<f32>;

struct VertexIn {
    @location(0) position: vec3<f32>,
    @location(1) joints: vec4<u32>,
    @location(2) weights: vec4<f32>,
    @location(3) normal: vec3<f32>,
    @location(4) tangent: vec4<f32>,
}

struct VertexOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) normal: vec3<f32>,
    @location(1) tangent: vec4<f32>,
}

fn skin_matrix(joints: vec4<u32>, weights: vec4<f32>) -> mat4x4<f32> {
    return bones.matrices[joints.x] * weights.x
        + bones.matrices[joints.y] * weights.y
        + bones.matrices[joints.z] * weights.z
        + bones.matrices[joints.w] * weights.w;
}

fn upper3(m: mat4x4<f32>) -> mat3x3<f32> {
    return mat3x3<f32>(m[0].xyz, m[1].xyz, m[2].xyz);
}

// A^-T = cof(A) / det(A): the cofactor's columns are the cross products of A's columns.
fn normal_matrix(a: mat3x3<f32>) -> mat3x3<f32> {
    let d = determinant(a);
    return mat3x3<f32>(cross(a[1], a[2]) / d, cross(a[2], a[0]) / d, cross(a[0], a[1]) / d);
}

fn skin_normal(normal: vec3<f32>, joints: vec4<u32>, weights: vec4<f32>) -> vec3<f32> {
    return normalize(normal_matrix(upper3(skin_matrix(joints, weights))) * normal);
}

fn skin_tangent(tangent: vec4<f32>, joints: vec4<u32>, weights: vec4<f32>) -> vec4<f32> {
    return vec4<f32>(normalize(upper3(skin_matrix(joints, weights)) * tangent.xyz), tangent.w);
}

@vertex
fn vs_main(in: VertexIn) -> VertexOut {
    let local = skin_matrix(in.joints, in.weights) * vec4<f32>(in.position, 1.0);
    var out: VertexOut;
    out.clip = camera.view_proj * (mesh.world_from_local * local);
    out.normal = skin_normal(in.normal, in.joints, in.weights);
    out.tangent = skin_tangent(in.tangent, in.joints, in.weights);
    return out;
}

// Shaded by the normal, never black: coverage is what the harness compares.
@fragment
fn fs_main(@location(0) normal: vec3<f32>, @location(1) tangent: vec4<f32>) -> @location(0) vec4<f32> {
    let n = normalize(normal);
    let light = 0.4 + 0.5 * abs(dot(n, light_dir.xyz)) + 0.1 * tangent.w * tangent.x;
    return vec4<f32>(light, light, light, 1.0);
}
