//! The fast CPU skinning path beside the `reference` oracle: aligned palette, SIMD (AVX-512F, AVX2+FMA, portable), threads.
//!
//! Same math as `reference` (SPEC "The math"), in f32: per vertex the 4 palette matrices are blended
//! first (`B = sum w_k * skin[j_k]`) and B then transforms (p, 1) once. The palette is copied into
//! 64-byte aligned matrices ([`AlignedPalette`]) so one matrix is one cache line and one aligned
//! AVX-512 load (stored by rows, see [`AlignedMat4`]). The kernel is chosen at run time
//! ([`Isa::best`]); large meshes can be split over `threads` scoped threads, each writing its own
//! chunks of the caller's output slice; outputs over 8 MB are written with streaming stores (except
//! by the AVX2 skinning kernels, see `streams`).
//!
//! Semantics kept from the oracle: a zero weight contributes nothing, even for a non-finite matrix
//! (a palette with a non-finite entry takes the portable path, which skips zero weights), and a
//! joint index outside the palette panics only when its weight is nonzero (a block with such an
//! index takes the scalar path).
//!
//! The palette is kept in two forms. By rows, for AVX-512 and the portable path: a blended matrix B
//! (one 512-bit register) times the position broadcast into every row, (x, y, z, 1), leaves each
//! output coordinate as the horizontal sum of one 128-bit lane, and four vertices' lanes are
//! summed together with in-lane shuffles (a 4x4 transpose). By columns, for AVX2: B is two 256-bit
//! registers (columns 0-1, columns 2-3), and (c0|c1)(x|y) + (c2|c3)(z|1), its two halves added,
//! is the output with no sums across lanes: fewer shuffles and no wait for four vertices, which
//! made the AVX2 4-influence kernel about a quarter faster than the row form on a Zen 2 core. On a
//! core that splits 256-bit operations in two (Zen 1) the AVX2 kernels by rows in 128-bit
//! registers are faster (`avx2_rows`), and where 512-bit operations split in two (Zen 4) the
//! AVX2 form by columns beats the AVX-512 one; which SIMD form runs is decided by a timed trial
//! ([`kernel_trial`]; the static transform's by one of its own, [`static_trial`]).

use glam::Mat4;

use crate::rig::Mesh;

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx2_rows;
#[cfg(target_arch = "x86_64")]
mod avx512;
mod chunk;
mod flops;
mod palette;
mod portable;
mod stream;
#[cfg(test)]
mod tests;
mod trial;

use std::sync::OnceLock;

use chunk::par_chunks;
pub use chunk::MIN_VERTICES_PER_THREAD;
pub use flops::{flops_per_vertex, fma_peak, peak_flops, Kernel};
pub use palette::{locals_f32, LocalTrs, PaletteBuilder};
pub use stream::{bound_trial, stream_with, traffic, Ahead};
pub use trial::{Trial, TrialMesh};

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

/// One palette matrix by columns (glam's order) on its own 64-byte cache line: the AVX2 kernels'
/// form, where a position's x, y, z and 1 scale whole columns and no lane sums are needed.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C, align(64))]
pub struct AlignedCols(pub [f32; 16]);

impl From<&AlignedMat4> for AlignedCols {
    fn from(m: &AlignedMat4) -> Self {
        AlignedCols(m.to_mat4().to_cols_array())
    }
}

/// A skinning palette copied into 64-byte aligned matrices, by rows and by columns, with a flag
/// telling whether every entry is finite.
#[derive(Clone, Debug, PartialEq)]
pub struct AlignedPalette {
    mats: Vec<AlignedMat4>,
    /// The same matrices by columns, kept equal to `mats` by every method that writes it.
    cols: Vec<AlignedCols>,
    finite: bool,
}

