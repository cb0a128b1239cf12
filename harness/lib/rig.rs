//! The rig: skeletons, poses, meshes and the 2D view they are drawn through, with the built-in chain and strip.

use glam::{DMat4, DQuat, DVec3, Mat4};
use serde::Deserialize;

/// A local transform: translation, unit rotation, scale (applied scale, then rotation, then translation).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Transform {
    pub translation: DVec3,
    pub rotation: DQuat,
    pub scale: DVec3,
}

impl Default for Transform {
    fn default() -> Self {
        Self {
            translation: DVec3::ZERO,
            rotation: DQuat::IDENTITY,
            scale: DVec3::ONE,
        }
    }
}

impl Transform {
    /// The TRS matrix `T * R * S`.
    pub fn matrix(&self) -> DMat4 {
        DMat4::from_scale_rotation_translation(self.scale, self.rotation, self.translation)
    }
}

/// Nodes in parent-before-child order with their bind (rest) locals, and the joints that the
/// palette is made of. For the built-in chain every node is a joint; a glTF skin also carries the
/// non-joint ancestors of its joints, whose transforms reach the joints' globals.
#[derive(Clone, Debug)]
pub struct Skeleton {
    /// Parent index per node; `None` for a root.
    pub parents: Vec<Option<usize>>,
    /// Local transform per node at the bind (rest) pose.
    pub bind: Vec<Transform>,
    /// Palette entry j is made from node `joints[j]`.
    pub joints: Vec<usize>,
    /// Per palette entry, the inverse of that joint's bind global matrix.
    pub inverse_bind: Vec<DMat4>,
}

/// A local transform per joint.
#[derive(Clone, Debug, PartialEq)]
pub struct Pose {
    pub locals: Vec<Transform>,
}

impl Skeleton {
    /// The built-in chain: joint 0 at the origin, each next joint `segment` further along +Y.
    pub fn chain(joints: usize, segment: f64) -> Self {
        let parents = (0..joints).map(|j| j.checked_sub(1)).collect();
        let bind: Vec<Transform> = (0..joints)
            .map(|j| Transform {
                translation: if j == 0 {
                    DVec3::ZERO
                } else {
                    DVec3::new(0.0, segment, 0.0)
                },
                ..Transform::default()
            })
            .collect();
        let mut skeleton = Self {
            parents,
            bind,
            joints: (0..joints).collect(),
            inverse_bind: Vec::new(),
        };
        // The chain's bind globals are pure translations, so the rigid inverse is exact.
        skeleton.inverse_bind = skeleton
            .globals(&skeleton.bind_pose())
            .iter()
            .map(rigid_inverse)
            .collect();
        skeleton
    }

    pub fn len(&self) -> usize {
        self.parents.len()
    }

    pub fn is_empty(&self) -> bool {
        self.parents.is_empty()
    }

    /// The pose whose locals are the bind locals.
    pub fn bind_pose(&self) -> Pose {
        Pose {
            locals: self.bind.clone(),
        }
    }

    /// `global[j] = global[parent(j)] * TRS(local[j])`.
    pub fn globals(&self, pose: &Pose) -> Vec<DMat4> {
        let mut globals: Vec<DMat4> = Vec::with_capacity(self.len());
        for (j, local) in pose.locals.iter().enumerate() {
            let m = local.matrix();
            let g = match self.parents[j] {
                Some(p) => globals[p] * m,
                None => m,
            };
            globals.push(g);
        }
        globals
    }

    /// `skin[j] = global[joints[j]] * inverseBind[j]`, rounded once to the f32 matrices the GPU receives.
    pub fn palette(&self, pose: &Pose) -> Vec<Mat4> {
        let globals = self.globals(pose);
        self.joints
            .iter()
            .zip(&self.inverse_bind)
            .map(|(&node, ib)| (globals[node] * *ib).as_mat4())
            .collect()
    }
}

/// Inverse of a rotation+translation matrix (transpose the rotation, rotate the negated translation).
pub fn rigid_inverse(m: &DMat4) -> DMat4 {
    let r = glam::DMat3::from_mat4(*m).transpose();
    let t = -(r * m.w_axis.truncate());
    DMat4::from_cols(
        r.x_axis.extend(0.0),
        r.y_axis.extend(0.0),
        r.z_axis.extend(0.0),
        t.extend(1.0),
    )
}

