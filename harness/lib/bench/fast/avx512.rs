//! The AVX-512F kernels: 4- and 1-influence skinning and the static transform, 16 vertices a block.

use std::arch::x86_64::*;

use glam::Mat4;

use super::portable::{fill, skin1_vertex, skin_vertex};
use super::stream::Ahead;
use super::{len_u32, AlignedMat4};

/// Horizontal sums of each 128-bit lane of a, b, c, d: lane i of the result is (sum a_i, sum b_i, sum c_i, sum d_i).
#[inline]
#[target_feature(enable = "avx512f")]
fn hsum4_512(a: __m512, b: __m512, c: __m512, d: __m512) -> __m512 {
    let ab = _mm512_add_ps(_mm512_unpacklo_ps(a, b), _mm512_unpackhi_ps(a, b));
    let cd = _mm512_add_ps(_mm512_unpacklo_ps(c, d), _mm512_unpackhi_ps(c, d));
    _mm512_add_ps(
        _mm512_shuffle_ps::<0b01_00_01_00>(ab, cd),
        _mm512_shuffle_ps::<0b11_10_11_10>(ab, cd),
    )
}

#[inline]
#[target_feature(enable = "avx512f")]
fn load_i32x16(a: &[i32; 16]) -> __m512i {
    // SAFETY: a is 16 readable i32s; loadu needs no alignment.
    unsafe { _mm512_loadu_si512(a.as_ptr().cast()) }
}

#[inline]
#[target_feature(enable = "avx512f")]
fn load_f32x16(a: &[f32; 16]) -> __m512 {
    // SAFETY: a is 16 readable f32s; loadu needs no alignment.
    unsafe { _mm512_loadu_ps(a.as_ptr()) }
}

/// Permutations that interleave 16 vertices' sums (4 registers of x x x x | y y y y | z z z z | -)
/// into 48 xyz floats: output register o takes sums o and o + 1.
#[inline]
#[target_feature(enable = "avx512f")]
fn pack_indices() -> [__m512i; 3] {
    let mut idx = [[0i32; 16]; 3];
    for (o, lanes) in idx.iter_mut().enumerate() {
        for (l, lane) in lanes.iter_mut().enumerate() {
            let f = 16 * o + l;
            let (v, c) = (f / 3, f % 3);
            let (g, vv) = (v / 4, v % 4);
            *lane = (16 * (g - o) + 4 * c + vv) as i32;
        }
    }
    [
        load_i32x16(&idx[0]),
        load_i32x16(&idx[1]),
        load_i32x16(&idx[2]),
    ]
}

/// The vertices before the first one whose output starts a 64-byte line (at most 15).
pub(super) fn head_to_align(out: &[[f32; 3]]) -> usize {
    super::head_to(out, 64, 16)
}

/// Whether every joint index of the 16 vertices from `jnt[b]` (only the first of each 4 when
/// `first_only`) is below `len`.
///
/// # Safety
/// `b + 16 <= jnt.len()`.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn indices_ok_512(jnt: &[[u32; 4]], b: usize, len: __m512i, first_only: bool) -> bool {
    // SAFETY: the caller guarantees 16 rows (256 bytes) from row b; loadu needs no alignment.
    let m = unsafe {
        let p = jnt.as_ptr().add(b).cast::<__m512i>();
        _mm512_max_epu32(
            _mm512_max_epu32(_mm512_loadu_si512(p), _mm512_loadu_si512(p.add(1))),
            _mm512_max_epu32(_mm512_loadu_si512(p.add(2)), _mm512_loadu_si512(p.add(3))),
        )
    };
    let lanes = if first_only { 0x1111 } else { 0xFFFF };
    _mm512_mask_cmpge_epu32_mask(lanes, m, len) == 0
}

/// Writes 3 registers (16 vertices) at the 64-byte aligned `dst`, streaming or not.
///
/// # Safety
/// `dst` is 64-byte aligned with 48 writable floats.
#[inline]
#[target_feature(enable = "avx512f")]
pub(super) unsafe fn store3_512(dst: *mut f32, o: [__m512; 3], stream: bool) {
    // SAFETY: the caller guarantees alignment and room for 48 floats.
    unsafe {
        if stream {
            _mm512_stream_ps(dst, o[0]);
            _mm512_stream_ps(dst.add(16), o[1]);
            _mm512_stream_ps(dst.add(32), o[2]);
        } else {
            _mm512_store_ps(dst, o[0]);
            _mm512_store_ps(dst.add(16), o[1]);
            _mm512_store_ps(dst.add(32), o[2]);
        }
    }
}