impl Default for AlignedPalette {
    fn default() -> Self {
        AlignedPalette {
            mats: Vec::new(),
            cols: Vec::new(),
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
        let mut p = AlignedPalette {
            mats: vec![AlignedMat4::from(Mat4::IDENTITY); joints],
            ..Default::default()
        };
        p.sync_cols();
        p
    }

    /// Replaces the contents with `palette` (allocates only when it grows).
    pub fn copy_from(&mut self, palette: &[Mat4]) {
        self.mats.clear();
        self.mats
            .extend(palette.iter().map(|m| AlignedMat4::from(*m)));
        self.finite = palette.iter().all(|m| m.is_finite());
        self.sync_cols();
    }

    /// Writes `cols` from `mats` (allocates only when the palette grows).
    pub(super) fn sync_cols(&mut self) {
        self.cols.clear();
        self.cols.extend(self.mats.iter().map(AlignedCols::from));
    }

    /// Sets joint `j`'s matrix.
    pub fn set(&mut self, j: usize, m: &Mat4) {
        self.mats[j] = AlignedMat4::from(*m);
        self.cols[j] = AlignedCols::from(&self.mats[j]);
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

    /// The same matrices by columns.
    pub fn cols(&self) -> &[AlignedCols] {
        &self.cols
    }

    /// Joint `j`'s matrix, if there is one.
    pub fn get(&self, j: usize) -> Option<Mat4> {
        self.mats.get(j).map(AlignedMat4::to_mat4)
    }

    /// Whether every entry is finite (then the SIMD kernels, which do not skip zero weights, are exact in meaning).
    pub fn is_finite(&self) -> bool {
        self.finite
    }

    /// Size in bytes of one form (the kernels read one): 64 per joint.
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
    /// x86_64 AVX2 + FMA, 256-bit: skinning on the column palette.
    Avx2Fma,
    /// x86_64 AVX2 + FMA in 128-bit registers: skinning on the row palette (`avx2_rows`), the
    /// static transform 4 vertices a step; its memory bound's loop and FMA peak are
    /// [`Isa::Avx2Fma`]'s ([`Isa::bound_family`]).
    Avx2Rows,
    /// x86_64 AVX-512F, 512-bit: one whole matrix per register.
    Avx512F,
}

impl Isa {
    pub const ALL: [Isa; 4] = [Isa::Portable, Isa::Avx2Fma, Isa::Avx2Rows, Isa::Avx512F];
    /// The SIMD forms, which [`kernel_trial`] times against each other.
    pub const SIMD: [Isa; 3] = [Isa::Avx2Fma, Isa::Avx2Rows, Isa::Avx512F];

    /// Whether this CPU runs the kernel (run-time feature detection).
    pub fn is_supported(self) -> bool {
        match self {
            Isa::Portable => true,
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2Fma | Isa::Avx2Rows => {
                is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma")
            }
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512F => is_x86_feature_detected!("avx512f"),
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }

    /// The fastest family this CPU runs for skinning (4 and 1 influences): the SIMD form that won
    /// [`kernel_trial`], else the only SIMD form it runs, else the portable one.
    pub fn best() -> Isa {
        kernel_trial().map_or_else(Isa::only, |t| t.chosen)
    }

    /// The fastest family this CPU runs for the static transform, a loop of its own (no palette):
    /// the SIMD form that won [`static_trial`], else as [`Isa::best`].
    pub fn best_static() -> Isa {
        static_trial().map_or_else(Isa::only, |t| t.chosen)
    }

    /// The first SIMD form this CPU runs, else the portable one: the choice without a trial.
    fn only() -> Isa {
        Isa::SIMD
            .into_iter()
            .find(|i| i.is_supported())
            .unwrap_or(Isa::Portable)
    }

    /// Every family this CPU runs, in [`Isa::ALL`]'s order.
    pub fn supported() -> Vec<Isa> {
        Isa::ALL.into_iter().filter(|i| i.is_supported()).collect()
    }

    pub fn name(self) -> &'static str {
        match self {
            Isa::Portable => "portable",
            Isa::Avx2Fma => "avx2+fma",
            Isa::Avx2Rows => "avx2+fma rows",
            Isa::Avx512F => "avx512f",
        }
    }

    /// The family whose loops bound this one's rows: its streaming loop (the same loads and stores
    /// for the same traffic) and its FMA loop (the row kernels' 128-bit FMAs run on the same units
    /// as the 256-bit ones, whose rate is the core's peak).
    pub fn bound_family(self) -> Isa {
        match self {
            Isa::Avx2Rows => Isa::Avx2Fma,
            isa => isa,
        }
    }
}

/// The timed trial between the SIMD forms this CPU runs (`trial::run`, 4 influences, one
/// thread), run once per process on first use; None where it runs fewer than two.
pub fn kernel_trial() -> Option<&'static Trial> {
    static TRIAL: OnceLock<Option<Trial>> = OnceLock::new();
    TRIAL
        .get_or_init(|| {
            simd_trial(|isa, m, out| {
                skin_with(isa, &m.palette, &m.positions, &m.joints, &m.weights, out, 1)
            })
        })
        .as_ref()
}

/// The vertices of the static transform's trial: 1.5 MB of positions and output, past a core's
/// L2 cache, where a streaming loop's loads and stores decide, as at the bench's larger tiers; in
/// L2 the forms tie on a Zen 4 core (0.34 against 0.35 ns a vertex), while past it the AVX-512
/// one, whose stores fill whole 64-byte lines, is faster (0.28 against 0.35; the 200k row 0.057 ms
/// against 0.071 with the AVX2 loop).
const STATIC_TRIAL_VERTICES: usize = 1 << 16;

/// The same trial for the static transform, whose loops differ from the skinning ones, over
/// `STATIC_TRIAL_VERTICES` (the shared cache's reach): each form reads its positions there as its
/// bound's loop does, so the bound's trials at that reach run first, untimed.
pub fn static_trial() -> Option<&'static Trial> {
    static TRIAL: OnceLock<Option<Trial>> = OnceLock::new();
    TRIAL
        .get_or_init(|| {
            let forms = simd_forms();
            (forms.len() >= 2).then(|| {
                for &f in &forms {
                    stream::bound_trial(f, Reach::Shared, 0);
                }
                let m = Mat4::from_scale_rotation_translation(
                    glam::Vec3::splat(1.5),
                    glam::Quat::from_rotation_y(0.6),
                    glam::Vec3::new(1.0, -2.0, 3.0),
                );
                let positions: Vec<[f32; 3]> = (0..STATIC_TRIAL_VERTICES)
                    .map(|v| [(v % 7) as f32 * 0.1, v as f32 * 1e-6, 0.5])
                    .collect();
                let mut out = vec![[0f32; 3]; STATIC_TRIAL_VERTICES];
                trial::run_on(&forms, STATIC_TRIAL_VERTICES, |isa| {
                    transform_with(isa, &m, &positions, &mut out, 1);
                    std::hint::black_box(&mut out);
                })
            })
        })
        .as_ref()
}