/// Vertex data: positions, influence sets of 4 joint indices and 4 weights per vertex (the first
/// in `joints` and `weights`, the others in `more`), and triangle indices for drawing; unit normals
/// and tangents (xyz unit, w = handedness +1 or -1) per vertex where the mesh has them (empty
/// where it has none).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Mesh {
    pub positions: Vec<[f32; 3]>,
    pub joints: Vec<[u32; 4]>,
    pub weights: Vec<[f32; 4]>,
    pub indices: Vec<u32>,
    /// The influence sets past the first (glTF's JOINTS_1/WEIGHTS_1 and on), one entry per vertex each.
    pub more: Vec<InfluenceSet>,
    pub normals: Vec<[f32; 3]>,
    pub tangents: Vec<[f32; 4]>,
}

/// One influence set's joints and weights, each vertex's in turn ([`Mesh::set_data`]).
pub type SetData = (Vec<[u32; 4]>, Vec<[f32; 4]>);

/// Four joint indices and four weights per vertex: one influence set.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct InfluenceSet {
    pub joints: Vec<[u32; 4]>,
    pub weights: Vec<[f32; 4]>,
}

impl Mesh {
    pub fn len(&self) -> usize {
        self.positions.len()
    }

    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }

    /// How many influence sets of 4 each vertex has.
    pub fn sets(&self) -> usize {
        1 + self.more.len()
    }

    /// Influence set `k` of vertex `v`; zero weights past the mesh's sets.
    pub fn set(&self, v: usize, k: usize) -> ([u32; 4], [f32; 4]) {
        match k {
            0 => (self.joints[v], self.weights[v]),
            _ => self
                .more
                .get(k - 1)
                .map_or(([0; 4], [0.0; 4]), |s| (s.joints[v], s.weights[v])),
        }
    }

    /// Every influence of vertex `v` with a nonzero weight, set by set: (joint, weight).
    pub fn influences(&self, v: usize) -> Vec<(u32, f32)> {
        (0..self.sets())
            .flat_map(|k| {
                let (j, w) = self.set(v, k);
                j.into_iter().zip(w)
            })
            .filter(|&(_, w)| w != 0.0)
            .collect()
    }

    /// Sets influence set `k` of vertex `v`; panics past the mesh's sets.
    pub fn put_set(&mut self, v: usize, k: usize, (j, w): ([u32; 4], [f32; 4])) {
        if k == 0 {
            (self.joints[v], self.weights[v]) = (j, w);
        } else {
            let s = &mut self.more[k - 1];
            (s.joints[v], s.weights[v]) = (j, w);
        }
    }

    /// The most influences of nonzero weight one vertex has.
    pub fn most_influences(&self) -> usize {
        (0..self.len())
            .map(|v| self.influences(v).len())
            .max()
            .unwrap_or(0)
    }

    /// Moves each vertex's influences of nonzero weight to its first slots, in order, the slots
    /// after them joint 0 of weight 0: where a shader reads the first 2 or 3 of a set, a vertex
    /// with that many influences is read whole, whichever slots its file put them in.
    pub fn gather_influences(&mut self) {
        let all: Vec<_> = (0..self.len()).map(|v| self.influences(v)).collect();
        self.set_influences(&all);
    }

    /// Each vertex's joints and weights of influence set `k`, zero past the mesh's sets.
    pub fn set_data(&self, k: usize) -> SetData {
        (0..self.len()).map(|v| self.set(v, k)).unzip()
    }

    /// [`Mesh::set_data`] of the first `sets` sets, each vertex's weights over all of them first
    /// rounded by `quantise` at once (a unorm format's: so that, stored set by set, their
    /// integers still sum as the vertex's weights do).
    pub fn sets_data(&self, sets: usize, quantise: impl Fn(&mut [[f32; 4]])) -> Vec<SetData> {
        let mut out: Vec<_> = (0..sets).map(|k| self.set_data(k)).collect();
        let mut w = vec![[0.0; 4]; sets];
        for v in 0..self.len() {
            for (k, w) in w.iter_mut().enumerate() {
                *w = out[k].1[v];
            }
            quantise(&mut w);
            for (k, w) in w.iter().enumerate() {
                out[k].1[v] = *w;
            }
        }
        out
    }

    /// Sets each vertex's influences, 4 to a set, in as many sets as the vertex with the most needs
    /// (at least one); the rest of a set is joint 0 at weight 0.
    pub fn set_influences(&mut self, per_vertex: &[Vec<(u32, f32)>]) {
        let sets = per_vertex
            .iter()
            .map(|i| i.len().div_ceil(4))
            .max()
            .unwrap_or(1)
            .max(1);
        let mut all = vec![InfluenceSet::default(); sets];
        for influences in per_vertex {
            for (k, set) in all.iter_mut().enumerate() {
                let (mut j, mut w) = ([0u32; 4], [0f32; 4]);
                for (slot, &(joint, weight)) in influences.iter().skip(4 * k).take(4).enumerate() {
                    (j[slot], w[slot]) = (joint, weight);
                }
                set.joints.push(j);
                set.weights.push(w);
            }
        }
        let first = all.remove(0);
        (self.joints, self.weights, self.more) = (first.joints, first.weights, all);
    }

    /// The normals and tangents the GPU paths upload: the mesh's, or placeholders (+Z, and +X
    /// with w = 1) where it has none, so that a shader that skins them still reads unit vectors
    /// (and the normal checks skip such a mesh).
    pub fn frames(&self) -> (Vec<[f32; 3]>, Vec<[f32; 4]>) {
        let n = self.len();
        let normals = if self.normals.len() == n {
            self.normals.clone()
        } else {
            vec![[0.0, 0.0, 1.0]; n]
        };
        let tangents = if self.tangents.len() == n {
            self.tangents.clone()
        } else {
            vec![[1.0, 0.0, 0.0, 1.0]; n]
        };
        (normals, tangents)
    }

    /// Largest distance of a vertex from the origin along any axis (at least 1, so it can scale tolerances).
    pub fn extent(&self) -> f32 {
        self.positions
            .iter()
            .flat_map(|p| p.iter())
            .fold(1.0f32, |m, v| m.max(v.abs()))
    }
}

