//! The fast CPU skinning path beside the `reference` oracle: aligned palette, SIMD (AVX-512F, AVX2+FMA, portable), threads.
//!
//! Same math as `reference` (SPEC "The math"), in f32: per vertex the 4 palette matrices are blended
//! first (B = sum w_k * skin[j_k]) and B then transforms (p, 1) once. The palette is copied into
//! 64-byte aligned matrices ([`AlignedPalette`]) so one matrix is one cache line and one aligned
//! AVX-512 load (stored by rows, see [`AlignedMat4`]). The kernel is chosen at run time
//! ([`Isa::best`]); large meshes can be split over `threads` scoped threads, each writing its own
//! chunks of the caller's output slice; outputs over 8 MB are written with streaming stores.
//!
//! Semantics kept from the oracle: a zero weight contributes nothing, even for a non-finite matrix
//! (a palette with a non-finite entry takes the portable path, which skips zero weights), and a
//! joint index outside the palette panics only when its weight is nonzero (a block with such an
//! index takes the scalar path).

use std::ops::Range;
use std::sync::{Mutex, PoisonError};

use glam::{Affine3A, Mat4, Quat, Vec3, Vec4};

use crate::scene::{Mesh, Pose, Skeleton, Transform};

/// One palette matrix alone on a 64-byte cache line, stored by rows (row 0, 1, 2, 3: the columns
/// of its transpose), so that each output coordinate is one 4-wide dot product.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C, align(64))]
pub struct AlignedMat4(pub [f32; 16]);

impl From<Mat4> for AlignedMat4 {
    fn from(m: Mat4) -> Self {
        AlignedMat4(m.transpose().to_cols_array())
    }
}

impl AlignedMat4 {
    /// The matrix back in glam's column-major form.
    pub fn to_mat4(&self) -> Mat4 {
        Mat4::from_cols_array(&self.0).transpose()
    }
}

/// A skinning palette copied into 64-byte aligned matrices, with a flag telling whether every entry is finite.
#[derive(Clone, Debug, PartialEq)]
pub struct AlignedPalette {
    mats: Vec<AlignedMat4>,
    finite: bool,
}

impl Default for AlignedPalette {
    fn default() -> Self {
        AlignedPalette {
            mats: Vec::new(),
            finite: true,
        }
    }
}

impl From<&[Mat4]> for AlignedPalette {
    fn from(palette: &[Mat4]) -> Self {
        let mut p = AlignedPalette::default();
        p.copy_from(palette);
        p
    }
}

impl AlignedPalette {
    /// `joints` identity matrices.
    pub fn identity(joints: usize) -> Self {
        AlignedPalette {
            mats: vec![AlignedMat4::from(Mat4::IDENTITY); joints],
            finite: true,
        }
    }

    /// Replaces the contents with `palette` (allocates only when it grows).
    pub fn copy_from(&mut self, palette: &[Mat4]) {
        self.mats.clear();
        self.mats
            .extend(palette.iter().map(|m| AlignedMat4::from(*m)));
        self.finite = palette.iter().all(|m| m.is_finite());
    }

    /// Sets joint `j`'s matrix.
    pub fn set(&mut self, j: usize, m: &Mat4) {
        self.mats[j] = AlignedMat4::from(*m);
        self.finite = if m.is_finite() {
            self.finite || self.mats.iter().all(|a| a.0.iter().all(|v| v.is_finite()))
        } else {
            false
        };
    }

    pub fn len(&self) -> usize {
        self.mats.len()
    }

    pub fn is_empty(&self) -> bool {
        self.mats.is_empty()
    }

    pub fn as_slice(&self) -> &[AlignedMat4] {
        &self.mats
    }

    /// Joint `j`'s matrix, if there is one.
    pub fn get(&self, j: usize) -> Option<Mat4> {
        self.mats.get(j).map(AlignedMat4::to_mat4)
    }

    /// Whether every entry is finite (then the SIMD kernels, which do not skip zero weights, are exact in meaning).
    pub fn is_finite(&self) -> bool {
        self.finite
    }

    /// Size in bytes: 64 per joint.
    pub fn bytes(&self) -> usize {
        std::mem::size_of_val(self.mats.as_slice())
    }

    pub fn to_mat4s(&self) -> Vec<Mat4> {
        self.mats.iter().map(AlignedMat4::to_mat4).collect()
    }
}

/// The kernel families; [`Isa::best`] is the fastest one this CPU runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Isa {
    /// glam vectors only: compiles and runs everywhere.
    Portable,
    /// x86_64 AVX2 + FMA, 256-bit.
    Avx2Fma,
    /// x86_64 AVX-512F, 512-bit: one whole matrix per register.
    Avx512F,
}

impl Isa {
    pub const ALL: [Isa; 3] = [Isa::Portable, Isa::Avx2Fma, Isa::Avx512F];

    /// Whether this CPU runs the kernel (run-time feature detection).
    pub fn is_supported(self) -> bool {
        match self {
            Isa::Portable => true,
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2Fma => is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma"),
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512F => is_x86_feature_detected!("avx512f"),
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }

    /// The fastest supported kernel.
    pub fn best() -> Isa {
        Isa::ALL
            .into_iter()
            .rev()
            .find(|i| i.is_supported())
            .unwrap_or(Isa::Portable)
    }

    /// Every kernel this CPU runs, slowest first.
    pub fn supported() -> Vec<Isa> {
        Isa::ALL.into_iter().filter(|i| i.is_supported()).collect()
    }

    pub fn name(self) -> &'static str {
        match self {
            Isa::Portable => "portable",
            Isa::Avx2Fma => "avx2+fma",
            Isa::Avx512F => "avx512f",
        }
    }
}

