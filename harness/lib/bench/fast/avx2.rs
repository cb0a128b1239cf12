//! The AVX2+FMA kernels: 4- and 1-influence skinning and the static transform, 4 to 8 vertices a
//! block, with streaming stores from the first aligned vertex when asked.

use std::arch::x86_64::*;

use glam::Mat4;

use super::portable::{fill, skin1_vertex, skin_vertex};
use super::{head_to, len_u32, AlignedMat4};

/// Whether the joint indices of the 4 vertices from `jnt[b]` (only the first of each when
/// `first_only`) are all at most `last` (= len - 1).
///
/// # Safety
/// `b + 4 <= jnt.len()`.
#[inline]
#[target_feature(enable = "avx2,fma")]
unsafe fn indices_ok_256(jnt: &[[u32; 4]], b: usize, last: __m256i, first_only: bool) -> bool {
    // SAFETY: the caller guarantees 4 rows (64 bytes) from row b; loadu needs no alignment.
    let (lo, hi) = unsafe {
        let p = jnt.as_ptr().add(b).cast::<__m256i>();
        (_mm256_loadu_si256(p), _mm256_loadu_si256(p.add(1)))
    };
    let mx = _mm256_max_epu32(_mm256_max_epu32(lo, hi), last);
    let ok = _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(mx, last)));
    let lanes = if first_only { 0x11 } else { 0xFF };
    ok & lanes == lanes
}

/// Horizontal sums of each 128-bit lane of a, b, c, d (as `avx512::hsum4_512`).
#[inline]
#[target_feature(enable = "avx2,fma")]
fn hsum4_256(a: __m256, b: __m256, c: __m256, d: __m256) -> __m256 {
    let ab = _mm256_add_ps(_mm256_unpacklo_ps(a, b), _mm256_unpackhi_ps(a, b));
    let cd = _mm256_add_ps(_mm256_unpacklo_ps(c, d), _mm256_unpackhi_ps(c, d));
    _mm256_add_ps(
        _mm256_shuffle_ps::<0b01_00_01_00>(ab, cd),
        _mm256_shuffle_ps::<0b11_10_11_10>(ab, cd),
    )
}

#[inline]
#[target_feature(enable = "avx2,fma")]
fn hsum4_128(a: __m128, b: __m128, c: __m128, d: __m128) -> __m128 {
    let ab = _mm_add_ps(_mm_unpacklo_ps(a, b), _mm_unpackhi_ps(a, b));
    let cd = _mm_add_ps(_mm_unpacklo_ps(c, d), _mm_unpackhi_ps(c, d));
    _mm_add_ps(_mm_movelh_ps(ab, cd), _mm_movehl_ps(cd, ab))
}

/// x, y, z of 4 vertices (one register each) -> 12 interleaved floats (3 registers).
#[inline]
#[target_feature(enable = "avx2,fma")]
fn interleave_128(x: __m128, y: __m128, z: __m128) -> [__m128; 3] {
    let rxy = _mm_shuffle_ps::<0b10_00_10_00>(x, y); // x0 x2 y0 y2
    let ryz = _mm_shuffle_ps::<0b11_01_11_01>(y, z); // y1 y3 z1 z3
    let rzx = _mm_shuffle_ps::<0b11_01_10_00>(z, x); // z0 z2 x1 x3
    [
        _mm_shuffle_ps::<0b10_00_10_00>(rxy, rzx), // x0 y0 z0 x1
        _mm_shuffle_ps::<0b11_01_10_00>(ryz, rxy), // y1 z1 x2 y2
        _mm_shuffle_ps::<0b11_01_11_01>(rzx, ryz), // z2 x3 y3 z3
    ]
}

/// Rows 0-1 and row 2 of a matrix times (x, y, z, 1) of vertex v, lane sums still to do.
///
/// # Safety
/// `v + 1 < pos.len()` (reads x, y, z of vertex v and x of vertex v + 1).
#[inline]
#[target_feature(enable = "avx2,fma")]
unsafe fn apply_256(r01: __m256, r2: __m128, pos: &[[f32; 3]], v: usize) -> (__m256, __m128) {
    // SAFETY: 4 floats from vertex v are in bounds since v + 1 < pos.len().
    let p = unsafe { _mm_loadu_ps(pos.as_ptr().add(v).cast()) };
    let p = _mm_blend_ps::<0b1000>(p, _mm_set1_ps(1.0));
    (_mm256_mul_ps(r01, _mm256_set_m128(p, p)), _mm_mul_ps(r2, p))
}

