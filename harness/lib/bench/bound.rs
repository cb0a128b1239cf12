//! A row's own bounds: the memory bound (a loop moving exactly the row's traffic, timed beside it),
//! the arithmetic bound (its flops at the core's measured FMA peak), which of them binds, and the
//! row's ratio to it.

use serde::{Deserialize, Serialize};

use super::measure::median;

/// Which bound is the larger, so the one the row cannot beat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Binding {
    Memory,
    Arithmetic,
}

impl Binding {
    pub fn name(self) -> &'static str {
        match self {
            Binding::Memory => "memory",
            Binding::Arithmetic => "arithmetic",
        }
    }
}

/// The core's FMA throughput on one kernel family, measured in the run.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct FmaPeak {
    /// The kernel family (`fast::Isa::name`) whose FMA width the loop used.
    pub isa: String,
    /// One core's floating-point operations per second, GFLOP/s, from the loop's fastest sample.
    pub gflops: f64,
    /// The same per cycle of the run's core clock, where the clock was measured.
    pub flops_per_cycle: Option<f64>,
}

/// The arithmetic bound in ms: `flops` per vertex for `vertices` on `threads` cores at `gflops` each.
pub(super) fn arithmetic_ms(flops: u32, vertices: usize, threads: usize, gflops: f64) -> f64 {
    flops as f64 * vertices as f64 / (threads as f64 * gflops * 1e9) * 1e3
}

/// Which bound binds (the larger: `memory`'s median or `arithmetic`), and the row's ratio to the
/// larger bound: the median over the rounds of the row's time over the larger bound in the same
/// round (`row` and `memory` are per-call seconds, sample i of each from round i), so that load
/// that comes and goes on the machine reaches both sides of each ratio alike.
pub(super) fn binding(
    row: &[f64],
    memory: Option<&[f64]>,
    arithmetic: Option<f64>,
) -> Option<(Binding, f64)> {
    let memory = memory.filter(|m| m.len() == row.len() && !m.is_empty());
    let binds = match (memory.map(median), arithmetic) {
        (Some(m), Some(a)) if a > m => Binding::Arithmetic,
        (Some(_), _) => Binding::Memory,
        (None, Some(_)) => Binding::Arithmetic,
        (None, None) => return None,
    };
    let ratios: Vec<f64> = row
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let m = memory.map_or(0.0, |m| m[i]);
            r / m.max(arithmetic.unwrap_or(0.0))
        })
        .collect();
    let ratio = median(&ratios);
    ratio.is_finite().then_some((binds, ratio))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_larger_bound_binds_and_the_ratio_is_the_median_of_each_rounds() {
        let row = [3.0, 6.0, 3.3];
        // Round 2 was slow for both: its ratio is still 1.5.
        let memory = [2.0, 4.0, 2.0];
        let (binds, ratio) = binding(&row, Some(&memory), Some(1.0)).unwrap();
        assert_eq!(binds, Binding::Memory);
        assert!((ratio - 1.5).abs() < 1e-12, "{ratio}");
        // Arithmetic binds where it is above the memory bound's median; in a round whose memory
        // sample is larger still, that sample is the bound.
        let (binds, ratio) = binding(&row, Some(&memory), Some(2.2)).unwrap();
        assert_eq!(binds, Binding::Arithmetic);
        assert!((ratio - 1.5).abs() < 1e-12, "{ratio}");
        // Without a memory bound: 2.0, 4.0 and 2.2 times the arithmetic bound.
        let (binds, ratio) = binding(&row, None, Some(1.5)).unwrap();
        assert_eq!(binds, Binding::Arithmetic);
        assert!((ratio - 2.2).abs() < 1e-12, "{ratio}");
        assert_eq!(binding(&row, None, None), None);
        // 100 flops a vertex, 1M vertices, 2 threads at 50 GFLOP/s each: 1 ms.
        assert!((arithmetic_ms(100, 1_000_000, 2, 50.0) - 1.0).abs() < 1e-12);
    }
}
