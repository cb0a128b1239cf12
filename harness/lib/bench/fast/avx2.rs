//! The AVX2+FMA kernels: 4- and 1-influence skinning on the column palette (plain stores, inputs
//! prefetched where a trial finds it pays) and the static transform (streaming stores when asked).

use std::arch::x86_64::*;

use glam::Mat4;

use super::portable::{fill, skin1_vertex, skin_vertex};
use super::stream::Ahead;
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
/// Addresses past the slices' ends are only hinted at (see [`Ahead::fetch`]). Into all cache
/// levels: the non-temporal hint made these kernels 8-17% slower at 2M vertices on a Zen 2 core.
#[inline]
#[target_feature(enable = "avx2,fma")]
fn prefetch_block(pos: &[[f32; 3]], jnt: &[[u32; 4]], wts: &[[f32; 4]], v: usize) {
    Ahead::T0.fetch(pos.as_ptr().wrapping_add(v).cast(), 2);
    Ahead::T0.fetch(jnt.as_ptr().wrapping_add(v).cast(), 2);
    if !wts.is_empty() {
        Ahead::T0.fetch(wts.as_ptr().wrapping_add(v).cast(), 2);
    }
}

/// Vertices whose joint indices are checked at once; a multiple of 4.
pub(super) const BLOCK: usize = 8;

/// The frame of the AVX2 skinning loops: blocks of [`BLOCK`] vertices whose joint indices (the
/// first of each when `first_only`) are checked together; a block whose indices all lie in the
/// palette goes to `block(b, out)` (vertices b..b + BLOCK, `out` the output's first float), after
/// its inputs are prefetched when asked (`ahead`: positions, joints and these weights, if any,
/// [`PREFETCH_VERTICES`] ahead); the other blocks and the tail go to `scalar`, one vertex at a
/// time, on the checked path. At least one vertex is left after the last block, so a block may
/// read one float past its last position.
#[inline]
#[target_feature(enable = "avx2,fma")]
#[allow(clippy::too_many_arguments)] // the kernels differ only in these arguments
pub(super) fn checked_blocks(
    pal: &[AlignedMat4],
    pos: &[[f32; 3]],
    jnt: &[[u32; 4]],
    out: &mut [[f32; 3]],
    first_only: bool,
    ahead: Option<&[[f32; 4]]>,
    scalar: impl Fn(usize) -> [f32; 3],
    mut block: impl FnMut(usize, *mut f32),
) {
    let n = out.len();
    assert!(pos.len() == n && jnt.len() == n);
    assert!(ahead.is_none_or(|w| w.is_empty() || w.len() == n));
    let last = _mm256_set1_epi32(len_u32(pal).wrapping_sub(1) as i32);
    let mut b = 0;
    while b + BLOCK < n && !pal.is_empty() {
        // SAFETY: b + BLOCK <= n.
        let ok = (b..b + BLOCK)
            .step_by(4)
            .all(|c| unsafe { indices_ok_256(jnt, c, last, first_only) });
        if ok {
            if let Some(wts) = ahead {
                prefetch_block(pos, jnt, wts, b + PREFETCH_VERTICES);
            }
            block(b, out.as_mut_ptr().cast::<f32>());
        } else {
            fill(out, b..b + BLOCK, &scalar);
        }
        b += BLOCK;
    }
    fill(out, b..n, &scalar);
}

/// The column form's loop ([`checked_blocks`]): each vertex of a block skinned and stored plainly
/// (see `streams` in the parent module); `blend` gives vertex v's matrix as two registers of
/// columns. `MOVES`: xor in place of the position's transform (see [`skin_avx2`]).
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
    checked_blocks(pal, pos, jnt, out, first_only, ahead, scalar, |b, d| {
        for v in b..b + BLOCK {
            // SAFETY: checked_blocks leaves v + 1 < n, so apply_cols' read of one float past
            // vertex v is in bounds; x, y, z of vertex v and x of vertex v + 1 lie in out, and the
            // lane past z lands on the next vertex's x, which its own store writes next.
            unsafe {
                let q = if MOVES {
                    xor_cols(blend(v), pos, v)
                } else {
                    apply_cols(blend(v), pos, v)
                };
                _mm_storeu_ps(d.add(3 * v), q);
            }
        }
    });
}

