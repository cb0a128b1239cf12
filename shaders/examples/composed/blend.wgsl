#define_import_path skin::blend

#import skin::palette::joint_matrix

// The weighted sum of the first INFLUENCES joint matrices; with SKINNING off, the bind pose.
fn skin_matrix(joints: vec4<u32>, weights: vec4<f32>) -> mat4x4<f32> {
#ifdef SKINNING
    var m = mat4x4<f32>();
    for (var k = 0u; k < #{INFLUENCES}u; k = k + 1u) {
        m = m + joint_matrix(joints[k]) * weights[k];
    }
    return m;
#else
    return mat4x4<f32>(
        vec4<f32>(1.0, 0.0, 0.0, 0.0),
        vec4<f32>(0.0, 1.0, 0.0, 0.0),
        vec4<f32>(0.0, 0.0, 1.0, 0.0),
        vec4<f32>(0.0, 0.0, 0.0, 1.0),
    );
#endif
}
