//! The AVX2+FMA kernels: 4- and 1-influence skinning on the column palette (plain stores, inputs
//! prefetched beyond the caches) and the static transform (streaming stores when asked).

use std::arch::x86_64::*;

use glam::Mat4;

use super::portable::{fill, skin1_vertex, skin_vertex};
use super::{head_to, len_u32, AlignedCols, AlignedMat4};

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

/// The blended matrix `b` (columns 0-1, columns 2-3) applied to (x, y, z, 1) of vertex v: the
/// position's coordinates scale whole columns, (c0|c1)(x|y) + (c2|c3)(z|1), and the two halves
/// add to x, y, z and a lane to drop; no sums across lanes.
///
/// The position is loaded into both halves and splat within each (no lane-crossing shuffle, which
/// LLVM would otherwise choose: two `vpermpd`); on a Zen 2 core the kernel took 3% fewer cycles.
///
/// # Safety
/// `v + 1 < pos.len()` (reads x, y, z of vertex v and x of vertex v + 1).
#[inline]
#[target_feature(enable = "avx2,fma")]
unsafe fn apply_cols(b: [__m256; 2], pos: &[[f32; 3]], v: usize) -> __m128 {
    let p: __m256;
    // SAFETY: 4 floats from vertex v are in bounds since v + 1 < pos.len(); vbroadcastf128 needs
    // no alignment, and the asm only reads them. In asm, because LLVM folds the splats below back
    // into lane-crossing shuffles of a 128-bit load.
    unsafe {
        std::arch::asm!(
            "vbroadcastf128 {p}, xmmword ptr [{src}]",
            p = out(ymm_reg) p,
            src = in(reg) pos.as_ptr().add(v),
            options(pure, readonly, nostack, preserves_flags),
        );
    }
    // (x x x x | y y y y) and (z z z z | 1 1 1 1); the lane past z (the next vertex's x) is unused.
    let xy = _mm256_permutevar_ps(p, _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1));
    let z1 = _mm256_blend_ps::<0xF0>(_mm256_permute_ps::<0xAA>(p), _mm256_set1_ps(1.0));
    let t = _mm256_fmadd_ps(b[0], xy, _mm256_mul_ps(b[1], z1));
    _mm_add_ps(_mm256_castps256_ps128(t), _mm256_extractf128_ps::<1>(t))
}

/// Prefetches the inputs of the `BLOCK` vertices from `v` into the cache: their positions, joints
/// and weights (none when `wts` is empty). Two lines a stream: a block's 96 or 128 bytes, and the
/// next block's pair starts at most a line further, so every line of each stream is fetched.
/// Addresses past the slices' ends are only hinted at (see [`prefetch_two`]). Into all cache
/// levels: the non-temporal hint made these kernels 8-17% slower at 2M vertices on a Zen 2 core.
#[inline]
#[target_feature(enable = "avx2,fma")]
fn prefetch_block(pos: &[[f32; 3]], jnt: &[[u32; 4]], wts: &[[f32; 4]], v: usize) {
    prefetch_two::<_MM_HINT_T0>(pos.as_ptr().wrapping_add(v).cast());
    prefetch_two::<_MM_HINT_T0>(jnt.as_ptr().wrapping_add(v).cast());
    if !wts.is_empty() {
        prefetch_two::<_MM_HINT_T0>(wts.as_ptr().wrapping_add(v).cast());
    }
}

/// Prefetches the cache lines of `p` and `p + 64` with `HINT` (`_MM_HINT_T0` into every level,
/// `_MM_HINT_NTA` non-temporal), at any address: the addresses are only computed (wrapping), never
/// dereferenced by the program.
#[inline]
#[target_feature(enable = "avx2,fma")]
pub(super) fn prefetch_two<const HINT: i32>(p: *const i8) {
    // A prefetch is a hint: it reads nothing into the program and never faults, whatever the
    // address (so the intrinsic is safe to call).
    _mm_prefetch::<HINT>(p);
    _mm_prefetch::<HINT>(p.wrapping_add(64));
}

/// Vertices whose joint indices are checked at once; a multiple of 4.
const BLOCK: usize = 8;