/// A strip along the chain: `vertices` points in rows of two (x = -width/2, +width/2), rows evenly
/// spaced on Y from 0 to `joints * segment`, each vertex weighted over its `influences` nearest
/// joints (4 to an influence set: more than 4 fill further sets).
pub fn strip(joints: usize, segment: f64, vertices: usize, width: f64, influences: usize) -> Mesh {
    let rows = vertices.div_ceil(2);
    let length = joints as f64 * segment;
    let mut mesh = Mesh::default();
    let mut per_vertex = Vec::with_capacity(vertices);
    for v in 0..vertices {
        let row = v / 2;
        let y = if rows > 1 {
            length * row as f64 / (rows - 1) as f64
        } else {
            0.0
        };
        let x = if v % 2 == 0 {
            -0.5 * width
        } else {
            0.5 * width
        };
        // With one row the single column sits on the axis.
        let x = if vertices == 1 { 0.0 } else { x };
        let t = if segment > 0.0 { y / segment } else { 0.0 };
        mesh.positions.push([x as f32, y as f32, 0.0]);
        per_vertex.push(influence(t, joints, influences));
        let (normal, tangent) = strip_frame(v);
        mesh.normals.push(normal);
        mesh.tangents.push(tangent);
    }
    mesh.set_influences(&per_vertex);
    for row in 0..rows.saturating_sub(1) {
        let a = 2 * row as u32;
        let (b, c, d) = (a + 1, a + 2, a + 3);
        if (c as usize) < vertices && (b as usize) < vertices {
            mesh.indices.extend([a, b, c]);
        }
        if (d as usize) < vertices {
            mesh.indices.extend([b, d, c]);
        }
    }
    mesh
}