/// How far ahead, in vertices, the AVX-512 kernels prefetch their inputs when asked (from the
/// shared cache's reach on, where their prefetch trial there found it faster: `prefetches`), and
/// their bound's and static transform's loops where a hint reads them: four blocks. On an
/// Intel Xeon (family 6, model 167, a 2-vCPU VM) at 2M vertices from cold caches, alternated in
/// one process (medians of 11), the 4-influence kernel took 10.0 ms without against 7.7 with (8.3
/// at 32 ahead, 8.8 at 256; 5.7 against 4.3 on two threads), the 1-influence one 5.9 against 5.0
/// and the static transform 3.3 against 3.0 (3.4 at 256), where its bound's loop took 2.8.
pub(super) const PREFETCH_VERTICES: usize = 64;

/// Prefetches the inputs of the 16 vertices from `v`: their positions (3 lines), joints (4) and,
/// where `wts` is not empty, weights (4). Each block's lines start where the previous block's
/// end, so every line of each stream is fetched once; near the end they lie past the slices and
/// are only hinted at.
#[inline]
#[target_feature(enable = "avx512f")]
fn prefetch_block(pos: &[[f32; 3]], jnt: &[[u32; 4]], wts: &[[f32; 4]], v: usize) {
    Ahead::T0.fetch(pos.as_ptr().wrapping_add(v).cast(), 3);
    Ahead::T0.fetch(jnt.as_ptr().wrapping_add(v).cast(), 4);
    if !wts.is_empty() {
        Ahead::T0.fetch(wts.as_ptr().wrapping_add(v).cast(), 4);
    }
}

/// B (the rows) times (x, y, z, 1) in every lane, lane sums still to do.
///
/// # Safety
/// `v + 1 < pos.len()` (reads x, y, z of vertex v and x of vertex v + 1).
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn apply_512(b: __m512, pos: &[[f32; 3]], v: usize) -> __m512 {
    // SAFETY: 4 floats from vertex v are in bounds since v + 1 < pos.len().
    let p = unsafe { _mm_loadu_ps(pos.as_ptr().add(v).cast()) };
    // (x, y, z, 1) in every lane: the 4th float read is not a coordinate, a 1 replaces it.
    let p = _mm512_mask_broadcast_f32x4(_mm512_set1_ps(1.0), 0x7777, p);
    _mm512_mul_ps(b, p)
}

/// The four palette matrices of vertex v.
///
/// # Safety
/// `v < jnt.len()` and every `jnt[v][k] < pal.len()`.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn load4_512(pal: &[AlignedMat4], jnt: &[[u32; 4]], v: usize) -> [__m512; 4] {
    // SAFETY: as the caller guarantees; AlignedMat4 is 64-byte aligned, so each matrix is one
    // aligned load.
    unsafe {
        let m = |k: usize| _mm512_load_ps(pal.as_ptr().add(joint(jnt, v, k)).cast());
        [m(0), m(1), m(2), m(3)]
    }
}

/// The blended rows of vertex v: `sum_k w_k * m[k]`.
///
/// # Safety
/// `v < wts.len()`.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn blend_512(m: [__m512; 4], wts: &[[f32; 4]], v: usize) -> __m512 {
    // SAFETY: the caller guarantees v in bounds; the weights are 4 readable floats.
    unsafe {
        let w = wts.get_unchecked(v);
        // A splat of a weight read from memory: LLVM folds it into the multiply as an embedded
        // broadcast ({1to16}), so the weights cost no shuffle. On the AMD EPYC (Zen 4) development
        // machine this is 10-15% faster than one 128-bit load and four in-lane permutes.
        let w = |k: usize| _mm512_set1_ps(*w.get_unchecked(k));
        let b = _mm512_mul_ps(m[0], w(0));
        let b = _mm512_fmadd_ps(m[1], w(1), b);
        let b = _mm512_fmadd_ps(m[2], w(2), b);
        _mm512_fmadd_ps(m[3], w(3), b)
    }
}

/// The rows of `joints[v][0]`.
///
/// # Safety
/// `v < jnt.len()` and `jnt[v][0] < pal.len()`.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn first_512(pal: &[AlignedMat4], jnt: &[[u32; 4]], v: usize) -> __m512 {
    // SAFETY: as the caller guarantees; AlignedMat4 is 64-byte aligned.
    unsafe { _mm512_load_ps(pal.as_ptr().add(joint(jnt, v, 0)).cast()) }
}

