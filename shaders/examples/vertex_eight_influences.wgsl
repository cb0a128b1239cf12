// A vertex-only skinning shader reading 8 influences per vertex in two sets (glTF's JOINTS_0 /
// WEIGHTS_0 and JOINTS_1 / WEIGHTS_1), u16 joints and f32 weights as vertex attributes. The second
// set is read where the pipeline turns on `@id(8)`, a bool override without a default.

@id(8) override SECOND_SET: bool;

@group(0) @binding(0) var<uniform> view_proj: mat4x4<f32>;
@group(1) @binding(0) var<storage, read> palette: array<mat4x4<f32>>;

fn skin8(
    position: vec3<f32>,
    joints0: vec4<u32>,
    weights0: vec4<f32>,
    joints1: vec4<u32>,
    weights1: vec4<f32>,
) -> vec3<f32> {
    let p = vec4<f32>(position, 1.0);
    var acc = vec3<f32>(0.0);
    for (var k = 0u; k < 4u; k++) {
        acc += weights0[k] * (palette[joints0[k]] * p).xyz;
        if SECOND_SET {
            acc += weights1[k] * (palette[joints1[k]] * p).xyz;
        }
    }
    return acc;
}

@vertex
fn vs_main(
    @location(0) position: vec3<f32>,
    @location(1) joints0: vec4<u32>,
    @location(2) weights0: vec4<f32>,
    @location(3) joints1: vec4<u32>,
    @location(4) weights1: vec4<f32>,
) -> @builtin(position) vec4<f32> {
    return view_proj * vec4<f32>(skin8(position, joints0, weights0, joints1, weights1), 1.0);
}