/// The strip's normal and tangent at vertex `v`. The strip lies in the XY plane, but its normals
/// lean out of it by a turn that changes from vertex to vertex, so that they are no joint scale's
/// axis and a normal skinned by the plain blended matrix points elsewhere under a non-uniform
/// scale; the tangent is the normal's perpendicular along +X turned likewise. Every other vertex
/// is mirrored (w = -1, as a mirrored half of a model's texture space has), so a lost handedness
/// shows.
fn strip_frame(v: usize) -> ([f32; 3], [f32; 4]) {
    // 0.3 to 0.9 radians out of the plane, in 7 steps; the turn about Z in 5.
    let lean = 0.3 + 0.1 * (v % 7) as f64;
    let turn = 0.4 * (v % 5) as f64;
    let (sl, cl) = lean.sin_cos();
    let (st, ct) = turn.sin_cos();
    let normal = DVec3::new(sl * ct, sl * st, cl);
    // Perpendicular to the normal: +X turned about Z by `turn`, tipped to leave the plane with it.
    let tangent = DVec3::new(cl * ct, cl * st, -sl);
    let w = if v.is_multiple_of(2) { 1.0 } else { -1.0 };
    (
        normal.as_vec3().into(),
        [tangent.x as f32, tangent.y as f32, tangent.z as f32, w],
    )
}

/// Weights of the `k` joints nearest to the joint coordinate `t`, a tent of radius k/2 normalised to 1.
/// k = 2 is the linear blend between the joint below and the joint above.
fn influence(t: f64, joints: usize, k: usize) -> Vec<(u32, f32)> {
    let k = k.max(1);
    let radius = k as f64 / 2.0;
    let first = if k.is_multiple_of(2) {
        t.floor() as i64 - (k as i64 / 2 - 1)
    } else {
        t.round() as i64 - (k as i64 / 2)
    };
    let mut picked: Vec<(u32, f64)> = (first..first + k as i64)
        .filter(|&j| j >= 0 && (j as usize) < joints)
        .map(|j| (j as u32, (1.0 - (t - j as f64).abs() / radius).max(0.0)))
        .collect();
    let total: f64 = picked.iter().map(|p| p.1).sum();
    if total <= 0.0 {
        // Every picked weight is 0: exactly between two joints with one influence (the tent's edge),
        // or past the last joint. Hold to the nearest joint in the chain entirely.
        let nearest = (t.round() as i64).clamp(0, joints.saturating_sub(1) as i64);
        picked = vec![(nearest as u32, 1.0)];
    }
    let total: f64 = picked.iter().map(|p| p.1).sum();
    picked
        .into_iter()
        .map(|(j, w)| (j, (w / total) as f32))
        .collect()
}