/// The AVX2 skinning loop: blocks of `BLOCK` vertices whose indices are checked together, then
/// skinned one at a time and stored plainly (see `streams` in the parent module); `blend` gives
/// vertex v's matrix as two registers of columns, `scalar` does one vertex on the checked path.
/// `ahead`: prefetch positions, joints and these weights (if any) [`PREFETCH_VERTICES`] ahead.
/// `MOVES`: xor in place of the position's transform (see [`skin_avx2`]).
#[inline]
#[target_feature(enable = "avx2,fma")]
#[allow(clippy::too_many_arguments)] // the kernels differ only in these arguments
fn skin_blocks_256<const MOVES: bool>(
    pal: &[AlignedMat4],
    pos: &[[f32; 3]],
    jnt: &[[u32; 4]],
    out: &mut [[f32; 3]],
    first_only: bool,
    ahead: Option<&[[f32; 4]]>,
    blend: impl Fn(usize) -> [__m256; 2],
    scalar: impl Fn(usize) -> [f32; 3],
) {
    let n = out.len();
    assert!(pos.len() == n && jnt.len() == n);
    assert!(ahead.is_none_or(|w| w.is_empty() || w.len() == n));
    let last = _mm256_set1_epi32(len_u32(pal).wrapping_sub(1) as i32);
    let mut b = 0;
    // Leave at least one vertex after the block: apply_cols reads one float past its vertex.
    while b + BLOCK < n && !pal.is_empty() {
        // SAFETY: b + BLOCK <= n.
        let ok = (b..b + BLOCK)
            .step_by(4)
            .all(|c| unsafe { indices_ok_256(jnt, c, last, first_only) });
        if !ok {
            fill(out, b..b + BLOCK, &scalar);
            b += BLOCK;
            continue;
        }
        if let Some(wts) = ahead {
            prefetch_block(pos, jnt, wts, b + PREFETCH_VERTICES);
        }
        // SAFETY: v + 1 < n for v < b + BLOCK.
        let q = |v: usize| unsafe {
            if MOVES {
                xor_cols(blend(v), pos, v)
            } else {
                apply_cols(blend(v), pos, v)
            }
        };
        let d = out.as_mut_ptr().cast::<f32>();
        for v in b..b + BLOCK {
            // SAFETY: x, y, z of vertex v and x of vertex v + 1 (v + 1 < n) lie in out; the lane
            // past z lands on the next vertex's x, which its own store writes next.
            unsafe { _mm_storeu_ps(d.add(3 * v), q(v)) };
        }
        b += BLOCK;
    }
    fill(out, b..n, &scalar);
}

