//! The core clock during a benchmark: a chain of dependent register adds (one per cycle) timed.
//!
//! Nanoseconds per vertex depend on the clock of whatever machine ran them; cycles per vertex
//! compare kernels across machines. The chain's adds each wait for the one before, and an integer
//! add has one cycle of latency on every x86-64 and AArch64 core, so adds per second is the clock.
//! The adds take a register operand, not an immediate: some cores fold chains of immediate adds
//! at rename, which would read as a faster clock.

use std::hint::black_box;

/// Adds per timed chain: about 0.3 ms at 3 GHz.
pub const CHAIN_ADDS: u64 = 1 << 20;

/// Whether [`add_chain`] runs a real chain on this architecture (else it does nothing).
pub const MEASURED: bool = cfg!(any(target_arch = "x86_64", target_arch = "aarch64"));

/// Runs `adds` dependent adds (rounded down to a multiple of 8), one cycle each.
#[allow(unused_variables)] // `adds` is unused where no chain is written
pub fn add_chain(adds: u64) {
    let one = black_box(1u64);
    let mut x = 0u64;
    let mut loops = adds / 8;
    if loops == 0 {
        return;
    }
    // SAFETY (both): register arithmetic and a backward branch only; no memory, no stack.
    #[cfg(target_arch = "x86_64")]
    unsafe {
        std::arch::asm!(
            "2:",
            "add {x}, {one}", "add {x}, {one}", "add {x}, {one}", "add {x}, {one}",
            "add {x}, {one}", "add {x}, {one}", "add {x}, {one}", "add {x}, {one}",
            "dec {n}",
            "jnz 2b",
            x = inout(reg) x,
            n = inout(reg) loops,
            one = in(reg) one,
            options(nomem, nostack),
        );
    }
    #[cfg(target_arch = "aarch64")]
    unsafe {
        std::arch::asm!(
            "2:",
            "add {x}, {x}, {one}", "add {x}, {x}, {one}", "add {x}, {x}, {one}", "add {x}, {x}, {one}",
            "add {x}, {x}, {one}", "add {x}, {x}, {one}", "add {x}, {x}, {one}", "add {x}, {x}, {one}",
            "subs {n}, {n}, #1",
            "b.ne 2b",
            x = inout(reg) x,
            n = inout(reg) loops,
            one = in(reg) one,
            options(nomem, nostack),
        );
    }
    black_box((x, loops));
}

/// The clock in GHz from the fastest of a chain's timings (seconds for [`CHAIN_ADDS`] adds):
/// a slower timing had the core taken away part of the time. None without a chain or a timing.
pub fn ghz(fastest_seconds: f64) -> Option<f64> {
    (MEASURED && fastest_seconds.is_finite() && fastest_seconds > 0.0)
        .then(|| (CHAIN_ADDS - CHAIN_ADDS % 8) as f64 / fastest_seconds / 1e9)
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use super::*;

    #[test]
    fn the_chain_takes_one_cycle_per_add_at_a_plausible_clock() {
        if !MEASURED {
            return;
        }
        let fastest = (0..20)
            .map(|_| {
                let t = Instant::now();
                add_chain(CHAIN_ADDS);
                t.elapsed().as_secs_f64()
            })
            .fold(f64::INFINITY, f64::min);
        let ghz = ghz(fastest).unwrap();
        // Below 0.3 GHz or above 7 GHz the chain is not one add per cycle: folded, or not run.
        assert!((0.3..7.0).contains(&ghz), "{ghz} GHz");
        // Twice the adds take about twice the time: the chain is really run, not optimised away.
        let t = Instant::now();
        add_chain(8 * CHAIN_ADDS);
        let long = t.elapsed().as_secs_f64();
        assert!(
            long > 4.0 * fastest,
            "8x the adds took {long} s, 1x {fastest} s"
        );
    }

    #[test]
    fn no_timing_gives_no_clock() {
        assert_eq!(ghz(0.0), None);
        assert_eq!(ghz(f64::INFINITY), None);
        if MEASURED {
            let g = ghz(CHAIN_ADDS as f64 / 2e9).unwrap();
            assert!((g - 2.0).abs() < 1e-9, "{g}");
        }
    }
}
