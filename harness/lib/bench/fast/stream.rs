//! The memory bound of the kernels: a loop that moves exactly a kernel's traffic (its own input
//! and output slices, so the same alignment) with the same SIMD width and thread split, and with
//! streaming stores where the kernels' outputs would be (over 8 MB), the faster way to write them
//! (there the AVX2 loop also prefetches its inputs non-temporally, the faster way to read them).
//!
//! Each vertex's input bytes are combined by xor into its output bytes: a few bitwise operations
//! per 32 or 64 bytes, so the loop runs as fast as the memory lets it, and every byte loaded is
//! used (nothing is optimised away). The output is garbage: only its time matters.

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

#[cfg(target_arch = "x86_64")]
use super::avx2::{prefetch_two, PREFETCH_VERTICES};
use super::chunk::par_chunks;
#[cfg(target_arch = "x86_64")]
use super::head_to;
use super::{check_isa, streams, Isa};

/// The 16-byte input streams beside the positions: a kernel's joints, weights, both or none.
pub type Wide<'a> = &'a [&'a [[u32; 4]]];

/// Bytes read and written per vertex by a kernel reading positions and `wide` 16-byte streams.
pub fn traffic(wide: usize) -> (usize, usize) {
    (12 + 16 * wide, 12)
}

/// Reads `positions` and every `wide` stream and writes `out` as a kernel of `isa` with this
/// traffic would (its loads, its `threads`; streaming stores over 8 MB of output, as `streams`
/// says); panics on unequal lengths or more than two wide streams.
pub fn stream_with(
    isa: Isa,
    positions: &[[f32; 3]],
    wide: Wide,
    out: &mut [[f32; 3]],
    threads: usize,
) {
    check_isa(isa);
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
            Isa::Avx512F => unsafe { stream_avx512(p, w, out, stream) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: check_isa asserted that this CPU has AVX2 and FMA.
            Isa::Avx2Fma | Isa::Avx2Rows => unsafe { stream_avx2(p, w, out, stream) },
            _ => xor_vertices(p, w, out, 0..out.len()),
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
/// stores; over 8 MB of output streaming ones from the first 32-byte aligned output vertex, with
/// every input prefetched non-temporally [`PREFETCH_VERTICES`] ahead: the fastest way found to
/// move the traffic (see there).
///
/// # Safety
/// The CPU has AVX2; every slice is `out.len()` long.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn stream_avx2(pos: &[[f32; 3]], wide: &[&[[u32; 4]]], out: &mut [[f32; 3]], stream: bool) {
    let n = out.len();
    let head = if stream { head_to(out, 32, 8) } else { 0 };
    xor_vertices(pos, wide, out, 0..head);
    let full = head + (n - head) / 8 * 8;
    let r = head..full;
    // SAFETY: as the caller guarantees, and out[head] is 32-byte aligned when streaming.
    unsafe {
        match (stream, wide) {
            (false, []) => steps_avx2::<false, 0>(pos, [], out, r),
            (false, &[a]) => steps_avx2::<false, 1>(pos, [a], out, r),
            (false, &[a, b]) => steps_avx2::<false, 2>(pos, [a, b], out, r),
            (true, []) => steps_avx2::<true, 0>(pos, [], out, r),
            (true, &[a]) => steps_avx2::<true, 1>(pos, [a], out, r),
            (true, &[a, b]) => steps_avx2::<true, 2>(pos, [a, b], out, r),
            _ => unreachable!("stream_with takes at most two wide streams"),
        }
    }
    xor_vertices(pos, wide, out, full..n);
    if stream {
        _mm_sfence();
    }
}

/// [`stream_avx2`]'s steps over `r` (a multiple of 8 long), one loop per store kind and number of
/// wide streams, so that no step tests or loops over what the call already decided.
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
        if STREAM {
            // Near the end the lines ahead lie past the slices: they are only hinted at.
            let ahead = b + PREFETCH_VERTICES;
            prefetch_two::<_MM_HINT_NTA>(pos.as_ptr().wrapping_add(ahead).cast());
            for w in &wide {
                prefetch_two::<_MM_HINT_NTA>(w.as_ptr().wrapping_add(ahead).cast());
            }
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
/// (as the AVX-512 kernels), unaligned loads, aligned or streaming stores as theirs.
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
) {
    let n = out.len();
    let head = super::avx512::head_to_align(out);
    xor_vertices(pos, wide, out, 0..head);
    let mut b = head;
    while b + 16 <= n {
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
