//! The AVX2+FMA skinning kernels on the row palette in 128-bit registers: for cores that split
//! each 256-bit operation in two, where fewer, narrower operations win.
//!
//! Per vertex the three rows that give x, y and z (row 3 is never read) are blended,
//! `B_r = sum w_k * skin[j_k].row(r)`, 12 multiplies in 128-bit registers against the column
//! form's 8 of 256 bits (16 halves on such a core); each `B_r` times (x, y, z, 1) leaves an output
//! coordinate as the sum of its 4 lanes. Four vertices' 12 coordinates are summed together, four
//! registers at a time in output order (`lane_sums`), so their 48 bytes go out in 3 plain stores.
//! On a Zen 1 core (EPYC, family 23 model 1) from the caches this took 12.6-13.3 cycles a vertex
//! against the column kernel's 16.9-17.5 (`trial` measures which form is faster wherever it runs).

use std::arch::x86_64::*;

use super::avx2::{checked_blocks, BLOCK};
use super::portable::{skin1_vertex, skin_vertex};
use super::AlignedMat4;

/// Vertex v's position as (x, y, z, 1).
///
/// # Safety
/// `v + 1 < pos.len()` (reads x, y, z of vertex v and x of vertex v + 1, then replaced by 1).
#[inline]
#[target_feature(enable = "avx2,fma")]
unsafe fn position1(pos: &[[f32; 3]], v: usize) -> __m128 {
    // SAFETY: 4 floats from vertex v are in bounds since v + 1 < pos.len(); loadu needs no
    // alignment.
    let p = unsafe { _mm_loadu_ps(pos.as_ptr().add(v).cast()) };
    _mm_blend_ps::<0b1000>(p, _mm_set1_ps(1.0))
}

/// (sum of a's lanes, of b's, of c's, of d's): two in-lane transposes and three adds.
#[inline]
#[target_feature(enable = "avx2,fma")]
fn lane_sums(a: __m128, b: __m128, c: __m128, d: __m128) -> __m128 {
    // (a0 + a2, b0 + b2, a1 + a3, b1 + b3) and the same of c and d.
    let ab = _mm_add_ps(_mm_unpacklo_ps(a, b), _mm_unpackhi_ps(a, b));
    let cd = _mm_add_ps(_mm_unpacklo_ps(c, d), _mm_unpackhi_ps(c, d));
    _mm_add_ps(_mm_movelh_ps(ab, cd), _mm_movehl_ps(cd, ab))
}

/// [`lane_sums`], or with `MOVES` the xor of the four registers (no shuffles).
#[inline]
#[target_feature(enable = "avx2,fma")]
fn sums<const MOVES: bool>(a: __m128, b: __m128, c: __m128, d: __m128) -> __m128 {
    if MOVES {
        _mm_xor_ps(_mm_xor_ps(a, b), _mm_xor_ps(c, d))
    } else {
        lane_sums(a, b, c, d)
    }
}

/// The row form's loop ([`checked_blocks`]): the vertices of a block skinned four at a time, their
/// 48 bytes stored in 3 plain stores; `blend` gives vertex v's rows 0-2. `MOVES`: xor in place of
/// the arithmetic (see [`skin_rows`]).
#[inline]
#[target_feature(enable = "avx2,fma")]
#[allow(clippy::too_many_arguments)] // the kernels differ only in these arguments
fn rows_blocks<const MOVES: bool>(
    pal: &[AlignedMat4],
    pos: &[[f32; 3]],
    jnt: &[[u32; 4]],
    out: &mut [[f32; 3]],
    first_only: bool,
    ahead: Option<&[[f32; 4]]>,
    blend: impl Fn(usize) -> [__m128; 3],
    scalar: impl Fn(usize) -> [f32; 3],
) {
    checked_blocks(pal, pos, jnt, out, first_only, ahead, scalar, |b, d| {
        for q in (b..b + BLOCK).step_by(4) {
            let mut m = [[_mm_setzero_ps(); 3]; 4];
            for (i, m) in m.iter_mut().enumerate() {
                // SAFETY: checked_blocks leaves v + 1 < n for every v of the block.
                let p = unsafe { position1(pos, q + i) };
                let rows = blend(q + i);
                for (m, r) in m.iter_mut().zip(rows) {
                    *m = if MOVES {
                        _mm_xor_ps(r, p)
                    } else {
                        _mm_mul_ps(r, p)
                    };
                }
            }
            // Vertices q..q+4, 12 floats in output order: (x0 y0 z0 x1) (y1 z1 x2 y2) (z2 x3 y3 z3).
            let o = [
                sums::<MOVES>(m[0][0], m[0][1], m[0][2], m[1][0]),
                sums::<MOVES>(m[1][1], m[1][2], m[2][0], m[2][1]),
                sums::<MOVES>(m[2][2], m[3][0], m[3][1], m[3][2]),
            ];
            for (i, o) in o.into_iter().enumerate() {
                // SAFETY: floats 3q..3q+12 are vertices q..q+4 of out, q + 4 <= n.
                unsafe { _mm_storeu_ps(d.add(3 * q + 4 * i), o) };
            }
        }
    });
}

