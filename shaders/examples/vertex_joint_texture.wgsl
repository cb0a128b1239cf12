// A vertex stage that reads its joints from a float texture laid out as the glTF Sample Viewer
// lays its joint texture out: each joint's matrix (four texels, its columns) and then its normal
// matrix (four more, the inverse transpose as a mat4x4), eight texels a joint, row by row at the
// width the shader reads from the texture. The skinning is inline in the entry point: the
// position by the blended matrix, the normal by the blend of the joints' normal matrices,
// renormalised and returned for the fragment stage.

@group(0) @binding(0) var<uniform> view_projection: mat4x4<f32>;
@group(1) @binding(0) var joint_texture: texture_2d<f32>;

// The matrix whose four columns start at texel `first`.
fn texture_matrix(first: u32) -> mat4x4<f32> {
    let width = textureDimensions(joint_texture).x;
    var m: mat4x4<f32>;
    for (var c = 0u; c < 4u; c++) {
        let t = first + c;
        m[c] = textureLoad(joint_texture, vec2<u32>(t % width, t / width), 0);
    }
    return m;
}

struct Attributes {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) uv: vec2<f32>,
    @location(3) joints: vec4<u32>,
    @location(4) weights: vec4<f32>,
}

struct Varyings {
    @builtin(position) clip: vec4<f32>,
    @location(0) normal: vec3<f32>,
    @location(1) uv: vec2<f32>,
}

@vertex
fn vs_main(in: Attributes) -> Varyings {
    var skin = mat4x4<f32>(vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0));
    var normal_skin = skin;
    for (var k = 0u; k < 4u; k++) {
        let first = in.joints[k] * 8u;
        skin += in.weights[k] * texture_matrix(first);
        normal_skin += in.weights[k] * texture_matrix(first + 4u);
    }
    var out: Varyings;
    out.clip = view_projection * skin * vec4<f32>(in.position, 1.0);
    out.normal = normalize((normal_skin * vec4<f32>(in.normal, 0.0)).xyz);
    out.uv = in.uv;
    return out;
}

@fragment
fn fs_main(in: Varyings) -> @location(0) vec4<f32> {
    let light = max(dot(normalize(in.normal), vec3<f32>(0.0, 0.0, 1.0)), 0.2);
    return vec4<f32>(vec3<f32>(light), 1.0);
}
