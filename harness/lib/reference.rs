//! The CPU linear-blend-skinning oracle: simple, f64 accumulation, obviously correct.
//!
//! Positions: p' = sum_k w_k * (P\[j_k\] * (p, 1)).xyz.
//!
//! Normals and tangents go through the blended matrix M = sum_k w_k * P\[j_k\] (zero weights left
//! out), of which only the upper-left 3x3 A acts on directions:
//!
//! * a tangent lies in the surface, so it moves as the surface does: t' = normalize(A * t.xyz),
//!   its w (the handedness, +1 or -1) kept;
//! * a normal must stay perpendicular to every moved tangent: n'.(A t) = 0 for every t with
//!   n.t = 0, which n' = A^-T * n keeps (n'^T A t = n^T A^-1 A t = n^T t = 0). A^-T = cof(A) /
//!   det(A), where the cofactor matrix's columns are the cross products of A's columns
//!   (a1 x a2, a2 x a0, a0 x a1), so n' = normalize(sign(det A) * cof(A) * n). The plain A gives
//!   the same direction only when A is a rotation times a uniform scale.
//!
//! A shader may skin normals by A itself, as it skins tangents (n' = normalize(A * n)); its
//! profile then says `normal_matrix: blended`, and the normals are compared against that. Or it
//! may keep each joint's own normal matrix (the inverse transpose of its 3x3 A_k, or the same
//! built from A_k's column lengths where the columns are orthogonal) and blend those:
//! n' = normalize(sum_k w_k * A_k^-T * n), with A_k^-T = cof(A_k) / det(A_k) exactly (the
//! weights mix the terms, so each keeps its scale); its profile says `normal_matrix: per_joint`.
//! All three agree where a vertex's joints move it alike (one rotation and uniform scale), and
//! part where they bend apart or scale unevenly; `per_joint` and `blended` agree wherever every
//! joint is a rotation (each one's inverse transpose is itself).
//!
//! A shader may then make its tangent perpendicular to its skinned normal n' (a Gram-Schmidt
//! step, as engines do that build a tangent frame in the vertex stage): t'' = normalize(t' -
//! (t'.n') n'), w kept; its profile says `tangent_frame: orthogonal`. Under the inverse transpose
//! this changes nothing (n'.(A t) = n.t = 0 for a source tangent in the surface); under `blended`
//! or `per_joint` with uneven scale it turns the tangent back into the plane normal to n'.
//!
//! Both are renormalised: M of a blend of rotations is no rotation, and a scale stretches them. A
//! direction that M sends to zero (a singular blend) has no direction: it is returned as zero,
//! and the checks leave such vertices out.

use glam::{DMat3, DVec3, DVec4, Mat4, Vec3};

use crate::format::NormalMatrix;
use crate::rig::Mesh;

/// p' = sum over every influence of every set of `w_k * (skin[j_k] * (p, 1)).xyz`; a zero weight
/// contributes nothing.
pub fn skin(palette: &[Mat4], mesh: &Mesh) -> Vec<[f32; 3]> {
    let palette: Vec<glam::DMat4> = palette.iter().map(|m| m.as_dmat4()).collect();
    mesh.positions
        .iter()
        .enumerate()
        .map(|(v, p)| {
            let p = DVec4::new(p[0] as f64, p[1] as f64, p[2] as f64, 1.0);
            let mut acc = DVec4::ZERO;
            for (j, w) in mesh.influences(v) {
                acc += w as f64 * (palette[j as usize] * p);
            }
            [acc.x as f32, acc.y as f32, acc.z as f32]
        })
        .collect()
}

/// Vertex `v`'s blended matrix M = sum_k w_k * P\[j_k\] over every influence of every set,
/// upper-left 3x3, in f64.
fn blended(palette: &[glam::DMat4], mesh: &Mesh, v: usize) -> DMat3 {
    let mut m = DMat3::ZERO;
    for (j, w) in mesh.influences(v) {
        if w != 0.0 {
            m += DMat3::from_mat4(palette[j as usize]) * w as f64;
        }
    }
    m
}

