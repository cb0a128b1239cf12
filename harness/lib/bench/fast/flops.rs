//! The arithmetic bound of the kernels: their floating-point operations per vertex, counted from
//! their code, and a loop of independent FMAs that runs the core's FMA units at their peak.

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;
use std::hint::black_box;

use super::Isa;

/// The kernels whose flops are counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    Static,
    Skin1,
    Skin4,
}

/// Floating-point operations per vertex of `kernel` on `isa`, counted from the kernel's code: an
/// FMA counts 2 per lane, a mul or an add 1 per lane, every lane the instruction computes
/// (shuffles, blends, broadcasts, loads and stores count 0). None for the portable kernels, which
/// have no counted code (glam's, as the compiler lowers it) and no FMA loop to compare with.
///
/// AVX2 (`avx2.rs`, the column palette), per vertex:
/// - blend (4 influences): columns 0-1 and columns 2-3 in 8 lanes each, 1 mul + 3 FMA each =
///   2 x (8 + 3 x 16) = 112 (the 4 lanes of row 3 included: the instructions compute them).
/// - apply: 1 mul of 8 lanes + 1 FMA of 8 lanes + 1 add of 4 lanes = 8 + 16 + 4 = 28.
/// - skin4 = 112 + 28 = 140; skin1 (no blend) = 28.
/// - static (`transform_avx2::<true>`, 8 vertices per step): 3 outputs x 3 FMA x 8 lanes x 2 = 144 per
///   step, 18 a vertex.
///
/// AVX2 rows (`avx2_rows.rs`, 128-bit registers), per vertex:
/// - blend (4 influences): rows 0-2 in 4 lanes each, 1 mul + 3 FMA each = 3 x (4 + 3 x 8) = 84.
/// - apply: 3 muls of 4 lanes = 12.
/// - lane sums per 4 vertices: `lane_sums` 3 adds x 4 lanes, 3 times = 36; 9 a vertex.
/// - skin4 = 84 + 12 + 9 = 105; skin1 = 12 + 9 = 21.
/// - static (`transform_avx2::<false>`, 4 vertices per step): 3 outputs x (2 FMA + 1 mul + 1 add)
///   x 4 lanes = 72 per step, 18 a vertex.
///
/// AVX-512 (`avx512.rs`), per vertex:
/// - blend: 1 mul + 3 FMA of 16 lanes (the whole matrix, row 3 too) = 16 + 3 x 32 = 112.
/// - apply: 1 mul of 16 lanes = 16.
/// - lane sums per 4 vertices: `hsum4_512` 3 adds x 16 lanes = 48; 12 a vertex.
/// - skin4 = 112 + 16 + 12 = 140; skin1 = 16 + 12 = 28.
/// - static (`static512_block`, 16 vertices per step): 3 outputs x 3 FMA x 16 lanes x 2 = 288
///   per step, 18 a vertex.
pub fn flops_per_vertex(kernel: Kernel, isa: Isa) -> Option<u32> {
    match (isa, kernel) {
        (Isa::Portable, _) => None,
        (Isa::Avx2Fma, Kernel::Skin4) => Some(112 + 28),
        (Isa::Avx2Fma, Kernel::Skin1) => Some(28),
        (Isa::Avx2Rows, Kernel::Skin4) => Some(84 + 12 + 9),
        (Isa::Avx2Rows, Kernel::Skin1) => Some(12 + 9),
        (Isa::Avx512F, Kernel::Skin4) => Some(112 + 16 + 12),
        (Isa::Avx512F, Kernel::Skin1) => Some(16 + 12),
        (_, Kernel::Static) => Some(3 * 3 * 2),
    }
}

/// Independent FMA chains in the peak loop: more than FMA latency (4 or 5 cycles) times FMA
/// units (2) on current cores, so no FMA waits for another and every unit takes one each cycle.
const CHAINS: usize = 12;
/// Loop turns of one peak call: about 0.1 ms at 2 FMAs per cycle and 3 GHz.
const TURNS: usize = 1 << 14;

/// Floating-point operations of one [`fma_peak`] call on `isa`, or None where it has no loop of
/// its own (the portable family, and those measured by another's: [`Isa::bound_family`]).
pub fn peak_flops(isa: Isa) -> Option<f64> {
    let lanes = match isa {
        Isa::Portable | Isa::Avx2Rows => return None,
        Isa::Avx2Fma => 8,
        Isa::Avx512F => 16,
    };
    Some((TURNS * CHAINS * lanes * 2) as f64)
}

/// Runs [`peak_flops`]`(isa)` flops as independent FMAs of `isa`'s width (nothing for a family
/// without a loop of its own); timed, it gives the core's FMA throughput. Panics if the CPU lacks
/// `isa`.
pub fn fma_peak(isa: Isa) {
    super::check_isa(isa);
    match isa {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: check_isa asserted that this CPU has AVX2 and FMA.
        Isa::Avx2Fma => unsafe { peak_avx2() },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: check_isa asserted that this CPU has AVX-512F.
        Isa::Avx512F => unsafe { peak_avx512() },
        _ => {}
    }
}

/// `acc = acc * a + b` on [`CHAINS`] registers; a and b come through `black_box`, so the compiler
/// cannot fold the chains, and acc tends to b / (1 - a) = 1: no overflow, no denormals.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn peak_avx2() {
    let a = _mm256_set1_ps(black_box(0.5));
    let b = _mm256_set1_ps(black_box(0.5));
    let mut acc = [_mm256_set1_ps(black_box(0.0)); CHAINS];
    for _ in 0..TURNS {
        for c in acc.iter_mut() {
            *c = _mm256_fmadd_ps(*c, a, b);
        }
    }
    black_box(acc);
}

/// [`peak_avx2`] in 512-bit registers.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn peak_avx512() {
    let a = _mm512_set1_ps(black_box(0.5));
    let b = _mm512_set1_ps(black_box(0.5));
    let mut acc = [_mm512_set1_ps(black_box(0.0)); CHAINS];
    for _ in 0..TURNS {
        for c in acc.iter_mut() {
            *c = _mm512_fmadd_ps(*c, a, b);
        }
    }
    black_box(acc);
}