/// Outputs larger than this (in bytes, the whole call's) are written with non-temporal (streaming)
/// stores where a kernel has them: they would not stay in cache anyway, and streaming saves reading
/// each output line before writing it.
const STREAM_BYTES: usize = 8 << 20;

/// Chunk boundaries fall on multiples of this many vertices (16 x 12 B = 3 cache lines).
const CHUNK_ALIGN: usize = 16;
/// Chunks per thread when a call is split, so that work moves to whichever thread is running.
const CHUNKS_PER_THREAD: usize = 8;
/// The largest chunk: 64k vertices, about 3.5 MB of input and output.
const MAX_CHUNK: usize = 1 << 16;
/// A call uses at most one thread per this many vertices: starting a thread costs tens of
/// microseconds, the time to skin some 20k vertices.
pub const MIN_VERTICES_PER_THREAD: usize = 1 << 15;

/// Runs `f` over `out` split into contiguous chunks on up to `threads` scoped threads (the calling
/// thread is one of them), at most one per [`MIN_VERTICES_PER_THREAD`] vertices.
fn par_chunks<F>(out: &mut [[f32; 3]], threads: usize, f: F)
where
    F: Fn(Range<usize>, &mut [[f32; 3]]) + Sync,
{
    par_chunks_min(out, threads, MIN_VERTICES_PER_THREAD, f);
}

/// [`par_chunks`] with a chosen minimum of vertices per thread. `threads` 0 or 1 runs everything
/// on the calling thread. The chunks are handed out on demand, several per thread: a thread that
/// starts late (its core busy) takes fewer of them instead of holding the others up.
fn par_chunks_min<F>(out: &mut [[f32; 3]], threads: usize, min_per_thread: usize, f: F)
where
    F: Fn(Range<usize>, &mut [[f32; 3]]) + Sync,
{
    let n = out.len();
    let threads = threads.min(n / min_per_thread.max(1));
    if threads <= 1 || n <= CHUNK_ALIGN {
        f(0..n, out);
        return;
    }
    let chunk = n
        .div_ceil(threads * CHUNKS_PER_THREAD)
        .clamp(CHUNK_ALIGN, MAX_CHUNK)
        .next_multiple_of(CHUNK_ALIGN);
    let helpers = (threads - 1).min(n.div_ceil(chunk) - 1);
    let queue = Mutex::new(out.chunks_mut(chunk).enumerate());
    let work = || loop {
        // A panic in another thread (a bad joint index) poisons the queue; the chunks are still valid.
        let next = queue.lock().unwrap_or_else(PoisonError::into_inner).next();
        let Some((i, part)) = next else { break };
        let start = i * chunk;
        f(start..start + part.len(), part);
    };
    std::thread::scope(|s| {
        for _ in 0..helpers {
            s.spawn(work);
        }
        work();
    });
}

fn check_isa(isa: Isa) {
    assert!(
        isa.is_supported(),
        "fast: the {} kernel is not supported on this CPU",
        isa.name()
    );
}

/// 4-influence LBS with the best kernel: out[i] = sum_k w_k * (skin[j_k] * (p_i, 1)).xyz, on up to
/// `threads` threads (1: the calling thread only; at most one per [`MIN_VERTICES_PER_THREAD`]).
///
/// Panics when the slices differ in length, or when a nonzero weight names a joint outside the palette.
pub fn skin(
    palette: &AlignedPalette,
    positions: &[[f32; 3]],
    joints: &[[u32; 4]],
    weights: &[[f32; 4]],
    out: &mut [[f32; 3]],
    threads: usize,
) {
    skin_with(
        Isa::best(),
        palette,
        positions,
        joints,
        weights,
        out,
        threads,
    );
}

/// [`skin`] on a [`Mesh`].
pub fn skin_mesh(palette: &AlignedPalette, mesh: &Mesh, out: &mut [[f32; 3]], threads: usize) {
    skin(
        palette,
        &mesh.positions,
        &mesh.joints,
        &mesh.weights,
        out,
        threads,
    );
}