/// `trial::run` over the SIMD forms this CPU runs; None where it runs fewer than two.
fn simd_trial(run: impl FnMut(Isa, &TrialMesh, &mut [[f32; 3]])) -> Option<Trial> {
    let forms = simd_forms();
    (forms.len() >= 2).then(|| trial::run(&forms, run))
}

/// The SIMD forms this CPU runs, in [`Isa::SIMD`]'s order.
fn simd_forms() -> Vec<Isa> {
    Isa::SIMD.into_iter().filter(|f| f.is_supported()).collect()
}

/// Outputs larger than this (in bytes, the whole call's) are written with non-temporal (streaming)
/// stores where a kernel has them: they would not stay in cache anyway, and streaming saves reading
/// each output line before writing it.
const STREAM_BYTES: usize = 8 << 20;

/// Whether a call of `isa`'s kernels with `n` outputs writes them with streaming stores; the memory
/// bound's loop follows it for every row. One exception: the AVX2 skinning kernels (4 and 1
/// influences) store plainly at every size (and prefetch their inputs where that pays, see
/// [`prefetches`]). At 2M vertices on a
/// Zen 2 core, alternated in one process, the 4-influence kernel took 7.7 ms with plain stores
/// against 8.3 ms with 16-byte streaming stores (7.9-8.1 ms with 32-byte ones); with its inputs
/// prefetched, the 1-influence kernel took 3.95-4.21 ms plain against 4.27-4.60 streaming. On a
/// Zen 1 core the row form's 4-influence kernel likewise (medians of 40 alternated calls): 12.5 ms
/// plain against 13.1 ms with 16-byte streaming stores on one thread, 7.07 against 7.09 on two.
/// Their loops leave the memory room for the write-allocate reads. The bound loop is the other way round
/// (4.9 against 5.1 ms) and keeps its streaming stores, the faster and so stricter bound.
fn streams(isa: Isa, n: usize) -> bool {
    isa != Isa::Portable && beyond_caches(n)
}

