//! The GPU side: adapters, one device and pipeline set per adapter, the compute and render paths.

pub mod adapter;
pub mod bound;
pub mod compute;
pub mod context;
pub mod deadline;
pub mod palette;
pub mod pool;
pub mod readback;
pub mod render;
pub mod timing;
pub mod worker;

use std::time::Duration;

pub use adapter::{discover, AdapterInfo, Found, Selection, SelectionError};
pub use context::Context;

/// Why a GPU step did not produce a result.
#[derive(Clone, Debug, thiserror::Error)]
pub enum GpuError {
    #[error("cannot create a device on this adapter: {0}")]
    Device(String),
    #[error("the shader did not build into pipelines on this adapter: {0}")]
    Pipeline(String),
    #[error("wgpu validation error: {0}")]
    Validation(String),
    #[error("out of GPU memory: {0}")]
    OutOfMemory(String),
    #[error("GPU work did not finish within {0:?}: the device hung or is too slow (SKINPROOF_TIMEOUT_S raises the deadline)")]
    Timeout(Duration),
    /// A driver call that outlasted the deadline: `what` names the step (e.g. a pipeline build).
    #[error("{what} took longer than the deadline of {} s: the driver hung or is too slow (SKINPROOF_TIMEOUT_S raises the deadline)", .after.as_secs_f64())]
    Deadline { what: String, after: Duration },
    /// The work did not run: the shader (or its profile) did not load. The first line of why;
    /// `shader::validates` fails with the whole of it, once, where every trial would repeat it.
    #[error("not run: the shader did not load: {0} (`shader::validates` gives the whole error)")]
    NotLoaded(String),
    /// The work did not run: its device was given up after a step past the deadline.
    #[error("not run: the device was abandoned after a hung step ({0})")]
    Abandoned(String),
    #[error("the device was lost: {0}")]
    Lost(String),
    #[error("{what} needs {need} on this adapter, which allows {limit}")]
    Limit { what: String, need: u64, limit: u64 },
    #[error("readback failed: {0}")]
    Readback(String),
    /// The case does not fit the shader's layout (a fixed-length palette too short for it).
    #[error("{0}")]
    Layout(String),
    /// The shader lacks what the step needs (a stage its profile does not give): a SKIP.
    #[error("{0}")]
    Absent(String),
}

/// A joint index past the shader's joint format: a limit of the shader's layout.
impl From<crate::format::TooWide> for GpuError {
    fn from(e: crate::format::TooWide) -> GpuError {
        GpuError::Limit {
            what: format!("joint indices ({e})"),
            need: e.joint as u64,
            limit: e.format.max_index() as u64,
        }
    }
}

impl GpuError {
    /// A hang is reported apart from a failure; so is work that did not run because of one.
    pub fn is_timeout(&self) -> bool {
        matches!(
            self,
            GpuError::Timeout(_) | GpuError::Deadline { .. } | GpuError::Abandoned(_)
        )
    }
}
