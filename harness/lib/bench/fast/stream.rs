//! The memory bound of the kernels: a loop that moves exactly a kernel's traffic (its own input
//! and output slices, so the same alignment) with the same SIMD width and thread split, and with
//! streaming stores where the kernels' outputs would be (over 8 MB), the faster way to write them;
//! from the shared cache's reach on, its inputs are read the way a trial of its own finds fastest
//! on this machine ([`Ahead`]).
//!
//! Each vertex's input bytes are combined by xor into its output bytes: a few bitwise operations
//! per 32 or 64 bytes, so the loop runs as fast as the memory lets it, and every byte loaded is
//! used (nothing is optimised away). The output is garbage: only its time matters.

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

use std::sync::OnceLock;

#[cfg(target_arch = "x86_64")]
use super::avx2::PREFETCH_VERTICES;
use super::chunk::par_chunks;
#[cfg(target_arch = "x86_64")]
use super::head_to;
use super::trial::{self, Trial, TrialMesh};
use super::{check_isa, streams, Isa, Reach};

/// How a streaming loop reads its inputs from memory: left to the core's hardware prefetcher, or
/// prefetched some vertices ahead (each family its own distance: the AVX2 loops 256 vertices, the
/// AVX-512 ones 64) into every cache level (`T0`) or non-temporally (`Nta`). Which is fastest
/// depends on the core: from DRAM (2M vertices, 44 + 12 bytes a vertex, one thread) the AVX2
/// loop took 4.3-4.6 ms with the hardware prefetcher alone against 4.1-4.2 non-temporally on a
/// Zen 2 core, and on an Intel Xeon (family 6, model 167) 7.5 ms alone, 6.6 with T0 and 16.6 (!)
/// non-temporally; so the bound's loop takes the winner of a trial ([`bound_trial`]), per reach
/// and traffic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ahead {
    Hardware,
    T0,
    Nta,
}

impl Ahead {
    pub const ALL: [Ahead; 3] = [Ahead::Hardware, Ahead::T0, Ahead::Nta];

    /// The hints a trial at `reach` times: all of them beyond the caches; from the shared cache
    /// not the non-temporal one, which never puts the data back there: once other work has pushed
    /// it out, every later call reads it from memory. On an Intel Xeon a 28 + 12 byte bound that
    /// won its trial at 200k vertices by a hair (1.35 ns a vertex against 1.38 with T0 and 1.42
    /// alone, the trial's data still in the cache from its making) took 2.6 ns a vertex in the
    /// tier, after the other rows, twice the row it bounded.
    pub fn candidates(reach: Reach) -> &'static [Ahead] {
        match reach {
            Reach::Shared => &[Ahead::Hardware, Ahead::T0],
            Reach::Memory => &Ahead::ALL,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Ahead::Hardware => "hardware prefetcher alone",
            Ahead::T0 => "prefetched (T0)",
            Ahead::Nta => "prefetched non-temporally (NTA)",
        }
    }

    /// Prefetches the `lines` 64-byte lines from `p` with this hint (none for `Hardware`), at any
    /// address: the addresses are only computed (wrapping), never dereferenced by the program.
    /// The loops test the hint a step (loop-invariant: a branch the core predicts every time).
    /// `_mm_prefetch` needs no more than SSE; the feature only keeps the callers SIMD loops.
    #[cfg(target_arch = "x86_64")]
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) fn fetch(self, p: *const i8, lines: usize) {
        // A prefetch is a hint: it reads nothing into the program and never faults, whatever the
        // address (so the intrinsic is safe to call).
        for i in 0..lines {
            let p = p.wrapping_add(64 * i);
            match self {
                Ahead::Hardware => {}
                Ahead::T0 => _mm_prefetch::<_MM_HINT_T0>(p),
                Ahead::Nta => _mm_prefetch::<_MM_HINT_NTA>(p),
            }
        }
    }
}