/// The AVX2 4-influence kernel on the column palette `cols` (`pal`, its rows, for the checked
/// path), with plain stores at every size (see `streams` in the parent module) and its inputs
/// prefetched [`PREFETCH_VERTICES`] ahead when asked. Needs AVX2 and FMA; the slices have equal
/// lengths, and so do the two palettes.
///
/// On a Zen 2 core this loop (about 34 instructions and 17 loads a vertex) issues about 3.3
/// instructions a cycle, and its time follows its instruction count: fewer loads bought with more
/// instructions measured slower (indices read 8 bytes at a time, +0.3%; weights read once and
/// splat by 4 shuffles, +4%; both, +7%), and so did an FMA tree for the blend (+4%).
///
/// `MOVES`: the kernel's data movement alone, the same loop, index checks, loads (4 indices, 4
/// weight broadcasts, 8 palette registers, the position), prefetches and stores with xor in place
/// of every multiply, FMA and shuffle but the one that folds 256 bits to 128: what the core needs
/// to move the kernel's data, whatever its arithmetic costs. Vertex v's x, y, z are then the xor
/// of its position's, its weights' and, for each influence k with columns `c = cols[j_k]`,
/// `c[i] ^ c[4 + i] ^ c[8 + i] ^ c[12 + i]` (the scalar path's head and tail vertices are
/// skinned).
#[target_feature(enable = "avx2,fma")]
pub(super) fn skin_avx2<const MOVES: bool>(
    pal: &[AlignedMat4],
    cols: &[AlignedCols],
    pos: &[[f32; 3]],
    jnt: &[[u32; 4]],
    wts: &[[f32; 4]],
    out: &mut [[f32; 3]],
    prefetch: bool,
) {
    assert_eq!(wts.len(), out.len());
    assert_eq!(pal.len(), cols.len());
    let base = cols.as_ptr().cast::<f32>();
    let blend = |v: usize| {
        // SAFETY: called only for v < n in a block whose indices indices_ok_256 checked, so
        // base + 16 j is one 64-byte aligned AlignedCols (two aligned 32-byte loads).
        unsafe {
            let (j, w) = (jnt.get_unchecked(v), wts.get_unchecked(v));
            let m = |k: usize| base.add(16 * *j.get_unchecked(k) as usize);
            let wk = |k: usize| _mm256_broadcast_ss(w.get_unchecked(k));
            if MOVES {
                let x = _mm256_xor_ps;
                let half = |k: usize| x(_mm256_load_ps(m(k)), _mm256_load_ps(m(k).add(8)));
                // The weights once, in the low half only: the fold of the halves would cancel them.
                let w = x(x(wk(0), wk(1)), x(wk(2), wk(3)));
                let w = _mm256_zextps128_ps256(_mm256_castps256_ps128(w));
                return [x(half(0), half(1)), x(x(half(2), half(3)), w)];
            }
            let w0 = wk(0);
            let mut b = [
                _mm256_mul_ps(_mm256_load_ps(m(0)), w0),
                _mm256_mul_ps(_mm256_load_ps(m(0).add(8)), w0),
            ];
            for k in 1..4 {
                let w = wk(k);
                b[0] = _mm256_fmadd_ps(_mm256_load_ps(m(k)), w, b[0]);
                b[1] = _mm256_fmadd_ps(_mm256_load_ps(m(k).add(8)), w, b[1]);
            }
            b
        }
    };
    let ahead = prefetch.then_some(wts);
    skin_blocks_256::<MOVES>(pal, pos, jnt, out, false, ahead, blend, |v| {
        skin_vertex(pal, &pos[v], &jnt[v], &wts[v])
    });
}

/// The AVX2 1-influence kernel on the column palette (`pal`, its rows, for the checked path), with
/// plain stores and, when asked, its positions and joints prefetched [`PREFETCH_VERTICES`] ahead.
/// Needs AVX2 and FMA; the slices have equal lengths, and so do the two palettes.
#[target_feature(enable = "avx2,fma")]
pub(super) fn skin1_avx2(
    pal: &[AlignedMat4],
    cols: &[AlignedCols],
    pos: &[[f32; 3]],
    jnt: &[[u32; 4]],
    out: &mut [[f32; 3]],
    prefetch: bool,
) {
    assert_eq!(pal.len(), cols.len());
    let base = cols.as_ptr().cast::<f32>();
    let blend = |v: usize| {
        // SAFETY: called only for v < n in a block whose first indices indices_ok_256 checked.
        unsafe {
            let m = base.add(16 * jnt.get_unchecked(v)[0] as usize);
            [_mm256_load_ps(m), _mm256_load_ps(m.add(8))]
        }
    };
    let ahead = prefetch.then_some(&[][..]);
    skin_blocks_256::<false>(pal, pos, jnt, out, true, ahead, blend, |v| {
        skin1_vertex(pal, &pos[v], jnt[v][0])
    });
}

/// [`apply_cols`]'s loads with xor for its arithmetic: the position's x, y, z xor the two halves of
/// `b` (one fold of 256 bits to 128, the one shuffle left).
///
/// # Safety
/// `v + 1 < pos.len()`.
#[inline]
#[target_feature(enable = "avx2,fma")]
unsafe fn xor_cols(b: [__m256; 2], pos: &[[f32; 3]], v: usize) -> __m128 {
    // SAFETY: 4 floats from vertex v are in bounds since v + 1 < pos.len().
    let p = unsafe { _mm_loadu_ps(pos.as_ptr().add(v).cast()) };
    let b = _mm256_xor_ps(b[0], b[1]);
    _mm_xor_ps(
        p,
        _mm_xor_ps(_mm256_castps256_ps128(b), _mm256_extractf128_ps::<1>(b)),
    )
}

