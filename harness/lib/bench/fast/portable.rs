//! The portable kernels, also the scalar path that the SIMD kernels fall back to.

use glam::{Mat4, Vec3, Vec4};

use super::AlignedMat4;

/// Row `i` (0..4) of a palette matrix.
#[inline]
fn row(m: &AlignedMat4, i: usize) -> Vec4 {
    Vec4::from_slice(&m.0[4 * i..4 * i + 4])
}

/// One vertex, with the oracle's semantics: zero weights skipped, the palette indexed with a bounds check.
#[inline]
pub(super) fn skin_vertex(
    pal: &[AlignedMat4],
    p: &[f32; 3],
    j: &[u32; 4],
    w: &[f32; 4],
) -> [f32; 3] {
    let mut r = [Vec4::ZERO; 3];
    for k in 0..4 {
        if w[k] != 0.0 {
            let m = &pal[j[k] as usize];
            for (i, r) in r.iter_mut().enumerate() {
                *r += row(m, i) * w[k];
            }
        }
    }
    let p = Vec4::new(p[0], p[1], p[2], 1.0);
    [r[0].dot(p), r[1].dot(p), r[2].dot(p)]
}

#[inline]
pub(super) fn skin1_vertex(pal: &[AlignedMat4], p: &[f32; 3], j: u32) -> [f32; 3] {
    let m = &pal[j as usize];
    let p = Vec4::new(p[0], p[1], p[2], 1.0);
    [row(m, 0).dot(p), row(m, 1).dot(p), row(m, 2).dot(p)]
}

pub(super) fn skin(
    pal: &[AlignedMat4],
    pos: &[[f32; 3]],
    jnt: &[[u32; 4]],
    wts: &[[f32; 4]],
    out: &mut [[f32; 3]],
) {
    for (((o, p), j), w) in out.iter_mut().zip(pos).zip(jnt).zip(wts) {
        *o = skin_vertex(pal, p, j, w);
    }
}

pub(super) fn skin1(pal: &[AlignedMat4], pos: &[[f32; 3]], jnt: &[[u32; 4]], out: &mut [[f32; 3]]) {
    for ((o, p), j) in out.iter_mut().zip(pos).zip(jnt) {
        *o = skin1_vertex(pal, p, j[0]);
    }
}

pub(super) fn transform(m: &Mat4, pos: &[[f32; 3]], out: &mut [[f32; 3]]) {
    for (o, p) in out.iter_mut().zip(pos) {
        *o = m.transform_point3(Vec3::from(*p)).into();
    }
}

/// `out[v] = f(v)` for v in `range` (the scalar path of the SIMD loops: their head, tail and
/// blocks with an index to check). Cold and never inlined, so that it takes no registers from the
/// SIMD loop around it.
#[cfg(target_arch = "x86_64")]
#[cold]
#[inline(never)]
pub(super) fn fill(
    out: &mut [[f32; 3]],
    range: std::ops::Range<usize>,
    f: impl Fn(usize) -> [f32; 3],
) {
    for (v, o) in range.clone().zip(&mut out[range]) {
        *o = f(v);
    }
}