/// Joint index k of vertex v, as one scalar load.
///
/// # Safety
/// `v < jnt.len()` and `k < 4`.
#[inline(always)]
unsafe fn joint(jnt: &[[u32; 4]], v: usize, k: usize) -> usize {
    // Volatile, or LLVM reuses the block's vector of indices from indices_ok_512 and extracts
    // each on the shuffle port, which the arithmetic needs.
    // SAFETY: as the caller guarantees: an aligned u32 inside jnt.
    unsafe { std::ptr::read_volatile(jnt.as_ptr().add(v).cast::<u32>().add(k)) as usize }
}

/// The AVX-512F skinning loop: blocks of 16 vertices whose output starts a cache line, their
/// inputs prefetched [`PREFETCH_VERTICES`] ahead when asked (`ahead`: positions, joints and these
/// weights, if any). `load` reads vertex v's palette matrices, `rows` turns them into its matrix
/// rows (blended or not), `scalar` does one vertex on the checked path.
///
/// Measured no faster on a Zen 4 core (9.0-9.4 cycles a vertex in cache): the blend as an FMA
/// tree. Prefetching beyond the caches did not pay there either (at 2M vertices, 256 ahead, the
/// 4-influence kernel no faster with either hint, the 1-influence one 10-30% slower; the static
/// transform and the bound's loop within the run-to-run spread), and does on an Intel Xeon (see
/// [`PREFETCH_VERTICES`]): a trial decides (`prefetch_trial`).
#[inline]
#[target_feature(enable = "avx512f")]
#[allow(clippy::too_many_arguments)] // the two kernels differ only in these arguments
fn skin_blocks_512<M: Copy>(
    pal: &[AlignedMat4],
    pos: &[[f32; 3]],
    jnt: &[[u32; 4]],
    out: &mut [[f32; 3]],
    first_only: bool,
    stream: bool,
    ahead: Option<&[[f32; 4]]>,
    load: impl Fn(usize) -> M,
    rows: impl Fn(usize, M) -> __m512,
    scalar: impl Fn(usize) -> [f32; 3],
) {
    let n = out.len();
    assert!(pos.len() == n && jnt.len() == n);
    let len = _mm512_set1_epi32(len_u32(pal) as i32);
    let pack = pack_indices();
    let head = head_to_align(out);
    fill(out, 0..head, &scalar);
    let mut b = head;
    // Leave at least one vertex after the block: apply_512 reads one float past its vertex.
    while b + 16 < n {
        // SAFETY: b + 16 <= n.
        if !unsafe { indices_ok_512(jnt, b, len, first_only) } {
            fill(out, b..b + 16, &scalar);
            b += 16;
            continue;
        }
        if let Some(wts) = ahead {
            prefetch_block(pos, jnt, wts, b + PREFETCH_VERTICES);
        }
        // Vertex v + 1's matrices are loaded before vertex v is blended, so that the chain
        // index -> palette row overlaps arithmetic (3-4% faster on an Intel Xeon with AVX-512).
        // Only inside the block: the next block's indices are not checked yet.
        let mut next = load(b);
        // A macro rather than a closure: LLVM does not inline a closure called 16 times here.
        macro_rules! vertex {
            ($i:expr) => {{
                let v = b + $i;
                let m = next;
                if $i < 15 {
                    next = load(v + 1);
                }
                // SAFETY: v < b + 16 < n, so the apply reads inside pos.
                unsafe { apply_512(rows(v, m), pos, v) }
            }};
        }
        macro_rules! group {
            ($g:expr) => {{
                let (a0, a1) = (vertex!(4 * $g), vertex!(4 * $g + 1));
                let (a2, a3) = (vertex!(4 * $g + 2), vertex!(4 * $g + 3));
                hsum4_512(a0, a1, a2, a3)
            }};
        }
        let h = [group!(0), group!(1), group!(2), group!(3)];
        let o = [
            _mm512_permutex2var_ps(h[0], pack[0], h[1]),
            _mm512_permutex2var_ps(h[1], pack[1], h[2]),
            _mm512_permutex2var_ps(h[2], pack[2], h[3]),
        ];
        // SAFETY: vertices b..b+16 are in out; b - head is a multiple of 16 and out[head] starts
        // a 64-byte line, so out[b] does too (16 x 12 B = 3 lines).
        unsafe { store3_512(out.as_mut_ptr().add(b).cast(), o, stream) };
        b += 16;
    }
    fill(out, b..n, &scalar);
    if stream {
        _mm_sfence();
    }
}