/// How far ahead, in vertices, the AVX2 loops prefetch their inputs when their output is larger
/// than the caches (over 8 MB): the static transform, the skinning kernels and the memory bound's
/// loop. From DRAM the hardware prefetcher alone fell short on a Zen 2 core: the static transform
/// ran at about 1.45x of its bound at 2M vertices, 1.05-1.12x with a T0 hint (64 ahead: 1.25x;
/// 1024: 1.2x); the 4-influence kernel gained 3-5% (1 and 2 threads), the 1-influence kernel
/// 10-12% (4.85-4.93 ms to 4.31-4.41, one thread). The non-temporal hint then moved the static
/// transform and the bound's loop further (2M, one thread: static 1.8-2.0 ms to 1.46-1.55, the
/// 12 + 12 byte bound 1.8-2.0 to 1.49-1.51, the 44 + 12 byte bound 4.3-4.6 to 4.1-4.2; 128 to 512
/// ahead alike), and the skinning kernels back (see `prefetch_block`). From L3 (200k vertices)
/// either hint made the loops slower (the bound's twice as slow), so none prefetch there.
pub(super) const PREFETCH_VERTICES: usize = 256;

/// How far, in bytes, the static transform's loads run ahead of its streaming stores still in
/// flight. A load whose address matches such a store's in its low 12 bits (4K aliasing) waits for
/// it: with `out` 16 to 176 bytes past `pos` modulo 4 KiB, the loop took twice as long at 2M
/// vertices on a Zen 2 core (3.7-4.0 ms against 1.9), 192 to 272 bytes past cost 20%, and from 288
/// on nothing; plain stores and the skinning kernels showed no such window.
pub(super) const ALIAS_WINDOW: usize = 384;

/// Whether `out` lies 1 to [`ALIAS_WINDOW`] bytes past `pos` modulo 4 KiB, where a forward loop's
/// loads would meet its own recent stores.
pub(super) fn loads_meet_stores(pos: &[[f32; 3]], out: &[[f32; 3]]) -> bool {
    let past = (out.as_ptr() as usize).wrapping_sub(pos.as_ptr() as usize) % 4096;
    (1..=ALIAS_WINDOW).contains(&past)
}

/// The static transform's matrix as broadcast rows: `rows[r][c]` is element (r, c) in every lane.
type Rows = [[__m256; 4]; 3];

/// 8 vertices' positions from `s` (24 floats) as x, y, z registers, transposed per 128-bit half
/// (vertices 0-3 low, 4-7 high).
///
/// # Safety
/// `s..s + 24` is readable; no alignment needed.
#[inline]
#[target_feature(enable = "avx2,fma")]
unsafe fn load_soa(s: *const f32) -> [__m256; 3] {
    // SAFETY: the caller guarantees the 24 floats; loadu needs no alignment.
    let (m03, m14, m25) = unsafe {
        let l = |i: usize| _mm_loadu_ps(s.add(4 * i));
        (
            _mm256_set_m128(l(3), l(0)),
            _mm256_set_m128(l(4), l(1)),
            _mm256_set_m128(l(5), l(2)),
        )
    };
    let xy = _mm256_shuffle_ps::<0b10_01_11_10>(m14, m25);
    let yz = _mm256_shuffle_ps::<0b01_00_10_01>(m03, m14);
    [
        _mm256_shuffle_ps::<0b10_00_11_00>(m03, xy),
        _mm256_shuffle_ps::<0b11_01_10_00>(yz, xy),
        _mm256_shuffle_ps::<0b11_00_11_01>(yz, m25),
    ]
}

/// x, y, z of 8 vertices through the matrix: each output is `z r2 + (y r1 + (x r0 + r3))`.
#[inline]
#[target_feature(enable = "avx2,fma")]
fn transform_soa([x, y, z]: [__m256; 3], rows: &Rows) -> [__m256; 3] {
    rows.map(|r| {
        _mm256_fmadd_ps(
            z,
            r[2],
            _mm256_fmadd_ps(y, r[1], _mm256_fmadd_ps(x, r[0], r[3])),
        )
    })
}

/// 8 vertices' x, y, z registers stored interleaved at `d` (24 floats), streaming when asked.
///
/// # Safety
/// `d..d + 24` is writable, and 32-byte aligned when `stream`.
#[inline]
#[target_feature(enable = "avx2,fma")]
unsafe fn store_aos(d: *mut f32, [x, y, z]: [__m256; 3], stream: bool) {
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
    // SAFETY: as the caller guarantees; storeu needs no alignment.
    unsafe {
        for (i, o) in o.into_iter().enumerate() {
            if stream {
                _mm256_stream_ps(d.add(8 * i), o);
            } else {
                _mm256_storeu_ps(d.add(8 * i), o);
            }
        }
    }
}

