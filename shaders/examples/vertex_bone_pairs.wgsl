// A vertex stage laid out as libGDX's default shader lays out its skinning: one `vec2<f32>`
// attribute an influence (`a_boneWeight0` to `a_boneWeight3`), each a joint index held as a float
// and its weight, summed into the skinning matrix from a zero one; the bones a uniform array, the
// model's local and world transforms around them. The profile says so with `vertex.pairs`.

struct Camera {
    proj_trans: mat4x4<f32>,
}

struct Model {
    local_trans: mat4x4<f32>,
    model_trans: mat4x4<f32>,
}

struct Bones {
    bones: array<mat4x4<f32>, 256>,
}

@group(0) @binding(0) var<uniform> camera: Camera;
@group(0) @binding(1) var<uniform> model: Model;
@group(1) @binding(0) var<uniform> u_bones: Bones;

struct VertexIn {
    @location(0) a_position: vec3<f32>,
    @location(1) a_normal: vec3<f32>,
    @location(2) a_boneWeight0: vec2<f32>,
    @location(3) a_boneWeight1: vec2<f32>,
    @location(4) a_boneWeight2: vec2<f32>,
    @location(5) a_boneWeight3: vec2<f32>,
}

struct VertexOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) v_normal: vec3<f32>,
}

fn bone(pair: vec2<f32>) -> mat4x4<f32> {
    return pair.y * u_bones.bones[i32(pair.x)];
}

@vertex
fn vs_main(in: VertexIn) -> VertexOut {
    var skinning = mat4x4<f32>();
    skinning += bone(in.a_boneWeight0);
    skinning += bone(in.a_boneWeight1);
    skinning += bone(in.a_boneWeight2);
    skinning += bone(in.a_boneWeight3);
    let pos = model.model_trans * ((skinning * model.local_trans) * vec4<f32>(in.a_position, 1.0));
    var out: VertexOut;
    out.clip = camera.proj_trans * pos;
    out.v_normal = normalize((skinning * vec4<f32>(in.a_normal, 0.0)).xyz);
    return out;
}