/// Whether `n` outputs (over 8 MB) leave a call's data to come from memory rather than the caches:
/// where the kernels stream their stores ([`Reach::Memory`]).
fn beyond_caches(n: usize) -> bool {
    n * 12 > STREAM_BYTES
}

/// Where a call's data comes from, by its size, for the choices trials make per size (whether to
/// prefetch, and how): the shared last-level cache, from [`SHARED_FROM`] vertices, or memory,
/// beyond the caches (over 8 MB of output, where the kernels stream their stores). Smaller calls
/// leave their inputs to the hardware prefetcher.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reach {
    Shared,
    Memory,
}

/// The smallest call (in vertices) whose data is taken to come from the shared cache: at 56 bytes
/// a vertex (4 influences) 3.7 MB, past any current core's own L2.
pub const SHARED_FROM: usize = 1 << 16;

impl Reach {
    pub const ALL: [Reach; 2] = [Reach::Shared, Reach::Memory];

    /// The reach of a call with `n` outputs; None below [`SHARED_FROM`].
    pub fn of(n: usize) -> Option<Reach> {
        if beyond_caches(n) {
            Some(Reach::Memory)
        } else {
            (n >= SHARED_FROM).then_some(Reach::Shared)
        }
    }

    /// The vertices of its trials: the bench's tier that it serves.
    pub fn trial_vertices(self) -> usize {
        match self {
            Reach::Shared => 200_000,
            Reach::Memory => 2_000_000,
        }
    }

    /// The rounds of its trials (a call about 0.4 or 6 ms).
    pub fn trial_rounds(self) -> usize {
        match self {
            Reach::Shared => 15,
            Reach::Memory => 5,
        }
    }

    /// Whether its trials time each call after an untimed one of the same candidate: from the
    /// shared cache, so that each candidate finds the data where it leaves it (not as a
    /// non-temporal pass before it did); beyond the caches no call finds it in them anyway.
    pub fn warm(self) -> bool {
        self == Reach::Shared
    }
}

/// Whether a call of `isa`'s skinning kernels (4 and 1 influences) with `n` outputs prefetches
/// its inputs: a SIMD form from the shared cache or beyond the caches, where its
/// [`prefetch_trial`] there found prefetching the faster on this core. Beyond the caches, on a
/// Zen 2 core it was for the AVX2 forms (3-5% at 2M vertices, 10-12% for the 1-influence kernel),
/// on a Zen 4 core the hardware prefetcher alone was (alternated in one process at 2M vertices:
/// 5.8 ms without against 6.8 with, one thread; 3.1 against 3.4, two), and on an Intel Xeon
/// prefetching made the AVX-512 kernels 15-25% faster (`avx512::PREFETCH_VERTICES`), and 10-20%
/// from its shared cache (200k vertices: 0.40-0.41 ms against 0.45-0.52).
fn prefetches(isa: Isa, n: usize) -> bool {
    Reach::of(n).is_some_and(|r| prefetch_trial(isa, r).is_some_and(|t| t.chosen))
}

