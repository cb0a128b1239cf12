// A vertex stage laid out as hand-written WebGPU renderers often lay theirs out: one uniform per
// draw holds the model, view and projection matrices, the bone matrices and a material value,
// and the entry point skins inline, with no skinning function of its own. The profile names the
// palette and the projection as members of that uniform.

const MAX_BONES: u32 = 256u;

struct Uniforms {
    model: mat4x4<f32>,
    view: mat4x4<f32>,
    projection: mat4x4<f32>,
    bones: array<mat4x4<f32>, MAX_BONES>,
    alpha_cutoff: f32,
}

@group(0) @binding(0) var<uniform> uniforms: Uniforms;

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
    let skin = in.weights.x * uniforms.bones[in.joints.x]
        + in.weights.y * uniforms.bones[in.joints.y]
        + in.weights.z * uniforms.bones[in.joints.z]
        + in.weights.w * uniforms.bones[in.joints.w];
    let model = uniforms.model * skin;
    var out: VertexOut;
    out.clip = uniforms.projection * uniforms.view * model * vec4<f32>(in.position, 1.0);
    out.normal = (model * vec4<f32>(in.normal, 0.0)).xyz;
    return out;
}

// Never black, and never discarded: the harness compares coverage.
@fragment
fn fs_main(in: VertexOut) -> @location(0) vec4<f32> {
    let shade = 0.6 + 0.2 * clamp(in.normal.z, -1.0, 1.0);
    if (shade < uniforms.alpha_cutoff) {
        discard;
    }
    return vec4<f32>(shade, shade, shade, 1.0);
}
