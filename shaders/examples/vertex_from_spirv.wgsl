// A vertex stage as naga writes it from SPIR-V compiled from GLSL for Vulkan (glslangValidator
// -V, then `naga skin.spv skin.wgsl`): its inputs and outputs kept in private globals, the
// skinning in a `main_1` the entry point calls, unnamed buffers, and clip y negated after the
// camera (naga turns Vulkan's downward y into WebGPU's upward one).
//
// The GLSL it was made from:
//   layout(set=0, binding=0) uniform vs_params { mat4 view_proj; mat4 model; };
//   layout(set=0, binding=1, std430) readonly buffer Bones { mat4 bones[]; };
//   layout(location=0) in vec3 position;
//   layout(location=1) in vec3 normal;
//   layout(location=2) in uvec4 joints;
//   layout(location=3) in vec4 weights;
//   layout(location=0) out vec3 v_normal;
//   void main() {
//     mat4 skin = weights.x * bones[joints.x] + weights.y * bones[joints.y]
//               + weights.z * bones[joints.z] + weights.w * bones[joints.w];
//     vec4 world = model * skin * vec4(position, 1.0);
//     gl_Position = view_proj * world;
//     v_normal = normalize(mat3(model * skin) * normal);
//   }

struct Bones {
    bones: array<mat4x4<f32>>,
}

struct vs_params {
    view_proj: mat4x4<f32>,
    model: mat4x4<f32>,
}

struct gl_PerVertex {
    @builtin(position) gl_Position: vec4<f32>,
    gl_PointSize: f32,
    gl_ClipDistance: array<f32, 1>,
    gl_CullDistance: array<f32, 1>,
}

struct VertexOutput {
    @builtin(position) gl_Position: vec4<f32>,
    @location(0) member: vec3<f32>,
}

var<private> weights_1: vec4<f32>;
@group(0) @binding(1) 
var<storage> unnamed: Bones;
var<private> joints_1: vec4<u32>;
@group(0) @binding(0) 
var<uniform> unnamed_1: vs_params;
var<private> position_1: vec3<f32>;
var<private> unnamed_2: gl_PerVertex = gl_PerVertex(vec4<f32>(0f, 0f, 0f, 1f), 1f, array<f32, 1>(), array<f32, 1>());
var<private> v_normal: vec3<f32>;
var<private> normal_1: vec3<f32>;

fn main_1() {
    var skin: mat4x4<f32>;
    var world: vec4<f32>;

    let _e18 = weights_1[0u];
    let _e20 = joints_1[0u];
    let _e23 = unnamed.bones[_e20];
    let _e24 = (_e23 * _e18);
    let _e26 = weights_1[1u];
    let _e28 = joints_1[1u];
    let _e31 = unnamed.bones[_e28];
    let _e32 = (_e31 * _e26);
    let _e45 = mat4x4<f32>((_e24[0] + _e32[0]), (_e24[1] + _e32[1]), (_e24[2] + _e32[2]), (_e24[3] + _e32[3]));
    let _e47 = weights_1[2u];
    let _e49 = joints_1[2u];
    let _e52 = unnamed.bones[_e49];
    let _e53 = (_e52 * _e47);
    let _e66 = mat4x4<f32>((_e45[0] + _e53[0]), (_e45[1] + _e53[1]), (_e45[2] + _e53[2]), (_e45[3] + _e53[3]));
    let _e68 = weights_1[3u];
    let _e70 = joints_1[3u];
    let _e73 = unnamed.bones[_e70];
    let _e74 = (_e73 * _e68);
    skin = mat4x4<f32>((_e66[0] + _e74[0]), (_e66[1] + _e74[1]), (_e66[2] + _e74[2]), (_e66[3] + _e74[3]));
    let _e89 = unnamed_1.model;
    let _e90 = skin;
    let _e92 = position_1;
    world = ((_e89 * _e90) * vec4<f32>(_e92.x, _e92.y, _e92.z, 1f));
    let _e99 = unnamed_1.view_proj;
    let _e100 = world;
    unnamed_2.gl_Position = (_e99 * _e100);
    let _e104 = unnamed_1.model;
    let _e105 = skin;
    let _e106 = (_e104 * _e105);
    let _e114 = normal_1;
    v_normal = normalize((mat3x3<f32>(_e106[0].xyz, _e106[1].xyz, _e106[2].xyz) * _e114));
    return;
}

@vertex 
fn main(@location(3) weights: vec4<f32>, @location(2) joints: vec4<u32>, @location(0) position: vec3<f32>, @location(1) normal: vec3<f32>) -> VertexOutput {
    weights_1 = weights;
    joints_1 = joints;
    position_1 = position;
    normal_1 = normal;
    main_1();
    let _e12 = unnamed_2.gl_Position.y;
    unnamed_2.gl_Position.y = -(_e12);
    let _e14 = unnamed_2.gl_Position;
    let _e15 = v_normal;
    return VertexOutput(_e14, _e15);
}
