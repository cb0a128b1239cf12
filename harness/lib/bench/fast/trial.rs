//! A timed trial between kernel families on one small in-cache mesh: which runs faster on this core.
//!
//! The SIMD skinning kernels come in forms whose speed depends on the core, not on the
//! instruction set: AVX2 columns in 256-bit registers (fewer loads, for cores whose 256-bit
//! operations are whole; the form chosen on Zen 2, where the row form was not measured), AVX2 rows
//! in 128-bit ones (fewer operations where 256-bit ones split in two: faster on Zen 1) and AVX-512
//! rows, one matrix a register (slower than the AVX2 columns on Zen 4, which splits 512-bit
//! operations in two). Rather than guess from the CPU's name, every form it
//! runs is timed on 4-influence skinning, whose winner's family also runs the 1-influence kernel;
//! the static transform, a loop of its own, is timed apart.

use std::time::Instant;

use glam::{Mat4, Quat, Vec3};

use super::{AlignedPalette, Isa};

/// Joints of the trial's palette.
const JOINTS: usize = 32;
/// Rounds of the trial: each family is timed once a round, in turn, and keeps its fastest time (a
/// slower one had the core taken away part of the time). The trial is the kernels' first use in a
/// process: with 15 rounds (0.3 ms in all) it chose an AVX2 form in 5 of 16 processes on an Intel
/// Xeon (family 6, model 167), its AVX-512 times 2.0-3.1 ns a vertex from one process to the next,
/// where 201 rounds of the same calls gave 2.1-2.4 against the AVX2 columns' 2.4-2.9; with 200
/// rounds (about 5 ms) AVX-512 won in each of 3 (2.17-2.24 against 2.49-2.59).
const ROUNDS: usize = 200;

/// The outcome of one trial between candidates (kernel families, or a kernel's variants).
#[derive(Clone, Debug, PartialEq)]
pub struct Trial<T = Isa> {
    /// Each candidate with its fastest time, ns per vertex, in the order they were given.
    pub timed: Vec<(T, f64)>,
    /// The candidate with the fastest time.
    pub chosen: T,
    /// The vertices of each timed call.
    pub vertices: usize,
}

/// The trial's inputs: a palette of turned and moved joints, and a mesh whose vertices each take
/// 4 neighbouring joints with unequal weights.
pub struct TrialMesh {
    pub palette: AlignedPalette,
    pub positions: Vec<[f32; 3]>,
    pub joints: Vec<[u32; 4]>,
    pub weights: Vec<[f32; 4]>,
}

impl TrialMesh {
    /// Vertices of the mesh: with its inputs and output about 110 KB, in the L2 cache of any
    /// current core, so that the time is the core's alone.
    pub const VERTICES: usize = 2048;

    pub fn new() -> Self {
        TrialMesh::of(TrialMesh::VERTICES)
    }

    /// The mesh with `vertices` vertices, the joints spread over them alike.
    pub fn of(vertices: usize) -> Self {
        let mats: Vec<Mat4> = (0..JOINTS)
            .map(|j| {
                let a = j as f32 * 0.1;
                Mat4::from_rotation_translation(Quat::from_rotation_y(a), Vec3::new(a, 1.0, -a))
            })
            .collect();
        let spread = (JOINTS - 3) as f32 / vertices as f32;
        TrialMesh {
            palette: AlignedPalette::from(mats.as_slice()),
            positions: (0..vertices)
                .map(|v| [(v % 7) as f32 * 0.1, v as f32 * 1e-3, 0.5])
                .collect(),
            joints: (0..vertices)
                .map(|v| {
                    let j = (v as f32 * spread) as u32;
                    [j, j + 1, j + 2, j + 3]
                })
                .collect(),
            weights: (0..vertices)
                .map(|v| {
                    let t = (v % 10) as f32 * 0.01;
                    [0.4 - t, 0.3, 0.2, 0.1 + t]
                })
                .collect(),
        }
    }
}

impl Default for TrialMesh {
    fn default() -> Self {
        Self::new()
    }
}

/// Times `run` for each of `families` in turn, [`ROUNDS`] times over, on the calling thread; the
/// fastest family wins (the first of equals). `run(isa, mesh, out)` does one call of the kernel.
pub fn run(families: &[Isa], mut run: impl FnMut(Isa, &TrialMesh, &mut [[f32; 3]])) -> Trial {
    let mesh = TrialMesh::new();
    let mut out = vec![[0f32; 3]; TrialMesh::VERTICES];
    run_on(families, TrialMesh::VERTICES, |isa| {
        run(isa, &mesh, &mut out);
        std::hint::black_box(&mut out);
    })
}

/// Times `run(isa)`, one call over `vertices` vertices of the caller's own data, for each of
/// `families` in turn, [`ROUNDS`] times over; the fastest family wins (the first of equals).
pub fn run_on(families: &[Isa], vertices: usize, run: impl FnMut(Isa)) -> Trial {
    run_rounds(families, vertices, ROUNDS, false, run)
}

/// Times `run(c)` for each of `candidates` in turn, `rounds` times over; each keeps its fastest
/// time, and the fastest wins (the first of equals). When `warm`, each timed call follows an
/// untimed one of the same candidate, so that it finds its data in the caches as the candidate
/// itself leaves it, not as the one before it did (a non-temporal pass, say). Spreading the rounds over 100 ms (5 bursts
/// 20 ms apart) or comparing each round's times did not make the skinning trial's choice any
/// steadier on a shared Zen 4 VM (alternated processes: AVX-512 chosen over the 4% faster AVX2
/// columns in 3-5 of 40 either way).
pub fn run_rounds<T: Copy>(
    candidates: &[T],
    vertices: usize,
    rounds: usize,
    warm: bool,
    mut run: impl FnMut(T),
) -> Trial<T> {
    assert!(!candidates.is_empty(), "fast::trial: nothing to time");
    let mut fastest = vec![f64::INFINITY; candidates.len()];
    for _ in 0..rounds {
        for (&c, best) in candidates.iter().zip(&mut fastest) {
            if warm {
                run(c);
            }
            let start = Instant::now();
            run(c);
            *best = best.min(start.elapsed().as_secs_f64());
        }
    }
    let timed: Vec<(T, f64)> = candidates
        .iter()
        .zip(&fastest)
        .map(|(&c, &s)| (c, s * 1e9 / vertices as f64))
        .collect();
    let chosen = timed
        .iter()
        .fold(timed[0], |a, &b| if b.1 < a.1 { b } else { a })
        .0;
    Trial {
        timed,
        chosen,
        vertices,
    }
}
