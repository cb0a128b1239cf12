//! The CPU linear-blend-skinning oracle: simple, f64 accumulation, obviously correct.

use glam::{DVec4, Mat4};

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
            indices: vec![],
            more: vec![],
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
            indices: vec![],
            more: vec![],
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
            indices: vec![],
            more: vec![],
        };
        let out = skin(&s.palette(&pose), &mesh);
        assert!((out[0][0] + 1.0).abs() < 1e-6 && (out[0][1] - 1.0).abs() < 1e-6);
        // Half of (0, 1.5) and half of (-0.5, 1): (-0.25, 1.25).
        assert!((out[1][0] + 0.25).abs() < 1e-6 && (out[1][1] - 1.25).abs() < 1e-6);
    }

    #[test]
    fn static_transform_translates() {
        let m = Mat4::from_translation(Vec3::new(1.0, 2.0, 3.0));
        assert_eq!(transform(&m, &[[1.0, 1.0, 1.0]]), vec![[2.0, 3.0, 4.0]]);
    }
}
