// A vertex-only skinning shader with the palette split in two, as animation systems upload it:
// the joints' global matrices and their inverse binds, multiplied per influence in the shader;
// joints as four bytes and weights as four unorm bytes per vertex.

@group(0) @binding(0) var<uniform> view_proj: mat4x4<f32>;
@group(1) @binding(0) var<storage, read> joint_globals: array<mat4x4<f32>>;
@group(1) @binding(1) var<storage, read> inverse_binds: array<mat4x4<f32>>;

fn skin_position(position: vec3<f32>, joints: vec4<u32>, weights: vec4<f32>) -> vec3<f32> {
    let p = vec4<f32>(position, 1.0);
    var acc = vec3<f32>(0.0);
    for (var k = 0u; k < 4u; k++) {
        let j = joints[k];
        acc += weights[k] * (joint_globals[j] * (inverse_binds[j] * p)).xyz;
    }
    return acc;
}

@vertex
fn skinned_vertex(
    @location(0) position: vec3<f32>,
    @location(1) joints: vec4<u32>,
    @location(2) weights: vec4<f32>,
) -> @builtin(position) vec4<f32> {
    return view_proj * vec4<f32>(skin_position(position, joints, weights), 1.0);
}