/// The AVX2 skinning loop: blocks of 4 vertices; `rows` gives vertex v's rows 0-1 and row 2,
/// `scalar` does one vertex on the checked path.
#[inline]
#[target_feature(enable = "avx2,fma")]
#[allow(clippy::too_many_arguments)] // the two kernels differ only in these arguments
fn skin_blocks_256(
    pal: &[AlignedMat4],
    pos: &[[f32; 3]],
    jnt: &[[u32; 4]],
    out: &mut [[f32; 3]],
    first_only: bool,
    stream: bool,
    rows: impl Fn(usize) -> (__m256, __m128),
    scalar: impl Fn(usize) -> [f32; 3],
) {
    let n = out.len();
    assert!(pos.len() == n && jnt.len() == n);
    let last = _mm256_set1_epi32(len_u32(pal).wrapping_sub(1) as i32);
    // Streaming stores need 16-byte aligned addresses: blocks start at the first aligned vertex.
    let head = if stream { head_to(out, 16, 4) } else { 0 };
    fill(out, 0..head, &scalar);
    let mut b = head;
    // Leave at least one vertex after the block: apply_256 reads one float past its vertex.
    while b + 4 < n && !pal.is_empty() {
        // SAFETY: b + 4 <= n.
        if !unsafe { indices_ok_256(jnt, b, last, first_only) } {
            fill(out, b..b + 4, &scalar);
            b += 4;
            continue;
        }
        // SAFETY: v + 1 < n for v < b + 4.
        let q = |v: usize| {
            let (r01, r2) = rows(v);
            unsafe { apply_256(r01, r2, pos, v) }
        };
        let (q0, q1, q2, q3) = (q(b), q(b + 1), q(b + 2), q(b + 3));
        let xy = hsum4_256(q0.0, q1.0, q2.0, q3.0);
        let z = hsum4_128(q0.1, q1.1, q2.1, q3.1);
        let o = interleave_128(
            _mm256_castps256_ps128(xy),
            _mm256_extractf128_ps::<1>(xy),
            z,
        );
        // SAFETY: 12 floats of vertices b..b+4 lie in out; storeu needs no alignment, and when
        // streaming out[b] is 16-byte aligned (out[head] is, and 4 vertices are 48 bytes).
        unsafe {
            let d = out.as_mut_ptr().add(b).cast::<f32>();
            for (i, o) in o.into_iter().enumerate() {
                if stream {
                    _mm_stream_ps(d.add(4 * i), o);
                } else {
                    _mm_storeu_ps(d.add(4 * i), o);
                }
            }
        }
        b += 4;
    }
    fill(out, b..n, &scalar);
    if stream {
        _mm_sfence();
    }
}

/// The AVX2 4-influence kernel. Needs AVX2 and FMA; the slices have equal lengths.
#[target_feature(enable = "avx2,fma")]
pub(super) fn skin_avx2(
    pal: &[AlignedMat4],
    pos: &[[f32; 3]],
    jnt: &[[u32; 4]],
    wts: &[[f32; 4]],
    out: &mut [[f32; 3]],
    stream: bool,
) {
    assert_eq!(wts.len(), out.len());
    let base = pal.as_ptr().cast::<f32>();
    let rows = |v: usize| {
        // SAFETY: called only for v < n in a block whose indices indices_ok_256 checked, so
        // base + 16 j is one 64-byte aligned AlignedMat4 (an aligned 32- and 16-byte load).
        unsafe {
            let (j, w) = (jnt.get_unchecked(v), wts.get_unchecked(v));
            let m = |k: usize| base.add(16 * j[k] as usize);
            let wk = |k: usize| _mm256_set1_ps(w[k]);
            let mut r01 = _mm256_mul_ps(_mm256_load_ps(m(0)), wk(0));
            let mut r2 = _mm_mul_ps(_mm_load_ps(m(0).add(8)), _mm256_castps256_ps128(wk(0)));
            for k in 1..4 {
                r01 = _mm256_fmadd_ps(_mm256_load_ps(m(k)), wk(k), r01);
                r2 = _mm_fmadd_ps(_mm_load_ps(m(k).add(8)), _mm256_castps256_ps128(wk(k)), r2);
            }
            (r01, r2)
        }
    };
    skin_blocks_256(pal, pos, jnt, out, false, stream, rows, |v| {
        skin_vertex(pal, &pos[v], &jnt[v], &wts[v])
    });
}

