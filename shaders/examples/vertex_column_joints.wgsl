// A vertex stage laid out as Cocos Creator lays out its uniform skinning: three vec4 a joint in
// one uniform array, each a column's xyz with one component of the translation in its w, which
// the stage rebuilds into a mat4x4 (`mat4(vec4(v1.xyz, 0), ..., vec4(v1.w, v2.w, v3.w, 1))`).
// The profile says so with `matrix: columns_translation`.

const JOINT_CAPACITY: u32 = 256u;

struct Skinning {
    // JOINT_CAPACITY joints, three vec4 each.
    joints: array<vec4<f32>, 768>,
}

@group(0) @binding(0) var<uniform> view_proj: mat4x4<f32>;
@group(0) @binding(1) var<uniform> skinning: Skinning;

fn joint_matrix(i: u32) -> mat4x4<f32> {
    let v1 = skinning.joints[i * 3u];
    let v2 = skinning.joints[i * 3u + 1u];
    let v3 = skinning.joints[i * 3u + 2u];
    return mat4x4<f32>(
        vec4<f32>(v1.xyz, 0.0),
        vec4<f32>(v2.xyz, 0.0),
        vec4<f32>(v3.xyz, 0.0),
        vec4<f32>(v1.w, v2.w, v3.w, 1.0),
    );
}

fn skin_matrix(joints: vec4<u32>, weights: vec4<f32>) -> mat4x4<f32> {
    return joint_matrix(joints.x) * weights.x
        + joint_matrix(joints.y) * weights.y
        + joint_matrix(joints.z) * weights.z
        + joint_matrix(joints.w) * weights.w;
}

struct VertexIn {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) joints: vec4<u32>,
    @location(3) weights: vec4<f32>,
}

struct VertexOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) normal: vec3<f32>,
}

@vertex
fn vs_main(in: VertexIn) -> VertexOut {
    let m = skin_matrix(in.joints, in.weights);
    var out: VertexOut;
    out.clip = view_proj * m * vec4<f32>(in.position, 1.0);
    out.normal = normalize((m * vec4<f32>(in.normal, 0.0)).xyz);
    return out;
}
