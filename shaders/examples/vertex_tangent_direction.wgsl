// A vertex-only skinning shader whose tangent comes in as a glTF vec4 (xyz the direction, w the
// handedness) and goes out as its direction alone, a vec3, the handedness spent on a bitangent
// beside it, as CesiumJS's and Fyrox's stages do. The palette is blended into one matrix, which
// moves the position, the normal and the tangent (`normal_matrix: blended`). No skinning function:
// the harness compares the entry point through a copy of it, its skinned normal and its vec3
// tangent by direction (`vertex.skinned_tangent`'s `format: vec3`).

struct Camera {
    view_proj: mat4x4<f32>,
}

@group(0) @binding(0) var<uniform> camera: Camera;
@group(1) @binding(0) var<storage, read> joint_matrices: array<mat4x4<f32>>;

struct VertexIn {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) tangent: vec4<f32>,
    @location(3) joints: vec4<u32>,
    @location(4) weights: vec4<f32>,
}

struct VertexOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) normal: vec3<f32>,
    @location(1) tangent: vec3<f32>,
    @location(2) bitangent: vec3<f32>,
}

@vertex
fn vs_main(in: VertexIn) -> VertexOut {
    let skin = joint_matrices[in.joints.x] * in.weights.x
        + joint_matrices[in.joints.y] * in.weights.y
        + joint_matrices[in.joints.z] * in.weights.z
        + joint_matrices[in.joints.w] * in.weights.w;
    let linear = mat3x3<f32>(skin[0].xyz, skin[1].xyz, skin[2].xyz);
    var out: VertexOut;
    out.clip = camera.view_proj * (skin * vec4<f32>(in.position, 1.0));
    out.normal = normalize(linear * in.normal);
    out.tangent = normalize(linear * in.tangent.xyz);
    out.bitangent = cross(out.normal, out.tangent) * in.tangent.w;
    return out;
}

// Shaded by the frame, never black: coverage is what the harness compares.
@fragment
fn fs_main(
    @location(0) normal: vec3<f32>,
    @location(1) tangent: vec3<f32>,
    @location(2) bitangent: vec3<f32>,
) -> @location(0) vec4<f32> {
    let light = 0.5 + 0.3 * abs(normalize(normal).z) + 0.1 * abs(tangent.x) + 0.1 * abs(bitangent.y);
    return vec4<f32>(light, light, light, 1.0);
}