/// The row-form 4-influence kernel, with plain stores at every size and its inputs prefetched
/// [`PREFETCH_VERTICES`](super::avx2::PREFETCH_VERTICES) ahead when asked (as the column kernel). Needs AVX2 and FMA; the slices
/// have equal lengths.
///
/// On a Zen 1 core (2 vCPUs of an EPYC, family 23 model 1) this loop takes about 13.5 cycles a
/// vertex wherever its data lie (256 vertices in L1 to 2M in memory), above what its ports allow:
/// 21.5 loads at the 2 a cycle measured there (10.75 cycles), 15 multiplies and FMAs at 2 a cycle
/// (7.5); shuffles and adds did not slow multiplies in a measured mix, and 10-byte instructions
/// ran from the op cache. Each of these measured slower or no faster, alternated in one process
/// (ns a vertex, 2048 to 2M vertices): indices read 8 bytes at a time (+3 to +4%), weights read
/// once and splat by shuffles (+5 to +8%), both (+2 to +5%), a tree of two FMA chains for each
/// row (+0 to +2%), prefetches 16 to 128 vertices ahead at every size (+1% in the caches, -1 to
/// -4% from memory, within the run's noise). Even with no index loads at all (fixed joints, so
/// wrong) the loop was only 7% faster in the caches.
///
/// `MOVES`: the kernel's data movement alone: the same loop, index checks, loads (4 indices, 4
/// weight broadcasts, 12 rows, the position), prefetches and stores, with xor in place of every
/// multiply, FMA and add and no shuffles. Each stored register is then the xor of the four
/// registers it would have summed, and each of those is, for vertex v and row r, its position's
/// (x, y, z, 1) xor the weights' xor (in lane 0 only) xor the row r of its 4 matrices.
#[target_feature(enable = "avx2,fma")]
pub(super) fn skin_rows<const MOVES: bool>(
    pal: &[AlignedMat4],
    pos: &[[f32; 3]],
    jnt: &[[u32; 4]],
    wts: &[[f32; 4]],
    out: &mut [[f32; 3]],
    prefetch: bool,
) {
    assert_eq!(wts.len(), out.len());
    let base = pal.as_ptr().cast::<f32>();
    let blend = |v: usize| {
        // SAFETY: called only for v < n in a block whose indices indices_ok_256 checked, so
        // base + 16 j is one 64-byte aligned AlignedMat4 (rows at 0, 16 and 32 bytes).
        unsafe {
            let (j, w) = (jnt.get_unchecked(v), wts.get_unchecked(v));
            let m = |k: usize| base.add(16 * *j.get_unchecked(k) as usize);
            let row = |k: usize, r: usize| _mm_load_ps(m(k).add(4 * r));
            let wk = |k: usize| _mm_broadcast_ss(w.get_unchecked(k));
            // Plain loops, no array maps: LLVM left a map's closure uninlined here.
            let mut b = [_mm_setzero_ps(); 3];
            if MOVES {
                let x = _mm_xor_ps;
                let w = x(x(wk(0), wk(1)), x(wk(2), wk(3)));
                let w = _mm_blend_ps::<0b0001>(_mm_setzero_ps(), w);
                for (r, b) in b.iter_mut().enumerate() {
                    *b = x(x(x(row(0, r), row(1, r)), x(row(2, r), row(3, r))), w);
                }
                return b;
            }
            let w0 = wk(0);
            for (r, b) in b.iter_mut().enumerate() {
                *b = _mm_mul_ps(row(0, r), w0);
            }
            for k in 1..4 {
                let w = wk(k);
                for (r, b) in b.iter_mut().enumerate() {
                    *b = _mm_fmadd_ps(row(k, r), w, *b);
                }
            }
            b
        }
    };
    let ahead = prefetch.then_some(wts);
    rows_blocks::<MOVES>(pal, pos, jnt, out, false, ahead, blend, |v| {
        skin_vertex(pal, &pos[v], &jnt[v], &wts[v])
    });
}

/// The row-form 1-influence kernel, with plain stores and, when asked, its positions and joints
/// prefetched [`PREFETCH_VERTICES`](super::avx2::PREFETCH_VERTICES) ahead. Needs AVX2 and FMA; the slices have equal lengths.
#[target_feature(enable = "avx2,fma")]
pub(super) fn skin1_rows(
    pal: &[AlignedMat4],
    pos: &[[f32; 3]],
    jnt: &[[u32; 4]],
    out: &mut [[f32; 3]],
    prefetch: bool,
) {
    let base = pal.as_ptr().cast::<f32>();
    let blend = |v: usize| {
        // SAFETY: called only for v < n in a block whose first indices indices_ok_256 checked.
        unsafe {
            let m = base.add(16 * jnt.get_unchecked(v)[0] as usize);
            [_mm_load_ps(m), _mm_load_ps(m.add(4)), _mm_load_ps(m.add(8))]
        }
    };
    let ahead = prefetch.then_some(&[][..]);
    rows_blocks::<false>(pal, pos, jnt, out, true, ahead, blend, |v| {
        skin1_vertex(pal, &pos[v], jnt[v][0])
    });
}
