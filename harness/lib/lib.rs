//! skinproof: a headless GPU conformance and regression harness for a linear-blend skinning WGSL shader.

pub mod bench;
mod capture;
pub mod case;
pub mod check;
mod compare;
pub mod compose;
pub mod config;
mod contract;
pub mod file;
pub mod format;
pub mod golden;
pub mod gpu;
mod identity;
pub mod model;
pub mod mutate;
pub mod profile;
pub mod property;
mod reference;
pub mod report;
mod rig;
mod run;
pub mod scene;
pub mod shader;
pub mod suite;
mod usage;
pub mod yaml_line;