/// The cofactor matrix of a 3x3: its columns the cross products of `a`'s (module docs).
fn cofactor(a: DMat3) -> DMat3 {
    DMat3::from_cols(
        a.y_axis.cross(a.z_axis),
        a.z_axis.cross(a.x_axis),
        a.x_axis.cross(a.y_axis),
    )
}

/// The inverse transpose of a 3x3, cof(a) / det(a), or None for a singular one.
fn inverse_transpose(a: DMat3) -> Option<DMat3> {
    let det = a.determinant();
    (det != 0.0 && det.is_finite()).then(|| cofactor(a) * (1.0 / det))
}

/// Vertex `v`'s blend of its joints' own normal matrices, sum_k w_k * A_k^-T (zero weights left
/// out); None where a joint with weight has a singular 3x3.
fn blended_per_joint(palette: &[glam::DMat4], mesh: &Mesh, v: usize) -> Option<DMat3> {
    let mut m = DMat3::ZERO;
    for (j, w) in mesh.influences(v) {
        if w != 0.0 {
            m += inverse_transpose(DMat3::from_mat4(palette[j as usize]))? * w as f64;
        }
    }
    Some(m)
}

/// `v / |v|` as f32, or zero when `v` has no direction.
fn unit(v: DVec3) -> [f32; 3] {
    let length = v.length();
    if length > 0.0 && length.is_finite() {
        (v / length).as_vec3().into()
    } else {
        [0.0; 3]
    }
}

/// n' = normalize(sign(det A) * cof(A) * n), the inverse transpose of the blended matrix's 3x3 A
/// up to a positive factor (module docs); or n' = normalize(A * n) where the shader skins
/// normals by `NormalMatrix::Blended`; or n' = normalize(sum_k w_k * A_k^-T * n) by
/// `NormalMatrix::PerJoint` (zero where a joint with weight is singular). Empty when the mesh has
/// no normals.
pub fn skin_normals(palette: &[Mat4], mesh: &Mesh, by: NormalMatrix) -> Vec<[f32; 3]> {
    let palette: Vec<glam::DMat4> = palette.iter().map(|m| m.as_dmat4()).collect();
    (0..mesh.normals.len())
        .map(|v| {
            let n = Vec3::from(mesh.normals[v]).as_dvec3();
            if by == NormalMatrix::PerJoint {
                return blended_per_joint(&palette, mesh, v).map_or([0.0; 3], |m| unit(m * n));
            }
            let a = blended(&palette, mesh, v);
            if by == NormalMatrix::Blended {
                return unit(a * n);
            }
            let sign = if a.determinant() < 0.0 { -1.0 } else { 1.0 };
            unit(sign * (cofactor(a) * n))
        })
        .collect()
}

/// t' = (normalize(A * t.xyz), t.w): the tangent moves with the surface, its handedness kept.
/// Empty when the mesh has no tangents.
pub fn skin_tangents(palette: &[Mat4], mesh: &Mesh) -> Vec<[f32; 4]> {
    let palette: Vec<glam::DMat4> = palette.iter().map(|m| m.as_dmat4()).collect();
    (0..mesh.tangents.len())
        .map(|v| {
            let t = mesh.tangents[v];
            let a = blended(&palette, mesh, v);
            let [x, y, z] = unit(a * DVec3::new(t[0] as f64, t[1] as f64, t[2] as f64));
            [x, y, z, t[3]]
        })
        .collect()
}

