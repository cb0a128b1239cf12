// A vertex-only skinning shader split into modules as engines split theirs (naga_oil imports and
// defines): the palette, the blend and the camera each in a module of `composed/`. The profile
// beside it sets `SKINNING` (the skinning path on) and `INFLUENCES` (how many of the four weights
// the blend reads).

#import skin::blend::skin_matrix
#import view::camera::to_clip

struct VertexIn {
    @location(0) position: vec3<f32>,
    @location(1) joints: vec4<u32>,
    @location(2) weights: vec4<f32>,
}

struct VertexOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) shade: f32,
}

// The skinning function the profile names: in the entry module, so its name is the shader's own.
fn skin_position(position: vec3<f32>, joints: vec4<u32>, weights: vec4<f32>) -> vec3<f32> {
    return (skin_matrix(joints, weights) * vec4<f32>(position, 1.0)).xyz;
}

@vertex
fn vs_main(in: VertexIn) -> VertexOut {
    var out: VertexOut;
    out.clip = to_clip(skin_position(in.position, in.joints, in.weights));
    out.shade = 0.8;
    return out;
}

@fragment
fn fs_main(@location(0) shade: f32) -> @location(0) vec4<f32> {
    return vec4<f32>(shade, shade, shade, 1.0);
}
