#version 450
// A vertex stage as a Vulkan engine writes it in GLSL and hands it to wgpu as
// `ShaderSource::Glsl` (naga's GLSL front end): a camera block with a view and a projection, the
// palette a fixed uniform array beside its joint count, joint indices as whole floats, skinning
// switched on by a define, normals moved by the inverse transpose (GLSL's `inverse`, which WGSL
// lacks: naga writes a helper), and clip y negated for Vulkan's downward y.

layout(set = 0, binding = 0) uniform Camera {
    mat4 projection;
    mat4 view;
} camera;

layout(set = 1, binding = 0) uniform Skin {
    mat4 joints[256];
    uint joint_count;
} skin;

layout(location = 0) in vec3 in_position;
layout(location = 1) in vec3 in_normal;
layout(location = 2) in vec4 in_joints;
layout(location = 3) in vec4 in_weights;

layout(location = 0) out vec3 out_normal;

void main() {
#ifdef SKINNED
    mat4 skin_matrix = in_weights.x * skin.joints[int(in_joints.x)]
                     + in_weights.y * skin.joints[int(in_joints.y)]
                     + in_weights.z * skin.joints[int(in_joints.z)]
                     + in_weights.w * skin.joints[int(in_joints.w)];
#else
    mat4 skin_matrix = mat4(1.0);
#endif
    gl_Position = camera.projection * camera.view * skin_matrix * vec4(in_position, 1.0);
    gl_Position.y = -gl_Position.y;
    out_normal = normalize(transpose(inverse(mat3(skin_matrix))) * in_normal);
}