/// [`skin`] with a chosen kernel; panics if this CPU does not support it.
pub fn skin_with(
    isa: Isa,
    palette: &AlignedPalette,
    positions: &[[f32; 3]],
    joints: &[[u32; 4]],
    weights: &[[f32; 4]],
    out: &mut [[f32; 3]],
    threads: usize,
) {
    check_isa(isa);
    let n = out.len();
    assert!(
        positions.len() == n && joints.len() == n && weights.len() == n,
        "fast::skin: {n} outputs but {} positions, {} joints, {} weights",
        positions.len(),
        joints.len(),
        weights.len()
    );
    // The SIMD kernels blend every influence; only a finite palette makes 0 * M vanish.
    let isa = if palette.is_finite() {
        isa
    } else {
        Isa::Portable
    };
    let pal = palette.as_slice();
    let stream = n * 12 > STREAM_BYTES;
    par_chunks(out, threads, |r, out| {
        let (p, j, w) = (&positions[r.clone()], &joints[r.clone()], &weights[r]);
        match isa {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: check_isa asserted that this CPU has AVX-512F.
            Isa::Avx512F => unsafe { x86::skin_avx512(pal, p, j, w, out, stream) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: check_isa asserted that this CPU has AVX2 and FMA.
            Isa::Avx2Fma => unsafe { x86::skin_avx2(pal, p, j, w, out) },
            _ => {
                let _ = stream; // only the AVX-512 kernels stream
                portable::skin(pal, p, j, w, out)
            }
        }
    });
}

/// 1-influence skinning with the best kernel: out[i] = (skin[joints[i][0]] * (p_i, 1)).xyz
/// (the other joints and the weights are not read). Panics on an index outside the palette.
pub fn skin1(
    palette: &AlignedPalette,
    positions: &[[f32; 3]],
    joints: &[[u32; 4]],
    out: &mut [[f32; 3]],
    threads: usize,
) {
    skin1_with(Isa::best(), palette, positions, joints, out, threads);
}

/// [`skin1`] with a chosen kernel; panics if this CPU does not support it.
pub fn skin1_with(
    isa: Isa,
    palette: &AlignedPalette,
    positions: &[[f32; 3]],
    joints: &[[u32; 4]],
    out: &mut [[f32; 3]],
    threads: usize,
) {
    check_isa(isa);
    let n = out.len();
    assert!(
        positions.len() == n && joints.len() == n,
        "fast::skin1: {n} outputs but {} positions, {} joints",
        positions.len(),
        joints.len()
    );
    let pal = palette.as_slice();
    let stream = n * 12 > STREAM_BYTES;
    par_chunks(out, threads, |r, out| {
        let (p, j) = (&positions[r.clone()], &joints[r]);
        match isa {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: check_isa asserted that this CPU has AVX-512F.
            Isa::Avx512F => unsafe { x86::skin1_avx512(pal, p, j, out, stream) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: check_isa asserted that this CPU has AVX2 and FMA.
            Isa::Avx2Fma => unsafe { x86::skin1_avx2(pal, p, j, out) },
            _ => {
                let _ = stream; // only the AVX-512 kernels stream
                portable::skin1(pal, p, j, out)
            }
        }
    });
}

/// The static baseline with the best kernel: out[i] = (m * (p_i, 1)).xyz.
pub fn transform(m: &Mat4, positions: &[[f32; 3]], out: &mut [[f32; 3]], threads: usize) {
    transform_with(Isa::best(), m, positions, out, threads);
}

/// [`transform`] with a chosen kernel; panics if this CPU does not support it.
pub fn transform_with(
    isa: Isa,
    m: &Mat4,
    positions: &[[f32; 3]],
    out: &mut [[f32; 3]],
    threads: usize,
) {
    check_isa(isa);
    assert_eq!(
        positions.len(),
        out.len(),
        "fast::transform: positions and output differ in length"
    );
    let stream = out.len() * 12 > STREAM_BYTES;
    par_chunks(out, threads, |r, out| {
        let p = &positions[r];
        match isa {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: check_isa asserted that this CPU has AVX-512F.
            Isa::Avx512F => unsafe { x86::transform_avx512(m, p, out, stream) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: check_isa asserted that this CPU has AVX2 and FMA.
            Isa::Avx2Fma => unsafe { x86::transform_avx2(m, p, out) },
            _ => {
                let _ = stream; // only the AVX-512 kernels stream
                portable::transform(m, p, out)
            }
        }
    });
}

/// The portable kernels, also the scalar path that the SIMD kernels fall back to.
mod portable {
    use super::*;

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

    pub(super) fn skin1(
        pal: &[AlignedMat4],
        pos: &[[f32; 3]],
        jnt: &[[u32; 4]],
        out: &mut [[f32; 3]],
    ) {
        for ((o, p), j) in out.iter_mut().zip(pos).zip(jnt) {
            *o = skin1_vertex(pal, p, j[0]);
        }
    }

    pub(super) fn transform(m: &Mat4, pos: &[[f32; 3]], out: &mut [[f32; 3]]) {
        for (o, p) in out.iter_mut().zip(pos) {
            *o = m.transform_point3(Vec3::from(*p)).into();
        }
    }
}

/// The x86_64 kernels. Each entry point is a safe `#[target_feature]` function: calling it is
/// `unsafe` where the feature is not statically enabled, and the callers check it at run time first.
///
/// The skinning kernels share one plan. The palette holds rows, so a blended matrix B (one 512-bit
/// register, or a 256-bit one for rows 0-1 and a 128-bit one for row 2) times the position
/// broadcast into every row, (x, y, z, 1), leaves each output coordinate as the horizontal sum of
/// one 128-bit lane. Four vertices' lanes are summed together with in-lane shuffles
/// (a 4x4 transpose), giving x, y, z of 4 vertices per lane, which are then interleaved back into
/// the xyz output.
#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    use glam::Mat4;

    use super::portable::{skin1_vertex, skin_vertex};
    use super::AlignedMat4;

    /// out[v] = f(v) for v in `range` (the scalar path of the SIMD loops).
    fn fill(out: &mut [[f32; 3]], range: std::ops::Range<usize>, f: impl Fn(usize) -> [f32; 3]) {
        for (v, o) in range.clone().zip(&mut out[range]) {
            *o = f(v);
        }
    }

    /// The palette length for unsigned index comparisons (an index is valid iff index < len).
    fn len_u32(pal: &[AlignedMat4]) -> u32 {
        u32::try_from(pal.len()).unwrap_or(u32::MAX)
    }

    // ---------------------------------------------------------------- AVX-512F

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
    fn head_to_align(out: &[[f32; 3]]) -> usize {
        let addr = out.as_ptr() as usize;
        (0..16)
            .find(|h| (addr + 12 * h).is_multiple_of(64))
            .unwrap_or(0)
            .min(out.len())
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
    unsafe fn store3_512(dst: *mut f32, o: [__m512; 3], stream: bool) {
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

    /// The blended rows of vertex v: sum_k w_k * m[k].
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

    /// The rows of joints[v][0].
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

    /// The AVX-512F skinning loop: blocks of 16 vertices whose output starts a cache line. `load`
    /// reads vertex v's palette matrices, `rows` turns them into its matrix rows (blended or not),
    /// `scalar` does one vertex on the checked path.
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

    /// The AVX-512F 4-influence kernel. Needs AVX-512F; the slices have equal lengths.
    #[target_feature(enable = "avx512f")]
    pub(super) fn skin_avx512(
        pal: &[AlignedMat4],
        pos: &[[f32; 3]],
        jnt: &[[u32; 4]],
        wts: &[[f32; 4]],
        out: &mut [[f32; 3]],
        stream: bool,
    ) {
        assert_eq!(wts.len(), out.len());
        skin_blocks_512(
            pal,
            pos,
            jnt,
            out,
            false,
            stream,
            // SAFETY: called only for a block whose indices indices_ok_512 checked, v < n.
            |v| unsafe { load4_512(pal, jnt, v) },
            // SAFETY: v < n = wts.len().
            |v, m| unsafe { blend_512(m, wts, v) },
            |v| skin_vertex(pal, &pos[v], &jnt[v], &wts[v]),
        );
    }

    /// The AVX-512F 1-influence kernel. Needs AVX-512F; the slices have equal lengths.
    #[target_feature(enable = "avx512f")]
    pub(super) fn skin1_avx512(
        pal: &[AlignedMat4],
        pos: &[[f32; 3]],
        jnt: &[[u32; 4]],
        out: &mut [[f32; 3]],
        stream: bool,
    ) {
        skin_blocks_512(
            pal,
            pos,
            jnt,
            out,
            true,
            stream,
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
        /// Per o and column k: the matrix entry M[row(lane)][k], row(lane) = (16 o + lane) % 3.
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
    #[target_feature(enable = "avx512f")]
    pub(super) fn transform_avx512(m: &Mat4, pos: &[[f32; 3]], out: &mut [[f32; 3]], stream: bool) {
        let n = out.len();
        assert_eq!(pos.len(), n);
        let k = static512(m);
        let head = head_to_align(out);
        super::portable::transform(m, &pos[..head], &mut out[..head]);
        let src = pos.as_ptr().cast::<f32>();
        let mut b = head;
        while b + 16 <= n {
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
            b += 16;
        }
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

    // ---------------------------------------------------------------- AVX2 + FMA

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

    /// Horizontal sums of each 128-bit lane of a, b, c, d (as [`hsum4_512`]).
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
    fn skin_blocks_256(
        pal: &[AlignedMat4],
        pos: &[[f32; 3]],
        jnt: &[[u32; 4]],
        out: &mut [[f32; 3]],
        first_only: bool,
        rows: impl Fn(usize) -> (__m256, __m128),
        scalar: impl Fn(usize) -> [f32; 3],
    ) {
        let n = out.len();
        assert!(pos.len() == n && jnt.len() == n);
        let last = _mm256_set1_epi32(len_u32(pal).wrapping_sub(1) as i32);
        let mut b = 0;
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
            // SAFETY: 12 floats of vertices b..b+4 lie in out; storeu needs no alignment.
            unsafe {
                let d = out.as_mut_ptr().add(b).cast::<f32>();
                _mm_storeu_ps(d, o[0]);
                _mm_storeu_ps(d.add(4), o[1]);
                _mm_storeu_ps(d.add(8), o[2]);
            }
            b += 4;
        }
        fill(out, b..n, &scalar);
    }

    /// The AVX2 4-influence kernel. Needs AVX2 and FMA; the slices have equal lengths.
    #[target_feature(enable = "avx2,fma")]
    pub(super) fn skin_avx2(
        pal: &[AlignedMat4],
        pos: &[[f32; 3]],
        jnt: &[[u32; 4]],
        wts: &[[f32; 4]],
        out: &mut [[f32; 3]],
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
        skin_blocks_256(pal, pos, jnt, out, false, rows, |v| {
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
    ) {
        let base = pal.as_ptr().cast::<f32>();
        let rows = |v: usize| {
            // SAFETY: called only for v < n in a block whose first indices indices_ok_256 checked.
            unsafe {
                let m = base.add(16 * jnt.get_unchecked(v)[0] as usize);
                (_mm256_load_ps(m), _mm_load_ps(m.add(8)))
            }
        };
        skin_blocks_256(pal, pos, jnt, out, true, rows, |v| {
            skin1_vertex(pal, &pos[v], jnt[v][0])
        });
    }

    /// The AVX2 static transform: 8 vertices per step, transposed to x/y/z registers and back.
    /// Needs AVX2 and FMA; the slices have equal lengths.
    #[target_feature(enable = "avx2,fma")]
    pub(super) fn transform_avx2(m: &Mat4, pos: &[[f32; 3]], out: &mut [[f32; 3]]) {
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
        let full = n / 8 * 8;
        for v in (0..full).step_by(8) {
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
            // SAFETY: the same 24 floats in bounds of out; storeu needs no alignment.
            unsafe {
                let d = dst.add(3 * v);
                _mm256_storeu_ps(d, _mm256_permute2f128_ps::<0x20>(r03, r14));
                _mm256_storeu_ps(d.add(8), _mm256_permute2f128_ps::<0x30>(r25, r03));
                _mm256_storeu_ps(d.add(16), _mm256_permute2f128_ps::<0x31>(r14, r25));
            }
        }
        super::portable::transform(m, &pos[full..], &mut out[full..]);
    }

    // ---------------------------------------------------------------- palette build (AVX-512F)

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

    /// Row i of a*b for row-form a, b with b's rows broadcast: sum_c a[i][c] * row_c(b).
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
    /// R = 2 v v^T + 2 w [v]x + (1 - 2 |v|^2) I, column j scaled by s_j, translation in column 3.
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
/// then skin[j] = global[joints[j]] * inverseBind[j], written into a preallocated [`AlignedPalette`].
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
                x86::palette_avx512(
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference;
    use crate::scene::strip;
    use glam::{DQuat, DVec3};

    /// xorshift64*: tiny and deterministic.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }
        /// Uniform in [0, 1).
        fn unit(&mut self) -> f32 {
            (self.next() >> 40) as f32 / (1u64 << 24) as f32
        }
        fn range(&mut self, lo: f32, hi: f32) -> f32 {
            lo + (hi - lo) * self.unit()
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
        fn quat(&mut self) -> Quat {
            let q = Vec4::new(
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
            );
            Quat::from_vec4(q.normalize_or(Vec4::W))
        }
        fn vec3(&mut self, r: f32) -> Vec3 {
            Vec3::new(self.range(-r, r), self.range(-r, r), self.range(-r, r))
        }
    }

    /// A pose-like palette: rotations, mild non-uniform scale, translations within the mesh extent.
    fn random_palette(rng: &mut Rng, joints: usize, extent: f32) -> Vec<Mat4> {
        (0..joints)
            .map(|_| {
                let s = Vec3::new(
                    rng.range(0.8, 1.2),
                    rng.range(0.8, 1.2),
                    rng.range(0.8, 1.2),
                );
                Mat4::from_scale_rotation_translation(s, rng.quat(), rng.vec3(0.5 * extent))
            })
            .collect()
    }

    /// `n` vertices in [-extent, extent]^3 with exactly `influences` nonzero weights in random slots.
    fn random_mesh(rng: &mut Rng, n: usize, joints: usize, influences: usize, extent: f32) -> Mesh {
        let mut mesh = Mesh::default();
        for _ in 0..n {
            mesh.positions.push(rng.vec3(extent).into());
            let j = [0; 4].map(|_| rng.below(joints) as u32);
            let mut w = [0f32; 4];
            let mut slots = [0usize, 1, 2, 3];
            for i in 0..4 {
                slots.swap(i, i + rng.below(4 - i));
            }
            for &s in &slots[..influences] {
                w[s] = rng.range(0.05, 1.0);
            }
            let total: f32 = w.iter().sum();
            mesh.joints.push(j);
            mesh.weights.push(w.map(|x| x / total));
        }
        mesh
    }

    fn max_abs_diff(a: &[[f32; 3]], b: &[[f32; 3]]) -> f32 {
        assert_eq!(a.len(), b.len());
        a.iter()
            .zip(b)
            .flat_map(|(a, b)| (0..3).map(move |i| (a[i] - b[i]).abs()))
            .fold(0.0, f32::max)
    }

    const COUNTS: [usize; 7] = [0, 1, 5, 63, 64, 65, 1001];

    #[test]
    fn every_supported_kernel_matches_the_oracle() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let mut worst = 0f32;
        for isa in Isa::supported() {
            for &n in &COUNTS {
                for influences in 1..=4 {
                    for extent in [1.0f32, 10.0, 300.0] {
                        let joints = 1 + rng.below(40);
                        let palette = random_palette(&mut rng, joints, extent);
                        let mesh = random_mesh(&mut rng, n, joints, influences, extent);
                        let want = reference::skin(&palette, &mesh);
                        let aligned = AlignedPalette::from(palette.as_slice());
                        for threads in [1, 2, 3] {
                            let mut out = vec![[f32::NAN; 3]; n];
                            skin_with(
                                isa,
                                &aligned,
                                &mesh.positions,
                                &mesh.joints,
                                &mesh.weights,
                                &mut out,
                                threads,
                            );
                            let tol = 1e-6 * mesh.extent();
                            let d = max_abs_diff(&out, &want);
                            worst = worst.max(d / tol);
                            assert!(
                                d <= tol,
                                "{} n={n} k={influences} extent={extent} threads={threads}: {d} > {tol}",
                                isa.name()
                            );
                        }
                    }
                }
            }
        }
        eprintln!("worst error / tolerance: {worst:.3}");
    }

    #[test]
    fn strip_meshes_match_the_oracle_on_every_kernel() {
        let s = Skeleton::chain(12, 0.5);
        let mut pose = s.bind_pose();
        for (j, l) in pose.locals.iter_mut().enumerate() {
            l.rotation = DQuat::from_rotation_z(0.2 + 0.01 * j as f64);
        }
        let palette = s.palette(&pose);
        let aligned = AlignedPalette::from(palette.as_slice());
        for isa in Isa::supported() {
            for influences in 1..=4 {
                let mesh = strip(12, 0.5, 1001, 0.3, influences);
                let want = reference::skin(&palette, &mesh);
                let mut out = vec![[0.0; 3]; mesh.len()];
                skin_with(
                    isa,
                    &aligned,
                    &mesh.positions,
                    &mesh.joints,
                    &mesh.weights,
                    &mut out,
                    2,
                );
                assert!(
                    max_abs_diff(&out, &want) <= 1e-6 * mesh.extent(),
                    "{}",
                    isa.name()
                );
            }
        }
    }

    #[test]
    fn one_influence_matches_glam_on_every_kernel() {
        let mut rng = Rng(7);
        for isa in Isa::supported() {
            for &n in &COUNTS {
                let joints = 1 + rng.below(30);
                let palette = random_palette(&mut rng, joints, 20.0);
                let mut mesh = random_mesh(&mut rng, n, joints, 4, 20.0);
                // Garbage in the unread slots must not matter.
                for j in &mut mesh.joints {
                    j[1] = u32::MAX;
                }
                let want: Vec<[f32; 3]> = mesh
                    .positions
                    .iter()
                    .zip(&mesh.joints)
                    .map(|(p, j)| {
                        palette[j[0] as usize]
                            .transform_point3(Vec3::from(*p))
                            .into()
                    })
                    .collect();
                let aligned = AlignedPalette::from(palette.as_slice());
                for threads in [1, 2, 3] {
                    let mut out = vec![[f32::NAN; 3]; n];
                    skin1_with(
                        isa,
                        &aligned,
                        &mesh.positions,
                        &mesh.joints,
                        &mut out,
                        threads,
                    );
                    let d = max_abs_diff(&out, &want);
                    assert!(
                        d <= 1e-6 * mesh.extent(),
                        "{} n={n} threads={threads}: {d}",
                        isa.name()
                    );
                }
            }
        }
    }

    #[test]
    fn static_transform_matches_glam_on_every_kernel() {
        let mut rng = Rng(11);
        for isa in Isa::supported() {
            for &n in &[0usize, 1, 2, 7, 8, 9, 15, 16, 17, 31, 33, 63, 64, 65, 1001] {
                let m = random_palette(&mut rng, 1, 50.0)[0];
                let mesh = random_mesh(&mut rng, n, 1, 1, 50.0);
                let want = reference::transform(&m, &mesh.positions);
                for threads in [1, 2, 3] {
                    let mut out = vec![[f32::NAN; 3]; n];
                    transform_with(isa, &m, &mesh.positions, &mut out, threads);
                    let d = max_abs_diff(&out, &want);
                    assert!(
                        d <= 1e-6 * mesh.extent(),
                        "{} n={n} threads={threads}: {d}",
                        isa.name()
                    );
                }
            }
        }
    }

    /// Runs `f` on `buf[off..off + n]` for every start phase within a cache line, and checks that
    /// nothing outside the slice changed and every output is `want`.
    fn check_slice_bounds(
        name: &str,
        want: impl Fn(usize) -> [f32; 3],
        f: impl Fn(&mut [[f32; 3]]),
    ) {
        for n in [
            0usize, 1, 2, 3, 4, 5, 15, 16, 17, 18, 31, 32, 33, 47, 48, 49, 70,
        ] {
            for off in 0..16 {
                let mut buf = vec![[-7.0f32; 3]; n + 32];
                f(&mut buf[off..off + n]);
                for (i, o) in buf.iter().enumerate() {
                    if i < off || i >= off + n {
                        assert_eq!(
                            *o, [-7.0; 3],
                            "{name} n={n} off={off}: wrote outside at {i}"
                        );
                    } else {
                        assert_eq!(
                            *o,
                            want(i - off),
                            "{name} n={n} off={off}: vertex {}",
                            i - off
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn kernels_write_exactly_their_slice_at_every_alignment() {
        let palette = AlignedPalette::from(&[Mat4::from_translation(Vec3::X), Mat4::IDENTITY][..]);
        let m = Mat4::from_translation(Vec3::new(1.0, 2.0, 3.0));
        let pos: Vec<[f32; 3]> = (0..70).map(|i| [i as f32, 2.0, 3.0]).collect();
        let jnt = vec![[0u32, 1, 0, 1]; 70];
        let wts = vec![[0.25f32; 4]; 70];
        for isa in Isa::supported() {
            check_slice_bounds(
                isa.name(),
                |i| [i as f32 + 0.5, 2.0, 3.0],
                |out| {
                    let n = out.len();
                    skin_with(isa, &palette, &pos[..n], &jnt[..n], &wts[..n], out, 1)
                },
            );
            check_slice_bounds(
                isa.name(),
                |i| [i as f32 + 1.0, 2.0, 3.0],
                |out| {
                    let n = out.len();
                    skin1_with(isa, &palette, &pos[..n], &jnt[..n], out, 1)
                },
            );
            check_slice_bounds(
                isa.name(),
                |i| [i as f32 + 1.0, 4.0, 6.0],
                |out| {
                    let n = out.len();
                    transform_with(isa, &m, &pos[..n], out, 1)
                },
            );
        }
    }

    #[test]
    fn streaming_sizes_match_the_oracle_on_every_kernel() {
        // Above STREAM_BYTES of output the AVX-512 kernels switch to non-temporal stores.
        let n = STREAM_BYTES / 12 + 101;
        let mut rng = Rng(5);
        let palette = random_palette(&mut rng, 9, 4.0);
        let mesh = random_mesh(&mut rng, n, 9, 4, 4.0);
        let aligned = AlignedPalette::from(palette.as_slice());
        let want = reference::skin(&palette, &mesh);
        let want1: Vec<[f32; 3]> = mesh
            .positions
            .iter()
            .zip(&mesh.joints)
            .map(|(p, j)| {
                palette[j[0] as usize]
                    .transform_point3(Vec3::from(*p))
                    .into()
            })
            .collect();
        let want_static = reference::transform(&palette[3], &mesh.positions);
        let tol = 1e-6 * mesh.extent();
        for isa in Isa::supported() {
            for threads in [1, 2] {
                let mut out = vec![[f32::NAN; 3]; n];
                skin_with(
                    isa,
                    &aligned,
                    &mesh.positions,
                    &mesh.joints,
                    &mesh.weights,
                    &mut out,
                    threads,
                );
                assert!(max_abs_diff(&out, &want) <= tol, "{}", isa.name());
                skin1_with(
                    isa,
                    &aligned,
                    &mesh.positions,
                    &mesh.joints,
                    &mut out,
                    threads,
                );
                assert!(max_abs_diff(&out, &want1) <= tol, "{}", isa.name());
                transform_with(isa, &palette[3], &mesh.positions, &mut out, threads);
                assert!(max_abs_diff(&out, &want_static) <= tol, "{}", isa.name());
            }
        }
    }

    #[test]
    fn zero_weights_ignore_bad_joints_and_non_finite_matrices_like_the_oracle() {
        let palette = vec![
            Mat4::from_translation(Vec3::new(1.0, 0.0, 0.0)),
            Mat4::from_cols_array(&[f32::NAN; 16]),
        ];
        let n = 37;
        let mesh = Mesh {
            positions: (0..n).map(|i| [i as f32, 2.0, 3.0]).collect(),
            // Index 1 is NaN, index 9 is outside the palette: both with zero weight.
            joints: (0..n)
                .map(|i| [0, 1, if i % 5 == 0 { 9 } else { 0 }, 1])
                .collect(),
            weights: vec![[1.0, 0.0, 0.0, 0.0]; n],
            indices: vec![],
        };
        let want = reference::skin(&palette, &mesh);
        let aligned = AlignedPalette::from(palette.as_slice());
        assert!(!aligned.is_finite());
        let finite = AlignedPalette::from(&palette[..1]);
        for isa in Isa::supported() {
            for pal in [&aligned, &finite] {
                let mut out = vec![[0.0; 3]; n];
                skin_with(
                    isa,
                    pal,
                    &mesh.positions,
                    &mesh.joints,
                    &mesh.weights,
                    &mut out,
                    2,
                );
                assert_eq!(out, want, "{}", isa.name());
            }
        }
    }

    #[test]
    fn a_weighted_joint_outside_the_palette_panics_on_every_kernel() {
        let palette = AlignedPalette::identity(2);
        for isa in Isa::supported() {
            for n in [1usize, 4, 9, 40, 100] {
                for bad in [0, n / 2, n - 1] {
                    let pos = vec![[0.0f32; 3]; n];
                    let wts = vec![[0.5f32, 0.5, 0.0, 0.0]; n];
                    let mut jnt = vec![[0u32, 1, 0, 0]; n];
                    jnt[bad][1] = 2;
                    let r = std::panic::catch_unwind(|| {
                        let mut out = vec![[0.0; 3]; n];
                        skin_with(isa, &palette, &pos, &jnt, &wts, &mut out, 1);
                    });
                    assert!(r.is_err(), "{} n={n} bad={bad}", isa.name());
                    let mut jnt = vec![[0u32, 1, 0, 0]; n];
                    jnt[bad][0] = 5;
                    let r = std::panic::catch_unwind(|| {
                        let mut out = vec![[0.0; 3]; n];
                        skin1_with(isa, &palette, &pos, &jnt, &mut out, 1);
                    });
                    assert!(r.is_err(), "{} n={n} bad={bad}", isa.name());
                }
            }
        }
    }

    #[test]
    fn chunks_cover_the_output_once_on_any_thread_count() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        for n in [0usize, 1, 15, 16, 17, 63, 64, 65, 1001, 5000] {
            for threads in [0usize, 1, 2, 3, 8] {
                let mut out = vec![[-1.0f32; 3]; n];
                let seen = AtomicUsize::new(0);
                par_chunks_min(&mut out, threads, 1, |r, part| {
                    assert_eq!(r.len(), part.len());
                    assert!(r.start % CHUNK_ALIGN == 0);
                    seen.fetch_add(part.len(), Ordering::Relaxed);
                    for (v, o) in r.zip(part) {
                        assert_eq!(*o, [-1.0; 3], "vertex {v} written twice");
                        *o = [v as f32, 0.0, 0.0];
                    }
                });
                assert_eq!(seen.load(Ordering::Relaxed), n);
                assert!(out.iter().enumerate().all(|(v, o)| o[0] == v as f32));
            }
        }
    }

    #[test]
    fn threaded_calls_match_the_oracle_on_every_kernel() {
        // Large enough for 3 threads of MIN_VERTICES_PER_THREAD, and not a multiple of 16.
        let n = 3 * MIN_VERTICES_PER_THREAD + 13;
        let mut rng = Rng(17);
        let palette = random_palette(&mut rng, 20, 8.0);
        let mesh = random_mesh(&mut rng, n, 20, 4, 8.0);
        let aligned = AlignedPalette::from(palette.as_slice());
        let want = reference::skin(&palette, &mesh);
        let want_static = reference::transform(&palette[0], &mesh.positions);
        let want1: Vec<[f32; 3]> = mesh
            .positions
            .iter()
            .zip(&mesh.joints)
            .map(|(p, j)| {
                palette[j[0] as usize]
                    .transform_point3(Vec3::from(*p))
                    .into()
            })
            .collect();
        let tol = 1e-6 * mesh.extent();
        for isa in Isa::supported() {
            for threads in [2, 3, 7] {
                let mut out = vec![[f32::NAN; 3]; n];
                skin_with(
                    isa,
                    &aligned,
                    &mesh.positions,
                    &mesh.joints,
                    &mesh.weights,
                    &mut out,
                    threads,
                );
                assert!(
                    max_abs_diff(&out, &want) <= tol,
                    "{} threads={threads}",
                    isa.name()
                );
                skin1_with(
                    isa,
                    &aligned,
                    &mesh.positions,
                    &mesh.joints,
                    &mut out,
                    threads,
                );
                assert!(
                    max_abs_diff(&out, &want1) <= tol,
                    "{} threads={threads}",
                    isa.name()
                );
                transform_with(isa, &palette[0], &mesh.positions, &mut out, threads);
                assert!(
                    max_abs_diff(&out, &want_static) <= tol,
                    "{} threads={threads}",
                    isa.name()
                );
            }
        }
    }

    #[test]
    fn the_best_kernel_is_supported() {
        assert!(Isa::best().is_supported());
        assert!(Isa::supported().contains(&Isa::Portable));
        #[cfg(target_arch = "x86_64")]
        if is_x86_feature_detected!("avx512f") {
            assert_eq!(Isa::best(), Isa::Avx512F);
        }
    }

    #[test]
    fn aligned_palette_is_aligned_and_tracks_finiteness() {
        assert_eq!(std::mem::size_of::<AlignedMat4>(), 64);
        assert_eq!(std::mem::align_of::<AlignedMat4>(), 64);
        let m = Mat4::from_translation(Vec3::new(1.0, 2.0, 3.0));
        let mut p = AlignedPalette::from(&[m, Mat4::IDENTITY][..]);
        assert_eq!(p.as_slice().as_ptr() as usize % 64, 0);
        assert_eq!(p.bytes(), 128);
        assert_eq!(p.get(0), Some(m));
        assert_eq!(p.to_mat4s(), vec![m, Mat4::IDENTITY]);
        p.set(1, &Mat4::from_cols_array(&[f32::INFINITY; 16]));
        assert!(!p.is_finite());
        p.set(1, &Mat4::IDENTITY);
        assert!(p.is_finite());
    }

    fn max_rel_diff(a: &AlignedPalette, b: &[Mat4]) -> f32 {
        let scale = b
            .iter()
            .flat_map(|m| m.to_cols_array())
            .fold(1.0f32, |s, v| s.max(v.abs()));
        a.to_mat4s()
            .iter()
            .zip(b)
            .flat_map(|(x, y)| {
                let (x, y) = (x.to_cols_array(), y.to_cols_array());
                (0..16).map(move |i| (x[i] - y[i]).abs())
            })
            .fold(0.0, f32::max)
            / scale
    }

    #[test]
    fn fast_palette_matches_the_f64_palette_on_bent_chains() {
        for joints in [1usize, 16, 64, 256, 1024] {
            let s = Skeleton::chain(joints, 0.25);
            let mut pose = s.bind_pose();
            for (j, l) in pose.locals.iter_mut().enumerate() {
                l.rotation = DQuat::from_axis_angle(
                    DVec3::new(0.3, 0.2, 1.0).normalize(),
                    0.05 + 0.001 * j as f64,
                );
            }
            let mut b = PaletteBuilder::new(&s);
            let mut out = b.palette();
            for isa in Isa::supported() {
                for p in [s.bind_pose(), pose.clone()] {
                    b.build_with(isa, &locals_f32(&p), &mut out);
                    let d = max_rel_diff(&out, &s.palette(&p));
                    assert!(d <= 1e-5, "{} {joints} joints: {d}", isa.name());
                    assert!(out.is_finite());
                }
            }
        }
    }

    #[test]
    fn fast_palette_matches_the_f64_palette_on_random_trees() {
        let mut rng = Rng(99);
        for joints in [2usize, 17, 100, 300] {
            let parents: Vec<Option<usize>> = (0..joints)
                .map(|j| {
                    if j == 0 || rng.below(10) == 0 {
                        None
                    } else {
                        Some(j - 1 - rng.below(j.min(4)))
                    }
                })
                .collect();
            let trs = |rng: &mut Rng| Transform {
                translation: rng.vec3(2.0).as_dvec3(),
                rotation: rng.quat().as_dquat().normalize(),
                scale: DVec3::new(
                    rng.range(0.7, 1.3) as f64,
                    rng.range(0.7, 1.3) as f64,
                    rng.range(0.7, 1.3) as f64,
                ),
            };
            let bind: Vec<Transform> = (0..joints).map(|_| trs(&mut rng)).collect();
            // Every third node is not a joint; the joints come in a shuffled order.
            let mut nodes: Vec<usize> = (0..joints).filter(|n| n % 3 != 1 || joints < 3).collect();
            for i in 0..nodes.len() {
                let k = i + rng.below(nodes.len() - i);
                nodes.swap(i, k);
            }
            let mut s = Skeleton {
                parents,
                bind,
                joints: nodes,
                inverse_bind: Vec::new(),
            };
            let g = s.globals(&s.bind_pose());
            s.inverse_bind = s.joints.iter().map(|&n| g[n].inverse()).collect();
            let pose = Pose {
                locals: (0..joints).map(|_| trs(&mut rng)).collect(),
            };
            let mut b = PaletteBuilder::new(&s);
            let want = s.palette(&pose);
            for isa in Isa::supported() {
                let mut out = AlignedPalette::default();
                b.build_with(isa, &locals_f32(&pose), &mut out);
                let d = max_rel_diff(&out, &want);
                assert!(d <= 1e-5, "{} {joints} joints: {d}", isa.name());
                assert_eq!(out.len(), want.len());
            }
        }
    }

    #[test]
    fn palette_builder_rejects_a_child_before_its_parent() {
        let mut s = Skeleton::chain(3, 1.0);
        s.parents[1] = Some(2);
        assert!(std::panic::catch_unwind(|| PaletteBuilder::new(&s)).is_err());
    }

    #[test]
    fn palette_builder_flags_non_finite_output() {
        let s = Skeleton::chain(2, 1.0);
        let mut b = PaletteBuilder::new(&s);
        let mut out = b.palette();
        let mut locals = locals_f32(&s.bind_pose());
        locals[1].translation.x = f32::INFINITY;
        for isa in Isa::supported() {
            b.build_with(isa, &locals, &mut out);
            assert!(!out.is_finite(), "{}", isa.name());
            b.build_with(isa, &locals_f32(&s.bind_pose()), &mut out);
            assert!(out.is_finite(), "{}", isa.name());
        }
    }
}