/// The static transform's steps: for each v of `steps`, vertices v..v+8 loaded, transformed and
/// stored (streaming when `STREAM`, then also prefetching the positions `ahead` vertices from v).
/// One loop per store kind, so that no step tests what the call already decided. Software
/// pipelined: each step's loads and transposes come before the previous step's arithmetic, whose
/// chain of FMAs and shuffles otherwise held the core's FP queue; on a Zen 2 core from L3 (200k
/// vertices) 1.75-1.77 cycles a vertex against 1.89-1.90.
///
/// # Safety
/// For every v of `steps`, `src + 3 v .. + 24` is readable and `dst + 3 v .. + 24` writable, and
/// 32-byte aligned when `STREAM`.
#[inline]
#[target_feature(enable = "avx2,fma")]
unsafe fn transform_steps<const STREAM: bool>(
    rows: &Rows,
    src: *const f32,
    dst: *mut f32,
    mut steps: impl Iterator<Item = usize>,
    ahead: isize,
) {
    let load = |v: usize| {
        if STREAM {
            // The lines ahead may lie outside pos near either end: they are only hinted at.
            // Non-temporal, as the memory bound's loop (see PREFETCH_VERTICES).
            prefetch_two::<_MM_HINT_NTA>(src.wrapping_offset(3 * (v as isize + ahead)).cast());
        }
        // SAFETY: as the caller guarantees for v.
        unsafe { load_soa(src.add(3 * v)) }
    };
    // SAFETY (both): as the caller guarantees for v.
    let store =
        |v: usize, xyz| unsafe { store_aos(dst.add(3 * v), transform_soa(xyz, rows), STREAM) };
    let Some(mut v) = steps.next() else {
        return;
    };
    let mut xyz = load(v);
    for next in steps {
        let loaded = load(next);
        store(v, xyz);
        (v, xyz) = (next, loaded);
    }
    store(v, xyz);
}

/// The AVX2 static transform: 8 vertices per step, transposed to x/y/z registers and back; when
/// streaming, positions are prefetched [`PREFETCH_VERTICES`] ahead, and the steps run from the
/// last to the first where the loads would otherwise meet the stores (see [`ALIAS_WINDOW`]).
/// Needs AVX2 and FMA; the slices have equal lengths.
#[target_feature(enable = "avx2,fma")]
pub(super) fn transform_avx2(m: &Mat4, pos: &[[f32; 3]], out: &mut [[f32; 3]], stream: bool) {
    let n = out.len();
    assert_eq!(pos.len(), n);
    let c = m.to_cols_array_2d();
    let e = |col: usize, row: usize| _mm256_set1_ps(c[col][row]);
    let rows: Rows = [0, 1, 2].map(|r| [e(0, r), e(1, r), e(2, r), e(3, r)]);
    let src = pos.as_ptr().cast::<f32>();
    let dst = out.as_mut_ptr().cast::<f32>();
    // Streaming stores need 32-byte aligned addresses: steps start at the first aligned vertex.
    let head = if stream { head_to(out, 32, 8) } else { 0 };
    super::portable::transform(m, &pos[..head], &mut out[..head]);
    let full = head + (n - head) / 8 * 8;
    let steps = (head..full).step_by(8);
    // SAFETY: every step v covers vertices v..v+8 with head <= v and v + 8 <= full <= n, 24 floats
    // in bounds of pos and of out; when streaming dst + 3 v is 32-byte aligned (out[head] is, and 8
    // vertices are 96 bytes).
    unsafe {
        if !stream {
            transform_steps::<false>(&rows, src, dst, steps, 0);
        } else if loads_meet_stores(pos, out) {
            transform_steps::<true>(&rows, src, dst, steps.rev(), -(PREFETCH_VERTICES as isize));
        } else {
            transform_steps::<true>(&rows, src, dst, steps, PREFETCH_VERTICES as isize);
        }
    }
    super::portable::transform(m, &pos[full..], &mut out[full..]);
    if stream {
        _mm_sfence();
    }
}