/// The AVX-512F 4-influence kernel, its inputs prefetched when `prefetch`. Needs AVX-512F; the
/// slices have equal lengths.
#[target_feature(enable = "avx512f")]
pub(super) fn skin_avx512(
    pal: &[AlignedMat4],
    pos: &[[f32; 3]],
    jnt: &[[u32; 4]],
    wts: &[[f32; 4]],
    out: &mut [[f32; 3]],
    stream: bool,
    prefetch: bool,
) {
    assert_eq!(wts.len(), out.len());
    skin_blocks_512(
        pal,
        pos,
        jnt,
        out,
        false,
        stream,
        prefetch.then_some(wts),
        // SAFETY: called only for a block whose indices indices_ok_512 checked, v < n.
        |v| unsafe { load4_512(pal, jnt, v) },
        // SAFETY: v < n = wts.len().
        |v, m| unsafe { blend_512(m, wts, v) },
        |v| skin_vertex(pal, &pos[v], &jnt[v], &wts[v]),
    );
}

/// The AVX-512F 1-influence kernel, its positions and joints prefetched when `prefetch`. Needs
/// AVX-512F; the slices have equal lengths.
#[target_feature(enable = "avx512f")]
pub(super) fn skin1_avx512(
    pal: &[AlignedMat4],
    pos: &[[f32; 3]],
    jnt: &[[u32; 4]],
    out: &mut [[f32; 3]],
    stream: bool,
    prefetch: bool,
) {
    skin_blocks_512(
        pal,
        pos,
        jnt,
        out,
        true,
        stream,
        prefetch.then_some(&[][..]),
        // SAFETY: called only for a block whose first indices indices_ok_512 checked, v < n.
        |v| unsafe { first_512(pal, jnt, v) },
        |_, m| m,
        |v| skin1_vertex(pal, &pos[v], jnt[v][0]),
    );
}

/// Constants of the AVX-512 static transform of 16 vertices (48 floats, 3 registers r0 r1 r2).
/// Output register o, coordinate c gathers its lanes' vertex coordinate c from r(o) and r(o+1),
/// except (o 2, c 2), which reads r2 only.
struct Static512 {
    /// Per output register o and coordinate c: the two-table permutation.
    idx: [[__m512i; 3]; 3],
    /// Per o and column k: the matrix entry `M[row(lane)][k]`, `row(lane) = (16 o + lane) % 3`.
    col: [[__m512; 4]; 3],
}

#[inline]
#[target_feature(enable = "avx512f")]
fn static512(m: &Mat4) -> Static512 {
    let c = m.to_cols_array_2d();
    let mut idx = [[_mm512_setzero_si512(); 3]; 3];
    let mut col = [[_mm512_setzero_ps(); 4]; 3];
    for o in 0..3 {
        for (comp, idx) in idx[o].iter_mut().enumerate() {
            // The first table: the register of lane 0's source (static512_block picks the same).
            let first = (3 * (16 * o / 3) + comp) / 16;
            let mut lanes = [0i32; 16];
            for (l, lane) in lanes.iter_mut().enumerate() {
                let src = 3 * ((16 * o + l) / 3) + comp;
                *lane = (src - 16 * first) as i32;
            }
            *idx = load_i32x16(&lanes);
        }
        for (k, colk) in col[o].iter_mut().enumerate() {
            let mut lanes = [0f32; 16];
            for (l, lane) in lanes.iter_mut().enumerate() {
                *lane = c[k][(16 * o + l) % 3];
            }
            *colk = load_f32x16(&lanes);
        }
    }
    Static512 { idx, col }
}

