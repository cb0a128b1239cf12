//! The fast palette build in f32: node globals from the local TRS, then skin = global * inverse bind.

use glam::{Affine3A, Mat4, Quat, Vec3, Vec4};

use super::{check_isa, AlignedMat4, AlignedPalette, Isa};
use crate::rig::{Pose, Skeleton, Transform};

/// One joint's local transform in f32: applied scale, then rotation, then translation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LocalTrs {
    pub translation: Vec3,
    pub rotation: Quat,
    pub scale: Vec3,
}

impl From<&Transform> for LocalTrs {
    fn from(t: &Transform) -> Self {
        LocalTrs {
            translation: t.translation.as_vec3(),
            rotation: t.rotation.as_quat(),
            scale: t.scale.as_vec3(),
        }
    }
}

/// A pose's locals rounded to f32, the input of [`PaletteBuilder::build`].
pub fn locals_f32(pose: &Pose) -> Vec<LocalTrs> {
    pose.locals.iter().map(LocalTrs::from).collect()
}

/// Marks a root in [`PaletteBuilder`]'s parent list.
const ROOT: u32 = u32::MAX;

/// The fast palette build, in f32: node globals from the local TRS in parent-before-child order,
/// then `skin[j] = global[joints[j]] * inverseBind[j]`, written into a preallocated [`AlignedPalette`].
#[derive(Clone, Debug)]
pub struct PaletteBuilder {
    /// Parent node per node, [`ROOT`] for a root.
    parents: Vec<u32>,
    /// The node of each palette entry.
    joints: Vec<u32>,
    inverse_bind: Vec<Mat4>,
    /// The inverse binds again in the row form of the palette (for the AVX-512 build).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    inverse_bind_rows: Vec<AlignedMat4>,
    /// Scratch: the node globals of the last portable build (affine: 48 bytes, cheaper products).
    globals: Vec<Affine3A>,
    /// Scratch: the node globals of the last AVX-512 build, in row form.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    global_rows: Vec<AlignedMat4>,
}

impl PaletteBuilder {
    /// Panics if a parent does not come before its child, a joint names no node, or the joints and
    /// inverse binds differ in number.
    pub fn new(skeleton: &Skeleton) -> Self {
        let nodes = skeleton.parents.len();
        let parents = skeleton
            .parents
            .iter()
            .enumerate()
            .map(|(j, p)| match p {
                Some(p) if *p < j => *p as u32,
                Some(p) => panic!("fast::PaletteBuilder: node {j} has parent {p}, not before it"),
                None => ROOT,
            })
            .collect();
        let joints = skeleton
            .joints
            .iter()
            .map(|&node| {
                assert!(
                    node < nodes,
                    "fast::PaletteBuilder: joint node {node} of {nodes} nodes"
                );
                node as u32
            })
            .collect();
        assert_eq!(
            skeleton.joints.len(),
            skeleton.inverse_bind.len(),
            "fast::PaletteBuilder: joints and inverse binds differ in number"
        );
        PaletteBuilder {
            parents,
            joints,
            inverse_bind: skeleton.inverse_bind.iter().map(|m| m.as_mat4()).collect(),
            inverse_bind_rows: skeleton
                .inverse_bind
                .iter()
                .map(|m| AlignedMat4::from(m.as_mat4()))
                .collect(),
            globals: vec![Affine3A::IDENTITY; nodes],
            global_rows: vec![AlignedMat4::from(Mat4::IDENTITY); nodes],
        }
    }

    /// Palette entries (joints).
    pub fn len(&self) -> usize {
        self.joints.len()
    }

    pub fn is_empty(&self) -> bool {
        self.joints.is_empty()
    }

    /// Nodes, the length of the locals that [`PaletteBuilder::build`] takes.
    pub fn nodes(&self) -> usize {
        self.parents.len()
    }

    /// An output buffer of the right size for [`PaletteBuilder::build`].
    pub fn palette(&self) -> AlignedPalette {
        AlignedPalette::identity(self.len())
    }

    /// Builds the palette of `locals` (one per node) into `out`, which is resized only if its
    /// length differs; no other allocation.
    pub fn build(&mut self, locals: &[LocalTrs], out: &mut AlignedPalette) {
        self.build_with(Isa::best(), locals, out);
    }