/// t'' = (normalize(t' - (t'.n') n'), t'.w): each skinned tangent made perpendicular to the
/// skinned normal beside it (`TangentFrame::Orthogonal`); a tangent along its normal has no
/// direction left and is zero, as is one beside a zero normal (no direction to keep it from).
pub fn orthogonalise(tangents: &[[f32; 4]], normals: &[[f32; 3]]) -> Vec<[f32; 4]> {
    (tangents.iter().zip(normals))
        .map(|(t, n)| {
            let n = Vec3::from(*n).as_dvec3();
            let t3 = DVec3::new(t[0] as f64, t[1] as f64, t[2] as f64);
            if n == DVec3::ZERO {
                return [0.0, 0.0, 0.0, t[3]];
            }
            let [x, y, z] = unit(t3 - t3.dot(n) * n);
            [x, y, z, t[3]]
        })
        .collect()
}

/// The static baseline: p' = (M * (p, 1)).xyz; the oracle of the fast path's static kernel.
#[cfg(test)]
pub(crate) fn transform(m: &Mat4, positions: &[[f32; 3]]) -> Vec<[f32; 3]> {
    positions
        .iter()
        .map(|p| m.transform_point3((*p).into()).into())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rig::{strip, Skeleton};
    use glam::{DQuat, Vec3};

    #[test]
    fn identity_palette_reproduces_positions() {
        let s = Skeleton::chain(3, 1.0);
        let mesh = strip(3, 1.0, 10, 0.5, 2);
        assert_eq!(skin(&s.palette(&s.bind_pose()), &mesh), mesh.positions);
    }

    #[test]
    fn half_weights_average_two_joints() {
        // Joint 0 fixed, joint 1 translated by +2 in X: a vertex weighted 50/50 moves by +1.
        let palette = [
            Mat4::IDENTITY,
            Mat4::from_translation(Vec3::new(2.0, 0.0, 0.0)),
        ];
        let mesh = Mesh {
            positions: vec![[0.0, 1.0, 0.0]],
            joints: vec![[0, 1, 0, 0]],
            weights: vec![[0.5, 0.5, 0.0, 0.0]],
            ..Default::default()
        };
        assert_eq!(skin(&palette, &mesh), vec![[1.0, 1.0, 0.0]]);
    }

    #[test]
    fn zero_weight_contributes_nothing_even_for_nan_matrices() {
        let palette = [Mat4::IDENTITY, Mat4::from_cols_array(&[f32::NAN; 16])];
        let mesh = Mesh {
            positions: vec![[1.0, 2.0, 3.0]],
            joints: vec![[0, 1, 1, 1]],
            weights: vec![[1.0, 0.0, 0.0, 0.0]],
            ..Default::default()
        };
        assert_eq!(skin(&palette, &mesh), vec![[1.0, 2.0, 3.0]]);
    }

    #[test]
    fn bent_chain_by_hand() {
        // Chain of 2 joints, 1 apart; bend joint 1 by 90 degrees about Z.
        // A vertex at (0, 2) fully on joint 1 rotates about (0, 1) to (-1, 1).
        let s = Skeleton::chain(2, 1.0);
        let mut pose = s.bind_pose();
        pose.locals[1].rotation = DQuat::from_rotation_z(std::f64::consts::FRAC_PI_2);
        let mesh = Mesh {
            positions: vec![[0.0, 2.0, 0.0], [0.0, 1.5, 0.0]],
            joints: vec![[1, 0, 0, 0], [0, 1, 0, 0]],
            weights: vec![[1.0, 0.0, 0.0, 0.0], [0.5, 0.5, 0.0, 0.0]],
            ..Default::default()
        };
        let out = skin(&s.palette(&pose), &mesh);
        assert!((out[0][0] + 1.0).abs() < 1e-6 && (out[0][1] - 1.0).abs() < 1e-6);
        // Half of (0, 1.5) and half of (-0.5, 1): (-0.25, 1.25).
        assert!((out[1][0] + 0.25).abs() < 1e-6 && (out[1][1] - 1.25).abs() < 1e-6);
    }

    /// A mesh of one vertex with a normal and a tangent, fully on joint 0 unless `weights` say.
    fn frame(normal: [f32; 3], tangent: [f32; 4], weights: [f32; 4]) -> Mesh {
        Mesh {
            positions: vec![[0.0; 3]],
            joints: vec![[0, 1, 0, 0]],
            weights: vec![weights],
            normals: vec![normal],
            tangents: vec![tangent],
            ..Default::default()
        }
    }

    fn close(a: &[f32], b: &[f32]) -> bool {
        a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-6)
    }

    #[test]
    fn a_non_uniform_scale_moves_normals_by_the_inverse_transpose() {
        // Scale X by 2: the surface x = y (normal (1, -1, 0)/sqrt 2, tangent (1, 1, 0)/sqrt 2)
        // becomes y = x / 2, with tangent (2, 1, 0)/sqrt 5 and normal (1, -2, 0)/sqrt 5; the plain
        // matrix would give (2, -1, 0)/sqrt 5 instead.
        let palette = [Mat4::from_scale(Vec3::new(2.0, 1.0, 1.0)); 2];
        let h = std::f32::consts::FRAC_1_SQRT_2;
        let mesh = frame([h, -h, 0.0], [h, h, 0.0, -1.0], [1.0, 0.0, 0.0, 0.0]);
        let r5 = 1.0 / 5f32.sqrt();
        let it = NormalMatrix::InverseTranspose;
        assert!(close(
            &skin_normals(&palette, &mesh, it)[0],
            &[r5, -2.0 * r5, 0.0]
        ));
        // A shader that declares it skins normals by the blended matrix itself.
        let blended = NormalMatrix::Blended;
        assert!(close(
            &skin_normals(&palette, &mesh, blended)[0],
            &[2.0 * r5, -r5, 0.0]
        ));
        assert!(close(
            &skin_tangents(&palette, &mesh)[0],
            &[2.0 * r5, r5, 0.0, -1.0]
        ));
        // Made perpendicular to that blended normal: t.n = (4 - 1)/5 = 3/5, and (2, 1, 0)/sqrt 5
        // - 3/5 (2, -1, 0)/sqrt 5 = (4/5, 8/5, 0)/sqrt 5, along (1, 2, 0), which is
        // perpendicular to (2, -1, 0); next to the inverse transpose's normal it stays as it was.
        let tangents = skin_tangents(&palette, &mesh);
        let normals = skin_normals(&palette, &mesh, blended);
        assert!(close(
            &orthogonalise(&tangents, &normals)[0],
            &[r5, 2.0 * r5, 0.0, -1.0]
        ));
        let normals = skin_normals(&palette, &mesh, it);
        assert!(close(&orthogonalise(&tangents, &normals)[0], &tangents[0]));
        assert_eq!(
            orthogonalise(&tangents, &[[0.0; 3]]),
            vec![[0.0, 0.0, 0.0, -1.0]]
        );
    }

    #[test]
    fn per_joint_normal_matrices_are_blended_each_at_its_own_scale() {
        // Joint 0 scales X by 2 (A_0^-T = diag(1/2, 1, 1)), joint 1 is the identity; half and
        // half on the normal (1, -1, 0)/sqrt 2. Per joint: (1/2 (1/2, -1, 0) + 1/2 (1, -1, 0))
        // = (3/4, -1, 0), of length 5/4: (0.6, -0.8, 0). The blended matrix diag(3/2, 1, 1) has
        // the inverse transpose diag(2/3, 1, 1): (2, -3, 0)/sqrt 13; itself: (3, -2, 0)/sqrt 13.
        let palette = [Mat4::from_scale(Vec3::new(2.0, 1.0, 1.0)), Mat4::IDENTITY];
        let h = std::f32::consts::FRAC_1_SQRT_2;
        let mesh = frame([h, -h, 0.0], [h, h, 0.0, 1.0], [0.5, 0.5, 0.0, 0.0]);
        let r13 = 1.0 / 13f32.sqrt();
        let per_joint = skin_normals(&palette, &mesh, NormalMatrix::PerJoint);
        assert!(close(&per_joint[0], &[0.6, -0.8, 0.0]), "{per_joint:?}");
        let it = skin_normals(&palette, &mesh, NormalMatrix::InverseTranspose);
        assert!(close(&it[0], &[2.0 * r13, -3.0 * r13, 0.0]), "{it:?}");
        let blended = skin_normals(&palette, &mesh, NormalMatrix::Blended);
        assert!(
            close(&blended[0], &[3.0 * r13, -2.0 * r13, 0.0]),
            "{blended:?}"
        );
        // A joint with weight that collapses a direction has no inverse: no direction.
        let flat = [Mat4::from_scale(Vec3::new(0.0, 1.0, 1.0)), Mat4::IDENTITY];
        assert_eq!(
            skin_normals(&flat, &mesh, NormalMatrix::PerJoint)[0],
            [0.0; 3]
        );
    }

    #[test]
    fn a_blend_of_rotations_is_renormalised() {
        // Joint 1 turns 90 degrees about Z; half and half: A = ((1/2, 1/2, 0), (-1/2, 1/2, 0),
        // (0, 0, 1)) by columns, a turn of 45 degrees shrunk by 0.707 in XY. The tangent (1, 0, 0)
        // goes to (1/2, 1/2, 0), of length 0.707, renormalised to (1, 1, 0)/sqrt 2; A^-T grows XY
        // by 1.414 instead, so the normal (1, 0, 0) goes to (1, 1, 0): renormalised alike.
        let palette = [
            Mat4::IDENTITY,
            Mat4::from_rotation_z(std::f32::consts::FRAC_PI_2),
        ];
        let mesh = frame([1.0, 0.0, 0.0], [1.0, 0.0, 0.0, 1.0], [0.5, 0.5, 0.0, 0.0]);
        let h = std::f32::consts::FRAC_1_SQRT_2;
        // Per joint: 1/2 (1, 0, 0) + 1/2 (0, 1, 0) (the turn's own inverse transpose is itself).
        for by in [
            NormalMatrix::InverseTranspose,
            NormalMatrix::Blended,
            NormalMatrix::PerJoint,
        ] {
            assert!(close(&skin_normals(&palette, &mesh, by)[0], &[h, h, 0.0]));
        }
        assert!(close(&skin_tangents(&palette, &mesh)[0], &[h, h, 0.0, 1.0]));
    }

    #[test]
    fn a_mirror_keeps_the_normal_on_the_surface_side_and_a_collapse_gives_zero() {
        // Mirror X: det < 0, so the cofactor alone would flip the normal; the inverse transpose
        // of diag(-1, 1, 1) is itself, so (1, 0, 0) goes to (-1, 0, 0).
        let mirror = [Mat4::from_scale(Vec3::new(-1.0, 1.0, 1.0)); 2];
        let mesh = frame([1.0, 0.0, 0.0], [0.0, 1.0, 0.0, 1.0], [1.0, 0.0, 0.0, 0.0]);
        let it = NormalMatrix::InverseTranspose;
        assert!(close(
            &skin_normals(&mirror, &mesh, it)[0],
            &[-1.0, 0.0, 0.0]
        ));
        // Scale X to 0: the tangent along X has no direction left.
        let flat = [Mat4::from_scale(Vec3::new(0.0, 1.0, 1.0)); 2];
        let mesh = frame([0.0, 1.0, 0.0], [1.0, 0.0, 0.0, 1.0], [1.0, 0.0, 0.0, 0.0]);
        assert_eq!(skin_tangents(&flat, &mesh)[0], [0.0, 0.0, 0.0, 1.0]);
        assert_eq!(
            skin_normals(&flat, &Mesh::default(), it),
            Vec::<[f32; 3]>::new()
        );
    }

    #[test]
    fn static_transform_translates() {
        let m = Mat4::from_translation(Vec3::new(1.0, 2.0, 3.0));
        assert_eq!(transform(&m, &[[1.0, 1.0, 1.0]]), vec![[2.0, 3.0, 4.0]]);
    }
}
