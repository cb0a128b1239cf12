// A vertex stage whose joints are affine: each joint's transform is the three rows of its 3x4
// matrix (a `mat3x4<f32>`, 48 bytes instead of 64), kept in a struct beside other per-joint
// data and applied row by row with dot products.

struct Joint {
    rows: mat3x4<f32>,
    flags: u32,
}

@group(0) @binding(0) var<uniform> camera: mat4x4<f32>;
@group(0) @binding(1) var<storage, read> joint_data: array<Joint>;

fn skin_position(position: vec3<f32>, indices: vec4<u32>, weights: vec4<f32>) -> vec3<f32> {
    let p = vec4<f32>(position, 1.0);
    var skinned = vec3<f32>(0.0);
    for (var k = 0u; k < 4u; k++) {
        let m = joint_data[indices[k]].rows;
        skinned += weights[k] * vec3<f32>(dot(m[0], p), dot(m[1], p), dot(m[2], p));
    }
    return skinned;
}

@vertex
fn vs_main(
    @location(0) position: vec3<f32>,
    @location(1) indices: vec4<u32>,
    @location(2) weights: vec4<f32>,
) -> @builtin(position) vec4<f32> {
    return camera * vec4<f32>(skin_position(position, indices, weights), 1.0);
}