/// The timed trial of how the memory bound's loop of `isa`'s family reads `wide` 16-byte streams
/// beside the positions (0 to 2: the static transform's, 1- or 4-influence traffic) at `reach`
/// (its [`Ahead::candidates`]), on the reach's trial vertices on one thread, run once per process, loop,
/// reach and traffic on first use; None for the portable loop (it never prefetches), a family
/// this CPU lacks or more than two wide streams.
pub fn bound_trial(isa: Isa, reach: Reach, wide: usize) -> Option<&'static Trial<Ahead>> {
    type Slots = [[[OnceLock<Trial<Ahead>>; 3]; 2]; 2];
    static TRIALS: Slots = [const { [const { [const { OnceLock::new() }; 3] }; 2] }; 2];
    let slot = match isa.bound_family() {
        Isa::Avx2Fma => 0,
        Isa::Avx512F => 1,
        _ => return None,
    };
    (isa.is_supported() && wide <= 2).then(|| {
        TRIALS[slot][reach as usize][wide].get_or_init(|| {
            let n = reach.trial_vertices();
            let m = TrialMesh::of(n);
            let weights: Vec<[u32; 4]> = m.weights.iter().map(|w| w.map(f32::to_bits)).collect();
            let mut out = vec![[0f32; 3]; n];
            let streams: [&[[u32; 4]]; 2] = [&m.joints, &weights];
            let (rounds, warm) = (reach.trial_rounds(), reach.warm());
            trial::run_rounds(Ahead::candidates(reach), n, rounds, warm, |hint| {
                let w = &streams[..wide];
                stream_run(isa.bound_family(), &m.positions, w, &mut out, 1, hint);
                std::hint::black_box(&mut out);
            })
        })
    })
}

/// How `isa`'s loops moving `wide` 16-byte streams beside the positions (its bound's, and with
/// none its static transform's, which follows its bound) read their inputs for `n` outputs: as
/// the bound's trial at their reach and traffic chose, else (small calls) by the hardware
/// prefetcher alone.
pub fn hint(isa: Isa, n: usize, wide: usize) -> Ahead {
    Reach::of(n)
        .and_then(|r| bound_trial(isa, r, wide))
        .map_or(Ahead::Hardware, |t| t.chosen)
}