/// The timed trial of prefetching in `isa`'s 4-influence kernel (with, `true`, and without) at
/// `reach` (on its trial vertices) on one thread, run once per process, form and reach on first
/// use; None for the portable form (it never prefetches) or a form this CPU lacks.
pub fn prefetch_trial(isa: Isa, reach: Reach) -> Option<&'static Trial<bool>> {
    static TRIALS: [[OnceLock<Trial<bool>>; 2]; 3] = [const { [const { OnceLock::new() }; 2] }; 3];
    let slot = match isa {
        Isa::Avx2Fma => 0,
        Isa::Avx2Rows => 1,
        Isa::Avx512F => 2,
        _ => return None,
    };
    isa.is_supported().then(|| {
        TRIALS[slot][reach as usize].get_or_init(|| {
            let n = reach.trial_vertices();
            let m = TrialMesh::of(n);
            let mut out = vec![[0f32; 3]; n];
            let inputs = (&m.positions[..], &m.joints[..], &m.weights[..]);
            let (rounds, warm) = (reach.trial_rounds(), reach.warm());
            trial::run_rounds(&[true, false], n, rounds, warm, |prefetch| {
                skin_run(isa, &m.palette, inputs, &mut out, 1, prefetch);
                std::hint::black_box(&mut out);
            })
        })
    })
}

/// The vertices before the first one whose output starts on an `align`-byte boundary (fewer than
/// `period`, the vertices that span a whole number of such boundaries), at most all of them.
#[cfg(target_arch = "x86_64")]
fn head_to(out: &[[f32; 3]], align: usize, period: usize) -> usize {
    let addr = out.as_ptr() as usize;
    (0..period)
        .find(|h| (addr + 12 * h).is_multiple_of(align))
        .unwrap_or(0)
        .min(out.len())
}

fn check_isa(isa: Isa) {
    assert!(
        isa.is_supported(),
        "fast: the {} kernel is not supported on this CPU",
        isa.name()
    );
}

/// 4-influence LBS with the best kernel: `out[i] = sum_k w_k * (skin[j_k] * (p_i, 1)).xyz`, on up to
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

/// `skin` on a `Mesh`.
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
    check_lengths("fast::skin", n, positions, joints, weights);
    // The SIMD kernels blend every influence; only a finite palette makes 0 * M vanish.
    let isa = if palette.is_finite() {
        isa
    } else {
        Isa::Portable
    };
    let prefetch = prefetches(isa, n);
    skin_run(
        isa,
        palette,
        (positions, joints, weights),
        out,
        threads,
        prefetch,
    );
}

/// A 4-influence call's inputs: positions, joints and weights.
type Inputs<'a> = (&'a [[f32; 3]], &'a [[u32; 4]], &'a [[f32; 4]]);

