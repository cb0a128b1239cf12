// A vertex stage laid out as engines that keep three influences a vertex lay theirs out (the
// joint indices an ivec3, the weights a vec3, as ThinMatrix's OpenGL animation tutorial stores
// them, MAX_WEIGHTS = 3): one uniform block holding a fixed array of 256 joint matrices, the
// camera and the model's transform, the skinning a loop over the three influences in the entry
// point, the normal moved by the same blended matrix and lit in the fragment stage.

const MAX_WEIGHTS: i32 = 3;

struct Uniforms {
    joint_transforms: array<mat4x4<f32>, 256>,
    projection_view: mat4x4<f32>,
    transformation: mat4x4<f32>,
}

@group(0) @binding(0) var<uniform> u: Uniforms;

struct VertexIn {
    @location(0) position: vec3<f32>,
    @location(1) texture_coords: vec2<f32>,
    @location(2) normal: vec3<f32>,
    @location(3) joint_indices: vec3<i32>,
    @location(4) weights: vec3<f32>,
}

struct VertexOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) texture_coords: vec2<f32>,
    @location(1) normal: vec3<f32>,
}

@vertex
fn vs_main(in: VertexIn) -> VertexOut {
    var total_local_pos = vec4<f32>(0.0);
    var total_normal = vec4<f32>(0.0);
    for (var i = 0; i < MAX_WEIGHTS; i++) {
        let joint_transform = u.joint_transforms[in.joint_indices[i]];
        total_local_pos += joint_transform * vec4<f32>(in.position, 1.0) * in.weights[i];
        total_normal += joint_transform * vec4<f32>(in.normal, 0.0) * in.weights[i];
    }
    var out: VertexOut;
    out.clip = u.projection_view * u.transformation * total_local_pos;
    out.normal = (u.transformation * total_normal).xyz;
    out.texture_coords = in.texture_coords;
    return out;
}

@fragment
fn fs_main(in: VertexOut) -> @location(0) vec4<f32> {
    let light = normalize(vec3<f32>(0.2, -0.3, 1.0));
    let diffuse = max(dot(normalize(in.normal), light), 0.2);
    return vec4<f32>(vec3<f32>(diffuse), 1.0);
}