/// The AVX2 1-influence kernel. Needs AVX2 and FMA; the slices have equal lengths.
#[target_feature(enable = "avx2,fma")]
pub(super) fn skin1_avx2(
    pal: &[AlignedMat4],
    pos: &[[f32; 3]],
    jnt: &[[u32; 4]],
    out: &mut [[f32; 3]],
    stream: bool,
) {
    let base = pal.as_ptr().cast::<f32>();
    let rows = |v: usize| {
        // SAFETY: called only for v < n in a block whose first indices indices_ok_256 checked.
        unsafe {
            let m = base.add(16 * jnt.get_unchecked(v)[0] as usize);
            (_mm256_load_ps(m), _mm_load_ps(m.add(8)))
        }
    };
    skin_blocks_256(pal, pos, jnt, out, true, stream, rows, |v| {
        skin1_vertex(pal, &pos[v], jnt[v][0])
    });
}

/// The AVX2 static transform: 8 vertices per step, transposed to x/y/z registers and back.
/// Needs AVX2 and FMA; the slices have equal lengths.
#[target_feature(enable = "avx2,fma")]
pub(super) fn transform_avx2(m: &Mat4, pos: &[[f32; 3]], out: &mut [[f32; 3]], stream: bool) {
    let n = out.len();
    assert_eq!(pos.len(), n);
    let c = m.to_cols_array_2d();
    let e = |col: usize, row: usize| _mm256_set1_ps(c[col][row]);
    let rows = [
        [e(0, 0), e(1, 0), e(2, 0), e(3, 0)],
        [e(0, 1), e(1, 1), e(2, 1), e(3, 1)],
        [e(0, 2), e(1, 2), e(2, 2), e(3, 2)],
    ];
    let src = pos.as_ptr().cast::<f32>();
    let dst = out.as_mut_ptr().cast::<f32>();
    // Streaming stores need 32-byte aligned addresses: steps start at the first aligned vertex.
    let head = if stream { head_to(out, 32, 8) } else { 0 };
    super::portable::transform(m, &pos[..head], &mut out[..head]);
    let full = head + (n - head) / 8 * 8;
    for v in (head..full).step_by(8) {
        // SAFETY: vertices v..v+8 are 24 floats (6 x 4) in bounds of pos; loadu needs no alignment.
        let (m03, m14, m25) = unsafe {
            let s = src.add(3 * v);
            let l = |i: usize| _mm_loadu_ps(s.add(4 * i));
            (
                _mm256_set_m128(l(3), l(0)),
                _mm256_set_m128(l(4), l(1)),
                _mm256_set_m128(l(5), l(2)),
            )
        };
        // AoS -> SoA, per 128-bit half (vertices 0-3 low, 4-7 high).
        let xy = _mm256_shuffle_ps::<0b10_01_11_10>(m14, m25);
        let yz = _mm256_shuffle_ps::<0b01_00_10_01>(m03, m14);
        let x = _mm256_shuffle_ps::<0b10_00_11_00>(m03, xy);
        let y = _mm256_shuffle_ps::<0b11_01_10_00>(yz, xy);
        let z = _mm256_shuffle_ps::<0b11_00_11_01>(yz, m25);
        let t = |r: &[__m256; 4]| {
            _mm256_fmadd_ps(
                z,
                r[2],
                _mm256_fmadd_ps(y, r[1], _mm256_fmadd_ps(x, r[0], r[3])),
            )
        };
        let (x, y, z) = (t(&rows[0]), t(&rows[1]), t(&rows[2]));
        // SoA -> AoS.
        let rxy = _mm256_shuffle_ps::<0b10_00_10_00>(x, y);
        let ryz = _mm256_shuffle_ps::<0b11_01_11_01>(y, z);
        let rzx = _mm256_shuffle_ps::<0b11_01_10_00>(z, x);
        let r03 = _mm256_shuffle_ps::<0b10_00_10_00>(rxy, rzx);
        let r14 = _mm256_shuffle_ps::<0b11_01_10_00>(ryz, rxy);
        let r25 = _mm256_shuffle_ps::<0b11_01_11_01>(rzx, ryz);
        let o = [
            _mm256_permute2f128_ps::<0x20>(r03, r14),
            _mm256_permute2f128_ps::<0x30>(r25, r03),
            _mm256_permute2f128_ps::<0x31>(r14, r25),
        ];
        // SAFETY: the same 24 floats in bounds of out; storeu needs no alignment, and when
        // streaming dst + 3 v is 32-byte aligned (out[head] is, and 8 vertices are 96 bytes).
        unsafe {
            let d = dst.add(3 * v);
            for (i, o) in o.into_iter().enumerate() {
                if stream {
                    _mm256_stream_ps(d.add(8 * i), o);
                } else {
                    _mm256_storeu_ps(d.add(8 * i), o);
                }
            }
        }
    }
    super::portable::transform(m, &pos[full..], &mut out[full..]);
    if stream {
        _mm_sfence();
    }
}