/// [`skin_with`] once its kernel is settled (`isa`, supported, on a palette it may run on) and
/// whether a SIMD kernel prefetches its inputs.
fn skin_run(
    isa: Isa,
    palette: &AlignedPalette,
    (positions, joints, weights): Inputs,
    out: &mut [[f32; 3]],
    threads: usize,
    prefetch: bool,
) {
    let n = out.len();
    let (pal, cols) = (palette.as_slice(), palette.cols());
    // The AVX2 kernel never streams (see `streams`).
    let stream = streams(isa, n);
    par_chunks(out, threads, |r, out| {
        let (p, j, w) = (&positions[r.clone()], &joints[r.clone()], &weights[r]);
        match isa {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: check_isa asserted that this CPU has AVX-512F.
            Isa::Avx512F => unsafe { avx512::skin_avx512(pal, p, j, w, out, stream, prefetch) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: check_isa asserted that this CPU has AVX2 and FMA.
            Isa::Avx2Fma => unsafe { avx2::skin_avx2::<false>(pal, cols, p, j, w, out, prefetch) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: check_isa asserted that this CPU has AVX2 and FMA.
            Isa::Avx2Rows => unsafe { avx2_rows::skin_rows::<false>(pal, p, j, w, out, prefetch) },
            _ => {
                let _ = stream; // the portable kernels do not stream
                portable::skin(pal, p, j, w, out)
            }
        }
    });
}

/// An AVX2 4-influence kernel's loads and stores alone, on one thread: [`skin_with`]'s loop for
/// `isa` (an AVX2 form: the same index checks, loads of indices, weights, palette and position,
/// prefetches and stores) with xor in place of its arithmetic; how long moving the kernel's data
/// through the core takes, as context for its bounds. The output is garbage. Panics unless `isa`
/// is an AVX2 form this CPU runs, or on unequal lengths.
pub fn skin4_moves(
    isa: Isa,
    palette: &AlignedPalette,
    positions: &[[f32; 3]],
    joints: &[[u32; 4]],
    weights: &[[f32; 4]],
    out: &mut [[f32; 3]],
) {
    assert!(
        matches!(isa, Isa::Avx2Fma | Isa::Avx2Rows),
        "fast::skin4_moves: {} is not an AVX2 form",
        isa.name()
    );
    check_isa(isa);
    let n = out.len();
    check_lengths("fast::skin4_moves", n, positions, joints, weights);
    let (pal, cols) = (palette.as_slice(), palette.cols());
    let ahead = prefetches(isa, n);
    #[cfg(target_arch = "x86_64")]
    // SAFETY (both): check_isa asserted that this CPU has AVX2 and FMA.
    if isa == Isa::Avx2Rows {
        unsafe { avx2_rows::skin_rows::<true>(pal, positions, joints, weights, out, ahead) }
    } else {
        unsafe { avx2::skin_avx2::<true>(pal, cols, positions, joints, weights, out, ahead) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (pal, cols, ahead); // check_isa has panicked
}

/// Panics, naming `what`, unless positions, joints and weights all have `n` entries.
fn check_lengths(
    what: &str,
    n: usize,
    positions: &[[f32; 3]],
    joints: &[[u32; 4]],
    weights: &[[f32; 4]],
) {
    assert!(
        positions.len() == n && joints.len() == n && weights.len() == n,
        "{what}: {n} outputs but {} positions, {} joints, {} weights",
        positions.len(),
        joints.len(),
        weights.len()
    );
}

/// 1-influence skinning with the best kernel: `out[i] = (skin[joints[i][0]] * (p_i, 1)).xyz`
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
    let (pal, cols) = (palette.as_slice(), palette.cols());
    // The AVX2 kernel never streams (see `streams`).
    let stream = streams(isa, n);
    let prefetch = prefetches(isa, n);
    par_chunks(out, threads, |r, out| {
        let (p, j) = (&positions[r.clone()], &joints[r]);
        match isa {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: check_isa asserted that this CPU has AVX-512F.
            Isa::Avx512F => unsafe { avx512::skin1_avx512(pal, p, j, out, stream, prefetch) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: check_isa asserted that this CPU has AVX2 and FMA.
            Isa::Avx2Fma => unsafe { avx2::skin1_avx2(pal, cols, p, j, out, prefetch) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: check_isa asserted that this CPU has AVX2 and FMA.
            Isa::Avx2Rows => unsafe { avx2_rows::skin1_rows(pal, p, j, out, prefetch) },
            _ => {
                let _ = stream; // the portable kernels do not stream
                portable::skin1(pal, p, j, out)
            }
        }
    });
}

/// The static baseline with the best kernel for it ([`Isa::best_static`]):
/// `out[i] = (m * (p_i, 1)).xyz`.
pub fn transform(m: &Mat4, positions: &[[f32; 3]], out: &mut [[f32; 3]], threads: usize) {
    transform_with(Isa::best_static(), m, positions, out, threads);
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
    let stream = streams(isa, out.len());
    // A streaming loop of its own: it reads its positions as its bound's loop does.
    let hint = stream::hint(isa, out.len(), 0);
    par_chunks(out, threads, |r, out| {
        let p = &positions[r];
        match isa {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: check_isa asserted that this CPU has AVX-512F.
            Isa::Avx512F => unsafe { avx512::transform_avx512(m, p, out, stream, hint) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: check_isa asserted that this CPU has AVX2 and FMA.
            Isa::Avx2Fma => unsafe { avx2::transform_avx2::<true>(m, p, out, stream, hint) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: check_isa asserted that this CPU has AVX2 and FMA.
            Isa::Avx2Rows => unsafe { avx2::transform_avx2::<false>(m, p, out, stream, hint) },
            _ => {
                let _ = (stream, hint); // the portable kernels do not stream
                portable::transform(m, p, out)
            }
        }
    });
}

/// The palette length for unsigned index comparisons (an index is valid iff index < len).
#[cfg(target_arch = "x86_64")]
fn len_u32(pal: &[AlignedMat4]) -> u32 {
    u32::try_from(pal.len()).unwrap_or(u32::MAX)
}