/// The AVX2 4-influence kernel on the column palette `cols` (`pal`, its rows, for the checked
/// path), with plain stores at every size (see `streams` in the parent module) and its inputs
/// prefetched [`PREFETCH_VERTICES`] ahead when asked. Needs AVX2 and FMA; the slices have equal
/// lengths, and so do the two palettes.
///
/// On a Zen 2 core this loop (about 34 instructions and 17 loads a vertex) issues about 3.3
/// instructions a cycle, and its time follows its instruction count: fewer loads bought with more
/// instructions measured slower (indices read 8 bytes at a time, +0.3%; weights read once and
/// splat by 4 shuffles, +4%; both, +7%), and so did an FMA tree for the blend (+4%). On a Zen 4
/// core it takes 8.5-8.6 cycles a vertex in cache, no longer than its loads and stores alone
/// (`MOVES`, 8.6-8.9), and these measured no faster there either: the weights splat by shuffles,
/// the indices read 8 bytes at a time, and the blend on 512-bit registers (one load a matrix).
/// Taken apart there in bare loops (one vertex a turn, no index checks), the same instructions
/// take 7.8 cycles a vertex from L2; the blend alone 7.0; its 10 FMA-pipe operations alone 5.0
/// (two FMA pipes: the floor of this arithmetic, 1.14x its flops at the measured peak); its 17
/// loads alone 5.6-5.8 (two vector loads a cycle, scalar ones sharing the ports). Neither binds
/// alone, and none of these moved the loop closer to either: the weights splat from one load
/// (-1%), the indices from two 8-byte reads (-1%), the next vertex's indices loaded a turn
/// ahead (+7%), a blend as two chains and an add (+9%). The index checks cost 4%.
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

/// How far ahead, in vertices, the AVX2 loops prefetch their inputs where trials found it faster
/// (from the shared cache's reach on, `Reach`): the static transform, the skinning kernels and the
/// memory bound's loop. From DRAM the hardware prefetcher alone fell short on a Zen 2 core: the static transform
/// ran at about 1.45x of its bound at 2M vertices, 1.05-1.12x with a T0 hint (64 ahead: 1.25x;
/// 1024: 1.2x); the 4-influence kernel gained 3-5% (1 and 2 threads), the 1-influence kernel
/// 10-12% (4.85-4.93 ms to 4.31-4.41, one thread). The non-temporal hint then moved the static
/// transform and the bound's loop further (2M, one thread: static 1.8-2.0 ms to 1.46-1.55, the
/// 12 + 12 byte bound 1.8-2.0 to 1.49-1.51, the 44 + 12 byte bound 4.3-4.6 to 4.1-4.2; 128 to 512
/// ahead alike), and the skinning kernels back (see `prefetch_block`); on an Intel Xeon the
/// non-temporal hint made the bound's loop more than twice as slow, so which hint the loops
/// streaming take is a trial's (`stream::bound_trial`). From L3 (200k vertices) either hint made
/// the loops slower on a Zen 2 core (the bound's twice as slow), and a trial at that size decides
/// there too.
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

/// [`Rows`] in 128-bit registers.
type Rows128 = [[__m128; 4]; 3];

/// 8 vertices' positions from `s` (24 floats) as x, y, z registers, transposed per 128-bit half
/// (vertices 0-3 low, 4-7 high) as [`load_soa4`] does.
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

