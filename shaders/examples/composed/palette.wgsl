#define_import_path skin::palette

// The joint matrices, pre-multiplied (global * inverse bind), one per joint.
@group(1) @binding(0) var<storage, read> joint_matrices: array<mat4x4<f32>>;

fn joint_matrix(j: u32) -> mat4x4<f32> {
    return joint_matrices[j];
}
