#define_import_path skin::blend

#import skin::palette::joint_matrix

// The first INFLUENCES joint matrices blended; with SKINNING off, the first joint's alone.
fn skin_matrix(joints: vec4<u32>, weights: vec4<f32>) -> mat4x4<f32> {
#ifdef SKINNING
    var m = mat4x4<f32>();
    for (var k = 0u; k < #{INFLUENCES}u; k = k + 1u) {
        m = m + joint_matrix(joints[k]) * weights[k];
    }
    return m;
#else
    return joint_matrix(joints.x);
#endif
}