/// The 16-byte input streams beside the positions: a kernel's joints, weights, both or none.
pub type Wide<'a> = &'a [&'a [[u32; 4]]];

/// Bytes read and written per vertex by a kernel reading positions and `wide` 16-byte streams.
pub fn traffic(wide: usize) -> (usize, usize) {
    (12 + 16 * wide, 12)
}

/// Reads `positions` and every `wide` stream and writes `out` as a kernel of `isa` with this
/// traffic would (its loads, its `threads`; streaming stores over 8 MB of output, as `streams`
/// says), its inputs read as `hint` says; panics on unequal lengths or more than two wide
/// streams.
pub fn stream_with(
    isa: Isa,
    positions: &[[f32; 3]],
    wide: Wide,
    out: &mut [[f32; 3]],
    threads: usize,
) {
    check_isa(isa);
    let hint = hint(isa, out.len(), wide.len());
    stream_run(isa, positions, wide, out, threads, hint);
}

/// [`stream_with`] with its inputs read as `hint` says.
pub(super) fn stream_run(
    isa: Isa,
    positions: &[[f32; 3]],
    wide: Wide,
    out: &mut [[f32; 3]],
    threads: usize,
    hint: Ahead,
) {
    let n = out.len();
    assert!(
        positions.len() == n && wide.iter().all(|w| w.len() == n) && wide.len() <= 2,
        "fast::stream: {n} outputs, {} positions, {} wide streams",
        positions.len(),
        wide.len()
    );
    let stream = streams(isa, n);
    par_chunks(out, threads, |r, out| {
        let p = &positions[r.clone()];
        let w: [&[[u32; 4]]; 2] = [
            wide.first().map_or(&[][..], |w| &w[r.clone()]),
            wide.get(1).map_or(&[][..], |w| &w[r.clone()]),
        ];
        let w = &w[..wide.len()];
        match isa {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: check_isa asserted that this CPU has AVX-512F.
            Isa::Avx512F => unsafe { stream_avx512(p, w, out, stream, hint) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: check_isa asserted that this CPU has AVX2 and FMA.
            Isa::Avx2Fma | Isa::Avx2Rows => unsafe { stream_avx2(p, w, out, stream, hint) },
            _ => {
                let _ = hint; // the portable loop does not prefetch
                xor_vertices(p, w, out, 0..out.len())
            }
        }
    });
}

/// One vertex at a time: the portable loop, and the head and tail of the SIMD ones.
fn xor_vertices(
    pos: &[[f32; 3]],
    wide: &[&[[u32; 4]]],
    out: &mut [[f32; 3]],
    r: std::ops::Range<usize>,
) {
    for v in r {
        let mut o = pos[v].map(f32::to_bits);
        for w in wide {
            let x = w[v];
            o = [o[0] ^ x[0] ^ x[3], o[1] ^ x[1], o[2] ^ x[2]];
        }
        out[v] = o.map(f32::from_bits);
    }
}

/// The AVX2 loop: 8 vertices a step, unaligned loads (their width: see [`steps_avx2`]) and 256-bit
/// stores; over 8 MB of output streaming ones from the first 32-byte aligned output vertex; every
/// input read as `hint` says ([`PREFETCH_VERTICES`] ahead).
///
/// # Safety
/// The CPU has AVX2; every slice is `out.len()` long.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn stream_avx2(
    pos: &[[f32; 3]],
    wide: &[&[[u32; 4]]],
    out: &mut [[f32; 3]],
    stream: bool,
    hint: Ahead,
) {
    let n = out.len();
    let head = if stream { head_to(out, 32, 8) } else { 0 };
    xor_vertices(pos, wide, out, 0..head);
    let full = head + (n - head) / 8 * 8;
    let r = head..full;
    // SAFETY: as the caller guarantees, and out[head] is 32-byte aligned when streaming.
    unsafe {
        match (stream, wide) {
            (false, []) => steps_avx2::<false, 0>(pos, [], out, r, hint),
            (false, &[a]) => steps_avx2::<false, 1>(pos, [a], out, r, hint),
            (false, &[a, b]) => steps_avx2::<false, 2>(pos, [a, b], out, r, hint),
            (true, []) => steps_avx2::<true, 0>(pos, [], out, r, hint),
            (true, &[a]) => steps_avx2::<true, 1>(pos, [a], out, r, hint),
            (true, &[a, b]) => steps_avx2::<true, 2>(pos, [a, b], out, r, hint),
            _ => unreachable!("stream_with takes at most two wide streams"),
        }
    }
    xor_vertices(pos, wide, out, full..n);
    if stream {
        _mm_sfence();
    }
}

/// [`stream_avx2`]'s steps over `r` (a multiple of 8 long), one loop per store kind and number of
/// wide streams, so that no step tests or loops over what the call already decided but the
/// prefetch hint (see [`Ahead::fetch`]).
///
/// # Safety
/// The CPU has AVX2; every slice is `out.len()` long, `r.end <= out.len()`, and `out[r.start]` is
/// 32-byte aligned when `STREAM`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn steps_avx2<const STREAM: bool, const W: usize>(
    pos: &[[f32; 3]],
    wide: [&[[u32; 4]]; W],
    out: &mut [[f32; 3]],
    r: std::ops::Range<usize>,
    hint: Ahead,
) {
    // Register i of the `regs` that hold a step's floats from p: the 256 bits at 8 i, or, where the
    // step streams beside wide streams, the 16-byte pieces i and i + regs (not next to each other,
    // or LLVM merges the two loads back into one). On a Zen 2 core the 128-bit loads made the 44 + 12 byte bound at 2M
    // vertices 15% faster (3.93 against 4.63 ms; half the 256-bit ones split across lines), the
    // 256-bit ones the 12 + 12 byte one 4% (1.40 against 1.46) and, from L3 (200k), the 44 + 12
    // byte one 13% (0.163 against 0.188).
    let split = STREAM && W > 0;
    let reg = |p: *const f32, i: usize, regs: usize| {
        // SAFETY: the callers below pass i < regs with 8 regs floats readable from p; loadu needs
        // no alignment.
        unsafe {
            if split {
                _mm256_set_m128(
                    _mm_loadu_ps(p.add(4 * (i + regs))),
                    _mm_loadu_ps(p.add(4 * i)),
                )
            } else {
                _mm256_loadu_ps(p.add(8 * i))
            }
        }
    };
    for b in r.step_by(8) {
        // Two lines a stream: a step's 96 or 128 bytes, and the next step's pair starts at most
        // a line further, so every line is fetched. Near the end the lines ahead lie past the
        // slices: they are only hinted at.
        let v = b + PREFETCH_VERTICES;
        hint.fetch(pos.as_ptr().wrapping_add(v).cast(), 2);
        for w in &wide {
            hint.fetch(w.as_ptr().wrapping_add(v).cast(), 2);
        }
        // SAFETY: vertices b..b+8 lie in every slice (b + 8 <= r.end): 24 floats of pos and out,
        // 32 u32 of each wide stream; storeu needs no alignment, and the streaming store's 32-byte
        // alignment holds because out[r.start] is aligned and 8 vertices are 96 bytes.
        unsafe {
            let s = pos.as_ptr().add(b).cast::<f32>();
            // The output is garbage in any order: only that every input byte reaches it matters.
            let mut o = [0, 1, 2].map(|i| reg(s, i, 3));
            for w in &wide {
                let q = w.as_ptr().add(b).cast::<f32>();
                let l = |i: usize| reg(q, i, 4);
                o[0] = _mm256_xor_ps(o[0], _mm256_xor_ps(l(0), l(3)));
                o[1] = _mm256_xor_ps(o[1], l(1));
                o[2] = _mm256_xor_ps(o[2], l(2));
            }
            let d = out.as_mut_ptr().add(b).cast::<f32>();
            for (i, o) in o.into_iter().enumerate() {
                if STREAM {
                    _mm256_stream_ps(d.add(8 * i), o);
                } else {
                    _mm256_storeu_ps(d.add(8 * i), o);
                }
            }
        }
    }
}