/// 4 vertices' positions from `s` (12 floats) as x, y, z registers: the three loads hold
/// (x0 y0 z0 x1), (y1 z1 x2 y2) and (z2 x3 y3 z3).
///
/// # Safety
/// `s..s + 12` is readable; no alignment needed.
#[inline]
#[target_feature(enable = "avx2,fma")]
unsafe fn load_soa4(s: *const f32) -> [__m128; 3] {
    // SAFETY: the caller guarantees the 12 floats; loadu needs no alignment.
    let [m0, m1, m2] = unsafe { [0, 1, 2].map(|i| _mm_loadu_ps(s.add(4 * i))) };
    let xy = _mm_shuffle_ps::<0b10_01_11_10>(m1, m2);
    let yz = _mm_shuffle_ps::<0b01_00_10_01>(m0, m1);
    [
        _mm_shuffle_ps::<0b10_00_11_00>(m0, xy),
        _mm_shuffle_ps::<0b11_01_10_00>(yz, xy),
        _mm_shuffle_ps::<0b11_00_11_01>(yz, m2),
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

/// [`transform_soa`] of 4 vertices, as `(x r0 + r3) + (z r2 + y r1)`: two chains of two and an
/// add, the same flops; on a Zen 1 core from L2 (10k vertices) 1.01 ns a vertex against 1.08 for
/// the chain of three FMAs.
#[inline]
#[target_feature(enable = "avx2,fma")]
fn transform_soa4([x, y, z]: [__m128; 3], rows: &Rows128) -> [__m128; 3] {
    rows.map(|r| {
        _mm_add_ps(
            _mm_fmadd_ps(x, r[0], r[3]),
            _mm_fmadd_ps(z, r[2], _mm_mul_ps(y, r[1])),
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
    let [r03, r14, r25] = aos([x, y, z]);
    // (r03 lo | r14 lo), (r25 lo | r03 hi), (r14 hi | r25 hi): 128-bit inserts and a blend, not
    // vperm2f128, which a Zen 1 core splits into 8 operations (1 on later cores). The extract is in
    // asm, or LLVM folds it and its insert back into a vperm2f128.
    let r14_hi: __m128;
    // SAFETY: a register-to-register extract; no memory, no flags.
    unsafe {
        std::arch::asm!(
            "vextractf128 {hi}, {r}, 1",
            hi = out(xmm_reg) r14_hi,
            r = in(ymm_reg) r14,
            options(pure, nomem, nostack, preserves_flags),
        );
    }
    let o = [
        _mm256_insertf128_ps::<1>(r03, _mm256_castps256_ps128(r14)),
        _mm256_blend_ps::<0xF0>(r25, r03),
        _mm256_insertf128_ps::<0>(r25, r14_hi),
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

/// x, y, z registers interleaved back per 128-bit half: (x0 y0 z0 x1), (y1 z1 x2 y2),
/// (z2 x3 y3 z3) of the vertices in each half.
#[inline]
#[target_feature(enable = "avx2,fma")]
fn aos([x, y, z]: [__m256; 3]) -> [__m256; 3] {
    let rxy = _mm256_shuffle_ps::<0b10_00_10_00>(x, y);
    let ryz = _mm256_shuffle_ps::<0b11_01_11_01>(y, z);
    let rzx = _mm256_shuffle_ps::<0b11_01_10_00>(z, x);
    [
        _mm256_shuffle_ps::<0b10_00_10_00>(rxy, rzx),
        _mm256_shuffle_ps::<0b11_01_10_00>(ryz, rxy),
        _mm256_shuffle_ps::<0b11_01_11_01>(rzx, ryz),
    ]
}

/// 4 vertices' x, y, z registers stored interleaved at `d` (12 floats), streaming when asked.
///
/// # Safety
/// `d..d + 12` is writable, and 16-byte aligned when `stream`.
#[inline]
#[target_feature(enable = "avx2,fma")]
unsafe fn store_aos4(d: *mut f32, [x, y, z]: [__m128; 3], stream: bool) {
    let rxy = _mm_shuffle_ps::<0b10_00_10_00>(x, y);
    let ryz = _mm_shuffle_ps::<0b11_01_11_01>(y, z);
    let rzx = _mm_shuffle_ps::<0b11_01_10_00>(z, x);
    let o = [
        _mm_shuffle_ps::<0b10_00_10_00>(rxy, rzx),
        _mm_shuffle_ps::<0b11_01_10_00>(ryz, rxy),
        _mm_shuffle_ps::<0b11_01_11_01>(rzx, ryz),
    ];
    // SAFETY: as the caller guarantees; storeu needs no alignment.
    unsafe {
        for (i, o) in o.into_iter().enumerate() {
            if stream {
                _mm_stream_ps(d.add(4 * i), o);
            } else {
                _mm_storeu_ps(d.add(4 * i), o);
            }
        }
    }
}

/// The static transform's steps: for each v of `steps`, a step's vertices from v loaded (`load`,
/// from the step's first float), transformed and stored (`store`, to its first float, streaming
/// when `STREAM`), the positions `distance` vertices from v read as `hint` says. One loop per store
/// kind, so that no step tests what the call already decided. Software pipelined: each step's
/// loads and transposes come before the previous step's arithmetic, whose chain of FMAs and
/// shuffles otherwise held the core's FP queue; on a Zen 2 core from L3 (200k vertices) 1.75-1.77
/// cycles a vertex against 1.89-1.90.
///
/// # Safety
/// For every v of `steps`, the floats `load` reads from `src + 3 v` are readable and those `store`
/// writes from `dst + 3 v` writable, and aligned as `store` needs when `STREAM`.
#[inline]
#[target_feature(enable = "avx2,fma")]
unsafe fn transform_steps<const STREAM: bool, T: Copy>(
    src: *const f32,
    dst: *mut f32,
    mut steps: impl Iterator<Item = usize>,
    distance: isize,
    hint: Ahead,
    load: impl Fn(*const f32) -> T,
    store: impl Fn(*mut f32, T, bool),
) {
    let load = |v: usize| {
        // The lines ahead may lie outside pos near either end: they are only hinted at.
        hint.fetch(src.wrapping_offset(3 * (v as isize + distance)).cast(), 2);
        // SAFETY: as the caller guarantees for v.
        load(unsafe { src.add(3 * v) })
    };
    // SAFETY: as the caller guarantees for v.
    let store = |v: usize, xyz| store(unsafe { dst.add(3 * v) }, xyz, STREAM);
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

/// The AVX2 static transform: 8 vertices per step in 256-bit registers (`WIDE`) or 4 in 128-bit
/// ones, transposed to x/y/z registers and back; positions [`PREFETCH_VERTICES`] ahead are read
/// as `hint` says (the bound's loop's way, `stream::hint`), and when streaming the steps run
/// from the last to the first where the loads would
/// otherwise meet the stores (see [`ALIAS_WINDOW`]). Needs AVX2 and FMA; the slices have equal
/// lengths.
///
/// The 128-bit steps are the row family's: on a Zen 1 core, which splits each 256-bit operation
/// in two, the 256-bit steps took 3.3-3.5 cycles a vertex from L2 (10k vertices). There a form
/// with no transposes, one vertex at a time (x, y and z broadcast from memory, three FMAs, one
/// 16-byte store over the next vertex's x), was no faster, alternated in one process: 2.0-3.0
/// cycles a vertex from L2 against these steps' 2.3-2.9, 3.3-5.2 from L3 (200k) against 3.2-4.8.
#[target_feature(enable = "avx2,fma")]
pub(super) fn transform_avx2<const WIDE: bool>(
    m: &Mat4,
    pos: &[[f32; 3]],
    out: &mut [[f32; 3]],
    stream: bool,
    hint: Ahead,
) {
    let n = out.len();
    assert_eq!(pos.len(), n);
    let per = if WIDE { 8 } else { 4 };
    let c = m.to_cols_array_2d();
    let src = pos.as_ptr().cast::<f32>();
    let dst = out.as_mut_ptr().cast::<f32>();
    // Streaming stores need aligned addresses (a register's width): steps start at the first
    // aligned vertex.
    let head = if stream {
        head_to(out, 4 * per, per)
    } else {
        0
    };
    super::portable::transform(m, &pos[..head], &mut out[..head]);
    let full = head + (n - head) / per * per;
    let steps = (head..full).step_by(per);
    let backward = stream && loads_meet_stores(pos, out);
    // SAFETY: every step v covers vertices v..v+per with head <= v and v + per <= full <= n, 3 per
    // floats in bounds of pos and of out; when streaming dst + 3 v is aligned to the register's
    // width (out[head] is, and per vertices are 3 widths).
    unsafe {
        if WIDE {
            let e = |col: usize, row: usize| _mm256_set1_ps(c[col][row]);
            let rows: Rows = [0, 1, 2].map(|r| [e(0, r), e(1, r), e(2, r), e(3, r)]);
            let load = |s| load_soa(s);
            let store = |d, xyz, st| store_aos(d, transform_soa(xyz, &rows), st);
            run_steps((stream, hint), backward, src, dst, steps, load, store);
        } else {
            let e = |col: usize, row: usize| _mm_set1_ps(c[col][row]);
            let rows: Rows128 = [0, 1, 2].map(|r| [e(0, r), e(1, r), e(2, r), e(3, r)]);
            let load = |s| load_soa4(s);
            let store = |d, xyz, st| store_aos4(d, transform_soa4(xyz, &rows), st);
            run_steps((stream, hint), backward, src, dst, steps, load, store);
        }
    }
    super::portable::transform(m, &pos[full..], &mut out[full..]);
    if stream {
        _mm_sfence();
    }
}

/// [`transform_steps`] as the call asks: plain stores, or streaming ones run backward when
/// `backward`; the positions ahead read as `hint` says either way.
///
/// # Safety
/// As [`transform_steps`] for every step.
#[inline]
#[target_feature(enable = "avx2,fma")]
unsafe fn run_steps<T: Copy>(
    (stream, hint): (bool, Ahead),
    backward: bool,
    src: *const f32,
    dst: *mut f32,
    steps: std::iter::StepBy<std::ops::Range<usize>>,
    load: impl Fn(*const f32) -> T,
    store: impl Fn(*mut f32, T, bool),
) {
    let distance = PREFETCH_VERTICES as isize;
    // SAFETY (all three): as the caller guarantees.
    unsafe {
        if !stream {
            transform_steps::<false, T>(src, dst, steps, distance, hint, load, store);
        } else if backward {
            transform_steps::<true, T>(src, dst, steps.rev(), -distance, hint, load, store);
        } else {
            transform_steps::<true, T>(src, dst, steps, distance, hint, load, store);
        }
    }
}