/// Transforms the 16 vertices held in `r` (48 floats, xyz interleaved).
#[inline]
#[target_feature(enable = "avx512f")]
fn static512_block(k: &Static512, r: [__m512; 3]) -> [__m512; 3] {
    let t = |o: usize, x: __m512, y: __m512, z: __m512| {
        let acc = _mm512_fmadd_ps(x, k.col[o][0], k.col[o][3]);
        let acc = _mm512_fmadd_ps(y, k.col[o][1], acc);
        _mm512_fmadd_ps(z, k.col[o][2], acc)
    };
    let p2 = |a: __m512, i: __m512i, b: __m512| _mm512_permutex2var_ps(a, i, b);
    let i = &k.idx;
    [
        t(
            0,
            p2(r[0], i[0][0], r[1]),
            p2(r[0], i[0][1], r[1]),
            p2(r[0], i[0][2], r[1]),
        ),
        t(
            1,
            p2(r[0], i[1][0], r[1]),
            p2(r[1], i[1][1], r[2]),
            p2(r[1], i[1][2], r[2]),
        ),
        t(
            2,
            p2(r[1], i[2][0], r[2]),
            p2(r[1], i[2][1], r[2]),
            _mm512_permutexvar_ps(i[2][2], r[2]),
        ),
    ]
}

/// The AVX-512F static transform: 16 vertices per step, lane permutations instead of a transpose.
/// Needs AVX-512F; the slices have equal lengths.
///
/// Where the output lies just past the positions modulo 4 KiB (`loads_meet_stores`), the steps
/// run from the last one, so that no load meets a store still in flight at the same low 12 bits:
/// on a Zen 4 core at 200k vertices with the output 144 bytes past, 0.057 ms against 0.064-0.068
/// forward (its memory bound 0.053); at 2M, with streaming stores, either order took the same.
/// The positions [`PREFETCH_VERTICES`] further on in the loop's order are read as `hint` says
/// (the bound's loop's way, `stream::hint`).
#[target_feature(enable = "avx512f")]
pub(super) fn transform_avx512(
    m: &Mat4,
    pos: &[[f32; 3]],
    out: &mut [[f32; 3]],
    stream: bool,
    hint: Ahead,
) {
    let n = out.len();
    assert_eq!(pos.len(), n);
    let k = static512(m);
    let head = head_to_align(out);
    super::portable::transform(m, &pos[..head], &mut out[..head]);
    let src = pos.as_ptr().cast::<f32>();
    let blocks = (n - head) / 16;
    // Loads that would meet the stores just made (4K aliasing) meet none from the last block on.
    let backward = super::avx2::loads_meet_stores(pos, out);
    for i in 0..blocks {
        let b = head + 16 * if backward { blocks - 1 - i } else { i };
        let further = if backward {
            pos.as_ptr().wrapping_add(b).wrapping_sub(PREFETCH_VERTICES)
        } else {
            pos.as_ptr().wrapping_add(b + PREFETCH_VERTICES)
        };
        hint.fetch(further.cast(), 3);
        // SAFETY: vertices b..b+16 are 48 floats in bounds of pos; loadu needs no alignment.
        let r = unsafe {
            let s = src.add(3 * b);
            [
                _mm512_loadu_ps(s),
                _mm512_loadu_ps(s.add(16)),
                _mm512_loadu_ps(s.add(32)),
            ]
        };
        // SAFETY: the same 48 floats in out, 64-byte aligned (out[head] starts a line, b - head is a multiple of 16).
        unsafe {
            store3_512(
                out.as_mut_ptr().add(b).cast(),
                static512_block(&k, r),
                stream,
            )
        };
    }
    let b = head + 16 * blocks;
    let floats = 3 * (n - b);
    if floats > 0 {
        let mask = |i: usize| -> __mmask16 {
            let live = floats.saturating_sub(16 * i).min(16);
            ((1u32 << live) - 1) as __mmask16
        };
        // SAFETY: each mask covers only the remaining `floats` floats of pos (from vertex b on);
        // masked-off lanes are not accessed.
        let r = unsafe {
            let s = src.add(3 * b);
            [
                _mm512_maskz_loadu_ps(mask(0), s),
                _mm512_maskz_loadu_ps(mask(1), s.wrapping_add(16)),
                _mm512_maskz_loadu_ps(mask(2), s.wrapping_add(32)),
            ]
        };
        let o = static512_block(&k, r);
        // SAFETY: each mask covers only the remaining `floats` floats of out.
        unsafe {
            let d = out.as_mut_ptr().add(b).cast::<f32>();
            _mm512_mask_storeu_ps(d, mask(0), o[0]);
            _mm512_mask_storeu_ps(d.wrapping_add(16), mask(1), o[1]);
            _mm512_mask_storeu_ps(d.wrapping_add(32), mask(2), o[2]);
        }
    }
    if stream {
        _mm_sfence();
    }
}