/// The AVX-512 loop: 16 vertices a step from the first vertex whose output starts a 64-byte line
/// (as the AVX-512 kernels), unaligned loads, aligned or streaming stores as theirs; every input
/// read as `hint` says (as the kernels prefetch: the step's lines
/// [`avx512::PREFETCH_VERTICES`](super::avx512::PREFETCH_VERTICES) ahead).
///
/// # Safety
/// The CPU has AVX-512F; every slice is `out.len()` long.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn stream_avx512(
    pos: &[[f32; 3]],
    wide: &[&[[u32; 4]]],
    out: &mut [[f32; 3]],
    stream: bool,
    hint: Ahead,
) {
    let n = out.len();
    let head = super::avx512::head_to_align(out);
    xor_vertices(pos, wide, out, 0..head);
    let mut b = head;
    while b + 16 <= n {
        // A step's 3 lines of positions and 4 of each wide stream; each step's lines start where
        // the previous step's end.
        let v = b + super::avx512::PREFETCH_VERTICES;
        hint.fetch(pos.as_ptr().wrapping_add(v).cast(), 3);
        for w in wide {
            hint.fetch(w.as_ptr().wrapping_add(v).cast(), 4);
        }
        // SAFETY: vertices b..b+16 lie in every slice (48 floats of pos and out, 64 u32 of each
        // wide stream); loadu needs no alignment; out[b] starts a 64-byte line since out[head]
        // does and 16 vertices are 3 lines, as store3_512 needs.
        unsafe {
            let s = pos.as_ptr().add(b).cast::<f32>();
            let mut o = [
                _mm512_loadu_ps(s),
                _mm512_loadu_ps(s.add(16)),
                _mm512_loadu_ps(s.add(32)),
            ];
            for w in wide {
                let q = w.as_ptr().add(b).cast::<f32>();
                let l = |i: usize| _mm512_castps_si512(_mm512_loadu_ps(q.add(16 * i)));
                let x = |a: __m512, b: __m512i| {
                    _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(a), b))
                };
                o[0] = x(o[0], _mm512_xor_si512(l(0), l(3)));
                o[1] = x(o[1], l(1));
                o[2] = x(o[2], l(2));
            }
            super::avx512::store3_512(out.as_mut_ptr().add(b).cast(), o, stream);
        }
        b += 16;
    }
    xor_vertices(pos, wide, out, b..n);
    if stream {
        _mm_sfence();
    }
}