    /// [`PaletteBuilder::build`] with a chosen kernel (AVX2 has none of its own: it takes the
    /// portable one). Panics if this CPU does not support `isa`.
    pub fn build_with(&mut self, isa: Isa, locals: &[LocalTrs], out: &mut AlignedPalette) {
        check_isa(isa);
        assert_eq!(
            locals.len(),
            self.nodes(),
            "fast::PaletteBuilder: {} locals for {} nodes",
            locals.len(),
            self.nodes()
        );
        out.mats
            .resize(self.joints.len(), AlignedMat4::from(Mat4::IDENTITY));
        let mats = &mut out.mats;
        out.finite = match isa {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: check_isa asserted that this CPU has AVX-512F.
            Isa::Avx512F => unsafe {
                avx512::palette_avx512(
                    &self.parents,
                    &self.joints,
                    &self.inverse_bind_rows,
                    locals,
                    &mut self.global_rows,
                    mats,
                )
            },
            _ => self.build_portable(locals, mats),
        };
        out.sync_cols();
    }

    /// The portable build, with glam; returns whether every entry is finite.
    fn build_portable(&mut self, locals: &[LocalTrs], mats: &mut [AlignedMat4]) -> bool {
        let globals = &mut self.globals[..];
        for ((g, l), &p) in (0..globals.len()).zip(locals).zip(&self.parents) {
            let local =
                Affine3A::from_scale_rotation_translation(l.scale, l.rotation, l.translation);
            globals[g] = if p == ROOT {
                local
            } else {
                globals[p as usize] * local
            };
        }
        // x * 0 stays 0 for every finite x and turns NaN otherwise.
        let mut poison = Vec4::ZERO;
        for ((m, &node), ib) in mats.iter_mut().zip(&self.joints).zip(&self.inverse_bind) {
            let s = Mat4::from(globals[node as usize]) * *ib;
            poison += s.x_axis * 0.0 + s.y_axis * 0.0 + s.z_axis * 0.0 + s.w_axis * 0.0;
            *m = AlignedMat4::from(s);
        }
        poison.is_finite()
    }
}

/// The AVX-512F build: every matrix one register in row form.
#[cfg(target_arch = "x86_64")]
mod avx512 {
    use std::arch::x86_64::*;

    use crate::bench::fast::AlignedMat4;

    /// Loads a row-form matrix (one register).
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn load_rows(m: &AlignedMat4) -> __m512 {
        // SAFETY: an AlignedMat4 is 16 floats, 64-byte aligned.
        unsafe { _mm512_load_ps(m.0.as_ptr()) }
    }

    #[inline]
    #[target_feature(enable = "avx512f")]
    fn store_rows(m: &mut AlignedMat4, v: __m512) {
        // SAFETY: an AlignedMat4 is 16 writable floats, 64-byte aligned.
        unsafe { _mm512_store_ps(m.0.as_mut_ptr(), v) }
    }