/// How a skinned mesh is drawn into the target: clip = (x / half_width, y * scale + offset_y).
#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct View {
    pub scale: f64,
    pub offset_y: f64,
    pub half_width: f64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;

    #[test]
    fn one_influence_exactly_between_two_joints_holds_to_a_neighbour() {
        // Rows at y = 0.5, 1.5, 2.5 of a 4-joint chain: the tent of one influence is 0 there.
        for (t, joint) in [(0.5, 1), (1.5, 2), (2.5, 3), (3.7, 3), (9.0, 3)] {
            assert_eq!(influence(t, 4, 1), [(joint, 1.0)], "t = {t}");
        }
        assert_eq!(influence(0.2, 4, 1)[0].0, 0);
    }

    #[test]
    fn chain_bind_palette_is_identity() {
        let s = Skeleton::chain(4, 0.5);
        for m in s.palette(&s.bind_pose()) {
            assert!(m.abs_diff_eq(Mat4::IDENTITY, 1e-7), "{m}");
        }
    }

    #[test]
    fn chain_globals_stack_translations() {
        let s = Skeleton::chain(3, 2.0);
        let g = s.globals(&s.bind_pose());
        assert_eq!(g[2].w_axis.truncate(), DVec3::new(0.0, 4.0, 0.0));
    }

    #[test]
    fn bending_joint_one_rotates_children_about_it() {
        // Joint 1 sits at y = 1; a +90 degree turn about Z sends joint 2 from (0,2) to (-1,1).
        let s = Skeleton::chain(3, 1.0);
        let mut pose = s.bind_pose();
        pose.locals[1].rotation = DQuat::from_rotation_z(90f64.to_radians());
        let g = s.globals(&pose);
        let p = g[2].w_axis.truncate();
        assert!((p - DVec3::new(-1.0, 1.0, 0.0)).length() < 1e-12, "{p}");
    }

    #[test]
    fn rigid_inverse_inverts() {
        let m = DMat4::from_rotation_translation(
            DQuat::from_axis_angle(DVec3::new(1.0, 2.0, 3.0).normalize(), 0.7),
            DVec3::new(4.0, -5.0, 6.0),
        );
        assert!((rigid_inverse(&m) * m).abs_diff_eq(DMat4::IDENTITY, 1e-12));
    }

    #[test]
    fn strip_weights_are_linear_between_neighbours() {
        let m = strip(2, 1.0, 6, 0.2, 2);
        // Rows at y = 0, 1, 2: t = 1 sits exactly on joint 1.
        assert_eq!(m.positions[2], [-0.1, 1.0, 0.0]);
        assert_eq!(m.joints[2][0], 1);
        assert_eq!(m.weights[2][0], 1.0);
        assert_eq!(influence(0.25, 4, 2), [(0, 0.75), (1, 0.25)]);
    }

    #[test]
    fn strip_normals_and_tangents_are_unit_perpendicular_and_mirrored_every_other_vertex() {
        let m = strip(3, 1.0, 40, 0.5, 2);
        assert_eq!((m.normals.len(), m.tangents.len()), (40, 40));
        for (v, (n, t)) in m.normals.iter().zip(&m.tangents).enumerate() {
            let (n, t3) = (Vec3::from(*n), Vec3::new(t[0], t[1], t[2]));
            assert!((n.length() - 1.0).abs() < 1e-6 && (t3.length() - 1.0).abs() < 1e-6);
            assert!(n.dot(t3).abs() < 1e-6, "vertex {v}");
            assert_eq!(t[3], if v % 2 == 0 { 1.0 } else { -1.0 });
            // Never along an axis: each has at least two nonzero components.
            assert!(n.to_array().iter().filter(|c| c.abs() > 0.1).count() >= 2);
        }
    }

    #[test]
    fn four_influences_spread_over_four_neighbours() {
        assert_eq!(
            influence(1.5, 8, 4),
            [(0, 0.125), (1, 0.375), (2, 0.375), (3, 0.125)]
        );
        let w: Vec<f32> = influence(0.5, 8, 3).iter().map(|p| p.1).collect();
        assert!((w.iter().sum::<f32>() - 1.0).abs() < 1e-6);
        assert_eq!(w.iter().filter(|&&x| x > 0.0).count(), 2);
    }

    #[test]
    fn eight_influences_fill_two_sets() {
        let m = strip(12, 1.0, 40, 0.2, 8);
        assert_eq!(m.sets(), 2);
        let most = (0..m.len()).map(|v| m.influences(v).len()).max().unwrap();
        assert!(most > 4, "{most}");
        for v in 0..m.len() {
            let sum: f32 = m.influences(v).iter().map(|p| p.1).sum();
            assert!((sum - 1.0).abs() < 1e-5, "vertex {v}: {sum}");
        }
        assert_eq!(strip(12, 1.0, 40, 0.2, 4).sets(), 1);
    }

    /// Influences in the last slots (as a file may put them) move to the first, in order; the
    /// slots after them hold nothing.
    #[test]
    fn gathered_influences_take_the_first_slots() {
        let mut m = strip(4, 1.0, 2, 0.2, 2);
        m.put_set(0, 0, ([9, 1, 7, 3], [0.0, 0.25, 0.0, 0.75]));
        m.put_set(1, 0, ([2, 0, 0, 5], [1.0, 0.0, 0.0, 0.0]));
        m.gather_influences();
        assert_eq!(m.set(0, 0), ([1, 3, 0, 0], [0.25, 0.75, 0.0, 0.0]));
        assert_eq!(m.set(1, 0), ([2, 0, 0, 0], [1.0, 0.0, 0.0, 0.0]));
    }

    #[test]
    fn strip_triangulates_complete_rows_and_an_odd_tail() {
        assert_eq!(strip(1, 1.0, 4, 1.0, 1).indices, vec![0, 1, 2, 1, 3, 2]);
        assert_eq!(strip(1, 1.0, 5, 1.0, 1).indices.len(), 9);
        assert!(strip(1, 1.0, 1, 1.0, 1).indices.is_empty());
    }
}