    /// Row i of a*b for row-form a, b with b's rows broadcast: `sum_c a[i][c] * row_c(b)`.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn mul_rows(a: __m512, b: [__m512; 4]) -> __m512 {
        let lo = _mm512_fmadd_ps(
            _mm512_permute_ps::<0x55>(a),
            b[1],
            _mm512_mul_ps(_mm512_permute_ps::<0x00>(a), b[0]),
        );
        let hi = _mm512_fmadd_ps(
            _mm512_permute_ps::<0xFF>(a),
            b[3],
            _mm512_mul_ps(_mm512_permute_ps::<0xAA>(a), b[2]),
        );
        _mm512_add_ps(lo, hi)
    }

    /// Controls and constants for [`local_rows`].
    struct LocalConsts {
        /// In-lane: row i takes element i (v_i splat per row).
        row_splat: __m512i,
        /// In-lane: the cross-product matrix pattern (0 -z y | z 0 -x | -y x 0).
        cross: __m512i,
        /// 2 x the signs of that pattern, 0 where it has no entry.
        cross_sign: __m512,
        /// In-lane: lane 3 of row i takes element i (the translation column).
        tcol: __m512i,
        /// Row 3 of an affine matrix: (0, 0, 0, 1).
        last_row: __m512,
    }

    #[inline]
    #[target_feature(enable = "avx512f")]
    fn local_consts() -> LocalConsts {
        LocalConsts {
            row_splat: _mm512_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3),
            cross: _mm512_setr_epi32(3, 2, 1, 3, 2, 3, 0, 3, 1, 0, 3, 3, 3, 3, 3, 3),
            cross_sign: _mm512_setr_ps(
                0.0, -2.0, 2.0, 0.0, 2.0, 0.0, -2.0, 0.0, -2.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
            ),
            tcol: _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 0),
            last_row: _mm512_setr_ps(
                0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0,
            ),
        }
    }

    /// T * R(q) * S in row form, with glam's quaternion formula (R00 = 1 - 2(yy + zz), ...):
    /// `R = 2 v v^T + 2 w [v]x + (1 - 2 |v|^2) I`, column j scaled by s_j, translation in column 3.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn local_rows(l: &super::LocalTrs, k: &LocalConsts) -> __m512 {
        let q = _mm512_broadcast_f32x4(_mm_setr_ps(
            l.rotation.x,
            l.rotation.y,
            l.rotation.z,
            l.rotation.w,
        ));
        let s = _mm512_broadcast_f32x4(_mm_setr_ps(l.scale.x, l.scale.y, l.scale.z, 0.0));
        let t = _mm512_broadcast_f32x4(_mm_setr_ps(
            l.translation.x,
            l.translation.y,
            l.translation.z,
            0.0,
        ));
        let vi = _mm512_permutevar_ps(q, k.row_splat);
        let outer = _mm512_mul_ps(_mm512_add_ps(vi, vi), q);
        let w = _mm512_permute_ps::<0xFF>(q);
        let cross = _mm512_mul_ps(
            _mm512_mul_ps(_mm512_permutevar_ps(q, k.cross), w),
            k.cross_sign,
        );
        let qq = _mm512_mul_ps(q, q);
        let vv = _mm512_add_ps(
            _mm512_add_ps(_mm512_permute_ps::<0x00>(qq), _mm512_permute_ps::<0x55>(qq)),
            _mm512_permute_ps::<0xAA>(qq),
        );
        let diag = _mm512_fnmadd_ps(_mm512_set1_ps(2.0), vv, _mm512_set1_ps(1.0));
        let r = _mm512_add_ps(outer, cross);
        // The diagonal lanes 0, 5, 10.
        let r = _mm512_mask_add_ps(r, 0x0421, r, diag);
        // Column 3 of rows 0-2: 0 * s_3 + t_i. Adding the translation (rather than blending it
        // in) keeps lane 3 of s demanded, so the compiler must supply the 0 there instead of
        // loading whatever follows the scale in memory: garbage that can be a denormal, whose
        // microcode assist made every build several times slower.
        let tcol = _mm512_maskz_permutevar_ps(0x0888, t, k.tcol);
        let r = _mm512_fmadd_ps(r, s, tcol);
        _mm512_mask_blend_ps(0xF000, r, k.last_row)
    }

    /// The AVX-512F palette build: every matrix one register in row form. Returns whether every
    /// entry is finite. Needs AVX-512F; parents come before their children (checked by the builder).
    #[target_feature(enable = "avx512f")]
    pub(super) fn palette_avx512(
        parents: &[u32],
        joints: &[u32],
        inverse_bind: &[AlignedMat4],
        locals: &[super::LocalTrs],
        globals: &mut [AlignedMat4],
        out: &mut [AlignedMat4],
    ) -> bool {
        assert!(locals.len() == parents.len() && globals.len() == parents.len());
        assert!(inverse_bind.len() == joints.len() && out.len() == joints.len());
        let k = local_consts();
        // The previous node's global stays in a register: in chains the parent is usually the
        // previous node, and reloading it would add a store-to-load round trip to the critical path.
        let mut prev = k.last_row;
        for (g, (l, &p)) in locals.iter().zip(parents).enumerate() {
            let local = local_rows(l, &k);
            let rows = [
                _mm512_shuffle_f32x4::<0x00>(local, local),
                _mm512_shuffle_f32x4::<0x55>(local, local),
                _mm512_shuffle_f32x4::<0xAA>(local, local),
                _mm512_shuffle_f32x4::<0xFF>(local, local),
            ];
            let global = if p == super::ROOT {
                local
            } else if p as usize + 1 == g {
                mul_rows(prev, rows)
            } else {
                mul_rows(load_rows(&globals[p as usize]), rows)
            };
            store_rows(&mut globals[g], global);
            prev = global;
        }
        let zero = _mm512_setzero_ps();
        // x * 0 stays 0 for every finite x and turns NaN otherwise.
        let mut poison = zero;
        for ((o, &node), ib) in out.iter_mut().zip(joints).zip(inverse_bind) {
            // SAFETY: an AlignedMat4 is 16 floats: 4 rows of 4 readable floats.
            let rows = unsafe {
                let r = ib.0.as_ptr();
                [0, 4, 8, 12].map(|i| _mm512_broadcast_f32x4(_mm_load_ps(r.add(i))))
            };
            let skin = mul_rows(load_rows(&globals[node as usize]), rows);
            poison = _mm512_fmadd_ps(skin, zero, poison);
            store_rows(o, skin);
        }
        _mm512_cmp_ps_mask::<_CMP_ORD_Q>(poison, poison) == 0xFFFF
    }
}
